"""Linearization of constrained models in independent coordinates.

The equations of motion M(q) q̈ + f_int(q) + C_d q̇ + Gᵀλ = f_ext(t) + Σ r_k b_k with joint
constraints Φ(q) = 0 are reduced to the independent coordinates z (a subset of the free
equations chosen by pivoting on the constraint Jacobian at the operating point, or given
by the user and checked): the dependent coordinates follow from Φ(q) = 0, their rates
from G q̇ = 0, and the accelerations from the constrained dynamics. The reduced
right-hand side z̈ = f(z, ż, r) is exact (no Jacobian of a non-minimal model, so none of
its spurious zero eigenvalues); it is differentiated by central differences with
Richardson extrapolation (truncation error O(h⁴); measured ~1e-9 relative on the
pendulum). All terms of a moving operating point (∂(M q̈*)/∂q, velocity-constraint and
gyroscopic terms) are included because f itself contains them.

Outputs: first-order A (2n × 2n), B (2n × n_inputs), C and D for requested outputs,
second-order M_r, C_r, K_r, B_r with M_r = Nᵀ M N (N = ∂q/∂z) so that
M_r δz̈ + C_r δż + K_r δz = B_r δr, and the map N back to all coordinates;
``LinearModel.complex_modes`` solves the (non-symmetric) eigenproblem of these matrices.

Models with 3-D rotations: rotation increments (spatial spins about the operating
rotations) are the rotational coordinates, optionally in a frame turning at a constant rate
(``spin``), where a rigidly turning steady motion is an equilibrium
(femb.solvers.eigen.linearize3d). Driven (time-dependent prescribed) DOFs take their values,
rates and accelerations at ``t``.

Models with mass points (Craig–Bampton superelements with a mass distribution, whose
inertia is carried by points x_j(q) moving with the body, elements.superelement_inertia)
are linearized about rest or a steady spin (``spin``; the state must then be an
equilibrium, resp. a relative equilibrium, e.g. from solve_static or steady_spin) with the
points' exact inertia: mass Σ m_j J_jᵀJ_j, Coriolis matrix Σ m_j J_jᵀ 2ω̂ J_j and the
centrifugal stiffness of their field (the matrices of femb.solvers.eigen.steady_spin in
the rotating frame), plus the tangent stiffness, the load stiffness of configuration-
dependent loads (gravity on the points included) and the joints' curvature with the
multipliers that balance the operating state. femb.solvers.eigen.steady_spin gives the same steady-spin
matrices sparse, over all equations (rotating or inertial frame).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from numpy.typing import ArrayLike, NDArray

from femb.core.errors import InputError
from femb.elements import MASS_KINDS
from femb.solvers.configuration import Configuration
from femb.solvers.eigen.complex_modes import ComplexModes, complex_eigen
from femb.solvers.eigen.linearize3d import OrientedDynamics
from femb.solvers.linalg.nullspace import NullSpace
from femb.solvers.problem import StaticProblem, reference_coordinates

if TYPE_CHECKING:
    from femb.model import Model


@dataclass
class LinearModel:
    """A linearized model in independent coordinates z (``linearize``; see the module
    docstring of femb.solvers.eigen.linearize).

    Attributes
    ----------
    A, B, C, D : arrays
        State-space matrices for the state x = (δz, δż): A (2n_z, 2n_z), B (2n_z,
        n_inputs), C (n_outputs, 2n_z), D (n_outputs, n_inputs).
    M, C_damping, K, B_force : arrays
        Second-order matrices (n_z, n_z) and the input map (n_z, n_inputs).
    independent : list of (node, dof)
        The DOF naming each coordinate of z.
    N : (n_var, n_z) array
        The map δq = N δz to all variables.
    """

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    M: np.ndarray
    C_damping: np.ndarray
    K: np.ndarray
    B_force: np.ndarray
    independent: list[tuple[Any, str]]
    N: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)

    def eigenvalues(self) -> NDArray[np.complex128]:
        """Eigenvalues of A, sorted by imaginary part then real part."""
        ev = np.linalg.eigvals(self.A)
        return ev[np.lexsort((ev.real, ev.imag))]

    def complex_modes(self, n_modes: Optional[int] = None, shift: Optional[complex] = None) -> ComplexModes:
        """Complex modes of M_r δz̈ + C_r δż + K_r δz = 0 (femb.solvers.eigen.complex_modes.ComplexModes,
        one per conjugate pair, frequencies Im λ and damping ratios); ``vectors`` are over
        the independent coordinates z and ``modes`` over all variables (δq = N δz)."""

        k = self.M.shape[0]
        lam, vec, sigma = complex_eigen(self.M, self.C_damping, self.K, n_modes or k, shift)
        return ComplexModes(lam, vec.T, (self.N @ vec).T, None, sigma)


class _ReducedDynamics:
    """z̈ = f(z, ż, r) of a model with eliminated constraints (dense, for moderate sizes)."""

    def __init__(self, prob, u0, v0, t, dep, ind, inputs, mass_kind, driven=()):
        self.p, self.t = prob, t
        # driven (time-dependent prescribed) DOFs: their accelerations a_p over all variables
        self.a_p = np.zeros(prob.table.n_var)
        for vars_, _, _, acc in driven:
            self.a_p[vars_] = acc
        self.driven = bool(driven)
        self.table, self.asm = prob.table, prob.assembler
        self.u0, self.v0 = u0, v0
        self.dep, self.ind = dep, ind
        self.mass_kind = mass_kind
        self.f_ext = prob.external(1.0) if t is None else prob.loads.total(t)
        self.inputs = inputs  # (n_inputs, n_eq) unit generalized forces
        self.C_d = prob.assembler.damping_matrix()
        if self.driven and self.C_d is not None:
            raise InputError("linearize: dampers together with time-dependent prescribed DOFs are not supported yet", "linearize")

    def full_jacobian(self, u):
        """G over all variables (CSR, active rows): columns of the driven DOFs included."""
        return self.p.joints.evaluate(u, self.t or 0.0)[1][self.p.active_rows]

    def state(self, z, zdot):
        """Full (u, v) over variables from independent coordinates and rates."""
        t = self.table
        u = self.u0.copy()
        u[t.eq_var[self.ind]] = z
        if self.p.joints is not None:
            for _ in range(50):  # Newton on the dependent coordinates: Φ(q) = 0
                phi, G = self.p.constraints(u, self.t or 0.0)
                if np.linalg.norm(phi) <= 1e-14 * self.p.length_scale:
                    break
                u[t.eq_var[self.dep]] -= np.linalg.solve(G[:, self.dep].toarray(), phi)
            G = self.p.constraints(u, self.t or 0.0)[1]
        v = self.v0.copy()
        v[t.eq_var[self.ind]] = zdot
        if self.p.joints is not None:
            Gd = G[:, self.dep].toarray()
            rhs = G[:, self.ind] @ zdot
            if self.driven:  # G_p q̇_p of the driven DOFs
                Gf = self.full_jacobian(u)
                vp = v.copy()
                vp[t.eq_var] = 0.0
                rhs = rhs + Gf @ vp
            v[t.eq_var[self.dep]] = -np.linalg.solve(Gd, rhs)
        return u, v

    def accelerations(self, u, v, r):
        """Free-equation accelerations (n_eq,) and multipliers of the constrained dynamics."""
        t, asm = self.table, self.asm
        M = asm.mass_matrix(self.mass_kind, u)
        F = t.free(self.f_ext - asm.internal_force(u)) + r @ self.inputs
        vf = t.free(v)
        if self.C_d is not None:
            F = F - self.C_d @ vf
        if self.driven:  # inertia of the driven DOFs' accelerations on the free equations
            F = F - t.free(asm.mass_times(self.a_p, self.mass_kind, u))
        if self.p.joints is None:
            return spla.spsolve(M.tocsc(), F), np.zeros(0)
        G = self.p.constraints(u, self.t or 0.0)[1]
        # γ = −Ġ q̇: G is linear in q for every joint kind, so the central difference is exact
        h = 1.0 / max(np.linalg.norm(v), 1e-300)
        Gp = self.p.constraints(u + h * v, self.t or 0.0)[1]
        Gm = self.p.constraints(u - h * v, self.t or 0.0)[1]
        gamma = -((Gp - Gm) @ vf) / (2.0 * h)
        if self.driven:  # −Ġ q̇ over all variables and −G_p a_p of the driven DOFs
            Gfp, Gfm = self.full_jacobian(u + h * v), self.full_jacobian(u - h * v)
            gamma = -((Gfp - Gfm) @ v) / (2.0 * h) - self.full_jacobian(u) @ self.a_p
        m = G.shape[0]
        S = sp.bmat([[M, G.T], [G, None]], format="csc")
        sol = spla.spsolve(S, np.concatenate([F, gamma]))
        return sol[: t.n_eq], sol[t.n_eq: t.n_eq + m]

    def f(self, z, zdot, r):
        u, v = self.state(z, zdot)
        return self.accelerations(u, v, r)[0][self.ind]


def _driven(prob, t):
    """[(variables, value, rate, acceleration)] of the prescribed DOFs with a time function
    at time t (rate and acceleration by central differences with one Richardson
    extrapolation, step 1e-3·max(1, |t|): truncation O(h⁴), rounding ~1e-10 relative)."""
    recs = [(vars_, rec) for vars_, rec in prob.table.prescribed if rec.function is not None]
    if not recs:
        return []
    if t is None:
        raise InputError("linearize: the model has time-dependent prescribed DOFs; give the time t of the operating point",
                         "linearize")
    h = 1e-3 * max(1.0, abs(float(t)))
    out = []
    for vars_, rec in recs:
        f = rec.function

        def d1(s, f=f):
            return (float(f(t + s)) - float(f(t - s))) / (2.0 * s)

        def d2(s, f=f):
            return (float(f(t + s)) - 2.0 * float(f(t)) + float(f(t - s))) / (s * s)

        out.append((np.asarray(vars_), float(f(t)), (4.0 * d1(0.5 * h) - d1(h)) / 3.0, (4.0 * d2(0.5 * h) - d2(h)) / 3.0))
    return out


def _richardson(fun, x0, steps):
    """Jacobian of fun at x0 by central differences with one Richardson extrapolation."""
    cols = []
    for j, h in enumerate(steps):
        e = np.zeros_like(x0)
        e[j] = 1.0

        def central(hh):
            return (fun(x0 + hh * e) - fun(x0 - hh * e)) / (2.0 * hh)

        cols.append((4.0 * central(0.5 * h) - central(h)) / 3.0)
    return np.column_stack(cols) if cols else np.zeros((0, 0))


def _dof_equations(table, pairs, model, what):
    eqs = []
    for node, dof in pairs:
        var = table.var_of(model.node(node), dof)
        eq = int(table.var_eq[var])
        if eq < 0:
            raise InputError(f"{what} ({node!r}, {dof!r}) is fixed or prescribed, not a free coordinate", "linearize")
        eqs.append(eq)
    return np.array(eqs, dtype=np.int64)


def _coordinates(prob, model, G, independent):
    """(dep, ind) equations: chosen by pivoting on the constraint Jacobian G (over the
    equations) or the given independent coordinates, checked."""
    tab = prob.table
    n = tab.n_eq
    if G is None:
        return np.zeros(0, np.int64), np.arange(n)
    if independent is None:
        ns = NullSpace(sp.csr_matrix(G))
        return ns.dep, ns.ind
    ind = np.sort(_dof_equations(tab, independent, model, "independent coordinate"))
    dep = np.setdiff1d(np.arange(n), ind)
    if dep.size != G.shape[0]:
        raise InputError(f"{len(ind)} independent coordinates given; the model has {n - G.shape[0]} degrees of freedom", "linearize")
    Gd = G[:, dep].toarray() if sp.issparse(G) else G[:, dep]
    if np.linalg.cond(Gd) > 1e12:
        raise InputError("the chosen independent coordinates leave a singular set of dependent ones at this state "
                         f"(joints {', '.join(map(repr, prob.joints.describe(prob.active_rows)))}); choose others or let femb pivot", "linearize")
    return dep, ind


def _linearize_oriented(model, prob, u, v, t, inputs, outputs, independent, mass, spin, point):
    """linearize() of a model with 3-D rotations (femb.solvers.eigen.linearize3d)."""
    tab = prob.table
    cfg = u if isinstance(u, Configuration) else Configuration.from_vector(prob.rotations, np.asarray(u, dtype=np.float64))
    n = tab.n_eq
    in_eq = _dof_equations(tab, inputs, model, "input") if len(inputs) else np.zeros(0, np.int64)
    B_in = np.zeros((len(in_eq), n))
    B_in[np.arange(len(in_eq)), in_eq] = 1.0
    kind = MASS_KINDS[mass] if isinstance(mass, str) else mass
    if v is None:
        v0 = np.zeros(tab.n_var)
        if spin is not None:  # the rigid rotation of the turning frame
            X = reference_coordinates(model, tab) + cfg.u
            cols = [tab.dof_names.index(d) for d in ("ux", "uy", "uz")]
            tv = tab.node_var[:, cols]
            tv = tv[np.all(tv >= 0, axis=1)]
            Om = np.asarray(spin, dtype=np.float64)
            v0[tv] = np.cross(Om, X[tv] - (np.zeros(3) if point is None else np.asarray(point, dtype=np.float64)))
            v0[prob.rotations.var] = Om
            v0[tab.fixed_vars] = 0.0
    else:
        v0 = np.asarray(v, dtype=np.float64).copy()
    dyn0 = OrientedDynamics(prob, model, cfg.u.copy(), cfg.R.copy(), v0, t, np.zeros(0, np.int64), np.arange(n), B_in, kind,
                            spin, point)
    G = dyn0.joints(dyn0.x0)[1] if prob.joints is not None else None  # at the driven DOFs' values at t
    dep, ind = _coordinates(prob, model, G, independent)
    dyn = OrientedDynamics(prob, model, cfg.u.copy(), cfg.R.copy(), v0, t, dep, ind, B_in, kind, spin, point)
    k = ind.size
    z0, zd0 = np.zeros(k), dyn.qd0[ind]
    r0 = np.zeros(len(in_eq))
    scale = np.where(dyn.is_rot[ind], 1.0, prob.length_scale)
    hz = 1e-5 * scale
    hv = np.full(k, 1e-3 * max(1.0, float(np.abs(zd0).max(initial=0.0))))
    Fz = _richardson(lambda z: dyn.f(z, zd0, r0), z0, hz)
    Fv = _richardson(lambda zd: dyn.f(z0, zd, r0), zd0, hv)
    Fr = _richardson(lambda r: dyn.f(z0, zd0, r), r0, np.ones(r0.size)) if r0.size else np.zeros((k, 0))
    A = np.block([[np.zeros((k, k)), np.eye(k)], [Fz, Fv]])
    B = np.vstack([np.zeros((k, r0.size)), Fr])
    Nf = np.zeros((n, k))
    Nf[ind, np.arange(k)] = 1.0
    if dep.size:
        Nf[dep] = -np.linalg.solve(G[:, dep], G[:, ind])
    N = np.zeros((tab.n_var, k))
    N[tab.eq_var] = Nf
    M = Nf.T @ dyn.mass() @ Nf
    out_vars = [tab.var_of(model.node(node), dof) for node, dof in outputs]
    C = np.hstack([N[out_vars], np.zeros((len(out_vars), k))]) if out_vars else np.zeros((0, 2 * k))
    names = [tab.describe_var(tab.eq_var[i]) for i in ind]
    return LinearModel(A, B, C, np.zeros((len(out_vars), r0.size)), M, -M @ Fv, -M @ Fz, M @ Fr, names, N,
                       info={"dependent": [tab.describe_var(tab.eq_var[i]) for i in dep],
                             "rotation_increments": [names[j] for j in range(k) if dyn.is_rot[ind[j]]],
                             "spin": None if spin is None else np.asarray(spin, dtype=np.float64)})


def _linearize_points(model, prob, u, v, t, inputs, outputs, independent, mass, spin, point):
    """linearize() of a model with mass-point bodies about rest or a steady spin (module
    docstring): M, C, K from the rotating-frame operators of steady_spin at the given state."""
    from femb.solvers.eigen.steady_spin import _SpinOperators

    tab = prob.table
    parts = ", ".join(map(repr, prob.loads.point_fields.parts()))
    if any(rec.function is not None for _, rec in tab.prescribed):
        raise InputError(f"parts {parts}: models with superelements are linearized about rest or a steady spin; "
                         "time-dependent prescribed DOFs are not supported", "linearize")
    cfg = u if isinstance(u, Configuration) else Configuration.from_vector(prob.rotations, np.asarray(u, dtype=np.float64))
    omega = np.zeros(3) if spin is None else np.asarray(spin, dtype=np.float64).ravel()
    if omega.shape != (3,) or not np.all(np.isfinite(omega)):
        raise InputError(f"spin must be a finite 3-vector, got {spin!r}", "linearize")
    if v is not None and np.any(np.asarray(v, dtype=np.float64)):
        raise InputError(f"parts {parts}: models with superelements are linearized about rest or a steady spin; give "
                         "v=None (with spin=... for a steady spin)", "linearize")
    kind = MASS_KINDS[mass] if isinstance(mass, str) else int(mass)
    ops = _SpinOperators(prob, model, omega, point, "rotating", kind, None)
    uu, R = cfg.u, cfg.R
    x = cfg
    M = ops.mass(uu, R)
    Gy, KO = ops.matrices(uu, R)
    f_int, K = prob.assembler.tangent(uu, R=R)
    f_ext = prob.external(1.0, x) if t is None else prob.loads.total(t) + (
        prob.loads.state_forces(uu, R, t=t) if prob.loads.has_state_loads else 0.0)
    if prob.loads.has_state_loads:
        K = K + (prob.load_stiffness(x, 1.0) if t is None else prob.loads.state_stiffness(uu, R, t=t))
    K = (K + KO).tocsr()
    f_spin = ops.centrifugal(uu, R)
    r = tab.free(f_int - f_ext - f_spin)
    n = tab.n_eq
    Gj = None
    lam = np.zeros(0)
    if prob.joints is not None:
        Gj = prob.constraints(x, t or 0.0)[1]
        lam = np.linalg.lstsq(Gj.toarray().T, -r, rcond=None)[0]  # r + Gᵀλ = 0 at the operating state
        K = (K + prob.constraint_stiffness(lam)).tocsr()
        r = r + Gj.T @ lam
    dep, ind = _coordinates(prob, model, Gj, independent)
    k = ind.size
    Nf = np.zeros((n, k))
    Nf[ind, np.arange(k)] = 1.0
    if dep.size:
        Nf[dep] = -np.linalg.solve(Gj[:, dep].toarray(), Gj[:, ind].toarray())
    C_d = prob.assembler.damping_matrix()
    C = Gy if C_d is None else Gy + C_d
    Mr, Cr, Kr = (Nf.T @ (A @ Nf) for A in (M, C, K))
    in_eq = _dof_equations(tab, inputs, model, "input") if len(inputs) else np.zeros(0, np.int64)
    B_in = np.zeros((n, len(in_eq)))
    B_in[in_eq, np.arange(len(in_eq))] = 1.0
    Bf = Nf.T @ B_in
    try:
        MK, MC, MB = (np.linalg.solve(Mr, A) for A in (Kr, Cr, Bf))
    except np.linalg.LinAlgError:
        raise InputError(f"parts {parts}: the mass matrix in the independent coordinates is singular (DOFs without mass, "
                         "e.g. nodal rotations without rotary inertia); fix them or give them inertia", "linearize") from None
    A = np.block([[np.zeros((k, k)), np.eye(k)], [-MK, -MC]])
    B = np.vstack([np.zeros((k, len(in_eq))), MB])
    N = np.zeros((tab.n_var, k))
    N[tab.eq_var] = Nf
    out_vars = [tab.var_of(model.node(node), dof) for node, dof in outputs]
    Cout = np.hstack([N[out_vars], np.zeros((len(out_vars), k))]) if out_vars else np.zeros((0, 2 * k))
    names = [tab.describe_var(tab.eq_var[i]) for i in ind]
    scale = max(float(np.linalg.norm(f)) for f in (f_int, f_ext, f_spin))  # reactions included: all variables
    scale = scale if scale > 0.0 else 1.0
    return LinearModel(A, B, Cout, np.zeros((len(out_vars), len(in_eq))), Mr, Cr, Kr, Bf, names, N,
                       info={"dependent": [tab.describe_var(tab.eq_var[i]) for i in dep],
                             "spin": None if spin is None else omega, "mass_points": prob.loads.point_fields.parts(),
                             "equilibrium_residual": float(np.linalg.norm(r) / scale)})


def linearize(model: Model, u: ArrayLike, v: Optional[ArrayLike] = None, t: Optional[float] = None,
              inputs: Sequence[tuple[Any, str]] = (), outputs: Sequence[tuple[Any, str]] = (),
              independent: Optional[Sequence[tuple[Any, str]]] = None, mass: Union[str, int] = "lumped",
              problem: Optional[StaticProblem] = None, spin: Optional[ArrayLike] = None,
              point: Optional[ArrayLike] = None) -> LinearModel:
    """Linearize ``model`` about the state (u, v) in independent coordinates.

    Parameters
    ----------
    u, v : (n_var,) arrays
        Operating point (positions must satisfy the joints; v consistent with them — the
        dependent rates are recomputed from the independent ones). v defaults to rest.
    t : float, optional
        Time for the loads' amplitudes (None: every scaled load at load factor 1); required
        when the model has driven (time-dependent prescribed) DOFs, which take their values,
        rates and accelerations at t (a frozen-time linearization at that trajectory point).
    inputs : sequence of (node, dof)
        Unit generalized forces on these DOFs are the inputs r (columns of B).
    outputs : sequence of (node, dof)
        Displacements measured as outputs (rows of C: position outputs; D = 0).
    independent : sequence of (node, dof), optional
        Independent coordinates; default: chosen by pivoting on the constraint Jacobian.
        A choice that leaves the dependent block singular raises InputError.
    mass : mass kind used for M(q) ("lumped", the default as in every femb analysis,
        "consistent", "invariant"; models with 3-D rotations: "lumped" or "invariant",
        the nodal rotary inertia of the dynamics).
    spin, point : models with 3-D rotations: measure the coordinates in a frame turning at
        the constant angular velocity ``spin`` (3,) about the axis through ``point``
        (origin); v then defaults to that rigid rotation, and a steady motion that is
        such a rotation (a sleeping top, a beam in steady spin) is an equilibrium of the
        reduced equations (femb.solvers.eigen.linearize3d).
        Models with superelements (mass points): about rest or, with ``spin``, a steady
        spin only (v None; module docstring); ``info["equilibrium_residual"]`` is the
        relative force residual of the operating state.

    Notes
    -----
    Models with 3-D rotations: ``u`` is a Configuration or a vector whose rotational slots
    hold rotation vectors, the rotational slots of ``v`` hold spatial angular velocities,
    and the rotational coordinates are rotation increments (spatial spins about the
    operating rotations; see femb.solvers.eigen.linearize3d).
    """
    prob = problem or StaticProblem(model)
    tab = prob.table
    if prob.loads.point_fields:
        return _linearize_points(model, prob, u, v, t, inputs, outputs, independent, mass, spin, point)
    if prob.oriented:
        return _linearize_oriented(model, prob, u, v, t, inputs, outputs, independent, mass, spin, point)
    if spin is not None:
        raise InputError("spin (a turning frame) is for models with 3-D rotations", "linearize")
    u0 = np.asarray(u, dtype=np.float64).copy()
    v0 = np.zeros(tab.n_var) if v is None else np.asarray(v, dtype=np.float64).copy()
    driven = _driven(prob, t)
    for vars_, value, rate, _ in driven:  # the operating point follows the driven DOFs at t
        u0[vars_], v0[vars_] = value, rate
    n = tab.n_eq
    dep, ind = _coordinates(prob, model, None if prob.joints is None else prob.constraints(u0, t or 0.0)[1], independent)
    in_eq = _dof_equations(tab, inputs, model, "input") if len(inputs) else np.zeros(0, np.int64)
    B_in = np.zeros((len(in_eq), n))
    B_in[np.arange(len(in_eq)), in_eq] = 1.0
    dyn = _ReducedDynamics(prob, u0, v0, t, dep, ind, B_in, MASS_KINDS[mass] if isinstance(mass, str) else mass, driven)
    z0, zd0 = u0[tab.eq_var[ind]], v0[tab.eq_var[ind]]
    r0 = np.zeros(len(in_eq))
    scale = prob.length_scale
    hz = np.full(z0.size, 1e-5 * scale)
    hv = np.full(z0.size, 1e-3 * max(1.0, float(np.abs(zd0).max(initial=0.0))))
    Fz = _richardson(lambda z: dyn.f(z, zd0, r0), z0, hz)
    Fv = _richardson(lambda zd: dyn.f(z0, zd, r0), zd0, hv)
    Fr = _richardson(lambda r: dyn.f(z0, zd0, r), r0, np.ones(r0.size)) if r0.size else np.zeros((z0.size, 0))
    k = z0.size
    A = np.block([[np.zeros((k, k)), np.eye(k)], [Fz, Fv]])
    B = np.vstack([np.zeros((k, r0.size)), Fr])
    # δq over all variables: N = ∂q/∂z at the operating point (null-space basis of G)
    Nf = np.zeros((n, k))
    Nf[ind, np.arange(k)] = 1.0
    if dep.size:
        G = prob.constraints(u0, t or 0.0)[1]
        Nf[dep] = -np.linalg.solve(G[:, dep].toarray(), G[:, ind].toarray())
    N = np.zeros((tab.n_var, k))
    N[tab.eq_var] = Nf
    M = Nf.T @ (prob.assembler.mass_matrix(dyn.mass_kind, u0) @ Nf)
    out_vars = [tab.var_of(model.node(node), dof) for node, dof in outputs]
    C = np.hstack([N[out_vars], np.zeros((len(out_vars), k))]) if out_vars else np.zeros((0, 2 * k))
    names = [tab.describe_var(tab.eq_var[i]) for i in ind]
    return LinearModel(A, B, C, np.zeros((len(out_vars), r0.size)), M, -M @ Fv, -M @ Fz, M @ Fr, names, N,
                       info={"dependent": [tab.describe_var(tab.eq_var[i]) for i in dep]})
