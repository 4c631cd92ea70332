"""Joints on node translations (and linear relations of any DOFs), for 2-D and 3-D models.

Kinds and equations (x = X + u the current position of a node, dim = 2 or 3):

==========  ================================================================  ==========
kind        equation                                                           rows
==========  ================================================================  ==========
distance    Φ = (|x_b − x_a|² − L²)/(2L)  (x_a a fixed point when node_a is    1
            None; L the reference distance unless ``length`` is given)
on_line     Φ_k = n_k·(x_b − p), n_k the unit normals of the line (p, dir)     dim − 1
coincide    Φ_k = u_b,k − u_a,k − (X_a − X_b + offset)_k                       dim
linear      Φ = Σ c_i u_i − value(t)                                           1
==========  ================================================================  ==========

Rows are ordered kind by kind in the order of the table above. The distance row has unit
gradient along the link, so its multiplier is the link tension. Every equation is at most
quadratic in u, so the Jacobian at the mid-point state is an exact discrete derivative:
G((u0 + u1)/2)·(u1 − u0) = Φ(u1) − Φ(u0); the only curved rows are the distance rows,
∇²Φ = [[I, −I], [−I, I]]/L over the two nodes' translations, independent of the state.
"""
import numpy as np

from femb.assembly.joints.protocol import JointEvaluator, gather
from femb.core.errors import ModelError

_ORDER = ("distance", "on_line", "coincide", "linear")


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


class ScalarJoints(JointEvaluator):
    """``distance``, ``on_line``, ``coincide`` and ``linear`` joints of a model (module
    docstring); no rotations involved."""

    kinds = frozenset(_ORDER)

    def __init__(self, model, table, joints):
        self.table = table
        self.dim = dim = table.dim
        rows = {k: [] for k in _ORDER}
        names = {k: [] for k in _ORDER}
        for joint in joints:
            for row in getattr(self, f"_rows_{joint.kind}")(model, joint):
                rows[joint.kind].append(row)
                names[joint.kind].append(joint.name)
        self.names = [name for k in _ORDER for name in names[k]]
        self.m = len(self.names)
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
        self._rows, self._cols = self._jacobian_pattern()

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

    def _jacobian_pattern(self):
        """(rows, cols) of the Jacobian triplets, in the order ``evaluate`` gives the values."""
        rows, cols = [], []
        r0 = 0
        k = self._d_L.size
        if k:
            ridx = np.repeat(np.arange(r0, r0 + k), self.dim)
            rows += [ridx, ridx]
            cols += [self._d_vb.ravel(), self._d_va.ravel()]
            r0 += k
        k = self._l_n.shape[0]
        if k:
            rows.append(np.repeat(np.arange(r0, r0 + k), self.dim))
            cols.append(self._l_v.ravel())
            r0 += k
        k = self._c_va.size
        if k:
            ridx = np.arange(r0, r0 + k)
            rows += [ridx, ridx]
            cols += [self._c_vb, self._c_va]
            r0 += k
        for vars_, _, _ in self._linear:
            rows.append(np.full(vars_.size, r0))
            cols.append(vars_)
            r0 += 1
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return np.concatenate(rows).astype(np.int64), np.concatenate(cols).astype(np.int64)

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, u, t=0.0, rotations=None):
        phi = np.zeros(self.m)
        vals = []
        r0 = 0
        k = self._d_L.size
        if k:
            d = (self._d_xb + gather(u, self._d_vb)) - (self._d_xa + gather(u, self._d_va))
            phi[r0:r0 + k] = (np.einsum("ij,ij->i", d, d) - self._d_L**2) / (2.0 * self._d_L)
            g = d / self._d_L[:, None]
            vals += [g.ravel(), -g.ravel()]
            r0 += k
        k = self._l_n.shape[0]
        if k:
            x = self._l_x + gather(u, self._l_v)
            phi[r0:r0 + k] = np.einsum("ij,ij->i", self._l_n, x - self._l_p)
            vals.append(self._l_n.ravel())
            r0 += k
        k = self._c_va.size
        if k:
            phi[r0:r0 + k] = u[self._c_vb] - u[self._c_va] - self._c_rhs
            vals += [np.ones(k), -np.ones(k)]
            r0 += k
        for vars_, coef, value in self._linear:
            phi[r0] = float(coef @ u[vars_]) - (0.0 if value is None else float(value(t)))
            vals.append(coef)
            r0 += 1
        vals = np.concatenate(vals) if vals else np.zeros(0)
        return phi, self._rows, self._cols, vals

    def hessian(self, lam):
        """Σ λ_i ∇²Φ_i of the distance rows (the other kinds are linear)."""
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
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        return np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)

    def midpoint(self, u0, u1, rotations=None):
        """The Jacobian at the mid-point state (exact: the equations are at most quadratic)."""
        return self.evaluate(0.5 * (u0 + u1), 0.0)[1:]
