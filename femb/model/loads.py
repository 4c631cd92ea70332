"""Loads, boundary conditions and ties of a Model (plain declarative records).

Amplitudes: a load's ``amplitude`` is a callable a(t) or None. In statics every load is
multiplied by the load factor λ unless ``constant=True`` (a dead preload applied in full
from the start). In dynamics a load is multiplied by a(t) (1 when None).
"""
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from femb.core.errors import ModelError

DOF_NAMES_2D = ("ux", "uy", "rz")
DOF_NAMES_3D = ("ux", "uy", "uz", "rx", "ry", "rz")
FORCE_TO_DOF = {"fx": "ux", "fy": "uy", "fz": "uz", "mx": "rx", "my": "ry", "mz": "rz"}
MOMENT_TYPES = ("dead", "semitangential", "follower")
PRESSURE_KINDS = ("dead", "follower")
#: DOFs a symmetry plane with the given global normal fixes: the normal translation and the
#: rotations about the two in-plane axes (the rotation about the normal stays free)
SYMMETRY_DOFS = {"x": ("ux", "ry", "rz"), "y": ("uy", "rx", "rz"), "z": ("uz", "rx", "ry")}


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
class EdgeLoad:
    """Dead load per unit reference length ``q`` (dim,) (global direction) on edges:
    ``edges`` names a set of line cells (e.g. a gmsh physical line along a shell edge) or a
    node set along the boundary of surface cells (the boundary edges of the model's
    triangles and quads with both ends in the set). Consistent shares qL/2 on the
    translations of the two end nodes of every edge (linear interpolation of the edge)."""

    edges: str
    q: tuple
    amplitude: Optional[Callable] = None
    constant: bool = False
    name: str = "edge load"


@dataclass(frozen=True)
class Pressure:
    """Uniform pressure ``p`` [force/area] on the triangle and quad cells of the cell set
    ``cells``, pushing along each face's normal (right-hand rule on its node order).

    ``kind``: ``"dead"`` acts along the reference normals with the reference areas (fixed
    nodal forces); ``"follower"`` acts normal to the current, deformed surface on its
    current area and contributes its exact load stiffness to the static tangent
    (femb.core.surfaces). A follower pressure is conservative (potential −p·V) on a closed
    surface or one whose boundary nodes are held."""

    cells: str
    p: float
    kind: str = "dead"
    amplitude: Optional[Callable] = None
    constant: bool = False
    name: str = "pressure"


@dataclass(frozen=True)
class Traction:
    """Dead traction ``t`` (3,) [force/area, fixed global direction] on the reference area
    of the triangle and quad cells of the cell set ``cells``."""

    cells: str
    t: tuple
    amplitude: Optional[Callable] = None
    constant: bool = False
    name: str = "traction"


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


def real_number(value, where):
    """``value`` as a float; ModelError naming ``where`` when it is not a real number (a
    string, a bool, None, an array ...)."""
    if not isinstance(value, (str, bytes, bool, np.bool_)) and np.ndim(value) == 0:
        try:
            return float(value)
        except (TypeError, ValueError):
            pass
    raise ModelError(f"{where}: expected a number, got {type(value).__name__} {_short(value)}")


def _short(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 5] + " ...]"


class TableFunction:
    """a(t) from a table of (t, a) pairs: linear interpolation, constant beyond the ends
    (the tables of case files); ``points`` keeps the pairs."""

    def __init__(self, points):
        self.points = [(float(t), float(a)) for t, a in points]
        self._t = np.array([p[0] for p in self.points])
        self._a = np.array([p[1] for p in self.points])

    def __call__(self, t: float) -> float:
        """a(t), interpolated linearly (the end values beyond the table)."""
        return float(np.interp(t, self._t, self._a))

    def __repr__(self):
        return f"TableFunction({self.points!r})"


def as_function_of_t(value, where):
    """A load amplitude or prescribed-motion function as a callable a(t) (or None):
    a callable is kept, a table [[t, a], ...] (times increasing strictly) becomes a
    :class:`TableFunction`; anything else is a ModelError naming ``where``."""
    if value is None or callable(value):
        return value
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__"):
        raise ModelError(f"{where}: expected a callable a(t) or a table [[t, a], ...], got {type(value).__name__} {_short(value)}")
    try:
        table = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ModelError(f"{where}: a table must hold number pairs [[t, a], ...], got {_short(value)}") from None
    if table.ndim != 2 or table.shape[1] != 2 or table.shape[0] < 1:
        raise ModelError(f"{where}: a table must hold pairs [[t, a], ...], got shape {table.shape}")
    if not np.all(np.isfinite(table)):
        raise ModelError(f"{where}: the table holds NaN or Inf")
    if np.any(np.diff(table[:, 0]) <= 0):
        raise ModelError(f"{where}: the times must increase strictly, got {table[:, 0].tolist()}")
    return TableFunction(table.tolist())


def evaluate_amplitude(amplitude, t):
    """a(t) for a load amplitude (1.0 when None)."""
    return 1.0 if amplitude is None else float(amplitude(t))


def as_vector(values, dim, where):
    """``values`` as a (dim,) float array; ValueError naming ``where`` for another size."""
    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size != dim:
        raise ValueError(f"{where}: expected {dim} components, got {v.size}")
    return v
