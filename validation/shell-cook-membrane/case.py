"""Cook's membrane (in-plane shear of a tapered cantilever) with shell3 and shell4 as
plane-stress membranes: vertical displacement of the mid-point of the loaded edge (the
point the reference 23.96 belongs to) and, reported only, of the top corner (48, 60).

Trapezoid (0, 0), (48, 44), (48, 60), (0, 44); E = 1, ν = 1/3, t = 1; left edge clamped;
a total shear F = 1 spread uniformly over the right edge (consistent nodal shares, half at
the two ends). The out-of-plane DOFs are held (a pure membrane problem). The load is
scaled by 1e-6 and the displacements divided back: the linear solution.
"""
import numpy as np

from femb.mesh import rectangle_mesh
from femb.model import Material, Model, Section
from femb.solvers import solve_static
from femb.validation.rates import fit_rate
from femb.validation.shell_models import LINEAR_SETTINGS, add_edge_load

REFERENCE = 23.96  # vertical displacement of the loaded edge's mid-point (48, 52)
SCALE = 1e-6
CELLS = {"shell3": "triangle", "shell4": "quad"}


def cook_membrane(n, element="shell4"):
    """(mesh, model) of Cook's membrane on n × n cells (shell4 quads or pairs of shell3
    triangles), the unit square mapped onto the trapezoid."""
    mesh = rectangle_mesh(1.0, 1.0, n, n, cells=CELLS[element])
    xi, eta = mesh.points[:, 0].copy(), mesh.points[:, 1].copy()
    mesh.points[:, 0] = 48.0 * xi
    mesh.points[:, 1] = 44.0 * xi + eta * (44.0 - 28.0 * xi)
    model = Model(mesh)
    model.add_part("plate", element, "plate", Material(E=1.0, nu=1.0 / 3.0), Section(thickness=1.0))
    model.fix("plate_x0", ("ux", "uy", "rz"))
    model.fix("plate_nodes", ("uz", "rx", "ry"))
    add_edge_load(mesh, model, "plate_x1", SCALE, "fy")
    return mesh, model


def edge_displacements(n, element):
    """(v at the mid-point (48, 52), v at the top corner (48, 60)) for F = 1."""
    mesh, model = cook_membrane(n, element)
    res = solve_static(model, steps=1, settings=LINEAR_SETTINGS)
    edge = mesh.node_sets["plate_x1"]  # ordered bottom to top, n + 1 nodes
    v = res.nodal_displacements()[edge, 1] / SCALE
    return float(v[n // 2]), float(v[-1])


def richardson(values):
    """Limit of the last three values of a series halving h (observed order)."""
    a, b, c = values[-3:]
    q = (c - b) / (b - a)
    return c + (c - b) * q / (1.0 - q)


def run(quick, out_dir):
    """Metrics on 8, 16, 32 (, 64) cells per side; see reference.json."""
    meshes = (8, 16, 32) if quick else (8, 16, 32, 64)
    elements = ("shell4",) if quick else ("shell4", "shell3")
    metrics, curves = {}, []
    for element in elements:
        tag = "" if element == "shell4" else "_shell3"
        mid, top = zip(*(edge_displacements(n, element) for n in meshes))
        metrics["v_mid" + tag] = mid[-1]
        metrics["v_mid_extrapolated" + tag] = richardson(mid)
        metrics["v_top_corner" + tag] = top[-1]
        metrics["v_top_corner_extrapolated" + tag] = richardson(top)
        curves.append((element, mid))
    h = 1.0 / np.asarray(meshes, dtype=float)
    errors = np.abs(np.asarray(curves[0][1]) / REFERENCE - 1.0)
    rate, _ = fit_rate(h, errors)
    metrics["rate"] = rate
    return {"metrics": metrics,
            "series": {"convergence": {"h": h, "error": errors, "rate": rate, "xlabel": "h (cells per side⁻¹)",
                                       "ylabel": "|v_mid / 23.96 − 1|", "title": "Cook's membrane (shell4)"}}}
