"""Every rotation helper of femb: hat map and cross products, exponential, robust
logarithm, tangent maps, the Cayley map of the energy-conserving dynamics (and the planar
coefficient φ/sin φ of the Cayley mid-point forces). Compiled per-rotation functions for
the element kernels, batch versions for the solvers and joints; no other module defines
its own.

Conventions (used by every oriented element and by the solvers):

- A rotation vector θ (3,) [rad] represents R = exp(θ̂), θ̂ the skew matrix with θ̂ b = θ × b.
- Rotations are perturbed on the left by a *spatial* spin ω: δR = ω̂ R, i.e. the update
  R ← exp(ω̂) R (``spin_update``).
- ``left_jacobian`` J(θ) maps rotation-vector increments to spatial spins,
  ω = J(θ) δθ, with J(θ) = I + (1 − cos t)/t² θ̂ + (t − sin t)/t³ θ̂², t = |θ|;
  ``left_jacobian_inverse`` gives δθ = J(θ)⁻¹ ω, J⁻¹ = I − ½ θ̂ + d(t) θ̂²,
  d(t) = (1 − (t/2) cot(t/2))/t². J⁻¹ is singular at t = 2π; the logarithm returns
  t ≤ π, where it is regular.
- ``log_so3`` goes through the unit quaternion (Shepperd's choice of the largest
  component), so it has no singularity at any angle: small angles are exact to round-off,
  angles near π are well conditioned (the result has |θ| ≤ π; at exactly π either sign of
  the axis is a valid logarithm), and matrices from any number of turns are fine.

- The Cayley map of a vector ψ (3,) (|ψ| = 2 tan(φ/2) for a rotation by φ about ψ/|ψ|,
  φ < π) is cay(ψ) = (I − ψ̂/2)⁻¹(I + ψ̂/2) = I + (ψ̂ + ψ̂²/2)/(1 + |ψ|²/4), the rotation
  increment of the energy-conserving mid-point step (R_{n+1} = cay(ψ) R_n). Its inverse
  is ψ = 2 vee(C − Cᵀ)/(1 + tr C); the spatial spin of a variation is
  δC Cᵀ = (T δψ)^ with T(ψ) = (I + ψ̂/2)/(1 + |ψ|²/4) (``cayley_spin_jacobian``); the
  half rotation cay(ψ_m)² = cay(ψ) has ψ_m = ψ/(1 + √(1 + |ψ|²/4)).

Scalar coefficient functions switch to Taylor series for small t so that nothing loses
precision near the identity. The per-rotation functions are compiled and write into
caller-provided arrays (no allocation); ``exp_batch``, ``log_batch`` and ``spin_update``
loop them over a leading axis (compiled, into ``out``). The numpy batch maps
(``hat_batch``, ``cross_batch``, ``cayley_batch``, ``cayley_vector_batch``,
``cayley_spin_jacobian_batch``, ``cayley_half_batch``) take any leading shape, a single
vector or matrix included, and return new arrays: they serve the solvers and the joints,
which work on whole arrays of nodes in numpy.
"""
import math

import numpy as np

from femb.core.jit import jit

# t below which the coefficient functions use their Taylor series (in t²); the series
# below are truncated where the next term is < 1e-17 relative at t = 0.5. The coefficients
# of d are |B_{2k+2}|/(2k+2)! (Bernoulli numbers), those of e = d′/t are 2k times them.
_SERIES_T = 0.5
_C_SERIES = (1.0 / 6.0, -1.0 / 120.0, 1.0 / 5040.0, -1.0 / 362880.0, 1.0 / 39916800.0,
             -1.0 / 6227020800.0, 1.0 / 1307674368000.0, -1.0 / 355687428096000.0)
_D_SERIES = (1.0 / 12.0, 1.0 / 720.0, 1.0 / 30240.0, 1.0 / 1209600.0, 1.0 / 47900160.0,
             691.0 / 1307674368000.0, 1.0 / 74724249600.0, 3617.0 / 10670622842880000.0,
             43867.0 / 5109094217170944000.0, 174611.0 / 802857662698291200000.0)
_E_SERIES = (1.0 / 360.0, 1.0 / 7560.0, 1.0 / 201600.0, 1.0 / 5987520.0, 691.0 / 130767436800.0,
             1.0 / 6227020800.0, 3617.0 / 762187345920000.0, 43867.0 / 319318388573184000.0,
             174611.0 / 44603203483238400000.0)


@jit(internal=True)
def _horner(coefs, x):
    """Σ coefs[k] x^k."""
    acc = 0.0
    for k in range(len(coefs) - 1, -1, -1):
        acc = acc * x + coefs[k]
    return acc


# --------------------------------------------------------------------------- coefficients
@jit(internal=True)
def coef_sinc(t):
    """sin(t)/t."""
    if t < 1e-4:
        return 1.0 - t * t / 6.0
    return math.sin(t) / t


@jit(internal=True)
def coef_b(t):
    """(1 − cos t)/t² = ½ (sin(t/2)/(t/2))² (no cancellation)."""
    s = coef_sinc(0.5 * t)
    return 0.5 * s * s


@jit(internal=True)
def coef_c(t):
    """(t − sin t)/t³."""
    if t < _SERIES_T:
        return _horner(_C_SERIES, t * t)
    return (t - math.sin(t)) / (t * t * t)


@jit(internal=True)
def coef_d(t):
    """(1 − (t/2) cot(t/2))/t², the θ̂² coefficient of the inverse left Jacobian."""
    if t < _SERIES_T:
        return _horner(_D_SERIES, t * t)
    x = 0.5 * t
    return (1.0 - x * math.cos(x) / math.sin(x)) / (t * t)


@jit(internal=True)
def coef_e(t):
    """d′(t)/t with d = ``coef_d``."""
    if t < _SERIES_T:
        return _horner(_E_SERIES, t * t)
    x = 0.5 * t
    s = math.sin(x)
    xcot = x * math.cos(x) / s
    dd = 0.5 * (-math.cos(x) / s + x / (s * s)) / (t * t) - 2.0 * (1.0 - xcot) / (t * t * t)
    return dd / t


# --------------------------------------------------------------------------- per rotation
@jit(internal=True)
def norm3(v):
    """Euclidean norm of a (3,) vector."""
    return math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])


@jit
def hat(v, out):
    """out (3, 3) = v̂, the skew matrix with v̂ b = v × b."""
    out[0, 0] = 0.0
    out[0, 1] = -v[2]
    out[0, 2] = v[1]
    out[1, 0] = v[2]
    out[1, 1] = 0.0
    out[1, 2] = -v[0]
    out[2, 0] = -v[1]
    out[2, 1] = v[0]
    out[2, 2] = 0.0


@jit(internal=True)
def add_cross(a, b, scale, out):
    """out (3,) += scale · a × b for a, b (3,)."""
    out[0] += scale * (a[1] * b[2] - a[2] * b[1])
    out[1] += scale * (a[2] * b[0] - a[0] * b[2])
    out[2] += scale * (a[0] * b[1] - a[1] * b[0])


@jit(internal=True)
def _quadratic_form(v, a, b, out):
    """out (3, 3) = I + a v̂ + b v̂² (v̂² = v vᵀ − |v|² I)."""
    v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2]
    for i in range(3):
        for j in range(3):
            out[i, j] = b * v[i] * v[j]
        out[i, i] += 1.0 - b * v2
    out[0, 1] -= a * v[2]
    out[0, 2] += a * v[1]
    out[1, 0] += a * v[2]
    out[1, 2] -= a * v[0]
    out[2, 0] -= a * v[1]
    out[2, 1] += a * v[0]


@jit
def exp_so3(theta, out):
    """out (3, 3) = exp(θ̂) (Rodrigues), θ (3,) in rad."""
    t = norm3(theta)
    _quadratic_form(theta, coef_sinc(t), coef_b(t), out)


@jit(internal=True)
def cayley(psi, out):
    """out (3, 3) = cay(ψ) = I + (ψ̂ + ψ̂²/2)/(1 + |ψ|²/4) for a Cayley vector ψ (3,): the
    rotation by 2 atan(|ψ|/2) about ψ/|ψ|."""
    den = 1.0 + 0.25 * (psi[0] * psi[0] + psi[1] * psi[1] + psi[2] * psi[2])
    _quadratic_form(psi, 1.0 / den, 0.5 / den, out)


@jit(internal=True)
def quat_from_matrix(R):
    """Unit quaternion (w, x, y, z), w ≥ 0, of the rotation matrix R (3, 3) (Shepperd: the
    branch of the largest of w², x², y², z²; normalised). Returns a tuple of 4 floats."""
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    if tr >= R[0, 0] and tr >= R[1, 1] and tr >= R[2, 2]:
        w = 0.5 * math.sqrt(max(1.0 + tr, 0.0))
        f = 0.25 / w
        x = (R[2, 1] - R[1, 2]) * f
        y = (R[0, 2] - R[2, 0]) * f
        z = (R[1, 0] - R[0, 1]) * f
    elif R[0, 0] >= R[1, 1] and R[0, 0] >= R[2, 2]:
        x = 0.5 * math.sqrt(max(1.0 + 2.0 * R[0, 0] - tr, 0.0))
        f = 0.25 / x
        w = (R[2, 1] - R[1, 2]) * f
        y = (R[0, 1] + R[1, 0]) * f
        z = (R[0, 2] + R[2, 0]) * f
    elif R[1, 1] >= R[2, 2]:
        y = 0.5 * math.sqrt(max(1.0 + 2.0 * R[1, 1] - tr, 0.0))
        f = 0.25 / y
        w = (R[0, 2] - R[2, 0]) * f
        x = (R[0, 1] + R[1, 0]) * f
        z = (R[1, 2] + R[2, 1]) * f
    else:
        z = 0.5 * math.sqrt(max(1.0 + 2.0 * R[2, 2] - tr, 0.0))
        f = 0.25 / z
        w = (R[1, 0] - R[0, 1]) * f
        x = (R[0, 2] + R[2, 0]) * f
        y = (R[1, 2] + R[2, 1]) * f
    n = math.sqrt(w * w + x * x + y * y + z * z)
    if w < 0.0:
        n = -n
    return w / n, x / n, y / n, z / n


@jit
def log_so3(R, out):
    """out (3,) = θ with exp(θ̂) = R and |θ| ≤ π (robust at every angle, see module doc)."""
    w, x, y, z = quat_from_matrix(R)
    s = math.sqrt(x * x + y * y + z * z)
    if s < 1e-4 * w:
        # 2 atan(s/w)/s by its series (w > 0.99 here)
        r2 = (s / w) ** 2
        factor = 2.0 / w * (1.0 - r2 / 3.0 + r2 * r2 / 5.0 - r2 * r2 * r2 / 7.0)
    else:
        factor = 2.0 * math.atan2(s, w) / s
    out[0] = factor * x
    out[1] = factor * y
    out[2] = factor * z


@jit
def left_jacobian(theta, out):
    """out (3, 3) = J(θ), spatial spin ω = J(θ) δθ for R = exp(θ̂)."""
    t = norm3(theta)
    _quadratic_form(theta, coef_b(t), coef_c(t), out)


@jit
def left_jacobian_inverse(theta, out):
    """out (3, 3) = J(θ)⁻¹ = I − ½ θ̂ + d(t) θ̂² (δθ = J⁻¹ ω), regular for |θ| < 2π."""
    t = norm3(theta)
    _quadratic_form(theta, -0.5, coef_d(t), out)


@jit
def left_jacobian_inverse_T_derivative(theta, m, out):
    """out (3, 3) = ∂(J(θ)⁻ᵀ m)/∂θ for a fixed vector m (3,).

    With J⁻ᵀ m = m + ½ θ × m + d(t) θ × (θ × m):
    ∂/∂θ = −½ m̂ + d [(θ·m) I + θ mᵀ − 2 m θᵀ] + e(t) (θ (θ·m) − m |θ|²) θᵀ, e = d′/t.
    """
    t = norm3(theta)
    d = coef_d(t)
    e = coef_e(t)
    tm = theta[0] * m[0] + theta[1] * m[1] + theta[2] * m[2]
    tt = t * t
    for i in range(3):
        wi = e * (theta[i] * tm - m[i] * tt)
        for j in range(3):
            out[i, j] = d * (theta[i] * m[j] - 2.0 * m[i] * theta[j]) + wi * theta[j]
        out[i, i] += d * tm
    out[0, 1] += 0.5 * m[2]
    out[0, 2] -= 0.5 * m[1]
    out[1, 0] -= 0.5 * m[2]
    out[1, 2] += 0.5 * m[0]
    out[2, 0] += 0.5 * m[1]
    out[2, 1] -= 0.5 * m[0]


# --------------------------------------------------------------------------- batches
@jit
def exp_batch(theta, out):
    """out (n, 3, 3) = exp(θ̂_i) for θ (n, 3)."""
    for i in range(theta.shape[0]):
        exp_so3(theta[i], out[i])


@jit
def log_batch(R, out):
    """out (n, 3) = log(R_i) with |θ_i| ≤ π, for R (n, 3, 3)."""
    for i in range(R.shape[0]):
        log_so3(R[i], out[i])


@jit
def left_jacobian_inverse_batch(theta, out):
    """out (n, 3, 3) = J(θ_i)⁻¹ (``left_jacobian_inverse``) for θ (n, 3)."""
    for i in range(theta.shape[0]):
        left_jacobian_inverse(theta[i], out[i])


@jit
def spin_update(R, w):
    """In place R_i ← exp(ŵ_i) R_i for R (n, 3, 3) and spatial spins w (n, 3) (the
    multiplicative update of nodal rotations)."""
    E = np.empty((3, 3))
    T = np.empty((3, 3))
    for i in range(R.shape[0]):
        exp_so3(w[i], E)
        for a in range(3):
            for b in range(3):
                T[a, b] = E[a, 0] * R[i, 0, b] + E[a, 1] * R[i, 1, b] + E[a, 2] * R[i, 2, b]
        for a in range(3):
            for b in range(3):
                R[i, a, b] = T[a, b]


@jit(internal=True)
def phi_over_sin(phi):
    """S(φ) = φ/sin φ and its derivative S'(φ) (|φ| < π), with the series near φ = 0: the
    planar-rotation coefficient of the Cayley mid-point forces (beam2d, rotational springs)."""
    if abs(phi) < 0.05:
        p2 = phi * phi
        S = 1.0 + p2 * (1.0 / 6.0 + p2 * (7.0 / 360.0 + p2 * (31.0 / 15120.0 + p2 * 127.0 / 604800.0)))
        dS = phi * (1.0 / 3.0 + p2 * (7.0 / 90.0 + p2 * (31.0 / 2520.0 + p2 * 127.0 / 75600.0)))
        return S, dS
    sn = math.sin(phi)
    return phi / sn, (sn - phi * math.cos(phi)) / (sn * sn)


@jit(internal=True)
def cayley_spin_jacobian(ps, Tp):
    """Tp (3, 3) = (I + ψ̂/2)/(1 + |ψ|²/4): the spatial spin of cay(ψ) R per variation δψ of
    the Cayley vector ψ (3,) of a rotation increment (written into ``Tp``)."""
    den = 1.0 + 0.25 * (ps[0] * ps[0] + ps[1] * ps[1] + ps[2] * ps[2])
    Tp[0, 0], Tp[0, 1], Tp[0, 2] = 1.0 / den, -0.5 * ps[2] / den, 0.5 * ps[1] / den
    Tp[1, 0], Tp[1, 1], Tp[1, 2] = 0.5 * ps[2] / den, 1.0 / den, -0.5 * ps[0] / den
    Tp[2, 0], Tp[2, 1], Tp[2, 2] = -0.5 * ps[1] / den, 0.5 * ps[0] / den, 1.0 / den


@jit(internal=True)
def cayley_vector(C, out):
    """out (3,) = ψ = 2 vee(C − Cᵀ)/(1 + tr C), the Cayley vector of a rotation C (3, 3)
    (rotation angle < π; inverse of ``cayley``)."""
    f = 2.0 / (1.0 + C[0, 0] + C[1, 1] + C[2, 2])
    out[0] = f * (C[2, 1] - C[1, 2])
    out[1] = f * (C[0, 2] - C[2, 0])
    out[2] = f * (C[1, 0] - C[0, 1])


@jit
def cayley_turn(psi0, psi1):
    """Largest rotation angle (rad) of cay(ψ1_i) cay(ψ0_i)ᵀ over the rows of ψ0, ψ1 (n, 3):
    how far the rotations of two Cayley increments of the same nodes lie apart."""
    A = np.empty((3, 3))
    B = np.empty((3, 3))
    C = np.empty((3, 3))
    v = np.empty(3)
    worst = 0.0
    for i in range(psi0.shape[0]):
        cayley(psi1[i], A)
        cayley(psi0[i], B)
        for a in range(3):
            for b in range(3):
                C[a, b] = A[a, 0] * B[b, 0] + A[a, 1] * B[b, 1] + A[a, 2] * B[b, 2]
        cayley_vector(C, v)
        angle = 2.0 * math.atan(0.5 * math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]))
        if angle > worst:
            worst = angle
    return worst


@jit(internal=True)
def mat3(A, B, out):
    """out (3, 3) = A B for A, B (3, 3)."""
    for a in range(3):
        for b in range(3):
            out[a, b] = A[a, 0] * B[0, b] + A[a, 1] * B[1, b] + A[a, 2] * B[2, b]


@jit(internal=True)
def half_cayley_vector(psi, half):
    """half (3,) = ψ_h = ψ/(1 + s), the Cayley vector of the half rotation (cay(ψ_h)² =
    cay(ψ), the geodesic mid-point); returns s = √(1 + |ψ|²/4)."""
    s = math.sqrt(1.0 + 0.25 * (psi[0] * psi[0] + psi[1] * psi[1] + psi[2] * psi[2]))
    for b in range(3):
        half[b] = psi[b] / (1.0 + s)
    return s


@jit
def cayley_step_batch(psi, R0, J, pi0, h, C, R1, Rm, D, pi1, dr):
    """Rotation kinematics and rotary inertia of a Cayley step, per node i (k nodes):

    - C = cay(ψ), R1 = C R0, Rm = cay(ψ_m) R0 (the half rotation, cay(ψ_m)² = C), and
      D = T(ψ_m) dψ_m/dψ (the spatial spin of Rm per δψ);
    - the Simo–Wong momentum update π1 = C a, a = (2/h) J ψ − π0, with J = R0 J0 R0ᵀ the
      spatial inertia, and the derivative of the inertia residual (π1 − π0)/h:
      dr = ((2/h) C J − ½ (I − ψ̂/2)⁻¹ (a + π1)^)/h, (I − ψ̂/2)⁻¹ = (I + ψ̂/2 + ψψᵀ/4)/(1 + |ψ|²/4).

    Inputs ψ (k, 3), R0 (k, 3, 3), J (k, 3, 3), π0 (k, 3), step h; outputs (written) C,
    R1, Rm, D, dr (k, 3, 3) and π1 (k, 3)."""
    H = np.empty((3, 3))
    Ch = np.empty((3, 3))
    T = np.empty((3, 3))
    dh = np.empty((3, 3))
    Ai = np.empty((3, 3))
    half = np.empty(3)
    a = np.empty(3)
    w = np.empty(3)
    for i in range(psi.shape[0]):
        p = psi[i]
        s2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2]
        cayley(p, C[i])
        mat3(C[i], R0[i], R1[i])
        sq = half_cayley_vector(p, half)
        cayley(half, Ch)
        mat3(Ch, R0[i], Rm[i])
        q = 4.0 * sq * (1.0 + sq) ** 2
        for b in range(3):
            for c in range(3):
                dh[b, c] = (1.0 / (1.0 + sq) if b == c else 0.0) - p[b] * p[c] / q
        cayley_spin_jacobian(half, T)
        mat3(T, dh, D[i])
        for b in range(3):
            a[b] = (2.0 / h) * (J[i, b, 0] * p[0] + J[i, b, 1] * p[1] + J[i, b, 2] * p[2]) - pi0[i, b]
        for b in range(3):
            pi1[i, b] = C[i, b, 0] * a[0] + C[i, b, 1] * a[1] + C[i, b, 2] * a[2]
            w[b] = a[b] + pi1[i, b]
        den = 1.0 + 0.25 * s2
        for b in range(3):
            for c in range(3):
                Ai[b, c] = ((1.0 if b == c else 0.0) + 0.25 * p[b] * p[c]) / den
        Ai[0, 1] -= 0.5 * p[2] / den
        Ai[0, 2] += 0.5 * p[1] / den
        Ai[1, 0] += 0.5 * p[2] / den
        Ai[1, 2] -= 0.5 * p[0] / den
        Ai[2, 0] -= 0.5 * p[1] / den
        Ai[2, 1] += 0.5 * p[0] / den
        hat(w, H)
        mat3(Ai, H, T)
        mat3(C[i], J[i], Ch)
        for b in range(3):
            for c in range(3):
                dr[i, b, c] = ((2.0 / h) * Ch[b, c] - 0.5 * T[b, c]) / h


# --------------------------------------------------------------------------- numpy batches
def _square_norm(v):
    """|v|² (...) of vectors v (..., 3)."""
    return v[..., 0] * v[..., 0] + v[..., 1] * v[..., 1] + v[..., 2] * v[..., 2]


def hat_batch(v):
    """Skew matrices (..., 3, 3) of vectors v (..., 3): hat_batch(v) b = v × b."""
    v = np.asarray(v, dtype=np.float64)
    if v.ndim == 1:  # one vector (the joints): a literal is several times faster
        return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])
    H = np.zeros(v.shape[:-1] + (3, 3))
    H[..., 0, 1], H[..., 0, 2], H[..., 1, 2] = -v[..., 2], v[..., 1], -v[..., 0]
    H[..., 1, 0], H[..., 2, 0], H[..., 2, 1] = v[..., 2], -v[..., 1], v[..., 0]
    return H


def cross_batch(a, b):
    """a × b (..., 3) of vectors a, b (..., 3) (broadcast; faster than np.cross for single
    vectors)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim == 1 and b.ndim == 1:  # two vectors (the joints): a literal is several times faster
        return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    out[..., 0] = a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1]
    out[..., 1] = a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2]
    out[..., 2] = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    return out


def cayley_batch(psi):
    """Rotations (..., 3, 3) cay(ψ) = I + (ψ̂ + ψ̂²/2)/(1 + |ψ|²/4) of Cayley vectors ψ
    (..., 3) (``cayley``)."""
    psi = np.asarray(psi, dtype=np.float64)
    H = hat_batch(psi)
    c = 4.0 / (4.0 + _square_norm(psi))
    return np.eye(3) + c[..., None, None] * (H + 0.5 * H @ H)


def cayley_vector_batch(C):
    """Cayley vectors ψ (..., 3) of rotations C (..., 3, 3) (rotation angle < π), the
    inverse of ``cayley_batch``: ψ = 2 vee(C − Cᵀ)/(1 + tr C)."""
    C = np.asarray(C, dtype=np.float64)
    tr = C[..., 0, 0] + C[..., 1, 1] + C[..., 2, 2]
    v = np.stack([C[..., 2, 1] - C[..., 1, 2], C[..., 0, 2] - C[..., 2, 0], C[..., 1, 0] - C[..., 0, 1]], axis=-1)
    return 2.0 * v / (1.0 + tr)[..., None]


def cayley_spin_jacobian_batch(psi):
    """T (..., 3, 3) = (I + ψ̂/2)/(1 + |ψ|²/4) of Cayley vectors ψ (..., 3): the spatial
    spin of a variation of C = cay(ψ), δC Cᵀ = (T δψ)^ (``cayley_spin_jacobian``)."""
    psi = np.asarray(psi, dtype=np.float64)
    d = 1.0 + 0.25 * _square_norm(psi)
    return (np.eye(3) + 0.5 * hat_batch(psi)) / d[..., None, None]


def cayley_half_batch(psi):
    """Cayley vectors ψ_m (..., 3) of the half rotations, cay(ψ_m)² = cay(ψ) (the geodesic
    mid-point): ψ_m = ψ/(1 + √(1 + |ψ|²/4)), and their derivatives dψ_m/dψ (..., 3, 3)."""
    psi = np.asarray(psi, dtype=np.float64)
    s = np.sqrt(1.0 + 0.25 * _square_norm(psi))
    half = psi / (1.0 + s)[..., None]
    d = np.eye(3) / (1.0 + s)[..., None, None] - np.einsum("...i,...j->...ij", psi, psi) / (4.0 * s * (1.0 + s) ** 2)[..., None, None]
    return half, d
