"""Energy-conserving dynamics of beams whose rotary inertia is given directly, not derived
from the stiffness section (issue: ρI = 10 about the bending axes and 20 about the beam
axis for EI = 500): free flight keeps energy and both momenta exactly in every mass kind
the mid-point scheme integrates, and the rotary inertia really enters."""
import numpy as np
import pytest

from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers import solve_dynamic

GIVEN = {"EA": 5e4, "GJ": 400.0, "EIy": 500.0, "EIz": 500.0, "rhoA": 1.0, "rhoIp": 20.0, "rhoIy": 10.0, "rhoIz": 10.0}


def flying_beam(**changes):
    model = Model(line_mesh((0.0, 0.0, 0.0), (4.0, 0.6, 0.4), 4, "b"), dim=3, name="free beam, given inertia")
    model.add_part("b", "beam3d", "b", values={**GIVEN, **changes})
    model.initial_rigid_velocity(velocity=(0.2, -0.1, 0.3), omega=(0.3, -0.2, 0.5), center=(2.0, 0.3, 0.2))
    model.initial_velocity("b_end", uz=0.4, rx=0.6, ry=-0.3)
    return model


@pytest.mark.parametrize("mass", ["lumped", "invariant"])
def test_free_flight_with_given_rotary_inertia_keeps_energy_and_momenta(mass):
    res = solve_dynamic(flying_beam(), 0.05, 10.0, mass=mass, record_every=10)
    E = res.series("total_energy")
    L = np.column_stack([res.series(f"angular_momentum_{c}") for c in "xyz"])
    p = np.column_stack([res.series(f"linear_momentum_{c}") for c in "xyz"])
    assert E[0] > 0 and np.linalg.norm(L[0]) > 0 and np.linalg.norm(p[0]) > 0
    assert np.abs(E - E[0]).max() <= 1e-10 * E[0]
    assert np.abs(L - L[0]).max() <= 1e-10 * np.linalg.norm(L[0])
    assert np.abs(p - p[0]).max() <= 1e-10 * np.linalg.norm(p[0])
    assert res.series("strain_energy").max() > 1e-4 * E[0]  # it deforms


def test_given_rotary_inertia_enters_the_motion():
    """The same start with ρIp, ρIy, ρIz divided by ten: another kinetic energy at t = 0 and
    another trajectory (the inertia is used as given, not re-derived)."""
    a = solve_dynamic(flying_beam(), 0.05, 1.0)
    b = solve_dynamic(flying_beam(rhoIp=2.0, rhoIy=1.0, rhoIz=1.0), 0.05, 1.0)
    assert a.series("kinetic_energy")[0] > 1.5 * b.series("kinetic_energy")[0]
    assert np.abs(a.nodal_displacements() - b.nodal_displacements()).max() > 1e-3
