"""Cost per time step against model size: planar and 3-D beam chains from 10² to 10⁶ DOFs.

A cantilever clamped at one end falls under gravity (beam2d in the plane, 3 DOFs per
node; beam3d in space, 6 DOFs per node, gravity along a skew direction so that both bending
planes and the torsion work), N elements of one length h = 0.01 for a target number of
DOFs (the beam grows with N). With the element and the step Δt fixed, the Newton matrix
4M/Δt² + K keeps its conditioning at every size, so the Newton work per step stays
comparable. (Refining one beam of fixed length instead makes the bending stiffness EI/h³
grow as N³ against a mass that falls as 1/N: beyond ~10⁵ DOFs the default residual
tolerance is no longer reached, and the steps cut back.) The energy-conserving mid-point scheme, lumped mass, full Newton,
femb's default linear solver and tolerances, no recorded frames between the first and
the last. By default the chains take femb's compiled whole steps (a beam chain's band is
narrow: femb.solvers.dynamics.planar_step, spatial_step); ``--general`` runs the general
step path (assembled CSR tangent, sparse LU) instead.

Each size runs in a fresh subprocess: it builds a 2-element model first (loads the
compiled kernels; not timed), then the model, the DynamicProblem (set-up CPU time
reported), then ``solve_dynamic`` for 1 step (its step loop's CPU time reported as the
first step), again for 1 step and for 1 + s steps on the same problem (s = ``--steps``
from 10⁵ DOFs up, more below: 3·10⁵ / DOFs, at most 1000). The cost per step is the CPU
time of the last two step loops' difference divided by s, so each run's one-off work
(building the compiled step, first evaluations) and the first touch of the step's memory
(system time, large on a machine whose page cache fills the memory) are left out; Newton
iterations per step and CPU µs per DOF and step are reported with it. Peak memory is the
high-water mark of resident memory added by everything after the warm-up (model, table,
problem, the runs), per DOF; a second line per size gives that high-water mark after each
stage (model, table, DynamicProblem, each of the three runs; the mark is reset before the
runs, so that theirs leave out the set-up's own peak). Each run's Results are
released before the next run (a script that solves once holds one). At the end, the exponent k of a least-squares fit of the
cost per step ∝ DOF^k over the sizes.

    python benchmarks/step_scaling.py [--dofs 100 1000 10000 100000 1000000] [--dims 2 3] [--steps 3] [--general]
"""
import argparse
import json
import subprocess
import sys

import numpy as np

CHILD = r"""
import json, resource, sys, time
import numpy as np
from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers import DynamicSettings, solve_dynamic
from femb.correlation import build_table
from femb.solvers.dynamics.problem import DynamicProblem

n, dim, steps, compiled = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
DT = 1e-3
H = 0.01  # element length

def chain(n):
    if dim == 2:
        m = Model(line_mesh((0.0, 0.0), (H * n, 0.0), n, "b"), dim=2)
        m.add_part("b", "beam2d", "b", values={"EA": 1e5, "EI": 10.0, "rhoA": 1.0, "rhoI": 1e-4})
        m.fix("b_start", ("ux", "uy", "rz"))
        m.gravity((0.0, -9.81))
    else:
        m = Model(line_mesh((0.0, 0.0, 0.0), (H * n, 0.0, 0.0), n, "b"), dim=3)
        m.add_part("b", "beam3d", "b", values={"EA": 1e5, "GJ": 8.0, "EIy": 10.0, "EIz": 12.0, "rhoA": 1.0,
                                               "rhoIp": 2e-4, "rhoIy": 1e-4, "rhoIz": 1.2e-4})
        m.fix("b_start", ("ux", "uy", "uz", "rx", "ry", "rz"))
        m.gravity((0.0, -6.0, -7.76))
    return m

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024

solve_dynamic(chain(2), DT, 2 * DT, DynamicSettings(compiled_step=compiled))  # load the compiled kernels (not timed)
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
rss0 = status("VmRSS")
m = chain(n)
stages = {"model": status("VmHWM") - rss0}
c = time.process_time()
table = build_table(m)
stages["table"] = status("VmHWM") - rss0
prob = DynamicProblem(m, table=table)
setup = time.process_time() - c
stages["problem"] = status("VmHWM") - rss0
with open("/proc/self/clear_refs", "w") as f:  # the runs' own high-water marks (the set-up's peak left out)
    f.write("5")
runs = []
for k in (1, 1, 1 + steps):  # the first run touches the step's memory for the first time: not used
    u0 = resource.getrusage(resource.RUSAGE_SELF)
    res = solve_dynamic(m, DT, k * DT, DynamicSettings(compiled_step=compiled, record_every=10 ** 9), problem=prob)
    u1 = resource.getrusage(resource.RUSAGE_SELF)
    runs.append({"cpu": res.info["cpu_time"], "iterations": res.info["newton_iterations"],
                 "user": u1.ru_utime - u0.ru_utime, "sys": u1.ru_stime - u0.ru_stime,
                 "hwm": status("VmHWM") - rss0})
    del res  # (one run's results alive at a time, as in a script that solves once)
stages["runs"] = [r["hwm"] for r in runs]
a, b = runs[1:]
print(json.dumps({"dofs": int(prob.table.n_var), "n_eq": int(prob.table.n_eq), "setup": setup,
                  "step": (b["cpu"] - a["cpu"]) / steps, "iterations": (b["iterations"] - a["iterations"]) / steps,
                  "user": (b["user"] - a["user"]) / steps, "sys": (b["sys"] - a["sys"]) / steps,
                  "first": runs[0]["cpu"], "peak": max(stages["problem"], status("VmHWM") - rss0), "stages": stages}))
"""


def run(n, dim, steps, compiled):
    """One size in a fresh subprocess: the child's JSON record."""
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), str(dim), str(steps), "1" if compiled else "0"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None):
    """Run the sizes of each chain, print the table and the fitted exponents."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dofs", type=int, nargs="+", default=[100, 1000, 10_000, 100_000, 1_000_000])
    ap.add_argument("--dims", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--steps", type=int, default=3, help="timed steps at the largest sizes (more below 10⁵ DOFs)")
    ap.add_argument("--general", action="store_true", help="the general step path (compiled_step=False)")
    a = ap.parse_args(argv)
    print(f"{'chain':6s} {'N':>8s} {'DOFs':>8s} {'set-up s':>9s} {'1st step s':>10s} {'CPU s/step':>10s} {'user':>7s} "
          f"{'sys':>7s} {'it/step':>7s} {'µs/DOF':>7s} {'B/DOF':>7s}", flush=True)
    for dim in a.dims:
        per_node = 3 if dim == 2 else 6
        sizes, costs, per_iter = [], [], []
        for dofs in a.dofs:
            n = max(2, round(dofs / per_node) - 1)
            r = run(n, dim, max(a.steps, min(1000, 300_000 // dofs)), not a.general)
            sizes.append(r["dofs"])
            costs.append(r["step"])
            per_iter.append(r["step"] / max(r["iterations"], 1))
            print(f"{dim}-D    {n:8d} {r['dofs']:8d} {r['setup']:9.3f} {r['first']:10.3f} {r['step']:10.4f} {r['user']:7.3f} "
                  f"{r['sys']:7.3f} {r['iterations']:7.2f} {1e6 * r['step'] / r['dofs']:7.2f} {r['peak'] / r['dofs']:7.0f}",
                  flush=True)
            st = r["stages"]
            print(f"{'':6s} high-water B/DOF after model {st['model'] / r['dofs']:.0f}, table {st['table'] / r['dofs']:.0f}, "
                  f"problem {st['problem'] / r['dofs']:.0f}, runs (from the problem) " + " / ".join(f"{x / r['dofs']:.0f}" for x in st["runs"]),
                  flush=True)
        if len(sizes) > 1:
            k = np.polyfit(np.log(sizes), np.log(costs), 1)[0]
            ki = np.polyfit(np.log(sizes), np.log(per_iter), 1)[0]
            print(f"{dim}-D    fitted exponent: CPU per step ∝ DOF^{k:.2f}, per Newton iteration ∝ DOF^{ki:.2f}", flush=True)


if __name__ == "__main__":
    main()
