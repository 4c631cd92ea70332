"""Two-node truss (bar) elements in 2-D and 3-D.

Two strain measures, each in a 2-D and a 3-D spec:

- ``truss2d`` / ``truss3d``: co-rotational engineering strain. With ``l0 = |X2 − X1|``, the
  current chord ``x21 = X2 − X1 + u2 − u1``, ``l = |x21|`` and ``e = x21/l``:
  ``N = EA (l − l0)/l0`` (axial force, tension positive), ``V = EA (l − l0)²/(2 l0)``,
  ``f = N [−e; e]``, tangent block ``k = (EA/l0) e eᵀ + (N/l)(I − e eᵀ)``.
  The mid-point force is Crisfield & Shi's β form
  ``f = (N_av/l_av) [−x21,m; x21,m]`` (reference digest §2.4, eq. T-10; tangent T-20).
- ``truss2d_green`` / ``truss3d_green``: total-Lagrangian Green strain
  ``ε = (l² − l0²)/(2 l0²)``, ``N = EA ε``, ``V = EA l0 ε²/2``, ``f = (N/l0) [−x21; x21]``,
  ``k = (EA/l0³) x21 x21ᵀ + (N/l0) I``. The resultant ``N`` reported for this variant is
  the *second Piola–Kirchhoff* axial force; the true (Cauchy) axial force along the current
  chord is ``N l/l0``. The mid-point force is Simo & Tarnow's
  ``f = (N_av/l0) [−x21,m; x21,m]`` (digest §2.8, eq. T-24).

Both mid-point forces are exact discrete gradients: ``f·(u1 − u0) = V(u1) − V(u0)`` for
any pair of configurations, the force is parallel to the mid-point chord (linear and
angular momentum are conserved exactly) and a rigid motion between two unstretched
configurations gives zero force.

Every 2x2 block structure below is over nodes: an element matrix is
``[[k, −k], [−k, k]]`` with ``k`` of size dim x dim. Units: whatever consistent set the
model uses (EA is a force, rhoA a mass per length, forces are forces, energies energies).
Element properties ``p[:, 0] = EA``, ``p[:, 1] = rhoA``; resultants ``s[:, 0] = N``.

The kernels serve 2-D and 3-D alike: the spatial dimension is ``X.shape[2]``.
"""
import numpy as np

from femb.core import jit

from .base import CONSISTENT, INVARIANT, LUMPED, ElementKernels, ElementSpec

# ---------------------------------------------------------------------------- helpers


@jit(internal=True)
def _chord(X, u, e, x):
    """Current chord of element ``e``.

    Writes ``x21 = X2 − X1 + u2 − u1`` into ``x`` (dim,) and returns ``(l0², l² − l0²)``,
    the latter computed as ``d21·(2 X21 + d21)`` without cancellation.
    """
    dim = X.shape[2]
    L2 = 0.0
    dl2 = 0.0
    for k in range(dim):
        X21 = X[e, 1, k] - X[e, 0, k]
        d21 = u[e, dim + k] - u[e, k]
        x[k] = X21 + d21
        L2 += X21 * X21
        dl2 += d21 * (2.0 * X21 + d21)
    return L2, dl2


@jit(internal=True)
def _norm(x):
    """Euclidean norm of a short vector."""
    s = 0.0
    for k in range(x.shape[0]):
        s += x[k] * x[k]
    return np.sqrt(s)


@jit(internal=True)
def _set_block(K, e, dim, i, j, value):
    """Write ``value`` at (i, j) of the node block pattern ``[[k, −k], [−k, k]]``."""
    K[e, i, j] = value
    K[e, i, dim + j] = -value
    K[e, dim + i, j] = -value
    K[e, dim + i, dim + j] = value


@jit(internal=True)
def chord_block(K, e, dim, x, l, a, g):
    """Write k = a e eᵀ + g I, e = x/l the unit chord (x (dim,), l = |x|), evaluated as
    a·x_i·x_j/l² (+ g on the diagonal), in the block pattern [[k, −k], [−k, k]] of K[e]."""
    for i in range(dim):
        for j in range(dim):
            kij = a * x[i] * x[j] / (l * l)
            if i == j:
                kij += g
            _set_block(K, e, dim, i, j, kij)


@jit(internal=True)
def dyad_block(K, e, dim, x, a, g):
    """Write k = a x xᵀ + g I (x (dim,)) in the block pattern [[k, −k], [−k, k]] of K[e]."""
    for i in range(dim):
        for j in range(dim):
            kij = a * x[i] * x[j]
            if i == j:
                kij += g
            _set_block(K, e, dim, i, j, kij)


@jit(internal=True)
def reference_length2(X, e):
    """Squared reference length |X2 − X1|² of two-node element e (X (n_el, 2, dim))."""
    L2 = 0.0
    for k in range(X.shape[2]):
        X21 = X[e, 1, k] - X[e, 0, k]
        L2 += X21 * X21
    return L2


@jit(internal=True)
def central_midpoint_block(f, K, e, dim, a, b, c, g):
    """Write the mid-point force of a central two-node element, f[e] = c·[−x_m; x_m] with
    the mid chord x_m = (a + b)/2, and its derivative with respect to the end displacements,
    k = g·x_m bᵀ + (c/2) I, in the block pattern [[k, −k], [−k, k]] of K[e] (a, b: the
    chords at the start and end of the step)."""
    for i in range(dim):
        xm = 0.5 * (a[i] + b[i])
        f[e, i] = -c * xm
        f[e, dim + i] = c * xm
        for j in range(dim):
            kij = g * xm * b[j]
            if i == j:
                kij += 0.5 * c
            _set_block(K, e, dim, i, j, kij)


@jit(internal=True)
def _set_force(f, e, dim, c, x):
    """f[e] = c · [−x; x]."""
    for k in range(dim):
        f[e, k] = -c * x[k]
        f[e, dim + k] = c * x[k]


@jit(internal=True)
def _eng_axial(EA, L2, dl2, l):
    """Engineering-strain axial force ``EA (l − l0)/l0`` with ``l − l0 = dl2/(l + l0)``."""
    l0 = np.sqrt(L2)
    return EA * dl2 / ((l + l0) * l0)


# ---------------------------------------------------------------------------- co-rotational engineering strain


@jit
def eng_internal_force(X, u, p, f):
    """Internal force f = N [−e; e] (n_el, 2·dim), N = EA (l − l0)/l0."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        L2, dl2 = _chord(X, u, e, x)
        l = _norm(x)
        N = _eng_axial(p[e, 0], L2, dl2, l)
        _set_force(f, e, dim, N / l, x)


@jit
def eng_tangent(X, u, p, f, K):
    """Internal force and tangent ``k = (EA/l0) e eᵀ + (N/l)(I − e eᵀ)`` in block pattern."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        L2, dl2 = _chord(X, u, e, x)
        l = _norm(x)
        EA = p[e, 0]
        N = _eng_axial(EA, L2, dl2, l)
        _set_force(f, e, dim, N / l, x)
        a = EA / np.sqrt(L2)
        g = N / l
        for i in range(dim):
            for j in range(dim):
                eij = x[i] * x[j] / (l * l)
                kij = (a - g) * eij
                if i == j:
                    kij += g
                _set_block(K, e, dim, i, j, kij)


@jit
def eng_resultants(X, u, p, s):
    """Axial force s[:, 0] = N = EA (l − l0)/l0 (tension positive)."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        L2, dl2 = _chord(X, u, e, x)
        s[e, 0] = _eng_axial(p[e, 0], L2, dl2, _norm(x))


@jit
def eng_geometric_stiffness(X, u, p, s, K):
    """Stress stiffness ``(N/l)(I − e eᵀ)`` (block pattern) at ``u`` with N = s[:, 0]."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        _chord(X, u, e, x)
        l = _norm(x)
        g = s[e, 0] / l
        chord_block(K, e, dim, x, l, -g, g)


@jit
def eng_strain_energy(X, u, p, out):
    """Strain energy ``EA (l − l0)²/(2 l0)`` per element, out (n_el,)."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        L2, dl2 = _chord(X, u, e, x)
        l0 = np.sqrt(L2)
        dl = dl2 / (_norm(x) + l0)
        out[e] = p[e, 0] * dl * dl / (2.0 * l0)


@jit
def eng_midpoint_force(X, u0, u1, p, f, K):
    """Crisfield–Shi mid-point force and its derivative with respect to ``u1``.

    ``f = (N_av/l_av) [−x21,m; x21,m]`` with ``N_av = (N(u0) + N(u1))/2``,
    ``l_av = (l(u0) + l(u1))/2`` and ``x21,m = (x21(u0) + x21(u1))/2``;
    ``k = (N_av/(2 l_av)) I + ((EA/l0 − N_av/l_av)/(2 l_av l1)) x21,m x21(u1)ᵀ`` (digest
    eq. T-20 with β e_m = x21,m/l_av; non-symmetric). f·(u1 − u0) = V(u1) − V(u0) exactly.
    Reduces to ``internal_force`` (and K to half the static tangent) when u0 == u1.
    """
    n_el, _, dim = X.shape
    a = np.empty(dim)
    b = np.empty(dim)
    for e in range(n_el):
        L2, dl2a = _chord(X, u0, e, a)
        _, dl2b = _chord(X, u1, e, b)
        la = _norm(a)
        lb = _norm(b)
        EA = p[e, 0]
        N_av = 0.5 * (_eng_axial(EA, L2, dl2a, la) + _eng_axial(EA, L2, dl2b, lb))
        l_av = 0.5 * (la + lb)
        c = N_av / l_av
        g = (EA / np.sqrt(L2) - c) / (2.0 * l_av * lb)
        central_midpoint_block(f, K, e, dim, a, b, c, g)


# ---------------------------------------------------------------------------- Green strain (total Lagrangian)


@jit
def green_internal_force(X, u, p, f):
    """Internal force f = (N/l0) [−x21; x21], N = EA (l² − l0²)/(2 l0²)."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        L2, dl2 = _chord(X, u, e, x)
        N = p[e, 0] * dl2 / (2.0 * L2)
        _set_force(f, e, dim, N / np.sqrt(L2), x)


@jit
def green_tangent(X, u, p, f, K):
    """Internal force and tangent ``k = (EA/l0³) x21 x21ᵀ + (N/l0) I`` in block pattern."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        L2, dl2 = _chord(X, u, e, x)
        l0 = np.sqrt(L2)
        EA = p[e, 0]
        g = EA * dl2 / (2.0 * L2) / l0
        _set_force(f, e, dim, g, x)
        dyad_block(K, e, dim, x, EA / (L2 * l0), g)


@jit
def green_resultants(X, u, p, s):
    """Second Piola–Kirchhoff axial force s[:, 0] = N = EA ε, ε = (l² − l0²)/(2 l0²).

    The true (Cauchy) axial force along the current chord is N l/l0.
    """
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        L2, dl2 = _chord(X, u, e, x)
        s[e, 0] = p[e, 0] * dl2 / (2.0 * L2)


@jit
def green_geometric_stiffness(X, u, p, s, K):
    """Stress stiffness ``(N/l0) I`` (block pattern) with N = s[:, 0] (2nd PK force)."""
    n_el, _, dim = X.shape
    for e in range(n_el):
        g = s[e, 0] / np.sqrt(reference_length2(X, e))
        for i in range(dim):
            for j in range(dim):
                _set_block(K, e, dim, i, j, g if i == j else 0.0)


@jit
def green_strain_energy(X, u, p, out):
    """Strain energy ``EA l0 ε²/2`` per element, out (n_el,)."""
    n_el, _, dim = X.shape
    x = np.empty(dim)
    for e in range(n_el):
        L2, dl2 = _chord(X, u, e, x)
        eps = dl2 / (2.0 * L2)
        out[e] = 0.5 * p[e, 0] * np.sqrt(L2) * eps * eps


@jit
def green_midpoint_force(X, u0, u1, p, f, K):
    """Simo–Tarnow mid-point force and its derivative with respect to ``u1``.

    ``f = (N_av/l0) [−x21,m; x21,m]`` with ``N_av = (N(u0) + N(u1))/2`` (2nd PK forces),
    ``k = (N_av/(2 l0)) I + (EA/(2 l0³)) x21,m x21(u1)ᵀ`` (non-symmetric).
    f·(u1 − u0) = V(u1) − V(u0) exactly; reduces to ``internal_force`` when u0 == u1.
    """
    n_el, _, dim = X.shape
    a = np.empty(dim)
    b = np.empty(dim)
    for e in range(n_el):
        L2, dl2a = _chord(X, u0, e, a)
        _, dl2b = _chord(X, u1, e, b)
        l0 = np.sqrt(L2)
        EA = p[e, 0]
        N_av = 0.25 * EA * (dl2a + dl2b) / L2
        c = N_av / l0
        g = 0.5 * EA / (L2 * l0)
        central_midpoint_block(f, K, e, dim, a, b, c, g)


# ---------------------------------------------------------------------------- mass (both variants)


@jit
def mass(X, u, p, kind, M):
    """Mass matrix (n_el, 2·dim, 2·dim), independent of ``u``.

    kind 0 (lumped): ``rhoA l0/2`` on every translational DOF; kind 1 (consistent) and
    kind 2 (invariant, identical for a truss): ``rhoA l0/6 [[2, 1], [1, 2]] ⊗ I``, which
    gives the exact total mass ``rhoA l0`` and rotary inertia ``rhoA l0³/12`` about the
    centre.
    """
    if kind != LUMPED and kind != CONSISTENT and kind != INVARIANT:
        raise ValueError("truss mass kind must be 0 (lumped), 1 (consistent) or 2 (invariant)")
    n_el, _, dim = X.shape
    n = 2 * dim
    for e in range(n_el):
        m = p[e, 1] * np.sqrt(reference_length2(X, e))
        for i in range(n):
            for j in range(n):
                M[e, i, j] = 0.0
        for k in range(dim):
            if kind == LUMPED:
                M[e, k, k] = 0.5 * m
                M[e, dim + k, dim + k] = 0.5 * m
            else:
                M[e, k, k] = m / 3.0
                M[e, dim + k, dim + k] = m / 3.0
                M[e, k, dim + k] = m / 6.0
                M[e, dim + k, k] = m / 6.0


# ---------------------------------------------------------------------------- specs


def properties(material, section):
    """Truss properties from a Material and a Section: ``{"EA": E·A, "rhoA": rho·A}``."""
    if getattr(section, "A", None) is None:
        raise ValueError("truss elements need the section area A")
    if getattr(material, "E", None) is None:
        raise ValueError("truss elements need Young's modulus E")
    rho = material.rho if material.rho is not None else 0.0
    return {"EA": material.E * section.A, "rhoA": rho * section.A}


ENGINEERING_KERNELS = ElementKernels(
    internal_force=eng_internal_force,
    tangent=eng_tangent,
    resultants=eng_resultants,
    geometric_stiffness=eng_geometric_stiffness,
    strain_energy=eng_strain_energy,
    mass=mass,
    midpoint_force=eng_midpoint_force,
)

GREEN_KERNELS = ElementKernels(
    internal_force=green_internal_force,
    tangent=green_tangent,
    resultants=green_resultants,
    geometric_stiffness=green_geometric_stiffness,
    strain_energy=green_strain_energy,
    mass=mass,
    midpoint_force=green_midpoint_force,
)

_DOFS = {2: ("ux", "uy"), 3: ("ux", "uy", "uz")}
_DESCRIPTION = {
    "engineering": "{d}-D co-rotational truss, engineering strain N = EA (l − l0)/l0; Crisfield–Shi mid-point force",
    "green": "{d}-D total-Lagrangian truss, Green strain; N is the 2nd Piola–Kirchhoff axial force EA ε; Simo–Tarnow mid-point force",
}


def _spec(name, dim, strain, kernels):
    return ElementSpec(
        name=name,
        cell_type="line",
        n_nodes=2,
        dim=dim,
        node_dofs=_DOFS[dim],
        params=("EA", "rhoA"),
        resultant_names=("N",),
        properties=properties,
        kernels=kernels,
        constant_mass=(LUMPED, CONSISTENT, INVARIANT),
        description=_DESCRIPTION[strain].format(d=dim),
    )


SPECS = {
    "truss2d": _spec("truss2d", 2, "engineering", ENGINEERING_KERNELS),
    "truss3d": _spec("truss3d", 3, "engineering", ENGINEERING_KERNELS),
    "truss2d_green": _spec("truss2d_green", 2, "green", GREEN_KERNELS),
    "truss3d_green": _spec("truss3d_green", 3, "green", GREEN_KERNELS),
}
