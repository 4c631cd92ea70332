"""Small dense linear algebra for compiled whole steps (femb.solvers.dynamics): the
Euclidean norm as a compiled loop, the residual threshold of the Newton tests and, for the null-space elimination of joint equations
(femb.solvers.dynamics.rigid_step_kernels), the column choice of QR with column pivoting
(LAPACK's dlaqp2, as femb.solvers.linalg.nullspace) and an LU factorization with partial
pivoting that visits only the rows and columns the sparse joint Jacobians can fill, whose
triangular solves (one or several right-hand sides) skip their exact zeros.

Arrays are float64 (matrices C-contiguous, n × n or as stated) and int64 (permutations,
ranges); all functions are compiled with femb.core.jit."""
import math

import numpy as np

from femb.core.jit import jit


@jit(internal=True)
def euclidean_norm(x):
    """‖x‖₂ of a 1-D float64 array (a compiled loop, for the whole-step kernels)."""
    s = 0.0
    for i in range(x.size):
        s += x[i] * x[i]
    return math.sqrt(s)


@jit
def residual_threshold(tol, atol, scale):
    """The residual norm below which a state is converged (NewtonSettings.residual_threshold):
    the absolute tolerance ``atol`` when given (not NaN), else tol·scale."""
    return tol * scale if atol != atol else atol


@jit(internal=True)
def pivoted_columns(W, m):
    """The m columns (sorted, local indices) that QR with column pivoting of A (m, k) picks
    first: LAPACK dlaqp2's greedy choice (largest remaining column norm, first on ties,
    norms downdated and recomputed as dlaqp2 does). Takes W = Aᵀ (k, m) (columns
    contiguous; overwritten); the reflectors skip the exact zeros of the sparse joint
    Jacobians (no change to the arithmetic on the non-zeros)."""
    k = W.shape[0]
    vn1 = np.empty(k)
    vn2 = np.empty(k)
    piv = np.arange(k)
    for j in range(k):
        vn1[j] = euclidean_norm(W[j])
        vn2[j] = vn1[j]
    tol3z = math.sqrt(np.finfo(np.float64).eps)
    v = np.empty(m)
    nzr = np.empty(m, dtype=np.int64)
    for i in range(min(m, k)):
        p = i
        best = vn1[i]
        for j in range(i + 1, k):
            if vn1[j] > best:
                best = vn1[j]
                p = j
        if p != i:
            for r in range(m):
                t = W[p, r]
                W[p, r] = W[i, r]
                W[i, r] = t
            piv[p], piv[i] = piv[i], piv[p]
            vn1[p] = vn1[i]
            vn2[p] = vn2[i]
        # Householder reflector of column i below the diagonal (dlarfg)
        wi = W[i]
        alpha = wi[i]
        xnorm = euclidean_norm(wi[i + 1:])
        if xnorm != 0.0:
            beta = -math.copysign(math.hypot(alpha, xnorm), alpha)
            tau = (beta - alpha) / beta
            scal = 1.0 / (alpha - beta)
            nz = 0
            v[i] = 1.0
            nzr[nz] = i
            nz += 1
            for r in range(i + 1, m):
                v[r] = wi[r] * scal
                wi[r] = v[r]
                if v[r] != 0.0:
                    nzr[nz] = r
                    nz += 1
            wi[i] = beta
            for j in range(i + 1, k):  # apply I − τ v vᵀ to the remaining columns
                wj = W[j]
                sj = 0.0
                for q in range(nz):
                    sj += v[nzr[q]] * wj[nzr[q]]
                if sj == 0.0:
                    continue
                sj *= tau
                for q in range(nz):
                    wj[nzr[q]] -= sj * v[nzr[q]]
        for j in range(i + 1, k):  # downdate the partial column norms
            if vn1[j] != 0.0:
                temp = 1.0 - (abs(W[j, i]) / vn1[j]) ** 2
                temp = max(temp, 0.0)
                temp2 = temp * (vn1[j] / vn2[j]) ** 2
                if temp2 <= tol3z:
                    if i < m - 1:
                        vn1[j] = euclidean_norm(W[j, i + 1:])
                        vn2[j] = vn1[j]
                    else:
                        vn1[j] = 0.0
                        vn2[j] = 0.0
                else:
                    vn1[j] *= math.sqrt(temp)
    out = piv[:m].copy()
    for i in range(1, m):  # insertion sort (m small)
        x = out[i]
        j = i - 1
        while j >= 0 and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x
    return out


@jit
def lu_factor(A, perm):
    """LU with partial pivoting of A (n, n) in place (PA = LU, the row order in ``perm``),
    skipping zero multipliers and zero entries of the pivot rows (sparse joint Jacobians);
    returns the pivot ratio min|u_ii| / max|u_ii| (0 with a zero pivot)."""
    n = A.shape[0]
    return lu_factor_bands(A, perm, np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64))


@jit(internal=True)
def lu_factor_bands(A, perm, lo, hi):
    """``lu_factor`` that also writes row ranges of the factors for the triangular solves:
    L[i, lo[i]:i] and U[i, i + 1:hi[i]] hold every non-zero (the ranges of ``lu_bands`` or
    wider by exact zeros, which leave the solves unchanged). The elimination visits only the
    rows that can hold a non-zero in the pivot column (the lowest such row of each column
    and the last non-zero of each row are tracked through swaps and fill-in): the same
    pivots and arithmetic as the dense loop, in time proportional to the bands."""
    n = A.shape[0]
    bot = np.full(n, -1, dtype=np.int64)  # lowest row that may hold a non-zero, per column
    for r in range(n):
        e = 0
        for c in range(n):
            if A[r, c] != 0.0:
                e = c + 1
                if r > bot[c]:
                    bot[c] = r
        hi[r] = e  # one past the last non-zero of each row
    return lu_factor_pattern(A, perm, lo, hi, bot)


@jit(internal=True)
def lu_factor_pattern(A, perm, lo, hi, bot):
    """``lu_factor_bands`` given where A (n, n) can be non-zero: ``hi`` (n,) one past the
    last such column of each row, ``bot`` (n,) the lowest such row of each column (−1:
    none; overwritten); every entry outside is an exact zero."""
    n = A.shape[0]
    cols = np.empty(n, dtype=np.int64)
    for i in range(n):
        perm[i] = i
        lo[i] = n  # first multiplier of each row (n: none yet)
    for i in range(n):
        p = i
        best = abs(A[i, i])
        for r in range(i + 1, bot[i] + 1):
            if abs(A[r, i]) > best:
                best = abs(A[r, i])
                p = r
        if p != i:
            for c in range(max(hi[i], hi[p])):
                t = A[i, c]
                A[i, c] = A[p, c]
                A[p, c] = t
            perm[i], perm[p] = perm[p], perm[i]
            hi[i], hi[p] = hi[p], hi[i]
            lo[i], lo[p] = lo[p], lo[i]
            for c in range(i, hi[p]):  # the former row i now at p
                if A[p, c] != 0.0 and p > bot[c]:
                    bot[c] = p
        piv = A[i, i]
        if piv == 0.0:
            return 0.0
        nc = 0
        for c in range(i + 1, hi[i]):
            if A[i, c] != 0.0:
                cols[nc] = c
                nc += 1
        for r in range(i + 1, bot[i] + 1):
            if A[r, i] == 0.0:
                continue
            f = A[r, i] / piv
            A[r, i] = f
            if lo[r] > i:
                lo[r] = i
            for q in range(nc):
                c = cols[q]
                A[r, c] -= f * A[i, c]
                if r > bot[c]:
                    bot[c] = r
            if nc and hi[r] < cols[nc - 1] + 1:
                hi[r] = cols[nc - 1] + 1
    for i in range(n):
        lo[i] = min(lo[i], i)
        hi[i] = max(hi[i], i + 1)
    if n == 0:
        return 1.0
    dmin, dmax = np.inf, 0.0
    for i in range(n):
        d = abs(A[i, i])
        dmin = min(dmin, d)
        dmax = max(dmax, d)
    return dmin / dmax


@jit(internal=True)
def lu_bands(LU, lo, hi):
    """The non-zero range of each row of ``lu_factor``'s factors: L[i, lo[i]:i] and
    U[i, i + 1:hi[i]] (the elimination of the sparse joint Jacobians keeps narrow bands)."""
    n = LU.shape[0]
    for i in range(n):
        a = i
        for c in range(i):
            if LU[i, c] != 0.0:
                a = c
                break
        lo[i] = a
        e = i + 1
        for c in range(n - 1, i, -1):
            if LU[i, c] != 0.0:
                e = c + 1
                break
        hi[i] = e


@jit
def lu_solve(LU, perm, lo, hi, b, out):
    """out (n,) = A⁻¹ b from ``lu_factor``'s factors and their row ranges (``lu_bands``; the
    terms outside them are exact zeros)."""
    n = LU.shape[0]
    for i in range(n):
        s = b[perm[i]]
        for c in range(lo[i], i):
            s -= LU[i, c] * out[c]
        out[i] = s
    for i in range(n - 1, -1, -1):
        s = out[i]
        for c in range(i + 1, hi[i]):
            s -= LU[i, c] * out[c]
        out[i] = s / LU[i, i]


@jit(internal=True)
def lu_solve_many(LU, perm, lo, hi, B, X):
    """X (n, k) = A⁻¹ B (B (n, k)) from ``lu_factor``'s factors and their row ranges: the
    k right-hand sides of ``lu_solve`` at once, row by row (the same operations in the same
    order on every column), skipping the factors' exact zeros inside the row ranges. With a
    finite B such a term subtracts ±0, which leaves every value as it is; only an entry that
    is −0 at that point could have turned into +0 by it."""
    n, k = B.shape
    for i in range(n):
        xi = X[i]
        bi = B[perm[i]]
        for j in range(k):
            xi[j] = bi[j]
        for c in range(lo[i], i):
            f = LU[i, c]
            if f == 0.0:
                continue
            xc = X[c]
            for j in range(k):
                xi[j] -= f * xc[j]
    for i in range(n - 1, -1, -1):
        xi = X[i]
        for c in range(i + 1, hi[i]):
            f = LU[i, c]
            if f == 0.0:
                continue
            xc = X[c]
            for j in range(k):
                xi[j] -= f * xc[j]
        d = LU[i, i]
        for j in range(k):
            xi[j] = xi[j] / d


@jit(internal=True)
def lu_solve_t(LU, perm, lo, hi, b, out):
    """out (n,) = A⁻ᵀ b from ``lu_factor``'s factors and their row ranges (``lu_bands``): Uᵀ y = b
    and Lᵀ w = y by rows of U and L (each known unknown is eliminated from the later ones
    along its row's non-zero range), out = Pᵀ w."""
    n = LU.shape[0]
    y = np.empty(n)
    for i in range(n):
        y[i] = b[i]
    for i in range(n):
        y[i] = y[i] / LU[i, i]
        yi = y[i]
        for c in range(i + 1, hi[i]):
            y[c] -= LU[i, c] * yi
    for i in range(n - 1, -1, -1):
        wi = y[i]
        for c in range(lo[i], i):
            y[c] -= LU[i, c] * wi
    for i in range(n):
        out[perm[i]] = y[i]
