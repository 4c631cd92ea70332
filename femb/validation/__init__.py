"""Validation benchmark runner (layer 6).

A *case* is a folder ``validation/<name>/`` holding ``reference.json`` (reference values,
their provenance and tolerances) and ``case.py`` (``run(quick, out_dir) -> dict``). The
runner discovers cases, runs them serially, on a local process pool or on a Dask cluster,
compares every metric with its reference and writes a table, a JSON summary and a
Markdown/HTML report with convergence and history plots.

    from femb.validation import discover, run_cases
    results = run_cases(quick=True)

Command line: ``python -m femb.validation --help`` (also ``femb validate``).
"""
from femb.validation.cases import CaseSpec, MetricSpec, default_root, discover, select
from femb.validation.compare import CaseResult, MetricResult
from femb.validation.runner import run_cases

__all__ = ["CaseResult", "CaseSpec", "MetricResult", "MetricSpec", "default_root", "discover", "run_cases", "select"]
