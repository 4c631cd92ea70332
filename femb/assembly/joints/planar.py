"""Planar joints on bodies: kinds whose equations involve the rotation θ of a 2-D node
(ux, uy, rz) — a rigid body (rigid_body2d) or a beam2d node.

``body_point`` (BodyPoint2D): a point of a body coincides with a node or a fixed point;
``slider`` (Slider2D): a node slides on a line carried by a body. Planar rotations are
additive angles in u, so these kinds ignore the ``rotations`` of 3-D solvers. Their
discrete Jacobians (``midpoint``) are exact between any two angles (sinc and tan(Δθ/2)
corrections of the mid-point Jacobian, see the classes).
"""
import numpy as np

from femb.assembly.joints.protocol import JointEvaluator, gather
from femb.assembly.joints.scalar import line_normals
from femb.core.errors import ModelError


def _rot2(theta):
    """(k, 2, 2) planar rotation matrices of angles θ (k,)."""
    c, s = np.cos(theta), np.sin(theta)
    R = np.empty(np.shape(theta) + (2, 2))
    R[..., 0, 0], R[..., 0, 1], R[..., 1, 0], R[..., 1, 1] = c, -s, s, c
    return R


class BodyPoint2D(JointEvaluator):
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

    kinds = frozenset({"body_point"})

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

    def _pattern(self, dtheta_col):
        k = self.ta.size
        if getattr(self, "_rows", None) is None:  # fixed by the joints
            r = np.arange(2 * k).reshape(k, 2)
            self._rows = np.concatenate([r.ravel(), r.ravel(), r.ravel()])
            self._cols = np.concatenate([self.vb.ravel(), self.va.ravel(), np.repeat(self.ta, 2)])
            self._ones = np.concatenate([np.ones(2 * k), -np.ones(2 * k)])
        return self._rows, self._cols, np.concatenate([self._ones, dtheta_col.ravel()])

    def evaluate(self, u, t=0.0, rotations=None):
        th = u[self.ta]
        rc = np.einsum("kij,kj->ki", _rot2(th), self.c)
        self._rc = rc
        xa = self.xa + gather(u, self.va)
        xb = self.xb + gather(u, self.vb)
        phi = (xb - xa - rc).ravel()
        dth = np.column_stack([rc[:, 1], -rc[:, 0]])  # −E R c
        return (phi,) + self._pattern(dth)

    def hessian(self, lam):
        lam = np.asarray(lam).reshape(-1, 2)
        w = np.einsum("ki,ki->k", lam, self._rc)
        return self.ta, self.ta, w

    def midpoint(self, u0, u1, rotations=None):
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


class Slider2D(JointEvaluator):
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

    kinds = frozenset({"slider"})

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

    def _relative(self, u):
        """d = x_b − x_a (k, 2) and e = R(θ_a) ν (k, 2) at state u."""
        d = self.xb + gather(u, self.vb) - self.xa - gather(u, self.va)
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

    def evaluate(self, u, t=0.0, rotations=None):
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

    def midpoint(self, u0, u1, rotations=None):
        d0, e0 = self._relative(u0)
        d1, e1 = self._relative(u1)
        dm, em = 0.5 * (d0 + d1), 0.5 * (e0 + e1)
        Eem = np.column_stack([-em[:, 1], em[:, 0]])
        half = 0.5 * (u1[self.ta] - u0[self.ta])
        return self._pattern(em, np.einsum("ki,ki->k", dm, Eem) * _tanc(half))
