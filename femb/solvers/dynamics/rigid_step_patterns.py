"""Sparsity patterns and the coordinate partition of the compiled mid-point steps of jointed
rigid bodies (femb.solvers.dynamics.rigid_step_kernels): where the joint Jacobians G, Ḡ
over the equations and the step matrix K can be non-zero (computed once per call of the
steps; ``d``: the model's RigidStepData), the choice of the dependent coordinates, their
index maps with the banded row order of G_d, and the gathered, LU-factorized G_d (or Ḡ_d)
with G_i (Ḡ_i). int64 index arrays, float64 matrices.

The compiled rigid steps use numba's numpy error model (femb.core.jit ``error_model``):
their functions and the dense kernels they call (``numpy_errors``) have no exception exits,
so numba drops the reference counting of the arrays they take. Every divisor in them is
guarded: the step sizes h > 0 (the driver's grid), the pivots of an LU factorization are
non-zero before any solve with it (an exact zero pivot returns a pivot ratio of 0, which
the step reports as a singular matrix), the turn limit divides by a turn above it; a
non-finite value ends the step as "residual is not finite"."""
from typing import Callable

import numpy as np

from femb.core.jit import jit
from femb.solvers.linalg import dense_kernels
from femb.solvers.linalg.dense_kernels import pivoted_columns

NUMPY_ERRORS = "__numpy_errors"
"""The name suffix of the rigid steps' copies of other modules' kernels (``numpy_errors``)."""


def numpy_errors(kernel: Callable) -> Callable:
    """A copy of the femb kernel ``kernel`` (of another module) compiled with numba's numpy
    error model for the rigid steps, under the name ``kernel.__qualname__ + NUMPY_ERRORS``
    (cache files of its own); ``kernel`` itself, used by other kernels, stays as it is.
    The copy calls the same helpers as ``kernel`` (give it one without exception exits in
    its callees: a leaf)."""
    return jit(getattr(kernel, "py_func", kernel), internal=True, error_model="numpy", name_suffix=NUMPY_ERRORS)


lu_factor_pattern = numpy_errors(dense_kernels.lu_factor_pattern)


@jit(error_model="numpy")
def split(part, pos, ind, entries, order):
    """``ind`` (n_eq − m,) the equations other than the dependent ones ``part`` (m,), in
    order, ``pos`` (n_eq,) the place of each equation: c for part[c], −1 − c for ind[c];
    ``order`` (2, m) the rows of G_d in the order of the first dependent coordinate each
    joint row holds (``entries``: the (rows, equations) where G can be non-zero), so that
    G_d is banded: order[1] the rows by that order, order[0] the place of each row in it."""
    pos[:] = 0
    for i in range(part.size):
        pos[part[i]] = i + 1
    q = 0
    for e in range(pos.size):
        if pos[e] > 0:
            pos[e] -= 1
        else:
            ind[q] = e
            pos[e] = -1 - q
            q += 1
    m = part.size
    first = np.full(m, m, dtype=np.int64)
    rows, eqs = entries
    for t in range(rows.size):
        c = pos[eqs[t]]
        if 0 <= c < first[rows[t]]:
            first[rows[t]] = c
    j = 0
    for c in range(m + 1):  # rows by first column, in G's order on ties
        for i in range(m):
            if first[i] == c:
                order[0, i] = j
                order[1, j] = i
                j += 1


@jit(internal=True, error_model="numpy")
def jacobian_pattern(d):
    """Where the joint Jacobians land over the equations: (the kept Jacobian triplets whose
    variable is a free non-rotational one, their equations, the rows and oriented nodes of
    the (row, node) pairs the triplets join through a rotational variable), and all the
    (row, equation) entries that G or Ḡ over the equations can fill. The step's joint equations
    (rigid_step_kernels ``_joints``) write only those entries; the others stay zero."""
    nv = d.var_eq.size
    nk = d.lay_var.shape[0]
    m = 0
    for q in range(d.jac_rows.size):
        m = max(m, d.jac_rows[q] + 1)
    node = np.full(nv, -1, dtype=np.int64)  # oriented node of each rotational variable
    for k in range(nk):
        for a in range(3):
            node[d.lay_var[k, a]] = k
    touch = np.zeros((nk, m), dtype=np.bool_)
    tq = np.empty(d.jac_rows.size, dtype=np.int64)
    nt = 0
    for q in range(d.jac_rows.size):
        v = d.jac_cols[q]
        if node[v] >= 0:
            touch[node[v], d.jac_rows[q]] = True
        elif d.var_eq[v] >= 0:
            tq[nt] = q
            nt += 1
    pr = np.empty(nk * m, dtype=np.int64)
    pk = np.empty(nk * m, dtype=np.int64)
    n_pairs = 0
    for k in range(nk):  # by node
        for i in range(m):
            if touch[k, i]:
                pr[n_pairs], pk[n_pairs] = i, k
                n_pairs += 1
    pr, pk = pr[:n_pairs].copy(), pk[:n_pairs].copy()
    teq = np.empty(nt, dtype=np.int64)
    for t in range(nt):
        teq[t] = d.var_eq[d.jac_cols[tq[t]]]
    er = np.empty(nt + 3 * pr.size, dtype=np.int64)
    ee = np.empty(nt + 3 * pr.size, dtype=np.int64)
    n = 0
    for t in range(nt):
        er[n], ee[n] = d.jac_rows[tq[t]], teq[t]
        n += 1
    for t in range(pr.size):
        for a in range(3):
            e = d.var_eq[d.lay_var[pk[t], a]]
            if e >= 0:
                er[n], ee[n] = pr[t], e
                n += 1
    return tq[:nt].copy(), teq, pr, pk, (er[:n].copy(), ee[:n].copy())


@jit(internal=True, error_model="numpy")
def matrix_pattern(d):
    """The entries of the step matrix K over the equations that can be non-zero (those of
    M_eq, the 3 × 3 rotary-inertia blocks of the oriented nodes, the joints' discrete
    stiffness), by rows: (row starts (n_eq + 1,), columns ascending in each row)."""
    ne = d.eq_var.size
    mark = np.zeros((ne, ne), dtype=np.bool_)
    for a in range(ne):
        for b in range(ne):
            mark[a, b] = d.M_eq[a, b] != 0.0
    for k in range(d.lay_var.shape[0]):
        for a in range(3):
            ea = d.var_eq[d.lay_var[k, a]]
            for b in range(3):
                eb = d.var_eq[d.lay_var[k, b]]
                if ea >= 0 and eb >= 0:
                    mark[ea, eb] = True
    for q in range(d.st_eq_rows.size):
        if d.st_eq_rows[q] >= 0 and d.st_eq_cols[q] >= 0:
            mark[d.st_eq_rows[q], d.st_eq_cols[q]] = True
    return marked_rows(mark)


@jit(inline="always", error_model="numpy")
def marked_rows(mark):
    """The True entries of ``mark`` (r, c) by rows: (row starts (r + 1,), columns ascending
    in each row)."""
    nr, nc = mark.shape
    ptr = np.zeros(nr + 1, dtype=np.int64)
    cols = np.empty(nr * nc, dtype=np.int64)
    n = 0
    for a in range(nr):
        for b in range(nc):
            if mark[a, b]:
                cols[n] = b
                n += 1
        ptr[a + 1] = n
    return ptr, cols[:n].copy()


@jit(internal=True, error_model="numpy")
def triplet_rows(rows, cols, n_rows, n_cols):
    """Where the triplets (``rows``, ``cols``) of an (n_rows, n_cols) matrix fall, by rows:
    (row starts (n_rows + 1,), the distinct columns ascending in each row)."""
    mark = np.zeros((n_rows, n_cols), dtype=np.bool_)
    for q in range(rows.size):
        mark[rows[q], cols[q]] = True
    return marked_rows(mark)


@jit(internal=True, error_model="numpy")
def triplet_places(rows, cols, var_eq, n_rows):
    """Where the triplets (``rows``, ``cols``) of an (n_rows, n_var) matrix at variables
    fall: (their flat indices (C order) (n_trip,), True at the first triplet of each entry
    (n_trip,), and once per entry at a free variable (``var_eq`` (n_var,) ≥ 0, in the order
    of the first triplets) its flat index in the matrix over the equations (n_rows, n_eq)
    and in the matrix over the variables)."""
    nv = var_eq.size
    ne = 0
    for v in range(nv):
        if var_eq[v] >= 0:
            ne += 1
    seen = np.zeros(n_rows * nv, dtype=np.bool_)
    flat = np.empty(rows.size, dtype=np.int64)
    first = np.empty(rows.size, dtype=np.bool_)
    eq_flat = np.empty(rows.size, dtype=np.int64)
    var_flat = np.empty(rows.size, dtype=np.int64)
    n = 0
    for q in range(rows.size):
        p = rows[q] * nv + cols[q]
        flat[q] = p
        first[q] = not seen[p]
        if first[q]:
            seen[p] = True
            e = var_eq[cols[q]]
            if e >= 0:
                eq_flat[n] = rows[q] * ne + e
                var_flat[n] = p
                n += 1
    return flat, first, eq_flat[:n].copy(), var_flat[:n].copy()


@jit(internal=True, error_model="numpy")
def choose_partition(Geq, jcols, part, pos, ind, entries, order):
    """The dependent equations ``part`` (m,) (sorted): those that QR with column pivoting of
    G (m, n_eq) over the jointed equations ``jcols`` picks first (``pivoted_columns``,
    LAPACK's choice, as femb.solvers.linalg.nullspace), and their index maps ``pos``,
    ``ind``, ``order`` (``split``; ``entries``: the (rows, equations) where G can be
    non-zero)."""
    m = part.size
    W = np.empty((jcols.size, m))  # G over the jointed equations, transposed
    for i in range(m):
        for c in range(jcols.size):
            W[c, i] = Geq[i, jcols[c]]
    loc = pivoted_columns(W, m)
    for i in range(m):
        part[i] = jcols[loc[i]]
    split(part, pos, ind, entries, order)


@jit(internal=True, error_model="numpy")
def partition_layout(entries, pos, order, Ai, Abi, shape, places):
    """For a partition (``pos``, ``order`` of ``split``): the independent columns G_i, Ḡ_i
    (m, n_eq − m) ``Ai``, ``Abi`` cleared, where G_d and Ḡ_d (rows in ``order``) can be
    non-zero and how their rows map back: ``shape`` (3, m) = (one past the last column of
    each row, the lowest row of each column (−1: none), G's row of each row (order[1])),
    and where ``factor_dependent`` takes and puts each of the ``entries`` (rows, equations)
    of G: ``places`` (4, n_entries) = (its row and equation in G, its row in G_d or −1 −
    its row in G_i, its column there). (Few arrays for ``factor_dependent``: every array a
    compiled helper takes is counted up and down at each call.)"""
    m = shape.shape[1]
    Ai[:, :] = 0.0
    Abi[:, :] = 0.0
    for c in range(m):
        shape[0, c] = 0
        shape[1, c] = -1
        shape[2, c] = order[1, c]
    rows, eqs = entries
    for t in range(rows.size):
        places[0, t] = rows[t]
        places[1, t] = eqs[t]
        c = pos[eqs[t]]
        if c >= 0:
            i = order[0, rows[t]]
            shape[0, i] = max(shape[0, i], c + 1)
            shape[1, c] = max(shape[1, c], i)
            places[2, t] = i
            places[3, t] = c
        else:
            places[2, t] = -1 - rows[t]
            places[3, t] = -1 - c


@jit(internal=True, error_model="numpy")
def factor_dependent(Geq, places, shape, held, A, Ai, perm, lo, hi, bot):
    """G_d (m, m) into ``A`` with its rows in the banded order, LU-factorized in place
    (``lu_factor_pattern``: row order ``perm`` (m,) in G's rows, row ranges ``lo``, ``hi``
    of the factors; ``bot`` (m,) work), and G_i (m, n_eq − m) into ``Ai``, from G over the
    equations ``Geq`` (m, n_eq) at the entries where it can be non-zero, by the ``places``
    and ``shape`` of ``partition_layout``. ``held`` (True: A holds this function's complete
    factors of the same partition, non-zero only within ``lo``, ``hi``, which are then
    cleared instead of all of A). Returns the pivot ratio min|u_ii| / max|u_ii| (0 with an
    exact zero pivot, which leaves the factors incomplete)."""
    m = A.shape[0]
    if held:
        for i in range(m):
            for c in range(lo[i], hi[i]):
                A[i, c] = 0.0
    else:
        A[:, :] = 0.0
    for t in range(places.shape[1]):
        i, c = places[2, t], places[3, t]
        if i >= 0:
            A[i, c] = Geq[places[0, t], places[1, t]]
        else:
            Ai[-1 - i, c] = Geq[places[0, t], places[1, t]]
    for i in range(m):
        hi[i] = shape[0, i]
        bot[i] = shape[1, i]
    ratio = lu_factor_pattern(A, perm, lo, hi, bot)
    for i in range(m):  # the row order of the factors in G's rows
        perm[i] = shape[2, perm[i]]
    return ratio
