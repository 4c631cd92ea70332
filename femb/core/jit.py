"""The compilation decorator used by every femb kernel.

All kernels are compiled with ``cache=True`` so that the compile cost is paid once per
machine, and with fixed dtypes (float64 arrays, int64 index arrays). Setting the
environment variable ``NUMBA_DISABLE_JIT=1`` runs the same kernels as plain Python, which
the test suite uses to check the kernels against their numpy references.

Cache validity. numba keys a cached function by its own source file only: a cached kernel
that calls a compiled helper of another file (every element kernel calls
femb.core.rotations, the shell kernels call the shared frame module) keeps the old
helper's machine code after that file changes — stale results, even NaN, with no error.
femb therefore keeps its cache in a folder named after a digest of every source file that
holds compiled code (``KERNEL_SOURCES``): changing any of them starts a new cache. The
folder lies under ``NUMBA_CACHE_DIR`` when that is set, else under the user's cache folder
(``$XDG_CACHE_HOME`` or ``~/.cache``)/femb; older digests' folders are left for the user
to delete.
"""
import hashlib
import os
from pathlib import Path

import numba

prange = numba.prange

_FEMB = Path(__file__).resolve().parents[1]
_ELEMENTS = _FEMB.parent / "elements"  # femb.elements lives in elements/ of the checkout


# single kernel modules beside the code that uses them (outside the folders above)
KERNEL_FILES = [_FEMB / "solvers" / "dynamics" / "midpoint2d_kernels.py"]


def kernel_sources():
    """The source files whose functions femb compiles (every module that uses ``jit``)."""
    roots = [_FEMB / "core", _FEMB / "correlation", _FEMB / "assembly" / "joints", _FEMB / "solvers" / "linalg", _ELEMENTS]
    try:  # an installed (non-editable) femb keeps femb.elements beside the other packages
        import importlib.util

        spec = importlib.util.find_spec("femb.elements")
        if spec is not None and spec.submodule_search_locations:
            roots.append(Path(list(spec.submodule_search_locations)[0]))
    except (ImportError, ValueError):
        pass
    files = set()
    for root in roots:
        if root.is_dir():
            files.update(p.resolve() for p in root.glob("*.py"))
    files.update(p.resolve() for p in KERNEL_FILES if p.is_file())
    return sorted(files)


def kernel_digest():
    """A digest (16 hex digits) of the contents of every kernel source file."""
    h = hashlib.sha256()
    for path in kernel_sources():
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _cache_root():
    base = os.environ.get("NUMBA_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "femb"


CACHE_DIR = _cache_root() / f"femb-kernels-{kernel_digest()}"
numba.config.CACHE_DIR = str(CACHE_DIR)


def jit(func=None, *, parallel=False):
    """Compile ``func`` in nopython mode with on-disk caching (in ``CACHE_DIR``).

    Use as ``@jit`` or ``@jit(parallel=True)`` (the latter for kernels whose element loop
    is a ``prange`` with no write conflicts).
    """
    options = dict(cache=True, fastmath=False, parallel=parallel)
    if func is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(func)
