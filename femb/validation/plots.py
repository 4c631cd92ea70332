"""Plots of the series a case returns (matplotlib, Agg canvas, no pyplot state).

Series entries are recognised by the prefix of their key:

* ``convergence...``: ``{"h": [...], "error": [...], "rate": p (optional, else fitted),
  "xlabel": str, "ylabel": str, "title": str}`` → log–log plot with the fitted line
  C·h^p and its rate in the legend.
* ``history...``: ``{"xlabel", "ylabel", "title", "curves": [{"label", "x", "y",
  "style": "line" | "markers" | "dashed"}], "yscale": "linear" | "log" (optional)}`` → one
  axes with every curve.

* ``shape...``: ``{"title", "reference": (n, 3) points, "lines": (k, 2) point pairs,
  "frames": [{"label", "points": (n, 3)}]}`` → a picture of the deformed structure at
  those frames over the reference (pyvista off-screen, matplotlib fallback), drawn by
  ``draw_pictures`` for all cases at once.
* ``picture...``: ``{"source": result folder, .pvd or .vtu (relative to the case's output
  folder or absolute), "frame": -1, "scalars": "displacement", "warp": 1.0, "title"}`` →
  a picture of a frame the case wrote with femb.export (``render_png``).

Other keys are kept in the JSON data but not plotted.
"""
import logging
from pathlib import Path

import numpy as np

from femb.validation.rates import fit_rate

log = logging.getLogger(__name__)

_STYLES = {"line": {"linestyle": "-"}, "dashed": {"linestyle": "--"}, "markers": {"linestyle": "none", "marker": "o", "markersize": 4}}


def _figure():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.0, 3.6), dpi=110)
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot(1, 1, 1)


def plot_convergence(data, path):
    """Log–log error against h with the fitted rate; writes a PNG to ``path``."""
    h = np.asarray(data["h"], dtype=np.float64)
    e = np.asarray(data["error"], dtype=np.float64)
    fig, ax = _figure()
    ax.loglog(h, e, "o", label=data.get("label", "femb"))
    ok = (h > 0) & (e > 0) & np.isfinite(e)
    if ok.sum() >= 2:
        p, c = fit_rate(h[ok], e[ok])
        p_shown = float(data.get("rate", p))
        hh = np.geomspace(h[ok].min(), h[ok].max(), 50)
        ax.loglog(hh, c * hh**p, "-", label=f"fit: rate {p_shown:.2f}")
    from matplotlib.ticker import NullFormatter

    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(data.get("xlabel", "h"))
    ax.set_ylabel(data.get("ylabel", "error"))
    ax.set_title(data.get("title", "convergence"), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    return path


def plot_history(data, path):
    """Curves of a load path or time history; writes a PNG to ``path``."""
    fig, ax = _figure()
    for curve in data.get("curves", []):
        style = _STYLES.get(curve.get("style", "line"), _STYLES["line"])
        ax.plot(curve["x"], curve["y"], label=curve.get("label"), **style)
    ax.set_xlabel(data.get("xlabel", ""))
    ax.set_ylabel(data.get("ylabel", ""))
    ax.set_title(data.get("title", ""), fontsize=10)
    if data.get("yscale") in ("log", "symlog"):
        ax.set_yscale(data["yscale"])
    ax.grid(True, alpha=0.3)
    if any(c.get("label") for c in data.get("curves", [])):
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    return path


def plot_series(series, folder):
    """Plot every recognised entry of ``series`` into ``folder``.

    Returns a list of (key, path) of the written PNGs; plotting problems are logged and
    skipped (a report never fails because of a plot), and so is a missing matplotlib.
    """
    try:
        import matplotlib  # noqa: F401 - optional dependency
    except ImportError:
        log.warning("matplotlib is not installed: the report has no plots (pip install 'femb[plot]')")
        return []
    folder = Path(folder)
    written = []
    for key, data in sorted(series.items()):
        if key.startswith("convergence"):
            plotter = plot_convergence
        elif key.startswith("history"):
            plotter = plot_history
        else:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{key}.png"
        try:
            written.append((key, plotter(data, path)))
        except Exception as exc:  # noqa: BLE001 - a plot never stops the report
            log.warning("could not plot series %r into %s: %s", key, path, exc)
    return written


def shape_series(results, frames, title):
    """A ``shape`` series of ``results`` (a Results of line elements with its model): the
    reference structure and the deformed node positions at the frame indices ``frames``
    (each element drawn as the segment between its end nodes)."""
    points = np.asarray(results.model.mesh.points, dtype=np.float64)
    X = np.zeros((len(points), 3))
    X[:, : points.shape[1]] = points
    lines = [np.asarray(block.cells)[:, [0, -1]] for block in results.table.blocks if np.asarray(block.cells).shape[1] >= 2]
    out = []
    for k in frames:
        d = results.nodal_displacements(k)
        P = X.copy()
        P[:, : d.shape[1]] += d
        out.append({"label": f"t = {results.times[k]:.4g}", "points": P.tolist()})
    return {"title": title, "reference": X.tolist(), "lines": np.vstack(lines).tolist() if lines else [], "frames": out}


def draw_pictures(cases, report_dir):
    """Pictures of deformed shapes for the ``shape...`` and ``picture...`` series of
    ``cases`` (a list of (case name, series, case output folder or None)).

    Writes ``report_dir/<case>/<key>.png``; returns {case name: [(key, path)]} of the
    pictures drawn. A picture that cannot be drawn is logged and left out: it never fails
    the report.
    """
    report_dir = Path(report_dir)
    out = {name: [] for name, _, _ in cases}
    shapes = []
    for name, series, case_dir in cases:
        for key, data in sorted(series.items()):
            path = report_dir / name / f"{key}.png"
            if key.startswith("shape"):
                shapes.append((name, key, data, path))
            elif key.startswith("picture"):
                try:
                    from femb.export.render import render_png

                    source = Path(data["source"])
                    if not source.is_absolute() and case_dir is not None:
                        source = Path(case_dir) / source
                    render_png(source, int(data.get("frame", -1)), path, scalars=data.get("scalars", "displacement"),
                               warp=float(data.get("warp", 1.0)), title=data.get("title"))
                    out[name].append((key, path))
                except Exception as exc:  # noqa: BLE001 - a picture never stops the report
                    log.warning("could not draw picture %r of case %s: %s: %s", key, name, type(exc).__name__, exc)
    if shapes:
        try:
            from femb.export.render import render_snapshots

            drawn = render_snapshots([(data, path) for _, _, data, path in shapes])
        except Exception as exc:  # noqa: BLE001
            log.warning("could not draw the shape pictures: %s: %s", type(exc).__name__, exc)
            drawn = [None] * len(shapes)
        for (name, key, _, path), backend in zip(shapes, drawn):
            if backend is not None:
                out[name].append((key, path))
    return out
