"""Linear buckling of a pinned–pinned column (beam2d) against Euler's load π²EI/L².

The column is meshed with 2, 4, 8 and 16 elements; the first critical load factor under a
unit compressive end load is compared with the closed form and the convergence rate of the
relative error is fitted.
"""
import numpy as np

from femb.solvers import solve_buckling
from femb.validation.analytic import euler_load
from femb.validation.models import pinned_column
from femb.validation.rates import fit_rate

L, EI, EA = 1.0, 1.0, 1.0e4
MESHES = (2, 4, 8, 16)


def run(quick, out_dir):
    exact = euler_load(EI, L)
    ratios = []
    for n in MESHES:
        lam = solve_buckling(pinned_column(n, length=L, EI=EI, EA=EA), n_modes=2).load_factors
        ratios.append(lam[0] / exact)
    second = lam[1] / euler_load(EI, L, mode=2)  # finest mesh (coarse meshes may have one mode)
    errors = np.abs(np.asarray(ratios) - 1.0)
    h = L / np.asarray(MESHES, dtype=float)
    rate, _ = fit_rate(h, errors)
    return {
        "metrics": {"ratio": ratios[-1], "rate": rate, "ratio_mode2": second},
        "series": {
            "convergence": {"h": h, "error": errors, "rate": rate, "xlabel": "h / L",
                            "ylabel": "|P_cr / (π²EI/L²) − 1|", "title": "Euler column: first buckling load"},
        },
    }
