"""Roll-up of a 3-D cantilever into a full circle by an end moment M = 2πEI/L (beam3d).

The same cantilever along X (EIy = 2, EIz = 3, GJ = 1.5, EA = 1e7) is rolled up about
global Y (bending with EIy, tip leaving towards −Z) and about global Z (EIz, towards +Y),
each in 20 equal increments of a dead end moment. At every increment the tip position is
compared with the constant-curvature arc and the tip triad with exp(κL ê); the worst errors
over the path and both axes are kept. The rate is the fitted slope of log(error) against
log(h).
"""
import numpy as np

from femb.solvers import solve_static
from femb.validation.analytic import rollup_tip
from femb.validation.models import cantilever3d
from femb.validation.rollup import rollup_result

L, EIY, EIZ, GJ, EA = 1.0, 2.0, 3.0, 1.5, 1.0e7
STEPS = 20
AXES = {"my": (EIY, np.array([0.0, 1.0, 0.0])), "mz": (EIZ, np.array([0.0, 0.0, 1.0]))}


def _rotation_angle(A, B):
    """Angle [rad] of the rotation Aᵀ B."""
    c = 0.5 * (np.trace(A.T @ B) - 1.0)
    s = 0.5 * np.linalg.norm([(A.T @ B)[2, 1] - (A.T @ B)[1, 2], (A.T @ B)[0, 2] - (A.T @ B)[2, 0], (A.T @ B)[1, 0] - (A.T @ B)[0, 1]])
    return float(np.arctan2(s, c))


def _rodrigues(axis, angle):
    K = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.eye(3) + np.sin(angle) * K + (1.0 - np.cos(angle)) * K @ K


def path_errors(n, axis):
    """Worst tip-position error / L and tip-rotation error [rad] over the load path of an
    ``n``-element mesh rolled up about ``axis`` ("my" or "mz"), and the tip path (n_frames, 3)."""
    EI, bend = AXES[axis]
    model = cantilever3d(n, length=L, EIy=EIY, EIz=EIZ, GJ=GJ, EA=EA)
    moment = 2.0 * np.pi * EI / L
    model.point_load("beam_end", **{axis: moment})
    res = solve_static(model, steps=STEPS)
    tip = model.node("beam_end")
    kappa = np.asarray(res.times) * moment / EI
    xe, ye = rollup_tip(kappa, L)
    exact = np.outer(xe, [1.0, 0.0, 0.0]) + np.outer(ye, np.cross(bend, [1.0, 0.0, 0.0]))
    x = np.array([model.mesh.points[tip] + res.nodal_displacements(f)[tip] for f in range(len(res))])
    pos = float(np.max(np.linalg.norm(x - exact, axis=1))) / L
    rot = max(_rotation_angle(res.nodal_rotation_matrices(f)[tip], _rodrigues(bend, k * L)) for f, k in enumerate(kappa))
    return pos, rot, x


def run(quick, out_dir):
    """Tip errors over the load path on refined meshes (fewer when ``quick``): the result
    dict of the validation runner."""
    meshes = (4, 8, 16) if quick else (4, 8, 16, 32)
    errors, rot_errors, paths = [], [], {}
    for n in meshes:
        worst = 0.0
        for axis in AXES:
            pos, rot, x = path_errors(n, axis)
            worst = max(worst, pos)
            rot_errors.append(rot)
            paths[axis] = x
        errors.append(worst)
    return rollup_result(L, meshes, errors, rot_errors, out_dir, "3-D roll-up",
                         "max |tip - exact| / L over the path (both axes)", f"3-D roll-up: tip paths ({meshes[-1]} elements)",
                         "transverse / L", "exact arc",
                         [{"label": "about Y (−z)", "x": paths["my"][:, 0] / L, "y": -paths["my"][:, 2] / L, "style": "markers"},
                          {"label": "about Z (y)", "x": paths["mz"][:, 0] / L, "y": paths["mz"][:, 1] / L, "style": "markers"}])
