"""Checkpoints of a case run: restart a killed dynamic step where it stopped.

Two files in the output folder:

``checkpoint.npz`` (rewritten atomically: temporary file + ``os.replace``)
    ``meta``: JSON text (UTF-8 bytes) with the format version, the case fingerprint, the step index and
    name, the number of recorded frames of the step so far, the step's history keys, the
    energy accumulators and counters of the run, the ``.pvd`` entries written so far, and
    the records (times, history, info) and statistics of the steps finished before;
    arrays ``u``, ``v`` (and ``a``, ``g``, ``reaction``, ``fd`` for the α schemes): the
    complete time-integration state at the last recorded frame.
``checkpoint_frames.bin``
    every recorded frame of the running step, appended as raw float64 records
    ``[t, u (n_var), v (n_var), history values, per-frame arrays (flattened, e.g. joint
    multipliers)]``; ``meta`` says how many records are valid (a record half-written when
    the run was killed is ignored) and the history keys and array shapes.

A checkpoint is written after the frames of a segment are on disk, so the frames listed
in ``meta`` always exist; a restart truncates the collection and the frame records to
what the checkpoint lists, and recomputes the rest.
"""
import hashlib
import json
import logging
import os
from pathlib import Path

import numpy as np

import femb
from femb.core.errors import InputError
from femb.export import jsonable
from femb.export.atomic import atomic_write
from femb.results import Results

log = logging.getLogger(__name__)

FORMAT = 1
CHECKPOINT = "checkpoint.npz"
FRAMES = "checkpoint_frames.bin"


def case_fingerprint(path, smoke=False, parameters=None):
    """SHA-256 of the case file's bytes, the smoke flag and the parameter values
    (``parameters``: {name: number}, which ``load_case(parameters=...)`` and sweeps
    override): a checkpoint only continues the same case with the same values (a changed
    mesh file is caught by the size check of ``Checkpoint.load``)."""
    h = hashlib.sha256(Path(path).read_bytes())
    h.update(b"smoke" if smoke else b"full")
    if parameters:
        h.update(json.dumps(sorted((str(k), repr(float(v))) for k, v in parameters.items())).encode("utf-8"))
    return h.hexdigest()


class Checkpoint:
    """The checkpoint files of one output folder (see the module docstring).

    Parameters
    ----------
    out_dir : Path
    fingerprint : str, from :func:`case_fingerprint`
    """

    def __init__(self, out_dir, fingerprint):
        self.out_dir = Path(out_dir)
        self.path = self.out_dir / CHECKPOINT
        self.frames_path = self.out_dir / FRAMES
        self.fingerprint = fingerprint
        self.writer = None  # PVDWriter whose entries are recorded
        self.completed = []  # records of finished steps (dicts)
        self.stats = []  # per-step statistics of run.json

    def clear(self):
        """Remove the files of an earlier run (a fresh run must not be restarted from them)."""
        for p in (self.path, self.frames_path):
            if p.exists():
                p.unlink()

    # ------------------------------------------------------------------ writing
    def step(self, index, name, resume=None):
        """A :class:`StepCheckpoint` for step ``index`` (``resume``: its restart data)."""
        return StepCheckpoint(self, index, name, resume)

    def complete_step(self, results, stats, keep_state=False):
        """Remember a finished step (for the records of a later restart; ``keep_state``: with
        its end state, for a later step that starts from it)."""
        self.completed.append(step_record(results, keep_state))
        self.stats = list(stats)

    def write(self, meta, arrays):
        entries = [] if self.writer is None else [[float(t), g, f] for t, g, f in self.writer.entries]
        meta = dict(jsonable(meta), format=FORMAT, femb_version=femb.__version__, fingerprint=self.fingerprint,
                    pvd_entries=entries, completed=self.completed, stats=jsonable(self.stats))
        text = json.dumps(meta).encode("utf-8")
        arrays = {k: np.asarray(v, dtype=np.float64) for k, v in arrays.items() if v is not None}
        payload = {"meta": np.frombuffer(text, dtype=np.uint8), **arrays}
        atomic_write(self.path, lambda fh: np.savez(fh, **payload), binary=True)

    # ------------------------------------------------------------------ reading
    def load(self, n_var):
        """The :class:`Resume` data of the last checkpoint; InputError when there is none,
        it belongs to another case, or it does not fit the model (``n_var`` variables)."""
        where = str(self.path)
        if not self.path.exists():
            raise InputError(f"no checkpoint to restart from (run without --restart first; only dynamic steps write checkpoints)", where)
        try:
            with np.load(self.path, allow_pickle=False) as data:
                meta = json.loads(data["meta"].tobytes().decode("utf-8"))
                arrays = {k: np.array(data[k]) for k in data.files if k != "meta"}
        except Exception as exc:  # zip, JSON and key errors alike
            raise InputError(f"unreadable checkpoint ({type(exc).__name__}: {exc})", where) from None
        if meta.get("format") != FORMAT:
            raise InputError(f"checkpoint format {meta.get('format')!r}, this femb reads {FORMAT}", where)
        if meta.get("fingerprint") != self.fingerprint:
            raise InputError("the checkpoint was written for another case file (or with/without --smoke) or other parameter "
                             "values; run without --restart", where)
        if meta.get("femb_version") != femb.__version__:
            log.warning("checkpoint written by femb %s, restarting with %s: bit-for-bit continuation is not guaranteed",
                        meta.get("femb_version"), femb.__version__)
        if arrays["u"].shape != (n_var,):
            raise InputError(f"checkpoint state has {arrays['u'].size} variables, the model {n_var}", where)
        n, width = int(meta["frames"]), record_width(n_var, meta["history_keys"], meta.get("array_shapes", {}))
        raw = np.fromfile(self.frames_path, dtype=np.float64) if self.frames_path.exists() else np.zeros(0)
        if raw.size < n * width:
            raise InputError(f"{FRAMES} holds {raw.size // width} complete frames, the checkpoint lists {n}", where)
        self.completed = meta["completed"]
        self.stats = meta["stats"]
        return Resume(meta, arrays, raw[: n * width].reshape(n, width), n_var)


class StepCheckpoint:
    """Checkpoint writer of one running step; ``resume`` is its restart data or None."""

    def __init__(self, owner, index, name, resume=None):
        self.owner = owner
        self.index = index
        self.name = name
        self.resume = resume
        self._fh = None  # checkpoint_frames.bin, opened at the first save

    def _open(self):
        keep = 0 if self.resume is None else self.resume.frames.size * 8  # bytes of the valid records
        path = self.owner.frames_path
        self._fh = open(path, "r+b" if path.exists() else "wb")  # noqa: SIM115 (kept open while the step runs)
        self._fh.truncate(keep)
        self._fh.seek(keep)

    def save(self, frames, meta, state):
        """Append the new frame records ``frames`` (k, width), then rewrite checkpoint.npz
        with ``meta`` (the step's bookkeeping; ``frames`` = records valid so far) and the
        ``state`` arrays. The records are flushed to the operating system (safe against a
        killed process) and checkpoint.npz is synced to disk."""
        if self._fh is None:
            self._open()
        if len(frames):
            self._fh.write(np.ascontiguousarray(frames, dtype=np.float64).tobytes())
            self._fh.flush()
        self.owner.write(dict(meta, step_index=self.index, step_name=self.name), state)

    def close(self):
        """Sync and close the frame records (when the step ends)."""
        if self._fh is not None and not self._fh.closed:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()

    def __del__(self):
        if self._fh is not None:
            self._fh.close()


class Resume:
    """Restart data: ``meta`` (dict), the state ``arrays`` and the frame records."""

    def __init__(self, meta, arrays, frames, n_var):
        self.meta = meta
        self.arrays = arrays
        self.frames = frames
        self.n_var = n_var

    @property
    def step_index(self):
        return int(self.meta["step_index"])

    @property
    def n_frames(self):
        return int(self.meta["frames"])

    def restore_results(self, results):
        """Record the checkpointed frames into the empty Results ``results``."""
        n = self.n_var
        keys = self.meta["history_keys"]
        shapes = self.meta.get("array_shapes", {})
        h0 = 1 + 2 * n
        a0 = h0 + len(keys)
        for row in self.frames:
            arrays, k = {}, a0
            for name, shape in shapes.items():
                size = int(np.prod(shape))
                arrays[name] = row[k:k + size].reshape(shape)
                k += size
            results.record(row[0], row[1:1 + n], row[1 + n:h0], arrays=arrays or None, **dict(zip(keys, row[h0:a0])))
        return results

    def completed_results(self, model, table=None):
        """Results of the steps finished before the checkpoint: times, history and info
        (their states are not stored; their frames are in the ``.vtu`` files)."""
        out = []
        for rec in self.meta["completed"]:
            res = Results(table, rec["kind"], model)
            res.times = [float(t) for t in rec["times"]]
            res.history = {k: [float(x) for x in v] for k, v in rec["history"].items()}
            res.info = dict(rec["info"], restored_from_checkpoint=True)
            if "end_state" in rec:  # (u, v or None) for femb.case.initial_state.end_state
                u, v = rec["end_state"]["u"], rec["end_state"]["v"]
                res.end_state = (np.array(u, dtype=np.float64), None if v is None else np.array(v, dtype=np.float64))
            out.append(res)
        return out


def step_record(results, keep_state=False):
    """JSON-ready record of a finished step's Results (kind, times, history, info; with
    ``keep_state`` also ``end_state`` {"u": [...], "v": [...] or None}, the last frame a
    later step starts from; JSON keeps floats exactly)."""
    rec = {"kind": results.kind, "times": [float(t) for t in results.times],
           "history": {k: [float(x) for x in v] for k, v in results.history.items()}, "info": jsonable(results.info)}
    if keep_state:
        from femb.case.initial_state import end_state

        u, v = end_state(results, "")
        rec["end_state"] = {"u": [float(x) for x in u], "v": None if v is None else [float(x) for x in v]}
    return rec


def record_width(n_var, keys, array_shapes=None):
    """Length of one frame record [t, u, v, history, arrays]."""
    return 1 + 2 * n_var + len(keys) + sum(int(np.prod(s)) for s in (array_shapes or {}).values())


def array_shapes(results):
    """{name: shape} of the per-frame arrays of ``results`` (one array per frame, fixed shape)."""
    out = {}
    for name, values in results.arrays.items():
        if len(values) != len(results) or len({np.shape(v) for v in values}) != 1:
            raise ValueError(f"per-frame array {name!r} cannot be checkpointed: not one array of fixed shape per frame")
        out[name] = list(np.shape(values[0]))
    return out


def frame_rows(results, start, keys, shapes=None):
    """(k, width) float64 records ``[t, u, v, history, arrays]`` of frames ``start:`` of
    ``results``."""
    rows = []
    for i in range(start, len(results)):
        parts = [[results.times[i]], results.states[i], results.velocities[i], [results.history[k][i] for k in keys]]
        parts += [np.ravel(results.arrays[name][i]) for name in (shapes or {})]
        rows.append(np.concatenate(parts))
    return np.array(rows, dtype=np.float64).reshape(len(rows), -1)
