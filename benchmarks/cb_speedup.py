"""Speed-up of a Craig–Bampton superelement over the unreduced femb shell model it was
reduced from: same body, same motion, same step, same Newton threshold.

Body and motion: the strip of benchmarks/cb_exudyn.py (L = 1, b = 0.1, t = 0.005 steel,
``shell4``, a 1000× stiffer first column as the root patch) with a finer mesh (default
48 × 8 elements: 441 nodes, 2646 DOF), its root node clamped and spun up about y by
θ(t) = spin_up_angle(Ω = 4 rad/s, T = 0.5 s); Δt = 1e-3 to t_end = 0.3 s (the spin-up's
largest angular acceleration is at t = 0.25 s, where the tip deflection peaks).
Reduced: ``femb.reduce_component(strip, root, k, mass="lumped")`` on the root node alone
(m = 6 + k element coordinates; k = 6 by default, --k to change). Both femb's mid-point
scheme, full Newton, ``absolute_tolerance`` τ_a = 1e-6 on the free equations.

Timing: CPU (process_time) and wall time of each ``solve_dynamic`` minus a 10-step run of
the same model (the set-up), per step; repeats interleaved (reduced, unreduced, …), median
of --repeat. The one-off reduction (``reduce_component`` + the element data,
``rc.superelement()``) is timed after a warm-up reduction of the same size (compilation
excluded). Accuracy: the tip deflection out of the rotating plane w(t) (cb_exudyn.py) of
the reduced body against the unreduced model's, max |w − w_full| / max |w_full| over the
run, from the timed runs (both record every step); energy residual of each run.

Usage: python benchmarks/cb_speedup.py [--nx 48 --ny 8] [--k 6] [--dt 1e-3 --t-end 0.3] [--repeat 3]
Nothing is asserted; writes benchmarks/out/cb_speedup.{md,json}.
"""
import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cb_exudyn as cb  # noqa: E402  (the strip, its reduction and drive)


def main(argv=None):
    """Run the comparison (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nx", type=int, default=48)
    ap.add_argument("--ny", type=int, default=8)
    ap.add_argument("--k", type=int, nargs="+", default=[6], help="fixed-interface modes (one row each)")
    ap.add_argument("--dt", type=float, default=1e-3)
    ap.add_argument("--t-end", type=float, default=0.3)
    ap.add_argument("--abs-tol", type=float, default=1e-6)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    args = ap.parse_args(argv)
    st = cb.femb_settings(args.abs_tol, 1e-8)  # record every step (accuracy from the timed runs)
    full_build = lambda: cb.full_model(args.nx, args.ny)  # noqa: E731
    head = (f"femb reduced vs unreduced: strip {args.nx}x{args.ny} shell4, dt = {args.dt:g}, t_end = {args.t_end:g}, "
            f"abs tol {args.abs_tol:g}, repeat {args.repeat}, {os.cpu_count()} CPUs, {cb.load()}")
    print(head, flush=True)
    cb.reduce(args.nx, args.ny, args.k[0])  # warm-up: compiles the kernels the reduction uses
    reduced = {}
    for k in args.k:
        rc, t_red = cb.reduce(args.nx, args.ny, k)
        reduced[k] = (rc, t_red)
        build = lambda rc=rc: cb.reduced_model(rc)  # noqa: E731
        cb.femb_run(build, args.dt, 3 * args.dt, st)  # warm-up
    cb.femb_run(full_build, args.dt, 3 * args.dt, st)
    n_dof = reduced[args.k[0]][0].table.n_eq
    times = {"full": [], "full_wall": []}
    for k in args.k:
        times[k], times[f"{k}_wall"] = [], []
    res = {}
    for _ in range(args.repeat):
        for k in args.k:
            cpu, wall, res[k] = cb.femb_per_step(lambda rc=reduced[k][0]: cb.reduced_model(rc), args.dt, args.t_end, st)
            times[k].append(cpu)
            times[f"{k}_wall"].append(wall)
        cpu, wall, res["full"] = cb.femb_per_step(full_build, args.dt, args.t_end, st)
        times["full"].append(cpu)
        times["full_wall"].append(wall)
        print("  sample (ms/step CPU): " + ", ".join(f"{key}: {times[key][-1] * 1e3:.3f}" for key in [*args.k, "full"])
              + f"; {cb.load()}", flush=True)
    med = {key: cb.median(v) for key, v in times.items()}
    t_u, w_u = cb.femb_tip(res["full"], False)
    lines = [head, "", f"unreduced: {n_dof} DOF ({args.nx * args.ny} shell4 elements)", "",
             "| model | coordinates | ms/step CPU (median) | ms/step wall | Newton its/step | speed-up (CPU) | one-off reduction CPU s | "
             "w_end | max\\|w\\| | tip error vs unreduced | energy error |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    r = res["full"]
    lines.append(f"| unreduced shell4 | {n_dof} | {med['full'] * 1e3:.2f} | {med['full_wall'] * 1e3:.2f} | "
                 f"{r.info['newton_iterations'] / r.info['steps']:.2f} | 1 | – | {w_u[-1]:.6g} | {np.abs(w_u).max():.6g} | 0 | "
                 f"{cb.femb_energy_error(r):.1e} |")
    rows = {}
    for k in args.k:
        rc, t_red = reduced[k]
        r = res[k]
        t_f, w_f = cb.femb_tip(r, True)
        err = cb.history_error(t_f, w_f, t_u, w_u)
        rows[k] = dict(cpu=med[k], wall=med[f"{k}_wall"], speedup=med["full"] / med[k], reduction_cpu=t_red, tip_error=err,
                       w_end=float(w_f[-1]), energy=cb.femb_energy_error(r))
        lines.append(f"| superelement, k = {k} | {rc.basis.K.shape[0]} | {med[k] * 1e3:.3f} | {med[f'{k}_wall'] * 1e3:.3f} | "
                     f"{r.info['newton_iterations'] / r.info['steps']:.2f} | {med['full'] / med[k]:.0f} | {t_red:.2f} | {w_f[-1]:.6g} | "
                     f"{np.abs(w_f).max():.6g} | {err:.2e} | {rows[k]['energy']:.1e} |")
    text = "\n".join(lines)
    print("\n" + text + f"\n\n{cb.load()} at the end", flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "cb_speedup.md"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(args.out, "cb_speedup.json"), "w") as f:
        json.dump(dict(head=head, times={str(k): v for k, v in times.items()}, rows={str(k): v for k, v in rows.items()}), f, indent=1)


if __name__ == "__main__":
    main()
