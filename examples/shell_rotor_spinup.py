"""A rotor with pitched shell blades on a revolute bearing, spun up by a motor torque
(energy-momentum mid-point scheme with co-rotational shells), and its Campbell diagram.

Two aluminium blades (3 m × 0.3 m × 10 mm, ``shell4`` strips of 8 × 1 quads) stand on a hub
of radius 0.5 m, each pitched by 20° about its own radial axis. The hub is a rigid body
(``rigid_body3d``, 20 kg, J_z = 2 kg·m²) on a revolute joint to ground about the global z
axis (``joint3d("revolute", "hub", None, axis=(0, 0, 1))``); each blade root is carried by
two stiff steel spokes (``beam3d``, 50 mm round bars) from the hub node to its two root
nodes. A motor torque M(t) = J θ̈(t) acts on the hub about z, θ̈ the acceleration of
Meijaard's smooth spin-up law θ(t) = (Ω/T)[t²/2 + (T/2π)²(cos 2πt/T − 1)] up to T
(Ω = 6 rad/s, T = 2 s) and J the rotor's polar moment of inertia in the reference
configuration; after T the torque is zero and the rotor coasts. The blades lag behind
during the acceleration (in-plane bending, coupled to flap by the pitch) and then spin
with centrifugal stiffening.

Checks printed by ``main``: the balance of energy (kinetic + strain energy = work of the
motor torque, ``energy_residual``), the balance of angular momentum about the bearing axis
(L_z(T) = ∫M dt = J Ω, then constant), the joint residual, the rotor's rotational symmetry
(both blades deform alike), the tip lag and flap in the frame of the hub and the final
spin rate.

``campbell_diagram`` linearizes the steady spin (``femb.campbell``: relative equilibrium
under the centrifugal load, Coriolis, spin softening, geometric stiffening) with the hub
held at constant speed by the drive, and compares the first two flapwise (across the
blade) frequencies with Southwell's relation ω² = ω0² + (K_S − sin²β) Ω²: K_S the Rayleigh
quotient of the centrifugal tension with the non-rotating Euler–Bernoulli cantilever mode
(``southwell_coefficient``: 1.1933 and 6.4782 without hub offset, 1.4553 and 7.9194 for
this rotor's r/L = 1/6), which is the exact slope dω²/dΩ² at Ω = 0, and sin²β the spin
softening of the part of the motion that lies in the plane of rotation (pitch β). The
first flap follows it within 2 %. The second flap's measured coefficient lies below
K_S − sin²β = 7.802: 7.41 (−5.0 %) with the 8-quad blades, 7.62 (−2.4 %) with 32. The
gap is the model, not the reference: the coarse blade (−2.7 %, converging as h²), the
compliance of the spokes at the root (−1.3 %) and the plate's Poisson stiffening of the
ν = 0.3 strip (−0.9 %; a ν = 0 shell strip converges to the beam's 7.91). No
forward/backward splitting: the hub is held, so each blade mode appears twice (one per
blade) at the same frequency at every speed.

Run ``python examples/shell_rotor_spinup.py [t_end]``.
"""
import sys

import numpy as np
from scipy.integrate import quad
from scipy.optimize import brentq

from femb import CellBlock, Material, Mesh, Model, NewtonSettings, Section, campbell, solve_dynamic, solve_modal

N_BLADES, R_HUB, LENGTH, WIDTH, THICK, PITCH = 2, 0.5, 3.0, 0.3, 0.01, np.radians(20.0)
N_ALONG = 8
OMEGA, T_UP = 6.0, 2.0
ALU = Material(E=70e9, nu=0.3, rho=2700.0, name="aluminium")
STEEL = Material(E=210e9, nu=0.3, rho=7850.0, name="steel")
D_SPOKE = 0.05                   # spoke diameter (m)
M_HUB, J_HUB = 20.0, 2.0         # hub mass (kg) and polar moment (kg·m²); transverse moments J_HUB/2


def theta(t):
    """Meijaard's spin-up law: smooth to OMEGA at T_UP, constant speed afterwards (rad)."""
    if t <= T_UP:
        return OMEGA / T_UP * (0.5 * t * t + (T_UP / (2 * np.pi)) ** 2 * (np.cos(2 * np.pi * t / T_UP) - 1.0))
    return OMEGA * t - 0.5 * OMEGA * T_UP


def theta_ddot(t):
    """Angular acceleration of ``theta`` (rad/s²)."""
    return OMEGA / T_UP * (1.0 - np.cos(2 * np.pi * t / T_UP)) if t <= T_UP else 0.0


def blade_axes(k):
    """Unit vectors (radial e_r, width e_w) of blade k: e_r = (cos φ_k, sin φ_k, 0),
    φ_k = 2πk/N_BLADES, e_w = cos β e_t + sin β e_z (β the pitch)."""
    phi = 2 * np.pi * k / N_BLADES
    er = np.array([np.cos(phi), np.sin(phi), 0.0])
    ew = np.cos(PITCH) * np.array([-np.sin(phi), np.cos(phi), 0.0]) + np.sin(PITCH) * np.array([0.0, 0.0, 1.0])
    return er, ew


def rotor_mesh(n_along=N_ALONG):
    """Hub node 0 at the origin (node set ``hub``), the blades' quads (``n_along`` × 1 a
    blade, cell set ``blades``), the spokes (line cells ``spokes``) and the node sets
    ``root<k>``, ``tip<k>``."""
    pts, quads, spokes, sets = [np.zeros(3)], [], [], {"hub": np.array([0])}
    for k in range(N_BLADES):
        er, ew = blade_axes(k)
        base = len(pts)
        for i in range(n_along + 1):
            for j in range(2):
                pts.append((R_HUB + LENGTH * i / n_along) * er + (j - 0.5) * WIDTH * ew)
        for i in range(n_along):
            a = base + 2 * i
            quads.append((a, a + 2, a + 3, a + 1))
        spokes += [(0, base), (0, base + 1)]
        sets[f"root{k}"] = np.array([base, base + 1])
        sets[f"tip{k}"] = np.array([base + 2 * n_along, base + 2 * n_along + 1])
    cells = {"blades": CellBlock("quad", np.array(quads)), "spokes": CellBlock("line", np.array(spokes))}
    return Mesh(np.array(pts), cells, sets, source="rotor_mesh")


def polar_inertia():
    """Polar moment of inertia J (kg·m²) of the undeformed rotor about the bearing axis:
    hub, blades (thin strips, width projected on the plane of rotation) and spokes
    (slender rods from the axis)."""
    m_blade = ALU.rho * LENGTH * WIDTH * THICK
    J = J_HUB + N_BLADES * (m_blade / LENGTH * ((R_HUB + LENGTH) ** 3 - R_HUB**3) / 3.0
                            + m_blade * (WIDTH * np.cos(PITCH)) ** 2 / 12.0)
    mu_spoke = STEEL.rho * np.pi / 4 * D_SPOKE**2
    mesh = rotor_mesh()
    for a in np.concatenate([mesh.node_sets[f"root{k}"] for k in range(N_BLADES)]):
        x = mesh.points[a]
        J += mu_spoke * np.linalg.norm(x) * (x[0] ** 2 + x[1] ** 2) / 3.0
    return float(J)


def rotor(hub="torque", n_along=N_ALONG):
    """The rotor model. ``hub``: "torque" — the hub turns freely on its bearing and the motor
    torque J θ̈(t) drives it (dynamics); "held" — the hub's rotation about the axis is held
    (steady spin: a drive that keeps the speed constant); "free" — no torque, free hub.
    ``n_along``: quads along each blade."""
    mesh = rotor_mesh(n_along)
    model = Model(mesh, name="rotor with shell blades on a revolute bearing")
    model.add_part("blades", "shell4", "blades", ALU, Section(thickness=THICK))
    d = D_SPOKE
    model.add_part("spokes", "beam3d", "spokes", STEEL,
                   Section(A=np.pi / 4 * d**2, I=np.pi / 64 * d**4, J=np.pi / 32 * d**4, name="bar50"))
    model.add_discrete("hub_body", "rigid_body3d", "hub", m=M_HUB, Jxx=J_HUB / 2, Jyy=J_HUB / 2, Jzz=J_HUB)
    model.joint3d("revolute", "hub", None, axis=(0.0, 0.0, 1.0), name="bearing")
    if hub == "torque":
        J = polar_inertia()
        model.point_load("hub", amplitude=lambda t: J * theta_ddot(t), mz=1.0, name="motor")
    elif hub == "held":
        model.fix("hub", ("rz",))
    elif hub != "free":
        raise ValueError(f"hub must be 'torque', 'held' or 'free', not {hub!r}")
    return model


def tip_motion(res, k):
    """Tip (mean of the two tip nodes) of blade k in the frame of the hub: radial, lag
    (along the rotation) and flap (along z) displacements from the reference tip (m)."""
    model = res.model
    mesh = model.mesh
    tips = mesh.node_sets[f"tip{k}"]
    x = np.mean([mesh.points[a] + np.column_stack([res.dof(int(a), d) for d in ("ux", "uy", "uz")]) for a in tips], axis=0)
    x0 = mesh.points[tips].mean(axis=0)
    th = hub_angle(res)
    c, s = np.cos(th), np.sin(th)
    xb = c * x[:, 0] + s * x[:, 1]  # back to the hub frame at t = 0
    yb = -s * x[:, 0] + c * x[:, 1]
    er, _ = blade_axes(k)
    et = np.array([-er[1], er[0]])
    d = np.column_stack([xb - x0[0], yb - x0[1]])
    return d @ er[:2], d @ et, x[:, 2] - x0[2]


def hub_angle(res):
    """Hub rotation angle about z (rad, unwrapped) from its rotation matrices."""
    R = np.asarray(res.arrays["rotations"])[:, res.model.node("hub")]
    return np.unwrap(np.arctan2(R[:, 1, 0], R[:, 0, 0]))


def main(t_end=3.0, dt=0.01):
    """Spin-up run; returns a dict of the checks and the Results (``results``)."""
    model = rotor("torque")
    res = solve_dynamic(model, dt, t_end, record_every=1)
    E = res.series("total_energy")
    W = res.series("external_work")
    t = np.asarray(res.times)
    out = {"energy_residual": float(np.abs(res.series("energy_residual")).max() / np.abs(E).max()),
           "driver_work": float(W[-1]), "final_energy": float(E[-1] - E[0]),
           "joint_residual": float(np.max(res.series("constraint_residual")))}
    Lz = res.series("angular_momentum_z")
    impulse = polar_inertia() * OMEGA  # ∫ M dt over the spin-up
    after = t >= T_UP
    out["momentum_error"] = float(np.abs(Lz[after] - impulse).max() / impulse) if after.any() else float("nan")
    motions = [tip_motion(res, k) for k in range(N_BLADES)]
    radial, lag, flap = motions[0]
    out["symmetry"] = float(max(np.abs(np.array(m) - np.array(motions[0])).max() for m in motions)
                            / max(np.abs(np.array(motions[0])).max(), 1e-300))
    out["max_lag"] = float(lag[t <= T_UP].min())
    out["max_flap"] = float(np.abs(flap).max())
    out["final_radial"] = float(radial[-1])
    th = hub_angle(res)
    n = max(1, min(len(t) - 1, int(round(0.5 / dt))))
    out["final_spin_rate"] = float((th[-1] - th[-1 - n]) / (t[-1] - t[-1 - n]))
    out["newton_iterations_per_step"] = float(res.info["newton_iterations"] / res.info["steps"])
    out["results"] = res
    return out


def southwell_coefficient(mode=1, hub_ratio=R_HUB / LENGTH):
    """Southwell coefficient K_S of flapwise mode ``mode`` (1, 2, 3) of a uniform
    Euler–Bernoulli cantilever on a hub of radius r = hub_ratio·L: the Rayleigh quotient
    ∫ N̂ φ'² dx / ∫ φ² dx of the non-rotating mode φ under the centrifugal tension per unit
    mass and Ω², N̂(x) = r (L − x) + (L² − x²)/2 (nondimensional, L = 1). First order in Ω²,
    an upper bound for the first mode; 1.193 for r = 0."""
    beta = brentq(lambda x: np.cos(x) * np.cosh(x) + 1.0, (mode - 0.5) * np.pi - 0.4, (mode - 0.5) * np.pi + 0.4)
    s = (np.cosh(beta) + np.cos(beta)) / (np.sinh(beta) + np.sin(beta))

    def phi(x):
        return np.cosh(beta * x) - np.cos(beta * x) - s * (np.sinh(beta * x) - np.sin(beta * x))

    def dphi(x):
        return beta * (np.sinh(beta * x) + np.sin(beta * x) - s * (np.cosh(beta * x) - np.cos(beta * x)))

    def tension(x):
        return hub_ratio * (1.0 - x) + 0.5 * (1.0 - x * x)

    return quad(lambda x: tension(x) * dphi(x) ** 2, 0.0, 1.0, limit=200)[0] / quad(lambda x: phi(x) ** 2, 0.0, 1.0, limit=200)[0]


def campbell_diagram(speeds=(0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0), n_modes=6, n_along=N_ALONG):
    """Rotating natural frequencies (rad/s) of the rotor with the hub held at each spin
    speed (``femb.campbell``, lumped mass; the equilibrium of each speed starts from the
    previous one), blades of ``n_along`` quads. Returns a dict: ``speeds``, ``frequencies``
    (len(speeds), n_modes), ``modal`` (the modal analysis at rest), ``southwell`` and
    ``southwell_2`` (the first and second flapwise frequencies, modes 0 and 2 of the
    pairs, by Southwell's relation with ``southwell_coefficient(1 or 2)`` − sin²β, the
    coefficients in ``southwell_coefficient`` and ``southwell_coefficient_2``)."""
    model = rotor("held", n_along)
    speeds = np.asarray(speeds, dtype=float)
    # the residual floor of the stiff spokes (~1e-8 N) sits above 1e-9 of the centrifugal
    # load at low speeds: converge to 1e-7 of it
    freqs = campbell(model, speeds, n_modes=n_modes, settings=NewtonSettings(tolerance=1e-7))
    modal = solve_modal(rotor("held", n_along), n_modes).omega
    k1, k2 = (southwell_coefficient(mode) - np.sin(PITCH) ** 2 for mode in (1, 2))
    out = {"speeds": speeds, "frequencies": freqs, "modal": modal,
           "southwell": np.sqrt(modal[0] ** 2 + k1 * speeds**2), "southwell_coefficient": k1,
           "southwell_coefficient_2": k2}
    if n_modes > 2:
        out["southwell_2"] = np.sqrt(modal[2] ** 2 + k2 * speeds**2)
    return out


if __name__ == "__main__":
    r = main(float(sys.argv[1]) if len(sys.argv) > 1 else 3.0)
    for key, val in r.items():
        if key != "results":
            print(f"{key:28s} {val: .6g}")
    c = campbell_diagram()
    print(f"modal analysis at rest (rad/s): {np.array2string(c['modal'], precision=4)}")
    print(f"Southwell coefficients K_S - sin²β: flap 1 {c['southwell_coefficient']:.4f}, "
          f"flap 2 {c['southwell_coefficient_2']:.4f}")
    print("  Ω       modes of the spinning rotor (rad/s)                      Southwell (flap 1, flap 2)")
    for om, f, sw, sw2 in zip(c["speeds"], c["frequencies"], c["southwell"], c["southwell_2"]):
        print(f"{om:5.1f}  " + " ".join(f"{x:8.4f}" for x in f) + f"   {sw:8.4f} {sw2:8.4f}")
