"""NewtonSettings.absolute_tolerance: the residual test in force units that peer codes use
(OpenSees' NormUnbalance, Exudyn's absolute thresholds), replacing the relative one."""
import numpy as np
import pytest

from femb.core.errors import InputError
from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers import DynamicSettings, NewtonSettings, solve_dynamic, solve_static


def cantilever_with_tip_force(P=0.5):
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 10, "beam"))
    model.add_part("beam", "beam2d", "beam", values=dict(EA=1e4, EI=1.0, rhoA=1.0, rhoI=1e-3))
    model.fix("beam_start")
    model.point_load("beam_end", fy=P)
    return model


@pytest.mark.parametrize("threshold", [1e-4, 1e-9])
def test_static_load_steps_stop_at_the_absolute_residual(threshold):
    """Every accepted load factor has ‖r‖ ≤ the absolute threshold (the recorded residual
    history of the static solve), and a looser threshold never costs more iterations."""
    res = solve_static(cantilever_with_tip_force(), steps=4, settings=NewtonSettings(absolute_tolerance=threshold))
    assert np.all(np.asarray(res.series("residual")) <= threshold)
    tight = solve_static(cantilever_with_tip_force(), steps=4, settings=NewtonSettings(absolute_tolerance=1e-11))
    assert res.info["newton_iterations"] <= tight.info["newton_iterations"]
    tip = res.table.var_of(res.model.node("beam_end"), "uy")
    # the two solutions differ by about the residual over the stiffness (EI/L³ = 1): Newton converges quadratically
    assert abs(res.states[-1][tip] - tight.states[-1][tip]) <= 10 * threshold


def test_dynamic_steps_stop_at_the_absolute_residual():
    """The time-step Newton loop takes the same absolute test: a looser threshold needs no
    more iterations and stays within the threshold's effect on the trajectory."""
    loose = solve_dynamic(cantilever_with_tip_force(), 0.01, 0.1, dynamic_settings(1e-6))
    tight = solve_dynamic(cantilever_with_tip_force(), 0.01, 0.1, dynamic_settings(1e-12))
    assert loose.info["newton_iterations"] <= tight.info["newton_iterations"]
    tip = loose.table.var_of(loose.model.node("beam_end"), "uy")
    assert abs(loose.states[-1][tip] - tight.states[-1][tip]) <= 1e-4


def dynamic_settings(threshold):
    return DynamicSettings(newton=NewtonSettings(absolute_tolerance=threshold))


def test_a_non_positive_absolute_tolerance_is_refused():
    with pytest.raises(InputError, match="absolute_tolerance"):
        NewtonSettings(absolute_tolerance=0.0)
