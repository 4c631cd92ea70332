"""Rigid mechanisms with eliminated multipliers against closed-form kinematics.

Rigid slider-crank: crank r = 0.1524 m driven at ω = 1 rad/s (its pin follows
r(cos ωt, sin ωt): a prescribed motion), connecting rod L = 0.3048 m, slider on the x axis.
The rod is a rigid body, either

* ``rigid_body2d`` at its centre (x, y, θ) with two ``body_point`` joints (crank pin and
  wrist pin at the rod ends), or
* ``rigid_link2d``: the rod described by its two end points (natural coordinates) with a
  distance joint,

and the slider is a point mass with uy fixed. The mechanism has no degree of freedom left:
positions follow from the constraints alone. Closed form (θ = ωt, D = √(L² − r² sin²θ)):
x_s = r cos θ + D, rod angle φ = −asin(r sin θ / L), ẋ_s = −rω sin θ (1 + r cos θ / D),
ẍ_s by differentiating once more (see ``closed_form``).

What is checked, honestly:

* positions and the rod angle are enforced by the joints at the end of every step, so they
  match the closed form to the Newton/constraint tolerance (≤ 1e-10 m or rad), independent
  of the step size: this checks the joint equations, the driver and their solution;
* velocity and acceleration of the slider are obtained by 7-point (6th-order) central
  differences of the computed trajectory and match the closed form to 1e-8 relative to
  their maxima (spacing Δt = 2π/320 s for ẋ, 2Δt for ẍ; truncation and round-off of the
  positions each ≲ 1e-9);
* the energy balance (kinetic energy against the work of the crank drive) closes to
  round-off with the natural-coordinate rod; with the rotation-based rod it closes to
  O(Δt²) (see the comment in the test);
* the velocities of the integrator itself (mid-point scheme) are second-order accurate:
  the error falls by 4 when the step is halved (they are not accurate to 1e-8 at these
  steps: ≈ 1e-5 at Δt ≈ 0.02 s).
"""
import numpy as np
import pytest

from femb.mesh import Mesh
from femb.model import Model
from femb.solvers import solve_dynamic

R_CRANK, L_ROD, OMEGA = 0.1524, 0.3048, 1.0


def closed_form(t, r=R_CRANK, L=L_ROD, w=OMEGA):
    """Slider position, velocity, acceleration and rod angle of the rigid slider-crank."""
    th = w * t
    s, c = np.sin(th), np.cos(th)
    D = np.sqrt(L**2 - (r * s) ** 2)
    x = r * c + D
    dD = -(r**2) * s * c * w / D  # dD/dt
    v = -r * w * s + dD
    # d²D/dt² = −r²ω² cos2θ / D − (dD/dt)² / D
    a = -r * w**2 * c - (r**2) * w**2 * np.cos(2 * th) / D - dD**2 / D
    phi = -np.arcsin(r * s / L)
    return x, v, a, phi


def slider_crank(rod="rigid_body2d", m_rod=0.5, m_slider=0.1):
    """The rigid slider-crank at θ = 0 (crank and rod along +x)."""
    r, L = R_CRANK, L_ROD
    pts = np.array([[r, 0.0], [r + 0.5 * L, 0.0], [r + L, 0.0]])
    model = Model(Mesh(pts, {}, {"pin": [0], "rod": [1], "slider": [2]}), name=f"rigid slider-crank ({rod})")
    model.add_discrete("slider mass", "point_mass2d_translational", "slider", m=m_slider)
    if rod == "rigid_body2d":
        model.add_discrete("pin node", "point_mass2d_translational", "pin", m=0.0)
        model.add_discrete("rod body", "rigid_body2d", "rod", m=m_rod, J=m_rod * L**2 / 12.0)
        model.body_point("rod", "pin", name="crank pin")
        model.body_point("rod", "slider", name="wrist pin")
    else:
        model.rigid_link2d("rod", "pin", "slider", m=m_rod)
    model.prescribe("pin", "ux", function=lambda t: r * (np.cos(OMEGA * t) - 1.0))
    model.prescribe("pin", "uy", function=lambda t: r * np.sin(OMEGA * t))
    model.fix("slider", ("uy",))
    return model


def _slider(res):
    x = R_CRANK + L_ROD + res.dof(2, "ux")
    var = res.table.var_of(2, "ux")
    v = np.array([vel[var] for vel in res.velocities])
    return x, v


def _rod_angle(res, rod):
    if rod == "rigid_body2d":
        return res.dof(1, "rz")
    pin = np.column_stack([R_CRANK + res.dof(0, "ux"), res.dof(0, "uy")])
    sl = np.column_stack([R_CRANK + L_ROD + res.dof(2, "ux"), res.dof(2, "uy")])
    d = sl - pin
    return np.arctan2(d[:, 1], d[:, 0])


def _central(x, H):
    """6th-order central first and second differences (7-point stencils) at the interior
    points k = 3 .. n−4."""
    s = [x[i:len(x) - 6 + i] for i in range(7)]
    d1 = (-s[0] + 9 * s[1] - 45 * s[2] + 45 * s[4] - 9 * s[5] + s[6]) / (60 * H)
    d2 = (2 * s[0] - 27 * s[1] + 270 * s[2] - 490 * s[3] + 270 * s[4] - 27 * s[5] + 2 * s[6]) / (180 * H**2)
    return d1, d2


@pytest.mark.parametrize("rod", ["rigid_body2d", "rigid_link2d"])
def test_rigid_slider_crank_matches_closed_form_kinematics(rod):
    dt = 2 * np.pi / OMEGA / 320  # uniform steps over one crank revolution
    res = solve_dynamic(slider_crank(rod), dt, 320 * dt)
    t = np.asarray(res.times)
    x_ex, v_ex, a_ex, phi_ex = closed_form(t)
    x, v = _slider(res)
    # positions: enforced by the joints at every step
    assert np.max(np.abs(x - x_ex)) <= 1e-10
    assert np.max(np.abs(_rod_angle(res, rod) - phi_ex)) <= 1e-10
    assert res.series("constraint_residual").max() <= 1e-12
    # velocity and acceleration: central differences of the computed trajectory
    d1 = _central(x, dt)[0]
    assert np.all(np.asarray(np.abs(v_ex).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.max(np.abs(d1 - v_ex[3:-3])) <= 1e-8 * np.abs(v_ex).max()
    d2 = _central(x[::2], 2 * dt)[1]  # every other frame: less round-off in the second difference
    assert np.all(np.asarray(np.abs(a_ex).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.max(np.abs(d2 - a_ex[::2][3:-3])) <= 1e-8 * np.abs(a_ex).max()
    # the integrator's own velocities: mid-point accuracy (second order, see below)
    assert np.all(np.asarray(np.abs(v_ex).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.max(np.abs(v - v_ex)) <= 1e-4 * np.abs(v_ex).max()
    # energy balance: kinetic energy change = work of the crank drive (the solver's
    # constraint_work: the reactions on the driven pin, joint reactions included), exact
    # for both rods: the mid-point scheme uses the exact discrete Jacobian of the joints
    # (for body_point, the sinc-corrected derivative of the rotating offset)
    error = np.max(np.abs(res.series("energy_residual"))) / np.max(res.series("kinetic_energy"))
    assert error <= 1e-10  # measured ~1e-13 for both


def test_midpoint_velocities_of_the_rigid_slider_crank_converge_at_second_order():
    errors = []
    for n in (40, 80):  # a quarter revolution
        dt = 0.5 * np.pi / OMEGA / n
        res = solve_dynamic(slider_crank("rigid_link2d"), dt, n * dt)
        t = np.asarray(res.times)
        v = _slider(res)[1]
        errors.append(np.max(np.abs(v - closed_form(t)[1])))
    assert errors[0] / errors[1] == pytest.approx(4.0, rel=0.1)


def test_rigid_link_mass_is_the_rigid_body_kinetic_energy():
    """½ q̇ᵀ M q̇ of a rigid_link2d equals ½ m |v_c|² + ½ J ω² for any rigid motion, also
    with the centre of mass off the link axis."""
    from femb.assembly import Assembler
    from femb.correlation import build_table

    m, J, com = 2.0, 0.37, (0.3, -0.2)
    a, b = np.array([0.2, 0.1]), np.array([1.0, 0.7])
    model = Model(Mesh(np.array([a, b]), {}, {"a": [0], "b": [1]}))
    model.rigid_link2d("body", "a", "b", m=m, J=J, com=com)
    table = build_table(model)
    M = Assembler(table).mass_matrix(0).toarray()  # all variables are free equations
    d = b - a
    e1 = d / np.linalg.norm(d)
    c = a + com[0] * e1 + com[1] * np.array([-e1[1], e1[0]])
    rng = np.random.default_rng(1)
    for _ in range(3):
        vel, w = rng.standard_normal(2), rng.standard_normal()
        va = vel + w * np.array([-(a - c)[1], (a - c)[0]])
        vb = vel + w * np.array([-(b - c)[1], (b - c)[0]])
        q = np.zeros(4)
        q[table.var_of(0, "ux")], q[table.var_of(0, "uy")] = va
        q[table.var_of(1, "ux")], q[table.var_of(1, "uy")] = vb
        qe = q[table.eq_var]
        assert 0.5 * qe @ M @ qe == pytest.approx(0.5 * m * vel @ vel + 0.5 * J * w * w, rel=1e-12)
    assert np.all(np.linalg.eigvalsh(M) > 0)


def test_body_point_midpoint_jacobian_is_an_exact_discrete_derivative():
    from femb.assembly.joints import ConstraintSet
    from femb.correlation import build_table

    model = slider_crank("rigid_body2d")
    table = build_table(model)
    cs = ConstraintSet(model, table)
    rng = np.random.default_rng(2)
    u0, u1 = 0.1 * rng.standard_normal(table.n_var), 0.1 * rng.standard_normal(table.n_var)
    u1[table.var_of(1, "rz")] = u0[table.var_of(1, "rz")] + 1.3  # a large rotation increment
    dphi = cs.evaluate(u1, 0.0, jacobian=False) - cs.evaluate(u0, 0.0, jacobian=False)
    assert np.allclose(cs.midpoint_jacobian(u0, u1) @ (u1 - u0), dphi, atol=1e-14)
    # and the ordinary Jacobian is the derivative (finite differences)
    phi, G = cs.evaluate(u0, 0.0)
    du = 1e-7 * rng.standard_normal(table.n_var)
    assert np.allclose(G @ du, cs.evaluate(u0 + du, 0.0, jacobian=False) - phi, atol=1e-12)
