"""Linearization and steady spin of models with Craig–Bampton superelements, whose inertia
is carried by mass points (elements.superelement_inertia; femb.solvers.eigen.steady_spin,
femb.solvers.eigen.linearize).

Body: the spin-up B blade (Simo & Vu-Quoc data: L = 10, ρA = 1.2, EI = 1.4e4, EA = 2.8e7;
16 beam3d_timoshenko elements, lumped mass) reduced on its root node with k = 4
fixed-interface modes (the two lowest bending pairs), as in validation/cb-spinup.
"""
import numpy as np
import pytest
import scipy.linalg as sla

import femb
from femb.core.errors import InputError
from femb.elements.superelement_inertia import point_matrices
from femb.mesh.mesh import Mesh
from femb.solvers.problem import StaticProblem
from femb.solvers.reduction.component import reduce_component
from femb.validation.superelement_spinup_cases import blade_component

OMEGA = 6.0
FLAP_FREE_VIBRATION, CHORD_FREE_VIBRATION = 7.516, 4.527  # validation/cb-spinup, free vibration at steady spin
FLAP_PAPER, CHORD_PAPER = 7.508, 4.513  # the rotating cantilever's Ritz solution (validation/rotating-beam-eigen)


@pytest.fixture(scope="module")
def blade():
    comp = blade_component(16)
    return reduce_component(comp, [comp.node("beam_start")], 4, mass="lumped")


def blade_model(rc, foreshortening=True, hub_fixed=True):
    model = femb.Model(Mesh(np.array([[0.0, 0.0, 0.0]])), name="blade superelement")
    model.add_superelement("blade", rc.superelement(foreshortening=foreshortening), [0])
    if hub_fixed:
        model.fix(0, "all")
    return model


def test_point_mass_is_the_reduced_mass_at_the_reference(blade):
    """Σ m_j J_jᵀJ_j of the mass points equals the Craig–Bampton mass M_r (element order)."""
    model = blade_model(blade, hub_fixed=False)
    data = blade.superelement()
    prob = StaticProblem(model)
    block = prob.table.blocks[prob.loads.point_fields.blocks[0]]
    m = block.spec.n_edof
    M = np.zeros((1, m, m))
    G = np.zeros((1, m, m))
    u = np.zeros((1, m))
    R = np.tile(np.eye(3), (1, 1, 1, 1))
    point_matrices(block.X, u, R, block.props, np.array([0.3, -0.2, 1.0]), M, G)
    np.testing.assert_allclose(M[0], data.M, atol=1e-12 * np.abs(data.M).max())
    np.testing.assert_allclose(G[0], -G[0].T, atol=1e-14 * np.abs(G).max())


def test_free_superelement_at_rest_linearizes_to_its_modal_frequencies(blade):
    """A free superelement at rest: linearize() has six rigid modes at zero and the elastic
    frequencies of solve_modal (1e-8)."""
    model = blade_model(blade, hub_fixed=False)
    lm = femb.linearize(model, np.zeros(6 + 4))
    w2 = np.sort(sla.eigvals(lm.K, lm.M).real)
    modal = np.sort(femb.solve_modal(model, n_modes=10).omega)
    assert np.all(np.abs(w2[:6]) <= 1e-10 * w2[6])
    np.testing.assert_allclose(np.sqrt(w2[6:]), modal[6:], rtol=1e-8)


def test_linear_body_in_steady_spin_closed_form(blade):
    """Without foreshortening the reduced blade is a linear body in its frame: spinning about
    z its in-plane (chord) bending has the spin softening −Ω² and no stiffening, so it
    diverges at the rate √(Ω² − ω₁²) (ω₁ = 3.7908 < Ω), and its flap bending keeps ω₁ (the
    centrifugal field has no z component; the nodes' rotary inertia, ρI/ρA = 4e-4, softens
    it by 3e-5)."""
    model = blade_model(blade, foreshortening=False)
    s = femb.steady_spin(model, OMEGA)
    ev = np.linalg.eigvals(s.first_order())
    w1 = blade.basis.frequencies[0]
    rate = np.sqrt(OMEGA ** 2 - w1 ** 2)
    real = np.sort(ev.real)
    assert real[-1] == pytest.approx(rate, rel=1e-8)
    assert real[0] == pytest.approx(-rate, rel=1e-8)
    flap = np.sort(np.abs(ev.imag[ev.imag > 1e-6]))[0]
    assert flap == pytest.approx(w1, rel=1e-4) and flap < w1


def test_spinning_blade_superelement_matches_free_vibration_and_paper(blade):
    """Ω = 6 rad/s, blade with foreshortening on a fixed hub: steady_spin's and linearize()'s
    first chord and flap frequencies agree with each other (1e-8), with the free vibration
    at steady spin of validation/cb-spinup (0.5 %) and with the published rotating
    cantilever (1 %)."""
    model = blade_model(blade)
    s = femb.steady_spin(model, OMEGA)
    chord, flap = np.sort(s.modes(4).damped_frequency)[:2]
    lm = femb.linearize(model, s.state, spin=(0.0, 0.0, OMEGA))
    assert lm.info["equilibrium_residual"] <= 1e-10
    lchord, lflap = np.sort(lm.complex_modes(4).damped_frequency)[:2]
    assert lchord == pytest.approx(chord, rel=1e-8) and lflap == pytest.approx(flap, rel=1e-8)
    assert chord == pytest.approx(CHORD_FREE_VIBRATION, rel=5e-3)
    assert flap == pytest.approx(FLAP_FREE_VIBRATION, rel=5e-3)
    assert chord == pytest.approx(CHORD_PAPER, rel=1e-2)
    assert flap == pytest.approx(FLAP_PAPER, rel=1e-2)
    # the unreduced beam3d_timoshenko blade (lumped mass) in the same steady spin
    full = blade_component(16)
    full.fix(full.node("beam_start"), "all")
    fchord, fflap = np.sort(femb.steady_spin(full, OMEGA).modes(4).damped_frequency)[:2]
    assert chord == pytest.approx(fchord, rel=1e-2) and flap == pytest.approx(fflap, rel=5e-3)


def test_inertial_frame_and_moving_operating_points_are_refused(blade):
    model = blade_model(blade)
    with pytest.raises(InputError, match="'blade'.*rotating frame"):
        femb.steady_spin(model, OMEGA, frame="inertial")
    with pytest.raises(InputError, match="'blade'.*rest or a steady spin"):
        femb.linearize(model, np.zeros(model_size(model)), v=np.ones(model_size(model)))


def model_size(model):
    return StaticProblem(model).table.n_var


def test_hanging_superelement_pendulum_frequencies_from_its_weight():
    """A stiff beam superelement pinned at its root and hanging under gravity: linearize()
    about the static equilibrium gives the rigid pendulum ω² = g Σ m_j (−z_j) / Σ m_j (y_j² +
    z_j²) (about x; likewise about y) of its mass points — the load stiffness of the weight
    on the turning points — and a free spin about the vertical (ω = 0); the body's first
    elastic mode is about 300 times higher, so its coupling lowers ω² slightly (measured
    −1.2e-6 and −2.3e-6 relative)."""
    g = 9.81
    comp = femb.Model(femb.mesh.line_mesh((0.0, 0.0, 0.0), (2.0, 0.0, 0.0), 8, "beam"), dim=3)
    comp.add_part("beam", "beam3d", "beam", femb.Material(E=2.1e11, G=8.0e10, rho=7850.0),
                  femb.Section(A=1e-2, Iy=2e-5, Iz=1e-5, J=3e-5))
    rc = reduce_component(comp, [comp.node("beam_start")], 2, mass="lumped")
    Q = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])  # x → −z: hanging
    model = femb.Model(Mesh(np.zeros((1, 3))), name="hanging superelement")
    model.add_superelement("body", rc, [0], placement=(Q, np.zeros(3)))
    model.fix(0, ("ux", "uy", "uz"))
    model.gravity((0.0, 0.0, -g))
    prob = StaticProblem(model)
    res = femb.solve_static(model, steps=1, problem=prob)
    lm = femb.linearize(model, prob.state_of(res), problem=prob)
    w2 = np.sort(sla.eigvals(lm.K, lm.M).real)
    pts = rc.superelement().placed(Q).points
    m, x = pts.mass, pts.positions
    wx = g * m @ (-x[:, 2]) / (m @ (x[:, 1] ** 2 + x[:, 2] ** 2))
    wy = g * m @ (-x[:, 2]) / (m @ (x[:, 0] ** 2 + x[:, 2] ** 2))
    assert abs(w2[0]) <= 1e-9 * wx
    gap = w2[1:3] / np.sort([wx, wy]) - 1.0
    assert np.all(gap <= 0.0) and np.all(gap >= -1e-5)
    assert w2[3] > 5e4 * wx


def test_superelement_on_a_distance_link_is_a_double_pendulum():
    """The stiff superelement hanging from a massless rigid link (a distance joint from a
    fixed point to its root node, free rotations there): linearize() about the static
    equilibrium — whose joint multiplier is the link's tension m g, and whose stiffness in
    the link's swing is all in the joint's curvature term — gives the double pendulum of a
    massless link l and a rigid body (mass m, centre d below the root, inertia I_G):
    M = [[m l², m l d], [m l d, m d² + I_G]], K = diag(m g l, m g d), in each vertical plane
    (measured −4e-7 … −8e-5 relative: the coupling with the elastic modes, (ω/ω_e)² ≤ 4e-5)."""
    g, link = 9.81, 0.7
    comp = femb.Model(femb.mesh.line_mesh((0.0, 0.0, 0.0), (2.0, 0.0, 0.0), 8, "beam"), dim=3)
    comp.add_part("beam", "beam3d", "beam", femb.Material(E=2.1e11, G=8.0e10, rho=7850.0),
                  femb.Section(A=1e-2, Iy=2e-5, Iz=1e-5, J=3e-5))
    rc = reduce_component(comp, [comp.node("beam_start")], 2, mass="lumped")
    Q = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])  # x → −z: hanging
    model = femb.Model(Mesh(np.zeros((1, 3))), name="superelement on a link")
    model.add_superelement("body", rc, [0], placement=(Q, np.zeros(3)))
    model.distance(None, 0, point=(0.0, 0.0, link))
    model.gravity((0.0, 0.0, -g))
    prob = StaticProblem(model)
    res = femb.solve_static(model, steps=1, problem=prob)
    lm = femb.linearize(model, prob.state_of(res), problem=prob)
    assert lm.info["equilibrium_residual"] <= 1e-9
    w2 = np.sort(sla.eigvals(lm.K, lm.M).real)
    pts = rc.superelement().placed(Q).points
    m, x = pts.mass, pts.positions
    mt = m.sum()
    d = m @ (-x[:, 2]) / mt
    expected = []
    for lateral in (1, 0):  # swing in the y–z plane (about x), then in the x–z plane (about y)
        IG = m @ (x[:, lateral] ** 2 + x[:, 2] ** 2) - mt * d * d
        Mm = np.array([[mt * link ** 2, mt * link * d], [mt * link * d, mt * d * d + IG]])
        Kk = np.diag([mt * g * link, mt * g * d])
        expected += list(sla.eigvalsh(Kk, Mm))
    expected = np.sort(expected)
    assert abs(w2[0]) <= 1e-9 * expected[0]  # the free turn about the vertical
    np.testing.assert_allclose(w2[1:5], expected, rtol=1e-4)


def test_superelement_without_mass_points_is_refused_by_steady_spin(blade):
    from dataclasses import replace

    model = femb.Model(Mesh(np.zeros((1, 3))))
    model.add_superelement("bare", replace(blade.superelement(), points=None), [0])
    model.fix(0, "all")
    with pytest.raises(InputError, match="'bare'.*without mass points"):
        femb.steady_spin(model, OMEGA)
