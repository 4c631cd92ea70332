"""Co-rotational quadrilateral shell ``shell4``: membrane with drilling rotations from four
overlapping ANDES-OPT triangles + MITC4 (Bathe–Dvorkin) shear-deformable bending, in the
element-independent co-rotational frame of elements/shell_eicr.py (warped quadrilaterals
allowed).

Four nodes (counter-clockwise), DOFs (ux, uy, uz, rx, ry, rz) per node; *oriented* like
beam3d and shell3 (kernels take the nodal rotations R (n_el, 4, 3, 3); rotational entries
of f are moments conjugate to spatial spins; K is the exact derivative).

Frame: e1 along the diagonal 1→3, e3 ∥ (x3 − x1) × (x4 − x2) (the mean plane of a warped
quadrilateral), e2 = e3 × e1; local deformational DOFs ū_k = E (x_k − x_c) − E0 (X_k − X_c)
(ū_z is the change of warping) and θ̄_k = log(E R_k E0ᵀ). The local element lives on the
projection P_k = E0 (X_k − X_c) (x, y) of the reference nodes on the mean plane:

- membrane (ū_x, ū_y, θ̄_z per node): ½ Σ of the ANDES-OPT stiffness of the four triangles
  obtained by omitting one node each (each diagonal split covers the quadrilateral once):
  passes the membrane patch test, drills tied to the membrane rotation (never penalised
  toward zero), 3 rigid modes only. Constant membrane strain ε̄ = area-weighted mean of the
  four triangles' constant strains.
- bending and transverse shear (ū_z, θ̄_x, θ̄_y per node): MITC4. Slopes ψ = (−θ_y, θ_x)
  bilinear, curvatures κ = (ψx,x, ψy,y, ψx,y + ψy,x), D = E t³/(12(1 − ν²)); transverse shear
  γ = ∇w − ψ with the covariant components γ_ξ tied at the mid-points of the sides η = ±1,
  γ_η at ξ = ±1 and interpolated linearly (no shear locking in the thin limit), shear
  rigidity k G t, k = 5/6; 2 × 2 Gauss points.
- the averaged von Kármán membrane strain of the local slopes ε_vk = (1/2A)(∫ψx², ∫ψy²,
  ∫2ψxψy) completes the constant-stress membrane energy exactly as in shell3 (local
  membrane-stress geometric stiffness ∫ψᵀNψ dA for buckling; no spurious membrane force in
  bending).

Resultants (element frame; force/length, moment/length): Nxx, Nyy, Nxy (constant membrane
force, incl. ε_vk), Mxx, Myy, Mxy and the transverse shear forces Qx, Qy at the centre,
then the 24 local generalized forces f1x, f1y, f1z, m1x, m1y, m1z, …, m4z (what
``geometric_stiffness`` needs; it is linear in the resultants).

Mass (constant for every kind): translations ρtA/4 per node (lumped) or the consistent
bilinear ∫ρt NᵢNⱼ dA (kinds 1 and 2); isotropic nodal rotary inertia ρt³A/48 (the bending
value ρt³/12 per area, also on the drill axis).

Properties: E, nu, t, rho as for shell3 (``properties(material, section)``).

Energy-conserving dynamics: ``midpoint_force`` (the oriented ``midpoint_force`` kernel,
signature ``(X, u0, R0, u1, R1, um, Rm, psi, D, p, f, K)``) is a discrete gradient in the
invariants of elements/shell_midpoint.py evaluated with this element's own energy, force
and exact tangent; the rotary/drilling inertia is isotropic, hence constant, and the 3-D
mid-point step integrates it by Simo–Wong's rule (femb.solvers.dynamics.midpoint3d).
"""

import numpy as np

from femb.core import jit
from femb.core.rotations import left_jacobian_inverse

from . import shell_midpoint as _mid
from .base import CONSISTENT, INVARIANT, LUMPED, CellWarning, ElementKernels, ElementSpec
from .shell3 import properties as _properties_shell3
from .shell_eicr import frame, geometric_local, kinematics, local_force, material_part, rotate_out, variation
from .shell_local import ben_slot, local_state, membrane, membrane_bending_resultants, stress_state

N_RES = 32
_XI = (-1.0, 1.0, 1.0, -1.0)
_ETA = (-1.0, -1.0, 1.0, 1.0)
_G = 0.5773502691896257  # 1/√3
_SHEAR_FACTOR = 5.0 / 6.0


@jit(internal=True)
def _shapes(xi, eta, P, N, dN, J):
    """Bilinear N (4,), Cartesian derivatives dN (4, 2) at (ξ, η) and the Jacobian
    J (2, 2) = [[x,ξ, y,ξ], [x,η, y,η]] on node coordinates P; returns det J."""
    for k in range(4):
        N[k] = 0.25 * (1.0 + _XI[k] * xi) * (1.0 + _ETA[k] * eta)
    J[0, 0] = J[0, 1] = J[1, 0] = J[1, 1] = 0.0
    for k in range(4):
        dxi = 0.25 * _XI[k] * (1.0 + _ETA[k] * eta)
        deta = 0.25 * _ETA[k] * (1.0 + _XI[k] * xi)
        J[0, 0] += dxi * P[k, 0]
        J[0, 1] += dxi * P[k, 1]
        J[1, 0] += deta * P[k, 0]
        J[1, 1] += deta * P[k, 1]
        dN[k, 0] = dxi  # natural derivatives for now
        dN[k, 1] = deta
    det = J[0, 0] * J[1, 1] - J[0, 1] * J[1, 0]
    for k in range(4):
        a, b = dN[k, 0], dN[k, 1]
        dN[k, 0] = (J[1, 1] * a - J[0, 1] * b) / det
        dN[k, 1] = (-J[1, 0] * a + J[0, 0] * b) / det
    return det


@jit(internal=True)
def _covariant_shear(xi, eta, P, N, dN, J, which, row):
    """row (12,): covariant transverse shear γ_ξ (which 0) or γ_η (which 1) at (ξ, η) over
    (w, θx, θy) per node: ∂w/∂ξ − ψ·∂x/∂ξ with ψ = (−θy, θx)."""
    _shapes(xi, eta, P, N, dN, J)
    for k in range(4):
        dnat = 0.25 * _XI[k] * (1.0 + _ETA[k] * eta) if which == 0 else 0.25 * _ETA[k] * (1.0 + _XI[k] * xi)
        row[3 * k] = dnat
        row[3 * k + 1] = -N[k] * J[which, 1]
        row[3 * k + 2] = N[k] * J[which, 0]


@jit(internal=True)
def _mitc4_operators(xi, eta, P, N, dN, J, tie, Bk, Bs):
    """Curvature Bk (3, 12) and assumed Cartesian shear Bs (2, 12) at (ξ, η); tie (4, 12)
    holds the covariant shear rows at B (0, −1), D (0, 1) [γ_ξ] and A (−1, 0), C (1, 0)
    [γ_η]. Returns det J."""
    det = _shapes(xi, eta, P, N, dN, J)
    for j in range(12):
        Bk[0, j] = 0.0
        Bk[1, j] = 0.0
        Bk[2, j] = 0.0
    for k in range(4):
        Bk[0, 3 * k + 2] = -dN[k, 0]
        Bk[1, 3 * k + 1] = dN[k, 1]
        Bk[2, 3 * k + 2] = -dN[k, 1]
        Bk[2, 3 * k + 1] = dN[k, 0]
    # γ = J⁻¹ (γ̃_ξ, γ̃_η)
    i00 = J[1, 1] / det
    i01 = -J[0, 1] / det
    i10 = -J[1, 0] / det
    i11 = J[0, 0] / det
    for j in range(12):
        gx = 0.5 * (1.0 - eta) * tie[0, j] + 0.5 * (1.0 + eta) * tie[1, j]
        ge = 0.5 * (1.0 - xi) * tie[2, j] + 0.5 * (1.0 + xi) * tie[3, j]
        Bs[0, j] = i00 * gx + i01 * ge
        Bs[1, j] = i10 * gx + i11 * ge
    return det


@jit(internal=True)
def _local_matrices(p, e, P, Km, CN, DN, Kb, S3, Bc, Bq, Db, ws):
    """Local matrices of quadrilateral e on P (4, 3): membrane Km (12, 12), CN (3, 12), DN;
    bending+shear Kb (12, 12), slope integrals S3 (3, 12, 12), centre curvature Bc (3, 12)
    and shear Bq (2, 12), bending rigidity Db (3, 3). Returns the area (≤ 0: invalid)."""
    Em, nu, t = p[e, 0], p[e, 1], p[e, 2]
    M3, L93, Q333, T39, Kt9, CNt, Pt, N, dN, J, tie, Bk, Bs, row = ws
    for i in range(12):
        for j in range(12):
            Km[i, j] = 0.0
            Kb[i, j] = 0.0
            for k in range(3):
                S3[k, i, j] = 0.0
        for k in range(3):
            CN[k, i] = 0.0
    total = 0.0
    for o in range(4):
        for a in range(3):
            for c in range(3):
                Pt[a, c] = P[(o + 1 + a) % 4, c]
        At = membrane(Pt, Em, nu, t, Kt9, CNt, DN, M3, L93, Q333, T39)
        if At <= 0.0:
            return At
        total += At
        for a in range(3):
            na = (o + 1 + a) % 4
            for i in range(3):
                for k in range(3):
                    CN[k, 3 * na + i] += 0.5 * At * CNt[k, 3 * a + i]
            for b in range(3):
                nb = (o + 1 + b) % 4
                for i in range(3):
                    for j in range(3):
                        Km[3 * na + i, 3 * nb + j] += 0.5 * Kt9[3 * a + i, 3 * b + j]
    A = 0.5 * total
    for k in range(3):
        for i in range(12):
            CN[k, i] /= A  # area-weighted mean of the triangles' constant strains
    # MITC4 bending and shear
    c = Em / (1.0 - nu * nu)
    dfac = Em * t * t * t / (12.0 * (1.0 - nu * nu))
    for i in range(3):
        for j in range(3):
            Db[i, j] = 0.0
    Db[0, 0], Db[0, 1], Db[1, 0], Db[1, 1], Db[2, 2] = dfac, dfac * nu, dfac * nu, dfac, 0.5 * dfac * (1.0 - nu)
    ks = _SHEAR_FACTOR * 0.5 * c * (1.0 - nu) * t  # k G t
    _covariant_shear(0.0, -1.0, P, N, dN, J, 0, tie[0])
    _covariant_shear(0.0, 1.0, P, N, dN, J, 0, tie[1])
    _covariant_shear(-1.0, 0.0, P, N, dN, J, 1, tie[2])
    _covariant_shear(1.0, 0.0, P, N, dN, J, 1, tie[3])
    for gi in range(2):
        for gj in range(2):
            xi = -_G if gi == 0 else _G
            eta = -_G if gj == 0 else _G
            det = _mitc4_operators(xi, eta, P, N, dN, J, tie, Bk, Bs)
            for i in range(12):
                for j in range(12):
                    acc = 0.0
                    for k in range(3):
                        for m in range(3):
                            acc += Bk[k, i] * Db[k, m] * Bk[m, j]
                    acc += ks * (Bs[0, i] * Bs[0, j] + Bs[1, i] * Bs[1, j])
                    Kb[i, j] += det * acc
            # slopes ψx = −θy, ψy = θx
            for k in range(4):
                for k2 in range(4):
                    v = det * N[k] * N[k2]
                    S3[0, 3 * k + 2, 3 * k2 + 2] += v
                    S3[1, 3 * k + 1, 3 * k2 + 1] += v
                    S3[2, 3 * k + 2, 3 * k2 + 1] -= v
                    S3[2, 3 * k + 1, 3 * k2 + 2] -= v
    _mitc4_operators(0.0, 0.0, P, N, dN, J, tie, Bc, Bq)
    return A


@jit(internal=True)
def _workspace():
    """Work arrays of the quadrilateral's local element."""
    return (np.empty((5, 3, 3)), np.empty((9, 3)), np.empty((3, 3, 3)), np.empty((3, 9)), np.empty((9, 9)),
            np.empty((3, 9)), np.empty((3, 3)), np.empty(4), np.empty((4, 2)), np.empty((2, 2)), np.empty((4, 12)),
            np.empty((3, 12)), np.empty((2, 12)), np.empty(12))


@jit
def _evaluate(X, u, R, p, s_in, f, K, s_out, en, mode):
    """Shared element loop. mode 0: force; 1: force and tangent; 2: resultants;
    3: geometric stiffness from s_in; 4: strain energy."""
    E0, P, E, Y = np.empty((3, 3)), np.empty((4, 3)), np.empty((3, 3)), np.empty((4, 3))
    x, Qw, Rd = np.empty((4, 3)), np.empty((3, 3)), np.empty((3, 3))
    th = np.empty((4, 3))
    d = np.empty(24)
    Km, CN, Kb, DN = np.empty((12, 12)), np.empty((3, 12)), np.empty((12, 12)), np.empty((3, 3))
    S3 = np.empty((3, 12, 12))
    Bc, Bq = np.empty((3, 12)), np.empty((2, 12))
    g = np.empty(24)
    H = np.empty((24, 24))
    Jinv = np.empty((4, 3, 3))
    Om = np.empty((3, 24))
    Bt = np.empty((24, 24))
    Kt = np.empty((24, 24))
    ft = np.empty(24)
    mu = np.empty((4, 3))
    tau = np.empty(3)
    W = np.empty((9, 24))
    fe = np.empty(24)
    Dm, Lm = np.empty((3, 3)), np.empty((3, 3))
    T24 = np.empty((24, 24))
    N, Nl, sq, dm, db, Sd = np.empty(3), np.empty(3), np.empty(3), np.empty(12), np.empty(12), np.empty((3, 12))
    ws = _workspace()
    ks = _SHEAR_FACTOR
    for e in range(X.shape[0]):
        l, a, b, b0 = kinematics(X, u, R, e, 0, 2, 1, 3, E0, P, E, Y, x, Qw, Rd, th, d)
        if b0 <= 0.0:
            raise ValueError("shell4: degenerate quadrilateral (parallel diagonals or coincident nodes) "
                             "in the reference configuration")
        if b <= 0.0:
            raise ValueError("shell4: quadrilateral collapsed in the current configuration")
        A = _local_matrices(p, e, P, Km, CN, DN, Kb, S3, Bc, Bq, Dm, ws)
        if A <= 0.0:
            raise ValueError("shell4: non-convex or clockwise quadrilateral (a corner triangle has no positive area)")
        if mode == 3:
            stress_state(s_in, e, 8, S3, g, H)
        else:
            V = local_state(d, A, Km, CN, DN, Kb, S3, g, H, mode == 1, N, dm, db, Sd, sq, Nl)
            if mode == 4:
                en[e] = V
                continue
            if mode == 2:
                membrane_bending_resultants(N, Dm, Bc, d, g, s_out, e, 8)
                Gt = 0.5 * p[e, 0] / (1.0 + p[e, 1]) * p[e, 2] * ks
                for k in range(2):
                    acc = 0.0
                    for j in range(12):
                        acc += Bq[k, j] * d[ben_slot(j)]
                    s_out[e, 6 + k] = Gt * acc
                continue
        for n in range(4):
            left_jacobian_inverse(th[n], Jinv[n])
        local_force(Y, l, a, b, 0, 2, 1, 3, Jinv, g, ft, mu, tau)
        if mode == 0:
            rotate_out(E, ft, Kt, f[e], K[0], False, T24)
            continue
        variation(Y, l, a, b, 0, 2, 1, 3, Jinv, Om, Bt)
        material_part(H, Bt, Kt, fe)
        geometric_local(Y, l, a, b, 0, 2, 1, 3, th, g, ft, tau, Om, Bt, Kt, W, Lm)
        if mode == 1:
            rotate_out(E, ft, Kt, f[e], K[e], True, T24)
        else:
            rotate_out(E, ft, Kt, fe, K[e], True, T24)


# --------------------------------------------------------------------------- kernels
@jit
def internal_force(X, u, R, p, f):
    """Internal nodal forces f (n_el, 24) conjugate to (δx_k, w_k) per node; X (n_el, 4, 3),
    u (n_el, 24) (rotational slots ignored), R (n_el, 4, 3, 3), p (n_el, 4) = (E, nu, t, rho)."""
    _evaluate(X, u, R, p, np.empty((0, N_RES)), f, np.empty((1, 24, 24)), np.empty((0, N_RES)), np.empty(0), 0)


@jit
def tangent(X, u, R, p, f, K):
    """Internal force f (n_el, 24) and its exact derivative K (n_el, 24, 24)
    (rotations perturbed multiplicatively, R ← exp(δŵ) R)."""
    _evaluate(X, u, R, p, np.empty((0, N_RES)), f, K, np.empty((0, N_RES)), np.empty(0), 1)


@jit
def resultants(X, u, R, p, s):
    """Resultants s (n_el, 32): Nxx, Nyy, Nxy, Mxx, Myy, Mxy, Qx, Qy (element frame), then
    the 24 local generalized forces."""
    _evaluate(X, u, R, p, np.empty((0, N_RES)), np.empty((0, 24)), np.empty((0, 24, 24)), s, np.empty(0), 2)


@jit
def geometric_stiffness(X, u, R, p, s, K):
    """Stress-dependent part K (n_el, 24, 24) of the tangent for resultants s (n_el, 32)
    (linear in s): EICR terms of s[:, 8:] and ∫ψᵀNψ dA with N = s[:, 0:3]."""
    _evaluate(X, u, R, p, s, np.empty((0, 24)), K, np.empty((0, N_RES)), np.empty(0), 3)


@jit
def strain_energy(X, u, R, p, en):
    """Strain energy en (n_el,)."""
    _evaluate(X, u, R, p, np.empty((0, N_RES)), np.empty((0, 24)), np.empty((0, 24, 24)), np.empty((0, N_RES)), en, 4)


@jit
def mass(X, u, R, p, kind, M):
    """Mass M (n_el, 24, 24): kind 0 lumped, 1 consistent / 2 invariant (bilinear
    translations); isotropic lumped rotary inertia ρt³A/48 per node. All kinds constant."""
    if kind != LUMPED and kind != CONSISTENT and kind != INVARIANT:
        raise ValueError("shell4 mass: kind must be 0 (lumped), 1 (consistent) or 2 (invariant)")
    E0 = np.empty((3, 3))
    P = np.empty((4, 3))
    x = np.empty((4, 3))
    N = np.empty(4)
    dN = np.empty((4, 2))
    J = np.empty((2, 2))
    Mt = np.empty((4, 4))
    for e in range(X.shape[0]):
        for a in range(4):
            for k in range(3):
                x[a, k] = X[e, a, k]
        l0, a0, b0 = frame(x, 0, 2, 1, 3, E0, P)
        if b0 <= 0.0:
            raise ValueError("shell4: degenerate quadrilateral (parallel diagonals or coincident nodes) "
                             "in the reference configuration")
        rho, t = p[e, 3], p[e, 2]
        for i in range(4):
            for j in range(4):
                Mt[i, j] = 0.0
        A = 0.0
        for gi in range(2):
            for gj in range(2):
                det = _shapes(-_G if gi == 0 else _G, -_G if gj == 0 else _G, P, N, dN, J)
                A += det
                for i in range(4):
                    for j in range(4):
                        Mt[i, j] += rho * t * det * N[i] * N[j]
        Ir = rho * t * t * t * A / 48.0
        for i in range(24):
            for j in range(24):
                M[e, i, j] = 0.0
        for a in range(4):
            for k in range(3):
                M[e, 6 * a + 3 + k, 6 * a + 3 + k] = Ir
                if kind == LUMPED:
                    M[e, 6 * a + k, 6 * a + k] = rho * t * A / 4.0
                else:
                    for c in range(4):
                        M[e, 6 * a + k, 6 * c + k] = Mt[a, c]


@jit
def midpoint_force(X, u0, R0, u1, R1, um, Rm, psi, D, p, f, K):
    """Energy- and momentum-conserving algorithmic force f (n_el, 24) of the step
    (u0, R0) → (u1, R1) of the 3-D mid-point scheme and its derivative K (n_el, 24, 24)
    over (Δx_a, ψ_a) (ψ the Cayley vectors of the nodal rotation increments): a discrete
    gradient in the quadratic invariants of elements/shell_midpoint.py, with the energy,
    force and exact tangent of this element evaluated on the invariants' copy
    configurations. f·(Δx, ψ) = V(u1, R1) − V(u0, R0) exactly; um, Rm, D are not needed."""
    ws = _mid.workspace(X.shape[0], X.shape[1])
    _mid.prepare(X, u0, R0, u1, R1, psi, ws)
    strain_energy(X, ws[5], ws[6], p, ws[11])
    strain_energy(X, ws[7], ws[8], p, ws[12])
    internal_force(X, ws[7], ws[8], p, ws[13])
    tangent(X, ws[9], ws[10], p, ws[14], ws[15])
    _mid.finish(X, R0, R1, u0, u1, psi, ws, f, K)


# --------------------------------------------------------------------------- specs
def properties(material, section):
    """E, nu, t, rho as for shell3 (messages name shell4)."""
    try:
        return _properties_shell3(material, section)
    except ValueError as exc:
        raise ValueError(str(exc).replace("shell3", "shell4")) from None


def check_cells(points, conn, warp_limit=0.1, warp_warning=0.01):
    """Problems of the quadrilaterals ``conn`` (n, 4): degenerate, non-convex or clockwise
    cells (in their mean plane) and cells warped by more than ``warp_limit`` of their
    shorter diagonal (distance of the nodes from the mean plane); cells warped by more
    than ``warp_warning`` (but not ``warp_limit``) come as a CellWarning."""
    x = np.asarray(points, dtype=np.float64)
    if x.shape[1] < 3:
        x = np.hstack([x, np.zeros((x.shape[0], 3 - x.shape[1]))])
    c = np.asarray(conn)
    P = x[c]  # (n, 4, 3)
    d1, d2 = P[:, 2] - P[:, 0], P[:, 3] - P[:, 1]
    n = np.cross(d1, d2)
    nn = np.linalg.norm(n, axis=1)
    dmin = np.minimum(np.linalg.norm(d1, axis=1), np.linalg.norm(d2, axis=1))
    out = []
    bad = np.where(nn <= 1e-12 * np.maximum(dmin * dmin, 1e-300))[0]
    if bad.size:
        out.append(f"degenerate shell4 quadrilateral(s) {bad[:10].tolist()}")
    unit = n / np.where(nn > 0, nn, 1.0)[:, None]
    corner = []
    for k in range(4):
        a, b, cc = P[:, k], P[:, (k + 1) % 4], P[:, (k + 3) % 4]
        corner.append(np.einsum("ij,ij->i", np.cross(b - a, cc - a), unit))
    nonconvex = np.where((np.min(corner, axis=0) <= 0.0) & (nn > 0))[0]
    if nonconvex.size:
        out.append(f"non-convex or clockwise shell4 quadrilateral(s) {nonconvex[:10].tolist()}")
    centre = P.mean(axis=1)
    warp = np.abs(np.einsum("ikj,ij->ik", P - centre[:, None, :], unit)).max(axis=1)
    warped = np.where(warp > warp_limit * np.maximum(dmin, 1e-300))[0]
    if warped.size:
        out.append(f"shell4 quadrilateral(s) {warped[:10].tolist()} warped by more than {warp_limit:g} of the diagonal")
    mild = np.where((warp > warp_warning * dmin) & (warp <= warp_limit * np.maximum(dmin, 1e-300)))[0]
    if mild.size:
        out.append(CellWarning(f"shell4 quadrilateral(s) {mild[:10].tolist()} mildly warped (by up to "
                               f"{(warp[mild] / dmin[mild]).max():.3g} of the shorter diagonal, error above {warp_limit:g}): "
                               "the flat facets approximate them on their mean planes"))
    return out


KERNELS = ElementKernels(internal_force=internal_force, tangent=tangent, resultants=resultants,
                         geometric_stiffness=geometric_stiffness, strain_energy=strain_energy, mass=mass,
                         midpoint_force=midpoint_force)

RESULTANT_NAMES = ("Nxx", "Nyy", "Nxy", "Mxx", "Myy", "Mxy", "Qx", "Qy") + tuple(
    f"{kind}{a}{c}" for a in (1, 2, 3, 4) for kind in ("f", "m") for c in "xyz")

SPECS = {
    "shell4": ElementSpec(name="shell4", cell_type="quad", n_nodes=4, dim=3,
                          node_dofs=("ux", "uy", "uz", "rx", "ry", "rz"), params=("E", "nu", "t", "rho"),
                          resultant_names=RESULTANT_NAMES, properties=properties, kernels=KERNELS,
                          constant_mass=(LUMPED, CONSISTENT, INVARIANT), oriented=True,
                          description="co-rotational (EICR) shell quadrilateral: ANDES-OPT membrane with "
                                      "drilling (4 overlapping triangles) + MITC4 bending/shear",
                          check_cells=check_cells),
}
