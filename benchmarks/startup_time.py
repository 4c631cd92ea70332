"""femb's start-up cost: a cold first 3-D dynamic run, and warm processes.

Cold: a fresh interpreter with an empty NUMBA_CACHE_DIR (a temporary folder) imports femb,
builds spin-up B with 4 beam3d_timoshenko elements (femb.validation.dynamic3d_cases) and
runs one time step of the energy-conserving mid-point scheme (mass "invariant", as
benchmarks/peer_suite.py) — everything a first 3-D dynamic run compiles. Reported: the
child's CPU seconds (user + sys, from the kernel's accounting of the finished child) and
wall seconds until it ends, and the CPU seconds at the moment the step had finished
(``time.process_time()`` inside the child; the difference is interpreter shutdown).
Then the same child again with the now filled cache (warm). The same two runs of
``femb run examples/spatial_arm.toml --smoke`` (the spinning two-link arm with joints,
springs and dampers: a static sag, then the first recorded frames of its 3-D dynamics),
the first 3-D run a user meets.

Warm: with the cache that ``make`` uses (NUMBA_CACHE_DIR from the environment, else
.venv/numba-cache), filled first by one untimed run of each command, the wall time of

- ``python -c "import femb"``;
- the README's first example ("A first model": the roll-up of a 40-element cantilever in
  20 load steps), its code block extracted from README.md and run as a script;
- ``python examples/cantilever_rollup.py`` (its Python-API twin on the gmsh mesh, writing
  ParaView files to a temporary folder).

Each warm time is the median of ``--repeat`` (3) runs; the load average is printed. The
machine is shared: CPU seconds are the robust number, wall seconds vary with the load.

Usage: python benchmarks/startup_time.py [--repeat 3] [--no-cold] [--no-arm]

(``--no-arm``: without the two spatial-arm runs, the longest part on a loaded machine.)
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FIRST_3D_STEP = r"""
import time, warnings
t0 = time.process_time()
from femb.solvers import solve_dynamic
from femb.solvers.dynamics.driver import DynamicSettings
from femb.validation.dynamic3d_cases import spin_up_beam_3d
t_import = time.process_time()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    res = solve_dynamic(spin_up_beam_3d(4), 0.01, 0.01, DynamicSettings(mass="invariant"))
print("STEP", time.process_time(), t_import, res.info["steps"])
"""


def run_child(args, env, cwd=ROOT):
    """(wall s, child CPU s (user + sys), stdout) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{args!r} failed: {proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def readme_first_example():
    """The code block of the README's "A first model" section."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    section = text.split("## A first model", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def load():
    """The load average, as text."""
    return "load %.2f/%.2f/%.2f" % os.getloadavg()


def main(argv=None):
    """Run the cold and warm measurements; returns the printed lines."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-cold", action="store_true")
    ap.add_argument("--no-arm", action="store_true", help="leave out the cold and second spatial-arm runs")
    args = ap.parse_args(argv)
    py = sys.executable
    lines = [f"femb start-up, {os.cpu_count()} CPUs, {load()} at start"]
    print(lines[0], flush=True)
    if not args.no_cold:
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            for label in ("cold (empty NUMBA_CACHE_DIR)", "same cache, second process"):
                wall, cpu, out = run_child([py, "-c", FIRST_3D_STEP], env)
                step_cpu, import_cpu, _ = out.split("STEP", 1)[1].split()
                line = (f"first 3-D dynamic step (spin-up B, 4 beam3d_timoshenko), {label}: {cpu:.1f} CPU s for the process "
                        f"({float(step_cpu):.1f} CPU s when the step finished, of which import {float(import_cpu):.1f}), {wall:.1f} s wall")
                print(line, flush=True)
                lines.append(line)
        femb_cli = os.path.join(os.path.dirname(py), "femb")
        if os.path.exists(femb_cli) and not args.no_arm:
            with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out_dir:
                env = dict(os.environ, NUMBA_CACHE_DIR=cache)
                for label in ("cold (empty NUMBA_CACHE_DIR)", "same cache, second process"):
                    wall, cpu, _ = run_child([femb_cli, "run", os.path.join("examples", "spatial_arm.toml"), "--smoke", "--out", out_dir], env)
                    line = (f"femb run examples/spatial_arm.toml --smoke (static sag, then the first recorded frames of the 3-D "
                            f"dynamics), {label}: {cpu:.1f} CPU s, {wall:.1f} s wall")
                    print(line, flush=True)
                    lines.append(line)
    env = dict(os.environ)
    env.setdefault("NUMBA_CACHE_DIR", os.path.join(ROOT, ".venv", "numba-cache"))
    with tempfile.TemporaryDirectory() as tmp:
        readme = os.path.join(tmp, "readme_first_model.py")
        with open(readme, "w") as f:
            f.write(readme_first_example())
        commands = [("python -c 'import femb'", [py, "-c", "import femb"]),
                    ("README's first example (A first model)", [py, readme]),
                    ("python examples/cantilever_rollup.py", [py, os.path.join("examples", "cantilever_rollup.py"), "--out", os.path.join(tmp, "out")])]
        for label, cmd in commands:
            run_child(cmd, env)  # fills the cache
            samples = [run_child(cmd, env) for _ in range(args.repeat)]
            wall = statistics.median(s[0] for s in samples)
            cpu = statistics.median(s[1] for s in samples)
            line = f"warm: {label}: {wall:.2f} s wall, {cpu:.2f} CPU s (median of {args.repeat}; {load()})"
            print(line, flush=True)
            lines.append(line)
    lines.append(f"{load()} at the end")
    print(lines[-1])
    return lines


if __name__ == "__main__":
    main()
