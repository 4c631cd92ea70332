"""Running a selection of cases serially, on a local process pool, or on a Dask cluster.

Every case runs in its own output folder ``out_dir/<name>/``; results come back in the
order of the selection whatever the order of completion.
"""
import concurrent.futures
import logging
import multiprocessing
import os
import tempfile
import uuid
from pathlib import Path

from femb.core.errors import InputError
from femb.validation.cases import discover, select
from femb.validation.compare import evaluate
from femb.validation.execute import execute_case

log = logging.getLogger(__name__)


def _crashed(spec, out_dir, exc):
    """Outcome of a case whose worker died or whose future failed."""
    return {
        "name": spec.name, "metrics": {}, "series": {}, "seconds": 0.0, "out_dir": str(out_dir),
        "error": f"worker failure: {type(exc).__name__}: {exc}", "traceback": None,
    }


def _run_serial(specs, quick, dirs):
    return [execute_case(spec, quick, d) for spec, d in zip(specs, dirs)]


def _run_pool(specs, quick, dirs, jobs):
    """A local ProcessPoolExecutor (spawn start method: no fork of a threaded parent)."""
    outcomes = [None] * len(specs)
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        futures = {pool.submit(execute_case, spec, quick, str(d)): i for i, (spec, d) in enumerate(zip(specs, dirs))}
        for fut in concurrent.futures.as_completed(futures):
            i = futures[fut]
            try:
                outcomes[i] = fut.result()
            except Exception as exc:  # noqa: BLE001 - BrokenProcessPool, pickling errors ...
                outcomes[i] = _crashed(specs[i], dirs[i], exc)
    return outcomes


def _run_dask(specs, quick, dirs, scheduler):
    """Submit every case to a Dask cluster.

    ``scheduler`` is an address ("tcp://host:8786") or an existing ``distributed.Client``.
    Workers need femb installed; the case source travels with the spec, and each worker
    writes its case outputs to ``dirs[i]`` on its own file system.
    """
    try:
        from distributed import Client
    except ImportError as exc:  # optional dependency
        raise InputError("running on a Dask scheduler needs dask[distributed]: pip install 'femb[dist]'") from exc
    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    try:
        futures = [
            client.submit(execute_case, spec, quick, str(d), key=f"femb-validate-{spec.name}-{uuid.uuid4().hex[:10]}", pure=False)
            for spec, d in zip(specs, dirs)
        ]
        outcomes = []
        for spec, d, fut in zip(specs, dirs, futures):
            try:
                outcomes.append(fut.result())
            except Exception as exc:  # noqa: BLE001 - lost worker, cancelled future ...
                outcomes.append(_crashed(spec, d, exc))
        return outcomes
    finally:
        if own:
            client.close()


def run_cases(names=None, quick=False, jobs=1, scheduler=None, out_dir=None, root=None, specs=None):
    """Run validation cases and compare their metrics with the references.

    Parameters
    ----------
    names : sequence of str, optional
        Cases to run (default: all; with ``quick`` all cases flagged ``"quick": true``).
    quick : bool
        Ask each case for its quick variant (coarser meshes, shorter paths).
    jobs : int
        > 1: run on a local process pool of that many workers; 0: one worker per CPU.
    scheduler : str or distributed.Client, optional
        Run on this Dask cluster instead (takes precedence over ``jobs``).
    out_dir : path, optional
        Each case writes into ``out_dir/<name>/`` (default: a new temporary folder).
    root : path, optional
        Folder holding the cases (default: femb.validation.default_root()).
    specs : list of CaseSpec, optional
        Already discovered cases (skips discovery; ``names``/``quick`` still select).

    Returns
    -------
    list of CaseResult, in selection order.
    """
    specs = select(specs if specs is not None else discover(root), names, quick)
    out = Path(out_dir) if out_dir is not None else Path(tempfile.mkdtemp(prefix="femb-validation-"))
    dirs = [out / spec.name for spec in specs]
    if not specs:
        log.warning("no validation cases selected")
        return []
    if jobs is not None and jobs <= 0:
        jobs = os.cpu_count() or 1
    if scheduler is not None:
        log.info("running %d cases on Dask scheduler %s", len(specs), scheduler)
        outcomes = _run_dask(specs, quick, dirs, scheduler)
    elif jobs and jobs > 1 and len(specs) > 1:
        log.info("running %d cases on %d local processes", len(specs), jobs)
        outcomes = _run_pool(specs, quick, dirs, min(jobs, len(specs)))
    else:
        outcomes = _run_serial(specs, quick, dirs)
    return [evaluate(spec, outcome) for spec, outcome in zip(specs, outcomes)]
