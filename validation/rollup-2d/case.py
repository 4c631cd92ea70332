"""Roll-up of a cantilever into a full circle under an end moment M = 2πEI/L (beam2d).

Each mesh follows the load path in 20 equal increments; the tip position is compared with
the constant-curvature elastica at every increment and the worst error is kept. The rate
is the fitted slope of log(error) against log(h).
"""
import numpy as np

from femb.solvers import solve_static
from femb.validation.analytic import rollup_tip
from femb.validation.models import cantilever
from femb.validation.rollup import rollup_result

L, EI, EA = 1.0, 1.0, 1.0e7
STEPS = 20


def path_errors(n):
    """Worst tip-position error / L and worst tip-rotation error over the load path of an
    ``n``-element mesh, plus the computed tip path (x, y)."""
    model = cantilever(n, length=L, EI=EI, EA=EA)
    moment = 2.0 * np.pi * EI / L
    model.point_load("beam_end", mz=moment)
    res = solve_static(model, steps=STEPS)
    tip = model.node("beam_end")
    kappa = np.asarray(res.times) * moment / EI
    x, y = L + res.dof(tip, "ux"), res.dof(tip, "uy")
    xe, ye = rollup_tip(kappa, L)
    pos = np.max(np.hypot(x - xe, y - ye)) / L
    rot = np.max(np.abs(res.dof(tip, "rz") - kappa * L))
    return pos, rot, x, y


def run(quick, out_dir):
    """Tip errors over the load path on refined meshes (fewer when ``quick``): the result
    dict of the validation runner."""
    meshes = (5, 10, 20) if quick else (5, 10, 20, 40)
    errors, rot_errors, paths = [], [], []
    for n in meshes:
        pos, rot, x, y = path_errors(n)
        errors.append(pos)
        rot_errors.append(rot)
        paths.append((x, y))
    return rollup_result(L, meshes, errors, rot_errors, out_dir, "roll-up", "max |tip - exact| / L over the path",
                         f"roll-up: tip path ({meshes[-1]} elements)", "y / L", "elastica",
                         [{"label": f"femb, {meshes[-1]} elements", "x": paths[-1][0] / L, "y": paths[-1][1] / L,
                           "style": "markers"}])
