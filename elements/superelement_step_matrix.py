"""Analytic Newton matrix of the superelement's mid-point step force
(elements.superelement_step).

The step force is r = D̄ᵀ t + Φ̄ᵀ L + E_cᵀ G_s with t = ḡ + H (the Simpson mean of ∇V and
the modal inertia H = Σ_j Ψ̄_jᵀ W g_j), L = Σ_j c_j × g_j, G_s = Σ_j g_j, the point forces
g_j = m_j (2Δx_j/h − 2v_j − h g)/h (units of force), W = R_s0ᵀ(I − φ̂/2), c_j the mean lever
of point j and D̄, Φ̄ the discrete derivatives of the deformation and of the frame turn.
t, L and G_s depend on the increment z (m,) only through the end of the step:

    ξ = (Δo (3), the spatial spin of R_s1 (3), d_1 (m)),    ∂ξ/∂z = [E_c; F_1 T_ψ; D_1 T_ψ],

D_1, F_1 the derivatives of the deformation and the frame at the end configuration per unit
spatial spin of the nodes (superelement_step.frame_maps) and T_ψ the Cayley spin map of each
node's increment (δR_a,1 R_a,1ᵀ = (T(ψ_a) δψ_a)^). The frame's Cayley increment φ follows R_s1:
δφ = T(φ)⁻¹ s with T(φ)⁻¹ = I − φ̂/2 + φφᵀ/4. This module writes ∂(G_s, L, H)/∂ξ
(``moment_derivatives`` from the mass moments in O(m²); ``point_derivatives`` point by point,
with the points' second-order rows), chains them to z (``chain``, with the end configuration's maps
from ``_end_frame``, ``_end_maps``) and projects them (``_project``, ``_step_matrix``). The matrix

    K = D̄ᵀ ∂t/∂z + Φ̄ᵀ ∂L/∂z + E_cᵀ ∂G_s/∂z

is the exact derivative of r except for the variation of the mid-point maps D̄, Φ̄
themselves (the frame's second derivatives times t and L), which elements.superelement_step
adds for elements with two or more interface nodes; with one interface node the frame is the
node's own frame (R_s = R_a, d's nodal entries vanish identically), D̄ and Φ̄ are constant and
K above is exact. The frame's mid-point and end maps (``frame_maps``) live here too.
"""
import numpy as np

from femb.core import jit
from femb.core.rotations import cayley, cayley_spin_jacobian, hat, mat3

from .superelement_frame import deformation, deformation_derivatives


@jit(internal=True)
def _half_turn_map(Rs0, phi, W):
    """W (3, 3) = R_s0ᵀ (I − φ̂/2): the frame turn of the step seen from the start frame."""
    Hm = np.empty((3, 3))
    hat(phi, Hm)
    for i in range(3):
        for j in range(3):
            Hm[i, j] = (1.0 if i == j else 0.0) - 0.5 * Hm[i, j]
    for i in range(3):
        for j in range(3):
            W[i, j] = Rs0[0, i] * Hm[0, j] + Rs0[1, i] * Hm[1, j] + Rs0[2, i] * Hm[2, j]


@jit(internal=True)
def cayley_inverse_map(phi, Ti):
    """Ti (3, 3) = T(φ)⁻¹ = I − φ̂/2 + φφᵀ/4: the variation δφ of the Cayley vector of a
    rotation per unit spatial spin s of the rotation (δR Rᵀ = ŝ)."""
    for i in range(3):
        for j in range(3):
            Ti[i, j] = 0.25 * phi[i] * phi[j] + (1.0 if i == j else 0.0)
    Ti[0, 1] += 0.5 * phi[2]
    Ti[0, 2] -= 0.5 * phi[1]
    Ti[1, 0] -= 0.5 * phi[2]
    Ti[1, 2] += 0.5 * phi[0]
    Ti[2, 0] += 0.5 * phi[1]
    Ti[2, 1] -= 0.5 * phi[0]


@jit(internal=True)
def _first_moment(I1, I2, R, d, out):
    """out[p, q, k] = Σ_j m_j (R y_j)_p Φ_jqk (3, 3, m) with y_j = Ŷ_j + Φ_j d."""
    m = d.shape[0]
    M1 = np.empty((3, 3, m))
    for r in range(3):
        for q in range(3):
            for k in range(m):
                acc = I1[r, q, k]
                for l in range(m):
                    acc += I2[q, k, r, l] * d[l]
                M1[r, q, k] = acc
    for p in range(3):
        for q in range(3):
            for k in range(m):
                out[p, q, k] = R[p, 0] * M1[0, q, k] + R[p, 1] * M1[1, q, k] + R[p, 2] * M1[2, q, k]


@jit(internal=True)
def moment_derivatives(m_tot, s0, S1, I0, I1, I2, V, Vd, h, do, d0, d1, Rs0, Rs1, phi, dGs, dL, dH):
    """∂G_s/∂ξ (3, 6 + m), ∂L/∂ξ (3, 6 + m) and ∂H/∂ξ (m, 6 + m) (module docstring) from the
    mass moments (superelement_step.point_moments: m_tot, s0, S1, I0, I1, I2) and the velocity
    moments V (3, 3), Vd (3, m, 3) of the start velocities (gravity included) at the step's
    end state: Δo = do (3,), d0, d1 (m,), R_s0, R_s1 (3, 3), φ (3,); h the step (time)."""
    m = d0.shape[0]
    c2 = 2.0 / (h * h)
    ch = 2.0 / h
    y0 = np.empty(3)
    y1 = np.empty(3)
    a_sum = np.empty(3)
    b_sum = np.empty(3)
    for p in range(3):
        acc0 = s0[p]
        acc1 = s0[p]
        for k in range(m):
            acc0 += S1[p, k] * d0[k]
            acc1 += S1[p, k] * d1[k]
        y0[p] = acc0
        y1[p] = acc1
    for i in range(3):
        a_sum[i] = Rs0[i, 0] * y0[0] + Rs0[i, 1] * y0[1] + Rs0[i, 2] * y0[2]
        b_sum[i] = Rs1[i, 0] * y1[0] + Rs1[i, 1] * y1[1] + Rs1[i, 2] * y1[2]
    # Q01 = Σ m y0 ⊗ y1, Q11 = Σ m y1 ⊗ y1 (local), W1 = Σ m y1 ⊗ v0
    Q01 = np.empty((3, 3))
    Q11 = np.empty((3, 3))
    W1 = np.empty((3, 3))
    t1 = np.empty(m)
    for p in range(3):
        for q in range(3):
            for k in range(m):
                s_1 = 0.0
                for l in range(m):
                    s_1 += I2[p, k, q, l] * d1[l]
                t1[k] = s_1
            a01 = I0[p, q]
            a11 = I0[p, q]
            for k in range(m):
                a01 += I1[p, q, k] * d1[k] + I1[q, p, k] * d0[k] + d0[k] * t1[k]
                a11 += I1[p, q, k] * d1[k] + I1[q, p, k] * d1[k] + d1[k] * t1[k]
            Q01[p, q] = a01
            Q11[p, q] = a11
            acc = V[p, q]
            for k in range(m):
                acc += Vd[p, k, q] * d1[k]
            W1[p, q] = acc
    # spatial: Bb = Σ m b⊗b, Cba = Σ m b⊗a, Cbv = Σ m b⊗v0
    Bb = np.zeros((3, 3))
    Cba = np.zeros((3, 3))
    Cbv = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            acc_b = 0.0
            acc_a = 0.0
            acc_v = 0.0
            for p in range(3):
                for q in range(3):
                    acc_b += Rs1[i, p] * Q11[p, q] * Rs1[j, q]
                    acc_a += Rs1[i, p] * Q01[q, p] * Rs0[j, q]
                acc_v += Rs1[i, p] * W1[p, j]
            Bb[i, j] = acc_b
            Cba[i, j] = acc_a
            Cbv[i, j] = acc_v
    # B_g = Σ b ⊗ g, C_b = Σ m c ⊗ b
    Bg = np.empty((3, 3))
    Cb = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            Bg[i, j] = c2 * (b_sum[i] * do[j] + Bb[i, j] - Cba[i, j]) - ch * Cbv[i, j]
            Cb[i, j] = 0.5 * (Cba[j, i] + Bb[i, j])
    trBg = Bg[0, 0] + Bg[1, 1] + Bg[2, 2]
    trCb = Cb[0, 0] + Cb[1, 1] + Cb[2, 2]
    NA = np.empty((3, 3, m))
    NB = np.empty((3, 3, m))
    _first_moment(I1, I2, Rs0, d0, NA)
    _first_moment(I1, I2, Rs1, d1, NB)
    NG = np.empty((3, 3, m))  # Σ g_p Φ_qk
    NC = np.empty((3, 3, m))  # Σ m c_p Φ_qk
    for p in range(3):
        for q in range(3):
            for k in range(m):
                NG[p, q, k] = c2 * (do[p] * S1[q, k] + NB[p, q, k] - NA[p, q, k]) - ch * Vd[q, k, p]
                NC[p, q, k] = 0.5 * (NA[p, q, k] + NB[p, q, k])
    n_xi = 6 + m
    for i in range(3):
        for j in range(n_xi):
            dGs[i, j] = 0.0
            dL[i, j] = 0.0
    for k in range(m):
        for j in range(n_xi):
            dH[k, j] = 0.0
    X = np.empty(3)
    # G_s
    for i in range(3):
        dGs[i, i] = c2 * m_tot
        for k in range(m):
            dGs[i, 6 + k] = c2 * (Rs1[i, 0] * S1[0, k] + Rs1[i, 1] * S1[1, k] + Rs1[i, 2] * S1[2, k])
    dGs[0, 4], dGs[0, 5] = c2 * b_sum[2], -c2 * b_sum[1]  # s × b_sum = −b̂_sum s
    dGs[1, 3], dGs[1, 5] = -c2 * b_sum[2], c2 * b_sum[0]
    dGs[2, 3], dGs[2, 4] = c2 * b_sum[1], -c2 * b_sum[0]
    # L: Δo columns c2 ĉ_sum; spin columns ½(B_g − tr B_g) + c2 (tr C_b − C_bᵀ)
    for i in range(3):
        X[i] = 0.5 * c2 * (a_sum[i] + b_sum[i])
    dL[0, 1], dL[0, 2] = -X[2], X[1]
    dL[1, 0], dL[1, 2] = X[2], -X[0]
    dL[2, 0], dL[2, 1] = -X[1], X[0]
    for i in range(3):
        for j in range(3):
            dL[i, 3 + j] = 0.5 * Bg[i, j] - c2 * Cb[j, i]
        dL[i, 3 + i] += -0.5 * trBg + c2 * trCb
    # L: d1 columns −½ ε_ipt (R_s1 NG)[p, t] + c2 ε_ipt (R_s1 NC)[p, t]
    for k in range(m):
        for i in range(3):
            p = (i + 1) % 3
            t = (i + 2) % 3
            xg_pt = Rs1[t, 0] * NG[p, 0, k] + Rs1[t, 1] * NG[p, 1, k] + Rs1[t, 2] * NG[p, 2, k]
            xg_tp = Rs1[p, 0] * NG[t, 0, k] + Rs1[p, 1] * NG[t, 1, k] + Rs1[p, 2] * NG[t, 2, k]
            xc_pt = Rs1[t, 0] * NC[p, 0, k] + Rs1[t, 1] * NC[p, 1, k] + Rs1[t, 2] * NC[p, 2, k]
            xc_tp = Rs1[p, 0] * NC[t, 0, k] + Rs1[p, 1] * NC[t, 1, k] + Rs1[p, 2] * NC[t, 2, k]
            dL[i, 6 + k] = -0.5 * (xg_pt - xg_tp) + c2 * (xc_pt - xc_tp)
    # H: W = R_s0ᵀ (I − φ̂/2)
    W = np.empty((3, 3))
    _half_turn_map(Rs0, phi, W)
    A = np.empty((3, 3))  # W R_s1
    for i in range(3):
        for j in range(3):
            A[i, j] = W[i, 0] * Rs1[0, j] + W[i, 1] * Rs1[1, j] + W[i, 2] * Rs1[2, j]
    Ti = np.empty((3, 3))
    cayley_inverse_map(phi, Ti)
    P = np.empty(3)
    for k in range(m):
        for i in range(3):
            dH[k, i] = c2 * (S1[0, k] * W[0, i] + S1[1, k] * W[1, i] + S1[2, k] * W[2, i])
        # spin of R_s1: c2 Σ W_pq ε_qiu NB[u, p, k]; turn of W: ½ Σ R_s0[t, p] ε_tui NG[u, p, k] T(φ)⁻¹
        for i in range(3):
            acc = 0.0
            accp = 0.0
            for q in range(3):
                u = 3 - q - i
                if q == i:
                    continue
                sgn = 1.0 if (i - q) % 3 == 1 else -1.0  # ε_qiu
                for p in range(3):
                    acc += sgn * W[p, q] * NB[u, p, k]
                    accp -= sgn * Rs0[q, p] * NG[u, p, k]  # ε_tui = −ε_tiu with t = q
            dH[k, 3 + i] = c2 * acc
            P[i] = 0.5 * accp
        for i in range(3):
            dH[k, 3 + i] += P[0] * Ti[0, i] + P[1] * Ti[1, i] + P[2] * Ti[2, i]
        for l in range(m):
            acc = 0.0
            for p in range(3):
                for q in range(3):
                    acc += A[p, q] * I2[p, k, q, l]
            dH[k, 6 + l] = c2 * acc


@jit(internal=True)
def point_derivatives(mass, modes, second, has2, h, v0, y0, y1s, do, d0, d1, Rs0, Rs1, phi, dGs, dL, dH):
    """``moment_derivatives`` point by point, for mass points with second-order rows
    (``has2``: y_j = Ŷ_j + Φ_j d + ½ q̂ᵀ S_j q̂, its modal columns Φ_j + S_j(q̂) in the end
    point map and Φ_j + S_j(q̄) in H, q̄ the mean modal amplitudes): mass (n_p,), modes
    (n_p, 3, m), second (n_p, 3, k, k), v0 (n_p, 3) the start velocities (gravity
    included), y0, y1s (n_p, 3) the local positions at the step's ends."""
    m = d0.shape[0]
    kq = second.shape[2] if has2 else 0
    q0 = m - kq
    c2 = 2.0 / (h * h)
    ch = 2.0 / h
    n_xi = 6 + m
    for i in range(3):
        for j in range(n_xi):
            dGs[i, j] = 0.0
            dL[i, j] = 0.0
    for k in range(m):
        for j in range(n_xi):
            dH[k, j] = 0.0
    W = np.empty((3, 3))
    _half_turn_map(Rs0, phi, W)
    Ti = np.empty((3, 3))
    cayley_inverse_map(phi, Ti)
    qbar = np.empty(kq)
    for a in range(kq):
        qbar[a] = 0.5 * (d0[q0 + a] + d1[q0 + a])
    a_ = np.empty(3)
    b_ = np.empty(3)
    g = np.empty(3)
    c = np.empty(3)
    wv = np.empty(3)
    Psi1 = np.empty((3, m))
    Psib = np.empty((3, m))
    Jb = np.zeros((3, n_xi))
    Jg = np.zeros((3, n_xi))
    bh = np.empty((3, 3))
    gh = np.empty((3, 3))
    ch_ = np.empty((3, 3))
    WJ = np.empty((3, n_xi))
    Pg = np.empty((3, 3))
    for j in range(mass.shape[0]):
        mj = mass[j]
        for i in range(3):
            a_[i] = Rs0[i, 0] * y0[j, 0] + Rs0[i, 1] * y0[j, 1] + Rs0[i, 2] * y0[j, 2]
            b_[i] = Rs1[i, 0] * y1s[j, 0] + Rs1[i, 1] * y1s[j, 1] + Rs1[i, 2] * y1s[j, 2]
        for i in range(3):
            g[i] = mj * (c2 * (do[i] + b_[i] - a_[i]) - ch * v0[j, i])
            c[i] = 0.5 * (a_[i] + b_[i])
        for i in range(3):
            for k in range(m):
                Psi1[i, k] = modes[j, i, k]
                Psib[i, k] = modes[j, i, k]
            for a in range(kq):
                s1 = 0.0
                sb = 0.0
                for b in range(kq):
                    s1 += 0.5 * (second[j, i, a, b] + second[j, i, b, a]) * d1[q0 + b]
                    sb += second[j, i, a, b] * qbar[b]
                Psi1[i, q0 + a] += s1
                Psib[i, q0 + a] += sb
        hat(b_, bh)
        hat(g, gh)
        hat(c, ch_)
        for i in range(3):
            for k in range(3):
                Jb[i, k] = 0.0
                Jb[i, 3 + k] = -bh[i, k]
            for k in range(m):
                Jb[i, 6 + k] = Rs1[i, 0] * Psi1[0, k] + Rs1[i, 1] * Psi1[1, k] + Rs1[i, 2] * Psi1[2, k]
            for k in range(n_xi):
                Jg[i, k] = c2 * mj * Jb[i, k]
            Jg[i, i] = c2 * mj
        for i in range(3):
            for k in range(n_xi):
                dGs[i, k] += Jg[i, k]
                dL[i, k] += (-0.5 * (gh[i, 0] * Jb[0, k] + gh[i, 1] * Jb[1, k] + gh[i, 2] * Jb[2, k])
                             + ch_[i, 0] * Jg[0, k] + ch_[i, 1] * Jg[1, k] + ch_[i, 2] * Jg[2, k])
                WJ[i, k] = W[i, 0] * Jg[0, k] + W[i, 1] * Jg[1, k] + W[i, 2] * Jg[2, k]
        # the turn of W: ½ R_s0ᵀ ĝ T(φ)⁻¹ per unit spin of R_s1
        for i in range(3):
            for k in range(3):
                acc = 0.0
                for t in range(3):
                    acc += Rs0[t, i] * (gh[t, 0] * Ti[0, k] + gh[t, 1] * Ti[1, k] + gh[t, 2] * Ti[2, k])
                Pg[i, k] = 0.5 * acc
        for i in range(3):
            wv[i] = W[i, 0] * g[0] + W[i, 1] * g[1] + W[i, 2] * g[2]
        for k in range(m):
            for l in range(n_xi):
                dH[k, l] += Psib[0, k] * WJ[0, l] + Psib[1, k] * WJ[1, l] + Psib[2, k] * WJ[2, l]
            for l in range(3):
                dH[k, 3 + l] += Psib[0, k] * Pg[0, l] + Psib[1, k] * Pg[1, l] + Psib[2, k] * Pg[2, l]
        for a in range(kq):  # S_j(q̄) varies with q̄ = (q0 + q1)/2
            for b in range(kq):
                dH[q0 + a, 6 + q0 + b] += 0.5 * (second[j, 0, a, b] * wv[0] + second[j, 1, a, b] * wv[1]
                                                 + second[j, 2, a, b] * wv[2])


@jit
def chain(n, dtot, dL, dGs, S, Dd, dtot_z, dL_z, dGs_z):
    """The derivatives by ξ (``moment_derivatives``: dtot (m, 6 + m), dL, dGs (3, 6 + m))
    carried to the increment z: X_z = X_ξ [E_c; S; Dd] with E_c the centroid map (1/n on
    each node's translations), S (3, m) the end frame's spin and Dd (m, m) the end
    deformation per unit z; writes dtot_z (m, m), dL_z, dGs_z (3, m)."""
    m = Dd.shape[0]
    for r in range(m + 6):
        if r < m:
            src = dtot
            row = r
        elif r < m + 3:
            src = dL
            row = r - m
        else:
            src = dGs
            row = r - m - 3
        for c in range(m):
            acc = 0.0
            for k in range(3):
                acc += src[row, 3 + k] * S[k, c]
            for k in range(m):
                acc += src[row, 6 + k] * Dd[k, c]
            if c < 6 * n and c % 6 < 3:
                acc += src[row, c % 6] / n
            if r < m:
                dtot_z[row, c] = acc
            elif r < m + 3:
                dL_z[row, c] = acc
            else:
                dGs_z[row, c] = acc


@jit
def _work(n, m):
    """Work arrays for one element of n interface nodes and m coordinates."""
    M = 6 * n
    return (np.zeros((n, 3)), np.zeros((n, 3)), np.zeros((n, 3, 3)), np.zeros((3, 3)), np.zeros((n, 3)),
            np.zeros((n, 3, 3)), np.zeros((3, M)), np.zeros((M, M)), np.zeros((3, 3)), np.zeros((3, 3)))


@jit(internal=True)
def frame_maps(X1, ue, Re, Dg, Fg, d, Rs):
    """At the configuration (ue (1, m), Re (1, n, 3, 3)) of the element with reference
    coordinates X1 (1, n, 3): the deformational vector d (m,), the frame rotation Rs (3, 3)
    and the derivatives Dg = ∂d/∂z (m, m) and Fg (3, m) = the frame's spatial spin per unit
    z (rotational columns per unit spatial spin of the node, modal columns per unit q̂);
    returns (o (3,) the centroid, ℓ² the rotation weight). With one interface node the
    frame is the node's rotation, so Dg and Fg are written exactly (zero nodal rows of Dg,
    the identity on the modal ones; Fg the identity on the node's spin)."""
    n = X1.shape[1]
    m = ue.shape[1]
    M = 6 * n
    if n == 1:  # the frame is the node's own (superelement_frame.shadow_frame): d's nodal entries vanish identically
        Xt, Y, Rb, th = np.empty((1, 3)), np.empty((1, 3)), np.empty((1, 3, 3)), np.empty((1, 3))
        o, w = deformation(X1, ue, Re, 0, Xt, Y, Rb, Rs, th, d)
        for i in range(m):
            for j in range(m):
                Dg[i, j] = 1.0 if (i == j and i >= M) else 0.0
        for i in range(3):
            for j in range(m):
                Fg[i, j] = 1.0 if j == 3 + i else 0.0
        return o, w
    Xt, Y, Rb, _, th, Jinv, Om, Bt, A, Ai = _work(n, m)
    o, w = deformation_derivatives(X1, ue, Re, 0, Xt, Y, Rb, Rs, th, d, Jinv, Om, Bt, A, Ai)
    for i in range(m):
        for j in range(m):
            Dg[i, j] = 0.0
        if i >= M:
            Dg[i, i] = 1.0
    for i in range(M):  # B̃ Tᵀ: each 3-column block turned by R_sᵀ
        for b in range(2 * n):
            for c in range(3):
                Dg[i, 3 * b + c] = Bt[i, 3 * b] * Rs[c, 0] + Bt[i, 3 * b + 1] * Rs[c, 1] + Bt[i, 3 * b + 2] * Rs[c, 2]
    for i in range(3):
        for j in range(m):
            Fg[i, j] = 0.0
    for b in range(2 * n):  # R_s Ω Tᵀ
        for i in range(3):
            for c in range(3):
                acc = 0.0
                for k in range(3):
                    for q in range(3):
                        acc += Rs[i, k] * Om[k, 3 * b + q] * Rs[c, q]
                Fg[i, 3 * b + c] = acc
    return o, w


@jit(internal=True)
def _defects(dz, d0, d1, Dg, Fg, phi, ed, ef):
    """What the mid derivatives miss of the step: ed (m,) = Δd − Dg dz and ef (3,) = φ − Fg dz
    (the defects Gonzalez's correction in ``_project`` distributes)."""
    m = dz.shape[0]
    for k in range(m):
        acc = d1[k] - d0[k]
        for i in range(m):
            acc -= Dg[k, i] * dz[i]
        ed[k] = acc
    for c in range(3):
        acc = phi[c]
        for i in range(m):
            acc -= Fg[c, i] * dz[i]
        ef[c] = acc


@jit(internal=True)
def _project_defects(Dg, Fg, yv, den, ed, ef, tot, L, Gs, n, r):
    """``_project`` with the step's defects ed, ef (``_defects``) given."""
    m = Dg.shape[0]
    for i in range(m):
        acc = 0.0
        for k in range(m):
            acc += Dg[k, i] * tot[k]
        r[i] = acc + Fg[0, i] * L[0] + Fg[1, i] * L[1] + Fg[2, i] * L[2]
    for a in range(n):
        for c in range(3):
            r[6 * a + c] += Gs[c] / n
    if den > 0.0:
        corr = 0.0
        for k in range(m):
            corr += ed[k] * tot[k]
        for c in range(3):
            corr += ef[c] * L[c]
        for i in range(m):
            r[i] += yv[i] * corr / den


@jit(internal=True)
def _project(dz, d0, d1, Dg, Fg, phi, yv, den, tot, L, Gs, n, r):
    """r (m,) = D̄ᵀ tot + Φ̄ᵀ L + E_cᵀ Gs with the discrete derivatives D̄, Φ̄ of the step
    (module docstring: the mid derivatives Dg, Fg plus Gonzalez's correction along yv/den)."""
    ed = np.empty(dz.shape[0])
    ef = np.empty(3)
    if den > 0.0:
        _defects(dz, d0, d1, Dg, Fg, phi, ed, ef)
    _project_defects(Dg, Fg, yv, den, ed, ef, tot, L, Gs, n, r)


@jit(internal=True)
def _end_frame(X1, u0, R0, dz, Dg1, Fg1, d1, Rs1, maps):
    """The end configuration of the step at the increment dz (m,) (u0 + dz, the nodes
    turned by cay(ψ_a)): the deformation d1 (m,), frame Rs1 (3, 3) and, when ``maps``, their
    derivatives Dg1 (m, m), Fg1 (3, m) per unit spatial spin of the nodes (``frame_maps``;
    else ``deformation`` alone, Dg1 and Fg1 untouched); returns o1 (3,) the end centroid."""
    n = X1.shape[1]
    m = u0.shape[1]
    u1 = u0.copy()
    for i in range(m):
        u1[0, i] += dz[i]
    R1 = np.empty_like(R0)
    C = np.empty((3, 3))
    psi = np.empty(3)
    for a in range(n):
        for c in range(3):
            psi[c] = dz[6 * a + 3 + c]
        cayley(psi, C)
        mat3(C, R0[0, a], R1[0, a])
    if maps:
        o1, _ = frame_maps(X1, u1, R1, Dg1, Fg1, d1, Rs1)
        return o1
    Xt, Y, Rb, _, th, _, _, _, _, _ = _work(n, m)
    o1, _ = deformation(X1, u1, R1, 0, Xt, Y, Rb, Rs1, th, d1)
    return o1


@jit(internal=True)
def _end_maps(dz, n, Dg1, Fg1, Dd, S):
    """The end of the step's deformation and frame per unit increment: Dd (m, m) = ∂d1/∂z
    and S (3, m) the spatial spin of R_s1 per unit z, from the end configuration's maps
    Dg1, Fg1 (``_end_frame``), rotational columns through the Cayley spin maps T(ψ_a) of
    the n nodes."""
    m = dz.shape[0]
    T = np.empty((3, 3))
    psi = np.empty(3)
    for i in range(m):
        for j in range(m):
            Dd[i, j] = Dg1[i, j]
    for i in range(3):
        for j in range(m):
            S[i, j] = Fg1[i, j]
    for a in range(n):
        for c in range(3):
            psi[c] = dz[6 * a + 3 + c]
        cayley_spin_jacobian(psi, T)
        col = 6 * a + 3
        for i in range(m):
            x0, x1, x2 = Dg1[i, col], Dg1[i, col + 1], Dg1[i, col + 2]
            for c in range(3):
                Dd[i, col + c] = x0 * T[0, c] + x1 * T[1, c] + x2 * T[2, c]
        for i in range(3):
            x0, x1, x2 = Fg1[i, col], Fg1[i, col + 1], Fg1[i, col + 2]
            for c in range(3):
                S[i, col + c] = x0 * T[0, c] + x1 * T[1, c] + x2 * T[2, c]


@jit(internal=True)
def _step_matrix(n, dz, d0, d1, Dg, Fg, phi, yv, den, Dg1, Fg1, Hm, H1, dGs, dL, dH, K):
    """K (m, m) = D̄ᵀ ∂t/∂z + Φ̄ᵀ ∂L/∂z + E_cᵀ ∂G_s/∂z (elements.superelement_step_matrix)
    for n interface nodes from the derivatives by ξ of the inertia terms (dGs, dL (3, 6 + m),
    dH (m, 6 + m)), the end configuration's maps Dg1, Fg1 (``_end_frame``) and the Hessians
    Hm, H1 (m, m) of V at the mid and end deformations added for ḡ (∂ḡ/∂d1 = (2∇²V(d_m) +
    ∇²V(d1))/6)."""
    m = dz.shape[0]
    for i in range(m):
        for j in range(m):
            dH[i, 6 + j] += (2.0 * Hm[i, j] + H1[i, j]) / 6.0
    Dd = np.zeros((m, m))
    S = np.zeros((3, m))
    _end_maps(dz, n, Dg1, Fg1, Dd, S)
    tz = np.zeros((m, m))
    Lz = np.zeros((3, m))
    Gz = np.zeros((3, m))
    chain(n, dH, dL, dGs, S, Dd, tz, Lz, Gz)
    col = np.zeros(m)
    tc = np.zeros(m)
    Lc = np.zeros(3)
    Gc = np.zeros(3)
    ed = np.empty(m)
    ef = np.empty(3)
    if den > 0.0:
        _defects(dz, d0, d1, Dg, Fg, phi, ed, ef)
    for c in range(m):
        for i in range(m):
            tc[i] = tz[i, c]
        for i in range(3):
            Lc[i] = Lz[i, c]
            Gc[i] = Gz[i, c]
        _project_defects(Dg, Fg, yv, den, ed, ef, tc, Lc, Gc, n, col)
        for i in range(m):
            K[i, c] = col[i]


__all__ = ["frame_maps", "moment_derivatives", "point_derivatives", "chain", "cayley_inverse_map"]
