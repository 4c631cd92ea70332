"""Modal analysis about a configuration: (K_t − ω² M) φ = 0.

K_t is the tangent stiffness at the given state (geometric stiffness included, so
frequencies fall to zero at buckling along a load path); joint constraints are eliminated
through the null space of their Jacobian (K_r = Nᵀ K N, M_r = Nᵀ M N), so no spurious
zero or infinite eigenvalues appear. Symmetric problems use shift-invert Lanczos
(ARPACK); a negative shift keeps rigid-body modes (ω = 0) finite and included.
"""
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse.linalg as spla

from femb.elements import MASS_KINDS
from femb.solvers.nullspace import NullSpace
from femb.solvers.static import StaticProblem


@dataclass
class ModalResult:
    """Natural frequencies and mode shapes.

    omega: (k,) circular frequencies [rad/time] ascending (0 for rigid-body modes,
    negative for unstable directions: −sqrt(−λ)); frequency_hz: omega/2π;
    modes: (k, n_var) mode shapes over all variables, mass-normalized;
    eigenvalues: (k,) λ = ω² (signed).
    """

    omega: np.ndarray
    eigenvalues: np.ndarray
    modes: np.ndarray
    table: object

    @property
    def frequency_hz(self):
        return self.omega / (2.0 * np.pi)


def _signed_sqrt(lam):
    return np.sign(lam) * np.sqrt(np.abs(lam))


def solve_modal(model, n_modes=6, state=None, mass="consistent", shift=None, problem=None, time=0.0, multipliers=None, dense_limit=800):
    """Lowest ``n_modes`` natural modes of ``model`` linearized about ``state``.

    Parameters
    ----------
    state : (n_var,) array, optional
        Configuration to linearize about (default: undeformed). Pass ``results.final`` of
        a static analysis for pre-stressed (geometric-stiffness) frequencies.
    mass : "consistent" | "lumped" | "invariant"
    shift : float, optional
        σ of shift-invert (eigenvalues nearest σ are found). Default: a small negative
        value so rigid-body modes are found and the shifted matrix is regular.
    multipliers : (m,) array, optional
        Joint multipliers at ``state`` (``results.arrays["multipliers"][i]`` of a static
        run): the stiffness of the joint forces λ·∇²Φ is added (a pendulum held by a
        distance joint gets its gravity stiffness this way).
    """
    prob = problem or StaticProblem(model)
    t, asm = prob.table, prob.assembler
    u = np.zeros(t.n_var) if state is None else np.asarray(state, dtype=np.float64)
    kind = MASS_KINDS[mass] if isinstance(mass, str) else int(mass)
    _, K = asm.tangent(u)
    M = asm.mass_matrix(kind, u)
    N = None
    if prob.joints is not None:
        if multipliers is not None and len(multipliers):
            K = K + prob.constraint_stiffness(multipliers)
        G = prob.constraints(u, time)[1]
        N = NullSpace(G).N
        K, M = (N.T @ K @ N).tocsc(), (N.T @ M @ N).tocsc()
    n = K.shape[0]
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


def frequencies_along_path(model, results, n_modes=3, mass="consistent"):
    """Lowest signed frequencies (len(results), n_modes) at every frame of a static run:
    the first one passes through zero where the path meets a bifurcation or limit point."""
    prob = StaticProblem(model, results.table)
    out = np.zeros((len(results), n_modes))
    mults = results.arrays.get("multipliers", [None] * len(results))
    for i, (lam, u) in enumerate(zip(results.times, results.states)):
        out[i] = solve_modal(model, n_modes, u, mass, problem=prob, time=lam, multipliers=mults[i]).omega[:n_modes]
    return out
