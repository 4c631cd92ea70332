"""``femb`` command line: run / info / render / --version and the exit codes (0 ok,
1 analysis failure, 2 bad input with a message naming the culprit, no traceback)."""
import shutil
import subprocess
import sys

import meshio
import numpy as np
import pytest

import femb
from femb.cli import main
from femb.export import read_pvd
from tests.io.conftest import EXAMPLES, MESHES


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"femb {femb.__version__}"


def test_run_info_render(capsys, tmp_path):
    code, out, err = run_cli(capsys, "run", EXAMPLES / "two_bar_arch.toml", "--out", tmp_path)
    assert code == 0 and "snap (arclength)" in out
    assert "snap (arclength)" in err and "frame" in err  # the tqdm progress bar
    assert (tmp_path / "history.csv").exists() and (tmp_path / "run.json").exists()
    assert len(read_pvd(tmp_path / "results.pvd")) > 10
    code, out, _ = run_cli(capsys, "info", MESHES / "portal_frame.inp")
    assert code == 0 and "COLUMNS" in out and "LOAD_POINT" in out and "min (0, 0)  max (4, 3)" in out
    code, out, _ = run_cli(capsys, "render", tmp_path, "--frame", 3, "--png", tmp_path / "f3.png", "--backend", "matplotlib")
    assert code == 0 and (tmp_path / "f3.png").stat().st_size > 1000


def test_progress_bar_shows_time_step_size_and_newton_iterations(capsys, tmp_path):
    code, _, err = run_cli(capsys, "run", EXAMPLES / "slider_crank.toml", "--out", tmp_path, "--smoke")
    assert code == 0
    last = err.replace("\r", "\n").strip().splitlines()
    bar = [line for line in last if line.startswith("crank (dynamic)")][-1]
    assert "t=0.001" in bar and "dt=2e-05" in bar and "newton/frame=" in bar
    assert int(bar.split("newton/frame=")[1].split(",")[0]) >= 10  # ≥ 1 iteration for each of the 10 steps a frame


def test_console_script(tmp_path):
    exe = shutil.which("femb", path=str(__import__("pathlib").Path(sys.executable).parent))
    if exe is None:
        pytest.skip("femb console script not installed next to this interpreter")
    proc = subprocess.run([exe, "info", str(MESHES / "cantilever.msh")], capture_output=True, text=True)
    assert proc.returncode == 0 and "beam" in proc.stdout
    proc = subprocess.run([exe, "run", str(tmp_path / "missing.toml")], capture_output=True, text=True)
    assert proc.returncode == 2 and "missing.toml" in proc.stderr and "Traceback" not in proc.stderr


def test_console_script_is_installed_next_to_the_interpreter():
    """`make test` installs femb (pip install -e), which puts the ``femb`` console script
    of pyproject.toml next to the interpreter: its absence is a broken installation, not a
    reason to skip the command-line checks."""
    exe = shutil.which("femb", path=str(__import__("pathlib").Path(sys.executable).parent))
    assert exe is not None, f"no femb console script next to {sys.executable}: reinstall with pip install -e ."


def test_command_line_in_a_fresh_interpreter(tmp_path):
    """The same checks as the console script, through the interpreter itself (no
    dependence on the script being installed): exit codes and messages of a real process."""
    entry = [sys.executable, "-c", "import sys; from femb.cli import main; sys.exit(main())"]
    proc = subprocess.run([*entry, "info", str(MESHES / "cantilever.msh")], capture_output=True, text=True)
    assert proc.returncode == 0 and "beam" in proc.stdout
    proc = subprocess.run([*entry, "run", str(tmp_path / "missing.toml")], capture_output=True, text=True)
    assert proc.returncode == 2 and "missing.toml" in proc.stderr and "Traceback" not in proc.stderr


def _line_mesh_file(tmp_path, points, name="m.vtu"):
    path = tmp_path / name
    meshio.write(path, meshio.Mesh(np.asarray(points, float), [("line", [[0, 1], [1, 2]])]))
    return path


MESH_LINE = '[mesh.line]\nname = "beam"\nstart = [0.0, 0.0]\nend = [1.0, 0.0]\nelements = 4'


@pytest.mark.parametrize("replace, culprits", [
    # unknown key, with the allowed keys listed
    ([("E = 1.0", "E = 1.0\ncolour = 'red'")], ["materials.unit.colour: unknown key", "allowed: E, nu, G, rho"]),
    ([("title =", "titel =")], ["titel: unknown key"]),
    # wrong types
    ([("elements = 4", "elements = 'four'")], ["mesh.line.elements", "expected an integer", "'four'"]),
    ([("steps = 2", "steps = 2.5")], ["steps[0].steps", "expected an integer", "2.5"]),
    ([('nodes = "beam_start"', "nodes = 1.5")], ["fix[0].nodes", "1.5"]),
    # unknown names
    ([('nodes = "beam_start"', 'nodes = "clampp"')], ["fix[0].nodes", "'clampp'"]),
    ([('cells = "beam"', 'cells = "bean"')], ["parts[0].cells", "unknown cell set 'bean'"]),
    ([('section = "strip"', 'section = "rod"')], ["parts[0].section", "unknown section 'rod'", "sections: strip"]),
    ([('element = "beam2d"', 'element = "shell9"')], ["parts[0].element", "'shell9'"]),
    ([('type = "static"', 'type = "quasi"')], ["steps[0].type", "'quasi'"]),
    # negative or missing section properties
    ([("A = 1e4", "A = -1.0")], ["sections.strip.A", "must be > 0", "-1"]),
    ([("A = 1e4", "A = 0")], ["sections.strip.A", "must be > 0"]),
    ([("A = 1e4\n", "")], ["sections.strip.A", "required key is missing"]),
    ([('I = "EI"\n', "")], ["part 'beam'", "section needs Iz (or I)"]),
    ([('I = "EI"', 'I = "-EI"')], ["sections.strip.I", "must be > 0", "-2"]),
    ([("A = 1e4", "A = nan")], ["sections.strip.A", "must be finite", "nan"]),
    # NaN / infinite coordinates of a generator
    ([("start = [0.0, 0.0]", "start = [nan, 0.0]")], ["mesh.line.start[0]", "must be finite", "nan"]),
    # surfaces output option
    ([("[[steps]]", '[output]\nsurfaces = { bam = true }\n[[steps]]')], ["output.surfaces.bam", "unknown part 'bam'", "parts: beam"]),
    ([("[[steps]]", '[output]\nsurfaces = { beam = { shape = "circle" } }\n[[steps]]')], ["output.surfaces.beam", "needs a diameter"]),
    ([("[[steps]]", '[output]\nsurfaces = { beam = { shape = "circle", diameter = "big" } }\n[[steps]]')],
     ["output.surfaces.beam.diameter", "unknown name 'big'"]),
    ([("[[steps]]", '[output]\nsurfaces = { beam = { shape = "rectangle", width = 0.1, height = -1 } }\n[[steps]]')],
     ["output.surfaces.beam", "height > 0", "-1"]),
    ([("[[steps]]", '[output]\nsurfaces = { beam = { shape = "hexagon" } }\n[[steps]]')], ["output.surfaces.beam", "'hexagon'"]),
    ([("[[steps]]", '[output]\nsurfaces = { beam = { shape = "circle", radius = 1.0 } }\n[[steps]]')],
     ["output.surfaces.beam: unknown key 'radius'", "allowed: shape"]),
    ([("[[steps]]", '[output]\nsurfaces = "yes"\n[[steps]]')], ["output.surfaces", "expected true, false or a table", "'yes'"]),
    # expressions
    ([('mz = "0.5*pi*EI/L"', 'mz = "__import__(1)"')], ["loads[0].mz", "__import__"]),
    ([('mz = "0.5*pi*EI/L"', 'mz = "EI.real"')], ["loads[0].mz", "attribute access"]),
    # zero-length element from a generator
    ([("end = [1.0, 0.0]", "end = [0.0, 0.0]")], ["mesh.line", "coincide"]),
    # TOML syntax
    ([("E = 1.0", "E = = 1.0")], ["invalid TOML"]),
])
def test_bad_case_exit_2(capsys, write_case, replace, culprits):
    path = write_case(replace=replace)
    code, _, err = run_cli(capsys, "run", path, "--out", path.parent / "out", "--no-progress")
    assert code == 2, err
    assert str(path) in err
    for c in culprits:
        assert c in err


def test_missing_case_file(capsys, tmp_path):
    code, _, err = run_cli(capsys, "run", tmp_path / "nope.toml")
    assert code == 2 and "nope.toml" in err and "not found" in err


def test_missing_mesh_file(capsys, write_case):
    path = write_case(replace=[(MESH_LINE, '[mesh]\nfile = "absent.msh"')])
    code, _, err = run_cli(capsys, "run", path, "--no-progress")
    assert code == 2 and "mesh.file" in err and "absent.msh" in err and "not found" in err


def test_nan_coordinates(capsys, write_case, tmp_path):
    _line_mesh_file(tmp_path, [[0, 0, 0], [0.5, np.nan, 0], [1, 0, 0]])
    path = write_case(replace=[(MESH_LINE, '[mesh]\nfile = "m.vtu"'), ('"beam"', '"line"'), ('"beam_start"', "0"), ('"beam_end"', "2")])
    code, _, err = run_cli(capsys, "run", path, "--no-progress")
    assert code == 2 and "m.vtu" in err and "non-finite coordinates at node(s) [1]" in err


def test_zero_length_element_in_mesh_file(capsys, write_case, tmp_path):
    _line_mesh_file(tmp_path, [[0, 0, 0], [1, 0, 0], [1, 0, 0]])
    path = write_case(replace=[(MESH_LINE, '[mesh]\nfile = "m.vtu"'), ('"beam"', '"line"'), ('"beam_start"', "0"), ('"beam_end"', "2")])
    code, _, err = run_cli(capsys, "run", path, "--no-progress")
    assert code == 2 and "zero-length element(s) [1]" in err and "part 'line'" in err


def test_unsupported_cell_type(capsys, tmp_path):
    path = tmp_path / "solid.vtu"
    meshio.write(path, meshio.Mesh(np.eye(4, 3), [("tetra", [[0, 1, 2, 3]])]))
    code, _, err = run_cli(capsys, "info", path)
    assert code == 2 and "solid.vtu" in err and "unsupported cell type 'tetra'" in err


def test_unsupported_cell_type_in_a_case_mesh(capsys, write_case, tmp_path):
    meshio.write(tmp_path / "solid.vtu", meshio.Mesh(np.eye(4, 3), [("tetra", [[0, 1, 2, 3]])]))
    path = write_case(replace=[(MESH_LINE, '[mesh]\nfile = "solid.vtu"')])
    code, _, err = run_cli(capsys, "run", path, "--no-progress")
    assert code == 2 and "mesh.file" in err and "solid.vtu" in err and "unsupported cell type 'tetra'" in err


def test_info_unreadable_file(capsys, tmp_path):
    path = tmp_path / "junk.msh"
    path.write_text("not a mesh\n")
    code, _, err = run_cli(capsys, "info", path)
    assert code == 2 and "junk.msh" in err


def test_convergence_failure_exit_1_keeps_results(capsys, write_case):
    # a large dead tip force: an end-moment roll-up converges at any load-step size now
    path = write_case(replace=[('mz = "0.5*pi*EI/L"', 'fy = "-20*EI/L**2"'), ("steps = 2", "steps = 4\n[steps.newton]\nmax_iterations = 3\nmax_cutbacks = 0")])
    out = path.parent / "out"
    code, _, err = run_cli(capsys, "run", path, "--out", out, "--no-progress")
    assert code == 1 and "ConvergenceError" in err and "residual history" in err and str(out) in err
    assert read_pvd(out / "results.pvd") and (out / "run.json").exists()


def test_mechanism_exit_1(capsys, write_case):
    path = write_case(replace=[('[[fix]]\nnodes = "beam_start"\n', "")])
    code, _, err = run_cli(capsys, "run", path, "--out", path.parent / "out", "--no-progress")
    assert code == 1 and "SingularSystemError" in err and "singular" in err


def test_render_bad_frame_exit_2(capsys, tmp_path):
    code, _, err = run_cli(capsys, "render", tmp_path, "--png", tmp_path / "x.png")
    assert code == 2 and "expected one .pvd" in err


def test_run_kind_names_dimension_elements_joints_and_steps(write_case):
    from femb.case import load_case
    from femb.cli import run_kind

    key, modules, default = run_kind(load_case(write_case()))
    assert key.startswith("2d|beam2d|") and "static" in key and modules == ["beam2d"] and default > 0
    arm_key, arm_modules, _ = run_kind(load_case(EXAMPLES / "spatial_arm.toml"))
    assert arm_key.startswith("3d|") and "beam3d" in arm_key and "dynamic:" in arm_key and "lumped" in arm_key
    assert {"beam3d", "masses", "rotational_springs3d"} <= set(arm_modules)


def test_compiling_message_only_when_the_cache_lacks_kernels(tmp_path, monkeypatch):
    """Empty kernel cache: "compiling kernels, first run only (about N s)" once; a cache
    with what the same kind of run used: no message."""
    import importlib
    import importlib.util
    import io

    import numba

    from femb.cli import announce_compilation

    J = importlib.import_module("femb.core.jit")
    cache = tmp_path / "femb-kernels-0123456789abcdef"
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(cache))
    monkeypatch.setattr(J, "CACHE_DIR", cache)
    monkeypatch.setattr(J, "KERNELS", [])
    stream = io.StringIO()
    assert announce_compilation(("kind", ["tiny_kernel"], 12.0), stream)
    assert stream.getvalue() == "compiling kernels, first run only (about 12 s)\n"
    source = tmp_path / "tiny_kernel.py"
    source.write_text("def add(a, b):\n    return a + b\n")
    spec = importlib.util.spec_from_file_location("tiny_kernel", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert J.jit(module.add)(1.0, 2.0) == 3.0  # compiled into the cache
    J.record_run("kind")
    stream = io.StringIO()
    assert not announce_compilation(("kind", ["tiny_kernel"], 12.0), stream) and stream.getvalue() == ""


@pytest.mark.long
def test_first_run_says_it_is_compiling(tmp_path, write_case):
    """A real first run with an empty NUMBA_CACHE_DIR announces the compilation on stderr
    before its progress; the second run on the filled cache does not."""
    import os

    case = write_case()
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    entry = [sys.executable, "-c", "import sys; from femb.cli import main; sys.exit(main())"]
    runs = [subprocess.run([*entry, "run", str(case), "--out", str(tmp_path / f"out{k}")], capture_output=True, text=True, env=env)
            for k in range(2)]
    assert [r.returncode for r in runs] == [0, 0]
    first = runs[0].stderr
    assert first.count("compiling kernels, first run only (about ") == 1
    assert first.index("compiling kernels") < first.index("static")  # before the progress of the step
    assert "compiling kernels" not in runs[1].stderr
    assert (tmp_path / "cache" / "femb-kernel-runs.json").exists()
