"""Element-independent co-rotational (EICR) kinematics of flat-facet shells with n nodes
(``shell3``: n = 3, ``shell4``: n = 4), compiled. Conventions of elements/shell3.py.

The element frame (rows e1, e2, e3 of E) is built from two node pairs: d = x[i2] − x[i1]
fixes e1 = d/|d|, s = x[j2] − x[j1] the plane, e3 = d × s/|d × s|, e2 = e3 × e1 (triangle:
sides 1→2 and 1→3; quadrilateral: diagonals 1→3 and 2→4, so that s ⊥ e3 in both cases and
a warped quadrilateral's frame is its mean plane). With l = |d| and (a, b) = (e1·s, e2·s)
the frame spin in element-frame components is

    ω1 = (l δs̃_z − a δd̃_z)/(l b),   ω2 = −δd̃_z/l,   ω3 = δd̃_y/l.

Local deformational DOFs of node k: ū_k = E (x_k − x_c) − E0 (X_k − X_c) (ū_z ≠ 0 measures
warping deformation of quadrilaterals), θ̄_k = log(E R_k E0ᵀ). The force and the exact
tangent follow from the local energy's gradient g (6n,) and Hessian H (6n, 6n):
f̃ = B̃ᵀ g, K̃ = B̃ᵀ H B̃ + (variation of B̃ᵀ at fixed g) − f̃ × ω, f = blockdiag(Eᵀ) f̃ (see
shell3's docstring for the formulas).
"""
import math

import numpy as np

from femb.core import jit
from femb.core.rotations import left_jacobian_inverse_T_derivative, log_so3


@jit
def frame(x, i1, i2, j1, j2, E, Y):
    """Frame E (3, 3) (rows) of the facet with nodes x (n, 3) and node coordinates Y (n, 3)
    relative to the centroid in that frame. Returns (l, a, b); b ≤ 0 marks a degenerate
    facet (zero area, coincident or collinear nodes)."""
    n = x.shape[0]
    nn = 0.0
    for k in range(3):
        E[0, k] = x[i2, k] - x[i1, k]
        nn += E[0, k] * E[0, k]
    l = math.sqrt(nn)
    if l == 0.0:
        return 0.0, 0.0, 0.0
    for k in range(3):
        E[0, k] /= l
    c0 = x[j2, 0] - x[j1, 0]
    c1 = x[j2, 1] - x[j1, 1]
    c2 = x[j2, 2] - x[j1, 2]
    E[2, 0] = E[0, 1] * c2 - E[0, 2] * c1
    E[2, 1] = E[0, 2] * c0 - E[0, 0] * c2
    E[2, 2] = E[0, 0] * c1 - E[0, 1] * c0
    b = math.sqrt(E[2, 0] * E[2, 0] + E[2, 1] * E[2, 1] + E[2, 2] * E[2, 2])
    if b <= 1e-12 * max(l, math.sqrt(c0 * c0 + c1 * c1 + c2 * c2)):
        return l, 0.0, 0.0
    for k in range(3):
        E[2, k] /= b
    E[1, 0] = E[2, 1] * E[0, 2] - E[2, 2] * E[0, 1]
    E[1, 1] = E[2, 2] * E[0, 0] - E[2, 0] * E[0, 2]
    E[1, 2] = E[2, 0] * E[0, 1] - E[2, 1] * E[0, 0]
    a = E[0, 0] * c0 + E[0, 1] * c1 + E[0, 2] * c2
    cx = 0.0
    cy = 0.0
    cz = 0.0
    for i in range(n):
        cx += x[i, 0] / n
        cy += x[i, 1] / n
        cz += x[i, 2] / n
    for i in range(n):
        r0, r1, r2 = x[i, 0] - cx, x[i, 1] - cy, x[i, 2] - cz
        for k in range(3):
            Y[i, k] = E[k, 0] * r0 + E[k, 1] * r1 + E[k, 2] * r2
    if n == 3:
        for i in range(3):
            Y[i, 2] = 0.0  # exactly in its own plane
    return l, a, b


@jit
def kinematics(X, u, R, e, i1, i2, j1, j2, E0, P, E, Y, x, Q, Rd, th, d):
    """Reference frame E0 and coordinates P (n, 3), current frame E and coordinates Y,
    local rotations th (n, 3) and deformational vector d (6n,) of element e (x (n, 3),
    Q, Rd (3, 3) work). Returns (l, a, b) of the current frame and b0 of the reference
    one (b ≤ 0: degenerate)."""
    n = x.shape[0]
    for k in range(n):
        for c in range(3):
            x[k, c] = X[e, k, c]
    l0, a0, b0 = frame(x, i1, i2, j1, j2, E0, P)
    for k in range(n):
        for c in range(3):
            x[k, c] = X[e, k, c] + u[e, 6 * k + c]
    l, aa, bb = frame(x, i1, i2, j1, j2, E, Y)
    if b0 <= 0.0 or bb <= 0.0:
        return l, aa, bb, b0
    # translational deformations and E = E0 + δE from the displacements (see _deformation)
    _deformation(X, u, e, i1, i2, j1, j2, E0, E, Q, d)
    for i in range(3):
        for j in range(3):
            E[i, j] = E0[i, j] + Q[i, j]
    for k in range(n):
        for i in range(3):
            for j in range(3):
                Q[i, j] = R[e, k, i, 0] * E0[j, 0] + R[e, k, i, 1] * E0[j, 1] + R[e, k, i, 2] * E0[j, 2]
        for i in range(3):
            for j in range(3):
                Rd[i, j] = E[i, 0] * Q[0, j] + E[i, 1] * Q[1, j] + E[i, 2] * Q[2, j]
        log_so3(Rd, th[k])
        for c in range(3):
            d[6 * k + 3 + c] = th[k, c]
    return l, aa, bb, b0


@jit
def _small_change(v0, dv, out):
    """out (3,) = v/|v| − v0/|v0| for v = v0 + dv, without the cancellation of the
    difference (|v| − |v0| = (2 v0·dv + dv·dv)/(|v| + |v0|)); returns |v|."""
    n0 = math.sqrt(v0[0] * v0[0] + v0[1] * v0[1] + v0[2] * v0[2])
    v = (v0[0] + dv[0], v0[1] + dv[1], v0[2] + dv[2])
    n1 = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    dn = (2.0 * (v0[0] * dv[0] + v0[1] * dv[1] + v0[2] * dv[2]) + dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2]) / (n1 + n0)
    for c in range(3):
        out[c] = (dv[c] * n0 - v0[c] * dn) / (n1 * n0)
    return n1


@jit
def _deformation(X, u, e, i1, i2, j1, j2, E0, E, W, d):
    """Translational deformations ū_k = E (x_k − x_c) − E0 (X_k − X_c) written into d (6n,)
    as E (u_k − u_c) + (E − E0)(X_k − X_c), with E − E0 from the displacements (no
    cancellation of absolute positions: the round-off of the internal force scales with
    the displacements, not with the size of the model). Leaves δE = E − E0 in W (3, 3)
    (rows δe1, δe2, δe3), which the caller adds to E0: the frame that enters the
    deformational rotations is then accurate to round-off of E0, not of the positions."""
    n = X.shape[1]
    D0, dD, S0 = W[0], W[1], W[2]
    de1 = np.empty(3)
    de3 = np.empty(3)
    dn = np.empty(3)
    n0 = np.empty(3)
    for c in range(3):
        D0[c] = X[e, i2, c] - X[e, i1, c]
        dD[c] = u[e, 6 * i2 + c] - u[e, 6 * i1 + c]
        S0[c] = X[e, j2, c] - X[e, j1, c]
    _small_change(D0, dD, de1)
    # n = d × s, δn = δd × S0 + D0 × δs + δd × δs
    for c in range(3):
        c1 = (c + 1) % 3
        c2 = (c + 2) % 3
        ds1 = u[e, 6 * j2 + c1] - u[e, 6 * j1 + c1]
        ds2 = u[e, 6 * j2 + c2] - u[e, 6 * j1 + c2]
        n0[c] = D0[c1] * S0[c2] - D0[c2] * S0[c1]
        dn[c] = (dD[c1] * S0[c2] - dD[c2] * S0[c1]) + (D0[c1] * ds2 - D0[c2] * ds1) + (dD[c1] * ds2 - dD[c2] * ds1)
    _small_change(n0, dn, de3)
    # δe2 = δe3 × e1 + e3⁰ × δe1
    dE = W  # rows δe1, δe2, δe3 (D0, dD, S0 no longer needed)
    for c in range(3):
        c1 = (c + 1) % 3
        c2 = (c + 2) % 3
        dE[1, c] = de3[c1] * E[0, c2] - de3[c2] * E[0, c1] + E0[2, c1] * de1[c2] - E0[2, c2] * de1[c1]
    for c in range(3):
        dE[0, c] = de1[c]
        dE[2, c] = de3[c]
    for c in range(3):
        uc = 0.0
        xc = 0.0
        for k in range(n):
            uc += u[e, 6 * k + c] / n
            xc += X[e, k, c] / n
        n0[c] = uc
        dn[c] = xc
    for k in range(n):
        for r in range(3):
            acc = 0.0
            for c in range(3):
                acc += E[r, c] * (u[e, 6 * k + c] - n0[c]) + dE[r, c] * (X[e, k, c] - dn[c])
            d[6 * k + r] = acc
        if n == 3:
            d[6 * k + 2] = 0.0  # a triangle lies in its own plane


@jit
def variation(Y, l, a, b, i1, i2, j1, j2, Jinv, Om, Bt):
    """Frame spin Om (3, 6n) = ∂ω/∂z̃ and Bt (6n, 6n) = ∂d/∂z̃ over element-frame components
    z̃ = (δx̃_1, w̃_1, …, δx̃_n, w̃_n); Jinv (n, 3, 3) the inverse left Jacobians of θ̄."""
    n = Y.shape[0]
    m = 6 * n
    for i in range(3):
        for j in range(m):
            Om[i, j] = 0.0
    Om[0, 6 * j2 + 2] += 1.0 / b
    Om[0, 6 * j1 + 2] -= 1.0 / b
    Om[0, 6 * i2 + 2] -= a / (l * b)
    Om[0, 6 * i1 + 2] += a / (l * b)
    Om[1, 6 * i2 + 2] -= 1.0 / l
    Om[1, 6 * i1 + 2] += 1.0 / l
    Om[2, 6 * i2 + 1] += 1.0 / l
    Om[2, 6 * i1 + 1] -= 1.0 / l
    deformation_jacobian(Y, Jinv, Om, Bt)


@jit
def deformation_jacobian(Y, Jinv, Om, Bt):
    """Bt (m, m) = ∂d/∂z̃ of a co-rotated frame's deformational DOFs over the element-frame
    components z̃ = (δx̃_1, w̃_1, …, δx̃_n, w̃_n[, extra]) from the frame spin Om (3, m) =
    ∂ω/∂z̃: δū_k = δx̃_k − mean δx̃ + Y_k × ω̃ (the frame origin at the nodes' centroid) and
    δθ̄_k = J⁻¹(θ̄_k)(w̃_k − ω̃), with Y (n, 3) the nodes in the frame and Jinv (n, 3, 3)
    the inverse left Jacobians of θ̄. Columns and rows beyond 6n (e.g. modal amplitudes)
    are left zero here."""
    n = Y.shape[0]
    m = Bt.shape[0]
    for i in range(m):
        for j in range(m):
            Bt[i, j] = 0.0
    for k in range(n):
        for i in range(3):
            for q in range(n):
                Bt[6 * k + i, 6 * q + i] -= 1.0 / n
            Bt[6 * k + i, 6 * k + i] += 1.0
        y0, y1, y2 = Y[k, 0], Y[k, 1], Y[k, 2]
        for j in range(m):
            Bt[6 * k + 0, j] += y1 * Om[2, j] - y2 * Om[1, j]
            Bt[6 * k + 1, j] += y2 * Om[0, j] - y0 * Om[2, j]
            Bt[6 * k + 2, j] += y0 * Om[1, j] - y1 * Om[0, j]
        for i in range(3):
            for c in range(3):
                Bt[6 * k + 3 + i, 6 * k + 3 + c] += Jinv[k, i, c]
                for j in range(m):
                    Bt[6 * k + 3 + i, j] -= Jinv[k, i, c] * Om[c, j]


@jit
def local_force(Y, l, a, b, i1, i2, j1, j2, Jinv, g, ft, mu, tau):
    """Element-frame force ft (6n,) = B̃ᵀ g; writes μ_k = J⁻ᵀ m_k into mu (n, 3) and τ (3,)."""
    n = Y.shape[0]
    for c in range(3):
        tau[c] = 0.0
        acc = 0.0
        for k in range(n):
            acc += g[6 * k + c]
        for k in range(n):
            ft[6 * k + c] = g[6 * k + c] - acc / n
    for k in range(n):
        n0, n1, n2 = g[6 * k], g[6 * k + 1], g[6 * k + 2]
        for i in range(3):
            mu[k, i] = Jinv[k, 0, i] * g[6 * k + 3] + Jinv[k, 1, i] * g[6 * k + 4] + Jinv[k, 2, i] * g[6 * k + 5]
            ft[6 * k + 3 + i] = mu[k, i]
        tau[0] += n1 * Y[k, 2] - n2 * Y[k, 1] - mu[k, 0]
        tau[1] += n2 * Y[k, 0] - n0 * Y[k, 2] - mu[k, 1]
        tau[2] += n0 * Y[k, 1] - n1 * Y[k, 0] - mu[k, 2]
    # τ·ω = Q δs̃_z − (P + S2) δd̃_z + S3 δd̃_y
    P = tau[0] * a / (l * b)
    Qv = tau[0] / b
    S2 = tau[1] / l
    S3 = tau[2] / l
    ft[6 * j2 + 2] += Qv
    ft[6 * j1 + 2] -= Qv
    ft[6 * i2 + 2] -= P + S2
    ft[6 * i1 + 2] += P + S2
    ft[6 * i2 + 1] += S3
    ft[6 * i1 + 1] -= S3


@jit
def geometric_local(Y, l, a, b, i1, i2, j1, j2, th, g, ft, tau, Om, Bt, Kt, W, Lm):
    """Kt (6n, 6n) += variation of B̃ᵀ g at fixed g plus the frame spin term −f̃ × ω
    (element-frame components). W (9, 6n), Lm (3, 3) work arrays."""
    n = Y.shape[0]
    m = 6 * n
    Dmu = W[0:3]
    Dtau = W[3:6]
    Dl, Da, Db = W[6], W[7], W[8]
    for j in range(m):
        for c in range(3):
            Dtau[c, j] = 0.0
        Dl[j] = Bt[6 * i2, j] - Bt[6 * i1, j]
        Da[j] = Bt[6 * j2, j] - Bt[6 * j1, j]
        Db[j] = Bt[6 * j2 + 1, j] - Bt[6 * j1 + 1, j]
    for k in range(n):
        left_jacobian_inverse_T_derivative(th[k], g[6 * k + 3:6 * k + 6], Lm)
        for i in range(3):
            for j in range(m):
                acc = 0.0
                for c in range(3):
                    acc += Lm[i, c] * Bt[6 * k + 3 + c, j]
                Dmu[i, j] = acc
                Kt[6 * k + 3 + i, j] += acc
        n0, n1, n2 = g[6 * k], g[6 * k + 1], g[6 * k + 2]
        for j in range(m):
            dy0, dy1, dy2 = Bt[6 * k, j], Bt[6 * k + 1, j], Bt[6 * k + 2, j]
            Dtau[0, j] += n1 * dy2 - n2 * dy1 - Dmu[0, j]
            Dtau[1, j] += n2 * dy0 - n0 * dy2 - Dmu[1, j]
            Dtau[2, j] += n0 * dy1 - n1 * dy0 - Dmu[2, j]
    t0, t1, t2 = tau[0], tau[1], tau[2]
    for j in range(m):
        dp = (a * Dtau[0, j] + t0 * Da[j]) / (l * b) - t0 * a * Db[j] / (l * b * b) - t0 * a * Dl[j] / (l * l * b)
        dq = Dtau[0, j] / b - t0 * Db[j] / (b * b)
        ds2 = Dtau[1, j] / l - t1 * Dl[j] / (l * l)
        ds3 = Dtau[2, j] / l - t2 * Dl[j] / (l * l)
        Kt[6 * j2 + 2, j] += dq
        Kt[6 * j1 + 2, j] -= dq
        Kt[6 * i2 + 2, j] -= dp + ds2
        Kt[6 * i1 + 2, j] += dp + ds2
        Kt[6 * i2 + 1, j] += ds3
        Kt[6 * i1 + 1, j] -= ds3
    force_turn(ft, Om, n, Kt)


@jit
def force_turn(ft, Om, n, Kt):
    """Kt −= f̃ × Ω over the 2n three-component blocks of the local nodal forces ft (forces
    and moments of n nodes): the turn of the local force with the frame, Om (3, m) the
    frame spin per unit element-frame DOF (columns of Kt)."""
    for blk in range(2 * n):
        f0, f1, f2 = ft[3 * blk], ft[3 * blk + 1], ft[3 * blk + 2]
        for j in range(Om.shape[1]):
            o0, o1, o2 = Om[0, j], Om[1, j], Om[2, j]
            Kt[3 * blk + 0, j] -= f1 * o2 - f2 * o1
            Kt[3 * blk + 1, j] -= f2 * o0 - f0 * o2
            Kt[3 * blk + 2, j] -= f0 * o1 - f1 * o0


@jit
def material_part(H, Bt, Kt, col):
    """Kt (m, m) = B̃ᵀ H B̃ (col (m,) work)."""
    m = H.shape[0]
    for i in range(m):
        for j in range(m):
            acc = 0.0
            for k in range(m):
                acc += H[i, k] * Bt[k, j]
            Kt[i, j] = acc
    for j in range(m):
        for i in range(m):
            col[i] = Kt[i, j]
        for i in range(m):
            acc = 0.0
            for k in range(m):
                acc += Bt[k, i] * col[k]
            Kt[i, j] = acc


@jit
def rotate_out(E, ft, Kt, f, K, want_K, T):
    """f = blockdiag(Eᵀ) f̃, K = blockdiag(Eᵀ) K̃ blockdiag(E) (T (m, m) work)."""
    m = ft.shape[0]
    for blk in range(m // 3):
        for i in range(3):
            f[3 * blk + i] = E[0, i] * ft[3 * blk] + E[1, i] * ft[3 * blk + 1] + E[2, i] * ft[3 * blk + 2]
    if not want_K:
        return
    for r in range(m):
        for cb in range(m // 3):
            for j in range(3):
                T[r, 3 * cb + j] = Kt[r, 3 * cb] * E[0, j] + Kt[r, 3 * cb + 1] * E[1, j] + Kt[r, 3 * cb + 2] * E[2, j]
    for rb in range(m // 3):
        for i in range(3):
            for c in range(m):
                K[3 * rb + i, c] = E[0, i] * T[3 * rb, c] + E[1, i] * T[3 * rb + 1, c] + E[2, i] * T[3 * rb + 2, c]
