"""The ``modal`` step type of case files: natural modes about the undeformed state.

The Results hold one frame per mode: time = frequency in Hz, state = the mode shape
scaled to a largest translation of ``amplitude``; history ``mode``, ``frequency_hz``,
``omega`` (rad per time unit, negative for unstable directions). Written to ParaView, the
collection is a series of one ``.vtu`` per mode (the mode shape as ``displacement``, the
frequency as ``TimeValue`` and ``frequency_hz``), to step through or animate.
"""
import numpy as np

from femb.case.steps import largest_translation, register_step_type
from femb.results import Results
from femb.solvers import solve_modal

MASS_KINDS = ("lumped", "consistent", "invariant")


def parse_modal(table, ctx):
    table.allowed += ["n_modes", "mass", "amplitude"]
    return {
        "n_modes": table.take("n_modes", "integer", default=6, minimum=1),
        "mass": table.take("mass", "string", default="lumped", choices=MASS_KINDS),
        "amplitude": table.take("amplitude", "number", default=1.0, positive=True),
    }


def run_modal(model, settings, on_frame):
    modal = solve_modal(model, settings["n_modes"], mass=settings["mass"])
    table = modal.table
    results = Results(table, "modal", model)
    for i, (omega, mode) in enumerate(zip(modal.omega, modal.modes)):
        scale = largest_translation(table, mode)
        shape = mode * (settings["amplitude"] / scale) if scale > 0 else mode
        f = float(omega) / (2.0 * np.pi)
        results.record(f, shape, mode=i + 1, frequency_hz=f, omega=float(omega))
    results.info.update(n_modes=len(results), mass=settings["mass"], frequencies_hz=[float(f) for f in modal.frequency_hz],
                        omega=[float(w) for w in modal.omega], amplitude=settings["amplitude"])
    on_frame(results)
    return results


register_step_type("modal", parse_modal, run_modal, lambda s: s["n_modes"], "natural frequencies and mode shapes")
