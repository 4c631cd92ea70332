"""First frequencies of a simply supported square plate (shell3, solve_modal).

a = b = 1 m, E = 70e9, ν = 0.3, t = 5 mm, ρ = 2700 kg/m³; uz = 0 on the boundary. f11 with
the lumped mass (converges from below) and the consistent translational mass (from above)
against f11 = (π/2)(2/a²)√(D/ρt), the degenerate pair f12 = f21 = 2.5 f11.
"""
import numpy as np

from femb.solvers import solve_modal
from femb.validation.rates import fit_rate
from femb.validation.shell_models import ss_plate

E, NU, T, RHO, A = 70e9, 0.3, 0.005, 2700.0, 1.0


def run(quick, out_dir):
    D = E * T**3 / (12 * (1 - NU**2))
    f11 = np.pi / 2 * (2.0 / A**2) * np.sqrt(D / (RHO * T))
    meshes = (4, 8, 16) if quick else (4, 8, 16, 32)
    ratios = []
    for n in meshes:
        mesh, model = ss_plate(n, E, NU, T, rho=RHO)
        f_l = solve_modal(model, 3, mass="lumped").omega / (2 * np.pi)
        ratios.append(f_l[0] / f11)
    f_c = solve_modal(model, 1, mass="consistent").omega / (2 * np.pi)  # finest mesh
    h = A / np.asarray(meshes, dtype=float)
    errors = np.abs(np.asarray(ratios) - 1.0)
    rate, _ = fit_rate(h, errors)
    return {"metrics": {"f11_lumped": f_l[0], "f11_consistent": f_c[0], "rate_lumped": rate,
                        "f12_over_f11": f_l[1] / f_l[0]},
            "series": {"convergence": {"h": h, "error": errors, "rate": rate,
                                       "xlabel": "h / a", "ylabel": "|f11 / f11_exact − 1| (lumped)",
                                       "title": "SS plate vibration (shell3)"}}}
