"""Running a selection of cases serially, on a local process pool, or on a Dask cluster.

Every case runs in its own output folder ``out_dir/<name>/``; results come back in the
order of the selection whatever the order of completion.
"""
import logging
import tempfile
from pathlib import Path

from femb.batch import map_tasks
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
