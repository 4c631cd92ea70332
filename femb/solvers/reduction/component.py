"""Reduce a femb model (a component: beams, trusses, any element mesh) to a Craig–Bampton
basis on an interface node set.

The component's linear stiffness and mass about its reference configuration are assembled
over its free equations (supports and prescribed DOFs of the model are removed first; the
table's ties stay tied); the boundary DOFs are every free DOF of the interface nodes.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from femb.core.errors import InputError, ModelError
from femb.core.rotations import hat_batch
from femb.elements import MASS_KINDS
from femb.model.superelements import SuperelementData
from femb.solvers.configuration import split_state
from femb.solvers.problem import StaticProblem, full_matrix, mass_centre_offsets, node_blocks
from femb.solvers.reduction.cache import cached_craig_bampton
from femb.solvers.reduction.craig_bampton import DENSE_LIMIT, CraigBampton
from femb.solvers.reduction.modal_derivatives import modal_derivatives
from femb.solvers.reduction.rigid_fields import unit_rigid_accelerations
from femb.solvers.reduction.stress_modes import component_stress_modes


@dataclass(frozen=True)
class ReducedComponent:
    """A Craig–Bampton reduced femb model.

    Attributes
    ----------
    basis : CraigBampton
        The reduction over the component's free equations (the table's equation order).
    problem : StaticProblem
        The component's assembled problem (table, assembler, loads).
    interface_nodes : (n_nodes,) int64
        Mesh nodes of the interface.
    mass_kind : str
    """

    basis: CraigBampton
    problem: StaticProblem
    interface_nodes: np.ndarray
    mass_kind: str

    @property
    def table(self):
        """The correlation table of the component's model."""
        return self.problem.table

    def boundary_dofs(self) -> list:
        """(node, dof name) of every boundary DOF, in the order of the reduced matrices."""
        t = self.table
        return [t.describe_var(t.eq_var[e]) for e in self.basis.boundary]

    def full_displacement(self, reduced: np.ndarray) -> np.ndarray:
        """Variable vector (n_var,) of the component (zero at supports) from reduced values
        (n_b + k,): interior recovered by u_i = Ψ u_b + Φ q."""
        t = self.table
        u = np.zeros(t.n_var)
        u[t.eq_var] = self.basis.expand(reduced)
        return u

    def superelement(self, geometric: Optional[Any] = None, foreshortening: bool = False) -> SuperelementData:
        """The reduction as superelement data (femb.model.superelements): matrices in the
        element's DOF order (interface nodes in ascending component numbering, six DOFs
        each, then q) and the interface positions, for ``Model.add_superelement``.
        ``geometric``: the geometric stiffness of the unit reduced states to attach as the
        tensor G, a ``ModalGeometricStiffness`` of this component
        (``modal_geometric_stiffness(rc)``, femb.solvers.reduction.stress_stiffening) or
        its ``reduced_states`` (n_r, n_r, n_r), so that linear buckling sees the
        pre-stress inside the body; None: no stress stiffening. ``foreshortening``: give the
        mass points the second-order displacement fields of the modal amplitudes (modal
        derivatives, femb.solvers.reduction.modal_derivatives), so that a bending body's
        points draw in as it bends and a spinning body stiffens through its kinetic energy
        (centrifugal stiffening in dynamics). InputError when the component is not 3-D or an
        interface node lacks a free DOF of the six."""
        t = self.table
        model = self.problem.model
        source = f"reduction of model {model.name!r}"
        if t.dim != 3:
            raise InputError(f"a superelement needs a 3-D component (this one is {t.dim}-D)", source)
        points = np.zeros((model.mesh.n_nodes, 3))
        points[:, : model.mesh.dim] = model.mesh.points
        nodes = np.asarray(self.interface_nodes, dtype=np.int64)
        G = getattr(geometric, "reduced_states", geometric)
        second = None
        if foreshortening:
            k = self.basis.n_modes
            second = np.zeros((t.n_var, k * k))
            second[t.eq_var] = modal_derivatives(self).reshape(t.n_eq, k * k)
        return SuperelementData.from_craig_bampton(self.basis, self.boundary_dofs(), nodes.tolist(), points[nodes], source,
                                                   recovery={"points": points, "interface": nodes, "component": self},
                                                   geometric=G, mass_points=self.mass_points(points, second))

    def mass_points(self, points: np.ndarray, second: Optional[np.ndarray] = None) -> tuple:
        """(mass (n_p,), positions (n_p, 3), rows (n_p, 3, n_b + k)): the component's lumped
        mass as point masses for dynamics (femb.model.superelements.MassPoints), at the
        reference positions ``points`` (n_nodes, 3) of its nodes.

        Each node with translational mass m (row sums of the lumped mass matrix over each
        translation direction, averaged over the three: the total mass and the centre of
        mass are exact) is a point with its displacement rows of the basis (zero in
        supported directions). A node with rotary inertia J (its rotational 3 × 3 block;
        principal moments λ_k about axes e_k) gets six satellite points at ±ρ e_k, ρ its
        radius of gyration √(tr J/(2m)) (1 without translational mass), of masses
        μ_k = (λ_{k+1} + λ_{k+2} − λ_k)/(4ρ²) (the central point keeps m − 2Σμ_k): together
        they have the node's mass, centre and inertia tensor J exactly, and move with the
        node's rotation θ to first order (rows Φ_u − (±ρ e_k)^ Φ_θ). μ_k < 0 where J
        violates the triangle inequality (a beam section given only a polar inertia). A node
        whose lumped block couples translations and rotations (beam sections with their mass
        centre at a lever d off the node line) has its points about its mass centre X + d,
        with J about that centre and rows Φ_u − (d + r)^ Φ_θ.
        ``second``: optional (n_var, k²) second-order displacement fields of the modal
        amplitudes (``superelement(foreshortening=True)``); their point rows (n_p, 3, k, k)
        are then returned as a fourth item."""
        t = self.table
        asm = self.problem.assembler
        u0, R = split_state(self.problem.initial_state(None))
        n_r = self.basis.K.shape[0]
        basis = np.zeros((t.n_var, n_r))
        basis[t.eq_var] = self.basis.expand(np.eye(n_r))
        if second is not None:  # the second-order fields ride along as extra columns
            basis = np.hstack([basis, second])
        n_c = basis.shape[1]
        M = full_matrix(t, asm.element_masses(MASS_KINDS["lumped"], u0, R=R)).tocsr()
        n_nodes = t.node_var.shape[0]
        names = t.dof_names
        tv = np.stack([t.node_var[:, names.index(k)] if k in names else np.full(n_nodes, -1) for k in ("ux", "uy", "uz")], 1)
        rv = np.stack([t.node_var[:, names.index(k)] if k in names else np.full(n_nodes, -1) for k in ("rx", "ry", "rz")], 1)
        out_m, out_x, out_rows = [], [], []
        masses = node_blocks(M, tv).sum(axis=(1, 2)) / 3.0  # row sums over the node's translations
        inertias = node_blocks(M, rv)
        inertias[np.any(rv < 0, axis=1)] = 0.0
        levers = self._mass_centre_levers(M, tv, rv, masses)
        for j in range(n_nodes):
            mj = float(masses[j])
            Phi_u = np.zeros((3, n_c))
            for c in range(3):
                if tv[j, c] >= 0:
                    Phi_u[c] = basis[tv[j, c]]
            J = 0.5 * (inertias[j] + inertias[j].T)
            Phi_r = basis[rv[j]] if np.all(rv[j] >= 0) else np.zeros((3, n_c))
            if mj <= 0.0 and not np.any(J):
                continue
            # the node's mass centre at the lever d (offset sections): the points sit about it,
            # J about it is J_node + m d̂² (parallel axes), and each moves as x + (d + r) rigidly
            d = levers[j]
            dhat = hat_batch(d)
            J = J + mj * dhat @ dhat
            centre = points[j] + d
            lam, V = np.linalg.eigh(J)
            if lam.max() <= 1e-14 * max(mj, 1e-300) or not np.any(J):
                out_m.append(mj)
                out_x.append(centre)
                out_rows.append(Phi_u - dhat @ Phi_r)
                continue
            rho = float(np.sqrt(lam.sum() / (2.0 * mj))) if mj > 0.0 else 1.0
            mu = np.array([(lam[(k + 1) % 3] + lam[(k + 2) % 3] - lam[k]) / (4.0 * rho * rho) for k in range(3)])
            out_m.append(mj - 2.0 * mu.sum())
            out_x.append(centre)
            out_rows.append(Phi_u - dhat @ Phi_r)
            for k in range(3):
                for sign in (1.0, -1.0):
                    r = d + sign * rho * V[:, k]
                    out_m.append(mu[k])
                    out_x.append(points[j] + r)
                    out_rows.append(Phi_u - hat_batch(r) @ Phi_r)
        rows = np.array(out_rows).reshape(-1, 3, n_c)
        out = (np.array(out_m), np.array(out_x).reshape(-1, 3), rows[:, :, :n_r])
        if second is None:
            return out
        k = self.basis.n_modes
        return out + (rows[:, :, n_r:].reshape(-1, 3, k, k),)

    def _mass_centre_levers(self, M, tv, rv, masses) -> np.ndarray:
        """(n_nodes, 3) the lever d of each node's mass centre from the node, read off the
        translation–rotation coupling −m d̂ of its lumped mass block (beam sections with their
        mass centre off the node line, femb.solvers.problem.mass_centre_offsets); zero
        elsewhere."""
        n_nodes = tv.shape[0]
        levers = np.zeros((n_nodes, 3))
        if not any((m := mass_centre_offsets(b)) is not None and m.any() for b in self.table.blocks):
            return levers
        for j in range(n_nodes):
            if masses[j] <= 0.0 or np.any(tv[j] < 0) or np.any(rv[j] < 0):
                continue
            C = M[tv[j]][:, rv[j]].toarray()  # −m d̂
            D = -0.5 * (C - C.T) / masses[j]
            levers[j] = (D[2, 1], D[0, 2], D[1, 0])
        return levers

    def reduced_load(self, lam: float = 1.0) -> np.ndarray:
        """Tᵀ f of the component's loads at load factor ``lam`` (scaled plus constant)."""
        f = self.problem.external(lam)
        return self.basis.reduce_load(self.table.free(f))

    def stress_modes(self) -> dict:
        """Stress modes of the component (femb.solvers.reduction.stress_modes): dict part
        -> (n_b + k, n_el, n_res), the resultants of every element per unit reduced
        coordinate, in the reduction's order. Computed on the first call (one linearized
        resultant evaluation of the full mesh per reduced coordinate) and kept."""
        modes = self.__dict__.get("_stress_modes")
        if modes is None:
            modes = component_stress_modes(self)
            object.__setattr__(self, "_stress_modes", modes)  # a cache, not a field: the dataclass stays frozen
        return modes


def reduce_component(model, interface: Union[str, int, np.ndarray], n_modes: int, mass: str = "lumped",
                     dense_limit: int = DENSE_LIMIT, cache_dir: Optional[Union[str, Path]] = None,
                     static_correction: bool = False, inertia_correction: bool = False,
                     whole_pairs: bool = True) -> ReducedComponent:
    """Craig–Bampton reduction of ``model`` on the nodes ``interface`` (a node set name,
    marker, node index or indices) with ``n_modes`` fixed-interface modes.

    ``mass``: "lumped" (femb's one default mass kind), "consistent" or "invariant" (the
    element mass kind; "consistent" gives more accurate beam frequencies). The model must
    have no joints (a component is one linear body; joints belong to the model it is used
    in). Raises InputError/ModelError naming an empty or unknown interface set, interface
    nodes without free DOFs, and (from craig_bampton) an interior mechanism with its DOFs.
    ``cache_dir``: keep the reduction in that folder, keyed by its inputs (femb.solvers.reduction.cache).
    ``static_correction``: append one static-correction mode for the component's own loads
    (its point, distributed and gravity loads at load factor 1, scaled plus constant), so
    their static response is reproduced exactly for any ``n_modes``; InputError when the
    component has no loads on interior DOFs.
    ``inertia_correction``: append static-correction modes for the d'Alembert loads −M a of
    the rigid motion of a body frame at the interface centroid (unit origin accelerations,
    unit angular accelerations and the six centrifugal products ω_iω_j; femb.solvers.reduction.rigid_fields;
    patterns the basis already represents are dropped), so the quasi-static deformation
    of the body under any rigid acceleration and spin — e.g. the axial stretch of a
    spinning blade, whose stress the geometric tensor G turns into centrifugal
    stiffening — is reproduced exactly for any ``n_modes``.
    ``whole_pairs``: when the ``n_modes``-th fixed-interface mode belongs to a degenerate
    set (relative frequency gap below 1e-6, e.g. the bending pairs of a beam with a
    circular section), keep the whole set; ``basis.n_completed`` and ``basis.summary()`` report
    the modes added. False: exactly ``n_modes`` (one mode of such a pair, its orientation
    in the pair's plane decided by round-off).
    """
    where = f"interface {interface!r}"
    try:
        nodes = np.unique(np.asarray(model.nodes(interface), dtype=np.int64))
    except (KeyError, ValueError, IndexError) as exc:
        raise InputError(f"unknown interface node set or node ({exc})", where) from None
    if nodes.size == 0:
        raise InputError("the interface node set is empty", where)
    if mass not in MASS_KINDS:
        raise InputError(f"mass must be one of {', '.join(MASS_KINDS)}, got {mass!r}", "mass")
    prob = StaticProblem(model)
    if prob.joints is not None:
        raise ModelError("a component to reduce must not contain joints (reduce the body alone, "
                         "then join its interface nodes in the model that uses it)", model.name)
    t = prob.table
    asm = prob.assembler
    u0, R = split_state(prob.initial_state(None))
    _, K = asm.tangent(u0, include_geometric=False, R=R)
    M = asm.mass_matrix(MASS_KINDS[mass], u0, R=R)
    eq_node = t.var_node[t.eq_var]
    boundary = np.flatnonzero(np.isin(eq_node, nodes))
    if boundary.size == 0:
        raise InputError("the interface nodes have no free DOFs (all supported or not carried by any element)", where)
    labels = [f"node {n} {d}" if n >= 0 else d for n, d in (t.describe_var(v) for v in t.eq_var)]
    correction = None
    if static_correction:
        correction = t.free(prob.external(1.0))
        interior = np.ones(t.n_eq, dtype=bool)
        interior[boundary] = False
        if not np.any(correction[interior]):
            raise InputError("static_correction needs loads on interior DOFs of the component (it has none)", model.name)
    if inertia_correction:
        points = np.zeros((model.mesh.n_nodes, t.dim))
        points[:, : model.mesh.dim] = np.asarray(model.mesh.points)[:, : t.dim]
        origin = points[nodes].mean(axis=0)
        fields = [a for group in unit_rigid_accelerations(t, model.mesh, origin) for a in group]
        loads = np.column_stack([-(M @ a[t.eq_var]) for a in fields])
        correction = loads if correction is None else np.column_stack([correction, loads])
    basis = cached_craig_bampton(K, M, boundary, n_modes, labels, cache_dir, dense_limit, correction, whole_pairs)
    return ReducedComponent(basis, prob, nodes, mass)

