"""Modal analysis about a configuration: (K_t − ω² M) φ = 0.

K_t is the tangent stiffness at the given state (geometric stiffness included, so
frequencies fall to zero at buckling along a load path); joint constraints are eliminated
through the null space of their Jacobian (K_r = Nᵀ K N, M_r = Nᵀ M N), so no spurious
zero or infinite eigenvalues appear. Symmetric problems use shift-invert Lanczos
(ARPACK); a negative shift keeps rigid-body modes (ω = 0) finite and included.

Models with oriented nodes (3-D rotations): the state is a Configuration (u, R) (or a
vector whose rotational slots hold rotation vectors, R = exp(θ̂)), the rotational mode
components are spatial spins, and the mass follows the current nodal triads. Away from
moment-free states the exact tangent has a skew part (spins do not commute; it cancels
against the load stiffness of conservative moment loads at equilibrium); the symmetric
part of K is used, and the load stiffness of rotation-dependent moments is included when
``load_factor`` is given.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Union

import numpy as np
import scipy.linalg as sla
import scipy.sparse.linalg as spla
from numpy.typing import NDArray

from femb.elements import MASS_KINDS
from femb.solvers.configuration import split_state
from femb.solvers.linalg.nullspace import NullSpace
from femb.solvers.problem import StaticProblem, check_mass_centre_offsets

if TYPE_CHECKING:
    from femb.correlation import CorrelationTable
    from femb.model import Model
    from femb.results import Results
    from femb.solvers.configuration import Configuration

log = logging.getLogger(__name__)


@dataclass
class ModalResult:
    """Natural frequencies and mode shapes (``solve_modal``).

    Attributes
    ----------
    omega : (k,) array
        Circular frequencies [rad/time] ascending (0 for rigid-body modes, negative for
        unstable directions: −sqrt(−λ)); ``frequency_hz`` is omega/2π.
    eigenvalues : (k,) array
        λ = ω² (signed).
    modes : (k, n_var) array
        Mode shapes over all variables, mass-normalized.
    table : CorrelationTable
        The numbering of the variables.
    """

    omega: np.ndarray
    eigenvalues: np.ndarray
    modes: np.ndarray
    table: CorrelationTable

    @property
    def frequency_hz(self) -> np.ndarray:
        """(k,) natural frequencies in cycles per time unit, omega/2π."""
        return self.omega / (2.0 * np.pi)


def operating_point(prob, state, mass, load_factor=None):
    """State x, tangent K and mass M (n_eq, n_eq) of a StaticProblem ``prob`` at ``state``
    (default undeformed; vector or Configuration): K with geometric stiffness and, at
    ``load_factor``, the load stiffness of rotation-dependent moments; M of the mass kind
    ``mass`` ("consistent", "lumped", "invariant" or its code)."""
    asm = prob.assembler
    x = prob.initial_state(state)
    u, R = split_state(x)
    kind = MASS_KINDS[mass] if isinstance(mass, str) else int(mass)
    check_mass_centre_offsets(prob.table, kind)  # an offset mass centre: lumped (or beam3d consistent) mass
    _, K = asm.tangent(u, R=R)
    if load_factor is not None and prob.loads.has_state_loads:
        K = K + prob.load_stiffness(x, load_factor)
    return x, K, asm.mass_matrix(kind, u, R=R)


def joint_reduction(prob, x, K, time=0.0, multipliers=None):
    """(N^T K_λ N, N) with N the null-space basis of the joint Jacobian at x and K_λ = K
    plus the joint-force stiffness λ·∇²Φ of ``multipliers``; (K, None) without joints."""
    if prob.joints is None:
        return K, None
    if multipliers is not None and len(multipliers):
        K = K + prob.constraint_stiffness(multipliers)
    N = NullSpace(prob.constraints(x, time)[1]).N
    return N.T @ K @ N, N


def _signed_sqrt(lam):
    return np.sign(lam) * np.sqrt(np.abs(lam))


def solve_modal(model: Model, n_modes: int = 6, state: Optional[Union[NDArray[np.float64], Configuration]] = None, mass: Union[str, int] = "lumped",
                shift: Optional[float] = None, problem: Optional[StaticProblem] = None, time: float = 0.0,
                multipliers: Optional[NDArray[np.float64]] = None, dense_limit: int = 800,
                load_factor: Optional[float] = None) -> ModalResult:
    """Lowest ``n_modes`` natural modes of ``model`` linearized about ``state``.

    Parameters
    ----------
    state : (n_var,) array or Configuration, optional
        Configuration to linearize about (default: undeformed). Pass ``results.final`` of
        a static analysis for pre-stressed (geometric-stiffness) frequencies (for oriented
        models better ``problem.state_of(results)``, which carries the exact rotations).
    mass : "lumped" (default) | "consistent" | "invariant"
        Mass kind. "lumped" is femb's one default mass kind: constant for every element type, so these are the
        matrices the mid-point integrator of ``solve_dynamic`` uses; "consistent" converges
        faster for beam frequencies on a given mesh.
    shift : float, optional
        σ of shift-invert (eigenvalues nearest σ are found). Default: a small negative
        value so rigid-body modes are found and the shifted matrix is regular.
    multipliers : (m,) array, optional
        Joint multipliers at ``state`` (``results.arrays["multipliers"][i]`` of a static
        run): the stiffness of the joint forces λ·∇²Φ is added (a pendulum held by a
        distance joint gets its gravity stiffness this way).
    load_factor : float, optional
        Load factor of the static state: the load stiffness of rotation-dependent moments
        (3-D semitangential/follower) at this λ is added to the tangent.
    """
    prob = problem or StaticProblem(model)
    t = prob.table
    x, K, M = operating_point(prob, state, mass, load_factor)
    if prob.oriented:
        skew = abs(K - K.T).max()
        if skew > 1e-8 * abs(K).max():
            log.info("modal analysis: tangent skew part %.2e (relative) dropped", skew / abs(K).max())
        K = (0.5 * (K + K.T)).tocsr()
    K, N = joint_reduction(prob, x, K, time, multipliers)
    if N is not None:
        K, M = K.tocsc(), (N.T @ M @ N).tocsc()
    n = K.shape[0]
    if n_modes > n:
        log.warning("solve_modal: n_modes = %d but the model has %d independent DOFs; returning %d modes", n_modes, n, n)
    k = min(n_modes, n)
    if shift is None:
        scale = abs(K.diagonal()).max() / max(abs(M.diagonal()).max(), 1e-300)
        shift = -1e-6 * scale
    if n <= dense_limit:
        lam, vec = sla.eigh(K.toarray(), M.toarray())
        order = np.argsort(np.abs(lam - shift))[:k]
        order = order[np.argsort(lam[order])]
        lam, vec = lam[order], vec[:, order]
    else:
        lam, vec = spla.eigsh(K.tocsc(), k=k, M=M.tocsc(), sigma=shift, which="LM")
        order = np.argsort(lam)
        lam, vec = lam[order], vec[:, order]
    if N is not None:
        vec = N @ vec
    modes = np.zeros((lam.size, t.n_var))
    modes[:, t.eq_var] = vec.T
    return ModalResult(_signed_sqrt(lam), lam, modes, t)


def frequencies_along_path(model: Model, results: Results, n_modes: int = 3, mass: Union[str, int] = "lumped") -> NDArray[np.float64]:
    """Lowest signed frequencies (len(results), n_modes) at every frame of a static run:
    the first one passes through zero where the path meets a bifurcation or limit point.
    ``mass``: the mass kind, as for ``solve_modal`` (default "lumped")."""
    prob = StaticProblem(model, results.table)
    out = np.zeros((len(results), n_modes))
    mults = results.arrays.get("multipliers", [None] * len(results))
    for i, lam in enumerate(results.times):
        out[i] = solve_modal(model, n_modes, prob.state_of(results, i), mass, problem=prob, time=lam, multipliers=mults[i],
                             load_factor=lam).omega[:n_modes]
    return out
