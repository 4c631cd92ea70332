"""Linearization about a steady spin: structures turning at a constant rate Ω about a fixed
axis (rotating blades and beams, spinning rotors).

Rotating frame (``frame="rotating"``, any structure)
----------------------------------------------------
In a frame turning with ω = Ω e about the axis through ``point`` p, the generalized
velocity of the rigid rotation of a configuration q is v_Ω(q): ω × (x_a − p) on the
translations of node a (x = X + u its current position) and ω on the spatial spins of its
rotation. With W the operator applying ω̂ (ω̂ b = ω × b) to every nodal 3-block
(translations and spins) and h = M v_Ω the momentum of the rigid rotation (M the mass
matrix of the chosen kind at q), the equations of relative motion are

    M δq̈ + G δq̇ + (K_t + K_Ω) δq = 0,
    G  = M W − Wᵀ M − Σ_a ĥ_a           (gyroscopic, skew),
    K_Ω = −Wᵀ M W − Σ_a ω̂ ĥ_a            (spin softening, incl. rotary inertia),

about the relative equilibrium f_int(q) = f_ext + f_Ω(q), f_Ω = Wᵀ h (the centrifugal
forces m Ω² (x − p)_⊥ on translations, −ω × J ω on rotary inertia J), which is solved by
Newton's method with the exact tangent K_t + K_Ω, so K_t at the solution carries the
centrifugal (geometric) stiffening. The sums run over oriented nodes (3-D rotations),
h_a being the rotational 3-block of h (J_a ω for nodal inertia). For a particle these are
the Coriolis force 2mω × ṙ and −m ω̂ω̂ = m Ω²(I − e eᵀ); for a rigid nodal inertia they are
Euler's equations in the rotating frame (G = ω̂J + Jω̂ − (Jω)^, whose transverse entries
(2J_d − J_p)Ω are the classical rotating-frame disk terms). They are exact for nodal
masses and linearly interpolated translations (mass kinds "lumped" and "invariant"). For
the consistent beam mass, whose Hermite interpolation couples translations and nodal
rotations, they are an approximation whose error vanishes as O(h²) under mesh refinement
(spin-up B beam, first chordwise frequency at Ω = 6: 4.520, 4.514, 4.512 rad/s with 8, 16,
32 elements against 4.5118 converged; flapwise already converged to 1e-5).

Inertial frame (``frame="inertial"``, axisymmetric rotors on the axis)
---------------------------------------------------------------------
An axisymmetric rotor whose nodes lie on the spin axis is in equilibrium in the fixed
frame: no centrifugal load, no spin softening, and the gyroscopic matrix is that of the
spin angular momentum h_a = J_a ω of each node, G = −Σ_a ĥ_a (J_a the nodal rotary inertia
about the current triad: a disk's polar moment J_p gives the classical tilt coupling
±Ω J_p). Forward and backward whirl frequencies (the Campbell diagram) follow from
``SteadySpin.modes``.

Bodies with mass points (Craig–Bampton superelements with a mass distribution)
-----------------------------------------------------------------------------
A superelement carries its inertia as mass points x_j(q) that move with its shadow frame
and its deformation (elements.superelement_inertia), not as a nodal mass matrix: the
formulas above, which hold for nodal masses, are replaced for those blocks by the exact
ones of the points. With J_j = ∂x_j/∂q the rotating-frame kinetic energy
T = ½ Σ m_j |J_j q̇ + ω × (x_j − p)|² gives the mass Σ m_j J_jᵀJ_j, the Coriolis matrix
Σ m_j J_jᵀ 2ω̂ J_j and the centrifugal force f_Ω = Σ m_j J_jᵀ (−ω × (ω × (x_j − p))), whose
exact derivative (J depends on q: the centrifugal stiffening of a body with
foreshortening, the spin softening of its points) is the points' part of K_Ω. Gravity on
the points (femb.assembly.loads) joins the equilibrium and its load stiffness. Only the
rotating frame is available for such models.

Rigid nodal inertias the element library has no type for (a disk on a shaft) are passed
as ``point_inertia``: a list of (node, m, J) with J (3,) principal moments about the
global axes or a (3, 3) tensor in the reference orientation; they join M everywhere above.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from femb.core.errors import ConvergenceError, InputError
from femb.core.rotations import hat_batch
from femb.core.scatter import matvec_blocks
from femb.elements import MASS_KINDS
from femb.solvers.configuration import Configuration, split_state
from femb.solvers.eigen.complex_modes import (
    ComplexModes,
    complex_eigen,
    modes_over_variables,
)
from femb.solvers.linalg.nullspace import NullSpace
from femb.solvers.nonlinear.newton import NewtonSettings, newton, worst_dofs
from femb.solvers.problem import StaticProblem

if TYPE_CHECKING:
    from femb.correlation import CorrelationTable
    from femb.model import Model

log = logging.getLogger(__name__)

_TRANS = ("ux", "uy", "uz")
_ROTS = ("rx", "ry", "rz")


class _Blocks:
    """Nodal 3-blocks of a table: variables (n_nodes, 3) of translations and of
    rotations (−1 where a node lacks a component; 2-D models: rz only), and the oriented
    nodes (k,) (3-D rotations, ``RotationLayout.nodes``; none in 2-D)."""

    def __init__(self, table, oriented_nodes):
        names = table.dof_names
        self.table = table
        self.trans = np.stack([table.node_var[:, names.index(n)] if n in names else np.full(table.node_var.shape[0], -1)
                               for n in _TRANS], axis=1)
        self.rots = np.stack([table.node_var[:, names.index(n)] if n in names else np.full(table.node_var.shape[0], -1)
                              for n in _ROTS], axis=1)
        self.oriented_nodes = oriented_nodes

    def block_matrix(self, blocks, which):
        """Sparse (n_eq, n_eq) matrix with the (3, 3) ``blocks[a]`` on the free entries of
        node a's ``which`` ("trans"/"rots") 3-block; ``blocks`` (n_nodes, 3, 3) or
        {node: (3, 3)}."""
        var = self.trans if which == "trans" else self.rots
        eq = np.where(var >= 0, self.table.var_eq[np.maximum(var, 0)], -1)
        items = blocks.items() if isinstance(blocks, dict) else enumerate(blocks)
        rows, cols, vals = [], [], []
        for a, B in items:
            e = eq[a]
            ii, jj = np.nonzero((e[:, None] >= 0) & (e[None, :] >= 0) & (B != 0.0))
            rows.append(e[ii])
            cols.append(e[jj])
            vals.append(B[ii, jj])
        n = self.table.n_eq
        if not rows:
            return sp.csr_matrix((n, n))
        return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))

    def get(self, vec, which):
        """(n_nodes, 3) nodal 3-vectors of a variable vector (0 where absent)."""
        var = self.trans if which == "trans" else self.rots
        return np.where(var >= 0, vec[np.maximum(var, 0)], 0.0)

    def put(self, out, values, which):
        """Add (n_nodes, 3) values into a variable vector where the components exist."""
        var = self.trans if which == "trans" else self.rots
        mask = var >= 0
        np.add.at(out, var[mask], values[mask])
        return out


@dataclass
class SteadySpin:
    """A model linearized about a steady spin: M δq̈ + G δq̇ + K δq = 0 over the equations.

    Attributes
    ----------
    omega : (3,) array
        Spin vector ω = Ω e [rad/time].
    frame : str
        "rotating" or "inertial".
    state : (n_var,) array or Configuration
        The relative equilibrium (vector u or Configuration (u, R)).
    M, G, K : (n_eq, n_eq) CSR matrices
        Mass, gyroscopic (skew) and stiffness (tangent with the centrifugal stiffening,
        spin softening; not symmetric in general).
    N : (n_eq, n_ind) matrix or None
        Null-space basis of the joints (None without joints).
    multipliers : (m,) array or None
        Joint multipliers at the equilibrium.
    """

    omega: np.ndarray
    frame: str
    state: Union[NDArray[np.float64], Configuration]
    M: sp.csr_matrix
    G: sp.csr_matrix
    K: sp.csr_matrix
    N: Any
    table: CorrelationTable
    multipliers: Optional[np.ndarray] = None
    info: dict[str, Any] = field(default_factory=dict)

    def reduced(self) -> tuple[Any, Any, Any]:
        """(M, G, K) in the independent coordinates of the joints (unchanged without)."""
        if self.N is None:
            return self.M, self.G, self.K
        N = self.N
        return (N.T @ self.M @ N).tocsc(), (N.T @ self.G @ N).tocsc(), (N.T @ self.K @ N).tocsc()

    def first_order(self) -> NDArray[np.float64]:
        """Dense state matrix A (2k × 2k) of x = (δq, δq̇) in the independent coordinates:
        [[0, I], [−M⁻¹K, −M⁻¹G]] (M must be regular: no massless DOFs)."""
        M, G, K = (m.toarray() for m in self.reduced())
        k = M.shape[0]
        try:
            MK, MG = np.linalg.solve(M, K), np.linalg.solve(M, G)
        except np.linalg.LinAlgError:
            raise InputError("the mass matrix is singular (massless DOFs): use modes(), which handles them",
                             "steady spin") from None
        return np.block([[np.zeros((k, k)), np.eye(k)], [-MK, -MG]])

    def modes(self, n_modes: int = 6, shift: Optional[complex] = None, damping: Union[None, ArrayLike, sp.spmatrix] = None,
              dense_limit: int = 400) -> ComplexModes:
        """Complex modes (ComplexModes): whirl/vibration frequencies Im λ and damping
        ratios about the steady spin; ``damping`` an optional (n_eq, n_eq) matrix added to
        G."""
        M, G, K = self.reduced()
        if damping is not None:
            D = sp.csr_matrix(damping)
            G = G + (D if self.N is None else self.N.T @ D @ self.N)
        lam, vec, sigma = complex_eigen(M, G, K, n_modes, shift, dense_limit)
        full = vec if self.N is None else self.N @ vec
        return ComplexModes(lam, full.T, modes_over_variables(vec, self.table, self.N), self.table, sigma)


def _spin_vector(omega, axis, table):
    e = np.asarray(axis, dtype=np.float64).ravel()
    if e.size != 3 or not np.all(np.isfinite(e)) or np.linalg.norm(e) == 0.0:
        raise InputError(f"axis must be a non-zero 3-vector, got {axis!r}", "steady spin")
    e = e / np.linalg.norm(e)
    if table.dim == 2 and abs(abs(e[2]) - 1.0) > 1e-12:
        raise InputError("a 2-D model can only spin about the z axis (normal to its plane)", "steady spin")
    if not np.isfinite(omega):
        raise InputError(f"spin rate must be finite, got {omega!r}", "steady spin")
    return float(omega) * e


class _PointInertia:
    """Rigid nodal inertias (node, m, J) added to the model's mass."""

    def __init__(self, model, blocks, items):
        self.blocks = blocks
        self.items = []
        for node, m, J in items or ():
            J = np.asarray(J, dtype=np.float64)
            J = np.diag(J) if J.shape == (3,) else J
            if J.shape != (3, 3) or not np.all(np.isfinite(J)) or not np.isfinite(m) or m < 0:
                raise InputError(f"point inertia at {node!r}: m must be >= 0 and J (3,) or (3, 3) finite", "steady spin")
            a = int(model.node(node))
            if np.any(J != 0.0) and a not in set(blocks.oriented_nodes.tolist()):
                raise InputError(f"point inertia at {node!r}: a rotary inertia needs a node with 3-D rotations", "steady spin")
            self.items.append((a, float(m), J))

    def tensors(self, R):
        """{node: J in the current orientation} (J_spatial = R J Rᵀ)."""
        return {a: (J if R is None else R[a] @ J @ R[a].T) for a, _, J in self.items}

    def matrix(self, R):
        if not self.items:
            return None
        Mt = self.blocks.block_matrix({a: m * np.eye(3) for a, m, _ in self.items}, "trans")
        Mr = self.blocks.block_matrix(self.tensors(R), "rots")
        return Mt + Mr

    def times(self, v, R):
        """M_point v over variables (n_var,)."""
        out = np.zeros_like(v)
        if not self.items:
            return out
        vt, vr = self.blocks.get(v, "trans"), self.blocks.get(v, "rots")
        ft, fr = np.zeros_like(vt), np.zeros_like(vr)
        for a, m, J in self.items:
            ft[a] = m * vt[a]
        for a, Js in self.tensors(R).items():
            fr[a] = Js @ vr[a]
        self.blocks.put(out, ft, "trans")
        self.blocks.put(out, fr, "rots")
        return out


class _SpinOperators:
    """W, v_Ω, h, f_Ω, G and K_Ω of a model spinning at ω about ``point``; blocks with mass
    points (superelements) through their points (module docstring)."""

    def __init__(self, prob, model, omega, point, frame, kind, point_inertia):
        self.prob, self.omega, self.frame, self.kind = prob, omega, frame, kind
        self.pf = prob.loads.point_fields
        if self.pf and frame != "rotating":
            raise InputError(f"parts {', '.join(map(repr, self.pf.parts()))}: bodies with mass points (superelements) "
                             "are linearized in the rotating frame only (frame='rotating')", "steady spin")
        self.nodal = [i for i in range(len(prob.table.blocks)) if not self.pf or i not in self.pf.blocks]
        bare = [prob.table.blocks[i].part for i in self.nodal if prob.table.blocks[i].spec.kernels.midpoint_step is not None]
        if bare:
            raise InputError(f"parts {', '.join(map(repr, bare))}: a superelement without mass points has no inertia "
                             "that steady spin can turn with the body (its reduced mass couples its nodes and modes); "
                             "reduce a femb component (femb.reduce_component) or give SuperelementData.points",
                             "steady spin")
        self.blocks = _Blocks(prob.table, prob.rotations.nodes)
        self.point = np.zeros(3) if point is None else np.asarray(point, dtype=np.float64).ravel()
        if self.point.size != 3 and not (prob.table.dim == 2 and self.point.size == 2):
            raise InputError(f"point must have 3 (or, in 2-D, 2) coordinates, got {point!r}", "steady spin")
        self.point = np.resize(np.concatenate([self.point, np.zeros(3)]), 3) if self.point.size == 2 else self.point
        X = model.mesh.points
        self.X = np.zeros((X.shape[0], 3))
        self.X[:, : X.shape[1]] = X
        self.w_hat = hat_batch(omega)
        n_nodes = prob.table.node_var.shape[0]
        self.W = (self.blocks.block_matrix(np.broadcast_to(self.w_hat, (n_nodes, 3, 3)), "trans")
                  + self.blocks.block_matrix({a: self.w_hat for a in self.blocks.oriented_nodes}, "rots"))
        self.points = _PointInertia(model, self.blocks, point_inertia)

    def nodal_mass(self, u, R):
        """The mass over the equations of every block but the mass-point ones, with the
        rigid nodal inertias (CSR)."""
        asm = self.prob.assembler
        if self.pf:
            data = self.prob.table.new_matrix_data()
            asm.loop.run("mass", *asm._state(u, R), constants=(self.kind,), only=self.nodal, matrix=data)
            M = self.prob.table.csr(data)
        else:
            M = asm.mass_matrix(self.kind, u, R=R)
        extra = self.points.matrix(R)
        return M if extra is None else (M + extra).tocsr()

    def mass(self, u, R):
        """The whole mass over the equations: nodal blocks plus Σ m_j J_jᵀJ_j of the points."""
        M = self.nodal_mass(u, R)
        if self.pf:
            M = (M + self.pf.matrices(u, R)[0]).tocsr()
        return M

    def _field(self):
        """(a0, A) of the centrifugal field a_j = a0 + A x_j = −ω × (ω × (x_j − p))."""
        A = -(self.w_hat @ self.w_hat)
        return -A @ self.point, A

    def rigid_velocity(self, u):
        """v_Ω over variables: ω × (x − p) on translations (rotating frame), ω on spins."""
        v = np.zeros(self.prob.table.n_var)
        if self.frame == "rotating":
            x = self.X + self.blocks.get(u, "trans") - self.point
            self.blocks.put(v, np.cross(self.omega, x), "trans")
        spins = np.zeros((self.X.shape[0], 3))
        spins[self.blocks.oriented_nodes] = self.omega
        self.blocks.put(v, spins, "rots")
        return v

    def momentum(self, u, R):
        """h = M v_Ω over variables (n_var,)."""
        v = self.rigid_velocity(u)
        asm = self.prob.assembler
        if not self.pf:
            return asm.mass_times(v, self.kind, u, R=R) + self.points.times(v, R)
        out = self.points.times(v, R)
        for block, buf in asm.loop.evaluate("mass", *asm._state(u, R), constants=(self.kind,), only=self.nodal):
            matvec_blocks(block.var, buf.K, v, out)
        return out

    def centrifugal(self, u, R):
        """f_Ω = Wᵀ h (n_var,): −ω × h on every nodal 3-block (rotating frame)."""
        h = self.momentum(u, R)
        f = np.zeros_like(h)
        self.blocks.put(f, -np.cross(self.omega, self.blocks.get(h, "trans")), "trans")
        hr = self.blocks.get(h, "rots")
        fr = np.zeros_like(hr)
        fr[self.blocks.oriented_nodes] = -np.cross(self.omega, hr[self.blocks.oriented_nodes])
        self.blocks.put(f, fr, "rots")
        if self.pf and self.frame == "rotating":
            f += self.pf.force(u, R, *self._field())[0]
        return f

    def _rotational_h(self, u, R):
        h = self.momentum(u, R)
        return self.blocks.get(h, "rots")

    def matrices(self, u, R, M=None):
        """(G, K_Ω) over the equations at (u, R) (``M``: the nodal mass, ``nodal_mass``)."""
        M = self.nodal_mass(u, R) if M is None else M
        hr = self._rotational_h(u, R)
        H = self.blocks.block_matrix({a: hat_batch(hr[a]) for a in self.blocks.oriented_nodes}, "rots")
        if self.frame == "inertial":
            return (-H).tocsr(), sp.csr_matrix(M.shape)
        W = self.W
        G = M @ W - W.T @ M - H
        WH = self.blocks.block_matrix({a: self.w_hat @ hat_batch(hr[a]) for a in self.blocks.oriented_nodes}, "rots")
        K = -(W.T @ M @ W) - WH
        if self.pf:
            G = G + self.pf.matrices(u, R, self.omega)[1]
            K = K - self.pf.derivative(u, R, *self._field())
        return G.tocsr(), K.tocsr()


class _SpinSystem:
    """Newton system of the relative equilibrium f_int(q) = f_ext + s·f_Ω(q) (s scales
    Ω², for load stepping)."""

    def __init__(self, prob, ops, s):
        self.base = prob.system(1.0)
        self.p, self.ops, self.s = prob, ops, s
        self.length_scale = prob.length_scale
        self.constraints = self.base.constraints if prob.joints is not None else None

    def constraint_stiffness(self, multipliers):
        return self.p.constraint_stiffness(multipliers)

    def residual(self, x):
        u, R = split_state(x)
        r, scale = self.base.residual(x)
        fc = self.s * self.ops.centrifugal(u, R)
        return r - self.p.table.free(fc), max(scale, float(np.linalg.norm(fc)))

    def residual_and_tangent(self, x):
        u, R = split_state(x)
        r, K, scale = self.base.residual_and_tangent(x)
        fc = self.s * self.ops.centrifugal(u, R)
        _, KO = self.ops.matrices(u, R)
        return r - self.p.table.free(fc), (K + self.s * KO).tocsr(), max(scale, float(np.linalg.norm(fc)))

    def apply(self, x, dx):
        return self.base.apply(x, dx)

    def norm(self, x):
        return self.base.norm(x)


def steady_spin(model: Model, omega: float, axis: Sequence[float] = (0.0, 0.0, 1.0), point: Optional[Sequence[float]] = None,
                frame: str = "rotating", mass: Union[str, int] = "lumped",
                point_inertia: Optional[Sequence[tuple[Any, float, ArrayLike]]] = None, steps: int = 1,
                settings: Optional[NewtonSettings] = None, state: Optional[Union[NDArray[np.float64], Configuration]] = None,
                problem: Optional[StaticProblem] = None) -> SteadySpin:
    """Linearize ``model`` about a steady spin at rate ``omega`` about ``axis`` through
    ``point`` (see the module docstring).

    Parameters
    ----------
    omega : spin rate Ω [rad/time] (the sign gives the sense about ``axis``). Ω = 0 in the
        rotating frame without loads: the start state is the equilibrium (no Newton
        iteration, whose force scale would be zero) and the modes are the modal ones.
    axis : (3,) spin axis (2-D models: the z axis); point : a point of the axis (origin).
    frame : "rotating" (relative equilibrium under centrifugal load, Coriolis and spin
        softening) or "inertial" (axisymmetric rotor on the axis: spin gyroscopics only).
    mass : mass kind of M ("lumped", the default as in every femb analysis, "consistent",
        "invariant").
    point_inertia : list of (node, m, J), rigid nodal inertias added to the model's mass.
    steps : Ω² is applied in ``steps`` equal increments of the centrifugal load.
    state : start state of the equilibrium iteration (default: undeformed).

    Returns SteadySpin with M, G, K over the equations (joints: reduce with ``reduced()``),
    the equilibrium ``state`` and ``modes(n)`` for the complex modes.

    Raises ConvergenceError when the relative equilibrium is not found, InputError for bad
    arguments.
    """
    if frame not in ("rotating", "inertial"):
        raise InputError(f"frame must be 'rotating' or 'inertial', not {frame!r}", "steady spin")
    prob = problem or StaticProblem(model)
    tab = prob.table
    if any(rec.function is not None for _, rec in tab.prescribed):
        raise InputError("steady spin: time-dependent prescribed DOFs are not allowed (the hub turns with the frame)",
                         "steady spin")
    w = _spin_vector(omega, axis, tab)
    kind = MASS_KINDS[mass] if isinstance(mass, str) else int(mass)
    ops = _SpinOperators(prob, model, w, point, frame, kind, point_inertia)
    settings = settings or NewtonSettings()
    x = prob.apply_prescribed(prob.initial_state(state), 1.0)
    mult = None
    iterations = []
    spinning = frame == "rotating" and bool(w.any())  # Ω = 0 without loads: the start state is the equilibrium
    if spinning or prob.f_ref.any() or prob.f_const.any() or prob.loads.has_state_loads:
        scales = np.linspace(1.0 / steps, 1.0, int(steps)) if spinning else [0.0]
        for s in scales:
            report = newton(_SpinSystem(prob, ops, s), x, settings, tab)
            if not report.converged:
                raise ConvergenceError(f"steady spin: relative equilibrium not found at {s:.3g}·Ω² ({report.reason})",
                                       report.residual_history, worst_dofs(report.last_residual, tab))
            x, mult = report.state, report.multipliers
            iterations.append(report.iterations)
    u, R = split_state(x)
    M = ops.mass(u, R)
    _, K = prob.assembler.tangent(u, R=R)
    if prob.loads.has_state_loads:
        K = K + prob.load_stiffness(x, 1.0)
    G, KO = ops.matrices(u, R)
    K = (K + KO).tocsr()
    N = None
    if prob.joints is not None:
        if mult is not None and len(mult):
            K = (K + prob.constraint_stiffness(mult)).tocsr()
        N = NullSpace(prob.constraints(x, 1.0)[1]).N
    return SteadySpin(w, frame, x, M.tocsr(), G, K, N, tab, mult, info={"newton_iterations": iterations})


def campbell(model: Model, speeds: Sequence[float], n_modes: int = 4, **kwargs: Any) -> NDArray[np.float64]:
    """Damped frequencies Im λ (len(speeds), n_modes) of the steady-spin modes at each spin
    rate (a Campbell diagram); keyword arguments go to ``steady_spin``. The equilibrium of
    each speed starts from the previous one."""
    out = np.full((len(speeds), n_modes), np.nan)
    state = kwargs.pop("state", None)
    for i, om in enumerate(speeds):
        lin = steady_spin(model, om, state=state, **kwargs)
        state = lin.state.copy() if isinstance(lin.state, Configuration) else np.array(lin.state)
        f = np.sort(lin.modes(n_modes).damped_frequency)
        out[i, : f.size] = f[:n_modes]
    return out
