"""The ``modification`` case-file step (femb.case.modification_step): component mode
synthesis of a model split into components, forward and inverse structural modification,
checked against the same analysis through the Python API and against the unreduced model."""
import numpy as np
import pytest

from femb import Material, Model, Section, line_mesh
from femb.case import load_case
from femb.case.steps import largest_translation
from femb.core.errors import InputError
from femb.solvers.reduction.free_interface import ComponentModeSynthesis
from femb.solvers.reduction.modification import StructuralModification, density
from femb.solvers.reduction.substructures import component_matrices

CASE = """
[model]
name = "two-component beam"
[mesh]
line = [{ name = "A", start = [0.0, 0.0], end = [1.0, 0.0], elements = 10 },
        { name = "B", start = [1.0, 0.0], end = [2.0, 0.0], elements = 10 }]
[materials.steel]
E = 1e4
rho = 1.0
[sections.bar]
A = 1.0
I = 1e-4
[[parts]]
cells = "A"
element = "beam2d"
material = "steel"
section = "bar"
[[parts]]
cells = "B"
element = "beam2d"
material = "steel"
section = "bar"
[[steps]]
type = "modification"
name = "redesign"
n_modes = 5
mass = "consistent"
modes = [4, 5, 6]
[steps.components]
A = ["A"]
B = ["B"]
[[steps.variables]]
name = "rho_B"
kind = "density"
component = "B"
parts = ["B"]
ALPHA
TARGETS
"""


def _case(write_case, alpha="alpha = 0.0", targets=""):
    return load_case(write_case(CASE.replace("ALPHA", alpha).replace("TARGETS", targets)))


def test_forward_modification_step_matches_the_unreduced_model(write_case, tmp_path):
    """Density of B × 1.5: the reported modified frequencies agree with the unreduced model
    with that density to the synthesis error (≤ 2e-4 with 5 modes per component), the
    baseline is the unmodified synthesis, and frames are the modified mode shapes."""
    (res,) = _case(write_case, "alpha = 0.5").run(tmp_path, progress=False)
    assert res.kind == "modification" and len(res) == 3 and res.history["mode"] == [4.0, 5.0, 6.0]
    full, mod, base = res.series("full_hz"), res.series("modified_hz"), res.series("baseline_hz")
    assert np.all(np.abs(mod / full - 1.0) < 2e-4) and np.all(mod >= full * (1 - 1e-12))
    assert np.all(mod < base)  # heavier: lower frequencies
    assert res.info["alpha"] == {"rho_B": 0.5} and res.info["n_coordinates"] == 10
    assert np.isnan(res.series("target_hz")).all()
    assert largest_translation(res.table, res.states[0]) == pytest.approx(1.0)  # shapes scaled to a largest translation of 1
    assert (tmp_path / "history.csv").is_file()


def _python_twin(target_lambda):
    """The same synthesis and inverse problem through the Python API."""
    mesh = line_mesh((0.0, 0.0), (2.0, 0.0), 20, "beam")
    conn = mesh.cells["beam"].connectivity
    mesh.add_cells("A", "line", conn[:10])
    mesh.add_cells("B", "line", conn[10:])
    model = Model(mesh)
    for p in "AB":
        model.add_part(p, "beam2d", p, Material(E=1e4, rho=1.0), Section(A=1.0, I=1e-4))
    cms = ComponentModeSynthesis([component_matrices(model, [p], p, mass="consistent") for p in "AB"], 5)
    sm = StructuralModification(cms, [density(model, cms, "B", ["B"], mass="consistent")])
    return sm.inverse({4: target_lambda})


def test_inverse_modification_step_places_the_target(write_case, tmp_path):
    """Target: the fifth mode (second elastic) at 90 % of its baseline frequency; the step
    finds the α of the Python API (about 0.55 with a first-order estimate near 0.38: the mode
    shape changes with the design) and the unreduced model with that density has the target
    frequency to 1e-6."""
    (base,) = _case(write_case).run(tmp_path / "a", progress=False)
    f5 = base.series("baseline_hz")[1]
    (res,) = _case(write_case, targets=f"[steps.targets]\n5 = {float(0.9 * f5)!r}").run(tmp_path / "b", progress=False)
    twin = _python_twin((2.0 * np.pi * 0.9 * f5) ** 2)
    assert res.info["alpha"]["rho_B"] == pytest.approx(twin.alpha[0], rel=1e-10)
    assert res.info["first_order"]["rho_B"] == pytest.approx(twin.first_order[0], rel=1e-10)
    assert 0.5 < twin.alpha[0] < 0.6 and 0.35 < twin.first_order[0] < 0.41
    assert res.series("target_hz")[1] == pytest.approx(0.9 * f5, rel=1e-12)
    assert res.series("modified_hz")[1] == pytest.approx(0.9 * f5, rel=1e-10)
    assert res.series("full_hz")[1] == pytest.approx(0.9 * f5, rel=1e-6)


@pytest.mark.parametrize("edit, words", [
    (("component = \"B\"", "component = \"C\""), ["variables[0].component", "unknown component 'C'"]),
    (("kind = \"density\"", "kind = \"stiffness\""), ["variables[0].kind", "stiffness"]),
    (("modes = [4, 5, 6]", "modes = [0]"), ["modes", "mode numbers"]),
    (("B = [\"B\"]\n", ""), ["components", "at least two components"]),
])
def test_bad_modification_input_names_the_key(write_case, edit, words):
    text = CASE.replace("ALPHA", "").replace("TARGETS", "").replace(*edit)
    with pytest.raises(InputError) as err:
        load_case(write_case(text))
    assert all(w in str(err.value) for w in words), str(err.value)
