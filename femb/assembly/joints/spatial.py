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

from femb.assembly.joints.protocol import JointEvaluator, gather
from femb.assembly.joints.spatial_kernels import KIND_CODES, frames, midpoint_frames, n_pairs
from femb.assembly.joints.spatial_kernels import evaluate as evaluate_kernel
from femb.assembly.joints.spatial_kernels import hessian as hessian_kernel
from femb.assembly.joints.spatial_kernels import midpoint_stiffness as midpoint_stiffness_kernel
from femb.core.errors import ModelError
from femb.core.rotations import exp_batch

ROWS = {"spherical": 3, "revolute": 5, "universal": 4, "cylindrical": 4, "prismatic": 5}


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


class _Spec:
    """One joint's data as read from the model (``Joints3D`` stacks them into arrays)."""

    __slots__ = ("name", "kind", "na", "nb", "ta", "ra", "tb", "rb", "Xa", "Xb", "c", "cb", "n0", "t1", "t2")


def _block_pattern(blocks):
    """(rows, cols) of 3×3 blocks [(a (3,), b (3,)), ...] (row-major values per block)."""
    if not blocks:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return (np.concatenate([np.repeat(a, 3) for a, _ in blocks]).astype(np.int64),
            np.concatenate([np.tile(b, 3) for _, b in blocks]).astype(np.int64))


class Joints3D(JointEvaluator):
    """All 3-D joints of a model (evaluator of ``ConstraintSet``), evaluated by the compiled
    kernels of femb.assembly.joints.spatial_kernels over arrays of joints. The triplet
    patterns are built once from the joints; each call fills only the values."""

    kinds = frozenset(ROWS)
    takes_rotations = True  # evaluate/midpoint accept the solver's nodal rotations

    def __init__(self, model, table, joints):
        if table.dim != 3:
            raise ModelError(f"3-D joints {[j.name for j in joints]} need a 3-D model")
        names = table.dof_names
        tcols = [names.index(k) for k in ("ux", "uy", "uz")]
        rcols = [names.index(k) for k in ("rx", "ry", "rz")]
        specs, self.names = [], []
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
            specs.append(s)
            self.names += [j.name] * ROWS[j.kind]
        self.m = len(self.names)
        self._arrays(specs)
        self._last = None  # (R_a, R_b, d) of the last evaluation (for ``hessian``)
        self._mid = None  # the same at the averaged state of the last ``midpoint``, with R_a1, R_b1, T_a, T_b

    def _arrays(self, specs):
        """Joint arrays of the kernels (femb.assembly.joints.spatial_kernels) and the
        triplet patterns of the Jacobian, the curvature and the discrete stiffness."""
        nj = len(specs)
        self.kind = np.array([KIND_CODES[s.kind] for s in specs], dtype=np.int64)
        self.ta = np.array([s.ta for s in specs], dtype=np.int64).reshape(nj, 3)
        self.tb = np.array([s.tb for s in specs], dtype=np.int64).reshape(nj, 3)
        self.ra = np.array([s.ra for s in specs], dtype=np.int64).reshape(nj, 3)
        self.rb = np.array([s.rb for s in specs], dtype=np.int64).reshape(nj, 3)
        self.Xa = np.array([s.Xa for s in specs], dtype=np.float64).reshape(nj, 3)
        self.Xb = np.array([s.Xb for s in specs], dtype=np.float64).reshape(nj, 3)
        self.c = np.array([s.c for s in specs], dtype=np.float64).reshape(nj, 3)
        self.has_cb = np.array([s.cb is not None for s in specs], dtype=np.bool_)
        self.cb = np.array([np.zeros(3) if s.cb is None else s.cb for s in specs], dtype=np.float64).reshape(nj, 3)
        self.frame = np.array([[s.n0, s.t1, s.t2] for s in specs], dtype=np.float64).reshape(nj, 3, 3)
        self.node_a = np.array([s.na for s in specs], dtype=np.int64)
        self.node_b = np.array([max(s.nb, 0) for s in specs], dtype=np.int64)
        self.rot_a = np.all(self.ra >= 0, axis=1)  # nodes whose rotation the joint reads
        self.rot_b = np.array([s.nb >= 0 for s in specs], dtype=bool) & np.all(self.rb >= 0, axis=1)
        # patterns, joint by joint in the kernels' order
        jac_r, jac_c, hess, stiff = [], [], [], []
        self.row0 = np.zeros(nj, np.int64)
        self.jac0 = np.zeros(nj, np.int64)
        self.blk0 = np.zeros(nj, np.int64)
        r0 = n_jac = 0
        for j, s in enumerate(specs):
            code = int(self.kind[j])
            self.row0[j], self.jac0[j], self.blk0[j] = r0, n_jac, len(hess)
            ta, tb, ra, rb, cbj = s.ta, s.tb, s.ra, s.rb, s.cb is not None
            tta = np.concatenate([tb, ta, ra])
            if code <= 2:  # r = 0
                jac_r.append(np.repeat(np.arange(r0, r0 + 3), 9))
                jac_c.append(np.tile(tta, 3))
                hess.append((ra, ra))
                stiff.append((ra, ra))
                if cbj:
                    jac_r.append(np.repeat(np.arange(r0, r0 + 3), 3))
                    jac_c.append(np.tile(rb, 3))
                    hess.append((rb, rb))
                    stiff.append((rb, rb))
                r0 += 3
            else:  # the two projections (R_a t)·r
                for _ in range(2):
                    jac_r.append(np.full(9, r0))
                    jac_c.append(tta)
                    if cbj:
                        jac_r.append(np.full(6, r0))
                        jac_c.append(np.concatenate([ra, rb]))
                    hess += [(ra, tb), (tb, ra), (ra, ta), (ta, ra), (ra, ra)]
                    stiff += [(tb, ra), (ta, ra), (ra, ra), (ra, tb), (ra, ta)]
                    r0 += 1
                if cbj:  # their director products (R_a t)·(R_b c_b)
                    hess += 2 * [(ra, ra), (rb, rb), (ra, rb), (rb, ra)]
                    stiff += 2 * [(ra, ra), (ra, rb), (rb, rb), (rb, ra)]
            for _ in range(n_pairs(code)):
                jac_r.append(np.full(6, r0))
                jac_c.append(np.concatenate([ra, rb]))
                hess += [(ra, ra), (rb, rb), (ra, rb), (rb, ra)]
                stiff += [(ra, ra), (ra, rb), (rb, rb), (rb, ra)]
                r0 += 1
            n_jac = sum(x.size for x in jac_r)
        self.jac_rows = np.concatenate(jac_r).astype(np.int64) if jac_r else np.zeros(0, np.int64)
        self.jac_cols = np.concatenate(jac_c).astype(np.int64) if jac_c else np.zeros(0, np.int64)
        self._square = {}
        for key, blocks in (("hessian", hess), ("midpoint_stiffness", stiff)):
            rows, cols = _block_pattern(blocks)
            keep = np.flatnonzero((rows >= 0) & (cols >= 0))  # entries at fixed variables dropped
            self._square[key] = (rows[keep], cols[keep], keep, 9 * len(blocks))

    # ------------------------------------------------------------------ rotations
    def _frames(self, u, rotations):
        """(R_a, R_b) (nj, 3, 3) of the joints from the nodal rotations (n_nodes, 3, 3) or,
        when None, from the rotation vectors in u (identity for ground and nodes without
        rotations)."""
        nj = self.kind.size
        Ra, Rb = np.empty((nj, 3, 3)), np.empty((nj, 3, 3))
        if rotations is None:
            exp_batch(gather(u, self.ra), Ra)
            exp_batch(gather(u, self.rb), Rb)
            Ra[~self.rot_a] = np.eye(3)
            Rb[~self.rot_b] = np.eye(3)
        else:
            frames(self.node_a, self.node_b, self.rot_a, self.rot_b, np.ascontiguousarray(rotations, dtype=np.float64), Ra, Rb)
        return Ra, Rb

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, u, t=0.0, rotations=None):
        """(Φ (m,), local rows, variable columns, values) at state ``u`` (rotations from
        ``rotations`` (n_nodes, 3, 3) when given)."""
        Ra, Rb = self._frames(u, rotations)
        phi, vals = self._evaluate(u, Ra, Rb)
        return phi, self.jac_rows, self.jac_cols, vals

    def _evaluate(self, u, Ra, Rb):
        """(Φ (m,), Jacobian values) at the translations of u and the rotations Ra, Rb;
        keeps (Ra, Rb, d) for ``hessian``."""
        phi = np.zeros(self.m)
        vals = np.empty(self.jac_rows.size)
        d = np.empty((self.kind.size, 3))
        evaluate_kernel(self.kind, self.row0, self.jac0, self.Xa, self.Xb, self.ta, self.tb, self.c, self.cb, self.has_cb,
                      self.frame, np.ascontiguousarray(u, dtype=np.float64), Ra, Rb, phi, vals, d)
        self._last = (Ra, Rb, d)
        return phi, vals

    def midpoint(self, u0, u1, rotations=None):
        """Exact discrete derivative (rows, cols, vals) between states u0 and u1: the
        Jacobian with averaged directors and positions, rotational columns per unit Cayley
        vector ψ of R_1 R_0ᵀ (module docstring). ``rotations``: (R_0, R_1) nodal rotations
        (n_nodes, 3, 3) each, or None (from u0, u1). The joints' curvature (``hessian``)
        is then the one at the averaged state."""
        R0, R1 = (None, None) if rotations is None else rotations
        Ra0, Rb0 = self._frames(u0, R0)
        Ra1, Rb1 = self._frames(u1, R1)
        Ra, Rb, Ta, Tb = (np.empty_like(Ra0) for _ in range(4))
        midpoint_frames(Ra0, Rb0, Ra1, Rb1, Ra, Rb, Ta, Tb)
        _, vals = self._evaluate(0.5 * (u0 + u1), Ra, Rb)
        self._mid = self._last + (Ra1, Rb1, Ta, Tb)
        return self.jac_rows, self.jac_cols, vals

    def _square_result(self, key, vals):
        rows, cols, keep, _ = self._square[key]
        return rows, cols, vals[keep]

    def midpoint_stiffness(self, lam):
        """Exact derivative of Ḡᵀλ (Ḡ of the last ``midpoint``, multipliers λ fixed) with
        respect to the step unknowns (Δx, ψ): (rows, cols, vals) over variables, not
        symmetric. With averaged directors p̄ = (p_0 + p_1)/2 and p_1 = cay(ψ) p_0,
        δp̄ = −½ [p_1]× T(ψ) δψ (T = (I + ψ̂/2)/(1 + |ψ|²/4)) and δd̄ = ½ δΔd."""
        if self._mid is None:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        vals = np.empty(self._square["midpoint_stiffness"][3])
        midpoint_stiffness_kernel(self.kind, self.row0, self.blk0, self.c, self.cb, self.has_cb, self.frame, *self._mid,
                                np.ascontiguousarray(lam, dtype=np.float64), vals)
        return self._square_result("midpoint_stiffness", vals)

    def hessian(self, lam):
        """Symmetric part of Σ λ_i ∇²Φ_i (rows, cols, vals over variables) at the state of
        the last ``evaluate``."""
        if self._last is None:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        vals = np.empty(self._square["hessian"][3])
        hessian_kernel(self.kind, self.row0, self.blk0, self.c, self.cb, self.has_cb, self.frame, *self._last,
                     np.ascontiguousarray(lam, dtype=np.float64), vals)
        return self._square_result("hessian", vals)
