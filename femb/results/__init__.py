"""Results: frames of the state, per-step histories, recovery of nodal quantities."""
from femb.results.results import Results
from femb.results.superelements import superelement_positions

__all__ = ["Results", "superelement_positions"]
