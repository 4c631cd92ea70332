"""Local section model of the spatial co-rotational beams (beam3d, beam3d_timoshenko):
Meijaard's refined strains ρ(q) over the local coordinates q = (u_l, θ̄1, θ̄2) with their
second-order bending–torsion terms, the section matrix S (V = ½ ρᵀ S ρ), the local force
Gᵀσ and the local Hessian; for eccentric sections the strains of the centroid and
shear-centre lines (``_offset_line``). See elements.beam3d for the formulation."""
import numpy as np

from femb.core import jit

N_OFFSETS = 4  # centroid (yc, zc) and shear centre (ys, zs), from column ``offset_column(p)``


@jit(internal=True)
def is_timoshenko(p):
    """p holds beam3d_timoshenko rows: 19 columns (11 + GAy, GAz + the four section offsets
    + the mass centre), or 13 for rows without the offset columns (plain sections; beam3d:
    17, or 15 without the mass-centre columns, or 11)."""
    return p.shape[1] == 19 or p.shape[1] == 13


@jit(internal=True)
def offset_column(p):
    """First column of the section offsets (yc, zc, ys, zs) in rows p, or −1 for plain
    rows (11 or 13 columns): 11 for beam3d rows of 15 or 17 columns, 13 for
    beam3d_timoshenko rows of 19."""
    n = p.shape[1]
    if n == 15 or n == 17:
        return 11
    if n == 19:
        return 13
    return -1


@jit(internal=True)
def mass_centre_column(p):
    """First column of the mass centre (ym, zm) in rows p (the last two of full rows of 17
    or 19 columns), or −1 for rows without it."""
    n = p.shape[1]
    if n == 17 or n == 19:
        return n - 2
    return -1


def _quadratic_terms():
    """The quadratic terms c·q_i·q_j of the refined strains ρ_k as rows (k, i, j) of an
    int64 table and their coefficients c (the ē1 terms in units of l0/30, flagged)."""
    rows = []
    # ē1: l0/30 (2 θ1y² − θ1y θ2y + 2 θ2y² + 2 θ1z² − θ1z θ2z + 2 θ2z²)
    for (i, j) in ((2, 5), (3, 6)):
        rows += [(0, i, i, 2.0, 1), (0, j, j, 2.0, 1), (0, i, j, -1.0, 1)]
    # ρ2: + ½ θ1y θ2z − ½ θ1z θ2y
    rows += [(1, 2, 6, 0.5, 0), (1, 3, 5, -0.5, 0)]
    # ρ3 / ρ4: ∓ ½ θx θz at their node, ± (θ2x − θ1x)(θ2z − θ1z)/6
    rows += [(2, 1, 3, -0.5, 0), (3, 4, 6, 0.5, 0)]
    for (k, sgn) in ((2, 1.0 / 6.0), (3, -1.0 / 6.0)):
        rows += [(k, 4, 6, sgn, 0), (k, 4, 3, -sgn, 0), (k, 1, 6, -sgn, 0), (k, 1, 3, sgn, 0)]
    # ρ5 / ρ6: ± ½ θx θy at their node, ∓ (θ2x − θ1x)(θ2y − θ1y)/6
    rows += [(4, 1, 2, 0.5, 0), (5, 4, 5, -0.5, 0)]
    for (k, sgn) in ((4, -1.0 / 6.0), (5, 1.0 / 6.0)):
        rows += [(k, 4, 5, sgn, 0), (k, 4, 2, -sgn, 0), (k, 1, 5, -sgn, 0), (k, 1, 2, sgn, 0)]
    idx = np.array([r[:3] + (r[4],) for r in rows], dtype=np.int64)
    coef = np.array([r[3] for r in rows], dtype=np.float64)
    return idx, coef


_HQ_IDX, _HQ_COEF = _quadratic_terms()


@jit(internal=True)
def _node_line_forms(l0, Lq, Hq):
    """Linear part Lq (6, 7) and constant Hessians Hq (6, 7, 7) of the refined strains of
    the node line, ρ(q) = Lq q + ½ qᵀ Hq q over q = (u_l, θ̄1x, θ̄1y, θ̄1z, θ̄2x, θ̄2y, θ̄2z)
    (quadratic terms from ``_quadratic_terms``; a term c·q_i·q_j adds c to Hq[k, i, j] and
    Hq[k, j, i])."""
    for k in range(6):
        for i in range(7):
            Lq[k, i] = 0.0
            for j in range(7):
                Hq[k, i, j] = 0.0
    Lq[0, 0] = 1.0
    Lq[1, 4] = 1.0
    Lq[1, 1] = -1.0
    Lq[2, 2] = -1.0
    Lq[3, 5] = 1.0
    Lq[4, 3] = -1.0
    Lq[5, 6] = 1.0
    c = l0 / 30.0
    for t in range(_HQ_IDX.shape[0]):
        k, i, j = _HQ_IDX[t, 0], _HQ_IDX[t, 1], _HQ_IDX[t, 2]
        v = _HQ_COEF[t] * c if _HQ_IDX[t, 3] == 1 else _HQ_COEF[t]
        Hq[k, i, j] += v
        Hq[k, j, i] += v


@jit(internal=True)
def _offset_coordinates(q, l0, dy, dz, out):
    """out (7,): the local coordinates q_d = (u_l, θ̄1, θ̄2) of the line through the
    section point (dy, dz) (section axes, from the node line) as the quadratic polynomial
    of the node line's q (7,) that agrees with the exact rigid-offset kinematics to second
    order (elements.beam3d, "Eccentric sections")."""
    t1x, t1y, t1z, t2x, t2y, t2z = q[1], q[2], q[3], q[4], q[5], q[6]
    dx_ = t2x - t1x
    d1 = t1y * dy + t1z * dz
    d2 = t2y * dy + t2z * dz
    n1 = t1x * t1x + t1y * t1y + t1z * t1z
    n2 = t2x * t2x + t2y * t2y + t2z * t2z
    # chord offset c' = (R̄2 − R̄1) d to second order; first-order parts cx1, cy1, cz1
    cx1 = (t2y - t1y) * dz - (t2z - t1z) * dy
    cy1 = -dx_ * dz
    cz1 = dx_ * dy
    cx = cx1 + 0.5 * (t2x * d2 - t1x * d1)
    cy = cy1 + 0.5 * (t2y * d2 - dy * n2 - t1y * d1 + dy * n1)
    cz = cz1 + 0.5 * (t2z * d2 - dz * n2 - t1z * d1 + dz * n1)
    stretch = q[0] + cx1  # first-order l_d − l0
    # rotation ψ = (0, ψy, ψz) of the offset chord from the node chord, first and second order
    py1 = -cz1 / l0
    pz1 = cy1 / l0
    py = -cz / l0 + cz1 * stretch / (l0 * l0)
    pz = cy / l0 - cy1 * stretch / (l0 * l0)
    out[0] = q[0] + cx + 0.5 * (cy1 * cy1 + cz1 * cz1) / l0
    for a in range(2):
        tx, ty, tz = q[1 + 3 * a], q[2 + 3 * a], q[3 + 3 * a]
        # θ̄_d = log(exp(−ψ̂) exp(θ̄̂)) = θ̄ − ψ − ½ ψ × θ̄
        out[1 + 3 * a] = tx - 0.5 * (py1 * tz - pz1 * ty)
        out[2 + 3 * a] = ty - py - 0.5 * pz1 * tx
        out[3 + 3 * a] = tz - pz + 0.5 * py1 * tx


@jit(inline="always")  # allocations only: compiled into each caller, no library of its own
def offset_scratch():
    """Work arrays of the eccentric-section strain forms (``_strain_forms``) of one
    element: Lo (6, 7), Ho (6, 7, 7), A (7, 7), B (7, 7, 7), P0, Pi (7, 7), q, w (7,)."""
    return (np.empty((6, 7)), np.empty((6, 7, 7)), np.empty((7, 7)), np.empty((7, 7, 7)), np.empty((7, 7)),
            np.empty((7, 7)), np.empty(7), np.empty(7))


@jit(internal=True)
def _offset_line(l0, dy, dz, Lq, Hq, k0, k1, Lo, Ho, A, B, P0, Pi, q, w):
    """Rows k0 … k1 − 1 of the refined strains of the line through the section point
    (dy, dz): Lo[k] = Lq[k] A and Ho[k] = Σ_m Lq[k, m] B_m + Aᵀ Hq[k] A, with q_d = A q +
    ½ qᵀ B q the quadratic map of ``_offset_coordinates`` (its coefficients by polarization,
    exact for a quadratic polynomial). A (7, 7), B (7, 7, 7), P0, Pi (7, 7), q, w (7,) are
    work space. The loops skip the zeros of Lq and A (Lq has one entry per row, A is the
    identity plus a few offset terms)."""
    for i in range(7):
        q[i] = 0.0
    for i in range(7):
        q[i] = 1.0
        _offset_coordinates(q, l0, dy, dz, P0[i])
        q[i] = -1.0
        _offset_coordinates(q, l0, dy, dz, w)
        q[i] = 0.0
        for m in range(7):
            A[m, i] = 0.5 * (P0[i, m] - w[m])
            B[m, i, i] = P0[i, m] + w[m]
    for i in range(7):
        for j in range(i):
            q[i] = 1.0
            q[j] = 1.0
            _offset_coordinates(q, l0, dy, dz, w)
            q[i] = 0.0
            q[j] = 0.0
            for m in range(7):
                v = w[m] - P0[i, m] - P0[j, m]
                B[m, i, j] = v
                B[m, j, i] = v
    for k in range(k0, k1):
        for i in range(7):
            Lo[k, i] = 0.0
            for j in range(7):
                Ho[k, i, j] = 0.0
            for m in range(7):
                Pi[m, i] = 0.0
        for m in range(7):
            c = Lq[k, m]
            if c == 0.0:
                continue
            for i in range(7):
                Lo[k, i] += c * A[m, i]
                for j in range(7):
                    Ho[k, i, j] += c * B[m, i, j]
        # Pi = Hq[k] A, then Ho[k] += Aᵀ Pi
        for n in range(7):
            for i in range(7):
                a = A[n, i]
                if a == 0.0:
                    continue
                for m in range(7):
                    Pi[m, i] += Hq[k, m, n] * a
        for m in range(7):
            for i in range(7):
                a = A[m, i]
                if a == 0.0:
                    continue
                for j in range(7):
                    Ho[k, i, j] += a * Pi[m, j]


@jit(internal=True)
def _strain_forms(l0, p, e, Lq, Hq, ow):
    """Linear part Lq (6, 7) and constant Hessians Hq (6, 7, 7) of the section strains of
    element ``e``, ρ(q) = Lq q + ½ qᵀ Hq q: the node line's refined strains
    (``_node_line_forms``) or, for an eccentric section (offsets in the ``N_OFFSETS``
    columns of p from ``offset_column``), the axial strain ē1 of the centroid line and the twist and
    bending strains ρ2 … ρ6 of the shear-centre line (``_offset_line``); ow the work
    arrays of ``offset_scratch``."""
    _node_line_forms(l0, Lq, Hq)
    o = offset_column(p)
    if o < 0:
        return  # rows without offset columns: a plain section
    yc, zc, ys, zs = p[e, o], p[e, o + 1], p[e, o + 2], p[e, o + 3]
    if yc == 0.0 and zc == 0.0 and ys == 0.0 and zs == 0.0:
        return
    Lo, Ho, A, B, P0, Pi, q, w = ow
    # row bounds as int64 values, not literals: one specialization of _offset_line
    _offset_line(l0, yc, zc, Lq, Hq, np.int64(0), np.int64(1), Lo, Ho, A, B, P0, Pi, q, w)
    _offset_line(l0, ys, zs, Lq, Hq, np.int64(1), np.int64(6), Lo, Ho, A, B, P0, Pi, q, w)
    for k in range(6):
        for i in range(7):
            Lq[k, i] = Lo[k, i]
            for j in range(7):
                Hq[k, i, j] = Ho[k, i, j]


@jit(internal=True)
def _section_stress(S, rho, sig):
    """Section stress resultants sig (6,) = S ρ of the generalized strains ρ (6,) with the
    section matrix S (6, 6); returns the strain energy per unit length ½ ρᵀ S ρ (summed
    as Σ_k ½ sig_k ρ_k)."""
    V = 0.0
    for k in range(6):
        acc = 0.0
        for m in range(6):
            acc += S[k, m] * rho[m]
        sig[k] = acc
        V += 0.5 * acc * rho[k]
    return V


@jit(internal=True)
def _section_matrix(p, e, l0, S):
    """S (6, 6) with V = ½ ρᵀ S ρ (Timoshenko when p has 13 columns)."""
    for i in range(6):
        for j in range(6):
            S[i, j] = 0.0
    S[0, 0] = p[e, 0] / l0
    S[1, 1] = p[e, 1] / l0
    for blk in range(2):
        EI = p[e, 2 + blk]
        phi = 0.0
        if is_timoshenko(p):
            phi = 12.0 * EI / (p[e, 12 - blk] * l0 * l0)  # EIy with GAz (12), EIz with GAy (11)
        k = EI / (l0 * (1.0 + phi))
        i = 2 + 2 * blk
        S[i, i] = k * (4.0 + phi)
        S[i + 1, i + 1] = k * (4.0 + phi)
        S[i, i + 1] = k * (phi - 2.0)
        S[i + 1, i] = k * (phi - 2.0)


@jit(internal=True)
def _strains(ul, th, Lq, Hq, qv, rho, G):
    """Section strains ρ (6,) = Lq q + ½ qᵀ Hq q and their gradient G (6, 7) at
    q = (ul, θ̄1, θ̄2) (written to qv (7,)) for the strain forms Lq (6, 7), Hq (6, 7, 7) of
    ``_strain_forms``."""
    qv[0] = ul
    for k in range(3):
        qv[1 + k] = th[0, k]
        qv[4 + k] = th[1, k]
    for k in range(6):
        acc = 0.0
        for i in range(7):
            Hqi = 0.0
            for j in range(7):
                Hqi += Hq[k, i, j] * qv[j]
            G[k, i] = Lq[k, i] + Hqi
            acc += (Lq[k, i] + 0.5 * Hqi) * qv[i]
        rho[k] = acc


@jit(internal=True)
def _local_force(G, sig, fl):
    """fl (7,) = Gᵀ σ = (N, m̄1, m̄2)."""
    for i in range(7):
        acc = 0.0
        for k in range(6):
            acc += G[k, i] * sig[k]
        fl[i] = acc


@jit(internal=True)
def _local_hessian(G, S, Hq, sig, material, Hl):
    """Hl (7, 7) = [Gᵀ S G if material] + Σ σ_k Hq_k, symmetric; S has the block-diagonal
    pattern of ``_section_matrix`` (axial, torsion, two 2×2 bending blocks)."""
    SG0, SG1, SG2, SG3, SG4, SG5 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    for j in range(7):
        if material:
            SG0 = S[0, 0] * G[0, j]
            SG1 = S[1, 1] * G[1, j]
            SG2 = S[2, 2] * G[2, j] + S[2, 3] * G[3, j]
            SG3 = S[3, 2] * G[2, j] + S[3, 3] * G[3, j]
            SG4 = S[4, 4] * G[4, j] + S[4, 5] * G[5, j]
            SG5 = S[5, 4] * G[4, j] + S[5, 5] * G[5, j]
        for i in range(j + 1):
            acc = 0.0
            for k in range(6):
                acc += sig[k] * Hq[k, i, j]
            if material:
                acc += (G[0, i] * SG0 + G[1, i] * SG1 + G[2, i] * SG2 + G[3, i] * SG3 + G[4, i] * SG4
                        + G[5, i] * SG5)
            Hl[i, j] = acc
            Hl[j, i] = acc


@jit(internal=True)
def _sigma_from_resultants(s, e, sig):
    """σ (6,) conjugate to ρ from the resultants (N, Vy, Vz, T, My1, Mz1, My2, Mz2)."""
    sig[0] = s[e, 0]
    sig[1] = s[e, 3]
    sig[2] = -s[e, 4]
    sig[3] = s[e, 6]
    sig[4] = -s[e, 5]
    sig[5] = s[e, 7]
