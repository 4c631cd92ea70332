"""BandLU (femb.solvers.linalg.factorization): compiled band LU with partial pivoting against dense LU."""
import numpy as np
import pytest
import scipy.sparse as sp

from femb.solvers.linalg.factorization import BandLU, SingularSystemError, band_widths


def _band_matrix(n, kl, ku, rng, weak_diagonal=False):
    """Random CSR band matrix; a weak diagonal forces row interchanges."""
    A = np.zeros((n, n))
    for d in range(-kl, ku + 1):
        A += np.diag(rng.standard_normal(n - abs(d)), d)
    if weak_diagonal:
        A[np.arange(n), np.arange(n)] *= 1e-3
    else:
        A += np.diag(np.full(n, 4.0 * (kl + ku + 1)))
    return sp.csr_matrix(A), A


@pytest.mark.parametrize("n,kl,ku,weak", [(1, 0, 0, False), (7, 2, 1, False), (40, 5, 5, True), (300, 3, 7, True), (31, 5, 5, False)])
def test_band_lu_solves_like_dense(n, kl, ku, weak):
    rng = np.random.default_rng(n + kl + ku)
    K, A = _band_matrix(n, kl, ku, rng, weak)
    assert band_widths(K) == (kl, ku)
    lu = BandLU(K)
    b = rng.standard_normal(n)
    x = lu.solve(b)
    ref = np.linalg.solve(A, b)
    assert np.all(np.asarray(np.linalg.norm(ref) * np.linalg.cond(A) ** 0.5) > 0)  # a zero scale would let an all-zero output pass
    assert np.linalg.norm(x - ref) <= 1e-10 * np.linalg.norm(ref) * np.linalg.cond(A) ** 0.5
    # refactorization in the same storage with new values
    K2, A2 = _band_matrix(n, kl, ku, rng, weak)
    lu.factorize(K2)
    assert np.allclose(lu.solve(b), np.linalg.solve(A2, b), rtol=1e-9, atol=1e-12)
    assert 0.0 < lu.pivot_ratio <= 1.0


def test_band_lu_pivots_a_zero_diagonal():
    # [[0, 1], [1, 0]] needs a row interchange; without pivoting it would fail
    K = sp.csr_matrix(np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 2.0], [0.0, 3.0, 1.0]]))
    x = BandLU(K).solve(np.array([1.0, 2.0, 3.0]))
    assert np.allclose(K @ x, [1.0, 2.0, 3.0])


def test_band_lu_singular_names_the_equation():
    K = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    with pytest.raises(SingularSystemError, match="singular"):
        BandLU(K)


def test_band_lu_rejects_non_finite_entries():
    from femb.core.errors import FembError

    K = sp.csr_matrix(np.array([[1.0, np.nan], [0.0, 1.0]]))
    with pytest.raises(FembError, match="NaN or Inf"):
        BandLU(K)


def test_threshold_pivoting_keeps_accuracy_with_fewer_interchanges():
    rng = np.random.default_rng(3)
    n, kl, ku = 200, 4, 4
    _, A = _band_matrix(n, kl, ku, rng, weak_diagonal=True)
    # diagonal at half the largest entry below it: partial pivoting swaps, threshold 0.1 mostly not
    below = np.array([np.abs(A[j + 1:j + kl + 1, j]).max(initial=1.0) for j in range(n)])
    A[np.arange(n), np.arange(n)] = 0.5 * below
    K = sp.csr_matrix(A)
    b = rng.standard_normal(n)
    full, relaxed = BandLU(K), BandLU(K, threshold=0.1)
    assert (relaxed.piv != np.arange(n)).sum() < (full.piv != np.arange(n)).sum()
    ref = np.linalg.solve(A, b)
    for lu in (full, relaxed):
        assert np.all(np.asarray(np.linalg.norm(ref)) > 0)  # a zero scale would let an all-zero output pass
        assert np.linalg.norm(lu.solve(b) - ref) <= 1e-9 * np.linalg.norm(ref)
    with pytest.raises(ValueError, match="threshold"):
        BandLU(K, threshold=0.0)


@pytest.mark.parametrize("n,kl,ku", [(12, 2, 1), (90, 40, 40)])
def test_factorize_csr_is_factorize_of_the_scipy_matrix(n, kl, ku):
    """A band matrix given by its CSR arrays gets the BandLU of ``factorize`` (the same
    factors), a wider one the general factorization; both solve alike."""
    from femb.solvers.linalg.factorization import BAND_LIMIT, factorize, factorize_csr

    rng = np.random.default_rng(n)
    K, A = _band_matrix(n, kl, ku, rng)
    indptr, indices = K.indptr.astype(np.int64), K.indices.astype(np.int64)
    a, b = factorize(K), factorize_csr(n, indptr, indices, K.data)
    assert type(a) is type(b) and isinstance(a, BandLU) == (kl + ku <= BAND_LIMIT)
    if isinstance(a, BandLU):
        assert np.array_equal(a.ab, b.ab) and np.array_equal(a.piv, b.piv) and (a.kl, a.ku) == (b.kl, b.ku)
    rhs = rng.standard_normal(n)
    assert np.allclose(b.solve(rhs), np.linalg.solve(A, rhs), rtol=1e-10, atol=1e-12)
    with pytest.raises(SingularSystemError):
        factorize_csr(3, np.array([0, 1, 2, 3]), np.array([0, 1, 2]), np.array([1.0, 0.0, 1.0]))
