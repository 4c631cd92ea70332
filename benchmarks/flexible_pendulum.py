"""Free-falling flexible pendulum: femb's time integrators against Exudyn.

Model (the same for both codes). A uniform beam of length L = 1, pinned at x = 0 and
released from rest in the horizontal position under gravity g = 9.81; ρA = 1, slenderness
L/h = 100 (EA = 12 EI/h², shear stiffness GA = (5/6) EA/2.6, rotary inertia ρI = ρA h²/12)
and EI = 6.19, so that the first bending frequency of the pinned-free beam, 15.42 √EI =
38.4 rad/s, is 10× the small-swing pendulum frequency √(3g/2L) = 3.84 rad/s. N = 10, 100,
1000 equal two-node elements, 2 s simulated with the constant step Δt = 1e-3.

- femb: ``beam2d_timoshenko`` (co-rotational, shear-flexible), ``mass="invariant"``
  (linear interpolation of translations and rotation: the consistent mass of linear
  shape functions), schemes: the energy-conserving mid-point rule (full and modified
  Newton) and the baselines Newmark (trapezoidal), HHT (α = −0.05), generalized-α
  (ρ∞ = 0.9).
- Exudyn: ``ObjectBeamGeometricallyExact2D`` (Simo–Reissner, linear interpolation, strains
  at the element mid-point, mass of the same linear interpolation, 3-point Gauss: exact)
  on ``NodeRigidBody2D``, a revolute joint to ground, gravity by ``LoadMassProportional``;
  its implicit solver as generalized-α (ρ∞ = 0.9, full and modified Newton) and Newmark
  (trapezoidal), EigenSparse LU with ``reuseAnalyzedPattern``, the compiled module without
  range checks (``exudynCPPfast``, unless ``--exudyn-safe``), one thread.

What is equal: mesh, Δt, mass matrix (checked by ``--check``), gravity load, the number of
steps, the maximum of 25 Newton iterations per step and up to 8 step halvings
(Exudyn: ``adaptiveStep``, minimum step Δt/2⁸). What cannot be equal:

- the element stiffness: femb's co-rotational element uses the exact bending/shear
  stiffness of the linear Timoshenko beam, Exudyn's element one-point (reduced)
  integration of linear interpolation; both converge to the same beam, they differ at
  N = 10 (the motions agree to the column "tip y" below);
- the Newton test. femb stops when ‖r‖ ≤ τ·max(‖f_int‖, ‖M a‖, ‖f_ext‖) (force units,
  free equations), or when ‖r‖ ≤ 1e-4 of that and the correction is at round-off (1e-13).
  Exudyn stops when ‖r‖ ≤ absoluteTolerance or ‖r‖ ≤ relativeTolerance·‖r₀‖, r₀ the
  residual of its predictor (zero acceleration), which is ~10³ × the load at N = 1000. It
  gets relativeTolerance = τ and absoluteTolerance = τ·‖f_g‖ (f_g the gravity load
  vector, femb's force scale in this problem), raised to the round-off floor of the
  residual, (EA/l_e)·ε·√(3(N+1)), where that is larger: at N = 1000 the floor is 9e-6 N
  (Exudyn's measured residual after convergence is 2.8e-6 N) against τ‖f_g‖ = 3e-7 N, and
  with 3e-7 N Exudyn cuts its steps to Δt/256 near t = 1 s and stops. femb gets the same
  absolute threshold: its τ becomes max(τ‖f_g‖, floor)/‖f_g‖ (2.9e-5 at N = 1000, τ
  otherwise; the row "tol 1e-12" keeps femb's default tightness and stops by its
  increment test at the floor). Both end a step after about two iterations (its/step);
- timing: femb's wall time is its time-stepping loop (``results.info``), which includes
  recording energies and momenta every 10 steps (~1 %, see ``--profile``); Exudyn's is
  the time of ``SolveDynamic`` without solution output minus that of a 10-step run (its
  set-up: initial accelerations, mass matrix, Jacobian pattern). Both run one thread;
  each time is the fastest of ``--repeat`` (2) identical runs, more (up to 10) while the
  runs total less than 3 s; the rows of one N run one after the other, so ratios are
  measured side by side. Two ratio columns: against Exudyn's generalized-α with full
  Newton ("vs Exudyn") and with its default modified Newton ("vs Ex. mod."). The runs of
  one row are back to back, not interleaved with the other code's: for interleaved
  repeats and medians see benchmarks/peer_suite.py (its "pendulum" row is this model).

Energy drift, evaluated the same way for both codes from the states recorded every
0.01 s: max_t |E(t) − E(0)| / max_t T(t) with E = T + V + P; T = ½ vᵀMv with the mass of
linear interpolation, P = ρA g Σ l_e (y₁ + y₂)/2, both computed by this script from the
nodal states of either code; V each code's own strain energy (femb: its element kernels;
Exudyn: ½ l_e (EA Γ₁² + GA Γ₂² + EI κ²) with the element's mid-point strains, checked
against Exudyn's own StrainLocal/CurvatureLocal output by ``--check``).

``--check`` runs the sanity checks of the energy evaluation: equal mass matrices, femb's
T and P recomputed by this script, Exudyn's strain energy against its own output, the
static strain energy of a cantilever against ½ P δ for both codes, and the rigid limit
(N = 10, stiffnesses × 100: small drift for every scheme). ``--profile N ...`` splits a
femb mid-point run into element kernel, gather/scatter, factorization, triangular solves,
energy recording, the rotation/chord turn limit of the Newton corrections and the rest
(Python and numpy glue) with the default Newton solver (compiled band LU), and prints
Exudyn's own timers.

Results are printed and written to benchmarks/out/flexible_pendulum.{json,md}. Reported,
not asserted.

Usage: python benchmarks/flexible_pendulum.py [--elements 10 100 1000] [--t-end 2]
       [--dt 1e-3] [--tol 1e-6] [--schemes ...] [--no-exudyn] [--exudyn-safe]
       [--repeat 2] [--check] [--profile 10 1000] [--out benchmarks/out]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

from femb.core.scatter import gather_vector, scatter_matrix, scatter_vector
from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers.dynamics import step_system as integrators  # _StepSystem (its turn limit is timed by --profile)
from femb.solvers import HHT, DynamicSettings, GeneralizedAlpha, MidPoint, Newmark, solve_dynamic
from femb.solvers.dynamics.problem import DynamicProblem
from femb.solvers.dynamics.energy import EnergyAccount
from femb.solvers.nonlinear.newton import NewtonSettings
from femb.solvers.nonlinear.step_newton import DirectCorrection

L, RHOA, G = 1.0, 1.0, 9.81
EI = 6.19
H = L / 100.0
EA = 12.0 * EI / H**2
GA = 5.0 / 6.0 * EA / 2.6
RHOI = RHOA * H**2 / 12.0
MAX_ITERATIONS, MAX_CUTBACKS = 25, 8
RECORD_PERIOD = 0.01  # s, energy sampling of both codes


def stiffness(scale=1.0, shear=1.0):
    """(EA, GA, EI) of the benchmark, all scaled by ``scale`` (rigid-limit check), GA also
    by ``shear`` (shear-flexible static check)."""
    return EA * scale, GA * scale * shear, EI * scale


# ----------------------------------------------------------------------------- shared energy evaluation
def mass_matrix(n):
    """Mass of linear interpolation over nodal (ux, uy, θ) (3(n+1), 3(n+1)), dense."""
    le = L / n
    M = np.zeros((3 * (n + 1), 3 * (n + 1)))
    m = le / 6.0 * np.array([[2.0, 1.0], [1.0, 2.0]])
    for e in range(n):
        for a in range(2):
            for b in range(2):
                i, j = 3 * (e + a), 3 * (e + b)
                M[i, j] += RHOA * m[a, b]
                M[i + 1, j + 1] += RHOA * m[a, b]
                M[i + 2, j + 2] += RHOI * m[a, b]
    return M


def kinetic_energy(n, v):
    """T = ½ vᵀ M v per frame for nodal velocities v (n_frames, n+1, 3); M banded, so the
    product is formed element by element."""
    le = L / n
    va, vb = v[:, :-1, :], v[:, 1:, :]
    w = np.array([RHOA, RHOA, RHOI])
    per_el = le / 6.0 * (2.0 * va * va + 2.0 * va * vb + 2.0 * vb * vb) * w  # v_eᵀ M_e v_e per component
    return 0.5 * per_el.sum(axis=(1, 2))


def gravity_potential(n, q):
    """P = ρA g Σ l_e (y₁ + y₂)/2 per frame for nodal displacements q (n_frames, n+1, 3)
    (the beam lies on y = 0 in the reference configuration)."""
    le = L / n
    y = q[:, :, 1]
    return RHOA * G * le * 0.5 * (y[:, :-1] + y[:, 1:]).sum(axis=1)


def sr_strain_energy(n, q, scale=1.0, shear=1.0):
    """Strain energy of Exudyn's ObjectBeamGeometricallyExact2D per frame: one-point
    (mid-point) strains Γ₁ = r'·t − 1, Γ₂ = r'·n, κ = θ', t = (cos θ_m, sin θ_m), n = (−sin θ_m,
    cos θ_m), V = ½ l_e (EA Γ₁² + GA Γ₂² + EI κ²); q (n_frames, n+1, 3) nodal displacements."""
    ea, ga, ei = stiffness(scale, shear)
    le = L / n
    X = np.linspace(0.0, L, n + 1)
    x = X[None, :] + q[:, :, 0]
    y = q[:, :, 1]
    th = q[:, :, 2]
    dx, dy = (x[:, 1:] - x[:, :-1]) / le, (y[:, 1:] - y[:, :-1]) / le
    thm = 0.5 * (th[:, 1:] + th[:, :-1])
    c, s = np.cos(thm), np.sin(thm)
    g1 = c * dx + s * dy - 1.0
    g2 = -s * dx + c * dy
    kap = (th[:, 1:] - th[:, :-1]) / le
    return 0.5 * le * (ea * g1**2 + ga * g2**2 + ei * kap**2).sum(axis=1)


def gravity_norm(n):
    """‖f_g‖: norm of the consistent gravity load vector over all nodes (N)."""
    le = L / n
    w = np.full(n + 1, RHOA * G * le)
    w[[0, -1]] *= 0.5
    return float(np.linalg.norm(w))


def residual_floor(n):
    """Round-off level of a force residual of the benchmark (N): axial stiffness of an element
    × machine epsilon × √(number of coordinates), (EA/l_e)·ε·√(3(n+1)); Exudyn's measured
    floor is about 0.3 of it (2.8e-6 N at N = 1000)."""
    return EA * n / L * np.finfo(float).eps * np.sqrt(3.0 * (n + 1))


def exudyn_absolute_tolerance(n, tol):
    """τ‖f_g‖ (femb's force scale here), raised to the residual's round-off floor where that
    is larger (N = 1000: 9e-6 N instead of 3e-7 N)."""
    return max(tol * gravity_norm(n), residual_floor(n))


def femb_tolerance(n, tol):
    """femb's relative tolerance giving the absolute threshold Exudyn gets,
    exudyn_absolute_tolerance / ‖f_g‖: τ, except where the round-off floor is larger
    (N = 1000: 2.9e-5)."""
    return exudyn_absolute_tolerance(n, tol) / gravity_norm(n)


def drift(E, T):
    return float(np.abs(E - E[0]).max() / T.max())


# ----------------------------------------------------------------------------- femb
def femb_model(n, scale=1.0):
    ea, ga, ei = stiffness(scale)
    model = Model(line_mesh((0.0, 0.0), (L, 0.0), n, "beam"), name=f"flexible-pendulum-{n}")
    model.add_part("beam", "beam2d_timoshenko", "beam", values=dict(EA=ea, EI=ei, GAs=ga, rhoA=RHOA, rhoI=RHOI))
    model.fix("beam_start", "translations")
    model.gravity((0.0, -G))
    return model


def femb_settings(scheme, tol, modified, record_every):
    return DynamicSettings(scheme=scheme, mass="invariant", record_every=record_every,
                           newton=NewtonSettings(tolerance=tol, increment_tolerance=1e-13, max_iterations=MAX_ITERATIONS,
                                                 max_cutbacks=MAX_CUTBACKS, modified=modified))


def femb_nodal(res, n):
    """Nodal displacements and velocities (n_frames, n+1, 3) of femb's recorded frames."""
    t = res.table
    cols = [t.dof_names.index(d) for d in ("ux", "uy", "rz")]
    nv = t.node_var[:, cols]
    q = np.zeros((len(res.states), n + 1, 3))
    v = np.zeros_like(q)
    ok = nv >= 0
    for f, (u, w) in enumerate(zip(res.states, res.velocities)):
        q[f][ok] = u[nv[ok]]
        v[f][ok] = w[nv[ok]]
    return q, v


def repeats(repeat, walls, min_seconds=3.0, most=10):
    """Number of timed runs wanted after ``walls``: at least ``repeat``, more (up to
    ``most``) while their total is below ``min_seconds`` (cheap runs are noisier)."""
    if len(walls) < max(1, repeat):
        return max(1, repeat)
    return len(walls) + 1 if sum(walls) < min_seconds and len(walls) < most else len(walls)


def run_femb(n, scheme, dt, t_end, tol, modified=False, correction=None, scale=1.0, repeat=1):
    """One femb run (the fastest of ``repeat`` identical runs for the time)."""
    settings = femb_settings(scheme, tol, modified, max(1, int(round(RECORD_PERIOD / dt))))
    model = femb_model(n, scale)
    solve_dynamic(model, dt, 2 * dt, settings, solve_correction=None if correction is None else correction(None))  # warm-up
    walls = []
    while len(walls) < repeats(repeat, walls):
        corr = None if correction is None else correction(None)
        res = solve_dynamic(model, dt, t_end, settings, solve_correction=corr, probes={"tip_y": ("beam_end", "uy")})
        walls.append(res.info["wall_time"])
    E, T = res.series("total_energy"), res.series("kinetic_energy")
    steps = res.info["steps"]
    return dict(steps=steps, wall=min(walls), per_step=min(walls) / steps, its=res.info["newton_iterations"] / steps,
                cutbacks=res.info["cutbacks"], drift=drift(E, T), tip_y=float(res.series("tip_y")[-1]), res=res)


# ----------------------------------------------------------------------------- Exudyn
def import_exudyn(fast=True):
    """The exudyn module (the compiled module without range checks when ``fast``), or None."""
    if "exudyn" not in sys.modules and fast:
        sys.exudynFast = True
    try:
        import exudyn
    except ImportError:
        return None
    return exudyn


def exudyn_model(n, scale=1.0, tip_load=None, shear=1.0):
    """(SC, mbs, beams, nodes) of the benchmark; ``tip_load`` (fx, fy): a static cantilever
    (node 0 clamped) with a tip force instead of the pendulum."""
    import exudyn as exu
    from exudyn.itemInterface import (CoordinateConstraint, LoadForceVector, LoadMassProportional, MarkerBodyMass, MarkerBodyPosition,
                                      MarkerNodeCoordinate, MarkerNodePosition, NodeRigidBody2D, ObjectBeamGeometricallyExact2D, ObjectGround,
                                      ObjectJointRevolute2D, NodePointGround)

    ea, ga, ei = stiffness(scale, shear)
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    le = L / n
    nodes = [mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[i * le, 0.0, 0.0])) for i in range(n + 1)]
    beams = [mbs.AddObject(ObjectBeamGeometricallyExact2D(nodeNumbers=[nodes[i], nodes[i + 1]], physicsLength=le, physicsMassPerLength=RHOA,
                                                          physicsCrossSectionInertia=RHOI, physicsBendingStiffness=ei,
                                                          physicsAxialStiffness=ea, physicsShearStiffness=ga)) for i in range(n)]
    if tip_load is None:
        ground = mbs.AddObject(ObjectGround(referencePosition=[0.0, 0.0, 0.0]))
        mbs.AddObject(ObjectJointRevolute2D(markerNumbers=[mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=[0.0, 0.0, 0.0])),
                                                           mbs.AddMarker(MarkerNodePosition(nodeNumber=nodes[0]))]))
        for b in beams:
            mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=b)), loadVector=[0.0, -G, 0.0]))
    else:
        gnode = mbs.AddNode(NodePointGround(referenceCoordinates=[0.0, 0.0, 0.0]))
        mg = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=gnode, coordinate=0))
        for k in range(3):
            mbs.AddObject(CoordinateConstraint(markerNumbers=[mg, mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nodes[0], coordinate=k))]))
        mbs.AddLoad(LoadForceVector(markerNumber=mbs.AddMarker(MarkerNodePosition(nodeNumber=nodes[-1])), loadVector=[tip_load[0], tip_load[1], 0.0]))
    mbs.Assemble()
    return SC, mbs, beams, nodes


def exudyn_settings(scheme, n, dt, t_end, tol, solution_file=None, timers=False):
    """SimulationSettings with the tolerances of the module docstring for N = n; scheme
    "ga", "ga-modified" or "newmark"."""
    import exudyn as exu

    s = exu.SimulationSettings()
    ti = s.timeIntegration
    ti.numberOfSteps = int(round(t_end / dt))
    ti.endTime = t_end
    ti.verboseMode = 0
    ti.automaticStepSize = False
    ti.adaptiveStep = True
    ti.minimumStepSize = dt / 2**MAX_CUTBACKS
    ti.newton.relativeTolerance = tol
    ti.newton.absoluteTolerance = exudyn_absolute_tolerance(n, tol)
    ti.newton.maxIterations = MAX_ITERATIONS
    ti.newton.useModifiedNewton = scheme == "ga-modified"
    ti.generalizedAlpha.useNewmark = scheme == "newmark"
    ti.generalizedAlpha.newmarkBeta = 0.25
    ti.generalizedAlpha.newmarkGamma = 0.5
    ti.generalizedAlpha.spectralRadius = 0.9
    s.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    s.linearSolver.reuseAnalyzedPattern = True
    s.parallel.numberOfThreads = 1
    s.displayComputationTime = timers
    s.displayStatistics = False
    s.solutionSettings.writeSolutionToFile = solution_file is not None
    s.solutionSettings.sensorsWritePeriod = 1e9
    if solution_file is not None:
        s.solutionSettings.coordinatesSolutionFileName = solution_file
        s.solutionSettings.solutionWritePeriod = RECORD_PERIOD
        s.solutionSettings.exportVelocities = True
        s.solutionSettings.exportAccelerations = False
        s.solutionSettings.outputPrecision = 16
    return s


def _solve_exudyn(n, scheme, dt, t_end, tol, solution_file=None, scale=1.0, timers=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        SC, mbs, beams, nodes = exudyn_model(n, scale)
        settings = exudyn_settings(scheme, n, dt, t_end, tol, solution_file, timers)
        t0 = time.perf_counter()
        ok = mbs.SolveDynamic(settings)
        wall = time.perf_counter() - t0
    solver = mbs.sys["dynamicSolver"]
    it = solver.it
    out = dict(wall=wall, steps=it.currentStepIndex - 1, newton=it.newtonStepsCount, jacobians=it.newtonJacobiCount,
               t_reached=it.currentTime, ok=ok is not False)
    if timers:
        tm = solver.timer
        out["timers"] = {k: float(getattr(tm, k)) for k in ("total", "factorization", "newtonIncrement", "jacobianODE2", "totalJacobian",
                                                             "ODE2RHS", "massMatrix", "integrationFormula", "AERHS", "reactionForces",
                                                             "overhead", "postNewton", "python", "writeSolution")}
    out["system"] = SC  # keeps the system container (owner of mbs) alive
    return out, mbs, beams


def exudyn_nodal(n, path):
    """(times, q, v) nodal displacements and velocities (n_frames, n+1, 3) from an Exudyn
    solution file."""
    from exudyn.utilities import LoadSolutionFile

    data = LoadSolutionFile(path, verbose=False)["data"]
    nq = 3 * (n + 1)
    return data[:, 0], data[:, 1:1 + nq].reshape(-1, n + 1, 3), data[:, 1 + nq:1 + 2 * nq].reshape(-1, n + 1, 3)


def run_exudyn(n, scheme, dt, t_end, tol, scale=1.0, repeat=1):
    """Timed run (no output) minus a 10-step run (the fastest of ``repeat`` each), then a run
    storing states for the energy."""
    fulls = []
    while len(fulls) < repeats(repeat, [r["wall"] for r in fulls]):
        fulls.append(_solve_exudyn(n, scheme, dt, t_end, tol, scale=scale)[0])
    shorts = [_solve_exudyn(n, scheme, dt, 10 * dt, tol, scale=scale)[0] for _ in range(len(fulls))]
    full = min(fulls, key=lambda r: r["wall"])
    short = min(shorts, key=lambda r: r["wall"])
    per_step = (full["wall"] - short["wall"]) / max(full["steps"] - short["steps"], 1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "solution.txt")
        _solve_exudyn(n, scheme, dt, t_end, tol, path, scale=scale)
        times, q, v = exudyn_nodal(n, path)
    T = kinetic_energy(n, v)
    E = T + sr_strain_energy(n, q, scale) + gravity_potential(n, q)
    return dict(steps=full["steps"], wall=full["wall"], per_step=per_step, setup=short["wall"] - 10 * per_step,
                its=full["newton"] / max(full["steps"], 1), jac=full["jacobians"] / max(full["steps"], 1),
                cutbacks=full["steps"] - int(round(t_end / dt)), drift=drift(E, T), tip_y=float(q[-1, -1, 1]),
                finished=abs(full["t_reached"] - t_end) < 1e-9 and full["ok"], frames=len(times))


# ----------------------------------------------------------------------------- checks
def run_checks(dt, tol, exudyn):
    """Sanity checks of the energy evaluation (printed)."""
    lines = []

    def out(s):
        print(s)
        lines.append(s)

    n = 10
    # femb: T and P recomputed from its states, its mass against the script's
    model = femb_model(n)
    prob = DynamicProblem(model, mass="invariant")
    t = prob.table
    cols = [t.dof_names.index(d) for d in ("ux", "uy", "rz")]
    nv = t.node_var[:, cols].ravel()
    Mf = np.zeros((3 * (n + 1), 3 * (n + 1)))
    ok = nv >= 0
    Mf[np.ix_(ok, ok)] = prob.M_full.toarray()[np.ix_(nv[ok], nv[ok])]
    Ms = mass_matrix(n)
    out(f"mass: max |M_femb − M_script| / max M = {np.abs(Mf[np.ix_(ok, ok)] - Ms[np.ix_(ok, ok)]).max() / Ms.max():.1e} (free DOFs)")
    r = run_femb(n, MidPoint(), dt, 0.5, tol)
    q, v = femb_nodal(r["res"], n)
    dT = np.abs(kinetic_energy(n, v) - r["res"].series("kinetic_energy")).max() / r["res"].series("kinetic_energy").max()
    dP = np.abs(gravity_potential(n, q) - r["res"].series("potential_energy")).max() / np.abs(r["res"].series("potential_energy")).max()
    out(f"femb T, P recomputed by the script from femb's states: max rel. difference {dT:.1e}, {dP:.1e}")
    if exudyn is not None:
        import exudyn as exu

        _, mbs, beams = _solve_exudyn(n, "ga", dt, 0.5, tol)
        # Exudyn's strain energy: script formula against the element's own output at the final state
        cur = exu.ConfigurationType.Current
        qe = np.asarray(mbs.systemData.GetODE2Coordinates(cur)).reshape(1, n + 1, 3)
        le = L / n
        V_out = 0.0
        for b in beams:
            eps = mbs.GetObjectOutputBody(b, exu.OutputVariableType.StrainLocal, localPosition=[0.0, 0.0, 0.0], configuration=cur)
            kap = mbs.GetObjectOutputBody(b, exu.OutputVariableType.CurvatureLocal, localPosition=[0.0, 0.0, 0.0], configuration=cur)
            V_out += 0.5 * le * (EA * eps[0] ** 2 + GA * eps[5] ** 2 + EI * kap[2] ** 2)
        V_sr = float(sr_strain_energy(n, qe)[0])
        out(f"Exudyn strain energy at t = 0.5 s: script formula {V_sr:.10e}, from StrainLocal/CurvatureLocal {V_out:.10e} "
            f"(rel. difference {abs(V_sr - V_out) / abs(V_out):.1e})")
        Me = np.asarray(mbs.ComputeLinearizedSystem()[0])
        out(f"mass: max |M_exudyn − M_script| / max M = {np.abs(Me - Ms).max() / Ms.max():.1e}")
        # static cantilever (clamped at x = 0), linear regime, shear stiffness / 10⁴ so that shear
        # and bending deflections are comparable: Clapeyron V = ½ P·δ checks the formula, and the
        # element's own StrainLocal/CurvatureLocal output checks it again
        shear = 1e-4
        for label, P in (("transverse", (0.0, -1e-2)), ("axial", (10.0, 0.0))):  # tip deflection 1e-3 L, stretch 1e-5
            SC, mbs, beams, nodes = exudyn_model(n, tip_load=P, shear=shear)
            s = exu.SimulationSettings()
            s.staticSolver.verboseMode = 0
            s.staticSolver.newton.relativeTolerance = 1e-10
            s.staticSolver.newton.absoluteTolerance = 1e-8  # N; the residual's round-off floor is ~3e-9 N
            s.solutionSettings.writeSolutionToFile = False
            mbs.SolveStatic(s)
            qs = np.asarray(mbs.systemData.GetODE2Coordinates(cur)).reshape(1, n + 1, 3)
            work = 0.5 * (P[0] * qs[0, -1, 0] + P[1] * qs[0, -1, 1])
            V_sr = float(sr_strain_energy(n, qs, shear=shear)[0])
            V_out = 0.0
            for b in beams:
                eps = mbs.GetObjectOutputBody(b, exu.OutputVariableType.StrainLocal, localPosition=[0.0, 0.0, 0.0], configuration=cur)
                kap = mbs.GetObjectOutputBody(b, exu.OutputVariableType.CurvatureLocal, localPosition=[0.0, 0.0, 0.0], configuration=cur)
                V_out += 0.5 * le * (EA * eps[0] ** 2 + GA * shear * eps[5] ** 2 + EI * kap[2] ** 2)
            V_shear = float(0.5 * le * GA * shear * sum(mbs.GetObjectOutputBody(b, exu.OutputVariableType.StrainLocal, localPosition=[0.0, 0.0, 0.0],
                                                                                  configuration=cur)[5] ** 2 for b in beams))
            out(f"Exudyn static cantilever, {label} tip load, GA/10^4: V script {V_sr:.8e}, V from StrainLocal {V_out:.8e} "
                f"(shear part {V_shear / V_out:.0%}), ½P·δ {work:.8e}")
    # rigid limit: stiffnesses × 100, every scheme's drift must be small
    scale = 100.0
    for name, sch in (("femb mid-point", MidPoint()), ("femb gen-alpha(0.9)", GeneralizedAlpha(0.9))):
        r = run_femb(n, sch, dt, 2.0, tol, scale=scale)
        out(f"rigid limit (N = 10, stiffness × {scale:g}): {name:22s} drift {r['drift']:.2e}, tip y(2 s) = {r['tip_y']:.6f}")
    if exudyn is not None:
        r = run_exudyn(n, "ga", dt, 2.0, tol, scale=scale)
        out(f"rigid limit (N = 10, stiffness × {scale:g}): {'Exudyn gen-alpha(0.9)':22s} drift {r['drift']:.2e}, tip y(2 s) = {r['tip_y']:.6f}")
    return lines


# ----------------------------------------------------------------------------- profile
def profile_midpoint(n, dt, t_end, tol, correction=DirectCorrection):
    """Split of one femb mid-point run (full Newton) into measured parts, seconds per step.

    Replaces the step's assembly (DynamicProblem.midpoint_force) by the same operations
    with perf_counter timers around the element kernel and the whole, and times the Newton
    correction's factorization and triangular solve and the energy snapshot (~1 µs per
    timer); the rest of the loop time is Python/numpy glue (step set-up, residual and
    inertia vectors, norms, rotation limit, Cayley maps, convergence tests)."""
    settings = femb_settings(MidPoint(), femb_tolerance(n, tol), False, max(1, int(round(RECORD_PERIOD / dt))))
    model = femb_model(n)
    prob = DynamicProblem(model, mass="invariant")
    solve_dynamic(model, dt, 2 * dt, settings, problem=prob, solve_correction=correction(prob.table))  # warm-up
    acc = dict(assembly=0.0, kernel=0.0, factor=0.0, call=0.0, record=0.0, n_assembly=0, n_factor=0, n_solve=0)

    def timed_midpoint(u0, u1):
        """DynamicProblem.midpoint_force operation by operation, the kernel timed apart."""
        t0 = time.perf_counter()
        f, data = prob.force, prob.K.data
        f[:] = 0.0
        data[:] = 0.0
        for b, (e0, e1, fe, Ke) in zip(prob.table.blocks, prob._bufs):
            gather_vector(b.var, u0, e0)
            gather_vector(b.var, u1, e1)
            t1 = time.perf_counter()
            b.spec.kernels.midpoint_force(b.X, e0, e1, b.props, fe, Ke)
            acc["kernel"] += time.perf_counter() - t1
            scatter_vector(b.var, fe, f)
            scatter_matrix(b.pos, Ke, data)
        acc["assembly"] += time.perf_counter() - t0
        acc["n_assembly"] += 1
        return f, prob.K

    class Timed(correction):
        def factorize(self, K):
            t0 = time.perf_counter()
            super().factorize(K)
            acc["factor"] += time.perf_counter() - t0
            acc["n_factor"] += 1

        def __call__(self, K, r):
            t0 = time.perf_counter()
            out = super().__call__(K, r)
            acc["call"] += time.perf_counter() - t0
            acc["n_solve"] += 1
            return out

    snap, limit = EnergyAccount.snapshot, integrators._StepSystem.limit
    acc["limit"] = 0.0

    def timed_snapshot(self, *args, **kwargs):
        t0 = time.perf_counter()
        out = snap(self, *args, **kwargs)
        acc["record"] += time.perf_counter() - t0
        return out

    def timed_limit(self, *args, **kwargs):
        t0 = time.perf_counter()
        out = limit(self, *args, **kwargs)
        acc["limit"] += time.perf_counter() - t0
        return out

    prob.midpoint_force = timed_midpoint
    EnergyAccount.snapshot = timed_snapshot
    integrators._StepSystem.limit = timed_limit
    try:
        res = solve_dynamic(model, dt, t_end, settings, problem=prob, solve_correction=Timed(prob.table))
    finally:
        EnergyAccount.snapshot = snap
        integrators._StepSystem.limit = limit
        del prob.midpoint_force
    steps = res.info["steps"]
    loop = res.info["wall_time"]
    parts = {"element kernel": acc["kernel"], "gather/scatter/zeroing": acc["assembly"] - acc["kernel"], "LU factorization": acc["factor"],
             "triangular solves": acc["call"] - acc["factor"], "energy recording": acc["record"],
             "rotation/chord turn limit": acc["limit"]}
    parts["Python/numpy glue"] = loop - sum(parts.values())
    return dict(n=n, steps=steps, loop=loop, per_step=loop / steps, parts={k: v / steps for k, v in parts.items()},
                assemblies=acc["n_assembly"] / steps, factorizations=acc["n_factor"] / steps, solves=acc["n_solve"] / steps,
                kernel_per_element=acc["kernel"] / max(acc["n_assembly"], 1) / n, its=res.info["newton_iterations"] / steps)


def print_profile(p, label):
    lines = [f"profile, femb mid-point ({label}), N = {p['n']}: {1e3 * p['per_step']:.3f} ms/step over {p['steps']} steps, "
             f"{p['its']:.2f} Newton it/step, {p['assemblies']:.2f} assemblies, {p['factorizations']:.2f} factorizations, "
             f"{p['solves']:.2f} solves per step; element kernel {1e9 * p['kernel_per_element']:.0f} ns per element and call"]
    for k, v in p["parts"].items():
        lines.append(f"    {k:24s} {1e3 * v:8.3f} ms/step  {v / p['per_step']:6.1%}")
    for s in lines:
        print(s)
    return lines


# ----------------------------------------------------------------------------- main
FEMB_SCHEMES = {
    "midpoint": ("femb mid-point", lambda: MidPoint(), False, None, None),
    "midpoint-1e-12": ("femb mid-point, tol 1e-12", lambda: MidPoint(), False, 1e-12, None),
    "midpoint-modified": ("femb mid-point, modified Newton", lambda: MidPoint(), True, None, None),
    "newmark": ("femb Newmark (trapezoidal)", lambda: Newmark(), False, None, None),
    "hht": ("femb HHT(-0.05)", lambda: HHT(-0.05), False, None, None),
    "genalpha": ("femb gen-alpha(0.9)", lambda: GeneralizedAlpha(0.9), False, None, None),
}
EXUDYN_SCHEMES = {
    "exudyn-genalpha": ("Exudyn gen-alpha(0.9)", "ga"),
    "exudyn-genalpha-modified": ("Exudyn gen-alpha(0.9), modified Newton", "ga-modified"),
    "exudyn-newmark": ("Exudyn Newmark (trapezoidal)", "newmark"),
}
REFERENCE = "exudyn-genalpha"
DEFAULT = "exudyn-genalpha-modified"  # Exudyn's default solver: generalized-α with modified Newton


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, nargs="*", default=[10, 100, 1000])
    parser.add_argument("--t-end", type=float, default=2.0)
    parser.add_argument("--dt", type=float, default=1e-3)
    parser.add_argument("--tol", type=float, default=1e-6, help="Newton tolerance τ of both codes (see the docstring)")
    parser.add_argument("--schemes", nargs="+", default=list(FEMB_SCHEMES) + list(EXUDYN_SCHEMES),
                        choices=list(FEMB_SCHEMES) + list(EXUDYN_SCHEMES))
    parser.add_argument("--repeat", type=int, default=2,
                        help="timed runs per row, more while they total < 3 s (up to 10); the fastest counts (shared machines)")
    parser.add_argument("--no-exudyn", action="store_true")
    parser.add_argument("--exudyn-safe", action="store_true", help="use Exudyn's default module (with range checks)")
    parser.add_argument("--check", action="store_true", help="run the sanity checks of the energy evaluation")
    parser.add_argument("--profile", type=int, nargs="*", default=[], help="profile the femb mid-point run with these numbers of elements")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out"))
    parser.add_argument("--exudyn-timers", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.exudyn_timers:
        import_exudyn(fast=False)
        r, _, _ = _solve_exudyn(args.exudyn_timers, "ga", args.dt, args.t_end, args.tol, timers=True)
        print(json.dumps(dict(steps=r["steps"], its=r["newton"] / r["steps"], timers=r["timers"])))
        return

    exu = None if args.no_exudyn else import_exudyn(fast=not args.exudyn_safe)
    if not args.no_exudyn and exu is None:
        print("exudyn is not installed (pip install exudyn, or the 'bench' extra): the Exudyn rows are skipped")
    schemes = [s for s in args.schemes if exu is not None or s in FEMB_SCHEMES]
    os.makedirs(args.out, exist_ok=True)
    report = dict(t_end=args.t_end, dt=args.dt, tol=args.tol, repeat=args.repeat, exudyn=None if exu is None else exu.__version__,
                  exudyn_module="default" if args.exudyn_safe else "fast", rows=[], checks=[], profile=[])
    header = (f"flexible pendulum, t_end = {args.t_end} s, dt = {args.dt} s, Newton tolerance τ = {args.tol}"
              + ("" if exu is None else f", Exudyn {exu.__version__} ({report['exudyn_module']} module)"))
    print(header)
    if args.check:
        report["checks"] = run_checks(args.dt, args.tol, exu)
    cols = f"{'N':>5} {'code / scheme':40} {'steps':>5} {'ms/step':>8} {'its/step':>8} {'energy drift':>12} {'tip y(2s)':>10} {'vs Exudyn':>9} {'vs Ex. mod.':>11}"
    table = [cols]
    for n in args.elements:
        order = [k for k in (REFERENCE, DEFAULT) if k in schemes] + [k for k in schemes if k not in (REFERENCE, DEFAULT)]
        ref = dflt = None
        for key in order:
            t0 = time.perf_counter()
            if key in FEMB_SCHEMES:
                name, make, modified, tol, corr = FEMB_SCHEMES[key]
            else:
                name, sch = EXUDYN_SCHEMES[key]
            try:
                if key in FEMB_SCHEMES:
                    r = run_femb(n, make(), args.dt, args.t_end, tol or femb_tolerance(n, args.tol), modified, corr, repeat=args.repeat)
                    r.pop("res")
                else:
                    r = run_exudyn(n, sch, args.dt, args.t_end, args.tol, repeat=args.repeat)
            except Exception as exc:  # a failing code or scheme is reported, the others still run
                line = f"{n:5d} {name:40} failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                print(line, flush=True)
                table.append(line)
                report["rows"].append(dict(name=name, key=key, n=n, failed=str(exc)))
                continue
            r.update(name=name, key=key, n=n, bench_seconds=time.perf_counter() - t0)
            if key == REFERENCE:
                ref = r
            if key == DEFAULT:
                dflt = r
            r["ratio"] = r["per_step"] / ref["per_step"] if ref else None
            r["ratio_default"] = r["per_step"] / dflt["per_step"] if dflt else None
            ratio = (f"{r['ratio']:9.2f}" if ref else f"{'-':>9}") + (f" {r['ratio_default']:11.2f}" if dflt else f" {'-':>11}")
            flag = "" if r.get("finished", True) else "  (did not finish)"
            line = (f"{n:5d} {r['name']:40} {r['steps']:5d} {1e3 * r['per_step']:8.3f} {r['its']:8.2f} {r['drift']:12.2e} "
                    f"{r['tip_y']:10.5f} {ratio}{flag}")
            print(line, flush=True)
            table.append(line)
            report["rows"].append(r)
    pairs = [("midpoint", "exudyn-genalpha"), ("midpoint", "exudyn-genalpha-modified"), ("midpoint-modified", "exudyn-genalpha-modified"),
             ("genalpha", "exudyn-genalpha"), ("newmark", "exudyn-newmark")]
    summary = ["femb/Exudyn time per step (energy drift femb | Exudyn):"]
    for n in args.elements:
        got = {r["key"]: r for r in report["rows"] if r["n"] == n and "failed" not in r}
        cells = [f"{FEMB_SCHEMES[a][0][5:]} / {EXUDYN_SCHEMES[b][0][7:]}: {got[a]['per_step'] / got[b]['per_step']:.2f} "
                 f"({got[a]['drift']:.1e} | {got[b]['drift']:.1e})" for a, b in pairs if a in got and b in got]
        if cells:
            summary.append(f"  N = {n}: " + "; ".join(cells))
    if len(summary) > 1:
        print("\n".join(summary))
        table += [""] + summary
    for n in args.profile:
        p = profile_midpoint(n, args.dt, args.t_end, args.tol)
        report["profile"] += print_profile(p, "DirectCorrection")
        if exu is not None:  # Exudyn's own timers exist in its default module only: a separate process
            cmd = [sys.executable, os.path.abspath(__file__), "--exudyn-timers", str(n), "--dt", str(args.dt),
                   "--t-end", str(args.t_end), "--tol", str(args.tol)]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            try:
                r = json.loads(proc.stdout.strip().splitlines()[-1])
                line = (f"Exudyn gen-alpha(0.9) own timers (default module, with range checks), N = {n}, "
                        f"{r['steps']} steps, {r['its']:.2f} it/step, ms/step: "
                        + ", ".join(f"{k} {1e3 * v / r['steps']:.3f}" for k, v in r["timers"].items() if 1e3 * v / r["steps"] >= 0.001))
            except (IndexError, ValueError, KeyError):
                line = f"Exudyn timers failed: {proc.stderr[-500:]}"
            print(line)
            report["profile"].append(line)
    with open(os.path.join(args.out, "flexible_pendulum.json"), "w") as f:
        json.dump(report, f, indent=1, default=float)
    with open(os.path.join(args.out, "flexible_pendulum.md"), "w") as f:
        f.write(header + "\n\n```\n" + "\n".join(report["checks"] + [""] + table + [""] + report["profile"]) + "\n```\n")


if __name__ == "__main__":
    main()
