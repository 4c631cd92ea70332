"""Rayleigh damping C = αM + βK_mat in the dynamics of models with 3-D rotations.

What theory says and the tests check:

- a small free vibration in the first bending mode of a 3-D cantilever decays with the
  modal damping ratio ζ = α/(2ω) + βω/2 (ω from solve_modal, same lumped mass), measured by
  the logarithmic decrement of the tip's peaks (mid-point and α schemes);
- the mid-point step books the dissipation h v̄ᵀC̄v̄ of the same discrete velocities and
  matrices it applies: T + V − W + D is constant to round-off at any step size;
- β K_mat is the co-rotated material tangent, blind to rigid motion: a beam spinning and
  tumbling rigidly dissipates nothing (α, which damps every velocity, does);
- the iteration matrix of the Lie-group α step (damping terms included) equals the finite
  difference derivative of its residual with respect to the spatial spin corrections.
"""
import numpy as np
import pytest

from femb.mesh import Mesh, line_mesh, rectangle_mesh
from femb.model import Material, Model, Section
from femb.solvers import HHT, GeneralizedAlpha, MidPoint, Newmark, Rayleigh, solve_dynamic, solve_modal
from femb.solvers.dynamics.problem import DynamicProblem

BEAM3D = {"EA": 1e4, "GJ": 8.0, "EIy": 10.0, "EIz": 12.0, "rhoA": 1.0, "rhoIp": 0.02, "rhoIy": 0.01, "rhoIz": 0.012}


def cantilever(n=6, length=2.0):
    model = Model(line_mesh((0.0, 0.0, 0.0), (length, 0.0, 0.0), n, "b"), dim=3, name="cantilever")
    model.add_part("b", "beam3d", "b", values=BEAM3D)
    model.fix("b_start", ("ux", "uy", "uz", "rx", "ry", "rz"))
    return model


def log_decrement_ratio(y):
    """Damping ratio from the logarithmic decrement of the positive peaks of a sampled
    free decay y (peaks located by parabolic interpolation through three samples)."""
    y = np.asarray(y)
    peaks = []
    for i in range(1, y.size - 1):
        if y[i] > y[i - 1] and y[i] >= y[i + 1]:
            y0, y1, y2 = y[i - 1], y[i], y[i + 1]
            s = 0.5 * (y0 - y2) / (y0 - 2.0 * y1 + y2)
            peaks.append(y1 - 0.25 * (y0 - y2) * s)
    assert len(peaks) >= 3
    delta = np.log(peaks[0] / peaks[-1]) / (len(peaks) - 1)
    return delta / np.sqrt(4.0 * np.pi**2 + delta**2)


def first_mode():
    model = cantilever()
    modal = solve_modal(model, 2)
    tip = int(model.nodes("b_end")[0])
    dof = max(("uy", "uz"), key=lambda d: abs(modal.modes[0][modal.table.var_of(tip, d)]))
    return model, modal.omega[0], modal.modes[0], dof


@pytest.mark.parametrize("alpha, beta", [(0.05, 0.0), (0.0, 0.004), (0.02, 0.002)])
def test_first_bending_mode_decays_with_the_rayleigh_damping_ratio(alpha, beta):
    """Free vibration started with a small velocity in the first mode (ω = 2.729 rad/s):
    the logarithmic decrement over 4 periods of Δt = T/40 gives ζ within 2 % of
    α/(2ω) + βω/2 (measured 0.4 %: the mid-point rule's O((ωh)²) error); the energy balance
    including the dissipation closes to 1e-12 of the initial energy (measured 2.5e-14)."""
    model, w, mode, dof = first_mode()
    T = 2.0 * np.pi / w
    zeta = alpha / (2.0 * w) + beta * w / 2.0
    res = solve_dynamic(model, T / 40, 4 * T, damping=Rayleigh(alpha, beta), v0=1e-3 * mode, probes={"tip": ("b_end", dof)})
    measured = log_decrement_ratio(res.series("tip"))
    assert abs(measured / zeta - 1.0) < 0.02
    E0 = res.series("total_energy")[0]
    assert E0 > 0 and res.series("dissipated_energy")[-1] > 0.5 * E0 * (1 - np.exp(-2 * zeta * w * 4 * T))
    assert np.abs(res.series("energy_residual")).max() <= 1e-12 * E0


def test_energy_balance_with_dissipation_closes_at_large_amplitude_and_big_steps():
    """A cantilever whipped by a tip force and moment pulse (tip turns by up to 0.68 rad), with
    α and β damping: 120 steps of Δt = 0.05 keep T + V − W + D constant to 1e-10 of the
    peak energy, D grows every step, and the dampers take a real share (> 20 %) of the
    input work."""
    model = cantilever(n=6)
    model.point_load("b_end", amplitude=lambda t: np.sin(np.pi * t) ** 2 if t < 1.0 else 0.0, fy=3.0, fz=-2.0, mx=1.0)
    res = solve_dynamic(model, 0.05, 6.0, damping=Rayleigh(0.05, 0.01))
    E = np.asarray(res.series("total_energy"))
    D = np.asarray(res.series("dissipated_energy"))
    W = np.asarray(res.series("external_work"))
    assert E.max() > 0.0 and D[-1] > 0.2 * W[-1]
    R = np.asarray(res.arrays["rotations"])[-1]
    assert np.abs(res.series("energy_residual")).max() <= 1e-10 * E.max()
    assert np.all(np.diff(D) >= -1e-15 * E.max())  # h v̄ᵀ C̄ v̄ ≥ 0 every step
    assert np.isfinite(R).all()


def free_beam(stiffness=1.0, n=4, length=2.0):
    values = {**BEAM3D, **{k: stiffness * BEAM3D[k] for k in ("EA", "GJ", "EIy", "EIz")}}
    model = Model(line_mesh((0.0, 0.0, 0.0), (length, 0.3 * length / 2, 0.2 * length / 2), n, "b"), dim=3, name="free beam")
    model.add_part("b", "beam3d", "b", values=values)
    model.initial_rigid_velocity(velocity=(0.3, -0.2, 0.1), omega=(0.2, -0.3, 0.8), center=(0.5, -0.2, 0.1))
    return model


def test_tumbling_beam_dissipates_only_its_strain_vibration():
    """A free skew beam started with a rigid velocity (|ω| = 0.9 rad/s, 100 steps of
    Δt = 0.1, 9 rad of turn) and β = 0.5: centrifugal stretching excites small strain
    vibrations, which β damps; the rigid motion itself is not damped. So the dissipation
    falls as 1/stiffness (the strain energy of the centrifugal stretch): ×100 stiffness
    gives D/100 (within 1 %; measured ratio 99.96), where a damped rigid motion would give a
    D independent of (or growing with) the stiffness. The energy balance closes."""
    D = []
    for stiffness in (1.0, 100.0):
        res = solve_dynamic(free_beam(stiffness), 0.1, 10.0, damping=Rayleigh(0.0, 0.5))
        T0 = res.series("kinetic_energy")[0]
        assert T0 > 0.1
        assert np.abs(res.series("energy_residual")).max() <= 1e-9 * T0
        D.append(res.series("dissipated_energy")[-1])
    assert D[1] > 0.0
    assert abs(D[0] / D[1] / 100.0 - 1.0) < 0.01
    assert D[0] < 1e-4 * T0


def _rigid_velocity(problem, u, R, w, c):
    """Velocities (n_var,) of the infinitesimal rigid motion (c + w × x, w) at the state
    (u, R): x = X + u the current node positions, spatial ω = w on every oriented node."""
    t = problem.table
    v = np.zeros(t.n_var)
    X = problem.reference_coordinates
    x = np.zeros((t.node_var.shape[0], 3))
    for k in range(3):
        col = t.node_var[:, k]
        x[col >= 0, k] = X[col[col >= 0]] + u[col[col >= 0]]
    vel = c + np.cross(w, x)
    for k in range(3):
        col = t.node_var[:, k]
        v[col[col >= 0]] = vel[col >= 0, k]
        rcol = t.node_var[:, 3 + k]
        v[rcol[rcol >= 0]] = w[k]
    return v


def shell_plate(element):
    mesh = rectangle_mesh(1.0, 0.6, 3, 2, cells="triangle" if element == "shell3" else "quad")
    model = Model(mesh, name=f"{element} plate")
    model.add_part("plate", element, "plate", Material(E=2e11, nu=0.3, rho=7800.0), Section(thickness=0.01))
    return model


def timoshenko_beam():
    model = Model(line_mesh((0.0, 0.0, 0.0), (2.0, 0.4, -0.3), 3, "b"), dim=3, name="timoshenko beam")
    model.add_part("b", "beam3d_timoshenko", "b", Material(E=2e3, G=8e2, rho=1.0),
                   Section(A=1.0, Iy=0.02, Iz=0.03, J=0.05, shear_factor=0.8))
    return model


@pytest.mark.parametrize("build", [lambda: free_beam(), timoshenko_beam, lambda: shell_plate("shell3"),
                                   lambda: shell_plate("shell4")], ids=["beam3d", "beam3d_timoshenko", "shell3", "shell4"])
def test_stiffness_damping_force_vanishes_for_rigid_velocities_at_deformed_states(build):
    """At a strongly deformed state (random displacements and nodal rotations of up to
    0.5 rad) the β part of the damping force of an infinitesimal rigid motion (c + w × x, w)
    vanishes to round-off (1e-10 of |β K_mat| |v|), while a strain rate is damped
    (vᵀ f_d > 0)."""
    model = build()
    prob = DynamicProblem(model, damping=Rayleigh(0.0, 1.0))
    t = prob.table
    rng = np.random.default_rng(3)
    u = np.zeros(t.n_var)
    u[~prob.rot3d] = 0.05 * rng.standard_normal(int((~prob.rot3d).sum()))
    u[prob.rot3d] = 0.3 * rng.standard_normal(int(prob.rot3d.sum()))
    R = prob.rotations.rotations_from_vectors(u)
    v = _rigid_velocity(prob, u, R, np.array([0.3, -1.1, 0.7]), np.array([0.2, 0.5, -0.4]))
    f, data = prob.damping.evaluate(u, v, rotations=R)
    C = t.csr(data)
    assert np.abs(f).max() <= 1e-10 * abs(C).max() * np.abs(v).max()
    strain_rate = rng.standard_normal(t.n_var)
    f2 = prob.damping.evaluate(u, strain_rate, rotations=R)[0]
    assert strain_rate @ f2 > 0.0


@pytest.mark.parametrize("scheme", [Newmark(), GeneralizedAlpha(rho_inf=0.9), HHT(alpha=-0.05)], ids=["newmark", "genalpha", "hht"])
def test_alpha_schemes_give_the_same_modal_decay(scheme):
    """The α schemes (end-of-step damping force C(q_{n+1}) v_{n+1}, spatial ω) decay the
    first mode with ζ = α/(2ω) + βω/2 to within their O(h²) error plus their own numerical
    damping (Δt = T/40, ρ∞ ≥ 0.9: well under 2 %; measured −0.41 % Newmark and
    generalized-α, −0.15 % HHT, against −0.41 % of the mid-point rule)."""
    model, w, mode, dof = first_mode()
    T = 2.0 * np.pi / w
    alpha, beta = 0.02, 0.002
    zeta = alpha / (2.0 * w) + beta * w / 2.0
    res = solve_dynamic(model, T / 40, 4 * T, scheme=scheme, damping=Rayleigh(alpha, beta), v0=1e-3 * mode,
                        probes={"tip": ("b_end", dof)})
    assert abs(log_decrement_ratio(res.series("tip")) / zeta - 1.0) < 0.02


# ---------------------------------------------------------------- the α step's iteration matrix with dampers
def two_bodies_on_dampers(c=0.4):
    """Two free tumbling rigid bodies joined by an anisotropic rotational spring-damper
    (skew joint frame) and a spring3d damper along their chord; a third, grounded node
    pulls body b through another spring3d damper."""
    mesh = Mesh(np.array([[0.0, 0.0, 0.0], [1.5, 0.3, -0.2], [2.5, 1.0, 0.5]]), {}, {"a": [0], "b": [1], "g": [2]})
    model = Model(mesh, dim=3, name="two bodies on dampers")
    model.add_discrete("body a", "rigid_body3d", "a", m=2.0, Jxx=1.0, Jyy=2.0, Jzz=3.5, Jxy=0.1)
    model.add_discrete("body b", "rigid_body3d", "b", m=1.0, Jxx=0.5, Jyy=0.4, Jzz=0.7)
    model.add_discrete("twist", "rotational_spring3d", ("a", "b"), kx=3.0, ky=4.0, kz=5.0, c=c,
                       axis=(0.3, 1.0, 0.2), second=(1.0, 0.0, 0.0))
    model.add_discrete("chord", "spring3d", ("a", "b"), k=8.0, L0=1.4, c=c)
    model.add_discrete("tether", "spring3d", ("g", "b"), k=5.0, L0=1.0, c=2.0 * c)
    model.fix("g")
    model.initial_velocity("a", ux=0.2, uy=-0.1, uz=0.05, rx=1.5, ry=-0.5, rz=0.8)
    model.initial_velocity("b", ux=-0.1, uy=0.3, rx=-1.0, ry=1.2, rz=-0.6)
    return model


def _step_mismatch(model, scheme, damping=None, h=0.1, seed=1):
    """max |S − S_fd| / max |S_fd| of a step's Newton matrix at a perturbed predictor
    (S_fd: central differences along the scheme's corrections: Cayley vectors in the
    mid-point step, spatial spins in the α step)."""
    prob = DynamicProblem(model, damping=damping)
    prob.dt_hint = h
    t = prob.table
    u, v = prob.initial_state(0.0, h)
    system = scheme.system(prob, scheme.start(prob, 0.0, u, v), h)
    z = system.z0.copy()
    z[t.eq_var] += 0.05 * np.random.default_rng(seed).standard_normal(t.n_eq)
    S = system.evaluate(z)[1].toarray()
    S_fd = np.zeros_like(S)
    eps = 1e-6
    for j in range(t.n_eq):
        d = np.zeros(t.n_eq)
        d[j] = eps
        S_fd[:, j] = (system.evaluate(system.apply(z, d))[0].copy() - system.evaluate(system.apply(z, -d))[0].copy()) / (2 * eps)
    return np.abs(S - S_fd).max() / np.abs(S_fd).max()


@pytest.mark.parametrize("scheme", [MidPoint(), GeneralizedAlpha(rho_inf=0.8)], ids=["midpoint", "genalpha"])
def test_iteration_matrix_with_turning_dampers_is_the_derivative(scheme):
    """Rotational and chord dampers on tumbling bodies, plus α = 0.5 mass damping: with the
    dampers' configuration derivative (α step: at the end of the step, with the J_L⁻¹ turn
    of the velocity columns; mid-point step: at (x_m, R_m), chained by ½ and D) and the
    spin derivative of α J ω, the Newton matrix equals the central difference of the
    residual to 1e-8 (measured 3e-12 mid-point, 7e-12 α); without the configuration
    derivative the matrices are off by 1.6e-4 and 3e-4, the former α matrix (C_d per unit
    ω at fixed q, α J at fixed R) by 1e-3."""
    assert _step_mismatch(two_bodies_on_dampers(), scheme, Rayleigh(0.5, 0.0)) <= 1e-8


@pytest.mark.parametrize("scheme", [MidPoint(), GeneralizedAlpha(rho_inf=0.8)], ids=["midpoint", "genalpha"])
def test_newton_iterations_with_the_damper_derivative_are_not_more(monkeypatch, scheme):
    """Strong dampers (c = 2) on the tumbling bodies, 100 steps of Δt = 0.1: the exact
    Newton matrix needs no more iterations than the one without the dampers' configuration
    derivative (measured 2.64 against 3.69 per step mid-point, 2.06 against 3.34
    generalized-α)."""
    from femb.solvers.dynamics.problem import DampingModel

    runs = []
    for exact in (True, False):
        with monkeypatch.context() as m:
            if not exact:
                m.setattr(DampingModel, "configuration_derivative", lambda self, *args, **kw: self.p.table.new_matrix_data())
            res = solve_dynamic(two_bodies_on_dampers(2.0), 0.1, 10.0, scheme=scheme)
        runs.append(res.info["newton_iterations"])
    assert runs[0] <= runs[1]


def test_rayleigh_damping_is_refused_for_elements_with_mass_points():
    """A Craig–Bampton superelement carries its inertia as mass points, which α M would not
    reach, and its material tangent (tangent − geometric stiffness) does not annihilate
    rigid velocities at a deformed state (a force of 1.6e3 against |K| = 1e4 here, where the
    beams and shells give round-off): a clear error naming the part for α and for β."""
    from femb.core.errors import InputError
    from femb.solvers.reduction.component import reduce_component

    comp = Model(line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 4, "beam"), name="component")
    comp.add_part("beam", "beam3d", "beam", values={**BEAM3D, "rhoIp": 0.022})
    rc = reduce_component(comp, [comp.node("beam_start"), comp.node("beam_end")], 2, mass="lumped")
    model = Model(Mesh(np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])), name="free superelement")
    model.add_superelement("se", rc, [0, 1])
    for damping in (Rayleigh(0.1, 0.0), Rayleigh(0.0, 1e-3)):
        with pytest.raises(InputError, match="mass points of part\\(s\\) 'se'"):
            DynamicProblem(model, damping=damping)
    assert not DynamicProblem(model).damping.active


def test_damped_pressurized_shell_box_settles_with_the_pressure_work_split_exactly():
    """The free shell4 box of tests/solvers/test_follower_loads3d.py under a suddenly applied
    internal follower pressure p = 1 with β = 0.005: the breathing dies out (T falls to 1e-5
    of its peak in 3 s, measured 2e-6), the booked work stays p ΔV to round-off, and the
    work splits into strain energy and dissipation with T + V + D − pΔV closing to 1e-11 of
    the strain energy (measured 1e-12)."""
    from tests.solvers.test_follower_loads3d import enclosed_volume, pressurized_box

    model = pressurized_box(1.0)
    res = solve_dynamic(model, 0.02, 3.0, damping=Rayleigh(0.0, 0.005), record_every=5)
    V0 = enclosed_volume(model, np.zeros(res.states[0].size))
    dV = np.array([enclosed_volume(model, u) for u in res.states]) - V0
    W = np.asarray(res.series("external_work"))
    T = np.asarray(res.series("kinetic_energy"))
    S = np.asarray(res.series("strain_energy"))
    D = np.asarray(res.series("dissipated_energy"))
    assert dV[-1] > 1e-3 and D[-1] > 0.1 * W[-1]
    assert np.abs(W - dV).max() <= 1e-13
    assert T[-1] <= 1e-5 * T.max()
    assert np.abs(T + S + D - dV).max() <= 1e-11 * S.max()
