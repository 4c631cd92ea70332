"""Plots of the series a case returns (matplotlib, Agg canvas, no pyplot state).

Series entries are recognised by the prefix of their key:

* ``convergence...``: ``{"h": [...], "error": [...], "rate": p (optional, else fitted),
  "xlabel": str, "ylabel": str, "title": str}`` → log–log plot with the fitted line
  C·h^p and its rate in the legend.
* ``history...``: ``{"xlabel", "ylabel", "title", "curves": [{"label", "x", "y",
  "style": "line" | "markers" | "dashed"}]}`` → one axes with every curve.

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
