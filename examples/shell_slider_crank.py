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
largest difference between the two deflection histories relative to the peak. With
``--out DIR`` it writes, per coupler, a ParaView collection ``<coupler>.pvd`` (every
``VTK_EVERY``-th step, as the case file records; with ``<coupler>_surface.pvd``: the strip
as a slab, the beam as its rectangular section swept along it) and the history
``<coupler>_history.csv``, and the plot ``history.png`` (mid-span deflections of both
couplers, the energies and the energy residual against time; needs matplotlib).

The case file examples/shell_slider_crank.toml is the shell4 mechanism (its mesh
examples/shell_slider_crank.msh is ``write_coupler_mesh()``'s), run with
``femb run examples/shell_slider_crank.toml --out shell_slider_crank_out``.

Run ``python examples/shell_slider_crank.py [t_end] [--out DIR]``.
"""
import argparse
from pathlib import Path

import numpy as np

from femb import CellBlock, Material, Mesh, Model, Section, results_to_vtk, solve_dynamic, write_history_csv, write_mesh

R, L, B, T = 0.15, 0.3, 0.02, 0.003    # crank radius, coupler length, width, thickness (m)
OMEGA, T_UP = 60.0, 0.05                # crank speed (rad/s), start-up time (s)
N_ALONG = 8
M_CRANK = 0.5                           # crank mass (kg), a uniform rod about its end
STEEL = Material(E=210e9, nu=0.3, rho=7850.0, name="steel")
DT, T_END, VTK_EVERY = 2e-4, 0.15, 5     # time step, end time (s), ParaView frame every n steps
PROBES = {"crank_angle": ("crank", "rz"), "A_ux": ("A", "ux"), "A_uy": ("A", "uy"), "B_ux": ("B", "ux"),
          "mid_ux": ("mid", "ux"), "mid_uy": ("mid", "uy"), "mid_uz": ("mid", "uz")}
MESH_FILE = Path(__file__).with_suffix(".msh")


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


def write_coupler_mesh(path=MESH_FILE):
    """Write the ``shell4`` mesh of :func:`coupler_mesh` (gmsh 2.2 ASCII for a ``.msh``
    path), the mesh file of examples/shell_slider_crank.toml; returns the path."""
    return write_mesh(coupler_mesh("shell4"), path)


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


def run(coupler="shell4", t_end=T_END, dt=DT, record_every=1):
    """solve_dynamic (mid-point, lumped mass) of the mechanism, a frame every
    ``record_every`` steps; returns a dict of checks and the Results (``results``)."""
    res = solve_dynamic(build(coupler), dt, t_end, scheme="midpoint", mass="lumped", record_every=record_every, probes=PROBES)
    W = res.series("constraint_work")
    w, z = coupler_deflection(res)
    return {"energy_residual": float(np.abs(res.series("energy_residual")).max() / max(np.abs(W).max(), 1e-300)),
            "driver_work": float(W[-1]), "joint_residual": float(np.max(res.series("constraint_residual"))),
            "peak_deflection": float(w[np.argmax(np.abs(w))]), "out_of_plane": float(np.abs(z).max()),
            "newton_iterations_per_step": float(res.info["newton_iterations"] / res.info["steps"]),
            "deflection": w, "results": res}


def write_outputs(out, runs):
    """ParaView collections, histories and ``history.png`` of ``runs`` (coupler -> the dict
    of :func:`run`) in the folder ``out``; returns the paths written."""
    out = Path(out)
    written = []
    for kind, r in runs.items():
        res = r["results"]
        frames = sorted(set(range(0, len(res), VTK_EVERY)) | {len(res) - 1})
        written.append(results_to_vtk(res, out, name=kind, frames=frames, surfaces=True).path)
        written.append(write_history_csv(res, out / f"{kind}_history.csv"))
    written.append(plot_history(out / "history.png", runs))
    return written


def plot_history(path, runs):
    """Mid-span deflections from the chord (top), kinetic and strain energy against the
    motor's work (middle) and the energy residual relative to the work (bottom)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, mid, bottom) = plt.subplots(3, 1, figsize=(9, 8), dpi=110, sharex=True, gridspec_kw={"height_ratios": [2, 1.4, 1]})
    styles = {"shell4": ("tab:blue", "-"), "beam3d": ("tab:orange", "--")}
    for kind, r in runs.items():
        res, (color, ls) = r["results"], styles[kind]
        ms = 1e3 * np.asarray(res.times)
        top.plot(ms, 1e3 * r["deflection"], ls, color=color, lw=1.4, label=f"{kind} coupler (peak {1e3 * r['peak_deflection']:+.3f} mm)")
        W = res.series("constraint_work")
        if kind == "shell4":
            mid.plot(ms, W, color="black", lw=3, alpha=0.3, label="W: work of the motor")
            mid.plot(ms, res.series("kinetic_energy"), color="tab:blue", lw=1.2, label="kinetic energy T")
            right = mid.twinx()
            right.plot(ms, 1e3 * res.series("strain_energy"), color="tab:green", lw=1.2, label="strain energy V (right)")
            right.set_ylabel("V [mJ]", color="tab:green")
            right.legend(fontsize=8, loc="lower right")
        scale = max(np.abs(W).max(), 1e-300)
        bottom.plot(ms, res.series("energy_residual") / scale, ls, color=color, lw=1.0, label=kind)
    top.set_ylabel("mid-span deflection [mm]")
    top.set_title("slider-crank, coupler a 20 × 3 mm steel strip: shell4 and beam3d, mid-point rule, Δt = 0.2 ms")
    mid.set_ylabel("shell4: T, W [J]")
    bottom.set_ylabel("energy residual / max W")
    bottom.set_xlabel("time [ms]")
    for ax in (top, mid, bottom):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return Path(path)


def main(t_end=T_END, dt=DT, out=None):
    """Both couplers; returns {"shell4": ..., "beam3d": ..., "difference": max |w_s − w_b| /
    max |w_b|}; with ``out`` (a folder) also writes the outputs (:func:`write_outputs`)."""
    out_runs = {kind: run(kind, t_end, dt) for kind in ("shell4", "beam3d")}
    wb = out_runs["beam3d"]["deflection"]
    result = dict(out_runs)
    result["difference"] = float(np.abs(out_runs["shell4"]["deflection"] - wb).max() / np.abs(wb).max())
    if out is not None:
        result["written"] = write_outputs(out, out_runs)
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("t_end", nargs="?", type=float, default=T_END)
    parser.add_argument("--out", help="folder for the ParaView collections, histories and history.png")
    args = parser.parse_args()
    r = main(args.t_end, out=args.out)
    for kind in ("shell4", "beam3d"):
        print(f"{kind} coupler")
        for key, val in r[kind].items():
            if key not in ("deflection", "results"):
                print(f"  {key:28s} {val: .6g}")
    print(f"max |w_shell - w_beam| / max |w_beam| = {r['difference']:.4f}")
    if args.out:
        print(f"written to {args.out}/: " + ", ".join(Path(p).name for p in r["written"]))
        print("  open shell4.pvd / shell4_surface.pvd in ParaView (Warp By Vector 'displacement', scale 1)")
