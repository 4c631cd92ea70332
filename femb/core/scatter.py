"""Compiled scatter kernels: add batches of element vectors/matrices into global arrays.

Index arrays use -1 for entries that are not assembled (constrained DOFs). Element
variables ``loc`` are int64; positions ``pos`` in CSR data are int32, the index type of the
correlation table's pattern (femb.correlation.pattern.INDEX).
"""
import numpy as np

from femb.core.jit import jit


@jit
def scatter_vector(loc, fe, out):
    """out[loc[e, a]] += fe[e, a] for all e, a with loc[e, a] >= 0.

    loc: (n_el, n_dof) int64; fe: (n_el, n_dof) float64; out: (n,) float64.
    """
    n_el, n_dof = loc.shape
    for e in range(n_el):
        for a in range(n_dof):
            i = loc[e, a]
            if i >= 0:
                out[i] += fe[e, a]


@jit
def gather_vector(loc, values, out):
    """out[e, a] = values[loc[e, a]] (0 where loc < 0). loc: (n_el, n_dof); out: (n_el, n_dof)."""
    n_el, n_dof = loc.shape
    for e in range(n_el):
        for a in range(n_dof):
            i = loc[e, a]
            out[e, a] = values[i] if i >= 0 else 0.0


@jit
def scatter_matrix(pos, ke, data):
    """data[pos[e, a, b]] += ke[e, a, b] for all entries with pos >= 0.

    pos: (n_el, n_dof, n_dof) int32 positions in a CSR data array; ke: same shape float64.
    """
    n_el, n_dof, _ = pos.shape
    for e in range(n_el):
        for a in range(n_dof):
            for b in range(n_dof):
                p = pos[e, a, b]
                if p >= 0:
                    data[p] += ke[e, a, b]


@jit
def matvec_blocks(loc, ke, x, out):
    """out[loc[e, a]] += sum_b ke[e, a, b] * x[loc[e, b]] over entries with loc >= 0.

    Applies the unassembled element matrices to a global vector (e.g. mass times a field).
    """
    n_el, n_dof, _ = ke.shape
    for e in range(n_el):
        for a in range(n_dof):
            i = loc[e, a]
            if i < 0:
                continue
            s = 0.0
            for b in range(n_dof):
                j = loc[e, b]
                if j >= 0:
                    s += ke[e, a, b] * x[j]
            out[i] += s


def empty_like_blocks(n_el, n_dof):
    """Preallocated (vector, matrix) element output arrays of the fixed dtype float64."""
    return np.zeros((n_el, n_dof)), np.zeros((n_el, n_dof, n_dof))
