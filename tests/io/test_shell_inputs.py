"""Shell meshes from gmsh, Abaqus and Nastran files, shell case files (thickness,
pressures, edge loads, symmetry), and the bad-input messages of shell models."""
import logging

import numpy as np
import pytest

from femb.case import load_case
from femb.cli import main
from femb.mesh import Mesh, rectangle_mesh
from femb.mesh.io import read_mesh
from femb.mesh.mesh import CellBlock
from femb.model import Material, Model, Section
from femb.solvers import solve_static
from femb.solvers.problem import StaticProblem
from tests.io.conftest import MESHES

E, NU, T, Q = 2.1e11, 0.3, 0.01, (0.0, 0.0, -2.0e3)
CORNER = 14  # node (2, 1, 1) of meshes/shell_panel.* (make_meshes.shell_panel)


def panel_model(path, tri, quad, clamped, loaded):
    mesh = read_mesh(path)
    model = Model(mesh)
    mat, sec = Material(E=E, nu=NU), Section(thickness=T)
    model.add_part("tri", "shell3", tri, mat, sec)
    model.add_part("quad", "shell4", quad, mat, sec)
    model.fix(clamped, "all")
    model.edge_load(loaded, Q)
    return model


@pytest.fixture(scope="module")
def panel_solutions():
    out = {}
    for fmt, names in {"msh": ("skin_tri", "skin_quad", "clamped", "loaded"),
                       "inp": ("SKIN_TRI", "SKIN_QUAD", "CLAMPED", "LOADED"),
                       "bdf": ("pid1", "pid2", None, None)}.items():
        path = MESHES / f"shell_panel.{fmt}"
        if fmt == "bdf":  # Nastran keeps no node sets: name the edges by coordinates
            mesh = read_mesh(path)
            model = Model(mesh)
            x = mesh.points[:, 0]
            mesh.add_node_set("clamped", np.flatnonzero(np.isclose(x, 0.0)))
            mesh.add_node_set("loaded", np.flatnonzero(np.isclose(x, 2.0)))
            model.add_part("tri", "shell3", "pid1", Material(E=E, nu=NU), Section(thickness=T))
            model.add_part("quad", "shell4", "pid2", Material(E=E, nu=NU), Section(thickness=T))
            model.fix("clamped", "all")
            model.edge_load("loaded", Q)
        else:
            model = panel_model(path, *names)
        prob = StaticProblem(model)
        res = solve_static(model, steps=1, problem=prob)
        out[fmt] = (model, prob, res)
    return out


def test_shell_mesh_files_give_sets_of_faces_edges_and_nodes():
    msh, inp, bdf = (read_mesh(MESHES / f"shell_panel.{s}") for s in ("msh", "inp", "bdf"))
    for mesh, tri, quad in ((msh, "skin_tri", "skin_quad"), (inp, "SKIN_TRI", "SKIN_QUAD"), (bdf, "pid1", "pid2")):
        assert mesh.dim == 3 and mesh.n_nodes == 15
        assert (mesh.cells[tri].cell_type, len(mesh.cells[tri].connectivity)) == ("triangle", 8)
        assert (mesh.cells[quad].cell_type, len(mesh.cells[quad].connectivity)) == ("quad", 4)
        assert np.allclose(mesh.points[:, 2], 0.5 * mesh.points[:, 0])
    # gmsh physical lines are line cell sets, usable as node selectors; physical points node sets
    assert msh.cells["clamped"].cell_type == "line" and msh.nodes("clamped").tolist() == [0, 5, 10]
    assert msh.node_sets["corner"].tolist() == [CORNER]
    assert inp.node_sets["LOADED"].tolist() == [4, 9, 14] and inp.node_sets["CORNER"].tolist() == [CORNER]
    assert np.array_equal(msh.cells["skin_quad"].connectivity, inp.cells["SKIN_QUAD"].connectivity)
    assert np.array_equal(msh.cells["skin_tri"].connectivity, bdf.cells["pid1"].connectivity)
    # the flat gmsh plate (triangles, recombined quads, a physical line) reads as a 2-D mesh
    plate = read_mesh(MESHES / "plate.msh")
    assert plate.dim == 2 and plate.cells["left_edge"].cell_type == "line"
    assert {plate.cells[k].cell_type for k in ("tri_zone", "quad_zone")} == {"triangle", "quad"}


def test_the_three_formats_give_the_same_shell_solution(panel_solutions):
    """Same cells and sets from gmsh (line cell sets), Abaqus (NSETs) and Nastran: the same
    corner deflection to 1e-12, and the supports carry the edge load q·b (b = 1)."""
    w = {}
    for fmt, (model, prob, res) in panel_solutions.items():
        t = prob.table
        w[fmt] = res.states[-1][t.var_of(CORNER, "uz")]
        reactions = res.arrays["reactions"][-1]
        fz = sum(r for r, v in zip(reactions, t.constrained_vars) if t.var_dof[v] == 2)
        assert fz == pytest.approx(-Q[2] * 1.0, rel=1e-9)
    assert w["msh"] < 0.0
    assert w["inp"] == pytest.approx(w["msh"], rel=1e-12)
    assert w["bdf"] == pytest.approx(w["msh"], rel=1e-12)


SHELL_CASE = f"""\
title = "tilted shell panel"
[mesh]
file = "{MESHES / 'shell_panel.msh'}"
[materials.steel]
E = {E}
nu = {NU}
[sections.skin]
thickness = {T}
[[parts]]
cells = "skin_tri"
element = "shell3"
material = "steel"
section = "skin"
[[parts]]
cells = "skin_quad"
element = "shell4"
material = "steel"
section = "skin"
[[fix]]
nodes = "clamped"
[[loads]]
type = "edge"
edges = "loaded"
q = [{Q[0]}, {Q[1]}, {Q[2]}]
[[steps]]
type = "static"
steps = 1
"""


def test_shell_case_file_equals_the_python_model(tmp_path, panel_solutions):
    path = tmp_path / "panel.toml"
    path.write_text(SHELL_CASE)
    case = load_case(path)
    assert {p.element for p in case.model.parts.values()} == {"shell3", "shell4"}
    res = solve_static(case.model, steps=1)
    model, prob, ref = panel_solutions["msh"]
    assert np.allclose(res.states[-1], ref.states[-1], rtol=0, atol=1e-14 * np.abs(ref.states[-1]).max())


def test_shell_case_pressure_and_symmetry_keys(tmp_path):
    text = SHELL_CASE.replace('[[fix]]\nnodes = "clamped"', '[[fix]]\nnodes = "clamped"\ndofs = ["ux", "uy", "uz"]\n'
                              '[[fix]]\nnodes = "loaded"\nsymmetry = "x"')
    text = text.replace('type = "edge"\nedges = "loaded"\nq = [0.0, 0.0, -2000.0]',
                        'type = "pressure"\ncells = "skin_quad"\np = 500.0\nkind = "follower"\n'
                        '[[loads]]\ntype = "traction"\ncells = "skin_tri"\nt = [0.0, 10.0, 0.0]')
    path = tmp_path / "panel.toml"
    path.write_text(text)
    model = load_case(path).model
    kinds = {type(ld).__name__: ld for ld in model.loads}
    assert kinds["Pressure"].kind == "follower" and kinds["Pressure"].p == 500.0
    assert kinds["Traction"].t == (0.0, 10.0, 0.0)
    assert [f.dofs for f in model.fixed] == [("ux", "uy", "uz"), ("ux", "ry", "rz")]
    prob = StaticProblem(model)
    assert prob.loads.has_follower_pressures
    assert prob.f_ref.sum() == pytest.approx(10.0 * 1.0 * np.hypot(1.0, 0.5), rel=1e-12)  # traction × tilted area


@pytest.mark.parametrize("replace, culprits", [
    ([('type = "edge"\nedges = "loaded"', 'type = "pressure"\ncells = "corner"\np = 1.0'), ("q = [0.0, 0.0, -2000.0]\n", "")],
     ["loads[0].cells", "'corner' is not a set of faces (it is a node set)", "skin_quad, skin_tri"]),
    ([('type = "edge"\nedges = "loaded"', 'type = "pressure"\ncells = "clamped"\np = 1.0'), ("q = [0.0, 0.0, -2000.0]\n", "")],
     ["loads[0].cells", "cell set 'clamped' holds 'line' cells, a surface load needs triangle or quad cells"]),
    ([('type = "edge"\nedges = "loaded"', 'type = "pressure"\ncells = "skin_quad"\np = 1.0\nkind = "wind"'), ("q = [0.0, 0.0, -2000.0]\n", "")],
     ["loads[0].kind", "'wind'", "dead, follower"]),
    ([('edges = "loaded"', 'edges = "skin_quad"')], ["loads[0].edges", "cell set 'skin_quad' holds 'quad' cells", "line cells or a node set"]),
    ([('edges = "loaded"', 'edges = "corner"')], ["loads[0].edges", "node set 'corner' contains no boundary edge"]),
    ([('edges = "loaded"', 'edges = "nowhere"')], ["loads[0].edges", "unknown edge set 'nowhere'"]),
    ([('nodes = "clamped"', 'nodes = "clamped"\nsymmetry = "xy"')], ["fix[0].symmetry", "'xy'", "x, y, z"]),
    ([('nodes = "clamped"', 'nodes = "clamped"\nsymmetry = "x"\ndofs = "all"')], ["fix[0].symmetry", "give dofs or symmetry, not both"]),
    ([("thickness = 0.01", "A = 0.01")], ["part 'skin_tri'", "section needs thickness for shell3"]),
    ([('cells = "skin_tri"', 'cells = "clamped"')], ["cell set 'clamped' holds 'line' cells, element 'shell3' needs 'triangle'"]),
])
def test_bad_shell_case_exit_2(capsys, tmp_path, replace, culprits):
    text = SHELL_CASE
    for old, new in replace:
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / "bad.toml"
    path.write_text(text)
    code = main(["run", str(path), "--out", str(tmp_path / "out"), "--no-progress"])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert code == 2, err
    assert str(path) in err
    for c in culprits:
        assert c in err


# ---------------------------------------------------------------------------- bad geometry
def _one_cell_model(points, cell_type, conn, element):
    mesh = Mesh(np.asarray(points, float), {"skin": CellBlock(cell_type, np.asarray(conn))})
    model = Model(mesh, dim=3)
    model.add_part("skin", element, "skin", Material(E=E, nu=NU), Section(thickness=T))
    return model


@pytest.mark.parametrize("points, cell_type, conn, element, culprit", [
    ([[0, 0, 0], [1, 0, 0], [2, 0, 0]], "triangle", [[0, 1, 2]], "shell3", "degenerate (zero-area) shell3 triangle(s) [0]"),
    ([[0, 0, 0], [1, 0, 0], [1, 0, 0]], "triangle", [[0, 1, 2]], "shell3", "degenerate (zero-area) shell3 triangle(s) [0]"),
    ([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]], "quad", [[0, 1, 2, 3]], "shell4", "degenerate shell4 quadrilateral(s) [0]"),
    ([[0, 0, 0], [2, 0, 0], [0.5, 0.5, 0], [0, 2, 0]], "quad", [[0, 1, 2, 3]], "shell4", "non-convex or clockwise shell4 quadrilateral(s) [0]"),
    ([[0, 0, 0], [1, 0, 0.4], [1, 1, 0], [0, 1, 0.4]], "quad", [[0, 1, 2, 3]], "shell4", "shell4 quadrilateral(s) [0] warped by more than 0.1"),
])
def test_bad_shell_cells_are_errors_naming_part_set_and_cells(points, cell_type, conn, element, culprit):
    problems = "\n".join(_one_cell_model(points, cell_type, conn, element).problems())
    assert culprit in problems
    assert "part 'skin'" in problems and "cell set 'skin'" in problems


def test_mildly_warped_quads_warn_naming_the_cells(caplog):
    """Warp between 1 % and 10 % of the shorter diagonal: a warning naming the cells (the
    flat-facet element projects them on their mean plane), not an error."""
    pts = [[0, 0, 0], [1, 0, 0.05], [1, 1, 0], [0, 1, 0.05], [2, 0, 0], [2, 1, 0.05]]
    mesh = Mesh(np.asarray(pts, float), {"skin": CellBlock("quad", np.array([[0, 1, 2, 3], [1, 4, 5, 2]]))})
    model = Model(mesh)
    model.add_part("skin", "shell4", "skin", Material(E=E, nu=NU), Section(thickness=T))
    with caplog.at_level(logging.WARNING):
        assert model.problems() == []
    text = caplog.text
    assert "shell4 quadrilateral(s) [0, 1] mildly warped" in text and "cell set 'skin'" in text


def test_missing_thickness_and_shells_on_line_cells_name_the_part():
    mesh = rectangle_mesh(1.0, 1.0, 2, 2, cells="quad")
    mesh.add_cells("edge", "line", np.array([[0, 1]]))
    model = Model(mesh)
    model.add_part("beam-like", "shell4", "plate", Material(E=E, nu=NU), Section(A=1.0))
    model.add_part("on lines", "shell3", "edge", Material(E=E, nu=NU), Section(thickness=T))
    problems = "\n".join(model.problems())
    assert "part 'beam-like': section needs thickness for shell4" in problems
    assert "part 'on lines': cell set 'edge' holds 'line' cells, element 'shell3' needs 'triangle'" in problems
