"""Helix formed by a dead end moment with a torsional component (beam3d).

An isotropic cantilever along X (L = 1, EIy = EIz = EI = 2, EA = 1e7) is loaded by a dead
end moment M = 2πEI/L (0.6, 0, 0.8) in 16 equal increments, once with GJ = EI and once with
GJ = 1.3 ≠ EI. With no force the internal moment is M everywhere; the spatial curvature is
κ = M/EI + c t with c = (M·t)(1/GJ − 1/EI) (t the tangent), so the tangent precesses about M
at the rate |M|/EI (a circular helix about M for any GJ) and the triads are
R(s) = exp(s M̂/EI) exp(s c ê_X). This closed form is checked in every run against the
Cosserat-rod equations R′ = κ̂ R, x′ = R e_X, m = R C Rᵀ κ = M, integrated by scipy to 1e-12.

The rates are judged against theory. beam3d's strains (Meijaard 1993, eq. 16) are the
co-rotational local rotations θ̄ with their *second-order* bending–torsion terms; on an
element of constant material curvature k (end rotations O(kh)) the truncated third-order
terms leave each strain O(h³) off its exact value (the twist ρ2 against the exact relative
twist log(Q1ᵀQ2)·e1 = h k_x, the bending measures against h k_y/2, h k_z/2), i.e. a
relative strain error O(h²). With GJ = EI the section is isotropic, V = ½ EI|k|² h depends
only on the invariant |k| of the relative rotation, and the third-order errors of twist and
bending cancel in V (element energy error O(h⁴)): rate 4 as the roll-up. With GJ ≠ EI they
do not: element energy error O(h²) and nodal error O(h²) — rate 2 is what the
second-order strains must give. The element-level energy defects are computed here with
the element's own strain-energy kernel on exactly curved elements (metrics
``element_energy_rate_*``).
"""
import numpy as np
from scipy.integrate import quad_vec, solve_ivp
from scipy.spatial.transform import Rotation

from femb.elements import beam3d
from femb.solvers import solve_static
from femb.validation.models import cantilever3d
from femb.validation.rates import fit_rate

L, EI, EA = 1.0, 2.0, 1.0e7
GJ_EQUAL, GJ_UNEQUAL = 2.0, 1.3
DIRECTION = np.array([0.6, 0.0, 0.8])
STEPS = 16
E_X = np.array([1.0, 0.0, 0.0])


def _expm(v):
    return Rotation.from_rotvec(v).as_matrix()


def helix(M, GJ, s):
    """Closed-form nodal positions (n, 3) and triads (n, 3, 3) under the dead end moment M."""
    m = np.linalg.norm(M)
    axis, phi = M / m, m / EI
    perp = E_X - (E_X @ axis) * axis
    x = ((E_X @ axis) * axis * s[:, None] + (np.sin(phi * s) / phi)[:, None] * perp
         + ((1.0 - np.cos(phi * s)) / phi)[:, None] * np.cross(axis, perp))
    c = (M @ E_X) * (1.0 / GJ - 1.0 / EI)
    R = np.array([_expm(si * M / EI) @ _expm(si * c * E_X) for si in s])
    return x, R


def cosserat(M, GJ, s):
    """Independent reference: the rod equations integrated by scipy (DOP853, rtol 1e-12)."""
    Cinv = np.diag([1.0 / GJ, 1.0 / EI, 1.0 / EI])

    def rhs(_, y):
        R = y[3:].reshape(3, 3)
        kappa = R @ Cinv @ R.T @ M  # spatial curvature from m = R C Rᵀ κ = M
        K = np.array([[0.0, -kappa[2], kappa[1]], [kappa[2], 0.0, -kappa[0]], [-kappa[1], kappa[0], 0.0]])
        return np.concatenate([R[:, 0], (K @ R).ravel()])

    sol = solve_ivp(rhs, (0.0, s[-1]), np.concatenate([np.zeros(3), np.eye(3).ravel()]), method="DOP853",
                    t_eval=s, rtol=1e-12, atol=1e-14)
    return sol.y[:3].T, sol.y[3:].T.reshape(-1, 3, 3)


def helix_errors(n, GJ):
    """Worst nodal position error / L and triad error over all nodes and the load path."""
    model = cantilever3d(n, length=L, EIy=EI, EIz=EI, GJ=GJ, EA=EA)
    M = 2.0 * np.pi * EI / L * DIRECTION
    model.point_load("beam_end", mx=M[0], my=M[1], mz=M[2])
    res = solve_static(model, steps=STEPS)
    s = model.mesh.points[:, 0]
    pos = rot = 0.0
    for f in range(1, len(res)):
        x, R = helix(res.times[f] * M, GJ, s)
        pos = max(pos, float(np.abs(model.mesh.points + res.nodal_displacements(f) - x).max()) / L)
        rot = max(rot, float(np.abs(res.nodal_rotation_matrices(f) - R).max()))
    return pos, rot, model.mesh.points + res.nodal_displacements(len(res) - 1)


def element_energy_defect(h, GJ, k=(0.5, 0.6, 0.8)):
    """Relative strain-energy error of one beam3d element whose nodes and triads lie exactly
    on a rod of constant material curvature k (exact energy ½ h kᵀ diag(GJ, EI, EI) k).
    EA = 0: the axial strain's own O(h⁵) arc-length defect (rollup-3d) is left out, only the
    bending and twist strains count."""
    k = np.asarray(k)
    x2 = quad_vec(lambda t: _expm(t * k)[:, 0], 0.0, h, epsabs=1e-15, epsrel=1e-14)[0]
    X = np.array([[[0.0, 0.0, 0.0], [h, 0.0, 0.0]]])
    u = np.zeros((1, 12))
    u[0, 6:9] = x2 - [h, 0.0, 0.0]
    R = np.array([[np.eye(3), _expm(h * k)]])
    p = np.array([[0.0, GJ, EI, EI, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]])
    en = np.zeros(1)
    beam3d.strain_energy(X, u, R, p, en)
    exact = 0.5 * h * k @ np.diag([GJ, EI, EI]) @ k
    return abs(en[0] - exact) / exact


def run(quick, out_dir):
    meshes = (8, 16, 32) if quick else (8, 16, 32, 64)
    h = L / np.asarray(meshes, dtype=float)
    metrics, series, shapes = {}, {}, {}
    for tag, GJ in (("equal", GJ_EQUAL), ("unequal", GJ_UNEQUAL)):
        errs, rots = [], []
        for n in meshes:
            pos, rot, shapes[tag] = helix_errors(n, GJ)
            errs.append(pos)
            rots.append(rot)
        metrics[f"error_over_L_{tag}"] = errs[-1]
        metrics[f"rate_{tag}"] = fit_rate(h, errs)[0]
        metrics[f"rotation_rate_{tag}"] = fit_rate(h, rots)[0]
        series[f"convergence_{tag}"] = {"h": h, "error": errs, "rate": metrics[f"rate_{tag}"], "xlabel": "h / L",
                                        "ylabel": "max nodal |x - exact| / L over the path",
                                        "title": f"helix, GJ = {GJ:g}, EI = {EI:g}: nodal error"}
        np.savetxt(out_dir / f"convergence_{tag}.csv", np.column_stack([meshes, h, errs, rots]), delimiter=",",
                   header="n_elements,h,max_position_error_over_L,max_triad_error", comments="")
        he = np.array([0.2, 0.1, 0.05])
        metrics[f"element_energy_rate_{tag}"] = fit_rate(he, [element_energy_defect(x, GJ) for x in he])[0]
    s = np.linspace(0.0, L, 33)
    check = 0.0
    for GJ in (GJ_EQUAL, GJ_UNEQUAL):
        M = 2.0 * np.pi * EI / L * DIRECTION
        xc, Rc = helix(M, GJ, s)
        xo, Ro = cosserat(M, GJ, s)
        check = max(check, float(np.abs(xc - xo).max()), float(np.abs(Rc - Ro).max()))
    metrics["reference_check"] = check
    xe, _ = helix(2.0 * np.pi * EI / L * DIRECTION, GJ_UNEQUAL, np.linspace(0.0, L, 400))
    series["history_shape"] = {
        "title": f"helix, final shape ({meshes[-1]} elements), projected on the XY plane", "xlabel": "x / L",
        "ylabel": "y / L", "curves": [
            {"label": "exact helix", "x": xe[:, 0] / L, "y": xe[:, 1] / L, "style": "line"},
            {"label": "GJ = EI", "x": shapes["equal"][:, 0] / L, "y": shapes["equal"][:, 1] / L, "style": "markers"},
            {"label": "GJ ≠ EI", "x": shapes["unequal"][:, 0] / L, "y": shapes["unequal"][:, 1] / L,
             "style": "markers"}]}
    return {"metrics": metrics, "series": series}
