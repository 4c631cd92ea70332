"""Free-flying L-shaped shell plate after a load pulse: energy, linear and angular momentum.

A steel L-plate (arms 1.2 × 0.3 m and 0.3 × 0.9 m, t = 10 mm; shell4 quads and shell3
triangles, cells 0.15 m) moving and tumbling freely is hit at its two arm tips by force and
moment pulses sin²(πt/2 ms); afterwards no load acts, so the total energy and both momenta
are constant. The energy-momentum mid-point scheme with the shells' discrete-gradient force
keeps them to the Newton tolerance at Δt = 0.5 ms, hundreds of times the explicit stability
limit of the lumped mass.
"""
from femb.validation.shell_dynamics_cases import shell_free_flight


def run(quick, out_dir):
    return shell_free_flight(quick)
