"""Torsional buckling of a clamped–free circular shaft under a semitangential end torque
(beam3d).

Meijaard (1993), Table 2: the shaft (EIy = EIz = EI) buckles under a semitangential end
torque at M_th = π EI/l (Ziegler). Linear buckling (``solve_buckling``) with the load
stiffness of the semitangential torque (½ M̂ at the reference) on 1, 2, 4 and 8 elements.
"""
import numpy as np

from femb.solvers import solve_buckling
from femb.validation.models import cantilever3d
from femb.validation.rates import fit_rate

L, EI, GJ, EA = 1.0, 2.0, 1.5, 1.0e7
MESHES = (1, 2, 4, 8)


def critical_ratio(n, element="beam3d"):
    """M_cr / (π EI/L) of an ``n``-element shaft along X under a semitangential torque."""
    model = cantilever3d(n, length=L, EIy=EI, EIz=EI, GJ=GJ, EA=EA, element=element)
    model.point_load("beam_end", mx=1.0, moment_type="semitangential")
    return float(solve_buckling(model, n_modes=1).load_factors[0] / (np.pi * EI / L))


def run(quick, out_dir):
    ratios = [critical_ratio(n) for n in MESHES]
    timoshenko = [critical_ratio(n, "beam3d_timoshenko") for n in MESHES[:3]]
    errors = np.abs(np.asarray(ratios[:3]) - 1.0)
    h = L / np.asarray(MESHES[:3], dtype=float)
    rate, _ = fit_rate(h, errors)
    metrics = {f"ratio_{n}el": r for n, r in zip(MESHES, ratios)}
    metrics.update(rate=rate, timoshenko_max_difference=float(np.max(np.abs(np.subtract(timoshenko, ratios[:3])))))
    return {
        "metrics": metrics,
        "series": {
            "convergence": {"h": h, "error": errors, "rate": rate, "xlabel": "h / L",
                            "ylabel": "|M_cr / (πEI/L) − 1|", "title": "torsional buckling under a semitangential torque"},
        },
    }
