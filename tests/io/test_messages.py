"""What a run prints: sparse progress lines when stderr is not a terminal, a bar when it
is; long user values cut short in error messages (issue 15, item 15)."""
import io

from femb.case import load_case
from femb.case.case import _LineProgress, _progress_bar
from femb.cli import main
from tests.io.conftest import BASE_CASE
from tests.io.test_case_dynamic import DYNAMIC_CASE


def test_progress_is_a_few_whole_lines_when_not_a_terminal(write_case, tmp_path, capsys):
    path = write_case(DYNAMIC_CASE.replace("SCHEME", "").replace("record_every = 4", "record_every = 1"))  # 129 frames
    code = main(["run", str(path), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 0 and "\r" not in err
    lines = [line for line in err.splitlines() if line.startswith("swing (dynamic)")]
    assert 5 <= len(lines) <= 11, err
    assert lines[-1].startswith("swing (dynamic): 129/129 frames (100 %), t=0.5, dt=0.00391, newton/frame=")


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_is_a_bar_on_a_terminal(write_case):
    step = load_case(write_case(BASE_CASE)).steps[0]
    tty, log = Terminal(), io.StringIO()
    bar = _progress_bar(step, True, stream=tty)
    assert not isinstance(bar, _LineProgress)
    for _ in range(3):
        bar.update(1)
    bar.close()
    assert "\r" in tty.getvalue() and "3/3" in tty.getvalue()
    assert isinstance(_progress_bar(step, True, stream=log), _LineProgress)


def test_a_10_kb_expression_is_not_echoed_whole(write_case, tmp_path, capsys):
    for expression in ["nope" + "x" * 10000, "1." + "0" * 10000 + "*nope", "1." + "0" * 10000 + "*", "+".join(["EI"] * 3000)]:
        path = write_case(replace=[('mz = "0.5*pi*EI/L"', f'mz = "{expression}"')])
        code = main(["run", str(path), "--out", str(tmp_path / "o"), "--no-progress"])
        err = capsys.readouterr().err
        assert code == 2 and "loads[0].mz" in err and "Traceback" not in err
        assert len(err) < 600, len(err)
