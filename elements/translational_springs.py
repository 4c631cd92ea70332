"""Translational springs and dampers: central springs and isotropic bushings, 2-D and 3-D.

Massless discrete elements created with ``Model.add_discrete``, with the cubic force law,
the linear damper and the user force laws of femb.elements.spring_laws.

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

Mid-point (discrete-gradient) forces, energy-exact (``midpoint_force``; the step
increment and the divided difference D of the force law in femb.elements.spring_laws):

- central spring (Gonzalez form, digest §2.4 remark): f = (D/l_av) [−x21,m; x21,m] with
  l_av = (l0 + l1)/2 and x21,m = (x21(u0) + x21(u1))/2, since ½(l1² − l0²) = l_av (l1 −
  l0); parallel to the mid-point chord, hence linear and angular momentum are exact, and
  a rigid motion between two configurations of equal length gives zero force. For k3 = 0
  it is Crisfield & Shi's β form (as ``truss2d``).
- bushing: f = [−F_m; F_m], F_m = (k + ½ k3 (|d0|² + |d1|²)) d_m, d_m = (d0 + d1)/2.
"""
import numpy as np

from femb.core import jit

from .base import ElementKernels
from .force_laws import law_divided, law_piece, law_region, law_secant, law_value
from .masses import zero_geometric_stiffness
from .spring_input import spring_spec
from .spring_laws import damper_secant, damper_value, law_counts, spring_divided, spring_force, spring_value, zero_mass
from .truss import _chord, _norm, _set_block, _set_force, central_midpoint_block, chord_block, dyad_block, eng_geometric_stiffness

# ---------------------------------------------------------------------------- central spring: p = (k, L0, c, k3)


@jit(internal=True)
def _central(X, u, p, e, x):
    """Current chord of central spring ``e``: writes x21 into ``x`` (dim,), returns
    ``(l, δ)`` with the elongation δ = l − L0 free of cancellation for small stretches."""
    L2, dl2 = _chord(X, u, e, x)
    l = _norm(x)
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
        N, _ = spring_force(p, e, 4, 3, delta)
        _set_force(f, e, dim, N / l, x)


@jit
def central_tangent(X, u, p, f, K):
    """Force and tangent ``(k + 3 k3 δ²) e eᵀ + (N/l)(I − e eᵀ)`` (block pattern)."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        l, delta = _central(X, u, p, e, x)
        N, dN = spring_force(p, e, 4, 3, delta)
        g = N / l
        _set_force(f, e, dim, g, x)
        chord_block(K, e, dim, x, l, dN - g, g)


@jit
def central_resultants(X, u, p, s):
    """Axial force s[:, 0] = N = k δ + k3 δ³ (tension positive)."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        _, delta = _central(X, u, p, e, x)
        N, _ = spring_force(p, e, 4, 3, delta)
        s[e, 0] = N


@jit
def central_strain_energy(X, u, p, out):
    """V = ½ k δ² + ¼ k3 δ⁴ per element."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        _, delta = _central(X, u, p, e, x)
        V, _, _ = spring_value(p, e, 4, 3, delta)
        out[e] = V


@jit
def central_damping(X, u, p, C):
    """Axial viscous damping ``C = c e eᵀ`` (block pattern), e the axis at ``u`` (with a
    damper law, c + dF_d/dv at v = 0)."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        l, _ = _central(X, u, p, e, x)
        c = damper_value(p, e, 4, 2, 0.0)[1] / (l * l)
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
        F, dF = damper_value(p, e, 4, 2, va)
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
        D, dD = spring_divided(p, e, 4, 3, da, db)
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


@jit(internal=True)
def _bushing_table(p, e, r):
    """Table part of the bushing law at |d| = r: ``(F_t(r)/r, F_t'(r))`` (zeros without a
    table; F_t(r)/r as the mean slope over [0, r], F_t(0) = 0 being checked on input)."""
    n = law_counts(p, e, 3)[0]
    if n == 0:
        return 0.0, 0.0
    dF = law_piece(p, e, 5, n, law_region(p, e, 5, n, r), r)[1]
    return law_secant(p, e, 5, n, 0.0, r), dF


@jit(internal=True)
def _bushing_table_energy(p, e, r):
    """Energy V_t(r) = ∫_0^r F_t of the bushing's table law (0 without a table)."""
    n = law_counts(p, e, 3)[0]
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
        dyad_block(K, e, dim, d, b, a)


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
        c = damper_secant(p, e, 3, 1, 0.0)[0]
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
        g, dF = damper_secant(p, e, 3, 1, s)
        b = (dF - g) / s2 if s2 > 0.0 else 0.0
        _set_force(f, e, dim, g, w)
        dyad_block(C, e, dim, w, b, g)


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
        n = law_counts(p, e, 3)[0]
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
        central_midpoint_block(f, K, e, dim, d0, d1, am, gb)


# ---------------------------------------------------------------------------- specs


CENTRAL_KERNELS = ElementKernels(
    internal_force=central_internal_force,
    tangent=central_tangent,
    resultants=central_resultants,
    geometric_stiffness=eng_geometric_stiffness,  # (N/l)(I − e eᵀ), as the truss
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

_DOFS = {2: ("ux", "uy"), 3: ("ux", "uy", "uz")}
_FORCES = {2: ("Fx", "Fy"), 3: ("Fx", "Fy", "Fz")}


def _central_spec(dim):
    return spring_spec(f"spring{dim}d", "line", 2, dim, _DOFS[dim], ("k", "L0", "c", "k3"), {"c": 0.0, "k3": 0.0}, ("N",),
                 CENTRAL_KERNELS, True,
                 f"{dim}-D central spring-damper, V = ½k(l − L0)² + ¼k3(l − L0)⁴, axial damping c; Gonzalez mid-point force")


def _bushing_spec(dim):
    return spring_spec(f"bushing{dim}d", "line", 2, dim, _DOFS[dim], ("k", "c", "k3"), {"c": 0.0, "k3": 0.0}, _FORCES[dim],
                 BUSHING_KERNELS, False,
                 f"{dim}-D isotropic bushing on d = u2 − u1, V = ½k|d|² + ¼k3|d|⁴, damping c I (not rotation-invariant)")

SPECS = {
    "spring2d": _central_spec(2),
    "spring3d": _central_spec(3),
    "bushing2d": _bushing_spec(2),
    "bushing3d": _bushing_spec(3),
}
