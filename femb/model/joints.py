"""Joint declarations that the correlation table cannot express as shared DOFs.

Each joint is a holonomic constraint Φ(q, t) = 0 whose Lagrange multipliers the solvers
eliminate (null-space projection). Ties that share DOFs one-to-one (pins in 2-D, welds,
grounding) belong to the table instead: ``Model.pin``, ``Model.weld``, ``Model.fix``.

Kinds (``Joint.kind``) and their equations (x: current node position X + u):

``distance``
    Φ = (|x_b − x_a|² − L²)/(2L): node b keeps the distance L from node a (or from a fixed
    ``point`` when node_a is None). One equation.
``on_line``
    Φ_k = n_k·(x − p) for the dim−1 unit normals n_k of the line through ``point`` with
    ``direction``: a node sliding on a fixed line (prismatic joint to ground).
``coincide``
    Φ = x_b − x_a − offset (dim equations): a spherical joint in 3-D / hinge in 2-D between
    two nodes whose DOFs the table does not share (e.g. with an offset vector).
``linear``
    Φ = Σ c_k·u_k − value(t): a general linear relation between DOFs (couplers, gears,
    drivers of a DOF combination); ``terms`` is a list of (node, dof, coefficient).

All are linear or quadratic in the positions, so the mid-point Jacobian is an exact
discrete derivative (Ḡ Δq = ΔΦ) and the reactions do no work in the energy-conserving
scheme.
"""
from dataclasses import dataclass
from typing import Callable, Optional

JOINT_KINDS = ("distance", "on_line", "coincide", "linear")


@dataclass(frozen=True)
class Joint:
    """A holonomic constraint between nodes (see the module docstring for the kinds)."""

    kind: str
    name: str
    node_a: object = None
    node_b: object = None
    point: tuple = None
    direction: tuple = None
    length: Optional[float] = None
    offset: tuple = None
    terms: tuple = None
    value: Optional[Callable] = None
