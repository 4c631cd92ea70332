"""Linear-elastic planar beam in a floating frame (no geometric stiffening).

Element types ``beam2d_floating`` (Euler–Bernoulli) and ``beam2d_floating_timoshenko``
(shear-flexible, param ``GAs``): the classical floating-frame formulation of a flexible
body *without* stress stiffening, for negative controls and comparisons with the
co-rotational ``beam2d`` (whose element chords carry the axial force and so stiffen
rotating or axially loaded members by themselves).

Cells (``cell_type="line4"``) have four nodes ``(i, j, A, B)``: the element's own nodes i, j
and the two frame nodes A, B of its flexible body (the first and last node of the body,
or the two nodes of its first element: ``floating_cells``; A or B may coincide with i or
j). Every node has DOFs (ux, uy, rz); the
rotations of A and B are not used. The body frame has its origin at x_A and its x axis
along the chord d = x_B − x_A (angle β, reference β0). Local coordinates of node k in the
frame: (a_k, b_k) = (e1·(x_k − x_A), e2·(x_k − x_A)), e1 = d/|d|, e2 = e1 turned by +90°;
local displacements g = (a_i − a_i0, b_i − b_i0, θ_i − (β − β0), a_j − a_j0, b_j − b_j0,
θ_j − (β − β0)) with θ the nodal rotations (relative rotations taken in (−π, π]); in the element's own reference axes (angle α0
in the frame) T·g. The strain energy is the *linear* beam energy V = ½ (Tg)ᵀ K_e (Tg)
(axial EA/l0, bending EI with Timoshenko's φ = 12 EI/(GAs l0²)); the internal force is
f = ∂V/∂q = Bᵀ Tᵀ K_e T g (B = ∂g/∂q) and the tangent K = Bᵀ Tᵀ K_e T B + Σ s_a ∂²g_a/∂q²
(s = Tᵀ K_e T g), both exact. V is invariant under rigid motions of the whole body.

The mass is the one of ``beam2d`` on the element's own nodes (lumped or invariant:
constant); the frame-node slots carry none. The mid-point force is a discrete gradient in
the local displacements: V is quadratic in g, so with the averaged stress s̄ = K_g (g0 +
g1)/2 and a discrete derivative B̄ of the map q → g (B̄ z = g1 − g0, Gonzalez's
construction B̄_a = B_a(u_m) + (Δg_a − B_a(u_m)·z)/(z_d·z_d) z_d), f̄ = B̄ᵀ s̄ satisfies
f̄·z = ΔV exactly. Here u_m is the mid-point configuration, z the step increment (Cayley
parameters τ in the rotational slots, see elements.base) and z_d its part orthogonal to the
element's rigid-body modes at u_m: the correction exerts no net force or moment, and since
a rigid step is exactly a rigid mode at u_m in these variables, no artificial strain
arises from the mid-point's chord shortening. ∂f̄/∂z is exact except for the (small)
dependence of the rigid-mode projector on u_m. Geometric stiffness (buckling) is zero by design.
Units: any consistent set.
"""
import numpy as np

from femb.core import jit

from .base import INVARIANT, LUMPED, ElementKernels, ElementSpec
from .beam2d import mass as _beam2d_mass
from .beam2d import properties_euler_bernoulli, properties_timoshenko

# primitive vector y = (d (2), r_i (2), r_j (2), θ_i, θ_j) = P q: element columns and signs
_YCOLS = np.array([[9, 6], [10, 7], [0, 6], [1, 7], [3, 6], [4, 7], [2, -1], [5, -1]], dtype=np.int64)
_YSIGN = np.array([[1.0, -1.0], [1.0, -1.0], [1.0, -1.0], [1.0, -1.0], [1.0, -1.0], [1.0, -1.0], [1.0, 0.0], [1.0, 0.0]])


@jit(internal=True)
def _local_stiffness(p, e, l0, Ke):
    """Linear beam stiffness (6, 6) in the element's reference axes (u1, v1, θ1, u2, v2, θ2);
    p = (EA, EI, rhoA, rhoI[, GAs])."""
    EA = p[e, 0]
    EI = p[e, 1]
    phi = 0.0
    if p.shape[1] > 4:
        phi = 12.0 * EI / (p[e, 4] * l0 * l0)
    for a in range(6):
        for b in range(6):
            Ke[a, b] = 0.0
    ka = EA / l0
    Ke[0, 0] = ka
    Ke[3, 3] = ka
    Ke[0, 3] = -ka
    Ke[3, 0] = -ka
    k = EI / (l0 * l0 * l0 * (1.0 + phi))
    idx = np.array([1, 2, 4, 5])
    kb = np.empty((4, 4))
    kb[0, 0], kb[0, 1], kb[0, 2], kb[0, 3] = 12.0, 6.0 * l0, -12.0, 6.0 * l0
    kb[1, 1], kb[1, 2], kb[1, 3] = (4.0 + phi) * l0 * l0, -6.0 * l0, (2.0 - phi) * l0 * l0
    kb[2, 2], kb[2, 3] = 12.0, -6.0 * l0
    kb[3, 3] = (4.0 + phi) * l0 * l0
    for a in range(4):
        for b in range(a, 4):
            Ke[idx[a], idx[b]] = k * kb[a, b]
            Ke[idx[b], idx[a]] = k * kb[a, b]


@jit(internal=True)
def _frame_kinematics(X, u, p, e, g, By, Kg, geo):
    """Local displacements g (6,), their derivative By = ∂g/∂y (6, 8) over the primitive
    vector y, the generalized stiffness Kg = Tᵀ K_e T (6, 6), and geo = (e1x, e1y, e2x,
    e2y, Ln, a_i, b_i, a_j, b_j) of element ``e``."""
    xA0 = X[e, 2, 0]
    yA0 = X[e, 2, 1]
    d0x = X[e, 3, 0] - xA0
    d0y = X[e, 3, 1] - yA0
    L0 = np.sqrt(d0x * d0x + d0y * d0y)
    c0 = d0x / L0
    s0 = d0y / L0
    # differences of reference coordinates and of displacements formed separately: no
    # round-off from large absolute positions (bodies far from the origin)
    dx = d0x + (u[e, 9] - u[e, 6])
    dy = d0y + (u[e, 10] - u[e, 7])
    Ln = np.sqrt(dx * dx + dy * dy)
    e1x = dx / Ln
    e1y = dy / Ln
    e2x = -e1y
    e2y = e1x
    dbeta = np.arctan2(d0x * dy - d0y * dx, d0x * dx + d0y * dy)
    wx = e2x / Ln
    wy = e2y / Ln
    for a in range(6):
        for b in range(8):
            By[a, b] = 0.0
    for n in range(2):
        rx0 = X[e, n, 0] - xA0
        ry0 = X[e, n, 1] - yA0
        a0 = c0 * rx0 + s0 * ry0
        b0 = -s0 * rx0 + c0 * ry0
        rx = rx0 + (u[e, 3 * n] - u[e, 6])
        ry = ry0 + (u[e, 3 * n + 1] - u[e, 7])
        a = e1x * rx + e1y * ry
        b = e2x * rx + e2y * ry
        g[3 * n] = a - a0
        g[3 * n + 1] = b - b0
        # nodal rotation relative to the frame, in (−π, π] (β is known only modulo 2π)
        rel = u[e, 3 * n + 2] - dbeta
        g[3 * n + 2] = rel - 2.0 * np.pi * np.floor(rel / (2.0 * np.pi) + 0.5)
        geo[5 + 2 * n] = a
        geo[6 + 2 * n] = b
        # rows of a, b, θ̄ over y = (d, r_i, r_j, θ_i, θ_j)
        By[3 * n, 0] = b * wx
        By[3 * n, 1] = b * wy
        By[3 * n, 2 + 2 * n] = e1x
        By[3 * n, 3 + 2 * n] = e1y
        By[3 * n + 1, 0] = -a * wx
        By[3 * n + 1, 1] = -a * wy
        By[3 * n + 1, 2 + 2 * n] = e2x
        By[3 * n + 1, 3 + 2 * n] = e2y
        By[3 * n + 2, 0] = -wx
        By[3 * n + 2, 1] = -wy
        By[3 * n + 2, 6 + n] = 1.0
    geo[0] = e1x
    geo[1] = e1y
    geo[2] = e2x
    geo[3] = e2y
    geo[4] = Ln
    # element reference axis in the frame: T = diag(R(−α0), 1, R(−α0), 1)
    lx = X[e, 1, 0] - X[e, 0, 0]
    ly = X[e, 1, 1] - X[e, 0, 1]
    l0 = np.sqrt(lx * lx + ly * ly)
    ca = (c0 * lx + s0 * ly) / l0
    sa = (-s0 * lx + c0 * ly) / l0
    Ke = np.empty((6, 6))
    _local_stiffness(p, e, l0, Ke)
    T = np.zeros((6, 6))
    for n in range(2):
        T[3 * n, 3 * n] = ca
        T[3 * n, 3 * n + 1] = sa
        T[3 * n + 1, 3 * n] = -sa
        T[3 * n + 1, 3 * n + 1] = ca
        T[3 * n + 2, 3 * n + 2] = 1.0
    KT = Ke @ T
    for a in range(6):
        for b in range(6):
            acc = 0.0
            for k in range(6):
                acc += T[k, a] * KT[k, b]
            Kg[a, b] = acc


@jit(internal=True)
def _b_matrix(By, Bq):
    """Bq = By P (6, 12): derivative of g over the element DOFs."""
    for a in range(6):
        for c in range(12):
            Bq[a, c] = 0.0
        for m in range(8):
            for t in range(2):
                col = _YCOLS[m, t]
                if col >= 0:
                    Bq[a, col] += By[a, m] * _YSIGN[m, t]


@jit(internal=True)
def _curvature(geo, s, Hy, Hq):
    """Hq = Pᵀ (Σ_a s_a ∂²g_a/∂y²) P (12, 12) for the stress vector s (6,) (module
    docstring; geo from _frame_kinematics)."""
    e1x, e1y, e2x, e2y, Ln = geo[0], geo[1], geo[2], geo[3], geo[4]
    wx = e2x / Ln
    wy = e2y / Ln
    L2 = Ln * Ln
    hb00 = -2.0 * e1x * e2x / L2
    hb01 = -(e1x * e2y + e2x * e1y) / L2
    hb11 = -2.0 * e1y * e2y / L2
    for m in range(8):
        for n in range(8):
            Hy[m, n] = 0.0
    cww = 0.0
    cb = -(s[2] + s[5])
    for n in range(2):
        a = geo[5 + 2 * n]
        b = geo[6 + 2 * n]
        sa = s[3 * n]
        sb = s[3 * n + 1]
        cww += -sa * a - sb * b
        cb += sa * b - sb * a
        vx = sa * e2x - sb * e1x
        vy = sa * e2y - sb * e1y
        r0 = 2 + 2 * n
        Hy[r0, 0] += vx * wx
        Hy[r0, 1] += vx * wy
        Hy[r0 + 1, 0] += vy * wx
        Hy[r0 + 1, 1] += vy * wy
        Hy[0, r0] += vx * wx
        Hy[1, r0] += vx * wy
        Hy[0, r0 + 1] += vy * wx
        Hy[1, r0 + 1] += vy * wy
    Hy[0, 0] += cww * wx * wx + cb * hb00
    Hy[0, 1] += cww * wx * wy + cb * hb01
    Hy[1, 0] += cww * wx * wy + cb * hb01
    Hy[1, 1] += cww * wy * wy + cb * hb11
    for r in range(12):
        for c in range(12):
            Hq[r, c] = 0.0
    for m in range(8):
        for n in range(8):
            h = Hy[m, n]
            if h == 0.0:
                continue
            for t1 in range(2):
                c1 = _YCOLS[m, t1]
                if c1 < 0:
                    continue
                for t2 in range(2):
                    c2 = _YCOLS[n, t2]
                    if c2 < 0:
                        continue
                    Hq[c1, c2] += _YSIGN[m, t1] * _YSIGN[n, t2] * h


@jit(internal=True)
def _force_and_tangent(X, u, p, f, K, want_tangent):
    g = np.empty(6)
    By = np.empty((6, 8))
    Kg = np.empty((6, 6))
    geo = np.empty(9)
    Bq = np.empty((6, 12))
    s = np.empty(6)
    Hy = np.empty((8, 8))
    Hq = np.empty((12, 12))
    for e in range(X.shape[0]):
        _frame_kinematics(X, u, p, e, g, By, Kg, geo)
        s[:] = Kg @ g
        _b_matrix(By, Bq)
        for c in range(12):
            acc = 0.0
            for a in range(6):
                acc += Bq[a, c] * s[a]
            f[e, c] = acc
        if not want_tangent:
            continue
        _curvature(geo, s, Hy, Hq)
        KB = Kg @ Bq
        for c1 in range(12):
            for c2 in range(12):
                acc = Hq[c1, c2]
                for a in range(6):
                    acc += Bq[a, c1] * KB[a, c2]
                K[e, c1, c2] = acc


@jit
def internal_force(X, u, p, f):
    """f = ∂V/∂u (n_el, 12) of the linear beam energy measured in the body frame."""
    K = np.empty((1, 12, 12))
    _force_and_tangent(X, u, p, f, K, False)


@jit
def tangent(X, u, p, f, K):
    """Internal force and its exact derivative (n_el, 12, 12)."""
    _force_and_tangent(X, u, p, f, K, True)


@jit
def strain_energy(X, u, p, en):
    """V = ½ gᵀ Tᵀ K_e T g per element."""
    g = np.empty(6)
    By = np.empty((6, 8))
    Kg = np.empty((6, 6))
    geo = np.empty(9)
    for e in range(X.shape[0]):
        _frame_kinematics(X, u, p, e, g, By, Kg, geo)
        acc = 0.0
        for a in range(6):
            for b in range(6):
                acc += g[a] * Kg[a, b] * g[b]
        en[e] = 0.5 * acc


@jit
def resultants(X, u, p, s):
    """(N, V, M1, M2): axial force, shear force and the moments at nodes i and j of the
    linear beam in its reference axes (K_e·T·g: N = force on node j along the axis,
    V = force on node j across it, M1, M2 = moments on nodes i, j)."""
    g = np.empty(6)
    By = np.empty((6, 8))
    Kg = np.empty((6, 6))
    geo = np.empty(9)
    Ke = np.empty((6, 6))
    for e in range(X.shape[0]):
        _frame_kinematics(X, u, p, e, g, By, Kg, geo)
        # local displacement in the element axes from g: T g (recompute T via Kg not needed)
        L0x = X[e, 3, 0] - X[e, 2, 0]
        L0y = X[e, 3, 1] - X[e, 2, 1]
        L0 = np.sqrt(L0x * L0x + L0y * L0y)
        c0, s0 = L0x / L0, L0y / L0
        lx = X[e, 1, 0] - X[e, 0, 0]
        ly = X[e, 1, 1] - X[e, 0, 1]
        l0 = np.sqrt(lx * lx + ly * ly)
        ca = (c0 * lx + s0 * ly) / l0
        sa = (-s0 * lx + c0 * ly) / l0
        dl = np.empty(6)
        for n in range(2):
            dl[3 * n] = ca * g[3 * n] + sa * g[3 * n + 1]
            dl[3 * n + 1] = -sa * g[3 * n] + ca * g[3 * n + 1]
            dl[3 * n + 2] = g[3 * n + 2]
        _local_stiffness(p, e, l0, Ke)
        fl = Ke @ dl
        s[e, 0] = fl[3]
        s[e, 1] = fl[4]
        s[e, 2] = fl[2]
        s[e, 3] = fl[5]


@jit
def geometric_stiffness(X, u, p, s, K):
    """No stress stiffening: zero by design."""
    K[:, :, :] = 0.0


def mass(X, u, p, kind, M):
    """``beam2d``'s mass (kind 0 lumped, 2 invariant; 1 consistent in the chord of u) on the
    element's own nodes i, j; the frame-node slots carry no mass."""
    M[:, :, :] = 0.0
    Mb = np.zeros((X.shape[0], 6, 6))
    _beam2d_mass(np.ascontiguousarray(X[:, :2]), np.ascontiguousarray(u[:, :6]), np.ascontiguousarray(p[:, :4]), kind, Mb)
    M[:, :6, :6] = Mb


@jit
def midpoint_force(X, u0, u1, p, f, K):
    """Discrete gradient between u0 and u1 (module docstring): f = B̄ᵀ K_g ḡ with
    ḡ = (g0 + g1)/2 and B̄ the Gonzalez discrete derivative of the local displacements
    (B̄ z = g1 − g0), so f·z = ΔV exactly; z = u1 − u0 with τ = 2 tan(Δθ/2) in the
    rotational slots; K = ∂f/∂z (the dependence of the rigid-mode projector on the
    mid-point is neglected)."""
    g0 = np.empty(6)
    g1 = np.empty(6)
    gm = np.empty(6)
    By = np.empty((6, 8))
    Kg = np.empty((6, 6))
    geo = np.empty(9)
    B1 = np.empty((6, 12))
    Bm = np.empty((6, 12))
    Hy = np.empty((8, 8))
    Hq = np.empty((12, 12))
    z = np.empty(12)
    jr = np.empty(12)  # du1/dz (diagonal)
    modes = np.empty((3, 12))
    P = np.empty((12, 12))
    um = np.empty((1, 12))
    for e in range(X.shape[0]):
        for c in range(12):
            z[c] = u1[e, c] - u0[e, c]
            jr[c] = 1.0
            um[0, c] = 0.5 * (u0[e, c] + u1[e, c])
        for n in range(4):
            tau = 2.0 * np.tan(0.5 * (u1[e, 3 * n + 2] - u0[e, 3 * n + 2]))
            z[3 * n + 2] = tau
            jr[3 * n + 2] = 1.0 / (1.0 + 0.25 * tau * tau)
        _frame_kinematics(X, u0, p, e, g0, By, Kg, geo)
        _frame_kinematics(X, u1, p, e, g1, By, Kg, geo)
        _b_matrix(By, B1)
        Xe = X[e:e + 1]
        _frame_kinematics(Xe, um, p[e:e + 1], 0, gm, By, Kg, geo)
        _b_matrix(By, Bm)
        dg = g1 - g0
        # relative rotations may differ by 2π between the two ends (taken in (−π, π])
        for n in range(2):
            k = 3 * n + 2
            dg[k] -= 2.0 * np.pi * np.floor(dg[k] / (2.0 * np.pi) + 0.5)
        sbar = Kg @ (g0 + 0.5 * dg)
        # rigid modes at the mid-point: translations x, y and the rotation about the origin
        for n in range(4):
            xm = X[e, n, 0] + um[0, 3 * n]
            ym = X[e, n, 1] + um[0, 3 * n + 1]
            modes[0, 3 * n], modes[0, 3 * n + 1], modes[0, 3 * n + 2] = 1.0, 0.0, 0.0
            modes[1, 3 * n], modes[1, 3 * n + 1], modes[1, 3 * n + 2] = 0.0, 1.0, 0.0
            modes[2, 3 * n], modes[2, 3 * n + 1], modes[2, 3 * n + 2] = -ym, xm, 1.0
        for a in range(3):  # Gram–Schmidt
            for b in range(a):
                dot = 0.0
                for c in range(12):
                    dot += modes[a, c] * modes[b, c]
                for c in range(12):
                    modes[a, c] -= dot * modes[b, c]
            nrm = np.sqrt(np.sum(modes[a] * modes[a]))
            for c in range(12):
                modes[a, c] /= nrm
        for r in range(12):  # P = I − Σ m̂ m̂ᵀ
            for c in range(12):
                P[r, c] = (1.0 if r == c else 0.0) - modes[0, r] * modes[0, c] - modes[1, r] * modes[1, c] - modes[2, r] * modes[2, c]
        zd = P @ z
        zz = np.sum(zd * zd)
        Bz = Bm @ z
        cvec = np.zeros(6)
        if zz > 1e-300:
            cvec = (dg - Bz) / zz
        C = np.sum(sbar * cvec)
        for c in range(12):
            acc = 0.0
            for a in range(6):
                acc += Bm[a, c] * sbar[a]
            f[e, c] = acc + C * zd[c]
        # derivative: Bmᵀ Kg ½ B1 J + ½ H_s̄(u_m) J + z_d ⊗ (dC + ½ cᵀ Kg B1 J) + C P
        _curvature(geo, sbar, Hy, Hq)
        KB1 = Kg @ B1
        for r in range(12):
            for c in range(12):
                acc = 0.5 * Hq[r, c]
                for a in range(6):
                    acc += 0.5 * Bm[a, r] * KB1[a, c]
                K[e, r, c] = acc * jr[c]
        if zz > 1e-300:
            sB1 = sbar @ B1
            sBm = sbar @ Bm
            zH = z @ Hq
            cKB1 = cvec @ KB1
            for c in range(12):
                dC = (sB1[c] * jr[c] - sBm[c] - 0.5 * zH[c] * jr[c] - 2.0 * C * zd[c]) / zz + 0.5 * cKB1[c] * jr[c]
                for r in range(12):
                    K[e, r, c] += zd[r] * dC + C * P[r, c]


def _properties_timoshenko(material, section):
    out = properties_timoshenko(material, section)
    return {k: out[k] for k in ("EA", "EI", "rhoA", "rhoI", "GAs")}


KERNELS = ElementKernels(
    internal_force=internal_force,
    tangent=tangent,
    resultants=resultants,
    geometric_stiffness=geometric_stiffness,
    strain_energy=strain_energy,
    mass=mass,
    midpoint_force=midpoint_force,
    damping=None,
)

_COMMON = dict(cell_type="line4", n_nodes=4, dim=2, node_dofs=("ux", "uy", "rz"), resultant_names=("N", "V", "M1", "M2"),
               kernels=KERNELS, constant_mass=(LUMPED, INVARIANT), requires_length=False,
               drawn_as=("line", 2))  # output draws the element's own nodes i, j

SPECS = {
    "beam2d_floating": ElementSpec(
        name="beam2d_floating", params=("EA", "EI", "rhoA", "rhoI"), properties=properties_euler_bernoulli,
        description="2-D linear Euler–Bernoulli beam in the floating chord frame of its body (nodes i, j, A, B): "
                    "no geometric stiffening", **_COMMON),
    "beam2d_floating_timoshenko": ElementSpec(
        name="beam2d_floating_timoshenko", params=("EA", "EI", "rhoA", "rhoI", "GAs"), properties=_properties_timoshenko,
        description="2-D linear Timoshenko beam in the floating chord frame of its body (nodes i, j, A, B): "
                    "no geometric stiffening", **_COMMON),
}


def floating_cells(connectivity, frame="chord"):
    """Cells (n_el, 4) of a floating body from the 2-node connectivity (n_el, 2) of a chain
    of beam elements: each element's nodes plus the body's frame nodes A, B: the first and
    last node (``frame="chord"``: the frame follows the chord of the body) or the two nodes
    of the first element (``frame="root"``: the frame follows the first element, the
    classical choice for a beam clamped at its first node)."""
    conn = np.asarray(connectivity, dtype=np.int64)
    if frame == "chord":
        a, b = conn[0, 0], conn[-1, 1]
    elif frame == "root":
        a, b = conn[0, 0], conn[0, 1]
    else:
        raise ValueError(f"frame must be 'chord' or 'root', got {frame!r}")
    return np.column_stack([conn, np.full(len(conn), a), np.full(len(conn), b)])
