"""Energy- and momentum-conserving mid-point force of the co-rotational shells (``shell3``,
``shell4``): a discrete gradient in quadratic invariants (Gonzalez 1996), the shell form of
beam3d's ``midpoint_force_oriented``. Compiled; n-node generic (n = 3, 4).

Invariants of an element with nodes a = 1..n, nodal rotations R_a (relative to the
reference; the directors are their columns) and chords r_a = x_a − x_1, for a = 2..n::

    y_a = R_1ᵀ r_a  (3),   P_a = R_1ᵀ R_a  (9, row-major)

π = (y_2, P_2, …, y_n, P_n) (12(n − 1),). Every shell energy is a function of π (objectivity:
the configuration rotated by R_1ᵀ and moved so that node 1 sits at its reference place with
R_1 = I has x_a = X_1 + y_a and R_a = P_a). For π off the rotation manifold (averaged
invariants), P_a enters through c(P) = 2 vee(P − Pᵀ)/(1 + tr P), the Cayley vector of P
when P is a rotation and a smooth extension otherwise, as in beam3d. This *copy*
configuration is evaluated by the element's own (exact) force, tangent and energy kernels,
and the chain rule gives ∇Ṽ(π) and ∇²Ṽ(π) (``gradient``, ``hessian``).

Each invariant is bilinear in the chords and the directors; with Cayley increments a
director moves by Δd = ψ × d̄ exactly (d̄ the average of its two ends), so

    Δπ = B(q̄) Δq   exactly,   Δq = (Δx_1, ψ_1, …, Δx_n, ψ_n)

with B(q̄) the variation of π (``variation``) at the *averaged* chords and directors. The
force is f̄ = B(q̄)ᵀ ḡ with

    ḡ = ∇Ṽ(π̄) + [(ΔṼ − ∇Ṽ(π̄)·Δπ)/(Δπ·M Δπ + ε²)] M Δπ,   π̄ = π_n + ½ Δπ,

M = diag(1 on y, L² on P), L the longest reference chord from node 1, ε = 1e-7 L; hence
f̄·Δq = ΔV (to a relative (ε/|Δπ|)², far below round-off where the mismatch matters).
B(q̄)ᵀ ḡ is self-equilibrated at the mid positions for any ḡ (π is invariant under a joint
rotation of chords and directors), so linear and angular momentum are exact. A rigid step
has Δπ = 0: f̄ = B(q̄)ᵀ∇Ṽ(π_n), zero for a stress-free element whatever the size of the
rotation. The mismatch is the mid-point rule's error of a smooth function, O(|Δπ|³), so the
correction is O(|Δπ|²) and vanishes smoothly with the deformation increment.

Newton matrix K = ∂f̄/∂Δq: the motion of q̄ at fixed ḡ (δx̄ = ½ δx_{n+1}, δd̄ = ½ w × d_{n+1}),
B(q̄)ᵀ ∇²Ṽ(π̄) ½ B(q_{n+1}) and the derivative of the correction, then rotational columns
times T(ψ_a) (w_a = T(ψ_a) δψ_a).

The element module's ``midpoint_force`` calls ``prepare`` (invariants, copies), its own
strain_energy/internal_force/tangent kernels on the copies (whole batch at once), then
``finish``. The algebra common with beam3d's kernel (c(P), the discrete gradient, the
Newton matrix terms) is in ``midpoint_invariants``.
"""
import numpy as np

from femb.core import jit
from femb.core.rotations import cayley, cayley_spin_jacobian

from .midpoint_invariants import (
    add_cayley_curvature,
    add_correction_tangent,
    add_mean_motion,
    add_spin_jacobian_derivative,
    cayley_derivative,
    cayley_of,
    discrete_gradient,
    project,
    rotation_columns,
)


@jit(internal=True)
def workspace(n_el, n):
    """Batch work arrays of the mid-point force of ``n_el`` elements with ``n`` nodes:
    (pia, dpi, wt, Bm, B1, uA, RA, uB, RB, uM, RM, eA, eB, fB, fM, KM)."""
    m = 6 * n
    npi = 12 * (n - 1)
    return (np.empty((n_el, npi)), np.empty((n_el, npi)), np.empty((n_el, npi)),
            np.empty((n_el, npi, m)), np.empty((n_el, npi, m)),
            np.empty((n_el, m)), np.empty((n_el, n, 3, 3)), np.empty((n_el, m)), np.empty((n_el, n, 3, 3)),
            np.empty((n_el, m)), np.empty((n_el, n, 3, 3)),
            np.empty(n_el), np.empty(n_el), np.empty((n_el, m)), np.empty((n_el, m)), np.empty((n_el, m, m)))


@jit
def chords(X, u, e, r):
    """r (n, 3): chords x_a − x_1 of element e from reference positions and displacements
    (no cancellation of absolute positions)."""
    for a in range(X.shape[1]):
        for i in range(3):
            r[a, i] = X[e, a, i] - X[e, 0, i] + u[e, 6 * a + i] - u[e, i]


@jit(internal=True)
def invariants(Q, r, pi):
    """π (12(n − 1),) = (R_1ᵀ r_a, R_1ᵀ R_a)_{a ≥ 2} from the nodal rotations Q (n, 3, 3) and
    chords r (n, 3)."""
    n = Q.shape[0]
    for a in range(1, n):
        b = 12 * (a - 1)
        for j in range(3):
            pi[b + j] = Q[0, 0, j] * r[a, 0] + Q[0, 1, j] * r[a, 1] + Q[0, 2, j] * r[a, 2]
            for k in range(3):
                pi[b + 3 + 3 * j + k] = Q[0, 0, j] * Q[a, 0, k] + Q[0, 1, j] * Q[a, 1, k] + Q[0, 2, j] * Q[a, 2, k]


@jit(internal=True)
def variation(Q, r, B):
    """B (12(n − 1), 6n): variation of π over (δx_1, w_1, …, δx_n, w_n) for the directors Q
    (n, 3, 3) (columns; any 3×3, averaged ones included) and chords r (n, 3):
    δy_a,j = d1_j·(δx_a − δx_1) + (d1_j × r_a)·w_1, δP_a,ij = (d1_i × da_j)·(w_1 − w_a)."""
    n = Q.shape[0]
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            B[i, j] = 0.0
    for a in range(1, n):
        b = 12 * (a - 1)
        for j in range(3):
            for k in range(3):
                B[b + j, k] = -Q[0, k, j]
                B[b + j, 6 * a + k] = Q[0, k, j]
            B[b + j, 3] = Q[0, 1, j] * r[a, 2] - Q[0, 2, j] * r[a, 1]
            B[b + j, 4] = Q[0, 2, j] * r[a, 0] - Q[0, 0, j] * r[a, 2]
            B[b + j, 5] = Q[0, 0, j] * r[a, 1] - Q[0, 1, j] * r[a, 0]
        for i in range(3):
            for j in range(3):
                row = b + 3 + 3 * i + j
                cx = Q[0, 1, i] * Q[a, 2, j] - Q[0, 2, i] * Q[a, 1, j]
                cy = Q[0, 2, i] * Q[a, 0, j] - Q[0, 0, i] * Q[a, 2, j]
                cz = Q[0, 0, i] * Q[a, 1, j] - Q[0, 1, i] * Q[a, 0, j]
                B[row, 3], B[row, 4], B[row, 5] = cx, cy, cz
                B[row, 6 * a + 3], B[row, 6 * a + 4], B[row, 6 * a + 5] = -cx, -cy, -cz


@jit(internal=True)
def _copy(X, pi, e, c, C, uc, Rc):
    """The copy configuration of invariants π for element e: node 1 at its reference place
    with R_1 = I, x_a = X_1 + y_a, R_a = cay(c(P_a)); writes uc (6n,) and Rc (n, 3, 3)."""
    n = X.shape[1]
    for i in range(6 * n):
        uc[i] = 0.0
    for i in range(3):
        for j in range(3):
            Rc[0, i, j] = 1.0 if i == j else 0.0
    for a in range(1, n):
        b = 12 * (a - 1)
        for k in range(3):
            uc[6 * a + k] = X[e, 0, k] + pi[b + k] - X[e, a, k]
        cayley_of(pi, b + 3, c)
        cayley(c, C)
        for i in range(3):
            for j in range(3):
                Rc[a, i, j] = C[i, j]


@jit
def prepare(X, u0, R0, u1, R1, psi, ws):
    """Invariants π_n, increments Δπ = B(q̄)Δq, weights, B(q̄), B(q_{n+1}) and the copy
    configurations of π_n (A), π_{n+1} = π_n + Δπ (B) and π̄ = π_n + ½ Δπ (M) of every
    element (``workspace`` arrays ws)."""
    pia, dpi, wt, Bm, B1, uA, RA, uB, RB, uM, RM = ws[0], ws[1], ws[2], ws[3], ws[4], ws[5], ws[6], ws[7], ws[8], ws[9], ws[10]
    n_el, n = X.shape[0], X.shape[1]
    m = 6 * n
    npi = 12 * (n - 1)
    ra, rb, rm = np.empty((n, 3)), np.empty((n, 3)), np.empty((n, 3))
    Qm = np.empty((n, 3, 3))
    dq = np.empty(m)
    pib = np.empty(npi)
    c = np.empty(3)
    C = np.empty((3, 3))
    for e in range(n_el):
        chords(X, u0, e, ra)
        chords(X, u1, e, rb)
        invariants(R0[e], ra, pia[e])
        L2 = 0.0
        for a in range(n):
            s = 0.0
            for i in range(3):
                rm[a, i] = 0.5 * (ra[a, i] + rb[a, i])
                s += (X[e, a, i] - X[e, 0, i]) ** 2
                for j in range(3):
                    Qm[a, i, j] = 0.5 * (R0[e, a, i, j] + R1[e, a, i, j])
            L2 = max(L2, s)
        variation(Qm, rm, Bm[e])
        variation(R1[e], rb, B1[e])
        for a in range(n):
            for k in range(3):
                dq[6 * a + k] = u1[e, 6 * a + k] - u0[e, 6 * a + k]
                dq[6 * a + 3 + k] = psi[e, a, k]
        for q in range(npi):
            acc = 0.0
            for s in range(m):
                acc += Bm[e, q, s] * dq[s]
            dpi[e, q] = acc
            wt[e, q] = 1.0 if (q % 12) < 3 else L2
        _copy(X, pia[e], e, c, C, uA[e], RA[e])
        for q in range(npi):
            pib[q] = pia[e, q] + dpi[e, q]
        _copy(X, pib, e, c, C, uB[e], RB[e])
        for q in range(npi):
            pib[q] = pia[e, q] + 0.5 * dpi[e, q]
        _copy(X, pib, e, c, C, uM[e], RM[e])


@jit(internal=True)
def gradient(pi, fc, g, c, T, A, mu):
    """g = ∇Ṽ(π) from the copy's force fc (6n,) at π: g_y,a = f_x,a, g_P,a = (∂c/∂P)ᵀ μ_a,
    μ_a = T(c_a)ᵀ m_a (m_a the copy's moment at node a). Leaves c_a, T(c_a), ∂c_a/∂P and
    μ_a in c (n − 1, 3), T (n − 1, 3, 3), A (n − 1, 3, 9), mu (n − 1, 3); returns nothing."""
    na = c.shape[0]
    for a in range(1, na + 1):
        b = 12 * (a - 1)
        k = a - 1
        tau = cayley_of(pi, b + 3, c[k])
        cayley_spin_jacobian(c[k], T[k])
        cayley_derivative(c[k], tau, A[k])
        for i in range(3):
            g[b + i] = fc[6 * a + i]
            mu[k, i] = T[k, 0, i] * fc[6 * a + 3] + T[k, 1, i] * fc[6 * a + 4] + T[k, 2, i] * fc[6 * a + 5]
        for q in range(9):
            g[b + 3 + q] = A[k, 0, q] * mu[k, 0] + A[k, 1, q] * mu[k, 1] + A[k, 2, q] * mu[k, 2]


@jit
def hessian(pi, fc, Kc, c, T, A, mu, HW, AA, HA, mv, Hpi):
    """Hpi = ∇²Ṽ(π) from the copy's force fc (6n,) and exact tangent Kc (6n, 6n) at π (after
    ``gradient`` on the same π filled c, T, A, mu). Over (y_a, c_a): W_yy = K_xx,
    W_yc = K_xw T, W_cy = Tᵀ K_wx, W_cc = Tᵀ K_ww T + δ_ab (½ m̂ − ½ μ cᵀ)/(1 + |c|²/4);
    then ∇²Ṽ = Aᵀ ∇²W A + Σ_a μ_a·∇²c_a (A = ∂(y, c)/∂π). Work: HW (6(n−1), 6(n−1)),
    AA (6(n−1), 12(n−1)), HA (6(n−1), 12(n−1)), mv (9,)."""
    na = c.shape[0]
    nw = 6 * na
    npi = 12 * na
    for a in range(na):
        for bb in range(na):
            ra = 6 * (a + 1)
            cb = 6 * (bb + 1)
            for i in range(3):
                for j in range(3):
                    HW[6 * a + i, 6 * bb + j] = Kc[ra + i, cb + j]
                    s1 = 0.0
                    s2 = 0.0
                    s3 = 0.0
                    for k in range(3):
                        s1 += Kc[ra + i, cb + 3 + k] * T[bb, k, j]
                        s2 += T[a, k, i] * Kc[ra + 3 + k, cb + j]
                        for l in range(3):
                            s3 += T[a, k, i] * Kc[ra + 3 + k, cb + 3 + l] * T[bb, l, j]
                    HW[6 * a + i, 6 * bb + 3 + j] = s1
                    HW[6 * a + 3 + i, 6 * bb + j] = s2
                    HW[6 * a + 3 + i, 6 * bb + 3 + j] = s3
        # ∂(T(c)ᵀ m)/∂c at fixed m
        ra = 6 * (a + 1)
        add_spin_jacobian_derivative(c[a], mu[a], fc[ra + 3], fc[ra + 4], fc[ra + 5], 6 * a + 3, HW)
    for i in range(nw):
        for j in range(npi):
            AA[i, j] = 0.0
    for a in range(na):
        for i in range(3):
            AA[6 * a + i, 12 * a + i] = 1.0
            for q in range(9):
                AA[6 * a + 3 + i, 12 * a + 3 + q] = A[a, i, q]
    for i in range(nw):
        for j in range(npi):
            acc = 0.0
            for k in range(nw):
                acc += HW[i, k] * AA[k, j]
            HA[i, j] = acc
    for i in range(npi):
        for j in range(npi):
            acc = 0.0
            for k in range(nw):
                acc += AA[k, i] * HA[k, j]
            Hpi[i, j] = acc
    # + μ·∇²c
    for a in range(na):
        add_cayley_curvature(pi, 12 * a + 3, c[a], mu[a], mv, Hpi)


@jit
def finish(X, R0, R1, u0, u1, psi, ws, f, K):
    """The force f (n_el, 6n) and Newton matrix K (n_el, 6n, 6n) of the step from the
    copies' energies eA, eB, forces fB, fM and tangent KM (``workspace`` arrays ws, filled
    by ``prepare`` and the element's kernels)."""
    pia, dpi, wt, Bm, B1 = ws[0], ws[1], ws[2], ws[3], ws[4]
    eA, eB, fB, fM, KM = ws[11], ws[12], ws[13], ws[14], ws[15]
    n_el, n = X.shape[0], X.shape[1]
    m = 6 * n
    na = n - 1
    npi = 12 * na
    c, T, A, mu = np.empty((na, 3)), np.empty((na, 3, 3)), np.empty((na, 3, 9)), np.empty((na, 3))
    HW, AA, HA = np.empty((6 * na, 6 * na)), np.empty((6 * na, npi)), np.empty((6 * na, npi))
    Hpi = np.empty((npi, npi))
    mv = np.empty(9)
    pim, g1, gm, gb, zc = np.empty(npi), np.empty(npi), np.empty(npi), np.empty(npi), np.empty(npi)
    Kp, row = np.empty((npi, m)), np.empty(m)
    HB = np.empty((m, m))
    Tp = np.empty((n, 3, 3))
    ra, rb, rm = np.empty((n, 3)), np.empty((n, 3)), np.empty((n, 3))
    Qm = np.empty((n, 3, 3))
    v, s, dv = np.empty(3), np.empty(3), np.empty(3)
    for e in range(n_el):
        L2 = wt[e, 3]
        for q in range(npi):
            pim[q] = pia[e, q] + 0.5 * dpi[e, q]
            zc[q] = pia[e, q] + dpi[e, q]
        gradient(zc, fB[e], g1, c, T, A, mu)
        gradient(pim, fM[e], gm, c, T, A, mu)
        hessian(pim, fM[e], KM[e], c, T, A, mu, HW, AA, HA, mv, Hpi)
        cc, sden, den = discrete_gradient(eB[e] - eA[e], gm, dpi[e], wt[e], 1e-14 * L2, gb)
        project(Bm[e], gb, f[e])
        # ------------------------------------------------ Newton matrix over (δx, w) at n+1
        chords(X, u0, e, ra)
        chords(X, u1, e, rb)
        for a in range(n):
            cayley_spin_jacobian(psi[e, a], Tp[a])
            for i in range(3):
                rm[a, i] = 0.5 * (ra[a, i] + rb[a, i])
                for j in range(3):
                    Qm[a, i, j] = 0.5 * (R0[e, a, i, j] + R1[e, a, i, j])
        for r in range(m):
            for q in range(m):
                HB[r, q] = 0.0
        for a in range(1, n):
            add_mean_motion(R1[e, 0], Qm[0], R1[e, a], Qm[a], rm[a], gb, 12 * (a - 1), a, v, s, dv, HB)
        # ∂ḡ/∂q_{n+1} = ½ ∇²Ṽ(π̄) B(q_{n+1}) + derivative of the correction
        add_correction_tangent(Hpi, B1[e], Bm[e], dpi[e], wt[e], g1, gm, cc, sden, den, Kp, zc, row, HB)
        rotation_columns(HB, Tp, K[e])
