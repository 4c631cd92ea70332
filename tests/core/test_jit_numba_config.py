"""numba's compile-option sets as femb.core.jit leaves them: ``values()`` (a dict merge
since femb.core.jit is imported) equals the value of every option property, so the keys of
numba's template caches (hash and equality of the flags) are unchanged."""
import importlib

from numba.core.compiler import Flags
from numba.core.cpu import CPUTargetOptions  # noqa: F401  # the CPU target's option mapping is loaded

importlib.import_module("femb.core.jit")


def _by_property(flags):
    return {name: getattr(flags, name) for name in type(flags).options}


def test_flag_values_equal_the_option_properties():
    plain = Flags()
    internal = Flags()
    internal.nrt = True
    internal.no_cpython_wrapper = True
    internal.no_cfunc_wrapper = True
    explicit_default = Flags()
    explicit_default.no_cpython_wrapper = False  # set to its default value
    for flags in (plain, internal, explicit_default, Flags(copy_from=internal)):
        assert flags.values() == _by_property(flags)
        assert sorted(flags.values().items()) == sorted(_by_property(flags).items())
    assert plain == explicit_default and hash(plain) == hash(explicit_default)
    assert internal == Flags(copy_from=internal) and hash(internal) == hash(Flags(copy_from=internal))
    assert plain != internal
    internal.no_cfunc_wrapper = False  # a later change shows in the values
    assert internal.values()["no_cfunc_wrapper"] is False
