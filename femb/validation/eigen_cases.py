"""Model builders and runners of the eigenvalue validation cases (linearization about an
equilibrium and about a steady spin)."""
import numpy as np

from femb.mesh import Mesh, line_mesh
from femb.model import Material, Model, Section

# spin-up B data (Simo & Vu-Quoc; femb.validation.models.spin_up_beam "B")
SPIN_B = {"L": 10.0, "E": 2.8e7, "G": 1.0e7, "rho": 1.2, "A": 1.0, "I": 5.0e-4, "omega": 6.0}


def pendulum_xy(m=0.5, length=1.0, g=9.8, x0=None):
    """Moore's pendulum in non-minimal coordinates (x, y): a point mass at (x0, 0) (default
    (L, 0); x0 = −L is the inverted position) held at distance L from the origin by a
    distance joint, gravity g along +x (hanging along +x)."""
    mesh = Mesh(np.array([[length if x0 is None else x0, 0.0]]), {}, {"bob": np.array([0])})
    model = Model(mesh, name="pendulum (x, y)")
    model.add_discrete("bob_mass", "point_mass2d_translational", "bob", m=m)
    model.distance(None, "bob", point=(0.0, 0.0), length=length, name="rod")
    model.gravity((g, 0.0), constant=True)
    return model


def rotating_beam(n, element="beam3d", hub=0.0, data=None):
    """The spin-up B beam as a cantilever clamped to a hub turning about the global z axis:
    root at (hub, 0, 0) on the x axis, tip ``beam_end``; 3-D beams with equal bending
    stiffness EI = 1.4e4 in both planes (flapwise: bending out of the plane of rotation,
    along z; chordwise: in the plane, along y), ρA = 1.2, ρI = 6e-4, EA = 2.8e7,
    GJ = G·2I = 1e4. ``element`` "beam2d"/"beam2d_timoshenko" gives the in-plane
    (chordwise) model in the xy plane.
    """
    d = dict(SPIN_B, **(data or {}))
    L, I = d["L"], d["I"]
    if element.startswith("beam2d"):
        mesh = line_mesh((hub, 0.0), (hub + L, 0.0), n, "beam")
        model = Model(mesh, name=f"rotating beam 2-D ({n})")
        model.add_part("beam", element, "beam", Material(E=d["E"], G=d["G"], rho=d["rho"]),
                       Section(A=d["A"], I=I, shear_factor=1.0))
    else:
        mesh = line_mesh((hub, 0.0, 0.0), (hub + L, 0.0, 0.0), n, "beam")
        model = Model(mesh, dim=3, name=f"rotating beam 3-D ({n})")
        model.add_part("beam", element, "beam", Material(E=d["E"], G=d["G"], rho=d["rho"]),
                       Section(A=d["A"], Iy=I, Iz=I, J=2.0 * I, shear_factor=1.0))
    model.fix("beam_start")
    model.info.update(length=L, EI=d["E"] * I, rhoA=d["rho"] * d["A"], omega=d["omega"])
    return model


def beam_mode_direction(modes, table, model):
    """For each complex mode (k, n_var): the dominant transverse direction of the tip
    ("flap" along z, "chord" along y, or "axial" along x)."""
    tip = model.node("beam_end")
    out = []
    for phi in modes:
        comps = {}
        for name, dof in (("axial", "ux"), ("chord", "uy"), ("flap", "uz")):
            if dof in table.dof_names and table.node_var[tip, table.dof_names.index(dof)] >= 0:
                comps[name] = abs(phi[table.node_var[tip, table.dof_names.index(dof)]])
        out.append(max(comps, key=comps.get))
    return out


def rotating_beam_frequencies(n, omega, element="beam3d", n_modes=4, mass="consistent"):
    """First flapwise and chordwise frequencies [rad/s] of the rotating beam at spin rate
    ``omega`` (rotating frame, centrifugal stiffening from the nonlinear relative
    equilibrium); 2-D elements give only the chordwise one (flap is NaN)."""
    from femb.solvers.eigen.steady_spin import steady_spin

    model = rotating_beam(n, element)
    lin = steady_spin(model, omega, axis=(0.0, 0.0, 1.0), mass=mass)
    res = lin.modes(n_modes)
    kinds = beam_mode_direction(res.modes, res.table, model)
    freq = res.damped_frequency
    first = {}
    for k, f in zip(kinds, freq):
        if f > 0 and k not in first:
            first[k] = float(f)
    return first.get("flap", float("nan")), first.get("chord", float("nan"))


# ---------------------------------------------------------------------------- rotor
ROTOR = {"L": 0.5, "EI": 2.0e4, "k_support": 5.0e5, "m": 10.0, "Ip": 0.2, "Id": 0.1}


def overhung_rotor(n=2, data=None):
    """A rigid disk (mass m, polar moment Ip, diametral moment Id) at the free end of a
    massless elastic shaft along x (3-D beams, EI in both planes, length L) whose root is
    held against tilting but rests on an isotropic flexible support (bushing stiffness
    k_support between the root node ``shaft_start`` and a fixed ground node). Returns
    (model, point_inertia) for ``steady_spin(..., frame="inertial")`` about the x axis."""
    d = dict(ROTOR, **(data or {}))
    mesh = line_mesh((0.0, 0.0, 0.0), (d["L"], 0.0, 0.0), n, "shaft")
    mesh = Mesh(np.vstack([mesh.points, [[0.0, 0.0, 0.0]]]), dict(mesh.cells),
                dict(mesh.node_sets, ground=np.array([n + 1])), source="overhung rotor")
    model = Model(mesh, dim=3, name="overhung rotor")
    EI = d["EI"]
    model.add_part("shaft", "beam3d", "shaft", Material(E=1.0, G=1.0, rho=0.0),
                   Section(A=1.0e3 * EI, Iy=EI, Iz=EI, J=EI))
    model.add_discrete("support", "bushing3d", ("ground", "shaft_start"), k=d["k_support"])
    model.fix("ground")
    model.fix("shaft_start", ("ux", "rx", "ry", "rz"))
    inertia = [("shaft_end", d["m"], (d["Ip"], d["Id"], d["Id"]))]
    model.info.update(d)
    return model, inertia


def rotor_whirl_closed_form(speed, data=None):
    """Whirl frequencies of the overhung rotor at spin ``speed`` [rad/s]: the disk's
    deflection v and tilt ψ in one plane see the stiffness K = F⁻¹ of the flexibility
    F = [[L³/3EI + 1/k, L²/2EI], [L²/2EI, L/EI]] (cantilever shaft on a translational
    support), and a circular whirl e^{iνt} of the spinning disk satisfies
    (k11 − mν²)(k22 − I_d ν² + I_p Ω ν) − k12² = 0. Positive roots ν are forward whirl
    (with the spin), negative ones backward; returns (forward (2,), backward (2,)) as
    positive frequencies, ascending."""
    d = dict(ROTOR, **(data or {}))
    L, EI, k = d["L"], d["EI"], d["k_support"]
    F = np.array([[L**3 / (3 * EI) + 1.0 / k, L**2 / (2 * EI)], [L**2 / (2 * EI), L / EI]])
    K = np.linalg.inv(F)
    m, Ip, Id = d["m"], d["Ip"], d["Id"]
    # (k11 − m ν²)(k22 + Ip Ω ν − Id ν²) − k12² as a quartic in ν
    p1 = np.array([-m, 0.0, K[0, 0]])
    p2 = np.array([-Id, Ip * speed, K[1, 1]])
    poly = np.polysub(np.polymul(p1, p2), [K[0, 1] ** 2])
    roots = np.roots(poly)
    roots = np.sort(roots.real[np.abs(roots.imag) < 1e-9 * np.abs(roots).max()])
    return np.sort(roots[roots > 0]), np.sort(-roots[roots < 0])


# ---------------------------------------------------------------------------- case runners
def pendulum_linearization_case(quick):
    """Metrics of the pendulum-linearization case (Moore's pendulum in (x, y), m = 0.5,
    L = 1, g = 9.8): eigenvalues of the linearization about the hanging state, the
    trajectory-point A at θ = 30°, θ̇ = 1 rad/s, the input matrix of a horizontal force,
    and the same pendulum as a stiff truss mechanism."""
    from femb.mesh import CellBlock
    from femb.solvers.eigen.linearize import linearize
    from femb.solvers.statics.static import solve_static

    m, L, g = 0.5, 1.0, 9.8
    omega = np.sqrt(g / L)
    model = pendulum_xy(m, L, g)
    lin = linearize(model, np.zeros(2), inputs=[("bob", "uy")])
    ev = lin.eigenvalues()
    spurious = int(np.sum(np.abs(ev) < 1e-6 * omega))
    th, thd = np.radians(30.0), 1.0
    u = np.array([L * np.cos(th) - L, L * np.sin(th)])
    v = np.array([-L * np.sin(th) * thd, L * np.cos(th) * thd])
    A = linearize(model, u, v).A
    A_ref = np.array([[0.0, 1.0], [-(49 * np.sqrt(3) / 15 + 5 / 3), -2 * np.sqrt(3) / 3]])
    # the same pendulum as a stiff massless truss rod carrying the bob
    mesh = Mesh(np.array([[0.0, 0.0], [L, 0.0]]), {"rod": CellBlock("line", np.array([[0, 1]]))},
                {"pivot": np.array([0]), "bob": np.array([1])})
    truss = Model(mesh, name="pendulum as a truss mechanism")
    truss.add_part("rod", "truss2d", "rod", Material(E=1e9, rho=0.0), Section(A=1.0))
    truss.add_discrete("bob_mass", "point_mass2d_translational", "bob", m=m)
    truss.fix("pivot")
    truss.gravity((g, 0.0), constant=True)
    u0 = np.zeros(4)
    u0[2] = 1e-9  # a slack truss has no transverse stiffness: start from a slight stretch
    static = solve_static(truss, steps=1, u0=u0)
    ev_truss = linearize(truss, static.final).eigenvalues()
    return {
        "metrics": {
            "n_eigenvalues": float(ev.size),
            "omega": float(np.max(ev.imag)),
            "spurious_count": float(spurious),
            "max_real_part": float(np.max(np.abs(ev.real))),
            "trajectory_A_error": float(np.max(np.abs(A - A_ref))),
            "input_B_times_m": float(lin.B[1, 0] * m),
            "omega_truss": float(np.min(np.abs(ev_truss.imag))),
        },
    }


def rotating_beam_case(quick):
    """Metrics of the rotating-beam-eigen case: first flapwise and chordwise frequencies of
    the spin-up B beam at Ω = 6 rad/s (3-D beams, and chordwise with the planar beam), the
    non-rotating value, and the flapwise frequency at γ = Ω√(ρAL⁴/EI) = 3 against the
    classic non-dimensional table, with the Campbell-type curve ω(Ω); ``reference_check``
    is the largest relative difference of the five reference values from an independent
    Rayleigh–Ritz solution (femb.validation.analytic.rotating_cantilever_flap)."""
    from femb.validation.analytic import rotating_cantilever_flap

    n = 8 if quick else 16
    flap, chord = rotating_beam_frequencies(n, 6.0)
    chord_2d = rotating_beam_frequencies(2 * n, 6.0, element="beam2d")[1]
    flap0 = rotating_beam_frequencies(n, 0.0)[0]
    d = SPIN_B
    tscale = np.sqrt(d["rho"] * d["A"] * d["L"] ** 4 / (d["E"] * d["I"]))  # 0.925820 s
    flap_g3 = rotating_beam_frequencies(n, 3.0 / tscale)[0] * tscale
    speeds = np.linspace(0.0, 6.0, 4 if quick else 7)
    curve = np.array([rotating_beam_frequencies(n, om) for om in speeds])
    ritz_6 = rotating_cantilever_flap(6.0 * tscale) / tscale
    ritz = {"flap_1": ritz_6, "chord_1": np.sqrt(ritz_6**2 - 36.0), "flap_1_at_rest": rotating_cantilever_flap(0.0) / tscale,
            "flap_1_gamma3": rotating_cantilever_flap(3.0)}
    stored = {"flap_1": 7.508, "chord_1": 4.513, "flap_1_at_rest": 3.7977, "flap_1_gamma3": 4.7973}
    check = max(abs(stored[k] - ritz[k]) / stored[k] for k in stored)
    table_gamma = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    table_flap = np.array([3.5160, 3.6817, 4.1373, 4.7973, 5.5850, 6.4496])
    return {
        "metrics": {"flap_1": flap, "chord_1": chord, "chord_1_beam2d": chord_2d, "flap_1_at_rest": flap0,
                    "flap_1_gamma3": flap_g3, "reference_check": float(check)},
        "series": {"history": {"curves": [
            {"x": speeds.tolist(), "y": curve[:, 0].tolist(), "label": f"femb flapwise ({n} beam3d)"},
            {"x": speeds.tolist(), "y": curve[:, 1].tolist(), "label": f"femb chordwise ({n} beam3d)"},
            {"x": (table_gamma / tscale).tolist(), "y": (table_flap / tscale).tolist(), "label": "flapwise reference table",
             "style": "markers"},
            {"x": [6.0, 6.0], "y": [7.508, 4.513], "label": "reference at Ω = 6 rad/s", "style": "markers"}],
            "xlabel": "spin rate Ω [rad/s]", "ylabel": "first bending frequency [rad/s]",
            "title": "rotating beam: centrifugal stiffening"}},
    }
