"""The driver's time grid for compiled runs of whole steps (femb.solvers.dynamics.planar_step,
femb.solvers.dynamics.rigid_step).

``solve_dynamic`` (femb.solvers.dynamics.driver) steps from t_n to the grid point
t0 + (n + 1)·Δt (the last one: t_end) and records a frame every ``every`` steps. A compiled
stepper that runs the steps up to the next recorded frame in one call needs the step sizes
the driver would take at full step, computed with the driver's floating-point operations so
that the times agree bit for bit."""
from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray


def steps_to_frame(t: float, n: int, n_steps: int, t0: float, dt: float, t_end: float,
                   every: int) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """The driver's steps n, n + 1, … from time ``t`` up to the next recorded step (k + 1 a
    multiple of ``every``, or the last step ``n_steps − 1``), stopping before the first one
    it would not take whole.

    Returns (targets, starts, hs), each (k,): the end times, start times and step sizes of
    those k steps (k = 0: none)."""
    last = min(n_steps - 1, (n + every) // every * every - 1)  # the next recorded step
    return _whole(*_steps(t, n, last, n_steps, t0, dt, t_end))


def _steps(t: float, n: int, last: int, n_steps: int, t0: float, dt: float, t_end: float) -> tuple[NDArray[Any], ...]:
    """(targets, starts, hs, ok), each (last + 1 − n,): the driver's steps n … last from
    time ``t`` at full step, and whether the driver takes each whole (elementwise, so any
    part of the result equals that of a shorter range)."""
    # the driver's step sizes at full step, in its floating-point operations (elementwise)
    targets = t0 + (np.arange(n, last + 1) + 1) * dt
    if last == n_steps - 1:
        targets[-1] = t_end
    starts = np.empty_like(targets)
    starts[0] = t
    starts[1:] = targets[:-1]
    hs = np.minimum(dt, targets - starts)
    tol_t = 1e-12 * np.maximum(1.0, np.abs(targets))
    ok = (targets - starts > tol_t) & (targets - (starts + hs) <= tol_t)
    hs = np.where(targets - (starts + hs) <= tol_t, targets - starts, hs)
    return targets, starts, hs, ok


def _whole(targets, starts, hs, ok):
    """The steps up to the first one the driver would not take whole."""
    k = int(ok.size if ok.all() else np.argmin(ok))
    return targets[:k], starts[:k], hs[:k]


class FrameGrid:
    """``steps_to_frame`` of one run (``n_steps``, ``t0``, ``dt``, ``t_end``, ``every``) with
    the whole run's grid computed once: a window that starts where the grid's previous step
    ends (the driver's time after whole steps) is sliced from it, up to the next recorded
    step or the grid's first step the driver would not take whole, whichever comes first;
    any other window is computed afresh. Both give the same numbers (elementwise operations
    on the same values)."""

    def __init__(self, n_steps: int, t0: float, dt: float, t_end: float, every: int) -> None:
        self.key = (n_steps, t0, dt, t_end, every)
        self.grid, self.ends, self.cuts = _run_grid(n_steps, t0, dt, t_end)

    def window(self, t: float, n: int) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
        """``steps_to_frame(t, n, *key)``: (targets, starts, hs), each (k,) (views of the
        grid when sliced)."""
        n_steps, t0, dt, t_end, every = self.key
        if not t == (self.ends[n - 1] if n > 0 else t0):
            return steps_to_frame(t, n, n_steps, t0, dt, t_end, every)
        stop = min(n_steps, (n + every) // every * every)  # after the next recorded step
        cuts = self.cuts
        if cuts:  # a step of the grid the driver would not take whole ends the window before it
            i = bisect_left(cuts, n)
            if i < len(cuts) and cuts[i] < stop:
                stop = cuts[i]
        targets, starts, hs = self.grid
        return targets[n:stop], starts[n:stop], hs[n:stop]


@lru_cache(maxsize=16)
def _run_grid(n_steps: int, t0: float, dt: float, t_end: float) -> tuple[tuple[NDArray[Any], ...], list[float], list[int]]:
    """``_steps`` of a whole run: (targets, starts, hs), each (n_steps,), the targets as a
    list of floats and the steps the driver would not take whole (sorted list); kept for the
    last few runs (a function of its arguments only; shared by the runs of the same grid, so
    never written: the windows are read-only by convention)."""
    targets, starts, hs, ok = _steps(t0, 0, n_steps - 1, n_steps, t0, dt, t_end)
    return (targets, starts, hs), targets.tolist(), np.flatnonzero(~ok).tolist()


def mid_amplitudes(amplitudes: list, starts: NDArray[np.float64], hs: NDArray[np.float64]) -> NDArray[np.float64]:
    """(k, n_a) the amplitudes a(t) (callables of the loads with an amplitude, n_a of them) at
    the mid times t_s + h_s/2 of the steps with start times ``starts`` and sizes ``hs`` (k,),
    as ``DynamicProblem.scaled_loads`` evaluates them per step."""
    if not amplitudes:  # (no timed loads: nothing to evaluate)
        return np.zeros((hs.size, 0))
    mids = (starts + 0.5 * hs).tolist()
    return np.array([[float(a(tm)) for a in amplitudes] for tm in mids]).reshape(len(mids), len(amplitudes))
