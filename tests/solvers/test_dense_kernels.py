"""Dense LU kernels of the compiled whole steps (femb.solvers.linalg.dense_kernels).

``lu_factor_bands`` visits only the rows that can hold a non-zero in the pivot column; it
(and ``lu_factor_pattern``, told where the matrix can be non-zero) must give the factors
of ``lu_factor`` bit for bit (same pivots, same arithmetic), row
ranges that hold every non-zero of the factors (those of ``lu_bands`` or wider), and
``lu_solve_many`` the columns of ``lu_solve`` bit for bit, equal to numpy's solve to
round-off.
"""
import numpy as np
import pytest

from femb.solvers.linalg.dense_kernels import lu_bands, lu_factor, lu_factor_bands, lu_factor_pattern, lu_solve, lu_solve_many


def sparse_chain_matrix(n, rng):
    """A square matrix with the pattern of joint Jacobians of a chain: blocks of rows
    coupling neighbouring column groups, scattered by a row and a column permutation, one
    row reaching far (a ground joint), exact zeros inside the bands."""
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(max(0, i - 3), min(n, i + 4)):
            if rng.random() < 0.6:
                A[i, j] = rng.normal()
        A[i, i] += 0.1 * rng.normal()
    A[n - 1, 0] = 2.0
    return A[rng.permutation(n)][:, rng.permutation(n)]


@pytest.mark.parametrize("kind", ["sparse", "dense"])
def test_banded_factor_and_many_solves_equal_the_dense_loop(kind):
    rng = np.random.default_rng(3)
    n, k = 30, 7
    A = sparse_chain_matrix(n, rng) if kind == "sparse" else rng.normal(size=(n, n))
    F1, F2 = A.copy(), A.copy()
    p1, p2 = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    lo, hi = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    lo1, hi1 = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    r1 = lu_factor(F1, p1)
    r2 = lu_factor_bands(F2, p2, lo, hi)
    assert r1 > 0.0 and r1 == r2
    assert np.array_equal(p1, p2) and np.array_equal(F1, F2)  # bit for bit
    lu_bands(F1, lo1, hi1)
    assert np.all(lo <= lo1) and np.all(hi >= hi1)  # the ranges hold every non-zero
    if kind == "sparse":
        assert np.mean(hi - np.arange(n)) < 0.5 * n  # and stay narrow
    L = np.tril(F2, -1) + np.eye(n)
    assert np.allclose(L @ np.triu(F2), A[p2], rtol=0.0, atol=1e-12 * np.abs(A).max())
    B = rng.normal(size=(n, k))
    X = np.empty((n, k))
    lu_solve_many(F2, p2, lo, hi, B, X)
    col = np.empty(n)
    for j in range(k):
        lu_solve(F1, p1, lo1, hi1, np.ascontiguousarray(B[:, j]), col)
        assert np.array_equal(X[:, j], col)
    ref = np.linalg.solve(A, B)
    assert np.abs(X - ref).max() <= 1e-10 * np.abs(ref).max()


def test_banded_factor_reports_a_zero_pivot():
    A = np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]])
    lo, hi, p = (np.empty(3, dtype=np.int64) for _ in range(3))
    assert lu_factor_bands(A.copy(), p, lo, hi) == 0.0 == lu_factor(A.copy(), p)


def test_factor_from_a_known_pattern_equals_the_dense_loop():
    """Told a pattern wider than the matrix's non-zeros (as the joint Jacobians' pattern,
    whose entries can be exact zeros at some states), the same factors and pivots."""
    rng = np.random.default_rng(5)
    n = 24
    A = sparse_chain_matrix(n, rng)
    mask = (A != 0.0) | (rng.random((n, n)) < 0.05)
    hi = np.array([np.flatnonzero(mask[r]).max() + 1 if mask[r].any() else 0 for r in range(n)], dtype=np.int64)
    bot = np.array([np.flatnonzero(mask[:, c]).max() if mask[:, c].any() else -1 for c in range(n)], dtype=np.int64)
    F1, F2 = A.copy(), A.copy()
    p1, p2 = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    lo = np.empty(n, dtype=np.int64)
    assert lu_factor(F1, p1) == lu_factor_pattern(F2, p2, lo, hi, bot) > 0.0
    assert np.array_equal(p1, p2) and np.array_equal(F1, F2)
