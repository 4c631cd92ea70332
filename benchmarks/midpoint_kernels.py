"""Cost and accuracy of the energy-conserving mid-point element kernels.

Times one call of ``beam3d.midpoint_force_oriented`` (Euler–Bernoulli and Timoshenko) and of
``beam2d.midpoint_force`` on a batch of prestressed elements taken through a step with a
rigid turn plus a deformation increment, and reports µs per element, the ratio to the
planar kernel, the energy identity |f̄·Δq − ΔV| and the agreement of the Newton matrix K
with central differences of f̄.

``--baseline REV`` loads ``elements/beam3d.py`` as of git revision REV as a second module
and measures it interleaved with the current one (same process, same batch, alternating
repeats), so before/after ratios are side by side. With a baseline, ``--newton`` also runs
two 3-D dynamic models with either kernel (swapped into the beam3d specs), interleaved:
spin-up B with 10 beam3d_timoshenko elements (Δt = 0.01 s, 3 s) and the spatial arm of
examples/spatial_arm.py (8 beam3d, joints, Δt = 5 ms, 1 s from rest), reporting Newton
iterations per step, cut-backs, ms per step and the energy residual.

    python benchmarks/midpoint_kernels.py [--elements 2000] [--repeat 7] [--baseline REV] [--newton]
"""
import argparse
import pathlib
import sys
import time

import numpy as np
from revision import module_of_revision

from femb.elements import beam2d, beam3d

ROOT = pathlib.Path(__file__).resolve().parents[1]


def cayley(psi):
    """Rotation matrices cay(ψ) (n, 3, 3) of Cayley vectors ψ (n, 3)."""
    psi = np.atleast_2d(psi)
    H = np.zeros((len(psi), 3, 3))
    H[:, 0, 1], H[:, 0, 2], H[:, 1, 2] = -psi[:, 2], psi[:, 1], -psi[:, 0]
    H -= H.transpose(0, 2, 1)
    den = 1.0 + 0.25 * np.einsum("ij,ij->i", psi, psi)
    return np.eye(3) + (H + 0.5 * H @ H) / den[:, None, None]


def cayley_vector(C):
    """Cayley vectors (n, 3) of rotation matrices C (n, 3, 3)."""
    v = np.stack([C[:, 2, 1] - C[:, 1, 2], C[:, 0, 2] - C[:, 2, 0], C[:, 1, 0] - C[:, 0, 1]], axis=1)
    return 2.0 * v / (1.0 + np.trace(C, axis1=1, axis2=2))[:, None]


def beam3d_batch(n, timoshenko, seed=0, s=1e-2):
    """n prestressed beam3d elements and a step (rigid turn about the mid centroid plus a
    deformation increment of size s): arrays for midpoint_force_oriented."""
    rng = np.random.default_rng(seed)
    X = np.zeros((n, 2, 3))
    X[:, 0] = rng.uniform(-1, 1, (n, 3))
    X[:, 1] = X[:, 0] + np.array([0.9, 0.3, 0.3]) + 0.1 * rng.standard_normal((n, 3))
    # rows without the offset columns (plain sections), which every revision of the kernel reads
    cols = [1e4, 8.0, 10.0, 12.0, 1.0, 0.02, 0.01, 0.012, 0.0, 0.0, 0.0] + ([2e3, 2.5e3] if timoshenko else [])
    p = np.tile(np.array(cols), (n, 1))
    u0 = np.zeros((n, 12))
    u0[:, :3] = 0.02 * rng.standard_normal((n, 3))
    u0[:, 6:9] = 0.02 * rng.standard_normal((n, 3))
    R0n = np.stack([cayley(0.2 * rng.standard_normal((n, 3))) for _ in range(2)], axis=1)
    C = cayley(0.6 * rng.standard_normal((n, 3)))
    x0 = X + u0.reshape(n, 2, 6)[:, :, :3]
    c = x0.mean(axis=1, keepdims=True)
    d = rng.standard_normal((n, 2, 6))
    x1 = np.einsum("nij,naj->nai", C, x0 - c) + c + s * d[:, :, :3]
    psi = np.stack([cayley_vector(cayley(s * d[:, a, 3:]) @ C) for a in range(2)], axis=1)
    u1 = np.zeros((n, 12))
    u1[:, :3], u1[:, 6:9] = x1[:, 0] - X[:, 0], x1[:, 1] - X[:, 1]
    R1n = np.stack([cayley(psi[:, a]) @ R0n[:, a] for a in range(2)], axis=1)
    return X, u0, R0n, u1, R1n, psi, p


def call3d(mod, X, u0, R0n, u1, R1n, psi, p):
    n = len(X)
    f, K = np.zeros((n, 12)), np.zeros((n, 12, 12))
    mod.midpoint_force_oriented(X, u0, R0n, u1, R1n, 0.5 * (u0 + u1), R0n.copy(), psi, np.zeros((n, 2, 3, 3)), p, f, K)
    return f, K


def beam2d_batch(n, seed=0, s=1e-2):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, 2, 2))
    X[:, 0] = rng.uniform(-1, 1, (n, 2))
    X[:, 1] = X[:, 0] + np.array([0.9, 0.3]) + 0.1 * rng.standard_normal((n, 2))
    p = np.tile(np.array([1e4, 12.0, 1.0, 0.012]), (n, 1))
    u0 = 0.02 * rng.standard_normal((n, 6))
    u1 = u0 + s * rng.standard_normal((n, 6))
    u1[:, 2] += 0.6
    u1[:, 5] += 0.6
    return X, u0, u1, p


def load_revision(rev):
    """elements/beam3d.py as of git revision ``rev``, imported as a sibling of beam3d."""
    return module_of_revision(rev, "elements/beam3d.py", "femb.elements.beam3d_baseline")


def best_of_interleaved(calls, repeat):
    """Median wall time (s) of each callable over ``repeat`` rounds, the callables
    alternating within every round."""
    times = {k: [] for k in calls}
    for _ in range(repeat):
        for k, fn in calls.items():
            t = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t)
    return {k: float(np.median(v)) for k, v in times.items()}


def accuracy(mod, timoshenko):
    """Energy identity and K against central differences of f̄ for one element."""
    X, u0, R0n, u1, R1n, psi, p = beam3d_batch(1, timoshenko, seed=3)
    f, K = call3d(mod, X, u0, R0n, u1, R1n, psi, p)
    en0, en1 = np.zeros(1), np.zeros(1)
    beam3d.strain_energy(X, u0, R0n, p, en0)
    beam3d.strain_energy(X, u1, R1n, p, en1)
    dq = np.concatenate([u1[0, :3] - u0[0, :3], psi[0, 0], u1[0, 6:9] - u0[0, 6:9], psi[0, 1]])
    dV = en1[0] - en0[0]
    energy = abs(f[0] @ dq - dV) / max(abs(dV), np.abs(f[0] * dq).sum())

    def force(z):
        uu = u0.copy()
        uu[0, :3] += z[:3]
        uu[0, 6:9] += z[6:9]
        ps = np.stack([z[3:6], z[9:12]])[None]
        RR = np.stack([cayley(ps[:, a]) @ R0n[:, a] for a in range(2)], axis=1)
        return call3d(mod, X, u0, R0n, uu, RR, ps, p)[0][0]

    out = {"energy": energy}
    for eps in (1e-5, 1e-6):
        Kfd = np.column_stack([(force(dq + eps * e) - force(dq - eps * e)) / (2 * eps) for e in np.eye(12)])
        out[f"fd{eps:.0e}"] = np.abs(K[0] - Kfd).max() / np.abs(Kfd).max()
    return out


def newton_runs(mods, repeat):
    """Newton iterations and time per step of two 3-D models with each kernel in ``mods``."""
    from femb.elements import get_spec
    from femb.solvers import solve_dynamic
    from femb.validation.dynamic3d_cases import spin_up_beam_3d

    sys.path.insert(0, str(ROOT / "examples"))
    import spatial_arm

    specs = [get_spec("beam3d"), get_spec("beam3d_timoshenko")]
    original = specs[0].kernels
    cases = {"spin-up B, 10 beam3d_timoshenko, dt 0.01, 3 s":
             lambda: solve_dynamic(spin_up_beam_3d(10), 0.01, 3.0, mass="lumped", record_every=50),
             "spatial arm, 8 beam3d + joints, dt 5 ms, 1 s":
             lambda: spatial_arm.run(spatial_arm.build(), t_end=1.0, record_every=50)}
    print("\nNewton iterations of 3-D dynamic runs (median time of "
          f"{repeat} interleaved runs; energy residual = max |ΔE − work| / max E):")
    print(f"{'case':48s} {'kernel':24s} {'its/step':>9s} {'cutbacks':>9s} {'ms/step':>8s} {'energy res.':>12s}")
    for case, run in cases.items():
        rows = {name: [] for name in mods}
        for _ in range(repeat):
            for name, mod in mods.items():
                for spec in specs:
                    object.__setattr__(spec, "kernels", original._replace(midpoint_force=mod.midpoint_force_oriented))
                res = run()
                rows[name].append(res)
        for spec in specs:
            object.__setattr__(spec, "kernels", original)
        for name, results in rows.items():
            res = results[0]
            ms = 1e3 * np.median([r.info["time_per_step"] for r in results])
            E = res.series("total_energy")
            eres = np.abs(res.series("energy_residual")).max() / np.abs(E).max()
            print(f"{case:48s} {name:24s} {res.info['newton_iterations'] / res.info['steps']:9.3f} "
                  f"{res.info['cutbacks']:9d} {ms:8.3f} {eres:12.1e}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elements", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--baseline", default=None, help="git revision of elements/beam3d.py to compare against")
    ap.add_argument("--newton", action="store_true", help="Newton iterations of 3-D runs with either kernel")
    a = ap.parse_args(argv)
    n = a.elements
    mods = {"beam3d (current)": beam3d}
    if a.baseline:
        mods[f"beam3d ({a.baseline})"] = load_revision(a.baseline)
    X2, u02, u12, p2 = beam2d_batch(n)
    f2, K2 = np.zeros((n, 6)), np.zeros((n, 6, 6))
    calls = {"beam2d": lambda: beam2d.midpoint_force(X2, u02, u12, p2, f2, K2)}
    for tim in (False, True):
        args = beam3d_batch(n, tim)
        for name, mod in mods.items():
            call3d(mod, *args)  # compile
            calls[f"{name}{' timoshenko' if tim else ''}"] = (lambda m=mod, b=args: call3d(m, *b))
    calls["beam2d"]()
    t = best_of_interleaved(calls, a.repeat)
    print(f"mid-point kernels, {n} elements per call, median of {a.repeat} interleaved repeats")
    print(f"{'kernel':40s} {'µs/element':>11s} {'× beam2d':>9s}")
    for k, v in t.items():
        print(f"{k:40s} {1e6 * v / n:11.2f} {v / t['beam2d']:9.1f}")
    print("\naccuracy (one element, rigid turn 0.6 rad + deformation 1e-2):")
    print(f"{'kernel':40s} {'|f·Δq−ΔV|/|ΔV|':>16s} {'K vs CD(1e-5)':>14s} {'K vs CD(1e-6)':>14s}")
    for name, mod in mods.items():
        for tim in (False, True):
            acc = accuracy(mod, tim)
            print(f"{name + (' timoshenko' if tim else ''):40s} {acc['energy']:16.1e} {acc['fd1e-05']:14.1e} "
                  f"{acc['fd1e-06']:14.1e}")
    if a.newton:
        newton_runs(mods, max(3, a.repeat // 2))


if __name__ == "__main__":
    main()
