"""Compiled static load steps of planar beam2d models (femb.solvers.statics.planar_static)
against the general Newton loop of solve_static: the same states (to round-off), iterations,
reactions and energies, and the analytic roll-up."""
import numpy as np
import pytest

from femb.mesh import line_mesh
from femb.model import Material, Model, Section
from femb.solvers import NewtonSettings, solve_static

EI = 1.0
EA = 1.0e4
L = 1.0


def beam(n, element="beam2d_timoshenko"):
    """A cantilever of n elements along x, clamped at x = 0 (the peer suite's roll-up beam)."""
    model = Model(line_mesh((0.0, 0.0), (L, 0.0), n, "beam"), name=f"beam-{n}")
    values = dict(EA=EA, EI=EI, rhoA=1.0, rhoI=1e-3)
    if element == "beam2d_timoshenko":
        values["GAs"] = EA
    model.add_part("beam", element, "beam", values=values)
    model.fix("beam_start")
    return model


def both(build, **kw):
    """The compiled and the general run of the model ``build()`` (settings ``kw`` of
    NewtonSettings besides compiled_step; ``steps`` or ``load_factors`` for solve_static)."""
    run = {k: kw.pop(k) for k in ("steps", "load_factors") if k in kw}
    out = []
    for compiled in (True, False):
        out.append(solve_static(build(), settings=NewtonSettings(compiled_step=compiled, **kw), **run))
    return out


def assert_same(a, b, rel=1e-12):
    """States, reactions, energies to ``rel`` of their size; iterations and counts equal."""
    assert a.info["compiled_step"] and not b.info["compiled_step"]
    assert len(a) == len(b)
    assert np.allclose(a.times, b.times, rtol=0.0, atol=0.0)
    size = max(float(np.abs(s).max()) for s in b.states)
    for sa, sb in zip(a.states, b.states):
        assert np.abs(sa - sb).max() <= rel * size
    rsize = max(float(np.abs(r).max(initial=0.0)) for r in b.arrays["reactions"])
    for ra, rb in zip(a.arrays["reactions"], b.arrays["reactions"]):
        assert np.abs(ra - rb).max(initial=0.0) <= rel * max(rsize, 1e-300)
    ea, eb = a.series("strain_energy"), b.series("strain_energy")
    assert np.abs(ea - eb).max() <= rel * np.abs(eb).max()
    assert a.history["iterations"] == b.history["iterations"]
    assert a.info["newton_iterations"] == b.info["newton_iterations"]
    assert a.info["factorizations"] == b.info["factorizations"]
    assert set(a.history) == set(b.history) and set(a.arrays) == set(b.arrays)


def rollup(n):
    model = beam(n)
    model.point_load("beam_end", mz=2.0 * np.pi * EI / L)
    return model


@pytest.mark.parametrize("n, steps", [(10, 10), (10, 20), (40, 10), (40, 20)])
def test_rollup_equals_general_path_and_closes_the_circle(n, steps):
    a, b = both(lambda: rollup(n), steps=steps, tolerance=1e-8)
    assert_same(a, b)
    assert a.info["compiled_load_steps"] == steps
    assert a.history["iterations"][1:] == [1] * steps  # the chord-turning predictor: one correction per load step
    # the tip on the circle of radius EI/(λM) at every load factor, to the O(h²) of the
    # discretization; back at the root at λ = 1
    tip = a.model.node("beam_end")
    errors = []
    for k, lam in enumerate(a.times[1:], start=1):
        kappa = lam * 2.0 * np.pi / L
        exact = np.array([np.sin(kappa * L), 1.0 - np.cos(kappa * L)]) / kappa
        x = np.array([L + a.dof(tip, "ux", k), a.dof(tip, "uy", k)])
        errors.append(np.linalg.norm(x - exact) / L)
        assert a.dof(tip, "rz", k) == pytest.approx(kappa * L, rel=1e-9)  # Newton tolerance 1e-8
    assert 0.1 / n**2 < max(errors) < 0.4 / n**2  # 3.0e-3 at 10 elements
    assert np.hypot(L + a.dof(tip, "ux", -1), a.dof(tip, "uy", -1)) < 1e-11 * L


def test_gravity_loaded_cantilever_equals_general_path():
    def build():
        model = beam(16, "beam2d")
        model.gravity([0.0, -5.0])  # q = ρA·g = 5 EI/L³: linear tip deflection qL⁴/(8EI) = 0.625 L
        return model

    a, b = both(build, steps=5)
    assert_same(a, b)
    tip = a.model.node("beam_end")
    assert -0.8 * L < a.dof(tip, "uy", -1) < -0.3 * L
    # the support carries the weight: vertical reaction = ρA·g·L
    cv = list(a.table.constrained_vars)
    uy = cv.index(a.table.var_of(a.model.node("beam_start"), "uy"))
    assert a.arrays["reactions"][-1][uy] == pytest.approx(5.0 * L, rel=1e-9)


def test_prescribed_displacement_and_constant_load_equal_general_path():
    def build():
        model = beam(12)
        model.prescribe("beam_end", "uy", 0.4 * L)
        model.point_load("beam_end", fx=-2.0, constant=True)
        model.point_load(model.nodes("beam_end"), fx=5.0)
        return model

    a, b = both(build, load_factors=[0.25, 0.5, 1.0])
    assert_same(a, b)
    tip = a.model.node("beam_end")
    assert a.dof(tip, "uy", -1) == 0.4 * L


def test_failed_compiled_step_is_cut_back_by_the_general_path():
    """One increment too large for 6 iterations: the compiled loop hands it to the general
    path, which halves it; the run equals the general one."""
    def build():
        model = beam(16, "beam2d")
        model.point_load("beam_end", fy=-10 * EI / L**2)
        return model

    a, b = both(build, load_factors=[0.05, 1.0], max_iterations=6)
    assert_same(a, b)
    assert a.info["compiled_load_steps"] == 1  # the second one was cut back by the general path
    assert a.info["newton_iterations"] > 6


def test_frames_are_notified_one_by_one():
    seen = []
    res = solve_static(rollup(10), steps=4, on_frame=lambda r: seen.append(len(r)))
    assert res.info["compiled_step"] and seen == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("case", ["switch", "modified", "line_search", "two_blocks", "joint"])
def test_models_and_settings_outside_the_compiled_path_take_the_general_path(case):
    settings = NewtonSettings(compiled_step=case != "switch", modified=case == "modified", line_search=case == "line_search")
    if case == "two_blocks":
        model = Model(line_mesh((0.0, 0.0), (L, 0.0), 4, "beam"))
        model.add_part("beam", "beam2d", "beam", Material(E=1.0), Section(A=EA, I=EI))
        model.add_discrete("spring", "spring2d", ("beam_end", "beam_start"), k=10.0, L0=L)
    else:
        model = beam(4)
    model.fix("beam_start")
    if case == "joint":
        model.on_line("beam_end", (L, 0.0), (1.0, 0.0))
    model.point_load("beam_end", fx=1.0)
    res = solve_static(model, steps=2, settings=settings)
    assert res.info["compiled_step"] is False and res.info["compiled_load_steps"] == 0


@pytest.mark.parametrize("load_factors, repeat", [([0.5, 0.5, 1.0], 2), ([0.0, 1.0], 1)])
def test_a_repeated_load_factor_is_recorded_again_without_a_solve(load_factors, repeat):
    """A load factor equal to the one before (or to the start, 0) is not solved: frame
    ``repeat`` repeats the frame before it with 0 iterations, on either path."""
    a, b = both(lambda: rollup(10), load_factors=load_factors, tolerance=1e-8)
    assert_same(a, b)
    assert a.history["iterations"][repeat] == 0 and a.history["iterations"][-1] == 1
    assert np.array_equal(a.states[repeat], a.states[repeat - 1])
