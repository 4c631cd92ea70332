"""femb: finite-element flexible multibody dynamics.

A lazy facade (PEP 562): ``import femb`` is light (no numba compile, no meshio or pyvista);
names resolve to their modules on first use, e.g. ``femb.Model``, ``femb.solve_static``.
"""
import importlib

__version__ = "0.1.0"

_EXPORTS = {
    "Mesh": "femb.mesh",
    "line_mesh": "femb.mesh",
    "polyline_mesh": "femb.mesh",
    "read_mesh": "femb.mesh.io",
    "load_case": "femb.case",
    "Model": "femb.model",
    "Material": "femb.model",
    "Section": "femb.model",
    "build_table": "femb.correlation",
    "CorrelationTable": "femb.correlation",
    "Assembler": "femb.assembly",
    "Results": "femb.results",
    "solve_static": "femb.solvers",
    "solve_arclength": "femb.solvers",
    "solve_buckling": "femb.solvers",
    "NewtonSettings": "femb.solvers",
    "ArcLengthSettings": "femb.solvers",
    "solve_dynamic": "femb.solvers",
    "DynamicSettings": "femb.solvers",
    "Rayleigh": "femb.solvers",
    "FembError": "femb.core.errors",
    "InputError": "femb.core.errors",
    "ModelError": "femb.core.errors",
    "ConvergenceError": "femb.core.errors",
    "SingularSystemError": "femb.solvers",
}


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'femb' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_EXPORTS))


__all__ = ["__version__", *_EXPORTS]
