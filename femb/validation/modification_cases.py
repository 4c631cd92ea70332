"""Model builders and runner of the structural-modification validation case
(hs-modification): free-interface component mode synthesis and Hutton & Smith's forward and
inverse modification on a two-component beam and a three-member portal frame."""
import numpy as np
import scipy.linalg as sla

from femb.mesh import Mesh, line_mesh
from femb.model import Model
from femb.solvers.reduction.free_interface import ComponentModeSynthesis
from femb.solvers.reduction.modification import StructuralModification, density, young_modulus
from femb.solvers.reduction.substructures import component_matrices, model_matrices


def two_component_beam(rho_b=1.0):
    """Free–free beam of length 2 (EI = 1, ρA = 1, EA = 1e4, no rotary inertia), parts A
    (x ≤ 1) and B (x ≥ 1) of 10 beam2d elements each."""
    mesh = line_mesh((0.0, 0.0), (2.0, 0.0), 20, "beam")
    conn = mesh.cells["beam"].connectivity
    mesh.add_cells("A", "line", conn[:10])
    mesh.add_cells("B", "line", conn[10:])
    model = Model(mesh, name="two-component beam")
    model.add_part("A", "beam2d", "A", values=dict(EA=1e4, EI=1.0, rhoA=1.0, rhoI=0.0))
    model.add_part("B", "beam2d", "B", values=dict(EA=1e4, EI=1.0, rhoA=rho_b, rhoI=0.0))
    return model


def portal_frame(beam_scale=1.0, n=8):
    """Planar portal frame clamped at both feet: columns (0,0)–(0,1) and (1.5,0)–(1.5,1),
    beam (0,1)–(1.5,1), EI = 1, EA = 1e3, ρA = 1 (beam's EI and EA × ``beam_scale``);
    parts "left", "right", "beam" of n elements each."""
    pts = [np.column_stack([np.zeros(n + 1), np.linspace(0.0, 1.0, n + 1)]),
           np.column_stack([np.linspace(0.0, 1.5, n + 1)[1:-1], np.ones(n - 1)]),
           np.column_stack([np.full(n + 1, 1.5), np.linspace(1.0, 0.0, n + 1)])]
    points = np.vstack(pts)
    left = np.column_stack([np.arange(n), np.arange(1, n + 1)])
    top_nodes = np.concatenate([[n], np.arange(n + 1, 2 * n), [2 * n]])
    beam = np.column_stack([top_nodes[:-1], top_nodes[1:]])
    right_nodes = np.arange(2 * n, 3 * n + 1)
    right = np.column_stack([right_nodes[:-1], right_nodes[1:]])
    mesh = Mesh(points, {}, {"feet": np.array([0, 3 * n])})
    for name, conn in (("left", left), ("beam", beam), ("right", right)):
        mesh.add_cells(name, "line", conn)
    model = Model(mesh, name="portal frame")
    for name in ("left", "right", "beam"):
        s = beam_scale if name == "beam" else 1.0
        model.add_part(name, "beam2d", name, values=dict(EA=1e3 * s, EI=1.0 * s, rhoA=1.0, rhoI=0.0))
    model.fix("feet")
    return model


def _elastic(model, first, count):
    full = model_matrices(model, mass="consistent")
    return np.sqrt(np.abs(sla.eigvalsh(full.K, full.M)[first:first + count]))


def modification_case(quick):
    """Metrics of hs-modification (validation/hs-modification/reference.json)."""
    beam = two_component_beam()
    exact = _elastic(beam, 3, 6)
    comps = [component_matrices(beam, ["A"], "A", mass="consistent"), component_matrices(beam, ["B"], "B", mass="consistent")]
    errors = {}
    upper = True
    for k in (5, 7, 10):
        w = ComponentModeSynthesis(comps, k).eigen().frequencies[3:9]
        upper &= bool(np.all(w >= exact * (1 - 1e-12)))
        errors[k] = w / exact - 1.0
    cms = ComponentModeSynthesis(comps, 5)
    sm = StructuralModification(cms, [density(beam, cms, "B", ["B"], mass="consistent")])
    forward = sm.modify([1.907]).frequencies[3:]
    again = cms.replace(component_matrices(two_component_beam(rho_b=2.907), ["B"], "B", mass="consistent"))
    redo = again.eigen().frequencies[3:]
    variables = [density(beam, cms, c, [c], mass="consistent") for c in "AB"] + [young_modulus(beam, cms, c, [c], mass="consistent") for c in "AB"]
    s = StructuralModification(cms, variables).normalised_sensitivities([3, 4, 5])
    target = (0.9 * exact[1]) ** 2
    inv = sm.inverse({4: target})
    full_after = _elastic(two_component_beam(rho_b=1.0 + inv.alpha[0]), 4, 1)[0]

    # portal frame: forward modification of the beam's stiffness against full re-analysis
    frame = portal_frame()
    parts = ("left", "right", "beam")
    fcomps = [component_matrices(frame, [p], p, mass="consistent") for p in parts]
    alphas = np.linspace(-0.5, 1.0, 4 if quick else 7)
    frame_err = {}
    for k in (6, 10, 14):
        fcms = ComponentModeSynthesis(fcomps, k)
        fsm = StructuralModification(fcms, [young_modulus(frame, fcms, "beam", ["beam"], mass="consistent")])
        worst = 0.0
        for a in alphas:
            w_fwd = fsm.modify([a]).frequencies[:4]
            w_full = _elastic(portal_frame(beam_scale=1.0 + a), 0, 4)
            worst = max(worst, float(np.max(np.abs(w_fwd / w_full - 1.0))))
        frame_err[k] = worst
    return {
        "metrics": {
            "ritz_upper_bound": float(upper),
            "error_k5_pct_mode6": float(errors[5][5] * 100),
            "max_error_k7_pct": float(np.abs(errors[7]).max() * 100),
            "max_error_k10_pct": float(np.abs(errors[10]).max() * 100),
            "forward_mass_vs_reanalysis": float(np.max(np.abs(forward - redo) / redo)),
            "reanalysed_components": float(again.reductions_computed),
            "sensitivity_sum_error": float(max(np.abs(s[:, :2].sum(axis=1) + 1.0).max(),
                                               np.abs(s[:, 2:].sum(axis=1) - 1.0).max())),
            "inverse_alpha": float(inv.alpha[0]),
            "inverse_first_order": float(inv.first_order[0]),
            "inverse_omega_full_model": float(full_after),
            "inverse_round_trip_error": float(abs(full_after / np.sqrt(target) - 1.0)),
            "frame_forward_error_k6": frame_err[6],
            "frame_forward_error_k14": frame_err[14],
        },
        "series": {
            "convergence": {"h": 1.0 / np.array([6.0, 10.0, 14.0]), "error": np.array([frame_err[k] for k in (6, 10, 14)]),
                            "xlabel": "1 / modes per component", "ylabel": "max |ω_forward / ω_full − 1| over α",
                            "title": "Portal frame: forward modification of the beam's E vs full re-analysis"},
        },
    }
