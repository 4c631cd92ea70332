"""Intel MKL PARDISO as femb's sparse direct solver for large systems, when installed.

PARDISO (through the optional ``pypardiso`` package: ``pip install pypardiso`` or
``pip install "femb[pardiso]"``) factorizes large sparse systems — shell meshes, 3-D
frames, anything whose bandwidth is too wide for the compiled band LU — several times
faster than SuperLU and in parallel (benchmarks/sparse_solvers.py). femb uses it behind
``femb.solvers.linalg.factorization.Factorization`` for systems of at least
``PARDISO_MIN_EQUATIONS`` equations when it is installed; results agree with SuperLU to
round-off.

The choice is the environment variable ``FEMB_SPARSE_SOLVER``:

- ``auto`` (default): PARDISO from ``PARDISO_MIN_EQUATIONS`` equations when pypardiso is
  installed, else SuperLU;
- ``superlu``: always SuperLU;
- ``pardiso``: PARDISO for every sparse factorization (an error if pypardiso is missing).

Singular systems: PARDISO perturbs tiny pivots instead of failing (its 14th output
parameter counts them), so a factorization with perturbed pivots, or a matrix with an empty
row, is handed back to SuperLU, which either factorizes it exactly or raises femb's
SingularSystemError naming the DOFs involved — the diagnostics are the same with either
solver.
"""
from __future__ import annotations

import importlib.util
import os
from typing import Any, Optional

import numpy as np
import scipy.sparse as sp

from femb.core.errors import InputError

SOLVER_ENV = "FEMB_SPARSE_SOLVER"
SOLVER_CHOICES = ("auto", "superlu", "pardiso")
PARDISO_MIN_EQUATIONS = 10_000  # below this SuperLU is as fast (benchmarks/sparse_solvers.py: equal at 7 260 and 9 840 equations, 3–4× slower from 19 000)

_module: Optional[Any] = None


def pardiso_available() -> bool:
    """True when the optional package pypardiso (MKL PARDISO) can be imported."""
    return _module is not None or importlib.util.find_spec("pypardiso") is not None


def sparse_solver_choice() -> str:
    """The sparse direct solver asked for by ``FEMB_SPARSE_SOLVER``: 'auto' (unset),
    'superlu' or 'pardiso'. Any other value is an InputError naming the variable."""
    choice = os.environ.get(SOLVER_ENV, "auto").strip().lower() or "auto"
    if choice not in SOLVER_CHOICES:
        raise InputError(f"environment variable {SOLVER_ENV}={os.environ.get(SOLVER_ENV)!r}: "
                         f"expected one of {', '.join(SOLVER_CHOICES)}")
    return choice


def use_pardiso(n_equations: int) -> bool:
    """Whether a sparse factorization of ``n_equations`` equations goes to PARDISO."""
    choice = sparse_solver_choice()
    if choice == "superlu":
        return False
    if choice == "pardiso":
        if not pardiso_available():
            raise InputError(f"{SOLVER_ENV}=pardiso, but the package pypardiso is not installed "
                             "(pip install pypardiso)")
        return True
    return n_equations >= PARDISO_MIN_EQUATIONS and pardiso_available()


def _pypardiso() -> Any:
    global _module
    if _module is None:
        import pypardiso
        _module = pypardiso
    return _module


class PardisoLU:
    """LU factorization of a square sparse matrix K (n, n) by MKL PARDISO (real
    unsymmetric, its default pivoting, scaling and matching); ``solve(b)`` returns K⁻¹b for
    b (n,) or (n, k). ``reliable`` is False when PARDISO had to perturb pivots (a singular
    or nearly singular matrix) or K has an empty row: the caller then factorizes with
    SuperLU for an exact answer or a diagnosis."""

    def __init__(self, K: sp.spmatrix) -> None:
        A = sp.csr_matrix(K, dtype=np.float64, copy=True)
        A.sort_indices()
        self._A = A
        self._solver = None
        self.perturbed_pivots = 0
        self.reliable = bool(np.diff(A.indptr).all())
        if not self.reliable:  # an empty row: singular, and a crash inside PARDISO
            return
        solver = _pypardiso().PyPardisoSolver(mtype=11)
        solver.factorize(A)
        self._solver = solver
        self.perturbed_pivots = int(solver.get_iparm(14))
        self.reliable = self.perturbed_pivots == 0

    def solve(self, b: np.ndarray) -> np.ndarray:
        if self._solver is None:
            raise RuntimeError("PardisoLU: no factorization (the matrix has an empty row)")
        return np.asarray(self._solver.solve(self._A, np.asarray(b, dtype=np.float64)))

    def release(self) -> None:
        """Free PARDISO's internal memory for this factorization."""
        if self._solver is not None:
            self._solver.free_memory(everything=True)
            self._solver = None

    def __del__(self) -> None:
        try:
            self.release()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass


def pardiso_factor(K: sp.spmatrix) -> Optional[PardisoLU]:
    """PARDISO's factorization of K (n, n) when ``use_pardiso`` takes it and PARDISO
    factorized it without perturbing pivots; None otherwise (the caller factorizes with
    SuperLU, which is exact or names the DOFs of a singular matrix)."""
    if not use_pardiso(K.shape[0]):
        return None
    lu = PardisoLU(K)
    if lu.reliable:
        return lu
    lu.release()
    return None
