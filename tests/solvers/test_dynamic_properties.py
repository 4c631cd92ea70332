"""Properties of the energy-conserving mid-point scheme across all element types
(DESIGN §3.5): energy conservation under constant loads at any step size, exact linear and
angular momentum of free-flying systems, no spurious strain under rigid rotation,
second-order accuracy and time reversibility."""
import numpy as np
import pytest

from femb.solvers import solve_dynamic
from tests.solvers.dynamic_models import BEAMS, ELEMENTS, bending_rotations, chain, dim_of, free_flyer, pendulum_under_constant_loads

STIFF = dict(EA=1e5, EI=100.0)  # axial frequency ~300 rad/s, pendulum period ~2.5 s


@pytest.mark.parametrize("element", ELEMENTS)
@pytest.mark.parametrize("dt", [1e-4, 1e-2, 1e-1])
def test_energy_is_conserved_under_constant_loads_at_any_step_size(element, dt):
    """1000 steps; ω_axial·dt from 0.03 (resolved) to 30 (unresolved): the total energy
    T + V − f·u (gravity, constant forces, beam moments and distributed loads) stays
    constant to the Newton tolerance."""
    res = solve_dynamic(pendulum_under_constant_loads(element, **STIFF), dt, 1000 * dt)
    E = res.series("total_energy")
    scale = max(abs(E[0]), res.series("kinetic_energy").max())
    assert len(E) == 1001
    assert np.ptp(res.series("kinetic_energy")) > 1e-3 * scale  # energy is really exchanged
    assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(E - E[0]).max() <= 1e-9 * scale
    assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(res.series("energy_residual")).max() <= 1e-9 * scale


@pytest.mark.parametrize("element", ELEMENTS)
@pytest.mark.parametrize("dt", [0.01, 0.3])
def test_free_flight_conserves_linear_and_angular_momentum(element, dt):
    """200 steps of a spinning, translating, vibrating free structure (ω_axial·dt up to
    ~100): Σ M v and Σ x × M v (+ I ω) stay constant to the Newton tolerance."""
    res = solve_dynamic(free_flyer(element, **STIFF), dt, 200 * dt)
    dim = dim_of(element)
    p = np.column_stack([res.series(f"linear_momentum_{c}") for c in "xyz"[:dim]])
    if dim == 2:
        L = res.series("angular_momentum")[:, None]
    else:
        L = np.column_stack([res.series(f"angular_momentum_{c}") for c in "xyz"])
    assert np.linalg.norm(p[0]) > 0.01 and np.linalg.norm(L[0]) > 0.1
    assert np.all(np.asarray(np.linalg.norm(p[0])) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(p - p[0]).max() <= 1e-10 * np.linalg.norm(p[0])
    assert np.all(np.asarray(np.linalg.norm(L[0])) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(L - L[0]).max() <= 1e-10 * np.linalg.norm(L[0])
    E = res.series("total_energy")
    assert np.all(np.asarray(E[0]) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(E - E[0]).max() <= 1e-9 * E[0]
    assert res.series("strain_energy").max() > 1e-6 * E[0]  # the structure deforms


def spinning_beam(element, n=4, EA=1e10, EI=1e4):
    """A straight free beam of length 10 spinning rigidly about its centre at ω = 1."""
    model = chain(element, n=n, length=10.0, angle=0.0, EA=EA, EI=EI, rhoA=1.0, rhoI=0.01, GAs=1e9)
    model.initial_rigid_velocity(omega=1.0, center=(5.0, 0.0))
    return model


@pytest.mark.parametrize("element", BEAMS)
@pytest.mark.parametrize("mass", ["lumped", "invariant"])
@pytest.mark.parametrize("dt", [0.01, 0.1, 1.0, 2.0])
def test_rigid_spin_produces_no_bending_at_any_step_size(element, mass, dt):
    """Chords and nodal directors both turn by 2 atan(ωΔt/2) per step (π/2 at Δt = 2), so
    the local rotations θ̄ stay at the level set by the (physical) centrifugal stretch,
    ~1e-9 here. Additive rotations would leave θ̄ behind by (ωΔt)³/12 per step
    (0.43 rad per step at Δt = 2)."""
    res = solve_dynamic(spinning_beam(element), dt, 20 * dt, mass=mass)
    phi = 2.0 * np.arctan(0.5 * dt)
    th = np.array([res.nodal_rotations(k) for k in range(len(res))])
    assert np.allclose(np.diff(th, axis=0), phi, rtol=1e-7, atol=0)
    x = np.array([res.nodal_displacements(k)[-1] - res.nodal_displacements(k)[0] for k in range(len(res))]) + [10.0, 0.0]
    chord_turn = np.diff(np.unwrap(np.arctan2(x[:, 1], x[:, 0])))
    assert np.allclose(chord_turn, phi, rtol=1e-7, atol=0)
    tb = max(np.abs(bending_rotations(res, k)).max() for k in range(len(res)))
    assert tb < 1e-7, tb
    E = res.series("total_energy")
    assert np.all(np.asarray(E[0]) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(E - E[0]).max() <= 1e-12 * E[0]


def final_positions(model, dt, t_end):
    return solve_dynamic(model, dt, t_end, record_every=10**9).final


@pytest.mark.parametrize("element", ELEMENTS)
def test_trajectory_converges_at_second_order(element):
    """Soft model (all modes resolved at the largest step): the error of the state at
    t = 0.4 against Δt/8 of the smallest step falls as Δt² (fitted slope 2 ± 0.2)."""
    model = pendulum_under_constant_loads(element, EA=50.0, EI=5.0, rhoA=1.0, rhoI=1.0, GAs=50.0)
    dts = np.array([0.02, 0.01, 0.005, 0.0025])
    ref = final_positions(model, dts[-1] / 8, 0.4)
    err = np.array([np.abs(final_positions(model, dt, 0.4) - ref).max() for dt in dts])
    slope = np.polyfit(np.log(dts), np.log(err), 1)[0]
    assert abs(slope - 2.0) <= 0.2, (slope, err)
    assert err[-1] < 1e-4


@pytest.mark.parametrize("element", ["truss2d", "truss3d_green", "beam2d"])
def test_scheme_is_time_reversible(element):
    """N steps forward, velocities reversed, N steps more: back at the start (the step
    equations are symmetric in n <-> n+1)."""
    model = pendulum_under_constant_loads(element, **STIFF)
    fwd = solve_dynamic(model, 0.05, 2.0)
    back = solve_dynamic(model, 0.05, 2.0, u0=fwd.final, v0=-fwd.velocities[-1])
    assert fwd.info["cutbacks"] == back.info["cutbacks"] == 0
    scale = np.abs(np.array(fwd.states)).max()
    assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(back.final - fwd.states[0]).max() < 1e-7 * scale
    assert np.all(np.asarray(np.abs(fwd.velocities[0]).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(back.velocities[-1] + fwd.velocities[0]).max() < 1e-6 * np.abs(fwd.velocities[0]).max()
