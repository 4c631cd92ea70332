"""Readers of the multibody tables of a case file (see docs/case_files.md): ``[[discrete]]``,
``[[rigid_links]]`` and ``[[joints]]``, and the floating-frame constants of ``[[parts]]``.
A mixin of ``femb.case.build.ModelBuilder`` (``self.ctx``, ``self.doc``, ``self.mesh``,
``self.model``, ``self.check_nodes``)."""
import numpy as np

from femb import elements as element_library
from femb.case.expressions import Expression
from femb.core.errors import InputError
from femb.model.joints import JOINTS_3D

JOINT_KEYS = {
    "distance": ("a", "b", "length", "point"),
    "on_line": ("node", "point", "direction"),
    "coincide": ("a", "b", "offset"),
    "linear": ("terms", "value"),
    "body_point": ("body", "node", "point", "offset"),
    "slider": ("node", "body", "point", "direction", "lock_rotation"),
    **{kind: ("a", "b", "axis", "point", "frame") for kind in JOINTS_3D},
    "universal": ("a", "b", "axis", "point", "frame", "second_axis"),
}
FLOATING_ELEMENTS = ("beam2d_floating", "beam2d_floating_timoshenko")
FLOATING_FRAMES = ("chord", "root")
RIGID_LINK_KEYS = ("name", "a", "b", "m", "J", "com")
LAW_KEYS = ("law", "damper_law", "smooth")


class MultibodyReaders:
    """Readers of the discrete elements, rigid links and joints of a case."""

    def single_node(self, t, key, required=True):
        """A selector of exactly one node (``t[key]``), or None when absent and optional."""
        value = t.take(key, "selector", required=required)
        if value is None:
            return None
        self.check_nodes(value, t.key_path(key))
        count = np.size(self.model.nodes(value))
        if count != 1:
            self.ctx.fail(t.key_path(key), f"must name exactly one node, {value!r} has {count}")
        return value

    def read_discrete(self, model):
        """``[[discrete]]``: point masses, rigid bodies, springs ... on nodes (one element per
        node of ``nodes`` for one-node types; ``nodes = [a, b]`` for two-node types)."""
        ctx = self.ctx
        for t in self.doc.array("discrete", ["name", "element", "nodes", "parameters", *LAW_KEYS]):
            with ctx.guard(), t:
                name = t.take("name", "string", required=True)
                if not name.isidentifier():
                    ctx.fail(t.key_path("name"), f"must be an identifier (letters, digits, _), got {name!r}")
                if name in self.mesh.cells or name in model.parts:
                    ctx.fail(t.key_path("name"), f"{name!r} is already a cell set or part name")
                element = t.take("element", "string", required=True, choices=element_library.available())
                spec = element_library.get_spec(element)
                if element == "rigid_link2d":
                    ctx.fail(t.key_path("element"), "declare a rigid link in [[rigid_links]] (name, a, b, m, J, com): it adds the distance "
                                                    "joint that keeps the two points apart")
                if spec.n_nodes > 2:
                    ctx.fail(t.key_path("element"), f"{element!r} has {spec.n_nodes} nodes per cell: mesh it with [[parts]]")
                raw = t.take("nodes", required=True)
                if spec.n_nodes == 1:
                    nodes = ctx.selector(raw, t.key_path("nodes"))
                    self.check_nodes(nodes, t.key_path("nodes"))
                else:
                    if not isinstance(raw, list) or len(raw) != 2:
                        ctx.fail(t.key_path("nodes"), f"a two-node element needs nodes = [a, b] (two node selectors), got {raw!r}")
                    nodes = [ctx.selector(v, f"{t.key_path('nodes')}[{i}]") for i, v in enumerate(raw)]
                    for i, sel in enumerate(nodes):
                        self.check_nodes(sel, f"{t.key_path('nodes')}[{i}]")
                    sizes = [np.size(model.nodes(sel)) for sel in nodes]
                    if sizes[0] != sizes[1]:
                        ctx.fail(t.key_path("nodes"), f"the two selectors must have the same number of nodes, got {sizes[0]} and {sizes[1]}")
                laws = self.read_force_laws(t, spec)
                optional = set(spec.defaults) | ({spec.law_stiffness} if laws and spec.law_stiffness else set())  # a spring with a law: k = 0 by default
                # convenience keys of an element type (e.g. axis = [x, y, z] of a 3-D rotational
                # spring): key -> (conversion, the parameters it provides)
                aliases = spec.parameter_aliases
                params = t.sub("parameters", list(spec.params) + list(aliases),
                               required=[k for k in spec.params if k not in optional] != [])
                values = {}
                if params is not None:
                    with params:
                        values = {k: params.take(k, "number") for k in spec.params if k in params}
                        for key, (kind, provides) in aliases.items():
                            if key in params:
                                values[key] = params.take(key, kind, **({"size": len(provides)} if kind == "vector" else {}))
                                optional |= set(provides)
                missing = [k for k in spec.params if k not in values and k not in optional]
                if missing:
                    ctx.fail(t.key_path("parameters"), f"element {element!r} needs {', '.join(missing)} (it takes {', '.join(spec.params)})")
                try:
                    model.add_discrete(name, element, nodes, **values, **laws)
                except InputError as exc:
                    ctx.fail(t.path, "; ".join(exc.problems))

    def read_force_laws(self, t, spec):
        """``law``/``damper_law`` (and ``smooth``) of a ``[[discrete]]`` spring: a table
        [[x, F], ...] or {expression = "... x ...", range = [x_min, x_max]} (an expression
        in x and the case parameters, sampled by femb.elements.force_laws); returns the
        keywords for Model.add_discrete."""
        ctx = self.ctx
        given = [k for k in LAW_KEYS if k in t]
        if not given:
            return {}
        if "law" not in spec.table_params:
            ctx.fail(t.key_path(given[0]), f"only springs and dampers take force laws, not {spec.name!r}")
        out = {}
        for key, range_key in (("law", "law_range"), ("damper_law", "damper_range")):
            raw = t.take(key)
            path = t.key_path(key)
            if raw is None:
                continue
            if isinstance(raw, list):
                rows = []
                for i, row in enumerate(raw):
                    if not isinstance(row, list) or len(row) != 2:
                        ctx.fail(f"{path}[{i}]", f"expected a pair [x, F], got {row!r}")
                    rows.append((ctx.number(row[0], f"{path}[{i}][0]"), ctx.number(row[1], f"{path}[{i}][1]")))
                out[key] = rows
            elif isinstance(raw, dict):
                with t.sub(key, ["expression", "range"]) as sub:
                    text = sub.take("expression", "string", required=True)
                    bounds = sub.take("range", "vector", required=True, size=2)
                try:
                    expr = Expression(text, {"x", *ctx.parameters}, f"{path}.expression")
                except InputError as exc:
                    ctx.fail(f"{path}.expression", exc.problems[0])
                params = dict(ctx.parameters)
                out[key] = lambda x, expr=expr, params=params: expr(x=x, **params)
                out[range_key] = bounds
            else:
                ctx.fail(path, f"expected a table [[x, F], ...] or {{expression = \"...\", range = [x_min, x_max]}}, got {raw!r}")
        smooth = t.take("smooth", "boolean")
        if smooth is not None:
            out["smooth"] = smooth
        return out

    def read_rigid_links(self, model):
        """``[[rigid_links]]``: planar rigid bodies given by two of their points
        (``Model.rigid_link2d``: a ``rigid_link2d`` inertia element ``"<name> inertia"`` and
        the distance joint ``name``)."""
        ctx = self.ctx
        for t in self.doc.array("rigid_links", RIGID_LINK_KEYS):
            with ctx.guard(), t:
                if model.dim != 2:
                    ctx.fail(t.path, f"rigid links are planar (2-D models), this model is {model.dim}-D")
                name = t.take("name", "string", required=True)
                if any(j.name == name for j in model.joints):
                    ctx.fail(t.key_path("name"), f"joint {name!r} is defined twice")
                if f"{name} inertia" in self.mesh.cells or f"{name} inertia" in model.parts:
                    ctx.fail(t.key_path("name"), f"{name + ' inertia'!r} is already a cell set or part name")
                a, b = self.single_node(t, "a"), self.single_node(t, "b")
                if model.node(a) == model.node(b):
                    ctx.fail(t.key_path("b"), f"must be another node than a ({a!r}), got {b!r}")
                m = t.take("m", "number", required=True, positive=True)
                J = t.take("J", "number", positive=True)
                com = t.take("com", "vector", size=2)
                model.rigid_link2d(name, a, b, m, J=J, com=com)

    def read_joints(self, model):
        """``[[joints]]``: distance, on_line, coincide, linear, body_point and slider
        constraints, and the 3-D joints between oriented nodes (spherical, revolute, universal,
        cylindrical, prismatic)."""
        ctx = self.ctx
        for t in self.doc.array("joints"):
            with ctx.guard(), t:
                t.allowed = ["kind", "name"]
                t.skip_check = True
                kind = t.take("kind", "string", required=True, choices=tuple(JOINT_KEYS))
                t.skip_check = False
                t.allowed += list(JOINT_KEYS[kind])
                name = t.take("name", "string") or f"{t.path} ({kind})"
                if any(j.name == name for j in model.joints):
                    ctx.fail(t.key_path("name"), f"joint {name!r} is defined twice")
                if kind == "distance":
                    a = self.single_node(t, "a", required=False)
                    b = self.single_node(t, "b")
                    length = t.take("length", "number", positive=True)
                    point = t.take("point", "vector", size=model.dim)
                    if (a is None) == (point is None):
                        ctx.fail(t.path, "a distance joint needs either a (a node) or point (a fixed point), not both")
                    model.distance(a, b, length=length, point=point, name=name)
                elif kind == "on_line":
                    node = self.single_node(t, "node")
                    point = t.take("point", "vector", required=True, size=model.dim)
                    direction = t.take("direction", "vector", required=True, size=model.dim)
                    if not np.linalg.norm(direction) > 0:
                        ctx.fail(t.key_path("direction"), f"must be non-zero, got {list(direction)}")
                    model.on_line(node, point, direction, name=name)
                elif kind == "coincide":
                    a, b = self.single_node(t, "a"), self.single_node(t, "b")
                    offset = t.take("offset", "vector", size=model.dim)
                    model.coincide(a, b, offset=offset, name=name)
                elif kind == "body_point":
                    if model.dim != 2:
                        ctx.fail(t.key_path("kind"), f"body_point joints are planar (2-D models), this model is {model.dim}-D "
                                                     f"(3-D: spherical, revolute, ... between oriented nodes)")
                    body = self.single_node(t, "body")
                    node = self.single_node(t, "node", required=False)
                    point = t.take("point", "vector", size=2)
                    offset = t.take("offset", "vector", size=2)
                    if (node is None) == (point is None):
                        ctx.fail(t.path, "a body_point joint needs either node (a node on the body point) or point (a fixed point), "
                                         "not both")
                    self.check_rotation(body, t.key_path("body"), "rz")
                    model.body_point(body, node, point=point, offset=offset, name=name)
                elif kind == "slider":
                    self._read_slider(t, model, name)
                elif kind in JOINTS_3D:
                    if model.dim != 3:
                        ctx.fail(t.key_path("kind"), f"{kind} joints need a 3-D model, this model is {model.dim}-D")
                    a = self.single_node(t, "a")
                    b = self.single_node(t, "b", required=False)
                    axis = t.take("axis", "vector", size=3, required=kind != "spherical")
                    point = t.take("point", "vector", size=3)
                    frame = t.take("frame", "string", choices=("reference", "a", "b")) or "reference"
                    second = t.take("second_axis", "vector", size=3) if kind == "universal" else None
                    if axis is not None and not np.linalg.norm(axis) > 0:
                        ctx.fail(t.key_path("axis"), f"must be non-zero, got {list(axis)}")
                    if kind == "spherical" and axis is not None:
                        ctx.fail(t.key_path("axis"), "a spherical joint has no axis")
                    if second is not None and (not np.linalg.norm(second) > 0
                                               or abs(np.dot(axis, second)) > 1e-9 * np.linalg.norm(axis) * np.linalg.norm(second)):
                        ctx.fail(t.key_path("second_axis"), f"must be non-zero and perpendicular to axis {list(axis)}, got {list(second)}")
                    if frame != "reference" and point is None:
                        ctx.fail(t.key_path("frame"), f"frame {frame!r} needs a point (the offset from node {frame})")
                    if frame == "b" and b is None:
                        ctx.fail(t.key_path("frame"), "point given in frame 'b', which does not exist (a joint to ground has no b)")
                    if b is not None and model.node(a) == model.node(b):
                        ctx.fail(t.key_path("b"), f"must be another node than a ({a!r}), got {b!r}")
                    for key, sel in (("a", a), ("b", b)):
                        if sel is not None:
                            self.check_rotation(sel, t.key_path(key), "rx", oriented=True)
                    model.joint3d(kind, a, b, axis=axis, point=point, name=name, second_axis=second, frame=frame)
                else:
                    terms = self._linear_terms(t, model)
                    value = t.take("value")
                    if isinstance(value, str) or isinstance(value, list):
                        value = t.take("value", "function_of_t")
                    elif value is not None:
                        value = t.take("value", "number")
                    model.linear_constraint(terms, value, name=name)

    def _read_slider(self, t, model, name):
        """A ``slider`` joint (2-D): ``node`` on the line of ``body`` through ``point``
        (default: the node's reference position) along ``direction``; ``lock_rotation``
        (default false) makes it a planar prismatic joint."""
        ctx = self.ctx
        if model.dim != 2:
            ctx.fail(t.key_path("kind"), f"slider joints are planar (2-D models), this model is {model.dim}-D "
                                         f"(3-D: prismatic or cylindrical joints between oriented nodes)")
        node = self.single_node(t, "node")
        body = self.single_node(t, "body")
        if model.node(node) == model.node(body):
            ctx.fail(t.key_path("node"), f"must be another node than the body node ({body!r}), got {node!r}")
        point = t.take("point", "vector", size=2)
        direction = t.take("direction", "vector", required=True, size=2)
        if not np.linalg.norm(direction) > 0:
            ctx.fail(t.key_path("direction"), f"must be non-zero, got {list(direction)}")
        lock = t.take("lock_rotation", "boolean", default=False)
        self.check_rotation(body, t.key_path("body"), "rz")
        if lock and not self.carries(node, "rz"):
            ctx.fail(t.key_path("lock_rotation"), f"locks the rotation of node {int(model.node(node))} ({node!r}), which belongs to "
                                                  f"no part with the rotation rz (a rigid_body2d or beam node)")
        if point is not None:
            x = np.asarray(self.mesh.points[model.node(node)][:2], dtype=np.float64)
            d = np.asarray(direction, dtype=np.float64) / np.linalg.norm(direction)
            gap = float((x - np.asarray(point, dtype=np.float64)) @ np.array([-d[1], d[0]]))
            scale = max(1.0, float(np.abs(self.mesh.points).max()))
            if abs(gap) > 1e-8 * scale:
                ctx.fail(t.key_path("point"), f"the line through {list(point)} along {list(direction)} misses node "
                                              f"{int(model.node(node))} ({node!r}) by {gap:.6g}: the node must start on it")
        model.slider(body, node, point=point, direction=direction, lock_rotation=lock, name=name)

    def carries(self, selector, dof, oriented=False):
        """Whether the node of ``selector`` belongs to a part whose element has DOF ``dof``
        (and, with ``oriented``, is an oriented element)."""
        node = self.model.node(selector)
        for part in self.model.parts.values():
            spec = element_library.get_spec(part.element)
            if dof not in spec.node_dofs or (oriented and not spec.oriented) or part.cells not in self.mesh.cells:
                continue
            if np.any(self.mesh.cells[part.cells].connectivity == node):
                return True
        return False

    def check_rotation(self, selector, path, dof, oriented=False):
        """The node of ``selector`` must belong to an element with DOF ``dof`` (for 3-D
        joints: an oriented element, beam3d or rigid_body3d, whose nodes carry a rotation)."""
        if self.carries(selector, dof, oriented):
            return
        node = self.model.node(selector)
        kind = "an oriented element (beam3d, rigid_body3d)" if oriented else f"the rotation {dof}"
        self.ctx.fail(path, f"node {int(node)} ({selector!r}) belongs to no part with {kind}")

    def _linear_terms(self, t, model):
        ctx = self.ctx
        raw = t.take("terms", required=True)
        path = t.key_path("terms")
        if not isinstance(raw, list) or not raw:
            ctx.fail(path, f"expected an array of [node, dof, coefficient] triples, got {raw!r}")
        terms = []
        for i, term in enumerate(raw):
            where = f"{path}[{i}]"
            if not isinstance(term, list) or len(term) != 3:
                ctx.fail(where, f"expected [node, dof, coefficient], got {term!r}")
            node = ctx.selector(term[0], f"{where}[0]")
            self.check_nodes(node, f"{where}[0]")
            if np.size(model.nodes(node)) != 1:
                ctx.fail(f"{where}[0]", f"must name exactly one node, {term[0]!r} has {np.size(model.nodes(node))}")
            dof = ctx.string(term[1], f"{where}[1]", choices=model.dof_names)
            terms.append((node, dof, ctx.number(term[2], f"{where}[2]")))
        return terms
