"""Compiled mid-point step for jointed rigid-body models (one numba call per time step).

Models made only of 3-D rigid bodies (``rigid_body3d``) and point masses (``point_mass3d``),
with supports, constant or time-scaled loads (gravity, nodal forces, moments about fixed
axes) and 3-D joints of every kind (spherical, revolute, universal, cylindrical, prismatic;
attachment points anywhere on the bodies) are integrated by the energy-momentum mid-point
scheme of femb.solvers.dynamics.midpoint3d. For such models the whole Newton loop of a
step — residual, step matrix, joint equations, null-space elimination, convergence tests —
runs in one compiled call (femb.solvers.dynamics.rigid_step_kernels.rigid_midpoint_step),
which is the general loop (MidPoint3DSystem iterated by
femb.solvers.nonlinear.newton.projected_newton) operation for operation: the motion, the
Newton iteration counts, the multipliers and the energy books agree with the general path
to round-off. The time grid, the damped retry and the cut-back of a failed step stay with
the driver (femb.solvers.dynamics.driver).

The compiled step is chosen automatically when the model qualifies (``unsupported_reason``
returns None); ``DynamicSettings(compiled_step=False)`` forces the general path.
Not covered (general path): other element types, damping, rotation-dependent (follower)
moments and pressures, prescribed motions, mass points
inside elements, rotational variables shared by tied nodes, joints of other families
(scalar or planar kinds), joint rows dropped as redundant, models without joints, and
more than ``newton.DENSE_LIMIT`` free equations.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
from numpy.typing import NDArray

from femb.assembly.joints.spatial import Joints3D
from femb.core.errors import InputError
from femb.solvers.dynamics.rigid_step_kernels import (
    CONVERGED,
    DEP_SINGULAR,
    NOISE_FLOOR,
    NOT_FINITE,
    ROUND_OFF,
    SINGULAR,
    RigidStepData,
    rigid_midpoint_step,
)
from femb.solvers.dynamics.step_system import State
from femb.solvers.linalg.factorization import SingularSystemError
from femb.solvers.nonlinear.newton import DENSE_LIMIT, NewtonReport, NewtonSettings
from femb.solvers.nonlinear.norms import vector_norm

RIGID_ELEMENTS = frozenset({"rigid_body3d", "point_mass3d"})
"""Element types the compiled step takes (inertia only, no internal forces)."""

_REASONS = {CONVERGED: "converged", ROUND_OFF: "converged (correction at round-off)",
            NOISE_FLOOR: "converged (residual at its noise floor)", NOT_FINITE: "residual is not finite"}


def unsupported_reason(problem) -> Optional[str]:
    """Why the compiled step does not take ``problem`` (a DynamicProblem), or None when it
    qualifies (module docstring)."""
    if not getattr(problem, "oriented", False):
        return "no oriented nodes"
    table = problem.table
    other = sorted({b.spec.name for b in table.blocks} - RIGID_ELEMENTS)
    if other:
        return f"element types {other}"
    if problem.prescribed:
        return "prescribed motion"
    if problem.damping.active:
        return "damping"
    if problem.loads.has_moment_loads or problem.loads.has_follower_pressures:
        return "rotation-dependent (follower) loads"
    if problem.point_inertia or problem.variable_mass:
        return "mass points inside elements or configuration-dependent masses"
    joints = problem.joints
    if joints is None:
        return "no joints"
    if len(joints.evaluators) != 1 or not isinstance(joints.evaluators[0], Joints3D):
        return "joints other than the 3-D kinds"
    if problem.active_rows.size != joints.m:
        return "joint rows dropped as redundant"
    if not np.all(problem.rotary.owner):
        return "rotational variables shared by tied nodes"
    if table.n_eq > DENSE_LIMIT:
        return f"more than {DENSE_LIMIT} free equations"
    jv = joints.variables
    if int(np.count_nonzero(table.var_eq[jv] >= 0)) < joints.m:
        return "more joint rows than jointed free equations"
    return None


def rigid_step_data(problem) -> Optional[RigidStepData]:
    """The RigidStepData of ``problem``, or None when it does not qualify (cached on the
    problem)."""
    cache = problem.__dict__.get("_rigid_step_data")
    if cache is not None:
        return cache[0]
    data = None if unsupported_reason(problem) is not None else _build(problem)
    problem.__dict__["_rigid_step_data"] = (data, None if data is None else tuple(data))
    return data


def _build(problem) -> RigidStepData:
    t = problem.table
    lay = problem.rotary.layout
    ev = problem.joints.evaluators[0]
    M = problem.M_full.tocsr()
    M.sort_indices()
    rows, cols, keep = problem.joints.__dict__.get("_patterns", {}).get("G", (None, None, None))
    if rows is None:  # the Jacobian's kept triplets: those at variables (cols ≥ 0)
        keep = ev.jac_cols >= 0
        rows, cols = ev.jac_rows[keep], ev.jac_cols[keep]
    st_rows, st_cols, st_keep, st_total = ev._square["midpoint_stiffness"]
    jv = np.asarray(problem.joints.variables, dtype=np.int64)
    jeq = np.sort(t.var_eq[jv][t.var_eq[jv] >= 0]).astype(np.int64)
    i64 = lambda a: np.ascontiguousarray(a, dtype=np.int64)  # noqa: E731
    f64 = lambda a: np.ascontiguousarray(a, dtype=np.float64)  # noqa: E731
    return RigidStepData(
        var_eq=i64(t.var_eq), eq_var=i64(t.eq_var), rot3d=np.ascontiguousarray(problem.rot3d, dtype=np.bool_),
        ref=f64(problem.reference_coordinates), m_indptr=i64(M.indptr), m_indices=i64(M.indices), m_data=f64(M.data),
        M_eq=f64(problem.M_eq.toarray()), lay_nodes=i64(lay.nodes), lay_var=i64(lay.var).reshape(-1, 3),
        J0=f64(problem.rotary.J0).reshape(-1, 3, 3), J0_pinv=f64(problem.rotary.J0_pinv).reshape(-1, 3, 3),
        kind=i64(ev.kind), row0=i64(ev.row0), jac0=i64(ev.jac0), blk0=i64(ev.blk0), Xa=f64(ev.Xa), Xb=f64(ev.Xb),
        ta=i64(ev.ta), tb=i64(ev.tb), c=f64(ev.c), cb=f64(ev.cb), has_cb=np.ascontiguousarray(ev.has_cb, dtype=np.bool_),
        frame=f64(ev.frame), node_a=i64(ev.node_a), node_b=i64(ev.node_b),
        rot_a=np.ascontiguousarray(ev.rot_a, dtype=np.bool_), rot_b=np.ascontiguousarray(ev.rot_b, dtype=np.bool_),
        n_jac=int(ev.jac_rows.size), jac_rows=i64(rows), jac_cols=i64(cols), jac_keep=i64(np.flatnonzero(keep)),
        st_total=int(st_total), st_eq_rows=i64(t.var_eq[st_rows]), st_eq_cols=i64(t.var_eq[st_cols]),
        st_keep=i64(st_keep), joint_eqs=jeq)


def _zeros(problem):
    """A zero vector over the variables (n_var,), kept on the problem (read only)."""
    out = problem.__dict__.get("_rigid_step_zeros")
    if out is None:
        out = problem.__dict__["_rigid_step_zeros"] = np.zeros(problem.table.n_var)
    return out


def _parameters(problem, settings):
    """The kernel's parameter vector (8,) for ``settings`` (kept per settings object and turn
    limit; the last entry, ‖u_n‖, is set per step)."""
    cap = problem.max_turn
    key = (id(settings), cap)
    hit = problem.__dict__.get("_rigid_step_par")
    if hit is not None and hit[0] == key and hit[1] is settings:
        return hit[2]
    par = np.array([settings.tolerance, settings.absolute_tolerance or 0.0, settings.increment_tolerance,
                    settings.constraint_tolerance * problem.length_scale, RigidStepSystem.noise_floor,
                    cap if cap and np.isfinite(cap) else 0.0, problem.length_scale, 0.0])
    problem.__dict__["_rigid_step_par"] = (key, settings, par)
    return par


class RigidStepSystem:
    """One step of the mid-point scheme of a qualifying rigid-body model, solved by one
    compiled call (``solve_step``); ``finish`` gives the new State and the step's energy
    terms like MidPoint3DSystem.finish.

    Parameters
    ----------
    problem : DynamicProblem (qualifying, ``rigid_step_data`` not None)
    state : State at t_n (``extra``: R (n_nodes, 3, 3), π (k, 3))
    h : step size
    """

    noise_floor = 1e-9  # as MidPoint3DSystem

    def __init__(self, problem, state: State, h: float) -> None:
        self.p = problem
        self.s = state
        self.h = h
        self.t1 = state.t + h
        data = rigid_step_data(problem)
        if data is None:
            raise InputError(f"the compiled rigid step does not take this model ({unsupported_reason(problem)})")
        self.data = data
        self.packed = problem.__dict__["_rigid_step_data"][1]  # the kernels' argument (a plain tuple)
        if problem._timed:  # the loads with an amplitude, at the mid time of the step
            self.f_s = problem.scaled_loads(state.t + 0.5 * h)
            self.f_ext = problem.f_const + self.f_s
        else:
            self.f_s = _zeros(problem)
            self.f_ext = problem.f_const
        self.multipliers: Optional[NDArray[np.float64]] = None
        self.multipliers_guess: Optional[NDArray[np.float64]] = None
        self.force_scales: Optional[NDArray[np.float64]] = None  # set by solve_step

    def solve_step(self, settings: NewtonSettings) -> NewtonReport:
        """All Newton iterations of the step (femb.solvers.nonlinear.newton.projected_newton's
        algorithm and tests) in one compiled call; SingularSystemError when the reduced step
        matrix is singular."""
        p, s, d = self.p, self.s, self.data
        m = p.joints.m
        guess = self.multipliers_guess
        lam0 = np.zeros(m) if guess is None else np.ascontiguousarray(guess, dtype=np.float64)
        par = _parameters(p, settings)
        par[7] = vector_norm(s.u)
        n_var = s.u.size
        max_it = int(settings.max_iterations)
        z, u1, v1 = np.empty(n_var), np.empty(n_var), np.empty(n_var)
        R1 = np.empty_like(s.extra["R"])
        pi1 = np.empty_like(s.extra["pi"])
        lam = np.empty(m)
        hist, scales = np.empty(max_it + 1), np.empty(max_it + 1)
        r = np.empty(d.eq_var.size)
        out = np.empty(5)
        status = rigid_midpoint_step(self.packed, s.u, s.v, s.extra["R"], s.extra["pi"], float(self.h), self.f_ext,
                                     self.f_s, lam0, guess is not None, par, max_it, z, R1, pi1, lam, hist, scales, r, out, u1, v1)
        history = hist[: int(out[3])].tolist()
        self.force_scales = scales[: int(out[3])]  # of each convergence test (diagnostics)
        its = int(out[0])
        if status == SINGULAR:
            raise SingularSystemError(f"reduced (constrained) tangent matrix is numerically singular "
                                      f"(at Newton iteration {its} of the step from t = {s.t:.6g})")
        if status == DEP_SINGULAR:  # as the general path's inverse of G_d (femb.solvers.linalg.nullspace)
            raise np.linalg.LinAlgError("Singular matrix")
        self._z, self._R1, self._pi1, self._u1, self._v1 = z, R1, pi1, u1, v1
        self._lam_gz, self._work = float(out[2]), float(out[4])
        if status in (CONVERGED, ROUND_OFF, NOISE_FLOOR):
            return NewtonReport(True, its, history, r, _REASONS[status], state=z, multipliers=lam,
                                constraint_residual=float(out[1]))
        if status == NOT_FINITE:
            return NewtonReport(False, its, history, r, _REASONS[status])
        return NewtonReport(False, max_it, history, r, f"no convergence in {max_it} iterations")

    def finish(self, z: NDArray[np.float64]) -> tuple[State, dict]:
        """New state (rotational slots of u: log R; of v: spatial angular velocity) and the
        step's energy terms (external work of the scaled loads and of the moments, the
        joints' constraint work −λ·Ḡz) at the accepted increment z of ``solve_step``."""
        if z is not self._z:
            raise ValueError("RigidStepSystem.finish takes the increment its solve_step accepted")
        terms = dict(work=self._work, dissipated=0.0, constraint=-self._lam_gz)
        extra = {"R": self._R1, "pi": self._pi1}
        if self.multipliers is not None:
            extra["multipliers"] = np.asarray(self.multipliers, dtype=np.float64)
        return State(self.t1, self._u1, self._v1, extra=extra), terms
