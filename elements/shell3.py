"""Co-rotational flat triangular shell ``shell3``: ANDES-OPT membrane with drilling
rotations + DKT thin-plate bending in an element-independent co-rotational (EICR) frame.

Three nodes, DOFs (ux, uy, uz, rx, ry, rz) per node. The element is *oriented* (see
elements.base): the kernels take the nodal rotations ``R`` (n_el, 3, 3, 3) relative to the
reference configuration; the rotational slots of ``u`` are ignored, rotational entries of
``f`` are moments conjugate to spatial spins δw (δR = δŵ R) and rotational rows/columns of
``K`` are derivatives with respect to δw (K is the exact derivative, not symmetric away from
moment-free states, like beam3d's).

Element frame (rows e1, e2, e3 of E), built from the nodal positions x_a alone::

    e1 = x21/|x21|,  e3 = x21 × x31/|x21 × x31|,  e2 = e3 × e1,   x_c = (x1 + x2 + x3)/3

(x_ij = x_i − x_j). The same construction on the reference positions gives E0. Local
deformational DOFs per node a (element-frame components)::

    ū_a = E (x_a − x_c) − E0 (X_a − X_c)          (ū_z = 0 by construction)
    θ̄_a = log(E R_a E0ᵀ)                          (|θ̄_a| ≤ π, quaternion log)

so that d = (ū_1, θ̄_1, ū_2, θ̄_2, ū_3, θ̄_3) (18,) vanishes for every rigid motion, of any
size. The strain energy is V = V_l(d) of a small-strain local element on the reference
local coordinates P_a = E0 (X_a − X_c):

    V_l = ½ d_mᵀ K_m d_m + ½ d_bᵀ K_b d_b + A (ε̄ + ½ ε_vk)ᵀ D_N ε_vk

- membrane, d_m = (ū_x, ū_y, θ̄_z) per node: ANDES-OPT (Felippa 2003), K_m = K_basic +
  K_higher. K_basic = L D Lᵀ/(A t) (Felippa's L, which carries the factor t/2; D the
  plane-stress matrix) with the drilling lumping factor α_b = 3/2 (constant
  stress, passes the patch test); K_higher = ¾ β0 T_θuᵀ K_θ T_θu with β0 = max(½(1 − 4ν²),
  0.01) and the OPT parameters β1…β9 = (1, 2, 1, 0, 1, −1, −1, −1, −2) acts only on the
  *deviatoric* corner rotations θ̃_a = θ̄_z,a − θ0, θ0 = ½ (∂u_y/∂x − ∂u_x/∂y) the membrane's
  own rotation: the drill DOF is tied to the in-plane rotation of the membrane, never
  penalised toward zero.
- bending, d_b = (ū_z, θ̄_x, θ̄_y) per node: DKT (Batoz, Bathe & Ho 1980) built as a
  quadratic slope field ψ ≈ ∇w on the 6-node triangle, ψ = (−θ_y, θ_x) at the corners,
  tangential slope at mid-sides from the cubic edge deflection, normal slope linear along
  each side (Kirchhoff constraints at corners and mid-sides). Curvatures
  κ = (ψx,x, ψy,y, ψx,y + ψy,x) integrated exactly (3 mid-side points);
  D = E t³/(12(1 − ν²)).
- the last term completes the constant-stress membrane energy ½ A ε̄ᵀ D_N ε̄ of the basic
  ANDES part (ε̄ = Lᵀ d_m/(2A), D_N = t D the membrane stiffness per length) to
  ½ A (ε̄ + ε_vk)ᵀ D_N (ε̄ + ε_vk): the element-averaged von Kármán strain of the local DKT
  slope field, ε_vk = (1/2A) (∫ψx², ∫ψy², ∫2ψxψy) dA = s/(2A), s_k = d_bᵀ S_k d_b with
  S_1 = ∫ψxᵀψx, S_2 = ∫ψyᵀψy, S_3 = ∫(ψxᵀψy + ψyᵀψx) dA (6-point rule, exact). The total
  constant membrane force is N = D_N (ε̄ + ε_vk). Its Hessian contains the local
  membrane-stress geometric stiffness Σ N_k S_k = ∫ ψᵀ N ψ dA, which makes linear plate
  buckling converge at O(h²); the full square (not only the N·ε_vk cross term) keeps an
  element in pure bending free of spurious membrane force: its chord shortens by the
  arc-length correction ε_vk (a strip rolled into a circle puts its nodes on the exact
  circle with an error that vanishes faster than h²).

Global force and exact tangent (everything in element-frame components, then rotated by
blockdiag(E)): with n_a, m_a the translational/rotational parts of g = ∂V_l/∂d, the frame
spin ω = Ω δx̃ (ω1 = (l δx̃31_z − a δx̃21_z)/(l b), ω2 = −δx̃21_z/l, ω3 = δx̃21_y/l, with
l = |x21|, (a, b) the local coordinates of x31), μ_a = J(θ̄_a)⁻ᵀ m_a and
τ = Σ n_a × y_a − Σ μ_a (y_a = E (x_a − x_c)):

    f̃_x,a = n_a − n̄ + (Ωᵀ τ)_a,   f̃_w,a = μ_a,   f = blockdiag(Eᵀ) f̃

The tangent is the exact derivative: B̃ᵀ H_l B̃ (B̃ = ∂d/∂z̃, H_l = ∂²V_l/∂d²), the variation
of f̃ at fixed g (J⁻ᵀ derivative, lever arms y_a, frame geometry l, a, b), and the spin of
the frame −f̃ × ω. Rigid-motion invariance of d makes f self-equilibrated at any state.

Resultants (``resultant_names``, element frame E, tension and sagging positive):

- Nxx, Nyy, Nxy [force/length]: N = D_N (ε̄ + ε_vk), the element's constant membrane
  force (the ANDES higher-order part adds a self-equilibrated, linearly varying field that
  is not reported);
- Mxx, Myy, Mxy [moment/length]: M = D κ at the centroid, κ = (ψx,x, ψy,y, ψx,y + ψy,x)
  the DKT curvatures of the local deflection w (ψ ≈ ∇w);
- f1x, f1y, f1z, m1x, m1y, m1z, f2x, …, m3z: the 18 local generalized forces
  g = ∂V_l/∂d (conjugate to ū_a and θ̄_a): the state ``geometric_stiffness`` needs. It is
  linear in the resultants: EICR terms of g plus Σ N_k S_k, and tangent − geometric
  stiffness(resultants) is the symmetric material part B̃ᵀ ∂²V_l/∂d² B̃ − B̃ᵀ(Σ N_k S_k)B̃.

Mass (constant for all kinds; ρ density, t thickness, A reference area):

- 0 lumped: ρtA/3 on each translation; rotary inertia ρt³A/36 about every axis (the
  bending value ρt³/12 per area, lumped; the same value on the drill axis keeps M regular
  and makes the nodal rotary inertia isotropic, hence independent of the configuration).
- 1 consistent / 2 invariant: translations ρtA/12 (1 + δ_ab) I₃ (linear interpolation,
  rotation invariant), plus the lumped isotropic rotary inertia of kind 0. (No DKT-consistent
  bending mass yet.)

Properties (``properties(material, section)``): E, nu (material.E, material.nu), t
(section.thickness), rho (material.rho, 0 when None).
"""
import math

import numpy as np

from femb.core import jit
from femb.core.rotations import left_jacobian_inverse, left_jacobian_inverse_T_derivative, log_so3

from .base import CONSISTENT, INVARIANT, LUMPED, ElementKernels, ElementSpec
from .shell_local import BEN, local_matrices, local_state, workspace

N_RES = 24


# --------------------------------------------------------------------------- frames
@jit
def _frame(x, E, Y):
    """Frame E (3, 3) as rows (e1, e2, e3) of the triangle with nodes x (3, 3), and local
    coordinates Y (3, 3) of the nodes relative to the centroid (Y[:, 2] = 0). Returns
    (l, a, b): |x21| and the local coordinates of x31; b ≤ 0 marks a degenerate triangle."""
    n0 = 0.0
    for k in range(3):
        E[0, k] = x[1, k] - x[0, k]
        n0 += E[0, k] * E[0, k]
    l = math.sqrt(n0)
    if l == 0.0:
        return 0.0, 0.0, 0.0
    for k in range(3):
        E[0, k] /= l
    c0 = x[2, 0] - x[0, 0]
    c1 = x[2, 1] - x[0, 1]
    c2 = x[2, 2] - x[0, 2]
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
    for i in range(3):
        cx = (x[0, 0] + x[1, 0] + x[2, 0]) / 3.0
        cy = (x[0, 1] + x[1, 1] + x[2, 1]) / 3.0
        cz = (x[0, 2] + x[1, 2] + x[2, 2]) / 3.0
        r0, r1, r2 = x[i, 0] - cx, x[i, 1] - cy, x[i, 2] - cz
        Y[i, 0] = E[0, 0] * r0 + E[0, 1] * r1 + E[0, 2] * r2
        Y[i, 1] = E[1, 0] * r0 + E[1, 1] * r1 + E[1, 2] * r2
        Y[i, 2] = 0.0
    return l, a, b


# --------------------------------------------------------------------------- kinematics
@jit
def _kinematics(X, u, R, e, E0, P, E, Y, RR, th, d):
    """Reference frame E0 and coordinates P, current frame E and coordinates Y, local
    rotations th (3, 3) and deformational vector d (18,) of element e. Returns
    (l, a, b) of the current frame; raises on degenerate triangles."""
    x = RR[0]
    for a in range(3):
        for k in range(3):
            x[a, k] = X[e, a, k]
    l0, a0, b0 = _frame(x, E0, P)
    if b0 <= 0.0:
        raise ValueError("shell3: degenerate triangle (zero area or coincident nodes) in the reference configuration")
    for a in range(3):
        for k in range(3):
            x[a, k] = X[e, a, k] + u[e, 6 * a + k]
    l, aa, bb = _frame(x, E, Y)
    if bb <= 0.0:
        raise ValueError("shell3: triangle collapsed to zero area in the current configuration")
    Q = RR[1]
    Rd = RR[2]
    for n in range(3):
        # Rd = E R_n E0ᵀ
        for i in range(3):
            for j in range(3):
                Q[i, j] = R[e, n, i, 0] * E0[j, 0] + R[e, n, i, 1] * E0[j, 1] + R[e, n, i, 2] * E0[j, 2]
        for i in range(3):
            for j in range(3):
                Rd[i, j] = E[i, 0] * Q[0, j] + E[i, 1] * Q[1, j] + E[i, 2] * Q[2, j]
        log_so3(Rd, th[n])
        for k in range(3):
            d[6 * n + k] = Y[n, k] - P[n, k]
            d[6 * n + 3 + k] = th[n, k]
    return l, aa, bb


@jit
def _variation(Y, l, a, b, Jinv, Om, Bt):
    """Frame spin Om (3, 18) = ∂ω/∂z̃ and Bt (18, 18) = ∂d/∂z̃ over element-frame components
    z̃ = (δx̃1, w̃1, δx̃2, w̃2, δx̃3, w̃3)."""
    for i in range(3):
        for j in range(18):
            Om[i, j] = 0.0
    Om[0, 2] = (a - l) / (l * b)
    Om[0, 8] = -a / (l * b)
    Om[0, 14] = 1.0 / b
    Om[1, 2] = 1.0 / l
    Om[1, 8] = -1.0 / l
    Om[2, 1] = -1.0 / l
    Om[2, 7] = 1.0 / l
    for i in range(18):
        for j in range(18):
            Bt[i, j] = 0.0
    for n in range(3):
        for i in range(3):
            for m in range(3):
                Bt[6 * n + i, 6 * m + i] -= 1.0 / 3.0
            Bt[6 * n + i, 6 * n + i] += 1.0
        # + y_n × ω
        y0, y1, y2 = Y[n, 0], Y[n, 1], Y[n, 2]
        for j in range(18):
            Bt[6 * n + 0, j] += y1 * Om[2, j] - y2 * Om[1, j]
            Bt[6 * n + 1, j] += y2 * Om[0, j] - y0 * Om[2, j]
            Bt[6 * n + 2, j] += y0 * Om[1, j] - y1 * Om[0, j]
        # δθ̄ = J⁻¹ (w̃_n − ω)
        for i in range(3):
            for k in range(3):
                Bt[6 * n + 3 + i, 6 * n + 3 + k] += Jinv[n, i, k]
                for j in range(18):
                    Bt[6 * n + 3 + i, j] -= Jinv[n, i, k] * Om[k, j]


@jit
def _local_force(Y, l, a, b, Jinv, g, ft, mu, tau):
    """Element-frame force ft (18,) = B̃ᵀ g; writes μ_a = J⁻ᵀ m_a into mu (3, 3) and τ (3,)."""
    nb0 = (g[0] + g[6] + g[12]) / 3.0
    nb1 = (g[1] + g[7] + g[13]) / 3.0
    nb2 = (g[2] + g[8] + g[14]) / 3.0
    for k in range(3):
        tau[k] = 0.0
    for n in range(3):
        n0, n1, n2 = g[6 * n], g[6 * n + 1], g[6 * n + 2]
        ft[6 * n] = n0 - nb0
        ft[6 * n + 1] = n1 - nb1
        ft[6 * n + 2] = n2 - nb2
        for i in range(3):
            mu[n, i] = Jinv[n, 0, i] * g[6 * n + 3] + Jinv[n, 1, i] * g[6 * n + 4] + Jinv[n, 2, i] * g[6 * n + 5]
            ft[6 * n + 3 + i] = mu[n, i]
        tau[0] += n1 * Y[n, 2] - n2 * Y[n, 1] - mu[n, 0]
        tau[1] += n2 * Y[n, 0] - n0 * Y[n, 2] - mu[n, 1]
        tau[2] += n0 * Y[n, 1] - n1 * Y[n, 0] - mu[n, 2]
    P = tau[0] * a / (l * b)
    Qv = tau[0] / b
    S2 = tau[1] / l
    S3 = tau[2] / l
    ft[2] += P - Qv + S2
    ft[8] += -P - S2
    ft[14] += Qv
    ft[1] += -S3
    ft[7] += S3


@jit
def _geometric_local(Y, l, a, b, th, Jinv, g, ft, mu, tau, Om, Bt, Kt, W, Lm):
    """Kt (18, 18) += variation of B̃ᵀ g at fixed g plus the frame spin term −f̃ × ω
    (element-frame components). W (12, 18), Lm (3, 3) work arrays."""
    Dmu = W[0:3]
    Dtau = W[3:6]
    Dl, Da, Db = W[6], W[7], W[8]

    for j in range(18):
        for k in range(3):
            Dtau[k, j] = 0.0
        Dl[j] = Bt[6, j] - Bt[0, j]
        Da[j] = Bt[12, j] - Bt[0, j]
        Db[j] = Bt[13, j] - Bt[1, j]
    for n in range(3):
        left_jacobian_inverse_T_derivative(th[n], g[6 * n + 3:6 * n + 6], Lm)
        for i in range(3):
            for j in range(18):
                acc = 0.0
                for k in range(3):
                    acc += Lm[i, k] * Bt[6 * n + 3 + k, j]
                Dmu[i, j] = acc
                Kt[6 * n + 3 + i, j] += acc
        n0, n1, n2 = g[6 * n], g[6 * n + 1], g[6 * n + 2]
        for j in range(18):
            dy0, dy1, dy2 = Bt[6 * n, j], Bt[6 * n + 1, j], Bt[6 * n + 2, j]
            Dtau[0, j] += n1 * dy2 - n2 * dy1 - Dmu[0, j]
            Dtau[1, j] += n2 * dy0 - n0 * dy2 - Dmu[1, j]
            Dtau[2, j] += n0 * dy1 - n1 * dy0 - Dmu[2, j]
    t0, t1, t2 = tau[0], tau[1], tau[2]
    for j in range(18):
        dp = (a * Dtau[0, j] + t0 * Da[j]) / (l * b) - t0 * a * Db[j] / (l * b * b) - t0 * a * Dl[j] / (l * l * b)
        dq = Dtau[0, j] / b - t0 * Db[j] / (b * b)
        ds2 = Dtau[1, j] / l - t1 * Dl[j] / (l * l)
        ds3 = Dtau[2, j] / l - t2 * Dl[j] / (l * l)
        Kt[2, j] += dp - dq + ds2
        Kt[8, j] += -dp - ds2
        Kt[14, j] += dq
        Kt[1, j] += -ds3
        Kt[7, j] += ds3
    # frame spin: δ(Eᵀ f̃) at fixed f̃ = −f̃ × ω per 3-block
    for blk in range(6):
        f0, f1, f2 = ft[3 * blk], ft[3 * blk + 1], ft[3 * blk + 2]
        for j in range(18):
            o0, o1, o2 = Om[0, j], Om[1, j], Om[2, j]
            Kt[3 * blk + 0, j] -= f1 * o2 - f2 * o1
            Kt[3 * blk + 1, j] -= f2 * o0 - f0 * o2
            Kt[3 * blk + 2, j] -= f0 * o1 - f1 * o0


@jit
def _rotate_out(E, ft, Kt, f, K, want_K, T):
    """f = blockdiag(Eᵀ) f̃, K = blockdiag(Eᵀ) K̃ blockdiag(E) (T (18, 18) work)."""
    for blk in range(6):
        for i in range(3):
            f[3 * blk + i] = E[0, i] * ft[3 * blk] + E[1, i] * ft[3 * blk + 1] + E[2, i] * ft[3 * blk + 2]
    if not want_K:
        return
    for r in range(18):
        for cb in range(6):
            for j in range(3):
                T[r, 3 * cb + j] = (Kt[r, 3 * cb] * E[0, j] + Kt[r, 3 * cb + 1] * E[1, j]
                                    + Kt[r, 3 * cb + 2] * E[2, j])
    for rb in range(6):
        for i in range(3):
            for c in range(18):
                K[3 * rb + i, c] = E[0, i] * T[3 * rb, c] + E[1, i] * T[3 * rb + 1, c] + E[2, i] * T[3 * rb + 2, c]


# --------------------------------------------------------------------------- driver
@jit
def _evaluate(X, u, R, p, s_in, f, K, s_out, en, mode):
    """Shared element loop. mode 0: force; 1: force and tangent; 2: resultants;
    3: geometric stiffness from s_in; 4: strain energy."""
    E0, P, E, Y = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
    RR = np.empty((3, 3, 3))
    th = np.empty((3, 3))
    d = np.empty(18)
    Km, CN, Kb, DN = np.empty((9, 9)), np.empty((3, 9)), np.empty((9, 9)), np.empty((3, 3))
    S3 = np.empty((3, 9, 9))
    Bc = np.empty((3, 9))
    g = np.empty(18)
    H = np.empty((18, 18))
    Jinv = np.empty((3, 3, 3))
    Om = np.empty((3, 18))
    Bt = np.empty((18, 18))
    Kt = np.empty((18, 18))
    ft = np.empty(18)
    mu = np.empty((3, 3))
    tau = np.empty(3)
    W = np.empty((12, 18))
    fe = np.empty(18)
    Dm, Lm = np.empty((3, 3)), np.empty((3, 3))
    T18 = np.empty((18, 18))
    N, Nl, sq, dm, db, Sd = np.empty(3), np.empty(3), np.empty(3), np.empty(9), np.empty(9), np.empty((3, 9))
    ws = workspace()
    for e in range(X.shape[0]):
        l, a, b = _kinematics(X, u, R, e, E0, P, E, Y, RR, th, d)
        A = local_matrices(p, e, P, Km, CN, DN, Kb, S3, Bc, Dm, ws)
        if mode == 3:
            for i in range(18):
                g[i] = s_in[e, 6 + i]
            for i in range(18):
                for j in range(18):
                    H[i, j] = 0.0
            for i in range(9):
                for j in range(9):
                    acc = 0.0
                    for k in range(3):
                        acc += s_in[e, k] * S3[k, i, j]
                    H[BEN[i], BEN[j]] = acc
        else:
            V = local_state(d, A, Km, CN, DN, Kb, S3, g, H, mode == 1, N, dm, db, Sd, sq, Nl)
            if mode == 4:
                en[e] = V
                continue
            if mode == 2:
                for k in range(3):
                    s_out[e, k] = N[k]
                    acc = 0.0
                    for m in range(3):
                        for j in range(9):
                            acc += Dm[k, m] * Bc[m, j] * d[BEN[j]]
                    s_out[e, 3 + k] = acc
                for i in range(18):
                    s_out[e, 6 + i] = g[i]
                continue
        for n in range(3):
            left_jacobian_inverse(th[n], Jinv[n])
        _local_force(Y, l, a, b, Jinv, g, ft, mu, tau)
        if mode == 0:
            _rotate_out(E, ft, Kt, f[e], K[0], False, T18)
            continue
        _variation(Y, l, a, b, Jinv, Om, Bt)
        # Kt = B̃ᵀ H B̃ (+ geometric)
        for i in range(18):
            for j in range(18):
                acc = 0.0
                for k in range(18):
                    acc += H[i, k] * Bt[k, j]
                Kt[i, j] = acc
        # Kt = H B̃ so far; left-multiply by B̃ᵀ column by column
        for j in range(18):
            for i in range(18):
                fe[i] = Kt[i, j]
            for i in range(18):
                acc = 0.0
                for k in range(18):
                    acc += Bt[k, i] * fe[k]
                Kt[i, j] = acc
        _geometric_local(Y, l, a, b, th, Jinv, g, ft, mu, tau, Om, Bt, Kt, W, Lm)
        if mode == 1:
            _rotate_out(E, ft, Kt, f[e], K[e], True, T18)
        else:
            _rotate_out(E, ft, Kt, fe, K[e], True, T18)


# --------------------------------------------------------------------------- kernels
@jit
def internal_force(X, u, R, p, f):
    """Internal nodal forces f (n_el, 18) = dV/d(δx1, w1, δx2, w2, δx3, w3): forces and
    moments conjugate to spatial spins. X (n_el, 3, 3) reference positions, u (n_el, 18)
    (rotational slots ignored), R (n_el, 3, 3, 3) nodal rotations, p (n_el, 4) =
    (E, nu, t, rho)."""
    _evaluate(X, u, R, p, np.empty((0, N_RES)), f, np.empty((1, 18, 18)), np.empty((0, N_RES)), np.empty(0), 0)


@jit
def tangent(X, u, R, p, f, K):
    """Internal force f (n_el, 18) and its exact derivative K (n_el, 18, 18) with respect to
    (δx1, w1, δx2, w2, δx3, w3), rotations perturbed multiplicatively R ← exp(δŵ) R."""
    _evaluate(X, u, R, p, np.empty((0, N_RES)), f, K, np.empty((0, N_RES)), np.empty(0), 1)


@jit
def resultants(X, u, R, p, s):
    """Resultants s (n_el, 24): Nxx, Nyy, Nxy [force/length], Mxx, Myy, Mxy
    [moment/length] in the element frame, then the 18 local generalized forces."""
    _evaluate(X, u, R, p, np.empty((0, N_RES)), np.empty((0, 18)), np.empty((0, 18, 18)), s, np.empty(0), 2)


@jit
def geometric_stiffness(X, u, R, p, s, K):
    """Stress-dependent part K (n_el, 18, 18) of the tangent at (u, R) for resultants s
    (n_el, 24) (linear in s): EICR terms of the local forces s[:, 6:] and the local
    membrane-stress term ∫ψᵀNψ dA with N = s[:, 0:3]."""
    _evaluate(X, u, R, p, s, np.empty((0, 18)), K, np.empty((0, N_RES)), np.empty(0), 3)


@jit
def strain_energy(X, u, R, p, en):
    """Strain energy en (n_el,) = V_l(d)."""
    _evaluate(X, u, R, p, np.empty((0, N_RES)), np.empty((0, 18)), np.empty((0, 18, 18)), np.empty((0, N_RES)), en, 4)


@jit
def mass(X, u, R, p, kind, M):
    """Mass M (n_el, 18, 18): kind 0 lumped, 1 consistent / 2 invariant (linear-interpolation
    translations); isotropic lumped rotary inertia ρt³A/36 per node for every kind. All
    kinds are constant (module docstring)."""
    if kind != LUMPED and kind != CONSISTENT and kind != INVARIANT:
        raise ValueError("shell3 mass: kind must be 0 (lumped), 1 (consistent) or 2 (invariant)")
    E0 = np.empty((3, 3))
    P = np.empty((3, 3))
    x = np.empty((3, 3))
    for e in range(X.shape[0]):
        for a in range(3):
            for k in range(3):
                x[a, k] = X[e, a, k]
        l0, a0, b0 = _frame(x, E0, P)
        if b0 <= 0.0:
            raise ValueError("shell3: degenerate triangle (zero area or coincident nodes) in the reference configuration")
        A = 0.5 * l0 * b0
        rho, t = p[e, 3], p[e, 2]
        m = rho * t * A
        Ir = rho * t * t * t * A / 36.0
        for i in range(18):
            for j in range(18):
                M[e, i, j] = 0.0
        for a in range(3):
            for k in range(3):
                M[e, 6 * a + 3 + k, 6 * a + 3 + k] = Ir
                if kind == LUMPED:
                    M[e, 6 * a + k, 6 * a + k] = m / 3.0
                else:
                    for c in range(3):
                        M[e, 6 * a + k, 6 * c + k] = m / 12.0 * (2.0 if a == c else 1.0)


# --------------------------------------------------------------------------- specs
def properties(material, section):
    """E, nu from the material (nu required), t = section.thickness, rho = material.rho."""
    if material.nu is None:
        if material.G is None:
            raise ValueError("material needs nu (or G) for shell3")
        nu = material.E / (2.0 * material.G) - 1.0
    else:
        nu = material.nu
    t = getattr(section, "thickness", None)
    if t is None:
        raise ValueError("section needs thickness for shell3")
    if not t > 0:
        raise ValueError(f"shell3 thickness must be > 0, got {t}")
    rho = 0.0 if material.rho is None else material.rho
    return {"E": material.E, "nu": nu, "t": t, "rho": rho}


def check_cells(points, conn):
    """Problems of the triangles ``conn`` (n, 3) on ``points``: indices of cells whose area
    is zero (relative to their longest side squared, 1e-12)."""
    x = np.asarray(points, dtype=np.float64)
    if x.shape[1] < 3:
        x = np.hstack([x, np.zeros((x.shape[0], 3 - x.shape[1]))])
    a, b, c = x[conn[:, 0]], x[conn[:, 1]], x[conn[:, 2]]
    n = np.linalg.norm(np.cross(b - a, c - a), axis=1)
    side = np.max(np.stack([np.linalg.norm(b - a, axis=1), np.linalg.norm(c - b, axis=1),
                            np.linalg.norm(a - c, axis=1)]), axis=0)
    bad = np.where(n <= 1e-12 * np.maximum(side * side, 1e-300))[0]
    if bad.size:
        return [f"degenerate (zero-area) shell3 triangle(s) {bad[:10].tolist()}"]
    return []


KERNELS = ElementKernels(internal_force=internal_force, tangent=tangent, resultants=resultants,
                         geometric_stiffness=geometric_stiffness, strain_energy=strain_energy, mass=mass)

RESULTANT_NAMES = ("Nxx", "Nyy", "Nxy", "Mxx", "Myy", "Mxy") + tuple(
    f"{kind}{a}{c}" for a in (1, 2, 3) for kind in ("f", "m") for c in "xyz")

SPECS = {
    "shell3": ElementSpec(name="shell3", cell_type="triangle", n_nodes=3, dim=3,
                          node_dofs=("ux", "uy", "uz", "rx", "ry", "rz"), params=("E", "nu", "t", "rho"),
                          resultant_names=RESULTANT_NAMES, properties=properties, kernels=KERNELS,
                          constant_mass=(LUMPED, CONSISTENT, INVARIANT), oriented=True,
                          description="flat co-rotational (EICR) shell triangle: ANDES-OPT membrane with "
                                      "drilling rotations + DKT bending",
                          extra={"check_cells": check_cells}),
}
