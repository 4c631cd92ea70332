"""Meshes: points, cells and named sets, and structured generators."""
from femb.mesh.mesh import Mesh, CellBlock
from femb.mesh.generators import line_mesh, polyline_mesh

__all__ = ["Mesh", "CellBlock", "line_mesh", "polyline_mesh"]
