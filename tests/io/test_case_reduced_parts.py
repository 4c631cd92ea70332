"""``[[superelements]]`` reducing mesh parts of a case (``parts``, ``interface``, ``n_modes``,
``mass``, ``nodes``, ``mesh``): the reduced body equals the Python reduction of the same
part (femb.reduce_component), a component meshed in its own file attaches to model nodes
matched by position, the reduction carries mass points (a dynamic step runs), and every
input mistake is reported with its key path (exit code 2 from the CLI)."""
import numpy as np
import pytest

import femb
from femb.case import load_case
from femb.cli import main
from femb.core.errors import InputError

CASE = """\
[model]
dim = 3
[mesh]
line = [{name = "rod", start = [0.0, 0.0, 0.0], end = [1.0, 0.0, 0.0], elements = 10}]
[materials.steel]
E = 1.0e4
G = 4.0e3
rho = 1.0
[sections.rod]
A = 1.0
Iy = 1e-4
Iz = 1e-4
J = 2e-4
[[superelements]]
name = "link"
interface = ["rod_start", "rod_end"]
n_modes = 2
parts = [{cells = "rod", element = "beam3d", material = "steel", section = "rod"}]
[[fix]]
nodes = "rod_start"
[[loads]]
type = "point"
nodes = "rod_end"
fy = 1e-3
[[steps]]
type = "static"
steps = 1
"""


def python_twin():
    """The same rod reduced in Python (femb.reduce_component) and clamped and loaded alike."""
    mesh = femb.line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 10, "rod")
    comp = femb.Model(mesh, name="rod")
    comp.add_part("rod", "beam3d", "rod", femb.Material(E=1e4, G=4e3, rho=1.0), femb.Section(A=1.0, Iy=1e-4, Iz=1e-4, J=2e-4))
    rc = femb.reduce_component(comp, [0, 10], 2, mass="lumped")
    model = femb.Model(femb.Mesh(mesh.points[[0, 10]]), name="twin")
    model.add_superelement("link", rc, [0, 1])
    model.fix(0)
    model.point_load(1, fy=1e-3)
    return model, rc


def test_a_reduced_mesh_part_of_the_case_mesh_is_the_python_reduction(tmp_path):
    path = tmp_path / "case.toml"
    path.write_text(CASE)
    case = load_case(path)
    data = case.model.superelements["link"]
    model, rc = python_twin()
    ref = rc.superelement()
    assert np.array_equal(data.K, ref.K) and np.array_equal(data.M, ref.M)
    assert np.array_equal(data.points.mass, ref.points.mass) and data.n_modes == 2
    assert sorted(case.model.parts) == ["link"]  # the rod's cells are the superelement, not a part too
    (res,) = case.run(tmp_path / "out", progress=False)
    twin = femb.solve_static(model, steps=1)
    assert res.dof(10, "uy", frame=-1) == pytest.approx(twin.dof(1, "uy", frame=-1), rel=1e-12)
    assert res.dof(10, "uy", frame=-1) == pytest.approx(1e-3 / 3.0, rel=1e-6)  # PL³/3EI, EI = 1


def test_a_component_in_its_own_mesh_file_attaches_by_position_and_runs_in_dynamics(tmp_path):
    """The rod meshed in rod.msh; the case mesh has only the two joint nodes (a 1-element
    line, no part), listed in reverse order in ``nodes``: matched by position. A short
    free dynamic step conserves energy (the reduction carries mass points)."""
    femb.write_mesh(femb.line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 10, "rod"), tmp_path / "rod.msh")
    text = CASE.replace("elements = 10", "elements = 1").replace('name = "rod"', 'name = "axis"')
    text = text.replace('nodes = "rod_start"', 'nodes = "axis_start"').replace('nodes = "rod_end"', 'nodes = "axis_end"')
    text = text.replace('n_modes = 2', 'n_modes = 2\nmesh = "rod.msh"\nnodes = ["axis_end", "axis_start"]')
    path = tmp_path / "case.toml"
    path.write_text(text)
    (res,) = load_case(path).run(tmp_path / "out", progress=False)
    assert res.dof(1, "uy", frame=-1) == pytest.approx(1e-3 / 3.0, rel=1e-6)
    free = text.split("[[fix]]")[0] + """
[[loads]]
type = "point"
nodes = "axis_end"
fy = 1e-3
amplitude = [[0.0, 0.0], [0.05, 1.0], [0.1, 0.0]]
[[steps]]
type = "dynamic"
dt = 0.01
t_end = 0.3
"""
    path.write_text(free)
    (dyn,) = load_case(path).run(tmp_path / "dyn", progress=False)
    E = dyn.series("total_energy")
    after = np.asarray(dyn.times) >= 0.1 - 1e-12
    assert E[after][0] > 0 and np.abs(E[after] - E[after][0]).max() <= 1e-9 * E[after][0]


BAD = [
    ('interface = ["rod_start", "rod_end"]', 'interface = ["rod_start", "nowhere"]',
     r"superelements\[0\].interface: unknown node set 'nowhere' of the case mesh"),
    ('parts = [{cells = "rod"', 'parts = [{cells = "bar"', r"superelements\[0\].parts\[0\].cells: unknown cell set 'bar'"),
    ('material = "steel", section', 'material = "iron", section', r"superelements\[0\].parts\[0\].material: unknown material 'iron'"),
    ('n_modes = 2', 'n_modes = 2\nnodes = "rod_start"', r"superelements\[0\].nodes: 1 model node\(s\) for 2 interface node\(s\)"),
    ('n_modes = 2', 'n_modes = 2\nnodes = [0, 5]', r"superelements\[0\].nodes: no model node of \[0, 5\] at interface node 1"),
    ('n_modes = 2', 'n_modes = 2\nmesh = "other.msh"', r"superelements\[0\].mesh: .*other.msh"),
    ('n_modes = 2', 'n_modes = 2\nstiffness = "K.npz"', r"superelements\[0\]: give parts .* or stiffness"),
    ('n_modes = 2', 'n_modes = 2\nmass = "heavy"', r"superelements\[0\].mass: unknown value 'heavy'"),
    ('n_modes = 2', 'n_modes = 2\npositions = [[0.0, 0.0, 0.0]]', r"superelements\[0\].positions: unknown key"),
    ('[[superelements]]', '[[parts]]\ncells = "rod"\nelement = "beam3d"\nmaterial = "steel"\nsection = "rod"\n[[superelements]]',
     r"superelements\[0\].parts\[0\].cells: cell set 'rod' is already a part of the model"),
]


@pytest.mark.parametrize("old, new, message", BAD, ids=[b[2].split(":")[0].replace("\\", "") + f" {i}" for i, b in enumerate(BAD)])
def test_mistakes_name_the_key_and_the_set(tmp_path, old, new, message):
    path = tmp_path / "case.toml"
    assert old in CASE
    path.write_text(CASE.replace(old, new, 1))
    with pytest.raises(InputError, match=message):
        load_case(path)


def test_the_cli_exits_with_code_2_naming_the_file_and_key(tmp_path, capsys):
    path = tmp_path / "case.toml"
    path.write_text(CASE.replace('interface = ["rod_start", "rod_end"]', 'interface = "ends"'))
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "case.toml" in err and "superelements[0].interface: unknown node set 'ends'" in err
