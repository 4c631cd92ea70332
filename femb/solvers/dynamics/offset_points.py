"""Mass points rigidly attached to oriented nodes: beam sections whose mass centre is off
the node line, in the energy-conserving mid-point scheme.

A beam3d / beam3d_timoshenko section whose mass centre lies at (ym, zm) in the section
axes (``ym``, ``zm`` properties; a homogeneous section's centroid) carries its lumped
translational mass as one point per element end: mass m = ρA l0/2 at

    x_p = x_a + R_a d,   d = R0 (0, ym, zm)   (R0 the element's reference section triad)

rigidly attached to node a (``femb.elements.beam3d.mass_points``). The node keeps the
section's rotary inertia about the mass-centre line (ρIp, ρIy, ρIz, femb's Simo–Wong
nodal rigid body, femb.solvers.dynamics.midpoint3d); the parallel-axis part m (|d|² I − d dᵀ)
and the translation–rotation coupling are the point's. The element mass matrix of the
points at the reference (``block_masses``) is taken out of the element masses before they
are split into the constant translational mass and the nodal rotary inertia
(femb.solvers.problem.split_rotary_mass).

Mid-point step. With the Cayley update R_{n+1} = cay(ψ) R_n one has exactly
R_{n+1} − R_n = ψ̂ (R_{n+1} + R_n)/2, so the point moves by

    Δx_p = Δx_a + (R_{n+1} − R_n) d = Δx_a − r̄ × ψ,   r̄ = (R_n + R_{n+1}) d/2,

linear in the step unknowns (Δx_a, ψ) with the exact discrete derivative J̄ = [I, −r̂̄].
Each point is a particle with the mid-point rule v_{p,n+1} = 2 Δx_p/h − v_{p,n}; its
velocity is step state (``State.extra["offset_v"]``, positions ``"offset_x"``,
(n_points, 3)). Its inertia (and weight) enter the step's residual as

    J̄ᵀ F,   F = m (v_{p,n+1} − v_{p,n})/h − m g(t_{n+½}),  i.e.  F on the node's translations,
                                                           r̄ × F on its rotations,

so that F·Δx_p = Δ(½ m |v_p|²) − m g·Δx_p exactly (energy), the linear momentum changes
by h Σ(F + m g), and, since x_{p,m} = x_{a,m} + r̄, the moment of F about the origin
x_{a,m} × F + r̄ × F is the change of the point's angular momentum x_p × m v_p exactly
(angular momentum). The Newton matrix is the exact derivative of J̄ᵀ F (with
δR_{n+1} R_{n+1}ᵀ = (T(ψ) δψ)^, T the Cayley spin Jacobian, c = R_{n+1} d, k = 2m/h²)::

    [[k I, −k ĉ T], [k r̂̄, −k r̂̄ ĉ T + ½ F̂ ĉ T]]

The weight of the points acts on them (potential −Σ m g·(x_p − X_p) for a constant field,
external work of a timed one), not through the reference masses on the nodal variables.
"""
import numpy as np

from femb.core.rotations import cayley_spin_jacobian_batch, hat_batch
from femb.elements.beam2d import mass_points as planar_mass_points
from femb.elements.beam3d import mass_points
from femb.solvers.dynamics.point_gravity import PointGravity
from femb.solvers.problem import mass_centre_offsets

_POINT_KERNELS = {"beam3d": mass_points, "beam3d_timoshenko": mass_points}
"""Element types with a mass-centre offset whose ends carry node-attached mass points:
``kernel(X, p, m (n_el, 2), d (n_el, 2, 3))``."""


class OffsetPoints(PointGravity):
    """The node-attached mass points of the oriented blocks of a table whose sections have
    their mass centre off the node line (module docstring).

    Attributes
    ----------
    blocks : list of int, the indices of those blocks in ``table.blocks``
    node : (n_points,) int64, the node each point is attached to
    m : (n_points,) masses; d : (n_points, 3) levers from the node at the reference
    X : (n_points, 3) reference positions of the points
    tvar, rvar : (n_points, 3) the node's translational and rotational variables
    """

    def __init__(self, table):
        self.table = table
        self.blocks = []
        nodes, ms, ds, Xs, tv, rv, pos, self._block_masses = [], [], [], [], [], [], [], {}
        for i, b in enumerate(table.blocks):
            kernel = _POINT_KERNELS.get(b.spec.name)
            offsets = mass_centre_offsets(b)
            if kernel is None or offsets is None or not offsets.any():
                continue
            n_el = b.n_elements
            m, d = np.zeros((n_el, 2)), np.zeros((n_el, 2, 3))
            kernel(np.ascontiguousarray(b.X, dtype=np.float64), np.ascontiguousarray(b.props), m, d)
            self.blocks.append(i)
            nodes.append(b.cells.reshape(-1))
            ms.append(m.reshape(-1))
            ds.append(d.reshape(-1, 3))
            Xs.append(b.X.reshape(-1, 3))
            var = b.var.reshape(n_el, 2, 6)
            tv.append(var[:, :, :3].reshape(-1, 3))
            rv.append(var[:, :, 3:].reshape(-1, 3))
            pos.append(np.stack([b.pos[:, 6 * a: 6 * a + 6, 6 * a: 6 * a + 6] for a in range(2)], axis=1).reshape(-1, 6, 6))
            Me = np.zeros((n_el, 12, 12))
            for a in range(2):
                o = 6 * a
                mm, dd = m[:, a], d[:, a]
                D = hat_batch(dd)
                Me[:, o: o + 3, o: o + 3] = mm[:, None, None] * np.eye(3)
                Me[:, o: o + 3, o + 3: o + 6] = -mm[:, None, None] * D
                Me[:, o + 3: o + 6, o: o + 3] = mm[:, None, None] * D
                Me[:, o + 3: o + 6, o + 3: o + 6] = -mm[:, None, None] * (D @ D)
            self._block_masses[i] = Me

        def cat(parts, shape):
            return np.concatenate(parts) if parts else np.zeros(shape)

        self.node = cat(nodes, (0,)).astype(np.int64)
        self.m = cat(ms, (0,))
        self.d = cat(ds, (0, 3))
        self.X = cat(Xs, (0, 3))
        self.tvar = cat(tv, (0, 3)).astype(np.int64)
        self.rvar = cat(rv, (0, 3)).astype(np.int64)
        self.pos = cat(pos, (0, 6, 6)).astype(np.int64)
        self.gravity = np.zeros(3)
        self.gravity_timed = []

    def __bool__(self):
        return bool(self.blocks)

    def parts(self):
        """Names of the parts with node-attached mass points."""
        return [self.table.blocks[i].part for i in self.blocks]

    def block_masses(self, i):
        """(n_el, 12, 12) the element mass matrices of the points of block i at the reference
        (R = I): per end [[m I, −m d̂], [m d̂, −m d̂²]]; None for a block without points."""
        return self._block_masses.get(i)

    # ------------------------------------------------------------------ gravity
    def gravity_share(self, g):
        """(n_var,) the nodal gravity load of the field g that the points' reference masses
        contribute to M·g (forces m g on the translations, d × m g on the rotations)."""
        out = np.zeros(self.table.n_var)
        field = np.zeros(3)
        field[: len(g)] = np.asarray(g, dtype=np.float64)
        w = self.m[:, None] * field
        np.add.at(out, self.tvar.ravel(), w.ravel())
        np.add.at(out, self.rvar.ravel(), np.cross(self.d, w).ravel())
        return out

    def potential(self, state):
        """−Σ m g·(x_p − X_p) of the constant gravity field on the points of ``state``
        (X_p = X_a + d their reference positions)."""
        if not np.any(self.gravity):
            return 0.0
        return -float(self.gravity @ (self.m @ (state.extra["offset_x"] - self.X - self.d)))

    def gravity_work(self, state, x1, t_mid):
        """Work of the timed gravity loads on the points over a step (mid-time t_mid)."""
        if not self.gravity_timed:
            return 0.0
        g = sum(float(a(t_mid)) * f for a, f in self.gravity_timed)
        return float(g @ (self.m @ (x1 - state.extra["offset_x"])))

    # ------------------------------------------------------------------ state
    def positions(self, u, R):
        """(n_points, 3) x_p = X_a + u_a + R_a d at the state u (n_var,), rotations R
        (n_nodes, 3, 3)."""
        return self.X + u[self.tvar] + np.einsum("kij,kj->ki", R[self.node], self.d)

    def start(self, u, R, v):
        """(offset_x, offset_v) (n_points, 3) at u, v (n_var,) with rotations R: the rigid
        velocity v_a + ω_a × R_a d (ω the spatial angular velocity in v's rotational slots)."""
        r = np.einsum("kij,kj->ki", R[self.node], self.d)
        return self.X + u[self.tvar] + r, v[self.tvar] + np.cross(v[self.rvar], r)

    def finish(self, state, u1, R1, h):
        """(offset_x, offset_v) at the end of the step of size h from ``state`` to (u1, R1)."""
        x1 = self.positions(u1, R1)
        return x1, 2.0 * (x1 - state.extra["offset_x"]) / h - state.extra["offset_v"]

    # ------------------------------------------------------------------ step
    def assemble(self, oriented, h, state, force, matrix, t_mid=0.0):
        """Add the points' J̄ᵀ F (module docstring) into ``force`` (n_var,) and its exact
        derivative with respect to (Δx, ψ) into ``matrix`` (CSR data over the equations on
        the table's pattern; None: forces only) for the step of size h from ``state``;
        ``oriented`` = (u0, R0, u1, R1, um, Rm, ψ, D) as for the mid-point kernels."""
        u0, R0, u1, R1, psi = oriented[0], oriented[1], oriented[2], oriented[3], oriented[6]
        n, m = self.node, self.m
        b = np.einsum("kij,kj->ki", R0[n], self.d)
        c = np.einsum("kij,kj->ki", R1[n], self.d)
        rbar = 0.5 * (b + c)
        dx = u1[self.tvar] - u0[self.tvar] + c - b
        F = (2.0 * m / h)[:, None] * (dx / h - state.extra["offset_v"]) - m[:, None] * self.gravity_at(t_mid)
        np.add.at(force, self.tvar.ravel(), F.ravel())
        np.add.at(force, self.rvar.ravel(), np.cross(rbar, F).ravel())
        if matrix is None:
            return
        k = (2.0 * m / (h * h))[:, None, None]
        CT = hat_batch(c) @ cayley_spin_jacobian_batch(psi[n])
        Hr = hat_batch(rbar)
        K = np.zeros((n.size, 6, 6))
        K[:, :3, :3] = k * np.eye(3)
        K[:, :3, 3:] = -k * CT
        K[:, 3:, :3] = k * Hr
        K[:, 3:, 3:] = -k * (Hr @ CT) + 0.5 * (hat_batch(F) @ CT)
        ok = self.pos >= 0
        np.add.at(matrix, self.pos[ok], K[ok])

    # ------------------------------------------------------------------ α schemes
    def alpha_force(self, R, v, acc, t):
        """The points' inertia and weight in the Lie-group α step
        (femb.solvers.dynamics.alpha3d) at the rotations R (n_nodes, 3, 3), velocities v and
        true accelerations acc (n_var; spatial ω, ω̇ in the rotational slots) and time t:
        per point, with r = R_a d, the acceleration ẍ_p = ẍ_a + ω̇ × r + ω × (ω × r) and

            F = m ẍ_p − m g(t)   on the node's translations,   r × F   on its rotations.

        Returns (force (n_var,), F (n_points, 3), r (n_points, 3))."""
        n, m = self.node, self.m
        r = np.einsum("kij,kj->ki", R[n], self.d)
        w, wd = v[self.rvar], acc[self.rvar]
        xdd = acc[self.tvar] + np.cross(wd, r) + np.cross(w, np.cross(w, r))
        F = m[:, None] * (xdd - self.gravity_at(t))
        out = np.zeros(self.table.n_var)
        np.add.at(out, self.tvar.ravel(), F.ravel())
        np.add.at(out, self.rvar.ravel(), np.cross(r, F).ravel())
        return out, F, r

    def alpha_matrix(self, v, acc, F, r, Jinv, c_a, c_v, data):
        """Add the exact derivative of ``alpha_force`` with respect to the Newton
        corrections (translations; spatial spins δw of R_{n+1}, δr = δw × r) into ``data``
        (CSR data over the equations), with ∂ẍ/∂x = c_a, ∂ω̇/∂w = c_a J_L⁻¹, ∂ω/∂w =
        c_v J_L⁻¹ (``Jinv`` (n_nodes, 3, 3) the inverse left Jacobians of the nodes'
        increments, identity for nodes without rotations)::

            ∂F/∂x = m c_a I
            ∂F/∂w = m [−c_a r̂ J⁻¹ − (ω̇)^ r̂ + c_v ((ω·r) I + ω rᵀ − 2 r ωᵀ) J⁻¹ − ω̂ ω̂ r̂]
            ∂(r × F)/∂· = r̂ ∂F/∂· (+ F̂ r̂ for the spin)
        """
        m = self.m[:, None, None]
        w, wd = v[self.rvar], acc[self.rvar]
        Ji = Jinv[self.node]
        Hr, W = hat_batch(r), hat_batch(w)
        I3 = np.eye(3)
        wr = np.einsum("ki,ki->k", w, r)[:, None, None]
        dF = m * (-c_a * (Hr @ Ji) - hat_batch(wd) @ Hr
                  + c_v * ((wr * I3 + np.einsum("ki,kj->kij", w, r) - 2.0 * np.einsum("ki,kj->kij", r, w)) @ Ji)
                  - W @ W @ Hr)
        K = np.zeros((self.node.size, 6, 6))
        K[:, :3, :3] = m * c_a * I3
        K[:, :3, 3:] = dF
        K[:, 3:, :3] = m * c_a * Hr
        K[:, 3:, 3:] = Hr @ dF + hat_batch(F) @ Hr
        ok = self.pos >= 0
        np.add.at(data, self.pos[ok], K[ok])

    def spatial_mass_data(self, R):
        """The points' mass in (ẍ, ω̇) at the rotations R as CSR data over the equations:
        per point [[m I, −m r̂], [m r̂, −m r̂ r̂]], r = R_a d."""
        r = np.einsum("kij,kj->ki", R[self.node], self.d)
        m = self.m[:, None, None]
        Hr = hat_batch(r)
        K = np.zeros((self.node.size, 6, 6))
        K[:, :3, :3] = m * np.eye(3)
        K[:, :3, 3:] = -m * Hr
        K[:, 3:, :3] = m * Hr
        K[:, 3:, 3:] = -m * (Hr @ Hr)
        data = self.table.new_matrix_data()
        ok = self.pos >= 0
        np.add.at(data, self.pos[ok], K[ok])
        return data

    # ------------------------------------------------------------------ books
    def masses(self):
        """(n_points,) the point masses, in the order of the state arrays."""
        return self.m

    def kinetic_energy(self, state):
        """Σ ½ m |v_p|² of the points of ``state``."""
        vs = state.extra["offset_v"]
        return 0.5 * float(np.einsum("j,ji,ji->", self.m, vs, vs))

    def momenta(self, state):
        """(Σ m v_p (3,), Σ x_p × m v_p (3,)) of the points of ``state``."""
        mv = self.m[:, None] * state.extra["offset_v"]
        return mv.sum(axis=0), np.cross(state.extra["offset_x"], mv).sum(axis=0)


_PLANAR_KERNELS = {"beam2d": planar_mass_points, "beam2d_timoshenko": planar_mass_points}
"""Planar element types with a mass-centre offset: ``kernel(X, p, m (n_el, 2), d (n_el, 2, 2))``."""


def _perp(a):
    """k × a (…, 2) for the unit normal k of the plane."""
    return np.stack([-a[..., 1], a[..., 0]], axis=-1)


class PlanarOffsetPoints:
    """The node-attached mass points of planar blocks (beam2d, beam2d_timoshenko) whose
    mass centre lies at ``ym`` along the section's y axis: per element end a mass
    m = ρA l0/2 at x_p = x_a + R(θ_a) d, d = ym n0.

    The planar mid-point scheme's rotational unknown is the Cayley parameter
    τ = 2 tan(Δθ/2) (femb.solvers.dynamics.schemes), for which R(θ_{n+1}) − R(θ_n) =
    τ k̂ (R(θ_n) + R(θ_{n+1}))/2 exactly, so Δx_p = Δx_a + τ k × r̄, r̄ = (R(θ_n) + R(θ_{n+1})) d/2,
    and F = m (v_{p,n+1} − v_{p,n})/h − m g acts as F on the node's translations and as
    (k × r̄)·F = r̄ × F on its rotation: energy, linear and angular momentum are exact as in
    3-D (module docstring). With q = dθ_{n+1}/dτ = 1/(1 + τ²/4), c = R(θ_{n+1}) d and
    k_m = 2m/h², the Newton matrix is
    [[k_m I, k_m q k×c], [k_m (k×r̄)ᵀ, k_m q r̄·c − ½ q c·F]].

    Attributes as ``OffsetPoints`` with 2-vectors; ``rvar`` (n_points,) the node's
    rotational variable.
    """

    def __init__(self, table):
        self.table = table
        self.blocks = []
        nodes, ms, ds, Xs, tv, rv, pos, self._block_masses = [], [], [], [], [], [], [], {}
        for i, b in enumerate(table.blocks):
            kernel = _PLANAR_KERNELS.get(b.spec.name)
            offsets = mass_centre_offsets(b)
            if kernel is None or offsets is None or not offsets.any():
                continue
            n_el = b.n_elements
            m, d = np.zeros((n_el, 2)), np.zeros((n_el, 2, 2))
            kernel(np.ascontiguousarray(b.X[:, :, :2], dtype=np.float64), np.ascontiguousarray(b.props), m, d)
            self.blocks.append(i)
            nodes.append(b.cells.reshape(-1))
            ms.append(m.reshape(-1))
            ds.append(d.reshape(-1, 2))
            Xs.append(b.X[:, :, :2].reshape(-1, 2))
            var = b.var.reshape(n_el, 2, 3)
            tv.append(var[:, :, :2].reshape(-1, 2))
            rv.append(var[:, :, 2].reshape(-1))
            pos.append(np.stack([b.pos[:, 3 * a: 3 * a + 3, 3 * a: 3 * a + 3] for a in range(2)], axis=1).reshape(-1, 3, 3))
            Me = np.zeros((n_el, 6, 6))
            for a in range(2):
                o, mm, dd = 3 * a, m[:, a], d[:, a]
                Me[:, o, o] = Me[:, o + 1, o + 1] = mm
                Me[:, o, o + 2] = Me[:, o + 2, o] = -mm * dd[:, 1]
                Me[:, o + 1, o + 2] = Me[:, o + 2, o + 1] = mm * dd[:, 0]
                Me[:, o + 2, o + 2] = mm * (dd[:, 0] ** 2 + dd[:, 1] ** 2)
            self._block_masses[i] = Me

        def cat(parts, shape):
            return np.concatenate(parts) if parts else np.zeros(shape)

        self.node = cat(nodes, (0,)).astype(np.int64)
        self.m = cat(ms, (0,))
        self.d = cat(ds, (0, 2))
        self.X = cat(Xs, (0, 2))
        self.tvar = cat(tv, (0, 2)).astype(np.int64)
        self.rvar = cat(rv, (0,)).astype(np.int64)
        self.pos = cat(pos, (0, 3, 3)).astype(np.int64)
        self.gravity = np.zeros(2)
        self.gravity_timed = []

    __bool__ = OffsetPoints.__bool__
    parts = OffsetPoints.parts
    block_masses = OffsetPoints.block_masses
    masses = OffsetPoints.masses
    kinetic_energy = OffsetPoints.kinetic_energy
    gravity_at = OffsetPoints.gravity_at
    potential = OffsetPoints.potential
    gravity_work = OffsetPoints.gravity_work

    def add_gravity(self, g, amplitude=None):
        """A gravity load g (2 components) on the points (see ``OffsetPoints.add_gravity``)."""
        field = np.asarray(g, dtype=np.float64)[:2]
        if amplitude is None:
            self.gravity = self.gravity + field
        else:
            self.gravity_timed.append((amplitude, field))

    def gravity_share(self, g):
        """(n_var,) the nodal gravity load of the field g that the points' reference masses
        contribute to M·g (m g on the translations, d × m g on the rotation)."""
        out = np.zeros(self.table.n_var)
        w = self.m[:, None] * np.asarray(g, dtype=np.float64)[:2]
        np.add.at(out, self.tvar.ravel(), w.ravel())
        np.add.at(out, self.rvar, self.d[:, 0] * w[:, 1] - self.d[:, 1] * w[:, 0])
        return out

    def _levers(self, u):
        """R(θ_a) d (n_points, 2) at the variables u (θ the additive nodal angles)."""
        th = u[self.rvar]
        c, s = np.cos(th), np.sin(th)
        return np.stack([c * self.d[:, 0] - s * self.d[:, 1], s * self.d[:, 0] + c * self.d[:, 1]], axis=1)

    def positions(self, u):
        """(n_points, 2) x_p = X_a + u_a + R(θ_a) d at the variables u (n_var,)."""
        return self.X + u[self.tvar] + self._levers(u)

    def start(self, u, v):
        """(offset_x, offset_v) (n_points, 2) at u, v (n_var,): the rigid velocity
        v_a + θ̇_a k × R(θ_a) d."""
        r = self._levers(u)
        return self.X + u[self.tvar] + r, v[self.tvar] + v[self.rvar][:, None] * _perp(r)

    def finish(self, state, u1, h):
        """(offset_x, offset_v) at the end of the step of size h from ``state`` to u1."""
        x1 = self.positions(u1)
        return x1, 2.0 * (x1 - state.extra["offset_x"]) / h - state.extra["offset_v"]

    def assemble(self, u0, u1, z, h, state, force, matrix, t_mid=0.0):
        """Add the points' step force (class docstring) into ``force`` (n_var,) and its exact
        derivative with respect to the step unknowns (Δx, τ) into ``matrix`` (CSR data over
        the equations; None: forces only) for the step u0 → u1 (z the unknowns: τ in the
        rotational slots) of size h from ``state``."""
        m = self.m
        b, c = self._levers(u0), self._levers(u1)
        rbar = 0.5 * (b + c)
        dx = u1[self.tvar] - u0[self.tvar] + c - b
        F = (2.0 * m / h)[:, None] * (dx / h - state.extra["offset_v"]) - m[:, None] * self.gravity_at(t_mid)
        np.add.at(force, self.tvar.ravel(), F.ravel())
        np.add.at(force, self.rvar, rbar[:, 0] * F[:, 1] - rbar[:, 1] * F[:, 0])
        if matrix is None:
            return
        km = 2.0 * m / (h * h)
        tau = z[self.rvar]
        q = 1.0 / (1.0 + 0.25 * tau * tau)
        kc, kr = _perp(c), _perp(rbar)
        K = np.zeros((m.size, 3, 3))
        K[:, 0, 0] = K[:, 1, 1] = km
        K[:, :2, 2] = (km * q)[:, None] * kc
        K[:, 2, :2] = km[:, None] * kr
        K[:, 2, 2] = km * q * (rbar * c).sum(axis=1) - 0.5 * q * (c * F).sum(axis=1)
        ok = self.pos >= 0
        np.add.at(matrix, self.pos[ok], K[ok])

    # ------------------------------------------------------------------ α schemes
    def evaluate(self, u, v, a, c_a=None, c_v=None, data=None, t=0.0):
        """The points in the α schemes' configuration-dependent-mass slot
        (femb.solvers.dynamics.variable_mass): with J(θ) = [I, k × r], r = R(θ_a) d, the
        generalized inertia of a point is Jᵀ m ẍ_p = M(θ) ü + h with

            M(θ) = m [[I, k×r], [(k×r)ᵀ, |r|²]],   h = Jᵀ (−m θ̇² r − m g(t)),

        i.e. the quadratic-velocity (centripetal) term −m θ̇² r on the node's translations
        and −r × m g (the weight's moment, on the left-hand side) on its rotation (the
        rotational row of the centripetal term vanishes, (k×r)·r = 0). Returns (M(θ) a (n_var,), h (n_var,)) at
        the variables u, v, a (n_var,) and time t; with ``data`` (CSR data over the
        equations) adds the exact Newton matrix
        c_a[0] M + c_a[1] ∂(M a)/∂u + c_v[0] ∂h/∂u + c_v[1] ∂h/∂v (weights as
        ``VariableMass.evaluate``)."""
        m = self.m
        r = self._levers(u)
        kr = _perp(r)
        ax, al, w = a[self.tvar], a[self.rvar], v[self.rvar]
        g = self.gravity_at(t)
        Ma_t = m[:, None] * (ax + al[:, None] * kr)
        Ma_r = m * ((kr * ax).sum(axis=1) + al * (r * r).sum(axis=1))
        f = -m[:, None] * ((w * w)[:, None] * r + g)
        h_r = (kr * f).sum(axis=1)
        out_Ma = np.zeros(self.table.n_var)
        out_h = np.zeros(self.table.n_var)
        np.add.at(out_Ma, self.tvar.ravel(), Ma_t.ravel())
        np.add.at(out_Ma, self.rvar, Ma_r)
        np.add.at(out_h, self.tvar.ravel(), f.ravel())
        np.add.at(out_h, self.rvar, h_r)
        if data is None:
            return out_Ma, out_h
        (wM, wMa), (wh, whv) = c_a, c_v
        K = np.zeros((m.size, 3, 3))
        K[:, 0, 0] = K[:, 1, 1] = wM * m
        K[:, :2, 2] = wM * m[:, None] * kr
        K[:, 2, :2] = wM * m[:, None] * kr
        K[:, 2, 2] = wM * m * (r * r).sum(axis=1)
        # ∂(M a)/∂θ = [−m θ̈ r, −m r·ẍ_a]; ∂h/∂θ = [−m θ̇² k×r, m r·g]; ∂h/∂θ̇ = [−2 m θ̇ r, 0]
        K[:, :2, 2] += (wMa * m * al)[:, None] * (-r) + (wh * m * w * w)[:, None] * (-kr) + (whv * 2.0 * m * w)[:, None] * (-r)
        K[:, 2, 2] += -wMa * m * (r * ax).sum(axis=1) + wh * m * (r @ g)
        ok = self.pos >= 0
        np.add.at(data, self.pos[ok], K[ok])
        return out_Ma, out_h

    def mass_data(self, u):
        """M(θ) of the points (class ``evaluate``) as CSR data (nnz,) over the equations."""
        data = self.table.new_matrix_data()
        zero = np.zeros(self.table.n_var)
        self.evaluate(u, zero, zero, c_a=(1.0, 0.0), c_v=(0.0, 0.0), data=data)
        return data

    def momenta(self, state):
        """(Σ m v_p (2,), (Σ x_p × m v_p,) (1,)) of the points of ``state``."""
        mv = self.m[:, None] * state.extra["offset_v"]
        x = state.extra["offset_x"]
        return mv.sum(axis=0), np.array([float((x[:, 0] * mv[:, 1] - x[:, 1] * mv[:, 0]).sum())])
