"""Compiled whole Lie-group α steps of 3-D beam models (femb.solvers.dynamics.alpha3d_step)
against the general path (AlphaLie3DSystem + step_newton.iterate): the same frames and
Newton iterations per step, end states, rotations, velocities, accelerations and energy
books equal to round-off; linear momentum exact in free flight; a failed compiled step
redone (with its cut-backs) by the general path; models it does not cover run the general
path."""
import numpy as np
import pytest

from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers import HHT, GeneralizedAlpha, Newmark, solve_dynamic
from femb.solvers.dynamics.driver import DynamicSettings
from femb.solvers.dynamics.problem import Rayleigh
from femb.solvers.nonlinear.newton import NewtonSettings
from femb.validation.dynamic3d_cases import spin_up_beam_3d
from tests.solvers.test_spatial_step import BEAM3D, assert_same_run, cantilever, energy_scale, free_beam

SCHEMES = [GeneralizedAlpha(rho_inf=0.9), Newmark(), HHT(alpha=-0.1)]
IDS = ["genalpha-0.9", "newmark", "hht-0.1"]


def run(model, dt, t_end, compiled, scheme, mass="lumped", every=1, tol=1e-10, **newton):
    settings = DynamicSettings(scheme=scheme, mass=mass, record_every=every, compiled_step=compiled,
                               newton=NewtonSettings(tolerance=tol, **{"max_iterations": 25, **newton}))
    return solve_dynamic(model, dt, t_end, settings)


def assert_same_alpha_run(a, b, rel=1e-12):
    """``assert_same_run`` (frames, iterations, cut-backs, states, velocities, rotations,
    books) and the same dissipated energy. The pseudo- and true accelerations and the
    reactions the α steps carry to the next step are not recorded: a difference in them
    shows in the next steps' predictors, states and constraint work."""
    assert_same_run(a, b, rel)
    x, y = a.series("dissipated_energy"), b.series("dissipated_energy")
    np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("every", [1, 10])
def test_spin_up_with_prescribed_hub_rotation_equals_general_path(every):
    scheme = GeneralizedAlpha(rho_inf=0.9)
    a = run(spin_up_beam_3d(10), 0.01, 1.0, True, scheme, mass="invariant", every=every, tol=1e-8)
    b = run(spin_up_beam_3d(10), 0.01, 1.0, False, scheme, mass="invariant", every=every, tol=1e-8)
    assert_same_alpha_run(a, b)
    assert a.info["newton_iterations"] == b.info["newton_iterations"] >= 100
    W_c = a.series("constraint_work")
    assert W_c[-1] > 1e-3 * energy_scale(a)  # the hub drive does work, booked as constraint work
    hub = a.model.node("beam_start")  # the hub follows its prescribed angle
    assert a.dof(hub, "rz", -1) == pytest.approx(a.model.prescribed[0].function(1.0), rel=0, abs=1e-14)


@pytest.mark.parametrize("scheme", SCHEMES, ids=IDS)
@pytest.mark.parametrize("element, mass, driven", [("beam3d", "lumped", False), ("beam3d_timoshenko", "invariant", True)])
def test_loaded_cantilever_equals_general_path(scheme, element, mass, driven):
    # gravity, a point mass, a timed tip force and timed moments (loads at both ends of
    # each step), with and without a prescribed root rotation
    a = run(cantilever(element, driven), 5e-3, 0.4, True, scheme, mass=mass, every=8)
    b = run(cantilever(element, driven), 5e-3, 0.4, False, scheme, mass=mass, every=8)
    assert_same_alpha_run(a, b)
    assert abs(a.series("external_work")[-1]) > 1e-4 * energy_scale(a)  # the timed force and moments do work
    if driven:
        assert abs(a.series("constraint_work")[-1]) > 1e-3 * energy_scale(a)
    assert a.info["newton_iterations"] > a.info["steps"]  # more than one iteration in some steps


@pytest.mark.parametrize("scheme", SCHEMES, ids=IDS)
def test_free_flight_equals_general_path_and_keeps_linear_momentum(scheme):
    # a tumbling, bending beam at |ω|Δt up to 0.1 rad per step: Σ M v constant (α_m = 0:
    # exactly; ρ∞ = 0.9: its changes decay by |α_m/(1 − α_m)| per step from Σ M a_0 = 0)
    a = run(free_beam("beam3d_timoshenko"), 0.03, 1.5, True, scheme, every=5)
    b = run(free_beam("beam3d_timoshenko"), 0.03, 1.5, False, scheme, every=5)
    assert_same_alpha_run(a, b, rel=1e-11)
    p = np.column_stack([a.series(f"linear_momentum_{c}") for c in "xyz"])
    assert np.linalg.norm(p[0]) > 0.1
    assert np.abs(p - p[0]).max() < 1e-10 * np.linalg.norm(p[0])
    assert np.abs(a.series("strain_energy")).max() > 1e-3 * energy_scale(a)  # it deforms


def test_failed_compiled_step_is_retried_by_the_general_path():
    # four Newton iterations are too few for some steps of the tumbling beam at Δt = 0.2:
    # the general path retries them with shorter corrections and cuts them back, compiled
    # steps resume at the nominal step
    scheme = GeneralizedAlpha(rho_inf=0.8)
    a = run(free_beam(), 0.2, 2.0, True, scheme, every=2, max_iterations=4)
    b = run(free_beam(), 0.2, 2.0, False, scheme, every=2, max_iterations=4)
    assert a.info["cutbacks"] > 0
    assert_same_alpha_run(a, b, rel=1e-11)


def test_second_order_convergence_of_the_compiled_steps():
    """A clamped cantilever under gravity and a timed tip force, 0.2 s: the tip history's
    error against Δt/8 of the smallest step falls as Δt² (fitted slope 2 ± 0.2)."""
    def tip(dt):
        res = run(cantilever("beam3d_timoshenko"), dt, 0.2, True, GeneralizedAlpha(rho_inf=0.8), every=10**9, tol=1e-12)
        assert res.info["compiled_step"]
        return res.final
    dts = np.array([0.004, 0.002, 0.001])
    ref = tip(0.001 / 8)
    err = [np.abs(tip(dt) - ref).max() for dt in dts]
    slope = np.polyfit(np.log(dts), np.log(err), 1)[0]
    assert abs(slope - 2.0) <= 0.2, (slope, err)


def test_unsupported_models_take_the_general_path():
    scheme = GeneralizedAlpha(rho_inf=0.8)
    assert run(free_beam(n=3), 0.01, 0.02, True, scheme).info["compiled_step"]
    damped = solve_dynamic(free_beam(n=3), 0.01, 0.02, DynamicSettings(scheme=scheme, damping=Rayleigh(0.1, 0.0)))
    assert not damped.info["compiled_step"]
    assert not run(free_beam(n=3), 0.01, 0.02, True, scheme, modified=True).info["compiled_step"]
    follower = cantilever()
    follower.point_load("b_end", moment_type="follower", mz=0.01)  # a rotation-dependent moment
    res = run(follower, 0.01, 0.02, True, scheme)
    assert not res.info["compiled_step"] and res.info["steps"] == 2
    offset = Model(line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 3, "b"), dim=3, name="offset mass centre")
    offset.add_part("b", "beam3d", "b", values=dict(BEAM3D, ym=0.05))  # mass centre off the node line
    offset.initial_velocity("b", uz=1.0)
    assert not run(offset, 0.01, 0.02, True, scheme).info["compiled_step"]

    class Tuned(GeneralizedAlpha):  # another scheme class: the general path
        pass
    assert not run(free_beam(n=3), 0.01, 0.02, True, Tuned(rho_inf=0.8)).info["compiled_step"]
