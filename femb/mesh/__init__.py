"""Meshes: points, cells and named sets, and structured generators."""
from femb.mesh.generators import cylinder_panel_mesh, line_mesh, polyline_mesh, pressure_nodal_loads, rectangle_mesh, sphere_patch_mesh
from femb.mesh.mesh import CellBlock, Mesh

__all__ = ["Mesh", "CellBlock", "line_mesh", "polyline_mesh", "rectangle_mesh", "cylinder_panel_mesh", "sphere_patch_mesh",
           "pressure_nodal_loads"]
