"""Beams and bars as extruded cross-section surfaces, shells as thickness-extruded
slabs, for ParaView.

A section outline (a closed polygon in the section plane, local axes y and z) is placed at
both end nodes of every element of the selected parts and the two rings are joined by
quadrilaterals. The section follows the nodes:

* 2-D beams (DOF rz): the reference element triad (e1 along the chord, e2 = e_Z × e1 in the
  plane, e3 = e_Z) turned by the nodal rotation rz about e_Z;
* 3-D beams with oriented nodes: the nodal rotation matrix (relative to the reference)
  times the element's reference section triad (e1 along the chord, e2 from the section
  ``orientation``, default e_Z × e1 or e_Y for vertical members; as femb.elements.beam3d);
* bars (no rotational DOFs): the reference triad turned with the current chord.

Shells (``shell3``, ``shell4``): every shell node gets a bottom and a top point at
∓ t/2 along its reference normal (the mean of the adjacent cells' normals, t the mean
thickness of those cells), and every cell becomes a wedge (triangle) or a hexahedron
(quad) between them. The normal follows the node's rotation matrix, so the slab shows the
rotations of the mid-surface fibres (with the drilling rotation, which does not move it).

Points are the *reference* positions of the outline (as in the line-cell output); the point
array ``displacement`` carries each surface point to its deformed position and
``deformed`` holds that position, so ParaView's "Warp By Vector" works on both files. Every
other point array of the line output is copied from the owning node, every cell array from
the owning element (repeated on its faces); ``element`` is the element index in its part.
"""
import logging
from dataclasses import dataclass

import numpy as np

from femb.core.errors import InputError

log = logging.getLogger(__name__)

SHAPES = ("auto", "rectangle", "circle")


@dataclass(frozen=True)
class SectionOutline:
    """A closed section outline: ``points`` (m, 2) = (y, z) in the section plane,
    counter-clockwise, the last point joined to the first."""

    points: np.ndarray

    @classmethod
    def rectangle(cls, width, height):
        """Rectangle ``height`` along the local y axis (the bending plane of 2-D beams) by
        ``width`` along the local z axis (out of the plane of 2-D models)."""
        if not (width > 0 and height > 0):
            raise InputError(f"rectangle outline needs width > 0 and height > 0, got {width}, {height}")
        h, b = 0.5 * float(height), 0.5 * float(width)
        return cls(np.array([[-h, -b], [h, -b], [h, b], [-h, b]], dtype=np.float64))

    @classmethod
    def circle(cls, diameter, segments=16):
        """Regular polygon of ``segments`` corners on a circle of ``diameter``."""
        if not diameter > 0 or int(segments) < 3:
            raise InputError(f"circle outline needs diameter > 0 and segments >= 3, got {diameter}, {segments}")
        a = np.linspace(0.0, 2.0 * np.pi, int(segments), endpoint=False)
        return cls(0.5 * float(diameter) * np.column_stack([np.cos(a), np.sin(a)]))

    @classmethod
    def from_section(cls, section, dim):
        """The rectangle with the section's area and second moments (exact for a
        rectangular section): height √(12 Iz/A) along y and width A/height (2-D) or
        √(12 Iy/A) (3-D); a circle of area A when no second moment is given."""
        A = float(section.A)
        Iz, Iy = section.second_moment_z, section.second_moment_y
        if Iz is None and Iy is None:
            return cls.circle(2.0 * np.sqrt(A / np.pi))
        Iz = Iz if Iz is not None else Iy
        Iy = Iy if Iy is not None else Iz
        height = np.sqrt(12.0 * Iz / A)
        width = A / height if dim == 2 else np.sqrt(12.0 * Iy / A)
        return cls.rectangle(width, height)


def outline_from_spec(spec, section=None, dim=3, where="surfaces"):
    """A SectionOutline from a SectionOutline, "auto"/True (from ``section``) or a dict
    {"shape": "auto" | "rectangle" | "circle", "width", "height", "diameter", "segments"}."""
    if isinstance(spec, SectionOutline):
        return spec
    if spec is True or spec == "auto":
        spec = {"shape": "auto"}
    if not isinstance(spec, dict):
        raise InputError(f"expected a section outline (shape = auto, rectangle or circle), got {spec!r}", where)
    shape = spec.get("shape", "auto")
    if shape not in SHAPES:
        raise InputError(f"shape must be one of {', '.join(SHAPES)}, got {shape!r}", where)
    unknown = set(spec) - {"shape", "width", "height", "diameter", "segments"}
    if unknown:
        raise InputError(f"unknown keys {sorted(unknown)} (shape, width, height, diameter, segments)", where)
    if shape == "rectangle":
        missing = [k for k in ("width", "height") if k not in spec]
        if missing:
            raise InputError(f"a rectangle needs {' and '.join(missing)}", where)
        return SectionOutline.rectangle(spec["width"], spec["height"])
    if shape == "circle":
        if "diameter" not in spec:
            raise InputError("a circle needs a diameter", where)
        return SectionOutline.circle(spec["diameter"], spec.get("segments", 16))
    if section is None:
        raise InputError("shape = \"auto\" needs a part with a section (A, I); give rectangle or circle dimensions", where)
    return SectionOutline.from_section(section, dim)


def _is_line_member(spec):
    """Two-node line elements with an axial rigidity: bars and beams."""
    return spec.cell_type == "line" and spec.n_nodes == 2 and "EA" in spec.params


def _default_triads(e1):
    """(n, 3, 3) triads (columns e1, e2, e3) with e2 = e_Z × e1 normalised, or the e_Y
    direction orthogonal to e1 for (nearly) vertical members."""
    w = np.column_stack([-e1[:, 1], e1[:, 0], np.zeros(len(e1))])
    wn = np.linalg.norm(w, axis=1)
    vertical = wn <= 1e-6
    wv = np.column_stack([-e1[:, 1] * e1[:, 0], 1.0 - e1[:, 1] ** 2, -e1[:, 1] * e1[:, 2]])
    w = np.where(vertical[:, None], wv, w)
    w /= np.linalg.norm(w, axis=1)[:, None]
    return np.stack([e1, w, np.cross(e1, w)], axis=2)


def _oriented_triads(e1, v):
    """Triads with e2 along the part of ``v`` (n, 3) orthogonal to e1, the default where
    ``v`` is zero or parallel to e1."""
    R = _default_triads(e1)
    vn = np.linalg.norm(v, axis=1)
    w = v - np.sum(v * e1, axis=1)[:, None] * e1
    wn = np.linalg.norm(w, axis=1)
    use = (vn > 0.0) & (wn > 1e-8 * np.where(vn > 0, vn, 1.0))
    if np.any(use):
        w2 = w[use] / wn[use, None]
        R[use] = np.stack([e1[use], w2, np.cross(e1[use], w2)], axis=2)
    return R


def _align(a, b):
    """(n, 3, 3) rotations taking unit vectors a onto b (the smallest rotation; a half
    turn about an axis normal to a when b = −a)."""
    v = np.cross(a, b)
    c = np.sum(a * b, axis=1)
    H = np.zeros((len(a), 3, 3))
    H[:, 0, 1], H[:, 0, 2], H[:, 1, 2] = -v[:, 2], v[:, 1], -v[:, 0]
    H -= H.transpose(0, 2, 1)
    flip = c < -1.0 + 1e-12
    scale = np.where(flip, 0.0, 1.0 / np.where(flip, 1.0, 1.0 + c))
    R = np.eye(3) + H + scale[:, None, None] * (H @ H)
    if np.any(flip):
        n = _default_triads(a[flip])[:, :, 1]
        R[flip] = 2.0 * n[:, :, None] * n[:, None, :] - np.eye(3)
    return R


def _rz(theta):
    """(n, 3, 3) rotations by θ about e_Z."""
    c, s = np.cos(theta), np.sin(theta)
    R = np.zeros((len(theta), 3, 3))
    R[:, 0, 0], R[:, 0, 1], R[:, 1, 0], R[:, 1, 1], R[:, 2, 2] = c, -s, s, c, 1.0
    return R


class _Member:
    """One part drawn as a surface: element end nodes, reference triads, outline."""

    def __init__(self, index, block, X, outline, kind):
        self.index = index  # position of the block in table.blocks
        self.part = block.part
        self.kind = kind  # "beam2d", "beam3d" or "bar"
        self.nodes = np.ascontiguousarray(block.cells[:, [0, -1]], dtype=np.int64)
        chord = X[self.nodes[:, 1]] - X[self.nodes[:, 0]]
        length = np.linalg.norm(chord, axis=1)
        if np.any(length <= 0.0):
            raise InputError(f"part {block.part!r}: zero-length element, no section surface")
        e1 = chord / length[:, None]
        self.e1 = e1
        if kind == "beam3d":
            names = list(block.spec.params)
            v = block.props[:, [names.index(k) for k in ("vx", "vy", "vz")]] if "vx" in names else np.zeros_like(e1)
            self.R0 = _oriented_triads(e1, np.asarray(v, dtype=np.float64))
        else:
            self.R0 = _default_triads(e1)
        self.local = np.column_stack([np.zeros(len(outline.points)), outline.points])  # (m, 3) = (0, y, z)
        self.m = len(outline.points)
        self.n_elements = len(self.nodes)
        self.cell_type = "quad"
        self.point_node = np.repeat(self.nodes, self.m, axis=1).reshape(-1)

    def reference_points(self, X):
        return self.reference_rings(X).reshape(-1, 3)

    def deformed_points(self, x, nodal_R):
        return self.deformed_rings(x, nodal_R).reshape(-1, 3)

    def surface_cells(self, offset):
        return self.quads(offset)

    def rings(self, positions, triads):
        """(n_el, 2, m, 3) outline points at both ends: positions (n_el, 2, 3), triads
        (n_el, 2, 3, 3)."""
        return positions[:, :, None, :] + np.einsum("eaij,mj->eami", triads, self.local)

    def reference_rings(self, X):
        triads = np.repeat(self.R0[:, None], 2, axis=1)
        return self.rings(X[self.nodes], triads)

    def deformed_rings(self, x, nodal_R):
        """x (n_nodes, 3) deformed node positions; nodal_R (n_nodes, 3, 3) nodal rotations
        (used by beams)."""
        if self.kind == "bar":
            chord = x[self.nodes[:, 1]] - x[self.nodes[:, 0]]
            length = np.linalg.norm(chord, axis=1)
            e1 = chord / np.where(length > 0, length, 1.0)[:, None]
            R = _align(self.e1, np.where(length[:, None] > 0, e1, self.e1)) @ self.R0
            triads = np.repeat(R[:, None], 2, axis=1)
        else:
            triads = nodal_R[self.nodes] @ self.R0[:, None]
        return self.rings(x[self.nodes], triads)

    def quads(self, offset):
        """(n_el·m, 4) quadrilaterals joining ring 0 to ring 1 of every element."""
        n, m = len(self.nodes), self.m
        base = offset + np.arange(n)[:, None] * 2 * m
        j = np.arange(m)
        jn = (j + 1) % m
        q = np.stack([base + j, base + jn, base + m + jn, base + m + j], axis=2)
        return q.reshape(-1, 4)


def _is_shell(spec):
    """Shell elements: triangle or quad cells with a thickness parameter."""
    return spec.cell_type in ("triangle", "quad") and "t" in spec.params


class _ShellSlab:
    """One shell part drawn as a slab of thickness t: wedges or hexahedra."""

    def __init__(self, index, block, X):
        self.index = index
        self.part = block.part
        self.kind = "shell"
        self.m = 1  # cells per element
        cells = np.asarray(block.cells, dtype=np.int64)
        self.n_elements = len(cells)
        self.cell_type = "wedge" if cells.shape[1] == 3 else "hexahedron"
        self.nodes, local = np.unique(cells, return_inverse=True)
        self.local_cells = local.reshape(cells.shape)
        P = X[cells]
        if cells.shape[1] == 3:
            n = np.cross(P[:, 1] - P[:, 0], P[:, 2] - P[:, 0])
        else:
            n = np.cross(P[:, 2] - P[:, 0], P[:, 3] - P[:, 1])
        n /= np.linalg.norm(n, axis=1)[:, None]
        t = np.asarray(block.props[:, list(block.spec.params).index("t")], dtype=np.float64)
        k = len(self.nodes)
        normal = np.zeros((k, 3))
        thick = np.zeros(k)
        count = np.zeros(k)
        for a in range(cells.shape[1]):
            np.add.at(normal, self.local_cells[:, a], n)
            np.add.at(thick, self.local_cells[:, a], t)
            np.add.at(count, self.local_cells[:, a], 1.0)
        norm = np.linalg.norm(normal, axis=1)
        if np.any(norm <= 1e-12):
            raise InputError(f"part {block.part!r}: opposite cell normals at a node (inconsistent orientation); no slab")
        self.normal = normal / norm[:, None]
        self.half = 0.5 * thick / count
        self.point_node = np.concatenate([self.nodes, self.nodes])

    def _offsets(self, R=None):
        d = self.normal if R is None else np.einsum("nij,nj->ni", R, self.normal)
        return self.half[:, None] * d

    def reference_points(self, X):
        d = self._offsets()
        return np.vstack([X[self.nodes] - d, X[self.nodes] + d])

    def deformed_points(self, x, nodal_R):
        d = self._offsets(nodal_R[self.nodes])
        return np.vstack([x[self.nodes] - d, x[self.nodes] + d])

    def surface_cells(self, offset):
        return np.hstack([self.local_cells, self.local_cells + len(self.nodes)]) + offset


class BeamSurfaces:
    """The surface geometry of the bar and beam parts of a CorrelationTable.

    Parameters
    ----------
    table : CorrelationTable
    reference_points : (n_nodes, d) reference coordinates (``model.mesh.points``)
    outlines : dict part -> SectionOutline
        The parts to draw and their outlines (see ``surfaces_for``).
    """

    def __init__(self, table, reference_points, outlines):
        X = np.zeros((table.node_var.shape[0], 3))
        p = np.asarray(reference_points, dtype=np.float64)
        X[:, : p.shape[1]] = p
        self.table, self.X = table, X
        self.members = []
        for k, block in enumerate(table.blocks):
            if block.part not in outlines:
                continue
            spec = block.spec
            if _is_shell(spec):
                self.members.append(_ShellSlab(k, block, X))
                continue
            if not _is_line_member(spec):
                raise InputError(f"part {block.part!r}: element {spec.name!r} is not a two-node bar or beam; no section surface")
            if "rz" in spec.node_dofs and spec.dim == 2:
                kind = "beam2d"
            elif getattr(spec, "oriented", False):
                kind = "beam3d"
            else:
                kind = "bar"
            self.members.append(_Member(k, block, X, outlines[block.part], kind))
        missing = set(outlines) - {m.part for m in self.members}
        if missing:
            raise InputError(f"no element block for the surface parts {sorted(missing)}")
        refs = [m.reference_points(X) for m in self.members]
        self.ref_points = np.vstack(refs) if refs else np.zeros((0, 3))
        offsets = np.cumsum([0] + [len(r) for r in refs])
        self.cells = [(m.cell_type, m.surface_cells(o)) for m, o in zip(self.members, offsets)]
        # owning node of every surface point, owning element of every face
        self.point_node = np.concatenate([m.point_node for m in self.members]) if self.members else np.zeros(0, int)

    @property
    def parts(self):
        return [m.part for m in self.members]

    def deformed_points(self, u, nodal_R):
        """(n_points, 3) deformed surface points for translations ``u`` (n_nodes, 3) and
        nodal rotations ``nodal_R`` (n_nodes, 3, 3)."""
        x = self.X + u
        return np.vstack([m.deformed_points(x, nodal_R) for m in self.members])

    def nodal_rotations(self, results, frame):
        """(n_nodes, 3, 3) nodal rotations of a frame: rz about e_Z in 2-D, the nodal
        rotation matrices in 3-D, identity where a node has none."""
        if self.table.dim == 2:
            return _rz(results.nodal_rotations(frame) if "rz" in self.table.dof_names else np.zeros(len(self.X)))
        return results.nodal_rotation_matrices(frame)

    def frame_mesh(self, results, frame, point_data, cell_data):
        """(points, cells, point_data, cell_data) of frame ``frame``: reference surface
        points and the fields of the line output (``point_data`` per node, ``cell_data``
        lists per table block) mapped to the surface."""
        disp = np.asarray(point_data["displacement"], dtype=np.float64)
        deformed = self.deformed_points(disp, self.nodal_rotations(results, frame))
        pdata = {"displacement": deformed - self.ref_points, "deformed": deformed}
        for name, arr in point_data.items():
            if name not in pdata:
                pdata[name] = np.asarray(arr)[self.point_node]
        cdata = {name: [np.repeat(np.asarray(blocks[m.index]), m.m, axis=0) for m in self.members] for name, blocks in cell_data.items()}
        cdata["element"] = [np.repeat(np.arange(m.n_elements, dtype=np.int32), m.m) for m in self.members]
        return self.ref_points, self.cells, pdata, cdata


def surfaces_for(results, selection=True):
    """BeamSurfaces for ``results`` (its ``model`` gives the sections and the reference
    points).

    selection : True / "auto" — every bar and beam part with a section, outline from the
        section (SectionOutline.from_section); parts without one are skipped (logged);
        every shell part as a slab of its thickness.
        dict part -> True / "auto" / outline dict / SectionOutline — exactly those parts
        (a shell part: True or "auto", the slab of its thickness).
    Returns None when no part can be drawn.
    """
    model = getattr(results, "model", None)
    if model is None:
        raise InputError("section surfaces need the Results' model (results.model is None)")
    table = results.table
    dim = table.dim
    parts = {b.part: b for b in table.blocks}
    outlines = {}
    if selection is True or selection == "auto":
        for name, block in parts.items():
            part = model.parts.get(name)
            if _is_shell(block.spec):
                outlines[name] = "slab"
                continue
            if not _is_line_member(block.spec) or part is None:
                continue
            if part.section is None:
                log.info("part %r has no section: no surface (give its outline explicitly)", name)
                continue
            outlines[name] = SectionOutline.from_section(part.section, dim)
    elif isinstance(selection, dict):
        for name, spec in selection.items():
            if name not in parts:
                raise InputError(f"unknown part {name!r} (parts: {', '.join(parts)})", "surfaces")
            part = model.parts.get(name)
            if _is_shell(parts[name].spec):
                if spec is not True and spec != "auto":
                    raise InputError(f"shell part {name!r}: the slab takes its thickness from the section; give true or \"auto\"", f"surfaces.{name}")
                outlines[name] = "slab"
                continue
            outlines[name] = outline_from_spec(spec, part.section if part is not None else None, dim, f"surfaces.{name}")
    else:
        raise InputError(f"surfaces must be true, \"auto\" or a table part -> outline, got {selection!r}")
    if not outlines:
        return None
    return BeamSurfaces(table, model.mesh.points, outlines)
