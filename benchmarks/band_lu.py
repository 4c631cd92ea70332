"""CPU time of femb's band LU (factor + solve of a CSR band matrix, the call the compiled
time steps make at every Newton iteration) against the kernel of another revision and
against LAPACK.

Per case (n equations, bandwidths kl = ku = w, a random band matrix that is diagonally
dominant, or with a weak diagonal so that partial pivoting interchanges rows at most
steps) and per solver, µs per call: CSR entries -> band storage, LU with partial pivoting,
x = -A⁻¹ b:

- ``femb``: ``_band_refactor_solve`` of femb.solvers.linalg.factorization, called from a
  compiled loop (as the compiled steps call it);
- ``REV``: the same function as of git revision REV (``--baseline``, default 18ddc78, the
  kernel before the unsigned flat indexing), loaded as a second module;
- ``dgbsv``: LAPACK's dgbsv (scipy's cython_lapack, called from the same kind of compiled
  loop, no Python wrapper) after the copy of the CSR entries into LAPACK's band storage;
- ``solve_banded``: scipy.linalg.solve_banded on the LAPACK storage already filled (its
  Python wrapper included, the copy not).

Timing: CPU time (time.process_time) of a compiled loop of calls lasting ~``--ms`` ms,
the solvers interleaved within each of ``--repeat`` rounds, medians. Checked per case:
femb's and REV's solutions are equal bit for bit (the same operations in the same order),
and the residual ‖A x + b‖∞ / (‖A‖∞ ‖x‖∞ + ‖b‖∞). The compile time (CPU s, empty numba
cache) of femb's and REV's kernels is printed first.

    python benchmarks/band_lu.py [--sizes 30 120 300 1000 3000] [--widths 2 5 11 20]
                                 [--repeat 5] [--ms 20] [--baseline REV] [--no-pivoting]
"""
import argparse
import atexit
import ctypes
import os
import shutil
import tempfile
import time

_CACHE = tempfile.mkdtemp(prefix="femb-band-lu-")
os.environ["NUMBA_CACHE_DIR"] = _CACHE  # an empty cache: the compile times are measured here
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)

import numba  # noqa: E402
import numpy as np  # noqa: E402
import scipy.linalg as sla  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from numba.extending import get_cython_function_address  # noqa: E402
from revision import module_of_revision  # noqa: E402

from femb.solvers.linalg import factorization  # noqa: E402

MODULE = "femb/solvers/linalg/factorization.py"

_ptr = ctypes.c_void_p
_dgbsv = ctypes.CFUNCTYPE(None, *[_ptr] * 10)(get_cython_function_address("scipy.linalg.cython_lapack", "dgbsv"))


def kernel_of_revision(rev):
    """``_band_refactor_solve`` of femb/solvers/linalg/factorization.py as of git revision ``rev``."""
    return module_of_revision(rev, MODULE, "femb.solvers.linalg.factorization_baseline")._band_refactor_solve


def band_system(n, w, pivoting, rng):
    """(CSR arrays indptr, indices (int64), data, dense A (n, n), b (n,)) of a random band
    matrix with kl = ku = w: diagonally dominant, or with a diagonal 1e-3 times the
    off-diagonal entries' size (row interchanges at most steps)."""
    offsets = list(range(-w, w + 1))
    A = sp.diags([rng.standard_normal(n - abs(d)) for d in offsets], offsets, shape=(n, n), format="csr")
    A.setdiag(A.diagonal() * 1e-3 if pivoting else A.diagonal() + 4.0 * (2 * w + 1))
    A.sort_indices()
    return A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data.copy(), A.toarray(), rng.standard_normal(n)


def lapack_storage(A, w):
    """LAPACK band storage of A (kl = ku = w): (2w + w + 1, n) Fortran order, a[i, j] at
    [2w + i − j, j] (the first w rows for dgbtrf's fill)."""
    n = A.shape[0]
    ab = np.zeros((3 * w + 1, n), order="F")
    for d in range(-w, w + 1):
        ab[2 * w - d, max(d, 0):n + min(d, 0)] = np.diagonal(A, d)
    return ab


@numba.njit(cache=False)
def _loop_kernel(kernel, reps, indptr, indices, data, kl, ku, ab, piv, diag, reach, b, x):
    status = 0
    for _ in range(reps):
        status, ratio = kernel(indptr, indices, data, kl, ku, ab, piv, diag, reach, 1.0, b, x)
    return status


@numba.njit(cache=False)
def _loop_dgbsv(reps, indptr, indices, data, kl, ku, abt, ints, ipiv, b, x):
    """LAPACK dgbsv after the CSR -> band copy; abt (n, 2 kl + ku + 1) is the C-order view
    of LAPACK's Fortran band storage (row j = column j of A); ints (5,) int32 holds n, kl,
    ku, nrhs = 1, ldab. Returns LAPACK's info."""
    n, ld = abt.shape
    info = np.zeros(1, dtype=np.int32)
    for _ in range(reps):
        abt[:, :] = 0.0
        for i in range(n):
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                abt[j, kl + ku + i - j] += data[p]
        for i in range(n):
            x[i] = -b[i]
        _dgbsv(ints[0:].ctypes, ints[1:].ctypes, ints[2:].ctypes, ints[3:].ctypes, abt.ctypes, ints[4:].ctypes, ipiv.ctypes,
               x.ctypes, ints[0:].ctypes, info.ctypes)
    return info[0]


def run_case(n, w, pivoting, kernels, repeat, ms, rng):
    """One row: the interleaved timings (µs per call, medians) and the checks."""
    indptr, indices, data, A, b = band_system(n, w, pivoting, rng)
    kl = ku = w
    work = {}
    for name, kernel in kernels.items():
        work[name] = (np.zeros((n, 2 * kl + ku + 1)), np.zeros(n, np.int64), np.zeros(n), np.zeros(n, np.int64), np.empty(n))
        assert _loop_kernel(kernel, 1, indptr, indices, data, kl, ku, *work[name][:4], b, work[name][4]) == -1
    abt, ipiv, x_lapack = np.zeros((n, 2 * kl + ku + 1)), np.zeros(n, np.int32), np.empty(n)
    ints = np.array([n, kl, ku, 1, 2 * kl + ku + 1], dtype=np.int32)
    assert _loop_dgbsv(1, indptr, indices, data, kl, ku, abt, ints, ipiv, b, x_lapack) == 0
    ab_lapack = lapack_storage(A, w)
    x_scipy = -sla.solve_banded((kl, ku), ab_lapack[w:], b, check_finite=False)
    names = list(kernels)
    x = work[names[0]][4]
    for name in names[1:]:
        assert np.array_equal(work[name][4], x), f"{name} differs from {names[0]}"
    residual = np.abs(A @ x + b).max() / (np.abs(A).sum(axis=1).max() * np.abs(x).max() + np.abs(b).max())
    swaps = int((work[names[0]][1] != np.arange(n)).sum())

    def timed(call):
        reps = [1]

        def once():
            t0 = time.process_time()
            call(reps[0])
            return time.process_time() - t0

        while once() < 1e-3 * ms / 4:  # calibrate the call count to ~ms
            reps[0] *= 4
        return lambda: once() / reps[0] * 1e6

    calls = {name: timed(lambda r, k=kernel, s=work[name]: _loop_kernel(k, r, indptr, indices, data, kl, ku, *s[:4], b, s[4]))
             for name, kernel in kernels.items()}
    calls["dgbsv"] = timed(lambda r: _loop_dgbsv(r, indptr, indices, data, kl, ku, abt, ints, ipiv, b, x_lapack))
    band = ab_lapack[w:]

    def scipy_calls(r):
        for _ in range(r):
            sla.solve_banded((kl, ku), band, b, check_finite=False)

    calls["solve_banded"] = timed(scipy_calls)
    times = {name: [] for name in calls}
    for _ in range(repeat):
        for name, call in calls.items():
            times[name].append(call())
    med = {name: float(np.median(t)) for name, t in times.items()}
    dev = max(np.abs(x - x_lapack).max(), np.abs(x - x_scipy).max()) / max(np.abs(x).max(), 1e-300)
    return med, swaps, residual, dev


def compile_seconds(kernels):
    """CPU s of the first call (compilation, empty cache) of each kernel on a small system,
    after numba's own start-up (a first compilation of a small function)."""
    numba.njit(cache=False)(lambda v: v.sum())(np.ones(2))
    out = {}
    indptr, indices, data, _, b = band_system(8, 2, False, np.random.default_rng(0))
    for name, kernel in kernels.items():
        t0 = time.process_time()
        kernel(indptr, indices, data, 2, 2, np.zeros((8, 7)), np.zeros(8, np.int64), np.zeros(8), np.zeros(8, np.int64), 1.0, b,
               np.empty(8))
        out[name] = time.process_time() - t0
    return out


def main():
    """Print the table (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[30, 120, 300, 1000, 3000])
    ap.add_argument("--widths", type=int, nargs="+", default=[2, 5, 11, 20], help="kl = ku")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--ms", type=float, default=20.0, help="length of one timed loop of calls (ms)")
    ap.add_argument("--baseline", default="18ddc78", help="git revision of the kernel to compare against")
    ap.add_argument("--no-pivoting", action="store_true", help="only the diagonally dominant systems")
    a = ap.parse_args()
    kernels = {"femb": factorization._band_refactor_solve, a.baseline: kernel_of_revision(a.baseline)}
    print("load %.2f/%.2f/%.2f" % os.getloadavg())
    print("compile (CPU s, empty cache): " + ", ".join(f"{k} {v:.2f}" for k, v in compile_seconds(kernels).items()))
    head = (f"{'n':>5} {'kl+ku':>5} {'swaps':>5} | {'femb':>9} {a.baseline:>9} {'ratio':>6} | {'dgbsv':>9} {'solve_banded':>12} |"
            f" {'femb/dgbsv':>10} | {'residual':>8} {'vs LAPACK':>9}")
    print("µs per factor + solve (CPU, medians); ratio = baseline / femb")
    print(head)
    rng = np.random.default_rng(1)
    for pivoting in [False] if a.no_pivoting else [False, True]:
        print(f"-- {'weak diagonal (row interchanges)' if pivoting else 'diagonally dominant'}")
        for w in a.widths:
            for n in a.sizes:
                if n <= 2 * w:
                    continue
                med, swaps, residual, dev = run_case(n, w, pivoting, kernels, a.repeat, a.ms, rng)
                femb, base = med["femb"], med[a.baseline]
                print(f"{n:>5} {2 * w:>5} {swaps:>5} | {femb:>9.2f} {base:>9.2f} {base / femb:>6.2f} | {med['dgbsv']:>9.2f}"
                      f" {med['solve_banded']:>12.2f} | {femb / med['dgbsv']:>10.2f} | {residual:>8.1e} {dev:>9.1e}", flush=True)
    print("load %.2f/%.2f/%.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
