"""The compilation decorator used by every femb kernel.

All kernels are compiled with ``cache=True`` so that the compile cost is paid once per
machine, and with fixed dtypes (float64 arrays, int64 index arrays; int32 for the CSR
pattern and the positions in it, femb.correlation.pattern.INDEX). Setting the
environment variable ``NUMBA_DISABLE_JIT=1`` runs the same kernels as plain Python, which
the test suite uses to check the kernels against their numpy references.

Cache validity. numba keys a cached function by its own source file only: a cached kernel
that calls a compiled helper of another file (every element kernel calls
femb.core.rotations, the shell kernels call the shared frame module) keeps the old
helper's machine code after that file changes — stale results, even NaN, with no error.
femb therefore keeps its cache in a folder named after a digest of every source file that
holds compiled code (``KERNEL_SOURCES``): changing any of them starts a new cache. The
folder lies under ``NUMBA_CACHE_DIR`` when that is set, else under the user's cache folder
(``$XDG_CACHE_HOME`` or ``~/.cache``)/femb; older digests' folders are left for the user
to delete.

First runs. Every kernel is compiled lazily, at its first call, for the one signature it
is called with (float64 arrays, int64 indices, int32 CSR patterns and positions).
Compiling takes seconds to tens of seconds of CPU for a first 3-D run;
:func:`compile_estimate` predicts, cheaply and before a run, whether it will compile
(the digest folder lacks valid cache entries of the kernels that the same kind of run
used before, or lacks any entry of the model's element modules) and for about how long,
from the compile times recorded by :func:`record_run` in ``femb-kernel-runs.json`` beside
the digest folders. Whenever a femb kernel starts to compile, the ``femb.core.jit`` logger
says so once per process at INFO level.

Internal kernels. Helpers that femb calls only from other kernels are declared
``jit(internal=True)``: numba compiles them without the CPython and C-callable wrappers
(code that a cold compile otherwise lowers, optimizes and emits for every one of them);
a call from Python (tests do this) is served by a Python-callable twin compiled and cached
at that first call (:class:`InternalDispatcher`).

numba's front end. Importing this module makes five steps of numba's compiler faster
without changing what it compiles: the lookup of compile options (``TargetConfig.values``),
the typing of calls of numba-typed functions (remembered per function type, argument
types and flags), the variable-liveness analysis (on bit masks), the check whether a
lowering implementation takes ``loc`` (remembered) and the listing of the variables of an
IR statement (``Inst._rec_list_vars``: one list, a walk remembered per type). Each is
installed only when numba has the version or the classes it was checked against; the last
four keep numba's function in ``NUMBA_ORIGINALS``.

Garbage collection. While an outermost femb kernel compiles, Python's full collections
are put off (``COMPILE_GC_THRESHOLD2``: the generation-2 threshold during the compilation;
the young generations are collected as usual and the thresholds restored afterwards):
numba's heap of IR, typing and llvmlite objects is large, and walking all of it every few
thousand allocations cost ≈4 of ≈29 CPU s of a cold first 3-D run.
"""
import gc
import hashlib
import json
import logging
import os
import pickle
import time
import types
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

import numba
import numba.core.event
from numba.core.registry import CPUDispatcher

log = logging.getLogger(__name__)

COMPILING_MESSAGE = "compiling kernels, first run only"

prange = numba.prange

_FEMB = Path(__file__).resolve().parents[1]
_ELEMENTS = _FEMB.parent / "elements"  # femb.elements lives in elements/ of the checkout


# single kernel modules beside the code that uses them (outside the folders above)
KERNEL_FILES = [_FEMB / "solvers" / "dynamics" / "midpoint2d_kernels.py", _FEMB / "solvers" / "dynamics" / "rigid_step_kernels.py",
                _FEMB / "solvers" / "dynamics" / "rigid_step_patterns.py", _FEMB / "solvers" / "dynamics" / "midpoint3d_kernels.py",
                _FEMB / "solvers" / "dynamics" / "alpha3d_kernels.py", _FEMB / "solvers" / "dynamics" / "superelement_midpoint_kernels.py",
                _FEMB / "solvers" / "nonlinear" / "chord_update.py", _FEMB / "solvers" / "statics" / "planar_kernels.py"]


def kernel_sources():
    """The source files whose functions femb compiles (every module that uses ``jit``)."""
    roots = [_FEMB / "core", _FEMB / "correlation", _FEMB / "assembly" / "joints", _FEMB / "solvers" / "linalg", _ELEMENTS]
    try:  # an installed (non-editable) femb keeps femb.elements beside the other packages
        import importlib.util

        spec = importlib.util.find_spec("femb.elements")
        if spec is not None and spec.submodule_search_locations:
            roots.append(Path(list(spec.submodule_search_locations)[0]))
    except (ImportError, ValueError):
        pass
    files = set()
    for root in roots:
        if root.is_dir():
            files.update(p.resolve() for p in root.glob("*.py"))
    files.update(p.resolve() for p in KERNEL_FILES if p.is_file())
    return sorted(files)


def kernel_digest():
    """A digest (16 hex digits) of the contents of every kernel source file."""
    h = hashlib.sha256()
    for path in kernel_sources():
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _cache_root():
    base = os.environ.get("NUMBA_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "femb"


CACHE_DIR = _cache_root() / f"femb-kernels-{kernel_digest()}"
numba.config.CACHE_DIR = str(CACHE_DIR)  # type: ignore[attr-defined]  # numba's settings module


def _option_defaults(cls) -> Optional[dict]:
    """name -> default of every option of numba's target-config class ``cls``, when each
    option is the plain property numba makes for it (value set, else the default); else None."""
    defaults = {}
    for name, option in cls.options.items():
        getter = getattr(getattr(cls, name, None), "fget", None)
        if getter is None or "make_prop" not in getattr(getter, "__qualname__", ""):
            return None
        defaults[name] = option.default
    return defaults


def _fast_config_values() -> None:
    """Make numba's ``TargetConfig.values`` (a dict of every compile option: set, else
    default) a dict merge instead of a property call per option. numba calls it twice per
    lookup of a typed overload (the compile flags are part of the key of its template cache:
    ``hash`` and ``==`` of the flags), about 10⁵ times in a cold first 3-D run, where the
    property calls take seconds of CPU. Same values, so the same compiled code; left as is
    when numba's classes are not the ones this was written for."""
    from numba.core import targetconfig

    cls = targetconfig.TargetConfig
    original = cls.values
    if getattr(original, "__qualname__", "") != "TargetConfig.values" or "_values" not in getattr(cls, "__slots__", ()):
        return
    cache: dict = {}

    def values(self):
        kind = type(self)
        defaults = cache.get(kind)
        if defaults is None:
            defaults = cache[kind] = _option_defaults(kind) or False
        if defaults is False:
            return original(self)
        merged = dict(defaults)
        merged.update(self._values)
        return merged

    values.__doc__ = original.__doc__
    cls.values = values  # type: ignore[method-assign]


_fast_config_values()

# numba versions whose front-end functions the replacements below were checked against
# (tests/core/test_jit_numba_frontend.py compares their results with numba's own)
_FRONTEND_NUMBA = ("0.68.",)
NUMBA_ORIGINALS: dict = {}  # name -> numba's own function, for each one replaced below


def _bit_sets(names_of_block: dict, index: dict, names: list) -> dict:
    """block -> bit mask (int) of its variable names; new names get the next bit of ``index``."""
    out = {}
    for block, block_names in names_of_block.items():
        mask = 0
        for name in block_names:
            bit = index.get(name)
            if bit is None:
                bit = index[name] = len(names)
                names.append(name)
            mask |= 1 << bit
        out[block] = mask
    return out


def live_map_bits(cfg, blocks, var_use_map, var_def_map) -> dict:
    """numba's ``analysis.compute_live_map`` (block -> set of the variable names that must be
    alive at its entry) with every set of names a bit mask: the same two fix-point
    iterations (the definitions reaching each block forward, then the liveness backward,
    both in the CFG's topological order), each a least fixed point, so the same sets;
    numba's set unions over every variable of a large function at every block and pass
    are word operations here."""
    index: dict = {}
    names: list = []
    use = _bit_sets(var_use_map, index, names)
    defs = _bit_sets(var_def_map, index, names)
    order = cfg.topo_order()
    succs = {b: [s for s, _ in cfg.successors(b)] for b in order}
    preds = {b: [p for p, _ in cfg.predecessors(b)] for b in order}
    reach: dict = {}  # definitions and uses reaching each block's entry (numba's def_reach)
    changed = True
    while changed:
        changed = False
        for b in order:
            mine = reach.get(b, 0) | defs[b] | use[b]
            if mine != reach.get(b, 0):
                reach[b] = mine
                changed = True
            for s in succs[b]:
                new = reach.get(s, 0) | mine
                if new != reach.get(s, 0):
                    reach[s] = new
                    changed = True
    live = {b: use[b] for b in blocks}
    changed = True
    while changed:
        changed = False
        for b in reversed(order):
            here = live[b]
            for p in preds[b]:
                new = live[p] | (here & reach.get(p, 0) & ~defs[p])
                if new != live[p]:
                    live[p] = new
                    changed = True
    out = {}
    for b, mask in live.items():
        found = set(var_use_map[b])
        mask &= ~use[b]
        while mask:
            low = mask & -mask
            found.add(names[low.bit_length() - 1])
            mask ^= low
        out[b] = found
    return out


def _fast_live_map() -> None:
    """Make numba's variable-liveness analysis (``analysis.compute_live_map``, run by its
    post-processor after every rewrite of a function's IR, ≈10³ times in a cold first 3-D
    run) :func:`live_map_bits`: the same sets of names, so the same compiled code. Left as
    is for a numba version it was not checked against."""
    from numba.core import analysis, ir_utils

    original = analysis.compute_live_map
    if not numba.__version__.startswith(_FRONTEND_NUMBA) or getattr(original, "__module__", "") != "numba.core.analysis":
        return
    NUMBA_ORIGINALS["compute_live_map"] = original
    analysis.compute_live_map = live_map_bits
    if getattr(ir_utils, "compute_live_map", None) is original:
        ir_utils.compute_live_map = live_map_bits


def _memo_has_loc() -> None:
    """Remember numba's ``base._has_loc(fn)`` (whether a lowering implementation takes a
    ``loc`` argument: an ``inspect.signature`` of ``fn``) per function: numba asks it again
    for every lowered call of the same implementation, ≈5·10³ times in a cold first 3-D run.
    Same answers (a function's parameters do not change). Left as is for a numba version it
    was not checked against."""
    import weakref

    from numba.core import base

    original = getattr(base, "_has_loc", None)
    if getattr(original, "__module__", "") != "numba.core.base" or not numba.__version__.startswith(_FRONTEND_NUMBA):
        return
    known: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

    def _has_loc(fn):
        try:
            return known[fn]
        except (KeyError, TypeError):
            pass
        answer = original(fn)
        try:
            known[fn] = answer
        except TypeError:  # not weakly referenceable: asked every time
            pass
        return answer

    _has_loc.__doc__ = original.__doc__
    NUMBA_ORIGINALS["_has_loc"] = original
    base._has_loc = _has_loc


def _memo_call_types() -> None:
    """Remember what numba's ``BaseFunction.get_call_type`` (the typing of a call of a
    numba-typed function: ``np.empty``, ``min``, ``math.sqrt``, an operator on arrays...)
    returned for the same function type, typing context, target, argument types and compile
    flags. numba tries every template registered for the function at every call site
    (≈10⁴ calls, ≈10⁵ template applications in a cold first 3-D run). A remembered answer
    also sets the implementation key numba's own call sets (``_impl_keys``), so lowering
    picks the same implementation; failures are not remembered. Left as is for a numba
    version it was not checked against."""
    from numba.core import targetconfig
    from numba.core.target_extension import get_local_target
    from numba.core.types import functions

    cls = functions.BaseFunction
    original = cls.get_call_type
    if (not numba.__version__.startswith(_FRONTEND_NUMBA) or getattr(original, "__qualname__", "") != "BaseFunction.get_call_type"
            or getattr(original, "__module__", "") != "numba.core.types.functions"):
        return
    known: dict = {}
    top_flags = targetconfig.ConfigStack.top_or_none

    def get_call_type(self, context, args, kws):
        try:
            key = (self, context, get_local_target(context), tuple(args), tuple(kws.items()), top_flags())
            found = known.get(key)
        except TypeError:  # an unhashable argument type: numba's own resolution
            return original(self, context, args, kws)
        if found is not None:
            sig, impl_key = found
            self._impl_keys[sig.args] = impl_key
            return sig
        sig = original(self, context, args, kws)
        if sig is not None:
            known[key] = (sig, self._impl_keys[sig.args])
        return sig

    get_call_type.__doc__ = original.__doc__
    NUMBA_ORIGINALS["BaseFunction.get_call_type"] = original
    cls.get_call_type = get_call_type  # type: ignore[method-assign]


def _fast_list_vars() -> None:
    """Make numba's ``Inst._rec_list_vars`` (the variables an IR statement or expression
    reads or writes: a walk of its attributes through lists, tuples and dicts, called for
    every statement by each use-def analysis: ≈5·10⁵ ``list_vars`` calls in a cold first 3-D
    run)
    :func:`collect_vars` into one list: the same variables in the same order. Left as is for
    a numba version it was not checked against."""
    from numba.core import ir

    original = getattr(ir.Inst, "_rec_list_vars", None)
    if (not numba.__version__.startswith(_FRONTEND_NUMBA) or getattr(original, "__qualname__", "") != "Inst._rec_list_vars"
            or ir.Stmt.list_vars.__qualname__ != "Stmt.list_vars" or ir.Expr.list_vars.__qualname__ != "Expr.list_vars"):
        return
    _LIST_VARS_OF.update({"var": ir.Var, "inst": ir.Inst, "stmt": ir.Stmt.list_vars, "expr": ir.Expr.list_vars})

    def _rec_list_vars(self, val):
        out: list = []
        collect_vars(val, out)
        return out

    _rec_list_vars.__doc__ = original.__doc__
    NUMBA_ORIGINALS["Inst._rec_list_vars"] = original
    _LIST_VARS_OF["rec"] = _rec_list_vars
    ir.Inst._rec_list_vars = _rec_list_vars  # type: ignore[method-assign]


_LIST_VARS_OF: dict = {}  # numba's IR classes and list_vars methods, set by _fast_list_vars
_VAR_KIND: dict = {}  # type -> how collect_vars walks a value of it (one of the kinds below)
_LEAF, _VAR, _ATTRS, _KWS, _INST, _ITEMS, _VALUES = range(7)


def _kind_of(kind: type) -> int:
    """How numba's ``_rec_list_vars`` treats a value of type ``kind`` (its isinstance tests in
    their order), remembered per type; an IR instruction whose ``list_vars`` is numba's
    ``Stmt``/``Expr`` one (on numba's ``_rec_list_vars``) is walked in place."""
    of = _LIST_VARS_OF
    if issubclass(kind, of["var"]):
        found = _VAR
    elif issubclass(kind, of["inst"]):
        walked_here = getattr(kind, "_rec_list_vars", None) is of["rec"]
        method = getattr(kind, "list_vars", None)
        if walked_here and method is of["stmt"]:
            found = _ATTRS
        elif walked_here and method is of["expr"]:
            found = _KWS
        else:
            found = _INST
    elif issubclass(kind, (list, tuple)):
        found = _ITEMS
    elif issubclass(kind, dict):
        found = _VALUES
    else:
        found = _LEAF
    _VAR_KIND[kind] = found
    return found


def collect_vars(val, out: list) -> None:
    """Append to ``out`` the IR variables of ``val`` in the order numba's
    ``Inst._rec_list_vars(val)`` lists them (a variable; an instruction's ``list_vars()``;
    the items of a list or tuple, the values of a dict, in order; nothing for anything else)."""
    kind = _VAR_KIND.get(type(val))
    if kind is None:
        kind = _kind_of(type(val))
    if kind == _LEAF:
        return
    if kind == _VAR:
        out.append(val)
        return
    if kind == _ATTRS:
        items = val.__dict__.values()
    elif kind == _KWS:
        items = val._kws.values()
    elif kind == _ITEMS:
        items = val
    elif kind == _VALUES:
        items = val.values()
    else:
        out.extend(val.list_vars())
        return
    for item in items:
        collect_vars(item, out)


_fast_live_map()
_memo_has_loc()
_memo_call_types()
_fast_list_vars()

KERNELS: list = []  # every function compiled through ``jit``, in the order of definition

PYTHON_TWINS: dict = {}  # internal kernel name -> its Python-callable twin, made at a first call from Python

_TWIN_SUFFIX = "__python"  # appended to the qualified name of a twin (its own cache files)


def _twin_function(f: Callable, suffix: str = _TWIN_SUFFIX) -> Callable:
    """A copy of ``f`` (same code, globals, defaults) under the qualified name
    ``f.__qualname__ + suffix``, so that numba caches its compilation in files of its own."""
    twin = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
    twin.__qualname__ = f.__qualname__ + suffix
    twin.__module__ = f.__module__
    twin.__doc__ = f.__doc__
    return twin


class InternalDispatcher(CPUDispatcher):
    """A kernel that other kernels call: compiled without the CPython and C-callable
    wrappers (the code that unboxes Python arguments, ~10 % of a cold compile's front end,
    plus its LLVM passes and machine code in each library), so its compiled form cannot be
    called from Python. A call from Python goes to a twin, the same function compiled with
    the wrappers (and cached under its own name), made at the first such call; compiled
    callers never use the twin."""

    def __call__(self, *args, **kwargs):
        """Call the Python-callable twin of this kernel (made and compiled on first use)."""
        name = kernel_name(self)
        twin = PYTHON_TWINS.get(name)
        if twin is None:
            log.debug("compiling a Python-callable twin of the internal kernel %s", name)
            twin = numba.njit(**self._femb_options)(_twin_function(self.py_func))
            KERNELS.append(twin)
            PYTHON_TWINS[name] = twin
        return twin(*args, **kwargs)


def jit(func: Optional[Callable] = None, *, parallel: bool = False, inline: str = "never",
        internal: bool = False, error_model: Optional[str] = None, name_suffix: str = "") -> Any:
    """Compile ``func`` in nopython mode with on-disk caching (in ``CACHE_DIR``).

    Use as ``@jit`` or ``@jit(parallel=True)`` (the latter for kernels whose element loop
    is a ``prange`` with no write conflicts). Compilation is lazy: a kernel is compiled at
    its first call, for the argument types of that call. ``@jit(inline="always")`` compiles
    the function into each compiled caller (numba's IR inlining) instead of calling it:
    for a helper with one call site inside a hot loop whose many array arguments make the
    call itself cost (each array passes as its whole descriptor); called from Python it is
    an ordinary kernel.

    ``@jit(internal=True)`` declares a helper that femb calls only from other kernels: it
    is compiled without the wrappers that make a compiled function callable from Python
    (:class:`InternalDispatcher`), which shortens a cold compile. Calling it from Python
    (as tests do) still works: the first such call compiles a Python-callable twin, so
    the cost falls on that caller only. With ``NUMBA_DISABLE_JIT=1`` every kernel,
    internal or not, is the plain Python function.

    ``@jit(error_model="numpy")`` compiles ``func`` with numba's numpy error model: a float
    division by zero gives inf or nan instead of raising ZeroDivisionError, and an integer
    division or modulo by zero gives 0 (default None: numba's "python" model, which
    raises). Without the exception exits numba can drop the reference counting of the
    arrays a helper takes; a kernel that uses it must guard its divisors itself.
    ``name_suffix`` compiles a copy of ``func`` named ``func.__qualname__ + name_suffix``
    (cache files of its own): a second compilation, with other options, of a kernel that
    is compiled elsewhere as it is.
    """
    errors = {} if error_model is None else dict(error_model=error_model)
    options = dict(cache=True, fastmath=False, parallel=parallel, inline=inline, **errors)

    def compile_(f):
        if name_suffix:
            f = _twin_function(f, name_suffix)
        if internal and not numba.config.DISABLE_JIT:  # type: ignore[attr-defined]  # numba's settings module
            kernel = InternalDispatcher(py_func=f, locals={},
                                        targetoptions=dict(fastmath=False, parallel=parallel, inline=inline, nopython=True,
                                                           no_cpython_wrapper=True, no_cfunc_wrapper=True, **errors))
            kernel.enable_caching()
            kernel._femb_options = options
        else:
            kernel = numba.njit(**options)(f)
        KERNELS.append(kernel)
        return kernel

    if func is None:
        return compile_
    return compile_(func)


# --------------------------------------------------------------------------- first runs
# kernel name -> CPU s spent compiling it in this process, for the kernels whose compilation
# was started from Python, with everything compiled in turn (the kernels a later run will
# load from the cache: their callees' code is part of theirs)
COMPILE_SECONDS: dict = {}


def kernel_name(kernel) -> str:
    """``module.qualname`` of a kernel made by :func:`jit` (or of any numba dispatcher)."""
    f = getattr(kernel, "py_func", kernel)
    return f"{f.__module__}.{f.__qualname__}"


def _is_femb(dispatcher) -> bool:
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", None) or ""
    return module == "femb" or module.startswith("femb.")


# Python's garbage collector during a femb compilation: the generation-2 threshold (how
# many generation-1 collections come before a full one is considered) while an outermost
# femb kernel compiles, or None to leave the collector as it is. numba's IR, typing and
# llvmlite objects make a heap of ~5·10⁵ objects, and Python's default (10) walks all of it
# about twenty times in a cold first 3-D run (≈4 of ≈29 CPU s); with 100, two to four
# times (≈1 s), for ≈50 MB more at the peak (the garbage of the compilation lives longer).
# The young generations are collected as before; the thresholds are restored at the end.
COMPILE_GC_THRESHOLD2: Optional[int] = 100


class _CompileListener(numba.core.event.Listener):
    """Logs the first compilation of a femb kernel in the process and adds up the CPU time
    of each outermost femb compilation (inclusive of the kernels and numba helpers it
    compiled in turn) into ``COMPILE_SECONDS``: their sum is the process's compile time.
    While an outermost femb compilation runs, Python's full garbage collections are put off
    (``COMPILE_GC_THRESHOLD2``); the thresholds are restored when it ends."""

    def __init__(self):
        self.stack: list = []
        self.announced = False
        self.gc_thresholds: Optional[tuple] = None  # the thresholds to restore, while changed

    def on_start(self, event):
        disp = (event.data or {}).get("dispatcher")
        if _is_femb(disp):
            if not self.announced:
                self.announced = True
                log.info("%s (cache: %s)", COMPILING_MESSAGE, CACHE_DIR)
            if not self.stack and COMPILE_GC_THRESHOLD2 is not None:
                self.gc_thresholds = gc.get_threshold()
                first, second, third = self.gc_thresholds
                gc.set_threshold(first, second, max(third, COMPILE_GC_THRESHOLD2))
        self.stack.append(time.process_time())

    def on_end(self, event):
        if not self.stack:
            return
        start = self.stack.pop()
        if self.stack:
            return
        if self.gc_thresholds is not None:
            gc.set_threshold(*self.gc_thresholds)
            self.gc_thresholds = None
        disp = (event.data or {}).get("dispatcher")
        if _is_femb(disp):
            name = kernel_name(disp)
            COMPILE_SECONDS[name] = COMPILE_SECONDS.get(name, 0.0) + time.process_time() - start


numba.core.event.register("numba:compile", _CompileListener())


def _cache_entry(kernel) -> Optional[tuple]:
    """(index file relative to the digest folder, source file) of a cached kernel."""
    cache = getattr(kernel, "_cache", None)
    index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    source = getattr(getattr(kernel, "py_func", None), "__code__", None)
    if index is None or source is None:
        return None
    try:
        return str(Path(index).relative_to(CACHE_DIR)), source.co_filename
    except ValueError:  # cached elsewhere (CACHE_DIR changed after the kernel was made)
        return None


def _entry_valid(cache_dir: Path, index: str, source: str, hashes: dict) -> bool:
    """Whether ``cache_dir/index`` holds compiled code numba will load for ``source``
    (numba drops an index whose numba version or source digest differ)."""
    try:
        with open(cache_dir / index, "rb") as f:
            version = pickle.load(f)
            if version != numba.__version__:
                return False
            stamp, overloads = pickle.loads(f.read())
        if source not in hashes:
            hashes[source] = hashlib.sha256(Path(source).read_bytes()).digest()
    except (OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError, AttributeError):
        return False
    return stamp == hashes[source] and bool(overloads)


def used_kernels() -> dict:
    """The femb kernels compiled or loaded from the cache in this process:
    name -> (index file relative to ``CACHE_DIR``, source file)."""
    out = {}
    for kernel in KERNELS:
        if getattr(kernel, "signatures", None):
            entry = _cache_entry(kernel)
            if entry is not None:
                out[kernel_name(kernel)] = entry
    return out


def runs_file(cache_dir: Optional[Path] = None) -> Path:
    """The record of which kernels each kind of run used, beside the digest folders."""
    return Path(cache_dir if cache_dir is not None else CACHE_DIR).parent / "femb-kernel-runs.json"


def _read_runs(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record_run(key: str, cache_dir: Optional[Path] = None) -> None:
    """Remember the kernels this process used (and the CPU s each took to compile, when it
    compiled them here) as what a run of kind ``key`` needs; :func:`compile_estimate` reads
    it. Written atomically; failures to write are ignored (the record is a hint)."""
    path = runs_file(cache_dir)
    runs = _read_runs(path)
    before = runs.get(key, {}) if isinstance(runs.get(key), dict) else {}
    entry = {}
    for name, (index, source) in used_kernels().items():
        old = before.get(name, {})
        seconds = COMPILE_SECONDS.get(name, old.get("seconds", 0.0) if isinstance(old, dict) else 0.0)
        entry[name] = {"index": index, "source": source, "seconds": round(float(seconds or 0.0), 3)}
    if not entry:
        return
    runs[key] = entry
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(runs, indent=1, sort_keys=True))
        os.replace(tmp, path)
    except OSError:
        log.debug("could not write %s", path)


def compile_estimate(key: str, modules: Iterable[str] = (), default: float = 15.0,
                     cache_dir: Optional[Path] = None) -> Optional[float]:
    """CPU seconds a run of kind ``key`` will spend compiling kernels, or None when its
    kernels are all in the cache. A cheap check of cache index files against the source
    files, made before the run:

    - a run of this kind was recorded (:func:`record_run`): the sum of the recorded compile
      times of its kernels whose cache entries are missing or stale, None if there are none;
    - else: ``default`` when the digest folder holds no cache entry of one of ``modules``
      (source file stems, e.g. ``"beam3d"``, of the modules whose kernels the run calls),
      None otherwise.
    """
    if numba.config.DISABLE_JIT:  # type: ignore[attr-defined]  # kernels run as Python: nothing compiles
        return None
    cache_dir = Path(cache_dir if cache_dir is not None else CACHE_DIR)
    recorded = _read_runs(runs_file(cache_dir)).get(key)
    if isinstance(recorded, dict) and recorded:
        hashes: dict = {}
        missing = [v for v in recorded.values()
                   if not (isinstance(v, dict) and _entry_valid(cache_dir, v.get("index", ""), v.get("source", ""), hashes))]
        if not missing:
            return None
        return max(1.0, sum(float(v.get("seconds", 0.0)) if isinstance(v, dict) else 0.0 for v in missing))
    if not cache_dir.is_dir():
        return default
    for stem in modules:
        if next(cache_dir.rglob(f"{stem}.*.nbi"), None) is None:
            return default
    return None
