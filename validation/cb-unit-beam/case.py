"""Craig–Bampton reduction of a uniform free–free beam (20 planar Euler–Bernoulli elements,
L = 1, EI = 1, ρA = 1) on its two end nodes: the first elastic frequency converges from
above as fixed-interface modes are added (Ritz property), Guyan reduction (k = 0) equals
one Hermite element (√720), and boundary statics are exact for any k."""
from femb.validation.reduction_cases import unit_beam_case


def run(quick, out_dir):
    return unit_beam_case(quick)
