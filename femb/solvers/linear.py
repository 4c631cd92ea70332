"""Sparse linear solves with diagnostics instead of raw scipy failures."""
import numpy as np
import scipy.sparse.linalg as spla

from femb.core.errors import FembError


class SingularSystemError(FembError, RuntimeError):
    """The system matrix is singular: usually a mechanism (unsupported rigid-body motion)
    or a DOF no element stiffens. ``dofs`` lists (node, dof) pairs involved."""

    def __init__(self, message, dofs=()):
        self.dofs = list(dofs)
        if self.dofs:
            shown = ", ".join(f"node {n} {d}" for n, d in self.dofs[:12])
            message += f"\n  free DOFs without stiffness (likely unsupported): {shown}"
        super().__init__(message)


def _suspect_dofs(K, table, count=12, index_map=None):
    """DOFs with (near-)zero diagonal or in the null space of K, named via the table
    (``index_map`` maps matrix rows to equations when K is a reduced matrix)."""
    diag = np.abs(K.diagonal())
    scale = diag.max() if diag.size else 1.0
    weak = np.flatnonzero(diag <= 1e-12 * scale)
    if weak.size == 0 and K.shape[0] <= 3000:
        # dense null-space probe for moderate sizes: the DOFs moving most in the softest mode
        w, v = np.linalg.eigh(0.5 * (K + K.T).toarray())
        soft = np.argmin(np.abs(w))
        weak = np.argsort(-np.abs(v[:, soft]))[:count]
    eqs = weak[:count] if index_map is None else np.asarray(index_map)[weak[:count]]
    return [table.describe_var(table.eq_var[i]) for i in eqs]


class Factorization:
    """LU factorization of a sparse matrix over the equations of ``table`` (or over the
    equations ``index_map`` selects, for reduced matrices); ``solve(b)``. A singular
    matrix raises SingularSystemError naming the DOFs involved."""

    def __init__(self, K, table=None, context="system", index_map=None):
        self.shape = K.shape
        if K.shape[0] == 0:
            self._lu = None
            return
        if not np.all(np.isfinite(K.data)):
            raise FembError(f"{context} matrix contains NaN or Inf entries (a diverged state or bad input)")
        try:
            self._lu = spla.splu(K.tocsc(), permc_spec="COLAMD")
        except RuntimeError as exc:
            dofs = _suspect_dofs(K, table, index_map=index_map) if table is not None else []
            raise SingularSystemError(f"{context} matrix is singular ({exc})", dofs) from None
        d = np.abs(self._lu.U.diagonal())
        if d.size and d.min() <= 1e-13 * d.max():
            dofs = _suspect_dofs(K, table, index_map=index_map) if table is not None else []
            raise SingularSystemError(f"{context} matrix is numerically singular (pivot ratio {d.min() / d.max():.1e})", dofs)

    def solve(self, b):
        if self._lu is None:
            return np.zeros_like(b)
        return self._lu.solve(b)
