"""Elimination of Lagrange multipliers by a null-space projection (coordinate partitioning).

For the constrained Newton system

    K δq + Ḡᵀ λ = −r,      G δq = −Φ,

the equations are split into dependent coordinates d (chosen by pivoted QR of G, so G_d is
well conditioned) and independent ones i. With N = [−G_d⁻¹ G_i; I] (null space of G), N̄
the same for Ḡ and the particular solution δq_p = [−G_d⁻¹Φ; 0], the solved system is the
reduced one

    N̄ᵀ K N δq_i = −N̄ᵀ (r + K δq_p),       δq = N δq_i + δq_p,

never a saddle point. The multipliers follow from the dependent rows:
λ = −Ḡ_d⁻ᵀ (r + K δq)_d. Ḡ is the discrete (mid-point) Jacobian in the energy-conserving
scheme (Ḡ Δq = ΔΦ, so reactions do no work) and equals G in statics.
"""
import logging

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from femb.core.errors import ModelError

log = logging.getLogger(__name__)


def independent_rows(G, rel_tol=1e-10):
    """Rows of G (m × n, sparse or dense) that are linearly independent, chosen by QR with
    column pivoting of Gᵀ; returns (independent, redundant) index arrays."""
    Gd = G.toarray() if sp.issparse(G) else np.asarray(G)
    if Gd.shape[0] == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    R, piv = sla.qr(Gd.T, mode="r", pivoting=True)
    diag = np.abs(np.diag(R))
    rank = int(np.sum(diag > rel_tol * max(diag[0], 1e-300))) if diag.size else 0
    return np.sort(piv[:rank]), np.sort(piv[rank:])


def check_redundancy(G, constraint_set, policy="warn"):
    """Detect redundant constraint rows at a configuration; drop them with a warning naming
    the joints (policy "warn") or raise ModelError naming them (policy "error"). Returns
    the rows to keep."""
    keep, redundant = independent_rows(G)
    if redundant.size:
        names = constraint_set.describe(redundant)
        msg = f"{redundant.size} redundant constraint equation(s) in joint(s) {', '.join(map(repr, names))}"
        if policy == "error":
            raise ModelError(msg + " (set model.redundant_constraints = 'warn' to drop them)")
        log.warning("%s: dropped", msg)
    return keep


class NullSpace:
    """Coordinate partition and null-space bases of the (free-column) Jacobians.

    Parameters
    ----------
    G : (m, n) CSR, Jacobian of the end-of-step constraints over the free equations
    Gbar : (m, n) CSR or None, discrete Jacobian for the projection (G when None)
    """

    def __init__(self, G, Gbar=None):
        self.n = G.shape[1]
        Gd = G.toarray()
        _, piv = sla.qr(Gd, mode="r", pivoting=True)
        m = G.shape[0]
        self.dep = np.sort(piv[:m])
        mask = np.ones(self.n, dtype=bool)
        mask[self.dep] = False
        self.ind = np.flatnonzero(mask)
        # G_d is chosen by pivoting, hence well conditioned, and small (one row per
        # constraint): an explicit inverse is cheaper than repeated LU solves here
        self.G_d = Gd[:, self.dep]
        self._inv = np.linalg.inv(self.G_d)
        self.N = self._basis(G, self._inv)
        if Gbar is None:
            self._inv_bar, self.Nbar = self._inv, self.N
        else:
            self._inv_bar = np.linalg.inv(Gbar.toarray()[:, self.dep])
            self.Nbar = self._basis(Gbar, self._inv_bar)

    def _basis(self, G, inv):
        """Sparse N (n × n_ind): identity on independent rows, −G_d⁻¹G_i on dependent rows."""
        Gi = G.tocsc()[:, self.ind]
        touched = np.flatnonzero(np.diff(Gi.indptr))  # independent columns any constraint involves
        S = inv @ Gi[:, touched].toarray() if touched.size else np.zeros((len(self.dep), 0))
        n_ind = self.ind.size
        rows = [self.ind, np.repeat(self.dep, touched.size)]
        cols = [np.arange(n_ind), np.tile(touched, self.dep.size)]
        vals = [np.ones(n_ind), -S.ravel()]
        return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(self.n, n_ind))

    def project(self, r):
        """N̄ᵀ r: the residual in the independent coordinates (reactions removed)."""
        return self.Nbar.T @ r

    def reduced_matrix(self, K):
        return (self.Nbar.T @ K @ self.N).tocsc()

    def particular(self, phi):
        """δq_p with G δq_p = −Φ (zero on independent coordinates)."""
        dq = np.zeros(self.n)
        dq[self.dep] = -self._inv @ phi
        return dq

    def multipliers(self, K, r, dq=None):
        """λ from the dependent rows of K δq + r + Ḡᵀλ = 0."""
        res = r if dq is None else r + K @ dq
        return -self._inv_bar.T @ res[self.dep]
