"""The public API: the ``femb`` facade resolves every name it lists, the examples and the
README import only through public names, signatures are consistent (argument order, one
default mass kind) and the public layer is annotated."""
import ast
import inspect
import re
from pathlib import Path

import pytest

import femb
from tests.io.conftest import BASE_CASE

ROOT = Path(__file__).resolve().parents[2]

# modules that examples and docs may import besides the facade: the element catalogue,
# the design-variable constructors of structural modification, and the validation
# runner's measuring helpers (an example that reproduces a benchmark measures it the way
# the benchmark does)
PUBLIC_MODULES = ("femb.elements", "femb.solvers.reduction.modification", "femb.validation.models",
                  "femb.validation.signals")

SOLVE_FUNCTIONS = ("solve_static", "solve_arclength", "solve_buckling", "critical_load_on_path", "solve_modal",
                   "frequencies_along_path", "solve_complex_modes", "steady_spin", "campbell", "linearize",
                   "solve_dynamic")


def test_every_facade_name_resolves_to_an_object_of_that_name():
    assert len(set(femb.__all__)) == len(femb.__all__)
    for name in femb.__all__:
        value = getattr(femb, name)
        if name != "__version__":
            assert getattr(value, "__name__", name) == name, name


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        femb.no_such_name  # noqa: B018


def test_the_facade_holds_every_analysis_scheme_and_writer():
    needed = {*SOLVE_FUNCTIONS, "MidPoint", "Newmark", "HHT", "GeneralizedAlpha", "results_to_vtk", "write_history_csv",
              "write_run_json", "read_pvd", "render_png", "write_mode_animation", "Model", "Results", "load_case"}
    assert needed <= set(femb.__all__), needed - set(femb.__all__)


def _femb_imports(tree):
    """(module, [names]) of every femb import in an AST, and the femb.X attributes used."""
    imports, attributes = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "femb":
            imports.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            imports += [(a.name, []) for a in node.names if a.name.split(".")[0] == "femb"]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "femb":
            attributes.add(node.attr)
    return imports, attributes


def _private_uses(tree):
    imports, attributes = _femb_imports(tree)
    bad = [f"femb.{a}" for a in attributes if a not in femb.__all__ and a != "elements"]
    for module, names in imports:
        if module == "femb":
            bad += [f"from femb import {n}" for n in names if n not in femb.__all__]
        elif module not in PUBLIC_MODULES:
            bad.append(f"import of {module}")
    return bad


def _python_blocks(markdown):
    return re.findall(r"```python\n(.*?)```", markdown, flags=re.S)


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.py")), ids=lambda p: p.name)
def test_examples_import_only_public_names(path):
    assert _private_uses(ast.parse(path.read_text())) == []


@pytest.mark.parametrize("path", [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))], ids=lambda p: p.name)
def test_documented_code_imports_only_public_names(path):
    for block in _python_blocks(path.read_text()):
        assert _private_uses(ast.parse(block)) == [], block


def test_the_checker_flags_a_private_import():
    code = "import femb\nfrom femb.solvers.eigen.modal import solve_modal\nfrom femb import Model, nope\nfemb.hidden\n"
    assert sorted(_private_uses(ast.parse(code))) == ["femb.hidden", "from femb import nope", "import of femb.solvers.eigen.modal"]


def _params(function):
    return list(inspect.signature(function).parameters)


def test_argument_order_is_consistent():
    # parts: (name, element type, where)
    assert _params(femb.Model.add_part)[1:4] == ["name", "element", "cells"]
    assert _params(femb.Model.add_discrete)[1:4] == ["name", "element", "nodes"]
    # planar joints on a body: (body, node)
    assert _params(femb.Model.body_point)[1:3] == ["body", "node"]
    assert _params(femb.Model.slider)[1:3] == ["body", "node"]


def test_add_part_in_the_old_order_names_the_new_one():
    mesh = femb.line_mesh((0.0, 0.0), (1.0, 0.0), 2, "beam")
    model = femb.Model(mesh)
    with pytest.raises(femb.ModelError, match=r"add_part\(name, element, cells"):
        model.add_part("beam", "beam", "beam2d", femb.Material(E=1.0), femb.Section(A=1.0, I=1.0))
    part = model.add_part("beam", "beam2d", "beam", femb.Material(E=1.0), femb.Section(A=1.0, I=1.0))
    assert (part.element, part.cells) == ("beam2d", "beam")
    model.fix("beam_start")
    model.validate()


# the io tests' small cantilever with a density, a modal and a dynamic step
CASE = BASE_CASE.replace("E = 1.0\n", "E = 1.0\nrho = 1.0\n").split("[[steps]]")[0] + """\
[[steps]]
type = "modal"
name = "modes"
[[steps]]
type = "dynamic"
name = "swing"
dt = 0.1
t_end = 1.0
"""


def test_one_default_mass_kind_everywhere(tmp_path):
    defaults = {name: inspect.signature(getattr(femb, name)).parameters["mass"].default
                for name in SOLVE_FUNCTIONS if name != "solve_dynamic" and "mass" in inspect.signature(getattr(femb, name)).parameters}
    defaults["DynamicSettings.mass"] = femb.DynamicSettings().mass
    (tmp_path / "case.toml").write_text(CASE)
    modal, dynamic = femb.load_case(tmp_path / "case.toml").steps
    defaults["case-file modal step"] = modal.settings["mass"]
    defaults["case-file dynamic step"] = dynamic.settings.settings.mass
    assert set(defaults) >= {"solve_modal", "frequencies_along_path", "critical_load_on_path", "steady_spin",
                             "solve_complex_modes", "linearize"}
    assert set(defaults.values()) == {"lumped"}, defaults
    assert inspect.signature(femb.solve_dynamic).parameters["mass"].default is None  # None: the settings' kind


def test_default_modal_mass_is_the_dynamic_one():
    """The modal analysis by default uses the very mass matrix of the time integration: a
    lumped-mass cantilever's frequencies differ from the consistent-mass ones, and the
    default gives the lumped ones."""
    mesh = femb.line_mesh((0.0, 0.0), (1.0, 0.0), 4, "beam")
    model = femb.Model(mesh)
    model.add_part("beam", "beam2d", "beam", femb.Material(E=1.0, rho=1.0), femb.Section(A=1e3, I=1.0))
    model.fix("beam_start")
    default = femb.solve_modal(model, 2).omega
    lumped = femb.solve_modal(model, 2, mass="lumped").omega
    consistent = femb.solve_modal(model, 2, mass="consistent").omega
    assert default.tolist() == lumped.tolist()
    assert abs(consistent[0] / lumped[0] - 1.0) > 1e-3


def _annotated(function):
    sig = inspect.signature(function)
    missing = [p for p, v in sig.parameters.items() if p != "self" and v.annotation is inspect.Parameter.empty]
    if sig.return_annotation is inspect.Signature.empty and function.__name__ != "__init__":
        missing.append("return")
    return missing


@pytest.mark.parametrize("name", SOLVE_FUNCTIONS)
def test_solve_functions_are_annotated(name):
    assert _annotated(getattr(femb, name)) == []


@pytest.mark.parametrize("cls", ["Model", "Results", "Material", "Section"])
def test_public_methods_of_the_model_layer_are_annotated(cls):
    klass = getattr(femb, cls)
    for name, member in inspect.getmembers(klass):
        if name.startswith("_") and name != "__init__":
            continue
        function = member.fget if isinstance(member, property) else member
        if inspect.isfunction(function) and function.__module__.startswith("femb"):
            assert _annotated(function) == [], f"{cls}.{name}"


def test_static_case_steps_hand_over_every_increment_as_it_converges(tmp_path):
    """docs/case_files.md: static frames are written after every converged increment (the
    writer is the step's on_frame callback), not once at the end of the step."""
    (tmp_path / "case.toml").write_text(BASE_CASE.replace("steps = 2", "steps = 3"))
    case = femb.load_case(tmp_path / "case.toml")
    seen = []
    results = case.steps[0].run(case.model, lambda res: seen.append((len(res), res.times[-1])))
    assert [n for n, _ in seen] == [1, 2, 3, 4]
    assert [t for _, t in seen] == pytest.approx([0.0, 1 / 3, 2 / 3, 1.0])
    assert len(results) == 4
