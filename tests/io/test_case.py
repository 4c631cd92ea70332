"""Case files: the examples run and match their exact solutions; every table of the schema
builds what it says; the step registry is open."""
import csv
import json

import numpy as np
import pytest

from femb.case import STEP_TYPES, load_case, register_step_type
from femb.case.steps import STEP_TYPES as REGISTRY
from femb.core.errors import InputError
from femb.export import read_pvd
from tests.io.conftest import EXAMPLES


def test_cantilever_rollup_case(tmp_path):
    case = load_case(EXAMPLES / "cantilever_rollup.toml")
    assert case.title == "cantilever roll-up" and case.parameters == {"L": 1.0, "EI": 2.0}
    (res,) = case.run(tmp_path, progress=False)
    tip = case.model.node("tip")
    x = 1.0 + res.dof(tip, "ux", -1), res.dof(tip, "uy", -1)
    assert np.hypot(*x) < 1e-2  # rolled into a full circle: the tip is back at the clamp
    assert res.dof(tip, "rz", -1) == pytest.approx(2 * np.pi, rel=1e-9)
    assert len(read_pvd(tmp_path / "results.pvd")) == len(res) == 11
    rows = list(csv.reader((tmp_path / "history.csv").open()))
    assert rows[0][0] == "time" and len(rows) == 12
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["steps"][0]["status"] == "completed" and run["model"]["name"] == "cantilever roll-up"


def test_two_bar_arch_case_follows_exact_path(tmp_path):
    case = load_case(EXAMPLES / "two_bar_arch.toml")
    (res,) = case.run(tmp_path, progress=False)
    w = -res.dof(case.model.node("apex"), "uy")
    y = 0.1 - w
    l0, l = np.sqrt(1.01), np.sqrt(1 + y * y)
    exact = 2 * (l0 - l) * y / (l0 * l) / 1e-3
    assert np.allclose(res.times, exact, atol=1e-9)
    lam = np.asarray(res.times)
    assert lam.max() > 0.37 and lam.min() < -0.36 and w.max() > 0.2  # through the snap
    assert len(read_pvd(tmp_path / "results.pvd")) == len(res)


def test_buckling_step_euler_column(write_case, tmp_path):
    path = write_case(replace=[
        ("end = [1.0, 0.0]", "end = [0.0, 1.0]"),
        ("elements = 4", "elements = 8"),
        ('mz = "0.5*pi*EI/L"', "fy = -1.0"),
        ('type = "static"\nsteps = 2', 'type = "buckling"\nname = "euler"\nn_modes = 2'),
    ])
    case = load_case(path)
    (res,) = case.run(tmp_path / "out", progress=False)
    assert res.kind == "buckling" and len(res) == 2
    assert res.times[0] == pytest.approx(np.pi**2 * 2.0 / 4.0, rel=5e-3)  # cantilever: π²EI/(4L²)
    assert res.history["mode"] == [1.0, 2.0]
    series = sorted((tmp_path / "out").glob("results_euler_mode_*.pvd"))
    assert [p.name for p in series] == ["results_euler_mode_0.pvd", "results_euler_mode_1.pvd"]
    assert len(read_pvd(series[0])) == 24


def test_two_steps_share_one_collection(write_case, tmp_path):
    path = write_case(replace=[('type = "static"\nsteps = 2', 'type = "static"\nname = "a"\nsteps = 2\n[[steps]]\ntype = "static"\nname = "b"\nload_factors = [0.5, 1.0, 1.5]')])
    results = load_case(path).run(tmp_path, progress=False)
    assert [len(r) for r in results] == [3, 4]
    assert len(read_pvd(tmp_path / "results.pvd")) == 7
    rows = list(csv.reader((tmp_path / "history.csv").open()))
    assert rows[0][:2] == ["step", "time"] and len(rows) == 8


def test_model_tables(write_case):
    text = """
[parameters]
h = 0.5
g = "2*h"
[model]
name = "portal"
dim = 2
[mesh]
file = "PORTAL"
[materials.steel]
E = 210e9
nu = 0.3
rho = 7850
[sections.ibeam]
A = 1e-3
I = 1e-6
shear_factor = 0.8
[markers]
corner = 3
middle = [2.0, 3.0]
[[parts]]
cells = "COLUMNS"
element = "beam2d"
material = "steel"
section = "ibeam"
[[parts]]
name = "girder"
cells = "BEAM"
element = "beam2d_timoshenko"
material = "steel"
section = "ibeam"
[[fix]]
nodes = "BASE"
dofs = ["ux", "uy"]
[[fix]]
nodes = 0
dofs = "rotations"
[[ties]]
type = "pin"
a = 1
b = 2
[[loads]]
type = "point"
nodes = "middle"
fy = -1000
amplitude = [[0.0, 0.0], [1.0, 1.0], [2.0, 0.5]]
[[loads]]
type = "distributed"
cells = "BEAM"
q = [0.0, "-g*100"]
amplitude = "sin(t)"
[[loads]]
type = "gravity"
g = [0.0, -9.81]
constant = true
[[steps]]
type = "static"
load_factors = [0.5, 1.0]
[steps.newton]
tolerance = 1e-8
max_iterations = 12
line_search = false
[output]
frames = 2
history = false
"""
    path = write_case(text.replace("PORTAL", str(EXAMPLES.parent / "meshes" / "portal_frame.inp")))
    case = load_case(path)
    m = case.model
    assert m.name == "portal" and set(m.parts) == {"COLUMNS", "girder"}
    assert m.parts["girder"].section.shear_factor == 0.8 and m.parts["COLUMNS"].material.rho == 7850
    assert m.node("corner") == 3 and m.node("middle") == 5
    assert m.fixed[0].dofs == ("ux", "uy") and m.fixed[1].dofs == ("rz",)
    assert m.ties[0].dofs == ("ux", "uy")
    point, dist, grav = m.loads
    assert point.values == {"uy": -1000.0} and point.amplitude(1.5) == pytest.approx(0.75) and point.amplitude(5.0) == 0.5
    assert dist.q == (0.0, -100.0) and dist.amplitude(0.3) == pytest.approx(np.sin(0.3))
    assert grav.constant and grav.g == (0.0, -9.81)
    step = case.steps[0]
    assert step.type == "static" and step.settings["load_factors"] == (0.5, 1.0)
    assert step.settings["newton"].max_iterations == 12 and not step.settings["newton"].line_search
    assert case.output.every == 2 and not case.output.history


def test_polyline_generator_and_merge(write_case):
    path = write_case(replace=[(
        '[mesh.line]\nname = "beam"\nstart = [0.0, 0.0]\nend = [1.0, 0.0]\nelements = 4',
        '[[mesh.polyline]]\nname = "beam"\nvertices = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]\nelements = [2, 3]\n'
        '[[mesh.line]]\nname = "post"\nstart = [1.0, 1.0]\nend = [1.0, 2.0]\nelements = 1',
    )])
    mesh = load_case(path).model.mesh
    assert mesh.n_nodes == 7 and mesh.cells["beam"].connectivity.shape == (5, 2)
    assert mesh.cells["post"].connectivity[0, 0] == mesh.node("beam_end")  # merged


def test_registry_accepts_new_step_types(write_case, tmp_path):
    calls = []

    def parse(table, ctx):
        table.allowed += ["duration"]
        return {"duration": table.take("duration", "number", required=True, positive=True)}

    def run(model, settings, on_frame):
        from femb.solvers import solve_static
        res = solve_static(model, steps=1)
        calls.append(settings["duration"])
        on_frame(res)
        return res

    register_step_type("dummy_dynamic", parse, run, lambda s: 2, "test only")
    try:
        assert "dummy_dynamic" in STEP_TYPES
        path = write_case(replace=[('type = "static"\nsteps = 2', 'type = "dummy_dynamic"\nduration = "2*L"')])
        load_case(path).run(tmp_path, progress=False)
        assert calls == [2.0]
        bad = write_case(replace=[('type = "static"\nsteps = 2', 'type = "dummy_dynamic"\nsteps = 3')], name="bad.toml")
        with pytest.raises(InputError, match=r"steps\[0\]\.duration: required key is missing") as err:
            load_case(bad)
        assert "steps[0].steps: unknown key (allowed: type, name, duration)" in str(err.value)
    finally:
        REGISTRY.pop("dummy_dynamic")


def test_failed_run_keeps_frames_and_records_failure(write_case, tmp_path):
    from femb.core.errors import ConvergenceError
    # a large dead tip force (an end-moment roll-up no longer fails: its load steps are
    # rigid chord turns, which the static predictor takes in one correction at any size)
    path = write_case(replace=[('mz = "0.5*pi*EI/L"', 'fy = "-20*EI/L**2"'), ("steps = 2", "steps = 4\n[steps.newton]\nmax_iterations = 3\nmax_cutbacks = 0")])
    with pytest.raises(ConvergenceError) as err:
        load_case(path).run(tmp_path, progress=False)
    kept = len(err.value.results)
    assert kept >= 1
    assert len(read_pvd(tmp_path / "results.pvd")) == kept
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["steps"][-1]["status"] == "failed" and "ConvergenceError" in run["steps"][-1]["error"]


def test_newton_absolute_tolerance_key(write_case):
    """`[steps.newton] absolute_tolerance` reaches the step's NewtonSettings; a
    non-positive value is refused naming the setting."""
    path = write_case(replace=[("steps = 2", "steps = 2\n[steps.newton]\nabsolute_tolerance = 1e-7")])
    assert load_case(path).steps[0].settings["newton"].absolute_tolerance == 1e-7
    path = write_case(replace=[("steps = 2", "steps = 2\n[steps.newton]\nabsolute_tolerance = 0.0")])
    with pytest.raises(InputError, match="absolute_tolerance"):
        load_case(path)
