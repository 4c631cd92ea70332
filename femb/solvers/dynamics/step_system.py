"""The common part of every time-step system: the dynamic State and the _StepSystem base
(prescribed increments, predictor, apply, size) that the integration schemes of
femb.solvers.dynamics.schemes and the 3-D mid-point system of
femb.solvers.dynamics.midpoint3d extend."""
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from femb.core.errors import FembError, ModelError
from femb.solvers.linalg.factorization import Factorization
from femb.solvers.linalg.turn import chord_turn
from femb.solvers.nonlinear.norms import vector_norm


# --------------------------------------------------------------------------- state
@dataclass
class State:
    """Dynamic state at time t: u, v (n_var,) and, for the α schemes, the acceleration a
    and the internal-plus-damping force g and end-point reactions at u."""

    t: float
    u: np.ndarray
    v: np.ndarray
    a: Optional[np.ndarray] = None
    g: Optional[np.ndarray] = None
    extra: dict = field(default_factory=dict)


class _StepSystem:
    """Common parts of a step system: prescribed increments, predictor, apply, size.

    ``dense_newton``: with joints, the projected Newton loop handles a small step matrix
    dense (femb.solvers.nonlinear.newton.DENSE_LIMIT)."""

    dense_newton = True

    def __init__(self, problem, state, h):
        self.p = problem
        self.s = state
        self.h = h
        self.t1 = state.t + h
        t = problem.table
        self.eq_var = t.eq_var
        if problem.prescribed:
            u1p = problem.apply_prescribed(state.u.copy(), self.t1)
            self.z_prescribed = [(vars_, u1p[vars_] - state.u[vars_]) for vars_, _ in problem.prescribed]
        else:
            self.z_prescribed = []
        self.last = {}
        self.multipliers = None  # joint multipliers of the accepted state (set by the driver before finish)
        self.Gbar_full = None  # discrete joint Jacobian of the last ``constraints`` call (n_rows × n_var)

    def _impose(self, z):
        for vars_, dz in self.z_prescribed:
            z[vars_] = dz
        z[self.p.table.fixed_vars] = 0.0
        return z

    def _prescribed_rotations(self, layout, R0, vector_of):
        """Replace the prescribed increments of 3-D rotational variables by the rotation
        increment of each node with a prescribed rotation: ``vector_of(R_p(t_{n+1}) R_nᵀ)``
        (m, 3) (the Cayley or rotation vector the scheme takes as unknown), R0 (n_nodes, 3,
        3) the rotations at the start of the step (RotationLayout ``layout``)."""
        p = self.p
        rows, Rp = layout.prescribed_at(lambda rec: p.prescribed_value(rec, self.t1))
        cached = p.__dict__.get("_prescribed_rotation_keep")
        if cached is None or cached[0] is not layout or len(cached[1]) != len(p.prescribed):
            # per prescribed entry: the positions of its variables that are not rotations of
            # a node with a prescribed rotation (the same every step; None: keep none)
            rot_vars = set(int(v) for v in layout.var[rows].ravel()) if rows.size else set()
            keeps = []
            for vars_, _ in p.prescribed:
                keep = np.array([int(v) not in rot_vars for v in vars_], dtype=bool)
                keeps.append(None if not keep.any() else (slice(None) if keep.all() else np.flatnonzero(keep)))
            cached = p._prescribed_rotation_keep = (layout, keeps)
        z_pres = []
        for (vars_, dz), keep in zip(self.z_prescribed, cached[1]):
            if keep is not None:
                z_pres.append((vars_[keep], dz[keep]))
        if rows.size:
            inc = vector_of(Rp @ R0[layout.nodes[rows]].transpose(0, 2, 1))
            z_pres.append((layout.var[rows].ravel(), np.asarray(inc).ravel()))
        self.z_prescribed = z_pres

    def apply(self, z, dz):
        out = z.copy()
        out[self.eq_var] += dz
        return out

    def step(self, z, dz):
        """(z_new, η·dz): the correction dz (n_eq,) scaled by ``limit`` and applied to z
        (``apply``); the Newton loop's update (femb.solvers.nonlinear.step_newton.iterate)."""
        dz = dz * self.limit(z, dz)
        return self.apply(z, dz), dz

    def rotation_change(self, z, z_new):
        """Change of the nodal rotations (rad) from increment z to z_new (n_rot,)."""
        rot = self.p.rot
        return z_new[rot] - z[rot]

    def rotation_turn(self, z, z_new):
        """Largest change of a nodal rotation (rad) from increment z to z_new."""
        if not self.p.rot.any():
            return 0.0
        return float(np.abs(self.rotation_change(z, z_new)).max(initial=0.0))

    def limit(self, z, dz):
        """Step length η ≤ 1 so that no nodal rotation and no element chord turns by more
        than ``max_turn`` (rad) in one correction."""
        cap = self.p.max_turn
        if not cap or not np.isfinite(cap):
            return 1.0
        z_new = z.copy()
        z_new[self.eq_var] += dz
        turn = self.rotation_turn(z, z_new)
        a = d = None
        for b, (tc, X21) in zip(self.p.table.blocks, self.p.chord_columns):
            if tc is None:
                continue
            if a is None:
                a = self.s.u + z
                d = z_new - z
            turn = max(turn, chord_turn(b.var, tc[0], tc[1], X21, a, d))
        return 1.0 if turn <= cap else cap / turn

    def constraints(self, z):
        """Joint equations of the step at the increment z (``_joint_equations``), or None
        without joints; computed once per increment (the Newton loop asks for those of the
        same z again when it takes a state)."""
        if self.p.joints is None:
            return None
        cached = getattr(self, "_constraints_at", None)
        if cached is not None and cached[0] is z and np.array_equal(cached[1], z):
            return cached[2]
        out = self._joint_equations(z)
        self._constraints_at = (z, z.copy(), out)
        return out

    def size(self, z):
        u_norm = self.__dict__.get("_u_norm")
        if u_norm is None:  # the start of the step: constant over its iterations
            u_norm = self._u_norm = vector_norm(self.s.u)
        return max(vector_norm(z), u_norm, self.p.length_scale)

    def absolute_coordinates(self, z):
        """(n_eq,) magnitudes of the absolute end-of-step coordinates the residual is
        evaluated from, for its round-off level (femb.solvers.nonlinear.newton.rounding_residual):
        |X + u_{n+1}| of translations (a position 10 m from the origin is known to 2e-15 m
        only, whatever its increment), |u_{n+1}| of planar angles, 1 for the slots of 3-D
        rotations (entries of R)."""
        p = self.p
        x = np.abs(p.reference_coordinates + self.s.u + z)
        x[p.rot3d] = 1.0
        return x[self.eq_var]

    def prescribed_work(self, R, z):
        """Work of the reactions R on the prescribed variables over the increment z."""
        if not self.p.prescribed:
            return 0.0
        return float(sum(R[vars_] @ z[vars_] for vars_, _ in self.p.prescribed))

    def joint_work(self, z, multipliers):
        """Work of the joint reactions Ḡᵀλ that the energy balance books as constraint
        work over the increment z: their work on the prescribed (driven) variables,
        (Ḡᵀλ)_p·z_p, minus λ·Ḡz, the work of time-dependent joints (zero for joints
        without an explicit time dependence, since Ḡz = ΔΦ = 0). With the free equations
        r_f + (Ḡᵀλ)_f = 0 this closes the balance: ΔE − W_ext = (r_p + (Ḡᵀλ)_p)·z_p − λ·Ḡz.
        Ḡ (active rows × n_var, in the units of z) is the one of the accepted state
        (``self.Gbar_full``, set by ``constraints``); 0 without joints."""
        Gbar = getattr(self, "Gbar_full", None)
        if Gbar is None or multipliers is None or not len(multipliers):
            return 0.0
        lam = np.asarray(multipliers, dtype=np.float64)
        g = Gbar.T @ lam
        driven = float(sum(g[vars_] @ z[vars_] for vars_, _ in self.p.prescribed))
        return driven - float(lam @ (Gbar @ z))


def solve_free_acceleration(scheme_name, M, table, rhs, acc):
    """Initial accelerations of the free DOFs, acc[eq_var] = M⁻¹ rhs over the equations
    (M (n_eq, n_eq) sparse, rhs and acc (n_var,)), for the α schemes' start without joints;
    ModelError naming the scheme when the mass is singular on the free DOFs."""
    try:
        acc[table.eq_var] = Factorization(M, table, context="mass").solve(rhs[table.eq_var])
    except FembError as exc:
        raise ModelError(f"{scheme_name}: the initial acceleration needs a non-singular mass on the free DOFs "
                         f"(translations or rotations without inertia?): {exc}") from None
