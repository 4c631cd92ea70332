"""linearize() at a trajectory point of a model with driven (time-dependent prescribed) DOFs.

A pendulum (bob m at distance L from its pivot, gravity g along +x) whose pivot is driven
along the gravity direction, x_p(t) = a cos νt: in the pivot's frame gravity is g − ẍ_p,
so the linearization about the hanging position at time t is
δÿ = −(g + a ν² cos νt)/L · δy (frozen-time stiffness of the parametrically excited
pendulum; e.g. Landau & Lifshitz, Mechanics §27), with no damping-like term.
"""
import numpy as np
import pytest

from femb.core.errors import InputError
from femb.mesh import Mesh
from femb.model import Model
from femb.solvers import linearize

M_BOB, L, G, AMP, NU = 0.5, 1.0, 9.8, 0.1, 5.0


def driven_pendulum():
    mesh = Mesh(np.array([[0.0, 0.0], [L, 0.0]]), {}, {"pivot": np.array([0]), "bob": np.array([1])})
    model = Model(mesh, name="pendulum on a driven pivot")
    model.add_discrete("pivot mass", "point_mass2d_translational", "pivot", m=0.3)
    model.add_discrete("bob mass", "point_mass2d_translational", "bob", m=M_BOB)
    model.distance("pivot", "bob", length=L, name="rod")
    model.prescribe("pivot", "ux", function=lambda t: AMP * np.cos(NU * t))
    model.fix("pivot", "uy")
    model.gravity((G, 0.0), constant=True)
    return model


@pytest.mark.parametrize("t", [0.0, 0.3, 1.1])
def test_driven_pivot_pendulum_has_the_frozen_time_stiffness(t):
    model = driven_pendulum()
    # the operating point: bob hanging below the pivot; the driven DOF's value and rate are
    # set by linearize from the function at t (here deliberately left at zero in u)
    u = np.array([0.0, 0.0, AMP * np.cos(NU * t), 0.0])
    lin = linearize(model, u, t=t)
    assert lin.independent == [(1, "uy")]
    stiffness = (G + AMP * NU**2 * np.cos(NU * t)) / L  # 12.3, 9.9768, 11.5717 1/s²
    np.testing.assert_allclose(lin.A, [[0.0, 1.0], [-stiffness, 0.0]], rtol=1e-8, atol=1e-8 * stiffness)
    np.testing.assert_allclose(lin.K[0, 0], M_BOB * stiffness, rtol=1e-8)
    assert lin.M[0, 0] == pytest.approx(M_BOB, rel=1e-14)


def test_driven_model_needs_the_time_of_the_operating_point():
    with pytest.raises(InputError, match="give the time t"):
        linearize(driven_pendulum(), np.zeros(4))
