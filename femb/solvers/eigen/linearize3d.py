"""Reduced dynamics of models with 3-D rotations (oriented nodes) for ``linearize``.

Coordinates. The perturbation q over the free equations holds the translations ξ and, at
every oriented node, a rotation increment w: a spatial spin about the operating rotation,
R = exp(ŵ) R₀ (femb's convention: the static tangent and the mid-point step update
R ← exp(δŵ) R; femb.solvers.configuration). Its rate ẇ gives the angular velocity
ω = T(w) ẇ, T the left Jacobian of exp (femb.core.rotations.left_jacobian).

Frame. With ``spin`` Ω (a constant vector) and ``point`` p the coordinates are measured in
a frame turning rigidly at Ω about the axis through p: x = p + Q(t)(x₀ + ξ − p),
R = Q(t) exp(ŵ) R₀, Q = exp(t Ω̂), so at t = 0

    v = Ω × (x − p) + ξ̇,                         ω = Ω + T(w) ẇ,
    ξ̈ = a − 2 Ω × ξ̇ − Ω × (Ω × (x − p)),          ẅ = T⁻¹ (ω̇ − Ω × (T ẇ) − Ṫ ẇ).

Rotational rates of the operating point relative to the frame, ω_rel = ω₀ − Ω, are followed
as steady spins about body-fixed axes: R = Q(t) exp(ŵ) exp(t ω̂_rel) R₀, so that
ω = Ω + T ẇ + exp(ŵ) ω_rel, the rates ẇ start at zero, and

    ẅ = T⁻¹ (ω̇ − Ω × (T ẇ + r) − Ṫ ẇ − (T ẇ) × r),   r = exp(ŵ) ω_rel.

A body spinning about an axis of symmetry of its inertia (a heavy top in steady
precession, seen from the frame turning at the precession rate) is then an equilibrium too;
otherwise A is the instantaneous linearization about the reference motion.

A steady motion that is a rigid rotation at Ω (a sleeping top, a beam in steady spin) is
then an equilibrium of the reduced equations, and the eigenvalues of A are its stability
exponents; Ω = 0 gives the linearization in the fixed frame (about an equilibrium, or at a
trajectory point).

Dynamics (continuous-time, the equations the mid-point step of
femb.solvers.dynamics.midpoint3d discretizes): constant translational mass M, nodal rotary
inertia J = R J₀ Rᵀ with spatial angular momentum π = J ω, so at the rotational equations
J ω̇ + ω × (J ω) = m_ext − f_int,ψ − (Gᵀλ)_ψ; the joints add G A = −Ġ V (columns of
rotational variables per unit spatial spin; (Ġ V)_i = Vᵀ ∇²Φ_i V with the joint curvature
of statics and modal analysis, ConstraintSet.hessian_term).

Driven DOFs (time-dependent prescribed translations, and rotations about fixed axes,
``RotationLayout.prescribed_at``) take their values at t; their velocities v_p (spatial
angular velocities for rotations) and accelerations a_p (by central differences in t with
one Richardson extrapolation) enter the constraint rates G_p v_p, the constraint
accelerations (Vᵀ∇²Φ V over the whole motion, −G_p a_p) and the inertia (−M_fp a_p). Not in a
turning frame.
"""
import numpy as np

from femb.core.errors import InputError
from femb.core.rotations import exp_so3, left_jacobian
from femb.solvers.configuration import Configuration
from femb.solvers.problem import full_matrix, nodal_body_inertia, reference_coordinates, split_rotary_mass


def nodal_masses(prob, kind):
    """(M_t CSR (n_var, n_var) translational mass, J0 (k, 3, 3) body-frame rotary inertia
    of each oriented node, owner (k,) bool): the split of the element masses that the
    mid-point step of oriented models uses (femb.solvers.problem.split_rotary_mass and
    nodal_body_inertia; each oriented node a rigid body). A mass coupling translations and
    rotations raises ModelError."""
    tab, lay = prob.table, prob.rotations
    parts = [split_rotary_mass(b, Me) for b, Me in zip(tab.blocks, prob.assembler.element_masses(kind, R=lay.identity()))]
    J0, owner = nodal_body_inertia(full_matrix(tab, [Mr for _, Mr in parts]), lay)
    return full_matrix(tab, [Mt for Mt, _ in parts]), J0, owner


def _rotate(w, a):
    """exp(ŵ) a."""
    E = np.empty((3, 3))
    exp_so3(np.ascontiguousarray(w, dtype=np.float64), E)
    return E @ a


def _T(w):
    out = np.empty((3, 3))
    left_jacobian(np.ascontiguousarray(w, dtype=np.float64), out)
    return out


class OrientedDynamics:
    """q̈ = f(q, q̇, r) of an oriented model in the coordinates of the module docstring
    (dense, for moderate sizes)."""

    def __init__(self, prob, model, u0, R0, v0, t, dep, ind, inputs, mass_kind, spin, point):
        self.p, self.t, self.tab = prob, t, prob.table
        tab = self.tab
        if prob.assembler.damping_matrix() is not None:
            raise InputError("linearize: dampers in models with 3-D rotations are not supported yet", "linearize")
        self.M_full, self.J0, self.rot_owner = nodal_masses(prob, mass_kind)
        self.rot3d = np.zeros(tab.n_var, dtype=bool)
        self.rot3d[prob.rotations.var.ravel()] = True
        self.lay = prob.rotations
        u0, R0, v0 = u0.copy(), R0.copy(), v0.copy()
        self._driven(u0, R0, v0)
        if self.driven and spin is not None:
            raise InputError("linearize: time-dependent prescribed DOFs cannot be linearized in a turning frame (spin)", "linearize")
        self.x0 = Configuration(u0, R0, self.lay)
        self.v0 = v0
        self.dep, self.ind, self.inputs = dep, ind, inputs
        self.Om = np.zeros(3) if spin is None else np.asarray(spin, dtype=np.float64)
        self.point = np.zeros(3) if point is None else np.asarray(point, dtype=np.float64)
        n = tab.n_eq
        # translational nodes: (k, 3) variables and equations of ux, uy, uz
        cols = [tab.dof_names.index(d) for d in ("ux", "uy", "uz")]
        tv = tab.node_var[:, cols]
        has = np.all(tv >= 0, axis=1)
        self.tvar = tv[has]
        self.teq = tab.var_eq[self.tvar]
        self.Xref = reference_coordinates(model, tab)[self.tvar]
        self.req = self.lay.eq  # (k, 3) rotational equations of the oriented nodes
        # equation → kind: rotational equations are spins
        self.is_rot = np.zeros(n, dtype=bool)
        self.is_rot[self.req[self.req >= 0]] = True
        self.M_t = self.M_full[tab.eq_var][:, tab.eq_var].toarray()
        self.f_ext_fixed = None if t is None else prob.loads.total(t)
        # operating rates in the coordinates
        x = u0[self.tvar] + self.Xref
        qd = np.zeros(n)
        vt = v0[self.tvar] - np.cross(self.Om, x - self.point)
        m = self.teq >= 0
        qd[self.teq[m]] = vt[m]
        # rotational rates of the operating point relative to the frame: steady spins about
        # body-fixed axes that the coordinates follow (their rates ẇ start at zero)
        self.wrel = v0[self.lay.var] - self.Om
        self.wrel[self.req < 0] = 0.0
        self.qd0 = qd

    def _driven(self, u0, R0, v0):
        """Values (into u0, R0), velocities (into v0 and ``vp``) and accelerations ``ap``
        (n_var,) of the driven DOFs at t (module docstring)."""
        tab, lay, t = self.tab, self.lay, self.t
        self.vp, self.ap = np.zeros(tab.n_var), np.zeros(tab.n_var)
        recs = [(vars_, rec) for vars_, rec in tab.prescribed if rec.function is not None]
        self.driven = bool(recs)
        if not recs:
            return
        if t is None:
            raise InputError("linearize: the model has time-dependent prescribed DOFs; give the time t of the operating point",
                             "linearize")
        h = 1e-3 * max(1.0, abs(float(t)))

        def value(rec, tt):
            return float(rec.function(tt)) if rec.function is not None else float(rec.value)

        rot_vars = set(int(x) for x in lay.var.ravel())
        for vars_, rec in recs:
            tv = [int(x) for x in np.atleast_1d(vars_) if int(x) not in rot_vars]
            if not tv:
                continue

            def d1(s, rec=rec):
                return (value(rec, t + s) - value(rec, t - s)) / (2.0 * s)

            def d2(s, rec=rec):
                return (value(rec, t + s) - 2.0 * value(rec, t) + value(rec, t - s)) / (s * s)

            u0[tv] = value(rec, t)
            self.vp[tv] = (4.0 * d1(0.5 * h) - d1(h)) / 3.0
            self.ap[tv] = (4.0 * d2(0.5 * h) - d2(h)) / 3.0
        if lay.prescribed_records():
            rows, Rt = lay.prescribed_at(lambda rec: value(rec, t))

            def omega(tt, s):  # spatial angular velocity vee(Ṙ Rᵀ) by a central difference
                Rp, Rm = lay.prescribed_at(lambda rec: value(rec, tt + s))[1], lay.prescribed_at(lambda rec: value(rec, tt - s))[1]
                W = (Rp - Rm) @ lay.prescribed_at(lambda rec: value(rec, tt))[1].transpose(0, 2, 1) / (2.0 * s)
                return 0.5 * np.stack([W[:, 2, 1] - W[:, 1, 2], W[:, 0, 2] - W[:, 2, 0], W[:, 1, 0] - W[:, 0, 1]], axis=1)

            def w_rich(tt):
                return (4.0 * omega(tt, 0.25 * h) - omega(tt, 0.5 * h)) / 3.0

            def alpha(s):
                return (w_rich(t + s) - w_rich(t - s)) / (2.0 * s)

            R0[lay.nodes[rows]] = Rt
            lay.write_vectors(u0, R0)
            self.vp[lay.var[rows]] = w_rich(t)
            self.ap[lay.var[rows]] = (4.0 * alpha(0.5 * h) - alpha(h)) / 3.0
        dv = np.flatnonzero(self.vp) if self.vp.any() else np.zeros(0, np.int64)
        v0[dv] = self.vp[dv]

    # ------------------------------------------------------------------ kinematics
    def configuration(self, q):
        """The configuration at coordinates q (n_eq,): x₀ + ξ, exp(ŵ) R₀."""
        return self.x0.apply(q)

    def tmap(self, q):
        """(n_eq, n_eq) the map of coordinate rates to velocities (I on translations, T(w)
        on each oriented node's rotational equations)."""
        n = q.size
        Tm = np.eye(n)
        for e in self.req:
            m = e >= 0
            if not m.any():
                continue
            w = np.zeros(3)
            w[m] = q[e[m]]
            Tm[np.ix_(e[m], e[m])] = _T(w)[np.ix_(m, m)]
        return Tm

    def frame_velocity(self, u, q):
        """(n_eq,) velocities at zero coordinate rates: Ω × (x − p) on translations,
        Ω + exp(ŵ) ω_rel on spins."""
        V = np.zeros(self.tab.n_eq)
        x = u[self.tvar] + self.Xref
        vt = np.cross(self.Om, x - self.point)
        m = self.teq >= 0
        V[self.teq[m]] = vt[m]
        for k, e in enumerate(self.req):
            m = e >= 0
            w = np.zeros(3)
            w[m] = q[e[m]]
            om = self.Om + _rotate(w, self.wrel[k])
            V[e[m]] = om[m]
        return V

    def joints(self, cfg, full=False):
        """(Φ, G dense over the equations, or over all variables with ``full``) of the
        active joint rows at a configuration."""
        p = self.p
        phi, G = p.joints.evaluate(cfg.u, self.t or 0.0, rotations=cfg.R)
        G = G[p.active_rows]
        return phi[p.active_rows], (G.toarray() if full else G[:, self.tab.eq_var].toarray())

    def state(self, qi, qdi):
        """(q, q̇ over all equations, configuration, velocities V) from the independent
        coordinates and rates."""
        q = np.zeros(self.tab.n_eq)
        q[self.ind] = qi
        cfg = self.configuration(q)
        if self.p.joints is not None:
            for _ in range(50):  # Newton on the dependent coordinates: Φ(q) = 0
                phi, G = self.joints(cfg)
                if np.linalg.norm(phi) <= 1e-14 * self.p.length_scale:
                    break
                GT = G @ self.tmap(q)
                q[self.dep] -= np.linalg.solve(GT[:, self.dep], phi)
                cfg = self.configuration(q)
        qd = self.qd0.copy()
        qd[self.ind] = qdi
        Tm = self.tmap(q)
        Vf = self.frame_velocity(cfg.u, q)
        if self.p.joints is not None:
            G = self.joints(cfg)[1]
            GT = G @ Tm
            rest = np.setdiff1d(np.arange(q.size), self.dep)
            rhs = G @ Vf + GT[:, rest] @ qd[rest]
            if self.driven:  # G_p v_p of the driven DOFs
                rhs = rhs + self.joints(cfg, full=True)[1] @ self.vp
            qd[self.dep] = -np.linalg.solve(GT[:, self.dep], rhs)
        return q, qd, cfg, Vf + Tm @ qd

    # ------------------------------------------------------------------ dynamics
    def accelerations(self, cfg, V, r):
        """(A (n_eq,), λ): translational accelerations and spatial angular accelerations."""
        p, tab = self.p, self.tab
        u, R = cfg.u, cfg.R
        f_ext = p.external(1.0, cfg) if self.t is None else self.f_ext_fixed + (
            p.loads.moments(R, t=self.t) if p.loads.has_moment_loads else 0.0)
        F = tab.free(f_ext - p.assembler.internal_force(u, R=R)) + r @ self.inputs
        if self.driven:  # inertia of the driven translations' accelerations (translational mass)
            F = F - tab.free(self.M_full @ np.where(self.rot3d, 0.0, self.ap))
        M = self.M_t.copy()
        Jsp = np.einsum("kij,kjl,kml->kim", R[self.lay.nodes], self.J0, R[self.lay.nodes])
        for k, e in enumerate(self.req):
            if not self.rot_owner[k]:
                continue
            m = e >= 0
            w = np.zeros(3)
            w[m] = V[e[m]]
            g = np.cross(w, Jsp[k] @ w)
            M[np.ix_(e[m], e[m])] += Jsp[k][np.ix_(m, m)]
            F[e[m]] -= g[m]
        if p.joints is None:
            return np.linalg.solve(M, F), np.zeros(0)
        # γ = −Ġ V: row i is −Vᵀ ∇²Φ_i V, the second derivative of Φ_i along the motion
        # exp(s V̂) (the joint curvature in spin coordinates, exact; a difference quotient
        # of G would carry its rounding times |V|² into the outer differences)
        Gfull = self.joints(cfg, True)[1]  # evaluates the joints at cfg for the curvature
        G = Gfull[:, tab.eq_var]
        Vall = self.vp.copy()
        Vall[tab.eq_var] = V
        mrow = G.shape[0]
        gamma = np.empty(mrow)
        for i in range(mrow):
            e = np.zeros(mrow)
            e[i] = 1.0
            gamma[i] = -Vall @ (p.joints.hessian_term(p.all_multipliers(e)) @ Vall)
        if self.driven:  # −G_p a_p of the driven DOFs
            gamma = gamma - Gfull @ self.ap
        S = np.block([[M, G.T], [G, np.zeros((mrow, mrow))]])
        sol = np.linalg.solve(S, np.concatenate([F, gamma]))
        return sol[: tab.n_eq], sol[tab.n_eq:]

    def coordinate_accelerations(self, q, qd, cfg, A):
        """q̈ from the accelerations A (module docstring)."""
        out = A.copy()
        x = cfg.u[self.tvar] + self.Xref
        xi_d = np.zeros_like(x)
        m = self.teq >= 0
        xi_d[m] = qd[self.teq[m]]
        a = np.zeros_like(x)
        a[m] = A[self.teq[m]]
        Om = self.Om
        acc = a - 2.0 * np.cross(Om, xi_d) - np.cross(Om, np.cross(Om, x - self.point))
        out[self.teq[m]] = acc[m]
        for k, e in enumerate(self.req):
            m = e >= 0
            if not m.any():
                continue
            w, wd, wdd = np.zeros(3), np.zeros(3), np.zeros(3)
            w[m], wd[m], wdd[m] = q[e[m]], qd[e[m]], A[e[m]]
            T = _T(w)
            h = 1e-3 / max(np.linalg.norm(wd), 1e-300)

            def Tdot(s):
                return (_T(w + s * wd) - _T(w - s * wd)) @ wd / (2.0 * s)

            Tdw = (4.0 * Tdot(0.5 * h) - Tdot(h)) / 3.0 if np.any(wd) else np.zeros(3)
            rel = _rotate(w, self.wrel[k])
            acc = np.linalg.solve(T, wdd - np.cross(Om, T @ wd + rel) - Tdw - np.cross(T @ wd, rel))
            out[e[m]] = acc[m]
        return out

    def f(self, qi, qdi, r):
        """Independent coordinate accelerations at independent coordinates, rates, inputs."""
        q, qd, cfg, V = self.state(qi, qdi)
        A = self.accelerations(cfg, V, r)[0]
        return self.coordinate_accelerations(q, qd, cfg, A)[self.ind]

    def mass(self):
        """Mass over the equations at the operating point (translational mass and the
        spatial rotary inertia)."""
        M = self.M_t.copy()
        R = self.x0.R[self.lay.nodes]
        Jsp = np.einsum("kij,kjl,kml->kim", R, self.J0, R)
        for k, e in enumerate(self.req):
            m = e >= 0
            if self.rot_owner[k] and m.any():
                M[np.ix_(e[m], e[m])] += Jsp[k][np.ix_(m, m)]
        return M
