"""shell3 plates and strips through femb's solvers: a simply supported square plate under
uniform pressure against Navier's series, the first frequencies of the simply supported
plate (solve_modal), its buckling coefficient k = 4 (solve_buckling), free-plate
frequencies invariant under a rotation of the whole model, and a strip rolled up into a
full circle by an end moment (solve_static, finite rotations)."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from femb.mesh import Mesh, pressure_nodal_loads, rectangle_mesh
from femb.model import Material, Model, Section
from femb.solvers import NewtonSettings, solve_buckling, solve_modal, solve_static


def navier_center(nu_terms=199):
    """w_c D/(q a⁴) of a simply supported square plate under uniform load q (Navier's
    double series, Timoshenko & Woinowsky-Krieger §30: 0.00406)."""
    m = np.arange(1, nu_terms + 1, 2)[:, None]
    n = np.arange(1, nu_terms + 1, 2)[None, :]
    sign = (-1.0) ** ((m + n) // 2 - 1)
    return float(16.0 / np.pi**6 * np.sum(sign / (m * n * (m**2 + n**2) ** 2)))


def simply_supported_plate(n, E, nu, t, rho=0.0, a=1.0):
    """Square plate a × a in the XY plane, n × n squares of 2 triangles (alternating
    diagonals); soft simple support (uz = 0 on the boundary, rotations free) and the
    in-plane rigid motions removed at two corners."""
    mesh = rectangle_mesh(a, a, n, n)
    model = Model(mesh)
    model.add_part("plate", "shell3", "plate", Material(E=E, nu=nu, rho=rho), Section(thickness=t))
    model.fix("plate_boundary", ("uz",))
    return mesh, model


def test_navier_series_value():
    assert navier_center() == pytest.approx(0.00406235, rel=1e-5)


def test_simply_supported_plate_under_pressure_converges_to_navier():
    """Center deflection under a uniform pressure (equivalent nodal loads of
    pressure_nodal_loads) at w/t = 1e-3 (linear range): −4.2 %, −1.3 %, −0.34 % on 4×4, 8×8,
    16×16 meshes, i.e. O(h²) (DKT): error at 16×16 < 0.5 % and observed rate ≥ 1.8."""
    E, nu, t, a = 1.0e7, 0.3, 0.05, 1.0
    D = E * t**3 / (12 * (1 - nu**2))
    w_ref = 1e-3 * t
    q = w_ref * D / (navier_center() * a**4)
    errors = []
    for n in (4, 8, 16):
        mesh, model = simply_supported_plate(n, E, nu, t)
        model.fix("plate_c00", ("ux", "uy"))
        model.fix("plate_c10", ("uy",))
        F = pressure_nodal_loads(mesh, "plate", q)
        assert F[:, 2].sum() == pytest.approx(q * a * a, rel=1e-12)
        for i in np.flatnonzero(F[:, 2]):
            model.point_load(int(i), fz=F[i, 2])
        res = solve_static(model, steps=1, settings=NewtonSettings(tolerance=1e-7))
        w = res.nodal_displacements()[mesh.node_sets["plate_center"][0], 2]
        errors.append(w / w_ref - 1.0)
    assert all(e < 0 for e in errors)  # DKT is stiff here: convergence from below
    assert abs(errors[-1]) < 5e-3
    assert np.log2(errors[1] / errors[2]) >= 1.8


@pytest.mark.parametrize("kind, sign", [("lumped", -1.0), ("consistent", 1.0)])
def test_simply_supported_plate_frequencies(kind, sign):
    """plate-vibration: E = 70e9, ν = 0.3, t = 5 mm, ρ = 2700, a = b = 1 m:
    f11 = (π/2)(2/a²)√(D/ρt) = 24.203 Hz and f12 = f21 = 2.5 f11. Lumped mass converges from
    below, the consistent translational mass from above, both O(h²) (measured rates 2.0):
    |error| of f11 at 16×16 < 0.6 %, the degenerate pair f12 = f21 to 1e-6 of each other
    and within 1.5 % of 2.5 f11."""
    E, nu, t, rho = 70e9, 0.3, 0.005, 2700.0
    D = E * t**3 / (12 * (1 - nu**2))
    f11 = np.pi / 2 * 2.0 * np.sqrt(D / (rho * t))
    assert f11 == pytest.approx(24.203, abs=1e-3)
    errors = []
    for n in (8, 16):
        mesh, model = simply_supported_plate(n, E, nu, t, rho)
        model.fix("plate_c00", ("ux", "uy"))
        model.fix("plate_c10", ("uy",))
        f = solve_modal(model, 3, mass=kind).omega / (2 * np.pi)
        errors.append(f[0] / f11 - 1.0)
    assert sign * errors[0] > 0 and sign * errors[1] > 0
    assert abs(errors[1]) < 6e-3
    assert np.log2(errors[0] / errors[1]) >= 1.8
    assert f[2] == pytest.approx(f[1], rel=1e-6)
    assert f[1] == pytest.approx(2.5 * f11, rel=1.5e-2)


def test_simply_supported_plate_buckling_coefficient_is_four():
    """plate-buckling: square plate a = b = 1 m, E = 70e9, ν = 0.3, t = 5 mm, uniform
    compression N_x on x = a (x = 0 held in x, unloaded edges free in-plane): N_cr = 4π²D/b²
    = 31 633.3 N/m. solve_buckling with the local membrane-stress term converges from
    below at O(h²): −8.5 %, −1.9 %, −0.44 % on 4×4, 8×8, 16×16 (|error| < 0.6 % and rate
    ≥ 1.8); the second load factor is the m = 2 mode, k = (2 + 1/2)² = 6.25, within 2 %."""
    E, nu, t, a = 70e9, 0.3, 0.005, 1.0
    D = E * t**3 / (12 * (1 - nu**2))
    N_cr = 4 * np.pi**2 * D / a**2
    assert N_cr == pytest.approx(31633.3, abs=0.1)
    errors = []
    for n in (4, 8, 16):
        mesh, model = simply_supported_plate(n, E, nu, t)
        model.fix("plate_x0", ("ux",))
        model.fix("plate_c00", ("uy",))
        edge = mesh.node_sets["plate_x1"]
        for i in edge:
            y = mesh.points[i, 1]
            model.point_load(int(i), fx=-(a / n if 0 < y < a else 0.5 * a / n))  # 1 N/m
        lam = solve_buckling(model, 2).load_factors
        errors.append(lam[0] / N_cr - 1.0)
    assert all(e < 0 for e in errors)
    assert abs(errors[-1]) < 6e-3
    assert np.log2(errors[1] / errors[2]) >= 1.8
    assert lam[1] / (np.pi**2 * D / a**2) == pytest.approx(6.25, rel=2e-2)


def test_free_plate_frequencies_do_not_depend_on_the_orientation_in_space():
    """The same free rectangular plate meshed in the XY plane and rotated arbitrarily in
    space: 6 rigid modes and the same elastic frequencies to 1e-9."""
    mesh = rectangle_mesh(1.0, 0.6, 6, 4)
    Q = Rotation.from_rotvec([0.7, -1.9, 0.4]).as_matrix()
    rotated = Mesh(mesh.points @ Q.T + [1.0, 2.0, -3.0], dict(mesh.cells), dict(mesh.node_sets))
    out = []
    for m in (mesh, rotated):
        model = Model(m)
        model.add_part("plate", "shell3", "plate", Material(E=200e9, nu=0.3, rho=7800.0), Section(thickness=0.01))
        out.append(solve_modal(model, 14, mass="consistent", shift=-1.0).omega)
    w0, w1 = out
    assert np.abs(w0[:6]).max() < 1e-4 * w0[6]
    assert np.allclose(w1[6:], w0[6:], rtol=1e-9, atol=0)


def roll_up(n, steps, L=12.0):
    """Cantilever strip L × 1 × 0.1, E = 1.2e6, ν = 0 (EI = 100), clamped at x = 0, end
    moment M = 2πEI/L about −Y (dead, half on each tip node) in ``steps`` equal steps."""
    E, b, t = 1.2e6, 1.0, 0.1
    EI = E * b * t**3 / 12
    mesh = rectangle_mesh(L, b, n, 1)
    model = Model(mesh)
    model.add_part("strip", "shell3", "plate", Material(E=E, nu=0.0), Section(thickness=t))
    model.fix("plate_x0")
    M = 2 * np.pi * EI / L
    model.point_load("plate_x1", my=-M / 2)
    res = solve_static(model, steps=steps, settings=NewtonSettings(tolerance=1e-8))
    return mesh, res, EI / M


def test_end_moment_rolls_the_strip_into_a_full_circle():
    """Sze–Liu–Lo's roll-up (analytic): M = 2πEI/L closes the strip into a circle of radius
    R = EI/M = L/2π. Every node on the exact circle (center (0, 0, R)) within 1e-3 R on a
    12 × 1 mesh and converging at least at O(h²) on 24 × 1; the tip returns to the root
    (|x_tip − x_root| < 2e-3 L on 12 × 1); at half the load (α = π) the tip is at
    u_x = −L, w = 2L/π within 1e-3 L."""
    L = 12.0
    radius_errors = []
    for n in (12, 24):
        mesh, res, R = roll_up(n, 8, L)
        x = mesh.points + res.nodal_displacements()
        r = np.hypot(x[:, 0], x[:, 2] - R)
        radius_errors.append(np.abs(r - R).max() / R)
        tip = mesh.node_sets["plate_x1"]
        if n == 12:
            assert np.abs(x[tip] - mesh.points[mesh.node_sets["plate_x0"]]).max() < 2e-3 * L
            half = int(np.argmin(np.abs(np.asarray(res.times) - 0.5)))
            u = res.nodal_displacements(half)[tip]
            assert np.abs(u[:, 0] + L).max() < 1e-3 * L
            assert np.abs(u[:, 2] - 2 * L / np.pi).max() < 1e-3 * L
    assert radius_errors[0] < 1e-3
    assert radius_errors[0] / radius_errors[1] > 4.0


# Sze, Liu & Lo (2004), cantilever under end shear: tip W and −U at P/Pmax = 0.1 … 1.0
SZE_W = [1.309, 2.493, 3.488, 4.292, 4.933, 5.444, 5.855, 6.190, 6.467, 6.698]
SZE_U = [0.103, 0.381, 0.763, 1.184, 1.604, 2.002, 2.370, 2.705, 3.010, 3.286]


def test_sze_cantilever_under_end_shear_follows_the_reference_path():
    """shell-sze-cantilever (Sze, Liu & Lo, FEAD 40 (2004), table as encoded in Chrono's
    Reissner-shell demo): L = 10, b = 1, h = 0.1, E = 1.2e6, ν = 0, clamped, tip shear
    P_max = 4 (dead, uniform along the tip edge), 16 × 1 squares (32 triangles), 10 equal
    increments. Tip W and −U within 0.6 % of the table along the whole path and within
    0.2 % at P_max (measured: W +0.06 %, −U +0.14 %); the exact tangent keeps Newton at
    ≤ 8 iterations per increment (65 in total measured)."""
    mesh = rectangle_mesh(10.0, 1.0, 16, 1)
    model = Model(mesh)
    model.add_part("strip", "shell3", "plate", Material(E=1.2e6, nu=0.0), Section(thickness=0.1))
    model.fix("plate_x0")
    model.point_load("plate_x1", fz=2.0)
    lams = np.linspace(0.1, 1.0, 10)
    res = solve_static(model, load_factors=lams, settings=NewtonSettings(tolerance=1e-8))
    times = np.asarray(res.times)
    tip = mesh.node_sets["plate_x1"]
    for k, lam in enumerate(lams):
        d = res.nodal_displacements(int(np.argmin(np.abs(times - lam))))[tip].mean(axis=0)
        assert d[2] == pytest.approx(SZE_W[k], rel=6e-3)
        assert -d[0] == pytest.approx(SZE_U[k], rel=6e-3)
    assert d[2] == pytest.approx(SZE_W[-1], rel=2e-3)
    assert -d[0] == pytest.approx(SZE_U[-1], rel=2e-3)
    assert max(res.history["iterations"]) <= 8
    assert res.info["newton_iterations"] <= 80


def test_beam3d_stiffener_shares_nodes_with_the_shell():
    """Mixed model: a steel strip 1 × 0.2 × 0.002 (shell3) with a beam3d stiffener along its
    centre line on the same nodes (no offset). Free: exactly 6 rigid modes (consistent
    conventions of the oriented nodes). Clamped at x = 0 with 30 N at the tip: deflection
    P L³/(3 E (I_rib + b t³/12)) within 2 % (measured +1.0 %: the plate's Poisson
    stiffening is not in the beam formula)."""
    from femb.mesh import rectangle_mesh as rect
    mesh = rect(1.0, 0.2, 10, 2)
    mid = np.flatnonzero(np.isclose(mesh.points[:, 1], 0.1))
    mid = mid[np.argsort(mesh.points[mid, 0])]
    mesh.add_cells("stiffener", "line", np.column_stack([mid[:-1], mid[1:]]))
    steel = Material(E=210e9, nu=0.3, rho=7800.0)
    model = Model(mesh)
    model.add_part("skin", "shell3", "plate", steel, Section(thickness=0.002))
    model.add_part("rib", "beam3d", "stiffener", steel,
                   Section(A=1e-4, Iy=2e-9, Iz=1e-9, J=1e-9, orientation=(0.0, 1.0, 0.0)))
    w = solve_modal(model, 8, mass="lumped", shift=-1.0).omega
    assert np.abs(w[:6]).max() < 1e-3 * w[6]
    model.fix("plate_x0")
    model.point_load("plate_x1", fz=-10.0)
    res = solve_static(model, steps=1)
    EI = 210e9 * (2e-9 + 0.2 * 0.002**3 / 12)
    tip = -res.nodal_displacements()[mesh.node_sets["plate_x1"]][:, 2].mean()
    assert tip == pytest.approx(30.0 / (3 * EI), rel=2e-2)


CASE = """
title = "simply supported plate"
[model]
name = "plate"
dim = 3                        # the mesh file is flat (2-D points): shells need a 3-D model
[mesh]
file = "plate.msh"
[materials.alu]
E = 70e9
nu = 0.3
rho = 2700.0
[sections.skin]
thickness = 0.005
[[parts]]
name = "plate"
cells = "plate"
element = "shell3"
material = "alu"
section = "skin"
[[fix]]
nodes = "plate_boundary"
dofs = ["uz"]
[[fix]]
nodes = "plate_c00"
dofs = ["ux", "uy"]
[[fix]]
nodes = "plate_c10"
dofs = ["uy"]
[[steps]]
type = "modal"
name = "modes"
n_modes = 2
mass = "lumped"
"""


def test_case_file_with_a_shell_section_and_a_gmsh_plate(tmp_path):
    """A case file (gmsh mesh of triangles, section with thickness, shell3 part; modal
    frames are frequencies in Hz) gives the first frequency of the Python model: f11
    within 0.6 % of 24.203 Hz on 16 × 16 with lumped mass, f12 = f21 (lumped, from below)."""
    from femb import load_case
    from femb.mesh.io import write_mesh
    write_mesh(rectangle_mesh(1.0, 1.0, 16, 16), tmp_path / "plate.msh")
    (tmp_path / "plate.toml").write_text(CASE)
    freqs = np.asarray(load_case(tmp_path / "plate.toml").run(tmp_path / "out")[-1].times, dtype=float)
    assert freqs[0] == pytest.approx(24.203, rel=6e-3) and freqs[0] < 24.203
    assert freqs[1] == pytest.approx(2.5 * 24.203, rel=1.5e-2)


def test_stiffened_panel_example():
    """examples/stiffened_panel.py: the central flat-bar stiffener (beam3d on the skin's
    nodes) doubles the buckling load of the square panel; against Timoshenko & Gere's
    one-term energy solution (an upper bound) the stiffened load is 1.7 % below on 16 × 16
    and converges at O(h²) (measured −2.9 % → −1.7 % → −1.4 % on 8, 16, 32), the bare
    plate is within 0.6 % of k = 4."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "examples" / "stiffened_panel.py"
    spec = importlib.util.spec_from_file_location("example_stiffened_panel", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ref_bare, ref_stiff = mod.closed_forms()
    bare8, stiff8 = mod.main(8)
    bare, stiff = mod.main(16)
    assert bare == pytest.approx(ref_bare, rel=6e-3)
    assert -0.025 < stiff / ref_stiff - 1.0 < 0.0
    assert stiff > 2.0 * bare
    assert (ref_stiff - stiff8) > 1.5 * (ref_stiff - stiff)  # converging towards the bound


@pytest.mark.parametrize("element", ["shell3", "shell4"])
def test_gravity_on_a_plate_is_its_self_weight_pressure(element):
    """Model.gravity acts through the shell mass: an aluminium plate (t = 5 mm) sags under
    its own weight like Navier's plate under q = ρ t g (within 1 % on 16 × 16; measured
    −0.68 % shell3, −0.41 % shell4)."""
    from femb.validation.shell_models import ss_plate as plate
    E, nu, t, rho = 70e9, 0.3, 0.005, 2700.0
    mesh, model = plate(16, E, nu, t, rho=rho, element=element)
    model.gravity((0.0, 0.0, -9.81))
    res = solve_static(model, steps=1)
    D = E * t**3 / (12 * (1 - nu**2))
    w = res.nodal_displacements()[mesh.node_sets["plate_center"][0], 2]
    assert w == pytest.approx(-navier_center() * rho * t * 9.81 / D, rel=1e-2)
