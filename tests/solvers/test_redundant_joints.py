"""Redundant joint equations: dropped only while they keep holding (issue 15, items 1–2).

Equations whose Jacobian rows depend on the others at set-up are dropped; every dropped
equation is then checked at each static increment and dynamic step and counted in the
``constraint_residual`` history. Contradictory joints (two distance joints between the
same points, lengths 1.0 and 0.9) stop with a ModelError naming both, instead of a result
that violates one. A mechanism started in a singular configuration (parallelogram
four-bar with all bars collinear) gets its dropped equation back in dynamics as soon as
the rank says it is independent, or stops naming the joint when the first step already
violated it (and in statics). Genuinely redundant loops (a planar four-bar of revolute
joints in 3-D) and mechanisms passing through a singular configuration during a run keep
working.
"""
import logging

import numpy as np
import pytest

from femb.assembly.joints import ConstraintSet
from femb.core.errors import ModelError
from femb.mesh import Mesh, line_mesh
from femb.model import Material, Model, Section
from femb.solvers import solve_dynamic, solve_static


# ---------------------------------------------------------------------------- contradictory joints
def tied_cantilever(lengths):
    """A cantilever (L = 1, 4 beam2d elements) whose tip hangs from the point (1, 1) by
    distance joints of the given lengths (None: the reference distance 1), pulled sideways."""
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 4, "beam"))
    model.add_part("beam", "beam2d", "beam", Material(E=1.0), Section(A=1e4, I=2.0))
    model.fix("beam_start")
    for i, length in enumerate(lengths):
        model.distance(None, "beam_end", point=(1.0, 1.0), length=length, name=f"tie {i}")
    model.point_load("beam_end", fx=1.0)
    return model


def test_contradictory_distance_joints_in_statics_are_an_error_naming_both():
    with pytest.raises(ModelError) as err:
        solve_static(tied_cantilever([1.0, 0.9]), steps=2)
    msg = str(err.value)
    assert "'tie 0'" in msg and "'tie 1'" in msg and "contradict" in msg
    assert "9.500e-02" in msg  # (0.9² − 1)/(2·1): the dropped tie's residual where the other one holds


def test_consistent_redundant_joints_are_dropped_and_every_equation_holds(caplog):
    with caplog.at_level(logging.WARNING):
        res = solve_static(tied_cantilever([None, 1.0]), steps=2)
    assert "redundant" in caplog.text
    ref = solve_static(tied_cantilever([None]), steps=2)
    assert np.allclose(res.final, ref.final, atol=1e-12)
    assert abs(ref.dof(4, "ux", -1)) > 5e-5  # the tie holds a tip that moves
    cs = ConstraintSet(tied_cantilever([None, 1.0]), res.table)
    assert np.abs(cs.evaluate(res.final, 1.0, jacobian=False)).max() < 1e-12
    assert res.series("constraint_residual")[1:].max() < 1e-12


def pendulum(lengths):
    """A unit point mass at (0.9, 0) on distance joints to the origin (None: 0.9), gravity −y."""
    model = Model(Mesh(np.array([[0.9, 0.0]]), {}, {"bob": [0]}))
    model.add_discrete("bob", "point_mass2d_translational", "bob", m=1.0)
    for i, length in enumerate(lengths):
        model.distance(None, "bob", point=(0.0, 0.0), length=length, name=f"rod {i}")
    model.gravity((0.0, -9.81))
    return model


@pytest.mark.parametrize("lengths", [[None, 1.0], [1.0, None]])
def test_contradictory_distance_joints_in_dynamics_are_an_error_naming_both(lengths):
    """Whichever of the two rods the rank decision keeps, the start is refused."""
    with pytest.raises(ModelError) as err:
        solve_dynamic(pendulum(lengths), 0.01, 0.2)
    msg = str(err.value)
    assert "'rod 0'" in msg and "'rod 1'" in msg and "contradict" in msg


def ball_and_tether(tether):
    """A rigid body (3-D, centre at X = (1, 0, 0.2)) on a spherical joint to ground at the
    origin, plus a distance joint from its centre to the origin of length ``tether`` × |X|:
    the tether's row is a combination of the ball's three rows."""
    X = np.array([1.0, 0.0, 0.2])
    model = Model(Mesh(X[None, :], {}, {"body": [0]}), dim=3)
    model.add_discrete("body", "rigid_body3d", "body", m=1.0, Jxx=0.1, Jyy=0.2, Jzz=0.25)
    model.joint3d("spherical", "body", None, point=(0.0, 0.0, 0.0), name="ball")
    model.distance(None, "body", point=(0.0, 0.0, 0.0), length=tether * np.linalg.norm(X), name="tether")
    model.gravity((0.0, 0.0, -9.81))
    model.initial_velocity("body", uy=0.5, rz=0.5)
    return model


def test_contradictory_3d_joints_are_an_error_naming_both():
    with pytest.raises(ModelError) as err:
        solve_dynamic(ball_and_tether(0.9), 0.01, 0.2)
    msg = str(err.value)
    assert "'ball'" in msg and "'tether'" in msg and "contradict" in msg


def test_consistent_3d_tether_is_dropped_and_holds_while_the_body_swings():
    res = solve_dynamic(ball_and_tether(1.0), 0.01, 0.3)
    assert len(res.info["constraint_rows"]) == 3
    cs = ConstraintSet(ball_and_tether(1.0), res.table)
    worst = max(np.abs(cs.evaluate(u, 0.0, jacobian=False, rotations=R)).max()
                for u, R in zip(res.states, res.arrays["rotations"]))
    assert worst < 1e-12 and res.series("constraint_residual").max() < 1e-12
    assert res.dof(0, "uz", -1) < -0.05  # it swings down


def test_constraint_residual_history_counts_the_dropped_equations():
    """Rods of 0.9 and 0.9·(1 + 1e-10): within the violation tolerance, so the run goes on,
    and the history shows the dropped rod's residual 0.9e-10, not the kept rod's round-off."""
    res = solve_dynamic(pendulum([None, 0.9 * (1.0 + 1e-10)]), 0.01, 0.2)
    r = res.series("constraint_residual")
    assert np.all(r > 0.5 * 0.9e-10) and np.all(r < 2.0 * 0.9e-10)
    assert res.dof(0, "uy", -1) < -0.05  # it swings


# ---------------------------------------------------------------------------- singular configurations
def parallelogram(angle):
    """Parallelogram four-bar of rigid bodies (rigid_body2d at the bar centres, pins B and C
    as massless nodes): ground pivots A = (0, 0) and D = (2, 0), crank A–B and rocker D–C of
    length 1 at ``angle`` from the x axis, coupler B–C of length 2; gravity −y. At angle 0 or
    π every bar lies on the x axis: the singular configuration (the Jacobian of the 12 pin
    equations loses one rank there only)."""
    e = np.array([np.cos(angle), np.sin(angle)])
    A, D = np.zeros(2), np.array([2.0, 0.0])
    B, C = A + e, D + e
    pts = np.array([(A + B) / 2, (B + C) / 2, (D + C) / 2, B, C])
    model = Model(Mesh(pts, {}, {"crank": [0], "coupler": [1], "rocker": [2], "B": [3], "C": [4]}), name="parallelogram")
    model.add_discrete("crank body", "rigid_body2d", "crank", m=1.0, J=1.0 / 12)
    model.add_discrete("coupler body", "rigid_body2d", "coupler", m=2.0, J=2.0 / 3)
    model.add_discrete("rocker body", "rigid_body2d", "rocker", m=1.0, J=1.0 / 12)
    model.add_discrete("pin B", "point_mass2d_translational", "B", m=0.0)
    model.add_discrete("pin C", "point_mass2d_translational", "C", m=0.0)
    model.body_point("crank", None, point=A, name="A ground pin")
    model.body_point("crank", "B", name="B crank")
    model.body_point("coupler", "B", name="B coupler")
    model.body_point("coupler", "C", name="C coupler")
    model.body_point("rocker", "C", name="C rocker")
    model.body_point("rocker", None, point=D, name="D ground pin")
    model.gravity((0.0, -9.81))
    return model


def test_parallelogram_started_collinear_takes_the_dropped_equation_back_and_every_joint_holds(caplog):
    """Before: one equation of a ground pin was dropped at t = 0 for good, and the pin
    opened by ~1 m within 1 s while the history showed |Φ| ~ 1e-15. Now the rank is checked
    again after every step: the equation is independent after the first one, still holds
    (to 1e-8 × the length scale), and is solved from then on. The mechanism moves on its
    parallelogram branch (crank and rocker turn alike, the coupler does not turn)."""
    with caplog.at_level(logging.INFO):
        res = solve_dynamic(parallelogram(0.0), 0.01, 1.0)
    assert "redundant" in caplog.text and "solved again from t = 0.01" in caplog.text
    cs = ConstraintSet(parallelogram(0.0), res.table)
    worst = max(np.abs(cs.evaluate(u, 0.0, jacobian=False)).max() for u in res.states)
    assert worst < 1e-12
    assert res.series("constraint_residual").max() < 1e-12
    assert len(res.info["constraint_rows"]) == 12 and all(lam.size == 12 for lam in res.arrays["multipliers"])
    crank, coupler, rocker = (res.dof(n, "rz") for n in (0, 1, 2))
    assert crank.min() < -2.5  # swings down and up the other side
    assert np.abs(rocker - crank).max() < 1e-9 and np.abs(coupler).max() < 1e-9
    assert np.ptp(res.series("total_energy")) < 1e-9 * res.series("kinetic_energy").max()


def test_continued_run_of_the_parallelogram_solves_every_equation_from_its_start():
    """A run continued at t = 0.3 sets up at the reference (collinear) configuration again,
    but its start state is not singular: the dropped equation is taken back before the
    first step, and the two halves give the uninterrupted run."""
    full = solve_dynamic(parallelogram(0.0), 0.01, 0.6)
    first = solve_dynamic(parallelogram(0.0), 0.01, 0.3)
    second = solve_dynamic(parallelogram(0.0), 0.01, 0.6, t0=0.3, u0=first.final, v0=first.velocities[-1])
    assert len(second.info["constraint_rows"]) == 12
    assert np.abs(second.final - full.final).max() < 1e-12
    assert np.abs(full.final).max() > 0.1
    assert second.series("constraint_residual").max() < 1e-12


def test_parallelogram_left_too_far_in_the_first_step_stops_naming_the_dropped_joint(caplog):
    """With Δt = 0.1 the first step moves the dropped ground-pin equation off by 1e-5 before
    it can be taken back: the run stops naming that joint instead of going on wrong."""
    with caplog.at_level(logging.WARNING):
        with pytest.raises(ModelError) as err:
            solve_dynamic(parallelogram(0.0), 0.1, 1.0)
    msg = str(err.value)
    dropped = [name for name in ("A ground pin", "B crank", "B coupler", "C coupler", "C rocker", "D ground pin")
               if f"joint '{name}' does not hold" in msg]
    assert len(dropped) == 1 and f"'{dropped[0]}'" in caplog.text  # the joint the set-up dropped
    assert "singular" in msg and "at t = 0.1)" in msg


def test_static_start_in_a_singular_configuration_stops_naming_the_dropped_joint():
    """A cantilever tip held by distance joints to (2, 0) and (3, 0): two circles tangent at
    the tip, so both rows are horizontal there (rank 1, one dropped) but not anywhere else.
    The kept link alone lets the tip move on its circle under a transverse load, which the
    other link forbids: the solve stops naming the dropped one."""
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 4, "beam"))
    model.add_part("beam", "beam2d", "beam", Material(E=1.0), Section(A=1e4, I=2.0))
    model.fix("beam_start")
    model.distance(None, "beam_end", point=(2.0, 0.0), name="near link")
    model.distance(None, "beam_end", point=(3.0, 0.0), name="far link")
    model.point_load("beam_end", fy=1.0)
    with pytest.raises(ModelError) as err:
        solve_static(model, steps=2)
    msg = str(err.value)
    assert ("joint 'near link' does not hold" in msg) != ("joint 'far link' does not hold" in msg)
    assert "singular" in msg and "load factor 0.5" in msg


def test_parallelogram_passes_through_its_singular_configurations():
    """Released at 1 rad, the crank swings down through θ = 0 and on past θ = −π (both
    collinear): every joint holds at every step and energy is conserved."""
    res = solve_dynamic(parallelogram(1.0), 0.01, 1.5)
    theta = 1.0 + res.dof(0, "rz")
    assert theta.min() < -np.pi < 0.0 < theta.max()
    cs = ConstraintSet(parallelogram(1.0), res.table)
    assert max(np.abs(cs.evaluate(u, 0.0, jacobian=False)).max() for u in res.states) < 1e-12
    assert res.series("constraint_residual").max() < 1e-12
    assert np.ptp(res.series("total_energy")) < 1e-9 * res.series("kinetic_energy").max()


def planar_four_bar_3d_bodies():
    """The over-constrained loop of tests/solvers/test_joints3d.py (planar four-bar of
    revolute joints about z in 3-D: 18 DOFs, 20 equations, 3 redundant everywhere) with
    rigid bodies at the link nodes, swinging under gravity −y."""
    A, B, C, D = [0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [2.5, 2.0, 0.0], [3.0, 0.0, 0.0]
    model = Model(Mesh(np.array([A, B, C]), {}, {}), dim=3, name="four-bar")
    for i, m in enumerate((1.0, 2.0, 1.0)):
        model.add_discrete(f"link {i}", "rigid_body3d", i, m=m, Jxx=0.1 * m, Jyy=0.1 * m, Jzz=0.2 * m)
    z = (0.0, 0.0, 1.0)
    model.joint3d("revolute", 0, None, axis=z, name="A ground")
    model.joint3d("revolute", 0, 1, axis=z, name="B crank-coupler")
    model.joint3d("revolute", 1, 2, axis=z, name="C coupler-rocker")
    model.joint3d("revolute", 2, None, axis=z, point=D, name="D ground")
    model.gravity((0.0, -9.81, 0.0))
    return model


def test_genuinely_redundant_3d_loop_runs_with_every_equation_holding(caplog):
    with caplog.at_level(logging.WARNING):
        res = solve_dynamic(planar_four_bar_3d_bodies(), 0.02, 0.6)
    assert "3 redundant constraint equation(s)" in caplog.text
    assert len(res.info["constraint_rows"]) == 17
    cs = ConstraintSet(planar_four_bar_3d_bodies(), res.table)
    assert cs.m == 20
    worst = max(np.abs(cs.evaluate(u, 0.0, jacobian=False, rotations=R)).max()
                for u, R in zip(res.states, res.arrays["rotations"]))
    assert worst < 1e-10
    assert res.series("constraint_residual").max() < 1e-10
    assert abs(res.dof(1, "uy", -1)) > 5e-3  # the coupler falls
