"""Rotational springs and dampers between nodes with 3-D rotations (oriented nodes).

``rotational_spring3d`` (``cell_type="line"``, two oriented nodes) and
``rotational_spring3d_ground`` (``cell_type="vertex"``, one oriented node to the fixed
ground): the rotational part of a bushing, or a torsion spring in a hinge. Both are
massless oriented elements (kernels take the nodal rotations R, see elements.base) with
the DOFs ux, uy, uz, rx, ry, rz per node (the translations get no force), created with
``Model.add_discrete``.

Kinematics
----------
A constant joint frame A = [n, t1, t2] (columns, right-handed) is given by an ``axis``
n and an optional ``second`` vector (t1 = the part of it normal to n, t2 = n × t1); the
default is the global frame (axis x, second y). With the nodal rotations R1, R2 (relative
to the reference orientation) the relative rotation expressed in the joint frame is

    Q = (R1 A)ᵀ (R2 A),   Q_ij = a1_i · a2_j   (directors a_i = R A e_i; ground: R1 = I),

and the spring acts on its rotation vector θ = log Q (rad, components in the joint frame:
θ_x the twist about the axis, θ_y, θ_z the tilts about t1, t2). Energy (parameters
``kx``, ``ky``, ``kz``, moment per radian; reference twist ``theta0x``, ``theta0y``,
``theta0z``, rad, default 0)::

    V = Σ_i ½ k_i (θ_i − θ0_i)²,   resultants M_i = k_i (θ_i − θ0_i)  ("Mx", "My", "Mz").

For a rotation about one joint axis by φ (|φ| < π) the moment about it is exactly
M = k φ at any angle. An isotropic spring (kx = ky = kz) is invariant under a change of
joint frame. ``Model.add_discrete`` also takes ``k`` (all three stiffnesses),
``c`` (all three damping constants), ``theta0`` (3 values), ``axis`` and ``second``
(3-vectors; the default ``second`` is y, or a normal by the 3-D joints' rule
when the axis is along y).

Range: the rotation-vector (log-map) energy is defined for relative rotations |θ| < π;
at a half turn the direction of θ is undefined (with unequal stiffnesses the moment
jumps). The kernels raise ValueError when |θ| comes within 10⁻⁶ rad of π (and, in the
mid-point force, when the averaged relative rotation degenerates). Keep the relative
rotation of a rotational spring below a half turn (or split a large preset twist with
``theta0``, |θ0| < π).

θ as a function of Q: θ = (φ/s) w with w = ½ vee(Q − Qᵀ), c = ½ (tr Q − 1),
s = |w|, φ = atan2(s, c) — the log map on rotations (w = sin φ n, c = cos φ) and a
smooth, scale-invariant extension to any 3×3 Q (needed at the averaged invariants of the
mid-point rule). V depends on the rotations only through the four linear invariants
r = (w, c) of the nine q_ij.

Forces
------
Internal forces are moments conjugate to the spatial spins δw_a (δR_a = δŵ_a R_a). With
δq_ij = (a1_i × a2_j)·(δw1 − δw2), δr = B (δw1 − δw2) (B (4, 3) from the directors) and

    f_w1 = Bᵀ ∇_r U = Σ P_ij a1_i × a2_j,   f_w2 = −f_w1   (ground: f_w = −Bᵀ∇_r U),

P = Lᵀ∇_r U the gradient in the q_ij. Balanced (Σ f = 0: the spring exerts no net moment
on the pair). The tangent is the exact derivative with respect to the spins: the
invariant Hessian Bᵀ ∇²_r U B plus the turning of the directors (not symmetric away from
equilibrium, as beam3d's); no geometric stiffness.

Mid-point force (energy-momentum scheme, femb.solvers.dynamics.midpoint3d): with Cayley
increments R_{n+1} = cay(ψ) R_n every director moves by a_{n+1} − a_n = ψ × ā,
ā = ½ (a_n + a_{n+1}), so the bilinear invariants change exactly by
Δr = B(ā) (ψ1 − ψ2). Gonzalez's discrete gradient in r,

    D = ∇U(r̄) + [(ΔU − ∇U(r̄)·Δr)/(|Δr|² + ε²)] Δr,   r̄ = r_n + ½ Δr,  ε = 10⁻⁸,

gives f̄_ψ1 = B(ā)ᵀ D = −f̄_ψ2 with f̄·(ψ1, ψ2) = D·Δr = ΔV (to a relative ε²/|θ| of the
third-order mid-point mismatch, i.e. round-off) and balanced moments (r is invariant
under a common rotation of both nodes), so total angular momentum is exact. (This is the
discrete gradient in the nine q_ij of the same energy restricted to the four linear
combinations that V depends on.) The Newton matrix is the exact derivative with respect
to ψ.

Damping (parameters ``cx``, ``cy``, ``cz``, moment per angular velocity, default 0): a
linear viscous damper on the relative angular velocity ω = ω2 − ω1 (ground: ω) resolved
in the joint frame of node 1, E = R1 A (ground: A): the moment m = E diag(c) Eᵀ ω acts
on node 2 as −m and on node 1 as +m (f_w2 = m, f_w1 = −m). ``damper_force(X, u, R, v, p,
f, C)`` gives it at rotations R and nodal angular velocities v (rotational slots);
``damping(X, u, R, p, C)`` the matrix C. The mid-point scheme evaluates it at the mid
rotations with the step's angular velocity ψ/Δt, so the damper's work f·z =
Δt Σ c_i ω_i² ≥ 0 is booked as dissipated energy and closes the balance exactly.

Force laws (as the 1-D springs, femb.elements.spring_laws and force_laws): ``law`` — a table
of (θ, M) pairs (``smooth=True``: monotone cubic), a ForceLaw or a callable with
``law_range`` — adds a moment M_law(θ_x − θ0_x) on the twist about the axis (k_x
defaults to 0 then), with energy ∫_0 M_law and slope M_law' in the tangent and in the
invariant Hessian; ``damper_law`` adds M_d(ω_x) on the twist rate (checked to
dissipate). The discrete gradient needs no divided difference of the law: the Gonzalez
correction in r carries the whole mid-point mismatch.

Property rows: (kx, ky, kz, cx, cy, cz, theta0x, theta0y, theta0z, ax, ay, az, bx, by,
bz): stiffnesses, damping constants, reference twists, the axis and the second vector;
with laws then n_s, n_d and the packed laws (femb.elements.spring_input).
"""
import numpy as np

from femb.core import jit
from femb.core.rotations import add_cross, cayley_spin_jacobian

from .base import ElementKernels
from .force_laws import WIDTH, law_piece, law_region, law_value
from .spring_input import DEFAULT_FRAME, spring_spec
from .spring_laws import law_counts, zero_mass

PARAMS = ("kx", "ky", "kz", "cx", "cy", "cz", "theta0x", "theta0y", "theta0z", "ax", "ay", "az", "bx", "by", "bz")
DEFAULTS = {"cx": 0.0, "cy": 0.0, "cz": 0.0, "theta0x": 0.0, "theta0y": 0.0, "theta0z": 0.0, **DEFAULT_FRAME}
N_PARAMS = len(PARAMS)
LAW_COL = N_PARAMS + 2  # property rows with laws: params, n_s, n_d, spring law, damper law
EPS_DG = 1e-8  # regularization of the discrete-gradient quotient (r is dimensionless)
NEAR_PI = 1e-6  # |θ| within this of π is refused (log map singular)


# ---------------------------------------------------------------------------- frame and invariants


@jit(internal=True)
def _frame(p, e, A):
    """Joint frame A (3, 3), columns (n, t1, t2), from the axis p[e, 9:12] and the second
    vector p[e, 12:15] (Gram–Schmidt)."""
    na = np.sqrt(p[e, 9] ** 2 + p[e, 10] ** 2 + p[e, 11] ** 2)
    if not na > 0.0:
        raise ValueError("rotational spring: the joint axis (ax, ay, az) must be non-zero")
    for k in range(3):
        A[k, 0] = p[e, 9 + k] / na
    d = A[0, 0] * p[e, 12] + A[1, 0] * p[e, 13] + A[2, 0] * p[e, 14]
    for k in range(3):
        A[k, 1] = p[e, 12 + k] - d * A[k, 0]
    nb = np.sqrt(A[0, 1] ** 2 + A[1, 1] ** 2 + A[2, 1] ** 2)
    if not nb > 1e-12 * np.sqrt(p[e, 12] ** 2 + p[e, 13] ** 2 + p[e, 14] ** 2) or nb == 0.0:
        raise ValueError("rotational spring: the second vector (bx, by, bz) must not be parallel to the axis")
    for k in range(3):
        A[k, 1] /= nb
    A[0, 2] = A[1, 0] * A[2, 1] - A[2, 0] * A[1, 1]
    A[1, 2] = A[2, 0] * A[0, 1] - A[0, 0] * A[2, 1]
    A[2, 2] = A[0, 0] * A[1, 1] - A[1, 0] * A[0, 1]


@jit(internal=True)
def _directors(R, e, a, A, out):
    """out (3, 3) = R[e, a] A: the directors (columns) of node ``a``."""
    for i in range(3):
        for j in range(3):
            acc = 0.0
            for k in range(3):
                acc += R[e, a, i, k] * A[k, j]
            out[i, j] = acc


@jit(internal=True)
def _node_directors(R, e, n, A, A1, A2):
    """Directors of the two sides: A1 = R1 A (ground: A), A2 = R_last A."""
    if n == 2:
        _directors(R, e, np.int64(0), A, A1)  # not a literal: one specialization
    else:
        for i in range(3):
            for j in range(3):
                A1[i, j] = A[i, j]
    _directors(R, e, n - 1, A, A2)


@jit(internal=True)
def _reduced(A1, A2, r):
    """Invariants r (4,) = (w, c) of Q = A1ᵀ A2: w = ½ vee(Q − Qᵀ), c = ½ (tr Q − 1)."""
    Q = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            Q[i, j] = A1[0, i] * A2[0, j] + A1[1, i] * A2[1, j] + A1[2, i] * A2[2, j]
    r[0] = 0.5 * (Q[2, 1] - Q[1, 2])
    r[1] = 0.5 * (Q[0, 2] - Q[2, 0])
    r[2] = 0.5 * (Q[1, 0] - Q[0, 1])
    r[3] = 0.5 * (Q[0, 0] + Q[1, 1] + Q[2, 2] - 1.0)


@jit(internal=True)
def _variation(A1, A2, B):
    """B (4, 3): δr = B (δw1 − δw2) for directors A1, A2 (any 3×3, averaged ones
    included), from δq_ij = (a1_i × a2_j)·(δw1 − δw2)."""
    for r in range(4):
        for k in range(3):
            B[r, k] = 0.0
    a = np.empty(3)
    b = np.empty(3)
    row = np.empty(3)
    # w_x = ½(q21 − q12), w_y = ½(q02 − q20), w_z = ½(q10 − q01), c = ½ Σ q_ii
    pairs = ((2, 1, 1, 2), (0, 2, 2, 0), (1, 0, 0, 1))
    for r in range(3):
        i, j, k, m = pairs[r]
        row[:] = 0.0
        for t in range(3):
            a[t] = A1[t, i]
            b[t] = A2[t, j]
        add_cross(a, b, 0.5, row)
        for t in range(3):
            a[t] = A1[t, k]
            b[t] = A2[t, m]
        add_cross(a, b, -0.5, row)
        for t in range(3):
            B[r, t] = row[t]
    row[:] = 0.0
    for i in range(3):
        for t in range(3):
            a[t] = A1[t, i]
            b[t] = A2[t, i]
        add_cross(a, b, 0.5, row)
    for t in range(3):
        B[3, t] = row[t]


@jit(internal=True)
def _coefficient_matrix(G, P):
    """P (3, 3) = Lᵀ G: the gradient in the q_ij of a gradient G (4,) in r = (w, c)."""
    for i in range(3):
        for j in range(3):
            P[i, j] = 0.5 * G[3] if i == j else 0.0
    P[2, 1] += 0.5 * G[0]
    P[1, 2] -= 0.5 * G[0]
    P[0, 2] += 0.5 * G[1]
    P[2, 0] -= 0.5 * G[1]
    P[1, 0] += 0.5 * G[2]
    P[0, 1] -= 0.5 * G[2]


@jit(internal=True)
def _turn(A1, A2, P, Y):
    """Y (3, 3) = A1 P A2ᵀ and returns s = Σ P_ij a1_i·a2_j (the director-turning part
    of the derivative of Σ P_ij a1_i × a2_j)."""
    s = 0.0
    for i in range(3):
        for j in range(3):
            s += P[i, j] * (A1[0, i] * A2[0, j] + A1[1, i] * A2[1, j] + A1[2, i] * A2[2, j])
    for a in range(3):
        for b in range(3):
            acc = 0.0
            for i in range(3):
                for j in range(3):
                    acc += A1[a, i] * P[i, j] * A2[b, j]
            Y[a, b] = acc
    return s


# ---------------------------------------------------------------------------- energy in r = (w, c)


@jit(internal=True)
def _damper_axis(p, e, a, w):
    """(M_d, dM_d/dω) of the damper about joint axis ``a`` at the rate ``w``: c_a w, plus the
    damper law on the twist axis (a = 0)."""
    F = p[e, 3 + a] * w
    dF = p[e, 3 + a]
    n_s, n_d = law_counts(p, e, N_PARAMS)
    if a == 0 and n_d > 0:
        o = LAW_COL + WIDTH * n_s
        Fl, dFl = law_piece(p, e, o, n_d, law_region(p, e, o, n_d, w), w)
        F += Fl
        dF += dFl
    return F, dF


@jit(internal=True)
def _log_coefficients(s, c):
    """Coefficients of θ = g(s, c) w (s = |w|): (g, h = g_s/s, m = h_s/s, g_c, h_c, g_cc)
    with φ = atan2(s, c); series in x = s/c near the identity. Raises ValueError near a
    half turn (φ → π), where the log map is singular."""
    rho2 = s * s + c * c
    if c > 0.0 and s < 0.05 * c:
        x2 = (s / c) ** 2
        # G = atan(x)/x, H = G'(x)/x, M = H'(x)/x as even power series in x
        G = 0.0
        H = 0.0
        M = 0.0
        xp = 1.0
        sign = 1.0
        for n in range(10):
            G += sign * xp / (2 * n + 1)
            xp *= x2
            sign = -sign
        sign = -1.0
        xp = 1.0  # x^(2n−2) for H, x^(2n−4) for M
        for n in range(1, 11):
            H += sign * (2.0 * n / (2 * n + 1)) * xp
            xp *= x2
            sign = -sign
        xp = 1.0
        sign = 1.0
        for n in range(2, 12):
            M += sign * (2.0 * n * (2 * n - 2) / (2 * n + 1)) * xp
            xp *= x2
            sign = -sign
        g = G / c
        h = H / c ** 3
        m = M / c ** 5
    else:
        rho = np.sqrt(rho2)
        if not s > NEAR_PI * rho:
            raise ValueError("rotational spring: the relative rotation reached a half turn (|θ| → π), where the "
                             "rotation-vector energy is singular; keep |θ| < π")
        phi = np.arctan2(s, c)
        g = phi / s
        h = (c * s / rho2 - phi) / (s * s * s)
        m = (3.0 * phi / s - c * (2.0 * s * s + 3.0 * rho2) / (rho2 * rho2)) / (s * s * s * s)
    return g, h, m, -1.0 / rho2, 2.0 / (rho2 * rho2), 2.0 * c / (rho2 * rho2)


@jit(internal=True)
def _energy(p, e, r, grad, hess, want):
    """U(r) = Σ ½ k_i (θ_i − θ0_i)² at invariants r (4,); writes ∇U (4,) when want ≥ 1
    and ∇²U (4, 4) when want ≥ 2; returns (U, θ (3,), M (3,)) (M the joint-frame
    moments)."""
    w0, w1, w2, c = r[0], r[1], r[2], r[3]
    s = np.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
    if not (s * s + c * c) > 0.0:
        raise ValueError("rotational spring: degenerate averaged relative rotation (mid-point step too large)")
    g, h, m, gc, hc, gcc = _log_coefficients(s, c)
    w = np.empty(3)
    w[0], w[1], w[2] = w0, w1, w2
    th = np.empty(3)
    M = np.empty(3)
    Ks = np.empty(3)
    U = 0.0
    for a in range(3):
        th[a] = g * w[a]
        d = th[a] - p[e, 6 + a]
        M[a] = p[e, a] * d
        Ks[a] = p[e, a]
        U += 0.5 * p[e, a] * d * d
    n_s = law_counts(p, e, N_PARAMS)[0]
    if n_s > 0:  # the spring law on the twist about the axis
        Vl, Fl, dFl = law_value(p, e, np.int64(LAW_COL), n_s, th[0] - p[e, 6])
        U += Vl
        M[0] += Fl
        Ks[0] += dFl
    if want >= 1:
        J = np.empty((3, 4))  # ∂θ/∂r
        for a in range(3):
            for b in range(3):
                J[a, b] = h * w[a] * w[b] + (g if a == b else 0.0)
            J[a, 3] = gc * w[a]
        for b in range(4):
            grad[b] = M[0] * J[0, b] + M[1] * J[1, b] + M[2] * J[2, b]
        if want >= 2:
            Mw = M[0] * w[0] + M[1] * w[1] + M[2] * w[2]
            for b in range(4):
                for d in range(4):
                    acc = 0.0
                    for a in range(3):
                        acc += Ks[a] * J[a, b] * J[a, d]
                    hess[b, d] = acc
            for b in range(3):
                for d in range(3):
                    hess[b, d] += h * (M[b] * w[d] + w[b] * M[d]) + m * Mw * w[b] * w[d] + (h * Mw if b == d else 0.0)
                hess[b, 3] += gc * M[b] + hc * Mw * w[b]
                hess[3, b] = hess[b, 3]
            hess[3, 3] += gcc * Mw
    return U, th, M


# ---------------------------------------------------------------------------- statics


@jit(internal=True)
def _spin_moments(A1, A2, P, a, b, Z, f, e, n):
    """Nodal moments of the coefficients P (3, 3) on the director pairs: Z (3,) =
    Σ_ij P_ij a1_i × a2_j (a1_i, a2_j the columns of A1, A2), written into f[e] (6n,) as
    Z on the spin slots of node 1 and −Z on those of the last node (n = 2; ground, n = 1:
    −Z only), zeros elsewhere; a, b (3,) work. Returns the offset of the last node's spin
    slots in f[e]."""
    Z[:] = 0.0
    for i in range(3):
        for j in range(3):
            for t in range(3):
                a[t] = A1[t, i]
                b[t] = A2[t, j]
            add_cross(a, b, P[i, j], Z)
    f[e, :] = 0.0
    o = 6 * (n - 1) + 3  # rotational slots of the last node
    for t in range(3):
        f[e, o + t] = -Z[t]
        if n == 2:
            f[e, 3 + t] = Z[t]
    return o


@jit(internal=True)
def _static(X, u, R, p, f, K, want_K):
    n = X.shape[1]
    A = np.empty((3, 3))
    A1 = np.empty((3, 3))
    A2 = np.empty((3, 3))
    r = np.empty(4)
    G = np.empty(4)
    H = np.empty((4, 4))
    B = np.empty((4, 3))
    P = np.empty((3, 3))
    Y = np.empty((3, 3))
    Z = np.empty(3)
    a = np.empty(3)
    b = np.empty(3)
    BHB = np.empty((3, 3))
    for e in range(u.shape[0]):
        _frame(p, e, A)
        _node_directors(R, e, n, A, A1, A2)
        _reduced(A1, A2, r)
        _energy(p, e, r, G, H, 2 if want_K else 1)
        _coefficient_matrix(G, P)
        o = _spin_moments(A1, A2, P, a, b, Z, f, e, n)
        if not want_K:
            continue
        K[e, :, :] = 0.0
        _variation(A1, A2, B)
        for i in range(3):
            for j in range(3):
                acc = 0.0
                for k in range(4):
                    for m in range(4):
                        acc += B[k, i] * H[k, m] * B[m, j]
                BHB[i, j] = acc
        s = _turn(A1, A2, P, Y)
        for i in range(3):
            for j in range(3):
                d = s if i == j else 0.0
                K[e, o + i, o + j] = BHB[i, j] - d + Y[j, i]  # δf_w2/δw2
                if n == 2:
                    K[e, 3 + i, 3 + j] = BHB[i, j] + Y[i, j] - d
                    K[e, 3 + i, o + j] = -BHB[i, j] + d - Y[j, i]
                    K[e, o + i, 3 + j] = -BHB[i, j] - Y[i, j] + d


@jit
def internal_force(X, u, R, p, f):
    """Moments f_w1 = Σ P_ij a1_i × a2_j = −f_w2 conjugate to the nodal spins (module
    docstring); translations get zero."""
    _static(X, u, R, p, f, np.empty((0, 0, 0)), False)


@jit
def tangent(X, u, R, p, f, K):
    """Internal force and its exact derivative with respect to the nodal spins."""
    _static(X, u, R, p, f, K, True)


@jit(internal=True)
def _outputs(X, u, R, p, out, what):
    """Per element: 0 the energy out[e, 0], 1 the joint-frame moments out[e, :3], 2 the
    relative rotation vector θ out[e, :3]."""
    n = X.shape[1]
    A = np.empty((3, 3))
    A1 = np.empty((3, 3))
    A2 = np.empty((3, 3))
    r = np.empty(4)
    dummy = np.empty(4)
    dummy2 = np.empty((4, 4))
    for e in range(u.shape[0]):
        _frame(p, e, A)
        _node_directors(R, e, n, A, A1, A2)
        _reduced(A1, A2, r)
        U, th, M = _energy(p, e, r, dummy, dummy2, np.int64(0))
        if what == 0:
            out[e, 0] = U
        else:
            for k in range(3):
                out[e, k] = M[k] if what == 1 else th[k]


@jit
def resultants(X, u, R, p, s):
    """Joint-frame moments s (n_el, 3) = (Mx, My, Mz), M_i = k_i (θ_i − θ0_i) (+ the twist
    law on Mx)."""
    _outputs(X, u, R, p, s, 1)


@jit(internal=True)
def relative_rotation(X, u, R, p, out):
    """Rotation vector θ (n_el, 3) of the relative rotation in the joint frame (rad)."""
    _outputs(X, u, R, p, out, 2)


@jit
def strain_energy(X, u, R, p, out):
    """V = Σ ½ k_i (θ_i − θ0_i)² (+ the twist law's energy) per element."""
    _outputs(X, u, R, p, out.reshape((out.shape[0], 1)), 0)


@jit
def geometric_stiffness(X, u, R, p, s, K):
    """No stress stiffness: the spring's tangent is entirely in ``tangent``."""
    K[:, :, :] = 0.0


@jit
def mass(X, u, R, p, kind, M):
    """Massless: M = 0 for every kind."""
    zero_mass(X, u, p, kind, M)


# ---------------------------------------------------------------------------- mid-point force


@jit
def midpoint_force(X, u0, R0, u1, R1, um, Rm, psi, D, p, f, K):
    """Energy- and momentum-exact discrete gradient of the step R0 → R1 = cay(ψ) R0 (module
    docstring): f̄_ψ1 = B(ā)ᵀ D = −f̄_ψ2 (ground: f̄_ψ = −B(ā)ᵀ D) with Gonzalez's D in the
    invariants r = (w, c), so f̄·ψ = ΔV; K = ∂f̄/∂(Δx, ψ) exact (the translations carry
    nothing). um, Rm, D (mid configuration) are accepted for the solver's call and not
    needed."""
    n = X.shape[1]
    A = np.empty((3, 3))
    A1a, A2a, A1b, A2b, A1m, A2m = (np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)),
                                    np.empty((3, 3)), np.empty((3, 3)))
    ra, rb, rm, dr = np.empty(4), np.empty(4), np.empty(4), np.empty(4)
    Gm, G1, Dg, zc = np.empty(4), np.empty(4), np.empty(4), np.empty(4)
    H = np.empty((4, 4))
    Kp = np.empty((4, 4))
    Bm = np.empty((4, 3))
    B1 = np.empty((4, 3))
    P = np.empty((3, 3))
    Y1 = np.empty((3, 3))
    Y2 = np.empty((3, 3))
    W1 = np.empty((3, 3))
    W2 = np.empty((3, 3))
    T1 = np.empty((3, 3))
    T2 = np.empty((3, 3))
    dummy = np.empty((4, 4))
    orders = np.arange(3)
    dpsi = np.empty(3)
    a = np.empty(3)
    b = np.empty(3)
    Z = np.empty(3)
    for e in range(u1.shape[0]):
        _frame(p, e, A)
        _node_directors(R0, e, n, A, A1a, A2a)
        _node_directors(R1, e, n, A, A1b, A2b)
        for i in range(3):
            for j in range(3):
                A1m[i, j] = 0.5 * (A1a[i, j] + A1b[i, j])
                A2m[i, j] = 0.5 * (A2a[i, j] + A2b[i, j])
        _reduced(A1a, A2a, ra)
        _variation(A1m, A2m, Bm)
        for k in range(3):
            dpsi[k] = (psi[e, 0, k] if n == 2 else 0.0) - psi[e, n - 1, k]
        den = 0.0
        for r in range(4):
            dr[r] = Bm[r, 0] * dpsi[0] + Bm[r, 1] * dpsi[1] + Bm[r, 2] * dpsi[2]
            rb[r] = ra[r] + dr[r]
            rm[r] = ra[r] + 0.5 * dr[r]
            den += dr[r] * dr[r]
        V0 = _energy(p, e, ra, Gm, dummy, orders[0])[0]  # run-time orders: one specialization
        V1 = _energy(p, e, rb, G1, dummy, orders[1])[0]
        _energy(p, e, rm, Gm, H, orders[2])
        num = V1 - V0
        for r in range(4):
            num -= Gm[r] * dr[r]
        sden = den + EPS_DG * EPS_DG
        cc = num / sden if den > 0.0 else 0.0
        for r in range(4):
            Dg[r] = Gm[r] + cc * dr[r]
        _coefficient_matrix(Dg, P)
        o = _spin_moments(A1m, A2m, P, a, b, Z, f, e, n)
        K[e, :, :] = 0.0
        # Newton matrix: δZ = Bmᵀ Kp B1 (δw1 − δw2) + ½ [(Y1 − s1 I) δw1 + (s2 I − Y2ᵀ) δw2],
        # Kp = ½ ∇²U(r̄) + Δr zcᵀ + cc I, δw_a = T(ψ_a) δψ_a
        _variation(A1b, A2b, B1)
        for k in range(4):
            for m in range(4):
                Kp[k, m] = 0.5 * H[k, m] + (cc if k == m else 0.0)
        if den > 0.0:
            for k in range(4):
                acc = 0.0
                for m in range(4):
                    acc += H[k, m] * dr[m]
                zc[k] = (G1[k] - Gm[k] - 0.5 * acc - 2.0 * cc * dr[k]) / sden
            for k in range(4):
                for m in range(4):
                    Kp[k, m] += dr[k] * zc[m]
        s1 = _turn(A1b, A2m, P, Y1)
        s2 = _turn(A1m, A2b, P, Y2)
        for i in range(3):
            for j in range(3):
                acc = 0.0
                for k in range(4):
                    for m in range(4):
                        acc += Bm[k, i] * Kp[k, m] * B1[m, j]
                W1[i, j] = acc + 0.5 * (Y1[i, j] - (s1 if i == j else 0.0))
                W2[i, j] = -acc + 0.5 * ((s2 if i == j else 0.0) - Y2[j, i])
        cayley_spin_jacobian(psi[e, n - 1], T2)
        if n == 2:
            cayley_spin_jacobian(psi[e, 0], T1)
        for i in range(3):
            for j in range(3):
                k2 = W2[i, 0] * T2[0, j] + W2[i, 1] * T2[1, j] + W2[i, 2] * T2[2, j]
                K[e, o + i, o + j] = -k2
                if n == 2:
                    k1 = W1[i, 0] * T1[0, j] + W1[i, 1] * T1[1, j] + W1[i, 2] * T1[2, j]
                    K[e, 3 + i, 3 + j] = k1
                    K[e, 3 + i, o + j] = k2
                    K[e, o + i, 3 + j] = -k1


# ---------------------------------------------------------------------------- damping


@jit(internal=True)
def _damper_frame(R, e, n, A, E):
    """Joint frame of node 1, E = R1 A (ground: A)."""
    if n == 2:
        _directors(R, e, np.int64(0), A, E)  # not a literal: one specialization
    else:
        for i in range(3):
            for j in range(3):
                E[i, j] = A[i, j]


@jit(internal=True)
def _damper_kernel(X, u, R, v, p, f, C, linearize):
    """Damper moments and C = ∂f/∂v (``linearize``: the matrix at v = 0 only)."""
    n = X.shape[1]
    A = np.empty((3, 3))
    E = np.empty((3, 3))
    Cs = np.empty((3, 3))
    m = np.empty(3)
    dF = np.empty(3)
    o = 6 * (n - 1) + 3
    for e in range(u.shape[0]):
        _frame(p, e, A)
        _damper_frame(R, e, n, A, E)
        for a in range(3):
            om = 0.0
            if not linearize:
                for k in range(3):
                    om += E[k, a] * (v[e, o + k] - (v[e, 3 + k] if n == 2 else 0.0))
            F, dF[a] = _damper_axis(p, e, a, om)
            m[a] = F
        for i in range(3):
            for j in range(3):
                Cs[i, j] = dF[0] * E[i, 0] * E[j, 0] + dF[1] * E[i, 1] * E[j, 1] + dF[2] * E[i, 2] * E[j, 2]
        C[e, :, :] = 0.0
        for i in range(3):
            for j in range(3):
                C[e, o + i, o + j] = Cs[i, j]
                if n == 2:
                    C[e, 3 + i, 3 + j] = Cs[i, j]
                    C[e, 3 + i, o + j] = -Cs[i, j]
                    C[e, o + i, 3 + j] = -Cs[i, j]
        if linearize:
            continue
        f[e, :] = 0.0
        for i in range(3):
            mi = E[i, 0] * m[0] + E[i, 1] * m[1] + E[i, 2] * m[2]
            f[e, o + i] = mi
            if n == 2:
                f[e, 3 + i] = -mi


@jit
def damping(X, u, R, p, C):
    """Linear damping matrix on the relative angular velocity: blocks ±E diag(c) Eᵀ on the
    rotational slots (E = R1 A, ground: A; with a damper law c_x + M_d'(0) on the axis)."""
    _damper_kernel(X, u, R, np.zeros((1, 1)), p, np.zeros((1, 1)), C, True)


@jit
def damper_force(X, u, R, v, p, f, C):
    """Damper moments at rotations R and nodal angular velocities v (rotational slots):
    m = E M_d(Eᵀ (ω2 − ω1)) on node 2, −m on node 1 (ground: ω2 − ω1 → ω), M_d,i = c_i ω_i
    (plus the damper law on the twist rate); C = ∂f/∂v = ±E diag(M_d') Eᵀ."""
    _damper_kernel(X, u, R, v, p, f, C, False)


# ---------------------------------------------------------------------------- specs


KERNELS = ElementKernels(
    internal_force=internal_force,
    tangent=tangent,
    resultants=resultants,
    geometric_stiffness=geometric_stiffness,
    strain_energy=strain_energy,
    mass=mass,
    midpoint_force=midpoint_force,
    damping=damping,
    damper_force=damper_force,
)

_DOFS = ("ux", "uy", "uz", "rx", "ry", "rz")


def _spec(name, cell_type, n_nodes, description):
    return spring_spec(name, cell_type, n_nodes, 3, _DOFS, PARAMS, dict(DEFAULTS), ("Mx", "My", "Mz"), KERNELS, False,
                       description, oriented=True)


SPECS = {
    "rotational_spring3d": _spec(
        "rotational_spring3d", "line", 2,
        "3-D rotational spring-damper between two oriented nodes, V = Σ ½k_i(θ_i − θ0_i)², θ = log((R1A)ᵀR2A) in "
        "the joint frame A; damping c_i on the relative angular velocity; energy-momentum mid-point force"),
    "rotational_spring3d_ground": _spec(
        "rotational_spring3d_ground", "vertex", 1,
        "3-D rotational spring-damper from an oriented node to the ground, θ = log(Aᵀ R A); energy-momentum mid-point force"),
}
