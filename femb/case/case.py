"""``load_case(path) -> Case`` and ``Case.run(out_dir)``: a TOML case file end to end."""
import json
import logging
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from femb.case.build import ModelBuilder, build_mesh, read_materials, read_sections
from femb.case.checkpoint import CHECKPOINT, FRAMES, Checkpoint, case_fingerprint
from femb.case.limits import DEFAULT_MEMORY_GB, DEFAULT_OUTPUT_GB, Limits, check_case_size
from femb.case.schema import Context, Table, read_parameters
from femb.case.steps import read_steps
from femb.core.errors import InputError, ModelError
from femb.export import FrameStreamer, PVDWriter, write_history_csv, write_run_json, write_step_modes

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

log = logging.getLogger(__name__)

TOP_LEVEL_KEYS = ["title", "parameters", "model", "mesh", "materials", "sections", "parts", "superelements", "discrete", "rigid_links", "fix", "prescribe", "ties", "joints",
                  "markers", "loads", "initial_velocity", "steps", "output"]
OUTPUT_KEYS = ["vtk", "frames", "history", "name", "surfaces", "max_memory_gb", "max_output_gb"]
SURFACE_KEYS = ["shape", "width", "height", "diameter", "segments"]


@dataclass
class OutputSettings:
    """What ``Case.run`` writes: ``vtk`` frames (every ``frames``-th frame, or "all"; the
    last frame of each step always) into ``<name>.pvd``, ``history`` as history.csv;
    run.json is always written. ``surfaces``: None, or True (every bar/beam part with a
    section) or {part: outline dict} — the extruded cross-sections, ``<name>_surface.pvd``
    (femb.export.surfaces). ``max_memory_gb``, ``max_output_gb``: the size limits of
    the run (femb.case.limits; None: the defaults)."""

    vtk: bool = True
    frames: object = "all"
    history: bool = True
    name: str = "results"
    surfaces: object = None
    max_memory_gb: float = None
    max_output_gb: float = None

    @property
    def every(self):
        return 1 if self.frames == "all" else int(self.frames)


@dataclass
class Case:
    """A loaded case: its validated Model, analysis steps and output settings.

    ``smoke``: the steps were shortened for a smoke run (``load_case(path, smoke=True)``).
    """

    path: Path
    model: object
    steps: list
    output: OutputSettings
    parameters: dict = field(default_factory=dict)
    title: str = ""
    smoke: bool = False
    limits: Limits = field(default_factory=Limits)

    def fingerprint(self):
        return case_fingerprint(self.path, self.smoke, self.parameters)

    def run(self, out_dir, progress=True, restart=False):
        """Run every step in order, each from the undeformed state (a dynamic step with
        ``initial_state``: from the state the named earlier step ended in), writing into
        ``out_dir``: ``<name>.pvd`` + ``<name>_<k>.vtu`` (all steps' frames in one
        collection, grouped by step name), ``history.csv`` (a ``step`` column when there
        are several steps) and ``run.json``. Output is refreshed after every step, and
        after every increment or segment where the solver reports them, so a failed or
        killed run keeps what was computed (history.csv and run.json while a step runs: at
        its first frame, then every few seconds). Dynamic steps also keep
        ``checkpoint.npz`` (+ ``checkpoint_frames.bin``) current at every recorded frame.

        A fresh run first removes what an earlier run wrote into ``out_dir`` (the files of
        :func:`output_files`, for this output name and the one in the earlier run.json);
        other files in the folder are left alone. An ``out_dir`` that is an existing file
        is an InputError.

        Ctrl-C (KeyboardInterrupt) stops the run after writing history.csv and run.json
        (the step's status "interrupted") and raises :class:`RunInterrupted`.

        ``restart=True`` continues from the checkpoint in ``out_dir`` (InputError when
        there is none, or it belongs to another case): steps finished before it are not
        rerun (their Results carry times, history and info only), the checkpointed step
        continues from its last recorded frame, and the collection, history.csv and
        run.json are continued. The continuation is bit for bit the same as an
        uninterrupted run.

        Before anything runs, the memory and output the run needs are estimated; beyond
        ``self.limits`` (femb.case.limits) it is an InputError naming the keys.

        ``progress``: show a progress display on stderr: a tqdm bar when stderr is a
        terminal, otherwise a line at every tenth of a step's frames (and at least every
        minute), so logs of batch runs are not flooded; False: none.

        Returns the list of Results (one per step). A ConvergenceError or
        SingularSystemError propagates after the frames computed so far have been
        written and run.json records the failure.
        """
        check_case_size(self, self.limits)
        out = prepare_output_folder(out_dir)
        ckpt = Checkpoint(out, self.fingerprint())
        if restart:
            resume = ckpt.load(self._n_var())
        else:
            removed = clear_previous_outputs(out, self.output.name)
            if removed:
                log.info("removed %d files of an earlier run from %s", len(removed), out)
        writer = PVDWriter(out, self.output.name, surfaces=self.output.surfaces) if self.output.vtk else None
        ckpt.writer = writer
        done, stats, first = [], [], 0
        if restart:
            first = resume.step_index
            done, stats = resume.completed_results(self.model), list(ckpt.stats)
            if writer is not None:
                writer.restore(resume.meta["pvd_entries"])
            log.info("restarting step %r at frame %d", self.steps[first].name, resume.n_frames - 1)
        else:
            resume = None
        settings = {s.name: {"type": s.type, "settings": s.settings} for s in self.steps}
        referenced = {s.initial_state for s in self.steps if s.initial_state is not None}
        names = [s.name for s in self.steps]
        index = first
        try:
            for index in range(first, len(self.steps)):
                step = self.steps[index]
                step_resume = resume if resume is not None and index == first else None
                n_before = step_resume.n_frames if step_resume is not None else 0
                bar = _progress_bar(step, progress, n_before)
                dt = step.settings.get("dt") if isinstance(step.settings, dict) else getattr(step.settings, "dt", None)
                streamer = FrameStreamer(writer, group=step.name, every=self.output.every, on_frame=_ticker(bar, dt)) if writer else None
                if streamer is not None:
                    streamer.resume(n_before)
                running = [{"step": step.name, "status": "running"}]
                recorder = _Recorder(streamer if streamer else _catch_up(bar, dt),
                                     lambda latest, running=running: self._write_records(out, done + [latest], settings, stats + running))
                on_frame = recorder
                checkpoint = ckpt.step(index, step.name, step_resume) if step.restartable else None
                start = time.perf_counter()
                try:
                    initial = None
                    if step.initial_state is not None and not (step_resume is not None and n_before):
                        from femb.case.initial_state import end_state

                        u0, v0 = end_state(done[names.index(step.initial_state)], step.initial_state)
                        initial = (u0, v0, step.initial_state, not self.smoke)
                    results = step.run(self.model, on_frame, checkpoint, start=initial)
                except KeyboardInterrupt:
                    if checkpoint is not None:
                        checkpoint.close()
                    bar.close()
                    runs = done + ([recorder.latest] if recorder.latest is not None else [])
                    stats.append({"step": step.name, "status": "interrupted", "seconds": time.perf_counter() - start,
                                  "frames": len(recorder.latest) if recorder.latest is not None else 0})
                    self._write_records(out, runs, settings, stats)
                    restartable = step.restartable and ckpt.path.exists()
                    raise RunInterrupted(out, step.name, restartable) from None
                except Exception as exc:
                    if checkpoint is not None:
                        checkpoint.close()
                    partial = getattr(exc, "results", None)
                    if partial is not None and streamer is not None:
                        streamer.finish(partial)
                    runs = done + ([partial] if partial is not None else [])
                    stats.append({"step": step.name, "status": "failed", "error": f"{type(exc).__name__}: {exc}", "seconds": time.perf_counter() - start})
                    self._write_records(out, runs, settings, stats)
                    bar.close()
                    if type(exc) in (InputError, ModelError) and exc.where is None:  # a solver's refusal: name the case and step
                        raise type(exc)(exc.problems, f"{self.path}: steps[{index}] ({step.name})") from exc
                    raise
                if checkpoint is not None:
                    checkpoint.close()
                if streamer is not None:
                    streamer.finish(results)
                    if results.kind in MODE_STEP_KINDS:
                        write_step_modes(results, out, mode_series_name(self.output.name, step.name))
                bar.close()
                done.append(results)
                stats.append({"step": step.name, "status": "completed", "frames": len(results), "seconds": time.perf_counter() - start,
                              **({"restarted_at_frame": n_before - 1} if n_before else {})})
                ckpt.complete_step(results, stats, keep_state=step.name in referenced)
                self._write_records(out, done, settings, stats)
                log.info("step %r: %d frames in %.2f s", step.name, len(results), stats[-1]["seconds"])
        except RunInterrupted:
            raise
        except KeyboardInterrupt:  # between two steps, or while a finished step's records were written
            self._write_records(out, done, settings, stats)
            raise RunInterrupted(out, self.steps[min(index, len(self.steps) - 1)].name, ckpt.path.exists()) from None
        return done

    def _n_var(self):
        from femb.correlation import build_table

        return build_table(self.model).n_var

    def _write_records(self, out, runs, settings, stats):
        if self.output.history and runs:
            write_history_csv(runs if len(self.steps) > 1 else runs[0], out / "history.csv")
        extra = {"case": str(self.path), "title": self.title, "parameters": self.parameters, "smoke": self.smoke,
                 "output": {"name": self.output.name, "vtk": self.output.vtk, "history": self.output.history}, "steps": stats}
        write_run_json(out / "run.json", self.model, runs, settings, extra)


class RunInterrupted(KeyboardInterrupt):
    """A case run stopped by Ctrl-C (SIGINT) after writing what it had computed:
    ``out_dir``, the interrupted ``step`` name and whether ``--restart`` can continue it
    (``restartable``: a dynamic step with a checkpoint). A KeyboardInterrupt, so code that
    does not handle it stops as on any Ctrl-C."""

    def __init__(self, out_dir, step, restartable):
        self.out_dir = Path(out_dir)
        self.step = step
        self.restartable = restartable
        super().__init__(f"run interrupted in step {step!r}; results so far in {self.out_dir}")


def prepare_output_folder(out_dir):
    """Create the output folder ``out_dir`` (and its parents); InputError when it, or a
    parent, is an existing file."""
    out = Path(out_dir)
    for p in (out, *out.parents):
        if p.exists() and not p.is_dir():
            raise InputError(f"output folder {str(out)!r}: {str(p)!r} is an existing file, not a folder")
    out.mkdir(parents=True, exist_ok=True)
    return out


FIXED_OUTPUTS = ("history.csv", "run.json", CHECKPOINT, FRAMES)
MODE_STEP_KINDS = ("modal", "buckling")  # steps whose frames are modes: also written as animated series


def mode_series_name(name, step):
    """Base name of the animated mode series of step ``step``: ``<name>_<step>_mode``
    (characters other than letters, digits, '-' and '_' in the step name become '_'), so
    mode j is ``<name>_<step>_mode_<j>.pvd`` with its frames."""
    return f"{name}_{re.sub(r'[^A-Za-z0-9_-]', '_', step)}_mode"


def output_files(out_dir, name):
    """The files of ``out_dir`` that a case run with output name ``name`` writes:
    ``<name>.pvd``, ``<name>_<5 digits>.vtu``, the surface collection ``<name>_surface.pvd``
    and its ``<name>_surface_<5 digits>.vtu``, the mode series of modal and buckling steps
    ``<name>_<step>_mode_<j>.pvd`` and their frames, history.csv, run.json, the checkpoint files
    and femb's temporary files of them (``<file>.part``, ``.<file>.*.tmp``)."""
    out = Path(out_dir)
    frame = re.compile(rf"{re.escape(name)}(_surface|_[A-Za-z0-9_-]+_mode_\d+)?_\d{{5}}\.vtu(\.part)?")
    modes = re.compile(rf"{re.escape(name)}_[A-Za-z0-9_-]+_mode_\d+\.pvd")
    fixed = {f"{name}.pvd", f"{name}_surface.pvd", *FIXED_OUTPUTS}
    temporary = re.compile(r"\.(" + "|".join(re.escape(f) for f in fixed) + r")\..+\.tmp")
    return sorted(p for p in out.iterdir() if p.is_file() and (p.name in fixed or frame.fullmatch(p.name) or modes.fullmatch(p.name)
                                                                or temporary.fullmatch(p.name)))


def clear_previous_outputs(out_dir, name):
    """Remove what an earlier case run wrote into ``out_dir`` (its output name read from
    its run.json, and ``name``): the files listed by :func:`output_files`, nothing else.
    Returns the removed paths."""
    out = Path(out_dir)
    names = {name}
    try:
        previous = json.loads((out / "run.json").read_text(encoding="utf-8"))["output"]["name"]
        if isinstance(previous, str) and previous:
            names.add(previous)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    removed = []
    for n in sorted(names):
        for p in output_files(out, n):
            p.unlink(missing_ok=True)
            removed.append(p)
    return removed


class _Recorder:
    """on_frame wrapper of a running step: passes every call on to ``inner``, keeps the
    latest Results (``latest``) and refreshes history.csv and run.json through
    ``write(latest)`` at the first frame and then at most every few seconds (and never
    taking more than a tenth of the run time), so a killed run leaves a readable history."""

    def __init__(self, inner, write, interval=2.0):
        self.inner = inner
        self.write = write
        self.interval = interval
        self.latest = None
        self._last = None
        self._cost = 0.0

    def __call__(self, results):
        value = self.inner(results)
        self.latest = results
        now = time.perf_counter()
        if len(results) and (self._last is None or now - self._last > max(self.interval, 10.0 * self._cost)):
            self.write(results)
            self._last = time.perf_counter()
            self._cost = self._last - now
        return value


class _NoBar:
    n = 0

    def update(self, k=1):
        self.n += k

    def set_postfix(self, *args, **kwargs):
        pass

    def close(self):
        pass


def _status(results, dt=None):
    """Progress-bar postfix of the last frame: time (or load factor), step size and the
    Newton iterations and step halvings since the previous frame."""
    post = {}
    if len(results):
        post["t"] = f"{results.times[-1]:.6g}"
    if dt is not None:
        post["dt"] = f"{dt:.3g}"
    for key, label in (("iterations", "newton/frame"), ("cutbacks", "cut")):
        values = results.history.get(key)
        if values:
            post[label] = int(values[-1])
    return post


def _ticker(bar, dt=None):
    """on_frame(results, k) of a FrameStreamer: one tick per frame, with the status."""
    def tick(results, k):
        bar.update(1)
        bar.set_postfix(_status(results, dt), refresh=False)
    return tick


def _catch_up(bar, dt=None):
    """on_frame(results) without output: advance the bar to the number of frames."""
    def tick(results):
        bar.update(len(results) - bar.n)
        bar.set_postfix(_status(results, dt), refresh=False)
    return tick


class _LineProgress:
    """Progress for a stream that is not a terminal (a log file, a pipe, CI): whole lines
    ``<desc>: k/N frames (p %), t=..., ...`` at every tenth of the frames and at most every
    ``interval`` seconds otherwise, and a last line when the step ends, instead of a bar
    redrawn with carriage returns for every frame."""

    def __init__(self, total, initial, desc, stream, interval=60.0):
        self.total = total
        self.n = initial
        self.desc = desc
        self.stream = stream
        self.interval = interval
        self.postfix = {}
        self._last_time = time.monotonic()
        self._last_tenth = self._tenth()
        self._last_n = None

    def _tenth(self):
        return int(10 * self.n / self.total) if self.total else 0

    def update(self, k=1):
        self.n += k

    def set_postfix(self, postfix=None, refresh=True, **kwargs):
        self.postfix = dict(postfix or {}, **kwargs)
        now = time.monotonic()
        tenth = self._tenth()
        if tenth > self._last_tenth or now - self._last_time >= self.interval:
            self._emit()
            self._last_tenth, self._last_time = tenth, now

    def _emit(self):
        count = f"{self.n}/{self.total}" if self.total else f"{self.n}"
        share = f" ({100.0 * self.n / self.total:.0f} %)" if self.total else ""
        status = "".join(f", {k}={v}" for k, v in self.postfix.items())
        self.stream.write(f"{self.desc}: {count} frames{share}{status}\n")
        self.stream.flush()
        self._last_n = self.n

    def close(self):
        if self._last_n != self.n:
            self._emit()


def _progress_bar(step, progress, initial=0, stream=None):
    """Progress display of a step on ``stream`` (default sys.stderr): None/False: nothing;
    True: a tqdm bar on a terminal, sparse whole lines (:class:`_LineProgress`) otherwise."""
    if not progress:
        bar = _NoBar()
        bar.n = initial
        return bar
    stream = sys.stderr if stream is None else stream
    desc = f"{step.name} ({step.type})"
    isatty = getattr(stream, "isatty", None)
    if not (isatty is not None and isatty()):
        return _LineProgress(step.expected_frames(), initial, desc, stream)
    from tqdm import tqdm

    return tqdm(total=step.expected_frames(), initial=initial, desc=desc, unit="frame", leave=True, file=stream)


def _read_output(table, ctx):
    out = OutputSettings()
    if table is None:
        return out
    with ctx.guard():
        out.vtk = table.take("vtk", "boolean", default=True)
        out.history = table.take("history", "boolean", default=True)
        out.name = table.take("name", "string", default="results")
        frames = table.take("frames", default="all")
        if frames != "all" and (isinstance(frames, bool) or not isinstance(frames, int) or frames < 1):
            ctx.fail(table.key_path("frames"), f"expected \"all\" or a positive integer (every n-th frame), got {frames!r}")
        out.frames = frames
        out.max_memory_gb = table.take("max_memory_gb", "number", positive=True)
        out.max_output_gb = table.take("max_output_gb", "number", positive=True)
    with ctx.guard():
        out.surfaces = _read_surfaces(table, ctx)
    table.done()
    return out


def _read_surfaces(table, ctx):
    """``surfaces = true`` (every bar/beam part with a section, equivalent rectangle) or a
    table ``[output.surfaces.<part>]`` with shape = "auto" | "rectangle" | "circle" and
    width, height / diameter, segments (or ``<part> = true``)."""
    from femb.export.surfaces import SHAPES, outline_from_spec

    value = table.take("surfaces", default=None)
    path = table.key_path("surfaces")
    if value is None or value is False:
        return None
    if value is True:
        return True
    if not isinstance(value, dict):
        ctx.fail(path, f"expected true, false or a table of parts, got {value!r}")
    out = {}
    for part, spec in value.items():
        where = f"{path}.{part}"
        if spec is True:
            out[part] = "auto"
            continue
        if not isinstance(spec, dict):
            ctx.fail(where, f"expected true or a table (shape = {' | '.join(SHAPES)}, ...), got {spec!r}")
        unknown = [k for k in spec if k not in SURFACE_KEYS]
        if unknown:
            ctx.fail(where, f"unknown key {unknown[0]!r} (allowed: {', '.join(SURFACE_KEYS)})")
        spec = dict(spec)
        for key in ("width", "height", "diameter"):  # numbers or expressions over the parameters
            if key in spec:
                spec[key] = ctx.number(spec[key], f"{where}.{key}")
        if "segments" in spec and (isinstance(spec["segments"], bool) or not isinstance(spec["segments"], int)):
            ctx.fail(f"{where}.segments", f"expected an integer, got {spec['segments']!r}")
        try:
            if spec.get("shape", "auto") != "auto":
                outline_from_spec(spec, where=where)
        except InputError as exc:
            ctx.fail(where, exc.problems[0].split(": ", 1)[-1] if exc.problems else str(exc))
        out[part] = spec
    return out


def _check_surface_parts(surfaces, model):
    """Problems of ``[output.surfaces]`` that need the model: unknown parts, parts that are
    not bars or beams, "auto" outlines of parts without a section."""
    if not isinstance(surfaces, dict):
        return []
    problems = []
    for name, spec in surfaces.items():
        where = f"output.surfaces.{name}"
        part = model.parts.get(name)
        if part is None:
            problems.append(f"{where}: unknown part {name!r} (parts: {', '.join(model.parts)})")
            continue
        spec_ = model.spec(name)
        if not (spec_.cell_type == "line" and spec_.n_nodes == 2 and "EA" in spec_.params):
            problems.append(f"{where}: element {part.element!r} of part {name!r} is not a two-node bar or beam")
        auto = spec == "auto" or (isinstance(spec, dict) and spec.get("shape", "auto") == "auto")
        if auto and part.section is None:
            problems.append(f"{where}: part {name!r} has no section; give shape = \"rectangle\" (width, height) or \"circle\" (diameter)")
    return problems


def smoke_requested():
    """True when the environment variable FEMB_SMOKE is set to a true value (1, yes, true)."""
    return os.environ.get("FEMB_SMOKE", "").strip().lower() in ("1", "yes", "true", "on")


def load_case(path, smoke=None, parameters=None, limits=None):
    """Read the TOML case file ``path`` into a validated :class:`Case`.

    ``smoke=True`` shortens every step for a quick check that the case runs (static: the
    first two increments; arc-length: 5 increments; dynamic: the first 5 recorded frames;
    buckling and modal unchanged); None: as the environment variable FEMB_SMOKE says.
    ``parameters``: {name: number} replacing entries of the case's ``[parameters]``
    (parameters defined from them follow); an unknown name is an InputError.
    ``limits``: {"memory_gb": GB, "output_gb": GB} overriding ``[output] max_memory_gb``
    and ``max_output_gb`` (femb.case.limits); a generated mesh beyond the memory limit is
    refused before it is generated, a run beyond them by ``Case.run``.

    Raises InputError naming the file and every problem (key path and value), or
    ModelError when the model assembled from valid tables is inconsistent.
    """
    smoke = smoke_requested() if smoke is None else bool(smoke)
    path = Path(path)
    where = str(path)
    if not path.is_file():
        raise InputError("case file not found" if not path.exists() else "case path is not a file", where)
    try:
        doc_data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"invalid TOML: {exc}", where) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not a UTF-8 text file ({exc.reason})", where) from None
    if parameters:
        defined = doc_data.get("parameters") if isinstance(doc_data.get("parameters"), dict) else {}
        unknown = [name for name in parameters if name not in defined]
        if unknown:
            raise InputError([f"unknown parameter {name!r} (the case's parameters: {', '.join(defined) or 'none'})" for name in unknown], where)
        defined.update(parameters)
    ctx = Context(where)
    doc = Table(doc_data, "", ctx, TOP_LEVEL_KEYS)
    title = ""
    with ctx.guard():
        title = doc.take("title", "string", default="")
    with ctx.guard():
        read_parameters(doc.sub("parameters"), ctx)
    output = OutputSettings()
    with ctx.guard():
        output = _read_output(doc.sub("output", OUTPUT_KEYS), ctx)
    size_limits = Limits(output.max_memory_gb or DEFAULT_MEMORY_GB, output.max_output_gb or DEFAULT_OUTPUT_GB)
    for key, value in (limits or {}).items():
        if value is not None:
            setattr(size_limits, key, float(value))
    ctx.limits = size_limits
    mesh, materials, sections = None, {}, {}
    with ctx.guard():
        mesh = build_mesh(doc.sub("mesh", required=True), ctx, path.parent)
    with ctx.guard():
        materials = read_materials(doc.sub("materials"), ctx)
    with ctx.guard():
        sections = read_sections(doc.sub("sections"), ctx)
    steps = []
    with ctx.guard():
        steps = read_steps(doc, ctx)
    model = None
    if mesh is not None:
        with ctx.guard():
            model = ModelBuilder(doc, ctx, mesh, materials, sections, path.parent).build(doc.sub("model"))
    if model is not None:
        for i, step in enumerate(steps):
            for key, message in step.check(model):
                ctx.problems.append(f"steps[{i}].{key}: {message}")
        ctx.problems += _check_surface_parts(output.surfaces, model)
    doc.done()
    ctx.raise_if_problems()
    problems = model.problems()
    if problems:
        raise ModelError(problems, f"{where}: model {model.name!r}")
    if smoke:
        steps = [s.smoke() for s in steps]
    return Case(path, model, steps, output, dict(ctx.parameters), title, smoke, size_limits)


def run_case(path, out_dir, progress=True, restart=False, smoke=None):
    """``load_case(path, smoke).run(out_dir, progress, restart)``."""
    return load_case(path, smoke).run(out_dir, progress, restart)


__all__ = ["Case", "OutputSettings", "RunInterrupted", "clear_previous_outputs", "load_case", "output_files", "run_case"]
