"""The compiled SO(3) helpers of femb.core.rotations against scipy, differences and
extended-precision values of their coefficient functions."""
import os
import subprocess
import sys

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from femb.core import rotations as rot

ANGLES = [0.0, 1e-14, 1e-9, 1e-5, 1e-3, 0.3, 0.5 - 1e-9, 0.5, 0.5 + 1e-9, 1.0, 2.0, 3.0, np.pi - 1e-6, np.pi - 1e-10]


def axes(n, seed=0):
    v = np.random.default_rng(seed).normal(size=(n, 3))
    return v / np.linalg.norm(v, axis=1)[:, None]


def expm(theta):
    R = np.empty((3, 3))
    rot.exp_so3(np.asarray(theta, dtype=float), R)
    return R


def logm(R):
    out = np.empty(3)
    rot.log_so3(np.ascontiguousarray(R), out)
    return out


def jacobian(theta, inverse=False):
    out = np.empty((3, 3))
    (rot.left_jacobian_inverse if inverse else rot.left_jacobian)(np.asarray(theta, dtype=float), out)
    return out


def hat(v):
    out = np.empty((3, 3))
    rot.hat(np.asarray(v, dtype=float), out)
    return out


def vee(S):
    return np.array([S[2, 1], S[0, 2], S[1, 0]])


@pytest.mark.parametrize("angle", ANGLES + [np.pi, 4.0, 7.5, 6 * np.pi + 0.3])
def test_exp_equals_scipy(angle):
    for ax in axes(8):
        assert np.abs(expm(angle * ax) - Rotation.from_rotvec(angle * ax).as_matrix()).max() < 2e-15 * max(1.0, angle)


@pytest.mark.parametrize("angle", ANGLES)
def test_log_inverts_exp_to_relative_round_off(angle):
    for ax in axes(20, seed=1):
        theta = angle * ax
        err = np.linalg.norm(logm(expm(theta)) - theta)
        assert err <= 4e-16 * max(angle, 1e-300) + (1e-15 if angle > 1e-3 else 0.0), (angle, err)


def test_log_at_pi_and_of_many_turns():
    for ax in axes(10, seed=2):
        th = logm(expm(np.pi * ax))
        assert np.linalg.norm(th) == pytest.approx(np.pi, abs=1e-12)
        assert min(np.abs(th - np.pi * ax).max(), np.abs(th + np.pi * ax).max()) < 1e-12
        # three turns plus 0.4 rad, and −2 turns − 0.4 rad: the principal logarithm
        assert np.allclose(logm(expm((6 * np.pi + 0.4) * ax)), 0.4 * ax, atol=1e-13)
        assert np.allclose(logm(expm((-4 * np.pi - 0.4) * ax)), -0.4 * ax, atol=1e-13)
        # beyond π the logarithm wraps to the other side
        assert np.allclose(logm(expm((np.pi + 0.2) * ax)), -(np.pi - 0.2) * ax, atol=1e-13)


def test_log_of_the_quaternion_branches_agrees_with_scipy():
    """Random rotations exercise all four branches of Shepperd's method."""
    Rs = Rotation.random(400, random_state=3)
    for R, ref in zip(Rs.as_matrix(), Rs.as_rotvec()):
        assert np.allclose(logm(R), ref, rtol=0, atol=5e-15)


def test_hat_is_the_cross_product():
    a, b = np.random.default_rng(4).normal(size=(2, 3))
    assert np.allclose(hat(a) @ b, np.cross(a, b), rtol=0, atol=1e-15)


@pytest.mark.parametrize("angle", [0.0, 1e-7, 0.2, 0.5, 1.3, 2.9, 3.1])
def test_left_jacobian_maps_increments_to_spatial_spins(angle):
    """exp((θ + ε δ)^) exp(−θ̂) = exp(ε (J δ)^) + O(ε²), and J⁻¹ is its inverse."""
    h = 1e-6
    for ax, d in zip(axes(5, seed=5), axes(5, seed=6)):
        theta = angle * ax
        S = (expm(theta + h * d) - expm(theta - h * d)) / (2 * h) @ expm(theta).T
        assert np.allclose(vee(S), jacobian(theta) @ d, rtol=0, atol=1e-9)
        assert np.allclose(jacobian(theta, inverse=True) @ jacobian(theta), np.eye(3), rtol=0, atol=1e-14)


@pytest.mark.parametrize("angle", [0.0, 1e-6, 0.2, 0.5 - 1e-12, 0.5 + 1e-12, 1.5, 3.0])
def test_derivative_of_the_inverse_jacobian_transpose(angle):
    h = 1e-6
    m = np.array([0.3, -1.2, 0.7])
    for ax in axes(4, seed=7):
        theta = angle * ax
        L = np.empty((3, 3))
        rot.left_jacobian_inverse_T_derivative(theta, m, L)
        fd = np.column_stack([(jacobian(theta + h * e, True).T @ m - jacobian(theta - h * e, True).T @ m) / (2 * h)
                              for e in np.eye(3)])
        assert np.allclose(L, fd, rtol=0, atol=2e-9)


def _coefficients_longdouble(t):
    """(b, c, d, e) in extended precision (x87 long double where available)."""
    t = np.longdouble(t)
    x = t / 2
    b = (1 - np.cos(t)) / t**2
    c = (t - np.sin(t)) / t**3
    xcot = x * np.cos(x) / np.sin(x)
    d = (1 - xcot) / t**2
    dd = (-np.cos(x) / np.sin(x) + x / np.sin(x) ** 2) / (2 * t**2) - 2 * (1 - xcot) / t**3
    return b, c, d, dd / t


@pytest.mark.skipif(np.finfo(np.longdouble).eps > 1e-18, reason="needs extended precision long double")
@pytest.mark.parametrize("t", [0.3, 0.45, 0.5, 0.55, 1.0, 2.0, 3.0])
def test_coefficients_match_extended_precision(t):
    b, c, d, e = (float(v) for v in _coefficients_longdouble(t))
    assert rot.coef_b(t) == pytest.approx(b, rel=1e-14)
    assert rot.coef_c(t) == pytest.approx(c, rel=1e-14)
    assert rot.coef_d(t) == pytest.approx(d, rel=1e-14)
    assert rot.coef_e(t) == pytest.approx(e, rel=2e-12)


def test_coefficients_are_continuous_at_the_series_switch():
    for f in (rot.coef_c, rot.coef_d, rot.coef_e):
        below, above = f(rot._SERIES_T * (1 - 1e-12)), f(rot._SERIES_T * (1 + 1e-12))
        assert below == pytest.approx(above, rel=1e-12)
    assert rot.coef_d(0.0) == 1 / 12 and rot.coef_e(0.0) == 1 / 360 and rot.coef_c(0.0) == 1 / 6


def test_batch_functions_and_the_spin_update():
    rng = np.random.default_rng(8)
    theta = rng.normal(size=(6, 3))
    R = np.empty((6, 3, 3))
    rot.exp_batch(theta, R)
    assert np.allclose(R, Rotation.from_rotvec(theta).as_matrix(), rtol=0, atol=1e-15)
    back = np.empty((6, 3))
    rot.log_batch(R, back)
    assert np.allclose(back, Rotation.from_matrix(R).as_rotvec(), rtol=0, atol=1e-14)
    w = rng.normal(size=(6, 3))
    expected = Rotation.from_rotvec(w).as_matrix() @ R
    rot.spin_update(R, w)
    assert np.allclose(R, expected, rtol=0, atol=1e-15)


def cay(psi):
    out = np.empty((3, 3))
    rot.cayley(np.asarray(psi, dtype=float), out)
    return out


def cayley_vectors(n, seed):
    """Cayley vectors of rotations by 0 … 3 rad (|ψ| = 2 tan(φ/2) up to ≈ 28)."""
    angles = np.linspace(0.0, 3.0, n)
    return 2.0 * np.tan(0.5 * angles)[:, None] * axes(n, seed)


def test_cayley_is_the_rotation_by_2_atan_half_psi_about_psi():
    for psi in cayley_vectors(12, seed=9):
        n = np.linalg.norm(psi)
        C = cay(psi)
        assert np.allclose(C.T @ C, np.eye(3), rtol=0, atol=4e-15)
        assert np.linalg.det(C) == pytest.approx(1.0, abs=1e-14)
        theta = 2.0 * np.arctan(0.5 * n) * (psi / n if n > 0 else psi)
        assert np.allclose(C, expm(theta), rtol=0, atol=2e-15)
        # (I − ψ̂/2)⁻¹(I + ψ̂/2), the defining form
        assert np.allclose(C, np.linalg.solve(np.eye(3) - 0.5 * hat(psi), np.eye(3) + 0.5 * hat(psi)), rtol=0, atol=2e-15)
    assert np.array_equal(cay(np.zeros(3)), np.eye(3))


def test_cayley_vector_inverts_cayley_and_the_half_rotation_squares_to_it():
    psi = cayley_vectors(12, seed=10)
    C = rot.cayley_batch(psi)
    assert np.allclose(rot.cayley_vector_batch(C), psi, rtol=1e-13, atol=1e-15)
    half, _ = rot.cayley_half_batch(psi)
    H = rot.cayley_batch(half)
    assert np.allclose(H @ H, C, rtol=0, atol=4e-15)
    # the half rotation turns by half the angle
    assert np.allclose(2.0 * np.arctan(0.5 * np.linalg.norm(half, axis=1)),
                       np.arctan(0.5 * np.linalg.norm(psi, axis=1)), rtol=0, atol=1e-15)


def test_cayley_spin_jacobian_and_half_derivative_match_finite_differences():
    """δC Cᵀ = (T δψ)^ and dψ_m/dψ against central differences."""
    h = 1e-6
    for psi in cayley_vectors(6, seed=11)[1:]:
        T = np.empty((3, 3))
        rot.cayley_spin_jacobian(psi, T)
        C = cay(psi)
        _, D = rot.cayley_half_batch(psi)
        for k, d in enumerate(np.eye(3)):
            S = (cay(psi + h * d) - cay(psi - h * d)) / (2 * h) @ C.T
            assert np.allclose(vee(S), T[:, k], rtol=0, atol=1e-9)
            assert np.allclose(S, -S.T, rtol=0, atol=1e-9)
            fd = (rot.cayley_half_batch(psi + h * d)[0] - rot.cayley_half_batch(psi - h * d)[0]) / (2 * h)
            assert np.allclose(D[:, k], fd, rtol=0, atol=1e-9)


def test_batch_maps_equal_the_compiled_per_rotation_functions():
    rng = np.random.default_rng(12)
    v = rng.normal(size=(5, 3))
    w = rng.normal(size=(5, 3))
    psi = cayley_vectors(5, seed=13)
    assert np.array_equal(rot.hat_batch(v), np.stack([hat(x) for x in v]))
    assert np.array_equal(rot.hat_batch(v[0]), hat(v[0]))
    assert np.allclose(rot.cross_batch(v, w), np.cross(v, w), rtol=0, atol=1e-15)
    assert np.allclose(rot.hat_batch(v) @ w[..., None], rot.cross_batch(v, w)[..., None], rtol=0, atol=1e-15)
    added = np.zeros(3)
    rot.add_cross(v[0], w[0], -2.0, added)
    assert np.allclose(added, -2.0 * np.cross(v[0], w[0]), rtol=0, atol=1e-15)
    assert np.allclose(rot.cayley_batch(psi), np.stack([cay(p) for p in psi]), rtol=0, atol=2e-15)
    T = np.empty((3, 3))
    for p, Tb in zip(psi, rot.cayley_spin_jacobian_batch(psi)):
        rot.cayley_spin_jacobian(p, T)
        assert np.allclose(Tb, T, rtol=0, atol=1e-16)
    # leading shapes: a single vector and a (2, 3) stack
    assert rot.cayley_batch(psi[0]).shape == (3, 3)
    assert rot.cayley_batch(psi[:4].reshape(2, 2, 3)).shape == (2, 2, 3, 3)


def test_compiled_cayley_step_equals_its_numpy_expressions():
    """cayley_step_batch (the Cayley step of the 3-D mid-point dynamics: C, R1 = C R0, the
    half rotation and its spin map, the momentum update π1 = C ((2/h) J ψ − π0) and its
    derivative) equals the same quantities from the numpy batch maps; cayley_vector and
    cayley_turn invert cay and measure the angle between two increments."""
    k, h = 4, 0.05
    psi = cayley_vectors(k, seed=21)
    rng = np.random.default_rng(22)
    R0 = rot.cayley_batch(rng.normal(size=(k, 3)))
    B = rng.normal(size=(k, 3, 3))
    J = B @ B.transpose(0, 2, 1) + np.eye(3)  # symmetric positive definite spatial inertias
    pi0 = rng.normal(size=(k, 3))
    C, R1, Rm, D, dr = (np.empty((k, 3, 3)) for _ in range(5))
    pi1 = np.empty((k, 3))
    rot.cayley_step_batch(psi, R0, J, pi0, h, C, R1, Rm, D, pi1, dr)
    Cn = rot.cayley_batch(psi)
    half, dhalf = rot.cayley_half_batch(psi)
    a = (2.0 / h) * np.einsum("kij,kj->ki", J, psi) - pi0
    Ainv = np.linalg.inv(np.eye(3) - 0.5 * rot.hat_batch(psi))
    close = dict(rtol=0, atol=1e-12)
    assert np.allclose(C, Cn, **close) and np.allclose(R1, Cn @ R0, **close)
    assert np.allclose(Rm, rot.cayley_batch(half) @ R0, **close)
    assert np.allclose(D, rot.cayley_spin_jacobian_batch(half) @ dhalf, **close)
    pi_ref = np.einsum("kij,kj->ki", Cn, a)
    assert np.allclose(pi1, pi_ref, rtol=0, atol=1e-13 * np.abs(pi_ref).max())
    dr_ref = ((2.0 / h) * Cn @ J - 0.5 * Ainv @ rot.hat_batch(a + np.einsum("kij,kj->ki", Cn, a))) / h
    assert np.allclose(dr, dr_ref, rtol=1e-12, atol=1e-12 * np.abs(dr_ref).max())
    v = np.empty(3)
    for p, c in zip(psi, C):
        rot.cayley_vector(c, v)
        assert np.allclose(v, p, rtol=0, atol=1e-12)
    other = psi[::-1].copy()
    angles = [np.linalg.norm(rot.cayley_vector_batch(rot.cayley_batch(b) @ rot.cayley_batch(a).T)) for a, b in zip(psi, other)]
    assert rot.cayley_turn(psi, other) == pytest.approx(max(2.0 * np.arctan(0.5 * np.asarray(angles))), rel=1e-12)
    assert rot.cayley_turn(psi, psi) <= 1e-15


def test_subprocess_runs_this_file_without_jit():
    """The helpers also run as plain Python (NUMBA_DISABLE_JIT=1) and pass the same tests."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", __file__, "-k", "not subprocess"],
                          env=env, cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
