"""Linearization about a steady spin (femb.solvers.eigen.steady_spin).

References
----------
- Rotating cantilever (spin-up B data: L = 10 m, EI = 1.4e4 N·m², ρA = 1.2 kg/m), root on
  the axis, Ω = 6 rad/s: first flapwise 7.508 rad/s and chordwise 4.513 rad/s
  (references/linearization_eigen_rigid_trees.md §4.4 A3, converged Hermite model without
  Coriolis coupling; the chordwise value with the axial Coriolis coupling femb keeps is
  ~0.015 % lower). Non-rotating: 1.8751² √(EI/ρA L⁴) = 3.7977 rad/s.
- Particle on an isotropic spring in a frame turning at Ω: relative frequencies ω0 ± Ω.
- Overhung rotor (disk on a massless cantilever shaft on a flexible support): whirl
  frequencies from (k11 − mν²)(k22 − I_d ν² + I_p Ω ν) − k12² = 0 (see
  femb.validation.eigen_cases.rotor_whirl_closed_form); in the rotating frame the same
  whirls appear shifted by ∓Ω.
"""
import numpy as np
import pytest

from femb.core.errors import InputError
from femb.mesh import Mesh
from femb.model import Model
from femb.solvers.eigen.steady_spin import campbell, steady_spin
from femb.validation.eigen_cases import (overhung_rotor, rotating_beam, rotating_beam_frequencies,
                                         rotor_whirl_closed_form)

OMEGA1 = 1.8751040687**2 * np.sqrt(1.4e4 / (1.2 * 10.0**4))


def test_rotating_beam_matches_the_reference_flap_and_chord_frequencies():
    flap, chord = rotating_beam_frequencies(12, 6.0)
    assert flap == pytest.approx(7.508, rel=5e-3)
    assert chord == pytest.approx(4.513, rel=5e-3)
    # sharper: the converged values (flap 7.5077, chord 4.5125 − Coriolis 0.0007)
    assert flap == pytest.approx(7.5077, rel=2e-4)
    assert chord == pytest.approx(4.5118, rel=1e-3)


def test_bending_frequencies_rise_with_spin_and_reduce_to_the_cantilever():
    speeds = [0.0, 2.0, 4.0, 6.0]
    freqs = np.array([rotating_beam_frequencies(8, om) for om in speeds])
    assert np.all(np.diff(freqs[:, 0]) > 0) and np.all(np.diff(freqs[:, 1]) > 0)
    assert freqs[0] == pytest.approx([OMEGA1, OMEGA1], rel=1e-4)
    # chordwise: ω_c² = ω_f² − Ω² (spin softening in the plane of rotation), to the small
    # Coriolis coupling with the stiff axial motion; the invariant mass (linear
    # translational interpolation, nodal rotary inertia) is the discretization for which
    # the rotating-frame terms are exact
    inv = np.array([rotating_beam_frequencies(16, om, mass="invariant") for om in speeds[1:]])
    assert inv[:, 1] ** 2 == pytest.approx(inv[:, 0] ** 2 - np.array(speeds[1:]) ** 2, rel=5e-4)


def test_chordwise_frequency_with_the_planar_beam():
    chord = rotating_beam_frequencies(16, 6.0, element="beam2d")[1]
    assert chord == pytest.approx(4.513, rel=5e-3)


def test_centrifugal_equilibrium_stretches_the_beam_by_the_closed_form():
    """Tip elongation ρΩ²L³/(3E) = ρA Ω² L³/(3 EA) of the relative equilibrium."""
    model = rotating_beam(8)
    lin = steady_spin(model, 6.0, mass="consistent")
    tip = model.node("beam_end")
    u = lin.state.u[lin.table.var_of(tip, "ux")]
    assert u == pytest.approx(1.2 * 36.0 * 1e3 / (3 * 2.8e7), rel=1e-3)


def particle(k=4.0, m=1.0):
    mesh = Mesh(np.array([[0.0, 0.0], [0.0, 0.0]]), {}, {"ground": np.array([0]), "mass": np.array([1])})
    model = Model(mesh, name="particle on a spring")
    model.add_discrete("m", "point_mass2d_translational", "mass", m=m)
    model.add_discrete("spring", "bushing2d", ("ground", "mass"), k=k)
    model.fix("ground")
    return model


def test_particle_in_a_rotating_frame_has_frequencies_omega0_plus_minus_spin():
    omega0, spin = 2.0, 0.7
    lin = steady_spin(particle(omega0**2), spin, mass="consistent")
    f = lin.modes(2).damped_frequency
    assert np.allclose(np.sort(f), [omega0 - spin, omega0 + spin], rtol=1e-12)
    # the gyroscopic matrix is skew and equals the Coriolis 2mΩ
    G = lin.G.toarray()
    assert np.allclose(G, -G.T) and abs(G[1, 0]) == pytest.approx(2 * spin)


@pytest.mark.parametrize("speed", [0.0, 120.0, 400.0])
def test_overhung_rotor_whirl_matches_the_closed_form_campbell_diagram(speed):
    model, disk = overhung_rotor(2)
    lin = steady_spin(model, speed, axis=(1.0, 0.0, 0.0), frame="inertial", point_inertia=disk, mass="consistent")
    res = lin.modes(8)
    t, tip = res.table, model.node("shaft_end")
    uy, uz = res.modes[:, t.var_of(tip, "uy")], res.modes[:, t.var_of(tip, "uz")]
    sense = -np.imag(np.conj(uy) * uz)  # > 0: the disk centre whirls with the spin (about +x)
    bending = np.abs(uy) + np.abs(uz) > 1e-6 * np.abs(res.modes).max(axis=1)
    forward, backward = rotor_whirl_closed_form(speed)
    f = res.damped_frequency
    if speed == 0.0:
        assert np.allclose(np.sort(f[bending]), np.sort(np.repeat(forward, 2)), rtol=1e-10)
        return
    assert np.allclose(np.sort(f[bending & (sense > 0)]), forward, rtol=1e-10)
    assert np.allclose(np.sort(f[bending & (sense < 0)]), backward, rtol=1e-10)


def test_rotor_in_the_rotating_frame_sees_the_whirls_shifted_by_the_spin():
    """The disk's rotary inertia terms of the rotating frame (G = ω̂J + Jω̂ − (Jω)^,
    K = ω̂Jω̂ − ω̂(Jω)^) reproduce the fixed-frame whirls ν as |ν ∓ Ω|."""
    model, disk = overhung_rotor(2)
    speed = 150.0
    fixed = campbell(model, [speed], n_modes=6, axis=(1.0, 0.0, 0.0), frame="inertial", point_inertia=disk, mass="consistent")[0]
    rot = steady_spin(model, speed, axis=(1.0, 0.0, 0.0), frame="rotating", point_inertia=disk, mass="consistent").modes(6).damped_frequency
    forward, backward = rotor_whirl_closed_form(speed)
    expected = np.concatenate([np.abs(forward - speed), backward + speed])
    for e in expected:
        assert np.min(np.abs(rot - e)) < 1e-8 * e
    assert np.all(np.asarray(forward[0]) > 0)  # a zero scale would let an all-zero output pass
    assert np.min(np.abs(fixed - forward[0])) < 1e-8 * forward[0]


def test_bad_spin_arguments_are_reported():
    model = rotating_beam(2, element="beam2d")
    with pytest.raises(InputError, match="z axis"):
        steady_spin(model, 1.0, axis=(1.0, 0.0, 0.0))
    with pytest.raises(InputError, match="frame"):
        steady_spin(model, 1.0, frame="body")


def test_first_order_state_matrix_has_the_same_spectrum():
    lin = steady_spin(particle(4.0), 0.5, mass="consistent")
    ev = np.linalg.eigvals(lin.first_order())
    assert np.allclose(np.sort(ev.imag), [-2.5, -1.5, 1.5, 2.5], rtol=1e-12)


def test_centrifugal_pendulum_swings_at_spin_times_sqrt_hub_over_length():
    """A bob on a rod of length l pinned at radius R on a hub spinning at Ω (distance joint,
    rotating frame): the joint tension m Ω²(R + l) found by the relative equilibrium gives,
    with spin softening, the in-plane frequency Ω·sqrt(R/l) of the centrifugal pendulum
    (the order-tuned vibration absorber)."""
    R, l, m, spin = 0.3, 0.05, 0.2, 40.0
    mesh = Mesh(np.array([[R + l, 0.0]]), {}, {"bob": np.array([0])})
    model = Model(mesh, name="centrifugal pendulum")
    model.add_discrete("bob_mass", "point_mass2d_translational", "bob", m=m)
    model.distance(None, "bob", point=(R, 0.0), length=l, name="rod")
    lin = steady_spin(model, spin, mass="lumped")
    assert lin.multipliers[0] == pytest.approx(m * spin**2 * (R + l), rel=1e-10)
    res = lin.modes(1)
    assert res.eigenvalues.size == 1
    assert res.damped_frequency[0] == pytest.approx(spin * np.sqrt(R / l), rel=1e-10)
