"""Builders and runners of the rigid-mechanism validation cases (Russell & Willmert's
double pendulum) and of the negative controls without geometric stiffening.

Russell & Willmert (1993), Example 1: a rigid double pendulum whose first link is driven at
constant speed θ̇1 = ω = 10 rad/s; links l = 1, rod mass m = ρAl = 0.1, concentrated masses
m_c at the joint and at the tip (the paper's text: m_c = 2m = 0.2), θ from the downward
vertical, start θ1 = θ2 = 0, θ̇2(0) = 0, gravity g = 9.81 (units not stated in the paper;
9.81 assumed). With θ1 = ωt the second link obeys the one-DOF equation
θ̈2 = −k [ω² sin(θ2 − ωt) + g sin θ2], k = (m/2 + m_c)/(m/3 + m_c) = 15/14.

femb's model: the driven joint node follows l(sin ωt, −cos ωt) (a prescribed motion), the
second link is a ``rigid_link2d`` (two points, constant mass, distance joint) with a point
mass m_c at the tip. The mass at the joint moves with the driver and does not affect the
motion of link 2.
"""
import numpy as np

from femb.mesh import Mesh
from femb.model import Material, Model, Section
from femb.solvers.dynamics.driver import solve_dynamic

RW_LENGTH, RW_ROD_MASS, RW_OMEGA, RW_G = 1.0, 0.1, 10.0, 9.81


def rw_double_pendulum(m_c=0.2, theta2_dot0=0.0, omega=RW_OMEGA, g=RW_G):
    """Russell & Willmert's driven rigid double pendulum (module docstring). Nodes
    ``joint`` (driven) and ``tip``; the joint between the links is the ``distance`` joint
    "link 2" of the rigid link."""
    l, m = RW_LENGTH, RW_ROD_MASS
    mesh = Mesh(np.array([[0.0, -l], [0.0, -2.0 * l]]), {}, {"joint": [0], "tip": [1]})
    model = Model(mesh, name="Russell-Willmert rigid double pendulum")
    model.rigid_link2d("link 2", "joint", "tip", m=m)
    model.add_discrete("tip mass", "point_mass2d_translational", "tip", m=m_c)
    model.prescribe("joint", "ux", function=lambda t: l * np.sin(omega * t))
    model.prescribe("joint", "uy", function=lambda t: l * (1.0 - np.cos(omega * t)))
    model.gravity((0.0, -g), constant=True)
    model.initial_velocity("tip", ux=omega * l + theta2_dot0 * l)
    model.info.update(length=l, omega=omega, g=g, m_c=m_c, k=(m / 2 + m_c) / (m / 3 + m_c))
    return model


def theta2(results):
    """Angle of link 2 from the downward vertical, unwrapped, over the frames (rad)."""
    j = np.column_stack([results.dof(0, "ux"), -1.0 + results.dof(0, "uy")])
    t = np.column_stack([results.dof(1, "ux"), -2.0 + results.dof(1, "uy")])
    d = t - j
    return np.unwrap(np.arctan2(d[:, 0], -d[:, 1]))


def rw_energy_error(results):
    """max |E − E0 − W_driver| / max kinetic energy over a run, E = kinetic + gravity
    potential, W_driver the work of the prescribed motion (the solver's constraint work:
    inertia, element and joint reactions on the driven node), i.e. the solver's energy
    residual relative to the largest kinetic energy."""
    return float(np.max(np.abs(results.series("energy_residual"))) / np.max(results.series("kinetic_energy")))


def rw_theta2_reference(times, m_c=0.2, theta2_dot0=0.0, omega=RW_OMEGA, g=RW_G):
    """θ2(t) of the one-DOF equation of the driven pendulum (scipy, rtol 1e-12)."""
    from scipy.integrate import solve_ivp

    m = RW_ROD_MASS
    k = (m / 2 + m_c) / (m / 3 + m_c)
    sol = solve_ivp(lambda t, y: [y[1], -k * (omega**2 * np.sin(y[0] - omega * t) + g * np.sin(y[0]))],
                    (0.0, float(np.max(times))), [0.0, theta2_dot0], rtol=1e-12, atol=1e-12, dense_output=True)
    return sol.sol(np.asarray(times))[0]


def rw_double_pendulum_case(quick):
    """Metrics of the rigid double pendulum: constraint drift and energy balance over 30 s
    (Δt = 0.02 s quick, 0.01 s full), the deformation of link 1 of the flexible version
    (Example 2; 4 elements per link at Δt = 2 ms quick, 8 at 1 ms), and θ2 at 3 s at three step sizes (quick: 8, 4, 2 ms; full: 4, 2,
    1 ms) against θ2(3 s) = 28.116334 rad of the one-DOF equation, which ``reference_check``
    re-solves (scipy, rtol 1e-12) in every run."""
    long_run = solve_dynamic(rw_double_pendulum(), 0.02 if quick else 0.01, 30.0)
    drift = float(np.max(long_run.series("constraint_residual")))
    energy = rw_energy_error(long_run)
    steps = [8e-3, 4e-3, 2e-3] if quick else [4e-3, 2e-3, 1e-3]
    finals, curves = [], []
    for dt in steps:
        res = solve_dynamic(rw_double_pendulum(), dt, 3.0)
        th = theta2(res)
        finals.append(float(th[-1]))
        curves.append((np.asarray(res.times), th, dt))
    errors = np.abs(np.array(finals) - 28.116334)
    flex = rw_flexible_response(4 if quick else 8, 2e-3 if quick else 1e-3)
    t_long = np.asarray(long_run.times)
    th_ref = rw_theta2_reference(curves[-1][0])
    reference_check = abs(float(rw_theta2_reference([3.0])[0]) - 28.116334)
    return {
        "metrics": {
            "constraint_drift_max": drift,
            "energy_rel_error": energy,
            "theta2_3s": finals[-1],
            "theta2_3s_order": float(np.log2(errors[1] / errors[2])),
            "theta2_3s_step_spread": float(np.ptp(finals)),
            "flexible_axial_max": flex["axial_max"],
            "flexible_transverse_max": flex["transverse_max"],
            "flexible_energy_residual": flex["energy_residual"],
            "reference_check": reference_check,
        },
        "series": {
            "history": {"curves": [{"x": c[0].tolist(), "y": c[1].tolist(), "label": f"femb Δt = {c[2]:g} s"} for c in curves]
                        + [{"x": curves[-1][0].tolist(), "y": th_ref.tolist(), "label": "one-DOF equation (scipy)"}],
                        "xlabel": "t [s]", "ylabel": "θ2 [rad]", "title": "Russell & Willmert rigid double pendulum"},
            "flexible": {"curves": [{"x": flex["times"].tolist(), "y": flex["axial"].tolist(), "label": "axial"},
                                    {"x": flex["times"].tolist(), "y": flex["transverse"].tolist(), "label": "transverse"}],
                         "xlabel": "t [s]", "ylabel": "link 1 tip deformation / l", "title": "flexible double pendulum, link 1"},
            "drift": {"curves": [{"x": t_long.tolist(), "y": long_run.series("constraint_residual").tolist(), "label": "|Φ|"}],
                      "xlabel": "t [s]", "ylabel": "constraint residual", "title": "no drift over 30 s"},
        },
    }


def rw_spin_up_angle(t, omega=RW_OMEGA):
    """Russell & Willmert's spin-up driver: θ̈1 = ω + ω cos(πt) for t ≤ 1 s, then 0, from
    rest (θ1(1) = ω(½ + 2/π²))."""
    if t <= 1.0:
        return 0.5 * omega * t * t + omega / np.pi**2 * (1.0 - np.cos(np.pi * t))
    return omega * (0.5 + 2.0 / np.pi**2) + omega * (t - 1.0)


def rw_flexible_double_pendulum(n=8, omega=RW_OMEGA, g=RW_G):
    """Russell & Willmert's flexible double pendulum (Example 2, Table 2): two links
    l = 1, A = 0.1, I = 1e-2, ρ = 1, E = 1e4, G = 1e5 (as printed; shear factor 5/6
    assumed), ``beam2d_timoshenko`` with ``n`` elements each, hanging from a hub whose
    rotation follows the spin-up driver (``rw_spin_up_angle``), link 2 pinned to link 1's
    tip (shared translations), concentrated masses 0.1 at the pin and at the tip, gravity.
    Starts undeformed from rest (the paper starts from the static sag). Node sets ``hub``,
    ``elbow`` (link 1's tip), ``tip``."""
    from femb.mesh import CellBlock, line_mesh

    l1 = line_mesh((0.0, 0.0), (0.0, -RW_LENGTH), n, "l1")
    l2 = line_mesh((0.0, -RW_LENGTH), (0.0, -2.0 * RW_LENGTH), n, "l2")
    mesh = Mesh(np.vstack([l1.points, l2.points]),
                {"link 1": CellBlock("line", l1.cells["l1"].connectivity), "link 2": CellBlock("line", l2.cells["l2"].connectivity + n + 1)},
                {"hub": [0], "elbow": [n], "elbow 2": [n + 1], "tip": [2 * n + 1]})
    model = Model(mesh, name="Russell-Willmert flexible double pendulum")
    material = Material(E=1.0e4, G=1.0e5, rho=1.0, name="R&W Table 2")
    section = Section(A=0.1, I=1.0e-2, shear_factor=5.0 / 6.0)
    for part in ("link 1", "link 2"):
        model.add_part(part, "beam2d_timoshenko", part, material, section)
    model.pin("elbow", "elbow 2", name="elbow pin")
    model.add_discrete("elbow mass", "point_mass2d_translational", "elbow", m=0.1)
    model.add_discrete("tip mass", "point_mass2d_translational", "tip", m=0.1)
    model.fix("hub", ("ux", "uy"))
    model.prescribe("hub", "rz", function=lambda t: rw_spin_up_angle(t, omega))
    model.gravity((0.0, -g), constant=True)
    model.info.update(n=n, omega=omega)
    return model


def rw_flexible_response(n=8, dt=1e-3, t_end=6.0):
    """Largest axial and transverse deformation of link 1 relative to its length, measured
    at its tip in the frame of the driven hub (axis along the hub's direction θ1 from the
    downward vertical), and the largest |energy balance|, over a run."""
    model = rw_flexible_double_pendulum(n)
    res = solve_dynamic(model, dt, t_end, record_every=5)
    elbow = model.node("elbow")
    X = model.mesh.points[elbow]
    x = np.column_stack([X[0] + res.dof(elbow, "ux"), X[1] + res.dof(elbow, "uy")])
    th = np.array([rw_spin_up_angle(t) for t in res.times])
    axial = np.sin(th) * x[:, 0] - np.cos(th) * x[:, 1] - RW_LENGTH
    transverse = np.cos(th) * x[:, 0] + np.sin(th) * x[:, 1]
    return {"axial_max": float(np.max(np.abs(axial)) / RW_LENGTH), "transverse_max": float(np.max(np.abs(transverse)) / RW_LENGTH),
            "energy_residual": float(np.max(np.abs(res.series("energy_residual")))), "times": np.asarray(res.times),
            "axial": axial, "transverse": transverse}


# ---------------------------------------------------------------------------- negative controls
def without_geometric_stiffening(model, part="rod", frame="chord"):
    """The same model with part ``part`` (a chain of ``beam2d``/``beam2d_timoshenko``
    elements) replaced by the linear floating-frame beam (``beam2d_floating`` /
    ``beam2d_floating_timoshenko``, frame along the chain's chord, or along its first
    element with ``frame="root"``): the classical floating-frame model without stress
    stiffening. Modifies and returns ``model``."""
    from femb.elements.floating_beam2d import floating_cells

    old = model.parts.pop(part)
    element = "beam2d_floating_timoshenko" if old.element.endswith("timoshenko") else "beam2d_floating"
    cells = f"{part} floating"
    model.mesh.add_cells(cells, "line4", floating_cells(model.mesh.cells[old.cells].connectivity, frame))
    model.add_part(part, element, cells, old.material, old.section, old.values)
    model.name += " (no geometric stiffening)"
    return model


def slider_crank_peak(omega=150.0, slider_mass=0.0378126, n_rod=8, dt=2e-5, floating=False, end_angle=1.2):
    """First local maximum of the rod-midpoint deflection / L of Meijaard's flexible
    slider-crank (co-rotational rod, or the floating-frame rod with ``floating``) and the
    crank angle where it occurs."""
    from femb.validation.models import rod_midpoint_deflection, slider_crank
    from femb.validation.signals import first_local_extremum

    model = slider_crank(n_rod=n_rod, omega=omega, slider_mass=slider_mass)
    if floating:
        without_geometric_stiffening(model, "rod")
    res = solve_dynamic(model, dt, end_angle / omega, mass="lumped")
    w = rod_midpoint_deflection(res)
    peak, angle = first_local_extremum(omega * np.asarray(res.times), w, threshold=1e-3)
    return peak, angle, res


def spin_up_b_response(n=8, dt=0.02, t_end=20.0, floating=False):
    """Tip deflection in the rotating frame of spin-up B (Simo & Vu-Quoc data), co-rotational
    or without geometric stiffening (``floating``). Returns (times, deflection, completed):
    a run whose Newton iteration fails once the deflection has grown huge is cut there
    (``completed`` False)."""
    from femb.core.errors import ConvergenceError
    from femb.validation.models import spin_up_angle, spin_up_beam, tip_deflection_in_rotating_frame

    model = spin_up_beam("B", n)
    if floating:
        without_geometric_stiffening(model, "beam", frame="root")
    theta = spin_up_angle(model.info["omega"], model.info["T"])
    try:
        res, completed = solve_dynamic(model, dt, t_end, mass="lumped"), True
    except ConvergenceError as exc:
        res, completed = exc.results, False
    return np.asarray(res.times), tip_deflection_in_rotating_frame(res, theta), completed
