"""Per-call cost of the compiled 3-D joint kernels (femb.assembly.joints.spatial_kernels),
side by side with the same module as of another git revision (``--baseline``, default
a78805b), in one process.

For every joint kind two layouts:

  chain   10 rigid bodies in a row (as the rigid chain of benchmarks/peer_suite.py), joint 0
          to ground at the origin, joint k between bodies k−1 and k at their common end
          (attachment offsets from both nodes: the c_b terms), axes alternating;
  ground  one rigid body on a joint to ground at the origin (as the revolute body of
          peer_suite.py: no c_b terms).

At a random state (translations, rotations R_0 and R_1 = cay(ψ) R_0 with |ψ| ≈ 1) each
kernel is called the way the compiled rigid step calls it (``frames``, ``midpoint_frames``,
``evaluate_into``, ``midpoint_stiffness_into``) and the general path's ``hessian``, from
a compiled loop of n calls; one sample = the CPU time (time.process_time) of the loop / n,
the two revisions alternating, ``--repeat`` samples each; the medians are printed per call
and per joint, with their ratio (new / baseline). Before timing, the outputs of both
revisions at the same inputs are compared: equal values (np.array_equal) and the number of
entries whose bits differ (the sign of an exact zero) are printed.

``--compile``: CPU seconds of the first call of each kernel with an empty numba cache,
each revision in a fresh process (the kernels' own compilation, the shared femb.core
helpers included in both).

``--step``: the whole compiled steps of the rigid chain and the revolute body of
benchmarks/peer_suite.py (femb's run there: mid-point scheme, full Newton, τ = 1e-6,
states recorded every 50 steps), once with the current joint kernels and once with the
baseline's (the compiled rigid step, femb.solvers.dynamics.rigid_step_kernels, imported a
second time against the baseline joint module), alternating, ``--repeat`` runs each: CPU
µs per step (the CPU time of the time-stepping loop, ``results.info["cpu_time"]``, over
the steps), medians, and whether the two runs' states and energies are bitwise equal.

Usage: python benchmarks/joint_kernels.py [--baseline REV] [--repeat 7] [--kinds ...] [--compile] [--step]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from revision import module_of_revision  # noqa: E402

from femb.assembly.joints import ConstraintSet  # noqa: E402
from femb.assembly.joints import spatial_kernels as current  # noqa: E402
from femb.core.rotations import cayley_batch, exp_batch  # noqa: E402
from femb.correlation import build_table  # noqa: E402
from femb.mesh import Mesh  # noqa: E402
from femb.model import Model  # noqa: E402

KINDS = ["spherical", "revolute", "universal", "cylindrical", "prismatic"]
KERNELS = ["frames", "midpoint_frames", "evaluate_into", "midpoint_stiffness_into", "hessian"]
PATH = "femb/assembly/joints/spatial_kernels.py"


def chain(kind, n=10):
    """n rods of length 0.5 (centres (0.25 + 0.5 k, 0, 0)), joints at their common ends."""
    centres = np.array([[0.25 + 0.5 * k, 0.0, 0.0] for k in range(n)])
    model = Model(Mesh(centres, {}, {f"b{k}": [k] for k in range(n)}), dim=3, name=f"{kind} chain")
    for k in range(n):
        model.add_discrete(f"body {k}", "rigid_body3d", f"b{k}", m=1.0, Jxx=0.01, Jyy=0.02, Jzz=0.02)
    ay, az = np.array([0.0, 1.0, 0.3]), np.array([0.2, 0.0, 1.0])
    for k in range(n):
        axis = tuple((ay if k % 2 == 0 else az) / np.linalg.norm(ay if k % 2 == 0 else az))
        model.joint3d(kind, f"b{k - 1}" if k else "b0", f"b{k}" if k else None, axis=axis, point=(0.5 * k, 0.0, 0.0), name=f"j{k}")
    return model


def ground(kind):
    """One body at (1, 0, 0.2) on a joint to ground at the origin, skew axis."""
    model = Model(Mesh(np.array([[1.0, 0.0, 0.2]]), {}, {"c": [0]}), dim=3, name=f"{kind} to ground")
    model.add_discrete("body", "rigid_body3d", "c", m=2.0, Jxx=0.1, Jyy=0.3, Jzz=0.35)
    model.joint3d(kind, "c", None, axis=(0.3, -0.5, 0.8), point=(0.0, 0.0, 0.0), name="pivot")
    return model


def inputs(model, seed=3, module=current, clock=None):
    """Argument tuples of each kernel (as the compiled rigid step passes them) at a random
    state, and the output arrays they write; the state's frames come from ``module``'s
    kernels, whose CPU s per call are added into ``clock`` (dict) when given."""

    def call(name, *args):
        t = time.process_time()
        getattr(module, name)(*args)
        if clock is not None:
            clock[name] = clock.get(name, 0.0) + time.process_time() - t

    table = build_table(model)
    (ev,) = ConstraintSet(model, table).evaluators
    rng = np.random.default_rng(seed)
    nn, nj = len(model.mesh.points), ev.kind.size
    R0, R1 = np.empty((nn, 3, 3)), np.empty((nn, 3, 3))
    exp_batch(rng.normal(size=(nn, 3)), R0)
    R1[:] = cayley_batch(rng.normal(scale=0.6, size=(nn, 3))) @ R0
    u = rng.normal(scale=0.1, size=table.n_var)
    lam = rng.normal(size=ev.m)
    a = {k: np.empty((nj, 3, 3)) for k in ("Ra0", "Rb0", "Ra1", "Rb1", "Ram", "Rbm", "Ta", "Tb")}
    call("frames", ev.node_a, ev.node_b, ev.rot_a, ev.rot_b, R0, a["Ra0"], a["Rb0"])
    call("frames", ev.node_a, ev.node_b, ev.rot_a, ev.rot_b, R1, a["Ra1"], a["Rb1"])
    call("midpoint_frames", a["Ra0"], a["Rb0"], a["Ra1"], a["Rb1"], a["Ram"], a["Rbm"], a["Ta"], a["Tb"])
    dm = np.empty((nj, 3))
    phi, vals = np.zeros(ev.m), np.empty(ev.jac_rows.size)
    call("evaluate_into", ev.kind, ev.row0, ev.jac0, ev.Xa, ev.Xb, ev.ta, ev.tb, ev.c, ev.cb, ev.has_cb, ev.frame, u, a["Ram"],
         a["Rbm"], phi, vals, dm, np.empty((7, 3)))
    n_st, n_h = ev._square["midpoint_stiffness"][3], ev._square["hessian"][3]
    args = {
        "frames": (ev.node_a, ev.node_b, ev.rot_a, ev.rot_b, R1, np.empty((nj, 3, 3)), np.empty((nj, 3, 3))),
        "midpoint_frames": (a["Ra0"], a["Rb0"], a["Ra1"], a["Rb1"]) + tuple(np.empty((nj, 3, 3)) for _ in range(4)),
        "evaluate_into": (ev.kind, ev.row0, ev.jac0, ev.Xa, ev.Xb, ev.ta, ev.tb, ev.c, ev.cb, ev.has_cb, ev.frame, u, a["Ra1"],
                          a["Rb1"], np.zeros(ev.m), np.empty(ev.jac_rows.size), np.empty((nj, 3)), np.empty((7, 3))),
        "midpoint_stiffness_into": (ev.kind, ev.row0, ev.blk0, ev.c, ev.cb, ev.has_cb, ev.frame, a["Ram"], a["Rbm"], dm, a["Ra1"],
                                    a["Rb1"], a["Ta"], a["Tb"], lam, np.empty(n_st), np.empty((4, 3)), np.empty((5, 3, 3))),
        "hessian": (ev.kind, ev.row0, ev.blk0, ev.c, ev.cb, ev.has_cb, ev.frame, a["Ram"], a["Rbm"], dm, lam, np.empty(n_h)),
    }
    outputs = {"frames": (5, 6), "midpoint_frames": (4, 5, 6, 7), "evaluate_into": (14, 15, 16),
               "midpoint_stiffness_into": (15,), "hessian": (11,)}
    return args, outputs, nj


def loops(module):
    """Compiled loops of n calls of each kernel of ``module``."""
    out = {}
    for name in KERNELS:
        kernel = getattr(module, name)

        def make(kernel):
            @numba.njit(cache=False)
            def loop(n, args):
                for _ in range(n):
                    kernel(*args)
            return loop

        out[name] = make(kernel)
    return out


def compare(args, outputs, mods):
    """(values equal, entries whose bits differ) of each kernel's outputs over the modules."""
    res = {}
    for name in KERNELS:
        got = []
        for mod in mods:
            a = tuple(x.copy() if i in outputs[name] else x for i, x in enumerate(args[name]))
            getattr(mod, name)(*a)
            got.append([a[i] for i in outputs[name]])
        equal = all(np.array_equal(x, y) for x, y in zip(got[0], got[1]))
        bits = sum(int(np.count_nonzero(x.view(np.int64) != y.view(np.int64))) for x, y in zip(got[0], got[1]))
        res[name] = (equal, bits)
    return res


def time_loops(loop_sets, args, repeat, target=0.02):
    """Median CPU µs per call of each kernel, per module (interleaved samples)."""
    res = [{} for _ in loop_sets]
    for name in KERNELS:
        a = args[name]
        for ls in loop_sets:  # compile and warm up
            ls[name](10, a)
        n = 10
        while True:
            t = time.process_time()
            loop_sets[0][name](n, a)
            if time.process_time() - t > target / 4 or n > 10**7:
                break
            n *= 4
        n = max(10, int(n * target / max(time.process_time() - t, 1e-6)))
        samples = [[] for _ in loop_sets]
        for _ in range(repeat):
            for i, ls in enumerate(loop_sets):
                t = time.process_time()
                ls[name](n, a)
                samples[i].append((time.process_time() - t) / n * 1e6)
        for i in range(len(loop_sets)):
            res[i][name] = statistics.median(samples[i])
    return res


def compile_times(rev):
    """CPU s of the first call of each kernel with an empty numba cache (fresh process)."""
    code = f"""
import sys, time, numpy as np
sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); sys.path.insert(0, {os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')!r})
import joint_kernels as jk
from revision import module_of_revision
mod = jk.current if {rev!r} == "" else module_of_revision({rev!r}, jk.PATH, "femb.assembly.joints.spatial_kernels_baseline")
model = jk.chain("prismatic")
clock = {{}}
args, _, _ = jk.inputs(model, module=mod, clock=clock)
for name in jk.KERNELS[3:]:
    t = time.process_time(); getattr(mod, name)(*args[name]); clock[name] = time.process_time() - t
print(" ".join(f"{{clock[k]:.3f}}" for k in jk.KERNELS))
"""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return [float(x) for x in r.stdout.split()[-len(KERNELS):]]


def step_runs(rev, repeat):
    """Per-step CPU µs of the peer suite's rigid chain and revolute body with the current
    and the baseline joint kernels, alternating; (name, µs baseline, µs current, equal)."""
    import peer_suite as ps

    from femb.solvers.dynamics import rigid_step

    base_joints = "femb.assembly.joints.spatial_kernels_baseline"
    if base_joints not in sys.modules:
        module_of_revision(rev, PATH, base_joints)
    path = "femb/solvers/dynamics/rigid_step_kernels.py"
    base_step = module_of_revision("HEAD", path, "femb.solvers.dynamics.rigid_step_kernels_joint_baseline",
                                   edit=lambda src: src.replace("femb.assembly.joints.spatial_kernels import", f"{base_joints} import"))
    variants = (base_step.rigid_midpoint_steps, rigid_step.rigid_midpoint_steps)
    cases = (("rigid chain (10 bodies)", ps.femb_chain, 2e-3, 0.5), ("revolute body", lambda: ps.jso.pendulum3d(True), 0.02, 4.0))
    out = []
    try:
        for name, build, dt, t_end in cases:
            times, results = ([], []), [None, None]
            for k in range(repeat + 1):  # the first round compiles and is not timed
                for i, kernel in enumerate(variants):
                    rigid_step.rigid_midpoint_steps = kernel
                    res = ps.femb_dynamic_run(build, dt, t_end, 1e-6, "lumped")
                    if k:
                        times[i].append(res.info["cpu_time"] / res.info["steps"] * 1e6)
                    results[i] = res
            equal = all(np.array_equal(a, b) for a, b in zip(results[0].states, results[1].states)) and all(
                np.array_equal(results[0].series(q), results[1].series(q)) for q in ("total_energy", "kinetic_energy"))
            out.append((name, statistics.median(times[0]), statistics.median(times[1]), equal))
    finally:
        rigid_step.rigid_midpoint_steps = variants[1]
    return out


def main(argv=None):
    """Run the comparison (command line ``argv``)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", default="a78805b", help="git revision of spatial_kernels.py to compare against")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--kinds", nargs="*", default=KINDS)
    ap.add_argument("--compile", action="store_true", help="first-call CPU s with an empty numba cache")
    ap.add_argument("--step", action="store_true", help="whole compiled rigid steps of the peer suite's chain and revolute body")
    a = ap.parse_args(argv)
    print(f"load {os.getloadavg()[0]:.2f}/{os.getloadavg()[1]:.2f}/{os.getloadavg()[2]:.2f}, baseline {a.baseline}, "
          f"repeat {a.repeat} (median CPU µs per call, interleaved)")
    base = module_of_revision(a.baseline, PATH, "femb.assembly.joints.spatial_kernels_baseline")
    mods = (base, current)
    loop_sets = [loops(m) for m in mods]
    print(f"{'layout':<22} {'kernel':<24} {'base µs':>8} {'new µs':>8} {'new/base':>8} {'µs/joint':>9}  equal (bits differing)")
    for kind in a.kinds:
        for layout, build in (("chain", chain), ("ground", ground)):
            args, outputs, nj = inputs(build(kind))
            same = compare(args, outputs, mods)
            times = time_loops(loop_sets, args, a.repeat)
            for name in KERNELS:
                tb, tn = times[0][name], times[1][name]
                eq, bits = same[name]
                print(f"{kind + ' ' + layout:<22} {name:<24} {tb:8.3f} {tn:8.3f} {tn / tb:8.2f} {tn / nj:9.3f}  {eq} ({bits})")
    if a.step:
        print("\nwhole compiled steps (CPU µs per step, baseline joint kernels / current, medians):")
        for name, tb, tn, equal in step_runs(a.baseline, a.repeat):
            print(f"  {name:<26} {tb:8.2f} {tn:8.2f}  ratio {tn / tb:.3f}  states and energies bitwise equal: {equal}")
    if a.compile:
        cb, cn = compile_times(a.baseline), compile_times("")
        print("\nfirst call with an empty numba cache, CPU s (baseline / new):")
        for name, x, y in zip(KERNELS, cb, cn):
            print(f"  {name:<24} {x:6.2f} {y:6.2f}")
        print(f"  {'total':<24} {sum(cb):6.2f} {sum(cn):6.2f}")
    print(f"load {os.getloadavg()[0]:.2f}/{os.getloadavg()[1]:.2f}/{os.getloadavg()[2]:.2f} at the end")


if __name__ == "__main__":
    main()
