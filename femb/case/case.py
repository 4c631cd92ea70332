"""``load_case(path) -> Case`` and ``Case.run(out_dir)``: a TOML case file end to end."""
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from femb.case.build import ModelBuilder, build_mesh, read_materials, read_sections
from femb.case.schema import Context, Table, read_parameters
from femb.case.steps import read_steps
from femb.core.errors import InputError, ModelError
from femb.export import FrameStreamer, PVDWriter, write_history_csv, write_run_json

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

log = logging.getLogger(__name__)

TOP_LEVEL_KEYS = ["title", "parameters", "model", "mesh", "materials", "sections", "parts", "fix", "prescribe", "ties", "markers", "loads", "steps", "output"]
OUTPUT_KEYS = ["vtk", "frames", "history", "name"]


@dataclass
class OutputSettings:
    """What ``Case.run`` writes: ``vtk`` frames (every ``frames``-th frame, or "all"; the
    last frame of each step always) into ``<name>.pvd``, ``history`` as history.csv;
    run.json is always written."""

    vtk: bool = True
    frames: object = "all"
    history: bool = True
    name: str = "results"

    @property
    def every(self):
        return 1 if self.frames == "all" else int(self.frames)


@dataclass
class Case:
    """A loaded case: its validated Model, analysis steps and output settings."""

    path: Path
    model: object
    steps: list
    output: OutputSettings
    parameters: dict = field(default_factory=dict)
    title: str = ""

    def run(self, out_dir, progress=True):
        """Run every step in order, each from the undeformed state, writing into
        ``out_dir``: ``<name>.pvd`` + ``<name>_<k>.vtu`` (all steps' frames in one
        collection, grouped by step name), ``history.csv`` (a ``step`` column when there
        are several steps) and ``run.json``. Output is refreshed after every step, and
        after every increment where the solver reports them, so a failed or killed run
        keeps what was computed. Returns the list of Results (one per step).

        A ConvergenceError or SingularSystemError propagates after the frames computed
        so far have been written and run.json records the failure.
        """
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        writer = PVDWriter(out, self.output.name) if self.output.vtk else None
        done, stats = [], []
        settings = {s.name: {"type": s.type, "settings": s.settings} for s in self.steps}
        for step in self.steps:
            bar = _progress_bar(step, progress)
            streamer = FrameStreamer(writer, group=step.name, every=self.output.every, on_frame=_ticker(bar)) if writer else None
            on_frame = streamer if streamer else _catch_up(bar)
            start = time.perf_counter()
            try:
                results = step.run(self.model, on_frame)
            except Exception as exc:
                partial = getattr(exc, "results", None)
                if partial is not None and streamer is not None:
                    streamer.finish(partial)
                runs = done + ([partial] if partial is not None else [])
                stats.append({"step": step.name, "status": "failed", "error": f"{type(exc).__name__}: {exc}", "seconds": time.perf_counter() - start})
                self._write_records(out, runs, settings, stats)
                bar.close()
                raise
            if streamer is not None:
                streamer.finish(results)
            bar.close()
            done.append(results)
            stats.append({"step": step.name, "status": "completed", "frames": len(results), "seconds": time.perf_counter() - start})
            self._write_records(out, done, settings, stats)
            log.info("step %r: %d frames in %.2f s", step.name, len(results), stats[-1]["seconds"])
        return done

    def _write_records(self, out, runs, settings, stats):
        if self.output.history and runs:
            write_history_csv(runs if len(self.steps) > 1 else runs[0], out / "history.csv")
        extra = {"case": str(self.path), "title": self.title, "parameters": self.parameters, "steps": stats}
        write_run_json(out / "run.json", self.model, runs, settings, extra)


class _NoBar:
    n = 0

    def update(self, k=1):
        self.n += k

    def close(self):
        pass


def _ticker(bar):
    """on_frame(results, k) of a FrameStreamer: one tick per frame."""
    return lambda results, k: bar.update(1)


def _catch_up(bar):
    """on_frame(results) without output: advance the bar to the number of frames."""
    return lambda results: bar.update(len(results) - bar.n)


def _progress_bar(step, progress):
    if not progress:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=step.expected_frames(), desc=f"{step.name} ({step.type})", unit="frame", leave=True)


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
    table.done()
    return out


def load_case(path):
    """Read the TOML case file ``path`` into a validated :class:`Case`.

    Raises InputError naming the file and every problem (key path and value), or
    ModelError when the model assembled from valid tables is inconsistent.
    """
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
    ctx = Context(where)
    doc = Table(doc_data, "", ctx, TOP_LEVEL_KEYS)
    title = ""
    with ctx.guard():
        title = doc.take("title", "string", default="")
    with ctx.guard():
        read_parameters(doc.sub("parameters"), ctx)
    mesh, materials, sections = None, {}, {}
    with ctx.guard():
        mesh = build_mesh(doc.sub("mesh", required=True), ctx, path.parent)
    with ctx.guard():
        materials = read_materials(doc.sub("materials"), ctx)
    with ctx.guard():
        sections = read_sections(doc.sub("sections"), ctx)
    steps, output = [], OutputSettings()
    with ctx.guard():
        steps = read_steps(doc, ctx)
    with ctx.guard():
        output = _read_output(doc.sub("output", OUTPUT_KEYS), ctx)
    model = None
    if mesh is not None:
        with ctx.guard():
            model = ModelBuilder(doc, ctx, mesh, materials, sections).build(doc.sub("model"))
    doc.done()
    ctx.raise_if_problems()
    problems = model.problems()
    if problems:
        raise ModelError(problems, f"{where}: model {model.name!r}")
    return Case(path, model, steps, output, dict(ctx.parameters), title)


def run_case(path, out_dir, progress=True):
    """``load_case(path).run(out_dir, progress)``."""
    return load_case(path).run(out_dir, progress)


__all__ = ["Case", "OutputSettings", "load_case", "run_case"]
