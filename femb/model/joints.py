"""Joint declarations that the correlation table cannot express as shared DOFs.

Each joint is a holonomic constraint Φ(q, t) = 0 whose Lagrange multipliers the solvers
eliminate (null-space projection). Ties that share DOFs one-to-one (pins in 2-D, welds,
grounding) belong to the table instead: ``Model.pin``, ``Model.weld``, ``Model.fix``.

Kinds (``Joint.kind``) and their equations (x: current node position X + u):

``distance``
    Φ = (‖x_b − x_a‖² − L²)/(2L): node b keeps the distance L from node a (or from a fixed
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

``body_point`` (2-D)
    Φ = x_b − x_a − R(θ_a)·c: the point of the body carried by node a (a rigid body or a
    beam node with rz) at reference offset c (default X_b − X_a) coincides with node b, or
    with the fixed ``point`` when node_b is None: a revolute joint between a rigid body and
    another node, or to ground, at any point of the body.
``slider`` (2-D)
    Φ = (x_b − x_a − R(θ_a)·o)·(R(θ_a)·ν) = (x_b − x_a)·R(θ_a)ν − o·ν: node b stays on the
    line through the point of the body carried by node a (a rigid body or a beam node with
    rz) at reference offset o = ``point`` − X_a (default X_b − X_a), along the body-fixed
    ``direction`` d (ν the unit normal of d in the reference configuration): a slider on a
    line that moves with the body. With ``lock_rotation`` a second row θ_b − θ_a = 0 locks
    the relative rotation (node b needs rz): a planar prismatic joint. The slider row is
    bilinear in the relative position and the body director e = R(θ_a)ν, so the averaged
    form Δd·ē + d̄·Δe (Δe = τ E ē for the Cayley parameter τ = 2 tan(Δθ/2)) is its exact
    discrete derivative.

3-D joints between oriented nodes (beam3d, rigid_body3d nodes) or an oriented node and ground
(femb.assembly.joints.spatial; node_b None means ground). The joint sits at an attachment
point P given in the reference configuration: ``point`` (reference coordinates), or with
``frame`` "a" / "b" an offset from node a / b (nodes start unrotated, so a body frame is
parallel to the global axes there); default node b's position (node a's for a joint to
ground). P is fixed in both bodies: with c_a = P − X_a and c_b = P − X_b their reference
offsets, the points x_a + R_a c_a and x_b + R_b c_b coincide. ``axis`` is a unit vector
given in the reference configuration and fixed in each body's frame (a copy turning with
node a and one with node b); a universal joint's second cross axis (``second_axis``,
perpendicular to ``axis``, default the normal described below) is fixed in node b:

``spherical``
    x_b + R_b c_b = x_a + R_a c_a (3 equations; to ground: x_a + R_a c_a = P): rotations free.
``revolute``
    spherical plus two equations keeping b's copy of the axis perpendicular to a's two
    normals (5 equations): only the relative rotation about the axis is free.
``universal``
    spherical plus one equation: a's first normal stays perpendicular to b's second
    normal (4 equations): the cross of two perpendicular axes.
``cylindrical``
    the relative position stays on the axis (2 equations) and the axes stay aligned
    (2 equations): rotation about and translation along the axis are free.
``prismatic``
    cylindrical plus one equation that locks the rotation about the axis (5 equations):
    only the translation along the axis is free.

The translational kinds are linear or quadratic in the positions, so the mid-point Jacobian
is an exact discrete derivative (Ḡ Δq = ΔΦ) and the reactions do no work in the
energy-conserving scheme; ``body_point`` and ``slider`` provide their exact discrete
derivatives through ``ConstraintSet.midpoint_jacobian``.
"""
from dataclasses import dataclass
from typing import Any, Callable, Optional

JOINTS_3D = ("spherical", "revolute", "universal", "cylindrical", "prismatic")
JOINT_KINDS = ("distance", "on_line", "coincide", "linear", "body_point", "slider") + JOINTS_3D


@dataclass(frozen=True)
class Joint:
    """A holonomic constraint between nodes (see the module docstring for the kinds)."""

    kind: str
    name: str
    node_a: Any = None
    node_b: Any = None
    point: Optional[tuple] = None
    direction: Optional[tuple] = None
    length: Optional[float] = None
    offset: Optional[tuple] = None
    terms: Optional[tuple] = None
    value: Optional[Callable] = None
    axis: Optional[tuple] = None
    lock_rotation: bool = False
    second_axis: Optional[tuple] = None
    frame: Optional[str] = None
