"""The co-rotated Craig–Bampton superelement kernels (elements.superelement) on reduced
matrices with the structure of a Craig–Bampton reduction (boundary stiffness without
rigid-body energy, diagonal modal stiffness): rigid-motion invariance (SE-1), objectivity,
force = energy gradient and exact tangent by central differences (SE-3), floating and
rotated, with modal amplitudes, reference tangent and mass equal to the reduced matrices,
a numpy reference of the deformational vector (also the resultants), and the geometric
stiffness T (Σ s_j G_j) Tᵀ of a geometric tensor in the property row."""
import numpy as np
import pytest
import scipy.linalg as sla

from femb.core.rotations import exp_so3
from femb.elements import get_spec
from femb.elements.superelement import superelement_row
from femb.elements.superelement_frame import _polar, deformation

KERNELS = get_spec("superelement_2n_0q").kernels
SIZES = [(1, 2), (2, 0), (2, 3), (3, 2), (5, 1)]


def rot(v):
    R = np.zeros((3, 3))
    exp_so3(np.asarray(v, dtype=np.float64), R)
    return R


def rigid_modes(X):
    """(6n, 6) rigid translations and rotations about the centroid of nodes X (n, 3)."""
    n = X.shape[0]
    Xc = X - X.mean(axis=0)
    G = np.zeros((6 * n, 6))
    for a in range(n):
        x = Xc[a]
        G[6 * a:6 * a + 3, :3] = np.eye(3)
        G[6 * a:6 * a + 3, 3:] = np.array([[0.0, x[2], -x[1]], [-x[2], 0.0, x[0]], [x[1], -x[0], 0.0]])
        G[6 * a + 3:6 * a + 6, 3:] = np.eye(3)
    return G


def reduced_body(n, k, seed=0):
    """Reference positions X (n, 3) and a property row of K_r, M_r (m = 6n + k) with the
    structure of a Craig–Bampton reduction: K_bb symmetric positive semi-definite with
    exactly the rigid-body null space, K_qq = Ω², K_bq = 0, M_r symmetric positive."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    m = 6 * n + k
    S = rng.normal(size=(6 * n, 6 * n))
    Q, _ = np.linalg.qr(rigid_modes(X))
    P = np.eye(6 * n) - Q @ Q.T
    K = np.zeros((m, m))
    K[:6 * n, :6 * n] = P @ (S @ S.T + 6 * n * np.eye(6 * n)) @ P
    K[6 * n:, 6 * n:] = np.diag(rng.uniform(1.0, 3.0, k))
    Mr = rng.normal(size=(m, m))
    Mr = Mr @ Mr.T + m * np.eye(m)
    return X, K, Mr, superelement_row(K, Mr)[None]


def configuration(X, k, rng, Q, t, amp):
    """u (1, m), R (1, n, 3, 3): a rigid motion (Q, t) of the nodes plus deformations of
    size ``amp`` (and modal amplitudes)."""
    n = X.shape[0]
    u = np.zeros((1, 6 * n + k))
    R = np.zeros((1, n, 3, 3))
    for a in range(n):
        u[0, 6 * a:6 * a + 3] = t + Q @ X[a] - X[a] + amp * rng.normal(size=3)
        R[0, a] = Q @ rot(amp * rng.normal(size=3))
    u[0, 6 * n:] = amp * rng.normal(size=k)
    return u, R


def force(X, u, R, p):
    f = np.zeros(u.shape)
    KERNELS.internal_force(X[None], u, R, p, f)
    return f[0]


def energy(X, u, R, p):
    e = np.zeros(1)
    KERNELS.strain_energy(X[None], u, R, p, e)
    return e[0]


def perturbed(u, R, j, h):
    """The configuration moved by h along variable j (spatial spin for rotations)."""
    n = R.shape[1]
    u, R = u.copy(), R.copy()
    a, c = divmod(j, 6)
    if j < 6 * n and c >= 3:
        dv = np.zeros(3)
        dv[c - 3] = h
        R[0, a] = rot(dv) @ R[0, a]
    else:
        u[0, j] += h
    return u, R


def reference_deformation(X, u, R, k):
    """Numpy reference of d = [ū_a, θ̄_a, q]: the frame from scipy's polar decomposition."""
    n = X.shape[0]
    Xt = X - X.mean(axis=0)
    x = X + np.array([u[0, 6 * a:6 * a + 3] for a in range(n)])
    xt = x - x.mean(axis=0)
    c = np.sum(Xt ** 2) / n if np.sum(Xt ** 2) > 0 else 1.0
    B = xt.T @ Xt + c * R[0].sum(axis=0)
    Rs, _ = sla.polar(B)
    d = []
    for a in range(n):
        Rb = Rs.T @ R[0, a]
        th = np.real(sla.logm(Rb))
        d += list(Rs.T @ xt[a] - Xt[a]) + [th[2, 1], th[0, 2], th[1, 0]]
    return np.array(d + list(u[0, 6 * n:]))


@pytest.mark.parametrize("n, k", SIZES)
def test_rigid_motions_give_zero_force_and_energy(n, k):
    """SE-1: any large rigid motion of all boundary nodes with q = 0 gives f = 0 to
    round-off, 1e-12·‖K_r‖ (the fit returns the rigid rotation exactly)."""
    X, K, _, p = reduced_body(n, k)
    rng = np.random.default_rng(1)
    for _ in range(4):
        Q, t = rot(rng.normal(size=3) * 2.0), rng.normal(size=3) * 5.0
        u, R = configuration(X, k, rng, Q, t, 0.0)
        assert np.abs(force(X, u, R, p)).max() <= 1e-12 * np.abs(K).max()
        assert abs(energy(X, u, R, p)) <= 1e-24 * np.abs(K).max()


@pytest.mark.parametrize("n, k", SIZES)
def test_objectivity(n, k):
    """A rigid motion superposed on a deformed state leaves the energy unchanged and turns
    the nodal forces and moments with it (modal forces unchanged)."""
    X, K, _, p = reduced_body(n, k)
    rng = np.random.default_rng(2)
    u, R = configuration(X, k, rng, np.eye(3), np.zeros(3), 0.2)
    f0, e0 = force(X, u, R, p), energy(X, u, R, p)
    Q, t = rot([0.7, -1.9, 1.1]), np.array([3.0, -1.0, 2.0])
    u2, R2 = u.copy(), R.copy()
    for a in range(n):
        x = X[a] + u[0, 6 * a:6 * a + 3]
        u2[0, 6 * a:6 * a + 3] = t + Q @ x - X[a]
        R2[0, a] = Q @ R[0, a]
    f1 = force(X, u2, R2, p)
    expected = f0.copy()
    for b in range(2 * n):
        expected[3 * b:3 * b + 3] = Q @ f0[3 * b:3 * b + 3]
    assert abs(energy(X, u2, R2, p) - e0) <= 1e-12 * e0
    assert np.abs(f1 - expected).max() <= 1e-11 * np.abs(f0).max()


@pytest.mark.parametrize("n, k", SIZES)
def test_deformation_matches_a_numpy_reference(n, k):
    X, K, _, p = reduced_body(n, k)
    rng = np.random.default_rng(3)
    u, R = configuration(X, k, rng, rot([1.0, 0.5, -2.0]), np.array([1.0, 2.0, 3.0]), 0.3)
    d = reference_deformation(X, u, R, k)
    assert abs(energy(X, u, R, p) - 0.5 * d @ K @ d) <= 1e-12 * abs(0.5 * d @ K @ d)


@pytest.mark.parametrize("green", [False, True])
@pytest.mark.parametrize("n, k", SIZES)
def test_force_is_the_energy_gradient_and_tangent_is_exact(n, k, green):
    """SE-3 on a floating, rotated, deformed configuration with non-zero modal amplitudes:
    central differences (h = 1e-6, truncation error O(h²)·third derivatives ≈ 1e-10
    relative) of the energy give the force and of the force give the tangent; checked to
    1e-7 relative. ``green``: with a geometric tensor G in the row the energy is the
    projected Green-strain energy ½ eᵀK_r e, e = d + ½K_r⁺g(d)
    (elements.superelement_frame.reduced_energy), checked the same way, and ≥ 0."""
    X, K, M, p = reduced_body(n, k)
    if green:
        m = 6 * n + k
        G = np.random.default_rng(9).normal(size=(m, m, m))
        p = superelement_row(K, M, 3.0 * (G + G.transpose(0, 2, 1)))[None]
    rng = np.random.default_rng(4)
    u, R = configuration(X, k, rng, rot([0.4, 2.2, -1.3]), np.array([2.0, -3.0, 1.0]), 0.3)
    m = u.shape[1]
    f = np.zeros((1, m))
    Kt = np.zeros((1, m, m))
    KERNELS.tangent(X[None], u, R, p, f, Kt)
    assert np.allclose(f[0], force(X, u, R, p), rtol=0.0, atol=1e-14 * np.abs(f).max())
    h = 1e-6
    Kfd = np.zeros((m, m))
    g = np.zeros(m)
    for j in range(m):
        up, Rp = perturbed(u, R, j, h)
        um, Rm = perturbed(u, R, j, -h)
        Kfd[:, j] = (force(X, up, Rp, p) - force(X, um, Rm, p)) / (2 * h)
        g[j] = (energy(X, up, Rp, p) - energy(X, um, Rm, p)) / (2 * h)
    assert np.abs(f[0] - g).max() <= 1e-7 * np.abs(f).max()
    assert np.abs(Kt[0] - Kfd).max() <= 1e-7 * np.abs(Kfd).max()


@pytest.mark.parametrize("n, k", SIZES)
def test_reference_tangent_and_mass_are_the_reduced_matrices(n, k):
    """At u = 0, R = I: the tangent is K_r (K_r annihilates the rigid modes the projector
    removes) and the mass M_r, to round-off."""
    X, K, Mr, p = reduced_body(n, k)
    m = 6 * n + k
    u = np.zeros((1, m))
    R = np.tile(np.eye(3), (1, n, 1, 1))
    f = np.zeros((1, m))
    Kt = np.zeros((1, m, m))
    M = np.zeros((1, m, m))
    KERNELS.tangent(X[None], u, R, p, f, Kt)
    KERNELS.mass(X[None], u, R, p, 0, M)
    assert np.abs(f).max() == 0.0
    assert np.abs(Kt[0] - K).max() <= 1e-13 * np.abs(K).max()
    assert np.abs(M[0] - Mr).max() <= 1e-14 * np.abs(Mr).max()


def test_mass_turns_with_the_body():
    """Under a rigid rotation Q the mass is T M_r Tᵀ, T = blockdiag(Q, …, Q, I_k): the
    kinetic energy of a velocity turned with the body is unchanged."""
    n, k = 3, 2
    X, _, Mr, p = reduced_body(n, k)
    rng = np.random.default_rng(5)
    Q = rot([0.3, -1.2, 2.0])
    u, R = configuration(X, k, rng, Q, np.array([1.0, 1.0, 1.0]), 0.0)
    M = np.zeros((1, 6 * n + k, 6 * n + k))
    KERNELS.mass(X[None], u, R, p, 1, M)
    T = sla.block_diag(*([Q] * (2 * n)), np.eye(k))
    assert np.abs(M[0] - T @ Mr @ T.T).max() <= 1e-13 * np.abs(Mr).max()


def geometric_stiffness(X, u, R, p, s):
    m = u.shape[1]
    Kg = np.ones((1, m, m))
    KERNELS.geometric_stiffness(X[None], u, R, p, s[None], Kg)
    return Kg[0]


def test_geometric_stiffness_is_zero_without_a_geometric_tensor():
    n, k = 2, 1
    X, _, _, p = reduced_body(n, k)
    m = 6 * n + k
    u, R = configuration(X, k, np.random.default_rng(6), rot([0.4, 0.1, -0.3]), np.zeros(3), 0.1)
    assert not geometric_stiffness(X, u, R, p, np.ones(m)).any()


@pytest.mark.parametrize("n, k", SIZES)
def test_resultants_are_the_deformational_vector(n, k):
    """resultants = d = [ū_a, θ̄_a, q] (numpy reference) on a large rigid motion plus a
    deformation; one name per entry."""
    X, _, _, p = reduced_body(n, k)
    u, R = configuration(X, k, np.random.default_rng(7), rot([1.0, 0.5, -2.0]), np.array([1.0, 2.0, 3.0]), 0.3)
    s = np.zeros((1, 6 * n + k))
    KERNELS.resultants(X[None], u, R, p, s)
    assert np.abs(s[0] - reference_deformation(X, u, R, k)).max() <= 1e-12
    names = get_spec(f"superelement_{n}n_{k}q").resultant_names
    assert len(names) == 6 * n + k and len(set(names)) == len(names)


@pytest.mark.parametrize("n, k", SIZES)
def test_geometric_stiffness_turns_with_the_body(n, k):
    """With a geometric tensor G (m, m, m) in the row: K_G = Σ_j s_j G_j at the reference
    and T (Σ_j s_j G_j) Tᵀ, T = blockdiag(Q, …, Q, I_k), after a large rigid motion (Q, t)
    of the boundary (the shadow frame is Q exactly); linear in s."""
    X, _, _, p = reduced_body(n, k)
    m = 6 * n + k
    rng = np.random.default_rng(8)
    G = rng.normal(size=(m, m, m))
    G = G + G.transpose(0, 2, 1)
    pg = superelement_row(*reduced_body(n, k)[1:3], G)[None]
    s = rng.normal(size=m)
    expected = np.tensordot(s, G, axes=1)
    u0, R0 = configuration(X, k, rng, np.eye(3), np.zeros(3), 0.0)
    assert np.abs(geometric_stiffness(X, u0, R0, pg, s) - expected).max() <= 1e-13 * np.abs(expected).max()
    Q = rot([0.7, -1.9, 1.1])
    u, R = configuration(X, k, rng, Q, np.array([3.0, -1.0, 2.0]), 0.0)
    T = sla.block_diag(*([Q] * (2 * n)), np.eye(k))
    Kg = geometric_stiffness(X, u, R, pg, s)
    assert np.abs(Kg - T @ expected @ T.T).max() <= 1e-12 * np.abs(expected).max()
    assert np.abs(geometric_stiffness(X, u, R, pg, 2.5 * s) - 2.5 * Kg).max() <= 1e-12 * np.abs(Kg).max()


def test_single_node_frame_is_the_node_rotation():
    """One interface node: the shadow frame is the node's own rotation, exactly, so the
    node's deformational entries vanish exactly and d carries only the modal amplitudes; the
    polar factor of the same B = ℓ² R agrees to round-off."""
    X, _, _, _ = reduced_body(1, 2)
    u, R = configuration(X, 2, np.random.default_rng(5), rot([1.0, 0.5, -2.0]), np.array([1.0, 2.0, 3.0]), 0.3)
    Xt, Y, th, d = np.zeros((1, 3)), np.zeros((1, 3)), np.zeros((1, 3)), np.zeros(8)
    Rb, Rs = np.zeros((1, 3, 3)), np.zeros((3, 3))
    o, w = deformation(X[None], u, R, 0, Xt, Y, Rb, Rs, th, d)
    assert np.array_equal(Rs, R[0, 0])
    assert np.all(d[:6] == 0.0) and np.array_equal(d[6:], u[0, 6:])
    assert np.array_equal(o, X[0] + u[0, :3]) and w == 1.0
    Rp = np.zeros((3, 3))
    _polar(R[0, 0].copy(), Rp)
    assert np.abs(Rp - R[0, 0]).max() <= 1e-15

