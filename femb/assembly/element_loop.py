"""The element-evaluation loop: gather → kernel → scatter over the element blocks of a
CorrelationTable, for every kernel kind of the element contract (elements.base).

Every assembly of femb — internal force, tangent, mass, damping, energies, resultants, the
energy-conserving mid-point force of planar and oriented elements — is one pass of
``ElementLoop`` over the blocks: the inputs are gathered into the block's preallocated
element arrays, the block's compiled kernel is called once (never a Python loop over
elements), and its outputs are scattered into global arrays or handed to the caller.

Inputs are given twice, as the argument lists of the two kernel signatures of the contract:
``planar`` for blocks of ordinary element types and ``oriented`` for blocks of oriented
types (nodes with 3-D rotations, ``spec.oriented``). Each input is gathered by its kind:

- a 1-D array over *variables* (n_var,) (u, u0, u1, v, ...) → (n_el, n_edof) through
  ``block.var`` (0 at entries that are not variables);
- an array over *nodes* (n_nodes, ...) (rotations R (n_nodes, 3, 3), Cayley vectors ψ
  (n_nodes, 3), ...) → (n_el, n_nodes, ...) through ``block.cells``.

The kernel is then called as ``kernel(X, *gathered, p, *constants, *block_inputs,
*outputs)``: ``constants`` are the same for every block (the mass kind), ``block_inputs``
a sequence with one array per block (the resultants of ``geometric_stiffness``), and the
outputs are the block's work arrays named by ``OUTPUTS``: ``f`` (n_el, n_edof), ``K``
(n_el, n_edof, n_edof), ``s`` (n_el, n_resultants), ``e`` (n_el,). Every array is
allocated on the first pass that needs it and reused by all later passes, so a problem
that keeps one loop (its Assembler's) allocates no element arrays after its first steps
(the dynamic steps scatter into persistent global buffers too). The loop is not
re-entrant: a caller iterating ``evaluate`` or ``each`` may call kernels of the block it
holds, never another pass.

Extending the loop (how the element kinds declared in elements.base, not built yet, plug
in):

- Shells with several stress points per element (``spec.stress_points``) get ``s`` of
  shape (n_el, n_stress_points, n_resultants) from ``BlockBuffers`` (the only place output
  shapes are decided); resultants leave ``evaluate`` and enter ``geometric_stiffness`` as
  ``block_inputs`` per point unchanged. Area loads are the kernel kind ``area_load``
  (outputs f, K): the load assembler runs it with the intensities q (n_el, 4) of each
  block as ``block_inputs`` and ``force=`` (and ``matrix=`` for the load stiffness).
- Superelements with element-internal variables (``spec.n_internal``: Craig–Bampton modal
  amplitudes, elements.superelement) need no change here: the correlation table numbers
  those variables, ``block.var`` lists them after the nodal DOFs and ``spec.n_edof`` counts
  them, so gather and scatter treat them like nodal DOFs. Their reduced matrices travel in
  the block's property rows (``block.props``, one row per superelement); data too large
  for property rows (mode shapes for recovery inside a kernel) would enter as
  ``block_inputs``, the mechanism the resultants of ``geometric_stiffness`` use.
"""
from functools import cached_property

import numpy as np

from femb.core.scatter import gather_vector, scatter_matrix, scatter_vector

CHUNK = 4096  # elements gathered together by ElementLoop.evaluate_in_chunks

# the work arrays each kernel kind writes, in the order of its signature
OUTPUTS = {
    "internal_force": ("f",),
    "tangent": ("f", "K"),
    "resultants": ("s",),
    "geometric_stiffness": ("K",),
    "strain_energy": ("e",),
    "mass": ("K",),
    "damping": ("K",),
    "damper_force": ("f", "K"),
    "velocity_force": ("f",),
    "midpoint_force": ("f", "K"),
    "midpoint_step": ("f", "K"),
    "midpoint_step_force": ("f",),
    "area_load": ("f", "K"),
}


class BlockBuffers:
    """Work arrays of one element block, allocated once, on first use.

    f (n_el, n_edof), K (n_el, n_edof, n_edof), s (n_el, n_resultants) or (n_el,
    n_stress_points, n_resultants) for element types with several stress points, e (n_el,):
    the kernel outputs, zeros when first read; ``work(key, shape)`` further arrays (gathered
    inputs, intermediate matrices), created on first use and kept. (An output no pass
    needs is never allocated: a large array of zeros costs nothing resident, a smaller one
    taken from the heap is written by the allocator.)
    """

    def __init__(self, block):
        spec = block.spec
        self._n_el, self._n, self._n_res = block.n_elements, spec.n_edof, len(spec.resultant_names)
        self._points = spec.n_stress_points
        self._work = {}
        self.calls = {}  # (kernel, n_inputs) -> what ElementLoop._call needs besides the inputs

    @cached_property
    def f(self):
        """Element forces (n_el, n_edof)."""
        return np.zeros((self._n_el, self._n))

    @cached_property
    def K(self):
        """Element matrices (n_el, n_edof, n_edof)."""
        return np.zeros((self._n_el, self._n, self._n))

    @cached_property
    def s(self):
        """Element resultants (n_el, n_resultants) or (n_el, n_stress_points, n_resultants)."""
        n_el, n_res = self._n_el, self._n_res
        return np.zeros((n_el, n_res) if self._points == 1 else (n_el, self._points, n_res))

    @cached_property
    def e(self):
        """Element energies (n_el,)."""
        return np.zeros(self._n_el)

    def work(self, key, shape):
        """The float64 work array ``key`` of ``shape`` (zeros when first created; later
        calls return it with whatever the last pass wrote)."""
        arr = self._work.get((key, shape))
        if arr is None:
            arr = self._work[(key, shape)] = np.zeros(shape)
        return arr


class ElementLoop:
    """Gather → kernel → scatter over the element blocks of a CorrelationTable (module
    docstring). ``buffers[i]`` are the work arrays of ``blocks[i]``."""

    def __init__(self, table):
        self.table = table
        self.blocks = table.blocks
        self.buffers = [BlockBuffers(b) for b in self.blocks]

    def release_buffers(self) -> None:
        """Give every block fresh work arrays, dropping the filled ones: (n_el, n_edof,
        n_edof) matrices, forces and gathered inputs (137 B/DOF of a beam2d chain, 293 B/DOF
        of a beam3d chain after a mass pass). Fresh buffers allocate an array when a pass
        first uses it."""
        self.buffers = [BlockBuffers(b) for b in self.blocks]

    @staticmethod
    def _slots(block, buf, inputs, rows=None):
        """[(over variables?, work array)] receiving each input of one block (``rows``: work
        arrays of that many elements, kept under their own keys, instead of the block's)."""
        slots = []
        n_el = block.n_elements if rows is None else rows
        for slot, values in enumerate(inputs):
            key = slot if rows is None else ("rows", slot)
            if values.ndim == 1:  # over variables
                slots.append((True, buf.work(key, (n_el, block.var.shape[1]))))
            else:  # over nodes
                slots.append((False, buf.work(key, (n_el, block.cells.shape[1]) + values.shape[1:])))
        return slots

    @staticmethod
    def _gather(block, slots, inputs, a=0, b=None):
        """Gather the inputs of the elements a..b of one block (default all) into the first
        b − a rows of their work arrays ``slots``."""
        var, cells = (block.var, block.cells) if b is None else (block.var[a:b], block.cells[a:b])
        for (by_variable, out), values in zip(slots, inputs):
            out = out if b is None else out[:b - a]
            if by_variable:
                gather_vector(var, values, out)
            else:
                values.take(cells, axis=0, out=out)  # (the method: no numpy wrapper per call)

    @staticmethod
    def _inputs(block, planar, oriented):
        inputs = oriented if block.spec.oriented else planar
        if inputs is None:
            raise ValueError(f"part {block.part!r}: oriented elements ({block.spec.name}) need the nodal rotations")
        return inputs

    def each(self, planar, oriented=None, only=None):
        """Yield (block, buffers, args) with args = (X, *inputs gathered) the leading kernel
        arguments of each block (``only``: indices of the blocks to visit, default all),
        for callers that combine several kernels per block."""
        for i in range(len(self.blocks)) if only is None else only:
            block, buf = self.blocks[i], self.buffers[i]
            inputs = self._inputs(block, planar, oriented)
            slots = self._slots(block, buf, inputs)
            self._gather(block, slots, inputs)
            yield block, buf, (block.X, *(out for _, out in slots))

    @staticmethod
    def _kernel(block, kernel):
        """The compiled function ``kernel`` (a name of OUTPUTS) of the block's element type;
        NotImplementedError naming the type and part when it has none."""
        fn = getattr(block.spec.kernels, kernel)
        if fn is None:
            raise NotImplementedError(f"element type {block.spec.name!r} (part {block.part!r}) has no {kernel} kernel")
        return fn

    def _call(self, kernel, block, buf, planar, oriented, constants, block_input):
        """Gather the inputs of one block and call its ``kernel``. What a call needs besides
        the inputs (the function, the work arrays of the inputs, the leading arguments
        (X, *work arrays, p), the outputs) is set up once per kernel kind and number of
        inputs and kept in ``buf.calls``: the hot path only gathers and calls."""
        inputs = oriented if block.spec.oriented else planar
        call = buf.calls.get((kernel, None if inputs is None else len(inputs)))
        if call is None:
            inputs = self._inputs(block, planar, oriented)
            fn = self._kernel(block, kernel)
            slots = self._slots(block, buf, inputs)
            lead = (block.X, *(out for _, out in slots), block.props)
            call = buf.calls[(kernel, len(inputs))] = (fn, slots, lead, tuple(getattr(buf, name) for name in OUTPUTS[kernel]))
        fn, slots, lead, outputs = call
        self._gather(block, slots, inputs)
        fn(*lead, *constants, *block_input, *outputs)

    def evaluate(self, kernel, planar, oriented=None, constants=(), block_inputs=None, only=None):
        """Yield (block, buffers) after calling ``kernel`` (a name of OUTPUTS) on each
        block; its outputs are in the buffers (f, K, s, e) until the next pass."""
        for i in range(len(self.blocks)) if only is None else only:
            block, buf = self.blocks[i], self.buffers[i]
            self._call(kernel, block, buf, planar, oriented, constants, () if block_inputs is None else (block_inputs[i],))
            yield block, buf

    def evaluate_in_chunks(self, kernel, planar, oriented=None, only=None):
        """``evaluate`` (without constants and block inputs) whose inputs are gathered
        CHUNK elements at a time into work arrays of one chunk: a block of more elements
        calls ``kernel`` once per chunk on the slices of X, p and its outputs. For passes
        that run rarely on large blocks (the strain energy of recorded frames), whose
        gathered inputs would otherwise stay allocated for the whole block (40 B/DOF of a
        beam3d chain); the kernels evaluate each element on its own, so the outputs are
        those of ``evaluate``."""
        for i in range(len(self.blocks)) if only is None else only:
            block, buf = self.blocks[i], self.buffers[i]
            n_el = block.n_elements
            if n_el <= CHUNK:
                self._call(kernel, block, buf, planar, oriented, (), ())
                yield block, buf
                continue
            inputs = self._inputs(block, planar, oriented)
            fn = self._kernel(block, kernel)
            slots = self._slots(block, buf, inputs, rows=CHUNK)
            outputs = tuple(getattr(buf, name) for name in OUTPUTS[kernel])
            for a in range(0, n_el, CHUNK):
                b = min(a + CHUNK, n_el)
                self._gather(block, slots, inputs, a, b)
                fn(block.X[a:b], *(out[:b - a] for _, out in slots), block.props[a:b], *(out[a:b] for out in outputs))
            yield block, buf

    def run(self, kernel, planar, oriented=None, constants=(), block_inputs=None, only=None, force=None, matrix=None):
        """Call ``kernel`` on every block (or the blocks ``only``) and add its element
        forces into ``force`` (n_var,) and its element matrices into ``matrix`` (the CSR
        data (nnz,) over the equations on the table's pattern), each when given."""
        for i in range(len(self.blocks)) if only is None else only:
            block, buf = self.blocks[i], self.buffers[i]
            self._call(kernel, block, buf, planar, oriented, constants, () if block_inputs is None else (block_inputs[i],))
            if force is not None:
                scatter_vector(block.var, buf.f, force)
            if matrix is not None:
                scatter_matrix(block.pos, buf.K, matrix)


def material_stiffness(block, buf, args):
    """Material (stress-free) part of the tangents of one block into ``buf.K``: the
    tangent minus the geometric stiffness at the block's own resultants (``args`` from
    ``ElementLoop.each``); overwrites buf.f and buf.s."""
    kernels, p = block.spec.kernels, block.props
    kernels.tangent(*args, p, buf.f, buf.K)
    kernels.resultants(*args, p, buf.s)
    kg = buf.work("geometric", buf.K.shape)
    kernels.geometric_stiffness(*args, p, buf.s, kg)
    buf.K -= kg
    return buf.K
