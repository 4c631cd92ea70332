"""Spatial two-link flexible arm on a spinning hub: the Python-API twin of spatial_arm.toml.

A hub (rigid_body3d, its rotation about the vertical Z prescribed: smooth spin-up to
Ω = 3 rad/s in T = 2 s, constant speed after) carries, through a 0.1 m steel bracket,
link 1 (aluminium tube 50 × 3 mm, 1.0 m, 4 beam3d elements) on a revolute shoulder about
the horizontal Y with a preloaded torsion spring-damper, then link 2 (tube 40 × 2.5 mm,
0.8 m, 4 beam3d elements) on a universal elbow (yaw about Z, pitch about Y) with
spring-dampers on both rotations, and a 2 kg payload (rigid_body3d with its inertia
tensor) on the tip node. Gravity −Z. The springs' preloads θ0 = −M/k are the gravity
moments about the pins, so the undeformed arm is the rigid-body equilibrium.

Runs the static sag under gravity (compared with the hand value of three Euler–Bernoulli
cantilevers in series) and, starting from that sagged equilibrium, the spin-up with the
energy-momentum mid-point scheme (lumped mass, Δt = 5 ms, 4 s), prints the tip deflection in the rotating frame, the joint angles,
the energy balance and the joint constraint residual, and writes a ParaView collection
(with tube surfaces), history.csv, hub_frame.csv (tip deflection in the frame turning
with the hub, joint angles) and run.json to --out.
Usage: python examples/spatial_arm.py [--out DIR] [--t-end T] [--elements N]
"""
import argparse
import math
from pathlib import Path

import numpy as np

from femb import (
    Material,
    Mesh,
    Model,
    Section,
    line_mesh,
    results_to_vtk,
    solve_dynamic,
    solve_static,
    write_history_csv,
    write_run_json,
)

G = 9.81                      # gravity (m/s²)
RH, GAP = 0.1, 0.03           # hub bracket length, clevis offset of each joint (m)
L1, D1, T1 = 1.0, 0.05, 0.003  # link 1: length, tube outer diameter, wall (m)
L2, D2, T2 = 0.8, 0.04, 0.0025  # link 2
RHO_AL, E_AL, NU_AL = 2700.0, 70e9, 0.33
M_P = 2.0                     # payload mass (kg), a 150 × 100 × 50 mm steel box
K_S, C_S = 2000.0, 25.0       # shoulder spring (N·m/rad) and damper (N·m·s/rad)
K_E, C_E = 800.0, 6.0         # elbow springs and dampers (pitch and yaw)
OMEGA, T = 3.0, 2.0           # final hub speed (rad/s), spin-up time (s)
DT, T_END, RECORD_EVERY = 0.005, 4.0, 4


def tube(D, t):
    """Area, second moment and torsion constant of a thin-walled round tube (m², m⁴, m⁴)."""
    d = D - 2 * t
    return math.pi / 4 * (D**2 - d**2), math.pi / 64 * (D**4 - d**4), math.pi / 32 * (D**4 - d**4)


def pin_moments():
    """Gravity moments about the elbow and shoulder pins of everything outboard (N·m)."""
    mu1, mu2 = RHO_AL * tube(D1, T1)[0], RHO_AL * tube(D2, T2)[0]
    m_e = G * (mu2 * L2**2 / 2 + M_P * L2)
    m_s = G * (mu1 * L1**2 / 2 + mu2 * L2 * (L1 + GAP + L2 / 2) + M_P * (L1 + GAP + L2))
    return m_e, m_s


def hub_angle(t):
    """Meijaard's spin-up law: smooth to OMEGA at T, constant speed afterwards (rad)."""
    if t <= T:
        return OMEGA / T * (t**2 / 2 + (T / (2 * math.pi)) ** 2 * (math.cos(2 * math.pi * t / T) - 1))
    return OMEGA * (t - T / 2)


def build(n_elements=4):
    """The arm Model: parts ``hub`` (bracket), ``link1``, ``link2`` along +X; markers
    ``hub``, ``clevis``, ``shoulder``, ``elbow_a``, ``elbow_b``, ``tip``."""
    x1 = RH + GAP
    x2 = x1 + L1 + GAP
    mesh = Mesh.merge(line_mesh((0.0, 0.0, 0.0), (RH, 0.0, 0.0), 1, "hub"),
                      line_mesh((x1, 0.0, 0.0), (x1 + L1, 0.0, 0.0), n_elements, "link1"),
                      line_mesh((x2, 0.0, 0.0), (x2 + L2, 0.0, 0.0), n_elements, "link2"), tolerance=1e-9)
    model = Model(mesh, dim=3, name="spatial arm")
    for name, node in (("hub", "hub_start"), ("clevis", "hub_end"), ("shoulder", "link1_start"),
                       ("elbow_a", "link1_end"), ("elbow_b", "link2_start"), ("tip", "link2_end")):
        model.add_marker(name, node)
    steel = Material(E=210e9, nu=0.3, rho=7850.0, name="steel")
    aluminium = Material(E=E_AL, nu=NU_AL, rho=RHO_AL, name="aluminium")
    d = 0.04  # solid steel bracket
    model.add_part("hub", "beam3d", "hub", steel, Section(A=math.pi / 4 * d**2, I=math.pi / 64 * d**4, J=math.pi / 32 * d**4, name="bar40"))
    for k, (D, t) in enumerate(((D1, T1), (D2, T2)), start=1):
        A, I, J = tube(D, t)
        model.add_part(f"link{k}", "beam3d", f"link{k}", aluminium, Section(A=A, I=I, J=J, name=f"tube{k}"))
    model.add_discrete("hub_body", "rigid_body3d", "hub", m=5.0, Jxx=0.0125, Jyy=0.0125, Jzz=0.025)
    a, b, c = 0.15, 0.1, 0.05
    model.add_discrete("payload", "rigid_body3d", "tip", m=M_P, Jxx=M_P * (b**2 + c**2) / 12,
                       Jyy=M_P * (a**2 + c**2) / 12, Jzz=M_P * (a**2 + b**2) / 12)
    m_e, m_s = pin_moments()
    model.add_discrete("shoulder_spring", "rotational_spring3d", ("clevis", "shoulder"), k=K_S, c=C_S,
                       axis=(0.0, 1.0, 0.0), theta0x=-m_s / K_S)
    model.add_discrete("elbow_spring", "rotational_spring3d", ("elbow_a", "elbow_b"), k=K_E, c=C_E,
                       axis=(0.0, 1.0, 0.0), theta0x=-m_e / K_E)
    model.fix("hub", ("ux", "uy", "uz", "rx", "ry"))
    model.prescribe("hub", "rz", function=hub_angle)
    model.joint3d("revolute", "clevis", "shoulder", axis=(0.0, 1.0, 0.0), name="shoulder")
    model.joint3d("universal", "elbow_a", "elbow_b", axis=(0.0, 0.0, 1.0), name="elbow")
    model.gravity((0.0, 0.0, -G))
    return model


PROBES = {"hub_angle": ("hub", "rz"), "tip_ux": ("tip", "ux"), "tip_uy": ("tip", "uy"), "tip_uz": ("tip", "uz"),
          "elbow_uz": ("elbow_b", "uz"), "tip_vz": ("tip", "uz", "v")}


def sag(model):
    """The ``sag`` step of spatial_arm.toml: statics under gravity, two increments."""
    return solve_static(model, steps=2)


def run(model, t_end=T_END, dt=DT, record_every=RECORD_EVERY, start=None):
    """solve_dynamic with the settings of the ``spinup`` step of spatial_arm.toml, from the
    last state of the static Results ``start`` (the sagged arm; rotational slots log R) or,
    when None, from the undeformed arm."""
    u0 = None if start is None else start.states[-1]
    return solve_dynamic(model, dt, t_end, scheme="midpoint", mass="lumped", record_every=record_every, probes=PROBES, u0=u0)


def tip_in_hub_frame(results):
    """Tip displacement (n_frames, 3) in the frame turning with the hub (radial, lag
    (positive: ahead of the radial line), vertical), m."""
    model = results.model
    tip = model.node("tip")
    x = model.mesh.points[tip] + np.array([[results.dof(tip, d, k) for d in ("ux", "uy", "uz")] for k in range(len(results))])
    phi = np.asarray(results.dof(model.node("hub"), "rz"))
    c, s = np.cos(phi), np.sin(phi)
    radial = c * x[:, 0] + s * x[:, 1] - model.mesh.points[tip, 0]
    return np.column_stack([radial, -s * x[:, 0] + c * x[:, 1], x[:, 2]])


def joint_angles(results):
    """Relative rotations (n_frames, 3): shoulder pitch about Y, elbow pitch about Y and
    elbow yaw about Z (rad; components of log(R_aᵀ R_b) in the joint's reference frame)."""
    from scipy.spatial.transform import Rotation

    model = results.model
    R = np.asarray(results.arrays["rotations"])
    out = []
    for a, b, comp in (("clevis", "shoulder", 1), ("elbow_a", "elbow_b", 1), ("elbow_a", "elbow_b", 2)):
        Q = np.einsum("kji,kjl->kil", R[:, model.node(a)], R[:, model.node(b)])
        out.append(Rotation.from_matrix(Q).as_rotvec()[:, comp])
    return np.column_stack(out)


def energy_summary(results):
    """(max |energy residual|, largest kinetic energy, drive work, dissipated energy) in J."""
    last = lambda name: float(results.series(name)[-1])  # noqa: E731
    return (float(np.max(np.abs(results.series("energy_residual")))), float(np.max(results.series("kinetic_energy"))),
            last("constraint_work"), last("dissipated_energy"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="spatial_arm_out")
    parser.add_argument("--elements", type=int, default=4)
    parser.add_argument("--t-end", type=float, default=T_END)
    args = parser.parse_args(argv)
    model = build(args.elements)
    static = sag(model)
    results = run(model, args.t_end, start=static)
    out = Path(args.out)
    surfaces = {"link1": {"shape": "circle", "diameter": D1}, "link2": {"shape": "circle", "diameter": D2},
                "hub": {"shape": "circle", "diameter": 0.04}}
    results_to_vtk(results, out, surfaces=surfaces)
    write_history_csv(results, out / "history.csv")
    write_run_json(out / "run.json", model, results, {"dt": DT, "scheme": "midpoint", "mass": "lumped"})

    w, ang = tip_in_hub_frame(results), joint_angles(results)
    t = np.asarray(results.times)
    np.savetxt(out / "hub_frame.csv", np.column_stack([t, w, ang]), delimiter=",", comments="",
               header="time,tip_radial,tip_lag,tip_vertical,shoulder_pitch,elbow_pitch,elbow_yaw")
    tip = model.node("tip")
    print(f"spatial arm, {args.elements} beam3d elements per link, {results.info['steps']} steps in {results.info['wall_time']:.2f} s")
    sag_angles = joint_angles(static)[-1]
    print(f"  static sag under gravity: tip uz = {1e3 * static.dof(tip, 'uz', -1):+.3f} mm, "
          f"joint angles (shoulder, elbow pitch) {sag_angles[0]:+.1e}, {sag_angles[1]:+.1e} rad")
    for k, label in enumerate(("radial", "lag (+ ahead)", "vertical")):
        lo, hi = int(np.argmin(w[:, k])), int(np.argmax(w[:, k]))
        print(f"  tip {label:14s} {1e3 * w[lo, k]:+8.3f} mm (t = {t[lo]:4.2f} s) .. {1e3 * w[hi, k]:+8.3f} mm (t = {t[hi]:4.2f} s)")
    for k, label in enumerate(("shoulder pitch", "elbow pitch", "elbow yaw")):
        print(f"  {label:14s} {ang[:, k].min():+.4f} .. {ang[:, k].max():+.4f} rad")
    residual, kmax, drive, dissipated = energy_summary(results)
    print(f"  drive work {drive:.3f} J, dissipated by the joint dampers {dissipated:.3f} J, "
          f"final kinetic energy {results.series('kinetic_energy')[-1]:.3f} J")
    print(f"  energy balance: max |T + V + D - W| drift = {residual:.2e} J = {residual / kmax:.1e} x max kinetic energy")
    print(f"  joint constraint residual: max |Phi| = {np.max(results.series('constraint_residual')):.1e}")
    print(f"results in {out}/ (open results.pvd or results_surface.pvd in ParaView, Warp By Vector 'displacement')")
    return {"static": static, "results": results}


if __name__ == "__main__":
    main()
