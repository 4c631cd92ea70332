"""Rotational springs and dampers between oriented nodes (rotational_spring3d and its
ground version): kernels against finite differences of multiplicative rotations, the
closed form M = kθ at large angles, the energy-momentum discrete gradient (exact energy,
balanced moments, exact Newton matrix), the damper kernels, and statics through the
framework (rigid body and beam tip on a rotational spring)."""
import numpy as np
import pytest
from scipy.integrate import quad
from scipy.spatial.transform import Rotation

from femb.core.errors import InputError
from femb.core.rotations import cayley_batch, left_jacobian
from femb.elements import get_spec
from femb.mesh import Mesh, line_mesh
from femb.model import Material, Model, Section
from femb.solvers import solve_static

SPEC = get_spec("rotational_spring3d")
GROUND = get_spec("rotational_spring3d_ground")
KER = SPEC.kernels


def expm(theta):
    return Rotation.from_rotvec(theta).as_matrix()


def row(**values):
    """Property row (1, 15) from Model.add_discrete-style keywords."""
    v = {**SPEC.defaults, **SPEC.prepare_values(values, "test")}
    return SPEC.property_row(None, None, v)[None, :]


ANISO = dict(kx=2.0, ky=3.0, kz=5.0, theta0=(0.1, -0.2, 0.3), axis=(1.0, 2.0, 0.5), second=(0.0, 0.0, 1.0), c=0.7)


def arrays(n):
    return np.zeros((1, n, 3)), np.zeros((1, 6 * n))


def energy(R, p):
    n = R.shape[1]
    X, u = arrays(n)
    e = np.zeros(1)
    KER.strain_energy(X, u, R, p, e)
    return e[0]


def force(R, p):
    n = R.shape[1]
    X, u = arrays(n)
    f = np.zeros((1, 6 * n))
    KER.internal_force(X, u, R, p, f)
    return f[0]


def spun(R, a, w):
    Rp = R.copy()
    Rp[0, a] = expm(w) @ R[0, a]
    return Rp


def random_rotations(rng, n, scale):
    return np.stack([expm(scale * rng.normal(size=3)) for _ in range(n)])[None]


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("scale", [1e-3, 0.6, 1.2])
def test_force_is_the_spin_gradient_of_the_energy_and_the_tangent_its_derivative(n, scale):
    """Central differences (step 1e-6) of V and of f along R_a ← exp(ε ê_k) R_a: force
    to 1e-8 and tangent to 1e-7 of their size, near the identity (series branch of the
    log map) and at large relative rotations; the two-node moments are balanced."""
    rng = np.random.default_rng(7 + n)
    p = row(**ANISO)
    R = random_rotations(rng, n, scale)
    X, u = arrays(n)
    f = np.zeros((1, 6 * n))
    K = np.zeros((1, 6 * n, 6 * n))
    KER.tangent(X, u, R, p, f, K)
    h = 1e-6
    f_fd = np.zeros(6 * n)
    K_fd = np.zeros((6 * n, 6 * n))
    for a in range(n):
        for k in range(3):
            w = h * np.eye(3)[k]
            f_fd[6 * a + 3 + k] = (energy(spun(R, a, w), p) - energy(spun(R, a, -w), p)) / (2 * h)
            K_fd[:, 6 * a + 3 + k] = (force(spun(R, a, w), p) - force(spun(R, a, -w), p)) / (2 * h)
    fs = np.abs(f).max()
    assert np.abs(f[0] - f_fd).max() <= 1e-8 * max(fs, 1.0)
    assert np.allclose(f[0], force(R, p), rtol=0, atol=1e-15 * fs)
    assert np.all(np.asarray(np.abs(K).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(K[0] - K_fd).max() <= 1e-7 * np.abs(K).max()
    assert np.all(f[0].reshape(n, 6)[:, :3] == 0.0) and np.all(K[0].reshape(n, 6, -1)[:, :3] == 0.0)
    if n == 2:
        assert np.all(np.asarray(fs) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(f[0, 3:6] + f[0, 9:12]).max() <= 1e-14 * fs


@pytest.mark.parametrize("phi", [0.3, 2.0, 3.1])
def test_single_axis_rotation_gives_M_equal_k_theta_at_any_angle(phi):
    """Node 2 turned by φ about each joint axis (skew frame) relative to node 1 (itself
    rotated arbitrarily): resultant M_i = k_i φ on that axis and 0 on the others, spatial
    moment k_i φ along the turned axis on node 2 (−that on node 1), energy ½ k_i φ²."""
    p = row(kx=2.0, ky=3.0, kz=5.0, axis=(1.0, 2.0, 0.5), second=(0.0, 0.0, 1.0))
    n_ax = np.array([1.0, 2.0, 0.5]) / np.linalg.norm([1.0, 2.0, 0.5])
    t1 = np.array([0.0, 0.0, 1.0]) - n_ax[2] * n_ax
    t1 /= np.linalg.norm(t1)
    A = np.column_stack([n_ax, t1, np.cross(n_ax, t1)])
    R1 = expm([0.4, -0.7, 0.2])
    X, u = arrays(2)
    for i, k in enumerate((2.0, 3.0, 5.0)):
        axis = R1 @ A[:, i]
        R = np.stack([R1, expm(phi * axis) @ R1])[None]
        s = np.zeros((1, 3))
        KER.resultants(X, u, R, p, s)
        assert np.allclose(s[0], k * phi * np.eye(3)[i], rtol=1e-13, atol=1e-12)
        f = force(R, p)
        assert np.allclose(f[9:12], k * phi * axis, rtol=1e-12, atol=1e-12)
        assert np.allclose(f[3:6], -k * phi * axis, rtol=1e-12, atol=1e-12)
        assert np.all(np.asarray(k * phi * phi) > 0)  # a zero scale would let an all-zero output pass
        assert abs(energy(R, p) - 0.5 * k * phi * phi) <= 1e-13 * k * phi * phi


def test_general_rotation_moment_is_the_left_jacobian_transpose_form():
    """Ground spring, isotropic-free joint frame (A = I): for R = exp(θ̂) the spatial
    moment f solves J_l(θ)ᵀ f = K (θ − θ0) (the spin derivative of the log map)."""
    p = row(kx=2.0, ky=3.0, kz=5.0, theta0=(0.1, -0.2, 0.3))
    theta = np.array([1.1, -1.4, 0.9])  # |θ| = 2.0 rad
    f = force(expm(theta)[None, None], p)[3:6]
    Jl = np.empty((3, 3))
    left_jacobian(theta, Jl)
    assert np.allclose(Jl.T @ f, np.array([2.0, 3.0, 5.0]) * (theta - [0.1, -0.2, 0.3]), rtol=1e-12, atol=1e-12)


def midpoint(R0, psi, p):
    n = R0.shape[1]
    X, u = arrays(n)
    R1 = np.stack([cayley_batch(psi[0, a:a + 1])[0] @ R0[0, a] for a in range(n)])[None]
    f = np.zeros((1, 6 * n))
    K = np.zeros((1, 6 * n, 6 * n))
    KER.midpoint_force(X, u, R0, u, R1, u, R0, psi, np.zeros((1, n, 3, 3)), p, f, K)
    return f[0], K[0], R1


def random_increments(rng, n, lo=1.0, hi=2.5):
    psi = np.zeros((1, n, 3))
    for a in range(n):
        d = rng.normal(size=3)
        psi[0, a] = 2.0 * np.tan(0.5 * rng.uniform(lo, hi)) * d / np.linalg.norm(d)
    return psi


@pytest.mark.parametrize("n", [1, 2])
def test_midpoint_force_is_energy_exact_balanced_and_its_matrix_exact(n):
    """20 random steps with nodal increments of 1 to 2.5 rad from random states (relative
    rotations up to 3.07 rad): f̄·ψ = ΔV to 1e-12 of |ΔV| (measured ≤ 4e-14), Σ moments = 0
    (two nodes) and K = ∂f̄/∂ψ against central differences (step 1e-6) to 1e-7."""
    rng = np.random.default_rng(3 + n)
    p = row(**ANISO)
    done = 0
    for _ in range(60):
        R0 = random_rotations(rng, n, 0.5)
        psi = random_increments(rng, n)
        try:
            f, K, R1 = midpoint(R0, psi, p)
        except ValueError:  # a relative rotation beyond π: outside the spring's range
            continue
        z = np.zeros(6 * n)
        for a in range(n):
            z[6 * a + 3:6 * a + 6] = psi[0, a]
        dV = energy(R1, p) - energy(R0, p)
        assert np.all(np.asarray(abs(dV)) > 0)  # a zero scale would let an all-zero output pass
        assert abs(f @ z - dV) <= 1e-12 * abs(dV)
        if n == 2:
            assert np.all(np.asarray(np.abs(f).max()) > 0)  # a zero scale would let an all-zero output pass
            assert np.abs(f[3:6] + f[9:12]).max() <= 1e-14 * np.abs(f).max()
        h = 1e-6
        K_fd = np.zeros_like(K)
        for a in range(n):
            for k in range(3):
                dp = np.zeros_like(psi)
                dp[0, a, k] = h
                K_fd[:, 6 * a + 3 + k] = (midpoint(R0, psi + dp, p)[0] - midpoint(R0, psi - dp, p)[0]) / (2 * h)
        assert np.all(np.asarray(np.abs(K).max()) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(K - K_fd).max() <= 1e-7 * np.abs(K).max()
        done += 1
        if done == 20:
            break
    assert done == 20


def test_midpoint_force_limits_and_common_rotation():
    """ψ → 0: f̄ → f and K → ½ (the spin tangent) at ψ = 0; a common Cayley step of both
    nodes of a stress-free spring gives f̄ = 0 at 2 rad; the two-node spring's f̄ is
    balanced for any step."""
    rng = np.random.default_rng(11)
    p = row(**ANISO)
    R0 = random_rotations(rng, 2, 0.6)
    f, K, _ = midpoint(R0, np.zeros((1, 2, 3)), p)
    X, u = arrays(2)
    fs = np.zeros((1, 12))
    Ks = np.zeros((1, 12, 12))
    KER.tangent(X, u, R0, p, fs, Ks)
    assert np.allclose(f, fs[0], rtol=0, atol=1e-13 * np.abs(f).max())
    assert np.allclose(K, 0.5 * Ks[0], rtol=0, atol=1e-12 * np.abs(K).max())
    free = row(kx=2.0, ky=3.0, kz=5.0)
    Rc = expm([0.3, 0.5, -0.2])
    R0 = np.stack([Rc, Rc])[None]
    psi = np.tile(2.0 * np.tan(1.0) * np.array([0.6, 0.0, 0.8]), (1, 2, 1))
    f, _, _ = midpoint(R0, psi, free)
    assert np.abs(f).max() <= 1e-14


TWIST_LAW = dict(law=[[-3.0, -9.0], [-1.0, -1.5], [0.0, 0.0], [0.5, 0.4], [1.0, 1.5], [3.0, 8.0]], smooth=True)


def test_twist_force_law_adds_to_kx_with_exact_gradient_tangent_and_discrete_gradient():
    """A smooth table law M(θ_x) on the twist about the axis (added to k_x θ_x): a pure turn
    φ about the axis gives M_x = k_x φ + M_law(φ) and V = ½ k_x φ² + ∫M_law; force, tangent
    and the mid-point force pass the same finite-difference and energy checks as the
    linear spring (random states and 1–2.5 rad steps)."""
    p = row(kx=1.0, ky=3.0, kz=5.0, axis=(1.0, 2.0, 0.5), second=(0.0, 0.0, 1.0), **TWIST_LAW)
    law = SPEC.prepare_values(dict(TWIST_LAW), "t")["law"]
    assert p.shape[1] > len(SPEC.params)
    n_ax = np.array([1.0, 2.0, 0.5]) / np.linalg.norm([1.0, 2.0, 0.5])
    X, u = arrays(2)
    for phi in (-2.0, 0.7, 2.6):
        R = np.stack([np.eye(3), expm(phi * n_ax)])[None]
        s = np.zeros((1, 3))
        KER.resultants(X, u, R, p, s)
        assert np.allclose(s[0], [phi + law(np.array([phi]))[0], 0.0, 0.0], rtol=1e-12, atol=1e-12)
        Vl = quad(lambda x: law(np.array([x]))[0], 0.0, phi, points=[-1.0, 0.5, 1.0], epsabs=1e-14, epsrel=1e-13)[0]
        assert energy(R, p) == pytest.approx(0.5 * phi * phi + Vl, rel=1e-11)
    rng = np.random.default_rng(21)
    R = random_rotations(rng, 2, 0.7)
    f = np.zeros((1, 12))
    K = np.zeros((1, 12, 12))
    KER.tangent(X, u, R, p, f, K)
    h = 1e-6
    f_fd = np.zeros(12)
    K_fd = np.zeros((12, 12))
    for a in range(2):
        for k in range(3):
            w = h * np.eye(3)[k]
            f_fd[6 * a + 3 + k] = (energy(spun(R, a, w), p) - energy(spun(R, a, -w), p)) / (2 * h)
            K_fd[:, 6 * a + 3 + k] = (force(spun(R, a, w), p) - force(spun(R, a, -w), p)) / (2 * h)
    assert np.all(np.asarray(np.abs(f).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(f[0] - f_fd).max() <= 1e-8 * np.abs(f).max()
    assert np.all(np.asarray(np.abs(K).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(K[0] - K_fd).max() <= 1e-7 * np.abs(K).max()
    done = 0
    for _ in range(30):
        R0 = random_rotations(rng, 2, 0.5)
        psi = random_increments(rng, 2)
        try:
            fm, _, R1 = midpoint(R0, psi, p)
        except ValueError:
            continue
        dV = energy(R1, p) - energy(R0, p)
        assert np.all(np.asarray(abs(dV)) > 0)  # a zero scale would let an all-zero output pass
        assert abs(fm[3:6] @ psi[0, 0] + fm[9:12] @ psi[0, 1] - dV) <= 1e-12 * abs(dV)
        done += 1
    assert done >= 10


def test_half_turn_is_refused_and_frame_input_is_checked():
    """The log map is singular at |θ| = π: the kernels raise ValueError; bad frames and
    negative constants raise InputError naming the part."""
    p = row(k=1.0)
    with pytest.raises(ValueError, match="half turn"):
        energy(expm([0.0, 0.0, np.pi])[None, None], p)
    assert energy(expm([0.0, 0.0, np.pi - 1e-3])[None, None], p) == pytest.approx(0.5 * (np.pi - 1e-3) ** 2, rel=1e-12)
    prep = SPEC.prepare_values
    with pytest.raises(InputError, match="parallel"):
        prep(dict(k=1.0, axis=(1.0, 0.0, 0.0), second=(2.0, 0.0, 0.0)), "part 'hinge'")
    with pytest.raises(InputError, match="hinge"):
        prep(dict(k=-1.0), "part 'hinge'")
    # an axis along y gets a normal second vector automatically
    v = {**SPEC.defaults, **prep(dict(k=1.0, axis=(0.0, 3.0, 0.0)), "p")}
    assert abs(v["by"]) < 1e-12 and np.hypot(v["bx"], v["bz"]) > 0.5


def test_twist_damper_law_gives_its_moment_and_derivative():
    """A damper law M_d(ω_x) on the twist rate (added to c_x ω_x): the moment about the axis
    and C = ∂f/∂v against central differences (1e-8), ``damping`` = the slope at ω = 0;
    a non-dissipative law is refused."""
    dl = [[-2.0, -3.0], [0.0, 0.0], [1.0, 0.5], [2.0, 2.5]]
    p = row(k=1.0, cx=0.2, cy=0.4, cz=0.6, damper_law=dl)
    rng = np.random.default_rng(9)
    R = random_rotations(rng, 2, 0.8)
    X, u = arrays(2)
    v = rng.normal(size=(1, 12))
    f = np.zeros((1, 12))
    C = np.zeros((1, 12, 12))
    KER.damper_force(X, u, R, v, p, f, C)
    E = R[0, 0]  # axis x, second y: the joint frame is node 1's triad
    om = E.T @ (v[0, 9:12] - v[0, 3:6])
    Mx = 0.2 * om[0] + np.interp(om[0], [-2.0, 0.0, 1.0, 2.0], [-3.0, 0.0, 0.5, 2.5])
    assert (E.T @ f[0, 9:12])[0] == pytest.approx(Mx, rel=1e-12)
    h = 1e-7
    C_fd = np.zeros((12, 12))
    for j in range(12):
        dv = np.zeros((1, 12))
        dv[0, j] = h
        fp, fm = np.zeros((1, 12)), np.zeros((1, 12))
        KER.damper_force(X, u, R, v + dv, p, fp, np.zeros((1, 12, 12)))
        KER.damper_force(X, u, R, v - dv, p, fm, np.zeros((1, 12, 12)))
        C_fd[:, j] = (fp - fm)[0] / (2 * h)
    assert np.all(np.asarray(np.abs(C).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(C[0] - C_fd).max() <= 1e-7 * np.abs(C).max()
    C0 = np.zeros((1, 12, 12))
    KER.damping(X, u, R, p, C0)
    assert (E.T @ C0[0, 9:12, 9:12] @ E)[0, 0] == pytest.approx(0.2 + 0.5, rel=1e-12)
    with pytest.raises(InputError, match="dissipate"):
        row(k=1.0, damper_law=[[-1.0, 0.5], [0.0, 0.0], [1.0, 1.0]])


@pytest.mark.parametrize("n", [1, 2])
def test_damper_moment_is_balanced_dissipative_and_linear(n):
    """m = E diag(c) Eᵀ (ω2 − ω1) in the joint frame of node 1: C = ∂f/∂v = ``damping``,
    f·v = Σ c_i ω_i² ≥ 0, Σ f = 0 for two nodes, no force on translations."""
    rng = np.random.default_rng(5)
    p = row(k=1.0, cx=0.5, cy=1.5, cz=2.5, axis=(1.0, 1.0, 0.0))
    R = random_rotations(rng, n, 0.8)
    X, u = arrays(n)
    v = rng.normal(size=(1, 6 * n))
    f = np.zeros((1, 6 * n))
    C = np.zeros((1, 6 * n, 6 * n))
    C2 = np.zeros_like(C)
    KER.damper_force(X, u, R, v, p, f, C)
    KER.damping(X, u, R, p, C2)
    assert np.array_equal(C, C2)
    assert np.allclose(f[0], C[0] @ v[0], rtol=1e-14)
    n_ax = np.array([1.0, 1.0, 0.0]) / np.sqrt(2.0)
    t1 = np.array([0.0, 1.0, 0.0]) - n_ax[1] * n_ax
    t1 /= np.linalg.norm(t1)
    E = (R[0, 0] if n == 2 else np.eye(3)) @ np.column_stack([n_ax, t1, np.cross(n_ax, t1)])
    w = v[0, 6 * (n - 1) + 3:6 * n] - (v[0, 3:6] if n == 2 else 0.0)
    om = E.T @ w
    assert f[0] @ v[0] == pytest.approx(float(np.sum(np.array([0.5, 1.5, 2.5]) * om * om)), rel=1e-13)
    assert np.allclose(f[0, 6 * (n - 1) + 3:6 * n], E @ (np.array([0.5, 1.5, 2.5]) * om), rtol=1e-13)
    if n == 2:
        assert np.all(np.asarray(np.abs(f).max()) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(f[0, 3:6] + f[0, 9:12]).max() <= 1e-14 * np.abs(f).max()
    assert np.all(f[0].reshape(n, 6)[:, :3] == 0.0)


# --------------------------------------------------------------------------- statics


def body_on_ground_spring(**spring):
    mesh = Mesh(np.array([[0.3, 0.2, 0.1]]), {}, {"c": [0]})
    model = Model(mesh, dim=3, name="body on a rotational spring")
    model.add_discrete("body", "rigid_body3d", "c", m=1.0, Jxx=1.0, Jyy=1.0, Jzz=1.0)
    model.add_discrete("spring", "rotational_spring3d_ground", "c", **spring)
    model.fix("c", "translations")
    return model


FRAME = dict(axis=(1.0, 2.0, 0.5), second=(0.0, 0.0, 1.0))


def joint_frame_of(axis, second):
    n = np.asarray(axis, float) / np.linalg.norm(axis)
    t1 = np.asarray(second, float) - (np.asarray(second, float) @ n) * n
    t1 /= np.linalg.norm(t1)
    return np.column_stack([n, t1, np.cross(n, t1)])


@pytest.mark.parametrize("i", [0, 1, 2])
def test_static_moment_about_a_joint_axis_turns_the_body_by_M_over_k(i):
    """A dead moment M about joint axis i (skew frame) turns the body about that axis by
    θ = M/k_i exactly, here 2.5 rad (the body's rotation vector is θ a_i to 1e-10)."""
    k = (2.0, 3.0, 5.0)
    model = body_on_ground_spring(kx=k[0], ky=k[1], kz=k[2], **FRAME)
    a = joint_frame_of(**FRAME)[:, i]
    M = 2.5 * k[i]
    model.point_load("c", mx=M * a[0], my=M * a[1], mz=M * a[2])
    res = solve_static(model, steps=5)
    Rb = res.nodal_rotation_matrices(-1)[0]
    theta = Rotation.from_matrix(Rb).as_rotvec()
    assert np.allclose(theta, 2.5 * a, rtol=0, atol=1e-10)


def test_static_general_moment_balances_the_log_map_spring():
    """A dead moment m with components on all joint axes turns the body by |θ| > 1 rad;
    at equilibrium the joint-frame moments K θ_A (θ_A = log(Aᵀ R A)) equal Aᵀ J_l(θ)ᵀ m,
    the spin derivative of the log map (θ = log R), to 1e-9 |m|."""
    k = np.array([2.0, 3.0, 5.0])
    model = body_on_ground_spring(kx=k[0], ky=k[1], kz=k[2], **FRAME)
    m = np.array([2.0, -3.0, 4.0])
    model.point_load("c", mx=m[0], my=m[1], mz=m[2])
    res = solve_static(model, steps=4)
    A = joint_frame_of(**FRAME)
    Rb = res.nodal_rotation_matrices(-1)[0]
    theta = Rotation.from_matrix(Rb).as_rotvec()
    th_joint = Rotation.from_matrix(A.T @ Rb @ A).as_rotvec()
    Jl = np.empty((3, 3))
    left_jacobian(theta, Jl)
    assert np.linalg.norm(theta) > 1.0
    assert np.allclose(k * th_joint, A.T @ (Jl.T @ m), rtol=0, atol=1e-9 * np.linalg.norm(m))


@pytest.mark.parametrize("load", ["mx", "my"])
def test_beam_and_rotational_spring_in_series_add_their_flexibilities(load):
    """A beam3d cantilever (L = 1, GJ = 1.5, EIy = 2) whose root is held by a rotational
    spring to the ground (k = 4 about x, 6 about y; root translations fixed), loaded by an
    end moment M: the tip rotation about the moment axis is M/k + M L/(GJ or EIy), the
    root rotation M/k (1e-9), here at 1.6 and 1.15 rad."""
    L, GJ, EIy = 1.0, 1.5, 2.0
    k = {"mx": 4.0, "my": 6.0}[load]
    rig = {"mx": GJ, "my": EIy}[load]
    model = Model(line_mesh((0.0, 0.0, 0.0), (L, 0.0, 0.0), 4, "b"), dim=3, name="beam on spring")
    model.add_part("b", "beam3d", "b", Material(E=1.0, G=1.0), Section(A=1e6, Iy=EIy, Iz=3.0, J=GJ))
    model.add_discrete("root spring", "rotational_spring3d_ground", "b_start", kx=4.0, ky=6.0, kz=8.0)
    model.fix("b_start", "translations")
    M = 0.8
    model.point_load("b_end", **{load: M})
    res = solve_static(model, steps=4)
    R = res.nodal_rotation_matrices(-1)
    e = np.eye(3)[{"mx": 0, "my": 1}[load]]
    root = Rotation.from_matrix(R[model.node("b_start")]).as_rotvec()
    tip = Rotation.from_matrix(R[model.node("b_end")]).as_rotvec()
    assert np.allclose(root, M / k * e, atol=1e-9)
    assert np.allclose(tip, (M / k + M * L / rig) * e, atol=1e-9)


def test_modes_of_a_body_on_a_rotational_spring_are_sqrt_k_over_J():
    """Linearized about the reference state (modal analysis of an oriented model), a body
    with J = diag(1, 2, 3) on k = (4, 5, 6) about the same axes has ω = √(k_i/J_i) =
    2, 1.581, 1.414 rad/s (1e-10)."""
    from femb.solvers import solve_modal

    mesh = Mesh(np.array([[0.3, 0.2, 0.1]]), {}, {"c": [0]})
    model = Model(mesh, dim=3, name="body on a rotational spring")
    model.add_discrete("body", "rigid_body3d", "c", m=1.0, Jxx=1.0, Jyy=2.0, Jzz=3.0)
    model.add_discrete("spring", "rotational_spring3d_ground", "c", kx=4.0, ky=5.0, kz=6.0)
    model.fix("c", "translations")
    res = solve_modal(model, n_modes=3, mass="lumped")
    assert np.allclose(np.sort(res.omega), np.sqrt([6.0 / 3.0, 5.0 / 2.0, 4.0 / 1.0]), rtol=1e-10)
