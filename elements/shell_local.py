"""The small-strain local triangle of the co-rotational shell ``shell3`` (flat, in its
element frame): ANDES-OPT membrane with corner drilling rotations (Felippa 2003), DKT
thin-plate bending built from its quadratic slope field, and the element-averaged
von Kármán membrane strain of the local slopes. See elements/shell3.py for the formulas
and conventions; all functions are compiled and write into caller-provided arrays.

Local DOF order (18): per node (ū_x, ū_y, ū_z, θ̄_x, θ̄_y, θ̄_z); membrane slots ``MEM``
(ū_x, ū_y, θ̄_z), bending slots ``BEN`` (ū_z, θ̄_x, θ̄_y). Node coordinates ``P`` (3, 3) in
the element frame (columns x, y; z unused). Units: those of E [force/area], t [length].
"""
import math

import numpy as np

from femb.core import jit

_BETA = (1.0, 2.0, 1.0, 0.0, 1.0, -1.0, -1.0, -1.0, -2.0)
_ALPHA_B = 1.5
# membrane (ux, uy, rz) and bending (uz, rx, ry) slots of the 18 local DOFs
MEM = (0, 1, 5, 6, 7, 11, 12, 13, 17)
BEN = (2, 3, 4, 8, 9, 10, 14, 15, 16)
# 6-point degree-4 rule on the triangle (area coordinates, weights summing to 1)
_Q4A = (0.445948490915965, 0.091576213509771)
_Q4W = (0.223381589678011, 0.109951743655322)

@jit(internal=True)
def membrane(P, Em, nu, t, Km, CN, DN, M3, L, Q, Tq):
    """ANDES-OPT membrane stiffness Km (9, 9) over (ux, uy, θz) per node, the map CN
    (3, 9) from d_m to the constant membrane forces per length N = (Nxx, Nyy, Nxy) and the
    membrane stiffness per length DN (3, 3) = t D (plane stress).
    P (3, 3): local node coordinates (x, y in columns 0, 1). Work arrays: M3 (5, 3, 3),
    L (9, 3), Q (3, 3, 3), Tq (3, 9). Returns the area A."""
    x1, x2, x3 = P[0, 0], P[1, 0], P[2, 0]
    y1, y2, y3 = P[0, 1], P[1, 1], P[2, 1]
    x12, x21, x23, x32, x31, x13 = x1 - x2, x2 - x1, x2 - x3, x3 - x2, x3 - x1, x1 - x3
    y12, y21, y23, y32, y31, y13 = y1 - y2, y2 - y1, y2 - y3, y3 - y2, y3 - y1, y1 - y3
    A = 0.5 * (x21 * y31 - x31 * y21)
    c = Em / (1.0 - nu * nu)
    D, Te, En, Kth, Qm = M3[0], M3[1], M3[2], M3[3], M3[4]
    for i in range(3):
        for j in range(3):
            D[i, j] = 0.0
            Kth[i, j] = 0.0
    for i in range(9):
        for j in range(3):
            L[i, j] = 0.0
            Tq[j, i] = 0.0
    D[0, 0], D[0, 1], D[1, 0], D[1, 1], D[2, 2] = c, c * nu, c * nu, c, 0.5 * c * (1.0 - nu)
    for i in range(3):
        for j in range(3):
            DN[i, j] = t * D[i, j]
    # basic stiffness: L (9, 3) with drilling lumping α_b
    ab = _ALPHA_B
    L[0, 0], L[0, 2] = y23, x32
    L[1, 1], L[1, 2] = x32, y23
    L[2, 0] = ab / 6.0 * y23 * (y13 - y21)
    L[2, 1] = ab / 6.0 * x32 * (x31 - x12)
    L[2, 2] = ab / 3.0 * (x31 * y13 - x12 * y21)
    L[3, 0], L[3, 2] = y31, x13
    L[4, 1], L[4, 2] = x13, y31
    L[5, 0] = ab / 6.0 * y31 * (y21 - y32)
    L[5, 1] = ab / 6.0 * x13 * (x12 - x23)
    L[5, 2] = ab / 3.0 * (x12 * y21 - x23 * y32)
    L[6, 0], L[6, 2] = y12, x21
    L[7, 1], L[7, 2] = x21, y12
    L[8, 0] = ab / 6.0 * y12 * (y32 - y13)
    L[8, 1] = ab / 6.0 * x21 * (x23 - x31)
    L[8, 2] = ab / 3.0 * (x23 * y32 - x31 * y13)
    # (L here lacks the factor t/2: K_basic = (t/2)² L D Lᵀ/(A t) = t L D Lᵀ/(4A))
    for i in range(9):
        for j in range(9):
            acc = 0.0
            for k in range(3):
                for m in range(3):
                    acc += L[i, k] * D[k, m] * L[j, m]
            Km[i, j] = t * acc / (4.0 * A)
    # constant strain ε = Lᵀ d/(2A), N = t D ε
    for k in range(3):
        for j in range(9):
            acc = 0.0
            for m in range(3):
                acc += D[k, m] * L[j, m]
            CN[k, j] = t * acc / (2.0 * A)
    # higher-order stiffness on the deviatoric corner rotations
    l21, l32, l13 = x21 * x21 + y21 * y21, x32 * x32 + y32 * y32, x13 * x13 + y13 * y13
    s = 1.0 / (4.0 * A * A)
    Te[0, 0], Te[0, 1], Te[0, 2] = s * y23 * y13 * l21, s * y31 * y21 * l32, s * y12 * y32 * l13
    Te[1, 0], Te[1, 1], Te[1, 2] = s * x23 * x13 * l21, s * x31 * x21 * l32, s * x12 * x32 * l13
    Te[2, 0] = s * (y23 * x31 + x32 * y13) * l21
    Te[2, 1] = s * (y31 * x12 + x13 * y21) * l32
    Te[2, 2] = s * (y12 * x23 + x21 * y32) * l13
    for i in range(3):
        for j in range(3):
            acc = 0.0
            for k in range(3):
                for m in range(3):
                    acc += Te[k, i] * D[k, m] * Te[m, j]
            En[i, j] = acc
    b = _BETA
    ll = (l21, l32, l13)
    idx = ((0, 1, 2, 3, 4, 5, 6, 7, 8), (8, 6, 7, 2, 0, 1, 5, 3, 4), (4, 5, 3, 7, 8, 6, 1, 2, 0))
    for q in range(3):
        for i in range(3):
            for j in range(3):
                Q[q, i, j] = 2.0 * A / 3.0 * b[idx[q][3 * i + j]] / ll[i]
    for (p1, p2) in ((0, 1), (1, 2), (2, 0)):
        for i in range(3):
            for j in range(3):
                Qm[i, j] = 0.5 * (Q[p1, i, j] + Q[p2, i, j])
        for i in range(3):
            for j in range(3):
                acc = 0.0
                for k in range(3):
                    for m in range(3):
                        acc += Qm[k, i] * En[k, m] * Qm[m, j]
                Kth[i, j] += A * t * acc
    for r in range(3):
        Tq[r, 0], Tq[r, 1] = x32 / (4.0 * A), y32 / (4.0 * A)
        Tq[r, 3], Tq[r, 4] = x13 / (4.0 * A), y13 / (4.0 * A)
        Tq[r, 6], Tq[r, 7] = x21 / (4.0 * A), y21 / (4.0 * A)
        Tq[r, 2 + 3 * r] = 1.0
    beta0 = max(0.5 * (1.0 - 4.0 * nu * nu), 0.01)
    for i in range(9):
        for j in range(9):
            acc = 0.0
            for k in range(3):
                for m in range(3):
                    acc += Tq[k, i] * Kth[k, m] * Tq[m, j]
            Km[i, j] += 0.75 * beta0 * acc
    return A


@jit(internal=True)
def _dkt_slopes(P, T):
    """T (12, 9): slopes ψ = (ψx, ψy) at the 6 nodes of the quadratic triangle (corners,
    then mid-sides of sides 2-3, 3-1, 1-2) from (w, θx, θy) per corner (ψ = (−θy, θx) at
    corners; Kirchhoff constraints at the mid-sides)."""
    for i in range(12):
        for j in range(9):
            T[i, j] = 0.0
    for a in range(3):
        T[2 * a, 3 * a + 2] = -1.0
        T[2 * a + 1, 3 * a + 1] = 1.0
    for k in range(3):
        i = (k + 1) % 3
        j = (k + 2) % 3
        dx = P[j, 0] - P[i, 0]
        dy = P[j, 1] - P[i, 1]
        l = math.sqrt(dx * dx + dy * dy)
        tx, ty = dx / l, dy / l
        # ψ_k = 1.5 t (w_j − w_i)/l + (½ n nᵀ − ¼ t tᵀ)(ψ_i + ψ_j), n nᵀ = I − t tᵀ
        r = 6 + 2 * k
        Mxx = 0.5 - 0.75 * tx * tx
        Mxy = -0.75 * tx * ty
        Myy = 0.5 - 0.75 * ty * ty
        for (node, sgn) in ((i, -1.0), (j, 1.0)):
            T[r, 3 * node] += 1.5 * tx * sgn / l
            T[r + 1, 3 * node] += 1.5 * ty * sgn / l
            # ψ_node = (−θy, θx)
            T[r, 3 * node + 2] += -Mxx
            T[r, 3 * node + 1] += Mxy
            T[r + 1, 3 * node + 2] += -Mxy
            T[r + 1, 3 * node + 1] += Myy


@jit(internal=True)
def _quadratic_shapes(L, dL, N, dN):
    """Shape functions N (6,) of the 6-node triangle at area coordinates L (3,) and their
    Cartesian derivatives dN (6, 2) from dL (3, 2)."""
    for a in range(3):
        N[a] = L[a] * (2.0 * L[a] - 1.0)
        for c in range(2):
            dN[a, c] = (4.0 * L[a] - 1.0) * dL[a, c]
    for k in range(3):
        i = (k + 1) % 3
        j = (k + 2) % 3
        N[3 + k] = 4.0 * L[i] * L[j]
        for c in range(2):
            dN[3 + k, c] = 4.0 * (L[i] * dL[j, c] + L[j] * dL[i, c])


@jit(internal=True)
def _area_gradients(P, dL):
    """dL (3, 2) = ∂L_a/∂(x, y) of the area coordinates; returns the area."""
    A2 = (P[1, 0] - P[0, 0]) * (P[2, 1] - P[0, 1]) - (P[2, 0] - P[0, 0]) * (P[1, 1] - P[0, 1])
    for a in range(3):
        j = (a + 1) % 3
        k = (a + 2) % 3
        dL[a, 0] = (P[j, 1] - P[k, 1]) / A2
        dL[a, 1] = (P[k, 0] - P[j, 0]) / A2
    return 0.5 * A2


@jit(internal=True)
def _curvature_matrix(T, dN, Bk):
    """Bk (3, 9): κ = (ψx,x, ψy,y, ψx,y + ψy,x) at a point with shape derivatives dN."""
    for j in range(9):
        kx = 0.0
        ky = 0.0
        kxy = 0.0
        for n in range(6):
            kx += dN[n, 0] * T[2 * n, j]
            ky += dN[n, 1] * T[2 * n + 1, j]
            kxy += dN[n, 1] * T[2 * n, j] + dN[n, 0] * T[2 * n + 1, j]
        Bk[0, j] = kx
        Bk[1, j] = ky
        Bk[2, j] = kxy


@jit(internal=True)
def _bending(P, Em, nu, t, Kb, S3, Bc, T, dL, D, N, dN, Bk, L, px, py):
    """DKT stiffness Kb (9, 9) over (w, θx, θy) per node, the slope matrices S3 (3, 9, 9)
    (∫ψxψxᵀ, ∫ψyψyᵀ, ∫(ψxψyᵀ + ψyψxᵀ) dA) and the centroid curvature matrix Bc (3, 9);
    writes the bending rigidity matrix D (3, 3). Work arrays: T (12, 9), dL (3, 2), N (6,),
    dN (6, 2), Bk (3, 9), L (3,), px, py (9,)."""
    _dkt_slopes(P, T)
    A = _area_gradients(P, dL)
    Db = Em * t * t * t / (12.0 * (1.0 - nu * nu))
    for i in range(3):
        for j in range(3):
            D[i, j] = 0.0
    D[0, 0], D[0, 1], D[1, 0], D[1, 1], D[2, 2] = Db, Db * nu, Db * nu, Db, 0.5 * Db * (1.0 - nu)
    for i in range(9):
        for j in range(9):
            Kb[i, j] = 0.0
            for k in range(3):
                S3[k, i, j] = 0.0
    for q in range(3):
        for a in range(3):
            L[a] = 0.0 if a == q else 0.5
        _quadratic_shapes(L, dL, N, dN)
        _curvature_matrix(T, dN, Bk)
        for i in range(9):
            for j in range(9):
                acc = 0.0
                for k in range(3):
                    for m in range(3):
                        acc += Bk[k, i] * D[k, m] * Bk[m, j]
                Kb[i, j] += A / 3.0 * acc
    for a in range(3):
        L[a] = 1.0 / 3.0
    _quadratic_shapes(L, dL, N, dN)
    _curvature_matrix(T, dN, Bc)
    for g in range(2):
        for r in range(3):
            for a in range(3):
                L[a] = _Q4A[g] if a != r else 1.0 - 2.0 * _Q4A[g]
            _quadratic_shapes(L, dL, N, dN)
            for j in range(9):
                sx = 0.0
                sy = 0.0
                for n in range(6):
                    sx += N[n] * T[2 * n, j]
                    sy += N[n] * T[2 * n + 1, j]
                px[j] = sx
                py[j] = sy
            w = A * _Q4W[g]
            for i in range(9):
                for j in range(9):
                    S3[0, i, j] += w * px[i] * px[j]
                    S3[1, i, j] += w * py[i] * py[j]
                    S3[2, i, j] += w * (px[i] * py[j] + py[i] * px[j])


@jit(internal=True)
def local_matrices(p, e, P, Km, CN, DN, Kb, S3, Bc, Db, ws):
    """Local matrices of element e on reference local coordinates P (bending rigidity
    matrix into Db (3, 3)); ws the work arrays of ``workspace``. Returns the area A."""
    Em, nu, t = p[e, 0], p[e, 1], p[e, 2]
    M3, L93, Q333, T39, T129, dL, N6, dN, Bk, L3, px, py = ws
    A = membrane(P, Em, nu, t, Km, CN, DN, M3, L93, Q333, T39)
    _bending(P, Em, nu, t, Kb, S3, Bc, T129, dL, Db, N6, dN, Bk, L3, px, py)
    return A


@jit(internal=True)
def workspace():
    """Work arrays of the local element (allocated once per kernel call)."""
    return (np.empty((5, 3, 3)), np.empty((9, 3)), np.empty((3, 3, 3)), np.empty((3, 9)), np.empty((12, 9)),
            np.empty((3, 2)), np.empty(6), np.empty((6, 2)), np.empty((3, 9)), np.empty(3), np.empty(9), np.empty(9))


@jit(internal=True)
def mem_slot(i):
    """Local DOF index of membrane entry i (ū_x, ū_y, θ̄_z of node i // 3)."""
    c = i % 3
    return 6 * (i // 3) + (c if c < 2 else 5)


@jit(internal=True)
def ben_slot(i):
    """Local DOF index of bending entry i (ū_z, θ̄_x, θ̄_y of node i // 3)."""
    return 6 * (i // 3) + 2 + i % 3


@jit(internal=True)
def local_state(d, A, Km, CN, DN, Kb, S3, g, H, want_H, N, dm, db, Sd, sq, Nl):
    """Local energy V_l(d) (returned), gradient g (6n,) and, if want_H, Hessian H (6n, 6n)
    of an n-node facet, V_l = ½ d_mᵀ Km d_m + ½ d_bᵀ Kb d_b + A (ε̄ + ½ ε_vk)ᵀ DN ε_vk with
    ε̄ = DN⁻¹ CN d_m (the constant membrane strain) and ε_vk = s/(2A), s_k = d_bᵀ S3_k d_b.
    Writes N (3,), the total constant membrane forces CN d_m + DN ε_vk. Work arrays: dm, db
    (3n,), Sd (3, 3n), sq, Nl (3,)."""
    m = dm.shape[0]
    for i in range(m):
        dm[i] = d[mem_slot(i)]
        db[i] = d[ben_slot(i)]
    for k in range(3):
        acc2 = 0.0
        for i in range(m):
            acc = 0.0
            for j in range(m):
                acc += S3[k, i, j] * db[j]
            Sd[k, i] = acc
            acc2 += acc * db[i]
        sq[k] = acc2
    V = 0.0
    for k in range(3):
        acc = 0.0
        for j in range(m):
            acc += CN[k, j] * dm[j]
        Nl[k] = acc
        acc = 0.0
        for q in range(3):
            acc += DN[k, q] * sq[q]
        N[k] = Nl[k] + acc / (2.0 * A)  # N_vk = DN ε_vk, ε_vk = s/(2A)
        V += 0.5 * Nl[k] * sq[k] + acc * sq[k] / (8.0 * A)
    for i in range(m):
        am = 0.0
        ab = 0.0
        for j in range(m):
            am += Km[i, j] * dm[j]
            ab += Kb[i, j] * db[j]
        gm = am
        gb = ab
        for k in range(3):
            gm += 0.5 * sq[k] * CN[k, i]
            gb += N[k] * Sd[k, i]
        g[mem_slot(i)] = gm
        g[ben_slot(i)] = gb
        V += 0.5 * (am * dm[i] + ab * db[i])
    if want_H:
        for i in range(2 * m):
            for j in range(2 * m):
                H[i, j] = 0.0
        for i in range(m):
            for j in range(m):
                H[mem_slot(i), mem_slot(j)] = Km[i, j]
                acc = Kb[i, j]
                for k in range(3):
                    acc += N[k] * S3[k, i, j]
                    for q in range(3):
                        acc += DN[k, q] * Sd[k, i] * Sd[q, j] / A
                H[ben_slot(i), ben_slot(j)] = acc
                acc = 0.0
                for k in range(3):
                    acc += CN[k, i] * Sd[k, j]
                H[mem_slot(i), ben_slot(j)] = acc
                H[ben_slot(j), mem_slot(i)] = acc
    return V


@jit
def stress_state(s, e, off, S3, g, H):
    """Local state of the geometric stiffness of an n-node facet from its resultants
    s[e] (force/length, moment/length; the local generalized forces from column off): the
    gradient g (6n,) = s[e, off:off + 6n] and the membrane-stress Hessian H (6n, 6n) with
    ∫ψᵀNψ dA = Σ_k N_k S3_k (N = s[e, 0:3]) on the bending slots, zero elsewhere."""
    m = S3.shape[1]
    for i in range(2 * m):
        g[i] = s[e, off + i]
    for i in range(2 * m):
        for j in range(2 * m):
            H[i, j] = 0.0
    for i in range(m):
        for j in range(m):
            acc = 0.0
            for k in range(3):
                acc += s[e, k] * S3[k, i, j]
            H[ben_slot(i), ben_slot(j)] = acc


@jit
def membrane_bending_resultants(N, Db, Bc, d, g, s, e, off):
    """Resultants of an n-node facet into s[e]: membrane forces N (3,) [force/length] in
    columns 0-2, centre moments M = Db Bc d_b [moment/length] (Db (3, 3) bending rigidity,
    Bc (3, 3n) centre curvatures over the bending slots of d (6n,)) in columns 3-5 and the
    local generalized forces g (6n,) from column off."""
    m = Bc.shape[1]
    for k in range(3):
        s[e, k] = N[k]
        acc = 0.0
        for q in range(3):
            for j in range(m):
                acc += Db[k, q] * Bc[q, j] * d[ben_slot(j)]
        s[e, 3 + k] = acc
    for i in range(2 * m):
        s[e, off + i] = g[i]
