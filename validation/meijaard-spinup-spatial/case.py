"""Spatial spin-up of the Kane–Ryan–Banerjee tube-and-channel beam (Meijaard 1993, Figs. 5–6).

A shaft along Z turns by θ(t) = (Ω/T)[t²/2 + (T/2π)²(cos 2πt/T − 1)] up to T = 15 s, then
Ωt − ΩT/2 (Ω = 6 rad/s). An 8 m rigid arm carries a 2.5 m aluminium tube and a 5.5 m
channel whose shear centre is 18.75 mm from its centroid along the shaft: one line of
beam3d elements on the centroid line with an eccentric section (shear-centre offset
z_s = −0.01875 m), Meijaard's linked centroid and shear-centre lines in one element. The
tip-centroid deflections in the rotating frame and the total twist are recorded for 30 s;
the source gives graphs only: the out-of-plane deflection returns to zero once the spin is
constant. The run (4 tube, 32 channel elements, Δt = 0.01 s) is compared with femb's mesh-
and step-converged history in converged_history.csv (8 tube, 64 channel elements; mesh
study in reference.json) and repeated with 64 channel elements for the mesh change of the
peaks. The quick variant (16 channel elements, the first 8 s, run by `make test`) is
compared with the first 8 s of the same history; the end values that show the paper's
return to zero need the full run.
"""
from pathlib import Path

from femb.validation.dynamic3d_cases import spin_up_spatial


def run(quick, out_dir):
    return spin_up_spatial(quick=quick, reference_history=Path(__file__).with_name("converged_history.csv"))
