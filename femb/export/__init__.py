"""Export: ParaView collections (PVD/VTU), history CSV, run records, PNG pictures.

meshio, pyvista and matplotlib are imported inside the functions that need them.
"""
from femb.export.fields import FieldRecovery, recovery_for
from femb.export.history import jsonable, run_record, write_history_csv, write_run_json
from femb.export.modes import write_mode_animation, write_step_modes
from femb.export.render import RenderError, render_png, resolve_frame
from femb.export.surfaces import BeamSurfaces, SectionOutline, surfaces_for
from femb.export.vtk import (
    FrameStreamer,
    PVDWriter,
    read_pvd,
    results_to_vtk,
    superelement_to_vtk,
    write_superelement_frame,
    write_surface_frame,
    write_vtu_frame,
)

__all__ = [
    "FieldRecovery", "recovery_for", "write_vtu_frame", "PVDWriter", "FrameStreamer", "results_to_vtk",
    "read_pvd", "write_history_csv", "write_run_json", "run_record", "jsonable", "render_png",
    "resolve_frame", "RenderError", "write_mode_animation", "write_step_modes", "write_surface_frame", "write_superelement_frame",
    "superelement_to_vtk",
    "BeamSurfaces", "SectionOutline", "surfaces_for",
]
