"""Sze, Liu & Lo cantilever strip under end shear (shell3, geometrically nonlinear).

L = 10, b = 1, h = 0.1, E = 1.2e6, ν = 0, clamped at x = 0, dead tip shear P_max = 4
spread along the tip edge, 10 equal increments; the mean tip deflection W and shortening
−U are compared with the paper's table at every increment.
"""
import numpy as np

from femb.solvers import NewtonSettings, solve_static
from femb.validation.shell_models import add_edge_load, strip

W_REF = [1.309, 2.493, 3.488, 4.292, 4.933, 5.444, 5.855, 6.190, 6.467, 6.698]
U_REF = [0.103, 0.381, 0.763, 1.184, 1.604, 2.002, 2.370, 2.705, 3.010, 3.286]


def _path(nx, ny, element):
    mesh, model = strip(nx, ny, element=element)
    add_edge_load(mesh, model, "plate_x1", 4.0, "fz")
    lams = np.linspace(0.1, 1.0, 10)
    res = solve_static(model, load_factors=lams, settings=NewtonSettings(tolerance=1e-8))
    times = np.asarray(res.times)
    tip = mesh.node_sets["plate_x1"]
    W, U = [], []
    for lam in lams:
        d = res.nodal_displacements(int(np.argmin(np.abs(times - lam))))[tip].mean(axis=0)
        W.append(d[2])
        U.append(-d[0])
    W, U = np.asarray(W), np.asarray(U)
    path = float(max(np.abs(W / W_REF - 1).max(), np.abs(U / U_REF - 1).max()))
    return W, U, path, float(res.info["newton_iterations"])


def run(quick, out_dir):
    nx, ny = (16, 1) if quick else (32, 2)
    lams = np.linspace(0.1, 1.0, 10)
    W, U, path, iters = _path(nx, ny, "shell3")
    W4, U4, path4, iters4 = _path(nx, ny, "shell4")
    return {"metrics": {"W_max": W[-1], "U_max": U[-1], "path_error": path, "newton_iterations": iters,
                        "W_max_shell4": W4[-1], "U_max_shell4": U4[-1], "path_error_shell4": path4,
                        "newton_iterations_shell4": iters4},
            "series": {"history": {"t": lams, "values": {"W (femb)": W, "W (Sze)": np.asarray(W_REF),
                                                         "−U (femb)": U, "−U (Sze)": np.asarray(U_REF)},
                                   "xlabel": "P / P_max", "ylabel": "tip displacement",
                                   "title": "Sze cantilever under end shear (shell3)"}}}
