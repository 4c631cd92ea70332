"""Python's garbage collector while femb compiles (femb.core.jit.COMPILE_GC_THRESHOLD2):
full collections are put off during an outermost femb compilation, the thresholds are
restored after it (also when the compilation fails), other numba compilations are left
alone, and the compiled kernel computes the same numbers."""
import gc
import importlib

import numba
import numba.core.event as ev
import numpy as np
import pytest
from numba.core.errors import TypingError

J = importlib.import_module("femb.core.jit")


class _Thresholds(ev.Listener):
    """Records gc.get_threshold() at the start of every compilation."""

    def __init__(self):
        self.seen: list = []

    def on_start(self, event):
        self.seen.append(gc.get_threshold())

    def on_end(self, event):
        pass


def _dispatcher(module: str, body):
    """A fresh (uncached) numba dispatcher of ``body`` whose function claims ``module``."""
    body.__module__ = module
    return numba.njit(body)


def _helper(a, k):
    return 2.0 * a[k]


def _probe(a):
    s = 0.0
    for k in range(a.shape[0]):
        s += helper(a, k) * a[k]
    return s


helper = numba.njit(_helper)


def _bad(a):
    return a.no_such_attribute


@pytest.fixture()
def listener():
    rec = _Thresholds()
    ev.register("numba:compile", rec)
    before = gc.get_threshold()
    gc.set_threshold(600, 9, 7)
    yield rec
    gc.set_threshold(*before)
    ev.unregister("numba:compile", rec)


def test_full_collections_put_off_while_a_femb_kernel_compiles(listener):
    a = np.linspace(0.0, 1.0, 7)
    kernel = _dispatcher("femb.gc_probe", _probe)
    assert kernel(a) == pytest.approx(2.0 * np.dot(a, a), rel=1e-15)
    assert listener.seen[0] == (600, 9, max(7, J.COMPILE_GC_THRESHOLD2))
    assert all(t == listener.seen[0] for t in listener.seen)  # nested compilations (the helper) too
    assert len(listener.seen) >= 2
    assert gc.get_threshold() == (600, 9, 7)


def test_thresholds_restored_after_a_failed_compilation(listener):
    kernel = _dispatcher("femb.gc_probe_bad", _bad)
    with pytest.raises(TypingError):
        kernel(np.zeros(3))
    assert listener.seen[0][2] == max(7, J.COMPILE_GC_THRESHOLD2)
    assert gc.get_threshold() == (600, 9, 7)


def test_other_compilations_left_alone(listener):
    kernel = _dispatcher("someone_else", _probe)
    a = np.arange(5.0)
    assert kernel(a) == 2.0 * np.dot(a, a)
    assert listener.seen and all(t == (600, 9, 7) for t in listener.seen)


def test_same_numbers_with_and_without(listener, monkeypatch):
    a = np.random.default_rng(3).standard_normal(101)
    with_policy = _dispatcher("femb.gc_probe", _probe)(a)
    monkeypatch.setattr(J, "COMPILE_GC_THRESHOLD2", None)
    listener.seen.clear()
    without = _dispatcher("femb.gc_probe", _probe)(a)  # a second, separate compilation
    assert listener.seen[0] == (600, 9, 7)
    assert np.float64(without).tobytes() == np.float64(with_policy).tobytes()
