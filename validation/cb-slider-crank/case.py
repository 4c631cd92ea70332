"""Flexible slider-crank, Meijaard (1993) case 1 (ω = 124.8 rad/s, massless slider), in 3-D
with the connecting rod as ONE co-rotated Craig–Bampton superelement (beam3d rod reduced on
its two end nodes, k = 1, 2, 4, 8 fixed-interface modes, lumped mass), against a beam3d
chain, a chain of four superelements and two reduced models of the rod (with and without
its axial force): a linear body in its shadow frame has no geometric stiffness inside, and
its first peak is the one of the rod without axial-force stiffening."""
from femb.validation.superelement_mechanism_cases import cb_slider_crank_case


def run(quick, out_dir):
    return cb_slider_crank_case(quick)
