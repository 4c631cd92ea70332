"""Case discovery: reading ``reference.json`` files and loading ``case.py`` modules.

A case folder ``<root>/<name>/`` holds

* ``reference.json``::

      {"name": "<name>", "title": "...", "source": "paper, page/table/equation",
       "quick": true,
       "metrics": {"<metric>": {"reference": 1.0, "tolerance": 1e-3,
                                "tolerance_kind": "abs", "units": "-",
                                "origin": "paper"}}}

  ``reference`` and ``tolerance`` may be null (the metric is then only reported);
  ``tolerance_kind`` is "abs", "rel", "upper_bound" (value ≤ reference + tolerance) or
  "lower_bound" (value ≥ reference − tolerance). ``origin`` says where the reference comes
  from: "paper" (a published number or claim), "analytic" (a closed form, conservation law,
  theoretical order, or an independent solution of the governing equations computed in
  femb.validation.analytic) or "converged-femb" (femb's own converged run: a regression, not a
  validation). A judged metric must name its origin; a metric without a reference has none.
  ``"full_only": true`` marks a metric the quick variant does not compute (it is then
  neither required nor reported in a quick run). Optional keys: "notes" (free text shown
  in the report).
* ``case.py`` defining ``run(quick: bool, out_dir: pathlib.Path) -> dict`` that returns
  ``{"metrics": {name: float}, "series": {...}}`` (series optional, see femb.validation.plots).
"""
import importlib.util
import json
import os
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

from femb.core.errors import InputError

TOLERANCE_KINDS = ("abs", "rel", "upper_bound", "lower_bound")
ORIGINS = ("paper", "analytic", "converged-femb")
ROOT_ENV = "FEMB_VALIDATION_ROOT"


@dataclass(frozen=True)
class MetricSpec:
    """Reference value and acceptance rule of one metric."""

    name: str
    reference: float = None
    tolerance: float = None
    tolerance_kind: str = "abs"
    units: str = ""
    origin: str = None
    full_only: bool = False

    @property
    def judged(self):
        """True when the metric has a reference and a tolerance (else it is only reported)."""
        return self.reference is not None and self.tolerance is not None


@dataclass(frozen=True)
class CaseSpec:
    """A discovered case: its reference data, folder and the source text of ``case.py``.

    The source travels with the spec so that workers on other machines (Dask) can run the
    case without sharing the file system.
    """

    name: str
    title: str
    source: str
    quick: bool
    metrics: dict
    directory: Path
    notes: str = ""
    code: str = field(default="", repr=False)

    @property
    def case_file(self):
        return self.directory / "case.py"


def _number_or_none(value, where, key, problems):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        problems.append(f"{where}: {key} must be a number or null, not {value!r}")
        return None
    return float(value)


def _metric_spec(name, raw, where, problems):
    if not isinstance(raw, dict):
        problems.append(f"{where}: must be an object")
        return None
    unknown = set(raw) - {"reference", "tolerance", "tolerance_kind", "units", "origin", "notes", "full_only"}
    if unknown:
        problems.append(f"{where}: unknown keys {sorted(unknown)}")
    kind = raw.get("tolerance_kind", "abs")
    if kind not in TOLERANCE_KINDS:
        problems.append(f"{where}: tolerance_kind must be one of {TOLERANCE_KINDS}, not {kind!r}")
    origin = raw.get("origin")
    if origin is not None and origin not in ORIGINS:
        problems.append(f"{where}: origin must be one of {ORIGINS}, not {origin!r}")
    tol = _number_or_none(raw.get("tolerance"), where, "tolerance", problems)
    if tol is not None and tol < 0:
        problems.append(f"{where}: tolerance must be >= 0")
    reference = _number_or_none(raw.get("reference"), where, "reference", problems)
    if reference is not None and tol is not None and origin is None:
        problems.append(f"{where}: a judged metric must name the origin of its reference {ORIGINS}")
    if reference is None and origin is not None:
        problems.append(f"{where}: origin {origin!r} given for a metric without a reference (only reported: omit it)")
    full_only = raw.get("full_only", False)
    if not isinstance(full_only, bool):
        problems.append(f"{where}: full_only must be true or false, not {full_only!r}")
    return MetricSpec(
        name=name,
        reference=reference,
        tolerance=tol,
        tolerance_kind=kind,
        units=str(raw.get("units", "")),
        origin=origin,
        full_only=full_only is True,
    )


def load_spec(directory):
    """Read and check ``<directory>/reference.json``; returns a CaseSpec.

    Raises InputError listing every problem of the file.
    """
    directory = Path(directory).resolve()
    ref_file = directory / "reference.json"
    where = str(ref_file)
    try:
        raw = json.loads(ref_file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read reference data: {exc}", where) from exc
    problems = []
    if not isinstance(raw, dict):
        raise InputError("the top level must be an object", where)
    for key in ("name", "title", "source", "metrics"):
        if key not in raw:
            problems.append(f"missing key {key!r}")
    if raw.get("name", directory.name) != directory.name:
        problems.append(f"name {raw.get('name')!r} differs from the folder name {directory.name!r}")
    metrics = {}
    raw_metrics = raw.get("metrics", {})
    if not isinstance(raw_metrics, dict):
        problems.append("metrics must be an object {name: {...}}")
        raw_metrics = {}
    for name, entry in raw_metrics.items():
        spec = _metric_spec(name, entry, f"metric {name!r}", problems)
        if spec is not None:
            metrics[name] = spec
    case_file = directory / "case.py"
    code = ""
    if not case_file.is_file():
        problems.append("case.py is missing")
    else:
        code = case_file.read_text(encoding="utf-8")
    if problems:
        raise InputError(problems, where)
    return CaseSpec(
        name=directory.name,
        title=str(raw["title"]),
        source=str(raw["source"]),
        quick=bool(raw.get("quick", False)),
        metrics=metrics,
        directory=directory,
        notes=str(raw.get("notes", "")),
        code=code,
    )


def default_root():
    """The folder holding the cases.

    ``$FEMB_VALIDATION_ROOT`` if set; else ``validation/`` next to the femb package (a source
    checkout, editable install); else ``./validation``.
    """
    env = os.environ.get(ROOT_ENV)
    if env:
        return Path(env).resolve()
    checkout = Path(__file__).resolve().parents[2] / "validation"
    if checkout.is_dir():
        return checkout
    return (Path.cwd() / "validation").resolve()


def discover(root=None):
    """All cases under ``root`` (default: ``default_root()``), sorted by name.

    A case is any sub-folder holding a ``reference.json``; other folders (the report, data)
    and folders starting with "." or "_" are skipped.
    """
    root = Path(root).resolve() if root is not None else default_root()
    if not root.is_dir():
        raise InputError(f"validation folder {root} does not exist")
    specs = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        if folder.name.startswith((".", "_")) or not (folder / "reference.json").is_file():
            continue
        specs.append(load_spec(folder))
    return specs


def select(specs, names=None, quick=False):
    """Pick cases by name (in the order given), or all (``quick``: only those flagged quick).

    Unknown names raise InputError listing the available cases.
    """
    by_name = {s.name: s for s in specs}
    if names:
        unknown = [n for n in names if n not in by_name]
        if unknown:
            raise InputError(
                [f"unknown case {n!r}" for n in unknown] + [f"available: {', '.join(sorted(by_name)) or '(none)'}"]
            )
        return [by_name[n] for n in dict.fromkeys(names)]
    return [s for s in specs if s.quick or not quick]


def load_case_module(spec):
    """Import the case's ``case.py`` as a fresh module (importlib from the file path).

    When the file is not reachable (a remote worker), the source carried by the spec is
    compiled instead, with the original path in tracebacks.
    """
    module_name = f"femb_validation_case_{spec.name.replace('-', '_')}"
    path = spec.case_file
    if path.is_file():
        importer = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(importer)
        sys.modules[module_name] = module
        try:
            importer.loader.exec_module(module)
        finally:
            sys.modules.pop(module_name, None)
    else:
        module = types.ModuleType(module_name)
        module.__file__ = str(path)
        exec(compile(spec.code, str(path), "exec"), module.__dict__)  # noqa: S102 - trusted case code
    if not callable(getattr(module, "run", None)):
        raise InputError("case.py defines no run(quick, out_dir) function", str(path))
    return module
