"""Size limits (issue 15, item 9): a run estimated to need more memory or output than the
limits is refused before it starts (exit 2 naming the keys), the limits can be raised,
and no frame schedule is built as a whole."""
import subprocess
import sys

import pytest

from femb.case.segments import FrameSchedule
from femb.cli import main
from tests.io.conftest import BASE_CASE, ROOT

# the run in a child process whose address space is capped at 2 GB: a regression that
# allocates the whole problem fails there instead of eating the machine's memory
CAPPED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))
from femb.cli import main
sys.exit(main(sys.argv[1:]))
"""


def run_capped(*argv):
    proc = subprocess.run([sys.executable, "-c", CAPPED, *map(str, argv)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    return proc.returncode, proc.stdout, proc.stderr


DYNAMIC = BASE_CASE.replace('[[steps]]\ntype = "static"\nsteps = 2', '[[steps]]\ntype = "dynamic"\ndt = 1e-15\nt_end = 1.0').replace(
    "E = 1.0", "E = 1.0\nrho = 1.0")


@pytest.mark.parametrize("replace, keys", [
    ([("steps = 2", "steps = 1000000000")], ["steps[0].steps"]),
    ([("elements = 4", "elements = 100000000")], ["mesh.line.elements: 100,000,000 elements need about"]),
])
def test_huge_static_runs_and_meshes_are_refused(write_case, tmp_path, replace, keys):
    code, _, err = run_capped("run", write_case(replace=replace), "--out", tmp_path / "o", "--no-progress")
    assert code == 2 and "Traceback" not in err and "MemoryError" not in err, err
    assert all(k in err for k in keys) and "max_memory_gb" in err and "--max-memory-gb" in err
    assert not list((tmp_path / "o").glob("*.vtu")) if (tmp_path / "o").exists() else True


def test_huge_dynamic_run_is_refused_naming_its_keys(write_case, tmp_path):
    code, _, err = run_capped("run", write_case(DYNAMIC), "--out", tmp_path / "o", "--no-progress")
    assert code == 2 and "Traceback" not in err, err
    assert "steps[0].dt, steps[0].t_end, steps[0].record_every" in err
    assert "of output" in err and "--max-output-gb" in err and "of memory" in err


def test_limits_can_be_raised(write_case, tmp_path, capsys):
    path = write_case(BASE_CASE + "[output]\nmax_output_gb = 1e-6\n")  # 3 frames: about 15 kB estimated
    assert main(["run", str(path), "--out", str(tmp_path / "a"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "of output" in err and "beyond the limit of 1e-06 GB" in err and not (tmp_path / "a" / "results.pvd").exists()
    assert main(["run", str(path), "--out", str(tmp_path / "b"), "--no-progress", "--max-output-gb", "1"]) == 0
    assert (tmp_path / "b" / "results.pvd").exists()
    assert main(["run", str(path), "--out", str(tmp_path / "c"), "--max-memory-gb", "0"]) == 2
    assert "--max-memory-gb must be > 0" in capsys.readouterr().err


def test_frame_schedule_is_computed_on_demand():
    for n, every in ((10, 3), (9, 3), (1, 1), (7, 10)):
        expected = [0, *range(every, n + 1, every)]
        if expected[-1] != n:
            expected.append(n)
        schedule = FrameSchedule(n, every)
        assert list(schedule) == expected and len(schedule) == len(expected) and schedule[-1] == n
    huge = FrameSchedule(10**15, 1)
    assert len(huge) == 10**15 + 1 and huge[-1] == 10**15 and huge[123] == 123
    with pytest.raises(IndexError):
        huge[10**15 + 1]


def test_smoke_run_of_a_huge_static_step_runs_its_first_two_increments(write_case, tmp_path):
    code, out, err = run_capped("run", write_case(replace=[("steps = 2", "steps = 1000000000")]), "--out", tmp_path / "o",
                                "--no-progress", "--smoke")
    assert code == 0, err
    assert "step0 (static): 3 frames, last time/load factor 2e-09" in out
