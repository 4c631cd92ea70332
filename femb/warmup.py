"""Filling the kernel cache ahead of a first run (``femb compile``).

femb compiles its numba kernels at their first call and keeps the machine code in the
kernel cache (femb.core.jit). A first run of a kind of model therefore spends seconds to
tens of seconds of CPU compiling (benchmarks/README.md, "Start-up: numba compilation").
:func:`warm_up` runs small models of the kinds a first run usually is, each for a step or
two, so that this cost is paid once, at a moment of the user's choosing (after installing,
in the background, in a container build), instead of in the first real run:

- ``statics2d``: the README's first model, a beam2d cantilever rolled up by an end moment
  (static load steps);
- ``dynamics2d``: the planar spin-up of a beam2d beam (energy-conserving mid-point steps);
- ``dynamics3d``: spin-up B with beam3d_timoshenko elements (3-D mid-point steps, lumped
  and "invariant" mass);

each with the cell fields of a ParaView frame of its last state (section resultants,
element strain energies: femb.export.fields).

The runs use the public solvers on the models of femb.validation, so they compile exactly
the kernels (and signatures) those kinds of runs use; a second ``femb compile`` on a filled
cache loads and compiles nothing new, in about a second.
"""
import time
import warnings
from typing import Callable, Iterable, Optional

import numpy as np

from femb.core.jit import CACHE_DIR, COMPILE_SECONDS


def _fields(results) -> None:
    """The cell fields of the last frame, as an export of the results computes them."""
    from femb.export.fields import FieldRecovery

    FieldRecovery(results.table, results.model.mesh.points).cell_data(results.states[-1])


def _statics2d() -> None:
    from femb.mesh import line_mesh
    from femb.model import Material, Model, Section
    from femb.solvers import solve_static

    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 4, "beam"))
    model.add_part("beam", "beam2d", "beam", material=Material(E=210e9, rho=7850.0), section=Section(A=1e-4, I=1e-9))
    model.fix("beam_start")
    model.point_load("beam_end", mz=0.1 * np.pi * 210e9 * 1e-9)
    _fields(solve_static(model, steps=2))


def _dynamics2d() -> None:
    from femb.solvers import solve_dynamic
    from femb.validation.models import spin_up_beam

    _fields(solve_dynamic(spin_up_beam("B", 2), 0.01, 0.01))


def _dynamics3d() -> None:
    from femb.solvers import solve_dynamic
    from femb.solvers.dynamics.driver import DynamicSettings
    from femb.validation.dynamic3d_cases import spin_up_beam_3d

    for mass in ("lumped", "invariant"):
        _fields(solve_dynamic(spin_up_beam_3d(2), 0.01, 0.01, DynamicSettings(mass=mass)))


# kind -> (what it compiles, the run)
KINDS: dict[str, tuple[str, Callable[[], None]]] = {
    "statics2d": ("planar static load steps (beam2d)", _statics2d),
    "dynamics2d": ("planar mid-point steps (beam2d)", _dynamics2d),
    "dynamics3d": ("3-D mid-point steps (beam3d_timoshenko)", _dynamics3d),
}


def warm_up(kinds: Optional[Iterable[str]] = None,
            report: Optional[Callable[[str, float, float], None]] = None) -> dict[str, float]:
    """Run the warm-up model of each kind in ``kinds`` (default: every kind of ``KINDS``),
    which compiles what such a run needs into the kernel cache (``femb.core.jit.CACHE_DIR``)
    unless it is there already. Returns kind -> CPU s spent compiling for it in this
    process (0.0: everything came from the cache); ``report(kind, compile_s, cpu_s)`` is
    called after each kind."""
    chosen = list(KINDS) if kinds is None else list(kinds)
    unknown = [k for k in chosen if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown warm-up kind(s) {unknown}; known: {sorted(KINDS)}")
    spent = {}
    for kind in chosen:
        before = sum(COMPILE_SECONDS.values())
        t0 = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            KINDS[kind][1]()
        spent[kind] = sum(COMPILE_SECONDS.values()) - before
        if report is not None:
            report(kind, spent[kind], time.process_time() - t0)
    return spent


def cache_folder() -> str:
    """The kernel cache folder the warm-up fills (it depends on the kernel sources)."""
    return str(CACHE_DIR)
