"""solve_dynamic beyond the conservative case: the baseline schemes (Newmark, HHT,
generalized-α), damping, time-dependent loads, prescribed motions, ties, discrete
elements, mass kinds, Newton options, cut-back and errors."""
import numpy as np
import pytest

from femb.core.errors import ConvergenceError, ModelError
from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers import HHT, DirectCorrection, DynamicSettings, GeneralizedAlpha, MidPoint, Newmark, Rayleigh, solve_dynamic
from femb.solvers.nonlinear.newton import NewtonSettings
from tests.solvers.dynamic_models import chain, pendulum_under_constant_loads


def cantilever(n=8):
    """A clamped beam given a small tip velocity: nearly linear vibration."""
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), n, "b"))
    model.add_part("b", "beam2d", "b", values={"EA": 1e4, "EI": 1.0, "rhoA": 1.0, "rhoI": 1e-4})
    model.fix("b_start")
    model.initial_velocity("b_end", uy=1e-4)
    return model


def relative_energy_change(res):
    E = res.series("total_energy")
    return (E - E[0]) / E[0]


def test_newmark_conserves_a_linear_vibration_and_the_alpha_schemes_dissipate():
    """Trapezoidal rule: no numerical damping for (nearly) linear problems; HHT and
    generalized-α damp the unresolved high modes (energy only decreases)."""
    dE = {}
    for scheme in (Newmark(), HHT(-0.1), GeneralizedAlpha(0.5), MidPoint()):
        res = solve_dynamic(cantilever(), 0.01, 5.0, scheme=scheme, mass="invariant")
        dE[scheme.name] = relative_energy_change(res)
    assert np.abs(dE["newmark"]).max() < 1e-8
    assert np.abs(dE["midpoint"]).max() < 1e-10
    for name in ("hht", "generalized-alpha"):
        assert dE[name][-1] < -0.2, name
        assert dE[name].max() < 1e-6, name


def test_generalized_alpha_parameters():
    ga = GeneralizedAlpha(rho_inf=1.0)  # no dissipation: the trapezoidal rule
    assert (ga.alpha_m, ga.alpha_f, ga.beta, ga.gamma) == pytest.approx((0.5, 0.5, 0.25, 0.5))
    ga = GeneralizedAlpha(rho_inf=0.0)  # asymptotic annihilation
    assert (ga.alpha_m, ga.alpha_f) == pytest.approx((-1.0, 0.0))
    hht = HHT(-0.3)
    assert (hht.alpha_f, hht.gamma, hht.beta) == pytest.approx((0.3, 0.8, 0.4225))
    with pytest.raises(ValueError):
        HHT(0.1)
    with pytest.raises(ValueError):
        GeneralizedAlpha(rho_inf=1.5)


@pytest.mark.parametrize("scheme", [Newmark(), HHT(-0.1), GeneralizedAlpha(0.8)], ids=lambda s: s.name)
def test_baselines_converge_at_second_order(scheme):
    model = pendulum_under_constant_loads("beam2d", EA=50.0, EI=5.0, rhoA=1.0, rhoI=1.0)
    dts = np.array([0.02, 0.01, 0.005, 0.0025])
    run = lambda dt: solve_dynamic(model, dt, 0.4, scheme=scheme, record_every=10**9).final
    ref = run(dts[-1] / 8)
    err = np.array([np.abs(run(dt) - ref).max() for dt in dts])
    slope = np.polyfit(np.log(dts), np.log(err), 1)[0]
    assert abs(slope - 2.0) <= 0.2, (slope, err)


@pytest.mark.parametrize("scheme", ["midpoint", "newmark"])
def test_rayleigh_damping_is_booked_in_the_energy_balance(scheme):
    model = pendulum_under_constant_loads("beam2d", EA=1e4, EI=20.0)
    res = solve_dynamic(model, 0.01, 2.0, scheme=scheme, damping=Rayleigh(alpha=0.2, beta=2e-3), mass="invariant")
    D = res.series("dissipated_energy")
    E = res.series("total_energy")
    scale = res.series("kinetic_energy").max()
    assert D[-1] > 0.05 * scale and np.all(np.diff(D) >= 0)
    tol = 1e-9 if scheme == "midpoint" else 1e-2  # the trapezoidal bookkeeping is approximate
    assert np.abs(res.series("energy_residual")).max() < tol * scale
    assert E[-1] - E[0] == pytest.approx(-D[-1], rel=10 * tol)


def spinning_beam(EA=1e10):
    model = chain("beam2d", n=4, length=10.0, angle=0.0, EA=EA, EI=1e4, rhoA=1.0, rhoI=0.01)
    model.initial_rigid_velocity(omega=1.0, center=(5.0, 0.0))
    return model


def test_stiffness_proportional_damping_does_not_damp_a_rigid_spin():
    """β·K_mat is evaluated at the mid-point and uses the Cayley increments: a rigid
    rotation has no strain rate, at any step size (what is dissipated, ~1e-9 E0, is the
    physical centrifugal stretch vibration; a stiffness-proportional damping on the
    reference configuration would resist the spin with forces ~β·EA). α·M damps every
    velocity."""
    for dt in (0.1, 1.0):
        res = solve_dynamic(spinning_beam(), dt, 20 * dt, damping=Rayleigh(beta=1e-2))
        E0 = res.series("total_energy")[0]
        assert np.all(np.asarray(E0) > 0)  # a zero scale would let an all-zero output pass
        assert res.series("dissipated_energy")[-1] < 1e-6 * E0
    res = solve_dynamic(spinning_beam(), 0.1, 2.0, damping=Rayleigh(alpha=0.05))
    assert res.series("dissipated_energy")[-1] > 0.1 * res.series("total_energy")[0]


def test_time_dependent_loads_and_moments_close_the_work_balance():
    """Loads with amplitudes a(t) do work W = Σ f(t_½)·Δu (rotations: m Δθ through the
    Cayley factor); the energy residual stays at the Newton tolerance."""
    model = pendulum_under_constant_loads("beam2d_timoshenko", EA=1e4, EI=20.0)
    model.point_load("c_end", fy=3.0, mz=0.8, amplitude=lambda t: np.sin(3.0 * t))
    model.distributed_load("c", (0.4, 0.0), amplitude=lambda t: t)
    res = solve_dynamic(model, 0.02, 3.0)
    W = res.series("external_work")
    scale = res.series("kinetic_energy").max()
    assert np.abs(W).max() > 0.1 * scale
    assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(res.series("energy_residual")).max() < 1e-9 * scale
    assert np.ptp(res.series("total_energy")) > 0.1 * scale


def test_prescribed_rotation_is_followed_and_its_work_is_booked():
    """A beam driven at its root: rz(t) prescribed (a crank), translations pinned."""
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 4, "b"))
    model.add_part("b", "beam2d", "b", values={"EA": 1e4, "EI": 5.0, "rhoA": 1.0, "rhoI": 1e-3})
    model.fix("b_start", "translations")
    drive = lambda t: 2.0 * t + 0.3 * np.sin(5.0 * t)
    model.prescribe("b_start", "rz", function=drive)
    res = solve_dynamic(model, 0.01, 2.0, probes={"root": ("b_start", "rz"), "root_rate": ("b_start", "rz", "v")})
    t = np.array(res.times)
    assert np.allclose(res.series("root"), drive(t), atol=1e-14)
    assert np.allclose(res.series("root_rate"), 2.0 + 1.5 * np.cos(5.0 * t), atol=2e-3)
    Wc = res.series("constraint_work")
    assert Wc[-1] > 1.0  # the drive spins the beam up
    assert np.all(np.asarray(Wc[-1]) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(res.series("energy_residual")).max() < 1e-9 * Wc[-1]
    tip = res.table.var_of(model.node("b_end"), "rz")
    assert abs(res.final[tip] - drive(2.0)) < 0.5  # the (flexible) beam follows the drive


def test_pinned_parts_fly_freely_with_exact_momenta():
    """Two beams joined by a pin (a tie of translations in the correlation table)."""
    model = Model(line_mesh((0.0, 0.0), (2.0, 0.0), 4, "b"))
    mesh = model.mesh
    points = np.vstack([mesh.points, [[1.0, 0.0]]])
    conn = mesh.cells["b"].connectivity.copy()
    conn[2, 0] = points.shape[0] - 1  # second half starts at a new node on top of node 2
    from femb.mesh import CellBlock, Mesh

    mesh = Mesh(points, {"left": CellBlock("line", conn[:2]), "right": CellBlock("line", conn[2:])}, {"hinge_a": [2], "hinge_b": [5]})
    model = Model(mesh)
    for part in ("left", "right"):
        model.add_part(part, "beam2d", part, values={"EA": 1e5, "EI": 10.0, "rhoA": 1.0, "rhoI": 0.01})
    model.pin("hinge_a", "hinge_b")
    model.initial_rigid_velocity(omega=0.5, center=(0.3, 0.1))
    model.initial_velocity(0, uy=1.0)
    res = solve_dynamic(model, 0.05, 5.0)
    for name in ("total_energy", "angular_momentum", "linear_momentum_x", "linear_momentum_y"):
        s = res.series(name)
        assert np.abs(s - s[0]).max() <= 1e-10 * max(abs(s[0]), 1.0), name
    assert np.allclose(res.nodal_displacements()[2], res.nodal_displacements()[5], atol=0)
    rz = res.nodal_rotations()
    assert abs(rz[2] - rz[5]) > 1e-3  # the hinge lets the rotations differ


def test_discrete_masses_springs_and_dampers():
    """A rigid body on a central spring-damper to ground and a rotational spring: energy
    balance with the damper's dissipation."""
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 1, "link"))
    model.add_part("link", "beam2d", "link", values={"EA": 1e4, "EI": 5.0, "rhoA": 0.1, "rhoI": 1e-3})
    model.fix("link_start", "translations")
    model.add_discrete("body", "rigid_body2d", "link_end", m=2.0, J=0.1)
    model.add_discrete("torsion", "rotational_spring2d_ground", "link_start", k=3.0)
    model.gravity((0.0, -9.81))
    model.initial_velocity("link_end", uy=1.0, rz=4.0)
    res = solve_dynamic(model, 0.02, 4.0)
    E = res.series("total_energy")
    assert np.ptp(res.series("kinetic_energy")) > 1.0
    assert np.all(np.asarray(res.series("kinetic_energy").max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(E - E[0]).max() < 1e-9 * res.series("kinetic_energy").max()


def test_mass_kinds():
    truss = pendulum_under_constant_loads("truss2d", EA=1e4)
    for mass in ("lumped", "consistent", "invariant"):
        res = solve_dynamic(truss, 0.02, 1.0, mass=mass)
        E = res.series("total_energy")
        assert np.all(np.asarray(res.series("kinetic_energy").max()) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(E - E[0]).max() < 1e-9 * res.series("kinetic_energy").max(), mass
    beam = pendulum_under_constant_loads("beam2d")
    with pytest.raises(ModelError, match="part 'c'.*constant mass"):
        solve_dynamic(beam, 0.02, 1.0, mass="consistent")


def test_cut_back_rescues_a_step_and_gives_up_with_diagnostics():
    model = pendulum_under_constant_loads("beam2d", EA=1e5, EI=100.0)
    tight = DynamicSettings(newton=NewtonSettings(tolerance=1e-12, max_iterations=4, max_cutbacks=6))
    res = solve_dynamic(model, 0.2, 4.0, tight)
    assert res.info["cutbacks"] > 0
    assert res.times[-1] == pytest.approx(4.0, abs=1e-12) and len(res) == 21
    E = res.series("total_energy")
    assert np.all(np.asarray(res.series("kinetic_energy").max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(E - E[0]).max() < 1e-9 * res.series("kinetic_energy").max()
    hopeless = DynamicSettings(newton=NewtonSettings(tolerance=1e-12, max_iterations=1, max_cutbacks=1), max_turn=None)
    with pytest.raises(ConvergenceError) as info:
        solve_dynamic(model, 0.2, 4.0, hopeless)
    assert info.value.results is not None and len(info.value.results) >= 1
    assert info.value.residual_history and info.value.worst_dofs


class CountingCorrection(DirectCorrection):
    """A solve_correction that counts factorizations (and can force the sparse path)."""

    def __init__(self, table=None, dense_limit=400):
        super().__init__(table)
        self.dense_limit = dense_limit
        self.factorizations = 0

    def __call__(self, K, r):
        self.factorizations += K is not None
        return super().__call__(K, r)


def test_modified_newton_and_a_replaceable_correction_solver():
    model = pendulum_under_constant_loads("beam2d", EA=1e4, EI=20.0)
    full = CountingCorrection()
    ref = solve_dynamic(model, 0.01, 1.0, solve_correction=full)
    modified = CountingCorrection(dense_limit=0)  # sparse LU path
    settings = DynamicSettings(newton=NewtonSettings(tolerance=1e-12, max_iterations=60, modified=True, refactor_ratio=0.5))
    res = solve_dynamic(model, 0.01, 1.0, settings, solve_correction=modified)
    assert modified.factorizations < 0.5 * full.factorizations
    assert np.all(np.asarray(np.abs(ref.final).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(res.final - ref.final).max() < 1e-8 * np.abs(ref.final).max()
    E = res.series("total_energy")
    assert np.all(np.asarray(res.series("kinetic_energy").max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(E - E[0]).max() < 1e-9 * res.series("kinetic_energy").max()


def test_invalid_time_arguments():
    with pytest.raises(Exception, match="dt > 0"):
        solve_dynamic(cantilever(2), 0.0, 1.0)
    with pytest.raises(ValueError, match="unknown time-integration scheme"):
        solve_dynamic(cantilever(2), 0.1, 1.0, scheme="euler")
