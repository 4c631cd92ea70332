"""Validation cases of the co-rotational shells in the energy-momentum mid-point scheme:
a free L-shaped plate after a load pulse (``shell-free-flight``) and Meijaard's spin-up B
beam modelled as a narrow shell strip on a driven hub (``shell-strip-spinup``)."""
import time

import numpy as np
import scipy.linalg as sl

from femb.assembly.assembler import Assembler
from femb.correlation import build_table
from femb.mesh import CellBlock, Mesh, rectangle_mesh
from femb.model import Material, Model, Section
from femb.solvers import solve_dynamic
from femb.validation.dynamic3d_cases import spin_up_b_3d
from femb.validation.models import spin_up_angle
from femb.validation.signals import first_local_extremum, half_amplitude


# ---------------------------------------------------------------------------- free L-plate
def l_plate_mesh(element="shell4", h=0.15):
    """An L-shaped plate in the XY plane: arms 1.2 × 0.3 m (along x) and 0.3 × 0.9 m (along
    y) sharing the corner square, square cells of side h (quads, or each split into two
    triangles). Node sets ``L_tip_x`` (the corner node at (1.2, 0)) and ``L_tip_y`` (at
    (0, 0.9))."""
    nx, ny, k = int(round(1.2 / h)), int(round(0.9 / h)), int(round(0.3 / h))
    keep = [(i, j) for j in range(ny) for i in range(nx) if j < k or i < k]
    grid = np.arange((nx + 1) * (ny + 1)).reshape(ny + 1, nx + 1)
    used = np.unique(np.concatenate([[grid[j, i], grid[j, i + 1], grid[j + 1, i + 1], grid[j + 1, i]] for i, j in keep]))
    new = -np.ones(grid.size, dtype=np.int64)
    new[used] = np.arange(used.size)
    jj, ii = np.divmod(used, nx + 1)
    points = np.column_stack([ii * h, jj * h, np.zeros(used.size)])
    conn = []
    for i, j in keep:
        q = [new[grid[j, i]], new[grid[j, i + 1]], new[grid[j + 1, i + 1]], new[grid[j + 1, i]]]
        if element == "shell4":
            conn.append(q)
        elif (i + j) % 2 == 0:
            conn += [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]
        else:
            conn += [[q[0], q[1], q[3]], [q[1], q[2], q[3]]]
    cell_type = "quad" if element == "shell4" else "triangle"
    sets = {"L_tip_x": np.array([new[grid[0, nx]]]), "L_tip_y": np.array([new[grid[ny, 0]]])}
    return Mesh(points, {"L": CellBlock(cell_type, np.array(conn, dtype=np.int64))}, sets, source="l_plate_mesh")


PULSE_END = 2e-3


def pulse(t):
    return np.sin(np.pi * t / PULSE_END) ** 2 if t < PULSE_END else 0.0


def free_l_plate(element="shell4"):
    """The free steel L-plate (E = 210 GPa, ν = 0.3, ρ = 7800 kg/m³, t = 10 mm) moving and
    tumbling, hit at its two arm tips by force and moment pulses sin²(πt/2 ms) for
    0 ≤ t ≤ 2 ms, then free."""
    model = Model(l_plate_mesh(element), name=f"free L-plate ({element})")
    model.add_part("L", element, "L", Material(E=2.1e11, nu=0.3, rho=7800.0), Section(thickness=0.01))
    model.initial_rigid_velocity(velocity=(0.5, -0.3, 0.2), omega=(3.0, -2.0, 6.0), center=(0.3, 0.3, 0.0))
    model.point_load("L_tip_x", amplitude=pulse, fz=2000.0, fy=-500.0)
    model.point_load("L_tip_y", amplitude=pulse, fz=-1500.0, fx=800.0, mz=30.0)
    return model


def explicit_limit(model):
    """2/ω_max of the lumped mass and the reference stiffness (central differences)."""
    t = build_table(model)
    asm = Assembler(t)
    K = asm.tangent(np.zeros(t.n_var))[1].toarray()
    M = asm.mass_matrix(0).toarray()
    return float(2.0 / np.sqrt(sl.eigh(K, M, eigvals_only=True).max()))


def shell_free_flight(quick=True):
    """Largest relative change of total energy, linear and angular momentum after the pulse
    over 10⁴ steps of Δt = 0.5 ms for shell4 and shell3 L-plates (the larger of the two is
    reported; quick: 150 steps, shell4 only); the step over the explicit stability limit of the lumped mass
    (set by the nodal rotary/drilling inertia) and over the membrane wave limit h/c."""
    dt = 5e-4
    steps = 150 if quick else 10000
    metrics = {"energy_rel_error": 0.0, "linear_momentum_rel_error": 0.0, "angular_momentum_rel_error": 0.0}
    curves = []
    iters, n_steps, step_ratio, wall = 0, 0, np.inf, 0.0
    for element in ("shell4",) if quick else ("shell4", "shell3"):
        model = free_l_plate(element)
        step_ratio = min(step_ratio, dt / explicit_limit(model))
        t0 = time.perf_counter()
        res = solve_dynamic(model, dt, PULSE_END + steps * dt, record_every=10)
        wall += time.perf_counter() - t0
        t = np.asarray(res.times)
        E = res.series("total_energy")
        L = np.column_stack([res.series(f"angular_momentum_{c}") for c in "xyz"])
        p = np.column_stack([res.series(f"linear_momentum_{c}") for c in "xyz"])
        after = t >= PULSE_END - 1e-12
        i0 = np.flatnonzero(after)[0]
        metrics["energy_rel_error"] = max(metrics["energy_rel_error"], float(np.abs(E[after] - E[i0]).max() / abs(E[i0])))
        metrics["linear_momentum_rel_error"] = max(metrics["linear_momentum_rel_error"],
                                                   float(np.abs(p[after] - p[i0]).max() / np.linalg.norm(p[i0])))
        metrics["angular_momentum_rel_error"] = max(metrics["angular_momentum_rel_error"],
                                                    float(np.abs(L[after] - L[i0]).max() / np.linalg.norm(L[i0])))
        iters += res.info["newton_iterations"]
        n_steps += res.info["steps"]
        curves.append({"x": t.tolist(), "y": ((E - E[i0]) / abs(E[i0])).tolist(), "label": f"total energy, {element}"})
        curves.append({"x": t.tolist(), "y": (res.series("strain_energy") / abs(E[i0])).tolist(),
                       "label": f"strain energy / E, {element}"})
    c = np.sqrt(2.1e11 / (7800.0 * (1.0 - 0.09)))
    metrics.update(step_over_explicit_limit=float(step_ratio), step_over_membrane_limit=float(dt / (0.15 / c)),
                   newton_iterations_per_step=float(iters / n_steps), ms_per_step=float(1e3 * wall / n_steps))
    return {"metrics": metrics,
            "series": {"history": {"curves": curves, "xlabel": "t [s]", "ylabel": "relative to the energy after the pulse",
                                   "title": "free L-plate after a pulse, Δt ≫ explicit limit"}}}


# ---------------------------------------------------------------------------- spin-up strip
STRIP_WIDTH = 0.2


def spin_up_strip(n=16, element="shell4"):
    """Spin-up B (Simo & Vu-Quoc data: L = 10 m, ρA = 1.2 kg/m, EI = 1.4e4 N·m², ρI = 6e-4
    kg·m, EA = 2.8e7 N; Ω = 6 rad/s, T = 15 s) as a narrow shell strip: length 10 m along
    x, width b = 0.2 m along z (the spin axis), thickness h along y, so that in-plane
    bending of the beam is plate bending of the strip. With ν = 0: E b h = EA and
    E b h³/12 = EI give h = √(12 EI/EA) = 0.0775 m and E = 1.81e9 Pa; ρ b h = ρA gives
    ρ = 77.5 kg/m³, and the strip's rotary inertia ρ b h³/12 equals ρI. The two root nodes
    (on the spin axis) are the hub: translations and rx, ry fixed, rz = θ(t) prescribed
    (Meijaard eq. 22)."""
    L, omega, T = 10.0, 6.0, 15.0
    EA, EI, rhoA = 2.8e7, 1.4e4, 1.2
    b = STRIP_WIDTH
    h = np.sqrt(12.0 * EI / EA)
    mesh = rectangle_mesh(L, b, n, 1, name="strip", cells="quad" if element == "shell4" else "triangle")
    pts = mesh.points.copy()
    mesh.points = np.ascontiguousarray(np.column_stack([pts[:, 0], np.zeros(len(pts)), pts[:, 1] - 0.5 * b]))
    model = Model(mesh, name=f"spin-up B as a shell strip ({element})")
    model.add_part("strip", element, "strip", Material(E=EA / (b * h), nu=0.0, rho=rhoA / (b * h)), Section(thickness=h))
    model.fix("strip_x0", ("ux", "uy", "uz", "rx", "ry"))
    model.prescribe("strip_x0", "rz", function=spin_up_angle(omega, T))
    model.info.update(length=L, omega=omega, T=T)
    return model


def _strip_tip_in_rotating_frame(res, theta):
    model = res.model
    tips = model.mesh.node_sets["strip_x1"]
    X = model.mesh.points
    th = np.array([theta(t) for t in res.times])
    x = np.mean([X[a, 0] + res.dof(int(a), "ux") for a in tips], axis=0)
    y = np.mean([X[a, 1] + res.dof(int(a), "uy") for a in tips], axis=0)
    z = np.mean([X[a, 2] + res.dof(int(a), "uz") for a in tips], axis=0)
    return -np.sin(th) * x + np.cos(th) * y, z


def shell_strip_spinup(quick=False, with_beam=True):
    """Extreme tip deflection in the rotating frame (mean of the two tip nodes), its time,
    the half-amplitude of the residual vibration (t > 16 s), the out-of-plane tip motion,
    the energy residual, and the beam3d spin-up of the same data (16 elements) for
    comparison. 16 shell4 elements, Δt = 0.01 s, 25 s (no quick variant: ``quick`` is
    ignored; about 4 min of run time with the beam)."""
    model = spin_up_strip(16, "shell4")
    theta = spin_up_angle(model.info["omega"], model.info["T"])
    t_end = 25.0
    t0 = time.perf_counter()
    res = solve_dynamic(model, 0.01, t_end, mass="lumped", record_every=2)
    wall = time.perf_counter() - t0
    w, z = _strip_tip_in_rotating_frame(res, theta)
    t = np.asarray(res.times)
    peak, t_peak = first_local_extremum(t, w, threshold=1e-2, sign=-1.0)
    E = res.series("total_energy")
    metrics = {"tip_extreme": peak, "tip_extreme_time": t_peak,
               "residual_amplitude": half_amplitude(w[t > 16.0]),
               "out_of_plane": float(np.abs(z).max()),
               "energy_residual": float(np.abs(res.series("energy_residual")).max() / max(np.abs(E).max(), 1e-300)),
               "newton_iterations_per_step": float(res.info["newton_iterations"] / res.info["steps"]),
               "ms_per_step": float(1e3 * wall / res.info["steps"])}
    curves = [{"x": t.tolist(), "y": w.tolist(), "label": "femb shell4 strip, 16 × 1"},
              {"x": [t_peak], "y": [peak], "label": "extreme", "style": "markers"}]
    if with_beam:
        beam = spin_up_b_3d()["metrics"]
        metrics["beam3d_tip_extreme"] = beam["tip_extreme"]
        metrics["tip_extreme_vs_beam3d"] = float(peak / beam["tip_extreme"] - 1.0)
    return {"metrics": metrics,
            "series": {"history": {"curves": curves, "xlabel": "t [s]", "ylabel": "tip deflection in the rotating frame [m]",
                                   "title": "spin-up B as a shell strip"}}}
