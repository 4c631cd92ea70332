"""Energy-momentum mid-point step of the co-rotated Craig–Bampton superelement
(elements.superelement): its algorithmic elastic force and the inertia of its mass points.

Kinematics. A superelement carries its inertia as mass points (the full mesh's
translational nodal masses m_j, femb.model.superelements.MassPoints) that move with the
shadow frame (o, R_s) and the deformational vector d of the element:

    x_j = o + R_s y_j,   y_j = X_j − X_c + Φ_j d,

Φ_j (3, m) the point's rows of the reduction basis, X_c the reference centroid of the
interface nodes. The kinetic energy T = Σ ½ m_j |ẋ_j|² is exact for any rigid motion (the
net inertial force of a spinning body is m ω² r_G whatever its interface) and contains the
centrifugal and Coriolis coupling of the modes with the frame. Each point keeps its own
velocity v_j from step to step (element state, femb.solvers.dynamics.point_inertia).

Step t_n → t_n + h. Unknowns of the element: the increment z = (Δx_a, ψ_a, Δq̂), ψ_a the
Cayley vectors of the nodal rotation increments (R_{a,n+1} = cay(ψ_a) R_{a,n}), as in the
3-D mid-point scheme (femb.solvers.dynamics.midpoint3d). The point positions follow the
mid-point rule of a particle, v_{j,n+1} = 2 Δx_j/h − v_{j,n}, and the element's
generalized force is

    r = D̄ᵀ K_r (d_n + d_{n+1})/2 + Σ_j J̄_jᵀ m_j (v_{j,n+1} − v_{j,n})/h,

with discrete derivatives (linear maps of z, evaluated at the step's two ends):

- D̄ of the deformation, D̄ z = d_{n+1} − d_n, and Φ̄ of the frame rotation, Φ̄ z = φ the
  Cayley vector of R_{s,n+1} R_{s,n}ᵀ: the derivatives D_m, F_m at the mid configuration
  (translations x_m, rotations cay(ψ/2)-halfway, rotational columns per unit spin) plus
  Gonzalez's correction (Δd − D_m z) ŷᵀ/(ŷᵀz_p) with ŷ = W z_p, z_p the part of z
  W-orthogonal to the six rigid modes of the mid configuration (translations;
  rotations: ω × (x_{m,a} − o_m) on the nodal translations and ω on the rotational slots;
  W = 1 on translations and modal amplitudes, ℓ² on rotations, ℓ² the mean squared
  interface radius). D_m annihilates the mid rigid modes and F_m maps them to ω exactly
  (the frame fit is exactly equivariant), and the correction is orthogonal to them;
- the point map, exact for the Cayley increments (cay(φ)a − a = φ × (cay(φ)a + a)/2):

      Δx_j = Δo + φ × c_j + (I + φ̂/2) R_{s,n} Φ_j Δd,   c_j = ½(R_{s,n} y_{j,n} + R_{s,n+1} y_{j,n+1}),
      J̄_j = E_c − ĉ_j Φ̄ + (I + φ̂/2) R_{s,n} Φ_j D̄,

  E_c the centroid map (Δo = E_c z).

Consequences (shown by tests): r·z = ΔV + ΔT exactly (so the scheme's energy balance is
exact); J̄_j maps a mid rigid translation t to t and a mid rigid rotation ω to ω × x_{j,m}
with x_{j,m} = (x_{j,n} + x_{j,n+1})/2, and D̄ annihilates both, so the linear and angular
momenta of points and nodes are conserved exactly in free flight (the scheme's angular
momentum balance x_m × Δp); a rigid step (no deformation increment) has z_p = 0, Δd = 0,
φ = ψ and no correction. The correction is dropped when |z_p|²_W < 10⁻¹⁶ |z|²_W (it is
then round-off over round-off; its size, O(h² |z_p|), is far below the tolerance).

The Newton matrix of the element (``midpoint_step``) is the analytic derivative of r by z
(elements.superelement_step_matrix): the inertia and elastic terms chained through the end
of the step (centroid, frame spin, deformation, and the frame's Cayley increment φ), in
O(m³) from the mass moments or point by point for points with second-order rows; for two or
more interface nodes the variation of the mid-point maps D̄, Φ̄ themselves (the frame's
second derivatives times the element's forces) is added by central differences of the step
geometry alone (``_frame_terms``); with one interface node it vanishes identically. The
central differences of the whole force (``midpoint_step_central``: 2m evaluations; step
10⁻⁶ ℓ on translations and modal amplitudes, 10⁻⁶ on Cayley vectors; about 10⁻¹⁰ relative)
are kept as the reference the tests compare it with. The converged step does not depend on
the matrix.
"""
import math

import numpy as np

from femb.core import jit
from femb.core.rotations import cayley, cayley_vector, half_cayley_vector, mat3

from .superelement_frame import deformation, reduced_energy
from .superelement_step_matrix import (
    _end_frame,
    _project,
    _step_matrix,
    _work,
    frame_maps,
    moment_derivatives,
    point_derivatives,
)


# --------------------------------------------------------------------------- data
@jit
def point_layout(p_row, m):
    """(offset, n_p): where the mass points start in a property row of an element with m
    coordinates and how many there are (elements.superelement, property row)."""
    base = 2 * m * m
    n_g = p_row[base]
    n_p = int(p_row[base + 1])
    off = base + 2 + (m * m * m + m * m if n_g != 0.0 else 0)
    return off, n_p


@jit
def _points(p_row, m):
    """(mass (n_p,), positions (n_p, 3), modes (n_p, 3, m)) views of a property row."""
    off, n_p = point_layout(p_row, m)
    mass = p_row[off: off + n_p]
    pos = p_row[off + n_p: off + 4 * n_p].reshape((n_p, 3))
    modes = p_row[off + 4 * n_p: off + 4 * n_p + 3 * n_p * m].reshape((n_p, 3, m))
    return mass, pos, modes


# --------------------------------------------------------------------------- moments
def point_moments(mass, positions, modes, origin):
    """The mass moments of the points about ``origin`` (3,) (the interface centroid), as
    packed after the points in the property row: origin, m = Σ m_j, s0 = Σ m_j Ŷ_j (3,),
    S1 = Σ m_j Φ_j (3, m), I0 = Σ m_j Ŷ_j Ŷ_jᵀ (3, 3), I1[p, q, k] = Σ m_j Ŷ_jp Φ_jqk
    (3, 3, m), I2[p, k, q, l] = Σ m_j Φ_jpk Φ_jql (3, m, 3, m), Ŷ_j = X_j − origin. With them
    (and the per-step velocity moments of ``_velocity_moments``) the step force costs
    O(m²), whatever the number of points."""
    mass = np.asarray(mass, dtype=np.float64)
    Y = np.asarray(positions, dtype=np.float64) - np.asarray(origin, dtype=np.float64)
    F = np.asarray(modes, dtype=np.float64)
    parts = [np.asarray(origin, dtype=np.float64), [mass.sum()], mass @ Y, np.einsum("j,jpk->pk", mass, F),
             np.einsum("j,jp,jq->pq", mass, Y, Y), np.einsum("j,jp,jqk->pqk", mass, Y, F),
             np.einsum("j,jpk,jql->pkql", mass, F, F, optimize=True)]
    return np.concatenate([np.ravel(a) for a in parts])


@jit
def _moments(p_row, m):
    """(origin, m_tot, s0, S1, I0, I1, I2) views of the mass moments of a property row."""
    off, n_p = point_layout(p_row, m)
    return moment_views(p_row, off + 4 * n_p + 3 * n_p * m, m)


@jit(internal=True)
def moment_views(p_row, k, m):
    """(origin, m_tot, s0, S1, I0, I1, I2) views of mass moments packed by ``point_moments``
    from position k of the array p_row (m coordinates)."""
    origin = p_row[k: k + 3]
    m_tot = p_row[k + 3]
    k += 4
    s0 = p_row[k: k + 3]
    k += 3
    S1 = p_row[k: k + 3 * m].reshape((3, m))
    k += 3 * m
    I0 = p_row[k: k + 9].reshape((3, 3))
    k += 9
    I1 = p_row[k: k + 9 * m].reshape((3, 3, m))
    k += 9 * m
    I2 = p_row[k: k + 9 * m * m].reshape((3, m, 3, m))
    return origin, m_tot, s0, S1, I0, I1, I2


@jit(internal=True)
def _velocity_moments(mass, pos, modes, origin, v0, P0, V, Vd):
    """Moments of the points' velocities v0 (n_p, 3): P0 = Σ m_j v_j (3,),
    V[p, l] = Σ m_j Ŷ_jp v_jl (3, 3), Vd[p, k, l] = Σ m_j Φ_jpk v_jl (3, m, 3) (matrix
    products over the points)."""
    n_p = mass.shape[0]
    m = modes.shape[2]
    mv = np.empty((n_p, 3))
    Yh = np.empty((n_p, 3))
    for l in range(3):
        P0[l] = 0.0
    for j in range(n_p):
        for l in range(3):
            mv[j, l] = mass[j] * v0[j, l]
            Yh[j, l] = pos[j, l] - origin[l]
            P0[l] += mv[j, l]
    F = np.ascontiguousarray(modes).reshape((n_p, 3 * m))
    Vdf = np.dot(F.T, mv)
    Vf = np.dot(Yh.T, mv)
    for p in range(3):
        for l in range(3):
            V[p, l] = Vf[p, l]
            for k in range(m):
                Vd[p, k, l] = Vdf[p * m + k, l]


@jit(internal=True)
def _second(p_row, m, k):
    """(flag, second (n_p, 3, k, k)): the second-order rows of the mass points after their
    mass moments (flag 0: none, an empty view)."""
    off, n_p = point_layout(p_row, m)
    at = off + 4 * n_p + 3 * n_p * m + 4 + 3 + 3 * m + 9 + 9 * m + 9 * m * m
    if n_p == 0 or at >= p_row.shape[0] or p_row[at] == 0.0:
        return 0.0, p_row[:0].reshape((0, 3, 0, 0))
    return 1.0, p_row[at + 1: at + 1 + 3 * n_p * k * k].reshape((n_p, 3, k, k))


@jit(internal=True)
def _local(pos, modes, second, has2, Xc, d, j, y):
    """y (3,) = Y_j − Xc + Φ_j d (+ ½ Σ_ab q̂_a q̂_b second_j,ab), the local position of
    point j for the deformational vector d (q̂: its last k entries)."""
    m = d.shape[0]
    for c in range(3):
        acc = pos[j, c] - Xc[c]
        for i in range(m):
            acc += modes[j, c, i] * d[i]
        y[c] = acc
    if has2:
        k = second.shape[2]
        q0 = m - k
        for c in range(3):
            acc = 0.0
            for a in range(k):
                s = 0.0
                for b in range(k):
                    s += second[j, c, a, b] * d[q0 + b]
                acc += d[q0 + a] * s
            y[c] += 0.5 * acc


# --------------------------------------------------------------------------- the step residual
@jit(internal=True)
def _start(X1, u0, R0, mass, pos, modes, second, has2, Xc, d0, Rs0, y0):
    """Start-of-step quantities: d0 (m,), Rs0, the points' local positions y0 (n_p, 3)
    (Xc (3,) the origin of the points' local positions); returns o0."""
    n = X1.shape[1]
    m = u0.shape[1]
    Xt, Y, Rb, _, th, _, _, _, _, _ = _work(n, m)
    o0, _ = deformation(X1, u0, R0, 0, Xt, Y, Rb, Rs0, th, d0)
    y = np.zeros(3)
    for j in range(mass.shape[0]):
        _local(pos, modes, second, has2, Xc, d0, j, y)
        for c in range(3):
            y0[j, c] = y[c]
    return o0


@jit(internal=True)
def _geometry(X1, u0, R0, dz, d0, Rs0, Dg1, Fg1, want_end):
    """The end configuration and the discrete maps of a step (module docstring): returns
    (o1, den, d1, Rs1, Dg, Fg, φ, yv) — the end centroid, den = z_pᵀ W z_p (0 when the
    correction is dropped), the end deformation d1 (m,) and frame Rs1, the mid derivatives
    Dg (m, m) and Fg (3, m), the frame's Cayley increment φ and the correction direction
    yv = W z_p (m,); with ``want_end`` also the end configuration's maps Dg1 (m, m), Fg1
    (3, m) (superelement_step_matrix._end_frame) that the step matrix chains through."""
    n = X1.shape[1]
    m = u0.shape[1]
    d1 = np.zeros(m)
    Rs1 = np.zeros((3, 3))
    Dg = np.zeros((m, m))
    Fg = np.zeros((3, m))
    phi = np.zeros(3)
    yv = np.zeros(m)
    um = u0.copy()
    for i in range(m):
        um[0, i] += 0.5 * dz[i]
    Rm = np.empty_like(R0)
    C = np.empty((3, 3))
    psi = np.empty(3)
    half = np.empty(3)
    for a in range(n):
        for c in range(3):
            psi[c] = dz[6 * a + 3 + c]
        half_cayley_vector(psi, half)
        cayley(half, C)
        mat3(C, R0[0, a], Rm[0, a])
    o1 = _end_frame(X1, u0, R0, dz, Dg1, Fg1, d1, Rs1, want_end)
    dm = np.zeros(m)
    Rsm = np.zeros((3, 3))
    om, w = frame_maps(X1, um, Rm, Dg, Fg, dm, Rsm)
    for i in range(3):
        for j in range(3):
            C[i, j] = Rs1[i, 0] * Rs0[j, 0] + Rs1[i, 1] * Rs0[j, 1] + Rs1[i, 2] * Rs0[j, 2]
    cayley_vector(C, phi)
    # the part z_p of dz W-orthogonal to the mid rigid modes
    Z = np.zeros((m, 6))
    Wd = np.ones(m)
    for a in range(n):
        r0 = X1[0, a, 0] + um[0, 6 * a] - om[0]
        r1 = X1[0, a, 1] + um[0, 6 * a + 1] - om[1]
        r2 = X1[0, a, 2] + um[0, 6 * a + 2] - om[2]
        for c in range(3):
            Z[6 * a + c, c] = 1.0
            Z[6 * a + 3 + c, 3 + c] = 1.0
            Wd[6 * a + 3 + c] = w
        Z[6 * a, 4], Z[6 * a, 5] = r2, -r1  # ω × r = −r̂ ω
        Z[6 * a + 1, 3], Z[6 * a + 1, 5] = -r2, r0
        Z[6 * a + 2, 3], Z[6 * a + 2, 4] = r1, -r0
    if n == 1:  # Z = the node's own six slots, W = 1 on them (ℓ² = 1, r = 0): ZᵀWZ = I
        coef = dz[:6].copy()
    else:
        S = np.zeros((6, 6))
        b = np.zeros(6)
        for i in range(6):
            for k in range(m):
                b[i] += Z[k, i] * Wd[k] * dz[k]
                for j in range(6):
                    S[i, j] += Z[k, i] * Wd[k] * Z[k, j]
        coef = np.linalg.solve(S, b)
    den = 0.0
    full = 0.0
    for k in range(m):
        zp = dz[k]
        for i in range(6):
            zp -= Z[k, i] * coef[i]
        yv[k] = Wd[k] * zp
        den += zp * yv[k]
        full += dz[k] * Wd[k] * dz[k]
    if not den > 1e-16 * full:
        den = 0.0
    return o1, den, d1, Rs1, Dg, Fg, phi, yv


@jit(internal=True)
def _combine(dz, d0, d1, p_row, Dg, Fg, phi, yv, den, Gs, L, H, n, g0, V0, want_H, Hm, H1, r, tot):
    """r = D̄ᵀ (ḡ + H) + Φ̄ᵀ L + E_cᵀ Gs (module docstring), ḡ the mean of ∇V over the
    segment d0 → d1 by Simpson's rule — exact, ∇V being at most cubic along it
    (elements.superelement_frame.reduced_energy) — so ḡ·Δd = ΔV; g0 = ∇V(d0) (m,) and
    V0 = V(d0) are given (``step_start``); writes tot = ḡ + H (m,) and, when ``want_H``, the
    Hessians Hm = ∇²V(d_m), H1 = ∇²V(d1) (m, m) the step matrix takes; returns ΔV."""
    m = dz.shape[0]
    gm = np.zeros(m)
    g1 = np.zeros(m)
    dm = np.zeros(m)
    for i in range(m):
        dm[i] = 0.5 * (d0[i] + d1[i])
    V1 = reduced_energy(p_row, d1, g1, H1, want_H)
    reduced_energy(p_row, dm, gm, Hm, want_H)
    for i in range(m):
        tot[i] = (g0[i] + 4.0 * gm[i] + g1[i]) / 6.0 + H[i]
    _project(dz, d0, d1, Dg, Fg, phi, yv, den, tot, L, Gs, n, r)
    return V1 - V0


@jit(internal=True)
def _start_energy(p_row, d0):
    """(∇V(d0) (m,), V(d0)): the strain energy at the start of the step."""
    g0 = np.zeros(d0.shape[0])
    V0 = reduced_energy(p_row, d0, g0, np.zeros((1, 1)), False)
    return g0, V0


@jit(internal=True)
def step_residual(X1, u0, R0, dz, h, p_row, mass, pos, modes, second, has2, Xc, v0, d0, Rs0, y0, o0, r):
    """r (m,): the element's generalized force at the step increment dz (m,) (module
    docstring) from the start state (u0 (1, m), R0 (1, n, 3, 3), the points' velocities
    v0 (n_p, 3) and the ``_start`` quantities d0, Rs0, y0, o0 with Xc); returns (ΔV, ΔT).
    Point by point: the reference for ``step_residual_moments``, which the kernel uses
    for points without second-order rows. With them (``has2``) the exact difference of the
    point map is Δy_j = (Φ_j + S_j(q̄)) Δd, S_j(q̄) the second-order rows contracted with
    the mean modal amplitudes on the modal columns (½ qᵀS q is quadratic)."""
    m = u0.shape[1]
    return _residual_points(X1, u0, R0, dz, h, p_row, mass, pos, modes, second, has2, Xc, v0, d0, Rs0, y0, o0, r,
                            np.zeros(m), np.zeros(3), np.zeros((1, 1)), False)


@jit(internal=True)
def _residual_points(X1, u0, R0, dz, h, p_row, mass, pos, modes, second, has2, Xc, v0, d0, Rs0, y0, o0, r, tot, L,
                     K, want_K):
    """``step_residual``; also writes tot = ḡ + H (m,) and L (3,) and, when ``want_K``, the
    analytic matrix K (m, m) (``_step_matrix``, point by point)."""
    n = X1.shape[1]
    m = u0.shape[1]
    Dg1 = np.zeros((m, m) if want_K else (0, 0))
    Fg1 = np.zeros((3, m) if want_K else (0, 0))
    o1, den, d1, Rs1, Dg, Fg, phi, yv = _geometry(X1, u0, R0, dz, d0, Rs0, Dg1, Fg1, want_K)
    Gs = np.zeros(3)
    for c in range(3):
        L[c] = 0.0
    H = np.zeros(m)
    y1s = np.zeros((mass.shape[0] if want_K else 0, 3))
    y1 = np.zeros(3)
    c0 = np.zeros(3)
    c1 = np.zeros(3)
    g = np.zeros(3)
    gw = np.zeros(3)
    wv = np.zeros(3)
    dT = 0.0
    kq = second.shape[2] if has2 else 0
    qbar = np.zeros(kq)
    for a in range(kq):
        qbar[a] = 0.5 * (d0[m - kq + a] + d1[m - kq + a])
    for j in range(mass.shape[0]):
        _local(pos, modes, second, has2, Xc, d1, j, y1)
        if want_K:
            for c in range(3):
                y1s[j, c] = y1[c]
        for c in range(3):
            c0[c] = Rs0[c, 0] * y0[j, 0] + Rs0[c, 1] * y0[j, 1] + Rs0[c, 2] * y0[j, 2]
            c1[c] = Rs1[c, 0] * y1[0] + Rs1[c, 1] * y1[1] + Rs1[c, 2] * y1[2]
        mj = mass[j]
        for c in range(3):
            dx = (o1[c] + c1[c]) - (o0[c] + c0[c])
            v1 = 2.0 * dx / h - v0[j, c]
            g[c] = mj * (v1 - v0[j, c]) / h
            dT += 0.5 * mj * (v1 * v1 - v0[j, c] * v0[j, c])
            Gs[c] += g[c]
            c0[c] = 0.5 * (c0[c] + c1[c])  # c_j
        L[0] += c0[1] * g[2] - c0[2] * g[1]
        L[1] += c0[2] * g[0] - c0[0] * g[2]
        L[2] += c0[0] * g[1] - c0[1] * g[0]
        # (I + φ̂/2)ᵀ g = g − ½ φ × g, then R_s0ᵀ
        gw[0] = g[0] - 0.5 * (phi[1] * g[2] - phi[2] * g[1])
        gw[1] = g[1] - 0.5 * (phi[2] * g[0] - phi[0] * g[2])
        gw[2] = g[2] - 0.5 * (phi[0] * g[1] - phi[1] * g[0])
        for c in range(3):
            wv[c] = Rs0[0, c] * gw[0] + Rs0[1, c] * gw[1] + Rs0[2, c] * gw[2]
        for k in range(m):
            H[k] += modes[j, 0, k] * wv[0] + modes[j, 1, k] * wv[1] + modes[j, 2, k] * wv[2]
        for a in range(kq):  # the second-order columns S_j(q̄)
            acc = 0.0
            for c in range(3):
                sc = 0.0
                for b in range(kq):
                    sc += second[j, c, a, b] * qbar[b]
                acc += sc * wv[c]
            H[m - kq + a] += acc
    g0, V0 = _start_energy(p_row, d0)
    Hm = np.zeros((m, m) if want_K else (1, 1))
    H1 = np.zeros((m, m) if want_K else (1, 1))
    dV = _combine(dz, d0, d1, p_row, Dg, Fg, phi, yv, den, Gs, L, H, n, g0, V0, want_K, Hm, H1, r, tot)
    if want_K:
        dGs = np.zeros((3, m + 6))
        dL = np.zeros((3, m + 6))
        dH = np.zeros((m, m + 6))
        do = np.zeros(3)
        for c in range(3):
            do[c] = o1[c] - o0[c]
        point_derivatives(mass, modes, second, has2, h, v0, y0, y1s, do, d0, d1, Rs0, Rs1, phi, dGs, dL, dH)
        _step_matrix(n, dz, d0, d1, Dg, Fg, phi, yv, den, Dg1, Fg1, Hm, H1, dGs, dL, dH, K)
    return dV, dT


@jit(internal=True)
def _bilinear(I0, I1, I2, da, db, Q):
    """Q[p, q] = Σ m_j (Ŷ_j + Φ_j da)_p (Ŷ_j + Φ_j db)_q from the mass moments."""
    m = da.shape[0]
    for p in range(3):
        for q in range(3):
            acc = I0[p, q]
            for k in range(m):
                acc += I1[p, q, k] * db[k] + I1[q, p, k] * da[k]
                s = 0.0
                for l in range(m):
                    s += I2[p, k, q, l] * db[l]
                acc += da[k] * s
            Q[p, q] = acc


@jit(internal=True)
def _phi_weighted(I1, I2, A, d, out):
    """out[k] = Σ_j m_j (Φ_jᵀ A (Ŷ_j + Φ_j d))_k from the mass moments (A (3, 3))."""
    m = d.shape[0]
    for k in range(m):
        acc = 0.0
        for p in range(3):
            for q in range(3):
                s = I1[q, p, k]
                for l in range(m):
                    s += I2[p, k, q, l] * d[l]
                acc += A[p, q] * s
        out[k] = acc


@jit(internal=True)
def _mat_vec_sum(R, S1, s0, d, out):
    """out = R (s0 + S1 d) (3,): Σ m_j R y_j."""
    m = d.shape[0]
    tmp = np.zeros(3)
    for p in range(3):
        acc = s0[p]
        for k in range(m):
            acc += S1[p, k] * d[k]
        tmp[p] = acc
    for i in range(3):
        out[i] = R[i, 0] * tmp[0] + R[i, 1] * tmp[1] + R[i, 2] * tmp[2]


@jit(internal=True)
def step_residual_moments(X1, u0, R0, dz, h, p_row, moments, P0, V, Vd, d0, Rs0, o0, r):
    """``step_residual`` from the points' mass moments (``point_moments``, the tuple of
    ``_moments``) and their velocity moments P0, V, Vd (``_velocity_moments``): the same
    sums in O(m²) operations; returns (ΔV, ΔT)."""
    m = u0.shape[1]
    g0, V0 = _start_energy(p_row, d0)
    return _residual_moments(X1, u0, R0, dz, h, p_row, moments, P0, V, Vd, (d0, Rs0, o0, g0, V0), r, np.zeros(m),
                             np.zeros(3), np.zeros((1, 1)), False, True)


@jit(internal=True)
def _residual_moments(X1, u0, R0, dz, h, p_row, moments, P0, V, Vd, start, r, tot, L, K, want_K, want_T):
    """``step_residual_moments`` from the start-of-step quantities start = (d0, Rs0, o0, g0,
    V0) (``step_start``); also writes tot = ḡ + H (m,) and L (3,) and, when ``want_K``, the
    analytic matrix K (m, m) (``_step_matrix`` with
    superelement_step_matrix.moment_derivatives, O(m³)); returns (ΔV, ΔT), ΔT = 0 unless
    ``want_T``."""
    n = X1.shape[1]
    m = u0.shape[1]
    d0, Rs0, o0, g0, V0 = start
    _, m_tot, s0, S1, I0, I1, I2 = moments
    Dg1 = np.zeros((m, m) if want_K else (0, 0))
    Fg1 = np.zeros((3, m) if want_K else (0, 0))
    o1, den, d1, Rs1, Dg, Fg, phi, yv = _geometry(X1, u0, R0, dz, d0, Rs0, Dg1, Fg1, want_K)
    do = np.zeros(3)
    for i in range(3):
        do[i] = o1[i] - o0[i]
    a_sum = np.zeros(3)  # Σ m a_j, a_j = R_s0 y0_j
    b_sum = np.zeros(3)  # Σ m b_j, b_j = R_s1 y1_j
    _mat_vec_sum(Rs0, S1, s0, d0, a_sum)
    _mat_vec_sum(Rs1, S1, s0, d1, b_sum)
    c2 = 2.0 / (h * h)
    Gs = np.zeros(3)
    for i in range(3):
        Gs[i] = c2 * (m_tot * do[i] + b_sum[i] - a_sum[i]) - (2.0 / h) * P0[i]
    # Σ m a_j ⊗ b_j = R_s0 Q(d0, d1) R_s1ᵀ, Σ m a_j ⊗ v_j = R_s0 W(d0), Σ m b_j ⊗ v_j = R_s1 W(d1)
    Q = np.zeros((3, 3))
    _bilinear(I0, I1, I2, d0, d1, Q)
    Cab = np.zeros((3, 3))
    T1 = np.zeros((3, 3))
    mat3(Rs0, Q, T1)
    for i in range(3):
        for j in range(3):
            Cab[i, j] = T1[i, 0] * Rs1[j, 0] + T1[i, 1] * Rs1[j, 1] + T1[i, 2] * Rs1[j, 2]
    W0 = np.zeros((3, 3))
    W1 = np.zeros((3, 3))
    for p in range(3):
        for l in range(3):
            acc0 = V[p, l]
            acc1 = V[p, l]
            for k in range(m):
                acc0 += Vd[p, k, l] * d0[k]
                acc1 += Vd[p, k, l] * d1[k]
            W0[p, l] = acc0
            W1[p, l] = acc1
    Ca = np.zeros((3, 3))
    Cb = np.zeros((3, 3))
    mat3(Rs0, W0, Ca)
    mat3(Rs1, W1, Cb)
    # L = (1/h²)[(Σ m (a + b)) × Δo + 2 Σ m a × b] − (1/h) Σ m (a + b) × v0
    ab = np.zeros(3)
    for i in range(3):
        ab[i] = a_sum[i] + b_sum[i]
    L[0] = (ab[1] * do[2] - ab[2] * do[1]) / (h * h)
    L[1] = (ab[2] * do[0] - ab[0] * do[2]) / (h * h)
    L[2] = (ab[0] * do[1] - ab[1] * do[0]) / (h * h)
    L[0] += c2 * (Cab[1, 2] - Cab[2, 1]) - ((Ca[1, 2] - Ca[2, 1]) + (Cb[1, 2] - Cb[2, 1])) / h
    L[1] += c2 * (Cab[2, 0] - Cab[0, 2]) - ((Ca[2, 0] - Ca[0, 2]) + (Cb[2, 0] - Cb[0, 2])) / h
    L[2] += c2 * (Cab[0, 1] - Cab[1, 0]) - ((Ca[0, 1] - Ca[1, 0]) + (Cb[0, 1] - Cb[1, 0])) / h
    # H = Σ Φ_jᵀ Wm g_j, Wm = R_s0ᵀ (I − φ̂/2)
    Wm = np.zeros((3, 3))
    Hm = np.zeros((3, 3))  # (I − φ̂/2)
    for i in range(3):
        Hm[i, i] = 1.0
    Hm[0, 1], Hm[0, 2] = 0.5 * phi[2], -0.5 * phi[1]
    Hm[1, 0], Hm[1, 2] = -0.5 * phi[2], 0.5 * phi[0]
    Hm[2, 0], Hm[2, 1] = 0.5 * phi[1], -0.5 * phi[0]
    Rt = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            Rt[i, j] = Rs0[j, i]
    mat3(Rt, Hm, Wm)
    A1 = np.zeros((3, 3))
    A0 = np.zeros((3, 3))
    mat3(Wm, Rs1, A1)
    mat3(Wm, Rs0, A0)
    H = np.zeros(m)
    H1 = np.zeros(m)
    H0 = np.zeros(m)
    _phi_weighted(I1, I2, A1, d1, H1)
    _phi_weighted(I1, I2, A0, d0, H0)
    wdo = np.zeros(3)
    for p in range(3):
        wdo[p] = Wm[p, 0] * do[0] + Wm[p, 1] * do[1] + Wm[p, 2] * do[2]
    for k in range(m):
        acc = S1[0, k] * wdo[0] + S1[1, k] * wdo[1] + S1[2, k] * wdo[2] + H1[k] - H0[k]
        vterm = 0.0
        for p in range(3):
            for l in range(3):
                vterm += Wm[p, l] * Vd[p, k, l]
        H[k] = c2 * acc - (2.0 / h) * vterm
    Hm = np.zeros((m, m) if want_K else (1, 1))
    H1 = np.zeros((m, m) if want_K else (1, 1))
    dV = _combine(dz, d0, d1, p_row, Dg, Fg, phi, yv, den, Gs, L, H, n, g0, V0, want_K, Hm, H1, r, tot)
    if want_K:
        dGs = np.zeros((3, m + 6))
        dL = np.zeros((3, m + 6))
        dH = np.zeros((m, m + 6))
        moment_derivatives(m_tot, s0, S1, I0, I1, I2, V, Vd, h, do, d0, d1, Rs0, Rs1, phi, dGs, dL, dH)
        _step_matrix(n, dz, d0, d1, Dg, Fg, phi, yv, den, Dg1, Fg1, Hm, H1, dGs, dL, dH, K)
    if not want_T:
        return dV, 0.0
    # ΔT = Σ g_j·Δx_j = (2/h²) Σ m |Δx_j|² − (2/h) Σ m v_j·Δx_j
    Q11 = np.zeros((3, 3))
    Q00 = np.zeros((3, 3))
    _bilinear(I0, I1, I2, d1, d1, Q11)
    _bilinear(I0, I1, I2, d0, d0, Q00)
    sq = m_tot * (do[0] ** 2 + do[1] ** 2 + do[2] ** 2)
    sq += 2.0 * (do[0] * (b_sum[0] - a_sum[0]) + do[1] * (b_sum[1] - a_sum[1]) + do[2] * (b_sum[2] - a_sum[2]))
    sq += Q11[0, 0] + Q11[1, 1] + Q11[2, 2] + Q00[0, 0] + Q00[1, 1] + Q00[2, 2] - 2.0 * (Cab[0, 0] + Cab[1, 1] + Cab[2, 2])
    pv = P0[0] * do[0] + P0[1] * do[1] + P0[2] * do[2] + (Cb[0, 0] + Cb[1, 1] + Cb[2, 2]) - (Ca[0, 0] + Ca[1, 1] + Ca[2, 2])
    return dV, c2 * sq - (2.0 / h) * pv


@jit(internal=True)
def _frame_terms(X1, u0, R0, dz, d0, Rs0, tot, L, ell, K):
    """K (m, m) += the variation of D̄ᵀ tot + Φ̄ᵀ L with the mid-point maps D̄, Φ̄ at fixed
    tot (m,) and L (3,): the frame's second-order terms, by central differences of the step
    geometry alone (steps 10⁻⁶ on Cayley vectors, 10⁻⁶ ℓ on translations and modal
    amplitudes). They vanish identically for one interface node (module docstring of
    elements.superelement_step_matrix), where this is not called."""
    n = X1.shape[1]
    m = dz.shape[0]
    rp = np.zeros(m)
    rm = np.zeros(m)
    zero = np.zeros(3)
    none = np.zeros((0, 0))
    for col in range(m):
        step = 1e-6 if (col < 6 * n and (col % 6) >= 3) else 1e-6 * ell
        for sgn in range(2):
            dz[col] += step if sgn == 0 else -2.0 * step
            o1, den, d1, Rs1, Dg, Fg, phi, yv = _geometry(X1, u0, R0, dz, d0, Rs0, none, none, False)
            _project(dz, d0, d1, Dg, Fg, phi, yv, den, tot, L, zero, n, rp if sgn == 0 else rm)
        dz[col] += step
        for i in range(m):
            K[i, col] += (rp[i] - rm[i]) / (2.0 * step)


@jit(internal=True)
def _radius(X1, origin):
    """The interface's RMS radius about ``origin`` (1 for a single node): the scale of the
    central-difference steps on translations and modal amplitudes."""
    n = X1.shape[1]
    w = 0.0
    for a in range(n):
        for c in range(3):
            w += (X1[0, a, c] - origin[c]) ** 2 / n
    return math.sqrt(w) if w > 0.0 else 1.0


@jit
def has_second_order(p_row, m, n):
    """Whether the mass points of a property row (m coordinates, n interface nodes) carry
    second-order rows (``step_from_moments`` does not take those)."""
    return _second(p_row, m, m - 6 * n)[0] != 0.0


@jit(internal=True)
def velocity_moments(p_row, m, v0e, h, grav, P0, V, Vd):
    """The velocity moments P0 (3,), V (3, 3), Vd (3, m, 3) (``_velocity_moments``) of an
    element's points with the start velocities v0e (n_p, 3) shifted by h g/2 (``grav`` (3,)
    the gravity field at the step's mid-time; ``_element_step``): what ``step_from_moments``
    takes, the same for every evaluation of a step."""
    mass, pos, modes = _points(p_row, m)
    v0g = v0e.copy()
    for j in range(v0g.shape[0]):
        for c in range(3):
            v0g[j, c] += 0.5 * h * grav[c]
    _velocity_moments(mass, pos, modes, _moments(p_row, m)[0], v0g, P0, V, Vd)


@jit(internal=True)
def step_start(X1, ue0, Re0, p_row, d0, Rs0, o0, g0):
    """The quantities of one element at the start of a step, the same for every evaluation
    of the step: the deformation d0 (m,), frame Rs0 (3, 3) and centroid o0 (3,) at (ue0
    (1, m), Re0 (1, n, 3, 3)) and the strain-energy gradient g0 = ∇V(d0) (m,); returns
    V(d0). (d0, Rs0, o0, g0, V(d0)) is the ``start`` of ``step_from_start``."""
    n = X1.shape[1]
    m = ue0.shape[1]
    Xt, Y, Rb, _, th, _, _, _, _, _ = _work(n, m)
    o, _ = deformation(X1, ue0, Re0, 0, Xt, Y, Rb, Rs0, th, d0)
    for c in range(3):
        o0[c] = o[c]
    return reduced_energy(p_row, d0, g0, np.zeros((1, 1)), False)


@jit(internal=True)
def step_from_start(X1, ue0, Re0, dz, h, p_row, P0, V, Vd, start, f, K, mode):
    """``step_from_moments`` with the start-of-step quantities start = (d0, Rs0, o0, g0,
    V0) of ``step_start`` computed once per step."""
    n = X1.shape[1]
    m = ue0.shape[1]
    moments = _moments(p_row, m)
    tot = np.zeros(m)
    L = np.zeros(3)
    _residual_moments(X1, ue0, Re0, dz, h, p_row, moments, P0, V, Vd, start, f, tot, L, K, mode == 1, False)
    if mode == 1 and n > 1:
        _frame_terms(X1, ue0, Re0, dz, start[0], start[1], tot, L, _radius(X1, moments[0]), K)


@jit(internal=True)
def step_from_moments(X1, ue0, Re0, dz, h, p_row, P0, V, Vd, f, K, mode):
    """One element's step force f (m,) at the increment dz (m,) and, with ``mode`` 1, its
    analytic matrix K (m, m) (mode 0: the force alone), from the velocity moments of its
    points (``velocity_moments``): ``_element_step`` for elements without second-order
    point rows."""
    m = ue0.shape[1]
    d0 = np.zeros(m)
    Rs0 = np.zeros((3, 3))
    o0 = np.zeros(3)
    g0 = np.zeros(m)
    V0 = step_start(X1, ue0, Re0, p_row, d0, Rs0, o0, g0)
    step_from_start(X1, ue0, Re0, dz, h, p_row, P0, V, Vd, (d0, Rs0, o0, g0, V0), f, K, mode)


@jit(internal=True)
def _element_step(X1, ue0, Re0, dz, h, grav, p_row, v0e, f, K, mode):
    """One element's step force f (m,) at the increment dz (m,) and, by ``mode``, its
    derivative K (m, m): 0 none, 1 analytic (``_step_matrix``; plus ``_frame_terms`` for two
    or more interface nodes), 2 central differences of the whole force (2m evaluations; the
    reference for tests). From the mass moments (``step_residual_moments``,
    ``step_from_moments``) or, for points with second-order rows, point by point
    (``step_residual``). ``grav`` (3,): a uniform acceleration field (gravity) at the step's
    mid-time, whose weight m_j g acts on every point: m_j (v1 − v0)/h − m_j g = m_j (2Δx/h −
    2 v0 − h g)/h, i.e. the inertia of start velocities v0 + h g/2."""
    n = X1.shape[1]
    m = ue0.shape[1]
    mass, pos, modes = _points(p_row, m)
    moments = _moments(p_row, m)
    origin = moments[0]
    has2, second = _second(p_row, m, m - 6 * n)
    P0 = np.zeros(3)
    V = np.zeros((3, 3))
    Vd = np.zeros((3, m, 3))
    if has2 == 0.0 and mode != 2:
        velocity_moments(p_row, m, v0e, h, grav, P0, V, Vd)
        step_from_moments(X1, ue0, Re0, dz, h, p_row, P0, V, Vd, f, K, mode)
        return
    d0 = np.zeros(m)
    Rs0 = np.zeros((3, 3))
    y0 = np.zeros((mass.shape[0] if has2 != 0.0 else 0, 3))
    v0g = v0e.copy()
    for j in range(v0g.shape[0]):
        for c in range(3):
            v0g[j, c] += 0.5 * h * grav[c]
    if has2 != 0.0:
        o0 = _start(X1, ue0, Re0, mass, pos, modes, second, True, origin, d0, Rs0, y0)
    else:
        _velocity_moments(mass, pos, modes, origin, v0g, P0, V, Vd)
        Xt, Y, Rb, _, th, _, _, _, _, _ = _work(n, m)
        o0, _ = deformation(X1, ue0, Re0, 0, Xt, Y, Rb, Rs0, th, d0)
    ell = _radius(X1, origin)
    r = np.zeros(m)
    tot = np.zeros(m)
    L = np.zeros(3)
    analytic = mode == 1
    if has2 != 0.0:
        _residual_points(X1, ue0, Re0, dz, h, p_row, mass, pos, modes, second, True, origin, v0g, d0, Rs0, y0, o0, f,
                         tot, L, K, analytic)
    else:
        g0, V0 = _start_energy(p_row, d0)
        _residual_moments(X1, ue0, Re0, dz, h, p_row, moments, P0, V, Vd, (d0, Rs0, o0, g0, V0), f, tot, L, K, analytic,
                          False)
    if analytic and n > 1:
        _frame_terms(X1, ue0, Re0, dz, d0, Rs0, tot, L, ell, K)
    if mode != 2:
        return
    for j in range(2 * m):
        col = j // 2
        step = 1e-6 if (col < 6 * n and (col % 6) >= 3) else 1e-6 * ell
        step = step if j % 2 == 0 else -step
        dz[col] += step
        if has2 != 0.0:
            step_residual(X1, ue0, Re0, dz, h, p_row, mass, pos, modes, second, True, origin, v0g, d0, Rs0, y0, o0, r)
        else:
            step_residual_moments(X1, ue0, Re0, dz, h, p_row, moments, P0, V, Vd, d0, Rs0, o0, r)
        dz[col] -= step
        for i in range(m):
            if j % 2 == 0:
                K[i, col] = r[i]
            else:
                K[i, col] = (K[i, col] - r[i]) / (-2.0 * step)


@jit
def _increment(u0, u1, psi, e, n, dz):
    """The element's step increment dz (m,): Δx and Δq̂ from u0, u1, Cayley vectors ψ."""
    for i in range(dz.shape[0]):
        dz[i] = u1[e, i] - u0[e, i]
    for a in range(n):
        for c in range(3):
            dz[6 * a + 3 + c] = psi[e, a, c]


@jit
def midpoint_step(X, u0, R0, u1, R1, um, Rm, psi, D, p, h, grav, v0, f, K):
    """Generalized force f (n_el, m) of the step (elastic discrete gradient plus the
    inertia of the mass points; module docstring) and its derivative K (n_el, m, m) with
    respect to the increment (Δx, ψ, Δq̂), analytic (elements.superelement_step_matrix).
    Inputs as the oriented mid-point kernels (elements.base; um, Rm, D are recomputed
    here), h the step, grav (3,) the gravity field at the step's mid-time acting on the
    points, v0 (n_el, n_p, 3) the points' velocities at the start of the step."""
    _steps(X, u0, R0, u1, psi, p, h, grav, v0, f, K, 1)


@jit(internal=True)
def midpoint_step_central(X, u0, R0, u1, R1, um, Rm, psi, D, p, h, grav, v0, f, K):
    """``midpoint_step`` with K by central differences of the whole force (2m evaluations
    per element, step 10⁻⁶ (rad) or 10⁻⁶ of the interface radius; accurate to about 10⁻¹⁰
    relative): the reference for the analytic matrix."""
    _steps(X, u0, R0, u1, psi, p, h, grav, v0, f, K, 2)


@jit
def midpoint_step_force(X, u0, R0, u1, R1, um, Rm, psi, D, p, h, grav, v0, f):
    """The force f (n_el, m) of ``midpoint_step`` alone (one evaluation per element): for
    Newton iterations that keep an earlier matrix."""
    _steps(X, u0, R0, u1, psi, p, h, grav, v0, f, np.zeros((f.shape[0], 1, 1)), 0)


@jit
def _steps(X, u0, R0, u1, psi, p, h, grav, v0, f, K, mode):
    """``_element_step`` over the elements (``mode`` as there)."""
    n_el, n = X.shape[0], X.shape[1]
    dz = np.zeros(u0.shape[1])
    for e in range(n_el):
        _increment(u0, u1, psi, e, n, dz)
        _element_step(X[e: e + 1], u0[e: e + 1].copy(), R0[e: e + 1].copy(), dz, h, grav, p[e], v0[e], f[e], K[e], mode)


@jit
def point_state(X, u, R, p, v, xs, vs):
    """Positions xs and velocities vs (n_el, n_p, 3) of the mass points at the
    configuration (u, R) for the element velocities v (n_el, m): translational velocities,
    spatial angular velocities on the rotational slots, modal rates (the exact velocity
    map ẋ_j = ȯ + ω_s × R_s y_j + R_s Φ_j ḋ, y_j = X_j − X_c + Φ_j d)."""
    n_el, n = X.shape[0], X.shape[1]
    m = u.shape[1]
    Dg = np.zeros((m, m))
    Fg = np.zeros((3, m))
    d = np.zeros(m)
    Rs = np.zeros((3, 3))
    dd = np.zeros(m)
    ws = np.zeros(3)
    vo = np.zeros(3)
    y = np.zeros(3)
    c = np.zeros(3)
    dy = np.zeros(3)
    for e in range(n_el):
        mass, pos, modes = _points(p[e], m)
        Xc = _moments(p[e], m)[0]
        o, _ = frame_maps(X[e: e + 1], u[e: e + 1].copy(), R[e: e + 1].copy(), Dg, Fg, d, Rs)
        for i in range(m):
            acc = 0.0
            for k in range(m):
                acc += Dg[i, k] * v[e, k]
            dd[i] = acc
        for i in range(3):
            ws[i] = 0.0
            vo[i] = 0.0
            for k in range(m):
                ws[i] += Fg[i, k] * v[e, k]
            for a in range(n):
                vo[i] += v[e, 6 * a + i] / n
        has2, second = _second(p[e], m, m - 6 * n)
        kq = second.shape[2] if has2 != 0.0 else 0
        if has2 == 0.0 and mass.shape[0] > 0:  # linear point map: two matrix-vector products over the points
            n_p = mass.shape[0]
            F = modes.reshape((n_p * 3, m))
            Yl = np.dot(F, d)
            dY = np.dot(F, dd)
            for j in range(n_p):
                for i in range(3):
                    y[i] = pos[j, i] - Xc[i] + Yl[3 * j + i]
                for i in range(3):
                    c[i] = Rs[i, 0] * y[0] + Rs[i, 1] * y[1] + Rs[i, 2] * y[2]
                    xs[e, j, i] = o[i] + c[i]
                vs[e, j, 0] = vo[0] + ws[1] * c[2] - ws[2] * c[1]
                vs[e, j, 1] = vo[1] + ws[2] * c[0] - ws[0] * c[2]
                vs[e, j, 2] = vo[2] + ws[0] * c[1] - ws[1] * c[0]
                for i in range(3):
                    vs[e, j, i] += Rs[i, 0] * dY[3 * j] + Rs[i, 1] * dY[3 * j + 1] + Rs[i, 2] * dY[3 * j + 2]
            continue
        for j in range(mass.shape[0]):
            _local(pos, modes, second, has2 != 0.0, Xc, d, j, y)
            for i in range(3):
                acc2 = 0.0
                for k in range(m):
                    acc2 += modes[j, i, k] * dd[k]
                for a in range(kq):  # d/dt ½ qᵀS q = S(q, q̇)
                    for b in range(kq):
                        acc2 += second[j, i, a, b] * d[m - kq + a] * dd[m - kq + b]
                dy[i] = acc2
            for i in range(3):
                c[i] = Rs[i, 0] * y[0] + Rs[i, 1] * y[1] + Rs[i, 2] * y[2]
                xs[e, j, i] = o[i] + c[i]
            vs[e, j, 0] = vo[0] + ws[1] * c[2] - ws[2] * c[1]
            vs[e, j, 1] = vo[1] + ws[2] * c[0] - ws[0] * c[2]
            vs[e, j, 2] = vo[2] + ws[0] * c[1] - ws[1] * c[0]
            for i in range(3):
                vs[e, j, i] += Rs[i, 0] * dy[0] + Rs[i, 1] * dy[1] + Rs[i, 2] * dy[2]


@jit(internal=True)
def point_positions(X, u, R, p, xs):
    """Positions xs (n_el, n_p, 3) of the mass points at the configuration (u, R): the
    position map of ``point_state`` (x_j = o + R_s y_j) without the velocities, for the end
    of a step (the points' velocities follow from the mid-point rule)."""
    n_el, n = X.shape[0], X.shape[1]
    m = u.shape[1]
    d = np.zeros(m)
    Rs = np.zeros((3, 3))
    y = np.zeros(3)
    Xt, Y, Rb, _, th, _, _, _, _, _ = _work(n, m)
    for e in range(n_el):
        mass, pos, modes = _points(p[e], m)
        Xc = _moments(p[e], m)[0]
        o, _ = deformation(X[e: e + 1], u[e: e + 1].copy(), R[e: e + 1].copy(), 0, Xt, Y, Rb, Rs, th, d)
        has2, second = _second(p[e], m, m - 6 * n)
        n_p = mass.shape[0]
        Yl = np.dot(modes.reshape((n_p * 3, m)), d) if has2 == 0.0 and n_p > 0 else np.zeros(0)
        for j in range(n_p):
            if has2 == 0.0:
                for i in range(3):
                    y[i] = pos[j, i] - Xc[i] + Yl[3 * j + i]
            else:
                _local(pos, modes, second, True, Xc, d, j, y)
            for i in range(3):
                xs[e, j, i] = o[i] + (Rs[i, 0] * y[0] + Rs[i, 1] * y[1] + Rs[i, 2] * y[2])


def n_points(p_row, m):
    """Number of mass points in a superelement property row (0: no inertia for dynamics)."""
    return int(point_layout(np.ascontiguousarray(p_row, dtype=np.float64), int(m))[1])


def point_masses(p_row, m):
    """(n_p,) the masses of the mass points of a superelement property row."""
    return np.array(_points(np.ascontiguousarray(p_row, dtype=np.float64), int(m))[0])


__all__ = ["midpoint_step", "midpoint_step_central", "midpoint_step_force", "point_state", "point_positions",
           "velocity_moments", "step_from_moments", "step_start", "step_from_start", "has_second_order",
           "step_residual", "step_residual_moments", "point_moments", "frame_maps",
           "n_points", "point_masses"]
