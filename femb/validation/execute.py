"""Running one case in the current process (the unit of work of every executor).

``execute_case`` never raises for a failing case: the exception text and traceback come
back in the outcome so one broken case cannot stop the others. Outcomes hold only plain
Python data (floats, lists, dicts, str) so they pickle across processes and Dask workers.
"""
import logging
import time
import traceback
from pathlib import Path

import numpy as np

from femb.validation.cases import load_case_module

log = logging.getLogger(__name__)


def to_plain(obj):
    """Recursively convert numpy arrays/scalars, tuples and paths to JSON-friendly data."""
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_plain(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, Path):
        return str(obj)
    return obj


def execute_case(spec, quick, out_dir):
    """Run ``spec``'s ``case.py`` and return its raw outcome.

    Returns {"name", "metrics", "series", "seconds", "error", "traceback", "out_dir"};
    ``error`` is None on success, else "ExceptionType: message".
    """
    out = Path(out_dir)
    outcome = {"name": spec.name, "metrics": {}, "series": {}, "seconds": 0.0, "error": None, "traceback": None, "out_dir": str(out)}
    start = time.perf_counter()
    try:
        out.mkdir(parents=True, exist_ok=True)
        module = load_case_module(spec)
        log.info("running case %s (quick=%s) in %s", spec.name, quick, out)
        returned = module.run(quick=bool(quick), out_dir=out)
        if not isinstance(returned, dict) or not isinstance(returned.get("metrics"), dict):
            raise TypeError("run() must return a dict with a 'metrics' dict")
        outcome["metrics"] = to_plain(returned["metrics"])
        outcome["series"] = to_plain(returned.get("series") or {})
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a case must never stop the run
        outcome["error"] = f"{type(exc).__name__}: {exc}"
        outcome["traceback"] = traceback.format_exc()
        log.info("case %s raised %s", spec.name, outcome["error"])
    outcome["seconds"] = time.perf_counter() - start
    return outcome
