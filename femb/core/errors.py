"""Exception types shared by every layer of femb.

``InputError`` and ``ModelError`` carry a list of problems, each naming where it is (file,
set, part, element, node, joint), so a user sees every problem of a model at once.
``ConvergenceError`` carries the diagnostics of a failed nonlinear solve and whatever was
computed before the failure.
"""


MAX_SHOWN = 80  # characters of a user value quoted in a message
MAX_PROBLEM = 1000  # characters of one problem line


def shown(value, limit=MAX_SHOWN):
    """``repr(value)`` for a message, cut to about ``limit`` characters (the start and the
    total length shown) so a long expression or array is not echoed whole."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


def _clip(problem, limit=MAX_PROBLEM):
    """A problem line of at most about ``limit`` characters: the middle is left out."""
    if len(problem) <= limit:
        return problem
    half = limit // 2
    return f"{problem[:half]} ... [{len(problem) - 2 * half} characters left out] ... {problem[-half:]}"


class FembError(Exception):
    """Base class of all errors femb raises on purpose."""


class InputError(FembError, ValueError):
    """Bad user input (arguments, files, keys); ``problems`` lists every issue found."""

    def __init__(self, problems, where=None):
        if isinstance(problems, str):
            problems = [problems]
        self.problems = [_clip(str(p)) for p in problems]
        self.where = where
        head = f"{where}: " if where else ""
        if len(self.problems) == 1:
            msg = head + self.problems[0]
        else:
            msg = head + f"{len(self.problems)} problems:\n" + "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(msg)


class ModelError(InputError):
    """An inconsistent model (unknown set, missing property, unsupported element ...)."""


class ConvergenceError(FembError, RuntimeError):
    """A nonlinear solve did not converge.

    Attributes
    ----------
    residual_history : list of float
        Residual norms of the failed attempt, one per Newton iteration.
    worst_dofs : list of (node, dof_name, residual)
        The degrees of freedom with the largest residual at the last iteration.
    results : object or None
        The Results object holding everything computed before the failure.
    """

    def __init__(self, message, residual_history=(), worst_dofs=(), results=None, load=None):
        self.residual_history = list(residual_history)
        self.worst_dofs = list(worst_dofs)
        self.results = results
        self.load = load
        lines = [message]
        if self.residual_history:
            hist = ", ".join(f"{r:.3e}" for r in self.residual_history[-12:])
            lines.append(f"  residual history (last {min(12, len(self.residual_history))}): {hist}")
        if self.worst_dofs:
            worst = ", ".join(f"node {n} {d}: {r:.3e}" for n, d, r in self.worst_dofs)
            lines.append(f"  largest residuals: {worst}")
        if results is not None:
            lines.append("  results up to the last converged state are kept in .results")
        super().__init__("\n".join(lines))
