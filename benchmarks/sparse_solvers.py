"""Sparse direct solvers behind femb's Factorization: SuperLU against MKL PARDISO.

For square shell4 plates (clamped along one edge, the static tangent at a small random
displacement state, i.e. the matrix a Newton iteration of ``solve_static`` factorizes),
and for 3-D beam frames (a grid of beam3d members: wide bandwidth, no band LU), each
factorization + one solve runs in a fresh subprocess with ``FEMB_SPARSE_SOLVER`` set to
``superlu`` or ``pardiso``; the two solvers alternate per repeat (interleaved). Reported:
wall and CPU time of factorization + solve (PARDISO runs on both cores, so its CPU time
is the sum over threads), the peak resident memory of the process added by the
factorization (from ru_maxrss), the relative residual ‖K x − b‖/‖b‖ and the difference
between the two solvers' solutions. Medians of --repeat runs. Nothing is asserted.

Usage: python benchmarks/sparse_solvers.py [--sides 40 80 160 240] [--frames 10 20] [--repeat 3]
Needs ``pip install pypardiso`` (or ``pip install -e ".[pardiso]"``).
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np


def plate_matrix(side):
    """Static tangent (CSR over the equations) of a side × side shell4 plate clamped along x = 0."""
    from femb.assembly import Assembler
    from femb.correlation import build_table
    from femb.mesh import rectangle_mesh
    from femb.model import Material, Model, Section

    mesh = rectangle_mesh(1.0, 1.0, side, side, cells="quad")
    model = Model(mesh)
    model.add_part("plate", "shell4", "plate", Material(E=70e9, nu=0.3, rho=2700.0), Section(thickness=0.01))
    model.fix("plate_x0")
    table = build_table(model)
    u = 1e-6 * np.random.default_rng(2).standard_normal(table.n_var)
    return Assembler(table).tangent(u)[1]


def frame_matrix(cells):
    """A square grid of cells × cells × cells bays of beam3d members (a 3-D lattice frame)
    clamped at its base: a matrix too wide for the band LU."""
    from femb.mesh import CellBlock, Mesh
    from femb.model import Material, Model, Section

    n = cells + 1
    g = np.arange(n, dtype=float)
    X = np.stack(np.meshgrid(g, g, g, indexing="ij"), axis=-1).reshape(-1, 3)
    idx = np.arange(n ** 3).reshape(n, n, n)
    lines = [np.stack([idx[:-1, :, :].ravel(), idx[1:, :, :].ravel()], axis=1),
             np.stack([idx[:, :-1, :].ravel(), idx[:, 1:, :].ravel()], axis=1),
             np.stack([idx[:, :, :-1].ravel(), idx[:, :, 1:].ravel()], axis=1)]
    mesh = Mesh(X, {"frame": CellBlock("line", np.concatenate(lines))}, node_sets={"base": idx[:, :, 0].ravel()})
    model = Model(mesh)
    model.add_part("frame", "beam3d", "frame", Material(E=2.1e11, nu=0.3, rho=7850.0),
                   Section(A=1e-3, I=1e-6, J=2e-6, orientation=(0.3, 0.5, 0.81)))
    model.fix("base")
    from femb.assembly import Assembler
    from femb.correlation import build_table
    table = build_table(model)
    u = 1e-6 * np.random.default_rng(2).standard_normal(table.n_var)
    return Assembler(table).tangent(u)[1]


def worker(kind, size):
    """One factorization + solve in this process; prints a JSON line."""
    from femb.solvers.linalg.factorization import Factorization
    from femb.solvers.linalg.pardiso import use_pardiso

    K = plate_matrix(size) if kind == "plate" else frame_matrix(size)
    n = K.shape[0]
    b = np.random.default_rng(3).standard_normal(n)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    w0, c0 = time.perf_counter(), time.process_time()
    x = Factorization(K).solve(b)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    res = float(np.linalg.norm(K @ x - b) / np.linalg.norm(b))
    np.save(os.environ["FEMB_BENCH_OUT"], x)
    print(json.dumps({"n": n, "nnz": int(K.nnz), "wall": wall, "cpu": cpu, "rss_mb": (rss1 - rss0) / 1024.0,
                      "residual": res, "pardiso": use_pardiso(n)}))


def run(kind, size, solver, out):
    """One worker subprocess with ``solver``; its JSON record (dict)."""
    env = dict(os.environ, FEMB_SPARSE_SOLVER=solver, FEMB_BENCH_OUT=out)
    p = subprocess.run([sys.executable, __file__, "--worker", kind, str(size)], env=env,
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def main(argv=None):
    """Interleaved SuperLU / PARDISO runs for every model size; prints the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sides", type=int, nargs="*", default=[40, 80, 160, 240])
    ap.add_argument("--frames", type=int, nargs="*", default=[10, 20])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker[0], int(args.worker[1]))
        return
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'model':>14} {'equations':>9} {'nnz':>9} | {'SuperLU wall/CPU s':>18} {'MB':>6} | "
          f"{'PARDISO wall/CPU s':>18} {'MB':>6} | {'wall ratio':>10} {'residual S/P':>17} {'|xS-xP|/|x|':>11}")
    cases = [("plate", s) for s in args.sides] + [("frame", c) for c in args.frames]
    tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"femb-sparse-{os.getpid()}")
    for kind, size in cases:
        rows = {"superlu": [], "pardiso": []}
        for _ in range(args.repeat):
            for solver in ("superlu", "pardiso"):
                rows[solver].append(run(kind, size, solver, f"{tmp}-{solver}.npy"))
        xs, xp = np.load(f"{tmp}-superlu.npy"), np.load(f"{tmp}-pardiso.npy")
        med = {s: {k: float(np.median([r[k] for r in rows[s]])) for k in ("wall", "cpu", "rss_mb", "residual")} for s in rows}
        S, P = med["superlu"], med["pardiso"]
        label = f"{kind} {size}" + ("²" if kind == "plate" else "³")
        print(f"{label:>14} {rows['superlu'][0]['n']:>9} {rows['superlu'][0]['nnz']:>9} | "
              f"{S['wall']:>8.3f} / {S['cpu']:>7.3f} {S['rss_mb']:>6.0f} | {P['wall']:>8.3f} / {P['cpu']:>7.3f} {P['rss_mb']:>6.0f} | "
              f"{P['wall'] / S['wall']:>10.2f} {S['residual']:>8.1e}/{P['residual']:>8.1e} "
              f"{np.linalg.norm(xs - xp) / np.linalg.norm(xs):>11.1e}", flush=True)
    for s in ("superlu", "pardiso"):
        if os.path.exists(f"{tmp}-{s}.npy"):
            os.remove(f"{tmp}-{s}.npy")


if __name__ == "__main__":
    main()
