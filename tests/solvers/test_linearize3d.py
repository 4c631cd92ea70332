"""linearize() of models with 3-D rotations (rotation increments as coordinates, an optional
turning frame), against closed forms:

- a spherical pendulum (rigid_body3d on a spherical joint at an attachment point) hanging
  at rest: ω² = m g L / (m L² + J_d) twice (compound pendulum), and about its conical
  steady motion (rate Ω² = g/(L cos α), point mass) the nutation ω = Ω √(1 + 3 cos² α)
  (e.g. Goldstein, Classical Mechanics, small oscillations about a steady motion);
- the heavy symmetric top sleeping on its pivot (spin Ω about the vertical symmetry axis,
  J₁ the transverse inertia about the pivot, J₃ the axial one): stable iff
  J₃² Ω² > 4 J₁ m g l, the tilt precessing at ω = (J₃ Ω ± √(J₃² Ω² − 4 J₁ m g l)) / (2 J₁)
  in the fixed frame (ω − Ω in the frame turning with the top); below the limit it grows at
  √(4 J₁ m g l − J₃² Ω²) / (2 J₁);
- the spin-up B beam (rotating-beam-eigen) linearized in its turning frame equals
  steady_spin.
"""
import numpy as np
import pytest

from femb.mesh import Mesh
from femb.model import Model
from femb.solvers import linearize

G = 9.81


def body_on_pivot(z, m, Jd, Jp):
    """A rigid body (centre of mass at (0, 0, z), inertia diag(Jd, Jd, Jp) about it) on a
    spherical joint at the origin, gravity −z."""
    model = Model(Mesh(np.array([[0.0, 0.0, z]]), {}, {"b": [0]}), dim=3, name="body on a pivot")
    model.add_discrete("body", "rigid_body3d", "b", m=m, Jxx=Jd, Jyy=Jd, Jzz=Jp)
    model.joint3d("spherical", "b", None, point=(0.0, 0.0, 0.0), name="pivot")
    model.gravity((0.0, 0.0, -G))
    return model


def frequencies(lin, tol=1e-6):
    ev = lin.eigenvalues()
    return np.sort(ev.imag[ev.imag > tol])


def test_hanging_spherical_pendulum_has_the_compound_pendulum_frequency_twice():
    L, m, Jd, Jp = 0.9, 2.0, 0.05, 0.02
    lin = linearize(body_on_pivot(-L, m, Jd, Jp), np.zeros(6))
    # three rotation increments independent, the pivot fixes the translations
    assert sorted(d for _, d in lin.independent) == ["rx", "ry", "rz"]
    w = frequencies(lin)
    expected = np.sqrt(m * G * L / (m * L * L + Jd))  # 3.25171535 rad/s
    assert w.size == 2
    np.testing.assert_allclose(w, expected, rtol=1e-8)
    assert np.abs(lin.eigenvalues().real).max() < 1e-8 * expected
    # M_r: the inertia about the pivot (mL² + J_d) about x and y, J_p about the vertical
    np.testing.assert_allclose(np.sort(np.linalg.eigvalsh(lin.M)), np.sort([Jp, m * L * L + Jd, m * L * L + Jd]), rtol=1e-12)


def test_hanging_point_mass_on_a_spherical_joint_has_sqrt_g_over_l_twice():
    """The point-mass limit (inertia 1e-9 m L² about the centre): ω = √(g/L) = 3.30151 rad/s
    twice, to 1e-8 (the inertia shifts it by 5e-10)."""
    L, m = 0.9, 2.0
    J = 1e-9 * m * L * L
    w = frequencies(linearize(body_on_pivot(-L, m, J, J), np.zeros(6)), tol=1e-2)
    np.testing.assert_allclose(w, [np.sqrt(G / L)] * 2, rtol=1e-8)


def test_turned_asymmetric_body_keeps_its_two_pendulum_frequencies():
    """A body with inertia (J_a, J_b, J_c) about its centre, hanging, turned by 1 rad about the
    vertical at the operating point (R₀ ≠ I: the spatial inertia R₀ J₀ R₀ᵀ is no longer
    diagonal): ω² = m g L / (m L² + J_a) and m g L / (m L² + J_b) (3.19483, 3.25172 rad/s)."""
    L, m, Ja, Jb, Jc = 0.9, 2.0, 0.05, 0.11, 0.02
    model = Model(Mesh(np.array([[0.0, 0.0, -L]]), {}, {"b": [0]}), dim=3, name="turned body")
    model.add_discrete("body", "rigid_body3d", "b", m=m, Jxx=Ja, Jyy=Jb, Jzz=Jc)
    model.joint3d("spherical", "b", None, point=(0.0, 0.0, 0.0), name="pivot")
    model.gravity((0.0, 0.0, -G))
    lin = linearize(model, np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.0]))
    np.testing.assert_allclose(frequencies(lin), np.sort(np.sqrt(m * G * L / (m * L * L + np.array([Ja, Jb])))), rtol=1e-8)


def test_beam_at_rest_linearized_in_3d_equals_the_modal_analysis():
    """The clamped spin-up B cantilever at rest (6 beam3d, lumped mass): the eigenvalues of
    linearize's A are ±i times solve_modal's frequencies (3.7499 twice, 22.799, 62.159
    rad/s), to 1e-7: same tangent, same nodal inertia."""
    from femb.solvers import solve_modal
    from femb.solvers.problem import StaticProblem
    from femb.validation.eigen_cases import rotating_beam

    model = rotating_beam(6, "beam3d")
    lin = linearize(model, np.zeros(StaticProblem(model).table.n_var))
    modal = solve_modal(model, 6)
    assert np.abs(lin.eigenvalues().real).max() < 1e-9 * modal.omega.max()
    np.testing.assert_allclose(frequencies(lin)[:6], modal.omega, rtol=1e-7)


@pytest.mark.parametrize("alpha", [0.3, 0.8])
def test_conical_pendulum_nutation_about_the_steady_motion(alpha):
    """Point mass (inertia 1e-9 m L²) on a rod of length L turning at Ω² = g/(L cos α)
    about the vertical; linearized in the frame turning with it the steady motion is an
    equilibrium, and its nutation frequency is Ω √(1 + 3 cos² α)."""
    L, m = 0.9, 2.0
    J = 1e-9 * m * L * L
    model = body_on_pivot(-L, m, J, J)
    Om = np.sqrt(G / (L * np.cos(alpha)))
    u = np.array([L * np.sin(alpha), 0.0, L - L * np.cos(alpha), 0.0, -alpha, 0.0])  # rod tilted by α about y
    lin = linearize(model, u, spin=(0.0, 0.0, Om))
    w = frequencies(lin, tol=1e-2 * Om)
    assert w.size == 1
    np.testing.assert_allclose(w[0], Om * np.sqrt(1.0 + 3.0 * np.cos(alpha) ** 2), rtol=1e-6)


TOP = {"l": 0.3, "m": 2.0, "Jd": 0.05, "Jp": 0.02}


def top_limit():
    d = TOP
    J1 = d["Jd"] + d["m"] * d["l"] ** 2
    return J1, d["Jp"], np.sqrt(4.0 * J1 * d["m"] * G * d["l"]) / d["Jp"]


@pytest.mark.parametrize("ratio", [1.5, 1.02])
def test_sleeping_top_above_the_stability_limit_precesses_at_the_closed_form_rates(ratio):
    d = TOP
    J1, J3, Om_c = top_limit()  # Ω_c = 103.47 rad/s
    Om = ratio * Om_c
    lin = linearize(body_on_pivot(d["l"], d["m"], d["Jd"], d["Jp"]), np.zeros(6), spin=(0.0, 0.0, Om))
    ev = lin.eigenvalues()
    assert np.abs(ev.real).max() < 1e-9 * Om  # neutrally stable
    root = np.sqrt(J3**2 * Om**2 - 4.0 * J1 * d["m"] * G * d["l"])
    fixed = (J3 * Om + np.array([root, -root])) / (2.0 * J1)  # fast nutation, slow precession
    np.testing.assert_allclose(frequencies(lin), np.sort(np.abs(fixed - Om)), rtol=1e-8)


@pytest.mark.parametrize("ratio", [0.7, 0.98])
def test_sleeping_top_below_the_stability_limit_falls_at_the_closed_form_rate(ratio):
    d = TOP
    J1, J3, Om_c = top_limit()
    Om = ratio * Om_c
    lin = linearize(body_on_pivot(d["l"], d["m"], d["Jd"], d["Jp"]), np.zeros(6), spin=(0.0, 0.0, Om))
    growth = np.sqrt(4.0 * J1 * d["m"] * G * d["l"] - J3**2 * Om**2) / (2.0 * J1)
    np.testing.assert_allclose(lin.eigenvalues().real.max(), growth, rtol=1e-7)
    # its tilt still turns at J₃Ω/(2J₁) in the fixed frame
    ev = lin.eigenvalues()
    np.testing.assert_allclose(np.abs(ev.imag[ev.real > 0.5 * growth]), abs(J3 * Om / (2.0 * J1) - Om), rtol=1e-8)


def test_spinning_beam_linearized_in_its_turning_frame_equals_steady_spin():
    """The spin-up B cantilever (L = 10 m, EI = 1.4e4 N·m², ρA = 1.2 kg/m, 8 beam3d, lumped
    mass) at Ω = 6 rad/s: linearize about steady_spin's relative equilibrium in the frame
    turning at Ω gives steady_spin's frequencies (to 1e-7), first chordwise 4.4875 and
    flapwise 7.4927 rad/s, within 1 % of the reference 4.513 and 7.508 (consistent-mass
    fine-mesh values of validation/rotating-beam-eigen)."""
    from femb.solvers.eigen.steady_spin import steady_spin
    from femb.validation.eigen_cases import rotating_beam

    model = rotating_beam(8, "beam3d")
    ss = steady_spin(model, 6.0, axis=(0.0, 0.0, 1.0), mass="lumped")
    ref = ss.modes(4).damped_frequency
    lin = linearize(model, ss.state, spin=(0.0, 0.0, 6.0), mass="lumped")
    assert np.abs(lin.eigenvalues().real).max() < 1e-9
    w = frequencies(lin)[:4]
    np.testing.assert_allclose(w, ref, rtol=1e-7)
    np.testing.assert_allclose(w[:2], [4.513, 7.508], rtol=1e-2)


# ---------------------------------------------------------------- driven DOFs in 3-D
def pendulum_on_a_driven_hub(drive):
    """The compound pendulum of the first test hung by a spherical joint at the origin from
    a hub body: ``"rotation"``: hub centre at (0, 0, h0) turned about y by φ = φ0 sin νt (the
    pivot swings on an arc of radius h0 below it); ``"translation"``: hub at the origin
    moved along z by a cos νt."""
    L, m, Jd, Jp = 0.9, 2.0, 0.05, 0.02
    hub = (0.0, 0.0, 0.4) if drive == "rotation" else (0.0, 0.0, 0.0)
    model = Model(Mesh(np.array([[0.0, 0.0, -L], hub]), {}, {"b": [0], "hub": [1]}), dim=3, name="pendulum on a driven hub")
    model.add_discrete("body", "rigid_body3d", "b", m=m, Jxx=Jd, Jyy=Jd, Jzz=Jp)
    model.add_discrete("hub", "rigid_body3d", "hub", m=1.0, Jxx=0.1, Jyy=0.1, Jzz=0.1)
    model.joint3d("spherical", "b", "hub", point=(0.0, 0.0, 0.0), name="pivot")
    if drive == "rotation":
        model.fix("hub", ("ux", "uy", "uz", "rx", "rz"))
        model.prescribe("hub", "ry", function=lambda t: 0.3 * np.sin(4.0 * t))
    else:
        model.fix("hub", ("ux", "uy", "rx", "ry", "rz"))
        model.prescribe("hub", "uz", function=lambda t: 0.1 * np.cos(4.0 * t))
    model.gravity((0.0, 0.0, -G))
    return model, (L, m, Jd)


@pytest.mark.parametrize("t", [0.0, np.pi / 4.0])
def test_pendulum_on_a_hub_driven_about_a_horizontal_axis_feels_the_centripetal_pivot_acceleration(t):
    """At φ = 0 (t = 0, π/ν) the pivot accelerates straight up, p̈ = h0 φ̇² = h0 φ0² ν²
    (0.576 m/s²), and moves sideways at h0 φ̇: frozen at t the pendulum hangs in the
    effective gravity g + h0 φ0² ν², ω² = m (g + h0 φ0² ν²) L / (m L² + J_d) twice
    (3.34582 rad/s against 3.25172 undriven). Exercises the driven rotation's angular
    velocity and acceleration in the joint rates and Ġ."""
    model, (L, m, Jd) = pendulum_on_a_driven_hub("rotation")
    lin = linearize(model, np.zeros(12), t=t)
    np.testing.assert_allclose(frequencies(lin), np.sqrt(m * (G + 0.4 * 0.3**2 * 16.0) * L / (m * L * L + Jd)), rtol=1e-8)


@pytest.mark.parametrize("t", [0.0, 0.3])
def test_pendulum_on_a_vertically_driven_pivot_in_3d(t):
    """Pivot at z_p = a cos νt: effective gravity g + z̈_p = g − a ν² cos νt."""
    model, (L, m, Jd) = pendulum_on_a_driven_hub("translation")
    u = np.zeros(12)
    u[2] = 0.1 * np.cos(4.0 * t)  # the body hangs below the moved pivot
    lin = linearize(model, u, t=t)
    np.testing.assert_allclose(frequencies(lin), np.sqrt(m * (G - 1.6 * np.cos(4.0 * t)) * L / (m * L * L + Jd)), rtol=1e-8)


@pytest.mark.parametrize("hinge", ["flap", "lag"])
def test_hinged_rotor_blade_in_the_turning_frame_has_the_textbook_frequencies(hinge):
    """The hinged blade of tests/solvers/test_joint_markers.py (rigid uniform blade, L = 2,
    m = 4, hinge at e = 0.3 from the z axis) on a hub that turns freely on a bearing about z
    (inertia 1e10, so the hub's own motion is negligible), linearized about steady_spin's
    relative equilibrium in the frame turning at Ω = 3 rad/s: flapping
    ν² = Ω² (1 + e S/I − J_a/I), lead-lag ν² = Ω² e S/I (S = mL/2, I = mL²/3 about the
    hinge; Johnson, Helicopter Theory §9 with the blade's own J_a), 3.32019 and 1.42302 rad/s
    (measured rel. 1e-10 and 7e-8: the 1e10 hub inertia limits the difference quotients).
    Exercises joints between two oriented bodies with their multipliers in the turning
    frame."""
    from femb.solvers.eigen.steady_spin import steady_spin
    from tests.solvers.test_joint_markers import rod_body, rod_inertia

    e, L, m, spin = 0.3, 2.0, 4.0, 3.0
    model = Model(Mesh(np.array([[e + 0.5 * L, 0.0, 0.0], [0.0, 0.0, 0.0]]), {}, {"blade": [0], "hub": [1]}), dim=3,
                  name="hinged blade on a free hub")
    rod_body(model, "blade", "blade", m, L, np.array([1.0, 0.0, 0.0]))
    model.add_discrete("hub", "rigid_body3d", "hub", m=1e10, Jxx=1e10, Jyy=1e10, Jzz=1e10)
    model.joint3d("revolute", "hub", None, axis=(0.0, 0.0, 1.0), point=(0.0, 0.0, 0.0), name="hub bearing")
    axis = (0.0, 1.0, 0.0) if hinge == "flap" else (0.0, 0.0, 1.0)
    model.joint3d("revolute", "blade", "hub", axis=axis, point=(e, 0.0, 0.0), name="root hinge")
    lin = linearize(model, steady_spin(model, spin).state, spin=(0.0, 0.0, spin))
    S, I, Ja = 0.5 * m * L, m * L**2 / 3.0, rod_inertia(m, L, np.array([1.0, 0.0, 0.0]))[0, 0]
    expected = spin**2 * ((1.0 - Ja / I + e * S / I) if hinge == "flap" else e * S / I)
    w = frequencies(lin, tol=1e-2)
    assert w.size == 1
    np.testing.assert_allclose(w[0], np.sqrt(expected), rtol=1e-6)


@pytest.mark.parametrize("theta, w3, root", [(0.5, 150.0, "fast"), (0.5, 150.0, "slow"), (1.0, 150.0, "slow"),
                                              (0.5, 400.0, "slow")])
def test_heavy_top_nutates_about_its_steady_precession_at_the_closed_form_rate(theta, w3, root):
    """The heavy symmetric top of the sleeping-top tests tilted by θ, spinning at ω₃ about
    its axis a and precessing at φ̇ about the vertical, with m g l = φ̇ (J₃ ω₃ − J₁ φ̇ cos θ)
    (steady precession; the slow and fast roots). Linearized in the frame turning at φ̇ (the
    spin ψ̇ = ω₃ − φ̇ cos θ about the body's symmetry axis followed as a steady relative spin)
    the steady motion is an equilibrium and the nutation frequency is
    ω_n² = ((J₃ ω₃ − 2 J₁ φ̇ cos θ)² + J₁² φ̇² sin² θ) / J₁² (from the θ equation of the
    Lagrangian with the conserved p_φ and ω₃, e.g. Goldstein §5.7), to 1e-8."""
    d = TOP
    J1, J3, _ = top_limit()
    c = np.cos(theta)
    a = np.array([np.sin(theta), 0.0, c])  # the axis, turned about y by θ
    phis = np.sort(np.roots([J1 * c, -J3 * w3, d["m"] * G * d["l"]]).real)
    phi = phis[0] if root == "slow" else phis[1]
    omega = phi * np.array([0.0, 0.0, 1.0]) + (w3 - phi * c) * a
    u, v = np.zeros(6), np.zeros(6)
    u[:3], u[4] = d["l"] * a - np.array([0.0, 0.0, d["l"]]), theta
    v[:3], v[3:] = np.cross(omega, d["l"] * a), omega
    lin = linearize(body_on_pivot(d["l"], d["m"], d["Jd"], d["Jp"]), u, v, spin=(0.0, 0.0, phi))
    nutation = np.sqrt((J3 * w3 - 2.0 * J1 * phi * c) ** 2 + (J1 * phi * np.sin(theta)) ** 2) / J1
    w = frequencies(lin, tol=1e-3 * nutation)
    assert w.size == 1
    np.testing.assert_allclose(w[0], nutation, rtol=1e-8)
