"""The spatial two-link arm example (examples/spatial_arm.toml and its Python twin): the
case file and the script give the same static sag and the same trajectory, the sag equals
the hand value of three Euler–Bernoulli cantilevers in series, the spin-up starts at rest
from the sagged equilibrium (and stays in it until the hub turns), and it keeps the exact
energy balance (drive work and damper dissipation included) with the joints held."""
import importlib.util
import math

import numpy as np
import pytest

from femb.case import load_case
from femb.export import read_pvd
from femb.solvers import solve_static
from tests.io.conftest import EXAMPLES


@pytest.fixture(scope="module")
def arm():
    spec = importlib.util.spec_from_file_location("example_spatial_arm", EXAMPLES / "spatial_arm.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def case_run(tmp_path_factory):
    """The case file in smoke mode: the full static step, 20 steps (0.1 s) of the spin-up."""
    out = tmp_path_factory.mktemp("spatial_arm")
    case = load_case(EXAMPLES / "spatial_arm.toml", smoke=True)
    return case, case.run(out, progress=False), out


def hand_tip_sag():
    """Tip sag (m) of the arm under gravity by hand: with the spring preloads equal to the
    gravity moments about the pins, the joints stay at their reference angles and the arm
    bends as a chain of Euler–Bernoulli cantilevers (steel bracket, link 1, link 2), each
    root turned and displaced by the one before, the 30 mm clevises rigid. Independent of
    the example's code: the data are restated here."""
    g, gap, m_p = 9.81, 0.03, 2.0

    def tube(D, t):
        d = D - 2 * t
        return math.pi / 4 * (D**2 - d**2), math.pi / 64 * (D**4 - d**4)

    (A1, I1), (A2, I2) = tube(0.05, 0.003), tube(0.04, 0.0025)
    q0, EI0 = 7850 * math.pi / 4 * 0.04**2 * g, 210e9 * math.pi / 64 * 0.04**4
    q1, q2, EI1, EI2 = 2700 * A1 * g, 2700 * A2 * g, 70e9 * I1, 70e9 * I2
    L0, L1, L2, P = 0.1, 1.0, 0.8, m_p * g
    W2 = q2 * L2 + P                     # shear at the elbow
    W1 = q1 * L1 + W2                    # shear at the shoulder
    M_e = q2 * L2**2 / 2 + P * L2        # moments about the pins
    M_s = q1 * L1**2 / 2 + q2 * L2 * (L1 + gap + L2 / 2) + P * (L1 + gap + L2)

    w, slope = 0.0, 0.0
    for L, EI, q, V, M in ((L0, EI0, q0, W1, M_s + W1 * gap), (L1, EI1, q1, W2, M_e + W2 * gap), (L2, EI2, q2, P, 0.0)):
        w += slope * L + V * L**3 / (3 * EI) + M * L**2 / (2 * EI) + q * L**4 / (8 * EI)
        slope += V * L**2 / (2 * EI) + M * L / EI + q * L**3 / (6 * EI)
        w += slope * gap if L != L2 else 0.0
    return w


def hand_spin_inertia(arm):
    """Moment of inertia (kg·m²) of hub, bracket, links and payload about the hub axis Z,
    by hand from the example's data (the 30 mm clevises massless)."""
    mu0 = 7850 * math.pi / 4 * 0.04**2
    mu1 = 2700 * math.pi / 4 * (0.05**2 - 0.044**2)
    mu2 = 2700 * math.pi / 4 * (0.04**2 - 0.035**2)
    rod = lambda mu, a, b: mu * (b**3 - a**3) / 3  # noqa: E731
    x1, x2 = 0.1 + 0.03, 0.1 + 0.03 + 1.0 + 0.03
    payload = 2.0 * (x2 + 0.8) ** 2 + 2.0 * (0.15**2 + 0.1**2) / 12
    return 0.025 + rod(mu0, 0.0, 0.1) + rod(mu1, x1, x1 + 1.0) + rod(mu2, x2, x2 + 0.8) + payload


def elbow_yaw_lag_at_peak(arm):
    """Moment (N·m) about the elbow pin of the inertial forces of link 2 and the payload at
    the peak hub acceleration 2Ω/T (t = T/2), the quasi-static load of the yaw spring."""
    r_c = 0.1 + 2 * 0.03 + 1.0                     # radius of the elbow pin
    mu2 = 2700 * math.pi / 4 * (0.04**2 - 0.035**2)
    return 2 * arm.OMEGA / arm.T * (mu2 * (r_c * 0.8**2 / 2 + 0.8**3 / 3) + 2.0 * (r_c + 0.8) * 0.8)


def test_static_sag_equals_the_cantilever_chain(case_run, arm):
    case, (static, _), _ = case_run
    tip = case.model.node("tip")
    sag = -static.dof(tip, "uz", -1)
    assert sag == pytest.approx(hand_tip_sag(), rel=0.01)  # measured 0.16 % (lumped gravity loads on 4 elements)
    # the preloads hold the arm: the joints stay at their reference angles
    assert np.abs(arm.joint_angles(static)[-1]).max() < 1e-5
    # the Python twin's static step is the case file's
    twin = solve_static(arm.build(), steps=2)
    assert np.allclose(np.array(twin.states), np.array(static.states), rtol=1e-10, atol=1e-14)


def test_case_file_and_twin_give_the_same_trajectory(case_run, arm):
    case, (static, dyn), out = case_run
    step = case.steps[1].settings
    assert (step.dt, step.settings.record_every, step.scheme["name"], step.settings.mass) == (arm.DT, arm.RECORD_EVERY, "midpoint", "lumped")
    assert step.initial_state == "sag"
    model = arm.build()
    twin = arm.run(model, t_end=dyn.times[-1], start=arm.sag(model))
    assert len(twin) == len(dyn) == 6
    assert np.allclose(np.array(dyn.states), np.array(twin.states), rtol=1e-10, atol=1e-13)
    assert np.allclose(np.array(dyn.velocities), np.array(twin.velocities), rtol=1e-9, atol=1e-10)
    assert dyn.series("constraint_residual").max() <= 1e-10
    # the spin-up starts at rest in the sag and stays there while the hub barely turns
    # (released straight, the tip would drop by 6 mm in these 0.1 s)
    assert np.allclose(dyn.states[0], static.states[-1], rtol=0, atol=1e-15)  # rotation vectors: log(exp(θ)) to round-off
    assert dyn.series("kinetic_energy")[0] == 0.0
    sag = static.dof(case.model.node("tip"), "uz", -1)
    assert sag < -5e-3  # the scale of the next bound (6.98 mm, checked against the hand value above)
    assert np.abs(dyn.series("tip_uz") - sag).max() <= 1e-6 * abs(sag)  # measured 2e-9
    # beams drawn as tube surfaces, probes in the history
    assert len(read_pvd(out / "results_surface.pvd")) == len(read_pvd(out / "results.pvd")) == 3 + 6
    header = (out / "history.csv").read_text().splitlines()[0].split(",")
    assert {"tip_ux", "tip_uy", "tip_uz", "hub_angle", "dissipated_energy", "constraint_work"} <= set(header)


def test_spin_up_energy_balance_and_joints(arm):
    """The whole 4 s (spin-up to 3 rad/s, then constant speed) at a coarse step: the
    mid-point scheme's balance is exact at any step size."""
    model = arm.build()
    res = arm.run(model, dt=0.02, record_every=10, start=arm.sag(model))
    residual, kmax, drive, dissipated = arm.energy_summary(res)
    ke_end = res.series("kinetic_energy")[-1]
    # the arm turning rigidly at Ω about Z: ½ I_z Ω² with I_z by hand (9.87 kg·m²; measured 0.2 % above: lumped mass, rotary inertia)
    assert ke_end == pytest.approx(0.5 * hand_spin_inertia(arm) * arm.OMEGA**2, rel=5e-3)
    assert kmax == pytest.approx(ke_end, rel=1e-3)  # no overshoot: the kinetic energy rises to its final value
    assert residual <= 1e-9 * kmax
    # the drive supplies the kinetic energy, the damping and the small change of strain and
    # gravity energy (the centrifugal lift, ~1e-5 J net)
    assert drive == pytest.approx(ke_end + dissipated, rel=1e-4)
    # the dampers take the quasi-static swing of the elbow yaw: θ(t) = −θ_p (1 − cos 2πt/T)/2
    # during the spin-up, θ_p = the lag at the peak hub acceleration (below), so
    # D = c_e ∫ θ̇² dt = c_e θ_p² π²/(2T) (the pitch dampers see only the 0.5 mm lift)
    theta_p = elbow_yaw_lag_at_peak(arm) / 800.0
    assert dissipated == pytest.approx(6.0 * theta_p**2 * math.pi**2 / (2 * arm.T), rel=0.2)  # measured 0.0028 J, by hand 0.0026 J
    assert res.series("constraint_residual").max() <= 1e-10
    # at constant speed the kinetic energy is that of the whole arm turning at Ω about Z,
    # ½ Ω L_z with L_z its angular momentum about Z
    ke, lz = res.series("kinetic_energy")[-1], res.series("angular_momentum_z")[-1]
    assert ke == pytest.approx(0.5 * arm.OMEGA * lz, rel=2e-3)
    # the quasi-static lag of the elbow yaw spring at the peak hub acceleration (t = T/2,
    # α = 2Ω/T): moment of the inertial forces of link 2 and payload about the elbow pin / k
    yaw = arm.joint_angles(res)[:, 2]
    t = np.asarray(res.times)
    moment = elbow_yaw_lag_at_peak(arm)
    assert yaw[np.argmin(np.abs(t - 1.0))] == pytest.approx(-moment / 800.0, rel=0.05)  # measured 1.1 %


def test_twin_script_writes_its_outputs(arm, tmp_path, capsys):
    out = arm.main(["--out", str(tmp_path), "--t-end", "0.1"])
    text = capsys.readouterr().out
    assert "energy balance" in text and "joint constraint residual" in text
    assert len(read_pvd(tmp_path / "results_surface.pvd")) == len(out["results"]) == 6
    table = np.loadtxt(tmp_path / "hub_frame.csv", delimiter=",", skiprows=1)
    assert table.shape == (6, 7)
    # the hub frame turns about Z: vertical and horizontal distance from the axis unchanged
    res = out["results"]
    x_tip = res.model.mesh.points[res.model.node("tip"), 0]
    assert np.allclose(table[:, 3], res.series("tip_uz"), rtol=0, atol=1e-15)
    assert np.allclose(np.hypot(x_tip + table[:, 1], table[:, 2]),
                       np.hypot(x_tip + res.series("tip_ux"), res.series("tip_uy")), rtol=1e-14)
