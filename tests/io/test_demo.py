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
    assert out["angle"] == pytest.approx(demo.PUBLISHED_ANGLE, abs=0.03)  # the reduced model's angle, not the paper's
    assert out["residual"] < 1e-10 * out["scale"]
    assert "relative error" in text and len(read_pvd(tmp_path / "results.pvd")) == 505


# ----------------------------------------------------------------------------- physics of the smoke runs
def _smoke_run(name, tmp_path):
    case = load_case(EXAMPLES / f"{name}.toml", smoke=True)
    return case.model, case.run(tmp_path, progress=False)[-1]


def test_rollup_smoke_run_follows_the_constant_curvature_circle(tmp_path):
    """An end moment λ·2πEI/L bends the cantilever to κ = 2πλ/L: the tip rotation is κL
    exactly (co-rotational beam under a constant moment), the tip position is the circle's
    up to the chord shortening of beam2d, L κ² h²/24 at the end of the smoke path."""
    from femb.validation.analytic import rollup_tip

    model, res = _smoke_run("cantilever_rollup", tmp_path)
    tip, L = model.node("tip"), 1.0
    lam = res.series("load_factor")
    assert lam[-1] >= 0.1  # the smoke path bends the beam
    kappa = 2 * np.pi * lam / L
    assert np.abs(res.dof(tip, "rz") - kappa * L).max() <= 1e-10
    x, y = rollup_tip(kappa, L)
    X = model.mesh.points[tip]
    err = np.hypot(X[0] + res.dof(tip, "ux") - x, X[1] + res.dof(tip, "uy") - y)
    h = L / (len(model.mesh.points) - 1)
    predicted = L * kappa[-1] ** 2 * h**2 / 24
    assert 0.5 * predicted <= err[-1] <= 1.5 * predicted  # measured 5.0e-4 against 6.6e-4


def test_slider_crank_smoke_run_follows_the_crank_kinematics_with_exact_energy_balance(tmp_path):
    """The slider of the flexible rod stays within 1e-4 m of the rigid slider-crank's
    x_B = r cos θ + √(L² − r² sin² θ) (it moves 1.5 mm in the smoke run) and the mid-point
    scheme's energy balance closes to 1e-9 of the kinetic energy."""
    model, res = _smoke_run("slider_crank", tmp_path)
    r, L, omega = 0.1524, 0.3048, 124.8
    theta = omega * np.asarray(res.times)
    x_rigid = r * np.cos(theta) + np.sqrt(L**2 - (r * np.sin(theta)) ** 2)
    x_slider = model.mesh.points[model.node("slider"), 0] + res.series("slider_ux")
    assert np.ptp(x_slider) > 1e-3
    assert np.abs(x_slider - x_rigid).max() <= 1e-4  # measured 1.1e-5 m
    kinetic = res.series("kinetic_energy").max()
    assert kinetic > 1.0  # J: the rod moves with the crank from the start
    assert np.abs(res.series("energy_residual")).max() <= 1e-9 * kinetic


def test_spinup_smoke_run_both_formulations_agree_while_the_spin_is_slow(tmp_path):
    """Early in the spin-up Ω is small and the geometric stiffening the floating-frame beam
    lacks (∝ Ω²) does not matter yet: both rotors' tip deflections agree to 1e-6 of their
    size; each run keeps the exact energy balance."""
    model, res = _smoke_run("spinup_no_stiffening", tmp_path)
    corot, floating = res.series("corot_tip_uy"), res.series("floating_tip_uy")
    assert np.abs(corot).max() > 1e-5
    assert np.abs(corot - floating).max() <= 1e-6 * np.abs(corot).max()  # measured 3e-8
    kinetic = res.series("kinetic_energy").max()
    assert kinetic > 0.0
    assert np.abs(res.series("energy_residual")).max() <= 1e-9 * kinetic


def test_arch_smoke_run_lies_on_the_closed_form_load_path(tmp_path):
    """Every arc-length point of the two-bar arch (a = 1, h = 0.1, EA = 1, apex load
    λ·1e-3) lies on P(w) = 2 EA s (1/l − 1/l0) to 1e-6 of the limit load."""
    from femb.validation.analytic import arch_load

    model, res = _smoke_run("two_bar_arch", tmp_path)
    w = -res.dof(model.node("apex"), "uy")
    P = 1e-3 * res.series("load_factor")
    a, h = 1.0, 0.1
    l0 = np.hypot(a, h)
    s_lim = np.sqrt((a**2 * l0) ** (2 / 3) - a**2)  # l³ = a² l0 at the limit point
    p_limit = arch_load(h - s_lim, a, h, 1.0)
    assert p_limit > 0 and w.max() > 0.01 * h  # the smoke path loads the arch
    assert np.abs(P - arch_load(w, a, h, 1.0)).max() <= 1e-6 * p_limit
