"""Mesh and Model from the tables of a case file (see docs/case_files.md)."""
from pathlib import Path

import numpy as np

from femb import elements as element_library
from femb.case.limits import check_generated_mesh
from femb.case.multibody import FLOATING_ELEMENTS, FLOATING_FRAMES, MultibodyReaders
from femb.core.errors import InputError, ModelError
from femb.elements import MASS_KINDS
from femb.mesh import Mesh, line_mesh, polyline_mesh
from femb.mesh.io import read_mesh
from femb.model import Material, Model, Section
from femb.model.loads import MOMENT_TYPES, PRESSURE_KINDS, SYMMETRY_DOFS
from femb.model.model import edge_nodes
from femb.model.superelements import SuperelementData
from femb.solvers.reduction.component import reduce_component
from femb.solvers.reduction.matrix_files import reduce_matrix_files

MATERIAL_KEYS = ("E", "nu", "G", "rho")
SECTION_KEYS = ("A", "I", "Iy", "Iz", "J", "Ip", "shear_factor", "thickness", "orientation", "centroid", "shear_centre")
_NUMBER_KEYS = SECTION_KEYS[:8]
FORCE_KEYS = ("fx", "fy", "fz", "mx", "my", "mz")
DOF_KEYS = ("ux", "uy", "uz", "rx", "ry", "rz")


def build_mesh(table, ctx, base_dir):
    """The Mesh of ``[mesh]``: ``file`` (relative to the case file) or ``line`` /
    ``polyline`` generators (a table or an array of tables each), merged at
    ``merge_tolerance``."""
    table.allowed = ["file", "format", "line", "polyline", "merge_tolerance"]
    parts = []
    with ctx.guard(), table:
        file = table.take("file", "string")
        fmt = table.take("format", "string")
        tol = table.take("merge_tolerance", "number", default=1e-9, positive=True)
        lines = table.array("line", ["name", "start", "end", "elements"]) if "line" in table else []
        polys = table.array("polyline", ["name", "vertices", "elements"]) if "polyline" in table else []
        if file is not None and (lines or polys):
            ctx.fail(table.path, "give either file or line/polyline generators, not both")
        if file is None and not (lines or polys):
            ctx.fail(table.path, "needs file or a line/polyline generator")
        if file is not None:
            path = Path(file) if Path(file).is_absolute() else base_dir / file
            try:
                return read_mesh(path, fmt)
            except InputError as exc:
                ctx.fail(table.key_path("file"), "; ".join(exc.problems) + f" ({path})")
        for t in lines:
            with ctx.guard(), t:
                name = t.take("name", "string", required=True)
                start = t.take("start", "vector", required=True, size=(2, 3))
                end = t.take("end", "vector", required=True, size=(2, 3))
                n = t.take("elements", "integer", required=True, minimum=1)
                _check_size(ctx, n, len(start), t.key_path("elements"))
                parts.append(_generate(ctx, t.path, line_mesh, start, end, n, name))
        for t in polys:
            with ctx.guard(), t:
                name = t.take("name", "string", required=True)
                raw = t.take("vertices", required=True)
                if not isinstance(raw, list) or len(raw) < 2:
                    ctx.fail(t.key_path("vertices"), f"expected an array of at least two points, got {raw!r}")
                vertices = [ctx.vector(v, f"{t.key_path('vertices')}[{i}]", size=(2, 3)) for i, v in enumerate(raw)]
                counts = t.take("elements", required=True)
                if isinstance(counts, list):
                    counts = [ctx.integer(c, f"{t.key_path('elements')}[{i}]", minimum=1) for i, c in enumerate(counts)]
                    if len(counts) != len(vertices) - 1:
                        ctx.fail(t.key_path("elements"), f"needs one count per segment ({len(vertices) - 1}), got {len(counts)}")
                else:
                    counts = ctx.integer(counts, t.key_path("elements"), minimum=1)
                _check_size(ctx, sum(counts) if isinstance(counts, list) else counts * (len(vertices) - 1), len(vertices[0]),
                            t.key_path("elements"))
                parts.append(_generate(ctx, t.path, polyline_mesh, vertices, counts, name))
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    with ctx.guard():
        return Mesh.merge(*parts, tolerance=tol, source="case mesh generators")
    return None


def _check_size(ctx, n_elements, dim, path):
    """Refuse a generated mesh whose model would exceed the memory limit (ctx.limits)."""
    limits = getattr(ctx, "limits", None)
    problem = check_generated_mesh(n_elements, dim, path, limits) if limits is not None else None
    if problem is not None:
        ctx.fail(path, problem.split(": ", 1)[1])


def _generate(ctx, path, generator, *args):
    """Call a mesh generator, reporting its InputError under the case path."""
    try:
        return generator(*args)
    except InputError as exc:
        ctx.fail(path, "; ".join(exc.problems))


def _named_tables(table, ctx, allowed):
    """(name, Table) for each sub-table of ``[materials]`` / ``[sections]``."""
    for name in (table.data if table else {}):
        with ctx.guard():
            yield name, table.sub(name, allowed)


def read_materials(table, ctx):
    out = {}
    for name, t in _named_tables(table, ctx, MATERIAL_KEYS):
        with ctx.guard(), t:
            E = t.take("E", "number", required=True, positive=True)
            nu = t.take("nu", "number")
            if nu is not None and not -1.0 < nu < 0.5:
                ctx.fail(t.key_path("nu"), f"must lie in (-1, 0.5), got {nu:g}")
            G = t.take("G", "number", positive=True)
            rho = t.take("rho", "number", default=0.0, nonnegative=True)
            out[name] = Material(E=E, nu=nu, G=G, rho=rho, name=name)
    return out


def read_sections(table, ctx):
    out = {}
    for name, t in _named_tables(table, ctx, SECTION_KEYS):
        with ctx.guard(), t:
            values = {}
            for key in _NUMBER_KEYS:
                values[key] = t.take(key, "number", positive=True)
            if values["A"] is None and values["thickness"] is None:
                ctx.fail(t.key_path("A"), "required key is missing (shell sections give thickness instead)")
            values["orientation"] = t.take("orientation", "vector", size=3)
            if values["orientation"] is not None and not np.linalg.norm(values["orientation"]) > 0:
                ctx.fail(t.key_path("orientation"), f"must be non-zero, got {list(values['orientation'])}")
            for key in ("centroid", "shear_centre"):  # (y, z) from the node line, 3-D beams
                values[key] = t.take(key, "vector", size=2)
            out[name] = Section(name=name, **values)
    return out


class ModelBuilder(MultibodyReaders):
    """Reads the model tables of a case into a Model on ``mesh``."""

    def __init__(self, doc, ctx, mesh, materials, sections, base_dir=None):
        self.doc, self.ctx, self.mesh = doc, ctx, mesh
        self.materials, self.sections = materials, sections
        self.base_dir = Path(base_dir) if base_dir is not None else Path(".")
        self.markers = {}

    def check_nodes(self, selector, path):
        if isinstance(selector, str) and selector in self.markers:
            return selector
        try:
            self.mesh.nodes(selector)
        except InputError as exc:
            self.ctx.fail(path, exc.problems[0].replace("unknown set", "unknown node set, cell set or marker"))
        return selector

    def check_cells(self, name, path):
        if name not in self.mesh.cells:
            self.ctx.fail(path, f"unknown cell set {name!r} (cell sets: {', '.join(sorted(self.mesh.cells))})")
        return name

    def build(self, model_table):
        ctx = self.ctx
        name, dim = "model", None
        if model_table is not None:
            model_table.allowed = ["name", "dim"]
            with ctx.guard():
                name = model_table.take("name", "string", default=name)
                dim = model_table.take("dim", "integer")
                if dim is not None and dim not in (2, 3):
                    ctx.fail(model_table.key_path("dim"), f"must be 2 or 3, got {dim}")
            model_table.done()
        model = Model(self.mesh, dim=dim, name=name)
        self.model = model
        self.read_markers(model)
        self.read_parts(model)
        self.read_superelements(model)
        self.read_fix(model)
        self.read_prescribe(model)
        self.read_ties(model)
        self.read_discrete(model)
        self.read_rigid_links(model)
        self.read_joints(model)
        self.read_loads(model)
        self.read_initial_velocity(model)
        return model

    def read_markers(self, model):
        table = self.doc.sub("markers")
        for key in (table.data if table else {}):
            path = table.key_path(key)
            with self.ctx.guard():
                value = table.take(key)
                if isinstance(value, list) and value and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value) and any(isinstance(v, float) for v in value):
                    node = tuple(self.ctx.vector(value, path, size=self.mesh.dim))
                else:
                    node = self.ctx.selector(value, path)
                    self.check_nodes(node, path)
                    if isinstance(node, list) or self.mesh.nodes(node).size != 1:
                        self.ctx.fail(path, f"a marker must name exactly one node, {value!r} has {np.size(self.mesh.nodes(node))}")
                model.add_marker(key, node)
                self.markers[key] = node

    def read_parts(self, model):
        known = element_library.available()
        for t in self.doc.array("parts", ["name", "cells", "element", "material", "section", "values", "frame"]):
            with self.ctx.guard(), t:
                cells = self.check_cells(t.take("cells", "string", required=True), t.key_path("cells"))
                name = t.take("name", "string", default=cells)
                element = t.take("element", "string", required=True, choices=known)
                frame = t.take("frame", "string", choices=FLOATING_FRAMES)
                if frame is not None and element not in FLOATING_ELEMENTS:
                    self.ctx.fail(t.key_path("frame"), f"only floating-frame beams ({', '.join(FLOATING_ELEMENTS)}) take a frame, "
                                                       f"not element {element!r}")
                values, mat, sec = self.part_properties(t, element)
                if name in model.parts:
                    self.ctx.fail(t.key_path("name"), f"part {name!r} is defined twice")
                if element in FLOATING_ELEMENTS:
                    cells = self.floating_body_cells(t, cells, frame or "chord")
                if values is not None:
                    model.add_part(name, element, cells, values=values)
                else:
                    model.add_part(name, element, cells, mat, sec)

    def part_properties(self, t, element):
        """(values, material, section) of a part table ``t``: its direct ``values`` (then
        material and section are None) or the Material and Section it names."""
        values = self.part_values(t, element)
        mat = t.take("material", "string", required=values is None)
        sec = t.take("section", "string", required=values is None)
        for key, value, defined in (("material", mat, self.materials), ("section", sec, self.sections)):
            if values is not None:
                if value is not None:
                    self.ctx.fail(t.key_path(key), f"a part given by direct values takes no {key}")
                continue
            declared = self.doc.data.get(key + "s", {})
            if value not in declared:
                names = ", ".join(declared) if isinstance(declared, dict) and declared else "none"
                self.ctx.fail(t.key_path(key), f"unknown {key} {value!r} ({key}s: {names})")
            if value not in defined:  # declared but invalid: already reported
                self.ctx.skip()
        if values is not None:
            return values, None, None
        return None, self.materials[mat], self.sections[sec]

    def read_superelements(self, model):
        """``[[superelements]]``: Craig–Bampton superelements attached to model nodes
        (Model.add_superelement), reduced either from mesh parts (``parts``: femb.reduce_component
        of the cells of the case mesh or of their own ``mesh`` file) or from matrix files
        (``stiffness``, ``mass``, ``dof_map``: femb.reduce_matrix_files)."""
        keys = ["name", "nodes", "stiffness", "mass", "dof_map", "interface", "n_modes", "positions", "parts", "mesh"]
        for t in self.doc.array("superelements", keys):
            with self.ctx.guard(), t:
                name = t.take("name", "string", required=True)
                if name in self.mesh.cells or name in model.parts:
                    self.ctx.fail(t.key_path("name"), f"{name!r} is already a cell set or part name")
                if "parts" in t and "stiffness" in t:
                    self.ctx.fail(t.path, "give parts (a reduced mesh part) or stiffness/mass/dof_map (matrix files), not both")
                n_modes = t.take("n_modes", "integer", default=0)
                if n_modes < 0:
                    self.ctx.fail(t.key_path("n_modes"), f"must be >= 0, got {n_modes}")
                if "parts" in t:
                    t.allowed = ["name", "nodes", "mass", "interface", "n_modes", "parts", "mesh"]
                    self.read_reduced_mesh_part(model, t, name, n_modes)
                else:
                    t.allowed = ["name", "nodes", "stiffness", "mass", "dof_map", "interface", "n_modes", "positions"]
                    self.read_matrix_superelement(model, t, name, n_modes)

    def read_matrix_superelement(self, model, t, name, n_modes):
        """A ``[[superelements]]`` table reduced from matrix files."""
        nodes = self.ctx.selector(t.take("nodes", required=True), t.key_path("nodes"))
        self.check_nodes(nodes, t.key_path("nodes"))
        files = {}
        for key in ("stiffness", "mass", "dof_map"):
            value = t.take(key, "string", required=True)
            files[key] = Path(value) if Path(value).is_absolute() else self.base_dir / value
        interface = t.take("interface", required=True)
        if not (isinstance(interface, list) and interface and all(isinstance(v, int) and not isinstance(v, bool) for v in interface)):
            self.ctx.fail(t.key_path("interface"), f"expected an array of node numbers of the DOF map, got {interface!r}")
        raw = t.take("positions")
        count = int(np.size(model.nodes(nodes)))
        if raw is None:  # the interface sits where the model nodes are
            positions = np.zeros((count, 3))
            positions[:, : self.mesh.dim] = np.asarray(self.mesh.points)[model.nodes(nodes)]
        else:
            if not isinstance(raw, list):
                self.ctx.fail(t.key_path("positions"), f"expected an array of 3-vectors, got {raw!r}")
            positions = np.array([self.ctx.vector(v, f"{t.key_path('positions')}[{i}]", size=3) for i, v in enumerate(raw)])
        if len(interface) != count:
            self.ctx.fail(t.key_path("interface"), f"{len(interface)} interface nodes for {count} model nodes in 'nodes'")
        basis, dofs = reduce_matrix_files(files["stiffness"], files["mass"], files["dof_map"], interface, n_modes)
        data = SuperelementData.from_craig_bampton(basis, [dofs[i] for i in basis.boundary], interface, positions,
                                                   source=f"{t.path} ({files['stiffness'].name})")
        model.add_superelement(name, data, nodes)

    def read_reduced_mesh_part(self, model, t, name, n_modes):
        """A ``[[superelements]]`` table reducing mesh parts: ``parts`` (tables as in
        ``[[parts]]``) on the cells of the case mesh or of the file ``mesh``, reduced on the
        node set ``interface`` of that mesh (femb.reduce_component) and attached to the model
        nodes ``nodes`` (default: the interface nodes themselves, case mesh only), matched
        to the interface nodes by position."""
        ctx = self.ctx
        mass = t.take("mass", "string", default="lumped", choices=tuple(MASS_KINDS))
        file = t.take("mesh", "string")
        if file is None:
            mesh, where = self.mesh, "the case mesh"
        else:
            path = Path(file) if Path(file).is_absolute() else self.base_dir / file
            try:
                mesh = read_mesh(path)
            except InputError as exc:
                ctx.fail(t.key_path("mesh"), "; ".join(exc.problems) + f" ({path})")
            where = f"mesh {file!r}"
        component = Mesh(mesh.points, {}, dict(mesh.node_sets), source=f"{t.path} ({where})")
        comp = Model(component, dim=3, name=f"superelement {name!r}")
        used = {p.cells for p in model.parts.values()}
        for p in t.array("parts", ["name", "cells", "element", "material", "section", "values"]):
            with p:
                cells = p.take("cells", "string", required=True)
                if cells not in mesh.cells:
                    ctx.fail(p.key_path("cells"), f"unknown cell set {cells!r} of {where} (cell sets: {', '.join(sorted(mesh.cells)) or 'none'})")
                if file is None and cells in used:
                    ctx.fail(p.key_path("cells"), f"cell set {cells!r} is already a part of the model ([[parts]]); a "
                                                  "superelement's cells must not be meshed twice")
                part = p.take("name", "string", default=cells)
                element = p.take("element", "string", required=True, choices=element_library.available())
                values, mat, sec = self.part_properties(p, element)
                if part in comp.parts:
                    ctx.fail(p.key_path("name"), f"part {part!r} is defined twice in this superelement")
                component.cells[cells] = mesh.cells[cells]
                if values is not None:
                    comp.add_part(part, element, cells, values=values)
                else:
                    comp.add_part(part, element, cells, mat, sec)
        if not comp.parts:
            ctx.fail(t.key_path("parts"), "needs at least one part")
        interface = t.take("interface", required=True)
        selectors = interface if isinstance(interface, list) and all(isinstance(v, str) for v in interface) else [interface]
        iface = []
        for sel in selectors:
            sel = ctx.selector(sel, t.key_path("interface"))
            try:
                iface.append(component.nodes(sel))
            except InputError:
                ctx.fail(t.key_path("interface"), f"unknown node set {sel!r} of {where} "
                                                  f"(node sets: {', '.join(sorted(mesh.node_sets)) or 'none'})")
        iface = np.unique(np.concatenate(iface))
        carried = np.unique(np.concatenate([component.cells[c].connectivity.ravel() for c in component.cells]))
        loose = np.setdiff1d(iface, carried)
        if loose.size:
            ctx.fail(t.key_path("interface"), f"node(s) {loose[:10].tolist()} of {interface!r} belong to no cell of the "
                                              "superelement's parts")
        if "nodes" in t:
            raw = t.take("nodes")
            sels = raw if isinstance(raw, list) and raw and all(isinstance(v, str) for v in raw) else [raw]
            nodes = [self.check_nodes(ctx.selector(v, t.key_path("nodes")), t.key_path("nodes")) for v in sels]
            nodes = np.concatenate([np.atleast_1d(model.nodes(v)) for v in nodes])
            nodes = self._match_interface(t, model, nodes, np.asarray(component.points)[iface], interface)
        elif file is not None:
            ctx.fail(t.key_path("nodes"), f"required key is missing (the interface of {where} must be attached to model nodes)")
        else:
            nodes = iface
        rc = reduce_component(comp, iface, n_modes, mass=mass)
        model.add_superelement(name, rc, nodes)

    def _match_interface(self, t, model, nodes, positions, interface):
        """The model nodes of ``nodes`` at the interface ``positions`` (n, dim), in the
        interface's order; a problem when the counts differ or a position has no node."""
        ctx = self.ctx
        cand = np.asarray(model.nodes(nodes), dtype=np.int64).ravel()
        if cand.size != positions.shape[0]:
            ctx.fail(t.key_path("nodes"), f"{cand.size} model node(s) for {positions.shape[0]} interface node(s) in {interface!r}")
        X = np.zeros((cand.size, 3))
        X[:, : self.mesh.dim] = np.asarray(self.mesh.points)[cand]
        P = np.zeros((positions.shape[0], 3))
        P[:, : positions.shape[1]] = positions
        size = float(np.ptp(P, axis=0).max()) if P.shape[0] > 1 else 1.0
        out = []
        for i, x in enumerate(P):
            d = np.linalg.norm(X - x, axis=1)
            k = int(np.argmin(d))
            if d[k] > 1e-8 * size:
                ctx.fail(t.key_path("nodes"), f"no model node of {t.data.get('nodes')!r} at interface node {i} "
                                              f"{tuple(float(v) for v in x)} (nearest: node {int(cand[k])}, distance {d[k]:.3g})")
            out.append(int(cand[k]))
        return np.array(out, dtype=np.int64)

    def part_values(self, t, element):
        """The part's element parameters given directly (``values`` table: parameter name ->
        number or expression in the parameters), checked against the element's parameters;
        None when the part has a material and a section instead."""
        table = t.sub("values")
        if table is None:
            return None
        spec = element_library.get_spec(element)
        with table:
            values = {}
            for key in table.data:
                if key not in spec.params:
                    self.ctx.fail(table.key_path(key), f"element {element!r} has no parameter {key!r} "
                                                       f"(it takes {', '.join(spec.params)})")
                values[key] = table.take(key, "number")
            missing = [k for k in spec.params if k not in values and k not in spec.defaults]
            if missing:
                self.ctx.fail(table.path, f"element {element!r} needs {', '.join(missing)}")
        return values

    def floating_body_cells(self, t, cells, frame):
        """The cell set ``"<cells> floating"`` of a floating-frame body: each 2-node line of
        ``cells`` (a chain i0-i1, i1-i2, ... in order) with the body's frame nodes A, B
        (femb.elements.floating_beam2d.floating_cells: first and last node of the chain for
        ``frame="chord"``, the first element's nodes for ``frame="root"``)."""
        from femb.elements.floating_beam2d import floating_cells

        block = self.mesh.cells[cells]
        conn = block.connectivity
        where = t.key_path("cells")
        if block.cell_type != "line" or conn.ndim != 2 or conn.shape[1] != 2:
            self.ctx.fail(where, f"a floating-frame body needs 2-node line cells, cell set {cells!r} has {block.cell_type!r}")
        breaks = np.flatnonzero(conn[1:, 0] != conn[:-1, 1])
        if breaks.size:
            k = int(breaks[0])
            self.ctx.fail(where, f"the cells of a floating-frame body must form one chain in order (each element starting at the "
                                 f"end node of the one before): cell set {cells!r} breaks between its cells {k} {conn[k].tolist()} "
                                 f"and {k + 1} {conn[k + 1].tolist()}")
        name = f"{cells} floating"
        if name not in self.mesh.cells:
            self.mesh.add_cells(name, "line4", floating_cells(conn, frame))
        elif not np.array_equal(self.mesh.cells[name].connectivity, floating_cells(conn, frame)):
            self.ctx.fail(t.key_path("frame"), f"cell set {cells!r} is already a floating body with another frame")
        return name

    def _dofs(self, t, key, default="all"):
        value = t.take(key, default=default)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
        self.ctx.fail(t.key_path(key), f"expected \"all\", \"translations\", \"rotations\" or an array of DOF names, got {value!r}")

    def read_fix(self, model):
        for t in self.doc.array("fix", ["nodes", "dofs", "symmetry", "name"]):
            with self.ctx.guard(), t:
                nodes = self.check_nodes(t.take("nodes", "selector", required=True), t.key_path("nodes"))
                plane = t.take("symmetry", "string", choices=tuple(SYMMETRY_DOFS))
                if plane is not None and "dofs" in t:
                    self.ctx.fail(t.key_path("symmetry"), "give dofs or symmetry, not both")
                name = t.take("name", "string")
                if plane is not None:
                    if model.dim != 3:
                        self.ctx.fail(t.key_path("symmetry"), "symmetry conditions need a 3-D model ([model] dim = 3)")
                    model.symmetry(nodes, plane, name=name or f"{t.path} (symmetry {plane} {nodes!r})")
                    continue
                dofs = self._dofs(t, "dofs")
                model.fix(nodes, dofs, name=name or f"{t.path} ({nodes!r})")

    def read_prescribe(self, model):
        for t in self.doc.array("prescribe", ["nodes", "dof", "value", "function", "name"]):
            with self.ctx.guard(), t:
                nodes = self.check_nodes(t.take("nodes", "selector", required=True), t.key_path("nodes"))
                dof = t.take("dof", "string", required=True, choices=model.dof_names)
                value = t.take("value", "number", default=0.0)
                function = t.take("function", "function_of_t")
                name = t.take("name", "string")
                model.prescribe(nodes, dof, value, function, name=name or f"{t.path} ({nodes!r} {dof})")

    def read_ties(self, model):
        for t in self.doc.array("ties", ["type", "a", "b", "dofs", "name"]):
            with self.ctx.guard(), t:
                kind = t.take("type", "string", required=True, choices=("pin", "weld", "tie"))
                a = self.check_nodes(t.take("a", "selector", required=True), t.key_path("a"))
                b = self.check_nodes(t.take("b", "selector", required=True), t.key_path("b"))
                dofs = self._dofs(t, "dofs") if kind == "tie" else None
                name = t.take("name", "string") or f"{t.path} ({kind} {a!r}-{b!r})"
                if kind == "pin":
                    model.pin(a, b, name=name)
                elif kind == "weld":
                    model.weld(a, b, name=name)
                else:
                    model.tie(a, b, dofs, name=name)

    def read_loads(self, model):
        ctx = self.ctx
        common = ["type", "name", "amplitude", "constant"]
        allowed = {"point": common + ["nodes", "moment_type", *FORCE_KEYS], "distributed": common + ["cells", "q"], "gravity": common + ["g"],
                   "pressure": common + ["cells", "p", "kind"], "traction": common + ["cells", "t"], "edge": common + ["edges", "q"]}
        for t in self.doc.array("loads"):
            with ctx.guard(), t:
                kind = t.take("type", "string", required=True, choices=tuple(allowed))
                t.allowed = allowed[kind]
                name = t.take("name", "string") or f"{t.path} ({kind})"
                amplitude = t.take("amplitude", "function_of_t")
                constant = t.take("constant", "boolean", default=False)
                if kind == "point":
                    nodes = self.check_nodes(t.take("nodes", "selector", required=True), t.key_path("nodes"))
                    values = {k: t.take(k, "number") for k in FORCE_KEYS if k in t}
                    if not values:
                        ctx.fail(t.path, f"a point load needs at least one of {', '.join(FORCE_KEYS)}")
                    moment_type = t.take("moment_type", "string", default="dead", choices=MOMENT_TYPES)
                    model.point_load(nodes, amplitude=amplitude, constant=constant, name=name, moment_type=moment_type, **values)
                elif kind == "distributed":
                    cells = self.check_cells(t.take("cells", "string", required=True), t.key_path("cells"))
                    q = t.take("q", "vector", required=True, size=model.dim)
                    model.distributed_load(cells, q, amplitude=amplitude, constant=constant, name=name)
                elif kind in ("pressure", "traction"):
                    cells = self.check_faces(t.take("cells", "string", required=True), t.key_path("cells"))
                    if kind == "pressure":
                        p = t.take("p", "number", required=True)
                        pressure_kind = t.take("kind", "string", default="dead", choices=PRESSURE_KINDS)
                        model.pressure(cells, p, pressure_kind, amplitude=amplitude, constant=constant, name=name)
                    else:
                        model.traction(cells, t.take("t", "vector", required=True, size=3), amplitude=amplitude, constant=constant, name=name)
                elif kind == "edge":
                    edges = t.take("edges", "string", required=True)
                    q = t.take("q", "vector", required=True, size=model.dim)
                    try:
                        edge_nodes(model, edges, name)
                    except ModelError as exc:
                        ctx.fail(t.key_path("edges"), str(exc.problems[0]).removeprefix(f"{name}: "))
                    model.edge_load(edges, q, amplitude=amplitude, constant=constant, name=name)
                else:
                    g = t.take("g", "vector", required=True, size=model.dim)
                    model.gravity(g, amplitude=amplitude, constant=constant)

    def check_faces(self, name, path):
        """A cell set of triangles or quads (pressures, tractions)."""
        block = self.mesh.cells.get(name)
        if block is None:
            faces = sorted(k for k, b in self.mesh.cells.items() if b.cell_type in ("triangle", "quad"))
            kind = " (it is a node set)" if name in self.mesh.node_sets else ""
            self.ctx.fail(path, f"{name!r} is not a set of faces{kind}; face sets: {', '.join(faces) or 'none'}")
        if block.cell_type not in ("triangle", "quad"):
            self.ctx.fail(path, f"cell set {name!r} holds {block.cell_type!r} cells, a surface load needs triangle or quad cells")
        return name

    def read_initial_velocity(self, model):
        """``[[initial_velocity]]``: DOF values at ``nodes``, or a rigid-body field
        ``rigid = {omega, center, velocity}`` (on ``nodes``, default every node)."""
        ctx = self.ctx
        for t in self.doc.array("initial_velocity", ["nodes", "rigid", *DOF_KEYS]):
            with ctx.guard(), t:
                nodes = t.take("nodes", "selector")
                if nodes is not None:
                    self.check_nodes(nodes, t.key_path("nodes"))
                values = {}
                for key in DOF_KEYS:
                    if key in t:
                        if key not in model.dof_names:
                            ctx.fail(t.key_path(key), f"not a DOF of a {model.dim}-D model (DOFs: {', '.join(model.dof_names)})")
                        values[key] = t.take(key, "number")
                rigid = t.sub("rigid", ["omega", "center", "velocity"])
                if rigid is not None and values:
                    ctx.fail(t.path, f"give DOF values ({', '.join(values)}) or rigid, not both")
                if rigid is None:
                    if nodes is None:
                        ctx.fail(t.key_path("nodes"), "required key is missing (or give rigid = {omega, center, velocity})")
                    if not values:
                        ctx.fail(t.path, f"needs at least one of {', '.join(model.dof_names)} (or rigid = {{...}})")
                    model.initial_velocity(nodes, **values)
                    continue
                with rigid:
                    if model.dim == 2:
                        omega = rigid.take("omega", "number", default=0.0)
                    else:
                        omega = rigid.take("omega", "vector", default=(0.0, 0.0, 0.0), size=3)
                    center = rigid.take("center", "vector", size=model.dim)
                    velocity = rigid.take("velocity", "vector", size=model.dim)
                    if "omega" not in rigid and "velocity" not in rigid:
                        ctx.fail(rigid.path, "needs omega and/or velocity")
                model.initial_rigid_velocity(velocity=velocity, omega=omega, center=center, nodes=nodes)
