"""Compiled whole mid-point steps of planar beam2d models (femb.solvers.dynamics.planar_step)
against the general path (schemes._MidPointSystem + step_newton.iterate): the same end
states to round-off, the same Newton iterations per step, and the energy balance closed
to round-off; models it does not cover run the general path."""
import math

import numpy as np
import pytest

from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers import solve_dynamic
from femb.solvers.dynamics.driver import DynamicSettings
from femb.solvers.dynamics.planar_step import PlanarSteps
from femb.solvers.dynamics.problem import DynamicProblem, Rayleigh
from femb.solvers.dynamics.schemes import MidPoint
from femb.solvers.nonlinear.newton import NewtonSettings
from femb.validation.models import spin_up_beam


def pendulum(n=10, length=1.0):
    """The flexible pendulum of benchmarks/flexible_pendulum.py: a beam pinned at one end,
    released horizontally under gravity (first bending frequency 10× the pendulum's)."""
    h = length / 100.0
    ei = 6.19
    ea = 12.0 * ei / h**2
    model = Model(line_mesh((0.0, 0.0), (length, 0.0), n, "beam"), name="pendulum")
    model.add_part("beam", "beam2d_timoshenko", "beam",
                   values=dict(EA=ea, EI=ei, GAs=(5.0 / 6.0) * ea / 2.6, rhoA=1.0, rhoI=h**2 / 12.0))
    model.fix("beam_start", "translations")
    model.gravity((0.0, -9.81))
    return model


def supported_beam():
    """A simply supported beam2d (pin + roller) with a point mass at mid-span, under
    gravity, a timed mid-span force and a timed end moment (loaded rotation)."""
    model = Model(line_mesh((0.0, 0.0), (2.0, 0.0), 8, "beam"), name="supported")
    model.add_part("beam", "beam2d", "beam", values=dict(EA=1e5, EI=20.0, rhoA=1.0, rhoI=0.01))
    model.fix("beam_start", ("ux", "uy"))
    model.fix("beam_end", "uy")
    model.add_discrete("mass", "point_mass2d", 4, m=0.5, J=0.002)
    model.gravity((0.0, -9.81))
    model.point_load(4, amplitude=lambda t: math.sin(20.0 * t), fy=-3.0)
    model.point_load("beam_end", amplitude=lambda t: 1.0 - math.cos(15.0 * t), mz=0.8)
    return model


def run(model, dt, t_end, compiled, mass="invariant", every=1, tol=1e-10, **newton):
    settings = DynamicSettings(mass=mass, record_every=every, compiled_step=compiled,
                               newton=NewtonSettings(tolerance=tol, **{"max_iterations": 25, **newton}))
    return solve_dynamic(model, dt, t_end, settings)


def assert_same_run(a, b):
    assert a.info["compiled_step"] and not b.info["compiled_step"]
    assert a.times == b.times
    for name in ("iterations", "cutbacks"):
        np.testing.assert_array_equal(a.series(name), b.series(name))
    for xa, xb in zip(a.states + a.velocities, b.states + b.velocities):
        np.testing.assert_allclose(xa, xb, rtol=0, atol=1e-12 * max(np.abs(xb).max(), 1e-300))
    for name in ("total_energy", "external_work", "constraint_work", "energy_residual"):
        np.testing.assert_allclose(a.series(name), b.series(name), rtol=0, atol=1e-12 * np.abs(a.series("kinetic_energy")).max())


def energy_scale(res):
    return max(np.abs(res.series("kinetic_energy")).max(), np.abs(res.series("strain_energy")).max())


@pytest.mark.parametrize("every, t_end", [(1, 0.3), (7, 0.3), (40, 0.29955)])
def test_pendulum_equals_general_path(every, t_end):
    a = run(pendulum(), 1e-3, t_end, True, every=every)
    b = run(pendulum(), 1e-3, t_end, False, every=every)
    assert_same_run(a, b)  # (t_end = 0.29955: the last step shortened to 0.55e-3)
    assert a.info["steps"] == 300 and a.info["newton_iterations"] == b.info["newton_iterations"] > 300
    assert a.times[-1] == t_end
    # energy conserved to round-off over 300 steps of the free fall (T grows to ~1.5)
    assert np.abs(a.series("energy_residual")).max() < 1e-11 * energy_scale(a)
    assert energy_scale(a) > 0.1


def test_spin_up_with_prescribed_hub_rotation_equals_general_path():
    a = run(spin_up_beam("B", 10), 0.01, 1.5, True, tol=1e-8, every=10)
    b = run(spin_up_beam("B", 10), 0.01, 1.5, False, tol=1e-8, every=10)
    assert_same_run(a, b)
    W_c = a.series("constraint_work")
    assert W_c[-1] > 1e-3 * energy_scale(a)  # the hub drive does work, booked as constraint work
    assert np.abs(a.series("energy_residual")).max() < 1e-10 * energy_scale(a)
    # the hub follows its prescribed angle exactly
    hub = a.model.node("beam_start")
    rec = a.model.prescribed[0]
    assert a.dof(hub, "rz", -1) == pytest.approx(rec.function(1.5), rel=0, abs=1e-14)



def test_force_only_evaluations_keep_the_general_path_bit_for_bit():
    """The compiled steps evaluate the force alone where they expect the step's last
    iteration (the iteration count of the step before) and the tangent only when another
    correction is needed: with iteration counts that change from step to step (both
    outcomes of that guess) every state equals the general path's bit for bit."""
    a = run(pendulum(), 2e-3, 0.4, True, tol=1e-8)
    b = run(pendulum(), 2e-3, 0.4, False, tol=1e-8)
    assert_same_run(a, b)
    its = a.series("iterations")[1:]
    assert np.count_nonzero((its[:-1] == 2) & (its[1:] == 3)) > 5  # 2 then 3 iterations: the guess misses
    assert np.count_nonzero((its[:-1] == 2) & (its[1:] == 2)) > 50  # and hits
    for xa, xb in zip(a.states + a.velocities, b.states + b.velocities):
        np.testing.assert_array_equal(xa, xb)
    np.testing.assert_array_equal(a.series("total_energy"), b.series("total_energy"))

@pytest.mark.parametrize("mass", ["lumped", "invariant"])
def test_supported_beam_with_timed_loads_equals_general_path(mass):
    a = run(supported_beam(), 2e-3, 0.4, True, mass=mass, every=5)
    b = run(supported_beam(), 2e-3, 0.4, False, mass=mass, every=5)
    assert_same_run(a, b)
    W = a.series("external_work")
    assert abs(W[-1]) > 1e-3 * energy_scale(a)  # the timed loads do work
    # T + V + P − W constant to round-off: an exact discrete energy balance with timed
    # forces and a timed moment on a rotation (Cayley factor m·Δθ/τ)
    assert np.abs(a.series("energy_residual")).max() < 1e-10 * energy_scale(a)


def test_failed_compiled_step_is_cut_back_by_the_general_path():
    # four Newton iterations are too few for some steps of the falling pendulum at
    # Δt = 0.01: the general path retries them and cuts them back, compiled steps resume
    a = run(pendulum(), 0.01, 0.4, True, every=2, max_iterations=4)
    b = run(pendulum(), 0.01, 0.4, False, every=2, max_iterations=4)
    assert a.info["cutbacks"] > 0
    assert_same_run(a, b)
    assert np.abs(a.series("energy_residual")).max() < 1e-11 * energy_scale(a)


def test_unsupported_models_take_the_general_path():
    model = pendulum(4)
    assert run(model, 1e-3, 0.01, True).info["compiled_step"]
    # damping, modified Newton, another element type
    assert not solve_dynamic(pendulum(4), 1e-3, 0.01, DynamicSettings(mass="invariant", damping=Rayleigh(0.1, 0.0))).info["compiled_step"]
    assert not run(pendulum(4), 1e-3, 0.01, True, modified=True).info["compiled_step"]
    truss = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 4, "bar"), name="bar")
    truss.add_part("bar", "truss2d", "bar", values=dict(EA=1e4, rhoA=1.0))
    truss.fix("bar_start", "all")
    truss.gravity((0.0, -9.81))
    res = run(truss, 1e-3, 0.01, True, mass="lumped")
    assert not res.info["compiled_step"] and res.info["steps"] == 10


@pytest.mark.parametrize("tol, inc_tol, reason", [(1e-14, 1e-13, "converged (correction at round-off)"),
                                                  (1e-16, 0.0, "converged (residual at its noise floor)")])
def test_round_off_acceptances_equal_general_path(monkeypatch, tol, inc_tol, reason):
    # tolerances below the residual's round-off: the steps are accepted by the loop's
    # round-off tests (correction at round-off; stalled residual at the noise floor), which
    # the compiled loop must take at the same iterations
    from femb.solvers.dynamics import driver

    reasons = []
    iterate = driver.iterate

    def counting(*args, **kwargs):
        report = iterate(*args, **kwargs)
        reasons.append(report.reason)
        return report

    monkeypatch.setattr(driver, "iterate", counting)
    b = run(pendulum(), 1e-3, 0.1, False, every=10, tol=tol, increment_tolerance=inc_tol)
    assert reasons.count(reason) > 50  # the general path's steps mostly end on that test
    a = run(pendulum(), 1e-3, 0.1, True, every=10, tol=tol, increment_tolerance=inc_tol)
    assert_same_run(a, b)
    assert np.abs(a.series("energy_residual")).max() < 1e-11 * energy_scale(a)


def test_compiled_steps_read_the_table_and_mass_arrays_in_place():
    """The compiled steps take the block's positions and variables, the table's CSR pattern
    and the mass data without copying them, and leave them bitwise unchanged."""
    model = pendulum()
    prob = DynamicProblem(model, mass="invariant")
    t = prob.table
    beam = t.blocks[0]
    shared = {"pos": beam.pos, "var": beam.var, "indptr": t.indptr, "indices": t.indices, "M_eq_pos": prob.mass_entries[0],
              "M_eq_val": prob.mass_entries[1], "M_full": prob.M_full.data, "ref": prob.reference_coordinates, "f_const": prob.f_const, "rot_eq": prob.rot_eq,
              "diag_pos": prob.diag_pos}
    before = {k: a.copy() for k, a in shared.items()}
    steps = PlanarSteps.build(prob, MidPoint(), NewtonSettings())
    for mine, k in ((steps.ref, "ref"), (steps.f_const, "f_const"), (steps.rot_terms[0], "rot_eq"), (steps.rot_terms[2], "diag_pos")):
        assert np.shares_memory(mine, shared[k]), k
    for mine, theirs in ((steps.block[2], beam.var), (steps.block[3], beam.pos), (steps.mass[2], prob.M_full.data),
                         (steps.mass[3], prob.mass_entries[0]), (steps.mass[4], prob.mass_entries[1]),
                         (steps.pattern[0], t.indptr), (steps.pattern[1], t.indices)):
        assert np.shares_memory(mine, theirs)
    res = solve_dynamic(model, 1e-3, 5e-3, DynamicSettings(mass="invariant", record_every=5), problem=prob)
    assert res.info["compiled_step"]
    for k, a in shared.items():
        assert np.array_equal(a, before[k]), k
    # the general path's Newton matrix buffer and M_eq's data on the whole pattern are not made
    assert "K" not in prob.__dict__ and "mass_data" not in prob.__dict__
    assert np.shares_memory(prob.M_eq.data, prob.mass_data)
    assert prob._midpoint2d["mass_data"] is None  # nor the scaled mass of the general step matrix


def test_general_path_after_the_compiled_steps_scales_the_mass_on_first_use():
    """A general step after compiled ones makes (2/h²)·M_eq.data for its step h, once per h,
    and runs as a general run from the same state does."""
    model = pendulum()
    prob = DynamicProblem(model, mass="invariant")
    first = solve_dynamic(model, 1e-3, 5e-3, DynamicSettings(mass="invariant", record_every=5), problem=prob)
    assert first.info["compiled_step"] and prob._midpoint2d["mass_data"] is None
    settings = DynamicSettings(mass="invariant", record_every=5, compiled_step=False)
    u0, v0 = first.states[-1], first.velocities[-1]
    general = solve_dynamic(model, 1e-3, 5e-3, settings, problem=prob, u0=u0, v0=v0)
    c = prob._midpoint2d
    assert c["h"] == 1e-3
    np.testing.assert_array_equal(c["mass_data"], (2.0 / 1e-3 ** 2) * prob.mass_data)
    fresh = solve_dynamic(model, 1e-3, 5e-3, settings, u0=u0, v0=v0)
    for a, b in zip(general.states + general.velocities, fresh.states + fresh.velocities):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(general.series("iterations"), fresh.series("iterations"))
