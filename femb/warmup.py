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
- ``alpha3d``: the same model under the Lie-group generalized-α scheme (its compiled 3-D
  steps, lumped and "invariant" mass);
- ``rigid3d``: rigid bodies and a point mass on 3-D joints of every kind (the compiled
  jointed rigid-body steps);
- ``joints3d``: beam3d links with rigid bodies, 3-D joints and rotational spring-dampers
  between oriented nodes, as examples/spatial_arm.py (the general 3-D mid-point path);
- ``superelement``: a Craig–Bampton superelement spun up about its hub (the compiled
  superelement steps);

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


def _alpha3d() -> None:
    from femb.solvers import GeneralizedAlpha, solve_dynamic
    from femb.solvers.dynamics.driver import DynamicSettings
    from femb.validation.dynamic3d_cases import spin_up_beam_3d

    for mass in ("lumped", "invariant"):
        settings = DynamicSettings(scheme=GeneralizedAlpha(rho_inf=0.9), mass=mass)
        _fields(solve_dynamic(spin_up_beam_3d(2), 0.01, 0.01, settings))


def _rigid3d() -> None:
    from femb.mesh import Mesh
    from femb.model import Model
    from femb.solvers import solve_dynamic

    pts = np.array([[0.0, 0.0, 0.0], [0.4, 0.3, -0.2], [0.9, 0.1, 0.3], [1.2, -0.4, 0.1], [1.5, 0.2, 0.6], [2.0, 0.0, 0.0]])
    model = Model(Mesh(pts, {}, {str(i): [i] for i in range(len(pts))}), dim=3, name="jointed bodies")
    for i in range(len(pts)):
        model.add_discrete(f"body {i}", "rigid_body3d", str(i), m=1.0, Jxx=0.1, Jyy=0.2, Jzz=0.25)
    model.add_discrete("lump", "point_mass3d", "3", m=0.4)
    model.joint3d("spherical", "0", None, point=(0.0, 0.0, 0.0), name="ball")
    for i, kind in enumerate(("spherical", "revolute", "universal", "cylindrical", "prismatic")):
        model.joint3d(kind, str(i), str(i + 1), axis=(0.0, 0.6, 0.8), name=f"{kind} {i}")
    model.gravity((0.0, 0.0, -9.81))
    solve_dynamic(model, 0.01, 0.02)


def _joints3d() -> None:
    from femb.mesh import Mesh, line_mesh
    from femb.model import Material, Model, Section
    from femb.solvers import solve_dynamic

    mesh = Mesh.merge(line_mesh((0.0, 0.0, 0.0), (0.5, 0.0, 0.0), 2, "a"),
                      line_mesh((0.53, 0.0, 0.0), (1.0, 0.0, 0.0), 2, "b"), tolerance=1e-9)
    model = Model(mesh, dim=3, name="jointed links")
    section = Section(A=1e-4, I=1e-9, J=2e-9)
    for part in ("a", "b"):
        model.add_part(part, "beam3d", part, Material(E=70e9, nu=0.33, rho=2700.0), section)
    model.add_discrete("hub", "rigid_body3d", "a_start", m=1.0, Jxx=0.01, Jyy=0.01, Jzz=0.02)
    model.add_discrete("tip", "rigid_body3d", "b_end", m=0.5, Jxx=0.001, Jyy=0.001, Jzz=0.001)
    model.add_discrete("spring", "rotational_spring3d", ("a_end", "b_start"), k=100.0, c=1.0, axis=(0.0, 1.0, 0.0))
    model.fix("a_start", ("ux", "uy", "uz", "rx", "ry"))
    model.prescribe("a_start", "rz", function=lambda t: t * t)
    model.joint3d("universal", "a_end", "b_start", axis=(0.0, 0.0, 1.0), name="elbow")
    model.gravity((0.0, 0.0, -9.81))
    _fields(solve_dynamic(model, 0.005, 0.01))


def _superelement() -> None:
    from femb.solvers import solve_dynamic
    from femb.validation.superelement_spinup_cases import spinup_model

    model, _ = spinup_model(k=2, foreshortening=False, n=4)
    solve_dynamic(model, 0.01, 0.02)


# kind -> (what it compiles, the run)
KINDS: dict[str, tuple[str, Callable[[], None]]] = {
    "statics2d": ("planar static load steps (beam2d)", _statics2d),
    "dynamics2d": ("planar mid-point steps (beam2d)", _dynamics2d),
    "dynamics3d": ("3-D mid-point steps (beam3d_timoshenko)", _dynamics3d),
    "alpha3d": ("3-D generalized-alpha steps (beam3d_timoshenko)", _alpha3d),
    "rigid3d": ("jointed rigid-body steps (rigid_body3d, joint3d)", _rigid3d),
    "joints3d": ("3-D beams with joints, rigid bodies and spring-dampers", _joints3d),
    "superelement": ("Craig-Bampton superelement steps", _superelement),
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
