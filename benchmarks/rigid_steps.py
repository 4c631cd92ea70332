"""CPU time per step of femb's compiled jointed rigid-body steps, as the peer suite runs them.

The two rigid rows of benchmarks/peer_suite.py (``revolute``: one body on a skew revolute
joint, Δt = 0.02, 200 steps; ``chain``: ten bodies in a chain of revolute joints, Δt = 2e-3,
250 steps), lumped mass, τ = 1e-6, a frame every 50th step, each run on a freshly built
model (``solve_dynamic``'s own CPU clock, ``info["cpu_time"]``). Printed per row: the median
CPU µs per step of ``--runs`` runs, the share spent inside the compiled step kernel
(``rigid_midpoint_steps``, dispatch included) and the Newton iterations.

``--alone`` times the kernel alone instead: the first kernel call of a run (50 steps from the
start state) repeated on copies of its arguments, the minimum over 25 samples of the fastest
of 3 calls, CPU µs per step.

``--dump FILE.npz`` also writes every recorded array of one run per row (frames, rotations,
multipliers, histories) recording every step and every 50th, for a bit-for-bit comparison of
two versions of femb (``--compare A.npz B.npz``).

    python benchmarks/rigid_steps.py --runs 40 revolute chain
    python benchmarks/rigid_steps.py --alone revolute chain
    python benchmarks/rigid_steps.py --dump out.npz revolute chain
    python benchmarks/rigid_steps.py --compare base.npz branch.npz
"""
import argparse
import os
import statistics
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from femb.solvers import solve_dynamic  # noqa: E402
from femb.solvers.dynamics import rigid_step  # noqa: E402
from femb.solvers.dynamics.driver import DynamicSettings  # noqa: E402
from femb.solvers.nonlinear.newton import NewtonSettings  # noqa: E402

ROWS = {"revolute": (0.02, 4.0), "chain": (2e-3, 0.5)}


def build(row):
    """A fresh model of the peer suite's row ``row``."""
    if row == "revolute":
        import joint_step_overhead as jso
        return jso.pendulum3d(True)
    import peer_suite
    return peer_suite.femb_chain()


def run(row, every=50):
    """``solve_dynamic`` of a fresh model of ``row`` as the peer suite runs it, a frame every ``every`` steps."""
    dt, t_end = ROWS[row]
    settings = DynamicSettings(mass="lumped", record_every=every, scheme="midpoint",
                               newton=NewtonSettings(tolerance=1e-6, max_iterations=25))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return solve_dynamic(build(row), dt, t_end, settings)


class KernelClock:
    """CPU seconds spent in ``rigid_midpoint_steps`` calls (wraps the name rigid_step uses)."""

    def __init__(self):
        self.kernel = rigid_step.rigid_midpoint_steps
        self.seconds = 0.0

    def __call__(self, *args):
        """Call the kernel, adding its CPU time."""
        c = time.process_time()
        out = self.kernel(*args)
        self.seconds += time.process_time() - c
        return out


def timing(rows, runs):
    """Print the median CPU µs per step of ``runs`` runs of each row, whole run and kernel."""
    clock = KernelClock()
    rigid_step.rigid_midpoint_steps = clock
    for row in rows:
        run(row)  # warm (compile or load the kernels)
        per_step, kernel, its = [], [], 0
        for _ in range(runs):
            clock.seconds = 0.0
            res = run(row)
            n = res.info["steps"]
            per_step.append(1e6 * res.info["cpu_time"] / n)
            kernel.append(1e6 * clock.seconds / n)
            its = res.info["newton_iterations"] / n
        print(f"{row:9s} run {statistics.median(per_step):8.3f} µs/step CPU, kernel {statistics.median(kernel):8.3f}, "
              f"outside {statistics.median(per_step) - statistics.median(kernel):7.3f}, Newton it./step {its:.3f} "
              f"(median of {runs}, load {os.getloadavg()[0]:.2f})", flush=True)
    rigid_step.rigid_midpoint_steps = clock.kernel


def alone(rows, samples=25, calls=3):
    """Print the CPU µs per step of each row's first kernel call repeated from its start
    (the minimum over ``samples`` of the fastest of ``calls`` calls on fresh copies)."""
    kernel, first = rigid_step.rigid_midpoint_steps, []

    def capture(*args):
        if not first:
            first.append([a.copy() if isinstance(a, np.ndarray) else a for a in args])
        return kernel(*args)

    for row in rows:
        first.clear()
        rigid_step.rigid_midpoint_steps = capture
        try:
            run(row)
        finally:
            rigid_step.rigid_midpoint_steps = kernel
        args, best = first[0], []
        for _ in range(samples):
            fastest = np.inf
            for _ in range(calls):
                copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
                c = time.process_time()
                kernel(*copies)
                fastest = min(fastest, time.process_time() - c)
            best.append(fastest)
        n = args[7].size  # the call's step sizes hs
        print(f"{row:9s} kernel alone {1e6 * min(best) / n:8.3f} µs/step CPU (min of {samples}; median "
              f"{1e6 * statistics.median(best) / n:.3f}; {n} steps per call, load {os.getloadavg()[0]:.2f})", flush=True)


def dump(rows, path):
    """Write every recorded array of the rows' runs (a frame every step and every 50th) to ``path``."""
    out = {}
    for row in rows:
        for every in (1, 50):
            res = run(row, every)
            key = f"{row}_{every}"
            out[f"{key}_t"] = np.asarray(res.times)
            out[f"{key}_u"] = np.asarray(res.states)
            out[f"{key}_v"] = np.asarray(res.velocities)
            for name, frames in res.arrays.items():
                out[f"{key}_arr_{name}"] = np.asarray(frames)
            for name in res.history:
                out[f"{key}_hist_{name}"] = np.asarray(res.series(name))
            out[f"{key}_its"] = np.array([res.info["newton_iterations"]])
    np.savez(path, **out)
    print(f"{len(out)} arrays written to {path}")


def compare(a, b):
    """Whether the dumps ``a`` and ``b`` hold the same arrays bit for bit (printed)."""
    A, B = np.load(a), np.load(b)
    keys = sorted(set(A.files) | set(B.files))
    bad = [k for k in keys if k not in A.files or k not in B.files or A[k].shape != B[k].shape
           or not np.array_equal(A[k], B[k]) or not np.array_equal(np.signbit(A[k]), np.signbit(B[k]))]
    print(f"{len(keys) - len(bad)} of {len(keys)} arrays bitwise equal (signs of zeros included)")
    for k in bad:
        print("  differs:", k)
    return not bad


def main(argv=None):
    """Command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", nargs="*", help="revolute, chain (default: both)")
    ap.add_argument("--runs", type=int, default=20, help="timed runs per row (median)")
    ap.add_argument("--alone", action="store_true", help="time the kernel alone (a run's first call repeated)")
    ap.add_argument("--dump", help="write the recorded arrays to this .npz instead of timing")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two dumps bit for bit")
    args = ap.parse_args(argv)
    if args.compare:
        return 0 if compare(*args.compare) else 1
    if args.dump:
        dump(args.rows or list(ROWS), args.dump)
        return 0
    if args.alone:
        alone(args.rows or list(ROWS))
        return 0
    timing(args.rows or list(ROWS), args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
