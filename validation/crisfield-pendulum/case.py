"""Bathe's stiff pendulum, Crisfield & Shi (1993) §2: one truss (EA = 1e10), m = 10 kg at
the tip, l = 304.8 cm, g = 980 cm/s², fired from the bottom at 772.5 cm/s (swings to
89.94°).

The energy-conserving mid-point scheme runs 20 s at Δt = 0.5, 0.25, 0.1 (full: also
0.05): the total energy must stay constant to the Newton tolerance at Δt = 0.5, where the
trapezoidal rule locks; the period at Δt = 0.1 is compared with the exact rigid-pendulum
period 4 K(k²) √(l/g) = 4.1350 s, and the period error falls as Δt².
"""
from femb.validation.crisfield_cases import pendulum_case


def run(quick, out_dir):
    return pendulum_case(quick)
