"""read_mesh / write_mesh: every shipped format maps to named sets; round trips keep
points, cells and sets; bad files give InputError naming the file."""
import importlib.util

import meshio
import numpy as np
import pytest

from femb.core.errors import InputError
from femb.mesh import line_mesh
from femb.mesh.io import CELL_TYPES, read_mesh, write_mesh
from tests.io.conftest import MESHES

HAS_H5PY = importlib.util.find_spec("h5py") is not None


def sets_of(mesh):
    return (
        {k: (b.cell_type, b.connectivity.tolist()) for k, b in mesh.cells.items()},
        {k: sorted(v.tolist()) for k, v in mesh.node_sets.items()},
    )


def test_gmsh22_physical_groups_become_sets():
    m = read_mesh(MESHES / "cantilever.msh")
    assert m.dim == 2 and m.n_nodes == 11
    assert m.cells["beam"].cell_type == "line" and m.cells["beam"].connectivity.shape == (10, 2)
    assert m.points[m.node("clamp")].tolist() == [0.0, 0.0]
    assert m.points[m.node("tip")].tolist() == [1.0, 0.0]
    assert set(m.cells) == {"beam"}  # physical points are node sets, not cell sets


def test_gmsh41_physical_groups_and_node_order():
    m = read_mesh(MESHES / "two_bar_arch.msh")
    assert sets_of(m) == ({"bars": ("line", [[0, 1], [1, 2]])}, {"supports": [0, 2], "apex": [1]})
    assert np.allclose(m.points, [[-1, 0], [0, 0.1], [1, 0]])


def test_gmsh41_binary_triangles_quads_lines():
    m = read_mesh(MESHES / "plate.msh")
    types = {k: b.cell_type for k, b in m.cells.items()}
    assert types == {"tri_zone": "triangle", "quad_zone": "quad", "left_edge": "line"}
    assert np.allclose(m.points[np.unique(m.cells["left_edge"].connectivity), 0], 0.0)
    lo, hi = m.bounding_box()
    assert np.allclose(lo, [0, 0]) and np.allclose(hi, [2, 1])


def test_line3_cells():
    m = read_mesh(MESHES / "beam_quadratic.msh")
    conn = m.cells["beam"].connectivity
    assert m.cells["beam"].cell_type == "line3" and conn.shape == (4, 3)
    # the third node of a line3 cell is its midpoint
    assert np.allclose(m.points[conn[:, 2]], 0.5 * (m.points[conn[:, 0]] + m.points[conn[:, 1]]))


def test_abaqus_nset_elset():
    m = read_mesh(MESHES / "portal_frame.inp")
    cells, nodes = sets_of(m)
    assert set(cells) == {"COLUMNS", "BEAM"} and len(cells["COLUMNS"][1]) == 6 and len(cells["BEAM"][1]) == 4
    assert nodes == {"BASE": [0, 10], "TOP": [3, 4, 5, 6, 7], "LOAD_POINT": [5]}  # GENERATE expanded


def test_nastran_property_ids_become_sets():
    m = read_mesh(MESHES / "portal_frame.bdf")
    ref = read_mesh(MESHES / "portal_frame.inp")
    assert m.cells["pid1"].connectivity.tolist() == ref.cells["COLUMNS"].connectivity.tolist()
    assert m.cells["pid2"].connectivity.tolist() == ref.cells["BEAM"].connectivity.tolist()


@pytest.mark.skipif(not HAS_H5PY, reason="MED needs h5py")
def test_med_families():
    assert sets_of(read_mesh(MESHES / "portal_frame.med")) == sets_of(read_mesh(MESHES / "portal_frame.inp"))


def test_vtu_sets():
    assert sets_of(read_mesh(MESHES / "portal_frame.vtu")) == sets_of(read_mesh(MESHES / "portal_frame.inp"))


def test_unnamed_blocks_get_cell_type_names(tmp_path):
    path = tmp_path / "plain.vtu"
    pts = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0.0]])
    meshio.write(path, meshio.Mesh(pts, [("line", [[0, 1], [1, 2]]), ("triangle", [[0, 1, 2]]), ("vertex", [[3]])]))
    m = read_mesh(path)
    assert {k: b.cell_type for k, b in m.cells.items()} == {"line": "line", "triangle": "triangle"}
    assert m.node_sets["vertex"].tolist() == [3]
    assert m.dim == 2


def test_3d_points_stay_3d(tmp_path):
    path = tmp_path / "space.vtu"
    meshio.write(path, meshio.Mesh(np.array([[0, 0, 0], [1, 0, 1.0]]), [("line", [[0, 1]])]))
    assert read_mesh(path).dim == 3


FORMATS = [
    ("msh2.msh", None), ("msh4.msh", "gmsh"), ("deck.inp", None), ("grid.vtu", None), ("legacy.vtk", None),
    pytest.param("mesh.med", None, marks=pytest.mark.skipif(not HAS_H5PY, reason="MED needs h5py")),
]


@pytest.mark.parametrize("source", ["portal_frame.inp", "cantilever.msh", "plate.msh", "beam_quadratic.msh"])
@pytest.mark.parametrize("name, fmt", FORMATS)
def test_round_trip(tmp_path, source, name, fmt):
    m = read_mesh(MESHES / source)
    write_mesh(m, tmp_path / name, fmt)
    back = read_mesh(tmp_path / name)
    assert back.dim == m.dim
    assert np.allclose(back.points, m.points, rtol=0, atol=1e-12)
    assert sets_of(back) == sets_of(m)


def test_round_trip_nastran_keeps_partition(tmp_path):
    m = line_mesh((0, 0), (2, 0), 4, "a")
    write_mesh(m, tmp_path / "m.bdf")
    back = read_mesh(tmp_path / "m.bdf")
    assert np.allclose(back.points, m.points)
    assert back.cells["pid1"].connectivity.tolist() == m.cells["a"].connectivity.tolist()


def test_round_trip_generated_mesh_with_overlapping_node_sets(tmp_path):
    m = line_mesh((0, 0), (1, 0), 3, "beam")  # beam_nodes holds every node, beam_v0 = beam_start
    write_mesh(m, tmp_path / "g.msh")  # gmsh 2.2 stores any sets
    assert sets_of(read_mesh(tmp_path / "g.msh")) == sets_of(m)
    # gmsh 4 keeps physical groups on entities, and every entity needs a node of its own:
    # two one-node sets on the same node cannot be written, and the error says so
    with pytest.raises(InputError, match="gmsh22"):
        write_mesh(m, tmp_path / "g4.msh", "gmsh")


def test_cell_type_table():
    assert CELL_TYPES == {"vertex": 1, "line": 2, "line3": 3, "triangle": 3, "quad": 4}


def test_unsupported_cell_type_names_file_and_type(tmp_path):
    path = tmp_path / "solid.vtu"
    pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1.0]])
    meshio.write(path, meshio.Mesh(pts, [("tetra", [[0, 1, 2, 3]])]))
    with pytest.raises(InputError) as err:
        read_mesh(path)
    assert str(path) in str(err.value) and "'tetra'" in str(err.value)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="not found") as err:
        read_mesh(tmp_path / "nope.msh")
    assert "nope.msh" in str(err.value)


@pytest.mark.parametrize("name, text", [("junk.msh", "this is not gmsh\n"), ("junk.inp", "*NODE\n1, a, b\n"), ("junk.xyz", "1 2 3\n")])
def test_unreadable_file(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError, match="cannot read") as err:
        read_mesh(path)
    assert name in str(err.value)


def test_nan_coordinates(tmp_path):
    path = tmp_path / "nan.vtu"
    meshio.write(path, meshio.Mesh(np.array([[0, 0, 0], [np.nan, 0, 0]]), [("line", [[0, 1]])]))
    with pytest.raises(InputError, match="non-finite") as err:
        read_mesh(path)
    assert "nan.vtu" in str(err.value)


def test_no_cells(tmp_path):
    path = tmp_path / "points.vtu"
    meshio.write(path, meshio.Mesh(np.array([[0, 0, 0], [1, 0, 0.0]]), [("vertex", [[0], [1]])]))
    with pytest.raises(InputError, match="no line or surface cells"):
        read_mesh(path)
