"""A rotor with pitched shell blades spun up by its driven hub (energy-momentum mid-point
scheme with co-rotational shells).

Two aluminium blades (3 m × 0.3 m × 10 mm, ``shell4`` strips of 8 × 1 quads) stand on a hub
of radius 0.5 m, each pitched by 20° about its own radial axis. The hub is a driver: the
blades' root nodes follow the rigid rotation θ(t) about the global z axis (translations and
rotations prescribed), θ(t) = (Ω/T)[t²/2 + (T/2π)²(cos 2πt/T − 1)] up to T, then
Ωt − ΩT/2 (Meijaard's smooth spin-up), Ω = 6 rad/s, T = 2 s. The blades lag behind
during the acceleration (in-plane bending, coupled to flap by the pitch) and then spin
with centrifugal stiffening.

Checks printed by ``main``: the balance of energy (kinetic + strain energy = work of the
driver, ``energy_residual``), the rotor's rotational symmetry (both blades deform alike),
the tip lag and flap in the rotating frame and the final spin rate of a blade tip.

Run ``python examples/shell_rotor_spinup.py [t_end]``.
"""
import sys

import numpy as np

from femb import CellBlock, Material, Mesh, Model, Section, solve_dynamic

N_BLADES, R_HUB, LENGTH, WIDTH, THICK, PITCH = 2, 0.5, 3.0, 0.3, 0.01, np.radians(20.0)
N_ALONG = 8
OMEGA, T_UP = 6.0, 2.0
ALU = Material(E=70e9, nu=0.3, rho=2700.0, name="aluminium")


def theta(t):
    """Hub angle: smooth spin-up to Ω over T_UP, then constant speed."""
    if t <= T_UP:
        return OMEGA / T_UP * (0.5 * t * t + (T_UP / (2 * np.pi)) ** 2 * (np.cos(2 * np.pi * t / T_UP) - 1.0))
    return OMEGA * t - 0.5 * OMEGA * T_UP


def rotor_mesh():
    """Points, quads and node sets (``root<k>``, ``tip<k>``) of the blades; blade k points
    along e_r = (cos φ_k, sin φ_k, 0), φ_k = 2πk/N_BLADES, its width along
    cos β e_t + sin β e_z (β the pitch)."""
    pts, quads, sets = [], [], {}
    for k in range(N_BLADES):
        phi = 2 * np.pi * k / N_BLADES
        er = np.array([np.cos(phi), np.sin(phi), 0.0])
        ew = np.cos(PITCH) * np.array([-np.sin(phi), np.cos(phi), 0.0]) + np.sin(PITCH) * np.array([0.0, 0.0, 1.0])
        base = len(pts)
        for i in range(N_ALONG + 1):
            for j in range(2):
                pts.append((R_HUB + LENGTH * i / N_ALONG) * er + (j - 0.5) * WIDTH * ew)
        for i in range(N_ALONG):
            a = base + 2 * i
            quads.append((a, a + 2, a + 3, a + 1))
        sets[f"root{k}"] = np.array([base, base + 1])
        sets[f"tip{k}"] = np.array([base + 2 * N_ALONG, base + 2 * N_ALONG + 1])
    return Mesh(np.array(pts), {"blades": CellBlock("quad", np.array(quads))}, sets, source="rotor_mesh")


def rotor():
    """The rotor model: the blades' root nodes follow the hub's rotation θ(t) about z."""
    mesh = rotor_mesh()
    model = Model(mesh, name="rotor with shell blades")
    model.add_part("blades", "shell4", "blades", ALU, Section(thickness=THICK))
    for k in range(N_BLADES):
        for node in mesh.node_sets[f"root{k}"]:
            x0, y0 = mesh.points[node, 0], mesh.points[node, 1]
            node = int(node)
            model.prescribe([node], "ux", function=lambda t, x0=x0, y0=y0: x0 * (np.cos(theta(t)) - 1.0) - y0 * np.sin(theta(t)))
            model.prescribe([node], "uy", function=lambda t, x0=x0, y0=y0: x0 * np.sin(theta(t)) + y0 * (np.cos(theta(t)) - 1.0))
            model.fix([node], ("uz", "rx", "ry"))
            model.prescribe([node], "rz", function=theta)
    return model


def tip_motion(res, k):
    """Tip (mean of the two tip nodes) of blade k in the rotating frame of the hub: radial,
    lag (along the rotation) and flap (along z) displacements from the reference tip."""
    mesh = res.model.mesh
    tips = mesh.node_sets[f"tip{k}"]
    x = np.mean([mesh.points[a] + np.column_stack([res.dof(int(a), d) for d in ("ux", "uy", "uz")]) for a in tips], axis=0)
    x0 = mesh.points[tips].mean(axis=0)
    th = np.array([theta(t) for t in res.times])
    c, s = np.cos(th), np.sin(th)
    xb = c * x[:, 0] + s * x[:, 1]  # back to the hub frame at t = 0
    yb = -s * x[:, 0] + c * x[:, 1]
    phi = 2 * np.pi * k / N_BLADES
    er, et = np.array([np.cos(phi), np.sin(phi)]), np.array([-np.sin(phi), np.cos(phi)])
    d = np.column_stack([xb - x0[0], yb - x0[1]])
    return d @ er, d @ et, x[:, 2] - x0[2]


def main(t_end=3.0, dt=0.01):
    model = rotor()
    res = solve_dynamic(model, dt, t_end, record_every=1)
    E = res.series("total_energy")
    W = res.series("constraint_work")
    out = {"energy_residual": float(np.abs(res.series("energy_residual")).max() / np.abs(E).max()),
           "driver_work": float(W[-1]), "final_energy": float(E[-1] - E[0])}
    motions = [tip_motion(res, k) for k in range(N_BLADES)]
    radial, lag, flap = motions[0]
    out["symmetry"] = float(max(np.abs(np.array(m) - np.array(motions[0])).max() for m in motions)
                            / max(np.abs(np.array(motions[0])).max(), 1e-300))
    t = np.asarray(res.times)
    out["max_lag"] = float(lag[t <= T_UP].min())
    out["max_flap"] = float(np.abs(flap).max())
    out["final_radial"] = float(radial[-1])
    # spin rate of blade 0's tip at the end (the angle of its position about z)
    mesh = model.mesh
    tip = int(mesh.node_sets["tip0"][0])
    ang = np.unwrap(np.arctan2(mesh.points[tip, 1] + res.dof(tip, "uy"), mesh.points[tip, 0] + res.dof(tip, "ux")))
    out["final_spin_rate"] = float((ang[-1] - ang[-11]) / (t[-1] - t[-11]))
    out["newton_iterations_per_step"] = float(res.info["newton_iterations"] / res.info["steps"])
    out["results"] = res
    return out


if __name__ == "__main__":
    r = main(float(sys.argv[1]) if len(sys.argv) > 1 else 3.0)
    for key, val in r.items():
        if key != "results":
            print(f"{key:28s} {val: .6g}")
