"""Complex modes of gyroscopic, damped and circulatory (non-symmetric K) systems through the
first-order pencil with shift-invert Arnoldi (femb.solvers.eigen.complex_modes)."""
import numpy as np
import pytest
import scipy.sparse as sp

from femb.core.errors import InputError, ModelError
from femb.mesh import line_mesh
from femb.model import Material, Model, Section
from femb.solvers import solve_modal
from femb.solvers.eigen.complex_modes import complex_eigen, solve_complex_modes


def test_gyroscopic_two_dof_eigenvalues_match_the_closed_form():
    """λ⁴ + (k1 + k2 + g²)λ² + k1k2 = 0 with k1 = 1, k2 = 4, g = 1: λ² = −3 ± √5
    (reference digest, appendix: ±0.874032i, ±2.288246i)."""
    M, K = np.eye(2), np.diag([1.0, 4.0])
    G = np.array([[0.0, -1.0], [1.0, 0.0]])
    lam, vec, _ = complex_eigen(M, G, K, 2)
    exact = np.sqrt(np.array([3.0 - np.sqrt(5.0), 3.0 + np.sqrt(5.0)]))
    assert np.allclose(lam.real, 0.0, atol=1e-12)
    assert np.allclose(lam.imag, exact, rtol=1e-12)
    for j in range(2):  # the quadratic eigenproblem holds for each returned shape
        phi = vec[:, j]
        assert np.linalg.norm((lam[j] ** 2 * M + lam[j] * G + K) @ phi) < 1e-12


def _random_system(n, seed=1, circulatory=0.0):
    rng = np.random.default_rng(seed)
    A = sp.random(n, n, density=4.0 / n, random_state=rng)
    K = (A @ A.T + sp.eye(n) * n * 0.1).tocsr()
    M = sp.diags(rng.uniform(1.0, 2.0, n))
    S = sp.random(n, n, density=3.0 / n, random_state=rng)
    C = (S - S.T) + 0.01 * K
    if circulatory:
        T = sp.random(n, n, density=2.0 / n, random_state=rng)
        K = K + circulatory * (T - T.T)
    return M.tocsr(), C.tocsr(), K.tocsr()


@pytest.mark.parametrize("circulatory", [0.0, 0.3])
def test_sparse_arnoldi_matches_the_dense_pencil(circulatory):
    M, C, K = _random_system(150, circulatory=circulatory)
    dense, _, _ = complex_eigen(M, C, K, 6, dense_limit=10_000)
    sparse, vec, _ = complex_eigen(M, C, K, 6, dense_limit=0)
    assert np.allclose(sparse, dense, rtol=1e-8)
    for j in range(6):
        r = (sparse[j] ** 2 * M + sparse[j] * C + K) @ vec[:, j]
        assert np.linalg.norm(r) < 1e-7 * abs(sparse[j]) ** 2 * sp.linalg.norm(M) * np.linalg.norm(vec[:, j]) + 1e-7


def test_complex_shift_finds_modes_near_a_target_frequency():
    M, C, K = _random_system(120, seed=3)
    all_modes, _, _ = complex_eigen(M, C, K, 60, dense_limit=10_000)
    target = all_modes[30]
    near, _, sigma = complex_eigen(M, C, K, 2, shift=1j * target.imag, dense_limit=0)
    assert isinstance(sigma, complex)
    assert np.all(np.asarray(abs(target)) > 0)  # a zero scale would let an all-zero output pass
    assert np.min(np.abs(near - target)) < 1e-8 * abs(target)


def test_circulatory_stiffness_gives_flutter_with_negative_damping_ratio():
    """K = [[a, b], [c, d]] with M = I: λ² = −μ, μ the eigenvalues of K. With bc < −((a−d)/2)²
    μ is complex and one root of each pair has Re λ > 0 (flutter, ζ < 0)."""
    a, d = 2.0, 1.0
    stable = solve_complex_modes(matrices=(np.eye(2), None, np.array([[a, 0.1], [0.1, d]])), n_modes=2)
    assert stable.stable and np.allclose(stable.damping_ratio, 0.0, atol=1e-12)
    K = np.array([[a, 1.0], [-1.0, d]])  # bc = −1 < −0.25
    res = solve_complex_modes(matrices=(np.eye(2), None, K), n_modes=2)
    mu = np.linalg.eigvals(K)
    exact = np.sqrt(-mu.astype(complex))
    exact = np.concatenate([exact, -exact])
    for lam in res.eigenvalues:
        assert np.min(np.abs(exact - lam)) < 1e-12
    assert not res.stable
    assert res.damping_ratio.min() < 0.0


def beam(n, fix="beam_start", A=1e7, EI=2.0, rhoA=3.0):
    mesh = line_mesh((0.0, 0.0), (1.0, 0.0), n, "beam")
    model = Model(mesh)
    model.add_part("beam", "beam2d", "beam", Material(E=1.0, rho=rhoA / A), Section(A=A, I=EI))
    if fix:
        model.fix(fix)
    return model


def test_rayleigh_damping_ratios_follow_alpha_over_two_omega_plus_beta_omega_over_two():
    """Proportional damping C = αM + βK keeps the undamped shapes: each mode has
    |λ| = ω (the symmetric modal result) and ζ = α/(2ω) + βω/2."""
    model = beam(12)
    omega = solve_modal(model, 4, mass="consistent").omega
    alpha, beta = 0.3, 2e-3
    res = solve_complex_modes(model, 4, damping=(alpha, beta), mass="consistent")
    assert np.allclose(res.natural_frequency, omega, rtol=1e-9)
    assert np.allclose(res.damping_ratio, alpha / (2 * omega) + beta * omega / 2, rtol=1e-9)
    assert np.allclose(res.frequency_hz, omega * np.sqrt(1 - res.damping_ratio**2) / (2 * np.pi), rtol=1e-9)
    # shapes over all variables: the clamped root does not move
    t = res.table
    root = [t.var_of(0, d) for d in ("ux", "uy", "rz")]
    assert np.all(res.modes[:, root] == 0)


def test_rigid_body_modes_are_found_by_shifting():
    """A free–free beam: K is singular (3 rigid modes); the default shift is moved off zero
    and the rigid modes come out as (near-)zero eigenvalues, then the elastic ones."""
    model = beam(16, fix=None, A=1e5)
    sym = solve_modal(model, 5, mass="consistent").omega
    res = solve_complex_modes(model, 5, dense_limit=0, mass="consistent")
    assert res.shift < 0.0
    scale = sym[3]
    assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
    assert np.sum(res.natural_frequency < 1e-3 * scale) == 3
    assert np.allclose(np.sort(res.natural_frequency)[3:], sym[3:5], rtol=1e-7)


def test_bad_shift_and_singular_pencil_are_reported():
    M, K = np.eye(2), np.diag([1.0, 4.0])
    with pytest.raises(InputError, match="coincides with an eigenvalue"):
        complex_eigen(M, None, K, 1, shift=2j)
    Ms, Ks = np.diag([1.0, 0.0]), np.diag([1.0, 0.0])  # second DOF: no mass, damping or stiffness
    with pytest.raises(ModelError, match="singular pencil"):
        complex_eigen(Ms, None, Ks, 1)
    with pytest.raises(InputError, match="shape"):
        complex_eigen(np.eye(3), None, K, 1)


def test_constrained_pendulum_complex_modes_use_the_joint_stiffness():
    """The (x, y) pendulum with a distance joint: after the null-space reduction and with
    the joint's curvature λ∇²Φ the complex modes are exactly ±i·sqrt(g/L); the LinearModel
    of ``linearize`` gives the same through its second-order matrices."""
    from femb.solvers import solve_static
    from femb.solvers.eigen.linearize import linearize
    from femb.validation.eigen_cases import pendulum_xy

    model = pendulum_xy()
    static = solve_static(model, steps=1)
    res = solve_complex_modes(model, 1, static.final, mass="lumped", multipliers=static.arrays["multipliers"][-1])
    assert res.eigenvalues.size == 1
    assert res.eigenvalues[0] == pytest.approx(1j * np.sqrt(9.8), rel=1e-10)
    t = res.table
    assert abs(res.modes[0, t.var_of(0, "ux")]) < 1e-12 and abs(res.modes[0, t.var_of(0, "uy")]) == pytest.approx(1.0)
    lin = linearize(model, np.zeros(2)).complex_modes()
    assert lin.eigenvalues[0] == pytest.approx(1j * np.sqrt(9.8), rel=1e-8)


def test_prestressed_3d_shaft_complex_modes_match_the_symmetric_modal_analysis():
    """A clamped–clamped 3-D shaft twisted by half its Greenhill torque (semitangential, so
    the tangent plus load stiffness is symmetric at equilibrium): the non-symmetric solver
    keeps the tangent as assembled and finds the same purely imaginary pairs."""
    from femb.solvers import solve_static

    mesh = line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 8, "shaft")
    model = Model(mesh, dim=3)
    model.add_part("shaft", "beam3d", "shaft", Material(E=1.0, G=1.0, rho=1.0), Section(A=1e4, Iy=1.0, Iz=1.0, J=1.0, Ip=1e-4))
    model.fix("shaft_start")
    model.fix("shaft_end", ("uy", "uz", "ry", "rz"))
    model.point_load("shaft_end", mx=4.5, moment_type="semitangential")
    static = solve_static(model, steps=2)
    from femb.solvers.problem import StaticProblem

    prob = StaticProblem(model)
    state = prob.state_of(static)
    sym = solve_modal(model, 4, state, problem=prob, load_factor=1.0, mass="consistent").omega
    res = solve_complex_modes(model, 4, state, problem=prob, load_factor=1.0, mass="consistent")
    assert np.allclose(res.eigenvalues.real, 0.0, atol=1e-7 * sym[0])
    assert np.allclose(res.damped_frequency, sym, rtol=1e-7)
