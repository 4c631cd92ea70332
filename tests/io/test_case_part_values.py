"""Parts given directly by stiffness and mass properties (``values`` in a case file, the
same as ``add_part(..., values=...)``): rotary inertia independent of the stiffness
section, checked against closed-form frequencies, and the input checks."""
import math

import numpy as np
import pytest

from femb.case import load_case
from femb.core.errors import InputError

TORSION_CASE = """\
[parameters]
L = 2.0
[mesh.line]
name = "shaft"
start = [0.0, 0.0, 0.0]
end = ["L", 0.0, 0.0]
elements = 16
[[parts]]
cells = "shaft"
element = "beam3d"
values = { EA = 1e6, GJ = 300.0, EIy = 500.0, EIz = 500.0, rhoA = 1.0, rhoIp = 20.0, rhoIy = 10.0, rhoIz = 10.0 }
[[fix]]
nodes = "shaft_start"
[[fix]]
nodes = "shaft_nodes"
dofs = ["ux", "uy", "uz", "ry", "rz"]
[[steps]]
type = "modal"
n_modes = 3
mass = "MASS"
"""


@pytest.mark.parametrize("mass", ["lumped", "consistent"])
def test_torsion_frequencies_follow_the_given_polar_inertia(write_case, tmp_path, mass):
    """Fixed–free shaft, GJ = 300, ρIp = 20 given directly (EIy = EIz = 500 would give a
    stiffness-derived ρIp of a different size): ω_n = (2n−1)π/(2L)·√(GJ/ρIp) (e.g.
    Meirovitch, Fundamentals of Vibrations, 2001, §8.6). The linear torsion element is
    exact as a chain: lumped (ρIp h at inner nodes, h/2 at the free end) gives
    ω_n = (2/h)√(GJ/ρIp)·sin((2n−1)π/(4N)) to round-off; consistent gives the
    Rayleigh–Ritz upper bound ω_n·(1 + ((2n−1)πh/(2L))²/24 + O(h⁴))."""
    (res,) = load_case(write_case(TORSION_CASE.replace("MASS", mass))).run(tmp_path, progress=False)
    omega = 2.0 * math.pi * np.asarray(res.series("frequency_hz"))
    L, N, c = 2.0, 16, math.sqrt(300.0 / 20.0)
    h, n = L / N, np.arange(1, 4)
    exact = (2 * n - 1) * math.pi / (2 * L) * c
    if mass == "lumped":
        chain = 2.0 / h * c * np.sin((2 * n - 1) * math.pi / (4 * N))
        assert np.allclose(omega, chain, rtol=1e-9, atol=0)
        assert np.all(omega < exact)
    else:
        excess = omega / exact - 1.0
        predicted = ((2 * n - 1) * math.pi * h / (2 * L)) ** 2 / 24.0
        assert np.all(excess > 0)
        assert np.allclose(excess, predicted, rtol=0.05, atol=0)


TIMOSHENKO_CASE = """\
[mesh.line]
name = "beam"
start = [0.0, 0.0]
end = [1.0, 0.0]
elements = NEL
[[parts]]
cells = "beam"
element = "beam2d_timoshenko"
values = { EA = 1e8, EI = 1.0, GAs = 50.0, rhoA = 1.0, rhoI = 0.01 }
[[fix]]
nodes = "beam_start"
dofs = ["ux", "uy"]
[[fix]]
nodes = "beam_end"
dofs = ["uy"]
[[steps]]
type = "modal"
n_modes = 2
mass = "consistent"
"""


def timoshenko_simply_supported(n, EI=1.0, GAs=50.0, rhoA=1.0, rhoI=0.01, L=1.0):
    """Lower root of (ρI ρA/GAs) ω⁴ − (ρA + k²(ρI + ρA EI/GAs)) ω² + EI k⁴ = 0, k = nπ/L:
    the simply supported Timoshenko beam (Timoshenko, Phil. Mag. 41 (1921) 744; e.g.
    Han, Benaroya & Wei, J. Sound Vib. 225 (1999) 935, eq. for the hinged–hinged beam)."""
    k = n * math.pi / L
    a, b, c = rhoI * rhoA / GAs, -(rhoA + k**2 * (rhoI + rhoA * EI / GAs)), EI * k**4
    return math.sqrt((-b - math.sqrt(b * b - 4 * a * c)) / (2 * a))


def test_timoshenko_beam_with_given_rotary_inertia_converges_to_the_closed_form(write_case, tmp_path):
    """ρI = 0.01 and GAs = 50 given directly (slenderness where rotary inertia and shear
    lower the first two frequencies by several per cent from Euler–Bernoulli): the
    consistent-mass frequencies approach the closed form at the element's O(h²) rate."""
    errors = []
    for nel in (8, 16, 32):
        text = TIMOSHENKO_CASE.replace("NEL", str(nel))
        (res,) = load_case(write_case(text, name=f"t{nel}.toml")).run(tmp_path / str(nel), progress=False)
        omega = 2.0 * math.pi * np.asarray(res.series("frequency_hz"))
        exact = np.array([timoshenko_simply_supported(n) for n in (1, 2)])
        errors.append(np.abs(omega / exact - 1.0))
    errors = np.array(errors)
    euler = np.array([(n * math.pi) ** 2 for n in (1, 2)])
    exact = np.array([timoshenko_simply_supported(n) for n in (1, 2)])
    assert np.all(euler / exact - 1.0 > 0.02)  # the given ρI and GAs matter
    assert errors[-1].max() < 2e-3
    rates = np.log2(errors[:-1] / errors[1:])
    assert np.all(np.abs(rates[-1] - 2.0) < 0.3), (errors, rates)


@pytest.mark.parametrize("old, new, culprits", [
    ("rhoIz = 10.0 }", "rhoIz = 10.0, EI = 3.0 }", ["parts[0].values.EI", "no parameter 'EI'"]),
    ("EA = 1e6, ", "", ["parts[0].values", "needs EA"]),
    ('element = "beam3d"', 'element = "beam3d"\nmaterial = "m"', ["parts[0].material", "takes no material"]),
])
def test_bad_values_are_reported_with_their_key_path(write_case, old, new, culprits):
    text = TORSION_CASE.replace("MASS", "lumped")
    with pytest.raises(InputError) as exc:
        load_case(write_case(text, replace=[(old, new)]))
    for c in culprits:
        assert c in str(exc.value), str(exc.value)


def test_spatial_timoshenko_beam_with_given_rotary_inertia_has_the_closed_form_frequencies():
    """beam3d_timoshenko with the values of the 2-D test in both bending planes (EIy = EIz,
    GAy = GAz, ρIy = ρIz given directly; ρIp and GJ given unrelated to them, the fixed-free torsion above the
    pair): the first
    bending pair of the simply supported beam approaches the closed form at O(h²)
    (consistent mass, 16 and 32 elements)."""
    from femb.mesh import line_mesh
    from femb.model import Model
    from femb.solvers import solve_modal

    exact = timoshenko_simply_supported(1)
    errors = []
    for nel in (16, 32):
        model = Model(line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), nel, "b"), dim=3)
        model.add_part("b", "beam3d_timoshenko", "b", values=dict(
            EA=1e8, GJ=70.0, EIy=1.0, EIz=1.0, GAy=50.0, GAz=50.0, rhoA=1.0, rhoIp=0.3, rhoIy=0.01, rhoIz=0.01))
        model.fix("b_start", ("ux", "uy", "uz", "rx"))
        model.fix("b_end", ("uy", "uz"))
        omega = 2.0 * math.pi * np.asarray(solve_modal(model, 2, mass="consistent").frequency_hz)
        errors.append(np.abs(omega / exact - 1.0))
    assert np.all(errors[-1] < 1e-3)
    assert np.all(np.abs(np.log2(errors[0] / errors[1]) - 2.0) < 0.3), errors


ECCENTRIC_CASE = """\
[mesh.line]
name = "beam"
start = [0.0, 0.0, 0.0]
end = [2.0, 0.0, 0.0]
elements = 4
[materials.m]
E = 1e4
G = 3e3
[sections.channel]
A = 1.0
Iy = 5e-4
Iz = 8e-4
J = 1e-3
shear_centre = [-0.02, 0.04]
[[parts]]
cells = "beam"
element = "beam3d"
material = "m"
section = "channel"
[[fix]]
nodes = "beam_start"
[[loads]]
type = "point"
nodes = "beam_end"
fy = 1e-8
[[steps]]
type = "static"
steps = 1
"""


def test_section_shear_centre_from_a_case_file_twists_the_cantilever(write_case, tmp_path):
    """Case-file key ``shear_centre`` = (ys, zs): a tip force F through the node line of a
    cantilever twists it by φ = F zs L/GJ (the torque about the shear centre, warping-free
    theory, see tests/elements/test_beam3d_eccentric.py) and moves the tip by
    F L³/(3 EIz) + zs φ along y; a tiny load keeps it linear (to 1e-7)."""
    case = load_case(write_case(ECCENTRIC_CASE))
    (res,) = case.run(tmp_path, progress=False)
    tip = int(res.model.node("beam_end"))
    F, L, GJ, EIz, zs = 1e-8, 2.0, 3e3 * 1e-3, 1e4 * 8e-4, 0.04
    phi = F * zs * L / GJ
    assert res.dof(tip, "rx")[-1] == pytest.approx(phi, rel=1e-7)
    assert res.dof(tip, "uy")[-1] == pytest.approx(F * L**3 / (3 * EIz) + zs * phi, rel=1e-7)
    bad = write_case(ECCENTRIC_CASE.replace("shear_centre = [-0.02, 0.04]", "shear_centre = [0.04]"), name="bad.toml")
    with pytest.raises(InputError, match="shear_centre"):
        load_case(bad)
