"""Lie-group generalized-α (Newmark, HHT, generalized-α) for models with 3-D rotations
(femb.solvers.dynamics.alpha3d).

What theory says and the tests check:

- order two in time for γ = ½ + α_f − α_m (Chung & Hulbert; Arnold & Brüls 2007 for the
  Lie-group form): halving the step divides the error by 4 (rigid body, flexible beam, a
  pendulum on a joint);
- on a linear problem (a rigid body on a torsion spring turning about a fixed axis, where
  the rotation update is exactly additive) the scheme is the vector-space one: the
  trapezoidal rule (Newmark β = ¼, γ = ½, ρ∞ = 1) keeps the energy exactly, ρ∞ < 1 damps a
  stiff mode (Ωh ≫ 1) by the spectral radius of the method's amplification matrix per step;
- linear momentum in free flight: Σ M v̇_{n+1} = 0 each step gives Σ M a_{n+1} =
  −α_m/(1 − α_m) Σ M a_n, so momentum is exact once Σ M a vanishes (α_m = 0: from the first
  force-free step; α_m ≠ 0: its changes decay by |α_m/(1 − α_m)| per step);
- joints hold at position level at the end of every step (index 3);
- the mid-point scheme and the α schemes agree to their O(h²) errors (spin-up B, 3-D).
"""
import logging

import numpy as np
import pytest

from femb.mesh import Mesh, line_mesh
from femb.model import Model
from femb.solvers import HHT, GeneralizedAlpha, Newmark, solve_dynamic

SCHEMES = [Newmark(), GeneralizedAlpha(rho_inf=0.8), HHT(alpha=-0.3)]
IDS = ["newmark", "genalpha-0.8", "hht-0.3"]


def rigid_body(**inertia):
    mesh = Mesh(np.array([[0.3, 0.2, 0.1]]), {}, {"c": [0]})
    model = Model(mesh, dim=3, name="rigid body")
    model.add_discrete("body", "rigid_body3d", "c", m=2.0, **inertia)
    return model


def rotations(res):
    return np.asarray(res.arrays["rotations"])


def rates(errors):
    e = np.asarray(errors)
    return e[:-1] / e[1:]


@pytest.mark.parametrize("scheme", SCHEMES, ids=IDS)
def test_tumbling_rigid_body_converges_at_second_order(scheme):
    """Asymmetric free body (J = 1, 2, 3.5 with a product of inertia) spun near its middle
    axis, 2 s: errors of R and ω at the end against the mid-point scheme at Δt = 1.25e-3
    (its own O(h²) error is 1/64 of the α error at the smallest step) fall by 4 ± 0.4 per
    halving."""
    model = rigid_body(Jxx=1.0, Jyy=2.0, Jzz=3.5, Jxy=0.1)
    model.initial_velocity("c", rx=0.05, ry=1.8, rz=0.1)
    ref = solve_dynamic(model, 1.25e-3, 2.0, record_every=10**9)
    errs = []
    for dt in (0.04, 0.02, 0.01):
        res = solve_dynamic(model, dt, 2.0, scheme=scheme, record_every=10**9)
        errs.append([np.abs(rotations(res)[-1] - rotations(ref)[-1]).max(), np.abs(res.final[3:6] - ref.final[3:6]).max()])
        assert res.info["newton_iterations"] / res.info["steps"] <= 3  # quadratic Newton on the exact matrix
    r = rates(errs)
    assert np.all(np.abs(r - 4.0) <= 0.4), r


def free_beam():
    """A soft skew free beam3d (all modes resolved by the steps below), tumbling and bending."""
    model = Model(line_mesh((0.0, 0.0, 0.0), (2.0, 0.3, 0.2), 3, "b"), dim=3, name="free beam")
    model.add_part("b", "beam3d", "b", values={"EA": 50.0, "GJ": 3.0, "EIy": 4.0, "EIz": 5.0, "rhoA": 1.0,
                                               "rhoIp": 0.2, "rhoIy": 0.1, "rhoIz": 0.12})
    model.initial_rigid_velocity(omega=(0.5, -0.4, 1.0), center=(1.0, 0.0, 0.0))
    model.initial_velocity("b_end", uz=1.0)
    return model


@pytest.mark.parametrize("scheme", SCHEMES[:2], ids=IDS[:2])
def test_flexible_beam_trajectory_converges_at_second_order(scheme):
    """Soft free beam, 0.4 s: the error of the final state against the mid-point scheme at
    Δt/8 of the smallest step falls as Δt² (fitted slope 2 ± 0.2)."""
    model = free_beam()
    ref = solve_dynamic(model, 0.0025 / 8, 0.4, record_every=10**9).final
    dts = np.array([0.02, 0.01, 0.005, 0.0025])
    err = [np.abs(solve_dynamic(model, dt, 0.4, scheme=scheme, record_every=10**9).final - ref).max() for dt in dts]
    slope = np.polyfit(np.log(dts), np.log(err), 1)[0]
    assert abs(slope - 2.0) <= 0.2, (slope, err)


def spring_body(k=1e4, J=1.0):
    """A rigid body (J = 1) on an isotropic torsion spring to ground, translations fixed,
    turning about z: J θ̈ + k θ = 0 exactly (Ω = 100 rad/s)."""
    mesh = Mesh(np.array([[0.3, 0.2, 0.1]]), {}, {"c": [0]})
    model = Model(mesh, dim=3, name="torsion oscillator")
    model.add_discrete("body", "rigid_body3d", "c", m=2.0, Jxx=J, Jyy=J, Jzz=J)
    model.add_discrete("spring", "rotational_spring3d_ground", "c", k=k)
    model.fix("c", ("ux", "uy", "uz"))
    model.initial_velocity("c", rz=0.01)
    return model


def linear_map(scheme, omega_h):
    """The α method's one-step map T (4, 4) of ẍ + Ω²x = 0 in the state y = (x, v, a, v̇)
    (h = 1): x' = x + v + (½ − β) a + β a', v' = v + (1 − γ) a + γ a',
    (1 − α_m) a' + α_m a = (1 − α_f) v̇' + α_f v̇, v̇' = −Ω² x'."""
    am, af, b, g = scheme.alpha_m, scheme.alpha_f, scheme.beta, scheme.gamma
    A = np.array([[1.0, 0.0, -b, 0.0], [0.0, 1.0, -g, 0.0], [0.0, 0.0, 1.0 - am, -(1.0 - af)], [omega_h ** 2, 0.0, 0.0, 1.0]])
    B = np.array([[1.0, 1.0, 0.5 - b, 0.0], [0.0, 1.0, 1.0 - g, 0.0], [0.0, 0.0, -am, af], [0.0, 0.0, 0.0, 0.0]])
    return np.linalg.solve(A, B)


@pytest.mark.parametrize("scheme, rho_inf", [(GeneralizedAlpha(rho_inf=0.8), 0.8), (GeneralizedAlpha(rho_inf=0.5), 0.5),
                                             (HHT(alpha=-0.3), 0.7 / 1.3)], ids=["genalpha-0.8", "genalpha-0.5", "hht-0.3"])
def test_stiff_mode_is_damped_as_the_linear_alpha_method(scheme, rho_inf):
    """Ωh = 100 (h = 1 s): about a fixed axis the Lie-group step is the vector-space α
    method, so the energies of 20 steps equal those of its one-step map T (to 1e-10 of
    E0); the mode decays by the spectral radius ρ(T) per step: ρ(T) within 0.05 of ρ∞
    (HHT: ρ∞ = (1 + α)/(1 − α)) and the energy over steps 10..20 falls at least by ρ(T)²
    per step (1 %)."""
    res = solve_dynamic(spring_body(), 1.0, 20.0, scheme=scheme)
    E = res.series("total_energy")
    T = linear_map(scheme, 100.0)
    y = np.array([0.0, 0.01, 0.0, 0.0])  # θ, ω, a, ω̇ at the start (ω̇_0 = 0 at θ = 0)
    E_lin = []
    for _ in range(E.size):
        E_lin.append(0.5 * y[1] ** 2 + 0.5 * 1e4 * y[0] ** 2)
        y = T @ y
    assert E[0] > 0
    assert np.abs(E - np.array(E_lin)).max() <= 1e-10 * E[0]
    rho = float(np.abs(np.linalg.eigvals(T)).max())
    assert abs(rho - rho_inf) <= 0.05, (rho, rho_inf)
    measured = (E[20] / E[10]) ** (1.0 / 20.0)
    assert measured <= 1.01 * rho, (measured, rho)


def test_trapezoidal_rule_keeps_the_energy_of_a_linear_problem():
    """Newmark (β = ¼, γ = ½), equivalently generalized-α with ρ∞ = 1: the energy of the
    linear torsion oscillator is exact at Ωh = 100 and at Ωh = 0.5 (1e-10 relative)."""
    for scheme in (Newmark(), GeneralizedAlpha(rho_inf=1.0)):
        for dt in (1.0, 0.005):
            E = solve_dynamic(spring_body(), dt, 40 * dt, scheme=scheme).series("total_energy")
            assert E[0] > 0
            assert np.abs(E - E[0]).max() <= 1e-10 * E[0]


def pulse(t, t1=0.5):
    return np.sin(np.pi * t / t1) ** 2 if t < t1 else 0.0


def pulsed_free_beam(n=4):
    """The free-flight-3d beam (validation): free skew beam3d hit by a force/moment pulse
    during 0 ≤ t ≤ 0.5 s, then free."""
    model = Model(line_mesh((0.0, 0.0, 0.0), (2.0, 0.3, 0.2), n, "b"), dim=3, name="free-flying beam")
    model.add_part("b", "beam3d", "b", values={"EA": 1e4, "GJ": 8.0, "EIy": 10.0, "EIz": 12.0, "rhoA": 1.0,
                                               "rhoIp": 0.02, "rhoIy": 0.01, "rhoIz": 0.012})
    model.initial_rigid_velocity(velocity=(0.3, -0.2, 0.1), omega=(0.2, -0.3, 0.8), center=(0.5, -0.2, 0.1))
    model.initial_velocity("b_end", ux=0.2, uy=-0.1, uz=0.1)
    model.point_load("b_end", amplitude=pulse, fy=3.0, fz=-2.0, mx=1.0)
    return model


def linear_momentum(res):
    return np.column_stack([res.series(f"linear_momentum_{c}") for c in "xyz"])


@pytest.mark.parametrize("scheme", SCHEMES, ids=IDS)
def test_linear_momentum_after_a_pulse_follows_the_theory(scheme):
    """free-flight-3d, Δt = 0.05 s: after the pulse (F(t_n) = 0 from t_n = 0.5 s) the
    momentum changes by h Σ M((1 − γ) a_n + γ a_{n+1}) per step. Newmark (a = v̇): exact
    (1e-12) from the first free step; HHT (α_m = 0, a_{n+1} = (1 − α_f) v̇_{n+1} + α_f v̇_n):
    from the second; ρ∞ = 0.8 (α_m = 1/3): the changes decay by α_m/(1 − α_m) = ½ per
    step (to 1 %) down to round-off."""
    dt = 0.05
    res = solve_dynamic(pulsed_free_beam(), dt, 1.5, scheme=scheme)
    t, p = np.asarray(res.times), linear_momentum(res)
    i0 = int(np.flatnonzero(t >= 0.5 - 1e-9)[0])
    scale = np.linalg.norm(p[i0])
    dp = np.linalg.norm(np.diff(p[i0:], axis=0), axis=1)
    if scheme.alpha_m == 0.0:
        first = 0 if scheme.alpha_f == 0.0 else 1
        assert dp[first:].max() <= 1e-12 * scale
        assert dp[0] > 1e-6 * scale or first == 0  # HHT: the first free step still carries α_f v̇_n
    else:
        ratio = abs(scheme.alpha_m / (1.0 - scheme.alpha_m))
        big = dp > 1e-9 * scale
        assert big.sum() >= 5  # enough steps above round-off to see the decay
        k = np.flatnonzero(big)
        k = k[k + 1 < dp.size][:5]
        assert np.allclose(dp[k + 1] / dp[k], ratio, rtol=0.01), dp[: k.max() + 2]


@pytest.mark.parametrize("scheme", SCHEMES, ids=IDS)
def test_unforced_free_flight_keeps_linear_momentum_and_bounds_energy(scheme):
    """The same beam without the pulse, 200 steps of Δt = 0.01 s (the highest axial mode
    is not resolved, Δt ≈ 0.6 of its period): linear momentum exact (Σ M a_0 = 0, 1e-12);
    the trapezoidal rule keeps the energy within 1 % (for a nonlinear problem it neither
    conserves nor bounds it in theory: measured ±1.3e-3), the dissipative schemes never
    gain energy (1e-4) and remove part of the unresolved vibration."""
    model = pulsed_free_beam()
    model.loads.clear()
    res = solve_dynamic(model, 0.01, 2.0, scheme=scheme)
    p = linear_momentum(res)
    assert np.abs(p - p[0]).max() <= 1e-12 * np.linalg.norm(p[0])
    E = res.series("total_energy")
    assert E[0] > 0
    if scheme.alpha_f or scheme.alpha_m:  # they damp the unresolved vibration (measured: 6.5 % at ρ∞ = 0.8, 10 % HHT)
        assert np.all(E <= E[0] * (1.0 + 1e-4))
    else:
        assert np.abs(E - E[0]).max() <= 1e-2 * E[0]
    assert E[-1] > 0.5 * E[0]  # no collapse: the rigid motion keeps most of the energy


def pendulum(kind):
    """A rigid body (centre (1, 0, 0.2)) on a joint of ``kind`` (skew axis) to ground at the
    origin under gravity, thrown and spinning."""
    axis = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
    mesh = Mesh(np.array([[1.0, 0.0, 0.2]]), {}, {"c": [0]})
    model = Model(mesh, dim=3, name=f"{kind} pendulum")
    model.add_discrete("body", "rigid_body3d", "c", m=2.0, Jxx=0.1, Jyy=0.3, Jzz=0.35, Jxy=0.02)
    model.joint3d(kind, "c", None, axis=axis, point=(0.0, 0.0, 0.0), name="pivot")
    model.gravity((0.0, 0.0, -9.81))
    model.initial_velocity("c", uz=-3.0, ux=1.0, rx=0.5)
    return model


@pytest.mark.parametrize("kind", ["revolute", "spherical", "cylindrical"])
def test_pendulum_on_a_joint_holds_it_and_converges_at_second_order(kind, caplog):
    """Generalized-α (ρ∞ = 0.8), 1 s: |Φ| ≤ 1e-10 at every step (index 3, solved at position
    level) and the final state converges at order two against the mid-point scheme at
    Δt = 5e-4 (error ratios 4 ± 0.4)."""
    caplog.set_level(logging.ERROR)  # the thrown body's velocity is projected onto the joint
    ref = solve_dynamic(pendulum(kind), 5e-4, 1.0, record_every=10**9).final
    errs = []
    for dt in (0.04, 0.02, 0.01):
        res = solve_dynamic(pendulum(kind), dt, 1.0, scheme=GeneralizedAlpha(rho_inf=0.8))
        assert res.series("constraint_residual").max() <= 1e-10
        errs.append(np.abs(res.final - ref).max())
    r = rates(errs)
    assert np.all(np.abs(r - 4.0) <= 0.4), r


def test_spin_up_b_3d_mid_point_and_alpha_agree_to_their_second_order_error():
    """validation/meijaard-spinup-b-3d, first 4 s (the lag builds up): the tip deflection in
    the rotating frame of generalized-α (ρ∞ = 0.9) and of the mid-point scheme differ by
    d(h) with d(0.02)/d(0.01) = 4 ± 0.8 (both O(h²)), and by less than 1 % of the
    deflection at Δt = 0.01 s."""
    from femb.validation.dynamic3d_cases import _tip_in_rotating_frame, spin_up_beam_3d
    from femb.validation.models import spin_up_angle

    model = spin_up_beam_3d(8)
    theta = spin_up_angle(model.info["omega"], model.info["T"])
    d, w_mid = [], None
    for dt in (0.02, 0.01):
        w_mid = _tip_in_rotating_frame(solve_dynamic(model, dt, 4.0, record_every=int(round(0.2 / dt))), theta)[0]
        w_alpha = _tip_in_rotating_frame(solve_dynamic(model, dt, 4.0, scheme=GeneralizedAlpha(rho_inf=0.9),
                                                       record_every=int(round(0.2 / dt))), theta)[0]
        d.append(np.abs(w_alpha - w_mid).max())
    assert np.abs(w_mid).max() > 0.05  # a real lag
    assert abs(d[0] / d[1] - 4.0) <= 0.8, d
    assert d[1] <= 0.01 * np.abs(w_mid).max()


def test_driven_hub_work_is_booked():
    """A beam clamped to a hub whose rotation about z is prescribed (θ = t²/2): the root
    follows it exactly, and the energy balance with the work of the hub moment closes
    to the scheme's O(h²) error (generalized-α, 1e-3 of the energy at Δt = 0.01 s)."""
    model = Model(line_mesh((0.0, 0.0, 0.0), (2.0, 0.0, 0.0), 4, "b"), dim=3, name="hub")
    model.add_part("b", "beam3d", "b", values={"EA": 1e5, "GJ": 8.0, "EIy": 10.0, "EIz": 12.0, "rhoA": 1.0,
                                               "rhoIp": 0.02, "rhoIy": 0.01, "rhoIz": 0.012})
    model.fix("b_start", ("ux", "uy", "uz", "rx", "ry"))
    model.prescribe("b_start", "rz", function=lambda t: 0.5 * t * t)
    res = solve_dynamic(model, 0.01, 1.0, scheme=GeneralizedAlpha(rho_inf=0.8))
    R = rotations(res)
    root = int(model.nodes("b_start")[0])
    ang = np.arctan2(R[:, root, 1, 0], R[:, root, 0, 0])
    assert np.allclose(ang, [0.5 * t * t for t in res.times], atol=1e-12)
    W = res.series("constraint_work")[-1]
    assert W > 0.1
    assert np.abs(res.series("energy_residual")).max() <= 1e-3 * W


def test_case_file_runs_the_spatial_arm_with_generalized_alpha(tmp_path):
    """examples/spatial_arm.toml (hub driven about z, revolute and universal joints with
    spring-dampers, beam3d links, rigid bodies, started from the static sag) with
    ``scheme = "generalized-alpha"`` in its dynamic step, smoke mode: the joints hold to
    1e-10, the energy balance (drive work, damper dissipation) closes to the scheme's
    O(h²) error (1e-4 of the largest kinetic energy) and the tip follows the mid-point
    run to 1e-6 m."""
    from femb.case import load_case
    from tests.io.conftest import EXAMPLES

    text = (EXAMPLES / "spatial_arm.toml").read_text()
    assert 'mass = "lumped"\nrecord_every = 4' in text
    runs = {}
    for scheme in ("midpoint", "generalized-alpha"):
        case_file = tmp_path / f"arm_{scheme}.toml"
        case_file.write_text(text.replace('mass = "lumped"\nrecord_every = 4',
                                          f'mass = "lumped"\nrecord_every = 4\nscheme = "{scheme}"'))
        runs[scheme] = load_case(case_file, smoke=True).run(tmp_path / scheme, progress=False)[1]
    res = runs["generalized-alpha"]
    assert res.info["scheme"] == "generalized-alpha"
    assert res.series("constraint_residual").max() <= 1e-10
    kmax = res.series("kinetic_energy").max()
    assert kmax > 0
    assert np.abs(res.series("energy_residual")).max() <= 1e-4 * kmax
    for probe in ("tip_ux", "tip_uy", "tip_uz"):
        assert np.abs(res.series(probe) - runs["midpoint"].series(probe)).max() <= 1e-6


def test_a_run_continued_from_its_checkpointed_state_is_the_uninterrupted_run(caplog):
    """The Lie-group α state (rotations, momenta, pseudo- and true accelerations, reactions,
    multipliers) survives a checkpoint (femb.case.segments.state_arrays/state_from_arrays):
    a revolute pendulum run in two segments ends where the run in one does (1e-14)."""
    from femb.case.segments import CarriedScheme, state_arrays, state_from_arrays

    caplog.set_level(logging.ERROR)
    full = solve_dynamic(pendulum("revolute"), 0.02, 0.4, scheme=GeneralizedAlpha(rho_inf=0.8))
    carried = CarriedScheme(GeneralizedAlpha(rho_inf=0.8))
    solve_dynamic(pendulum("revolute"), 0.02, 0.2, scheme=carried.scheme)
    carried.state = state_from_arrays(*state_arrays(carried.state))
    second = solve_dynamic(pendulum("revolute"), 0.02, 0.4, t0=0.2, u0=carried.state.u, v0=carried.state.v, scheme=carried.scheme)
    assert np.abs(second.final - full.final).max() <= 1e-14
