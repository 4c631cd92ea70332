"""Craig–Bampton superelements in the energy-conserving mid-point scheme
(elements.superelement_step, femb.solvers.dynamics.point_inertia).

The superelement carries its inertia as mass points (the component's lumped nodal masses,
rotary inertia as satellite points) moved by its shadow frame and deformation; the step
force uses exact discrete derivatives, so:

- the element's step force satisfies r·z = ΔV + ΔT exactly (any state, any increment);
- the points reproduce the component's mass, centre of mass and inertia tensor exactly,
  so the net inertial force of a rigid spin is m ω² r_G whatever the interface;
- a free-floating spinning superelement with modal velocities keeps its energy and its
  linear and angular momentum to round-off at steps far above the explicit limit;
- the reduced body follows the unreduced beam it was reduced from, converging as modes
  are added.
"""
import numpy as np
import pytest

import femb
from femb.core.errors import InputError
from femb.elements.superelement import superelement_row
from femb.elements.superelement_step import _moments, _start, _velocity_moments, step_residual, step_residual_moments
from femb.mesh import line_mesh
from femb.mesh.mesh import Mesh
from femb.model import Model
from femb.solvers.reduction.component import reduce_component
from femb.solvers.reduction.modal_derivatives import modal_derivatives
from femb.validation.superelement_cases import rotation

# a unit steel-like beam in consistent units: L = 1, EI = 1, ρA = 1, a physical section
# (ρIp = ρIy + ρIz) so that every node's inertia tensor is that of a body
BEAM = dict(EA=1e4, GJ=1.0, EIy=1.0, EIz=1.0, rhoA=1.0, rhoIp=1e-2, rhoIy=5e-3, rhoIz=5e-3)


def beam(n_el=10):
    model = Model(line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n_el, "beam"), name=f"beam ({n_el})")
    model.add_part("beam", "beam3d", "beam", values=BEAM)
    return model


def reduced(k, n_el=10):
    comp = beam(n_el)
    return reduce_component(comp, [comp.node("beam_start"), comp.node("beam_end")], k, mass="lumped")


def free_body(rc):
    model = Model(Mesh(np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])), name="free superelement")
    model.add_superelement("se", rc, [0, 1])
    return model


def random_step(data, rng, modal):
    """(X (1, n, 3), u0 (1, m), R0 (1, n, 3, 3), v0 (n_p, 3), dz (m,)): a large rigid motion
    plus deformation of a two-node superelement, modal amplitudes of size ``modal``, random
    point velocities and a random increment of every coordinate."""
    m, n = data.K.shape[0], 2
    X = data.positions[None].copy()
    Q = rotation(rng.normal(size=3))
    u0 = np.zeros((1, m))
    R0 = np.zeros((1, n, 3, 3))
    for a in range(n):
        u0[0, 6 * a:6 * a + 3] = Q @ X[0, a] - X[0, a] + 0.02 * rng.normal(size=3)
        R0[0, a] = Q @ rotation(0.05 * rng.normal(size=3))
    u0[0, 6 * n:] = modal * rng.normal(size=m - 6 * n)
    return X, u0, R0, rng.normal(size=(data.points.mass.size, 3)), 0.05 * rng.normal(size=m)


def test_step_force_balances_strain_and_kinetic_energy_exactly():
    """r·z = ΔV + ΔT for a large rigid motion plus deformation, random point velocities
    and a random increment of every coordinate (nodal rotations by Cayley vectors); the
    kernel's evaluation from the points' mass moments equals the point-by-point sums."""
    data = reduced(3).superelement()
    m = data.K.shape[0]
    pts = data.points
    row = superelement_row(data.K, data.M, None, pts, data.positions)
    moments = _moments(row, m)
    origin = moments[0]
    rng = np.random.default_rng(1)
    for trial in range(3):
        X, u0, R0, v0, dz = random_step(data, rng, 0.02)
        d0, Rs0, y0 = np.zeros(m), np.zeros((3, 3)), np.zeros((pts.mass.size, 3))
        none = np.zeros((0, 3, 0, 0))
        o0 = _start(X, u0, R0, pts.mass, pts.positions, pts.modes, none, False, origin, d0, Rs0, y0)
        r = np.zeros(m)
        dV, dT = step_residual(X, u0, R0, dz, 0.01, row, pts.mass, pts.positions, pts.modes, none, False, origin, v0, d0,
                               Rs0, y0,
                               o0, r)
        assert abs(r @ dz - (dV + dT)) <= 1e-12 * (abs(dV) + abs(dT))
        P0, V, Vd = np.zeros(3), np.zeros((3, 3)), np.zeros((3, m, 3))
        _velocity_moments(pts.mass, pts.positions, pts.modes, origin, v0, P0, V, Vd)
        r_m = np.zeros(m)
        dV_m, dT_m = step_residual_moments(X, u0, R0, dz, 0.01, row, moments, P0, V, Vd, d0, Rs0, o0, r_m)
        assert np.abs(r_m - r).max() <= 1e-13 * np.abs(r).max()
        assert dV_m == pytest.approx(dV, rel=1e-13) and dT_m == pytest.approx(dT, rel=1e-12)


def test_mass_points_carry_the_components_mass_centre_and_inertia():
    """Σ m_j, Σ m_j X_j and Σ m_j (|X̃_j|² I − X̃_j X̃_jᵀ) of the points equal the lumped
    mass of the component (ρA L, centre L/2, ρA L³/12 about the transverse axes plus the
    nodes' rotary inertia): the net inertial force of any rigid spin is m ω² r_G."""
    n_el = 10
    pts = reduced(2, n_el).superelement().points
    m = pts.mass.sum()
    assert m == pytest.approx(1.0, rel=1e-14)
    centre = pts.mass @ pts.positions / m
    assert np.abs(centre - [0.5, 0.0, 0.0]).max() <= 1e-14
    r = pts.positions - centre
    inertia = np.einsum("j,jk->", pts.mass, r * r) * np.eye(3) - np.einsum("j,ja,jb->ab", pts.mass, r, r)
    x = np.linspace(0.0, 1.0, n_el + 1) - 0.5
    lumped = np.full(n_el + 1, 1.0 / n_el)
    lumped[[0, -1]] *= 0.5
    bending = float(lumped @ x**2)  # Σ m_i x_i² of the lumped beam
    expected = np.diag([BEAM["rhoIp"], BEAM["rhoIy"], BEAM["rhoIz"]]) + np.diag([0.0, bending, bending])
    assert np.abs(inertia - expected).max() <= 1e-14
    w = np.array([0.3, -1.0, 7.0])  # centripetal force of the points = that of the centre of mass
    net = -(pts.mass[:, None] * np.cross(w, np.cross(w, pts.positions))).sum(axis=0)
    assert np.abs(net + m * np.cross(w, np.cross(w, centre))).max() <= 1e-12 * m * w @ w


def test_free_floating_spinning_superelement_keeps_energy_and_momenta():
    """Issue item: a free-floating superelement spinning with modal velocities conserves
    energy and linear and angular momentum to 1e-8 over 1000 steps at a step 10× the
    explicit limit 2/ω_max of the reduced body (measured ~1e-12)."""
    rc = reduced(3)
    data = rc.superelement()
    lam = np.linalg.eigvals(np.linalg.solve(data.M, data.K)).real
    h = 10.0 * 2.0 / np.sqrt(lam.max())
    model = free_body(rc)
    w = np.array([0.4, 1.0, 6.0])
    for a, x in enumerate(([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])):
        vel = np.cross(w, x) + np.array([0.5, -0.2, 0.1])
        model.initial_velocity(a, ux=vel[0], uy=vel[1], uz=vel[2], rx=w[0], ry=w[1], rz=w[2])
    table = femb.build_table(model)
    v0 = np.zeros(table.n_var)
    for a, x in enumerate(([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])):
        vel = np.cross(w, x) + np.array([0.5, -0.2, 0.1])
        for d, value in zip(("ux", "uy", "uz", "rx", "ry", "rz"), (*vel, *w)):
            v0[table.var_of(a, d)] = value
    v0[table.internal_vars("se")] = [0.05, -0.03, 0.02]  # modal rates (lengths per time)
    res = femb.solve_dynamic(model, h, 1000 * h, v0=v0, record_every=50)
    hist = res.history
    E = np.asarray(hist["total_energy"])
    assert np.asarray(hist["strain_energy"]).max() > 1e-4 * E[0]  # the body deforms
    assert np.abs(E - E[0]).max() <= 1e-8 * E[0]
    for axis in "xyz":
        p = np.asarray(hist[f"linear_momentum_{axis}"])
        L = np.asarray(hist[f"angular_momentum_{axis}"])
        assert np.abs(p - p[0]).max() <= 1e-8 * 1.0
        assert np.abs(L - L[0]).max() <= 1e-8 * max(1.0, abs(L[0]))


def test_gravity_accelerates_a_free_superelement_exactly_and_keeps_the_energy_balance():
    """Gravity acts on the mass points (their weight through the exact point map): a free
    spinning, vibrating superelement's linear momentum grows by m g t exactly (1e-10), its
    angular momentum about the centre of mass is unaffected, and the energy including the
    points' gravity potential stays constant to the Newton tolerance; a constant and a
    timed gravity load give the same motion (the timed one's work booked as external work)."""
    rc = reduced(2)
    g = np.array([0.0, -9.81, -3.0])
    runs = {}
    for timed in (False, True):
        model = free_body(rc)
        model.initial_velocity([0, 1], rx=0.5, ry=-0.3, rz=2.0)
        model.gravity(tuple(g), amplitude=(lambda t: 1.0) if timed else None)
        table = femb.build_table(model)
        v0 = np.zeros(table.n_var)
        for a, x in enumerate(([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])):
            vel = np.cross([0.5, -0.3, 2.0], x)
            for d, value in zip(("ux", "uy", "uz", "rx", "ry", "rz"), (*vel, 0.5, -0.3, 2.0)):
                v0[table.var_of(a, d)] = value
        v0[table.internal_vars("se")] = [0.05, -0.03]
        res = femb.solve_dynamic(model, 0.01, 1.0, v0=v0, record_every=10)
        hist = res.history
        t = np.asarray(res.times)
        for c, axis in enumerate("xyz"):
            p = np.asarray(hist[f"linear_momentum_{axis}"])
            assert np.abs(p - p[0] - 1.0 * g[c] * t).max() <= 1e-10 * (1.0 + np.abs(g).max())
        E = np.asarray(hist["energy_residual"])
        assert np.abs(E).max() <= 1e-9 * np.abs(np.asarray(hist["kinetic_energy"])).max()
        runs[timed] = res.final
    assert np.abs(runs[True] - runs[False]).max() <= 1e-9


def test_superelement_dynamics_refuses_the_alpha_schemes_by_part():
    model = free_body(reduced(1))
    with pytest.raises(InputError, match="'se'"):
        femb.solve_dynamic(model, 1e-3, 2e-3, scheme=femb.GeneralizedAlpha())


def test_dynamics_refuses_a_superelement_without_mass_points_by_part():
    """Reduced data without a mass distribution (e.g. matrix files) integrate nowhere:
    solve_dynamic names the part instead of running without inertia."""
    rc = reduced(1)
    data = rc.superelement()
    bare = femb.SuperelementData(data.K, data.M, data.positions, data.frequencies, "matrix files")
    model = free_body(bare)
    with pytest.raises(InputError, match="'se'.*mass points"):
        femb.solve_dynamic(model, 1e-3, 2e-3)


def test_modal_derivative_of_a_bending_mode_is_its_foreshortening():
    """The second-order field of a cantilever's first bending mode (interface = root,
    held) draws the tip in by ∫₀ᴸ φ′² dx (inextensional bending: u_x(L) = −½∫w′² for
    w = q φ, so ψ_11(L) = −∫φ′²), the integral taken exactly over the Hermite cubics of the
    mode's nodal values; the elastic stretch that EA allows is of relative size EI/(EA L²)."""
    n_el = 16
    comp = beam(n_el)
    rc = reduce_component(comp, [comp.node("beam_start")], 2, mass="lumped")
    Psi = modal_derivatives(rc)
    t = rc.table
    eq = {t.describe_var(t.eq_var[e]): e for e in range(t.n_eq)}
    b = rc.basis
    phi = np.zeros(t.n_eq)
    phi[b.interior] = b.normal_modes[:, 0]
    l = 1.0 / n_el
    G = np.array([[36, 3 * l, -36, 3 * l], [3 * l, 4 * l * l, -3 * l, -l * l],
                  [-36, -3 * l, 36, -3 * l], [3 * l, -l * l, -3 * l, 4 * l * l]]) / (30.0 * l)

    def value(node, dof):
        return phi[eq[(node, dof)]] if (node, dof) in eq else 0.0

    integral = 0.0  # the equal-frequency pair may mix the two bending planes: both count
    for axis, slope, sign in (("uy", "rz", 1.0), ("uz", "ry", -1.0)):  # w′ = θ_z for u_y, −θ_y for u_z
        for e in range(n_el):
            v = np.array([value(e, axis), sign * value(e, slope), value(e + 1, axis), sign * value(e + 1, slope)])
            integral += v @ G @ v
    tip = Psi[eq[(n_el, "ux")], 0, 0]
    assert tip == pytest.approx(-integral, rel=1e-3)


def test_step_force_with_second_order_points_balances_energy_exactly():
    """With second-order (foreshortening) rows the point map is quadratic in the modal
    amplitudes; its exact difference keeps r·z = ΔV + ΔT to round-off."""
    rc = reduced(3)
    data = rc.superelement(foreshortening=True)
    m = data.K.shape[0]
    pts = data.points
    assert pts.second is not None and np.abs(pts.second).max() > 0.0
    origin = np.asarray(data.positions).mean(axis=0)
    X, u0, R0, v0, dz = random_step(data, np.random.default_rng(3), 0.05)
    d0, Rs0, y0 = np.zeros(m), np.zeros((3, 3)), np.zeros((pts.mass.size, 3))
    o0 = _start(X, u0, R0, pts.mass, pts.positions, pts.modes, pts.second, True, origin, d0, Rs0, y0)
    r = np.zeros(m)
    row = superelement_row(data.K, data.M, None, pts, data.positions)
    dV, dT = step_residual(X, u0, R0, dz, 0.01, row, pts.mass, pts.positions, pts.modes, pts.second, True, origin,
                           v0, d0, Rs0, y0, o0, r)
    assert abs(r @ dz - (dV + dT)) <= 1e-12 * (abs(dV) + abs(dT))


def test_mass_points_of_a_component_with_offset_mass_centres_keep_its_rigid_body():
    """A component meshed with beams whose mass centre lies off the node line: its mass
    points have the lumped mass's total mass, mass centre and inertia tensor (the full
    rigid-body mass Γᵀ M Γ of the component), and they move with the node's rotation about
    the offset centre."""
    comp = Model(line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 6, "beam"), name="offset beam")
    comp.add_part("beam", "beam3d", "beam", values={**BEAM, "ym": 0.08, "zm": -0.05})
    rc = reduce_component(comp, [comp.node("beam_start"), comp.node("beam_end")], 2, mass="lumped")
    pts = rc.superelement().points
    m = pts.mass.sum()
    centre = pts.mass @ pts.positions / m
    r = pts.positions - centre
    inertia = np.einsum("j,jk->", pts.mass, r * r) * np.eye(3) - np.einsum("j,ja,jb->ab", pts.mass, r, r)
    # the lumped mass's rigid-body properties: Γ maps a rigid motion (v, ω) about the origin
    from femb.assembly import Assembler
    from femb.correlation import build_table
    from femb.solvers.problem import full_matrix
    t = build_table(comp)
    M = full_matrix(t, Assembler(t).element_masses(0)).toarray()
    X = comp.mesh.points
    G = np.zeros((t.n_var, 6))
    for node in range(X.shape[0]):
        tvar, rvar = t.node_var[node, :3], t.node_var[node, 3:6]
        G[tvar, :3] = np.eye(3)
        x = X[node]
        G[tvar, 3:] = -np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])
        G[rvar, 3:] = np.eye(3)
    MR = G.T @ M @ G
    m_ref = MR[0, 0]
    c_ref = np.array([MR[1, 5], MR[2, 3], MR[0, 4]]) / m_ref  # m ĉ in the coupling block
    J_origin = MR[3:, 3:]
    J_ref = J_origin - m_ref * (c_ref @ c_ref * np.eye(3) - np.outer(c_ref, c_ref))
    assert m == pytest.approx(m_ref, rel=1e-14)
    assert np.abs(centre - c_ref).max() <= 1e-14
    assert abs(centre[1] - 0.08) <= 1e-14 and abs(centre[2] + 0.05) <= 1e-14
    assert np.abs(inertia - J_ref).max() <= 1e-13 * np.abs(J_ref).max()
