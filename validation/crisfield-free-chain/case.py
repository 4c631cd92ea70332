"""Free-flying four-bar chain, Crisfield & Shi (1993) §4.1: straight, length 400, 1 mass
per length (lumped), EA = 1e10, rigid spin ω = 1 rad/s about the right-hand end, no
gravity.

At Δt = 2 the mid-point rule turns a free rigid spin by 2 atan(ωΔt/2) = π/2 per step (not
ωΔt = 2), so the left tip runs 0, 200, 400, 200, 0, ...; energy and angular momentum are
conserved to round-off at Δt = 2 and 0.1 (20 s each).
"""
from femb.validation.crisfield_cases import free_chain_case


def run(quick, out_dir):
    return free_chain_case(quick)
