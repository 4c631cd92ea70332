"""Mesh generators, model validation and the correlation table."""
import numpy as np
import pytest

from femb.core.errors import InputError, ModelError
from femb.correlation import build_table
from femb.mesh import CellBlock, Mesh, line_mesh, polyline_mesh
from femb.model import Material, Model, Section

STEEL = Material(E=210e9, nu=0.3, rho=7850.0, name="steel")
SEC = Section(A=1e-3, I=1e-7, name="bar")


def beam_model(n=4, element="beam2d"):
    mesh = line_mesh((0.0, 0.0), (2.0, 0.0), n, "beam")
    model = Model(mesh)
    model.add_part("beam", element, "beam", STEEL, SEC)
    model.fix("beam_start")
    return model


def test_polyline_mesh_sets_and_lengths():
    mesh = polyline_mesh([(0, 0), (1, 0), (1, 2)], [2, 4], "frame")
    assert mesh.n_nodes == 7
    assert mesh.cells["frame"].connectivity.shape == (6, 2)
    assert mesh.node(mesh.node_sets["frame_v1"]) == 2
    assert np.allclose(mesh.points[mesh.node("frame_end")], (1, 2))
    seg = np.linalg.norm(np.diff(mesh.points, axis=0), axis=1)
    assert np.allclose(seg, [0.5, 0.5, 0.5, 0.5, 0.5, 0.5])


def test_mesh_rejects_nan_and_out_of_range():
    with pytest.raises(InputError, match="non-finite coordinates at node"):
        Mesh(np.array([[0.0, 0.0], [np.nan, 1.0]]))
    with pytest.raises(InputError, match="references nodes outside"):
        Mesh(np.zeros((2, 2)), node_sets={"a": np.array([5])})


def test_mesh_merge_with_tolerance_joins_coincident_nodes():
    a = line_mesh((0, 0), (1, 0), 2, "a")
    b = line_mesh((1, 0), (1, 1), 2, "b")
    m = Mesh.merge(a, b, tolerance=1e-9)
    assert m.n_nodes == 5
    assert m.node("a_end") == m.node("b_start")


def test_validate_reports_every_problem_at_once():
    mesh = line_mesh((0.0, 0.0), (1.0, 0.0), 2, "beam")
    model = Model(mesh)
    model.add_part("p1", "beam2d", "nope", STEEL, SEC)
    model.add_part("p2", "beam2d", "beam", Material(E=-1.0), Section(A=0.0, I=1.0))
    model.add_part("p3", "no_such_element", "beam", STEEL, SEC)
    model.fix("missing_set")
    model.point_load("beam_end", fz=1.0)
    with pytest.raises(ModelError) as err:
        model.validate()
    msg = str(err.value)
    for fragment in ("unknown cell set 'nope'", "E must be > 0", "A must be > 0", "unknown element type 'no_such_element'",
                     "unknown set 'missing_set'", "unknown load component 'uz'"):
        assert fragment in msg, f"missing {fragment!r} in:\n{msg}"
    assert len(err.value.problems) >= 6


def test_validate_names_missing_section_property():
    mesh = line_mesh((0.0, 0.0), (1.0, 0.0), 2, "beam")
    model = Model(mesh)
    model.add_part("p", "beam2d", "beam", STEEL, Section(A=1.0))
    with pytest.raises(ModelError, match="part 'p'"):
        model.validate()


def test_table_numbers_free_dofs_only_and_ties_share_variables():
    model = beam_model(4)
    t = build_table(model)
    assert t.n_var == 5 * 3
    assert t.n_eq == 4 * 3
    assert set(t.var_eq[t.fixed_vars]) == {-1}
    assert sorted(t.var_eq[t.var_eq >= 0]) == list(range(12))
    # pin two coincident nodes of two members: translations shared, rotations separate
    a = line_mesh((0, 0), (1, 0), 1, "a")
    b = line_mesh((1, 0), (2, 0), 1, "b")
    mesh = Mesh.merge(a, b)
    model = Model(mesh)
    model.add_part("a", "beam2d", "a", STEEL, SEC)
    model.add_part("b", "beam2d", "b", STEEL, SEC)
    model.pin("a_end", "b_start")
    t = build_table(model)
    na, nb = mesh.node("a_end"), mesh.node("b_start")
    assert t.var_of(na, "ux") == t.var_of(nb, "ux") and t.var_of(na, "uy") == t.var_of(nb, "uy")
    assert t.var_of(na, "rz") != t.var_of(nb, "rz")
    assert t.n_var == 4 * 3 - 2


def test_csr_scatter_map_reproduces_dense_assembly():
    """Scattering element blocks through `pos` equals a dense reference assembly."""
    mesh = polyline_mesh([(0, 0), (1, 0), (1, 1), (0, 1)], [3, 2, 3], "frame")
    model = Model(mesh)
    model.add_part("frame", "beam2d", "frame", STEEL, SEC)
    model.fix("frame_start")
    model.prescribe("frame_end", "uy", 0.1)
    t = build_table(model)
    rng = np.random.default_rng(0)
    block = t.blocks[0]
    ke = rng.standard_normal((block.n_elements, 6, 6))
    data = t.new_matrix_data()
    from femb.core.scatter import scatter_matrix
    scatter_matrix(block.pos, ke, data)
    dense = np.zeros((t.n_eq, t.n_eq))
    for e in range(block.n_elements):
        for a in range(6):
            for b in range(6):
                i, j = block.eq[e, a], block.eq[e, b]
                if i >= 0 and j >= 0:
                    dense[i, j] += ke[e, a, b]
    assert np.allclose(t.csr(data).toarray(), dense)
    assert t.csr(data).has_sorted_indices


def test_renumbering_reduces_bandwidth():
    """Nodes numbered alternately from both ends give a wide band; RCM narrows it."""
    n = 60
    along = np.empty(n + 1, dtype=np.int64)  # node ids in geometric order: 0, n, 1, n-1, ...
    along[0::2] = np.arange((n + 2) // 2)
    along[1::2] = n - np.arange((n + 1) // 2)
    pts = np.zeros((n + 1, 2))
    pts[along, 0] = np.linspace(0.0, 1.0, n + 1)
    conn = np.column_stack([along[:-1], along[1:]])
    mesh = Mesh(pts, {"b": CellBlock("line", conn)})
    model = Model(mesh)
    model.add_part("b", "beam2d", "b", STEEL, SEC)

    def bandwidth(table):
        K = table.csr(np.ones(table.nnz)).tocoo()
        return int(np.max(np.abs(K.row - K.col)))

    assert bandwidth(build_table(model, renumber=True)) <= 5
    assert bandwidth(build_table(model, renumber=False)) > 50


def test_prescribing_a_fixed_dof_is_an_error():
    model = beam_model(2)
    model.prescribe("beam_start", "uy", 1.0)
    with pytest.raises(ModelError, match="already fixed or prescribed"):
        build_table(model)
