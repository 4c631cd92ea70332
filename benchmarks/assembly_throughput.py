"""Assembly throughput of 2-D co-rotational beams and one assembly+solve of ~10^5 DOF.

Reports, for 10^3..10^6 elements: element evaluations per second of the force+tangent
kernel alone, of kernel+scatter (full tangent assembly into the fixed CSR pattern), and
the one-off table build time; then the time of one tangent assembly plus sparse LU solve
for a model of about 10^5 equations. Numbers are printed; nothing is asserted.
Usage: python benchmarks/assembly_throughput.py [--max-elements 1000000]
"""
import argparse
import time

import numpy as np

from femb.assembly import Assembler
from femb.correlation import build_table
from femb.mesh import line_mesh
from femb.model import Material, Model, Section
from femb.solvers import Factorization


def beam_model(n):
    mesh = line_mesh((0.0, 0.0), (1.0, 0.0), n, "beam")
    model = Model(mesh)
    model.add_part("beam", "beam2d", "beam", Material(E=1.0, rho=1.0), Section(A=1e4, I=1.0))
    model.fix("beam_start")
    return model


def best_of(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-elements", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(1)
    print(f"{'elements':>9} {'table [s]':>10} {'kernel [el/s]':>14} {'assembly [el/s]':>16} {'scatter share':>13}")
    n = 1000
    while n <= args.max_elements:
        model = beam_model(n)
        t0 = time.perf_counter()
        table = build_table(model)
        t_table = time.perf_counter() - t0
        asm = Assembler(table)
        u = 1e-3 * rng.standard_normal(table.n_var)
        asm.tangent(u)  # compile / warm up
        block, buf = table.blocks[0], asm._buf[0]
        buf.u[:] = 1e-3 * rng.standard_normal(buf.u.shape)
        t_kernel = best_of(lambda: block.spec.kernels.tangent(block.X, buf.u, block.props, buf.f, buf.K))
        t_asm = best_of(lambda: asm.tangent(u))
        print(f"{n:>9d} {t_table:>10.3f} {n / t_kernel:>14.3e} {n / t_asm:>16.3e} {1 - t_kernel / t_asm:>13.0%}")
        n *= 10
    n_el = 33_334  # 3 DOF per node: ~10^5 equations
    model = beam_model(n_el)
    model.point_load("beam_end", fy=1e-3)
    table = build_table(model)
    asm = Assembler(table)
    u = np.zeros(table.n_var)
    asm.tangent(u)
    t0 = time.perf_counter()
    f, K = asm.tangent(u)
    t1 = time.perf_counter()
    rhs = np.zeros(table.n_eq)
    rhs[-1] = 1.0
    Factorization(K, table).solve(rhs)
    t2 = time.perf_counter()
    print(f"\n{table.n_eq} equations: tangent assembly {t1 - t0:.3f} s, sparse LU factorization + solve {t2 - t1:.3f} s, total {t2 - t0:.3f} s")


if __name__ == "__main__":
    main()
