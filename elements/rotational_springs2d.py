"""Planar rotational (torsion) springs and dampers: between the rz rotations of two nodes,
or from one node to the ground.

Massless discrete elements created with ``Model.add_discrete``, with the cubic force law,
the linear damper and the user force laws of femb.elements.spring_laws (x of a law is the
twist φ, F a moment). Spatial rotational springs between oriented nodes are in
femb.elements.rotational_springs3d.

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

Mid-point (discrete-gradient) forces, energy-exact (``midpoint_force``; the step
increment and the divided difference D of the force law in femb.elements.spring_laws):

- rotational springs: ΔV = D (Δθ2 − Δθ1), and with the divided difference of the map
  Δθ(τ) = 2 atan(τ/2), R = (Δθ2 − Δθ1)/(τ2 − τ1) = cos h1 cos h2 · δ/sin δ (hᵢ = Δθᵢ/2,
  δ = h2 − h1; R → 1 as τ → 0, δ/sin δ by its series for |δ| < 10⁻²), the entries
  conjugate to τ are f = D R [−1; 1]: energy-exact *and* balanced (Σf = 0, so the
  rotary angular momentum Σ Jᵢωᵢ of two bodies joined by the spring is conserved). The
  ground version is the same with θ1 ≡ 0 (h1 = 0, R = Δθ/τ). A common rotation of both
  nodes leaves φ and hence V unchanged; the force pair is then scaled by R = cos² h.
  (The alternative f = D [−Δθ1/τ1; Δθ2/τ2] is energy-exact too but unbalanced.)
"""
import numpy as np

from femb.core import jit
from femb.core.rotations import phi_over_sin

from .base import ElementKernels
from .masses import zero_geometric_stiffness
from .spring_input import spring_spec
from .spring_laws import damper_value, spring_divided, spring_force, spring_value, zero_mass


# ---------------------------------------------------------------------------- rotational springs: p = (k, theta0, c, k3)


@jit(internal=True)
def _twist(u, p, e, n):
    """Relative rotation φ of rotational spring ``e`` with ``n`` nodes (1: θ − θ0;
    2: θ2 − θ1 − θ0)."""
    if n == 1:
        return u[e, 0] - p[e, 1]
    return u[e, 1] - u[e, 0] - p[e, 1]


@jit(internal=True)
def _sign(n, i):
    """Sign of node ``i`` in φ: +1 for the last node, −1 for the first of two."""
    return 1.0 if i == n - 1 else -1.0


@jit
def rotational_internal_force(X, u, p, f):
    """f = M ∂φ/∂θ: [−M; M] (two nodes) or [M] (one node), M = k φ + k3 φ³."""
    n = X.shape[1]
    for e in range(u.shape[0]):
        M, _ = spring_force(p, e, 4, 3, _twist(u, p, e, n))
        for i in range(n):
            f[e, i] = _sign(n, i) * M


@jit
def rotational_tangent(X, u, p, f, K):
    """Force and tangent ``(k + 3 k3 φ²) sᵢ sⱼ`` (s = ∂φ/∂θ)."""
    n = X.shape[1]
    for e in range(u.shape[0]):
        M, dM = spring_force(p, e, 4, 3, _twist(u, p, e, n))
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
        M, _ = spring_force(p, e, 4, 3, _twist(u, p, e, n))
        s[e, 0] = M


@jit
def rotational_strain_energy(X, u, p, out):
    """V = ½ k φ² + ¼ k3 φ⁴ per element."""
    n = X.shape[1]
    for e in range(u.shape[0]):
        V, _, _ = spring_value(p, e, 4, 3, _twist(u, p, e, n))
        out[e] = V


@jit
def rotational_damping(X, u, p, C):
    """Viscous damping on the relative angular velocity: ``C = c sᵢ sⱼ`` (with a damper
    law c + dF_d/dω at ω = 0)."""
    n = X.shape[1]
    for e in range(u.shape[0]):
        c = damper_value(p, e, 4, 2, 0.0)[1]
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
        M, dM = damper_value(p, e, 4, 2, w)
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
        D, dD = spring_divided(p, e, 4, 3, _twist(u0, p, e, n), _twist(u1, p, e, n))
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

_PARAMS = ("k", "theta0", "c", "k3")
_DEFAULTS = {"theta0": 0.0, "c": 0.0, "k3": 0.0}

SPECS = {
    "rotational_spring2d": spring_spec(
        "rotational_spring2d", "line", 2, 2, ("rz",), _PARAMS, _DEFAULTS, ("M",), ROTATIONAL_KERNELS, False,
        "2-D torsion spring-damper between two nodes' rz, V = ½kφ² + ¼k3φ⁴, φ = θ2 − θ1 − theta0; Cayley mid-point force"),
    "rotational_spring2d_ground": spring_spec(
        "rotational_spring2d_ground", "vertex", 1, 2, ("rz",), _PARAMS, _DEFAULTS, ("M",), ROTATIONAL_KERNELS, False,
        "2-D torsion spring-damper from a node's rz to the ground, φ = θ − theta0; Cayley mid-point force"),
}
