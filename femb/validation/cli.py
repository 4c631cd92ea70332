"""The ``validate`` command: ``femb validate`` / ``python -m femb.validation``.

Exit codes: 0 every selected case passed, 1 a case failed, 2 bad usage (unknown case,
missing or malformed reference data).
"""
import argparse
import logging
import sys
from pathlib import Path

from femb.core.errors import FembError
from femb.validation.cases import default_root, discover, select
from femb.validation.report import failure_lines, format_table, write_json, write_report
from femb.validation.runner import run_cases

DESCRIPTION = "Run the validation benchmarks and compare them with their references."


def configure(parser):
    """Add the validate arguments to ``parser``."""
    parser.add_argument("names", nargs="*", metavar="CASE", help="cases to run (default: all; with --quick the quick ones)")
    parser.add_argument("--quick", action="store_true", help="run the quick cases in their quick variant")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--json", metavar="FILE", type=Path, help="write the results as JSON")
    parser.add_argument("--report", metavar="DIR", type=Path, default=None,
                        help="report folder (default: <validation root>/report)")
    parser.add_argument("--no-report", action="store_true", help="skip report.md/report.html and plots")
    parser.add_argument("--jobs", "-j", metavar="N", type=int, default=1, help="local worker processes (0: one per CPU)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="run on this Dask scheduler (tcp://host:port)")
    parser.add_argument("--root", metavar="DIR", type=Path, default=None,
                        help="folder holding the cases (default: the checkout's validation/ or $FEMB_VALIDATION_ROOT)")
    parser.add_argument("--verbose", "-v", action="store_true", help="log progress")
    return parser


def add_parser(subparsers):
    """Register the ``validate`` sub-command on an argparse ``subparsers`` object."""
    parser = subparsers.add_parser("validate", help=DESCRIPTION, description=DESCRIPTION)
    configure(parser)
    parser.set_defaults(func=run)
    return parser


def _list(specs):
    width = max((len(s.name) for s in specs), default=4)
    for s in specs:
        flag = "quick" if s.quick else "     "
        print(f"{s.name.ljust(width)}  {flag}  {s.title}\n{' ' * width}         source: {s.source}")


def print_progress(result, done, total):
    """One line per finished case, printed (and flushed) as it finishes:
    ``[3/20] rollup-2d  pass  1.2 s``."""
    width = len(str(total))
    verdict = "pass" if result.passed else ("FAIL (raised)" if result.error else "FAIL")
    print(f"[{done:>{width}}/{total}] {result.name}  {verdict}  {result.seconds:.1f} s", flush=True)


def run(args):
    """Execute the parsed ``validate`` arguments; returns the exit code."""
    if getattr(args, "verbose", False):
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    root = args.root.resolve() if args.root else default_root()
    try:
        specs = discover(root)
        if args.list:
            _list(select(specs, args.names, args.quick) if args.names else specs)
            return 0
        report_dir = args.report if args.report is not None else root / "report"
        results = run_cases(args.names or None, quick=args.quick, jobs=args.jobs, scheduler=args.scheduler,
                            out_dir=report_dir, specs=specs, progress=print_progress)
    except FembError as exc:
        print(f"femb validate: {exc}", file=sys.stderr)
        return 2
    if not results:
        print("femb validate: no cases selected", file=sys.stderr)
        return 2
    print()
    print(format_table(results))
    failures = failure_lines(results)
    if failures:
        print("\nFailures:")
        for line in failures:
            print(f"  {line}")
    if args.json:
        print(f"JSON: {write_json(results, args.json)}")
    if not args.no_report:
        md, page = write_report(results, report_dir, quick=args.quick)
        print(f"report: {md} and {page.name}")
    return 0 if all(r.passed for r in results) else 1


def main(argv=None):
    """Standalone entry (``python -m femb.validation``)."""
    parser = configure(argparse.ArgumentParser(prog="python -m femb.validation", description=DESCRIPTION))
    return run(parser.parse_args(argv))
