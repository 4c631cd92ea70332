"""Crisfield's cylindrical arc-length method for limit points and snap-through.

Unknowns are the free displacements and the load factor λ of the scaled loads; each
increment satisfies ‖Δu‖ = Δl (cylindrical constraint, no load term). The root of the
constraint quadratic closest to the previous increment direction is taken, and Δl adapts
to the number of iterations.

Models with oriented nodes (3-D beams, shells) are traced on Configurations (u, R) as in
solve_static: every correction's rotational part is a spatial spin applied multiplicatively,
R ← exp(δŵ) R, and the increment Δu of the constraint sums the corrections over the
equations (for rotations, the sum of the spins of the increment). Loads that depend on the
configuration (follower pressures, semitangential and follower moments) enter the residual
at the current state, their load stiffness the tangent, and their derivative with respect
to λ the load vector of the constraint.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import numpy as np

from femb.core.errors import ConvergenceError, InputError
from femb.results import Results
from femb.solvers.configuration import Configuration, split_state
from femb.solvers.linalg.factorization import Factorization, SingularSystemError
from femb.solvers.nonlinear.newton import NewtonSettings, worst_dofs
from femb.solvers.problem import StaticProblem

if TYPE_CHECKING:
    from femb.correlation import CorrelationTable
    from femb.model import Model


@dataclass
class ArcLengthSettings:
    """Arc-length control.

    Attributes
    ----------
    arc_length
        initial Δl (displacement norm of an increment); None: from the first
        linear increment Δλ = ``initial_load_factor``.
    max_steps
        increments to take.
    max_load_factor, min_load_factor
        stop once λ leaves [min, max].
    stop
        optional callable stop(results) -> bool checked after each increment.
    desired_iterations
        Δl is scaled by sqrt(desired/actual) after each increment.
    """

    arc_length: Optional[float] = None
    initial_load_factor: float = 0.05
    max_steps: int = 200
    max_load_factor: float = np.inf
    min_load_factor: float = -np.inf
    desired_iterations: int = 5
    max_arc_length: float = np.inf
    stop: Optional[Callable[[Results], bool]] = None


def solve_arclength(model: Model, arclength: Optional[ArcLengthSettings] = None, settings: Optional[NewtonSettings] = None,
                    table: Optional[CorrelationTable] = None, problem: Optional[StaticProblem] = None) -> Results:
    """Trace the equilibrium path of ``model`` with the cylindrical arc-length method.

    Returns Results (kind "arclength") with one frame per converged increment, histories
    ``load_factor``, ``iterations``, ``arc_length``, ``strain_energy``.
    Raises ConvergenceError (with the converged frames) if an increment fails after
    ``settings.max_cutbacks`` halvings of Δl.
    """
    arc = arclength or ArcLengthSettings()
    settings = settings or NewtonSettings()
    prob = problem or StaticProblem(model, table)
    t = prob.table
    if t.prescribed:
        raise InputError("the arc-length method does not support prescribed DOFs; load by forces", "solve_arclength")
    if prob.joints is not None:
        raise InputError("the arc-length method does not support joint constraints yet; use solve_static with load stepping", "solve_arclength")
    x = prob.initial_state()
    if not np.any(_load_vector(prob, x)):
        raise InputError("the arc-length method needs a non-zero scaled (non-constant) load", "solve_arclength")
    res = Results(t, "arclength", model)
    lam = 0.0

    def record(x, lam, **scalars):
        u, R = split_state(x)
        arrays = {"rotations": R} if R is not None else None
        res.record(lam, u, load_factor=lam, strain_energy=prob.strain_energy(x), arrays=arrays, **scalars)

    record(x, lam, iterations=0, arc_length=0.0)
    dl = arc.arc_length
    prev_du = None
    K = None  # tangent at the converged (x, λ), from the last iteration of the increment that found it
    for step in range(arc.max_steps):
        cuts = 0
        while True:
            out = _increment(prob, x, lam, dl, prev_du, arc, settings, K)
            if out["converged"]:
                break
            cuts += 1
            if cuts > settings.max_cutbacks:
                raise ConvergenceError(
                    f"arc-length increment {step + 1} failed at λ = {lam:.6g} after {settings.max_cutbacks} cut-backs ({out['reason']})",
                    out["history"], worst_dofs(out.get("r"), t), res, load=lam,
                )
            dl = 0.5 * (dl if dl is not None else out["dl"])
        x, lam, prev_du, dl_used, K = out["x"], out["lam"], out["du"], out["dl"], out["K"]
        record(x, lam, iterations=out["iterations"], arc_length=dl_used)
        dl = min(dl_used * np.sqrt(arc.desired_iterations / max(out["iterations"], 1)), arc.max_arc_length)
        if not (arc.min_load_factor <= lam <= arc.max_load_factor):
            break
        if arc.stop is not None and arc.stop(res):
            break
    return res


def _load_vector(prob, x):
    """∂f_ext/∂λ over the free equations at state x: the scaled loads, plus the scaled
    configuration-dependent loads (linear in λ) evaluated at x."""
    t = prob.table
    q = prob.f_ref
    if prob.loads.has_state_loads:
        q = q + prob.loads.state_forces(*split_state(x), 1.0, constant=False)
    return t.free(q)


def _apply(prob, x, dx):
    if isinstance(x, Configuration):
        return x.apply(dx)
    out = x.copy()
    out[prob.table.eq_var] += dx
    return out


def _tangent(prob, x, lam):
    """(residual over free equations, tangent, force scale) at (x, λ)."""
    return prob.system(lam).residual_and_tangent(x)


def _increment(prob, x0, lam0, dl, prev_du, arc, settings, K0=None):
    """One arc-length increment from (x0, λ0) (``K0``: the tangent there, when known);
    returns a dict with the outcome (``K``: the tangent at the converged state)."""
    t = prob.table
    K = K0 if K0 is not None else _tangent(prob, x0, lam0)[1]
    try:
        lu = Factorization(K, t, "tangent")
    except SingularSystemError as exc:
        return dict(converged=False, reason=str(exc).splitlines()[0], history=[], dl=dl or 1.0)
    dut = lu.solve(_load_vector(prob, x0))
    if dl is None:
        dl = arc.initial_load_factor * float(np.linalg.norm(dut))
    dlam = dl / max(float(np.linalg.norm(dut)), 1e-300)
    if prev_du is not None and float(prev_du @ dut) < 0.0:
        dlam = -dlam
    elif prev_du is None and dlam < 0:
        dlam = -dlam
    du = dlam * dut
    lam = lam0 + dlam
    x = _apply(prob, x0, du)
    history = []
    for it in range(1, settings.max_iterations + 1):
        r, K, scale = _tangent(prob, x, lam)
        norm = float(np.linalg.norm(r))
        history.append(norm)
        if not np.isfinite(norm):
            return dict(converged=False, reason="residual is not finite", history=history, r=r, dl=dl)
        if norm <= settings.residual_threshold(scale):
            return dict(converged=True, x=x, lam=lam, du=du, dl=dl, iterations=it, history=history, K=K)
        try:
            lu = Factorization(K, t, "tangent")
        except SingularSystemError:
            # exactly at a limit point: perturb the load factor slightly and go on
            lam += 1e-6 * dlam
            continue
        dur = -lu.solve(r)
        dut = lu.solve(_load_vector(prob, x))
        # ‖du + dur + δλ·dut‖² = dl²
        a = float(dut @ dut)
        b = 2.0 * float(dut @ (du + dur))
        c = float((du + dur) @ (du + dur)) - dl * dl
        disc = b * b - 4.0 * a * c
        if disc < 0.0:
            return dict(converged=False, reason="arc-length constraint has no real root", history=history, r=r, dl=dl)
        roots = ((-b + np.sqrt(disc)) / (2 * a), (-b - np.sqrt(disc)) / (2 * a))
        cands = [dur + s * dut for s in roots]
        k = int(np.argmax([float((du + cnd) @ du) for cnd in cands]))
        x = _apply(prob, x, cands[k])
        du, lam = du + cands[k], lam + roots[k]
    return dict(converged=False, reason=f"no convergence in {settings.max_iterations} iterations", history=history, r=r, dl=dl)
