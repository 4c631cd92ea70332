"""Euclidean norm of a 1-D vector without numpy.linalg.norm's dispatch overhead.

``vector_norm(x)`` computes exactly what ``np.linalg.norm(x)`` computes for a real 1-D
array (the square root of x·x), bit for bit, in a fraction of its per-call cost: the Newton
loops of small time steps call it a dozen times per step."""
import math

import numpy as np

_F64 = np.dtype(np.float64)


def vector_norm(x):
    """‖x‖₂ of a real array (flattened), as a Python float (identical to float(np.linalg.norm(x)))."""
    # fast path: a contiguous 1-D float64 ndarray (strides (8,); the dtype object compared by
    # identity, a non-native byte order is another object and takes the general path)
    if type(x) is np.ndarray and x.dtype is _F64 and x.strides == (8,):
        return math.sqrt(x.dot(x))
    return float(np.linalg.norm(np.ravel(x, order="K")))
