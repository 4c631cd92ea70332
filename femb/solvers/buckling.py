"""Linear buckling: (K0 + λ K_G) φ = 0 with K_G from the resultants of a linear pre-solve."""
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse.linalg as spla

from femb.core.errors import InputError
from femb.solvers.linear import Factorization
from femb.solvers.static import StaticProblem


@dataclass
class BucklingResult:
    """Critical load factors (ascending positive) and mode shapes over all variables."""

    load_factors: np.ndarray
    modes: np.ndarray  # (n_modes, n_var)
    prestress_state: np.ndarray  # (n_var,) linear pre-solve displacement at λ = 1
    table: object


def _linear_resultants(asm, u, n_var):
    """Resultants of the linearized problem at ``u``: derivative of the co-rotational
    resultants along u at the reference state (central difference, exact for linear
    kernels up to round-off)."""
    size = float(np.max(np.abs(u))) or 1.0
    eps = 1e-7 / size
    plus, minus = asm.resultants(eps * u), asm.resultants(-eps * u)
    return {k: (plus[k] - minus[k]) / (2.0 * eps) for k in plus}


def solve_buckling(model, n_modes=5, table=None, problem=None, dense_limit=600):
    """Linear buckling of ``model`` under its scaled (non-constant) loads.

    Returns the ``n_modes`` smallest positive load factors λ with K0 + λ K_G singular.
    Constant loads are not part of the pre-stress (use the nonlinear load path for that).
    """
    prob = problem or StaticProblem(model, table)
    t, asm = prob.table, prob.assembler
    if not np.any(prob.f_ref) and not t.prescribed:
        raise InputError("linear buckling needs a non-zero reference load", "solve_buckling")
    u_zero = np.zeros(t.n_var)
    _, K0 = asm.tangent(u_zero)
    u = prob.apply_prescribed(np.zeros(t.n_var), 1.0)
    rhs = t.free(prob.f_ref - asm.internal_force(u) if t.prescribed else prob.f_ref)
    u[t.eq_var] += Factorization(K0, t, "linear stiffness").solve(rhs)
    stresses = _linear_resultants(asm, u, t.n_var)
    KG = asm.geometric_stiffness(u_zero, stresses)
    n = t.n_eq
    if n <= dense_limit:
        mu, vec = sla.eigh(-KG.toarray(), K0.toarray())
        order = np.argsort(-mu)
    else:
        k = min(n_modes + 4, n - 1)
        mu, vec = spla.eigsh(-KG, k=k, M=K0, which="LA")
        order = np.argsort(-mu)
    mu, vec = mu[order], vec[:, order]
    keep = mu > 1e-12 * max(np.abs(mu).max(), 1e-300)
    lam = 1.0 / mu[keep][:n_modes]
    modes = np.zeros((lam.size, t.n_var))
    modes[:, t.eq_var] = vec[:, keep][:, :n_modes].T
    return BucklingResult(lam, modes, u, t)
