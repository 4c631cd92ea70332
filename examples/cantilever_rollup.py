"""Cantilever roll-up from a gmsh mesh: the Python-API twin of cantilever_rollup.toml.

An end moment M = 2·π·EI/L bends a clamped beam (meshes/cantilever.msh, 10 co-rotational
beam2d elements) into a full circle. At load factor λ the exact shape is a circular arc
of curvature κ = 2πλ/L, so the tip sits at (sin(κL)/κ, (1 − cos(κL))/κ). The script
prints the largest tip error over the load path and writes a ParaView collection, the
history CSV and run.json to --out.
Usage: python examples/cantilever_rollup.py [--out DIR] [--steps N]
"""
import argparse
from pathlib import Path

import numpy as np

from femb import (
    Material,
    Model,
    NewtonSettings,
    Section,
    read_mesh,
    results_to_vtk,
    solve_static,
    write_history_csv,
    write_run_json,
)

HERE = Path(__file__).resolve().parent


def build(EI=2.0, L=1.0):
    mesh = read_mesh(HERE.parent / "meshes" / "cantilever.msh")
    model = Model(mesh, name="cantilever roll-up")
    model.add_part("beam", "beam2d", "beam", Material(E=1.0), Section(A=1e4, I=EI))
    model.fix("clamp")
    model.point_load("tip", mz=2.0 * np.pi * EI / L)
    return model


def tip_error(model, results, L=1.0):
    """Largest distance / L between computed and exact tip positions over all frames."""
    tip = model.node("tip")
    worst = 0.0
    for lam, u in zip(results.times, results.states):
        k = 2.0 * np.pi * lam / L
        exact = np.array([L, 0.0]) if k == 0 else np.array([np.sin(k * L) / k, (1 - np.cos(k * L)) / k])
        x = model.mesh.points[tip] + [u[results.table.var_of(tip, "ux")], u[results.table.var_of(tip, "uy")]]
        worst = max(worst, float(np.linalg.norm(x - exact)) / L)
    return worst


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="rollup_out")
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args(argv)
    model = build()
    settings = NewtonSettings(tolerance=1e-10)
    results = solve_static(model, steps=args.steps, settings=settings)
    out = Path(args.out)
    results_to_vtk(results, out)
    write_history_csv(results, out / "history.csv")
    write_run_json(out / "run.json", model, results, {"steps": args.steps, "newton": settings})
    print(f"cantilever roll-up, {len(results) - 1} load steps: max tip error / L = {tip_error(model, results):.2e}")
    print(f"results in {out}/ (open results.pvd in ParaView, Warp By Vector 'displacement')")
    return results


if __name__ == "__main__":
    main()
