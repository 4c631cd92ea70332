"""Batches of independent runs (validation cases, parameter sweeps): serially, on a local
process pool, or on a Dask scheduler.

``map_tasks`` runs ``func(*args)`` for every task and returns the outcomes in task order;
``connect_scheduler`` reaches a Dask scheduler within a short timeout and reports a bad or
silent address in one line (InputError naming it) instead of a traceback or a long wait.
A stock ``dask scheduler`` listens on every interface; on a workstation bind it to this
machine: ``dask scheduler --host 127.0.0.1``.
"""
import concurrent.futures
import logging
import multiprocessing
import os
import re
import uuid

from femb.core.errors import InputError

log = logging.getLogger(__name__)

CONNECT_TIMEOUT = 5.0  # seconds to reach a Dask scheduler
_ADDRESS = re.compile(r"(?:(tcp|tls|ws|wss)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})")


def check_scheduler_address(address):
    """``address`` of a Dask scheduler as "[protocol://]host:port" (protocol tcp, tls, ws
    or wss; default tcp://); InputError naming the address when it is not one."""
    text = str(address).strip()
    match = _ADDRESS.fullmatch(text)
    if match is None or not 0 < int(match.group(3)) < 65536:
        shown = text if len(text) <= 80 else text[:77] + "..."
        raise InputError(f"--scheduler {shown!r}: expected a Dask scheduler address such as tcp://127.0.0.1:8786")
    return text if match.group(1) else f"tcp://{text}"


def connect_scheduler(address, timeout=CONNECT_TIMEOUT):
    """A ``distributed.Client`` connected to the scheduler at ``address`` within
    ``timeout`` seconds; InputError (one line naming the address) when the address is
    malformed, nothing answers, or dask[distributed] is not installed."""
    url = check_scheduler_address(address)
    try:
        from distributed import Client
    except ImportError:  # optional dependency
        raise InputError("running on a Dask scheduler needs dask[distributed]: pip install 'femb[dist]'") from None
    try:
        return Client(url, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"--scheduler {url}: no Dask scheduler answered within {timeout:g} s ({reason[:120]})") from None


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
    client = connect_scheduler(scheduler) if own else scheduler
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
