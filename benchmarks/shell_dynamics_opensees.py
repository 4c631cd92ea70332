"""femb shell4 dynamics side by side with OpenSees on the same quad mesh and step.

Case: the Sze–Liu–Lo cantilever strip (L = 10, b = 1, t = 0.1, E = 1.2e6, ν = 0; clamped at
x = 0; femb.validation.shell_models.strip) with density ρ = 1 (first bending period ≈ 5.6),
hit at t = 0 by a tip shear F held constant (default 0.5 in total, spread over the tip edge:
a large-deflection response, the tip swinging by about a third of the length), integrated
to t_end = 6 with step dt.

femb: the energy-conserving mid-point scheme (its default), lumped mass. Peer: OpenSees
ASDShellQ4 with its co-rotational option, Newmark average acceleration (γ = ½, β = ¼, the
peer's usual choice for nonlinear transient analysis; energy-conserving only for linear
problems), Newton, RCM numbering, "default" = ProfileSPD and "best" = UmfPack systems.
Convergence: femb ‖r‖ ≤ tol × its force scale (NewtonSettings.tolerance); the peer
NormUnbalance ≤ tol × ‖F‖ (the applied load, which the residual scale of this case
reaches; stated, not identical).

Accuracy: the tip deflection history of each run against femb's own solution at dt/8
(a reference of the same spatial model: the scheme's error at the benchmark step) —
max |w − w_ref| / max |w_ref| over the run; the peer's spatial model (its element and mass)
differs slightly from femb's, which the column "peer vs own dt/8" separates out.
Energy: each run's balance error max_t |K + V − W| / max_t (K + V), K the kinetic and V
the strain energy, W the work of the tip load (F·u, held from t = 0). femb: its own
``energy_residual`` series (its total energy counts the dead load as the potential −F·u)
over K + V. Peer: K from the nodal velocities and
ASDShellQ4's lumped translational mass, V from the section stresses and strains it reports
at its Gauss points (its co-rotated elastic energy; opensees_shell_worker._energy_terms),
evaluated after every step and kept out of its time. The trapezoidal work of the internal
forces would not do: with Newmark's average acceleration it balances K − W to the Newton
tolerance by construction, whatever the true strain energy. The peer starts Newmark from
a zero acceleration although the load acts at t = 0 (femb solves the initial
acceleration), so its first step already loses about ½F·u₁ (the load enters the step's
trapezoidal work at half weight), ∝ dt²; the column "after step 1", max_n |r_n − r_1| over
the same scale, shows the scheme's drift without that start.
Timing: wall time of model set-up + analysis inside each process (femb after a warm-up
run that compiles its kernels; the peer's subprocess start-up excluded); repeats
interleaved, median of --repeat, with the 1-minute load average.
Usage: python benchmarks/shell_dynamics_opensees.py [--repeat 3] [--nx 16 --ny 2] [--dt 0.05]
       [--ref-factor 8] [--systems ProfileSPD UmfPack] [--json FILE]
"""
import argparse
import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from femb.solvers import DynamicSettings, NewtonSettings, solve_dynamic
from femb.validation.shell_models import add_edge_load, strip

sys.path.insert(0, str(Path(__file__).parent))
from shell_opensees import WORKER, neutral, opensees_env  # noqa: E402

RHO, T_END, TOL = 1.0, 6.0, 1e-8


def build(nx, ny, force):
    """The strip of femb.validation.shell_models with density ρ and the tip shear."""
    mesh, model = strip(nx, ny, element="shell4")
    part = model.parts["strip"]
    model.parts["strip"] = dataclasses.replace(part, material=dataclasses.replace(part.material, rho=RHO))
    add_edge_load(mesh, model, "plate_x1", force, "fz")
    return mesh, model


def run_femb(nx, ny, force, dt):
    """femb's mid-point run: wall time, tip deflection history, Newton iterations."""
    t0 = time.perf_counter()
    mesh, model = build(nx, ny, force)
    tip = int(mesh.node_sets["plate_x1"][0])
    settings = DynamicSettings(newton=NewtonSettings(tolerance=TOL))
    res = solve_dynamic(model, dt, T_END, settings, probes={"w": (tip, "uz")})
    wall = time.perf_counter() - t0
    # total_energy holds the dead load's potential −F·u: the residual is K + V − F·u − E0
    scale = np.abs(np.asarray(res.series("kinetic_energy")) + np.asarray(res.series("strain_energy"))).max()
    r = np.asarray(res.series("energy_residual"))
    energy_error, energy_drift = float(np.abs(r).max() / scale), float(np.abs(r[1:] - r[1]).max() / scale)
    return {"seconds": wall, "w": np.asarray(res.series("w"))[1:], "times": np.asarray(res.times)[1:],
            "iterations": int(res.info.get("newton_iterations", 0)), "energy_error": energy_error,
            "energy_drift": energy_drift}


def run_peer(nx, ny, force, dt, system, env):
    """The OpenSees run in a subprocess (opensees_shell_worker.py, transient mode)."""
    mesh, model = build(nx, ny, force)
    job = neutral(mesh, model)
    tip = int(mesh.node_sets["plate_x1"][0])
    steps = int(round(T_END / dt))
    job.update(analysis="transient", E=1.2e6, nu=0.0, t=0.1, rho=RHO, dt=dt, steps=steps, system=system,
               abs_tolerance=TOL * force, max_iterations=50, monitor=[(tip, 2)], energy=True)
    proc = subprocess.run([sys.executable, str(WORKER)], input=json.dumps(job), capture_output=True, text=True,
                          env=env, timeout=3600)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if not line:
        return {"seconds": float("nan"), "w": np.zeros(0), "converged": False, "iterations": 0,
                "energy_error": float("nan"), "energy_drift": float("nan"), "note": proc.stderr[-300:]}
    r = json.loads(line[-1][len("RESULT "):])
    r["w"] = np.asarray([v[0] for v in r["values"]])
    r["times"] = dt * np.arange(1, r["w"].size + 1)
    kinetic, strain, work = np.asarray(r.pop("energy_terms")).T
    residual, scale = kinetic + strain - work, np.abs(kinetic + strain).max()
    r["energy_error"] = float(np.abs(residual).max() / scale) if r["converged"] else float("nan")
    r["energy_drift"] = float(np.abs(residual - residual[0]).max() / scale) if r["converged"] else float("nan")
    return r


def history_error(run, ref):
    """max |w − w_ref| / max |w_ref| at the run's step times (reference interpolated)."""
    if run["w"].size == 0:
        return float("nan")
    w_ref = np.interp(run["times"], ref["times"], ref["w"])
    return float(np.abs(run["w"] - w_ref).max() / np.abs(ref["w"]).max())


def main(argv=None):
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--nx", type=int, default=16)
    parser.add_argument("--ny", type=int, default=2)
    parser.add_argument("--dt", type=float, default=0.05)
    parser.add_argument("--force", type=float, default=0.5)
    parser.add_argument("--ref-factor", type=int, default=8, help="reference step = dt / this")
    parser.add_argument("--systems", nargs="+", default=["ProfileSPD", "UmfPack"], help="the peer's linear systems")
    parser.add_argument("--json", default=None, help="also write the rows to this file")
    args = parser.parse_args(argv)
    env = opensees_env()
    nx, ny, force, dt = args.nx, args.ny, args.force, args.dt
    run_femb(nx, ny, force, dt)  # warm-up: kernel compilation
    ref = run_femb(nx, ny, force, dt / args.ref_factor)
    peer_ref = run_peer(nx, ny, force, dt / args.ref_factor, "UmfPack", env)
    systems = tuple(args.systems)
    samples = {"femb": []} | {s: [] for s in systems}
    loads = []
    for _ in range(args.repeat):  # interleaved
        samples["femb"].append(run_femb(nx, ny, force, dt))
        for s in systems:
            samples[s].append(run_peer(nx, ny, force, dt, s, env))
        loads.append(os.getloadavg()[0])
    femb_t = float(np.median([r["seconds"] for r in samples["femb"]]))
    rows = []
    steps = int(round(T_END / dt))
    print(f"strip {nx}x{ny} shell4 ({6 * (nx + 1) * (ny + 1)} DOF), {steps} steps of {dt} (tip load {force}); "
          f"reference: femb at dt/{args.ref_factor}, "
          f"peak tip deflection {np.abs(ref['w']).max():.4f}; energy error at dt/{args.ref_factor}: "
          f"femb {ref['energy_error']:.2e}, peer {peer_ref['energy_error']:.2e} "
          f"(after step 1 {peer_ref['energy_drift']:.2e})")
    for key, runs in samples.items():
        t = float(np.median([r["seconds"] for r in runs]))
        last = runs[-1]
        label = "femb mid-point" if key == "femb" else f"OpenSees ASDShellQ4 corot. Newmark ({key})"
        own = history_error(last, peer_ref) if key != "femb" else history_error(last, ref)
        row = {"code": label, "seconds": t, "ms_per_step": 1e3 * t / steps, "femb_over_peer": femb_t / t if key != "femb" else 1.0,
               "error_vs_femb_ref": history_error(last, ref), "error_vs_own_ref": own,
               "energy_error": last["energy_error"], "energy_drift": last["energy_drift"],
               "iterations": int(last.get("iterations", 0)), "converged": bool(last.get("converged", True)),
               "load_avg": float(np.median(loads))}
        rows.append(row)
        print(f"{label:44s} {t:7.3f} s  {row['ms_per_step']:7.2f} ms/step  femb/peer {row['femb_over_peer']:5.2f}  "
              f"error vs femb ref {row['error_vs_femb_ref']:.2e}  vs own ref {own:.2e}  "
              f"energy error {row['energy_error']:.2e} (after step 1 {row['energy_drift']:.2e})  "
              f"iterations {row['iterations']}  "
              f"{'ok' if row['converged'] else 'stopped after %d of %d steps' % (last['w'].size, steps)}  "
              f"load {row['load_avg']:.1f}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
