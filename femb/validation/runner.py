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


def map_tasks(func, tasks, jobs=1, scheduler=None, crashed=None, key="femb", on_done=None):
    """``[func(*args) for args in tasks]``, serially, on a local process pool or on Dask.

    ``jobs`` > 1 (and more than one task): a local ProcessPoolExecutor of that many
    workers (spawn start method: no fork of a threaded parent); 0: one per CPU.
    ``scheduler``: a Dask address ("tcp://host:8786") or a ``distributed.Client``
    (takes precedence over ``jobs``); workers need femb installed and write their
    outputs on their own file system. ``func`` must be importable by the workers.
    Outcomes come back in task order whatever the order of completion; a task whose
    worker died or whose future failed gets ``crashed(i, exc)`` (serially, exceptions
    of ``func`` propagate: ``func`` catches its own). ``key`` prefixes the Dask keys.
    ``on_done(i, outcome)``, when given, is called in this process as each task finishes
    (in the order of completion), e.g. to show progress.
    """
    tasks = [tuple(args) for args in tasks]
    if jobs is not None and jobs <= 0:
        jobs = os.cpu_count() or 1
    if scheduler is not None:
        log.info("running %d tasks on Dask scheduler %s", len(tasks), scheduler)
        return _run_dask(func, tasks, scheduler, crashed, key, on_done)
    if jobs and jobs > 1 and len(tasks) > 1:
        log.info("running %d tasks on %d local processes", len(tasks), min(jobs, len(tasks)))
        return _run_pool(func, tasks, min(jobs, len(tasks)), crashed, on_done)
    outcomes = []
    for i, args in enumerate(tasks):
        outcomes.append(func(*args))
        if on_done is not None:
            on_done(i, outcomes[i])
    return outcomes


def _run_pool(func, tasks, jobs, crashed, on_done):
    outcomes = [None] * len(tasks)
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        futures = {pool.submit(func, *args): i for i, args in enumerate(tasks)}
        for fut in concurrent.futures.as_completed(futures):
            i = futures[fut]
            try:
                outcomes[i] = fut.result()
            except Exception as exc:  # noqa: BLE001 - BrokenProcessPool, pickling errors ...
                outcomes[i] = crashed(i, exc)
            if on_done is not None:
                on_done(i, outcomes[i])
    return outcomes


def _run_dask(func, tasks, scheduler, crashed, key, on_done):
    try:
        from distributed import Client, as_completed
    except ImportError as exc:  # optional dependency
        raise InputError("running on a Dask scheduler needs dask[distributed]: pip install 'femb[dist]'") from exc
    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    try:
        futures = [client.submit(func, *args, key=f"{key}-{i}-{uuid.uuid4().hex[:10]}", pure=False) for i, args in enumerate(tasks)]
        index = {fut.key: i for i, fut in enumerate(futures)}
        outcomes = [None] * len(tasks)
        for fut in as_completed(futures):
            i = index[fut.key]
            try:
                outcomes[i] = fut.result()
            except Exception as exc:  # noqa: BLE001 - lost worker, cancelled future ...
                outcomes[i] = crashed(i, exc)
            if on_done is not None:
                on_done(i, outcomes[i])
        return outcomes
    finally:
        if own:
            client.close()


def run_cases(names=None, quick=False, jobs=1, scheduler=None, out_dir=None, root=None, specs=None, progress=None):
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
    progress : callable, optional
        ``progress(result, done, total)`` is called with each CaseResult as soon as its case
        finishes (order of completion, also with ``jobs`` > 1 and Dask).

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
    parallel = scheduler is not None or (jobs is not None and jobs != 1)
    tasks = [(spec, quick, str(d) if parallel else d) for spec, d in zip(specs, dirs)]
    results = [None] * len(specs)

    def done(i, outcome):
        results[i] = evaluate(specs[i], outcome, quick)
        if progress is not None:
            progress(results[i], sum(r is not None for r in results), len(specs))

    map_tasks(execute_case, tasks, jobs, scheduler, lambda i, exc: _crashed(specs[i], dirs[i], exc),
              key="femb-validate", on_done=done)
    return results
