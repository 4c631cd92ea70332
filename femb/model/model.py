"""The Model: parts, supports, ties, markers and loads on top of a Mesh.

Declare, validate, build: methods add declarations, ``validate()`` reports every problem at
once (each naming the set, part, element, node or parameter), and
``femb.correlation.build_table(model)`` turns a valid model into global numbers.
"""
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Optional, Union, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from femb import elements as element_library
from femb.core.errors import InputError, ModelError
from femb.elements.base import CellWarning
from femb.model.joints import JOINT_KINDS, JOINTS_3D, Joint
from femb.model.loads import (
    FORCE_TO_DOF,
    MOMENT_TYPES,
    PRESSURE_KINDS,
    SYMMETRY_DOFS,
    DistributedLoad,
    EdgeLoad,
    Fixed,
    Gravity,
    PointLoad,
    Prescribed,
    Pressure,
    Tie,
    Traction,
    as_function_of_t,
    dof_names_for,
    real_number,
)
from femb.model.materials import Material, Section
from femb.model.superelements import SuperelementData

if TYPE_CHECKING:
    from femb.elements.base import ElementSpec
    from femb.mesh.mesh import Mesh

#: A node selector: a marker name, a node-set name, a node index or a sequence of indices.
NodeSelector = Union[str, int, np.integer, Sequence[int], NDArray[np.integer]]
#: DOFs to act on: "all", "translations", "rotations", one DOF name or a sequence of names.
DofSelector = Union[str, Sequence[str]]


# element parameters that are masses or inertias (must not be negative)
INERTIA_PARAMS = ("m", "J", "Jx", "Jy", "Jz", "rhoA", "rhoI", "rhoJ", "rhoIy", "rhoIz", "rhoIp")


log = logging.getLogger(__name__)


def _as_3d(vector: Optional[ArrayLike]) -> NDArray[np.float64]:
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
    element: str
    cells: str
    material: Optional[Material] = None
    section: Optional[Section] = None
    values: Optional[dict[str, Any]] = None


class Model:
    """A finite-element multibody model.

    Declare parts, supports, ties, joints, loads and initial velocities with the methods
    below, then hand the model to a ``solve_*`` function (``validate()`` is called on the
    way and reports every problem at once).

    Parameters
    ----------
    mesh : femb.Mesh
        Points (n_nodes, dim) and named cell and node sets.
    dim : int, optional
        Spatial dimension of the analysis (defaults to the mesh's). A 2-D model uses DOFs
        (ux, uy, rz); a 3-D model (ux, uy, uz, rx, ry, rz).
    name : str
        Used in messages and run records.

    Notes
    -----
    Units are any consistent set (no unit is assumed): lengths and positions in the mesh's
    length unit, rotations in radians, forces ``fx, fy, fz`` in force units and moments
    ``mx, my, mz`` in force·length (``point_load``), distributed loads in force per length,
    gravity in length/time², velocities in length/time and angular velocities in
    rad/time. Nodes are named by node selectors (``NodeSelector``): a marker name, a
    node-set name (``line_mesh`` makes ``<name>_start`` and ``<name>_end``), a node index
    or a sequence of indices. Vectors (points, directions, offsets, axes) have ``dim``
    components.
    """

    def __init__(self, mesh: "Mesh", dim: Optional[int] = None, name: str = "model") -> None:
        self.mesh = mesh
        self.dim = int(dim if dim is not None else mesh.dim)
        self.name = name
        self.parts: dict[str, Part] = {}
        self.fixed: list[Fixed] = []
        self.prescribed: list[Prescribed] = []
        self.ties: list[Tie] = []
        self.loads: list[Union[PointLoad, DistributedLoad, EdgeLoad, Pressure, Traction, Gravity]] = []
        self.markers: dict[str, NodeSelector] = {}
        self.initial_velocities: list[tuple[NodeSelector, dict[str, float]]] = []
        self.joints: list[Joint] = []
        self.redundant_constraints: Literal["warn", "error"] = "warn"
        self.info: dict[str, Any] = {}  # free-form data of the builder (dimensions, reference values ...)
        self.superelements: dict[str, SuperelementData] = {}  # part name -> reduced data (add_superelement)

    # ------------------------------------------------------------------ declarations
    def add_part(self, name: str, element: str, cells: str, material: Optional[Material] = None,
                 section: Optional[Section] = None, values: Optional[dict[str, Any]] = None) -> Part:
        """Mesh the cell set ``cells`` with element type ``element``; returns the Part.

        Give either a ``material`` and a ``section`` (the element type derives its
        parameters from them, see ``femb.elements.get_spec(element).properties``) or the
        element parameters directly as ``values`` (dict parameter name -> number, e.g.
        ``{"EA": ..., "EI": ..., "rhoA": ..., "rhoI": ...}`` for ``beam2d``), in the model's
        consistent units. Like ``add_discrete``, the arguments are (name, what, where).
        """
        if name in self.parts:
            raise ModelError(f"part {name!r} is defined twice")
        if element not in element_library.available() and cells in element_library.available():
            raise ModelError(f"part {name!r}: {element!r} is not an element type but {cells!r} is; "
                             "the arguments are add_part(name, element, cells, ...)")
        part = Part(name, element, cells, material, section, None if values is None else dict(values))
        self.parts[name] = part
        return part

    def add_discrete(self, name: str, element: str, nodes: Union[NodeSelector, Sequence[NodeSelector]], **values: Any) -> Part:
        """A discrete element (point mass, rigid body, spring, damper ...) on ``nodes`` (a
        node selector for one-node elements; a pair of selectors for two-node ones), with
        its parameters as keywords. Creates the cell set ``name`` in the mesh.

        Springs and dampers also take force laws (femb.elements.spring_laws): ``law`` — a table
        of (deflection, force) pairs, a ``ForceLaw`` or a callable F(δ) with ``law_range``
        = (δ_min, δ_max) — and ``damper_law`` (with ``damper_range``) for the damper force
        against the elongation rate; ``smooth=True`` interpolates tables by monotone cubics.
        Bad laws raise InputError naming the part. Returns the Part."""
        spec = element_library.get_spec(element)
        if spec.prepare_values is not None:
            values = spec.prepare_values(values, f"part {name!r}")
        if spec.n_nodes == 1:
            conn = self.nodes(cast(NodeSelector, nodes)).reshape(-1, 1)
        else:
            conn = np.column_stack([self.nodes(sel) for sel in cast(Sequence[NodeSelector], nodes)])
        if name in self.mesh.cells:
            raise ModelError(f"cell set {name!r} already exists in the mesh")
        self.mesh.add_cells(name, spec.cell_type, conn)
        return self.add_part(name, element, name, values=values)

    def add_superelement(self, name: str, reduced: Any, nodes: NodeSelector, tolerance: float = 1e-8,
                         placement: Optional[tuple[ArrayLike, ArrayLike]] = None) -> Part:
        """A co-rotated Craig–Bampton superelement (elements.superelement) on the model
        nodes ``nodes``; returns its Part (one element, cell set ``name``).

        Parameters
        ----------
        name : part and cell-set name
        reduced : a ``ReducedComponent`` (femb.reduce_component of a 3-D model with all six
            DOFs free at every interface node) or a ``SuperelementData`` (e.g.
            ``SuperelementData.from_craig_bampton`` of a reduction of matrix files)
        nodes : node selector of the n model nodes the superelement attaches to, in the
            order of the reduction's interface nodes (``ReducedComponent``: ascending
            component node numbers); they become ordinary 6-DOF nodes, so supports,
            joints and loads act on them
        tolerance : allowed distance between a node's reference position and the
            interface node's, relative to the size of the interface (1 if it is a point)
        placement : optional (Q (3, 3), t (3,)): place the reduced body rigidly at
            x = t + Q X before attaching it (``SuperelementData.placed``)

        The k modal amplitudes become element-internal variables of the correlation table
        (``table.internal_vars(name)``; ``Results.internal(name)``). Raises InputError
        naming the part and the node when the node count or a position does not match
        the reduction, and ModelError for a 2-D model or a repeated part name.
        """
        where = f"superelement {name!r}"
        if self.dim != 3:
            raise ModelError("superelements need a 3-D model (their nodes carry ux, uy, uz, rx, ry, rz)", where)
        if name in self.parts or name in self.mesh.cells:
            raise ModelError(f"part or cell set {name!r} already exists", where)
        data = reduced.superelement() if hasattr(reduced, "superelement") else reduced
        if not isinstance(data, SuperelementData):
            raise InputError(f"expected a ReducedComponent or SuperelementData, got {type(reduced).__name__}", where)
        problems = data.problems()
        if problems:
            raise InputError(problems, f"{where} ({data.source})")
        if placement is not None:
            data = data.placed(*placement)
        try:
            conn = np.asarray(self.nodes(nodes), dtype=np.int64).ravel()
        except (KeyError, ValueError, IndexError) as exc:
            raise InputError(f"unknown nodes {nodes!r} ({exc})", where) from None
        if conn.size != data.n_nodes:
            raise InputError(f"{conn.size} model node(s) given but the reduction ({data.source}) has {data.n_nodes} "
                             "interface nodes", where)
        if np.unique(conn).size != conn.size:
            raise InputError(f"nodes repeat: {conn.tolist()}", where)
        X = np.zeros((conn.size, 3))
        X[:, : self.mesh.dim] = np.asarray(self.mesh.points)[conn]
        size = float(np.ptp(data.positions, axis=0).max()) if data.n_nodes > 1 else 0.0
        dist = np.linalg.norm(X - data.positions, axis=1)
        bad = np.flatnonzero(dist > tolerance * (size if size > 0.0 else 1.0))
        if bad.size:
            i = int(bad[0])
            raise InputError(f"node {int(conn[i])} is at {tuple(float(v) for v in X[i])} but interface node {i} of the "
                             f"reduction is at {tuple(float(v) for v in data.positions[i])} (distance {dist[i]:.3g}; "
                             "give the nodes in the order of the reduction's interface nodes)", where)
        spec = element_library.get_spec(f"superelement_{data.n_nodes}n_{data.n_modes}q")
        self.mesh.add_cells(name, spec.cell_type, conn.reshape(1, -1))
        self.superelements[name] = data
        return self.add_part(name, spec.name, name, values={"reduced": {"K": data.K, "M": data.M, "G": data.G,
                                                                             "points": data.points,
                                                                             "positions": data.positions}})

    def add_marker(self, name: str, node: NodeSelector) -> str:
        """A named point (one node) to attach loads and joints to; returns ``name``."""
        self.markers[name] = node
        return name

    def fix(self, nodes: NodeSelector, dofs: DofSelector = "all", name: Optional[str] = None) -> None:
        """Clamp ``dofs`` ("all", "translations", "rotations" or a tuple of DOF names) of
        ``nodes``: they are removed from the equations (no cost)."""
        self.fixed.append(Fixed(nodes, self._dof_tuple(dofs), name or f"fix {nodes!r}"))

    def prescribe(self, nodes: NodeSelector, dof: str, value: float = 0.0,
                  function: Optional[Callable[[float], float]] = None, name: Optional[str] = None) -> None:
        """Prescribe DOF ``dof`` at ``nodes`` [length or rad]: value·λ in statics (λ the
        load factor), function(t) in dynamics (``value`` when no function is given; a table
        [[t, value], ...] is interpolated linearly)."""
        name = name or f"prescribe {nodes!r} {dof}"
        self.prescribed.append(Prescribed(nodes, dof, real_number(value, f"{name!r}: value"),
                                          as_function_of_t(function, f"{name!r}: function"), name))

    def tie(self, node_a: NodeSelector, node_b: NodeSelector, dofs: DofSelector = "all", name: Optional[str] = None) -> None:
        """Share ``dofs`` between two nodes (exact, costs no equations)."""
        self.ties.append(Tie(node_a, node_b, self._dof_tuple(dofs), name or f"tie {node_a!r}-{node_b!r}"))

    def pin(self, node_a: NodeSelector, node_b: NodeSelector, name: Optional[str] = None) -> None:
        """A hinge: the two nodes share translations, rotations stay independent."""
        self.tie(node_a, node_b, "translations", name or f"pin {node_a!r}-{node_b!r}")

    def weld(self, node_a: NodeSelector, node_b: NodeSelector, name: Optional[str] = None) -> None:
        """A rigid connection: the two nodes share all DOFs."""
        self.tie(node_a, node_b, "all", name or f"weld {node_a!r}-{node_b!r}")

    # ------------------------------------------------------------------ joints (constraints)
    def distance(self, node_a: Optional[NodeSelector], node_b: NodeSelector, length: Optional[float] = None,
                 point: Optional[Sequence[float]] = None, name: Optional[str] = None) -> str:
        """Keep node ``node_b`` at distance ``length`` [length] (default: the reference
        distance) from ``node_a``, or from the fixed ``point`` (dim,) when ``node_a`` is None.
        One equation; returns the joint name."""
        return self._joint(Joint("distance", name or f"distance {node_a!r}-{node_b!r}", node_a, node_b,
                                 point=None if point is None else tuple(point), length=length))

    def on_line(self, node: NodeSelector, point: Sequence[float], direction: Sequence[float], name: Optional[str] = None) -> str:
        """Node ``node`` slides on the fixed line through ``point`` (dim,) along
        ``direction`` (dim,, any length): dim − 1 equations; returns the joint name."""
        return self._joint(Joint("on_line", name or f"on_line {node!r}", None, node, point=tuple(point), direction=tuple(direction)))

    def coincide(self, node_a: NodeSelector, node_b: NodeSelector, offset: Optional[Sequence[float]] = None,
                 name: Optional[str] = None) -> str:
        """Positions of two nodes coincide, up to a constant ``offset`` x_b − x_a (dim,)
        [length]: dim equations; returns the joint name."""
        return self._joint(Joint("coincide", name or f"coincide {node_a!r}-{node_b!r}", node_a, node_b, offset=None if offset is None else tuple(offset)))

    def linear_constraint(self, terms: Sequence[tuple[NodeSelector, str, float]],
                          value: Union[None, float, Callable[[float], float]] = None, name: Optional[str] = None) -> str:
        """Σ c·u(node, dof) = value(t) (value: a callable of time, or a number, or None
        for 0); ``terms`` is a list of (node, dof, coefficient). One equation; returns the
        joint name."""
        fn = value if callable(value) or value is None else (lambda t, v=float(value): v)
        return self._joint(Joint("linear", name or "linear constraint", terms=tuple(tuple(t) for t in terms), value=fn))

    def body_point(self, body: NodeSelector, node: Optional[NodeSelector] = None, point: Optional[Sequence[float]] = None,
                   offset: Optional[Sequence[float]] = None, name: Optional[str] = None) -> str:
        """Revolute joint (2-D) at a point of a rigid body: the point of ``body`` (a node
        with ux, uy, rz: ``rigid_body2d`` or a beam node) at reference offset ``offset``
        (default: the reference vector from the body node to ``node`` or ``point``)
        coincides with node ``node``, or stays at the fixed ``point`` (node None)."""
        return self._joint(Joint("body_point", name or f"body_point {body!r}-{node if node is not None else point!r}", body, node,
                                 point=None if point is None else tuple(point), offset=None if offset is None else tuple(offset)))

    def slider(self, body: NodeSelector, node: NodeSelector, point: Optional[Sequence[float]] = None,
               direction: Optional[Sequence[float]] = None, lock_rotation: bool = False, name: Optional[str] = None) -> str:
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

    def joint3d(self, kind: str, node_a: NodeSelector, node_b: Optional[NodeSelector] = None,
                axis: Optional[Sequence[float]] = None, point: Optional[Sequence[float]] = None, name: Optional[str] = None,
                *, second_axis: Optional[Sequence[float]] = None, frame: str = "reference") -> str:
        """A 3-D joint of ``kind`` ("spherical", "revolute", "universal", "cylindrical",
        "prismatic") between oriented nodes ``node_a`` and ``node_b`` (rigid_body3d or beam3d
        nodes), or between ``node_a`` and ground (node_b None), at an attachment point fixed
        in each body.

        ``point`` (3,): the attachment point in the reference configuration (default: node
        b's reference position; for a joint to ground, node a's), e.g. the end of a rod whose
        rigid_body3d node is its centre of mass. With ``frame`` = "a" or "b", ``point`` is an
        offset from node a or b in that body's frame (parallel to the global axes in the
        reference configuration, where nodes are unrotated). ``axis`` (3,): the joint axis in
        the reference configuration (revolute, cylindrical, prismatic; universal: the first
        cross axis), fixed in each body's frame. ``second_axis`` (3,, universal only): the
        second cross axis, fixed in node b's frame, perpendicular to ``axis`` (default
        ``axis`` × e_k normalized, e_k the coordinate axis least aligned with it). See
        femb.model.joints for the equations."""
        name = name or f"{kind} {node_a!r}-{node_b!r}"
        if frame not in ("reference", "a", "b"):
            raise ModelError(f"joint {name!r}: frame must be 'reference', 'a' or 'b', got {frame!r}")
        if frame == "b" and node_b is None:
            raise ModelError(f"joint {name!r}: point given in frame 'b', which does not exist (a joint to ground has no node b)")
        if frame != "reference" and point is None:
            raise ModelError(f"joint {name!r}: frame {frame!r} given without a point (the offset from node {frame})")
        if second_axis is not None and kind != "universal":
            raise ModelError(f"joint {name!r}: only a universal joint takes a second axis, this one is {kind}")
        return self._joint(Joint(kind, name, node_a, node_b, point=None if point is None else tuple(point),
                                 axis=None if axis is None else tuple(axis),
                                 second_axis=None if second_axis is None else tuple(second_axis),
                                 frame=None if frame == "reference" else frame))

    def rigid_link2d(self, name: str, node_a: NodeSelector, node_b: NodeSelector, m: float, J: Optional[float] = None,
                     com: Optional[Sequence[float]] = None) -> str:
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

    def _joint(self, joint: Joint) -> str:
        if any(j.name == joint.name for j in self.joints):
            raise ModelError(f"joint {joint.name!r} is defined twice")
        self.joints.append(joint)
        return joint.name

    def point_load(self, nodes: NodeSelector, amplitude: Optional[Callable[[float], float]] = None, constant: bool = False,
                   name: Optional[str] = None, moment_type: str = "dead", **values: float) -> None:
        """Nodal forces/moments, e.g. ``point_load("tip", fy=-1.0, mz=2.0)``.

        ``moment_type`` ("dead", "semitangential" or "follower") says how the moments act
        at nodes with 3-D rotations (see femb.model.loads.PointLoad); forces are dead."""
        name = name or f"point load {nodes!r}"
        mapped = {}
        for key, val in values.items():
            dof = FORCE_TO_DOF.get(key, key)
            mapped[dof] = real_number(val, f"load {name!r}: {key}")
        self.loads.append(PointLoad(nodes, mapped, as_function_of_t(amplitude, f"load {name!r}: amplitude"), constant, name, moment_type))

    def distributed_load(self, cells: str, q: ArrayLike, amplitude: Optional[Callable[[float], float]] = None,
                         constant: bool = False, name: Optional[str] = None) -> None:
        """Dead load per unit length ``q`` (dim,) [force/length] on the line cells of the
        cell set ``cells``; scaled by ``amplitude`` a(t) (a function or a table
        [[t, a], ...]) or the load factor unless ``constant``."""
        name = name or f"distributed load {cells!r}"
        self.loads.append(DistributedLoad(cells, tuple(np.asarray(q, float).ravel()),
                                          as_function_of_t(amplitude, f"load {name!r}: amplitude"), constant, name))

    def edge_load(self, edges: str, q: ArrayLike, amplitude: Optional[Callable[[float], float]] = None,
                  constant: bool = False, name: Optional[str] = None) -> None:
        """Dead load per unit length ``q`` (dim,) [force/length] on shell (or any surface
        cell) edges: ``edges`` names a line cell set or a node set along the boundary of the
        model's triangles and quads (see femb.model.loads.EdgeLoad)."""
        name = name or f"edge load {edges!r}"
        self.loads.append(EdgeLoad(edges, tuple(np.asarray(q, float).ravel()),
                                   as_function_of_t(amplitude, f"load {name!r}: amplitude"), constant, name))

    def pressure(self, cells: str, p: float, kind: str = "dead", amplitude: Optional[Callable[[float], float]] = None,
                 constant: bool = False, name: Optional[str] = None) -> None:
        """Pressure ``p`` [force/area] on the triangle/quad cells of the cell set ``cells``,
        pushing along the faces' normals (right-hand rule on the node order); ``kind``
        "dead" (reference normals) or "follower" (normal to the deformed surface, with its
        load stiffness), see femb.model.loads.Pressure."""
        name = name or f"pressure {cells!r}"
        self.loads.append(Pressure(cells, real_number(p, f"load {name!r}: p"), kind,
                                   as_function_of_t(amplitude, f"load {name!r}: amplitude"), constant, name))

    def traction(self, cells: str, t: ArrayLike, amplitude: Optional[Callable[[float], float]] = None,
                 constant: bool = False, name: Optional[str] = None) -> None:
        """Dead traction ``t`` (3,) [force/area] on the reference area of the triangle/quad
        cells of the cell set ``cells``."""
        name = name or f"traction {cells!r}"
        self.loads.append(Traction(cells, tuple(np.asarray(t, float).ravel()),
                                   as_function_of_t(amplitude, f"load {name!r}: amplitude"), constant, name))

    def symmetry(self, nodes: NodeSelector, plane: str, name: Optional[str] = None) -> None:
        """Symmetry about the plane through ``nodes`` (an edge set) with global normal
        ``plane`` ("x", "y" or "z"): fixes the translation along the normal and the
        rotations about the two in-plane axes (e.g. "x": ux, ry, rz); the rotation about the
        normal stays free."""
        if plane not in SYMMETRY_DOFS:
            raise ModelError(f"symmetry {nodes!r}: plane must be the normal axis 'x', 'y' or 'z', got {plane!r}")
        self.fixed.append(Fixed(nodes, SYMMETRY_DOFS[plane], name or f"symmetry {plane} {nodes!r}"))

    def gravity(self, g: ArrayLike, amplitude: Optional[Callable[[float], float]] = None, constant: bool = False) -> None:
        """Uniform gravity ``g`` (dim,) [length/time²] acting on all masses (M·g with the
        analysis' mass kind); scaled by ``amplitude`` a(t) (a function or a table) or the
        load factor unless ``constant``."""
        self.loads.append(Gravity(tuple(np.asarray(g, float).ravel()), as_function_of_t(amplitude, "gravity: amplitude"), constant))

    def initial_velocity(self, nodes: NodeSelector, **values: float) -> None:
        """Initial velocity of DOFs at ``nodes``, e.g. ``initial_velocity("tip", uy=2.0)``
        [length/time] (rotational DOFs: angular velocity [rad/time])."""
        self.initial_velocities.append((nodes, {k: float(v) for k, v in values.items()}))

    def initial_rigid_velocity(self, velocity: Optional[ArrayLike] = None, omega: Union[float, ArrayLike] = 0.0,
                               center: Optional[ArrayLike] = None, nodes: Optional[NodeSelector] = None) -> None:
        """Initial velocity field of a rigid motion: v = velocity + ω × (x − center) at
        every node (or ``nodes``); rotational DOFs get ω. ``velocity`` (dim,) [length/time],
        ``center`` (dim,) [length]; in 2-D ``omega`` is the scalar spin about z, in 3-D a
        3-vector [rad/time]."""
        sel = np.arange(self.mesh.n_nodes) if nodes is None else self.nodes(nodes)
        x = np.zeros((sel.size, 3))
        x[:, : self.mesh.dim] = self.mesh.points[sel]
        c = _as_3d(center)
        w = np.array([0.0, 0.0, float(np.asarray(omega))]) if np.ndim(omega) == 0 else _as_3d(omega)
        v = _as_3d(velocity) + np.cross(w, x - c)
        names = self.dof_names
        for k, node in enumerate(sel):
            values = {n: float(v[k, i]) for i, n in enumerate(("ux", "uy", "uz")) if n in names}
            values.update({n: float(w[i]) for i, n in enumerate(("rx", "ry", "rz")) if n in names})
            self.initial_velocities.append((int(node), values))

    # ------------------------------------------------------------------ queries
    @property
    def dof_names(self) -> tuple[str, ...]:
        """The DOF names of the model's nodes: (ux, uy, rz) in 2-D, (ux, uy, uz, rx, ry, rz) in 3-D."""
        return dof_names_for(self.dim)

    def nodes(self, selector: NodeSelector) -> NDArray[np.int64]:
        """Node indices for a marker name, a set name, an index or indices."""
        if isinstance(selector, str) and selector in self.markers:
            return np.atleast_1d(self.mesh.node(self.markers[selector]))
        return self.mesh.nodes(selector)

    def node(self, selector: NodeSelector) -> int:
        """The index of the one node named by a marker name, a one-node set name or an index."""
        if isinstance(selector, str) and selector in self.markers:
            return self.mesh.node(self.markers[selector])
        return self.mesh.node(selector)

    def spec(self, part: Union[str, Part]) -> "ElementSpec":
        """The ElementSpec of a part (given by name or as the Part)."""
        return element_library.get_spec(self.parts[part].element if isinstance(part, str) else part.element)

    def _dof_tuple(self, dofs: DofSelector) -> tuple[str, ...]:
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
    def validate(self) -> "Model":
        """Check the whole model; raise ModelError listing every problem found."""
        problems = self.problems()
        if problems:
            raise ModelError(problems, f"model {self.name!r}")
        return self

    def problems(self) -> list[str]:
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
            if spec.check_cells is not None:
                for m in spec.check_cells(mesh.points, conn):
                    if isinstance(m, CellWarning):
                        log.warning("%s, cell set %r: %s", where, part.cells, m)
                    else:
                        p.append(f"{where}: {m} in cell set {part.cells!r}")
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

    def _record_problems(self, rec: Union[Fixed, Prescribed, Tie, PointLoad, DistributedLoad, EdgeLoad, Pressure, Traction, Gravity], names: tuple[str, ...],
                         covered: NDArray[np.bool_]) -> list[str]:
        p = []
        where = rec.name

        def check_nodes(sel: NodeSelector) -> Optional[NDArray[np.int64]]:
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
        elif isinstance(rec, (Pressure, Traction)):
            p += self._face_load_problems(rec)
        elif isinstance(rec, EdgeLoad):
            if len(rec.q) != self.dim:
                p.append(f"{where}: q needs {self.dim} components, got {len(rec.q)}")
            try:
                check_nodes(np.unique(edge_nodes(self, rec.edges, where)))
            except ModelError as exc:
                p.append(str(exc))
        elif isinstance(rec, Gravity):
            if len(rec.g) != self.dim:
                p.append(f"{where}: g needs {self.dim} components, got {len(rec.g)}")
        elif isinstance(rec, Tie):
            a, b = check_nodes(rec.node_a), check_nodes(rec.node_b)
            if a is not None and b is not None and a.size != b.size:
                p.append(f"{where}: node sets have different sizes ({a.size} and {b.size})")
            p += [f"{where}: unknown DOF {d!r}" for d in rec.dofs if d not in names]
        return p

    def _face_load_problems(self, rec: Union[Pressure, Traction]) -> list[str]:
        """Problems of a pressure or traction: its cell set must hold triangles or quads
        meshed by a part of a 3-D model."""
        p, where = [], rec.name
        if self.dim != 3:
            p.append(f"{where}: surface loads need a 3-D model (Model(mesh, dim=3))")
        if rec.cells not in self.mesh.cells:
            known = sorted(k for k, b in self.mesh.cells.items() if b.cell_type in ("triangle", "quad"))
            kind = " (it is a node set)" if rec.cells in self.mesh.node_sets else ""
            p.append(f"{where}: {rec.cells!r} is not a set of faces{kind}; face sets: {known}")
            return p
        block = self.mesh.cells[rec.cells]
        if block.cell_type not in ("triangle", "quad"):
            p.append(f"{where}: cell set {rec.cells!r} holds {block.cell_type!r} cells, not faces (triangle or quad)")
        elif not any(part.cells == rec.cells for part in self.parts.values()):
            p.append(f"{where}: cell set {rec.cells!r} is not meshed by any part")
        if isinstance(rec, Pressure):
            if rec.kind not in PRESSURE_KINDS:
                p.append(f"{where}: kind must be one of {', '.join(PRESSURE_KINDS)}, got {rec.kind!r}")
            if not np.isfinite(rec.p):
                p.append(f"{where}: p is not finite")
        elif len(rec.t) != 3 or not np.all(np.isfinite(rec.t)):
            p.append(f"{where}: t needs 3 finite components, got {list(rec.t)}")
        return p

    def _joint_problems(self, joint: Joint, names: tuple[str, ...], covered: NDArray[np.bool_]) -> list[str]:
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
            if joint.point is None or joint.direction is None or len(joint.point) != self.dim or len(joint.direction) != self.dim:
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
            second = joint.second_axis
            if second is not None:
                if len(second) != 3 or not np.linalg.norm(second) > 0:
                    p.append(f"{where}: needs a non-zero 3-component second axis, got {second!r}")
                elif joint.axis is not None and len(joint.axis) == 3 and np.linalg.norm(joint.axis) > 0:
                    cosine = np.dot(joint.axis, second) / (np.linalg.norm(joint.axis) * np.linalg.norm(second))
                    if abs(cosine) > 1e-9:
                        p.append(f"{where}: the second axis {tuple(second)} must be perpendicular to the axis "
                                 f"{tuple(joint.axis)} (cosine {cosine:.3g})")
        if joint.kind == "linear":
            if not joint.terms:
                p.append(f"{where}: no terms")
            for term in joint.terms or ():
                if len(term) != 3:
                    p.append(f"{where}: each term is (node, dof, coefficient), got {term!r}")
                elif term[1] not in names:
                    p.append(f"{where}: unknown DOF {term[1]!r}")
        return p

    def summary(self) -> dict[str, Any]:
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


def face_cells(model: "Model") -> list[NDArray[np.int64]]:
    """Connectivities of the triangle and quad cells meshed by the parts of ``model``."""
    out = []
    for part in model.parts.values():
        block = model.mesh.cells.get(part.cells)
        if block is not None and block.cell_type in ("triangle", "quad"):
            out.append(np.asarray(block.connectivity, dtype=np.int64))
    return out


def edge_nodes(model: "Model", edges: str, where: str) -> NDArray[np.int64]:
    """(m, 2) end nodes of the edges named by ``edges``: the cells of a line cell set, or
    the boundary edges (edges of exactly one face) of the model's triangles and quads with
    both ends in a node set. ModelError naming ``where`` and the set otherwise."""
    mesh = model.mesh
    if edges in mesh.cells:
        block = mesh.cells[edges]
        if block.cell_type not in ("line", "line3"):
            raise ModelError(f"{where}: cell set {edges!r} holds {block.cell_type!r} cells, an edge load needs line cells or a node set")
        conn = np.asarray(block.connectivity, dtype=np.int64)
        return conn[:, [0, -1]]
    if edges not in mesh.node_sets:
        raise ModelError(f"{where}: unknown edge set {edges!r} (line cell sets: "
                         f"{sorted(k for k, b in mesh.cells.items() if b.cell_type in ('line', 'line3'))}, node sets: {sorted(mesh.node_sets)})")
    faces = face_cells(model)
    if not faces:
        raise ModelError(f"{where}: node set {edges!r} names an edge, but the model has no triangle or quad parts")
    pairs = np.vstack([np.stack([f, np.roll(f, -1, axis=1)], axis=2).reshape(-1, 2) for f in faces])
    key = np.sort(pairs, axis=1)
    uniq, counts = np.unique(key, axis=0, return_counts=True)
    boundary = uniq[counts == 1]
    member = np.zeros(mesh.n_nodes, dtype=bool)
    member[mesh.node_sets[edges]] = True
    out = boundary[member[boundary].all(axis=1)]
    if out.size == 0:
        raise ModelError(f"{where}: node set {edges!r} contains no boundary edge of the model's triangles and quads")
    return out
