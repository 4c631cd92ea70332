"""Energy of shell models under the mid-point scheme and the α schemes, at steps
far above the explicit stability limit.

Cases (femb.validation.shell_dynamics_cases):

- ``plate``: the free L-plate of validation/shell-free-flight (shell4, steel, t = 10 mm),
  tumbling and hit by force/moment pulses during 2 ms, then free: the total energy after
  the pulse must stay constant; steps Δt = 0.5 ms and 1 ms (420 and 840 times the
  explicit limit; at 2 ms the pulse would fall between two steps);
- ``strip``: spin-up B as a shell strip (validation/shell-strip-spinup, 16 shell4), the
  hub driven: the energy residual (E − E0 − work of the driver) must stay zero; Δt =
  0.01 s and 0.04 s, first ``--strip-t-end`` s;
- ``spin``: a stiff free plate (1 × 0.6 m, t = 10 mm, E = 2e13 Pa, 3 × 2 shell4) in a
  steady spin of 1 rad/s about its in-plane x axis through the centroid, 30 steps of
  ωΔt = 0.1, 0.5 and 1 rad (tests/solvers/test_dynamic_shells.py's rigid-spin model): the
  energy must stay constant and the strain energy at the centrifugal level.

Schemes: the energy-momentum mid-point (femb default), Newmark average acceleration (β = ¼,
γ = ½), generalized-α ρ∞ = 0.8 and 0.5 (Lie-group α, femb.solvers.dynamics.alpha3d). For
each run: the relative energy error at a few times, Newton iterations per step, cut-backs
and what failed. Nothing is asserted.

    python benchmarks/shell_scheme_energy.py [--cases plate strip spin] [--plate-steps 400] [--strip-t-end 4]
"""
import argparse
import logging
import time

import numpy as np

from femb import GeneralizedAlpha, Material, MidPoint, Model, Newmark, Section, rectangle_mesh, solve_dynamic
from femb.validation.shell_dynamics_cases import PULSE_END, explicit_limit, free_l_plate, spin_up_strip

SCHEMES = {"midpoint": MidPoint, "newmark": Newmark, "genalpha-0.8": lambda: GeneralizedAlpha(rho_inf=0.8),
           "genalpha-0.5": lambda: GeneralizedAlpha(rho_inf=0.5)}


def run(model, dt, t_end, scheme, t_ref):
    """(times ≥ t_ref, relative energy error since t_ref, iterations per step, cut-backs,
    wall time, failure)."""
    t0 = time.perf_counter()
    failure = ""
    try:
        res = solve_dynamic(model, dt, t_end, scheme=scheme, record_every=1)
    except Exception as exc:  # report what happens (e.g. a diverging Newmark step)
        res = getattr(exc, "results", None)
        failure = f"{type(exc).__name__}: {str(exc).splitlines()[0][:90]}"
        if res is None or len(res) < 2:
            return None, None, float("nan"), 0, time.perf_counter() - t0, failure
    wall = time.perf_counter() - t0
    t = np.asarray(res.times)
    E = res.series("energy_residual")  # E − E0 − W_ext − W_driver (+ D)
    Etot = res.series("total_energy")
    i0 = int(np.flatnonzero(t >= t_ref - 1e-12)[0]) if t[-1] >= t_ref - 1e-12 else 0
    scale = max(abs(Etot[i0]), np.abs(Etot).max(), 1e-300)  # the strip starts at rest
    err = (E[i0:] - E[i0]) / scale
    t = t[i0:]
    it = res.info.get("newton_iterations", 0) / max(res.info.get("steps", len(t) - 1), 1)
    return t, err, it, res.info.get("cutbacks", 0), wall, failure


def report(name, model_of, steps, t_end_of, t_ref, marks):
    """Print one table: every scheme at every step of ``steps``."""
    print(f"\n== {name}: energy error (E − E0 − W) since t_ref / max E at t = {', '.join(f'{m:g}' for m in marks)} s")
    print(f"{'Δt':>8} {'scheme':>13} " + " ".join(f"{m:>10.3g}" for m in marks) + f" {'max|err|':>10} {'it/step':>8} {'cuts':>5} {'wall s':>7}  note")
    for dt in steps:
        for key, make in SCHEMES.items():
            t, err, it, cuts, wall, failure = run(model_of(), dt, t_end_of(dt), make(), t_ref)
            if t is None:
                print(f"{dt:8.2g} {key:>13}  failed at the start: {failure}")
                continue
            vals = []
            for m in marks:
                k = np.flatnonzero(t <= m + 1e-12)
                vals.append(f"{err[k[-1]]:10.2e}" if k.size and t[-1] >= m - 1e-12 else f"{'—':>10}")
            print(f"{dt:8.2g} {key:>13} " + " ".join(vals) + f" {np.abs(err).max():10.2e} {it:8.2f} {cuts:5d} {wall:7.1f}  {failure}")


def spinning_plate():
    """The stiff free plate of the ``spin`` case, spinning about x through its centroid."""
    model = Model(rectangle_mesh(1.0, 0.6, 3, 2, cells="quad"), name="stiff spinning plate")
    model.add_part("plate", "shell4", "plate", Material(E=2e13, nu=0.3, rho=7800.0), Section(thickness=0.01))
    model.initial_rigid_velocity(omega=(1.0, 0.0, 0.0), center=(0.5, 0.3, 0.0))
    return model


def spin_report():
    """Energy error and largest strain energy (relative to E0) of the spinning plate."""
    print("\n== stiff plate in a steady spin about an in-plane axis (1 rad/s), 30 steps")
    print(f"{'ωΔt':>6} {'scheme':>13} {'max|ΔE|/E0':>11} {'max V/E0':>10} {'it/step':>8} {'cuts':>5}  note")
    for dt in (0.1, 0.5, 1.0):
        for key, make in SCHEMES.items():
            try:
                res = solve_dynamic(spinning_plate(), dt, 30 * dt, scheme=make())
            except Exception as exc:  # e.g. Newmark's Newton failing after its cut-backs
                print(f"{dt:6.2g} {key:>13}  failed: {type(exc).__name__}: {str(exc).splitlines()[0][:90]}")
                continue
            E, V = res.series("total_energy"), res.series("strain_energy")
            print(f"{dt:6.2g} {key:>13} {np.abs(E - E[0]).max() / E[0]:11.2e} {V.max() / E[0]:10.2e} "
                  f"{res.info['newton_iterations'] / res.info['steps']:8.2f} {res.info['cutbacks']:5d}")


def main():
    """Run the cases named on the command line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="*", default=["plate", "strip", "spin"])
    ap.add_argument("--plate-steps", type=int, default=400, help="steps of 0.5 ms after the pulse (half as many at 1 ms)")
    ap.add_argument("--strip-t-end", type=float, default=4.0)
    args = ap.parse_args()
    logging.disable(logging.WARNING)
    if "plate" in args.cases:
        limit = explicit_limit(free_l_plate("shell4"))
        print(f"L-plate: explicit stability limit of the lumped mass {limit:.3e} s")
        span = args.plate_steps * 5e-4
        marks = [PULSE_END + f * span for f in (0.1, 0.25, 0.5, 1.0)]
        report("free L-plate (shell4) after the pulse", lambda: free_l_plate("shell4"), (5e-4, 1e-3),
               lambda dt: PULSE_END + span, PULSE_END, marks)
    if "strip" in args.cases:
        T = args.strip_t_end
        report("spin-up B as a shell strip (16 shell4), driven hub", lambda: spin_up_strip(16, "shell4"), (0.01, 0.04),
               lambda dt: T, 0.0, [0.25 * T, 0.5 * T, T])
    if "spin" in args.cases:
        spin_report()


if __name__ == "__main__":
    main()
