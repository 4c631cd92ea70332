"""The chord-turning update of Newton corrections (femb.solvers.nonlinear.chord_update)."""
import numpy as np
import pytest
from scipy.linalg import expm

from femb.correlation import build_table
from femb.solvers.nonlinear.chord_update import ChordUpdate, chord_edges
from femb.validation.models import cantilever, cantilever3d, two_bar_arch
from femb.validation.shell_models import strip


def _hat(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def _translations(table, dim):
    return np.array([[table.var_of(i, n) for n in ("ux", "uy", "uz")[:dim]] for i in range(table.node_var.shape[0])])


def _rigid_turn_increment(model, table, omega):
    """(du (n_var,), exact turned u (n_var,)) of a rigid turn ω about the origin (a pinned
    node) from the reference state: du = ω × X is the linear increment, exp(ω̂) X
    − X the exact one; 3-D rotational slots get the spin ω."""
    dim = table.dim
    X = np.asarray(model.mesh.points, dtype=float)[:, :dim]
    tv = _translations(table, dim)
    du, exact = np.zeros(table.n_var), np.zeros(table.n_var)
    if dim == 2:
        c, s = np.cos(omega), np.sin(omega)
        lin = omega * np.column_stack([-X[:, 1], X[:, 0]])
        turned = X @ np.array([[c, s], [-s, c]]) - X
    else:
        lin = np.cross(omega, X)
        turned = X @ expm(_hat(omega)).T - X
        for i in range(X.shape[0]):
            for k, n in enumerate(("rx", "ry", "rz")):
                du[table.var_of(i, n)] = omega[k]
    du[tv] = lin
    exact[tv] = turned
    free = table.var_eq >= 0
    du[~free] = 0.0
    exact[~free] = 0.0
    return du, exact


@pytest.mark.parametrize("dim", [2, 3])
def test_a_rigid_turn_of_a_clamped_chain_is_placed_exactly(dim):
    """The linear increment ω × X of a finite rigid turn (1.2 rad) about the pinned root
    stretches every chord by 1/cos-like factors; turned, the chords keep their lengths and
    the nodes land on exp(ω̂) X exactly."""
    model = cantilever(6) if dim == 2 else cantilever3d(6)
    model.fixed.clear()
    model.fix("beam_start", ("ux", "uy", "uz")[:dim])  # a pin: the root turns with the chain
    table = build_table(model)
    omega = 1.2 if dim == 2 else np.array([0.3, -0.8, 0.7])
    du, exact = _rigid_turn_increment(model, table, omega)
    chords = ChordUpdate(table, model.mesh.points)
    u = chords.apply(np.zeros(table.n_var), du)
    tv = _translations(table, dim)
    assert np.abs(u[tv] - exact[tv]).max() < 1e-13
    assert np.abs((du - exact)[tv]).max() > 0.1  # the linear update is far off
    transverse = abs(omega) if dim == 2 else np.linalg.norm(omega[1:])  # the chords lie along x
    assert chords.turn(np.zeros(table.n_var), du) == pytest.approx(transverse, rel=1e-12)


def test_shell_edges_turn_with_the_mean_spin_of_their_nodes():
    """A strip of shell triangles turned rigidly about an axis oblique to every edge: the
    diagonal edges turn about the full axis, not only by their transverse part."""
    _, model = strip(4, 2, L=4.0, b=1.0)
    model.fixed.clear()
    model.fix(0, ("ux", "uy", "uz"))  # the corner at the origin, the centre of the turn
    table = build_table(model)
    omega = np.array([0.2, 0.9, -0.4])
    du, exact = _rigid_turn_increment(model, table, omega)
    u = ChordUpdate(table, model.mesh.points).apply(np.zeros(table.n_var), du)
    tv = _translations(table, 3)
    assert np.abs(u[tv] - exact[tv]).max() < 1e-13


def test_the_update_agrees_with_the_linear_one_to_first_order():
    """From a bent state, u + ε d and the turned update differ by O(ε²) (ratio 4 when ε
    halves): Newton's quadratic convergence is kept."""
    model = cantilever3d(5)
    table = build_table(model)
    rng = np.random.default_rng(3)
    u = np.where(table.var_eq >= 0, 0.05 * rng.standard_normal(table.n_var), 0.0)
    d = np.where(table.var_eq >= 0, rng.standard_normal(table.n_var), 0.0)
    chords = ChordUpdate(table, model.mesh.points)
    gaps = [np.abs(chords.apply(u, eps * d) - (u + eps * d)).max() for eps in (1e-2, 5e-3, 2.5e-3)]
    assert gaps[0] / gaps[1] == pytest.approx(4.0, rel=0.05) and gaps[1] / gaps[2] == pytest.approx(4.0, rel=0.05)


def test_fixed_translations_stay_and_edges_are_listed_once():
    model = two_bar_arch()
    table = build_table(model)
    a, b = chord_edges(table)
    assert sorted(zip(a.tolist(), b.tolist())) == [(0, 1), (1, 2)]
    d = np.zeros(table.n_var)
    apex = model.node("apex")
    d[table.var_of(apex, "uy")] = -0.3
    u = ChordUpdate(table, model.mesh.points).apply(np.zeros(table.n_var), d)
    assert np.all(u[table.var_eq < 0] == 0.0)  # supports and the guided apex x stay
    _, model3 = strip(3, 1)
    a3, b3 = chord_edges(build_table(model3))
    assert len(set(zip(a3.tolist(), b3.tolist()))) == a3.size == 6 + 4 + 3  # along, across, diagonals


def test_compiled_planar_chord_rest_equals_the_array_formula():
    """The compiled planar pass of ``ChordUpdate.apply``: each chord turned by (e × d)/|c|
    and stretched by e·d, minus c + d — the array formula entry for entry (bitwise), zero
    for a chord of zero length."""
    from femb.solvers.nonlinear.chord_update import _planar_rest

    rng = np.random.default_rng(0)
    m, nv = 50, 200
    X21, u, du = rng.normal(size=(m, 2)), 0.1 * rng.normal(size=nv), 0.1 * rng.normal(size=nv)
    va, vb = rng.integers(0, nv, (m, 2)), rng.integers(0, nv, (m, 2))
    X21[3] = -(u[vb[3]] - u[va[3]])  # a chord of zero length
    rest = np.empty((m, 2))
    _planar_rest(X21, u, du, va, vb, rest)
    c, d = X21 + u[vb] - u[va], du[vb] - du[va]
    length = np.sqrt(np.einsum("ij,ij->i", c, c))
    ok = length > 0.0
    e = np.zeros_like(c)
    e[ok] = c[ok] / length[ok, None]
    ang = (e[:, 0] * d[:, 1] - e[:, 1] * d[:, 0]) * np.where(ok, 1.0 / np.where(ok, length, 1.0), 0.0)
    turned = np.column_stack([np.cos(ang) * e[:, 0] - np.sin(ang) * e[:, 1], np.sin(ang) * e[:, 0] + np.cos(ang) * e[:, 1]])
    expected = (length + np.einsum("ij,ij->i", e, d))[:, None] * turned - (c + d)
    expected[~ok] = 0.0
    assert not ok.all() and np.array_equal(rest, expected)


def test_chord_edges_of_scrambled_repeated_and_reversed_cells_equal_the_sorted_unique_pairs():
    """Each chord once, as (lower, higher) node, in lexicographic order, whatever the order
    and orientation of the cells (the shortcut for cells already in that order too)."""
    from femb.mesh import CellBlock, Mesh
    from femb.model import Model

    rng = np.random.default_rng(2)
    pts = np.column_stack([rng.random(9), rng.random(9)])
    ordered = np.column_stack([np.arange(8), np.arange(1, 9)])
    scrambled = np.vstack([ordered[rng.permutation(8)], ordered[[2, 5]][:, ::-1]])
    for cells in (ordered, scrambled):
        model = Model(Mesh(pts, {"b": CellBlock("line", cells)}))
        model.add_part("b", "beam2d", "b", values=dict(EA=1.0, EI=1.0, rhoA=1.0, rhoI=0.0))
        a, b = chord_edges(build_table(model))
        assert a.dtype == b.dtype == np.int64
        assert list(zip(a.tolist(), b.tolist())) == [(i, i + 1) for i in range(8)]
