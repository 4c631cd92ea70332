"""Case files declare slider joints on a line carried by a moving body (``kind = "slider"``,
``Model.slider``): the case builds the model of its Python-API twin (same solution to the
last bit), the motion meets the closed form, and bad input exits with code 2 naming the
file, the key and the value."""
import numpy as np
import pytest

from femb.case import load_case
from femb.cli import main
from femb.mesh import Mesh
from femb.model import Model
from femb.solvers import solve_dynamic

OMEGA, DT, T_END = 2.0, 0.01, 0.5

# A rod (rigid_body2d at the origin) turned at constant ω carries a bead (on the rod's line,
# free to turn: a point mass) and a block (rigid body on the parallel line y = 0.1 of the
# rod, rotation locked: a planar prismatic joint); both start at rest relative to the rod.
SLIDER_CASE = """\
[parameters]
omega = 2.0
[mesh.polyline]
name = "arm"
vertices = [[0.0, 0.0], [0.3, 0.0], [0.6, 0.1]]
elements = 1
[markers]
rod = "arm_v0"
bead = "arm_v1"
block = "arm_v2"
[[discrete]]
name = "rod"
element = "rigid_body2d"
nodes = "rod"
parameters = { m = 1.0, J = 0.05 }
[[discrete]]
name = "bead"
element = "point_mass2d_translational"
nodes = "bead"
parameters = { m = 0.2 }
[[discrete]]
name = "block"
element = "rigid_body2d"
nodes = "block"
parameters = { m = 0.5, J = 0.01 }
[[fix]]
nodes = "rod"
dofs = ["ux", "uy"]
[[prescribe]]
nodes = "rod"
dof = "rz"
function = "omega*t"
[[initial_velocity]]
rigid = { omega = "omega" }
[[joints]]
kind = "slider"
name = "bead slider"
node = "bead"
body = "rod"
direction = [1.0, 0.0]
[[joints]]
kind = "slider"
name = "block prismatic"
node = "block"
body = "rod"
point = [0.0, 0.1]
direction = [2.0, 0.0]
lock_rotation = true
[[steps]]
type = "dynamic"
dt = 0.01
t_end = 0.5
"""


def slider_api():
    pts = np.array([[0.0, 0.0], [0.3, 0.0], [0.6, 0.1]])
    model = Model(Mesh(pts, {}, {"rod": [0], "bead": [1], "block": [2]}), name="model")
    model.add_discrete("rod", "rigid_body2d", "rod", m=1.0, J=0.05)
    model.add_discrete("bead", "point_mass2d_translational", "bead", m=0.2)
    model.add_discrete("block", "rigid_body2d", "block", m=0.5, J=0.01)
    model.fix("rod", ("ux", "uy"))
    model.prescribe("rod", "rz", function=lambda t: OMEGA * t)
    model.initial_rigid_velocity(omega=OMEGA)
    model.slider("rod", "bead", direction=(1.0, 0.0), name="bead slider")
    model.slider("rod", "block", point=(0.0, 0.1), direction=(2.0, 0.0), lock_rotation=True, name="block prismatic")
    return model


def test_slider_case_matches_the_api_and_the_closed_form(write_case):
    """In the rod's frame each slider obeys s'' = ω² s (the centrifugal force along the
    line; Coriolis acts across it): s = s0 cosh(ωt), to the O(Δt²) of the mid-point scheme;
    the block turns with the rod exactly."""
    case = load_case(write_case(SLIDER_CASE))
    joints = [(j.kind, j.name, j.point, j.direction, j.lock_rotation) for j in case.model.joints]
    assert joints == [("slider", "bead slider", None, (1.0, 0.0), False),
                      ("slider", "block prismatic", (0.0, 0.1), (2.0, 0.0), True)]
    runs = [solve_dynamic(m, DT, T_END) for m in (case.model, slider_api())]
    assert np.array_equal(np.array(runs[0].states), np.array(runs[1].states))
    res = runs[0]
    t = np.asarray(res.times)
    node = {k: case.model.node(k) for k in ("rod", "bead", "block")}
    theta = res.dof(node["rod"], "rz")
    assert np.abs(theta - OMEGA * t).max() <= 1e-12
    assert np.abs(res.dof(node["block"], "rz") - theta).max() <= 1e-12
    for name, X, s0 in (("bead", (0.3, 0.0), 0.3), ("block", (0.6, 0.1), 0.6)):
        x = np.column_stack([X[0] + res.dof(node[name], "ux"), X[1] + res.dof(node[name], "uy")])
        along = x[:, 0] * np.cos(theta) + x[:, 1] * np.sin(theta)
        across = -x[:, 0] * np.sin(theta) + x[:, 1] * np.cos(theta)
        assert np.abs(across - X[1]).max() <= 1e-12  # on its line of the rod
        assert np.all(np.asarray(s0) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(along - s0 * np.cosh(OMEGA * t)).max() <= 1e-4 * s0  # (ωΔt)² = 4e-4
    assert np.all(np.asarray(res.series("kinetic_energy").max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(res.series("energy_residual")).max() <= 1e-10 * res.series("kinetic_energy").max()


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


BAD = [
    ([('body = "rod"\ndirection = [1.0, 0.0]', 'body = "rod"')], ["joints[0].direction: required key is missing"]),
    ([("direction = [1.0, 0.0]", "direction = [0.0, 0.0]")], ["joints[0].direction", "must be non-zero", "[0.0, 0.0]"]),
    ([("direction = [1.0, 0.0]", "direction = [1.0, 0.0, 0.0]")], ["joints[0].direction", "expected 2 components"]),
    ([('node = "bead"\nbody = "rod"', 'node = "bead"\nbody = "bead"')], ["joints[0].node", "another node than the body node", "'bead'"]),
    ([('node = "bead"\nbody = "rod"', 'node = "rod"\nbody = "bead"')], ["joints[0].body", "node 1 ('bead') belongs to no part with the rotation rz"]),
    ([('body = "rod"\ndirection = [1.0, 0.0]', 'body = "rod"\ndirection = [1.0, 0.0]\nlock_rotation = true')],
     ["joints[0].lock_rotation", "node 1 ('bead')", "no part with the rotation rz"]),
    ([("lock_rotation = true", 'lock_rotation = "yes"')], ["joints[1].lock_rotation", "'yes'"]),
    ([("point = [0.0, 0.1]", "point = [0.0, 0.2]")], ["joints[1].point", "misses node 2 ('block') by", "must start on it"]),
    ([('name = "bead slider"', 'name = "bead slider"\noffset = [0.0, 0.0]')], ["joints[0].offset: unknown key",
                                                                            "node, body, point, direction, lock_rotation"]),
    ([('body = "rod"\ndirection = [1.0, 0.0]', 'body = "arm_nodes"\ndirection = [1.0, 0.0]')], ["joints[0].body", "exactly one node",
                                                                                              "'arm_nodes' has 3"]),
]


@pytest.mark.parametrize("replace, culprits", BAD)
def test_bad_slider_input_exits_2_naming_key_and_value(capsys, write_case, replace, culprits):
    path = write_case(SLIDER_CASE, replace=replace)
    code, _, err = run_cli(capsys, "run", path, "--out", path.parent / "out", "--no-progress")
    assert code == 2, err
    assert str(path) in err
    for c in culprits:
        assert c in err, (c, err)


def test_slider_in_a_3d_case_is_refused_naming_the_kind(capsys, write_case):
    text = SLIDER_CASE.replace("[parameters]", "[model]\ndim = 3\n[parameters]")
    path = write_case(text)
    code, _, err = run_cli(capsys, "run", path, "--out", path.parent / "out", "--no-progress")
    assert code == 2, err
    assert "joints[0].kind" in err and "slider joints are planar" in err
