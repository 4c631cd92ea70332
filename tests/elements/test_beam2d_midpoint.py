"""The energy-conserving mid-point force of the 2-D beams (beam2d.midpoint_force).

Rotational contract: the rotational unknown of a step is the Cayley parameter
τ = 2 tan(Δθ/2); f's rotational entries are conjugate to τ and K = ∂f/∂(translations of
u1, τ). The reference below is written independently of the kernel: it builds the linear
map (Δx21, τ) -> Δw_i as a matrix from the bilinear invariants and takes the force as the
gradient of the linear form ΔV = N_av Δl + Σ M̄_i ρ_i (w_i,m × Δw_i).
"""
import os
import subprocess
import sys

import numpy as np
import pytest

from femb.elements import get_spec
from tests.elements import beam2d_reference as ref
from tests.elements.test_beam2d import EA, EI, GAS, deformed_states, element, params, rigid_u, rot2

NAMES = ["beam2d", "beam2d_timoshenko"]
Z = np.array([[0.0, -1.0], [1.0, 0.0]])


def midpoint(name, X, u0, u1, p):
    f, K = np.zeros(u0.shape), np.zeros(u0.shape + (6,))
    get_spec(name).kernels.midpoint_force(X, u0, u1, p, f, K)
    return f, K


def energy(name, X, u, p):
    e = np.zeros(len(u))
    get_spec(name).kernels.strain_energy(X, u, p, e)
    return e


def cayley_increment(u0, u1):
    """Step increment z (n, 6): translations u1 − u0, rotations τ = 2 tan(Δθ/2)."""
    z = u1 - u0
    z[:, [2, 5]] = 2.0 * np.tan(0.5 * (u1[:, [2, 5]] - u0[:, [2, 5]]))
    return z


def from_increment(u0, z):
    """u1 from u0 and a step increment z (inverse of ``cayley_increment``)."""
    u1 = u0 + z
    u1[:, [2, 5]] = u0[:, [2, 5]] + 2.0 * np.arctan(0.5 * z[:, [2, 5]])
    return u1


def cross(a, b):
    return a[0] * b[1] - a[1] * b[0]


def reference_force(name, X, u0, u1, p):
    """Slow numpy mid-point force (6,) of one element."""
    EA_, EI_, GAs, _, _ = ref.unpack(p)
    X21 = X[1] - X[0]
    l0 = np.linalg.norm(X21)
    Kb = ref.bending_stiffness(EI_, GAs, l0)
    x0 = X21 + u0[3:5] - u0[0:2]
    x1 = X21 + u1[3:5] - u1[0:2]
    xm = 0.5 * (x0 + x1)
    beta0 = np.arctan2(X21[1], X21[0])
    N_av = EA_ / l0 * 0.5 * (np.linalg.norm(x0) + np.linalg.norm(x1) - 2 * l0)
    l_av = 0.5 * (np.linalg.norm(x0) + np.linalg.norm(x1))
    grads, tb0, tb1, rho = [], [], [], []
    for i, j in enumerate((2, 5)):
        d0 = np.array([np.cos(beta0 + u0[j]), np.sin(beta0 + u0[j])])
        d1 = np.array([np.cos(beta0 + u1[j]), np.sin(beta0 + u1[j])])
        dm = 0.5 * (d0 + d1)
        w0 = np.array([x0 @ d0, cross(x0, d0)])
        w1 = np.array([x1 @ d1, cross(x1, d1)])
        wm = 0.5 * (w0 + w1)
        phi = np.arctan2(cross(w0, w1), w0 @ w1)
        tb0.append(np.arctan2(w0[1], w0[0]))
        tb1.append(tb0[-1] + phi)
        rho.append(phi / cross(w0, w1) if abs(phi) > 1e-12 else 1.0 / (w0 @ w1))
        # Δw = A (Δx_x, Δx_y, τ_i): w(Δx, d_m) + w(x_m, τ Z d_m)
        A = np.zeros((2, 3))
        for k in range(2):
            e = np.eye(2)[k]
            A[:, k] = [e @ dm, cross(e, dm)]
        A[:, 2] = [xm @ (Z @ dm), cross(xm, Z @ dm)]
        grads.append(np.array([-wm[1], wm[0]]) @ A)  # (Z w_m)·Δw as a row over (Δx, τ_i)
    M = 0.5 * Kb @ (np.array(tb0) + np.array(tb1))
    F = N_av / l_av * xm + sum(M[i] * rho[i] * grads[i][:2] for i in range(2))
    return np.array([-F[0], -F[1], M[0] * rho[0] * grads[0][2], F[0], F[1], M[1] * rho[1] * grads[1][2]])


def random_pairs(seed, n=20, scale=0.3):
    """Deformed start states (rotations of several turns, chords near ±π) and random
    end states with rotation increments up to ~1.5 rad."""
    X, u0, _, _ = deformed_states(seed=seed, n=n)
    rng = np.random.default_rng(seed + 100)
    u1 = u0 + rng.normal(scale=scale, size=u0.shape)
    u1[:, [2, 5]] = u0[:, [2, 5]] + rng.uniform(-1.5, 1.5, (n, 2))
    return X, u0, u1


@pytest.mark.parametrize("name", NAMES)
def test_spec_provides_the_midpoint_kernel(name):
    assert get_spec(name).kernels.midpoint_force is not None


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_work_equals_strain_energy_change_exactly(name, seed):
    """f·(Δu, τ) = V(u1) − V(u0) to round-off for large steps (energy identity)."""
    X, u0, u1 = random_pairs(seed)
    p = params(name, len(X))
    f, _ = midpoint(name, X, u0, u1, p)
    work = (f * cayley_increment(u0, u1)).sum(axis=1)
    dV = energy(name, X, u1, p) - energy(name, X, u0, p)
    assert np.abs(dV).max() > 1.0  # the test moves real energy
    scale = np.maximum(np.abs(energy(name, X, u1, p)), np.abs(energy(name, X, u0, p)))
    assert np.all(np.abs(work - dV) <= 1e-12 * scale + 1e-12), np.abs(work - dV).max()


@pytest.mark.parametrize("name", NAMES)
def test_kernel_equals_numpy_reference(name):
    X, u0, u1 = random_pairs(3)
    p = params(name, len(X))
    f, _ = midpoint(name, X, u0, u1, p)
    for e in range(len(X)):
        expect = reference_force(name, X[e], u0[e], u1[e], p[e])
        assert np.allclose(f[e], expect, rtol=1e-10, atol=1e-10 * np.abs(expect).max())


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed, scale", [(4, 0.3), (5, 1e-3)])
def test_tangent_is_the_derivative_with_respect_to_translations_and_tau(name, seed, scale):
    X, u0, u1 = random_pairs(seed, scale=scale)
    if scale < 0.01:
        u1[:, [2, 5]] = u0[:, [2, 5]] + 1e-3  # small steps exercise the series branches
    p = params(name, len(X))
    z = cayley_increment(u0, u1)
    _, K = midpoint(name, X, u0, u1, p)
    h = 1e-6
    Kfd = np.zeros_like(K)
    for j in range(6):
        dz = np.zeros_like(z)
        dz[:, j] = h
        fp, _ = midpoint(name, X, u0, from_increment(u0, z + dz), p)
        fm, _ = midpoint(name, X, u0, from_increment(u0, z - dz), p)
        Kfd[:, :, j] = (fp - fm) / (2 * h)
    for e in range(len(X)):
        err = np.abs(K[e] - Kfd[e]).max() / np.abs(K[e]).max()
        assert err < 1e-6, (e, err)
    if scale > 0.1:  # the mid-point tangent is non-symmetric for finite steps
        assert np.abs(K - K.transpose(0, 2, 1)).max() > 1e-3 * np.abs(K).max()



@pytest.mark.parametrize("name", NAMES)
def test_start_quantities_and_force_alone_equal_the_kernel_bit_for_bit(name):
    """midpoint_force = midpoint_start (the u0 quantities, once per step in the compiled
    steps) + midpoint_force_from: the same f and K bit for bit; without the tangent the
    same f, K left untouched."""
    from femb.elements import beam2d
    X, u0, u1 = random_pairs(seed=11)
    p = params(name, len(X))
    f, K = midpoint(name, X, u0, u1, p)
    S = np.full((len(X), beam2d.MIDPOINT_START_WIDTH), np.nan)
    beam2d.midpoint_start(X, u0, p, S)
    assert np.isfinite(S).all()
    f2, K2 = np.zeros_like(f), np.zeros_like(K)
    beam2d.midpoint_force_from(X, S, u0, u1, f2, K2, True)
    np.testing.assert_array_equal(f2, f)
    np.testing.assert_array_equal(K2, K)
    f3, K3 = np.zeros_like(f), np.full_like(K, 7.0)
    beam2d.midpoint_force_from(X, S, u0, u1, f3, K3, False)
    np.testing.assert_array_equal(f3, f)
    assert (K3 == 7.0).all()

@pytest.mark.parametrize("name", NAMES)
def test_equal_end_states_give_the_static_internal_force(name):
    X, u0, _, _ = deformed_states(seed=6)
    p = params(name, len(X))
    f, _ = midpoint(name, X, u0, u0, p)
    fs = np.zeros_like(u0)
    get_spec(name).kernels.internal_force(X, u0, p, fs)
    assert np.allclose(f, fs, rtol=1e-12, atol=1e-12 * np.abs(fs).max())


@pytest.mark.parametrize("name", NAMES)
def test_forces_conserve_linear_and_angular_momentum(name):
    """Σ f = 0 and Σ x_m × f + Σ f_τ = 0: the internal forces exert no net force and no
    net torque about any point (mid-point positions x_m)."""
    X, u0, u1 = random_pairs(7)
    p = params(name, len(X))
    f, _ = midpoint(name, X, u0, u1, p)
    F = f.reshape(-1, 2, 3)
    xm = X + 0.5 * (u0 + u1).reshape(-1, 2, 3)[:, :, :2]
    scale = np.abs(f).max() * np.abs(xm).max()
    assert np.all(np.asarray(np.abs(f).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(F[:, :, :2].sum(axis=1)).max() < 1e-12 * np.abs(f).max()
    torque = (xm[:, :, 0] * F[:, :, 1] - xm[:, :, 1] * F[:, :, 0]).sum(axis=1) + F[:, :, 2].sum(axis=1)
    assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(torque).max() < 1e-12 * scale


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("psi", [0.3, 1.5, np.radians(170.0), -2.5])
def test_rigid_step_between_stress_free_states_gives_no_force(name, psi):
    """A step that rotates a stress-free element rigidly by ψ (< π) and translates it: zero
    force (no artificial straining, cf. cos(ψ/2) − 1 of the mid-configuration rule)."""
    beta0 = np.array([0.0, 0.5 * np.pi, np.radians(179.0), -2.2])
    X = np.array([element(b) for b in beta0])
    u0 = np.array([rigid_u(x, 0.7 + 2 * np.pi) for x in X])  # stress-free, a turn and more
    u1 = np.array([rigid_u(x, 0.7 + 2 * np.pi + psi, center=(0.1, 0.3), shift=(-0.3, 0.8)) for x in X])
    p = params(name, len(X))
    f, _ = midpoint(name, X, u0, u1, p)
    assert np.abs(f).max() < 1e-9 * EA


@pytest.mark.parametrize("name", NAMES)
def test_force_rotates_with_a_superposed_rigid_rotation(name):
    """Objectivity: rotating both end states by Q rotates the translational forces by Q
    and leaves the moments unchanged."""
    X, u0, u1 = random_pairs(8, n=8)
    p = params(name, len(X))
    f, K = midpoint(name, X, u0, u1, p)
    Q = rot2(1.1)

    def rotated(u):
        out = u.copy()
        for e in range(len(X)):
            x = (X[e] + u[e].reshape(2, 3)[:, :2]) @ Q.T
            out[e, [0, 1]] = x[0] - X[e, 0]
            out[e, [3, 4]] = x[1] - X[e, 1]
        out[:, [2, 5]] += 1.1
        return out

    fr, _ = midpoint(name, X, rotated(u0), rotated(u1), p)
    for e in range(len(X)):
        assert np.allclose(fr[e, 0:2], Q @ f[e, 0:2], atol=1e-9 * np.abs(f).max())
        assert np.allclose(fr[e, 3:5], Q @ f[e, 3:5], atol=1e-9 * np.abs(f).max())
        assert np.allclose(fr[e, [2, 5]], f[e, [2, 5]], atol=1e-9 * np.abs(f).max())


def test_timoshenko_and_euler_bernoulli_differ_only_in_bending_stiffness():
    X, u0, u1 = random_pairs(9, n=6)
    f_eb, _ = midpoint("beam2d", X, u0, u1, params("beam2d", len(X)))
    f_ti, _ = midpoint("beam2d_timoshenko", X, u0, u1, params("beam2d_timoshenko", len(X), GAs=1e12))
    assert np.allclose(f_eb, f_ti, rtol=1e-8, atol=1e-8 * np.abs(f_eb).max())
    f_soft, _ = midpoint("beam2d_timoshenko", X, u0, u1, params("beam2d_timoshenko", len(X), GAs=GAS))
    assert np.abs(f_soft - f_eb).max() > 1e-3 * EI


def test_subprocess_runs_this_file_without_jit():
    """The kernel also runs as plain Python (NUMBA_DISABLE_JIT=1) and passes the same tests."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", __file__, "-k", "not subprocess"],
                          env=env, cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
