"""Energy-momentum conserving mid-point step for models with 3-D rotations (oriented nodes).

The step t_n → t_n + h of the energy-conserving scheme (femb.solvers.dynamics.schemes.MidPoint)
when the model has oriented nodes (beam3d, rigid_body3d). Unknowns z (n_var,): the
translation increments Δx and, in the rotational slots of every oriented node, the Cayley
vector ψ of its rotation increment::

    R_{n+1} = cay(ψ) R_n,   cay(ψ) = (I − ψ̂/2)⁻¹ (I + ψ̂/2)

Translations (constant translational mass M, as in 2-D)::

    v_{n+1} = 2 Δx/h − v_n,   M (v_{n+1} − v_n)/h + f̄_x = f_ext,x(t_{n+½})

Rotations: each oriented node is a rigid body with body-frame inertia J0 (beam rotary
inertia lumped at the nodes, rigid_body3d); spatial angular momentum π = R J0 Rᵀ ω.
Simo–Wong's energy-momentum rule in spatial form::

    π_{n+1} − π_n = h (m_ext(t_{n+½}) − f̄_ψ),
    J0 R_nᵀ ψ = (h/2) (Π_n + Π_{n+1}),   Π = Rᵀ π (body momentum)
    ⇔ π_{n+1} = cay(ψ) ((2/h) J_n ψ − π_n),   J_n = R_n J0 R_nᵀ

For a free body π is constant and T = ½ Π·J0⁻¹Π is exactly conserved: the kinetic energy
changes by exactly (π_{n+1} − π_n)·ψ/h per step (cay(−ψ)a − a ⊥ ψ), i.e. moments are
conjugate to ψ. f̄ is the elements' algorithmic force (``midpoint_force`` of oriented
elements: a discrete gradient with f̄·(Δx, ψ) = ΔV exactly, self-equilibrated at the mid
positions x_m = (x_n + x_{n+1})/2), so that

- energy: ΔT + ΔV = f_ext·Δx + m_ext·ψ exactly (Newton tolerance);
- momentum: Σ M v changes by h Σ f_ext; Σ x × M v + Σ π by h Σ (x_m × f_ext + m_ext), since
  x_{n+1} × p_{n+1} − x_n × p_n = x_m × Δp for Δx = h p_m/m;
- under a rigid rotation with Cayley kinematics Δx = ψ × x_m exactly, so the step is an
  exact rigid-body mode of the elements at the mid positions: no strain from rigid spin.

The Newton matrix: the element mid-point tangent, 2M/h² and the exact derivative of the
inertia residual (π_{n+1} − π_n)/h with respect to ψ. Moments about fixed axes act
conjugate to ψ (their work m·ψ is booked as external work: in 3-D they have no potential).
Prescribed rotations (about fixed axes, time functions) give ψ = cay⁻¹(R_p(t_{n+1}) R_nᵀ).

Damping (Rayleigh and discrete dampers, femb.solvers.dynamics.problem.DampingModel) acts at
the mid configuration (x_m, R_m) on the step velocity v̄ = (Δx, ψ)/h; the step books
fd·z = h v̄ᵀ C̄ v̄ as dissipation; the Newton matrix has C̄/h and the derivatives of α J_m ψ/h
and of the dampers' forces with respect to the mid configuration. Rotation-dependent moments act at R_m and follower
pressures as the Simpson average along the step (DynamicProblem.midpoint_state_loads);
their work F̄·z is booked as external work, their load stiffness is in the Newton matrix.
"""
import numpy as np
import scipy.sparse as sp

from femb.core.rotations import (
    cayley_batch,
    cayley_spin_jacobian_batch,
    cayley_step_batch,
    cayley_turn,
    cayley_vector_batch,
)
from femb.solvers.dynamics.step_system import State, _StepSystem
from femb.solvers.linalg.nullspace import ColumnBlock, SquareBlock
from femb.solvers.nonlinear.norms import vector_norm


def initial_rotary_state(problem, u, v):
    """(R (n_nodes, 3, 3), π (k, 3)) of the oriented nodes from the rotation vectors in u
    and the angular velocities in v."""
    rot = problem.rotary
    R = rot.layout.rotations_from_vectors(u)
    w = v[rot.layout.var]
    pi = np.einsum("kij,kj->ki", rot.spatial(R), w)
    return R, pi


class _StepConstants:
    """What every step of one problem shares (cached on the problem, ``step_constants``):
    index sets of the rotary inertia, the mass part of the step matrix per step size, and
    zeroed node arrays the element kernels read (ψ, D; rows of the oriented nodes
    overwritten by each evaluation, the other rows stay zero)."""

    def __init__(self, p, n_nodes):
        rot = p.rotary
        lay = rot.layout
        self.rot_ok = rot.pos >= 0
        self.rot_pos = rot.pos[self.rot_ok]
        self.rot_vals = np.flatnonzero(self.rot_ok.ravel())  # entries of dr (k·9,) with a CSR position
        self.owner_var = lay.var[rot.owner]  # (owners, 3) variables of the nodes owning rotary inertia
        self.not_owner = np.flatnonzero(~rot.owner)
        self.rot_var = lay.var.ravel()
        self.plain = np.flatnonzero(~p.rot3d)  # variables other than 3-D rotations
        self.rot3d = np.flatnonzero(p.rot3d)
        # np.add.at only where variables or CSR positions repeat (nodes sharing rotations)
        self.unique_var = np.unique(self.rot_var).size == self.rot_var.size
        self.unique_pos = np.unique(self.rot_pos).size == self.rot_pos.size
        self.psi_n = np.zeros((n_nodes, 3))
        self.D_n = np.zeros((n_nodes, 3, 3))
        k = lay.n
        self.work = tuple(np.empty((k, 3, 3)) for _ in range(5))  # C, R_{n+1}, R_m, D, dr of cayley_step_batch
        self._mass = (None, None)

    def mass_data(self, p, h):
        """(2/h²) M (CSR data over the equations) for the step size h."""
        if self._mass[0] != h:
            self._mass = (h, (2.0 / (h * h)) * p.M_eq.data)
        return self._mass[1]


def step_constants(p, n_nodes):
    """The problem's _StepConstants (made on first use; ``n_nodes`` rows of the node arrays)."""
    c = p.__dict__.get("_mid3d_constants")
    if c is None:
        c = p._mid3d_constants = _StepConstants(p, n_nodes)
    return c


def momentum_flux_scale(problem, v, pi, h, points=None, constants=None):
    """|momentum|/h over the free equations: the inertia residuals of a step are changes of
    momenta per step, which vanish in free flight; their size sets the round-off level of
    the residual (v (n_var,) velocities, π (k, 3) nodal spatial angular momenta, h step,
    ``points`` (n_points, 3) the velocities of mass points inside elements; ``constants``
    the problem's _StepConstants when at hand)."""
    rot = problem.rotary
    if constants is None:
        pm = problem.M_full @ np.where(problem.rot3d, 0.0, v)
        pm[rot.layout.var[rot.owner]] += pi[rot.owner]
    else:
        vt = np.zeros_like(v)
        vt[constants.plain] = v[constants.plain]
        pm = problem.M_full @ vt
        pm[constants.owner_var] += pi[rot.owner]
    scale = float(np.linalg.norm(pm[problem.table.eq_var])) / h
    if points is not None:  # momenta of the mass points inside elements
        scale = max(scale, float(np.linalg.norm(problem.point_inertia.masses()[:, None] * points)) / h)
    return scale


class MidPoint3DSystem(_StepSystem):
    """One step of the energy-momentum scheme for oriented models (module docstring).

    ``noise_floor``: relative residual accepted by the Newton loop once it stops falling.
    The residual of stiff 3-D members carries the rounding of their nodal positions and
    triads times their stiffness (about 1e-10 of the forces in spin-up B), above the default
    tolerance; the energy error of such a step is bounded by residual × increment.
    """

    noise_floor = 1e-9

    def __init__(self, problem, state, h):
        super().__init__(problem, state, h)
        p = problem
        rot = p.rotary
        lay = rot.layout
        self.lay = lay
        self.R0 = state.extra["R"]
        self.c = c = step_constants(p, self.R0.shape[0])
        self.pi0 = np.ascontiguousarray(state.extra["pi"], dtype=np.float64)
        self.R0n = np.ascontiguousarray(self.R0[lay.nodes])
        self.J_n = self.R0n @ rot.J0 @ self.R0n.transpose(0, 2, 1)  # rot.spatial(R0)
        t_m = state.t + 0.5 * h
        self.f_s = p.scaled_loads(t_m)
        self.f_ext = p.f_const + self.f_s
        self.fext_norm = vector_norm(self.f_ext[self.eq_var])  # constant over the step
        z = h * state.v  # predictor v_n h (ψ ≈ h ω on the rotational slots)
        # prescribed: translations from their functions, rotations ψ = cay⁻¹(R_p(t1) R_nᵀ)
        self._prescribed_rotations(lay, self.R0, cayley_vector_batch)
        self.z0 = self._impose(z)
        self.momentum_scale = momentum_flux_scale(p, state.v, self.pi0, h, state.extra.get("points_v"), c)
        self.V_cache = None
        # constant over the step: the mass part of the step matrix, the velocity term of the
        # translational inertia, the CSR positions of the rotary-inertia blocks
        self.mass_data = c.mass_data(p, h)
        self.v_term = (2.0 / h) * np.where(p.rot3d, 0.0, state.v)
        self.rot_ok = c.rot_ok
        self.rot_pos = c.rot_pos
        self.Rm = self.R0.copy()  # mid rotations (rows of the oriented nodes set by evaluate)

    # ---------------------------------------------------------------- kinematics
    def rotations(self, z, C=None):
        """(ψ (k, 3), R_{n+1} (n_nodes, 3, 3)) of the increment z (``C``: cay(ψ) when known)."""
        lay = self.lay
        psi = z[lay.var]
        R1 = self.R0.copy()
        if lay.n:
            R1[lay.nodes] = (cayley_batch(psi) if C is None else C) @ self.R0[lay.nodes]
        return psi, R1

    def rotation_turn(self, z, z_new):
        """Largest rotation (rad) between the nodal end-of-step rotations of z and z_new."""
        lay = self.lay
        if not lay.n:
            return 0.0
        return cayley_turn(np.ascontiguousarray(z[lay.var]), np.ascontiguousarray(z_new[lay.var]))

    # ---------------------------------------------------------------- residual
    def evaluate(self, z):
        p, h, lay = self.p, self.h, self.lay
        u0 = self.s.u
        u1 = u0 + z
        um = u0 + 0.5 * z
        c = self.c
        psi = z[lay.var]
        k = psi.shape[0]
        C, R1n, Rmn, D, dr = c.work
        pi1 = np.empty((k, 3))
        cayley_step_batch(psi, self.R0n, self.J_n, self.pi0, h, C, R1n, Rmn, D, pi1, dr)
        R1 = self.R0.copy()
        R1[lay.nodes] = R1n
        Rm = self.Rm
        Rm[lay.nodes] = Rmn
        psi_n, D_n = c.psi_n, c.D_n
        psi_n[lay.nodes] = psi
        D_n[lay.nodes] = D
        oriented = (u0, self.R0, u1, R1, um, Rm, psi_n, D_n)
        f, K = p.midpoint_force(u0, u1, oriented=oriented)
        data = K.data
        if p.point_inertia:  # elements with mass points: internal force and inertia of the step
            p.point_inertia.assemble(oriented, h, self.s, f, data, self.s.t + 0.5 * h)
        if getattr(p, "offset_points", None):  # mass points attached to nodes (femb.solvers.dynamics.offset_points)
            p.offset_points.assemble(oriented, h, self.s, f, data, self.s.t + 0.5 * h)
        fd = None
        if p.damping.active:
            # discrete dampers at the mid configuration (translations u_m, rotations R_m) with
            # the step velocity z/h (ψ/h on the rotations); their work fd·z is the dissipation
            fd, Cd = p.damping.evaluate(um, z / h, rotations=Rm)
            data += Cd / h
            if p.damping.alpha and k:  # α J_m ψ/h: the inertia turns with R_m (spin D per δψ)
                dJ = p.damping.rotary_spin_derivative(Rm, psi / h) @ D
                np.add.at(data, self.rot_pos, dJ[self.rot_ok])
            # the dampers' axes turn with (x_m, R_m): ∂x_m/∂Δx = ½, spin of R_m per δψ = D
            data += p.damping.configuration_derivative(um, z / h, rotations=Rm, translation_scale=0.5, column_map=D_n)
        zt = np.where(p.rot3d, 0.0, z)
        inert = p.M_full @ ((2.0 / (h * h)) * zt - self.v_term)
        data += self.mass_data
        # rotary inertia: (π_{n+1} − π_n)/h with π_{n+1} = cay(ψ) a, a = (2/h) J_n ψ − π_n, and
        # its derivative d(C a)/dψ/h = (C (2/h) J_n − ½ (I − ψ̂/2)⁻¹ (a + C a)^)/h (cayley_step_batch)
        r_rot = (pi1 - self.pi0) / h
        r_rot[c.not_owner] = 0.0
        if c.unique_var:
            inert[c.rot_var] += r_rot.ravel()
        else:
            np.add.at(inert, c.rot_var, r_rot.ravel())
        if c.unique_pos:
            data[c.rot_pos] += dr.ravel()[c.rot_vals]
        else:
            np.add.at(data, c.rot_pos, dr.ravel()[c.rot_vals])
        R = f + inert - self.f_ext
        if fd is not None:
            R += fd
        # rotation-dependent moments at R_m, follower pressures averaged by Simpson's rule;
        # their work fl·z is booked as external work
        fl, KL = p.midpoint_state_loads(u0, u1, Rm, D_n, self.s.t + 0.5 * h)
        if fl is not None:
            R -= fl
            data += KL
        self.last = dict(R=R, u1=u1, R1=R1, pi1=pi1, psi=psi, fd=fd, fl=fl, z=z, z_copy=z.copy())
        ev = self.eq_var
        scale = max(vector_norm(f[ev]), vector_norm(inert[ev]), self.fext_norm,
                    self.momentum_scale, 1e-300, 0.0 if fl is None else vector_norm(fl[ev]))
        return R[ev], K, scale

    # ---------------------------------------------------------------- joints
    def _spin_map(self, psi):
        """Sparse (n_var, n_var) chain matrix of the end-of-step spins: identity, with the
        block T(ψ) = (I + ψ̂/2)/(1 + |ψ|²/4) on the rotational variables of each oriented
        node (δR_{n+1} R_{n+1}ᵀ = (T δψ)^)."""
        lay, n = self.lay, self.p.table.n_var
        first = np.flatnonzero(self.p.rotary.owner)
        rot_vars = lay.var[first].ravel()
        plain = np.setdiff1d(np.arange(n), rot_vars)
        T = cayley_spin_jacobian_batch(psi[first])
        rows = [plain, np.repeat(lay.var[first], 3, axis=1).ravel()]
        cols = [plain, np.tile(lay.var[first], (1, 3)).ravel()]
        vals = [np.ones(plain.size), T.ravel()]
        return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))

    def _spin_columns(self, cols):
        """Chain-rule layout of the joint blocks over the variables ``cols`` (cached on the
        problem): (ext, place, loc, first) with ext ⊇ cols the columns widened to whole
        rotational triples, place the positions of cols in ext, loc (q, 3) the positions of
        the triples of the oriented nodes ``first`` (q,) (their rotary owners)."""
        cache = self.p.__dict__.setdefault("_mid3d_joint_cols", {})
        hit = cache.get("last")
        if hit is not None and hit[0] is cols:  # the joints' variables array of the previous call
            return hit[1]
        key = cols.tobytes()
        if key not in cache:
            lay = self.lay
            first = np.flatnonzero(self.p.rotary.owner)
            triples = lay.var[first]
            hit = np.isin(triples, cols).any(axis=1)
            first, triples = first[hit], triples[hit]
            ext = np.union1d(cols, triples.ravel())
            cache[key] = (ext, np.searchsorted(ext, cols), np.searchsorted(ext, triples), first)
        cache["last"] = (cols, cache[key])
        return cache[key]

    def _joint_equations(self, z):
        """Joint equations of the step at the increment z:
        (Φ(x_{n+1}, R_{n+1}) (m,), G = ∂Φ_{n+1}/∂z, Ḡ) over the free equations, as
        ColumnBlocks (dense over the jointed equations). G is the joints' spin Jacobian at
        the end of the step times the Cayley chain T(ψ) (``_spin_map``); Ḡ the exact
        discrete derivative of femb.assembly.joints.spatial (Jacobian with averaged directors and
        positions, per unit ψ): Ḡ·(Δx, ψ) = ΔΦ exactly, so the reactions Ḡᵀλ do no work and
        the balance of energy stays exact."""
        p = self.p
        last = self.last
        if last.get("z") is z and np.array_equal(last["z_copy"], z):  # evaluated at this z: its rotations
            psi, R1 = last["psi"], last["R1"]
        else:
            psi, R1 = self.rotations(z)
        u0 = self.s.u
        u1 = u0 + z  # translations; the joints take the rotations from R
        phi, A, Abar, cols = p.joint_blocks(u1, self.t1, u0=u0, rotations=R1, rotations0=self.R0)
        ext, place, loc, first = self._spin_columns(cols)
        if ext.size != cols.size:
            G = np.zeros((A.shape[0], ext.size))
            G[:, place] = A
        else:
            G = A.copy()
        if first.size:  # δR_{n+1} R_{n+1}ᵀ = (T(ψ) δψ)^ on each oriented node
            G[:, loc] = np.einsum("mqi,qij->mqj", G[:, loc], cayley_spin_jacobian_batch(psi[first]))
        n_var, n_eq = p.table.n_var, self.eq_var.size
        self.Gbar_full = ColumnBlock(Abar, cols, n_var)
        pick, eqs = p.joint_equations(ext)
        pick_b, eqs_b = p.joint_equations(cols)
        return phi, ColumnBlock(G[:, pick], eqs, n_eq), ColumnBlock(Abar[:, pick_b], eqs_b, n_eq)

    def constraint_stiffness(self, multipliers):
        """∂(Ḡᵀλ)/∂z over the free equations at the last discrete Jacobian, multipliers
        fixed (exact for the 3-D joints and the translational kinds): a SquareBlock over
        the jointed equations."""
        H, cols = self.p.joint_stiffness_block(multipliers, discrete=True)
        pick, eqs = self.p.joint_equations(cols)
        return SquareBlock(H[np.ix_(pick, pick)], eqs, self.eq_var.size)

    # ---------------------------------------------------------------- end of step
    def finish(self, z):
        """New state (rotational slots of u: log R; of v: spatial angular velocity) and the
        step's energy terms (joint multipliers of the accepted state: ``self.multipliers``)."""
        p, h, lay = self.p, self.h, self.lay
        last = self.last  # the Newton loop leaves the system evaluated at the accepted z
        R1, pi1, psi = last["R1"], last["pi1"], last["psi"]
        u1 = last["u1"]
        lay.write_vectors(u1, R1)
        v1 = (2.0 / h) * z - self.s.v
        fallback = (2.0 / h) * psi - self.s.v[lay.var]  # nodes without rotary inertia
        v1[lay.var] = p.rotary.angular_velocity(R1, pi1, fallback)
        c = self.c
        moments = self.f_ext  # f_const + f_s(t_{n+½})
        work = float(self.f_s[c.plain] @ z[c.plain]) + float(moments[c.rot3d] @ z[c.rot3d])
        if last.get("fl") is not None:
            work += float(last["fl"] @ z)
        fd = last.get("fd")
        terms = dict(work=work, dissipated=0.0 if fd is None else float(fd @ z),
                     constraint=self.prescribed_work(last["R"], z) + self.joint_work(z, self.multipliers))
        extra = {"R": R1, "pi": pi1}
        if p.point_inertia:
            extra["points_x"], extra["points_v"] = p.point_inertia.finish(self.s, u1, R1, h)
            terms["work"] += p.point_inertia.gravity_work(self.s, extra["points_x"], self.s.t + 0.5 * h)
        if getattr(p, "offset_points", None):
            extra["offset_x"], extra["offset_v"] = p.offset_points.finish(self.s, u1, R1, h)
            terms["work"] += p.offset_points.gravity_work(self.s, extra["offset_x"], self.s.t + 0.5 * h)
        if self.multipliers is not None:
            extra["multipliers"] = np.asarray(self.multipliers, dtype=np.float64)
        return State(self.t1, u1, v1, extra=extra), terms
