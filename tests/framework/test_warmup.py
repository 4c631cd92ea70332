"""``femb compile`` (femb.warmup): the warm-up runs fill the kernel cache so that a first
run of the same kind compiles nothing."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from femb.cli import _parser
from femb.warmup import KINDS, warm_up

ROOT = Path(__file__).resolve().parents[2]

# the README's first example, then the femb kernels this process compiled (none when the
# cache holds them all)
CHILD = """
import json, sys
exec(compile(open(sys.argv[1]).read(), "readme", "exec"))
from femb.core.jit import COMPILE_SECONDS
print("COMPILED", json.dumps(sorted(COMPILE_SECONDS)))
"""


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown warm-up kind"):
        warm_up(["statics2d", "nonsense"])


def test_parser_takes_kinds():
    args = _parser().parse_args(["compile", "--kind", "statics2d", "--kind", "dynamics3d"])
    assert args.kind == ["statics2d", "dynamics3d"] and args.func.__name__ == "cmd_compile"
    assert _parser().parse_args(["compile"]).kind is None  # all kinds
    assert set(KINDS) == {"statics2d", "dynamics2d", "dynamics3d", "alpha3d", "rigid3d", "joints3d", "superelement"}


@pytest.mark.slow
def test_compile_then_first_model_compiles_nothing(tmp_path):
    """``femb compile --kind statics2d`` on an empty cache compiles; the README's first
    example afterwards loads every kernel from that cache; a second ``femb compile`` finds
    everything there."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    entry = [sys.executable, "-c", "import sys; from femb.cli import main; sys.exit(main())", "compile", "--kind", "statics2d"]
    first = subprocess.run(entry, capture_output=True, text=True, env=env, check=True).stdout
    assert re.search(r"statics2d \(.*\): compiled in [0-9.]+ CPU s", first), first
    text = (ROOT / "README.md").read_text(encoding="utf-8").split("## A first model", 1)[1]
    script = tmp_path / "first_model.py"
    script.write_text(re.search(r"```python\n(.*?)```", text, re.S).group(1))
    out = subprocess.run([sys.executable, "-c", CHILD, str(script)], capture_output=True, text=True, env=env, check=True).stdout
    assert json.loads(out.split("COMPILED", 1)[1]) == []
    second = subprocess.run(entry, capture_output=True, text=True, env=env, check=True).stdout
    assert "statics2d (planar static load steps (beam2d)): already in the cache" in second


@pytest.mark.long  # empty-cache compiles of 10-100 CPU s each (`make test-long`)
@pytest.mark.parametrize("kind", ["alpha3d", "rigid3d", "joints3d", "superelement"])
def test_compile_runs_the_kinds_beyond_the_beam_models(tmp_path, kind):
    """``femb compile --kind KIND`` runs the tiny model of each kind on an empty cache (so
    it compiles), and the run took the path it is there to compile: a second process on
    that cache runs the same model without compiling a femb kernel."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    entry = [sys.executable, "-c", "import sys; from femb.cli import main; sys.exit(main())", "compile", "--kind", kind]
    first = subprocess.run(entry, capture_output=True, text=True, env=env, check=True).stdout
    assert re.search(rf"{kind} \(.*\): compiled in [0-9.]+ CPU s", first), first
    again = ("import json; from femb.warmup import KINDS; from femb.core.jit import COMPILE_SECONDS; "
             f"KINDS[{kind!r}][1](); print('COMPILED', json.dumps(sorted(COMPILE_SECONDS)))")
    out = subprocess.run([sys.executable, "-c", again], capture_output=True, text=True, env=env, check=True).stdout
    assert json.loads(out.split("COMPILED", 1)[1]) == []
