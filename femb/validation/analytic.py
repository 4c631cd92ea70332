"""Closed-form and independently computed reference solutions used by the cases."""
import numpy as np
from scipy.integrate import solve_bvp

from femb.core.errors import ConvergenceError


def rollup_tip(kappa, length):
    """Tip position (x, y) of a straight cantilever along x bent to constant curvature κ.

    The inextensible Euler–Bernoulli elastica under an end moment M has κ = M/EI
    everywhere, so the tip lies at (sin κL / κ, (1 − cos κL) / κ); κ = 0 gives (L, 0).
    """
    k = np.atleast_1d(np.asarray(kappa, dtype=np.float64))
    x = np.full(k.shape, float(length))
    y = np.zeros(k.shape)
    nz = k != 0.0
    x[nz] = np.sin(k[nz] * length) / k[nz]
    y[nz] = (1.0 - np.cos(k[nz] * length)) / k[nz]
    return x, y


def euler_load(EI, length, k=1.0, mode=1):
    """Euler's critical load (mode·π)²EI/(kL)² (k: effective-length factor)."""
    return (mode * np.pi) ** 2 * EI / (k * length) ** 2


def arch_load(w, a, h, EA):
    """Downward apex load P of a symmetric two-bar truss arch at apex deflection w.

    Bars from (±a, 0) to (0, h) with engineering strain (l − l0)/l0 and axial stiffness EA:
    with s = h − w and l = √(a² + s²), P = 2·EA·s·(1/l − 1/l0).
    """
    s = h - np.asarray(w, dtype=np.float64)
    l0 = np.hypot(a, h)
    return 2.0 * EA * s * (1.0 / np.hypot(a, s) - 1.0 / l0)


def arch_limit(a, h, EA):
    """First limit point (w, P) of ``arch_load``: dP/ds = 0 gives l³ = a²·l0."""
    l0 = np.hypot(a, h)
    l = (a * a * l0) ** (1.0 / 3.0)
    s = np.sqrt(l * l - a * a)
    return float(h - s), float(arch_load(h - s, a, h, EA))


def elastica_tip_load(k, n_points=2001, tol=1e-10):
    """Inextensible cantilever under a dead transverse tip load, P L²/EI = k.

    Solves θ'' = −k cos θ on s ∈ [0, 1], θ(0) = 0, θ'(1) = 0 (boundary-value problem) and
    returns (v/L, u/L, θ_tip): tip deflection, tip shortening and tip rotation. Used to
    check tabulated elliptic-integral values independently.
    """
    s = np.linspace(0.0, 1.0, n_points)

    def rhs(_, y):  # y = (θ, θ', x, y)
        return np.vstack([y[1], -k * np.cos(y[0]), np.cos(y[0]), np.sin(y[0])])

    def bc(ya, yb):
        return np.array([ya[0], yb[1], ya[2], ya[3]])

    guess = np.zeros((4, s.size))
    guess[2] = s
    sol = solve_bvp(rhs, bc, s, guess, tol=tol, max_nodes=200000)
    if sol.status != 0:
        raise ConvergenceError(f"elastica boundary-value problem (k = {k}) did not converge: {sol.message}")
    return float(sol.y[3, -1]), float(1.0 - sol.y[2, -1]), float(sol.y[0, -1])


def rotating_cantilever_flap(gamma, n_terms=10):
    """First flapwise frequency of a uniform Euler–Bernoulli cantilever clamped on the axis
    of a hub spinning at Ω, non-dimensional: ω √(ρA L⁴/EI) against γ = Ω √(ρA L⁴/EI).

    Rayleigh–Ritz on ρA ẅ + (EI w'')'' − (N w')' = 0 with the centrifugal tension
    N(x) = ½ ρA Ω² (L² − x²), trial functions (x/L)^(k+1), k = 1..n_terms (clamped at the
    root), integrals in closed form; independent of femb's elements. Converged to 1e-10
    with 10 terms (3.516015 at rest, the Euler–Bernoulli 1.875104²; 4.797279 at γ = 3,
    the classic rotating-beam table value 4.7973). The chordwise (in-plane) frequency of
    the same beam without Coriolis coupling is √(ω_f² − γ²).
    """
    import scipy.linalg

    i = np.arange(1, n_terms + 1, dtype=np.float64)[:, None]
    j = i.T
    bending = (i + 1) * i * (j + 1) * j / (i + j - 1)
    centrifugal = 0.5 * gamma**2 * (i + 1) * (j + 1) * (1.0 / (i + j + 1) - 1.0 / (i + j + 3))
    mass = 1.0 / (i + j + 3)
    return float(np.sqrt(scipy.linalg.eigh(bending + centrifugal, mass, eigvals_only=True)[0]))


def slider_crank_reduced(omega=124.8, slider_mass=0.0, n_modes=4, end_angle=1.2, r=0.1524, L=0.3048, d=0.00635,
                         E=2.06843e11, rho=7834.56, n_quad=401, geometric=True):
    """Midpoint deflection of the flexible slider-crank rod by a reduced model, independent
    of femb's elements: returns (first peak of w_mid/L, its crank angle [rad], crank angles,
    w_mid/L).

    Small deflections w(s, t) of the rod (Euler–Bernoulli, E, ρ, solid circular section of
    diameter d) from its chord, in the frame of the chord (angle φ, sin φ = −r sin θ / L,
    crank angle θ = ωt from θ0 = 0), pinned at the crank pin (s = 0) and the slider
    (s = L), positive along e_z × chord:

        ρA (ẅ − φ̇² w + a_n(s)) + EI w'''' − (N w')' = 0,

    a_n = Ä·n + s φ̈ the normal acceleration of the rigid rod (Ä = −rω²(cos θ, sin θ)), and
    the axial force N(s) = F_B·e − ρA ∫_s^L (Ä·e − σ φ̇²) dσ from the rigid-body inertia
    loads, F_B = (−m_B ẍ_B, R) the slider's force on the rod with the guide reaction R from
    the rod's moment balance about the crank pin. Galerkin with ``n_modes`` sine modes,
    starting undeformed with the rigid-body velocities (as femb's case), integrated with
    scipy (rtol 1e-10). Meijaard (1993) reports first maxima 0.00976 (ω = 124.8 rad/s,
    massless slider) and 0.01394 (ω = 150 rad/s, m_B = 0.0378126 kg) but no crank angle; this
    model gives 0.009756 at 0.6994 rad and 0.013935 at 0.7889 rad (6 modes change the peaks
    by < 4e-6 and the angles by < 5e-5 rad).

    ``geometric=False`` drops the axial-force term (N w')': the rod as a linear body in the
    chord frame (a single co-rotated Craig–Bampton superelement has no geometric stiffness
    inside), which gives 0.010473 at 0.7102 rad for ω = 124.8 rad/s, massless slider.
    """
    from scipy.integrate import solve_ivp

    from femb.validation.signals import first_local_extremum

    area, inertia = np.pi * d**2 / 4, np.pi * d**4 / 64
    mu, EI = rho * area, E * inertia
    with_axial = bool(geometric)
    k = np.arange(1, n_modes + 1)
    s = np.linspace(0.0, L, n_quad)
    wq = np.full(s.size, s[1] - s[0])
    wq[0] = wq[-1] = 0.5 * wq[0]  # trapezoidal rule
    psi = np.sin(np.outer(k, s) * np.pi / L)
    dpsi = (k[:, None] * np.pi / L) * np.cos(np.outer(k, s) * np.pi / L)
    mass = mu * L / 2
    bending = np.diag(EI * (k * np.pi / L) ** 4 * L / 2)

    def rhs(t, y):
        q, v = y[:n_modes], y[n_modes:]
        th = omega * t
        sphi = -r * np.sin(th) / L
        cphi = np.sqrt(1.0 - sphi**2)
        e, n = np.array([cphi, sphi]), np.array([-sphi, cphi])
        dphi = -r * omega * np.cos(th) / (L * cphi)
        ddphi = (r * omega**2 * np.sin(th) / L + sphi * dphi**2) / cphi
        acc_pin = -r * omega**2 * np.array([np.cos(th), np.sin(th)])
        xb_dd = -r * omega**2 * np.cos(th) - L * (cphi * dphi**2 + sphi * ddphi)
        a_n = acc_pin @ n + s * ddphi
        a_e = acc_pin @ e - s * dphi**2
        guide = (np.sum(wq * s * mu * a_n) / L + slider_mass * xb_dd * n[0]) / n[1]
        f_b = np.array([-slider_mass * xb_dd, guide])
        cum = np.concatenate([[0.0], np.cumsum(0.5 * (a_e[1:] + a_e[:-1]) * np.diff(s))])
        axial = f_b @ e - mu * (cum[-1] - cum)
        geometric = (dpsi * (wq * axial)) @ dpsi.T if with_axial else 0.0
        acc = -((bending + geometric) @ q - dphi**2 * mass * q + psi @ (wq * mu * a_n)) / mass
        return np.concatenate([v, acc])

    t_end = end_angle / omega
    sol = solve_ivp(rhs, (0.0, t_end), np.zeros(2 * n_modes), rtol=1e-10, atol=1e-14, dense_output=True,
                    max_step=t_end / 2000)
    theta = np.linspace(0.0, end_angle, 12001)
    w_mid = (np.sin(k * np.pi / 2) @ sol.sol(theta / omega)[:n_modes]) / L
    peak, angle = first_local_extremum(theta, w_mid, threshold=1e-3)
    return peak, angle, theta, w_mid


def coupled_bending_torsion_frequencies(length, m, e, rho_ip, EI, GJ, rho_i=0.0, n_half_waves=4):
    """Coupled flexural–torsional frequencies (rad/time, sorted) of a fork-supported beam
    whose mass centre lies at e off its shear-centre (node) line, for the first
    ``n_half_waves`` half-waves.

    With w = W sin kx, θ = Θ sin kx (k = nπ/L) the mass centre moves by w + e θ, so
    T = ½ (m + ρI k²) ẇ² + m e ẇ θ̇ + ½ I_α θ̇² (I_α = ρIp + m e²: ρIp about the mass
    centre, ρI the bending rotary inertia) and V = ½ EI k⁴ W² + ½ GJ k² Θ²; per half-wave
    det([[EI k⁴ − ω² (m + ρI k²), −ω² m e], [−ω² m e, GJ k² − ω² I_α]]) = 0."""
    Ia = rho_ip + m * e**2
    out = []
    for n in range(1, n_half_waves + 1):
        k = n * np.pi / length
        a, b, mb = EI * k**4, GJ * k * k, m + rho_i * k * k
        out += list(np.sqrt(np.roots([mb * Ia - (m * e) ** 2, -(a * Ia + b * mb), a * b]).real))
    return np.sort(out)
