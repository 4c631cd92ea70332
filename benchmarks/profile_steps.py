"""Where femb's time step goes: cProfile of three small dynamic runs (models of
benchmarks/peer_suite.py), top entries by cumulative time.

- 2-D beam step: flexible pendulum, N = 10 beam2d_timoshenko, Δt = 1e-3, 1000 steps;
- 2-D beam step with a prescribed rotation: spin-up B, 10 elements, Δt = 0.01, 300 steps;
- 3-D beam step: spin-up B, 10 beam3d_timoshenko, Δt = 0.01, 300 steps (to t = 3 s);
- jointed rigid step: one rigid_body3d on a skew revolute joint, Δt = 0.02, 200 steps;
- jointed chain: 10 rigid_body3d on 10 revolute joints, Δt = 2e-3, 100 steps.

Energy-conserving mid-point rule, full Newton, the tolerances of peer_suite.py (τ = 1e-6;
the pendulum's rule of flexible_pendulum.py). Each run is done twice unprofiled first
(compilation, caches; the second gives the unprofiled time), then under cProfile; the profiler's own overhead inflates the many
small Python calls (the relative weight of Python glue against compiled kernels is
overstated by about 1.5–2×), so read the shares, not the absolute times.

``--cpu`` clocks the profiler and the step times with CPU (process) time instead of wall
time: on a machine shared with other jobs the wall-clock profile charges their time slices
to whatever femb function was running.

Usage: python benchmarks/profile_steps.py [--top 25] [--case pendulum spinup2d spinup3d revolute chain] [--cpu]
"""
import argparse
import cProfile
import io
import os
import pstats
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))

import flexible_pendulum as fp  # noqa: E402
import joint_step_overhead as jso  # noqa: E402
import peer_suite  # noqa: E402

from femb.solvers import solve_dynamic  # noqa: E402
from femb.solvers.dynamics.driver import DynamicSettings  # noqa: E402
from femb.solvers.nonlinear.newton import NewtonSettings  # noqa: E402
from femb.validation.dynamic3d_cases import spin_up_beam_3d  # noqa: E402
from femb.validation.models import spin_up_beam  # noqa: E402

TAU = 1e-6
CASES = {
    "pendulum": ("flexible pendulum, N = 10 (2-D beam step)", lambda: fp.femb_model(10), 1e-3, 1.0, "invariant", fp.femb_tolerance(10, TAU)),
    "spinup2d": ("spin-up B planar, 10 beam2d elements (2-D beam step, prescribed hub rotation)", lambda: spin_up_beam("B", 10), 0.01, 3.0,
                 "invariant", TAU),
    "spinup3d": ("spin-up B, 10 beam3d_timoshenko (3-D beam step)", lambda: spin_up_beam_3d(10), 0.01, 3.0, "invariant", TAU),
    "revolute": ("one rigid body on a revolute joint (jointed rigid step)", lambda: jso.pendulum3d(True), 0.02, 4.0, "lumped", TAU),
    "chain": ("10 rigid bodies, chain of revolute joints (peer_suite.py model)", peer_suite.femb_chain, 2e-3, 0.2, "lumped", TAU),
}


def run(build, dt, t_end, mass, tol):
    settings = DynamicSettings(mass=mass, record_every=50, newton=NewtonSettings(tolerance=tol, max_iterations=25))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return solve_dynamic(build(), dt, t_end, settings)


def profile(key, top, cpu=False):
    """The report of one case; ``cpu``: CPU (process) time throughout, for the profiler's
    clock and the step times (robust on a machine shared with other jobs)."""
    label, build, dt, t_end, mass, tol = CASES[key]
    clock = "cpu_time" if cpu else "wall_time"
    run(build, dt, t_end, mass, tol)  # warm-up (first calls load or compile kernels)
    res = run(build, dt, t_end, mass, tol)  # the unprofiled time
    plain = res.info[clock] / res.info["steps"]
    pr = cProfile.Profile(time.process_time) if cpu else cProfile.Profile()
    pr.enable()
    res = run(build, dt, t_end, mass, tol)
    pr.disable()
    steps = res.info["steps"]
    buf = io.StringIO()
    st = pstats.Stats(pr, stream=buf)
    st.sort_stats("cumulative").print_stats(top)
    text = buf.getvalue()
    body = text[text.index("ncalls"):] if "ncalls" in text else text
    body = body.replace(os.path.join(HERE, "..") + os.sep, "").replace(os.path.dirname(HERE) + os.sep, "")
    body = body.replace(os.path.dirname(os.path.dirname(np.__file__)) + os.sep, "")  # site-packages
    head = (f"--- {label}: {steps} steps, {res.info['newton_iterations'] / steps:.2f} Newton it/step, "
            f"{1e3 * plain:.3f} ms/step unprofiled, {1e3 * res.info[clock] / steps:.3f} ms/step profiled{' (CPU times)' if cpu else ''} "
            f"(cumulative times below are per run; divide by {steps} for per step)")
    return head + "\n" + body


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--case", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--cpu", action="store_true", help="CPU (process) time for the profiler and the step times instead of wall time")
    args = ap.parse_args(argv)
    print("load %.2f/%.2f/%.2f" % os.getloadavg())
    for key in args.case:
        print(profile(key, args.top, args.cpu), flush=True)


if __name__ == "__main__":
    main()
