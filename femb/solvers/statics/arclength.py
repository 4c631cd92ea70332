"""Crisfield's cylindrical arc-length method for limit points and snap-through.

Unknowns are the free displacements and the load factor λ of the scaled loads; each
increment satisfies ‖Δu‖ = Δl (cylindrical constraint, no load term). The root of the
constraint quadratic closest to the previous increment direction is taken, and Δl adapts
to the number of iterations.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import numpy as np

from femb.core.errors import ConvergenceError, InputError
from femb.results import Results
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
    if any(b.spec.oriented for b in t.blocks):
        raise InputError("the arc-length method does not support 3-D rotations (oriented nodes) yet; use solve_static with load stepping", "solve_arclength")
    f_ref = t.free(prob.f_ref)
    if not np.any(f_ref):
        raise InputError("the arc-length method needs a non-zero scaled (non-constant) load", "solve_arclength")
    asm = prob.assembler
    res = Results(t, "arclength", model)
    u = np.zeros(t.n_var)
    lam = 0.0
    res.record(lam, u, load_factor=lam, iterations=0, arc_length=0.0, strain_energy=0.0)
    dl = arc.arc_length
    prev_du = None
    for step in range(arc.max_steps):
        cuts = 0
        while True:
            out = _increment(prob, asm, u, lam, f_ref, dl, prev_du, arc, settings)
            if out["converged"]:
                break
            cuts += 1
            if cuts > settings.max_cutbacks:
                raise ConvergenceError(
                    f"arc-length increment {step + 1} failed at λ = {lam:.6g} after {settings.max_cutbacks} cut-backs ({out['reason']})",
                    out["history"], worst_dofs(out.get("r"), t), res, load=lam,
                )
            dl = 0.5 * (dl if dl is not None else out["dl"])
        u, lam, prev_du, dl_used = out["u"], out["lam"], out["du"], out["dl"]
        res.record(lam, u, load_factor=lam, iterations=out["iterations"], arc_length=dl_used, strain_energy=asm.strain_energy(u))
        dl = min(dl_used * np.sqrt(arc.desired_iterations / max(out["iterations"], 1)), arc.max_arc_length)
        if not (arc.min_load_factor <= lam <= arc.max_load_factor):
            break
        if arc.stop is not None and arc.stop(res):
            break
    return res


def _increment(prob, asm, u0, lam0, f_ref, dl, prev_du, arc, settings):
    """One arc-length increment from (u0, λ0); returns a dict with the outcome."""
    t = prob.table
    f_const = t.free(prob.f_const)
    f, K = asm.tangent(u0)
    try:
        lu = Factorization(K, t, "tangent")
    except SingularSystemError as exc:
        return dict(converged=False, reason=str(exc).splitlines()[0], history=[], dl=dl or 1.0)
    dut = lu.solve(f_ref)
    if dl is None:
        dl = arc.initial_load_factor * float(np.linalg.norm(dut))
    dlam = dl / max(float(np.linalg.norm(dut)), 1e-300)
    if prev_du is not None and float(prev_du @ dut) < 0.0:
        dlam = -dlam
    elif prev_du is None and dlam < 0:
        dlam = -dlam
    du = dlam * dut
    lam = lam0 + dlam
    history = []
    for it in range(1, settings.max_iterations + 1):
        u = u0.copy()
        u[t.eq_var] += du
        f, K = asm.tangent(u)
        r = t.free(f) - lam * f_ref - f_const
        scale = max(float(np.linalg.norm(lam * f_ref + f_const)), float(np.linalg.norm(f)), 1e-300)
        norm = float(np.linalg.norm(r))
        history.append(norm)
        if not np.isfinite(norm):
            return dict(converged=False, reason="residual is not finite", history=history, r=r, dl=dl)
        if norm <= settings.tolerance * scale:
            return dict(converged=True, u=u, lam=lam, du=du, dl=dl, iterations=it, history=history)
        try:
            lu = Factorization(K, t, "tangent")
        except SingularSystemError:
            # exactly at a limit point: perturb the load factor slightly and go on
            lam += 1e-6 * dlam
            continue
        dur = -lu.solve(r)
        dut = lu.solve(f_ref)
        # ‖du + dur + δλ·dut‖² = dl²
        a = float(dut @ dut)
        b = 2.0 * float(dut @ (du + dur))
        c = float((du + dur) @ (du + dur)) - dl * dl
        disc = b * b - 4.0 * a * c
        if disc < 0.0:
            return dict(converged=False, reason="arc-length constraint has no real root", history=history, r=r, dl=dl)
        roots = ((-b + np.sqrt(disc)) / (2 * a), (-b - np.sqrt(disc)) / (2 * a))
        cands = [du + dur + s * dut for s in roots]
        k = int(np.argmax([float(cnd @ du) for cnd in cands]))
        du, lam = cands[k], lam + roots[k]
    return dict(converged=False, reason=f"no convergence in {settings.max_iterations} iterations", history=history, r=r, dl=dl)
