"""Geometric (stress) stiffness of a Craig–Bampton reduced component by superposition of
precomputed unit-load states — the stiffening that a linear reduced body otherwise loses
(a spinning blade reduced with its hub as the only interface softens and diverges without
it).

Within linear theory the stress state of the component, and so its geometric stiffness
K_G(σ), is linear in the loads that cause it. The loads a reduced body carries in its
co-moving frame (origin o, angular velocity ω, angular acceleration α, acceleration of the
origin a_o) are the d'Alembert forces of the rigid motion, −M a_rigid with

    a_rigid(r) = a_o + α × r + ω × (ω × r),   r = X − o,

(nodal rotations accelerate with α), plus whatever its reduced coordinates d = [u_b; q]
hold. So with unit states computed once on the full mesh,

    K_G,r(d, ω, α, a_o) = Σ_j d_j G_j + Σ_i a_o,i A_i + Σ_i α_i B_i + Σ_(ij) ω_i ω_j C_(ij),

each G, A, B, C = Tᵀ K_G(σ_unit) T projected on the reduction basis T (n_full × n_r). The
unit inertial states are solved with the boundary held (u_b = 0: the boundary's share of
the load is the interface reaction), u_i = K_ii⁻¹ f_i; the unit reduced states are the
basis vectors themselves (constraint modes: stress from interface deformation, Anderson's
interface-load kernels; normal and static-correction modes). The products ω_iω_j are
taken in the order xx, yy, zz, xy, yz, zx (planar models: ω_z² only).

Gyroscopic torques of nodal rotary inertia (ω × Jω) are left out of the unit loads (second
order for slender members, whose section inertia is small); the d'Alembert load uses the
component's mass kind.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import scipy.sparse.linalg as spla
from numpy.typing import ArrayLike

from femb.core.errors import InputError
from femb.elements import MASS_KINDS
from femb.solvers.configuration import split_state
from femb.solvers.problem import linear_resultants
from femb.solvers.reduction.component import ReducedComponent
from femb.solvers.reduction.rigid_fields import OMEGA_PRODUCTS_3D, unit_rigid_accelerations


@dataclass(frozen=True)
class ModalGeometricStiffness:
    """Unit-load geometric stiffness matrices of a reduced component (module docstring).

    Attributes
    ----------
    reduced_states : (n_r, n_r, n_r) float64
        G_j: geometric stiffness per unit reduced coordinate d_j (boundary DOFs, then modal
        amplitudes), in the reduced DOF order of the basis.
    origin_acceleration : (dim, n_r, n_r) float64
        A_i: per unit acceleration of the frame origin along axis i (gravity g acts as
        a_o = −g).
    angular_acceleration : (n_rot, n_r, n_r) float64
        B_i: per unit angular acceleration α_i (3-D: x, y, z; planar: z only).
    centrifugal : (n_prod, n_r, n_r) float64
        C_(ij): per unit product ω_i ω_j (3-D: xx, yy, zz, xy, yz, zx; planar: zz).
    origin : (dim,) float64
        The point o the unit inertial loads are taken about [length].
    """

    reduced_states: np.ndarray
    origin_acceleration: np.ndarray
    angular_acceleration: np.ndarray
    centrifugal: np.ndarray
    origin: np.ndarray

    @property
    def dim(self) -> int:
        """Spatial dimension of the component (2 or 3)."""
        return int(self.origin.size)

    def omega_products(self, omega: ArrayLike) -> np.ndarray:
        """The products ω_iω_j (n_prod,) in the order of ``centrifugal`` from ω (3,) [rad/time]
        (planar: a scalar ω_z or (1,))."""
        w = np.atleast_1d(np.asarray(omega, dtype=np.float64))
        if self.dim == 2:
            return np.array([w[-1] * w[-1]])
        return np.array([w[i] * w[j] for i, j in OMEGA_PRODUCTS_3D])

    def matrix(self, reduced: Optional[ArrayLike] = None, omega: Optional[ArrayLike] = None,
               angular_acceleration: Optional[ArrayLike] = None,
               origin_acceleration: Optional[ArrayLike] = None) -> np.ndarray:
        """K_G,r (n_r, n_r) for reduced coordinates d (n_r,), angular velocity ω, angular
        acceleration α and origin acceleration a_o of the body frame (all in the
        component's axes; omitted ones are zero)."""
        n_r = self.reduced_states.shape[1]
        K = np.zeros((n_r, n_r))
        if reduced is not None:
            K += np.tensordot(np.asarray(reduced, dtype=np.float64), self.reduced_states, axes=1)
        if omega is not None:
            K += np.tensordot(self.omega_products(omega), self.centrifugal, axes=1)
        if angular_acceleration is not None:
            a = np.atleast_1d(np.asarray(angular_acceleration, dtype=np.float64))
            K += np.tensordot(a[-self.angular_acceleration.shape[0]:], self.angular_acceleration, axes=1)
        if origin_acceleration is not None:
            K += np.tensordot(np.asarray(origin_acceleration, dtype=np.float64), self.origin_acceleration, axes=1)
        return K


def _origin(rc: ReducedComponent, origin: Optional[ArrayLike]) -> np.ndarray:
    dim = rc.table.dim
    if origin is None:  # the centroid of the interface nodes
        pts = np.zeros((rc.interface_nodes.size, dim))
        pts[:, : rc.problem.model.mesh.dim] = rc.problem.model.mesh.points[rc.interface_nodes]
        return pts.mean(axis=0)
    o = np.asarray(origin, dtype=np.float64).ravel()
    if o.size != dim:
        raise InputError(f"origin needs {dim} coordinates, got {o.size}", "origin")
    return o


def inertial_unit_states(rc: ReducedComponent, origin: Optional[ArrayLike] = None) -> tuple:
    """Displacement states (each (n_var,)) of the component with its boundary held under
    the d'Alembert loads −M a_rigid of unit origin accelerations, unit angular
    accelerations and unit products ω_iω_j about ``origin`` (module docstring): a tuple of
    three arrays (dim, n_var), (n_rot, n_var), (n_prod, n_var)."""
    prob, basis = rc.problem, rc.basis
    t, asm = prob.table, prob.assembler
    u0, R0 = split_state(prob.initial_state(None))
    _, K = asm.tangent(u0, include_geometric=False, R=R0)
    M = asm.mass_matrix(MASS_KINDS[rc.mass_kind], u0, R=R0)
    i = basis.interior
    interior = spla.splu(K.tocsc()[i][:, i].tocsc()) if i.size else None

    def states(fields):
        out = np.zeros((len(fields), t.n_var))
        for k, a in enumerate(fields):
            load = -(M @ a[t.eq_var])  # d'Alembert force over the free equations
            if interior is not None:  # u_b = 0, u_i = K_ii⁻¹ f_i
                full = np.zeros(basis.n_full)
                full[i] = interior.solve(load[i])
                out[k, t.eq_var] = full
        return out

    return tuple(states(f) for f in unit_rigid_accelerations(rc.table, rc.problem.model.mesh, _origin(rc, origin)))


def state_geometric_stiffness(rc: ReducedComponent, u: np.ndarray) -> np.ndarray:
    """The full-mesh geometric stiffness (n_eq, n_eq), dense and symmetrised, of the linear
    stress state of displacements ``u`` (n_var,) about the component's reference state."""
    prob = rc.problem
    layout = prob.rotations if prob.oriented else None
    u0, R0 = split_state(prob.initial_state(None))
    KG = prob.assembler.geometric_stiffness(u0, linear_resultants(prob.assembler, u, layout), R=R0).toarray()
    return 0.5 * (KG + KG.T)


def modal_geometric_stiffness(rc: ReducedComponent, origin: Optional[ArrayLike] = None) -> ModalGeometricStiffness:
    """Unit-load geometric stiffness matrices of the reduced component ``rc`` (module
    docstring), about the point ``origin`` (dim,) [length] (default: the centroid of the
    interface nodes).

    Costs one linear resultant evaluation and one geometric-stiffness assembly of the full
    mesh per unit state (n_r + dim + 3 + 6 in 3-D); raises InputError for a wrongly sized
    origin."""
    t, basis = rc.table, rc.basis
    o = _origin(rc, origin)
    T = basis.transformation()  # (n_eq, n_r) over the free equations

    def projected(u):
        return T.T @ state_geometric_stiffness(rc, u) @ T

    n_r = T.shape[1]
    reduced = np.zeros((n_r, n_r, n_r))
    for j in range(n_r):
        u = np.zeros(t.n_var)
        u[t.eq_var] = T[:, j]
        reduced[j] = projected(u)
    linear, angular, products = (np.array([projected(u) for u in group]) for group in inertial_unit_states(rc, o))
    return ModalGeometricStiffness(reduced, linear, angular, products, o)
