"""Model builders and runner of the Craig–Bampton slider-crank case (cb-slider-crank):
Meijaard's flexible slider-crank, case 1 (ω = 124.8 rad/s, massless slider), in 3-D with
the connecting rod as one co-rotated superelement, as a chain of superelements, or as a
chain of beam3d elements.

Geometry and data as femb.validation.models.slider_crank (Chu & Pan): rigid crank
r = 0.1524 m turning at ω from θ0 = 0 (the crank pin's translations prescribed,
r(cos ωt − 1), r sin ωt), steel rod L = 0.3048 m, d = 6.35 mm along +x from the pin to the
slider (guided on the x axis: uy, uz fixed). Planar motion is kept by the supports: uz, rx
and ry are fixed at both rod ends, so each end is a hinge about z. The rod starts
undeformed with the rigid-body velocity of the mechanism at θ = 0.
"""
import time

import numpy as np

from femb.mesh import line_mesh
from femb.mesh.mesh import Mesh
from femb.model import Material, Model, Section
from femb.results.superelements import superelement_positions
from femb.solvers.dynamics.driver import solve_dynamic
from femb.solvers.reduction.component import reduce_component
from femb.solvers.reduction.stress_stiffening import modal_geometric_stiffness
from femb.validation.signals import first_local_extremum

CRANK, ROD, DIAMETER = 0.1524, 0.3048, 0.00635
OMEGA = 124.8
PAPER_PEAK = 0.00976  # Meijaard (1993), Table 3, case 1
STEEL = Material(E=2.06843e11, nu=0.235, rho=7834.56, name="steel")
ROD_SECTION = Section(A=np.pi * DIAMETER**2 / 4, I=np.pi * DIAMETER**4 / 64, J=np.pi * DIAMETER**4 / 32,
                      name="rod d=6.35mm")


def rod_component(n_el, length=ROD):
    """The rod alone: ``n_el`` beam3d elements along x from 0 to ``length`` (node sets
    rod_start, rod_end), Euler–Bernoulli, the slider-crank's steel and section."""
    model = Model(line_mesh((0.0, 0.0, 0.0), (length, 0.0, 0.0), n_el, "rod"), name=f"rod ({n_el} beam3d)")
    model.add_part("rod", "beam3d", "rod", STEEL, ROD_SECTION)
    return model


def reduced_rod(k, n_el=16, length=ROD):
    """The rod reduced on its two end nodes with k fixed-interface modes (lumped mass)."""
    comp = rod_component(n_el, length)
    return reduce_component(comp, [comp.node("rod_start"), comp.node("rod_end")], k, mass="lumped")


def rod_superelement(k, n_el=16, length=ROD, stiffening=True):
    """The reduced rod as superelement data; ``stiffening``: with its geometric tensor G,
    so that the rod's strain energy is the projected Green-strain energy and its axial
    force stiffens its bending inside the superelement (elements.superelement_frame)."""
    rc = reduced_rod(k, n_el, length)
    return rc.superelement(geometric=modal_geometric_stiffness(rc) if stiffening else None)


def _mechanism(model, pin, slider, omega, joints=False):
    """Crank drive, slider guide, planar supports and the initial rigid-body velocity
    (pin velocity rω upwards, slider at rest, rod turning at −rω/L) on the rod's nodes.

    Supports (default): the pin's translations prescribed, uz, rx, ry fixed at both rod
    ends, slider uy = uz = 0. ``joints``: the crank is a rigid_body3d on the last model node
    (at the origin, bearing fixed, rz = ωt prescribed), a revolute joint about z joins it
    to the pin node and the slider node slides on the x axis (``on_line``); the rod's
    out-of-plane and torsional motion is then held by the revolute joint alone."""
    r, L = CRANK, ROD
    rod_nodes = list(range(model.mesh.n_nodes))
    if joints:
        crank = model.mesh.n_nodes - 1
        rod_nodes.remove(crank)
        m_crank = 0.5
        model.add_discrete("crank_body", "rigid_body3d", crank, m=m_crank, Jxx=1e-3 * m_crank * r**2 / 3,
                           Jyy=m_crank * r**2 / 3, Jzz=m_crank * r**2 / 3)
        model.fix(crank, ("ux", "uy", "uz", "rx", "ry"))
        model.prescribe(crank, "rz", function=lambda t: omega * t)
        model.initial_velocity(crank, rz=omega)
        model.joint3d("revolute", crank, pin, axis=(0.0, 0.0, 1.0), name="crank pin")
        model.on_line(slider, (r + L, 0.0, 0.0), (1.0, 0.0, 0.0), name="slider")
    else:
        model.prescribe(pin, "ux", function=lambda t: r * (np.cos(omega * t) - 1.0))
        model.prescribe(pin, "uy", function=lambda t: r * np.sin(omega * t))
        model.fix(pin, ("uz", "rx", "ry"))
        model.fix(slider, ("uy", "uz", "rx", "ry"))
    s = model.mesh.points[:, 0] - r
    for node in rod_nodes:
        model.initial_velocity(node, ux=0.0, uy=r * omega * (1.0 - s[node] / L), rz=-r * omega / L)
    model.info.update(crank=r, rod_length=L, omega=omega)
    return model


def slider_crank_superelements(k, n_el=16, pieces=1, omega=OMEGA, joints=False, stiffening=True):
    """The slider-crank with the rod as ``pieces`` superelements in a row, each ``n_el``
    beam3d elements reduced on its end nodes with k modes. Model nodes 0 … pieces along the
    rod (0 the crank pin, ``pieces`` the slider; with ``joints`` node pieces + 1 is the
    crank, see ``_mechanism``); superelement parts rod0, rod1, … ``stiffening``: each
    superelement with its geometric tensor (``rod_superelement``)."""
    ls = ROD / pieces
    red = rod_superelement(k, n_el, ls, stiffening)
    pts = np.zeros((pieces + 1 + bool(joints), 3))
    pts[:pieces + 1, 0] = CRANK + np.linspace(0.0, ROD, pieces + 1)
    model = Model(Mesh(pts), name=f"slider-crank, rod = {pieces} superelement(s), k = {k}")
    for i in range(pieces):
        model.add_superelement(f"rod{i}", red, [i, i + 1], placement=(np.eye(3), [CRANK + i * ls, 0.0, 0.0]))
    model.info.update(pieces=pieces, n_el=n_el, k=k)
    return _mechanism(model, 0, pieces, omega, joints)


def slider_crank_beam3d(n_el=16, omega=OMEGA):
    """The slider-crank with the rod as a chain of ``n_el`` co-rotational beam3d elements."""
    model = Model(line_mesh((CRANK, 0.0, 0.0), (CRANK + ROD, 0.0, 0.0), n_el, "rod"), name=f"slider-crank, {n_el} beam3d")
    model.add_part("rod", "beam3d", "rod", STEEL, ROD_SECTION)
    model.info.update(pieces=0, n_el=n_el)
    return _mechanism(model, model.node("rod_start"), model.node("rod_end"), omega)


def _node_positions(res, model, node):
    X = model.mesh.points[node]
    return X + np.column_stack([res.dof(node, d) for d in ("ux", "uy", "uz")])


def rod_points(res):
    """(pin, mid, slider) current positions (n_frames, 3) each over the frames of a run of
    one of this module's models: the rod midpoint is a model node (beam chain, even number
    of superelements) or recovered from the superelement's full mesh (odd number: the
    middle piece's mid node, femb.results.superelements.superelement_positions)."""
    model = res.model
    pieces = model.info["pieces"]
    if pieces == 0:
        n = model.mesh.n_nodes - 1
        return tuple(_node_positions(res, model, i) for i in (0, n // 2, n))
    pin, slider = _node_positions(res, model, 0), _node_positions(res, model, pieces)
    if pieces % 2 == 0:
        return pin, _node_positions(res, model, pieces // 2), slider
    part, mid = f"rod{pieces // 2}", model.info["n_el"] // 2
    mids = np.array([superelement_positions(model, res.table, part, u)[1][mid] for u in res.states])
    return pin, mids, slider


def rod_midpoint_deflection(res):
    """Lateral offset of the rod midpoint from the chord pin → slider, over L, all frames
    (positive to the left of the chord, as femb.validation.models.rod_midpoint_deflection)."""
    a, m, b = rod_points(res)
    chord, rel = b - a, m - a
    cross = chord[:, 0] * rel[:, 1] - chord[:, 1] * rel[:, 0]
    return cross / np.linalg.norm(chord, axis=1) / res.model.info["rod_length"]


def slider_crank_run(model, dt, end_angle=1.2):
    """Run a slider-crank model with the energy-conserving mid-point scheme (lumped mass)
    to the crank angle ``end_angle``: first peak of w_mid/L and its crank angle, the
    history, the largest energy residual, wall time per step and mean Newton iterations."""
    omega = model.info["omega"]
    t0 = time.perf_counter()
    res = solve_dynamic(model, dt, end_angle / omega, mass="lumped")
    wall = time.perf_counter() - t0
    theta = omega * np.asarray(res.times)
    w = rod_midpoint_deflection(res)
    peak, angle = first_local_extremum(theta, w, threshold=1e-3)
    steps = len(res.times) - 1
    return {"peak": peak, "angle": angle, "theta": theta, "w": w, "steps": steps, "time_per_step": wall / steps,
            "iterations": float(np.mean(np.asarray(res.series("iterations"))[1:])),
            "energy_residual": float(np.max(np.abs(res.series("energy_residual"))))}


def in_plane_share(reduced, mode=0):
    """Share of the in-plane (uy) part in the transverse motion (uy, uz) of fixed-interface
    mode ``mode`` of a reduced rod, Σuy²/Σ(uy² + uz²) over its nodes (1: in the plane of
    the mechanism, 0: out of it). The bending modes of the round rod come in degenerate
    pairs, so one mode alone has an arbitrary orientation in its pair."""
    e = np.zeros(reduced.basis.n_boundary + reduced.basis.n_modes)
    e[reduced.basis.n_boundary + mode] = 1.0
    u = reduced.full_displacement(e)
    t = reduced.table
    uy, uz = (u[t.node_var[:, t.dof_names.index(d)]] for d in ("uy", "uz"))
    return float(np.sum(uy**2) / np.sum(uy**2 + uz**2))


def cb_slider_crank_case(quick):
    """Metrics of cb-slider-crank (validation/README.md): the rod as one superelement with
    k = 1, 2, 4, 8 modes, as a chain of 4 superelements (k = 2 each) and as a beam3d chain,
    mesh 16 (quick) or 32 beam3d elements, Δt = 4e-5 s (quick) or 2e-5 s; the reduced models
    of femb.validation.analytic with and without the axial force of the rod; the 2-D
    floating-frame rod without geometric stiffening (same mesh and step,
    femb.validation.mechanism_cases.slider_crank_peak) against the k = 8 superelement.
    ``monotone_towards_chain`` (reported): 1 when |peak_k − beam chain| does not grow over
    k = 1, 2, 4, 8; ``k_convergence``: the largest relative difference of the k = 2 and 4
    peaks from the k = 8 one."""
    from femb.validation.analytic import slider_crank_reduced
    from femb.validation.mechanism_cases import slider_crank_peak

    n_el, dt = (16, 4e-5) if quick else (32, 2e-5)
    ks = (1, 2, 4, 8)
    single = {k: slider_crank_run(slider_crank_superelements(k, n_el), dt) for k in ks}
    linear = slider_crank_run(slider_crank_superelements(4, n_el, stiffening=False), dt)
    chain = slider_crank_run(slider_crank_beam3d(n_el), dt)
    se_chain = slider_crank_run(slider_crank_superelements(2, n_el // 4, pieces=4), dt)
    linear_peak, linear_angle, linear_theta, linear_w = slider_crank_reduced(OMEGA, 0.0, geometric=False)
    stiff_peak, _, stiff_theta, stiff_w = slider_crank_reduced(OMEGA, 0.0)
    floating_peak = slider_crank_peak(OMEGA, 0.0, n_rod=n_el, dt=dt, floating=True)[0]
    gaps = [abs(single[k]["peak"] - chain["peak"]) for k in ks]
    runs = list(single.values()) + [linear, chain, se_chain]
    metrics = {
        "first_peak": single[4]["peak"],
        "first_peak_angle": single[4]["angle"],
        "beam_chain_gap": single[4]["peak"] / chain["peak"] - 1.0,
        "beam_chain_peak": chain["peak"],
        "superelement_chain_peak": se_chain["peak"],
        "k_convergence": max(abs(single[k]["peak"] / single[8]["peak"] - 1.0) for k in (2, 4)),
        "monotone_towards_chain": float(all(b <= a for a, b in zip(gaps, gaps[1:]))),
        "energy_residual": max(r["energy_residual"] for r in runs),
        "floating_frame_agreement": linear["peak"] / floating_peak - 1.0,
        "linear_first_peak": linear["peak"],
        "floating_frame_peak": floating_peak,
        "linear_body_peak": linear_peak,
        "linear_body_gap": linear_peak / stiff_peak - 1.0,
        "k1_in_plane_share": in_plane_share(reduced_rod(1, n_el)),
    }
    for k in ks:
        metrics[f"peak_k{k}"] = single[k]["peak"]
    for label, r in (("k4", single[4]), ("k4_linear", linear), ("beam_chain", chain), ("superelement_chain", se_chain)):
        metrics[f"time_per_step_{label}"] = r["time_per_step"]
        metrics[f"iterations_{label}"] = r["iterations"]
    curves = [{"x": single[k]["theta"].tolist(), "y": single[k]["w"].tolist(), "label": f"one superelement, k = {k}"} for k in ks]
    curves.append({"x": linear["theta"].tolist(), "y": linear["w"].tolist(), "label": "one superelement, k = 4, no G",
                   "style": "dashed"})
    curves += [{"x": chain["theta"].tolist(), "y": chain["w"].tolist(), "label": f"{n_el} beam3d elements"},
               {"x": se_chain["theta"].tolist(), "y": se_chain["w"].tolist(), "label": "4 superelements, k = 2"},
               {"x": linear_theta[::20].tolist(), "y": linear_w[::20].tolist(), "label": "reduced model, no axial force",
                "style": "dashed"},
               {"x": stiff_theta[::20].tolist(), "y": stiff_w[::20].tolist(), "label": "reduced model, axial force",
                "style": "dashed"}]
    peaks = {"curves": [{"x": list(ks), "y": [single[k]["peak"] for k in ks], "label": "one superelement", "style": "markers"},
                        {"x": [ks[0], ks[-1]], "y": [chain["peak"]] * 2, "label": "beam3d chain", "style": "dashed"},
                        {"x": [ks[0], ks[-1]], "y": [PAPER_PEAK] * 2, "label": "Meijaard (1993)", "style": "dashed"}],
             "xlabel": "fixed-interface modes k", "ylabel": "first peak of w_mid / L", "title": "first peak against k"}
    return {"metrics": metrics,
            "series": {"history": {"curves": curves, "xlabel": "crank angle [rad]", "ylabel": "w_mid / L",
                                   "title": f"slider-crank ω = {OMEGA} rad/s, superelement rod"},
                       "history_peaks": peaks}}
