"""Planar co-rotational beam elements (Oran/Crisfield): Euler–Bernoulli and Timoshenko.

Two nodes, DOFs (ux, uy, rz) per node, element vector ``u = (u1x, u1y, θ1, u2x, u2y, θ2)``;
rotations are additive scalars (radians, counter-clockwise positive) and may grow without
bound (an element may spin through any number of revolutions).

Kinematics (Crisfield, *Non-linear FE Analysis of Solids and Structures*, vol. 1, ch. 7)::

    X21 = X2 − X1,  l0 = |X21|,            x21 = X21 + u2 − u1,  l = |x21|
    (c, s) = x21 / l                        chord direction in configuration u
    α   = rotation of the chord from X21    (only cos α, sin α are used)
    θ̄i  = wrap(θi − α) ∈ (−π, π]            local (deformational) end rotations
    u_l = l − l0,  N = EA u_l / l0          axial stretch and force (tension positive)
    [M1, M2] = K_b [θ̄1, θ̄2]                 local end moments
    V = EA u_l² / (2 l0) + ½ θ̄ᵀ K_b θ̄        strain energy

θ̄i is evaluated as ``atan2`` of the sine/cosine of the composed rotation R(θi)·R(−α),
so neither the chord angle crossing ±π nor nodal rotations of many turns need any
unwrapping or history. u_l is evaluated as (2 X21 + d21)·d21 / (l + l0), d21 = u2 − u1,
which keeps small stretches exact (no cancellation in l − l0).

The local bending stiffness is ``K_b = EI/(l0(1+Φ)) [[4+Φ, 2−Φ], [2−Φ, 4+Φ]]`` with
``Φ = 12 EI/(GAs l0²)`` for ``beam2d_timoshenko`` (exact for the linear Timoshenko beam,
free of shear locking) and ``Φ = 0`` for ``beam2d``. One set of kernels serves both
element types; they tell them apart by the number of property columns (``is_timoshenko``).

With r = (−c, −s, 0, c, s, 0), z = (s, −c, 0, −s, c, 0) and e3, e6 the unit vectors of
θ1, θ2, the variations are δl = rᵀδu and δα = zᵀδu / l, hence

    B = [r; e3 − z/l; e6 − z/l],     f = Bᵀ (N, M1, M2)
    K_t = Bᵀ diag(EA/l0, K_b) B + N z zᵀ/l + (M1 + M2)/l² (r zᵀ + z rᵀ).

Resultants, sign conventions (``resultant_names = ("N", "V", "M1", "M2")``):

- N: axial force, tension positive.
- M1, M2: end moments conjugate to θ̄1, θ̄2, i.e. the counter-clockwise moments that the
  nodes apply to the element ends. In pure bending to a counter-clockwise arc of curvature
  κ > 0 (θ̄1 = −κl0/2, θ̄2 = +κl0/2) M2 = −M1 = EIκ: the usual beam bending moment is
  −M1 at node 1 and +M2 at node 2.
- V = (M1 + M2)/l: shear force. The nodes apply +V·n to the element at node 1 and −V·n at
  node 2, with n = (−s, c) the chord normal; with M1 + M2 − V l = 0 the element is in
  moment equilibrium.

Mass (kinds of elements.base): 0 lumped: ρA l0/2 on each translation and ρI l0/2 on each
rotation (ρI = 0 gives zero rotational mass: the lumped matrix is then singular);
1 consistent: linear axial and Hermite-cubic transverse interpolation plus the rotary
inertia ∫ρI N'ᵀN' dx, of reference length l0, expressed in the chord frame of
configuration u (so it depends on u; the Timoshenko element interpolates transverse
displacement and section rotation as its exact stiffness does, elements.timoshenko_mass);
2 invariant: linear interpolation of translations and rotations, ρA l0/6 [[2,1],[1,2]]⊗I₂
and ρI l0/6 [[2,1],[1,2]] (constant, exact mass and rotary inertia).

Mass centre off the node line (parameter ``ym``, default 0; a direct value): the section's
mass centre lies at ym along its y axis (the chord normal n0 = (−sin α0, cos α0) of the
reference, turning with the nodes), and rhoI is the rotary inertia about it. The lumped
mass (kind 0 only; kinds 1 and 2 refuse it) then puts each end's half ρA l0/2 on a point
rigidly attached to the node at r = R(θ_a) ym n0: the nodal block is
[[m, 0, −m r_y], [0, m, m r_x], [−m r_y, m r_x, ρI l0/2 + m |r|²]], configuration-dependent
through θ_a; ``mass_points`` gives (m, ym n0) per end, which the mid-point dynamics
integrates as node-attached mass points (femb.solvers.dynamics.offset_points). Property
rows: (EA, EI, rhoA, rhoI, ym) for beam2d, (EA, EI, GAs, rhoA, rhoI, ym) for
beam2d_timoshenko (``is_timoshenko``: 6 columns); beam2d rows of 4 columns have ym = 0.
"""
import math

import numpy as np

from femb.core import jit
from femb.core.rotations import phi_over_sin

from .base import CONSISTENT, INVARIANT, LUMPED, ElementKernels, ElementSpec
from .timoshenko_mass import bending_mass


# --------------------------------------------------------------------------- per-element helpers
@jit(internal=True)
def _kinematics(X, u, e):
    """Co-rotational kinematics of element ``e``.

    Returns ``(l0, l, ul, c, s, tb1, tb2)``: reference and current chord length and the
    stretch l − l0 (length units), current chord direction cosines, and the local end
    rotations θ̄1, θ̄2 in (−π, π] (rad).
    """
    X21x = X[e, 1, 0] - X[e, 0, 0]
    X21y = X[e, 1, 1] - X[e, 0, 1]
    l0 = math.hypot(X21x, X21y)
    d21x = u[e, 3] - u[e, 0]
    d21y = u[e, 4] - u[e, 1]
    x21 = X21x + d21x
    y21 = X21y + d21y
    l = math.hypot(x21, y21)
    # stretch l − l0 without cancellation: (l² − l0²)/(l + l0) with l² − l0² = (2 X21 + d21)·d21
    ul = ((2.0 * X21x + d21x) * d21x + (2.0 * X21y + d21y) * d21y) / (l + l0)
    c = x21 / l
    s = y21 / l
    c0 = X21x / l0
    s0 = X21y / l0
    # chord rotation α from the reference direction: cos α, sin α
    ca = c0 * c + s0 * s
    sa = c0 * s - s0 * c
    tb1 = _rotation_minus(u[e, 2], ca, sa)
    tb2 = _rotation_minus(u[e, 5], ca, sa)
    return l0, l, ul, c, s, tb1, tb2


@jit(internal=True)
def _rotation_minus(theta, ca, sa):
    """The angle of R(θ)·R(−α) in (−π, π], given θ (rad) and cos α, sin α."""
    st = math.sin(theta)
    ct = math.cos(theta)
    return math.atan2(st * ca - ct * sa, ct * ca + st * sa)


@jit(internal=True)
def is_timoshenko(p):
    """Rows p of beam2d_timoshenko: 6 columns (EA, EI, GAs, rhoA, rhoI, ym); beam2d rows
    have 5 (EA, EI, rhoA, rhoI, ym) or, without the mass-centre column, 4."""
    return p.shape[1] == 6


@jit(internal=True)
def mass_centre(p, e):
    """The mass-centre offset ym of element e along the section's y axis (the last column
    of rows of 5 or 6 columns; 0 for rows of 4)."""
    return p[e, p.shape[1] - 1] if p.shape[1] >= 5 else 0.0


@jit(internal=True)
def _section(p, e, l0):
    """Properties of element ``e``: ``(EA, k11, k12, rhoA, rhoI)`` where K_b =
    [[k11, k12], [k12, k11]] is the local bending stiffness (moment per radian).

    ``p`` has columns (EA, EI, rhoA, rhoI[, ym]) for beam2d and (EA, EI, GAs, rhoA, rhoI,
    ym) for beam2d_timoshenko (``is_timoshenko``).
    """
    EA = p[e, 0]
    EI = p[e, 1]
    if is_timoshenko(p):
        phi = 12.0 * EI / (p[e, 2] * l0 * l0)
        rhoA = p[e, 3]
        rhoI = p[e, 4]
    else:
        phi = 0.0
        rhoA = p[e, 2]
        rhoI = p[e, 3]
    k = EI / (l0 * (1.0 + phi))
    return EA, k * (4.0 + phi), k * (2.0 - phi), rhoA, rhoI


@jit
def _vectors(c, s, l, r, z, b1, b2):
    """Fill the (6,) work vectors r, z, b1 = e3 − z/l, b2 = e6 − z/l of the B matrix."""
    r[0] = -c
    r[1] = -s
    r[2] = 0.0
    r[3] = c
    r[4] = s
    r[5] = 0.0
    z[0] = s
    z[1] = -c
    z[2] = 0.0
    z[3] = -s
    z[4] = c
    z[5] = 0.0
    for i in range(6):
        b1[i] = -z[i] / l
        b2[i] = -z[i] / l
    b1[2] = 1.0
    b2[5] = 1.0


@jit(internal=True)
def _write_force(f, e, c, s, l, N, M1, M2):
    """f[e] = Bᵀ (N, M1, M2) = N r − (M1 + M2)/l z + M1 e3 + M2 e6."""
    Q = (M1 + M2) / l
    fx = N * c + Q * s
    fy = N * s - Q * c
    f[e, 0] = -fx
    f[e, 1] = -fy
    f[e, 2] = M1
    f[e, 3] = fx
    f[e, 4] = fy
    f[e, 5] = M2


# --------------------------------------------------------------------------- kernels
@jit
def internal_force(X, u, p, f):
    """Internal nodal forces f = dV/du.

    X: (n_el, 2, 2) reference coordinates; u: (n_el, 6) element DOFs; p: (n_el, 4, 5 or 6)
    properties; f: (n_el, 6) output, forces (force units) and moments (force·length).
    """
    for e in range(X.shape[0]):
        l0, l, ul, c, s, tb1, tb2 = _kinematics(X, u, e)
        EA, k11, k12, rhoA, rhoI = _section(p, e, l0)
        N = EA * ul / l0
        _write_force(f, e, c, s, l, N, k11 * tb1 + k12 * tb2, k12 * tb1 + k11 * tb2)


@jit
def tangent(X, u, p, f, K):
    """Internal force f (n_el, 6) and its exact derivative K (n_el, 6, 6):
    Bᵀ D B + N z zᵀ/l + (M1 + M2)/l² (r zᵀ + z rᵀ). Shapes as in ``internal_force``."""
    r = np.empty(6)
    z = np.empty(6)
    b1 = np.empty(6)
    b2 = np.empty(6)
    for e in range(X.shape[0]):
        l0, l, ul, c, s, tb1, tb2 = _kinematics(X, u, e)
        EA, k11, k12, rhoA, rhoI = _section(p, e, l0)
        N = EA * ul / l0
        M1 = k11 * tb1 + k12 * tb2
        M2 = k12 * tb1 + k11 * tb2
        _write_force(f, e, c, s, l, N, M1, M2)
        _vectors(c, s, l, r, z, b1, b2)
        ka = EA / l0
        gz = N / l
        gm = (M1 + M2) / (l * l)
        for i in range(6):
            for j in range(6):
                K[e, i, j] = (ka * r[i] * r[j]
                              + k11 * (b1[i] * b1[j] + b2[i] * b2[j])
                              + k12 * (b1[i] * b2[j] + b2[i] * b1[j])
                              + gz * z[i] * z[j]
                              + gm * (r[i] * z[j] + z[i] * r[j]))


@jit
def resultants(X, u, p, s):
    """Section resultants s (n_el, 4) = (N, V, M1, M2) in the chord frame (see the module
    docstring for the sign conventions). Shapes as in ``internal_force``."""
    for e in range(X.shape[0]):
        l0, l, ul, c, sn, tb1, tb2 = _kinematics(X, u, e)
        EA, k11, k12, rhoA, rhoI = _section(p, e, l0)
        M1 = k11 * tb1 + k12 * tb2
        M2 = k12 * tb1 + k11 * tb2
        s[e, 0] = EA * ul / l0
        s[e, 1] = (M1 + M2) / l
        s[e, 2] = M1
        s[e, 3] = M2


@jit
def geometric_stiffness(X, u, p, s, K):
    """Stress-dependent tangent K (n_el, 6, 6) = N z zᵀ/l + (M1 + M2)/l² (r zᵀ + z rᵀ),
    with r, z, l from configuration u and N = s[:, 0], M1 = s[:, 2], M2 = s[:, 3] from the
    given resultants s (n_el, 4) (linear in s; V = s[:, 1] is not used)."""
    r = np.empty(6)
    z = np.empty(6)
    b1 = np.empty(6)
    b2 = np.empty(6)
    for e in range(X.shape[0]):
        l0, l, ul, c, sn, tb1, tb2 = _kinematics(X, u, e)
        _vectors(c, sn, l, r, z, b1, b2)
        gz = s[e, 0] / l
        gm = (s[e, 2] + s[e, 3]) / (l * l)
        for i in range(6):
            for j in range(6):
                K[e, i, j] = gz * z[i] * z[j] + gm * (r[i] * z[j] + z[i] * r[j])


@jit
def strain_energy(X, u, p, en):
    """Strain energy en (n_el,) = EA u_l²/(2 l0) + ½ θ̄ᵀ K_b θ̄ (energy units)."""
    for e in range(X.shape[0]):
        l0, l, ul, c, s, tb1, tb2 = _kinematics(X, u, e)
        EA, k11, k12, rhoA, rhoI = _section(p, e, l0)
        en[e] = 0.5 * EA * ul * ul / l0 + 0.5 * (k11 * (tb1 * tb1 + tb2 * tb2) + 2.0 * k12 * tb1 * tb2)


@jit
def mass(X, u, p, kind, M):
    """Mass matrix M (n_el, 6, 6) of kind 0 lumped, 1 consistent (chord frame of u),
    2 invariant; see the module docstring. rhoA: mass per length, rhoI: rotary inertia per
    length (mass·length)."""
    if kind != LUMPED and kind != CONSISTENT and kind != INVARIANT:
        raise ValueError("beam2d mass: kind must be 0 (lumped), 1 (consistent) or 2 (invariant)")
    Ml = np.empty((6, 6))
    R = np.zeros((3, 3))
    R[2, 2] = 1.0
    for e in range(X.shape[0]):
        l0, l, ul, c, s, tb1, tb2 = _kinematics(X, u, e)
        EA, k11, k12, rhoA, rhoI = _section(p, e, l0)
        for i in range(6):
            for j in range(6):
                M[e, i, j] = 0.0
        ym = mass_centre(p, e)
        if ym != 0.0 and kind != LUMPED:
            raise ValueError("beam2d mass: a mass centre off the node line (ym) needs the lumped mass kind")
        if kind == LUMPED:
            mt = 0.5 * rhoA * l0
            mr = 0.5 * rhoI * l0
            for a in range(2):
                M[e, 3 * a, 3 * a] = mt
                M[e, 3 * a + 1, 3 * a + 1] = mt
                M[e, 3 * a + 2, 3 * a + 2] = mr
                if ym != 0.0:  # the end's mass at r = R(θ_a) d, d = ym n0: v_p = v + θ̇ (−r_y, r_x)
                    dx, dy = _lever(X, e, ym)
                    ca, sa = math.cos(u[e, 3 * a + 2]), math.sin(u[e, 3 * a + 2])
                    rx, ry = ca * dx - sa * dy, sa * dx + ca * dy
                    M[e, 3 * a, 3 * a + 2] = -mt * ry
                    M[e, 3 * a + 2, 3 * a] = -mt * ry
                    M[e, 3 * a + 1, 3 * a + 2] = mt * rx
                    M[e, 3 * a + 2, 3 * a + 1] = mt * rx
                    M[e, 3 * a + 2, 3 * a + 2] += mt * (rx * rx + ry * ry)
        elif kind == INVARIANT:
            mt = rhoA * l0 / 6.0
            mr = rhoI * l0 / 6.0
            for a in range(2):
                for b in range(2):
                    w = 2.0 if a == b else 1.0
                    M[e, 3 * a, 3 * b] = w * mt
                    M[e, 3 * a + 1, 3 * b + 1] = w * mt
                    M[e, 3 * a + 2, 3 * b + 2] = w * mr
        else:
            phi = 12.0 * p[e, 1] / (p[e, 2] * l0 * l0) if is_timoshenko(p) else 0.0
            _consistent_local(rhoA, rhoI, l0, phi, Ml)
            # M = Tᵀ Ml T, T = diag(R, R), R = [[c, s, 0], [−s, c, 0], [0, 0, 1]] (global -> chord)
            R[0, 0] = c
            R[0, 1] = s
            R[1, 0] = -s
            R[1, 1] = c
            for a in range(2):
                for b in range(2):
                    for i in range(3):
                        for j in range(3):
                            acc = 0.0
                            for k in range(3):
                                for m in range(3):
                                    acc += R[k, i] * Ml[3 * a + k, 3 * b + m] * R[m, j]
                            M[e, 3 * a + i, 3 * b + j] = acc


@jit(internal=True)
def _lever(X, e, ym):
    """(dx, dy) = ym n0, the mass centre's lever from the nodes of element e in the
    reference configuration (n0 = (−sin α0, cos α0) the reference chord normal, the
    section's y axis)."""
    X21x = X[e, 1, 0] - X[e, 0, 0]
    X21y = X[e, 1, 1] - X[e, 0, 1]
    l0 = math.hypot(X21x, X21y)
    return -ym * X21y / l0, ym * X21x / l0


@jit
def mass_points(X, p, m, d):
    """The translational mass of each element end as a point rigidly attached to its node
    (lumped mass with the mass centre at ym along the section's y axis): m (n_el, 2) half
    the element's mass ρA l0/2 at each end; d (n_el, 2, 2) its lever ym n0 in the reference
    configuration; at a nodal rotation θ_a the point is at x_a + R(θ_a) d. X (n_el, 2, 2),
    p property rows."""
    for e in range(X.shape[0]):
        X21x = X[e, 1, 0] - X[e, 0, 0]
        X21y = X[e, 1, 1] - X[e, 0, 1]
        l0 = math.hypot(X21x, X21y)
        EA, k11, k12, rhoA, rhoI = _section(p, e, l0)
        dx, dy = _lever(X, e, mass_centre(p, e))
        for a in range(2):
            m[e, a] = 0.5 * rhoA * l0
            d[e, a, 0] = dx
            d[e, a, 1] = dy


@jit(internal=True)
def _consistent_local(rhoA, rhoI, l0, phi, Ml):
    """Consistent mass (6, 6) in local DOFs (u1, v1, θ1, u2, v2, θ2): linear axial,
    Hermite-cubic transverse (ρA l0/420 [...]) and rotary inertia (ρI/(30 l0) [...]);
    with Φ = 12 EI/(GA_s l0²) > 0 (beam2d_timoshenko) the Timoshenko bending mass of
    elements.timoshenko_mass."""
    L = l0
    for i in range(6):
        for j in range(6):
            Ml[i, j] = 0.0
    ma = rhoA * L / 6.0
    Ml[0, 0] = 2.0 * ma
    Ml[3, 3] = 2.0 * ma
    Ml[0, 3] = ma
    Ml[3, 0] = ma
    # bending DOFs (v1, θ1, v2, θ2) -> indices (1, 2, 4, 5)
    idx = (1, 2, 4, 5)
    mt = rhoA * L / 420.0
    mr = rhoI / (30.0 * L)
    T = ((156.0, 22.0 * L, 54.0, -13.0 * L),
         (22.0 * L, 4.0 * L * L, 13.0 * L, -3.0 * L * L),
         (54.0, 13.0 * L, 156.0, -22.0 * L),
         (-13.0 * L, -3.0 * L * L, -22.0 * L, 4.0 * L * L))
    R = ((36.0, 3.0 * L, -36.0, 3.0 * L),
         (3.0 * L, 4.0 * L * L, -3.0 * L, -L * L),
         (-36.0, -3.0 * L, 36.0, -3.0 * L),
         (3.0 * L, -L * L, -3.0 * L, 4.0 * L * L))
    if phi > 0.0:
        B = np.empty((4, 4))
        bending_mass(rhoA, rhoI, L, phi, B)
        for a in range(4):
            for b in range(4):
                Ml[idx[a], idx[b]] = B[a, b]
        return
    for a in range(4):
        for b in range(4):
            Ml[idx[a], idx[b]] = mt * T[a][b] + mr * R[a][b]


# --------------------------------------------------------------------------- energy-conserving mid-point force
MIDPOINT_START_WIDTH = 18
"""Columns of a row of ``midpoint_start``: l0, e0 (2), l_n, l_n − l0, EA, k11, k12, and per
node i (5 + ...) d_i,n (2), w_i,n (2), θ̄_i,n."""


@jit(internal=True)
def _director_invariants(e0x, e0y, theta, xx, xy):
    """The nodal director d = R(θ) e0 of the reference chord direction e0 and the invariants
    w = (x·d, x × d) of the chord x: (d_x, d_y, w_c, w_s)."""
    c = math.cos(theta)
    s = math.sin(theta)
    dx = e0x * c - e0y * s
    dy = e0x * s + e0y * c
    return dx, dy, xx * dx + xy * dy, xx * dy - xy * dx


@jit(internal=True)
def midpoint_start(X, u0, p, S):
    """The quantities of ``midpoint_force`` that depend on the start configuration u0
    (n_el, 6) only, per element into S (n_el, ``MIDPOINT_START_WIDTH``): reference length
    l0 and direction e0, chord length l_n and stretch l_n − l0 (length units), EA and the
    bending stiffnesses k11, k12 (``_section``), and per node i (columns 8 + 5i …) the
    director d_i,n = R(θ_i,n) e0, the invariants w_i,n = (x21,n·d_i,n, x21,n × d_i,n) and
    θ̄_i,n = atan2(w_i,n). A step evaluates them once for all its Newton iterations."""
    for e in range(X.shape[0]):
        X21x = X[e, 1, 0] - X[e, 0, 0]
        X21y = X[e, 1, 1] - X[e, 0, 1]
        l0 = math.hypot(X21x, X21y)
        e0x = X21x / l0
        e0y = X21y / l0
        a21x = u0[e, 3] - u0[e, 0]
        a21y = u0[e, 4] - u0[e, 1]
        x0x = X21x + a21x
        x0y = X21y + a21y
        ln = math.hypot(x0x, x0y)
        EA, k11, k12, _, _ = _section(p, e, l0)
        S[e, 0] = l0
        S[e, 1] = e0x
        S[e, 2] = e0y
        S[e, 3] = ln
        S[e, 4] = ((2.0 * X21x + a21x) * a21x + (2.0 * X21y + a21y) * a21y) / (ln + l0)
        S[e, 5] = EA
        S[e, 6] = k11
        S[e, 7] = k12
        for i in range(2):
            d0x, d0y, c0, s0 = _director_invariants(e0x, e0y, u0[e, 3 * i + 2], x0x, x0y)
            j = 8 + 5 * i
            S[e, j] = d0x
            S[e, j + 1] = d0y
            S[e, j + 2] = c0
            S[e, j + 3] = s0
            S[e, j + 4] = math.atan2(s0, c0)


@jit
def midpoint_force(X, u0, u1, p, f, K):
    """Energy- and momentum-conserving mid-point force between u0 and u1, and its tangent.

    Conventions (the 2-D rotational contract of elements.base): ``u0``, ``u1`` (n_el, 6)
    hold additive nodal rotations θ; the rotational unknown of a step is the Cayley
    parameter τ_i = 2 tan((θ_i,1 − θ_i,0)/2). The rotational entries of ``f`` (n_el, 6)
    are moments conjugate to τ, the translational ones forces conjugate to u1 − u0, and
    ``K`` (n_el, 6, 6) = ∂f/∂(u1 translations, τ1, τ2) (non-symmetric).

    Construction (a discrete gradient of V built from rotation-invariant quantities that
    are bilinear in the chord x21 and the nodal directors d_i = R(θ_i)·X21/l0):
    l² = x21·x21 and w_i = (x21·d_i, x21 × d_i), so that θ̄_i = atan2(w_i) and |w_i| = l.
    With (·)_m the average of the end values and Δ the change over the step,

        ΔV = N_av Δl + Σ M̄_av,i Δθ̄_i                       (exact: V quadratic in l, θ̄)
        Δl = x21,m·Δx21 / l_av                               (β form of the truss)
        Δθ̄_i = ρ_i (w_i,m × Δw_i),  ρ_i = Δθ̄_i/(w_i,n × w_i,n+1) = S(Δθ̄_i)/(l_n l_n+1)
        Δw_i = w(Δx21, d_i,m) + w(x21,m, Δd_i),  Δd_i = τ_i Z d_i,m (exact for Cayley)

    (S(φ) = φ/sin φ). Hence f·(Δu, τ) = V(u1) − V(u0) to round-off; every force derives
    from invariants evaluated with mid-point vectors, so Σ x_m × f + Σ f_τ = 0 (angular
    momentum) and Σ f = 0 (linear momentum) exactly; a rigid motion (chord and directors
    turned by the same angle) leaves w_i unchanged and produces no bending moment. At
    u0 == u1 the force equals ``internal_force``. θ̄_i,n+1 is taken as θ̄_i,n plus the
    angle from w_i,n to w_i,n+1, so the deformation angles never wrap within a step.

    X (n_el, 2, 2); p (n_el, 4, 5 or 6) as for ``internal_force``. The start quantities
    come from ``midpoint_start`` (a work array per call; ``midpoint_force_from`` takes them
    precomputed).
    """
    S = np.empty((X.shape[0], MIDPOINT_START_WIDTH))
    midpoint_start(X, u0, p, S)
    midpoint_force_from(X, S, u0, u1, f, K, True)


@jit(internal=True)
def midpoint_force_from(X, S, u0, u1, f, K, tangent):
    """``midpoint_force`` from the start quantities S (n_el, ``MIDPOINT_START_WIDTH``) of
    ``midpoint_start`` at u0, bit for bit; without ``tangent`` the force f alone (K is not
    touched)."""
    # per node i (first index) values and derivatives over (δx21_x, δx21_y, δτ1, δτ2), in
    # one work allocation per call
    work = np.empty(100)
    tb0 = work[0:2]
    tb1 = work[2:4]
    rho = work[4:6]
    h = work[6:8]
    gx = work[8:10]
    gy = work[10:12]
    dc1 = work[12:16]
    ds1 = work[16:20]
    ddmx = work[20:24]
    ddmy = work[24:28]
    dphi = work[28:36].reshape((2, 4))
    drho = work[36:44].reshape((2, 4))
    dh = work[44:52].reshape((2, 4))
    dgx = work[52:60].reshape((2, 4))
    dgy = work[60:68].reshape((2, 4))
    dM = work[68:76].reshape((2, 4))
    D = work[76:100].reshape((6, 4))
    for e in range(X.shape[0]):
        X21x = X[e, 1, 0] - X[e, 0, 0]
        X21y = X[e, 1, 1] - X[e, 0, 1]
        l0 = S[e, 0]
        e0x = S[e, 1]
        e0y = S[e, 2]
        ln = S[e, 3]
        ul0 = S[e, 4]
        EA = S[e, 5]
        k11 = S[e, 6]
        k12 = S[e, 7]
        b21x = u1[e, 3] - u1[e, 0]
        b21y = u1[e, 4] - u1[e, 1]
        x0x = X21x + (u0[e, 3] - u0[e, 0])
        x0y = X21y + (u0[e, 4] - u0[e, 1])
        x1x = X21x + b21x
        x1y = X21y + b21y
        l1 = math.hypot(x1x, x1y)
        ul1 = ((2.0 * X21x + b21x) * b21x + (2.0 * X21y + b21y) * b21y) / (l1 + l0)
        N_av = 0.5 * EA / l0 * (ul0 + ul1)
        l_av = 0.5 * (ln + l1)
        xmx = 0.5 * (x0x + x1x)
        xmy = 0.5 * (x0y + x1y)
        e1x = x1x / l1
        e1y = x1y / l1
        cN = N_av / l_av
        for i in range(2):
            j = 8 + 5 * i
            d0x = S[e, j]
            d0y = S[e, j + 1]
            c0 = S[e, j + 2]
            s0 = S[e, j + 3]
            tb0[i] = S[e, j + 4]
            th1 = u1[e, 3 * i + 2]
            d1x, d1y, c1, s1 = _director_invariants(e0x, e0y, th1, x1x, x1y)
            phi = math.atan2(c0 * s1 - s0 * c1, c0 * c1 + s0 * s1)
            tb1[i] = tb0[i] + phi
            S_phi, dS = phi_over_sin(phi)
            rho[i] = S_phi / (ln * l1)
            # mid-point director and invariants
            dmx = 0.5 * (d0x + d1x)
            dmy = 0.5 * (d0y + d1y)
            wmc = 0.5 * (c0 + c1)
            wms = 0.5 * (s0 + s1)
            ct = xmx * dmx + xmy * dmy
            st = xmx * dmy - xmy * dmx
            gx[i] = wmc * dmy - wms * dmx
            gy[i] = -(wmc * dmx + wms * dmy)
            h[i] = wmc * ct + wms * st
            if not tangent:
                continue
            mu = math.cos(0.5 * (th1 - u0[e, 3 * i + 2])) ** 2  # dθ1/dτ = 1/(1 + τ²/4)
            # δc1, δs1 and δφ = (c1 δs1 − s1 δc1)/l1²
            for k in range(4):
                dc1[k] = 0.0
                ds1[k] = 0.0
            dc1[0] = d1x
            dc1[1] = d1y
            dc1[2 + i] = -mu * s1
            ds1[0] = d1y
            ds1[1] = -d1x
            ds1[2 + i] = mu * c1
            o = 3 - i  # the other node's τ: φ_i and the invariants of node i do not depend on it
            for k in range(4):
                if k == o:
                    dphi[i, k] = 0.0
                    drho[i, k] = 0.0
                    continue
                dphi[i, k] = (c1 * ds1[k] - s1 * dc1[k]) / (l1 * l1)
                drho[i, k] = dS * dphi[i, k] / (ln * l1)
            drho[i, 0] -= rho[i] * e1x / l1
            drho[i, 1] -= rho[i] * e1y / l1
            for k in range(4):
                ddmx[k] = 0.0
                ddmy[k] = 0.0
            ddmx[2 + i] = -0.5 * mu * d1y
            ddmy[2 + i] = 0.5 * mu * d1x
            for k in range(4):
                if k == o:
                    dgx[i, k] = 0.0
                    dgy[i, k] = 0.0
                    dh[i, k] = 0.0
                    continue
                dwc = 0.5 * dc1[k]
                dws = 0.5 * ds1[k]
                dct = xmx * ddmx[k] + xmy * ddmy[k]
                dst = xmx * ddmy[k] - xmy * ddmx[k]
                if k == 0:
                    dct += 0.5 * dmx
                    dst += 0.5 * dmy
                elif k == 1:
                    dct += 0.5 * dmy
                    dst -= 0.5 * dmx
                dgx[i, k] = dwc * dmy + wmc * ddmy[k] - dws * dmx - wms * ddmx[k]
                dgy[i, k] = -(dwc * dmx + wmc * ddmx[k] + dws * dmy + wms * ddmy[k])
                dh[i, k] = dwc * ct + wmc * dct + dws * st + wms * dst
        M1 = 0.5 * (k11 * (tb0[0] + tb1[0]) + k12 * (tb0[1] + tb1[1]))
        M2 = 0.5 * (k12 * (tb0[0] + tb1[0]) + k11 * (tb0[1] + tb1[1]))
        Fx = cN * xmx + M1 * rho[0] * gx[0] + M2 * rho[1] * gx[1]
        Fy = cN * xmy + M1 * rho[0] * gy[0] + M2 * rho[1] * gy[1]
        f[e, 0] = -Fx
        f[e, 1] = -Fy
        f[e, 2] = M1 * rho[0] * h[0]
        f[e, 3] = Fx
        f[e, 4] = Fy
        f[e, 5] = M2 * rho[1] * h[1]
        if not tangent:
            continue
        gN = 0.5 * (EA / l0 - cN) / l_av  # δ(N_av/l_av) = gN e1·δx
        for k in range(4):
            dM[0, k] = 0.5 * (k11 * dphi[0, k] + k12 * dphi[1, k])
            dM[1, k] = 0.5 * (k12 * dphi[0, k] + k11 * dphi[1, k])
        for k in range(4):
            dFx = 0.0
            dFy = 0.0
            if k < 2:
                de = e1x if k == 0 else e1y
                dFx = gN * de * xmx
                dFy = gN * de * xmy
                if k == 0:
                    dFx += 0.5 * cN
                else:
                    dFy += 0.5 * cN
            Mi = M1
            for i in range(2):
                if i == 1:
                    Mi = M2
                a = dM[i, k] * rho[i] + Mi * drho[i, k]
                dFx += a * gx[i] + Mi * rho[i] * dgx[i, k]
                dFy += a * gy[i] + Mi * rho[i] * dgy[i, k]
                D[2 + 3 * i, k] = a * h[i] + Mi * rho[i] * dh[i, k]
            D[0, k] = -dFx
            D[1, k] = -dFy
            D[3, k] = dFx
            D[4, k] = dFy
        for r in range(6):
            K[e, r, 0] = -D[r, 0]
            K[e, r, 1] = -D[r, 1]
            K[e, r, 2] = D[r, 2]
            K[e, r, 3] = D[r, 0]
            K[e, r, 4] = D[r, 1]
            K[e, r, 5] = D[r, 3]


# --------------------------------------------------------------------------- specs
def _bending_properties(material, section, name):
    if section.A is None:
        raise ValueError(f"section needs A for {name}")
    Iz = section.second_moment_z
    if Iz is None:
        raise ValueError(f"section needs Iz (or I) for {name}")
    rho = 0.0 if material.rho is None else material.rho
    return {"EA": material.E * section.A, "EI": material.E * Iz, "rhoA": rho * section.A, "rhoI": rho * Iz}


def properties_euler_bernoulli(material, section):
    """EA = E·A, EI = E·Iz, rhoA = ρ·A, rhoI = ρ·Iz for ``beam2d``."""
    return _bending_properties(material, section, "beam2d")


def properties_timoshenko(material, section):
    """The ``beam2d`` properties plus GAs = G·k·A (G from the material's G or nu, k the
    section's shear_factor) for ``beam2d_timoshenko``."""
    out = _bending_properties(material, section, "beam2d_timoshenko")
    G = material.shear_modulus
    if G is None:
        raise ValueError("material needs G (or nu) for beam2d_timoshenko")
    if section.shear_factor is None:
        raise ValueError("section needs shear_factor for beam2d_timoshenko")
    out["GAs"] = G * section.shear_factor * section.A
    return out


KERNELS = ElementKernels(internal_force=internal_force, tangent=tangent, resultants=resultants,
                         geometric_stiffness=geometric_stiffness, strain_energy=strain_energy, mass=mass,
                         midpoint_force=midpoint_force)

_COMMON = dict(cell_type="line", n_nodes=2, dim=2, node_dofs=("ux", "uy", "rz"),
               resultant_names=("N", "V", "M1", "M2"), kernels=KERNELS, constant_mass=(LUMPED, INVARIANT))

def _with_mass_centre(properties):
    """The properties with the mass centre on the node line (ym = 0; a 2-D section's offset
    mass centre is given as the direct value ``ym``)."""
    def wrapped(material, section):
        return {**properties(material, section), "ym": 0.0}
    wrapped.__doc__ = (properties.__doc__ or "") + " The mass centre ym = 0 (on the node line)."
    return wrapped


SPECS = {
    "beam2d": ElementSpec(name="beam2d", params=("EA", "EI", "rhoA", "rhoI", "ym"),
                          properties=_with_mass_centre(properties_euler_bernoulli), defaults={"ym": 0.0},
                          description="2-D co-rotational Euler–Bernoulli beam (Oran/Crisfield)", **_COMMON),
    "beam2d_timoshenko": ElementSpec(name="beam2d_timoshenko", params=("EA", "EI", "GAs", "rhoA", "rhoI", "ym"),
                                     properties=_with_mass_centre(properties_timoshenko), defaults={"ym": 0.0},
                                     description="2-D co-rotational Timoshenko beam (shear-flexible, locking-free)",
                                     **_COMMON),
}
