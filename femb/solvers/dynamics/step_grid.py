"""The driver's time grid for compiled runs of whole steps (femb.solvers.dynamics.planar_step,
femb.solvers.dynamics.rigid_step).

``solve_dynamic`` (femb.solvers.dynamics.driver) steps from t_n to the grid point
t0 + (n + 1)·Δt (the last one: t_end) and records a frame every ``every`` steps. A compiled
stepper that runs the steps up to the next recorded frame in one call needs the step sizes
the driver would take at full step, computed with the driver's floating-point operations so
that the times agree bit for bit."""
from __future__ import annotations

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
    k = int(ok.size if ok.all() else np.argmin(ok))  # up to the first step the driver would not take whole
    return targets[:k], starts[:k], hs[:k]


def mid_amplitudes(amplitudes: list, starts: NDArray[np.float64], hs: NDArray[np.float64]) -> NDArray[np.float64]:
    """(k, n_a) the amplitudes a(t) (callables of the loads with an amplitude, n_a of them) at
    the mid times t_s + h_s/2 of the steps with start times ``starts`` and sizes ``hs`` (k,),
    as ``DynamicProblem.scaled_loads`` evaluates them per step."""
    if not amplitudes:  # (no timed loads: nothing to evaluate)
        return np.zeros((hs.size, 0))
    mids = (starts + 0.5 * hs).tolist()
    return np.array([[float(a(tm)) for a in amplitudes] for tm in mids]).reshape(len(mids), len(amplitudes))
