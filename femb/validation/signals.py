"""Quantities read off time histories: first local extremum, residual vibration amplitude."""
import numpy as np

from femb.core.errors import FembError


def first_local_extremum(x, y, threshold=0.0, sign=1.0):
    """The first local maximum of sign·y (above ``threshold`` in magnitude) along x, refined
    by a parabola through the three samples around it; returns (y_peak, x_peak)."""
    s = sign * np.asarray(y, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    for i in range(1, s.size - 1):
        if s[i] >= s[i - 1] and s[i] > s[i + 1] and s[i] > threshold:
            a, b, c = s[i - 1], s[i], s[i + 1]
            denom = a - 2.0 * b + c
            p = 0.5 * (a - c) / denom if denom != 0.0 else 0.0
            return sign * (b - 0.25 * (a - c) * p), x[i] + p * (x[i + 1] - x[i])
    raise FembError("no local extremum found in the history (run longer or lower the threshold)")


def half_amplitude(y):
    """Half the peak-to-peak range of a signal (the amplitude of a residual vibration)."""
    y = np.asarray(y, dtype=np.float64)
    return 0.5 * float(y.max() - y.min())
