"""Case files grow multibody tables and dynamic/modal steps: each builds what the Python API
builds (same solutions), the segmented dynamic step is one continuous integration, modal
steps write one frame per mode."""
import math
import xml.etree.ElementTree as ET

import meshio
import numpy as np
import pytest

from femb.case import load_case
from femb.case.segments import DynamicStepSettings
from femb.export import read_pvd
from femb.mesh import Mesh, line_mesh
from femb.model import Material, Model, Section
from femb.solvers import solve_dynamic, solve_modal, solve_static
from femb.solvers.dynamics.problem import DynamicProblem, Rayleigh

# A cantilever (EI = 0.1, EA = 10, ρA = 0.01) with a tip point mass and a grounded
# rotational spring, set swinging by initial velocities; Δt = 2^-8 makes every time of
# the grid an exact binary fraction.
DYNAMIC_CASE = """\
title = "swinging cantilever"
[parameters]
v0 = 0.5
[mesh.line]
name = "beam"
start = [0.0, 0.0]
end = [1.0, 0.0]
elements = 4
[materials.m]
E = 1000.0
rho = 1.0
[sections.s]
A = 0.01
I = 1e-4
[[parts]]
cells = "beam"
element = "beam2d"
material = "m"
section = "s"
[[fix]]
nodes = "beam_start"
dofs = ["ux", "uy"]
[[discrete]]
name = "tip_mass"
element = "point_mass2d_translational"
nodes = "beam_end"
parameters = { m = 0.02 }
[[discrete]]
name = "root_spring"
element = "rotational_spring2d_ground"
nodes = "beam_start"
parameters = { k = "2*0.1" }
[[initial_velocity]]
nodes = "beam_end"
uy = "v0"
[[initial_velocity]]
nodes = [1, 2]
uy = 0.1
rz = -0.05
[[steps]]
type = "dynamic"
name = "swing"
dt = 0.00390625
t_end = 0.5
record_every = 4
SCHEME
[steps.probes]
tip_uy = ["beam_end", "uy"]
tip_vy = ["beam_end", "uy", "v"]
"""


def api_model(v0=0.5):
    """The Python-API twin of DYNAMIC_CASE."""
    mesh = line_mesh((0.0, 0.0), (1.0, 0.0), 4, "beam")
    model = Model(mesh, name="model")
    model.add_part("beam", "beam2d", "beam", Material(E=1000.0, rho=1.0), Section(A=0.01, I=1e-4))
    model.fix("beam_start", ("ux", "uy"))
    model.add_discrete("tip_mass", "point_mass2d_translational", "beam_end", m=0.02)
    model.add_discrete("root_spring", "rotational_spring2d_ground", "beam_start", k=2 * 0.1)
    model.initial_velocity("beam_end", uy=v0)
    model.initial_velocity([1, 2], uy=0.1, rz=-0.05)
    return model


PROBES = {"tip_uy": ("beam_end", "uy"), "tip_vy": ("beam_end", "uy", "v")}


def _case(write_case, scheme="", name="case.toml"):
    return write_case(DYNAMIC_CASE.replace("SCHEME", scheme), name=name)


@pytest.mark.parametrize("scheme, api", [
    ("", "midpoint"),
    ('scheme = "generalized-alpha"\nrho_inf = 0.6\nmass = "invariant"', "generalized-alpha"),
])
def test_dynamic_step_matches_solve_dynamic_bit_for_bit(write_case, tmp_path, scheme, api):
    """Discrete elements and initial velocities build the API's model, and the step run in
    segments of one recorded frame equals one solve_dynamic call exactly (exact time grid)."""
    case = load_case(_case(write_case, scheme))
    step = case.steps[0].settings
    assert isinstance(step, DynamicStepSettings) and step.checkpoint_every == 1
    (res,) = case.run(tmp_path, progress=False)
    from femb.solvers.dynamics.schemes import GeneralizedAlpha

    kw = {"scheme": GeneralizedAlpha(0.6), "mass": "invariant"} if api != "midpoint" else {"scheme": "midpoint", "mass": "lumped"}
    ref = solve_dynamic(api_model(), 2.0**-8, 0.5, record_every=4, probes=PROBES, **kw)
    assert len(res) == len(ref) == 33 and res.times == ref.times
    assert np.array_equal(np.array(res.states), np.array(ref.states))
    assert np.array_equal(np.array(res.velocities), np.array(ref.velocities))
    for key in ref.history:
        assert np.array_equal(res.series(key), ref.series(key), equal_nan=True), key
    assert res.info["segments"] == 32
    assert np.abs(res.series("tip_uy")).max() > 0.01  # it does swing
    if api == "midpoint":
        assert np.all(np.asarray(res.series("total_energy")[0]) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(res.series("energy_residual")).max() < 1e-12 * res.series("total_energy")[0]
    frames = read_pvd(tmp_path / "results.pvd")
    assert len(frames) == 33
    vtu = meshio.read(frames[5][1])
    assert "velocity" in vtu.point_data and float(np.ravel(vtu.field_data["tip_uy"])[0]) == res.history["tip_uy"][5]


def test_initial_velocity_tables_build_the_api_velocities(write_case):
    case = load_case(_case(write_case))
    v_case = DynamicProblem(case.model).initial_state(0.0, 1e-3)[1]
    v_api = DynamicProblem(api_model()).initial_state(0.0, 1e-3)[1]
    assert np.array_equal(v_case, v_api) and np.count_nonzero(v_api) == 5
    text = DYNAMIC_CASE.replace("SCHEME", "").replace(
        '[[initial_velocity]]\nnodes = "beam_end"\nuy = "v0"',
        '[[initial_velocity]]\nrigid = { omega = "4*v0", center = [0.25, 0.0], velocity = [0.1, 0.0] }')
    model = load_case(write_case(text, name="rigid.toml")).model
    api = api_model()
    api.initial_velocities = []
    api.initial_rigid_velocity(velocity=(0.1, 0.0), omega=2.0, center=(0.25, 0.0))
    api.initial_velocity([1, 2], uy=0.1, rz=-0.05)
    assert model.initial_velocities == api.initial_velocities
    v = DynamicProblem(model).initial_state(0.0, 1e-3)[1]
    assert np.array_equal(v, DynamicProblem(api).initial_state(0.0, 1e-3)[1])
    table = DynamicProblem(model).table
    assert v[table.var_of(model.node("beam_end"), "uy")] == pytest.approx(2.0 * 0.75)  # ω (x − c) at x = 1


def test_dynamic_step_settings(write_case):
    text = DYNAMIC_CASE.replace("SCHEME", 'scheme = "hht"\nalpha = -0.1\nmass = "invariant"\nrayleigh = [0.01, "1e-4"]\n'
                                          "checkpoint_every = 3\nmax_turn = 0.3\nt0 = 0.1\n[steps.newton]\ntolerance = 1e-9\nmodified = true")
    step = load_case(write_case(text)).steps[0].settings
    s = step.settings
    assert step.scheme == {"name": "hht", "alpha": -0.1} and step.make_scheme().alpha_f == pytest.approx(0.1)
    assert s.mass == "invariant" and s.damping == Rayleigh(0.01, 1e-4) and s.max_turn == 0.3 and s.record_every == 4
    assert s.newton.tolerance == 1e-9 and s.newton.modified and s.newton.max_cutbacks == 8  # dynamic defaults kept
    assert step.t0 == 0.1 and step.checkpoint_every == 3
    n, frames = step.schedule()
    assert n == round(0.4 / 2**-8 + 0.5) and frames[:3] == [0, 4, 8] and frames[-1] == n
    assert step.probes == {"tip_uy": ("beam_end", "uy", "u"), "tip_vy": ("beam_end", "uy", "v")}


def test_dynamic_step_in_one_call_and_smoke(write_case, tmp_path):
    path = _case(write_case, "checkpoint_every = 0")
    (res,) = load_case(path).run(tmp_path / "a", progress=False)
    assert "segments" not in res.info and len(res) == 33 and not (tmp_path / "a" / "checkpoint.npz").exists()
    (smoke,) = load_case(path, smoke=True).run(tmp_path / "b", progress=False)
    assert len(smoke) == 6 and smoke.times[-1] == 20 * 2.0**-8


# ---------------------------------------------------------------------------- modal
MODAL_STEP = '[[steps]]\ntype = "modal"\nname = "modes"\nn_modes = 4\nmass = "consistent"\namplitude = 0.1\n'


def test_modal_step_writes_one_frame_per_mode(write_case, tmp_path):
    text = DYNAMIC_CASE.replace("SCHEME", "")
    text = text[: text.index("[[steps]]")] + MODAL_STEP
    case = load_case(write_case(text))
    (res,) = case.run(tmp_path, progress=False)
    ref = solve_modal(api_model(), 4, mass="consistent")
    assert res.kind == "modal" and len(res) == 4
    assert np.allclose(res.series("frequency_hz"), ref.frequency_hz, rtol=1e-12)
    assert res.history["mode"] == [1.0, 2.0, 3.0, 4.0]
    frames = read_pvd(tmp_path / "results.pvd")
    assert len(frames) == 4
    root = ET.parse(tmp_path / "results.pvd").getroot()
    assert {ds.get("group") for ds in root.iter("DataSet")} == {"modes"}
    for k, (_, vtu_path) in enumerate(frames):
        vtu = meshio.read(vtu_path)
        assert float(np.ravel(vtu.field_data["frequency_hz"])[0]) == pytest.approx(ref.frequency_hz[k], rel=1e-12)
        assert float(np.ravel(vtu.field_data["TimeValue"])[0]) == pytest.approx(ref.frequency_hz[k], rel=1e-12)
        disp = vtu.point_data["displacement"]
        assert np.max(np.abs(disp)) == pytest.approx(0.1, rel=1e-12)  # scaled to the amplitude
        shape = ref.modes[k] / np.max(np.abs(ref.modes[k][res.table.node_var[:, :2][res.table.node_var[:, :2] >= 0]]))
        assert np.allclose(np.abs(res.states[k]), 0.1 * np.abs(shape), atol=1e-9)


def test_modal_step_writes_the_animated_mode_series(write_case, tmp_path):
    """Besides one frame per mode, each mode is written as an animated series over one
    period (as the Python API's write_mode_animation): results_modes_mode_<j>.pvd with 24
    frames, u_k = a·φ·sin(2πk/24) with a·φ the recorded shape (amplitude 0.1); a fresh run
    into the same folder replaces them."""
    text = DYNAMIC_CASE.replace("SCHEME", "")
    text = text[: text.index("[[steps]]")] + MODAL_STEP
    (res,) = load_case(write_case(text)).run(tmp_path, progress=False)
    series = sorted(tmp_path.glob("results_modes_mode_*.pvd"))
    assert [p.name for p in series] == [f"results_modes_mode_{j}.pvd" for j in range(4)]
    for j, path in enumerate(series):
        frames = read_pvd(path)
        assert len(frames) == 24
        quarter = meshio.read(frames[6][1])  # θ = π/2: the full recorded shape
        assert float(np.ravel(quarter.field_data["frequency_hz"])[0]) == pytest.approx(res.series("frequency_hz")[j], rel=1e-12)
        expected = res.nodal_displacements(j)
        disp = quarter.point_data["displacement"][:, : expected.shape[1]]
        assert np.max(np.abs(expected)) == pytest.approx(0.1, rel=1e-9)
        assert np.allclose(disp, expected, atol=1e-12)
        zero = meshio.read(frames[0][1]).point_data["displacement"]
        assert np.max(np.abs(zero)) == 0.0
    (tmp_path / "results_modes_mode_7.pvd").write_text("stale")
    load_case(write_case(text)).run(tmp_path, progress=False)
    assert not (tmp_path / "results_modes_mode_7.pvd").exists()


def test_modal_of_a_cantilever_matches_beam_theory(write_case, tmp_path):
    text = DYNAMIC_CASE.replace("SCHEME", "").replace("elements = 4", "elements = 24").replace("I = 1e-4", "I = 1e-6")  # slender
    text = text[: text.index("[[discrete]]")] + MODAL_STEP.replace("n_modes = 4", "n_modes = 2")
    text = text.replace('dofs = ["ux", "uy"]', 'dofs = "all"')
    (res,) = load_case(write_case(text)).run(tmp_path, progress=False)
    beta = np.array([1.8751040687, 4.6940911330])
    exact = beta**2 * math.sqrt(1e-3 / 0.01) / (2 * math.pi)  # Euler-Bernoulli cantilever, EI = 1e-3, rho A = 0.01
    assert np.allclose(res.series("frequency_hz"), exact, rtol=2e-3)


# ---------------------------------------------------------------------------- joints
JOINT_CASE = """\
[mesh]
line = [{ name = "beam", start = [0.0, 0.0], end = [1.0, 0.0], elements = 4 },
        { name = "arm", start = [1.0, 0.1], end = [1.5, 0.1], elements = 2 }]
[materials.m]
E = 1000.0
[sections.s]
A = 0.01
I = 1e-4
[[parts]]
cells = "beam"
element = "beam2d"
material = "m"
section = "s"
[[parts]]
cells = "arm"
element = "beam2d"
material = "m"
section = "s"
[[fix]]
nodes = "beam_start"
JOINTS
[[loads]]
type = "point"
nodes = "arm_end"
fy = -0.02
mz = 0.001
moment_type = "semitangential"
[[steps]]
type = "static"
steps = 3
"""

JOINTS = """\
[[joints]]
kind = "coincide"
a = "beam_end"
b = "arm_start"
offset = [0.0, 0.1]
[[joints]]
kind = "linear"
name = "same rotation"
terms = [["arm_start", "rz", 1.0], ["beam_end", "rz", -1.0]]
value = 0.0
[[joints]]
kind = "distance"
b = 2
point = [0.5, 1.0]
[[joints]]
kind = "on_line"
node = "arm_end"
point = [1.5, 0.1]
direction = [1.0, -0.5]
"""


def joint_api_model():
    mesh = Mesh.merge(line_mesh((0.0, 0.0), (1.0, 0.0), 4, "beam"), line_mesh((1.0, 0.1), (1.5, 0.1), 2, "arm"), tolerance=1e-9)
    model = Model(mesh, name="model")
    for part in ("beam", "arm"):
        model.add_part(part, "beam2d", part, Material(E=1000.0), Section(A=0.01, I=1e-4))
    model.fix("beam_start", name="fix[0] ('beam_start')")
    model.coincide("beam_end", "arm_start", offset=(0.0, 0.1), name="joints[0] (coincide)")
    model.linear_constraint([("arm_start", "rz", 1.0), ("beam_end", "rz", -1.0)], 0.0, name="same rotation")
    model.distance(None, 2, point=(0.5, 1.0), name="joints[2] (distance)")
    model.on_line("arm_end", (1.5, 0.1), (1.0, -0.5), name="joints[3] (on_line)")
    model.point_load("arm_end", fy=-0.02, mz=0.001, moment_type="semitangential")
    return model


def test_joint_tables_build_the_api_model(write_case):
    case = load_case(write_case(JOINT_CASE.replace("JOINTS", JOINTS)))
    m = case.model
    assert [j.kind for j in m.joints] == ["coincide", "linear", "distance", "on_line"]
    assert m.joints[1].value(3.0) == 0.0 and m.loads[0].moment_type == "semitangential"
    res = solve_static(m, steps=3)
    ref = solve_static(joint_api_model(), steps=3)
    assert np.array_equal(res.final, ref.final)
    assert all(np.array_equal(a, b) for a, b in zip(res.arrays["multipliers"], ref.arrays["multipliers"], strict=True))
    tip = m.node("arm_end")
    x = m.mesh.points[tip] + [res.dof(tip, "ux", -1), res.dof(tip, "uy", -1)]
    d = x - [1.5, 0.1]
    assert abs(1.0 * d[1] + 0.5 * d[0]) < 1e-10  # on the line through (1.5, 0.1) along (1, -0.5)
    mid = m.mesh.points[2] + [res.dof(2, "ux", -1), res.dof(2, "uy", -1)]
    assert np.linalg.norm(mid - [0.5, 1.0]) == pytest.approx(1.0, abs=1e-10)  # distance kept


def test_joint_value_as_function_of_time(write_case):
    text = JOINT_CASE.replace("JOINTS", JOINTS.replace("value = 0.0", 'value = "0.01*t"'))
    joint = load_case(write_case(text)).model.joints[1]
    assert joint.value(2.0) == pytest.approx(0.02)
    text = JOINT_CASE.replace("JOINTS", JOINTS.replace('kind = "distance"\nb = 2', 'kind = "distance"\na = 0\nb = 2\nlength = 0.7')
                              .replace("point = [0.5, 1.0]\n", ""))
    dist = load_case(write_case(text, name="b.toml")).model.joints[2]
    assert (dist.node_a, dist.node_b, dist.length, dist.point) == (0, 2, 0.7, None)


def test_two_node_discrete_elements(write_case, tmp_path):
    text = JOINT_CASE.replace("JOINTS", '[[discrete]]\nname = "link"\nelement = "bushing2d"\nnodes = ["beam_end", "arm_start"]\n'
                                        'parameters = { k = 50.0 }\n[[fix]]\nnodes = "arm_start"\ndofs = ["rz"]\n')
    case = load_case(write_case(text))
    assert case.model.parts["link"].values == {"k": 50.0}
    assert case.model.mesh.cells["link"].connectivity.tolist() == [[4, 5]]
    (res,) = case.run(tmp_path, progress=False)
    assert res.dof(case.model.node("arm_end"), "uy", -1) < 0
