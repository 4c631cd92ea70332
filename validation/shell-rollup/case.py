"""Plate strip rolled up into a full circle by an end moment M = 2πEI/L (shell3).

Strip L = 12, b = 1, h = 0.1, E = 1.2e6, ν = 0 (EI = 100), clamped at x = 0, dead end moment
about −Y (half on each tip node) in 8 equal increments. The nodes must lie on the circle of
radius R = EI/M through the root (center (0, 0, R)); the worst radial error over the load
path, the return of the tip to the root and the rate of the radial error are measured.
"""
import numpy as np

from femb.solvers import NewtonSettings, solve_static
from femb.validation.rates import fit_rate
from femb.validation.shell_models import strip

L, B, T, E = 12.0, 1.0, 0.1, 1.2e6


def run(quick, out_dir):
    EI = E * B * T**3 / 12
    M = 2 * np.pi * EI / L
    meshes = (12, 24) if quick else (12, 24, 48)
    radius_errors, tips = [], []
    for n in meshes:
        mesh, model = strip(n, 1, L=L, b=B, t=T, E=E)
        model.point_load("plate_x1", my=-M / 2)
        res = solve_static(model, steps=8, settings=NewtonSettings(tolerance=1e-8))
        worst = 0.0
        for f, lam in enumerate(res.times):
            if lam <= 0.0:
                continue
            R = EI / (lam * M)
            x = mesh.points + res.nodal_displacements(f)
            worst = max(worst, float(np.abs(np.hypot(x[:, 0], x[:, 2] - R) - R).max() / R))
        radius_errors.append(worst)
        x = mesh.points + res.nodal_displacements()
        tips.append(float(np.abs(x[mesh.node_sets["plate_x1"]] - mesh.points[mesh.node_sets["plate_x0"]]).max() / L))
    h = L / np.asarray(meshes, dtype=float)
    rate, _ = fit_rate(h, radius_errors)
    return {"metrics": {"radius_error": radius_errors[-1], "tip_return_over_L": tips[-1], "rate": rate},
            "series": {"convergence": {"h": h, "error": np.asarray(radius_errors), "rate": rate, "xlabel": "h",
                                       "ylabel": "max |r − R| / R over the path", "title": "Shell roll-up (shell3)"}}}
