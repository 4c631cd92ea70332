"""Runners of the 3-D dynamic validation cases (energy-momentum scheme with beam3d).

- ``spin_up_b_3d``: Meijaard's planar spin-up B re-run with 3-D beams (the hub rotation
  about z prescribed at the clamped oriented node), compared with the 2-D reference.
- ``free_flight_3d``: a free-flying beam given an initial spin and a short load pulse,
  integrated with a step far larger than the axial period; after the pulse the total
  energy and the angular momentum must stay constant.
- ``spin_up_spatial``: the Kane–Ryan–Banerjee tube-and-channel beam spun up about a shaft
  (out-of-plane deflection and twist; the channel a line of beam3d elements with an
  eccentric shear centre), compared with the qualitative statements of the source and with
  femb's mesh- and step-converged solution (``write_spatial_history``).
"""
import numpy as np

from femb.mesh import CellBlock, Mesh, line_mesh
from femb.model import Material, Model, Section
from femb.solvers.dynamics.driver import solve_dynamic
from femb.validation.models import spin_up_angle
from femb.validation.signals import first_local_extremum, half_amplitude


def spin_up_beam_3d(n=16):
    """Spin-up B (Simo & Vu-Quoc data: L = 10 m, ρA = 1.2, EI = 1.4e4, ρI = 6e-4,
    GA = 1e7, EA = 2.8e7, Ω = 6 rad/s, T = 15 s) with ``n`` beam3d_timoshenko elements
    along x; the root node is clamped except for its rotation about z, which follows
    θ(t) (Meijaard eq. 22). Out-of-plane properties equal the in-plane ones (Iy = Iz,
    J = Iy + Iz)."""
    L, omega, T = 10.0, 6.0, 15.0
    mesh = line_mesh((0.0, 0.0, 0.0), (L, 0.0, 0.0), n, "beam")
    model = Model(mesh, dim=3, name="spin-up B (3-D beams)")
    material = Material(E=2.8e7, G=1.0e7, rho=1.2, name="Simo-Vu-Quoc beam")
    section = Section(A=1.0, Iy=5.0e-4, Iz=5.0e-4, J=1.0e-3, shear_factor=1.0, name="EA=2.8e7, EI=1.4e4")
    model.add_part("beam", "beam3d_timoshenko", "beam", material, section)
    model.fix("beam_start", ("ux", "uy", "uz", "rx", "ry"))
    model.prescribe("beam_start", "rz", function=spin_up_angle(omega, T))
    model.info.update(length=L, omega=omega, T=T)
    return model


def _tip_in_rotating_frame(res, theta):
    model = res.model
    tip = int(model.node("beam_end"))
    X = model.mesh.points[tip]
    x = X[0] + res.dof(tip, "ux")
    y = X[1] + res.dof(tip, "uy")
    th = np.array([theta(t) for t in res.times])
    return -np.sin(th) * x + np.cos(th) * y, X[2] + res.dof(tip, "uz")


def spin_up_b_3d(quick=True):
    """Metrics: extreme tip deflection in the rotating frame, half-amplitude of the
    residual vibration (t > 16 s), the largest out-of-plane tip motion, the energy
    residual and the Newton iterations per step (16 elements, Δt = 0.01 s as the planar
    case, 25 s, frames every 0.02 s). Residual amplitude 0.00390 m at Δt = 0.01 s and
    0.00389 m at 0.005 s (planar beam2d: 0.00399/0.00395 m)."""
    n = 16
    model = spin_up_beam_3d(n)
    theta = spin_up_angle(model.info["omega"], model.info["T"])
    res = solve_dynamic(model, 0.01, 25.0, mass="lumped", record_every=2)
    w, uz = _tip_in_rotating_frame(res, theta)
    t = np.asarray(res.times)
    peak, t_peak = first_local_extremum(t, w, threshold=1e-2, sign=-1.0)
    E = res.series("total_energy")
    return {
        "metrics": {"tip_extreme": peak, "tip_extreme_time": t_peak, "residual_amplitude": half_amplitude(w[t > 16.0]),
                    "out_of_plane": float(np.abs(uz).max()),
                    "energy_residual": float(np.abs(res.series("energy_residual")).max() / max(np.abs(E).max(), 1e-300)),
                    "newton_iterations_per_step": float(res.info["newton_iterations"] / res.info["steps"])},
        "series": {"history": {"curves": [{"x": t.tolist(), "y": w.tolist(), "label": f"femb beam3d, {n} elements"},
                                          {"x": [t_peak], "y": [peak], "label": "extreme", "style": "markers"}],
                               "xlabel": "t [s]", "ylabel": "tip deflection in the rotating frame [m]",
                               "title": "spin-up B with 3-D beams"}},
    }


def free_flying_beam(n=8):
    """A free skew beam3d (L ≈ 2 m, EA = 1e4, rotary inertia about all axes) with an
    initial tumbling spin, translation and deformation rate, hit by a force and moment
    pulse sin²(πt/0.5) during 0 ≤ t ≤ 0.5 s at its end."""
    model = Model(line_mesh((0.0, 0.0, 0.0), (2.0, 0.3, 0.2), n, "b"), dim=3, name="free-flying beam")
    model.add_part("b", "beam3d", "b", values={"EA": 1e4, "GJ": 8.0, "EIy": 10.0, "EIz": 12.0, "rhoA": 1.0,
                                               "rhoIp": 0.02, "rhoIy": 0.01, "rhoIz": 0.012})
    model.initial_rigid_velocity(velocity=(0.3, -0.2, 0.1), omega=(0.2, -0.3, 0.8), center=(0.5, -0.2, 0.1))
    model.initial_velocity("b_end", ux=0.2, uy=-0.1, uz=0.1)
    model.point_load("b_end", amplitude=lambda t: np.sin(np.pi * t / 0.5) ** 2 if t < 0.5 else 0.0, fy=3.0, fz=-2.0, mx=1.0)
    return model


def free_flight_3d(quick=True):
    """Metrics: largest relative change of the total energy and of the angular momentum
    after the pulse over 10⁴ steps (10³ in quick mode) of Δt = 0.05 s, about 3 periods of
    the highest axial mode per step."""
    n = 8
    model = free_flying_beam(n)
    dt = 0.05
    steps = 1000 if quick else 10000
    res = solve_dynamic(model, dt, 0.5 + steps * dt, record_every=5)
    t = np.asarray(res.times)
    E = res.series("total_energy")
    L = np.column_stack([res.series(f"angular_momentum_{c}") for c in "xyz"])
    after = t >= 0.5 - 1e-9
    i0 = np.flatnonzero(after)[0]
    l_ax = np.linalg.norm([2.0, 0.3, 0.2]) / n
    axial_period = np.pi * l_ax / np.sqrt(1e4)  # highest axial mode of the lumped chain ≈ 2c/l
    return {
        "metrics": {"energy_rel_error": float(np.abs(E[after] - E[i0]).max() / abs(E[i0])),
                    "angular_momentum_rel_error": float(np.abs(L[after] - L[i0]).max() / np.linalg.norm(L[i0])),
                    "step_over_axial_period": float(dt / axial_period),
                    "newton_iterations_per_step": float(res.info["newton_iterations"] / res.info["steps"])},
        "series": {"history": {"curves": [{"x": t.tolist(), "y": ((E - E[i0]) / abs(E[i0])).tolist(), "label": "total energy"},
                                          {"x": t.tolist(), "y": ((np.linalg.norm(L, axis=1) - np.linalg.norm(L[i0])) / np.linalg.norm(L[i0])).tolist(),
                                           "label": "|angular momentum|"}],
                               "xlabel": "t [s]", "ylabel": "relative change after the pulse",
                               "title": "free-flying beam, Δt ≫ axial period"}},
    }


# ---------------------------------------------------------------------------- spatial spin-up
# Kane–Ryan–Banerjee tube-and-channel beam (Meijaard 1993, Figs. 5–6). Where the source is
# illegible: channel I_y = 4.85e-9 m⁴ (digits "4.8?46"; exponent from the section: a
# channel with A = 73 mm², I_z = 8.2e-9 m⁴ and a shear centre 18.75 mm from the centroid
# has flanges about as wide as its web, 30 × 25 × 0.92 mm, hence I_y ≈ 5e-9 m⁴; with
# 4.85e-10 the channel buckles laterally during the spin-up, deflections of metres), and
# warping constant Γ = 5.0156e-13 m⁶ (exponent from a section estimate; it changes S_t by 4 %).
KRB = dict(E=6.895e10, G=2.6519e10, rho=2766.67, arm=8.0, tube=2.5, channel=5.5, omega=6.0, T=15.0,
           tube_A=3.84e-4, tube_I=1.5e-7, tube_St=5834.18,
           ch_A=7.3e-5, ch_Iy=4.85e-9, ch_Iz=8.2181e-9, ch_St=0.645207, ch_Gamma=5.0156e-13, ch_z0=-0.01875)


def _tube_values(p):
    """Direct beam3d values of the doubly symmetric tube."""
    E, rho, It = p["E"], p["rho"], p["tube_I"]
    return {"EA": E * p["tube_A"], "GJ": p["tube_St"], "EIy": E * It, "EIz": E * It, "rhoA": rho * p["tube_A"],
            "rhoIp": rho * 2.0 * It, "rhoIy": rho * It, "rhoIz": rho * It}


def _effective_torsion(p):
    """S_t,eff = S_t L/(L − √(EΓ/S_t)) of the channel (Meijaard: warping restrained near
    the ends)."""
    return p["ch_St"] * p["channel"] / (p["channel"] - np.sqrt(p["E"] * p["ch_Gamma"] / p["ch_St"]))


def _drive(model, p):
    """The shaft drive at node set ``root``: ux = r (cos θ − 1), uy = r sin θ, rz = θ
    prescribed (r the arm length), uz, rx, ry fixed."""
    theta = spin_up_angle(p["omega"], p["T"])
    r = p["arm"]
    model.fix("root", ("uz", "rx", "ry"))
    model.prescribe("root", "ux", function=lambda t: r * (np.cos(theta(t)) - 1.0))
    model.prescribe("root", "uy", function=lambda t: r * np.sin(theta(t)))
    model.prescribe("root", "rz", function=theta)


def spatial_spin_up_beam(n_tube=4, n_channel=16, p=KRB):
    """Spatial spin-up of the Kane–Ryan–Banerjee beam (Meijaard 1993) with beam3d elements.

    A shaft along global Z turns by θ(t) (Meijaard eq. 22, Ω = 6 rad/s, T = 15 s); a rigid
    arm of 8 m carries, along global X at t = 0, a doubly symmetric aluminium tube (2.5 m,
    ``n_tube`` elements) and a channel (5.5 m, ``n_channel`` elements). The root of the
    tube (x = 8 m) follows the arm: ux = 8 (cos θ − 1), uy = 8 sin θ, rz = θ prescribed,
    uz, rx, ry fixed. Section axes: local y = global Y, local z = global Z (the shaft), so
    in-plane bending uses the channel's strong I_z.

    The channel is one line of beam3d elements on its centroid line (which carries the
    mass, the rotary inertia about the centroid and the axial stiffness) with an eccentric
    section: the shear centre lies zs = z0 = −0.01875 m from the node line along local z
    (the shaft), and the section twists about it with S_t,eff = S_t L/(L − √(EΓ/S_t)) and
    bends with EIy, EIz (elements.beam3d, "Eccentric sections": Meijaard's linked-lines
    model of the channel, to second order in the local deformations, without links).
    Node sets: ``root``, ``tip`` (tip centroid), ``joint`` (tube end).
    """
    E, rho = p["E"], p["rho"]
    x0, x1, x2 = p["arm"], p["arm"] + p["tube"], p["arm"] + p["tube"] + p["channel"]
    xs = np.concatenate([np.linspace(x0, x1, n_tube + 1), np.linspace(x1, x2, n_channel + 1)[1:]])
    pts = np.column_stack([xs, np.zeros_like(xs), np.zeros_like(xs)])
    tube = np.column_stack([np.arange(n_tube), np.arange(1, n_tube + 1)])
    chan = np.column_stack([np.arange(n_tube, n_tube + n_channel), np.arange(n_tube + 1, n_tube + n_channel + 1)])
    mesh = Mesh(pts, {"tube": CellBlock("line", tube), "channel": CellBlock("line", chan)},
                {"root": [0], "tip": [n_tube + n_channel], "joint": [n_tube]}, source="spatial spin-up")
    model = Model(mesh, dim=3, name="spatial spin-up (Kane-Ryan-Banerjee beam)")
    model.add_part("tube", "beam3d", "tube", values=_tube_values(p))
    St_eff = _effective_torsion(p)
    model.add_part("channel", "beam3d", "channel", values={
        "EA": E * p["ch_A"], "GJ": St_eff, "EIy": E * p["ch_Iy"], "EIz": E * p["ch_Iz"], "rhoA": rho * p["ch_A"],
        "rhoIp": rho * (p["ch_Iy"] + p["ch_Iz"]), "rhoIy": rho * p["ch_Iy"], "rhoIz": rho * p["ch_Iz"],
        "ys": 0.0, "zs": p["ch_z0"]})
    _drive(model, p)
    model.info.update(omega=p["omega"], T=p["T"], St_eff=St_eff, length=x2)
    return model


def spatial_spin_up_linked(n_tube=4, n_channel=16, p=KRB, link_rigidity=(1e6, 1e2), small=0.0):
    """The spatial spin-up beam of ``spatial_spin_up_beam`` with Meijaard's own model of the
    channel: two parallel lines of beam3d elements joined by stiff links (the model the
    eccentric section replaces; kept to compare the two).

    A shaft along global Z turns by θ(t) (Meijaard eq. 22, Ω = 6 rad/s, T = 15 s); a rigid
    arm of 8 m carries, along global X at t = 0, a doubly symmetric aluminium tube (2.5 m,
    ``n_tube`` elements) and a channel (5.5 m, ``n_channel`` element pairs). The root of
    the tube (x = 8 m) follows the arm: ux = 8 (cos θ − 1), uy = 8 sin θ, rz = θ
    prescribed, uz, rx, ry fixed. Section axes: local y = global Y, local z = global Z
    (the shaft), so in-plane bending uses the channel's strong I_z.

    The channel's shear centre lies z0 = −0.01875 m from its centroid (along the shaft).
    As in Meijaard's model of the channel, it is a pair of parallel lines joined at every node
    by a short link along Z: the centroid line carries the mass, the rotary inertia and
    the axial stiffness only; the shear-centre line carries S_t,eff = S_t L/(L − √(EΓ/S_t))
    and both flexural rigidities only. The links are stiff beam3d elements (EA = 1e6 N,
    EI = GJ = 100 N·m², lengths 0.01875 m). ``small`` gives each line that fraction of the
    other line's rigidities: keep it 0. Any bending rigidity on the centroid line is
    wrong physics that grows under refinement: a uniform twist φ' about the shear-centre
    line moves the centroid line sideways by z0 φ while the links hold its nodal
    rotations to the shear-centre line's, so each centroid element is sheared by z0 φ'
    and stores 12 EI z0² φ'²/L_e per element — relative to the torsion energy
    24 EI z0²/(S_t L_e²), which is 1 at 64 pairs for small = 1e-3 (a static tip load then
    twists the tip 33 % less than S_t,eff gives). With small = 0 the static tip twist under
    a lateral tip load changes by 4e-5 between 4 and 64 pairs and is T L/S_t,eff within
    4e-4 (the deflection is moderately large).
    Node sets: ``root``, ``tip`` (tip centroid), ``tip_sc``, ``joint`` (tube end).
    """
    E, rho = p["E"], p["rho"]
    x0, x1, x2 = p["arm"], p["arm"] + p["tube"], p["arm"] + p["tube"] + p["channel"]
    z0 = p["ch_z0"]
    xs_t = np.linspace(x0, x1, n_tube + 1)
    xs_c = np.linspace(x1, x2, n_channel + 1)
    pts = [[x, 0.0, 0.0] for x in xs_t] + [[x, 0.0, 0.0] for x in xs_c[1:]] + [[x, 0.0, z0] for x in xs_c]
    n_c0 = n_tube  # index of the channel's first centroid node (the tube end)
    cen = list(range(n_c0, n_c0 + n_channel + 1))
    sc = list(range(n_tube + 1 + n_channel, n_tube + 1 + n_channel + n_channel + 1))
    tube = [[i, i + 1] for i in range(n_tube)]
    chc = [[cen[i], cen[i + 1]] for i in range(n_channel)]
    chs = [[sc[i], sc[i + 1]] for i in range(n_channel)]
    links = [[cen[i], sc[i]] for i in range(n_channel + 1)]
    mesh = Mesh(np.array(pts), {"tube": CellBlock("line", np.array(tube)), "channel": CellBlock("line", np.array(chc)),
                                "channel_sc": CellBlock("line", np.array(chs)), "links": CellBlock("line", np.array(links))},
                {"root": [0], "tip": [cen[-1]], "tip_sc": [sc[-1]], "joint": [n_c0]}, source="spatial spin-up")
    model = Model(mesh, dim=3, name="spatial spin-up (Kane-Ryan-Banerjee beam)")
    model.add_part("tube", "beam3d", "tube", values=_tube_values(p))
    St_eff = _effective_torsion(p)
    EIy, EIz, EA = E * p["ch_Iy"], E * p["ch_Iz"], E * p["ch_A"]
    model.add_part("channel", "beam3d", "channel", values={
        "EA": EA, "GJ": small * St_eff, "EIy": small * EIy, "EIz": small * EIz, "rhoA": rho * p["ch_A"],
        "rhoIp": rho * (p["ch_Iy"] + p["ch_Iz"]), "rhoIy": rho * p["ch_Iy"], "rhoIz": rho * p["ch_Iz"]})
    model.add_part("channel_sc", "beam3d", "channel_sc", values={
        "EA": small * EA, "GJ": St_eff, "EIy": EIy, "EIz": EIz, "rhoA": 0.0, "rhoIp": 0.0, "rhoIy": 0.0, "rhoIz": 0.0})
    model.add_part("links", "beam3d", "links", values={
        "EA": link_rigidity[0], "GJ": link_rigidity[1], "EIy": link_rigidity[1], "EIz": link_rigidity[1],
        "rhoA": 0.0, "rhoIp": 0.0, "rhoIy": 0.0, "rhoIz": 0.0})
    _drive(model, p)
    model.info.update(omega=p["omega"], T=p["T"], St_eff=St_eff, length=x2)
    return model


def _spatial_outputs(res):
    """Tip-centroid deflections in the rotating frame (in-plane u_y, out-of-plane u_z) and
    the total twist of the beam (rotation of the tip section relative to the root section
    about the local beam axis), all as arrays over the frames."""
    model = res.model
    theta = spin_up_angle(model.info["omega"], model.info["T"])
    tip = int(model.node("tip"))
    X = model.mesh.points[tip]
    x = X[0] + res.dof(tip, "ux")
    y = X[1] + res.dof(tip, "uy")
    th = np.array([theta(t) for t in res.times])
    v = -np.sin(th) * x + np.cos(th) * y
    w = X[2] + res.dof(tip, "uz")
    R = np.asarray(res.arrays["rotations"])
    root = int(model.node("root"))
    rel = np.einsum("kji,kjl->kil", R[:, root], R[:, tip])  # root section frame → tip section
    twist = np.arctan2(rel[:, 2, 1] - rel[:, 1, 2], rel[:, 1, 1] + rel[:, 2, 2])
    return v, w, twist


def spatial_spin_up_history(n_tube=4, n_channel=32, dt=0.01, t_end=30.0):
    """Run the spatial spin-up (frames every 0.05 s); returns the results and the arrays
    (t, u_y, u_z, twist) over the frames: tip-centroid deflections in the rotating frame
    (m) and total twist (rad), see ``_spatial_outputs``."""
    model = spatial_spin_up_beam(n_tube, n_channel)
    res = solve_dynamic(model, dt, t_end, mass="lumped", record_every=max(1, int(round(0.05 / dt))))
    v, w, tw = _spatial_outputs(res)
    return res, np.asarray(res.times), v, w, tw


HISTORY_COLUMNS = ("t", "u_y", "u_z", "twist")


def write_spatial_history(path, n_tube=8, n_channel=64, dt=0.01):
    """Write the converged history of the spatial spin-up (CSV: t [s], u_y [m], u_z [m],
    twist [rad] every 0.05 s) computed on the given mesh and step; the validation case
    compares its own run with it. Regenerate with
    ``python -c "from femb.validation.dynamic3d_cases import write_spatial_history as w; w('converged_history.csv')"``."""
    _, t, v, w, tw = spatial_spin_up_history(n_tube, n_channel, dt)
    header = (f"spatial spin-up converged history: {n_tube} tube elements, {n_channel} channel elements "
              f"(eccentric section), dt = {dt} s\n"
              + ",".join(HISTORY_COLUMNS))
    np.savetxt(path, np.column_stack([t, v, w, tw]), delimiter=",", header=header, fmt="%.10e")


def read_spatial_history(path):
    """The columns (t, u_y, u_z, twist) of a history written by ``write_spatial_history``."""
    data = np.loadtxt(path, delimiter=",", comments="#")
    return tuple(data[:, i] for i in range(len(HISTORY_COLUMNS)))


def _history_deviation(t, y, t_ref, y_ref):
    """max |y − y_ref| over the reference frames (y interpolated in time), relative to
    max |y_ref| (which must not vanish: a deviation relative to nothing means nothing)."""
    scale = np.abs(y_ref).max()
    if not scale > 0.0:
        raise ValueError("the reference history is zero: no scale for the deviation")
    return float(np.abs(np.interp(t_ref, t, y) - y_ref).max() / scale)


QUICK_SPATIAL = dict(n_tube=4, n_channel=16, t_end=8.0)


def spin_up_spatial(quick=False, n_tube=4, n_channel=32, dt=0.01, t_end=30.0, reference_history=None):
    """Metrics of the spatial spin-up: out-of-plane tip deflection and twist at t = 30 s,
    their largest values during the spin-up (signed), the ratio of the largest |u_z| over
    the last 5 s to the largest |u_z| (the source: u_z returns to zero once Ω is
    constant), the extreme in-plane deflection, the energy residual and the Newton
    iterations per step; with ``reference_history`` (a file of ``write_spatial_history``)
    also the largest deviation of u_y, u_z and the twist from it over the run (the
    reference frames up to ``t_end``), relative to each reference's largest magnitude.
    Default: 4 tube elements, 32 channel elements, Δt = 0.01 s, 30 s; the full run repeats
    it with twice the channel elements and reports the relative change of the peak |u_z| and
    |twist| between the two meshes (``peak_out_of_plane_mesh_change``,
    ``peak_twist_mesh_change``) and the fine mesh's peak u_z (``tip_uz_max_fine``).

    ``quick``: ``QUICK_SPATIAL`` instead (16 channel elements, the first 8 s: the spin-up
    through the extremes of u_y, u_z and the twist, about 10 s of run time), compared with
    the first 8 s of the same regression history; the values at the end and the return
    ratio need the constant-speed phase and are not computed."""
    if quick:
        n_tube, n_channel, t_end = QUICK_SPATIAL["n_tube"], QUICK_SPATIAL["n_channel"], QUICK_SPATIAL["t_end"]
    res, t, v, w, tw = spatial_spin_up_history(n_tube, n_channel, dt, t_end)
    E = res.series("total_energy")
    metrics = {"tip_uz_max": float(w[np.argmax(np.abs(w))]), "twist_max": float(tw[np.argmax(np.abs(tw))]),
               "tip_uy_extreme": float(v[np.argmax(np.abs(v))]),
               "energy_residual": float(np.abs(res.series("energy_residual")).max() / max(np.abs(E).max(), 1e-300)),
               "newton_iterations_per_step": float(res.info["newton_iterations"] / res.info["steps"])}
    if not quick:
        late = t >= t_end - 5.0
        metrics.update(tip_uz_final=float(w[-1]), twist_final=float(tw[-1]),
                       uz_return_ratio=float(np.abs(w[late]).max() / np.abs(w).max()))
        # mesh study: the same run with twice the channel elements (the two finest meshes)
        _, _, _, w2, tw2 = spatial_spin_up_history(n_tube, 2 * n_channel, dt, t_end)
        metrics.update(tip_uz_max_fine=float(w2[np.argmax(np.abs(w2))]),
                       peak_out_of_plane_mesh_change=float(abs(np.abs(w).max() / np.abs(w2).max() - 1.0)),
                       peak_twist_mesh_change=float(abs(np.abs(tw).max() / np.abs(tw2).max() - 1.0)))
    curves = [{"x": t.tolist(), "y": v.tolist(), "label": "u_y (in plane)"},
              {"x": t.tolist(), "y": (10.0 * w).tolist(), "label": "10 × u_z (out of plane)"},
              {"x": t.tolist(), "y": tw.tolist(), "label": "twist [rad]"}]
    if reference_history is not None:
        t_ref, v_ref, w_ref, tw_ref = read_spatial_history(reference_history)
        keep = t_ref <= t_end + 1e-9
        t_ref, v_ref, w_ref, tw_ref = t_ref[keep], v_ref[keep], w_ref[keep], tw_ref[keep]
        metrics.update(uy_history_deviation=_history_deviation(t, v, t_ref, v_ref),
                       uz_history_deviation=_history_deviation(t, w, t_ref, w_ref),
                       twist_history_deviation=_history_deviation(t, tw, t_ref, tw_ref))
        curves.append({"x": t_ref.tolist(), "y": (10.0 * w_ref).tolist(), "label": "10 × u_z, converged regression"})
    return {
        "metrics": metrics,
        "series": {"history": {"curves": curves,
                               "xlabel": "t [s]", "ylabel": "tip deflection in the rotating frame [m], twist [rad]",
                               "title": "spatial spin-up, Kane-Ryan-Banerjee beam"}},
    }
