"""Compiled whole steps of the spatial energy-momentum mid-point scheme for 3-D beam models.

A small 3-D beam model (10 beam3d_timoshenko elements: 60 unknowns) spends most of a
mid-point step of femb.solvers.dynamics.midpoint3d in Python around compiled kernels: the
step system's set-up, the evaluation glue (gathers, Cayley step of the nodes, inertia,
scatter), the Newton loop's bookkeeping and ``finish``. For models that qualify,
``SpatialSteps`` runs the steps between two recorded frames in one compiled call
(femb.solvers.dynamics.midpoint3d_kernels ``beam3d_steps``): predictor (prescribed
rotations ψ = cay⁻¹(R_p(t_{n+1}) R_nᵀ)), the Newton iterations of
femb.solvers.nonlinear.step_newton.iterate with MidPoint3DSystem's residual and step
matrix, band LU, nodal and chord turn limit, convergence tests (force test, noise floor,
round-off level, correction at round-off, divergence, iteration cap), the end-of-step
rotations, momenta and angular velocities, and the step's energy terms. The results equal
those of the general path to round-off, with the same Newton iterations.

Qualifying models (``SpatialSteps.build`` returns None otherwise and the general path
runs): the mid-point scheme (``MidPoint``), 3-D with oriented nodes, element blocks with
internal forces of types beam3d and/or beam3d_timoshenko (one property layout: blocks of
one of the two types), inertia-only blocks (point masses, rigid bodies at their nodes),
constant mass (lumped or invariant) with nodal rotary inertia, supports, prescribed
translations and rotations (functions of t evaluated in Python once per step), constant
and timed loads (amplitudes evaluated in Python once per step), moments about fixed axes,
gravity; full Newton with femb's band LU (DirectCorrection, no ``solve_correction``
given). Not here: joints, damping, rotation-dependent (follower) moments and pressures,
mass centres off the node line (offset mass points), mass points inside elements,
rotational variables shared by tied nodes, other element types, modified Newton, and step
matrices beyond the band LU's limit (dense or sparse LU: general path). A step that does
not converge in the compiled loop is done again by the general path, which also owns the
retry with shorter corrections and the cut-backs; compiled steps resume at the nominal
step size.

Switch: ``DynamicSettings(compiled_step=False)`` forces the general path.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy as np
from numpy.typing import NDArray

from femb.core.rotations import exp_batch
from femb.correlation.pattern import INDEX
from femb.elements.beam3d_midpoint import midpoint_force_oriented
from femb.solvers.dynamics.midpoint3d import MidPoint3DSystem
from femb.solvers.dynamics.midpoint3d_kernels import beam3d_steps
from femb.solvers.dynamics.planar_step import WholeSteps, _floats, _ints, _shared_floats, _shared_ints
from femb.solvers.dynamics.schemes import MidPoint
from femb.solvers.dynamics.step_system import State
from femb.solvers.linalg.factorization import pattern_band_widths
from femb.solvers.nonlinear.step_newton import DirectCorrection

if TYPE_CHECKING:
    from femb.solvers.dynamics.problem import DynamicProblem
    from femb.solvers.nonlinear.newton import NewtonSettings

_I64 = np.int64


def _force_blocks(problem: DynamicProblem) -> Optional[list[Any]]:
    """The element blocks with internal forces when all are 3-D beams of one property
    layout and every other block is inertia only; else None."""
    force = []
    for b in problem.table.blocks:
        if not getattr(b.spec, "internal_forces", True):
            continue
        if b.spec.kernels.midpoint_force is not midpoint_force_oriented or b.spec.kernels.midpoint_step is not None:
            return None
        force.append(b)
    if not force or len({b.props.shape[1] for b in force}) != 1:
        return None
    return force


def _joined(arrays: list[NDArray[Any]]) -> NDArray[Any]:
    """The arrays of the blocks joined along the element axis (the one array itself, not a
    copy, for a single block)."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


class SpatialSteps(WholeSteps):
    """Whole compiled mid-point steps of a qualifying 3-D beam model (module docstring).

    Build with ``SpatialSteps.build(problem, scheme, newton, solve_correction)`` (None when
    the model does not qualify); ``advance`` (WholeSteps) runs steps of the driver's time grid.
    ``scheme_type``: the scheme class whose steps it compiles."""

    scheme_type: type = MidPoint

    def __init__(self, problem: DynamicProblem, newton: NewtonSettings, blocks: list[Any], kl: int, ku: int) -> None:
        p, t = problem, problem.table
        self.p = p
        lay = p.rotary.layout
        row_of_node = np.full(lay.n_nodes, -1, dtype=_I64)
        row_of_node[lay.nodes] = np.arange(lay.n, dtype=_I64)
        crow = np.concatenate([row_of_node[b.cells] for b in blocks])
        self.ok = bool(np.all(crow >= 0))  # every beam node oriented
        self.elems = (_shared_floats(_joined([b.X for b in blocks])), _shared_floats(_joined([b.props for b in blocks])),
                      _shared_ints(_joined([b.var for b in blocks])), _shared_ints(_joined([b.pos for b in blocks]), INDEX), _ints(crow))
        rot = p.rotary
        rot3d = np.ascontiguousarray(p.rot3d, dtype=np.bool_)
        self.model = (_ints(t.eq_var), rot3d, _shared_ints(lay.nodes), _shared_ints(lay.var).reshape(-1, 3),
                      _shared_floats(rot.J0).reshape(-1, 3, 3), _shared_floats(rot.J0_pinv).reshape(-1, 3, 3),
                      _shared_ints(rot.pos, INDEX).reshape(-1, 3, 3), _shared_floats(p.reference_coordinates), rot3d.copy())
        M = p.M_full.tocsr()  # (its pattern as INDEX, int32, as the table's: shared, not copied to int64)
        self.mass = (_shared_ints(M.indptr, INDEX), _shared_ints(M.indices, INDEX), _shared_floats(M.data),
                     _shared_ints(p.mass_entries[0]), _shared_floats(p.mass_entries[1]),
                     *t.kernel_pattern(), int(kl), int(ku))
        index = [i for i, b in enumerate(t.blocks) if any(b is x for x in blocks)]
        chords = [p.chord_columns[i] for i in index]
        self.chords_ok = all(c[0] is None for c in chords) or all(
            c[0] is not None and np.array_equal(c[0][0], chords[0][0][0]) and np.array_equal(c[0][1], chords[0][0][1])
            for c in chords)
        if chords[0][0] is not None and self.chords_ok:
            self.chords = (True, _ints(chords[0][0][0]), _ints(chords[0][0][1]), _shared_floats(_joined([c[1] for c in chords])))
        else:
            self.chords = (False, np.zeros(0, dtype=_I64), np.zeros(0, dtype=_I64), np.zeros((0, 3)))
        self.f_const = _shared_floats(p.f_const)
        self.amplitudes = [amp for amp, _ in p._timed]
        self.timed = _floats(np.array([np.asarray(vec, dtype=np.float64) for _, vec in p._timed]).reshape(len(p._timed), t.n_var))
        # prescribed rotations (rows of the oriented nodes, their records) and the other
        # prescribed variables (as MidPoint3DSystem: those of the rotating nodes are replaced
        # by the node's Cayley increment)
        self.rot_records = lay.prescribed_records()
        self.prow = _ints([row for row, _ in self.rot_records])
        rot_vars = set(int(x) for x in lay.var[self.prow].ravel())
        self.records = [rec for _, rec in p.prescribed]
        pres_var, pres_rec = [], []
        for j, (vars_, _) in enumerate(p.prescribed):
            for x in np.atleast_1d(vars_):
                if int(x) not in rot_vars:
                    pres_var.append(int(x))
                    pres_rec.append(j)
        self.pres_var = _ints(pres_var)
        self.pres_rec = _ints(pres_rec)
        groups = [np.atleast_1d(vars_) for vars_, _ in p.prescribed]
        self.work_var = _ints(np.concatenate(groups)) if groups else np.zeros(0, dtype=_I64)
        self.work_ptr = _ints(np.concatenate([[0], np.cumsum([g.size for g in groups])]))
        self.fixed = _ints(t.fixed_vars)
        self.newton = newton
        nan = float("nan")
        self.param = np.array([newton.tolerance, nan if newton.absolute_tolerance is None else float(newton.absolute_tolerance),
                               newton.increment_tolerance, newton.divergence_factor, MidPoint3DSystem.noise_floor,
                               p.length_scale, np.inf])

    @classmethod
    def build(cls, problem: DynamicProblem, scheme: Any, newton: NewtonSettings,
              solve_correction: Optional[Any] = None) -> Optional[SpatialSteps]:
        """The compiled stepper of ``problem`` when the model qualifies (module docstring), else None."""
        p = problem
        if type(scheme) is not cls.scheme_type or not getattr(p, "oriented", False) or p.table.dim != 3 or p.table.n_eq == 0:
            return None
        if p.joints is not None or p.damping.active or p.variable_mass or p.point_inertia or newton.modified:
            return None
        if getattr(p, "offset_points", None) or p.loads.has_state_loads:
            return None
        if solve_correction is not None or "midpoint_force" in p.__dict__ or not np.all(p.rotary.owner):
            return None
        blocks = _force_blocks(p)
        if blocks is None:
            return None
        kl, ku = pattern_band_widths(p.table.indptr, p.table.indices)
        if kl + ku > DirectCorrection.band_limit:  # the general path's dense or sparse LU
            return None
        steps = cls(p, newton, blocks, kl, ku)
        return steps if steps.ok and steps.chords_ok else None

    def _prescribed(self, t1: list[float]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(values (k, m) of the prescribed translational variables, rotations R_p (k, q, 3, 3)
        of the nodes with prescribed rotations) at the step ends t1 (k,)."""
        p, k = self.p, len(t1)
        if self.records:
            values = np.array([[p.prescribed_value(rec, t) for rec in self.records] for t in t1]).reshape(k, len(self.records))
            vals = _floats(values[:, self.pres_rec])
        else:
            vals = np.zeros((k, 0))
        q = self.prow.size
        theta = np.zeros((k, q, 3))
        for j, t in enumerate(t1):
            for i, (_, items) in enumerate(self.rot_records):
                for comp, rec in items:
                    theta[j, i, comp] = p.prescribed_value(rec, t)
        Rp = np.empty((k * q, 3, 3))
        exp_batch(theta.reshape(k * q, 3), Rp)
        return vals, Rp.reshape(k, q, 3, 3)

    def _steps(self, state: State, hs: NDArray[np.float64], amps: NDArray[np.float64], t1: list[float],
               its: NDArray[np.int64], books: NDArray[np.float64]) -> tuple[int, NDArray[np.float64], NDArray[np.float64], dict]:
        """``beam3d_steps`` (WholeSteps._steps; State.extra: the nodal rotations R and the
        angular momenta π). The kernel writes each accepted state into u, v, R, π, which are
        also its start-of-step state: they are copies, so that the State given (the driver's,
        a scheme's kept state) stays as it was."""
        vals, Rp = self._prescribed(t1)
        u = np.array(state.u, dtype=np.float64)
        v = np.array(state.v, dtype=np.float64)
        R = np.array(state.extra["R"], dtype=np.float64)
        pi = np.array(state.extra["pi"], dtype=np.float64)
        done, _ = beam3d_steps(u, v, R, pi, hs, amps, self.timed, self.f_const, self.pres_var, vals, self.prow, Rp, self.work_var,
                               self.work_ptr, self.fixed, self.model, self.elems, self.mass, self.chords, self.param,
                               int(self.newton.max_iterations), its, books)
        return done, u, v, {"R": R, "pi": pi}
