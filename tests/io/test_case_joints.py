"""Case files declare the multibody features of the Python API: 3-D joints, body_point
joints, rigid links, floating-frame beams and 3-D rigid bodies. Each small case builds the
model its API twin builds (same solution to the last bit) and the solutions meet closed
forms; bad input is reported by `femb run` with exit code 2, naming file, key and value."""
import importlib.util

import meshio
import numpy as np
import pytest

from femb.case import load_case
from femb.cli import main
from femb.elements.floating_beam2d import floating_cells
from femb.mesh import CellBlock, Mesh, line_mesh
from femb.mesh.io import write_mesh
from femb.model import Material, Model, Section
from femb.solvers import solve_dynamic, solve_static
from femb.validation.mechanism_cases import without_geometric_stiffening
from femb.validation.models import spin_up_beam
from tests.io.conftest import BASE_CASE, EXAMPLES

P = 1e-4  # small load: linear response, the closed forms hold to ~1e-6

# ---------------------------------------------------------------------------- 3-D joints
SPANS_CASE = """\
[model]
dim = 3
[mesh]
file = "spans.vtu"
[materials.unit]
E = 1.0
G = 1.0
[sections.s]
A = 1e3
Iy = 1.0
Iz = 2.0
J = 1.0
[[parts]]
cells = "span1"
element = "beam3d"
material = "unit"
section = "s"
[[parts]]
cells = "span2"
element = "beam3d"
material = "unit"
section = "s"
[[fix]]
nodes = "root"
[[fix]]
nodes = "end"
[[joints]]
kind = "KIND"
name = "hinge"
a = "hinge1"
b = "hinge2"
AXIS
[[loads]]
type = "point"
nodes = "hinge1"
LOAD
[[steps]]
type = "static"
steps = 1
"""


def spans_mesh():
    """Two beam spans of L = 1 along x, 4 elements each, meeting at the distinct coincident
    nodes hinge1 (x = 1, end of span1) and hinge2 (start of span2)."""
    x = np.linspace(0.0, 1.0, 5)
    pts = np.zeros((10, 3))
    pts[:5, 0], pts[5:, 0] = x, 1.0 + x
    conn = np.column_stack([np.arange(4), np.arange(1, 5)])
    return Mesh(pts, {"span1": CellBlock("line", conn), "span2": CellBlock("line", conn + 5)},
                {"root": [0], "hinge1": [4], "hinge2": [5], "end": [9]})


def spans_api(kind, axis, load):
    model = Model(spans_mesh(), dim=3, name="model")
    section = Section(A=1e3, Iy=1.0, Iz=2.0, J=1.0, name="s")  # moderate EA: negligible membrane action
    for part in ("span1", "span2"):
        model.add_part(part, "beam3d", part, Material(E=1.0, G=1.0, name="unit"), section)
    model.fix("root")
    model.fix("end")
    model.joint3d(kind, "hinge1", "hinge2", axis=axis, name="hinge")
    model.point_load("hinge1", **load)
    return model


def spans_case(write_case, tmp_path, kind, axis, load):
    write_mesh(spans_mesh(), tmp_path / "spans.vtu")
    axis_line = "" if axis is None else f"axis = {list(map(float, axis))}"
    load_lines = "\n".join(f"{k} = {v!r}" for k, v in load.items())
    return load_case(write_case(SPANS_CASE, replace=[("KIND", kind), ("AXIS", axis_line), ("LOAD", load_lines)]))


# two clamped spans joined at x = 1, force P at the joint: a released bending moment makes
# two cantilevers in parallel (w = P L³/(3 EI · 2)), a transmitted one a clamped-clamped
# beam of length 2L with a central load (w = P (2L)³/(192 EI)); EIy = 1 (load z), EIz = 2 (load y)
JOINT_CASES = [
    ("spherical", None, "fz", P / 6.0),
    ("revolute", (0.0, 1.0, 0.0), "fz", P / 6.0),       # about y: releases bending about y
    ("revolute", (0.0, 1.0, 0.0), "fy", 8 * P / (192 * 2.0)),  # ... and transmits bending about z
    ("universal", (0.0, 1.0, 0.0), "fz", P / 6.0),      # cross axes y (in a) and -z (in b)
    ("universal", (0.0, 1.0, 0.0), "fy", P / 12.0),
    ("cylindrical", (1.0, 0.0, 0.0), "fz", 8 * P / 192.0),  # only torsion and axial slip released
    ("prismatic", (1.0, 0.0, 0.0), "fz", 8 * P / 192.0),
]


@pytest.mark.parametrize("kind, axis, direction, w", JOINT_CASES, ids=[f"{c[0]}-{c[2]}" for c in JOINT_CASES])
def test_3d_joint_between_two_beams_matches_the_api_and_the_closed_form(write_case, tmp_path, kind, axis, direction, w):
    load = {direction: -P}
    case = spans_case(write_case, tmp_path, kind, axis, load)
    (joint,) = case.model.joints
    assert (joint.kind, joint.name, joint.axis) == (kind, "hinge", axis)
    res = solve_static(case.model, steps=1)
    ref = solve_static(spans_api(kind, axis, load), steps=1)
    assert np.array_equal(res.final, ref.final)
    dof = {"fz": "uz", "fy": "uy"}[direction]
    assert res.dof(4, dof, -1) == pytest.approx(-w, rel=1e-5)
    assert res.dof(5, dof, -1) == pytest.approx(-w, rel=1e-5)  # the joint keeps the spans together


GROUND_CASE = """\
[mesh.line]
name = "beam"
start = [0.0, 0.0, 0.0]
end = [1.0, 0.0, 0.0]
elements = 8
[materials.unit]
E = 1.0
G = 1.0
[sections.s]
A = 1e7
Iy = 1.0
Iz = 2.0
J = 1.0
orientation = [0.0, 1.0, 0.0]
[[parts]]
cells = "beam"
element = "beam3d"
material = "unit"
section = "s"
[markers]
mid = [0.5, 0.0, 0.0]
[[joints]]
kind = "revolute"
name = "root hinge"
a = "beam_start"
axis = [0.0, 0.0, 1.0]
[[joints]]
kind = "spherical"
name = "tip ball"
a = "beam_end"
point = [1.0, 0.0, 0.0]
[[loads]]
type = "point"
nodes = "mid"
fy = -1e-4
[[steps]]
type = "static"
steps = 1
"""


def test_3d_joints_to_ground_make_a_simply_supported_beam(write_case):
    """Revolute joint to ground about z at the root, spherical joint to a ground point at
    the tip: under a mid-span load along y, w = P L³/(48 EIz) and the root slope P L²/(16 EIz)."""
    case = load_case(write_case(GROUND_CASE))
    assert [(j.kind, j.node_b, j.point) for j in case.model.joints] == [("revolute", None, None), ("spherical", None, (1.0, 0.0, 0.0))]
    res = solve_static(case.model, steps=1)
    mesh = line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 8, "beam")
    api = Model(mesh, dim=3, name="model")
    api.add_part("beam", "beam3d", "beam", Material(E=1.0, G=1.0), Section(A=1e7, Iy=1.0, Iz=2.0, J=1.0, orientation=(0.0, 1.0, 0.0)))
    api.joint3d("revolute", "beam_start", axis=(0.0, 0.0, 1.0), name="root hinge")
    api.joint3d("spherical", "beam_end", point=(1.0, 0.0, 0.0), name="tip ball")
    api.point_load(4, fy=-P)
    assert np.array_equal(res.final, solve_static(api, steps=1).final)
    assert res.dof(4, "uy", -1) == pytest.approx(-P / (48 * 2.0), rel=1e-5)
    assert res.dof(0, "rz", -1) == pytest.approx(-P / (16 * 2.0), rel=1e-5)


# ---------------------------------------------------------------------------- 3-D rigid body
BODY3D_CASE = """\
[parameters]
m = 2.0
[mesh.line]
name = "beam"
start = [0.0, 0.0, 0.0]
end = [1.0, 0.0, 0.0]
elements = 4
[materials.unit]
E = 1.0
G = 1.0
[sections.s]
A = 1e7
Iy = 1.0
Iz = 2.0
J = 1.0
[[parts]]
cells = "beam"
element = "beam3d"
material = "unit"
section = "s"
[[discrete]]
name = "body"
element = "rigid_body3d"
nodes = "beam_end"
parameters = { m = "m", Jxx = 0.02, Jyy = 0.03, Jzz = 0.04, Jxy = 0.005 }
[[fix]]
nodes = "beam_start"
[[loads]]
type = "gravity"
g = [0.0, 0.0, -1e-4]
[[steps]]
type = "static"
steps = 1
"""


def body3d_api():
    model = Model(line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 4, "beam"), dim=3, name="model")
    model.add_part("beam", "beam3d", "beam", Material(E=1.0, G=1.0), Section(A=1e7, Iy=1.0, Iz=2.0, J=1.0))
    model.add_discrete("body", "rigid_body3d", "beam_end", m=2.0, Jxx=0.02, Jyy=0.03, Jzz=0.04, Jxy=0.005)
    model.fix("beam_start")
    model.gravity((0.0, 0.0, -1e-4))
    return model


def test_rigid_body3d_on_a_cantilever(write_case):
    """Massless cantilever carrying a 3-D rigid body at its tip: the weight m g bends it by
    w = m g L³/(3 EIy) (statics); a few dynamic steps of the spinning, swinging body are
    those of the API model and keep the energy of the mid-point scheme."""
    case = load_case(write_case(BODY3D_CASE))
    res = solve_static(case.model, steps=1)
    assert np.array_equal(res.final, solve_static(body3d_api(), steps=1).final)
    assert res.dof(4, "uz", -1) == pytest.approx(-2.0 * 1e-4 / 3.0, rel=1e-5)
    runs = []
    for model in (case.model, body3d_api()):
        model.initial_velocity("beam_end", rx=3.0, uy=0.01)
        runs.append(solve_dynamic(model, 0.05, 0.5))
    assert np.array_equal(np.array(runs[0].states), np.array(runs[1].states))
    E = runs[0].series("total_energy")
    assert np.all(np.asarray(E[0]) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(runs[0].series("energy_residual")).max() < 1e-9 * E[0]


def test_rigid_body3d_dynamic_step_of_a_case_file(write_case, tmp_path):
    """A dynamic step of a 3-D model (beam3d, rigid_body3d: rotary inertia integrated as
    nodal rigid bodies) runs from the case file like solve_dynamic on the API model, with
    the exact energy balance of the mid-point scheme."""
    text = BODY3D_CASE.replace('[[steps]]\ntype = "static"\nsteps = 1', """\
[[initial_velocity]]
nodes = "beam_end"
rx = 3.0
uy = 0.01
[[steps]]
type = "dynamic"
dt = 0.05
t_end = 0.5
mass = "lumped"
""")
    case = load_case(write_case(text))
    (res,) = case.run(tmp_path / "out", progress=False)
    api = body3d_api()
    api.initial_velocity("beam_end", rx=3.0, uy=0.01)
    ref = solve_dynamic(api, 0.05, 0.5, mass="lumped")
    assert np.allclose(np.array(res.states), np.array(ref.states), rtol=1e-10, atol=1e-14)
    assert np.all(np.asarray(res.series("total_energy")[0]) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(res.series("energy_residual")).max() < 1e-9 * res.series("total_energy")[0]


# ---------------------------------------------------------------------------- planar pendulums
PENDULUM_CASE = """\
[parameters]
m = 1.0
[mesh.line]
name = "rod"
start = [0.0, 0.0]
end = [END, 0.0]
elements = 1
BODY
[[loads]]
type = "gravity"
g = [0.0, -9.81]
[[steps]]
type = "dynamic"
dt = 0.005
t_end = 0.05
"""

# rigid_body2d at the rod's centre (rod_end, x = 1), pivot node rod_start (x = 0)
BODY_POINT = """\
[[discrete]]
name = "pivot_mass"
element = "point_mass2d_translational"
nodes = "rod_start"
parameters = { m = 0.0 }
[[discrete]]
name = "rod_body"
element = "rigid_body2d"
nodes = "rod_end"
parameters = { m = "m", J = "m*4/12" }
[[fix]]
nodes = "rod_start"
[[joints]]
kind = "body_point"
name = "pivot"
body = "rod_end"
node = "rod_start"
"""
FREE_END = """\
[[joints]]
kind = "body_point"
name = "free end"
body = "rod_end"
point = [2.0, 0.0]
offset = [1.0, 0.0]
"""

# rigid link from the pivot rod_start (x = 0) to the free end rod_end (x = 2)
RIGID_LINK = """\
[[rigid_links]]
name = "rod"
a = "rod_start"
b = "rod_end"
m = "m"
[[fix]]
nodes = "rod_start"
dofs = "translations"
"""


def pendulum_text(kind, free_end=False):
    if kind == "body_point":
        return PENDULUM_CASE.replace("END", "1.0").replace("BODY", BODY_POINT + (FREE_END if free_end else ""))
    return PENDULUM_CASE.replace("END", "2.0").replace("BODY", RIGID_LINK)


def pendulum_api(kind, free_end=False):
    if kind == "body_point":
        model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 1, "rod"), name="model")
        model.add_discrete("pivot_mass", "point_mass2d_translational", "rod_start", m=0.0)
        model.add_discrete("rod_body", "rigid_body2d", "rod_end", m=1.0, J=4.0 / 12.0)
        model.fix("rod_start", name="fix[0] ('rod_start')")
        model.body_point("rod_end", "rod_start", name="pivot")
        if free_end:
            model.body_point("rod_end", point=(2.0, 0.0), offset=(1.0, 0.0), name="free end")
    else:
        model = Model(line_mesh((0.0, 0.0), (2.0, 0.0), 1, "rod"), name="model")
        model.rigid_link2d("rod", "rod_start", "rod_end", m=1.0)
        model.fix("rod_start", "translations", name="fix[0] ('rod_start')")
    model.gravity((0.0, -9.81))
    return model


@pytest.mark.parametrize("kind", ["body_point", "rigid_link"])
def test_rigid_rod_pendulum_matches_the_api_and_starts_with_the_pivot_acceleration(write_case, kind):
    """A uniform rigid rod (m = 1, length 2) released horizontally about a pivot at its end,
    as a rigid_body2d at its centre on a body_point joint or as a rigid link: θ(t) ≈ ½ α t²
    with α = m g (L/2) / (m L²/3) = 7.3575 rad/s² (θ'' = α cos θ: relative error ~θ² at
    t = 0.05 s, plus the O(Δt²) of the scheme)."""
    case = load_case(write_case(pendulum_text(kind)))
    if kind == "body_point":
        assert [(j.kind, j.name) for j in case.model.joints] == [("body_point", "pivot")]
    else:
        assert [(j.kind, j.name) for j in case.model.joints] == [("distance", "rod")] and "rod inertia" in case.model.parts
    runs = [solve_dynamic(m, 0.005, 0.05) for m in (case.model, pendulum_api(kind))]
    assert np.array_equal(np.array(runs[0].states), np.array(runs[1].states))
    res = runs[0]
    node, arm = (case.model.node("rod_end"), 1.0 if kind == "body_point" else 2.0)
    theta = -np.arctan2(res.dof(node, "uy", -1), arm + res.dof(node, "ux", -1))
    assert theta == pytest.approx(0.5 * 7.3575 * 0.05**2, rel=2e-3)
    if kind == "rigid_link":  # constant mass, quadratic constraint: exact energy balance
        assert np.abs(res.series("energy_residual")).max() < 1e-10 * 9.81


def test_body_point_to_a_fixed_point_holds_the_body(write_case):
    """The rod held by body_point joints at both ends (one to a node, one to a fixed point)
    carries its weight in the joints and does not move."""
    case = load_case(write_case(pendulum_text("body_point", free_end=True)))
    joint = case.model.joints[1]
    assert (joint.node_b, joint.point, joint.offset) == (None, (2.0, 0.0), (1.0, 0.0))
    res = solve_dynamic(case.model, 0.005, 0.05)
    assert np.abs(np.array(res.states)).max() < 1e-12
    ref = solve_dynamic(pendulum_api("body_point", free_end=True), 0.005, 0.05)
    assert np.array_equal(np.array(res.states), np.array(ref.states))


# ---------------------------------------------------------------------------- floating-frame beams
SPINUP_CASE = """\
[parameters]
omega = 6.0
T = 15.0
[mesh.line]
name = "beam"
start = [0.0, 0.0]
end = [10.0, 0.0]
elements = 4
[materials.simo]
E = 2.8e7
G = 1.0e7
rho = 1.2
[sections.s]
A = 1.0
I = 5.0e-4
shear_factor = 1.0
[[parts]]
cells = "beam"
element = "beam2d_floating_timoshenko"
material = "simo"
section = "s"
frame = "root"
[[fix]]
nodes = "beam_start"
dofs = ["ux", "uy"]
[[prescribe]]
nodes = "beam_start"
dof = "rz"
function = "omega/T*(t**2/2 + (T/(2*pi))**2*(cos(2*pi*t/T) - 1)) if t <= T else omega*(t - T/2)"
[[steps]]
type = "dynamic"
dt = 0.05
t_end = 2.0
"""


@pytest.mark.parametrize("frame", ["root", "chord"])
def test_floating_frame_part_matches_the_api(write_case, frame):
    """Spin-up B (Simo & Vu-Quoc data) with the linear floating-frame Timoshenko beam: the
    part gets the 4-node cells of femb.elements.floating_beam2d.floating_cells and the
    first two seconds of the spin-up equal the API model's."""
    case = load_case(write_case(SPINUP_CASE.replace('frame = "root"', f'frame = "{frame}"')))
    part = case.model.parts["beam"]
    assert part.element == "beam2d_floating_timoshenko"
    conn = case.model.mesh.cells[part.cells].connectivity
    assert np.array_equal(conn, floating_cells(case.model.mesh.cells["beam"].connectivity, frame))
    api = without_geometric_stiffening(spin_up_beam("B", 4), "beam", frame=frame)
    runs = [solve_dynamic(m, 0.05, 2.0, mass="lumped") for m in (case.model, api)]
    assert np.allclose(np.array(runs[0].states), np.array(runs[1].states), rtol=1e-12, atol=1e-14)
    assert np.abs(np.array(runs[0].states)).max() > 0.06  # the hub has turned by θ(2 s) = 0.066 rad


def test_floating_frame_default_is_the_chord(write_case):
    case = load_case(write_case(SPINUP_CASE.replace('frame = "root"\n', "")))
    conn = case.model.mesh.cells[case.model.parts["beam"].cells].connectivity
    assert conn[:, 2:].tolist() == [[0, 4]] * 4


def test_floating_frame_part_is_written_as_its_own_two_node_lines(write_case, tmp_path):
    """The 4-node cells (i, j, A, B) are drawn by their own nodes i, j: line cells with the
    chord strain (l − l0)/l0 of i-j, not of i-B."""
    case = load_case(write_case(SPINUP_CASE))
    (res,) = case.run(tmp_path / "out", progress=False)
    vtu = meshio.read(tmp_path / "out" / f"results_{len(res) - 1:05d}.vtu")
    conn = case.model.mesh.cells["beam"].connectivity
    assert [c.type for c in vtu.cells] == ["line"] and np.array_equal(vtu.cells[0].data, conn)
    X = case.model.mesh.points
    u = np.array([[res.dof(n, d, -1) for d in ("ux", "uy")] for n in range(len(X))])
    x = X + u
    strain = np.linalg.norm(x[conn[:, 1]] - x[conn[:, 0]], axis=1) / np.linalg.norm(X[conn[:, 1]] - X[conn[:, 0]], axis=1) - 1.0
    assert np.allclose(vtu.cell_data["axial_strain"][0], strain, rtol=1e-10, atol=1e-15)


def test_spinup_example_case_file_and_script_build_the_same_model():
    """examples/spinup_no_stiffening.{toml,py}: the same two rotors, the same first steps
    (the hub angle is an expression in the case file, a Python function in the script)."""
    spec = importlib.util.spec_from_file_location("example_spinup", EXAMPLES / "spinup_no_stiffening.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    case = load_case(EXAMPLES / "spinup_no_stiffening.toml")
    model = script.build()
    assert {n: p.element for n, p in case.model.parts.items()} == {n: p.element for n, p in model.parts.items()}
    step = case.steps[0].settings
    assert (step.dt, step.t_end, step.settings.record_every, step.settings.mass) == (0.02, 10.0, 5, "lumped")
    runs = [solve_dynamic(m, 0.02, 1.0, mass="lumped", record_every=5) for m in (case.model, model)]
    assert np.allclose(np.array(runs[0].states), np.array(runs[1].states), rtol=1e-12, atol=1e-14)
    tip = model.node("floating_end")
    assert abs(runs[0].dof(tip, "uy", -1)) > 1e-3  # the rotors have started to turn


# ---------------------------------------------------------------------------- bad input
def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def _spans(kind="revolute", axis="axis = [0.0, 1.0, 0.0]", load="fz = -1e-4"):
    return SPANS_CASE.replace("KIND", kind).replace("AXIS", axis).replace("LOAD", load)


PEND_BP = pendulum_text("body_point", free_end=True)
PEND_RL = pendulum_text("rigid_link")
BAD = [
    # 3-D joints
    (_spans(), [("kind = \"revolute\"", "kind = \"hinge3d\"")], ["joints[0].kind", "'hinge3d'", "spherical, revolute, universal"]),
    (_spans(), [("axis = [0.0, 1.0, 0.0]", "")], ["joints[0].axis: required key is missing"]),
    (_spans(), [("axis = [0.0, 1.0, 0.0]", "axis = [0.0, 1.0]")], ["joints[0].axis", "expected 3 components", "2"]),
    (_spans(), [("axis = [0.0, 1.0, 0.0]", "axis = [0.0, 0.0, 0.0]")], ["joints[0].axis", "must be non-zero", "[0.0, 0.0, 0.0]"]),
    (_spans(), [("axis = [0.0, 1.0, 0.0]", "axis = 'y'")], ["joints[0].axis", "expected an array of numbers", "'y'"]),
    (_spans("spherical", "axis = [0.0, 1.0, 0.0]"), [], ["joints[0].axis", "a spherical joint has no axis"]),
    (_spans(), [('b = "hinge2"', 'b = "hinge9"')], ["joints[0].b", "'hinge9'"]),
    (_spans(), [('b = "hinge2"', 'b = "span2"')], ["joints[0].b", "exactly one node", "'span2' has 5"]),
    (_spans(), [('b = "hinge2"', 'b = "hinge2"\nframe = "a"')], ["joints[0].frame", "needs a point"]),
    (_spans(), [('b = "hinge2"', 'b = "hinge1"')], ["joints[0].b", "another node than a", "'hinge1'"]),
    (_spans(), [('a = "hinge1"', 'a = "hinge1"\noffset = [0.0, 0.0, 0.0]')], ["joints[0].offset: unknown key", "kind, name, a, b, axis, point"]),
    (GROUND_CASE, [('point = [1.0, 0.0, 0.0]', 'point = [1.0, 0.0]')], ["joints[1].point", "expected 3 components"]),
    (PEND_BP, [('kind = "body_point"\nname = "pivot"', 'kind = "spherical"\nname = "pivot"')], ["joints[0].kind", "need a 3-D model", "2-D"]),
    (_spans(), [('kind = "revolute"', 'kind = "revolute"\nbody = 4')], ["joints[0].body: unknown key"]),
    # 3-D joint on a node without rotations
    (_spans(), [('element = "beam3d"', 'element = "truss3d"')], ["joints[0].a", "node 4 ('hinge1') belongs to no part with an oriented element"]),
    # body_point
    (PEND_BP, [('body = "rod_end"\nnode', 'body = 9\nnode')], ["joints[0].body", "9"]),
    (PEND_BP, [('node = "rod_start"', 'node = "rod_start"\npoint = [0.0, 0.0]')], ["joints[0]", "either node", "or point"]),
    (PEND_BP, [('point = [2.0, 0.0]\n', '')], ["joints[1]", "either node", "or point"]),
    (PEND_BP, [("offset = [1.0, 0.0]", "offset = [1.0, 0.0, 0.0]")], ["joints[1].offset", "expected 2 components"]),
    (PEND_BP, [('body = "rod_end"\nnode = "rod_start"', 'body = "rod_start"\nnode = "rod_end"')], ["joints[0].body", "node 0 ('rod_start') belongs to no part with the rotation rz"]),
    (PEND_BP, [('node = "rod_start"', 'node = "rod_start"\naxis = [0.0, 0.0, 1.0]')], ["joints[0].axis: unknown key", "body, node, point, offset"]),
    (_spans(), [('kind = "revolute"', 'kind = "body_point"'), ('a = "hinge1"\nb = "hinge2"\naxis = [0.0, 1.0, 0.0]', 'body = "hinge1"\nnode = "hinge2"')],
     ["joints[0].kind", "body_point joints are planar"]),
    # rigid links
    (PEND_RL, [('m = "m"\n[[fix]]', 'm = -1.0\n[[fix]]')], ["rigid_links[0].m", "must be > 0", "-1"]),
    (PEND_RL, [('name = "rod"\na', 'a')], ["rigid_links[0].name: required key is missing"]),
    (PEND_RL, [('b = "rod_end"', 'b = "rod_start"')], ["rigid_links[0].b", "another node than a"]),
    (PEND_RL, [('b = "rod_end"', 'b = "rod_nodes"')], ["rigid_links[0].b", "exactly one node", "'rod_nodes' has 2"]),
    (PEND_RL, [('m = "m"\n[[fix]]', 'm = "m"\ncom = [1.0]\n[[fix]]')], ["rigid_links[0].com", "expected 2 components"]),
    (PEND_RL, [('m = "m"\n[[fix]]', 'm = "m"\ninertia = 1.0\n[[fix]]')], ["rigid_links[0].inertia: unknown key", "name, a, b, m, J, com"]),
    (PEND_RL, [('[[fix]]', '[[joints]]\nkind = "distance"\nname = "rod"\na = "rod_start"\nb = "rod_end"\n[[fix]]')], ["joints[0].name", "'rod' is defined twice"]),
    (PEND_RL, [('[[fix]]', '[[discrete]]\nname = "link"\nelement = "rigid_link2d"\nnodes = ["rod_start", "rod_end"]\nparameters = { m = 1.0, J = 1.0, cx = 1.0, cy = 0.0 }\n[[fix]]')],
     ["discrete[0].element", "[[rigid_links]]"]),
    (_spans(), [('kind = "revolute"', 'kind = "spherical"'), ("axis = [0.0, 1.0, 0.0]", "[[rigid_links]]\nname = 'x'\na = 'root'\nb = 'end'\nm = 1.0")],
     ["rigid_links[0]", "planar (2-D models)", "3-D"]),
    # floating-frame beams
    (SPINUP_CASE, [('frame = "root"', 'frame = "tip"')], ["parts[0].frame", "'tip'", "chord, root"]),
    (SPINUP_CASE, [('element = "beam2d_floating_timoshenko"', 'element = "beam2d_timoshenko"')], ["parts[0].frame", "only floating-frame beams",
                                                                                                 "'beam2d_timoshenko'"]),
    (SPINUP_CASE, [('cells = "beam"', 'cells = "beam"\nname = "b1"'),
                   ('[[fix]]', '[[parts]]\ncells = "beam"\nname = "b2"\nelement = "beam2d_floating"\nmaterial = "simo"\nsection = "s"\n[[fix]]')],
     ["parts[1].frame", "already a floating body with another frame"]),
    (SPINUP_CASE, [('frame = "root"', 'frame = 1')], ["parts[0].frame", "expected a string", "1"]),
    # 3-D rigid bodies
    (BODY3D_CASE, [("Jxy = 0.005", "Jxy = 0.005, Jzx = 0.0")], ["discrete[0].parameters.Jzx: unknown key", "m, Jxx, Jyy, Jzz, Jxy, Jxz, Jyz"]),
    (BODY3D_CASE, [("Jxx = 0.02, ", "")], ["discrete[0].parameters", "needs Jxx"]),
    (BODY3D_CASE, [("Jyy = 0.03", "Jyy = 'heavy'")], ["discrete[0].parameters.Jyy", "'heavy'"]),
    # analyses that do not handle 3-D joints (yet)
    (GROUND_CASE, [('type = "static"\nsteps = 1', 'type = "buckling"')], ["steps[0].type", "buckling steps do not handle joints", "'root hinge'"]),
    # sections
    (GROUND_CASE, [("orientation = [0.0, 1.0, 0.0]", "orientation = [0.0, 0.0, 0.0]")], ["sections.s.orientation", "must be non-zero"]),
    (GROUND_CASE, [("orientation = [0.0, 1.0, 0.0]", "orientation = [0.0, 1.0]")], ["sections.s.orientation", "expected 3 components"]),
]


@pytest.mark.parametrize("text, replace, culprits", BAD)
def test_bad_joint_and_body_input_exit_2(capsys, write_case, tmp_path, text, replace, culprits):
    write_mesh(spans_mesh(), tmp_path / "spans.vtu")
    path = write_case(text, replace=replace)
    code, _, err = run_cli(capsys, "run", path, "--out", path.parent / "out", "--no-progress")
    assert code == 2, err
    assert str(path) in err
    for c in culprits:
        assert c in err, (c, err)


def test_contradictory_joints_exit_2_naming_both(capsys, write_case):
    """Two distance joints from the cantilever's tip to one point, lengths 1.0 and 0.9: one
    is dropped as redundant, and it cannot hold where the other does (issue 15 item 1)."""
    joints = ('[[joints]]\nkind = "distance"\nname = "long tie"\nb = "beam_end"\npoint = [1.0, 1.0]\nlength = 1.0\n'
              '[[joints]]\nkind = "distance"\nname = "short tie"\nb = "beam_end"\npoint = [1.0, 1.0]\nlength = 0.9\n[[steps]]')
    path = write_case(BASE_CASE, replace=[("[[steps]]", joints)])
    code, _, err = run_cli(capsys, "run", path, "--out", path.parent / "out", "--no-progress")
    assert code == 2, err
    assert "'long tie'" in err and "'short tie'" in err and "contradict" in err
