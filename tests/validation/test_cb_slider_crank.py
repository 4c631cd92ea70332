"""cb-slider-crank: Meijaard's flexible slider-crank (case 1, ω = 124.8 rad/s, massless
slider) in 3-D with the connecting rod as one co-rotated Craig–Bampton superelement, in the
quick setting of the validation case (16 beam3d elements reduced, Δt = 4e-5 s)."""
import numpy as np
import pytest

from femb.validation.analytic import slider_crank_reduced
from femb.validation.superelement_mechanism_cases import PAPER_PEAK, cb_slider_crank_case, slider_crank_run, slider_crank_superelements

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def quick():
    return cb_slider_crank_case(quick=True)["metrics"]


def test_the_reduced_model_without_axial_force_peaks_seven_percent_above_the_paper():
    stiff, _, _, _ = slider_crank_reduced(124.8, 0.0)
    linear, angle, _, _ = slider_crank_reduced(124.8, 0.0, geometric=False)
    assert stiff == pytest.approx(PAPER_PEAK, rel=5e-4)
    assert linear == pytest.approx(0.010473, rel=1e-4) and angle == pytest.approx(0.7102, abs=1e-3)
    assert linear / stiff - 1.0 == pytest.approx(0.0735, abs=5e-4)


def test_one_superelement_rod_without_stiffening_peaks_as_a_linear_body(quick):
    """Without G the superelement is a linear body in its chord frame: the reduced model
    without axial force (0.010473) within 0.5 %, 7 % above the paper."""
    assert quick["linear_first_peak"] == pytest.approx(0.010473, rel=5e-3)
    assert quick["linear_first_peak"] == pytest.approx(0.0104586, rel=1e-4)


def test_one_stiffened_superelement_rod_meets_the_paper_and_the_beam_chain(quick):
    """With G (projected Green-strain energy) the axial force stiffens the rod inside one
    superelement: k = 4 peaks at the paper's 0.00976 within 2 % (measured −0.35 %) and at
    the beam3d chain's within 0.5 % (measured +0.05 %), converged in k = 2, 4, 8."""
    assert quick["first_peak"] == pytest.approx(PAPER_PEAK, rel=0.02)
    assert quick["first_peak"] == pytest.approx(quick["beam_chain_peak"], rel=5e-3)
    assert quick["k_convergence"] <= 5e-3
    assert quick["energy_residual"] <= 1e-8


def test_the_floating_frame_rod_without_stiffening_is_the_same_linear_body(quick):
    """femb's 2-D floating-frame rod (beam2d_floating, no geometric stiffening) peaks at
    0.010446 with 16 elements at Δt = 4e-5 s, within 1e-3 of the k = 8 superelement."""
    assert quick["floating_frame_peak"] == pytest.approx(0.0104464, rel=1e-4)
    assert abs(quick["floating_frame_agreement"]) < 2e-3


def test_a_chain_of_four_superelements_meets_the_paper(quick):
    assert quick["superelement_chain_peak"] == pytest.approx(PAPER_PEAK, rel=0.02)
    assert quick["superelement_chain_peak"] == pytest.approx(0.0097235, rel=1e-4)  # 4 superelements with G


def test_a_revolute_crank_and_an_on_line_slider_give_the_same_peak_as_the_supports():
    """Rigid crank (rigid_body3d, rz = ωt) on a revolute joint, slider on the x axis: the
    joints act on the superelement's interface nodes as the supports do."""
    runs = [slider_crank_run(slider_crank_superelements(4, 16, joints=j), 4e-5, end_angle=0.8) for j in (False, True)]
    assert runs[1]["peak"] == pytest.approx(runs[0]["peak"], rel=1e-8)
    assert np.abs(runs[1]["w"] - runs[0]["w"]).max() < 1e-10
    assert runs[1]["energy_residual"] < 1e-8
