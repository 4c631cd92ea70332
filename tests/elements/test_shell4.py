"""The co-rotational shell quadrilateral shell4 (overlapping ANDES-OPT membrane + MITC4):
rigid motions, objectivity, exact tangent on warped elements, zero-energy modes, the
MacNeal–Harder patch (membrane and bending), no shear locking, buckling, the Sze
cantilever, mass and bad input."""
import numpy as np
import pytest

from femb.core.errors import ModelError
from femb.elements import get_spec
from femb.mesh import CellBlock, Mesh
from femb.model import Material, Model, Section
from femb.solvers import NewtonSettings, solve_buckling, solve_static
from femb.validation.shell_models import LINEAR_SETTINGS, add_edge_load, add_pressure, navier_center, ss_plate, strip
from tests.elements.oriented_states import KernelCalls, central_difference, expm, randomly_deformed, rigid_modes, rigid_state

SPEC = get_spec("shell4")
K_ = SPEC.kernels
CALLS = KernelCalls(SPEC)
force, tangent, energy, resultants, mass = CALLS.force, CALLS.tangent, CALLS.energy, CALLS.resultants, CALLS.mass
YOUNG, NU, THICK, RHO = 1.0e3, 0.3, 0.05, 2.0


def params(n, E=YOUNG, nu=NU, t=THICK, rho=RHO):
    return np.tile(np.array([E, nu, t, rho], dtype=float), (n, 1))


def identity(n):
    return np.tile(np.eye(3), (n, 4, 1, 1))


def random_quads(rng, n, warp=0.05):
    """Distorted convex quadrilaterals of size ~1 with out-of-plane warping ``warp``, in
    random position and orientation (n, 4, 3)."""
    base = np.array([[0.0, 0.0, 0.0], [1.2, 0.1, 0.0], [1.0, 0.9, 0.0], [-0.1, 1.1, 0.0]])
    out = []
    for _ in range(n):
        P = base + 0.08 * rng.normal(size=(4, 3)) * [1, 1, 0]
        P[:, 2] = warp * np.array([1, -1, 1, -1]) * rng.uniform(0.5, 1.0)
        out.append(P @ expm(rng.normal(size=3) * 2).T + rng.normal(size=3))
    return np.array(out)


def deformed_states(seed=3, n=6, amplitude=0.3, strain=0.03):
    rng = np.random.default_rng(seed)
    X = random_quads(rng, n)
    u, R = randomly_deformed(rng, X, amplitude, strain)
    return X, u, R, params(n)


# --------------------------------------------------------------------------- contract and input
def test_spec_declares_the_contract():
    assert SPEC.cell_type == "quad" and SPEC.n_nodes == 4 and SPEC.oriented and SPEC.n_edof == 24
    assert SPEC.params == ("E", "nu", "t", "rho")
    assert SPEC.resultant_names[:8] == ("Nxx", "Nyy", "Nxy", "Mxx", "Myy", "Mxy", "Qx", "Qy")
    assert len(SPEC.resultant_names) == 32
    with pytest.raises(ValueError, match="shell4"):
        SPEC.property_row(Material(E=1.0, nu=0.3), Section(A=1.0))


def test_bad_quadrilaterals_are_reported_with_part_and_cells():
    pts = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.3, 0.3, 0], [2, 0, 0], [2, 1, 1.2]], dtype=float)
    conn = np.array([[0, 1, 2, 3], [0, 1, 4, 3], [1, 5, 6, 2]])  # fine, non-convex, warped
    model = Model(Mesh(pts, {"skin": CellBlock("quad", conn)}))
    model.add_part("panel", "shell4", "skin", Material(E=1.0, nu=0.3), Section(thickness=0.1))
    model.fix([0, 3])
    text = "\n".join(model.problems())
    assert "part 'panel'" in text and "non-convex" in text and "[1]" in text and "warped" in text and "[2]" in text
    with pytest.raises(ModelError):
        model.validate()
    with pytest.raises(ValueError, match="non-convex"):
        force(pts[conn[1:2]], np.zeros((1, 24)), identity(1), params(1))


# --------------------------------------------------------------------------- invariance and derivatives
@pytest.mark.parametrize("angle", [0.4, 3.0, 8.0])
def test_rigid_motion_gives_zero_force_and_energy(angle):
    rng = np.random.default_rng(2)
    n = 8
    X = random_quads(rng, n)
    Q = np.array([expm(angle * a / np.linalg.norm(a)) for a in rng.normal(size=(n, 3))])
    u, R = rigid_state(X, Q, 10.0 * rng.normal(size=(n, 3)))
    p = params(n)
    assert np.abs(force(X, u, R, p)).max() <= 1e-12 * YOUNG * THICK
    assert np.abs(energy(X, u, R, p)).max() <= 1e-24 * YOUNG * THICK
    assert np.abs(resultants(X, u, R, p)).max() <= 1e-12 * YOUNG * THICK


def test_superposed_rigid_rotation_rotates_forces_and_tangent():
    X, u, R, p = deformed_states(seed=5)
    n = len(X)
    Q = expm(np.array([0.4, -1.7, 0.9]))
    x = X + u.reshape(n, 4, 6)[:, :, :3]
    u2 = u.copy()
    for a in range(4):
        u2[:, 6 * a:6 * a + 3] = x[:, a] @ Q.T + [1.0, 2.0, -3.0] - X[:, a]
    R2 = np.einsum("ij,eajk->eaik", Q, R)
    f, K = tangent(X, u, R, p)
    f2, K2 = tangent(X, u2, R2, p)
    T = np.kron(np.eye(8), Q)
    assert np.abs(f2 - f @ T.T).max() <= 1e-10 * np.abs(f).max()
    assert np.abs(K2 - T @ K @ T.T).max() <= 1e-10 * np.abs(K).max()
    assert energy(X, u2, R2, p) == pytest.approx(energy(X, u, R, p), rel=1e-10)


def test_internal_force_is_the_gradient_of_the_strain_energy():
    X, u, R, p = deformed_states(seed=2)
    g = central_difference(lambda uu, RR: energy(X, uu, RR, p), u, R, 1e-6)
    f = force(X, u, R, p)
    assert np.abs(g - f).max() <= 1e-7 * np.abs(f).max()
    x = X + u.reshape(len(X), 4, 6)[:, :, :3]
    F = sum(f[:, 6 * a:6 * a + 3] for a in range(4))
    M = sum(np.cross(x[:, a], f[:, 6 * a:6 * a + 3]) + f[:, 6 * a + 3:6 * a + 6] for a in range(4))
    assert np.abs(F).max() <= 1e-12 * np.abs(f).max() and np.abs(M).max() <= 1e-11 * np.abs(f).max()


@pytest.mark.parametrize("seed, amplitude, strain", [(1, 0.1, 0.01), (4, 0.5, 0.05), (9, 1.0, 0.1)])
def test_tangent_is_the_derivative_of_the_internal_force(seed, amplitude, strain):
    """Warped quadrilaterals at random deformed, rotated states: < 1e-6 relative."""
    X, u, R, p = deformed_states(seed=seed, amplitude=amplitude, strain=strain)
    f, K = tangent(X, u, R, p)
    Kfd = central_difference(lambda uu, RR: force(X, uu, RR, p), u, R, 1e-6)
    assert np.abs(K - Kfd).max() <= 1e-6 * np.abs(K).max()


def test_tangent_splits_into_symmetric_material_part_and_geometric_stiffness():
    X, u, R, p = deformed_states(seed=6)
    f, K = tangent(X, u, R, p)
    s = resultants(X, u, R, p)
    Kg = np.zeros_like(K)
    K_.geometric_stiffness(X, u, R, p, s, Kg)
    Km = K - Kg
    assert np.abs(Km - Km.transpose(0, 2, 1)).max() <= 1e-10 * np.abs(K).max()


@pytest.mark.parametrize("warp", [0.0, 0.08])
def test_unstressed_tangent_has_exactly_the_six_rigid_modes(warp):
    """Flat and warped, thick and thin (t = 0.05, 0.001): 6 zero eigenvalues, the rigid
    modes in the null space, the 18 deformation modes above 1e-12 of the largest."""
    rng = np.random.default_rng(7)
    n = 5
    X = random_quads(rng, n, warp=warp)
    for t in (0.05, 0.001):
        f, K = tangent(X, np.zeros((n, 24)), identity(n), params(n, t=t))
        for e in range(n):
            ev = np.linalg.eigvalsh(K[e])
            assert np.abs(K[e] - K[e].T).max() <= 1e-12 * ev[-1]
            assert np.abs(ev[:6]).max() <= 1e-12 * ev[-1]
            assert ev[6] >= 1e-12 * ev[-1]
            assert np.abs(K[e] @ rigid_modes(X[e])).max() <= 1e-11 * ev[-1]


# --------------------------------------------------------------------------- patch tests
PATCH = np.array([[0.0, 0.0], [0.24, 0.0], [0.24, 0.12], [0.0, 0.12], [0.04, 0.02], [0.18, 0.03], [0.16, 0.08],
                  [0.08, 0.08]])  # MacNeal–Harder patch
QUADS = np.array([[0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7], [4, 5, 6, 7]])


def patch_solution(U, Q):
    """Interior DOFs (nodes 4–7) of K U = 0 on the patch placed by Q, boundary U given."""
    pts = np.column_stack([PATCH, np.zeros(8)]) @ Q.T + [0.5, -1.0, 2.0]
    X = pts[QUADS]
    f, K = tangent(X, np.zeros((5, 24)), identity(5), params(5))
    G = np.zeros((48, 48))
    for e, q in enumerate(QUADS):
        idx = np.concatenate([np.arange(6 * v, 6 * v + 6) for v in q])
        G[np.ix_(idx, idx)] += K[e]
    free = np.arange(24, 48)
    fixed = np.arange(24)
    out = U.copy()
    out[free] = np.linalg.solve(G[np.ix_(free, free)], -G[np.ix_(free, fixed)] @ U[fixed])
    return out, G


@pytest.mark.parametrize("orientation", [0.0, 1.1])
def test_membrane_patch_test(orientation):
    Q = expm(orientation * np.array([0.5, 0.3, -0.8]))
    grad = np.array([[1e-3, 0.6e-3], [-0.3e-3, -0.4e-3]])
    U = np.zeros(48)
    for v, P in enumerate(PATCH):
        du = grad @ P
        U[6 * v:6 * v + 3] = Q @ [du[0], du[1], 0.0]
        U[6 * v + 3:6 * v + 6] = Q @ [0.0, 0.0, 0.5 * (grad[1, 0] - grad[0, 1])]
    sol, G = patch_solution(U, Q)
    assert np.abs(sol - U).max() <= 1e-10 * np.abs(U).max()


@pytest.mark.parametrize("orientation", [0.0, 2.0])
def test_bending_patch_test(orientation):
    """Constant curvature (quadratic w, θx = ∂w/∂y, θy = −∂w/∂x) is reproduced exactly by
    MITC4 on the distorted patch, with the exact energy ½ A κᵀ D κ."""
    Q = expm(orientation * np.array([-0.2, 0.9, 0.4]))
    kxx, kyy, kxy = 2e-3, -1e-3, 1.5e-3
    U = np.zeros(48)
    for v, (x, y) in enumerate(PATCH):
        w = 0.5 * kxx * x * x + 0.5 * kyy * y * y + kxy * x * y
        U[6 * v:6 * v + 3] = Q @ [0.0, 0.0, w]
        U[6 * v + 3:6 * v + 6] = Q @ [kyy * y + kxy * x, -(kxx * x + kxy * y), 0.0]
    sol, G = patch_solution(U, Q)
    assert np.abs(sol - U).max() <= 1e-10 * np.abs(U).max()
    kappa = np.array([kxx, kyy, 2 * kxy])
    Db = YOUNG * THICK**3 / (12 * (1 - NU**2)) * np.array([[1, NU, 0], [NU, 1, 0], [0, 0, (1 - NU) / 2]])
    assert 0.5 * sol @ G @ sol == pytest.approx(0.5 * 0.24 * 0.12 * kappa @ Db @ kappa, rel=1e-10)


# --------------------------------------------------------------------------- mass
@pytest.mark.parametrize("kind", [0, 1, 2])
def test_mass_is_exact_and_constant(kind):
    """Total mass ρtA (A the area of the quadrilateral projected on its mean plane,
    ½|d13 × d24|), positive definite, independent of the configuration."""
    X, u, R, p = deformed_states(seed=12, n=3)
    M = mass(X, u, R, p, kind)
    assert np.array_equal(M, mass(X, np.zeros_like(u), identity(3), p, kind))
    ones = np.zeros(24)
    ones[[0, 6, 12, 18]] = 1.0
    total = np.einsum("i,eij,j->e", ones, M, ones)
    area = np.array([0.5 * np.linalg.norm(np.cross(x[2] - x[0], x[3] - x[1])) for x in X])
    assert np.allclose(total, RHO * THICK * area, rtol=1e-12)
    for e in range(3):
        assert np.all(np.linalg.eigvalsh(M[e]) > 0)


# --------------------------------------------------------------------------- plates
def test_thin_plate_has_no_shear_locking():
    """Simply supported square plate, a/t = 1000, uniform pressure (linear range): MITC4
    converges to the Kirchhoff (Navier) center deflection at O(h²): measured −2.3 %,
    −0.51 %, −0.12 % on 4, 8, 16 (|error| < 0.3 % at 16, rate ≥ 1.8); a locking element
    would be orders of magnitude too stiff."""
    E, nu, t = 1.0e7, 0.3, 0.001
    D = E * t**3 / (12 * (1 - nu**2))
    w_ref = 1e-3 * t
    errors = []
    for n in (4, 8, 16):
        mesh, model = ss_plate(n, E, nu, t, element="shell4")
        add_pressure(mesh, model, w_ref * D / navier_center())
        res = solve_static(model, steps=1, settings=LINEAR_SETTINGS)
        errors.append(res.nodal_displacements()[mesh.node_sets["plate_center"][0], 2] / w_ref - 1.0)
    assert abs(errors[-1]) < 3e-3
    assert np.log2(errors[1] / errors[2]) >= 1.8


def test_plate_buckling_coefficient_is_four():
    """k = 4 (N_cr = 31 633.3 N/m, as for shell3): shell4 converges from above, measured
    +0.92 %, +0.57 %, +0.14 % on 4, 8, 16; within 0.3 % at 16 × 16."""
    E, nu, t = 70e9, 0.3, 0.005
    n_cr = 4 * np.pi**2 * E * t**3 / (12 * (1 - nu**2))
    mesh, model = ss_plate(16, E, nu, t, in_plane="compression", element="shell4")
    for i in mesh.node_sets["plate_x1"]:
        y = mesh.points[i, 1]
        model.point_load(int(i), fx=-(1 / 16 if 0 < y < 1 else 0.5 / 16))
    lam = solve_buckling(model, 1).load_factors[0]
    assert 0.0 < lam / n_cr - 1.0 < 3e-3


def test_sze_cantilever_under_end_shear():
    """Sze–Liu–Lo end-shear cantilever on 16 × 1 quadrilaterals, 10 increments: tip W and −U
    within 0.3 % of the table at P_max (measured −0.03 % and +0.02 %); Newton ≤ 10
    iterations per increment, ≤ 80 in total (measured 73)."""
    mesh, model = strip(16, 1, element="shell4")
    add_edge_load(mesh, model, "plate_x1", 4.0, "fz")
    res = solve_static(model, load_factors=np.linspace(0.1, 1.0, 10), settings=NewtonSettings(tolerance=1e-8))
    d = res.nodal_displacements()[mesh.node_sets["plate_x1"]].mean(axis=0)
    assert d[2] == pytest.approx(6.698, rel=3e-3)
    assert -d[0] == pytest.approx(3.286, rel=3e-3)
    assert max(res.history["iterations"]) <= 10 and res.info["newton_iterations"] <= 80


# --------------------------------------------------------------------------- reference
def test_kernels_equal_the_numpy_reference():
    from tests.elements import shell4_reference as ref
    X, u, R, p = deformed_states(seed=8, n=4, amplitude=0.5, strain=0.05)
    f, e = force(X, u, R, p), energy(X, u, R, p)
    for k in range(len(X)):
        assert e[k] == pytest.approx(ref.energy(X[k], u[k], R[k], p[k]), rel=1e-9)
        fr = ref.force(X[k], u[k], R[k], p[k])
        assert np.abs(f[k] - fr).max() <= 1e-9 * np.abs(fr).max()
        for kind in (0, 1, 2):
            Mk = mass(X[k:k + 1], u[k:k + 1], R[k:k + 1], p[k:k + 1], kind)[0]
            assert np.allclose(Mk, ref.mass(X[k], p[k], kind), rtol=1e-12, atol=1e-15 * np.abs(Mk).max())


@pytest.mark.slow
def test_subprocess_runs_the_element_tests_without_jit():
    """The kernels also run as plain Python (NUMBA_DISABLE_JIT=1): rigid motion, energy
    gradient, patch tests and the numpy reference (the full element set takes minutes
    without compilation)."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", __file__, "-k",
                           "rigid_motion or gradient or patch_test or numpy_reference"],
                          env=env, cwd=root, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def test_end_moment_rolls_the_strip_into_a_full_circle():
    """Roll-up (EI = 100, L = 12, M = 2πEI/L, 8 increments) on 24 × 1 quadrilaterals: nodes
    on the exact circle within 1e-4 R (measured 2.2e-5), tip back at the root within
    1e-4 L (measured 3.3e-5), ≤ 10 Newton iterations per increment."""
    L, EI = 12.0, 100.0
    mesh, model = strip(24, 1, L=L, element="shell4")
    M = 2 * np.pi * EI / L
    model.point_load("plate_x1", my=-M / 2)
    res = solve_static(model, steps=8, settings=NewtonSettings(tolerance=1e-8))
    x = mesh.points + res.nodal_displacements()
    R = EI / M
    assert np.abs(np.hypot(x[:, 0], x[:, 2] - R) - R).max() < 1e-4 * R
    assert np.abs(x[mesh.node_sets["plate_x1"]] - mesh.points[mesh.node_sets["plate_x0"]]).max() < 1e-4 * L
    assert max(res.history["iterations"]) <= 10
