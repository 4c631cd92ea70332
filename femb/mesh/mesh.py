"""The Mesh: nodal coordinates, cell blocks and named node/cell sets.

A Mesh is what a mesh file or a generator produces and what a Model refers to by set
names. It knows nothing about elements or physics.
"""
from dataclasses import dataclass, field

import numpy as np

from femb.core.errors import InputError


@dataclass
class CellBlock:
    """Cells of one meshio cell type. ``connectivity``: (n_cells, n_nodes_per_cell) int64."""

    cell_type: str
    connectivity: np.ndarray


@dataclass
class Mesh:
    """Points, cells and named sets.

    Attributes
    ----------
    points : (n_nodes, dim) float64
        Nodal coordinates, dim 2 or 3.
    cells : dict name -> CellBlock
        Named cell sets (a set holds cells of one type).
    node_sets : dict name -> (k,) int64
        Named node sets (indices into ``points``).
    source : str
        Where the mesh came from (file name or generator), used in error messages.
    """

    points: np.ndarray
    cells: dict = field(default_factory=dict)
    node_sets: dict = field(default_factory=dict)
    source: str = "mesh"

    def __post_init__(self):
        self.points = np.ascontiguousarray(self.points, dtype=np.float64)
        if self.points.ndim != 2 or self.points.shape[1] not in (2, 3):
            raise InputError(f"points must have shape (n, 2) or (n, 3), got {self.points.shape}", self.source)
        for name, block in list(self.cells.items()):
            block.connectivity = np.ascontiguousarray(block.connectivity, dtype=np.int64)
        for name, nodes in list(self.node_sets.items()):
            self.node_sets[name] = np.ascontiguousarray(np.atleast_1d(nodes), dtype=np.int64)
        problems = self.check()
        if problems:
            raise InputError(problems, self.source)

    @property
    def dim(self):
        """Spatial dimension of the points (2 or 3)."""
        return self.points.shape[1]

    @property
    def n_nodes(self):
        """Number of points (nodes)."""
        return self.points.shape[0]

    def check(self):
        """List of problems: non-finite coordinates, node indices out of range."""
        problems = []
        bad = np.where(~np.all(np.isfinite(self.points), axis=1))[0]
        if bad.size:
            problems.append(f"non-finite coordinates at node(s) {bad[:10].tolist()}")
        n = self.n_nodes
        for name, block in self.cells.items():
            c = block.connectivity
            if c.size and (c.min() < 0 or c.max() >= n):
                problems.append(f"cell set {name!r} references nodes outside 0..{n - 1}")
        for name, nodes in self.node_sets.items():
            if nodes.size and (nodes.min() < 0 or nodes.max() >= n):
                problems.append(f"node set {name!r} references nodes outside 0..{n - 1}")
        return problems

    def nodes(self, selector):
        """Node indices (k,) int64 for a node-set name, a cell-set name (its nodes), an int,
        or a sequence of ints."""
        if isinstance(selector, str):
            if selector in self.node_sets:
                return self.node_sets[selector]
            if selector in self.cells:
                return np.unique(self.cells[selector].connectivity)
            raise InputError(
                f"unknown set {selector!r}; node sets: {sorted(self.node_sets)}, cell sets: {sorted(self.cells)}",
                self.source,
            )
        nodes = np.atleast_1d(np.asarray(selector, dtype=np.int64))
        if nodes.size and (nodes.min() < 0 or nodes.max() >= self.n_nodes):
            raise InputError(f"node index out of range 0..{self.n_nodes - 1}: {nodes.tolist()[:10]}", self.source)
        return nodes

    def node(self, selector):
        """The single node index of a one-node set, an int, or the node nearest to a point
        given as a coordinate tuple."""
        if isinstance(selector, (tuple, list, np.ndarray)) and len(selector) == self.dim and not isinstance(selector[0], (int, np.integer)):
            d = np.linalg.norm(self.points - np.asarray(selector, dtype=float), axis=1)
            return int(np.argmin(d))
        nodes = self.nodes(selector)
        if nodes.size != 1:
            raise InputError(f"{selector!r} must name exactly one node, it has {nodes.size}", self.source)
        return int(nodes[0])

    def add_node_set(self, name, nodes):
        """Name the node indices ``nodes`` (int or sequence) ``name`` (replaces a set of that name)."""
        self.node_sets[name] = np.ascontiguousarray(np.atleast_1d(nodes), dtype=np.int64)

    def add_cells(self, name, cell_type, connectivity):
        """Add the cell set ``name``: meshio ``cell_type`` cells with node indices ``connectivity`` (n_cells, nodes per cell)."""
        self.cells[name] = CellBlock(cell_type, np.ascontiguousarray(connectivity, dtype=np.int64))

    def bounding_box(self):
        """(min, max) coordinates, each (dim,)."""
        return self.points.min(axis=0), self.points.max(axis=0)

    @staticmethod
    def merge(*meshes, tolerance=None, source="merged mesh"):
        """Concatenate meshes; set names must be unique. With ``tolerance`` coincident nodes
        (closer than it) are merged into one."""
        dims = {m.dim for m in meshes}
        if len(dims) != 1:
            raise InputError("cannot merge meshes of different dimension", source)
        points, cells, node_sets, offset = [], {}, {}, 0
        for m in meshes:
            points.append(m.points)
            for k, b in m.cells.items():
                if k in cells:
                    raise InputError(f"cell set {k!r} appears in two meshes", source)
                cells[k] = CellBlock(b.cell_type, b.connectivity + offset)
            for k, v in m.node_sets.items():
                if k in node_sets:
                    raise InputError(f"node set {k!r} appears in two meshes", source)
                node_sets[k] = v + offset
            offset += m.n_nodes
        pts = np.vstack(points)
        if tolerance is not None:
            key = np.round(pts / tolerance).astype(np.int64)
            _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
            order = np.argsort(first)
            remap = np.empty_like(order)
            remap[order] = np.arange(order.size)
            new_index = remap[inverse.ravel()]
            pts = pts[first[order]]
            cells = {k: CellBlock(b.cell_type, new_index[b.connectivity]) for k, b in cells.items()}
            node_sets = {k: np.unique(new_index[v]) for k, v in node_sets.items()}
        return Mesh(pts, cells, node_sets, source)
