"""Newton iteration of one time step and the linear solve of its corrections.

``iterate`` runs the Newton loop of a step system (femb.solvers.dynamics.schemes); the linear
solve of each correction goes through one replaceable callable ``solve_correction(K, r)
-> δz`` over the equations (K None: reuse the last factorization), ``DirectCorrection``
by default, so that a null-space projection for eliminated constraints can be plugged in.
"""
import math
import warnings

import numpy as np
import scipy.linalg as sla
import scipy.sparse.linalg as spla

from femb.core.errors import FembError
from femb.correlation.pattern import csr_rows
from femb.solvers.linalg.factorization import BandLU, Factorization, SingularSystemError
from femb.solvers.linalg.pardiso import pardiso_factor
from femb.solvers.nonlinear.newton import (
    NewtonReport,
    at_noise_floor,
    projected_newton,
    rounding_residual,
)
from femb.solvers.nonlinear.norms import vector_norm


class DirectCorrection:
    """Default ``solve_correction``: LU factorization of the Newton matrix.

    ``corr(K, r)`` factorizes K (CSR over the equations, non-symmetric) and returns
    −K⁻¹r; ``corr(None, r)`` reuses the last factorization (modified Newton). Which LU:

    - a band matrix (lower + upper bandwidth ≤ ``band_limit``, typical of beams and chains
      numbered by the table's reverse Cuthill–McKee): femb's compiled band LU
      (femb.solvers.linalg.factorization.BandLU, refactorized in place, no wrapper overhead: ~6 µs for a
      10-element beam against ~60 µs through scipy; as fast as LAPACK's gbtrf for long
      chains and ~3 times faster than SuperLU at 3000 equations);
    - other matrices up to ``dense_limit`` equations: dense LAPACK (getrf), 2-4 times
      faster than sparse bookkeeping below ~100 equations;
    - otherwise SuperLU with the column ordering ``permc_spec`` ("NATURAL" by default,
      because the table already orders the equations by RCM; use "COLAMD" for tables
      built without renumbering), or MKL PARDISO for large systems when pypardiso is
      installed (femb.solvers.linalg.pardiso.use_pardiso).

    A singular matrix raises SingularSystemError naming the suspect DOFs.
    """

    dense_limit = 120
    band_limit = 64

    def __init__(self, table=None, permc_spec="NATURAL"):
        self.table = table
        self.permc_spec = permc_spec
        self.factor = None
        self._pattern = None
        self._band = None
        self._fast = None

    @property
    def has_factor(self):
        return self.factor is not None

    def reset(self):
        self.factor = None

    def _singular(self, K, why):
        Factorization(K, self.table, context="dynamic step matrix")  # raises with DOF diagnostics
        raise SingularSystemError(f"dynamic step matrix is numerically singular ({why})")

    def _layout(self, K):
        """Row indices and bandwidths of K's pattern (cached)."""
        key = (K.shape[0], K.indptr.size, K.indices.size, id(K.indices))
        if self._pattern is None or self._pattern[0] != key:
            rows = csr_rows(K.indptr)
            cols = K.indices
            kl = int((rows - cols).max(initial=0))
            ku = int((cols - rows).max(initial=0))
            self._pattern = (key, rows, kl, ku)
        return self._pattern[1:]

    def factorize(self, K):
        n = K.shape[0]
        if n == 0:
            self.factor = ("empty", None)
            return
        rows, kl, ku = self._layout(K)
        if kl + ku <= self.band_limit:  # BandLU checks for NaN/Inf itself
            lu = self._band
            if lu is None or lu.n != n or (lu.kl, lu.ku) != (kl, ku):
                lu = self._band = BandLU(K, self.table, "dynamic step matrix", kl, ku)
            else:
                lu.factorize(K)
            if not lu.pivot_ratio > 1e-13:
                self.factor = None
                self._singular(K, f"pivot ratio {lu.pivot_ratio:.1e}")
            self.factor = ("bandlu", lu)
            return
        if not np.all(np.isfinite(K.data)):
            raise FembError("dynamic step matrix contains NaN or Inf entries (a diverged state or bad input)")
        if n <= self.dense_limit:
            A = np.zeros((n, n))
            A[rows, K.indices] = K.data
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lu = sla.lu_factor(A, check_finite=False)
            d = np.abs(np.diag(lu[0]))
            self.factor = ("dense", lu)
        else:
            lu = pardiso_factor(K)
            if lu is not None:
                self.factor = ("sparse", lu)
                return
            try:
                self.factor = ("sparse", spla.splu(K.tocsc(), permc_spec=self.permc_spec))
            except RuntimeError as exc:
                self._singular(K, str(exc))
            return
        if not d.min() > 1e-13 * d.max():
            self.factor = None
            self._singular(K, f"pivot ratio {d.min() / max(d.max(), 1e-300):.1e}")

    def __call__(self, K, r):
        if K is not None:
            lu, pat = self._band, self._pattern
            fast = self._fast  # (K, its indices, its indptr, lu) of the last check that passed
            if (fast is not None and K is fast[0] and K.indices is fast[1] and K.indptr is fast[2] and lu is fast[3]) or (
                    lu is not None and pat is not None and lu.n > 0 and (lu.n, lu.kl, lu.ku) == (K.shape[0], pat[2], pat[3])
                    and pat[0] == (K.shape[0], K.indptr.size, K.indices.size, id(K.indices))):
                self._fast = (K, K.indices, K.indptr, lu)
                # the band matrix of the last factorization, refactorized and solved in one call
                self.factor = None  # (set again once the factorization succeeded)
                dz = lu.factorize_solve(K, r)
                if not lu.pivot_ratio > 1e-13:
                    self._singular(K, f"pivot ratio {lu.pivot_ratio:.1e}")
                self.factor = ("bandlu", lu)
                return dz
            self.factorize(K)
        kind, fac = self.factor
        if kind == "empty":
            return np.zeros_like(r)
        if kind == "dense":
            return -sla.lu_solve(fac, r, check_finite=False)
        if kind == "bandlu":
            return -fac.solve(r)
        return -fac.solve(r)


def iterate(system, settings, correction, reuse=False):
    """Newton iteration of one step from the predictor ``system.z0``.

    ``system.evaluate(z) -> (r (n_eq,), K CSR, scale)``; ``system.step(z, dz) -> (z_new, dz)``
    (the correction scaled by ``system.limit`` and applied); optionally
    ``system.residual_norm(r)`` (‖r‖ of its last residual, else ``vector_norm``).
    Converged when ‖r‖ ≤ tolerance·scale, or when ‖r‖ ≤ 1e-4·scale and the correction is
    at round-off (‖δz‖ ≤ increment_tolerance·system.size(z)). A correction that would turn
    a nodal rotation or an element chord by more than ``system.max_turn`` is scaled down
    (``system.limit``): far from the solution the linearization of large rotations
    overshoots (e.g. by whole radians for stiff members with little rotary inertia), and
    the rotation-limited Newton step is what keeps large time steps converging. With ``settings.modified``
    the factorization is reused (across iterations, and across steps when ``reuse``) until
    the residual ratio exceeds ``settings.refactor_ratio``. A system with a ``noise_floor``
    attribute (relative, e.g. 1e-9) is also accepted once its residual is below
    noise_floor·scale and has stopped falling (three iterations without a 4× reduction);
    a system with ``absolute_coordinates(z)`` (the magnitudes of the coordinates its
    residual is computed from, over the equations) also once a stalled residual is below
    its round-off level ε‖|K|·|x|‖ (femb.solvers.nonlinear.newton.rounding_residual).
    Systems with joints (``system.constraints(z)`` not None) are iterated by
    femb.solvers.nonlinear.newton.projected_newton with the same tests (the correction-at-round-off
    one included) on the projected residual, plus ‖Φ‖ small.
    Returns a NewtonReport whose ``state`` is the converged z.
    """
    z = system.z0
    if getattr(system, "constraints", None) is not None and system.constraints(z) is not None:
        return projected_newton(system.evaluate, system, z, settings, getattr(correction, "table", None), system.p.length_scale)
    history = []
    r = None
    floor = getattr(system, "noise_floor", None)
    coordinates = getattr(system, "absolute_coordinates", None)
    threshold = settings.residual_threshold
    residual_norm = getattr(system, "residual_norm", vector_norm)  # ‖r‖, from the system when it has it
    for it in range(settings.max_iterations + 1):
        r, K, scale = system.evaluate(z)
        norm = residual_norm(r)
        history.append(norm)
        if not math.isfinite(norm):
            return NewtonReport(False, it, history, r, "residual is not finite")
        if norm <= threshold(scale):
            return NewtonReport(True, it, history, r, "converged", state=z)
        rounding = (lambda: rounding_residual(K, coordinates(z))) if coordinates is not None else None
        if len(history) >= 4 and at_noise_floor(history, scale, floor, rounding):  # (False before 4 residuals)
            # the residual has stopped falling at a level the system declares as its noise
            # floor (e.g. rounding amplified by an energy-consistent correction)
            return NewtonReport(True, it, history, r, "converged (residual at its noise floor)", state=z)
        if it == settings.max_iterations:
            break
        if len(history) > 2 and norm > settings.divergence_factor * max(history[0], 1e-300):
            return NewtonReport(False, it, history, r, "diverging")
        keep = settings.modified and correction.has_factor and (
            (it == 0 and reuse) or (it > 0 and norm <= settings.refactor_ratio * history[-2]))
        dz = correction(None if keep else K, r)
        z, dz = system.step(z, dz)  # system.limit's step length applied (system.apply)
        if norm <= 1e-4 * scale and vector_norm(dz) <= settings.increment_tolerance * system.size(z):
            system.evaluate(z)  # leave the system's bookkeeping at the accepted state
            return NewtonReport(True, it + 1, history, r, "converged (correction at round-off)", state=z)
    return NewtonReport(False, settings.max_iterations, history, r, f"no convergence in {settings.max_iterations} iterations")
