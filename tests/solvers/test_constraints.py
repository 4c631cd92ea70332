"""Joints as constraints with eliminated multipliers (statics and the null-space algebra)."""
import logging

import numpy as np
import pytest
import scipy.sparse as sp

from femb.assembly import Assembler
from femb.core.errors import ModelError
from femb.mesh import CellBlock, Mesh, line_mesh
from femb.model import Material, Model, Section
from femb.solvers import SingularSystemError, solve_static
from femb.solvers.linalg.nullspace import NullSpace, independent_rows

EI, EA, L = 2.0, 1.0e4, 1.0


def test_null_space_solve_equals_saddle_point_solve():
    """Eliminating the multipliers gives the saddle-point solution, λ included."""
    rng = np.random.default_rng(3)
    n, m = 12, 4
    A = rng.standard_normal((n, n))
    K = A @ A.T + n * np.eye(n)
    K[0, 1] += 0.3  # non-symmetric, as in the mid-point scheme
    G = rng.standard_normal((m, n))
    Gbar = G + 0.05 * rng.standard_normal((m, n))
    r, phi = rng.standard_normal(n), rng.standard_normal(m)
    saddle = np.block([[K, Gbar.T], [G, np.zeros((m, m))]])
    ref = np.linalg.solve(saddle, -np.concatenate([r, phi]))
    ns = NullSpace(sp.csr_matrix(G), sp.csr_matrix(Gbar))
    dq_p = ns.particular(phi)
    Ks = sp.csr_matrix(K)
    dqi = np.linalg.solve(ns.reduced_matrix(Ks).toarray(), -(ns.Nbar.T @ (r + K @ dq_p)))
    dq = ns.N @ dqi + dq_p
    assert np.allclose(dq, ref[:n], rtol=1e-10, atol=1e-12)
    assert np.allclose(ns.multipliers(Ks, r, dq), ref[n:], rtol=1e-10, atol=1e-12)
    assert np.allclose(G @ dq, -phi, atol=1e-12)


def test_independent_rows_finds_the_redundant_one():
    G = np.array([[1.0, 0, 0], [0, 1.0, 0], [1.0, 1.0, 0]])
    keep, redundant = independent_rows(G)
    assert keep.size == 2 and redundant.size == 1


def propped_cantilever(angle=0.0, support="joint"):
    """Cantilever with a distributed load whose tip slides on a line along the beam."""
    c, s = np.cos(angle), np.sin(angle)
    mesh = line_mesh((0.0, 0.0), (L * c, L * s), 10, "beam")
    model = Model(mesh)
    model.add_part("beam", "beam2d", "beam", Material(E=1.0), Section(A=EA, I=EI))
    model.fix("beam_start")
    model.distributed_load("beam", (4.0 * s, -4.0 * c))  # transverse to the beam
    if support == "joint":
        model.on_line("beam_end", point=(L * c, L * s), direction=(c, s), name="tip slider")
    else:
        model.fix("beam_end", ("uy",))
    return model


def test_slider_joint_equals_a_roller_support():
    res_j = solve_static(propped_cantilever(), steps=3)
    res_f = solve_static(propped_cantilever(support="table"), steps=3)
    tip = res_j.table.blocks[0].cells[-1, 1]
    assert res_j.dof(tip, "ux", -1) == pytest.approx(res_f.dof(tip, "ux", -1), abs=1e-12)
    assert res_j.dof(tip, "rz", -1) == pytest.approx(res_f.dof(tip, "rz", -1), abs=1e-11)
    assert abs(res_j.dof(tip, "uy", -1)) < 1e-12
    assert res_j.series("constraint_residual")[-1] < 1e-12
    # the multiplier is the roller's reaction: qL·5/8 ... with the sign of the normal (−sin, cos)
    t = res_f.table
    roller = res_f.arrays["reactions"][-1][list(t.constrained_vars).index(t.var_of(tip, "uy"))]
    assert res_j.arrays["multipliers"][-1][0] == pytest.approx(-roller, rel=1e-9)
    assert roller == pytest.approx(3.0 / 8.0 * 4.0 * L, rel=2e-2)  # propped cantilever, EB: 3qL/8


def test_inclined_slider_gives_the_rotated_solution():
    beta = 0.7
    res0 = solve_static(propped_cantilever(0.0), steps=3)
    res1 = solve_static(propped_cantilever(beta), steps=3)
    R = np.array([[np.cos(beta), -np.sin(beta)], [np.sin(beta), np.cos(beta)]])
    assert np.allclose(res1.nodal_displacements(), res0.nodal_displacements() @ R.T, atol=1e-10)
    assert np.allclose(res1.nodal_rotations(), res0.nodal_rotations(), atol=1e-10)


def hanging_frame(link="joint"):
    """A cantilever whose tip hangs from a fixed point by a rigid link (joint) or by a
    very stiff truss."""
    pts = np.array([[0.0, 0.0], [0.5, 0.0], [1.0, 0.0], [1.0, 0.8]])
    cells = {"beam": CellBlock("line", np.array([[0, 1], [1, 2]]))}
    if link == "truss":
        cells["link"] = CellBlock("line", np.array([[2, 3]]))
    mesh = Mesh(pts, cells, {"root": np.array([0]), "tip": np.array([2]), "anchor": np.array([3])})
    model = Model(mesh)
    model.add_part("beam", "beam2d", "beam", Material(E=1.0), Section(A=EA, I=EI))
    if link == "truss":
        model.add_part("link", "truss2d", "link", Material(E=1e12), Section(A=1.0))
        model.fix("anchor", ("ux", "uy"))
    else:
        model.distance(None, "tip", point=(1.0, 0.8), name="rigid link")
    model.fix("root")
    model.point_load("tip", fx=30.0, fy=-5.0)
    return model


def test_distance_joint_matches_an_almost_rigid_truss():
    res_j = solve_static(hanging_frame("joint"), steps=5)
    res_t = solve_static(hanging_frame("truss"), steps=5)
    tip = 2
    for dof in ("ux", "uy", "rz"):
        assert res_j.dof(tip, dof, -1) == pytest.approx(res_t.dof(tip, dof, -1), abs=1e-8)
    x = np.array([1.0 + res_j.dof(tip, "ux", -1), res_j.dof(tip, "uy", -1)])
    assert np.linalg.norm(x - (1.0, 0.8)) == pytest.approx(0.8, abs=2e-12)  # solver's ‖Φ‖ tolerance
    assert res_j.series("iterations").max() <= 6, "joint curvature missing from the tangent?"
    assert abs(res_j.dof(tip, "ux", -1)) > 1e-3, "the load must move the tip noticeably"
    # Φ = (|d|² − L²)/(2L) has unit gradient along the link, so λ is the link tension
    tension = Assembler(res_t.table).resultants(res_t.final)["link"][0, 0]
    assert res_j.arrays["multipliers"][-1][0] == pytest.approx(tension, rel=1e-6)
    assert tension > 1.0


def test_redundant_joint_is_dropped_with_a_warning_naming_it(caplog):
    model = propped_cantilever()
    model.on_line("beam_end", point=(L, 0.0), direction=(1.0, 0.0), name="second slider")
    with caplog.at_level(logging.WARNING):
        res = solve_static(model, steps=2)
    assert "redundant" in caplog.text and "second slider" in caplog.text
    ref = solve_static(propped_cantilever(), steps=2)
    assert np.allclose(res.final, ref.final, atol=1e-12)


def test_redundant_joint_is_an_error_by_choice():
    model = propped_cantilever()
    model.on_line("beam_end", point=(L, 0.0), direction=(1.0, 0.0), name="second slider")
    model.redundant_constraints = "error"
    with pytest.raises(ModelError, match="second slider"):
        solve_static(model, steps=1)


def test_mechanism_in_statics_names_the_free_dofs():
    """A beam hinged at the root whose tip slides along the beam axis can rotate freely:
    the reduced tangent is singular and the error names the DOFs that move."""
    mesh = line_mesh((0.0, 0.0), (L, 0.0), 4, "beam")
    model = Model(mesh)
    model.add_part("beam", "beam2d", "beam", Material(E=1.0), Section(A=EA, I=EI))
    model.fix("beam_start", ("ux", "uy"))
    model.on_line("beam_end", point=(L, 0.0), direction=(0.0, 1.0), name="vertical slider")
    model.point_load("beam_end", fy=1.0)
    with pytest.raises(SingularSystemError) as err:
        solve_static(model, steps=1)
    assert err.value.dofs and "node" in str(err.value)


def test_joint_declaration_errors_name_the_joint():
    model = propped_cantilever()
    model.on_line("beam_end", point=(0.0, 0.0, 0.0), direction=(1.0, 0.0), name="bad line")
    model.distance("beam_start", "nowhere", name="bad distance")
    with pytest.raises(ModelError) as err:
        model.validate()
    assert "bad line" in str(err.value) and "bad distance" in str(err.value)


def test_rigid_body_on_body_point_joints_carries_its_weight_through_the_reactions():
    """A rigid bar (rigid_body2d at its centre, length 2, m = 3) hinged to ground at its
    left end and resting on a vertical-only support (a node on a horizontal line) at its
    right end, body_point joints at both ends: the joint forces share the weight equally,
    and the bar does not move."""
    from femb.mesh import Mesh

    pts = np.array([[1.0, 0.0], [2.0, 0.0]])
    model = Model(Mesh(pts, {}, {"centre": [0], "right": [1]}))
    model.add_discrete("bar", "rigid_body2d", "centre", m=3.0, J=1.0)
    model.add_discrete("roller", "point_mass2d_translational", "right", m=0.0)
    model.body_point("centre", None, point=(0.0, 0.0), name="left hinge")
    model.body_point("centre", "right", name="right pin")
    model.on_line("right", point=(2.0, 0.0), direction=(1.0, 0.0), name="roller")
    model.gravity((0.0, -9.81))
    res = solve_static(model, steps=1)
    lam = dict()
    for value, name in zip(res.arrays["multipliers"][-1], res.info["constraint_rows"]):
        lam.setdefault(name, []).append(value)
    W = 3.0 * 9.81
    assert abs(lam["left hinge"][1]) == pytest.approx(W / 2, rel=1e-10)
    assert abs(lam["roller"][0]) == pytest.approx(W / 2, rel=1e-10)
    assert abs(lam["left hinge"][0]) < 1e-10 * W
    assert np.abs(res.states[-1]).max() < 1e-12
