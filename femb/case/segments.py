"""A dynamic step integrated in segments, so that frames and checkpoints reach the disk
while it runs.

``solve_dynamic`` has no per-frame callback, so the step calls it once per segment of
``checkpoint_every`` recorded frames, each call continuing where the previous one stopped
(``t0`` = the segment's start, the state carried over). What makes the segments one
continuous integration:

- the scheme is given a carried state (:class:`CarriedScheme`): its ``start`` hands the next call
  the exact State the previous call ended with (u, v and, for the α schemes, the
  acceleration and end-point forces) instead of re-initializing it (``solve_dynamic``
  would reset the velocities of prescribed DOFs to the finite-difference rate of their
  functions and recompute the α-scheme acceleration from equilibrium);
- segment boundaries are recorded frames whose times are computed from the global step
  index, t0 + K·dt, as in an uninterrupted ``solve_dynamic`` call;
- the cumulative energy terms (external, constraint work, dissipation) of each call start
  from zero, so they are added to the totals of the earlier segments and the energy
  residual is recomputed against the energy at the start of the step.

The one remaining difference to a single ``solve_dynamic`` call: inside a segment the
step times are t_seg + n·dt instead of t0 + (K + n)·dt, which can differ in the last bit,
so the trajectories agree to round-off (≈1e-13 relative), not bit for bit (they are
identical when the times are exact binary fractions). Two segmented runs, e.g. an
uninterrupted one and one restarted from a checkpoint, are identical bit for bit: each
segment is a deterministic function of the checkpointed state.
"""
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from femb.case.checkpoint import array_shapes, frame_rows
from femb.case.initial_state import check_prescribed
from femb.core.errors import ConvergenceError
from femb.results import Results
from femb.solvers.dynamics.driver import DynamicSettings, solve_dynamic
from femb.solvers.dynamics.problem import DynamicProblem
from femb.solvers.dynamics.schemes import HHT, GeneralizedAlpha, MidPoint, Newmark
from femb.solvers.dynamics.step_system import State

log = logging.getLogger(__name__)

ACCUMULATED = ("external_work", "constraint_work", "dissipated_energy")


class CarriedScheme:
    """Makes a time-integration scheme's state survive from one ``solve_dynamic`` call to
    the next.

    The scheme instance (``self.scheme``, passed to ``solve_dynamic`` as is, so that type
    checks on it still hold) gets instance-level ``start``, ``system`` and ``keep_state``:
    ``start`` returns the State of the last completed step (``self.state``) when there is
    one, ``system`` keeps the State after every converged step, and the driver hands
    ``keep_state`` the State after steps it ran without ``system`` (compiled planar steps).
    """

    def __init__(self, scheme, state=None):
        self.scheme = scheme
        self.state = state
        start, system = type(scheme).start, type(scheme).system

        def carried_start(problem, t0, u, v):
            if self.state is None:
                self.state = start(scheme, problem, t0, u, v)
            elif self.state.t != t0:
                raise RuntimeError(f"segment starts at t = {t0!r} but the carried state is at t = {self.state.t!r}")
            return self.state

        def carried_system(problem, state, h):
            step = system(scheme, problem, state, h)
            finish = step.finish

            def keep(z):
                new, terms = finish(z)
                self.state = new
                return new, terms

            step.finish = keep
            return step

        def keep_state(state):  # steps done without ``system`` (compiled planar steps)
            self.state = state

        scheme.start = carried_start
        scheme.system = carried_system
        scheme.keep_state = keep_state


def state_arrays(state):
    """(arrays, meta) of a State for a checkpoint (``extra`` entries: arrays, numbers or None)."""
    arrays = {"u": state.u, "v": state.v, "a": state.a, "g": state.g}
    for key, value in state.extra.items():
        if value is not None and not isinstance(value, (np.ndarray, float, int, np.floating)):
            raise TypeError(f"cannot checkpoint the integrator state: State.extra[{key!r}] is a {type(value).__name__}")
        if value is not None:
            arrays[f"extra_{key}"] = value
    meta = {"t": float(state.t), "extra_none": [k for k, v in state.extra.items() if v is None],
            "extra_scalar": [k for k, v in state.extra.items() if v is not None and np.ndim(v) == 0]}
    return arrays, meta


def state_from_arrays(arrays, meta):
    """The State stored by :func:`state_arrays`."""
    extra = {k[len("extra_"):]: np.array(v) for k, v in arrays.items() if k.startswith("extra_")}
    extra.update({k: float(extra[k]) for k in meta.get("extra_scalar", ())})
    extra.update({k: None for k in meta["extra_none"]})
    get = arrays.get
    return State(float(meta["t"]), np.array(arrays["u"]), np.array(arrays["v"]),
                 a=None if get("a") is None else np.array(get("a")), g=None if get("g") is None else np.array(get("g")), extra=extra)


class FrameSchedule(Sequence):
    """Step indices of the recorded frames of an ``n``-step integration recording every
    ``every``-th step: 0, every, 2·every, ... and n (always the last), as a sequence whose
    items are computed on demand (a run of 1e15 steps has a schedule of a few bytes)."""

    def __init__(self, n, every):
        self.n = int(n)
        self.every = int(every)
        self._regular = self.n // self.every + 1  # 0, every, ..., the last multiple <= n

    def __len__(self):
        return self._regular + (self.n % self.every != 0)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        k = i + len(self) if i < 0 else i
        if not 0 <= k < len(self):
            raise IndexError(f"frame {i} of {len(self)}")
        return k * self.every if k < self._regular else self.n

    def __eq__(self, other):
        return list(self) == list(other) if isinstance(other, (list, tuple, FrameSchedule)) else NotImplemented

    def __repr__(self):
        return f"FrameSchedule(n={self.n}, every={self.every})"


@dataclass
class DynamicStepSettings:
    """A parsed dynamic step: time grid, solver settings, scheme factory, probes and the
    segment length ``checkpoint_every`` (recorded frames per ``solve_dynamic`` call; 0:
    one call for the whole step, frames written when it returns, no checkpoints) and
    ``initial_state``, the name of the earlier step whose end state the step starts from
    (None: the undeformed state)."""

    dt: float
    t_end: float
    t0: float = 0.0
    settings: DynamicSettings = field(default_factory=DynamicSettings)
    scheme: dict = field(default_factory=lambda: {"name": "midpoint"})
    probes: dict = field(default_factory=dict)
    checkpoint_every: int = 1
    initial_state: str = None

    def make_scheme(self):
        """A new scheme object from ``scheme`` ({"name": ..., parameters})."""
        kind = self.scheme["name"]
        if kind == "midpoint":
            return MidPoint()
        if kind == "newmark":
            return Newmark(self.scheme.get("beta", 0.25), self.scheme.get("gamma", 0.5))
        if kind == "hht":
            return HHT(self.scheme.get("alpha", -0.05))
        return GeneralizedAlpha(self.scheme.get("rho_inf", 0.8))

    def schedule(self):
        """(number of steps N, step index of every recorded frame as a FrameSchedule: a
        sequence computed on demand, never built as a list)."""
        n = max(1, int(np.ceil((self.t_end - self.t0) / self.dt - 1e-9)))
        return n, FrameSchedule(n, max(1, int(self.settings.record_every)))

    def time_at(self, k, n):
        """Time of step index k (the end time for the last)."""
        return self.t_end if k == n else self.t0 + k * self.dt


@dataclass
class _Totals:
    E0: float = None
    external_work: float = 0.0
    constraint_work: float = 0.0
    dissipated_energy: float = 0.0
    newton_iterations: int = 0
    cutbacks: int = 0
    wall_time: float = 0.0
    segments: int = 0


def _merge(res, seg, totals, keep_first):
    """Append the frames of segment ``seg`` to ``res`` (its first frame, the end of the
    previous segment, only when ``keep_first``), with the cumulative energy terms
    continued from ``totals``."""
    if keep_first and "total_energy" in seg.history:
        totals.E0 = seg.history["total_energy"][0]
    for i in range(0 if keep_first else 1, len(seg)):
        h = {k: v[i] for k, v in seg.history.items()}
        for key in ACCUMULATED:
            if key in h:
                h[key] = getattr(totals, key) + h[key]
        if "energy_residual" in h and "total_energy" in h and totals.E0 is not None:
            h["energy_residual"] = h["total_energy"] - totals.E0 - h.get("external_work", 0.0) - h.get("constraint_work", 0.0) \
                + h.get("dissipated_energy", 0.0)
        arrays = {k: v[i] for k, v in seg.arrays.items() if len(v) == len(seg)} or None  # joint multipliers ...
        res.record(seg.times[i], seg.states[i], seg.velocities[i] if i < len(seg.velocities) else None, arrays=arrays, **h)
    if len(seg):
        for key in ACCUMULATED:
            if key in seg.history:
                setattr(totals, key, getattr(totals, key) + seg.history[key][-1])


def run_dynamic_step(model, step, on_frame, checkpoint=None, start=None):
    """Run a dynamic step (DynamicStepSettings) and return its Results.

    ``on_frame(results)`` is called after every segment (it writes the new frames);
    ``checkpoint`` (a femb.case.checkpoint.StepCheckpoint or None) receives the state after
    every segment and carries the restart data in ``checkpoint.resume``.
    ``start``: None (the undeformed state, the model's initial velocities) or
    (u0 (n_var,), v0 (n_var,) or None, source step name, strict): the state an earlier step
    ended in (femb.case.initial_state); its prescribed DOFs must equal their values at t0
    (InputError otherwise; ``strict=False`` only logs the difference).
    """
    problem = DynamicProblem(model, None, step.settings.mass, step.settings.damping)
    u0 = v0 = None
    if start is not None:
        u0, v0, source, strict = start
        worst = check_prescribed(problem, u0, step.t0, source, strict=strict)
        if worst > 1e-9:
            log.warning("start state of step %r: prescribed DOFs moved by up to %.3g (relative) to their values at t0", source, worst)
    if step.checkpoint_every == 0:
        res = solve_dynamic(model, step.dt, step.t_end, step.settings, t0=step.t0, u0=u0, v0=v0, scheme=step.make_scheme(),
                            probes=step.probes, problem=problem)
        on_frame(res)
        return _mark_start(res, step)
    n_steps, frames = step.schedule()
    res = Results(problem.table, "dynamic", model)
    totals = _Totals()
    scheme = CarriedScheme(step.make_scheme())
    resume = checkpoint.resume if checkpoint is not None else None
    if resume is not None:
        resume.restore_results(res)
        res.info.update(resume.meta["info"])
        for key, value in resume.meta["totals"].items():
            setattr(totals, key, value)
        scheme.state = state_from_arrays(resume.arrays, resume.meta["state"])
        log.info("restart at t = %.6g (frame %d of %d)", scheme.state.t, len(res) - 1, len(frames) - 1)
    saved = len(res)
    keys = list(res.history) or None
    shapes = resume.meta.get("array_shapes", {}) if resume is not None else None
    while len(res) < len(frames):
        j0 = max(len(res) - 1, 0)
        j1 = min(j0 + step.checkpoint_every, len(frames) - 1)
        ta, tb = step.time_at(frames[j0], n_steps), step.time_at(frames[j1], n_steps)
        carried = scheme.state
        start = time.perf_counter()
        try:
            seg = solve_dynamic(model, step.dt, tb, step.settings, t0=ta, u0=u0 if carried is None else carried.u,
                                v0=v0 if carried is None else carried.v, scheme=scheme.scheme, probes=step.probes, problem=problem)
        except ConvergenceError as exc:
            if exc.results is not None and len(exc.results):
                _merge(res, exc.results, totals, keep_first=len(res) == 0)
            exc.results = res
            raise
        if not res.info:
            res.info.update(seg.info)
        _merge(res, seg, totals, keep_first=len(res) == 0)
        totals.newton_iterations += int(seg.info.get("newton_iterations", 0))
        totals.cutbacks += int(seg.info.get("cutbacks", 0))
        totals.wall_time += time.perf_counter() - start
        totals.segments += 1
        on_frame(res)
        if checkpoint is not None:
            keys = keys or list(res.history)
            shapes = array_shapes(res) if shapes is None else shapes
            fixed = set(res.arrays) == set(shapes) and all(
                list(np.shape(res.arrays[name][i])) == shape for name, shape in shapes.items() for i in range(saved, len(res)))
            if list(res.history) != keys or not fixed:
                raise RuntimeError(f"history keys or frame arrays changed between segments: {keys} -> {list(res.history)}")
            arrays, state_meta = state_arrays(scheme.state)
            res.info.update(_info(step, n_steps, totals))
            meta = {"frames": len(res), "history_keys": keys, "array_shapes": shapes, "state": state_meta, "totals": vars(totals),
                    "info": res.info}
            checkpoint.save(frame_rows(res, saved, keys, shapes), meta, arrays)
            saved = len(res)
    res.info.update(_info(step, n_steps, totals))
    return _mark_start(res, step)


def _mark_start(res, step):
    if step.initial_state is not None:
        res.info["initial_state"] = step.initial_state
    return res


def _info(step, n_steps, totals):
    return {"t0": step.t0, "t_end": step.t_end, "steps": n_steps, "newton_iterations": totals.newton_iterations,
            "cutbacks": totals.cutbacks, "wall_time": totals.wall_time, "time_per_step": totals.wall_time / n_steps,
            "segments": totals.segments, "checkpoint_every": step.checkpoint_every}
