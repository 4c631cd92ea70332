"""Internal kernels (``jit(internal=True)``, femb.core.jit): compiled without the wrappers
that make a compiled function callable from Python; a call from Python goes to a
Python-callable twin; both are cached, and without the JIT both are the plain function."""
import importlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

J_MODULE = importlib.import_module("femb.core.jit")  # the module (femb.core.jit is also the decorator's name)

MODULE = '''
import numpy as np
from femb.core.jit import jit


@jit(internal=True)
def scaled(a, k, c):
    return c * a[k]


@jit
def total(a, c):
    s = 0.0
    for k in range(a.shape[0]):
        s += scaled(a, k, c)
    return s
'''

# runs the module's kernels and prints the functions this process compiled (numba's compile
# events) and the twins it made
CHILD = '''
import json, sys
import numba.core.event as ev
compiled = []


class Listener(ev.Listener):
    def on_start(self, event):
        f = getattr((event.data or {}).get("dispatcher"), "py_func", None)
        if getattr(f, "__module__", "") == "internal_mod":
            compiled.append(f.__qualname__)

    def on_end(self, event):
        pass


ev.register("numba:compile", Listener())
sys.path.insert(0, sys.argv[1])
import numpy as np
import internal_mod as m
from femb.core.jit import PYTHON_TWINS
a = np.array([1.0, 2.0, 4.0])
out = {"total": m.total(a, 0.5)}
if sys.argv[2] == "python":
    out["scaled"] = m.scaled(a, 2, 0.25)
out["compiled"] = sorted(compiled)
out["twins"] = sorted(PYTHON_TWINS)
out["kind"] = type(m.scaled).__name__
print("RESULT", json.dumps(out))
'''


def _run(tmp_path, cache, what, disable_jit=False):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    env.pop("NUMBA_DISABLE_JIT", None)
    if disable_jit:
        env["NUMBA_DISABLE_JIT"] = "1"
    out = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path), what], capture_output=True, text=True, env=env,
                         check=True).stdout
    return json.loads(out.split("RESULT", 1)[1])


@pytest.fixture
def module_dir(tmp_path):
    (tmp_path / "internal_mod.py").write_text(MODULE)
    return tmp_path


def test_internal_kernel_from_kernels_and_python_then_cached(module_dir, tmp_path):
    """A compiled caller uses the internal kernel (no twin); a Python call compiles the
    twin and gives the same number; a second process loads both from the cache and
    compiles nothing."""
    cache = tmp_path / "cache"
    first = _run(module_dir, cache, "kernels")
    assert first["total"] == 0.5 * (1.0 + 2.0 + 4.0)
    assert first["twins"] == [] and first["kind"] == "InternalDispatcher"
    assert first["compiled"] == ["scaled", "total"]  # the helper compiled for its caller
    called = _run(module_dir, cache, "python")
    assert called["scaled"] == 0.25 * 4.0 and called["twins"] == ["internal_mod.scaled"]
    assert called["compiled"] == ["scaled__python"]  # the twin only: `total` came from the cache
    again = _run(module_dir, cache, "python")
    assert again["compiled"] == [] and again["scaled"] == 1.0 and again["total"] == 3.5


def test_internal_kernel_without_jit_is_the_python_function(module_dir, tmp_path):
    res = _run(module_dir, tmp_path / "cache", "python", disable_jit=True)
    assert res["kind"] == "function" and res["total"] == 3.5 and res["scaled"] == 1.0 and res["twins"] == []


def test_twin_equals_the_compiled_callers_result():
    """An internal femb helper called from Python (its twin) gives bitwise what its compiled
    caller computes with it: the Cayley map cay(ψ) inside ``cayley_step_batch``."""
    from femb.core import rotations as rot

    rng = np.random.default_rng(3)
    n = 5
    psi = rng.standard_normal((n, 3))
    R0 = np.repeat(np.eye(3)[None], n, axis=0)
    J = np.repeat(np.diag([1.0, 2.0, 3.0])[None], n, axis=0)
    pi0 = rng.standard_normal((n, 3))
    C, R1, Rm, D, dr = (np.empty((n, 3, 3)) for _ in range(5))
    pi1 = np.empty((n, 3))
    rot.cayley_step_batch(psi, R0, J, pi0, 0.01, C, R1, Rm, D, pi1, dr)
    for i in range(n):
        out = np.empty((3, 3))
        rot.cayley(psi[i], out)
        assert out.tobytes() == C[i].tobytes()
    if not J_MODULE.numba.config.DISABLE_JIT:
        assert isinstance(rot.cayley, J_MODULE.InternalDispatcher)
        assert "femb.core.rotations.cayley" in J_MODULE.PYTHON_TWINS
