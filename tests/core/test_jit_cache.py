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
