"""The contract every femb element type fulfils.

An element module exports one or more ``ElementSpec`` objects (``SPECS``, name -> spec). A
spec is declarative (name, meshio cell type, nodes, DOF names per node, property columns,
names of its section resultants, and the hooks the framework calls) and carries an
``ElementKernels`` bundle of compiled functions that work on a whole batch of elements of
that type at once. Every field of both is typed and documented below; there is no
untyped side channel.

Array conventions (element axis first, fixed dtypes, written and never allocated by the
kernels):

- ``X``: (n_el, n_nodes, dim) float64, reference nodal coordinates.
- ``u``: (n_el, n_edof) float64, element DOF values ordered node by node, each node's DOFs
  in the order of ``spec.node_dofs`` (2-D rotations are additive and stored here too),
  then the element-internal variables (``spec.n_internal``, none in any element so far).
- ``v``: (n_el, n_edof) float64, element velocities in the same order.
- ``p``: (n_el, n_props) float64, element properties in the order of ``spec.params``,
  followed by the ``spec.pack`` columns of element types that have them.
- outputs: ``f`` (n_el, n_edof), ``K``, ``M`` and ``C`` (n_el, n_edof, n_edof), ``e``
  (n_el,), and the resultants ``s``: (n_el, n_resultants) for the one stress point of
  every element built so far; (n_el, n_stress_points, n_resultants) for element types
  with several (``spec.stress_points``; not supported by the framework yet).

Kernel signatures, planar and translational elements (all compiled, all batch):

- ``internal_force(X, u, p, f)``: internal nodal forces f = dV/du (energy-conjugate).
- ``tangent(X, u, p, f, K)``: internal force and its exact derivative (material plus
  geometric stiffness).
- ``resultants(X, u, p, s)``: section forces/moments in the co-rotated frame, named by
  ``spec.resultant_names``.
- ``geometric_stiffness(X, u, p, s, K)``: the stress-dependent part of the tangent at
  configuration ``u`` for given resultants ``s`` (linear in ``s``); used by linear buckling
  with the resultants of a linear pre-solve.
- ``strain_energy(X, u, p, e)``.
- ``mass(X, u, p, kind, M)``: kind 0 = lumped (diagonal), 1 = consistent (the element's
  own interpolation, e.g. Hermite cubics for Euler–Bernoulli beams, oriented along the
  chord of configuration ``u``), 2 = invariant (consistent mass of linear interpolation of
  translations and rotations: rotation-invariant, hence constant, exact total mass and
  exact rotary inertia of a straight member). Which kinds do not depend on the
  configuration is stated by ``spec.constant_mass``; the energy-conserving integrator
  requires a constant mass (or, in 3-D, the rotary-inertia split of ``spec.rotary_kinds``).
- ``damping(X, u, p, C)``: linear viscous damping matrix of discrete dampers, damping
  force = C·v; ``None`` for elements without damping.
- ``damper_force(X, u, v, p, f, C)``: the (possibly nonlinear) damping force f of discrete
  dampers at configuration ``u`` and velocity ``v``, and its derivative C = ∂f/∂v; the
  configuration enters through the damper's axis only. When present the dynamic solvers
  use it instead of C·v with ``damping`` (which then gives the linearization at v = 0,
  e.g. for complex modes); ``None`` for elements without damping or with a linear one
  only.
- ``midpoint_force(X, u0, u1, p, f, K)``: the algorithmic (discrete-gradient) internal
  force between configurations u0 and u1 with f·z = V(u1) − V(u0) exactly, and its
  derivative K = ∂f/∂z (non-symmetric in general), where the step increment z holds the
  translation increments u1 − u0 and, for 2-D rotational DOFs (rz), the Cayley parameter
  τ = 2 tan((θ1 − θ0)/2) of the rotation increment (the unknown of the mid-point
  integrator, femb.solvers.dynamics.schemes): the rotational entries of f are moments
  conjugate to τ, and the rotational columns of K derivatives with respect to τ. With
  this convention chords and nodal rotations turn by the same angle under a free rigid
  spin at any step size. ``None`` for element types that have no energy-conserving form
  yet.
- ``velocity_force(X, u, v, p, f)``: the quadratic velocity (centrifugal and Coriolis)
  forces h(u, v) = Ṁ u̇ − ∂T/∂u of an element whose mass depends on the configuration, in
  M(u) ü + h(u, v) = Q; ``None`` for elements with a constant mass. Provided by
  ``rigid_body2d_offset``. With it a planar element type whose mass kind is not constant
  is integrated by the α schemes (Newmark, HHT, generalized-α), which re-assemble M(u)
  and h(u, v) at each iteration (femb.solvers.dynamics.variable_mass); the mid-point
  scheme refuses it.
- ``area_load(X, u, p, q, f, K)`` — **declared, not built yet** (shells): the equivalent
  nodal forces f of a load distributed over the element's surface, f·δu = ∫ (q_n n + t)·δx dA,
  with q (n_el, 4) per element: q[:, 0] a pressure q_n (force per current area, along the
  current unit normal n of the surface, right-handed with the node order; a follower
  load) and q[:, 1:4] a traction t (force per reference area, global axes; a dead load);
  K = ∂f/∂u the load stiffness (non-symmetric for the follower pressure, zero for the
  traction). ``None`` (all elements so far): the load assembler has no area loads yet.

Oriented elements (``spec.oriented`` True: nodes with 3-D rotations) take one more
argument after ``u``: ``R`` (n_el, n_nodes, 3, 3) float64, the current rotation of each
nodal triad relative to its reference orientation (identity in the reference state;
updated multiplicatively by the solvers, R ← exp(δŵ)·R, never by adding rotation vectors).
Their ``u`` holds translations in the translational slots; the rotational slots are
ignored by the kernels. The rotational entries of ``f`` are moments conjugate to the
spatial spin variation δw (δR = δŵ·R), and the rotational rows/columns of ``K`` and ``C``
are derivatives with respect to δw (of ``v``: the spatial angular velocities).
Signatures: ``internal_force(X, u, R, p, f)``, ``tangent(X, u, R, p, f, K)``,
``resultants(X, u, R, p, s)``, ``geometric_stiffness(X, u, R, p, s, K)``,
``strain_energy(X, u, R, p, e)``, ``mass(X, u, R, p, kind, M)``, ``damping(X, u, R, p, C)``,
``damper_force(X, u, R, v, p, f, C)``, ``area_load(X, u, R, p, q, f, K)``;
element-specific reference data (e.g. the section orientation) is part of ``p``.

The oriented mid-point kernel ``midpoint_force(X, u0, R0, u1, R1, um, Rm, psi, D, p, f, K)``
is the algorithmic force of a step of the 3-D energy-momentum scheme
(femb.solvers.dynamics.midpoint3d), whose rotational unknowns are the Cayley vectors ψ of
the nodal rotation increments, R1 = cay(ψ) R0 (femb.core.rotations.cayley):

- ``u0``, ``u1`` (n_el, n_edof): the two configurations (translations; rotational slots
  ignored); ``R0``, ``R1`` (n_el, n_nodes, 3, 3) the nodal rotations at both ends;
- ``um`` = (u0 + u1)/2 and ``Rm`` = cay(ψ_m) R0, the geodesic mid rotation (cay(ψ_m)² =
  cay(ψ)), for kernels that evaluate at the mid configuration;
- ``psi`` (n_el, n_nodes, 3): the Cayley vectors ψ of the nodal rotation increments (zero
  at nodes without rotations);
- ``D`` (n_el, n_nodes, 3, 3): the spatial spin of the mid rotation per unit ψ,
  δRm Rmᵀ = (D δψ)^ (D = T(ψ_m) dψ_m/dψ, femb.core.rotations.cayley_spin_jacobian_batch
  and cayley_half_batch);
- writes ``f`` (n_el, n_edof) with f·(Δx, ψ) = V(u1, R1) − V(u0, R0) exactly, translational
  entries conjugate to Δx = u1 − u0 and rotational entries conjugate to ψ, self-equilibrated
  at the mid positions (so linear and angular momentum are exact), and ``K`` = ∂f/∂(Δx, ψ).

Rotary inertia of oriented elements: a mass kind listed in ``spec.rotary_kinds`` gives a
mass matrix whose rotational rows and columns do not couple with the translations and are
block diagonal per node (3×3), with a constant translational block. At R = I the
rotational block of each node is the body-frame inertia J0 of a nodal rigid body whose
spatial inertia R J0 Rᵀ turns with the node: the 3-D dynamics splits the mass this way
(femb.solvers.dynamics.problem.split_rotary_mass) and integrates the rotary part by
Simo–Wong's energy-momentum rule (femb.solvers.dynamics.midpoint3d), so such kinds are
accepted for time integration although they are not in ``constant_mass``.

Element-internal variables (``spec.n_internal`` > 0: the modal amplitudes of a
Craig–Bampton superelement, elements.superelement; declared for the enhanced-strain
parameters of shells): they follow the nodal DOFs in the element arrays (n_edof =
n_nodes·len(node_dofs) + n_internal) and belong to one element each. The correlation table
numbers them after the nodal variables of the model, one consecutive block of n_internal per
element, with ``var_node`` = ``var_dof`` = -1 and ``var_block``/``var_element`` naming the
owner (femb.correlation.table), so that the element's row of the block's ``var``/``eq``
lists its nodal variables and then its own internal ones, and assembly, joints and solvers
see ordinary (additive) variables. Element types whose sizes vary per part (superelements:
n nodes and k modes) are one spec per size made on demand (``get_spec`` parses their name),
all sharing one set of compiled kernels that read the sizes from the array shapes; per-part
data (reduced matrices) travels in the property row (``table_params`` + ``pack``).
``build_table`` refuses element types with several stress points.
"""
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, NamedTuple, Optional

import numpy as np

LUMPED = 0
CONSISTENT = 1
INVARIANT = 2
MASS_KINDS = {"lumped": LUMPED, "consistent": CONSISTENT, "invariant": INVARIANT}
ALL_MASS_KINDS = (LUMPED, CONSISTENT, INVARIANT)

Kernel = Callable[..., None]
"""A compiled batch kernel: takes the arrays of the module docstring, writes its outputs,
returns nothing."""


class ElementKernels(NamedTuple):
    """The compiled batch kernels of one element type (signatures in the module
    docstring; oriented elements take ``R`` after ``u``)."""

    internal_force: Kernel
    """``(X, u, p, f)``: internal nodal forces f = dV/du."""
    tangent: Kernel
    """``(X, u, p, f, K)``: internal force and its exact derivative."""
    resultants: Kernel
    """``(X, u, p, s)``: section resultants in the co-rotated frame."""
    geometric_stiffness: Kernel
    """``(X, u, p, s, K)``: stress-dependent tangent for given resultants ``s``."""
    strain_energy: Kernel
    """``(X, u, p, e)``: strain energy per element."""
    mass: Kernel
    """``(X, u, p, kind, M)``: mass matrix of mass kind ``kind`` (LUMPED, CONSISTENT,
    INVARIANT)."""
    midpoint_force: Optional[Kernel] = None
    """Planar ``(X, u0, u1, p, f, K)`` or oriented ``(X, u0, R0, u1, R1, um, Rm, psi, D, p,
    f, K)``: the energy-exact algorithmic force of a step and its derivative; None: no
    energy-conserving form."""
    midpoint_step: Optional[Kernel] = None
    """Oriented ``(X, u0, R0, u1, R1, um, Rm, psi, D, p, h, g, v0, f, K)``: for elements that
    carry their inertia as mass points with their own velocities v0 (n_el, n_p, 3) (the
    superelement, elements.superelement_step): the algorithmic internal force plus the
    points' mid-point inertia of a step of size h, less their weight in the gravity field
    g (3,), and its derivative; such elements have no ``midpoint_force`` and no mass in the
    nodal mass matrices (nor in the nodal gravity loads) of dynamics."""
    midpoint_step_force: Optional[Kernel] = None
    """``midpoint_step`` without the matrix: ``(X, u0, R0, u1, R1, um, Rm, psi, D, p, h, g,
    v0, f)``, for Newton iterations that keep a step's first matrix."""
    point_state: Optional[Kernel] = None
    """``(X, u, R, p, v, x, w)``: positions x and velocities w (n_el, n_p, 3) of the mass
    points of ``midpoint_step`` elements at configuration (u, R) and element velocities v."""
    damping: Optional[Kernel] = None
    """``(X, u, p, C)``: linear viscous damping matrix; None: no damping."""
    damper_force: Optional[Kernel] = None
    """``(X, u, v, p, f, C)``: nonlinear damping force and C = ∂f/∂v; None: linear or no
    damping."""
    velocity_force: Optional[Kernel] = None
    """``(X, u, v, p, f)``: quadratic velocity forces h(u, v) of a configuration-dependent
    mass; None: constant mass (used by the α schemes, femb.solvers.dynamics.variable_mass)."""
    area_load: Optional[Kernel] = None
    """``(X, u, p, q, f, K)``: equivalent nodal forces of a pressure/traction q (n_el, 4)
    over the element's surface and their derivative; declared for shells, None in every
    element so far (the load assembler has no area loads yet)."""


class CellWarning(str):
    """A finding of ``ElementSpec.check_cells`` that is worth a warning, not an error."""


@dataclass(frozen=True)
class ElementSpec:
    """Declarative description of an element type (the contract of the module docstring).

    Required fields describe the element; the optional ones default to "not used by this
    element type". Fields marked *not built yet* are declared for shells and superelements
    and must keep their defaults until the framework supports them (``build_table``
    refuses anything else).
    """

    name: str
    """Unique name used in models and case files (``"beam2d"``)."""
    cell_type: str
    """The meshio cell type whose cells become elements of this type (``"line"``)."""
    n_nodes: int
    """Nodes per element."""
    dim: int
    """Spatial dimension of the nodes (2 or 3)."""
    node_dofs: tuple[str, ...]
    """DOF names at each node, from ``("ux", "uy", "uz", "rx", "ry", "rz")``."""
    params: tuple[str, ...]
    """Names of the property columns of ``p`` (units: any consistent set)."""
    resultant_names: tuple[str, ...]
    """Names of the section resultants written by ``resultants`` (per stress point)."""
    properties: Callable[[Any, Any], dict[str, float]]
    """``properties(material, section) -> dict`` giving every entry of ``params`` from a
    Material and a Section; raises ``KeyError``/``ValueError`` naming what is missing."""
    kernels: ElementKernels
    """The compiled batch kernels."""
    constant_mass: tuple[int, ...] = (LUMPED,)
    """Mass kinds that do not depend on the configuration (usable by the
    energy-conserving integrator)."""
    rotary_kinds: tuple[int, ...] = ()
    """Oriented elements: mass kinds whose matrix splits into a constant translational
    mass and nodal rigid-body rotary inertias (module docstring, "Rotary inertia"), which
    the 3-D dynamics integrates although the matrix turns with the nodes; () for none."""
    oriented: bool = False
    """True for elements whose nodes carry 3-D rotations (kernels take ``R``)."""
    requires_length: bool = True
    """Multi-node elements whose first and last node may not coincide (False for e.g.
    zero-length springs at a hinge); model validation reports violations."""
    defaults: Mapping[str, float] = field(default_factory=dict)
    """Values of optional parameters (e.g. a spring's damping c = 0) used when direct
    ``values`` omit them."""
    description: str = ""
    """One line for listings and the documentation."""
    internal_forces: bool = True
    """False for pure inertia elements (point masses, rigid bodies) whose internal force,
    tangent, mid-point force and strain-energy kernels are identically zero: the dynamic
    assembly and the energy books skip their blocks."""
    table_params: tuple[str, ...] = ()
    """Names of non-numeric entries of direct ``values`` (e.g. a spring's force-law table
    ``law``), passed to ``pack`` instead of becoming numeric columns."""
    pack: Optional[Callable[[dict], np.ndarray]] = None
    """``pack(tables) -> (m,) float64``: extra property columns appended after ``params``
    in every property row (``tables`` = dict of the ``table_params`` given), e.g. a
    tabulated force law; the row length is then fixed per part. None: rows are exactly
    ``params``."""
    prepare_values: Optional[Callable[[dict, str], dict]] = None
    """``prepare_values(values, where) -> values``, applied by ``Model.add_discrete`` to
    the user's keywords before ``property_row``: checks and converts non-numeric ones
    (force laws, convenience keywords), raising InputError naming ``where``. None: the
    keywords are used as given."""
    law_stiffness: Optional[str] = None
    """Springs with force laws: the linear stiffness parameter that defaults to 0 when a
    law is given (``"k"``, ``"kx"``). None for element types without force laws."""
    parameter_aliases: Mapping[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    """Convenience keywords of direct values: key -> (case-file conversion, ``"number"``
    or ``"vector"``; the parameters it provides), e.g. ``axis`` -> ("vector", ("ax", "ay",
    "az")); ``prepare_values`` expands them. Empty: none."""
    drawn_as: Optional[tuple[str, int]] = None
    """(meshio cell type, number of leading cell nodes) that draw the elements in output
    when their cells carry more nodes than their geometry (the floating-frame beams'
    frame nodes); None: the cells as they are."""
    stress_points: tuple[tuple[float, ...], ...] = ()
    """*Not built yet.* Natural coordinates of the element's stress points when it has
    several (shells: one per in-plane Gauss point); ``resultants`` then writes
    ``s`` (n_el, n_stress_points, n_resultants) in this order and ``geometric_stiffness``
    reads it so. () (every element so far): one stress point, ``s`` (n_el,
    n_resultants)."""
    n_internal: int = 0
    """Element-internal (non-nodal) variables per element, after the nodal DOFs in the
    element arrays (module docstring); the superelements' modal amplitudes, 0 for every
    other element type."""
    check_cells: Optional[Callable[[np.ndarray, np.ndarray], list]] = None
    """``check_cells(points, connectivity) -> [problem, ...]``: geometric problems of the
    cells of one part (zero-area, non-convex or warped shells), reported by model
    validation with the part and cell set; items that are :class:`CellWarning` are
    logged as warnings instead (e.g. mildly warped quads); None: only the
    ``requires_length`` check."""

    @property
    def n_edof(self) -> int:
        """Number of DOFs of one element: the nodal ones, then the internal ones."""
        return self.n_nodes * len(self.node_dofs) + self.n_internal

    @property
    def n_stress_points(self) -> int:
        """Stress points per element (1 unless ``stress_points`` lists several)."""
        return max(1, len(self.stress_points))

    def property_row(self, material, section, values: Optional[Mapping[str, Any]] = None) -> np.ndarray:
        """The property vector (n_params,) float64 of this element (followed by the
        ``pack`` columns of element types that have them), from a material and a
        section, or directly from ``values`` (dict param -> number; used by discrete
        elements such as point masses and springs). Raises KeyError naming a missing
        parameter."""
        tables = {}
        if values is None:
            values = self.properties(material, section)
        else:
            values = {**self.defaults, **values}
            tables = {k: values.pop(k) for k in self.table_params if k in values}
        missing = [k for k in self.params if k not in values]
        if missing:
            raise KeyError(f"element {self.name!r} needs {', '.join(missing)}")
        unknown = [k for k in values if k not in self.params]
        if unknown:
            raise KeyError(f"element {self.name!r} has no parameter {', '.join(map(repr, unknown))} (it takes {', '.join(self.params)})")
        row = np.array([float(values[k]) for k in self.params], dtype=np.float64)
        if self.pack is not None:
            row = np.concatenate([row, np.asarray(self.pack(tables), dtype=np.float64)])
        return row
