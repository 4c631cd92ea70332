"""Sparse linear solves with diagnostics instead of raw scipy failures.

``Factorization``: sparse LU of any matrix (SuperLU; MKL PARDISO for large systems when the
optional pypardiso is installed, femb.solvers.linalg.pardiso), naming the DOFs of a
singular one.
``BandLU``: compiled LU with partial pivoting of a band matrix given in CSR (beams, chains
and other tables numbered by reverse Cuthill–McKee), for the many factorizations of a
time-stepping Newton iteration: no wrapper calls and no copy into LAPACK storage, which
dominate small systems. Copy from CSR, factorization and solve together
(benchmarks/band_lu.py): 6 µs for 120 equations of bandwidth 5 + 5, 0.15 ms for 3000,
half the time of LAPACK's dgbsv called without a wrapper (after the same copy).
``band_factor_solve`` factorizes and solves a band matrix assembled straight into the band
storage (``band_scatter_matrix``, ``band_positions``: the compiled 3-D beam steps, which
keep no CSR data of their Newton matrix).
"""
from typing import Any, NamedTuple, Optional, Union

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from femb.core import jit
from femb.core.errors import FembError
from femb.solvers.linalg.pardiso import pardiso_factor


class SingularSystemError(FembError, RuntimeError):
    """The system matrix is singular: usually a mechanism (unsupported rigid-body motion)
    or a DOF no element stiffens. ``dofs`` lists (node, dof) pairs involved."""

    def __init__(self, message, dofs=()):
        self.dofs = list(dofs)
        if self.dofs:
            shown = ", ".join(f"node {n} {d}" for n, d in self.dofs[:12])
            message += f"\n  free DOFs without stiffness (likely unsupported): {shown}"
        super().__init__(message)


def _suspect_dofs(K, table, count=12, index_map=None):
    """DOFs with (near-)zero diagonal or in the null space of K, named via the table
    (``index_map`` maps matrix rows to equations when K is a reduced matrix)."""
    diag = np.abs(K.diagonal())
    scale = diag.max() if diag.size else 1.0
    weak = np.flatnonzero(diag <= 1e-12 * scale)
    if weak.size == 0 and K.shape[0] <= 3000:
        # dense null-space probe for moderate sizes: the DOFs moving most in the softest mode
        w, v = np.linalg.eigh(0.5 * (K + K.T).toarray())
        soft = np.argmin(np.abs(w))
        weak = np.argsort(-np.abs(v[:, soft]))[:count]
    eqs = weak[:count] if index_map is None else np.asarray(index_map)[weak[:count]]
    return [table.describe_var(table.eq_var[i]) for i in eqs]


class Factorization:
    """LU factorization of a sparse matrix over the equations of ``table`` (or over the
    equations ``index_map`` selects, for reduced matrices); ``solve(b)``. A singular
    matrix raises SingularSystemError naming the DOFs involved. SuperLU (COLAMD ordering),
    or MKL PARDISO as ``femb.solvers.linalg.pardiso.use_pardiso`` decides (large systems,
    pypardiso installed, the environment variable FEMB_SPARSE_SOLVER)."""

    def __init__(self, K, table=None, context="system", index_map=None):
        self.shape = K.shape
        if K.shape[0] == 0:
            self._lu = None
            return
        if not np.all(np.isfinite(K.data)):
            raise FembError(f"{context} matrix contains NaN or Inf entries (a diverged state or bad input)")
        self._lu = pardiso_factor(K)
        if self._lu is not None:
            return
        try:
            self._lu = spla.splu(K.tocsc(), permc_spec="COLAMD")
        except RuntimeError as exc:
            dofs = _suspect_dofs(K, table, index_map=index_map) if table is not None else []
            raise SingularSystemError(f"{context} matrix is singular ({exc})", dofs) from None
        d = np.abs(self._lu.U.diagonal())
        if d.size and d.min() <= 1e-13 * d.max():
            dofs = _suspect_dofs(K, table, index_map=index_map) if table is not None else []
            raise SingularSystemError(f"{context} matrix is numerically singular (pivot ratio {d.min() / d.max():.1e})", dofs)

    def solve(self, b):
        if self._lu is None:
            return np.zeros_like(b)
        return self._lu.solve(b)


# --------------------------------------------------------------------------- band LU
def band_widths(K):
    """Lower and upper bandwidth (kl, ku) of the pattern of the square CSR matrix ``K``."""
    return pattern_band_widths(K.indptr, K.indices)


def pattern_band_widths(indptr, indices):
    """Lower and upper bandwidth (kl, ku) of a square CSR pattern (``indptr`` (n + 1,),
    ``indices`` (nnz,)): from the smallest and largest column of each row (work of the
    size n, none of the size nnz)."""
    indptr = np.asarray(indptr)
    rows = np.flatnonzero(indptr[1:] > indptr[:-1])
    if rows.size == 0:
        return 0, 0
    cols = np.asarray(indices)[:indptr[-1]]
    start = indptr[rows]
    kl = (rows - np.minimum.reduceat(cols, start)).max()
    ku = (np.maximum.reduceat(cols, start) - rows).max()
    return int(max(kl, 0)), int(max(ku, 0))


# The band kernels index the row-major storage ``ab`` through its flat view with unsigned
# indices: numba wraps a signed index that is negative (three extra instructions per access
# in the innermost loops, and no vectorization of the row updates), which an unsigned one
# skips. Every index below is non-negative by construction.
_u = np.uint64


@jit(inline="always")  # a formula: compiled into each caller
def band_row_start(i, kl, w):
    """Flat index of column 0 of row i in the row-band storage ab (n, w), C order, that
    holds A[i, j] at ab[i, j − i + kl]: A[i, j] is at band_row_start(i, kl, w) + j of
    ab's flat view."""
    return i * (w - 1) + kl


@jit(inline="always")  # one call site, in _band_refactor: no library of its own
def _band_fill(indptr, indices, data, kl, ab):
    """ab[i, j − i + kl] = K[i, j] (CSR entries summed); ab (n, 2 kl + ku + 1), C order,
    zeroed first. Returns False when an entry is NaN or Inf."""
    n, w = ab.shape
    a = ab.reshape(n * w)
    for t in range(n * w):
        a[t] = 0.0
    for i in range(n):
        row = band_row_start(i, kl, w)  # column j of row i at row + j
        for p in range(indptr[i], indptr[i + 1]):
            a[_u(row + indices[_u(p)])] += data[_u(p)]
    return _all_finite(data, indptr[0], indptr[n])


@jit(inline="always")  # compiled into _band_fill and band_factor_solve
def _all_finite(values, start, stop):
    """False when one of values[start:stop] is NaN or ±Inf (its own loop: an
    and-reduction, vectorized)."""
    finite = True
    for p in range(start, stop):
        x = values[_u(p)]
        finite &= x - x == 0.0  # False for NaN and ±Inf
    return finite


@jit(inline="always")  # one call site, in _factor_with_ratio: no library of its own
def _band_factor(ab, kl, ku, piv, diag, reach, threshold):
    """In-place LU with (threshold) partial pivoting, LINPACK gbfa order, of the row-band
    storage ab (n, 2 kl + ku + 1), C order; a row interchange only when |diagonal| <
    threshold × the column's largest.

    Row i of ab holds columns i − kl .. i + kl + ku (the extra kl for the fill of row
    interchanges). After return, row i holds U[i, i..] from offset kl on and, below the
    diagonal of column k, the multipliers of elimination step k; piv[k] is the row swapped
    with k at step k; diag (n,) the pivots U[k, k]; reach (n,) the last column each row of
    U may fill (i + ku without interchanges, so that the work is n·kl·ku unless pivoting
    widens the band; the entries of row i beyond reach[i] stay zero). Returns the first
    step with a zero pivot column, or −1.

    Flat indices: entry (i, j) sits at i·(w − 1) + j + kl, so going down a column adds
    w − 1 and along a row adds 1; kk is the diagonal entry of step k."""
    n, w = ab.shape
    a = ab.reshape(n * w)
    down = w - 1
    for i in range(n):
        reach[i] = min(n - 1, i + ku)
    for k in range(n):
        last = min(n - 1, k + kl)
        kk = k * w + kl
        p = k
        big = abs(a[_u(kk)])
        q = kk
        for i in range(k + 1, last + 1):
            q += down
            v = abs(a[_u(q)])
            if v > big:
                big = v
                p = i
        if p != k and abs(a[_u(kk)]) >= threshold * big:
            p = k  # threshold pivoting: keep the diagonal when it is within the threshold of the largest
        piv[k] = p
        if big == 0.0:
            diag[k] = 0.0
            return k
        if p != k:
            right = max(reach[k], reach[p])
            qp = kk + (p - k) * down  # (p, k)
            for c in range(right - k + 1):
                t = a[_u(kk + c)]
                a[_u(kk + c)] = a[_u(qp + c)]
                a[_u(qp + c)] = t
            reach[k] = right
            reach[p] = right
        right = reach[k]
        pivot = a[_u(kk)]
        diag[k] = pivot
        inv = 1.0 / pivot
        width = right - k
        q = kk
        for i in range(k + 1, last + 1):
            q += down  # (i, k)
            m = a[_u(q)] * inv
            a[_u(q)] = m
            if m != 0.0:
                off = kk - q  # from (i, j) to (k, j)
                for t in range(q + 1, q + width + 1):
                    a[_u(t)] -= m * a[_u(t + off)]
                if reach[i] < right:
                    reach[i] = right
    return -1


@jit
def _band_solve(ab, kl, piv, reach, b, x):
    """x = A⁻¹ b from the factors of ``_band_factor`` (b (n,) is not modified; x (n,))."""
    n, w = ab.shape
    a = ab.reshape(n * w)
    down = w - 1
    for i in range(n):
        x[i] = b[i]
    for k in range(n):
        p = piv[k]
        if p != k:
            t = x[k]
            x[k] = x[p]
            x[p] = t
        xk = x[k]
        if xk != 0.0:
            q = k * w + kl
            for i in range(k + 1, min(n - 1, k + kl) + 1):
                q += down  # (i, k)
                x[_u(i)] -= a[_u(q)] * xk
    for i in range(n - 1, -1, -1):
        s = x[i]
        row = i * down + kl
        for j in range(i + 1, reach[i] + 1):
            s -= a[_u(row + j)] * x[_u(j)]
        x[i] = s / a[_u(row + i)]


@jit(inline="always")  # one call site, in _factor_with_ratio: no library of its own
def _pivot_ratio(diag):
    """min |d| / max |d| (0 for an all-zero d)."""
    lo, hi = np.inf, 0.0
    for x in diag:
        a = abs(x)
        lo = min(lo, a)
        hi = max(hi, a)
    return lo / hi if hi > 0.0 else 0.0


@jit(inline="always")  # compiled into _band_refactor_solve (the step kernels' call) and, for BandLU, on its own
def _band_refactor(indptr, indices, data, kl, ku, ab, piv, diag, reach, threshold):
    """``_band_fill``, ``_band_factor`` and ``_pivot_ratio`` in one call (one dispatch
    instead of three: small Newton matrices are refactorized at every iteration).
    Returns (status, pivot ratio): status −2 for a NaN or Inf entry, else the result of
    ``_band_factor`` (−1 on success); the ratio is set on success only (else 0)."""
    if not _band_fill(indptr, indices, data, kl, ab):
        return -2, 0.0
    return _factor_with_ratio(ab, kl, ku, piv, diag, reach, threshold)


@jit(inline="always")  # compiled into _band_refactor and band_factor_solve
def _factor_with_ratio(ab, kl, ku, piv, diag, reach, threshold):
    """``_band_factor`` of the filled storage ab and, on success, ``_pivot_ratio``:
    (status, pivot ratio) as ``_band_refactor`` returns them."""
    bad = _band_factor(ab, kl, ku, piv, diag, reach, threshold)
    if bad >= 0:
        return bad, 0.0
    return -1, _pivot_ratio(diag)


@jit(inline="always")  # compiled into _band_refactor_solve and band_factor_solve
def _solve_negated(ab, kl, piv, reach, b, x):
    """x = −A⁻¹ b (``_band_solve``, negated): the Newton correction from the factors."""
    _band_solve(ab, kl, piv, reach, b, x)
    for i in range(x.size):
        x[i] = -x[i]


@jit
def _band_refactor_solve(indptr, indices, data, kl, ku, ab, piv, diag, reach, threshold, b, x):
    """``_band_refactor`` followed, on success, by x = −A⁻¹ b (``_band_solve``, negated):
    the Newton correction of a band matrix in one call. Returns (status, pivot ratio)."""
    status, ratio = _band_refactor(indptr, indices, data, kl, ku, ab, piv, diag, reach, threshold)
    if status == -1:
        _solve_negated(ab, kl, piv, reach, b, x)
    return status, ratio


@jit
def band_factor_solve(ab, kl, ku, piv, diag, reach, threshold, b, x):
    """The Newton correction x = −A⁻¹ b (b, x (n,)) of a band matrix A assembled in place in
    the row-band storage ``ab`` (n, 2 kl + ku + 1) (the layout ``_band_fill`` writes:
    A[i, j] at ab[i, j − i + kl], the rest zero; ``band_scatter_matrix``), factorized there:
    ``_band_refactor_solve`` without the CSR data. Returns (status, pivot ratio) as
    ``_band_refactor``: −2 for a NaN or Inf entry."""
    if not _all_finite(ab.reshape(ab.size), 0, ab.size):  # (the zeros outside the pattern are finite)
        return -2, 0.0
    status, ratio = _factor_with_ratio(ab, kl, ku, piv, diag, reach, threshold)
    if status == -1:
        _solve_negated(ab, kl, piv, reach, b, x)
    return status, ratio


@jit(internal=True)
def band_scatter_matrix(var, pos, var_eq, ke, kl, ab):
    """ab[i, j − i + kl] += ke[e, a, b] with i, j = var_eq[var[e, a]], var_eq[var[e, b]]
    (var (n_el, n_dof) variables, var_eq (n_var,) their equations) for the entries with
    pos[e, a, b] ≥ 0 (CSR positions of the table's pattern, femb.core.scatter.scatter_matrix):
    the element matrices ke (n_el, n_dof, n_dof) assembled straight into the row-band
    storage ab (n_eq, 2 kl + ku + 1), each entry receiving the additions that the CSR datum
    of ``scatter_matrix`` receives, in the same order."""
    n_el, n_dof, _ = pos.shape
    n, w = ab.shape
    a = ab.reshape(n * w)
    for e in range(n_el):
        for r in range(n_dof):
            row = band_row_start(var_eq[var[e, r]], kl, w)  # (not used when pos < 0)
            for c in range(n_dof):
                if pos[e, r, c] >= 0:
                    a[_u(row + var_eq[var[e, c]])] += ke[e, r, c]


@jit(internal=True)
def band_positions(indptr, indices, positions, kl, w, out):
    """out[q] = the flat index ``band_row_start(i, kl, w)`` + j in the row-band storage (n, w) of the CSR
    entry positions[q] (ascending positions in the data of the pattern indptr (n + 1,),
    indices; i its row, j = indices[positions[q]])."""
    i = 0
    for q in range(positions.size):
        p = positions[q]
        while indptr[i + 1] <= p:
            i += 1
        out[q] = band_row_start(i, kl, w) + indices[p]


class BandLU:
    """LU factorization with partial pivoting of a square band matrix given in CSR.

    ``BandLU(K)`` factorizes (bandwidths from K's pattern, or ``kl``/``ku`` given);
    ``factorize(K)`` refactorizes a matrix of the same size and bandwidths into the same
    storage (no allocation); ``solve(b)`` returns K⁻¹b (n,). ``pivot_ratio`` is
    min |U_kk| / max |U_kk|. A zero pivot column raises SingularSystemError naming the
    equation (and, with ``table``, the DOFs involved, see ``Factorization``); numerically
    near-singular matrices are for the caller to judge from ``pivot_ratio``.

    ``threshold`` (0..1]: a row interchange is made only when the diagonal entry is below
    ``threshold`` × the largest entry of its column (1: partial pivoting, the default;
    smaller values trade growth-factor bounds for fewer interchanges, hence less fill).

    Storage n × (2 kl + ku + 1) floats, work n·kl·ku (up to n·kl·(kl + ku) when row
    interchanges widen the band): meant for bandwidths up to a few dozen (check with
    ``band_widths`` first).
    """

    def __init__(self, K, table=None, context="system", kl=None, ku=None, threshold=1.0):
        n = K.shape[0]
        if K.shape != (n, n):
            raise ValueError(f"BandLU needs a square matrix, got shape {K.shape}")
        if kl is None or ku is None:
            kl, ku = band_widths(K)
        self.n, self.kl, self.ku = n, int(kl), int(ku)
        self.table, self.context = table, context
        self.threshold = float(threshold)
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"BandLU threshold must lie in (0, 1], got {threshold}")
        self.ab = np.zeros((n, 2 * self.kl + self.ku + 1))
        self.piv = np.zeros(n, dtype=np.int64)
        self.diag = np.zeros(n)
        self.reach = np.zeros(n, dtype=np.int64)
        self.pivot_ratio = 1.0
        self.factorize(K)

    def factorize(self, K):
        if K.shape[0] != self.n:
            raise ValueError(f"BandLU was built for {self.n} equations, got a matrix of shape {K.shape}")
        if self.n == 0:
            return self
        status, ratio = _band_refactor(K.indptr, K.indices, np.asarray(K.data, dtype=np.float64), self.kl, self.ku, self.ab,
                                       self.piv, self.diag, self.reach, self.threshold)
        if status == -2:
            raise FembError(f"{self.context} matrix contains NaN or Inf entries (a diverged state or bad input)")
        if status >= 0:
            self.pivot_ratio = 0.0
            dofs = _suspect_dofs(K.tocsr(), self.table) if self.table is not None else []
            raise SingularSystemError(f"{self.context} matrix is singular (zero pivot column at equation {status})", dofs)
        self.pivot_ratio = ratio
        return self

    def factorize_solve(self, K, b):
        """Refactorize with K (as ``factorize``) and return −K⁻¹ b (b (n,) float64): a
        Newton correction in one compiled call."""
        if K.shape[0] != self.n or self.n == 0:
            self.factorize(K)
            return -self.solve(b)
        x = np.empty(self.n)
        status, ratio = _band_refactor_solve(K.indptr, K.indices, np.asarray(K.data, dtype=np.float64), self.kl, self.ku, self.ab,
                                             self.piv, self.diag, self.reach, self.threshold, np.asarray(b, dtype=np.float64), x)
        if status != -1:
            self.factorize(K)  # raises with the diagnostics
        self.pivot_ratio = ratio
        return x

    def solve(self, b, out=None):
        """K⁻¹ b for b (n,) (float64); ``out`` (n,) optional."""
        out = np.empty(self.n) if out is None else out
        if self.n:
            _band_solve(self.ab, self.kl, self.piv, self.reach, np.asarray(b, dtype=np.float64), out)
        return out


BAND_LIMIT = 64  # lower + upper bandwidth up to which ``factorize`` uses the compiled band LU


def factorize(K, table=None, context="system"):
    """LU factorization of a square sparse matrix ``K`` (n, n) over the equations of
    ``table``, with ``solve(b)``: the compiled ``BandLU`` when its bandwidths add up to at
    most BAND_LIMIT (beams, chains and strips numbered by the table's reverse Cuthill–McKee:
    a few µs instead of the ~0.1 ms of SuperLU's wrapper on tens of equations), else
    ``Factorization`` (SuperLU). Either way a singular matrix raises SingularSystemError
    naming the DOFs involved (pivot ratio ≤ 1e-13, as ``Factorization``)."""
    n = K.shape[0]
    if n:
        K = K.tocsr()
        kl, ku = band_widths(K)
        if kl + ku <= BAND_LIMIT:
            return _band_lu(K, table, context, kl, ku)
    return Factorization(K, table, context=context)


def _band_lu(K, table, context, kl, ku):
    """``BandLU`` of K (CSR, or ``CSRArrays``) with the near-singularity test of ``factorize``."""
    lu = BandLU(K, table, context, kl, ku)
    if not lu.pivot_ratio > 1e-13:
        dofs = _suspect_dofs(K.tocsr(), table) if table is not None else []
        raise SingularSystemError(f"{context} matrix is numerically singular (pivot ratio {lu.pivot_ratio:.1e})", dofs)
    return lu


class CSRArrays(NamedTuple):
    """A square CSR matrix as its arrays, what ``BandLU`` reads (no scipy matrix)."""

    shape: tuple[int, int]
    indptr: np.ndarray
    """(n + 1,) int64"""
    indices: np.ndarray
    """(nnz,) int64, the columns of each row"""
    data: np.ndarray
    """(nnz,) float64"""

    def tocsr(self) -> sp.csr_matrix:
        """The scipy CSR matrix."""
        return sp.csr_matrix((self.data, self.indices, self.indptr), shape=self.shape)


def factorize_csr(n: int, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, table: Optional[Any] = None,
                  context: str = "system") -> Union["BandLU", "Factorization"]:
    """``factorize`` of the square CSR matrix (n, n) given by its arrays (indptr (n + 1,),
    indices (nnz,) int64, data (nnz,)): a band matrix goes to ``BandLU`` without the scipy
    matrix, whose construction checks cost ~20 µs, more than a small band factorization."""
    kl, ku = pattern_band_widths(indptr, indices)
    K = CSRArrays((n, n), indptr, indices, data)
    if n and kl + ku <= BAND_LIMIT:
        return _band_lu(K, table, context, kl, ku)
    return factorize(K.tocsr(), table, context)
