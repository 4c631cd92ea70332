"""The mass points of a co-rotated Craig–Bampton superelement carried through consecutive
mid-point steps as reduced quantities (elements.superelement_step).

A step's inertia force needs the points' start velocities v_j only through their moments
P = Σ w_j v_j (3,), V[p, l] = Σ w_j Ŷ_jp v_jl (3, 3) and V_d[p, k, l] = Σ w_j Φ_jpk v_jl
(3, m, 3) with the weights w_j = m_j (the momentum scale of the Newton test also needs
S = Σ m_j² |v_j|², hence the same moments with w_j = m_j²); Ŷ_j = X_j − X_c and Φ_j (3, m)
as in elements.superelement_step. The mid-point rule of a point, v_{j,n+1} = 2Δx_j/h − v_{j,n},
with the exact point map

    Δx_j = Δo + ΔR y_j(d_1) + R_s0 Φ_j Δd,   ΔR = R_s1 − R_s0,  y_j(d) = Ŷ_j + Φ_j d,

(o, R_s, d the centroid, frame and deformation at the step's ends) is linear in Ŷ_j and
Φ_j, so the moments of Δx_j follow from the mass moments of the points (``point_moments``
with the weights w_j) and the moments of v_{j,n+1} from those of v_{j,n}: exact, in O(m²)
per step whatever the number of points (the ΔR form keeps the differences of positions
free of cancellation). The points' velocities themselves are needed only when a state is
handed out: v_{j,n} = s v_{j,0} + a + B Ŷ_j + Σ_qi C[:, q, i] Φ_jqi with s = ±1 and
a (3,), B (3, 3), C (3, 3, m) summed over the steps (``advance_velocity_map``,
``point_velocities``); their positions are the point map at the end state.
"""
import numpy as np

from femb.core import jit

from .superelement_step import _moments, _points, _velocity_moments


@jit(internal=True)
def start_moments(p_row, m, v, P, V, Vd):
    """The velocity moments of an element's points with the velocities v (n_p, 3): P (2, 3),
    V (2, 3, 3), Vd (2, 3, m, 3), index 0 with the weights m_j, 1 with m_j² (module
    docstring); returns S = Σ m_j² |v_j|²."""
    mass, pos, modes = _points(p_row, m)
    origin = _moments(p_row, m)[0]
    _velocity_moments(mass, pos, modes, origin, v, P[0], V[0], Vd[0])
    _velocity_moments(mass * mass, pos, modes, origin, v, P[1], V[1], Vd[1])
    s = 0.0
    for j in range(mass.shape[0]):
        for a in range(3):
            s += (mass[j] * v[j, a]) ** 2
    return s


@jit(internal=True)
def shifted_moments(p_row, m, P, V, Vd, c, grav, Pg, Vg, Vdg):
    """The moments Pg (3,), Vg (3, 3), Vdg (3, m, 3) of the velocities v_j + c g (weights
    m_j) from those of v_j (P, V, Vd): + c (m_tot g, s0 ⊗ g, S1 ⊗ g); g = ``grav`` (3,)."""
    _, m_tot, s0, S1, _, _, _ = _moments(p_row, m)
    for l in range(3):
        cg = c * grav[l]
        Pg[l] = P[l] + m_tot * cg
        for p in range(3):
            Vg[p, l] = V[p, l] + s0[p] * cg
            for k in range(m):
                Vdg[p, k, l] = Vd[p, k, l] + S1[p, k] * cg


@jit(internal=True)
def _dot(do, dR, R0, d1, dd, P, V, Vd):
    """Σ w_j Δx_j·u_j from the moments (P, V, Vd) of u_j (module docstring's Δx_j)."""
    m = d1.shape[0]
    s = do[0] * P[0] + do[1] * P[1] + do[2] * P[2]
    for l in range(3):
        for q in range(3):
            a1 = V[q, l]
            ad = 0.0
            for k in range(m):
                a1 += d1[k] * Vd[q, k, l]
                ad += dd[k] * Vd[q, k, l]
            s += dR[l, q] * a1 + R0[l, q] * ad
    return s


@jit(internal=True)
def advance_moments(moments, do, dR, R0, d1, dd, h, P, V, Vd, A, B, C):
    """One step of the moments (P (3,), V (3, 3), Vd (3, m, 3)) of the points' velocities
    with the weights of ``moments`` (``moment_views``): the moments A, B, C of Δx_j (work
    arrays of P's, V's and Vd's shapes) for the step Δo = do (3,), ΔR = dR, R_s0 = R0
    (3, 3), d_1 = d1, Δd = dd (m,), then (P, V, Vd) ← (2/h)(A, B, C) − (P, V, Vd).
    Returns (Σ w_j |Δx_j|², Σ w_j Δx_j·v_{j,n})."""
    m = d1.shape[0]
    _, w_tot, s0, S1, I0, I1, I2 = moments
    for l in range(3):
        acc = w_tot * do[l]
        for q in range(3):
            y1 = s0[q]
            yd = 0.0
            for k in range(m):
                y1 += S1[q, k] * d1[k]
                yd += S1[q, k] * dd[k]
            acc += dR[l, q] * y1 + R0[l, q] * yd
        A[l] = acc
    for p in range(3):
        for l in range(3):
            B[p, l] = s0[p] * do[l]
        for q in range(3):
            j1 = I0[p, q]
            jd = 0.0
            for k in range(m):
                j1 += I1[p, q, k] * d1[k]
                jd += I1[p, q, k] * dd[k]
            for l in range(3):
                B[p, l] += dR[l, q] * j1 + R0[l, q] * jd
        for k in range(m):
            for l in range(3):
                C[p, k, l] = S1[p, k] * do[l]
            for q in range(3):
                n1 = I1[q, p, k]
                nd = 0.0
                for i in range(m):
                    n1 += I2[p, k, q, i] * d1[i]
                    nd += I2[p, k, q, i] * dd[i]
                for l in range(3):
                    C[p, k, l] += dR[l, q] * n1 + R0[l, q] * nd
    xx = _dot(do, dR, R0, d1, dd, A, B, C)
    xv = _dot(do, dR, R0, d1, dd, P, V, Vd)
    c = 2.0 / h
    for l in range(3):
        P[l] = c * A[l] - P[l]
        for p in range(3):
            V[p, l] = c * B[p, l] - V[p, l]
            for k in range(m):
                Vd[p, k, l] = c * C[p, k, l] - Vd[p, k, l]
    return xx, xv


@jit(internal=True)
def advance_velocity_map(do, dR, R0, d1, dd, h, a, B, C):
    """One step of the points' velocity map v_j = s v_{j,0} + a + B Ŷ_j + Σ C[:, q, i] Φ_jqi
    (module docstring): a ← (2/h)Δo − a (3,), B ← (2/h)ΔR − B (3, 3), C[l, q, i] ←
    (2/h)(ΔR[l, q] d1_i + R0[l, q] Δd_i) − C (3, 3, m) (the caller flips s)."""
    m = d1.shape[0]
    c = 2.0 / h
    for l in range(3):
        a[l] = c * do[l] - a[l]
        for q in range(3):
            B[l, q] = c * dR[l, q] - B[l, q]
            for i in range(m):
                C[l, q, i] = c * (dR[l, q] * d1[i] + R0[l, q] * dd[i]) - C[l, q, i]


@jit(internal=True)
def point_velocities(p_row, m, sign, a, B, C, v):
    """v (n_p, 3) ← sign v + a + B Ŷ_j + Σ C[:, q, i] Φ_jqi: the points' velocities after the
    steps of ``advance_velocity_map`` from the velocities in v (in place)."""
    mass, pos, modes = _points(p_row, m)
    origin = _moments(p_row, m)[0]
    n_p = mass.shape[0]
    Cm = np.empty((3 * m, 3))
    for l in range(3):
        for q in range(3):
            for i in range(m):
                Cm[q * m + i, l] = C[l, q, i]
    W = np.dot(np.ascontiguousarray(modes).reshape((n_p, 3 * m)), Cm)
    for j in range(n_p):
        y0 = pos[j, 0] - origin[0]
        y1 = pos[j, 1] - origin[1]
        y2 = pos[j, 2] - origin[2]
        for l in range(3):
            v[j, l] = sign * v[j, l] + a[l] + B[l, 0] * y0 + B[l, 1] * y1 + B[l, 2] * y2 + W[j, l]


__all__ = ["start_moments", "shifted_moments", "advance_moments", "advance_velocity_map", "point_velocities"]
