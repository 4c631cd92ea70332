"""Cost of the joint constraints in femb's energy-conserving time steps.

Three mechanisms, each timed side by side in one run against the same model without the
joint cost (the joints replaced by what they enforce, or the bodies left free):

(a) 3-D rigid pendulum: one ``rigid_body3d`` (m = 2, J = diag(0.1, 0.3, 0.35), J_xy =
    0.02, centre at (1, 0, 0.2)) on a revolute joint to ground at the origin, skew axis
    (0.3, −0.5, 0.8), gravity 9.81 along −z, released from rest; 6 unknowns, 5 joint
    equations; Δt = 0.02, 200 steps. Without joints: the same body in free fall.
(b) 2-D rigid slider-crank (tests/solvers/test_rigid_mechanisms.py): crank r = 0.1524 m
    driven at ω = 1 rad/s (prescribed pin), rod a ``rigid_body2d`` with two ``body_point``
    joints (4 rows), slider point mass with uy fixed; Δt = 0.02, 200 steps. Without
    joints: the rod and the slider free (same bodies, no joint rows, no driver).
(c) flexible slider-crank (femb.validation.models.slider_crank, Meijaard's steel rod,
    ω = 124.8 rad/s): rod of 16 ``beam2d`` elements whose end node slides on the x axis
    by an ``on_line`` joint and whose first node is held on a driven crank-pin node by a
    ``coincide`` joint (3 joint rows); Δt = 2e-5, 200 steps. Without joints: the
    validation model itself (pin translations prescribed, slider uy fixed): the same
    mechanism.

With Exudyn installed (optional, ``pip install -e ".[bench]"``), model (a) is also run in
Exudyn: ``ObjectRigidBody`` on a ``NodeRigidBodyEP`` with ``ObjectJointRevoluteZ`` (created
by ``CreateRigidBody``/``CreateRevoluteJoint``), its default implicit solver
(generalized-α, ρ∞ = 0.9, modified Newton: few Jacobians, more iterations), one thread,
the same Δt, 25 Newton iterations at most, relative Newton tolerance τ and absolute τ·m·g
(femb: full Newton, tolerance τ relative to its force scale); and again with Exudyn's full
Newton. Exudyn's time is that of
``SolveDynamic`` minus a 10-step run (set-up). The two runs agree on the body position
after 1 s to 5e-4 (mid-point rule against generalized-α at Δt = 0.02).

Times are the fastest of ``--repeat`` runs of femb's time-stepping loop
(``results.info["wall_time"]``, recording every 10 steps), per step and per Newton
iteration, the runs with and without joints alternating; ratios are printed
(constrained / unconstrained, femb / Exudyn). Nothing is asserted.

Usage: python benchmarks/joint_step_overhead.py [--repeat 5] [--tol 1e-9] [--no-exudyn]
       [--profile] [--out benchmarks/out]
"""
import argparse
import json
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from femb.mesh import Mesh  # noqa: E402
from femb.model import Model  # noqa: E402
from femb.solvers import solve_dynamic  # noqa: E402
from femb.solvers.dynamics.driver import DynamicSettings  # noqa: E402
from femb.solvers.nonlinear.newton import NewtonSettings  # noqa: E402
from femb.validation.models import slider_crank as flexible_slider_crank  # noqa: E402

AXIS = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
BODY = dict(m=2.0, Jxx=0.1, Jyy=0.3, Jzz=0.35, Jxy=0.02)
CENTRE = (1.0, 0.0, 0.2)
G = 9.81
R_CRANK, L_ROD, OMEGA = 0.1524, 0.3048, 1.0


# ----------------------------------------------------------------------------- models
def pendulum3d(joint=True):
    model = Model(Mesh(np.array([CENTRE]), {}, {"c": [0]}), dim=3, name="3-D revolute pendulum" if joint else "3-D free body")
    model.add_discrete("body", "rigid_body3d", "c", **BODY)
    if joint:
        model.joint3d("revolute", "c", None, axis=AXIS, point=(0.0, 0.0, 0.0), name="pivot")
    model.gravity((0.0, 0.0, -G))
    return model


def rigid_slider_crank(joint=True, m_rod=0.5, m_slider=0.1):
    r, L = R_CRANK, L_ROD
    pts = np.array([[r, 0.0], [r + 0.5 * L, 0.0], [r + L, 0.0]])
    model = Model(Mesh(pts, {}, {"pin": [0], "rod": [1], "slider": [2]}), name="rigid slider-crank" + ("" if joint else " (free)"))
    model.add_discrete("slider mass", "point_mass2d_translational", "slider", m=m_slider)
    model.add_discrete("pin node", "point_mass2d_translational", "pin", m=0.0 if joint else 0.1)
    model.add_discrete("rod body", "rigid_body2d", "rod", m=m_rod, J=m_rod * L**2 / 12.0)
    if joint:
        model.body_point("rod", "pin", name="crank pin")
        model.body_point("rod", "slider", name="wrist pin")
        model.prescribe("pin", "ux", function=lambda t: r * (np.cos(OMEGA * t) - 1.0))
        model.prescribe("pin", "uy", function=lambda t: r * np.sin(OMEGA * t))
        model.fix("slider", ("uy",))
    model.gravity((0.0, -G))
    return model


def flexible_crank(joint=True, n_rod=16, omega=124.8):
    """The validation slider-crank; with ``joint`` its pin and slider guides as joints."""
    base = flexible_slider_crank(n_rod=n_rod, omega=omega)
    if not joint:
        return base
    r = R_CRANK
    mesh = base.mesh
    pts = np.vstack([mesh.points, [[r, 0.0]]])
    sets = {k: list(v) for k, v in mesh.node_sets.items()}
    sets["driver"] = [len(pts) - 1]
    model = Model(Mesh(pts, dict(mesh.cells), sets), name="flexible slider-crank (joints)")
    part = base.parts[0] if isinstance(base.parts, list) else next(iter(base.parts.values()))
    model.add_part("rod", part.element, "rod", part.material, part.section)
    model.add_discrete("driver", "point_mass2d_translational", "driver", m=0.0)
    model.prescribe("driver", "ux", function=lambda t: r * (np.cos(omega * t) - 1.0))
    model.prescribe("driver", "uy", function=lambda t: r * np.sin(omega * t))
    model.coincide("driver", "pin", name="crank pin")
    model.on_line("slider", point=(r + L_ROD, 0.0), direction=(1.0, 0.0), name="slider guide")
    s = mesh.points[:, 0] - r
    for node in range(n_rod + 1):
        model.initial_velocity(node, ux=0.0, uy=r * omega * (1.0 - s[node] / L_ROD), rz=-r * omega / L_ROD)
    model.initial_velocity("driver", ux=0.0, uy=r * omega)
    return model


CASES = [
    # name, builder, dt, t_end
    ("(a) 3-D revolute rigid pendulum", pendulum3d, 0.02, 4.0),
    ("(b) 2-D rigid slider-crank", rigid_slider_crank, 0.02, 4.0),
    ("(c) flexible slider-crank, 16 beam2d", flexible_crank, 2e-5, 4e-3),
]


# ----------------------------------------------------------------------------- femb
def _femb_settings(dt, t_end, tol):
    return DynamicSettings(record_every=max(1, int(round(t_end / dt)) // 20), newton=NewtonSettings(tolerance=tol))


def _summary(res, walls):
    steps, its = res.info["steps"], res.info["newton_iterations"]
    E = res.series("total_energy")
    return dict(steps=steps, its=its / steps, per_step=min(walls) / steps, per_iteration=min(walls) / max(its, 1),
                n_eq=res.table.n_eq, energy_change=float(np.ptp(E)) if len(E) else float("nan"))


def run_femb_pair(builder, dt, t_end, tol, repeat):
    """The model with and without joints, alternately ``repeat`` times each (side by side
    under the same machine load); the fastest run of each."""
    settings = _femb_settings(dt, t_end, tol)
    walls = {True: [], False: []}
    last = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for joint in (True, False):
            solve_dynamic(builder(joint), dt, 3 * dt, settings)  # warm-up (compilation, caches)
        for _ in range(max(1, repeat)):
            for joint in (True, False):
                res = solve_dynamic(builder(joint), dt, t_end, settings)
                walls[joint].append(res.info["wall_time"])
                last[joint] = res
    return _summary(last[True], walls[True]), _summary(last[False], walls[False])


# ----------------------------------------------------------------------------- Exudyn
def import_exudyn():
    try:
        import exudyn
    except ImportError:
        return None
    return exudyn


def _exudyn_pendulum(dt, t_end, tol, modified=True):
    import exudyn as exu
    from exudyn.utilities import InertiaCuboid, RigidBodyInertia  # noqa: F401  (module of the helpers)

    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.CreateGround(referencePosition=[0.0, 0.0, 0.0])
    J = np.array([[BODY["Jxx"], BODY["Jxy"], 0.0], [BODY["Jxy"], BODY["Jyy"], 0.0], [0.0, 0.0, BODY["Jzz"]]])
    inertia = RigidBodyInertia(mass=BODY["m"], inertiaTensor=J)
    body = mbs.CreateRigidBody(inertia=inertia, referencePosition=list(CENTRE), gravity=[0.0, 0.0, -G])
    mbs.CreateRevoluteJoint(bodyNumbers=[ground, body], position=[0.0, 0.0, 0.0], axis=list(AXIS), useGlobalFrame=True)
    mbs.Assemble()
    s = exu.SimulationSettings()
    ti = s.timeIntegration
    ti.numberOfSteps = int(round(t_end / dt))
    ti.endTime = t_end
    ti.verboseMode = 0
    ti.newton.relativeTolerance = tol
    ti.newton.absoluteTolerance = tol * BODY["m"] * G
    ti.newton.maxIterations = 25
    ti.newton.useModifiedNewton = modified  # True: Exudyn's default
    s.parallel.numberOfThreads = 1
    s.solutionSettings.writeSolutionToFile = False
    s.solutionSettings.sensorsWritePeriod = 1e9
    s.displayStatistics = False
    s.displayComputationTime = False
    t0 = time.perf_counter()
    mbs.SolveDynamic(s)
    wall = time.perf_counter() - t0
    it = mbs.sys["dynamicSolver"].it
    return wall, it.currentStepIndex - 1, it.newtonStepsCount, it.newtonJacobiCount


def run_exudyn(dt, t_end, tol, repeat, modified=True):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = [_exudyn_pendulum(dt, t_end, tol, modified) for _ in range(max(1, repeat))]
        short = [_exudyn_pendulum(dt, 10 * dt, tol, modified)[0] for _ in range(max(1, repeat))]
    wall = min(f[0] for f in full) - min(short)
    steps, newton, jac = full[0][1], full[0][2], full[0][3]
    return dict(steps=steps, its=newton / max(steps, 1), jacobians=jac / max(steps, 1), per_step=wall / max(steps, 1),
                per_iteration=wall / max(newton, 1))


# ----------------------------------------------------------------------------- main
def profile_case(builder, dt, t_end, tol):
    import cProfile
    import pstats

    pr = cProfile.Profile()
    pr.enable()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        solve_dynamic(builder(True), dt, t_end, DynamicSettings(newton=NewtonSettings(tolerance=tol)))
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(12)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tol", type=float, default=1e-9, help="Newton tolerance (femb relative; Exudyn relative and τ·m·g absolute)")
    ap.add_argument("--no-exudyn", action="store_true")
    ap.add_argument("--profile", action="store_true", help="cProfile of the constrained run of each case")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out"))
    args = ap.parse_args(argv)
    rows = []
    for name, builder, dt, t_end in CASES:
        con, free = run_femb_pair(builder, dt, t_end, args.tol, args.repeat)
        rows.append(dict(case=name, dt=dt, steps=con["steps"], constrained=con, unconstrained=free,
                         ratio_step=con["per_step"] / free["per_step"], ratio_iteration=con["per_iteration"] / free["per_iteration"]))
        if args.profile:
            print(f"--- profile {name}")
            profile_case(builder, dt, t_end, args.tol)
    exu = None if args.no_exudyn else import_exudyn()
    ex = None
    ex_full = None
    if exu is not None:
        _, _, dt, t_end = CASES[0]
        ex = run_exudyn(dt, t_end, args.tol, args.repeat)
        ex["version"] = exu.__version__
        ex_full = run_exudyn(dt, t_end, args.tol, args.repeat, modified=False)
        rows[0]["exudyn"] = ex
        rows[0]["exudyn_full_newton"] = ex_full
        rows[0]["ratio_exudyn_step"] = rows[0]["constrained"]["per_step"] / ex["per_step"]
        rows[0]["ratio_exudyn_iteration"] = rows[0]["constrained"]["per_iteration"] / ex["per_iteration"]
        rows[0]["ratio_exudyn_full_newton_step"] = rows[0]["constrained"]["per_step"] / ex_full["per_step"]
    lines = ["| case | free equations | its/step with / without joints | ms/step with joints | ms/step without | ratio per step | ratio per iteration |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        c, f = r["constrained"], r["unconstrained"]
        lines.append(f"| {r['case']} | {c['n_eq']} | {c['its']:.2f} / {f['its']:.2f} | {1e3 * c['per_step']:.3f} | {1e3 * f['per_step']:.3f} "
                     f"| {r['ratio_step']:.2f} | {r['ratio_iteration']:.2f} |")
    if ex is not None:
        c = rows[0]["constrained"]
        lines.append("")
        lines.append(f"(a) against Exudyn {ex['version']} (generalized-α, modified Newton: its/step {ex['its']:.2f}, "
                     f"Jacobians/step {ex['jacobians']:.2f}; femb its/step {c['its']:.2f}): femb/Exudyn per step "
                     f"{rows[0]['ratio_exudyn_step']:.2f}, per Newton iteration {rows[0]['ratio_exudyn_iteration']:.2f} "
                     f"(femb {1e3 * c['per_step']:.3f} ms/step, Exudyn {1e3 * ex['per_step']:.3f} ms/step)")
        lines.append(f"(a) against Exudyn with full Newton (its/step {ex_full['its']:.2f}): femb/Exudyn per step "
                     f"{rows[0]['ratio_exudyn_full_newton_step']:.2f} (Exudyn {1e3 * ex_full['per_step']:.3f} ms/step); for "
                     f"interleaved repeats and medians see benchmarks/peer_suite.py (row 'revolute')")
    elif not args.no_exudyn:
        lines.append("\n(Exudyn not installed: no comparison)")
    text = "\n".join(lines)
    print(text)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "joint_step_overhead.md"), "w") as fh:
        fh.write(text + "\n")
    with open(os.path.join(args.out, "joint_step_overhead.json"), "w") as fh:
        json.dump(rows, fh, indent=1, default=float)
    return rows


if __name__ == "__main__":
    main()
