"""Linear buckling of a simply supported square plate under uniform compression (shell3).

a = b = 1 m, E = 70e9, ν = 0.3, t = 5 mm; edge x = 0 held in x, unit compression N_x on
x = a (equivalent nodal forces), unloaded edges free in-plane, uz = 0 on the boundary.
The first load factor is compared with N_cr = 4π²D/b² and the rate of its error fitted;
the second with the m = 2 mode, k = 6.25.
"""
import numpy as np

from femb.solvers import solve_buckling
from femb.validation.rates import fit_rate
from femb.validation.shell_models import ss_plate

E, NU, T, A = 70e9, 0.3, 0.005, 1.0


def run(quick, out_dir):
    D = E * T**3 / (12 * (1 - NU**2))
    n_cr = 4 * np.pi**2 * D / A**2
    meshes = (4, 8, 16) if quick else (4, 8, 16, 32)
    ratios = []
    for n in meshes:
        mesh, model = ss_plate(n, E, NU, T, in_plane="compression")
        edge = mesh.node_sets["plate_x1"]
        for i in edge:
            y = mesh.points[i, 1]
            model.point_load(int(i), fx=-(A / n if 0.0 < y < A else 0.5 * A / n))
        lam = solve_buckling(model, n_modes=2).load_factors
        ratios.append(lam[0] / n_cr)
    h = A / np.asarray(meshes, dtype=float)
    errors = np.abs(np.asarray(ratios) - 1.0)
    rate, _ = fit_rate(h, errors)
    k2 = lam[1] / (np.pi**2 * D / A**2)
    n = meshes[-1]
    mesh, model = ss_plate(n, E, NU, T, in_plane="compression", element="shell4")
    for i in mesh.node_sets["plate_x1"]:
        y = mesh.points[i, 1]
        model.point_load(int(i), fx=-(A / n if 0.0 < y < A else 0.5 * A / n))
    ratio4 = solve_buckling(model, n_modes=1).load_factors[0] / n_cr
    return {"metrics": {"ratio": ratios[-1], "N_cr": lam[0], "rate": rate, "k_mode2": k2, "ratio_shell4": ratio4},
            "series": {"convergence": {"h": h, "error": errors, "rate": rate, "xlabel": "h / a",
                                       "ylabel": "|N_cr / (4π²D/b²) − 1|", "title": "SS plate buckling (shell3)"}}}
