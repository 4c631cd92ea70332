"""Every joint kind sits behind the evaluator protocol (femb.assembly.joints.protocol).

Each evaluator class is a JointEvaluator, the classes share out the model's joint kinds
without overlap, and on a model using every kind of its family each evaluator returns
what the protocol promises: Φ (m,), local rows in 0 .. m−1, one joint name per row, the
same Jacobian pattern at every state, a Jacobian equal to the finite-difference derivative
of Φ and a discrete Jacobian with Ḡ·Δq = ΔΦ exactly.
"""
import numpy as np
import pytest

from femb.assembly.joints import EVALUATORS, BodyPoint2D, ConstraintSet, Joints3D, JointEvaluator, ScalarJoints, Slider2D
from femb.core.rotations import exp_batch
from femb.correlation import build_table
from femb.mesh import Mesh
from femb.model import Model
from femb.model.joints import JOINT_KINDS, JOINTS_3D


def planar_model():
    """Every 2-D kind: a rigid rod on body points, a slider on the rod, a guide line, a
    distance link, a coincidence and a time-dependent linear relation."""
    pts = np.array([[0.1, 0.0], [0.25, 0.05], [0.4, 0.0], [0.7, 0.2], [0.7, 0.2], [0.3, -0.3]])
    model = Model(Mesh(pts, {}, {"pin": [0], "rod": [1], "slider": [2], "free": [3], "twin": [4], "bead": [5]}))
    for name in ("pin", "slider", "free", "twin"):
        model.add_discrete(f"{name} mass", "point_mass2d_translational", name, m=0.1)
    model.add_discrete("rod body", "rigid_body2d", "rod", m=0.5, J=0.01)
    model.add_discrete("bead body", "rigid_body2d", "bead", m=0.2, J=0.003)
    model.body_point("rod", "pin", name="crank pin")
    model.body_point("rod", None, point=(0.4, 0.0), name="ground pin")
    model.slider("bead", "rod", direction=(1.0, 0.3), lock_rotation=True, name="bead slider")
    model.on_line("slider", point=(0.4, 0.0), direction=(1.0, 0.2), name="guide")
    model.distance("free", "slider", name="link")
    model.coincide("free", "twin", name="twins")
    model.linear_constraint([("pin", "ux", 1.0), ("free", "uy", -2.0)], value=lambda t: 0.1 * t, name="relation")
    return model


def spatial_model():
    """Every 3-D kind between rigid bodies (and one to ground)."""
    pts = np.array([[0.0, 0.0, 0.0], [0.4, 0.3, -0.2], [0.9, 0.1, 0.3], [1.2, -0.4, 0.1], [1.5, 0.2, 0.6], [2.0, 0.0, 0.0]])
    model = Model(Mesh(pts, {}, {str(i): [i] for i in range(len(pts))}), dim=3)
    for i in range(len(pts)):
        model.add_discrete(f"body {i}", "rigid_body3d", str(i), m=1.0, Jxx=0.1, Jyy=0.2, Jzz=0.25)
    axis = (0.3, -0.5, 0.8)
    for i, kind in enumerate(JOINTS_3D):
        model.joint3d(kind, str(i), str(i + 1), axis=axis, name=kind)
    model.joint3d("spherical", "0", None, name="ground ball")
    return model


def test_evaluator_classes_follow_the_protocol_and_share_out_every_joint_kind():
    kinds = [k for cls in EVALUATORS for k in cls.kinds]
    assert sorted(kinds) == sorted(JOINT_KINDS)  # each kind handled by exactly one class
    for cls in EVALUATORS:
        assert issubclass(cls, JointEvaluator)
        assert not getattr(cls, "__abstractmethods__", None), f"{cls.__name__} leaves protocol methods abstract"
    assert [c.takes_rotations for c in EVALUATORS] == [False, False, False, True]


def _check_evaluator(ev, table, states, t):
    assert isinstance(ev, JointEvaluator)
    assert len(ev.names) == ev.m > 0
    rng = np.random.default_rng(7)
    pattern = None
    for u0, u1 in states:
        phi, rows, cols, vals = ev.evaluate(u1, t)
        assert phi.shape == (ev.m,)
        assert rows.shape == cols.shape == vals.shape
        assert rows.min() >= 0 and rows.max() < ev.m and cols.max() < table.n_var
        if pattern is None:
            pattern = (rows.copy(), cols.copy())
        assert np.array_equal(rows, pattern[0]) and np.array_equal(cols, pattern[1])
        free = cols >= 0
        G = np.zeros((ev.m, table.n_var))
        np.add.at(G, (rows[free], cols[free]), vals[free])
        du = 1e-6 * rng.standard_normal(table.n_var)
        dphi = ev.evaluate(u1 + du, t)[0] - ev.evaluate(u1 - du, t)[0]
        assert np.allclose(G @ (2 * du), dphi, rtol=0.0, atol=1e-12)
        r, c, v = ev.midpoint(u0, u1)
        assert np.array_equal(r, pattern[0]) and np.array_equal(c, pattern[1])
        Gbar = np.zeros((ev.m, table.n_var))
        np.add.at(Gbar, (r[free], c[free]), v[free])
        exact = ev.evaluate(u1, t)[0] - ev.evaluate(u0, t)[0]
        assert np.abs(exact).max() > 1e-3  # the states are far apart: the test can fail
        assert np.allclose(Gbar @ (u1 - u0), exact, rtol=0.0, atol=1e-13)
        for hr, hc, hv in (ev.hessian(np.ones(ev.m)), ev.midpoint_stiffness(np.ones(ev.m))):
            assert hr.shape == hc.shape == hv.shape and hv.dtype == np.float64


def test_planar_and_scalar_kinds_keep_the_protocol():
    model = planar_model()
    table = build_table(model)
    cs = ConstraintSet(model, table)
    assert [type(ev) for ev in cs.evaluators] == [ScalarJoints, BodyPoint2D, Slider2D]
    assert cs.row_joint == ["link", "guide", "twins", "twins", "relation", "crank pin", "crank pin",
                            "ground pin", "ground pin", "bead slider", "bead slider"]
    rng = np.random.default_rng(3)
    states = [(rng.normal(scale=0.2, size=table.n_var), rng.normal(scale=0.2, size=table.n_var)) for _ in range(3)]
    for u0, u1 in states:  # large rotation increments: the discrete derivative must be exact anyway
        u1[table.var_of(1, "rz")] = u0[table.var_of(1, "rz")] + 1.4
    for ev in cs.evaluators:
        _check_evaluator(ev, table, states, t=0.0)


def test_spatial_kinds_keep_the_protocol():
    model = spatial_model()
    table = build_table(model)
    cs = ConstraintSet(model, table)
    (ev,) = cs.evaluators
    assert isinstance(ev, Joints3D) and ev.m == 3 + 5 + 4 + 4 + 5 + 3
    phi, rows, cols, vals = ev.evaluate(np.zeros(table.n_var))
    assert np.abs(phi).max() < 1e-15  # the reference configuration satisfies every joint
    rng = np.random.default_rng(4)
    u = rng.normal(scale=0.3, size=table.n_var)
    R = np.empty((len(model.mesh.points), 3, 3))
    exp_batch(rng.normal(size=(len(R), 3)), R)
    # takes_rotations: given rotations replace those of the rotation vectors in u
    assert not np.allclose(ev.evaluate(u, rotations=R)[0], ev.evaluate(u)[0])


@pytest.mark.parametrize("kind", sorted(JOINT_KINDS))
def test_each_joint_kind_is_evaluated_by_a_protocol_class(kind):
    (cls,) = [c for c in EVALUATORS if kind in c.kinds]
    assert issubclass(cls, JointEvaluator)
    assert (kind in JOINTS_3D) == cls.takes_rotations
