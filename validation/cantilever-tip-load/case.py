"""Cantilever under a dead transverse tip load (beam2d, 32 elements) against Mattiasson's
elliptic-integral solution at P L²/EI = 1, 5 and 10.

One load path up to P L²/EI = 10 in ten increments records the three tabulated load
levels. The tabulated values are also checked against an independent numerical solution of
the elastica boundary-value problem (``reference_table_check``), which guards the table
against transcription errors.
"""
import numpy as np

from femb.solvers import solve_static
from femb.validation.analytic import elastica_tip_load
from femb.validation.models import cantilever

L, EI, EA = 1.0, 1.0, 1.0e7
N_ELEMENTS = 32
# Mattiasson (1981): P L²/EI -> (v/L, u/L, tip rotation [rad])
TABLE = {1: (0.30172, 0.05643, 0.46135), 5: (0.71379, 0.38763, 1.21537), 10: (0.81061, 0.55500, 1.43029)}
K_MAX = 10.0


def run(quick, out_dir):
    model = cantilever(N_ELEMENTS, length=L, EI=EI, EA=EA)
    model.point_load("beam_end", fy=-K_MAX * EI / L**2)
    factors = np.arange(1, 11) / 10.0
    res = solve_static(model, load_factors=factors)
    tip = model.node("beam_end")
    k = np.asarray(res.times) * K_MAX
    v, u, theta = -res.dof(tip, "uy") / L, -res.dof(tip, "ux") / L, -res.dof(tip, "rz")
    metrics = {}
    table_dev = 0.0
    for load, ref in TABLE.items():
        i = int(np.argmin(np.abs(k - load)))
        metrics[f"v_over_L_k{load}"] = v[i]
        metrics[f"u_over_L_k{load}"] = u[i]
        metrics[f"rotation_k{load}"] = theta[i]
        table_dev = max(table_dev, float(np.max(np.abs(np.asarray(elastica_tip_load(load)) - ref))))
    metrics["reference_table_check"] = table_dev
    loads = sorted(TABLE)
    curves = [{"label": f"femb {name}", "x": k, "y": y, "style": "line"} for name, y in (("v/L", v), ("u/L", u), ("θ", theta))]
    curves += [
        {"label": f"Mattiasson {name}", "x": loads, "y": [TABLE[p][j] for p in loads], "style": "markers"}
        for j, name in enumerate(("v/L", "u/L", "θ"))
    ]
    return {
        "metrics": metrics,
        "series": {
            "history_tip": {"title": f"cantilever tip load ({N_ELEMENTS} beam2d elements)", "xlabel": "P L² / EI",
                            "ylabel": "tip deflection / rotation", "curves": curves},
        },
    }
