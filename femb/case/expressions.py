"""A restricted evaluator for arithmetic expressions in case files (never ``eval``).

Allowed: numbers; names (``t`` where a time is defined, the case's ``[parameters]``,
``pi``, ``e``); ``+ - * / ** %``, unary ``-``/``+``, comparisons, ``and``/``or``/``not``,
``a if cond else b``; calls of ``sin cos tan asin acos atan atan2 sinh cosh tanh exp log
log10 sqrt abs min max floor ceil`` with positional arguments. Anything else (attribute
access, subscripts, lambdas, comprehensions, strings, calls of other names, keyword
arguments, ``__import__`` ...) is rejected with an InputError naming the construct.
Numbers are evaluated as floats, so ``9**9**9`` overflows instead of hanging.
"""
import ast
import math

from femb.core.errors import InputError, shown

FUNCTIONS = {
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos,
    "atan": math.atan, "atan2": math.atan2, "sinh": math.sinh, "cosh": math.cosh,
    "tanh": math.tanh, "exp": math.exp, "log": math.log, "log10": math.log10,
    "sqrt": math.sqrt, "abs": abs, "min": min, "max": max, "floor": math.floor, "ceil": math.ceil,
}
CONSTANTS = {"pi": math.pi, "e": math.e}
RESERVED = set(FUNCTIONS) | set(CONSTANTS) | {"t"}

_BINARY = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: a ** b, ast.Mod: lambda a, b: a % b,
}
_UNARY = {ast.USub: lambda a: -a, ast.UAdd: lambda a: +a, ast.Not: lambda a: float(not a)}
_COMPARE = {
    ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
}
_DESCRIBE = {
    ast.Attribute: "attribute access", ast.Subscript: "subscripts", ast.Lambda: "lambdas",
    ast.ListComp: "comprehensions", ast.GeneratorExp: "comprehensions", ast.DictComp: "comprehensions",
    ast.SetComp: "comprehensions", ast.List: "lists", ast.Tuple: "tuples", ast.Dict: "dicts",
    ast.Set: "sets", ast.JoinedStr: "strings", ast.NamedExpr: "assignments", ast.Starred: "starred arguments",
}


class Expression:
    """A parsed expression; call ``expr(**variables)`` or ``expr.function_of_t()``.

    Parameters
    ----------
    text : str
    names : iterable of str
        Variable names the expression may use besides ``pi`` and ``e`` (e.g. ``("t",)`` plus
        the parameter names); values are supplied when evaluating.
    where : str
        Location used in error messages (``case.toml: loads[0].amplitude``).
    """

    def __init__(self, text, names=(), where="expression"):
        self.text = str(text)
        self.where = where
        self.names = set(names)
        try:
            tree = ast.parse(self.text.strip(), mode="eval")
            self._check(tree.body)
        except InputError:
            raise
        except SyntaxError as exc:
            raise InputError(f"invalid expression {shown(self.text)}: {exc.msg}", where) from None
        except (ValueError, RecursionError, MemoryError) as exc:
            raise InputError(f"invalid expression {shown(self.text)}: {type(exc).__name__}", where) from None
        self.tree = tree.body
        self.used = {n.id for n in ast.walk(tree.body) if isinstance(n, ast.Name)} - set(FUNCTIONS)

    def _reject(self, what):
        raise InputError(f"{what} not allowed in expression {shown(self.text)}", self.where)

    def _check(self, node):
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                self._reject(f"constant {shown(node.value)}")
        elif isinstance(node, ast.Name):
            if node.id not in self.names and node.id not in CONSTANTS:
                known = sorted(self.names | set(CONSTANTS))
                raise InputError(f"unknown name {shown(node.id)} in expression {shown(self.text)} (known: {', '.join(known)})", self.where)
        elif isinstance(node, ast.BinOp):
            if type(node.op) not in _BINARY:
                self._reject(f"operator {type(node.op).__name__}")
            self._check(node.left)
            self._check(node.right)
        elif isinstance(node, ast.UnaryOp):
            if type(node.op) not in _UNARY:
                self._reject(f"operator {type(node.op).__name__}")
            self._check(node.operand)
        elif isinstance(node, ast.Compare):
            for op in node.ops:
                if type(op) not in _COMPARE:
                    self._reject(f"comparison {type(op).__name__}")
            for sub in [node.left, *node.comparators]:
                self._check(sub)
        elif isinstance(node, ast.BoolOp):
            for sub in node.values:
                self._check(sub)
        elif isinstance(node, ast.IfExp):
            for sub in (node.test, node.body, node.orelse):
                self._check(sub)
        elif isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                self._reject("calling anything but a function name")
            if node.func.id not in FUNCTIONS:
                self._reject(f"calling {shown(node.func.id)} (functions: {', '.join(sorted(FUNCTIONS))}) is")
            if node.keywords:
                self._reject("keyword arguments")
            for arg in node.args:
                self._check(arg)
        else:
            self._reject(_DESCRIBE.get(type(node), f"{type(node).__name__} syntax"))

    def __call__(self, **variables):
        missing = self.used - set(variables) - set(CONSTANTS)
        if missing:
            raise InputError(f"expression {shown(self.text)} needs values for {sorted(missing)}", self.where)
        env = {**CONSTANTS, **{k: float(v) for k, v in variables.items()}}
        try:
            value = float(self._eval(self.tree, env))
        except (ArithmeticError, ValueError, TypeError) as exc:
            raise InputError(f"cannot evaluate {shown(self.text)} with {_show(variables)}: {exc}", self.where) from None
        return value

    def _eval(self, node, env):
        if isinstance(node, ast.Constant):
            return float(node.value)
        if isinstance(node, ast.Name):
            return env[node.id]
        if isinstance(node, ast.BinOp):
            return _BINARY[type(node.op)](self._eval(node.left, env), self._eval(node.right, env))
        if isinstance(node, ast.UnaryOp):
            return _UNARY[type(node.op)](self._eval(node.operand, env))
        if isinstance(node, ast.Compare):
            left = self._eval(node.left, env)
            for op, comp in zip(node.ops, node.comparators):
                right = self._eval(comp, env)
                if not _COMPARE[type(op)](left, right):
                    return 0.0
                left = right
            return 1.0
        if isinstance(node, ast.BoolOp):
            values = (self._eval(v, env) for v in node.values)
            return float(all(values)) if isinstance(node.op, ast.And) else float(any(values))
        if isinstance(node, ast.IfExp):
            return self._eval(node.body, env) if self._eval(node.test, env) else self._eval(node.orelse, env)
        if isinstance(node, ast.Call):
            return FUNCTIONS[node.func.id](*(self._eval(a, env) for a in node.args))
        raise AssertionError(f"unchecked node {type(node).__name__}")  # _check rejects these

    def function_of_t(self, parameters=None):
        """A callable f(t) -> float with the parameters bound."""
        bound = dict(parameters or {})

        def f(t):
            return self(t=t, **bound)

        f.expression = self.text
        return f


def _show(variables):
    return ", ".join(f"{k} = {v:g}" for k, v in sorted(variables.items())) or "no variables"


def evaluate(text, variables=None, where="expression"):
    """Evaluate ``text`` once with ``variables`` (a dict name -> number)."""
    variables = dict(variables or {})
    return Expression(text, variables, where)(**variables)
