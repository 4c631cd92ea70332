"""Meshes: points, cells and named sets, and structured generators."""
from femb.mesh.generators import line_mesh, polyline_mesh
from femb.mesh.mesh import CellBlock, Mesh

__all__ = ["Mesh", "CellBlock", "line_mesh", "polyline_mesh"]
