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

Cost (benchmarks/cb_exudyn.py). The superelement kernel returns its step force with its
analytic Newton matrix (elements.superelement_step_matrix): one force evaluation of O(m²)
plus an O(m³) matrix, and the velocity moments of all its points, O(n_p·m), per call; the
points' start velocities are gathered for the kernels once per step. A Newton step
evaluates at least twice (the predictor, then the corrected increment, whose matrix is not
used once that residual passes the test), so ``assemble`` keeps the element matrices of a
step's first evaluation and, at a later evaluation of the same step whose increment has
moved by at most ``reuse_change`` (1e-4 rad, or of the interface radius) from the one they
were computed at, reuses them and evaluates the force alone (the kernel
``midpoint_step_force``). With the analytic matrix this saves little (the matrix is about a
quarter of a kernel call; measured within the run-to-run scatter on the benchmark).
The force is always exact, so a converged step is the same; the reused matrix is off by
about reuse_change relative, so Newton's convergence is kept (a larger change recomputes
the matrices). ``reuse_step_matrix = False`` computes them at every evaluation.
"""
import numpy as np

from femb.core.errors import InputError
from femb.core.rotations import cross_batch
from femb.core.scatter import scatter_matrix
from femb.elements.superelement_step import n_points, point_masses
from femb.solvers.dynamics.point_gravity import PointGravity


class PointInertia(PointGravity):
    """The element blocks of a table whose inertia is carried by mass points.

    Attributes
    ----------
    blocks : list of int, indices of those blocks in ``table.blocks``
    counts : (len(blocks),) points per element of each block
    offsets : (len(blocks) + 1,) start of each block's points in the model-wide arrays
    reuse_step_matrix : keep the element matrices of a step's first evaluation for its
        later evaluations (module docstring); class default True
    reuse_change : largest change of the element increment (rotations in rad;
        translations and modal amplitudes relative to the body's mass radius) since the
        matrices were computed for which they are reused (class default 1e-4: a Newton
        matrix off by about that fraction)
    """

    reuse_step_matrix = True
    reuse_change = 1e-4

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
        self._const = None  # per block: the increment scales of ``_close`` (``_scales``)
        self.gravity = np.zeros(3)  # the constant gravity field acting on the points
        self.gravity_timed = []  # (amplitude(t), field (3,)) of gravity loads with an amplitude
        self._reference = None
        self._step = None  # (state, h, element matrices, their increments) of the last step
        self._inputs = None  # (state, per-block point velocities) of the last step

    def __bool__(self):
        return bool(self.blocks)

    def gravity_work(self, state, points_x1, t_mid):
        """Work of the timed gravity loads on the points over a step (mid-time t_mid)."""
        if not self.gravity_timed:
            return 0.0
        g = sum(float(a(t_mid)) * f for a, f in self.gravity_timed)
        return float(g @ (self.masses() @ (points_x1 - state.extra["points_x"])))

    def potential(self, state):
        """−Σ m_j g·(x_j − X_j) of the constant gravity field on the points of ``state``
        (X_j the points at the reference configuration)."""
        if not np.any(self.gravity):
            return 0.0
        if self._reference is None:
            n_nodes = self.table.node_var.shape[0]
            self._reference = self._point_state(np.zeros(self.table.n_var), np.tile(np.eye(3), (n_nodes, 1, 1)),
                                                np.zeros(self.table.n_var))[0]
        return -float(self.gravity @ (self.masses() @ (state.extra["points_x"] - self._reference)))

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

    def assemble(self, oriented, h, state, force, matrix, t_mid=0.0):
        """Add the elements' step forces (n_var,) into ``force`` and their Newton matrices
        into ``matrix`` (CSR data over the equations) for the step of size h from
        ``state``; ``oriented`` = (u0, R0, u1, R1, um, Rm, ψ, D) as for the mid-point
        kernels, ``t_mid`` the step's mid-time (gravity). A later evaluation of the same step
        (same ``state`` object and h) whose increment is within ``reuse_change`` of the one
        the element matrices were computed at reuses them and evaluates the forces alone
        (``midpoint_step_force``; ``reuse_step_matrix``, module docstring); ``matrix``
        None: forces only."""
        inputs = self._block_velocities(state)
        step = self._step
        same = step is not None and step[0] is state and step[1] == h
        reusable = self.reuse_step_matrix and all(self.table.blocks[i].spec.kernels.midpoint_step_force is not None
                                                  for i in self.blocks)
        dz = self._increments(oriented) if reusable else None
        constants = (float(h), self.gravity_at(t_mid))
        if reusable and (matrix is None or (same and self._close(dz, step[3]))):
            self.loop.run("midpoint_step_force", oriented, oriented, constants=constants, block_inputs=inputs,
                          only=self.blocks, force=force)
            if matrix is not None:
                for i, Ke in zip(self.blocks, step[2]):
                    scatter_matrix(self.table.blocks[i].pos, Ke, matrix)
            return
        self.loop.run("midpoint_step", oriented, oriented, constants=constants, block_inputs=inputs,
                      only=self.blocks, force=force, matrix=matrix)
        if reusable:
            self._step = (state, h, [self.loop.buffers[i].K.copy() for i in self.blocks], dz)

    def _block_velocities(self, state):
        """The kernels' block inputs: per block the points' start velocities (n_el, n_p, 3),
        gathered once per step (``state``) and kept for its later evaluations."""
        cached = self._inputs
        if cached is not None and cached[0] is state:
            return cached[1]
        inputs = [None] * len(self.table.blocks)
        for i, vb in zip(self.blocks, self._split(state.extra["points_v"])):
            inputs[i] = np.ascontiguousarray(vb)
        self._inputs = (state, inputs)
        return inputs

    def _increments(self, oriented):
        """Per block: the elements' increments z (n_el, m) (Δx, ψ, Δq̂) of ``oriented``."""
        u0, u1, psi = oriented[0], oriented[2], oriented[6]
        out = []
        for i in self.blocks:
            block = self.table.blocks[i]
            z = u1[block.var] - u0[block.var]
            for a in range(block.X.shape[1]):
                z[:, 6 * a + 3: 6 * a + 6] = psi[block.cells[:, a]]
            out.append(z)
        return out

    def _scales(self):
        """Per block (n_el, m): the size against which an increment change counts — 1 on
        the Cayley vectors (rad), each element's interface RMS radius (1 for a single node)
        on translations and modal amplitudes."""
        if self._const is None:
            scales = []
            for i in self.blocks:
                block = self.table.blocks[i]
                X = block.X
                r = np.sqrt(((X - X.mean(axis=1, keepdims=True)) ** 2).sum(axis=2).mean(axis=1))
                scale = np.repeat(np.where(r > 0.0, r, 1.0)[:, None], block.spec.n_edof, axis=1)
                for a in range(X.shape[1]):
                    scale[:, 6 * a + 3: 6 * a + 6] = 1.0
                scales.append(scale)
            self._const = scales
        return self._const

    def _close(self, dz, dz_ref):
        """Whether every element's increment differs from the reference one by at most
        ``reuse_change`` (rotations in rad; translations and modal amplitudes relative to the
        interface radius)."""
        return all(np.all(np.abs(a - b) <= self.reuse_change * scale) for a, b, scale in zip(dz, dz_ref, self._scales()))

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
        return mv.sum(axis=0), cross_batch(state.extra["points_x"], mv).sum(axis=0)
