"""The tube-and-channel model of the spatial spin-up (validation case meijaard-spinup-spatial)
must be mesh-independent: its channel is a centroid line (mass, EA) and a shear-centre line
(S_t,eff, EI's) joined by stiff links, and any bending rigidity left on the centroid line
shears it under twist and stiffens the channel more the finer the mesh."""
import numpy as np

from femb.solvers import solve_static
from femb.validation.dynamic3d_cases import KRB, spatial_spin_up_beam


def _static_tip_twist(n_channel, small):
    """Tip twist (rad) of the clamped, non-spinning beam under a 0.1 N lateral (in-plane)
    force at the tip centroid: the force acts z0 away from the shear centre."""
    model = spatial_spin_up_beam(2, n_channel, small=small)
    model.prescribed.clear()
    model.fixed.clear()
    model.fix("root", "all")
    model.point_load("tip", fy=0.1)
    res = solve_static(model, steps=1)
    return float(res.dof(int(model.node("tip")), "rx")[-1])


def test_channel_twist_under_an_eccentric_load_is_mesh_independent_and_matches_the_torsion_rigidity():
    twists = np.array([_static_tip_twist(n, 0.0) for n in (4, 16, 64)])
    model = spatial_spin_up_beam(2, 4)
    torque = 0.1 * abs(KRB["ch_z0"])
    linear = torque * (KRB["channel"] / model.info["St_eff"] + KRB["tube"] / KRB["tube_St"])
    assert np.all(np.asarray(abs(twists[0])) > 0)  # a zero scale would let an all-zero output pass
    assert np.ptp(twists) <= 1e-4 * abs(twists[0])
    # moderately large deflection (1.2 % of the length): the linear twist to 1e-3
    assert np.all(np.asarray(linear) > 0)  # a zero scale would let an all-zero output pass
    assert abs(abs(twists[-1]) - linear) <= 1e-3 * linear


def test_bending_rigidity_on_the_centroid_line_stiffens_the_channel_under_refinement():
    """Negative control: 1e-3 of the flexural rigidities on the centroid line cuts the tip
    twist by more than 20 % at 64 pairs (the energy ratio 24 EI z0²/(S_t L_e²) ≈ 1)."""
    coarse, fine = _static_tip_twist(4, 1e-3), _static_tip_twist(64, 1e-3)
    assert np.all(np.asarray(abs(coarse)) > 0)  # a zero scale would let an all-zero output pass
    assert abs(fine) < 0.8 * abs(coarse)
