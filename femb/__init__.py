"""femb: finite-element flexible multibody dynamics.

A lazy facade (PEP 562): ``import femb`` is light (no numba compile, no meshio or pyvista);
names resolve to their modules on first use, e.g. ``femb.Model``, ``femb.solve_static``.
Every name a user needs to build a model, run an analysis and write its results is here
(``femb.__all__``; docs/api.md lists where each lives). The element catalogue is
``femb.elements`` (``available()``, ``get_spec(name)``), the case-file machinery
``femb.case``, the benchmark runner ``femb.validation``.
"""
import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it (imported on first access)
_EXPORTS = {
    # meshes
    "Mesh": "femb.mesh",
    "CellBlock": "femb.mesh",
    "line_mesh": "femb.mesh",
    "polyline_mesh": "femb.mesh",
    "rectangle_mesh": "femb.mesh",
    "cylinder_panel_mesh": "femb.mesh",
    "sphere_patch_mesh": "femb.mesh",
    "pressure_nodal_loads": "femb.mesh",
    "read_mesh": "femb.mesh.io",
    "write_mesh": "femb.mesh.io",
    "floating_cells": "femb.elements.floating_beam2d",
    # models
    "Model": "femb.model",
    "Part": "femb.model",
    "SuperelementData": "femb.model",
    "Material": "femb.model",
    "Section": "femb.model",
    "build_table": "femb.correlation",
    "CorrelationTable": "femb.correlation",
    "Assembler": "femb.assembly",
    # case files
    "load_case": "femb.case",
    "run_case": "femb.case",
    "Case": "femb.case",
    # statics, stability
    "solve_static": "femb.solvers",
    "solve_arclength": "femb.solvers",
    "solve_buckling": "femb.solvers",
    "critical_load_on_path": "femb.solvers",
    "NewtonSettings": "femb.solvers",
    "ArcLengthSettings": "femb.solvers",
    "BucklingResult": "femb.solvers",
    "PathBucklingResult": "femb.solvers",
    "StaticProblem": "femb.solvers",
    # eigen analyses and linearization
    "solve_modal": "femb.solvers",
    "frequencies_along_path": "femb.solvers",
    "ModalResult": "femb.solvers",
    "solve_complex_modes": "femb.solvers",
    "ComplexModes": "femb.solvers",
    "steady_spin": "femb.solvers",
    "campbell": "femb.solvers",
    "SteadySpin": "femb.solvers",
    "linearize": "femb.solvers",
    "LinearModel": "femb.solvers",
    # component reduction and structural modification (docs/reduction.md)
    "reduce_component": "femb.solvers.reduction.component",
    "craig_bampton": "femb.solvers.reduction.craig_bampton",
    "CraigBampton": "femb.solvers.reduction.craig_bampton",
    "reduce_matrix_files": "femb.solvers.reduction.matrix_files",
    "component_matrices": "femb.solvers.reduction.substructures",
    "model_matrices": "femb.solvers.reduction.substructures",
    "ComponentModeSynthesis": "femb.solvers.reduction.free_interface",
    "StructuralModification": "femb.solvers.reduction.modification",
    # dynamics
    "solve_dynamic": "femb.solvers",
    "DynamicSettings": "femb.solvers",
    "Rayleigh": "femb.solvers",
    "MidPoint": "femb.solvers",
    "Newmark": "femb.solvers",
    "HHT": "femb.solvers",
    "GeneralizedAlpha": "femb.solvers",
    # results and writers
    "Results": "femb.results",
    "superelement_positions": "femb.results",
    "superelement_resultants": "femb.results",
    "superelement_stress_modes": "femb.results",
    "SuperelementStressModes": "femb.results",
    "results_to_vtk": "femb.export",
    "write_vtu_frame": "femb.export",
    "write_superelement_frame": "femb.export",
    "superelement_to_vtk": "femb.export",
    "PVDWriter": "femb.export",
    "read_pvd": "femb.export",
    "write_history_csv": "femb.export",
    "write_run_json": "femb.export",
    "write_mode_animation": "femb.export.modes",
    "render_png": "femb.export",
    "SectionOutline": "femb.export",
    # errors
    "FembError": "femb.core.errors",
    "InputError": "femb.core.errors",
    "ModelError": "femb.core.errors",
    "ConvergenceError": "femb.core.errors",
    "SingularSystemError": "femb.solvers",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'femb' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_EXPORTS))


__all__ = ["__version__", *_EXPORTS]
