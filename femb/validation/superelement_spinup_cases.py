"""Runner of the validation case cb-spinup: Meijaard's spin-up B with the beam as ONE
co-rotated Craig–Bampton superelement on the hub.

The beam (L = 10 m, Simo & Vu-Quoc data, 16 beam3d_timoshenko elements) is reduced on its
root node with k fixed-interface modes and lumped mass; the superelement's only interface
node is the hub, whose rotation about z follows Meijaard's spin-up law to Ω = 6 rad/s at
T = 15 s. A linear reduced body has no stiffening from the centrifugal field: its
bending stiffness alone cannot hold the blade once Ω exceeds its first frequency
(3.79 rad/s) and the tip diverges. With foreshortening (the second-order fields of the
modal amplitudes in the points' kinematics, femb.solvers.reduction.modal_derivatives) the
centrifugal field does work on the blade's drawing-in as it bends, which is the stiffening.
The tip deflection in the rotating frame is recovered from the full mesh
(femb.results.superelements.superelement_positions).
"""
import numpy as np

from femb.core.errors import ConvergenceError
from femb.correlation import build_table
from femb.mesh import line_mesh
from femb.mesh.mesh import Mesh
from femb.model import Material, Model, Section
from femb.results.superelements import superelement_positions
from femb.solvers.dynamics.driver import solve_dynamic
from femb.solvers.reduction.component import reduce_component
from femb.validation.models import spin_up_angle
from femb.validation.signals import first_local_extremum

L, OMEGA, T_UP = 10.0, 6.0, 15.0


def blade_component(n=16):
    """The spin-up B beam (EA = 2.8e7, EI = 1.4e4, GA = 1e7, ρA = 1.2) along x from the hub."""
    model = Model(line_mesh((0.0, 0.0, 0.0), (L, 0.0, 0.0), n, "beam"), dim=3, name="spin-up B blade")
    material = Material(E=2.8e7, G=1.0e7, rho=1.2, name="Simo-Vu-Quoc beam")
    section = Section(A=1.0, Iy=5.0e-4, Iz=5.0e-4, J=1.0e-3, shear_factor=1.0, name="EA=2.8e7, EI=1.4e4")
    model.add_part("beam", "beam3d_timoshenko", "beam", material, section)
    return model


def spinup_model(k=4, foreshortening=True, n=16, angle=None):
    """(model, component): one superelement (k modes, on the root) whose hub node is
    clamped except for its rotation about z, which follows ``angle`` (default: the spin-up
    law)."""
    comp = blade_component(n)
    rc = reduce_component(comp, [comp.node("beam_start")], k, mass="lumped")
    model = Model(Mesh(np.array([[0.0, 0.0, 0.0]])), name=f"cb spin-up (k = {k})")
    model.add_superelement("blade", rc.superelement(foreshortening=foreshortening), [0])
    model.fix(0, ("ux", "uy", "uz", "rx", "ry"))
    model.prescribe(0, "rz", function=angle or spin_up_angle(OMEGA, T_UP))
    return model, comp


def tip_motion(model, comp, res, angle):
    """(w, z) (n_frames,): the tip's deflection in the rotating frame and out of the plane."""
    tip = int(comp.node("beam_end"))
    w, z = [], []
    for i, t in enumerate(res.times):
        _, x = superelement_positions(model, res.table, "blade", res.states[i], res.arrays["rotations"][i])
        th = angle(t)
        w.append(-np.sin(th) * x[tip, 0] + np.cos(th) * x[tip, 1])
        z.append(x[tip, 2])
    return np.array(w), np.array(z)


def peak_frequency(t, y):
    """Angular frequency (rad/s) of the strongest line of y(t) (uniform samples): the peak of
    the Hann-windowed spectrum, zero-padded 16×, refined by a parabola through the three
    largest bins."""
    y = (y - y.mean()) * np.hanning(y.size)
    n = 16 * y.size
    Y = np.abs(np.fft.rfft(y, n=n))
    i = int(np.argmax(Y[1:-1])) + 1
    a, b, c = np.log(Y[i - 1: i + 2] + 1e-300)
    shift = 0.5 * (a - c) / (a - 2.0 * b + c)
    return float(2.0 * np.pi * (i + shift) / (n * (t[1] - t[0])))


def superelement_spinup_case(quick=True):
    """Metrics of cb-spinup (validation/README.md)."""
    dt = 0.01
    angle = spin_up_angle(OMEGA, T_UP)
    model, comp = spinup_model(4, True)
    res = solve_dynamic(model, dt, 8.0 if quick else 25.0, record_every=2)
    w, _ = tip_motion(model, comp, res, angle)
    t = np.asarray(res.times)
    peak, t_peak = first_local_extremum(t, w, threshold=1e-2, sign=-1.0)
    E = res.series("total_energy")
    energy = float(np.abs(res.series("energy_residual")).max() / max(np.abs(E).max(), 1e-300))
    # without foreshortening: the linear reduced body diverges once Ω passes its first frequency
    plain, pcomp = spinup_model(4, False)
    try:
        pres = solve_dynamic(plain, dt, 12.0, record_every=10)
        pw, _ = tip_motion(plain, pcomp, pres, angle)
        diverges = bool(np.abs(pw).max() > L)
        plain_max = float(np.abs(pw).max())
    except ConvergenceError:
        diverges, plain_max = True, float("inf")
    # rotating frequencies at steady spin Ω: free vibration from modal velocities
    steady, scomp = spinup_model(4, True, angle=lambda s: OMEGA * s)
    tab = build_table(steady)
    v0 = np.zeros(tab.n_var)
    v0[tab.var_of(0, "rz")] = OMEGA
    v0[tab.internal_vars("blade")[:2]] = 0.05
    sres = solve_dynamic(steady, 0.005, 10.0 if quick else 20.0, v0=v0, record_every=2)
    sw, sz = tip_motion(steady, scomp, sres, lambda s: OMEGA * s)
    st = np.asarray(sres.times)
    metrics = {"tip_extreme": peak, "tip_extreme_time": t_peak, "energy_residual": energy,
               "unstiffened_diverges": float(diverges), "unstiffened_tip_max": plain_max,
               "flap_1": peak_frequency(st, sz), "chord_1": peak_frequency(st, sw),
               "newton_iterations_per_step": float(res.info["newton_iterations"] / res.info["steps"])}
    return {"metrics": metrics,
            "series": {"history": {"curves": [{"x": t.tolist(), "y": w.tolist(), "label": "one superelement, k = 4"},
                                              {"x": [t_peak], "y": [peak], "label": "extreme", "style": "markers"}],
                                   "xlabel": "t [s]", "ylabel": "tip deflection in the rotating frame [m]",
                                   "title": "spin-up B, blade as one Craig–Bampton superelement"}}}
