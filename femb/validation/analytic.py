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
