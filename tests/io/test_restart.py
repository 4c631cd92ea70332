"""Checkpoint and restart: a killed ``femb run`` continues from its last checkpoint and
ends bit for bit where the uninterrupted run ends."""
import json
import os
import signal
import subprocess
import sys
import time

import meshio
import numpy as np
import pytest

from femb.case import load_case
from femb.cli import main
from femb.export import read_pvd
from tests.io.conftest import EXAMPLES, ROOT
from tests.io.test_case_dynamic import DYNAMIC_CASE


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def checkpoint_meta(folder):
    with np.load(folder / "checkpoint.npz") as data:
        return json.loads(data["meta"].tobytes().decode())


def checkpoint_arrays(folder):
    with np.load(folder / "checkpoint.npz") as data:
        return {k: np.array(data[k]) for k in data.files if k != "meta"}


def small_slider_crank(tmp_path):
    """The flagship case on 8 elements for one crank revolution, a frame every 20 steps
    (2518 steps, 127 frames)."""
    text = (EXAMPLES / "slider_crank.toml").read_text()
    text = text.replace("elements = 16", "elements = 8").replace("revolutions = 2", "revolutions = 1")
    text = text.replace("record_every = 10 ", "record_every = 20 ")
    path = tmp_path / "crank.toml"
    path.write_text(text)
    return path


def test_killed_run_restarts_bit_for_bit(tmp_path, capsys):
    case = small_slider_crank(tmp_path)
    killed, whole = tmp_path / "killed", tmp_path / "whole"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "femb.cli", "run", str(case), "--out", str(killed), "--no-progress"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    frames = 0
    while time.monotonic() < deadline and proc.poll() is None:
        if (killed / "checkpoint.npz").exists():
            try:
                frames = checkpoint_meta(killed)["frames"]
            except (OSError, ValueError, KeyError):  # caught between two writes: try again
                frames = 0
            if frames >= 20:
                break
        time.sleep(0.02)
    assert proc.poll() is None, f"the run ended before it could be killed: {proc.stderr.read().decode()}"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)

    # what the killed run left: a valid collection listing the frames so far, a checkpoint
    meta = checkpoint_meta(killed)
    entries = read_pvd(killed / "results.pvd")
    assert 20 <= meta["frames"] < 127 and meta["step_name"] == "crank"
    assert len(entries) >= meta["frames"] and len(meta["pvd_entries"]) == meta["frames"]
    for _, vtu in entries[: meta["frames"]]:
        assert meshio.read(vtu).points.shape == (9, 3)
    assert np.all(np.diff([t for t, _ in entries]) > 0)

    code, out, _ = run_cli(capsys, "run", case, "--out", killed, "--restart", "--no-progress")
    assert code == 0 and "restarting from" in out
    code, _, _ = run_cli(capsys, "run", case, "--out", whole, "--no-progress")
    assert code == 0

    # bit for bit: the final state, every recorded frame (t, u, v, history) and the files
    a, b = checkpoint_arrays(killed), checkpoint_arrays(whole)
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    fa = np.fromfile(killed / "checkpoint_frames.bin")
    fb = np.fromfile(whole / "checkpoint_frames.bin")
    n_frames = checkpoint_meta(whole)["frames"]
    assert n_frames == checkpoint_meta(killed)["frames"] == 127  # steps 0, 20, ..., 2500 and the last, 2518
    assert fa.size == fb.size == n_frames * (1 + 2 * 27 + len(meta["history_keys"])) and np.array_equal(fa, fb)
    assert (killed / "history.csv").read_bytes() == (whole / "history.csv").read_bytes()
    assert (killed / "results.pvd").read_bytes() == (whole / "results.pvd").read_bytes()
    for (_, va), (_, vb) in zip(read_pvd(killed / "results.pvd"), read_pvd(whole / "results.pvd"), strict=True):
        assert va.read_bytes() == vb.read_bytes(), va.name
    run = json.loads((killed / "run.json").read_text())
    assert run["steps"][0]["restarted_at_frame"] == meta["frames"] - 1


class Interrupt(BaseException):
    """Stands in for a kill: not an Exception, so nothing is written on the way out."""


@pytest.mark.parametrize("scheme", ['scheme = "generalized-alpha"\nrho_inf = 0.7\nmass = "invariant"\ncheckpoint_every = 3',
                                    'scheme = "hht"\nalpha = -0.2\nrayleigh = [0.5, 1e-4]'])
def test_restart_between_steps_and_schemes(write_case, tmp_path, monkeypatch, scheme):
    """A static step, the dynamic step (interrupted after 4 segments) and a modal step:
    the restart skips the static step, continues the dynamic one with the α-scheme state
    (acceleration, end-point forces) and runs the modal one; Results equal the
    uninterrupted run's."""
    text = DYNAMIC_CASE.replace("SCHEME", scheme)
    text = text.replace("[[steps]]", '[[steps]]\ntype = "static"\nname = "pre"\nsteps = 2\n[[steps]]', 1)
    text += '[[steps]]\ntype = "modal"\nname = "modes"\nn_modes = 3\n[[loads]]\ntype = "point"\nnodes = "beam_end"\nfx = 0.01\n'
    text += "[output]\nsurfaces = true\n"  # the section-surface collection is continued too
    path = write_case(text)
    whole = load_case(path).run(tmp_path / "whole", progress=False)

    import femb.case.segments as segments

    real, calls = segments.solve_dynamic, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) > 4:
            raise Interrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(segments, "solve_dynamic", interrupted)
    with pytest.raises(Interrupt):
        load_case(path).run(tmp_path / "part", progress=False)
    monkeypatch.setattr(segments, "solve_dynamic", real)
    meta = checkpoint_meta(tmp_path / "part")
    assert meta["step_index"] == 1 and meta["frames"] == 1 + 4 * meta["info"]["checkpoint_every"]
    restarted = load_case(path).run(tmp_path / "part", progress=False, restart=True)

    assert [r.kind for r in restarted] == ["static", "dynamic", "modal"]
    assert restarted[0].info["restored_from_checkpoint"] and not restarted[0].states
    assert restarted[0].times == whole[0].times and list(restarted[0].history) == list(whole[0].history)
    assert all(np.array_equal(restarted[0].series(k), whole[0].series(k), equal_nan=True) for k in whole[0].history)
    a, b = restarted[1], whole[1]
    assert a.times == b.times and len(a) == 33
    assert np.array_equal(np.array(a.states), np.array(b.states)) and np.array_equal(np.array(a.velocities), np.array(b.velocities))
    assert all(np.array_equal(a.series(k), b.series(k), equal_nan=True) for k in b.history) and list(a.history) == list(b.history)
    assert np.array_equal(restarted[2].series("frequency_hz"), whole[2].series("frequency_hz"))
    assert (tmp_path / "part" / "history.csv").read_bytes() == (tmp_path / "whole" / "history.csv").read_bytes()
    assert [t for t, _ in read_pvd(tmp_path / "part" / "results.pvd")] == [t for t, _ in read_pvd(tmp_path / "whole" / "results.pvd")]
    part_s, whole_s = read_pvd(tmp_path / "part" / "results_surface.pvd"), read_pvd(tmp_path / "whole" / "results_surface.pvd")
    assert [(t, f.name) for t, f in part_s] == [(t, f.name) for t, f in whole_s] and len(whole_s) == len(read_pvd(tmp_path / "whole" / "results.pvd"))
    for (_, fa), (_, fb) in zip(part_s, whole_s):
        assert np.array_equal(meshio.read(fa).point_data["deformed"], meshio.read(fb).point_data["deformed"])


def test_restart_refuses_what_it_cannot_continue(capsys, write_case, tmp_path):
    path = write_case(DYNAMIC_CASE.replace("SCHEME", "").replace("t_end = 0.5", "t_end = 0.1"))
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "run", path, "--out", out, "--restart", "--no-progress")
    assert code == 2 and "checkpoint.npz" in err and "no checkpoint to restart from" in err
    assert run_cli(capsys, "run", path, "--out", out, "--no-progress")[0] == 0
    code, _, err = run_cli(capsys, "run", path, "--out", out, "--restart", "--smoke", "--no-progress")
    assert code == 2 and "another case file (or with/without --smoke)" in err
    path.write_text(path.read_text().replace("v0 = 0.5", "v0 = 0.6"))
    code, _, err = run_cli(capsys, "run", path, "--out", out, "--restart", "--no-progress")
    assert code == 2 and "another case file" in err
    path.write_text(path.read_text().replace("v0 = 0.6", "v0 = 0.5"))
    code, out_text, _ = run_cli(capsys, "run", path, "--out", out, "--restart", "--no-progress")  # finished: nothing left to do
    assert code == 0 and "swing (dynamic): 8 frames" in out_text
