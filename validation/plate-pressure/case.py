"""Simply supported square plate under uniform pressure: center deflection against
Navier's series (shell3, solve_static in the linear range, w/t = 1e-3)."""
import numpy as np

from femb.solvers import solve_static
from femb.validation.rates import fit_rate
from femb.validation.shell_models import LINEAR_SETTINGS, add_pressure, navier_center, ss_plate

E, NU, T, A = 1.0e7, 0.3, 0.05, 1.0


def run(quick, out_dir):
    D = E * T**3 / (12 * (1 - NU**2))
    w_ref = 1e-3 * T
    q = w_ref * D / (navier_center() * A**4)
    meshes = (4, 8, 16) if quick else (4, 8, 16, 32)
    ratios = []
    for n in meshes:
        mesh, model = ss_plate(n, E, NU, T)
        add_pressure(mesh, model, q)
        res = solve_static(model, steps=1, settings=LINEAR_SETTINGS)
        ratios.append(res.nodal_displacements()[mesh.node_sets["plate_center"][0], 2] / w_ref)
    h = A / np.asarray(meshes, dtype=float)
    errors = np.abs(np.asarray(ratios) - 1.0)
    rate, _ = fit_rate(h, errors)
    return {"metrics": {"ratio": ratios[-1], "coefficient": ratios[-1] * navier_center(), "rate": rate},
            "series": {"convergence": {"h": h, "error": errors, "rate": rate, "xlabel": "h / a",
                                       "ylabel": "|w_c / w_Navier − 1|", "title": "SS plate under pressure (shell3)"}}}
