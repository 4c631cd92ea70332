"""Local section model of the spatial co-rotational beams (beam3d, beam3d_timoshenko):
Meijaard's refined strains ρ(q) over the local coordinates q = (u_l, θ̄1, θ̄2) with their
second-order bending–torsion terms, the section matrix S (V = ½ ρᵀ S ρ), the local force
Gᵀσ and the local Hessian. See elements.beam3d for the formulation."""
import numpy as np

from femb.core import jit

N_PARAMS_TIMOSHENKO = 13  # beam3d has 11


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


@jit
def _strain_forms(l0, Lq, Hq):
    """Linear part Lq (6, 7) and constant Hessians Hq (6, 7, 7) of the refined strains
    ρ(q) = Lq q + ½ qᵀ Hq q over q = (u_l, θ̄1x, θ̄1y, θ̄1z, θ̄2x, θ̄2y, θ̄2z) (quadratic
    terms from ``_quadratic_terms``; a term c·q_i·q_j adds c to Hq[k, i, j] and Hq[k, j, i])."""
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


@jit
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
        if p.shape[1] == N_PARAMS_TIMOSHENKO:
            phi = 12.0 * EI / (p[e, 12 - blk] * l0 * l0)  # EIy with GAz, EIz with GAy
        k = EI / (l0 * (1.0 + phi))
        i = 2 + 2 * blk
        S[i, i] = k * (4.0 + phi)
        S[i + 1, i + 1] = k * (4.0 + phi)
        S[i, i + 1] = k * (phi - 2.0)
        S[i + 1, i] = k * (phi - 2.0)


@jit
def _local(ul, th, l0, Lq, Hq, qv, rho, G):
    """Refined strains ρ (6,) and their gradient G (6, 7) at q = (ul, θ̄1, θ̄2); fills Lq,
    Hq (``_strain_forms``) and qv (7,)."""
    _strain_forms(l0, Lq, Hq)
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


@jit
def _local_force(G, sig, fl):
    """fl (7,) = Gᵀ σ = (N, m̄1, m̄2)."""
    for i in range(7):
        acc = 0.0
        for k in range(6):
            acc += G[k, i] * sig[k]
        fl[i] = acc


@jit
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


@jit
def _sigma_from_resultants(s, e, sig):
    """σ (6,) conjugate to ρ from the resultants (N, Vy, Vz, T, My1, Mz1, My2, Mz2)."""
    sig[0] = s[e, 0]
    sig[1] = s[e, 3]
    sig[2] = -s[e, 4]
    sig[3] = s[e, 6]
    sig[4] = -s[e, 5]
    sig[5] = s[e, 7]
