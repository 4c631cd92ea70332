"""The energy-momentum mid-point kernels of the co-rotational shells (shell3, shell4;
elements/shell_midpoint.py): exact energy identity, self-equilibrium (momenta), no strain
from a rigid finite rotation of any size, a correction that vanishes smoothly with the
deformation increment, and a Newton matrix that is the exact derivative of the force."""
import numpy as np
import pytest

from femb.elements import shell3, shell4

P = np.array([[2.1e5, 0.3, 0.02, 7.8e-6]])  # E, nu, t, rho (N, mm)
X3 = np.array([[[0.0, 0.0, 0.0], [1.0, 0.1, 0.0], [0.3, 0.9, 0.05]]])
X4 = np.array([[[0.0, 0.0, 0.0], [1.0, 0.1, 0.0], [1.1, 1.0, 0.03], [-0.05, 0.9, 0.0]]])
MODULES = {"shell3": (shell3, X3), "shell4": (shell4, X4)}


def hat(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def cayley(psi):
    H = hat(psi)
    return np.eye(3) + (H + 0.5 * H @ H) / (1.0 + 0.25 * psi @ psi)


def cayley_vector(C):
    v = np.array([C[2, 1] - C[1, 2], C[0, 2] - C[2, 0], C[1, 0] - C[0, 1]])
    return 2.0 * v / (1.0 + np.trace(C))


def start(name, stressed=True):
    """One element at the start of a step: deformed (membrane, bending, drilling) and
    rotated, or (stressed False) in its reference shape."""
    mod, X = MODULES[name]
    n = X.shape[1]
    rng = np.random.default_rng(7)
    C = cayley(np.array([0.3, -0.2, 0.4]))
    u0 = np.zeros((1, 6 * n))
    R0 = np.empty((1, n, 3, 3))
    for a in range(n):
        x = C @ X[0, a] + np.array([0.2, -0.1, 0.3])
        if stressed:
            x = x + 0.01 * rng.standard_normal(3)
        u0[0, 6 * a:6 * a + 3] = x - X[0, a]
        R0[0, a] = (cayley(0.02 * rng.standard_normal(3)) if stressed else np.eye(3)) @ C
    return mod, X, u0, R0


def midpoint(mod, X, u0, R0, z):
    """f̄, K and ΔV of the step with increment z = (Δx_a, ψ_a)_a."""
    n = X.shape[1]
    u1 = u0.copy()
    psi = np.empty((1, n, 3))
    R1 = np.empty_like(R0)
    for a in range(n):
        u1[0, 6 * a:6 * a + 3] += z[6 * a:6 * a + 3]
        psi[0, a] = z[6 * a + 3:6 * a + 6]
        R1[0, a] = cayley(psi[0, a]) @ R0[0, a]
    f, K = np.zeros((1, 6 * n)), np.zeros((1, 6 * n, 6 * n))
    mod.midpoint_force(X, u0, R0, u1, R1, 0.5 * (u0 + u1), R0.copy(), psi, np.zeros((1, n, 3, 3)), P, f, K)
    e0, e1 = np.zeros(1), np.zeros(1)
    mod.strain_energy(X, u0, R0, P, e0)
    mod.strain_energy(X, u1, R1, P, e1)
    return f[0], K[0], e1[0] - e0[0]


def increment(X, u0, s, turn=(0.2, -0.3, 0.5), seed=3):
    """A rigid Cayley turn ψ_r about the centroid plus a deformation increment of size s."""
    n = X.shape[1]
    rng = np.random.default_rng(seed)
    C = cayley(np.array(turn))
    x0 = X[0] + u0[0].reshape(n, 6)[:, :3]
    c = x0.mean(axis=0)
    d = rng.standard_normal((n, 6))
    x1 = (C @ (x0 - c).T).T + c + s * d[:, :3]
    z = np.empty(6 * n)
    for a in range(n):
        z[6 * a:6 * a + 3] = x1[a] - x0[a]
        z[6 * a + 3:6 * a + 6] = cayley_vector(cayley(s * d[a, 3:]) @ C)
    return z


def resultant(f, X, u0, z):
    """(Σ force, Σ (x_m × force + moment)) of a nodal force vector at the mid positions."""
    n = X.shape[1]
    F = f.reshape(n, 6)
    xm = X[0] + u0[0].reshape(n, 6)[:, :3] + 0.5 * z.reshape(n, 6)[:, :3]
    return F[:, :3].sum(axis=0), (np.cross(xm, F[:, :3]) + F[:, 3:]).sum(axis=0)


@pytest.mark.parametrize("name", ["shell3", "shell4"])
@pytest.mark.parametrize("s", [1e-2, 1e-3])
def test_energy_identity_equilibrium_and_exact_newton_matrix(name, s):
    mod, X, u0, R0 = start(name)
    z = increment(X, u0, s)
    f, K, dV = midpoint(mod, X, u0, R0, z)
    assert abs(f @ z - dV) <= 1e-13 * max(abs(dV), np.abs(f * z).sum())
    F, M = resultant(f, X, u0, z)
    assert np.abs(F).max() <= 1e-12 * np.abs(f).max()
    assert np.abs(M).max() <= 1e-12 * np.abs(f).max()

    def cd(h):
        return np.column_stack([(midpoint(mod, X, u0, R0, z + h * e)[0] - midpoint(mod, X, u0, R0, z - h * e)[0]) / (2 * h)
                                for e in np.eye(z.size)])

    scale = np.abs(K).max()
    err1, err2 = np.abs(K - cd(2e-5)).max() / scale, np.abs(K - cd(1e-5)).max() / scale
    assert err2 <= 1e-7
    # the gap is the differences' own truncation (or round-off), not a missing term
    assert err2 <= 0.5 * err1 or err2 <= 1e-9


@pytest.mark.parametrize("name", ["shell3", "shell4"])
@pytest.mark.parametrize("turn", [(0.2, -0.3, 0.5), (1.5, 0.3, -1.0), (0.0, 0.0, 2.0)])
def test_rigid_finite_rotation_is_strain_free(name, turn):
    """A stress-free element turned rigidly in one step (up to 2 atan(1) = 90° and more):
    no force, no energy."""
    mod, X, u0, R0 = start(name, stressed=False)
    z = increment(X, u0, 0.0, turn=turn)
    f, K, dV = midpoint(mod, X, u0, R0, z)
    k = np.abs(K).max()
    assert np.abs(f).max() <= 1e-11 * k
    assert abs(dV) <= 1e-12 * k


@pytest.mark.parametrize("name", ["shell3", "shell4"])
def test_correction_vanishes_smoothly(name):
    """(f̄(s) − f̄(0))/s converges as s → 0 (a large rigid turn in every step): the
    discrete-gradient correction has no jump at a vanishing deformation increment."""
    mod, X, u0, R0 = start(name)
    f0 = midpoint(mod, X, u0, R0, increment(X, u0, 0.0))[0]
    q = [(midpoint(mod, X, u0, R0, increment(X, u0, s))[0] - f0) / s for s in (1e-3, 1e-4, 1e-5)]
    d1, d2 = np.abs(q[0] - q[1]).max(), np.abs(q[1] - q[2]).max()
    assert d2 <= 0.2 * d1
    assert d2 <= 1e-3 * np.abs(q[2]).max()
