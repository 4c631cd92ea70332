"""Spatial co-rotational beam elements: Euler–Bernoulli (``beam3d``) and Timoshenko
(``beam3d_timoshenko``), with Meijaard's second-order bending–torsion refinement.

Two nodes, DOFs (ux, uy, uz, rx, ry, rz) per node. The elements are *oriented* (see
elements.base): the kernels take the nodal rotations ``R`` (n_el, 2, 3, 3) relative to the
reference configuration; the rotational slots of ``u`` are ignored, rotational entries of
``f`` are moments conjugate to spatial spins δw (δR = δŵ R) and rotational rows/columns of
``K`` are derivatives with respect to δw. ``K`` is the exact derivative, hence not
symmetric in general: it is the symmetric Hessian of V(exp(ŵ1) R1, exp(ŵ2) R2) plus the
skew block −½ m̂ at each node (m the element's moment on that node; m̂ b = m × b). The skew
parts cancel after assembly against the neighbours or against the load stiffness of
applied semitangential moments (``femb.elements.loads3d``).

Reference section triad (``R0``, columns e1, e2, e3): e1 = (X2 − X1)/l0 is the beam axis;
the section y axis e2 is the parameter vector v = (vx, vy, vz) made orthogonal to e1 and
normalised; e3 = e1 × e2. When v is zero (or parallel to the axis) the default is
e2 = e_Z × e1/|e_Z × e1| — horizontal, so that members in the global XY plane bend in that
plane about their local z axis (EIz, as beam2d) and horizontal members of a Z-up model bend
under gravity about local y — and e2 = e_Y for members within 1e-6 rad of vertical.
The section triad of node a in configuration (x, R) is Q_a = R_a R0.

Co-rotational kinematics (element-independent frame, Battini & Pacoste 2002)::

    x21 = X2 − X1 + u2 − u1,  l = |x21|,  r1 = x21/l          chord
    q_a = R_a e2 (a = 1, 2),  q = ½ (q1 + q2)                mean section y axis
    r3 = r1 × q/|r1 × q|,  r2 = r3 × r1,   E = [r1 r2 r3]     element frame
    θ̄_a = log(Eᵀ R_a R0)                                      local end rotations (rad)
    u_l = l − l0 = (2 X21 + d21)·d21/(l + l0)                  stretch, no cancellation

``log`` is the quaternion-based logarithm of femb.core.rotations, regular at every angle;
the nodal rotations themselves may be anything (any number of turns, about any axis), only
the deformational rotations θ̄_a (|θ̄_a| ≤ π) enter. The frame is singular only when the
mean section axis q is parallel to the chord (local rotations of 90°) or vanishes (relative
twist of 180°), far outside the range of validity of one element.

Local beam with second-order refinement (Meijaard 1993, reference digest §1.5, eq. 16).
With q = (u_l, θ̄1, θ̄2) and the linear rotation measures a2 = θ̄2x − θ̄1x, a3 = −θ̄1y,
a4 = θ̄2y, a5 = −θ̄1z, a6 = θ̄2z, the refined strains are Meijaard's generalized strains
(divided by l0) to second order in log coordinates plus his eq.-16 corrections::

    ē1 = u_l + l0 (2a3² + a3a4 + 2a4² + 2a5² + a5a6 + 2a6²)/30      (length)
    ρ2 = a2 + ½ (θ̄1y θ̄2z − θ̄1z θ̄2y)                                (twist)
    ρ3 = a3 − ½ θ̄1x θ̄1z + a2 (a5 + a6)/6,   ρ4 = a4 + ½ θ̄2x θ̄2z − a2 (a5 + a6)/6
    ρ5 = a5 + ½ θ̄1x θ̄1y − a2 (a3 + a4)/6,   ρ6 = a6 − ½ θ̄2x θ̄2y + a2 (a3 + a4)/6

and the strain energy is V = ½ ρᵀ S ρ with ρ = (ē1, ρ2, …, ρ6) and
S = diag(EA/l0, GJ/l0, (EIy/l0) K(Φz), (EIz/l0) K(Φy)),
K(Φ) = [[4+Φ, −2+Φ], [−2+Φ, 4+Φ]]/(1+Φ); Φz = 12 EIy/(GAz l0²) and Φy = 12 EIz/(GAy l0²)
for ``beam3d_timoshenko`` (exact linear Timoshenko bending, locking-free), Φ = 0 for
``beam3d``. The linear part is the standard linear beam; the quadratic terms give the
consistent geometric stiffness: axial force–bending (ē1, the classical N l/30 terms),
torque–bending and moment–twist coupling (ρ2 … ρ6). Since ρ agrees with Meijaard's
refined strains to second order, linear buckling reproduces his element: cantilevers of 1,
2, 4 elements give F_cr/F_th = 1.4953/1.0691/1.0154 in lateral buckling (his Table 1:
1.4951/1.0690/1.0153) and M_cr/M_th = 1.1027/1.0075/1.0005 under a semitangential end
torque (Table 2: the same). In a roll-up by an end moment the nodes lie on the exact
circle with O(h⁴) error (ē1 is the arc-length correction of the chord).

Generalized stresses σ = S ρ; with m̄_a = ∂V/∂θ̄_a, N = ∂V/∂u_l, μ_a = J(θ̄_a)⁻ᵀ m̄_a
(J the left Jacobian), M_a = E μ_a and Ms = M1 + M2, the nodal forces are::

    f_x2 = −f_x1 = N r1 − (Ms × r1)/l + (h τ/(g l)) r3,   f_wa = M_a − τ (q_a × r3)/(2g)

with τ = Ms·r1, h = q·r1, g = q·r2. The tangent is their exact derivative (frame spin,
derivative of J⁻ᵀ, local Hessian), written in the kernels as (3, 12) variation matrices.

Resultants (``resultant_names``), in the element frame E:

- N = σ1: axial force, tension positive (conjugate to ē1).
- T = σ2: torque, conjugate to the twist ρ2 ≈ θ̄2x − θ̄1x: the moment about r1 that node 2
  applies to the element (node 1 applies −T).
- My1 = −σ3, My2 = σ4, Mz1 = −σ5, Mz2 = σ6: end moments about the local y and z axes that
  the nodes apply to the element ends (conjugate to θ̄1y, θ̄2y, θ̄1z, θ̄2z to first order; the
  beam2d convention: in pure bending My2 = −My1 = EIy κy and Mz2 = −Mz1 = EIz κz).
- Vy = (Mz1 + Mz2)/l, Vz = −(My1 + My2)/l: shear forces from element moment equilibrium;
  to first order in θ̄ the nodes apply +Vy r2 + Vz r3 at node 1 and the opposite at node 2
  (as beam2d's V).

``geometric_stiffness(X, u, R, p, s, K)`` is the tangent with the local material Hessian
removed, evaluated with σ from ``s`` (N, T, My1, Mz1, My2, Mz2; Vy, Vz are not used):
linear in s, and tangent = material part + geometric_stiffness(resultants).

Mass (kinds of elements.base; rhoA mass per length, rhoIp/rhoIy/rhoIz rotary inertia per
length about the section axes x, y, z):

- 0 lumped: ρA l0/2 on each translation; (l0/2) Q_a diag(rhoIp, rhoIy, rhoIz) Q_aᵀ on
  the rotations of node a (the section inertia about the *current* nodal triad).
- 1 consistent: the textbook 3-D beam mass (linear axial and torsion, Hermite-cubic
  bending with rotary inertia ∫ρI N′ᵀN′) of length l0, in the current element frame E.
- 2 invariant: translations ρA l0/6 [[2, 1], [1, 2]]⊗I₃ (rotation-invariant, constant)
  plus the lumped nodal rotary inertia of kind 0.

In 3-D the rotary inertia of a section turns with the section, so no kind is constant
unless rhoIp = rhoIy = rhoIz (e.g. all zero): ``constant_mass`` is empty. Kinds 0 and 2
split into a constant translational mass and nodal rigid-body inertias (body frame: the
rotational block at R = I), which is how the energy-conserving dynamics integrates them
(``extra["rotary_kinds"]``, femb.solvers.midpoint3d).

Energy-conserving dynamics: ``midpoint_force_oriented`` (the ``midpoint_force`` kernel of
oriented elements, signature ``(X, u0, R0, u1, R1, um, Rm, psi, D, p, f, K)``) is the
algorithmic force of a step whose rotational unknowns are the Cayley vectors ψ of the nodal
rotation increments; see its docstring and docs/dynamics.md.

Properties (``properties(material, section)``): EA = E·A, GJ = G·J, EIy = E·Iy,
EIz = E·Iz, rhoA = ρA, rhoIp = ρ·Ip (section.Ip, default Iy + Iz), rhoIy = ρ·Iy,
rhoIz = ρ·Iz, (vx, vy, vz) from an optional ``section.orientation`` (3 numbers; zeros
select the default above) and, for beam3d_timoshenko, GAy = GAz = G·k·A
(k = section.shear_factor).
"""
import math

import numpy as np

from femb.core import jit
from femb.core.rotations import (hat, left_jacobian_inverse, left_jacobian_inverse_T_derivative, log_so3)

from .base import CONSISTENT, INVARIANT, LUMPED, ElementKernels, ElementSpec

N_PARAMS_TIMOSHENKO = 13  # beam3d has 11
# rows of the (n, 12) variation work array (see _transform)
_DR1, _WE, _DQ1, _DQ2, _DQ, _DR3, _DQL, _DFL = 0, 3, 6, 9, 12, 15, 18, 25
_DM1, _DM2, _DMS, _TMP, _TMP2, _DA, _DB = 32, 35, 38, 41, 44, 47, 50
_DL, _TW, _DH, _DG, _DTAU, _DC = 53, 54, 55, 56, 57, 58
_N_ROWS = 59


# --------------------------------------------------------------------------- geometry
@jit
def _reference_triad(X, p, e, R0):
    """Reference section triad R0 (3, 3) of element ``e`` (columns e1, e2, e3, see the
    module docstring); returns l0."""
    d0 = X[e, 1, 0] - X[e, 0, 0]
    d1 = X[e, 1, 1] - X[e, 0, 1]
    d2 = X[e, 1, 2] - X[e, 0, 2]
    l0 = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    e1x, e1y, e1z = d0 / l0, d1 / l0, d2 / l0
    vx, vy, vz = p[e, 8], p[e, 9], p[e, 10]
    vn = math.sqrt(vx * vx + vy * vy + vz * vz)
    ve = vx * e1x + vy * e1y + vz * e1z
    wx, wy, wz = vx - ve * e1x, vy - ve * e1y, vz - ve * e1z
    wn = math.sqrt(wx * wx + wy * wy + wz * wz)
    if vn == 0.0 or wn <= 1e-8 * vn:
        # default: e_Z × e1, or e_Y for (nearly) vertical members
        wx, wy, wz = -e1y, e1x, 0.0
        wn = math.sqrt(wx * wx + wy * wy)
        if wn <= 1e-6:
            wx, wy, wz = -e1y * e1x, 1.0 - e1y * e1y, -e1y * e1z
            wn = math.sqrt(wx * wx + wy * wy + wz * wz)
    R0[0, 0], R0[1, 0], R0[2, 0] = e1x, e1y, e1z
    R0[0, 1], R0[1, 1], R0[2, 1] = wx / wn, wy / wn, wz / wn
    R0[0, 2] = e1y * R0[2, 1] - e1z * R0[1, 1]
    R0[1, 2] = e1z * R0[0, 1] - e1x * R0[2, 1]
    R0[2, 2] = e1x * R0[1, 1] - e1y * R0[0, 1]
    return l0


@jit
def _kinematics(X, u, R, p, e, R0, F, qa, th, RR):
    """Co-rotational state of element ``e``.

    Writes the reference triad R0 (3, 3), the element frame F (3, 3) *as rows* (r1, r2, r3),
    the current section y axes qa (2, 3) and the local rotation vectors th (2, 3); RR (2, 3, 3)
    is work space (RR[0] = R_a R0 of the last node). Returns ``(l0, l, ul, h, g)``: reference and current length, stretch
    l − l0, h = q·r1, g = q·r2 with q = ½ (q1 + q2).
    """
    l0 = _reference_triad(X, p, e, R0)
    ss = 0.0
    dd = 0.0
    for k in range(3):
        X21 = X[e, 1, k] - X[e, 0, k]
        d21 = u[e, 6 + k] - u[e, k]
        F[0, k] = X21 + d21
        ss += F[0, k] * F[0, k]
        dd += (2.0 * X21 + d21) * d21
    l = math.sqrt(ss)
    ul = dd / (l + l0)
    for k in range(3):
        F[0, k] /= l
    for a in range(2):
        for i in range(3):
            qa[a, i] = R[e, a, i, 0] * R0[0, 1] + R[e, a, i, 1] * R0[1, 1] + R[e, a, i, 2] * R0[2, 1]
    h = 0.0
    for k in range(3):
        h += 0.5 * (qa[0, k] + qa[1, k]) * F[0, k]
    g2 = 0.0
    for k in range(3):
        F[1, k] = 0.5 * (qa[0, k] + qa[1, k]) - h * F[0, k]
        g2 += F[1, k] * F[1, k]
    g = math.sqrt(g2)
    for k in range(3):
        F[1, k] /= g
    F[2, 0] = F[0, 1] * F[1, 2] - F[0, 2] * F[1, 1]
    F[2, 1] = F[0, 2] * F[1, 0] - F[0, 0] * F[1, 2]
    F[2, 2] = F[0, 0] * F[1, 1] - F[0, 1] * F[1, 0]
    Q = RR[0]
    Rb = RR[1]
    for a in range(2):
        # Q = R_a R0 (current section triad), Rb = Eᵀ Q = F Q
        for i in range(3):
            for j in range(3):
                Q[i, j] = R[e, a, i, 0] * R0[0, j] + R[e, a, i, 1] * R0[1, j] + R[e, a, i, 2] * R0[2, j]
        for i in range(3):
            for j in range(3):
                Rb[i, j] = F[i, 0] * Q[0, j] + F[i, 1] * Q[1, j] + F[i, 2] * Q[2, j]
        log_so3(Rb, th[a])
    return l0, l, ul, h, g


# --------------------------------------------------------------------------- local beam
@jit
def _pair(Hq, k, i, j, c):
    """Add the term c·q_i·q_j of strain k to its Hessian Hq (6, 7, 7)."""
    Hq[k, i, j] += c
    Hq[k, j, i] += c


@jit
def _strain_forms(l0, Lq, Hq):
    """Linear part Lq (6, 7) and constant Hessians Hq (6, 7, 7) of the refined strains
    ρ(q) = Lq q + ½ qᵀ Hq q over q = (u_l, θ̄1x, θ̄1y, θ̄1z, θ̄2x, θ̄2y, θ̄2z)."""
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
    # ē1: l0/30 (2 θ1y² − θ1y θ2y + 2 θ2y² + 2 θ1z² − θ1z θ2z + 2 θ2z²)
    c = l0 / 30.0
    for (i, j) in ((2, 5), (3, 6)):
        _pair(Hq, 0, i, i, 2.0 * c)
        _pair(Hq, 0, j, j, 2.0 * c)
        _pair(Hq, 0, i, j, -c)
    # ρ2: + ½ θ1y θ2z − ½ θ1z θ2y
    _pair(Hq, 1, 2, 6, 0.5)
    _pair(Hq, 1, 3, 5, -0.5)
    # ρ3 / ρ4: ∓ ½ θx θz at their node, ± (θ2x − θ1x)(θ2z − θ1z)/6
    _pair(Hq, 2, 1, 3, -0.5)
    _pair(Hq, 3, 4, 6, 0.5)
    for (k, sgn) in ((2, 1.0 / 6.0), (3, -1.0 / 6.0)):
        _pair(Hq, k, 4, 6, sgn)
        _pair(Hq, k, 4, 3, -sgn)
        _pair(Hq, k, 1, 6, -sgn)
        _pair(Hq, k, 1, 3, sgn)
    # ρ5 / ρ6: ± ½ θx θy at their node, ∓ (θ2x − θ1x)(θ2y − θ1y)/6
    _pair(Hq, 4, 1, 2, 0.5)
    _pair(Hq, 5, 4, 5, -0.5)
    for (k, sgn) in ((4, -1.0 / 6.0), (5, 1.0 / 6.0)):
        _pair(Hq, k, 4, 5, sgn)
        _pair(Hq, k, 4, 2, -sgn)
        _pair(Hq, k, 1, 5, -sgn)
        _pair(Hq, k, 1, 2, sgn)


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
    """Hl (7, 7) = [Gᵀ S G if material] + Σ σ_k Hq_k."""
    for i in range(7):
        for j in range(7):
            acc = 0.0
            for k in range(6):
                acc += sig[k] * Hq[k, i, j]
            if material:
                for k in range(6):
                    for m in range(6):
                        acc += G[k, i] * S[k, m] * G[m, j]
            Hl[i, j] = acc


@jit
def _sigma_from_resultants(s, e, sig):
    """σ (6,) conjugate to ρ from the resultants (N, Vy, Vz, T, My1, Mz1, My2, Mz2)."""
    sig[0] = s[e, 0]
    sig[1] = s[e, 3]
    sig[2] = -s[e, 4]
    sig[3] = s[e, 6]
    sig[4] = -s[e, 5]
    sig[5] = s[e, 7]


# --------------------------------------------------------------------------- transformation
@jit
def _cross_cols(a, B, scale, out):
    """out (3, 12) += scale · (a × B[:, j]) for every column j of B (3, 12)."""
    for j in range(12):
        out[0, j] += scale * (a[1] * B[2, j] - a[2] * B[1, j])
        out[1, j] += scale * (a[2] * B[0, j] - a[0] * B[2, j])
        out[2, j] += scale * (a[0] * B[1, j] - a[1] * B[0, j])


@jit
def _cross(a, b, out):
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@jit
def _transform(F, qa, th, l, h, g, fl, Hl, f, K, want_K, W, J, V):
    """Global force f (12,) and, if ``want_K``, its derivative K (12, 12) over
    z = (δx1, w1, δx2, w2), from the local force fl (7,) = (N, m̄1, m̄2) and the local
    Hessian Hl (7, 7). F: element frame as rows (r1, r2, r3); qa (2, 3) section y axes;
    th (2, 3) local rotations; W (_N_ROWS, 12), J (5, 3, 3), V (12, 3) work space."""
    r1 = F[0]
    r2 = F[1]
    r3 = F[2]
    N = fl[0]
    Jinv = J[0:2]
    for a in range(2):
        left_jacobian_inverse(th[a], Jinv[a])
    mu, M1, M2, Ms, Mxr, av, qr1, qr2, qm = V[0], V[1], V[2], V[3], V[4], V[5], V[6], V[7], V[8]
    Ma = V[1:3]
    qr = V[6:8]
    for a in range(2):
        for i in range(3):  # μ = J⁻ᵀ m̄
            mu[i] = Jinv[a, 0, i] * fl[1 + 3 * a] + Jinv[a, 1, i] * fl[2 + 3 * a] + Jinv[a, 2, i] * fl[3 + 3 * a]
        for i in range(3):  # M = E μ
            Ma[a, i] = F[0, i] * mu[0] + F[1, i] * mu[1] + F[2, i] * mu[2]
    tau = 0.0
    for i in range(3):
        Ms[i] = M1[i] + M2[i]
        qm[i] = 0.5 * (qa[0, i] + qa[1, i])
        tau += Ms[i] * r1[i]
    c = h * tau / g
    _cross(Ms, r1, Mxr)
    _cross(qa[0], r3, qr1)
    _cross(qa[1], r3, qr2)
    for i in range(3):
        av[i] = Mxr[i] / l - c * r3[i] / l
        fx = N * r1[i] - av[i]
        f[i] = -fx
        f[6 + i] = fx
        f[3 + i] = M1[i] - tau * qr1[i] / (2.0 * g)
        f[9 + i] = M2[i] - tau * qr2[i] / (2.0 * g)
    if not want_K:
        return
    W[:, :] = 0.0
    Dr1, WE, DqA, Dq, Dr3 = W[_DR1:_DR1 + 3], W[_WE:_WE + 3], W[_DQ1:_DQ1 + 6], W[_DQ:_DQ + 3], W[_DR3:_DR3 + 3]
    Dql, Dfl, DMA, DMs = W[_DQL:_DQL + 7], W[_DFL:_DFL + 7], W[_DM1:_DM1 + 6], W[_DMS:_DMS + 3]
    Tm, Tm2, Da, Db = W[_TMP:_TMP + 3], W[_TMP2:_TMP2 + 3], W[_DA:_DA + 3], W[_DB:_DB + 3]
    Dl, tw, Dh, Dg, Dtau, Dc = W[_DL], W[_TW], W[_DH], W[_DG], W[_DTAU], W[_DC]
    for k in range(3):
        Dl[k] = -r1[k]
        Dl[6 + k] = r1[k]
        # twist rate of the frame: tw·z = [½ Σ (q_a × r3)·w_a − h r3·δx21/l]/g
        tw[k] = h * r3[k] / (l * g)
        tw[6 + k] = -h * r3[k] / (l * g)
        tw[3 + k] = 0.5 * qr1[k] / g
        tw[9 + k] = 0.5 * qr2[k] / g
        for i in range(3):
            P = (1.0 if i == k else 0.0) - r1[i] * r1[k]
            Dr1[i, k] = -P / l
            Dr1[i, 6 + k] = P / l
    # frame spin WE = r1 × δx21/l + r1 (tw·z)
    H3 = J[2]
    hat(r1, H3)
    for i in range(3):
        for k in range(3):
            WE[i, k] = -H3[i, k] / l
            WE[i, 6 + k] = H3[i, k] / l
        for j in range(12):
            WE[i, j] += r1[i] * tw[j]
    # δq_a = w_a × q_a, δq = ½ (δq1 + δq2), δr3 = w_E × r3
    for a in range(2):
        hat(qa[a], H3)
        for i in range(3):
            for k in range(3):
                DqA[3 * a + i, 3 + 6 * a + k] = -H3[i, k]
    for i in range(3):
        for j in range(12):
            Dq[i, j] = 0.5 * (DqA[i, j] + DqA[3 + i, j])
    _cross_cols(r3, WE, -1.0, Dr3)
    for j in range(12):
        Dh[j] = 0.0
        Dg[j] = 0.0
        for i in range(3):
            Dh[j] += r1[i] * Dq[i, j] + qm[i] * Dr1[i, j]
            Dg[j] += r2[i] * Dq[i, j] - h * r3[i] * WE[i, j]
    # δθ̄_a = J⁻¹(θ̄_a) Eᵀ (w_a − w_E)
    for j in range(12):
        Dql[0, j] = Dl[j]
    for a in range(2):
        for i in range(3):
            for j in range(12):
                Tm[i, j] = -(F[i, 0] * WE[0, j] + F[i, 1] * WE[1, j] + F[i, 2] * WE[2, j])
            for k in range(3):
                Tm[i, 3 + 6 * a + k] += F[i, k]
        for i in range(3):
            for j in range(12):
                Dql[1 + 3 * a + i, j] = Jinv[a, i, 0] * Tm[0, j] + Jinv[a, i, 1] * Tm[1, j] + Jinv[a, i, 2] * Tm[2, j]
    for i in range(7):
        for j in range(12):
            acc = 0.0
            for k in range(7):
                acc += Hl[i, k] * Dql[k, j]
            Dfl[i, j] = acc
    # δM_a = w_E × M_a + E δμ_a, δμ_a = ∂(J⁻ᵀ m̄)/∂θ̄ δθ̄_a + J⁻ᵀ δm̄_a
    Lm = J[3]
    for a in range(2):
        left_jacobian_inverse_T_derivative(th[a], fl[1 + 3 * a:4 + 3 * a], Lm)
        for i in range(3):
            for j in range(12):
                acc = 0.0
                for k in range(3):
                    acc += Lm[i, k] * Dql[1 + 3 * a + k, j] + Jinv[a, k, i] * Dfl[1 + 3 * a + k, j]
                Tm2[i, j] = acc
        DM = DMA[3 * a:3 * a + 3]
        for i in range(3):
            for j in range(12):
                DM[i, j] = F[0, i] * Tm2[0, j] + F[1, i] * Tm2[1, j] + F[2, i] * Tm2[2, j]
        _cross_cols(Ma[a], WE, -1.0, DM)
    for i in range(3):
        for j in range(12):
            DMs[i, j] = DMA[i, j] + DMA[3 + i, j]
    for j in range(12):
        Dtau[j] = 0.0
        for i in range(3):
            Dtau[j] += r1[i] * DMs[i, j] + Ms[i] * Dr1[i, j]
        Dc[j] = (Dh[j] * tau + h * Dtau[j]) / g - h * tau * Dg[j] / (g * g)
    # δa for a = (Ms × r1)/l − c r3/l
    _cross_cols(r1, DMs, -1.0 / l, Da)
    _cross_cols(Ms, Dr1, 1.0 / l, Da)
    for i in range(3):
        for j in range(12):
            Da[i, j] += (-Mxr[i] * Dl[j] / (l * l) - r3[i] * Dc[j] / l + c * r3[i] * Dl[j] / (l * l)
                         - c * Dr3[i, j] / l)
    # translational rows: ±[δ(N r1) − δa]
    for i in range(3):
        for j in range(12):
            v = r1[i] * Dfl[0, j] + N * Dr1[i, j] - Da[i, j]
            K[6 + i, j] = v
            K[i, j] = -v
    # rotational rows: δM_a − δb_a, b_a = τ (q_a × r3)/(2g)
    for a in range(2):
        for i in range(3):
            for j in range(12):
                Db[i, j] = (qr[a, i] * Dtau[j] / (2.0 * g) - tau * qr[a, i] * Dg[j] / (2.0 * g * g))
        _cross_cols(r3, DqA[3 * a:3 * a + 3], -tau / (2.0 * g), Db)
        _cross_cols(qa[a], Dr3, tau / (2.0 * g), Db)
        for i in range(3):
            for j in range(12):
                K[3 + 6 * a + i, j] = DMA[3 * a + i, j] - Db[i, j]


# --------------------------------------------------------------------------- driver
@jit
def _evaluate(X, u, R, p, s_in, f, K, s_out, en, mode):
    """Shared element loop. mode 0: force; 1: force and tangent; 2: resultants;
    3: geometric stiffness from s_in; 4: strain energy."""
    R0 = np.empty((3, 3))
    F = np.empty((3, 3))
    RR = np.empty((2, 3, 3))
    qa = np.empty((2, 3))
    th = np.empty((2, 3))
    Lq = np.empty((6, 7))
    Hq = np.empty((6, 7, 7))
    S = np.empty((6, 6))
    qv = np.empty(7)
    rho = np.empty(6)
    G = np.empty((6, 7))
    sig = np.empty(6)
    fl = np.empty(7)
    Hl = np.empty((7, 7))
    W = np.empty((_N_ROWS, 12))
    J = np.empty((5, 3, 3))
    V = np.empty((12, 3))
    fe = np.empty(12)
    for e in range(X.shape[0]):
        l0, l, ul, h, g = _kinematics(X, u, R, p, e, R0, F, qa, th, RR)
        _local(ul, th, l0, Lq, Hq, qv, rho, G)
        if mode == 3:
            _sigma_from_resultants(s_in, e, sig)
        else:
            _section_matrix(p, e, l0, S)
            for k in range(6):
                acc = 0.0
                for m in range(6):
                    acc += S[k, m] * rho[m]
                sig[k] = acc
        if mode == 2:
            s_out[e, 0] = sig[0]
            s_out[e, 3] = sig[1]
            s_out[e, 4] = -sig[2]
            s_out[e, 6] = sig[3]
            s_out[e, 5] = -sig[4]
            s_out[e, 7] = sig[5]
            s_out[e, 1] = (s_out[e, 5] + s_out[e, 7]) / l
            s_out[e, 2] = -(s_out[e, 4] + s_out[e, 6]) / l
        elif mode == 4:
            acc = 0.0
            for k in range(6):
                acc += sig[k] * rho[k]
            en[e] = 0.5 * acc
        elif mode == 0:
            _local_force(G, sig, fl)
            _transform(F, qa, th, l, h, g, fl, Hl, f[e], K[0], False, W, J, V)
        else:
            _local_force(G, sig, fl)
            _local_hessian(G, S, Hq, sig, mode == 1, Hl)
            if mode == 1:
                _transform(F, qa, th, l, h, g, fl, Hl, f[e], K[e], True, W, J, V)
            else:
                _transform(F, qa, th, l, h, g, fl, Hl, fe, K[e], True, W, J, V)


# --------------------------------------------------------------------------- kernels
@jit
def internal_force(X, u, R, p, f):
    """Internal nodal forces f (n_el, 12) = dV/d(δx1, w1, δx2, w2): forces and moments
    conjugate to spatial spins. X (n_el, 2, 3), u (n_el, 12) (rotational slots ignored),
    R (n_el, 2, 3, 3) nodal rotations, p (n_el, 11 or 13) properties."""
    dummy = np.empty((1, 12, 12))
    _evaluate(X, u, R, p, np.empty((0, 8)), f, dummy, np.empty((0, 8)), np.empty(0), 0)


@jit
def tangent(X, u, R, p, f, K):
    """Internal force f (n_el, 12) and its exact derivative K (n_el, 12, 12) with respect
    to (δx1, w1, δx2, w2) (spins applied multiplicatively, R ← exp(δŵ) R; not symmetric
    away from moment-free states)."""
    _evaluate(X, u, R, p, np.empty((0, 8)), f, K, np.empty((0, 8)), np.empty(0), 1)


@jit
def resultants(X, u, R, p, s):
    """Section resultants s (n_el, 8) = (N, Vy, Vz, T, My1, Mz1, My2, Mz2) in the element
    frame (conventions in the module docstring)."""
    _evaluate(X, u, R, p, np.empty((0, 8)), np.empty((0, 12)), np.empty((0, 12, 12)), s, np.empty(0), 2)


@jit
def geometric_stiffness(X, u, R, p, s, K):
    """Stress-dependent part K (n_el, 12, 12) of the tangent at configuration (u, R) for
    the resultants s (n_el, 8) (linear in s; Vy, Vz unused): co-rotational terms of the
    local forces Gᵀσ plus the local geometric Hessian Σ σ_k ∂²ρ_k."""
    _evaluate(X, u, R, p, s, np.empty((0, 12)), K, np.empty((0, 8)), np.empty(0), 3)


@jit
def strain_energy(X, u, R, p, en):
    """Strain energy en (n_el,) = ½ ρᵀ S ρ."""
    _evaluate(X, u, R, p, np.empty((0, 8)), np.empty((0, 12)), np.empty((0, 12, 12)), np.empty((0, 8)), en, 4)


@jit
def mass(X, u, R, p, kind, M):
    """Mass matrix M (n_el, 12, 12) of kind 0 lumped, 1 consistent (element frame of the
    configuration), 2 invariant translations + lumped rotary inertia; see the module
    docstring. Rotational rows/columns refer to spatial angular velocities."""
    if kind != LUMPED and kind != CONSISTENT and kind != INVARIANT:
        raise ValueError("beam3d mass: kind must be 0 (lumped), 1 (consistent) or 2 (invariant)")
    R0 = np.empty((3, 3))
    F = np.empty((3, 3))
    RR = np.empty((2, 3, 3))
    qa = np.empty((2, 3))
    th = np.empty((2, 3))
    Ml = np.empty((12, 12))
    for e in range(X.shape[0]):
        l0, l, ul, h, g = _kinematics(X, u, R, p, e, R0, F, qa, th, RR)
        for i in range(12):
            for j in range(12):
                M[e, i, j] = 0.0
        if kind == CONSISTENT:
            _consistent_local(p, e, l0, Ml)
            # M = T Ml Tᵀ with T = diag(E, E, E, E), E[i, k] = F[k, i]
            for A in range(4):
                for B in range(4):
                    for i in range(3):
                        for j in range(3):
                            acc = 0.0
                            for k in range(3):
                                for m in range(3):
                                    acc += F[k, i] * Ml[3 * A + k, 3 * B + m] * F[m, j]
                            M[e, 3 * A + i, 3 * B + j] = acc
            continue
        mA = p[e, 4] * l0
        diag, off = (0.5 * mA, 0.0) if kind == LUMPED else (mA / 3.0, mA / 6.0)
        for i in range(3):
            M[e, i, i] = diag
            M[e, 6 + i, 6 + i] = diag
            M[e, i, 6 + i] = off
            M[e, 6 + i, i] = off
        Q = RR[0]
        for a in range(2):
            for i in range(3):
                for j in range(3):
                    Q[i, j] = R[e, a, i, 0] * R0[0, j] + R[e, a, i, 1] * R0[1, j] + R[e, a, i, 2] * R0[2, j]
            for i in range(3):
                for j in range(3):
                    acc = 0.0
                    for k in range(3):
                        acc += Q[i, k] * p[e, 5 + k] * Q[j, k]
                    M[e, 6 * a + 3 + i, 6 * a + 3 + j] = 0.5 * l0 * acc


@jit
def _consistent_local(p, e, L, Ml):
    """Consistent mass Ml (12, 12) in element-frame DOFs (u, v, w, θx, θy, θz) per node:
    linear axial (ρA) and torsion (ρIp), Hermite-cubic bending with rotary inertia
    ρA L/420 [...] + ρI/(30 L) [...] for (v, θz) and, with θy = −w′, for (w, θy)."""
    for i in range(12):
        for j in range(12):
            Ml[i, j] = 0.0
    mA = p[e, 4] * L
    for (i, c) in ((0, mA), (3, p[e, 5] * L)):
        Ml[i, i] = c / 3.0
        Ml[i + 6, i + 6] = c / 3.0
        Ml[i, i + 6] = c / 6.0
        Ml[i + 6, i] = c / 6.0
    mt = mA / 420.0
    T = ((156.0, 22.0 * L, 54.0, -13.0 * L),
         (22.0 * L, 4.0 * L * L, 13.0 * L, -3.0 * L * L),
         (54.0, 13.0 * L, 156.0, -22.0 * L),
         (-13.0 * L, -3.0 * L * L, -22.0 * L, 4.0 * L * L))
    Rr = ((36.0, 3.0 * L, -36.0, 3.0 * L),
          (3.0 * L, 4.0 * L * L, -3.0 * L, -L * L),
          (-36.0, -3.0 * L, 36.0, -3.0 * L),
          (3.0 * L, -L * L, -3.0 * L, 4.0 * L * L))
    sign = (1.0, -1.0, 1.0, -1.0)
    idx_v = (1, 5, 7, 11)
    idx_w = (2, 4, 8, 10)
    mrz = p[e, 7] / (30.0 * L)
    mry = p[e, 6] / (30.0 * L)
    for a in range(4):
        for b in range(4):
            Ml[idx_v[a], idx_v[b]] = mt * T[a][b] + mrz * Rr[a][b]
            Ml[idx_w[a], idx_w[b]] = sign[a] * sign[b] * (mt * T[a][b] + mry * Rr[a][b])


# --------------------------------------------------------------------------- energy-conserving mid-point force
@jit
def _local_state(X, u, R, p, e, R0, F, qa, th, RR, Lq, Hq, qv, rho, G, S, sig, fl):
    """Local strains, stresses and local force fl (7,) of element ``e`` at (u, R); returns
    (V, l0, l, h, g) with V the strain energy."""
    l0, l, ul, h, g = _kinematics(X, u, R, p, e, R0, F, qa, th, RR)
    _local(ul, th, l0, Lq, Hq, qv, rho, G)
    _section_matrix(p, e, l0, S)
    V = 0.0
    for k in range(6):
        acc = 0.0
        for m in range(6):
            acc += S[k, m] * rho[m]
        sig[k] = acc
        V += 0.5 * acc * rho[k]
    _local_force(G, sig, fl)
    return V, l0, l, h, g


@jit
def midpoint_force_oriented(X, u0, R0n, u1, R1n, um, Rm, psi, D, p, f, K):
    """Energy- and momentum-conserving algorithmic force of the step (u0, R0n) → (u1, R1n).

    The step increment of one element is Δq = (Δx1, ψ1, Δx2, ψ2) (12,): translation
    increments and the Cayley vectors ψ_a of the nodal rotation increments
    (R1 = cay(ψ) R0). The force is a Gonzalez-type discrete gradient built on the
    co-rotational structure::

        f̄ = Tᵀ(q_m) f̄_l + c G w,   f̄_l = ½ (f_l(q0) + f_l(q1)),
        c = (V(q1) − V(q0) − Tᵀ(q_m) f̄_l·Δq) / (w·G w)

    f_l = (N, m̄1, m̄2) the local force (invariant under rigid motion), Tᵀ(q_m) the
    co-rotational transformation at the mid configuration q_m = (um, Rm) (um the mean
    translations, Rm the geodesic mid rotations), G = diag(1, l0², 1, l0²) a metric, and
    w = Δq minus its G-orthogonal projection onto the six rigid-body modes at the mid
    positions (translations; e × x_m on positions and e on rotations). Both parts are
    self-equilibrated at the mid positions (zero resultant force and moment), so the
    internal forces keep linear and angular momentum; f̄·Δq = V(q1) − V(q0) exactly; a
    rigid step has w = 0 and f̄_l unchanged, so a stress-free rigid motion gives f̄ = 0 at
    any step size. c = 0 when w·G w ≤ 1e-20 Δq·G Δq (a rigid step to round-off) or
    when the mismatch is below 1e-13 (|V0| + |V1| + Σ|f_b,i Δq_i|) (the rounding level of
    the step's work; this also leaves out the correction where it is not needed); f_b·Δq is
    evaluated as f_b·w (equal, since f_b is orthogonal to the rigid modes, and free of the
    rounding of a large rigid part of the step).

    Arrays: X (n_el, 2, 3); u0, u1, um (n_el, 12) (rotational slots ignored); R0n, R1n,
    Rm (n_el, 2, 3, 3); psi (n_el, 2, 3); D (n_el, 2, 3, 3) the derivative of the mid
    spins with respect to ψ_a (the translational one is ½); p properties. Writes f
    (n_el, 12) and K (n_el, 12, 12) = ∂f̄/∂Δq without the derivative of the correction
    term (the mid-point tangent, enough for Newton to converge).
    """
    R0 = np.empty((3, 3))
    F = np.empty((3, 3))
    RR = np.empty((2, 3, 3))
    qa = np.empty((2, 3))
    th = np.empty((2, 3))
    Lq = np.empty((6, 7))
    Hq = np.empty((6, 7, 7))
    S = np.empty((6, 6))
    qv = np.empty(7)
    rho = np.empty(6)
    G = np.empty((6, 7))
    sig0 = np.empty(6)
    sig1 = np.empty(6)
    fl0 = np.empty(7)
    fl1 = np.empty(7)
    flm = np.empty(7)
    Hl = np.empty((7, 7))
    W = np.empty((_N_ROWS, 12))
    J = np.empty((5, 3, 3))
    V = np.empty((12, 3))
    Km = np.empty((12, 12))
    Km2 = np.empty((12, 12))
    Hl1 = np.empty((7, 7))
    Dql1 = np.empty((7, 12))
    HD = np.empty((7, 12))
    Tt = np.empty((12, 7))
    Kmat = np.empty((12, 12))
    unit = np.empty(7)
    r1one = np.empty(3)
    col = np.empty(12)
    f1 = np.empty(12)
    gw = np.empty(12)
    dnum = np.empty(12)
    P = np.empty((12, 12))
    AB = np.empty((6, 12))
    dB = np.empty((12, 6))
    rhs = np.empty(6)
    dq = np.empty(12)
    wt = np.empty(12)
    B = np.zeros((12, 6))
    A = np.empty((6, 6))
    b = np.empty(6)
    xm = np.empty((2, 3))
    for e in range(X.shape[0]):
        V0, l0, ln, _, _ = _local_state(X, u0, R0n, p, e, R0, F, qa, th, RR, Lq, Hq, qv, rho, G, S, sig0, fl0)
        V1, _, l1, h1, g1 = _local_state(X, u1, R1n, p, e, R0, F, qa, th, RR, Lq, Hq, qv, rho, G, S, sig1, fl1)
        for k in range(3):
            r1one[k] = F[0, k]
        _local_hessian(G, S, Hq, sig1, True, Hl1)
        # f1 = ∂V/∂(δx, δw) at q1 and the local-coordinate variation Dql1 (7, 12) there
        _transform(F, qa, th, l1, h1, g1, fl1, Hl1, f1, Km, True, W, J, V)
        for i in range(7):
            for j in range(12):
                Dql1[i, j] = W[_DQL + i, j]
        for k in range(7):
            flm[k] = 0.5 * (fl0[k] + fl1[k])
        # mid configuration: f_b = Tᵀ(q_m) f̄_l; Km its derivative at fixed f̄_l (Hl = 0)
        _, l, ul, h, g = _kinematics(X, um, Rm, p, e, R0, F, qa, th, RR)
        # axial force along the mid chord as N̄ x21_m/l_av (Crisfield–Shi): its work is
        # N̄ (l1 − l0) exactly, whatever the rigid turn of the step
        lav = 0.5 * (ln + l1)
        sN = l / lav
        N_avg = flm[0]
        flm[0] *= sN
        for i in range(7):
            for j in range(7):
                Hl[i, j] = 0.0
        _transform(F, qa, th, l, h, g, flm, Hl, f[e], Km, True, W, J, V)
        # Tᵀ(q_m) (12, 7) column by column (the transformation is linear in the local force)
        for i in range(7):
            for k in range(7):
                unit[k] = 1.0 if k == i else 0.0
            _transform(F, qa, th, l, h, g, unit, Hl, col, Km2, False, W, J, V)
            for r in range(12):
                Tt[r, i] = col[r]
        # material part ½ Tᵀ(q_m) H1 Dql1 ∂q1/∂Δq (∂w1/∂ψ = T(ψ)), added to Km·D below
        for i in range(7):
            for j in range(12):
                acc = 0.0
                for k in range(7):
                    acc += Hl1[i, k] * Dql1[k, j]
                HD[i, j] = acc * (sN if i == 0 else 1.0)
        for r in range(12):
            for j in range(12):
                acc = 0.0
                for i in range(7):
                    acc += Tt[r, i] * HD[i, j]
                Kmat[r, j] = 0.5 * acc
        # derivative of the factor l_m/l_av (translations only)
        for k in range(3):
            dsk = 0.5 * (F[0, k] * lav - l * r1one[k]) / (lav * lav)
            for r in range(12):
                Kmat[r, 6 + k] += Tt[r, 0] * N_avg * dsk
                Kmat[r, k] -= Tt[r, 0] * N_avg * dsk
        # step increment and metric
        for a in range(2):
            for k in range(3):
                dq[6 * a + k] = u1[e, 6 * a + k] - u0[e, 6 * a + k]
                dq[6 * a + 3 + k] = psi[e, a, k]
                wt[6 * a + k] = 1.0
                wt[6 * a + 3 + k] = l0 * l0
                xm[a, k] = X[e, a, k] + um[e, 6 * a + k]
        # rigid modes about the mid centroid: columns 0-2 translations, 3-5 rotations
        for k in range(3):
            half_chord = 0.5 * (xm[1, k] - xm[0, k])
            xm[0, k] = -half_chord
            xm[1, k] = half_chord
        for a in range(2):
            for k in range(3):
                for m in range(6):
                    B[6 * a + k, m] = 0.0
                    B[6 * a + 3 + k, m] = 0.0
                B[6 * a + k, k] = 1.0
                B[6 * a + 3 + k, 3 + k] = 1.0
            # e_m × r: column 3 + m
            B[6 * a + 1, 3] = -xm[a, 2]
            B[6 * a + 2, 3] = xm[a, 1]
            B[6 * a + 0, 4] = xm[a, 2]
            B[6 * a + 2, 4] = -xm[a, 0]
            B[6 * a + 0, 5] = -xm[a, 1]
            B[6 * a + 1, 5] = xm[a, 0]
        for i in range(6):
            acc = 0.0
            for r in range(12):
                acc += B[r, i] * wt[r] * dq[r]
            b[i] = acc
            for j in range(6):
                acc = 0.0
                for r in range(12):
                    acc += B[r, i] * wt[r] * B[r, j]
                A[i, j] = acc
        alpha = np.linalg.solve(A, b)
        wGw = 0.0
        qGq = 0.0
        work = 0.0
        awork = 0.0
        for r in range(12):
            acc = dq[r]
            for i in range(6):
                acc -= B[r, i] * alpha[i]
            gw[r] = wt[r] * acc  # G w
            wGw += gw[r] * acc
            qGq += wt[r] * dq[r] * dq[r]
            # f_b is orthogonal to the rigid modes, so f_b·Δq = f_b·w: computed on w it is
            # free of the rounding of the (large) rigid part of the step
            work += f[e, r] * acc
            awork += abs(f[e, r] * dq[r])
        # base tangent K = Km · ∂q_m/∂Δq + Kmat · ∂q1/∂Δq
        for a in range(2):
            ps0, ps1, ps2 = psi[e, a, 0], psi[e, a, 1], psi[e, a, 2]
            den = 1.0 + 0.25 * (ps0 * ps0 + ps1 * ps1 + ps2 * ps2)
            Tp = J[4]
            Tp[0, 0], Tp[0, 1], Tp[0, 2] = 1.0 / den, -0.5 * ps2 / den, 0.5 * ps1 / den
            Tp[1, 0], Tp[1, 1], Tp[1, 2] = 0.5 * ps2 / den, 1.0 / den, -0.5 * ps0 / den
            Tp[2, 0], Tp[2, 1], Tp[2, 2] = -0.5 * ps1 / den, 0.5 * ps0 / den, 1.0 / den
            for i in range(12):
                for k in range(3):
                    K[e, i, 6 * a + k] = 0.5 * Km[i, 6 * a + k] + Kmat[i, 6 * a + k]
                for k in range(3):
                    acc = 0.0
                    for m in range(3):
                        acc += Km[i, 6 * a + 3 + m] * D[e, a, m, k] + Kmat[i, 6 * a + 3 + m] * Tp[m, k]
                    K[e, i, 6 * a + 3 + k] = acc
        # no correction for a rigid step or when the energy mismatch is at round-off
        # (its quotient by a small w·G w would only amplify the rounding of V and f_b·Δq)
        num = V1 - V0 - work
        if wGw <= 1e-20 * qGq:
            continue
        c = num / wGw
        # ∂num/∂Δq = ∂V1/∂Δq − f_b − K_bᵀ Δq, with ∂V1/∂ψ = T(ψ)ᵀ f1_w
        for a in range(2):
            ps0, ps1, ps2 = psi[e, a, 0], psi[e, a, 1], psi[e, a, 2]
            den = 1.0 + 0.25 * (ps0 * ps0 + ps1 * ps1 + ps2 * ps2)
            m0, m1, m2 = f1[6 * a + 3], f1[6 * a + 4], f1[6 * a + 5]
            # Tᵀ m = (m − ½ ψ × m)/den
            dnum[6 * a + 3] = (m0 - 0.5 * (ps1 * m2 - ps2 * m1)) / den
            dnum[6 * a + 4] = (m1 - 0.5 * (ps2 * m0 - ps0 * m2)) / den
            dnum[6 * a + 5] = (m2 - 0.5 * (ps0 * m1 - ps1 * m0)) / den
            for k in range(3):
                dnum[6 * a + k] = f1[6 * a + k]
        for j in range(12):
            acc = 0.0
            for r in range(12):
                acc += K[e, r, j] * dq[r]
            dnum[j] -= f[e, j] + acc
        for r in range(12):
            f[e, r] += c * gw[r]
        # ∂w/∂Δq = I − P (P = B A⁻¹ Bᵀ G) plus the motion of the rigid modes with the mid
        # chord d = x_m2 − x_m1 (∂d/∂Δx_2 = −∂d/∂Δx_1 = ½ I): ∂w = −∂B α − B ∂α,
        # ∂α = A⁻¹ (∂Bᵀ G Δq − (∂Bᵀ G B + Bᵀ G ∂B) α)
        for i in range(6):
            for r in range(12):
                AB[i, r] = B[r, i] * wt[r]
        ABs = np.linalg.solve(A, AB)
        for r in range(12):
            for j in range(12):
                acc = 0.0
                for i in range(6):
                    acc += B[r, i] * ABs[i, j]
                P[r, j] = (1.0 if r == j else 0.0) - acc
        for k in range(3):
            for r in range(12):
                for m in range(6):
                    dB[r, m] = 0.0
            for a in range(2):
                sgn = -0.5 if a == 0 else 0.5  # ∂r_a/∂d = ∓½ I
                for m in range(3):
                    # ∂(e_m × r_a)/∂d_k = sgn e_m × e_k
                    if m == k:
                        continue
                    n3 = 3 - m - k
                    eps = 1.0 if (m, k, n3) in ((0, 1, 2), (1, 2, 0), (2, 0, 1)) else -1.0
                    dB[6 * a + n3, 3 + m] = sgn * eps
            for i in range(6):
                acc = 0.0
                for r in range(12):
                    acc += dB[r, i] * wt[r] * dq[r]
                rhs[i] = acc
                for j in range(6):
                    acc2 = 0.0
                    for r in range(12):
                        acc2 += (dB[r, i] * wt[r] * B[r, j] + B[r, i] * wt[r] * dB[r, j])
                    rhs[i] -= acc2 * alpha[j]
            dalpha = np.linalg.solve(A, rhs)
            for r in range(12):
                acc = 0.0
                for i in range(6):
                    acc += dB[r, i] * alpha[i] + B[r, i] * dalpha[i]
                # d moves with +½ Δx_2 and −½ Δx_1
                P[r, 6 + k] -= 0.5 * acc
                P[r, k] += 0.5 * acc
        # K += G w ⊗ ∂c + c G ∂w,  ∂c = (∂num − 2 c (G w)ᵀ ∂w)/wGw
        for j in range(12):
            acc = 0.0
            for r in range(12):
                acc += gw[r] * P[r, j]
            dc = (dnum[j] - 2.0 * c * acc) / wGw
            for i in range(12):
                K[e, i, j] += gw[i] * dc + c * wt[i] * P[i, j]


# --------------------------------------------------------------------------- specs
def _properties(material, section, name):
    for key, val in (("A", section.A), ("J", section.J)):
        if val is None:
            raise ValueError(f"section needs {key} for {name}")
    Iy, Iz = section.second_moment_y, section.second_moment_z
    if Iy is None:
        raise ValueError(f"section needs Iy (or I) for {name}")
    if Iz is None:
        raise ValueError(f"section needs Iz (or I) for {name}")
    G = material.shear_modulus
    if G is None:
        raise ValueError(f"material needs G (or nu) for {name}")
    rho = 0.0 if material.rho is None else material.rho
    Ip = section.Ip if section.Ip is not None else Iy + Iz
    v = getattr(section, "orientation", None)
    v = (0.0, 0.0, 0.0) if v is None else tuple(float(c) for c in v)
    if len(v) != 3:
        raise ValueError(f"section orientation must have 3 components for {name}, got {len(v)}")
    E = material.E
    return {"EA": E * section.A, "GJ": G * section.J, "EIy": E * Iy, "EIz": E * Iz,
            "rhoA": rho * section.A, "rhoIp": rho * Ip, "rhoIy": rho * Iy, "rhoIz": rho * Iz,
            "vx": v[0], "vy": v[1], "vz": v[2]}


def properties_euler_bernoulli(material, section):
    """EA = E·A, GJ = G·J, EIy = E·Iy, EIz = E·Iz, rhoA = ρ·A, rhoIp = ρ·Ip (Ip defaults to
    Iy + Iz), rhoIy = ρ·Iy, rhoIz = ρ·Iz and the section y direction (vx, vy, vz) from the
    optional ``section.orientation`` (zeros: default orientation) for ``beam3d``."""
    return _properties(material, section, "beam3d")


def properties_timoshenko(material, section):
    """The ``beam3d`` properties plus GAy = GAz = G·k·A (k the section's shear_factor) for
    ``beam3d_timoshenko``."""
    out = _properties(material, section, "beam3d_timoshenko")
    if section.shear_factor is None:
        raise ValueError("section needs shear_factor for beam3d_timoshenko")
    GA = material.shear_modulus * section.shear_factor * section.A
    out["GAy"] = GA
    out["GAz"] = GA
    return out


KERNELS = ElementKernels(internal_force=internal_force, tangent=tangent, resultants=resultants,
                         geometric_stiffness=geometric_stiffness, strain_energy=strain_energy, mass=mass,
                         midpoint_force=midpoint_force_oriented)

PARAMS = ("EA", "GJ", "EIy", "EIz", "rhoA", "rhoIp", "rhoIy", "rhoIz", "vx", "vy", "vz")
_COMMON = dict(cell_type="line", n_nodes=2, dim=3, node_dofs=("ux", "uy", "uz", "rx", "ry", "rz"),
               resultant_names=("N", "Vy", "Vz", "T", "My1", "Mz1", "My2", "Mz2"), kernels=KERNELS,
               constant_mass=(), oriented=True, defaults={"vx": 0.0, "vy": 0.0, "vz": 0.0},
               extra={"rotary_kinds": (LUMPED, INVARIANT)})

SPECS = {
    "beam3d": ElementSpec(name="beam3d", params=PARAMS, properties=properties_euler_bernoulli,
                          description="3-D co-rotational Euler–Bernoulli beam with second-order "
                                      "bending–torsion refinement (Battini–Pacoste frame, Meijaard strains)",
                          **_COMMON),
    "beam3d_timoshenko": ElementSpec(name="beam3d_timoshenko", params=PARAMS + ("GAy", "GAz"),
                                     properties=properties_timoshenko,
                                     description="3-D co-rotational Timoshenko beam (shear-flexible, "
                                                 "locking-free) with second-order refinement",
                                     **_COMMON),
}
