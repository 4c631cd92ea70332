"""femb shell4 side by side with OpenSees (the peer) on the same quad meshes.

Cases (femb.validation.shell_models, shell4 quads; the peer gets the same points, cells,
fixities, nodal loads, load fractions and convergence test):
  ss-plate      simply supported square plate (a/t = 100, uz = 0 on the edges), uniform
                pressure (consistent nodal forces), 16 × 16, linear range; centre deflection against Navier's series;
  pinched-cyl   MacNeal–Harder pinched cylinder, octant 16 × 16, linear range; against
                1.8248e-5;
  sze-16x1, sze-32x2  Sze–Liu–Lo cantilever under end shear to P_max = 4 in 10 equal
                increments; tip W and −U against the paper's table (max relative error
                over the path).
Peer elements: ASDShellQ4 (linear cases), ASDShellQ4 with its co-rotational option and
ShellNLDKGQ (nonlinear case; ASDShellQ4 as well on the linear ones). Peer settings:
"default" = ProfileSPD (OpenSees's default system), "best" = UmfPack (sparse LU, the
fastest of its systems here); Newton, RCM numbering, NormUnbalance ‖r‖ ≤ tol·‖f_ext(λ)‖
per increment at the absolute residual femb stops at (femb: ‖r‖ ≤ tol·max(‖f_ext‖,
‖f_int‖), the scale taken from a femb run along the same path; see femb_force_scale).
Timing: wall time of model set-up + analysis inside each process (femb after one warm-up
run that compiles its kernels; the peer's subprocess start-up excluded); repeats
interleaved femb / peer, the median of --repeat reported with the 1-minute load average.
The peer runs in a subprocess with LD_LIBRARY_PATH set to the openseespy package's lib
folder (the package needs it); openseespy is a benchmark-only install, not a femb
dependency.
Usage: python benchmarks/shell_opensees.py [--repeat 3] [--cases ss-plate,pinched-cyl,sze-16x1]
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from femb.solvers import NewtonSettings, solve_static
from femb.validation.shell_models import add_edge_load, add_pressure, navier_center, pinched_cylinder, ss_plate, strip

DOFS = ("ux", "uy", "uz", "rx", "ry", "rz")
W_REF = np.array([1.309, 2.493, 3.488, 4.292, 4.933, 5.444, 5.855, 6.190, 6.467, 6.698])
U_REF = np.array([0.103, 0.381, 0.763, 1.184, 1.604, 2.002, 2.370, 2.705, 3.010, 3.286])
WORKER = Path(__file__).with_name("opensees_shell_worker.py")


def _nodes(mesh, selector):
    return np.atleast_1d(mesh.node_sets[selector] if isinstance(selector, str) else selector).astype(int)


def neutral(mesh, model):
    """Points, quads, fixities and nodal loads of a femb shell4 model (point loads only)."""
    fix = {}
    for f in model.fixed:
        for i in _nodes(mesh, f.nodes):
            flags = fix.setdefault(int(i), [0] * 6)
            for d in f.dofs:
                flags[DOFS.index(d)] = 1
    loads = {}
    for load in model.loads:
        for i in _nodes(mesh, load.nodes):
            vec = loads.setdefault(int(i), [0.0] * 6)
            for d, v in load.values.items():
                vec[DOFS.index(d)] += float(v)
    (quads,) = [np.asarray(c.connectivity) for c in mesh.cells.values()]
    return {"points": np.asarray(mesh.points).tolist(), "quads": quads.tolist(), "fix": fix, "loads": loads}


def case_ss_plate():
    E, NU, T = 1.0e7, 0.3, 0.01  # a/t = 100: the Kirchhoff (Navier) limit of the Mindlin quads
    D = E * T**3 / (12 * (1 - NU**2))
    w_ref = 1e-3 * T
    mesh, model = ss_plate(16, E, NU, T, element="shell4")
    add_pressure(mesh, model, w_ref * D / navier_center())
    c = int(mesh.node_sets["plate_center"][0])
    return dict(mesh=mesh, model=model, E=E, nu=NU, t=T, fractions=[1.0], tolerance=1e-7, monitor=[(c, 2)],
                error=lambda v: abs(v[-1][0] / w_ref - 1.0), linear=True)


def case_pinched_cylinder():
    scale = 1e3
    mesh, model = pinched_cylinder(16, scale=scale, element="shell4")
    c = int(mesh.node_sets["panel_c10"][0])
    return dict(mesh=mesh, model=model, E=3e6, nu=0.3, t=3.0, fractions=[1.0], tolerance=1e-7, monitor=[(c, 2)],
                error=lambda v: abs(-v[-1][0] / scale / 1.8248e-5 - 1.0), linear=True)


def case_sze(nx, ny):
    def build():
        mesh, model = strip(nx, ny, element="shell4")
        add_edge_load(mesh, model, "plate_x1", 4.0, "fz")
        return mesh, model
    mesh, model = build()
    tip = [int(i) for i in mesh.node_sets["plate_x1"]]

    def error(values):
        v = np.asarray(values)
        if len(v) < 10:
            return float("nan")
        W = v[:, [2 * k for k in range(len(tip))]].mean(axis=1)
        U = -v[:, [2 * k + 1 for k in range(len(tip))]].mean(axis=1)
        return float(max(np.abs(W / W_REF - 1).max(), np.abs(U / U_REF - 1).max()))
    return dict(mesh=mesh, model=model, E=1.2e6, nu=0.0, t=0.1, fractions=list(np.linspace(0.1, 1.0, 10)),
                tolerance=1e-8, monitor=[(i, d) for i in tip for d in (2, 0)], error=error, linear=False, build=build)


CASES = {"ss-plate": case_ss_plate, "pinched-cyl": case_pinched_cylinder,
         "sze-16x1": lambda: case_sze(16, 1), "sze-32x2": lambda: case_sze(32, 2)}


_SCALES = {}


def femb_force_scale(name):
    """(λ, femb's residual scale) along the case's path: max(‖f_ext‖, ‖f_int‖), ‖f_int‖² =
    ‖f_ext‖² + ‖reactions‖² at equilibrium; the peer's absolute NormUnbalance tolerance is
    tolerance × this scale, so both codes stop at the same residual."""
    if name not in _SCALES:
        c = CASES[name]()
        res = solve_static(c["model"], load_factors=c["fractions"], settings=NewtonSettings(tolerance=c["tolerance"]))
        f_ext = np.linalg.norm(np.asarray([v for v in neutral(c["mesh"], c["model"])["loads"].values()]))
        lam = np.asarray(res.times, dtype=float)
        reac = np.array([np.linalg.norm(r) for r in res.arrays["reactions"]])
        _SCALES[name] = (np.concatenate([[0.0], lam]), np.concatenate([[0.0], np.hypot(lam * f_ext, reac)]))
    return _SCALES[name]


def run_femb(name):
    t0 = time.perf_counter()
    c = CASES[name]()  # model set-up (mesh, model) inside the timing
    settings = NewtonSettings(tolerance=c["tolerance"], increment_tolerance=1e-10 if c["linear"] else 1e-12)
    res = solve_static(c["model"], load_factors=c["fractions"], settings=settings)
    wall = time.perf_counter() - t0
    times = np.asarray(res.times)
    values = []
    for lam in c["fractions"]:
        d = res.nodal_displacements(int(np.argmin(np.abs(times - lam))))
        values.append([float(d[i, k]) for i, k in c["monitor"]])
    return {"seconds": wall, "iterations": int(res.info["newton_iterations"]), "error": c["error"](values), "converged": True}


def opensees_env():
    import importlib.util

    spec = importlib.util.find_spec("openseespylinux")
    if spec is None:
        raise SystemExit("openseespy is not installed in this environment (pip install openseespy: benchmark only)")
    lib = Path(spec.origin).parent / "lib"
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = f"{lib}:{env.get('LD_LIBRARY_PATH', '')}".rstrip(":")
    return env


def run_peer(name, element, system, increments, env):
    c = CASES[name]()
    job = neutral(c["mesh"], c["model"])
    fractions = [float(x) for x in c["fractions"]]
    every = 1
    if increments is not None and increments != len(fractions):  # finer increments; judged at the case's fractions
        every = increments // len(fractions)
        fractions = [float(x) for x in np.linspace(1.0 / increments, 1.0, increments)]
    lam, scale = femb_force_scale(name)
    job.update(abs_tolerances=[float(c["tolerance"] * np.interp(f, lam, scale)) for f in fractions])
    job.update(E=c["E"], nu=c["nu"], t=c["t"], fractions=fractions, tolerance=c["tolerance"],
               monitor=c["monitor"], element=element, system=system, max_iterations=50)
    proc = subprocess.run([sys.executable, str(WORKER)], input=json.dumps(job), capture_output=True, text=True, env=env, timeout=1800)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if not line:
        return {"seconds": float("nan"), "iterations": 0, "error": float("nan"), "converged": False, "note": proc.stderr[-300:]}
    r = json.loads(line[-1][len("RESULT "):])
    r["error"] = c["error"](r["values"][every - 1::every]) if r["values"] else float("nan")
    r["reached"] = fractions[len(r["values"]) - 1] if r["values"] else 0.0
    return r


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cases", default="ss-plate,pinched-cyl,sze-16x1,sze-32x2")
    parser.add_argument("--json", default=None, help="also write the rows to this file")
    args = parser.parse_args(argv)
    env = opensees_env()
    rows = []
    for name in args.cases.split(","):
        linear = CASES[name]()["linear"]
        n_inc = len(CASES[name]()["fractions"])
        peers = [("ASDShellQ4", "ProfileSPD", n_inc), ("ASDShellQ4", "UmfPack", n_inc)] if linear else \
                [("ASDShellQ4-corotational", "ProfileSPD", n_inc), ("ASDShellQ4-corotational", "UmfPack", n_inc),
                 ("ShellNLDKGQ", "UmfPack", n_inc), ("ASDShellQ4-corotational", "UmfPack", 10 * n_inc),
                 ("ShellNLDKGQ", "UmfPack", 10 * n_inc)]
        run_femb(name)  # warm-up: kernel compilation
        samples = {"femb": []} | {p: [] for p in peers}
        loads = []
        for _ in range(args.repeat):  # interleaved
            samples["femb"].append(run_femb(name))
            for p in peers:
                samples[p].append(run_peer(name, *p, env))
            loads.append(os.getloadavg()[0])
        femb_t = float(np.median([s["seconds"] for s in samples["femb"]]))
        for key, runs in samples.items():
            label = f"femb shell4, {len(CASES[name]()['fractions'])} inc" if key == "femb" else f"{key[0]} ({key[1]}, {key[2]} inc)"
            t = float(np.median([s["seconds"] for s in runs]))
            last = runs[-1]
            rows.append({"case": name, "code": label, "seconds": t, "femb_over_peer": femb_t / t if key != "femb" else 1.0,
                         "error": last["error"], "iterations": last["iterations"], "converged": last["converged"],
                         "reached": last.get("reached", 1.0), "load_avg": float(np.median(loads))})
            r = rows[-1]
            print(f"{name:12s} {label:38s} {t:8.3f} s  femb/peer {r['femb_over_peer']:6.2f}  error {r['error']:.2e}  "
                  f"iterations {r['iterations']:4d}  {'ok' if r['converged'] else 'stopped after λ = %.2f' % r['reached']}  "
                  f"load {r['load_avg']:.1f}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
