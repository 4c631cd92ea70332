"""MacNeal–Harder twisted beam (shell3, linear range): tip deflection under a unit tip
shear along the tip's normal (global Y) and along the tip's width (global Z)."""
from femb.solvers import solve_static
from femb.validation.shell_models import LINEAR_SETTINGS, twisted_beam


def run(quick, out_dir):
    nx, ny = (24, 4) if quick else (48, 8)
    out = {}
    for element, tag in (("shell3", ""), ("shell4", "_shell4")):
        for comp, k, name in (("fy", 1, "out_of_plane"), ("fz", 2, "in_plane")):
            mesh, model = twisted_beam(nx, ny, comp, scale=1e-2, element=element)
            res = solve_static(model, steps=1, settings=LINEAR_SETTINGS)
            out[name + tag] = res.nodal_displacements()[mesh.node_sets["plate_x1"]].mean(axis=0)[k] / 1e-2
    return {"metrics": out}
