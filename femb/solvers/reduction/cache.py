"""An on-disk cache of Craig–Bampton reductions keyed by their inputs (the matrices, the
boundary, the number of modes and the algorithm's version): a second reduction of the same
component reads the stored basis instead of solving the eigenproblem again."""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np
import scipy.sparse as sp

from femb.solvers.reduction.craig_bampton import DENSE_LIMIT, CraigBampton, craig_bampton

CACHE_VERSION = 3  # bump when the reduction's algorithm or stored fields change


def _digest(K: sp.spmatrix, M: sp.spmatrix, boundary: np.ndarray, n_modes: int, correction_loads=None,
            whole_pairs: bool = True) -> str:
    h = hashlib.sha256(f"craig-bampton v{CACHE_VERSION} k={n_modes} n={K.shape[0]} whole_pairs={bool(whole_pairs)}".encode())
    if correction_loads is not None:
        F = np.ascontiguousarray(correction_loads, dtype=np.float64)
        h.update(f"correction {F.shape}".encode())
        h.update(F.tobytes())
    for A in (K, M):
        A = sp.csr_matrix(A)
        A.sort_indices()
        for arr in (A.indptr, A.indices, A.data):
            h.update(np.ascontiguousarray(arr).tobytes())
    h.update(np.ascontiguousarray(boundary, dtype=np.int64).tobytes())
    return h.hexdigest()[:32]


def cached_craig_bampton(K, M, boundary, n_modes: int, labels: Optional[Sequence[str]] = None,
                         cache_dir: Optional[Union[str, Path]] = None, dense_limit: int = DENSE_LIMIT,
                         correction_loads=None, whole_pairs: bool = True) -> CraigBampton:
    """craig_bampton(), with the result kept in ``cache_dir`` (when given) under a key made
    of the matrices, the boundary, k, the static-correction load patterns and
    ``whole_pairs``: a second call with the same inputs reads the file instead of reducing
    again."""
    if cache_dir is None:
        return craig_bampton(K, M, boundary, n_modes, labels, dense_limit, correction_loads, whole_pairs)
    K, M = sp.csr_matrix(K, dtype=np.float64), sp.csr_matrix(M, dtype=np.float64)
    boundary = np.asarray(boundary, dtype=np.int64)
    path = Path(cache_dir) / f"cb-{_digest(K, M, boundary, n_modes, correction_loads, whole_pairs)}.npz"
    if path.is_file():
        with np.load(path, allow_pickle=False) as f:
            return CraigBampton(f["K"], f["M"], f["constraint_modes"], f["normal_modes"], f["frequencies"],
                                f["boundary"], f["interior"], tuple(str(x) for x in f["labels"]),
                                int(f["n_correction"]), int(f["n_completed"]))
    basis = craig_bampton(K, M, boundary, n_modes, labels, dense_limit, correction_loads, whole_pairs)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, K=basis.K, M=basis.M, constraint_modes=basis.constraint_modes, normal_modes=basis.normal_modes,
             frequencies=basis.frequencies, boundary=basis.boundary, interior=basis.interior,
             labels=np.array(basis.labels, dtype=str), n_correction=basis.n_correction,
             n_completed=basis.n_completed)
    tmp.replace(path)
    return basis
