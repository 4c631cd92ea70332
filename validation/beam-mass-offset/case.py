"""Coupled bending–torsion vibration of a simply supported beam whose section mass centre
is offset from the node line (= the shear centre) by e along the section y axis.

beam3d with ``ym = e`` (lumped mass: each element end's half of the mass on a point
rigidly attached to the node at the offset, the rotary inertia about the mass centre),
fork supports (w = v = θ = 0 at both ends). Per half-wave n (k = nπ/L) the closed form is
the 2 × 2 eigenproblem

    det([[EIy k⁴ − ω² (m + ρIy k²), −ω² m e], [−ω² m e, GJ k² − ω² I_α]]) = 0,

m = ρA, I_α = ρIp + m e² the polar mass moment per length about the node line, ρIy the
bending rotary inertia (the mass centre at e along y moves by w + e θ along z). The four
lowest frequencies (half-waves 1 and 2) are compared with it on 16, 32, 64 elements and
the convergence order is fitted.
"""
import numpy as np

from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers import solve_modal
from femb.validation.analytic import coupled_bending_torsion_frequencies
from femb.validation.rates import fit_rate

L, M, E, IC, EI, GJ, RI = 1.0, 1.0, 0.1, 0.01, 1.0, 0.2, 1e-4


def closed_form(n_half_waves=4):
    """The coupled frequencies (rad/time) of the first ``n_half_waves`` half-waves, sorted."""
    return coupled_bending_torsion_frequencies(L, M, E, IC, EI, GJ, RI, n_half_waves)


def beam(n):
    """The fork-supported beam on n beam3d elements with its mass centre at ym = e."""
    model = Model(line_mesh((0.0, 0.0, 0.0), (L, 0.0, 0.0), n, "b"), dim=3, name="beam-mass-offset")
    model.add_part("b", "beam3d", "b", values=dict(EA=1e4, GJ=GJ, EIy=EI, EIz=100.0, rhoA=M, rhoIp=IC,
                                                   rhoIy=RI, rhoIz=RI, ym=E))
    model.fix("b_start", ("ux", "uy", "uz", "rx"))
    model.fix("b_end", ("uy", "uz", "rx"))
    return model


def run(quick, out_dir):
    """Metrics: the four lowest frequencies over the closed form on the finest mesh and the
    fitted convergence orders of the first and fourth."""
    meshes = (16, 32) if quick else (16, 32, 64)
    ref = closed_form()[:4]
    ratios = np.array([solve_modal(beam(n), 6).omega[:4] / ref for n in meshes])
    errors = np.abs(ratios - 1.0)
    h = L / np.asarray(meshes, dtype=float)
    rates = [fit_rate(h, errors[:, j])[0] for j in range(4)]
    metrics = {f"ratio_{j + 1}": float(ratios[-1, j]) for j in range(4)}
    metrics.update({"rate_1": rates[0], "rate_4": rates[3]})
    return {
        "metrics": metrics,
        "series": {
            "convergence": {"h": h, "error": errors[:, 0], "rate": rates[0], "xlabel": "h / L",
                            "ylabel": "|ω₁/ω₁,exact − 1|", "title": "offset mass centre: first coupled frequency"},
        },
    }
