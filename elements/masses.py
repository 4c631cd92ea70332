"""Discrete inertia elements: point masses and planar rigid bodies (one node each).

Element types (all ``cell_type="vertex"``, one node, created with ``Model.add_discrete``):

- ``point_mass2d``: DOFs (ux, uy, rz); params ``m`` (mass), ``J`` (rotary inertia about
  the node; 0 is allowed, but then the node's rz must get stiffness or inertia from other
  elements). M = diag(m, m, J).
- ``point_mass2d_translational``: DOFs (ux, uy); param ``m``. A particle for models whose
  nodes carry no rotation (trusses): unlike ``point_mass2d`` it adds no rz DOF to the node.
  M = diag(m, m).
- ``point_mass3d``: DOFs (ux, uy, uz); param ``m``. M = m I₃.
- ``rigid_body3d``: DOFs (ux, uy, uz, rx, ry, rz) of the body's centre of mass (the node
  is the reference point *and* the centre of mass); params ``m`` and the inertia tensor
  about the centre of mass in the body frame, ``Jxx``, ``Jyy``, ``Jzz`` and the products
  ``Jxy``, ``Jxz``, ``Jyz`` (default 0; J = [[Jxx, Jxy, Jxz], [Jxy, Jyy, Jyz], [Jxz, Jyz,
  Jzz]]). The body frame is the global frame in the reference configuration. An
  *oriented* element (kernels take the nodal rotation R): M = diag(m I₃, R J Rᵀ), the
  spatial inertia turning with the body. The translational part is constant; the
  rotational part is integrated by the dynamics as a nodal rigid body (Simo–Wong
  energy-momentum rule, femb.solvers.dynamics.midpoint3d), so ``constant_mass`` is empty and
  ``rotary_kinds`` lists the kinds (all) whose mass splits that way.
- ``rigid_body2d``: DOFs (ux, uy, rz) of the body's centre of mass (the node *is* the
  centre of mass); params ``m``, ``J`` (inertia about the centre of mass).
  M = diag(m, m, J): constant, so the body is exact in the energy-conserving mid-point
  scheme. Same matrix as ``point_mass2d``; the separate name documents the intent.
- ``rigid_body2d_offset``: DOFs (ux, uy, rz) of a reference point of the body that is not
  its centre of mass; params ``m``, ``J`` (inertia about the centre of mass), ``cx``,
  ``cy`` (offset c of the centre of mass from the node in the reference configuration,
  length units). With θ = rz and r = R(θ) c the current offset, the centre of mass moves
  with v_c = v + ω ẑ × r, and the kinetic energy ½ m |v_c|² + ½ J ω² = ½ q̇ᵀ M(θ) q̇ gives::

      M(θ) = [[ m,      0,     −m r_y          ],
              [ 0,      m,      m r_x          ],
              [ −m r_y, m r_x,  J + m (r_x² + r_y²)]]

  M depends on the configuration (``constant_mass`` is empty), so this type is **not**
  suitable for the energy-conserving mid-point integrator; the equations of motion
  M(θ) q̈ + h = Q also need the centrifugal term h = (−m ω² r_x, −m ω² r_y, 0), provided
  as the ``velocity_force`` kernel (signature ``(X, u, v, p, f)``, v the element
  velocities), with which the α schemes (Newmark, HHT, generalized-α) integrate the body
  (femb.solvers.dynamics.variable_mass). Gravity computed as M·g is the force m g plus
  the moment r × m g, exact only at the configuration where M is evaluated (the
  reference one for the load vectors). **For energy-conserving dynamics or gravity put
  the node at the centre of mass (``rigid_body2d``) and connect other points of the body
  with joints/ties with offsets.**

The mass is the same matrix for every mass kind (0 lumped, 1 consistent, 2 invariant): a
point mass or rigid body has no interpolation to lump. It is diagonal except for
``rigid_body2d_offset`` with a non-zero offset, whose inertia coupling is physical.

These elements have no stiffness: internal force, tangent, geometric stiffness, strain
energy and the mid-point force (and its derivative) are zero; they have no resultants
(``resultant_names = ()``) and no damping. Units: any consistent set (m a mass, J a mass
times length², cx, cy lengths).
"""
import numpy as np

from femb.core import jit

from .base import ALL_MASS_KINDS, CONSISTENT, INVARIANT, LUMPED, ElementKernels, ElementSpec



# ---------------------------------------------------------------------------- zero kernels (no stiffness)


@jit
def zero_force(X, u, p, f):
    """No internal force: f[:] = 0."""
    f[:, :] = 0.0


@jit
def zero_tangent(X, u, p, f, K):
    """No internal force and no stiffness."""
    f[:, :] = 0.0
    K[:, :, :] = 0.0


@jit
def no_resultants(X, u, p, s):
    """Inertia elements have no resultants (s has zero columns)."""
    s[:, :] = 0.0


@jit
def zero_geometric_stiffness(X, u, p, s, K):
    """No stress-dependent stiffness."""
    K[:, :, :] = 0.0


@jit
def zero_energy(X, u, p, e):
    """No strain energy."""
    e[:] = 0.0


@jit
def zero_midpoint_force(X, u0, u1, p, f, K):
    """No algorithmic internal force and no derivative (inertia is the integrator's)."""
    f[:, :] = 0.0
    K[:, :, :] = 0.0


@jit(internal=True)
def _check_kind(kind):
    if kind != LUMPED and kind != CONSISTENT and kind != INVARIANT:
        raise ValueError("mass kind must be 0 (lumped), 1 (consistent) or 2 (invariant)")


# ---------------------------------------------------------------------------- mass kernels


@jit
def point_mass(X, u, p, kind, M):
    """Diagonal mass of a point mass / centred rigid body, the same for every kind.

    The first ``dim`` DOFs (translations) get ``p[:, 0] = m``; a further DOF (2-D rz)
    gets ``p[:, 1] = J``. Independent of ``u``.
    """
    _check_kind(kind)
    n_el, _, dim = X.shape
    n = M.shape[1]
    for e in range(n_el):
        for i in range(n):
            for j in range(n):
                M[e, i, j] = 0.0
        for k in range(dim):
            M[e, k, k] = p[e, 0]
        if n > dim:
            M[e, dim, dim] = p[e, 1]


@jit(internal=True)
def _offset(u, p, e):
    """Current centre-of-mass offset r = R(θ) c of element ``e`` (θ = u[e, 2])."""
    ct = np.cos(u[e, 2])
    st = np.sin(u[e, 2])
    cx = p[e, 2]
    cy = p[e, 3]
    return ct * cx - st * cy, st * cx + ct * cy


@jit
def offset_body_mass(X, u, p, kind, M):
    """Mass matrix (n_el, 3, 3) of a planar rigid body with its centre of mass at offset
    c = (p[:, 2], p[:, 3]) from the node, at the rotation θ = u[:, 2] (see the module
    docstring); the same for every kind. p = (m, J about the centre of mass, cx, cy)."""
    _check_kind(kind)
    for e in range(u.shape[0]):
        m = p[e, 0]
        rx, ry = _offset(u, p, e)
        M[e, 0, 0] = m
        M[e, 0, 1] = 0.0
        M[e, 1, 0] = 0.0
        M[e, 1, 1] = m
        M[e, 0, 2] = -m * ry
        M[e, 2, 0] = -m * ry
        M[e, 1, 2] = m * rx
        M[e, 2, 1] = m * rx
        M[e, 2, 2] = p[e, 1] + m * (rx * rx + ry * ry)


@jit
def offset_body_velocity_force(X, u, v, p, f):
    """Quadratic-velocity (centrifugal) inertia force h of ``rigid_body2d_offset``:
    ``h = Ṁ q̇ − ∂T/∂q = (−m ω² r_x, −m ω² r_y, 0)`` with ω = v[:, 2], so that the
    equations of motion read M(θ) q̈ + h = Q (the ``velocity_force`` kernel of the element
    contract)."""
    for e in range(u.shape[0]):
        rx, ry = _offset(u, p, e)
        w2 = v[e, 2] * v[e, 2]
        f[e, 0] = -p[e, 0] * w2 * rx
        f[e, 1] = -p[e, 0] * w2 * ry
        f[e, 2] = 0.0


# ---------------------------------------------------------------------------- 3-D rigid body (oriented)


@jit
def _zero_force3(X, u, R, p, f):
    f[:, :] = 0.0


@jit
def _zero_tangent3(X, u, R, p, f, K):
    f[:, :] = 0.0
    K[:, :, :] = 0.0


@jit
def _no_resultants3(X, u, R, p, s):
    s[:, :] = 0.0


@jit
def _zero_geometric3(X, u, R, p, s, K):
    K[:, :, :] = 0.0


@jit
def _zero_energy3(X, u, R, p, e):
    e[:] = 0.0


@jit
def _zero_midpoint3(X, u0, R0, u1, R1, um, Rm, psi, D, p, f, K):
    f[:, :] = 0.0
    K[:, :, :] = 0.0


@jit
def rigid_body3d_mass(X, u, R, p, kind, M):
    """Mass (n_el, 6, 6) of a 3-D rigid body at its centre of mass: m I₃ on the
    translations and the spatial inertia R J Rᵀ (R = R[:, 0] the body rotation, J the
    body-frame tensor from p = (m, Jxx, Jyy, Jzz, Jxy, Jxz, Jyz)) on the rotations; the
    same for every kind."""
    _check_kind(kind)
    Jb = np.empty((3, 3))
    for e in range(u.shape[0]):
        Jb[0, 0], Jb[1, 1], Jb[2, 2] = p[e, 1], p[e, 2], p[e, 3]
        Jb[0, 1] = Jb[1, 0] = p[e, 4]
        Jb[0, 2] = Jb[2, 0] = p[e, 5]
        Jb[1, 2] = Jb[2, 1] = p[e, 6]
        for i in range(6):
            for j in range(6):
                M[e, i, j] = 0.0
        for k in range(3):
            M[e, k, k] = p[e, 0]
        for i in range(3):
            for j in range(3):
                acc = 0.0
                for k in range(3):
                    for m in range(3):
                        acc += R[e, 0, i, k] * Jb[k, m] * R[e, 0, j, m]
                M[e, 3 + i, 3 + j] = acc


RIGID3D_KERNELS = ElementKernels(internal_force=_zero_force3, tangent=_zero_tangent3, resultants=_no_resultants3,
                                 geometric_stiffness=_zero_geometric3, strain_energy=_zero_energy3, mass=rigid_body3d_mass,
                                 midpoint_force=_zero_midpoint3, damping=None)


# ---------------------------------------------------------------------------- specs


def properties(material, section):
    """Discrete inertia elements take their parameters directly (``Model.add_discrete``)."""
    raise ValueError("point masses and rigid bodies take direct values (m, J, ...) via Model.add_discrete, not a material and section")


def _kernels(mass, velocity_force=None):
    return ElementKernels(
        internal_force=zero_force,
        tangent=zero_tangent,
        resultants=no_resultants,
        geometric_stiffness=zero_geometric_stiffness,
        strain_energy=zero_energy,
        mass=mass,
        midpoint_force=zero_midpoint_force,
        damping=None,
        velocity_force=velocity_force,
    )


POINT_KERNELS = _kernels(point_mass)
OFFSET_KERNELS = _kernels(offset_body_mass, offset_body_velocity_force)


def _spec(name, dim, node_dofs, params, kernels, constant_mass, description, rotary_kinds=(), oriented=False, defaults=None):
    return ElementSpec(
        name=name,
        cell_type="vertex",
        n_nodes=1,
        dim=dim,
        node_dofs=node_dofs,
        params=params,
        resultant_names=(),
        properties=properties,
        kernels=kernels,
        constant_mass=constant_mass,
        requires_length=False,
        oriented=oriented,
        defaults=defaults or {},
        description=description,
        rotary_kinds=rotary_kinds,
        internal_forces=False,
    )


SPECS = {
    "point_mass2d": _spec(
        "point_mass2d", 2, ("ux", "uy", "rz"), ("m", "J"), POINT_KERNELS, ALL_MASS_KINDS,
        "2-D point mass m with rotary inertia J about the node; M = diag(m, m, J)"),
    "point_mass2d_translational": _spec(
        "point_mass2d_translational", 2, ("ux", "uy"), ("m",), POINT_KERNELS, ALL_MASS_KINDS,
        "2-D point mass m on the translations only (adds no rz DOF); M = diag(m, m)"),
    "point_mass3d": _spec(
        "point_mass3d", 3, ("ux", "uy", "uz"), ("m",), POINT_KERNELS, ALL_MASS_KINDS,
        "3-D point mass m (translations); M = m I"),
    "rigid_body3d": _spec(
        "rigid_body3d", 3, ("ux", "uy", "uz", "rx", "ry", "rz"), ("m", "Jxx", "Jyy", "Jzz", "Jxy", "Jxz", "Jyz"),
        RIGID3D_KERNELS, (),
        "3-D rigid body, node at the centre of mass, body-frame inertia tensor J about it; M = diag(m I, R J R^T)",
        rotary_kinds=ALL_MASS_KINDS, oriented=True, defaults={"Jxy": 0.0, "Jxz": 0.0, "Jyz": 0.0}),
    "rigid_body2d": _spec(
        "rigid_body2d", 2, ("ux", "uy", "rz"), ("m", "J"), POINT_KERNELS, ALL_MASS_KINDS,
        "planar rigid body, node at the centre of mass, J about the centre of mass; constant M = diag(m, m, J)"),
    "rigid_body2d_offset": _spec(
        "rigid_body2d_offset", 2, ("ux", "uy", "rz"), ("m", "J", "cx", "cy"), OFFSET_KERNELS, (),
        "planar rigid body with its centre of mass at offset (cx, cy) from the node (reference configuration), "
        "J about the centre of mass; configuration-dependent M(θ): for dynamics prefer rigid_body2d"),
}
