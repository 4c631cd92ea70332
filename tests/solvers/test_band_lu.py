"""BandLU (femb.solvers.linalg.factorization): compiled band LU with partial pivoting against dense LU."""
import numpy as np
import pytest
import scipy.sparse as sp

from femb.correlation.pattern import csr_rows
from femb.solvers.linalg.factorization import BandLU, SingularSystemError, band_widths, pattern_band_widths


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


# ------------------------------------------------------------------ the band kernel itself
def _gbfa_reference(A, kl, ku, b, threshold=1.0):
    """LU with threshold partial pivoting in LINPACK gbfa order on the dense copy of a band
    matrix A (n, n), then −A⁻¹ b: the operations of femb's band kernel in the same order
    on the same numbers (row interchanges of columns k and beyond, multipliers left in
    place, forward elimination skipping zero entries, backward substitution summing the
    row from left to right), so the results must agree bit for bit. Returns (LU, piv,
    pivots, x)."""
    LU = np.array(A, dtype=float)
    n = LU.shape[0]
    piv = np.zeros(n, dtype=np.int64)
    for k in range(n):
        last, hi = min(n - 1, k + kl), min(n, k + kl + ku + 1)
        column = np.abs(LU[k:last + 1, k])
        p = k + int(np.argmax(column))  # first of the largest
        if p != k and abs(LU[k, k]) >= threshold * column.max():
            p = k
        piv[k] = p
        LU[[k, p], k:hi] = LU[[p, k], k:hi]
        m = LU[k + 1:last + 1, k] * (1.0 / LU[k, k])
        LU[k + 1:last + 1, k] = m
        for i, mi in zip(range(k + 1, last + 1), m):
            if mi != 0.0:
                LU[i, k + 1:hi] -= mi * LU[k, k + 1:hi]
    x = np.array(b, dtype=float)
    for k in range(n):
        x[[k, piv[k]]] = x[[piv[k], k]]
        if x[k] != 0.0:
            last = min(n - 1, k + kl)
            x[k + 1:last + 1] -= LU[k + 1:last + 1, k] * x[k]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, min(n, i + kl + ku + 1)):
            s -= LU[i, j] * x[j]
        x[i] = s / LU[i, i]
    return LU, piv, np.diag(LU).copy(), -x


def _kernel_solve(K, kl, ku, b, threshold=1.0):
    """The compiled steps' call: (status, pivot ratio, ab, piv, pivots, −K⁻¹ b) of
    ``_band_refactor_solve`` on the CSR matrix K."""
    from femb.solvers.linalg.factorization import _band_refactor_solve

    n = K.shape[0]
    ab = np.full((n, 2 * kl + ku + 1), np.nan)  # filled by the kernel, whatever it held
    piv, diag, reach, x = np.zeros(n, np.int64), np.zeros(n), np.zeros(n, np.int64), np.empty(n)
    status, ratio = _band_refactor_solve(K.indptr.astype(np.int64), K.indices.astype(np.int64), K.data, kl, ku, ab, piv, diag,
                                         reach, threshold, np.asarray(b, dtype=float), x)
    return status, ratio, ab, piv, diag, x


def _assert_kernel_is_reference(K, b, threshold=1.0):
    """The band kernel on K (CSR) equals ``_gbfa_reference`` bit for bit, solves K x = −b to
    round-off and agrees with LAPACK's band solver (scipy.linalg.solve_banded)."""
    import scipy.linalg as sla

    n = K.shape[0]
    kl, ku = band_widths(K)
    A = K.toarray()
    status, ratio, ab, piv, diag, x = _kernel_solve(K, kl, ku, b, threshold)
    LU, piv_ref, diag_ref, x_ref = _gbfa_reference(A, kl, ku, b, threshold)
    assert status == -1
    np.testing.assert_array_equal(piv, piv_ref)
    np.testing.assert_array_equal(diag, diag_ref)
    np.testing.assert_array_equal(x, x_ref)
    assert ratio == np.abs(diag).min() / np.abs(diag).max()
    for i in range(n):  # the factors in band storage: row i, columns i − kl .. i + kl + ku
        j = np.arange(i - kl, i + kl + ku + 1)
        inside = (j >= 0) & (j < n)
        np.testing.assert_array_equal(ab[i, inside], LU[i, j[inside]])
        assert not ab[i, ~inside].any()
    scale = np.linalg.norm(A, np.inf) * np.linalg.norm(x, np.inf) + np.linalg.norm(b, np.inf)
    assert np.linalg.norm(A @ x + b, np.inf) <= 1e-13 * scale
    lapack = np.zeros((kl + ku + 1, n))
    for d in range(-kl, ku + 1):  # LAPACK band storage: a[i, j] at [ku + i − j, j]
        lapack[ku - d, max(d, 0):n + min(d, 0)] = np.diagonal(A, d)
    ref = -sla.solve_banded((kl, ku), lapack, b)
    assert np.linalg.norm(ref) > 0.0  # a zero scale would let anything pass
    assert np.linalg.norm(x - ref) <= 1e-13 * np.linalg.cond(A) * np.linalg.norm(ref)
    return piv


@pytest.mark.parametrize("n,kl,ku,weak", [(1, 0, 0, False), (30, 2, 2, False), (120, 5, 5, False), (120, 5, 5, True),
                                          (61, 0, 3, False), (75, 4, 0, True), (200, 11, 11, False), (200, 11, 11, True),
                                          (90, 20, 7, True)])
def test_band_kernel_equals_gbfa_reference_and_lapack(n, kl, ku, weak):
    """Random band systems, diagonally dominant (no interchange) and with a weak diagonal
    (row interchanges at most steps, widening the band of U)."""
    rng = np.random.default_rng(7 * n + kl + 3 * ku)
    K, _ = _band_matrix(n, kl, ku, rng, weak)
    piv = _assert_kernel_is_reference(K, rng.standard_normal(n))
    swaps = int((piv != np.arange(n)).sum())
    assert swaps == 0 if not weak or kl == 0 else swaps > n // 4


def test_band_kernel_threshold_pivoting_equals_reference():
    rng = np.random.default_rng(11)
    n, kl, ku = 150, 4, 6
    _, A = _band_matrix(n, kl, ku, rng, weak_diagonal=True)
    below = np.array([np.abs(A[j + 1:j + kl + 1, j]).max(initial=1.0) for j in range(n)])
    A[np.arange(n), np.arange(n)] = 0.5 * below  # half the column's largest: swaps at 1, none at 0.1
    for threshold in (1.0, 0.1):
        _assert_kernel_is_reference(sp.csr_matrix(A), rng.standard_normal(n), threshold)


def test_band_kernel_structural_zeros_and_duplicate_entries():
    """A CSR pattern with explicit zeros inside the band and duplicated (summed) entries."""
    rng = np.random.default_rng(5)
    n, kl, ku = 40, 3, 2
    K, A = _band_matrix(n, kl, ku, rng, weak_diagonal=True)
    K = K.tocoo()
    keep = rng.random(K.nnz) > 0.3  # holes in the band, kept as explicit zeros
    data = np.where(keep | (K.row == K.col), K.data, 0.0)
    rows, cols = np.concatenate([K.row, K.row[:10]]), np.concatenate([K.col, K.col[:10]])
    data = np.concatenate([data, np.full(10, 0.25)])
    K2 = sp.csr_matrix((data, (rows, cols)), shape=(n, n))
    K2.sum_duplicates()
    assert K2.nnz == K.nnz and (K2.data == 0.0).any()
    _assert_kernel_is_reference(K2, rng.standard_normal(n))


def test_band_kernel_reports_non_finite_and_zero_pivot():
    K = sp.csr_matrix(np.array([[1.0, 2.0, 0.0], [0.5, np.inf, 1.0], [0.0, 1.0, 3.0]]))
    assert _kernel_solve(K, 1, 1, np.ones(3))[0] == -2
    K = sp.csr_matrix(np.array([[1.0, 2.0, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 3.0]]))
    assert _kernel_solve(K, 1, 1, np.ones(3))[0] == 1  # column 1 is zero below the diagonal after step 0


class _Recording:
    """A Newton correction (``solve_correction`` of solve_dynamic) that keeps a copy of every
    Newton matrix and residual it is given."""

    def __init__(self):
        from femb.solvers.nonlinear.step_newton import DirectCorrection

        self.inner = DirectCorrection()
        self.seen = []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def __call__(self, K, r):
        if K is not None:
            self.seen.append((K.copy(), np.array(r, dtype=float)))
        return self.inner(K, r)


def _step_matrices(model, dt, t_end, count):
    from femb.solvers import solve_dynamic
    from femb.solvers.dynamics.driver import DynamicSettings
    from femb.solvers.nonlinear.newton import NewtonSettings

    rec = _Recording()
    settings = DynamicSettings(mass="lumped", compiled_step=False, newton=NewtonSettings(tolerance=1e-10, max_iterations=25))
    solve_dynamic(model, dt, t_end, settings, solve_correction=rec)
    assert len(rec.seen) >= count
    return rec.seen[::max(1, len(rec.seen) // count)][:count]


def test_band_kernel_on_the_newton_matrices_of_beam_steps():
    """The Newton matrices of mid-point steps of a 2-D pendulum (40 beam2d_timoshenko, 121
    equations, bandwidth 5 + 5) and of the 3-D spin-up B (8 beam3d_timoshenko): the kernel
    equals the reference bit for bit and LAPACK to round-off."""
    from femb.mesh import line_mesh
    from femb.model import Model
    from femb.validation.dynamic3d_cases import spin_up_beam_3d

    h, ei = 0.01, 6.19
    ea = 12.0 * ei / h**2
    pendulum = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 40, "beam"), name="pendulum")
    pendulum.add_part("beam", "beam2d_timoshenko", "beam", values=dict(EA=ea, EI=ei, GAs=(5.0 / 6.0) * ea / 2.6, rhoA=1.0,
                                                                       rhoI=h**2 / 12.0))
    pendulum.fix("beam_start", "translations")
    pendulum.gravity((0.0, -9.81))
    cases = [(pendulum, 2e-3, 0.02, (5, 5)), (spin_up_beam_3d(n=8), 2e-2, 0.2, None)]
    for model, dt, t_end, widths in cases:
        seen = _step_matrices(model, dt, t_end, 6)
        if widths is not None:
            assert band_widths(seen[0][0]) == widths and seen[0][0].shape[0] == 121
        for K, r in seen:
            _assert_kernel_is_reference(K.tocsr(), r)


def test_pattern_band_widths_of_patterns_with_empty_rows():
    """Lower and upper bandwidth from each row's extreme columns equal the largest row − column
    and column − row over all entries (0 for a pattern without entries below or above the
    diagonal), also with empty rows and unsorted columns."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 25))
        A = sp.random(n, n, density=rng.uniform(0.0, 0.3), random_state=int(rng.integers(2**31)), format="csr")
        A.indices = A.indices.copy()
        for i in range(n):  # columns of each row in reverse order
            A.indices[A.indptr[i]:A.indptr[i + 1]] = A.indices[A.indptr[i]:A.indptr[i + 1]][::-1]
        d = csr_rows(A.indptr) - A.indices
        assert pattern_band_widths(A.indptr, A.indices) == (max(int(d.max(initial=0)), 0), max(int(-d.min(initial=0)), 0))
    assert pattern_band_widths(np.zeros(4, dtype=np.int64), np.zeros(0, dtype=np.int64)) == (0, 0)


def test_band_assembly_and_factor_solve_equal_the_csr_path_bit_for_bit():
    """The compiled 3-D beam steps' band path: element matrices assembled straight into the
    row-band storage (band_scatter_matrix, with entries outside the pattern and zeros of
    both signs), CSR positions mapped to band indices (band_positions), and the
    factorization in place (band_factor_solve) give the band storage, factors, pivots and
    correction of _band_refactor_solve on the CSR data of scatter_matrix, bit for bit; NaN
    and a zero pivot column give the same status."""
    from femb.core.scatter import scatter_matrix
    from femb.correlation.pattern import csr_pattern
    from femb.solvers.linalg.factorization import band_factor_solve, band_positions, band_scatter_matrix

    rng = np.random.default_rng(11)
    n_el, nd, dof = 30, 2, 6  # a chain of 2-node elements, 6 DOFs per node, node 0 clamped in part
    n_var = (n_el + 1) * dof
    var = np.array([[e * dof + c for c in range(nd * dof)] for e in range(n_el)], dtype=np.int64)
    var_eq = np.full(n_var, -1, dtype=np.int64)
    free = np.arange(4, n_var)  # variables 0..3 without equations
    var_eq[free] = np.arange(free.size)
    n = free.size
    indptr, indices, (pos,) = csr_pattern(n, [var_eq[var]])
    indptr, indices, pos = indptr.astype(np.int64), indices.astype(np.int64), pos.astype(np.int64)
    kl, ku = pattern_band_widths(indptr, indices)
    w = 2 * kl + ku + 1
    ke = rng.standard_normal((n_el, nd * dof, nd * dof))
    ke[rng.random(ke.shape) < 0.2] = 0.0
    ke[rng.random(ke.shape) < 0.2] = -0.0
    ke[:, np.arange(nd * dof), np.arange(nd * dof)] += 40.0
    data = np.zeros(indices.size)
    scatter_matrix(pos, ke, data)
    mpos = np.flatnonzero(rng.random(indices.size) < 0.1)
    mval = rng.random(mpos.size) + 0.5
    data[mpos] += 3.0 * mval
    ab = np.zeros((n, w))
    band_scatter_matrix(var, pos, var_eq, ke, kl, ab)
    mband = np.empty(mpos.size, dtype=np.int64)
    band_positions(indptr, indices, mpos, kl, w, mband)
    flat = ab.reshape(-1)
    flat[mband] += 3.0 * mval
    b = rng.standard_normal(n)
    status, ratio, ab_ref, piv_ref, diag_ref, x_ref = _kernel_solve(sp.csr_matrix((data, indices, indptr), shape=(n, n)), kl, ku, b)
    # the assembled band storage equals _band_fill's (before the factorization overwrites it)
    filled = np.zeros((n, w))
    rows = csr_rows(indptr)
    filled[rows, indices - rows + kl] = data
    assert np.array_equal(ab.view(np.int64), filled.view(np.int64))
    piv, diag, reach, x = np.zeros(n, np.int64), np.zeros(n), np.zeros(n, np.int64), np.empty(n)
    got = band_factor_solve(ab, kl, ku, piv, diag, reach, 1.0, b, x)
    assert status == -1 and got == (status, ratio)
    for mine, theirs in ((ab, ab_ref), (diag, diag_ref), (x, x_ref)):
        assert np.array_equal(mine.view(np.int64), theirs.view(np.int64))
    assert np.array_equal(piv, piv_ref)
    bad = filled.copy()
    bad[3, kl] = np.nan
    assert band_factor_solve(bad, kl, ku, piv, diag, reach, 1.0, b, x)[0] == -2
    singular = np.zeros((3, 4))
    singular[:, 1] = [1.0, 0.0, 3.0]  # kl = ku = 1: the diagonal; row 1 has none
    assert band_factor_solve(singular, 1, 1, piv[:3], diag[:3], reach[:3], 1.0, b[:3], x[:3])[0] == 1
