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

Eccentric sections (Meijaard 1993, §5.2, for thin-walled open sections, warping-free):
the section's centroid (where the axial force acts) lies at (yc, zc) and its shear
centre (about which it twists, through which the shear forces pass) at (ys, zs) in the
section axes (e2, e3) from the node line (parameters ``yc, zc, ys, zs``, default 0).
Meijaard models such a member as two parallel beams rigidly attached to the nodal triads:
one on the centroid line with the axial stiffness only, one on the shear-centre line with
the torsion, bending and shear stiffnesses. femb builds that pair into one element: ρ1 =
ē1 is the refined axial strain of the centroid line and ρ2 … ρ6 are the twist and bending
strains of the shear-centre line, each the node line's ρ of the offset line's local
coordinates q_d(q). For a line through the section point d = (0, dy, dz), whose end
points are R̄_a d (R̄_a = exp θ̄_a) in the element frame, q_d is the quadratic
polynomial in q that agrees with these exact kinematics to second order::

    c = (R̄2 − R̄1) d (to second order),  u_l,d = u_l + c_x + (c_y1² + c_z1²)/(2 l0)
    ψ = (0, −c_z/l_d, c_y/l_d), l_d = l0 + u_l + c_x1  (rotation of the offset chord)
    θ̄_a,d = θ̄_a − ψ − ½ ψ1 × θ̄_a                          (BCH, ψ1 its first-order part)

(subscript 1: first-order parts), so ρ_d = Lq A q + ½ qᵀ (Σ Lq_m B_m + Aᵀ Hq A) q with
q_d = A q + ½ qᵀ B q keeps the form of the node line's strains (``_strain_forms``) and
everything below (forces, exact tangent, geometric stiffness, energy, the mid-point
discrete gradient) follows from the one energy V = ½ ρᵀ S ρ unchanged. The second-order
terms of q_d give the eccentric geometric stiffness of the linked lines, e.g. the torsional
stiffening N |d|² by an axial force whose line is off the twist axis. To first order the
centroid strain is ē1 + zc (θ̄2y − θ̄1y) − yc (θ̄2z − θ̄1z) and the shear-centre line's end
rotations relative to its chord are θ̄_ay + ys a2/l0, θ̄_az + zs a2/l0 (a2 the twist): a
force through the node line twists the section by its lever arm to the shear centre. The
strain energy equals the linked lines' to O(ε⁴) for deformations of size ε, and the
linear stiffness equals theirs exactly (tests/elements/test_beam3d_eccentric.py).

Mass centre off the node line: the section's mass centre lies at (ym, zm) in the section
axes (parameters ``ym, zm``, default 0; from a Material with a density and a Section, the
centroid (yc, zc): a homogeneous section). The lumped mass puts each end's half of the
element's mass ρA l0/2 on a point rigidly attached to the node at the lever
r_a = Q_a (0, ym, zm), and rhoIp, rhoIy, rhoIz are the rotary inertia per length about the
axes through the mass centre (parallel to e1, e2, e3; a Section's Ip, Iy, Iz, which are
about its centroid): see "Mass" below. Only the lumped kind carries the offset.

Generalized stresses σ = S ρ; with m̄_a = ∂V/∂θ̄_a, N = ∂V/∂u_l, μ_a = J(θ̄_a)⁻ᵀ m̄_a
(J the left Jacobian), M_a = E μ_a and Ms = M1 + M2, the nodal forces are::

    f_x2 = −f_x1 = N r1 − (Ms × r1)/l + (h τ/(g l)) r3,   f_wa = M_a − τ (q_a × r3)/(2g)

with τ = Ms·r1, h = q·r1, g = q·r2. The tangent is their exact derivative (frame spin,
derivative of J⁻ᵀ, local Hessian), written in the kernels as (3, 12) variation matrices.

Resultants (``resultant_names``), in the element frame E (eccentric sections: N acts along
the centroid line, T is the torque about the shear centre, Vy and Vz pass through the
shear centre and My, Mz are the bending moments of the shear-centre line, which are the
moments about the centroid axes; moments about the node line add (c − node) × N e1 and
(s − node) × V):

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
length about the section axes x, y, z through the mass centre):

- 0 lumped: ρA l0/2 on each translation; (l0/2) Q_a diag(rhoIp, rhoIy, rhoIz) Q_aᵀ on
  the rotations of node a (the section inertia about the *current* nodal triad). With a
  mass centre (ym, zm) off the node line, each end is the rigid body of a point of mass
  m = ρA l0/2 at r = Q_a (0, ym, zm) plus that rotary inertia J_c about the point: the
  nodal block is [[m I, −m r̂], [m r̂, J_c − m r̂²]] (kinetic energy ½ m |v − r̂ ω|² + ½ ω·J_c ω),
  configuration-dependent through r; ``mass_points`` gives (m, R0 (0, ym, zm)) per end,
  which the dynamics integrates as node-attached mass points
  (femb.solvers.dynamics.offset_points). Kind 2 and beam3d_timoshenko's kind 1 refuse a
  mass-centre offset.
- 1 consistent: the textbook 3-D beam mass (linear axial and torsion, Hermite-cubic
  bending with rotary inertia ∫ρI N′ᵀN′) of length l0, in the current element frame E;
  beam3d_timoshenko interpolates each bending plane as its exact stiffness does
  (elements.timoshenko_mass: the rotary inertia goes with the section rotation). With a
  mass centre (ym, zm) off the node line (beam3d): the consistent mass of the mass-centre
  line, which moves rigidly with the section, u_c = u + θ × (0, ym, zm) along the element
  with u, θ interpolated as above (``_consistent_offset_local``).
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
select the default above), (yc, zc) = ``section.centroid`` and (ys, zs) =
``section.shear_centre`` (default 0), the mass centre (ym, zm) = (yc, zc) when the
material has a density (0 without) and, for beam3d_timoshenko, GAy = GAz = G·k·A
(k = section.shear_factor). Property rows: the 11 columns above, (GAy, GAz) for
beam3d_timoshenko, then the offsets (yc, zc, ys, zs) and the mass centre (ym, zm) as the
last two (17 columns for beam3d, 19 for beam3d_timoshenko); rows of 11 or 13 columns are
plain sections, beam3d rows of 15 carry the offsets without a mass centre
(``beam3d_local.offset_column``, ``mass_centre_column``).
"""
import numpy as np

from femb.core import jit

from .base import CONSISTENT, INVARIANT, LUMPED, ElementKernels, ElementSpec
from .beam3d_corotational import _kinematics, _reference_triad, _scratch, _transform
from .beam3d_local import (
    _local_force,
    _local_hessian,
    _section_matrix,
    _section_stress,
    _sigma_from_resultants,
    _strain_forms,
    _strains,
    is_timoshenko,
    mass_centre_column,
    offset_scratch,
)
from .beam3d_midpoint import midpoint_force_oriented
from .timoshenko_mass import bending_mass


# --------------------------------------------------------------------------- driver
@jit
def _evaluate(X, u, R, p, s_in, f, K, s_out, en, mode):
    """Shared element loop. mode 0: force; 1: force and tangent; 2: resultants;
    3: geometric stiffness from s_in (the strain energy has its own loop,
    ``strain_energy``, which does not link the force transformation)."""
    R0, F, RR, qa, th, Lq, Hq, S, qv, rho, G, sig, fl, Hl, W, J, V, fe = _scratch()
    ow = offset_scratch()
    want_K = mode != 0  # a run-time flag: callees are compiled once, not per literal
    every = np.int64(0)  # the tangent over both nodes (int64 value, not a literal)
    for e in range(X.shape[0]):
        l0, l, ul, h, g = _kinematics(X, u, R, p, e, R0, F, qa, th, RR)
        _strain_forms(l0, p, e, Lq, Hq, ow)
        _strains(ul, th, Lq, Hq, qv, rho, G)
        if mode == 3:
            _sigma_from_resultants(s_in, e, sig)
        else:
            _section_matrix(p, e, l0, S)
            _section_stress(S, rho, sig)
        if mode == 2:
            s_out[e, 0] = sig[0]
            s_out[e, 3] = sig[1]
            s_out[e, 4] = -sig[2]
            s_out[e, 6] = sig[3]
            s_out[e, 5] = -sig[4]
            s_out[e, 7] = sig[5]
            s_out[e, 1] = (s_out[e, 5] + s_out[e, 7]) / l
            s_out[e, 2] = -(s_out[e, 4] + s_out[e, 6]) / l
        elif mode == 0:
            _local_force(G, sig, fl)
            _transform(F, qa, th, l, h, g, fl, Hl, f[e], K[0], want_K, every, W, J, V)
        else:
            _local_force(G, sig, fl)
            _local_hessian(G, S, Hq, sig, mode == 1, Hl)
            if mode == 1:
                _transform(F, qa, th, l, h, g, fl, Hl, f[e], K[e], want_K, every, W, J, V)
            else:
                _transform(F, qa, th, l, h, g, fl, Hl, fe, K[e], want_K, every, W, J, V)


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
    """Strain energy en (n_el,) = ½ ρᵀ S ρ.

    Its own element loop rather than a mode of ``_evaluate``: a compiled kernel carries (and
    its compilation re-optimizes) the code of every function it calls, and the energy needs
    neither the force transformation nor the local Hessian."""
    R0, F, RR, qa, th, Lq, Hq, S, qv, rho, G, sig, fl, Hl, W, J, V, fe = _scratch()
    ow = offset_scratch()
    for e in range(X.shape[0]):
        l0, l, ul, h, g = _kinematics(X, u, R, p, e, R0, F, qa, th, RR)
        _strain_forms(l0, p, e, Lq, Hq, ow)
        _strains(ul, th, Lq, Hq, qv, rho, G)
        _section_matrix(p, e, l0, S)
        en[e] = _section_stress(S, rho, sig)


_MASS_CENTRE_KINDS = ("beam3d mass: a mass centre off the node line (ym, zm) needs the lumped mass kind "
                      "(or the consistent kind of the Euler-Bernoulli beam3d)")


def mass(X: np.ndarray, u: np.ndarray, R: np.ndarray, p: np.ndarray, kind: int, M: np.ndarray) -> None:
    """Mass matrix M (n_el, 12, 12) of kind 0 lumped, 1 consistent (element frame of the
    configuration), 2 invariant translations + lumped rotary inertia; see the module
    docstring. Rotational rows/columns refer to spatial angular velocities. X (n_el, 2, 3),
    u (n_el, 12), R (n_el, 2, 3, 3), p property rows.

    Two compiled kernels, so that a run compiles only the kind it uses: the consistent
    mass needs the element frame of the configuration (the co-rotational kinematics), the
    lumped and invariant kinds only the reference triad and the nodal rotations."""
    if kind == CONSISTENT:
        _consistent_mass(X, u, R, p, M)
    elif kind == LUMPED or kind == INVARIANT:
        _nodal_mass(X, R, p, kind, M)
    else:
        raise ValueError("beam3d mass: kind must be 0 (lumped), 1 (consistent) or 2 (invariant)")


@jit
def _consistent_mass(X, u, R, p, M):
    """Consistent mass M (n_el, 12, 12) (``mass`` kind 1) in the element frame of the
    configuration (u, R)."""
    mc = mass_centre_column(p)
    R0 = np.empty((3, 3))
    F = np.empty((3, 3))
    RR = np.empty((2, 3, 3))
    qa = np.empty((2, 3))
    th = np.empty((2, 3))
    Ml = np.empty((12, 12))
    Bc = np.empty((3, 12))
    Bc0 = np.empty((3, 12))
    for e in range(X.shape[0]):
        l0, l, ul, h, g = _kinematics(X, u, R, p, e, R0, F, qa, th, RR)
        for i in range(12):
            for j in range(12):
                M[e, i, j] = 0.0
        ym = p[e, mc] if mc >= 0 else 0.0
        zm = p[e, mc + 1] if mc >= 0 else 0.0
        if (ym != 0.0 or zm != 0.0) and is_timoshenko(p):
            raise ValueError(_MASS_CENTRE_KINDS)
        _consistent_local(p, e, l0, Ml)
        if ym != 0.0 or zm != 0.0:
            _consistent_offset_local(p[e, 4], ym, zm, l0, Ml, Bc, Bc0)
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


@jit
def _nodal_mass(X, R, p, kind, M):
    """Lumped (``mass`` kind 0) or invariant (kind 2) mass M (n_el, 12, 12): translational
    mass ρA l0 lumped or as the constant consistent 1/3, 1/6 blocks, rotary inertia
    ½ l0 Q_a diag(ρIp, ρIy, ρIz) Q_aᵀ at each node (Q_a = R_a R0 the section triad)."""
    mc = mass_centre_column(p)
    R0 = np.empty((3, 3))
    Q = np.empty((3, 3))
    r = np.empty(3)
    for e in range(X.shape[0]):
        l0 = _reference_triad(X, p, e, R0)
        for i in range(12):
            for j in range(12):
                M[e, i, j] = 0.0
        ym = p[e, mc] if mc >= 0 else 0.0
        zm = p[e, mc + 1] if mc >= 0 else 0.0
        if (ym != 0.0 or zm != 0.0) and kind == INVARIANT:
            raise ValueError(_MASS_CENTRE_KINDS)
        mA = p[e, 4] * l0
        diag, off = (0.5 * mA, 0.0) if kind == LUMPED else (mA / 3.0, mA / 6.0)
        for i in range(3):
            M[e, i, i] = diag
            M[e, 6 + i, 6 + i] = diag
            M[e, i, 6 + i] = off
            M[e, 6 + i, i] = off
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
            if ym != 0.0 or zm != 0.0:  # the end's mass at r = Q (0, ym, zm): v_p = v − r̂ ω
                for i in range(3):
                    r[i] = Q[i, 1] * ym + Q[i, 2] * zm
                _add_offset_point(M[e], 6 * a, diag, r)


@jit(internal=True)
def _add_offset_point(Me, o, m, r):
    """Add the coupling of a mass m at the lever r (3,) from the node whose DOFs start at
    row ``o`` of Me (12, 12): [[0, −m r̂], [m r̂, m (|r|² I − r rᵀ)]] (the translational
    m I is already there), the kinetic energy ½ m |v − r̂ ω|² of the point."""
    rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2]
    for i in range(3):
        for j in range(3):
            Me[o + 3 + i, o + 3 + j] += m * ((rr if i == j else 0.0) - r[i] * r[j])
    for (i, j, k) in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):  # r̂[i, j] = −r_k, r̂[j, i] = r_k
        Me[o + i, o + 3 + j] += m * r[k]  # −m r̂
        Me[o + j, o + 3 + i] -= m * r[k]
        Me[o + 3 + i, o + j] -= m * r[k]  # m r̂
        Me[o + 3 + j, o + i] += m * r[k]


@jit
def mass_points(X, p, m, d):
    """The translational mass of each element end as a point rigidly attached to its node
    (lumped mass of a section whose mass centre is off the node line): m (n_el, 2) half the
    element's mass ρA l0/2 at each end; d (n_el, 2, 3) its lever from the node in the
    reference configuration, d = R0 (0, ym, zm) (zero without a mass-centre offset); in a
    configuration with nodal rotation R_a the point is at x_a + R_a d. X (n_el, 2, 3), p
    property rows."""
    R0 = np.empty((3, 3))
    mc = mass_centre_column(p)
    for e in range(X.shape[0]):
        l0 = _reference_triad(X, p, e, R0)
        ym = p[e, mc] if mc >= 0 else 0.0
        zm = p[e, mc + 1] if mc >= 0 else 0.0
        for a in range(2):
            m[e, a] = 0.5 * (p[e, 4] * l0)
            for i in range(3):
                d[e, a, i] = R0[i, 1] * ym + R0[i, 2] * zm


_GAUSS4_X = np.array([-0.8611363115940526, -0.3399810435848563, 0.3399810435848563, 0.8611363115940526])
_GAUSS4_W = np.array([0.3478548451374538, 0.6521451548625461, 0.6521451548625461, 0.3478548451374538])


@jit(internal=True)
def _consistent_offset_local(mA, ym, zm, L, Ml, B, B0):
    """Add to the consistent mass Ml (12, 12) (element-frame DOFs) the terms of a mass
    centre at (ym, zm) in the section axes: the mass-centre line moves rigidly with the
    section, u_c = u + θ × (0, ym, zm), i.e. (θz = v′, θy = −w′ of the Hermite fields)

        u_c = u − ym v′ − zm w′,   v_c = v − zm θx,   w_c = w + ym θx,

    and its kinetic energy ½ ∫ ρA |u̇_c|² replaces ½ ∫ ρA |u̇|² (the rotary inertia stays
    about the mass centre): ρA ∫ (B_cᵀ B_c − Bᵀ B) dx, by 4-point Gauss (exact: degree ≤ 6).
    mA: mass per length ρA; L: length; B, B0 (3, 12) scratch."""
    xg, wg = _GAUSS4_X, _GAUSS4_W
    for q in range(4):
        xi = 0.5 * (1.0 + xg[q])
        w = 0.5 * L * wg[q] * mA
        n1, n2 = 1.0 - xi, xi
        h = (1.0 - 3.0 * xi**2 + 2.0 * xi**3, L * (xi - 2.0 * xi**2 + xi**3), 3.0 * xi**2 - 2.0 * xi**3, L * (xi**3 - xi**2))
        dh = ((6.0 * xi**2 - 6.0 * xi) / L, 1.0 - 4.0 * xi + 3.0 * xi**2, (6.0 * xi - 6.0 * xi**2) / L, 3.0 * xi**2 - 2.0 * xi)
        for i in range(3):
            for j in range(12):
                B0[i, j] = 0.0
        B0[0, 0], B0[0, 6] = n1, n2
        for k, (iv, iw, sg) in enumerate(((1, 2, 1.0), (5, 4, -1.0), (7, 8, 1.0), (11, 10, -1.0))):
            B0[1, iv] = h[k]  # v: (v1, θz1, v2, θz2)
            B0[2, iw] = sg * h[k]  # w: (w1, θy1, w2, θy2) with θy = −w′
        for i in range(3):
            for j in range(12):
                B[i, j] = B0[i, j]
        for k, (iv, iw, sg) in enumerate(((1, 2, 1.0), (5, 4, -1.0), (7, 8, 1.0), (11, 10, -1.0))):
            B[0, iv] -= ym * dh[k]
            B[0, iw] -= zm * sg * dh[k]
        B[1, 3] -= zm * n1
        B[1, 9] -= zm * n2
        B[2, 3] += ym * n1
        B[2, 9] += ym * n2
        for i in range(12):
            for j in range(12):
                acc = 0.0
                for k in range(3):
                    acc += B[k, i] * B[k, j] - B0[k, i] * B0[k, j]
                Ml[i, j] += w * acc


@jit(internal=True)
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
    if is_timoshenko(p):
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
    out = {"EA": E * section.A, "GJ": G * section.J, "EIy": E * Iy, "EIz": E * Iz,
           "rhoA": rho * section.A, "rhoIp": rho * Ip, "rhoIy": rho * Iy, "rhoIz": rho * Iz,
           "vx": v[0], "vy": v[1], "vz": v[2]}
    for key, names in (("centroid", ("yc", "zc")), ("shear_centre", ("ys", "zs"))):
        c = getattr(section, key, None)
        c = (0.0, 0.0) if c is None else tuple(float(x) for x in c)
        if len(c) != 2:
            raise ValueError(f"section {key} must have 2 components (y, z) for {name}, got {len(c)}")
        out[names[0]], out[names[1]] = c
    # a homogeneous section: its mass centre is its centroid (ρIp, ρIy, ρIz are about it)
    out["ym"], out["zm"] = (out["yc"], out["zc"]) if rho != 0.0 else (0.0, 0.0)
    return out


def properties_euler_bernoulli(material, section):
    """EA = E·A, GJ = G·J, EIy = E·Iy, EIz = E·Iz, rhoA = ρ·A, rhoIp = ρ·Ip (Ip defaults to
    Iy + Iz), rhoIy = ρ·Iy, rhoIz = ρ·Iz, the section y direction (vx, vy, vz) from the
    optional ``section.orientation`` (zeros: default orientation), the offsets
    (yc, zc) = ``section.centroid``, (ys, zs) = ``section.shear_centre`` (default 0) and
    the mass centre (ym, zm) = (yc, zc) with a density (homogeneous section) for
    ``beam3d``."""
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
OFFSETS = ("yc", "zc", "ys", "zs")  # N_OFFSETS columns from beam3d_local.offset_column(p)
MASS_CENTRE = ("ym", "zm")  # the last two columns (beam3d_local.mass_centre_column)
_COMMON = dict(cell_type="line", n_nodes=2, dim=3, node_dofs=("ux", "uy", "uz", "rx", "ry", "rz"),
               resultant_names=("N", "Vy", "Vz", "T", "My1", "Mz1", "My2", "Mz2"), kernels=KERNELS,
               constant_mass=(), oriented=True,
               defaults={"vx": 0.0, "vy": 0.0, "vz": 0.0, "yc": 0.0, "zc": 0.0, "ys": 0.0, "zs": 0.0,
                         "ym": 0.0, "zm": 0.0},
               rotary_kinds=(LUMPED, INVARIANT))

SPECS = {
    "beam3d": ElementSpec(name="beam3d", params=PARAMS + OFFSETS + MASS_CENTRE, properties=properties_euler_bernoulli,
                          description="3-D co-rotational Euler–Bernoulli beam with second-order "
                                      "bending–torsion refinement (Battini–Pacoste frame, Meijaard strains)",
                          **_COMMON),
    "beam3d_timoshenko": ElementSpec(name="beam3d_timoshenko", params=PARAMS + ("GAy", "GAz") + OFFSETS + MASS_CENTRE,
                                     properties=properties_timoshenko,
                                     description="3-D co-rotational Timoshenko beam (shear-flexible, "
                                                 "locking-free) with second-order refinement",
                                     **_COMMON),
}
