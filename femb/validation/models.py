"""Model builders shared by the validation cases (plain femb API, no solver calls)."""
import numpy as np

from femb.mesh import CellBlock, Mesh, line_mesh
from femb.model import Material, Model, Section


def cantilever(n, length=1.0, EI=1.0, EA=1.0e7, element="beam2d", name="beam"):
    """A straight cantilever along x clamped at ``name_start``; the tip is ``name_end``.

    E = 1 so the section carries the stiffnesses (A = EA, I = EI); a large EA approximates
    the inextensible elastica of the closed-form solutions.
    """
    mesh = line_mesh((0.0, 0.0), (length, 0.0), n, name)
    model = Model(mesh, name=f"cantilever-{n}")
    model.add_part(name, element, name, Material(E=1.0, G=1.0e3 * EA), Section(A=EA, I=EI, shear_factor=5.0 / 6.0))
    model.fix(f"{name}_start")
    return model


def pinned_column(n, length=1.0, EI=1.0, EA=1.0e4, element="beam2d", name="col"):
    """A pinned–pinned column along x under a unit compressive end load (for buckling)."""
    mesh = line_mesh((0.0, 0.0), (length, 0.0), n, name)
    model = Model(mesh, name=f"column-{n}")
    model.add_part(name, element, name, Material(E=1.0), Section(A=EA, I=EI))
    model.fix(f"{name}_start", ("ux", "uy"))
    model.fix(f"{name}_end", ("uy",))
    model.point_load(f"{name}_end", fx=-1.0)
    return model


def two_bar_arch(a=1.0, h=0.1, EA=1.0e4, element="truss2d"):
    """Symmetric two-bar truss arch: supports (±a, 0), apex (0, h) loaded by a unit
    downward reference force, apex guided vertically (ux fixed)."""
    points = np.array([[-a, 0.0], [0.0, h], [a, 0.0]])
    mesh = Mesh(
        points,
        {"bars": CellBlock("line", np.array([[0, 1], [1, 2]]))},
        {"supports": np.array([0, 2]), "apex": np.array([1])},
        source="two_bar_arch",
    )
    model = Model(mesh, name="two-bar arch")
    model.add_part("bars", element, "bars", Material(E=EA), Section(A=1.0))
    model.fix("supports")
    model.fix("apex", ("ux",))
    model.point_load("apex", fy=-1.0)
    return model


# ---------------------------------------------------------------------------- mechanisms
def slider_crank(n_rod=8, omega=124.8, slider_mass=0.0, element="beam2d"):
    """Meijaard's flexible slider-crank (Chu & Pan data; beam_validation_benchmarks B3/B4).

    Rigid crank r = 0.1524 m turning at ``omega`` from θ0 = 0 (crank and rod aligned along
    +x): the crank pin node ``pin`` has its translations prescribed, r(cos ωt − 1) and
    r sin ωt. Steel rod L = 0.3048 m, d = 6.35 mm, from the pin to the slider node
    ``slider`` guided on the x axis (uy fixed), optional slider mass. The rod starts
    undeformed with the rigid-body velocity of the mechanism at θ = 0 (pin velocity rω
    upwards, slider at rest, rod turning at −rω/L). Node sets: ``pin``, ``slider``,
    ``mid`` (rod midpoint; n_rod must be even).
    """
    if n_rod % 2:
        raise ValueError("n_rod must be even (a node at the rod midpoint)")
    r, L, d = 0.1524, 0.3048, 0.00635
    A, I = np.pi * d**2 / 4, np.pi * d**4 / 64
    mesh = line_mesh((r, 0.0), (r + L, 0.0), n_rod, "rod")
    mesh.add_node_set("pin", [0])
    mesh.add_node_set("slider", [n_rod])
    mesh.add_node_set("mid", [n_rod // 2])
    model = Model(mesh, name=f"slider-crank omega={omega}")
    steel = Material(E=2.06843e11, nu=0.235, rho=7834.56, name="steel")
    model.add_part("rod", element, "rod", steel, Section(A=A, I=I, shear_factor=0.9, name="rod d=6.35mm"))
    model.prescribe("pin", "ux", function=lambda t: r * (np.cos(omega * t) - 1.0))
    model.prescribe("pin", "uy", function=lambda t: r * np.sin(omega * t))
    model.fix("slider", ("uy",))
    if slider_mass > 0.0:
        model.add_discrete("slider_mass", "point_mass2d_translational", "slider", m=slider_mass)
    s = mesh.points[:, 0] - r
    for node in range(n_rod + 1):
        model.initial_velocity(node, ux=0.0, uy=r * omega * (1.0 - s[node] / L), rz=-r * omega / L)
    model.info.update(crank=r, rod_length=L, omega=omega)
    return model


def _positions(results, node):
    """(n_frames, 2) current position of ``node`` over the frames of ``results``."""
    X = results.model.mesh.points[node, :2]
    ux = results.dof(node, "ux")
    uy = results.dof(node, "uy")
    return np.column_stack([X[0] + ux, X[1] + uy])


def rod_midpoint_deflection(results):
    """Lateral offset of the rod midpoint from the chord pin → slider, divided by the rod
    length, over all frames of a slider-crank run (positive to the left of the chord)."""
    model = results.model
    a, m, b = (_positions(results, model.node(k)) for k in ("pin", "mid", "slider"))
    chord = b - a
    rel = m - a
    cross = chord[:, 0] * rel[:, 1] - chord[:, 1] * rel[:, 0]
    return cross / np.linalg.norm(chord, axis=1) / model.info["rod_length"]


def tip_deflection_in_rotating_frame(results, theta):
    """Transverse tip deflection of a spin-up beam relative to the line through the root
    at the prescribed hub angle θ(t), over all frames (m)."""
    model = results.model
    tip = model.node("beam_end")
    x = _positions(results, tip)
    th = np.array([theta(t) for t in results.times])
    return -np.sin(th) * x[:, 0] + np.cos(th) * x[:, 1]


def spin_up_angle(omega, T):
    """Prescribed hub angle θ(t) of the spin-up benchmarks (Meijaard eq. 22): smooth start
    to the speed ``omega`` at time T, constant speed afterwards."""
    def theta(t):
        if t <= T:
            return omega / T * (t**2 / 2.0 + (T / (2 * np.pi)) ** 2 * (np.cos(2 * np.pi * t / T) - 1.0))
        return omega * (t - T / 2.0)
    return theta


def spin_up_beam(case="A", n=8):
    """Planar spin-up of a beam clamped on a shaft whose angle is prescribed.

    case "A": Kim & Haug / Wu & Haug data, L = 8 m aluminium strip, Ω = 4 rad/s, T = 15 s
    (Euler–Bernoulli, strong axis in the plane). case "B": Simo & Vu-Quoc data, L = 10 m,
    ρA = 1.2, EI = 1.4e4, ρI = 6e-4, GAk = 1e7, EA = 2.8e7, Ω = 6 rad/s, T = 15 s
    (Timoshenko). The root node ``beam_start`` is pinned with its rotation prescribed.
    """
    if case == "A":
        L, omega = 8.0, 4.0
        material = Material(E=6.895e10, nu=0.32, rho=2766.67, name="aluminium")
        section = Section(A=0.03676 * 0.001986, I=0.001986 * 0.03676**3 / 12.0, name="strip, strong axis")
        element = "beam2d"
    elif case == "B":
        L, omega = 10.0, 6.0
        material = Material(E=2.8e7, G=1.0e7, rho=1.2, name="Simo-Vu-Quoc beam")
        section = Section(A=1.0, I=5.0e-4, shear_factor=1.0, name="EA=2.8e7, EI=1.4e4")
        element = "beam2d_timoshenko"
    else:
        raise ValueError(f"unknown spin-up case {case!r} (A or B)")
    mesh = line_mesh((0.0, 0.0), (L, 0.0), n, "beam")
    model = Model(mesh, name=f"spin-up {case}")
    model.add_part("beam", element, "beam", material, section)
    model.fix("beam_start", ("ux", "uy"))
    model.prescribe("beam_start", "rz", function=spin_up_angle(omega, 15.0))
    model.info.update(length=L, omega=omega, T=15.0)
    return model


# ---------------------------------------------------------------------------- 3-D beams
def cantilever3d(n, length=1.0, EIy=1.0, EIz=1.0, GJ=1.0, EA=1.0e7, element="beam3d", name="beam",
                 start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0), orientation=None, GA=1.0e12,
                 rho=0.0, Ip=None):
    """A straight 3-D cantilever of ``n`` oriented beam elements (beam3d or
    beam3d_timoshenko) from ``start`` along ``direction``, clamped at ``name_start``; the
    tip is ``name_end``.

    E = G = 1, so the section carries the rigidities (A = EA, Iy = EIy, Iz = EIz, J = GJ,
    shear area k·A = GA for the Timoshenko element, large by default: shear rigid), and
    ``rho`` is the mass per unit rigidity (ρA = rho·EA, ρI = rho·EI; ``Ip`` overrides the
    polar moment Iy + Iz of the rotary inertia about the axis). ``orientation`` is the
    section y direction (default: e_Z × axis, see elements.beam3d): a member along X then
    bends about local y = global Y with EIy and about local z = global Z with EIz.
    """
    d = np.asarray(direction, dtype=np.float64)
    d = d / np.linalg.norm(d)
    a = np.asarray(start, dtype=np.float64)
    mesh = line_mesh(a, a + length * d, n, name)
    model = Model(mesh, dim=3, name=f"cantilever3d-{n}")
    section = Section(A=EA, Iy=EIy, Iz=EIz, J=GJ, Ip=Ip, shear_factor=GA / EA,
                      orientation=None if orientation is None else tuple(float(c) for c in orientation))
    model.add_part(name, element, name, Material(E=1.0, G=1.0, rho=rho), section)
    model.fix(f"{name}_start")
    model.info.update(length=length, EIy=EIy, EIz=EIz, GJ=GJ, EA=EA)
    return model
