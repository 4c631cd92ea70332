"""Structured mesh generators for line and polyline structures."""
import numpy as np

from femb.core.errors import InputError
from femb.core.surfaces import pressure_forces
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


def rectangle_mesh(a, b, nx, ny, name="plate", pattern="alternating", origin=(0.0, 0.0, 0.0), cells="triangle"):
    """A flat rectangular plate [0, a] × [0, b] (shifted by ``origin``) in the global XY
    plane, split into nx × ny rectangles, each one 4-node "quad" cell (``cells="quad"``) or
    two 3-node triangles (``cells="triangle"``).

    ``pattern`` (triangles): "right" (every rectangle cut along the same diagonal) or
    "alternating" (the diagonal direction alternates in a checkerboard, so the mesh has the
    symmetries of the rectangle). Points are 3-D (z = origin z). Cells are counter-clockwise
    seen from +Z (normal +Z).

    Node sets: ``name_x0``, ``name_x1`` (edges x = 0, x = a), ``name_y0``, ``name_y1``,
    ``name_boundary``, ``name_nodes``, the corners ``name_c00``, ``name_c10``, ``name_c01``,
    ``name_c11`` and, for even nx and ny, ``name_center``. Cell set ``name``.
    """
    where = f"rectangle_mesh({name!r})"
    if not (a > 0 and b > 0):
        raise InputError(f"plate sides must be > 0, got a = {a}, b = {b}", where)
    nx, ny = int(nx), int(ny)
    if nx < 1 or ny < 1:
        raise InputError(f"need at least one division per side, got nx = {nx}, ny = {ny}", where)
    if pattern not in ("right", "alternating"):
        raise InputError(f"pattern must be 'right' or 'alternating', got {pattern!r}", where)
    if cells not in ("triangle", "quad"):
        raise InputError(f"cells must be 'triangle' or 'quad', got {cells!r}", where)
    xs = np.linspace(0.0, a, nx + 1)
    ys = np.linspace(0.0, b, ny + 1)
    gx, gy = np.meshgrid(xs, ys, indexing="xy")  # (ny+1, nx+1), node id = j (nx+1) + i
    o = np.asarray(origin, dtype=np.float64)
    points = np.column_stack([gx.ravel() + o[0], gy.ravel() + o[1], np.full(gx.size, o[2])])
    tris = []
    for j in range(ny):
        for i in range(nx):
            n00 = j * (nx + 1) + i
            n10, n01, n11 = n00 + 1, n00 + nx + 1, n00 + nx + 2
            if cells == "quad":
                tris.append((n00, n10, n11, n01))
            elif pattern == "right" or (i + j) % 2 == 0:
                tris += [(n00, n10, n11), (n00, n11, n01)]
            else:
                tris += [(n00, n10, n01), (n10, n11, n01)]
    conn = np.array(tris, dtype=np.int64)
    ids = np.arange(points.shape[0]).reshape(ny + 1, nx + 1)
    sets = {
        f"{name}_x0": ids[:, 0], f"{name}_x1": ids[:, -1], f"{name}_y0": ids[0, :], f"{name}_y1": ids[-1, :],
        f"{name}_nodes": ids.ravel(),
        f"{name}_c00": np.array([ids[0, 0]]), f"{name}_c10": np.array([ids[0, -1]]),
        f"{name}_c01": np.array([ids[-1, 0]]), f"{name}_c11": np.array([ids[-1, -1]]),
    }
    sets[f"{name}_boundary"] = np.unique(np.concatenate([sets[f"{name}_{s}"] for s in ("x0", "x1", "y0", "y1")]))
    if nx % 2 == 0 and ny % 2 == 0:
        sets[f"{name}_center"] = np.array([ids[ny // 2, nx // 2]])
    return Mesh(points, {name: CellBlock(cells, conn)}, sets, source=where)


def triangle_areas(points, conn):
    """Areas (n,) of the triangles ``conn`` (n, 3) on 3-D ``points``."""
    x = np.asarray(points, dtype=np.float64)
    if x.shape[1] == 2:
        x = np.hstack([x, np.zeros((x.shape[0], 1))])
    return 0.5 * np.linalg.norm(np.cross(x[conn[:, 1]] - x[conn[:, 0]], x[conn[:, 2]] - x[conn[:, 0]]), axis=1)


def pressure_nodal_loads(mesh, cells, pressure):
    """Equivalent nodal forces (n_nodes, 3) of a uniform dead pressure on the cells of cell
    set ``cells`` (triangles or quads), along each cell's reference normal (right-hand rule
    on its node order; positive pressure pushes along that normal): the consistent load of
    the linear (triangle: area/3 per corner) or bilinear (quad: ∫ N_k n dA, 2 × 2 Gauss,
    exact also for warped quads) interpolation; no nodal moments. Apply the rows with
    ``Model.point_load`` (dead loads: they do not follow the deformation)."""
    block = mesh.cells[cells]
    if block.cell_type not in ("triangle", "quad"):
        raise InputError(f"pressure needs triangle or quad cells, cell set {cells!r} holds {block.cell_type!r}",
                         "pressure_nodal_loads")
    x = mesh.points if mesh.dim == 3 else np.hstack([mesh.points, np.zeros((mesh.n_nodes, 1))])
    c = block.connectivity
    out = np.zeros((mesh.n_nodes, 3))
    np.add.at(out, c.ravel(), pressure_forces(x[c], pressure).reshape(-1, 3))
    return out


def cylinder_panel_mesh(radius, length, angle, n_axial, n_circ, name="panel", pattern="alternating", theta0=0.0,
                        cells="triangle"):
    """A cylindrical panel of ``radius`` around the global X axis: x ∈ [0, length],
    polar angle θ ∈ [theta0, theta0 + angle] (rad) measured from +Z towards +Y, i.e. the
    point (x, R sin θ, R cos θ); n_axial × n_circ quadrilaterals of two 3-node triangles
    each (``pattern`` as in rectangle_mesh), outward normals.

    Node sets: ``name_x0``, ``name_x1`` (ends x = 0, x = length), ``name_t0``, ``name_t1``
    (straight edges θ = theta0, θ = theta0 + angle), ``name_nodes`` and the corners
    ``name_c00`` (x = 0, θ0), ``name_c10`` (x = length, θ0), ``name_c01``, ``name_c11``.
    """
    where = f"cylinder_panel_mesh({name!r})"
    if not (radius > 0 and length > 0 and 0 < angle <= 2 * np.pi):
        raise InputError(f"need radius > 0, length > 0 and 0 < angle ≤ 2π, got {radius}, {length}, {angle}", where)
    flat = rectangle_mesh(length, angle, n_axial, n_circ, name=name, pattern=pattern, cells=cells)
    x, th = flat.points[:, 0], flat.points[:, 1] + theta0
    points = np.column_stack([x, radius * np.sin(th), radius * np.cos(th)])
    conn = flat.cells[name].connectivity  # counter-clockwise in (x, θ): outward normals
    sets = {k.replace("_y0", "_t0").replace("_y1", "_t1"): v for k, v in flat.node_sets.items()
            if not k.endswith(("_boundary", "_center"))}
    return Mesh(points, {name: CellBlock(cells, conn)}, sets, source=where)


def sphere_patch_mesh(radius, polar, azimuth, n_polar, n_azimuth, name="sphere", pattern="alternating", cells="triangle"):
    """A patch of the sphere of ``radius`` centred at the origin: polar angle φ (from +Z)
    in ``polar`` = (φ0, φ1) and azimuth θ (from +X towards +Y) in ``azimuth`` = (θ0, θ1), both
    in rad; the point (R sin φ cos θ, R sin φ sin θ, R cos φ). n_polar × n_azimuth
    quadrilaterals of two 3-node triangles (outward normals). A hemisphere with a polar
    hole is polar = (φ_hole, π/2).

    Node sets: ``name_p0``, ``name_p1`` (edges φ = φ0, φ = φ1), ``name_a0``, ``name_a1``
    (edges θ = θ0, θ = θ1), ``name_nodes`` and the corners ``name_c00`` (φ0, θ0), ``name_c10``
    (φ1, θ0), ``name_c01`` (φ0, θ1), ``name_c11`` (φ1, θ1).
    """
    where = f"sphere_patch_mesh({name!r})"
    (p0, p1), (t0, t1) = polar, azimuth
    if not (radius > 0 and 0 <= p0 < p1 <= np.pi and t0 < t1 <= t0 + 2 * np.pi):
        raise InputError(f"need radius > 0, 0 ≤ φ0 < φ1 ≤ π and θ0 < θ1 ≤ θ0 + 2π, got {radius}, {polar}, {azimuth}", where)
    if p0 == 0.0:
        raise InputError("the pole is a singular point of the (φ, θ) grid: start the polar range above 0", where)
    flat = rectangle_mesh(p1 - p0, t1 - t0, n_polar, n_azimuth, name=name, pattern=pattern, cells=cells)
    ph, th = flat.points[:, 0] + p0, flat.points[:, 1] + t0
    points = radius * np.column_stack([np.sin(ph) * np.cos(th), np.sin(ph) * np.sin(th), np.cos(ph)])
    conn = flat.cells[name].connectivity  # counter-clockwise in (φ, θ): outward normals
    rename = {"_x0": "_p0", "_x1": "_p1", "_y0": "_a0", "_y1": "_a1"}
    sets = {}
    for k, v in flat.node_sets.items():
        if k.endswith(("_boundary", "_center")):
            continue
        for old, new in rename.items():
            if k.endswith(old):
                k = k[: -len(old)] + new
        sets[k] = v
    return Mesh(points, {name: CellBlock(cells, conn)}, sets, source=where)
