"""Lateral (flexural–torsional) buckling of a cantilever under a tip force (beam3d).

Meijaard (1993), Table 1: a cantilever with EI_strong ≫ EI_weak loaded at the free end by
a transverse force in the plane of the larger flexural rigidity buckles sideways at
F_th = 4.0126 √(EI·GJ)/l² (EI the smaller rigidity). Linear buckling (``solve_buckling``)
on 1, 2, 4 and 8 elements; the ratios F_cr/F_th are compared with the paper's values for
his element with second-order strain terms, which beam3d reproduces.
"""
import numpy as np

from femb.solvers import solve_buckling
from femb.validation.models import cantilever3d
from femb.validation.rates import fit_rate

L, EI_STRONG, EI_WEAK, GJ, EA = 1.0, 1.0e4, 1.0, 1.3, 1.0e7
MESHES = (1, 2, 4, 8)


def critical_ratio(n, element="beam3d"):
    """F_cr / F_th of an ``n``-element cantilever along X with the force along Z (bending
    about local y = global Y with EIy = EI_strong; lateral bending with EIz = EI_weak)."""
    model = cantilever3d(n, length=L, EIy=EI_STRONG, EIz=EI_WEAK, GJ=GJ, EA=EA, element=element)
    model.point_load("beam_end", fz=1.0)
    F_th = 4.0126 * np.sqrt(EI_WEAK * GJ) / L**2
    return float(solve_buckling(model, n_modes=1).load_factors[0] / F_th)


def run(quick, out_dir):
    ratios = [critical_ratio(n) for n in MESHES]
    timoshenko = [critical_ratio(n, "beam3d_timoshenko") for n in MESHES[:3]]
    errors = np.abs(np.asarray(ratios[1:]) - 1.0)
    h = L / np.asarray(MESHES[1:], dtype=float)
    rate, _ = fit_rate(h, errors)
    metrics = {f"ratio_{n}el": r for n, r in zip(MESHES, ratios)}
    metrics.update(rate=rate, timoshenko_max_difference=float(np.max(np.abs(np.subtract(timoshenko, ratios[:3])))))
    return {
        "metrics": metrics,
        "series": {
            "convergence": {"h": h, "error": errors, "rate": rate, "xlabel": "h / L",
                            "ylabel": "|F_cr / F_th − 1|", "title": "lateral buckling of a cantilever (2, 4, 8 elements)"},
        },
    }
