"""Cost of design re-analysis on a component-mode basis (Hutton & Smith), as fractions of the
baseline component mode synthesis.

Model: the portal frame of validation/hs-modification with N elements per member (three
components: left column, right column, beam), 12 modes kept per component. Timed in one
process, repeats interleaved, medians reported:

- baseline: reduce all three components and assemble the synthesis;
- re-analysis: the beam's stiffness changed (E × 1.3), only the beam component reduced
  again (the columns come from the cache);
- forward: the same change by forward modification on the baseline basis (no component
  reduced);
- full: eigenvalues of the unreduced model with the change (dense, for reference).

Run: python benchmarks/modification_cost.py [N]   (default N = 150)
"""
import sys
import time

import numpy as np

from femb.solvers.reduction.free_interface import ComponentModeSynthesis
from femb.solvers.reduction.modification import StructuralModification, young_modulus
from femb.solvers.reduction.substructures import component_matrices
from femb.validation.modification_cases import portal_frame

PARTS = ("left", "right", "beam")
MODES = 12
REPEATS = 3


def main(n):
    frame = portal_frame(n=n)
    changed = portal_frame(beam_scale=1.3, n=n)
    comps = [component_matrices(frame, [p], p) for p in PARTS]
    new_beam = component_matrices(changed, ["beam"], "beam")
    times = {"baseline": [], "re-analysis": [], "forward": [], "full": []}
    for _ in range(REPEATS):
        t = time.perf_counter()
        cms = ComponentModeSynthesis(comps, MODES)
        w_base = cms.eigen().frequencies
        times["baseline"].append(time.perf_counter() - t)

        t = time.perf_counter()
        again = cms.replace(new_beam)
        w_redo = again.eigen().frequencies
        times["re-analysis"].append(time.perf_counter() - t)
        assert again.reductions_computed == 1

        sm = StructuralModification(cms, [young_modulus(frame, cms, "beam", ["beam"])])
        t = time.perf_counter()
        w_fwd = sm.modify([0.3]).frequencies
        times["forward"].append(time.perf_counter() - t)

        t = time.perf_counter()
        w_full = np.sqrt(np.maximum(sm.full_reanalysis(frame, [0.3]), 0.0))
        times["full"].append(time.perf_counter() - t)
    med = {k: float(np.median(v)) for k, v in times.items()}
    dofs = sum(c.n_dofs for c in comps)
    print(f"portal frame, {n} elements per member, {dofs} component DOFs, {MODES} modes per component, "
          f"{cms.n_coordinates} synthesis coordinates; medians of {REPEATS}")
    print(f"{'analysis':<12} {'seconds':>9} {'/ baseline':>11}   first four frequencies (rad/s)")
    for k, w in (("baseline", w_base), ("re-analysis", w_redo), ("forward", w_fwd), ("full", w_full)):
        print(f"{k:<12} {med[k]:9.4f} {med[k] / med['baseline']:11.3f}   {np.array2string(w[:4], precision=6)}")
    print(f"forward vs full re-analysis, first four: max rel. error {np.max(np.abs(w_fwd[:4] / w_full[:4] - 1)):.2e}; "
          f"re-analysis vs full: {np.max(np.abs(w_redo[:4] / w_full[:4] - 1)):.2e}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 150)
