"""Compiled whole steps of the Lie-group generalized-α scheme for 3-D beam models.

The α schemes (``GeneralizedAlpha``, and ``Newmark`` and ``HHT``, its special cases) step a
model with oriented nodes by femb.solvers.dynamics.alpha3d: a small 3-D beam model spends
most of such a step in Python around compiled kernels (the step system's set-up, the
kinematics, the rotary inertia and its derivative in numpy, the Newton loop's bookkeeping,
``finish``). For the models that ``SpatialSteps`` (femb.solvers.dynamics.spatial_step)
compiles under the mid-point scheme, ``AlphaSpatialSteps`` runs the α steps between two
recorded frames in one compiled call (femb.solvers.dynamics.alpha3d_kernels
``alpha3d_steps``): predictor, the Newton iterations of
femb.solvers.nonlinear.step_newton.iterate with AlphaLie3DSystem's residual and Newton
matrix, band LU, turn limit (nodal spin, element chord), the same convergence tests, the
end-of-step state (rotations, momenta, pseudo- and true accelerations, reactions) and the
energy books. The results equal those of the general path to round-off, with the same
Newton iterations.

Qualifying models: those of ``SpatialSteps`` (beam3d / beam3d_timoshenko force blocks,
point masses and rigid bodies at nodes, supports, prescribed motions, constant and timed
loads, gravity; full Newton with femb's band LU; no joints, damping, state loads, offset
mass centres) under a scheme of type ``GeneralizedAlpha``. A step that does not converge in
the compiled loop is done again by the general path, which also owns the retry with
shorter corrections and the cut-backs; compiled steps resume at the nominal step size.

Switch: ``DynamicSettings(compiled_step=False)`` forces the general path.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy as np
from numpy.typing import NDArray

from femb.solvers.dynamics.alpha3d import AlphaLie3DSystem
from femb.solvers.dynamics.alpha3d_kernels import alpha3d_steps
from femb.solvers.dynamics.schemes import GeneralizedAlpha
from femb.solvers.dynamics.spatial_step import SpatialSteps
from femb.solvers.dynamics.step_system import State

if TYPE_CHECKING:
    from femb.solvers.dynamics.problem import DynamicProblem
    from femb.solvers.nonlinear.newton import NewtonSettings


class AlphaSpatialSteps(SpatialSteps):
    """Whole compiled Lie-group α steps of a qualifying 3-D beam model (module docstring).

    Build with ``AlphaSpatialSteps.build(problem, scheme, newton, solve_correction)`` (None
    when the model does not qualify); ``advance`` (WholeSteps) runs steps of the driver's
    time grid."""

    scheme_type = GeneralizedAlpha
    coef: NDArray[np.float64]

    @classmethod
    def build(cls, problem: DynamicProblem, scheme: Any, newton: NewtonSettings,
              solve_correction: Optional[Any] = None) -> Optional[AlphaSpatialSteps]:
        """The compiled stepper of ``problem`` when the model qualifies (module docstring), else None."""
        steps = super().build(problem, scheme, newton, solve_correction)
        if steps is not None:
            steps.coef = np.array([scheme.alpha_m, scheme.alpha_f, scheme.beta, scheme.gamma], dtype=np.float64)
            steps.param[4] = AlphaLie3DSystem.noise_floor
        return steps  # type: ignore[return-value]

    def _amplitudes(self, starts: NDArray[np.float64], hs: NDArray[np.float64]) -> NDArray[np.float64]:
        """(k, 2 n_timed): the timed-load amplitudes at the start and at the end t + h of each
        step (the α step takes the loads at both ends, DynamicProblem.scaled_loads)."""
        k = starts.size
        ends = (starts + hs).tolist()
        at = [[float(a(t)) for a in self.amplitudes] for t in starts.tolist()]
        at1 = [[float(a(t)) for a in self.amplitudes] for t in ends]
        return np.hstack([np.array(at).reshape(k, -1), np.array(at1).reshape(k, -1)])

    def _steps(self, state: State, hs: NDArray[np.float64], amps: NDArray[np.float64], t1: list[float],
               its: NDArray[np.int64], books: NDArray[np.float64]) -> tuple[int, NDArray[np.float64], NDArray[np.float64], dict]:
        """``alpha3d_steps`` (WholeSteps._steps; State.a the pseudo-acceleration, State.extra:
        the nodal rotations R, angular momenta π, true acceleration ``acc`` and the
        generalized reactions, as femb.solvers.dynamics.alpha3d's steps leave them)."""
        vals, Rp = self._prescribed(t1)
        x = state.extra
        u, v, a, acc = (np.array(y, dtype=np.float64) for y in (state.u, state.v, state.a, x["acc"]))
        R, pi, react = (np.array(y, dtype=np.float64) for y in (x["R"], x["pi"], x["reaction"]))
        done, _ = alpha3d_steps(u, v, a, acc, R, pi, react, hs, np.ascontiguousarray(amps), self.timed, self.f_const,
                                self.pres_var, vals, self.prow, Rp, self.work_var, self.work_ptr, self.fixed, self.model,
                                self.elems, self.mass, self.chords, self.coef, self.param, int(self.newton.max_iterations),
                                its, books)
        return done, u, v, {"a": a, "R": R, "pi": pi, "acc": acc, "fd": None, "fl": None, "lam": None, "reaction": react}
