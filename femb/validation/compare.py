"""Comparing computed metrics with their references.

Rules (documented in validation/README.md):

* reference and tolerance given: error = |value − reference| ("abs") or
  |value − reference| / |reference| ("rel"; falls back to "abs" for a zero reference);
  one-sided bounds: error = max(0, value − reference) ("upper_bound") or
  max(0, reference − value) ("lower_bound"), the amount by which the bound is exceeded;
  passed = error ≤ tolerance. A missing or non-finite value fails.
* reference or tolerance null: the value is reported, passed is None (not judged).
* a metric the case returns but reference.json does not list is reported, not judged.
* a case passes when it did not raise and no judged metric failed.
"""
import math
from dataclasses import dataclass, field

from femb.validation.cases import ORIGINS


@dataclass
class MetricResult:
    """One metric of one case after comparison."""

    name: str
    value: float = None
    reference: float = None
    tolerance: float = None
    tolerance_kind: str = "abs"
    units: str = ""
    origin: str = None
    error: float = None
    passed: bool = None
    message: str = ""

    def describe(self):
        """One readable line: value, reference, error and tolerance."""
        value = "missing" if self.value is None else f"{self.value:.6g}"
        text = f"{self.name}: value {value}"
        if self.reference is not None:
            bound = {"upper_bound": "upper bound", "lower_bound": "lower bound"}.get(self.tolerance_kind, "reference")
            text += f", {bound} {self.reference:.6g}"
            if self.origin:
                text += f" ({self.origin})"
        if self.error is not None:
            rel = {"rel": " (relative)", "upper_bound": " (above the bound)", "lower_bound": " (below the bound)"}.get(self.tolerance_kind, "")
            text += f", error {self.error:.3g}{rel}"
            if self.tolerance is not None:
                text += f" {'<=' if self.passed else '>'} tolerance {self.tolerance:.3g}"
        elif self.tolerance is not None:
            text += f", tolerance {self.tolerance:.3g}"
        if self.message:
            text += f" [{self.message}]"
        return text


@dataclass
class CaseResult:
    """The outcome of one case: metrics, timing, error text and plot series."""

    name: str
    title: str = ""
    source: str = ""
    notes: str = ""
    passed: bool = False
    seconds: float = 0.0
    metrics: list = field(default_factory=list)
    error: str = None
    traceback: str = None
    series: dict = field(default_factory=dict)
    out_dir: str = None

    def origin_counts(self):
        """How many metrics are judged against each origin, and how many are only reported.

        Returns {"paper": n, "analytic": n, "converged-femb": n, "reported": n}; a judged
        metric is one with a verdict (passed True or False) or one the case failed to return.
        """
        counts = dict.fromkeys((*ORIGINS, "reported"), 0)
        for m in self.metrics:
            judged = m.reference is not None and m.tolerance is not None
            counts[m.origin if judged and m.origin in ORIGINS else "reported"] += 1
        return counts

    def failures(self):
        """Readable lines for everything that failed in this case."""
        lines = []
        if self.error:
            lines.append(f"{self.name}: raised {self.error}")
        for m in self.metrics:
            if m.passed is False:
                lines.append(f"{self.name} / {m.describe()}")
        return lines


def _as_float(value):
    """The metric value as a float, or None when it is not a real number."""
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def compare_metric(spec, value, name=None):
    """Compare ``value`` with a MetricSpec (or None for an unlisted metric)."""
    if spec is None:
        v = _as_float(value)
        return MetricResult(name=name, value=v, message="not listed in reference.json")
    out = MetricResult(
        name=spec.name, reference=spec.reference, tolerance=spec.tolerance, tolerance_kind=spec.tolerance_kind,
        units=spec.units, origin=spec.origin,
    )
    v = _as_float(value)
    out.value = v
    judged = spec.reference is not None and spec.tolerance is not None
    if value is None:
        out.message = "the case did not return this metric"
        out.passed = False if judged else None
        return out
    if v is None:
        out.message = f"not a number: {value!r}"
        out.passed = False if judged else None
        return out
    if spec.reference is None:
        return out
    if not math.isfinite(v):
        out.message = "non-finite value"
        out.passed = False if judged else None
        return out
    if spec.tolerance_kind == "upper_bound":
        out.error = max(0.0, v - spec.reference)
    elif spec.tolerance_kind == "lower_bound":
        out.error = max(0.0, spec.reference - v)
    elif spec.tolerance_kind == "rel" and spec.reference != 0.0:
        out.error = abs(v - spec.reference) / abs(spec.reference)
    else:
        out.error = abs(v - spec.reference)
    if judged:
        out.passed = bool(out.error <= spec.tolerance)
    return out


def evaluate(spec, outcome, quick=False):
    """Build the CaseResult of ``spec`` from the raw outcome of ``execute_case``; in a
    ``quick`` run, metrics marked ``full_only`` that the case did not return are left out."""
    result = CaseResult(
        name=spec.name, title=spec.title, source=spec.source, notes=spec.notes, seconds=float(outcome.get("seconds", 0.0)),
        error=outcome.get("error"), traceback=outcome.get("traceback"), series=outcome.get("series") or {},
        out_dir=outcome.get("out_dir"),
    )
    values = outcome.get("metrics") or {}
    if result.error is None:
        for name, mspec in spec.metrics.items():
            if quick and mspec.full_only and name not in values:
                continue
            result.metrics.append(compare_metric(mspec, values.get(name)))
        for name in values:
            if name not in spec.metrics:
                result.metrics.append(compare_metric(None, values[name], name))
    else:
        for name, mspec in spec.metrics.items():
            if quick and mspec.full_only:
                continue
            m = compare_metric(mspec, None)
            m.message = "not computed (the case raised)"
            result.metrics.append(m)
    result.passed = result.error is None and not any(m.passed is False for m in result.metrics)
    return result
