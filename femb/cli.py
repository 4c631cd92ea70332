"""The ``femb`` command line.

    femb run CASE.toml --out DIR      run a case file (progress bar, results in DIR)
        --restart                     continue a killed run from DIR/checkpoint.npz
        --smoke                       shortened steps (also: FEMB_SMOKE=1), a quick check
        --max-memory-gb / --max-output-gb GB
                                      size limits of the run (estimated before it starts)
    femb sweep CASE.toml --param NAME=v1,v2 [--param ...] --out DIR
                                      run a case per combination of parameter values
        --jobs N / --scheduler ADDR   local process pool / Dask cluster; DIR/sweep.csv
    femb info MESH                    sets, cell types, counts and bounding box of a mesh file
    femb compile [--kind KIND ...]    fill the kernel cache ahead of a first run (femb.warmup)
    femb render DIR --frame N --png FILE
                                      picture of one frame of a result folder
        --scalars NAME --warp W --length-unit m --title TEXT
    femb --version

Exit codes: 0 success; 1 analysis failure (no convergence, singular system, rendering
impossible: the diagnostics are printed and results computed so far stay on disk);
2 bad input (unknown keys, sets or values, unreadable files: the message names the
culprit, no traceback); 130 interrupted by Ctrl-C (history.csv and run.json are written,
a dynamic step can be resumed with --restart).
"""
import argparse
import logging
import sys
from pathlib import Path

import femb
from femb.core.errors import FembError, InputError

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130


def _parser():
    parser = argparse.ArgumentParser(prog="femb", description="femb: finite-element flexible multibody solver")
    parser.add_argument("--version", action="version", version=f"femb {femb.__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output (-vv for debug)")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run a TOML case file")
    run.add_argument("case", help="case file (.toml)")
    run.add_argument("--out", "-o", help="output folder (default: <case name>_out)")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.add_argument("--restart", action="store_true", help="continue from the checkpoint in the output folder (dynamic steps)")
    run.add_argument("--smoke", action="store_true",
                     help="smoke run: every step shortened to a few increments or recorded frames (also FEMB_SMOKE=1)")
    run.add_argument("--max-memory-gb", type=float, metavar="GB",
                     help="refuse a run estimated to need more memory (default: [output] max_memory_gb, else 8)")
    run.add_argument("--max-output-gb", type=float, metavar="GB",
                     help="refuse a run estimated to write more (default: [output] max_output_gb, else 10)")
    run.set_defaults(func=cmd_run)

    sweep = sub.add_parser("sweep", help="run a case for every combination of parameter values")
    sweep.add_argument("case", help="case file (.toml)")
    sweep.add_argument("--param", "-p", action="append", required=True, metavar="NAME=V1,V2,...",
                       help="values of one [parameters] entry (repeat for a cartesian product)")
    sweep.add_argument("--out", "-o", required=True, help="output folder: one subfolder per run, and sweep.csv")
    sweep.add_argument("--jobs", "-j", type=int, default=1, help="local worker processes (default 1: serial; 0: one per CPU)")
    sweep.add_argument("--scheduler", help="Dask scheduler address (tcp://host:8786) instead of local processes")
    sweep.add_argument("--smoke", action="store_true", help="smoke runs: every step shortened (also FEMB_SMOKE=1)")
    sweep.set_defaults(func=cmd_sweep)

    info = sub.add_parser("info", help="describe a mesh file")
    info.add_argument("mesh", help="mesh file (.msh, .inp, .bdf, .med, .vtu ...)")
    info.set_defaults(func=cmd_info)

    compile_ = sub.add_parser("compile", help="compile the kernels of first runs into the kernel cache ahead of time")
    compile_.add_argument("--kind", action="append", choices=sorted(_warmup_kinds()),
                          help="kind of run to prepare (repeat; default: all)")
    compile_.set_defaults(func=cmd_compile)

    render = sub.add_parser("render", help="draw one frame of a result folder to PNG")
    render.add_argument("source", help="result folder, .pvd or .vtu")
    render.add_argument("--frame", type=int, default=-1, help="frame index (negative: from the end; default: last)")
    render.add_argument("--png", required=True, help="output PNG file")
    render.add_argument("--scalars", default="displacement", help="point or cell array to colour by (an unknown name lists the arrays)")
    render.add_argument("--warp", type=float, default=1.0,
                        help="scale of the deformation relative to each part's rigid motion (default 1: the computed shape)")
    render.add_argument("--length-unit", default="", metavar="UNIT", help="unit of the coordinates for the axis titles, e.g. m")
    render.add_argument("--title", help="title of the picture (default: frame, time, what the colour shows, the warp)")
    render.add_argument("--backend", choices=("auto", "pyvista", "matplotlib"), default="auto")
    render.set_defaults(func=cmd_render)

    from femb.validation.cli import add_parser as add_validate_parser

    add_validate_parser(sub)
    return parser


def cmd_run(args):
    """``femb run``: load the case, say when kernels will be compiled, run every step."""
    from femb.case import load_case

    for flag, value in (("--max-memory-gb", args.max_memory_gb), ("--max-output-gb", args.max_output_gb)):
        if value is not None and not value > 0:
            raise InputError(f"{flag} must be > 0, got {value:g}")
    limits = {"memory_gb": args.max_memory_gb, "output_gb": args.max_output_gb}
    case = load_case(args.case, smoke=True if args.smoke else None, limits=limits)
    out = Path(args.out) if args.out else Path(f"{Path(args.case).stem}_out")
    mode = " [smoke run]" if case.smoke else ""
    print(f"femb {femb.__version__}: {case.title or case.model.name} ({case.model.mesh.n_nodes} nodes, {len(case.steps)} step(s)) -> {out}{mode}")
    args.out_dir = out
    if args.restart:
        print(f"  restarting from {out / 'checkpoint.npz'}")
    kind = run_kind(case)
    announce_compilation(kind)
    results = case.run(out, progress=not args.no_progress, restart=args.restart)
    _record_kernels(kind)
    for step, res in zip(case.steps[len(case.steps) - len(results):], results):
        print(f"  {step.name} ({step.type}): {len(res)} frames, last time/load factor {res.times[-1]:.6g}")
    print(f"  written: {', '.join(str(p) for p in written_files(case, out))}")
    return EXIT_OK


# CPU s of a first run's compilation when no run of the same kind was recorded (measured
# on an unloaded machine, benchmarks/README.md: a first planar dynamic run ~9 s; a first
# 3-D run 20-23 s with beam3d alone, ~47 s with springs and joints as the spatial arm)
DEFAULT_COMPILE_SECONDS = {2: 10.0, 3: 30.0}


def _setting(settings, name):
    if isinstance(settings, dict):
        return settings.get(name)
    return getattr(settings, name, None)


def run_kind(case) -> tuple[str, list[str], float]:
    """What decides which kernels a case run compiles: (key, element source modules,
    default compile CPU s). The key names the dimension, the element types, the joint and
    load types and the steps (type, scheme, mass kind) of the case."""
    from femb.elements import _REGISTRY

    model = case.model
    elements = sorted({part.element for part in model.parts.values()})
    steps = sorted({f"{s.type}:{_setting(s.settings, 'scheme') or ''}:{_setting(_setting(s.settings, 'settings'), 'mass') or ''}"
                    for s in case.steps})
    key = "|".join([f"{model.dim}d", ",".join(elements), ",".join(sorted({type(j).__name__ for j in model.joints})),
                    ",".join(sorted({type(ld).__name__ for ld in model.loads})), ",".join(steps)])
    modules = sorted({_REGISTRY[e] for e in elements if e in _REGISTRY} | ({"superelement"} if model.superelements else set()))
    return key, modules, DEFAULT_COMPILE_SECONDS.get(model.dim, 30.0)


def announce_compilation(kind: tuple[str, list[str], float], stream=None) -> bool:
    """Print "compiling kernels, first run only (about N s)" once on ``stream`` (default
    stderr) when the run of this kind will compile kernels (femb.core.jit.compile_estimate:
    the kernel cache lacks what the same kind of run used before). Returns whether it did."""
    from femb.core.jit import COMPILING_MESSAGE, compile_estimate

    key, modules, default = kind
    seconds = compile_estimate(key, modules, default)
    if seconds is None:
        return False
    stream = sys.stderr if stream is None else stream
    print(f"{COMPILING_MESSAGE} (about {seconds:.0f} s)", file=stream, flush=True)
    return True


def _record_kernels(kind):
    from femb.core.jit import record_run

    record_run(kind[0])


def written_files(case, out):
    """The result files a finished case run left in ``out`` (those its settings ask for)."""
    names = ([case.output.name + ".pvd"] if case.output.vtk else []) + (["history.csv"] if case.output.history else []) + ["run.json"]
    if case.output.vtk and case.output.surfaces is not None and (out / f"{case.output.name}_surface.pvd").exists():
        names.insert(1, f"{case.output.name}_surface.pvd")
    return [out / n for n in names if (out / n).exists()]


def cmd_sweep(args):
    """``femb sweep``: run the case for every combination of the ``--param`` values."""
    from femb.case.sweep import parse_param, sweep

    values = {}
    for text in args.param:
        name, vals = parse_param(text)
        if name in values:
            raise InputError(f"--param {name} given twice")
        values[name] = vals
    where = f"Dask scheduler {args.scheduler}" if args.scheduler else (f"{args.jobs} local processes" if args.jobs != 1 else "serially")
    n = 1
    for vals in values.values():
        n *= len(vals)
    print(f"femb {femb.__version__}: sweep of {args.case} over {', '.join(values)} ({n} runs, {where}) -> {args.out}")
    runs = sweep(args.case, values, args.out, jobs=args.jobs, scheduler=args.scheduler, smoke=True if args.smoke else None)
    failed = 0
    for combo, outcome in runs:
        label = ", ".join(f"{k}={v!r}" for k, v in combo.items())
        note = f": {outcome['error']}" if outcome["status"] != "completed" else ""
        print(f"  {label}: {outcome['status']} ({outcome['seconds']:.2f} s){note}")
        failed += outcome["status"] != "completed"
    print(f"  {len(runs) - failed} of {len(runs)} runs completed; written: {Path(args.out) / 'sweep.csv'}")
    return EXIT_FAILED if failed else EXIT_OK


def cmd_info(args):
    """``femb info``: print the sets, cell types, counts and bounding box of a mesh file."""
    from femb.mesh.io import read_mesh

    mesh = read_mesh(args.mesh)
    lo, hi = mesh.bounding_box()
    print(f"{args.mesh}: {mesh.dim}-D, {mesh.n_nodes} nodes")
    print(f"  bounding box: min {_fmt(lo)}  max {_fmt(hi)}")
    print(f"  cell sets ({len(mesh.cells)}):")
    for name, block in mesh.cells.items():
        print(f"    {name:24s} {block.cell_type:10s} {block.connectivity.shape[0]:8d} cells")
    print(f"  node sets ({len(mesh.node_sets)}):")
    for name, nodes in mesh.node_sets.items():
        shown = ", ".join(str(n) for n in nodes[:8]) + (" ..." if nodes.size > 8 else "")
        print(f"    {name:24s} {nodes.size:8d} nodes  [{shown}]")
    return EXIT_OK


def _warmup_kinds():
    from femb.warmup import KINDS

    return KINDS


def cmd_compile(args):
    """``femb compile``: run the small warm-up models (femb.warmup) so that the kernels of
    first runs of those kinds are compiled into the kernel cache now."""
    from femb.warmup import KINDS, cache_folder, warm_up

    print(f"femb {femb.__version__}: compiling kernels into {cache_folder()}", flush=True)

    def report(kind, compile_s, cpu_s):
        what = f"compiled in {compile_s:.1f} CPU s" if compile_s > 0 else "already in the cache"
        print(f"  {kind} ({KINDS[kind][0]}): {what} ({cpu_s:.1f} CPU s in all)", flush=True)

    warm_up(args.kind, report)
    return EXIT_OK


def cmd_render(args):
    """``femb render``: draw one frame of a result folder to a PNG file."""
    from femb.export import render_png

    backend = render_png(args.source, args.frame, args.png, scalars=args.scalars, warp=args.warp, backend=args.backend,
                         title=args.title, length_unit=args.length_unit or None)
    note = " (pyvista could not render off-screen; matplotlib fallback)" if backend == "matplotlib" and args.backend == "auto" else ""
    print(f"wrote {args.png} with {backend}{note}")
    return EXIT_OK


def _resume_hint(args, exc):
    """The lines after "femb: interrupted": where the results are and how to continue."""
    from femb.case.case import RunInterrupted

    if not isinstance(exc, RunInterrupted):
        return ""
    text = f" in step {exc.step!r}; history.csv and run.json so far are in {exc.out_dir}"
    if args.command != "run":  # a sweep's runs carry parameter overrides: rerun the sweep
        return text
    if exc.restartable:
        return text + f"\nfemb: resume with: femb run {args.case} --out {exc.out_dir} --restart"
    return text + "\nfemb: this step cannot be resumed (only dynamic steps write checkpoints); run the case again"


def _fmt(v):
    return "(" + ", ".join(f"{x:.6g}" for x in v) + ")"


def _toml_error_types():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib
    return (tomllib.TOMLDecodeError,)


def main(argv=None):
    """Entry point of the ``femb`` console script; returns the exit code."""
    args = _parser().parse_args(argv)
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(args.verbose, 2)]
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    try:
        return args.func(args)
    except KeyboardInterrupt as exc:  # Ctrl-C: what was computed is on disk (RunInterrupted says where)
        print(f"\nfemb: interrupted{_resume_hint(args, exc)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except InputError as exc:  # ModelError included
        print(f"femb: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (FileNotFoundError, FileExistsError, IsADirectoryError, NotADirectoryError, PermissionError) as exc:
        print(f"femb: error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except _toml_error_types() as exc:
        print(f"femb: error: invalid TOML: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except FembError as exc:  # ConvergenceError, SingularSystemError, RenderError ...
        print(f"femb: analysis failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        out = getattr(args, "out_dir", None)
        if out is not None:
            print(f"femb: results computed before the failure are in {out} (run.json records the failure)", file=sys.stderr)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
