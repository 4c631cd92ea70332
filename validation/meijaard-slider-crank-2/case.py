"""Flexible slider-crank, Meijaard (1993) case 2: ω = 150 rad/s, slider mass 0.0378126 kg.

Rigid crank r = 0.1524 m at constant speed from θ0 = 0, steel rod L = 0.3048 m,
d = 6.35 mm, energy-conserving mid-point scheme with lumped mass. The first local maximum
of the rod-midpoint deflection from the chord / L is compared with the published value;
the same mesh at three step sizes shows the peak is step-converged.
"""
from femb.validation.dynamic_cases import slider_crank_case


def run(quick, out_dir):
    return slider_crank_case(150.0, 0.0378126, quick)
