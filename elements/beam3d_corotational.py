"""Co-rotational kinematics of the spatial beams (beam3d, beam3d_timoshenko): reference
triad, element frame and local rotations (Battini–Pacoste), and the transformation of the
local force and Hessian to nodal forces and the exact tangent through (3, 12) variation
matrices. See elements.beam3d for the formulation."""
import math

import numpy as np

from femb.core import jit
from femb.core.rotations import hat, left_jacobian_inverse, left_jacobian_inverse_T_derivative, log_so3

# rows of the (n, 12) variation work array (see _transform)
_DR1, _WE, _DQ1, _DQ2, _DQ, _DR3, _DQL, _DFL = 0, 3, 6, 9, 12, 15, 18, 25
_DM1, _DM2, _DMS, _TMP, _TMP2, _DA, _DB = 32, 35, 38, 41, 44, 47, 50
_DL, _TW, _DH, _DG, _DTAU, _DC = 53, 54, 55, 56, 57, 58
_N_ROWS = 59


# --------------------------------------------------------------------------- geometry
@jit
def _reference_triad(X, p, e, R0):
    """Reference section triad R0 (3, 3) of element ``e`` (columns e1, e2, e3, see the
    module docstring); returns l0."""
    d0 = X[e, 1, 0] - X[e, 0, 0]
    d1 = X[e, 1, 1] - X[e, 0, 1]
    d2 = X[e, 1, 2] - X[e, 0, 2]
    l0 = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    e1x, e1y, e1z = d0 / l0, d1 / l0, d2 / l0
    vx, vy, vz = p[e, 8], p[e, 9], p[e, 10]
    vn = math.sqrt(vx * vx + vy * vy + vz * vz)
    ve = vx * e1x + vy * e1y + vz * e1z
    wx, wy, wz = vx - ve * e1x, vy - ve * e1y, vz - ve * e1z
    wn = math.sqrt(wx * wx + wy * wy + wz * wz)
    if vn == 0.0 or wn <= 1e-8 * vn:
        # default: e_Z × e1, or e_Y for (nearly) vertical members
        wx, wy, wz = -e1y, e1x, 0.0
        wn = math.sqrt(wx * wx + wy * wy)
        if wn <= 1e-6:
            wx, wy, wz = -e1y * e1x, 1.0 - e1y * e1y, -e1y * e1z
            wn = math.sqrt(wx * wx + wy * wy + wz * wz)
    R0[0, 0], R0[1, 0], R0[2, 0] = e1x, e1y, e1z
    R0[0, 1], R0[1, 1], R0[2, 1] = wx / wn, wy / wn, wz / wn
    R0[0, 2] = e1y * R0[2, 1] - e1z * R0[1, 1]
    R0[1, 2] = e1z * R0[0, 1] - e1x * R0[2, 1]
    R0[2, 2] = e1x * R0[1, 1] - e1y * R0[0, 1]
    return l0


@jit
def _kinematics(X, u, R, p, e, R0, F, qa, th, RR):
    """Co-rotational state of element ``e``.

    Writes the reference triad R0 (3, 3), the element frame F (3, 3) *as rows* (r1, r2, r3),
    the current section y axes qa (2, 3) and the local rotation vectors th (2, 3); RR (2, 3, 3)
    is work space (RR[0] = R_a R0 of the last node). Returns ``(l0, l, ul, h, g)``: reference and current length, stretch
    l − l0, h = q·r1, g = q·r2 with q = ½ (q1 + q2).
    """
    l0 = _reference_triad(X, p, e, R0)
    ss = 0.0
    dd = 0.0
    for k in range(3):
        X21 = X[e, 1, k] - X[e, 0, k]
        d21 = u[e, 6 + k] - u[e, k]
        F[0, k] = X21 + d21
        ss += F[0, k] * F[0, k]
        dd += (2.0 * X21 + d21) * d21
    l = math.sqrt(ss)
    ul = dd / (l + l0)
    for k in range(3):
        F[0, k] /= l
    for a in range(2):
        for i in range(3):
            qa[a, i] = R[e, a, i, 0] * R0[0, 1] + R[e, a, i, 1] * R0[1, 1] + R[e, a, i, 2] * R0[2, 1]
    h = 0.0
    for k in range(3):
        h += 0.5 * (qa[0, k] + qa[1, k]) * F[0, k]
    g2 = 0.0
    for k in range(3):
        F[1, k] = 0.5 * (qa[0, k] + qa[1, k]) - h * F[0, k]
        g2 += F[1, k] * F[1, k]
    g = math.sqrt(g2)
    for k in range(3):
        F[1, k] /= g
    F[2, 0] = F[0, 1] * F[1, 2] - F[0, 2] * F[1, 1]
    F[2, 1] = F[0, 2] * F[1, 0] - F[0, 0] * F[1, 2]
    F[2, 2] = F[0, 0] * F[1, 1] - F[0, 1] * F[1, 0]
    Q = RR[0]
    Rb = RR[1]
    for a in range(2):
        # Q = R_a R0 (current section triad), Rb = Eᵀ Q = F Q
        for i in range(3):
            for j in range(3):
                Q[i, j] = R[e, a, i, 0] * R0[0, j] + R[e, a, i, 1] * R0[1, j] + R[e, a, i, 2] * R0[2, j]
        for i in range(3):
            for j in range(3):
                Rb[i, j] = F[i, 0] * Q[0, j] + F[i, 1] * Q[1, j] + F[i, 2] * Q[2, j]
        log_so3(Rb, th[a])
    return l0, l, ul, h, g


# --------------------------------------------------------------------------- transformation
@jit
def _cross_cols(a, B, scale, out):
    """out (3, 12) += scale · (a × B[:, j]) for every column j of B (3, 12)."""
    for j in range(12):
        out[0, j] += scale * (a[1] * B[2, j] - a[2] * B[1, j])
        out[1, j] += scale * (a[2] * B[0, j] - a[0] * B[2, j])
        out[2, j] += scale * (a[0] * B[1, j] - a[1] * B[0, j])


@jit
def _cross(a, b, out):
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@jit
def _transform(F, qa, th, l, h, g, fl, Hl, f, K, want_K, W, J, V):
    """Global force f (12,) and, if ``want_K``, its derivative K (12, 12) over
    z = (δx1, w1, δx2, w2), from the local force fl (7,) = (N, m̄1, m̄2) and the local
    Hessian Hl (7, 7). F: element frame as rows (r1, r2, r3); qa (2, 3) section y axes;
    th (2, 3) local rotations; W (_N_ROWS, 12), J (5, 3, 3), V (12, 3) work space."""
    r1 = F[0]
    r2 = F[1]
    r3 = F[2]
    N = fl[0]
    Jinv = J[0:2]
    for a in range(2):
        left_jacobian_inverse(th[a], Jinv[a])
    mu, M1, M2, Ms, Mxr, av, qr1, qr2, qm = V[0], V[1], V[2], V[3], V[4], V[5], V[6], V[7], V[8]
    Ma = V[1:3]
    qr = V[6:8]
    for a in range(2):
        for i in range(3):  # μ = J⁻ᵀ m̄
            mu[i] = Jinv[a, 0, i] * fl[1 + 3 * a] + Jinv[a, 1, i] * fl[2 + 3 * a] + Jinv[a, 2, i] * fl[3 + 3 * a]
        for i in range(3):  # M = E μ
            Ma[a, i] = F[0, i] * mu[0] + F[1, i] * mu[1] + F[2, i] * mu[2]
    tau = 0.0
    for i in range(3):
        Ms[i] = M1[i] + M2[i]
        qm[i] = 0.5 * (qa[0, i] + qa[1, i])
        tau += Ms[i] * r1[i]
    c = h * tau / g
    _cross(Ms, r1, Mxr)
    _cross(qa[0], r3, qr1)
    _cross(qa[1], r3, qr2)
    for i in range(3):
        av[i] = Mxr[i] / l - c * r3[i] / l
        fx = N * r1[i] - av[i]
        f[i] = -fx
        f[6 + i] = fx
        f[3 + i] = M1[i] - tau * qr1[i] / (2.0 * g)
        f[9 + i] = M2[i] - tau * qr2[i] / (2.0 * g)
    if not want_K:
        return
    W[:, :] = 0.0
    Dr1, WE, DqA, Dq, Dr3 = W[_DR1:_DR1 + 3], W[_WE:_WE + 3], W[_DQ1:_DQ1 + 6], W[_DQ:_DQ + 3], W[_DR3:_DR3 + 3]
    Dql, Dfl, DMA, DMs = W[_DQL:_DQL + 7], W[_DFL:_DFL + 7], W[_DM1:_DM1 + 6], W[_DMS:_DMS + 3]
    Tm, Tm2, Da, Db = W[_TMP:_TMP + 3], W[_TMP2:_TMP2 + 3], W[_DA:_DA + 3], W[_DB:_DB + 3]
    Dl, tw, Dh, Dg, Dtau, Dc = W[_DL], W[_TW], W[_DH], W[_DG], W[_DTAU], W[_DC]
    for k in range(3):
        Dl[k] = -r1[k]
        Dl[6 + k] = r1[k]
        # twist rate of the frame: tw·z = [½ Σ (q_a × r3)·w_a − h r3·δx21/l]/g
        tw[k] = h * r3[k] / (l * g)
        tw[6 + k] = -h * r3[k] / (l * g)
        tw[3 + k] = 0.5 * qr1[k] / g
        tw[9 + k] = 0.5 * qr2[k] / g
        for i in range(3):
            P = (1.0 if i == k else 0.0) - r1[i] * r1[k]
            Dr1[i, k] = -P / l
            Dr1[i, 6 + k] = P / l
    # frame spin WE = r1 × δx21/l + r1 (tw·z)
    H3 = J[2]
    hat(r1, H3)
    for i in range(3):
        for k in range(3):
            WE[i, k] = -H3[i, k] / l
            WE[i, 6 + k] = H3[i, k] / l
        for j in range(12):
            WE[i, j] += r1[i] * tw[j]
    # δq_a = w_a × q_a, δq = ½ (δq1 + δq2), δr3 = w_E × r3
    for a in range(2):
        hat(qa[a], H3)
        for i in range(3):
            for k in range(3):
                DqA[3 * a + i, 3 + 6 * a + k] = -H3[i, k]
    for i in range(3):
        for j in range(12):
            Dq[i, j] = 0.5 * (DqA[i, j] + DqA[3 + i, j])
    _cross_cols(r3, WE, -1.0, Dr3)
    for j in range(12):
        Dh[j] = 0.0
        Dg[j] = 0.0
        for i in range(3):
            Dh[j] += r1[i] * Dq[i, j] + qm[i] * Dr1[i, j]
            Dg[j] += r2[i] * Dq[i, j] - h * r3[i] * WE[i, j]
    # δθ̄_a = J⁻¹(θ̄_a) Eᵀ (w_a − w_E)
    for j in range(12):
        Dql[0, j] = Dl[j]
    for a in range(2):
        for i in range(3):
            for j in range(12):
                Tm[i, j] = -(F[i, 0] * WE[0, j] + F[i, 1] * WE[1, j] + F[i, 2] * WE[2, j])
            for k in range(3):
                Tm[i, 3 + 6 * a + k] += F[i, k]
        for i in range(3):
            for j in range(12):
                Dql[1 + 3 * a + i, j] = Jinv[a, i, 0] * Tm[0, j] + Jinv[a, i, 1] * Tm[1, j] + Jinv[a, i, 2] * Tm[2, j]
    for i in range(7):
        for j in range(12):
            acc = 0.0
            for k in range(7):
                acc += Hl[i, k] * Dql[k, j]
            Dfl[i, j] = acc
    # δM_a = w_E × M_a + E δμ_a, δμ_a = ∂(J⁻ᵀ m̄)/∂θ̄ δθ̄_a + J⁻ᵀ δm̄_a
    Lm = J[3]
    for a in range(2):
        left_jacobian_inverse_T_derivative(th[a], fl[1 + 3 * a:4 + 3 * a], Lm)
        for i in range(3):
            for j in range(12):
                acc = 0.0
                for k in range(3):
                    acc += Lm[i, k] * Dql[1 + 3 * a + k, j] + Jinv[a, k, i] * Dfl[1 + 3 * a + k, j]
                Tm2[i, j] = acc
        DM = DMA[3 * a:3 * a + 3]
        for i in range(3):
            for j in range(12):
                DM[i, j] = F[0, i] * Tm2[0, j] + F[1, i] * Tm2[1, j] + F[2, i] * Tm2[2, j]
        _cross_cols(Ma[a], WE, -1.0, DM)
    for i in range(3):
        for j in range(12):
            DMs[i, j] = DMA[i, j] + DMA[3 + i, j]
    for j in range(12):
        Dtau[j] = 0.0
        for i in range(3):
            Dtau[j] += r1[i] * DMs[i, j] + Ms[i] * Dr1[i, j]
        Dc[j] = (Dh[j] * tau + h * Dtau[j]) / g - h * tau * Dg[j] / (g * g)
    # δa for a = (Ms × r1)/l − c r3/l
    _cross_cols(r1, DMs, -1.0 / l, Da)
    _cross_cols(Ms, Dr1, 1.0 / l, Da)
    for i in range(3):
        for j in range(12):
            Da[i, j] += (-Mxr[i] * Dl[j] / (l * l) - r3[i] * Dc[j] / l + c * r3[i] * Dl[j] / (l * l)
                         - c * Dr3[i, j] / l)
    # translational rows: ±[δ(N r1) − δa]
    for i in range(3):
        for j in range(12):
            v = r1[i] * Dfl[0, j] + N * Dr1[i, j] - Da[i, j]
            K[6 + i, j] = v
            K[i, j] = -v
    # rotational rows: δM_a − δb_a, b_a = τ (q_a × r3)/(2g)
    for a in range(2):
        for i in range(3):
            for j in range(12):
                Db[i, j] = (qr[a, i] * Dtau[j] / (2.0 * g) - tau * qr[a, i] * Dg[j] / (2.0 * g * g))
        _cross_cols(r3, DqA[3 * a:3 * a + 3], -tau / (2.0 * g), Db)
        _cross_cols(qa[a], Dr3, tau / (2.0 * g), Db)
        for i in range(3):
            for j in range(12):
                K[3 + 6 * a + i, j] = DMA[3 * a + i, j] - Db[i, j]


# --------------------------------------------------------------------------- driver
@jit
def _scratch():
    """Work arrays of one element evaluation, shared by the static and mid-point drivers:
    R0, F (3, 3); RR (2, 3, 3); qa, th (2, 3); Lq (6, 7); Hq (6, 7, 7); S (6, 6); qv (7,);
    rho (6,); G (6, 7); sig (6,); fl (7,); Hl (7, 7) zeroed; W (_N_ROWS, 12); J (5, 3, 3);
    V (12, 3); an element force (12,)."""
    return (np.empty((3, 3)), np.empty((3, 3)), np.empty((2, 3, 3)), np.empty((2, 3)), np.empty((2, 3)),
            np.empty((6, 7)), np.empty((6, 7, 7)), np.empty((6, 6)), np.empty(7), np.empty(6), np.empty((6, 7)),
            np.empty(6), np.empty(7), np.zeros((7, 7)), np.empty((_N_ROWS, 12)), np.empty((5, 3, 3)),
            np.empty((12, 3)), np.empty(12))
