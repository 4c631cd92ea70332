"""Evaluation of the joint constraints Φ(u, t) = 0 of a model and their Jacobians.

Every joint kind is evaluated for all joints of that kind at once (numpy; the joints of a
mechanism are few). Rows are ordered kind by kind (distance, on_line, coincide, linear,
then the rotation-dependent kinds: body_point, slider and the 3-D joints of
femb.assembly.joints3d). Jacobians are returned over *variables* (m, n_var) in CSR form;
the solvers take the columns of the free equations. The translational kinds are linear or
quadratic in the positions, so their Jacobian at the mid-point configuration is an exact
discrete derivative: G((u0 + u1)/2)·(u1 − u0) = Φ(u1) − Φ(u0). The rotation-dependent
kinds involve R(θ); ``midpoint_jacobian(u0, u1)`` gives their exact discrete derivative
(it needs both end configurations), while the Jacobian at the mid-point alone is exact
only up to O(Δθ³).

Rotation-dependent kinds are *evaluators*: objects with ``m`` (rows), ``names`` (joint
name per row), ``evaluate(u, t) -> (Φ, rows, cols, vals)`` (local rows, variable
columns), ``hessian(lam) -> (rows, cols, vals)`` (Σ λ_i ∇²Φ_i over variables, symmetric
part) and ``midpoint(u0, u1) -> (rows, cols, vals)``. Columns of 3-D rotational
variables are derivatives with respect to the spatial spin δw (δR = δŵ R) in ``evaluate``
and per unit Cayley vector ψ of the increment R_1 R_0ᵀ in ``midpoint``. Evaluators with
``takes_rotations`` also accept the nodal rotations (n_nodes, 3, 3) of 3-D solvers
(``rotations=`` of ``evaluate`` and ``midpoint_jacobian``).
"""
import numpy as np
import scipy.sparse as sp

from femb.core.errors import ModelError
from femb.model.joints import JOINTS_3D


def line_normals(direction):
    """Unit normals (dim−1, dim) of a line with direction (dim,)."""
    d = np.asarray(direction, dtype=np.float64)
    d = d / np.linalg.norm(d)
    if d.size == 2:
        return np.array([[-d[1], d[0]]])
    helper = np.eye(3)[np.argmin(np.abs(d))]
    n1 = np.cross(d, helper)
    n1 /= np.linalg.norm(n1)
    return np.array([n1, np.cross(d, n1)])


class ConstraintSet:
    """All joint constraints of a model on a CorrelationTable.

    Attributes
    ----------
    m : int
        Number of constraint equations.
    row_joint : list of str
        The joint name of each row.
    """

    def __init__(self, model, table):
        self.table = table
        self.dim = dim = table.dim
        rows = {"distance": [], "on_line": [], "coincide": [], "linear": []}
        names = {k: [] for k in rows}
        for joint in model.joints:
            if joint.kind not in rows:
                continue
            for row in getattr(self, f"_rows_{joint.kind}")(model, joint):
                rows[joint.kind].append(row)
                names[joint.kind].append(joint.name)
        self.row_joint = names["distance"] + names["on_line"] + names["coincide"] + names["linear"]
        self.m = len(self.row_joint)
        d = rows["distance"]
        self._d_va = np.array([r[0] for r in d], dtype=np.int64).reshape(-1, dim)
        self._d_xa = np.array([r[1] for r in d], dtype=np.float64).reshape(-1, dim)
        self._d_vb = np.array([r[2] for r in d], dtype=np.int64).reshape(-1, dim)
        self._d_xb = np.array([r[3] for r in d], dtype=np.float64).reshape(-1, dim)
        self._d_L = np.array([r[4] for r in d], dtype=np.float64)
        ln = rows["on_line"]
        self._l_v = np.array([r[0] for r in ln], dtype=np.int64).reshape(-1, dim)
        self._l_x = np.array([r[1] for r in ln], dtype=np.float64).reshape(-1, dim)
        self._l_p = np.array([r[2] for r in ln], dtype=np.float64).reshape(-1, dim)
        self._l_n = np.array([r[3] for r in ln], dtype=np.float64).reshape(-1, dim)
        c = rows["coincide"]
        self._c_va = np.array([r[0] for r in c], dtype=np.int64)
        self._c_vb = np.array([r[1] for r in c], dtype=np.int64)
        self._c_rhs = np.array([r[2] for r in c], dtype=np.float64)  # X_a − X_b + offset
        self._linear = rows["linear"]
        self.evaluators = []
        body = [j for j in model.joints if j.kind == "body_point"]
        if body:
            self.evaluators.append(BodyPoint2D(model, table, body))
        sliders = [j for j in model.joints if j.kind == "slider"]
        if sliders:
            self.evaluators.append(Slider2D(model, table, sliders))
        spatial = [j for j in model.joints if j.kind in JOINTS_3D]
        if spatial:
            from femb.assembly.joints3d import Joints3D

            self.evaluators.append(Joints3D(model, table, spatial))
        for ev in self.evaluators:
            self.row_joint += list(ev.names)
        self.m = len(self.row_joint)

    # ------------------------------------------------------------------ rows per kind
    def _node(self, model, selector, joint):
        node = model.node(selector)
        vars_ = self.table.node_var[node, : self.dim]
        if np.any(vars_ < 0):
            raise ModelError(f"joint {joint.name!r}: node {node} carries no translations")
        x = np.zeros(self.dim)
        x[: model.mesh.dim] = model.mesh.points[node]
        return vars_, x

    def _rows_distance(self, model, joint):
        vb, xb = self._node(model, joint.node_b, joint)
        if joint.node_a is None:
            va, xa = np.full(self.dim, -1), np.asarray(joint.point, dtype=np.float64)
        else:
            va, xa = self._node(model, joint.node_a, joint)
        length = joint.length if joint.length is not None else float(np.linalg.norm(xb - xa))
        if not length > 0:
            raise ModelError(f"joint {joint.name!r}: the two points coincide; give a length > 0")
        return [(va, xa, vb, xb, length)]

    def _rows_on_line(self, model, joint):
        v, x = self._node(model, joint.node_b, joint)
        return [(v, x, np.asarray(joint.point, dtype=np.float64), n) for n in line_normals(joint.direction)]

    def _rows_coincide(self, model, joint):
        va, xa = self._node(model, joint.node_a, joint)
        vb, xb = self._node(model, joint.node_b, joint)
        off = np.zeros(self.dim) if joint.offset is None else np.asarray(joint.offset, dtype=np.float64)
        return [(va[k], vb[k], xa[k] - xb[k] + off[k]) for k in range(self.dim)]

    def _rows_linear(self, model, joint):
        vars_ = [self.table.var_of(model.node(node), dof) for node, dof, _ in joint.terms]
        coef = [float(c) for _, _, c in joint.terms]
        return [(np.array(vars_, dtype=np.int64), np.array(coef), joint.value)]

    # ------------------------------------------------------------------ evaluation
    @staticmethod
    def _take(u, vars_):
        return np.where(vars_ >= 0, u[np.maximum(vars_, 0)], 0.0)

    def evaluate(self, u, t=0.0, jacobian=True, rotations=None, evaluators=True):
        """Φ (m,) at state ``u`` (n_var,) and time ``t``; with ``jacobian`` also G
        (CSR, m × n_var). ``rotations`` (n_nodes, 3, 3): nodal rotations of a 3-D model
        for the joints between oriented nodes (default: from the rotation vectors in u)."""
        out = self._jacobian_triplets(u, t, rotations, evaluators, jacobian)
        if not jacobian:
            return out
        phi, rows, cols, vals = out
        if rows.size:
            G = self._csr(rows, cols, vals, (self.m, self.table.n_var))
        else:
            G = sp.csr_matrix((self.m, self.table.n_var))
        return phi, G

    def _csr(self, rows, cols, vals, shape):
        """CSR of triplets (duplicates summed), the structure kept per cached pattern."""
        cache = self.__dict__.setdefault("_csr_structure", {})
        entry = cache.get(id(rows))
        if entry is None or entry[0] is not rows or entry[1] is not cols:
            key = rows * shape[1] + cols
            uniq, where = np.unique(key, return_inverse=True)
            indptr = np.concatenate([[0], np.cumsum(np.bincount(uniq // shape[1], minlength=shape[0]))])
            entry = (rows, cols, where.ravel(), (uniq % shape[1]).astype(np.int32), indptr.astype(np.int32))
            cache[id(rows)] = entry
        _, _, where, indices, indptr = entry
        data = np.bincount(where, weights=vals, minlength=indices.size)
        return sp.csr_matrix((data, indices.copy(), indptr.copy()), shape=shape)

    def _jacobian_triplets(self, u, t, rotations, evaluators, jacobian=True):
        """Φ (m,) and the Jacobian's (rows, variable columns, values), fixed variables
        dropped (Φ alone without ``jacobian``). The rows and columns depend on the joints
        only: they are built on the first call and kept (``_patterns``)."""
        phi = np.zeros(self.m)
        key = ("G", bool(evaluators))
        patterns = self.__dict__.setdefault("_patterns", {})
        build = jacobian and key not in patterns
        rows, cols, vals = [], [], []
        r0 = 0
        k = self._d_L.size
        if k:
            xa = self._d_xa + self._take(u, self._d_va)
            xb = self._d_xb + self._take(u, self._d_vb)
            d = xb - xa
            phi[r0:r0 + k] = (np.einsum("ij,ij->i", d, d) - self._d_L**2) / (2.0 * self._d_L)
            g = d / self._d_L[:, None]
            vals += [g.ravel(), -g.ravel()]
            if build:
                ridx = np.repeat(np.arange(r0, r0 + k), self.dim)
                rows += [ridx, ridx]
                cols += [self._d_vb.ravel(), self._d_va.ravel()]
            r0 += k
        k = self._l_n.shape[0]
        if k:
            x = self._l_x + self._take(u, self._l_v)
            phi[r0:r0 + k] = np.einsum("ij,ij->i", self._l_n, x - self._l_p)
            vals.append(self._l_n.ravel())
            if build:
                rows.append(np.repeat(np.arange(r0, r0 + k), self.dim))
                cols.append(self._l_v.ravel())
            r0 += k
        k = self._c_va.size
        if k:
            phi[r0:r0 + k] = u[self._c_vb] - u[self._c_va] - self._c_rhs
            vals += [np.ones(k), -np.ones(k)]
            if build:
                ridx = np.arange(r0, r0 + k)
                rows += [ridx, ridx]
                cols += [self._c_vb, self._c_va]
            r0 += k
        for vars_, coef, value in self._linear:
            phi[r0] = float(coef @ u[vars_]) - (0.0 if value is None else float(value(t)))
            vals.append(coef)
            if build:
                rows.append(np.full(vars_.size, r0))
                cols.append(vars_)
            r0 += 1
        for ev in (self.evaluators if evaluators else ()):
            if rotations is not None and getattr(ev, "takes_rotations", False):
                ph, r, c, v = ev.evaluate(u, t, rotations=rotations)
            else:
                ph, r, c, v = ev.evaluate(u, t)
            phi[r0:r0 + ev.m] = ph
            vals.append(np.asarray(v, dtype=np.float64))
            if build:
                rows.append(np.asarray(r, dtype=np.int64) + r0)
                cols.append(np.asarray(c, dtype=np.int64))
            r0 += ev.m
        if not jacobian:
            return phi
        if not vals:
            return phi, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        vals = np.concatenate(vals)
        if build:
            patterns[key] = self._pattern(rows, cols)
        rows, cols, keep = patterns[key]
        if keep.size != vals.size:  # not the pattern of the first call: build it again
            del patterns[key]
            return self._jacobian_triplets(u, t, rotations, evaluators, jacobian)
        return phi, rows, cols, vals[keep]

    @staticmethod
    def _pattern(rows, cols):
        """(rows, cols, keep) of triplet lists: the entries at free variables (cols ≥ 0)."""
        rows, cols = np.concatenate(rows).astype(np.int64), np.concatenate(cols).astype(np.int64)
        keep = cols >= 0
        return rows[keep], cols[keep], keep

    def hessian_term(self, lam):
        """Σ_i λ_i ∇²Φ_i (CSR, n_var × n_var): the stiffness of the joint forces Gᵀλ.

        ``distance`` rows are curved (∇²Φ = [[I, −I], [−I, I]]/L over the two nodes'
        translations, independent of the state); the rotation-dependent kinds add their
        curvature at the state of their last ``evaluate``; the other kinds are linear.
        ``lam`` holds one multiplier per row (all rows, in row order)."""
        n = self.table.n_var
        rows, cols, vals = self._hessian_triplets(lam)
        if rows is None:
            return sp.csr_matrix((n, n))
        return sp.csr_matrix((vals, (rows, cols)), shape=(n, n))

    def _hessian_triplets(self, lam, evaluators=True):
        """(rows, cols, vals) of Σ λ_i ∇²Φ_i over variables (None's without curved rows)."""
        lam = np.asarray(lam, dtype=np.float64)
        rows, cols, vals = [], [], []
        k = self._d_L.size
        if k:
            w = lam[:k] / self._d_L
            for a, b, s in ((self._d_va, self._d_va, 1.0), (self._d_vb, self._d_vb, 1.0), (self._d_va, self._d_vb, -1.0), (self._d_vb, self._d_va, -1.0)):
                keep = (a >= 0) & (b >= 0)
                rows.append(a[keep])
                cols.append(b[keep])
                vals.append((s * np.repeat(w[:, None], self.dim, axis=1))[keep])
        r0 = self.m - sum(ev.m for ev in self.evaluators)
        for ev in (self.evaluators if evaluators else ()):
            r, c, v = ev.hessian(lam[r0:r0 + ev.m])
            r, c, v = np.asarray(r, dtype=np.int64), np.asarray(c, dtype=np.int64), np.asarray(v, dtype=np.float64)
            keep = (r >= 0) & (c >= 0)
            rows.append(r[keep])
            cols.append(c[keep])
            vals.append(v[keep])
            r0 += ev.m
        if not rows:
            return None, None, None
        return np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)

    def midpoint_stiffness(self, lam):
        """∂(Ḡᵀλ)/∂Δu (CSR, n_var × n_var) of the discrete Jacobian of the last
        ``midpoint_jacobian`` call, multipliers ``lam`` (all rows) fixed: half the curvature
        for the kinds whose Ḡ is the mid-point Jacobian (exact for ``distance``), the
        evaluators' own ``midpoint_stiffness`` when they have one (3-D joints: exact, per
        unit Cayley vector), else half their curvature."""
        n = self.table.n_var
        rows, cols, vals = self._midpoint_stiffness_triplets(lam)
        return sp.csr_matrix((vals, (rows, cols)), shape=(n, n))

    def _midpoint_stiffness_triplets(self, lam):
        lam = np.asarray(lam, dtype=np.float64)
        r0 = self.m - sum(ev.m for ev in self.evaluators)
        rows, cols, vals = [], [], []
        hr, hc, hv = self._hessian_triplets(lam, evaluators=False)
        if hr is not None:
            rows.append(hr)
            cols.append(hc)
            vals.append(0.5 * hv)
        for ev in self.evaluators:
            lev = lam[r0:r0 + ev.m]
            if hasattr(ev, "midpoint_stiffness"):
                r, c, v = ev.midpoint_stiffness(lev)
                w = 1.0
            else:
                r, c, v = ev.hessian(lev)
                w = 0.5
            r, c, v = np.asarray(r, dtype=np.int64), np.asarray(c, dtype=np.int64), np.asarray(v, dtype=np.float64)
            keep = (r >= 0) & (c >= 0)
            rows.append(r[keep])
            cols.append(c[keep])
            vals.append(w * v[keep])
            r0 += ev.m
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        return np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)

    def midpoint_jacobian(self, u0, u1, rotations=None):
        """Discrete Jacobian Ḡ (CSR, m × n_var) with Ḡ·(u1 − u0) = Φ(u1) − Φ(u0) exactly:
        the Jacobian at the mid-point for the (at most quadratic) translational kinds, the
        evaluators' own discrete derivative for the rotation-dependent ones (columns of 2-D
        rotations per unit Δθ, of 3-D rotations per unit Cayley vector of the increment).
        ``rotations``: (R0, R1) nodal rotations (n_nodes, 3, 3) of a 3-D model, or None."""
        rows, cols, vals = self._midpoint_triplets(u0, u1, rotations)
        if not rows.size:
            return sp.csr_matrix((self.m, self.table.n_var))
        return self._csr(rows, cols, vals, (self.m, self.table.n_var))

    def _midpoint_triplets(self, u0, u1, rotations=None):
        _, rows, cols, vals = self._jacobian_triplets(0.5 * (u0 + u1), 0.0, None, False)
        if not self.evaluators:
            return rows, cols, vals
        patterns = self.__dict__.setdefault("_patterns", {})
        build = "Gbar" not in patterns
        r0 = self.m - sum(ev.m for ev in self.evaluators)
        rows, cols, vals = [rows], [cols], [vals]
        for ev in self.evaluators:
            if rotations is not None and getattr(ev, "takes_rotations", False):
                r, c, v = ev.midpoint(u0, u1, rotations=rotations)
            else:
                r, c, v = ev.midpoint(u0, u1)
            vals.append(np.asarray(v, dtype=np.float64))
            if build:
                rows.append(np.asarray(r, dtype=np.int64) + r0)
                cols.append(np.asarray(c, dtype=np.int64))
            r0 += ev.m
        vals = np.concatenate(vals)
        if build:
            patterns["Gbar"] = self._pattern(rows, cols)
        rows, cols, keep = patterns["Gbar"]
        if keep.size != vals.size:  # not the pattern of the first call: build it again
            del patterns["Gbar"]
            return self._midpoint_triplets(u0, u1, rotations)
        return rows, cols, vals[keep]

    # ------------------------------------------------------------------ dense blocks
    # The joints touch the variables of a few nodes only (``variables``); the solvers'
    # Newton loops take the Jacobians and curvatures as dense blocks over those columns
    # (femb.solvers.linalg.nullspace.ColumnBlock), without building sparse matrices.
    @property
    def variables(self):
        """Sorted variables (k,) any joint row involves (the columns of the blocks)."""
        if getattr(self, "_vars", None) is None:
            # the pattern of G holds every variable of the curvature terms, too; the
            # evaluators keep the state of their last evaluation (for ``hessian``), so this
            # probe at u = 0 leaves them as it found them
            saved = [dict(ev.__dict__) for ev in self.evaluators]
            u = np.zeros(self.table.n_var)
            self._set_variables(self._jacobian_triplets(u, 0.0, None, True)[2])
            for ev, state in zip(self.evaluators, saved):
                ev.__dict__.clear()
                ev.__dict__.update(state)
        return self._vars

    def _set_variables(self, cols):
        self._vars = np.unique(np.asarray(cols, dtype=np.int64))
        self._vpos = np.full(self.table.n_var, -1, dtype=np.int64)
        self._vpos[self._vars] = np.arange(self._vars.size)

    def _block(self, n_rows, rows, cols, vals, square=False):
        """Dense (n_rows, k) array (square: (k, k), rows are variables too) of triplets."""
        cols = np.asarray(cols, dtype=np.int64)
        vars_ = self.variables
        pos = self._vpos[cols]
        rpos = self._vpos[rows] if square else rows
        if np.any(pos < 0) or np.any(rpos < 0):  # a variable outside the block: widen it
            self._set_variables(np.concatenate([vars_, cols] + ([rows] if square else [])))
            return self._block(n_rows, rows, cols, vals, square)
        k = self._vars.size
        nr = k if square else n_rows
        return np.bincount(rpos * k + pos, weights=vals, minlength=nr * k).reshape(nr, k)

    def _block_fast(self, n_rows, rows, cols, vals):
        """``_block`` for the cached Jacobian patterns (the flat indices kept per pattern)."""
        cache = self.__dict__.setdefault("_flat", {})
        entry = cache.get(id(rows))
        if entry is None or entry[0] is not rows or entry[1] is not cols or entry[3] != self.variables.size:
            A = self._block(n_rows, rows, cols, vals)
            k = self._vars.size
            cache[id(rows)] = (rows, cols, rows * k + self._vpos[cols], k)
            return A
        k = entry[3]
        return np.bincount(entry[2], weights=vals, minlength=n_rows * k).reshape(n_rows, k)

    def evaluate_block(self, u, t=0.0, rotations=None):
        """(Φ (m,), G (m, k) dense over ``variables``) at state u (as ``evaluate``). The
        block's columns are ``self.variables`` after the call."""
        phi, rows, cols, vals = self._jacobian_triplets(u, t, rotations, True)
        return phi, self._block_fast(self.m, rows, cols, vals)

    def midpoint_jacobian_block(self, u0, u1, rotations=None):
        """Ḡ (m, k) of ``midpoint_jacobian`` dense over ``variables``."""
        return self._block_fast(self.m, *self._midpoint_triplets(u0, u1, rotations))

    def hessian_block(self, lam):
        """Σ λ_i ∇²Φ_i (k, k) of ``hessian_term`` dense over ``variables``."""
        rows, cols, vals = self._hessian_triplets(lam)
        if rows is None:
            k = self.variables.size
            return np.zeros((k, k))
        return self._block(0, rows, cols, vals, square=True)

    def midpoint_stiffness_block(self, lam):
        """∂(Ḡᵀλ)/∂Δu (k, k) of ``midpoint_stiffness`` dense over ``variables``."""
        return self._block(0, *self._midpoint_stiffness_triplets(lam), square=True)

    def describe(self, rows):
        """Joint names of constraint rows (unique, in order)."""
        out = []
        for r in rows:
            name = self.row_joint[int(r)]
            if name not in out:
                out.append(name)
        return out


# ---------------------------------------------------------------------------- 2-D rigid-body points
def _rot2(theta):
    """(k, 2, 2) planar rotation matrices of angles θ (k,)."""
    c, s = np.cos(theta), np.sin(theta)
    R = np.empty(np.shape(theta) + (2, 2))
    R[..., 0, 0], R[..., 0, 1], R[..., 1, 0], R[..., 1, 1] = c, -s, s, c
    return R


class BodyPoint2D:
    """``body_point`` joints of a 2-D model: a point of a rigid body (or of any node with a
    rotation) coincides with node b or with a fixed point.

    Node a (ux, uy, rz) carries the body; the body point is x_a + R(θ_a)·c with c the
    offset in the reference configuration (default X_b − X_a, or ``point`` − X_a), θ_a the
    total rotation of node a. Two rows per joint::

        Φ = x_b − x_a − R(θ_a) c          (or  p − x_a − R(θ_a) c for a ground point p)

    ∂Φ/∂θ_a = −E R c with E = [[0, −1], [1, 0]]; ∇²_θθ Φ = R c. The exact discrete
    derivative between θ0 and θ1 uses R(θ1) − R(θ0) = 2 sin(Δθ/2)·E R(θ̄), θ̄ the mean
    angle: the rotational column is the mid-point one times sinc(Δθ/2).
    """

    def __init__(self, model, table, joints):
        self.names = []
        va, ta, vb, xa, xb, c = [], [], [], [], [], []
        rz = table.dof_names.index("rz") if "rz" in table.dof_names else None
        for j in joints:
            if table.dim != 2 or rz is None:
                raise ModelError(f"joint {j.name!r}: body_point joints are planar (2-D models with rz)")
            na = model.node(j.node_a)
            Xa = np.asarray(model.mesh.points[na][:2], dtype=np.float64)
            if j.node_b is None:
                vb_ = np.array([-1, -1])
                Xb = np.asarray(j.point, dtype=np.float64)
            else:
                nb = model.node(j.node_b)
                vb_ = table.node_var[nb, :2]
                if np.any(vb_ < 0):
                    raise ModelError(f"joint {j.name!r}: node {nb} carries no translations")
                Xb = np.asarray(model.mesh.points[nb][:2], dtype=np.float64)
            if np.any(table.node_var[na, :2] < 0) or table.node_var[na, rz] < 0:
                raise ModelError(f"joint {j.name!r}: node {na} must carry ux, uy and rz (a rigid body or beam node)")
            off = Xb - Xa if j.offset is None else np.asarray(j.offset, dtype=np.float64)
            va.append(table.node_var[na, :2])
            ta.append(table.node_var[na, rz])
            vb.append(vb_)
            xa.append(Xa)
            xb.append(Xb)
            c.append(off)
            self.names += [j.name, j.name]
        self.va = np.array(va, dtype=np.int64).reshape(-1, 2)
        self.ta = np.array(ta, dtype=np.int64)
        self.vb = np.array(vb, dtype=np.int64).reshape(-1, 2)
        self.xa = np.array(xa).reshape(-1, 2)
        self.xb = np.array(xb).reshape(-1, 2)
        self.c = np.array(c).reshape(-1, 2)
        self.m = 2 * self.ta.size
        self._rc = np.zeros_like(self.c)

    @staticmethod
    def _take(u, vars_):
        return np.where(vars_ >= 0, u[np.maximum(vars_, 0)], 0.0)

    def _pattern(self, dtheta_col):
        k = self.ta.size
        if getattr(self, "_rows", None) is None:  # fixed by the joints
            r = np.arange(2 * k).reshape(k, 2)
            self._rows = np.concatenate([r.ravel(), r.ravel(), r.ravel()])
            self._cols = np.concatenate([self.vb.ravel(), self.va.ravel(), np.repeat(self.ta, 2)])
            self._ones = np.concatenate([np.ones(2 * k), -np.ones(2 * k)])
        return self._rows, self._cols, np.concatenate([self._ones, dtheta_col.ravel()])

    def evaluate(self, u, t=0.0):
        th = u[self.ta]
        rc = np.einsum("kij,kj->ki", _rot2(th), self.c)
        self._rc = rc
        xa = self.xa + self._take(u, self.va)
        xb = self.xb + self._take(u, self.vb)
        phi = (xb - xa - rc).ravel()
        dth = np.column_stack([rc[:, 1], -rc[:, 0]])  # −E R c
        return (phi,) + self._pattern(dth)

    def hessian(self, lam):
        lam = np.asarray(lam).reshape(-1, 2)
        w = np.einsum("ki,ki->k", lam, self._rc)
        return self.ta, self.ta, w

    def midpoint(self, u0, u1):
        th0, th1 = u0[self.ta], u1[self.ta]
        half = 0.5 * (th1 - th0)
        sinc = np.where(np.abs(half) > 1e-8, np.sin(half) / np.where(half == 0, 1.0, half), 1.0 - half * half / 6.0)
        rc = np.einsum("kij,kj->ki", _rot2(0.5 * (th0 + th1)), self.c)
        dth = np.column_stack([rc[:, 1], -rc[:, 0]]) * sinc[:, None]
        return self._pattern(dth)


def _tanc(x):
    """tan(x)/x (k,) elementwise, series near 0."""
    x = np.asarray(x, dtype=np.float64)
    small = np.abs(x) < 1e-4
    x2 = x * x
    safe = np.where(small, 1.0, x)
    return np.where(small, 1.0 + x2 / 3.0 + 2.0 * x2 * x2 / 15.0, np.tan(safe) / safe)


class Slider2D:
    """``slider`` joints of a 2-D model: a node slides on a line carried by a body.

    Node a (ux, uy, rz) carries the body; node b slides. With d = x_b − x_a (current
    positions), the body director e = R(θ_a) ν (ν the unit normal of the reference
    direction) and c = o·ν (o the reference offset of the line point from X_a), the slider
    row is::

        Φ = d·e − c        (= (x_b − x_a − R o)·R ν, since R o·R ν = o·ν)

    ∂Φ/∂x_b = e, ∂Φ/∂x_a = −e, ∂Φ/∂θ_a = d·E e (E = [[0, −1], [1, 0]]); the curvature
    ∂²Φ/∂x_b∂θ_a = E e, ∂²Φ/∂x_a∂θ_a = −E e, ∂²Φ/∂θ_a² = −d·e. A joint with
    ``lock_rotation`` adds the row θ_b − θ_a = 0.

    Exact discrete derivative: Φ is bilinear in d and e, so ΔΦ = Δd·ē + d̄·Δe with the
    averages d̄ = ½(d0 + d1), ē = ½(e0 + e1); for a planar rotation Δe = τ E ē exactly, with
    the Cayley parameter τ = 2 tan(Δθ/2) of the step. The rotational column per unit τ is
    d̄·E ē, per unit Δθ (the convention of ``midpoint``) d̄·E ē·tan(Δθ/2)/(Δθ/2). The
    discrete joint forces (ē, −ē, d̄·E ē)·λ have no net force and no net torque about any
    point at the mid-point positions, so the mid-point scheme keeps angular momentum.
    """

    def __init__(self, model, table, joints):
        rz = table.dof_names.index("rz") if "rz" in table.dof_names else None
        va, ta, vb, tb, xa, xb, nu, c, names = [], [], [], [], [], [], [], [], []
        lock_names = []
        for j in joints:
            if table.dim != 2 or rz is None:
                raise ModelError(f"joint {j.name!r}: slider joints are planar (2-D models with rz)")
            na, nb = model.node(j.node_a), model.node(j.node_b)
            if na == nb:
                raise ModelError(f"joint {j.name!r}: the sliding node must be another node than the body node {na}")
            if np.any(table.node_var[na, :2] < 0) or table.node_var[na, rz] < 0:
                raise ModelError(f"joint {j.name!r}: body node {na} must carry ux, uy and rz (a rigid body or beam node)")
            if np.any(table.node_var[nb, :2] < 0):
                raise ModelError(f"joint {j.name!r}: node {nb} carries no translations")
            if j.lock_rotation and table.node_var[nb, rz] < 0:
                raise ModelError(f"joint {j.name!r}: lock_rotation needs the rotation rz at the sliding node {nb} "
                                 f"(a rigid body or beam node)")
            d = np.asarray(j.direction, dtype=np.float64)
            if d.shape != (2,) or not np.linalg.norm(d) > 0:
                raise ModelError(f"joint {j.name!r}: needs a non-zero 2-component direction, got {j.direction!r}")
            Xa = np.asarray(model.mesh.points[na][:2], dtype=np.float64)
            Xb = np.asarray(model.mesh.points[nb][:2], dtype=np.float64)
            p = Xb if j.point is None else np.asarray(j.point, dtype=np.float64)
            n = line_normals(d)[0]
            va.append(table.node_var[na, :2])
            ta.append(table.node_var[na, rz])
            vb.append(table.node_var[nb, :2])
            tb.append(table.node_var[nb, rz] if j.lock_rotation else -1)
            xa.append(Xa)
            xb.append(Xb)
            nu.append(n)
            c.append(float((p - Xa) @ n))
            names.append(j.name)
            if j.lock_rotation:
                lock_names.append(j.name)
        self.va = np.array(va, dtype=np.int64).reshape(-1, 2)
        self.ta = np.array(ta, dtype=np.int64)
        self.vb = np.array(vb, dtype=np.int64).reshape(-1, 2)
        tb = np.array(tb, dtype=np.int64)
        self.locked = np.flatnonzero(tb >= 0)
        self.tb = tb[self.locked]
        self.xa = np.array(xa).reshape(-1, 2)
        self.xb = np.array(xb).reshape(-1, 2)
        self.nu = np.array(nu).reshape(-1, 2)
        self.c = np.array(c, dtype=np.float64)
        self.k = self.ta.size
        self.names = names + lock_names  # slider rows first, then the rotation locks
        self.m = len(self.names)
        self._d = np.zeros((self.k, 2))
        self._e = np.zeros((self.k, 2))

    @staticmethod
    def _take(u, vars_):
        return np.where(vars_ >= 0, u[np.maximum(vars_, 0)], 0.0)

    def _relative(self, u):
        """d = x_b − x_a (k, 2) and e = R(θ_a) ν (k, 2) at state u."""
        d = self.xb + self._take(u, self.vb) - self.xa - self._take(u, self.va)
        e = np.einsum("kij,kj->ki", _rot2(u[self.ta]), self.nu)
        return d, e

    def _pattern(self, e, dtheta):
        k, nl = self.k, self.locked.size
        if getattr(self, "_rows", None) is None:  # fixed by the joints
            r = np.arange(k)
            rl = k + np.arange(nl)
            self._rows = np.concatenate([np.repeat(r, 2), np.repeat(r, 2), r, rl, rl])
            self._cols = np.concatenate([self.vb.ravel(), self.va.ravel(), self.ta, self.tb, self.ta[self.locked]])
            self._locks = np.concatenate([np.ones(nl), -np.ones(nl)])
        return self._rows, self._cols, np.concatenate([e.ravel(), -e.ravel(), dtheta, self._locks])

    def evaluate(self, u, t=0.0):
        d, e = self._relative(u)
        self._d, self._e = d, e
        phi = np.concatenate([np.einsum("ki,ki->k", d, e) - self.c, u[self.tb] - u[self.ta[self.locked]]])
        Ee = np.column_stack([-e[:, 1], e[:, 0]])
        return (phi,) + self._pattern(e, np.einsum("ki,ki->k", d, Ee))

    def hessian(self, lam):
        lam = np.asarray(lam, dtype=np.float64)[: self.k]
        d, e = self._d, self._e
        w = lam[:, None] * np.column_stack([-e[:, 1], e[:, 0]])  # λ E e (k, 2)
        ta2 = np.repeat(self.ta, 2)
        rows = [self.vb.ravel(), ta2, self.va.ravel(), ta2, self.ta]
        cols = [ta2, self.vb.ravel(), ta2, self.va.ravel(), self.ta]
        vals = [w.ravel(), w.ravel(), -w.ravel(), -w.ravel(), -lam * np.einsum("ki,ki->k", d, e)]
        return np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)

    def midpoint(self, u0, u1):
        d0, e0 = self._relative(u0)
        d1, e1 = self._relative(u1)
        dm, em = 0.5 * (d0 + d1), 0.5 * (e0 + e1)
        Eem = np.column_stack([-em[:, 1], em[:, 0]])
        half = 0.5 * (u1[self.ta] - u0[self.ta])
        return self._pattern(em, np.einsum("ki,ki->k", dm, Eem) * _tanc(half))
