"""Component matrices from files, as other finite-element programs export them.

Accepted matrix files: Matrix Market (``.mtx``, ``.mtx.gz``) and scipy sparse ``.npz``
(``scipy.sparse.save_npz``). The DOF map names the node and DOF of every matrix row: a
two-column table (``.csv``/``.txt`` with a header line ``node,dof``, or ``.npy``) whose second
column is a DOF name (ux, uy, uz, rx, ry, rz) or its index 0..5.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np
import scipy.io
import scipy.sparse as sp

from femb.core.errors import InputError
from femb.solvers.reduction.cache import cached_craig_bampton
from femb.solvers.reduction.craig_bampton import DENSE_LIMIT

DOF_NAMES = ("ux", "uy", "uz", "rx", "ry", "rz")


def read_matrix(path: Union[str, Path]) -> sp.csr_matrix:
    """A sparse matrix from a Matrix Market or scipy .npz file; InputError naming the file
    when it is missing or unreadable."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", str(path))
    try:
        if path.suffix == ".npz":
            A = sp.load_npz(path)
        else:
            A = scipy.io.mmread(str(path))
    except Exception as exc:  # a malformed file: name it, whatever the reader's complaint
        raise InputError(f"cannot read the matrix ({type(exc).__name__}: {exc})", str(path)) from None
    return sp.csr_matrix(A, dtype=np.float64)


def read_dof_map(path: Union[str, Path]) -> list:
    """(node, dof name) per matrix row from a DOF map file (module docstring)."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", str(path))
    if path.suffix == ".npy":
        rows = np.load(path, allow_pickle=False).tolist()
    else:
        lines = [ln.strip() for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
        if lines and not lines[0].split(",")[0].strip().lstrip("-").isdigit():
            lines = lines[1:]  # header
        rows = [[c.strip() for c in ln.replace(";", ",").split(",")] for ln in lines]
    out = []
    for i, row in enumerate(rows):
        if len(row) != 2:
            raise InputError(f"row {i + 1}: expected two columns (node, dof), got {row!r}", str(path))
        node, dof = row
        try:
            node = int(node)
            dof = DOF_NAMES[int(dof)] if str(dof).lstrip("-").isdigit() else str(dof)
        except (ValueError, IndexError):
            raise InputError(f"row {i + 1}: bad node or DOF {row!r}", str(path)) from None
        if dof not in DOF_NAMES:
            raise InputError(f"row {i + 1}: unknown DOF {dof!r} (one of {', '.join(DOF_NAMES)})", str(path))
        out.append((node, dof))
    return out


def reduce_matrix_files(stiffness: Union[str, Path], mass: Union[str, Path], dof_map: Union[str, Path],
                        interface_nodes: Sequence[int], n_modes: int, cache_dir: Optional[Union[str, Path]] = None,
                        dense_limit: int = DENSE_LIMIT, correction_loads=None) -> tuple:
    """Craig–Bampton reduction of exported component matrices on ``interface_nodes``.

    ``correction_loads``: optional load patterns (n,) or (n, m) in the order of the DOF map
    whose static response is to be exact (static-correction modes, see craig_bampton).
    Returns (CraigBampton, dof map as a list of (node, dof)). Raises InputError naming the
    file when the sizes of the matrices and the DOF map disagree, or when an interface node
    is not in the map.
    """
    K, M = read_matrix(stiffness), read_matrix(mass)
    dofs = read_dof_map(dof_map)
    for name, A in (("stiffness", K), ("mass", M)):
        path = stiffness if name == "stiffness" else mass
        if A.shape != (len(dofs), len(dofs)):
            raise InputError(f"the {name} matrix is {A.shape[0]} x {A.shape[1]} but the DOF map {dof_map} "
                             f"lists {len(dofs)} DOFs", str(path))
    nodes = np.array([n for n, _ in dofs])
    wanted = np.unique(np.asarray(interface_nodes, dtype=np.int64))
    missing = np.setdiff1d(wanted, nodes)
    if missing.size:
        raise InputError(f"interface nodes not in the DOF map: {', '.join(map(str, missing[:10]))}", str(dof_map))
    boundary = np.flatnonzero(np.isin(nodes, wanted))
    labels = [f"node {n} {d}" for n, d in dofs]
    basis = cached_craig_bampton(K, M, boundary, n_modes, labels, cache_dir, dense_limit, correction_loads)
    return basis, dofs
