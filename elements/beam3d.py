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
  bending with rotary inertia ∫ρI N′ᵀN′) of length l0, in the current element frame E;
  beam3d_timoshenko interpolates each bending plane as its exact stiffness does
  (elements.timoshenko_mass: the rotary inertia goes with the section rotation).
- 2 invariant: translations ρA l0/6 [[2, 1], [1, 2]]⊗I₃ (rotation-invariant, constant)
  plus the lumped nodal rotary inertia of kind 0.

In 3-D the rotary inertia of a section turns with the section, so no kind is constant
unless rhoIp = rhoIy = rhoIz (e.g. all zero): ``constant_mass`` is empty. Kinds 0 and 2
split into a constant translational mass and nodal rigid-body inertias (body frame: the
rotational block at R = I), which is how the energy-conserving dynamics integrates them
(``spec.rotary_kinds``, femb.solvers.dynamics.midpoint3d).

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
from femb.core.rotations import (cayley_spin_jacobian, hat, left_jacobian_inverse, left_jacobian_inverse_T_derivative, log_so3)
from femb.core.rotations import cayley as _cayley_matrix

from .base import CONSISTENT, INVARIANT, LUMPED, ElementKernels, ElementSpec
from .timoshenko_mass import bending_mass

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
def _scratch():
    """Work arrays of one element evaluation, shared by the static and mid-point drivers:
    R0, F (3, 3); RR (2, 3, 3); qa, th (2, 3); Lq (6, 7); Hq (6, 7, 7); S (6, 6); qv (7,);
    rho (6,); G (6, 7); sig (6,); fl (7,); Hl (7, 7) zeroed; W (_N_ROWS, 12); J (5, 3, 3);
    V (12, 3); an element force (12,)."""
    return (np.empty((3, 3)), np.empty((3, 3)), np.empty((2, 3, 3)), np.empty((2, 3)), np.empty((2, 3)),
            np.empty((6, 7)), np.empty((6, 7, 7)), np.empty((6, 6)), np.empty(7), np.empty(6), np.empty((6, 7)),
            np.empty(6), np.empty(7), np.zeros((7, 7)), np.empty((_N_ROWS, 12)), np.empty((5, 3, 3)),
            np.empty((12, 3)), np.empty(12))


@jit
def _evaluate(X, u, R, p, s_in, f, K, s_out, en, mode):
    """Shared element loop. mode 0: force; 1: force and tangent; 2: resultants;
    3: geometric stiffness from s_in; 4: strain energy."""
    R0, F, RR, qa, th, Lq, Hq, S, qv, rho, G, sig, fl, Hl, W, J, V, fe = _scratch()
    want_K = mode != 0  # a run-time flag: callees are compiled once, not per literal
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
            _transform(F, qa, th, l, h, g, fl, Hl, f[e], K[0], want_K, W, J, V)
        else:
            _local_force(G, sig, fl)
            _local_hessian(G, S, Hq, sig, mode == 1, Hl)
            if mode == 1:
                _transform(F, qa, th, l, h, g, fl, Hl, f[e], K[e], want_K, W, J, V)
            else:
                _transform(F, qa, th, l, h, g, fl, Hl, fe, K[e], want_K, W, J, V)


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
    ρA L/420 [...] + ρI/(30 L) [...] for (v, θz) and, with θy = −w′, for (w, θy);
    beam3d_timoshenko: the Timoshenko bending mass of elements.timoshenko_mass per plane."""
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
    if p.shape[1] == N_PARAMS_TIMOSHENKO:
        # Φy = 12 EIz/(GAy L²) for (v, θz), Φz = 12 EIy/(GAz L²) for (w, −θy)
        B = np.empty((4, 4))
        bending_mass(p[e, 4], p[e, 7], L, 12.0 * p[e, 3] / (p[e, 11] * L * L), B)
        for a in range(4):
            for b in range(4):
                Ml[idx_v[a], idx_v[b]] = B[a, b]
        bending_mass(p[e, 4], p[e, 6], L, 12.0 * p[e, 2] / (p[e, 12] * L * L), B)
        for a in range(4):
            for b in range(4):
                Ml[idx_w[a], idx_w[b]] = sign[a] * sign[b] * B[a, b]
        return
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
def _mid_scratch(n_p):
    """Work arrays of the invariant energy (``_invariant_energy``) of one element:
    Xt (1, 2, 3), ut (1, 12), Rt (1, 2, 3, 3), pt (1, n_p), Kd (12, 12), C, T3 (3, 3),
    vec (4, 3) and, for its Hessian, A (6, 13), HW (6, 6), HA (6, 13)."""
    return (np.empty((1, 2, 3)), np.empty((1, 12)), np.empty((1, 2, 3, 3)), np.empty((1, n_p)),
            np.empty((12, 12)), np.empty((3, 3)), np.empty((3, 3)), np.empty((4, 3)),
            np.empty((6, 13)), np.empty((6, 6)), np.empty((6, 13)))


@jit
def _invariant_energy(pi, order, R0, F, qa, th, RR, Lq, Hq, qv, rho, G, S, sig, fl, Hl, fcr, W, J, V, mw, grad, Hpi):
    """Energy Ṽ(π) of one element as a function of its invariants π = (y, P, λ) (13,),
    its gradient grad (13,) = ∂Ṽ/∂π (``order`` ≥ 1) and its Hessian Hpi (13, 13) = ∂²Ṽ/∂π²
    (``order`` 2); returns Ṽ.

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
    pt (1, n_p) hold the element's reference positions and properties; R0 is its reference
    triad (filled by the call).
    """
    Xt, ut, Rt, pt, Kd, C, T3, vec, A, HW, HA = mw
    cv, fy, m, mu = vec[0], vec[1], vec[2], vec[3]
    tau = 1.0 + pi[3] + pi[7] + pi[11]
    cv[0] = 2.0 * (pi[3 + 7] - pi[3 + 5]) / tau
    cv[1] = 2.0 * (pi[3 + 2] - pi[3 + 6]) / tau
    cv[2] = 2.0 * (pi[3 + 3] - pi[3 + 1]) / tau
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
    _transform(F, qa, th, l, h, g, fl, Hl, fcr, Kd, order == 2, W, J, V)
    # back to the frame of node 1: f_ξ = R0ᵀ f_x2, m = R0ᵀ f_w2
    for k in range(3):
        fy[k] = R0[0, k] * fcr[6] + R0[1, k] * fcr[7] + R0[2, k] * fcr[8]
        m[k] = R0[0, k] * fcr[9] + R0[1, k] * fcr[10] + R0[2, k] * fcr[11]
    # ξ = √λ ŷ: ∂Ṽ/∂y = (√λ/|y|)(I − ŷŷᵀ) f_ξ, ∂Ṽ/∂λ = ŷ·f_ξ/(2√λ)
    yf = (pi[0] * fy[0] + pi[1] * fy[1] + pi[2] * fy[2]) / ny
    for k in range(3):
        grad[k] = sl / ny * (fy[k] - yf * pi[k] / ny)
    grad[12] = yf / (2.0 * sl)
    den = 1.0 + 0.25 * (cv[0] * cv[0] + cv[1] * cv[1] + cv[2] * cv[2])
    mu[0] = (m[0] - 0.5 * (cv[1] * m[2] - cv[2] * m[1])) / den  # μ = T(c)ᵀ m
    mu[1] = (m[1] - 0.5 * (cv[2] * m[0] - cv[0] * m[2])) / den
    mu[2] = (m[2] - 0.5 * (cv[0] * m[1] - cv[1] * m[0])) / den
    cm = (cv[0] * mu[0] + cv[1] * mu[1] + cv[2] * mu[2]) / tau
    # ∂Ṽ/∂P = (2/τ) μ̂ − (c·μ/τ) I
    grad[3 + 0], grad[3 + 1], grad[3 + 2] = -cm, -2.0 * mu[2] / tau, 2.0 * mu[1] / tau
    grad[3 + 3], grad[3 + 4], grad[3 + 5] = 2.0 * mu[2] / tau, -cm, -2.0 * mu[0] / tau
    grad[3 + 6], grad[3 + 7], grad[3 + 8] = -2.0 * mu[1] / tau, 2.0 * mu[0] / tau, -cm
    if order < 2:
        return Ve
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
            if bi == 1:  # c rows: left factor Tᵀ
                for j in range(3):
                    col = 3 * bj + j
                    a0 = C[0, 0] * HW[3, col] + C[1, 0] * HW[4, col] + C[2, 0] * HW[5, col]
                    a1 = C[0, 1] * HW[3, col] + C[1, 1] * HW[4, col] + C[2, 1] * HW[5, col]
                    a2 = C[0, 2] * HW[3, col] + C[1, 2] * HW[4, col] + C[2, 2] * HW[5, col]
                    HW[3, col], HW[4, col], HW[5, col] = a0, a1, a2
    # + ∂(T(c)ᵀ m)/∂c at fixed m = (½ m̂ − ½ μ cᵀ)/den
    for i in range(3):
        for j in range(3):
            HW[3 + i, 3 + j] -= 0.5 * mu[i] * cv[j] / den
    HW[3, 4] -= 0.5 * m[2] / den
    HW[4, 3] += 0.5 * m[2] / den
    HW[3, 5] += 0.5 * m[1] / den
    HW[5, 3] -= 0.5 * m[1] / den
    HW[4, 5] -= 0.5 * m[0] / den
    HW[5, 4] += 0.5 * m[0] / den
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
    # Hpi = Aᵀ ∇²W A
    for i in range(6):
        for j in range(13):
            acc = 0.0
            for k in range(6):
                acc += HW[i, k] * A[k, j]
            HA[i, j] = acc
    for i in range(13):
        for j in range(13):
            acc = 0.0
            for k in range(6):
                acc += A[k, i] * HA[k, j]
            Hpi[i, j] = acc
    # + f_ξ·∇²ξ (over y, λ)
    for j in range(3):
        nj = pi[j] / ny
        for k in range(3):
            nk = pi[k] / ny
            Hpi[j, k] -= sl / (ny * ny) * (fy[j] * nk + fy[k] * nj + ((yf if j == k else 0.0) - 3.0 * yf * nj * nk))
        c = (fy[j] - yf * nj) / (2.0 * sl * ny)
        Hpi[j, 12] += c
        Hpi[12, j] += c
    Hpi[12, 12] -= yf / (4.0 * pi[12] * sl)
    # + μ·∇²c (over P): −(2/τ²)[(μ·v_a) δ_b + (μ·v_b) δ_a] + 2 (μ·c)/τ² δ_a δ_b, δ_a = ∂τ/∂P_a
    for a in (0, 4, 8):
        for b in (0, 4, 8):
            Hpi[3 + a, 3 + b] += 2.0 * cm / tau
        for bb in range(9):
            i = bb // 3
            j = bb - 3 * i
            if i != j:
                k = 3 - i - j
                mv = -(i - k) * (j - k) * (j - i) * 0.5 * mu[k]  # μ·∂v/∂P_ij
                Hpi[3 + a, 3 + bb] -= 2.0 * mv / (tau * tau)
                Hpi[3 + bb, 3 + a] -= 2.0 * mv / (tau * tau)
    return Ve


@jit
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


@jit
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
    R0, F, RR, qa, th, Lq, Hq, S, qv, rho, G, sig, fl, Hl, W, J, V, fcr = _scratch()
    mw = _mid_scratch(p.shape[1])
    Xt, pt = mw[0], mw[3]
    orders = np.arange(3)  # energy, + gradient, + Hessian (run-time values: one compilation)
    Q1a, Q2a, Q1b, Q2b = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
    Q1m, Q2m = np.empty((3, 3)), np.empty((3, 3))
    xa, xb, xm = np.empty(3), np.empty(3), np.empty(3)
    pia, pib, pim, pip = np.empty(13), np.empty(13), np.empty(13), np.empty(13)
    dpi, wt, gm, gb = np.empty(13), np.empty(13), np.empty(13), np.empty(13)
    Hpi = np.empty((13, 13))
    g1, zc = np.empty(13), np.empty(13)
    Kp = np.empty((13, 12))
    dq = np.empty(12)
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
        den = 0.0
        for k in range(13):
            acc = 0.0
            for r in range(12):
                acc += Bm[k, r] * dq[r]
            dpi[k] = acc
            pip[k] = pia[k] + acc
            pim[k] = pia[k] + 0.5 * acc
            wt[k] = 1.0 if k < 3 else (l0 * l0 if k < 12 else 0.25 / (l0 * l0))
            den += wt[k] * dpi[k] * dpi[k]
        V0 = _invariant_energy(pia, orders[0], R0, F, qa, th, RR, Lq, Hq, qv, rho, G, S, sig, fl, Hl, fcr, W, J, V, mw, gb,
                               Hpi)
        V1 = _invariant_energy(pip, orders[1], R0, F, qa, th, RR, Lq, Hq, qv, rho, G, S, sig, fl, Hl, fcr, W, J, V, mw, g1,
                               Hpi)
        _invariant_energy(pim, orders[2], R0, F, qa, th, RR, Lq, Hq, qv, rho, G, S, sig, fl, Hl, fcr, W, J, V, mw, gm, Hpi)
        num = V1 - V0
        for k in range(13):
            num -= gm[k] * dpi[k]
        # regularized quotient: exact energy to a relative (ε/|Δπ|)² where the mismatch is
        # far above round-off, and no amplification of rounding where Δπ → 0
        sden = den + (1e-7 * l0) ** 2
        cc = num / sden if den > 0.0 else 0.0
        for k in range(13):
            gb[k] = gm[k] + cc * wt[k] * dpi[k]
        for r in range(12):
            acc = 0.0
            for k in range(13):
                acc += Bm[k, r] * gb[k]
            f[e, r] = acc
        # ------------------------------------------------------------ Newton matrix
        # (i) motion of the averaged configuration at fixed ḡ: δx̄21 = ½ δΔx21,
        #     δd̄ = ½ w × d_{n+1}, w_a = T(ψ_a) δψ_a
        for a in range(2):
            cayley_spin_jacobian(psi[e, a], Tp[a])
        for r in range(12):
            for s in range(12):
                HB[r, s] = 0.0  # derivative over (δx1, w1, δx2, w2)
        # f_x2 = −f_x1 = Q̄1 g_y: δ = ½ w1 × v1, v1 = Q1_{n+1} g_y
        for i in range(3):
            v1[i] = Q1b[i, 0] * gb[0] + Q1b[i, 1] * gb[1] + Q1b[i, 2] * gb[2]
            fx[i] = Q1m[i, 0] * gb[0] + Q1m[i, 1] * gb[1] + Q1m[i, 2] * gb[2]
        for k in range(3):
            dv[0] = 0.5 * ((v1[2] if k == 1 else 0.0) - (v1[1] if k == 2 else 0.0))  # ½ e_k × v1
            dv[1] = 0.5 * ((v1[0] if k == 2 else 0.0) - (v1[2] if k == 0 else 0.0))
            dv[2] = 0.5 * ((v1[1] if k == 0 else 0.0) - (v1[0] if k == 1 else 0.0))
            for i in range(3):
                HB[6 + i, 3 + k] += dv[i]
                HB[i, 3 + k] -= dv[i]
            # f_w1 = f_x2 × x̄21 + Z, f_w2 = −Z, Z = Σ g_P,ij d̄1_i × d̄2_j: δf_x2 × x̄21 first
            HB[3 + 0, 3 + k] += dv[1] * xm[2] - dv[2] * xm[1]
            HB[3 + 1, 3 + k] += dv[2] * xm[0] - dv[0] * xm[2]
            HB[3 + 2, 3 + k] += dv[0] * xm[1] - dv[1] * xm[0]
        # f_x2 × δx̄21, δx̄21 = ½ (δx2 − δx1)
        for k in range(3):
            e0 = 1.0 if k == 0 else 0.0
            e1 = 1.0 if k == 1 else 0.0
            e2 = 1.0 if k == 2 else 0.0
            c0 = 0.5 * (fx[1] * e2 - fx[2] * e1)
            c1 = 0.5 * (fx[2] * e0 - fx[0] * e2)
            c2 = 0.5 * (fx[0] * e1 - fx[1] * e0)
            HB[3, 6 + k] += c0
            HB[4, 6 + k] += c1
            HB[5, 6 + k] += c2
            HB[3, k] -= c0
            HB[4, k] -= c1
            HB[5, k] -= c2
        # λ part 2 g_λ x̄21 on x2 (opposite on x1), δx̄21 = ½ δΔx21
        for i in range(3):
            HB[6 + i, 6 + i] += gb[12]
            HB[6 + i, i] -= gb[12]
            HB[i, 6 + i] -= gb[12]
            HB[i, i] += gb[12]
        # δZ: (½ w1 × a) × b = ½ [a (b·w1) − w1 (a·b)], a × (½ w2 × b) = ½ [w2 (a·b) − b (a·w2)]
        for i in range(3):
            for j in range(3):
                gij = gb[3 + 3 * i + j]
                ab1 = 0.0
                ab2 = 0.0
                for k in range(3):
                    ab1 += Q1b[k, i] * Q2m[k, j]
                    ab2 += Q1m[k, i] * Q2b[k, j]
                for r in range(3):
                    for k in range(3):
                        dz1 = 0.5 * gij * (Q1b[r, i] * Q2m[k, j] - (ab1 if r == k else 0.0))
                        dz2 = 0.5 * gij * ((ab2 if r == k else 0.0) - Q2b[r, j] * Q1m[k, i])
                        HB[3 + r, 3 + k] += dz1
                        HB[3 + r, 9 + k] += dz2
                        HB[9 + r, 3 + k] -= dz1
                        HB[9 + r, 9 + k] -= dz2
        # (ii) ∂ḡ/∂Δq = ∇²Ṽ(π̄) ½ B(q_{n+1}) (the exact invariant Hessian, Hpi)
        _invariant_variation(Q1b, Q2b, xb, B1)
        # HB += Bmᵀ Hpi ½ B1
        for r in range(13):
            for s in range(12):
                acc = 0.0
                for k in range(13):
                    acc += Hpi[r, k] * B1[k, s]
                Kp[r, s] = 0.5 * acc
        # derivative of the correction c M Δπ: ∂c = (∂num − 2c (MΔπ)·∂Δπ)/(Δπ·MΔπ + ε²),
        # ∂num = (∇Ṽ(π_{n+1}) − ḡ_b − ½ ∇²Ṽ Δπ)·∂π_{n+1}, ∂Δπ = ∂π_{n+1} = B(q_{n+1})
        if den > 0.0:
            for k in range(13):
                acc = 0.0
                for m in range(13):
                    acc += Hpi[m, k] * dpi[m]
                zc[k] = (g1[k] - gm[k] - 0.5 * acc - 2.0 * cc * wt[k] * dpi[k]) / sden
            for s in range(12):
                acc = 0.0
                for k in range(13):
                    acc += zc[k] * B1[k, s]
                for r in range(13):
                    Kp[r, s] += wt[r] * dpi[r] * acc + cc * wt[r] * B1[r, s]
        for r in range(12):
            for s in range(12):
                acc = 0.0
                for k in range(13):
                    acc += Bm[k, r] * Kp[k, s]
                HB[r, s] += acc
        # columns of rotations: δw_a = T(ψ_a) δψ_a
        for r in range(12):
            for a in range(2):
                for k in range(3):
                    K[e, r, 6 * a + k] = HB[r, 6 * a + k]
                for k in range(3):
                    acc = 0.0
                    for m in range(3):
                        acc += HB[r, 6 * a + 3 + m] * Tp[a, m, k]
                    K[e, r, 6 * a + 3 + k] = acc


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
               rotary_kinds=(LUMPED, INVARIANT))

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
