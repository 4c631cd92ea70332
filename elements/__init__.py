"""femb's element library (imported as ``femb.elements``).

``get_spec(name)`` returns the ElementSpec of an element type; ``available()`` lists them.
Element modules are imported on first use so that ``import femb`` stays light.
"""
import importlib

from .base import CONSISTENT, INVARIANT, LUMPED, MASS_KINDS, ElementKernels, ElementSpec

# element name -> module (relative to this package) that defines it
_REGISTRY = {
    "truss2d": "truss",
    "truss3d": "truss",
    "truss2d_green": "truss",
    "truss3d_green": "truss",
    "beam2d": "beam2d",
    "beam2d_timoshenko": "beam2d",
    "beam3d": "beam3d",
    "beam3d_timoshenko": "beam3d",
    "shell3": "shell3",
    "shell4": "shell4",
    "point_mass2d": "masses",
    "point_mass2d_translational": "masses",
    "point_mass3d": "masses",
    "rigid_body2d": "masses",
    "rigid_body3d": "masses",
    "rigid_body2d_offset": "masses",
    "spring2d": "translational_springs",
    "spring3d": "translational_springs",
    "bushing2d": "translational_springs",
    "bushing3d": "translational_springs",
    "rotational_spring2d": "rotational_springs2d",
    "rotational_spring2d_ground": "rotational_springs2d",
    "rotational_spring3d": "rotational_springs3d",
    "rotational_spring3d_ground": "rotational_springs3d",
    "rigid_link2d": "rigid_link2d",
    "beam2d_floating": "floating_beam2d",
    "beam2d_floating_timoshenko": "floating_beam2d",
}


def available():
    """Names of all registered element types (superelement types, one per size, are named
    ``superelement_<n>n_<k>q`` and made on demand: ``get_spec`` knows them)."""
    return sorted(_REGISTRY)


def get_spec(name):
    """The ElementSpec called ``name``; raises KeyError naming the known types.
    ``superelement_<n>n_<k>q`` is the co-rotated Craig–Bampton superelement with n boundary
    nodes and k modal amplitudes (elements.superelement)."""
    if isinstance(name, str) and name.startswith("superelement_"):
        from .superelement import spec_from_name

        spec = spec_from_name(name)
        if spec is not None:
            return spec
    try:
        module_name = _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown element type {name!r}; known types: {', '.join(available())}") from None
    module = importlib.import_module(f".{module_name}", __name__)
    return module.SPECS[name]


__all__ = ["available", "get_spec", "ElementSpec", "ElementKernels", "LUMPED", "CONSISTENT", "INVARIANT", "MASS_KINDS"]
