"""The numbers of femb.correlation.build_table against plain references, on models with and
without ties, prescribed DOFs, element-internal variables, several parts, scrambled node
numbers, shells (triangles and quadrilaterals), a rigid body with joints and a welded 3-D
frame: the representative (node, DOF) of each variable, the fixed variables, the
equation order (scipy's public reverse Cuthill–McKee of the unrenumbered pattern), its
inverse ``eq_var``, the CSR pattern and scatter positions (sorted-pair reference); the
shortcuts for models without ties or internal variables and scipy's ordering kernel give
the numbers of the general path."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

from femb.core.errors import ModelError
from femb.correlation import build_table
from femb.correlation import pattern as pattern_module
from femb.mesh import CellBlock, Mesh, line_mesh, rectangle_mesh
from femb.model import Material, Model, Section
from tests.correlation.test_internal_variables import internal_bar
from tests.framework.test_correlation_pattern import reference
from tests.solvers.test_shells_in_mechanisms import hinged_plate

STEEL = Material(E=210e9, nu=0.3, rho=7850.0)
SEC = Section(A=1e-3, I=1e-7, Iy=1e-7, Iz=2e-7, J=1e-7)


def chain_2d(n=10):
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), n, "beam"))
    model.add_part("beam", "beam2d_timoshenko", "beam", values=dict(EA=1e4, EI=1.0, GAs=1e4, rhoA=1.0, rhoI=1e-3))
    model.fix("beam_start")
    model.point_load("beam_end", mz=1.0)
    return model


def scrambled_3d(n=9, seed=0):
    """A 3-D beam3d chain whose node numbers are a random permutation of the order along
    it, clamped at one end, a DOF prescribed at the other end and one fixed twice."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(n + 1)  # order[k]: node number of the k-th point along the chain
    pts = np.zeros((n + 1, 3))
    pts[order, 0] = np.linspace(0.0, 1.0, n + 1)
    cells = np.column_stack([order[:-1], order[1:]])
    mesh = Mesh(pts, {"b": CellBlock("line", cells)}, {"root": [order[0]], "tip": [order[-1]], "mid": [order[n // 2]] * 2})
    model = Model(mesh, dim=3)
    model.add_part("b", "beam3d", "b", STEEL, SEC)
    model.fix("root")
    model.fix("mid", ("uz",))
    model.prescribe("tip", "ux", 0.01)
    return model


def pinned_frame():
    """Two 2-D beam members meeting at coincident nodes pinned together (a tie) and a
    truss part sharing nodes: ties, several parts, DOFs some nodes lack."""
    pts = np.array([[0.0, 0.0], [0.5, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 0.5], [1.0, 1.0], [0.0, 1.0]])
    mesh = Mesh(pts, {"a": CellBlock("line", np.array([[0, 1], [1, 2]])), "b": CellBlock("line", np.array([[3, 4], [4, 5]])),
                      "t": CellBlock("line", np.array([[5, 6]]))}, {"left": [0], "top": [6], "ja": [2], "jb": [3]})
    model = Model(mesh)
    model.add_part("a", "beam2d", "a", STEEL, SEC)
    model.add_part("b", "beam2d", "b", STEEL, SEC)
    model.add_part("t", "truss2d", "t", STEEL, SEC)
    model.fix("left")
    model.fix("top", ("ux", "uy", "rz"))  # rz: a DOF the truss node does not carry
    model.pin("ja", "jb")
    return model


def shell_strip():
    """A shell3 strip clamped along one edge, a displacement prescribed at the other."""
    model = Model(rectangle_mesh(0.6, 0.2, 6, 2, cells="triangle"))
    model.add_part("plate", "shell3", "plate", STEEL, Section(thickness=0.004))
    model.fix("plate_x0", "all")
    model.prescribe("plate_x1", "uz", 0.01)
    return model


def welded_frame():
    """Two 3-D beam members meeting at coincident nodes welded together (all six DOFs tied)
    and a third pinned to the second (translations tied), one end clamped."""
    pts = np.array([[0, 0, 0], [0.5, 0, 0], [1, 0, 0], [1, 0, 0], [1, 0.5, 0], [1, 1, 0], [1, 1, 0], [1, 1, 0.5]], dtype=float)
    mesh = Mesh(pts, {"a": CellBlock("line", np.array([[0, 1], [1, 2]])), "b": CellBlock("line", np.array([[3, 4], [4, 5]])),
                      "c": CellBlock("line", np.array([[6, 7]]))}, {"root": [0], "ja": [2], "jb": [3], "ka": [5], "kb": [6]})
    model = Model(mesh, dim=3)
    for name in "abc":
        model.add_part(name, "beam3d", name, STEEL, SEC)
    model.fix("root")
    model.weld("ja", "jb")
    model.tie("ka", "kb", ("ux", "uy", "uz"))
    return model


MODELS = {"chain 2-D": lambda mp: chain_2d(), "long chain 2-D": lambda mp: chain_2d(60), "scrambled 3-D": lambda mp: scrambled_3d(),
          "scrambled 3-D, seed 1": lambda mp: scrambled_3d(14, 1), "pinned frame": lambda mp: pinned_frame(),
          "internal variables": internal_bar, "shell3 strip": lambda mp: shell_strip(),
          "shell4 plate, rigid frame, revolute joints": lambda mp: hinged_plate("joints"), "welded 3-D frame": lambda mp: welded_frame()}


def representatives(node_var):
    """(var_node, var_dof) of the nodal variables: the first (node, DOF) of each in node order."""
    n_nodal = int(node_var.max()) + 1
    var_node, var_dof = np.full(n_nodal, -1), np.full(n_nodal, -1)
    for node, dof in zip(*np.nonzero(node_var >= 0)):
        v = node_var[node, dof]
        if var_node[v] < 0:
            var_node[v], var_dof[v] = node, dof
    return var_node, var_dof


@pytest.mark.parametrize("name", sorted(MODELS))
def test_table_numbers_equal_the_plain_references(name, monkeypatch):
    model = MODELS[name](monkeypatch)
    t = build_table(model)
    plain = build_table(model, renumber=False)
    names = model.dof_names
    # variables: representatives, and the internal ones after the nodal ones
    var_node, var_dof = representatives(t.node_var)
    assert np.array_equal(t.var_node[:t.n_nodal], var_node) and np.array_equal(t.var_dof[:t.n_nodal], var_dof)
    assert np.all(t.var_node[t.n_nodal:] == -1) and np.all(t.var_dof[t.n_nodal:] == -1)
    assert np.array_equal(t.var_block < 0, np.arange(t.n_var) < t.n_nodal)
    # fixed variables: every carried DOF of the supports, once, sorted
    fixed = {int(t.node_var[node, names.index(d)]) for rec in model.fixed for node in model.nodes(rec.nodes) for d in rec.dofs}
    assert t.fixed_vars.tolist() == sorted(v for v in fixed if v >= 0)
    # equations: the free variables in order, renumbered by scipy's public reverse Cuthill–McKee
    constrained = set(t.fixed_vars.tolist()) | {int(v) for vs, _ in t.prescribed for v in vs}
    assert np.array_equal(np.flatnonzero(plain.var_eq >= 0), [v for v in range(t.n_var) if v not in constrained])
    assert np.array_equal(plain.var_eq[plain.var_eq >= 0], np.arange(plain.n_eq))
    graph = sp.csr_matrix((np.ones(plain.nnz, dtype=np.int8), plain.indices, plain.indptr), shape=(plain.n_eq, plain.n_eq))
    perm = np.asarray(reverse_cuthill_mckee(graph, symmetric_mode=True), dtype=np.int64)
    new_of_old = np.empty_like(perm)
    new_of_old[perm] = np.arange(perm.size)
    free = plain.var_eq >= 0
    assert np.array_equal(t.var_eq[free], new_of_old[plain.var_eq[free]]) and np.all(t.var_eq[~free] == -1)
    for table in (t, plain):  # eq_var: the inverse of var_eq
        assert np.array_equal(table.eq_var, np.flatnonzero(table.var_eq >= 0)[np.argsort(table.var_eq[table.var_eq >= 0])])
    # pattern and scatter positions of the element blocks
    for table in (t, plain):
        indptr, indices, positions = reference(table.n_eq, [b.eq for b in table.blocks])
        assert np.array_equal(table.indptr, indptr) and np.array_equal(table.indices, indices)
        for block, pos in zip(table.blocks, positions):
            assert np.array_equal(block.eq, np.where(block.var >= 0, table.var_eq[block.var], -1))
            assert np.array_equal(block.pos, pos)
            assert block.props.flags.writeable and block.props.flags.c_contiguous
            row = block.spec.property_row(model.parts[block.part].material, model.parts[block.part].section, model.parts[block.part].values)
            assert np.array_equal(block.props, np.tile(row, (block.n_elements, 1)))


@pytest.mark.parametrize("seed", range(8))
def test_compiled_ordering_is_scipys_reverse_cuthill_mckee(seed):
    """The compiled reverse Cuthill–McKee order equals scipy's public function on random
    patterns: several connected components, isolated equations (rows without entries, no
    diagonal), many equal degrees (ties broken as scipy breaks them) and long rows."""
    rng = np.random.default_rng(seed)
    for _ in range(25):
        n_eq = int(rng.integers(1, 150))
        blocks = [np.ascontiguousarray(rng.integers(-1, n_eq, (int(rng.integers(0, n_eq)), int(rng.integers(1, 7)))), dtype=np.int64)]
        if rng.random() < 0.3:  # a chain of two-node "elements" (equal degrees along it)
            k = np.arange(0, n_eq - 1, dtype=np.int64)
            blocks.append(np.ascontiguousarray(np.column_stack([k, k + 1])))
        indptr, indices, _, _ = pattern_module._pattern(n_eq, blocks)
        graph = sp.csr_matrix((np.ones(indices.size, dtype=np.int8), indices, indptr), shape=(n_eq, n_eq))
        expected = np.asarray(reverse_cuthill_mckee(graph, symmetric_mode=True), dtype=np.int64)
        assert np.array_equal(pattern_module._rcm(n_eq, indptr, indices), expected)


@pytest.mark.parametrize("seed", range(4))
def test_positions_kernel_is_the_binary_search_of_every_entry(seed):
    """``_positions`` (the guess from the previous column, else a binary search) gives, for
    every pair of a group, the binary search's answer: the entry's position, or where the
    column would be inserted in its row when the pattern lacks it (-1 for a constrained
    row or column). Groups with runs of consecutive equations up and down (the guess right),
    repeated, constrained and uncoupled equations (the guess wrong or out of the row)."""
    rng = np.random.default_rng(seed)
    n_eq = int(rng.integers(20, 200))
    blocks = [np.ascontiguousarray(rng.integers(-1, n_eq, (60, 4)), dtype=np.int64)]
    k = np.arange(0, n_eq - 2, 3, dtype=np.int64)  # three consecutive equations per "node", chained
    blocks.append(np.ascontiguousarray(np.column_stack([k, k + 1, k + 2, k + 3, k + 4, k + 5])[:-1]))
    indptr, indices, _ = pattern_module.csr_pattern(n_eq, blocks)
    start = rng.integers(0, n_eq - 6, 50)
    runs = start[:, None] + np.arange(6)
    groups = [blocks[1], blocks[1][:, ::-1].copy(), runs, runs[:, ::-1].copy(), np.where(rng.random(runs.shape) < 0.2, -1, runs),
              rng.integers(-1, n_eq, (80, 7)), np.repeat(rng.integers(0, n_eq, (30, 2)), 3, axis=1)]
    for eq in groups:
        eq = np.ascontiguousarray(eq, dtype=np.int64)
        pos = np.empty(eq.shape + (eq.shape[1],), dtype=pattern_module.INDEX)
        pattern_module._positions(eq, indptr, indices, pos)
        expected = np.full(pos.shape, -1, dtype=np.int64)
        for a, i, j in np.ndindex(*pos.shape):
            r, c = eq[a, i], eq[a, j]
            if r >= 0 and c >= 0:
                expected[a, i, j] = indptr[r] + np.searchsorted(indices[indptr[r]:indptr[r + 1]], c)
        assert np.array_equal(pos, expected)
    assert any(np.any(pattern_module.entry_positions(eq, indptr, indices) < 0) for eq in groups[4:])  # some pairs are absent


@pytest.mark.parametrize("name", ["scrambled 3-D", "welded 3-D frame", "shell4 plate, rigid frame, revolute joints"])
def test_entry_positions_find_the_pattern_entries_and_mark_the_missing_ones(name, monkeypatch):
    """``entry_positions`` of groups of equations (each block's element equations, and
    random groups with constrained and uncoupled pairs) against a scipy lookup in a matrix
    of the pattern whose data are the positions + 1; ``kernel_pattern`` shares the table's
    memory and the public pattern arrays stay read-only."""
    t = build_table(MODELS[name](monkeypatch))
    P = sp.csr_matrix((np.arange(1, t.nnz + 1), t.indices, t.indptr), shape=(t.n_eq, t.n_eq))
    rng = np.random.default_rng(0)
    groups = [b.eq for b in t.blocks] + [rng.integers(-1, t.n_eq, size=(40, 3))]
    for eq in groups:
        r = np.broadcast_to(eq[:, :, None], (eq.shape[0], eq.shape[1], eq.shape[1]))
        c = np.broadcast_to(eq[:, None, :], r.shape)
        ok = (r >= 0) & (c >= 0)
        expected = np.full(r.shape, -1, dtype=np.int64)
        if ok.any():
            expected[ok] = np.asarray(P[r[ok], c[ok]]).ravel() - 1
        assert np.array_equal(t.entry_positions(eq), expected)
    assert (np.asarray(P[groups[-1][:, 0], groups[-1][:, 1]]) == 0).any()  # some random pairs are not in the pattern
    indptr, indices = t.kernel_pattern()
    assert np.shares_memory(indices, t.indices) and np.shares_memory(indptr, t.indptr) and indices.flags.writeable
    assert not t.indices.flags.writeable and not t.indptr.flags.writeable


@pytest.mark.parametrize("name", ["long chain 2-D", "scrambled 3-D", "shell4 plate, rigid frame, revolute joints"])
def test_int32_pattern_is_shared_with_the_tables_matrices(name, monkeypatch):
    """The pattern (indptr, indices) and every block's positions are int32; the table's CSR
    matrices use the table's read-only index arrays themselves (no copy); ``entry_rows`` is
    the row of each entry, as scipy's COO form of such a matrix gives it."""
    t = build_table(MODELS[name](monkeypatch))
    assert t.indptr.dtype == t.indices.dtype == np.int32
    assert all(b.pos.dtype == np.int32 for b in t.blocks)
    assert t.entry_positions(t.blocks[0].eq).dtype == np.int32
    data = np.arange(1.0, t.nnz + 1.0)
    K = t.csr(data)
    assert np.shares_memory(K.indices, t.indices) and np.shares_memory(K.indptr, t.indptr) and np.shares_memory(K.data, data)
    assert not K.indices.flags.writeable and not K.indptr.flags.writeable
    coo = K.tocoo()
    assert t.entry_rows().dtype == np.int64 and np.array_equal(t.entry_rows(), coo.row) and np.array_equal(t.indices, coo.col)
    assert np.array_equal(pattern_module.csr_rows(t.indptr), t.entry_rows())


def test_pattern_beyond_int32_is_an_error_naming_its_size(monkeypatch):
    """int32 indices and positions address 2³¹ − 1 entries: a larger pattern (or more
    equations) is a ModelError that names the size. The check itself on sizes of 2³¹, and
    the build of a small model with the limit lowered below its nnz (nothing of 2³¹ entries
    is allocated)."""
    pattern_module.check_index_range(10, 2**31 - 1)  # the largest pattern that fits
    with pytest.raises(ModelError, match="2,147,483,648 entries over 10 equations"):
        pattern_module.check_index_range(10, 2**31)
    with pytest.raises(ModelError, match="0 entries over 2,147,483,648 equations"):
        pattern_module.check_index_range(2**31, 0)
    model = scrambled_3d()
    nnz = build_table(model).nnz
    monkeypatch.setattr(pattern_module, "MAX_ENTRIES", nnz)
    assert build_table(model).nnz == nnz and build_table(model, renumber=False).nnz == nnz
    monkeypatch.setattr(pattern_module, "MAX_ENTRIES", nnz - 1)
    for renumber in (True, False):
        with pytest.raises(ModelError, match=f"{nnz:,} entries"):
            build_table(model, renumber=renumber)


@pytest.mark.parametrize("order", ["along", "reversed", "shuffled"])
def test_coincident_check_finds_the_same_pairs_in_any_node_order(order):
    """Two 3-D beam spans meeting at coincident but unconnected nodes: the pair is named
    whether the node numbers follow the line (projections already sorted, the sort-free
    shortcut must not hide a zero gap), run against it or are shuffled; one span alone has
    no pair."""
    from femb.correlation.table import coincident_unconnected_nodes

    x = np.concatenate([np.linspace(0.0, 0.5, 6), np.linspace(0.5, 1.0, 6)])
    number = {"along": np.arange(12), "reversed": np.arange(12)[::-1],
              "shuffled": np.random.default_rng(3).permutation(12)}[order]  # number[k]: node of the k-th point
    pts = np.zeros((12, 3))
    pts[number, 0] = x
    cells_a = np.column_stack([number[:5], number[1:6]])
    cells_b = np.column_stack([number[6:11], number[7:12]])
    mesh = Mesh(pts, {"a": CellBlock("line", cells_a), "b": CellBlock("line", cells_b)}, {"root": [int(number[0])]})
    model = Model(mesh, dim=3)
    model.add_part("a", "beam3d", "a", STEEL, SEC)
    model.add_part("b", "beam3d", "b", STEEL, SEC)
    model.fix("root")
    t = build_table(model, renumber=False)
    used = np.ones(12, dtype=bool)
    assert coincident_unconnected_nodes(model, t.node_var, pts, used) == [tuple(sorted((int(number[5]), int(number[6]))))]
    used[number[6:]] = False  # span a only
    assert coincident_unconnected_nodes(model, t.node_var, pts, used) == []
