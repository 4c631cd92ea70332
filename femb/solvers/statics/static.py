"""Nonlinear statics: Newton–Raphson with load stepping, line search and cut-back.

All loads that are not ``constant`` are multiplied by the load factor λ, prescribed DOFs
take ``value·λ``; constant loads act in full from the first increment.

Models with oriented nodes (3-D rotations, e.g. beam3d) are solved for a Configuration
(u, R) (femb.solvers.configuration): rotational corrections are spatial spins applied
multiplicatively, R ← exp(δŵ) R, and the rotational slots of u hold log R. Other models
keep a plain variable vector u as state. Prescribed rotations at oriented nodes are
rotations about a global axis, R = exp(λ θ̂_p).
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Optional, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

from femb.core.errors import ConvergenceError, InputError
from femb.results import Results
from femb.solvers.configuration import Configuration, split_state
from femb.solvers.linalg.factorization import SingularSystemError
from femb.solvers.nonlinear.newton import NewtonSettings, newton, worst_dofs
from femb.solvers.problem import StaticProblem
from femb.solvers.statics.planar_static import PlanarLoadSteps

if TYPE_CHECKING:
    from femb.correlation import CorrelationTable
    from femb.model import Model

log = logging.getLogger(__name__)


def _load_factors(steps, load_factors):
    if load_factors is not None:
        lf = np.asarray(load_factors, dtype=np.float64).ravel()
        if lf.size == 0 or np.any(~np.isfinite(lf)):
            raise InputError("load_factors must be a non-empty sequence of finite numbers", "solve_static(load_factors=...)")
        return lf
    if isinstance(steps, bool) or not float(steps).is_integer() or int(steps) < 1:
        raise InputError(f"steps must be an integer >= 1, got {steps!r}", "solve_static(steps=...)")
    return np.linspace(1.0 / int(steps), 1.0, int(steps))


def solve_static(model: Model, steps: int = 10, load_factors: Optional[ArrayLike] = None, settings: Optional[NewtonSettings] = None,
                 table: Optional[CorrelationTable] = None, include_geometric: bool = True, u0: Optional[Union[NDArray[np.float64], Configuration]] = None,
                 problem: Optional[StaticProblem] = None, on_frame: Optional[Callable[[Results], None]] = None) -> Results:
    """Solve the nonlinear static equilibrium of ``model`` along a load path.

    Each load step starts from the converged state of the previous one under the new loads;
    its first Newton correction is the tangent predictor, applied with the element chords
    turned instead of stretched (``settings.chord_predictor``); the tangent is factorized
    again only when needed (``settings.reuse_ratio``; femb.solvers.nonlinear.newton.newton).
    A load factor is accepted when ‖r‖ ≤ ``settings.tolerance``·s over the free equations,
    s = max(‖f_ext(λ)‖, ‖f_int‖) with f_int over all variables (the applied loads and the
    support reactions), or when the correction is at round-off (‖δx‖ ≤
    ``settings.increment_tolerance``·‖x‖ while ‖r‖ ≤ 1e-4·s). Qualifying planar beam2d
    models (femb.solvers.statics.planar_static) run their load steps in one compiled call
    with the same iterates (``settings.compiled_step``). A load factor equal to the one
    before it (or a first one of 0) is recorded again without a solve (0 iterations).

    Parameters
    ----------
    model : femb.model.Model
    steps : int
        Equal load increments up to λ = 1 (ignored when ``load_factors`` is given).
    load_factors : sequence of float, optional
        The load factors at which converged states are wanted (frames are recorded there).
    settings : NewtonSettings, optional
    include_geometric : bool
        Keep the geometric stiffness in the tangent (switch off only for studies).
    u0 : (n_var,) array or Configuration, optional
        Start state (default: the undeformed configuration; for oriented models the
        rotational slots of a vector are rotation vectors, R = exp(θ̂)).
    on_frame : callable, optional
        ``on_frame(results)`` after every recorded frame (writers, progress bars), so a
        run that is stopped keeps everything converged so far.

    Returns
    -------
    Results with one frame per requested load factor (frame 0 is the start state, λ = 0)
    and histories ``load_factor``, ``iterations``, ``residual``, ``constraint_residual``,
    ``strain_energy``; per-frame arrays ``reactions`` over ``table.constrained_vars`` and
    ``multipliers`` (joint reactions, one per row of ``results.info["constraint_rows"]``);
    models with oriented nodes also record ``rotations`` (n_nodes, 3, 3) per frame
    (``results.nodal_rotation_matrices(frame)``) and their frames' u hold log R in the
    rotational slots; ``info["newton_iterations"]`` and ``info["factorizations"]`` (tangent
    factorizations, failed attempts included) total the run; ``info["compiled_step"]``
    says whether the compiled load steps were used, ``info["compiled_load_steps"]`` how many
    load steps they did;
    ``problem.state_of(results, frame)`` rebuilds the Configuration of a frame (a start
    state for continuation or modal analysis).

    Raises
    ------
    ConvergenceError after ``settings.max_cutbacks`` halvings of an increment (its
    ``results`` keep every converged frame); SingularSystemError for a mechanism.
    """
    settings = settings or NewtonSettings()
    prob = problem or StaticProblem(model, table, include_geometric)
    targets = _load_factors(steps, load_factors)
    t = prob.table
    x = prob.initial_state(u0)
    res = Results(t, "static", model)
    res.info.update(n_equations=t.n_eq, n_variables=t.n_var, nnz=t.nnz, constraint_rows=prob.constraint_rows)
    lam = 0.0
    prob.apply_prescribed(x, lam)

    def frame_arrays(x, lam, mult):
        out = {"reactions": prob.reactions(x, lam, mult), "multipliers": np.zeros(0) if mult is None else mult}
        if isinstance(x, Configuration):
            out["rotations"] = x.R
        return out

    def record(x, lam, **scalars):
        u = split_state(x)[0]
        if prob.joints is not None and "constraint_residual" in scalars:
            # a solution: every joint equation must hold, the ones dropped as redundant too
            scalars["constraint_residual"] = prob.dropped_rows.residual(u, lam, prob.length_scale, f"load factor {lam:.6g}")
        res.record(lam, u, load_factor=lam, strain_energy=prob.strain_energy(x), arrays=frame_arrays(x, lam, scalars.pop("mult")), **scalars)

    compiled = PlanarLoadSteps.build(prob, settings) if settings.compiled_step and not isinstance(x, Configuration) else None
    res.info["compiled_step"] = compiled is not None  # which path ran (compiled load steps, or the general loop only)
    cv = t.constrained_vars

    def record_compiled(lams, states, forces, energies, **scalars):
        """Frames of the compiled path: states (k, n_var) with their internal forces and
        element energies; reactions and energies as ``record`` computes them."""
        ext = lams[:, None] * prob.f_ref[cv] + prob.f_const[cv]  # (the entries of prob.external(λ))
        k = lams.size
        res.record_frames(lams, states, arrays={"reactions": forces[:k, cv] - ext, "multipliers": np.zeros((k, 0))}, load_factor=lams,
                          strain_energy=energies[:k].sum(axis=1), **scalars)

    if compiled is not None:
        f0, e0 = compiled.evaluate(x)
        record_compiled(np.array([lam]), np.array([x]), f0[None], e0[None], iterations=[0], residual=[0.0], constraint_residual=[np.nan])
    else:
        record(x, lam, iterations=0, residual=0.0, mult=None)
    notify = on_frame or (lambda results: None)
    notify(res)
    total_iterations = 0
    factorizations = 0
    compiled_steps = 0
    i = 0
    while i < targets.size:
        # the load steps up to the next recorded one (all of them without on_frame), compiled,
        # up to a load factor equal to the one before it (recorded again below, not solved)
        end = i
        if compiled is not None:
            end = i + 1 if on_frame is not None else targets.size
            repeats = np.flatnonzero(targets[i:end] == np.concatenate([[lam], targets[i:end - 1]]))
            end = i + int(repeats[0]) if repeats.size else end
        if compiled is not None and end > i:
            out = compiled.run(x, targets[i:end])
            if out.done:
                lams = targets[i:i + out.done]
                record_compiled(lams, out.states, out.forces, out.energies, iterations=out.iterations, residual=out.residuals,
                                constraint_residual=np.zeros(out.done))
                lam, x = float(lams[-1]), out.states[out.done - 1]
                notify(res)
            done_its = int(out.iterations[:out.done].sum())
            total_iterations += done_its
            factorizations += done_its  # one tangent per correction (no reuse)
            compiled_steps += out.done
            i += out.done
            if i == targets.size:
                break
        target = targets[i]
        i += 1
        if target == lam:  # the load factor of the last frame again: nothing to solve, the frame is repeated
            mult = res.arrays["multipliers"][-1] if prob.joints is not None and len(res) > 1 else None
            record(x, lam, iterations=0, residual=res.history["residual"][-1], constraint_residual=0.0, mult=mult)
            notify(res)
            continue
        step = target - lam
        cuts = 0
        while lam != target:
            trial_lam = target if abs(target - lam) <= abs(step) * (1 + 1e-12) else lam + step
            trial = prob.apply_prescribed(x.copy(), trial_lam)
            try:
                report = newton(prob.system(trial_lam), trial, settings, t)
            except SingularSystemError:
                if len(res) == 1 and lam == 0.0 and cuts == 0:
                    raise
                report = None
            if report is not None:
                factorizations += report.factorizations
            if report is not None and report.converged:
                x = report.state
                lam = trial_lam
                total_iterations += report.iterations
                if report.iterations <= 4 and cuts:
                    step *= 2.0
                    cuts = max(cuts - 1, 0)
                last_report = report
                continue
            cuts += 1
            if cuts > settings.max_cutbacks:
                hist = report.residual_history if report else []
                worst = worst_dofs(report.last_residual, t) if report else []
                reason = report.reason if report else "singular tangent"
                raise ConvergenceError(
                    f"static solve failed between load factors {lam:.6g} and {trial_lam:.6g} after {settings.max_cutbacks} cut-backs ({reason})",
                    hist, worst, res, load=trial_lam,
                )
            step *= 0.5
            log.info("cut back: load increment halved to %.3e at λ = %.6g", step, lam)
        record(x, lam, iterations=last_report.iterations, residual=last_report.residual_history[-1],
               constraint_residual=last_report.constraint_residual, mult=last_report.multipliers)
        notify(res)
    res.info["compiled_load_steps"] = compiled_steps
    res.info["newton_iterations"] = total_iterations
    res.info["factorizations"] = factorizations
    return res

