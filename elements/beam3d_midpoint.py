"""Energy-conserving mid-point force of the spatial beams (beam3d, beam3d_timoshenko): a
discrete gradient on rotation-invariant deformation measures, the algorithmic force of a
step whose rotational unknowns are the Cayley vectors of the nodal rotation increments,
and its exact Newton matrix. See ``midpoint_force_oriented`` and docs/dynamics.md; the algebra
common with the shells' kernel is in ``midpoint_invariants``."""
import math

import numpy as np

from femb.core import jit
from femb.core.rotations import cayley as _cayley_matrix
from femb.core.rotations import cayley_spin_jacobian

from .beam3d_corotational import _kinematics, _reference_triad, _scratch, _transform
from .beam3d_local import (
    _local_force,
    _local_hessian,
    _section_matrix,
    _section_stress,
    _strain_forms,
    _strains,
    offset_scratch,
)
from .midpoint_invariants import (
    add_cayley_curvature,
    add_correction_tangent,
    add_mean_motion,
    add_spin_jacobian_derivative,
    cayley_of,
    discrete_gradient,
    project,
    rotation_columns,
)


@jit(inline="always")  # (one call site, in _invariant_energy)
def _local_state(X, u, R, p, e, R0, F, qa, th, RR, Lq, Hq, qv, rho, G, S, sig, fl):
    """Local strains, stresses and local force fl (7,) of element ``e`` at (u, R) for its
    strain forms Lq, Hq and section matrix S (built by the caller); returns (V, l0, l, h, g)
    with V the strain energy."""
    l0, l, ul, h, g = _kinematics(X, u, R, p, e, R0, F, qa, th, RR)
    _strains(ul, th, Lq, Hq, qv, rho, G)
    V = _section_stress(S, rho, sig)
    _local_force(G, sig, fl)
    return V, l0, l, h, g


@jit(inline="always")  # allocations only: compiled into each caller, no library of its own
def _mid_scratch(n_p):
    """Work arrays of the invariant energy (``_invariant_energy``) of one element:
    Xt (1, 2, 3), ut (1, 12), Rt (1, 2, 3, 3), pt (1, n_p), Kd (12, 12), C, T3 (3, 3),
    vec (4, 3), for its Hessian A (6, 13), HW (6, 6), HA (6, 13), mv (9,), and the
    eccentric-section work arrays (``offset_scratch``)."""
    return (np.empty((1, 2, 3)), np.empty((1, 12)), np.empty((1, 2, 3, 3)), np.empty((1, n_p)),
            np.empty((12, 12)), np.empty((3, 3)), np.empty((3, 3)), np.empty((4, 3)),
            np.empty((6, 13)), np.empty((6, 6)), np.empty((6, 13)), np.empty(9), offset_scratch())


@jit(inline="always")  # one call site, in the element loop: no call with its 23 arguments
def _invariant_energy(pi, order, R0, F, qa, th, RR, Lq, Hq, qv, rho, G, S, sig, fl, Hl, fcr, W, J, V, mw, grad):
    """Energy Ṽ(π) of one element as a function of its invariants π = (y, P, λ) (13,) and
    its gradient grad (13,) = ∂Ṽ/∂π (``order`` ≥ 1); returns Ṽ. At ``order`` 2 it also
    leaves the copy's tangent (below) in the work arrays, from which ``_invariant_hessian``
    forms the Hessian ∂²Ṽ/∂π².

    y = Q1ᵀ x21 (the chord in the section triad of node 1), P = Q1ᵀ Q2 (row-major, the
    relative triad), λ = x21·x21. Ṽ(y, P, λ) is the co-rotational energy W(ξ, c) of the
    configuration x21 = R0 ξ, ξ = √λ y/|y|, Q1 = R0, Q2 = R0 cay(c) with c = c(P) =
    2 vee(P − Pᵀ)/(1 + tr P) (a rotated copy of the element, with node 1 at its reference
    triad so that the stretch is computed without cancellation): c is the Cayley vector of
    P when P is a rotation, and a smooth extension of V to the non-orthogonal P of averaged
    invariants otherwise.

    Chain rule: ∂W/∂ξ = f_ξ = R0ᵀ f_x2 and ∂W/∂c = μ = T(c)ᵀ m, m = R0ᵀ f_w2 (forces of
    the copy at node 2; T the Cayley spin Jacobian, spins w' = T(c) δc in the frame R0).
    The Hessian of W over (ξ, c) follows from the exact tangent K of the copy (derivatives
    over spatial spins):

        W_ξξ = K'_xx,  W_ξc = K'_xw T,  W_cξ = Tᵀ K'_wx,
        W_cc = Tᵀ K'_ww T + ∂(T(c)ᵀ m)/∂c|_m = Tᵀ K'_ww T + (½ m̂ − ½ μ cᵀ)/(1 + |c|²/4)

    (K' the node-2 blocks of K in the frame R0; the skew part −½ m̂ of K'_ww cancels against
    the last term, so W_cc is symmetric), and ∇²Ṽ = Aᵀ ∇²W A + f_ξ·∇²ξ + μ·∇²c with A the
    Jacobian of (ξ, c) over π. mw is the tuple of ``_mid_scratch``: Xt (1, 2, 3) and
    pt (1, n_p) hold the element's reference positions and properties; Lq, Hq, S its
    strain forms and section matrix (``_strain_forms``, ``_section_matrix``: they depend on
    the element alone and are built once per element by the caller); R0 is its reference
    triad (filled by the call).
    """
    Xt, ut, Rt, pt, Kd, C, T3, vec, A, HW, HA, mvw = mw[:12]
    cv, mu = vec[0], vec[3]  # f_ξ and m in rows 1 and 2 of vec (by index, not views)
    tau = cayley_of(pi, 3, cv)
    e0 = np.int64(0)  # not a literal: one compiled specialization of the callees
    _reference_triad(Xt, pt, e0, R0)
    _cayley_matrix(cv, C)
    ny = math.sqrt(pi[0] * pi[0] + pi[1] * pi[1] + pi[2] * pi[2])
    sl = math.sqrt(pi[12])
    for k in range(3):
        ut[0, k] = 0.0
        ut[0, 3 + k] = 0.0
        ut[0, 9 + k] = 0.0
        ut[0, 6 + k] = (R0[k, 0] * pi[0] + R0[k, 1] * pi[1] + R0[k, 2] * pi[2]) * sl / ny - (Xt[0, 1, k] - Xt[0, 0, k])
    # nodal rotations R_a = Q_a R0ᵀ: R_1 = I, R_2 = R0 C R0ᵀ
    for i in range(3):
        for k in range(3):
            T3[i, k] = R0[i, 0] * C[0, k] + R0[i, 1] * C[1, k] + R0[i, 2] * C[2, k]
    for i in range(3):
        for j in range(3):
            Rt[0, 0, i, j] = 1.0 if i == j else 0.0
            Rt[0, 1, i, j] = T3[i, 0] * R0[j, 0] + T3[i, 1] * R0[j, 1] + T3[i, 2] * R0[j, 2]
    Ve, l0, l, h, g = _local_state(Xt, ut, Rt, pt, e0, R0, F, qa, th, RR, Lq, Hq, qv, rho, G, S, sig, fl)
    if order == 0:
        return Ve
    if order == 2:
        _local_hessian(G, S, Hq, sig, order == 2, Hl)
    # (node 1 of the copy is held: only the node-2 block Kd[6:, 6:] of its tangent is needed)
    _transform(F, qa, th, l, h, g, fl, Hl, fcr, Kd, order == 2, np.int64(1), W, J, V)
    # back to the frame of node 1: f_ξ = R0ᵀ f_x2, m = R0ᵀ f_w2
    for r in range(2):
        for k in range(3):
            vec[1 + r, k] = R0[0, k] * fcr[6 + 3 * r] + R0[1, k] * fcr[7 + 3 * r] + R0[2, k] * fcr[8 + 3 * r]
    # ξ = √λ ŷ: ∂Ṽ/∂y = (√λ/|y|)(I − ŷŷᵀ) f_ξ, ∂Ṽ/∂λ = ŷ·f_ξ/(2√λ)
    yf = (pi[0] * vec[1, 0] + pi[1] * vec[1, 1] + pi[2] * vec[1, 2]) / ny
    for k in range(3):
        grad[k] = sl / ny * (vec[1, k] - yf * pi[k] / ny)
    grad[12] = yf / (2.0 * sl)
    den = 1.0 + 0.25 * (cv[0] * cv[0] + cv[1] * cv[1] + cv[2] * cv[2])
    for k in range(3):  # μ = T(c)ᵀ m
        k1 = (k + 1) % 3
        k2 = (k + 2) % 3
        mu[k] = (vec[2, k] - 0.5 * (cv[k1] * vec[2, k2] - cv[k2] * vec[2, k1])) / den
    cm = (cv[0] * mu[0] + cv[1] * mu[1] + cv[2] * mu[2]) / tau
    # ∂Ṽ/∂P = (2/τ) μ̂ − (c·μ/τ) I: −c·μ/τ on the diagonal, ∓2 μ_k/τ off it (ε_kij as in A)
    for a in range(9):
        i = a // 3
        j = a - 3 * i
        k = 3 - i - j
        grad[3 + a] = -cm if i == j else -(i - k) * (j - k) * (j - i) * mu[k] / tau
    return Ve


@jit(internal=True)
def _invariant_hessian(pi, R0, Kd, C, T3, vec, A, HW, HA, mv, Hpi):
    """Hessian Hpi (13, 13) = ∂²Ṽ/∂π² at π (13,) from the order-2 evaluation of
    ``_invariant_energy`` there, which left R0 (3, 3), the node-2 blocks of the copy's tangent
    in Kd (12, 12) and c, f_ξ, m, μ in the rows of vec (4, 3) (formulas in its docstring).
    Work: C, T3 (3, 3), A (6, 13), HW (6, 6), HA (6, 13), mv (9,).

    A library of its own, called once per element and Newton matrix, rather than the tail
    of ``_invariant_energy`` (compiled into the element loop at its three evaluations)."""
    cv, mu = vec[0], vec[3]
    tau = 1.0 + pi[3] + pi[7] + pi[11]
    ny = math.sqrt(pi[0] * pi[0] + pi[1] * pi[1] + pi[2] * pi[2])
    sl = math.sqrt(pi[12])
    yf = (pi[0] * vec[1, 0] + pi[1] * vec[1, 1] + pi[2] * vec[1, 2]) / ny
    # ∇²W over (ξ, c): node-2 blocks of the copy's tangent in the frame R0 (T3 = R0ᵀ K_blk R0)
    cayley_spin_jacobian(cv, C)  # C ← T(c)
    for bi in range(2):
        for bj in range(2):
            r0 = 6 + 3 * bi
            c0 = 6 + 3 * bj
            for i in range(3):
                for j in range(3):
                    acc = 0.0
                    for k in range(3):
                        acc += R0[k, i] * (Kd[r0 + k, c0] * R0[0, j] + Kd[r0 + k, c0 + 1] * R0[1, j]
                                           + Kd[r0 + k, c0 + 2] * R0[2, j])
                    T3[i, j] = acc
            for i in range(3):  # c columns: right factor T
                for j in range(3):
                    if bj == 1:
                        HW[3 * bi + i, 3 + j] = T3[i, 0] * C[0, j] + T3[i, 1] * C[1, j] + T3[i, 2] * C[2, j]
                    else:
                        HW[3 * bi + i, j] = T3[i, j]
            if bi == 1:  # c rows: left factor Tᵀ (T3 row 0 holds a column of the product)
                for j in range(3):
                    col = 3 * bj + j
                    for i in range(3):
                        T3[0, i] = C[0, i] * HW[3, col] + C[1, i] * HW[4, col] + C[2, i] * HW[5, col]
                    for i in range(3):
                        HW[3 + i, col] = T3[0, i]
    # + ∂(T(c)ᵀ m)/∂c at fixed m = (½ m̂ − ½ μ cᵀ)/den
    add_spin_jacobian_derivative(cv, mu, vec[2, 0], vec[2, 1], vec[2, 2], 3, HW)
    # A = ∂(ξ, c)/∂π: ξ rows over (y, λ), c rows over P
    for i in range(6):
        for j in range(13):
            A[i, j] = 0.0
    for i in range(3):
        ni = pi[i] / ny
        for j in range(3):
            A[i, j] = sl / ny * ((1.0 if i == j else 0.0) - ni * pi[j] / ny)
        A[i, 12] = ni / (2.0 * sl)
    for a in range(9):
        i = a // 3
        j = a - 3 * i
        if i == j:
            for k in range(3):
                A[3 + k, 3 + a] = -cv[k] / tau
        else:
            k = 3 - i - j
            A[3 + k, 3 + a] = -(i - k) * (j - k) * (j - i) / tau  # 2 ∂v_k/∂P_ij/τ, v_k = −ε_kij P_ij
    # Hpi = Aᵀ ∇²W A; column j of A is zero in the c rows (j < 3, j = 12: y, λ) or in the
    # ξ rows (P), so each sum runs over the three rows k0 … k0 + 2 where it can be nonzero
    # (the terms left out are ±0: bitwise the full sums)
    for i in range(6):
        for j in range(13):
            k0 = 3 if 3 <= j < 12 else 0
            acc = 0.0
            for k in range(k0, k0 + 3):
                acc += HW[i, k] * A[k, j]
            HA[i, j] = acc
    for i in range(13):
        k0 = 3 if 3 <= i < 12 else 0
        for j in range(13):
            acc = 0.0
            for k in range(k0, k0 + 3):
                acc += A[k, i] * HA[k, j]
            Hpi[i, j] = acc
    # + f_ξ·∇²ξ (over y, λ)
    for j in range(3):
        nj = pi[j] / ny
        for k in range(3):
            nk = pi[k] / ny
            Hpi[j, k] -= sl / (ny * ny) * (vec[1, j] * nk + vec[1, k] * nj
                                           + ((yf if j == k else 0.0) - 3.0 * yf * nj * nk))
        c = (vec[1, j] - yf * nj) / (2.0 * sl * ny)
        Hpi[j, 12] += c
        Hpi[12, j] += c
    Hpi[12, 12] -= yf / (4.0 * pi[12] * sl)
    # + μ·∇²c (over P)
    add_cayley_curvature(pi, 3, cv, mu, mv, Hpi)


@jit(internal=True)
def _invariants(X, u, R, e, R0, Q1, Q2, x21, pi):
    """Section triads Q_a = R_a R0 (3, 3), chord x21 (3,) and invariants
    π = (Q1ᵀ x21, Q1ᵀ Q2, x21·x21) (13,) of element ``e`` at (u, R)."""
    for i in range(3):
        x21[i] = X[e, 1, i] - X[e, 0, i] + u[e, 6 + i] - u[e, i]
        for j in range(3):
            a1 = 0.0
            a2 = 0.0
            for k in range(3):
                a1 += R[e, 0, i, k] * R0[k, j]
                a2 += R[e, 1, i, k] * R0[k, j]
            Q1[i, j] = a1
            Q2[i, j] = a2
    for j in range(3):
        acc = 0.0
        for k in range(3):
            acc += Q1[k, j] * x21[k]
        pi[j] = acc
        for m in range(3):
            acc = 0.0
            for k in range(3):
                acc += Q1[k, j] * Q2[k, m]
            pi[3 + 3 * j + m] = acc
    pi[12] = x21[0] * x21[0] + x21[1] * x21[1] + x21[2] * x21[2]


@jit(internal=True)
def _invariant_variation(Q1, Q2, x21, B):
    """B (13, 12): variation of π = (Q1ᵀ x21, Q1ᵀ Q2, x21·x21) over (δx1, w1, δx2, w2) for
    the triads and chord given (δQ_a = ŵ_a Q_a): δy_j = d1_j·δx21 + (d1_j × x21)·w1,
    δP_ij = (d1_i × d2_j)·(w1 − w2), δλ = 2 x21·δx21. Exact for any 3×3 Q_a (averaged
    triads included)."""
    for k in range(3):
        B[12, k] = -2.0 * x21[k]
        B[12, 6 + k] = 2.0 * x21[k]
        B[12, 3 + k] = 0.0
        B[12, 9 + k] = 0.0
    for r in range(12):
        for s in range(12):
            B[r, s] = 0.0
    for j in range(3):
        for k in range(3):
            B[j, k] = -Q1[k, j]
            B[j, 6 + k] = Q1[k, j]
        B[j, 3 + 0] = Q1[1, j] * x21[2] - Q1[2, j] * x21[1]
        B[j, 3 + 1] = Q1[2, j] * x21[0] - Q1[0, j] * x21[2]
        B[j, 3 + 2] = Q1[0, j] * x21[1] - Q1[1, j] * x21[0]
        for m in range(3):
            r = 3 + 3 * j + m
            cx = Q1[1, j] * Q2[2, m] - Q1[2, j] * Q2[1, m]
            cy = Q1[2, j] * Q2[0, m] - Q1[0, j] * Q2[2, m]
            cz = Q1[0, j] * Q2[1, m] - Q1[1, j] * Q2[0, m]
            B[r, 3], B[r, 4], B[r, 5] = cx, cy, cz
            B[r, 9], B[r, 10], B[r, 11] = -cx, -cy, -cz


@jit
def midpoint_force_oriented(X, u0, R0n, u1, R1n, um, Rm, psi, D, p, f, K):
    """Energy- and momentum-conserving algorithmic force of the step (u0, R0n) → (u1, R1n):
    a discrete gradient in quadratic invariants (Gonzalez 1996).

    The step increment of one element is Δq = (Δx1, ψ1, Δx2, ψ2) (12,): translation
    increments and the Cayley vectors ψ_a of the nodal rotation increments
    (R1 = cay(ψ) R0). The co-rotational energy is a function Ṽ(π) of the 13 invariants
    π = (y, P, λ), y = Q1ᵀ x21, P = Q1ᵀ Q2, λ = x21·x21 (Q_a the section triads, x21 the
    chord; ``_invariant_energy``); each is bilinear in the chord and the directors
    (columns of Q_a). With Cayley increments a director moves by Δd = ψ × d̄ exactly,
    d̄ = ½ (d_n + d_{n+1}), so the invariants change by

        Δπ = B(q̄) Δq   exactly,

    B(q̄) the variation of π (``_invariant_variation``) at the *averaged* configuration q̄
    (averaged chord and triads); π_{n+1} is taken as π_n + B(q̄)Δq (free of the rounding
    of the absolute positions). The force is

        f̄ = B(q̄)ᵀ ḡ,   ḡ = ∇Ṽ(π̄) + [(ΔṼ − ∇Ṽ(π̄)·Δπ)/(Δπ·M Δπ + ε²)] M Δπ,

    π̄ = ½ (π_n + π_{n+1}), M = diag(1, 1, 1, l0², …, l0², 1/(4 l0²)), ε = 1e-7 l0. Hence
    f̄·Δq = ḡ·Δπ = ΔV (to a relative (ε/|Δπ|)²); B(q̄)ᵀ ḡ is self-equilibrated at the mid
    positions for any ḡ (π is invariant under rotations of chord and directors together),
    so linear and angular momentum are exact; a rigid step has Δπ = 0, hence
    ḡ = ∇Ṽ(π_n) and f̄ = 0 for a stress-free element at any step size. The mismatch
    ΔṼ − ∇Ṽ(π̄)·Δπ is the mid-point error of a smooth function of π, O(|Δπ|³), so the
    correction is O(|Δπ|²): it vanishes smoothly with the deformation increment, whatever
    the rigid motion of the step.

    Arrays: X (n_el, 2, 3); u0, u1 (n_el, 12) (rotational slots ignored); R0n, R1n
    (n_el, 2, 3, 3); psi (n_el, 2, 3); p properties; um, Rm, D (mid configuration and
    mid-spin derivative, accepted for the solver's call and not needed here). Writes f
    (n_el, 12) and K (n_el, 12, 12) = ∂f̄/∂Δq: motion of q̄ at fixed ḡ, ∇²Ṽ(π̄) ½ B(q_{n+1})
    (the exact invariant Hessian, from the analytic tangent of the co-rotational element by
    the chain rule, see ``_invariant_energy``) and the derivative of the correction.
    """
    V0 = np.empty(X.shape[0])
    V0[:] = np.nan
    with_matrix = V0.size == X.shape[0]  # True, as a run-time value: one compiled specialization
    midpoint_force_steps(X, u0, R0n, u1, R1n, psi, p, V0, section_forms(X.shape[0]), with_matrix, f, K)


KEPT_FORMS = 256  # elements up to which ``section_forms`` keeps the forms of each element (at most 760 KB)


@jit(inline="always")  # allocations only: compiled into each caller, no library of its own
def section_forms(n_el):
    """Arrays for the strain forms Lq (k, 6, 7), Hq (k, 6, 7, 7) and section matrices
    S (k, 6, 6) of ``n_el`` elements, kept by ``midpoint_force_steps`` with their
    start-of-step energies: k = n_el up to KEPT_FORMS elements, else k = 0 (none kept:
    ``midpoint_force_steps`` builds them in each call, where 372 floats per element kept
    through a step would be 496 B/DOF of a beam3d chain). A model's element kernel thus
    builds them once per step (small models) or once per call in a uniform mesh (large
    ones); the forms are the same either way."""
    k = n_el if n_el <= KEPT_FORMS else 0
    return np.empty((k, 6, 7)), np.empty((k, 6, 7, 7)), np.empty((k, 6, 6))


@jit(internal=True)
def midpoint_force_steps(X, u0, R0n, u1, R1n, psi, p, V0, forms, with_matrix, f, K):
    """``midpoint_force_oriented`` with the strain energies V0 (n_el,) of the elements at the
    start of the step kept by the caller: V0[e] is computed and stored where it is NaN, else
    taken as it is (the Newton iterations of one step share the start of the step; a whole-step
    driver sets V0 to NaN at each new step). The element's strain forms and section matrix
    (372 floats, from its reference length and properties alone) are either kept with V0[e]
    in ``forms`` (``section_forms(n_el)`` with n_el rows: built where V0[e] is NaN, they
    serve every energy evaluation of the step) or, when ``forms`` has no rows, built in
    each call into one element's work arrays, again only where the element before had
    another reference length or other properties (bit for bit, signs of zeros included).

    Without ``with_matrix`` only the force f is written (K untouched), bitwise the force of
    a call with the matrix: the energy at π_{n+1} without its gradient and the gradient at
    π̄ without the Hessian, about 0.4 of the work of force and matrix. A Newton loop needs
    no matrix at the evaluation that converges."""
    R0, F, RR, qa, th, _, _, _, qv, rho, G, sig, fl, Hl, W, J, V, fcr = _scratch()
    mw = _mid_scratch(p.shape[1])
    Xt, pt, ow = mw[0], mw[3], mw[12]
    keep = forms[0].shape[0] > 0  # (kept per element with V0, else built here)
    own = section_forms(1)
    built, l0_built = -1, 0.0  # the element whose forms ``own`` holds (none yet) and its l0
    Q1a, Q2a, Q1b, Q2b = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
    Q1m, Q2m = np.empty((3, 3)), np.empty((3, 3))
    xa, xb, xm = np.empty(3), np.empty(3), np.empty(3)
    # invariants and gradients of the three energy evaluations (π_n, π_{n+1}, π̄) as rows,
    # so that one call site of _invariant_energy serves all three
    PI, GR = np.empty((3, 13)), np.empty((3, 13))
    pia, pip, pim = PI[0], PI[1], PI[2]
    gb, g1, gm = GR[0], GR[1], GR[2]
    pib, dpi, wt, zc = np.empty(13), np.empty(13), np.empty(13), np.empty(13)
    Hpi = np.empty((13, 13))
    Kp = np.empty((13, 12))
    dq, row = np.empty(12), np.empty(12)
    Bm = np.empty((13, 12))
    B1 = np.empty((13, 12))
    HB = np.empty((12, 12))
    Tp = np.empty((2, 3, 3))
    v1 = np.empty(3)
    fx = np.empty(3)
    dv = np.empty(3)
    for e in range(X.shape[0]):
        for a in range(2):
            for k in range(3):
                Xt[0, a, k] = X[e, a, k]
        for k in range(p.shape[1]):
            pt[0, k] = p[e, k]
        l0 = _reference_triad(X, p, e, R0)
        known = V0[e] == V0[e]  # (not NaN: the start of the step evaluated, kept forms built)
        if keep:
            Lq, Hq, S = forms[0][e], forms[1][e], forms[2][e]
            build = not known
        else:
            # the forms depend on l0 and the element's properties alone: built again unless
            # the element before had the same (a uniform mesh builds them once per call)
            Lq, Hq, S = own[0][0], own[1][0], own[2][0]
            build = not (built >= 0 and l0 == l0_built)
            k = 0
            while not build and k < p.shape[1]:
                build = p[e, k] != p[built, k] or math.copysign(1.0, p[e, k]) != math.copysign(1.0, p[built, k])
                k += 1
            if build:
                built, l0_built = e, l0
        if build:  # (one call site each: one inlined copy)
            _strain_forms(l0, p, e, Lq, Hq, ow)
            _section_matrix(p, e, l0, S)
        _invariants(X, u0, R0n, e, R0, Q1a, Q2a, xa, pia)
        _invariants(X, u1, R1n, e, R0, Q1b, Q2b, xb, pib)
        # averaged configuration and its invariant variation; Δπ = B(q̄) Δq exactly, taken
        # from the increments (π_{n+1} = π_n + Δπ) so that ΔṼ is free of the rounding of
        # the absolute positions
        for i in range(3):
            xm[i] = 0.5 * (xa[i] + xb[i])
            for j in range(3):
                Q1m[i, j] = 0.5 * (Q1a[i, j] + Q1b[i, j])
                Q2m[i, j] = 0.5 * (Q2a[i, j] + Q2b[i, j])
        _invariant_variation(Q1m, Q2m, xm, Bm)
        for a in range(2):
            for k in range(3):
                dq[6 * a + k] = u1[e, 6 * a + k] - u0[e, 6 * a + k]
                dq[6 * a + 3 + k] = psi[e, a, k]
        for k in range(13):
            acc = 0.0
            for r in range(12):
                acc += Bm[k, r] * dq[r]
            dpi[k] = acc
            pip[k] = pia[k] + acc
            pim[k] = pia[k] + 0.5 * acc
            wt[k] = 1.0 if k < 3 else (l0 * l0 if k < 12 else 0.25 / (l0 * l0))
        # Ṽ(π_n); Ṽ(π_{n+1}) and its gradient; gradient and Hessian at π̄ (order: a run-time
        # value, one compilation); for the force alone one order less at π_{n+1} and π̄
        V1 = 0.0
        for t in range(1 if known else 0, 3):
            order = t if with_matrix or t == 0 else t - 1
            Vt = _invariant_energy(PI[t], order, R0, F, qa, th, RR, Lq, Hq, qv, rho, G, S, sig, fl, Hl, fcr, W, J, V, mw,
                                   GR[t])
            if t == 0:
                V0[e] = Vt
            elif t == 1:
                V1 = Vt
        cc, sden, den = discrete_gradient(V1 - V0[e], gm, dpi, wt, (1e-7 * l0) ** 2, gb)
        project(Bm, gb, f[e])
        if not with_matrix:
            continue
        _invariant_hessian(pim, R0, mw[4], mw[5], mw[6], mw[7], mw[8], mw[9], mw[10], mw[11], Hpi)
        # ------------------------------------------------------------ Newton matrix
        # (i) motion of the averaged configuration at fixed ḡ: δx̄21 = ½ δΔx21,
        #     δd̄ = ½ w × d_{n+1}, w_a = T(ψ_a) δψ_a
        for a in range(2):
            cayley_spin_jacobian(psi[e, a], Tp[a])
        for r in range(12):
            for s in range(12):
                HB[r, s] = 0.0  # derivative over (δx1, w1, δx2, w2)
        # chord force f_x2 = −f_x1 = Q̄1 g_y and the moments of g_P
        add_mean_motion(Q1b, Q1m, Q2b, Q2m, xm, gb, 0, 1, v1, fx, dv, HB)
        # λ part 2 g_λ x̄21 on x2 (opposite on x1), δx̄21 = ½ δΔx21
        for i in range(3):
            HB[6 + i, 6 + i] += gb[12]
            HB[6 + i, i] -= gb[12]
            HB[i, 6 + i] -= gb[12]
            HB[i, i] += gb[12]
        # (ii) ∂ḡ/∂Δq = ∇²Ṽ(π̄) ½ B(q_{n+1}) (the exact invariant Hessian, Hpi)
        _invariant_variation(Q1b, Q2b, xb, B1)
        add_correction_tangent(Hpi, B1, Bm, dpi, wt, g1, gm, cc, sden, den, Kp, zc, row, HB)
        rotation_columns(HB, Tp, K[e])
