"""The tube-and-channel model of the spatial spin-up (validation case meijaard-spinup-spatial):
its channel is one line of beam3d elements on the centroid line with an eccentric section
(shear centre z0 away along the shaft). It must be mesh-independent, twist by the torsion
rigidity under an eccentric load, and equal Meijaard's linked-lines model of the channel
(a centroid line with mass and EA and a shear-centre line with S_t,eff and the EI's,
joined by links) in the linear limit."""
import numpy as np

from femb.solvers import solve_static
from femb.validation.dynamic3d_cases import KRB, spatial_spin_up_beam, spatial_spin_up_linked


def _static_tip(model, load):
    """Tip-centroid (ux, uy, uz, rx, ry, rz) of the clamped, non-spinning beam under a
    small tip force (fx, fy, fz) at the tip centroid."""
    model.prescribed.clear()
    model.fixed.clear()
    model.fix("root", "all")
    model.point_load("tip", fx=load[0], fy=load[1], fz=load[2])
    res = solve_static(model, steps=1)
    tip = int(model.node("tip"))
    return np.array([res.dof(tip, k)[-1] for k in ("ux", "uy", "uz", "rx", "ry", "rz")])


def test_channel_twist_under_an_eccentric_load_is_mesh_independent_and_matches_the_torsion_rigidity():
    """A lateral (in-plane) tip force at the centroid acts z0 away from the shear centre:
    torque 0.1 N · |z0|, twist T (L_channel/S_t,eff + L_tube/S_t,tube), the same for 4, 16
    and 64 channel elements (two-node elements are exact for a constant torque)."""
    twists = np.array([_static_tip(spatial_spin_up_beam(2, n), (0.0, 0.1, 0.0))[3] for n in (4, 16, 64)])
    model = spatial_spin_up_beam(2, 4)
    torque = 0.1 * abs(KRB["ch_z0"])
    linear = torque * (KRB["channel"] / model.info["St_eff"] + KRB["tube"] / KRB["tube_St"])
    assert np.all(np.asarray(abs(twists[0])) > 0)  # a zero scale would let an all-zero output pass
    assert np.ptp(twists) <= 1e-4 * abs(twists[0])
    # moderately large deflection (1.2 % of the length): the linear twist to 1e-3
    assert abs(abs(twists[-1]) - linear) <= 1e-3 * linear


def test_eccentric_section_equals_the_linked_lines_in_the_linear_limit():
    """Small tip forces along the three axes: the eccentric section and the linked lines
    with links 10⁷–10⁹ times stiffer than the channel give the same tip response to the
    links' compliance (measured 3.7e-7); with softer links (EA = 1e6 N, EI = GJ = 100 N·m²)
    the linked lines are a few per cent more flexible (the links' own compliance)."""
    for load in ((1e-4, 0.0, 0.0), (0.0, 1e-4, 0.0), (0.0, 0.0, 1e-2)):
        a = _static_tip(spatial_spin_up_beam(2, 8), load)
        b = _static_tip(spatial_spin_up_linked(2, 8, link_rigidity=(1e9, 1e7)), load)
        assert np.abs(a).max() > 0
        assert np.abs(a - b).max() <= 1e-6 * np.abs(a).max(), load
    soft = _static_tip(spatial_spin_up_linked(2, 8), (0.0, 1e-4, 0.0))
    stiff = _static_tip(spatial_spin_up_beam(2, 8), (0.0, 1e-4, 0.0))
    assert 0.01 < abs(soft[1] / stiff[1] - 1.0) < 0.1


def test_bending_rigidity_on_the_centroid_line_stiffens_the_linked_channel_under_refinement():
    """Negative control of the linked-lines model: 1e-3 of the flexural rigidities on the
    centroid line cuts the tip twist by more than 20 % at 64 pairs (the energy ratio
    24 EI z0²/(S_t L_e²) ≈ 1); the eccentric section has no such line."""
    def twist(n):
        return _static_tip(spatial_spin_up_linked(2, n, small=1e-3), (0.0, 0.1, 0.0))[3]
    coarse, fine = twist(4), twist(64)
    assert np.all(np.asarray(abs(coarse)) > 0)  # a zero scale would let an all-zero output pass
    assert abs(fine) < 0.8 * abs(coarse)
