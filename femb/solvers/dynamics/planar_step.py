"""Compiled whole steps of the planar energy-conserving mid-point scheme for beam2d models.

A small planar model (a 10-element beam: 33 unknowns) spends most of a mid-point step in
Python around compiled kernels of a few µs: the Newton loop's bookkeeping, a dozen kernel
calls, the step system's set-up, ``finish`` and the energy books. For models that the
general step handles with one beam2d block, ``PlanarSteps`` runs the steps between two
recorded frames in one compiled call (femb.solvers.dynamics.midpoint2d_kernels
``beam2d_steps``): predictor, the Newton iterations of
femb.solvers.nonlinear.step_newton.iterate with the same residual, band LU, rotation and
chord turn limit and convergence tests (force test, noise floor, round-off level,
correction at round-off, divergence, iteration cap), and the step's energy terms. The
results equal those of the general path to round-off, with the same Newton iterations.

Qualifying models (``PlanarSteps.build`` returns None otherwise and the general path
runs): the mid-point scheme (``MidPoint``), planar, one element block with internal
forces, of type ``beam2d`` or ``beam2d_timoshenko``, any mass kind (constant), point
masses, supports, ties, prescribed DOFs (functions of t evaluated in Python once per
step), constant and timed loads (amplitudes evaluated in Python once per step), gravity;
full Newton with femb's band LU (DirectCorrection, no ``solve_correction`` given). Not
here: joints, damping, other element types or several force blocks, mass centres off the
node line (offset mass points), configuration-dependent masses, modified Newton. A step that does not converge in the compiled loop is
done again by the general path, which also owns the retry with shorter corrections and
the cut-backs; compiled steps resume at the nominal step size.

Switch: ``DynamicSettings(compiled_step=False)`` forces the general path.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy as np
from numpy.typing import NDArray

from femb.correlation.pattern import INDEX
from femb.elements import beam2d
from femb.solvers.dynamics.midpoint2d_kernels import beam2d_steps
from femb.solvers.dynamics.schemes import MidPoint, _MidPointSystem, _planar_constants
from femb.solvers.dynamics.step_grid import mid_amplitudes, steps_to_frame
from femb.solvers.dynamics.step_system import State
from femb.solvers.linalg.factorization import pattern_band_widths
from femb.solvers.nonlinear.step_newton import DirectCorrection

if TYPE_CHECKING:
    from femb.solvers.dynamics.energy import EnergyAccount
    from femb.solvers.dynamics.problem import DynamicProblem
    from femb.solvers.nonlinear.newton import NewtonSettings

_I64 = np.int64


def _ints(x: Any) -> NDArray[np.int64]:
    """A writable C-contiguous int64 copy (one type for the compiled step, whatever the source's flags)."""
    return np.array(x, dtype=_I64, order="C", copy=True)


def _floats(x: Any) -> NDArray[np.float64]:
    """A writable C-contiguous float64 copy."""
    return np.array(x, dtype=np.float64, order="C", copy=True)


def _shared_ints(x: Any, dtype: Any = _I64) -> NDArray[np.integer]:
    """``x`` itself when it is a writable C-contiguous array of ``dtype`` (int64; INDEX,
    int32, for CSR positions), else such a copy: for the inputs the compiled steps only
    read (element positions and variables, CSR patterns), which then share the memory of
    the table and the problem."""
    return np.require(x, dtype=dtype, requirements=["C", "W"])


def _shared_floats(x: Any) -> NDArray[np.float64]:
    """``x`` itself when it is a writable C-contiguous float64 array, else such a copy (as
    ``_shared_ints``: inputs the compiled steps only read)."""
    return np.require(x, dtype=np.float64, requirements=["C", "W"])


class WholeSteps:
    """The driver's side of compiled whole steps (``advance``): the time grid up to the next
    recorded step, the load amplitudes, the energy books and the new State. Subclasses set
    ``p`` (the DynamicProblem), ``amplitudes`` (of its timed loads), ``param`` (the
    kernel's parameters; param[turn_slot] the turn limit, ``no_turn_limit`` when the
    problem has none) and run the compiled steps in ``_steps``."""

    p: DynamicProblem
    amplitudes: list[Any]
    param: NDArray[np.float64]
    turn_slot: int = 6
    no_turn_limit: float = np.inf

    def _steps(self, state: State, hs: NDArray[np.float64], amps: NDArray[np.float64], t1: list[float],
               its: NDArray[np.int64], books: NDArray[np.float64]) -> tuple[int, NDArray[np.float64], NDArray[np.float64], dict]:
        """Run the compiled steps of sizes ``hs`` (k,) ending at ``t1`` from ``state``
        (timed-load amplitudes ``amps`` (k, n_timed) at their mid-points), writing the Newton
        iterations of each to ``its`` and adding the work terms to ``books``: (steps done,
        u, v, State.extra after them; its entry "a", when there, becomes State.a)."""
        raise NotImplementedError

    def advance(self, state: State, n: int, n_steps: int, t0: float, dt: float, t_end: float, every: int,
                account: EnergyAccount) -> tuple[int, int, State]:
        """Run the driver's steps n, n + 1, … of the grid t0 + (k + 1)·dt (the last one ending
        at t_end) from ``state`` up to the next recorded step (k + 1 a multiple of ``every``,
        or the last step), stopping before the first step that does not converge.

        Returns (steps done, their Newton iterations, the state after them (``state`` itself
        when none was done)); the steps' external and constraint work are added to
        ``account``."""
        targets, starts, hs = steps_to_frame(state.t, n, n_steps, t0, dt, t_end, every)
        k = hs.size
        if not k:
            return 0, 0, state
        its = np.zeros(k, dtype=_I64)
        books = np.array([account.external_work, account.constraint_work])
        cap = self.p.max_turn
        self.param[self.turn_slot] = cap if cap and np.isfinite(cap) else self.no_turn_limit
        done, u, v, extra = self._steps(state, np.ascontiguousarray(hs), self._amplitudes(starts, hs),
                                        (starts + hs).tolist(), its, books)
        if not done:
            return 0, 0, state
        account.external_work, account.constraint_work = float(books[0]), float(books[1])
        return done, int(its[:done].sum()), State(float(targets[done - 1]), u, v, a=extra.pop("a", None), extra=extra)

    def _amplitudes(self, starts: NDArray[np.float64], hs: NDArray[np.float64]) -> NDArray[np.float64]:
        """The timed-load amplitudes ``_steps`` takes for the steps with start times ``starts``
        and sizes ``hs`` (k,): (k, n_timed) at their mid-points (the mid-point schemes)."""
        return mid_amplitudes(self.amplitudes, starts, hs)


class PlanarSteps(WholeSteps):
    """Whole compiled mid-point steps of a qualifying planar beam2d model (module docstring).

    Build with ``PlanarSteps.build(problem, scheme, newton, solve_correction)`` (None when
    the model does not qualify); ``advance`` runs steps of the driver's time grid."""

    def __init__(self, problem: DynamicProblem, newton: NewtonSettings, constants: dict[str, Any], kl: int, ku: int) -> None:
        p, t = problem, problem.table
        self.p = p
        X, props, var, pos = constants["block"][1:5]
        self.block = (_shared_floats(X), _shared_floats(props), _shared_ints(var), _shared_ints(pos, INDEX))
        self.rot = _shared_ints(constants["rot"])
        self.ev = _ints(constants["ev"])
        self.mass = (_shared_ints(constants["indptr"]), _shared_ints(constants["indices"]), _shared_floats(p.M_full.data),
                     _shared_ints(p.mass_entries[0]), _shared_floats(p.mass_entries[1]))
        self.pattern = (*t.kernel_pattern(), int(kl), int(ku))
        chords = constants["chords"]
        if chords:
            cvar, col_a, col_b, X21 = chords
            self.chords = (True, _shared_ints(cvar), _ints(col_a), _ints(col_b), _shared_floats(X21))
        else:
            self.chords = (False, np.zeros((0, 2), dtype=_I64), np.zeros(0, dtype=_I64), np.zeros(0, dtype=_I64), np.zeros((0, 2)))
        self.f_const = _shared_floats(p.f_const)
        timed = [np.asarray(vec, dtype=np.float64) for _, vec in p._timed]
        self.amplitudes = [amp for amp, _ in p._timed]
        self.timed = _floats(np.array(timed).reshape(len(timed), t.n_var))
        groups = [_ints(np.atleast_1d(vars_)) for vars_, _ in p.prescribed]
        self.records = [rec for _, rec in p.prescribed]
        self.group_sizes = [g.size for g in groups]
        self.pres_var = _ints(np.concatenate(groups)) if groups else np.zeros(0, dtype=_I64)
        self.pres_rot = _ints(p.rot[self.pres_var]) if groups else np.zeros(0, dtype=_I64)
        self.pres_ptr = _ints(np.concatenate([[0], np.cumsum(self.group_sizes)])) if groups else np.zeros(1, dtype=_I64)
        self.fixed = _ints(t.fixed_vars)
        self.rot_loaded = bool(p.rot_loaded)
        self.rot_terms = (_shared_ints(p.rot_eq), _ints(constants["rot_eq_in_rot"]), _shared_ints(p.diag_pos, INDEX))
        self.ref = _shared_floats(p.reference_coordinates)
        nan = float("nan")
        self.newton = newton
        self.param = np.array([newton.tolerance, nan if newton.absolute_tolerance is None else float(newton.absolute_tolerance),
                               newton.increment_tolerance, newton.divergence_factor, _MidPointSystem.noise_floor, p.length_scale,
                               np.inf])

    @classmethod
    def build(cls, problem: DynamicProblem, scheme: Any, newton: NewtonSettings,
              solve_correction: Optional[Any] = None) -> Optional[PlanarSteps]:
        """The compiled stepper of ``problem`` when the model qualifies (module docstring), else None."""
        p = problem
        if type(scheme) is not MidPoint or getattr(p, "oriented", False) or p.table.dim != 2 or p.table.n_eq == 0:
            return None
        if p.joints is not None or p.damping.active or p.variable_mass or p.point_inertia or newton.modified:
            return None
        if getattr(p, "offset_points", None):  # mass centres off the node line: their points' step state
            return None
        if solve_correction is not None or "midpoint_force" in p.__dict__:
            return None
        if any(b.spec.kernels.midpoint_step is not None for b in p.table.blocks):
            return None
        c = _planar_constants(p)
        block = c["block"]
        if block is None or block[0] is not beam2d.midpoint_force or c["chords"] is None:
            return None
        kl, ku = pattern_band_widths(p.table.indptr, p.table.indices)
        if kl + ku > DirectCorrection.band_limit:  # the general path's dense or sparse LU
            return None
        return cls(p, newton, c, kl, ku)

    def _steps(self, state: State, hs: NDArray[np.float64], amps: NDArray[np.float64], t1: list[float],
               its: NDArray[np.int64], books: NDArray[np.float64]) -> tuple[int, NDArray[np.float64], NDArray[np.float64], dict]:
        """``beam2d_steps`` (WholeSteps._steps)."""
        k = hs.size
        if self.records:
            p = self.p
            values = [[p.prescribed_value(rec, t) for rec in self.records] for t in t1]
            vals = np.repeat(np.array(values).reshape(k, len(self.records)), self.group_sizes, axis=1)
        else:
            vals = np.zeros((k, 0))
        u = np.array(state.u, dtype=np.float64)
        v = np.array(state.v, dtype=np.float64)
        param = self.param
        X, props, var, pos = self.block
        chords = self.chords if param[6] < np.inf else (False,) + self.chords[1:]
        done, _ = beam2d_steps(u, v, hs, amps, self.timed, self.f_const, self.pres_var, self.pres_rot, self.pres_ptr, vals,
                               self.fixed, self.rot, self.ev, X, props, var, pos, *self.mass, *self.pattern, *chords,
                               self.rot_loaded, *self.rot_terms, self.ref, param, int(self.newton.max_iterations), its, books)
        return done, u, v, {}
