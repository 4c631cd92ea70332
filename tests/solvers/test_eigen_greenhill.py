"""Greenhill buckling of a clamped–clamped shaft under an axial torque, from the lowest
frequency along the nonlinear static load path (femb.solvers.eigen.buckling.critical_load_on_path).

Reference: the complex lateral displacement u = v + iw of a shaft under an axial torque M
satisfies EI u'''' − iM u''' = 0; the four clamped conditions give
2(1 − e^{iθ}) + iθ(1 + e^{iθ}) = 0, i.e. tan(θ/2) = θ/2 with θ = M L/EI, so
M_cr = 8.9868·EI/L (Greenhill 1883; Ziegler, Principles of Structural Stability, 1968;
derivation in references/linearization_eigen_rigid_trees.md, appendix).

The torque acts at the end whose bending rotations and lateral translations are clamped and
whose twist is free. That end only turns about the shaft axis, so the moment vector stays
axial whatever its type: dead, semitangential and follower moments coincide there (and give
the same M_cr), as the classical clamped–clamped solution assumes. femb's default choice is
the semitangential (conservative) moment, which keeps the tangent symmetric at equilibrium.
"""
import numpy as np
import pytest
from scipy.optimize import brentq

from femb.mesh import line_mesh
from femb.model import Material, Model, Section
from femb.solvers.eigen.buckling import critical_load_on_path

EI, L = 1.0, 1.0


def greenhill_theta():
    return brentq(lambda t: np.tan(t / 2) - t / 2, 8.0, 9.4)


def shaft(n, moment_type="semitangential"):
    mesh = line_mesh((0.0, 0.0, 0.0), (L, 0.0, 0.0), n, "shaft")
    model = Model(mesh, dim=3, name=f"Greenhill shaft ({n})")
    model.add_part("shaft", "beam3d", "shaft", Material(E=1.0, G=1.0, rho=1.0),
                   Section(A=1.0e4, Iy=EI, Iz=EI, J=1.0, Ip=1.0e-4))
    model.fix("shaft_start")
    model.fix("shaft_end", ("uy", "uz", "ry", "rz"))
    model.point_load("shaft_end", mx=EI / L, moment_type=moment_type)
    return model


def test_closed_form_root():
    assert greenhill_theta() == pytest.approx(8.9868, abs=1e-4)


def test_greenhill_torque_from_the_frequency_along_the_path_converges_to_the_closed_form():
    exact = greenhill_theta()
    errors = []
    for n in (4, 8, 16):
        res = critical_load_on_path(shaft(n), exact * np.array([0.5, 0.9, 1.1, 1.3]), mass="consistent")
        errors.append(abs(res.load_factor / exact - 1.0))
        # the lowest frequency falls monotonically to zero on the path
        w = res.omega[:, 0]
        assert np.all(np.diff(w[: np.searchsorted(res.path.times, res.load_factor)]) < 0)
    assert errors[-1] < 5e-4
    rate = -np.polyfit(np.log([4, 8, 16]), np.log(errors), 1)[0]
    assert rate > 1.8, f"rate {rate:.2f}, errors {errors}"


@pytest.mark.parametrize("moment_type", ["dead", "follower"])
def test_clamped_end_makes_the_moment_type_irrelevant(moment_type):
    exact = greenhill_theta()
    ref = critical_load_on_path(shaft(8), exact * np.array([0.9, 1.1]), mass="consistent").load_factor
    other = critical_load_on_path(shaft(8, moment_type), exact * np.array([0.9, 1.1]), mass="consistent").load_factor
    assert other == pytest.approx(ref, rel=1e-7)
