"""MacNeal–Harder pinched cylinder with rigid end diaphragms (shell3, linear range).

R = 300, L = 600, t = 3, E = 3e6, ν = 0.3; octant model, radial point loads P = 1 (load
scaled by 1e3 and the deflection divided back: linear range above the round-off floor).
"""
from femb.solvers import solve_static
from femb.validation.shell_models import LINEAR_SETTINGS, pinched_cylinder


def run(quick, out_dir):
    meshes = (8, 16) if quick else (8, 16, 32)
    values = []
    for n in meshes:
        mesh, model = pinched_cylinder(n, scale=1e3)
        res = solve_static(model, steps=1, settings=LINEAR_SETTINGS)
        values.append(-res.nodal_displacements()[mesh.node_sets["panel_c10"][0], 2] / 1e3)
    return {"metrics": {"deflection": values[-1], "ratio_coarse": values[0] / 1.8248e-5}}
