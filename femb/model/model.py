"""The Model: parts, supports, ties, markers and loads on top of a Mesh.

Declare, validate, build: methods add declarations, ``validate()`` reports every problem at
once (each naming the set, part, element, node or parameter), and
``femb.correlation.build_table(model)`` turns a valid model into global numbers.
"""
from dataclasses import dataclass

import numpy as np

from femb import elements as element_library
from femb.core.errors import InputError, ModelError
from femb.model.loads import (
    FORCE_TO_DOF,
    MOMENT_TYPES,
    DistributedLoad,
    Fixed,
    Gravity,
    PointLoad,
    Prescribed,
    Tie,
    dof_names_for,
)
from femb.model.joints import JOINT_KINDS, JOINTS_3D, Joint
from femb.model.materials import Material, Section


# element parameters that are masses or inertias (must not be negative)
INERTIA_PARAMS = ("m", "J", "Jx", "Jy", "Jz", "rhoA", "rhoI", "rhoJ", "rhoIy", "rhoIz", "rhoIp")


def _as_3d(vector):
    """A 2- or 3-component vector (or None) as a 3-vector."""
    out = np.zeros(3)
    if vector is not None:
        v = np.asarray(vector, dtype=np.float64).ravel()
        out[: v.size] = v
    return out


@dataclass
class Part:
    """Cells of one cell set meshed with one element type, and either a material and a
    section or direct element ``values`` (dict parameter -> number)."""

    name: str
    cells: str
    element: str
    material: Material = None
    section: Section = None
    values: dict = None


class Model:
    """A finite-element multibody model.

    Parameters
    ----------
    mesh : femb.mesh.Mesh
    dim : int, optional
        Spatial dimension of the analysis (defaults to the mesh's). A 2-D model uses DOFs
        (ux, uy, rz); a 3-D model (ux, uy, uz, rx, ry, rz).
    name : str
    """

    def __init__(self, mesh, dim=None, name="model"):
        self.mesh = mesh
        self.dim = int(dim if dim is not None else mesh.dim)
        self.name = name
        self.parts = {}
        self.fixed = []
        self.prescribed = []
        self.ties = []
        self.loads = []
        self.markers = {}
        self.initial_velocities = []
        self.joints = []
        self.redundant_constraints = "warn"
        self.info = {}  # free-form data of the builder (dimensions, reference values ...)

    # ------------------------------------------------------------------ declarations
    def add_part(self, name, cells, element, material=None, section=None, values=None):
        """Mesh the cell set ``cells`` with element type ``element``, with a material and a
        section, or with direct element parameter ``values``; returns the Part."""
        if name in self.parts:
            raise ModelError(f"part {name!r} is defined twice")
        part = Part(name, cells, element, material, section, None if values is None else dict(values))
        self.parts[name] = part
        return part

    def add_discrete(self, name, element, nodes, **values):
        """A discrete element (point mass, rigid body, spring, damper ...) on ``nodes`` (a
        node selector for one-node elements; a pair of selectors for two-node ones), with
        its parameters as keywords. Creates the cell set ``name`` in the mesh.

        Springs and dampers also take force laws (femb.elements.springs): ``law`` — a table
        of (deflection, force) pairs, a ``ForceLaw`` or a callable F(δ) with ``law_range``
        = (δ_min, δ_max) — and ``damper_law`` (with ``damper_range``) for the damper force
        against the elongation rate; ``smooth=True`` interpolates tables by monotone cubics.
        Bad laws raise InputError naming the part."""
        spec = element_library.get_spec(element)
        prepare = spec.extra.get("prepare_values")
        if prepare is not None:
            values = prepare(values, f"part {name!r}")
        if spec.n_nodes == 1:
            conn = self.nodes(nodes).reshape(-1, 1)
        else:
            conn = np.column_stack([self.nodes(sel) for sel in nodes])
        if name in self.mesh.cells:
            raise ModelError(f"cell set {name!r} already exists in the mesh")
        self.mesh.add_cells(name, spec.cell_type, conn)
        return self.add_part(name, name, element, values=values)

    def add_marker(self, name, node):
        """A named point (node) to attach loads and joints to."""
        self.markers[name] = node
        return name

    def fix(self, nodes, dofs="all", name=None):
        """Clamp ``dofs`` ("all", "translations", "rotations" or a tuple of names)."""
        self.fixed.append(Fixed(nodes, self._dof_tuple(dofs), name or f"fix {nodes!r}"))

    def prescribe(self, nodes, dof, value=0.0, function=None, name=None):
        """Prescribe DOF ``dof`` at ``nodes``: value·λ in statics, function(t) in dynamics."""
        self.prescribed.append(Prescribed(nodes, dof, float(value), function, name or f"prescribe {nodes!r} {dof}"))

    def tie(self, node_a, node_b, dofs="all", name=None):
        """Share ``dofs`` between two nodes (exact, costs no equations)."""
        self.ties.append(Tie(node_a, node_b, self._dof_tuple(dofs), name or f"tie {node_a!r}-{node_b!r}"))

    def pin(self, node_a, node_b, name=None):
        """A hinge: the two nodes share translations, rotations stay independent."""
        self.tie(node_a, node_b, "translations", name or f"pin {node_a!r}-{node_b!r}")

    def weld(self, node_a, node_b, name=None):
        """A rigid connection: the two nodes share all DOFs."""
        self.tie(node_a, node_b, "all", name or f"weld {node_a!r}-{node_b!r}")

    # ------------------------------------------------------------------ joints (constraints)
    def distance(self, node_a, node_b, length=None, point=None, name=None):
        """Keep node ``node_b`` at distance ``length`` (default: the reference distance)
        from ``node_a``, or from the fixed ``point`` when ``node_a`` is None."""
        return self._joint(Joint("distance", name or f"distance {node_a!r}-{node_b!r}", node_a, node_b, point=point, length=length))

    def on_line(self, node, point, direction, name=None):
        """Node ``node`` slides on the fixed line through ``point`` along ``direction``."""
        return self._joint(Joint("on_line", name or f"on_line {node!r}", None, node, point=tuple(point), direction=tuple(direction)))

    def coincide(self, node_a, node_b, offset=None, name=None):
        """Positions of two nodes coincide (up to a constant ``offset`` x_b − x_a)."""
        return self._joint(Joint("coincide", name or f"coincide {node_a!r}-{node_b!r}", node_a, node_b, offset=None if offset is None else tuple(offset)))

    def linear_constraint(self, terms, value=None, name=None):
        """Σ c·u(node, dof) = value(t) (value: a callable of time, or a number, or None
        for 0); ``terms`` is a list of (node, dof, coefficient)."""
        fn = value if callable(value) or value is None else (lambda t, v=float(value): v)
        return self._joint(Joint("linear", name or "linear constraint", terms=tuple(tuple(t) for t in terms), value=fn))

    def body_point(self, body, node=None, point=None, offset=None, name=None):
        """Revolute joint (2-D) at a point of a rigid body: the point of ``body`` (a node
        with ux, uy, rz: ``rigid_body2d`` or a beam node) at reference offset ``offset``
        (default: the reference vector from the body node to ``node`` or ``point``)
        coincides with node ``node``, or stays at the fixed ``point`` (node None)."""
        return self._joint(Joint("body_point", name or f"body_point {body!r}-{node if node is not None else point!r}", body, node,
                                 point=None if point is None else tuple(point), offset=None if offset is None else tuple(offset)))

    def slider(self, node, body, point=None, direction=None, lock_rotation=False, name=None):
        """Slider (2-D) on a line that moves with a body: node ``node`` stays on the line
        through the point of ``body`` (a node with ux, uy, rz: ``rigid_body2d`` or a beam
        node) at reference position ``point`` (default: the reference position of
        ``node``) along ``direction``, both given in the reference configuration and
        carried by the body's translation and rotation. ``lock_rotation=True`` also keeps
        the relative rotation θ_node − θ_body at its reference value (``node`` needs rz):
        a planar prismatic joint. One equation (two when locked); see femb.model.joints."""
        return self._joint(Joint("slider", name or f"slider {body!r}-{node!r}", body, node,
                                 point=None if point is None else tuple(point),
                                 direction=None if direction is None else tuple(direction),
                                 lock_rotation=bool(lock_rotation)))

    def joint3d(self, kind, node_a, node_b=None, axis=None, point=None, name=None):
        """A 3-D joint of ``kind`` ("spherical", "revolute", "universal", "cylindrical",
        "prismatic") between oriented nodes ``node_a`` and ``node_b`` (beam3d nodes), or
        between ``node_a`` and ground (node_b None; ``point`` defaults to node a's reference
        position). ``axis``: the joint axis in the reference configuration (revolute,
        cylindrical, prismatic; universal: the first cross axis, carried by node a), fixed in
        node a's frame. See femb.model.joints for the equations."""
        return self._joint(Joint(kind, name or f"{kind} {node_a!r}-{node_b!r}", node_a, node_b,
                                 point=None if point is None else tuple(point), axis=None if axis is None else tuple(axis)))

    def rigid_link2d(self, name, node_a, node_b, m, J=None, com=None):
        """A planar rigid body described by two of its points (natural coordinates): nodes
        ``node_a`` and ``node_b`` keep their distance (a ``distance`` joint named ``name``)
        and carry the body's inertia through a ``rigid_link2d`` element (mass ``m``,
        inertia ``J`` about the centre of mass, default that of a uniform rod m·L²/12,
        centre of mass at ``com`` = (along, across) the link from node a, default its
        middle). The mass matrix is constant and the constraint quadratic, so the body is
        exact in the energy-conserving mid-point scheme. Returns the joint name."""
        a, b = self.node(node_a), self.node(node_b)
        length = float(np.linalg.norm(self.mesh.points[b] - self.mesh.points[a]))
        along, across = (0.5 * length, 0.0) if com is None else (float(com[0]), float(com[1]))
        J = m * length**2 / 12.0 if J is None else float(J)
        self.add_discrete(f"{name} inertia", "rigid_link2d", (node_a, node_b), m=float(m), J=J, cx=along, cy=across)
        return self.distance(node_a, node_b, name=name)

    def _joint(self, joint):
        if any(j.name == joint.name for j in self.joints):
            raise ModelError(f"joint {joint.name!r} is defined twice")
        self.joints.append(joint)
        return joint.name

    def point_load(self, nodes, amplitude=None, constant=False, name=None, moment_type="dead", **values):
        """Nodal forces/moments, e.g. ``point_load("tip", fy=-1.0, mz=2.0)``.

        ``moment_type`` ("dead", "semitangential" or "follower") says how the moments act
        at nodes with 3-D rotations (see femb.model.loads.PointLoad); forces are dead."""
        mapped = {}
        for key, val in values.items():
            dof = FORCE_TO_DOF.get(key, key)
            mapped[dof] = float(val)
        self.loads.append(PointLoad(nodes, mapped, amplitude, constant, name or f"point load {nodes!r}", moment_type))

    def distributed_load(self, cells, q, amplitude=None, constant=False, name=None):
        """Dead load per unit length ``q`` (dim,) on the line cells of ``cells``."""
        self.loads.append(DistributedLoad(cells, tuple(np.asarray(q, float).ravel()), amplitude, constant, name or f"distributed load {cells!r}"))

    def gravity(self, g, amplitude=None, constant=False):
        """Uniform gravity ``g`` (dim,) acting on all masses."""
        self.loads.append(Gravity(tuple(np.asarray(g, float).ravel()), amplitude, constant))

    def initial_velocity(self, nodes, **values):
        """Initial velocity of DOFs at ``nodes``, e.g. ``initial_velocity("tip", uy=2.0)``
        (rotational DOFs: angular velocity)."""
        self.initial_velocities.append((nodes, {k: float(v) for k, v in values.items()}))

    def initial_rigid_velocity(self, velocity=None, omega=0.0, center=None, nodes=None):
        """Initial velocity field of a rigid motion: v = velocity + ω × (x − center) at
        every node (or ``nodes``); rotational DOFs get ω. In 2-D ``omega`` is the scalar
        spin about z; in 3-D a 3-vector."""
        sel = np.arange(self.mesh.n_nodes) if nodes is None else self.nodes(nodes)
        x = np.zeros((sel.size, 3))
        x[:, : self.mesh.dim] = self.mesh.points[sel]
        c = _as_3d(center)
        w = np.array([0.0, 0.0, float(omega)]) if np.ndim(omega) == 0 else _as_3d(omega)
        v = _as_3d(velocity) + np.cross(w, x - c)
        names = self.dof_names
        for k, node in enumerate(sel):
            values = {n: float(v[k, i]) for i, n in enumerate(("ux", "uy", "uz")) if n in names}
            values.update({n: float(w[i]) for i, n in enumerate(("rx", "ry", "rz")) if n in names})
            self.initial_velocities.append((int(node), values))

    # ------------------------------------------------------------------ queries
    @property
    def dof_names(self):
        return dof_names_for(self.dim)

    def nodes(self, selector):
        """Node indices for a marker name, a set name, an index or indices."""
        if isinstance(selector, str) and selector in self.markers:
            return np.atleast_1d(self.mesh.node(self.markers[selector]))
        return self.mesh.nodes(selector)

    def node(self, selector):
        if isinstance(selector, str) and selector in self.markers:
            return self.mesh.node(self.markers[selector])
        return self.mesh.node(selector)

    def spec(self, part):
        return element_library.get_spec(self.parts[part].element if isinstance(part, str) else part.element)

    def _dof_tuple(self, dofs):
        names = self.dof_names
        if dofs == "all":
            return names
        if dofs == "translations":
            return tuple(d for d in names if d.startswith("u"))
        if dofs == "rotations":
            return tuple(d for d in names if d.startswith("r"))
        if isinstance(dofs, str):
            return (dofs,)
        return tuple(dofs)

    # ------------------------------------------------------------------ validation
    def validate(self):
        """Check the whole model; raise ModelError listing every problem found."""
        problems = self.problems()
        if problems:
            raise ModelError(problems, f"model {self.name!r}")
        return self

    def problems(self):
        """Every problem of the model as a list of strings (empty when valid)."""
        p = []
        mesh = self.mesh
        names = self.dof_names
        if self.dim not in (2, 3):
            p.append(f"dim must be 2 or 3, got {self.dim}")
            return p
        if mesh.dim > self.dim:
            p.append(f"mesh has {mesh.dim}-D points but the model is {self.dim}-D")
        if not self.parts:
            p.append("the model has no parts")
        covered = np.zeros(mesh.n_nodes, dtype=bool)
        for part in self.parts.values():
            where = f"part {part.name!r}"
            try:
                spec = element_library.get_spec(part.element)
            except KeyError as exc:
                p.append(f"{where}: {exc.args[0]}")
                continue
            if spec.dim != self.dim:
                p.append(f"{where}: element {spec.name!r} is {spec.dim}-D but the model is {self.dim}-D")
            if part.cells not in mesh.cells:
                p.append(f"{where}: unknown cell set {part.cells!r} (cell sets: {sorted(mesh.cells)})")
                continue
            block = mesh.cells[part.cells]
            if block.cell_type != spec.cell_type:
                p.append(f"{where}: cell set {part.cells!r} holds {block.cell_type!r} cells, element {spec.name!r} needs {spec.cell_type!r}")
                continue
            covered[block.connectivity.ravel()] = True
            if part.values is None:
                if not isinstance(part.material, Material):
                    p.append(f"{where}: material must be a femb Material")
                else:
                    p += [f"{where}: {m}" for m in part.material.problems()]
                if not isinstance(part.section, Section):
                    p.append(f"{where}: section must be a femb Section")
                else:
                    p += [f"{where}: {m}" for m in part.section.problems()]
            try:
                row = spec.property_row(part.material, part.section, part.values)
                bad = [spec.params[i] for i in np.where(~np.isfinite(row))[0]]
                if bad:
                    p.append(f"{where}: element property {', '.join(bad)} is not finite")
                negative = [f"{k} = {row[i]:g}" for i, k in enumerate(spec.params) if k in INERTIA_PARAMS and row[i] < 0.0]
                if negative:
                    p.append(f"{where} (element {spec.name!r}, cell set {part.cells!r}): negative mass or inertia {', '.join(negative)}")
            except (KeyError, ValueError, TypeError) as exc:
                p.append(f"{where}: {exc.args[0] if exc.args else exc}")
            conn = block.connectivity
            if spec.n_nodes > 1 and spec.requires_length:
                lengths = np.linalg.norm(mesh.points[conn[:, -1]] - mesh.points[conn[:, 0]], axis=1)
                zero = np.where(lengths <= 1e-12 * max(1.0, np.abs(mesh.points).max()))[0]
                if zero.size:
                    p.append(f"{where}: zero-length element(s) {zero[:10].tolist()} in cell set {part.cells!r}")
            check = spec.extra.get("check_cells")
            if check is not None:
                p += [f"{where}: {m} in cell set {part.cells!r}" for m in check(mesh.points, conn)]
        for rec in self.fixed + self.prescribed + self.loads + self.ties:
            p += self._record_problems(rec, names, covered)
        for nodes, values in self.initial_velocities:
            where = f"initial velocity {nodes!r}"
            try:
                self.nodes(nodes)
            except InputError as exc:
                p.append(f"{where}: {exc}")
            p += [f"{where}: unknown DOF {d!r}" for d in values if d not in names]
        for joint in self.joints:
            p += self._joint_problems(joint, names, covered)
        if self.redundant_constraints not in ("warn", "error"):
            p.append(f"redundant_constraints must be 'warn' or 'error', got {self.redundant_constraints!r}")
        for name, node in self.markers.items():
            try:
                self.mesh.node(node)
            except InputError as exc:
                p.append(f"marker {name!r}: {exc}")
        return p

    def _record_problems(self, rec, names, covered):
        p = []
        where = rec.name

        def check_nodes(sel):
            try:
                nodes = self.nodes(sel)
            except InputError as exc:
                p.append(f"{where}: {exc}")
                return None
            loose = nodes[~covered[nodes]] if covered.size else nodes
            if loose.size:
                p.append(f"{where}: node(s) {loose[:10].tolist()} belong to no element")
            return nodes

        if isinstance(rec, (Fixed, Prescribed)):
            check_nodes(rec.nodes)
            dofs = rec.dofs if isinstance(rec, Fixed) else (rec.dof,)
            p += [f"{where}: unknown DOF {d!r} (a {self.dim}-D model has {names})" for d in dofs if d not in names]
        elif isinstance(rec, PointLoad):
            check_nodes(rec.nodes)
            p += [f"{where}: unknown load component {d!r}" for d in rec.values if d not in names]
            p += [f"{where}: component {d} is not finite" for d, v in rec.values.items() if not np.isfinite(v)]
            if rec.moment_type not in MOMENT_TYPES:
                p.append(f"{where}: moment_type must be one of {', '.join(MOMENT_TYPES)}, got {rec.moment_type!r}")
        elif isinstance(rec, DistributedLoad):
            if rec.cells not in self.mesh.cells:
                p.append(f"{where}: unknown cell set {rec.cells!r}")
            elif not any(part.cells == rec.cells for part in self.parts.values()):
                p.append(f"{where}: cell set {rec.cells!r} is not meshed by any part")
            if len(rec.q) != self.dim:
                p.append(f"{where}: q needs {self.dim} components, got {len(rec.q)}")
        elif isinstance(rec, Gravity):
            if len(rec.g) != self.dim:
                p.append(f"{where}: g needs {self.dim} components, got {len(rec.g)}")
        elif isinstance(rec, Tie):
            a, b = check_nodes(rec.node_a), check_nodes(rec.node_b)
            if a is not None and b is not None and a.size != b.size:
                p.append(f"{where}: node sets have different sizes ({a.size} and {b.size})")
            p += [f"{where}: unknown DOF {d!r}" for d in rec.dofs if d not in names]
        return p

    def _joint_problems(self, joint, names, covered):
        p, where = [], f"joint {joint.name!r}"
        if joint.kind not in JOINT_KINDS:
            return [f"{where}: unknown kind {joint.kind!r} (kinds: {', '.join(JOINT_KINDS)})"]
        for sel in (joint.node_a, joint.node_b):
            if sel is None:
                continue
            try:
                nodes = self.nodes(sel)
                if nodes.size != 1:
                    p.append(f"{where}: {sel!r} must name one node, it has {nodes.size}")
                elif not covered[nodes[0]]:
                    p.append(f"{where}: node {int(nodes[0])} belongs to no element")
            except InputError as exc:
                p.append(f"{where}: {exc}")
        if joint.kind == "distance":
            if joint.node_a is None and joint.point is None:
                p.append(f"{where}: give node_a or a fixed point")
            if joint.length is not None and not joint.length > 0:
                p.append(f"{where}: length must be > 0, got {joint.length}")
        if joint.kind == "on_line":
            if len(joint.point) != self.dim or len(joint.direction) != self.dim:
                p.append(f"{where}: point and direction need {self.dim} components")
            elif not np.linalg.norm(joint.direction) > 0:
                p.append(f"{where}: direction must be non-zero")
        if joint.kind == "coincide" and joint.offset is not None and len(joint.offset) != self.dim:
            p.append(f"{where}: offset needs {self.dim} components")
        if joint.kind == "body_point":
            if self.dim != 2:
                p.append(f"{where}: body_point joints are planar (2-D models)")
            if joint.node_a is None:
                p.append(f"{where}: give the body node")
            if joint.node_b is None and joint.point is None:
                p.append(f"{where}: give a node or a fixed point")
            for vec, label in ((joint.point, "point"), (joint.offset, "offset")):
                if vec is not None and len(vec) != 2:
                    p.append(f"{where}: {label} needs 2 components")
        if joint.kind == "slider":
            if self.dim != 2:
                p.append(f"{where}: slider joints are planar (2-D models; 3-D: prismatic or cylindrical joints)")
            if joint.node_a is None or joint.node_b is None:
                p.append(f"{where}: give the sliding node and the body node")
            else:
                try:
                    if self.node(joint.node_a) == self.node(joint.node_b):
                        p.append(f"{where}: the sliding node must be another node than the body node {joint.node_a!r}")
                except InputError:
                    pass  # reported above
            if joint.direction is None or len(joint.direction) != 2 or not np.linalg.norm(joint.direction) > 0:
                p.append(f"{where}: needs a non-zero 2-component direction, got {joint.direction!r}")
            if joint.point is not None and len(joint.point) != 2:
                p.append(f"{where}: point needs 2 components")
        if joint.kind in JOINTS_3D:
            if self.dim != 3:
                p.append(f"{where}: {joint.kind} joints need a 3-D model")
            if joint.node_a is None:
                p.append(f"{where}: give node_a (an oriented node)")
            if joint.kind != "spherical":
                if joint.axis is None or len(joint.axis) != 3 or not np.linalg.norm(joint.axis) > 0:
                    p.append(f"{where}: needs a non-zero 3-component axis")
            if joint.point is not None and len(joint.point) != 3:
                p.append(f"{where}: point needs 3 components")
        if joint.kind == "linear":
            if not joint.terms:
                p.append(f"{where}: no terms")
            for term in joint.terms or ():
                if len(term) != 3:
                    p.append(f"{where}: each term is (node, dof, coefficient), got {term!r}")
                elif term[1] not in names:
                    p.append(f"{where}: unknown DOF {term[1]!r}")
        return p

    def summary(self):
        """A dict describing the model (counts per part), for logs and run records."""
        return {
            "name": self.name,
            "dim": self.dim,
            "nodes": int(self.mesh.n_nodes),
            "parts": {
                k: {"element": v.element, "cells": v.cells, "count": int(self.mesh.cells[v.cells].connectivity.shape[0])}
                for k, v in self.parts.items()
                if v.cells in self.mesh.cells
            },
            "loads": len(self.loads),
            "ties": len(self.ties),
            "joints": len(self.joints),
        }
