"""Batched assembly of internal force, tangent, mass and energy.

The Assembler evaluates the element kernels block by block through its ElementLoop
(femb.assembly.element_loop: preallocated element buffers, one kernel call per block, never
a Python loop over elements) and scatters into vectors over *variables* (size n_var,
constrained entries included, so reactions are available) and into the CSR data of the
*equations* (free DOFs only).

Oriented element types (3-D rotations, ``spec.oriented``; see elements.base) also take the
nodal rotations: every method accepts ``R`` (n_nodes, 3, 3), the rotation of each mesh
node relative to its reference orientation (identity at nodes without rotations). For an
oriented block R[cells] is gathered into a preallocated (n_el, n_nodes, 3, 3) buffer and
passed to the kernels; other blocks are unchanged. When ``R`` is None the rotations are
taken as exp(θ̂) of the rotation vectors θ in the rotational slots of ``u`` (exact for
states written by the solvers, which keep log R there; the identity for u = 0), so code
that only has ``u`` (export, probes) still works. Rotational entries of forces are then
moments conjugate to spatial spins, and the tangent is the derivative with respect to them.
"""
import numpy as np

from femb.assembly.element_loop import ElementLoop, material_stiffness
from femb.core.rotations import exp_batch
from femb.core.scatter import matvec_blocks, scatter_matrix, scatter_vector


class Assembler:
    """Assemble global quantities of a model described by a CorrelationTable.

    All state vectors are over variables: ``u`` (n_var,) holds every DOF value (2-D
    rotations included), fixed and prescribed ones too. ``R`` (n_nodes, 3, 3) optional
    nodal rotations for oriented elements (see the module docstring).

    Attributes
    ----------
    loop : ElementLoop, the element buffers and the gather → kernel → scatter pass every
        method (and the dynamic step systems) run
    has_oriented_blocks : bool, some element block takes nodal rotations (``spec.oriented``)
    """

    def __init__(self, table):
        self.table = table
        self.blocks = table.blocks
        self.loop = ElementLoop(table)
        self._K_data = table.new_matrix_data()
        self.has_oriented_blocks = any(b.spec.oriented for b in self.blocks)
        self._rot_nodes = self._rot_var = None
        if self.has_oriented_blocks:
            cols = [table.dof_names.index(n) for n in ("rx", "ry", "rz")]
            rot = table.node_var[:, cols]
            self._rot_nodes = np.flatnonzero((rot >= 0).all(axis=1))
            self._rot_var = np.ascontiguousarray(rot[self._rot_nodes])

    # ------------------------------------------------------------------ rotations
    def rotations_from_vectors(self, u):
        """(n_nodes, 3, 3) nodal rotations exp(θ̂) of the rotation vectors in the rotational
        slots of ``u`` (n_var,), identity at nodes without 3-D rotations."""
        R = np.tile(np.eye(3), (self.table.node_var.shape[0], 1, 1))
        if self._rot_nodes is not None and self._rot_nodes.size:
            Rn = np.empty((self._rot_nodes.size, 3, 3))
            exp_batch(np.ascontiguousarray(u[self._rot_var], dtype=np.float64), Rn)
            R[self._rot_nodes] = Rn
        return R

    def _nodal_R(self, u, R):
        """R as given, or from ``u`` when None (only models with oriented blocks)."""
        if not self.has_oriented_blocks:
            return None
        if R is None:
            return self.rotations_from_vectors(u)
        R = np.asarray(R, dtype=np.float64)
        if R.shape != (self.table.node_var.shape[0], 3, 3):
            raise ValueError(f"R must have shape (n_nodes, 3, 3) = ({self.table.node_var.shape[0]}, 3, 3), got {R.shape}")
        return R

    def _state(self, u, R):
        """The kernel inputs (planar, oriented) of configuration ``u`` [and rotations R]."""
        return (u,), (u, self._nodal_R(u, R))

    # ------------------------------------------------------------------ force, tangent
    def internal_force(self, u, out=None, R=None):
        """Internal force (n_var,) at configuration ``u`` (n_var,) [and rotations R]."""
        out = np.zeros(self.table.n_var) if out is None else out
        out[:] = 0.0
        self.loop.run("internal_force", *self._state(u, R), force=out)
        return out

    def tangent(self, u, include_geometric=True, R=None):
        """Internal force (n_var,) and tangent stiffness (CSR over equations) at ``u``
        [and rotations R]. Oriented elements: derivative with respect to spatial spins, not
        symmetric away from equilibrium.

        With ``include_geometric=False`` the stress-dependent part is removed (material
        stiffness only), for studies of its influence.
        """
        f = np.zeros(self.table.n_var)
        data = self._K_data
        data[:] = 0.0
        planar, oriented = self._state(u, R)
        if include_geometric:
            self.loop.run("tangent", planar, oriented, force=f, matrix=data)
        else:
            for block, buf, args in self.loop.each(planar, oriented):
                material_stiffness(block, buf, args)
                scatter_vector(block.var, buf.f, f)
                scatter_matrix(block.pos, buf.K, data)
        return f, self.table.csr(data.copy())

    def geometric_stiffness(self, u, resultants, R=None):
        """Stress-dependent stiffness (CSR over equations) at ``u`` [and rotations R] for
        given per-part resultants (dict part -> (n_el, n_res))."""
        data = self.table.new_matrix_data()
        s = [np.ascontiguousarray(resultants[b.part]) for b in self.blocks]
        self.loop.run("geometric_stiffness", *self._state(u, R), block_inputs=s, matrix=data)
        return self.table.csr(data)

    # ------------------------------------------------------------------ energy, resultants
    def strain_energy(self, u, per_element=False, R=None):
        """Total strain energy (force × length) at ``u`` (n_var,) [and rotations R]; with
        ``per_element`` also a dict part -> (n_el,) of element energies.

        Blocks of inertia-only element types (``ElementSpec.internal_forces`` False: point
        masses, rigid bodies) store no strain energy: their kernels are not evaluated and
        their element energies are zeros."""
        elastic = [i for i, b in enumerate(self.blocks) if b.spec.internal_forces]
        total, energies = 0.0, {}
        if elastic:
            for i, (block, buf) in zip(elastic, self.loop.evaluate_in_chunks("strain_energy", *self._state(u, R), only=elastic)):
                total += float(buf.e.sum())
                if per_element:
                    energies[i] = buf.e.copy()
        if not per_element:
            return total
        parts = {b.part: energies[i] if i in energies else np.zeros(b.n_elements) for i, b in enumerate(self.blocks)}
        return total, parts

    def resultants(self, u, R=None):
        """Section resultants at ``u`` [and rotations R]: dict part -> (n_el, n_res)
        (names in the spec)."""
        return {block.part: buf.s.copy() for block, buf in self.loop.evaluate("resultants", *self._state(u, R))}

    # ------------------------------------------------------------------ mass
    def mass_matrix(self, kind=0, u=None, R=None):
        """Mass matrix (CSR over equations) of mass kind ``kind`` at configuration ``u``
        [and rotations R] (the reference configuration when None)."""
        data = self.table.new_matrix_data()
        u = np.zeros(self.table.n_var) if u is None else u
        self.loop.run("mass", *self._state(u, R), constants=(kind,), matrix=data)
        return self.table.csr(data)

    def element_masses(self, kind=0, u=None, R=None):
        """Element mass matrices of kind ``kind`` at ``u`` [and rotations R] (the reference
        configuration when None): a list of (n_el, n_edof, n_edof) per block (copies)."""
        u = np.zeros(self.table.n_var) if u is None else u
        return [buf.K.copy() for _, buf in self.loop.evaluate("mass", *self._state(u, R), constants=(kind,))]

    def mass_times(self, field, kind=0, u=None, R=None):
        """M·field over all variables (n_var,), constrained rows included: used for gravity
        loads, kinetic energy and momenta."""
        out = np.zeros(self.table.n_var)
        u = np.zeros(self.table.n_var) if u is None else u
        for block, buf in self.loop.evaluate("mass", *self._state(u, R), constants=(kind,)):
            matvec_blocks(block.var, buf.K, field, out)
        return out

    def damping_matrix(self, u=None, R=None):
        """Viscous damping matrix (CSR over equations) of the discrete dampers at ``u`` [and
        rotations R, for oriented dampers], or None when the model has none."""
        dampers = [i for i, b in enumerate(self.blocks) if b.spec.kernels.damping is not None]
        if not dampers:
            return None
        data = self.table.new_matrix_data()
        u = np.zeros(self.table.n_var) if u is None else u
        self.loop.run("damping", *self._state(u, R), only=dampers, matrix=data)
        return self.table.csr(data)

    def check_mass_kind(self, kind):
        """Names of parts whose mass of kind ``kind`` depends on the configuration."""
        return [b.part for b in self.blocks if kind not in b.spec.constant_mass]
