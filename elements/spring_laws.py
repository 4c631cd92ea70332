"""The force and damper characteristics every discrete spring and damper shares, evaluated
from its property row (compiled), and the mass kernel of massless elements.

The element types: femb.elements.translational_springs (central springs, bushings),
femb.elements.rotational_springs2d (planar torsion springs) and
femb.elements.rotational_springs3d (between oriented nodes); their input (keywords, force
laws, property rows) in femb.elements.spring_input.

All types are massless, created with ``Model.add_discrete`` and given their parameters as
numbers. Parameters with a default (listed per type) may be omitted; the others are
required (a missing one raises ``KeyError`` naming it). Every translational and planar
rotational spring has a linear part ``k`` and a cubic hardening (``k3 > 0``) or softening
(``k3 < 0``) part ``k3`` — the cubic force law

    F(δ) = k δ + k3 δ³,    V(δ) = ½ k δ² + ¼ k3 δ⁴,

of a scalar (central, rotational) or vector (bushing, δ² = |d|²) deflection δ — and a
linear viscous damper ``c`` (damping force C·v from the ``damping`` kernel); tabulated or
sampled spring and damper characteristics add to these (see "User force laws" below). A pure
damper is a spring with ``k = k3 = 0``. Units: any consistent set (k a force per length
or moment per radian, k3 per length³ or per radian³, c a force per velocity or moment
per angular velocity).

Mid-point (discrete-gradient) forces, energy-exact: ``midpoint_force(X, u0, u1, p, f, K)``
satisfies f·Δ = V(u1) − V(u0) to round-off for any pair of configurations, where Δ holds
the translation increments u1 − u0 and, for rotational DOFs, the **Cayley** step
parameter ``τ = 2 tan(Δθ/2)`` (Δθ = θ(u1) − θ(u0), |Δθ| < π) used by the 2-D mid-point
integrator; the rotational entries of f are conjugate to τ, and K = ∂f/∂(translations of
u1, τ) (non-symmetric in general). With the divided difference of the force law

    D(δ0, δ1) = [V(δ1) − V(δ0)]/(δ1 − δ0) = ½ k (δ0 + δ1) + ¼ k3 (δ0 + δ1)(δ0² + δ1²)

(a polynomial, so the limit δ1 → δ0, where D → F(δ), needs no special case; the forces
per type are in the element modules). In the limit u1 → u0 the mid-point force tends to
the internal force and K to half the static tangent.

User force laws (tables and functions)
--------------------------------------
Besides k and k3 every type takes a **spring characteristic** ``law`` and a **damper
characteristic** ``damper_law`` (keywords of ``Model.add_discrete``; ``law``/``damper_law``
tables in case files), each a piecewise-cubic Hermite curve of femb.elements.force_laws:

- a table of (x, F) pairs — piecewise linear, or with ``smooth=True`` the monotone cubic
  (PCHIP) through the points; linear extrapolation beyond the ends with the end slopes;
- a callable F(x) with ``law_range``/``damper_range`` = (x_min, x_max) (or a pair
  (F, dF) of callables, or a ready ``ForceLaw``): sampled by bisection until the cubic
  interpolant matches F at every segment midpoint to 10⁻⁹ × max|F|; the achieved error is
  kept in ``model.parts[name].values["law"].error``, and an InputError names the part
  when 4000 points do not reach it (a kink or singularity: tabulate such laws instead).

The table law **adds** to k δ + k3 δ³ (k defaults to 0 when a law is given), so
F(δ) = k δ + k3 δ³ + F_law(δ) and V(δ) = ½ k δ² + ¼ k3 δ⁴ + ∫_0^δ F_law: the energy is
zero at δ = 0 (the free length L0, the reference twist theta0); a law with F(0) ≠ 0 is a
preloaded spring. x is the elongation δ = l − L0 (central springs), the twist φ
(rotational springs, F a moment) or the deflection magnitude |d| ≥ 0 (bushings, whose law
must give F(0) = 0; force F(|d|) d/|d|, tangent (F/|d|) I + (F' − F/|d|) n nᵀ). Energy,
force and tangent are exact; the mid-point forces use the law's exact divided difference
D(δ0, δ1) = mean of F over [δ0, δ1] (2-point Gauss per piece between breakpoints, no
cancellation), so f·Δ = ΔV to round-off at any step — for bushings in Gonzalez's form in
r = |d|: F_m = D(r0, r1)/r_av · d_m (→ F'(0) d_m at r_av = 0).

The damper force is F_d(v) = c v + F_dlaw(v) of the elongation rate v = e·(v2 − v1)
(central, along the current axis e), of the relative angular rate (rotational), or of the
speed |v2 − v1| along v2 − v1 (bushing). A damper law must dissipate: it covers v = 0, has
F_d(0) = 0 and F_d(v)·v ≥ 0 at its breakpoints and 32 points inside each segment, and
non-negative end slopes (checked; InputError naming the part). The kernel
``damper_force(X, u, v, p, f, C)`` returns the force and C = ∂f/∂v; the solvers evaluate
it where the linear damper acts (mid-point scheme: mid configuration, mean velocity
Δ/Δt) and book f·Δ as the dissipated energy, which hence equals the dampers' work
exactly. ``damping`` gives the linearization at v = 0 (c + F_dlaw'(0)) used by linearized
and complex modal analyses.

Property rows with a law: the parameters, then n_s and n_d (points of the two laws, 0 for
none), then the packed laws (5 numbers per point: x, F, left and right slope, V); rows
without a law are exactly the parameters.
"""
from femb.core import jit

from .base import CONSISTENT, INVARIANT, LUMPED
from .force_laws import WIDTH, law_divided, law_piece, law_region, law_secant, law_value



@jit(internal=True)
def cubic_law(k, k3, d):
    """The force law at deflection ``d``: ``(V, F, dF/dd)`` with F = k d + k3 d³."""
    d2 = d * d
    return 0.5 * k * d2 + 0.25 * k3 * d2 * d2, (k + k3 * d2) * d, k + 3.0 * k3 * d2


@jit(internal=True)
def cubic_divided(k, k3, a, b):
    """Divided difference of V between deflections ``a`` and ``b`` and its derivative with
    respect to ``b``: ``(D, ∂D/∂b)``, D = [V(b) − V(a)]/(b − a) (= F(a) when b = a)."""
    s = a + b
    q = a * a + b * b
    return 0.5 * k * s + 0.25 * k3 * s * q, 0.5 * k + 0.25 * k3 * (q + 2.0 * b * s)


# Property rows: the scalar parameters; with a force law, then at column ``t`` (= number of
# parameters) the number of points n_s of the spring-law table and n_d of the damper-law
# table (0: none), then the two packed tables (elements.force_laws, 5 numbers per point).
# Rows without laws end after the parameters.


@jit(internal=True)
def law_counts(p, e, t):
    """(n_s, n_d): points of the spring-law and damper-law tables of element ``e``."""
    if p.shape[1] <= t:
        return 0, 0
    return int(p[e, t]), int(p[e, t + 1])


@jit(internal=True)
def spring_value(p, e, t, i3, d):
    """``(V, F, dF/dd)`` of the spring at deflection ``d``: the cubic law (k = p[e, 0],
    k3 = p[e, i3]) plus the table law when the row has one."""
    V, F, dF = cubic_law(p[e, 0], p[e, i3], d)
    n = law_counts(p, e, t)[0]
    if n > 0:
        Vt, Ft, dFt = law_value(p, e, t + 2, n, d)
        V += Vt
        F += Ft
        dF += dFt
    return V, F, dF


@jit(internal=True)
def spring_force(p, e, t, i3, d):
    """``(F, dF/dd)`` of the spring at deflection ``d`` (``_spring`` without the energy)."""
    k = p[e, 0]
    k3 = p[e, i3]
    d2 = d * d
    F = (k + k3 * d2) * d
    dF = k + 3.0 * k3 * d2
    n = law_counts(p, e, t)[0]
    if n > 0:
        Ft, dFt = law_piece(p, e, t + 2, n, law_region(p, e, t + 2, n, d), d)
        F += Ft
        dF += dFt
    return F, dF


@jit(internal=True)
def spring_divided(p, e, t, i3, a, b):
    """``(D, ∂D/∂b)`` of the spring's energy between deflections ``a`` and ``b`` (cubic
    plus table law)."""
    D, dD = cubic_divided(p[e, 0], p[e, i3], a, b)
    n = law_counts(p, e, t)[0]
    if n > 0:
        Dt, dDt = law_divided(p, e, t + 2, n, a, b)
        D += Dt
        dD += dDt
    return D, dD


@jit(internal=True)
def damper_value(p, e, t, ic, v):
    """``(F_d, dF_d/dv)`` of the damper at rate ``v``: c v (c = p[e, ic]) plus the
    damper-law table when the row has one."""
    c = p[e, ic]
    F = c * v
    dF = c
    ns, n = law_counts(p, e, t)
    if n > 0:
        o = t + 2 + WIDTH * ns
        Ft, dFt = law_piece(p, e, o, n, law_region(p, e, o, n, v), v)
        F += Ft
        dF += dFt
    return F, dF


@jit(internal=True)
def damper_secant(p, e, t, ic, s):
    """``(F_d(s)/s, dF_d/ds)`` at a rate magnitude ``s`` ≥ 0 (the limit dF_d/ds(0) at
    s = 0; F_d(0) = 0 is checked on input)."""
    c = p[e, ic]
    g = c
    dF = c
    ns, n = law_counts(p, e, t)
    if n > 0:
        o = t + 2 + WIDTH * ns
        g += law_secant(p, e, o, n, 0.0, s)
        dF += law_piece(p, e, o, n, law_region(p, e, o, n, s), s)[1]
    return g, dF


@jit
def zero_mass(X, u, p, kind, M):
    """Springs and dampers are massless: M = 0 for every kind."""
    if kind != LUMPED and kind != CONSISTENT and kind != INVARIANT:
        raise ValueError("mass kind must be 0 (lumped), 1 (consistent) or 2 (invariant)")
    M[:, :, :] = 0.0
