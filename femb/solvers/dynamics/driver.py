"""Nonlinear dynamics: ``solve_dynamic`` with the energy-conserving mid-point scheme.

The default scheme (``MidPoint``, femb.solvers.dynamics.schemes) is the Crisfield–Shi /
Simo–Tarnow energy-conserving mid-point rule: trapezoidal kinematics, equilibrium at the
mid-point, the elements' discrete-gradient force (work over a step = strain-energy change
exactly), constant mass. Consequences, checked by the test suite: under constant loads the
total energy is constant to the Newton tolerance at any step size; linear and angular
momentum of free-flying systems are conserved; a rigid rotation creates no strain.

Why Cayley kinematics for planar rotations: with additive θ and ω_{n+1} = 2Δθ/h − ω_n the
nodes of a freely spinning beam turn by ωh per step while the mid-point rule turns the
chords by 2 atan(ωh/2), so the element sees a spurious bending of (ωh)³/12 per step (0.43
rad per step at ωh = 2). Taking τ = 2 tan(Δθ/2) as the rotational unknown (ω_{n+1} =
2τ/h − ω_n) makes the directors turn by 2 atan(ωh/2) as well, and the element force built
from rotation-invariant bilinear invariants at the mid-point (elements.beam2d
``midpoint_force``) keeps energy and angular momentum exact at once. See docs/dynamics.md.

Baselines behind the same interface: ``Newmark`` (trapezoidal), ``HHT``,
``GeneralizedAlpha`` (Chung–Hulbert; for models with 3-D rotations the Lie-group form of
femb.solvers.dynamics.alpha3d). Rayleigh damping and discrete dampers for all (models with
3-D rotations: on spatial angular velocities, β times the co-rotated material tangent);
rotation-dependent (semitangential, follower) moments and follower pressures in models with
3-D rotations; the energy balance books damping, the work of time-varying and
configuration-dependent loads and of prescribed motions.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np
from numpy.typing import ArrayLike

from femb.core.errors import ConvergenceError, InputError
from femb.results import Results
from femb.solvers.dynamics.alpha3d_step import AlphaSpatialSteps
from femb.solvers.dynamics.energy import EnergyAccount
from femb.solvers.dynamics.planar_step import PlanarSteps, WholeSteps
from femb.solvers.dynamics.problem import DynamicProblem, Rayleigh
from femb.solvers.dynamics.rigid_step import RigidSteps, rigid_step_data
from femb.solvers.dynamics.schemes import GeneralizedAlpha, MidPoint, make_scheme
from femb.solvers.dynamics.spatial_step import SpatialSteps
from femb.solvers.dynamics.step_system import State
from femb.solvers.dynamics.superelement_midpoint import SuperelementSteps
from femb.solvers.linalg.factorization import SingularSystemError
from femb.solvers.nonlinear.newton import NewtonSettings, worst_dofs
from femb.solvers.nonlinear.step_newton import DirectCorrection, iterate

if TYPE_CHECKING:
    from femb.correlation import CorrelationTable
    from femb.model import Model

log = logging.getLogger(__name__)

PENDING_FRAMES = 64
"""The compiled rigid steps' frames are written (energy books, joint residual, Results) in
batches of at most this many, at the end of the run or when a step fails: each compiled call
leaves the interpreter's caches cold, so a frame written right after it costs several times
one written after another frame; the batch bounds the states held meanwhile."""


def _default_newton():
    return NewtonSettings(tolerance=1e-12, increment_tolerance=1e-13, max_iterations=25, max_cutbacks=8)


@dataclass
class DynamicSettings:
    """Settings of ``solve_dynamic``.

    Attributes
    ----------
    scheme
        "midpoint" (default, energy-conserving), "newmark"/"trapezoidal", "hht",
        "generalized-alpha", or a scheme object (``MidPoint()``, ``HHT(alpha)``,
        ``GeneralizedAlpha(rho_inf)``, ``Newmark(beta, gamma)``); every scheme takes
        models with 3-D rotations (the α family in its Lie-group form).
    mass
        mass kind "lumped" (default, as in every femb analysis), "consistent" or
        "invariant" (must be constant for every part; beams: "lumped" or "invariant").
    damping
        ``Rayleigh(alpha, beta)`` or None.
    newton
        NewtonSettings (tolerance relative to the largest of the internal, inertia
        and external force norms; the per-step energy error is about residual × step
        increment, so the tolerance is the energy tolerance). ``modified=True`` reuses the
        factorization across iterations and steps. ``max_cutbacks``: halvings of a step
        that does not converge before ConvergenceError.
    max_turn
        the largest rotation (rad) of a nodal rotation or an element chord that one
        Newton correction may apply; longer corrections are scaled down (None: no limit).
    record_every
        record a frame (state and history) every k steps (the last one always).
    progress
        show a tqdm progress bar.
    compiled_step
        take compiled whole steps where a model qualifies — small planar beam2d models
        and small 3-D beam3d / beam3d_timoshenko models (no joints, no damping, full
        Newton): the steps between two recorded frames in one compiled call
        (femb.solvers.dynamics.planar_step, femb.solvers.dynamics.spatial_step; the same
        3-D models under the α schemes: femb.solvers.dynamics.alpha3d_step); models made
        only of 3-D rigid bodies and point masses with 3-D joints: the steps between two
        recorded frames in one compiled call as well (femb.solvers.dynamics.rigid_step);
        models of one block of Craig–Bampton superelements (supports, prescribed motions,
        full Newton): the same (femb.solvers.dynamics.superelement_midpoint). The same
        results as the general path to round-off; False: always the general path.
    """

    scheme: Union[str, MidPoint, GeneralizedAlpha] = "midpoint"
    mass: Union[str, int] = "lumped"
    damping: Optional[Rayleigh] = None
    newton: NewtonSettings = field(default_factory=_default_newton)
    max_turn: Optional[float] = 0.5
    record_every: int = 1
    progress: bool = False
    compiled_step: bool = True


def _probe_vars(table, model, probes):
    """[(name, var, 'u' or 'v')] from {name: (node, dof[, 'u'|'v'])}."""
    out = []
    for name, spec in (probes or {}).items():
        if len(spec) not in (2, 3):
            raise InputError(f"probe {name!r}: expected (node, dof) or (node, dof, 'u'|'v'), got {spec!r}")
        which = spec[2] if len(spec) == 3 else "u"
        if which not in ("u", "v"):
            raise InputError(f"probe {name!r}: quantity must be 'u' or 'v', got {which!r}")
        out.append((name, table.var_of(model.node(spec[0]), spec[1]), which))
    return out


def solve_dynamic(model: Model, dt: float, t_end: float, settings: Optional[DynamicSettings] = None, *,
                  scheme: Union[None, str, MidPoint, GeneralizedAlpha] = None, mass: Union[None, str, int] = None,
                  damping: Optional[Rayleigh] = None, record_every: Optional[int] = None,
                  probes: Optional[dict[str, tuple[Any, ...]]] = None, t0: float = 0.0, u0: Optional[ArrayLike] = None,
                  v0: Optional[ArrayLike] = None, table: Optional[CorrelationTable] = None,
                  solve_correction: Optional[DirectCorrection] = None,
                  problem: Optional[DynamicProblem] = None) -> Results:
    """Integrate the equations of motion of ``model`` from t0 to t_end with step dt.

    Parameters
    ----------
    model : femb.model.Model
        Initial velocities from ``model.initial_velocity`` / ``initial_rigid_velocity``;
        loads act with their amplitude a(t) (1 when None; ``constant`` loads always in
        full); prescribed DOFs follow ``function(t)`` (or stay at ``value``).
    dt, t_end : float
        Nominal step and end time (the last step is shortened to hit t_end).
    settings : DynamicSettings, optional
        The ``scheme``, ``mass``, ``damping`` and ``record_every`` keywords override its
        fields.
    probes : dict, optional
        name -> (node, dof) or (node, dof, "v"): a displacement (or velocity) recorded in
        the history under ``name``.
    u0, v0 : (n_var,) arrays, optional
        Initial state (default: undeformed, velocities from the model).
    solve_correction : DirectCorrection or alike, optional
        A callable ``(K, r) -> δz`` with a ``reset()`` method: the linear solve of a Newton correction over the equations (K None:
        reuse the last factorization). Default: ``DirectCorrection`` (sparse LU).

    Returns
    -------
    Results (kind "dynamic"): frames (t, u, v) at t0 and every ``record_every`` steps;
    histories ``kinetic_energy``, ``strain_energy``, ``potential_energy`` (constant
    loads), ``total_energy``, ``external_work`` (time-varying loads), ``constraint_work``
    (prescribed motions), ``dissipated_energy``, ``energy_residual``,
    ``linear_momentum_x/y(/z)``, ``angular_momentum`` (2-D) or ``angular_momentum_x/y/z``
    (3-D, about the origin), ``iterations``, ``cutbacks`` and the probes. 2-D rotations
    are stored as additive angles.

    Raises
    ------
    ConvergenceError when a step still fails after ``newton.max_cutbacks`` halvings (its
    ``results`` keep everything computed so far); ModelError/InputError for unsupported
    models (configuration-dependent mass; follower pressures in models without 3-D
    rotations; a follower pressure on faces no element couples). Joints (all kinds) are eliminated by the null-space
    projection (docs/dynamics.md, "Joints"); their multipliers are recorded per frame in
    ``arrays["multipliers"]`` and a ``constraint_residual`` history.
    """
    settings = settings or DynamicSettings()
    dt, t_end, t0 = float(dt), float(t_end), float(t0)
    if not dt > 0 or not t_end > t0:
        raise InputError(f"need dt > 0 and t_end > t0, got dt={dt}, t0={t0}, t_end={t_end}")
    sch = make_scheme(scheme if scheme is not None else settings.scheme)
    prob = problem or DynamicProblem(model, table, mass if mass is not None else settings.mass,
                                     damping if damping is not None else settings.damping)
    prob.dt_hint = dt
    prob.max_turn = settings.max_turn
    setattr(prob, "compiled_rigid_step", settings.compiled_step)  # read by MidPoint.system
    tab = prob.table
    newton = settings.newton
    correction = solve_correction or DirectCorrection(tab)
    probe_vars = _probe_vars(tab, model, probes)
    every = max(1, int(record_every if record_every is not None else settings.record_every))

    u, v = prob.initial_state(t0, dt, u0, v0)
    if prob.joints is not None:
        u, v = _consistent_initial_state(prob, u, v, t0, project=v0 is None)
    state = sch.start(prob, t0, u, v)
    account = EnergyAccount()
    snap = account.snapshot(prob, state.u, state.v, state)
    account.E0 = snap["total_energy"]
    res = Results(tab, "dynamic", model)
    res.info.update(sch.describe(), dt=dt, t0=t0, t_end=t_end, mass_kind=prob.mass_kind, n_equations=tab.n_eq,
                    n_variables=tab.n_var, nnz=tab.nnz, newton_tolerance=newton.tolerance, modified_newton=newton.modified)

    joints: dict[str, Any] = {"multipliers": np.zeros(len(prob.constraint_rows)), "residual": 0.0}
    carried = state.extra.get("multipliers")  # a continued mid-point state: its last step's joint multipliers
    if carried is not None and np.size(carried) == len(prob.constraint_rows):
        joints["multipliers"] = np.array(carried, dtype=np.float64)
    res.info["constraint_rows"] = prob.constraint_rows

    def write(st, books, multipliers, iterations, cutbacks):
        """Record the frame of state ``st`` with the energy books ``books`` (an EnergyAccount)
        and the joint multipliers of its step."""
        hist = books.snapshot(prob, st.u, st.v, st)
        for name, var, which in probe_vars:
            hist[name] = (st.u if which == "u" else st.v)[var]
        arrays = {"rotations": st.extra["R"]} if prob.oriented else {}
        if prob.joints is not None:
            R = st.extra["R"] if prob.oriented else None
            hist["constraint_residual"] = prob.dropped_rows.residual(st.u, st.t, prob.length_scale, f"t = {st.t:.6g}", rotations=R)
            arrays["multipliers"] = multipliers
        res.record(st.t, st.u, st.v, arrays=arrays or None, iterations=iterations, cutbacks=cutbacks, **hist)

    pending: list[tuple[Any, ...]] = []  # frames whose books are written later (``flush``)

    def record(iterations, cutbacks, later=False):
        """Record the frame at ``state``; ``later``: keep what it needs (the state's arrays,
        which no step writes again, and the books' running totals) for ``flush``."""
        if not later:
            write(state, account, joints["multipliers"], iterations, cutbacks)
            return
        books = EnergyAccount(account.E0, account.external_work, account.constraint_work, account.dissipated)
        pending.append((State(state.t, state.u, state.v, extra=dict(state.extra)), books, joints["multipliers"], iterations, cutbacks))
        if len(pending) >= PENDING_FRAMES:
            flush()

    def flush():
        """Write the pending frames, in order."""
        for frame in pending:
            write(*frame)
        pending.clear()

    record(0, 0)
    n_steps = max(1, int(np.ceil((t_end - t0) / dt - 1e-9)))
    bar = _progress(n_steps) if settings.progress else None
    wall, cpu = time.perf_counter(), time.process_time()
    total_iterations = total_cutbacks = 0
    iters_since = cuts_since = 0
    last_h = None
    level = 0
    # jointed rigid bodies: their steps between frames in one call (RigidSteps); such a model
    # (rigid bodies and point masses with 3-D joints only) is none of the other steppers' kind
    rigid = (settings.compiled_step and type(sch) is MidPoint and getattr(prob, "oriented", False)
             and rigid_step_data(prob) is not None)
    whole: Union[WholeSteps, RigidSteps, None] = RigidSteps.build(prob, newton) if rigid else None
    if settings.compiled_step and not rigid:  # planar beams, 3-D beams (mid-point, α schemes), superelements
        for stepper in (PlanarSteps, SpatialSteps, AlphaSpatialSteps, SuperelementSteps):
            whole = stepper.build(prob, sch, newton, solve_correction)
            if whole is not None:
                break
    res.info["compiled_step"] = whole is not None or rigid  # which path ran (compiled or general)
    # the compiled rigid steps' frames written in batches (PENDING_FRAMES); the states of these
    # steps are new arrays (RigidSteps.advance, RigidStepSystem), never written again
    later = isinstance(whole, RigidSteps)
    skip = 0
    for n in range(n_steps):
        if n < skip:  # done by the compiled whole steps
            continue
        t_target = t_end if n == n_steps - 1 else t0 + (n + 1) * dt
        if whole is not None and level == 0:  # the steps up to the next recorded one, compiled
            done, its, state = whole.advance(state, n, n_steps, t0, dt, t_end, every, account)
            if done and getattr(sch, "keep_state", None) is not None:
                sch.keep_state(state)  # a scheme that carries its state across calls (femb.case.segments)
            if done and "multipliers" in state.extra:  # the joint multipliers of the last step (RigidSteps)
                joints["multipliers"] = state.extra["multipliers"]
            if done:
                n += done - 1
                skip = n + 1
                t_target = state.t
                iters_since += its
                last_h = None
                if bar is not None:
                    bar.update(done - 1)
        while t_target - state.t > 1e-12 * max(1.0, abs(t_target)):
            h = min(dt / 2 ** level, t_target - state.t)
            if t_target - (state.t + h) <= 1e-12 * max(1.0, abs(t_target)):
                h = t_target - state.t
            if last_h is not None and abs(h - last_h) > 1e-14 * h:
                correction.reset()
            system = sch.system(prob, state, h)
            system.multipliers_guess = joints["multipliers"] if len(joints["multipliers"]) else None
            try:
                report = _iterate(system, newton, correction, reuse=newton.modified and last_h == h)
                failure = None
            except SingularSystemError as exc:
                report, failure = None, exc
            last_h = h
            if report is not None and not report.converged and settings.max_turn:
                # retry the same step with a more strongly damped Newton (keeps the time grid)
                prob.max_turn = 0.25 * settings.max_turn
                correction.reset()
                system = sch.system(prob, state, h)
                try:
                    report = _iterate(system, newton, correction)
                except SingularSystemError as exc:
                    report, failure = None, exc
                prob.max_turn = settings.max_turn
                iters_since += newton.max_iterations
                if report is not None and report.converged:
                    log.debug("step at t = %.6g converged with damped Newton corrections", state.t)
            if report is not None and report.converged:
                system.multipliers = report.multipliers  # joint reactions of the accepted state (constraint work)
                state, terms = system.finish(report.state)
                if report.multipliers is not None:
                    joints["multipliers"] = system.multipliers
                if prob.joints is not None and prob.dropped_rows.rows.size:
                    _check_dropped_rows(prob, state, joints, res, correction)
                account.add(**terms)
                iters_since += report.iterations
                if level and report.iterations <= 4:
                    level -= 1
                continue
            level += 1
            cuts_since += 1
            correction.reset()
            last_h = None
            if level > newton.max_cutbacks:
                flush()
                if failure is not None and len(res) == 1:
                    raise failure
                reason = report.reason if report is not None else f"singular matrix: {failure}"
                raise ConvergenceError(
                    f"dynamic step from t = {state.t:.6g} failed after {newton.max_cutbacks} cut-backs (step {h:.3e}; {reason})",
                    report.residual_history if report is not None else [],
                    worst_dofs(report.last_residual, tab) if report is not None else [], res, load=state.t)
            log.info("cut back: step halved to %.3e at t = %.6g (%s)", dt / 2 ** level, state.t,
                     report.reason if report is not None else "singular matrix")
        state.t = t_target
        if (n + 1) % every == 0 or n == n_steps - 1:
            record(iters_since, cuts_since, later)
            total_iterations += iters_since
            total_cutbacks += cuts_since
            iters_since = cuts_since = 0
        if bar is not None:
            bar.update(1)
    flush()
    if bar is not None:
        bar.close()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    res.info.update(steps=n_steps, newton_iterations=total_iterations, cutbacks=total_cutbacks, wall_time=wall, cpu_time=cpu,
                    time_per_step=wall / n_steps)
    log.info("%s: %d steps, %d Newton iterations, %d cut-backs, %.3f s", sch.name, n_steps, total_iterations, total_cutbacks, wall)
    return res


def _iterate(system, newton, correction, reuse=False):
    """The Newton iterations of one step: the system's own compiled loop when it has one
    (``solve_step``, femb.solvers.dynamics.rigid_step), else ``iterate``."""
    solve = getattr(system, "solve_step", None)
    if solve is not None:
        return solve(newton)
    return iterate(system, newton, correction, reuse=reuse)


def _check_dropped_rows(prob, state, joints, res, correction):
    """After a step: every joint equation dropped as redundant must still hold
    (ModelError naming the joints otherwise, femb.solvers.linalg.redundancy), and the ones
    that no longer depend on the solved equations are solved again from the next step on
    (the start was a singular configuration): the active rows, the carried multipliers and
    those of the recorded frames (zero for a row that was not solved) take them in."""
    R = state.extra["R"] if prob.oriented else None
    dropped = prob.dropped_rows
    dropped.residual(state.u, state.t, prob.length_scale, f"t = {state.t:.6g}", rotations=R)
    back = dropped.regain(state.u, state.t, prob.length_scale, rotations=R)
    if not back.size:
        return
    old = prob.active_rows
    prob.active_rows = dropped.active
    at = np.searchsorted(prob.active_rows, old)

    def widened(lam):
        out = np.zeros(prob.active_rows.size)
        out[at] = lam
        return out

    joints["multipliers"] = widened(joints["multipliers"])
    for key in ("multipliers", "lam"):  # the multipliers a scheme carries to the next step
        if state.extra.get(key) is not None and np.size(state.extra[key]) == old.size:
            state.extra[key] = widened(state.extra[key])
    res.arrays["multipliers"] = [widened(lam) for lam in res.arrays.get("multipliers", [])]
    res.info["constraint_rows"] = prob.constraint_rows
    correction.reset()  # the reduced system changes size
    _log_taken_back(prob, back, state.t)


def _log_taken_back(prob, back, t):
    log.info("joint(s) %s: equation(s) dropped as redundant at the start solved again from t = %.6g on "
             "(independent of the others there)", ", ".join(map(repr, prob.joints.describe(back))), t)


def _consistent_initial_state(prob, u, v, t0, project=True):
    """Check that the initial positions satisfy the joints (InputError naming them
    otherwise) and, with ``project``, project the initial velocities of the model onto the
    joints' velocity constraint (G v + Φ_t = 0, the smallest change), warning when that
    changed them. A state passed in by
    the caller (a continuation) is taken as it is."""
    prob.dropped_rows.residual(u, t0, prob.length_scale, f"the start, t = {t0:.6g}")  # contradictory joints
    back = prob.dropped_rows.regain(u, t0, prob.length_scale) if prob.dropped_rows.rows.size else ()
    if len(back):  # a continued run, out of the singular configuration the set-up saw
        prob.active_rows = prob.dropped_rows.active
        _log_taken_back(prob, back, t0)
    phi, G = prob.joint_state(u, t0)
    if np.linalg.norm(phi) > 1e-8 * prob.length_scale:
        bad = [prob.constraint_rows[i] for i in np.flatnonzero(np.abs(phi) > 1e-8 * prob.length_scale)]
        raise InputError(f"the initial configuration violates joint(s) {', '.join(map(repr, dict.fromkeys(bad)))} (|Φ| up to {np.abs(phi).max():.3e})")
    ev = prob.table.eq_var
    Gf = G[:, ev].toarray()
    dt = 1e-3 * prob.dt_hint  # Φ_t of time-dependent joints (linear_constraint with a value function)
    phi_t = (prob.joint_state(u, t0 + dt)[0] - prob.joint_state(u, t0 - dt)[0]) / (2.0 * dt)
    gv = G @ v + phi_t
    if project and np.linalg.norm(gv) > 1e-12 * max(np.linalg.norm(v), np.linalg.norm(phi_t), 1e-300):
        v = v.copy()
        v[ev] -= Gf.T @ np.linalg.solve(Gf @ Gf.T, gv)
        log.warning("initial velocities projected onto the joints (|G v + Φ_t| was %.3e)", np.linalg.norm(gv))
    return u, v


def _progress(total):
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return None
    return tqdm(total=total, unit="step", desc="solve_dynamic")
