"""The examples: every case file runs in smoke mode, the slider-crank case file and its
Python twin build the same model, and the flagship demo reproduces Meijaard's first peak
and writes its pictures."""
import importlib.util
import json

import numpy as np
import pytest

from femb.case import load_case
from femb.cli import main
from femb.export import read_pvd
from femb.solvers import solve_dynamic
from femb.solvers.dynamics.problem import DynamicProblem
from femb.validation.models import slider_crank
from tests.io.conftest import EXAMPLES

CASES = sorted(EXAMPLES.glob("*.toml"))


def _module(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_every_example_runs_in_smoke_mode(case, tmp_path, capsys):
    code = main(["run", str(case), "--out", str(tmp_path), "--smoke", "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "[smoke run]" in out
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["smoke"] is True and all(s["status"] == "completed" for s in run["steps"])
    assert read_pvd(tmp_path / "results.pvd")


def test_smoke_from_the_environment(monkeypatch):
    monkeypatch.setenv("FEMB_SMOKE", "1")
    case = load_case(EXAMPLES / "slider_crank.toml")
    assert case.smoke and case.steps[0].expected_frames() == 6
    monkeypatch.setenv("FEMB_SMOKE", "0")
    assert not load_case(EXAMPLES / "slider_crank.toml").smoke


def test_slider_crank_case_file_and_script_build_the_same_model():
    case = load_case(EXAMPLES / "slider_crank.toml")
    script = _module("slider_crank").build()
    step = case.steps[0].settings
    assert (step.dt, step.settings.record_every, step.scheme["name"], step.settings.mass) == (2e-5, 10, "midpoint", "lumped")
    assert step.t_end == pytest.approx(4 * np.pi / 124.8, rel=1e-15)
    runs = [solve_dynamic(m, 2e-5, 60 * 2e-5, record_every=10, mass="lumped") for m in (case.model, script)]
    assert np.array_equal(np.array(runs[0].states), np.array(runs[1].states))
    assert np.array_equal(np.array(runs[0].velocities), np.array(runs[1].velocities))
    # the initial rigid-body velocities are those of the validation builder (to round-off)
    v_case = DynamicProblem(case.model).initial_state(0.0, 2e-5)[1]
    v_ref = DynamicProblem(slider_crank(16, 124.8)).initial_state(0.0, 2e-5)[1]
    assert np.allclose(v_case, v_ref, rtol=1e-13, atol=1e-13 * np.abs(v_ref).max())


def test_demo_smoke(tmp_path, capsys):
    demo = _module("demo")
    out = demo.main(["--out", str(tmp_path), "--smoke", "--no-progress", "--backend", "matplotlib"])
    text = capsys.readouterr().out
    assert "not reached (smoke run too short)" in text and "steps/s" in text
    for name in ("mechanism_first_peak.png", "midpoint_deflection.png", "energy_balance.png"):
        assert (tmp_path / name).stat().st_size > 10_000, name
    assert out["residual"] < 1e-9 * out["scale"]


@pytest.mark.slow
def test_demo_reproduces_the_published_first_peak(tmp_path, capsys):
    demo = _module("demo")
    out = demo.main(["--out", str(tmp_path), "--no-progress", "--backend", "matplotlib"])
    text = capsys.readouterr().out
    assert out["peak"] == pytest.approx(demo.PUBLISHED_PEAK, rel=0.01)
    assert out["angle"] == pytest.approx(0.70, abs=0.03)
    assert out["residual"] < 1e-10 * out["scale"]
    assert "relative error" in text and len(read_pvd(tmp_path / "results.pvd")) == 505
