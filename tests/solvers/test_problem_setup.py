"""The problem set-up every analysis shares (femb.solvers.problem.ProblemSetup): one length
scale (the joint-aware one, used by the constraint tolerances of statics and dynamics
alike) and one meaning of "oriented"."""
import numpy as np
import pytest

from femb.core.errors import InputError
from femb.mesh import CellBlock, Mesh, line_mesh
from femb.model import Model
from femb.solvers import DynamicSettings, solve_dynamic
from femb.solvers.dynamics.problem import DynamicProblem
from femb.solvers.nonlinear import step_newton
from femb.solvers.problem import StaticProblem, length_scale

ROD = 100.0  # m: the pendulum's pivot lies this far outside the one-node mesh


def long_pendulum():
    """A 1 kg bob at the origin (the whole mesh) hanging from a pivot 100 m above it on a
    distance joint, swinging under gravity: a joint that reaches far beyond the mesh."""
    model = Model(Mesh(np.zeros((1, 2)), {}, {"bob": [0]}), name="long pendulum")
    model.add_discrete("bob mass", "point_mass2d_translational", "bob", m=1.0)
    model.distance(None, "bob", point=(0.0, ROD), name="rod")
    model.gravity((0.0, -9.81))
    model.initial_velocity("bob", ux=3.0)
    return model


def test_every_analysis_takes_the_joint_aware_length_scale():
    model = long_pendulum()
    assert length_scale(model) == pytest.approx(ROD)
    assert DynamicProblem(model).length_scale == StaticProblem(model).length_scale == length_scale(model)


def test_projected_newton_of_a_dynamic_step_uses_the_joint_aware_tolerance(monkeypatch):
    """The constraint tolerance of the projected Newton loop is constraint_tolerance × the
    length scale it is given: that scale must be the pendulum's 100 m, not the 1 m of a
    mesh with no extent."""
    seen = []
    solve = step_newton.projected_newton

    def recording(evaluate, system, x, settings, table, scale):
        seen.append(scale)
        return solve(evaluate, system, x, settings, table, scale)

    monkeypatch.setattr(step_newton, "projected_newton", recording)
    res = solve_dynamic(long_pendulum(), 0.05, 0.5)
    assert len(seen) >= 10 and seen == [pytest.approx(ROD)] * len(seen)
    assert np.abs(res.series("constraint_residual")).max() <= 1e-12 * ROD


def test_initial_joint_check_uses_the_joint_aware_tolerance():
    """The initial positions may miss the joint by 1e-8 of the length scale: a 100 m rod
    5e-7 m too long is accepted (and corrected by the first step), 5e-5 m is refused."""
    model = long_pendulum()
    var = DynamicProblem(model).table.var_of(0, "uy")
    u0 = np.zeros(DynamicProblem(model).table.n_var)
    u0[var] = -5e-7
    res = solve_dynamic(model, 0.05, 0.1, u0=u0)
    assert res.series("constraint_residual")[-1] <= 1e-12 * ROD
    u0[var] = -5e-5
    with pytest.raises(InputError, match="rod"):
        solve_dynamic(model, 0.05, 0.1, u0=u0)


def _models():
    beam2d = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 2, "b"))
    beam2d.add_part("b", "beam2d", "b", values={"EA": 1e3, "EI": 1.0, "rhoA": 1.0, "rhoI": 0.01})
    truss3d = Model(line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 2, "b"), dim=3)
    truss3d.add_part("b", "truss3d", "b", values={"EA": 1e3, "rhoA": 1.0})
    beam3d = Model(line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 2, "b"), dim=3)
    beam3d.add_part("b", "beam3d", "b", values={"EA": 1e3, "GJ": 1.0, "EIy": 1.0, "EIz": 1.0, "rhoA": 1.0,
                                                 "rhoIp": 0.02, "rhoIy": 0.01, "rhoIz": 0.01})
    mesh = Mesh(np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]), {"bar": CellBlock("line", np.array([[0, 1]]))}, {"a": [0], "b": [1]})
    body = Model(mesh, dim=3)
    body.add_part("bar", "truss3d", "bar", values={"EA": 1e3, "rhoA": 1.0})
    body.add_discrete("body", "rigid_body3d", "b", m=1.0, Jxx=0.1, Jyy=0.1, Jzz=0.1)
    return {"beam2d": (beam2d, 0), "truss3d": (truss3d, 0), "beam3d": (beam3d, 3), "truss3d + rigid body": (body, 1)}


@pytest.mark.parametrize("name", ["beam2d", "truss3d", "beam3d", "truss3d + rigid body"])
def test_oriented_means_nodes_with_3d_rotations_in_every_analysis(name):
    """A model is oriented when it has nodes carrying rx, ry, rz: statics and dynamics
    agree, and those are the nodes the oriented element blocks (kernels taking R) use."""
    model, n_oriented = _models()[name]
    static, dynamic = StaticProblem(model), DynamicProblem(model)
    assert static.oriented == dynamic.oriented == (n_oriented > 0)
    assert static.rotations.n == dynamic.rotations.n == n_oriented
    assert static.assembler.has_oriented_blocks == static.oriented
    oriented_cells = np.unique(np.concatenate([b.cells.ravel() for b in static.table.blocks if b.spec.oriented] or [[]]))
    assert np.array_equal(static.rotations.nodes, oriented_cells.astype(np.int64))


@pytest.mark.parametrize("name", ["beam2d", "beam3d", "truss3d + rigid body"])
def test_set_up_leaves_the_element_loop_buffers_unwritten(name):
    """The set-up's mass passes (gravity, element masses) do not keep their element arrays:
    the loop's buffers are fresh (zero, no gathered inputs) after DynamicProblem, and a
    general step filling them again gives the run of a problem that never released them."""
    model, _ = _models()[name]
    model.gravity((0.0, -9.81) if model.dim == 2 else (0.0, -6.0, -7.76))
    prob = DynamicProblem(model)
    for buf in prob.assembler.loop.buffers:
        assert not buf.K.any() and not buf.f.any() and not buf._work and not buf.calls
    kept = DynamicProblem(model)
    kept.assembler.element_masses(kept.mass_kind, R=kept.rotations.identity())  # buffers written again
    runs = [solve_dynamic(model, 0.01, 0.05, DynamicSettings(compiled_step=False), problem=p) for p in (prob, kept)]
    for a, b in zip(runs[0].states + runs[0].velocities, runs[1].states + runs[1].velocities):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(runs[0].series("total_energy"), runs[1].series("total_energy"))


@pytest.mark.parametrize("name", ["beam2d", "beam3d", "truss3d + rigid body"])
def test_element_masses_are_kept_by_their_nonzero_entries(name):
    """DynamicProblem keeps the element masses by their nonzero entries; ``element_mass``
    expands them bitwise to the dense masses (the translational part in oriented models),
    new arrays at each access."""
    from femb.solvers.problem import split_rotary_mass
    model, _ = _models()[name]
    prob = DynamicProblem(model)
    dense = prob.assembler.element_masses(prob.mass_kind, R=prob.rotations.identity())
    if prob.oriented:
        dense = [split_rotary_mass(b, Me)[0] for b, Me in zip(prob.table.blocks, dense)]
    got = prob.element_mass
    assert got[0] is not prob.element_mass[0]
    for Me, kept, mine in zip(dense, prob._element_mass, got):
        np.testing.assert_array_equal(mine, Me)
        assert kept.values.size == np.count_nonzero(np.any(Me != 0.0, axis=0)) * Me.shape[0] < Me.size
