"""Free-flying 3-D beam with an initial tumbling spin and a short load pulse (beam3d).

A skew free beam (8 elements, EA = 1e4, rotary inertia about all three axes) starts with a
rigid spin ω = (0.2, −0.3, 0.8) rad/s, a translation and a deformation rate, and is hit by
a force and moment pulse at its end during 0 ≤ t ≤ 0.5 s. Afterwards no load acts: the
total energy and the angular momentum must stay constant. Δt = 0.05 s is about six periods
of the highest axial mode; 10⁴ steps (quick: 10³) after the pulse.
"""
from femb.validation.dynamic3d_cases import free_flight_3d


def run(quick, out_dir):
    return free_flight_3d(quick)
