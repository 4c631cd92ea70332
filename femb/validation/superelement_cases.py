"""Model builders and runner of the co-rotated superelement validation case (cb-statics):
reduced = unreduced statics for interface loads, the same under a 90° rotation of the
support, a chain of superelements rolling up under an end moment, and the Craig–Bampton
frequencies of a free assembly; and a free-flying reduced shell plate after a load pulse
(cb-free-flight): energy, momenta and the impulse–momentum balance."""
import numpy as np
import scipy.linalg as sla

from femb.core.rotations import exp_so3
from femb.mesh import line_mesh, rectangle_mesh
from femb.mesh.mesh import Mesh
from femb.model import Material, Model, Section
from femb.results.superelements import superelement_positions
from femb.solvers.configuration import split_state
from femb.solvers.dynamics.driver import solve_dynamic
from femb.solvers.eigen.modal import solve_modal
from femb.solvers.problem import StaticProblem
from femb.solvers.reduction.component import reduce_component
from femb.solvers.statics.static import solve_static

# unit beam L = 1, EI = 1, ρA = 1 in 3-D; axial and torsional modes far above the bending ones
BEAM = dict(EA=1e4, GJ=1.0, EIy=1.0, EIz=1.0, rhoA=1.0, rhoIp=1e-4, rhoIy=0.0, rhoIz=0.0)
LOAD = dict(fx=0.3, fy=1.0, fz=-0.5, mx=0.2, my=0.7, mz=-0.4)
DOFS = ("ux", "uy", "uz", "rx", "ry", "rz")


def beam_model(n_el=20, length=1.0):
    """Straight beam3d along x from 0 to ``length`` (node sets beam_start, beam_end)."""
    model = Model(line_mesh((0.0, 0.0, 0.0), (length, 0.0, 0.0), n_el, "beam"), name=f"beam ({n_el})")
    model.add_part("beam", "beam3d", "beam", values=BEAM)
    return model


def reduced_beam(k, n_el=20, length=1.0):
    """The beam reduced on its two end nodes with k fixed-interface modes (consistent mass)."""
    comp = beam_model(n_el, length)
    return reduce_component(comp, [comp.node("beam_start"), comp.node("beam_end")], k, mass="consistent")


def one_superelement(reduced, placement=None, points=((0.0, 0.0, 0.0), (1.0, 0.0, 0.0))):
    """A model of one superelement on two nodes at ``points`` (optionally placed)."""
    model = Model(Mesh(np.array(points, dtype=float)), name="one superelement")
    model.add_superelement("se", reduced, [0, 1], placement=placement)
    return model


def linear_tip(model, node):
    """The six tip DOFs of the linear statics K u = f about the reference state."""
    prob = StaticProblem(model)
    u0, R = split_state(prob.initial_state(None))
    _, K = prob.assembler.tangent(u0, R=R)
    u = np.zeros(prob.table.n_var)
    u[prob.table.eq_var] = np.linalg.solve(K.toarray(), prob.table.free(prob.f_ref))
    return np.array([u[prob.table.var_of(node, d)] for d in DOFS])


def rotation(theta):
    """exp(θ̂) (3, 3) of a rotation vector θ (rad)."""
    R = np.zeros((3, 3))
    exp_so3(np.asarray(theta, dtype=float), R)
    return R


def turned_support_response(k=2, scale=1e-6):
    """(linear, turned) six tip DOFs (translations, rotation vector) of the superelement
    cantilever under the small load scale·LOAD: the linear response about the reference
    state, and the nonlinear static response with the clamp turned by Q (90° about an
    oblique axis) and the load turned with it, seen from the turned clamp (Qᵀ(X + u) − X
    and log(QᵀR)); the two agree up to the geometric nonlinearity of the load."""
    base = one_superelement(reduced_beam(k))
    base.fix(0)
    base.point_load(1, **{key: scale * v for key, v in LOAD.items()})
    lin = linear_tip(base, 1)
    axis = np.array([1.0, 2.0, -2.0]) / 3.0
    Q = rotation(0.5 * np.pi * axis)
    model = one_superelement(reduced_beam(k))
    model.fix(0, "translations")
    for d, v in zip(("rx", "ry", "rz"), 0.5 * np.pi * axis):
        model.prescribe(0, d, v)
    F = scale * (Q @ [LOAD["fx"], LOAD["fy"], LOAD["fz"]])
    Mo = scale * (Q @ [LOAD["mx"], LOAD["my"], LOAD["mz"]])
    model.point_load(1, fx=F[0], fy=F[1], fz=F[2], mx=Mo[0], my=Mo[1], mz=Mo[2])
    res = solve_static(model, steps=4)
    X = np.array([1.0, 0.0, 0.0])
    u_body = Q.T @ (X + res.nodal_displacements()[1]) - X
    L = np.real(sla.logm(Q.T @ res.nodal_rotation_matrices()[1]))
    th = np.array([L[2, 1], L[0, 2], L[1, 0]])
    return lin, np.concatenate([u_body, th])


def turned_support_error(k=2, scale=1e-6):
    """Relative difference between the tip response seen from a clamp turned by 90° about
    an oblique axis (nonlinear statics, tip load turned with it) and the linear response."""
    lin, turned = turned_support_response(k, scale)
    return float(np.abs(turned - lin).max() / np.abs(lin).max())


def rollup_tip_error(N, phi=np.pi, n_sub=2, k=2):
    """|tip − circle|/L of a cantilever of N superelements (each n_sub beam3d elements
    reduced with k modes) under the end moment φ EI/L (tip (sin φ/φ, (1 − cos φ)/φ))."""
    ls = 1.0 / N
    red = reduced_beam(k, n_el=n_sub, length=ls)
    pts = np.zeros((N + 1, 3))
    pts[:, 0] = np.linspace(0.0, 1.0, N + 1)
    model = Model(Mesh(pts), name=f"chain of {N} superelements")
    for i in range(N):
        model.add_superelement(f"se{i}", red, [i, i + 1], placement=(np.eye(3), [i * ls, 0.0, 0.0]))
    model.fix(0)
    model.point_load(N, mz=phi)
    res = solve_static(model, steps=8)
    x = 1.0 + res.dof(N, "ux", frame=-1)
    y = res.dof(N, "uy", frame=-1)
    return float(np.hypot(x - np.sin(phi) / phi, y - (1.0 - np.cos(phi)) / phi))


def superelement_statics_case(quick):
    """Metrics of cb-statics (validation/README.md)."""
    full = beam_model()
    full.fix("beam_start")
    full.point_load("beam_end", **LOAD)
    expected = linear_tip(full, full.node("beam_end"))
    diffs = []
    for k in (0, 2, 6):
        asm = one_superelement(reduced_beam(k))
        asm.fix(0)
        asm.point_load(1, **LOAD)
        diffs.append(float(np.abs(linear_tip(asm, 1) - expected).max() / np.abs(expected).max()))
    red = reduced_beam(2)
    modal = solve_modal(one_superelement(red), n_modes=10, mass="consistent")
    data = red.superelement()
    direct = np.sqrt(np.abs(sla.eigvalsh(data.K, data.M)[6:10]))
    counts = np.array([2, 4, 8] if quick else [2, 4, 8, 16])
    errors = np.array([rollup_tip_error(int(N)) for N in counts])
    rate = -np.polyfit(np.log(counts), np.log(errors), 1)[0]
    metrics = {
        "reduced_vs_unreduced": max(diffs),
        "tip_deflection_ratio": float(expected[1] / (LOAD["fy"] / 3.0 + LOAD["mz"] / 2.0)),
        "turned_support_error": turned_support_error(),
        "modal_vs_reduction": float(np.abs(modal.omega[6:10] / direct - 1.0).max()),
        "omega1_k2": float(modal.omega[6]),
        "rollup_rate": float(rate),
        "rollup_tip_error": float(errors[-1]),
    }
    return {
        "metrics": metrics,
        "series": {
            "convergence": {"h": 1.0 / counts, "error": errors, "xlabel": "1/N (superelements in the chain)",
                            "ylabel": "|tip − circle| / L", "title": "Chain of superelements rolling up (φ = π)"},
        },
    }


# ---------------------------------------------------------------------------- free flight
# A free shell4 plate a × b × t (E t = 200, ρ t = 0.02; fixed-interface frequencies 14.4 …
# 39.3 rad/s) reduced on three interface nodes, hit by a force and moment pulse at one of
# them, then free.
PLATE = dict(a=1.0, b=0.4, nx=6, ny=2, E=1e4, nu=0.3, rho=1.0, t=0.02, modes=4)
PULSE_FORCE = np.array([1e-3, -6e-4, 2e-3])
PULSE_MOMENT = np.array([1e-4, 2e-4, -5e-5])
PULSE_STEPS = 20


def free_plate_component(p=PLATE):
    """The shell4 plate [0, a] × [0, b] (femb.rectangle_mesh, nx × ny quads) and its
    Craig–Bampton reduction on the corners (0, 0), (a, 0) and the centre with p["modes"]
    fixed-interface modes (lumped mass): (component model, ReducedComponent)."""
    comp = Model(rectangle_mesh(p["a"], p["b"], p["nx"], p["ny"], "plate", cells="quad"), name="free plate")
    comp.add_part("plate", "shell4", "plate", Material(E=p["E"], nu=p["nu"], rho=p["rho"]), Section(thickness=p["t"]))
    interface = [comp.node("plate_c00"), comp.node("plate_c10"), comp.node("plate_center")]
    return comp, reduce_component(comp, interface, p["modes"], mass="lumped")


def explicit_step_limit(data):
    """2/ω_max of the reduced body: ω_max² the largest eigenvalue of (K_r, M_r)."""
    return 2.0 / float(np.sqrt(sla.eigvals(data.K, data.M).real.max()))


def free_plate_model(rc, tau):
    """One free superelement on the three interface nodes (model nodes 0, 1, 2), the force
    and moment pulse sin²(πt/τ) (0 ≤ t ≤ τ) at node 1 (the corner (a, 0))."""
    data = rc.superelement()
    model = Model(Mesh(np.asarray(data.positions)), name="free-flying reduced plate")
    model.add_superelement("plate", rc, [0, 1, 2])

    def pulse(t):
        return float(np.sin(np.pi * t / tau) ** 2) if t < tau else 0.0

    F, Mo = PULSE_FORCE, PULSE_MOMENT
    model.point_load(1, amplitude=pulse, name="pulse", fx=F[0], fy=F[1], fz=F[2], mx=Mo[0], my=Mo[1], mz=Mo[2])
    return model, pulse


def _lumped_node_masses(comp):
    """Translational lumped mass of each node of the component (ρ t A/4 per quad corner)."""
    p = PLATE
    conn = comp.mesh.cells["plate"].connectivity
    m = np.zeros(comp.mesh.n_nodes)
    np.add.at(m, conn.ravel(), p["rho"] * p["t"] * p["a"] * p["b"] / (p["nx"] * p["ny"] * 4))
    return m


def superelement_free_flight_case(quick):
    """Metrics of cb-free-flight (validation/README.md)."""
    comp, rc = free_plate_component()
    data = rc.superelement()
    h = 10.0 * explicit_step_limit(data)
    tau = PULSE_STEPS * h
    model, pulse = free_plate_model(rc, tau)
    steps = 200 if quick else 1000
    res = solve_dynamic(model, h, tau + steps * h, record_every=1)
    t = np.asarray(res.times)
    i0 = PULSE_STEPS
    E = res.series("total_energy")
    p = np.column_stack([res.series(f"linear_momentum_{c}") for c in "xyz"])
    L = np.column_stack([res.series(f"angular_momentum_{c}") for c in "xyz"])
    # impulse–momentum from rest: p = ∫F a dt = F τ/2 (the mid-point sum of sin² over its
    # period is exact), L = ∫(x × F + M) a dt with x the loaded node's mid-step positions
    impulse = PULSE_FORCE * tau / 2.0
    x1 = data.positions[1] + np.column_stack([res.dof(1, d) for d in ("ux", "uy", "uz")])
    xm = 0.5 * (x1[1:i0 + 1] + x1[:i0])
    am = np.array([pulse(0.5 * (t[k] + t[k + 1])) for k in range(i0)])
    moment_impulse = PULSE_MOMENT * tau / 2.0 + h * (am[:, None] * np.cross(xm, PULSE_FORCE)).sum(axis=0)
    # rigid motion: the centre of mass of the recovered full mesh moves on the straight line
    # x_G(τ) + (p/m)(t − τ) after the pulse
    masses = _lumped_node_masses(comp)
    mass = float(masses.sum())
    centre = np.array([masses @ superelement_positions(model, res.table, "plate", u)[1] / mass
                       for u in res.states[i0::10]])
    line = centre[0] + np.outer(t[i0::10] - t[i0], impulse / mass)
    travel = np.linalg.norm(impulse) / mass * (t[-1] - t[i0])
    after = slice(i0, None)
    metrics = {
        "energy_rel_error": float(np.abs(E[after] - E[i0]).max() / abs(E[i0])),
        "linear_momentum_rel_error": float(np.abs(p[after] - p[i0]).max() / np.linalg.norm(p[i0])),
        "angular_momentum_rel_error": float(np.abs(L[after] - L[i0]).max() / np.linalg.norm(L[i0])),
        "linear_impulse_error": float(np.linalg.norm(p[i0] - impulse) / np.linalg.norm(impulse)),
        "angular_impulse_error": float(np.linalg.norm(L[i0] - moment_impulse) / np.linalg.norm(moment_impulse)),
        "centre_of_mass_line_error": float(np.linalg.norm(centre - line, axis=1).max() / travel),
        "body_mass_error": float(abs(data.points.mass.sum() / mass - 1.0)),
        "step_over_explicit_limit": float(h / explicit_step_limit(data)),
        "strain_over_total_energy": float(res.series("strain_energy")[after].max() / E[i0]),
        "newton_iterations_per_step": float(res.info["newton_iterations"] / res.info["steps"]),
    }
    curves = [{"x": t[after].tolist(), "y": ((E[after] - E[i0]) / abs(E[i0])).tolist(), "label": "total energy"},
              {"x": t[after].tolist(), "y": (np.linalg.norm(L[after] - L[i0], axis=1) / np.linalg.norm(L[i0])).tolist(),
               "label": "|ΔL| / |L|"},
              {"x": t[after].tolist(), "y": (np.linalg.norm(p[after] - p[i0], axis=1) / np.linalg.norm(p[i0])).tolist(),
               "label": "|Δp| / |p|"}]
    return {
        "metrics": metrics,
        "series": {"history": {"curves": curves, "xlabel": "t", "ylabel": "relative change after the pulse",
                               "title": "free-flying reduced shell plate, Δt = 10 × 2/ω_max"}},
    }
