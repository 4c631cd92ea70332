"""What ``femb run`` leaves in its output folder: a fresh run clears the previous run's
files (and only femb's), Ctrl-C and kills leave a readable history, the summary names only
files that exist, and a file given as ``--out`` is refused."""
import csv
import json

import pytest

from femb.case import load_case
from femb.cli import main
from femb.export import read_pvd
from tests.io.conftest import BASE_CASE
from tests.io.test_case_dynamic import DYNAMIC_CASE


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def history_rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


# ------------------------------------------------------------------ item 5: the summary line
def test_summary_names_only_written_files(capsys, write_case, tmp_path):
    path = write_case(BASE_CASE + "[output]\nvtk = false\n")
    code, out, _ = run_cli(capsys, "run", path, "--out", tmp_path / "o", "--no-progress")
    assert code == 0 and not (tmp_path / "o" / "results.pvd").exists()
    written = out.split("written:")[1]
    assert "results.pvd" not in written and "history.csv" in written and "run.json" in written
    path = write_case(BASE_CASE + "[output]\nhistory = false\nname = \"cant\"\n")
    code, out, _ = run_cli(capsys, "run", path, "--out", tmp_path / "p", "--no-progress")
    written = out.split("written:")[1]
    assert code == 0 and "cant.pvd" in written and "history.csv" not in written and (tmp_path / "p" / "cant.pvd").exists()


# ------------------------------------------------------------------ item 10: --out is a file
def test_out_naming_an_existing_file_is_exit_2(capsys, write_case, tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("mine")
    code, _, err = run_cli(capsys, "run", write_case(), "--out", target, "--no-progress")
    assert code == 2 and "notes.txt" in err and "existing file" in err
    code, _, err = run_cli(capsys, "run", write_case(), "--out", target / "sub", "--no-progress")
    assert code == 2 and "notes.txt" in err
    assert target.read_text() == "mine"


# ------------------------------------------------------------------ item 4: used output folder
def test_fresh_run_clears_previous_outputs_but_not_foreign_files(capsys, write_case, tmp_path):
    out = tmp_path / "out"
    big = write_case(BASE_CASE.replace("steps = 2", "steps = 6") + "[output]\nsurfaces = true\nname = \"old\"\n", name="big.toml")
    assert run_cli(capsys, "run", big, "--out", out, "--no-progress")[0] == 0
    big2 = write_case(BASE_CASE.replace("steps = 2", "steps = 6") + "[output]\nsurfaces = true\n", name="big2.toml")
    assert run_cli(capsys, "run", big2, "--out", out, "--no-progress")[0] == 0
    assert (out / "old.pvd").exists() is False  # the earlier run's name, read from its run.json
    assert len(read_pvd(out / "results_surface.pvd")) == 7
    foreign = [out / "notes.txt", out / "results_final.vtu", out / "results_1.vtu", out / "mesh.pvd"]
    for f in foreign:
        f.write_text("user data")
    small = write_case(BASE_CASE, name="small.toml")  # 3 frames, no surfaces
    assert run_cli(capsys, "run", small, "--out", out, "--no-progress")[0] == 0
    left = sorted(p.name for p in out.iterdir())
    assert left == sorted(["history.csv", "run.json", "results.pvd", "results_00000.vtu", "results_00001.vtu", "results_00002.vtu",
                           *(f.name for f in foreign)])
    assert all(f.read_text() == "user data" for f in foreign)
    assert len(history_rows(out / "history.csv")) == 3


# ------------------------------------------------------------------ item 8: Ctrl-C and kills
class Killed(BaseException):
    """Stands in for SIGKILL: not an Exception, so no handler writes anything on the way out."""


def _stop_after(monkeypatch, n, exc):
    """Make the n-th checkpoint save of a dynamic step raise ``exc`` (after saving)."""
    import femb.case.checkpoint as checkpoint

    real, calls = checkpoint.StepCheckpoint.save, []

    def save(self, *args, **kwargs):
        real(self, *args, **kwargs)
        calls.append(1)
        if len(calls) == n:
            raise exc

    monkeypatch.setattr(checkpoint.StepCheckpoint, "save", save)


def test_killed_run_leaves_a_readable_history(write_case, tmp_path, monkeypatch):
    path = write_case(DYNAMIC_CASE.replace("SCHEME", ""))
    _stop_after(monkeypatch, 6, Killed())
    with pytest.raises(Killed):
        load_case(path).run(tmp_path / "out", progress=False)
    rows = history_rows(tmp_path / "out" / "history.csv")
    assert len(rows) >= 1 and float(rows[0]["time"]) == 0.0 and "tip_uy" in rows[0]
    record = json.loads((tmp_path / "out" / "run.json").read_text())
    assert record["steps"][-1] == {"step": "swing", "status": "running"}


def test_ctrl_c_writes_history_and_resumes(capsys, write_case, tmp_path, monkeypatch):
    path = write_case(DYNAMIC_CASE.replace("SCHEME", ""))
    whole = tmp_path / "whole"
    assert run_cli(capsys, "run", path, "--out", whole, "--no-progress")[0] == 0
    out = tmp_path / "out"
    _stop_after(monkeypatch, 6, KeyboardInterrupt())
    code, _, err = run_cli(capsys, "run", path, "--out", out, "--no-progress")
    assert code == 130
    assert "interrupted in step 'swing'" in err and f"femb run {path} --out {out} --restart" in err
    rows = history_rows(out / "history.csv")
    assert len(rows) == 7  # frames 0..6: the first frame, then one per segment
    record = json.loads((out / "run.json").read_text())
    assert record["steps"][-1]["status"] == "interrupted" and record["steps"][-1]["frames"] == 7
    monkeypatch.undo()
    code, out_text, _ = run_cli(capsys, "run", path, "--out", out, "--restart", "--no-progress")
    assert code == 0
    assert (out / "history.csv").read_bytes() == (whole / "history.csv").read_bytes()
    assert [t for t, _ in read_pvd(out / "results.pvd")] == [t for t, _ in read_pvd(whole / "results.pvd")]


def test_ctrl_c_in_a_static_step_says_it_cannot_resume(capsys, write_case, tmp_path, monkeypatch):
    import femb.case.steps as steps

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(steps, "solve_static", interrupted)
    code, _, err = run_cli(capsys, "run", write_case(), "--out", tmp_path / "o", "--no-progress")
    assert code == 130 and "cannot be resumed" in err and "--restart" not in err
    assert json.loads((tmp_path / "o" / "run.json").read_text())["steps"][-1]["status"] == "interrupted"


def test_restart_refuses_a_checkpoint_of_other_parameter_values(write_case, tmp_path, monkeypatch):
    """A sweep's run (parameters overridden) must not be continued with the case's own
    values: that would splice two different models into one history."""
    from femb.core.errors import InputError

    path = write_case(DYNAMIC_CASE.replace("SCHEME", ""))
    _stop_after(monkeypatch, 3, Killed())
    with pytest.raises(Killed):
        load_case(path, parameters={"v0": 2.0}).run(tmp_path / "out", progress=False)
    monkeypatch.undo()
    with pytest.raises(InputError, match="other parameter values"):
        load_case(path).run(tmp_path / "out", progress=False, restart=True)
    done = load_case(path, parameters={"v0": 2.0}).run(tmp_path / "out", progress=False, restart=True)
    assert len(done[0]) == 33


def test_ctrl_c_of_a_real_process_exits_130_and_resumes(tmp_path):
    """SIGINT to a running ``femb run`` (wherever it lands: numba kernels, sparse solves,
    file writes): exit 130, no traceback, a history, the resume command; the resumed run
    ends as the uninterrupted one."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.io.conftest import ROOT
    from tests.io.test_restart import checkpoint_meta, small_slider_crank

    case = small_slider_crank(tmp_path)
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "femb.cli", "run", str(case), "--out", str(out)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if checkpoint_meta(out)["frames"] >= 10:
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "femb: interrupted in step 'crank'" in err
    assert f"femb run {case} --out {out} --restart" in err
    rows = history_rows(out / "history.csv")
    assert len(rows) >= 10 and json.loads((out / "run.json").read_text())["steps"][-1]["status"] == "interrupted"
    resumed = subprocess.run(cmd + ["--restart", "--no-progress"], env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert len(history_rows(out / "history.csv")) == 127 and len(read_pvd(out / "results.pvd")) == 127


def test_ctrl_c_between_steps_is_a_clean_stop(capsys, write_case, tmp_path, monkeypatch):
    import femb.case.checkpoint as checkpoint

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(checkpoint.Checkpoint, "complete_step", interrupted)
    code, _, err = run_cli(capsys, "run", write_case(), "--out", tmp_path / "o", "--no-progress")
    assert code == 130 and "interrupted in step 'step0'" in err and "cannot be resumed" in err
    record = json.loads((tmp_path / "o" / "run.json").read_text())
    assert record["steps"] == [{**record["steps"][0], "step": "step0", "status": "completed"}]
    assert len(history_rows(tmp_path / "o" / "history.csv")) == 3
