"""Python API errors at the call that takes the wrong value, naming it (issue 15, items 3
and 13), not later at solve time."""
import logging

import numpy as np
import pytest

from femb.core.errors import InputError, ModelError
from femb.mesh import line_mesh
from femb.mesh.mesh import CellBlock, Mesh
from femb.model import Material, Model, Section
from femb.solvers import solve_dynamic, solve_modal, solve_static


def two_beams3d():
    pts = np.array([[-1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.1, 0.2, 0.0], [1.1, 0.3, 0.2]])
    mesh = Mesh(pts, {"one": CellBlock("line", np.array([[0, 1]])), "two": CellBlock("line", np.array([[2, 3]]))},
                {"a": [1], "b": [2]})
    model = Model(mesh, dim=3)
    for part in ("one", "two"):
        model.add_part(part, "beam3d", part, Material(E=1.0, G=1.0), Section(A=1.0, Iy=1.0, Iz=1.0, J=1.0))
    return model


def cantilever(n=4):
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), n, "beam"), name="cantilever")
    model.add_part("beam", "beam2d", "beam", Material(E=1000.0, rho=1.0), Section(A=0.01, I=1e-4))
    model.fix("beam_start")
    return model


# ------------------------------------------------------------------ item 3
def test_joint3d_point_errors_name_the_joint():
    model = two_beams3d()
    with pytest.raises(ModelError, match=r"joint 'hinge': point given in frame 'b', which does not exist"):
        model.joint3d("spherical", "a", None, point=(0.05, 0.1, 0.0), frame="b", name="hinge")
    with pytest.raises(ModelError, match=r"joint 'hinge': frame must be 'reference', 'a' or 'b', got 'c'"):
        model.joint3d("spherical", "a", "b", point=(0.05, 0.1, 0.0), frame="c", name="hinge")
    with pytest.raises(ModelError, match=r"joint 'hinge': frame 'a' given without a point"):
        model.joint3d("spherical", "a", "b", frame="a", name="hinge")
    with pytest.raises(ModelError, match=r"joint 'hinge': only a universal joint takes a second axis, this one is revolute"):
        model.joint3d("revolute", "a", "b", axis=(0, 0, 1), second_axis=(1, 0, 0), name="hinge")
    assert model.joints == []
    model.joint3d("spherical", "a", "b", point=(0.05, 0.1, 0.0), name="hinge")  # between two nodes: the attachment point
    model.joint3d("universal", "a", None, axis=(0, 0, 1), second_axis=(1, 1, 0.1), point=(0.0, 0.0, 0.0), name="cross")
    assert [j.name for j in model.joints] == ["hinge", "cross"]
    problems = model.problems()
    assert any("joint 'cross': the second axis (1, 1, 0.1) must be perpendicular to the axis (0, 0, 1)" in p for p in problems)


def test_joint3d_frame_b_of_a_ground_joint_in_a_case_file_is_exit_2(capsys, tmp_path):
    from femb.cli import main
    from tests.io.test_case_dynamic_joints3d import CASE

    text = CASE.replace('[[joints]]\nkind = "revolute"', '[[joints]]\nkind = "revolute"\nframe = "b"')
    assert text != CASE
    path = tmp_path / "case.toml"
    path.write_text(text)
    code = main(["run", str(path), "--out", str(tmp_path / "o"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "joints[0].frame" in err and "which does not exist" in err and "Traceback" not in err


# ------------------------------------------------------------------ item 13
@pytest.mark.parametrize("kwargs, culprit", [({"E": "abc"}, "E must be a number, got str 'abc'"),
                                             ({"E": 1.0, "rho": [1.0]}, "rho must be a number, got list"),
                                             ({"E": True}, "E must be a number, got bool")])
def test_material_with_a_non_number_is_refused_at_the_call(kwargs, culprit):
    with pytest.raises(ModelError, match="material 'steel': " + culprit.replace("[", r"\[")):
        Material(**kwargs, name="steel")


def test_section_with_a_non_number_is_refused_at_the_call():
    with pytest.raises(ModelError, match="section 'strip': I must be a number, got str '1e-4'"):
        Section(A=1.0, I="1e-4", name="strip")
    assert Section(A=np.float32(2.0), I=3).A == 2.0  # numpy and int numbers are fine


def test_point_load_amplitude_table_is_interpolated_like_case_files():
    model = cantilever()
    model.add_discrete("tip", "point_mass2d_translational", "beam_end", m=0.02)
    model.point_load("beam_end", amplitude=[[0.0, 0.0], [0.01, 1.0], [1.0, 1.0]], fy=0.1, name="push")
    amp = model.loads[-1].amplitude
    assert amp(0.005) == pytest.approx(0.5) and amp(-1.0) == 0.0 and amp(5.0) == 1.0
    res = solve_dynamic(model, 0.005, 0.02)  # ran at solve time before: 'list' object is not callable
    assert res.dof(4, "uy")[-1] > 0.0


@pytest.mark.parametrize("amplitude, culprit", [
    ([[0.0, 1.0], [0.0, 2.0]], "times must increase strictly"),
    ([[0.0, 1.0, 2.0]], "pairs"),
    ("sin(t)", "expected a callable a\\(t\\) or a table"),
    ([["a", 1.0]], "number pairs"),
])
def test_bad_amplitude_is_refused_naming_the_load(amplitude, culprit):
    model = cantilever()
    with pytest.raises(ModelError, match=f"load 'push': amplitude: .*{culprit}"):
        model.point_load("beam_end", amplitude=amplitude, fy=1.0, name="push")
    with pytest.raises(ModelError, match="load 'push': fy: expected a number"):
        model.point_load("beam_end", fy="1", name="push")


def test_results_dof_with_an_unknown_name_lists_the_valid_ones():
    model = cantilever()
    model.point_load("beam_end", fy=1e-3)
    res = solve_static(model, steps=1)
    with pytest.raises(ModelError, match=r"unknown DOF name 'uq' \(the DOFs of a 2-D model: ux, uy, rz\)"):
        res.dof(4, "uq")
    with pytest.raises(ModelError, match=r"node 9 is not a node index of the model \(0 to 4\)"):
        res.dof(9, "uy")
    assert res.dof(4, "uy", frame=-1) > 0


def test_coincident_unconnected_nodes_are_named(caplog):
    mesh = Mesh.merge(line_mesh((0, 0), (1, 0), 2, "a"), line_mesh((1, 0), (2, 0), 2, "b"))
    model = Model(mesh, name="split")
    for p in "ab":
        model.add_part(p, "beam2d", p, Material(E=1.0), Section(A=1.0, I=1.0))
    model.fix("a_start")
    model.point_load("b_end", fy=1.0)
    with caplog.at_level(logging.WARNING), pytest.raises(Exception):
        solve_static(model, steps=1)  # a mechanism: singular
    text = caplog.text
    assert "nodes 2 and 3 at (1.0, 0.0) are at the same position but share no DOF, element, tie or joint" in text
    # connected by a tie: no warning
    caplog.clear()
    model.tie(2, 3)  # welded
    with caplog.at_level(logging.WARNING):
        solve_static(model, steps=1)
    assert "same position" not in caplog.text


def test_coincident_nodes_joined_by_a_joint_are_not_named(caplog):
    from femb.correlation import build_table

    mesh = Mesh.merge(line_mesh((0, 0), (1, 0), 2, "a"), line_mesh((1, 0), (2, 0), 2, "b"))
    model = Model(mesh, name="hinged")
    for p in "ab":
        model.add_part(p, "beam2d", p, Material(E=1.0), Section(A=1.0, I=1.0))
    model.coincide(2, 3, name="hinge")
    with caplog.at_level(logging.WARNING):
        build_table(model)
    assert "same position" not in caplog.text


def test_solve_static_steps_0_is_an_input_error_naming_the_argument():
    model = cantilever()
    model.point_load("beam_end", fy=1e-3)
    with pytest.raises(InputError, match="steps"):
        solve_static(model, steps=0)
    with pytest.raises(InputError, match="integer"):
        solve_static(model, steps=2.5)


def test_solve_modal_more_modes_than_dofs_warns(caplog):
    model = cantilever(4)  # 12 free DOFs
    with caplog.at_level(logging.WARNING):
        modal = solve_modal(model, n_modes=100)
    assert len(modal.omega) == 12
    assert "n_modes" in caplog.text and "12" in caplog.text
