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



def test_call_type_memo_gives_numba_signatures_and_implementation_keys():
    import math
    import operator

    import numpy as np
    from numba.core import types
    from numba.core.registry import cpu_target
    from numba.core.types import functions

    original = jit.NUMBA_ORIGINALS["BaseFunction.get_call_type"]
    assert functions.BaseFunction.get_call_type is not original
    ctx = cpu_target.typing_context
    cpu_target.target_context.refresh()  # loads the overloads of numpy functions, refreshes ctx
    f8, i8 = types.float64, types.int64
    vec, mat = types.Array(f8, 1, "C"), types.Array(f8, 2, "C")
    calls = [(np.empty, (types.UniTuple(i8, 2),)), (np.zeros, (i8,)), (math.sqrt, (f8,)), (math.atan2, (f8, f8)),
             (min, (i8, i8)), (max, (f8, i8)), (operator.mul, (vec, f8)), (operator.getitem, (mat, types.UniTuple(i8, 2))),
             (operator.add, (i8, types.literal(1)))]
    for value, args in calls:
        fnty = ctx.resolve_value_type(value)
        assert isinstance(fnty, functions.BaseFunction)
        expected = original(fnty, ctx, args, {})
        expected_key = fnty._impl_keys[expected.args]
        for _ in range(2):  # first call and remembered answer
            fnty._impl_keys[expected.args] = "another implementation"
            sig = fnty.get_call_type(ctx, args, {})
            assert sig == expected and sig.return_type == expected.return_type
            assert fnty._impl_keys[sig.args] == expected_key
    with pytest.raises(Exception):  # failures are numba's own, not remembered
        ctx.resolve_value_type(math.sqrt).get_call_type(ctx, (types.unicode_type,), {})


def test_list_vars_equal_numba_on_femb_kernels_before_and_after_ssa():
    from numba.core import ir, ssa

    original = jit.NUMBA_ORIGINALS["Inst._rec_list_vars"]
    assert ir.Inst._rec_list_vars is not original
    checked = 0
    for kernel in _kernels():
        func_ir = run_frontend(kernel.py_func)
        for state in (func_ir, ssa.reconstruct_ssa(func_ir.copy())):  # the SSA form has phi nodes
            for block in state.blocks.values():
                for stmt in block.body:
                    for value in (stmt, getattr(stmt, "value", None)):
                        if not isinstance(value, ir.Inst):
                            continue
                        fast = value.list_vars()
                        ir.Inst._rec_list_vars, saved = original, ir.Inst._rec_list_vars
                        try:
                            slow = value.list_vars()
                        finally:
                            ir.Inst._rec_list_vars = saved
                        assert len(fast) == len(slow) and all(a is b for a, b in zip(fast, slow)), str(value)
                        checked += 1
    assert checked > 5000


def test_list_vars_of_nested_values_and_subclasses():
    from numba.core import ir

    original = jit.NUMBA_ORIGINALS["Inst._rec_list_vars"]
    loc = ir.Loc("f.py", 1)
    scope = ir.Scope(None, loc)
    a, b, c = (scope.define(n, loc) for n in "abc")

    class Custom(ir.Stmt):  # an IR extension with its own list_vars
        def __init__(self):
            self.loc = loc

        def list_vars(self):
            return [c, a]

    expr = ir.Expr.call(a, [b, (c, [a, {"k": b}])], [("kw", c)], loc)
    nested = [expr, (Custom(), {"x": [b, None, 3, "s"], "y": ir.Const(1.0, loc)}), ir.Assign(expr, c, loc)]
    fast = ir.Inst._rec_list_vars(None, nested)
    slow = original(ir.Assign(a, b, loc), nested)
    assert [v.name for v in fast] == [v.name for v in slow] and all(x is y for x, y in zip(fast, slow))
    assert "".join(v.name for v in fast) == "abcabc" + "ca" + "b" + "abcabc" + "c"  # call, Custom, dict, Assign
