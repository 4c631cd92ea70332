"""Results: frames of the state, per-step histories, recovery of nodal quantities and of
the full mesh (displacements, stresses) of superelements."""
from femb.results.results import Results
from femb.results.superelement_stresses import SuperelementStressModes, superelement_resultants, superelement_stress_modes
from femb.results.superelements import superelement_positions

__all__ = ["Results", "superelement_positions", "superelement_resultants", "superelement_stress_modes",
           "SuperelementStressModes"]
