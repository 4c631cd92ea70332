"""Typed, key-checked access to the tables of a parsed TOML case file.

Every problem is recorded with its key path (``parts[1].section``) and the offending
value; the item being read is then skipped (``Context.guard``) so that one pass reports
every problem of the file at once. Arrays of tables are numbered from 0.
"""
import contextlib

import numpy as np

from femb.case.expressions import RESERVED, Expression
from femb.core.errors import InputError, shown


class _Skip(Exception):
    """Abandon the item being read (its problem is already recorded)."""


def _type_name(value):
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "table"}.get(type(value), type(value).__name__)


class Context:
    """Problems found so far, the file name and the ``[parameters]`` of the case."""

    def __init__(self, file):
        self.file = str(file)
        self.problems = []
        self.parameters = {}

    def fail(self, path, message):
        """Record ``path: message`` and skip the current item."""
        self.problems.append(f"{path}: {message}" if path else message)
        raise _Skip

    def skip(self):
        """Skip the current item without a new problem (one already explains it)."""
        raise _Skip

    @contextlib.contextmanager
    def guard(self):
        """Run a block; a recorded problem ends the block, not the whole read."""
        try:
            yield
        except _Skip:
            pass
        except InputError as exc:  # raised by lower layers (mesh, expressions)
            self.problems += exc.problems if exc.where is None else [f"{exc.where}: {p}" for p in exc.problems]

    def raise_if_problems(self, error=InputError):
        if self.problems:
            raise error(self.problems, self.file)

    # ------------------------------------------------------------------ value converters
    def number(self, value, path, positive=False, nonnegative=False):
        """A float from a number or an expression string over the parameters."""
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            self.fail(path, f"expected a number or an expression string, got {_type_name(value)} {shown(value)}")
        if isinstance(value, str):
            try:
                value = Expression(value, self.parameters, path)(**self.parameters)
            except InputError as exc:
                self.fail(path, exc.problems[0])
        value = float(value)
        if not np.isfinite(value):
            self.fail(path, f"must be finite, got {value}")
        if positive and not value > 0:
            self.fail(path, f"must be > 0, got {value:g}")
        if nonnegative and value < 0:
            self.fail(path, f"must be >= 0, got {value:g}")
        return value

    def integer(self, value, path, minimum=None):
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(path, f"expected an integer, got {_type_name(value)} {shown(value)}")
        if minimum is not None and value < minimum:
            self.fail(path, f"must be >= {minimum}, got {value}")
        return value

    def string(self, value, path, choices=None):
        if not isinstance(value, str):
            self.fail(path, f"expected a string, got {_type_name(value)} {shown(value)}")
        if choices is not None and value not in choices:
            self.fail(path, f"unknown value {shown(value)} (allowed: {', '.join(choices)})")
        return value

    def boolean(self, value, path):
        if not isinstance(value, bool):
            self.fail(path, f"expected true or false, got {_type_name(value)} {shown(value)}")
        return value

    def vector(self, value, path, size=None):
        """A list of numbers (or expression strings) as a tuple of floats."""
        if not isinstance(value, list):
            self.fail(path, f"expected an array of numbers, got {_type_name(value)} {shown(value)}")
        if size is not None and len(value) not in np.atleast_1d(size):
            self.fail(path, f"expected {size} components, got {len(value)}")
        return tuple(self.number(v, f"{path}[{i}]") for i, v in enumerate(value))

    def selector(self, value, path):
        """A node selector: a set or marker name, a node index or a list of node indices."""
        if isinstance(value, str):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return list(value)
        self.fail(path, f"expected a set name, a node index or a list of node indices, got {_type_name(value)} {shown(value)}")

    def function_of_t(self, value, path):
        """A callable a(t): a table [[t, a], ...] (linear interpolation, constant beyond the
        ends) or an expression string in t and the parameters."""
        if isinstance(value, str):
            try:
                return Expression(value, {"t", *self.parameters}, path).function_of_t(self.parameters)
            except InputError as exc:
                self.fail(path, exc.problems[0])
        if not isinstance(value, list) or not value:
            self.fail(path, f"expected a table [[t, a], ...] or an expression string in t, got {_type_name(value)} {shown(value)}")
        rows = []
        for i, row in enumerate(value):
            if not isinstance(row, list) or len(row) != 2:
                self.fail(f"{path}[{i}]", f"expected a pair [t, a], got {shown(row)}")
            rows.append((self.number(row[0], f"{path}[{i}][0]"), self.number(row[1], f"{path}[{i}][1]")))
        ts, values = np.array(rows).T
        if np.any(np.diff(ts) <= 0):
            self.fail(path, f"the times must increase strictly, got {ts.tolist()}")

        def table(t):
            return float(np.interp(t, ts, values))

        table.points = rows
        return table


class Table:
    """A TOML table with its key path; ``take`` reads and type-checks one key and
    ``done`` reports every key not taken as unknown (listing the allowed keys)."""

    def __init__(self, data, path, ctx, allowed=None):
        self.data = data
        self.path = path
        self.ctx = ctx
        self.allowed = list(allowed) if allowed is not None else None
        self.taken = set()
        self.skip_check = False  # set when the allowed keys cannot be known (bad type)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        """Leaving ``with table:`` checks the keys, also when reading it failed half-way."""
        if not self.skip_check:
            self.done()
        return False

    def key_path(self, key):
        return f"{self.path}.{key}" if self.path else key

    def __contains__(self, key):
        return key in self.data

    def take(self, key, convert=None, required=False, default=None, **options):
        """The value of ``key`` converted by the Context method named ``convert``
        ("number", "integer", "string", "boolean", "vector", "selector", "function_of_t")
        or returned raw; ``default`` when absent, a problem when ``required``."""
        self.taken.add(key)
        if key not in self.data:
            if required:
                self.ctx.fail(self.key_path(key), "required key is missing")
            return default
        value = self.data[key]
        if convert is None:
            return value
        return getattr(self.ctx, convert)(value, self.key_path(key), **options)

    def sub(self, key, allowed=None, required=False):
        """The sub-table ``key`` as a Table (None when absent and not required)."""
        self.taken.add(key)
        if key not in self.data:
            if required:
                self.ctx.fail(self.key_path(key), "required table is missing")
            return None
        value = self.data[key]
        if not isinstance(value, dict):
            self.ctx.fail(self.key_path(key), f"expected a table, got {_type_name(value)} {shown(value)}")
        return Table(value, self.key_path(key), self.ctx, allowed)

    def array(self, key, allowed=None):
        """The array of tables ``key`` ([[key]] in TOML) as a list of Tables."""
        self.taken.add(key)
        value = self.data.get(key, [])
        if isinstance(value, dict):  # a single [key] table where [[key]] is allowed
            return [Table(value, self.key_path(key), self.ctx, allowed)]
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            self.ctx.fail(self.key_path(key), f"expected an array of tables ([[{key}]]), got {_type_name(value)}")
        return [Table(v, f"{self.key_path(key)}[{i}]", self.ctx, allowed) for i, v in enumerate(value)]

    def done(self):
        """Record a problem for every key not in ``allowed`` (when None: not taken)."""
        allowed = self.allowed if self.allowed is not None else sorted(self.taken)
        for key in self.data:
            if key not in allowed:
                self.ctx.problems.append(f"{self.key_path(key)}: unknown key (allowed: {', '.join(allowed)})")


def read_parameters(table, ctx):
    """Fill ``ctx.parameters`` from ``[parameters]`` (numbers, or expressions in the
    parameters defined above them)."""
    if table is None:
        return
    for key in table.data:
        path = table.key_path(key)
        with ctx.guard():
            if key in RESERVED or not key.isidentifier():
                ctx.fail(path, f"invalid parameter name {key!r} (reserved: {', '.join(sorted(RESERVED))})")
            ctx.parameters[key] = table.take(key, "number")
