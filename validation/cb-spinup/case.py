"""Spin-up B with the beam as one co-rotated Craig–Bampton superelement on the hub (k = 4,
foreshortening): the tip extreme against Meijaard's, the divergence of the same body
without foreshortening, and the rotating frequencies at Ω = 6 rad/s from a free vibration
at steady spin."""
from femb.validation.superelement_spinup_cases import superelement_spinup_case


def run(quick, out_dir):
    return superelement_spinup_case(quick)
