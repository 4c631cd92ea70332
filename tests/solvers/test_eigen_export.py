"""Mode shapes exported as animated ParaView series (femb.export.modes)."""
import meshio
import numpy as np
import pytest

from femb.export import read_pvd
from femb.export.modes import write_mode_animation
from femb.mesh import line_mesh
from femb.model import Material, Model, Section
from femb.solvers import solve_modal
from femb.solvers.eigen.steady_spin import steady_spin
from femb.validation.eigen_cases import overhung_rotor


def cantilever(n=8):
    mesh = line_mesh((0.0, 0.0), (2.0, 0.0), n, "beam")
    model = Model(mesh)
    model.add_part("beam", "beam2d", "beam", Material(E=1.0, rho=1e-4), Section(A=1e4, I=1.0))
    model.fix("beam_start")
    return model


def test_real_modes_are_written_as_one_sine_period(tmp_path):
    model = cantilever()
    res = solve_modal(model, 3, mass="consistent")
    paths = write_mode_animation(res, tmp_path, model, modes=[0, 2], n_frames=8, amplitude=0.3)
    assert [p.name for p in paths] == ["mode_0.pvd", "mode_2.pvd"]
    frames = read_pvd(paths[1])
    assert [t for t, _ in frames] == pytest.approx(np.arange(8) / 8)
    disp = [meshio.read(f).point_data["displacement"] for _, f in frames]
    assert np.abs(disp[0]).max() == pytest.approx(0.0, abs=1e-14)  # sin 0
    assert np.linalg.norm(disp[2], axis=1).max() == pytest.approx(0.3, rel=1e-12)  # sin π/2: the scaled mode
    assert np.allclose(disp[6], -disp[2], atol=1e-14)  # sin 3π/2
    t = res.table
    phi = res.modes[2]
    ux, uy = phi[t.node_var[:, 0]], phi[t.node_var[:, 1]]
    a = 0.3 / np.hypot(ux, uy).max()
    assert np.allclose(disp[2][:, :2], a * np.column_stack([ux, uy]), rtol=1e-12, atol=1e-15)
    text = frames[2][1].read_text()
    assert "frequency_hz" in text and "mode" in text


def test_a_whirl_mode_animates_as_a_circular_orbit_of_the_disk(tmp_path):
    model, disk = overhung_rotor(2)
    res = steady_spin(model, 200.0, axis=(1.0, 0.0, 0.0), frame="inertial", point_inertia=disk, mass="consistent").modes(2)
    paths = write_mode_animation(res, tmp_path, model, modes=[0], n_frames=12)
    tip = model.node("shaft_end")
    orbit = np.array([meshio.read(f).point_data["displacement"][tip] for _, f in read_pvd(paths[0])])
    radius = np.linalg.norm(orbit[:, 1:], axis=1)
    assert np.allclose(radius, radius[0], rtol=1e-9)  # circular whirl, no axial motion
    assert np.all(np.asarray(radius[0]) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(orbit[:, 0]).max() < 1e-9 * radius[0]
    assert "damping_ratio" in read_pvd(paths[0])[3][1].read_text()
