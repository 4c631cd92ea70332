"""femb against Exudyn on every case both codes model, side by side in one process.

Rows (``python benchmarks/peer_suite.py [ROW ...] [--large]``; default: all rows at their
small sizes, the combined table at the end):

  pendulum   free-falling flexible pendulum of benchmarks/flexible_pendulum.py, N = 10, 100
             (--large: 1000), Δt = 1e-3, 1 s (--large: 2 s)
  spinup2d   Meijaard's spin-up B, planar, 10 / 40 elements, Δt = 0.01, 10 s (--spin-t-end)
  spinup3d   spin-up B with femb's beam3d_timoshenko / Exudyn's ObjectBeamGeometricallyExact,
             10 elements, Δt = 0.01, 10 s (--spin-t-end); twice: femb's mid-point scheme, and
             femb's generalized-α with ρ∞ = 0.9 against Exudyn's (its default) like for like
  chain      10 rigid bodies in a 3-D chain of revolute joints, Δt = 2e-3, 0.5 s (--chain-t-end)
  revolute   one rigid body on a skew revolute joint (benchmarks/joint_step_overhead.py,
             model (a)), Δt = 0.02, 4 s
  rollup     static 2-D roll-up of a cantilever into a circle, 10 / 40 elements, 10 / 20 load steps
  bend       Bathe & Bolourchi's 45° bend, 3-D, static, 8 / 16 (--large: 32) elements, 10 load steps

Each row runs femb (energy-conserving mid-point rule, full Newton: femb's default dynamic
solver; statics: femb's Newton with equal load steps) and Exudyn with (a) its default
Newton (dynamics: modified Newton; statics: full Newton) and (b) the other one (dynamics:
full Newton; statics: modified Newton), the same model, element count, step and number of
steps. The repeats are interleaved (femb, Exudyn (a), Exudyn (b), femb, ...), the time of
each code the median of ``--repeat`` (≥ 3) runs; the load average of the machine is
printed before and after each row.

Timing. Dynamics: time per step. femb: its time-stepping loop (``results.info["wall_time"]``,
states recorded every 50 steps); Exudyn: ``SolveDynamic`` without solution output minus a
10-step run of the same system (its set-up: initial accelerations, Jacobian pattern), each
the mean of back-to-back solves lasting at least 0.3 s (one sample). Statics: the whole
solve call of each code (femb ``solve_static`` with its table and problem set-up; Exudyn
``SolveStatic`` after ``Assemble``), model building excluded in both; one sample = the mean
of back-to-back solves lasting at least 0.3 s. Each code's time is the median of its
samples.

Newton tolerances (the same absolute residual threshold in both codes, stated per row).
femb converges when ‖r‖ ≤ τ·s with s its force scale (the largest of the internal, inertia
and external force norms of the step). Before the timed runs, one femb run records s at
every Newton test (a wrapper around the step's residual evaluation, not timed); Exudyn gets
``absoluteTolerance`` = τ·median(s) and ``relativeTolerance`` = τ (Exudyn's relative test
is against the residual of its predictor, which is of the size of s, so both tests are
about τ·s), but never below the round-off level of the residual, (EA/l_e)·ε·√(coordinates),
which Exudyn cannot reach (femb stops there by its correction-at-round-off test; the
flexible pendulum keeps the thresholds of benchmarks/flexible_pendulum.py, which is the
same rule with s = ‖f_g‖). Defaults: τ = 1e-6 (dynamics, as flexible_pendulum.py), 1e-8
(statics). The row prints τ, median(s) and the range of s over the run: where s varies
much (spin-up: the inertia forces grow with the hub speed) femb's threshold is tighter
than Exudyn's early in the run and looser late. Both codes: at most 25 iterations per step.

Accuracy is printed beside the time: a quantity both codes compute from their own states
(tip position at the end, the extreme tip deflection, the energy error).

Nothing is asserted; the table is printed and written to benchmarks/out/peer_suite.{md,json}.
Exudyn (``pip install exudyn`` or the ``bench`` extra) is a peer code for this comparison
only, never a femb dependency; it runs its compiled module without range checks
(``exudynCPPfast``), one thread, EigenSparse LU with ``reuseAnalyzedPattern``.
"""
import argparse
import json
import os
import statistics
import sys
import time
import warnings
from contextlib import contextmanager

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))

import flexible_pendulum as fp  # noqa: E402  (the pendulum model of both codes)
import joint_step_overhead as jso  # noqa: E402  (the single revolute body of both codes)
from exudyn_common import MAX_ITERATIONS, exudyn_dynamic_settings  # noqa: E402

from femb.mesh import Mesh, line_mesh  # noqa: E402
from femb.mesh.mesh import CellBlock  # noqa: E402
from femb.model import Material, Model, Section  # noqa: E402
from femb.solvers import GeneralizedAlpha, solve_dynamic, solve_static  # noqa: E402
from femb.solvers.dynamics import driver as femb_driver  # noqa: E402
from femb.solvers.dynamics.driver import DynamicSettings  # noqa: E402
from femb.solvers.nonlinear.newton import NewtonSettings  # noqa: E402
from femb.solvers.statics import static as femb_static  # noqa: E402
from femb.validation.dynamic3d_cases import spin_up_beam_3d  # noqa: E402
from femb.validation.models import spin_up_angle, spin_up_beam  # noqa: E402

COMPILED_STEP = True  # femb's compiled planar steps where a model qualifies (--general-step: off)
exu = None  # the exudyn module, imported in main()


# ----------------------------------------------------------------------------- helpers
def load():
    return "load %.2f/%.2f/%.2f" % os.getloadavg()


@contextmanager
def femb_force_scales(scales):
    """Record femb's Newton force scale s at every convergence test (dynamics and statics)
    in ``scales`` while the block runs (a wrapper around the residual evaluations)."""
    it0, nw0 = femb_driver.iterate, femb_static.newton

    def iterate(system, *a, **k):
        ev = system.evaluate

        def evaluate(z):
            out = ev(z)
            scales.append(float(out[2]))
            return out
        system.evaluate = evaluate
        try:
            return it0(system, *a, **k)
        finally:
            del system.evaluate

    def newton(system, *a, **k):
        rt, rs = system.residual_and_tangent, getattr(system, "residual", None)

        def residual_and_tangent(x):
            out = rt(x)
            scales.append(float(out[2]))
            return out

        def residual(x):
            out = rs(x)
            scales.append(float(out[1]))
            return out
        system.residual_and_tangent = residual_and_tangent
        if rs is not None:
            system.residual = residual
        return nw0(system, *a, **k)

    iterate0 = femb_driver._iterate  # the driver's dispatch: a compiled step (``solve_step``), else ``iterate``

    def dispatch(system, *a, **k):
        report = iterate0(system, *a, **k)
        if getattr(system, "solve_step", None) is not None:  # the scales of the compiled step's tests
            scales.extend(float(s) for s in system.force_scales)
        return report
    class GeneralLoadSteps:  # static load steps by the general Newton loop, whose tests the wrapper sees
        @staticmethod
        def build(*a, **k):  # (the compiled load steps have the same iterates, hence the same scales)
            return None
    planar0 = femb_static.PlanarLoadSteps
    femb_driver.iterate, femb_static.newton, femb_driver._iterate = iterate, newton, dispatch
    femb_static.PlanarLoadSteps = GeneralLoadSteps
    try:
        yield scales
    finally:
        femb_driver.iterate, femb_static.newton, femb_driver._iterate = it0, nw0, iterate0
        femb_static.PlanarLoadSteps = planar0


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def exudyn_solve_dynamic(build, dt, t_end, tol, abs_tol, modified):
    """(seconds, steps, newton iterations, jacobians, mbs, SC) of one SolveDynamic of a
    freshly built system (build() -> (SC, mbs, extra))."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        SC, mbs, extra = build()
        s = exudyn_dynamic_settings(exu, dt, t_end, tol, abs_tol, modified)
        c0, t0 = time.process_time(), time.perf_counter()
        mbs.SolveDynamic(s)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    it = mbs.sys["dynamicSolver"].it
    return dict(wall=wall, cpu=cpu, steps=it.currentStepIndex - 1, its=it.newtonStepsCount, jac=it.newtonJacobiCount,
                t=it.currentTime, mbs=mbs, SC=SC, extra=extra)


MIN_SAMPLE = 0.3  # s: a timing sample repeats a short solve until it lasts this long (mean per solve)


def batched(solve, min_seconds=MIN_SAMPLE, most=1000):
    """(mean seconds per call, last output) of ``solve() -> (seconds, ...)`` called until
    the calls total ``min_seconds`` (runs of a few ms are at the mercy of the scheduler)."""
    walls, out = [], None
    while not walls or (sum(walls) < min_seconds and len(walls) < most):
        out = solve()
        walls.append(out[0])
    return sum(walls) / len(walls), out


def exudyn_per_step(build, dt, t_end, tol, abs_tol, modified):
    """One timed Exudyn sample: (full − 10-step run) / (steps − 10), each the mean of
    back-to-back solves lasting MIN_SAMPLE, plus the full run; the full run's dict gets
    ``cpu_per_step``, the same difference of CPU (process) times."""
    cpus = {}

    def run(t):
        r = exudyn_solve_dynamic(build, dt, t, tol, abs_tol, modified)
        cpus.setdefault(t, []).append(r["cpu"])
        return r["wall"], r
    full_wall, (_, full) = batched(lambda: run(t_end))
    short_wall, (_, short) = batched(lambda: run(10 * dt))
    steps = max(full["steps"] - short["steps"], 1)
    full["cpu_per_step"] = (median(cpus[t_end]) - median(cpus[10 * dt])) / steps
    return (full_wall - short_wall) / steps, full


def femb_dynamic_run(build, dt, t_end, tol, mass, record_every=50, probes=None, scheme="midpoint", compiled_step=None):
    compiled_step = COMPILED_STEP if compiled_step is None else compiled_step
    settings = DynamicSettings(mass=mass, record_every=record_every, scheme=scheme, compiled_step=compiled_step,
                               newton=NewtonSettings(tolerance=tol, max_iterations=MAX_ITERATIONS))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return solve_dynamic(build(), dt, t_end, settings, probes=probes)


def _check_paths_agree(label, timed, general, rtol=1e-6):
    """Print a warning when a number of the timed run's accuracy (compiled steps) differs
    from the general path's by more than ``rtol`` relative (energy errors: absolute 1e-9)."""
    for key, value in timed.items():
        other = general.get(key)
        if not isinstance(value, float) or not isinstance(other, float):
            continue
        limit = 1e-9 if "energy" in key else rtol * max(abs(value), abs(other), 1e-300)
        if abs(value - other) > limit:
            print(f"  warning [{label}]: {key} = {value:.9g} (timed run) vs {other:.9g} (general path)", flush=True)


def run_dynamic_row(label, size, femb_build, exu_build, dt, t_end, tol, mass, repeat, femb_accuracy, exu_accuracy, note="", floor=0.0,
                    exudyn_tolerances=None, femb_scheme="midpoint"):
    """Interleaved timing of one dynamic case; accuracy from one extra run of each code
    (``femb_scheme``: femb's time integrator, the mid-point scheme by default)."""
    print(f"\n[{label}, {size}] {load()}", flush=True)
    scales = []
    with femb_force_scales(scales):  # pilot run: femb's force scale (not timed), accuracy; the general
        # path's step systems show their scales (the compiled planar steps give the same run)
        res = femb_dynamic_run(femb_build, dt, t_end, tol, mass, record_every=1, scheme=femb_scheme, compiled_step=False)
    s_med = median(scales)
    abs_tol = max(tol * s_med, floor)  # Exudyn cannot go below the round-off level of its residual
    exu_rel = tol
    if exudyn_tolerances is not None:  # a row with its own rule (the flexible pendulum)
        exu_rel, abs_tol = exudyn_tolerances
    # accuracy of the run that is timed (the compiled steps where the model qualifies),
    # checked against the pilot's general path
    acc_f = femb_accuracy(femb_dynamic_run(femb_build, dt, t_end, tol, mass, record_every=1, scheme=femb_scheme))
    _check_paths_agree(label, acc_f, femb_accuracy(res))
    times = {"femb": [], "a": [], "b": []}
    cpu = {"femb": [], "a": [], "b": []}
    info = {}
    for _ in range(repeat):
        r = femb_dynamic_run(femb_build, dt, t_end, tol, mass, scheme=femb_scheme)
        times["femb"].append(r.info["wall_time"] / r.info["steps"])
        cpu["femb"].append(r.info.get("cpu_time", float("nan")) / r.info["steps"])
        info["femb"] = dict(steps=r.info["steps"], its=r.info["newton_iterations"] / r.info["steps"], cutbacks=r.info["cutbacks"])
        if exu is None:
            continue
        for key, modified in (("a", True), ("b", False)):
            try:
                per, full = exudyn_per_step(exu_build, dt, t_end, exu_rel, abs_tol, modified)
            except Exception as exc:  # Exudyn's solver gave up: reported, not timed
                info[key] = dict(its=float("nan"), jac=float("nan"), failed=str(exc).splitlines()[0], finished=False)
                continue
            times[key].append(per)
            cpu[key].append(full["cpu_per_step"])
            info[key] = dict(steps=full["steps"], its=full["its"] / max(full["steps"], 1), jac=full["jac"] / max(full["steps"], 1),
                             finished=abs(full["t"] - t_end) < 1e-9 * max(1.0, t_end))
    acc = {"femb": acc_f}
    if exu is not None:
        for key, modified in (("a", True), ("b", False)):
            try:
                acc[key] = exu_accuracy(exu_build, dt, t_end, exu_rel, abs_tol, modified)
            except Exception as exc:
                acc[key] = dict(failed=str(exc).splitlines()[0])
    row = dict(row=label, size=size, kind="dynamic", scheme=getattr(femb_scheme, "name", femb_scheme), dt=dt, t_end=t_end, tol=tol,
               exudyn_rel_tol=exu_rel, femb_scale_median=s_med,
               femb_scale_range=(min(scales), max(scales)), abs_tol=abs_tol, floor=floor, note=note,
               femb=dict(time=median(times["femb"]), samples=times["femb"], cpu=median(cpu["femb"]), accuracy=acc["femb"], **info["femb"]))
    for key in ("a", "b"):
        if exu is not None:
            row[key] = dict(time=median(times[key]), samples=times[key], cpu=median(cpu[key]), accuracy=acc[key], **info[key])
            row[f"ratio_{key}"] = row["femb"]["time"] / row[key]["time"] if times[key] else float("nan")
            row[f"cpu_ratio_{key}"] = row["femb"]["cpu"] / row[key]["cpu"] if cpu[key] else float("nan")
    print_row(row)
    print(f"  {load()}", flush=True)
    return row


def run_static_row(label, size, femb_solve, exu_solve, tol, repeat, note=""):
    """Interleaved timing of one static case: femb_solve() -> (seconds, its per load step,
    accuracy); exu_solve(modified) -> same."""
    print(f"\n[{label}, {size}] {load()}", flush=True)
    scales = []
    with femb_force_scales(scales):
        femb_solve(None)
    s_med = median(scales)
    femb_solve(None)  # warm-up
    times = {"femb": [], "a": [], "b": []}
    info = {}
    for _ in range(repeat):
        wall, (_, its, accuracy) = batched(lambda: femb_solve(None))
        times["femb"].append(wall)
        info["femb"] = dict(its=its, accuracy=accuracy)
        if exu is None:
            continue
        for key, modified in (("a", False), ("b", True)):  # Exudyn's static default is full Newton
            try:
                wall, (_, its, accuracy, ok) = batched(lambda: exu_solve(modified, tol, tol * s_med))
            except Exception as exc:  # Exudyn's solver gave up: reported, not timed
                info[key] = dict(its=float("nan"), accuracy=dict(failed=str(exc).splitlines()[0]), finished=False)
                continue
            times[key].append(wall)
            info[key] = dict(its=its, accuracy=accuracy, finished=ok)
    row = dict(row=label, size=size, kind="static", tol=tol, femb_scale_median=s_med, femb_scale_range=(min(scales), max(scales)),
               abs_tol=tol * s_med, note=note, femb=dict(time=median(times["femb"]), samples=times["femb"], **info["femb"]))
    for key in ("a", "b"):
        if exu is not None:
            row[key] = dict(time=median(times[key]), samples=times[key], **info[key])
            row[f"ratio_{key}"] = row["femb"]["time"] / row[key]["time"] if times[key] else float("nan")
    print_row(row)
    print(f"  {load()}", flush=True)
    return row


def fmt_acc(acc):
    return ", ".join(f"{k} {v:.6g}" if isinstance(v, float) else f"{k} {v}" for k, v in acc.items())


def print_row(row):
    unit = "ms/step" if row["kind"] == "dynamic" else "ms/solve"
    floor = f" (round-off floor {row['floor']:.2g})" if row.get("floor") else ""
    print(f"  tolerance: τ = {row['tol']:g}; femb force scale s median {row['femb_scale_median']:.4g} "
          f"(range {row['femb_scale_range'][0]:.3g} … {row['femb_scale_range'][1]:.3g}); Exudyn absoluteTolerance {row['abs_tol']:.3g}{floor}, "
          f"relativeTolerance {row.get('exudyn_rel_tol', row['tol']):g}")
    names = {"femb": f"femb {row.get('scheme', 'midpoint')}" if row["kind"] == "dynamic" else "femb Newton",
             "a": "Exudyn (a) default (" + ("modified" if row["kind"] == "dynamic" else "full") + " Newton)",
             "b": "Exudyn (b) " + ("full" if row["kind"] == "dynamic" else "modified") + " Newton"}
    for key in ("femb", "a", "b"):
        if key not in row:
            continue
        r = row[key]
        its = f"its/{'step' if row['kind'] == 'dynamic' else 'load step'} {r['its']:.2f}"
        extra = f", jac/step {r['jac']:.2f}" if "jac" in r else ""
        fin = "" if r.get("finished", True) else "  (DID NOT FINISH)"
        ratio = f"  ratio femb/this {row['ratio_' + key]:.2f}" if key != "femb" else ""
        if "cpu" in r:  # dynamic rows: CPU (process) time per step beside the wall time
            unit_cpu = f" (CPU {1e3 * r['cpu']:.4f})"
            ratio += f" (CPU {row['cpu_ratio_' + key]:.2f})" if key != "femb" else ""
        else:
            unit_cpu = ""
        print(f"  {names[key]:42s} {1e3 * r['time']:9.4f} {unit}{unit_cpu}  {its}{extra}  [{fmt_acc(r['accuracy'])}]{ratio}{fin}")


# ----------------------------------------------------------------------------- row 1: flexible pendulum
def pendulum_rows(args):
    rows = []
    t_end = 2.0 if args.large else 1.0
    for n in ([10, 100, 1000] if args.large else [10, 100]):
        tau = fp.femb_tolerance(n, args.tol)  # τ, or the residual's round-off floor where that is larger

        def femb_build(n=n):
            return fp.femb_model(n)

        def exu_build(n=n):
            SC, mbs, beams, nodes = fp.exudyn_model(n)
            return SC, mbs, nodes

        def femb_acc(res, n=n):
            tip = res.model.node("beam_end")
            E, T = res.series("total_energy"), res.series("kinetic_energy")
            return dict(tip_y=float(res.dof(tip, "uy", -1)), drift=fp.drift(E, T))

        def exu_acc(build, dt, t_end, tol, abs_tol, modified, n=n):
            full = exudyn_solve_dynamic(build, dt, t_end, tol, abs_tol, modified)
            q = np.asarray(full["mbs"].systemData.GetODE2Coordinates())
            return dict(tip_y=float(q[-2]))

        # the thresholds of benchmarks/flexible_pendulum.py: femb τ' = max(τ‖f_g‖, floor)/‖f_g‖
        # relative to its force scale, Exudyn absolute max(τ‖f_g‖, floor) and relative τ
        row = run_dynamic_row("pendulum", f"N = {n}", femb_build, exu_build, 1e-3, t_end, tau, "invariant", args.repeat, femb_acc, exu_acc,
                              exudyn_tolerances=(args.tol, fp.exudyn_absolute_tolerance(n, args.tol)),
                              note="femb τ relative to its force scale; Exudyn abs = max(τ‖f_g‖, round-off floor), rel = τ "
                                   "(as benchmarks/flexible_pendulum.py)")
        rows.append(row)
    return rows


# ----------------------------------------------------------------------------- rows 2, 3: spin-up B
SPIN = dict(L=10.0, omega=6.0, T=15.0, EA=2.8e7, GA=1.0e7, EI=1.4e4, GJ=1.0e4, rhoA=1.2, rhoI=6.0e-4)


def spin_floor(n, dofs_per_node):
    """Round-off level of the spin-up's force residual, (EA/l_e)·ε·√(number of coordinates)
    (as benchmarks/flexible_pendulum.py): Exudyn's absolute threshold is not set below it."""
    return SPIN["EA"] * n / SPIN["L"] * np.finfo(float).eps * np.sqrt(dofs_per_node * (n + 1))


def tip_rotating(x, y, t):
    th = np.array([spin_up_angle(SPIN["omega"], SPIN["T"])(tt) for tt in t])
    return -np.sin(th) * x + np.cos(th) * y


def femb_spin_accuracy(res):
    tip = res.model.node("beam_end")
    X = res.model.mesh.points[tip]
    t = np.asarray(res.times)
    w = tip_rotating(X[0] + res.dof(tip, "ux"), X[1] + res.dof(tip, "uy"), t)
    return dict(w_end=float(w[-1]), w_min=float(w.min()), t_min=float(t[np.argmin(w)]))


def exudyn_spin_accuracy(build, dt, t_end, tol, abs_tol, modified):
    """Tip deflection in the rotating frame from a sensor run (not timed)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        SC, mbs, tip_node = build()
        sensor = mbs.AddSensor(exu.itemInterface.SensorNode(nodeNumber=tip_node, storeInternal=True,
                                                            outputVariableType=exu.OutputVariableType.Position))
        mbs.Assemble()
        s = exudyn_dynamic_settings(exu, dt, t_end, tol, abs_tol, modified)
        s.solutionSettings.sensorsWritePeriod = dt
        mbs.SolveDynamic(s)
    data = np.asarray(mbs.GetSensorStoredData(sensor))
    t = data[:, 0]
    w = tip_rotating(data[:, 1], data[:, 2], t)
    return dict(w_end=float(w[-1]), w_min=float(w.min()), t_min=float(t[np.argmin(w)]))


def exudyn_spin2d(n):
    from exudyn.itemInterface import (CoordinateConstraint, MarkerNodeCoordinate, NodePointGround, NodeRigidBody2D,
                                      ObjectBeamGeometricallyExact2D)
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    le = SPIN["L"] / n
    nodes = [mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[i * le, 0.0, 0.0])) for i in range(n + 1)]
    for i in range(n):
        mbs.AddObject(ObjectBeamGeometricallyExact2D(nodeNumbers=[nodes[i], nodes[i + 1]], physicsLength=le, physicsMassPerLength=SPIN["rhoA"],
                                                     physicsCrossSectionInertia=SPIN["rhoI"], physicsBendingStiffness=SPIN["EI"],
                                                     physicsAxialStiffness=SPIN["EA"], physicsShearStiffness=SPIN["GA"]))
    mg = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=mbs.AddNode(NodePointGround()), coordinate=0))
    theta = spin_up_angle(SPIN["omega"], SPIN["T"])
    for k in range(3):
        m = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nodes[0], coordinate=k))
        if k < 2:
            mbs.AddObject(CoordinateConstraint(markerNumbers=[mg, m]))
        else:  # the driven hub angle, a Python function of t as in femb's model
            mbs.AddObject(CoordinateConstraint(markerNumbers=[mg, m], offsetUserFunction=lambda mbs, t, itemNumber, lOffset: theta(t)))
    mbs.Assemble()
    return SC, mbs, nodes[-1]


def spinup2d_rows(args):
    rows = []
    for n in (10, 40):
        def femb_build(n=n):
            return spin_up_beam("B", n)
        rows.append(run_dynamic_row("spin-up B 2-D", f"{n} elements", femb_build, lambda n=n: exudyn_spin2d(n), 0.01, args.spin_t_end,
                                    args.tol, "invariant", args.repeat, femb_spin_accuracy, exudyn_spin_accuracy, floor=spin_floor(n, 3),
                                    note="femb beam2d_timoshenko (invariant = consistent mass of linear interpolation); Exudyn "
                                         "ObjectBeamGeometricallyExact2D; hub angle θ(t) a Python function in both"))
    return rows


def exudyn_spin3d(n):
    from exudyn.itemInterface import GenericJoint, MarkerNodeRigid, NodePointGround, NodeRigidBodyEP, ObjectBeamGeometricallyExact
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    le = SPIN["L"] / n
    ep0 = [1.0, 0.0, 0.0, 0.0]
    nodes = [mbs.AddNode(NodeRigidBodyEP(referenceCoordinates=[i * le, 0.0, 0.0] + ep0)) for i in range(n + 1)]
    section = exu.BeamSection()
    section.stiffnessMatrix = np.diag([SPIN["EA"], SPIN["GA"], SPIN["GA"], SPIN["GJ"], SPIN["EI"], SPIN["EI"]])
    section.inertia = np.diag([2 * SPIN["rhoI"], SPIN["rhoI"], SPIN["rhoI"]])
    section.massPerLength = SPIN["rhoA"]
    for i in range(n):
        mbs.AddObject(ObjectBeamGeometricallyExact(nodeNumbers=[nodes[i], nodes[i + 1]], length=le, sectionData=section))
    theta = spin_up_angle(SPIN["omega"], SPIN["T"])
    mg = mbs.AddMarker(MarkerNodeRigid(nodeNumber=mbs.AddNode(NodePointGround())))
    mbs.AddObject(GenericJoint(markerNumbers=[mg, mbs.AddMarker(MarkerNodeRigid(nodeNumber=nodes[0]))], constrainedAxes=[1, 1, 1, 1, 1, 1],
                               offsetUserFunction=lambda mbs, t, itemNumber, offset: [0.0, 0.0, 0.0, 0.0, 0.0, theta(t)]))
    mbs.Assemble()
    return SC, mbs, nodes[-1]


def spinup3d_rows(args):
    """Two rows: femb's mid-point scheme, and femb's (Lie-group) generalized-α with
    ρ∞ = 0.9, Exudyn's default scheme and spectral radius (like for like)."""
    def femb_build():
        return spin_up_beam_3d(10)
    note = ("femb beam3d_timoshenko (invariant mass), Exudyn ObjectBeamGeometricallyExact on Euler-parameter nodes "
            "(consistent mass); root clamped, its rotation about z driven (Exudyn: GenericJoint rotation offset)")
    rows = []
    for label, scheme, extra in (("spin-up B 3-D", "midpoint", ""),
                                 ("spin-up B 3-D, femb gen-α", GeneralizedAlpha(rho_inf=0.9),
                                  "; femb generalized-α ρ∞ = 0.9 (Exudyn's default scheme and spectral radius)")):
        rows.append(run_dynamic_row(label, "10 elements", femb_build, lambda: exudyn_spin3d(10), 0.01, args.spin_t_end, args.tol,
                                    "invariant", args.repeat, femb_spin_accuracy, exudyn_spin_accuracy, floor=spin_floor(10, 6),
                                    note=note + extra, femb_scheme=scheme))
    return rows


# ----------------------------------------------------------------------------- row 4: rigid chain
CHAIN = dict(n=10, spacing=0.5, m=1.0, Jxx=0.5 * 0.05**2 / 6.0, Jyy=(0.5**2 + 0.05**2) / 12.0, Jzz=(0.5**2 + 0.05**2) / 12.0, g=9.81)


def chain_geometry():
    """Rods of length 0.5 with centres of mass c_k = (0.25 + 0.5 k, 0, 0); joint 0 to ground
    at the origin, joint k (k ≥ 1) between bodies k−1 and k at their common end (0.5 k, 0, 0)
    (the same point in both codes: femb's attachment point, Exudyn's joint position); axes
    alternating e_y, e_z, tilted: (0, 1, 0.3) and (0.2, 0, 1) normalized."""
    n = CHAIN["n"]
    centres = np.array([[0.25 + CHAIN["spacing"] * k, 0.0, 0.0] for k in range(n)])
    ay, az = np.array([0.0, 1.0, 0.3]), np.array([0.2, 0.0, 1.0])
    axes = [(ay if k % 2 == 0 else az) / np.linalg.norm(ay if k % 2 == 0 else az) for k in range(n)]
    joints = [np.array([CHAIN["spacing"] * k, 0.0, 0.0]) for k in range(n)]
    return centres, joints, axes


def femb_chain():
    centres, joints, axes = chain_geometry()
    n = CHAIN["n"]
    model = Model(Mesh(centres, {}, {f"b{k}": [k] for k in range(n)}), dim=3, name="rigid chain")
    body = {k: CHAIN[k] for k in ("m", "Jxx", "Jyy", "Jzz")}
    for k in range(n):
        model.add_discrete(f"body {k}", "rigid_body3d", f"b{k}", **body)
    model.joint3d("revolute", "b0", None, axis=tuple(axes[0]), point=tuple(joints[0]), name="j0")
    for k in range(1, n):
        model.joint3d("revolute", f"b{k - 1}", f"b{k}", axis=tuple(axes[k]), point=tuple(joints[k]), name=f"j{k}")
    model.gravity((0.0, 0.0, -CHAIN["g"]))
    return model


def exudyn_chain():
    from exudyn.utilities import RigidBodyInertia
    centres, joints, axes = chain_geometry()
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.CreateGround(referencePosition=[0.0, 0.0, 0.0])
    J = np.diag([CHAIN["Jxx"], CHAIN["Jyy"], CHAIN["Jzz"]])
    bodies = [mbs.CreateRigidBody(inertia=RigidBodyInertia(mass=CHAIN["m"], inertiaTensor=J), referencePosition=list(c),
                                  gravity=[0.0, 0.0, -CHAIN["g"]], returnDict=True) for c in centres]
    prev = ground
    for k in range(CHAIN["n"]):
        mbs.CreateRevoluteJoint(bodyNumbers=[prev, bodies[k]["bodyNumber"]], position=list(joints[k]), axis=list(axes[k]), useGlobalFrame=True)
        prev = bodies[k]["bodyNumber"]
    mbs.Assemble()
    return SC, mbs, [b["nodeNumber"] for b in bodies]


def chain_energy_exudyn(mbs, nodes):
    T = P = 0.0
    J = np.diag([CHAIN["Jxx"], CHAIN["Jyy"], CHAIN["Jzz"]])
    for nd in nodes:
        v = np.asarray(mbs.GetNodeOutput(nd, exu.OutputVariableType.Velocity))
        w = np.asarray(mbs.GetNodeOutput(nd, exu.OutputVariableType.AngularVelocityLocal))
        z = mbs.GetNodeOutput(nd, exu.OutputVariableType.Position)[2]
        T += 0.5 * CHAIN["m"] * v @ v + 0.5 * w @ J @ w
        P += CHAIN["m"] * CHAIN["g"] * z
    return T, P


def chain_rows(args):
    def femb_acc(res):
        last = res.model.node(f"b{CHAIN['n'] - 1}")
        X = res.model.mesh.points[last]
        tip = [float(X[i] + res.dof(last, d, -1)) for i, d in enumerate(("ux", "uy", "uz"))]
        E, T = res.series("total_energy"), res.series("kinetic_energy")
        return dict(last_x=tip[0], last_z=tip[2], energy_error=float(abs(E[-1] - E[0]) / T[-1]))

    def exu_acc(build, dt, t_end, tol, abs_tol, modified):
        full = exudyn_solve_dynamic(build, dt, t_end, tol, abs_tol, modified)
        mbs, nodes = full["mbs"], full["extra"]
        p = mbs.GetNodeOutput(nodes[-1], exu.OutputVariableType.Position)
        T, P = chain_energy_exudyn(mbs, nodes)
        return dict(last_x=float(p[0]), last_z=float(p[2]), energy_error=float(abs(T + P) / T))  # E(0) = 0: at rest, z = 0

    return [run_dynamic_row("rigid chain 3-D", "10 bodies", femb_chain, exudyn_chain, 2e-3, args.chain_t_end, args.tol, "lumped",
                            args.repeat, femb_acc, exu_acc,
                            note="joint k at the centre of mass of body k (femb's joints sit at node b), the same in Exudyn; "
                                 "energy error = |E(end) − E(0)| / T(end)")]


# ----------------------------------------------------------------------------- row 5: single revolute body
def revolute_rows(args):
    dt, t_end = 0.02, 4.0

    def femb_build():
        return jso.pendulum3d(True)

    def exu_build():
        from exudyn.utilities import RigidBodyInertia
        SC = exu.SystemContainer()
        mbs = SC.AddSystem()
        ground = mbs.CreateGround(referencePosition=[0.0, 0.0, 0.0])
        b = jso.BODY
        J = np.array([[b["Jxx"], b["Jxy"], 0.0], [b["Jxy"], b["Jyy"], 0.0], [0.0, 0.0, b["Jzz"]]])
        d = mbs.CreateRigidBody(inertia=RigidBodyInertia(mass=b["m"], inertiaTensor=J), referencePosition=list(jso.CENTRE),
                                gravity=[0.0, 0.0, -jso.G], returnDict=True)
        mbs.CreateRevoluteJoint(bodyNumbers=[ground, d["bodyNumber"]], position=[0.0, 0.0, 0.0], axis=list(jso.AXIS), useGlobalFrame=True)
        mbs.Assemble()
        return SC, mbs, d["nodeNumber"]

    def femb_acc(res):
        c = res.model.node("c")
        E, T = res.series("total_energy"), res.series("kinetic_energy")
        return dict(x=float(jso.CENTRE[0] + res.dof(c, "ux", -1)), z=float(jso.CENTRE[2] + res.dof(c, "uz", -1)),
                    energy_error=float(np.abs(E - E[0]).max() / T.max()))

    def exu_acc(build, dt, t_end, tol, abs_tol, modified):
        full = exudyn_solve_dynamic(build, dt, t_end, tol, abs_tol, modified)
        p = full["mbs"].GetNodeOutput(full["extra"], exu.OutputVariableType.Position)
        return dict(x=float(p[0]), z=float(p[2]))

    return [run_dynamic_row("revolute body", "1 body", femb_build, exu_build, dt, t_end, args.tol, "lumped", args.repeat, femb_acc, exu_acc,
                            note="benchmarks/joint_step_overhead.py model (a)")]


# ----------------------------------------------------------------------------- row 6: static roll-up
ROLL = dict(L=1.0, EI=1.0, EA=1.0e4, GA=1.0e4)


def femb_rollup(n, steps, tol):
    model = Model(line_mesh((0.0, 0.0), (ROLL["L"], 0.0), n, "beam"), name="roll-up")
    model.add_part("beam", "beam2d_timoshenko", "beam", values=dict(EA=ROLL["EA"], EI=ROLL["EI"], GAs=ROLL["GA"], rhoA=1.0, rhoI=1e-3))
    model.fix("beam_start")
    model.point_load("beam_end", mz=2.0 * np.pi * ROLL["EI"] / ROLL["L"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        res = solve_static(model, steps=steps, settings=NewtonSettings(tolerance=tol, max_iterations=MAX_ITERATIONS))
        wall = time.perf_counter() - t0
    tip = model.node("beam_end")
    x, y = ROLL["L"] + res.dof(tip, "ux", -1), res.dof(tip, "uy", -1)
    return wall, res.info["newton_iterations"] / steps, dict(tip_error=float(np.hypot(x, y) / ROLL["L"]), tip_rotation=float(res.dof(tip, "rz", -1)))


def exudyn_static_settings(steps, tol, abs_tol, modified):
    s = exu.SimulationSettings()
    ss = s.staticSolver
    ss.verboseMode = 0
    ss.numberOfLoadSteps = steps
    ss.newton.relativeTolerance = tol
    ss.newton.absoluteTolerance = abs_tol
    ss.newton.maxIterations = MAX_ITERATIONS
    ss.newton.useModifiedNewton = modified
    s.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    s.linearSolver.reuseAnalyzedPattern = True
    s.parallel.numberOfThreads = 1
    s.displayComputationTime = False
    s.displayStatistics = False
    s.solutionSettings.writeSolutionToFile = False
    return s


def exudyn_static_solve(mbs, steps, tol, abs_tol, modified):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Exudyn's deprecation notes on the settings' old names
        s = exudyn_static_settings(steps, tol, abs_tol, modified)
        t0 = time.perf_counter()
        ok = mbs.SolveStatic(s)
        wall = time.perf_counter() - t0
    it = mbs.sys["staticSolver"].it
    return wall, it.newtonStepsCount / steps, ok is not False and abs(it.currentTime - 1.0) < 1e-9


def exudyn_rollup(n, steps, modified, tol, abs_tol):
    from exudyn.itemInterface import (CoordinateConstraint, LoadTorqueVector, MarkerNodeCoordinate, MarkerNodeRigid, NodePointGround,
                                      NodeRigidBody2D, ObjectBeamGeometricallyExact2D)
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    le = ROLL["L"] / n
    nodes = [mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[i * le, 0.0, 0.0])) for i in range(n + 1)]
    for i in range(n):
        mbs.AddObject(ObjectBeamGeometricallyExact2D(nodeNumbers=[nodes[i], nodes[i + 1]], physicsLength=le, physicsMassPerLength=1.0,
                                                     physicsCrossSectionInertia=1e-3, physicsBendingStiffness=ROLL["EI"],
                                                     physicsAxialStiffness=ROLL["EA"], physicsShearStiffness=ROLL["GA"]))
    mg = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=mbs.AddNode(NodePointGround()), coordinate=0))
    for k in range(3):
        mbs.AddObject(CoordinateConstraint(markerNumbers=[mg, mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nodes[0], coordinate=k))]))
    mbs.AddLoad(LoadTorqueVector(markerNumber=mbs.AddMarker(MarkerNodeRigid(nodeNumber=nodes[-1])),
                                 loadVector=[0.0, 0.0, 2.0 * np.pi * ROLL["EI"] / ROLL["L"]]))
    mbs.Assemble()
    wall, its, ok = exudyn_static_solve(mbs, steps, tol, abs_tol, modified)
    q = np.asarray(mbs.systemData.GetODE2Coordinates())
    x, y = ROLL["L"] + q[-3], q[-2]
    return wall, its, dict(tip_error=float(np.hypot(x, y) / ROLL["L"]), tip_rotation=float(q[-1])), ok


def rollup_rows(args):
    rows = []
    tol = args.static_tol
    for n in (10, 40):
        for steps in (10, 20):
            rows.append(run_static_row("roll-up 2-D static", f"{n} el, {steps} steps",
                                       lambda _, n=n, steps=steps: femb_rollup(n, steps, tol),
                                       lambda modified, tol_, abs_tol, n=n, steps=steps: exudyn_rollup(n, steps, modified, tol_, abs_tol), tol,
                                       args.repeat, note="EA = GA = 1e4 EI/L², end moment 2πEI/L: exact tip at the root (tip_error = |tip|/L)"))
    return rows


# ----------------------------------------------------------------------------- row 7: Bathe's 45° bend
BEND = dict(R=100.0, E=1.0e7, G=0.5e7, A=1.0, I=1.0 / 12.0, J=0.1406, P=600.0)


def bend_points(n):
    phi = np.pi / 4.0 * np.arange(n + 1) / n
    return np.column_stack([BEND["R"] * np.sin(phi), BEND["R"] * (1.0 - np.cos(phi)), np.zeros(n + 1)]), phi


def femb_bend(n, steps, tol):
    pts, _ = bend_points(n)
    cells = np.column_stack([np.arange(n), np.arange(1, n + 1)])
    mesh = Mesh(pts, {"bend": CellBlock("line", cells)}, {"root": [0], "tip": [n]})
    model = Model(mesh, dim=3, name="45° bend")
    b = BEND
    model.add_part("bend", "beam3d_timoshenko", "bend", Material(E=b["E"], G=b["G"], rho=0.0),
                   Section(A=b["A"], Iy=b["I"], Iz=b["I"], J=b["J"], shear_factor=1.0))
    model.fix("root")
    model.point_load("tip", fz=b["P"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        res = solve_static(model, steps=steps, settings=NewtonSettings(tolerance=tol, max_iterations=MAX_ITERATIONS))
        wall = time.perf_counter() - t0
    tip = model.node("tip")
    x = pts[n] + np.array([res.dof(tip, d, -1) for d in ("ux", "uy", "uz")])
    return wall, res.info["newton_iterations"] / steps, dict(tip_x=float(x[0]), tip_y=float(x[1]), tip_z=float(x[2]))


def exudyn_bend(n, steps, modified, tol, abs_tol):
    from exudyn.itemInterface import (CoordinateConstraint, LoadForceVector, MarkerNodeCoordinate, MarkerNodePosition, NodePointGround,
                                      NodeRigidBodyEP, ObjectBeamGeometricallyExact)
    from exudyn.rigidBodyUtilities import RotationMatrix2EulerParameters, RotationMatrixZ
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    pts, phi = bend_points(n)
    nodes = [mbs.AddNode(NodeRigidBodyEP(referenceCoordinates=list(p) + list(RotationMatrix2EulerParameters(RotationMatrixZ(a)))))
             for p, a in zip(pts, phi)]
    b = BEND
    section = exu.BeamSection()
    section.stiffnessMatrix = np.diag([b["E"] * b["A"], b["G"] * b["A"], b["G"] * b["A"], b["G"] * b["J"], b["E"] * b["I"], b["E"] * b["I"]])
    section.inertia = np.diag([2 * b["I"], b["I"], b["I"]])
    section.massPerLength = b["A"]
    le = np.linalg.norm(pts[1] - pts[0])  # chord: femb's straight elements between the same nodes
    for i in range(n):
        mbs.AddObject(ObjectBeamGeometricallyExact(nodeNumbers=[nodes[i], nodes[i + 1]], length=le, sectionData=section))
    mg = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=mbs.AddNode(NodePointGround()), coordinate=0))
    for i in (0, 1, 2, 4, 5, 6):  # positions and e1..e3 of the root (e0 follows from the Euler-parameter norm)
        mbs.AddObject(CoordinateConstraint(markerNumbers=[mg, mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nodes[0], coordinate=i))]))
    mbs.AddLoad(LoadForceVector(markerNumber=mbs.AddMarker(MarkerNodePosition(nodeNumber=nodes[-1])), loadVector=[0.0, 0.0, b["P"]]))
    mbs.Assemble()
    wall, its, ok = exudyn_static_solve(mbs, steps, tol, abs_tol, modified)
    p = mbs.GetNodeOutput(nodes[-1], exu.OutputVariableType.Position)
    return wall, its, dict(tip_x=float(p[0]), tip_y=float(p[1]), tip_z=float(p[2])), ok


def bend_rows(args):
    rows = []
    tol = args.static_tol
    for n in ((8, 16, 32) if args.large else (8, 16)):
        rows.append(run_static_row("Bathe 45° bend 3-D static", f"{n} el, 10 steps", lambda _, n=n: femb_bend(n, 10, tol),
                                   lambda modified, tol_, abs_tol, n=n: exudyn_bend(n, 10, modified, tol_, abs_tol), tol, args.repeat,
                                   note="R = 100, E = 1e7, G = E/2, unit square section (J = 0.1406), tip force 600 along z; "
                                        "femb beam3d_timoshenko, Exudyn ObjectBeamGeometricallyExact; literature tip (P = 600, "
                                        "Simo & Vu-Quoc): (x, y, z) ≈ (47, 16, 53)"))
    return rows


# ----------------------------------------------------------------------------- main
ROWS = {"pendulum": pendulum_rows, "spinup2d": spinup2d_rows, "spinup3d": spinup3d_rows, "chain": chain_rows,
        "revolute": revolute_rows, "rollup": rollup_rows, "bend": bend_rows}


def table(rows):
    out = ["| row | size | femb | Exudyn (a) default | Exudyn (b) other Newton | femb/(a) | femb/(b) | its femb / (a) / (b) | accuracy femb | accuracy (a) | accuracy (b) |",
           "|---|---|---:|---:|---:|---:|---:|---|---|---|---|"]
    for r in rows:
        unit = "ms/step" if r["kind"] == "dynamic" else "ms"
        cell = lambda k: f"{1e3 * r[k]['time']:.3f} {unit}" if k in r else "–"  # noqa: E731
        ratio = lambda k: f"{r['ratio_' + k]:.2f}" if k in r else "–"  # noqa: E731
        its = " / ".join(f"{r[k]['its']:.2f}" + ("" if r[k].get("finished", True) else "!") for k in ("femb", "a", "b") if k in r)
        acc = lambda k: fmt_acc(r[k]["accuracy"]) if k in r else "–"  # noqa: E731
        out.append(f"| {r['row']} | {r['size']} | {cell('femb')} | {cell('a')} | {cell('b')} | {ratio('a')} | {ratio('b')} | {its} "
                   f"| {acc('femb')} | {acc('a')} | {acc('b')} |")
    return "\n".join(out)


def main(argv=None):
    global exu
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", nargs="*", default=[], help="rows to run, of " + ", ".join(ROWS) + " (default: all)")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved timed runs per code (median; at least 3 recommended)")
    ap.add_argument("--tol", type=float, default=1e-6, help="dynamic Newton tolerance τ (both codes, see the docstring)")
    ap.add_argument("--static-tol", type=float, default=1e-8, help="static Newton tolerance τ")
    ap.add_argument("--large", action="store_true", help="the larger sizes: pendulum N = 1000 and 2 s, bend 32 elements")
    ap.add_argument("--spin-t-end", type=float, default=10.0, help="spin-up duration (s); the hub reaches full speed at 15 s")
    ap.add_argument("--chain-t-end", type=float, default=0.5)
    ap.add_argument("--no-exudyn", action="store_true")
    ap.add_argument("--general-step", action="store_true",
                    help="femb without its compiled planar steps (DynamicSettings(compiled_step=False)), for before/after runs")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    args = ap.parse_args(argv)
    for name in args.rows:
        if name not in ROWS:
            ap.error(f"unknown row {name!r}: choose from {', '.join(ROWS)}")
    global COMPILED_STEP
    COMPILED_STEP = not args.general_step
    exu = None if args.no_exudyn else fp.import_exudyn(fast=True)
    if exu is None and not args.no_exudyn:
        print("exudyn is not installed (pip install exudyn, or the 'bench' extra): femb rows only")
    head = (f"femb vs Exudyn {getattr(exu, '__version__', '(none)')}, {os.cpu_count()} CPUs, {load()} at start, "
            f"repeat {args.repeat} (median), τ dynamic {args.tol:g}, static {args.static_tol:g}"
            + (", femb general step" if args.general_step else ""))
    print(head, flush=True)
    rows = []
    t0 = time.perf_counter()
    for name in (args.rows or list(ROWS)):
        try:
            rows += ROWS[name](args)
        except Exception as exc:  # a failing row is reported, the others still run
            print(f"row {name} failed: {type(exc).__name__}: {exc}", flush=True)
            rows.append(dict(row=name, size="failed", kind="failed", error=f"{type(exc).__name__}: {exc}"))
    ok = [r for r in rows if r["kind"] != "failed"]
    text = table(ok)
    foot = f"{load()} at the end; suite {time.perf_counter() - t0:.0f} s"
    failed = [f"row {r['row']} failed: {r['error']}" for r in rows if r["kind"] == "failed"]
    print("\n" + head + "\n\n" + text + "\n\n" + "\n".join(failed + [foot]))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "peer_suite.md"), "w") as f:
        f.write(head + "\n\n" + text + "\n\n" + "\n".join(failed + [foot]) + "\n")
    with open(os.path.join(args.out, "peer_suite.json"), "w") as f:
        json.dump(dict(head=head, rows=rows), f, indent=1, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o))
    return rows


if __name__ == "__main__":
    main()
