"""Lie-group generalized-α step for models with 3-D rotations (oriented nodes).

The step t_n → t_n + h of ``GeneralizedAlpha`` (and its special cases ``Newmark`` and
``HHT``, femb.solvers.dynamics.schemes) when the model has oriented nodes (beam3d, shells,
rigid_body3d): the Lie-group generalized-α method of Arnold & Brüls (2007) and Brüls &
Cardona (2010) on SO(3) × ℝ³ per node, in femb's spatial convention (R ← exp(ŵ) R,
spatial angular velocities ω with Ṙ = ω̂ R, moments conjugate to spatial spins).

Unknowns z (n_var,): the translation increments Δx and, in the rotational slots of every
oriented node, the spatial rotation vector θ of its increment, R_{n+1} = exp(θ̂) R_n. Per
variable (translations and the three spatial components of each node alike), with the
true acceleration v̇ (ẍ, ω̇) and the pseudo-acceleration a of the method::

    Δ_n = z/h = v_n + h (½ − β) a_n + h β a_{n+1}        (x_{n+1} = x_n + z, R_{n+1} = exp(θ̂) R_n)
    v_{n+1} = v_n + h ((1 − γ) a_n + γ a_{n+1})
    (1 − α_m) a_{n+1} + α_m a_n = (1 − α_f) v̇_{n+1} + α_f v̇_n

and the equations of motion hold at the end of the step (no averaging of forces)::

    M ẍ_{n+1} + f_x(x_{n+1}, R_{n+1}) + f_d,x = f_ext,x(t_{n+1})                  (constant translational mass)
    J ω̇ + ω × (J ω) + f_w(x_{n+1}, R_{n+1}) + f_d,w = m_ext(t_{n+1}),  J = R J0 Rᵀ   (spatial Euler equations)
    Φ(x_{n+1}, R_{n+1}, t_{n+1}) = 0,  reactions Gᵀλ_{n+1} in both                 (index 3)

with the nodal rigid bodies of femb.solvers.problem.split_rotary_mass (spatial angular
momentum π = J ω, d/dt π = J ω̇ + ω × J ω). The parameters (α_m, α_f, β, γ) are those of
``GeneralizedAlpha`` (from ρ∞, or Newmark's β, γ with α_m = α_f = 0, or HHT's α); on a
linear problem this form has the spectral properties of Chung & Hulbert's (Arnold & Brüls
2007), second order for γ = ½ + α_f − α_m. Translational momentum is exact in free flight
(Σ M v̇_{n+1} = 0 every step ⇒ Σ M a_n = 0 ⇒ Σ M v constant); angular momentum and energy
are not conserved (they change by O(h²) per unit time; ρ∞ < 1 dissipates high
frequencies).

Newton corrections are spatial spins of R_{n+1} (``apply``: θ ← log(exp(δŵ) exp(θ̂))), so
the element tangents (per unit spin, elements.base) and the joint Jacobians enter the
iteration matrix as they are::

    S = K(x_{n+1}, R_{n+1}) + c_a M + c_v C_d + blockdiag_nodes(B) + Σ λ ∇²Φ (symmetric part)
    B = [c_a J + c_v (ω̂ J − (J ω)^)] J_L(θ)⁻¹ − (J ω̇)^ + J (ω̇)^ + ω̂ (J ω̂ − (J ω)^)

with c_a = (1 − α_m)/((1 − α_f) β h²), c_v = γ/(β h) and J_L the left Jacobian of exp
(δθ = J_L⁻¹ δw): the exact derivative of the inertia terms with respect to the spin.

Damping f_d = C(q) v (femb.solvers.dynamics.problem.DampingModel, spatial ω on the
nodes) enters as c_v C_d with its rotational velocity columns turned by J_L(θ)⁻¹ (∂ω_{n+1}
per unit spin), plus ∂f_d/∂q at fixed v: α (J ω̂ − (J ω)^) of the rotary mass damping and
the discrete dampers' configuration derivative (element central differences of their
kernels, DampingModel.configuration_derivative). Left out: the configuration derivative of
β K_mat (a third derivative of the strain energy), and the skew part of the joints'
curvature.

Sections whose mass centre is off the node line carry their translational mass as points
rigidly attached to the nodes (femb.solvers.dynamics.offset_points): with r = R_{n+1} d
the point's acceleration is ẍ_p = ẍ + ω̇ × r + ω × (ω × r), and F = m (ẍ_p − g) acts
on the node's translations and r × F on its rotations (``OffsetPoints.alpha_force``),
with its exact derivative per unit spin in S (``OffsetPoints.alpha_matrix``). Their
weight acts only there (not as the statics' turning-lever moments). Linear momentum
Σ m v_p with v_p = v + ω × r is not linear in the scheme's variables: with offsets it
is conserved to O(h²), not exactly.

Configuration-dependent loads (rotation-dependent moments, follower pressures) act at the
end of the step, F(x_{n+1}, R_{n+1}, t_{n+1}), with their load stiffness −∂F/∂q per unit
spin in S; their work is booked by the trapezoidal rule ½ (F_n + F_{n+1})·z (an O(h²)
approximation, like the energy of the scheme).

Small 3-D beam models (those of femb.solvers.dynamics.spatial_step) run these steps in one
compiled call between recorded frames (femb.solvers.dynamics.alpha3d_step), with the same
results to round-off.
"""
import numpy as np

from femb.core.errors import InputError
from femb.core.rotations import cross_batch, exp_batch, hat_batch, left_jacobian_inverse_batch, log_batch, spin_update
from femb.solvers.dynamics.midpoint3d import initial_rotary_state, momentum_flux_scale
from femb.solvers.dynamics.step_system import State, _StepSystem, solve_free_acceleration
from femb.solvers.nonlinear.norms import vector_norm


def _matvec(A, x):
    """A x (k, 3) for A (k, 3, 3), x (k, 3)."""
    return np.einsum("kij,kj->ki", A, x)


def rotary_inertia_force(problem, R, w, wdot):
    """Spatial inertia moments J ω̇ + ω × (J ω) (k, 3) of the oriented nodes at rotations R
    (n_nodes, 3, 3), angular velocities ω and accelerations ω̇ (k, 3), and the spatial
    momenta π = J ω (k, 3)."""
    J = problem.rotary.spatial(R)
    pi = _matvec(J, w)
    return _matvec(J, wdot) + cross_batch(w, pi), pi, J


def start(scheme, problem, t0, u, v):
    """State at t0 of an oriented model: rotations R and momenta π of the nodes and the
    true acceleration v̇_0 (extra ``acc``; also the first pseudo-acceleration a_0) from
    M v̇ = f_ext − f_int − f_d (translations), J ω̇ = m_ext − f_w − ω × J ω (rotations) and,
    with joints, G v̇ = −(Ġ v + Φ_tt) by the saddle-point solve of
    ``GeneralizedAlpha._constrained_acceleration``; prescribed DOFs: second difference of
    their functions."""
    if problem.variable_mass:
        raise InputError(f"{scheme.name}: configuration-dependent masses (part(s) "
                         f"{', '.join(map(repr, problem.variable_mass.parts()))}) are integrated in planar models only")
    tab = problem.table
    lay = problem.rotary.layout
    R, pi = initial_rotary_state(problem, u, v)
    acc = np.zeros(tab.n_var)
    hp = 1e-3 * problem.dt_hint
    for vars_, rec in problem.prescribed:
        if rec.function is not None:
            acc[vars_] = (rec.function(t0 + hp) - 2.0 * rec.function(t0) + rec.function(t0 - hp)) / (hp * hp)
    f = problem.tangent(u, R)[0].copy()  # the problem's force buffer is overwritten by the next assembly
    g = f.copy()
    fd = None
    if problem.damping.active:
        fd = problem.damping.evaluate(u, v, rotations=R)[0]
        g += fd
    w = v[lay.var]
    gyro, _, _ = rotary_inertia_force(problem, R, w, acc[lay.var])  # J ω̇_p + ω × J ω
    inert = problem.M_full @ np.where(problem.rot3d, 0.0, acc)
    np.add.at(inert, lay.var[problem.rotary.owner].ravel(), gyro[problem.rotary.owner].ravel())
    offset = problem.offset_points
    if offset:  # mass points off the node line: m (ẍ_p − g) with the prescribed part of ẍ_p
        inert += offset.alpha_force(R, v, acc, t0)[0]
    fl = problem.end_state_loads(u, R, t0)[0]
    if fl is not None:
        g -= fl
    rhs = problem.f_const + problem.scaled_loads(t0) - g - inert
    data = tab.new_matrix_data()
    data += problem.M_eq.data
    J = problem.rotary.spatial(R)
    ok = problem.rotary.pos >= 0
    np.add.at(data, problem.rotary.pos[ok], J[ok])
    if offset:
        data += offset.spatial_mass_data(R)
    M = tab.csr(data)
    lam = G = None
    if tab.n_eq and problem.joints is not None:
        def joint_at(eps, t):  # the joints at the state moved by eps along the velocity
            Re = R.copy()
            if eps:
                Rn = np.ascontiguousarray(Re[lay.nodes])
                spin_update(Rn, eps * w)
                Re[lay.nodes] = Rn
            return problem.joint_state(u + eps * np.where(problem.rot3d, 0.0, v), t, rotations=Re)
        lam, G = scheme._constrained_acceleration(problem, t0, v, acc, rhs, M, joint_at)
    elif tab.n_eq:
        solve_free_acceleration(scheme.name, M, tab, rhs, acc)
    state = State(t0, u, v, a=acc.copy(), extra={"R": R, "pi": pi, "acc": acc, "fd": fd, "fl": fl, "lam": lam})
    if offset:  # positions and velocities of the offset mass points, for the energy account
        state.extra["offset_x"], state.extra["offset_v"] = offset.start(u, R, v)
    state.extra["reaction"] = _reaction(problem, state, t0, f, fd, lam, G, fl)
    return state


def _reaction(problem, state, t, f, fd, lam, G, fl=None):
    """Generalized reactions (n_var,) f + f_d + Gᵀλ + inertia − f_ext at a state (the
    forces the supports of prescribed variables must apply; ``fl`` the configuration-dependent
    loads of the state)."""
    lay = problem.rotary.layout
    acc = state.extra["acc"]
    out = f + problem.M_full @ np.where(problem.rot3d, 0.0, acc) - problem.f_const - problem.scaled_loads(t)
    if fd is not None:
        out = out + fd
    if fl is not None:
        out = out - fl
    if lam is not None and G is not None:
        out = out + G.T @ lam
    r_rot, _, _ = rotary_inertia_force(problem, state.extra["R"], state.v[lay.var], acc[lay.var])
    own = problem.rotary.owner
    np.add.at(out, lay.var[own].ravel(), r_rot[own].ravel())
    if problem.offset_points:
        out = out + problem.offset_points.alpha_force(state.extra["R"], state.v, acc, t)[0]
    return out


class AlphaLie3DSystem(_StepSystem):
    """One Lie-group generalized-α step of an oriented model (module docstring).

    ``noise_floor``: relative residual accepted by the Newton loop once it stops falling
    (the rounding of stiff members' nodal positions and triads, as in
    femb.solvers.dynamics.midpoint3d.MidPoint3DSystem)."""

    noise_floor = 1e-9

    def __init__(self, scheme, problem, state, h):
        super().__init__(problem, state, h)
        p, sc = problem, scheme
        self.sc = sc
        lay = self.lay = p.rotary.layout
        self.R0 = state.extra["R"]
        self.fs0 = p.scaled_loads(state.t)
        self.fs1 = p.scaled_loads(self.t1)
        self.fe1 = p.f_const + self.fs1
        self.fext_norm = vector_norm(self.fe1[self.eq_var])
        # rotational prescribed increments: θ = log(R_p(t_{n+1}) R_nᵀ) (rotations about fixed axes)
        self._prescribed_rotations(lay, self.R0, lambda C: _log(C))
        self.z0 = self._impose(h * state.v + 0.5 * h * h * state.extra["acc"])
        ca = (1.0 - sc.alpha_m) / ((1.0 - sc.alpha_f) * sc.beta * h * h)
        self.c_a, self.c_v = ca, sc.gamma / (sc.beta * h)
        self.mass_data = ca * p.M_eq.data
        self.momentum_scale = momentum_flux_scale(p, state.v, state.extra["pi"], h)
        self.rot_ok = p.rotary.pos >= 0
        self.rot_pos = p.rotary.pos[self.rot_ok]
        self.G1 = None

    # ---------------------------------------------------------------- kinematics
    def rotations(self, z):
        """R_{n+1} (n_nodes, 3, 3) = exp(θ̂) R_n of the increment z."""
        lay = self.lay
        R1 = self.R0.copy()
        if lay.n:
            E = np.empty((lay.n, 3, 3))
            exp_batch(np.ascontiguousarray(z[lay.var]), E)
            R1[lay.nodes] = E @ self.R0[lay.nodes]
        return R1

    def kinematics(self, z):
        """(a_{n+1}, v_{n+1}, v̇_{n+1}) (n_var,) of the increment z (module docstring)."""
        sc, h, s = self.sc, self.h, self.s
        a1 = (z - h * s.v - h * h * (0.5 - sc.beta) * s.a) / (sc.beta * h * h)
        v1 = s.v + h * ((1.0 - sc.gamma) * s.a + sc.gamma * a1)
        acc1 = ((1.0 - sc.alpha_m) * a1 + sc.alpha_m * s.a - sc.alpha_f * s.extra["acc"]) / (1.0 - sc.alpha_f)
        return a1, v1, acc1

    def apply(self, z, dz):
        """z after a Newton correction dz (n_eq,): translations added, rotations turned by
        the spatial spins of dz, θ ← log(exp(δŵ) exp(θ̂))."""
        out = z.copy()
        out[self.eq_var] += dz
        lay = self.lay
        if lay.n:
            E = np.empty((lay.n, 3, 3))
            exp_batch(np.ascontiguousarray(z[lay.var]), E)
            spin_update(E, lay.spins(dz))
            th = np.empty((lay.n, 3))
            log_batch(E, th)
            out[lay.var] = th
        return out

    def rotation_turn(self, z, z_new):
        """Largest nodal turn (rad) of the correction from z to z_new = z + dz (``limit``):
        the norm of its spatial spin."""
        lay = self.lay
        if not lay.n:
            return 0.0
        return float(np.linalg.norm(z_new[lay.var] - z[lay.var], axis=1).max(initial=0.0))

    # ---------------------------------------------------------------- residual
    def evaluate(self, z):
        """(residual over the equations, Newton matrix S (module docstring), force scale)
        at the increment z."""
        p, lay, rot = self.p, self.lay, self.p.rotary
        u1 = self.s.u + z  # translations; the kernels take the rotations from R1
        R1 = self.rotations(z)
        a1, v1, acc1 = self.kinematics(z)
        f, K = p.tangent(u1, R1)
        data = K.data
        data += self.mass_data
        inert = p.M_full @ np.where(p.rot3d, 0.0, acc1)
        theta, w, wdot = z[lay.var], v1[lay.var], acc1[lay.var]
        Jinv = np.empty((lay.n, 3, 3))
        if lay.n:
            left_jacobian_inverse_batch(np.ascontiguousarray(theta), Jinv)
        fd = None
        if p.damping.active:
            # ∂ω_{n+1}/∂(spin) = c_v J_L(θ)⁻¹: the rotational velocity columns of C_d turn with it;
            # the mass part α J ω turns with R_{n+1}; the dampers' configuration derivative
            spin_cols = np.broadcast_to(np.eye(3), self.R0.shape).copy()
            spin_cols[lay.nodes] = Jinv
            fd, Cd = p.damping.evaluate(u1, v1, rotations=R1, column_map=spin_cols)
            data += self.c_v * Cd
            if lay.n and p.damping.alpha:
                dJ = p.damping.rotary_spin_derivative(R1, w)
                np.add.at(data, self.rot_pos, dJ[self.rot_ok])
            data += p.damping.configuration_derivative(u1, v1, rotations=R1)
        fl, KL = p.end_state_loads(u1, R1, self.t1)  # rotation-dependent moments, follower pressures
        if fl is not None:
            data += KL
        r_rot, pi1, J = rotary_inertia_force(p, R1, w, wdot)
        r_rot[~rot.owner] = 0.0
        np.add.at(inert, lay.var.ravel(), r_rot.ravel())
        if p.offset_points:  # mass points off the node line (femb.solvers.dynamics.offset_points)
            f_off, F_off, r_off = p.offset_points.alpha_force(R1, v1, acc1, self.t1)
            inert += f_off
            Jn = np.broadcast_to(np.eye(3), self.R0.shape).copy()
            Jn[lay.nodes] = Jinv
            p.offset_points.alpha_matrix(v1, acc1, F_off, r_off, Jn, self.c_a, self.c_v, data)
        if lay.n:
            W, Pi = hat_batch(w), hat_batch(pi1)
            B = (self.c_a * J + self.c_v * (W @ J - Pi)) @ Jinv - hat_batch(_matvec(J, wdot)) + J @ hat_batch(wdot) \
                + W @ (J @ W - Pi)
            np.add.at(data, self.rot_pos, B[self.rot_ok])
        R = f + inert - self.fe1
        if fd is not None:
            R += fd
        if fl is not None:
            R -= fl
        self.last = dict(u1=u1, R1=R1, a1=a1, v1=v1, acc1=acc1, pi1=pi1, f=f.copy(), fd=fd, fl=fl)
        ev = self.eq_var
        scale = max(vector_norm(f[ev]), vector_norm(inert[ev]), self.fext_norm, self.momentum_scale, 1e-300,
                    0.0 if fl is None else vector_norm(fl[ev]))
        return R[ev], K, scale

    # ---------------------------------------------------------------- joints
    def constraints(self, z):
        """Joint equations at the end of the step (index 3), or None without joints:
        (Φ(x_{n+1}, R_{n+1}), G, G) over the free equations, G per unit spatial spin (the
        unit of the Newton corrections); the eliminated multipliers are λ_{n+1}."""
        p = self.p
        if p.joints is None:
            return None
        phi, G = p.joint_state(self.s.u + z, self.t1, rotations=self.rotations(z))
        self.G1 = G.tocsr()
        Gf = G.tocsc()[:, self.eq_var].tocsr()
        return phi, Gf, Gf

    def constraint_stiffness(self, multipliers):
        """The symmetric part of Σ λ ∇²Φ at the last ``constraints`` state, over the free
        equations."""
        ev = self.eq_var
        return self.p.joint_stiffness(multipliers)[ev][:, ev]

    # ---------------------------------------------------------------- end of step
    def finish(self, z):
        """New state (rotational slots of u: log R; of v: spatial ω; ``a``: the
        pseudo-acceleration, extra ``acc`` the true one) and the step's energy terms."""
        p, s, lay, last = self.p, self.s, self.lay, self.last
        u1, R1 = last["u1"], last["R1"]
        lay.write_vectors(u1, R1)
        lam = None if self.multipliers is None else np.asarray(self.multipliers, dtype=np.float64)
        extra = {"R": R1, "pi": last["pi1"], "acc": last["acc1"], "fd": last["fd"], "fl": last["fl"], "lam": lam}
        if lam is not None:
            extra["multipliers"] = lam
        state = State(self.t1, u1, last["v1"], a=last["a1"], extra=extra)
        reaction = _reaction(p, state, self.t1, last["f"], last["fd"], lam, self.G1, last["fl"])
        extra["reaction"] = reaction
        rheonomic = 0.0
        lam0 = s.extra.get("lam")
        if lam is not None and lam0 is not None and np.size(lam0) == lam.size:  # λ̄·ΔΦ_t of time-dependent joints
            dphi_t = p.joint_state(s.u, self.t1, rotations=self.R0)[0] - p.joint_state(s.u, s.t, rotations=self.R0)[0]
            rheonomic = 0.5 * float((lam0 + lam) @ dphi_t)
        rot = p.rot3d
        # time-varying loads; in 3-D every moment does work (no potential, as in the mid-point step)
        load = 0.5 * (self.fs0 + self.fs1)
        load[rot] += p.f_const[rot]
        fd0, fd1 = s.extra.get("fd"), last["fd"]
        fl0, fl1 = s.extra.get("fl"), last["fl"]
        if fl0 is not None and fl1 is not None:  # configuration-dependent loads: trapezoidal work
            load += 0.5 * (fl0 + fl1)
        terms = dict(work=float(load @ z),
                     dissipated=0.0 if fd1 is None or fd0 is None else 0.5 * float((fd0 + fd1) @ z),
                     constraint=self.prescribed_work(0.5 * (s.extra["reaction"] + reaction), z) + rheonomic)
        if p.offset_points:  # the offset mass points follow their nodes rigidly
            extra["offset_x"], extra["offset_v"] = p.offset_points.start(u1, R1, last["v1"])
            terms["work"] += p.offset_points.gravity_work(s, extra["offset_x"], s.t + 0.5 * self.h)
        return state, terms


def _log(C):
    th = np.empty(C.shape[:-1])
    log_batch(np.ascontiguousarray(C), th)
    return th
