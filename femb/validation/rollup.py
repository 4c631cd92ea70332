"""The shared result of the cantilever roll-up cases (validation/rollup-2d, rollup-3d):
convergence rate of the worst tip error, its table and the series of the report."""
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from femb.validation.analytic import rollup_tip
from femb.validation.rates import fit_rate


def rollup_result(length: float, meshes: Sequence[int], errors: Sequence[float], rot_errors: Sequence[float],
                  out_dir: Path, title: str, error_label: str, path_title: str, path_ylabel: str,
                  exact_label: str, tip_curves: list) -> dict[str, Any]:
    """Metrics and series of a roll-up case whose meshes of ``meshes`` elements on a
    cantilever of ``length`` gave the worst tip-position errors / length ``errors`` and
    tip-rotation errors [rad] ``rot_errors``: the fitted rate of log(error) against log(h),
    h = length/n (the table written to out_dir/convergence.csv), and the tip path plot
    with the exact constant-curvature arc (``exact_label``) under the computed
    ``tip_curves`` (curve dicts in units of the length). ``title`` heads the convergence
    plot, ``path_title`` the path plot (its ordinate ``path_ylabel``)."""
    h = length / np.asarray(meshes, dtype=float)
    rate, _ = fit_rate(h, errors)
    np.savetxt(out_dir / "convergence.csv", np.column_stack([meshes, h, errors]), delimiter=",",
               header="n_elements,h,max_tip_error_over_L", comments="")
    kappa = np.linspace(0.0, 2.0 * np.pi / length, 400)
    xe, ye = rollup_tip(kappa, length)
    return {
        "metrics": {"tip_error_over_L": errors[-1], "rate": rate, "tip_rotation_error": max(rot_errors)},
        "series": {
            "convergence": {"h": h, "error": errors, "rate": rate, "xlabel": "h / L", "ylabel": error_label,
                            "title": f"{title}: tip error"},
            "history_tip_path": {
                "title": path_title, "xlabel": "x / L", "ylabel": path_ylabel,
                "curves": [{"label": exact_label, "x": xe / length, "y": ye / length, "style": "line"}, *tip_curves],
            },
        },
    }
