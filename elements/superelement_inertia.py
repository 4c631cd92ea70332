"""The mass points of a co-rotated Craig–Bampton superelement at one configuration: their
positions, their Jacobian, and the forces, potentials and matrices built from them for
statics, linearization and steady spin (elements.superelement, elements.superelement_step).

Point map. A superelement carries its inertia as mass points m_j (femb.model.superelements.MassPoints)
that move with the shadow frame (o, R_s) and the deformational vector d:

    x_j = o + R_s y_j,   y_j = X_j − X_c + Φ_j d (+ ½ Σ_ab q̂_a q̂_b S_j,ab with foreshortening).

Its Jacobian over the element's increments z = (δx_a, δw_a, δq̂) (δw_a spatial spins of the
nodal rotations, R_a ← exp(δŵ_a) R_a, as in every oriented kernel) is

    J_j = E_c − ĉ_j F + R_s (Φ_j + S_j(q̂)) D      (3, m),   c_j = R_s y_j,

with E_c the centroid map (δo = mean of the nodal δx_a), F (3, m) the frame's spatial spin
per unit z and D = ∂d/∂z (elements.superelement_step.frame_maps), S_j(q̂) the second-order
rows contracted with the modal amplitudes on the modal columns (∂(½qᵀSq)/∂q = S_sym q).

Fields. A uniform acceleration field (gravity g) and the centrifugal field of a steady spin
ω about an axis through p act on the points as a_j = a0 + A x_j with A symmetric (gravity:
a0 = g, A = 0; spin: A = ω̂ᵀω̂ = −ω̂², a0 = −A p, so a_j = −ω × (ω × (x_j − p))). Their
potential is V = −Σ_j m_j (a0·x_j + ½ x_jᵀ A x_j) and their generalized force

    f = Σ_j m_j J_jᵀ a_j      (m,),

exact for any configuration (the weight's resultant m g and moment m x_G × g for any
rigid turn). Its derivative ∂f/∂z along the increments (the load stiffness is −∂f/∂z) is
taken by central differences of this exact force with one Richardson extrapolation (steps
10⁻³ rad on spins and 10⁻³ ℓ on translations and modal amplitudes, ℓ the points' mass
radius about the interface centroid): truncation O(h⁴) ≈ 10⁻¹², rounding ≈ 10⁻¹³ relative,
and it contains the curvature of the point map (J depends on z) in full.

Inertia about a state at rest in a frame turning at ω: the points' kinetic energy
T = ½ Σ m_j |J_j ż + ω × (x_j − p)|² gives the mass Σ m_j J_jᵀJ_j and the gyroscopic
(Coriolis) matrix Σ m_j J_jᵀ 2ω̂ J_j (skew); the centrifugal terms are the field above.
"""
import math

import numpy as np

from femb.core import jit
from femb.core.rotations import exp_so3, mat3

from .superelement_step import _local, _moments, _points, _second, frame_maps


@jit(internal=True)
def _radius(mass, pos, origin):
    """√(Σ m_j |X_j − origin|² / Σ m_j): the points' mass radius about ``origin`` (1 when 0)."""
    s = 0.0
    mt = 0.0
    for j in range(mass.shape[0]):
        mt += abs(mass[j])
        for c in range(3):
            s += abs(mass[j]) * (pos[j, c] - origin[c]) ** 2
    r = math.sqrt(s / mt) if mt > 0.0 else 0.0
    return r if r > 0.0 else 1.0


@jit(internal=True)
def _frame_state(X1, ue, Re, p_row):
    """The points' data of one element's property row and its shadow frame at (ue (1, m),
    Re (1, n, 3, 3)): (mass, pos, modes, Xc, has2, second, kq, Dg (m, m), Fg (3, m),
    d (m,), Rs (3, 3), o (3,)) — kq the number of modal amplitudes with second-order
    rows (0 without them)."""
    n = X1.shape[1]
    m = ue.shape[1]
    mass, pos, modes = _points(p_row, m)
    Xc = _moments(p_row, m)[0]
    has2, second = _second(p_row, m, m - 6 * n)
    kq = second.shape[2] if has2 != 0.0 else 0
    Dg = np.zeros((m, m))
    Fg = np.zeros((3, m))
    d = np.zeros(m)
    Rs = np.zeros((3, 3))
    o, _ = frame_maps(X1, ue, Re, Dg, Fg, d, Rs)
    return mass, pos, modes, Xc, has2, second, kq, Dg, Fg, d, Rs, o


@jit(internal=True)
def _maps(X1, ue, Re, p_row, xs, J):
    """Positions xs (n_p, 3) and Jacobians J (n_p, 3, m) of the points of one element at
    (ue (1, m), Re (1, n, 3, 3)) (module docstring)."""
    n = X1.shape[1]
    m = ue.shape[1]
    mass, pos, modes, Xc, has2, second, kq, Dg, Fg, d, Rs, o = _frame_state(X1, ue, Re, p_row)
    y = np.zeros(3)
    c = np.zeros(3)
    B = np.zeros((3, m))
    BD = np.zeros((3, m))
    for j in range(mass.shape[0]):
        _local(pos, modes, second, has2 != 0.0, Xc, d, j, y)
        for i in range(3):
            c[i] = Rs[i, 0] * y[0] + Rs[i, 1] * y[1] + Rs[i, 2] * y[2]
            xs[j, i] = o[i] + c[i]
            for k in range(m):
                B[i, k] = modes[j, i, k]
            for a in range(kq):
                acc = 0.0
                for b in range(kq):
                    acc += 0.5 * (second[j, i, a, b] + second[j, i, b, a]) * d[m - kq + b]
                B[i, m - kq + a] += acc
        for i in range(3):
            for k in range(m):
                acc = 0.0
                for l in range(m):
                    acc += B[i, l] * Dg[l, k]
                BD[i, k] = acc
        for k in range(m):
            # −ĉ F: −c × F[:, k]
            J[j, 0, k] = -(c[1] * Fg[2, k] - c[2] * Fg[1, k])
            J[j, 1, k] = -(c[2] * Fg[0, k] - c[0] * Fg[2, k])
            J[j, 2, k] = -(c[0] * Fg[1, k] - c[1] * Fg[0, k])
            for i in range(3):
                J[j, i, k] += Rs[i, 0] * BD[0, k] + Rs[i, 1] * BD[1, k] + Rs[i, 2] * BD[2, k]
        for a in range(n):
            for i in range(3):
                J[j, i, 6 * a + i] += 1.0 / n


@jit(internal=True)
def _force(X1, ue, Re, p_row, a0, A, f):
    """f (m,) = Σ m_j J_jᵀ (a0 + A x_j) of one element; returns its potential
    −Σ m_j (a0·x_j + ½ x_jᵀ A x_j). Summed as E_cᵀ Σ m_j a_j + Fᵀ Σ m_j c_j × a_j +
    Dᵀ Σ_j (Φ_j + S_j)ᵀ R_sᵀ m_j a_j (J_jᵀ = E_cᵀ + Fᵀ ĉ_j + Dᵀ (Φ_j + S_j)ᵀ R_sᵀ), so one
    evaluation costs O(n_p m + m²)."""
    n = X1.shape[1]
    m = ue.shape[1]
    mass, pos, modes, Xc, has2, second, kq, Dg, Fg, d, Rs, o = _frame_state(X1, ue, Re, p_row)
    y = np.zeros(3)
    c = np.zeros(3)
    ma = np.zeros(3)
    w = np.zeros(3)
    P = np.zeros(3)  # Σ m_j a_j
    L = np.zeros(3)  # Σ m_j c_j × a_j
    H = np.zeros(m)  # Σ_j (Φ_j + S_j)ᵀ R_sᵀ m_j a_j
    V = 0.0
    for j in range(mass.shape[0]):
        _local(pos, modes, second, has2 != 0.0, Xc, d, j, y)
        for i in range(3):
            c[i] = Rs[i, 0] * y[0] + Rs[i, 1] * y[1] + Rs[i, 2] * y[2]
        for i in range(3):
            x = o[i] + c[i]
            ax = A[i, 0] * (o[0] + c[0]) + A[i, 1] * (o[1] + c[1]) + A[i, 2] * (o[2] + c[2])
            V -= mass[j] * (a0[i] + 0.5 * ax) * x
            ma[i] = mass[j] * (a0[i] + ax)
            P[i] += ma[i]
        L[0] += c[1] * ma[2] - c[2] * ma[1]
        L[1] += c[2] * ma[0] - c[0] * ma[2]
        L[2] += c[0] * ma[1] - c[1] * ma[0]
        for i in range(3):
            w[i] = Rs[0, i] * ma[0] + Rs[1, i] * ma[1] + Rs[2, i] * ma[2]
        for k in range(m):
            H[k] += modes[j, 0, k] * w[0] + modes[j, 1, k] * w[1] + modes[j, 2, k] * w[2]
        for a in range(kq):
            acc = 0.0
            for b in range(kq):
                db = d[m - kq + b]
                for i in range(3):
                    acc += 0.5 * (second[j, i, a, b] + second[j, i, b, a]) * db * w[i]
            H[m - kq + a] += acc
    for k in range(m):
        acc = Fg[0, k] * L[0] + Fg[1, k] * L[1] + Fg[2, k] * L[2]
        for l in range(m):
            acc += Dg[l, k] * H[l]
        f[k] = acc
    for a in range(n):
        for i in range(3):
            f[6 * a + i] += P[i] / n
    return V


@jit(internal=True)
def _perturbed(ue, Re, col, h, n, u1, R1):
    """The configuration moved by h along increment ``col``: additive on translations and
    modal amplitudes, R_a ← exp(h ê_c) R_a on the spin slots."""
    for i in range(ue.shape[1]):
        u1[0, i] = ue[0, i]
    for a in range(n):
        for i in range(3):
            for k in range(3):
                R1[0, a, i, k] = Re[0, a, i, k]
    if col < 6 * n and col % 6 >= 3:
        a = col // 6
        th = np.zeros(3)
        th[col % 6 - 3] = h
        E = np.zeros((3, 3))
        exp_so3(th, E)
        mat3(E, Re[0, a], R1[0, a])
    else:
        u1[0, col] += h


@jit
def field_force(X, u, R, p, a0, A, f, e):
    """Generalized forces f (n_el, m) of the field a_j = a0 + A x_j on the points (module
    docstring; a0 (3,) and A (3, 3) symmetric in acceleration units) and their potentials
    e (n_el,)."""
    n_el = X.shape[0]
    for el in range(n_el):
        e[el] = _force(X[el: el + 1], u[el: el + 1].copy(), R[el: el + 1].copy(), p[el], a0, A, f[el])


@jit
def field_force_derivative(X, u, R, p, a0, A, f, K):
    """``field_force`` f (n_el, m) and its derivative K = ∂f/∂z (n_el, m, m) along the
    element increments (spatial spins on the rotation slots) by Richardson-extrapolated
    central differences (module docstring). The load stiffness is −K."""
    n_el, n = X.shape[0], X.shape[1]
    m = u.shape[1]
    for el in range(n_el):
        p_row = p[el]
        mass, pos, _ = _points(p_row, m)
        ell = _radius(mass, pos, _moments(p_row, m)[0])
        X1 = X[el: el + 1]
        ue = u[el: el + 1].copy()
        Re = R[el: el + 1].copy()
        u1 = ue.copy()
        R1 = Re.copy()
        fp = np.zeros(m)
        fm = np.zeros(m)
        d1 = np.zeros(m)
        _force(X1, ue, Re, p_row, a0, A, f[el])
        for col in range(m):
            h = 1e-3 if (col < 6 * n and col % 6 >= 3) else 1e-3 * ell
            for r in range(2):
                s = h if r == 0 else 0.5 * h
                _perturbed(ue, Re, col, s, n, u1, R1)
                _force(X1, u1, R1, p_row, a0, A, fp)
                _perturbed(ue, Re, col, -s, n, u1, R1)
                _force(X1, u1, R1, p_row, a0, A, fm)
                for i in range(m):
                    dc = (fp[i] - fm[i]) / (2.0 * s)
                    if r == 0:
                        d1[i] = dc
                    else:
                        K[el, i, col] = (4.0 * dc - d1[i]) / 3.0


@jit
def point_matrices(X, u, R, p, omega, M, G):
    """The points' mass M (n_el, m, m) = Σ m_j J_jᵀJ_j and gyroscopic matrix G (n_el, m, m)
    = Σ m_j J_jᵀ 2ω̂ J_j (skew; the Coriolis forces in a frame turning at ω (3,)) at the
    configuration (u, R)."""
    n_el = X.shape[0]
    m = u.shape[1]
    W = np.zeros((3, 3))
    W[0, 1], W[0, 2] = -omega[2], omega[1]
    W[1, 0], W[1, 2] = omega[2], -omega[0]
    W[2, 0], W[2, 1] = -omega[1], omega[0]
    for el in range(n_el):
        mass = _points(p[el], m)[0]
        n_p = mass.shape[0]
        xs = np.zeros((n_p, 3))
        J = np.zeros((n_p, 3, m))
        _maps(X[el: el + 1], u[el: el + 1].copy(), R[el: el + 1].copy(), p[el], xs, J)
        WJ = np.zeros((3, m))
        for i in range(m):
            for k in range(m):
                M[el, i, k] = 0.0
                G[el, i, k] = 0.0
        for j in range(n_p):
            mj = mass[j]
            for c in range(3):
                for k in range(m):
                    WJ[c, k] = 2.0 * (W[c, 0] * J[j, 0, k] + W[c, 1] * J[j, 1, k] + W[c, 2] * J[j, 2, k])
            for i in range(m):
                for k in range(m):
                    M[el, i, k] += mj * (J[j, 0, i] * J[j, 0, k] + J[j, 1, i] * J[j, 1, k] + J[j, 2, i] * J[j, 2, k])
                    G[el, i, k] += mj * (J[j, 0, i] * WJ[0, k] + J[j, 1, i] * WJ[1, k] + J[j, 2, i] * WJ[2, k])


@jit(internal=True)
def point_maps(X, u, R, p, xs, J):
    """Positions xs (n_el, n_p, 3) and Jacobians J (n_el, n_p, 3, m) of the mass points at
    the configuration (u, R) (module docstring)."""
    for el in range(X.shape[0]):
        _maps(X[el: el + 1], u[el: el + 1].copy(), R[el: el + 1].copy(), p[el], xs[el], J[el])


__all__ = ["field_force", "field_force_derivative", "point_matrices", "point_maps"]
