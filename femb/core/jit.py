"""The compilation decorator used by every femb kernel.

All kernels are compiled with ``cache=True`` so that the compile cost is paid once per
machine, and with fixed dtypes (float64 arrays, int64 index arrays). Setting the
environment variable ``NUMBA_DISABLE_JIT=1`` runs the same kernels as plain Python, which
the test suite uses to check the kernels against their numpy references.
"""
import numba

prange = numba.prange


def jit(func=None, *, parallel=False):
    """Compile ``func`` in nopython mode with on-disk caching.

    Use as ``@jit`` or ``@jit(parallel=True)`` (the latter for kernels whose element loop
    is a ``prange`` with no write conflicts).
    """
    options = dict(cache=True, fastmath=False, parallel=parallel)
    if func is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(func)
