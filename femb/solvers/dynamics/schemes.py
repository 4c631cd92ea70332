"""Time-integration schemes: the step systems that femb.solvers.nonlinear.step_newton iterates on.

Every scheme turns one time step t_n → t_n + h into a nonlinear system in the step
increment z (n_var,) of the variables and supplies the system's residual and Newton
matrix over the equations. Prescribed variables get their increment from their time
functions (set, never solved), fixed ones stay zero.

``MidPoint`` — the energy-conserving mid-point scheme (the default; Crisfield & Shi 1993,
Simo & Tarnow 1992; DESIGN §3.5)::

    u_{n+1} = u_n + z,          v_{n+1} = 2 z/h − v_n        (trapezoidal kinematics)
    f̄(u_n, u_{n+1}) + M (v_{n+1} − v_n)/h + C(u_m) z/h = f_ext(t_{n+½})

with f̄ the elements' discrete-gradient (``midpoint_force``) force, f̄·z = ΔV exactly.
Planar rotations use Cayley kinematics: their entry of z is τ = 2 tan(Δθ/2), so that
θ_{n+1} = θ_n + 2 atan(τ/2) and ω_{n+1} = 2τ/h − ω_n — the same algebra as translations.
Under a free rigid spin the chords (mid-point translations) and the nodal directors both
turn by exactly 2 atan(ωh/2) per step, so no spurious bending appears at any step size,
and the element moments conjugate to τ keep angular momentum exact. External moments on
rotational variables are applied as m·Δθ/τ (a discrete gradient of −m·θ), so constant
moments, e.g. from distributed loads on beams, conserve energy too. The Newton matrix is
∂f̄/∂z + 2M/h² + C/h (non-symmetric; the configuration dependence of C is left out).

Models with 3-D rotations (oriented nodes) take the energy-momentum step of
femb.solvers.dynamics.midpoint3d: Cayley vectors of the nodal rotation increments as unknowns,
Simo–Wong's rule for the rotary inertia, the oriented elements' discrete-gradient force.

``GeneralizedAlpha`` — Chung & Hulbert (1993) generalized-α with additive rotations and
the ordinary static internal force and tangent; ``Newmark`` (trapezoidal, β = ¼, γ = ½)
and ``HHT`` (Hilber–Hughes–Taylor α) are special cases. They are the baselines: they do
not conserve energy for nonlinear problems (the trapezoidal rule gains energy and locks
with stiff rotating members, HHT and generalized-α dissipate). Models with 3-D rotations
take the same parameters in the Lie-group generalized-α step of
femb.solvers.dynamics.alpha3d (Arnold & Brüls 2007, Brüls & Cardona 2010: R_{n+1} =
exp(θ̂) R_n, spatial Euler equations of the nodal rigid bodies at t_{n+1}, α-weights on
the accelerations).

Joints: a step system's ``constraints(z)`` returns (Φ, G, Ḡ) over the free equations and
the Newton loop eliminates the multipliers (femb.solvers.nonlinear.newton.projected_newton). The
mid-point systems use the exact discrete Jacobian (Ḡ·Δu = ΔΦ: reactions do no work); the
α systems are index 3 (Ḡ = G at u_{n+1}) with the reactions averaged like the forces g.
The constraint work of a step includes the joint reactions on the prescribed variables
(``joint_work``).

A step system provides ``z0`` (predictor), ``evaluate(z) -> (r, K, scale)`` over the
equations, ``apply(z, dz)``, ``limit(z, dz)`` (rotation-limited step length), ``step(z, dz)``
(both applied: the Newton loop's update), ``size(z)``
and ``finish(z) -> (State, energy terms)``. The Newton loop and the replaceable linear
solve of a correction live in femb.solvers.nonlinear.step_newton.
"""
from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from numpy.typing import NDArray

from femb.core.errors import InputError, ModelError
from femb.correlation.pattern import INDEX
from femb.solvers.dynamics import alpha3d
from femb.solvers.dynamics.midpoint2d_kernels import (
    cayley_configuration,
    cayley_correction,
    cayley_correction_chords,
    cayley_gather,
    midpoint_residual,
    scatter_midpoint_residual,
)
from femb.solvers.dynamics.midpoint3d import MidPoint3DSystem, initial_rotary_state
from femb.solvers.dynamics.rigid_step import RigidStepSystem, rigid_step_data
from femb.solvers.dynamics.step_system import State, _StepSystem, solve_free_acceleration
from femb.solvers.linalg.nullspace import ColumnBlock, SquareBlock
from femb.solvers.linalg.turn import chord_turn
from femb.solvers.nonlinear.norms import vector_norm
from femb.solvers.nonlinear.step_newton import DirectCorrection, iterate  # noqa: F401  (re-exported)

if TYPE_CHECKING:
    from femb.solvers.dynamics.problem import DynamicProblem


def _planar_constants(problem):
    """Constants of the planar mid-point steps of ``problem`` (cached on it): int64 index
    arrays (rotational variables, free equations, the full mass's CSR pattern) and work
    arrays (the mass part of the step matrix: ``_planar_step_mass``)."""
    c = problem.__dict__.get("_midpoint2d")
    M = problem.M_full
    if c is None or c["M"] is not M:
        rot = np.flatnonzero(problem.rot).astype(np.int64)
        ev = np.ascontiguousarray(problem.table.eq_var, dtype=np.int64)
        c = dict(M=M, rot=rot, ev=ev, indptr=M.indptr.astype(np.int64), indices=M.indices.astype(np.int64),
                 rot_eq_in_rot=np.searchsorted(rot, ev[problem.rot_eq]), a=np.empty(problem.table.n_var),
                 d=np.empty(problem.table.n_var), h=None, mass_data=None, block=None, chords=None)
        # a single planar element block with internal forces: its kernel is called directly
        # (midpoint2d_kernels.cayley_gather / scatter_midpoint_residual), not through the
        # problem's ElementLoop pass (unless midpoint_force is replaced on the problem)
        # (the blocks DynamicProblem.midpoint_force assembles: internal forces, no whole-step kernel)
        force_blocks = [b for b in problem.table.blocks if getattr(b.spec, "internal_forces", True)
                        and getattr(b.spec.kernels, "midpoint_step", None) is None]
        if len(force_blocks) == 1 and not force_blocks[0].spec.oriented and force_blocks[0].spec.kernels.midpoint_force is not None \
                and "midpoint_force" not in problem.__dict__:
            b = force_blocks[0]
            i = problem.table.blocks.index(b)
            buf = problem.assembler.loop.buffers[i]
            c["block"] = (b.spec.kernels.midpoint_force, b.X, b.props, np.ascontiguousarray(b.var, dtype=np.int64),
                          np.ascontiguousarray(b.pos, dtype=INDEX), np.zeros(b.var.shape), np.zeros(b.var.shape), buf.f, buf.K)
        # the element chords of the turn limit when one block has them (one compiled call)
        chords = [(b, tc, X21) for b, (tc, X21) in zip(problem.table.blocks, problem.chord_columns) if tc is not None]
        if len(chords) == 1:
            b, tc, X21 = chords[0]
            c["chords"] = (np.ascontiguousarray(b.var, dtype=np.int64), np.asarray(tc[0], dtype=np.int64),
                           np.asarray(tc[1], dtype=np.int64), np.ascontiguousarray(X21, dtype=np.float64))
        elif not chords:
            c["chords"] = ()
        problem._midpoint2d = c
    return c


def _planar_step_mass(problem, h):
    """The mass part (2/h²) M_eq.data (nnz,) of the planar step matrix for the step ``h``
    (cached with ``_planar_constants`` for the last h; the compiled planar steps scale
    M_eq.data inside the kernel and never make it)."""
    c = _planar_constants(problem)
    if c["h"] != h:
        c["h"], c["mass_data"] = h, (2.0 / (h * h)) * problem.mass_data
    return c["mass_data"]


def _kappa(tau):
    """κ(τ) = 2 atan(τ/2)/τ and κ'(τ) elementwise (series for small |τ|)."""
    tau = np.asarray(tau, dtype=np.float64)
    k = np.ones_like(tau)
    dk = np.zeros_like(tau)
    small = np.abs(tau) < 1e-2
    t2 = tau[small] ** 2
    k[small] = 1.0 - t2 / 12.0 + t2 * t2 / 80.0 - t2 ** 3 / 448.0
    dk[small] = tau[small] * (-1.0 / 6.0 + t2 / 20.0 - 3.0 * t2 * t2 / 224.0)
    big = ~small
    tb = tau[big]
    at = 2.0 * np.arctan(0.5 * tb)
    k[big] = at / tb
    dk[big] = (tb / (1.0 + 0.25 * tb * tb) - at) / (tb * tb)
    return k, dk


# --------------------------------------------------------------------------- energy-conserving mid-point
class MidPoint:
    """Energy-conserving mid-point scheme with Cayley planar rotations (module docstring)."""

    name = "midpoint"
    energy_conserving = True

    def start(self, problem: DynamicProblem, t0: float, u: NDArray[np.float64], v: NDArray[np.float64]) -> State:
        """The state at ``t0`` (with the nodal rotations and angular momenta of oriented models).
        Raises InputError naming the parts whose element type has no mid-point force."""
        variable = getattr(problem, "variable_mass", None)
        if variable:
            raise InputError("the energy-conserving mid-point scheme needs a constant mass; part(s) "
                             + ", ".join(map(repr, variable.parts())) + " have a configuration-dependent mass "
                             "(use Newmark, HHT or GeneralizedAlpha)")
        missing = [(b.part, b.spec.name) for b in problem.table.blocks
                   if b.spec.kernels.midpoint_force is None and b.spec.kernels.midpoint_step is None]
        if missing:
            raise InputError("the energy-conserving mid-point scheme needs each element type's mid-point "
                             "(discrete-gradient) force; none yet for "
                             + ", ".join(f"part {part!r} (element type {name!r})" for part, name in missing))
        if getattr(problem, "oriented", False):
            R, pi = initial_rotary_state(problem, u, v)
            extra = {"R": R, "pi": pi}
            if problem.point_inertia:  # mass points inside elements: their positions and velocities
                extra["points_x"], extra["points_v"] = problem.point_inertia.start(u, R, v)
            if problem.offset_points:  # mass points attached to nodes (offset mass centres)
                extra["offset_x"], extra["offset_v"] = problem.offset_points.start(u, R, v)
            return State(t0, u, v, extra=extra)
        if getattr(problem, "offset_points", None):  # planar mass points attached to nodes
            x, vp = problem.offset_points.start(u, v)
            return State(t0, u, v, extra={"offset_x": x, "offset_v": vp})
        return State(t0, u, v)

    def system(self, problem: DynamicProblem, state: State, h: float) -> Union[_StepSystem, RigidStepSystem]:
        """The nonlinear system of one step of size ``h`` from ``state`` (jointed rigid-body
        models: the compiled step of femb.solvers.dynamics.rigid_step unless the problem's
        ``compiled_rigid_step`` is False)."""
        if getattr(problem, "oriented", False):
            if getattr(problem, "compiled_rigid_step", True) and rigid_step_data(problem) is not None:
                return RigidStepSystem(problem, state, h)
            return MidPoint3DSystem(problem, state, h)
        return _MidPointSystem(problem, state, h)

    def describe(self) -> dict[str, Any]:
        """The scheme's name and parameters, for run records."""
        return {"scheme": self.name}


class _MidPointSystem(_StepSystem):
    """One step of the planar energy-conserving scheme.

    ``noise_floor``: relative residual accepted once Newton has stopped reducing it (three
    iterations without a 4× reduction; femb.solvers.nonlinear.step_newton.iterate and
    newton.projected_newton). Nearly force-free motions of stiff members have a force scale
    far below their inertia and element forces, so the default tolerance can sit under the
    round-off of the residual; the energy error of such a step stays below residual ×
    increment. With joints the projected Newton also accepts a state whose last correction
    was at round-off (the rounding of the absolute end-of-step positions times the member
    stiffness sets the residual's floor; femb.solvers.nonlinear.newton.projected_newton). The State of
    a step keeps the joint multipliers (``extra["multipliers"]``): a continued run starts its
    Newton curvature from them, as an uninterrupted one does.
    """

    noise_floor = 1e-10

    def __init__(self, problem, state, h):
        super().__init__(problem, state, h)
        t_m = state.t + 0.5 * h
        self.f_s = problem.scaled_loads(t_m) if problem._timed else None
        self.f_ext = problem.f_const if self.f_s is None else problem.f_const + self.f_s
        z = h * state.v
        rot = problem.rot
        if self.z_prescribed:
            for vars_, dz in self.z_prescribed:  # rotations: Cayley parameter of the increment
                r = rot[vars_]
                dz = dz.copy()
                dz[r] = 2.0 * np.tan(0.5 * dz[r])
                z[vars_] = dz
            self.z_prescribed = [(vars_, z[vars_].copy()) for vars_, _ in self.z_prescribed]
        self.z0 = self._impose(z)
        # per-problem constants (index arrays, the mass part of the step matrix for this h)
        self._c = c = _planar_constants(problem)
        self.rot_eq_in_rot = c["rot_eq_in_rot"]
        self.mass_data = _planar_step_mass(problem, h)
        self.damped = problem.damping.active
        self._r = self._r_norm = None

    def rotation_change(self, z, z_new):
        rot = self.p.rot
        return 2.0 * (np.arctan(0.5 * z_new[rot]) - np.arctan(0.5 * z[rot]))

    def configuration(self, z):
        """u_{n+1} (n_var,) of the increment z (rotations from their Cayley parameter)."""
        u1 = np.empty_like(self.s.u)
        cayley_configuration(self.s.u, z, self._c["rot"], u1)
        return u1

    def evaluate(self, z):
        p, h, c = self.p, self.h, self._c
        u0 = self.s.u
        fext = self.f_ext
        if p.rot_loaded:
            kap, dkap = _kappa(z[p.rot])
            fext = fext.copy()
            fext[p.rot] *= kap
        # R = f + M (2z/h² − 2v/h) − fext, r = R over the equations, K += 2M/h², force norms
        R = np.empty(u0.size)
        r = np.empty(c["ev"].size)
        u1 = np.empty_like(u0)
        block = c["block"]
        if block is not None:  # one planar block: its kernel called directly
            fn, X, props, var, pos, u0e, u1e, fe, ke = block
            cayley_gather(u0, z, c["rot"], u1, var, u0e, u1e)
            fn(X, u0e, u1e, props, fe, ke)
            f, K = p.force, p.K
            sf, si, se, sr = scatter_midpoint_residual(var, pos, fe, ke, f, K.data, z, self.s.v, 2.0 / (h * h), 2.0 / h, c["indptr"],
                                                   c["indices"], p.M_full.data, fext, c["ev"], self.mass_data, R, r)
        else:
            cayley_configuration(u0, z, c["rot"], u1)
            f, K = p.midpoint_force(u0, u1)
            sf, si, se, sr = midpoint_residual(f, z, self.s.v, 2.0 / (h * h), 2.0 / h, c["indptr"], c["indices"], p.M_full.data,
                                           fext, c["ev"], K.data, self.mass_data, R, r)
        data = K.data
        fd = None
        self._r, self._r_norm = r, math.sqrt(sr)
        if getattr(p, "offset_points", None):  # mass points attached to nodes (femb.solvers.dynamics.offset_points)
            fo = np.zeros(u0.size)
            p.offset_points.assemble(u0, u1, z, h, self.s, fo, data, self.s.t + 0.5 * h)
            R += fo
            r = R[self.eq_var]
            self._r, self._r_norm = r, math.sqrt(float(r @ r))
            sf += float(fo[self.eq_var] @ fo[self.eq_var])
        if self.damped:
            fd, Cd = p.damping.evaluate(0.5 * (u0 + u1), z / h)
            R += fd
            data += Cd / h
            r = R[self.eq_var]
        if p.rot_loaded and self.rot_eq_in_rot.size:  # d(f_ext,θ·κ(τ))/dτ on the free rotational equations
            data[p.diag_pos[p.rot_eq]] -= self.f_ext[p.rot][self.rot_eq_in_rot] * dkap[self.rot_eq_in_rot]
        self.last = dict(R=R, fd=fd, u1=u1, z=z)
        scale = max(math.sqrt(sf), math.sqrt(si), math.sqrt(se), 1e-300)
        return r, K, scale

    def residual_norm(self, r):
        """‖r‖ of the residual of the last ``evaluate`` (summed there), else vector_norm."""
        return self._r_norm if r is self._r else vector_norm(r)

    def step(self, z, dz):
        """The correction dz (n_eq,) applied to z, scaled down when it would turn a nodal
        rotation or an element chord by more than ``max_turn`` (as ``limit`` + ``apply``):
        (z_new, the applied correction)."""
        c = self._c
        z_new = np.empty_like(z)
        a, d = c["a"], c["d"]
        cap = self.p.max_turn
        chords = c["chords"]
        if chords and cap and cap < np.inf:  # one block with chords: one call
            turn = cayley_correction_chords(self.s.u, z, dz, c["ev"], c["rot"], z_new, a, d, *chords)
        else:
            turn = cayley_correction(self.s.u, z, dz, c["ev"], c["rot"], z_new, a, d)
            if not cap or not np.isfinite(cap):
                return z_new, dz
            if chords is None:
                for b, (tc, X21) in zip(self.p.table.blocks, self.p.chord_columns):
                    if tc is not None:
                        turn = max(turn, chord_turn(b.var, tc[0], tc[1], X21, a, d))
        if turn <= cap:
            return z_new, dz
        dz = dz * (cap / turn)
        return self.apply(z, dz), dz

    def _joint_equations(self, z):
        """Joint equations of the step at the increment z:
        (Φ(u_{n+1}) (m,), G = ∂Φ(u_{n+1})/∂z, Ḡ) over the free equations, with the exact
        discrete Jacobian Ḡ of ConstraintSet.midpoint_jacobian: Ḡ·Δu = ΔΦ exactly (the
        Jacobian at the mid-point for the at most quadratic translational kinds, the
        sinc-corrected one for rotating body-point offsets), so the reactions Ḡᵀλ do no
        work over the step. Rotational columns carry the Cayley chain factors (dθ/dτ for
        G, Δθ/τ for Ḡ)."""
        p = self.p
        u1 = self.configuration(z)
        phi, G, Gbar, cols = p.joint_blocks(u1, self.t1, u0=self.s.u)  # dense over the jointed variables
        rot = p.rot[cols]
        if rot.any():
            tau = z[cols[rot]]
            kap, _ = _kappa(tau)
            G, Gbar = G.copy(), Gbar.copy()
            G[:, rot] *= 1.0 / (1.0 + 0.25 * tau * tau)
            Gbar[:, rot] *= kap
        self.Gbar_full = ColumnBlock(Gbar, cols, p.table.n_var)
        pick, eqs = p.joint_equations(cols)
        n_eq = self.eq_var.size
        return phi, ColumnBlock(G[:, pick], eqs, n_eq), ColumnBlock(Gbar[:, pick], eqs, n_eq)

    def constraint_stiffness(self, multipliers):
        """∂(Ḡᵀλ)/∂z over the free equations: half the joints' curvature (Ḡ is taken at the
        mid-point) for the current multipliers (a SquareBlock over the jointed equations)."""
        H, cols = self.p.joint_stiffness_block(multipliers)
        pick, eqs = self.p.joint_equations(cols)
        return SquareBlock(0.5 * H[np.ix_(pick, pick)], eqs, self.eq_var.size)

    def finish(self, z):
        """New state and the step's energy terms after convergence at z (the joint
        multipliers of the accepted state, ``self.multipliers``, enter the constraint work)."""
        u1 = self.last["u1"] if self.last.get("z") is z else self.configuration(z)
        v1 = (2.0 / self.h) * z - self.s.v
        R, fd = self.last["R"], self.last["fd"]
        terms = dict(work=0.0 if self.f_s is None else float(self.f_s @ (u1 - self.s.u)), dissipated=0.0 if fd is None else float(fd @ z),
                     constraint=self.prescribed_work(R, z) + self.joint_work(z, self.multipliers))
        extra = {} if self.multipliers is None else {"multipliers": np.asarray(self.multipliers, dtype=np.float64)}
        if getattr(self.p, "offset_points", None):
            extra["offset_x"], extra["offset_v"] = self.p.offset_points.finish(self.s, u1, self.h)
            terms["work"] += self.p.offset_points.gravity_work(self.s, extra["offset_x"], self.s.t + 0.5 * self.h)
        return State(self.t1, u1, v1, extra=extra), terms


# --------------------------------------------------------------------------- generalized-α family
class GeneralizedAlpha:
    """Generalized-α scheme (Chung & Hulbert 1993) in the form

        (1−α_m) M a_{n+1} + α_m M a_n + (1−α_f) g(u_{n+1}, v_{n+1}) + α_f g(u_n, v_n)
            = (1−α_f) f_ext(t_{n+1}) + α_f f_ext(t_n),       g = f_int + C v,

    with Newmark's u_{n+1} = u_n + h v_n + h²((½−β) a_n + β a_{n+1}) and
    v_{n+1} = v_n + h((1−γ) a_n + γ a_{n+1}). Given ``rho_inf`` (spectral radius at
    infinite frequency, 0..1): α_m = (2ρ−1)/(ρ+1), α_f = ρ/(ρ+1), γ = ½ − α_m + α_f,
    β = ¼(1 − α_m + α_f)². Needs the initial acceleration, solved from M a_0 = f_ext −
    f_int − C v_0 (a non-singular mass on the free DOFs).

    Models with 3-D rotations (oriented nodes: beam3d, shells, rigid_body3d) use the same
    parameters in the Lie-group form of femb.solvers.dynamics.alpha3d (Arnold & Brüls
    2007): R_{n+1} = exp(θ̂) R_n with the spatial rotation vector θ of the increment,
    equilibrium (spatial Euler equations for the nodal rotary inertia) at t_{n+1}, and
    (1 − α_m) a_{n+1} + α_m a_n = (1 − α_f) v̇_{n+1} + α_f v̇_n between the
    pseudo-acceleration a and the true one v̇; equal spectral properties on linear
    problems, second order.
    """

    energy_conserving = False

    def __init__(self, rho_inf: float = 0.8, alpha_m: Optional[float] = None, alpha_f: Optional[float] = None,
                 beta: Optional[float] = None, gamma: Optional[float] = None, name: str = "generalized-alpha") -> None:
        if alpha_m is None or alpha_f is None:
            rho = float(rho_inf)
            if not 0.0 <= rho <= 1.0:
                raise ValueError(f"rho_inf must lie in [0, 1], got {rho}")
            alpha_m = (2.0 * rho - 1.0) / (rho + 1.0)
            alpha_f = rho / (rho + 1.0)
        self.alpha_m = float(alpha_m)
        self.alpha_f = float(alpha_f)
        self.gamma = 0.5 - self.alpha_m + self.alpha_f if gamma is None else float(gamma)
        self.beta = 0.25 * (1.0 - self.alpha_m + self.alpha_f) ** 2 if beta is None else float(beta)
        self.name = name

    def describe(self) -> dict[str, Any]:
        """The scheme's name and parameters, for run records."""
        return {"scheme": self.name, "alpha_m": self.alpha_m, "alpha_f": self.alpha_f, "beta": self.beta, "gamma": self.gamma}

    def start(self, problem: DynamicProblem, t0: float, u: NDArray[np.float64], v: NDArray[np.float64]) -> State:
        """State at t0 with the initial acceleration of the free DOFs (prescribed DOFs:
        second difference of their functions)."""
        points = getattr(problem, "point_inertia", None)
        if points:
            raise InputError(f"the {self.name} scheme does not integrate elements that carry their inertia as mass points "
                             f"(superelement part(s) {', '.join(map(repr, points.parts()))}); use the energy-conserving "
                             "mid-point scheme (scheme 'midpoint', the default)")
        offset = getattr(problem, "offset_points", None)
        if getattr(problem, "oriented", False):
            return alpha3d.start(self, problem, t0, u, v)
        tab = problem.table
        a = np.zeros(tab.n_var)
        h = 1e-3 * problem.dt_hint
        for vars_, rec in problem.prescribed:
            if rec.function is not None:
                a[vars_] = (rec.function(t0 + h) - 2.0 * rec.function(t0) + rec.function(t0 - h)) / (h * h)
        g = problem.assembler.internal_force(u)
        fd = None
        if problem.damping.active:
            fd = problem.damping.evaluate(u, v)[0]
            g = g + fd
        vm = problem.alpha_mass
        M = problem.M_eq
        inert = problem.M_full @ a
        if vm:  # configuration-dependent masses: M(u0), h(u0, v0) join
            Ma, h0 = vm.evaluate(u, v, a, t=t0)
            g = g + h0
            inert = inert + Ma
            M = tab.csr(problem.M_eq.data + vm.mass_data(u))
        rhs = problem.f_const + problem.scaled_loads(t0) - g - inert
        lam = None
        if tab.n_eq and problem.joints is not None:
            lam, G = self._constrained_acceleration(problem, t0, v, a, rhs, M,
                                                    lambda eps, t: problem.joint_state(u + eps * v, t))
            g = g + G.T @ lam  # joint reactions are part of the force g the α-averaging carries
        elif tab.n_eq:
            solve_free_acceleration(self.name, M, tab, rhs, a)
        Ma = vm.evaluate(u, v, a, t=t0)[0] if vm else None
        extra = {"reaction": self._reaction(problem, t0, g, a, Ma), "fd": fd, "lam": lam}
        if offset:  # positions and velocities of the offset mass points, for the energy account
            extra["offset_x"], extra["offset_v"] = offset.start(u, v)
        return State(t0, u, v, a=a, g=g, extra=extra)

    def _constrained_acceleration(self, problem, t0, v, a, rhs, M_eq, joint_at):
        """Initial acceleration of the free DOFs (set in ``a``, whose prescribed entries are
        given) and joint multipliers λ0 from [M Gᵀ; G 0] [a; λ] = [rhs; −c] over the free
        equations (M_eq: the mass over the equations, CSR), c = G_p a_p + Ġ v + Φ_tt the
        rest of Φ̈ (Ġ v by a central difference of G along the motion, Φ_tt by a second
        difference in time at fixed configuration); ``joint_at(eps, t) -> (Φ, G)`` gives
        the joints at the initial state moved by eps (time) along its velocity; returns
        (λ0, G (CSR, rows × n_var))."""
        tab = problem.table
        ev = tab.eq_var
        phi, G = joint_at(0.0, t0)
        speed = float(np.linalg.norm(v))
        c = G @ a  # prescribed accelerations (free entries of a are still zero)
        if speed > 0:
            eps = 1e-5 * problem.length_scale / speed
            Gp = joint_at(eps, t0)[1]
            Gm = joint_at(-eps, t0)[1]
            c += (Gp - Gm) @ v / (2.0 * eps)
        dt = problem.dt_hint
        c += (joint_at(0.0, t0 + dt)[0] - 2.0 * phi + joint_at(0.0, t0 - dt)[0]) / (dt * dt)
        Gf = G.tocsc()[:, ev]
        m = G.shape[0]
        A = sp.bmat([[M_eq, Gf.T], [Gf, None]], format="csc")
        with warnings.catch_warnings():
            warnings.simplefilter("error", spla.MatrixRankWarning)
            try:
                x = spla.spsolve(A, np.concatenate([rhs[ev], -c]))
            except spla.MatrixRankWarning:
                x = np.full(A.shape[0], np.nan)
        if not np.all(np.isfinite(x)):
            raise ModelError(f"{self.name}: the initial acceleration of the jointed model is singular (a free DOF "
                             "without inertia that the joints do not hold)")
        a[ev] = x[: ev.size]
        return x[ev.size: ev.size + m], G

    def _reaction(self, problem, t, g, a, Ma=None):
        """Generalized reactions (n_var,) g + M a (+ M(u) a of variable masses) − f_ext."""
        out = g + problem.M_full @ a - problem.f_const - problem.scaled_loads(t)
        return out if Ma is None else out + Ma

    def system(self, problem: DynamicProblem, state: State, h: float) -> _StepSystem:
        """The nonlinear system of one step of size ``h`` from ``state`` (oriented models:
        the Lie-group step of femb.solvers.dynamics.alpha3d)."""
        if getattr(problem, "oriented", False):
            return alpha3d.AlphaLie3DSystem(self, problem, state, h)
        return _AlphaSystem(self, problem, state, h)


def Newmark(beta: float = 0.25, gamma: float = 0.5) -> GeneralizedAlpha:
    """Newmark's scheme (default: trapezoidal rule, average acceleration), end-point
    equilibrium: ``GeneralizedAlpha`` with α_m = α_f = 0 (planar and 3-D models; β, γ
    dimensionless)."""
    return GeneralizedAlpha(alpha_m=0.0, alpha_f=0.0, beta=beta, gamma=gamma, name="newmark")


def HHT(alpha: float = -0.05) -> GeneralizedAlpha:
    """Hilber–Hughes–Taylor α method, α ∈ [−1/3, 0] (α = 0: trapezoidal rule):
    ``GeneralizedAlpha`` with α_m = 0, α_f = −α, β = ¼(1 − α)², γ = ½ − α; spectral
    radius at infinite frequency (1 + α)/(1 − α) (planar and 3-D models)."""
    if not -1.0 / 3.0 <= alpha <= 0.0:
        raise ValueError(f"HHT alpha must lie in [-1/3, 0], got {alpha}")
    return GeneralizedAlpha(alpha_m=0.0, alpha_f=-alpha, beta=0.25 * (1.0 - alpha) ** 2, gamma=0.5 - alpha, name="hht")


class _AlphaSystem(_StepSystem):
    def __init__(self, scheme, problem, state, h):
        super().__init__(problem, state, h)
        self.sc = scheme
        self.fe0 = problem.f_const + problem.scaled_loads(state.t)
        self.fe1 = problem.f_const + problem.scaled_loads(self.t1)
        self.z0 = self._impose(h * state.v + 0.5 * h * h * state.a)
        if problem.alpha_mass and scheme.alpha_f:
            self.vm_M0 = problem.alpha_mass.mass_data(state.u)  # M(u_n) of the configuration-dependent inertia

    def kinematics(self, z):
        sc, h, s = self.sc, self.h, self.s
        a1 = (z - h * s.v - h * h * (0.5 - sc.beta) * s.a) / (sc.beta * h * h)
        v1 = s.v + h * ((1.0 - sc.gamma) * s.a + sc.gamma * a1)
        return a1, v1

    def evaluate(self, z):
        p, sc, h, s = self.p, self.sc, self.h, self.s
        am, af = sc.alpha_m, sc.alpha_f
        u1 = s.u + z
        a1, v1 = self.kinematics(z)
        f1, K = p.tangent(u1)
        g1 = f1.copy()
        fd = None
        data = K.data
        data *= 1.0 - af
        data += (1.0 - am) / (sc.beta * h * h) * p.mass_data
        if p.damping.active:
            fd, Cd = p.damping.evaluate(u1, v1)
            g1 += fd
            data += (1.0 - af) * sc.gamma / (sc.beta * h) * Cd
        inert = p.M_full @ ((1.0 - am) * a1 + am * s.a)
        if p.alpha_mass:
            # configuration-dependent masses: [(1 − α_f) M(u_{n+1}) + α_f M(u_n)] ā with
            # ā = (1 − α_m) a_{n+1} + α_m a_n ≈ ü(t_{n+1−α_f}) (the time of the weighted
            # forces, to which h(u, v) joins through g), with the derivatives
            vm, abar, c = p.alpha_mass, (1.0 - am) * a1 + am * s.a, (1.0 - am) / (sc.beta * h * h)
            Ma1, h1 = vm.evaluate(u1, v1, abar, c_a=((1.0 - af) * c, 1.0 - af),
                                  c_v=(1.0 - af, (1.0 - af) * sc.gamma / (sc.beta * h)), data=data, t=self.t1)
            g1 += h1
            inert += (1.0 - af) * Ma1
            if af:
                inert += af * vm.evaluate(s.u, s.v, abar)[0]
                data += (af * c) * self.vm_M0
        fext = (1.0 - af) * self.fe1 + af * self.fe0
        R = inert + (1.0 - af) * g1 + af * s.g - fext
        self.last = dict(g1=g1, a1=a1, v1=v1, fd=fd)
        ev = self.eq_var
        scale = max(vector_norm(g1[ev]), vector_norm(inert[ev]), vector_norm(fext[ev]), 1e-300)
        return R[ev], K, scale

    def constraints(self, z):
        """Joint equations at the end of the step (index 3), or None without joints:
        (Φ(u_{n+1}), G, G) over the free equations with G = ∂Φ(u_{n+1})/∂u. The
        multipliers eliminated by the projection are (1 − α_f) λ_{n+1}: the reactions
        Gᵀλ are averaged over the step like the other forces g."""
        p = self.p
        if p.joints is None:
            return None
        phi, G = p.joint_state(self.s.u + z, self.t1)
        self.G1 = G.tocsr()
        Gf = G.tocsc()[:, self.eq_var].tocsr()
        return phi, Gf, Gf

    def constraint_stiffness(self, multipliers):
        """∂(G(u_{n+1})ᵀλ̃)/∂z over the free equations for the eliminated multipliers λ̃."""
        ev = self.eq_var
        return self.p.joint_stiffness(multipliers)[ev][:, ev]

    def finish(self, z):
        p, s = self.p, self.s
        g1, a1, v1, fd1 = self.last["g1"], self.last["a1"], self.last["v1"], self.last["fd"]
        rheonomic = 0.0
        if self.multipliers is not None and getattr(self, "G1", None) is not None:
            self.multipliers = np.asarray(self.multipliers) / (1.0 - self.sc.alpha_f)  # λ_{n+1}
            g1 = g1 + self.G1.T @ self.multipliers
            lam0 = s.extra.get("lam")
            if lam0 is not None:  # work of time-dependent joints, λ̄·ΔΦ_t (zero for the others)
                dphi_t = p.joint_state(s.u, self.t1)[0] - p.joint_state(s.u, s.t)[0]
                rheonomic = 0.5 * float((lam0 + self.multipliers) @ dphi_t)
        u1 = s.u + z
        Ma1 = p.alpha_mass.evaluate(u1, v1, a1, t=self.t1)[0] if p.alpha_mass else None
        reaction = self.sc._reaction(p, self.t1, g1, a1, Ma1)
        fs0, fs1 = self.fe0 - p.f_const, self.fe1 - p.f_const
        fd0 = s.extra.get("fd")
        terms = dict(work=0.5 * float((fs0 + fs1) @ z),
                     dissipated=0.0 if fd1 is None else 0.5 * float((fd0 + fd1) @ z),
                     constraint=self.prescribed_work(0.5 * (s.extra["reaction"] + reaction), z) + rheonomic)
        extra = {"reaction": reaction, "fd": fd1, "lam": self.multipliers}
        if p.offset_points:  # the offset mass points follow their nodes rigidly
            extra["offset_x"], extra["offset_v"] = p.offset_points.start(u1, v1)
            terms["work"] += p.offset_points.gravity_work(s, extra["offset_x"], s.t + 0.5 * self.h)
        return State(self.t1, u1, v1, a=a1, g=g1, extra=extra), terms


SCHEMES = {
    "midpoint": MidPoint,
    "energy": MidPoint,
    "newmark": Newmark,
    "trapezoidal": Newmark,
    "hht": HHT,
    "generalized-alpha": GeneralizedAlpha,
    "genalpha": GeneralizedAlpha,
}


def make_scheme(scheme):
    """A scheme object from a name (see SCHEMES) or an instance (returned as is)."""
    if scheme is None:
        return MidPoint()
    if isinstance(scheme, str):
        try:
            return SCHEMES[scheme.lower()]()
        except KeyError:
            raise ValueError(f"unknown time-integration scheme {scheme!r}; known: {', '.join(sorted(SCHEMES))}") from None
    return scheme


__all__ = ["MidPoint", "GeneralizedAlpha", "Newmark", "HHT", "DirectCorrection", "iterate", "make_scheme", "State"]
