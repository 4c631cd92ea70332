"""Planar beam sections whose mass centre is off the node line (beam2d ``ym``): the lumped
element mass against the rigid body of the section, the energy-momentum mid-point dynamics
(exact energy and momenta at steps far above the explicit limit, the exact Newton matrix of
the node-attached mass points), and a pinned offset-mass link swinging about the
equilibrium and at the frequency of the compound pendulum."""
import numpy as np
import pytest

from femb.core.errors import InputError
from femb.elements import get_spec
from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers import HHT, GeneralizedAlpha, Newmark, solve_dynamic
from femb.solvers.dynamics.problem import DynamicProblem
from femb.solvers.dynamics.step_system import State

BEAM2D = {"EA": 1e4, "EI": 10.0, "rhoA": 1.0, "rhoI": 0.01}


@pytest.mark.parametrize("name, extra", [("beam2d", {}), ("beam2d_timoshenko", {"GAs": 5e3})])
def test_lumped_mass_of_each_end_is_the_rigid_body_of_the_section(name, extra):
    """Each end carries m = ρA l0/2 at r = R(θ_a) ym n0 (n0 the reference chord normal) and
    the rotary inertia ρI l0/2 about it: [[m, 0, −m r_y], [0, m, m r_x], [−m r_y, m r_x,
    ρI l0/2 + m |r|²]]; the consistent and invariant kinds refuse the offset."""
    spec = get_spec(name)
    row = spec.property_row(None, None, {**BEAM2D, **extra, "ym": 0.07})
    assert row[-1] == 0.07
    X = np.array([[[0.2, -0.1], [1.0, 0.5]]])
    l0 = 1.0
    u = np.array([[0.01, 0.02, 0.4, -0.02, 0.03, -1.3]])
    M = np.zeros((1, 6, 6))
    spec.kernels.mass(X, u, row[None], 0, M)
    n0 = np.array([-0.6, 0.8])
    m = 0.5 * BEAM2D["rhoA"] * l0
    for a in range(2):
        th = u[0, 3 * a + 2]
        r = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]]) @ (0.07 * n0)
        expected = np.array([[m, 0.0, -m * r[1]], [0.0, m, m * r[0]],
                             [-m * r[1], m * r[0], 0.5 * BEAM2D["rhoI"] * l0 + m * r @ r]])
        assert np.allclose(M[0, 3 * a:3 * a + 3, 3 * a:3 * a + 3], expected, rtol=1e-14, atol=1e-16)
    assert np.all(M[0, :3, 3:] == 0.0)
    for kind in (1, 2):
        with pytest.raises(ValueError, match="lumped"):
            spec.kernels.mass(X, u, row[None], kind, M)


def free_offset_beam(n=4, **params):
    """A free planar beam (length 2, skew) with its mass centre at ym = 0.15, spinning,
    translating and vibrating."""
    model = Model(line_mesh((0.0, 0.0), (2.0, 0.3), n, "b"), dim=2, name="free planar offset beam")
    model.add_part("b", "beam2d", "b", values={**BEAM2D, "ym": 0.15, **params})
    model.initial_rigid_velocity(velocity=(0.3, -0.2), omega=0.8, center=(0.5, -0.2))
    model.initial_velocity("b_end", ux=0.2, uy=0.5, rz=2.0)
    return model


def test_free_flying_planar_offset_beam_keeps_energy_and_both_momenta_exactly():
    """300 steps of Δt = 0.05 (ω_max Δt ≫ 2: the axial mode alone is at about 400 rad/s):
    energy, linear and angular momentum stay at round-off (≤ 1e-10 relative) while the
    beam spins and vibrates."""
    res = solve_dynamic(free_offset_beam(), 0.05, 15.0)
    E = np.asarray(res.series("total_energy"))
    p = np.column_stack([res.series(f"linear_momentum_{c}") for c in "xy"])
    L = np.asarray(res.series("angular_momentum"))
    assert E[0] > 0 and np.linalg.norm(p[0]) > 0 and abs(L[0]) > 0
    assert np.abs(E - E[0]).max() <= 1e-10 * E[0]
    assert np.abs(p - p[0]).max() <= 1e-10 * np.linalg.norm(p[0])
    assert np.abs(L - L[0]).max() <= 1e-10 * abs(L[0])
    assert np.asarray(res.series("strain_energy")).max() >= 0.02 * E[0]
    assert res.info["newton_iterations"] / res.info["steps"] <= 8


def test_planar_offset_points_newton_matrix_is_the_derivative_of_their_step_force():
    """``PlanarOffsetPoints.assemble``: its matrix equals the central-difference derivative
    of its force with respect to the step unknowns (Δx, τ = 2 tan(Δθ/2)) up to their
    second-order truncation, at large rotation increments with gravity."""
    model = free_offset_beam(n=2)
    model.gravity((0.0, -9.81), constant=True)
    prob = DynamicProblem(model)
    pts = prob.offset_points
    assert pts and pts.parts() == ["b"]
    t = prob.table
    rng = np.random.default_rng(4)
    u0 = rng.normal(scale=0.5, size=t.n_var)
    n = pts.node.size
    state = State(0.0, u0, np.zeros(t.n_var), extra={"offset_x": rng.normal(size=(n, 2)), "offset_v": rng.normal(size=(n, 2))})
    h = 0.1
    rot = prob.rot

    def force(z, with_matrix=False):
        u1 = u0 + z
        u1[rot] = u0[rot] + 2.0 * np.arctan(0.5 * z[rot])
        f = np.zeros(t.n_var)
        data = t.new_matrix_data() if with_matrix else None
        pts.assemble(u0, u1, z, h, state, f, data, 0.0)
        return f, data

    z0 = rng.normal(scale=0.6, size=t.n_var)
    f, data = force(z0, True)
    K = t.csr(data).toarray()
    eq = t.eq_var
    gaps = []
    for step in (1e-4, 2e-4):
        D = np.zeros((eq.size, eq.size))
        for j, var in enumerate(eq):
            dz = np.zeros(t.n_var)
            dz[var] = step
            D[:, j] = (force(z0 + dz)[0][eq] - force(z0 - dz)[0][eq]) / (2 * step)
        gaps.append(np.abs(K - D).max() / np.abs(K).max())
    assert gaps[0] <= 1e-6 and 3.0 <= gaps[1] / gaps[0] <= 5.0


def offset_pendulum(n=8, L=1.0, e=0.2, g=9.81, omega0=0.0):
    """A stiff beam2d link pinned at the origin whose mass centre is at ym = e, hanging in
    the equilibrium of its lumped body (mass centre below the pivot), with an initial
    angular velocity omega0 about the pivot. Returns (model, ω of the compound pendulum of
    its lumped body: ω² = M g D / I_O)."""
    gamma = np.arctan2(e, L / 2)  # the mass centre's angle from the link axis
    beta = -0.5 * np.pi - gamma
    a = np.array([np.cos(beta), np.sin(beta)])
    model = Model(line_mesh((0.0, 0.0), tuple(L * a), n, "b"), dim=2, name="offset pendulum")
    rhoA, rhoI = 1.0, 1e-3
    model.add_part("b", "beam2d", "b", values={"EA": 1e8, "EI": 1e6, "rhoA": rhoA, "rhoI": rhoI, "ym": e})
    model.fix("b_start", ("ux", "uy"))
    model.gravity((0.0, -g), constant=True)
    x = np.asarray(model.mesh.points)[:, :2]
    model.initial_rigid_velocity(omega=omega0, center=(0.0, 0.0))
    # the lumped body: end masses rhoA h/2, interior rhoA h, all at their node + e n
    h = L / n
    s = np.linalg.norm(x, axis=1)
    mk = np.full(n + 1, rhoA * h)
    mk[[0, -1]] *= 0.5
    M = mk.sum()
    D = np.hypot(L / 2, e)
    I_O = float(mk @ (s**2 + e**2)) + rhoI * L
    return model, np.sqrt(M * g * D / I_O)


def test_pinned_offset_mass_link_swings_about_its_tilted_equilibrium_as_a_compound_pendulum():
    """Released at the equilibrium of its lumped body (the mass centre, e = 0.2 L off the
    link axis, straight below the pivot: the link tilts by atan(e/(L/2)) = 21.8°) with a
    small angular velocity, the link swings by ±ω0/ω about it (not by the 21.8° a mass on
    the node line would swing) at ω² = M g D / I_O (D = √(L²/4 + e²), I_O = Σ m_k (s_k² + e²)
    + ρI L): the measured period is the mid-point rule's 2π/ω_h, ω_h = (2/h) atan(ωh/2),
    to 5e-5 (the link's elasticity and the 1e-3 rad amplitude); a mass on the node line
    would give a period 2 % different."""
    model, w = offset_pendulum(omega0=1e-3 * 3.8)
    dt = 0.01
    res = solve_dynamic(model, dt, 4.5)
    th = np.array([s[-1] for s in res.states])  # rz of the tip
    t = np.asarray(res.times)
    amp = 1e-3 * 3.8 / w
    assert np.abs(th).max() <= 1.05 * amp and np.abs(th).max() >= 0.95 * amp
    down = np.flatnonzero((th[:-1] > 0) & (th[1:] <= 0))
    crossings = t[down] + dt * th[down] / (th[down] - th[down + 1])
    period = np.diff(crossings).mean()
    assert len(crossings) >= 3
    assert period == pytest.approx(2 * np.pi / (2.0 / dt * np.arctan(0.5 * w * dt)), rel=5e-5)
    assert np.abs(res.series("energy_residual")).max() <= 1e-12 * 9.81  # M g L = 9.81


def test_other_mass_kinds_refuse_the_planar_offset_naming_the_part():
    model = free_offset_beam(n=2)
    with pytest.raises(InputError, match="'b'.*lumped"):
        solve_dynamic(model, 0.05, 0.1, mass="invariant")


def test_offset_points_alpha_newton_matrix_is_the_derivative_of_their_inertia_and_velocity_force():
    """``PlanarOffsetPoints.evaluate`` (the α schemes' configuration-dependent-mass slot):
    its matrix c_M M(θ) + c_Ma ∂(M a)/∂u + c_h ∂h/∂u + c_v ∂h/∂v equals the
    central-difference derivative of M(θ) a and h = Jᵀ(−m θ̇² r − m g) to 1e-8, at random
    states with gravity; and h's rotational row is −r × m g (the weight's moment, on the
    left-hand side) alone."""
    model = free_offset_beam(n=2)
    model.gravity((0.3, -9.81), constant=True)
    prob = DynamicProblem(model)
    pts, t = prob.offset_points, prob.table
    rng = np.random.default_rng(3)
    u, v, a = (rng.normal(size=t.n_var) for _ in range(3))
    cM, cMa, ch, cv = 0.7, 1.3, 0.9, 2.1
    data = t.new_matrix_data()
    pts.evaluate(u, v, a, c_a=(cM, cMa), c_v=(ch, cv), data=data)
    K, eq, eps = t.csr(data).toarray(), t.eq_var, 1e-6
    D = np.zeros_like(K)
    for j, var in enumerate(eq):
        e = np.zeros(t.n_var)
        e[var] = eps
        (Ma_p, h_p), (Ma_m, h_m) = pts.evaluate(u + e, v, a), pts.evaluate(u - e, v, a)
        D[:, j] = ((cMa * (Ma_p - Ma_m) + ch * (h_p - h_m)) / (2 * eps))[eq]
        D[:, j] += (cv * (pts.evaluate(u, v + e, a)[1] - pts.evaluate(u, v - e, a)[1]) / (2 * eps))[eq]
        D[:, j] += (cM * (pts.evaluate(u, v, a + e)[0] - pts.evaluate(u, v, a - e)[0]) / (2 * eps))[eq]
    assert np.abs(K - D).max() <= 1e-8 * np.abs(K).max()
    h = pts.evaluate(u, v, np.zeros(t.n_var))[1]
    r = pts.positions(u) - pts.X - u[pts.tvar]
    w = pts.m[:, None] * np.array([0.3, -9.81])
    moment = np.zeros(t.n_var)
    np.add.at(moment, pts.rvar, r[:, 0] * w[:, 1] - r[:, 1] * w[:, 0])
    assert np.allclose(h[pts.rvar], -moment[pts.rvar], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("scheme", [GeneralizedAlpha(rho_inf=0.8), HHT(alpha=-0.1)], ids=["genalpha", "hht"])
def test_alpha_schemes_swing_the_offset_mass_link_at_second_order(scheme):
    """The pinned offset-mass link swinging by about ±0.6 rad (ω0 = 3 rad/s): the nodal
    angles at t = 1 s against the same scheme at Δt/64 converge at rate 2 (error ratio
    4 ± 0.2 per halving of Δt = 0.04, 0.02, 0.01); the offset enters through M(θ) and the
    centripetal force −m θ̇² r with the exact Newton matrix: at most 10 iterations per
    step (as many as the stiff link with its mass centre on the node line needs)."""
    ref = solve_dynamic(offset_pendulum(omega0=3.0)[0], 0.01 / 16, 1.0, scheme=scheme, record_every=10**9).final
    errs = []
    for dt in (0.04, 0.02, 0.01):
        res = solve_dynamic(offset_pendulum(omega0=3.0)[0], dt, 1.0, scheme=scheme, record_every=10**9)
        errs.append(np.abs(res.final - ref)[2::3].max())
        assert res.info["newton_iterations"] / res.info["steps"] <= 10
    r = np.array(errs[:-1]) / np.array(errs[1:])
    assert errs[0] >= 1e-3 and np.all(np.abs(r - 4.0) <= 0.2), (errs, r)


def test_newmark_swings_the_offset_mass_link_at_the_compound_pendulum_period():
    """Small swings about the tilted equilibrium with the trapezoidal rule: amplitude ω0/ω
    and period 2π/ω_h, ω_h = (2/h) atan(ωh/2) (the rule's period elongation), ω² = M g D /
    I_O of the lumped body, to 5e-5; a mass on the node line would be 2 % off."""
    model, w = offset_pendulum(omega0=1e-3 * 3.8)
    dt = 0.01
    res = solve_dynamic(model, dt, 4.5, scheme=Newmark())
    th = np.array([s[-1] for s in res.states])
    t = np.asarray(res.times)
    amp = 1e-3 * 3.8 / w
    assert 0.95 * amp <= np.abs(th).max() <= 1.05 * amp
    down = np.flatnonzero((th[:-1] > 0) & (th[1:] <= 0))
    crossings = t[down] + dt * th[down] / (th[down] - th[down + 1])
    assert len(crossings) >= 3
    assert np.diff(crossings).mean() == pytest.approx(2 * np.pi / (2.0 / dt * np.arctan(0.5 * w * dt)), rel=5e-5)


def spinning_offset_beam():
    """A free planar beam with its mass centre at ym = 0.15, spinning rigidly (no elastic
    motion at the start)."""
    model = Model(line_mesh((0.0, 0.0), (2.0, 0.3), 4, "b"), dim=2, name="spinning planar offset beam")
    model.add_part("b", "beam2d", "b", values={**BEAM2D, "EA": 1e6, "EI": 1e3, "ym": 0.15})
    model.initial_rigid_velocity(velocity=(0.3, -0.2), omega=2.0, center=(0.5, -0.2))
    return model


def test_generalized_alpha_momenta_of_a_spinning_offset_beam_drift_at_second_order():
    """Free flight with generalized-α (ρ∞ = 0.8): the momenta include the offset points
    (Σ m v_p with v_p = v_a + θ̇ k × r), which are not linear in the scheme's variables, so
    linear and angular momentum and energy are not exact as with a constant mass; their
    largest drift over 3 s falls by ≥ 3.5 per halving of Δt = 0.04, 0.02, 0.01 (second
    order) and stays below 2e-3 (relative) at Δt = 0.02."""
    drifts = []
    for dt in (0.04, 0.02, 0.01):
        res = solve_dynamic(spinning_offset_beam(), dt, 3.0, scheme=GeneralizedAlpha(rho_inf=0.8))
        p = np.column_stack([res.series(f"linear_momentum_{c}") for c in "xy"])
        L = np.asarray(res.series("angular_momentum"))
        E = np.asarray(res.series("total_energy"))
        drifts.append([np.abs(p - p[0]).max() / np.linalg.norm(p[0]), np.abs(L - L[0]).max() / abs(L[0]),
                       np.abs(E - E[0]).max() / E[0]])
    drifts = np.array(drifts)
    assert np.all(drifts[:-1] / drifts[1:] >= 3.5), drifts
    assert np.all(drifts[1] <= 2e-3), drifts


def test_gravity_along_an_offset_mass_cantilever_bends_it_by_the_distributed_couple():
    """Gravity along the axis of a planar cantilever whose mass centre lies at e along the
    section's y axis: the weight m g per length acts at the lever e, a distributed couple
    μ = m g e, so the tip turns by μ L²/(2 EI) and deflects by μ L³/(3 EI) (lumped nodal
    couples: O(h²) from the consistent loads); with e = 0 it only shortens."""
    from femb.solvers import solve_static

    L, n, EI, m, e, g = 2.0, 16, 50.0, 3.0, 0.1, 1e-3
    tips = []
    for ym in (e, 0.0):
        model = Model(line_mesh((0.0, 0.0), (L, 0.0), n, "b"), dim=2, name="offset cantilever")
        model.add_part("b", "beam2d", "b", values={"EA": 1e8, "EI": EI, "rhoA": m, "rhoI": 0.0, "ym": ym})
        model.fix("b_start")
        model.gravity((-g, 0.0))
        tips.append(solve_static(model, steps=1).final.reshape(-1, 3)[-1])
    mu = m * g * e
    assert tips[0][2] == pytest.approx(mu * L**2 / (2 * EI), rel=2.0 / n**2)
    assert tips[0][1] == pytest.approx(mu * L**3 / (3 * EI), rel=2.0 / n**2)
    assert abs(tips[1][2]) <= 1e-12 and abs(tips[1][1]) <= 1e-12
