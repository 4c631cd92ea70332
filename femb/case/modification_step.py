"""The ``modification`` step type of case files: free-interface component mode synthesis of
the model split into components, and Hutton & Smith's structural modification on that basis
(femb.solvers.reduction; docs/reduction.md).

::

    [[steps]]
    type = "modification"
    name = "redesign"
    n_modes = 5                      # modes kept per component (rigid-body modes included)
    mass = "lumped"
    modes = [4, 5, 6]                # modes reported, counted from 1 as in modal steps
    [steps.components]               # component name -> its parts
    A = ["A"]
    B = ["B"]
    [[steps.variables]]
    name = "rho_B"                   # a design change α: the parameter × (1 + α)
    kind = "density"                 # or "young_modulus", "thickness" (shell sections)
    component = "B"
    parts = ["B"]
    alpha = 0.5                      # forward modification with this change (default 0)
    [steps.targets]                  # optional inverse problem: mode -> target frequency [Hz]
    5 = 2.2

With ``targets`` the step solves for the changes α that place those frequencies (Newton on
α; the given ``alpha`` values are the start) and reports the first-order estimate beside the
solution. The Results hold one frame per reported mode (time = modified frequency in Hz,
state = the modified mode shape of the synthesis scaled to a largest translation of 1), and
the history ``mode``, ``baseline_hz``, ``modified_hz``, ``full_hz`` (the unreduced model with
the same change), ``error`` (modified/full − 1), ``target_hz`` (NaN where none); ``info``
keeps α per variable, the first-order estimate, the Newton iterations and the number of
synthesis coordinates.
"""
from dataclasses import replace

import numpy as np

from femb.case.steps import largest_translation, register_step_type
from femb.core.errors import InputError
from femb.correlation import build_table
from femb.results import Results
from femb.solvers.reduction.free_interface import ComponentModeSynthesis
from femb.solvers.reduction.modification import StructuralModification, density, thickness, young_modulus
from femb.solvers.reduction.substructures import component_matrices

MASS_KINDS = ("lumped", "consistent", "invariant")
VARIABLE_KINDS = {"density": density, "young_modulus": young_modulus, "thickness": thickness}


def parse_modification(table, ctx):
    table.allowed += ["n_modes", "mass", "modes", "components", "variables", "targets"]
    settings = {
        "n_modes": table.take("n_modes", "integer", default=6, minimum=1),
        "mass": table.take("mass", "string", default="lumped", choices=MASS_KINDS),
        "modes": None,
        "components": {},
        "variables": [],
        "targets": {},
    }
    modes = table.take("modes")
    if modes is not None:
        if not isinstance(modes, list) or not modes or not all(isinstance(m, int) and not isinstance(m, bool) and m >= 1 for m in modes):
            ctx.fail(table.key_path("modes"), f"expected a non-empty array of mode numbers ≥ 1, got {modes!r}")
        else:
            settings["modes"] = tuple(modes)
    comps = table.sub("components", required=True)
    if comps is not None:
        with comps:
            for name in list(comps.data):
                parts = comps.take(name)
                if not isinstance(parts, list) or not parts or not all(isinstance(p, str) for p in parts):
                    ctx.fail(comps.key_path(name), f"expected an array of part names, got {parts!r}")
                    continue
                settings["components"][name] = tuple(parts)
        if len(settings["components"]) < 2:
            ctx.fail(table.key_path("components"), "give at least two components (name = [parts])")
    for var in table.array("variables", allowed=["name", "kind", "component", "parts", "alpha"]):
        with var:
            kind = var.take("kind", "string", required=True, choices=tuple(VARIABLE_KINDS))
            component = var.take("component", "string", required=True)
            parts = var.take("parts", required=True)
            if parts is not None and (not isinstance(parts, list) or not all(isinstance(p, str) for p in parts)):
                ctx.fail(var.key_path("parts"), f"expected an array of part names, got {parts!r}")
            if component is not None and settings["components"] and component not in settings["components"]:
                ctx.fail(var.key_path("component"), f"unknown component {component!r} (components: {', '.join(settings['components'])})")
            settings["variables"].append({
                "name": var.take("name", "string", default=f"{kind} of {'+'.join(parts or [])}"),
                "kind": kind, "component": component, "parts": tuple(parts or ()),
                "alpha": var.take("alpha", "number", default=0.0),
            })
    if not settings["variables"]:
        ctx.fail(table.key_path("variables"), "give at least one design variable ([[steps.variables]])")
    targets = table.sub("targets")
    if targets is not None:
        with targets:
            for key in list(targets.data):
                value = targets.take(key, "number", positive=True)
                if not key.isdigit() or int(key) < 1:
                    ctx.fail(targets.key_path(key), "target keys are mode numbers ≥ 1")
                    continue
                settings["targets"][int(key)] = value
    return settings


def _model_mode(model_table, cms, stacked):
    """A variable vector of the model (n_var,) from a synthesis shape over the stacked
    component coordinates (interface DOFs agree; the first component's value is taken)."""
    u = np.zeros(model_table.n_var)
    for ci, c in enumerate(cms.components):
        for i, (node, dof) in enumerate(c.dofs):
            u[model_table.var_of(node, dof)] = stacked[cms.offsets[ci] + i]
    return u


def run_modification(model, settings, on_frame):
    comps = [component_matrices(model, list(parts), name, mass=settings["mass"]) for name, parts in settings["components"].items()]
    cms = ComponentModeSynthesis(comps, settings["n_modes"])
    variables = [replace(VARIABLE_KINDS[v["kind"]](model, cms, v["component"], list(v["parts"]), mass=settings["mass"]), name=v["name"])
                 for v in settings["variables"]]
    sm = StructuralModification(cms, variables)
    n = sm.Lambda.size
    modes = settings["modes"] or tuple(range(1, min(n, 6) + 1))
    wanted = set(modes) | set(settings["targets"])
    if max(wanted) > n:
        raise InputError(f"mode {max(wanted)} asked, the synthesis has {n} modes (raise n_modes)")
    alpha = np.array([v["alpha"] for v in settings["variables"]])
    info = {"n_coordinates": cms.n_coordinates, "reductions": cms.reductions_computed}
    targets = {}
    if settings["targets"]:
        targets = {m - 1: (2.0 * np.pi * f) ** 2 for m, f in settings["targets"].items()}
        inverse = sm.inverse(targets, alpha0=alpha)
        alpha = inverse.alpha
        info.update(first_order={v.name: float(a) for v, a in zip(variables, inverse.first_order)},
                    iterations=inverse.iterations)
    rows = sm.report(model, alpha, [m - 1 for m in modes], targets)
    design = sm.modify(alpha)
    table = build_table(model)
    results = Results(table, "modification", model)
    for m, row in zip(modes, rows):
        shape = _model_mode(table, cms, cms.T @ (sm.baseline.vectors @ design.vectors[:, m - 1]))
        scale = largest_translation(table, shape)
        hz = 1.0 / (2.0 * np.pi)
        results.record(row["modified"] * hz, shape / scale if scale > 0 else shape, mode=m, baseline_hz=row["baseline"] * hz,
                       modified_hz=row["modified"] * hz, full_hz=row["full"] * hz, error=row["error"],
                       target_hz=row["target"] * hz if row["target"] is not None else np.nan)
    info["alpha"] = {v.name: float(a) for v, a in zip(variables, alpha)}
    results.info.update(info)
    on_frame(results)
    return results


register_step_type("modification", parse_modification, run_modification, lambda s: len(s["modes"] or range(6)),
                   "component mode synthesis and structural modification (forward and inverse)")
