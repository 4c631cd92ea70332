"""Gravity on co-rotated Craig–Bampton superelements in statics: the exact weight of the
mass points (femb.assembly.loads.PointFields, elements.superelement_inertia), which turns
with the body, instead of the constant reference vector M_r·g.

Component: a steel cantilever (circular tube-like round section) along x, reduced on its
root node with static correction for its own gravity pattern, so the reduced body's linear
static response to that gravity is exact.
"""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import femb
from femb.elements.superelement_inertia import point_maps
from femb.elements.superelement_step import n_points, point_masses
from femb.mesh import line_mesh
from femb.mesh.mesh import Mesh
from femb.results.superelements import superelement_positions
from femb.solvers.problem import StaticProblem
from femb.solvers.reduction.component import reduce_component

L, N = 2.0, 10
E, RHO = 2.1e5, 7.85e-3  # N/mm², kg/mm³-like consistent set
R_SEC = 0.2


def cantilever(g_body=None, start=(0.0, 0.0, 0.0), end=(L, 0.0, 0.0)):
    model = femb.Model(line_mesh(start, end, N, "beam"), dim=3)
    material = femb.Material(E=E, G=E / 2.6, rho=RHO)
    I = np.pi * R_SEC ** 4 / 4.0
    model.add_part("beam", "beam3d", "beam", material, femb.Section(A=np.pi * R_SEC ** 2, Iy=I, Iz=I, J=2 * I))
    if g_body is not None:
        model.gravity(g_body)
    return model


G = np.array([3.0, -2.0, -9.0])  # a gravity field with components along and across the body


def superelement_model(Q, g=G, k=4, correction=True, foreshortening=False, turn=None):
    """The cantilever reduced on its root (gravity pattern Qᵀg in the body's axes for the
    static correction) placed by Q at the origin, root clamped; ``turn``: instead of the
    placement, a prescribed rotation vector of the root (statics: λ·turn)."""
    comp = cantilever(Q.T @ g if correction else None)
    rc = reduce_component(comp, [comp.node("beam_start")], k, mass="lumped", static_correction=correction)
    model = femb.Model(Mesh(np.zeros((1, 3))), name="superelement cantilever")
    data = rc.superelement(foreshortening=foreshortening)
    model.add_superelement("body", data, [0], placement=None if turn is not None else (Q, np.zeros(3)))
    if turn is None:
        model.fix(0, "all")
    else:
        model.fix(0, ("ux", "uy", "uz"))
        for dof, value in zip(("rx", "ry", "rz"), turn):
            model.prescribe(0, dof, value)
    model.gravity(g)
    return model, comp


def tip_displacement(model, comp, res):
    X, x = superelement_positions(model, res.table, "body", res.states[-1], res.arrays["rotations"][-1])
    tip = int(comp.node("beam_end"))
    return x[tip] - X[tip], x, X


def test_weight_resultant_and_moment_for_any_rigid_turn():
    """Σ f_trans = m g and Σ (x_a − P) × f_a + f_rot,a = m (x_G − P) × g at rigidly turned
    and at deformed configurations (the frame fit maps rigid motions exactly)."""
    model, comp = superelement_model(np.eye(3), foreshortening=True)
    prob = StaticProblem(model)
    tab = prob.table
    pf = prob.loads.point_fields
    rng = np.random.default_rng(3)
    node_t = [tab.var_of(0, d) for d in ("ux", "uy", "uz")]
    node_r = [tab.var_of(0, d) for d in ("rx", "ry", "rz")]
    for trial in range(4):
        u = np.zeros(tab.n_var)
        u[node_t] = rng.normal(size=3)
        if trial >= 2:  # deformed too
            u[tab.internal_vars("body")] = 0.05 * rng.normal(size=len(tab.internal_vars("body")))
        R = np.zeros((tab.node_var.shape[0], 3, 3))
        R[0] = Rotation.from_rotvec(rng.normal(size=3)).as_matrix()
        f, V = pf.force(u, R, G)
        xs, _ = _points(prob, u, R)
        mass = _masses(prob)
        m = mass.sum()
        xG = mass @ xs / m
        P = rng.normal(size=3)
        x0 = u[node_t]  # the node's position (reference at the origin)
        resultant = f[node_t]
        moment = np.cross(x0 - P, f[node_t]) + f[node_r]
        scale = m * np.linalg.norm(G) * (1.0 + np.linalg.norm(xG - P))
        np.testing.assert_allclose(resultant, m * G, atol=1e-12 * scale)
        np.testing.assert_allclose(moment, m * np.cross(xG - P, G), atol=1e-12 * scale)
        assert V == pytest.approx(-m * G @ xG, rel=1e-12)


def _points(prob, u, R):
    """(positions (n_p, 3), Jacobians (n_p, 3, m)) of the superelement's mass points."""
    pf = prob.loads.point_fields
    out = []
    for block, X, ue, Re in pf._each(u, R):
        m = ue.shape[1]
        n_p = n_points(block.props[0], m)
        xs = np.zeros((1, n_p, 3))
        J = np.zeros((1, n_p, 3, m))
        point_maps(X, ue, Re, block.props, xs, J)
        out.append((xs[0], J[0]))
    return out[0]


def _masses(prob):
    b = prob.table.blocks[prob.loads.point_fields.blocks[0]]
    return point_masses(b.props[0], b.spec.n_edof)


def test_point_jacobian_matches_central_differences_of_positions():
    """J_j = ∂x_j/∂z (spins on the rotation slots) against central differences of x_j."""
    model, comp = superelement_model(np.eye(3), foreshortening=True)
    prob = StaticProblem(model)
    tab = prob.table
    rng = np.random.default_rng(5)
    u = np.zeros(tab.n_var)
    u[[tab.var_of(0, d) for d in ("ux", "uy", "uz")]] = rng.normal(size=3)
    q = tab.internal_vars("body")
    u[q] = 0.02 * rng.normal(size=len(q))
    R = np.zeros((tab.node_var.shape[0], 3, 3))
    R[0] = Rotation.from_rotvec(rng.normal(size=3)).as_matrix()
    x0, J = _points(prob, u, R)
    block = tab.blocks[prob.loads.point_fields.blocks[0]]
    var = block.var[0]
    h = 1e-6
    for col in range(var.size):
        up, um, Rp, Rm = u.copy(), u.copy(), R.copy(), R.copy()
        if col < 6 and col >= 3:
            e = np.zeros(3)
            e[col - 3] = h
            Rp[0] = Rotation.from_rotvec(e).as_matrix() @ R[0]
            Rm[0] = Rotation.from_rotvec(-e).as_matrix() @ R[0]
        else:
            up[var[col]] += h
            um[var[col]] -= h
        d = (_points(prob, up, Rp)[0] - _points(prob, um, Rm)[0]) / (2 * h)
        np.testing.assert_allclose(J[:, :, col], d, atol=1e-7 * max(1.0, np.abs(J).max()))


def test_load_stiffness_matches_central_differences():
    """state_stiffness (−∂F/∂q of the exact weight) against central differences of
    state_forces through the model's variables and nodal spins, at a turned, deformed state."""
    model, comp = superelement_model(np.eye(3), foreshortening=True, k=2)
    prob = StaticProblem(model)
    tab = prob.table
    rng = np.random.default_rng(11)
    u = np.zeros(tab.n_var)
    q = tab.internal_vars("body")
    u[q] = 0.03 * rng.normal(size=len(q))
    R = np.zeros((tab.node_var.shape[0], 3, 3))
    R[0] = Rotation.from_rotvec([0.3, -1.1, 0.7]).as_matrix()
    K = prob.loads.state_stiffness(u, R, 1.0).toarray()
    h = 1e-5
    for eq in range(tab.n_eq):
        var = tab.eq_var[eq]
        up, um = u.copy(), u.copy()
        up[var] += h
        um[var] -= h
        col = -(prob.loads.state_forces(up, R, 1.0) - prob.loads.state_forces(um, R, 1.0))[tab.eq_var] / (2 * h)
        np.testing.assert_allclose(K[:, eq], col, atol=1e-6 * np.abs(K).max())
    assert np.abs(K).max() > 0.0


def _static(model):
    return femb.solve_static(model, steps=1)


@pytest.mark.parametrize("axis", [(0.0, 0.0, 1.0), (1.0, 1.0, 0.0)])
def test_turned_cantilever_matches_the_unreduced_beam(axis):
    """The reduced cantilever placed by a 90° turn, under gravity, deflects like the
    unreduced beam along the turned axis (static correction for the gravity pattern: exact
    for the linear response). The beam is stocky (L/r = 10) so that its geometric
    nonlinearity, which the linear reduced body lacks (the axial weight's stress stiffening,
    P/P_cr ≈ 2e-5, and the foreshortening of the sag, ≈ 3e-5 L), stays below 1e-4 relative."""
    Q = Rotation.from_rotvec(0.5 * np.pi * np.asarray(axis) / np.linalg.norm(axis)).as_matrix()
    g = G
    model, comp = superelement_model(Q, g)
    res = _static(model)
    tip, _, _ = tip_displacement(model, comp, res)
    full = cantilever(g, (0.0, 0.0, 0.0), tuple(Q @ [L, 0.0, 0.0]))
    full.fix(full.node("beam_start"), "all")
    fres = _static(full)
    t = fres.table
    tip_full = np.array([fres.states[-1][t.var_of(full.node("beam_end"), d)] for d in ("ux", "uy", "uz")])
    assert np.linalg.norm(tip_full) > 1e-5 * L
    np.testing.assert_allclose(tip, tip_full, atol=1e-4 * np.linalg.norm(tip_full))


def test_body_turned_in_the_analysis_carries_its_weight_turned():
    """The same body turned 90° by a prescribed root rotation (statics: the rotation grows
    with the load factor) ends in the same deflected state as the placed one: the weight
    turns with the body (the constant reference vector M_r·g would not)."""
    axis = np.array([0.0, 0.0, 1.0])
    Q = Rotation.from_rotvec(0.5 * np.pi * axis).as_matrix()
    placed, comp = superelement_model(Q)
    tip_placed, _, _ = tip_displacement(placed, comp, _static(placed))
    turned, comp2 = superelement_model(Q, turn=0.5 * np.pi * axis)
    res = femb.solve_static(turned, steps=4)
    tip_turned, x, X = tip_displacement(turned, comp2, res)
    # X: reference (unturned) positions; the turned body's tip moved by the turn plus the sag
    sag = x[int(comp2.node("beam_end"))] - Q @ X[int(comp2.node("beam_end"))]
    np.testing.assert_allclose(sag, tip_placed, atol=1e-9 * L)


def test_field_force_is_the_sum_over_the_point_jacobians():
    """The summed field force (E_cᵀ Σ m a + Fᵀ Σ m c × a + Dᵀ Σ (Φ + S)ᵀ R_sᵀ m a) equals
    Σ_j m_j J_jᵀ (a0 + A x_j) built point by point from the Jacobians, for a centrifugal
    field at a turned, deformed state with foreshortening; its potential likewise."""
    from femb.elements.superelement_inertia import field_force

    model, comp = superelement_model(np.eye(3), foreshortening=True)
    prob = StaticProblem(model)
    tab = prob.table
    rng = np.random.default_rng(7)
    u = np.zeros(tab.n_var)
    u[[tab.var_of(0, d) for d in ("ux", "uy", "uz")]] = rng.normal(size=3)
    q = tab.internal_vars("body")
    u[q] = 0.05 * rng.normal(size=len(q))
    R = np.zeros((tab.node_var.shape[0], 3, 3))
    R[0] = Rotation.from_rotvec(rng.normal(size=3)).as_matrix()
    w = np.array([0.3, -1.2, 2.0])
    What = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
    A = -What @ What
    p = np.array([0.5, -0.1, 0.2])
    a0 = G - A @ p
    xs, J = _points(prob, u, R)
    mass = _masses(prob)
    acc = a0 + xs @ A.T
    expected = np.einsum("j,jik,ji->k", mass, J, acc)
    V_expected = -float(np.sum(mass * (xs @ a0 + 0.5 * np.einsum("ji,ik,jk->j", xs, A, xs))))
    block_info = next(prob.loads.point_fields._each(u, R))
    block, X, ue, Re = block_info
    f = np.zeros(ue.shape)
    e = np.zeros(1)
    field_force(X, ue, Re, block.props, a0, A, f, e)
    np.testing.assert_allclose(f[0], expected, atol=1e-12 * np.abs(expected).max())
    assert e[0] == pytest.approx(V_expected, rel=1e-12)
