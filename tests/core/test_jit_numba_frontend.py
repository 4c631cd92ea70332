"""numba's front-end functions that femb.core.jit replaces by faster ones give numba's own
results: the variable liveness of the IR of femb's kernels (before and after numba's
untyped passes, loops and branches included) and whether a lowering implementation takes
``loc``."""
import importlib

import pytest
from numba.core import analysis, base, ir_utils
from numba.core.compiler import run_frontend

jit = importlib.import_module("femb.core.jit")

pytestmark = pytest.mark.skipif("compute_live_map" not in jit.NUMBA_ORIGINALS,
                                reason="numba version not the one the replacements were checked against")


def _kernels():
    importlib.import_module("femb.elements.beam3d")
    importlib.import_module("femb.solvers.linalg.factorization")
    return [k for k in jit.KERNELS if k.py_func.__module__.startswith(("femb.core.rotations", "femb.elements.beam3d",
                                                                       "femb.solvers.linalg.factorization"))]


def test_live_map_equals_numba_on_femb_kernels():
    assert analysis.compute_live_map is jit.live_map_bits
    assert ir_utils.compute_live_map is jit.live_map_bits
    original = jit.NUMBA_ORIGINALS["compute_live_map"]
    checked = 0
    for kernel in _kernels():
        func_ir = run_frontend(kernel.py_func)
        blocks = func_ir.blocks
        cfg = analysis.compute_cfg_from_blocks(blocks)
        usedefs = analysis.compute_use_defs(blocks)
        expected = original(cfg, blocks, usedefs.usemap, usedefs.defmap)
        got = jit.live_map_bits(cfg, blocks, usedefs.usemap, usedefs.defmap)
        assert list(got) == list(expected)
        assert got == expected, kernel.py_func.__qualname__
        checked += len(blocks) > 3
    assert checked >= 10  # functions with branches and loops among them


def test_live_map_with_loops_unreachable_blocks_and_self_loops():
    def f(a, n):
        s = 0.0
        for i in range(n):
            t = a[i]
            while t > 1.0:
                t = t / 2.0
                if t < 0.3:
                    break
            s += t
        else:
            s -= 1.0
        return s
        q = s + 1  # an unreachable block
        return q

    func_ir = run_frontend(f)
    cfg = analysis.compute_cfg_from_blocks(func_ir.blocks)
    usedefs = analysis.compute_use_defs(func_ir.blocks)
    expected = jit.NUMBA_ORIGINALS["compute_live_map"](cfg, func_ir.blocks, usedefs.usemap, usedefs.defmap)
    assert jit.live_map_bits(cfg, func_ir.blocks, usedefs.usemap, usedefs.defmap) == expected
    assert any(expected.values())


def test_has_loc_memo_gives_numba_answers():
    original = jit.NUMBA_ORIGINALS["_has_loc"]
    assert base._has_loc is not original

    def with_loc(context, builder, sig, args, loc=None):
        return None

    def without_loc(context, builder, sig, args):
        return None

    for fn in (with_loc, without_loc, with_loc, without_loc, len):
        assert base._has_loc(fn) == original(fn)
    assert base._has_loc(with_loc) and not base._has_loc(without_loc)


def _graph(root):
    """The graph of numba IR objects and containers reachable from ``root``, identities as
    visit order: two deep copies are the same copy iff their graphs are equal (types,
    atoms, sharing among the copies, the same uncopied objects)."""
    seen: dict = {}
    out = []
    stack = [root]

    def ref(x):
        if x is None or isinstance(x, (bool, int, float, str, bytes)):
            return ("atom", repr(x))
        if not isinstance(x, (dict, list, tuple, set, frozenset)) and type(x).__module__ != "numba.core.ir":
            return ("shared", id(x))  # not copied by either (functions, modules, numba types)
        if id(x) not in seen:
            seen[id(x)] = len(seen)
            stack.append(x)
        return ("ref", seen[id(x)])

    ref(root)
    stack = [root]
    done = set()
    while stack:
        x = stack.pop()
        if id(x) in done:
            continue
        done.add(id(x))
        if isinstance(x, dict):
            fields = [(ref(k), ref(v)) for k, v in x.items()]
        elif isinstance(x, (list, tuple, set, frozenset)):
            fields = [ref(v) for v in (sorted(x, key=repr) if isinstance(x, (set, frozenset)) else x)]
        elif hasattr(x, "__dict__"):
            fields = [(k, ref(v)) for k, v in vars(x).items()]
        else:
            fields = [repr(x)]
        out.append((seen[id(x)], type(x).__qualname__, fields))
    return sorted(out, key=lambda e: e[0])


def test_scope_deepcopy_makes_numba_default_copies():
    import copy

    from numba.core import ir

    if "Scope.__deepcopy__" not in jit.NUMBA_ORIGINALS:
        pytest.skip("scopes copy themselves in this numba")
    kernels = [k for k in _kernels() if k.py_func.__qualname__ in ("_band_refactor", "_nodal_mass")]
    assert kernels
    for kernel in kernels:
        func_ir = run_frontend(kernel.py_func)
        blocks = list(func_ir.blocks.values())
        fast = [copy.deepcopy(b) for b in blocks] + [copy.deepcopy(blocks)]
        del ir.Scope.__deepcopy__
        try:
            plain = [copy.deepcopy(b) for b in blocks] + [copy.deepcopy(blocks)]
        finally:
            ir.Scope.__deepcopy__ = jit._scope_deepcopy
        for a, b, original in zip(fast, plain, blocks + [blocks]):
            assert _graph(a) == _graph(b)
        assert fast[0].scope is not blocks[0].scope and fast[0].scope.localvars._con == blocks[0].scope.localvars._con
        assert all(v.scope is fast[0].scope for v in fast[0].scope.localvars._con.values())
