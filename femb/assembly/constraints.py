"""Evaluation of the joint constraints Φ(u, t) = 0 of a model and their Jacobians.

Every joint kind is evaluated for all joints of that kind at once (numpy; the joints of a
mechanism are few). Rows are ordered kind by kind (distance, on_line, coincide, linear).
Jacobians are returned over *variables* (m, n_var) in CSR form; the solvers take the
columns of the free equations. Because every kind is linear or quadratic in the
positions, the Jacobian at the mid-point configuration is an exact discrete derivative:
G((u0 + u1)/2)·(u1 − u0) = Φ(u1) − Φ(u0).
"""
import numpy as np
import scipy.sparse as sp

from femb.core.errors import ModelError


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

    def evaluate(self, u, t=0.0, jacobian=True):
        """Φ (m,) at state ``u`` (n_var,) and time ``t``; with ``jacobian`` also G
        (CSR, m × n_var)."""
        phi = np.zeros(self.m)
        rows, cols, vals = [], [], []
        r0 = 0
        k = self._d_L.size
        if k:
            xa = self._d_xa + self._take(u, self._d_va)
            xb = self._d_xb + self._take(u, self._d_vb)
            d = xb - xa
            phi[r0:r0 + k] = (np.einsum("ij,ij->i", d, d) - self._d_L**2) / (2.0 * self._d_L)
            g = d / self._d_L[:, None]
            ridx = np.repeat(np.arange(r0, r0 + k), self.dim)
            rows += [ridx, ridx]
            cols += [self._d_vb.ravel(), self._d_va.ravel()]
            vals += [g.ravel(), -g.ravel()]
            r0 += k
        k = self._l_n.shape[0]
        if k:
            x = self._l_x + self._take(u, self._l_v)
            phi[r0:r0 + k] = np.einsum("ij,ij->i", self._l_n, x - self._l_p)
            rows.append(np.repeat(np.arange(r0, r0 + k), self.dim))
            cols.append(self._l_v.ravel())
            vals.append(self._l_n.ravel())
            r0 += k
        k = self._c_va.size
        if k:
            phi[r0:r0 + k] = u[self._c_vb] - u[self._c_va] - self._c_rhs
            ridx = np.arange(r0, r0 + k)
            rows += [ridx, ridx]
            cols += [self._c_vb, self._c_va]
            vals += [np.ones(k), -np.ones(k)]
            r0 += k
        for vars_, coef, value in self._linear:
            phi[r0] = float(coef @ u[vars_]) - (0.0 if value is None else float(value(t)))
            rows.append(np.full(vars_.size, r0))
            cols.append(vars_)
            vals.append(coef)
            r0 += 1
        if not jacobian:
            return phi
        if rows:
            rows, cols, vals = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
            keep = cols >= 0
            G = sp.csr_matrix((vals[keep], (rows[keep], cols[keep])), shape=(self.m, self.table.n_var))
        else:
            G = sp.csr_matrix((self.m, self.table.n_var))
        return phi, G

    def hessian_term(self, lam):
        """Σ_i λ_i ∇²Φ_i (CSR, n_var × n_var): the stiffness of the joint forces Gᵀλ.

        Only ``distance`` rows are curved (∇²Φ = [[I, −I], [−I, I]]/L over the two nodes'
        translations, independent of the state); the other kinds are linear. ``lam`` holds
        one multiplier per row (all rows, in row order)."""
        n = self.table.n_var
        k = self._d_L.size
        if k == 0:
            return sp.csr_matrix((n, n))
        w = np.asarray(lam, dtype=np.float64)[:k] / self._d_L
        rows, cols, vals = [], [], []
        for a, b, s in ((self._d_va, self._d_va, 1.0), (self._d_vb, self._d_vb, 1.0), (self._d_va, self._d_vb, -1.0), (self._d_vb, self._d_va, -1.0)):
            keep = (a >= 0) & (b >= 0)
            rows.append(a[keep])
            cols.append(b[keep])
            vals.append((s * np.repeat(w[:, None], self.dim, axis=1))[keep])
        return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))

    def midpoint_jacobian(self, u0, u1):
        """Discrete Jacobian Ḡ (CSR, m × n_var) with Ḡ·(u1 − u0) = Φ(u1) − Φ(u0) exactly
        (the Jacobian at the mid-point: all kinds are at most quadratic)."""
        return self.evaluate(0.5 * (u0 + u1), 0.0)[1]

    def describe(self, rows):
        """Joint names of constraint rows (unique, in order)."""
        out = []
        for r in rows:
            name = self.row_joint[int(r)]
            if name not in out:
                out.append(name)
        return out
