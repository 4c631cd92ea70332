"""The compiled 3-D joint kernels (femb.assembly.joints.spatial_kernels) on joints with
attachment offsets from both nodes (the c_b terms) and to ground, for every joint kind, at
random states: the Jacobian is the derivative of Φ in translations and spatial spins, the
discrete Jacobian is exact (Ḡ·(Δx, ψ) = Φ_1 − Φ_0), and the discrete stiffness is the
derivative of Ḡᵀλ in (Δx, ψ); ``evaluate`` and ``evaluate_into``, ``midpoint_stiffness``
and ``midpoint_stiffness_into`` write the same values; the curvature (``hessian``) is the
second derivative of λ·Φ along geodesics."""
import numpy as np
import pytest

from femb.assembly.joints import ConstraintSet
from femb.assembly.joints import spatial_kernels as sk
from femb.core.rotations import cayley_batch, exp_batch
from femb.correlation import build_table
from femb.mesh import Mesh
from femb.model import Model

KINDS = ["spherical", "revolute", "universal", "cylindrical", "prismatic"]


def chain(kind):
    """Three bodies: joint 0 to ground at the origin (offset c from body 0's centre), joint 1
    between bodies 0 and 1 at their common end (offsets from both centres), joint 2 between
    bodies 1 and 2 at a point off the line (offsets from both, skew axis)."""
    centres = np.array([[0.25, 0.0, 0.0], [0.75, 0.05, 0.0], [1.25, 0.0, -0.1]])
    model = Model(Mesh(centres, {}, {f"b{k}": [k] for k in range(3)}), dim=3, name=f"{kind} chain")
    for k in range(3):
        model.add_discrete(f"body {k}", "rigid_body3d", f"b{k}", m=1.0, Jxx=0.01, Jyy=0.02, Jzz=0.03)
    model.joint3d(kind, "b0", None, axis=(0.0, 1.0, 0.3), point=(0.0, 0.0, 0.0), name="j0")
    model.joint3d(kind, "b0", "b1", axis=(0.2, 0.0, 1.0), point=(0.5, 0.0, 0.0), name="j1")
    model.joint3d(kind, "b1", "b2", axis=(0.3, -0.5, 0.8), point=(1.0, 0.1, 0.2), name="j2")
    return model


def setup(kind):
    model = chain(kind)
    table = build_table(model)
    cs = ConstraintSet(model, table)
    (ev,) = cs.evaluators
    assert ev.has_cb.tolist() == [False, True, True]
    rot = np.array([[table.var_of(n, d) for d in ("rx", "ry", "rz")] for n in range(3)])
    tra = np.array([[table.var_of(n, d) for d in ("ux", "uy", "uz")] for n in range(3)])
    return table, cs, ev, rot, tra


def dense(triplets, shape):
    """The matrix of (rows, cols, vals), entries at fixed variables (−1: ground) dropped."""
    rows, cols, vals = triplets
    keep = (rows >= 0) & (cols >= 0)
    out = np.zeros(shape)
    np.add.at(out, (rows[keep], cols[keep]), vals[keep])
    return out


def rotations(rng, n):
    R = np.empty((n, 3, 3))
    exp_batch(rng.normal(size=(n, 3)), R)
    return R


@pytest.mark.parametrize("kind", KINDS)
def test_jacobian_is_the_derivative_in_translations_and_spins(kind):
    table, cs, ev, rot, tra = setup(kind)
    rng = np.random.default_rng(11)
    R, u = rotations(rng, 3), rng.normal(scale=0.2, size=table.n_var)
    G = dense(ev.evaluate(u, rotations=R)[1:], (ev.m, table.n_var))
    h = 1e-6
    for _ in range(3):
        dx, w = rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
        du = np.zeros(table.n_var)
        du[tra], du[rot] = dx, w
        Rp, Rm = np.empty_like(R), np.empty_like(R)
        exp_batch(h * w, Rp)
        exp_batch(-h * w, Rm)
        fd = (ev.evaluate(u + h * du, rotations=Rp @ R)[0] - ev.evaluate(u - h * du, rotations=Rm @ R)[0]) / (2 * h)
        assert np.abs(fd).max() > 0.1
        assert np.abs(G @ du - fd).max() <= 1e-8 * np.abs(fd).max()


@pytest.mark.parametrize("kind", KINDS)
def test_discrete_jacobian_is_exact_and_the_stiffness_is_its_derivative(kind):
    table, cs, ev, rot, tra = setup(kind)
    rng = np.random.default_rng(5)
    R0 = rotations(rng, 3)
    u0, z, lam = rng.normal(scale=0.3, size=table.n_var), rng.normal(scale=0.5, size=table.n_var), rng.normal(size=ev.m)

    def gbar(z):
        return dense(ev.midpoint(u0, u0 + z, rotations=(R0, cayley_batch(z[rot]) @ R0)), (ev.m, table.n_var))

    # Ḡ·(Δx, ψ) = Φ_1 − Φ_0 at rotation increments of about 1 rad
    G = gbar(z)
    dphi = ev.evaluate(u0 + z, rotations=cayley_batch(z[rot]) @ R0)[0] - ev.evaluate(u0, rotations=R0)[0]
    assert np.abs(G @ z - dphi).max() <= 1e-13 * np.abs(dphi).max()
    # ∂(Ḡᵀλ)/∂(Δx, ψ)
    gbar(z)
    K = dense(ev.midpoint_stiffness(lam), (table.n_var, table.n_var))
    e = 1e-6
    fd = np.column_stack([(gbar(z + e * c).T @ lam - gbar(z - e * c).T @ lam) / (2 * e) for c in np.eye(table.n_var)])
    assert np.abs(fd).max() > 0.1
    assert np.abs(K - fd).max() <= 1e-8 * np.abs(fd).max()


@pytest.mark.parametrize("kind", KINDS)
def test_curvature_is_the_second_derivative_along_geodesics(kind):
    """zᵀ H z of ``hessian`` (symmetric part of Σ λ ∇²Φ) = d²/dt² λ·Φ(u + t Δx, exp(t w) R)
    at t = 0 (central second differences, step 1e-4), z = (Δx, w) random."""
    table, cs, ev, rot, tra = setup(kind)
    rng = np.random.default_rng(8)
    R, u, lam = rotations(rng, 3), rng.normal(scale=0.2, size=table.n_var), rng.normal(size=ev.m)
    ev.evaluate(u, rotations=R)
    H = dense(ev.hessian(lam), (table.n_var, table.n_var))
    assert np.array_equal(H, H.T)
    h = 1e-4
    for _ in range(3):
        z = np.zeros(table.n_var)
        z[tra], z[rot] = rng.normal(size=(3, 3)), rng.normal(size=(3, 3))

        def f(t):
            Rt = np.empty_like(R)
            exp_batch(t * z[rot], Rt)
            return lam @ ev.evaluate(u + t * z, rotations=Rt @ R)[0]

        fd = (f(h) - 2.0 * f(0.0) + f(-h)) / h**2
        assert abs(fd) > 0.1
        assert abs(z @ H @ z - fd) <= 1e-6 * abs(fd)


@pytest.mark.parametrize("kind", KINDS)
def test_work_array_entry_points_write_the_same_values(kind):
    """``evaluate_into`` / ``midpoint_stiffness_into`` (the compiled steps' entry points) and
    ``evaluate`` / ``midpoint_stiffness`` (the general path's) agree bit for bit."""
    table, cs, ev, rot, tra = setup(kind)
    rng = np.random.default_rng(2)
    nj = ev.kind.size
    Ra0, Rb0, Ra1, Rb1 = (rotations(rng, nj) for _ in range(4))
    Ra, Rb, Ta, Tb = (np.empty((nj, 3, 3)) for _ in range(4))
    sk.midpoint_frames(Ra0, Rb0, Ra1, Rb1, Ra, Rb, Ta, Tb)
    u, lam = rng.normal(size=table.n_var), rng.normal(size=ev.m)
    arrays = (ev.kind, ev.row0, ev.jac0, ev.Xa, ev.Xb, ev.ta, ev.tb, ev.c, ev.cb, ev.has_cb, ev.frame, u, Ra, Rb)
    out = [(np.zeros(ev.m), np.zeros(ev.jac_rows.size), np.zeros((nj, 3))) for _ in range(2)]
    sk.evaluate(*arrays, *out[0])
    sk.evaluate_into(*arrays, *out[1], np.full((7, 3), np.nan))
    for a, b in zip(*out):
        assert a.tobytes() == b.tobytes()
    n = ev._square["midpoint_stiffness"][3]
    st = (ev.kind, ev.row0, ev.blk0, ev.c, ev.cb, ev.has_cb, ev.frame, Ra, Rb, out[0][2], Ra1, Rb1, Ta, Tb, lam)
    v0, v1 = np.full(n, np.nan), np.full(n, np.nan)
    sk.midpoint_stiffness(*st, v0)
    sk.midpoint_stiffness_into(*st, v1, np.full((4, 3), np.nan), np.full((5, 3, 3), np.nan))
    assert np.all(np.isfinite(v0)) and v0.tobytes() == v1.tobytes()  # every value written
    assert np.abs(v0).max() > 0.1
