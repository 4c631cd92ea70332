"""Shared runners of the dynamic validation cases (slider-cranks and spin-ups)."""
import numpy as np

from femb.solvers.dynamics.driver import solve_dynamic
from femb.validation.models import rod_midpoint_deflection, slider_crank, spin_up_angle, spin_up_beam, tip_deflection_in_rotating_frame
from femb.validation.signals import first_local_extremum, half_amplitude


def slider_crank_peaks(omega, slider_mass, meshes, steps, end_angle=1.2):
    """First local maximum of the rod midpoint deflection / L and the crank angle where it
    occurs, for each (mesh, step) pair; returns a list of dicts."""
    out = []
    for n, dt in zip(meshes, steps):
        model = slider_crank(n_rod=n, omega=omega, slider_mass=slider_mass)
        res = solve_dynamic(model, dt, end_angle / omega, mass="lumped")
        w = rod_midpoint_deflection(res)
        peak, angle = first_local_extremum(omega * np.asarray(res.times), w, threshold=1e-3)
        out.append({"n": n, "dt": dt, "peak": peak, "angle": angle, "theta": omega * np.asarray(res.times), "w": w,
                    "energy_residual": float(np.max(np.abs(res.series("energy_residual"))))})
    return out


def slider_crank_case(omega, slider_mass, quick):
    """Metrics of a slider-crank case: mesh 16 (quick) or 32 at Δt = 1e-5 s, plus the same
    mesh at three step sizes to show the peak is step-converged; the first peak and its
    crank angle of the reduced model (femb.validation.analytic.slider_crank_reduced), which
    provides the reference angle the paper does not give."""
    from femb.validation.analytic import slider_crank_reduced

    n = 16 if quick else 32
    runs = slider_crank_peaks(omega, slider_mass, [n, n, n], [4e-5, 2e-5, 1e-5])
    peaks = np.array([r["peak"] for r in runs])
    fine = runs[-1]
    reduced_peak, reduced_angle, reduced_theta, reduced_w = slider_crank_reduced(omega, slider_mass)
    return {
        "metrics": {
            "first_peak": fine["peak"],
            "first_peak_angle": fine["angle"],
            "step_spread": float((peaks.max() - peaks.min()) / abs(peaks[-1])),
            "energy_residual": max(r["energy_residual"] for r in runs),
            "reduced_model_peak": reduced_peak,
            "reduced_model_angle": reduced_angle,
        },
        "series": {"history": {"curves": [{"x": fine["theta"].tolist(), "y": fine["w"].tolist(), "label": f"femb, {n} elements"},
                                          {"x": [fine["angle"]], "y": [fine["peak"]], "label": "first peak", "style": "markers"},
                                          {"x": reduced_theta[::20].tolist(), "y": reduced_w[::20].tolist(),
                                           "label": "reduced model (4 modes)", "style": "dashed"}],
                               "xlabel": "crank angle [rad]", "ylabel": "w_mid / L",
                               "title": f"slider-crank ω = {omega} rad/s"}},
    }


def spin_up_case(case, quick, steps=(0.02, 0.01, 0.005)):
    """Metrics of a planar spin-up (16 elements, 25 s) at three step sizes: the extreme tip
    deflection in the rotating frame and the half-amplitude of the residual vibration
    after the spin-up (16 s .. 25 s) of the finest step, their spread over the three steps
    relative to the finest value, and the observed order of the extreme's step error
    from the three (ratio of successive differences, halving Δt)."""
    n = 16
    runs = []
    for dt in steps:
        model = spin_up_beam(case, n)
        theta = spin_up_angle(model.info["omega"], model.info["T"])
        res = solve_dynamic(model, dt, 25.0, mass="lumped")
        w = tip_deflection_in_rotating_frame(res, theta)
        t = np.asarray(res.times)
        peak, t_peak = first_local_extremum(t, w, threshold=1e-2, sign=-1.0)
        runs.append({"dt": dt, "t": t, "w": w, "peak": peak, "t_peak": t_peak, "residual": half_amplitude(w[t > 16.0])})
    peaks = np.array([r["peak"] for r in runs])
    residuals = np.array([r["residual"] for r in runs])
    fine = runs[-1]
    order = float(np.log2(abs(peaks[0] - peaks[1]) / abs(peaks[1] - peaks[2])))
    curves = [{"x": r["t"].tolist(), "y": r["w"].tolist(), "label": f"femb, {n} elements, Δt = {r['dt']} s"} for r in runs]
    return {
        "metrics": {"tip_extreme": fine["peak"], "tip_extreme_time": fine["t_peak"], "residual_amplitude": fine["residual"],
                    "extreme_step_spread": float((peaks.max() - peaks.min()) / abs(peaks[-1])),
                    "residual_step_spread": float((residuals.max() - residuals.min()) / residuals[-1]),
                    "extreme_step_order": order},
        "series": {"history": {"curves": curves + [{"x": [fine["t_peak"]], "y": [fine["peak"]], "label": "extreme", "style": "markers"}],
                               "xlabel": "t [s]", "ylabel": "tip deflection in the rotating frame [m]",
                               "title": f"spin-up {case}"}},
    }
