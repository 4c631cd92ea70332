"""Shell force+tangent throughput: shell3 and shell4 kernels for 10^3…10^6 elements.

For each element count: kernel time per element of force+tangent (the batched numba
kernel alone, at a deformed, rotated state: random nodal displacements and rotations of
~1e-2 on distorted elements), of force alone, the memory of the kernel's inputs and
outputs per element and for the batch, and (up to --max-assembled elements, a square
rectangle_mesh plate) one full tangent assembly through femb's Assembler (kernel + scatter
into the fixed CSR pattern) and the table build. 10^6 elements are evaluated in chunks of
10^5 (the tangent of 10^6 shell4 elements alone is 4.6 GB); the per-element time is the
same loop. Median of --repeat runs; the 1-minute load average is printed (shared machine).
Nothing is asserted.
Usage: python benchmarks/shell_throughput.py [--max-elements 1000000] [--repeat 3]
"""
import argparse
import os
import time

import numpy as np

from femb.assembly import Assembler
from femb.core.rotations import exp_batch
from femb.correlation import build_table
from femb.elements import get_spec
from femb.mesh import rectangle_mesh
from femb.model import Material, Model, Section

CHUNK = 100_000


def batch(element, n, rng):
    """Distorted unit elements in random spatial orientations, with small random nodal
    displacements and rotations: X (n, nn, 3), u (n, 6 nn), R (n, nn, 3, 3), props."""
    nn = 3 if element == "shell3" else 4
    base = np.array([[0.0, 0.0], [1.0, 0.0], [0.9, 1.1], [0.0, 1.0]])[:nn] if nn == 4 else np.array([[0.0, 0.0], [1.0, 0.1], [0.3, 0.9]])
    m = min(n, 1000)  # 1000 distinct elements tiled: the same arithmetic per element
    Q = np.empty((m, 3, 3))
    exp_batch(rng.standard_normal((m, 3)), Q)
    P = np.zeros((m, nn, 3))
    P[:, :, :2] = base + 0.05 * rng.standard_normal((m, nn, 2))
    X = np.einsum("eij,eaj->eai", Q, P)
    u = 1e-2 * rng.standard_normal((m, 6 * nn))
    R = np.empty((m * nn, 3, 3))
    exp_batch(1e-2 * rng.standard_normal((m * nn, 3)), R)
    R = R.reshape(m, nn, 3, 3)
    props = np.tile([70e9, 0.3, 0.01, 2700.0], (m, 1))
    reps = -(-n // m)
    tile = lambda a: np.ascontiguousarray(np.concatenate([a] * reps)[:n])  # noqa: E731
    return tile(X), tile(u), tile(R), tile(props)


def median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def kernel_times(element, n, repeat, rng):
    spec = get_spec(element)
    m = min(n, CHUNK)
    X, u, R, p = batch(element, m, rng)
    nd = u.shape[1]
    f, K = np.empty((m, nd)), np.empty((m, nd, nd))
    spec.kernels.tangent(X[:2], u[:2], R[:2], p[:2], f[:2], K[:2])  # compile
    spec.kernels.internal_force(X[:2], u[:2], R[:2], p[:2], f[:2])
    chunks = n // m

    def tangent():
        for _ in range(chunks):
            spec.kernels.tangent(X, u, R, p, f, K)

    def force():
        for _ in range(chunks):
            spec.kernels.internal_force(X, u, R, p, f)

    per_el_bytes = sum(a[0].nbytes for a in (X, u, R, p)) + f[0].nbytes + K[0].nbytes
    return median_time(tangent, repeat) / n, median_time(force, repeat) / n, per_el_bytes, nd


def assembled(element, n, repeat):
    side = int(round(np.sqrt(n if element == "shell4" else n / 2)))
    mesh = rectangle_mesh(1.0, 1.0, side, side, cells="quad" if element == "shell4" else "triangle")
    model = Model(mesh)
    model.add_part("plate", element, "plate", Material(E=70e9, nu=0.3, rho=2700.0), Section(thickness=0.01))
    model.fix("plate_x0")
    t0 = time.perf_counter()
    table = build_table(model)
    t_table = time.perf_counter() - t0
    asm = Assembler(table)
    u = 1e-4 * np.random.default_rng(2).standard_normal(table.n_var)
    asm.tangent(u)
    t = median_time(lambda: asm.tangent(u), repeat)
    return table.blocks[0].n_elements, t_table, t


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-elements", type=int, default=1_000_000)
    parser.add_argument("--max-assembled", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(1)
    print(f"load average (1 min) at start: {os.getloadavg()[0]:.1f}")
    print(f"{'element':>7} {'elements':>9} {'f+K [µs/el]':>12} {'f [µs/el]':>10} {'el/s (f+K)':>11} {'bytes/el':>9} "
          f"{'batch f+K [MB]':>14} {'assembled: el':>13} {'table [s]':>9} {'tangent [µs/el]':>15}")
    for element in ("shell3", "shell4"):
        n = 1000
        while n <= args.max_elements:
            tk, tf, per_el, nd = kernel_times(element, n, args.repeat, rng)
            row = f"{element:>7} {n:>9d} {1e6 * tk:>12.2f} {1e6 * tf:>10.2f} {1 / tk:>11.3e} {per_el:>9d} {n * per_el / 1e6:>14.1f}"
            if n <= args.max_assembled:
                ne, t_table, t_asm = assembled(element, n, args.repeat)
                row += f" {ne:>13d} {t_table:>9.2f} {1e6 * t_asm / ne:>15.2f}"
            print(row, flush=True)
            n *= 10
    print(f"load average (1 min) at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
