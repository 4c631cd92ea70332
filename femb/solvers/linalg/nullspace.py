"""Elimination of Lagrange multipliers by a null-space projection (coordinate partitioning).

For the constrained Newton system

    K δq + Ḡᵀ λ = −r,      G δq = −Φ,

the equations are split into dependent coordinates d (chosen by pivoted QR of G, so G_d is
well conditioned) and independent ones i. With N = [−G_d⁻¹ G_i; I] (null space of G), N̄
the same for Ḡ and the particular solution δq_p = [−G_d⁻¹Φ; 0], the solved system is the
reduced one

    N̄ᵀ K N δq_i = −N̄ᵀ (r + K δq_p),       δq = N δq_i + δq_p,

never a saddle point. The multipliers follow from the dependent rows:
λ = −Ḡ_d⁻ᵀ (r + K δq)_d. Ḡ is the discrete (mid-point) Jacobian in the energy-conserving
scheme (Ḡ Δq = ΔΦ, so reactions do no work) and equals G in statics.
"""
import logging

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.linalg import lapack

from femb.core.errors import ModelError
from femb.correlation.pattern import csr_rows

log = logging.getLogger(__name__)
_geqp3, _getrf, _getri = lapack.dgeqp3, lapack.dgetrf, lapack.dgetri


def _inverse(A):
    """A⁻¹ of a small square matrix (LAPACK getrf + getri); LinAlgError when singular."""
    if A.shape[0] == 0:
        return np.zeros((0, 0))
    lu, piv, info = _getrf(A)
    if info == 0:
        inv, info = _getri(lu, piv)
    if info != 0:
        raise np.linalg.LinAlgError("Singular matrix")
    return inv


def independent_rows(G, rel_tol=1e-10):
    """Rows of G (m × n, sparse or dense) that are linearly independent, chosen by QR with
    column pivoting of Gᵀ; returns (independent, redundant) index arrays."""
    Gd = G.toarray() if sp.issparse(G) else np.asarray(G)
    if Gd.shape[0] == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    R, piv = sla.qr(Gd.T, mode="r", pivoting=True)
    diag = np.abs(np.diag(R))
    rank = int(np.sum(diag > rel_tol * max(diag[0], 1e-300))) if diag.size else 0
    return np.sort(piv[:rank]), np.sort(piv[rank:])


def check_redundancy(G, constraint_set, policy="warn"):
    """Detect redundant constraint rows at a configuration; drop them with a warning naming
    the joints (policy "warn") or raise ModelError naming them (policy "error"). Returns
    the rows to keep."""
    keep, redundant = independent_rows(G)
    if redundant.size:
        names = constraint_set.describe(redundant)
        msg = f"{redundant.size} redundant constraint equation(s) in joint(s) {', '.join(map(repr, names))}"
        if policy == "error":
            raise ModelError(msg + " (set model.redundant_constraints = 'warn' to drop them)")
        log.warning("%s: dropped", msg)
    return keep


class ColumnBlock:
    """An (m, n) matrix that is zero except on a few columns: ``A`` (m, k) dense holds the
    columns ``cols`` (k,) (sorted, distinct). The joint Jacobians of a model touch only
    the variables of the jointed nodes; keeping them as a dense block over those columns
    spares the sparse-matrix bookkeeping of the many small products of a Newton iteration.
    Supports ``@`` with vectors, ``.T @ λ``, ``toarray``, ``tocsr`` and ``shape``."""

    __slots__ = ("A", "cols", "shape")

    def __init__(self, A, cols, n):
        self.A = np.asarray(A, dtype=np.float64)
        self.cols = np.asarray(cols, dtype=np.int64)
        self.shape = (self.A.shape[0], int(n))

    def toarray(self):
        out = np.zeros(self.shape)
        out[:, self.cols] = self.A
        return out

    def tocsr(self):
        m, k = self.A.shape
        return sp.csr_matrix((self.A.ravel(), np.tile(self.cols, m), np.arange(m + 1) * k), shape=self.shape)

    def __matmul__(self, x):
        return self.A @ np.asarray(x)[self.cols]

    @property
    def T(self):
        return _TransposedBlock(self)


class _TransposedBlock:
    """Transpose of a ColumnBlock, for ``G.T @ λ`` (n,)."""

    __slots__ = ("b",)

    def __init__(self, b):
        self.b = b

    def __matmul__(self, lam):
        out = np.zeros(self.b.shape[1])
        out[self.b.cols] = self.b.A.T @ np.asarray(lam, dtype=np.float64)
        return out


class SquareBlock:
    """An (n, n) matrix that is zero except on the rows and columns ``cols`` (k,), where it
    holds ``A`` (k, k) dense: the joints' curvature over the jointed variables."""

    __slots__ = ("A", "cols", "shape")
    __array_ufunc__ = None  # ndarray + block defers to __radd__

    def __init__(self, A, cols, n):
        self.A = np.asarray(A, dtype=np.float64)
        self.cols = np.asarray(cols, dtype=np.int64)
        self.shape = (int(n), int(n))

    def toarray(self):
        out = np.zeros(self.shape)
        out[np.ix_(self.cols, self.cols)] = self.A
        return out

    def tocsr(self):
        k = self.cols.size
        return sp.csr_matrix((self.A.ravel(), (np.repeat(self.cols, k), np.tile(self.cols, k))), shape=self.shape)

    def __mul__(self, s):
        return SquareBlock(s * self.A, self.cols, self.shape[0])

    __rmul__ = __mul__

    def __radd__(self, K):
        """K + block for a sparse or dense K (n, n). A CSR K whose pattern holds the block
        gets a new data array on the same structure (no sparse addition)."""
        if sp.issparse(K):
            a = self.A.ravel()
            nz = a != 0.0
            pos = self._positions(K) if K.format == "csr" else None
            if pos is None or np.any(pos[nz] < 0):  # an entry outside K's pattern
                return (K + self.tocsr()).tocsr()
            data = K.data.copy()
            data[pos[nz]] += a[nz]
            return sp.csr_matrix((data, K.indices, K.indptr), shape=K.shape)
        out = np.array(K, dtype=np.float64)
        out[np.ix_(self.cols, self.cols)] += self.A
        return out

    def _positions(self, K):
        """Positions (k·k,) in K.data of the block's entries (row-major; −1 where K's
        pattern lacks the entry), or None when K is not in canonical CSR form. Kept per
        pattern."""
        key = (id(K.indices), id(K.indptr), self.cols.tobytes())
        hit = _POSITIONS.get(key)
        if hit is not None and hit[0] is K.indices and hit[1] is K.indptr:
            return hit[2]
        if not K.has_canonical_format:
            return None
        out = []
        for r in self.cols:
            a, b = K.indptr[r], K.indptr[r + 1]
            seg = K.indices[a:b]
            at = np.minimum(np.searchsorted(seg, self.cols), max(seg.size - 1, 0))
            found = (seg[at] == self.cols) if seg.size else np.zeros(self.cols.size, dtype=bool)
            out.append(np.where(found, a + at, -1))
        pos = np.concatenate(out) if out else np.zeros(0, np.int64)
        if len(_POSITIONS) > 64:
            _POSITIONS.clear()
        _POSITIONS[key] = (K.indices, K.indptr, pos)
        return pos


_POSITIONS = {}  # (pattern, block columns) -> positions of the block entries in the CSR data


def _dense_columns(G, Gbar):
    """(A, Ā, cols): the Jacobians G and Ḡ (m, n; sparse, dense or ColumnBlock) as dense
    blocks over the union of their non-zero columns."""
    blocks = []
    for M in (G, Gbar):
        if M is None:
            blocks.append(None)
        elif isinstance(M, ColumnBlock):
            blocks.append((M.A, M.cols))
        else:
            D = M.toarray() if sp.issparse(M) else np.asarray(M, dtype=np.float64)
            c = np.flatnonzero(np.any(D != 0.0, axis=0))
            blocks.append((D[:, c], c))
    (A, c), other = blocks
    if other is None:
        return A, None, c
    Ab, cb = other
    if c.size == cb.size and np.array_equal(c, cb):
        return A, Ab, c
    cols = np.union1d(c, cb)
    out = []
    for B, cc in ((A, c), (Ab, cb)):
        full = np.zeros((B.shape[0], cols.size))
        full[:, np.searchsorted(cols, cc)] = B
        out.append(full)
    return out[0], out[1], cols


class NullSpace:
    """Coordinate partition and null-space bases of the (free-column) Jacobians.

    Parameters
    ----------
    G : (m, n) Jacobian of the end-of-step constraints over the free equations (CSR,
        dense, or ColumnBlock)
    Gbar : (m, n) discrete Jacobian for the projection (G when None), same forms

    The constraint rows touch few columns (the jointed nodes' variables), so the algebra
    works on dense (m × k) blocks over those k columns: the dependent coordinates (pivoted
    QR of G, so G_d is well conditioned), X = −G_d⁻¹G_t and X̄ = −Ḡ_d⁻¹Ḡ_t on the touched
    independent columns t, i.e. N = [X; I] and N̄ = [X̄; I] with zeros elsewhere. The sparse
    bases ``N`` and ``Nbar`` (n × n_ind) are built on first use.
    """

    def __init__(self, G, Gbar=None):
        self.n = n = G.shape[1]
        m = G.shape[0]
        A, Ab, cols = _dense_columns(G, Gbar)
        if cols.size < m:  # fewer touched columns than rows: pad with zero columns (G_d singular)
            extra = np.setdiff1d(np.arange(n), cols)[: m - cols.size]
            cols = np.concatenate([cols, extra])
            order = np.argsort(cols)
            cols = cols[order]
            A = np.concatenate([A, np.zeros((m, extra.size))], axis=1)[:, order]
            if Ab is not None:
                Ab = np.concatenate([Ab, np.zeros((m, extra.size))], axis=1)[:, order]
        if m:  # QR with column pivoting (LAPACK geqp3, as scipy.linalg.qr(pivoting=True))
            _, jpvt, _, _, info = _geqp3(A)
            if info < 0:
                raise ValueError(f"geqp3: illegal argument {-info}")
            dep_local = np.sort(jpvt[:m] - 1)
        else:
            dep_local = np.zeros(0, np.int64)
        self.dep = cols[dep_local]
        mask = np.ones(n, dtype=bool)
        mask[self.dep] = False
        self.ind = np.flatnonzero(mask)
        local = np.ones(cols.size, dtype=bool)
        local[dep_local] = False
        t_local = np.flatnonzero(local)
        self.touched = cols[t_local]  # independent columns some constraint involves
        self._tpos = np.searchsorted(self.ind, self.touched)  # their positions among ind
        # G_d is chosen by pivoting, hence well conditioned, and small (one row per
        # constraint): an explicit inverse is cheaper than repeated LU solves here
        self.G_d = A[:, dep_local]
        self._inv = _inverse(self.G_d)
        self.X = -self._inv @ A[:, t_local]
        if Ab is None:
            self._inv_bar, self.Xbar = self._inv, self.X
        else:
            self._inv_bar = _inverse(Ab[:, dep_local])
            self.Xbar = -self._inv_bar @ Ab[:, t_local]
        self._N = self._Nbar = None

    def _basis(self, X):
        """Sparse N (n × n_ind): identity on independent rows, X on the dependent rows at the
        touched columns."""
        n_ind, m, t = self.ind.size, self.dep.size, self._tpos.size
        rows = np.concatenate([self.ind, np.repeat(self.dep, t)])
        cols = np.concatenate([np.arange(n_ind), np.tile(self._tpos, m)])
        vals = np.concatenate([np.ones(n_ind), X.ravel()])
        return sp.csr_matrix((vals, (rows, cols)), shape=(self.n, n_ind))

    @property
    def N(self):
        if self._N is None:
            self._N = self._basis(self.X)
        return self._N

    @property
    def Nbar(self):
        if self.Xbar is self.X:
            return self.N
        if self._Nbar is None:
            self._Nbar = self._basis(self.Xbar)
        return self._Nbar

    def project(self, r):
        """N̄ᵀ r: the residual in the independent coordinates (reactions removed)."""
        out = np.array(r[self.ind], dtype=np.float64)
        out[self._tpos] += self.Xbar.T @ r[self.dep]
        return out

    def expand(self, y):
        """N y (n,): the correction of all coordinates from that of the independent ones."""
        dq = np.zeros(self.n)
        dq[self.ind] = y
        dq[self.dep] = self.X @ y[self._tpos]
        return dq

    def reduced_matrix(self, K):
        """N̄ᵀ K N: CSC for a sparse K; dense (n_ind × n_ind) for a dense K, from the blocks
        K_ii + K_id X + X̄ᵀ K_di + X̄ᵀ K_dd X (X, X̄ on the touched columns)."""
        if sp.issparse(K):
            return self._reduced_sparse(K.tocsr())
        ind, dep, tp = self.ind, self.dep, self._tpos
        Ki = K.take(ind, axis=0)
        out = Ki.take(ind, axis=1)
        out[:, tp] += Ki.take(dep, axis=1) @ self.X
        B = self.Xbar.T @ K.take(dep, axis=0)  # X̄ᵀ K_d· (t, n)
        out[tp, :] += B.take(ind, axis=1)
        out[np.ix_(tp, tp)] += B.take(dep, axis=1) @ self.X
        return out

    def _reduced_sparse(self, K):
        """N̄ᵀ K N (CSC) of a CSR K: K_ii from K's entries between independent coordinates,
        plus the terms K_id X, X̄ᵀ K_di, X̄ᵀ K_dd X, dense over the few rows/columns the
        dependent coordinates couple to, in one assembly."""
        n, ind, dep, tp = self.n, self.ind, self.dep, self._tpos
        m, t, n_ind = dep.size, tp.size, ind.size
        indptr, indices, data = K.indptr, K.indices, K.data
        row_of = csr_rows(indptr)
        new = np.full(n, -1, dtype=np.int64)
        new[ind] = np.arange(n_ind)
        dpos = np.full(n, -1, dtype=np.int64)
        dpos[dep] = np.arange(m)
        r_new, c_new = new[row_of], new[indices]
        keep = (r_new >= 0) & (c_new >= 0)
        rows, cols, vals = [r_new[keep]], [c_new[keep]], [data[keep]]
        if m and t:
            # K_·d (n, m) and K_d· (m, n) dense from the entries in the dependent columns/rows
            Kc = np.zeros((n, m))
            sel = dpos[indices] >= 0
            np.add.at(Kc, (row_of[sel], dpos[indices[sel]]), data[sel])
            Kr = np.zeros((m, n))
            sel = dpos[row_of] >= 0
            np.add.at(Kr, (dpos[row_of[sel]], indices[sel]), data[sel])
            K_id, K_di, K_dd = Kc[ind], Kr[:, ind], Kc[dep]
            r1 = np.flatnonzero(np.any(K_id != 0.0, axis=1))
            C1 = K_id[r1] @ self.X  # (r1, t)
            c2 = np.flatnonzero(np.any(K_di != 0.0, axis=0))
            C2 = self.Xbar.T @ K_di[:, c2]  # (t, c2)
            C3 = self.Xbar.T @ K_dd @ self.X  # (t, t)
            rows += [np.repeat(r1, t), np.repeat(tp, c2.size), np.repeat(tp, t)]
            cols += [np.tile(tp, r1.size), np.tile(c2, t), np.tile(tp, t)]
            vals += [C1.ravel(), C2.ravel(), C3.ravel()]
        return sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n_ind, n_ind))

    def particular(self, phi):
        """δq_p with G δq_p = −Φ (zero on independent coordinates)."""
        dq = np.zeros(self.n)
        dq[self.dep] = -self._inv @ phi
        return dq

    def multipliers(self, K, r, dq=None):
        """λ from the dependent rows of K δq + r + Ḡᵀλ = 0."""
        if dq is None:
            res = r[self.dep]
        elif sp.issparse(K):
            res = (r + K @ dq)[self.dep]
        else:
            res = r[self.dep] + K[self.dep] @ dq
        return -self._inv_bar.T @ res
