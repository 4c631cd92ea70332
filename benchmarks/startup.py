"""Start-up cost of a first 3-D dynamic run: numba compilation (cold) and cache loading (warm).

Runs, in a fresh subprocess, ``import femb`` + spin-up B with 10 beam3d_timoshenko
elements (femb.validation.dynamic3d_cases) for 5 steps of the energy-conserving mid-point
scheme, twice: first with an empty temporary NUMBA_CACHE_DIR (cold: every kernel the run
needs is compiled and written to the cache), then again with that cache (warm: the kernels
are loaded). Reports wall and CPU time of each, and for the cold run the compiled
functions with their signatures and the CPU time spent compiling each
(``time.process_time``, exclusive of the functions it compiled in turn), largest first,
the split of the compile time between numba's front end and LLVM's stages (with the part
of the front end that lowers each function's CPython and C-callable wrappers), and the
LLVM stages per library (each compiled function is one library, finalized with the
modules of all its callees linked in).
``--model`` chooses other first runs: ``spinup3d`` (default), ``step3d`` (the first 3-D
step of benchmarks/startup_time.py: spin-up B with 4 beam3d_timoshenko, one step, mass
"invariant"), ``arm`` (examples/spatial_arm.py, beam3d with joints and rigid bodies,
5 steps), ``planar`` (the planar spin-up with beam2d).

    python benchmarks/startup.py [--model step3d|spinup3d|arm|planar] [--top 25] [--cache DIR]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
import numba.core.event as ev

records = []
stack = []


class Recorder(ev.Listener):
    def on_start(self, event):
        stack.append([time.process_time(), 0.0])

    def on_end(self, event):
        start, inner = stack.pop()
        dt = time.process_time() - start
        if stack:
            stack[-1][1] += dt
        d = event.data or {}
        disp = d.get("dispatcher")
        name = getattr(getattr(disp, "py_func", None), "__qualname__", "?")
        mod = getattr(getattr(disp, "py_func", None), "__module__", "?")
        args = d.get("args", ())
        records.append({"name": f"{mod}.{name}", "sig": [str(x) for x in args], "total": dt, "self": dt - inner,
                        "outer": not stack})


ev.register("numba:compile", Recorder())

# where the compile time goes: LLVM's per-function optimization of each new module, the
# optimization of a library's module with every callee's module linked in, and the
# machine-code emission of that module (numba internals, wrapped for measurement only)
import numba.core.codegen as cg
stages = {"llvm_function_passes": 0.0, "llvm_linked_module_passes": 0.0, "llvm_emit": 0.0}
by_library = {}  # library name -> CPU s of each LLVM stage


def timed(cls, name, key):
    original = getattr(cls, name)

    def wrapper(self, *a, **k):
        t = time.process_time()
        try:
            return original(self, *a, **k)
        finally:
            dt = time.process_time() - t
            stages[key] += dt
            lib = by_library.setdefault(self.name, dict.fromkeys(stages, 0.0))
            lib[key] += dt
    setattr(cls, name, wrapper)


timed(cg.CPUCodeLibrary, "_optimize_functions", "llvm_function_passes")
timed(cg.CPUCodeLibrary, "_optimize_final_module", "llvm_linked_module_passes")
timed(cg.JITCodeLibrary, "_finalize_specific", "llvm_emit")
# part of the front end: the lowering of each function's CPython and C-callable wrappers
import numba.core.lowering as lo
wrappers = {"wrappers": 0.0}


def timed_wrapper(name):
    original = getattr(lo.Lower, name)

    def wrapper(self, *a, **k):
        t = time.process_time()
        try:
            return original(self, *a, **k)
        finally:
            wrappers["wrappers"] += time.process_time() - t
    setattr(lo.Lower, name, wrapper)


timed_wrapper("create_cpython_wrapper")
timed_wrapper("create_cfunc_wrapper")
model = sys.argv[1]
import femb  # noqa: F401
from femb.solvers import solve_dynamic
if model == "step3d":
    from femb.solvers.dynamics.driver import DynamicSettings
    from femb.validation.dynamic3d_cases import spin_up_beam_3d
    solve_dynamic(spin_up_beam_3d(4), 0.01, 0.01, DynamicSettings(mass="invariant"))
elif model == "spinup3d":
    from femb.validation.dynamic3d_cases import spin_up_beam_3d
    solve_dynamic(spin_up_beam_3d(10), 0.01, 0.05, mass="lumped", record_every=5)
elif model == "arm":
    sys.path.insert(0, sys.argv[2] + "/examples")
    import spatial_arm
    spatial_arm.run(spatial_arm.build(), t_end=0.025, record_every=5)
else:
    from femb.validation.models import spin_up_beam
    solve_dynamic(spin_up_beam("B", 10), 0.01, 0.05, record_every=5)
ru = resource.getrusage(resource.RUSAGE_SELF)
from femb.core.jit import PYTHON_TWINS
print(json.dumps({"twins": sorted(PYTHON_TWINS), "wall": time.perf_counter() - t0, "cpu": ru.ru_utime + ru.ru_stime, "records": records, "stages": stages,
                  "libraries": by_library, "wrappers": wrappers["wrappers"]}))
"""


def run(model, cache):
    """The child's wall and CPU s and compile records for one first run of ``model``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", CHILD, model, str(ROOT)], env=env, check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None):
    """Run the cold and the warm child and print the compile table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="spinup3d", choices=["step3d", "spinup3d", "arm", "planar"])
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--cache", default=None, help="cache directory to use (default: a new empty temporary one)")
    a = ap.parse_args(argv)
    cache = pathlib.Path(a.cache) if a.cache else pathlib.Path(tempfile.mkdtemp(prefix="femb-numba-"))
    cold = run(a.model, cache)
    warm = run(a.model, cache)
    recs = cold["records"]
    print(f"first run '{a.model}': cold (empty NUMBA_CACHE_DIR {cache}) and warm (same cache)")
    print(f"  cold: wall {cold['wall']:7.2f} s, CPU {cold['cpu']:7.2f} s, {len(recs)} compilations, "
          f"{sum(r['self'] for r in recs):.2f} CPU s compiling")
    print(f"  warm: wall {warm['wall']:7.2f} s, CPU {warm['cpu']:7.2f} s, {len(warm['records'])} compilations")
    st = cold["stages"]
    llvm = sum(st.values())
    print(f"  cold compile CPU s by stage: numba's front end (bytecode, typing, lowering to LLVM IR) "
          f"{sum(r['self'] for r in recs) - llvm:.2f}; LLVM: per-function passes {st['llvm_function_passes']:.2f}, "
          f"passes over each library with its callees linked in {st['llvm_linked_module_passes']:.2f}, "
          f"machine code {st['llvm_emit']:.2f}")
    print(f"  (of the front end: lowering the CPython and C-callable wrappers of each function "
          f"{cold.get('wrappers', 0.0):.2f})")
    by_name = {}
    outer = set()  # functions whose compilation was started from Python
    for r in recs:
        e = by_name.setdefault(r["name"], [0, 0.0, []])
        e[0] += 1
        e[1] += r["self"]
        e[2].append(r["sig"])
        outer.update([r["name"]] if r.get("outer") else [])
    print(f"\n  compile CPU s per function (exclusive), top {a.top}:")
    print(f"  {'s':>6s} {'n':>3s}  function (* called from Python) [when compiled more than once: the argument types that differ]")
    for name, (n, t, sigs) in sorted(by_name.items(), key=lambda kv: -kv[1][1])[: a.top]:
        extra = ""
        if n > 1:
            diff = [i for i in range(len(sigs[0])) if len({s[i] if i < len(s) else "" for s in sigs}) > 1]
            extra = "  " + " | ".join(", ".join(f"#{i}: {s[i]}" for i in diff) for s in sigs)
        print(f"  {t:6.2f} {n:3d}  {'*' if name in outer else ' '}{name}{extra[:400]}")
    internal = [k for k in by_name if k not in outer and k.startswith("femb")]
    print(f"\n  {len(outer)} functions compiled from Python calls, {len(internal)} femb functions only inside others; "
          f"internal kernels called from Python (Python-callable twins compiled): {cold.get('twins', [])}")
    libs = cold.get("libraries", {})
    print(f"\n  LLVM CPU s per library (function passes, linked-module passes, machine code), top {a.top}:")
    for name, d in sorted(libs.items(), key=lambda kv: -sum(kv[1].values()))[: a.top]:
        print(f"  {sum(d.values()):6.2f}  ({d['llvm_function_passes']:5.2f} {d['llvm_linked_module_passes']:5.2f} "
              f"{d['llvm_emit']:5.2f})  {name}")


if __name__ == "__main__":
    main()
