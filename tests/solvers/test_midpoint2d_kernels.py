"""Compiled glue of the planar mid-point step (femb.solvers.dynamics.midpoint2d_kernels)
against the numpy expressions it replaces, the band correction in one call against the
separate factorization and solve, and the single-block path of the step against the
ElementLoop path (same run to round-off)."""
import numpy as np
import pytest
import scipy.sparse as sp

from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers import solve_dynamic
from femb.solvers.dynamics.midpoint2d_kernels import (
    cayley_configuration,
    cayley_correction,
    cayley_correction_chords,
    midpoint_residual,
)
from femb.solvers.dynamics.problem import DynamicProblem
from femb.solvers.linalg.factorization import BandLU
from femb.solvers.linalg.turn import chord_turn
from femb.solvers.nonlinear.norms import vector_norm
from femb.solvers.nonlinear.step_newton import DirectCorrection

RNG = np.random.default_rng(7)


def test_cayley_configuration_equals_the_numpy_expression():
    n = 12
    u0, z = RNG.normal(size=n), RNG.normal(size=n)
    rot = np.array([2, 5, 11], dtype=np.int64)
    u1 = np.empty(n)
    cayley_configuration(u0, z, rot, u1)
    ref = u0 + z
    ref[rot] = u0[rot] + 2.0 * np.arctan(0.5 * z[rot])
    np.testing.assert_allclose(u1, ref, rtol=0, atol=1e-15)


def test_midpoint_residual_equals_the_sparse_expression():
    n, h = 9, 1e-3
    M = sp.random(n, n, density=0.4, random_state=3, format="csr") + sp.eye(n, format="csr")
    f, z, v0, fext = (RNG.normal(size=n) for _ in range(4))
    ev = np.array([0, 2, 3, 5, 8], dtype=np.int64)
    kdata, mass = RNG.normal(size=20), RNG.normal(size=20)
    k0 = kdata.copy()
    R, r = np.empty(n), np.empty(ev.size)
    sf, si, se, sr = midpoint_residual(f, z, v0, 2.0 / h**2, 2.0 / h, M.indptr.astype(np.int64), M.indices.astype(np.int64), M.data,
                                       fext, ev, kdata, mass, R, r)
    inert = M @ ((2.0 / h**2) * z - (2.0 / h) * v0)
    Rref = f + inert - fext
    np.testing.assert_array_equal(R, Rref)  # the same floating-point order as scipy's CSR product
    np.testing.assert_array_equal(r, Rref[ev])
    np.testing.assert_array_equal(kdata, k0 + mass)
    for got, ref in ((sf, f[ev]), (si, inert[ev]), (se, fext[ev]), (sr, Rref[ev])):
        assert np.sqrt(got) == pytest.approx(np.linalg.norm(ref), rel=1e-14)


def test_cayley_correction_applies_dz_and_measures_the_turns():
    n = 10
    u0, z = RNG.normal(size=n), RNG.normal(size=n)
    ev = np.array([0, 1, 2, 4, 5, 6, 8, 9], dtype=np.int64)
    rot = np.array([2, 5, 9], dtype=np.int64)
    dz = RNG.normal(size=ev.size)
    z_new, a, d = np.empty(n), np.empty(n), np.empty(n)
    turn = cayley_correction(u0, z, dz, ev, rot, z_new, a, d)
    ref = z.copy()
    ref[ev] += dz
    np.testing.assert_array_equal(z_new, ref)
    np.testing.assert_array_equal(a, u0 + z)
    np.testing.assert_array_equal(d, ref - z)
    assert turn == pytest.approx(np.abs(2.0 * (np.arctan(0.5 * ref[rot]) - np.arctan(0.5 * z[rot]))).max(), rel=1e-15)
    # with the chords of two elements (nodes 0-1, 1-2 of a 3-DOF-per-node line, DOFs 0, 1 translations)
    var = np.array([[0, 1, 2, 3, 4, 5], [3, 4, 5, 6, 7, 8]], dtype=np.int64)
    ca, cb = np.array([0, 1], dtype=np.int64), np.array([3, 4], dtype=np.int64)
    X21 = np.array([[0.5, 0.0], [0.5, 0.1]])
    both = cayley_correction_chords(u0, z, dz, ev, rot, z_new, a, d, var, ca, cb, X21)
    assert both == max(turn, chord_turn(var, ca, cb, X21, a, d))
    bad = dz.copy()
    bad[2] = np.nan  # a NaN rotation turn is reported
    assert np.isnan(cayley_correction(u0, z, bad, ev, rot, z_new, a, d))


def test_band_factorize_solve_equals_factorize_then_solve():
    n = 30
    A = sp.diags([RNG.normal(size=n - abs(k)) for k in range(-4, 5)], list(range(-4, 5)), format="csr")
    A = A + sp.eye(n, format="csr") * 3.0
    b = RNG.normal(size=n)
    lu = BandLU(A)
    ref = -lu.solve(b)
    lu2 = BandLU(A)
    np.testing.assert_array_equal(lu2.factorize_solve(A, b), ref)
    assert lu2.pivot_ratio == lu.pivot_ratio
    # DirectCorrection: the second call on the same matrix takes the one-call path
    corr = DirectCorrection()
    first = corr(A, b)
    A.data *= 1.5
    second = corr(A, b)
    np.testing.assert_allclose(first, np.linalg.solve(-(A / 1.5).toarray(), b), rtol=1e-10)
    np.testing.assert_allclose(second, np.linalg.solve(-A.toarray(), b), rtol=1e-10)
    np.testing.assert_array_equal(corr(None, b), second)  # reuse of the factorization


def test_vector_norm_fast_path_and_fallbacks():
    for x in (np.arange(5.0), np.arange(10.0)[::2], np.arange(4.0).reshape(2, 2), np.arange(3, dtype=np.float32),
              np.array([3.0, 4.0]).astype(">f8"), np.zeros(0), [3.0, 4.0]):
        assert vector_norm(x) == float(np.linalg.norm(np.ravel(x, order="K")))


def _pendulum(n=6):
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), n, "beam"))
    model.add_part("beam", "beam2d_timoshenko", "beam", values=dict(EA=1e4, EI=5.0, GAs=1e4, rhoA=1.0, rhoI=1e-3))
    model.fix("beam_start", "translations")
    model.gravity((0.0, -9.81))
    return model


def test_single_block_path_equals_the_element_loop_path():
    """The direct kernel call of a one-block model gives the run of the ElementLoop pass
    (forced by replacing the problem's midpoint_force) to round-off, energy included."""
    runs = []
    for direct in (True, False):
        model = _pendulum()
        prob = DynamicProblem(model, mass="invariant")
        if not direct:
            prob.midpoint_force = DynamicProblem.midpoint_force.__get__(prob)  # an instance attribute: the general path
        res = solve_dynamic(model, 2e-3, 0.2, problem=prob, record_every=10)
        assert ("block" in prob._midpoint2d and prob._midpoint2d["block"] is not None) == direct
        runs.append(res)
    a, b = runs
    np.testing.assert_allclose(a.final, b.final, rtol=0, atol=1e-12)
    E = np.asarray(a.history["total_energy"])
    assert np.abs(E - E[0]).max() <= 1e-9 * max(np.abs(np.asarray(a.history["kinetic_energy"])).max(), 1e-300)
    np.testing.assert_allclose(a.history["total_energy"], b.history["total_energy"], rtol=0, atol=1e-12)
