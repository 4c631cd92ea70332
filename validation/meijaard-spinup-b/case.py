"""Planar spin-up B, Meijaard (1993): L = 10 m, Ω = 6 rad/s, T = 15 s (Simo & Vu-Quoc data).

A beam clamped to a shaft whose angle follows θ(t) = (Ω/T)[t²/2 + (T/2π)²(cos 2πt/T − 1)]
up to T, then Ωt − ΩT/2. The transverse tip deflection relative to the rotating line is
recorded for 25 s (16 elements, Δt = 0.01 s, energy-conserving scheme); its extreme and
the half-amplitude of the residual vibration after the spin-up are compared.
"""
from femb.validation.dynamic_cases import spin_up_case


def run(quick, out_dir):
    return spin_up_case("B", quick)
