"""Newton of the energy-conserving mid-point step with eliminated joint multipliers on stiff,
nearly force-free motions: a beam spinning about a ground point on a short tether.

The centripetal tension of the spinning beam (~0.05 N) does not grow with its stiffness,
while the rounding of its residual does: the end-of-step positions u_{n+1} = u_n + z are
absolute (|u| ~ 1 once the beam has turned), so the residual is a staircase in z with steps
of about EA/l0 × ulp(u) (8e4 × 2.2e-16 ≈ 2e-11 N for E = 1e6). The projected Newton must
accept the state once its corrections are at round-off, as the unconstrained step loop does,
and its curvature term must take Newton's multiplier update (the multipliers of the
predictor's unbalanced residual are ~40 times the tension and made the next iteration
linear). Stiff cases then run without cut-backs, with ≤ 4 iterations per step, the energy
balance at round-off and the joint at round-off.
"""
import numpy as np
import pytest

from femb.mesh import line_mesh
from femb.model import Material, Model, Section
from femb.solvers import DynamicSettings, MidPoint, solve_dynamic
from femb.solvers.dynamics.problem import DynamicProblem
from femb.solvers.nonlinear.newton import NewtonSettings, projected_newton

OMEGA, DT = 3.0, 0.01


def tethered_beam(E, I=1e-6):
    """beam2d, 8 elements from (0.1, 0) to (1.1, 0) (ρ = 1, A = 1e-2), on a distance joint of
    length 0.1 to the ground point (0, 0), spinning rigidly at ω = 3 rad/s about it."""
    model = Model(line_mesh((0.1, 0.0), (1.1, 0.0), 8, "beam"))
    model.add_part("beam", "beam2d", "beam", Material(E=E, rho=1.0), Section(A=1e-2, I=I))
    model.distance(None, "beam_start", point=(0.0, 0.0), length=0.1, name="tether")
    model.initial_rigid_velocity(omega=OMEGA, center=(0.0, 0.0))
    return model


def check_run(res, t_end):
    """The run reached t_end without cut-backs, in at most 4 Newton iterations per step, with
    the energy balance at round-off of the kinetic energy and the joint at round-off."""
    kinetic = res.series("kinetic_energy")
    assert res.times[-1] == pytest.approx(t_end)
    assert np.sum(res.series("cutbacks")) == 0
    assert np.max(res.series("iterations")) <= 4
    assert np.all(np.asarray(kinetic.max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(res.series("energy_residual")).max() <= 1e-12 * kinetic.max()
    assert res.series("constraint_residual").max() <= 1e-12
    # the spin goes on: the rigid kinetic energy ½ ω² I_O, I_O = ρA((1.1³ − 0.1³)/3)
    assert kinetic[-1] == pytest.approx(0.5 * OMEGA**2 * 1e-2 * (1.1**3 - 0.1**3) / 3.0, rel=1e-2)


@pytest.mark.parametrize("E, I", [(1e4, 1e-6), (1e6, 1e-6), (1e7, 1e-6), (1e8, 1e-6), (1e8, 1e-10)],
                         ids=["E1e4", "E1e6", "E1e7", "E1e8", "E1e8-soft-EI"])
def test_stiff_tethered_spin_runs_without_cutbacks_and_keeps_energy_at_round_off(E, I):
    """Before the fix the step stalled at a projected residual ~1e-11 (E = 1e6) to ~1e-9
    (E = 1e8) above the accepted floor and failed after cut-backs at t ≈ 0.5, 0.12, 0.03 s
    for E = 1e6, 1e7, 1e8. The last case has EA/EI = 1e10 (stiff stretch, soft bending)."""
    res = solve_dynamic(tethered_beam(E, I), DT, 0.5, DynamicSettings(mass="lumped"))
    check_run(res, 0.5)


class _Recorder:
    """The step system with the norms of the applied Newton corrections recorded."""

    def __init__(self, system):
        self._system = system
        self.corrections = []

    def __getattr__(self, name):
        return getattr(self._system, name)

    def apply(self, z, dz):
        self.corrections.append(float(np.linalg.norm(dz)))
        return self._system.apply(z, dz)


def turned_spin(prob, model, angle):
    """(u, v) of the tethered beam turned rigidly by ``angle`` (rad) about the ground point
    and spinning at ω: displacements of order 1, as after a fraction of a turn."""
    t = prob.table
    c, s = np.cos(angle), np.sin(angle)
    u, v = np.zeros(t.n_var), np.zeros(t.n_var)
    for node, (x, y) in enumerate(model.mesh.points[:, :2]):
        xr, yr = c * x - s * y, s * x + c * y
        u[t.var_of(node, "ux")], u[t.var_of(node, "uy")], u[t.var_of(node, "rz")] = xr - x, yr - y, angle
        v[t.var_of(node, "ux")], v[t.var_of(node, "uy")], v[t.var_of(node, "rz")] = -OMEGA * yr, OMEGA * xr, OMEGA
    return u, v


@pytest.mark.parametrize("E", [1e6, 1e8])
def test_projected_newton_converges_quadratically_down_to_the_rounding_of_the_positions(E):
    """One step from a rigid spin turned by 1.2 rad (nodal displacements up to 1.4): the
    corrections contract quadratically (|δz_{k+1}| ≤ 100 |δz_k|² per unit length; the
    geometric constant is of order 1/l0 = 8) until they reach round-off, where the state
    is accepted; the accepted residual lies under the rounding floor ε·‖|K| |u_{n+1}|‖ of a
    residual evaluated at absolute positions, which is above the force tolerance (1e-12 of
    the step's force scale): the tolerance alone cannot be met."""
    model = tethered_beam(E)
    prob = DynamicProblem(model, mass="lumped")
    prob.dt_hint = DT
    u, v = turned_spin(prob, model, 1.2)
    scheme = MidPoint()
    system = _Recorder(scheme.system(prob, scheme.start(prob, 0.0, u, v), DT))
    system.multipliers_guess = np.array([1e-2 * OMEGA**2 * 0.6])
    settings = NewtonSettings(tolerance=1e-12, increment_tolerance=1e-13, max_iterations=25)
    report = projected_newton(system.evaluate, system, system.z0, settings, None, prob.length_scale)
    assert report.converged and report.iterations <= 4
    assert report.reason == "converged (correction at round-off)"
    d = system.corrections
    assert len(d) >= 3
    for dk, dk1 in zip(d, d[1:]):
        if dk1 > 1e-14:  # above round-off
            assert np.all(np.asarray(dk * dk) > 0)  # a zero scale would let an all-zero output pass
            assert dk1 <= 100.0 * dk * dk
    assert d[-1] <= 1e-13 * system.size(report.state)
    r, K, scale = system.evaluate(report.state)
    u1 = system.configuration(report.state)[system.eq_var]
    floor = np.finfo(float).eps * np.linalg.norm(abs(K) @ np.abs(u1))
    assert 1e-12 * scale < report.residual_history[-1] <= floor
    assert report.constraint_residual <= 1e-12
    # the multiplier is the tether tension, near the centripetal force of the rigid spin m ω² x_G
    # (the beam starts unstretched: its axial vibration changes it by ~2 % at E = 1e6)
    assert report.multipliers[0] == pytest.approx(1e-2 * OMEGA**2 * 0.6, rel=3e-2)


def test_stiff_beam3d_on_a_spherical_pivot_spins_without_cutbacks():
    """The 3-D analogue (femb.solvers.dynamics.midpoint3d): a beam3d of EA = 1e6, EI = 100 spinning
    at ω = 3 rad/s about a spherical joint to ground at its end. Before the fix the
    projected Newton stalled at ~1e-9 on steps from t ≈ 0.2 s (5-7 iterations, up to 24)."""
    model = Model(line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 8, "beam"), dim=3)
    E, A, I = 1e8, 1e-2, 1e-6
    model.add_part("beam", "beam3d", "beam", values={"EA": E * A, "GJ": 0.77 * E * I, "EIy": E * I, "EIz": E * I,
                                                     "rhoA": A, "rhoIp": 2 * I, "rhoIy": I, "rhoIz": I})
    model.joint3d("spherical", "beam_start", None, name="pivot")
    model.initial_rigid_velocity(omega=(0.0, 0.0, OMEGA), center=(0.0, 0.0, 0.0))
    res = solve_dynamic(model, DT, 0.3, DynamicSettings(mass="lumped"))
    kinetic = res.series("kinetic_energy")
    assert res.times[-1] == pytest.approx(0.3)
    assert np.sum(res.series("cutbacks")) == 0
    assert np.max(res.series("iterations")) <= 4
    assert np.all(np.asarray(kinetic.max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(res.series("energy_residual")).max() <= 1e-12 * kinetic.max()
    assert res.series("constraint_residual").max() <= 1e-12
