"""3-D joints on oriented nodes: kinematics of each kind, Jacobians with respect to spins,
statics of a beam held by joints against closed forms, redundancy of a planar four-bar."""
import logging

import numpy as np
import pytest

from femb.assembly.joints import ConstraintSet
from femb.assembly.joints import joint_frame
from femb.core.errors import ModelError
from femb.core.rotations import exp_batch, log_batch
from femb.correlation import build_table
from femb.mesh import CellBlock, Mesh
from femb.model import Material, Model, Section
from femb.solvers import solve_static
from femb.validation.models import cantilever3d

AXIS = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])


def expm(w):
    out = np.empty((1, 3, 3))
    exp_batch(np.asarray(w, dtype=np.float64)[None, :], out)
    return out[0]


def logm(R):
    out = np.empty((1, 3))
    log_batch(np.ascontiguousarray(R[None]), out)
    return out[0]


def two_bodies(kind):
    """Two short beam3d members meeting at nodes a (end of the first) and b (start of the
    second, offset c = X_b − X_a = (0.1, 0.2, 0)), joined by a joint of ``kind``."""
    pts = np.array([[-1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.1, 0.2, 0.0], [1.1, 0.3, 0.2]])
    mesh = Mesh(pts, {"one": CellBlock("line", np.array([[0, 1]])), "two": CellBlock("line", np.array([[2, 3]]))},
                {"a": [1], "b": [2]})
    model = Model(mesh, dim=3)
    section = Section(A=1.0, Iy=1.0, Iz=1.0, J=1.0)
    for part in ("one", "two"):
        model.add_part(part, "beam3d", part, Material(E=1.0, G=1.0), section)
    model.joint3d(kind, "a", "b", axis=AXIS, name=f"{kind} joint")
    return model


def state(table, xa, Ra, xb, Rb, X):
    """Variable vector with the given positions and rotations of nodes a (1) and b (2)."""
    u = np.zeros(table.n_var)
    for node, x, R in ((1, xa, Ra), (2, xb, Rb)):
        for k, name in enumerate(("ux", "uy", "uz")):
            u[table.var_of(node, name)] = x[k] - X[node][k]
        for k, name in enumerate(("rx", "ry", "rz")):
            u[table.var_of(node, name)] = logm(R)[k]
    return u


ALLOWED = {  # relative motions of b in a's joint frame that the joint permits
    "spherical": lambda n, t1, s: (np.zeros(3), expm(0.7 * np.array([0.2, -0.4, 0.9]))),
    "revolute": lambda n, t1, s: (np.zeros(3), expm(0.9 * n)),
    "universal": lambda n, t1, s: (np.zeros(3), expm(0.6 * n) @ expm(-0.8 * t1)),
    "cylindrical": lambda n, t1, s: (s * n, expm(1.1 * n)),
    "prismatic": lambda n, t1, s: (s * n, np.eye(3)),
}
FORBIDDEN = {  # a motion each joint must resist
    "spherical": lambda n, t1, s: (0.01 * t1, np.eye(3)),
    "revolute": lambda n, t1, s: (np.zeros(3), expm(0.05 * t1)),
    "universal": lambda n, t1, s: (np.zeros(3), expm(0.05 * np.cross(n, t1))),
    "cylindrical": lambda n, t1, s: (0.01 * t1, np.eye(3)),
    "prismatic": lambda n, t1, s: (np.zeros(3), expm(0.05 * n)),
}


@pytest.mark.parametrize("kind", ["spherical", "revolute", "universal", "cylindrical", "prismatic"])
def test_each_joint_permits_exactly_its_relative_motions(kind):
    model = two_bodies(kind)
    table = build_table(model)
    cs = ConstraintSet(model, table)
    X = model.mesh.points
    n, t1, _ = joint_frame(AXIS)
    c = X[2] - X[1]
    Ra = expm([0.4, -1.2, 2.0])  # a large rotation of body a
    xa = np.array([0.3, -0.2, 0.5])
    for motions, allowed in ((ALLOWED, True), (FORBIDDEN, False)):
        shift, Rrel = motions[kind](n, t1, 0.37)
        u = state(table, xa, Ra, xa + Ra @ (c + shift), Ra @ Rrel, X)
        phi = cs.evaluate(u, 0.0, jacobian=False)
        assert (np.abs(phi).max() < 1e-12) == allowed, (kind, allowed, phi)
    assert cs.m == {"spherical": 3, "revolute": 5, "universal": 4, "cylindrical": 4, "prismatic": 5}[kind]


@pytest.mark.parametrize("kind", ["spherical", "revolute", "universal", "cylindrical", "prismatic"])
def test_joint_jacobians_are_derivatives_with_respect_to_translations_and_spins(kind):
    model = two_bodies(kind)
    table = build_table(model)
    cs = ConstraintSet(model, table)
    X = model.mesh.points
    rng = np.random.default_rng(7)
    Ra, Rb = expm(rng.standard_normal(3)), expm(rng.standard_normal(3))
    xa, xb = X[1] + 0.1 * rng.standard_normal(3), X[2] + 0.1 * rng.standard_normal(3)
    u = state(table, xa, Ra, xb, Rb, X)
    phi, G = cs.evaluate(u, 0.0)
    G = G.toarray()
    h = 1e-6
    dx = rng.standard_normal((2, 3))
    w = rng.standard_normal((2, 3))
    up = state(table, xa + h * dx[0], expm(h * w[0]) @ Ra, xb + h * dx[1], expm(h * w[1]) @ Rb, X)
    um = state(table, xa - h * dx[0], expm(-h * w[0]) @ Ra, xb - h * dx[1], expm(-h * w[1]) @ Rb, X)
    du = np.zeros(table.n_var)
    for node, k in ((1, 0), (2, 1)):
        for i, name in enumerate(("ux", "uy", "uz")):
            du[table.var_of(node, name)] = dx[k, i]
        for i, name in enumerate(("rx", "ry", "rz")):
            du[table.var_of(node, name)] = w[k, i]
    fd = (cs.evaluate(up, 0.0, jacobian=False) - cs.evaluate(um, 0.0, jacobian=False)) / (2 * h)
    assert np.allclose(G @ du, fd, atol=1e-8)


def supported_beam(load):
    """A straight beam3d (L = 1, EIy = 1, EIz = 2, 8 elements) along x: its first node is
    held by a revolute joint to ground about z, its last node by a spherical joint to
    ground; ``load`` (3,) acts at mid-span."""
    model = cantilever3d(8, EIy=1.0, EIz=2.0, GJ=1.0, EA=1.0e7)
    model.fixed.clear()
    model.joint3d("revolute", "beam_start", None, axis=(0.0, 0.0, 1.0), name="root hinge")
    model.joint3d("spherical", "beam_end", None, name="tip ball")
    mid = int(np.argmin(np.abs(model.mesh.points[:, 0] - 0.5)))
    model.point_load(mid, fx=load[0], fy=load[1], fz=load[2])
    return model, mid


def test_beam_on_a_revolute_and_a_spherical_joint_matches_the_closed_forms():
    P = 1e-4
    # in-plane load (about the hinge axis z): simply supported, w = P L³/48 EIz, root slope P L²/16 EIz
    model, mid = supported_beam((0.0, -P, 0.0))
    res = solve_static(model, steps=1)
    assert res.dof(mid, "uy", -1) == pytest.approx(-P / (48 * 2.0), rel=1e-5)
    assert res.dof(0, "rz", -1) == pytest.approx(-P / (16 * 2.0), rel=1e-5)
    assert abs(res.dof(0, "ry", -1)) < 1e-14 and abs(res.dof(0, "rx", -1)) < 1e-14
    # out-of-plane load: the hinge clamps bending about y (propped cantilever), w = 7 P L³/768 EIy
    model, mid = supported_beam((0.0, 0.0, -P))
    res = solve_static(model, steps=1)
    assert res.dof(mid, "uz", -1) == pytest.approx(-7 * P / 768.0, rel=1e-5)
    assert abs(res.dof(0, "ry", -1)) < 1e-14


def test_large_rotation_about_a_revolute_joint_is_free():
    """A cantilever hinged to ground about z under a tip force along y turns freely: the
    static problem is a mechanism, so hold the tip on a line and turn the hinge by a
    prescribed tip displacement: no bending arises (the beam turns as a rigid body)."""
    model = cantilever3d(4, EIy=1.0, EIz=2.0, GJ=1.0, EA=1.0e7)
    model.fixed.clear()
    model.joint3d("revolute", "beam_start", None, axis=(0.0, 0.0, 1.0), name="root hinge")
    model.fix("beam_end", ("uz",))
    angle = 1.2
    model.prescribe("beam_end", "ux", value=np.cos(angle) - 1.0)
    model.prescribe("beam_end", "uy", value=np.sin(angle))
    res = solve_static(model, steps=6)
    for node in range(5):
        x = model.mesh.points[node, 0]
        assert res.dof(node, "ux", -1) == pytest.approx(x * (np.cos(angle) - 1.0), abs=1e-9)
        assert res.dof(node, "uy", -1) == pytest.approx(x * np.sin(angle), abs=1e-9)
        assert res.dof(node, "rz", -1) == pytest.approx(angle, abs=1e-9)


def planar_four_bar_3d():
    """A planar four-bar (pivots A = 0 and D = (3, 0, 0), crank A–B = 1, coupler B–C,
    rocker C–D) of rigid links in 3-D with revolute joints about z.

    Each link is one oriented node (crank: A, coupler: B, rocker: C) that carries its other
    joint point at a fixed offset; a beam3d arm hangs from each link node to give it its
    DOFs (the arms are not part of the joints). 18 link DOFs, 20 joint equations, one
    degree of freedom: 3 equations are redundant. (With flexible links instead of rigid
    ones the Jacobian would have full rank: the redundancy belongs to the rigid bodies.)"""
    A, B, C, D = [0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [2.5, 2.0, 0.0], [3.0, 0.0, 0.0]
    arms = [[0.0, 0.5, 0.3], [1.0, 1.5, 0.3], [2.7, 1.0, 0.3]]
    pts = np.array([A, B, C] + arms, dtype=np.float64)
    cells = {"arms": CellBlock("line", np.array([[0, 3], [1, 4], [2, 5]]))}
    model = Model(Mesh(pts, cells, {}), dim=3, name="four-bar")
    model.add_part("arms", "beam3d", "arms", Material(E=1.0e3, G=1.0e3), Section(A=1.0, Iy=1.0, Iz=1.0, J=1.0))
    z = (0.0, 0.0, 1.0)
    model.joint3d("revolute", 0, None, axis=z, name="A ground")
    model.joint3d("revolute", 0, 1, axis=z, name="B crank-coupler")
    model.joint3d("revolute", 1, 2, axis=z, name="C coupler-rocker")
    model.joint3d("revolute", 2, None, axis=z, point=D, name="D ground")
    return model


def test_redundant_planar_four_bar_in_3d_is_reported_by_joint_name(caplog):
    from femb.solvers.problem import StaticProblem

    with caplog.at_level(logging.WARNING):
        prob = StaticProblem(planar_four_bar_3d())
    assert len(prob.constraint_rows) == 17
    msg = caplog.text
    assert "3 redundant constraint equation(s)" in msg
    assert any(name in msg for name in ("A ground", "B crank-coupler", "C coupler-rocker", "D ground"))
    model = planar_four_bar_3d()
    model.redundant_constraints = "error"
    with pytest.raises(ModelError, match="redundant"):
        StaticProblem(model)


def test_four_bar_with_redundancies_dropped_solves_a_static_load():
    """The crank's rotations fixed at A lock the mechanism; a force on the coupler's arm:
    the solve goes through with the redundant equations dropped, and all 20 equations hold
    (|Φ| at round-off)."""
    model = planar_four_bar_3d()
    model.fix(0, ("rx", "ry", "rz"))
    model.point_load(4, fx=1e-3, fy=-2e-3, fz=1e-3)
    res = solve_static(model, steps=2)
    cs = ConstraintSet(model, res.table)
    assert np.abs(cs.evaluate(res.states[-1], 0.0, jacobian=False)).max() < 1e-10
    assert np.abs(res.dof(4, "uz", -1)) > 1e-8  # the arm bends; the rigid links stay put
    assert max(abs(res.dof(n, d, -1)) for n in range(3) for d in ("ux", "uy", "uz")) < 1e-12


def hinged_two_span_beam(load):
    """Two beam3d spans of L = 1 along x (EIy = 1, EIz = 2, EA = 1e3, 4 elements each): the first
    clamped at x = 0, the second held at x = 2 by a spherical joint to ground; at x = 1 the
    spans meet at distinct nodes joined by a revolute joint about y. ``load`` (3,) acts on
    the first span's end node."""
    first = cantilever3d(4, EIy=1.0, EIz=2.0, GJ=1.0, EA=1.0e7)
    pts = np.vstack([first.mesh.points, first.mesh.points + np.array([1.0, 0.0, 0.0])])
    conn = first.mesh.cells["beam"].connectivity
    mesh = Mesh(pts, {"span 1": CellBlock("line", conn), "span 2": CellBlock("line", conn + 5)},
                {"root": [0], "hinge 1": [4], "hinge 2": [5], "end": [9]})
    model = Model(mesh, dim=3)
    section = Section(A=1.0e3, Iy=1.0, Iz=2.0, J=1.0)  # moderate EA: negligible membrane action
    for part in ("span 1", "span 2"):
        model.add_part(part, "beam3d", part, Material(E=1.0, G=1.0), section)
    model.fix("root")
    model.joint3d("revolute", "hinge 1", "hinge 2", axis=(0.0, 1.0, 0.0), name="hinge")
    model.joint3d("spherical", "end", None, name="end ball")
    model.point_load("hinge 1", fx=load[0], fy=load[1], fz=load[2])
    return model


def test_revolute_between_two_beams_releases_only_the_moment_about_its_axis():
    P = 1e-4
    # load along z bends about y, the hinge axis: the second span (a link pinned at both
    # ends) carries nothing and the first is a cantilever: w = P L³/3 EIy
    res = solve_static(hinged_two_span_beam((0.0, 0.0, -P)), steps=1)
    assert res.dof(4, "uz", -1) == pytest.approx(-P / 3.0, rel=1e-5)
    assert res.dof(5, "uz", -1) == pytest.approx(-P / 3.0, rel=1e-5)  # the hinge keeps the spans together
    mult = res.arrays["multipliers"][-1]
    rows = res.info["constraint_rows"]
    hinge_force = np.array([m for m, name in zip(mult, rows) if name == "hinge"][:3])
    # no shear through the hinge (the x component is the link's tiny membrane tension EA w²/2)
    assert abs(hinge_force[2]) < 1e-6 * P and abs(hinge_force[0]) < 1e-2 * P
    # load along y bends about z, which the hinge transmits: a clamped–pinned beam of length
    # 2L with a central load, w = 7 P (2L)³ / 768 EIz
    res = solve_static(hinged_two_span_beam((0.0, -P, 0.0)), steps=1)
    assert res.dof(4, "uy", -1) == pytest.approx(-7 * P * 8.0 / (768 * 2.0), rel=1e-5)
    assert res.dof(4, "rz", -1) == pytest.approx(res.dof(5, "rz", -1), abs=1e-12)
