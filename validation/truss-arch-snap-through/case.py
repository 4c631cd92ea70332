"""Snap-through of a shallow two-bar truss arch (truss2d) traced by arc-length.

The cylindrical arc-length method follows the apex from the unloaded state over the limit
point, down the unstable branch (negative load) and past the inverted position; every
converged point is compared with the closed-form load–deflection curve.
"""
import numpy as np

from femb.solvers import ArcLengthSettings, solve_arclength
from femb.validation.analytic import arch_limit, arch_load
from femb.validation.models import two_bar_arch

A, H, EA = 1.0, 0.1, 1.0e4


def run(quick, out_dir):
    model = two_bar_arch(a=A, h=H, EA=EA)
    apex = model.node("apex")
    _, p_lim = arch_limit(A, H, EA)

    def passed_inverted(res):
        return -res.dof(apex, "uy", -1) > 2.2 * H

    settings = ArcLengthSettings(initial_load_factor=2.0, max_arc_length=H / 50, max_steps=400, stop=passed_inverted)
    res = solve_arclength(model, settings)
    w = -res.dof(apex, "uy")
    load = np.asarray(res.times)  # reference force is 1: λ is the apex load P
    exact = arch_load(w, A, H, EA)
    ws = np.linspace(0.0, 2.2 * H, 500)
    return {
        "metrics": {
            "max_load_error": float(np.max(np.abs(load - exact)) / p_lim),
            "limit_load_ratio": float(load[w < H].max() / p_lim),
            "unstable_min_load_ratio": float(load.min() / p_lim),
            "final_deflection_over_h": float(w[-1] / H),
            "increments": len(load) - 1,
        },
        "series": {
            "history_load_path": {
                "title": "two-bar arch: load against apex deflection", "xlabel": "w / h", "ylabel": "P / P_limit",
                "curves": [
                    {"label": "closed form", "x": ws / H, "y": arch_load(ws, A, H, EA) / p_lim, "style": "line"},
                    {"label": "femb arc-length", "x": w / H, "y": load / p_lim, "style": "markers"},
                ],
            },
        },
    }
