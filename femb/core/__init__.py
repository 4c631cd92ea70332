"""Layer 0 of femb: the only package that imports numba.

Holds the `jit` decorator every compiled kernel uses, batched small-vector and rotation
helpers, and the scatter kernels that add element blocks into global arrays.
"""
from femb.core.jit import jit, prange
from femb.core.errors import FembError, InputError, ModelError, ConvergenceError

__all__ = ["jit", "prange", "FembError", "InputError", "ModelError", "ConvergenceError"]
