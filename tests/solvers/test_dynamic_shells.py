"""Co-rotational shells (shell3, shell4) in the energy-momentum mid-point scheme: exact
energy and momenta of a free plate at steps far above the explicit stability limit, no
strain from a rigid spin of 1 rad per step, second-order trajectories, the
intermediate-axis flip of a stiff free plate against the rigid body of the same inertia,
and the clear refusal of element types without a mid-point force (the α schemes on
shells: tests/solvers/test_dynamic_alpha3d.py)."""
import numpy as np
import pytest
import scipy.linalg as sl
from scipy.integrate import solve_ivp

from femb.assembly.assembler import Assembler
from femb.core.errors import InputError
from femb.correlation import build_table
from femb.mesh import rectangle_mesh
from femb.model import Material, Model, Section
from femb.solvers import solve_dynamic

A_, B_, T_ = 1.0, 0.6, 0.01


def plate(element, nx=4, ny=3, E=2e11, rho=7800.0, t=T_):
    """A free plate A_ × B_ × t (steel by default) in the XY plane (origin at a corner)."""
    mesh = rectangle_mesh(A_, B_, nx, ny, cells="triangle" if element == "shell3" else "quad")
    model = Model(mesh, name=f"free {element} plate")
    model.add_part("plate", element, "plate", Material(E=E, nu=0.3, rho=rho), Section(thickness=t))
    return model


def explicit_limit(model):
    """2/ω_max of the model's lumped mass and reference stiffness (central differences)."""
    t = build_table(model)
    asm = Assembler(t)
    K = asm.tangent(np.zeros(t.n_var))[1].toarray()
    M = asm.mass_matrix(0).toarray()
    return 2.0 / np.sqrt(sl.eigh(K, M, eigvals_only=True).max())


def pulse(t, t1=2e-3):
    return np.sin(np.pi * t / t1) ** 2 if t < t1 else 0.0


def plate_with_pulse(element):
    """A tumbling, translating plate hit at a corner by a force and moment pulse (0–2 ms)."""
    model = plate(element)
    model.initial_rigid_velocity(velocity=(0.3, -0.2, 0.1), omega=(2.0, -3.0, 8.0), center=(0.5, 0.3, 0.0))
    model.point_load("plate_c11", amplitude=pulse, fz=800.0, fx=-300.0, mx=20.0)
    return model


def momentum_series(res):
    L = np.column_stack([res.series(f"angular_momentum_{c}") for c in "xyz"])
    p = np.column_stack([res.series(f"linear_momentum_{c}") for c in "xyz"])
    return L, p


def check_free_flight(res, t_pulse, tol):
    t = np.asarray(res.times)
    E = res.series("total_energy")
    L, p = momentum_series(res)
    after = t >= t_pulse - 1e-12
    i0 = np.flatnonzero(after)[0]
    assert abs(E[i0] - E[0]) > 1e-3 * E[0]  # the pulse did work
    assert res.series("strain_energy")[after].max() > 1e-3 * E[i0]  # the plate vibrates
    assert E[i0] > 0 and np.linalg.norm(L[i0]) > 0 and np.linalg.norm(p[i0]) > 0
    e_err = np.abs(E[after] - E[i0]).max() / E[i0]
    l_err = np.abs(L[after] - L[i0]).max() / np.linalg.norm(L[i0])
    p_err = np.abs(p[after] - p[i0]).max() / np.linalg.norm(p[i0])
    assert e_err <= tol and l_err <= tol and p_err <= tol, (e_err, l_err, p_err)
    assert np.abs(res.series("energy_residual")).max() <= tol * E.max()
    return e_err, l_err, p_err


@pytest.mark.parametrize("element", ["shell3", "shell4"])
def test_free_plate_after_a_pulse_keeps_energy_and_momenta(element):
    """Δt = 0.5 ms, several hundred times the explicit limit of the lumped mass (its
    rotary/drilling inertia sets ω_max) and above 10× the membrane wave limit: 300 steps
    after the pulse keep energy, linear and angular momentum to 1e-10 relative."""
    model = plate_with_pulse(element)
    dt = 5e-4
    assert dt >= 10.0 * explicit_limit(model)
    res = solve_dynamic(model, dt, 2e-3 + 300 * dt, record_every=5)
    check_free_flight(res, 2e-3, 1e-10)
    assert res.info["cutbacks"] == 0


@pytest.mark.long
@pytest.mark.parametrize("element", ["shell3", "shell4"])
def test_free_plate_keeps_energy_and_momenta_over_ten_thousand_steps(element):
    model = plate_with_pulse(element)
    dt = 5e-4
    res = solve_dynamic(model, dt, 2e-3 + 10**4 * dt, record_every=50)
    check_free_flight(res, 2e-3, 1e-10)


def rotation_angles(Q):
    return np.arccos(np.clip((np.trace(Q, axis1=-2, axis2=-1) - 1.0) / 2.0, -1, 1))


@pytest.mark.parametrize("element", ["shell3", "shell4"])
@pytest.mark.parametrize("axis", ["normal", "in-plane"])
@pytest.mark.parametrize("dt", [0.1, 1.0])
def test_rigid_spin_up_to_one_radian_per_step_produces_no_strain(element, axis, dt):
    """|ω| = 1 about a principal axis through the centroid (steady spin), up to 1 rad per
    step: all nodal triads keep one orientation (no bending, no drilling twist, to
    1e-7 rad) and turn with the chords (a node off the axis turns about the centroid by the
    triads' angle, to 1e-7 rad), the strain energy stays at the physical centrifugal level
    (a stiff plate: ≤ 1e-7 of the kinetic energy) and the energy is exact. (At 1 rad per
    step the stiff plate needs Newton cut-backs: a recorded step is then made of
    substeps, each turning by 2 atan(Δt_sub/2).)"""
    model = plate(element, nx=3, ny=2, E=2e13)
    omega = np.array((0.0, 0.0, 1.0) if axis == "normal" else (1.0, 0.0, 0.0))
    c = np.array((0.5 * A_, 0.5 * B_, 0.0))
    model.initial_rigid_velocity(omega=omega, center=c)
    res = solve_dynamic(model, dt, 12 * dt)
    T = res.series("kinetic_energy")
    assert T[0] > 0
    assert res.series("strain_energy").max() <= 1e-7 * T[0]
    R = np.asarray(res.arrays["rotations"])
    x = model.mesh.points
    node = int(np.flatnonzero(np.isclose(x[:, 0], A_) & np.isclose(x[:, 1], B_))[0])
    r = np.array([[x[node, 0] + res.dof(node, "ux", k), x[node, 1] + res.dof(node, "uy", k), res.dof(node, "uz", k)]
                  for k in range(len(res))]) - c
    r -= np.outer(r @ omega, omega)  # the part normal to the spin axis
    for k in range(1, len(res)):
        turn = rotation_angles(R[k] @ R[k - 1].transpose(0, 2, 1))
        assert np.ptp(turn) < 1e-7 and turn[0] > 2.0 * np.arctan(0.5 * dt) - 1e-9
        chord = np.arctan2(np.cross(r[k - 1], r[k]) @ omega, r[k - 1] @ r[k])
        assert abs(chord - turn[0]) < 1e-7
        assert rotation_angles(R[k, 1:] @ R[k, :1].transpose(0, 2, 1)).max() < 1e-7
    E = res.series("total_energy")
    assert np.abs(E - E[0]).max() <= 1e-10 * E[0]
    if dt == 1.0 and axis == "in-plane":
        # this case goes through Newton cut-backs: a failed attempt must leave the nodal
        # rotations of the state untouched (the checks above would see a stale triad)
        assert res.info["cutbacks"] >= 1


@pytest.mark.parametrize("element", ["shell3", "shell4"])
def test_trajectory_converges_at_second_order(element):
    """A soft thick free plate (all its modes, drilling ones included, resolved by the
    steps: ω_max Δt ≤ 2/3) tumbling and vibrating: the
    error of the final state against Δt/4 of the smallest step falls as Δt² (fitted slope
    2 ± 0.2)."""
    model = plate(element, nx=2, ny=2, E=2e3, rho=1000.0, t=0.1)
    assert explicit_limit(model) >= 3 * 0.01
    model.initial_rigid_velocity(omega=(0.5, -0.4, 1.0), center=(0.5, 0.3, 0.0))
    model.initial_velocity("plate_c11", uz=0.05)

    def final(dt):
        return solve_dynamic(model, dt, 0.2, record_every=10**9).final

    dts = np.array([0.01, 0.005, 0.0025])
    ref = final(dts[-1] / 4)
    err = np.array([np.abs(final(dt) - ref).max() for dt in dts])
    slope = np.polyfit(np.log(dts), np.log(err), 1)[0]
    print(f"{element} trajectory order: slope {slope:.3f}, errors {err}")
    assert abs(slope - 2.0) <= 0.2, (slope, err)


def lumped_inertia(model):
    """Mass, centroid and inertia tensor (about the centroid) of the model's lumped mass,
    nodal rotary inertia included."""
    t = build_table(model)
    M = Assembler(t).mass_matrix(0).diagonal()
    x = model.mesh.points
    if x.shape[1] == 2:
        x = np.column_stack([x, np.zeros(len(x))])
    m = np.zeros(len(x))
    J = np.zeros((3, 3))
    for eq, var in enumerate(t.eq_var):
        node, dof = int(t.var_node[var]), int(t.var_dof[var])
        if dof == 0:
            m[node] = M[eq]
        elif dof >= 3:
            J[dof - 3, dof - 3] += M[eq]
    c = (m[:, None] * x).sum(axis=0) / m.sum()
    r = x - c
    J += np.einsum("a,ij->ij", m * (r * r).sum(axis=1), np.eye(3)) - np.einsum("a,ai,aj->ij", m, r, r)
    return m.sum(), c, J


def crossings(t, s):
    """Times where s changes sign (linear interpolation)."""
    k = np.flatnonzero(np.sign(s[1:]) != np.sign(s[:-1]))
    return t[k] - s[k] * (t[k + 1] - t[k]) / (s[k + 1] - s[k])


@pytest.mark.parametrize("element", ["shell3", "shell4"])
def test_stiff_free_plate_flips_like_the_rigid_body_about_its_intermediate_axis(element):
    """A free steel plate 1 × 0.6 spun at 2 rad/s about its intermediate (in-plane, short
    side) axis with a small perturbation tumbles (Dzhanibekov flip): the half-periods of
    the flip agree with Euler's equations for the rigid body of the plate's lumped inertia
    within 1 %, energy and angular momentum stay exact."""
    model = plate(element, nx=2, ny=2)
    m, c, J = lumped_inertia(model)
    assert abs(J[0, 1]) + abs(J[0, 2]) + abs(J[1, 2]) <= 1e-12 * J[2, 2]
    w0 = np.array([0.02, 2.0, 0.0])  # body = space axes at t = 0
    model.initial_rigid_velocity(omega=w0, center=c)
    dt, t_end = 0.03, 24.0
    res = solve_dynamic(model, dt, t_end, record_every=1)
    t = np.asarray(res.times)
    x = model.mesh.points
    top, bottom = np.flatnonzero(np.isclose(x[:, 1], B_)), np.flatnonzero(np.isclose(x[:, 1], 0.0))
    x3 = np.column_stack([x, np.zeros(len(x))]) if x.shape[1] == 2 else x
    pos = x3[None] + np.stack([np.column_stack([res.dof(a, d) for d in ("ux", "uy", "uz")]) for a in range(len(x))], axis=1)
    ey = pos[:, top].mean(axis=1) - pos[:, bottom].mean(axis=1)
    ey /= np.linalg.norm(ey, axis=1)[:, None]
    L = np.column_stack([res.series(f"angular_momentum_{k}") for k in "xyz"])
    s_femb = ey @ (L[0] / np.linalg.norm(L[0]))  # the plate's centroid is at rest: L about it = L about 0
    Jd = np.diag(J)

    def euler(_, w):
        return np.cross(Jd * w, w) / Jd

    sol = solve_ivp(euler, (0.0, t_end), w0, rtol=1e-11, atol=1e-13, dense_output=True)
    tr = np.linspace(0.0, t_end, 20001)
    w = sol.sol(tr)
    s_rigid = Jd[1] * w[1] / np.linalg.norm(Jd * w0)
    cf, cr = crossings(t, s_femb), crossings(tr, s_rigid)
    assert len(cr) >= 3 and len(cf) == len(cr), (cf, cr)
    half_f, half_r = np.diff(cf).mean(), np.diff(cr).mean()
    print(f"flip: first {cf[0]:.5f} s vs rigid {cr[0]:.5f} s, half-period {half_f:.5f} s vs {half_r:.5f} s")
    assert abs(half_f - half_r) <= 0.01 * half_r, (half_f, half_r)
    assert abs(cf[0] - cr[0]) <= 0.01 * cr[0]
    E = res.series("total_energy")
    assert np.abs(E - E[0]).max() <= 1e-10 * E[0]
    assert np.abs(L - L[0]).max() <= 1e-10 * np.linalg.norm(L[0])


def test_element_types_without_a_mid_point_force_are_refused_by_name(monkeypatch):
    """solve_dynamic's mid-point scheme refuses a part whose element type has no
    ``midpoint_force`` with an InputError naming the part and the element type (not a
    bare TypeError from inside the step)."""
    import dataclasses

    from femb.elements import shell3

    spec = shell3.SPECS["shell3"]
    monkeypatch.setitem(shell3.SPECS, "shell3",
                        dataclasses.replace(spec, kernels=spec.kernels._replace(midpoint_force=None)))
    model = plate("shell3", nx=1, ny=1)
    model.initial_velocity("plate_c11", uz=1.0)
    with pytest.raises(InputError, match=r"part 'plate' \(element type 'shell3'\)"):
        solve_dynamic(model, 1e-4, 2e-4)


def test_rotor_with_shell_blades_example():
    """examples/shell_rotor_spinup.py: two pitched shell blades on a hub that turns on a
    revolute bearing, spun up to 6 rad/s in 2 s by a motor torque J θ̈(t). The motor's work
    equals the rotor's kinetic plus strain energy (energy residual ≤ 1e-9 of the energy),
    the angular momentum about the axis equals the torque's impulse J Ω after the spin-up
    (1e-9; the bearing's reactions have no moment about its axis), the bearing holds to
    round-off, both blades deform alike (rotational symmetry to 1e-9), the blades lag
    behind during the acceleration and flap through the pitch coupling, and the rotor ends
    up turning at about Ω (the torque law uses the rigid rotor's inertia)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "shell_rotor_spinup.py"
    spec = importlib.util.spec_from_file_location("example_shell_rotor_spinup", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    r = mod.main(2.5)
    assert r["energy_residual"] <= 1e-9
    assert r["driver_work"] == pytest.approx(r["final_energy"], rel=1e-9)
    assert r["symmetry"] <= 1e-9
    assert r["max_lag"] < -0.01 and r["max_flap"] > 0.01
    assert r["final_spin_rate"] == pytest.approx(mod.OMEGA, rel=0.05)
    assert r["momentum_error"] <= 1e-9
    assert r["joint_residual"] <= 1e-12
