"""Sparsity pattern and scatter map of element blocks into a CSR matrix (computed once)."""
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee


def coupled_pairs(eq_blocks):
    """All (row, col) equation pairs coupled by element blocks, constrained entries dropped.

    eq_blocks: list of (n_el, n_edof) int64 arrays with -1 for constrained DOFs.
    Returns two int64 arrays of equal length (with duplicates).
    """
    rows, cols = [], []
    for eq in eq_blocks:
        r = np.repeat(eq, eq.shape[1], axis=1).ravel()
        c = np.tile(eq, (1, eq.shape[1])).ravel()
        keep = (r >= 0) & (c >= 0)
        rows.append(r[keep])
        cols.append(c[keep])
    if not rows:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(rows), np.concatenate(cols)


def sorted_unique(values):
    """Sorted unique values of an int64 array (sort-based: faster than np.unique's hash
    path for the tens of millions of keys of a large mesh)."""
    v = np.sort(values)
    if v.size == 0:
        return v
    keep = np.empty(v.size, dtype=bool)
    keep[0] = True
    np.not_equal(v[1:], v[:-1], out=keep[1:])
    return v[keep]


def bandwidth_reducing_order(n_eq, eq_blocks):
    """Reverse Cuthill–McKee permutation ``perm`` of the equations (new -> old)."""
    if n_eq == 0:
        return np.zeros(0, np.int64)
    r, c = coupled_pairs(eq_blocks)
    graph = sp.csr_matrix((np.ones(r.size, dtype=np.int8), (r, c)), shape=(n_eq, n_eq))
    graph.sum_duplicates()
    return np.asarray(reverse_cuthill_mckee(graph, symmetric_mode=True), dtype=np.int64)


def csr_pattern(n_eq, eq_blocks):
    """CSR pattern (indptr, indices) of the coupled equations and, for each block, the
    positions (n_el, n_edof, n_edof) int64 of each element entry in the CSR data (-1 when
    the row or column is constrained)."""
    r, c = coupled_pairs(eq_blocks)
    keys = sorted_unique(r * np.int64(n_eq) + c)
    rows = keys // n_eq
    indices = (keys % n_eq).astype(np.int64)
    indptr = np.zeros(n_eq + 1, dtype=np.int64)
    np.add.at(indptr, rows + 1, 1)
    indptr = np.cumsum(indptr)
    positions = []
    for eq in eq_blocks:
        n_el, n = eq.shape
        rr = np.repeat(eq, n, axis=1).reshape(n_el, n, n)
        cc = np.tile(eq, (1, n)).reshape(n_el, n, n)
        valid = (rr >= 0) & (cc >= 0)
        pos = np.full((n_el, n, n), -1, dtype=np.int64)
        pos[valid] = np.searchsorted(keys, rr[valid] * np.int64(n_eq) + cc[valid])
        positions.append(pos)
    return indptr, indices, positions
