"""Discrete springs and dampers: translational (central and bushing) and rotational.

All types are massless, created with ``Model.add_discrete`` and given their parameters as
numbers. Parameters with a default (listed per type) may be omitted; the others are
required (a missing one raises ``KeyError`` naming it). Every spring has a linear part
``k`` and a cubic hardening (``k3 > 0``) or softening (``k3 < 0``) part ``k3`` — the
cubic force law

    F(δ) = k δ + k3 δ³,    V(δ) = ½ k δ² + ¼ k3 δ⁴,

of a scalar (central, rotational) or vector (bushing, δ² = |d|²) deflection δ — and a
linear viscous damper ``c`` (damping force C·v from the ``damping`` kernel); tabulated or
sampled spring and damper characteristics add to these (see "User force laws" below). A pure
damper is a spring with ``k = k3 = 0``. Units: any consistent set (k a force per length
or moment per radian, k3 per length³ or per radian³, c a force per velocity or moment
per angular velocity).

Types
-----
``spring2d`` / ``spring3d`` (``cell_type="line"``, DOFs ux, uy[, uz] per node; params
``k``, ``L0``, ``c = 0``, ``k3 = 0``): a central spring acting along the line between the
nodes. With ``x21 = X2 − X1 + u2 − u1``, ``l = |x21|``, ``e = x21/l`` and the elongation
``δ = l − L0`` (``L0`` the free length, required: pass the reference length |X2 − X1|
for a spring that is unstressed in the reference configuration)::

    V = ½ k δ² + ¼ k3 δ⁴,   N = k δ + k3 δ³  (tension positive, resultant "N"),
    f = N [−e; e],          k_t = (k + 3 k3 δ²) e eᵀ + (N/l)(I − e eᵀ),
    geometric stiffness (N/l)(I − e eᵀ),   damping C = c e eᵀ (along the current axis).

Invariant under rigid motions (zero force when only moved rigidly at l = L0) and
momentum-conserving (f parallel to x21). The direction is undefined at l = 0, so the
nodes may not coincide (``requires_length=True`` for the reference configuration; the
current length must stay positive). δ is computed as (l² − l_ref²)/(l + l_ref) + (l_ref −
L0), exact for small elongations.

``bushing2d`` / ``bushing3d`` (``cell_type="line"``, DOFs ux, uy[, uz]; params ``k``,
``c = 0``, ``k3 = 0``): an isotropic spring on the relative displacement ``d = u2 − u1``
(zero length allowed, ``requires_length=False``; typically two coincident nodes)::

    V = ½ k |d|² + ¼ k3 |d|⁴,   F = (k + k3 |d|²) d  (resultants "Fx", "Fy"[, "Fz"]),
    f = [−F; F],                k_t = (k + k3 |d|²) I + 2 k3 d dᵀ,
    no geometric stiffness,      damping C = c I (isotropic).

F is the force that node 2 exerts on the bushing (and node 1 receives −F). Σf = 0
(linear momentum is conserved) and a common translation gives no force, but the bushing
is **not** rotation-invariant: it resists a rigid rotation of a member of non-zero length
with F = k (R − I) X21, and it exerts a couple on the nodes unless d ∥ x21 (angular
momentum is conserved only for coincident nodes). Use it between coincident (or nearly
coincident) nodes, e.g. as a flexible joint.

``rotational_spring2d`` (``cell_type="line"``, DOF rz per node; params ``k``,
``theta0 = 0``, ``c = 0``, ``k3 = 0``): a torsion spring between the rotations of two
nodes (zero length allowed), with the relative rotation ``φ = θ2 − θ1 − theta0`` (rad,
counter-clockwise positive; rotations are the additive 2-D rz values, so φ may exceed
2π)::

    V = ½ k φ² + ¼ k3 φ⁴,   M = k φ + k3 φ³  (resultant "M"),
    f = [−M; M],            k_t = (k + 3 k3 φ²) [[1, −1], [−1, 1]],
    no geometric stiffness,  damping C = c [[1, −1], [−1, 1]].

``rotational_spring2d_ground``: the one-node version (``cell_type="vertex"``), a torsion
spring to the fixed ground with φ = θ − theta0 and f = M, k_t = k + 3 k3 φ², C = c.

Mid-point (discrete-gradient) forces, energy-exact: ``midpoint_force(X, u0, u1, p, f, K)``
satisfies f·Δ = V(u1) − V(u0) to round-off for any pair of configurations, where Δ holds
the translation increments u1 − u0 and, for rotational DOFs, the **Cayley** step
parameter ``τ = 2 tan(Δθ/2)`` (Δθ = θ(u1) − θ(u0), |Δθ| < π) used by the 2-D mid-point
integrator; the rotational entries of f are conjugate to τ, and K = ∂f/∂(translations of
u1, τ) (non-symmetric in general). With the divided difference of the force law

    D(δ0, δ1) = [V(δ1) − V(δ0)]/(δ1 − δ0) = ½ k (δ0 + δ1) + ¼ k3 (δ0 + δ1)(δ0² + δ1²)

(a polynomial, so the limit δ1 → δ0, where D → F(δ), needs no special case):

- central spring (Gonzalez form, digest §2.4 remark): f = (D/l_av) [−x21,m; x21,m] with
  l_av = (l0 + l1)/2 and x21,m = (x21(u0) + x21(u1))/2, since ½(l1² − l0²) = l_av (l1 −
  l0); parallel to the mid-point chord, hence linear and angular momentum are exact, and
  a rigid motion between two configurations of equal length gives zero force. For k3 = 0
  it is Crisfield & Shi's β form (as ``truss2d``).
- bushing: f = [−F_m; F_m], F_m = (k + ½ k3 (|d0|² + |d1|²)) d_m, d_m = (d0 + d1)/2.
- rotational springs: ΔV = D (Δθ2 − Δθ1), and with the divided difference of the map
  Δθ(τ) = 2 atan(τ/2), R = (Δθ2 − Δθ1)/(τ2 − τ1) = cos h1 cos h2 · δ/sin δ (hᵢ = Δθᵢ/2,
  δ = h2 − h1; R → 1 as τ → 0, δ/sin δ by its series for |δ| < 10⁻²), the entries
  conjugate to τ are f = D R [−1; 1]: energy-exact *and* balanced (Σf = 0, so the
  rotary angular momentum Σ Jᵢωᵢ of two bodies joined by the spring is conserved). The
  ground version is the same with θ1 ≡ 0 (h1 = 0, R = Δθ/τ). A common rotation of both
  nodes leaves φ and hence V unchanged; the force pair is then scaled by R = cos² h.
  (The alternative f = D [−Δθ1/τ1; Δθ2/τ2] is energy-exact too but unbalanced.)

In the limit u1 → u0 the mid-point force tends to the internal force and K to half the
static tangent.

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
import numpy as np

from femb.core import jit
from femb.core.errors import InputError
from femb.core.rotations import phi_over_sin

from .base import CONSISTENT, INVARIANT, LUMPED, ElementKernels, ElementSpec
from .force_laws import WIDTH, as_force_law, attach_laws, check_dissipative, law_divided, law_piece, law_region, law_secant, law_value
from .masses import zero_geometric_stiffness
from .truss import _set_block, _set_force, central_midpoint_block

ALL_KINDS = (LUMPED, CONSISTENT, INVARIANT)


# ---------------------------------------------------------------------------- force law (shared)


@jit
def _law(k, k3, d):
    """The force law at deflection ``d``: ``(V, F, dF/dd)`` with F = k d + k3 d³."""
    d2 = d * d
    return 0.5 * k * d2 + 0.25 * k3 * d2 * d2, (k + k3 * d2) * d, k + 3.0 * k3 * d2


@jit
def _divided(k, k3, a, b):
    """Divided difference of V between deflections ``a`` and ``b`` and its derivative with
    respect to ``b``: ``(D, ∂D/∂b)``, D = [V(b) − V(a)]/(b − a) (= F(a) when b = a)."""
    s = a + b
    q = a * a + b * b
    return 0.5 * k * s + 0.25 * k3 * s * q, 0.5 * k + 0.25 * k3 * (q + 2.0 * b * s)


# Property rows: the scalar parameters; with a force law, then at column ``t`` (= number of
# parameters) the number of points n_s of the spring-law table and n_d of the damper-law
# table (0: none), then the two packed tables (elements.force_laws, 5 numbers per point).
# Rows without laws end after the parameters.


@jit
def _counts(p, e, t):
    """(n_s, n_d): points of the spring-law and damper-law tables of element ``e``."""
    if p.shape[1] <= t:
        return 0, 0
    return int(p[e, t]), int(p[e, t + 1])


@jit
def _spring(p, e, t, i3, d):
    """``(V, F, dF/dd)`` of the spring at deflection ``d``: the cubic law (k = p[e, 0],
    k3 = p[e, i3]) plus the table law when the row has one."""
    V, F, dF = _law(p[e, 0], p[e, i3], d)
    n = _counts(p, e, t)[0]
    if n > 0:
        Vt, Ft, dFt = law_value(p, e, t + 2, n, d)
        V += Vt
        F += Ft
        dF += dFt
    return V, F, dF


@jit
def _spring_force(p, e, t, i3, d):
    """``(F, dF/dd)`` of the spring at deflection ``d`` (``_spring`` without the energy)."""
    k = p[e, 0]
    k3 = p[e, i3]
    d2 = d * d
    F = (k + k3 * d2) * d
    dF = k + 3.0 * k3 * d2
    n = _counts(p, e, t)[0]
    if n > 0:
        Ft, dFt = law_piece(p, e, t + 2, n, law_region(p, e, t + 2, n, d), d)
        F += Ft
        dF += dFt
    return F, dF


@jit
def _spring_divided(p, e, t, i3, a, b):
    """``(D, ∂D/∂b)`` of the spring's energy between deflections ``a`` and ``b`` (cubic
    plus table law)."""
    D, dD = _divided(p[e, 0], p[e, i3], a, b)
    n = _counts(p, e, t)[0]
    if n > 0:
        Dt, dDt = law_divided(p, e, t + 2, n, a, b)
        D += Dt
        dD += dDt
    return D, dD


@jit
def _damper(p, e, t, ic, v):
    """``(F_d, dF_d/dv)`` of the damper at rate ``v``: c v (c = p[e, ic]) plus the
    damper-law table when the row has one."""
    c = p[e, ic]
    F = c * v
    dF = c
    ns, n = _counts(p, e, t)
    if n > 0:
        o = t + 2 + WIDTH * ns
        Ft, dFt = law_piece(p, e, o, n, law_region(p, e, o, n, v), v)
        F += Ft
        dF += dFt
    return F, dF


@jit
def _damper_secant(p, e, t, ic, s):
    """``(F_d(s)/s, dF_d/ds)`` at a rate magnitude ``s`` ≥ 0 (the limit dF_d/ds(0) at
    s = 0; F_d(0) = 0 is checked on input)."""
    c = p[e, ic]
    g = c
    dF = c
    ns, n = _counts(p, e, t)
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


# ---------------------------------------------------------------------------- central spring: p = (k, L0, c, k3)


@jit
def _central(X, u, p, e, x):
    """Current chord of central spring ``e``: writes x21 into ``x`` (dim,), returns
    ``(l, δ)`` with the elongation δ = l − L0 free of cancellation for small stretches."""
    dim = X.shape[2]
    L2 = 0.0
    dl2 = 0.0
    l2 = 0.0
    for k in range(dim):
        X21 = X[e, 1, k] - X[e, 0, k]
        d21 = u[e, dim + k] - u[e, k]
        x[k] = X21 + d21
        L2 += X21 * X21
        dl2 += d21 * (2.0 * X21 + d21)
        l2 += x[k] * x[k]
    l = np.sqrt(l2)
    lr = np.sqrt(L2)
    if l + lr > 0.0:
        delta = dl2 / (l + lr) + (lr - p[e, 1])
    else:
        delta = -p[e, 1]
    return l, delta


@jit
def central_internal_force(X, u, p, f):
    """f = N [−e; e], N = k δ + k3 δ³."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        l, delta = _central(X, u, p, e, x)
        N, _ = _spring_force(p, e, 4, 3, delta)
        _set_force(f, e, dim, N / l, x)


@jit
def central_tangent(X, u, p, f, K):
    """Force and tangent ``(k + 3 k3 δ²) e eᵀ + (N/l)(I − e eᵀ)`` (block pattern)."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        l, delta = _central(X, u, p, e, x)
        N, dN = _spring_force(p, e, 4, 3, delta)
        g = N / l
        _set_force(f, e, dim, g, x)
        for i in range(dim):
            for j in range(dim):
                kij = (dN - g) * x[i] * x[j] / (l * l)
                if i == j:
                    kij += g
                _set_block(K, e, dim, i, j, kij)


@jit
def central_resultants(X, u, p, s):
    """Axial force s[:, 0] = N = k δ + k3 δ³ (tension positive)."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        _, delta = _central(X, u, p, e, x)
        N, _ = _spring_force(p, e, 4, 3, delta)
        s[e, 0] = N


@jit
def central_geometric_stiffness(X, u, p, s, K):
    """Stress stiffness ``(N/l)(I − e eᵀ)`` at ``u`` with N = s[:, 0]."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        l, _ = _central(X, u, p, e, x)
        g = s[e, 0] / l
        for i in range(dim):
            for j in range(dim):
                kij = -g * x[i] * x[j] / (l * l)
                if i == j:
                    kij += g
                _set_block(K, e, dim, i, j, kij)


@jit
def central_strain_energy(X, u, p, out):
    """V = ½ k δ² + ¼ k3 δ⁴ per element."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        _, delta = _central(X, u, p, e, x)
        V, _, _ = _spring(p, e, 4, 3, delta)
        out[e] = V


@jit
def central_damping(X, u, p, C):
    """Axial viscous damping ``C = c e eᵀ`` (block pattern), e the axis at ``u`` (with a
    damper law, c + dF_d/dv at v = 0)."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        l, _ = _central(X, u, p, e, x)
        c = _damper(p, e, 4, 2, 0.0)[1] / (l * l)
        for i in range(dim):
            for j in range(dim):
                _set_block(C, e, dim, i, j, c * x[i] * x[j])


@jit
def central_damper_force(X, u, v, p, f, C):
    """Axial damper force ``F_d(v_a) [−e; e]`` with the elongation rate v_a = e·(v2 − v1)
    and F_d = c v_a + table law, and ``C = ∂f/∂v = F_d'(v_a) e eᵀ`` (block pattern), e the
    axis at ``u``."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        l, _ = _central(X, u, p, e, x)
        va = 0.0
        for k in range(dim):
            x[k] /= l
            va += x[k] * (v[e, dim + k] - v[e, k])
        F, dF = _damper(p, e, 4, 2, va)
        _set_force(f, e, dim, F, x)
        for i in range(dim):
            for j in range(dim):
                _set_block(C, e, dim, i, j, dF * x[i] * x[j])


@jit
def central_midpoint_force(X, u0, u1, p, f, K):
    """Gonzalez discrete-gradient force ``(D/l_av) [−x21,m; x21,m]`` and its derivative
    with respect to ``u1``: ``k = (c/2) I + ((∂D/∂δ1 − c/2)/(l_av l1)) x21,m x21(u1)ᵀ``,
    c = D/l_av (block pattern; non-symmetric)."""
    n_el, _, dim = X.shape
    a = np.empty(dim)
    b = np.empty(dim)
    for e in range(n_el):
        la, da = _central(X, u0, p, e, a)
        lb, db = _central(X, u1, p, e, b)
        D, dD = _spring_divided(p, e, 4, 3, da, db)
        l_av = 0.5 * (la + lb)
        c = D / l_av
        g = (dD - 0.5 * c) / (l_av * lb)
        central_midpoint_block(f, K, e, dim, a, b, c, g)


# ---------------------------------------------------------------------------- bushing: p = (k, c, k3)


@jit
def _relative(u, e, dim, d):
    """Writes d = u2 − u1 into ``d`` (dim,) and returns |d|²."""
    s = 0.0
    for k in range(dim):
        d[k] = u[e, dim + k] - u[e, k]
        s += d[k] * d[k]
    return s


@jit
def _bushing_table(p, e, r):
    """Table part of the bushing law at |d| = r: ``(F_t(r)/r, F_t'(r))`` (zeros without a
    table; F_t(r)/r as the mean slope over [0, r], F_t(0) = 0 being checked on input)."""
    n = _counts(p, e, 3)[0]
    if n == 0:
        return 0.0, 0.0
    dF = law_piece(p, e, 5, n, law_region(p, e, 5, n, r), r)[1]
    return law_secant(p, e, 5, n, 0.0, r), dF


@jit
def _bushing_table_energy(p, e, r):
    """Energy V_t(r) = ∫_0^r F_t of the bushing's table law (0 without a table)."""
    n = _counts(p, e, 3)[0]
    if n == 0:
        return 0.0
    return law_value(p, e, 5, n, r)[0]


@jit
def bushing_internal_force(X, u, p, f):
    """f = [−F; F], F = (k + k3 |d|² + F_t(|d|)/|d|) d."""
    n_el, _, dim = X.shape
    d = np.empty(dim)
    for e in range(n_el):
        s = _relative(u, e, dim, d)
        gt, _ = _bushing_table(p, e, np.sqrt(s))
        _set_force(f, e, dim, p[e, 0] + p[e, 2] * s + gt, d)


@jit
def bushing_tangent(X, u, p, f, K):
    """Force and tangent ``(k + k3 |d|² + g_t) I + (2 k3 + (F_t' − g_t)/|d|²) d dᵀ``
    (block pattern; g_t = F_t(|d|)/|d|)."""
    n_el, _, dim = X.shape
    d = np.empty(dim)
    for e in range(n_el):
        s = _relative(u, e, dim, d)
        gt, dFt = _bushing_table(p, e, np.sqrt(s))
        a = p[e, 0] + p[e, 2] * s + gt
        b = 2.0 * p[e, 2]
        if s > 0.0:
            b += (dFt - gt) / s
        _set_force(f, e, dim, a, d)
        for i in range(dim):
            for j in range(dim):
                kij = b * d[i] * d[j]
                if i == j:
                    kij += a
                _set_block(K, e, dim, i, j, kij)


@jit
def bushing_resultants(X, u, p, s):
    """Force F = (k + k3 |d|² + F_t(|d|)/|d|) d exerted by node 2 on the bushing, s (n_el, dim)."""
    n_el, _, dim = X.shape
    d = np.empty(dim)
    for e in range(n_el):
        q = _relative(u, e, dim, d)
        a = p[e, 0] + p[e, 2] * q + _bushing_table(p, e, np.sqrt(q))[0]
        for k in range(dim):
            s[e, k] = a * d[k]


@jit
def bushing_strain_energy(X, u, p, out):
    """V = ½ k |d|² + ¼ k3 |d|⁴ + V_t(|d|) per element."""
    n_el, _, dim = X.shape
    d = np.empty(dim)
    for e in range(n_el):
        s = _relative(u, e, dim, d)
        out[e] = 0.5 * p[e, 0] * s + 0.25 * p[e, 2] * s * s + _bushing_table_energy(p, e, np.sqrt(s))


@jit
def bushing_damping(X, u, p, C):
    """Isotropic viscous damping ``C = c I`` (block pattern; with a damper law c + dF_d/ds
    at s = 0)."""
    n_el, _, dim = X.shape
    for e in range(n_el):
        c = _damper_secant(p, e, 3, 1, 0.0)[0]
        for i in range(dim):
            for j in range(dim):
                _set_block(C, e, dim, i, j, c if i == j else 0.0)


@jit
def bushing_damper_force(X, u, v, p, f, C):
    """Isotropic damper force along the relative velocity w = v2 − v1, F = F_d(|w|) w/|w|
    (F_d = c s + table law of the rate magnitude s = |w|), and ``C = g I + (F_d' − g) n nᵀ``,
    g = F_d(s)/s, n = w/s (block pattern; C = F_d'(0) I at w = 0)."""
    n_el, _, dim = X.shape
    w = np.empty(dim)
    for e in range(n_el):
        s2 = _relative(v, e, dim, w)
        s = np.sqrt(s2)
        g, dF = _damper_secant(p, e, 3, 1, s)
        b = (dF - g) / s2 if s2 > 0.0 else 0.0
        _set_force(f, e, dim, g, w)
        for i in range(dim):
            for j in range(dim):
                kij = b * w[i] * w[j]
                if i == j:
                    kij += g
                _set_block(C, e, dim, i, j, kij)


@jit
def bushing_midpoint_force(X, u0, u1, p, f, K):
    """Discrete gradient ``F_m = (k + ½ k3 (|d0|² + |d1|²) + D_t/r_av) d_m`` and its
    derivative with respect to ``u1``: ``k = (a_m/2) I + (k3 + g_t) d_m d1ᵀ`` (block
    pattern). The table part is Gonzalez's form in r = |d|: D_t the divided difference of
    V_t between r0 and r1, r_av = (r0 + r1)/2 (D_t/r_av → F_t'(0) at r_av = 0), and
    g_t = (∂D_t/∂r1 − D_t/(2 r_av))/(r_av r1) (0 at r1 = 0)."""
    n_el, _, dim = X.shape
    d0 = np.empty(dim)
    d1 = np.empty(dim)
    for e in range(n_el):
        s0 = _relative(u0, e, dim, d0)
        s1 = _relative(u1, e, dim, d1)
        k3 = p[e, 2]
        am = p[e, 0] + 0.5 * k3 * (s0 + s1)
        gb = k3
        n = _counts(p, e, 3)[0]
        if n > 0:
            r0 = np.sqrt(s0)
            r1 = np.sqrt(s1)
            r_av = 0.5 * (r0 + r1)
            if r_av > 0.0:
                D, dD = law_divided(p, e, 5, n, r0, r1)
                ct = D / r_av
                if r1 > 0.0:
                    gb += (dD - 0.5 * ct) / (r_av * r1)
            else:
                ct = law_secant(p, e, 5, n, 0.0, 0.0)
            am += ct
        for i in range(dim):
            dm = 0.5 * (d0[i] + d1[i])
            f[e, i] = -am * dm
            f[e, dim + i] = am * dm
            for j in range(dim):
                kij = gb * dm * d1[j]
                if i == j:
                    kij += 0.5 * am
                _set_block(K, e, dim, i, j, kij)


# ---------------------------------------------------------------------------- rotational springs: p = (k, theta0, c, k3)


@jit
def _twist(u, p, e, n):
    """Relative rotation φ of rotational spring ``e`` with ``n`` nodes (1: θ − θ0;
    2: θ2 − θ1 − θ0)."""
    if n == 1:
        return u[e, 0] - p[e, 1]
    return u[e, 1] - u[e, 0] - p[e, 1]


@jit
def _sign(n, i):
    """Sign of node ``i`` in φ: +1 for the last node, −1 for the first of two."""
    return 1.0 if i == n - 1 else -1.0


@jit
def rotational_internal_force(X, u, p, f):
    """f = M ∂φ/∂θ: [−M; M] (two nodes) or [M] (one node), M = k φ + k3 φ³."""
    n = X.shape[1]
    for e in range(u.shape[0]):
        M, _ = _spring_force(p, e, 4, 3, _twist(u, p, e, n))
        for i in range(n):
            f[e, i] = _sign(n, i) * M


@jit
def rotational_tangent(X, u, p, f, K):
    """Force and tangent ``(k + 3 k3 φ²) sᵢ sⱼ`` (s = ∂φ/∂θ)."""
    n = X.shape[1]
    for e in range(u.shape[0]):
        M, dM = _spring_force(p, e, 4, 3, _twist(u, p, e, n))
        for i in range(n):
            si = _sign(n, i)
            f[e, i] = si * M
            for j in range(n):
                K[e, i, j] = si * _sign(n, j) * dM


@jit
def rotational_resultants(X, u, p, s):
    """Moment s[:, 0] = M = k φ + k3 φ³ exerted by the (last) node on the spring."""
    n = X.shape[1]
    for e in range(u.shape[0]):
        M, _ = _spring_force(p, e, 4, 3, _twist(u, p, e, n))
        s[e, 0] = M


@jit
def rotational_strain_energy(X, u, p, out):
    """V = ½ k φ² + ¼ k3 φ⁴ per element."""
    n = X.shape[1]
    for e in range(u.shape[0]):
        V, _, _ = _spring(p, e, 4, 3, _twist(u, p, e, n))
        out[e] = V


@jit
def rotational_damping(X, u, p, C):
    """Viscous damping on the relative angular velocity: ``C = c sᵢ sⱼ`` (with a damper
    law c + dF_d/dω at ω = 0)."""
    n = X.shape[1]
    for e in range(u.shape[0]):
        c = _damper(p, e, 4, 2, 0.0)[1]
        for i in range(n):
            for j in range(n):
                C[e, i, j] = c * _sign(n, i) * _sign(n, j)


@jit
def rotational_damper_force(X, u, v, p, f, C):
    """Damper moment on the relative angular rate ω = Σ sᵢ vᵢ: ``f = M_d(ω) s``,
    ``C = M_d'(ω) s sᵀ`` (M_d = c ω + table law, s = ∂φ/∂θ)."""
    n = X.shape[1]
    for e in range(u.shape[0]):
        w = 0.0
        for i in range(n):
            w += _sign(n, i) * v[e, i]
        M, dM = _damper(p, e, 4, 2, w)
        for i in range(n):
            si = _sign(n, i)
            f[e, i] = si * M
            for j in range(n):
                C[e, i, j] = dM * si * _sign(n, j)


@jit
def rotational_midpoint_force(X, u0, u1, p, f, K):
    """Energy- and momentum-exact discrete gradient in the Cayley step parameters
    τᵢ = 2 tan(hᵢ), hᵢ = Δθᵢ/2 (|Δθᵢ| < π).

    ``f = F [−1; 1]`` (two nodes) or ``f = F`` (one node, where h1 = 0) with
    ``F = D·R``, D the divided difference of V between φ(u0) and φ(u1) and
    ``R = (Δθ2 − Δθ1)/(τ2 − τ1) = cos h1 cos h2 · δ/sin δ``, δ = h2 − h1 (the divided
    difference of Δθ(τ) = 2 atan(τ/2); R = cos² h when τ1 = τ2, R → 1 as τ → 0).
    Hence f·τ = D (Δθ2 − Δθ1) = V(u1) − V(u0) and Σf = 0. Derivative:
    ``∂F/∂τⱼ = D' sⱼ cos² hⱼ R + D (∂R/∂hⱼ) ½ cos² hⱼ`` (D' = ∂D/∂φ1, sⱼ = ∂φ/∂θⱼ),
    ``K[i, j] = sᵢ ∂F/∂τⱼ``.
    """
    n = X.shape[1]
    for e in range(u1.shape[0]):
        D, dD = _spring_divided(p, e, 4, 3, _twist(u0, p, e, n), _twist(u1, p, e, n))
        h2 = 0.5 * (u1[e, n - 1] - u0[e, n - 1])
        h1 = 0.5 * (u1[e, 0] - u0[e, 0]) if n == 2 else 0.0
        c1 = np.cos(h1)
        c2 = np.cos(h2)
        S, dS = phi_over_sin(h2 - h1)
        R = c1 * c2 * S
        # ∂F/∂τ of the last node (index n − 1), then of the first node of two
        dF2 = (dD * R + 0.5 * D * (c1 * c2 * dS - np.sin(h2) * c1 * S)) * c2 * c2
        f[e, n - 1] = D * R
        K[e, n - 1, n - 1] = dF2
        if n == 2:
            dF1 = (-dD * R - 0.5 * D * (c1 * c2 * dS + np.sin(h1) * c2 * S)) * c1 * c1
            f[e, 0] = -D * R
            K[e, 0, 0] = -dF1
            K[e, 0, 1] = -dF2
            K[e, 1, 0] = dF1


# ---------------------------------------------------------------------------- specs


def properties(material, section):
    """Springs and dampers take their parameters directly (``Model.add_discrete``)."""
    raise ValueError("springs and dampers take direct values (k, c, ...) via Model.add_discrete, not a material and section")


LAW_KEYWORDS = ("law", "law_range", "damper_law", "damper_range", "smooth")


def _check_law(name, law, where):
    """Element-type checks of a spring law: a bushing's law acts on |d| ≥ 0 and needs
    F(0) = 0 (its force direction d/|d| is undefined at d = 0)."""
    if name.startswith("bushing"):
        F0 = float(law(np.array([0.0]))[0])
        if abs(F0) > 1e-12 * law.scale():
            raise InputError(f"{where}: a bushing's law acts on the deflection |d| ≥ 0 and needs F(0) = 0, got F(0) = {F0:g}")


def _laws(name, values, where):
    """(spring law, damper law) as ForceLaws (or None) from the keywords of ``values``."""
    smooth = bool(values.get("smooth", False))
    law = damper = None
    if values.get("law") is not None:
        law = as_force_law(values["law"], f"{where}: law", values.get("law_range"), smooth)
        _check_law(name, law, f"{where}: law")
    elif values.get("law_range") is not None:
        raise InputError(f"{where}: law_range is given without a law")
    if values.get("damper_law") is not None:
        damper = as_force_law(values["damper_law"], f"{where}: damper_law", values.get("damper_range"), smooth)
        check_dissipative(damper, f"{where}: damper_law")
    elif values.get("damper_range") is not None:
        raise InputError(f"{where}: damper_range is given without a damper_law")
    return law, damper


def _prepare(name):
    """``prepare_values(values, where)`` of spring type ``name`` (Model.add_discrete):
    builds the ForceLaws of ``law``/``damper_law`` (checked, errors naming ``where``),
    drops the helper keywords and lets ``k`` default to 0 when a law (of the spring or of
    the damper) is given."""

    def prepare(values, where):
        values = dict(values)
        law, damper = _laws(name, values, where)
        for key in LAW_KEYWORDS:
            values.pop(key, None)
        return attach_laws(values, law, damper, "k")

    return prepare


def _packer(name):
    """``pack(tables)`` of spring type ``name``: [n_s, n_d, spring law, damper law]."""

    def pack(tables):
        law, damper = _laws(name, tables, f"element {name!r}")
        if law is None and damper is None:
            return np.zeros(0)
        out = [np.array([0.0 if law is None else law.n, 0.0 if damper is None else damper.n])]
        out += [x.packed() for x in (law, damper) if x is not None]
        return np.concatenate(out)

    return pack


CENTRAL_KERNELS = ElementKernels(
    internal_force=central_internal_force,
    tangent=central_tangent,
    resultants=central_resultants,
    geometric_stiffness=central_geometric_stiffness,
    strain_energy=central_strain_energy,
    mass=zero_mass,
    midpoint_force=central_midpoint_force,
    damping=central_damping,
    damper_force=central_damper_force,
)

BUSHING_KERNELS = ElementKernels(
    internal_force=bushing_internal_force,
    tangent=bushing_tangent,
    resultants=bushing_resultants,
    geometric_stiffness=zero_geometric_stiffness,
    strain_energy=bushing_strain_energy,
    mass=zero_mass,
    midpoint_force=bushing_midpoint_force,
    damping=bushing_damping,
    damper_force=bushing_damper_force,
)

ROTATIONAL_KERNELS = ElementKernels(
    internal_force=rotational_internal_force,
    tangent=rotational_tangent,
    resultants=rotational_resultants,
    geometric_stiffness=zero_geometric_stiffness,
    strain_energy=rotational_strain_energy,
    mass=zero_mass,
    midpoint_force=rotational_midpoint_force,
    damping=rotational_damping,
    damper_force=rotational_damper_force,
)

_DOFS = {2: ("ux", "uy"), 3: ("ux", "uy", "uz")}
_FORCES = {2: ("Fx", "Fy"), 3: ("Fx", "Fy", "Fz")}


def _spec(name, cell_type, n_nodes, dim, node_dofs, params, defaults, resultant_names, kernels, requires_length, description):
    """Spec of a spring type; its property rows end with the (optional) law tables."""
    return ElementSpec(
        name=name,
        cell_type=cell_type,
        n_nodes=n_nodes,
        dim=dim,
        node_dofs=node_dofs,
        params=params,
        resultant_names=resultant_names,
        properties=properties,
        kernels=kernels,
        constant_mass=ALL_KINDS,
        requires_length=requires_length,
        description=description,
        defaults=defaults,
        prepare_values=_prepare(name),
        law_stiffness="k",
        table_params=("law", "damper_law"),
        pack=_packer(name),
    )


def _central_spec(dim):
    return _spec(f"spring{dim}d", "line", 2, dim, _DOFS[dim], ("k", "L0", "c", "k3"), {"c": 0.0, "k3": 0.0}, ("N",),
                 CENTRAL_KERNELS, True,
                 f"{dim}-D central spring-damper, V = ½k(l − L0)² + ¼k3(l − L0)⁴, axial damping c; Gonzalez mid-point force")


def _bushing_spec(dim):
    return _spec(f"bushing{dim}d", "line", 2, dim, _DOFS[dim], ("k", "c", "k3"), {"c": 0.0, "k3": 0.0}, _FORCES[dim],
                 BUSHING_KERNELS, False,
                 f"{dim}-D isotropic bushing on d = u2 − u1, V = ½k|d|² + ¼k3|d|⁴, damping c I (not rotation-invariant)")


_ROT_PARAMS = ("k", "theta0", "c", "k3")
_ROT_DEFAULTS = {"theta0": 0.0, "c": 0.0, "k3": 0.0}

SPECS = {
    "spring2d": _central_spec(2),
    "spring3d": _central_spec(3),
    "bushing2d": _bushing_spec(2),
    "bushing3d": _bushing_spec(3),
    "rotational_spring2d": _spec(
        "rotational_spring2d", "line", 2, 2, ("rz",), _ROT_PARAMS, _ROT_DEFAULTS, ("M",), ROTATIONAL_KERNELS, False,
        "2-D torsion spring-damper between two nodes' rz, V = ½kφ² + ¼k3φ⁴, φ = θ2 − θ1 − theta0; Cayley mid-point force"),
    "rotational_spring2d_ground": _spec(
        "rotational_spring2d_ground", "vertex", 1, 2, ("rz",), _ROT_PARAMS, _ROT_DEFAULTS, ("M",), ROTATIONAL_KERNELS, False,
        "2-D torsion spring-damper from a node's rz to the ground, φ = θ − theta0; Cayley mid-point force"),
}
