"""Co-rotational flat triangular shell ``shell3``: ANDES-OPT membrane with drilling
rotations + DKT thin-plate bending in an element-independent co-rotational (EICR) frame.

Three nodes, DOFs (ux, uy, uz, rx, ry, rz) per node. The element is *oriented* (see
elements.base): the kernels take the nodal rotations ``R`` (n_el, 3, 3, 3) relative to the
reference configuration; the rotational slots of ``u`` are ignored, rotational entries of
``f`` are moments conjugate to spatial spins δw (δR = δŵ R) and rotational rows/columns of
``K`` are derivatives with respect to δw (K is the exact derivative, not symmetric away from
moment-free states, like beam3d's).

Element frame (rows e1, e2, e3 of E), built from the nodal positions x_a alone::

    e1 = x21/|x21|,  e3 = x21 × x31/|x21 × x31|,  e2 = e3 × e1,   x_c = (x1 + x2 + x3)/3

(x_ij = x_i − x_j). The same construction on the reference positions gives E0. Local
deformational DOFs per node a (element-frame components)::

    ū_a = E (x_a − x_c) − E0 (X_a − X_c)          (ū_z = 0 by construction)
    θ̄_a = log(E R_a E0ᵀ)                          (|θ̄_a| ≤ π, quaternion log)

so that d = (ū_1, θ̄_1, ū_2, θ̄_2, ū_3, θ̄_3) (18,) vanishes for every rigid motion, of any
size. ū is evaluated as E (u_a − u_c) + (E − E0)(X_a − X_c) with E − E0 from the
displacements, and the frame entering θ̄ is E0 + (E − E0): the round-off of the internal
force scales with the displacements, not with the coordinates (a thin shell far from the
origin under tiny loads still converges). The remaining residual floor comes from storing
nodal rotations as matrices (absolute precision ~1e-16 rad) times the membrane-level drill
stiffness. The strain energy is V = V_l(d) of a small-strain local element on the reference
local coordinates P_a = E0 (X_a − X_c):

    V_l = ½ d_mᵀ K_m d_m + ½ d_bᵀ K_b d_b + A (ε̄ + ½ ε_vk)ᵀ D_N ε_vk

- membrane, d_m = (ū_x, ū_y, θ̄_z) per node: ANDES-OPT (Felippa 2003), K_m = K_basic +
  K_higher. K_basic = L D Lᵀ/(A t) (Felippa's L, which carries the factor t/2; D the
  plane-stress matrix) with the drilling lumping factor α_b = 3/2 (constant
  stress, passes the patch test); K_higher = ¾ β0 T_θuᵀ K_θ T_θu with β0 = max(½(1 − 4ν²),
  0.01) and the OPT parameters β1…β9 = (1, 2, 1, 0, 1, −1, −1, −1, −2) acts only on the
  *deviatoric* corner rotations θ̃_a = θ̄_z,a − θ0, θ0 = ½ (∂u_y/∂x − ∂u_x/∂y) the membrane's
  own rotation: the drill DOF is tied to the in-plane rotation of the membrane, never
  penalised toward zero.
- bending, d_b = (ū_z, θ̄_x, θ̄_y) per node: DKT (Batoz, Bathe & Ho 1980) built as a
  quadratic slope field ψ ≈ ∇w on the 6-node triangle, ψ = (−θ_y, θ_x) at the corners,
  tangential slope at mid-sides from the cubic edge deflection, normal slope linear along
  each side (Kirchhoff constraints at corners and mid-sides). Curvatures
  κ = (ψx,x, ψy,y, ψx,y + ψy,x) integrated exactly (3 mid-side points);
  D = E t³/(12(1 − ν²)).
- the last term completes the constant-stress membrane energy ½ A ε̄ᵀ D_N ε̄ of the basic
  ANDES part (ε̄ = Lᵀ d_m/(2A), D_N = t D the membrane stiffness per length) to
  ½ A (ε̄ + ε_vk)ᵀ D_N (ε̄ + ε_vk): the element-averaged von Kármán strain of the local DKT
  slope field, ε_vk = (1/2A) (∫ψx², ∫ψy², ∫2ψxψy) dA = s/(2A), s_k = d_bᵀ S_k d_b with
  S_1 = ∫ψxᵀψx, S_2 = ∫ψyᵀψy, S_3 = ∫(ψxᵀψy + ψyᵀψx) dA (6-point rule, exact). The total
  constant membrane force is N = D_N (ε̄ + ε_vk). Its Hessian contains the local
  membrane-stress geometric stiffness Σ N_k S_k = ∫ ψᵀ N ψ dA, which makes linear plate
  buckling converge at O(h²); the full square (not only the N·ε_vk cross term) keeps an
  element in pure bending free of spurious membrane force: its chord shortens by the
  arc-length correction ε_vk (a strip rolled into a circle puts its nodes on the exact
  circle with an error that vanishes faster than h²).

Global force and exact tangent (everything in element-frame components, then rotated by
blockdiag(E)): with n_a, m_a the translational/rotational parts of g = ∂V_l/∂d, the frame
spin ω = Ω δx̃ (ω1 = (l δx̃31_z − a δx̃21_z)/(l b), ω2 = −δx̃21_z/l, ω3 = δx̃21_y/l, with
l = |x21|, (a, b) the local coordinates of x31), μ_a = J(θ̄_a)⁻ᵀ m_a and
τ = Σ n_a × y_a − Σ μ_a (y_a = E (x_a − x_c)):

    f̃_x,a = n_a − n̄ + (Ωᵀ τ)_a,   f̃_w,a = μ_a,   f = blockdiag(Eᵀ) f̃

The tangent is the exact derivative: B̃ᵀ H_l B̃ (B̃ = ∂d/∂z̃, H_l = ∂²V_l/∂d²), the variation
of f̃ at fixed g (J⁻ᵀ derivative, lever arms y_a, frame geometry l, a, b), and the spin of
the frame −f̃ × ω. Rigid-motion invariance of d makes f self-equilibrated at any state.

Resultants (``resultant_names``, element frame E, tension and sagging positive):

- Nxx, Nyy, Nxy [force/length]: N = D_N (ε̄ + ε_vk), the element's constant membrane
  force (the ANDES higher-order part adds a self-equilibrated, linearly varying field that
  is not reported);
- Mxx, Myy, Mxy [moment/length]: M = D κ at the centroid, κ = (ψx,x, ψy,y, ψx,y + ψy,x)
  the DKT curvatures of the local deflection w (ψ ≈ ∇w);
- f1x, f1y, f1z, m1x, m1y, m1z, f2x, …, m3z: the 18 local generalized forces
  g = ∂V_l/∂d (conjugate to ū_a and θ̄_a): the state ``geometric_stiffness`` needs. It is
  linear in the resultants: EICR terms of g plus Σ N_k S_k, and tangent − geometric
  stiffness(resultants) is the symmetric material part B̃ᵀ ∂²V_l/∂d² B̃ − B̃ᵀ(Σ N_k S_k)B̃.

Mass (constant for all kinds; ρ density, t thickness, A reference area):

- 0 lumped: ρtA/3 on each translation; rotary inertia ρt³A/36 about every axis (the
  bending value ρt³/12 per area, lumped; the same value on the drill axis keeps M regular
  and makes the nodal rotary inertia isotropic, hence independent of the configuration).
- 1 consistent / 2 invariant: translations ρtA/12 (1 + δ_ab) I₃ (linear interpolation,
  rotation invariant), plus the lumped isotropic rotary inertia of kind 0. (No DKT-consistent
  bending mass yet.)

Properties (``properties(material, section)``): E, nu (material.E, material.nu), t
(section.thickness), rho (material.rho, 0 when None).

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
from .base import CONSISTENT, INVARIANT, LUMPED, ElementKernels, ElementSpec
from .shell_eicr import frame, geometric_local, kinematics, local_force, material_part, rotate_out, variation
from .shell_local import local_matrices, local_state, membrane_bending_resultants, stress_state, workspace

N_RES = 24


# --------------------------------------------------------------------------- driver
@jit
def _evaluate(X, u, R, p, s_in, f, K, s_out, en, mode):
    """Shared element loop. mode 0: force; 1: force and tangent; 2: resultants;
    3: geometric stiffness from s_in; 4: strain energy."""
    E0, P, E, Y = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
    x, Qw, Rd = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
    th = np.empty((3, 3))
    d = np.empty(18)
    Km, CN, Kb, DN = np.empty((9, 9)), np.empty((3, 9)), np.empty((9, 9)), np.empty((3, 3))
    S3 = np.empty((3, 9, 9))
    Bc = np.empty((3, 9))
    g = np.empty(18)
    H = np.empty((18, 18))
    Jinv = np.empty((3, 3, 3))
    Om = np.empty((3, 18))
    Bt = np.empty((18, 18))
    Kt = np.empty((18, 18))
    ft = np.empty(18)
    mu = np.empty((3, 3))
    tau = np.empty(3)
    W = np.empty((9, 18))
    fe = np.empty(18)
    Dm, Lm = np.empty((3, 3)), np.empty((3, 3))
    T18 = np.empty((18, 18))
    N, Nl, sq, dm, db, Sd = np.empty(3), np.empty(3), np.empty(3), np.empty(9), np.empty(9), np.empty((3, 9))
    ws = workspace()
    for e in range(X.shape[0]):
        l, a, b, b0 = kinematics(X, u, R, e, 0, 1, 0, 2, E0, P, E, Y, x, Qw, Rd, th, d)
        if b0 <= 0.0:
            raise ValueError("shell3: degenerate triangle (zero area or coincident nodes) in the reference configuration")
        if b <= 0.0:
            raise ValueError("shell3: triangle collapsed to zero area in the current configuration")
        A = local_matrices(p, e, P, Km, CN, DN, Kb, S3, Bc, Dm, ws)
        if mode == 3:
            stress_state(s_in, e, 6, S3, g, H)
        else:
            V = local_state(d, A, Km, CN, DN, Kb, S3, g, H, mode == 1, N, dm, db, Sd, sq, Nl)
            if mode == 4:
                en[e] = V
                continue
            if mode == 2:
                membrane_bending_resultants(N, Dm, Bc, d, g, s_out, e, 6)
                continue
        for n in range(3):
            left_jacobian_inverse(th[n], Jinv[n])
        local_force(Y, l, a, b, 0, 1, 0, 2, Jinv, g, ft, mu, tau)
        if mode == 0:
            rotate_out(E, ft, Kt, f[e], K[0], False, T18)
            continue
        variation(Y, l, a, b, 0, 1, 0, 2, Jinv, Om, Bt)
        material_part(H, Bt, Kt, fe)
        geometric_local(Y, l, a, b, 0, 1, 0, 2, th, g, ft, tau, Om, Bt, Kt, W, Lm)
        if mode == 1:
            rotate_out(E, ft, Kt, f[e], K[e], True, T18)
        else:
            rotate_out(E, ft, Kt, fe, K[e], True, T18)


# --------------------------------------------------------------------------- kernels
@jit
def internal_force(X, u, R, p, f):
    """Internal nodal forces f (n_el, 18) = dV/d(δx1, w1, δx2, w2, δx3, w3): forces and
    moments conjugate to spatial spins. X (n_el, 3, 3) reference positions, u (n_el, 18)
    (rotational slots ignored), R (n_el, 3, 3, 3) nodal rotations, p (n_el, 4) =
    (E, nu, t, rho)."""
    _evaluate(X, u, R, p, np.empty((0, N_RES)), f, np.empty((1, 18, 18)), np.empty((0, N_RES)), np.empty(0), 0)


@jit
def tangent(X, u, R, p, f, K):
    """Internal force f (n_el, 18) and its exact derivative K (n_el, 18, 18) with respect to
    (δx1, w1, δx2, w2, δx3, w3), rotations perturbed multiplicatively R ← exp(δŵ) R."""
    _evaluate(X, u, R, p, np.empty((0, N_RES)), f, K, np.empty((0, N_RES)), np.empty(0), 1)


@jit
def resultants(X, u, R, p, s):
    """Resultants s (n_el, 24): Nxx, Nyy, Nxy [force/length], Mxx, Myy, Mxy
    [moment/length] in the element frame, then the 18 local generalized forces."""
    _evaluate(X, u, R, p, np.empty((0, N_RES)), np.empty((0, 18)), np.empty((0, 18, 18)), s, np.empty(0), 2)


@jit
def geometric_stiffness(X, u, R, p, s, K):
    """Stress-dependent part K (n_el, 18, 18) of the tangent at (u, R) for resultants s
    (n_el, 24) (linear in s): EICR terms of the local forces s[:, 6:] and the local
    membrane-stress term ∫ψᵀNψ dA with N = s[:, 0:3]."""
    _evaluate(X, u, R, p, s, np.empty((0, 18)), K, np.empty((0, N_RES)), np.empty(0), 3)


@jit
def strain_energy(X, u, R, p, en):
    """Strain energy en (n_el,) = V_l(d)."""
    _evaluate(X, u, R, p, np.empty((0, N_RES)), np.empty((0, 18)), np.empty((0, 18, 18)), np.empty((0, N_RES)), en, 4)


@jit
def mass(X, u, R, p, kind, M):
    """Mass M (n_el, 18, 18): kind 0 lumped, 1 consistent / 2 invariant (linear-interpolation
    translations); isotropic lumped rotary inertia ρt³A/36 per node for every kind. All
    kinds are constant (module docstring)."""
    if kind != LUMPED and kind != CONSISTENT and kind != INVARIANT:
        raise ValueError("shell3 mass: kind must be 0 (lumped), 1 (consistent) or 2 (invariant)")
    E0 = np.empty((3, 3))
    P = np.empty((3, 3))
    x = np.empty((3, 3))
    for e in range(X.shape[0]):
        for a in range(3):
            for k in range(3):
                x[a, k] = X[e, a, k]
        l0, a0, b0 = frame(x, 0, 1, 0, 2, E0, P)
        if b0 <= 0.0:
            raise ValueError("shell3: degenerate triangle (zero area or coincident nodes) in the reference configuration")
        A = 0.5 * l0 * b0
        rho, t = p[e, 3], p[e, 2]
        m = rho * t * A
        Ir = rho * t * t * t * A / 36.0
        for i in range(18):
            for j in range(18):
                M[e, i, j] = 0.0
        for a in range(3):
            for k in range(3):
                M[e, 6 * a + 3 + k, 6 * a + 3 + k] = Ir
                if kind == LUMPED:
                    M[e, 6 * a + k, 6 * a + k] = m / 3.0
                else:
                    for c in range(3):
                        M[e, 6 * a + k, 6 * c + k] = m / 12.0 * (2.0 if a == c else 1.0)


@jit
def midpoint_force(X, u0, R0, u1, R1, um, Rm, psi, D, p, f, K):
    """Energy- and momentum-conserving algorithmic force f (n_el, 18) of the step
    (u0, R0) → (u1, R1) of the 3-D mid-point scheme and its derivative K (n_el, 18, 18)
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
    """E, nu from the material (nu required), t = section.thickness, rho = material.rho."""
    if material.nu is None:
        if material.G is None:
            raise ValueError("material needs nu (or G) for shell3")
        nu = material.E / (2.0 * material.G) - 1.0
    else:
        nu = material.nu
    t = getattr(section, "thickness", None)
    if t is None:
        raise ValueError("section needs thickness for shell3")
    if not t > 0:
        raise ValueError(f"shell3 thickness must be > 0, got {t}")
    rho = 0.0 if material.rho is None else material.rho
    return {"E": material.E, "nu": nu, "t": t, "rho": rho}


def check_cells(points, conn):
    """Problems of the triangles ``conn`` (n, 3) on ``points``: indices of cells whose area
    is zero (relative to their longest side squared, 1e-12)."""
    x = np.asarray(points, dtype=np.float64)
    if x.shape[1] < 3:
        x = np.hstack([x, np.zeros((x.shape[0], 3 - x.shape[1]))])
    a, b, c = x[conn[:, 0]], x[conn[:, 1]], x[conn[:, 2]]
    n = np.linalg.norm(np.cross(b - a, c - a), axis=1)
    side = np.max(np.stack([np.linalg.norm(b - a, axis=1), np.linalg.norm(c - b, axis=1),
                            np.linalg.norm(a - c, axis=1)]), axis=0)
    bad = np.where(n <= 1e-12 * np.maximum(side * side, 1e-300))[0]
    if bad.size:
        return [f"degenerate (zero-area) shell3 triangle(s) {bad[:10].tolist()}"]
    return []


KERNELS = ElementKernels(internal_force=internal_force, tangent=tangent, resultants=resultants,
                         geometric_stiffness=geometric_stiffness, strain_energy=strain_energy, mass=mass,
                         midpoint_force=midpoint_force)

RESULTANT_NAMES = ("Nxx", "Nyy", "Nxy", "Mxx", "Myy", "Mxy") + tuple(
    f"{kind}{a}{c}" for a in (1, 2, 3) for kind in ("f", "m") for c in "xyz")

SPECS = {
    "shell3": ElementSpec(name="shell3", cell_type="triangle", n_nodes=3, dim=3,
                          node_dofs=("ux", "uy", "uz", "rx", "ry", "rz"), params=("E", "nu", "t", "rho"),
                          resultant_names=RESULTANT_NAMES, properties=properties, kernels=KERNELS,
                          constant_mass=(LUMPED, CONSISTENT, INVARIANT), oriented=True,
                          description="flat co-rotational (EICR) shell triangle: ANDES-OPT membrane with "
                                      "drilling rotations + DKT bending",
                          check_cells=check_cells),
}
