"""Parameter sweeps: one run of a case file per combination of ``[parameters]`` values.

``sweep(case, {"EI": [1, 2], "L": [1.0]}, out_dir)`` runs the cartesian product of the
values, each combination overriding the case's parameters and writing its usual outputs
into ``out_dir/<NAME=value,...>/``; ``out_dir/sweep.csv`` gets one row per run (the
parameter values, status, seconds, error, and the last value of every history column of
the run's final step). Runs go serially, on a local process pool (``jobs``) or on a Dask
scheduler (femb.batch.map_tasks); a failing run is recorded, never stops
the others.
"""
import csv
import io
import itertools
import math
import time
from pathlib import Path

from femb.batch import connect_scheduler, map_tasks
from femb.core.errors import InputError

FIXED_COLUMNS = ("status", "seconds", "error")


def parse_param(text):
    """``"NAME=v1,v2,..."`` -> (NAME, [numbers]); InputError when malformed."""
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise InputError(f"--param {text!r}: expected NAME=v1,v2,...")
    parsed = []
    for item in values.split(","):
        item = item.strip()
        try:
            value = int(item)
        except ValueError:
            try:
                value = float(item)
            except ValueError:
                raise InputError(f"--param {name}: value {item!r} is not a number") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError(f"--param {name}: value {item!r} is not finite")
        parsed.append(value)
    return name, parsed


def combinations(values):
    """The cartesian product of {name: [values]} as a list of {name: value} (first name slowest)."""
    names = list(values)
    return [dict(zip(names, combo)) for combo in itertools.product(*(values[n] for n in names))]


def folder_name(combo):
    """``NAME=value,...`` (numbers by repr: 2, 0.5, 1e-05)."""
    return ",".join(f"{name}={value!r}" for name, value in combo.items())


def run_one(case_path, overrides, smoke, out_dir):
    """Run one combination (in a worker); returns {status, seconds, error, last}.
    Never raises: bad values (InputError), analysis failures and bugs are recorded."""
    from femb.case.case import load_case

    start = time.perf_counter()
    outcome = {"status": "completed", "error": "", "last": {}}
    try:
        case = load_case(case_path, smoke=smoke, parameters=overrides)
        results = case.run(out_dir, progress=False)
        final = results[-1]
        last = {"time": float(final.times[-1])} if final.times else {}
        for key, col in final.history.items():
            if len(col):
                last[key] = float(col[-1])
        outcome["last"] = last
    except Exception as exc:  # noqa: BLE001 - every failure is recorded, the sweep goes on
        outcome["status"] = "failed"
        outcome["error"] = f"{type(exc).__name__}: {exc}"
    outcome["seconds"] = time.perf_counter() - start
    return outcome


def _crashed(i, exc):
    return {"status": "failed", "error": f"worker failure: {type(exc).__name__}: {exc}", "last": {}, "seconds": 0.0}


def sweep(case_path, values, out_dir, jobs=1, scheduler=None, smoke=None):
    """Run ``case_path`` for every combination of ``values`` ({name: [numbers]}).

    Raises InputError (before running anything) when the case does not load or a name is
    not one of its ``[parameters]``. Returns a list of (combo, outcome) in product order
    and writes ``out_dir/sweep.csv``.
    """
    from femb.case.case import load_case

    case_path = Path(case_path).resolve()
    base = load_case(case_path, smoke=smoke)
    unknown = [name for name in values if name not in base.parameters]
    if unknown:
        known = ", ".join(base.parameters) or "none"
        raise InputError([f"unknown parameter {name!r} (the case's parameters: {known})" for name in unknown], str(case_path))
    empty = [name for name, vals in values.items() if not vals]
    if empty:
        raise InputError(f"no values for parameter(s) {', '.join(empty)}")
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    combos = combinations(values)
    tasks = [(str(case_path), combo, base.smoke, str(out / folder_name(combo))) for combo in combos]
    client = connect_scheduler(scheduler) if isinstance(scheduler, str) else None
    try:
        outcomes = map_tasks(run_one, tasks, jobs, client if client is not None else scheduler, _crashed, key="femb-sweep")
    finally:
        if client is not None:
            client.close()
    write_sweep_csv(out / "sweep.csv", list(values), combos, outcomes)
    return list(zip(combos, outcomes))


def write_sweep_csv(path, names, combos, outcomes):
    """One row per run: parameter values, status, seconds, error, then the history columns
    (union over the runs in order of appearance; empty where a run has none)."""
    keys = []
    for outcome in outcomes:
        keys += [k for k in outcome["last"] if k not in keys]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*names, *FIXED_COLUMNS, *keys])
    for combo, outcome in zip(combos, outcomes):
        last = outcome["last"]
        writer.writerow([*(repr(combo[n]) for n in names), outcome["status"], f"{outcome['seconds']:.3f}", outcome["error"],
                         *(repr(last[k]) if k in last else "" for k in keys)])
    Path(path).write_text(buffer.getvalue(), encoding="utf-8")
    return Path(path)


__all__ = ["sweep", "parse_param", "combinations", "folder_name", "run_one", "write_sweep_csv"]
