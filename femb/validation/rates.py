"""Convergence rates: least-squares fit of log(error) against log(h)."""
import numpy as np

from femb.core.errors import InputError


def fit_rate(h, error):
    """Fit error ≈ C·h^p; returns (p, C).

    ``h`` are mesh sizes (or any quantity proportional to them), ``error`` positive errors.
    Needs at least two points; non-positive errors are rejected (they have no logarithm).
    """
    h = np.asarray(h, dtype=np.float64)
    e = np.asarray(error, dtype=np.float64)
    if h.shape != e.shape or h.size < 2:
        raise InputError(f"need at least two (h, error) pairs of equal length, got {h.size} and {e.size}", "fit_rate")
    if np.any(h <= 0) or np.any(e <= 0) or not np.all(np.isfinite(e)):
        raise InputError(f"h and error must be positive and finite (error = {e.tolist()})", "fit_rate")
    p, log_c = np.polyfit(np.log(h), np.log(e), 1)
    return float(p), float(np.exp(log_c))
