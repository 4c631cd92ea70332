"""The energy-momentum mid-point kernel of the 3-D beams (beam3d.midpoint_force_oriented):
exact energy identity, and a Newton matrix that is the exact derivative of the mid-point
force (the invariant Hessian is analytic, so K agrees with central differences to their
own truncation error, O(h²), not merely to a forward-difference 1e-6)."""
import numpy as np
import pytest

from femb.elements import beam3d, beam3d_corotational, beam3d_local, beam3d_midpoint

P_EB = [1e4, 8.0, 10.0, 12.0, 1.0, 0.02, 0.01, 0.012, 0.0, 0.0, 0.0] + [0.0] * 6  # no offsets, mass centre (ym, zm) = 0
P_TIM = P_EB[:11] + [2e3, 2.5e3] + [0.0] * 6
P_ECC = P_EB[:11] + [0.05, -0.03, -0.02, 0.04, 0.0, 0.0]  # centroid (yc, zc), shear centre (ys, zs)
P_TIM_ECC = P_TIM[:13] + [0.05, -0.03, -0.02, 0.04, 0.0, 0.0]


def cayley(psi):
    """cay(ψ) (3, 3) of one Cayley vector."""
    H = np.array([[0.0, -psi[2], psi[1]], [psi[2], 0.0, -psi[0]], [-psi[1], psi[0], 0.0]])
    return np.eye(3) + (H + 0.5 * H @ H) / (1.0 + 0.25 * psi @ psi)


def cayley_vector(C):
    v = np.array([C[2, 1] - C[1, 2], C[0, 2] - C[2, 0], C[1, 0] - C[0, 1]])
    return 2.0 * v / (1.0 + np.trace(C))


def element(params):
    """One prestressed element (stretched, bent, twisted) at the start of a step."""
    X = np.array([[[0.1, 0.2, 0.0], [1.0, 0.5, 0.3]]])
    p = np.array([params])
    u0 = np.zeros((1, 12))
    u0[0, :3], u0[0, 6:9] = (0.01, -0.02, 0.03), (0.02, 0.01, -0.01)
    R0n = np.stack([cayley(np.array([0.1, 0.2, -0.1])), cayley(np.array([0.15, 0.1, 0.05]))])[None]
    return X, p, u0, R0n


def end_state(u0, R0n, z):
    """(u1, ψ, R1n) of the step with increment z = (Δx1, ψ1, Δx2, ψ2)."""
    u1 = u0.copy()
    u1[0, :3] += z[:3]
    u1[0, 6:9] += z[6:9]
    psi = np.stack([z[3:6], z[9:12]])[None]
    R1n = np.stack([cayley(psi[0, a]) @ R0n[0, a] for a in range(2)])[None]
    return u1, psi, R1n


def midpoint(X, p, u0, R0n, z):
    """f̄ and K of the step with increment z = (Δx1, ψ1, Δx2, ψ2)."""
    u1, psi, R1n = end_state(u0, R0n, z)
    f, K = np.zeros((1, 12)), np.zeros((1, 12, 12))
    beam3d.midpoint_force_oriented(X, u0, R0n, u1, R1n, 0.5 * (u0 + u1), R0n.copy(), psi, np.zeros((1, 2, 3, 3)), p, f, K)
    en0, en1 = np.zeros(1), np.zeros(1)
    beam3d.strain_energy(X, u0, R0n, p, en0)
    beam3d.strain_energy(X, u1, R1n, p, en1)
    return f[0], K[0], en1[0] - en0[0]


def step_increment(X, u0, s, seed=3):
    """A rigid Cayley turn ψ_r = (0.2, −0.3, 0.5) (0.62 rad) about the centroid plus a
    deformation increment of size s, as z = (Δx1, ψ1, Δx2, ψ2)."""
    rng = np.random.default_rng(seed)
    C = cayley(np.array([0.2, -0.3, 0.5]))
    x0 = X[0] + u0[0].reshape(2, 6)[:, :3]
    c = x0.mean(axis=0)
    d = rng.standard_normal((2, 6))
    x1 = (C @ (x0 - c).T).T + c + s * d[:, :3]
    z = np.empty(12)
    for a in range(2):
        z[6 * a:6 * a + 3] = x1[a] - x0[a]
        z[6 * a + 3:6 * a + 6] = cayley_vector(cayley(s * d[a, 3:]) @ C)
    return z


@pytest.mark.parametrize("params", [P_EB, P_TIM, P_ECC, P_TIM_ECC],
                         ids=["beam3d", "beam3d_timoshenko", "beam3d-eccentric", "beam3d_timoshenko-eccentric"])
@pytest.mark.parametrize("s", [1e-1, 1e-2])
def test_energy_identity_and_exact_newton_matrix(params, s):
    X, p, u0, R0n = element(params)
    z = step_increment(X, u0, s)
    f, K, dV = midpoint(X, p, u0, R0n, z)
    assert abs(f @ z - dV) <= 1e-13 * max(abs(dV), np.abs(f * z).sum())

    def cd(h):
        return np.column_stack([(midpoint(X, p, u0, R0n, z + h * e)[0] - midpoint(X, p, u0, R0n, z - h * e)[0]) / (2 * h)
                                for e in np.eye(12)])

    scale = np.abs(K).max()
    err1, err2 = np.abs(K - cd(2e-3)).max() / scale, np.abs(K - cd(1e-3)).max() / scale
    # central differences converge to K at second order: halving h divides the gap by 4 ...
    assert 3.5 <= err1 / err2 <= 4.5
    # ... and Richardson's extrapolation of the two agrees with K to 1e-8 (a forward-difference
    # Hessian of the invariant energy left a gap of 5e-8 at every h)
    assert np.abs(K - (4 * cd(1e-3) - cd(2e-3)) / 3).max() <= 1e-8 * scale


def test_invariant_hessian_is_symmetric_and_the_derivative_of_the_gradient():
    """∇²Ṽ(π) at the averaged invariants of a step (P not orthogonal) against central
    differences of ∇Ṽ."""
    X, p, u0, R0n = element(P_TIM)
    z = step_increment(X, u0, 0.1)
    R0, F, RR, qa, th, Lq, Hq, S, qv, rho, G, sig, fl, Hl, W, J, V, fcr = beam3d_corotational._scratch()
    mw = beam3d_midpoint._mid_scratch(p.shape[1])
    mw[0][:] = X
    mw[3][:] = p
    Q1, Q2 = np.empty((3, 3)), np.empty((3, 3))
    x21 = np.empty(3)
    l0 = beam3d_corotational._reference_triad(X, p, 0, R0)
    beam3d_local._strain_forms(l0, p, 0, Lq, Hq, mw[12])  # the element's forms, built by the caller
    beam3d_local._section_matrix(p, 0, l0, S)
    pis = []
    for zz in (np.zeros(12), z):
        u1 = u0.copy()
        u1[0, :3] += zz[:3]
        u1[0, 6:9] += zz[6:9]
        R1n = np.stack([cayley(zz[3 * (2 * a + 1):3 * (2 * a + 2)]) @ R0n[0, a] for a in range(2)])[None]
        pi = np.empty(13)
        beam3d_midpoint._invariants(X, u1, R1n, 0, R0, Q1, Q2, x21, pi)
        pis.append(pi)
    pim = 0.5 * (pis[0] + pis[1])
    assert np.abs(pim[3:12].reshape(3, 3) @ pim[3:12].reshape(3, 3).T - np.eye(3)).max() > 1e-4

    def grad(pi, order=1):
        g, H = np.empty(13), np.empty((13, 13))
        beam3d_midpoint._invariant_energy(pi, order, R0, F, qa, th, RR, Lq, Hq, qv, rho, G, S, sig, fl, Hl, fcr, W, J, V, mw, g)
        if order == 2:  # the Hessian from the tangent that the order-2 evaluation left in mw
            beam3d_midpoint._invariant_hessian(pi, R0, *mw[4:12], H)
        return g, H

    _, H = grad(pim, 2)
    scale = np.abs(H).max()
    assert np.abs(H - H.T).max() <= 1e-12 * scale
    steps = np.array([1.0] * 3 + [1.0] * 9 + [1.0]) * 1e-4
    Hfd = np.column_stack([(grad(pim + h * e)[0] - grad(pim - h * e)[0]) / (2 * h) for h, e in zip(steps, np.eye(13))])
    assert np.abs(H - Hfd).max() <= 1e-6 * scale


@pytest.mark.parametrize("params", [P_EB, P_TIM_ECC])
def test_kept_start_energies_give_the_same_force_and_matrix(params):
    # midpoint_force_steps with the start-of-step energies V0 kept from an earlier call of
    # the same step (another end state): bitwise the force and matrix of
    # midpoint_force_oriented, which evaluates V0 afresh; V0 is the strain energy at u0
    # (the section forms kept with it)
    X, p, u0, R0n = element(params)
    forms = beam3d_midpoint.section_forms(1)
    for s, seed in ((1e-2, 3), (1e-3, 5)):
        u1, psi, R1n = end_state(u0, R0n, step_increment(X, u0, s, seed))
        f, K = np.zeros((1, 12)), np.zeros((1, 12, 12))
        beam3d.midpoint_force_oriented(X, u0, R0n, u1, R1n, u0, R0n, psi, R0n, p, f, K)
        V0 = np.full(1, np.nan)
        fk, Kk = np.zeros((1, 12)), np.zeros((1, 12, 12))
        beam3d_midpoint.midpoint_force_steps(X, u0, R0n, u0 + 0.01, R0n, psi, p, V0, forms, True, fk, Kk)  # fills V0
        en0 = np.zeros(1)
        beam3d.strain_energy(X, u0, R0n, p, en0)
        assert V0[0] > 0 and V0[0] == pytest.approx(en0[0], rel=1e-12)
        beam3d_midpoint.midpoint_force_steps(X, u0, R0n, u1, R1n, psi, p, V0, forms, True, fk, Kk)
        np.testing.assert_array_equal(fk, f)
        np.testing.assert_array_equal(Kk, K)


@pytest.mark.parametrize("params", [P_EB, P_TIM, P_ECC, P_TIM_ECC])
def test_force_alone_is_bitwise_the_force_of_force_and_matrix(params):
    # midpoint_force_steps without the matrix (a Newton loop's converging evaluation): the
    # same force bit for bit, with fresh and with kept start energies, K left as it was;
    # a later call with the matrix gives the same force and matrix as ever
    X, p, u0, R0n = element(params)
    forms = beam3d_midpoint.section_forms(1)
    for s, seed in ((3e-2, 3), (1e-3, 5), (0.0, 7)):
        u1, psi, R1n = end_state(u0, R0n, step_increment(X, u0, s, seed))
        f, K = np.zeros((1, 12)), np.zeros((1, 12, 12))
        beam3d.midpoint_force_oriented(X, u0, R0n, u1, R1n, u0, R0n, psi, R0n, p, f, K)
        V0 = np.full(1, np.nan)
        for _ in range(2):  # V0 computed, then kept
            fo, Ko = np.zeros((1, 12)), np.full((1, 12, 12), 7.0)
            beam3d_midpoint.midpoint_force_steps(X, u0, R0n, u1, R1n, psi, p, V0, forms, False, fo, Ko)
            np.testing.assert_array_equal(fo, f)
            assert (Ko == 7.0).all()
        fk, Kk = np.zeros((1, 12)), np.zeros((1, 12, 12))
        beam3d_midpoint.midpoint_force_steps(X, u0, R0n, u1, R1n, psi, p, V0, forms, True, fk, Kk)
        np.testing.assert_array_equal(fk, f)
        np.testing.assert_array_equal(Kk, K)
        assert np.abs(f).max() > 1.0


def dense_correction_tangent(Hpi, B1, Bm, dpi, wt, g1, gm, cc, sden, den):
    """Bmᵀ ∂ḡ/∂q_{n+1} of midpoint_invariants.add_correction_tangent by full products, the
    sums in the kernel's order (plain Python floats: IEEE operations as in the kernel)."""
    npi, m = B1.shape
    Kp = [[0.5 * sum_in_order(Hpi[r, k] * B1[k, q] for k in range(npi)) for q in range(m)] for r in range(npi)]
    if den > 0.0:
        zc = [(g1[k] - gm[k] - 0.5 * sum_in_order(Hpi[q, k] * dpi[q] for q in range(npi)) - 2.0 * cc * wt[k] * dpi[k])
              / sden for k in range(npi)]
        for q in range(m):
            acc = sum_in_order(zc[k] * B1[k, q] for k in range(npi))
            for r in range(npi):
                Kp[r][q] += wt[r] * dpi[r] * acc + cc * wt[r] * B1[r, q]
    return np.array([[sum_in_order(Bm[k, r] * Kp[k][q] for k in range(npi)) for q in range(m)] for r in range(m)])


def sum_in_order(terms):
    acc = 0.0
    for t in terms:
        acc += t
    return acc


@pytest.mark.parametrize("den", [0.0, 0.3])
def test_correction_tangent_skipping_zeros_is_bitwise_the_full_product(den):
    # add_correction_tangent leaves out the zero entries of B(q_{n+1}) and B(q̄) (the
    # invariant variations' pattern, plus an exact zero of the chord); the result is
    # bitwise that of the full products
    from femb.elements.midpoint_invariants import add_correction_tangent
    rng = np.random.default_rng(11)
    Bs = []
    for _ in range(2):
        Q1, Q2 = cayley(rng.standard_normal(3)), cayley(rng.standard_normal(3))
        x21 = np.array([0.9, 0.0, 0.3]) + 0.1 * rng.standard_normal(3) * np.array([1.0, 0.0, 1.0])
        B = np.empty((13, 12))
        beam3d_midpoint._invariant_variation(Q1, Q2, x21, B)
        Bs.append(B)
    B1, Bm = Bs
    assert (B1 == 0.0).sum() > 60 and (Bm == 0.0).sum() > 60
    Hpi = rng.standard_normal((13, 13))
    Hpi += Hpi.T
    dpi, wt, g1, gm = (rng.standard_normal(13) for _ in range(4))
    cc, sden = 0.7, den + 1e-14
    HB0 = rng.standard_normal((12, 12))
    HB = HB0.copy()
    add_correction_tangent(Hpi, B1, Bm, dpi, wt, g1, gm, cc, sden, den, np.empty((13, 12)), np.empty(13),
                           np.empty(12), HB)
    ref = dense_correction_tangent(Hpi, B1, Bm, dpi, wt, g1, gm, cc, sden, den)
    np.testing.assert_array_equal(HB, HB0 + ref)


def test_elements_of_one_call_equal_the_elements_alone():
    # a block of elements with equal and with different reference lengths and properties,
    # the strain forms built in the call (again only where those change, the sign of a zero
    # property included) or kept per element: every element's force, matrix and start
    # energy bitwise those of a call on the element alone
    X1, _, u01, R01 = element(P_EB)
    params = [P_EB, P_EB, P_ECC, P_ECC, [2e4] + P_EB[1:], [-0.0 if v == 0.0 else v for v in P_EB], P_EB]
    n = len(params)
    X = np.repeat(X1, n, axis=0)
    X[3, 1] += (0.2, 0.0, -0.1)  # another reference length, same properties as the element before
    p = np.array(params)
    u0, R0n = np.repeat(u01, n, axis=0), np.repeat(R01, n, axis=0)
    u1, psi, R1n = u0.copy(), np.zeros((n, 2, 3)), R0n.copy()
    for e in range(n):
        ue, pe, Re = end_state(u0[e:e + 1], R0n[e:e + 1], step_increment(X[e:e + 1], u0[e:e + 1], 1e-2, seed=e + 3))
        u1[e], psi[e], R1n[e] = ue[0], pe[0], Re[0]
    for with_matrix, kept in ((True, 0), (False, 0), (True, n)):  # forms built per call, or kept per element
        V0, f, K = np.full(n, np.nan), np.zeros((n, 12)), np.zeros((n, 12, 12))
        forms = beam3d_midpoint.section_forms(kept)
        assert forms[1].shape == (kept, 6, 7, 7)
        for _ in range(2):  # V0 (and kept forms) computed, then taken as they are
            beam3d_midpoint.midpoint_force_steps(X, u0, R0n, u1, R1n, psi, p, V0, forms, with_matrix, f, K)
        for e in range(n):
            s = slice(e, e + 1)
            V0e, fe, Ke = np.full(1, np.nan), np.zeros((1, 12)), np.zeros((1, 12, 12))
            beam3d_midpoint.midpoint_force_steps(X[s], u0[s], R0n[s], u1[s], R1n[s], psi[s], p[s], V0e,
                                                 beam3d_midpoint.section_forms(1), with_matrix, fe, Ke)
            assert V0e[0] == V0[e]
            np.testing.assert_array_equal(fe, f[s])
            np.testing.assert_array_equal(Ke, K[s])


def test_section_forms_kept_up_to_one_block_of_elements():
    # forms for every element up to KEPT_FORMS elements, none beyond (built per call)
    k = beam3d_midpoint.KEPT_FORMS
    assert [beam3d_midpoint.section_forms(n)[2].shape[0] for n in (1, k, k + 1)] == [1, k, 0]
