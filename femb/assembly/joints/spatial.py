"""3-D joints between oriented nodes (or an oriented node and ground) as holonomic
constraints on (x, R), evaluated for ``ConstraintSet`` (femb.assembly.joints.constraint_set)
through the evaluator protocol (femb.assembly.joints.protocol).

Node a carries the joint frame: the unit axis n0 (reference configuration) and two unit
normals t1, t2 (n0, t1, t2 right-handed; t1 the universal joint's ``second_axis`` when
given), all turning with node a's rotation R_a. Node b (R_b; ground: R_b = I and x_b = the
fixed point) carries copies of the same reference vectors. The joint sits at the
attachment point P (reference configuration; default X_b), fixed in both bodies: with
c = P − X_a (carried by a), c_b = P − X_b (carried by b; zero by default),
d = x_b − x_a and r = d + R_b c_b − R_a c, the equations per kind are

==============  ==============================================================  =====
kind            equations                                                        rows
==============  ==============================================================  =====
spherical       r = 0                                                            3
revolute        r = 0;  (R_a t1)·(R_b n0) = 0, (R_a t2)·(R_b n0) = 0             5
universal       r = 0;  (R_a n0)·(R_b t1) = 0                                    4
cylindrical     (R_a t1)·r = 0, (R_a t2)·r = 0;  the two axis rows of revolute   4
prismatic       cylindrical;  (R_a t1)·(R_b t2) = 0                              5
==============  ==============================================================  =====

(The universal joint's cross axes are n0, fixed in a, and t1, fixed in b.)

Variables: translations of a and b, and the spatial spins w of their rotations
(δR = ŵ R): ∂(R v0)/∂w = −[R v0]×. The rotation R of a node is recovered from the
rotational slots of the state vector u, which hold log R (femb.solvers.configuration),
so the joints plug into the solvers' ``evaluate(u, t)`` calls unchanged. Jacobian rows:

- r: ∂/∂u_b = I, ∂/∂u_a = −I, ∂/∂w_a = [R_a c]×, ∂/∂w_b = −[R_b c_b]×;
- p·q with p = R_a p0, q = R_b q0: ∂/∂w_a = p × q, ∂/∂w_b = q × p;
- (R_a t)·r = t·d − t0·c + t·(R_b c_b): ∂/∂u_b = t, ∂/∂u_a = −t, ∂/∂w_a = t × d, and the
  last term is a product p·q of two directors (p = R_a t0, q = R_b c_b) as above.

Terms with c_b are left out when c_b = 0 (the joint at node b), so such joints are
evaluated exactly as before attachment points existed.

``hessian`` returns the symmetric part of Σ λ ∇²Φ in these variables at the state of the
last ``evaluate`` (used as the joints' contribution to the Newton tangent).
Every equation is bilinear in the positions and the directors (unit vectors R v0 turning
with a node), which gives the exact discrete derivative of the energy-conserving dynamics
(femb.solvers.dynamics.midpoint3d). Over a step with Cayley rotation increments R_1 = cay(ψ) R_0 a
director satisfies d_1 − d_0 = ψ × (d_0 + d_1)/2, and for bilinear terms
p_1·q_1 − p_0·q_0 = p̄·Δq + Δp·q̄ (bars: averages of the two ends). Hence the Jacobian
above, evaluated with the *averaged* directors R̄ v0 = (R_0 + R_1) v0/2 and averaged
positions, with its rotational columns read per unit ψ, satisfies Ḡ·(Δx, ψ) = Φ_1 − Φ_0
exactly at any rotation size (``midpoint``). The average of two rotations is not a
rotation; the Jacobian at a mid rotation would be exact only to O(|ψ|³).

Rotations come from the rotational slots of ``u`` (exp of log R), or, given
``rotations`` (n_nodes, 3, 3), directly from the solver's nodal rotations (no round trip
through log R, which is ill-conditioned near a half turn).
"""
import numpy as np

from femb.assembly.joints.protocol import JointEvaluator
from femb.core.errors import ModelError
from femb.core.rotations import cayley_spin_jacobian_batch, cayley_vector_batch, exp_batch
from femb.core.rotations import cross_batch as _cross
from femb.core.rotations import hat_batch as _skew

ROWS = {"spherical": 3, "revolute": 5, "universal": 4, "cylindrical": 4, "prismatic": 5}


def _cayley_spin_of(C):
    """T(ψ) (3, 3) of the Cayley vector ψ of rotation C (3, 3), so that δC Cᵀ = (T δψ)^."""
    return cayley_spin_jacobian_batch(cayley_vector_batch(C))


def joint_frame(axis, second=None, name="joint"):
    """Unit axis n0 and normals t1, t2 (right-handed triad) of a joint axis (3,). t1 is
    the unit ``second`` axis (3,) when given (it must be perpendicular to ``axis``: a
    ModelError naming the joint ``name`` otherwise), else n0 × e_k normalized, e_k the
    coordinate axis least aligned with n0."""
    n = np.asarray(axis, dtype=np.float64)
    n = n / np.linalg.norm(n)
    if second is None:
        helper = np.eye(3)[np.argmin(np.abs(n))]
        t1 = np.cross(n, helper)
    else:
        t1 = np.asarray(second, dtype=np.float64)
        size = np.linalg.norm(t1)
        if not size > 0 or abs(n @ t1) > 1e-9 * size:
            raise ModelError(f"joint {name!r}: the second axis {tuple(t1)} must be non-zero and perpendicular to the axis "
                             f"{tuple(n)} (cosine {n @ t1 / size if size > 0 else float('nan'):.3g})")
    t1 = t1 / np.linalg.norm(t1)
    return n, t1, np.cross(n, t1)


def attachment_point(joint, Xa, Xb):
    """Reference position (3,) of the attachment point of a 3-D ``joint`` (femb.model.joints):
    its ``point`` in reference coordinates, or, with ``frame`` "a" / "b", the point at offset
    ``point`` from node a / b (reference positions ``Xa``, ``Xb``; nodes start unrotated,
    so a body frame is parallel to the global axes in the reference configuration). Without
    a point: node b's position (``Xb``), or node a's for a joint to ground (``Xb`` None)."""
    frame = joint.frame or "reference"
    if joint.point is None:
        return (Xa if Xb is None else Xb).copy()
    p = np.asarray(joint.point, dtype=np.float64)
    if frame == "reference":
        return p.copy()
    if frame == "a":
        return Xa + p
    if frame == "b" and Xb is not None:
        return Xb + p
    raise ModelError(f"joint {joint.name!r}: point given in frame {frame!r}, which does not exist "
                     f"(frames: 'reference', 'a'{', ' + repr('b') if Xb is not None else ' (a joint to ground has no node b)'})")



class _Collector:
    """Triplets (rows, cols, vals) of 3×3 blocks: ``block(a, b, H)`` appends H at the
    variables a (3,) × b (3,), skipping fixed variables (index < 0). The sequence of blocks
    of an evaluation depends only on the joints, so the rows and columns are built on the
    first call and kept in ``cache`` (a dict); later calls only collect the values."""

    __slots__ = ("cache", "rows", "cols", "vals")

    def __init__(self, cache):
        self.cache = cache
        self.rows, self.cols, self.vals = [], [], []

    def block(self, a, b, H):
        if a[0] < 0 or b[0] < 0:
            return
        self.vals.append(H.ravel())
        if "rows" not in self.cache:
            self.rows.append(np.repeat(a, 3))
            self.cols.append(np.tile(b, 3))

    def result(self):
        if not self.vals:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        if "rows" not in self.cache:
            self.cache["rows"], self.cache["cols"] = np.concatenate(self.rows), np.concatenate(self.cols)
        return self.cache["rows"], self.cache["cols"], np.concatenate(self.vals)


_EYE = np.eye(3)
_EYE_NEG = np.hstack([_EYE, -_EYE])

class _Spec:
    __slots__ = ("name", "kind", "na", "nb", "ta", "ra", "tb", "rb", "Xa", "Xb", "c", "cb", "n0", "t1", "t2")


class Joints3D(JointEvaluator):
    """All 3-D joints of a model (evaluator of ``ConstraintSet``)."""

    kinds = frozenset(ROWS)
    takes_rotations = True  # evaluate/midpoint accept the solver's nodal rotations

    def __init__(self, model, table, joints):
        if table.dim != 3:
            raise ModelError(f"3-D joints {[j.name for j in joints]} need a 3-D model")
        names = table.dof_names
        tcols = [names.index(k) for k in ("ux", "uy", "uz")]
        rcols = [names.index(k) for k in ("rx", "ry", "rz")]
        self.specs, self.names = [], []
        for j in joints:
            s = _Spec()
            s.name, s.kind = j.name, j.kind
            na = model.node(j.node_a)
            s.na, s.nb = int(na), -1
            s.ta, s.ra = table.node_var[na, tcols], table.node_var[na, rcols]
            if np.any(s.ta < 0):
                raise ModelError(f"joint {j.name!r}: node {na} carries no translations")
            s.Xa = np.zeros(3)
            s.Xa[: model.mesh.dim] = model.mesh.points[na]
            if j.node_b is None:
                s.tb = s.rb = np.full(3, -1)
                s.Xb = attachment_point(j, s.Xa, None)
            else:
                nb = model.node(j.node_b)
                s.nb = int(nb)
                s.tb, s.rb = table.node_var[nb, tcols], table.node_var[nb, rcols]
                if np.any(s.tb < 0):
                    raise ModelError(f"joint {j.name!r}: node {nb} carries no translations")
                s.Xb = np.zeros(3)
                s.Xb[: model.mesh.dim] = model.mesh.points[nb]
                if j.kind != "spherical" and np.any(s.rb < 0):
                    raise ModelError(f"joint {j.name!r}: node {nb} carries no rotations (needs an oriented node, e.g. of beam3d)")
            point = s.Xb if j.node_b is None else attachment_point(j, s.Xa, s.Xb)
            s.c = point - s.Xa
            s.cb = None  # offset of the attachment point from node b (None: the joint sits at node b)
            if s.nb >= 0 and np.any(point != s.Xb):
                s.cb = point - s.Xb
                if np.any(s.rb < 0):
                    raise ModelError(f"joint {j.name!r}: node {s.nb} carries no rotations, so the attachment point {tuple(point)} "
                                     f"away from it cannot follow it (needs an oriented node, e.g. of beam3d or rigid_body3d)")
            needs_rotation = j.kind != "spherical" or np.linalg.norm(s.c) > 0
            if needs_rotation and np.any(s.ra < 0):
                raise ModelError(f"joint {j.name!r}: node {na} carries no rotations (needs an oriented node, e.g. of beam3d)")
            s.n0, s.t1, s.t2 = joint_frame(j.axis if j.axis is not None else (1.0, 0.0, 0.0),
                                           j.second_axis, name=j.name)
            self.specs.append(s)
            self.names += [j.name] * ROWS[j.kind]
        self.m = len(self.names)
        self._last = None
        self._patterns = {}  # rows/cols of the Jacobian and curvature triplets (fixed per joint set)

    # ------------------------------------------------------------------ rotations
    @staticmethod
    def _rotation(u, rvars):
        if np.any(rvars < 0):
            return np.eye(3)
        R = np.empty((1, 3, 3))
        exp_batch(np.ascontiguousarray(u[rvars][None, :], dtype=np.float64), R)
        return R[0]

    def _frames(self, u, rotations):
        """[(R_a, R_b)] per joint from the nodal rotations (n_nodes, 3, 3) or, when None,
        from the rotation vectors in u (identity for ground and nodes without rotations)."""
        out = []
        for s in self.specs:
            if rotations is None:
                out.append((self._rotation(u, s.ra), self._rotation(u, s.rb)))
            else:
                Ra = rotations[s.na] if s.ra[0] >= 0 else np.eye(3)
                Rb = rotations[s.nb] if s.nb >= 0 and s.rb[0] >= 0 else np.eye(3)
                out.append((Ra, Rb))
        return out

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, u, t=0.0, rotations=None):
        """(Φ (m,), local rows, variable columns, values) at state ``u`` (rotations from
        ``rotations`` (n_nodes, 3, 3) when given)."""
        return self._evaluate(u, self._frames(u, rotations))

    def midpoint(self, u0, u1, rotations=None):
        """Exact discrete derivative (rows, cols, vals) between states u0 and u1: the
        Jacobian with averaged directors and positions, rotational columns per unit Cayley
        vector ψ of R_1 R_0ᵀ (module docstring). ``rotations``: (R_0, R_1) nodal rotations
        (n_nodes, 3, 3) each, or None (from u0, u1). The joints' curvature (``hessian``)
        is then the one at the averaged state."""
        R0, R1 = (None, None) if rotations is None else rotations
        f0, f1 = self._frames(u0, R0), self._frames(u1, R1)
        frames = [(0.5 * (a0 + a1), 0.5 * (b0 + b1)) for (a0, b0), (a1, b1) in zip(f0, f1)]
        _, r, c, v = self._evaluate(0.5 * (u0 + u1), frames)
        self._mid = (self._last, f1, [(_cayley_spin_of(a1 @ a0.T), _cayley_spin_of(b1 @ b0.T))
                                      for (a0, b0), (a1, b1) in zip(f0, f1)])
        return r, c, v

    def midpoint_stiffness(self, lam):
        """Exact derivative of Ḡᵀλ (Ḡ of the last ``midpoint``, multipliers λ fixed) with
        respect to the step unknowns (Δx, ψ): (rows, cols, vals) over variables, not
        symmetric. With averaged directors p̄ = (p_0 + p_1)/2 and p_1 = cay(ψ) p_0,
        δp̄ = −½ [p_1]× T(ψ) δψ (T = (I + ψ̂/2)/(1 + |ψ|²/4)) and δd̄ = ½ δΔd."""
        if getattr(self, "_mid", None) is None:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        lam = np.asarray(lam, dtype=np.float64)
        out = _Collector(self._patterns.setdefault("midpoint_stiffness", {}))
        block = out.block
        records, ends, spins = self._mid
        for rec, (Ra1, Rb1), (Ta, Tb) in zip(records, ends, spins):
            s, dbar = rec["s"], rec["d"]
            if rec["position"] is not None:
                lv = lam[rec["position"]:rec["position"] + 3]
                block(s.ra, s.ra, -0.5 * _skew(lv) @ _skew(Ra1 @ s.c) @ Ta)
                if s.cb is not None:
                    block(s.rb, s.rb, 0.5 * _skew(lv) @ _skew(Rb1 @ s.cb) @ Tb)
            for row, tbar, tref in rec["projections"]:
                w = lam[row]
                St1 = _skew(Ra1 @ tref) @ Ta
                block(s.tb, s.ra, -0.5 * w * St1)
                block(s.ta, s.ra, 0.5 * w * St1)
                block(s.ra, s.ra, 0.5 * w * _skew(dbar) @ St1)
                block(s.ra, s.tb, 0.5 * w * _skew(tbar))
                block(s.ra, s.ta, -0.5 * w * _skew(tbar))
            for row, pbar, qbar, pref, qref in rec["dots"]:
                w = lam[row]
                Sp1 = _skew(Ra1 @ pref) @ Ta
                Sq1 = _skew(Rb1 @ qref) @ Tb
                block(s.ra, s.ra, 0.5 * w * _skew(qbar) @ Sp1)
                block(s.ra, s.rb, -0.5 * w * _skew(pbar) @ Sq1)
                block(s.rb, s.rb, 0.5 * w * _skew(pbar) @ Sq1)
                block(s.rb, s.ra, -0.5 * w * _skew(qbar) @ Sp1)
        return out.result()

    def _evaluate(self, u, frames):
        phi = np.zeros(self.m)
        pattern = self._patterns.setdefault("jacobian", {})
        build = "rows" not in pattern
        rows, cols, vals = [], [], []
        state = []
        r0 = 0
        for s, (Ra, Rb) in zip(self.specs, frames):
            xa = s.Xa + u[s.ta]
            xb = s.Xb + (u[s.tb] if s.tb[0] >= 0 else 0.0)
            d = xb - xa
            v = Ra @ s.c
            vb = None if s.cb is None else Rb @ s.cb
            r = d - v if vb is None else d + vb - v
            n_a, t1_a, t2_a = Ra @ s.n0, Ra @ s.t1, Ra @ s.t2
            n_b, t1_b, t2_b = Rb @ s.n0, Rb @ s.t1, Rb @ s.t2
            rec = dict(s=s, d=d, v=v, vb=vb, dots=[], projections=[], position=None)
            k = s.kind
            if k in ("spherical", "revolute", "universal"):
                # row r0 + i: e_i at u_b, −e_i at u_a, e_i × v at w_a (= row i of [v]×)
                phi[r0:r0 + 3] = r
                vals.append(np.concatenate([_EYE_NEG, _skew(v)], axis=1).ravel())
                if build:
                    rows.append(np.repeat(np.arange(r0, r0 + 3), 9))
                    cols.append(np.tile(np.concatenate([s.tb, s.ta, s.ra]), 3))
                if vb is not None:  # + R_b c_b: −[R_b c_b]× at w_b
                    vals.append(-_skew(vb).ravel())
                    if build:
                        rows.append(np.repeat(np.arange(r0, r0 + 3), 3))
                        cols.append(np.tile(s.rb, 3))
                rec["position"] = r0
                r0 += 3
            if k in ("cylindrical", "prismatic"):
                for tvec, tref in ((t1_a, s.t1), (t2_a, s.t2)):
                    phi[r0] = tvec @ r
                    vals.append(np.concatenate([tvec, -tvec, _cross(tvec, d)]))
                    if build:
                        rows.append(np.full(9, r0))
                        cols.append(np.concatenate([s.tb, s.ta, s.ra]))
                    rec["projections"].append((r0, tvec, tref))
                    if vb is not None:  # (R_a t)·(R_b c_b): a product of two directors
                        pq = _cross(tvec, vb)
                        vals.append(np.concatenate([pq, -pq]))
                        if build:
                            rows.append(np.full(6, r0))
                            cols.append(np.concatenate([s.ra, s.rb]))
                        rec["dots"].append((r0, tvec, vb, tref, s.cb))
                    r0 += 1
            pairs = []
            if k in ("revolute", "cylindrical", "prismatic"):
                pairs += [(t1_a, n_b, s.t1, s.n0), (t2_a, n_b, s.t2, s.n0)]
            if k == "universal":
                pairs.append((n_a, t1_b, s.n0, s.t1))
            if k == "prismatic":
                pairs.append((t1_a, t2_b, s.t1, s.t2))
            for p, q, pref, qref in pairs:
                phi[r0] = p @ q
                pq = _cross(p, q)
                vals.append(np.concatenate([pq, -pq]))
                if build:
                    rows.append(np.full(6, r0))
                    cols.append(np.concatenate([s.ra, s.rb]))
                rec["dots"].append((r0, p, q, pref, qref))
                r0 += 1
            state.append(rec)
        self._last = state
        if not vals:
            return phi, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        if build:
            pattern["rows"], pattern["cols"] = np.concatenate(rows).astype(np.int64), np.concatenate(cols).astype(np.int64)
        return phi, pattern["rows"], pattern["cols"], np.concatenate(vals)

    def hessian(self, lam):
        """Symmetric part of Σ λ_i ∇²Φ_i (rows, cols, vals over variables) at the state of
        the last ``evaluate``."""
        if self._last is None:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        lam = np.asarray(lam, dtype=np.float64)
        out = _Collector(self._patterns.setdefault("hessian", {}))
        block = out.block
        eye = _EYE
        for rec in self._last:
            s, d, v = rec["s"], rec["d"], rec["v"]
            if rec["position"] is not None:
                lv = lam[rec["position"]:rec["position"] + 3]
                block(s.ra, s.ra, (lv @ v) * eye - 0.5 * (np.outer(v, lv) + np.outer(lv, v)))
                vb = rec["vb"]
                if vb is not None:
                    block(s.rb, s.rb, 0.5 * (np.outer(vb, lv) + np.outer(lv, vb)) - (lv @ vb) * eye)
            for row, tvec, _ in rec["projections"]:
                w = lam[row]
                block(s.ra, s.tb, w * _skew(tvec))
                block(s.tb, s.ra, w * _skew(tvec).T)
                block(s.ra, s.ta, -w * _skew(tvec))
                block(s.ta, s.ra, -w * _skew(tvec).T)
                block(s.ra, s.ra, w * (0.5 * (np.outer(tvec, d) + np.outer(d, tvec)) - (tvec @ d) * eye))
            for row, p, q, _, _ in rec["dots"]:
                w = lam[row]
                pq = p @ q
                sym = 0.5 * (np.outer(p, q) + np.outer(q, p)) - pq * eye
                block(s.ra, s.ra, w * sym)
                block(s.rb, s.rb, w * sym)
                block(s.ra, s.rb, w * (pq * eye - np.outer(q, p)))
                block(s.rb, s.ra, w * (pq * eye - np.outer(p, q)))
        return out.result()
