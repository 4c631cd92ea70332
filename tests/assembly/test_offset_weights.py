"""The weight of beam sections with an offset mass centre in statics: its moment turns with
the node (r × m g, r = R d), with the exact load stiffness; a cantilever turned about its
axis carries its weight about the turned lever."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from femb.assembly.loads import LoadAssembler
from femb.core.rotations import exp_batch
from femb.correlation import build_table
from femb.mesh import line_mesh
from femb.model import Material, Model, Section
from femb.solvers import solve_static

L, N, E, G, RHO, A, J, IY, E_OFF, GRAV = 2.0, 8, 200.0, 80.0, 3.0, 0.02, 1e-4, 2e-4, 0.05, 1e-4


def cantilever(turn=0.0, dim=3, mass_centre=(E_OFF, 0.0)):
    """An offset-mass cantilever along x under gravity −z, its root clamped and turned by
    ``turn`` (rad) about x (λ-scaled with the weight: the final state has both in full)."""
    model = Model(line_mesh((0.0, 0.0, 0.0), (L, 0.0, 0.0), N, "b"), dim=3, name="offset cantilever")
    model.add_part("b", "beam3d", "b", material=Material(E=E, G=G, rho=RHO),
                   section=Section(A=A, Iy=IY, Iz=3e-4, J=J, centroid=mass_centre))
    model.fix("b_start", ("ux", "uy", "uz", "ry", "rz"))
    model.prescribe("b_start", "rx", value=turn)
    model.gravity((0.0, 0.0, -GRAV))
    return model


def test_weight_moment_turns_with_the_node_and_its_stiffness_is_exact():
    model = cantilever()
    table = build_table(model)
    loads = LoadAssembler(model, table)
    assert loads.has_state_loads
    rng = np.random.default_rng(4)
    n_nodes = table.node_var.shape[0]
    R = np.empty((n_nodes, 3, 3))
    exp_batch(rng.standard_normal((n_nodes, 3)), R)
    # fixed vector (reference levers d) + the change = Σ (R d) × m g at every node's rotations
    total = loads.constant() + loads.scaled(1.0) + loads.state_forces(None, R, 1.0)
    pts = loads._offset_weights
    expect = np.zeros(table.n_var)
    np.add.at(expect, pts.rvar.ravel(),
              np.cross(np.einsum("pij,pj->pi", R[pts.node], pts.d), pts.m[:, None] * np.array([0.0, 0.0, -GRAV])).ravel())
    rot = table.node_var[:, 3:6].ravel()
    rot = rot[rot >= 0]
    assert np.abs(total[rot] - expect[rot]).max() <= 1e-15 * GRAV * RHO * A * L
    # load stiffness −∂F/∂w per unit spatial spin, against central differences
    K = loads.state_stiffness(None, R, 1.0).toarray()
    eps = 1e-6
    for eq in rng.choice(np.flatnonzero(np.isin(table.eq_var, rot)), 6, replace=False):
        var = table.eq_var[eq]
        node, comp = np.argwhere(table.node_var == var)[0]
        col = []
        for s in (1.0, -1.0):
            w = np.zeros(3)
            w[comp - 3] = s * eps
            Rs = R.copy()
            Rs[node] = Rotation.from_rotvec(w).as_matrix() @ R[node]
            col.append(loads.state_forces(None, Rs, 1.0)[table.eq_var])
        assert np.allclose(-(col[0] - col[1]) / (2 * eps), K[:, eq], rtol=0.0, atol=1e-8 * np.abs(K).max())


def relative_twist(res):
    Rs = res.nodal_rotation_matrices(-1)
    return Rotation.from_matrix(Rs[0].T @ Rs[-1]).as_rotvec()[0]


@pytest.mark.parametrize("turn, sign", [(np.pi / 2, 0.0), (np.pi, 1.0)])
def test_turned_cantilever_carries_its_weight_about_the_turned_lever(turn, sign):
    """Unturned, the weight twists the tip by −m g e L²/(2 GJ). Turned by 90° about its axis
    the lever points along the weight (no twist); by 180° it twists the other way."""
    twist0 = -RHO * A * GRAV * E_OFF * L**2 / (2.0 * G * J)
    assert relative_twist(solve_static(cantilever(0.0), steps=2)) == pytest.approx(twist0, rel=1e-5)
    twist = relative_twist(solve_static(cantilever(turn), steps=2))
    assert twist == pytest.approx(-sign * twist0, abs=1e-4 * abs(twist0))


def test_planar_cantilever_turned_upright_bends_as_one_built_upright():
    """A planar offset-mass cantilever built along x and turned upright by its root rotation
    (π/2, with gravity −y along its axis at the end) bends like the same cantilever built
    along y: the weight acts about the turned lever (a distributed couple m g e)."""
    EI, m, e, g, n = 50.0, 3.0, 0.1, 1e-3, 8

    def planar(end, turn):
        model = Model(line_mesh((0.0, 0.0), end, n, "b"), dim=2, name="planar offset cantilever")
        model.add_part("b", "beam2d", "b", values={"EA": 1e8, "EI": EI, "rhoA": m, "rhoI": 0.0, "ym": e})
        model.fix("b_start", ("ux", "uy"))
        model.prescribe("b_start", "rz", value=turn)
        model.gravity((0.0, -g))
        return solve_static(model, steps=4).final.reshape(-1, 3)[-1]

    upright = planar((0.0, L), 0.0)
    turned = planar((L, 0.0), np.pi / 2)
    x_up = np.array([0.0, L]) + upright[:2]
    x_turned = np.array([L, 0.0]) + turned[:2]
    assert abs(upright[0]) == pytest.approx(m * g * e * L**3 / (3 * EI), rel=2.0 / n**2)  # the couple bends it
    assert np.abs(x_turned - x_up).max() <= 1e-9 * L
    assert turned[2] == pytest.approx(np.pi / 2 + upright[2], abs=1e-10)
