"""The co-rotational shell triangle shell3: rigid motions at large rotations, zero-energy
modes, exact derivatives under multiplicative rotation perturbations, patch tests on
distorted meshes in arbitrary spatial orientation, objectivity, the numpy reference, mass,
the membrane on Cook's panel and bad input."""
import os
import subprocess
import sys

import numpy as np
import pytest

from femb.core.errors import ModelError
from femb.elements import get_spec
from femb.mesh import CellBlock, Mesh
from femb.model import Material, Model, Section
from tests.elements import shell3_reference as ref
from tests.elements.oriented_states import KernelCalls, central_difference, expm, randomly_deformed, rigid_modes, rigid_state

SPEC = get_spec("shell3")
K_ = SPEC.kernels
CALLS = KernelCalls(SPEC)
force, tangent, energy, resultants, geometric, mass = (CALLS.force, CALLS.tangent, CALLS.energy, CALLS.resultants,
                                                      CALLS.geometric, CALLS.mass)
YOUNG, NU, THICK, RHO = 1.0e3, 0.3, 0.05, 2.0
NO_JIT = os.environ.get("NUMBA_DISABLE_JIT") == "1"


def params(n, E=YOUNG, nu=NU, t=THICK, rho=RHO):
    return np.tile(np.array([E, nu, t, rho], dtype=float), (n, 1))


def identity(n):
    return np.tile(np.eye(3), (n, 3, 1, 1))


def random_triangles(rng, n):
    """Reference triangles (n, 3, 3) of random shape (angles ≥ ~15°), size ~1, position and
    orientation."""
    out = []
    while len(out) < n:
        P = np.column_stack([rng.uniform(-1, 1, (3, 2)), np.zeros(3)])
        v = [P[(i + 1) % 3] - P[i] for i in range(3)]
        ang = [np.arccos(np.clip(-v[i - 1] @ v[i] / np.linalg.norm(v[i - 1]) / np.linalg.norm(v[i]), -1, 1))
               for i in range(3)]
        if min(ang) < 0.25 or np.linalg.norm(np.cross(v[0], v[1])) < 0.3:
            continue
        out.append(P @ expm(rng.normal(size=3) * 2).T + rng.normal(size=3))
    return np.array(out)


def deformed_states(seed=3, n=8, amplitude=0.3, strain=0.03):
    """Random deformed elements under large rigid rotations: X, u, R, p. Translations
    perturbed by ``strain`` of the size, nodal rotations by ``amplitude`` rad."""
    rng = np.random.default_rng(seed)
    X = random_triangles(rng, n)
    u, R = randomly_deformed(rng, X, amplitude, strain)
    return X, u, R, params(n)


# --------------------------------------------------------------------------- contract and input
def test_spec_declares_the_contract():
    assert SPEC.cell_type == "triangle" and SPEC.n_nodes == 3 and SPEC.dim == 3 and SPEC.oriented
    assert SPEC.node_dofs == ("ux", "uy", "uz", "rx", "ry", "rz") and SPEC.n_edof == 18
    assert SPEC.params == ("E", "nu", "t", "rho")
    assert SPEC.resultant_names[:6] == ("Nxx", "Nyy", "Nxy", "Mxx", "Myy", "Mxy") and len(SPEC.resultant_names) == 24
    assert set(SPEC.constant_mass) == {0, 1, 2}


def test_properties_from_material_and_section():
    row = SPEC.property_row(Material(E=210e9, nu=0.3, rho=7800.0), Section(thickness=0.002))
    assert row.tolist() == [210e9, 0.3, 0.002, 7800.0]
    row = SPEC.property_row(Material(E=3.0, G=1.0), Section(thickness=0.1))
    assert row[1] == pytest.approx(0.5)


@pytest.mark.parametrize("material, section, fragment", [
    (Material(E=1.0, nu=0.3), Section(A=1.0), "thickness"),
    (Material(E=1.0), Section(thickness=0.1), "nu"),
])
def test_missing_property_is_named(material, section, fragment):
    with pytest.raises(ValueError, match=fragment):
        SPEC.property_row(material, section)


def test_degenerate_triangle_is_reported_with_its_part_and_cells():
    pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [2, 0, 0]], dtype=float)
    mesh = Mesh(pts, {"skin": CellBlock("triangle", np.array([[0, 1, 2], [0, 1, 3]]))})
    model = Model(mesh)
    model.add_part("panel", "shell3", "skin", Material(E=1.0, nu=0.3), Section(thickness=0.1))
    model.fix([0, 1, 2, 3])
    problems = "\n".join(model.problems())
    assert "part 'panel'" in problems and "zero-area" in problems and "[1]" in problems and "'skin'" in problems
    with pytest.raises(ModelError):
        model.validate()
    X = pts[[[0, 1, 3]]]
    with pytest.raises(ValueError, match="degenerate"):
        force(X, np.zeros((1, 18)), identity(1), params(1))


def test_section_without_area_or_thickness_is_a_problem():
    assert any("thickness" in m for m in Section().problems())
    assert any("thickness must be > 0" in m for m in Section(thickness=-1.0).problems())


# --------------------------------------------------------------------------- invariance
@pytest.mark.parametrize("angle", [0.3, 2.0, 3.1, 9.0])
def test_rigid_motion_gives_zero_force_energy_and_resultants(angle):
    """Any rigid motion (rotations up to several turns about random axes): |f| ≤ 1e-12 of
    the force scale E t l, zero energy and resultants."""
    rng = np.random.default_rng(11)
    n = 10
    X = random_triangles(rng, n)
    axes = rng.normal(size=(n, 3))
    Q = np.array([expm(angle * a / np.linalg.norm(a)) for a in axes])
    u, R = rigid_state(X, Q, 10.0 * rng.normal(size=(n, 3)))
    p = params(n)
    scale = YOUNG * THICK * 1.0
    assert np.abs(force(X, u, R, p)).max() <= 1e-12 * scale
    assert np.abs(energy(X, u, R, p)).max() <= 1e-24 * scale
    assert np.abs(resultants(X, u, R, p)).max() <= 1e-12 * scale


def test_forces_are_self_equilibrated_at_deformed_states():
    X, u, R, p = deformed_states()
    f = force(X, u, R, p)
    x = X + u.reshape(-1, 3, 6)[:, :, :3]
    F = f[:, 0:3] + f[:, 6:9] + f[:, 12:15]
    M = sum(np.cross(x[:, a], f[:, 6 * a:6 * a + 3]) + f[:, 6 * a + 3:6 * a + 6] for a in range(3))
    assert np.abs(F).max() <= 1e-12 * np.abs(f).max()
    assert np.abs(M).max() <= 1e-11 * np.abs(f).max()


@pytest.mark.parametrize("angle", [0.7, 2.9])
def test_superposed_rigid_rotation_rotates_forces_and_tangent(angle):
    """Objectivity: x → Q x + c, R_a → Q R_a leaves the energy and resultants unchanged and
    rotates the force blocks (f → Q f) and the tangent (K → Q K Qᵀ), to 1e-10."""
    X, u, R, p = deformed_states(seed=5)
    n = len(X)
    Q = expm(angle * np.array([0.3, -0.8, 0.52]) / np.linalg.norm([0.3, -0.8, 0.52]))
    c = np.array([1.0, -2.0, 0.5])
    x = X + u.reshape(n, 3, 6)[:, :, :3]
    u2 = u.copy()
    R2 = np.einsum("ij,eajk->eaik", Q, R)
    for a in range(3):
        u2[:, 6 * a:6 * a + 3] = x[:, a] @ Q.T + c - X[:, a]
    f, K = tangent(X, u, R, p)
    f2, K2 = tangent(X, u2, R2, p)
    T = np.kron(np.eye(6), Q)
    assert np.abs(f2 - f @ T.T).max() <= 1e-10 * np.abs(f).max()
    assert np.abs(K2 - T @ K @ T.T).max() <= 1e-10 * np.abs(K).max()
    assert energy(X, u2, R2, p) == pytest.approx(energy(X, u, R, p), rel=1e-10)
    assert np.abs(resultants(X, u2, R2, p) - resultants(X, u, R, p)).max() <= 1e-10 * np.abs(resultants(X, u, R, p)).max()


# --------------------------------------------------------------------------- derivatives
def test_internal_force_is_the_gradient_of_the_strain_energy():
    X, u, R, p = deformed_states(seed=2)
    g = central_difference(lambda uu, RR: energy(X, uu, RR, p), u, R, 1e-6)
    f = force(X, u, R, p)
    assert np.abs(g - f).max() <= 1e-7 * np.abs(f).max()


@pytest.mark.parametrize("seed, amplitude, strain", [(1, 0.1, 0.01), (4, 0.4, 0.05), (9, 1.0, 0.1)])
def test_tangent_is_the_derivative_of_the_internal_force(seed, amplitude, strain):
    """K = ∂f/∂(δx, w) by central differences with multiplicative rotation perturbations,
    at random deformed and rotated states (local rotations up to ~1 rad): < 1e-6 relative."""
    X, u, R, p = deformed_states(seed=seed, amplitude=amplitude, strain=strain)
    f, K = tangent(X, u, R, p)
    Kfd = central_difference(lambda uu, RR: force(X, uu, RR, p), u, R, 1e-6)
    assert np.abs(K - Kfd).max() <= 1e-6 * np.abs(K).max()
    assert np.allclose(f, force(X, u, R, p), rtol=0, atol=1e-13 * np.abs(f).max())


def test_tangent_splits_into_symmetric_material_part_and_geometric_stiffness():
    """tangent − geometric_stiffness(resultants) is the symmetric material part B̃ᵀ H B̃;
    geometric_stiffness is linear in the resultants."""
    X, u, R, p = deformed_states(seed=6)
    f, K = tangent(X, u, R, p)
    s = resultants(X, u, R, p)
    Kg = geometric(X, u, R, p, s)
    Km = K - Kg
    assert np.abs(Km - Km.transpose(0, 2, 1)).max() <= 1e-10 * np.abs(K).max()
    assert np.abs(Kg).max() > 1e-3 * np.abs(K).max()
    assert np.allclose(geometric(X, u, R, p, 2.5 * s), 2.5 * Kg, rtol=0, atol=1e-12 * np.abs(Kg).max())


@pytest.mark.parametrize("seed", [0, 1])
def test_unstressed_tangent_has_exactly_the_six_rigid_modes(seed):
    """At the reference (and any rigidly rotated) state: exactly 6 zero eigenvalues (the rigid
    modes) and the 12 deformation modes well above round-off, even for a thin element."""
    rng = np.random.default_rng(seed)
    n = 6
    X = random_triangles(rng, n)
    Q = np.array([expm(rng.normal(size=3) * 2) for _ in range(n)])
    for (u, R) in ((np.zeros((n, 18)), identity(n)), rigid_state(X, Q, rng.normal(size=(n, 3)))):
        p = params(n, t=0.01)
        f, K = tangent(X, u, R, p)
        x = X + u.reshape(n, 3, 6)[:, :, :3]
        for e in range(n):
            ev = np.linalg.eigvalsh(K[e])
            assert np.abs(K[e] - K[e].T).max() <= 1e-12 * ev[-1]
            assert np.abs(ev[:6]).max() <= 1e-12 * ev[-1]
            assert ev[6] >= 1e-9 * ev[-1]
            assert np.abs(K[e] @ rigid_modes(x[e])).max() <= 1e-12 * ev[-1]


def test_membrane_has_six_deformation_modes_and_a_drill_tied_to_the_membrane_rotation():
    """The 9×9 membrane block at the reference has rank 6 (3 rigid in-plane modes: two
    translations and the rotation with θz = θ0); a uniform drill θz with zero
    displacements costs energy (it is not a free mode) and so does a drill field
    θz = θ0 + c added to a rigid rotation, but the rigid in-plane rotation u = ω × x with
    θz = ω costs nothing (the drill is tied to the membrane rotation, not penalised)."""
    rng = np.random.default_rng(4)
    X = random_triangles(rng, 1)
    E0, P = ref.frame(X[0])
    f, K = tangent(X, np.zeros((1, 18)), identity(1), params(1))
    T = np.kron(np.eye(6), E0)
    Kl = T @ K[0] @ T.T
    Km = Kl[np.ix_(ref.MEM, ref.MEM)]
    ev = np.linalg.eigvalsh(Km)
    assert np.abs(ev[:3]).max() <= 1e-12 * ev[-1] and ev[3] > 1e-6 * ev[-1]
    rot = np.zeros(9)
    for a in range(3):
        rot[3 * a:3 * a + 3] = [-P[a, 1], P[a, 0], 1.0]
    assert np.abs(Km @ rot).max() <= 1e-12 * ev[-1]
    drill = np.zeros(9)
    drill[[2, 5, 8]] = 1.0
    assert drill @ Km @ drill > 1e-3 * ev[-1]


@pytest.mark.parametrize("L, h", [(1.0, 1.0), (2.0, 1.0), (5.0, 2.0), (1.0, 3.0)])
@pytest.mark.parametrize("split", [0, 1])
def test_membrane_bending_energy_of_rectangular_units_is_exact(L, h, split):
    """ANDES-OPT's optimality (Felippa 2003): with ν = 0, a rectangular unit of two
    triangles stores the exact strain energy ½ EI κ² L of pure in-plane bending (u = −κxy,
    v = κx²/2, drill θz = κx = ½(∂v/∂x − ∂u/∂y)) for any aspect ratio: to 1e-12 (a
    membrane without the higher-order stiffness, or with wrong β's, fails by O(1))."""
    P = np.array([[0, -h / 2, 0], [L, -h / 2, 0], [L, h / 2, 0], [0, h / 2, 0]], dtype=float)
    tris = np.array([[0, 1, 2], [0, 2, 3]] if split == 0 else [[0, 1, 3], [1, 2, 3]])
    kappa = 1e-3
    q = np.zeros((4, 6))
    q[:, 0] = -kappa * P[:, 0] * P[:, 1]
    q[:, 1] = 0.5 * kappa * P[:, 0] ** 2
    q[:, 5] = kappa * P[:, 0]
    f, K = tangent(P[tris], np.zeros((2, 18)), identity(2), params(2, E=1.0, nu=0.0, t=1.0))
    energy_fe = sum(0.5 * q[t].ravel() @ K[e] @ q[t].ravel() for e, t in enumerate(tris))
    assert energy_fe == pytest.approx(0.5 * kappa**2 * h**3 / 12 * L, rel=1e-12)


# --------------------------------------------------------------------------- patch tests
def patch(Q, c):
    """A distorted 5-triangle patch (6 nodes: 4 corners of a skew quadrilateral, 2 interior
    nodes), placed in space by x = Q X + c. Returns points (6, 3), triangles (6, 3), the
    interior nodes, and the in-plane coordinates (6, 2)."""
    P2 = np.array([[0.0, 0.0], [2.0, 0.0], [2.3, 1.7], [0.1, 1.2], [0.7, 0.45], [1.45, 0.9]])
    tris = np.array([[0, 1, 4], [1, 5, 4], [1, 2, 5], [2, 3, 5], [3, 4, 5], [3, 0, 4]])
    pts = np.column_stack([P2, np.zeros(6)]) @ Q.T + c
    return pts, tris, np.array([4, 5]), P2


def assemble_reference_stiffness(pts, tris, p):
    n = len(pts)
    X = pts[tris]
    ne = len(tris)
    f, K = tangent(X, np.zeros((ne, 18)), identity(ne), np.tile(p, (ne, 1)))
    G = np.zeros((6 * n, 6 * n))
    for e, tri in enumerate(tris):
        idx = np.concatenate([np.arange(6 * v, 6 * v + 6) for v in tri])
        G[np.ix_(idx, idx)] += K[e]
    return G


def linear_resultants(X, U, p, eps=1e-4):
    """Resultants of the linearised element at the small-displacement state U (n, 18)
    (translations and rotation vectors): central difference along (ε U, exp(ε θ̂))."""
    def at(sign):
        u = sign * eps * U
        R = np.array([[expm(u[e, 6 * a + 3:6 * a + 6]) for a in range(3)] for e in range(len(U))])
        return resultants(X, u, R, p)
    return (at(1.0) - at(-1.0)) / (2 * eps)


def solve_patch(G, U, interior):
    """Interior DOFs of K U = 0 with the boundary values of U prescribed."""
    n = G.shape[0] // 6
    free = np.concatenate([np.arange(6 * v, 6 * v + 6) for v in interior])
    fixed = np.setdiff1d(np.arange(6 * n), free)
    out = U.copy()
    out[free] = np.linalg.solve(G[np.ix_(free, free)], -G[np.ix_(free, fixed)] @ U[fixed])
    return out


@pytest.mark.parametrize("orientation", [0.0, 1.3])
def test_membrane_patch_test_is_exact_on_a_distorted_patch(orientation):
    """Linear in-plane displacement (constant strain plus rigid rotation, drills θz = θ0)
    prescribed on the boundary: interior displacements and drills exact to 1e-10 and every
    element carries the exact membrane forces N = t D ε (invariants of the linearised
    resultants, central differences: 1e-6), in any orientation."""
    Q = expm(orientation * np.array([0.6, 0.2, -0.77]))
    pts, tris, interior, P2 = patch(Q, np.array([0.3, -1.0, 2.0]))
    p = np.array([YOUNG, NU, THICK, RHO])
    G = assemble_reference_stiffness(pts, tris, p)
    grad = np.array([[1e-3, 0.7e-3], [-0.2e-3, -0.5e-3]])  # ∂(ux, uy)/∂(x, y) in the plane
    U = np.zeros(6 * len(pts))
    for v in range(len(pts)):
        du = grad @ P2[v]
        U[6 * v:6 * v + 3] = Q @ np.array([du[0], du[1], 0.0])
        U[6 * v + 3:6 * v + 6] = Q @ np.array([0.0, 0.0, 0.5 * (grad[1, 0] - grad[0, 1])])
    sol = solve_patch(G, U, interior)
    assert np.abs(sol - U).max() <= 1e-10 * np.abs(U).max()
    eps = np.array([grad[0, 0], grad[1, 1], grad[0, 1] + grad[1, 0]])
    N = THICK * ref.plane_stress(YOUNG, NU) @ eps
    ne = len(tris)
    s = linear_resultants(pts[tris], sol.reshape(-1, 6)[tris].reshape(ne, 18), np.tile(p, (ne, 1)))
    # element frames differ: compare the invariants of the membrane force tensor
    for e in range(ne):
        Ne = np.array([[s[e, 0], s[e, 2]], [s[e, 2], s[e, 1]]])
        Nx = np.array([[N[0], N[2]], [N[2], N[1]]])
        assert np.trace(Ne) == pytest.approx(np.trace(Nx), rel=1e-6)
        assert np.linalg.det(Ne) == pytest.approx(np.linalg.det(Nx), rel=1e-6)


@pytest.mark.parametrize("orientation", [0.0, 2.2])
def test_bending_patch_test_is_exact_on_a_distorted_patch(orientation):
    """Quadratic deflection w (constant curvature), θx = ∂w/∂y, θy = −∂w/∂x on the boundary:
    interior deflections and rotations exact to 1e-10 and the patch energy equals
    ½ A κᵀ D κ to 1e-10, in any orientation."""
    Q = expm(orientation * np.array([-0.3, 0.9, 0.3]))
    pts, tris, interior, P2 = patch(Q, np.array([1.0, 2.0, -0.5]))
    p = np.array([YOUNG, NU, THICK, RHO])
    G = assemble_reference_stiffness(pts, tris, p)
    kxx, kyy, kxy = 2e-3, -1e-3, 1.5e-3  # w = ½ kxx x² + ½ kyy y² + kxy x y + 1e-3 (1 + x − y)
    U = np.zeros(6 * len(pts))
    for v, (x, y) in enumerate(P2):
        w = 0.5 * kxx * x * x + 0.5 * kyy * y * y + kxy * x * y + 1e-3 * (1 + x - y)
        wx, wy = kxx * x + kxy * y + 1e-3, kyy * y + kxy * x - 1e-3
        U[6 * v:6 * v + 3] = Q @ np.array([0.0, 0.0, w])
        U[6 * v + 3:6 * v + 6] = Q @ np.array([wy, -wx, 0.0])
    sol = solve_patch(G, U, interior)
    assert np.abs(sol - U).max() <= 1e-10 * np.abs(U).max()
    area = sum(0.5 * abs((P2[b, 0] - P2[a, 0]) * (P2[c, 1] - P2[a, 1]) - (P2[c, 0] - P2[a, 0]) * (P2[b, 1] - P2[a, 1]))
               for a, b, c in tris)
    kappa = np.array([kxx, kyy, 2 * kxy])
    Db = YOUNG * THICK**3 / (12 * (1 - NU**2)) * np.array([[1, NU, 0], [NU, 1, 0], [0, 0, (1 - NU) / 2]])
    assert 0.5 * sol @ G @ sol == pytest.approx(0.5 * area * kappa @ Db @ kappa, rel=1e-10)


# --------------------------------------------------------------------------- reference
def test_kernels_equal_the_numpy_reference():
    X, u, R, p = deformed_states(seed=8, n=5, amplitude=0.5, strain=0.05)
    f, e, s = force(X, u, R, p), energy(X, u, R, p), resultants(X, u, R, p)
    for k in range(len(X)):
        assert e[k] == pytest.approx(ref.energy(X[k], u[k], R[k], p[k]), rel=1e-10)
        fr = ref.force(X[k], u[k], R[k], p[k])
        assert np.abs(f[k] - fr).max() <= 1e-10 * np.abs(fr).max()
        sr = ref.resultants(X[k], u[k], R[k], p[k])
        assert np.abs(s[k] - sr).max() <= 1e-10 * np.abs(sr).max()
        for kind in (0, 1, 2):
            assert np.allclose(mass(X[k:k + 1], u[k:k + 1], R[k:k + 1], p[k:k + 1], kind)[0], ref.mass(X[k], p[k], kind),
                               rtol=1e-12, atol=0)


# --------------------------------------------------------------------------- mass
@pytest.mark.parametrize("kind", [0, 1, 2])
def test_mass_is_exact_and_constant(kind):
    """Total mass ρtA in every direction, isotropic nodal rotary inertia ρt³A/36 per node
    (drill included, so M is regular), the same at deformed states (constant mass)."""
    X, u, R, p = deformed_states(seed=12, n=4)
    M = mass(X, u, R, p, kind)
    M0 = mass(X, np.zeros_like(u), identity(len(X)), p, kind)
    assert np.array_equal(M, M0)
    area = 0.5 * np.linalg.norm(np.cross(X[:, 1] - X[:, 0], X[:, 2] - X[:, 0]), axis=1)
    ones = np.zeros(18)
    ones[[0, 6, 12]] = 1.0
    total = np.einsum("i,eij,j->e", ones, M, ones)
    assert np.allclose(total, RHO * THICK * area, rtol=1e-14)
    for e in range(len(X)):
        assert np.all(np.linalg.eigvalsh(M[e]) > 0)
        assert np.allclose(M[e, 3:6, 3:6], RHO * THICK**3 * area[e] / 36 * np.eye(3), rtol=1e-14)
    with pytest.raises(ValueError, match="kind"):
        mass(X, u, R, p, 7)


# --------------------------------------------------------------------------- pure Python
@pytest.mark.slow
def test_subprocess_runs_this_file_without_jit():
    """The kernels also run as plain Python (NUMBA_DISABLE_JIT=1) and pass the same tests."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", __file__, "-k", "not subprocess"],
                          env=env, cwd=root, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def test_force_round_off_scales_with_the_displacements_not_the_position():
    """Deformations are computed from displacement differences (no cancellation of
    absolute positions): the same small deformation (strains ~1e-6) of an element near the
    origin and of a copy 1e4 element sizes away gives the same forces to 1e-8 relative
    (differencing absolute coordinates would leave ~1e-16·1e4/1e-6 = 1e-6)."""
    rng = np.random.default_rng(21)
    X = random_triangles(rng, 4)
    X -= X.mean(axis=1, keepdims=True)
    far = X + np.array([1e4, -2e4, 3e4])
    u = np.zeros((4, 18))
    for a in range(3):
        u[:, 6 * a:6 * a + 3] = 1e-6 * rng.normal(size=(4, 3))
    R = np.array([[expm(1e-6 * rng.normal(size=3)) for _ in range(3)] for _ in range(4)])
    p = params(4)
    f0, f1 = force(X, u, R, p), force(far, u, R, p)
    assert np.abs(f1 - f0).max() <= 1e-8 * np.abs(f0).max()
