"""Peer runner for benchmarks/shell_opensees.py and shell_dynamics_opensees.py: solves one
neutral shell problem (JSON on stdin: points, quads, E, nu, t, fixities, nodal loads, load
fractions, tolerance, monitored DOFs; for "analysis": "transient" also rho, dt, steps) with
OpenSeesPy and prints JSON (monitored displacements per load fraction or step, wall time,
Newton iterations, convergence). Run in a subprocess whose LD_LIBRARY_PATH holds the
openseespy package's own lib folder (see shell_opensees.py); never imported by femb."""
import json
import sys
import time

import numpy as np


def _build(ops, job, element, rho, series):
    """Nodes, fixities, shell section (density rho), quads of ``element``, the nodal loads
    under an OpenSees time series ``series`` ("Linear" or "Constant") and the system."""
    ops.wipe()
    ops.model("basic", "-ndm", 3, "-ndf", 6)
    for i, p in enumerate(job["points"]):
        ops.node(i + 1, *map(float, p))
    for i, flags in job["fix"].items():
        ops.fix(int(i) + 1, *flags)
    ops.section("ElasticMembranePlateSection", 1, job["E"], job["nu"], job["t"], rho)
    for k, q in enumerate(job["quads"]):
        nodes = [int(a) + 1 for a in q]
        if element == "ASDShellQ4-corotational":
            ops.element("ASDShellQ4", k + 1, *nodes, 1, "-corotational")
        else:
            ops.element(element, k + 1, *nodes, 1)
    ops.timeSeries(series, 1)
    ops.pattern("Plain", 1, 1)
    for i, values in job["loads"].items():
        ops.load(int(i) + 1, *values)
    ops.constraints("Plain")
    ops.numberer("RCM")
    ops.system(job["system"])


def solve(job):
    """Static load-controlled solve of the neutral shell problem ``job`` with OpenSeesPy."""
    import openseespy.opensees as ops

    t0 = time.perf_counter()
    _build(ops, job, job["element"], 0.0, "Linear")
    fractions = job["fractions"]
    f_norm = float(np.linalg.norm(np.asarray(list(job["loads"].values()), dtype=float)))
    ops.algorithm("Newton")
    ops.integrator("LoadControl", fractions[0])
    ops.analysis("Static")
    out, iterations, ok, previous = [], 0, True, 0.0
    for k, lam in enumerate(fractions):
        # the same criterion as femb: ‖r‖ ≤ tolerance × femb's force scale at λ
        tol = job["abs_tolerances"][k] if "abs_tolerances" in job else job["tolerance"] * f_norm * lam
        ops.test("NormUnbalance", tol, job["max_iterations"], 0)
        ops.integrator("LoadControl", lam - previous)
        previous = lam
        if ops.analyze(1) != 0:
            ok = False
            iterations += ops.testIter()
            break
        iterations += ops.testIter()
        out.append([ops.nodeDisp(int(n) + 1, int(d) + 1) for n, d in job["monitor"]])
    wall = time.perf_counter() - t0
    ops.wipe()
    return {"values": out, "seconds": wall, "iterations": iterations, "converged": ok}


def solve_transient(job):
    """A step load held from t = 0 (Constant time series), Newmark average acceleration
    (γ = ½, β = ¼), Newton with NormUnbalance ≤ the given absolute tolerance per step."""
    import openseespy.opensees as ops

    t0 = time.perf_counter()
    _build(ops, job, "ASDShellQ4-corotational", job["rho"], "Constant")
    ops.test("NormUnbalance", job["abs_tolerance"], job["max_iterations"], 0)
    ops.algorithm("Newton")
    ops.integrator("Newmark", 0.5, 0.25)
    ops.analysis("Transient")
    out, iterations, ok = [], 0, True
    for _ in range(job["steps"]):
        if ops.analyze(1, job["dt"]) != 0:
            ok = False
            break
        iterations += ops.testIter()
        out.append([ops.nodeDisp(int(n) + 1, int(d) + 1) for n, d in job["monitor"]])
    wall = time.perf_counter() - t0
    ops.wipe()
    return {"values": out, "seconds": wall, "iterations": iterations, "converged": ok}


if __name__ == "__main__":
    import contextlib
    import io

    job = json.loads(sys.stdin.read())
    with contextlib.redirect_stdout(io.StringIO()):
        result = solve_transient(job) if job.get("analysis") == "transient" else solve(job)
    sys.stdout.write("RESULT " + json.dumps(result) + "\n")
