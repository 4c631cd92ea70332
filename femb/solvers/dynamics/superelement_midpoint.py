"""Compiled mid-point step for models made of co-rotated Craig–Bampton superelements.

A superelement model spends most of a mid-point step of the general path
(femb.solvers.dynamics.midpoint3d, femb.solvers.dynamics.point_inertia) in Python around its
element kernels: the step system's set-up, the evaluation glue, the element loop, the Newton
loop and the end-of-step bookkeeping. For qualifying models the whole Newton loop of a step
— residual, step matrix, nodal Cayley rotations and rotary inertia, the superelements' step
force and analytic matrix, dense LU, the tests of femb.solvers.nonlinear.step_newton.iterate,
the step's work terms, the points' end state — runs in one compiled call
(femb.solvers.dynamics.superelement_midpoint_kernels.superelement_midpoint_step). Its
predictor, loads and prescribed increments (time functions evaluated once per step, the
prescribed rotations as Cayley vectors) are those of MidPoint3DSystem, which this system
extends; motion, Newton iteration counts and energy books agree with the general path to
round-off.

Qualifying models (``unsupported_reason`` returns None): oriented (3-D), one element block
of superelements (element kernels ``midpoint_step``, ``midpoint_step_force``,
``point_state``) plus, optionally, blocks of rigid bodies and point masses; supports,
prescribed DOFs (rotations included), constant and time-scaled loads, a constant gravity
field; no joints, damping, rotation-dependent loads, offset or timed-gravity mass points,
configuration-dependent masses, rotational variables shared by tied nodes; at most
``newton.DENSE_LIMIT`` free equations; full Newton (the driver sets
``compiled_superelement_step`` False for modified Newton). A step that fails in the
compiled loop goes through the driver's retry and cut-back like any other.

Switch: ``DynamicSettings(compiled_step=False)`` forces the general path.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from femb.core.errors import InputError
from femb.solvers.dynamics.midpoint3d import MidPoint3DSystem
from femb.solvers.dynamics.rigid_step import RIGID_ELEMENTS
from femb.solvers.dynamics.rigid_step_kernels import CONVERGED, NOISE_FLOOR, NOT_FINITE, ROUND_OFF, SINGULAR, RigidStepData
from femb.solvers.dynamics.step_system import State
from femb.solvers.dynamics.superelement_midpoint_kernels import DIVERGED, superelement_midpoint_step
from femb.solvers.linalg.factorization import SingularSystemError
from femb.solvers.nonlinear.newton import DENSE_LIMIT, NewtonReport, NewtonSettings
from femb.solvers.nonlinear.norms import vector_norm

_REASONS = {CONVERGED: "converged", ROUND_OFF: "converged (correction at round-off)",
            NOISE_FLOOR: "converged (residual at its noise floor)", NOT_FINITE: "residual is not finite",
            DIVERGED: "diverging"}


def unsupported_reason(problem) -> Optional[str]:
    """Why the compiled superelement step does not take ``problem`` (a DynamicProblem), or
    None when it qualifies (module docstring)."""
    if not getattr(problem, "oriented", False):
        return "no oriented nodes"
    table = problem.table
    se = [i for i, b in enumerate(table.blocks) if b.spec.kernels.midpoint_step is not None]
    if len(se) != 1:
        return "not exactly one superelement block"
    others = sorted({b.spec.name for i, b in enumerate(table.blocks) if i != se[0]} - RIGID_ELEMENTS)
    if others:
        return f"element types {others}"
    k = table.blocks[se[0]].spec.kernels
    if k.midpoint_step_force is None or k.point_state is None:
        return "superelement kernels without a force-only step or point state"
    if problem.joints is not None:
        return "joints"
    if problem.damping.active:
        return "damping"
    if problem.loads.has_moment_loads or problem.loads.has_follower_pressures:
        return "rotation-dependent (follower) loads"
    if problem.variable_mass or getattr(problem, "offset_points", None):
        return "configuration-dependent masses or offset mass points"
    if problem.point_inertia.gravity_timed:
        return "gravity with an amplitude on mass points"
    if "midpoint_force" in problem.__dict__:
        return "a replaced element force"
    if any(tc is not None for tc, _ in problem.chord_columns):
        return "element chords in the turn limit"
    if not np.all(problem.rotary.owner):
        return "rotational variables shared by tied nodes"
    if table.n_eq > DENSE_LIMIT:
        return f"more than {DENSE_LIMIT} free equations"
    return None


def superelement_step_data(problem) -> Optional[tuple]:
    """(RigidStepData as a plain tuple, the superelement block's (X, var, cells, props),
    prescribed variables) of ``problem``, or None when it does not qualify (cached on the
    problem)."""
    cache = problem.__dict__.get("_superelement_step_data")
    if cache is None:
        cache = problem.__dict__["_superelement_step_data"] = (
            _build(problem) if unsupported_reason(problem) is None else None,)
    return cache[0]


def _build(problem) -> tuple:
    t = problem.table
    lay = problem.rotary.layout
    M = problem.M_full.tocsr()
    M.sort_indices()
    i64 = lambda a: np.array(a, dtype=np.int64, order="C")  # noqa: E731
    f64 = lambda a: np.array(a, dtype=np.float64, order="C")  # noqa: E731
    e_i, e_f = np.zeros(0, dtype=np.int64), np.zeros(0)
    e_b = np.zeros(0, dtype=np.bool_)
    data = RigidStepData(
        var_eq=i64(t.var_eq), eq_var=i64(t.eq_var), rot3d=np.array(problem.rot3d, dtype=np.bool_),
        ref=f64(problem.reference_coordinates), m_indptr=i64(M.indptr), m_indices=i64(M.indices), m_data=f64(M.data),
        M_eq=f64(problem.M_eq.toarray()), lay_nodes=i64(lay.nodes), lay_var=i64(lay.var).reshape(-1, 3),
        J0=f64(problem.rotary.J0).reshape(-1, 3, 3), J0_pinv=f64(problem.rotary.J0_pinv).reshape(-1, 3, 3),
        kind=e_i, row0=e_i, jac0=e_i, blk0=e_i, Xa=e_f.reshape(0, 3), Xb=e_f.reshape(0, 3),
        ta=e_i.reshape(0, 3), tb=e_i.reshape(0, 3), c=e_f.reshape(0, 3), cb=e_f.reshape(0, 3), has_cb=e_b,
        frame=e_f.reshape(0, 3, 3), node_a=e_i, node_b=e_i, rot_a=e_b, rot_b=e_b, n_jac=0, jac_rows=e_i, jac_cols=e_i,
        jac_keep=e_i, st_total=0, st_eq_rows=e_i, st_eq_cols=e_i, st_keep=e_i, joint_eqs=e_i)
    pi = problem.point_inertia
    b = t.blocks[pi.blocks[0]]
    block = (f64(b.X), i64(b.var), i64(b.cells), f64(b.props), f64(pi._scales()[0]))
    groups = [np.atleast_1d(vars_) for vars_, _ in problem.prescribed]
    pres_var = i64(np.concatenate(groups)) if groups else np.zeros(0, dtype=np.int64)
    return tuple(data), block, pres_var


class SuperelementStepSystem(MidPoint3DSystem):
    """One step of the mid-point scheme of a qualifying superelement model (module
    docstring): MidPoint3DSystem's set-up (predictor, loads, prescribed increments, scales),
    all Newton iterations in one compiled call (``solve_step``), and ``finish`` giving the
    new State (``extra``: R, π, points_x, points_v) and the step's energy terms.

    Parameters
    ----------
    problem : DynamicProblem (qualifying, ``superelement_step_data`` not None)
    state : State at t_n
    h : step size
    """

    def __init__(self, problem, state: State, h: float) -> None:
        packed = superelement_step_data(problem)
        if packed is None:
            raise InputError(f"the compiled superelement step does not take this model ({unsupported_reason(problem)})")
        super().__init__(problem, state, h)
        self.packed = packed

    def solve_step(self, settings: NewtonSettings) -> NewtonReport:
        """All Newton iterations of the step (step_newton.iterate's algorithm and tests) in
        one compiled call; SingularSystemError when the step matrix is singular."""
        p, s, h = self.p, self.s, float(self.h)
        data, (X, var, cells, props, scales), pres_var = self.packed
        pi = p.point_inertia
        change = float(pi.reuse_change) if pi.reuse_step_matrix else -1.0
        cap = p.max_turn
        par = np.array([settings.tolerance, np.nan if settings.absolute_tolerance is None else settings.absolute_tolerance,
                        settings.increment_tolerance, settings.divergence_factor, self.noise_floor,
                        cap if cap and np.isfinite(cap) else 0.0, p.length_scale, vector_norm(s.u)])
        shape = (var.shape[0], pi.counts[0], 3)
        px0 = np.ascontiguousarray(s.extra["points_x"]).reshape(shape)
        pv0 = np.ascontiguousarray(s.extra["points_v"]).reshape(shape)
        n_var = s.u.size
        max_it = int(settings.max_iterations)
        z, u1, v1 = np.empty(n_var), np.empty(n_var), np.empty(n_var)
        R1 = np.empty_like(s.extra["R"])
        pi1 = np.empty_like(self.pi0)
        px1, pv1 = np.empty(shape), np.empty(shape)
        hist = np.empty(max_it + 1)
        r = np.empty(self.eq_var.size)
        out = np.empty(4)
        grav = pi.gravity_at(s.t + 0.5 * h)
        status = superelement_midpoint_step(data, X, var, cells, props, scales, change, s.u, s.v, s.extra["R"], self.pi0,
                                            px0, pv0, h, grav, self.f_ext, self.f_s, self.fext_norm, self.momentum_scale,
                                            self.z0, pres_var, par, max_it, z, R1, pi1, u1, v1, px1, pv1, hist, r, out)
        its = int(out[0])
        history = hist[: int(out[1])].tolist()
        if status == SINGULAR:
            raise SingularSystemError(f"dynamic step matrix is numerically singular (at Newton iteration {its} "
                                      f"of the step from t = {s.t:.6g})")
        self._done = (z, u1, v1, R1, pi1, px1.reshape(-1, 3), pv1.reshape(-1, 3), float(out[2]), float(out[3]))
        if status in (CONVERGED, ROUND_OFF, NOISE_FLOOR):
            return NewtonReport(True, its, history, r, _REASONS[status], state=z)
        if status in (NOT_FINITE, DIVERGED):
            return NewtonReport(False, its, history, r, _REASONS[status])
        return NewtonReport(False, max_it, history, r, f"no convergence in {max_it} iterations")

    def finish(self, z: np.ndarray) -> tuple[State, dict]:
        """New state and the step's energy terms (as MidPoint3DSystem.finish) at the
        increment z that ``solve_step`` accepted."""
        zs, u1, v1, R1, pi1, px1, pv1, work, constraint = self._done
        if z is not zs:
            raise ValueError("SuperelementStepSystem.finish takes the increment its solve_step accepted")
        terms = dict(work=work, dissipated=0.0, constraint=constraint)
        return State(self.t1, u1, v1, extra={"R": R1, "pi": pi1, "points_x": px1, "points_v": pv1}), terms
