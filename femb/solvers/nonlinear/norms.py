"""Euclidean norm of a 1-D vector without numpy.linalg.norm's dispatch overhead.

``vector_norm(x)`` computes exactly what ``np.linalg.norm(x)`` computes for a real 1-D
array (the square root of x·x), bit for bit, in a fraction of its per-call cost: the Newton
loops of small time steps call it a dozen times per step."""
import math

import numpy as np


def vector_norm(x):
    """‖x‖₂ of a real array (flattened), as a Python float (identical to float(np.linalg.norm(x)))."""
    if type(x) is not np.ndarray or x.ndim != 1 or not x.flags.c_contiguous or x.dtype != np.float64:
        return float(np.linalg.norm(np.ravel(x, order="K")))
    return math.sqrt(x.dot(x))
