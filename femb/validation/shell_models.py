"""Shell benchmark models (shell3 triangles or shell4 quadrilaterals) shared by the validation cases: the simply supported
square plate (pressure, vibration, buckling), the Sze–Liu–Lo cantilever strip, the
pinched cylinder with diaphragms, the pinched hemisphere with an 18° hole and the
MacNeal–Harder twisted beam. Each builder returns (mesh, model) in consistent units."""
import numpy as np

from femb.mesh import Mesh, cylinder_panel_mesh, pressure_nodal_loads, rectangle_mesh, sphere_patch_mesh
from femb.model import Material, Model, Section
from femb.solvers import NewtonSettings

# tiny (linear-range) loads sit near the residual round-off floor E·t·L·ε of thin shells:
# accept Newton's round-off fixed point
LINEAR_SETTINGS = NewtonSettings(tolerance=1e-7, increment_tolerance=1e-10)


def navier_center(terms=199):
    """w_c D/(q a⁴) of a simply supported square plate under uniform load (Navier)."""
    m = np.arange(1, terms + 1, 2)[:, None]
    n = np.arange(1, terms + 1, 2)[None, :]
    return float(16.0 / np.pi**6 * np.sum((-1.0) ** ((m + n) // 2 - 1) / (m * n * (m**2 + n**2) ** 2)))


CELLS = {"shell3": "triangle", "shell4": "quad"}


def ss_plate(n, E, nu, t, rho=0.0, a=1.0, in_plane="corners", element="shell3"):
    """Square plate a × a (n × n squares: two shell3 triangles or one shell4 quad each),
    uz = 0 on the boundary.
    in_plane: "corners" removes the in-plane rigid motions at two corners; "compression"
    holds x = 0 in x (and one corner in y) for a uniform N_x applied on x = a."""
    mesh = rectangle_mesh(a, a, n, n, cells=CELLS[element])
    model = Model(mesh)
    model.add_part("plate", element, "plate", Material(E=E, nu=nu, rho=rho), Section(thickness=t))
    model.fix("plate_boundary", ("uz",))
    if in_plane == "corners":
        model.fix("plate_c00", ("ux", "uy"))
        model.fix("plate_c10", ("uy",))
    else:
        model.fix("plate_x0", ("ux",))
        model.fix("plate_c00", ("uy",))
    return mesh, model


def add_pressure(mesh, model, q, cells="plate"):
    """Uniform dead pressure q on the triangles of ``cells`` as nodal forces."""
    F = pressure_nodal_loads(mesh, cells, q)
    for i in np.flatnonzero(np.abs(F).sum(axis=1)):
        model.point_load(int(i), fx=F[i, 0], fy=F[i, 1], fz=F[i, 2])


def add_edge_load(mesh, model, nodes, total, component):
    """``total`` force along ``component`` spread uniformly over the straight edge ``nodes``
    (equally spaced, ordered): half shares at the two ends."""
    nodes = mesh.node_sets[nodes]
    share = np.full(nodes.size, total / (nodes.size - 1))
    share[[0, -1]] *= 0.5
    for i, w in zip(nodes, share):
        model.point_load(int(i), **{component: float(w)})


def strip(nx, ny=1, L=10.0, b=1.0, t=0.1, E=1.2e6, nu=0.0, element="shell3"):
    """Cantilever strip along X clamped at x = 0 (Sze–Liu–Lo problems 1 and 2)."""
    mesh = rectangle_mesh(L, b, nx, ny, cells=CELLS[element])
    model = Model(mesh)
    model.add_part("strip", element, "plate", Material(E=E, nu=nu), Section(thickness=t))
    model.fix("plate_x0")
    return mesh, model


def pinched_cylinder(n, scale=1e3, element="shell3"):
    """Octant of the cylinder R = 300, L = 600, t = 3, E = 3e6, ν = 0.3 on diaphragms; the
    quarter load 0.25·scale radially inward at (L/2, 0, R) (node set "panel_c10")."""
    R, L = 300.0, 600.0
    mesh = cylinder_panel_mesh(R, L / 2, np.pi / 2, n, n, cells=CELLS[element])
    model = Model(mesh)
    model.add_part("shell", element, "panel", Material(E=3e6, nu=0.3), Section(thickness=3.0))
    model.fix("panel_x0", ("uy", "uz", "rx"))  # diaphragm
    model.fix("panel_x1", ("ux", "ry", "rz"))  # symmetry x = L/2
    model.fix("panel_t0", ("uy", "rx", "rz"))  # symmetry y = 0
    model.fix("panel_t1", ("uz", "rx", "ry"))  # symmetry z = 0
    model.point_load("panel_c10", fz=-0.25 * scale)
    return mesh, model


def pinched_hemisphere(n, scale=1e-3, element="shell3"):
    """Quarter of the hemisphere R = 10, t = 0.04, E = 6.825e7, ν = 0.3 with an 18° hole;
    radial loads ``scale`` outward at (R, 0, 0) ("sphere_c10") and inward at (0, R, 0)."""
    mesh = sphere_patch_mesh(10.0, (np.radians(18.0), np.pi / 2), (0.0, np.pi / 2), n, n, cells=CELLS[element])
    model = Model(mesh)
    model.add_part("shell", element, "sphere", Material(E=6.825e7, nu=0.3), Section(thickness=0.04))
    model.fix("sphere_a0", ("uy", "rx", "rz"))
    model.fix("sphere_a1", ("ux", "ry", "rz"))
    model.fix("sphere_c10", ("uz",))
    model.point_load("sphere_c10", fx=scale)
    model.point_load("sphere_c11", fy=-scale)
    return mesh, model


def twisted_beam(nx, ny, component, scale=1e-2, element="shell3"):
    """MacNeal–Harder twisted beam (L = 12, width 1.1, t = 0.32, 90° twist, E = 29e6,
    ν = 0.22), clamped, tip shear ``scale`` along ``component`` ("fy" or "fz")."""
    L, W = 12.0, 1.1
    flat = rectangle_mesh(L, W, nx, ny, origin=(0.0, -W / 2, 0.0), cells=CELLS[element])
    x, y = flat.points[:, 0], flat.points[:, 1]
    phi = 0.5 * np.pi * x / L
    mesh = Mesh(np.column_stack([x, y * np.cos(phi), y * np.sin(phi)]), dict(flat.cells), dict(flat.node_sets))
    model = Model(mesh)
    model.add_part("beam", element, "plate", Material(E=29e6, nu=0.22), Section(thickness=0.32))
    model.fix("plate_x0")
    add_edge_load(mesh, model, "plate_x1", scale, component)
    return mesh, model
