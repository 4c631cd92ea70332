"""The analytic Newton matrix of the superelement's mid-point step force
(elements.superelement_step.midpoint_step, elements.superelement_step_matrix) against
central differences of the force (midpoint_step_central), on random large rigid motions plus
deformation, random point velocities and random increments of every coordinate: two-node
bodies (frame terms included) and one-node bodies (purely analytic), with and without the
geometric tensor G, with second-order (foreshortening) point rows and with gravity; step
sizes from where inertia dominates (2M/h²) to where stiffness and the frame terms do."""
import numpy as np
import pytest

from femb.core.rotations import cayley_spin_jacobian
from femb.elements.superelement import superelement_row
from femb.elements.superelement_step import midpoint_step, midpoint_step_central, midpoint_step_force
from femb.elements.superelement_step_matrix import cayley_inverse_map
from femb.solvers.reduction.component import reduce_component
from femb.validation.superelement_cases import rotation

from .test_superelement_dynamics import beam, random_step, reduced


def one_node(k):
    """A cantilever beam reduced on its root node alone (m = 6 + k)."""
    comp = beam(10)
    return reduce_component(comp, [comp.node("beam_start")], k, mass="lumped")


def geometric_tensor(m, rng, size):
    """A random geometric tensor G (m, m, m), each G_j symmetric."""
    G = size * rng.normal(size=(m, m, m))
    return 0.5 * (G + G.transpose(0, 2, 1))


def kernel_inputs(data, rng, modal, G=None, n=2):
    """The arguments of the step kernels for one element (random state and increment)."""
    m = data.K.shape[0]
    row = superelement_row(data.K, data.M, G, data.points, data.positions)
    if n == 2:
        X, u0, R0, v0, dz = random_step(data, rng, modal)
    else:
        X = np.asarray(data.positions, dtype=np.float64)[None].copy()
        Q = rotation(rng.normal(size=3))
        u0 = np.zeros((1, m))
        u0[0, :3] = 0.3 * rng.normal(size=3)
        R0 = Q[None, None].copy()
        u0[0, 6:] = modal * rng.normal(size=m - 6)
        v0 = rng.normal(size=(data.points.mass.size, 3))
        dz = 0.05 * rng.normal(size=m)
    psi = np.stack([dz[6 * a + 3: 6 * a + 6] for a in range(n)])[None]
    u1 = u0 + dz
    unused = np.zeros((1, n, 3, 3))
    return (X, u0, R0, u1, unused, u0.copy(), unused, psi, unused, row[None]), v0[None], m


def matrices(args, v0, m, h, grav):
    f_a, K_a = np.zeros((1, m)), np.zeros((1, m, m))
    f_c, K_c = np.zeros((1, m)), np.zeros((1, m, m))
    f_0 = np.zeros((1, m))
    midpoint_step(*args, h, grav, v0, f_a, K_a)
    midpoint_step_central(*args, h, grav, v0, f_c, K_c)
    midpoint_step_force(*args, h, grav, v0, f_0)
    assert np.array_equal(f_a, f_c) and np.array_equal(f_a, f_0)  # the force does not depend on the matrix path
    return K_a[0], K_c[0]


def relative_error(K_a, K_c):
    return np.abs(K_a - K_c).max() / np.abs(K_c).max()


def test_cayley_inverse_map_inverts_the_spin_map():
    rng = np.random.default_rng(0)
    for _ in range(5):
        phi = rng.normal(size=3)
        T, Ti = np.zeros((3, 3)), np.zeros((3, 3))
        cayley_spin_jacobian(phi, T)
        cayley_inverse_map(phi, Ti)
        assert np.abs(Ti @ T - np.eye(3)).max() <= 1e-14


@pytest.mark.parametrize("h", [0.05, 2.0])
@pytest.mark.parametrize("case", ["plain", "geometric+gravity", "foreshortening", "foreshortening+geometric+gravity"])
def test_two_node_step_matrix_equals_central_differences(case, h):
    """Two interface nodes, k = 3: the analytic matrix (with the frame's second-order terms)
    equals the central differences of the force to 1e-7 of its largest entry; the
    stiffness-and-frame part alone (the matrix minus its inertia at h = 0.05) is checked
    by the large step h = 2, where 2M/h² no longer dominates."""
    rng = np.random.default_rng(11)
    rc = reduced(3)
    data = rc.superelement(foreshortening="foreshortening" in case)
    m = data.K.shape[0]
    G = geometric_tensor(m, rng, 50.0) if "geometric" in case else None
    grav = np.array([0.0, -9.81, 2.0]) if "gravity" in case else np.zeros(3)
    for _ in range(3):
        args, v0, m = kernel_inputs(data, rng, 0.05, G)
        K_a, K_c = matrices(args, v0, m, h, grav)
        assert relative_error(K_a, K_c) <= 1e-7


@pytest.mark.parametrize("h", [0.05, 2.0])
@pytest.mark.parametrize("case", ["plain", "geometric+gravity", "foreshortening"])
def test_one_node_step_matrix_is_exact_without_frame_terms(case, h):
    """One interface node: the frame is the node's, D̄ and Φ̄ are constant, and the analytic
    matrix alone equals the central differences to 1e-7."""
    rng = np.random.default_rng(5)
    data = one_node(3).superelement(foreshortening=case == "foreshortening")
    m = data.K.shape[0]
    G = geometric_tensor(m, rng, 50.0) if "geometric" in case else None
    grav = np.array([0.0, -9.81, 2.0]) if "gravity" in case else np.zeros(3)
    for _ in range(3):
        args, v0, m = kernel_inputs(data, rng, 0.05, G, n=1)
        K_a, K_c = matrices(args, v0, m, h, grav)
        assert relative_error(K_a, K_c) <= 1e-7


def test_point_state_and_velocity_moments_of_the_matrix_path_equal_the_point_loop():
    """The linear point map evaluated by matrix products over the points (point_state
    without second-order rows, _velocity_moments) equals the point-by-point loop (the same
    row with zero second-order rows) and the numpy sums."""
    from femb.elements.superelement_step import _moments, _velocity_moments, point_state
    from femb.model.superelements import MassPoints

    rng = np.random.default_rng(2)
    data = reduced(3).superelement()
    pts = data.points
    k = data.K.shape[0] - 12
    zero2 = MassPoints(pts.mass, pts.positions, pts.modes, np.zeros((pts.mass.size, 3, k, k)))
    rows = [superelement_row(data.K, data.M, None, p, data.positions) for p in (pts, zero2)]
    args, _, m = kernel_inputs(data, rng, 0.05)
    X, u0, R0 = args[0], args[1], args[2]
    v = rng.normal(size=(1, m))
    out = []
    for row in rows:
        xs, vs = np.zeros((1, pts.mass.size, 3)), np.zeros((1, pts.mass.size, 3))
        point_state(X, u0, R0, row[None], v, xs, vs)
        out.append((xs, vs))
    scale = np.abs(out[1][0]).max()
    assert np.abs(out[0][0] - out[1][0]).max() <= 1e-14 * scale
    assert np.abs(out[0][1] - out[1][1]).max() <= 1e-13 * np.abs(out[1][1]).max()
    v0 = rng.normal(size=(pts.mass.size, 3))
    origin = _moments(rows[0], m)[0]
    P0, V, Vd = np.zeros(3), np.zeros((3, 3)), np.zeros((3, m, 3))
    _velocity_moments(pts.mass, pts.positions, pts.modes, origin, v0, P0, V, Vd)
    mv = pts.mass[:, None] * v0
    assert np.abs(P0 - mv.sum(axis=0)).max() <= 1e-13 * np.abs(mv).sum()
    assert np.abs(V - (pts.positions - origin).T @ mv).max() <= 1e-13 * np.abs(mv).sum()
    assert np.abs(Vd - np.einsum("jpk,jl->pkl", pts.modes, mv)).max() <= 1e-13 * np.abs(mv).sum()
