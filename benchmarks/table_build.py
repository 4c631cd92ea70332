"""Set-up cost of the DOF correlation table: ``build_table`` on beam chains.

For a 2-D chain (beam2d, 3 DOFs per node) and a 3-D chain (beam3d, 6 DOFs per node) of
N = 10⁴, 10⁵, 10⁶ elements, clamped at one end, each build runs in a fresh subprocess and
reports its wall and CPU time (the CPU time is less sensitive to other jobs on a shared
machine; also split into user and system time: the system time is mostly the first touch
of new memory, which on a machine whose page cache fills the memory costs the kernel's
reclaim: README, "Scaling"), the peak resident memory added by the build (VmHWM after the build
minus VmRSS before it, the high-water mark reset just before) per DOF, and the exponent
of a least-squares fit time ∝ N^k over the sizes. ``--baseline REV`` also builds with
femb/correlation/{table,pattern}.py as of git revision REV (the two builds of a size run
alternately, one subprocess each). Each subprocess first builds the table of a 2-element
chain, which loads (or, for a baseline, compiles) the kernels; that is not timed.

``--baseline-checkout DIR`` instead runs the baseline in another femb checkout with its own
environment (``DIR/.venv/bin/python``, its own ``NUMBA_CACHE_DIR``, filled by one untimed
build first), so that both versions load cached kernels and start their builds equally
soon after the previous subprocess ended. The system time depends on that: memory a process
has just returned is cheap to touch again, memory the machine has had time to take back
(a virtual machine's free page reporting) is not. ``--pause S`` waits S seconds before each
subprocess, so that every build starts from memory that has been given back.

    python benchmarks/table_build.py [--sizes 10000 100000 1000000] [--repeat 2] [--baseline REV]
    python benchmarks/table_build.py --baseline-checkout ../base --pause 5
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]

CHILD = r"""
import json, pathlib, resource, sys, time
import numpy as np
from femb.mesh import line_mesh
from femb.model import Model
n, dim, rev, root = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
if rev == "-":
    from femb.correlation import build_table
else:
    sys.path.insert(0, str(pathlib.Path(root) / "benchmarks"))
    from revision import module_of_revision
    module_of_revision(rev, "femb/correlation/pattern.py", "femb.correlation.pattern_baseline")
    build_table = module_of_revision(rev, "femb/correlation/table.py", "femb.correlation.table_baseline", edit=lambda src: src.replace(
        "femb.correlation.pattern import", "femb.correlation.pattern_baseline import")).build_table
def chain(n):
    if dim == 2:
        m = Model(line_mesh((0.0, 0.0), (1.0, 0.0), n, "b"), dim=2)
        m.add_part("b", "beam2d", "b", values={"EA": 1.0, "EI": 1.0, "rhoA": 1.0, "rhoI": 0.0})
        m.fix("b_start", ("ux", "uy", "rz"))
    else:
        m = Model(line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n, "b"), dim=3)
        m.add_part("b", "beam3d", "b", values={"EA": 1e4, "GJ": 8.0, "EIy": 10.0, "EIz": 12.0, "rhoA": 1.0,
                                               "rhoIp": 0.02, "rhoIy": 0.01, "rhoIz": 0.012})
        m.fix("b_start", ("ux", "uy", "uz", "rx", "ry", "rz"))
    return m
c = time.process_time()
build_table(chain(2))  # load (or compile) the kernels: not part of the timed build
warm = time.process_time() - c
m = chain(n)
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024
pathlib.Path("/proc/self/clear_refs").write_text("5")
rss0 = status("VmRSS")
u = resource.getrusage(resource.RUSAGE_SELF)
t, c = time.perf_counter(), time.process_time()
tab = build_table(m)
dt, dc = time.perf_counter() - t, time.process_time() - c
v = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"time": dt, "cpu": dc, "warm": warm, "user": v.ru_utime - u.ru_utime, "sys": v.ru_stime - u.ru_stime,
                  "peak": status("VmHWM") - rss0, "n_var": int(tab.n_var), "nnz": int(tab.nnz)}))
"""


def run(n, dim, rev=None, checkout=None, cache=None, pause=0.0):
    """One build in a fresh subprocess (``rev`` None: the current table code; ``checkout``:
    the table code of that femb checkout, run by its own environment with the numba cache
    directory ``cache``), after ``pause`` seconds: its JSON record."""
    time.sleep(pause)
    python, root, env = sys.executable, ROOT, None
    if checkout is not None:
        python, root = str(pathlib.Path(checkout) / ".venv" / "bin" / "python"), pathlib.Path(checkout)
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    out = subprocess.run([python, "-c", CHILD, str(n), str(dim), rev or "-", str(root)], check=True, capture_output=True,
                         text=True, cwd=root, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None):
    """Build every size of each chain (and of the baseline), print the table and the fitted exponents."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--dims", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--baseline", default=None)
    ap.add_argument("--baseline-checkout", default=None)
    ap.add_argument("--pause", type=float, default=0.0)
    a = ap.parse_args(argv)
    versions = {"current": {}}  # label -> the keyword arguments of ``run``
    if a.baseline:
        versions[a.baseline] = {"rev": a.baseline}
    if a.baseline_checkout:
        checkout = pathlib.Path(a.baseline_checkout).resolve()
        versions[checkout.name] = {"checkout": str(checkout), "cache": tempfile.mkdtemp(prefix="numba-baseline-")}
        for dim in a.dims:  # fill the baseline's numba cache (not timed)
            run(2, dim, **versions[checkout.name])
    print("build_table on beam chains (fresh subprocess per build; time = median of repeats); load average "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(f"{'chain':6s} {'version':13s} {'N':>9s} {'DOFs':>9s} {'nnz':>10s} {'wall s':>8s} {'CPU s':>8s} {'user s':>8s} "
          f"{'sys s':>8s} {'B/DOF':>7s}")
    for dim in a.dims:
        times = {v: [] for v in versions}
        cpus = {v: [] for v in versions}
        for n in a.sizes:
            res = {v: [] for v in versions}
            for k in range(a.repeat):  # the versions alternate, and so does which one goes first
                for v, kwargs in (list(versions.items()) if k % 2 == 0 else list(versions.items())[::-1]):
                    res[v].append(run(n, dim, pause=a.pause, **kwargs))
            for v in versions:
                t = float(np.median([r["time"] for r in res[v]]))
                cpu = float(np.median([r["cpu"] for r in res[v]]))
                cpus[v].append(cpu)
                peak = max(r["peak"] for r in res[v])
                r = res[v][0]
                times[v].append(t)
                user = float(np.median([r["user"] for r in res[v]]))
                system = float(np.median([r["sys"] for r in res[v]]))
                print(f"{dim}-D    {v:13s} {n:9d} {r['n_var']:9d} {r['nnz']:10d} {t:8.3f} {cpu:8.3f} {user:8.3f} "
                      f"{system:8.3f} {peak / r['n_var']:7.0f}")
            for v in versions:  # every build, in the order run: user / sys s
                print(f"       {v:13s} runs (user / sys s): " + ", ".join(f"{r['user']:.2f} / {r['sys']:.2f}" for r in res[v]))
        for v in versions:
            if len(a.sizes) > 1:
                k = np.polyfit(np.log(a.sizes), np.log(times[v]), 1)[0]
                kc = np.polyfit(np.log(a.sizes), np.log(cpus[v]), 1)[0]
                print(f"{dim}-D    {v:13s} fitted exponent: wall ∝ N^{k:.2f}, CPU ∝ N^{kc:.2f}")
    print("load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
