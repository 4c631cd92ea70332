"""Linear buckling: (K0 + λ K_G) φ = 0 with K_G from the resultants of a linear pre-solve.

K0 is the tangent at the reference state, the pre-stress is the linear response to the
scaled (non-constant) loads and prescribed values at λ = 1, and K_G the geometric
stiffness at the reference state for the resultants of that linear state, plus the load
stiffness of rotation-dependent moments (3-D semitangential or follower moments at λ = 1).

Models with oriented nodes (3-D rotations): the linear state u holds translations and
infinitesimal rotations θ at the reference (spins = rotation-vector increments at R = I);
its resultants are the derivative of the co-rotational resultants along the ray
(ε u, R = exp(ε θ̂)) at ε = 0 (central difference). For conservative loads (dead forces,
semitangential moments) K_G is symmetric and the symmetric eigenproblem is solved; a
non-symmetric K_G (dead or follower moments with finite-rotation coupling) switches to the
general eigenproblem and only real positive load factors are kept (complex pairs indicate
flutter, which a static criterion cannot capture).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Union

import numpy as np
import scipy.linalg as sla
import scipy.sparse.linalg as spla
from numpy.typing import ArrayLike

from femb.core.errors import InputError
from femb.solvers.eigen.modal import frequencies_along_path, solve_modal
from femb.solvers.linalg.factorization import Factorization
from femb.solvers.problem import StaticProblem, linear_internal_force, linear_resultants
from femb.solvers.statics.static import solve_static

if TYPE_CHECKING:
    from femb.correlation import CorrelationTable
    from femb.model import Model
    from femb.results import Results
    from femb.solvers.nonlinear.newton import NewtonSettings

log = logging.getLogger(__name__)


@dataclass
class BucklingResult:
    """Linear buckling (``solve_buckling``).

    Attributes
    ----------
    load_factors : (k,) array
        Critical load factors, positive, ascending.
    modes : (k, n_var) array
        Buckling mode shapes over all variables.
    prestress_state : (n_var,) array
        Displacements of the linear pre-solve at load factor 1.
    table : CorrelationTable
        The numbering of the variables.
    """

    load_factors: np.ndarray
    modes: np.ndarray  # (n_modes, n_var)
    prestress_state: np.ndarray  # (n_var,) linear pre-solve displacement at λ = 1
    table: CorrelationTable


def _positive_factors(mu, vec, n_modes):
    """Load factors λ = 1/μ of the largest positive μ (ascending λ) and their vectors."""
    order = np.argsort(-mu)
    mu, vec = mu[order], vec[:, order]
    keep = mu > 1e-12 * max(np.abs(mu).max(), 1e-300)
    return 1.0 / mu[keep][:n_modes], vec[:, keep][:, :n_modes]


def _general_eigen(K0, KG, n_modes, dense_limit):
    """Real positive μ of −K_G φ = μ K0 φ for a non-symmetric K_G."""
    n = K0.shape[0]
    if n <= dense_limit:
        mu, vec = sla.eig(-KG.toarray(), K0.toarray())
    else:
        mu, vec = spla.eigs(-KG.tocsc(), k=min(n_modes + 6, n - 2), M=K0.tocsc(), which="LR")
    finite = np.isfinite(mu)
    mu, vec = mu[finite], vec[:, finite]
    real = np.abs(mu.imag) <= 1e-8 * np.maximum(np.abs(mu), 1e-300)
    if np.any(~real & (mu.real > 0)):
        log.warning("linear buckling: complex load factors (non-conservative loading, flutter) are ignored")
    mu, vec = mu[real].real, vec[:, real].real
    norms = np.linalg.norm(vec, axis=0)
    return mu, vec / np.where(norms > 0, norms, 1.0)


def solve_buckling(model: Model, n_modes: int = 5, table: Optional[CorrelationTable] = None, problem: Optional[StaticProblem] = None,
                   dense_limit: int = 600) -> BucklingResult:
    """Linear buckling of ``model`` under its scaled (non-constant) loads.

    Returns the ``n_modes`` smallest positive load factors λ with K0 + λ K_G singular.
    Constant loads are not part of the pre-stress (use the nonlinear load path for that).
    Modes of oriented models hold translations and infinitesimal rotations (spins).
    """
    prob = problem or StaticProblem(model, table)
    t, asm = prob.table, prob.assembler
    if not np.any(prob.f_ref) and not t.prescribed and not prob.loads.has_state_loads:
        raise InputError("linear buckling needs a non-zero reference load", "solve_buckling")
    u_zero = np.zeros(t.n_var)
    layout = prob.rotations if prob.oriented else None
    R0 = layout.identity() if layout is not None else None
    _, K0 = asm.tangent(u_zero, R=R0)
    u = np.zeros(t.n_var)
    for vars_, rec in t.prescribed:
        u[vars_] = rec.value
    f_ref = prob.f_ref
    if prob.loads.has_state_loads:
        f_ref = f_ref + prob.loads.state_forces(None, None, 1.0, constant=False)
    if not t.prescribed:
        rhs = f_ref
    elif layout is None:
        rhs = f_ref - asm.internal_force(u)
    else:
        rhs = f_ref - linear_internal_force(asm, u, layout)
    u[t.eq_var] += Factorization(K0, t, "linear stiffness").solve(t.free(rhs))
    stresses = linear_resultants(asm, u, layout)
    KG = asm.geometric_stiffness(u_zero, stresses, R=R0)
    if prob.loads.has_state_loads:
        KG = KG + prob.loads.state_stiffness(None, None, 1.0, constant=False)
    n = t.n_eq
    skew = abs(KG - KG.T).max() if n else 0.0
    if skew > 1e-8 * max(abs(KG).max(), 1e-300):
        mu, vec = _general_eigen(K0, KG, n_modes, dense_limit)
        lam, vec = _positive_factors(mu, vec, n_modes)
    elif n <= dense_limit:
        mu, vec = sla.eigh(-KG.toarray(), K0.toarray())
        lam, vec = _positive_factors(mu, vec, n_modes)
    else:
        k = min(n_modes + 4, n - 1)
        mu, vec = spla.eigsh(-KG, k=k, M=K0, which="LA")
        lam, vec = _positive_factors(mu, vec, n_modes)
    modes = np.zeros((lam.size, t.n_var))
    modes[:, t.eq_var] = vec.T
    return BucklingResult(lam, modes, u, t)


@dataclass
class PathBucklingResult:
    """Critical load factor found on a nonlinear static load path (``critical_load_on_path``).

    Attributes
    ----------
    load_factor : float
        The load factor where the lowest squared frequency ω² (signed) is zero.
    path : Results
        The static path (frames at the requested load factors).
    omega : (len(path), n_modes) array
        Signed frequencies along the path [rad/time] (−sqrt(−ω²) beyond).
    iterations : int
        Secant refinements done after bracketing.
    """

    load_factor: float
    path: Results
    omega: np.ndarray
    iterations: int


def critical_load_on_path(model: Model, load_factors: ArrayLike, n_modes: int = 1, mass: Union[str, int] = "lumped", tol: float = 1e-9,
                          max_refine: int = 30, settings: Optional[NewtonSettings] = None) -> PathBucklingResult:
    """The load factor where the lowest frequency of ``model`` about its nonlinear static
    equilibrium falls to zero (a bifurcation or limit point), from the eigenvalues along
    the load path.

    The static path is solved at ``load_factors`` (ascending; they must pass the critical
    point, which the straight pre-buckling path of a perfect structure does); the first
    sign change of the signed ω² = ω|ω| brackets it, and an Illinois (regula falsi) iteration
    on ω²(λ) — each evaluation a static solve from the bracketing state plus a modal
    analysis — refines it to ``tol`` relative. Rotation-dependent moment loads enter with
    their load stiffness at the current load factor.

    ``mass`` is the mass kind of the modal analyses (default "lumped", as for
    ``solve_modal``); the critical load itself does not depend on it.

    Raises InputError when ω² does not change sign on the given path.
    """

    prob = StaticProblem(model)
    path = solve_static(model, load_factors=load_factors, settings=settings, problem=prob)
    omega = frequencies_along_path(model, path, n_modes=n_modes, mass=mass)
    f = omega[:, 0] * np.abs(omega[:, 0])
    lams = np.asarray(path.times, dtype=np.float64)
    change = np.flatnonzero((f[:-1] > 0) & (f[1:] <= 0))
    if change.size == 0:
        raise InputError(f"the lowest frequency does not reach zero between load factors {lams[0]:.6g} and {lams[-1]:.6g}: "
                         "extend the load path", "critical_load_on_path")
    i = int(change[0])
    a, fa, b, fb = lams[i], f[i], lams[i + 1], f[i + 1]
    state_a = prob.state_of(path, i)
    if fb == 0.0:
        return PathBucklingResult(float(b), path, omega, 0)
    side, it, c_prev, c = 0, 0, None, 0.5 * (a + b)
    for it in range(1, max_refine + 1):
        c = (a * fb - b * fa) / (fb - fa)
        trial = solve_static(model, load_factors=[c], u0=state_a, settings=settings, problem=prob)
        mult = trial.arrays.get("multipliers", [None, None])[-1]
        w = solve_modal(model, n_modes, prob.state_of(trial, -1), mass, problem=prob, time=c, multipliers=mult,
                        load_factor=c).omega[0]
        fc = w * abs(w)
        if fc == 0.0 or abs(b - a) <= tol * abs(c) or (c_prev is not None and abs(c - c_prev) <= tol * abs(c)):
            break
        c_prev = c
        if fc > 0:
            a, fa, state_a = c, fc, prob.state_of(trial, -1)
            if side == 1:
                fb *= 0.5
            side = 1
        else:
            b, fb = c, fc
            if side == -1:
                fa *= 0.5
            side = -1
    return PathBucklingResult(float(c), path, omega, it)
