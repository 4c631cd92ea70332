"""Peer runner for benchmarks/shell_opensees.py and shell_dynamics_opensees.py: solves one
neutral shell problem (JSON on stdin: points, quads, E, nu, t, fixities, nodal loads, load
fractions, tolerance, monitored DOFs; for "analysis": "transient" also rho, dt, steps) with
OpenSeesPy and prints JSON (monitored displacements per load fraction or step, wall time,
Newton iterations, convergence; transient runs also the energy balance, see
``_energy_terms``). Run in a subprocess whose LD_LIBRARY_PATH holds the
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


# ASDShellQ4's "stresses" and "strains" per Gauss point: N11 N22 N12 M11 M22 M12 Q13 Q23
# and their strains; the moments come out with the opposite sign of the curvatures (M·κ < 0
# under any bending), so the work of a point is N·ε − M·κ + Q·γ
_WORK_SIGNS = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0, 1.0, 1.0])


def _gauss_areas(job):
    """Per quad, the area weights w·det J of its 2 × 2 Gauss points (bilinear map of the
    flat reference quad, points in the order (−,−), (+,−), (+,+), (−,+))."""
    g = 1.0 / np.sqrt(3.0)
    gps = [(-g, -g), (g, -g), (g, g), (-g, g)]
    pts = np.asarray(job["points"], dtype=float)
    out = []
    for q in job["quads"]:
        x = pts[list(q)]
        e1 = x[1] - x[0]
        e1 /= np.linalg.norm(e1)
        n = np.cross(x[1] - x[0], x[3] - x[0])
        e2 = np.cross(n / np.linalg.norm(n), e1)
        xy = np.column_stack([(x - x[0]) @ e1, (x - x[0]) @ e2])
        w = []
        for xi, eta in gps:
            dn = 0.25 * np.array([[-(1 - eta), (1 - eta), (1 + eta), -(1 + eta)],
                                  [-(1 - xi), -(1 + xi), (1 + xi), (1 - xi)]])
            w.append(abs(np.linalg.det(dn @ xy)))
        out.append(w)
    return np.asarray(out)


def _lumped_masses(job):
    """Nodal translational masses of ASDShellQ4's lumped mass, ρ t A / 4 to each corner of
    a quad (it has no rotary mass: checked against the GimmeMCK mass matrix)."""
    m = np.zeros(len(job["points"]))
    for q, w in zip(job["quads"], _gauss_areas(job)):
        m[list(q)] += job["rho"] * job["t"] * w.sum() / 4.0
    return m


def _energy_terms(ops, job, masses, areas):
    """(kinetic, strain, external work) of the current state. Kinetic ½ Σ m_a |v_a|² with
    the element's lumped translational mass. Strain energy Σ_gp ½ s·e w det J of the
    section's generalized stresses s and strains e (membrane, bending, transverse shear)
    that ASDShellQ4 reports at its Gauss points in the co-rotated frame: its elastic local
    energy (signs ``_WORK_SIGNS``). Checked on the benchmark strip statically: it equals
    the work ∫λF·du of the load path up to the benchmark's load (tip swing a third of the
    length) to 7e-7 with 200 load increments, and to 5e-8 up to a quarter of the load with
    800 (the Newton tolerance). External work of the dead loads
    held from t = 0: Σ F·u."""
    kinetic = 0.0
    for a, m in enumerate(masses):
        v = ops.nodeVel(a + 1)
        kinetic += 0.5 * m * (v[0] ** 2 + v[1] ** 2 + v[2] ** 2)
    strain = 0.0
    for k, w in enumerate(areas):
        s = np.asarray(ops.eleResponse(k + 1, "stresses")).reshape(4, -1)
        e = np.asarray(ops.eleResponse(k + 1, "strains")).reshape(4, -1)
        strain += 0.5 * float(np.sum(np.sum(s * e * _WORK_SIGNS, axis=1) * w))
    work = sum(float(np.dot(values, ops.nodeDisp(int(i) + 1))) for i, values in job["loads"].items())
    return kinetic, strain, work


def solve_transient(job):
    """A step load held from t = 0 (Constant time series), Newmark average acceleration
    (γ = ½, β = ¼), Newton with NormUnbalance ≤ the given absolute tolerance per step.
    With ``job["energy"]`` also the energy terms of every step (``_energy_terms``), their
    evaluation time taken out of the reported ``seconds`` (``energy_seconds``)."""
    import openseespy.opensees as ops

    t0 = time.perf_counter()
    _build(ops, job, "ASDShellQ4-corotational", job["rho"], "Constant")
    ops.test("NormUnbalance", job["abs_tolerance"], job["max_iterations"], 0)
    ops.algorithm("Newton")
    ops.integrator("Newmark", 0.5, 0.25)
    ops.analysis("Transient")
    energy = bool(job.get("energy", False))
    energy_seconds = 0.0
    if energy:
        t_e = time.perf_counter()
        masses, areas = _lumped_masses(job), _gauss_areas(job)
        energy_seconds = time.perf_counter() - t_e
    out, terms, iterations, ok = [], [], 0, True
    for _ in range(job["steps"]):
        if ops.analyze(1, job["dt"]) != 0:
            ok = False
            break
        iterations += ops.testIter()
        out.append([ops.nodeDisp(int(n) + 1, int(d) + 1) for n, d in job["monitor"]])
        if energy:
            t_e = time.perf_counter()
            terms.append(_energy_terms(ops, job, masses, areas))
            energy_seconds += time.perf_counter() - t_e
    wall = time.perf_counter() - t0
    ops.wipe()
    result = {"values": out, "seconds": wall, "iterations": iterations, "converged": ok}
    if energy:
        result.update(seconds=wall - energy_seconds, energy_seconds=energy_seconds, energy_terms=terms)
    return result


if __name__ == "__main__":
    import contextlib
    import io

    job = json.loads(sys.stdin.read())
    with contextlib.redirect_stdout(io.StringIO()):
        result = solve_transient(job) if job.get("analysis") == "transient" else solve(job)
    sys.stdout.write("RESULT " + json.dumps(result) + "\n")
