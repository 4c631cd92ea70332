"""Compiled mid-point steps for jointed rigid-body models.

Models made only of 3-D rigid bodies (``rigid_body3d``) and point masses (``point_mass3d``),
with supports, constant or time-scaled loads (gravity, nodal forces, moments about fixed
axes) and 3-D joints of every kind (spherical, revolute, universal, cylindrical, prismatic;
attachment points anywhere on the bodies) are integrated by the energy-momentum mid-point
scheme of femb.solvers.dynamics.midpoint3d. For such models the whole Newton loop of a
step — residual, step matrix, joint equations, null-space elimination, convergence tests —
runs compiled (femb.solvers.dynamics.rigid_step_kernels), and ``RigidSteps`` runs all
steps between two recorded frames in one compiled call (``rigid_midpoint_steps``), with the
energy books kept inside; ``RigidStepSystem`` is one step of it for the driver's
step-by-step path (a step the compiled run did not converge, its damped retry and its
cut-backs, femb.solvers.dynamics.driver).

It is the general loop (MidPoint3DSystem iterated by
femb.solvers.nonlinear.newton.projected_newton) operation for operation, except for the
coordinate partition of the null-space elimination: the general loop chooses the dependent
coordinates by pivoted QR at every iteration, the compiled one keeps them across iterations
and steps while G_d and Ḡ_d stay well conditioned (``rigid_step_kernels.RENEW``). The
partition is a choice of basis of the same null space: the corrections solve the same
equations, only the projected residual of the convergence test is measured in another
basis. The motion, the Newton iteration counts, the multipliers and the energy books agree
with the general path to round-off in the tests (tests/solvers/test_rigid_step.py).

The compiled steps are chosen automatically when the model qualifies
(``unsupported_reason`` returns None); ``DynamicSettings(compiled_step=False)`` forces the
general path. Not covered (general path): other element types, damping, rotation-dependent
(follower) moments and pressures, prescribed motions, mass points inside elements,
rotational variables shared by tied nodes, joints of other families (scalar or planar
kinds), joint rows dropped as redundant, models without joints, and more than
``newton.DENSE_LIMIT`` free equations.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Optional

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
    rigid_midpoint_steps,
)
from femb.solvers.dynamics.step_grid import FrameGrid, mid_amplitudes
from femb.solvers.dynamics.step_system import State
from femb.solvers.linalg.factorization import SingularSystemError
from femb.solvers.nonlinear.newton import DENSE_LIMIT, NewtonReport, NewtonSettings

if TYPE_CHECKING:
    from femb.solvers.dynamics.energy import EnergyAccount

RIGID_ELEMENTS = frozenset({"rigid_body3d", "point_mass3d"})
"""Element types the compiled step takes (inertia only, no internal forces)."""

_REASONS = {CONVERGED: "converged", ROUND_OFF: "converged (correction at round-off)",
            NOISE_FLOOR: "converged (residual at its noise floor)", NOT_FINITE: "residual is not finite"}


def unsupported_reason(problem) -> Optional[str]:
    """Why the compiled step does not take ``problem`` (a DynamicProblem), or None when it
    qualifies (module docstring)."""
    return _qualify(problem)[0]


def _qualify(problem) -> tuple[Optional[str], Optional[NDArray[np.int64]]]:
    """(``unsupported_reason``, the sorted free equations (k,) of the jointed variables
    when it is None, else None)."""
    if not getattr(problem, "oriented", False):
        return "no oriented nodes", None
    table = problem.table
    other = sorted({b.spec.name for b in table.blocks} - RIGID_ELEMENTS)
    if other:
        return f"element types {other}", None
    if problem.prescribed:
        return "prescribed motion", None
    if problem.damping.active:
        return "damping", None
    if problem.loads.has_moment_loads or problem.loads.has_follower_pressures:
        return "rotation-dependent (follower) loads", None
    if problem.point_inertia or problem.variable_mass:
        return "mass points inside elements or configuration-dependent masses", None
    joints = problem.joints
    if joints is None:
        return "no joints", None
    if len(joints.evaluators) != 1 or not isinstance(joints.evaluators[0], Joints3D):
        return "joints other than the 3-D kinds", None
    if problem.active_rows.size != joints.m:
        return "joint rows dropped as redundant", None
    if not problem.rotary.owner.all():
        return "rotational variables shared by tied nodes", None
    if table.n_eq > DENSE_LIMIT:
        return f"more than {DENSE_LIMIT} free equations", None
    eqs = table.var_eq[_joint_variables(problem)]
    jeq = np.sort(eqs[eqs >= 0]).astype(np.int64)
    if jeq.size < joints.m:
        return "more joint rows than jointed free equations", None
    return None, jeq


def _joint_variables(problem) -> NDArray[np.int64]:
    """The sorted variables (k,) the 3-D joints of ``problem`` involve: the free columns of
    the Jacobian's fixed triplet pattern (``Joints3D.jac_cols``), the same set as
    ``ConstraintSet.variables`` without its probe evaluation of the joints (marked on
    the variables: ``np.unique`` sorts the triplets, a few times slower)."""
    cols = problem.joints.evaluators[0].jac_cols
    mark = np.zeros(problem.table.n_var, dtype=np.bool_)
    mark[cols[cols >= 0]] = True
    return np.flatnonzero(mark).astype(np.int64, copy=False)


def _dense_mass(problem) -> NDArray[np.float64]:
    """The translational mass over the equations as a dense (n_eq, n_eq) array, written
    from ``mass_data`` on the table's pattern (``M_eq.toarray()`` without the CSR wrapper)."""
    t = problem.table
    out = np.zeros((t.n_eq, t.n_eq))
    out[t.entry_rows(), t.indices] = problem.mass_data
    return out


def rigid_step_data(problem) -> Optional[RigidStepData]:
    """The RigidStepData of ``problem``, or None when it does not qualify (cached on the
    problem)."""
    cache = problem.__dict__.get("_rigid_step_data")
    if cache is not None:
        return cache[0]
    jeq = _qualify(problem)[1]
    data = None if jeq is None else _build(problem, jeq)
    problem.__dict__["_rigid_step_data"] = (data, None if data is None else tuple(data))
    return data


def _build(problem, jeq: NDArray[np.int64]) -> RigidStepData:
    """The RigidStepData of a qualifying ``problem`` whose jointed variables have the free
    equations ``jeq`` (sorted, ``_qualify``)."""
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
    i64 = lambda a: np.ascontiguousarray(a, dtype=np.int64)  # noqa: E731
    f64 = lambda a: np.ascontiguousarray(a, dtype=np.float64)  # noqa: E731
    return RigidStepData(
        var_eq=i64(t.var_eq), eq_var=i64(t.eq_var), rot3d=np.ascontiguousarray(problem.rot3d, dtype=np.bool_),
        ref=f64(problem.reference_coordinates), m_indptr=i64(M.indptr), m_indices=i64(M.indices), m_data=f64(M.data),
        M_eq=_dense_mass(problem), lay_nodes=i64(lay.nodes), lay_var=i64(lay.var).reshape(-1, 3),
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


def _partition_store(problem):
    """The coordinate partition kept across the Newton iterations and steps of ``problem``:
    (dependent equations (m,), their G_d and Ḡ_d pivot ratios when chosen (2,))
    (femb.solvers.dynamics.rigid_step_kernels ``RENEW``)."""
    store = problem.__dict__.get("_rigid_partition")
    if store is None:
        store = problem.__dict__["_rigid_partition"] = (np.zeros(problem.joints.m, dtype=np.int64), np.zeros(2))
    return store


class _Run(NamedTuple):
    """The outcome of ``_run``."""

    done: int  # steps done
    status: int  # status code of the last step tried (femb.solvers.dynamics.rigid_step_kernels)
    z: NDArray[np.float64]  # (n_var,) its increment (the last Newton iterate when it failed)
    r: NDArray[np.float64]  # (n_eq,) its last residual
    hist: NDArray[np.float64]  # its projected residual norms, per convergence test
    scales: NDArray[np.float64]  # and the force scales of those tests
    out: NDArray[np.float64]  # (6,) its ``out`` vector (iterations, ‖Φ‖, λ·Ḡz, tests, work, partitions chosen)
    its: NDArray[np.int64]  # (k,) Newton iterations of each step done


def _run(problem, settings: NewtonSettings, u, v, R, pi, lam, has_lam: bool, hs, timed, amps, books) -> _Run:
    """Steps of sizes ``hs`` (k,) by one call of ``rigid_midpoint_steps``, from the state u,
    v (n_var,), R (n_nodes, 3, 3), π (k_nodes, 3) with the multipliers λ (m,) (a guess when
    ``has_lam``): arrays of the caller, updated in place to the state after the steps done;
    loads f_const + Σ_j amps[s, j] timed[j] (timed (n_a, n_var), amps (k, n_a)) at the mid
    time of step s; ``books`` (2,) += the steps' external and constraint work. InputError
    for a step size that is not positive (the kernels divide by it without an exception
    exit, femb.solvers.dynamics.rigid_step_patterns)."""
    data = rigid_step_data(problem)
    if data is None:
        raise InputError(f"the compiled rigid step does not take this model ({unsupported_reason(problem)})")
    if not np.all(hs > 0.0):
        raise InputError(f"the compiled rigid step needs positive step sizes, got {hs[~(hs > 0.0)][:3].tolist()}")
    max_it = int(settings.max_iterations)
    its = np.zeros(hs.size, dtype=np.int64)
    work = _work_arrays(u.size, data.eq_var.size, max_it)
    done, status = _steps(problem, settings, u, v, R, pi, lam, has_lam, np.ascontiguousarray(hs, dtype=np.float64),
                          np.ascontiguousarray(timed, dtype=np.float64), np.ascontiguousarray(amps, dtype=np.float64), its, books, work)
    z, r, hist, scales, out = work
    n = int(out[3])
    return _Run(int(done), int(status), z, r, hist[:n], scales[:n], out, its)


def _steps(problem, settings: NewtonSettings, u, v, R, pi, lam, has_lam: bool, hs, timed, amps, its, books,
           work) -> tuple[int, int]:
    """The call of ``rigid_midpoint_steps`` behind ``_run`` and ``RigidSteps.advance``, on
    arguments already checked and of the kernel's types (C-contiguous float64 hs (k,),
    timed (n_a, n_var), amps (k, n_a); int64 its (k,); ``work`` of ``_work_arrays``): the
    model's packed step data, the constant loads, the parameters of ``settings`` and the
    kept coordinate partition of ``problem``. Returns (steps done, status code)."""
    part, part_ref = _partition_store(problem)
    z, r, hist, scales, out = work
    return rigid_midpoint_steps(problem.__dict__["_rigid_step_data"][1], u, v, R, pi, lam, has_lam, hs, _f_const(problem), timed,
                                amps, _parameters(problem, settings), int(settings.max_iterations), part, part_ref, its, books, z,
                                hist, scales, r, out)


def _work_arrays(n_var: int, n_eq: int, max_it: int) -> tuple[NDArray[np.float64], ...]:
    """The kernel's output arrays (``_run``, ``RigidSteps.advance``): z (n_var,), r (n_eq,), hist, scales
    (max_it + 1,) and out (6,)."""
    return np.empty(n_var), np.empty(n_eq), np.empty(max_it + 1), np.empty(max_it + 1), np.zeros(6)


def _f_const(problem):
    """The constant loads (n_var,) as a contiguous float64 array, kept on the problem."""
    out = problem.__dict__.get("_rigid_step_f_const")
    if out is None:
        out = problem.__dict__["_rigid_step_f_const"] = np.ascontiguousarray(problem.f_const, dtype=np.float64)
    return out


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
        p, s = self.p, self.s
        guess = self.multipliers_guess
        lam = np.zeros(p.joints.m) if guess is None else np.array(guess, dtype=np.float64)
        u, v, R, pi = s.u.copy(), s.v.copy(), s.extra["R"].copy(), s.extra["pi"].copy()
        timed = self.f_s.reshape(1, -1) if p._timed else np.zeros((0, s.u.size))
        run = _run(p, settings, u, v, R, pi, lam, guess is not None, np.array([self.h]), timed, np.ones((1, timed.shape[0])),
                   np.zeros(2))
        done, status, z, r, hist, scales, out = run[:7]
        its = int(out[0])
        self.force_scales = scales  # of each convergence test (diagnostics)
        if status == SINGULAR:
            raise SingularSystemError(f"reduced (constrained) tangent matrix is numerically singular "
                                      f"(at Newton iteration {its} of the step from t = {s.t:.6g})")
        if status == DEP_SINGULAR:  # as the general path's inverse of G_d (femb.solvers.linalg.nullspace)
            raise np.linalg.LinAlgError("Singular matrix")
        self._z, self._u1, self._v1, self._R1, self._pi1 = z, u, v, R, pi
        self._lam_gz, self._work = float(out[2]), float(out[4])
        if done:
            return NewtonReport(True, its, hist.tolist(), r, _REASONS[status], state=z, multipliers=lam,
                                constraint_residual=float(out[1]))
        if status == NOT_FINITE:
            return NewtonReport(False, its, hist.tolist(), r, _REASONS[status])
        max_it = int(settings.max_iterations)
        return NewtonReport(False, max_it, hist.tolist(), r, f"no convergence in {max_it} iterations")

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


class RigidSteps:
    """The mid-point steps between two recorded frames of a qualifying rigid-body model in
    one compiled call (``rigid_midpoint_steps``): the same steps as ``RigidStepSystem``
    one by one, without the driver's Python per step. A step that does not converge is
    left to the driver (``RigidStepSystem``, its damped retry and cut-backs).

    Build with ``RigidSteps.build(problem, newton)`` (None when the model does not qualify)."""

    def __init__(self, problem, newton: NewtonSettings) -> None:
        self.p = problem
        self.newton = newton
        self.amplitudes = [amp for amp, _ in problem._timed]
        timed = [np.asarray(vec, dtype=np.float64) for _, vec in problem._timed]
        self.timed = np.ascontiguousarray(np.array(timed).reshape(len(timed), problem.table.n_var), dtype=np.float64)
        self.grid: Optional[FrameGrid] = None  # the run's time grid (``advance``)
        self.its = np.zeros(0, dtype=np.int64)  # the Newton iterations of a window's steps (``advance``)
        self.no_amps = np.zeros((0, 0))
        self.books = np.zeros(2)  # the external and constraint work the kernel adds to (``advance``)
        # the kernel's output arrays, reused by every ``advance`` (read by none of its callers)
        self.work = _work_arrays(problem.table.n_var, problem.table.n_eq, int(newton.max_iterations))

    @classmethod
    def build(cls, problem, newton: NewtonSettings) -> Optional[RigidSteps]:
        """The compiled stepper of ``problem`` (a DynamicProblem integrated by the mid-point
        scheme) when the model qualifies (module docstring), else None."""
        if not getattr(problem, "oriented", False) or rigid_step_data(problem) is None:
            return None
        return cls(problem, newton)

    def advance(self, state: State, n: int, n_steps: int, t0: float, dt: float, t_end: float, every: int,
                account: EnergyAccount) -> tuple[int, int, State]:
        """Run the driver's steps n, n + 1, … (femb.solvers.dynamics.step_grid) from
        ``state`` up to the next recorded step, stopping before the first step that does not
        converge. The multiplier guess of the first step: ``state.extra["multipliers"]``
        (zero when absent, as the driver's).

        Returns (steps done, their Newton iterations, the state after them (``state`` itself
        when none was done; ``extra``: R, π and the multipliers)); the steps' external and
        constraint work are added to ``account``. InputError for a step ``dt`` that is not
        positive (the grid's steps are then all positive, ``_run``)."""
        grid = self.grid
        if grid is None or grid.key != (n_steps, t0, dt, t_end, every):
            if not dt > 0.0:
                raise InputError(f"the compiled rigid step needs a positive step, got {dt}")
            grid = self.grid = FrameGrid(n_steps, t0, dt, t_end, every)
            self.its = np.zeros(min(every, n_steps), dtype=np.int64)  # the longest window's
            self.no_amps = np.zeros((self.its.size, 0))  # its amplitudes without timed loads
        targets, starts, hs = grid.window(state.t, n)
        k = hs.size
        if not k:
            return 0, 0, state
        guess = state.extra.get("multipliers")
        lam = np.zeros(self.p.joints.m) if guess is None else np.array(guess, dtype=np.float64)
        u, v, R, pi = state.u.copy(), state.v.copy(), state.extra["R"].copy(), state.extra["pi"].copy()
        books = self.books
        books[0], books[1] = account.external_work, account.constraint_work
        amps = mid_amplitudes(self.amplitudes, starts, hs) if self.amplitudes else self.no_amps[:k]
        its = self.its[:k]
        done = _steps(self.p, self.newton, u, v, R, pi, lam, True, hs, self.timed, amps, its, books, self.work)[0]
        if not done:
            return 0, 0, state
        account.external_work, account.constraint_work = float(books[0]), float(books[1])
        new = State(float(targets[done - 1]), u, v, extra={"R": R, "pi": pi, "multipliers": lam})
        return done, sum(its[:done].tolist()), new
