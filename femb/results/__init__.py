"""Results: frames of the state, per-step histories, recovery of nodal quantities."""
from femb.results.results import Results

__all__ = ["Results"]
