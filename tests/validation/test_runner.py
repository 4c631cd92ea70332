"""The validation runner: quick subset, failure reporting, isolation, Dask, report."""
import argparse
import json
import math
import shutil
import textwrap
from pathlib import Path

import pytest

from femb.core.errors import InputError
from femb.validation import discover, run_cases
from femb.validation.cases import MetricSpec, load_spec
from femb.validation.cli import add_parser, main
from femb.validation.compare import compare_metric
from femb.validation.execute import execute_case

ROOT = Path(__file__).resolve().parents[2] / "validation"
CASES = ("rollup-2d", "euler-column", "truss-arch-snap-through", "cantilever-tip-load")
CRISFIELD = ("crisfield-pendulum", "crisfield-free-chain", "crisfield-two-dof")


def write_case(root, name, code, metrics, quick=True):
    """A case folder ``root/name`` with the given case.py body and metric references."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "case.py").write_text(textwrap.dedent(code))
    ref = {"name": name, "title": f"test case {name}", "source": "tests/validation", "quick": quick, "metrics": metrics,
           "notes": f"the notes of the {name} case"}
    (folder / "reference.json").write_text(json.dumps(ref))
    return folder


def metric(reference, tolerance, kind="abs"):
    return {"reference": reference, "tolerance": tolerance, "tolerance_kind": kind, "units": "-", "origin": "analytic"}


CONSTANT_CASE = """
def run(quick, out_dir):
    (out_dir / "ran.txt").write_text("yes")
    return {"metrics": {"x": 1.0, "extra": 3.0}}
"""
RAISING_CASE = """
def run(quick, out_dir):
    raise RuntimeError("boom in the case")
"""


# ----------------------------------------------------------------------------- real cases
def test_every_documented_case_is_discovered_and_listed_in_the_readme():
    names = {s.name for s in discover(ROOT)}
    assert set(CASES) <= names and set(CRISFIELD) <= names
    readme = (ROOT / "README.md").read_text()
    for name in names:
        assert f"`{name}`" in readme, f"{name} is not documented in validation/README.md"


def test_quick_subset_passes_with_json_schema_and_report(tmp_path, capsys):
    out_json, report = tmp_path / "v.json", tmp_path / "report"
    code = main(["--quick", "--json", str(out_json), "--report", str(report)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    data = json.loads(out_json.read_text())
    assert set(data) == {"femb_version", "cases"}
    assert isinstance(data["femb_version"], str)
    quick = [s.name for s in discover(ROOT) if s.quick]
    assert [c["name"] for c in data["cases"]] == quick and set(CASES) <= set(quick)
    for case in data["cases"]:
        assert set(case) == {"name", "passed", "seconds", "origins", "metrics"}
        assert case["passed"] is True and isinstance(case["seconds"], float)
        assert case["metrics"], case["name"]
        for m in case["metrics"]:
            assert set(m) == {"name", "value", "reference", "tolerance", "tolerance_kind", "origin", "passed"}
            assert isinstance(m["value"], float) and math.isfinite(m["value"])
            assert m["passed"] in (True, None)
            judged = m["reference"] is not None and m["tolerance"] is not None
            assert (m["passed"] is None) == (not judged)
            assert (m["origin"] in ("paper", "analytic", "converged-femb")) == (m["reference"] is not None)
        counts = case["origins"]
        assert sum(counts.values()) == len(case["metrics"])
        assert counts["reported"] == sum(m["passed"] is None for m in case["metrics"])
        for origin in ("paper", "analytic", "converged-femb"):
            assert counts[origin] == sum(m["passed"] is not None and m["origin"] == origin for m in case["metrics"])
    for page in ("report.md", "report.html"):
        text = (report / page).read_text()
        for name in quick:
            assert name in text, f"{name} missing from {page}"
    assert (report / "rollup-2d" / "convergence.png").stat().st_size > 1000
    for name in CRISFIELD:  # pictures of the deformed shapes next to the plots
        assert (report / name / "shape.png").stat().st_size > 1000
        assert f"]({name}/shape.png)" in (report / "report.md").read_text()
        assert f'src="{name}/shape.png"' in (report / "report.html").read_text()
    assert "![" in (report / "report.md").read_text() and "<img" in (report / "report.html").read_text()
    for name in CASES:
        assert name in printed
    # one progress line per case as it finishes, before the table
    progress = [ln for ln in printed.splitlines() if ln.startswith("[")]
    assert len(progress) == len(quick) and all(" pass " in ln and ln.endswith(" s") for ln in progress)
    assert printed.index(progress[-1]) < printed.index("Metrics judged per origin")


# ----------------------------------------------------------------------------- failures
def test_wrong_reference_fails_with_a_readable_message(tmp_path, capsys):
    root = tmp_path / "cases"
    folder = root / "euler-column-wrong"
    shutil.copytree(ROOT / "euler-column", folder)
    ref = json.loads((folder / "reference.json").read_text())
    ref["name"] = folder.name
    ref["metrics"]["ratio"]["reference"] = 1.5
    (folder / "reference.json").write_text(json.dumps(ref))
    write_case(root, "constant", CONSTANT_CASE, {"x": metric(1.0, 1e-12)})
    code = main(["--root", str(root), "--report", str(tmp_path / "report"), "--json", str(tmp_path / "v.json")])
    out = capsys.readouterr().out
    assert code == 1
    line = next(ln for ln in out.splitlines() if "euler-column-wrong / ratio" in ln)
    assert "value 1.00" in line and "reference 1.5" in line and "error 0.49" in line and "> tolerance 0.005" in line
    assert "1 of 2 cases passed; failed: euler-column-wrong" in out
    data = json.loads((tmp_path / "v.json").read_text())
    verdict = {c["name"]: c["passed"] for c in data["cases"]}
    assert verdict == {"constant": True, "euler-column-wrong": False}
    ratio = next(m for m in data["cases"][1]["metrics"] if m["name"] == "ratio")
    assert ratio["passed"] is False and ratio["reference"] == 1.5
    assert "FAIL" in (tmp_path / "report" / "report.html").read_text()


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_raising_case_fails_and_the_others_still_run(tmp_path, jobs):
    root = tmp_path / "cases"
    write_case(root, "a-raises", RAISING_CASE, {"x": metric(1.0, 0.1)})
    write_case(root, "b-fine", CONSTANT_CASE, {"x": metric(1.0, 0.1)})
    results = run_cases(root=root, jobs=jobs, out_dir=tmp_path / "out")
    bad, good = results
    assert not bad.passed and "RuntimeError: boom in the case" in bad.error and "Traceback" in bad.traceback
    assert [m.passed for m in bad.metrics] == [False]
    assert good.passed and (tmp_path / "out" / "b-fine" / "ran.txt").read_text() == "yes"
    assert {m.name: m.passed for m in good.metrics} == {"x": True, "extra": None}


PICTURE_CASE = """
from femb.export import results_to_vtk
from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers import solve_static


def run(quick, out_dir):
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 4, "b"))
    model.add_part("b", "beam2d", "b", values={"EA": 1e4, "EI": 1.0, "rhoA": 1.0, "rhoI": 0.01})
    model.fix("b_start")
    model.point_load("b_end", fy=-1.0)
    results_to_vtk(solve_static(model, steps=2), out_dir / "frames")
    return {"metrics": {"x": 1.0},
            "series": {"picture_final": {"source": "frames", "frame": -1, "title": "tip load"},
                       "picture_missing": {"source": "no-such-folder"},
                       "shape_broken": {"reference": [[0, 0, 0]], "lines": [[0, 7]], "frames": []},
                       "shape_ok": {"title": "two frames", "reference": [[0, 0, 0], [1, 0, 0]], "lines": [[0, 1]],
                                    "frames": [{"label": "a", "points": [[0, 0, 0], [1, 0.2, 0]]},
                                               {"label": "b", "points": [[0, 0, 0], [0.9, 0.4, 0]]}]}}}
"""


def test_report_pictures_from_saved_results_and_inline_shapes_and_broken_ones_are_skipped(tmp_path):
    """A case may ask for a picture of a result folder it wrote (femb.export) and for
    inline snapshots; pictures that cannot be drawn are left out, the report is still
    written and the case still passes."""
    root = tmp_path / "cases"
    write_case(root, "pictures", PICTURE_CASE, {"x": metric(1.0, 1e-12)})
    report = tmp_path / "report"
    code = main(["--root", str(root), "--report", str(report), "--json", str(tmp_path / "v.json")])
    assert code == 0
    md = (report / "report.md").read_text()
    for key in ("picture_final", "shape_ok"):
        assert (report / "pictures" / f"{key}.png").stat().st_size > 1000
        assert f"](pictures/{key}.png)" in md
    for key in ("picture_missing", "shape_broken"):
        assert not (report / "pictures" / f"{key}.png").exists() and key not in md


def test_missing_metric_and_bad_return_fail(tmp_path):
    root = tmp_path / "cases"
    write_case(root, "missing", CONSTANT_CASE, {"x": metric(1.0, 0.1), "y": metric(0.0, 0.1)})
    write_case(root, "bad-return", "def run(quick, out_dir):\n    return 3\n", {})
    bad, missing = run_cases(root=root, out_dir=tmp_path / "out")  # sorted by name
    assert not missing.passed and "did not return" in missing.failures()[0]
    assert not bad.passed and "TypeError" in bad.error


def test_case_source_travels_with_the_spec(tmp_path):
    """A worker without the case folder (remote Dask) runs the source carried by the spec."""
    spec = load_spec(write_case(tmp_path / "cases", "moved", CONSTANT_CASE, {"x": metric(1.0, 0.1)}))
    shutil.rmtree(spec.directory)
    outcome = execute_case(spec, True, tmp_path / "out")
    assert outcome["error"] is None and outcome["metrics"] == {"x": 1.0, "extra": 3.0}


def test_unknown_case_and_malformed_reference_give_exit_code_2(tmp_path, capsys):
    assert main(["no-such-case", "--report", str(tmp_path)]) == 2
    assert "unknown case 'no-such-case'" in capsys.readouterr().err
    root = tmp_path / "cases"
    folder = write_case(root, "bad", CONSTANT_CASE, {"x": {"reference": "one", "tolerance_kind": "max"}})
    with pytest.raises(InputError) as err:
        load_spec(folder)
    assert len(err.value.problems) == 2
    assert main(["--root", str(root)]) == 2


# ----------------------------------------------------------------------------- comparison
def test_comparison_rules():
    spec = MetricSpec("m", reference=2.0, tolerance=0.01, tolerance_kind="rel")
    assert compare_metric(spec, 2.01).passed is True
    assert compare_metric(spec, 2.03).error == pytest.approx(0.015)
    assert compare_metric(spec, 2.03).passed is False
    assert compare_metric(spec, float("nan")).passed is False
    assert compare_metric(spec, None).passed is False
    zero = MetricSpec("z", reference=0.0, tolerance=1e-3, tolerance_kind="rel")  # falls back to abs
    assert compare_metric(zero, 5e-4).passed is True
    info = compare_metric(MetricSpec("i", reference=None, tolerance=None), 7.0)
    assert info.passed is None and info.value == 7.0 and info.error is None


# ----------------------------------------------------------------------------- CLI, Dask
def test_add_parser_registers_validate_subcommand(capsys):
    parser = argparse.ArgumentParser(prog="femb")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["validate", "--list"])
    assert args.command == "validate" and args.func(args) == 0
    assert "rollup-2d" in capsys.readouterr().out


@pytest.mark.parametrize("processes", [False, True])
def test_dask_scheduler_gives_the_same_metrics_as_the_local_path(tmp_path, processes):
    distributed = pytest.importorskip("distributed")
    local = run_cases(["euler-column"], quick=True, out_dir=tmp_path / "local", root=ROOT)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=processes, host="127.0.0.1",
                                  protocol="tcp", dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        remote = run_cases(["euler-column"], quick=True, scheduler=cluster.scheduler_address,
                           out_dir=tmp_path / "dask", root=ROOT)
    assert remote[0].passed and remote[0].error is None
    assert {m.name: m.value for m in remote[0].metrics} == pytest.approx({m.name: m.value for m in local[0].metrics}, rel=1e-12)


# ----------------------------------------------------------------------------- provenance
ORIGIN_CASE = """
def run(quick, out_dir):
    return {"metrics": {"p": 1.0, "a": 2.0, "f": 3.0, "r": 4.0, "up": 0.5, "low": 0.5}}
"""


def test_origin_of_every_reference_is_shown_in_table_json_and_report_with_per_case_counts(tmp_path, capsys):
    """A check against femb's own run must not look like one against a paper: the origin is
    a column of the table, a field of every JSON metric and counted per case everywhere."""
    root = tmp_path / "cases"
    write_case(root, "origins", ORIGIN_CASE, {
        "p": dict(metric(1.0, 1e-9), origin="paper"),
        "a": dict(metric(2.0, 1e-9), origin="analytic"),
        "f": dict(metric(3.0, 1e-9), origin="converged-femb"),
        "r": {"reference": None, "tolerance": None, "units": "-"},
        "up": dict(metric(1.0, 0.0, "upper_bound"), origin="paper"),
        "low": dict(metric(0.4, 0.0, "lower_bound"), origin="analytic"),
    })
    report, out_json = tmp_path / "report", tmp_path / "v.json"
    assert main(["--root", str(root), "--report", str(report), "--json", str(out_json)]) == 0
    printed = capsys.readouterr().out
    metric_part, count_part = printed.split("Metrics judged per origin")
    rows = {}
    for line in metric_part.splitlines():
        cells = line.split()
        if cells and cells[0] == "origins":
            cells = cells[1:]
        if cells and cells[0] in ("p", "a", "f", "r", "up", "low"):
            rows[cells[0]] = cells
    for name, origin in (("p", "paper"), ("a", "analytic"), ("f", "converged-femb"), ("up", "paper"), ("low", "analytic")):
        assert rows[name][rows[name].index(origin) + 1] == "pass", rows[name]
    assert rows["r"][-2:] == ["reported", "-"]
    assert "upper_bound" in rows["up"] and "lower_bound" in rows["low"]
    counts_line = next(ln for ln in count_part.splitlines() if ln.startswith("origins"))
    assert counts_line.split() == ["origins", "2", "2", "1", "1", "pass"]
    data = json.loads(out_json.read_text())["cases"][0]
    assert data["origins"] == {"paper": 2, "analytic": 2, "converged-femb": 1, "reported": 1}
    assert {m["name"]: m["origin"] for m in data["metrics"]} == {
        "p": "paper", "a": "analytic", "f": "converged-femb", "r": None, "up": "paper", "low": "analytic"}
    for page in ("report.md", "report.html"):
        text = (report / page).read_text()
        assert "converged-femb" in text and "judged against 2 paper, 2 analytic, 1 converged-femb" in text
        assert "reported only" in text
    assert "Notes: the notes of the origins case" in (report / "report.md").read_text()


def test_one_sided_bounds_and_origin_rules():
    up = MetricSpec("u", reference=1.0, tolerance=0.0, tolerance_kind="upper_bound", origin="paper")
    low = MetricSpec("l", reference=1.5, tolerance=0.0, tolerance_kind="lower_bound", origin="paper")
    assert compare_metric(up, 0.2).passed is True and compare_metric(up, 0.2).error == 0.0
    assert compare_metric(up, 1.25).passed is False and compare_metric(up, 1.25).error == pytest.approx(0.25)
    assert compare_metric(low, 3.7e4).passed is True
    assert compare_metric(low, 1.2).passed is False and "lower bound 1.5 (paper)" in compare_metric(low, 1.2).describe()
    assert compare_metric(low, float("nan")).passed is False


@pytest.mark.parametrize("entry, problem", [
    ({"reference": 1.0, "tolerance": 0.1}, "must name the origin"),
    ({"reference": None, "tolerance": None, "origin": "converged-femb"}, "without a reference"),
    ({"reference": 1.0, "tolerance": 0.1, "origin": "folklore"}, "origin must be one of"),
])
def test_a_judged_metric_must_name_its_origin_and_a_reported_one_has_none(tmp_path, entry, problem):
    folder = write_case(tmp_path / "cases", "bad", CONSTANT_CASE, {"x": entry})
    with pytest.raises(InputError) as err:
        load_spec(folder)
    assert any(problem in p for p in err.value.problems), err.value.problems


def test_every_reference_names_only_what_is_in_the_repository():
    """Sources, notes and the README cite the literature and files of this repository only:
    every file they name exists (in the repository or the case folder), every
    ``femb.…`` function they name can be imported, and no private notes are cited."""
    import importlib
    import re

    repo = ROOT.parent
    texts = [("README", (ROOT / "README.md").read_text(), ROOT)]
    for spec in discover(ROOT):
        texts += [(spec.name, spec.source, spec.directory), (spec.name, spec.notes, spec.directory),
                  (f"{spec.name}/case.py", spec.code, spec.directory)]
    for where, text, folder in texts:
        for banned in ("/work/", "digest", "references/"):
            assert banned not in text.lower(), (where, banned)
        files = [] if where.endswith("case.py") else re.findall(r"[\w./-]+\.(?:csv|md|json|toml|msh|inp|py)\b", text)
        for path in files:  # (a case's code may name the files it writes)
            if where == "README" and (path.startswith(("report/", "out.")) or any(ROOT.glob(f"*/{Path(path).name}"))):
                continue  # the generic files of a case folder and the generated report
            assert (repo / path).exists() or (folder / path).exists() or (folder / Path(path).name).exists(), (where, path)
        for dotted in re.findall(r"\bfemb(?:\.\w+)+", text):
            parts = dotted.split(".")
            for cut in range(len(parts), 0, -1):  # the longest importable module, then attributes
                try:
                    obj = importlib.import_module(".".join(parts[:cut]))
                except ImportError:
                    continue
                for attr in parts[cut:]:
                    obj = getattr(obj, attr, None)
                    assert obj is not None, (where, dotted)
                break
            else:
                raise AssertionError((where, dotted))


def test_the_regression_against_femb_itself_runs_in_make_test():
    """Every case with a reference from femb's own converged run is in the quick subset
    (which `make test` runs), with those metrics judged in its quick variant too."""
    regression = [s for s in discover(ROOT) if any(m.origin == "converged-femb" for m in s.metrics.values())]
    assert [s.name for s in regression] == ["meijaard-spinup-spatial"]
    for spec in regression:
        assert spec.quick
        assert all(not m.full_only for m in spec.metrics.values() if m.origin == "converged-femb")


def test_progress_lines_come_as_cases_finish_with_a_pool(tmp_path):
    root = tmp_path / "cases"
    write_case(root, "a-raises", RAISING_CASE, {"x": dict(metric(1.0, 0.1))})
    write_case(root, "b-fine", CONSTANT_CASE, {"x": dict(metric(1.0, 0.1))})
    seen = []
    results = run_cases(root=root, jobs=2, out_dir=tmp_path / "out",
                        progress=lambda res, done, total: seen.append((res.name, res.passed, done, total)))
    assert sorted(seen) == [("a-raises", False, 1, 2), ("b-fine", True, 2, 2)] or sorted(seen) == [
        ("a-raises", False, 2, 2), ("b-fine", True, 1, 2)]
    assert [r.name for r in results] == ["a-raises", "b-fine"]


FULL_ONLY_CASE = """
def run(quick, out_dir):
    return {"metrics": {"x": 1.0} if quick else {"x": 1.0, "late": 0.0}}
"""


def test_full_only_metrics_are_required_in_full_runs_only(tmp_path):
    root = tmp_path / "cases"
    write_case(root, "modes", FULL_ONLY_CASE, {"x": metric(1.0, 0.1), "late": dict(metric(0.0, 0.1), full_only=True)})
    quick = run_cases(root=root, quick=True, out_dir=tmp_path / "q")[0]
    full = run_cases(root=root, quick=False, out_dir=tmp_path / "f")[0]
    assert quick.passed and [m.name for m in quick.metrics] == ["x"]
    assert full.passed and [m.name for m in full.metrics] == ["x", "late"]
    write_case(root, "broken", "def run(quick, out_dir):\n    return {'metrics': {'x': 1.0}}\n",
               {"x": metric(1.0, 0.1), "late": dict(metric(0.0, 0.1), full_only=True)})
    assert not run_cases(["broken"], root=root, out_dir=tmp_path / "b")[0].passed  # missing in a full run


@pytest.mark.parametrize("address", ["tcp//127.0.0.1:8786", "127.0.0.1", "x" * 300])
def test_validate_malformed_scheduler_is_exit_2_in_one_line(capsys, address):
    code = main(["euler-column", "--no-report", "--scheduler", address])
    err = capsys.readouterr().err
    assert code == 2 and "expected a Dask scheduler address such as tcp://127.0.0.1:8786" in err
    assert len(err.strip().splitlines()) == 1 and len(err) < 250


def test_validate_refused_scheduler_port_is_exit_2_quickly(capsys):
    """Nothing listens on the port: one line naming the address, after the short connect
    timeout (femb.batch.CONNECT_TIMEOUT), not the Dask default of 30 s."""
    import socket
    import time

    pytest.importorskip("distributed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    code = main(["euler-column", "--no-report", "--scheduler", f"tcp://127.0.0.1:{port}"])
    err = capsys.readouterr().err
    assert code == 2 and f"--scheduler tcp://127.0.0.1:{port}: no Dask scheduler answered within 5 s" in err
    assert time.monotonic() - start < 15
