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
    ref = {"name": name, "title": f"test case {name}", "source": "tests/validation", "quick": quick, "metrics": metrics}
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
        assert set(case) == {"name", "passed", "seconds", "metrics"}
        assert case["passed"] is True and isinstance(case["seconds"], float)
        assert case["metrics"], case["name"]
        for m in case["metrics"]:
            assert set(m) == {"name", "value", "reference", "tolerance", "passed"}
            assert isinstance(m["value"], float) and math.isfinite(m["value"])
            assert m["passed"] in (True, None)
            assert (m["passed"] is None) == (m["reference"] is None or m["tolerance"] is None)
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
