"""Build the frozen CorrelationTable of a Model.

Vocabulary
----------
variable
    One unknown of the model before supports are applied. Every (node, DOF name) pair
    carried by some element maps to a variable; ties make several pairs share one.
equation
    A free variable's row in the solved system. Fixed and prescribed variables have none
    (equation -1). Equations are renumbered by reverse Cuthill–McKee.
internal variable
    A variable that belongs to one element, not to a node: the modal amplitudes of a
    Craig–Bampton superelement (``spec.n_internal`` per element, elements.base). They are
    numbered after every nodal variable, one consecutive block per element in the order of
    the parts and of their elements, so an ElementBlock's ``var``/``eq`` rows list the
    element's nodal variables and then its own internal ones. Convention: ``var_node`` and
    ``var_dof`` are -1 for them (they have no node and no DOF name), ``var_block`` names
    the block (index into ``blocks``) and ``var_element`` the element of that block that
    owns each one (-1 for nodal variables). Internal variables are additive (never
    rotations), are never tied, fixed or prescribed, and carry no loads; everything that
    goes through ``node_var`` (supports, loads, joints, nodal output) does not see them,
    and everything that goes through ``block.var`` (assembly) treats them as ordinary
    variables. ``internal_vars(part)`` gives them per element.
"""
import logging
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from femb import elements as element_library
from femb.core.errors import ModelError
from femb.correlation.pattern import INDEX, csr_pattern, csr_rows, entry_positions, renumbered_pattern

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ElementBlock:
    """All elements of one part, ready for the batched kernels.

    cells (n_el, n_nodes) int64 node indices; X (n_el, n_nodes, dim) reference
    coordinates; props (n_el, n_params); var (n_el, n_edof) variable indices; eq
    (n_el, n_edof) equation indices (-1 constrained); pos (n_el, n_edof, n_edof) int32
    positions in the CSR data array (-1 not assembled; femb.correlation.pattern.INDEX).
    """

    part: str
    spec: object
    cells: np.ndarray
    X: np.ndarray
    props: np.ndarray
    var: np.ndarray
    eq: np.ndarray
    pos: np.ndarray

    @property
    def n_elements(self):
        """Number of elements of the block."""
        return self.cells.shape[0]


class CorrelationTable:
    """Frozen map from element DOFs to variables and equations (see module docstring).

    Attributes
    ----------
    dim, dof_names : model dimension and canonical DOF names
    node_var : (n_nodes, n_dof_names) int64, variable of each node DOF (-1 when absent)
    var_node, var_dof : (n_var,) int64, a representative node / DOF-name index per variable
        (-1 for element-internal variables, module docstring)
    var_block, var_element : (n_var,) int64, the block (index into ``blocks``) and the
        element of that block owning each element-internal variable (-1 for nodal ones)
    n_nodal : int, number of nodal variables (internal ones are n_nodal … n_var − 1)
    var_eq : (n_var,) int64, equation of each variable (-1 when fixed or prescribed)
    eq_var : (n_eq,) int64, variable of each equation
    fixed_vars : (k,) int64
    prescribed : list of (vars (k,) int64, Prescribed record)
    blocks : list of ElementBlock
    indptr, indices : CSR pattern of the equations, (n_eq + 1,) and (nnz,) int32
        (femb.correlation.pattern.INDEX, scipy's index type: shared with ``csr`` matrices)
    """

    def __init__(self, dim, dof_names, node_var, var_node, var_dof, var_eq, fixed_vars, prescribed, blocks, indptr, indices,
                 var_block=None, var_element=None, eq_var=None):
        self.dim = dim
        self.dof_names = dof_names
        self.node_var = node_var
        self.var_node = var_node
        self.var_dof = var_dof
        self.var_eq = var_eq
        # eq_var: the inverse of var_eq over the free variables (given by build_table, which knows it)
        self.eq_var = np.flatnonzero(var_eq >= 0)[np.argsort(var_eq[var_eq >= 0])] if eq_var is None else eq_var
        self.fixed_vars = fixed_vars
        self.prescribed = prescribed
        self.blocks = blocks
        # the pattern's arrays as given, kept writable for ``kernel_pattern``; the
        # attributes are read-only views of them
        self._pattern = (indptr, indices)
        self.indptr = indptr.view()
        self.indices = indices.view()
        n_var = var_eq.size
        # without element-internal variables both are −1 throughout: one read-only broadcast
        # value each instead of two (n_var,) arrays
        none = np.broadcast_to(np.int64(-1), (n_var,))
        self.var_block = none if var_block is None else var_block
        self.var_element = none if var_element is None else var_element
        self.n_nodal = n_var if var_block is None else int(np.count_nonzero(self.var_block < 0))
        for arr in (node_var, var_node, var_dof, var_eq, self.eq_var, fixed_vars, self.indptr, self.indices, self.var_block,
                    self.var_element):
            arr.setflags(write=False)

    @property
    def n_var(self):
        """Number of variables (nodal and element-internal, constrained ones included)."""
        return self.var_eq.size

    @property
    def n_eq(self):
        """Number of equations (free variables)."""
        return self.eq_var.size

    @property
    def nnz(self):
        """Number of entries of the CSR pattern of the equations."""
        return self.indices.size

    @property
    def constrained_vars(self):
        """Variables without an equation (fixed and prescribed), (k,) int64."""
        return np.flatnonzero(self.var_eq < 0)

    def kernel_pattern(self):
        """(indptr (n_eq + 1,), indices (nnz,)): the CSR pattern as int32 (``INDEX``)
        C-contiguous arrays typed writable, for compiled kernels that only read it. numba
        gives read-only and writable arrays different types (one more compilation of a
        kernel per type); these share the memory of ``indptr`` and ``indices`` when the
        table's own arrays are ``INDEX`` and contiguous (copies otherwise). Callers must
        not write into them."""
        out = []
        for arr in self._pattern:
            if arr.dtype != INDEX or not arr.flags.c_contiguous or not arr.flags.writeable:
                arr = np.array(arr, dtype=INDEX, order="C")
            out.append(arr)
        return out[0], out[1]

    def entry_rows(self):
        """The equation (row) of every entry of the pattern, (nnz,) int64: the row pointers
        expanded (``csr_rows``)."""
        return csr_rows(self.indptr)

    def entry_positions(self, eq):
        """CSR positions (k, m, m) int32 in the data of the table's pattern of the entries
        (eq[a, i], eq[a, j]) of each group a of m equations ``eq`` (k, m): -1 where an
        equation is -1 or the pattern has no such entry."""
        return entry_positions(eq, *self.kernel_pattern())

    def new_matrix_data(self):
        """A zeroed CSR data array (nnz,) for assembly into the fixed pattern."""
        return np.zeros(self.nnz)

    def csr(self, data):
        """Wrap a data array in a scipy CSR matrix of the fixed pattern (no copy of the data;
        the matrix's index arrays are the table's read-only ``indices`` and ``indptr``,
        already in scipy's index type, so no matrix copies the pattern)."""
        return sp.csr_matrix((data, self.indices, self.indptr), shape=(self.n_eq, self.n_eq))

    @property
    def n_internal(self):
        """Number of element-internal variables (module docstring)."""
        return self.n_var - self.n_nodal

    def is_internal(self, var):
        """True for element-internal variables (bool array for an index array)."""
        return self.var_block[var] >= 0

    def internal_vars(self, part):
        """(n_el, n_internal) int64 variables of the element-internal unknowns of the part
        ``part`` (its name), element by element; (n_el, 0) for element types without
        any. ModelError for an unknown part."""
        for block in self.blocks:
            if block.part == part:
                n_int = block.spec.n_internal
                return block.var[:, block.var.shape[1] - n_int:]
        raise ModelError(f"unknown part {part!r} (parts: {', '.join(b.part for b in self.blocks)})")

    def describe_var(self, var):
        """(node, DOF name) of a variable index; for an element-internal variable (-1,
        "<part>[<element>].q<j>"), the j-th internal unknown of that element."""
        var = int(var)
        b = int(self.var_block[var])
        if b >= 0:
            block = self.blocks[b]
            e = int(self.var_element[var])
            n_int = block.spec.n_internal
            j = int(np.flatnonzero(block.var[e, block.var.shape[1] - n_int:] == var)[0])
            return -1, f"{block.part}[{e}].q{j}"
        return int(self.var_node[var]), self.dof_names[int(self.var_dof[var])]

    def var_of(self, node, dof):
        """Variable index of DOF name ``dof`` at ``node`` (ModelError for an unknown DOF
        name or node, or a node that lacks the DOF)."""
        if dof not in self.dof_names:
            raise ModelError(f"unknown DOF name {dof!r} (the DOFs of a {self.dim}-D model: {', '.join(self.dof_names)})")
        if not (isinstance(node, (int, np.integer)) and 0 <= node < self.node_var.shape[0]):
            raise ModelError(f"node {node!r} is not a node index of the model (0 to {self.node_var.shape[0] - 1})")
        k = self.dof_names.index(dof)
        v = int(self.node_var[node, k])
        if v < 0:
            raise ModelError(f"node {node} has no DOF {dof!r} (no element carries it)")
        return v

    def free(self, values_var):
        """The equation-ordered part (n_eq,) of a variable vector (n_var,)."""
        return values_var[self.eq_var]


def _node_dof_mask(model, n_names):
    """(n_nodes, n_names) bool: which DOF names each node carries (union over its elements)."""
    mask = np.zeros((model.mesh.n_nodes, n_names), dtype=bool)
    used = np.empty(model.mesh.n_nodes, dtype=bool)
    for part in model.parts.values():
        spec = element_library.get_spec(part.element)
        used[:] = False
        used[model.mesh.cells[part.cells].connectivity.ravel()] = True  # the part's nodes
        for d in spec.node_dofs:
            mask[:, model.dof_names.index(d)] |= used
    return mask


def _apply_ties(model, node_var, names):
    """Merge the variables of tied node DOFs (union-find over ties), then compact numbers."""
    if not model.ties:  # numbers are already compact (0 … n_var − 1 in node order)
        return node_var.astype(np.int64, copy=False)
    n_var = int(node_var.max()) + 1 if node_var.size else 0
    parent = np.arange(n_var)

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for tie in model.ties:
        a_nodes, b_nodes = model.nodes(tie.node_a), model.nodes(tie.node_b)
        for a, b in zip(a_nodes, b_nodes):
            for dof in tie.dofs:
                k = names.index(dof)
                va, vb = node_var[a, k], node_var[b, k]
                if va < 0 or vb < 0:
                    missing = a if va < 0 else b
                    raise ModelError(f"{tie.name}: node {missing} has no DOF {dof!r} to tie")
                ra, rb = root(va), root(vb)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
    roots = parent.copy()
    while True:  # pointer jumping until every variable points at its root
        nxt = roots[roots]
        if np.array_equal(nxt, roots):
            break
        roots = nxt
    _, compact = np.unique(roots, return_inverse=True)
    out = np.where(node_var >= 0, compact[np.maximum(node_var, 0)], -1)
    return out.astype(np.int64)


def build_table(model, renumber=True):
    """Assign global numbers for a validated Model and return a frozen CorrelationTable.

    Parameters
    ----------
    model : femb.model.Model
    renumber : bool
        Apply reverse Cuthill–McKee to the equations (default True).
    """
    model.validate()
    names = model.dof_names
    mesh = model.mesh
    mask = _node_dof_mask(model, len(names))
    nodes, dofs = np.nonzero(mask)  # the node DOFs in variable order before ties
    node_var = np.cumsum(mask, dtype=np.int64).reshape(mask.shape)  # their numbers (row-major, as np.nonzero)
    node_var -= 1
    node_var[~mask] = -1
    if model.ties:
        node_var = _apply_ties(model, node_var, names)
        n_nodal = int(node_var.max()) + 1 if node_var.size and node_var.max() >= 0 else 0
    else:
        n_nodal = nodes.size
    # element-internal variables: after the nodal ones, one block per element (module docstring)
    internal = []  # (first variable, n_el, n_internal) per part, in the order of model.parts
    n_var = n_nodal
    for part in model.parts.values():
        spec = element_library.get_spec(part.element)
        n_el = mesh.cells[part.cells].connectivity.shape[0]
        internal.append((n_var, n_el, spec.n_internal))
        n_var += n_el * spec.n_internal
    if not model.ties and n_var == n_nodal:  # the node DOFs in variable order are the representatives
        var_node, var_dof = nodes.astype(np.int64, copy=False), dofs.astype(np.int64, copy=False)
    else:
        var_node = np.full(n_var, -1, dtype=np.int64)
        var_dof = np.full(n_var, -1, dtype=np.int64)
        if model.ties:  # a tied variable's representative: its first (node, DOF) in node order
            var_node[node_var[nodes, dofs][::-1]] = nodes[::-1]
            var_dof[node_var[nodes, dofs][::-1]] = dofs[::-1]
        else:
            var_node[:n_nodal] = nodes
            var_dof[:n_nodal] = dofs
    var_block = var_element = None  # (no element-internal variables: all −1, CorrelationTable's default)
    if n_var > n_nodal:
        var_block = np.full(n_var, -1, dtype=np.int64)
        var_element = np.full(n_var, -1, dtype=np.int64)
        for b, (first, n_el, n_int) in enumerate(internal):
            var_block[first:first + n_el * n_int] = b
            var_element[first:first + n_el * n_int] = np.repeat(np.arange(n_el), n_int)

    constrained = np.zeros(n_var, dtype=bool)
    fixed = [node_var[model.nodes(rec.nodes)][:, [names.index(dof) for dof in rec.dofs]].ravel() for rec in model.fixed]
    fixed_vars = np.unique(np.concatenate(fixed)) if fixed else np.zeros(0, dtype=np.int64)
    if fixed_vars.size and fixed_vars[0] < 0:  # a fixed DOF no element carries is simply absent
        fixed_vars = fixed_vars[fixed_vars >= 0]
    constrained[fixed_vars] = True
    prescribed = []
    for rec in model.prescribed:
        vs = node_var[model.nodes(rec.nodes), names.index(rec.dof)]
        if np.any(vs < 0):
            raise ModelError(f"{rec.name}: some nodes carry no DOF {rec.dof!r}")
        if np.any(constrained[vs]):
            raise ModelError(f"{rec.name}: DOF {rec.dof!r} is already fixed or prescribed at node(s) {model.nodes(rec.nodes)[constrained[vs]].tolist()}")
        constrained[vs] = True
        prescribed.append((np.ascontiguousarray(vs, dtype=np.int64), rec))

    free = np.nonzero(~constrained)[0]
    var_eq = np.cumsum(~constrained, dtype=np.int64)  # the free variables numbered in order
    var_eq -= 1
    var_eq[constrained] = -1

    raw = []
    for part, (first, n_el, n_int) in zip(model.parts.values(), internal):
        spec = element_library.get_spec(part.element)
        if spec.n_stress_points > 1:
            raise ModelError(f"part {part.name!r}: element type {spec.name!r} has several stress points, which femb "
                             "does not support yet")
        conn = mesh.cells[part.cells].connectivity
        cols = [names.index(d) for d in spec.node_dofs]
        # the element's nodes' rows of node_var (a row gather; the columns of its DOF names
        # first when the element carries not all of the model's)
        by_node = node_var if cols == list(range(len(names))) else node_var[:, cols]
        var = np.take(by_node, conn, axis=0).reshape(conn.shape[0], -1)
        if n_int:
            var = np.hstack([var, first + np.arange(n_el * n_int, dtype=np.int64).reshape(n_el, n_int)])
        raw.append((part, spec, conn, var))

    eq_blocks = []
    for _, _, _, var in raw:
        eq = var_eq[var]
        eq[var < 0] = -1
        eq_blocks.append(eq)
    if renumber and free.size:
        new_of_old, eq_blocks, (indptr, indices, positions) = renumbered_pattern(free.size, eq_blocks, overwrite=True)
        var_eq[free] = new_of_old
        eq_var = np.empty(free.size, dtype=np.int64)
        eq_var[new_of_old] = free
        del new_of_old  # (before the element arrays below are allocated: a lower peak)
    else:
        indptr, indices, positions = csr_pattern(free.size, eq_blocks)
        eq_var = free
    del free

    points = mesh.points
    if points.shape[1] != model.dim or points.dtype != np.float64:  # (padded with zeros)
        points = np.zeros((mesh.n_nodes, model.dim))
        points[:, : mesh.dim] = mesh.points
    _warn_coincident(model, node_var, points, mask.any(axis=1))
    blocks = []
    for (part, spec, conn, var), eq, pos in zip(raw, eq_blocks, positions):
        row = spec.property_row(part.material, part.section, part.values)
        # a writable copy (a one-element broadcast view would stay read-only, and read-only
        # arrays are a second compiled specialization of every kernel)
        props = np.empty((conn.shape[0], row.size))
        props[:] = row
        X = np.take(points, conn, axis=0)
        blocks.append(ElementBlock(part.name, spec, conn, X, props, np.ascontiguousarray(var), np.ascontiguousarray(eq), pos))
    return CorrelationTable(model.dim, names, node_var, var_node, var_dof, var_eq, fixed_vars, prescribed, blocks, indptr, indices,
                            var_block, var_element, eq_var)


_GENERIC_DIRECTION = np.array([0.7548776662466927, 0.5698402909980532, 0.3247179572447460])
"""A unit vector along no coordinate axis or diagonal (its first two components in 2-D; the
coincident-node check)."""


def coincident_unconnected_nodes(model, node_var, points, used):
    """Pairs (i, j) of nodes used by elements that sit at the same reference position
    (within 1e-10 of the model size) but share no DOF, element or joint: parts meant to be
    connected there are not (separately meshed parts, a mesh merged without tolerance)."""
    index = np.nonzero(used)[0]
    if index.size < 2:
        return []
    used_points = points if index.size == points.shape[0] else points[index]
    # the largest extent over the coordinates (column by column: numpy's reductions over
    # axis 0 of an (n, 3) array are ~10x slower)
    size = max(float(used_points[:, k].max() - used_points[:, k].min()) for k in range(points.shape[1]))
    tol = 1e-10 * max(size, 1e-300)
    # two points within tol differ by at most tol along any direction: when the sorted
    # projections on a generic direction are all further apart, no pair can be (the usual
    # case, decided without a k-d tree and without importing scipy.spatial, ~0.3-0.7 s);
    # projections already in order (nodes numbered along a line) need no sort
    projection = used_points @ _GENERIC_DIRECTION[: points.shape[1]]
    gaps = np.diff(projection)
    if (gaps > tol).all() or (gaps < -tol).all():
        return []
    projection.sort()
    if (projection[1:] - projection[:-1]).min() > tol:
        return []
    from scipy.spatial import cKDTree

    pairs = cKDTree(points[index]).query_pairs(tol)
    if not pairs:
        return []
    candidates = sorted((int(index[a]), int(index[b])) if index[a] < index[b] else (int(index[b]), int(index[a])) for a, b in pairs)
    linked = set()
    involved = np.unique(np.array(candidates, dtype=np.int64).ravel())
    wanted = set(involved.tolist())
    for part in model.parts.values():  # nodes of one element (one pass over the cells)
        conn = model.mesh.cells[part.cells].connectivity
        for row in conn[np.isin(conn, involved).sum(axis=1) >= 2]:
            nodes = sorted(n for n in set(row.tolist()) if n in wanted)
            linked.update((a, b) for k, a in enumerate(nodes) for b in nodes[k + 1:])
    for joint in model.joints:  # nodes named by one joint
        named = set()
        for sel in (joint.node_a, joint.node_b, *(t[0] for t in (joint.terms or ()))):
            if sel is not None:
                try:
                    named.update(int(n) for n in model.nodes(sel))
                except Exception:  # noqa: BLE001 (a bad selector is reported by validation, not here)
                    pass
        linked.update((i, j) for i, j in candidates if i in named and j in named)
    out = []
    for i, j in candidates:
        a, b = node_var[i], node_var[j]
        if (i, j) in linked or np.any((a >= 0) & (a == b)):
            continue
        out.append((i, j))
    return out


def _warn_coincident(model, node_var, points, used):
    """Log a warning (once per model) naming coincident unconnected nodes."""
    if getattr(model, "_coincident_checked", False):
        return
    model._coincident_checked = True
    pairs = coincident_unconnected_nodes(model, node_var, points, used)
    if pairs:
        shown = ", ".join(f"{i} and {j} at {tuple(float(x) for x in points[i])}" for i, j in pairs[:5])
        more = f" (and {len(pairs) - 5} more pairs)" if len(pairs) > 5 else ""
        log.warning("model %r: nodes %s%s are at the same position but share no DOF, element, tie or joint, so the parts "
                    "are not connected there; merge the meshes with a tolerance or pin/tie the nodes if they should be",
                    model.name, shown, more)
