"""Newton–Raphson iteration shared by the static and dynamic solvers.

A *system* object supplies the residual over the equations and its tangent; the iteration
adds the line search, the modified-Newton option and the diagnostics of a failure.
"""
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import scipy.sparse as sp
from scipy.linalg import lapack

from femb.core.errors import FembError, InputError
from femb.solvers.linalg.factorization import (
    Factorization,
    SingularSystemError,
    _suspect_dofs,
    factorize,
)
from femb.solvers.linalg.nullspace import NullSpace, SquareBlock
from femb.solvers.nonlinear.norms import vector_norm

_getrf, _getrs = lapack.dgetrf, lapack.dgetrs


@dataclass
class NewtonSettings:
    """Newton iteration settings.

    Attributes
    ----------
    tolerance
        converged when ‖r‖ ≤ tolerance·(force scale of the system).
    absolute_tolerance
        when given, converged when ‖r‖ ≤ absolute_tolerance (force units, the Euclidean
        norm over the free equations) instead of the relative test — the form peer codes
        such as OpenSees (NormUnbalance) and Exudyn use, for like-for-like comparisons.
        The round-off acceptances below still scale with the system's force scale.
    increment_tolerance
        also converged when the Newton correction ‖δx‖ ≤
        increment_tolerance·‖x‖ while ‖r‖ ≤ 1e-4·scale (the round-off floor of very stiff
        members, residual noise ~ EA·machine epsilon, cannot be beaten by the force test),
        or while the residual has stopped falling (the state is at Newton's numerical
        fixed point; reported as "stagnated at round-off").
    max_iterations
        iterations per attempt before the step is cut back.
    line_search
        Crisfield's energy line search (secant on δuᵀr) when a full step
        overshoots. Off by default: for co-rotational members with stiff axial response the
        first full step overshoots the axial energy by orders of magnitude yet Newton
        converges quadratically from there, while the line search crawls (measured on a
        cantilever with EA·L²/EI = 5e7: 25 iterations without, >3000 with).
    modified
        modified Newton, reusing the last factorization until convergence slows
        (refactorized when the residual ratio exceeds ``refactor_ratio``).
    reuse_ratio
        full Newton of femb.solvers.nonlinear.newton.newton (statics) reuses the last
        factorization for the next correction when the last correction cut the residual
        norm to at most this fraction (0: a new tangent for every correction); the
        time-step loop of femb.solvers.nonlinear.step_newton does not use it.
    reuse_turn
        ... but only when that correction turned no nodal rotation and no element chord by
        more than this angle (rad; systems that measure turns, ``system.turn(x, dx)``): the
        tangent of co-rotational members turns with them, and after a correction that
        turned a stiff member by δ its old tangent misplaces an axial stiffness EA/l into
        the transverse direction by ~δ·EA/l.
    reuse_min_equations
        ... and only for systems of at least this many equations: below it a factorization
        costs about what a residual evaluation and a solve cost, and every correction gets
        its own tangent (pure Newton, whose iterates do not depend on round-off-level
        decisions).
    max_cutbacks
        times a load/time step may be halved before giving up.
    chord_predictor
        apply the first correction of a static Newton solve (a load step's tangent
        predictor) with the element chords turned instead of stretched
        (``system.apply_first``, femb.solvers.nonlinear.chord_update); False: the plain
        additive update for every correction.
    compiled_step
        solve_static runs the load steps of qualifying planar beam2d models (one beam2d
        block, no joints, full Newton without factorization reuse) in one compiled call
        with the same iterates as the general loop (femb.solvers.statics.planar_static);
        False: the general Newton loop always (time steps: ``DynamicSettings.compiled_step``).
    constraint_tolerance
        converged only when ‖Φ‖ ≤ constraint_tolerance·(length scale
        of the model), constraints with eliminated multipliers being present.
    """

    tolerance: float = 1e-9
    absolute_tolerance: Optional[float] = None
    increment_tolerance: float = 1e-13
    max_iterations: int = 30
    line_search: bool = False
    modified: bool = False
    refactor_ratio: float = 0.5
    reuse_ratio: float = 0.2
    reuse_turn: float = 1e-2
    reuse_min_equations: int = 500
    chord_predictor: bool = True
    compiled_step: bool = True
    max_cutbacks: int = 10
    divergence_factor: float = 1e8
    constraint_tolerance: float = 1e-12

    def __post_init__(self) -> None:
        if self.absolute_tolerance is not None and not float(self.absolute_tolerance) > 0.0:
            raise InputError(f"absolute_tolerance must be a positive force, got {self.absolute_tolerance!r}",
                             "NewtonSettings")

    def residual_threshold(self, scale: float) -> float:
        """The residual norm below which a state is converged: ``absolute_tolerance`` when
        given, else ``tolerance``·scale (scale: the system's force scale)."""
        if self.absolute_tolerance is not None:
            return float(self.absolute_tolerance)
        return self.tolerance * scale


@dataclass
class NewtonReport:
    """Outcome of one Newton solve."""

    converged: bool
    iterations: int
    residual_history: list = field(default_factory=list)
    last_residual: np.ndarray = None
    reason: str = ""
    state: object = None
    multipliers: np.ndarray = None
    constraint_residual: float = 0.0
    factorizations: int = 0


def worst_dofs(residual, table, count=3):
    """(node, dof, value) of the equations with the largest |residual|."""
    if residual is None or residual.size == 0:
        return []
    idx = np.argsort(-np.abs(residual))[:count]
    return [(*table.describe_var(table.eq_var[i]), float(residual[i])) for i in idx]


def _line_search(system, x, dx, r0, max_tries=3):
    """Step length η along dx (Crisfield's secant on s(η) = dxᵀ r(x + η dx))."""
    s0 = float(dx @ r0)
    if s0 >= 0.0:
        return 1.0
    eta, s_prev, eta_prev = 1.0, s0, 0.0
    for _ in range(max_tries):
        r, _ = system.residual(system.apply(x, eta * dx))
        s = float(dx @ r)
        if not np.isfinite(s) or abs(s) > 0.8 * abs(s0):
            if not np.isfinite(s):
                eta_new = 0.5 * eta
            else:
                denom = s - s_prev
                eta_new = eta - s * (eta - eta_prev) / denom if denom != 0.0 else 0.5 * eta
                eta_new = min(max(eta_new, 0.1), 1.0)
            eta_prev, s_prev, eta = eta, s, eta_new
        else:
            return eta
    return eta


DENSE_LIMIT = 120  # free equations up to which the constrained Newton matrix is handled dense


class _DenseLU:
    """LU with partial pivoting (LAPACK getrf) of a small dense matrix over the equations
    ``index_map`` of ``table``; a singular matrix raises SingularSystemError naming the DOFs
    involved, as femb.solvers.linalg.factorization.Factorization does for sparse ones."""

    def __init__(self, A, table=None, context="system", index_map=None):
        self.shape = A.shape
        self._lu = None
        if A.shape[0] == 0:
            return
        if not np.all(np.isfinite(A)):
            raise FembError(f"{context} matrix contains NaN or Inf entries (a diverged state or bad input)")
        lu, piv, info = _getrf(A)
        d = np.abs(np.diag(lu))
        if info > 0 or not d.min() > 1e-13 * d.max():
            dofs = _suspect_dofs(sp.csr_matrix(A), table, index_map=index_map) if table is not None else []
            ratio = d.min() / d.max() if d.max() > 0 else 0.0
            raise SingularSystemError(f"{context} matrix is numerically singular (pivot ratio {ratio:.1e})", dofs)
        self._lu, self._piv = lu, piv

    def solve(self, b):
        if self._lu is None:
            return np.zeros_like(b)
        x, info = _getrs(self._lu, self._piv, b)
        return x


def add_stiffness(K, S):
    """K + S for a Newton matrix K (sparse, or dense ndarray) and a constraint curvature S
    (SquareBlock, sparse or dense), in the form of K (K itself is not modified)."""
    if isinstance(S, SquareBlock):
        return K + S
    if sp.issparse(K):
        return (K + S).tocsr()
    return K + (S.toarray() if sp.issparse(S) else np.asarray(S))


class ProjectedCorrection:
    """Linear solves of a Newton iteration with constraints eliminated (null space).
    K: sparse, or a dense ndarray for small systems (then the reduced matrix is factorized
    dense, too)."""

    def __init__(self, K, r, phi, G, Gbar, table):
        self.ns = NullSpace(G, Gbar)
        self.K, self.phi, self.table = K, phi, table

    def solve(self, r):
        ns, K = self.ns, self.K
        dq_p = ns.particular(self.phi)
        rhs = -ns.project(r + K @ dq_p)
        solver = Factorization if sp.issparse(K) else _DenseLU
        reduced = solver(ns.reduced_matrix(K), self.table, context="reduced (constrained) tangent", index_map=ns.ind)
        return ns.expand(reduced.solve(rhs)) + dq_p


def _state_norm(system, x):
    """‖x‖ of a state, through ``system.norm`` when the system defines it."""
    norm = getattr(system, "norm", None)
    return float(norm(x)) if norm is not None else float(np.linalg.norm(x))


def at_noise_floor(history, scale, floor, rounding=None):
    """True when the residual has stopped falling (the last residual of ``history`` is not
    4× below the smallest of the three before it) at a level that is noise: below
    ``floor``·scale, the relative ``noise_floor`` a system declares, or below ``rounding()``,
    an absolute estimate of the round-off of the residual (``rounding_residual``; called only
    for a stalled residual above the relative floor). Accepted as converged by the Newton
    loops."""
    if len(history) < 4 or history[-1] < 0.25 * min(history[-4:-1]):
        return False
    if floor and history[-1] <= floor * scale:
        return True
    return rounding is not None and history[-1] <= rounding()


def rounding_residual(K, x):
    """Round-off level of a residual evaluated at absolute coordinates x (n,): ε‖|K|·|x|‖
    with K (n, n) its Jacobian (sparse or dense). Each coordinate is known to ε|x_i| only, so
    the residual of a stiff system is a staircase in the unknowns with steps of about
    |K_ij|·ε|x_j| (e.g. EA/L × ulp of a position 10 m from the origin) — a level Newton
    cannot get below however small the loads of the motion are."""
    A = abs(K) if sp.issparse(K) else np.abs(K)
    return float(np.finfo(np.float64).eps * np.linalg.norm(A @ np.abs(x)))


def projected_newton(evaluate, system, x, settings, table, length_scale):
    """Newton iteration with joint constraints eliminated (null-space projection).

    ``evaluate(x) -> (r, K, scale)``; ``system.constraints(x) -> (Φ, G, Ḡ)`` over the free
    equations, ``system.apply(x, dx)``, optionally ``system.constraint_stiffness(λ)`` (the
    joints' curvature, added to K with the current multiplier estimate) and
    ``system.limit(x, dx)`` (a step-length factor) and ``system.multipliers_guess`` (the
    multipliers for the curvature of the first iteration). Converged when the projected residual
    ‖N̄ᵀr‖ ≤ tolerance·scale and ‖Φ‖ ≤ constraint_tolerance·length_scale; the multipliers
    are in ``report.multipliers``.

    The curvature term of an iteration takes the multipliers of the previous linear solve,
    λ = −Ḡ_d⁻ᵀ(r + K δq)_d (the multiplier update of Newton on the saddle-point system,
    which keeps the convergence quadratic), not those of the unbalanced residual of the
    previous state (which, after the predictor of a time step, can be wrong by the whole
    inertia defect of the predictor and make the next iteration linear).

    Round-off: the residual of the end-of-step configuration is evaluated from absolute
    positions, so it is a staircase in the unknowns with steps of about stiffness × ulp of
    the positions (≈ EA/l0·2e-16 for positions of order 1); nearly force-free motions of
    stiff members cannot get below it. As in the unconstrained step loop
    (femb.solvers.nonlinear.step_newton.iterate), a state whose last correction was at round-off
    (‖δx‖ ≤ increment_tolerance·size(x), residual ≤ 1e-4·scale) is accepted once it also
    meets the constraint test; ``system.size(x)`` (else ‖x‖) is the size of a state.

    A system with ``dense_newton`` True (the time-step systems) has a Newton matrix of at
    most DENSE_LIMIT equations handled dense: the reduced matrix N̄ᵀKN from the blocks of
    K and factorized by LAPACK, instead of sparse products and SuperLU (equal up to
    round-off; for small systems the sparse bookkeeping costs more than the algebra).
    """
    history = []
    r = None
    lam = getattr(system, "multipliers_guess", None)  # e.g. the previous time step's multipliers
    stiffness = getattr(system, "constraint_stiffness", None)
    limit = getattr(system, "limit", None)
    floor = getattr(system, "noise_floor", None)  # see femb.solvers.nonlinear.step_newton.iterate
    size = getattr(system, "size", None)
    coordinates = getattr(system, "absolute_coordinates", None)
    dense = getattr(system, "dense_newton", False)
    round_off = False  # the last correction was at round-off
    for it in range(settings.max_iterations + 1):
        r, K, scale = evaluate(x)
        if dense and K.shape[0] <= DENSE_LIMIT:  # small systems: dense algebra (no sparse bookkeeping)
            K = K.toarray() if sp.issparse(K) else np.array(K, dtype=np.float64)
        lam_used = lam
        if lam is not None and stiffness is not None:
            K = add_stiffness(K, stiffness(lam))
        phi, G, Gbar = system.constraints(x)
        proj = ProjectedCorrection(K, r, phi, G, Gbar, table)
        norm = vector_norm(proj.ns.project(r))
        c_norm = vector_norm(phi)
        history.append(norm)
        if not np.isfinite(norm + c_norm):
            return NewtonReport(False, it, history, r, "residual is not finite")
        lam = proj.ns.multipliers(K, r)
        c_ok = c_norm <= settings.constraint_tolerance * length_scale
        if norm <= settings.residual_threshold(scale) and c_ok:
            return NewtonReport(True, it, history, r, "converged", state=x, multipliers=lam, constraint_residual=c_norm)
        if c_ok and round_off and norm <= 1e-4 * scale:
            return NewtonReport(True, it, history, r, "converged (correction at round-off)", state=x, multipliers=lam,
                                constraint_residual=c_norm)
        rounding = (lambda: rounding_residual(K, coordinates(x))) if coordinates is not None else None
        if c_ok and at_noise_floor(history, scale, floor, rounding):
            return NewtonReport(True, it, history, r, "converged (residual at its noise floor)", state=x, multipliers=lam,
                                constraint_residual=c_norm)
        if it == settings.max_iterations:
            break
        dx = proj.solve(r)
        eta = 1.0 if limit is None else limit(x, dx)
        if stiffness is not None:  # Newton's multiplier update (damped with the step), for the next curvature term
            lam_new = proj.ns.multipliers(K, r, dx)
            lam = lam_new if lam_used is None or eta == 1.0 else lam_used + eta * (lam_new - lam_used)
        dx = dx * eta
        x = system.apply(x, dx)
        reference = float(size(x)) if size is not None else _state_norm(system, x)
        round_off = vector_norm(dx) <= settings.increment_tolerance * reference
    return NewtonReport(False, settings.max_iterations, history, r, f"no convergence in {settings.max_iterations} iterations")


def newton(system, x, settings, table=None):
    """Solve system.residual(x) = 0 from the start value ``x``; the converged state is
    ``report.state``.

    The system provides ``residual(x) -> (r, scale)``, ``residual_and_tangent(x) ->
    (r, K, scale)`` over the equations, and ``apply(x, dx) -> x_new``; optionally
    ``apply_first(x, dx)``, the update of the first correction (e.g. a load step's tangent
    predictor with turned element chords, femb.solvers.problem), and ``norm(x)``, the size
    of a state for the relative increment test (default ‖x‖, for states that are arrays;
    states such as Configurations (u, R) need it). A system with joint constraints also
    provides ``constraints(x) -> (Φ, G, Ḡ)`` (Jacobians over the free equations) and
    ``length_scale``: the corrections are then restricted to the null space of the
    constraint Jacobian (multipliers eliminated, recovered in ``report.multipliers``), and
    convergence also requires ‖Φ‖ small.

    Work per iteration: the start state is evaluated with its tangent; every later state
    first with its residual alone, and the tangent is assembled and factorized only when
    that residual has not converged and has not fallen by the reuse factor (below);
    otherwise the last factorization is reused for the next correction. The reuse factor
    is ``settings.reuse_ratio`` (full Newton: a correction that cut the residual by 5× or
    more, turning nothing by more than ``settings.reuse_turn``, was made with a tangent
    that still describes the system well) or, with ``settings.modified``,
    ``settings.refactor_ratio``. In full Newton such a correction is a trial: when it does
    not lower the residual, the state goes back to the one before it and the tangent is
    assembled and factorized there (the trial counts as an iteration; its residual stays
    in ``report.residual_history``). The convergence test is the same
    for either kind of correction (``NewtonSettings``); ``report.factorizations`` counts
    the factorizations.
    """
    history = []
    factor = None
    r = None
    if getattr(system, "constraints", None) is not None and system.constraints(x) is not None:
        return projected_newton(system.residual_and_tangent, system, x, settings, table, system.length_scale)
    apply_first = getattr(system, "apply_first", system.apply) if settings.chord_predictor else system.apply
    if settings.modified:
        reuse_ratio = settings.refactor_ratio
    else:
        reuse_ratio = settings.reuse_ratio if table is None or table.n_eq >= settings.reuse_min_equations else 0.0
    turn = getattr(system, "turn", None) if reuse_ratio > 0.0 and not settings.modified else None
    last_turn = 0.0
    factorizations = 0
    before_trial = None  # (x, r, scale) before a full-Newton correction made with a reused factorization
    base = np.inf

    def report(converged, it, reason, state=None):
        return NewtonReport(converged, it, history, r, reason, state=state, factorizations=factorizations)

    for it in range(settings.max_iterations + 1):
        if it == 0:
            r, K, scale = system.residual_and_tangent(x)
        else:
            r, scale = system.residual(x)
            K = None
        norm = vector_norm(r)
        history.append(norm)
        if not np.isfinite(norm) and before_trial is None:
            return report(False, it, "residual is not finite")
        if norm <= settings.residual_threshold(scale):
            return report(True, it, "converged", state=x)
        if it == settings.max_iterations:
            break
        if len(history) > 2 and norm > settings.divergence_factor * max(history[0], 1e-300) and before_trial is None:
            return report(False, it, "diverging")
        reuse = factor is not None and norm <= reuse_ratio * base and last_turn <= settings.reuse_turn
        if before_trial is not None and not norm < base:
            # the correction with the reused factorization did not lower the residual: back to
            # the state before it, with a new tangent there
            (x, r, scale), K, reuse = before_trial, None, False
            norm = base
        before_trial = None
        base = norm  # the residual norm of the state the next correction starts from
        if not reuse:
            if K is None:
                r, K, scale = system.residual_and_tangent(x)
            factor = factorize(K, table, context="tangent")
            factorizations += 1
        elif not settings.modified:
            before_trial = (x, r, scale)
        dx = -factor.solve(r)
        eta = _line_search(system, x, dx, r) if settings.line_search else 1.0
        if turn is not None:
            last_turn = turn(x, eta * dx)
        x = (apply_first if it == 0 else system.apply)(x, eta * dx)
        if vector_norm(dx) <= settings.increment_tolerance * max(_state_norm(system, x), 1e-300):
            if norm <= 1e-4 * scale:
                return report(True, it + 1, "converged (correction at round-off)", state=x)
            if len(history) > 1 and norm >= 0.5 * history[-2]:
                # the state no longer changes and the residual no longer falls: the round-off
                # floor (e.g. a load-free prescribed rigid motion, whose force scale is itself
                # round-off)
                return report(True, it + 1, "converged (stagnated at round-off)", state=x)
    return report(False, settings.max_iterations, f"no convergence in {settings.max_iterations} iterations")
