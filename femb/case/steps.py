"""Analysis steps of case files and their registry.

A step type is registered with :func:`register_step_type` under the name used as
``type = "..."`` in ``[[steps]]``:

``parse(table, ctx) -> settings``
    reads the step's own keys from a :class:`femb.case.schema.Table` (``type`` and
    ``name`` are already taken) and returns any settings object;
``run(model, settings, on_frame) -> Results``
    runs the analysis; ``on_frame(results)`` should be called whenever frames were added
    (it writes them to disk and advances the progress bar; calling it once at the end is
    enough);
``expected_frames(settings) -> int or None``
    the number of frames, for the progress bar;
``smoke(settings) -> settings`` (optional)
    a shortened copy for smoke runs (``femb run --smoke``): a few increments or time
    steps, to check that a case runs at all;
``check(model, settings) -> [(key, message), ...]`` (optional)
    problems of the settings that need the model (e.g. unknown probe nodes), reported
    with the step's key path when the case is loaded;
``restartable`` (bool)
    ``run`` takes a keyword ``checkpoint`` (a femb.case.checkpoint.StepCheckpoint, or
    None) to write restart data and to continue from ``checkpoint.resume``.
``end_state`` (bool)
    the step's last frame is a state of the model (static, dynamic), so that a dynamic step
    may start from it (``initial_state = "<name>"``, femb.case.initial_state). A step type
    whose settings have an ``initial_state`` attribute (a step name or None) gets
    ``run(..., start=(u0, v0, name, strict))`` when it is set.

Built in: ``static``, ``arclength``, ``buckling``; ``dynamic`` (femb.case.dynamic_step)
and ``modal`` (femb.case.modal_step) register theirs when femb.case is imported.
"""
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from femb.results import Results
from femb.solvers import (
    ArcLengthSettings,
    NewtonSettings,
    solve_arclength,
    solve_buckling,
    solve_static,
)


@dataclass(frozen=True)
class StepType:
    """A registered kind of analysis step (see the module docstring)."""

    name: str
    parse: Callable
    run: Callable
    expected_frames: Callable | None = None
    description: str = ""
    smoke: Callable | None = None
    restartable: bool = False
    check: Callable | None = None
    end_state: bool = False


STEP_TYPES = {}


def register_step_type(name, parse, run, expected_frames=None, description="", smoke=None, restartable=False, check=None,
                       end_state=False):
    """Register (or replace) the step type ``name``; returns the StepType."""
    STEP_TYPES[name] = StepType(name, parse, run, expected_frames, description, smoke, restartable, check, end_state)
    return STEP_TYPES[name]


@dataclass
class Step:
    """One ``[[steps]]`` entry: its name, type and parsed settings."""

    name: str
    type: str
    settings: object

    def run(self, model, on_frame=None, checkpoint=None, start=None):
        """Run the step; ``start``: (u0, v0 or None, source step name, strict) when the step
        starts from the state of an earlier step (``initial_state``)."""
        kind = STEP_TYPES[self.type]
        on_frame = on_frame or (lambda results: None)
        extra = {"start": start} if start is not None else {}
        if kind.restartable:
            return kind.run(model, self.settings, on_frame, checkpoint=checkpoint, **extra)
        return kind.run(model, self.settings, on_frame, **extra)

    @property
    def initial_state(self):
        """Name of the step whose end state this step starts from, or None."""
        return getattr(self.settings, "initial_state", None)

    @property
    def restartable(self):
        return STEP_TYPES[self.type].restartable

    def check(self, model):
        """[(key, message)] problems of the settings against ``model``."""
        f = STEP_TYPES[self.type].check
        return list(f(model, self.settings)) if f is not None else []

    def smoke(self):
        """A shortened copy of this step for smoke runs (itself when the type has none)."""
        f = STEP_TYPES[self.type].smoke
        return Step(self.name, self.type, f(self.settings)) if f is not None else self

    def expected_frames(self):
        f = STEP_TYPES[self.type].expected_frames
        return f(self.settings) if f is not None else None


# ---------------------------------------------------------------------------- helpers
def read_dataclass(table, cls, ctx, exclude=()):
    """Keyword arguments for dataclass ``cls`` from ``table``: every field whose default is
    a bool, int or float may be given (floats also as expressions; "inf" allowed)."""
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name in exclude or f.name not in table:
            continue
        default = f.default
        if isinstance(default, bool):
            kwargs[f.name] = table.take(f.name, "boolean")
        elif isinstance(default, int):
            kwargs[f.name] = table.take(f.name, "integer", minimum=0)
        else:
            kwargs[f.name] = table.take(f.name, "number")
    return kwargs


def _allowed(cls, exclude=()):
    return [f.name for f in dataclasses.fields(cls) if f.name not in exclude]


def read_newton(table, ctx, defaults=None):
    """NewtonSettings from the optional sub-table ``newton`` (fields not given keep their
    value in ``defaults``, by default ``NewtonSettings()``)."""
    base = defaults if defaults is not None else NewtonSettings()
    sub = table.sub("newton", _allowed(NewtonSettings))
    if sub is None:
        return base
    kwargs = read_dataclass(sub, NewtonSettings, ctx)
    sub.done()
    return dataclasses.replace(base, **kwargs)


# ---------------------------------------------------------------------------- static
def parse_static(table, ctx):
    table.allowed += ["steps", "load_factors", "newton"]
    if "steps" in table and "load_factors" in table:
        ctx.fail(table.path, "give steps or load_factors, not both")
    steps = table.take("steps", "integer", default=10, minimum=1)
    factors = table.take("load_factors", "vector")
    if factors is not None and not factors:
        ctx.fail(table.key_path("load_factors"), "needs at least one load factor")
    return {"steps": steps, "load_factors": factors, "newton": read_newton(table, ctx)}


def run_static(model, settings, on_frame):
    results = solve_static(model, steps=settings["steps"], load_factors=settings["load_factors"], settings=settings["newton"], on_frame=on_frame)
    return results


def _static_frames(settings):
    return 1 + (len(settings["load_factors"]) if settings["load_factors"] is not None else settings["steps"])


# ---------------------------------------------------------------------------- arc-length
_ARC_EXCLUDE = ("stop",)


def parse_arclength(table, ctx):
    table.allowed += _allowed(ArcLengthSettings, _ARC_EXCLUDE) + ["newton"]
    kwargs = read_dataclass(table, ArcLengthSettings, ctx, _ARC_EXCLUDE)
    if "arc_length" in table:
        kwargs["arc_length"] = table.take("arc_length", "number", positive=True)
    return {"arclength": kwargs, "newton": read_newton(table, ctx)}


def run_arclength(model, settings, on_frame):
    def stop(results):
        on_frame(results)
        return False

    arc = ArcLengthSettings(**settings["arclength"], stop=stop)
    results = solve_arclength(model, arc, settings["newton"])
    on_frame(results)
    return results


def _arclength_frames(settings):
    return 1 + settings["arclength"].get("max_steps", ArcLengthSettings.max_steps)


# ---------------------------------------------------------------------------- buckling
def parse_buckling(table, ctx):
    table.allowed += ["n_modes"]
    return {"n_modes": table.take("n_modes", "integer", default=5, minimum=1)}


def largest_translation(table, mode):
    """Largest |entry| of ``mode`` (n_var,) over the translational variables of ``table``
    (over all variables when there are none): the scale that normalizes a mode shape."""
    trans = [k for k, n in enumerate(table.dof_names) if n.startswith("u")]
    trans_vars = table.node_var[:, trans].ravel()
    trans_vars = trans_vars[trans_vars >= 0]
    return np.max(np.abs(mode[trans_vars])) if trans_vars.size else np.max(np.abs(mode))


def run_buckling(model, settings, on_frame):
    """Linear buckling; the Results hold one frame per mode (time = critical load factor,
    state = the mode scaled to a largest translation of 1) and the history
    ``load_factor``, ``mode``."""
    buckling = solve_buckling(model, settings["n_modes"])
    table = buckling.table
    results = Results(table, "buckling", model)
    for i, (lam, mode) in enumerate(zip(buckling.load_factors, buckling.modes)):
        scale = largest_translation(table, mode)
        results.record(lam, mode / (scale if scale > 0 else 1.0), load_factor=lam, mode=i + 1)
    results.info["critical_load_factors"] = [float(v) for v in buckling.load_factors]
    on_frame(results)
    return results


def _smoke_static(settings):
    """The first two increments of the same load path."""
    factors = settings["load_factors"]
    if factors is None:  # the first two of steps equal increments (never the whole list)
        factors = [(i + 1) / settings["steps"] for i in range(min(2, settings["steps"]))]
    return dict(settings, load_factors=tuple(factors[:2]))


def _smoke_arclength(settings):
    return dict(settings, arclength=dict(settings["arclength"], max_steps=min(5, settings["arclength"].get("max_steps", ArcLengthSettings.max_steps))))


register_step_type("static", parse_static, run_static, _static_frames, "nonlinear statics, Newton with load stepping", smoke=_smoke_static,
                   end_state=True)
register_step_type("arclength", parse_arclength, run_arclength, _arclength_frames, "arc-length path following (limit points, snap-through)",
                   smoke=_smoke_arclength)
def check_buckling(model, settings):
    """solve_buckling has no joint elimination: a model with joints would give a singular
    stiffness (or wrong modes), so refuse it up front."""
    if getattr(model, "joints", None):
        names = ", ".join(repr(j.name) for j in model.joints[:3]) + (" ..." if len(model.joints) > 3 else "")
        yield "type", f"buckling steps do not handle joints yet (the model has {names}); use a static step, or ties instead of joints"


register_step_type("buckling", parse_buckling, run_buckling, lambda s: s["n_modes"], "linear buckling load factors and modes",
                   check=check_buckling)


def read_steps(doc, ctx):
    """The list of Steps of ``[[steps]]`` (at least one); references to earlier steps
    (``initial_state``) are checked."""
    from femb.case.initial_state import resolve_references

    steps, parsed = [], []
    tables = doc.array("steps")
    if not tables:
        ctx.problems.append("steps: a case needs at least one [[steps]] table")
    for i, t in enumerate(tables):
        with ctx.guard(), t:
            t.allowed = ["type", "name"]
            t.skip_check = True
            kind = t.take("type", "string", required=True, choices=tuple(STEP_TYPES))
            t.skip_check = False
            name = t.take("name", "string", default=f"step{i}")
            if not name.isidentifier():
                ctx.fail(t.key_path("name"), f"step names must be identifiers (letters, digits, _), got {name!r}")
            if any(s.name == name for s in steps):
                ctx.fail(t.key_path("name"), f"step name {name!r} is used twice")
            settings = STEP_TYPES[kind].parse(t, ctx)
            steps.append(Step(name, kind, settings))
            parsed.append(t)
    resolve_references(steps, parsed, ctx, STEP_TYPES)
    return steps
