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
# rows of the (12, 3) vector work array: μ, M1, M2, Ms, Ms × r1, a, q1 × r3, q2 × r3, q̄
_MU, _MA, _MS, _MXR, _AV, _QR, _QM = 0, 1, 3, 4, 5, 6, 8


# --------------------------------------------------------------------------- geometry
@jit(internal=True)
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


@jit(internal=True)
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
@jit(internal=True)
def _cross_col(a, W, b0, scale, o0, j):
    """W[o0:o0 + 3, j] += scale · (a × W[b0:b0 + 3, j]) (rows of the work array addressed by
    their first index, not as views)."""
    W[o0, j] += scale * (a[1] * W[b0 + 2, j] - a[2] * W[b0 + 1, j])
    W[o0 + 1, j] += scale * (a[2] * W[b0, j] - a[0] * W[b0 + 2, j])
    W[o0 + 2, j] += scale * (a[0] * W[b0 + 1, j] - a[1] * W[b0, j])


@jit(internal=True)
def _cross(a, b, out):
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@jit(internal=True)
def _transform(F, qa, th, l, h, g, fl, Hl, f, K, want_K, node0, W, J, V):
    """Global force f (12,) and, if ``want_K``, its derivative K (12, 12) over
    z = (δx1, w1, δx2, w2), from the local force fl (7,) = (N, m̄1, m̄2) and the local
    Hessian Hl (7, 7). F: element frame as rows (r1, r2, r3); qa (2, 3) section y axes;
    th (2, 3) local rotations; W (_N_ROWS, 12), J (5, 3, 3), V (12, 3) work space.

    K is written over the columns of the nodes node0, …, 1 only, and its rows 3 … 5 (the
    moments of node 1) only for node0 = 0: node0 = 0 the full tangent, node0 = 1 the block
    K[6:, 6:] of node 2 (every entry a sum over its own column, bitwise that of the full
    tangent), all a caller that holds node 1 fixed needs (node0: an int64 value).

    The blocks of W (rows _DR1 … _DC), J[0:2] (J⁻¹(θ̄_a)), J[3:5] (∂(J⁻ᵀ m̄_a)/∂θ̄_a) and
    V (rows _MU … _QM) are addressed by row index rather than through array views: each
    view is a reference-counted object in the compiled code, and this function is linked
    into every caller."""
    r1 = F[0]
    r3 = F[2]
    N = fl[0]
    for a in range(2):
        left_jacobian_inverse(th[a], J[a])
    for a in range(2):
        for i in range(3):  # μ = J⁻ᵀ m̄
            V[_MU, i] = J[a, 0, i] * fl[1 + 3 * a] + J[a, 1, i] * fl[2 + 3 * a] + J[a, 2, i] * fl[3 + 3 * a]
        for i in range(3):  # M = E μ
            V[_MA + a, i] = F[0, i] * V[_MU, 0] + F[1, i] * V[_MU, 1] + F[2, i] * V[_MU, 2]
    tau = 0.0
    for i in range(3):
        V[_MS, i] = V[_MA, i] + V[_MA + 1, i]
        V[_QM, i] = 0.5 * (qa[0, i] + qa[1, i])
        tau += V[_MS, i] * F[0, i]
    c = h * tau / g
    Ms = V[_MS]
    _cross(Ms, r1, V[_MXR])
    _cross(qa[0], r3, V[_QR])
    _cross(qa[1], r3, V[_QR + 1])
    for i in range(3):
        V[_AV, i] = V[_MXR, i] / l - c * F[2, i] / l
        fx = N * F[0, i] - V[_AV, i]
        f[i] = -fx
        f[6 + i] = fx
        f[3 + i] = V[_MA, i] - tau * V[_QR, i] / (2.0 * g)
        f[9 + i] = V[_MA + 1, i] - tau * V[_QR + 1, i] / (2.0 * g)
    if not want_K:
        return
    # Every row of W is a linear form in z: its column j is the derivative over z_j and
    # depends on column j of the rows before it only, so the rows are built column by
    # column in one loop (one pass over the steps below instead of one loop per step).
    j0 = 6 * node0
    for i in range(_N_ROWS):
        for j in range(j0, 12):
            W[i, j] = 0.0
    for k in range(3):
        W[_DL, k] = -F[0, k]
        W[_DL, 6 + k] = F[0, k]
        # twist rate of the frame: tw·z = [½ Σ (q_a × r3)·w_a − h r3·δx21/l]/g
        W[_TW, k] = h * F[2, k] / (l * g)
        W[_TW, 6 + k] = -h * F[2, k] / (l * g)
        W[_TW, 3 + k] = 0.5 * V[_QR, k] / g
        W[_TW, 9 + k] = 0.5 * V[_QR + 1, k] / g
        for i in range(3):
            P = (1.0 if i == k else 0.0) - F[0, i] * F[0, k]
            W[_DR1 + i, k] = -P / l
            W[_DR1 + i, 6 + k] = P / l
    # frame spin WE = r1 × δx21/l + r1 (tw·z) (its first part here)
    H3 = J[2]
    hat(r1, H3)
    for i in range(3):
        for k in range(3):
            W[_WE + i, k] = -H3[i, k] / l
            W[_WE + i, 6 + k] = H3[i, k] / l
    # δq_a = w_a × q_a
    for a in range(2):
        hat(qa[a], H3)
        for i in range(3):
            for k in range(3):
                W[_DQ1 + 3 * a + i, 3 + 6 * a + k] = -H3[i, k]
    for a in range(2):  # ∂(J⁻ᵀ m̄)/∂θ̄ of node a into J[3 + a]
        left_jacobian_inverse_T_derivative(th[a], fl[1 + 3 * a:4 + 3 * a], J[3 + a])
    for j in range(j0, 12):
        for i in range(3):
            W[_WE + i, j] += F[0, i] * W[_TW, j]
        # δq = ½ (δq1 + δq2), δr3 = w_E × r3
        for i in range(3):
            W[_DQ + i, j] = 0.5 * (W[_DQ1 + i, j] + W[_DQ1 + 3 + i, j])
        _cross_col(r3, W, np.int64(_WE), -1.0, np.int64(_DR3), j)
        for i in range(3):
            W[_DH, j] += F[0, i] * W[_DQ + i, j] + V[_QM, i] * W[_DR1 + i, j]
            W[_DG, j] += F[1, i] * W[_DQ + i, j] - h * F[2, i] * W[_WE + i, j]
        # δθ̄_a = J⁻¹(θ̄_a) Eᵀ (w_a − w_E)
        W[_DQL, j] = W[_DL, j]
        for a in range(2):
            for i in range(3):
                W[_TMP + i, j] = -(F[i, 0] * W[_WE, j] + F[i, 1] * W[_WE + 1, j] + F[i, 2] * W[_WE + 2, j])
                if 3 + 6 * a <= j < 6 + 6 * a:
                    W[_TMP + i, j] += F[i, j - 3 - 6 * a]
            for i in range(3):
                W[_DQL + 1 + 3 * a + i, j] = (J[a, i, 0] * W[_TMP, j] + J[a, i, 1] * W[_TMP + 1, j]
                                              + J[a, i, 2] * W[_TMP + 2, j])
        for i in range(7):
            acc = 0.0
            for k in range(7):
                acc += Hl[i, k] * W[_DQL + k, j]
            W[_DFL + i, j] = acc
        # δM_a = w_E × M_a + E δμ_a, δμ_a = ∂(J⁻ᵀ m̄)/∂θ̄ δθ̄_a + J⁻ᵀ δm̄_a
        for a in range(2):
            for i in range(3):
                acc = 0.0
                for k in range(3):
                    acc += J[3 + a, i, k] * W[_DQL + 1 + 3 * a + k, j] + J[a, k, i] * W[_DFL + 1 + 3 * a + k, j]
                W[_TMP2 + i, j] = acc
            for i in range(3):
                W[_DM1 + 3 * a + i, j] = (F[0, i] * W[_TMP2, j] + F[1, i] * W[_TMP2 + 1, j]
                                          + F[2, i] * W[_TMP2 + 2, j])
            _cross_col(V[_MA + a], W, np.int64(_WE), -1.0, np.int64(_DM1 + 3 * a), j)
        for i in range(3):
            W[_DMS + i, j] = W[_DM1 + i, j] + W[_DM1 + 3 + i, j]
        for i in range(3):
            W[_DTAU, j] += F[0, i] * W[_DMS + i, j] + V[_MS, i] * W[_DR1 + i, j]
        W[_DC, j] = (W[_DH, j] * tau + h * W[_DTAU, j]) / g - h * tau * W[_DG, j] / (g * g)
        # δa for a = (Ms × r1)/l − c r3/l
        _cross_col(r1, W, np.int64(_DMS), -1.0 / l, np.int64(_DA), j)
        _cross_col(V[_MS], W, np.int64(_DR1), 1.0 / l, np.int64(_DA), j)
        for i in range(3):
            W[_DA + i, j] += (-V[_MXR, i] * W[_DL, j] / (l * l) - F[2, i] * W[_DC, j] / l
                              + c * F[2, i] * W[_DL, j] / (l * l) - c * W[_DR3 + i, j] / l)
        # translational rows: ±[δ(N r1) − δa]
        for i in range(3):
            v = F[0, i] * W[_DFL, j] + N * W[_DR1 + i, j] - W[_DA + i, j]
            K[6 + i, j] = v
            K[i, j] = -v
        # rotational rows: δM_a − δb_a, b_a = τ (q_a × r3)/(2g)
        for a in range(node0, 2):
            for i in range(3):
                W[_DB + i, j] = (V[_QR + a, i] * W[_DTAU, j] / (2.0 * g)
                                 - tau * V[_QR + a, i] * W[_DG, j] / (2.0 * g * g))
            _cross_col(r3, W, np.int64(_DQ1 + 3 * a), -tau / (2.0 * g), np.int64(_DB), j)
            _cross_col(qa[a], W, np.int64(_DR3), tau / (2.0 * g), np.int64(_DB), j)
            for i in range(3):
                K[3 + 6 * a + i, j] = W[_DM1 + 3 * a + i, j] - W[_DB + i, j]


# --------------------------------------------------------------------------- driver
@jit(inline="always")  # allocations only: compiled into each caller, no library of its own
def _scratch():
    """Work arrays of one element evaluation, shared by the static and mid-point drivers:
    R0, F (3, 3); RR (2, 3, 3); qa, th (2, 3); Lq (6, 7); Hq (6, 7, 7); S (6, 6); qv (7,);
    rho (6,); G (6, 7); sig (6,); fl (7,); Hl (7, 7) zeroed; W (_N_ROWS, 12); J (5, 3, 3);
    V (12, 3); an element force (12,)."""
    return (np.empty((3, 3)), np.empty((3, 3)), np.empty((2, 3, 3)), np.empty((2, 3)), np.empty((2, 3)),
            np.empty((6, 7)), np.empty((6, 7, 7)), np.empty((6, 6)), np.empty(7), np.empty(6), np.empty((6, 7)),
            np.empty(6), np.empty(7), np.zeros((7, 7)), np.empty((_N_ROWS, 12)), np.empty((5, 3, 3)),
            np.empty((12, 3)), np.empty(12))
