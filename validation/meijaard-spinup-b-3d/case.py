"""Planar spin-up B re-run with 3-D beams (beam3d_timoshenko): L = 10 m, Ω = 6 rad/s, T = 15 s.

The beam of the planar case (Simo & Vu-Quoc data) modelled with 16 oriented 3-D Timoshenko
elements along x; the root node is clamped except for its rotation about z, which follows
θ(t) = (Ω/T)[t²/2 + (T/2π)²(cos 2πt/T − 1)] up to T, then Ωt − ΩT/2 (a prescribed rotation
at an oriented node). The transverse tip deflection relative to the rotating line is
recorded for 25 s (Δt = 0.01 s, energy-momentum scheme); its extreme and the half-amplitude
of the residual vibration are compared with the planar reference. The motion must stay in
the plane (out-of-plane tip motion reported).
"""
from femb.validation.dynamic3d_cases import spin_up_b_3d


def run(quick, out_dir):
    return spin_up_b_3d(quick)
