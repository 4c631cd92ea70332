"""The contract every femb element type fulfils.

An element module exports one or more ``ElementSpec`` objects. A spec is declarative (name,
meshio cell type, nodes, DOF names per node, property columns, names of its section
resultants) and carries a ``kernels`` bundle of compiled functions that work on a whole
batch of elements of that type at once.

Array conventions (element axis first, fixed dtypes):

- ``X``: (n_el, n_nodes, dim) float64, reference nodal coordinates.
- ``u``: (n_el, n_edof) float64, element DOF values ordered node by node, each node's DOFs
  in the order of ``spec.node_dofs`` (2-D rotations are additive and stored here too).
- ``p``: (n_el, n_params) float64, element properties in the order of ``spec.params``.
- outputs (written, never allocated, by the kernels): ``f`` (n_el, n_edof), ``K`` and
  ``M`` (n_el, n_edof, n_edof), ``s`` (n_el, n_resultants), ``e`` (n_el,).

Kernel signatures (all compiled, all batch):

- ``internal_force(X, u, p, f)``: internal nodal forces f = dV/du (energy-conjugate).
- ``tangent(X, u, p, f, K)``: internal force and its exact derivative (material plus
  geometric stiffness).
- ``resultants(X, u, p, s)``: section forces/moments in the co-rotated frame.
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
  requires a constant mass.
- ``damping(X, u, p, C)``: linear viscous damping matrix (n_el, n_edof, n_edof) of
  discrete dampers, damping force = C·v; ``None`` for elements without damping.

Oriented elements (``spec.oriented`` True: nodes with 3-D rotations) take one more
argument after ``u``: ``R`` (n_el, n_nodes, 3, 3) float64, the current rotation of each
nodal triad relative to its reference orientation (identity in the reference state;
updated multiplicatively by the solvers, R ← exp(δŵ)·R, never by adding rotation vectors).
Their ``u`` holds translations in the translational slots; the rotational slots are
ignored by the kernels. The rotational entries of ``f`` are moments conjugate to the
spatial spin variation δw (δR = δŵ·R), and the rotational rows/columns of ``K`` are
derivatives with respect to δw. Signatures: ``internal_force(X, u, R, p, f)``,
``tangent(X, u, R, p, f, K)``, ``resultants(X, u, R, p, s)``,
``geometric_stiffness(X, u, R, p, s, K)``, ``strain_energy(X, u, R, p, e)``,
``mass(X, u, R, p, kind, M)``; element-specific reference data (e.g. the section
orientation) is part of ``p``.

- ``damper_force(X, u, v, p, f, C)``: the (possibly nonlinear) damping force f (n_el,
  n_edof) of discrete dampers at configuration ``u`` and velocity ``v`` (n_el, n_edof), and
  its derivative C = ∂f/∂v (n_el, n_edof, n_edof); the configuration enters through the
  damper's axis only. When present the dynamic solvers use it instead of C·v with
  ``damping`` (which then gives the linearization at v = 0, e.g. for complex modes);
  ``None`` for elements without damping or with a linear one only.

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
"""
from dataclasses import dataclass, field
from typing import Callable, NamedTuple, Optional

import numpy as np

LUMPED = 0
CONSISTENT = 1
INVARIANT = 2
MASS_KINDS = {"lumped": LUMPED, "consistent": CONSISTENT, "invariant": INVARIANT}


class ElementKernels(NamedTuple):
    """The compiled batch kernels of one element type (see the module docstring)."""

    internal_force: Callable
    tangent: Callable
    resultants: Callable
    geometric_stiffness: Callable
    strain_energy: Callable
    mass: Callable
    midpoint_force: Optional[Callable] = None
    damping: Optional[Callable] = None
    damper_force: Optional[Callable] = None


@dataclass(frozen=True)
class ElementSpec:
    """Declarative description of an element type.

    Attributes
    ----------
    name : str
        Unique name used in models and case files (``"beam2d"``).
    cell_type : str
        The meshio cell type whose cells become elements of this type (``"line"``).
    n_nodes : int
        Nodes per element.
    dim : int
        Spatial dimension of the nodes (2 or 3).
    node_dofs : tuple of str
        DOF names at each node, from ``("ux", "uy", "uz", "rx", "ry", "rz")``.
    params : tuple of str
        Names of the property columns of ``p``.
    resultant_names : tuple of str
        Names of the section resultants written by ``resultants``.
    properties : callable
        ``properties(material, section) -> dict`` giving every entry of ``params`` from a
        Material and a Section; raises ``KeyError``/``ValueError`` naming what is missing.
    kernels : ElementKernels
    constant_mass : tuple of int
        Mass kinds that do not depend on the configuration.
    oriented : bool
        True for elements whose nodes carry 3-D rotations (kernels take ``R``).
    requires_length : bool
        Multi-node elements whose first and last node may not coincide (False for e.g.
        zero-length springs at a hinge); model validation reports violations.
    defaults : dict
        Values of optional parameters (e.g. a spring's damping c = 0) used when direct
        ``values`` omit them.
    description : str
    extra : dict
        Element-specific data. ``extra["prepare_values"]``, when present, is a callable
        ``(values, where) -> values`` that ``Model.add_discrete`` applies to the user's
        keywords (checks and converts non-numeric ones, raising InputError naming ``where``);
        ``extra["law_stiffness"]`` names the linear stiffness that defaults to 0 when a
        spring is given a force law (``"k"`` when absent).
    table_params : tuple of str
        Names of non-numeric entries of direct ``values`` (e.g. a spring's force-law
        table ``law``), passed to ``pack`` instead of becoming numeric columns.
    pack : callable or None
        ``pack(tables) -> (m,) float64``: extra property columns appended after ``params``
        in every property row (``tables`` = dict of the ``table_params`` given), e.g. a
        tabulated force law; the row length is then fixed per part.
    """

    name: str
    cell_type: str
    n_nodes: int
    dim: int
    node_dofs: tuple
    params: tuple
    resultant_names: tuple
    properties: Callable
    kernels: ElementKernels
    constant_mass: tuple = (LUMPED,)
    oriented: bool = False
    requires_length: bool = True
    defaults: dict = field(default_factory=dict)
    description: str = ""
    extra: dict = field(default_factory=dict)
    table_params: tuple = ()
    pack: Optional[Callable] = None

    @property
    def n_edof(self):
        """Number of DOFs of one element."""
        return self.n_nodes * len(self.node_dofs)

    def property_row(self, material, section, values=None):
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
