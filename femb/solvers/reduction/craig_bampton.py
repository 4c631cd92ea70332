"""Craig–Bampton reduction of a linear component.

A component with stiffness K and mass M (n × n, symmetric) is split into boundary DOFs b
(the interface: where it connects to the rest of a model) and interior DOFs i. Its interior
motion is approximated by

    u_i = Ψ u_b + Φ q,    Ψ = −K_ii⁻¹ K_ib,    K_ii Φ = M_ii Φ Ω²,  Φᵀ M_ii Φ = I,

static constraint modes Ψ (the interior response to unit boundary displacements) plus the k
lowest fixed-interface normal modes Φ with amplitudes q. With T = [[I, 0], [Ψ, Φ]] the
reduced matrices are

    K_r = Tᵀ K T = blkdiag(K_bb + K_bi Ψ, Ω²),
    M_r = Tᵀ M T = [[M_bb^r, M_bq], [M_qb, I]].

Properties the tests assert: rigid-body motion is represented exactly (Ψ carries the
interior along with any boundary motion that K does not resist), static boundary loads are
answered exactly for any k (k = 0 is Guyan reduction), frequencies converge from above as k
grows (nested Ritz subspaces), K_bq = 0 and M_qq = I.

Units are those of K and M; frequencies are in rad per time unit of that system.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from femb.core.errors import InputError, ModelError

DENSE_LIMIT = 1500  # interior size up to which the fixed-interface eigenproblem is solved dense
PAIR_TOLERANCE = 1e-6  # relative frequency gap below which two fixed-interface modes are one degenerate set


@dataclass(frozen=True)
class CraigBampton:
    """A Craig–Bampton reduced component.

    Attributes
    ----------
    K, M : (n_b + k, n_b + k) float64
        Reduced stiffness and mass, boundary DOFs first, then the modal amplitudes q.
    constraint_modes : (n_i, n_b) float64
        Ψ, interior displacement per unit boundary displacement.
    normal_modes : (n_i, k + m) float64
        Φ, fixed-interface modes normalised to Φᵀ M_ii Φ = I, followed by the m
        static-correction modes (same normalisation, M_ii- and K_ii-orthogonal to all others).
    frequencies : (k + m,) float64
        Fixed-interface circular frequencies ω (rad per time unit) of the k normal modes,
        ascending, then the Ritz pseudo-frequencies of the m static-correction modes.
    boundary, interior : (n_b,), (n_i,) int64
        Positions of the boundary and interior DOFs in the component's matrices.
    labels : tuple of str
        A name for every DOF of the component (e.g. "node 4 uy"), used in messages.
    n_correction : int
        m, the number of static-correction modes at the end of ``normal_modes``.
    n_completed : int
        Fixed-interface modes kept beyond the k asked for because the k-th mode belonged to a
        degenerate (or nearly degenerate) set whose other members would have been cut off
        (``craig_bampton(..., whole_pairs=True)``); 0 when none were added.
    """

    K: np.ndarray
    M: np.ndarray
    constraint_modes: np.ndarray
    normal_modes: np.ndarray
    frequencies: np.ndarray
    boundary: np.ndarray
    interior: np.ndarray
    labels: tuple
    n_correction: int = 0
    n_completed: int = 0

    @property
    def n_boundary(self) -> int:
        """Number of boundary DOFs n_b."""
        return int(self.boundary.size)

    @property
    def n_modes(self) -> int:
        """Number of modal amplitudes: k fixed-interface modes plus m static-correction modes."""
        return int(self.frequencies.size)

    @property
    def n_full(self) -> int:
        """Number of DOFs of the unreduced component (boundary plus interior)."""
        return int(self.boundary.size + self.interior.size)

    def transformation(self) -> np.ndarray:
        """T (n, n_b + k): full DOFs (in the component's order) from [u_b; q]."""
        n_b, k = self.n_boundary, self.n_modes
        T = np.zeros((self.n_full, n_b + k))
        T[self.boundary, np.arange(n_b)] = 1.0
        T[np.ix_(self.interior, np.arange(n_b))] = self.constraint_modes
        T[np.ix_(self.interior, np.arange(n_b, n_b + k))] = self.normal_modes
        return T

    def expand(self, reduced: np.ndarray) -> np.ndarray:
        """Full DOF values (n,) or (n, m) from reduced ones (n_b + k,) or (n_b + k, m)."""
        reduced = np.asarray(reduced, dtype=np.float64)
        n_b = self.n_boundary
        out = np.zeros((self.n_full,) + reduced.shape[1:])
        out[self.boundary] = reduced[:n_b]
        out[self.interior] = self.constraint_modes @ reduced[:n_b] + self.normal_modes @ reduced[n_b:]
        return out

    def reduce_load(self, f: np.ndarray) -> np.ndarray:
        """Reduced load Tᵀ f (n_b + k,) of a full load vector f (n,)."""
        f = np.asarray(f, dtype=np.float64)
        f_i = f[self.interior]
        return np.concatenate([f[self.boundary] + self.constraint_modes.T @ f_i, self.normal_modes.T @ f_i])

    def summary(self) -> str:
        """One line saying what was kept."""
        k = self.n_modes - self.n_correction
        top = f", highest retained fixed-interface frequency {self.frequencies[k - 1]:.6g} rad/s" if k else " (Guyan)"
        extra = f" + {self.n_correction} static-correction" if self.n_correction else ""
        pairs = (f" ({self.n_completed} added to keep a degenerate set of fixed-interface modes whole)"
                 if self.n_completed else "")
        return (f"Craig–Bampton: {self.n_full} DOFs -> {self.n_boundary} boundary + {k} modal{pairs}{extra} "
                f"= {self.K.shape[0]} reduced{top}")


def _as_csc(A, name: str) -> sp.csc_matrix:
    if sp.issparse(A):
        A = A.tocsc().astype(np.float64)
    else:
        A = np.asarray(A, dtype=np.float64)
        if A.ndim != 2:
            raise InputError(f"the {name} matrix must be two-dimensional, got shape {A.shape}", name)
        A = sp.csc_matrix(A)
    if A.shape[0] != A.shape[1]:
        raise InputError(f"the {name} matrix must be square, got {A.shape[0]} x {A.shape[1]}", name)
    if A.nnz and not np.all(np.isfinite(A.data)):
        raise InputError(f"the {name} matrix has NaN or Inf entries", name)
    return A


def _check_symmetric(A: sp.csc_matrix, name: str, labels: Sequence[str]) -> None:
    scale = abs(A).max() if A.nnz else 0.0
    D = (A - A.T).tocoo()
    if D.nnz == 0:
        return
    worst = int(np.argmax(np.abs(D.data)))
    if abs(D.data[worst]) > 1e-10 * max(scale, 1e-300):
        r, c = D.row[worst], D.col[worst]
        raise InputError(f"the {name} matrix is not symmetric: entry ({labels[r]}, {labels[c]}) differs from its "
                         f"transpose by {abs(D.data[worst]):.3e} (largest entry {scale:.3e})", name)


def _check_mass(M: sp.csc_matrix, labels: Sequence[str], dense_limit: int) -> None:
    d = M.diagonal()
    neg = np.flatnonzero(d < 0.0)
    if neg.size:
        shown = ", ".join(labels[i] for i in neg[:8])
        raise InputError(f"the mass matrix has negative diagonal entries at {shown}", "mass")
    scale = float(d.max()) if d.size else 0.0
    if M.shape[0] <= dense_limit and scale > 0.0:
        w = np.linalg.eigvalsh(M.toarray())
        if w[0] < -1e-10 * scale:
            raise InputError(f"the mass matrix is indefinite (smallest eigenvalue {w[0]:.3e}, largest diagonal "
                             f"entry {scale:.3e})", "mass")


def _index_set(boundary, n: int) -> np.ndarray:
    b = np.asarray(boundary)
    if b.dtype == bool:
        if b.shape != (n,):
            raise InputError(f"a boolean boundary mask must have {n} entries, got {b.shape}", "boundary")
        b = np.flatnonzero(b)
    b = b.astype(np.int64).ravel()
    if b.size == 0:
        raise InputError("the boundary (interface) has no DOFs", "boundary")
    if b.min() < 0 or b.max() >= n:
        raise InputError(f"boundary DOF indices must lie in 0..{n - 1}, got {b.min()}..{b.max()}", "boundary")
    if np.unique(b).size != b.size:
        raise InputError("the boundary lists a DOF more than once", "boundary")
    return b


def _interior_mechanism(K_ii: sp.csc_matrix, interior_labels: Sequence[str], count: int = 12) -> list:
    """Names of the interior DOFs that move most in the softest interior mode (a mechanism
    the boundary does not hold)."""
    diag = np.abs(K_ii.diagonal())
    weak = np.flatnonzero(diag <= 1e-12 * max(diag.max(initial=0.0), 1e-300))
    if weak.size == 0 and K_ii.shape[0] <= 3000:
        w, v = np.linalg.eigh(0.5 * (K_ii + K_ii.T).toarray())
        weak = np.argsort(-np.abs(v[:, int(np.argmin(np.abs(w)))]))[:count]
    return [interior_labels[i] for i in weak[:count]]


def _factor_interior(K_ii: sp.csc_matrix, interior_labels: Sequence[str]):
    message = ("the interior stiffness K_ii is singular: the interface does not hold the component "
               "(an interior mechanism or unsupported part); free interior DOFs: ")
    try:
        lu = spla.splu(K_ii, permc_spec="COLAMD")
    except RuntimeError:
        raise ModelError(message + ", ".join(_interior_mechanism(K_ii, interior_labels))) from None
    d = np.abs(lu.U.diagonal())
    if d.size and d.min() <= 1e-13 * d.max():
        raise ModelError(message + ", ".join(_interior_mechanism(K_ii, interior_labels))
                         + f" (pivot ratio {d.min() / d.max():.1e})")
    return lu


def _fixed_interface_modes(K_ii: sp.csc_matrix, M_ii: sp.csc_matrix, k: int, dense_limit: int):
    n_i = K_ii.shape[0]
    if k == 0:
        return np.zeros(0), np.zeros((n_i, 0))
    if n_i <= dense_limit or k >= n_i - 1:
        try:
            lam, phi = sla.eigh(K_ii.toarray(), M_ii.toarray(), subset_by_index=[0, k - 1])
        except np.linalg.LinAlgError:
            # a singular interior mass (DOFs without mass, e.g. lumped beams without rotary
            # inertia): solve M φ = μ K φ (K_ii is positive definite) for the k largest μ = 1/ω²
            mu, phi = sla.eigh(M_ii.toarray(), K_ii.toarray(), subset_by_index=[n_i - k, n_i - 1])
            mu, phi = mu[::-1], phi[:, ::-1]
            if mu[-1] <= 1e-12 * max(mu[0], 1e-300):
                carried = int(np.sum(mu > 1e-12 * max(mu[0], 1e-300)))
                raise InputError(f"only {carried} fixed-interface modes carry mass (the interior mass matrix is "
                                 f"singular); asked for {k}", "n_modes") from None
            lam = 1.0 / mu
            phi = phi / np.sqrt(np.einsum("ij,ij->j", phi, M_ii @ phi))
    else:
        lam, phi = spla.eigsh(K_ii, k=k, M=M_ii, sigma=0.0, which="LM")
        order = np.argsort(lam)
        lam, phi = lam[order], phi[:, order]
        # mass-normalise (shift-invert Lanczos returns M-orthogonal vectors up to scale)
        phi = phi / np.sqrt(np.einsum("ij,ij->j", phi, M_ii @ phi))
    return np.sqrt(np.maximum(lam, 0.0)), phi


def _frequencies(K_ii: sp.csc_matrix, M_ii: sp.csc_matrix, count: int, dense_limit: int) -> np.ndarray:
    """The ``count`` lowest fixed-interface circular frequencies, ascending (no vectors)."""
    n_i = K_ii.shape[0]
    if n_i <= dense_limit or count >= n_i - 1:
        try:
            lam = sla.eigh(K_ii.toarray(), M_ii.toarray(), subset_by_index=[0, count - 1], eigvals_only=True)
        except np.linalg.LinAlgError:  # singular interior mass: the k largest μ = 1/ω² of M φ = μ K φ
            mu = sla.eigh(M_ii.toarray(), K_ii.toarray(), subset_by_index=[n_i - count, n_i - 1], eigvals_only=True)
            lam = 1.0 / np.maximum(mu[::-1], 1e-300)
    else:
        lam = np.sort(spla.eigsh(K_ii, k=count, M=M_ii, sigma=0.0, which="LM", return_eigenvectors=False))
    return np.sqrt(np.maximum(lam, 0.0))


def _whole_sets(K_ii: sp.csc_matrix, M_ii: sp.csc_matrix, k: int, dense_limit: int):
    """The k lowest fixed-interface modes, completed by the rest of a degenerate set the k-th
    mode belongs to: while the next mode's frequency lies within PAIR_TOLERANCE (relative)
    of the last kept one, it is kept too (a cut through a degenerate pair keeps one mode of
    an arbitrary orientation in the pair's plane). The frequencies beyond k are found first
    (without vectors); the modes are then computed for the final count, so a reduction that
    needs no completion is exactly the one of k modes. Returns (ω, Φ, number added)."""
    n_i = K_ii.shape[0]
    keep = k
    if 0 < k < n_i:
        extra = 2
        while True:
            want = min(k + extra, n_i)
            omega = _frequencies(K_ii, M_ii, want, dense_limit)
            while keep < want and omega[keep] - omega[keep - 1] <= PAIR_TOLERANCE * omega[keep]:
                keep += 1
            if keep < want or want == n_i:
                break
            extra *= 2  # every frequency found belongs to the set: look further
    omega, Phi = _fixed_interface_modes(K_ii, M_ii, keep, dense_limit)
    return omega, Phi, keep - k


def _static_correction_modes(lu, K_ii: sp.csc_matrix, M_ii: sp.csc_matrix, Phi: np.ndarray, F_i: np.ndarray):
    """Static-correction modes of interior load patterns F_i (n_i, m): the fixed-interface
    static responses K_ii⁻¹ F_i, M-orthogonalised against Φ (twice, for round-off), then
    Rayleigh–Ritz within their span (patterns that Φ already represents, or that repeat
    others, are dropped). Returns (pseudo-frequencies (m',), modes (n_i, m'))."""
    X = lu.solve(np.asarray(F_i, dtype=np.float64))
    size = np.sqrt(np.abs(np.einsum("ij,ij->j", X, M_ii @ X)))
    for _ in range(2):
        X = X - Phi @ (Phi.T @ (M_ii @ X))
    Mx = X.T @ (M_ii @ X)
    Mx = 0.5 * (Mx + Mx.T)
    w, V = np.linalg.eigh(Mx)
    keep = w > 1e-20 * max(float(size.max(initial=0.0)) ** 2, 1e-300)
    if not np.any(keep):
        return np.zeros(0), np.zeros((X.shape[0], 0))
    B = X @ (V[:, keep] / np.sqrt(w[keep]))  # M-orthonormal basis of the new directions
    Kb = B.T @ (K_ii @ B)
    lam, Z = np.linalg.eigh(0.5 * (Kb + Kb.T))
    return np.sqrt(np.maximum(lam, 0.0)), B @ Z


def craig_bampton(K, M, boundary, n_modes: int, labels: Optional[Sequence[str]] = None,
                  dense_limit: int = DENSE_LIMIT, correction_loads=None, whole_pairs: bool = True) -> CraigBampton:
    """Reduce the component (K, M) to its ``boundary`` DOFs plus ``n_modes`` fixed-interface
    normal modes.

    Parameters
    ----------
    K, M : (n, n) sparse or dense, symmetric
        Stiffness and mass of the component over its free DOFs (supports removed).
    boundary : (n_b,) int or (n,) bool
        The interface DOFs (kept physically).
    n_modes : int
        Number k ≥ 0 of fixed-interface modes to keep (0: Guyan reduction).
    labels : sequence of str, optional
        A name per DOF for messages (default "dof i").
    dense_limit : int
        Interior size up to which the eigenproblem is solved dense; above it sparse
        shift-invert Lanczos about 0.
    correction_loads : (n,) or (n, m) array, optional
        Load patterns (over all n DOFs; their interior rows are used) whose static response
        the reduction must reproduce exactly: m static-correction modes are appended after
        the k normal modes (fewer if a pattern is already represented). None: none.
    whole_pairs : bool
        When the k-th fixed-interface mode belongs to a degenerate or nearly degenerate set
        (relative frequency gap below ``PAIR_TOLERANCE`` = 1e-6, e.g. the bending pairs of a
        beam with a circular or square section), keep the whole set (k + 1 or more modes;
        ``n_completed`` and ``summary()`` say how many were added). False: exactly k, one
        mode of the set in an orientation that the eigensolver's round-off decides.

    Raises InputError for non-square, mismatched, non-symmetric or non-finite matrices, an
    indefinite mass, an empty or out-of-range boundary, or more modes than interior DOFs;
    ModelError naming the free interior DOFs when K_ii is singular.
    """
    K = _as_csc(K, "stiffness")
    M = _as_csc(M, "mass")
    n = K.shape[0]
    if M.shape != K.shape:
        raise InputError(f"stiffness ({n} x {n}) and mass ({M.shape[0]} x {M.shape[1]}) matrices differ in size", "mass")
    labels = tuple(labels) if labels is not None else tuple(f"dof {i}" for i in range(n))
    if len(labels) != n:
        raise InputError(f"{len(labels)} DOF labels for {n} DOFs", "labels")
    _check_symmetric(K, "stiffness", labels)
    _check_symmetric(M, "mass", labels)
    _check_mass(M, labels, dense_limit)
    b = _index_set(boundary, n)
    mask = np.ones(n, dtype=bool)
    mask[b] = False
    i = np.flatnonzero(mask)
    k = int(n_modes)
    if k < 0 or k > i.size:
        raise InputError(f"n_modes must lie in 0..{i.size} (the number of interior DOFs), got {n_modes}", "n_modes")

    K_ii, K_ib, K_bb = K[i][:, i].tocsc(), K[i][:, b].toarray(), K[b][:, b].toarray()
    M_ii, M_ib, M_bb = M[i][:, i].tocsc(), M[i][:, b].toarray(), M[b][:, b].toarray()
    if i.size:
        lu = _factor_interior(K_ii, [labels[j] for j in i])
        Psi = -lu.solve(K_ib)
    else:
        Psi = np.zeros((0, b.size))
    if whole_pairs:
        omega, Phi, n_completed = _whole_sets(K_ii, M_ii, k, dense_limit)
    else:
        omega, Phi = _fixed_interface_modes(K_ii, M_ii, k, dense_limit)
        n_completed = 0
    k = omega.size
    n_corr = 0
    if correction_loads is not None:
        F = np.asarray(correction_loads, dtype=np.float64)
        F = F.reshape(n, -1) if F.ndim == 1 or F.shape[0] == n else F
        if F.ndim != 2 or F.shape[0] != n or not np.all(np.isfinite(F)):
            raise InputError(f"correction loads must be finite, with {n} rows (one per DOF), got shape "
                             f"{np.shape(correction_loads)}", "correction_loads")
        if i.size:
            w_c, Phi_c = _static_correction_modes(lu, K_ii, M_ii, Phi, F[i])
            omega, Phi, n_corr = np.concatenate([omega, w_c]), np.hstack([Phi, Phi_c]), int(w_c.size)
            k = omega.size

    K_b = K_bb + K_ib.T @ Psi
    MPsi = M_ii @ Psi
    M_b = M_bb + M_ib.T @ Psi + Psi.T @ M_ib + Psi.T @ MPsi
    M_bq = (M_ib.T + MPsi.T) @ Phi
    n_b = b.size
    K_r = np.zeros((n_b + k, n_b + k))
    M_r = np.zeros_like(K_r)
    K_r[:n_b, :n_b] = 0.5 * (K_b + K_b.T)
    K_r[n_b:, n_b:] = np.diag(omega ** 2)
    M_r[:n_b, :n_b] = 0.5 * (M_b + M_b.T)
    M_r[:n_b, n_b:] = M_bq
    M_r[n_b:, :n_b] = M_bq.T
    M_r[n_b:, n_b:] = np.eye(k)
    return CraigBampton(K_r, M_r, Psi, Phi, omega, b, i, labels, n_corr, n_completed)
