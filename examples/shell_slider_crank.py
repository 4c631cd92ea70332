"""Slider-crank whose coupler is a thin steel strip meshed with shell4, on revolute joints,
integrated by the energy-conserving mid-point scheme, and the same mechanism with a beam3d
coupler.

A rigid crank (``rigid_body3d`` at the origin, r = 0.15 m, 0.5 kg) turns about the global z
axis; its rotation follows Meijaard's smooth start θ(t) = (ω/T)[t²/2 + (T/2π)²(cos 2πt/T − 1)]
up to T = 0.05 s, then ωt − ωT/2 (ω = 60 rad/s): a speed-controlled motor, whose work is the
solver's ``constraint_work``. The coupler (L = 0.3 m, width 20 mm, thickness 3 mm, steel)
stands on edge (width along z), so the mechanism bends it in the plane of motion across its
thickness; it is meshed with 8 × 2 ``shell4`` quads. Its end-edge mid-nodes carry the joints:
a revolute joint about z to the crank pin (``joint3d("revolute", "crank", "A", axis=(0, 0, 1))``,
the pin at offset (r, 0, 0) in the crank's frame) and a massless slider, node B on the x
axis (``on_line``).

The beam twin replaces the strip by 8 ``beam3d`` elements with the strip's section
(A = b t, I = b t³/12 in the plane of motion, t b³/12 out of it, J = b t³/3 (1 − 0.63 t/b)).
Expected agreement: the strip is narrow (b/L = 0.07) and gently bent (b²/(R t) ≈ 0.04 for
the curvature radius R ≈ L²/(10 w) of the measured deflection), so it bends as a beam with
EI = E b t³/12 (anticlastic curvature free, not the plate stiffness D b = EI/(1 − ν²)); mass,
rotary inertia and axial stiffness are the same; the difference is left to the
discretizations (bilinear MITC4 against cubic beam interpolation): the mid-span deflection
histories agree within 3.0 % of their peak with 8 elements each (peaks 1.746 and 1.777 mm
over 0.15 s) and 0.8 % with 16.

``main`` prints, for both couplers: the largest energy residual |T + V − T0 − V0 − W|
relative to the driver's work, the joint residual, the peak mid-span deflection of the
coupler from its chord (in the plane of motion), its out-of-plane deflection, and the
largest difference between the two deflection histories relative to the peak.

Run ``python examples/shell_slider_crank.py [t_end]``.
"""
import sys

import numpy as np

from femb import CellBlock, Material, Mesh, Model, Section, solve_dynamic

R, L, B, T = 0.15, 0.3, 0.02, 0.003    # crank radius, coupler length, width, thickness (m)
OMEGA, T_UP = 60.0, 0.05                # crank speed (rad/s), start-up time (s)
N_ALONG = 8
M_CRANK = 0.5                           # crank mass (kg), a uniform rod about its end
STEEL = Material(E=210e9, nu=0.3, rho=7850.0, name="steel")


def theta(t):
    """Crank angle: Meijaard's smooth start to OMEGA over T_UP, then constant speed (rad)."""
    if t <= T_UP:
        return OMEGA / T_UP * (0.5 * t * t + (T_UP / (2 * np.pi)) ** 2 * (np.cos(2 * np.pi * t / T_UP) - 1.0))
    return OMEGA * t - 0.5 * OMEGA * T_UP


def coupler_mesh(coupler):
    """Crank node 0 at the origin (node set ``crank``) and the coupler from (R, 0, 0) to
    (R + L, 0, 0): ``shell4`` N_ALONG × 2 quads in the xz plane (width along z) or
    N_ALONG ``beam3d`` lines. Node sets ``A``, ``B`` (the joint nodes: end mid-nodes) and
    ``mid`` (mid-span on the centre line)."""
    if coupler == "shell4":
        pts = [np.zeros(3)] + [(R + L * i / N_ALONG, 0.0, 0.5 * (j - 1) * B) for i in range(N_ALONG + 1) for j in range(3)]
        quads = [(1 + 3 * i + j, 4 + 3 * i + j, 5 + 3 * i + j, 2 + 3 * i + j) for i in range(N_ALONG) for j in range(2)]
        centre = [2 + 3 * i for i in range(N_ALONG + 1)]
        cells = {"coupler": CellBlock("quad", np.array(quads))}
    elif coupler == "beam3d":
        pts = [np.zeros(3)] + [(R + L * i / N_ALONG, 0.0, 0.0) for i in range(N_ALONG + 1)]
        centre = list(range(1, N_ALONG + 2))
        cells = {"coupler": CellBlock("line", np.array([(a, a + 1) for a in centre[:-1]]))}
    else:
        raise ValueError(f"coupler must be 'shell4' or 'beam3d', not {coupler!r}")
    sets = {"crank": np.array([0]), "A": np.array([centre[0]]), "B": np.array([centre[-1]]),
            "mid": np.array([centre[N_ALONG // 2]])}
    return Mesh(np.array(pts, dtype=float), cells, sets, source=f"slider-crank with a {coupler} coupler")


def build(coupler="shell4"):
    """The slider-crank Model with a ``shell4`` or ``beam3d`` coupler (module docstring)."""
    model = Model(coupler_mesh(coupler), dim=3, name=f"slider-crank, {coupler} coupler")
    if coupler == "shell4":
        model.add_part("coupler", "shell4", "coupler", STEEL, Section(thickness=T))
    else:
        model.add_part("coupler", "beam3d", "coupler", STEEL,
                       Section(A=B * T, Iy=T * B**3 / 12, Iz=B * T**3 / 12, J=B * T**3 / 3 * (1 - 0.63 * T / B), name="strip"))
    j_crank = M_CRANK * R**2 / 3
    model.add_discrete("crank_body", "rigid_body3d", "crank", m=M_CRANK, Jxx=1e-3 * j_crank, Jyy=j_crank, Jzz=j_crank)
    model.fix("crank", ("ux", "uy", "uz", "rx", "ry"))   # the crank's bearing
    model.prescribe("crank", "rz", function=theta)        # the speed-controlled motor
    model.joint3d("revolute", "crank", "A", axis=(0.0, 0.0, 1.0), name="crank pin")
    model.on_line("B", (R + L, 0.0, 0.0), (1.0, 0.0, 0.0), name="slider")
    return model


def coupler_deflection(res):
    """(in-plane, out-of-plane) deflection of the coupler's mid-span node from the chord
    A–B (m, (n_frames,) each): the signed distance in the xy plane (positive to the left of
    A→B) and the z displacement."""
    model = res.model
    X = model.mesh.points

    def position(name):
        a = model.node(name)
        return X[a][None, :] + np.column_stack([res.dof(a, d) for d in ("ux", "uy", "uz")])

    xa, xb, xm = position("A"), position("B"), position("mid")
    d, r = xb - xa, xm - xa
    w = (d[:, 0] * r[:, 1] - d[:, 1] * r[:, 0]) / np.linalg.norm(d[:, :2], axis=1)
    return w, xm[:, 2] - X[model.node("mid"), 2]


def run(coupler="shell4", t_end=0.15, dt=2e-4):
    """solve_dynamic (mid-point, lumped mass) of the mechanism; returns a dict of checks
    and the Results (``results``)."""
    res = solve_dynamic(build(coupler), dt, t_end, record_every=1)
    W = res.series("constraint_work")
    w, z = coupler_deflection(res)
    return {"energy_residual": float(np.abs(res.series("energy_residual")).max() / max(np.abs(W).max(), 1e-300)),
            "driver_work": float(W[-1]), "joint_residual": float(np.max(res.series("constraint_residual"))),
            "peak_deflection": float(w[np.argmax(np.abs(w))]), "out_of_plane": float(np.abs(z).max()),
            "newton_iterations_per_step": float(res.info["newton_iterations"] / res.info["steps"]),
            "deflection": w, "results": res}


def main(t_end=0.15, dt=2e-4):
    """Both couplers; returns {"shell4": ..., "beam3d": ..., "difference": max |w_s − w_b| /
    max |w_b|}."""
    out = {kind: run(kind, t_end, dt) for kind in ("shell4", "beam3d")}
    wb = out["beam3d"]["deflection"]
    out["difference"] = float(np.abs(out["shell4"]["deflection"] - wb).max() / np.abs(wb).max())
    return out


if __name__ == "__main__":
    r = main(float(sys.argv[1]) if len(sys.argv) > 1 else 0.15)
    for kind in ("shell4", "beam3d"):
        print(f"{kind} coupler")
        for key, val in r[kind].items():
            if key not in ("deflection", "results"):
                print(f"  {key:28s} {val: .6g}")
    print(f"max |w_shell - w_beam| / max |w_beam| = {r['difference']:.4f}")
