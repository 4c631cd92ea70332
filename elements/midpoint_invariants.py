"""Invariant algebra of the energy-momentum mid-point kernels (Gonzalez's discrete gradient
on quadratic invariants), shared by the spatial beams (``beam3d_midpoint``: π = (y, P, λ)
of one chord) and the co-rotational shells (``shell_midpoint``: π = (y_a, P_a) of the
chords from node 1). Compiled.

Notation (both kernels): the invariants of a chord r_a from node 1 are y_a = Q_1ᵀ r_a and
P_a = Q_1ᵀ Q_a (row-major), Q the directors; P enters the energy through
c(P) = 2 vee(P − Pᵀ)/(1 + tr P) (``cayley_of``), the Cayley vector of P when P is a
rotation and a smooth extension otherwise; μ = T(c)ᵀ m is the gradient over c of the
copy's energy, m its moment and T the Cayley spin Jacobian. The step's force is
f̄ = B(q̄)ᵀ ḡ with ḡ the discrete gradient (``discrete_gradient``) and B the variation of π
at the averaged configuration; its Newton matrix is the motion of q̄ at fixed ḡ
(``add_mean_motion``), B(q̄)ᵀ ∂ḡ/∂Δq (``add_correction_tangent``) and the rotational
columns times T(ψ_a) (``rotation_columns``).
"""
from femb.core import jit


@jit(internal=True)
def cayley_of(pi, b, c):
    """c (3,) = 2 vee(P − Pᵀ)/(1 + tr P) of the 3×3 block P = pi[b:b+9] (row-major);
    returns τ = 1 + tr P."""
    tau = 1.0 + pi[b] + pi[b + 4] + pi[b + 8]
    c[0] = 2.0 * (pi[b + 7] - pi[b + 5]) / tau
    c[1] = 2.0 * (pi[b + 2] - pi[b + 6]) / tau
    c[2] = 2.0 * (pi[b + 3] - pi[b + 1]) / tau
    return tau


@jit(internal=True)
def cayley_derivative(c, tau, A):
    """A (3, 9) = ∂c/∂P (P row-major) of c = 2 v/τ, v = vee(P − Pᵀ), τ = 1 + tr P."""
    for k in range(3):
        for q in range(9):
            A[k, q] = 0.0
        for q in (0, 4, 8):
            A[k, q] = -c[k] / tau
    A[0, 7] += 2.0 / tau
    A[0, 5] -= 2.0 / tau
    A[1, 2] += 2.0 / tau
    A[1, 6] -= 2.0 / tau
    A[2, 3] += 2.0 / tau
    A[2, 1] -= 2.0 / tau


@jit(internal=True)
def add_spin_jacobian_derivative(c, mu, m0, m1, m2, o, HW):
    """HW[o:o+3, o:o+3] += ∂(T(c)ᵀ m)/∂c at fixed m = (½ m̂ − ½ μ cᵀ)/(1 + |c|²/4), the
    term that makes the c–c block of the copy's Hessian symmetric (μ = T(c)ᵀ m)."""
    den = 1.0 + 0.25 * (c[0] * c[0] + c[1] * c[1] + c[2] * c[2])
    for i in range(3):
        for j in range(3):
            HW[o + i, o + j] -= 0.5 * mu[i] * c[j] / den
    HW[o + 0, o + 1] -= 0.5 * m2 / den
    HW[o + 1, o + 0] += 0.5 * m2 / den
    HW[o + 0, o + 2] += 0.5 * m1 / den
    HW[o + 2, o + 0] -= 0.5 * m1 / den
    HW[o + 1, o + 2] -= 0.5 * m0 / den
    HW[o + 2, o + 1] += 0.5 * m0 / den


@jit(internal=True)
def add_cayley_curvature(pi, b, c, mu, mv, Hpi):
    """Hpi[b:b+9, b:b+9] += μ·∇²c over the block P = pi[b:b+9]:
    −(2/τ²)[(μ·∂v/∂P_p) δ_q + (μ·∂v/∂P_q) δ_p] + 2 (μ·c) δ_p δ_q/τ², δ = ∂τ/∂P, for the c
    of ``cayley_of`` (c = c(P), τ = 1 + tr P). Work: mv (9,)."""
    tau = 1.0 + pi[b] + pi[b + 4] + pi[b + 8]
    for q in range(9):
        mv[q] = 0.0
    mu0, mu1, mu2 = mu[0], mu[1], mu[2]
    mv[7], mv[5] = mu0, -mu0
    mv[2], mv[6] = mu1, -mu1
    mv[3], mv[1] = mu2, -mu2
    mc = mu0 * c[0] + mu1 * c[1] + mu2 * c[2]
    for p in (0, 4, 8):
        for q in (0, 4, 8):
            Hpi[b + p, b + q] += 2.0 * mc / (tau * tau)
        for q in range(9):
            Hpi[b + p, b + q] -= 2.0 * mv[q] / (tau * tau)
            Hpi[b + q, b + p] -= 2.0 * mv[q] / (tau * tau)


@jit(internal=True)
def discrete_gradient(dV, gm, dpi, wt, eps2, gb):
    """ḡ = ∇Ṽ(π̄) + [(ΔṼ − ∇Ṽ(π̄)·Δπ)/(Δπ·M Δπ + ε²)] M Δπ into gb, from ΔṼ = dV,
    ∇Ṽ(π̄) = gm, Δπ = dpi, M = diag(wt), ε² = eps2. Returns (c, Δπ·M Δπ + ε², Δπ·M Δπ),
    c the bracket (0 for Δπ = 0): exact energy to a relative (ε/|Δπ|)² where the mismatch is
    far above round-off, and no amplification of rounding where Δπ → 0."""
    num = dV
    den = 0.0
    for q in range(dpi.shape[0]):
        num -= gm[q] * dpi[q]
        den += wt[q] * dpi[q] * dpi[q]
    sden = den + eps2
    cc = num / sden if den > 0.0 else 0.0
    for q in range(dpi.shape[0]):
        gb[q] = gm[q] + cc * wt[q] * dpi[q]
    return cc, sden, den


@jit
def project(B, g, f):
    """f = Bᵀ g (B (npi, m), g (npi,), f (m,))."""
    for r in range(B.shape[1]):
        acc = 0.0
        for q in range(B.shape[0]):
            acc += B[q, r] * g[q]
        f[r] = acc


@jit(internal=True)
def add_mean_motion(Q1n, Q1m, Qan, Qam, rm, g, b, a, v, s, dv, HB):
    """HB (6n, 6n) over (δx_1, w_1, …, δx_n, w_n) at n+1 += the motion of the averaged
    configuration at fixed ḡ of the invariants (y_a, P_a) of chord a: ḡ's y part g[b:b+3]
    and P part g[b+3:b+12]; Q1n, Qan the directors of nodes 1 and a at n+1, Q1m, Qam their
    averages, rm the averaged chord r̄_a. δr̄_a = ½ (δx_a − δx_1), δd̄ = ½ w × d_{n+1}:
    the chord force s_a = Q̄_1 g_y turns by ½ w_1 × v_a (v_a = Q_1,n+1 g_y) and acts on the
    moment of node 1 through s_a × r̄_a; Z_a = Σ g_P,ij d̄1_i × d̄a_j (moment of node 1, minus
    that of node a) moves by (½ w_1 × p) × q = ½ [p (q·w_1) − w_1 (p·q)] and
    p × (½ w_a × q) = ½ [w_a (p·q) − q (p·w_a)]. Work: v, s, dv (3,)."""
    for i in range(3):
        v[i] = Q1n[i, 0] * g[b] + Q1n[i, 1] * g[b + 1] + Q1n[i, 2] * g[b + 2]
        s[i] = Q1m[i, 0] * g[b] + Q1m[i, 1] * g[b + 1] + Q1m[i, 2] * g[b + 2]
    for k in range(3):
        # column k of w_1 (δs_a = ½ w_1 × v_a) and of δx_a (δr̄_a = ½ δx_a): with i1, i2 the
        # cyclic successors of k, e_k × v = v_i1 e_i2 − v_i2 e_i1 (the other entry 0)
        i1 = (k + 1) % 3
        i2 = (k + 2) % 3
        dv[k] = 0.0
        dv[i1] = -0.5 * v[i2]
        dv[i2] = 0.5 * v[i1]
        for i in range(3):
            HB[6 * a + i, 3 + k] += dv[i]
            HB[i, 3 + k] -= dv[i]
            # f_w1 ∋ s_a × r̄_a: δs_a × r̄_a, and s_a × δr̄_a = ½ s_a × e_k
            j1 = (i + 1) % 3
            j2 = (i + 2) % 3
            HB[3 + i, 3 + k] += dv[j1] * rm[j2] - dv[j2] * rm[j1]
            c = 0.0 if i == k else (0.5 * s[i2] if i == i1 else -0.5 * s[i1])
            HB[3 + i, 6 * a + k] += c
            HB[3 + i, k] -= c
    for i in range(3):
        for j in range(3):
            gij = g[b + 3 + 3 * i + j]
            ab1 = 0.0
            ab2 = 0.0
            for k in range(3):
                ab1 += Q1n[k, i] * Qam[k, j]
                ab2 += Q1m[k, i] * Qan[k, j]
            for r in range(3):
                for k in range(3):
                    dz1 = 0.5 * gij * (Q1n[r, i] * Qam[k, j] - (ab1 if r == k else 0.0))
                    dz2 = 0.5 * gij * ((ab2 if r == k else 0.0) - Qan[r, j] * Q1m[k, i])
                    HB[3 + r, 3 + k] += dz1
                    HB[3 + r, 6 * a + 3 + k] += dz2
                    HB[6 * a + 3 + r, 3 + k] -= dz1
                    HB[6 * a + 3 + r, 6 * a + 3 + k] -= dz2


@jit(internal=True)
def add_correction_tangent(Hpi, B1, Bm, dpi, wt, g1, gm, cc, sden, den, Kp, zc, row, HB):
    """HB (m, m) += Bmᵀ ∂ḡ/∂q_{n+1}: ∂ḡ = ½ ∇²Ṽ(π̄) B1 + the derivative of the correction
    c M Δπ of ``discrete_gradient``, ∂c = (∂num − 2c (MΔπ)·∂Δπ)/(Δπ·MΔπ + ε²),
    ∂num = (∇Ṽ(π_{n+1}) − ∇Ṽ(π̄) − ½ ∇²Ṽ Δπ)·∂π_{n+1}, ∂Δπ = ∂π_{n+1} = B1 (Hpi = ∇²Ṽ(π̄),
    g1 = ∇Ṽ(π_{n+1}), gm = ∇Ṽ(π̄), B1 = B(q_{n+1}), Bm = B(q̄); cc, sden, den from
    ``discrete_gradient``). Work: Kp (npi, m), zc (npi,), row (m,).

    Every sum runs over its terms in index order, with the columns q innermost (contiguous
    rows of Kp, B1, HB: loops the compiler vectorizes). The product with Bm skips its zero
    entries (about half: a chord invariant does not vary with the rotations of the far
    node, a triad invariant not with translations); a skipped term is ±0, which leaves a
    sum begun at +0 unchanged, so the result is bitwise that of the dense products."""
    npi, m = B1.shape[0], B1.shape[1]
    for r in range(npi):
        for q in range(m):
            Kp[r, q] = 0.0
        for k in range(npi):
            h = Hpi[r, k]
            for q in range(m):
                Kp[r, q] += h * B1[k, q]
        for q in range(m):
            Kp[r, q] = 0.5 * Kp[r, q]
    if den > 0.0:
        for k in range(npi):
            acc = 0.0
            for q in range(npi):
                acc += Hpi[q, k] * dpi[q]
            zc[k] = (g1[k] - gm[k] - 0.5 * acc - 2.0 * cc * wt[k] * dpi[k]) / sden
        for q in range(m):
            row[q] = 0.0
        for k in range(npi):
            z = zc[k]
            for q in range(m):
                row[q] += z * B1[k, q]
        for r in range(npi):
            a = wt[r] * dpi[r]
            c = cc * wt[r]
            for q in range(m):
                Kp[r, q] += a * row[q] + c * B1[r, q]
    for r in range(m):
        for q in range(m):
            row[q] = 0.0
        for k in range(npi):
            b = Bm[k, r]
            if b == 0.0:
                continue
            for q in range(m):
                row[q] += b * Kp[k, q]
        for q in range(m):
            HB[r, q] += row[q]


@jit(internal=True)
def rotation_columns(HB, Tp, K):
    """K (6n, 6n) = HB with the rotational columns of each node a times T(ψ_a) (Tp (n, 3, 3);
    w_a = T(ψ_a) δψ_a): the Newton matrix over the step's unknowns (Δx_a, ψ_a)."""
    for r in range(HB.shape[0]):
        for a in range(Tp.shape[0]):
            for k in range(3):
                K[r, 6 * a + k] = HB[r, 6 * a + k]
            for k in range(3):
                acc = 0.0
                for m in range(3):
                    acc += HB[r, 6 * a + 3 + m] * Tp[a, m, k]
                K[r, 6 * a + 3 + k] = acc

