"""Structured mesh generators for line and polyline structures."""
import numpy as np

from femb.core.errors import InputError
from femb.mesh.mesh import CellBlock, Mesh


def line_mesh(start, end, n_elements, name="line", dim=None):
    """A straight line from ``start`` to ``end`` split into ``n_elements`` 2-node cells.

    Returns a Mesh with cell set ``name`` and node sets ``name + "_start"``,
    ``name + "_end"`` and ``name + "_nodes"`` (all nodes in order).
    """
    return polyline_mesh([start, end], n_elements, name=name, dim=dim)


def polyline_mesh(vertices, n_per_segment, name="polyline", dim=None):
    """A polyline through ``vertices`` (k, dim), each segment split into ``n_per_segment``
    (an int, or a sequence of k-1 ints) 2-node cells.

    Node sets: ``name_start``, ``name_end``, ``name_nodes`` and ``name_v{i}`` for each vertex.
    """
    v = np.asarray(vertices, dtype=np.float64)
    if v.ndim != 2 or v.shape[0] < 2:
        raise InputError("a polyline needs at least two vertices", f"polyline_mesh({name!r})")
    if dim is not None and v.shape[1] < dim:
        v = np.hstack([v, np.zeros((v.shape[0], dim - v.shape[1]))])
    counts = np.broadcast_to(np.asarray(n_per_segment, dtype=np.int64), (v.shape[0] - 1,))
    if np.any(counts < 1):
        raise InputError("every segment needs at least one element", f"polyline_mesh({name!r})")
    pts, vertex_nodes = [v[:1]], [0]
    for i, n in enumerate(counts):
        t = np.linspace(0.0, 1.0, int(n) + 1)[1:, None]
        pts.append(v[i] + t * (v[i + 1] - v[i]))
        vertex_nodes.append(vertex_nodes[-1] + int(n))
    points = np.vstack(pts)
    if np.any(np.linalg.norm(np.diff(points, axis=0), axis=1) == 0.0):
        raise InputError("two consecutive vertices coincide (zero-length segment)", f"polyline_mesh({name!r})")
    n_nodes = points.shape[0]
    conn = np.column_stack([np.arange(n_nodes - 1), np.arange(1, n_nodes)])
    node_sets = {
        f"{name}_start": np.array([0]),
        f"{name}_end": np.array([n_nodes - 1]),
        f"{name}_nodes": np.arange(n_nodes),
    }
    for i, k in enumerate(vertex_nodes):
        node_sets[f"{name}_v{i}"] = np.array([k])
    return Mesh(points, {name: CellBlock("line", conn)}, node_sets, source=f"polyline_mesh({name!r})")
