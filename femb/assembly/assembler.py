"""Batched assembly of internal force, tangent, mass and energy.

The Assembler owns preallocated element buffers for each ElementBlock of a
CorrelationTable and calls the element kernels once per block (never a Python loop over
elements), then scatters with the compiled kernels of femb.core.scatter into vectors over
*variables* (size n_var, constrained entries included, so reactions are available) and
into the CSR data of the *equations* (free DOFs only).

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

from femb.core.rotations import exp_batch
from femb.core.scatter import gather_vector, matvec_blocks, scatter_matrix, scatter_vector


class _Buffers:
    """Preallocated element arrays of one block."""

    def __init__(self, block):
        n_el, n = block.n_elements, block.spec.n_edof
        self.u = np.zeros((n_el, n))
        self.u0 = np.zeros((n_el, n))
        self.f = np.zeros((n_el, n))
        self.K = np.zeros((n_el, n, n))
        self.e = np.zeros(n_el)
        self.s = np.zeros((n_el, len(block.spec.resultant_names)))
        self.R = np.zeros((n_el, block.spec.n_nodes, 3, 3)) if block.spec.oriented else None


class Assembler:
    """Assemble global quantities of a model described by a CorrelationTable.

    All state vectors are over variables: ``u`` (n_var,) holds every DOF value (2-D
    rotations included), fixed and prescribed ones too. ``R`` (n_nodes, 3, 3) optional
    nodal rotations for oriented elements (see the module docstring).
    """

    def __init__(self, table):
        self.table = table
        self.blocks = table.blocks
        self._buf = [_Buffers(b) for b in self.blocks]
        self._K_data = table.new_matrix_data()
        self.oriented = any(b.spec.oriented for b in self.blocks)
        self._rot_nodes = self._rot_var = None
        if self.oriented:
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
        if not self.oriented:
            return None
        if R is None:
            return self.rotations_from_vectors(u)
        R = np.asarray(R, dtype=np.float64)
        if R.shape != (self.table.node_var.shape[0], 3, 3):
            raise ValueError(f"R must have shape (n_nodes, 3, 3) = ({self.table.node_var.shape[0]}, 3, 3), got {R.shape}")
        return R

    def _args(self, block, buf, Rn):
        """Leading kernel arguments (X, u[, R]) of one block; buf.u must be gathered."""
        if block.spec.oriented:
            np.take(Rn, block.cells, axis=0, out=buf.R)
            return block.X, buf.u, buf.R
        return block.X, buf.u

    # ------------------------------------------------------------------ helpers
    def element_values(self, u, which="u"):
        """Gather ``u`` (n_var,) into each block's element buffer; returns the buffers."""
        out = []
        for block, buf in zip(self.blocks, self._buf):
            arr = getattr(buf, which)
            gather_vector(block.var, u, arr)
            out.append(arr)
        return out

    # ------------------------------------------------------------------ force, tangent
    def internal_force(self, u, out=None, R=None):
        """Internal force (n_var,) at configuration ``u`` (n_var,) [and rotations R]."""
        out = np.zeros(self.table.n_var) if out is None else out
        out[:] = 0.0
        Rn = self._nodal_R(u, R)
        for block, buf in zip(self.blocks, self._buf):
            gather_vector(block.var, u, buf.u)
            block.spec.kernels.internal_force(*self._args(block, buf, Rn), block.props, buf.f)
            scatter_vector(block.var, buf.f, out)
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
        Rn = self._nodal_R(u, R)
        for block, buf in zip(self.blocks, self._buf):
            gather_vector(block.var, u, buf.u)
            args = self._args(block, buf, Rn)
            block.spec.kernels.tangent(*args, block.props, buf.f, buf.K)
            if not include_geometric:
                kg = np.zeros_like(buf.K)
                block.spec.kernels.resultants(*args, block.props, buf.s)
                block.spec.kernels.geometric_stiffness(*args, block.props, buf.s, kg)
                buf.K -= kg
            scatter_vector(block.var, buf.f, f)
            scatter_matrix(block.pos, buf.K, data)
        return f, self.table.csr(data.copy())

    def midpoint_force(self, u0, u1):
        """Algorithmic internal force (n_var,) between configurations u0 and u1 and its
        derivative with respect to u1 (CSR over equations, non-symmetric)."""
        f = np.zeros(self.table.n_var)
        data = self._K_data
        data[:] = 0.0
        for block, buf in zip(self.blocks, self._buf):
            kernel = block.spec.kernels.midpoint_force
            if kernel is None:
                raise NotImplementedError(f"element type {block.spec.name!r} (part {block.part!r}) has no energy-conserving mid-point force")
            gather_vector(block.var, u0, buf.u0)
            gather_vector(block.var, u1, buf.u)
            kernel(block.X, buf.u0, buf.u, block.props, buf.f, buf.K)
            scatter_vector(block.var, buf.f, f)
            scatter_matrix(block.pos, buf.K, data)
        return f, self.table.csr(data.copy())

    def geometric_stiffness(self, u, resultants, R=None):
        """Stress-dependent stiffness (CSR over equations) at ``u`` [and rotations R] for
        given per-part resultants (dict part -> (n_el, n_res))."""
        data = self.table.new_matrix_data()
        Rn = self._nodal_R(u, R)
        for block, buf in zip(self.blocks, self._buf):
            gather_vector(block.var, u, buf.u)
            block.spec.kernels.geometric_stiffness(*self._args(block, buf, Rn), block.props,
                                                   np.ascontiguousarray(resultants[block.part]), buf.K)
            scatter_matrix(block.pos, buf.K, data)
        return self.table.csr(data)

    # ------------------------------------------------------------------ energy, resultants
    def strain_energy(self, u, per_element=False, R=None):
        """Total strain energy at ``u`` [and rotations R]; with ``per_element`` a dict
        part -> (n_el,)."""
        total, parts = 0.0, {}
        Rn = self._nodal_R(u, R)
        for block, buf in zip(self.blocks, self._buf):
            gather_vector(block.var, u, buf.u)
            block.spec.kernels.strain_energy(*self._args(block, buf, Rn), block.props, buf.e)
            total += float(buf.e.sum())
            if per_element:
                parts[block.part] = buf.e.copy()
        return (total, parts) if per_element else total

    def resultants(self, u, R=None):
        """Section resultants at ``u`` [and rotations R]: dict part -> (n_el, n_res)
        (names in the spec)."""
        out = {}
        Rn = self._nodal_R(u, R)
        for block, buf in zip(self.blocks, self._buf):
            gather_vector(block.var, u, buf.u)
            block.spec.kernels.resultants(*self._args(block, buf, Rn), block.props, buf.s)
            out[block.part] = buf.s.copy()
        return out

    # ------------------------------------------------------------------ mass
    def mass_matrix(self, kind=0, u=None, R=None):
        """Mass matrix (CSR over equations) of mass kind ``kind`` at configuration ``u``
        [and rotations R] (the reference configuration when None)."""
        data = self.table.new_matrix_data()
        u = np.zeros(self.table.n_var) if u is None else u
        Rn = self._nodal_R(u, R)
        for block, buf in zip(self.blocks, self._buf):
            gather_vector(block.var, u, buf.u)
            block.spec.kernels.mass(*self._args(block, buf, Rn), block.props, kind, buf.K)
            scatter_matrix(block.pos, buf.K, data)
        return self.table.csr(data)

    def mass_times(self, field, kind=0, u=None, R=None):
        """M·field over all variables (n_var,), constrained rows included: used for gravity
        loads, kinetic energy and momenta."""
        out = np.zeros(self.table.n_var)
        u = np.zeros(self.table.n_var) if u is None else u
        Rn = self._nodal_R(u, R)
        for block, buf in zip(self.blocks, self._buf):
            gather_vector(block.var, u, buf.u)
            block.spec.kernels.mass(*self._args(block, buf, Rn), block.props, kind, buf.K)
            matvec_blocks(block.var, buf.K, field, out)
        return out

    def damping_matrix(self, u=None, R=None):
        """Viscous damping matrix (CSR over equations) of the discrete dampers at ``u`` [and
        rotations R, for oriented dampers], or None when the model has none."""
        blocks = [(b, buf) for b, buf in zip(self.blocks, self._buf) if b.spec.kernels.damping is not None]
        if not blocks:
            return None
        data = self.table.new_matrix_data()
        u = np.zeros(self.table.n_var) if u is None else u
        Rn = self._nodal_R(u, R)
        for block, buf in blocks:
            gather_vector(block.var, u, buf.u)
            block.spec.kernels.damping(*self._args(block, buf, Rn), block.props, buf.K)
            scatter_matrix(block.pos, buf.K, data)
        return self.table.csr(data)

    def check_mass_kind(self, kind):
        """Names of parts whose mass of kind ``kind`` depends on the configuration."""
        return [b.part for b in self.blocks if kind not in b.spec.constant_mass]
