"""The restricted evaluator: arithmetic works, everything else is rejected."""
import math

import pytest

from femb.case.expressions import Expression, evaluate
from femb.core.errors import InputError


@pytest.mark.parametrize("text, variables, expected", [
    ("1 + 2*3 - 4/2", {}, 5.0),
    ("2**3**2", {}, 512.0),
    ("-x**2", {"x": 3.0}, -9.0),
    ("2*pi*EI/L", {"EI": 2.0, "L": 1.0}, 4 * math.pi),
    ("sin(t)**2 + cos(t)**2", {"t": 0.7}, 1.0),
    ("exp(log(5)) + sqrt(16) + abs(-1)", {}, 10.0),
    ("min(t, 1) + max(1, 2, 3)", {"t": 0.5}, 3.5),
    ("1 if t < 2 else 3*t", {"t": 1.0}, 1.0),
    ("1 if t < 2 else 3*t", {"t": 4.0}, 12.0),
    ("(0 < t <= 1) and not (t == 0.5)", {"t": 0.7}, 1.0),
    ("e", {}, math.e),
    ("7 % 4", {}, 3.0),
])
def test_evaluates(text, variables, expected):
    assert evaluate(text, variables) == pytest.approx(expected)


def test_function_of_t_binds_parameters():
    f = Expression("A*sin(w*t)", {"t", "A", "w"}).function_of_t({"A": 2.0, "w": 3.0})
    assert f(0.5) == pytest.approx(2 * math.sin(1.5))


@pytest.mark.parametrize("text, what", [
    ("t.__class__", "attribute access"),
    ("(1).real", "attribute access"),
    ("__import__('os')", "calling '__import__'"),
    ("open('x')", "calling 'open'"),
    ("eval('1')", "calling 'eval'"),
    ("(lambda: 1)()", "calling anything but a function name"),
    ("lambda: 1", "lambdas"),
    ("x[0]", "subscripts"),
    ("[1, 2]", "lists"),
    ("[t for t in (1, 2)]", "comprehensions"),
    ("'abc'", "constant"),
    ("sin(x=1)", "keyword arguments"),
    ("t := 3", "invalid expression"),
    ("1 +", "invalid expression"),
    ("True", "constant"),
    ("t << 2", "operator"),
])
def test_rejects(text, what):
    with pytest.raises(InputError, match="not allowed|invalid expression") as err:
        Expression(text, {"t", "x"}, where="case.toml: loads[0].amplitude")
    assert what in str(err.value)
    assert "case.toml: loads[0].amplitude" in str(err.value)


def test_unknown_name_lists_known_names():
    with pytest.raises(InputError, match=r"unknown name 'q'.*known: e, pi, t"):
        Expression("q + 1", {"t"})


@pytest.mark.parametrize("text", ["1/0", "sqrt(-1)", "9**9**9", "log(0)"])
def test_arithmetic_errors_are_input_errors(text):
    with pytest.raises(InputError, match="cannot evaluate"):
        evaluate(text)


def test_deep_nesting_is_rejected_not_crashing():
    with pytest.raises(InputError):
        evaluate("-" * 100000 + "1")
