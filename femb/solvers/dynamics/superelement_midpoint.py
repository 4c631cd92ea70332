"""Compiled mid-point steps for models made of co-rotated Craig–Bampton superelements.

A superelement model spends most of a mid-point step of the general path
(femb.solvers.dynamics.midpoint3d, femb.solvers.dynamics.point_inertia) in Python around its
element kernels: the step system's set-up, the evaluation glue, the element loop, the Newton
loop and the end-of-step bookkeeping. For qualifying models ``SuperelementSteps`` runs the
steps between two recorded frames in one compiled call
(femb.solvers.dynamics.superelement_midpoint_kernels.superelement_midpoint_steps): per step
the predictor, loads and prescribed increments of MidPoint3DSystem (time functions and
amplitudes evaluated in Python once per step, the prescribed rotations' Cayley increments
in the kernel) and the whole Newton loop — residual, step matrix, nodal Cayley rotations
and rotary inertia, the superelements' step force and analytic matrix, dense LU, the tests
of femb.solvers.nonlinear.step_newton.iterate — then the end state and the step's work
terms. The superelement's mass points are carried between the steps as their velocity
moments (elements.superelement_point_moments, exact), and their positions and velocities
(``State.extra``: points_x, points_v) are made once per call, at the recorded frame. Motion,
Newton iteration counts and energy books agree with the general path to round-off.

Qualifying models (``unsupported_reason`` returns None): oriented (3-D), one element block
of superelements (elements.superelement_step) whose mass points have no second-order rows
(the step force from the points' mass and velocity moments), plus, optionally, blocks of
rigid bodies and point masses; supports, prescribed DOFs (rotations included), constant and
time-scaled loads, a constant gravity field; no joints, damping, rotation-dependent loads,
offset or timed-gravity mass points, configuration-dependent masses, rotational variables
shared by tied nodes; at most ``newton.DENSE_LIMIT`` free equations; the mid-point scheme
with full Newton and femb's own linear solve (``SuperelementSteps.build`` returns None
otherwise). A step that does not converge in the compiled loop is done again by the general
path, which also owns the retry with shorter corrections and the cut-backs; compiled steps
resume at the nominal step size.

Switch: ``DynamicSettings(compiled_step=False)`` forces the general path.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy as np
from numpy.typing import NDArray

from femb.elements import superelement_step
from femb.solvers.dynamics.midpoint3d import MidPoint3DSystem
from femb.solvers.dynamics.planar_step import WholeSteps
from femb.solvers.dynamics.rigid_step import RIGID_ELEMENTS
from femb.solvers.dynamics.rigid_step_kernels import RigidStepData
from femb.solvers.dynamics.schemes import MidPoint
from femb.solvers.dynamics.step_system import State
from femb.solvers.dynamics.superelement_midpoint_kernels import superelement_midpoint_steps
from femb.solvers.nonlinear.newton import DENSE_LIMIT

if TYPE_CHECKING:
    from femb.solvers.dynamics.problem import DynamicProblem
    from femb.solvers.nonlinear.newton import NewtonSettings


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
    block = table.blocks[se[0]]
    if block.spec.kernels.midpoint_step is not superelement_step.midpoint_step:
        return "element kernels other than the superelement's"
    m, n = block.spec.n_edof, block.X.shape[1]
    if any(superelement_step.has_second_order(np.ascontiguousarray(row, dtype=np.float64), m, n) for row in block.props):
        return "mass points with second-order (foreshortening) rows"
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


def _weighted_moments(p_row: NDArray[np.float64], m: int) -> NDArray[np.float64]:
    """The mass moments (superelement_step.point_moments) of the points of a property row with
    the weights m_j² (what the momentum scale Σ m_j²|v_j|² of the compiled steps needs)."""
    row = np.ascontiguousarray(p_row, dtype=np.float64)
    mass, pos, modes = superelement_step._points(row, m)
    origin = superelement_step._moments(row, m)[0]
    return superelement_step.point_moments(np.asarray(mass) ** 2, pos, modes, origin)


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
    m = b.var.shape[1]
    moments2 = [_weighted_moments(row, m) for row in b.props]
    block = (f64(b.X), i64(b.var), i64(b.cells), f64(b.props), f64(pi._scales()[0]), f64(moments2))
    groups = [np.atleast_1d(vars_) for vars_, _ in problem.prescribed]
    pres_var = i64(np.concatenate(groups)) if groups else np.zeros(0, dtype=np.int64)
    return tuple(data), block, pres_var


class SuperelementSteps(WholeSteps):
    """Whole compiled mid-point steps of a qualifying superelement model (module docstring).

    Build with ``SuperelementSteps.build(problem, scheme, newton, solve_correction)`` (None
    when the model does not qualify); ``advance`` (WholeSteps) runs the steps of the driver's
    time grid up to the next recorded one."""

    turn_slot = 5  # the kernel's param[5]; 0: no turn limit
    no_turn_limit = 0.0

    def __init__(self, problem: DynamicProblem, newton: NewtonSettings, packed: tuple) -> None:
        p = problem
        self.p = p
        self.newton = newton
        self.data, self.block, self.pres_var = packed
        pi = p.point_inertia
        self.n_p = int(pi.counts[0])
        self.f_const = np.array(p.f_const, dtype=np.float64)
        self.amplitudes = [amp for amp, _ in p._timed]
        n_var = p.table.n_var
        self.timed = np.array([np.asarray(vec, dtype=np.float64) for _, vec in p._timed]).reshape(len(p._timed), n_var)
        lay = p.rotary.layout
        records = lay.prescribed_records()
        rows = np.array([row for row, _ in records], dtype=np.int64)
        self.rot_items = [items for _, items in records]
        self.rot_var = np.array(lay.var[rows], dtype=np.int64).reshape(-1, 3)
        self.rot_node = np.array(lay.nodes[rows], dtype=np.int64)
        # the prescribed variables other than the rotations of nodes with a prescribed
        # rotation (_StepSystem._prescribed_rotations), with their records
        rot_vars = set(self.rot_var.ravel().tolist())
        keep = [(int(q), rec) for vars_, rec in p.prescribed for q in np.atleast_1d(vars_) if int(q) not in rot_vars]
        self.keep_var = np.array([q for q, _ in keep], dtype=np.int64)
        self.keep_records = [rec for _, rec in keep]
        self.fixed = np.array(p.table.fixed_vars, dtype=np.int64)
        nan = float("nan")
        self.param = np.zeros(11)
        self.param[:7] = [newton.tolerance, nan if newton.absolute_tolerance is None else float(newton.absolute_tolerance),
                          newton.increment_tolerance, newton.divergence_factor, MidPoint3DSystem.noise_floor, 0.0,
                          p.length_scale]
        self.param[8:11] = pi.gravity  # constant (fields with an amplitude do not qualify)

    @classmethod
    def build(cls, problem: DynamicProblem, scheme: Any, newton: NewtonSettings,
              solve_correction: Optional[Any] = None) -> Optional[SuperelementSteps]:
        """The compiled stepper of ``problem`` when the model qualifies (module docstring),
        for the mid-point scheme with full Newton and femb's own linear solve; else None."""
        if type(scheme) is not MidPoint or newton.modified or solve_correction is not None:
            return None
        packed = superelement_step_data(problem)
        return None if packed is None else cls(problem, newton, packed)

    def _steps(self, state: State, hs: NDArray[np.float64], amps: NDArray[np.float64], t1: list[float],
               its: NDArray[np.int64], books: NDArray[np.float64]) -> tuple[int, NDArray[np.float64], NDArray[np.float64], dict]:
        """``superelement_midpoint_steps`` (WholeSteps._steps; State.extra: the nodal rotations
        R, momenta pi and the mass points' positions and velocities)."""
        p = self.p
        k = hs.size
        keep_val = np.array([[p.prescribed_value(rec, t) for rec in self.keep_records] for t in t1]).reshape(k, -1)
        theta = np.zeros((k, self.rot_var.shape[0], 3))
        for j, t in enumerate(t1):
            for i, items in enumerate(self.rot_items):
                for c, rec in items:
                    theta[j, i, c] = p.prescribed_value(rec, t)
        X, var, cells, props, scales, moments2 = self.block
        shape = (var.shape[0], self.n_p, 3)
        ex = state.extra
        u, v = np.array(state.u, dtype=np.float64), np.array(state.v, dtype=np.float64)
        R, pi = np.array(ex["R"], dtype=np.float64), np.array(ex["pi"], dtype=np.float64)
        px = np.array(ex["points_x"], dtype=np.float64).reshape(shape)
        pv = np.array(ex["points_v"], dtype=np.float64).reshape(shape)
        inertia = p.point_inertia
        change = float(inertia.reuse_change) if inertia.reuse_step_matrix else -1.0
        done, _ = superelement_midpoint_steps(self.data, X, var, cells, props, moments2, scales, change, u, v, R, pi, px, pv,
                                              hs, amps, self.timed, self.f_const, self.keep_var,
                                              keep_val, self.rot_var, self.rot_node, theta, self.fixed, self.pres_var,
                                              self.param, int(self.newton.max_iterations), its, books)
        return done, u, v, {"R": R, "pi": pi, "points_x": px.reshape(-1, 3), "points_v": pv.reshape(-1, 3)}
