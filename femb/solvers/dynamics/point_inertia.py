"""Inertia carried by mass points inside elements, with their own velocities as step state.

Element types with a ``midpoint_step`` kernel (elements.base; the co-rotated Craig–Bampton
superelement, elements.superelement_step) carry their inertia as mass points whose
positions follow the element's nodes and internal variables, x_j = χ_j(z). In the
energy-conserving mid-point scheme each point is a particle with the mid-point rule
v_{j,n+1} = 2 (x_{j,n+1} − x_{j,n})/h − v_{j,n}, and the element returns its algorithmic
internal force plus Σ_j J̄_jᵀ m_j (v_{j,n+1} − v_{j,n})/h with an exact discrete
derivative J̄_j of χ_j, so kinetic plus strain energy and both momenta balance exactly.

``PointInertia`` finds those blocks of a table and keeps their points' state in
``State.extra`` as two arrays over all points of the model, ``points_x`` and ``points_v``
(n_points, 3) (checkpointable), block after block in table order:

- ``start``: positions and velocities from the nodal state (the exact velocity map);
- ``assemble``: the elements' step forces and Newton matrices of one step;
- ``finish``: the points' positions and velocities at the end of an accepted step;
- ``kinetic_energy`` and ``momenta`` of the points for the energy account.
"""
import numpy as np

from femb.core.errors import InputError
from femb.elements.superelement_step import n_points, point_masses


class PointInertia:
    """The element blocks of a table whose inertia is carried by mass points.

    Attributes
    ----------
    blocks : list of int, indices of those blocks in ``table.blocks``
    counts : (len(blocks),) points per element of each block
    offsets : (len(blocks) + 1,) start of each block's points in the model-wide arrays
    """

    def __init__(self, table, loop):
        self.table = table
        self.loop = loop
        self.blocks = [i for i, b in enumerate(table.blocks) if b.spec.kernels.midpoint_step is not None]
        self.counts = []
        for i in self.blocks:
            b = table.blocks[i]
            counts = {n_points(row, b.spec.n_edof) for row in b.props}
            if counts == {0}:
                raise InputError(f"part {b.part!r}: its data carry no mass distribution (mass points), which time "
                                 "integration needs; reduce a femb component (femb.reduce_component) or give the "
                                 "points (SuperelementData.points)", "dynamics")
            if len(counts) != 1:
                raise InputError(f"part {b.part!r}: its elements have different numbers of mass points {sorted(counts)}",
                                 "dynamics")
            self.counts.append(counts.pop())
        sizes = [table.blocks[i].n_elements * c for i, c in zip(self.blocks, self.counts)]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self._masses = None

    def __bool__(self):
        return bool(self.blocks)

    def parts(self):
        """Names of the parts with mass points."""
        return [self.table.blocks[i].part for i in self.blocks]

    def _split(self, arr):
        """Per-block views (n_el, n_p, 3) of a model-wide (n_points, 3) array."""
        out = []
        for k, i in enumerate(self.blocks):
            b = self.table.blocks[i]
            out.append(arr[self.offsets[k]: self.offsets[k + 1]].reshape(b.n_elements, self.counts[k], 3))
        return out

    def _point_state(self, u, R, v):
        xs = np.zeros((int(self.offsets[-1]), 3))
        vs = np.zeros_like(xs)
        only = self.blocks
        for (block, _, args), xb, vb in zip(self.loop.each((u,), (u, R, v), only=only), self._split(xs), self._split(vs)):
            X, ue, Re, ve = args
            block.spec.kernels.point_state(X, ue, Re, block.props, ve, xb, vb)
        return xs, vs

    def start(self, u, R, v):
        """(points_x, points_v) (n_points, 3) at the state u, v (n_var,) with nodal rotations R
        (n_nodes, 3, 3) (rotational slots of v: spatial angular velocities)."""
        return self._point_state(u, R, v)

    def assemble(self, oriented, h, state, force, matrix):
        """Add the elements' step forces (n_var,) into ``force`` and their Newton matrices
        into ``matrix`` (CSR data over the equations) for the step of size h from
        ``state``; ``oriented`` = (u0, R0, u1, R1, um, Rm, ψ, D) as for the mid-point
        kernels."""
        v_blocks = self._split(state.extra["points_v"])
        inputs = [None] * len(self.table.blocks)
        for i, vb in zip(self.blocks, v_blocks):
            inputs[i] = np.ascontiguousarray(vb)
        self.loop.run("midpoint_step", oriented, oriented, constants=(float(h),), block_inputs=inputs,
                      only=self.blocks, force=force, matrix=matrix)

    def finish(self, state, u1, R1, h):
        """(points_x, points_v) at the end of the step of size h from ``state`` to (u1, R1)."""
        x1, _ = self._point_state(u1, R1, np.zeros_like(u1))
        v1 = 2.0 * (x1 - state.extra["points_x"]) / h - state.extra["points_v"]
        return x1, v1

    def masses(self):
        """(n_points,) the point masses, in the order of the state arrays."""
        if self._masses is None:
            parts = []
            for k, i in enumerate(self.blocks):
                b = self.table.blocks[i]
                parts += [point_masses(row, b.spec.n_edof) for row in b.props]
            self._masses = np.concatenate(parts) if parts else np.zeros(0)
        return self._masses

    def kinetic_energy(self, state):
        """Σ ½ m_j |v_j|² of the points of ``state``."""
        vs = state.extra["points_v"]
        return 0.5 * float(np.einsum("j,ji,ji->", self.masses(), vs, vs))

    def momenta(self, state):
        """(Σ m_j v_j (3,), Σ x_j × m_j v_j (3,)) of the points of ``state``."""
        mv = self.masses()[:, None] * state.extra["points_v"]
        return mv.sum(axis=0), np.cross(state.extra["points_x"], mv).sum(axis=0)
