"""Loads, boundary conditions and ties of a Model (plain declarative records).

Amplitudes: a load's ``amplitude`` is a callable a(t) or None. In statics every load is
multiplied by the load factor λ unless ``constant=True`` (a dead preload applied in full
from the start). In dynamics a load is multiplied by a(t) (1 when None).
"""
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

DOF_NAMES_2D = ("ux", "uy", "rz")
DOF_NAMES_3D = ("ux", "uy", "uz", "rx", "ry", "rz")
FORCE_TO_DOF = {"fx": "ux", "fy": "uy", "fz": "uz", "mx": "rx", "my": "ry", "mz": "rz"}
MOMENT_TYPES = ("dead", "semitangential", "follower")


def dof_names_for(dim):
    """Canonical DOF names of a model of spatial dimension ``dim``."""
    return DOF_NAMES_2D if dim == 2 else DOF_NAMES_3D


@dataclass(frozen=True)
class PointLoad:
    """Forces/moments on nodes: ``values`` maps DOF names (ux, uy, rz ...) to magnitudes.

    ``moment_type`` says how the moment components (rx, ry, rz) of a 3-D model act on
    nodes with finite rotations (forces are always dead, fixed in space):

    - ``"dead"``: fixed vector in space (axial moment); not conservative in 3-D.
    - ``"semitangential"``: conservative moment with potential −M·θ, θ = log R the total
      rotation vector of the node (|θ| < π); generalized force J(θ)⁻ᵀ M.
    - ``"follower"``: body-fixed, M given in the reference orientation of the node,
      current value R M.

    The last two depend on the nodal rotation R and contribute a load stiffness to the
    tangent (femb.elements.loads3d). In 2-D all three coincide (planar moments are
    conservative) and are treated as dead.
    """

    nodes: Any
    values: dict
    amplitude: Optional[Callable] = None
    constant: bool = False
    name: str = "point load"
    moment_type: str = "dead"


@dataclass(frozen=True)
class DistributedLoad:
    """Dead load per unit reference length on the line cells of a cell set, global
    direction: ``q`` is (dim,)."""

    cells: str
    q: tuple
    amplitude: Optional[Callable] = None
    constant: bool = False
    name: str = "distributed load"


@dataclass(frozen=True)
class Gravity:
    """Uniform acceleration field ``g`` (dim,) acting on every mass of the model."""

    g: tuple
    amplitude: Optional[Callable] = None
    constant: bool = False
    name: str = "gravity"


@dataclass(frozen=True)
class Fixed:
    """Zero displacement of ``dofs`` at ``nodes``."""

    nodes: Any
    dofs: tuple
    name: str = "fixed"


@dataclass(frozen=True)
class Prescribed:
    """Prescribed value of one DOF at ``nodes``: value·λ in statics (value·a(t) in
    dynamics, or ``function(t)`` when given)."""

    nodes: Any
    dof: str
    value: float = 0.0
    function: Optional[Callable] = None
    name: str = "prescribed"


@dataclass(frozen=True)
class Tie:
    """DOFs shared one-to-one between two nodes (pin: translations, weld: all)."""

    node_a: Any
    node_b: Any
    dofs: tuple
    name: str = "tie"


def evaluate_amplitude(amplitude, t):
    """a(t) for a load amplitude (1.0 when None)."""
    return 1.0 if amplitude is None else float(amplitude(t))


def as_vector(values, dim, where):
    """``values`` as a (dim,) float array; ValueError naming ``where`` for another size."""
    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size != dim:
        raise ValueError(f"{where}: expected {dim} components, got {v.size}")
    return v
