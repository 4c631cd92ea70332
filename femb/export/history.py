"""Time histories as CSV and the run record as JSON."""
import csv
import dataclasses
import io
import json
import math
import os
import platform
from pathlib import Path

import numpy as np

from femb.export.atomic import atomic_write_text


def _as_list(results):
    return list(results) if isinstance(results, (list, tuple)) else [results]


def write_history_csv(results, path):
    """Write the history of ``results`` (a Results, or a list of them: one per step) to a
    CSV file with columns ``time`` and every history key (with a list, a leading ``step``
    column numbers the Results from 0). Missing values are empty cells."""
    runs = _as_list(results)
    keys = []
    for res in runs:
        keys += [k for k in res.history if k not in keys]
    multi = len(runs) > 1
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow((["step"] if multi else []) + ["time"] + keys)
    for s, res in enumerate(runs):
        for i, t in enumerate(res.times):
            row = [s] if multi else []
            row.append(repr(float(t)))
            for k in keys:
                col = res.history.get(k)
                val = col[i] if col is not None and i < len(col) else None
                row.append("" if val is None or (isinstance(val, float) and math.isnan(val)) else repr(float(val)))
            writer.writerow(row)
    atomic_write_text(path, buffer.getvalue())
    return Path(path)


def jsonable(value):
    """``value`` as plain JSON data: dataclasses and dicts recursively, numpy scalars and
    arrays as numbers and lists, non-finite floats as the strings "inf", "-inf", "nan",
    callables and other objects by their repr."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else str(v)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return repr(value)


def run_record(model, results, settings=None, extra=None):
    """The run record as a dict: femb version, platform, model summary, settings and
    per-Results statistics (kind, frames, first/last time, solver info)."""
    import femb

    runs = [] if results is None else _as_list(results)
    return jsonable({
        "femb_version": femb.__version__,
        "python": platform.python_version(),
        "model": model.summary() if model is not None else None,
        "settings": settings,
        "results": [
            {
                "kind": res.kind,
                "frames": len(res),
                "first_time": res.times[0] if len(res) else None,
                "last_time": res.times[-1] if len(res) else None,
                "history_keys": list(res.history),
                "info": res.info,
            }
            for res in runs
        ],
        **(extra or {}),
    })


def write_run_json(path, model, results, settings=None, extra=None):
    """Write :func:`run_record` to ``path`` as indented JSON (atomically)."""
    text = json.dumps(run_record(model, results, settings, extra), indent=2, allow_nan=False)
    atomic_write_text(path, text + "\n")
    return Path(path)
