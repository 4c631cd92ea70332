"""Spin-up B with the beam as one co-rotated Craig–Bampton superelement on the hub (k = 4,
foreshortening): the tip extreme against Meijaard's, the divergence of the same body
without foreshortening, and the rotating frequencies at Ω = 6 rad/s from a free vibration
at steady spin and from the linearization about the steady spin (femb.steady_spin, then
femb.linearize in the turning frame at its relative equilibrium: the mass points' exact
inertia, Coriolis and centrifugal terms)."""
import numpy as np

import femb
from femb.mesh.mesh import Mesh
from femb.validation.superelement_spinup_cases import OMEGA, blade_component, superelement_spinup_case


def linearized_frequencies(k=4, n=16):
    """(chord, flap) rad/s of the blade superelement (k modes, foreshortening) on a fixed hub
    linearized about the steady spin Ω, and (chord, flap) of the unreduced blade's steady
    spin (16 beam3d_timoshenko elements, lumped mass)."""
    comp = blade_component(n)
    rc = femb.reduce_component(comp, [comp.node("beam_start")], k, mass="lumped")
    model = femb.Model(Mesh(np.zeros((1, 3))), name="blade superelement at steady spin")
    model.add_superelement("blade", rc.superelement(foreshortening=True), [0])
    model.fix(0, "all")
    spin = femb.steady_spin(model, OMEGA)
    lin = femb.linearize(model, spin.state, spin=(0.0, 0.0, OMEGA))
    chord, flap = np.sort(lin.complex_modes(4).damped_frequency)[:2]
    full = blade_component(n)
    full.fix(full.node("beam_start"), "all")
    fchord, fflap = np.sort(femb.steady_spin(full, OMEGA).modes(4).damped_frequency)[:2]
    return (float(chord), float(flap)), (float(fchord), float(fflap))


def run(quick, out_dir):
    """Metrics of cb-spinup (validation/README.md)."""
    result = superelement_spinup_case(quick)
    (chord, flap), (fchord, fflap) = linearized_frequencies()
    result["metrics"].update({"chord_1_linearized": chord, "flap_1_linearized": flap,
                              "chord_1_unreduced": fchord, "flap_1_unreduced": fflap})
    return result
