"""Compiled static load steps of planar beam2d models.

A load step of a small planar beam (a 10-element roll-up: 30 equations, one Newton
correction per load step with the chord-turning predictor) costs a few µs of compiled
element work and ~0.2 ms of Python around it: the Newton loop's bookkeeping, a scipy CSR
matrix per tangent, the band LU's wrapper, the chord fit's per-axis numpy, the load
vector. For models that qualify, ``PlanarLoadSteps`` runs the Newton solves of several load
factors in one compiled call (femb.solvers.statics.planar_kernels ``beam2d_load_steps``):
the loop of femb.solvers.nonlinear.newton.newton with the same residual, force scale,
tangent, band LU, chord predictor and tests, so that states equal those of the general path
to round-off with the same Newton iterations.

Qualifying models (``PlanarLoadSteps.build`` returns None otherwise and the general path
runs): planar (no oriented nodes), one element block of type ``beam2d`` or
``beam2d_timoshenko``, supports, ties, prescribed DOFs (value·λ), loads scaled by λ or
constant (point forces and moments, gravity), no configuration-dependent loads and no
joints; full Newton without factorization reuse (``NewtonSettings``: not ``modified``, no
``line_search``, fewer equations than ``reuse_min_equations`` or ``reuse_ratio`` 0), the
geometric stiffness included, a tangent and chord-fit Laplacians that femb's band LU
factorizes (bandwidths within ``BAND_LIMIT``). A load step that does not converge in the
compiled loop (or meets a singular tangent) is done again by the general path, which owns
the cut-backs and the diagnostics.

Switch: ``NewtonSettings(compiled_step=False)`` forces the general path.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, Optional

import numpy as np
from numpy.typing import NDArray

from femb.correlation.pattern import INDEX
from femb.elements import beam2d
from femb.solvers.linalg.factorization import BAND_LIMIT, BandLU, pattern_band_widths
from femb.solvers.statics.planar_kernels import beam2d_load_steps, beam2d_state

if TYPE_CHECKING:
    from femb.solvers.nonlinear.newton import NewtonSettings
    from femb.solvers.problem import StaticProblem

_I64 = np.int64


def _ints(x: Any) -> NDArray[np.int64]:
    """A C-contiguous int64 array (one type for the compiled call)."""
    return np.ascontiguousarray(x, dtype=_I64)


def _floats(x: Any) -> NDArray[np.float64]:
    """A C-contiguous float64 array."""
    return np.ascontiguousarray(x, dtype=np.float64)


class LoadSteps(NamedTuple):
    """Outcome of ``PlanarLoadSteps.run`` over k requested load factors, of which the first
    ``done`` converged (the arrays' first ``done`` rows are set)."""

    done: int
    """load steps that converged, in order"""
    status: int
    """0 all done; 1 the next one did not converge; 2 its tangent was singular or not finite"""
    states: NDArray[np.float64]
    """(k, n_var) the accepted states u"""
    forces: NDArray[np.float64]
    """(k, n_var) the internal force at each accepted state"""
    energies: NDArray[np.float64]
    """(k, n_el) the element strain energies at each accepted state"""
    iterations: NDArray[np.int64]
    """(k,) Newton iterations (corrections) of each load step"""
    residuals: NDArray[np.float64]
    """(k,) the last residual norm of each step's iteration history"""


def _no_fit() -> tuple[Any, ...]:
    """The arguments of an axis without a chord fit."""
    z = np.zeros(0, dtype=_I64)
    return (False, z, z, z, np.zeros((0, 1)), 0, z, z)


class PlanarLoadSteps:
    """Whole compiled load steps of a qualifying planar beam2d model (module docstring).

    Build with ``PlanarLoadSteps.build(problem, settings)`` (None when the model does not
    qualify); ``run(u, lams)`` solves a sequence of load factors."""

    def __init__(self, problem: StaticProblem, settings: NewtonSettings, kl: int, ku: int, chords: Optional[Any]) -> None:
        t = problem.table
        block = t.blocks[0]
        self.n_el = block.n_elements
        self.block = (_floats(block.X), _floats(block.props), _ints(block.var), np.ascontiguousarray(block.pos, dtype=INDEX))
        self.pattern = (*t.kernel_pattern(), int(kl), int(ku))
        self.f_ref, self.f_const = _floats(problem.f_ref), _floats(problem.f_const)
        groups = [(np.atleast_1d(vars_), rec.value) for vars_, rec in problem.prescribed]
        self.pres_var = _ints(np.concatenate([g for g, _ in groups])) if groups else np.zeros(0, dtype=_I64)
        self.pres_value = _floats(np.concatenate([np.full(g.size, float(v)) for g, v in groups])) if groups else np.zeros(0)
        self.ev = _ints(t.eq_var)
        if chords is None:
            z2 = np.zeros((0, 2), dtype=_I64)
            self.chords = (False, z2, z2, np.zeros((0, 2)), np.zeros(0))
            self.fits = _no_fit() + _no_fit()
        else:
            self.chords = (True, _ints(chords.va), _ints(chords.vb), _floats(chords.X21), _floats(chords.w))
            fits: tuple[Any, ...] = ()
            for fit in chords.fits:
                if fit is None:
                    fits += _no_fit()
                    continue
                var, la, lb, lu = fit
                fits += (True, _ints(var), _ints(la), _ints(lb), lu.ab, lu.kl, lu.piv, lu.reach)
            self.fits = fits
        nan = float("nan")
        self.param = np.array([settings.tolerance, nan if settings.absolute_tolerance is None else float(settings.absolute_tolerance),
                               settings.increment_tolerance, settings.divergence_factor])
        self.max_iterations = int(settings.max_iterations)

    @classmethod
    def build(cls, problem: StaticProblem, settings: NewtonSettings) -> Optional[PlanarLoadSteps]:
        """The compiled load steps of ``problem`` when the model qualifies (module
        docstring), else None."""
        p, t, s = problem, problem.table, settings
        if p.oriented or t.dim != 2 or t.n_eq == 0 or p.joints is not None or p.loads.has_state_loads or not p.include_geometric:
            return None
        if s.modified or s.line_search or (s.reuse_ratio > 0.0 and t.n_eq >= s.reuse_min_equations):
            return None
        if len(t.blocks) != 1 or t.blocks[0].spec.kernels is not beam2d.KERNELS:
            return None
        kl, ku = pattern_band_widths(t.indptr, t.indices)
        if kl + ku > BAND_LIMIT:  # the general path's SuperLU
            return None
        chords = p.chord_update if s.chord_predictor else None
        if chords is not None:
            if chords.va.shape[1] != 2 or len(chords.fits) != 2:
                return None
            if any(fit is not None and not isinstance(fit[3], BandLU) for fit in chords.fits):
                return None
        return cls(p, s, kl, ku, chords)

    def evaluate(self, u: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The internal force (n_var,) and the element strain energies (n_el,) at u (n_var,)."""
        X, props, var, _ = self.block
        f, en = np.empty(u.size), np.empty(self.n_el)
        beam2d_state(X, props, var, _floats(u), np.empty(var.shape), np.empty(var.shape), f, en)
        return f, en

    def run(self, u: NDArray[np.float64], lams: NDArray[np.float64]) -> LoadSteps:
        """Solve the load factors ``lams`` (k,) in order, each from the state of the
        previous one (the first from u (n_var,)), stopping before the first that does not
        converge (``LoadSteps``)."""
        lams = _floats(lams)
        k, n = lams.size, u.size
        states, forces = np.empty((k, n)), np.empty((k, n))
        energies = np.empty((k, self.n_el))
        its = np.zeros(k, dtype=_I64)
        residuals = np.empty(k)
        done, status = beam2d_load_steps(np.array(u, dtype=np.float64), lams, self.f_ref, self.f_const, self.pres_var, self.pres_value,
                                         self.ev, *self.block, *self.pattern, *self.chords, *self.fits, self.param,
                                         self.max_iterations, states, forces, energies, its, residuals)
        return LoadSteps(int(done), int(status), states, forces, energies, its, residuals)

