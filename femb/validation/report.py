"""Presenting validation results: text table, JSON summary, Markdown and HTML report.

The Markdown and HTML reports are rendered from one list of blocks, so they always hold
the same content.
"""
import datetime
import html
import json
import logging
import math
from pathlib import Path

from femb import __version__
from femb.validation.plots import draw_pictures, plot_series

log = logging.getLogger(__name__)

COLUMNS = ("case", "metric", "value", "reference", "error", "tolerance", "origin", "pass/fail", "seconds")
ORIGIN_COLUMNS = ("case", "paper", "analytic", "converged-femb", "reported only", "pass/fail")


# ----------------------------------------------------------------------------- cells
def _num(x, fmt=".6g"):
    return "" if x is None else format(x, fmt)


def _verdict(passed):
    return {True: "pass", False: "FAIL", None: "-"}[passed]


def origin_cell(m):
    """Where the reference of metric ``m`` comes from, as shown in the table.

    The origin of a judged metric ("paper", "analytic", "converged-femb" — femb's own
    converged run); "reported" for a metric without a verdict (with the origin of a
    reference that is shown but not judged); "unlisted" for a metric reference.json does
    not know.
    """
    if m.reference is not None and m.tolerance is not None:
        return m.origin or "?"
    if m.message == "not listed in reference.json":
        return "unlisted"
    return f"reported ({m.origin})" if m.origin else "reported"


def table_rows(results):
    """Rows (tuples of str, one per metric, one extra per raised case) of the table."""
    rows = []
    for res in results:
        first = True
        seconds = f"{res.seconds:.2f}"
        if res.error:
            rows.append((res.name, "(raised)", res.error.splitlines()[0][:80], "", "", "", "", "FAIL", seconds))
            first = False
        for m in res.metrics:
            tol = "" if m.tolerance is None else f"{m.tolerance:.3g} {m.tolerance_kind}"
            rows.append((
                res.name if first else "", m.name, _num(m.value), _num(m.reference), _num(m.error, ".2e"), tol,
                origin_cell(m), _verdict(m.passed), seconds if first else "",
            ))
            first = False
        if first:  # a case with no metrics at all
            rows.append((res.name, "", "", "", "", "", "", _verdict(res.passed), seconds))
    return rows


def origin_rows(results):
    """Per case: how many metrics are judged against a paper, a closed form (analytic) and
    femb's own converged run, how many are only reported, and the verdict."""
    rows = []
    for res in results:
        c = res.origin_counts()
        rows.append((res.name, str(c["paper"]), str(c["analytic"]), str(c["converged-femb"]), str(c["reported"]),
                     _verdict(res.passed)))
    return rows


def origin_text(res):
    """One line: "judged against 3 paper, 1 analytic, 0 converged-femb; 2 reported only"."""
    c = res.origin_counts()
    return (f"judged against {c['paper']} paper, {c['analytic']} analytic, {c['converged-femb']} converged-femb "
            f"(femb's own run); {c['reported']} reported only")


def _fixed_width(header, rows):
    widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(header)]
    out = ["  ".join(c.ljust(w) for c, w in zip(header, widths)), "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return out


def format_table(results):
    """The results as fixed-width text: one row per metric (with the origin of its
    reference), the per-case count of metrics by origin, and a one-line summary."""
    out = _fixed_width(COLUMNS, table_rows(results))
    out += ["", "Metrics judged per origin of the reference (converged-femb: femb's own converged run):"]
    out += _fixed_width(ORIGIN_COLUMNS, origin_rows(results))
    out.append(summary(results))
    return "\n".join(out)


def summary(results):
    """"k of n cases passed" plus the names of the failed ones."""
    failed = [r.name for r in results if not r.passed]
    text = f"{len(results) - len(failed)} of {len(results)} cases passed"
    return text + (f"; failed: {', '.join(failed)}" if failed else "")


def failure_lines(results):
    """Readable lines naming every failed metric (value, reference, error, tolerance)."""
    return [line for res in results for line in res.failures()]


# ----------------------------------------------------------------------------- JSON
def _json_float(x):
    return None if x is None or not math.isfinite(x) else float(x)


def to_json(results):
    """The summary in the fixed schema {"femb_version", "cases": [...]}."""
    return {
        "femb_version": __version__,
        "cases": [
            {
                "name": r.name,
                "passed": bool(r.passed),
                "seconds": float(r.seconds),
                "origins": r.origin_counts(),
                "metrics": [
                    {"name": m.name, "value": _json_float(m.value), "reference": m.reference, "tolerance": m.tolerance,
                     "tolerance_kind": m.tolerance_kind if m.tolerance is not None else None,
                     "origin": m.origin if m.reference is not None else None, "passed": m.passed}
                    for m in r.metrics
                ],
            }
            for r in results
        ],
    }


def write_json(results, path):
    """Write ``to_json(results)`` to ``path`` (parents created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_json(results), indent=2) + "\n", encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- report
def _blocks(results, images, meta):
    """The report as blocks: ("h1"|"h2"|"p"|"pre", text), ("table", header, rows),
    ("img", alt, relative path)."""
    when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    mode = "quick" if meta.get("quick") else "full"
    blocks = [
        ("h1", "femb validation report"),
        ("p", f"femb {__version__}, {when}, {mode} run. {summary(results)}."),
        ("table", COLUMNS, table_rows(results)),
        ("p", "Origin of each reference: paper (a published number or claim), analytic (a closed form, "
              "conservation law, theoretical order, or an independent solution of the governing equations computed "
              "in femb.validation.analytic), converged-femb (femb's own converged run: a regression check, not a "
              "validation); reported: no verdict. Metrics judged per origin:"),
        ("table", ORIGIN_COLUMNS, origin_rows(results)),
    ]
    for res in results:
        blocks.append(("h2", f"{res.name}: {res.title}" if res.title else res.name))
        blocks.append(("p", f"Status: {'passed' if res.passed else 'FAILED'} ({res.seconds:.2f} s); {origin_text(res)}. "
                            f"Source: {res.source}"))
        if res.notes:
            blocks.append(("p", f"Notes: {res.notes}"))
        fails = res.failures()
        if fails:
            blocks.append(("pre", "\n".join(fails)))
        if res.traceback:
            blocks.append(("pre", res.traceback.rstrip()))
        for key, rel in images.get(res.name, []):
            blocks.append(("img", f"{res.name} {key}", rel))
    return blocks


def _md_cell(text):
    return str(text).replace("|", "\\|")


def render_markdown(blocks):
    out = []
    for block in blocks:
        kind = block[0]
        if kind == "h1":
            out.append(f"# {block[1]}\n")
        elif kind == "h2":
            out.append(f"## {block[1]}\n")
        elif kind == "p":
            out.append(f"{block[1]}\n")
        elif kind == "pre":
            out.append(f"```\n{block[1]}\n```\n")
        elif kind == "table":
            header, rows = block[1], block[2]
            lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
            lines += ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in rows]
            out.append("\n".join(lines) + "\n")
        elif kind == "img":
            out.append(f"![{block[1]}]({block[2]})\n")
    return "\n".join(out)


_HTML_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>femb validation report</title>
<style>
body {{ font-family: sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; }}
table {{ border-collapse: collapse; font-size: 0.9rem; }}
th, td {{ border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: left; }}
td.pass {{ color: #176617; }} td.FAIL {{ color: #b00020; font-weight: bold; }}
pre {{ background: #f4f4f4; padding: 0.5rem; overflow-x: auto; }}
img {{ max-width: 100%; margin: 0.5rem 0.5rem 0 0; }}
</style>
</head>
<body>
{body}
</body>
</html>
"""


def render_html(blocks):
    esc = html.escape
    out = []
    for block in blocks:
        kind = block[0]
        if kind in ("h1", "h2", "p"):
            out.append(f"<{kind}>{esc(block[1])}</{kind}>")
        elif kind == "pre":
            out.append(f"<pre>{esc(block[1])}</pre>")
        elif kind == "table":
            header, rows = block[1], block[2]
            lines = ["<table>", "<tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr>"]
            for r in rows:
                verdict = header.index("pass/fail") if "pass/fail" in header else -1
                cells = "".join(f'<td class="{esc(c)}">{esc(c)}</td>' if i == verdict else f"<td>{esc(c)}</td>" for i, c in enumerate(r))
                lines.append(f"<tr>{cells}</tr>")
            lines.append("</table>")
            out.append("\n".join(lines))
        elif kind == "img":
            out.append(f'<img src="{esc(block[2])}" alt="{esc(block[1])}">')
    return _HTML_PAGE.format(body="\n".join(out))


def write_report(results, report_dir, quick=False, pictures=True):
    """Write plots, pictures of deformed shapes, ``report.md`` and ``report.html`` into
    ``report_dir``.

    Plots and pictures go to ``report_dir/<case>/<series key>.png``, the plotted data to
    ``report_dir/<case>/series.json``. ``pictures``: draw the ``shape``/``picture``
    series (pyvista off-screen, matplotlib fallback); a picture that fails is left out.
    Returns (md_path, html_path).
    """
    report_dir = Path(report_dir)
    report_dir.mkdir(parents=True, exist_ok=True)
    images = {}
    for res in results:
        if res.series:
            (report_dir / res.name).mkdir(parents=True, exist_ok=True)
            (report_dir / res.name / "series.json").write_text(json.dumps(res.series) + "\n", encoding="utf-8")
        written = plot_series(res.series, report_dir / res.name)
        images[res.name] = [(key, path.relative_to(report_dir).as_posix()) for key, path in written]
    if pictures:
        try:
            drawn = draw_pictures([(r.name, r.series or {}, r.out_dir) for r in results], report_dir)
        except Exception as exc:  # noqa: BLE001 - pictures never fail the report
            log.warning("no pictures in the report: %s: %s", type(exc).__name__, exc)
            drawn = {}
        for name, items in drawn.items():
            images.setdefault(name, []).extend((key, Path(path).relative_to(report_dir).as_posix()) for key, path in items)
    blocks = _blocks(results, images, {"quick": quick})
    md = report_dir / "report.md"
    md.write_text(render_markdown(blocks), encoding="utf-8")
    page = report_dir / "report.html"
    page.write_text(render_html(blocks), encoding="utf-8")
    return md, page
