"""Meijaard's spin-up B beam modelled as a narrow shell strip on a driven hub.

The beam of spin-up B (Simo & Vu-Quoc data: L = 10 m, EA = 2.8e7 N, EI = 1.4e4 N·m²,
ρA = 1.2 kg/m, ρI = 6e-4 kg·m) becomes a strip 10 m × 0.2 m of 16 shell4 quads standing
on edge (width along the spin axis z), so that the beam's in-plane bending is plate
bending: ν = 0, h = √(12 EI/EA) = 0.0775 m, E = EA/(b h), ρ = ρA/(b h) (the strip's rotary
inertia then equals ρI). The two root nodes lie on the spin axis and form the hub: fixed
except for their rotation about z, which follows θ(t) = (Ω/T)[t²/2 + (T/2π)²(cos 2πt/T − 1)]
(Ω = 6 rad/s, T = 15 s), then Ωt − ΩT/2. The tip deflection relative to the rotating line
(mean of the two tip nodes) is compared with Meijaard's figure and with femb's beam3d
spin-up (16 beam3d_timoshenko elements, validation/meijaard-spinup-b-3d).
"""
from femb.validation.shell_dynamics_cases import shell_strip_spinup


def run(quick, out_dir):
    return shell_strip_spinup(quick)
