"""The kernel cache folder follows the contents of every kernel source file (femb.core.jit):
numba keys a cached function by its own file only, so a kernel calling a changed helper of
another file would otherwise keep stale machine code."""
import importlib
import subprocess
import sys

J = importlib.import_module("femb.core.jit")  # the module (femb.core.jit is also the decorator's name)


def test_every_module_with_kernels_is_covered():
    names = {p.name for p in J.kernel_sources()}
    assert {"rotations.py", "scatter.py", "beam3d.py", "shell_eicr.py", "shell_local.py", "pattern.py",
            "factorization.py", "spatial_kernels.py"} <= names


def test_digest_changes_with_any_kernel_source(tmp_path, monkeypatch):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("def f(): return 1\n")
    b.write_text("def g(): return f()\n")
    monkeypatch.setattr(J, "kernel_sources", lambda: [a, b])
    first = J.kernel_digest()
    assert J.kernel_digest() == first and len(first) == 16
    a.write_text("def f(): return 2\n")  # the helper changes, its caller's file does not
    assert J.kernel_digest() != first


def test_cache_lies_in_a_digest_folder_under_numba_cache_dir(tmp_path):
    code = ("import importlib, numpy as np\nJ = importlib.import_module('femb.core.jit')\n"
            "from femb.core.rotations import hat\n"
            "out = np.empty((3, 3)); hat(np.array([1.0, 2.0, 3.0]), out)\n"
            "print(J.CACHE_DIR)\n")
    env = {"NUMBA_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout.strip()
    assert out == str(tmp_path / f"femb-kernels-{J.kernel_digest()}")
    assert list((tmp_path / f"femb-kernels-{J.kernel_digest()}").rglob("*.nbi"))


KERNEL_MODULE = "def twice(x):\n    return 2.0 * x\n"


def _kernel(tmp_path, monkeypatch, cache):
    """A kernel made by femb's ``jit`` from a module of its own in ``tmp_path``, cached in
    ``cache``; femb's other kernels left out of the record."""
    import importlib.util

    import numba

    monkeypatch.setattr(numba.config, "CACHE_DIR", str(cache))
    monkeypatch.setattr(J, "CACHE_DIR", cache)
    monkeypatch.setattr(J, "KERNELS", [])
    source = tmp_path / "kern_mod.py"
    source.write_text(KERNEL_MODULE)
    spec = importlib.util.spec_from_file_location("kern_mod", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return J.jit(module.twice), source


def test_compile_estimate_empty_cache_then_populated(tmp_path, monkeypatch):
    cache = tmp_path / "femb-kernels-0123456789abcdef"
    assert J.compile_estimate("kind", ["kern_mod"], default=7.0, cache_dir=cache) == 7.0  # no cache folder
    kernel, source = _kernel(tmp_path, monkeypatch, cache)
    assert cache.is_dir() and not list(cache.rglob("*.nbi"))
    assert J.compile_estimate("kind", ["kern_mod"], default=7.0) == 7.0  # an empty one
    assert kernel(1.5) == 3.0  # compiles and writes the cache entry
    assert J.compile_estimate("kind", ["kern_mod"], default=7.0) is None  # the module's entries are there
    J.record_run("kind")
    runs = __import__("json").loads(J.runs_file().read_text())
    assert list(runs["kind"]) == ["kern_mod.twice"] and runs["kind"]["kern_mod.twice"]["source"] == str(source)
    assert J.compile_estimate("kind") is None  # what the recorded run used is cached
    # the kernel sources changed (a new, empty digest folder): the recorded kind compiles again
    assert J.compile_estimate("kind", cache_dir=tmp_path / "femb-kernels-fedcba9876543210") >= 1.0
    # an entry numba would not load (its source changed) counts as missing
    source.write_text(KERNEL_MODULE + "# edited\n")
    assert J.compile_estimate("kind") >= 1.0
    # other kinds of run fall back to the module check
    assert J.compile_estimate("other", ["kern_mod"]) is None
    assert J.compile_estimate("other", ["kern_mod", "beam3d"], default=5.0) == 5.0


def test_compile_listener_logs_once_and_times_femb_kernels(caplog, monkeypatch):
    import logging

    from femb.core.rotations import exp_so3, hat

    ev = J.numba.core.event
    monkeypatch.setattr(J, "COMPILE_SECONDS", {})
    listener = J._CompileListener()
    other = J.numba.njit(lambda x: x)  # not a femb kernel

    def compile_(dispatcher, inner=None):
        listener.on_start(ev.Event("numba:compile", ev.EventStatus.START, data={"dispatcher": dispatcher}))
        if inner is not None:
            compile_(inner)
        sum(range(20000))  # some CPU time
        listener.on_end(ev.Event("numba:compile", ev.EventStatus.END, data={"dispatcher": dispatcher}))

    with caplog.at_level(logging.INFO, logger="femb.core.jit"):
        compile_(other)
        assert not caplog.records and not J.COMPILE_SECONDS
        compile_(exp_so3, inner=hat)
        assert set(J.COMPILE_SECONDS) == {"femb.core.rotations.exp_so3"}  # hat's time is part of exp_so3's
        compile_(hat)
    messages = [r for r in caplog.records if J.COMPILING_MESSAGE in r.getMessage()]
    assert len(messages) == 1 and messages[0].levelno == logging.INFO
    assert set(J.COMPILE_SECONDS) == {"femb.core.rotations.exp_so3", "femb.core.rotations.hat"}
    assert all(t >= 0.0 for t in J.COMPILE_SECONDS.values()) and not listener.stack


def test_no_compile_estimate_when_kernels_run_as_python(tmp_path, monkeypatch):
    monkeypatch.setattr(J.numba.config, "DISABLE_JIT", True)
    assert J.compile_estimate("kind", ["beam3d"], cache_dir=tmp_path / "femb-kernels-0123456789abcdef") is None
