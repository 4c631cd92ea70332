"""Batched assembly of internal force, tangent, mass and energy.

The Assembler owns preallocated element buffers for each ElementBlock of a
CorrelationTable and calls the element kernels once per block (never a Python loop over
elements), then scatters with the compiled kernels of femb.core.scatter into vectors over
*variables* (size n_var, constrained entries included, so reactions are available) and
into the CSR data of the *equations* (free DOFs only).
"""
import numpy as np

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


class Assembler:
    """Assemble global quantities of a model described by a CorrelationTable.

    All state vectors are over variables: ``u`` (n_var,) holds every DOF value (2-D
    rotations included), fixed and prescribed ones too.
    """

    def __init__(self, table):
        self.table = table
        self.blocks = table.blocks
        self._buf = [_Buffers(b) for b in self.blocks]
        self._K_data = table.new_matrix_data()

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
    def internal_force(self, u, out=None):
        """Internal force (n_var,) at configuration ``u`` (n_var,)."""
        out = np.zeros(self.table.n_var) if out is None else out
        out[:] = 0.0
        for block, buf in zip(self.blocks, self._buf):
            gather_vector(block.var, u, buf.u)
            block.spec.kernels.internal_force(block.X, buf.u, block.props, buf.f)
            scatter_vector(block.var, buf.f, out)
        return out

    def tangent(self, u, include_geometric=True):
        """Internal force (n_var,) and tangent stiffness (CSR over equations) at ``u``.

        With ``include_geometric=False`` the stress-dependent part is removed (material
        stiffness only), for studies of its influence.
        """
        f = np.zeros(self.table.n_var)
        data = self._K_data
        data[:] = 0.0
        for block, buf in zip(self.blocks, self._buf):
            gather_vector(block.var, u, buf.u)
            block.spec.kernels.tangent(block.X, buf.u, block.props, buf.f, buf.K)
            if not include_geometric:
                kg = np.zeros_like(buf.K)
                block.spec.kernels.resultants(block.X, buf.u, block.props, buf.s)
                block.spec.kernels.geometric_stiffness(block.X, buf.u, block.props, buf.s, kg)
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

    def geometric_stiffness(self, u, resultants):
        """Stress-dependent stiffness (CSR over equations) at ``u`` for given per-part
        resultants (dict part -> (n_el, n_res))."""
        data = self.table.new_matrix_data()
        for block, buf in zip(self.blocks, self._buf):
            gather_vector(block.var, u, buf.u)
            block.spec.kernels.geometric_stiffness(block.X, buf.u, block.props, np.ascontiguousarray(resultants[block.part]), buf.K)
            scatter_matrix(block.pos, buf.K, data)
        return self.table.csr(data)

    # ------------------------------------------------------------------ energy, resultants
    def strain_energy(self, u, per_element=False):
        """Total strain energy at ``u``; with ``per_element`` a dict part -> (n_el,)."""
        total, parts = 0.0, {}
        for block, buf in zip(self.blocks, self._buf):
            gather_vector(block.var, u, buf.u)
            block.spec.kernels.strain_energy(block.X, buf.u, block.props, buf.e)
            total += float(buf.e.sum())
            if per_element:
                parts[block.part] = buf.e.copy()
        return (total, parts) if per_element else total

    def resultants(self, u):
        """Section resultants at ``u``: dict part -> (n_el, n_res) (names in the spec)."""
        out = {}
        for block, buf in zip(self.blocks, self._buf):
            gather_vector(block.var, u, buf.u)
            block.spec.kernels.resultants(block.X, buf.u, block.props, buf.s)
            out[block.part] = buf.s.copy()
        return out

    # ------------------------------------------------------------------ mass
    def mass_matrix(self, kind=0, u=None):
        """Mass matrix (CSR over equations) of mass kind ``kind`` at configuration ``u``
        (the reference configuration when None)."""
        data = self.table.new_matrix_data()
        u = np.zeros(self.table.n_var) if u is None else u
        for block, buf in zip(self.blocks, self._buf):
            gather_vector(block.var, u, buf.u)
            block.spec.kernels.mass(block.X, buf.u, block.props, kind, buf.K)
            scatter_matrix(block.pos, buf.K, data)
        return self.table.csr(data)

    def mass_times(self, field, kind=0, u=None):
        """M·field over all variables (n_var,), constrained rows included: used for gravity
        loads, kinetic energy and momenta."""
        out = np.zeros(self.table.n_var)
        u = np.zeros(self.table.n_var) if u is None else u
        for block, buf in zip(self.blocks, self._buf):
            gather_vector(block.var, u, buf.u)
            block.spec.kernels.mass(block.X, buf.u, block.props, kind, buf.K)
            matvec_blocks(block.var, buf.K, field, out)
        return out

    def damping_matrix(self, u=None):
        """Viscous damping matrix (CSR over equations) of the discrete dampers at ``u``, or
        None when the model has none."""
        blocks = [(b, buf) for b, buf in zip(self.blocks, self._buf) if b.spec.kernels.damping is not None]
        if not blocks:
            return None
        data = self.table.new_matrix_data()
        u = np.zeros(self.table.n_var) if u is None else u
        for block, buf in blocks:
            gather_vector(block.var, u, buf.u)
            block.spec.kernels.damping(block.X, buf.u, block.props, buf.K)
            scatter_matrix(block.pos, buf.K, data)
        return self.table.csr(data)

    def check_mass_kind(self, kind):
        """Names of parts whose mass of kind ``kind`` depends on the configuration."""
        return [b.part for b in self.blocks if kind not in b.spec.constant_mass]
