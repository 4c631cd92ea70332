"""Free-flying Craig–Bampton superelement after a load pulse (shell4 plate reduced on three
interface nodes, k = 4): energy, linear and angular momentum constant in the free phase at
a step 10× the explicit limit 2/ω_max of the reduced body, and the momenta after the
pulse equal to the impulses of the force and moment."""
from femb.validation.superelement_cases import superelement_free_flight_case


def run(quick, out_dir):
    return superelement_free_flight_case(quick)
