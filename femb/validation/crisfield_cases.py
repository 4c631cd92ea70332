"""The examples of Crisfield & Shi (1993) as models and validation cases.

M.A. Crisfield and J. Shi, "An energy conserving co-rotational procedure for non-linear
dynamics with finite elements", NATO ASI Computer Aided Analysis of Rigid and Flexible
Mechanical Systems, Vol. II (Tróia 1993), pp. ≈197–212:

* Bathe's stiff pendulum (§2, Figs. 1–4): one truss, m = 10 at the tip, l = 304.8,
  g = 980, tip velocity 772.5 at the bottom (units cm, kg, s);
* the free-flying four-bar chain (§4.1, Figs. 7–9): length 400, 1 mass/length, rigid spin
  ω = 1 about the right-hand end;
* the two-DOF bar-plus-spring "escape" model (§4.2, Figs. 10–12): l0 = 100, EA = 500,
  K = 1, m = 1, initial kinetic energy τ = 0.8 of the barrier (τ_cr = 5/6).

The builders are plain femb models (shared with the solver tests); the ``*_case``
functions compute the metrics of the ``crisfield-*`` validation cases.
"""
import numpy as np

from femb.mesh import CellBlock, Mesh, line_mesh
from femb.model import Model
from femb.validation.plots import shape_series as snapshots

# ----------------------------------------------------------------------------- models
PENDULUM_LENGTH = 304.8  # cm
PENDULUM_MASS = 10.0  # kg at the tip
PENDULUM_G = 980.0  # cm/s²
PENDULUM_V0 = 772.5  # cm/s
E0_PENDULUM = 0.5 * PENDULUM_MASS * PENDULUM_V0**2  # 2.98378e6 kg cm²/s²


def bathe_pendulum(EA=1e10):
    """Bathe's pendulum (paper §2): one truss, pivot fixed, m = 10 at the tip (lumped),
    l = 304.8, g = 980, hanging, tip velocity 772.5 horizontal. Node sets ``bar_start``
    (pivot) and ``bar_end`` (tip)."""
    length = PENDULUM_LENGTH
    model = Model(line_mesh((0.0, 0.0), (0.0, -length), 1, "bar"), name="bathe-pendulum")
    model.add_part("bar", "truss2d", "bar", values={"EA": EA, "rhoA": 2.0 * PENDULUM_MASS / length})
    model.fix("bar_start")
    model.gravity((0.0, -PENDULUM_G))
    model.initial_velocity("bar_end", ux=PENDULUM_V0)
    return model


def four_bar_chain(EA=1e10):
    """Free-flying straight four-bar chain (paper §4.1): length 400, 1 mass/length
    (lumped 50, 100, 100, 100, 50), rigid spin ω = 1 about the right-hand end."""
    model = Model(line_mesh((0.0, 0.0), (400.0, 0.0), 4, "chain"), name="four-bar-chain")
    model.add_part("chain", "truss2d", "chain", values={"EA": EA, "rhoA": 1.0})
    model.initial_rigid_velocity(omega=1.0, center=(400.0, 0.0))
    return model


ESCAPE_Y0 = 100.0 * np.sqrt(0.5)
ESCAPE_TAU = 0.8


def escape_model(direction, tau=ESCAPE_TAU):
    """Two-DOF bar-plus-spring model (paper §4.2, with the bar at 135° as read here): bar OA (l0 = 100, EA = 500,
    pinned at O, mass 1 at A) at 135°, and a spring of stiffness K = 1 acting only in x
    (a bar AB whose end B is fixed in x and tied to A in y, so AB stays horizontal).
    Initial kinetic energy τ (default 0.8 < τ_cr = 5/6) of the barrier scale K·Δ²/2,
    velocity along ``direction`` (unit 2-vector)."""
    A = np.array([-ESCAPE_Y0, ESCAPE_Y0])
    B = A - np.array([100.0, 0.0])
    mesh = Mesh(np.array([[0.0, 0.0], A, B]), {"bar": CellBlock("line", np.array([[0, 1]])), "spring": CellBlock("line", np.array([[2, 1]]))},
                {"O": [0], "A": [1], "B": [2]})
    model = Model(mesh, name="escape")
    model.add_part("bar", "truss2d", "bar", values={"EA": 500.0, "rhoA": 2.0 / 100.0})
    model.add_part("spring", "truss2d", "spring", values={"EA": 100.0, "rhoA": 0.0})  # K = EA/l = 1
    model.fix("O")
    model.fix("B", "ux")
    model.tie("A", "B", "uy")
    delta = 100.0 * (1.0 + np.cos(np.radians(135.0)))  # distance to the horizontal-bar saddle
    speed = np.sqrt(2.0 * tau * 0.5 * delta**2)  # T0 = τ K Δ²/2, m = 1
    model.initial_velocity("A", ux=speed * direction[0], uy=speed * direction[1])
    return model


ESCAPE_DIRECTIONS = {"perpendicular": (np.sqrt(0.5), np.sqrt(0.5)), "perpendicular-": (-np.sqrt(0.5), -np.sqrt(0.5)),
                     "down": (0.0, -1.0), "up": (0.0, 1.0)}


# ----------------------------------------------------------------------------- closed forms and signals
def pendulum_exact(t, length=PENDULUM_LENGTH, g=PENDULUM_G, v0=PENDULUM_V0):
    """Swing angle θ(t) [rad] of the rigid pendulum started at the bottom with tip speed
    ``v0``: sin(θ/2) = k sn(ω0 t | k²), k = v0 / (2√(g l)), ω0 = √(g/l)."""
    from scipy.special import ellipj

    k = v0 / (2.0 * np.sqrt(g * length))
    sn, _, _, _ = ellipj(np.sqrt(g / length) * np.asarray(t, dtype=float), k * k)
    return 2.0 * np.arcsin(np.clip(k * sn, -1.0, 1.0))


def pendulum_period(length=PENDULUM_LENGTH, g=PENDULUM_G, v0=PENDULUM_V0):
    """Exact period 4 K(k²) √(l/g) of the rigid pendulum [s] (4.135 s for Bathe's data)."""
    from scipy.special import ellipk

    k = v0 / (2.0 * np.sqrt(g * length))
    return float(4.0 * ellipk(k * k) * np.sqrt(length / g))


def swing_angle(res, length=PENDULUM_LENGTH):
    """Pendulum angle from the downward vertical (rad) at every frame."""
    d = np.array([res.nodal_displacements(k)[1] for k in range(len(res))])
    x, y = d[:, 0], -length + d[:, 1]
    return np.arctan2(x, -y)


def mean_period(t, angle):
    """Mean period from the upward zero crossings of the angle (linear interpolation)."""
    t, angle = np.asarray(t), np.asarray(angle)
    k = np.flatnonzero((angle[:-1] < 0) & (angle[1:] >= 0))
    if k.size < 2:
        return float("nan")
    tc = t[k] - angle[k] * (t[k + 1] - t[k]) / (angle[k + 1] - angle[k])
    return float(np.diff(tc).mean())


def chord_angles(res, a, b):
    """Unwrapped angle (rad) of the line from node a to node b at every frame."""
    X = res.model.mesh.points
    d = np.array([X[b] - X[a] + res.nodal_displacements(k)[b] - res.nodal_displacements(k)[a] for k in range(len(res))])
    return np.unwrap(np.arctan2(d[:, 1], d[:, 0]))


def relative_drift(res, name):
    """max |s − s0| / |s0| of a history column."""
    s = res.series(name)
    return float(np.max(np.abs(s - s[0])) / abs(s[0]))


# ----------------------------------------------------------------------------- cases
def pendulum_case(quick):
    """Metrics of ``crisfield-pendulum``: energy drift of the conserving scheme at Δt = 0.5
    over 20 s, the period at Δt = 0.1 against the exact 4.135 s, the fitted order of the
    period error over Δt, and (reported) Newmark's energy growth at Δt = 0.1."""
    from femb.solvers.dynamics.driver import solve_dynamic

    steps = (0.5, 0.25, 0.1) if quick else (0.5, 0.25, 0.1, 0.05)
    exact = pendulum_period()
    runs = {dt: solve_dynamic(bathe_pendulum(), dt, 20.0) for dt in steps}
    periods = {dt: mean_period(r.times, swing_angle(r)) for dt, r in runs.items()}
    h = np.array(steps)
    err = np.array([abs(periods[dt] - exact) for dt in steps])
    from femb.validation.rates import fit_rate

    rate, _ = fit_rate(h, err)
    newmark = solve_dynamic(bathe_pendulum(), 0.1, 20.0, scheme="newmark")
    strain = max(float(np.max(np.sqrt(2.0 * r.series("strain_energy") * PENDULUM_LENGTH / 1e10) / PENDULUM_LENGTH)) for r in runs.values())
    coarse, fine = runs[0.5], runs[0.1]
    t_fine = np.asarray(fine.times)
    tt = np.linspace(0.0, 20.0, 801)
    metrics = {
        "energy_rel_error": relative_drift(coarse, "total_energy"),
        "energy_rel_error_all_steps": max(relative_drift(r, "total_energy") for r in runs.values()),
        "period": periods[0.1],
        "period_dt05": periods[0.5],
        "period_rate": rate,
        "max_axial_strain": strain,
        "newmark_energy_growth": float(newmark.series("total_energy").max() / E0_PENDULUM),
    }
    return {
        "metrics": metrics,
        "series": {
            "convergence_period": {"h": h.tolist(), "error": err.tolist(), "xlabel": "Δt [s]", "ylabel": "|T(Δt) − T| [s]",
                                   "title": f"pendulum period, exact T = {exact:.4f} s"},
            "history_angle": {"xlabel": "t [s]", "ylabel": "swing angle [deg]", "title": "Bathe's pendulum (EA = 1e10)",
                              "curves": [{"label": "exact (rigid)", "x": tt.tolist(), "y": np.degrees(pendulum_exact(tt)).tolist(), "style": "dashed"},
                                         {"label": "femb Δt = 0.1", "x": t_fine.tolist(), "y": np.degrees(swing_angle(fine)).tolist()},
                                         {"label": "femb Δt = 0.5", "x": list(coarse.times), "y": np.degrees(swing_angle(coarse)).tolist(), "style": "markers"}]},
            "history_energy": {"xlabel": "t [s]", "ylabel": "E / E0", "title": "total energy", "yscale": "log",
                               "curves": [{"label": "femb mid-point Δt = 0.5", "x": list(coarse.times), "y": (coarse.series("total_energy") / E0_PENDULUM).tolist()},
                                          {"label": "Newmark Δt = 0.1", "x": list(newmark.times), "y": (newmark.series("total_energy") / E0_PENDULUM).tolist(), "style": "dashed"}]},
            "shape": snapshots(coarse, range(0, min(len(coarse), 6)), "pendulum, Δt = 0.5, first 2.5 s"),
        },
    }


def free_chain_case(quick):
    """Metrics of ``crisfield-free-chain``: the turn per step at Δt = 2 against
    2 atan(ωΔt/2) = π/2, the left-tip displacement at the steps against 200(1 − cos kπ/2),
    energy and angular-momentum drift (Δt = 2 and 0.1), Newmark's energy growth at 0.1."""
    from femb.solvers.dynamics.driver import solve_dynamic

    omega = 1.0
    big = solve_dynamic(four_bar_chain(), 2.0, 20.0)
    small = solve_dynamic(four_bar_chain(), 0.1, 20.0)
    turn_exact = 2.0 * np.arctan(omega * 2.0 / 2.0)
    turn_err = max(float(np.max(np.abs(np.diff(chord_angles(big, a, a + 1)) - turn_exact))) for a in range(4))
    k = np.arange(len(big))
    tip_big = np.array([big.nodal_displacements(j)[0, 0] for j in k])
    t_small = np.asarray(small.times)
    tip_small = np.array([small.nodal_displacements(j)[0, 0] for j in range(len(small))])
    metrics = {
        "rotation_per_step_error": turn_err,
        "tip_error_dt2": float(np.max(np.abs(tip_big - 200.0 * (1.0 - np.cos(k * turn_exact))))),
        "energy_rel_error": max(relative_drift(r, "total_energy") for r in (big, small)),
        "angular_momentum_rel_error": max(relative_drift(r, "angular_momentum") for r in (big, small)),
        "tip_error_dt01": float(np.max(np.abs(tip_small - 200.0 * (1.0 - np.cos(omega * t_small))))),
    }
    series = {
        "history_tip": {"xlabel": "t [s]", "ylabel": "left-tip horizontal displacement", "title": "free-flying chain (EA = 1e10)",
                        "curves": [{"label": "exact (rigid spin)", "x": t_small.tolist(), "y": (200.0 * (1.0 - np.cos(t_small))).tolist(), "style": "dashed"},
                                   {"label": "femb Δt = 0.1", "x": t_small.tolist(), "y": tip_small.tolist()},
                                   {"label": "femb Δt = 2", "x": list(big.times), "y": tip_big.tolist(), "style": "markers"}]},
        "shape": snapshots(big, range(0, min(len(big), 5)), "chain, Δt = 2: a quarter turn per step"),
    }
    # the paper's claim about the conventional scheme, judged in quick and full mode
    newmark = solve_dynamic(four_bar_chain(), 0.1, 20.0, scheme="newmark")
    E = newmark.series("total_energy")
    metrics["newmark_energy_growth"] = float(E.max() / E[0])
    series["history_energy"] = {"xlabel": "t [s]", "ylabel": "E / E0", "title": "total energy, Δt = 0.1", "yscale": "log",
                                "curves": [{"label": "femb mid-point", "x": t_small.tolist(), "y": (small.series("total_energy") / small.series("total_energy")[0]).tolist()},
                                           {"label": "Newmark", "x": list(newmark.times), "y": (E / E[0]).tolist(), "style": "dashed"}]}
    return {"metrics": metrics, "series": series}


def escape_periods():
    """Linearised periods [s] of the escape model about its initial state from femb's modal
    analysis (lumped mass), ascending."""
    from femb.solvers.eigen.modal import solve_modal

    modal = solve_modal(escape_model((1.0, 0.0)), n_modes=2, mass="lumped")
    return np.sort(2.0 * np.pi / np.asarray(modal.omega))[::-1]


def escape_periods_exact():
    """Closed-form linearised periods of the escape model (reading A): K = k_b e eᵀ +
    diag(K, 0), e along the bar at 135°, k_b = EA/l0 = 5, K = 1, m = 1."""
    e = np.array([-1.0, 1.0]) / np.sqrt(2.0)
    K = 5.0 * np.outer(e, e) + np.diag([1.0, 0.0])
    return np.sort(2.0 * np.pi / np.sqrt(np.linalg.eigvalsh(K)))[::-1]


def two_dof_case(quick):
    """Metrics of ``crisfield-two-dof``: over four initial-velocity directions and Δt in
    (0.5, 1.0) (full: also 0.1), 100 s each, the worst energy drift of the conserving
    scheme and the number of runs in which the mass crosses the barrier line y = 0
    (none may: τ < τ_cr); femb's linearised periods against the closed form; (reported)
    the smallest clearance y_A / y_A0 and the runs Newmark carries over the barrier at Δt = 1."""
    from femb.solvers.dynamics.driver import solve_dynamic

    steps = (0.5, 1.0) if quick else (0.1, 0.5, 1.0)
    drift, escapes, clearance = 0.0, 0, np.inf
    newmark_escapes = 0
    keep = {}
    for name, direction in ESCAPE_DIRECTIONS.items():
        model = escape_model(direction)
        node = model.node("A")
        for dt in steps:
            res = solve_dynamic(model, dt, 100.0)
            y = ESCAPE_Y0 + res.dof(node, "uy")
            drift = max(drift, relative_drift(res, "total_energy"))
            escapes += int(y.min() <= 0.0)
            clearance = min(clearance, float(y.min() / ESCAPE_Y0))
            if name == "perpendicular" and dt == 1.0:
                keep["present"] = res
        nm = solve_dynamic(model, 1.0, 100.0, scheme="newmark")
        y_nm = ESCAPE_Y0 + nm.dof(node, "uy")
        newmark_escapes += int(y_nm.min() <= 0.0)
        if name == "perpendicular":
            keep["newmark"] = nm
    periods = escape_periods()
    present, nm = keep["present"], keep["newmark"]
    node = present.model.node("A")
    xs = [(-ESCAPE_Y0 + r.dof(node, "ux")).tolist() for r in (present, nm)]
    ys = [(ESCAPE_Y0 + r.dof(node, "uy")).tolist() for r in (present, nm)]
    return {
        "metrics": {
            "energy_rel_error": drift,
            "escapes": float(escapes),
            "min_clearance": clearance,
            "period_1": float(periods[0]),
            "period_2": float(periods[1]),
            "newmark_escapes_dt1": float(newmark_escapes),
        },
        "series": {
            "history_y": {"xlabel": "t [s]", "ylabel": "y_A", "title": "escape model, Δt = 1, velocity normal to the bar",
                          "curves": [{"label": "femb mid-point", "x": list(present.times), "y": ys[0]},
                                     {"label": "Newmark", "x": list(nm.times), "y": ys[1], "style": "dashed"},
                                     {"label": "barrier y = 0", "x": [0.0, 100.0], "y": [0.0, 0.0], "style": "dashed"}]},
            "history_trajectory": {"xlabel": "x_A", "ylabel": "y_A", "title": "trajectory of A (Δt = 1, velocity normal to the bar)",
                                   "curves": [{"label": "femb mid-point", "x": xs[0], "y": ys[0]},
                                              {"label": "Newmark", "x": xs[1], "y": ys[1], "style": "dashed"}]},
            "shape": snapshots(present, range(0, min(len(present), 12), 2), "escape model, Δt = 1 (mid-point)"),
        },
    }
