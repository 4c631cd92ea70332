"""Newton iterations, tangent assemblies, residual evaluations and factorizations per load
step of femb's static solvers (the 2-D roll-up and 3-D bend, the shell plate).

Cases (the models of the validation cases and of peer_suite.py / shell_opensees.py):
  rollup2d-N-S   2-D roll-up (peer_suite.py model: beam2d_timoshenko, EA = GA = 1e4 EI/L²,
                 end moment 2πEI/L), N elements, S equal load steps, τ = 1e-8
  rollup3d-N     3-D roll-up about global y (validation/rollup-3d model, beam3d, 20 steps,
                 default tolerance)
  shell-rollup   shell3 strip 12 × 1 rolled up by an end moment in 8 steps (validation/shell-rollup, τ = 1e-8)
  ss-plate       shell4 simply supported plate 16 × 16 under pressure, one increment (shell_opensees.py, τ = 1e-7)
  arch           two-bar truss arch traced by arc-length (validation/truss-arch-snap-through)

Counts are totals over the run divided by the load steps (increments for arc-length); the
per-step iteration list is printed too. Nothing is timed: the counts are the work.
Usage: python benchmarks/static_iterations.py [case ...]
"""
import argparse
import contextlib
import warnings

import numpy as np

from femb.assembly import Assembler
from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers import ArcLengthSettings, NewtonSettings, solve_arclength, solve_static
from femb.solvers.nonlinear import newton as newton_module
from femb.solvers.statics import arclength as arclength_module


class Counter:
    """Counts tangent assemblies, internal-force evaluations and sparse factorizations."""

    def __init__(self):
        self.counts = dict(tangents=0, residuals=0, factorizations=0)

    @contextlib.contextmanager
    def active(self):
        """Count while the block runs (class attributes patched, restored after)."""
        counts = self.counts
        tangent, force = Assembler.tangent, Assembler.internal_force
        fact, factorize = arclength_module.Factorization, newton_module.factorize

        def counted_tangent(self, *a, **k):
            counts["tangents"] += 1
            return tangent(self, *a, **k)

        def counted_force(self, *a, **k):
            counts["residuals"] += 1
            return force(self, *a, **k)

        def counted_factorize(*a, **k):
            counts["factorizations"] += 1
            return factorize(*a, **k)

        class CountedFactorization(fact):
            def __init__(self, *a, **k):
                counts["factorizations"] += 1
                super().__init__(*a, **k)

        Assembler.tangent, Assembler.internal_force = counted_tangent, counted_force
        arclength_module.Factorization, newton_module.factorize = CountedFactorization, counted_factorize
        try:
            yield
        finally:
            Assembler.tangent, Assembler.internal_force = tangent, force
            arclength_module.Factorization, newton_module.factorize = fact, factorize


def rollup2d(n, steps):
    """Solver of the peer_suite.py roll-up, n elements, equal load steps."""
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), n, "beam"), name="roll-up")
    model.add_part("beam", "beam2d_timoshenko", "beam", values=dict(EA=1e4, EI=1.0, GAs=1e4, rhoA=1.0, rhoI=1e-3))
    model.fix("beam_start")
    model.point_load("beam_end", mz=2.0 * np.pi)
    return lambda: solve_static(model, steps=steps, settings=NewtonSettings(tolerance=1e-8, max_iterations=25))


def rollup3d(n):
    """Solver of the validation/rollup-3d roll-up about y, n beam3d elements, 20 steps."""
    from femb.validation.models import cantilever3d
    model = cantilever3d(n, length=1.0, EIy=2.0, EIz=3.0, GJ=1.5, EA=1.0e7)
    model.point_load("beam_end", my=2.0 * np.pi * 2.0)
    return lambda: solve_static(model, steps=20)


def shell_rollup():
    """Solver of the validation/shell-rollup strip (shell3, 12 × 1), 8 steps."""
    from femb.validation.shell_models import strip
    E, B, T, L = 1.2e6, 1.0, 0.1, 12.0
    _, model = strip(12, 1, L=L, b=B, t=T, E=E)
    model.point_load("plate_x1", my=-np.pi * E * B * T**3 / 12 / L)
    return lambda: solve_static(model, steps=8, settings=NewtonSettings(tolerance=1e-8))


def ss_plate():
    """Solver of the shell_opensees.py simply supported plate (shell4, 16 × 16)."""
    from femb.validation.shell_models import add_pressure, navier_center
    from femb.validation.shell_models import ss_plate as plate
    E, NU, T = 1.0e7, 0.3, 0.01
    D = E * T**3 / (12 * (1 - NU**2))
    mesh, model = plate(16, E, NU, T, element="shell4")
    add_pressure(mesh, model, 1e-3 * T * D / navier_center())
    return lambda: solve_static(model, load_factors=[1.0], settings=NewtonSettings(tolerance=1e-7, increment_tolerance=1e-10))


def arch():
    """Solver of the validation/truss-arch-snap-through arc-length run."""
    from femb.validation.models import two_bar_arch
    model = two_bar_arch(a=1.0, h=0.1, EA=1.0e4)
    apex = model.node("apex")
    settings = ArcLengthSettings(initial_load_factor=2.0, max_arc_length=0.1 / 50, max_steps=400,
                                 stop=lambda res: -res.dof(apex, "uy", -1) > 0.22)
    return lambda: solve_arclength(model, settings)


CASES = {f"rollup2d-{n}-{s}": (lambda n=n, s=s: rollup2d(n, s)) for n in (10, 40) for s in (10, 20)}
CASES |= {"rollup3d-8": lambda: rollup3d(8), "shell-rollup": shell_rollup, "ss-plate": ss_plate, "arch": arch}


def count(name):
    """(steps, per-step iterations, counts dict) of one case."""
    solve = CASES[name]()
    counter = Counter()
    with warnings.catch_warnings(), counter.active():
        warnings.simplefilter("ignore")
        res = solve()
    its = [int(i) for i in res.series("iterations")[1:]]
    return len(its), its, counter.counts


def main(argv=None):
    """Print one row of counts per case."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", default=list(CASES))
    args = ap.parse_args(argv)
    print(f"{'case':16s} {'steps':>5s} {'its/step':>8s} {'tangents/step':>13s} {'residuals/step':>14s} {'LU/step':>7s}  iterations")
    for name in args.cases:
        n, its, c = count(name)
        print(f"{name:16s} {n:5d} {sum(its) / n:8.2f} {c['tangents'] / n:13.2f} {c['residuals'] / n:14.2f} "
              f"{c['factorizations'] / n:7.2f}  {its if n <= 20 else its[:20] + ['...']}", flush=True)


if __name__ == "__main__":
    main()
