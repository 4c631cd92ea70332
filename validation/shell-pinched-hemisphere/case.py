"""MacNeal–Harder pinched hemisphere with an 18° hole (shell3, linear range).

R = 10, t = 0.04, E = 6.825e7, ν = 0.3; quarter model, unit radial loads alternating in
sign at the equator (scaled by 1e-3 and divided back); radial deflection at a load point.
"""
from femb.solvers import solve_static
from femb.validation.shell_models import LINEAR_SETTINGS, pinched_hemisphere


def run(quick, out_dir):
    meshes = (16, 32) if quick else (16, 32, 48)
    values = []
    for n in meshes:
        mesh, model = pinched_hemisphere(n, scale=1e-3)
        res = solve_static(model, steps=1, settings=LINEAR_SETTINGS)
        values.append(res.nodal_displacements()[mesh.node_sets["sphere_c10"][0], 0] / 1e-3)
    mesh, model = pinched_hemisphere(meshes[-1], scale=1e-3, element="shell4")
    res = solve_static(model, steps=1, settings=LINEAR_SETTINGS)
    q4 = res.nodal_displacements()[mesh.node_sets["sphere_c10"][0], 0] / 1e-3
    return {"metrics": {"deflection": values[-1], "ratio_16": values[0] / 0.0924, "deflection_shell4": q4}}
