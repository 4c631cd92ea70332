"""Materials and cross-sections (any consistent unit system)."""
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from femb.core.errors import ModelError


def _check_numbers(obj: Any, what: str, fields: Sequence[str], optional: Sequence[str] = ()) -> None:
    """Every field of ``fields`` of the frozen dataclass ``obj`` is a real number (None
    allowed for ``optional``); stored as float. ModelError naming the object and field."""
    bad = []
    for key in fields:
        value = getattr(obj, key)
        if value is None and key in optional:
            continue
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            text = repr(value)
            bad.append(f"{what} {obj.name!r}: {key} must be a number, got {type(value).__name__} {text[:60]}")
            continue
        object.__setattr__(obj, key, float(value))
    if bad:
        raise ModelError(bad)


@dataclass(frozen=True)
class Material:
    """Linear elastic material.

    E: Young's modulus; G: shear modulus (derived from ``nu`` when not given);
    nu: Poisson's ratio; rho: mass density (mass per volume).
    """

    E: float
    nu: Optional[float] = None
    G: Optional[float] = None
    rho: float = 0.0
    name: str = "material"

    def __post_init__(self) -> None:
        _check_numbers(self, "material", ("E", "nu", "G", "rho"), optional=("nu", "G"))

    @property
    def shear_modulus(self) -> Optional[float]:
        """G, or E/(2(1 + nu)) when only nu is given, or None."""
        if self.G is not None:
            return self.G
        if self.nu is not None:
            return self.E / (2.0 * (1.0 + self.nu))
        return None

    def problems(self) -> list[str]:
        """List of problems with the data (non-positive modulus, negative density ...)."""
        out = []
        if not (self.E > 0):
            out.append(f"material {self.name!r}: E must be > 0, got {self.E}")
        if self.rho < 0:
            out.append(f"material {self.name!r}: rho must be >= 0, got {self.rho}")
        if self.nu is not None and not (-1.0 < self.nu < 0.5):
            out.append(f"material {self.name!r}: nu must lie in (-1, 0.5), got {self.nu}")
        if self.G is not None and not (self.G > 0):
            out.append(f"material {self.name!r}: G must be > 0, got {self.G}")
        return out


@dataclass(frozen=True)
class Section:
    """Beam/bar cross-section, or shell section.

    A: area (bars and beams). thickness: shell thickness (shell elements; A may then be
    omitted). Iz: second moment about the section z axis (in-plane bending of 2-D beams).
    Iy: second moment about the section y axis. ``I`` sets both when they are equal.
    J: torsion constant. shear_factor: Timoshenko shear correction k (shear area k·A);
    None means shear-rigid. Ip: polar moment for rotary inertia about the beam axis
    (defaults to Iy + Iz). orientation: for 3-D beams, the direction of the section's
    local y axis in the reference configuration (default: e_Z × beam axis, or e_Y for
    vertical members). centroid, shear_centre: for 3-D beams, the (y, z) section
    coordinates of the centroid (where the axial force acts) and of the shear centre
    (about which the section twists and through which the shear forces pass) measured from
    the node line (length units; default (0, 0): both on the node line). The section is
    homogeneous: with a density its mass centre is the centroid, and its rotary inertia
    ρIp, ρIy, ρIz is about the centroid's axes; a centroid off the node line puts the
    mass centre there (3-D beams: the lumped mass only; see femb.elements.beam3d, and
    the direct values ``ym``, ``zm`` for a mass centre elsewhere).
    """

    A: Optional[float] = None
    I: Optional[float] = None
    Iy: Optional[float] = None
    Iz: Optional[float] = None
    J: Optional[float] = None
    shear_factor: Optional[float] = None
    Ip: Optional[float] = None
    orientation: Optional[tuple[float, float, float]] = None
    name: str = "section"
    thickness: Optional[float] = None
    centroid: Optional[tuple[float, float]] = None
    shear_centre: Optional[tuple[float, float]] = None

    def __post_init__(self) -> None:
        _check_numbers(self, "section", ("A", "I", "Iy", "Iz", "J", "shear_factor", "Ip"),
                       optional=("A", "I", "Iy", "Iz", "J", "shear_factor", "Ip"))  # a missing area: the element says it needs one

    @property
    def second_moment_z(self) -> Optional[float]:
        """Iz, or I when Iz is not given (in-plane bending of 2-D beams)."""
        return self.Iz if self.Iz is not None else self.I

    @property
    def second_moment_y(self) -> Optional[float]:
        """Iy, or I when Iy is not given."""
        return self.Iy if self.Iy is not None else self.I

    def problems(self) -> list[str]:
        """List of problems with the data (non-positive area or moments, bad orientation)."""
        out = []
        if self.A is None and self.thickness is None:
            out.append(f"section {self.name!r}: needs A (bars, beams) or thickness (shells)")
        if self.A is not None and not (self.A > 0):
            out.append(f"section {self.name!r}: A must be > 0, got {self.A}")
        if self.thickness is not None and not (self.thickness > 0):
            out.append(f"section {self.name!r}: thickness must be > 0, got {self.thickness}")
        if self.orientation is not None and (len(self.orientation) != 3 or not any(self.orientation)):
            out.append(f"section {self.name!r}: orientation must be a non-zero 3-vector, got {self.orientation}")
        for key in ("centroid", "shear_centre"):
            val = getattr(self, key)
            if val is not None and (len(val) != 2 or not all(isinstance(c, numbers.Real) and not isinstance(c, bool)
                                                              and math.isfinite(c) for c in val)):
                out.append(f"section {self.name!r}: {key} must be 2 finite numbers (y, z), got {val}")
        for key in ("I", "Iy", "Iz", "J", "Ip", "shear_factor"):
            val = getattr(self, key)
            if val is not None and not (val > 0):
                out.append(f"section {self.name!r}: {key} must be > 0, got {val}")
        return out
