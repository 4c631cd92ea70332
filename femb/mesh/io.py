"""Mesh files through meshio: ``read_mesh(path) -> Mesh`` and ``write_mesh(mesh, path)``.

Supported formats (by file suffix, or ``file_format`` with a meshio format name): gmsh
``.msh`` (2.2 and 4.x, ASCII or binary), Abaqus ``.inp``, Nastran ``.bdf``/``.nas``, MED
``.med`` (needs h5py), VTK ``.vtu``/``.vtk`` and anything else meshio reads.

Cell types are mapped through the explicit table ``CELL_TYPES``; any other type is an
InputError naming the file and the type. Named sets come from the format's own notion:

=========  ======================================================  =====================
format     cell sets                                               node sets
=========  ======================================================  =====================
gmsh       physical groups (names from ``$PhysicalNames``;         physical points
           unnamed groups become ``physical_<tag>``)               (``vertex`` cells)
Abaqus     ``*ELSET`` (and ``ELSET=`` on ``*ELEMENT``)             ``*NSET``
MED        groups of the cell families                             groups of node families
Nastran    property ids: ``pid<N>`` (names are not stored)         not stored
VTU/VTK    integer cell data ``set:<name>`` (written by femb)      point data ``nset:<name>``
=========  ======================================================  =====================

A femb cell set holds cells of one type: a named group with several cell types becomes
``<name>_<type>`` per type. Cells in no named group are collected per cell type in a set
named after the type (``line``, ``triangle`` ...). ``vertex`` cells become node sets.
Points whose z coordinates are all zero give a 2-D mesh.
"""
import contextlib
import io as _io
import logging
from pathlib import Path

import numpy as np

from femb.core.errors import InputError
from femb.mesh.mesh import CellBlock, Mesh

log = logging.getLogger(__name__)

#: meshio cell type -> nodes per cell (the cell types femb reads)
CELL_TYPES = {"vertex": 1, "line": 2, "line3": 3, "triangle": 3, "quad": 4}
#: topological dimension of each supported cell type
CELL_DIM = {"vertex": 0, "line": 1, "line3": 1, "triangle": 2, "quad": 2}
#: default meshio writer by suffix (``.msh`` is written as ASCII gmsh 2.2)
WRITE_FORMATS = {".msh": "gmsh22", ".inp": "abaqus", ".bdf": "nastran", ".nas": "nastran", ".med": "med", ".vtu": "vtu", ".vtk": "vtk"}
_FEMB_CELL_SET = "set:"
_FEMB_NODE_SET = "nset:"


#: meshio reader by suffix (meshio alone tries several readers for ``.msh``, printing)
READ_FORMATS = {".msh": "gmsh", ".inp": "abaqus", ".bdf": "nastran", ".nas": "nastran", ".fem": "nastran", ".med": "med",
                ".vtu": "vtu", ".vtk": "vtk", ".xdmf": "xdmf"}


@contextlib.contextmanager
def _quiet_meshio():
    """Route meshio's console output (warnings on stderr, failed readers on stdout) into
    logging."""
    buffer = _io.StringIO()
    with contextlib.redirect_stderr(buffer), contextlib.redirect_stdout(buffer):
        yield buffer
    text = buffer.getvalue().strip()
    if text:
        log.warning("meshio: %s", text)


def read_mesh(path, file_format=None):
    """Read a mesh file into a :class:`~femb.mesh.Mesh` (see the module docstring).

    Parameters
    ----------
    path : str or Path
    file_format : str, optional
        meshio format name when the suffix does not tell (``"gmsh"``, ``"abaqus"`` ...).

    Raises
    ------
    InputError naming the file: missing or unreadable file, unsupported cell types,
    non-finite coordinates, bad connectivity.
    """
    path = Path(path)
    where = str(path)
    if not path.exists():
        raise InputError("mesh file not found", where)
    if not path.is_file():
        raise InputError("mesh path is not a file", where)
    import meshio

    fmt = file_format or READ_FORMATS.get(path.suffix.lower())
    try:
        with _quiet_meshio() as output, _gmsh4_node_tags() as tags:
            m = meshio.read(path, file_format=fmt)
        if tags:
            _renumber_by_tags(m, tags[-1])
    except SystemExit:  # meshio exits when no reader understands the file
        said = " ".join(output.getvalue().split())[:300]
        raise InputError(f"cannot read mesh file ({said or 'no meshio reader understands it'})", where) from None
    except ModuleNotFoundError as exc:
        raise InputError(f"reading this format needs the Python package {exc.name!r} (pip install {exc.name})", where) from None
    except Exception as exc:  # meshio raises anything from ReadError to IndexError on bad files
        raise InputError(f"cannot read mesh file ({type(exc).__name__}: {exc})", where) from None
    return from_meshio(m, source=where)


@contextlib.contextmanager
def _gmsh4_node_tags():
    """Capture the node tags meshio's gmsh 4 reader sees (it keeps the file order of the
    nodes, which groups them by entity, and drops the tags)."""
    captured = []
    try:
        from meshio.gmsh import _gmsh41
        original = _gmsh41._read_nodes
    except (ImportError, AttributeError):  # another meshio layout: keep the file order
        yield captured
        return

    def spy(*args, **kwargs):
        points, tags, dim_tags = original(*args, **kwargs)
        captured.append(np.asarray(tags, dtype=np.int64))
        return points, tags, dim_tags

    _gmsh41._read_nodes = spy
    try:
        yield captured
    finally:
        _gmsh41._read_nodes = original


def _renumber_by_tags(m, tags):
    """Reorder the points of meshio mesh ``m`` (in place) by their file node tags, so node
    index = tag order (gmsh's own numbering for the usual dense tags)."""
    if tags.size != len(m.points) or np.all(np.diff(tags) > 0):
        return
    order = np.argsort(tags, kind="stable")
    new_of_old = np.empty_like(order)
    new_of_old[order] = np.arange(order.size)
    m.points = m.points[order]
    for block in m.cells:
        block.data = new_of_old[block.data]
    m.point_data = {k: np.asarray(v)[order] for k, v in m.point_data.items()}
    m.point_sets = {k: new_of_old[np.asarray(v, dtype=np.int64)] for k, v in (m.point_sets or {}).items()}


def from_meshio(m, source="meshio mesh"):
    """Convert a ``meshio.Mesh`` into a femb Mesh (sets as described in the module docstring)."""
    unsupported = sorted({b.type for b in m.cells if b.type not in CELL_TYPES})
    if unsupported:
        raise InputError(
            [f"unsupported cell type {t!r} (femb reads {', '.join(CELL_TYPES)})" for t in unsupported], source
        )
    points = np.asarray(m.points, dtype=np.float64)
    if points.ndim != 2 or points.shape[0] == 0:
        raise InputError("the mesh has no points", source)
    if points.shape[1] == 1:
        points = np.column_stack([points, np.zeros(points.shape[0])])
    if points.shape[1] == 3 and np.all(points[:, 2] == 0.0):
        points = points[:, :2]
    groups = _cell_groups(m)
    cells, node_sets = _cell_sets(m, groups, source)
    node_sets.update(_node_sets(m))
    return Mesh(points, cells, node_sets, source=source)


# ---------------------------------------------------------------------------- reading sets
def _cell_groups(m):
    """Named membership per cell block: list (one per block) of dict name -> local indices."""
    n_blocks = len(m.cells)
    groups = [dict() for _ in range(n_blocks)]

    def add(i, name, idx):
        idx = np.asarray(idx, dtype=np.int64).ravel()
        if idx.size:
            prev = groups[i].get(name)
            groups[i][name] = idx if prev is None else np.union1d(prev, idx)

    named_sets = {k: v for k, v in (m.cell_sets or {}).items() if not k.startswith("gmsh:")}
    if any(len(v) == n_blocks for v in named_sets.values()):
        for name, per_block in named_sets.items():
            if len(per_block) != n_blocks:
                log.warning("cell set %r does not match the cell blocks; ignored", name)
                continue
            for i, idx in enumerate(per_block):
                try:
                    add(i, name, np.asarray(idx if idx is not None else [], dtype=np.int64))
                except (TypeError, ValueError):
                    log.warning("cell set %r: cannot interpret block %d; ignored", name, i)
    elif "gmsh:physical" in m.cell_data:
        names = {(int(v[0]), int(v[1])): k for k, v in (m.field_data or {}).items() if np.size(v) >= 2}
        for i, (block, tags) in enumerate(zip(m.cells, m.cell_data["gmsh:physical"])):
            tags = np.asarray(tags, dtype=np.int64)
            for tag in np.unique(tags):
                name = names.get((int(tag), CELL_DIM[block.type]), f"physical_{int(tag)}")
                add(i, name, np.flatnonzero(tags == tag))
    if "cell_tags" in m.cell_data and getattr(m, "cell_tags", None):  # MED families
        for i, tags in enumerate(m.cell_data["cell_tags"]):
            tags = np.asarray(tags, dtype=np.int64)
            for fam in np.unique(tags):
                for name in m.cell_tags.get(int(fam), []):
                    add(i, name, np.flatnonzero(tags == fam))
    if "nastran:ref" in m.cell_data:
        for i, refs in enumerate(m.cell_data["nastran:ref"]):
            refs = np.asarray(refs, dtype=np.int64)
            for ref in np.unique(refs):
                add(i, f"pid{int(ref)}", np.flatnonzero(refs == ref))
    for key, per_block in m.cell_data.items():
        if key.startswith(_FEMB_CELL_SET):
            for i, flags in enumerate(per_block):
                add(i, key[len(_FEMB_CELL_SET):], np.flatnonzero(np.asarray(flags).ravel() != 0))
    return groups


def _cell_sets(m, groups, source):
    """Cell sets (name -> CellBlock, one type each) and node sets from vertex cells."""
    by_name = {}  # name -> {cell_type: [connectivity arrays]}
    unnamed = {}  # cell_type -> [connectivity arrays]
    for block, named in zip(m.cells, groups):
        data = np.asarray(block.data, dtype=np.int64).reshape(len(block.data), -1)
        covered = np.zeros(data.shape[0], dtype=bool)
        for name, idx in named.items():
            by_name.setdefault(name, {}).setdefault(block.type, []).append(data[idx])
            covered[idx] = True
        if not covered.all():
            unnamed.setdefault(block.type, []).append(data[~covered])
    cells, node_sets = {}, {}
    for name, per_type in by_name.items():
        for cell_type, arrays in per_type.items():
            conn = np.vstack(arrays)
            if cell_type == "vertex":
                node_sets[name] = np.unique(conn)
                continue
            key = name if len([t for t in per_type if t != "vertex"]) == 1 else f"{name}_{cell_type}"
            cells[key] = CellBlock(cell_type, conn)
    for cell_type, arrays in unnamed.items():
        conn = np.vstack(arrays)
        if cell_type == "vertex":
            node_sets.setdefault("vertex", np.unique(conn))
            continue
        key = cell_type if cell_type not in cells else f"{cell_type}_unnamed"
        cells[key] = CellBlock(cell_type, conn)
    if not cells:
        raise InputError("the mesh has no line or surface cells", source)
    return cells, node_sets


def _node_sets(m):
    """Node sets from Abaqus NSETs, MED node families and femb's ``nset:`` point data."""
    out = {}
    for name, idx in (m.point_sets or {}).items():
        out[name] = np.unique(np.asarray(idx, dtype=np.int64).ravel())
    if "point_tags" in m.point_data and getattr(m, "point_tags", None):
        tags = np.asarray(m.point_data["point_tags"], dtype=np.int64)
        for fam in np.unique(tags):
            for name in m.point_tags.get(int(fam), []):
                out[name] = np.union1d(out.get(name, np.zeros(0, np.int64)), np.flatnonzero(tags == fam))
    for key, flags in m.point_data.items():
        if key.startswith(_FEMB_NODE_SET):
            out[key[len(_FEMB_NODE_SET):]] = np.flatnonzero(np.asarray(flags).ravel() != 0)
    return out


# ---------------------------------------------------------------------------- writing
def write_mesh(mesh, path, file_format=None):
    """Write a femb Mesh so that :func:`read_mesh` gives back the same points, cells and sets.

    ``file_format`` defaults from the suffix (``WRITE_FORMATS``; ``.msh`` is gmsh 2.2
    ASCII, pass ``"gmsh"`` for gmsh 4.1 ASCII). gmsh 4 stores physical groups per
    geometric entity and meshio needs every entity to own a node, so sets that cannot
    each get a node of their own (two one-node sets on the same node) are an InputError
    there; gmsh 2.2 stores any sets. Nastran keeps only the partition into property ids
    (sets come back as ``pid1``, ``pid2`` ...) and no node sets. MED needs h5py.
    """
    import meshio

    path = Path(path)
    fmt = file_format or WRITE_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise InputError(f"cannot tell the mesh format from the suffix {path.suffix!r}; pass file_format", str(path))
    points = np.zeros((mesh.n_nodes, 3))
    points[:, : mesh.dim] = mesh.points
    names = list(mesh.cells)
    blocks = [meshio.CellBlock(mesh.cells[k].cell_type, mesh.cells[k].connectivity) for k in names]
    kwargs = {}
    if fmt in ("gmsh22", "gmsh", "gmsh41"):
        out = _gmsh_mesh(meshio, mesh, points, names, blocks, str(path), version_4=fmt != "gmsh22")
        kwargs = {"binary": False}
        if fmt == "gmsh41":
            fmt = "gmsh"
    elif fmt == "abaqus":
        cell_sets = {k: [np.arange(len(b.data)) if i == j else np.zeros(0, np.int64) for j, b in enumerate(blocks)] for i, k in enumerate(names)}
        out = meshio.Mesh(points, blocks, cell_sets=cell_sets, point_sets=dict(mesh.node_sets))
    elif fmt == "med":
        out = _med_mesh(meshio, mesh, points, names)
    elif fmt == "nastran":
        out = meshio.Mesh(points, blocks, cell_data={"nastran:ref": [np.full(len(b.data), i + 1) for i, b in enumerate(blocks)]})
    else:
        cell_data = {f"{_FEMB_CELL_SET}{k}": [np.full(len(b.data), int(i == j), np.int32) for j, b in enumerate(blocks)] for i, k in enumerate(names)}
        point_data = {}
        for k, nodes in mesh.node_sets.items():
            flags = np.zeros(mesh.n_nodes, np.int32)
            flags[nodes] = 1
            point_data[f"{_FEMB_NODE_SET}{k}"] = flags
        out = meshio.Mesh(points, blocks, point_data=point_data, cell_data=cell_data)
    try:
        with _quiet_meshio():
            meshio.write(path, out, file_format=fmt, **kwargs)
    except ModuleNotFoundError as exc:
        raise InputError(f"writing this format needs the Python package {exc.name!r}", str(path)) from None
    except (KeyError, ValueError, meshio.WriteError) as exc:  # e.g. a cell type the format lacks
        raise InputError(f"cannot write the mesh as {fmt} ({type(exc).__name__}: {exc})", str(path)) from None
    return path


def _gmsh_mesh(meshio, mesh, points, names, blocks, where, version_4):
    """meshio Mesh with physical groups: one per cell set, one ``vertex`` group per node set
    (node sets that merely repeat a cell set's nodes under its name are left out)."""
    blocks, names = list(blocks), list(names)
    for k, nodes in mesh.node_sets.items():
        if k in mesh.cells:
            if np.array_equal(np.unique(mesh.cells[k].connectivity), np.unique(nodes)):
                continue
            raise InputError(f"gmsh cannot store a node set and a cell set both called {k!r}", where)
        blocks.append(meshio.CellBlock("vertex", np.asarray(nodes, dtype=np.int64).reshape(-1, 1)))
        names.append(k)
    tags = [np.full(len(b.data), i + 1) for i, b in enumerate(blocks)]
    field_data = {k: np.array([i + 1, CELL_DIM[b.type]]) for i, (k, b) in enumerate(zip(names, blocks))}
    point_data = {"gmsh:dim_tags": _node_entities(mesh.n_nodes, blocks, where)} if version_4 else {}
    return meshio.Mesh(points, blocks, point_data=point_data, cell_data={"gmsh:physical": tags, "gmsh:geometrical": tags}, field_data=field_data)


def _node_entities(n_nodes, blocks, where):
    """(n_nodes, 2) (dim, entity tag) per node for gmsh 4: every block's entity must own at
    least one node; smaller blocks choose first, stealing from owners of several nodes."""
    owner = np.full(n_nodes, -1)
    order = sorted(range(len(blocks)), key=lambda i: np.unique(blocks[i].data).size)
    for i in order:
        nodes = np.unique(blocks[i].data)
        free = nodes[owner[nodes] < 0]
        if free.size:
            owner[free] = i
            continue
        counts = np.bincount(owner[owner >= 0], minlength=len(blocks))
        spare = [n for n in nodes if counts[owner[n]] > 1]
        if not spare:
            raise InputError("cannot assign gmsh 4 node entities to every set; write gmsh 2.2 (file_format='gmsh22')", where)
        owner[spare[0]] = i
    owner[owner < 0] = order[-1] if order else 0
    dims = np.array([CELL_DIM[b.type] for b in blocks])
    return np.column_stack([dims[owner], owner + 1])


def _med_mesh(meshio, mesh, points, names):
    """meshio Mesh with MED families: one cell family per cell set (cells of one type are
    merged into one block, as MED requires), node families per distinct node-set membership."""
    by_type = {}
    for i, k in enumerate(names):
        by_type.setdefault(mesh.cells[k].cell_type, []).append(i)
    blocks, cell_tags_data, cell_tags = [], [], {}
    for cell_type, idx in by_type.items():
        blocks.append(meshio.CellBlock(cell_type, np.vstack([mesh.cells[names[i]].connectivity for i in idx])))
        cell_tags_data.append(np.concatenate([np.full(len(mesh.cells[names[i]].connectivity), -(i + 1)) for i in idx]))
        cell_tags.update({-(i + 1): [names[i]] for i in idx})
    set_names = list(mesh.node_sets)
    member = np.zeros((mesh.n_nodes, len(set_names)), dtype=bool)
    for j, k in enumerate(set_names):
        member[mesh.node_sets[k], j] = True
    point_tags = {}
    fam = np.zeros(mesh.n_nodes, dtype=np.int64)
    if set_names:
        combos, inverse = np.unique(member, axis=0, return_inverse=True)
        for c, combo in enumerate(combos):
            if combo.any():
                point_tags[c + 1] = [set_names[j] for j in np.flatnonzero(combo)]
        fam = np.where(member.any(axis=1), inverse.ravel() + 1, 0)
    out = meshio.Mesh(points, blocks, point_data={"point_tags": fam}, cell_data={"cell_tags": cell_tags_data})
    out.cell_tags, out.point_tags = cell_tags, point_tags
    return out
