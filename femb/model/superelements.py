"""Reduced data of a co-rotated Craig–Bampton superelement, as a model holds it.

``SuperelementData`` is plain arrays: the reduced stiffness and mass with the boundary
DOFs ordered node by node (ux, uy, uz, rx, ry, rz per interface node, in the order of
``positions``) followed by the modal amplitudes, and the reference positions of the
interface nodes. It is made from a Craig–Bampton reduction by
``SuperelementData.from_craig_bampton`` (used by ``ReducedComponent.superelement`` for
reduced femb models and directly for reductions of matrix files) and attached to model
nodes by ``Model.add_superelement``; the element (elements.superelement) receives K and M
in its property row, the geometric tensor G and the mass points when the data has them.

Mass points (``MassPoints``) carry the inertia of the body in dynamics: the full mesh's
nodal masses at their reference positions with their displacement rows of the reduction
basis, so that the element moves each of them with its shadow frame and its deformation,
x_j = o + R_s (X_j − X_c + Φ_j d), and the kinetic energy is Σ ½ m_j |ẋ_j|² — exact for any
rigid motion, centrifugal and Coriolis coupling of the modes included
(elements.superelement_step).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from femb.core.errors import InputError

DOF_ORDER = ("ux", "uy", "uz", "rx", "ry", "rz")


@dataclass(frozen=True)
class MassPoints:
    """The translational inertia of a reduced body as point masses (module docstring).

    Attributes
    ----------
    mass : (n_p,) float64
        Mass of each point (mass unit): the full mesh's lumped nodal masses, with satellite
        points for nodal rotary inertia (ReducedComponent.mass_points; a satellite's mass
        may be negative where a node's inertia tensor is not that of a physical body).
    positions : (n_p, 3) float64
        Reference positions (length unit), in the axes of the interface ``positions``.
    modes : (n_p, 3, m) float64
        Displacement of each point per unit element coordinate (element DOF order and modal
        scaling of the SuperelementData: column j is the point's displacement for d_j = 1,
        in the body's axes): rows of the Craig–Bampton basis.
    second : (n_p, 3, k, k) float64 or None
        Second-order displacement of each point per pair of (scaled) modal amplitudes: the
        point moves by Φ_j d + ½ Σ_ab q̂_a q̂_b second[j, :, a, b] (foreshortening,
        femb.solvers.reduction.modal_derivatives); None: first order only.
    """

    mass: NDArray[np.float64]
    positions: NDArray[np.float64]
    modes: NDArray[np.float64]
    second: Optional[NDArray[np.float64]] = None

    def problems(self, m: int) -> list[str]:
        """Inconsistencies with an element of m coordinates."""
        n = self.mass.shape[0]
        p = []
        if self.mass.ndim != 1 or self.positions.shape != (n, 3) or self.modes.shape != (n, 3, m):
            p.append(f"mass points: masses {self.mass.shape}, positions {self.positions.shape} and modes "
                     f"{self.modes.shape} do not fit {n} points of an element with {m} coordinates")
        elif not (np.all(np.isfinite(self.mass)) and np.all(np.isfinite(self.positions)) and np.all(np.isfinite(self.modes))):
            p.append("mass points have non-finite entries")
        elif not self.mass.sum() > 0.0:
            p.append("mass points need a positive total mass")
        if self.second is not None and (self.second.ndim != 4 or self.second.shape[:2] != (n, 3)
                                        or self.second.shape[2] != self.second.shape[3]):
            p.append(f"mass points: second-order rows {self.second.shape} do not fit {n} points")
        return p

    def row(self) -> NDArray[np.float64]:
        """The points packed for the element's property row: masses, positions, modes."""
        return np.concatenate([self.mass, self.positions.ravel(), self.modes.ravel()])


@dataclass(frozen=True)
class SuperelementData:
    """Reduced matrices of a superelement in the element's DOF order (properties
    ``n_nodes``: interface nodes, ``n_modes``: modal amplitudes).

    Attributes
    ----------
    K, M : (m, m) float64, m = 6·n_nodes + n_modes
        Reduced stiffness and mass (units of the reduced component), boundary DOFs node by
        node (ux, uy, uz, rx, ry, rz), then the modal amplitudes.
    modal_scale : float
        The modal amplitudes q̂ of K and M are the mass-normalised ones q (Φᵀ M_ii Φ = I,
        units length·mass^½) divided by ``modal_scale`` = √m, m the body's mass, so that
        q̂ is a length (the mass-weighted RMS displacement of the modal field) and its
        conjugate force a force: the Newton residuals and increments of a model mix them
        honestly with nodal translations and forces. Interior displacements are
        Φ q = Φ (modal_scale · q̂). ``from_craig_bampton`` sets it; 1 for data given
        directly.
    positions : (n_nodes, 3) float64
        Reference positions of the interface nodes (length unit), in the DOF order.
    frequencies : (n_modes,) float64
        Fixed-interface circular frequencies (rad per time unit).
    source : str
        Where the data comes from, used in messages.
    recovery : dict
        Data for recovering the full mesh (femb.results.superelements): ``order`` (m,) the
        row of the reduction of each element DOF (``from_craig_bampton``), and from
        ``ReducedComponent.superelement`` the ``component`` (its model, table and basis),
        ``points`` (n_p, 3) its reference node positions and ``interface`` its interface
        nodes; ``placement`` (Q, t) after ``placed``.
    G : (m, m, m) float64 or None
        Geometric stiffness per unit element coordinate: G[j] (m, m) is the projected
        geometric stiffness of the reduced body's stress state for d_j = 1 (one element
        coordinate, a length, a radian or a scaled modal amplitude q̂), in the element's DOF
        order and modal scaling (force per length for translations). The superelement's
        ``geometric_stiffness`` is T (Σ_j d_j G[j]) Tᵀ (elements.superelement), so linear
        buckling sees the pre-stress inside the body. None: no stress stiffening (K_G = 0).
        From ``from_craig_bampton(..., geometric=...)``.
    points : MassPoints or None
        The body's inertia for dynamics (module docstring); None: the data carry no mass
        distribution (dynamics refuses the superelement; statics, modal analysis and
        buckling use K and M).
    """

    K: NDArray[np.float64]
    M: NDArray[np.float64]
    positions: NDArray[np.float64]
    frequencies: NDArray[np.float64]
    source: str = "reduction"
    recovery: dict[str, Any] = field(default_factory=dict)
    modal_scale: float = 1.0
    G: Optional[NDArray[np.float64]] = None
    points: Optional[MassPoints] = None

    @property
    def n_nodes(self) -> int:
        """Number of interface (boundary) nodes."""
        return int(self.positions.shape[0])

    @property
    def n_modes(self) -> int:
        """Number of modal amplitudes (fixed-interface modes kept)."""
        return int(self.K.shape[0] - 6 * self.n_nodes)

    @classmethod
    def from_craig_bampton(cls, basis: Any, dofs: Sequence[tuple[int, str]], nodes: Sequence[int], positions: ArrayLike,
                           source: str = "reduction", recovery: Optional[dict[str, Any]] = None,
                           geometric: Optional[ArrayLike] = None,
                           mass_points: Optional[tuple[ArrayLike, ArrayLike, ArrayLike]] = None) -> "SuperelementData":
        """Reorder a CraigBampton reduction (femb.solvers.reduction.craig_bampton) into the
        element's DOF order.

        Parameters
        ----------
        basis : CraigBampton, with K, M (n_b + k, n_b + k) and ``frequencies`` (k,)
        dofs : (node, DOF name) of each boundary DOF in the order of the reduced matrices
        nodes : the interface nodes (ids as ``dofs`` names them) in the order wanted
        positions : (n_nodes, 3) their reference positions (length unit)
        geometric : optional (n_b + k, n_b + k, n_b + k) geometric tensor of the reduction in
            the order of its reduced matrices, unscaled amplitudes
            (``ModalGeometricStiffness.reduced_states`` of
            femb.solvers.reduction.stress_stiffening); reordered and scaled into ``G``
            exactly like K and M (each index of the tensor as one index of K)
        mass_points : optional (mass (n_p,), positions (n_p, 3), rows (n_p, 3, n_b + k)[,
            second (n_p, 3, k, k)]): the point masses of the component, their reference
            positions and their displacement rows of the basis in the order of the reduced
            matrices (unscaled amplitudes), optionally their second-order rows per pair of
            modal amplitudes; reordered and scaled into ``points`` like the columns of K

        Raises InputError naming ``source`` when the matrices and the DOF list disagree in
        size (geometric included), an interface node lacks one of the six DOFs (a superelement needs ux … rz at
        every interface node), or the DOF list has DOFs of other nodes.
        """
        K = np.asarray(basis.K, dtype=np.float64)
        M = np.asarray(basis.M, dtype=np.float64)
        nodes = [int(n) for n in nodes]
        k = int(np.asarray(basis.frequencies).size)
        if K.shape != M.shape or K.ndim != 2 or K.shape[0] != K.shape[1]:
            raise InputError(f"reduced stiffness {K.shape} and mass {M.shape} must be square and of one size", source)
        if K.shape[0] != len(dofs) + k:
            raise InputError(f"the reduced matrices are {K.shape[0]} x {K.shape[1]} but the reduction lists {len(dofs)} "
                             f"boundary DOFs and {k} modes", source)
        if not nodes:
            raise InputError("the interface has no nodes", source)
        if len(set(nodes)) != len(nodes):
            raise InputError(f"interface nodes repeat: {nodes}", source)
        where = {(int(n), str(d)): i for i, (n, d) in enumerate(dofs)}
        order = []
        for n in nodes:
            missing = [d for d in DOF_ORDER if (n, d) not in where]
            if missing:
                raise InputError(f"interface node {n} has no free {', '.join(missing)} in the reduction: a 3-D superelement "
                                 "needs all six DOFs (ux, uy, uz, rx, ry, rz) at every interface node", source)
            order += [where[(n, d)] for d in DOF_ORDER]
        if len(order) != len(dofs):
            extra = sorted({int(n) for n, _ in dofs} - set(nodes))
            raise InputError(f"the reduction has boundary DOFs at nodes {extra[:10]} that are not interface nodes given", source)
        perm = np.array(order + list(range(len(dofs), len(dofs) + k)), dtype=np.int64)
        pos = np.asarray(positions, dtype=np.float64)
        if pos.shape != (len(nodes), 3):
            raise InputError(f"positions must be ({len(nodes)}, 3), got {pos.shape}", source)
        K = K[np.ix_(perm, perm)]
        M = M[np.ix_(perm, perm)]
        G = None
        if geometric is not None:
            G = np.asarray(geometric, dtype=np.float64)
            if G.shape != (K.shape[0],) * 3:
                raise InputError(f"the geometric tensor is {G.shape} but the reduced matrices are {K.shape[0]} x "
                                 f"{K.shape[0]}", source)
            G = G[np.ix_(perm, perm, perm)]
        # modal amplitudes as lengths (class docstring): q = √m q̂, m the rigid-translation mass
        ux = 6 * np.arange(len(nodes))
        mass = float(M[np.ix_(ux, ux)].sum())
        scale = float(np.sqrt(mass)) if mass > 0.0 else 1.0
        S = np.ones(K.shape[0])
        S[6 * len(nodes):] = scale
        K = K * np.outer(S, S)
        M = M * np.outer(S, S)
        if G is not None:  # G_j per unit q_j = √m q̂_j: every index scales like one of K's
            G = G * S[:, None, None] * S[None, :, None] * S[None, None, :]
            G = 0.5 * (G + G.transpose(0, 2, 1))
        points = None
        if mass_points is not None:
            pm, pp, rows = (np.asarray(a, dtype=np.float64) for a in mass_points[:3])
            if rows.ndim != 3 or rows.shape[1:] != (3, K.shape[0]) or pm.shape != rows.shape[:1] or pp.shape != (pm.size, 3):
                raise InputError(f"mass points: masses {pm.shape}, positions {pp.shape} and basis rows {rows.shape} do not "
                                 f"fit a reduction of {K.shape[0]} coordinates", source)
            second = None
            if len(mass_points) > 3 and mass_points[3] is not None:  # per pair of unscaled amplitudes: q = √m q̂
                second = np.asarray(mass_points[3], dtype=np.float64)
                if second.shape != (pm.size, 3, k, k):
                    raise InputError(f"mass points: second-order rows {second.shape} do not fit {pm.size} points and {k} "
                                     "modal amplitudes", source)
                second = np.ascontiguousarray(second * scale * scale)
            points = MassPoints(pm.copy(), pp.copy(), np.ascontiguousarray(rows[:, :, perm] * S[None, None, :]), second)
        recovery = dict(recovery or {})
        recovery["order"] = perm  # element DOF j is row perm[j] of the reduction
        return cls(0.5 * (K + K.T), 0.5 * (M + M.T), pos.copy(), np.asarray(basis.frequencies, dtype=np.float64).copy(),
                   source, recovery, scale, G, points)

    def placed(self, rotation: ArrayLike, translation: ArrayLike = (0.0, 0.0, 0.0)) -> "SuperelementData":
        """The same body moved rigidly: positions t + Q X and the boundary DOFs' 3-blocks of
        K and M turned into the new axes (T K Tᵀ with T = blockdiag(Q, …, Q, I_k)); modal
        amplitudes are unchanged; G turns in its three indices alike (G'_j = Σ_i T_ji T G_i Tᵀ).
        ``rotation`` Q (3, 3) must be a proper rotation
        (InputError otherwise); ``translation`` t (3,) in length units."""
        Q = np.asarray(rotation, dtype=np.float64)
        t = np.asarray(translation, dtype=np.float64).ravel()
        if Q.shape != (3, 3) or not np.allclose(Q @ Q.T, np.eye(3), atol=1e-12) or np.linalg.det(Q) < 0.0:
            raise InputError("the placement rotation must be a proper 3 x 3 rotation matrix", self.source)
        if t.shape != (3,):
            raise InputError(f"the placement translation must have 3 components, got {t.shape}", self.source)
        m = self.K.shape[0]
        T = np.eye(m)
        for b in range(2 * self.n_nodes):
            T[3 * b:3 * b + 3, 3 * b:3 * b + 3] = Q
        recovery = dict(self.recovery)
        recovery["placement"] = (Q @ recovery.get("placement", (np.eye(3), np.zeros(3)))[0],
                                 Q @ recovery.get("placement", (np.eye(3), np.zeros(3)))[1] + t)
        G = None if self.G is None else np.einsum("ji,ab,ibc,dc->jad", T, T, self.G, T, optimize=True)
        points = None
        if self.points is not None:  # displacements turn with the body, coordinates as d' = T d
            second = self.points.second
            points = MassPoints(self.points.mass.copy(), self.points.positions @ Q.T + t,
                                np.einsum("ab,pbj,kj->pak", Q, self.points.modes, T, optimize=True),
                                None if second is None else np.einsum("ab,pbij->paij", Q, second))
        return SuperelementData(T @ self.K @ T.T, T @ self.M @ T.T, self.positions @ Q.T + t, self.frequencies.copy(),
                                self.source, recovery, self.modal_scale, G, points)

    def problems(self) -> list[str]:
        """Inconsistencies of the data (sizes, symmetry, finiteness)."""
        p = []
        m = 6 * self.n_nodes + max(self.n_modes, 0)
        if self.positions.ndim != 2 or self.positions.shape[1] != 3:
            p.append(f"positions must be (n_nodes, 3), got {self.positions.shape}")
        for name, A in (("stiffness", self.K), ("mass", self.M)):
            if A.shape != (m, m) or self.n_modes < 0:
                p.append(f"the reduced {name} is {A.shape} but {self.n_nodes} interface nodes need 6·{self.n_nodes} + k rows")
            elif not np.all(np.isfinite(A)):
                p.append(f"the reduced {name} has non-finite entries")
        if self.G is not None:
            if self.G.shape != (m, m, m):
                p.append(f"the geometric tensor is {self.G.shape} but the reduced matrices need ({m}, {m}, {m})")
            elif not np.all(np.isfinite(self.G)):
                p.append("the geometric tensor has non-finite entries")
        if self.points is not None:
            p += self.points.problems(m)
        if self.frequencies.size != self.n_modes:
            p.append(f"{self.frequencies.size} frequencies for {self.n_modes} modal amplitudes")
        return p
