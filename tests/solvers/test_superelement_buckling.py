"""Geometric stiffness of co-rotated Craig–Bampton superelements (elements.superelement with
the geometric tensor of femb.solvers.reduction.stress_stiffening): linear buckling of a
pinned–pinned column made of one or two superelements gives the Euler load
N_cr = π² EI / L² (the Ritz model bounds it from above; within 1e-3 with k = 4
fixed-interface modes per body), the same in a rotated placement, and the superelement's
resultants at a linear solve are its deformational coordinates.

Column: the unit beam of tests/solvers/test_superelements (L = 1, EI = 1, EA = 1e4), so
N_cr = π² = 9.8696.
"""
import numpy as np
import pytest

import femb
from femb.core.rotations import exp_so3
from femb.mesh.mesh import Mesh
from femb.model import Model
from femb.solvers.problem import linear_resultants
from femb.solvers.reduction.stress_stiffening import modal_geometric_stiffness
from femb.validation.superelement_cases import beam_model
from tests.elements.test_superelement import rigid_modes
from tests.solvers.test_superelements import LOAD, linear_solution, reduced_beam, tip_response

EULER = np.pi ** 2  # N_cr of the unit column, EI = 1, L = 1


def column(pieces, axis=np.eye(3), origin=np.zeros(3)):
    """A pinned–pinned unit column of ``pieces`` equal superelements along the first column
    of ``axis`` (a rotation (3, 3): the placement of every piece), compressed by a unit
    axial force at its far end. The near end is held in translation and in the twist
    about the column; the far end moves only along the column. Returns the model."""
    n = len(pieces)
    points = origin + np.outer(np.linspace(0.0, 1.0, n + 1), axis[:, 0])
    model = Model(Mesh(points), name="column")
    for i, data in enumerate(pieces):
        model.add_superelement(f"se{i}", data, [i, i + 1], placement=(axis, points[i]))
    names = ("x", "y", "z")
    along = int(np.argmax(np.abs(axis[:, 0])))
    assert abs(abs(axis[along, 0]) - 1.0) < 1e-14, "the supports need the column along a global axis"
    across = tuple(f"u{names[i]}" for i in range(3) if i != along)
    model.fix(0, ("ux", "uy", "uz", f"r{names[along]}"))
    model.fix(n, across)
    model.point_load(n, **{f"f{names[along]}": -float(np.sign(axis[along, 0]))})
    return model


@pytest.fixture(scope="module")
def body():
    """The unit column reduced on its end nodes, k = 4, with and without G."""
    rc = reduced_beam(4)
    return rc.superelement(geometric=modal_geometric_stiffness(rc)), rc.superelement()


@pytest.fixture(scope="module")
def half():
    """A half column (L = 0.5, 20 beam elements) reduced on its end nodes, k = 4, with G."""
    rc = reduced_beam(4, length=0.5)
    return rc.superelement(geometric=modal_geometric_stiffness(rc).reduced_states)


def test_one_superelement_column_buckles_at_the_euler_load(body):
    """ONE superelement: λ₁ = λ₂ (square section, both bending planes) = π² EI/L² within
    1e-3, from above (Ritz); without the geometric tensor K_G = 0 and no positive load
    factor exists (the load factors are empty)."""
    with_g, without_g = body
    lam = femb.solve_buckling(column([with_g]), 3).load_factors
    assert lam[0] == pytest.approx(EULER, rel=1e-3)
    assert lam[0] >= EULER * (1 - 1e-9)
    assert lam[1] == pytest.approx(lam[0], rel=1e-8)
    assert femb.solve_buckling(column([without_g]), 3).load_factors.size == 0


def test_two_superelements_buckle_at_the_euler_load(half):
    """Two half-length superelements joined at mid-span: the same Euler load, within 1e-3
    and from above (the mode turns each half's chord: the geometric stiffness of rigid
    rotations under the axial pre-stress is part of G)."""
    lam = femb.solve_buckling(column([half, half]), 3).load_factors
    assert lam[0] == pytest.approx(EULER, rel=1e-3)
    assert lam[0] >= EULER * (1 - 1e-9)


def test_a_rotated_placement_gives_the_same_critical_load(body, half):
    """Objectivity: the column placed along y with its section turned by 0.7 rad about its
    own axis (G turned in all three indices by ``SuperelementData.placed``) buckles at the
    same load factors as along x, to round-off."""
    R = np.zeros((3, 3))
    exp_so3(np.array([0.7, 0.0, 0.0]), R)
    Q = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]) @ R  # x → y, y → z, z → x after the twist
    for pieces in ([body[0]], [half, half]):
        straight = femb.solve_buckling(column(pieces), 3).load_factors
        turned = femb.solve_buckling(column(pieces, Q, np.array([2.0, -1.0, 0.5])), 3).load_factors
        assert np.abs(turned - straight).max() <= 1e-8 * straight[0]


def test_resultants_at_a_linear_solve_are_the_reduced_coordinates(body):
    """A cantilever superelement (node 0 clamped) under a general tip load: the resultants
    of the linear solve are its deformational coordinates d — the modal entries equal the
    modal amplitudes, the boundary entries differ from the nodal displacements and
    rotations by a rigid motion only, so K_r d = K_r u_e (the same interface forces)."""
    data = body[0]
    model = Model(Mesh(np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])), name="cantilever")
    model.add_superelement("se", data, [0, 1])
    model.fix(0)
    model.point_load(1, **LOAD)
    u, table = linear_solution(model)
    prob = femb.StaticProblem(model)
    s = linear_resultants(prob.assembler, u, prob.rotations)["se"][0]
    ue = np.concatenate([tip_response(u, table, 0), tip_response(u, table, 1), u[table.internal_vars("se")[0]]])
    # linear_resultants differentiates d(ε u) centrally at ε|u| = 1e-7: its round-off is
    # ~1e-16 |X| / 1e-7 = 1e-9 (unit positions), the tolerance on d below
    scale = np.abs(ue).max()
    assert np.abs(s[12:] - ue[12:]).max() <= 1e-8 * scale
    rigid = rigid_modes(data.positions)
    fit = np.linalg.lstsq(rigid, ue[:12] - s[:12], rcond=None)[0]
    assert np.abs(rigid @ fit - (ue[:12] - s[:12])).max() <= 1e-8 * scale
    assert np.abs(data.K @ s - data.K @ ue).max() <= 1e-8 * np.abs(data.K).max() * scale


def test_green_strain_energy_gives_the_p_delta_effect_inside_one_superelement():
    """With G in the row the superelement's strain energy is the projected Green-strain
    energy ½ eᵀK_r e, e = d + ½K_r⁺g(d) (elements.superelement_frame.reduced_energy): a
    column clamped at one end, the other end guided (ux, ry, rz free), under a compressive
    end load P = 5 (a quarter of its Euler load 20.19 EI/L²) and an end moment 0.1 turns
    its end by the unreduced beam's 0.030445 rad (P-δ amplification 1.39) to 0.1 %, where
    the linear superelement gives 0.02196 (−28 %)."""
    rc = reduced_beam(4, n_el=20)
    G = modal_geometric_stiffness(rc).reduced_states

    def end_rotation(model, node):
        model.point_load(node, fx=-5.0, mz=0.1)
        return femb.solve_static(model, steps=5).dof(node, "rz")[-1]

    def one(data):
        model = Model(Mesh(np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])), name="column")
        model.add_superelement("se", data, [0, 1])
        model.fix(0)
        model.fix(1, ("uy", "uz", "rx"))
        return end_rotation(model, 1)

    full = beam_model(20)
    full.fix("beam_start")
    full.fix("beam_end", ("uy", "uz", "rx"))
    reference = end_rotation(full, full.node("beam_end"))
    assert reference == pytest.approx(0.030445, rel=1e-4)
    assert one(rc.superelement(geometric=G)) == pytest.approx(reference, rel=1e-3)
    assert one(rc.superelement()) == pytest.approx(0.02196, rel=1e-3)
