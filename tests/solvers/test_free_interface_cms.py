"""Free-interface component mode synthesis and structural modification
(femb.solvers.reduction.free_interface, .modification).

Model: a free–free planar beam of length 2 (EI = 1, ρA = 1, EA = 1e4, no rotary inertia)
made of two components A and B of 10 beam2d elements each, joined at x = 1. Exact values are
the unreduced 20-element model's (femb assembles it directly); the reference digest's
independent run of the same model gives elastic frequencies 5.5933, 15.4185, 30.2277,
49.9732, 74.6665, 104.3219 rad/s and the errors quoted in the tests.
"""
from dataclasses import replace

import numpy as np
import pytest
import scipy.linalg as sla

import femb
from femb.core.errors import InputError, ModelError
from femb.mesh import line_mesh
from femb.solvers.reduction.free_interface import ComponentModeSynthesis
from femb.solvers.reduction.modification import StructuralModification, density, young_modulus
from femb.solvers.reduction.substructures import component_matrices, model_matrices


def two_beams(rho_b=1.0, ei_a=1.0):
    mesh = line_mesh((0.0, 0.0), (2.0, 0.0), 20, "beam")
    conn = mesh.cells["beam"].connectivity
    mesh.add_cells("A", "line", conn[:10])
    mesh.add_cells("B", "line", conn[10:])
    model = femb.Model(mesh, name="two-component beam")
    model.add_part("A", "beam2d", "A", values=dict(EA=1e4 * ei_a, EI=ei_a, rhoA=1.0, rhoI=0.0))
    model.add_part("B", "beam2d", "B", values=dict(EA=1e4, EI=1.0, rhoA=rho_b, rhoI=0.0))
    return model


def exact_elastic(model, count=6):
    full = model_matrices(model, mass="consistent")
    lam = sla.eigvalsh(full.K, full.M)
    return np.sqrt(np.abs(lam[3:3 + count]))


def synthesis(model, k):
    return ComponentModeSynthesis([component_matrices(model, ["A"], "A", mass="consistent"), component_matrices(model, ["B"], "B", mass="consistent")], k)


def test_exact_model_matches_the_free_free_beam():
    """The unreduced model's first elastic frequency lies just above (4.730041)²/2² = 5.59332
    (free–free Euler–Bernoulli beam of length 2, analytic; consistent mass bounds it from
    above, the 20-element mesh within 5e-6)."""
    w1 = exact_elastic(two_beams())[0]
    analytic = 4.730041 ** 2 / 4.0
    assert analytic < w1 < analytic * (1 + 5e-6)


@pytest.mark.parametrize("k, size, worst", [(5, 10, 7.1), (7, 14, 0.0045), (10, 20, 0.00025)])
def test_synthesis_is_a_ritz_upper_bound_that_tightens_with_modes(k, size, worst):
    """Every synthesised eigenvalue lies above the unreduced one (Rayleigh–Ritz), the model
    has one coordinate per kept mode, and the largest error of the first six elastic
    frequencies falls with k (digest: 7.07 %, ≤ 0.0044 %, ≤ 0.0002 %)."""
    model = two_beams()
    exact = exact_elastic(model)
    cms = synthesis(model, k)
    assert cms.n_coordinates == size
    modes = cms.eigen()
    assert np.all(np.abs(modes.eigenvalues[:3]) < 1e-9 * exact[0] ** 2)  # three rigid-body modes
    err = modes.frequencies[3:9] / exact - 1.0
    assert np.all(err > -1e-12)
    assert err.max() * 100 < worst


def test_five_modes_per_component_errors():
    """Digest (independent run): 0, 0, 0.009, 0.015, 0.63, 7.07 % with 3 rigid + 2 elastic
    modes per component."""
    model = two_beams()
    err = (synthesis(model, 5).eigen().frequencies[3:9] / exact_elastic(model) - 1.0) * 100
    digest = np.array([0.0, 0.0, 0.009, 0.015, 0.63, 7.07])
    assert np.all(np.abs(err - digest) <= [1e-4, 1e-4, 1e-3, 1e-3, 0.01, 0.01])


def test_forward_mass_change_equals_complete_reanalysis_and_reuses_unchanged_components():
    """Density of B × 2.907 (aluminium → steel): forward modification in the baseline basis
    equals a complete CMS re-analysis (digest: 4.5e-12; a mass-proportional change leaves
    span T unchanged); the re-analysis reduces only B (A comes from the cache)."""
    model = two_beams()
    cms = synthesis(model, 5)
    sm = StructuralModification(cms, [density(model, cms, "B", ["B"], mass="consistent")])
    forward = sm.modify([1.907]).frequencies[3:]
    again = cms.replace(component_matrices(two_beams(rho_b=2.907), ["B"], "B", mass="consistent"))
    assert again.reductions_computed == 1
    redo = again.eigen().frequencies[3:]
    assert np.max(np.abs(forward - redo) / redo) < 1e-10


def test_forward_stiffness_change_is_an_approximation_bounded_by_the_reanalysis():
    """E of A halved: the complete re-analysis matches the unreduced model (digest: 4.5407,
    13.0820, 24.8822 rad/s); forward modification in the frozen basis is a Ritz estimate of
    the re-analysed CMS model, so it lies above it, within 1 % for the first two."""
    model = two_beams()
    cms = synthesis(model, 5)
    sm = StructuralModification(cms, [young_modulus(model, cms, "A", ["A"], mass="consistent")])
    forward = sm.modify([-0.5]).frequencies[3:6]
    changed = two_beams(ei_a=0.5)
    redo = cms.replace(component_matrices(changed, ["A"], "A", mass="consistent")).eigen().frequencies[3:6]
    exact = exact_elastic(changed, 3)
    np.testing.assert_allclose(exact, [4.5407, 13.0820, 24.8822], rtol=2e-5)
    np.testing.assert_allclose(redo[:2], exact[:2], rtol=1e-5)
    assert np.all(forward >= redo * (1 - 1e-12)) and np.all(forward[:2] / redo[:2] - 1 < 1e-2)


def test_sensitivities_sum_to_minus_one_and_plus_one():
    """(ρ/λ)∂λ/∂ρ summed over all components = −1 (kinetic energy shares) and (E/λ)∂λ/∂E = +1
    (strain energy shares), exactly (1e-10)."""
    model = two_beams()
    cms = synthesis(model, 5)
    variables = [density(model, cms, c, [c], mass="consistent") for c in "AB"] + [young_modulus(model, cms, c, [c], mass="consistent") for c in "AB"]
    s = StructuralModification(cms, variables).normalised_sensitivities([3, 4, 5])
    np.testing.assert_allclose(s[:, :2].sum(axis=1), -1.0, atol=1e-10)
    np.testing.assert_allclose(s[:, 2:].sum(axis=1), 1.0, atol=1e-10)


def test_inverse_modification_round_trip():
    """Lower the second elastic frequency by 10 % through B's density: α = 0.549849 (digest;
    first-order estimate 0.380), and the unreduced model with density 1 + α has that
    frequency (digest: 13.876611)."""
    model = two_beams()
    exact = exact_elastic(model)
    cms = synthesis(model, 5)
    sm = StructuralModification(cms, [density(model, cms, "B", ["B"], mass="consistent")])
    target = (0.9 * exact[1]) ** 2
    res = sm.inverse({4: target})
    assert res.alpha[0] == pytest.approx(0.549849, rel=1e-5)
    assert res.first_order[0] == pytest.approx(0.380, abs=1e-3)
    assert res.modified.eigenvalues[4] == pytest.approx(target, rel=1e-12)
    assert res.iterations <= 8 and res.history[-1] < 1e-12
    full = exact_elastic(two_beams(rho_b=1.0 + res.alpha[0]))
    assert full[1] == pytest.approx(13.876611, rel=1e-6)
    assert full[1] == pytest.approx(np.sqrt(target), rel=1e-6)


def test_two_variables_one_target_takes_the_minimum_norm_change():
    model = two_beams()
    cms = synthesis(model, 5)
    sm = StructuralModification(cms, [density(model, cms, "B", ["B"], mass="consistent"), young_modulus(model, cms, "A", ["A"], mass="consistent")])
    target = (0.9 * sm.baseline.frequencies[4]) ** 2
    res = sm.inverse({4: target})
    assert res.modified.eigenvalues[4] == pytest.approx(target, rel=1e-12)
    J = sm.sensitivities([4], res.modified)
    # minimum norm: the solution is (to first order) along the row space of the Jacobian
    assert abs(np.cross(np.append(res.alpha, 0), np.append(J[0], 0))[2]) < 0.2 * np.linalg.norm(res.alpha) * np.linalg.norm(J)


def test_bad_input():
    model = two_beams()
    A = component_matrices(model, ["A"], "A", mass="consistent")
    with pytest.raises(InputError, match="rigid-body modes"):
        ComponentModeSynthesis([A, component_matrices(model, ["B"], "B", mass="consistent")], 2)
    with pytest.raises(ModelError, match="share no DOF"):
        mesh = line_mesh((0.0, 0.0), (3.0, 0.0), 3, "beam")
        conn = mesh.cells["beam"].connectivity
        mesh.add_cells("P", "line", conn[:1])
        mesh.add_cells("Q", "line", conn[2:])
        m = femb.Model(mesh)
        for p in "PQ":
            m.add_part(p, "beam2d", p, values=dict(EA=1.0, EI=1.0, rhoA=1.0, rhoI=0.0))
        ComponentModeSynthesis([component_matrices(m, ["P"], "P", mass="consistent"), component_matrices(m, ["Q"], "Q", mass="consistent")], 3)
    with pytest.raises(ModelError, match="unknown part"):
        component_matrices(model, ["C"], "C", mass="consistent")
    cms = synthesis(model, 5)
    sm = StructuralModification(cms, [density(model, cms, "B", ["B"], mass="consistent")])
    with pytest.raises(InputError, match="unknown design variable"):
        sm.modify({"E of Q": 0.1})


def test_report_compares_forward_with_the_unreduced_model():
    """The report's full re-analysis (model matrices plus α times the element-set matrices)
    equals a model rebuilt with the changed density, and the forward error it shows is the
    synthesis error (mass change: forward = re-analysis with the same T)."""
    from femb.solvers.reduction.modification import format_report

    model = two_beams()
    cms = synthesis(model, 7)
    sm = StructuralModification(cms, [density(model, cms, "B", ["B"], mass="consistent")])
    rows = sm.report(model, [0.5], [3, 4, 5], targets={4: 13.0 ** 2})
    rebuilt = exact_elastic(two_beams(rho_b=1.5), 3)
    np.testing.assert_allclose([r["full"] for r in rows], rebuilt, rtol=1e-9)
    assert all(0.0 <= r["error"] < 1e-4 for r in rows)
    assert rows[1]["target"] == pytest.approx(13.0) and rows[0]["target"] is None
    text = format_report(rows)
    assert "density of B = 0.5" in text and len(text.splitlines()) == 6


def shell_plate(t_b=0.01):
    """A free 2 × 1 steel plate of shell4 quads, halves A (x < 1) and B (x > 1), B's
    thickness ``t_b`` (A: 0.01)."""
    mesh = femb.rectangle_mesh(2.0, 1.0, 8, 4, cells="quad")
    conn = mesh.cells["plate"].connectivity
    x = mesh.points[conn].mean(axis=1)[:, 0]
    mesh.add_cells("A", "quad", conn[x < 1.0])
    mesh.add_cells("B", "quad", conn[x > 1.0])
    model = femb.Model(mesh)
    steel = femb.Material(E=210e9, nu=0.3, rho=7850.0)
    model.add_part("A", "shell4", "A", steel, femb.Section(thickness=0.01))
    model.add_part("B", "shell4", "B", steel, femb.Section(thickness=t_b))
    return model


def test_thickness_enters_non_linearly_and_is_exact_in_the_full_reanalysis():
    """Thickness of B × 1.3 on a free shell plate (bending ∝ t³, membrane ∝ t): the full
    re-analysis (exact change re-assembled at α) equals a model rebuilt with that thickness
    (1e-7), forward modification in the frozen basis stays within 2 % of it, and the inverse
    problem — the thickness that lowers the first elastic frequency by 10 % — is met by the
    rebuilt unreduced model to the synthesis error (2 %)."""
    from femb.solvers.reduction.modification import thickness

    model = shell_plate()
    cms = ComponentModeSynthesis([component_matrices(model, [p], p) for p in "AB"], 14)
    sm = StructuralModification(cms, [thickness(model, cms, "B", ["B"])])
    lam_full = sm.full_reanalysis(model, [0.3])
    rebuilt = model_matrices(shell_plate(t_b=0.013))
    lam_rebuilt = sla.eigvalsh(rebuilt.K, rebuilt.M)
    np.testing.assert_allclose(lam_full[6:12], lam_rebuilt[6:12], rtol=1e-7)  # round-off of the eigen-solve: λ spans ~9 decades
    forward = sm.modify([0.3]).eigenvalues[6:9]
    assert np.all(np.abs(forward / lam_rebuilt[6:9] - 1.0) < 2e-2)
    # the cubic part shows: the change is not linear in α
    linear = StructuralModification(cms, [replace(sm.variables[0], change=None)]).modify([0.3]).eigenvalues[6]
    assert abs(linear / lam_rebuilt[6] - 1.0) > 2 * abs(forward[0] / lam_rebuilt[6] - 1.0)  # measured 3.9 % vs 1.4 %
    target = 0.81 * sm.baseline.eigenvalues[6]
    res = sm.inverse({6: target})
    assert res.modified.eigenvalues[6] == pytest.approx(target, rel=1e-10) and res.iterations <= 10
    t_b = 0.01 * (1.0 + res.alpha[0])
    check = model_matrices(shell_plate(t_b=t_b))
    assert sla.eigvalsh(check.K, check.M)[6] == pytest.approx(target, rel=2e-2)
    with pytest.raises(InputError, match="no section thickness"):
        thickness(two_beams(), synthesis(two_beams(), 5), "A", ["A"])
