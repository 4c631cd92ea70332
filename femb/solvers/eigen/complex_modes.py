"""Complex modes of non-symmetric second-order systems: M q̈ + C q̇ + K q = 0.

C may hold viscous damping and gyroscopic (skew) terms, K may be non-symmetric (follower
loads, circulatory forces, the skew part of a 3-D tangent away from equilibrium). With
q = φ e^{λt} the quadratic eigenproblem (λ²M + λC + K) φ = 0 is solved through the
first-order pencil

    A x = λ B x,   A = [[0, I], [−K, −C]],   B = [[I, 0], [0, M]],   x = (φ, λφ),

by shift-invert Arnoldi (ARPACK through scipy.sparse.linalg.eigs) on the operator
(A − σB)⁻¹B, whose largest eigenvalues μ = 1/(λ − σ) are the λ nearest the shift σ. The
solve with A − σB needs only one sparse LU of the n × n matrix

    K* = K + σC + σ²M      (Doan, Géradin & Kill's shifted stiffness),

since (A − σB)(y1, y2) = (b1, b2) gives y1 = −K*⁻¹(b2 + (C + σM) b1), y2 = b1 + σ y1.
Rigid-body modes (λ = 0, K singular) are handled by shifting: the default shift is 0 when
K is regular and a small negative real number otherwise, so K* is regular and the rigid
modes come out as (near-)zero eigenvalues; each is a defective double zero of the pencil,
reported once as λ = 0 (|λ| ≤ 1e-6·sqrt(max K_ii/max M_ii) counts as zero). A singular M (massless DOFs) only adds infinite
eigenvalues (μ = 0), which are never selected. Small problems (2n ≤ ``dense_limit``) use
the dense QZ algorithm on the same pencil.

Eigenvalues of real matrices come in conjugate pairs; one of each pair (Im λ ≥ 0) is kept,
with real eigenvalues (over-damped or divergent motions, rigid modes). For each kept
eigenvalue: damped frequency ω_d = Im λ [rad/time], natural frequency |λ|, damping ratio
ζ = −Re λ/|λ| (negative: growing, e.g. flutter), and the complex mode φ scaled so that its
largest component is 1 (real).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from numpy.typing import ArrayLike, NDArray

from femb.core.errors import InputError, ModelError
from femb.solvers.configuration import split_state
from femb.solvers.eigen.modal import joint_reduction, operating_point
from femb.solvers.problem import StaticProblem

if TYPE_CHECKING:
    from femb.correlation import CorrelationTable
    from femb.model import Model
    from femb.solvers.configuration import Configuration

log = logging.getLogger(__name__)


@dataclass
class ComplexModes:
    """Complex eigen-solutions of M q̈ + C q̇ + K q = 0 (one per conjugate pair).

    Attributes
    ----------
    eigenvalues : (k,) complex
        λ [1/time], ascending abs(λ) (Im λ ≥ 0).
    vectors : (k, n) complex
        Mode shapes over the coordinates of the matrices.
    modes : (k, n_var) complex or None
        Mode shapes over all variables of ``table`` (None when the matrices were given
        without a table); constraint-reduced shapes mapped back by N.
    shift : complex
        The shift σ used.
    """

    eigenvalues: np.ndarray
    vectors: np.ndarray
    modes: Optional[np.ndarray] = None
    table: Optional[CorrelationTable] = None
    shift: complex = 0.0
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def damped_frequency(self) -> np.ndarray:
        """ω_d = Im λ [rad/time]."""
        return self.eigenvalues.imag

    @property
    def natural_frequency(self) -> np.ndarray:
        """abs(λ) [rad/time] (the undamped frequency for light damping)."""
        return np.abs(self.eigenvalues)

    @property
    def frequency_hz(self) -> np.ndarray:
        """Damped frequencies in cycles per time unit: Im λ / 2π."""
        return self.eigenvalues.imag / (2.0 * np.pi)

    @property
    def damping_ratio(self) -> np.ndarray:
        """ζ = −Re λ / abs(λ) (0 for undamped and gyroscopic modes, negative when growing)."""
        mag = np.abs(self.eigenvalues)
        return np.where(mag > 0, -self.eigenvalues.real / np.where(mag > 0, mag, 1.0), 0.0)

    @property
    def stable(self) -> bool:
        """True when no kept eigenvalue has a positive real part beyond round-off."""
        scale = max(float(np.abs(self.eigenvalues).max(initial=0.0)), 1e-300)
        return bool(np.all(self.eigenvalues.real <= 1e-8 * scale))


def _as_csc(A, n, name):
    if A is None:
        return sp.csc_matrix((n, n))
    A = sp.csc_matrix(A) if not sp.issparse(A) else A.tocsc()
    if A.shape != (n, n):
        raise InputError(f"{name} has shape {A.shape}, expected ({n}, {n}) like K", "complex modes")
    if A.nnz and not np.all(np.isfinite(A.data)):
        raise InputError(f"{name} contains NaN or Inf entries", "complex modes")
    return A


def _lu(Kstar, sigma):
    """LU of K* = K + σC + σ²M; None when it is singular."""
    try:
        lu = spla.splu(Kstar.tocsc(), permc_spec="COLAMD")
    except RuntimeError:
        return None
    d = np.abs(lu.U.diagonal())
    if d.size and d.min() <= 1e-13 * d.max():
        return None
    return lu


def _scale_estimate(M, C, K):
    """A characteristic |λ| of the pencil: sqrt(max K_ii / max M_ii) (or the C scale)."""
    k = float(np.abs(K.diagonal()).max(initial=0.0))
    m = float(np.abs(M.diagonal()).max(initial=0.0))
    c = float(np.abs(C.diagonal()).max(initial=0.0)) if C.nnz else 0.0
    if m > 0 and k > 0:
        return np.sqrt(k / m)
    if m > 0 and c > 0:
        return c / m
    return 1.0


def _factor(M, C, K, shift):
    """(σ, LU of K*) for the requested shift, or the default one (0, else a small negative
    number); raises InputError for a shift on an eigenvalue, ModelError for a singular
    pencil."""
    if shift is not None:
        sigma = complex(shift) if np.iscomplexobj(shift) or isinstance(shift, complex) else float(shift)
        Kstar = K + sigma * C + sigma**2 * M
        lu = _lu(Kstar.astype(np.complex128) if isinstance(sigma, complex) else Kstar, sigma)
        if lu is not None:
            return sigma, lu
        probe = sigma + 1e-3 * _scale_estimate(M, C, K) * (1.0 + 0.37j)
        if _lu((K + probe * C + probe**2 * M).astype(np.complex128), probe) is None:
            raise ModelError("singular pencil: λ²M + λC + K is singular for every λ (DOFs with neither stiffness, "
                             "damping nor mass, or an unconstrained mechanism without inertia)")
        raise InputError(f"shift σ = {sigma} coincides with an eigenvalue (K + σC + σ²M is singular): move the shift",
                         "complex modes")
    lu = _lu(K, 0.0)
    if lu is not None:
        return 0.0, lu
    scale = _scale_estimate(M, C, K)
    for factor in (1e-4, 1e-3, 1e-2, 1e-1):
        sigma = -factor * scale
        lu = _lu(K + sigma * C + sigma**2 * M, sigma)
        if lu is not None:
            return sigma, lu
    probe = scale * (0.01 + 0.37j)
    if _lu((K + probe * C + probe**2 * M).astype(np.complex128), probe) is None:
        raise ModelError("singular pencil: λ²M + λC + K is singular for every λ (DOFs with neither stiffness, "
                         "damping nor mass, or an unconstrained mechanism without inertia)")
    raise InputError("no regular default shift found (K + σC + σ²M singular for σ = 0 and small negative σ): "
                     "give a shift", "complex modes")


def _select(lam, vec, n_modes, sigma, zero_tol=0.0):
    """One eigenvalue of each conjugate pair (Im ≥ 0), finite, the n_modes nearest σ,
    returned in ascending |λ|. Rigid-body modes are defective double zeros of the pencil
    that round-off splits into tiny pairs (real or imaginary): the c eigenvalues with
    |λ| ≤ zero_tol count as ceil(c/2) modes at λ = 0."""
    finite = np.isfinite(lam)
    lam, vec = lam[finite], vec[:, finite]
    scale = max(float(np.abs(lam).max(initial=0.0)), 1e-300)
    zero = np.abs(lam) <= zero_tol
    n_zero = (int(zero.sum()) + 1) // 2
    zlam, zvec = np.zeros(n_zero, np.complex128), vec[:, np.flatnonzero(zero)[:n_zero]]
    lam, vec = lam[~zero], vec[:, ~zero]
    keep = lam.imag >= -1e-10 * scale
    lam, vec = np.concatenate([zlam, lam[keep]]), np.hstack([zvec, vec[:, keep]])
    order = np.argsort(np.abs(lam - sigma), kind="stable")[:n_modes]
    lam, vec = lam[order], vec[:, order]
    order = np.lexsort((lam.imag, np.abs(lam)))
    lam, vec = lam[order], vec[:, order]
    lam = np.where(np.abs(lam.imag) <= 1e-12 * scale, lam.real + 0j, lam)
    return lam, vec


def _normalize(vec):
    """Scale each column so that its largest component is 1 (real)."""
    out = np.array(vec, dtype=np.complex128)
    for j in range(out.shape[1]):
        i = int(np.argmax(np.abs(out[:, j])))
        if out[i, j] != 0:
            out[:, j] /= out[i, j]
    return out


def complex_eigen(M, C, K, n_modes=6, shift=None, dense_limit=400, tol=0.0):
    """Eigenvalues λ and mode shapes φ of (λ²M + λC + K) φ = 0 nearest the shift.

    Parameters
    ----------
    M, C, K : (n, n) sparse or dense matrices (C may be None); any symmetry.
    n_modes : number of modes (one per conjugate pair) wanted.
    shift : float or complex, optional
        σ of the shift-invert; the eigenvalues nearest σ are returned. Default 0 (a small
        negative number when K is singular: rigid-body modes).
    dense_limit : the dense QZ algorithm is used when 2n ≤ dense_limit.

    Returns (eigenvalues (k,), vectors (n, k), σ); see the module docstring.
    """
    K = _as_csc(K, K.shape[0], "K")
    n = K.shape[0]
    M = _as_csc(M, n, "M")
    C = _as_csc(C, n, "C")
    if n == 0:
        return np.zeros(0, np.complex128), np.zeros((0, 0), np.complex128), 0.0
    n_modes = int(n_modes)
    if n_modes < 1:
        raise InputError(f"n_modes must be >= 1, got {n_modes}", "complex modes")
    sigma, lu = _factor(M, C, K, shift)
    zero_tol = 1e-6 * _scale_estimate(M, C, K)
    if 2 * n <= dense_limit:
        Z, I = np.zeros((n, n)), np.eye(n)
        A = np.block([[Z, I], [-K.toarray(), -C.toarray()]])
        B = np.block([[I, Z], [Z, M.toarray()]])
        lam, vec = sla.eig(A, B)
        lam, vec = _select(lam, vec[:n], n_modes, sigma, zero_tol)
        return lam, _normalize(vec), sigma
    dtype = np.complex128 if isinstance(sigma, complex) else np.float64
    CsM = (C + sigma * M).tocsr()
    Mc = M.tocsr()

    def op(x):
        b1, b2 = x[:n], Mc @ x[n:]
        y1 = -lu.solve(np.asarray(b2 + CsM @ b1, dtype=dtype))
        return np.concatenate([y1, b1 + sigma * y1])

    k = min(2 * n_modes + 2, 2 * n - 2)
    operator = spla.LinearOperator((2 * n, 2 * n), matvec=op, dtype=dtype)
    try:
        mu, vec = spla.eigs(operator, k=k, which="LM", tol=tol, ncv=min(2 * n, max(2 * k + 1, 40)))
    except spla.ArpackNoConvergence as exc:
        mu, vec = exc.eigenvalues, exc.eigenvectors
        log.warning("complex modes: ARPACK converged %d of %d eigenvalues", mu.size, k)
    nonzero = np.abs(mu) > 0
    lam = np.full(mu.shape, np.inf, dtype=np.complex128)
    lam[nonzero] = sigma + 1.0 / mu[nonzero]
    lam, vec = _select(lam, vec[:n], n_modes, sigma, zero_tol)
    return lam, _normalize(vec), sigma


def modes_over_variables(vectors, table, N=None):
    """(k, n_var) complex shapes over all variables from (n, k) shapes over the equations
    (or over independent coordinates, mapped by the null-space basis N (n_eq, n))."""
    full = vectors if N is None else N @ vectors
    out = np.zeros((vectors.shape[1], table.n_var), dtype=np.complex128)
    out[:, table.eq_var] = full.T
    return out


def solve_complex_modes(model: Optional[Model] = None, n_modes: int = 6, state: Optional[Union[NDArray[np.float64], Configuration]] = None,
                        mass: Union[str, int] = "lumped", damping: Any = None,
                        gyroscopic: Union[None, ArrayLike, sp.spmatrix] = None, stiffness: Union[None, ArrayLike, sp.spmatrix] = None,
                        shift: Optional[complex] = None, problem: Optional[StaticProblem] = None, time: float = 0.0,
                        multipliers: Optional[NDArray[np.float64]] = None, load_factor: Optional[float] = None,
                        matrices: Optional[tuple[Any, Any, Any]] = None, symmetric_tangent: bool = False,
                        dense_limit: int = 400) -> ComplexModes:
    """Complex modes of ``model`` about ``state``, or of given matrices.

    Parameters
    ----------
    model : femb.model.Model, optional (not needed with ``matrices``)
    state : (n_var,) array or Configuration, optional
        State to linearize about (as for ``solve_modal``); the tangent K is kept as it is,
        non-symmetric parts included (follower moments at ``load_factor``, 3-D tangents
        away from equilibrium) unless ``symmetric_tangent``.
    mass : mass kind ("lumped", the default as in every femb analysis, "consistent",
        "invariant"; see ``solve_modal``).
    damping : (n_eq, n_eq) matrix, Rayleigh or (alpha, beta) tuple, optional
        Added to the damping of the model's discrete dampers; a tuple (α, β) gives
        C = αM + βK.
    gyroscopic : (n_eq, n_eq) matrix added to C (e.g. from femb.solvers.eigen.steady_spin).
    stiffness : (n_eq, n_eq) matrix added to K (e.g. spin softening, circulatory terms).
    multipliers, load_factor, time : as for ``solve_modal``.
    matrices : (M, C, K), optional
        Solve these instead (n × n each; C may be None); every other argument but
        ``n_modes``, ``shift`` and ``dense_limit`` is then ignored and the shapes are over
        the matrix coordinates (``vectors``; ``modes`` is None).

    Returns ComplexModes (modes over all variables when built from a model).
    """
    if matrices is not None:
        M, C, K = matrices
        lam, vec, sigma = complex_eigen(M, C, K, n_modes, shift, dense_limit)
        return ComplexModes(lam, vec.T, None, None, sigma)
    if model is None and problem is None:
        raise InputError("give a model (or matrices=(M, C, K))", "solve_complex_modes")

    prob = problem or StaticProblem(model)
    tab, asm = prob.table, prob.assembler
    x, K, M = operating_point(prob, state, mass, load_factor)
    if symmetric_tangent:
        K = 0.5 * (K + K.T)
    if stiffness is not None:
        K = K + sp.csr_matrix(stiffness)
    C = asm.damping_matrix(split_state(x)[0])
    C = sp.csr_matrix(K.shape) if C is None else C
    if damping is not None:
        if isinstance(damping, tuple) or hasattr(damping, "alpha"):
            alpha, beta = (damping.alpha, damping.beta) if hasattr(damping, "alpha") else damping
            C = C + alpha * M + beta * K
        else:
            C = C + sp.csr_matrix(damping)
    if gyroscopic is not None:
        C = C + sp.csr_matrix(gyroscopic)
    K, N = joint_reduction(prob, x, K, time, multipliers)
    if N is not None:
        M, C = N.T @ M @ N, N.T @ C @ N
    lam, vec, sigma = complex_eigen(M, C, K, n_modes, shift, dense_limit)
    return ComplexModes(lam, (vec if N is None else N @ vec).T, modes_over_variables(vec, tab, N), tab, sigma)
