"""Import layering of femb (DESIGN.md §2): a module imports only from lower layers.

Checked statically over the source tree with the ast module, plus a subprocess check that
``import femb`` pulls in neither meshio nor pyvista (nor numba).
"""
import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# layer of each femb package (low to high); a module may import equal or lower layers
LAYERS = {
    "femb.core": 0,
    "femb.elements": 1,
    "femb.mesh": 1,
    "femb.model": 2,
    "femb.correlation": 3,
    "femb.assembly": 4,
    "femb.results": 4,
    "femb.solvers": 5,
    "femb.export": 5,
    "femb.case": 6,
    "femb.cli": 6,
    "femb.warmup": 6,
    "femb.validation": 6,
    "femb.batch": 6,
}
# layers inside femb.solvers (low to high): the folder names show the architecture
SOLVER_LAYERS = {
    "femb.solvers.linalg": 0,
    "femb.solvers.nonlinear": 1,
    "femb.solvers.configuration": 1,
    "femb.solvers.problem": 2,
    "femb.solvers.statics": 3,
    "femb.solvers.reduction": 3,
    "femb.solvers.eigen": 4,
    "femb.solvers.dynamics": 4,
}
# pairs within one layer that must not depend on each other
FORBIDDEN = {("femb.results", "femb.assembly"), ("femb.elements", "femb.mesh"), ("femb.mesh", "femb.elements"),
             ("femb.solvers.eigen", "femb.solvers.dynamics"), ("femb.solvers.dynamics", "femb.solvers.eigen")}
# upward imports allowed only inside a function body (deferred until called, so importing
# the lower module never loads the higher one): module -> packages it may call into
DEFERRED = {"femb.results.results": {"femb.export"}}  # Results.to_vtk is a front door to the writers


def _package_of(module, layers=LAYERS):
    for pkg in sorted(layers, key=len, reverse=True):
        if module == pkg or module.startswith(pkg + "."):
            return pkg
    return None


def _source_modules(root=ROOT):
    """(dotted module name, path) of every source module of femb and femb.elements under
    ``root`` (a checkout, or a test fixture laid out like one)."""
    for path in sorted((root / "femb").rglob("*.py")):
        rel = path.relative_to(root).with_suffix("")
        yield ".".join(rel.parts).removesuffix(".__init__"), path
    for path in sorted((root / "elements").rglob("*.py")):
        rel = path.relative_to(root / "elements").with_suffix("")
        yield ".".join(("femb", "elements") + rel.parts).removesuffix(".__init__"), path


def _deferred_nodes(tree):
    """ids of the import nodes inside function bodies."""
    inside = set()
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside.update(id(n) for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom)))
    return inside


def _imports(module, path, deferred=False):
    """(target, line) of the imports of a module; with ``deferred`` False the imports in
    function bodies of modules listed in DEFERRED are left out (checked separately)."""
    tree = ast.parse(path.read_text())
    is_pkg = path.name == "__init__.py"
    skip = _deferred_nodes(tree) if (module in DEFERRED and not deferred) else set()
    for node in ast.walk(tree):
        if id(node) in skip:
            allowed = DEFERRED[module]
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if all(_package_of(n) in allowed for n in names):
                continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_pkg else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            yield target, node.lineno
            for alias in node.names:  # `from femb import elements` imports a subpackage
                yield f"{target}.{alias.name}", node.lineno


def test_layers_are_respected():
    violations = []
    for module, path in _source_modules():
        src_pkg = _package_of(module)
        if src_pkg is None:
            continue
        for target, line in _imports(module, path):
            dst_pkg = _package_of(target or "")
            if dst_pkg is None or dst_pkg == src_pkg:
                continue
            if LAYERS[dst_pkg] > LAYERS[src_pkg] or (src_pkg, dst_pkg) in FORBIDDEN:
                violations.append(f"{path.relative_to(ROOT)}:{line}: {src_pkg} imports {target}")
    assert not violations, "layering violations:\n" + "\n".join(violations)


def test_solver_subpackages_are_layered():
    """Inside femb.solvers: linalg < nonlinear, configuration < problem < statics, reduction
    < eigen, dynamics (eigen and dynamics independent of each other); the package __init__ is the
    public front and may import everything."""
    violations = []
    for module, path in _source_modules():
        src = _package_of(module, SOLVER_LAYERS)
        if src is None:
            continue
        for target, line in _imports(module, path, deferred=True):
            dst = _package_of(target or "", SOLVER_LAYERS)
            if target == "femb.solvers" or (target or "").startswith("femb.solvers.") and dst is None:
                violations.append(f"{path.relative_to(ROOT)}:{line}: {module} imports the solvers front {target}")
            if dst is None or dst == src:
                continue
            if SOLVER_LAYERS[dst] > SOLVER_LAYERS[src] or (src, dst) in FORBIDDEN:
                violations.append(f"{path.relative_to(ROOT)}:{line}: {src} imports {target}")
    assert not violations, "solver layering violations:\n" + "\n".join(violations)


def import_cycles(root=ROOT):
    """Import cycles between the source modules under ``root``: the strongly connected
    components (Tarjan) of the module graph, counting imports inside function bodies too
    (a deferred import hides a cycle from the interpreter, not from the design).
    Returns a list of cycles, each a sorted list of module names."""
    modules = dict(_source_modules(root))
    graph = {}
    for module, path in modules.items():
        edges = set()
        for target, _ in _imports(module, path, deferred=True):
            if target in modules and target != module:
                edges.add(target)
        graph[module] = edges
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_no_import_cycles():
    cycles = import_cycles()
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_cycle_check_catches_a_cycle_inside_one_package(tmp_path):
    """The cycle check fails on a deliberately cyclic fixture: two modules of one
    package, the second importing the first only inside a function body."""
    pkg = tmp_path / "femb" / "solvers"
    pkg.mkdir(parents=True)
    (tmp_path / "femb" / "__init__.py").write_text("")
    (tmp_path / "elements").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "alpha.py").write_text("from femb.solvers.beta import helper\n")
    (pkg / "beta.py").write_text("def helper():\n    from femb.solvers import alpha\n    return alpha\n")
    (pkg / "gamma.py").write_text("from femb.solvers.beta import helper\n")
    assert import_cycles(tmp_path) == [["femb.solvers.alpha", "femb.solvers.beta"]]


def test_deferred_upward_imports_stay_in_functions():
    """The allowed upward imports of DEFERRED never sit at module level."""
    for module, path in _source_modules():
        if module not in DEFERRED:
            continue
        tree = ast.parse(path.read_text())
        inside = _deferred_nodes(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in inside:
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                assert not any(_package_of(n) in DEFERRED[module] for n in names), f"{path}:{node.lineno}: module-level upward import"


def test_only_core_imports_numba():
    offenders = []
    for module, path in _source_modules():
        if _package_of(module) == "femb.core":
            continue
        for target, line in _imports(module, path):
            if target and target.split(".")[0] == "numba":
                offenders.append(f"{path.relative_to(ROOT)}:{line}")
    assert not offenders, "numba imported outside femb.core: " + ", ".join(offenders)


def test_every_subpackage_is_installed():
    """pyproject lists packages explicitly (femb.elements lives in elements/)."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "femb").rglob("__init__.py")}
    found |= {".".join(("femb", "elements") + p.parent.relative_to(ROOT / "elements").parts) for p in (ROOT / "elements").rglob("__init__.py")}
    assert found <= listed, f"packages missing from pyproject.toml: {sorted(found - listed)}"


@pytest.mark.parametrize("heavy", ["meshio", "pyvista", "numba"])
def test_import_femb_is_light(heavy):
    code = f"import sys, femb; femb.__version__; assert {heavy!r} not in sys.modules, 'pulled in {heavy}'"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
