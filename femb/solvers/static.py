"""Nonlinear statics: Newton–Raphson with load stepping, line search and cut-back.

All loads that are not ``constant`` are multiplied by the load factor λ, prescribed DOFs
take ``value·λ``; constant loads act in full from the first increment.

Models with oriented nodes (3-D rotations, e.g. beam3d) are solved for a Configuration
(u, R) (femb.solvers.configuration): rotational corrections are spatial spins applied
multiplicatively, R ← exp(δŵ) R, and the rotational slots of u hold log R. Other models
keep a plain variable vector u as state. Prescribed rotations at oriented nodes are
rotations about a global axis, R = exp(λ θ̂_p).
"""
import logging

import numpy as np

from femb.assembly import Assembler, LoadAssembler
from femb.assembly.constraints import ConstraintSet
from femb.core.errors import ConvergenceError
from femb.correlation import build_table
from femb.results import Results
from femb.solvers.configuration import Configuration, RotationLayout, split_state
from femb.solvers.linear import SingularSystemError
from femb.solvers.newton import NewtonSettings, newton, worst_dofs
from femb.solvers.nullspace import check_redundancy

log = logging.getLogger(__name__)


def length_scale(model):
    """A characteristic length of the model: the larger of its bounding-box diagonal and
    the sizes its joints mention (1 when the model has no extent at all, e.g. one node)."""
    lo, hi = model.mesh.bounding_box()
    sizes = [float(np.linalg.norm(hi - lo)), float(np.abs(model.mesh.points).max(initial=0.0))]
    for joint in model.joints:
        if joint.length is not None:
            sizes.append(float(joint.length))
        if joint.point is not None:
            sizes.append(float(np.linalg.norm(joint.point)))
    scale = max(sizes)
    return scale if scale > 0.0 else 1.0


class StaticProblem:
    """The discrete static equations f_int(u, R) = λ·f_ref + f_const (+ rotation-dependent
    moments) of a model.

    Holds the table, assembler and load vectors; ``system(lam)`` returns the Newton system
    for one load factor. Reused by the arc-length, buckling and modal solvers.

    States are plain variable vectors u (n_var,), or Configurations (u, R) when the model
    has oriented nodes (``oriented`` True); the methods taking a ``state`` accept both.
    """

    def __init__(self, model, table=None, include_geometric=True, mass_kind=0):
        self.model = model
        self.table = table if table is not None else build_table(model)
        self.assembler = Assembler(self.table)
        self.loads = LoadAssembler(model, self.table, self.assembler, mass_kind=mass_kind)
        self.f_ref = self.loads.scaled()
        self.f_const = self.loads.constant()
        self.include_geometric = include_geometric
        self.length_scale = length_scale(model)
        self.rotations = RotationLayout(self.table)
        self.oriented = self.assembler.oriented and self.rotations.n > 0
        self.joints = None
        if model.joints:
            self.joints = ConstraintSet(model, self.table)
            u0 = self.apply_prescribed(np.zeros(self.table.n_var), 0.0)
            G0 = self.joints.evaluate(u0, 0.0)[1][:, self.table.eq_var]
            self.active_rows = check_redundancy(G0, self.joints, model.redundant_constraints)

    # ------------------------------------------------------------------ states
    def initial_state(self, u0=None):
        """The start state: u0 (default zeros) as a vector, or for oriented models a
        Configuration (R = I, or exp of the rotation vectors in ``u0``; a Configuration
        passed as ``u0`` is copied)."""
        if isinstance(u0, Configuration):
            return u0.copy()
        u = np.zeros(self.table.n_var) if u0 is None else np.array(u0, dtype=np.float64)
        if not self.oriented:
            return u
        return Configuration.from_vector(self.rotations, u)

    def state_of(self, results, frame=-1):
        """The state of a recorded frame of ``results``: its u, and for oriented models the
        Configuration with the recorded rotations (exp of the rotation vectors when the
        frame has none)."""
        u = np.array(results.states[frame], dtype=np.float64)
        if not self.oriented:
            return u
        rots = results.arrays.get("rotations")
        if rots is not None and len(rots) == len(results.states):
            return Configuration(u, np.array(rots[frame], dtype=np.float64), self.rotations)
        return Configuration.from_vector(self.rotations, u)

    def internal_force(self, state):
        """Internal force (n_var,) of a state."""
        u, R = split_state(state)
        return self.assembler.internal_force(u, R=R)

    def strain_energy(self, state):
        u, R = split_state(state)
        return self.assembler.strain_energy(u, R=R)

    def load_stiffness(self, state, lam):
        """Load stiffness (CSR over equations) of the rotation-dependent moments at load
        factor λ, or None."""
        if not self.loads.has_moment_loads:
            return None
        return self.loads.moment_stiffness(split_state(state)[1], lam)

    @property
    def constraint_rows(self):
        """Joint name of each active constraint row (empty without joints)."""
        return [] if self.joints is None else [self.joints.row_joint[i] for i in self.active_rows]

    def constraint_stiffness(self, multipliers):
        """Σ λ_i ∇²Φ_i over the free equations (CSR) for multipliers of the active rows."""
        lam = np.zeros(self.joints.m)
        lam[self.active_rows] = multipliers
        eq = self.table.eq_var
        return self.joints.hessian_term(lam)[eq][:, eq]

    def constraints(self, state, t):
        """(Φ, G over free equations) of the active joint rows at a state, or None (joints
        act on translations only)."""
        if self.joints is None:
            return None
        phi, G = self.joints.evaluate(split_state(state)[0], t)
        return phi[self.active_rows], G[self.active_rows][:, self.table.eq_var]

    def apply_prescribed(self, state, lam):
        """Set the prescribed DOFs of a state (in place) to their values at load factor λ;
        prescribed rotations of oriented nodes set R = exp(λ θ̂_p)."""
        u, R = split_state(state)
        for vars_, rec in self.table.prescribed:
            u[vars_] = rec.value * lam
        if R is not None:
            self.rotations.set_prescribed(u, R, lam)
        return state

    def external(self, lam, state=None):
        """External generalized forces (n_var,) at load factor λ; the rotation-dependent
        moments are evaluated at the rotations of ``state`` (reference when None)."""
        out = lam * self.f_ref + self.f_const
        if self.loads.has_moment_loads:
            out = out + self.loads.moments(None if state is None else split_state(state)[1], lam)
        return out

    def reactions(self, state, lam, multipliers=None):
        """Reaction forces on the constrained variables (table.constrained_vars): what the
        supports must apply besides the loads and the joint forces Gᵀλ."""
        f = self.internal_force(state) - self.external(lam, state)
        if multipliers is not None and self.joints is not None:
            G = self.joints.evaluate(split_state(state)[0], lam)[1][self.active_rows]
            f = f + G.T @ multipliers
        return f[self.table.constrained_vars]

    def system(self, lam):
        return _StaticSystem(self, lam)


class _StaticSystem:
    """Newton system of StaticProblem at a fixed load factor; states are vectors u or
    Configurations (u, R)."""

    def __init__(self, problem, lam):
        self.p = problem
        self.lam = lam
        self.f_ext = problem.external(lam)
        self.moments = problem.loads.has_moment_loads
        self.length_scale = problem.length_scale

    def constraints(self, x):
        out = self.p.constraints(x, self.lam)
        return None if out is None else (out[0], out[1], None)

    def constraint_stiffness(self, multipliers):
        return self.p.constraint_stiffness(multipliers)

    def _f_ext(self, x):
        return self.p.external(self.lam, x) if self.moments else self.f_ext

    @staticmethod
    def _scale(f_int, f_ext):
        return max(float(np.linalg.norm(f_ext)), float(np.linalg.norm(f_int)), 1e-300)

    def residual(self, x):
        f, f_ext = self.p.internal_force(x), self._f_ext(x)
        return self.p.table.free(f - f_ext), self._scale(f, f_ext)

    def residual_and_tangent(self, x):
        u, R = split_state(x)
        f, K = self.p.assembler.tangent(u, include_geometric=self.p.include_geometric, R=R)
        f_ext = self._f_ext(x)
        if self.moments:
            K = K + self.p.load_stiffness(x, self.lam)
        return self.p.table.free(f - f_ext), K, self._scale(f, f_ext)

    def apply(self, x, dx):
        """New state after the correction dx (n_eq,) (multiplicative for rotations)."""
        if isinstance(x, Configuration):
            return x.apply(dx)
        out = x.copy()
        out[self.p.table.eq_var] += dx
        return out

    @staticmethod
    def norm(x):
        """Size of a state for the relative increment test."""
        return x.norm() if isinstance(x, Configuration) else float(np.linalg.norm(x))


def _load_factors(steps, load_factors):
    if load_factors is not None:
        lf = np.asarray(load_factors, dtype=np.float64).ravel()
        if lf.size == 0 or np.any(~np.isfinite(lf)):
            raise ValueError("load_factors must be a non-empty sequence of finite numbers")
        return lf
    if int(steps) < 1:
        raise ValueError(f"steps must be >= 1, got {steps}")
    return np.linspace(1.0 / steps, 1.0, int(steps))


def solve_static(model, steps=10, load_factors=None, settings=None, table=None, include_geometric=True, u0=None, problem=None, on_frame=None):
    """Solve the nonlinear static equilibrium of ``model`` along a load path.

    Parameters
    ----------
    model : femb.model.Model
    steps : int
        Equal load increments up to λ = 1 (ignored when ``load_factors`` is given).
    load_factors : sequence of float, optional
        The load factors at which converged states are wanted (frames are recorded there).
    settings : NewtonSettings, optional
    include_geometric : bool
        Keep the geometric stiffness in the tangent (switch off only for studies).
    u0 : (n_var,) array or Configuration, optional
        Start state (default: the undeformed configuration; for oriented models the
        rotational slots of a vector are rotation vectors, R = exp(θ̂)).
    on_frame : callable, optional
        ``on_frame(results)`` after every recorded frame (writers, progress bars), so a
        run that is stopped keeps everything converged so far.

    Returns
    -------
    Results with one frame per requested load factor (frame 0 is the start state, λ = 0)
    and histories ``load_factor``, ``iterations``, ``residual``, ``constraint_residual``,
    ``strain_energy``; per-frame arrays ``reactions`` over ``table.constrained_vars`` and
    ``multipliers`` (joint reactions, one per row of ``results.info["constraint_rows"]``);
    models with oriented nodes also record ``rotations`` (n_nodes, 3, 3) per frame
    (``results.nodal_rotation_matrices(frame)``) and their frames' u hold log R in the
    rotational slots; ``problem.state_of(results, frame)`` rebuilds the Configuration of a
    frame (a start state for continuation or modal analysis).

    Raises
    ------
    ConvergenceError after ``settings.max_cutbacks`` halvings of an increment (its
    ``results`` keep every converged frame); SingularSystemError for a mechanism.
    """
    settings = settings or NewtonSettings()
    prob = problem or StaticProblem(model, table, include_geometric)
    targets = _load_factors(steps, load_factors)
    t = prob.table
    x = prob.initial_state(u0)
    res = Results(t, "static", model)
    res.info.update(n_equations=t.n_eq, n_variables=t.n_var, nnz=t.nnz, constraint_rows=prob.constraint_rows)
    lam = 0.0
    prob.apply_prescribed(x, lam)

    def frame_arrays(x, lam, mult):
        out = {"reactions": prob.reactions(x, lam, mult), "multipliers": np.zeros(0) if mult is None else mult}
        if isinstance(x, Configuration):
            out["rotations"] = x.R
        return out

    def record(x, lam, **scalars):
        u = split_state(x)[0]
        res.record(lam, u, load_factor=lam, strain_energy=prob.strain_energy(x), arrays=frame_arrays(x, lam, scalars.pop("mult")), **scalars)

    record(x, lam, iterations=0, residual=0.0, mult=None)
    notify = on_frame or (lambda results: None)
    notify(res)
    total_iterations = 0
    for target in targets:
        step = target - lam
        cuts = 0
        while lam != target:
            trial_lam = target if abs(target - lam) <= abs(step) * (1 + 1e-12) else lam + step
            trial = prob.apply_prescribed(x.copy(), trial_lam)
            try:
                report = newton(prob.system(trial_lam), trial, settings, t)
            except SingularSystemError:
                if len(res) == 1 and lam == 0.0 and cuts == 0:
                    raise
                report = None
            if report is not None and report.converged:
                x = report.state
                lam = trial_lam
                total_iterations += report.iterations
                if report.iterations <= 4 and cuts:
                    step *= 2.0
                    cuts = max(cuts - 1, 0)
                last_report = report
                continue
            cuts += 1
            if cuts > settings.max_cutbacks:
                hist = report.residual_history if report else []
                worst = worst_dofs(report.last_residual, t) if report else []
                reason = report.reason if report else "singular tangent"
                raise ConvergenceError(
                    f"static solve failed between load factors {lam:.6g} and {trial_lam:.6g} after {settings.max_cutbacks} cut-backs ({reason})",
                    hist, worst, res, load=trial_lam,
                )
            step *= 0.5
            log.info("cut back: load increment halved to %.3e at λ = %.6g", step, lam)
        record(x, lam, iterations=last_report.iterations, residual=last_report.residual_history[-1],
               constraint_residual=last_report.constraint_residual, mult=last_report.multipliers)
        notify(res)
    res.info["newton_iterations"] = total_iterations
    return res

