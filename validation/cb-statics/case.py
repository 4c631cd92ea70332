"""Co-rotated Craig–Bampton superelements (3-D unit beam, L = EI = ρA = 1, reduced on both
end nodes): reduced = unreduced linear statics for interface loads for any k, the same seen
from a support turned by 90° about an oblique axis, a chain of N superelements rolling up
under an end moment towards the circle (second order in 1/N), and the Craig–Bampton
frequencies of a free assembly."""
from femb.validation.superelement_cases import superelement_statics_case


def run(quick, out_dir):
    return superelement_statics_case(quick)
