"""Sparsity pattern and scatter map of element blocks into a CSR matrix (computed once).

O(N) in the number of element entries: the coupled (row, column) pairs are bucketed by
row (a counting sort), each row's distinct columns kept by marks and sorted in place, and
every element entry finds its CSR position from the entry of the element's previous
column (consecutive equations of a node) or else by a binary search within its row. No
global sort and no (row, column) pair arrays of the whole mesh are formed. With
renumbering, the pattern is built once in the original numbers, ordered by a compiled
reverse Cuthill–McKee (scipy's order, ``_rcm``), and then permuted.

Index dtype. The pattern (indptr, indices) and the element positions in its data are int32
(``INDEX``), as scipy stores the CSR index arrays of matrices that fit: half the memory of
int64 for the largest arrays of a table (at 10⁶ beam3d elements the positions are 144
entries per element), shared with scipy's matrices without a conversion, and one compiled
specialization of every kernel that takes them. A pattern of 2³¹ or more entries (about
2·10⁷ beam3d elements in one table) cannot be stored so; ``check_index_range`` then stops
the build with a ModelError naming the size.
"""
import numpy as np

from femb.core import jit
from femb.core.errors import ModelError

INDEX = np.int32
"""dtype of the CSR pattern (indptr, indices) and of the element positions in its data."""

MAX_ENTRIES = int(np.iinfo(INDEX).max)
"""Largest number of pattern entries (nnz) and equations ``INDEX`` can address: 2³¹ − 1."""


@jit
def _count_rows(eq, counts):
    """counts[r] += number of valid (r, c) entries of the element blocks eq (n_el, n)."""
    n = eq.shape[1]
    for e in range(eq.shape[0]):
        m = 0
        for j in range(n):
            if eq[e, j] >= 0:
                m += 1
        for i in range(n):
            r = eq[e, i]
            if r >= 0:
                counts[r] += m


@jit
def _fill_rows(eq, cursor, cols):
    """Append the valid columns of every element row to its row bucket (cursor[r] is the
    next free slot of row r in cols)."""
    n = eq.shape[1]
    for e in range(eq.shape[0]):
        for i in range(n):
            r = eq[e, i]
            if r < 0:
                continue
            k = cursor[r]
            for j in range(n):
                c = eq[e, j]
                if c >= 0:
                    cols[k] = c
                    k += 1
            cursor[r] = k


@jit
def _sort_unique_rows(start, cols, mark, indptr, indices):
    """Keep the distinct columns of each row bucket cols[start[r]:start[r + 1]] in their
    first order (``mark`` (n,) int64 work array: mark[c] = r once row r holds column c;
    any values on entry), sort them unless they came in increasing order already
    (``_sort_range``: few, and mostly in order already) and write the compact CSR pattern
    indptr (n + 1,), indices (nnz,) (``indices`` may be ``cols``: nnz never passes a
    bucket's start); returns nnz."""
    n = start.size - 1
    for r in range(n):
        mark[r] = -1
    nnz = np.int64(0)  # (not a literal: one compiled ``_sort_range``)
    indptr[0] = 0
    for r in range(n):
        a = nnz
        last = -1
        ordered = True
        for i in range(start[r], start[r + 1]):
            c = cols[i]
            if mark[c] != r:
                mark[c] = r
                ordered &= c > last
                last = c
                indices[nnz] = c
                nnz += 1
        if not ordered:
            _sort_range(indices, a, nnz)
        indptr[r + 1] = nnz
    return nnz


@jit
def _positions(eq, indptr, indices, pos):
    """pos[e, i, j] = CSR position of (eq[e, i], eq[e, j]) (-1 when either is constrained):
    first a guess from the position of the previous column of the element (moved by the
    difference of the columns: right whenever the row holds the columns between the two,
    as for the consecutive equations of a node), kept when the row holds column eq[e, j]
    there, else a binary search within the row (where the column is, or would be
    inserted)."""
    n = eq.shape[1]
    for e in range(eq.shape[0]):
        for i in range(n):
            r = eq[e, i]
            if r < 0:
                for j in range(n):
                    pos[e, i, j] = -1
                continue
            first = indptr[r]
            last = indptr[r + 1]
            g = np.int64(-1)  # the position of column ``prev`` (or where it would be) in row r
            prev = 0
            for j in range(n):
                c = eq[e, j]
                if c < 0:
                    pos[e, i, j] = -1
                    continue
                g += c - prev  # the guess: the previous column's position moved by the difference
                prev = c
                if g < first or g >= last or indices[g] != c:
                    lo = first
                    hi = last
                    while lo < hi:
                        mid = (lo + hi) >> 1
                        if indices[mid] < c:
                            lo = mid + 1
                        else:
                            hi = mid
                    g = lo
                pos[e, i, j] = g


@jit(internal=True)
def _sort_range(v, a, b):
    """Sort v[a:b] in place: insertion sort for short rows (and nearly sorted ones), heap
    sort beyond 64 entries (O(n log n), no recursion, nothing allocated)."""
    n = b - a
    if n <= 64:
        for i in range(a + 1, b):
            x = v[i]
            j = i - 1
            while j >= a and v[j] > x:
                v[j + 1] = v[j]
                j -= 1
            v[j + 1] = x
        return
    top = np.int64(0)  # not a literal: one compiled specialization of _sift_down
    for start in range(n // 2 - 1, -1, -1):
        _sift_down(v, a, start, n)
    for end in range(n - 1, 0, -1):
        x = v[a]
        v[a] = v[a + end]
        v[a + end] = x
        _sift_down(v, a, top, end)


@jit(internal=True)
def _sift_down(v, a, root, n):
    """Restore the max-heap property of v[a:a + n] below ``root``."""
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and v[a + child] < v[a + child + 1]:
            child += 1
        if v[a + root] >= v[a + child]:
            return
        x = v[a + root]
        v[a + root] = v[a + child]
        v[a + child] = x
        root = child


@jit
def _permute_pattern(indptr, indices, new_of_old, indptr_new, indices_new):
    """The pattern of P A Pᵀ (row and column r renumbered new_of_old[r]) with sorted rows."""
    n = indptr.size - 1
    for r in range(n):
        indptr_new[new_of_old[r] + 1] = indptr[r + 1] - indptr[r]
    indptr_new[0] = 0
    for r in range(n):
        indptr_new[r + 1] += indptr_new[r]
    for r in range(n):
        k0 = indptr[r]
        k1 = indptr[r + 1]
        if k1 == k0:
            continue
        a = np.int64(indptr_new[new_of_old[r]])  # (int64 bounds: one compiled ``_sort_range``)
        b = a + k1 - k0
        # reverse Cuthill–McKee mostly reverses the order: a row whose first column comes
        # after its last is filled backwards; a row that comes out in order is not sorted
        ordered = True
        if new_of_old[indices[k0]] > new_of_old[indices[k1 - 1]]:
            prev = new_of_old[indices[k0]] + 1
            for k in range(k0, k1):
                c = new_of_old[indices[k]]
                ordered &= c < prev
                prev = c
                indices_new[b - 1 - (k - k0)] = c
        else:
            prev = new_of_old[indices[k0]] - 1
            for k in range(k0, k1):
                c = new_of_old[indices[k]]
                ordered &= c > prev
                prev = c
                indices_new[a + k - k0] = c
        if not ordered:
            _sort_range(indices_new, a, b)


def check_index_range(n_eq, nnz):
    """ModelError unless a pattern of ``nnz`` entries over ``n_eq`` equations fits the int32
    index arrays of the table (``INDEX``: at most ``MAX_ENTRIES`` = 2³¹ − 1 of each)."""
    if nnz > MAX_ENTRIES or n_eq > MAX_ENTRIES:
        raise ModelError(f"the matrix pattern of this model has {nnz:,} entries over {n_eq:,} equations; femb stores the "
                         f"pattern's column indices and the element positions in it as int32, which address at most "
                         f"{MAX_ENTRIES:,} (2³¹ − 1) entries: split the model or reduce parts of it (superelements)")


def csr_rows(indptr):
    """The row of every entry (nnz,) int64 of a CSR pattern with row pointers ``indptr``
    (n + 1,): row r repeated indptr[r + 1] − indptr[r] times."""
    indptr = np.asarray(indptr)
    return np.repeat(np.arange(indptr.size - 1, dtype=np.int64), np.diff(indptr))


def _pattern(n_eq, eq_blocks):
    """CSR pattern (indptr (n_eq + 1,) int64, indices (nnz,) ``INDEX``) of the equations
    coupled by the element blocks, the blocks as C-contiguous int64 arrays and the work array
    (``INDEX``, Σ n_el·n_edof² long) whose first nnz entries are ``indices``:
    ``_block_positions`` writes the positions into it once ``indices`` is no longer needed,
    over memory already touched."""
    check_index_range(n_eq, 0)  # the work array holds equation numbers
    counts = np.zeros(n_eq + 1, dtype=np.int64)
    blocks = [np.ascontiguousarray(eq, dtype=np.int64) for eq in eq_blocks]
    for eq in blocks:
        _count_rows(eq, counts[1:])
    start = np.cumsum(counts)
    work = np.empty(max(int(start[-1]), sum(eq.shape[0] * eq.shape[1] ** 2 for eq in blocks)), dtype=INDEX)
    cursor = start[:-1].copy()
    for eq in blocks:
        _fill_rows(eq, cursor, work)
    indptr = counts  # (reused: the row pointers, int64 while the rows are compacted)
    nnz = _sort_unique_rows(start, work, cursor, indptr, work)  # compacts in place (the cursors: its marks)
    del cursor
    check_index_range(n_eq, nnz)
    return indptr, work[:nnz], blocks, work


def _block_positions(work, blocks, indptr, indices):
    """The positions (n_el, n_edof, n_edof) ``INDEX`` of each block's entries in the CSR data
    of the pattern (indptr, indices), as consecutive parts of ``work`` (``_pattern``'s work
    array; ``indices`` must not be in it)."""
    positions = []
    o = 0
    for eq in blocks:
        n_el, n = eq.shape
        pos = work[o:o + n_el * n * n].reshape(n_el, n, n)
        _positions(eq, indptr, indices, pos)
        positions.append(pos)
        o += n_el * n * n
    return positions


@jit
def _cuthill_mckee(indptr, indices, degree, seeds, visited, perm):
    """Reverse Cuthill–McKee order perm (n,) int64 (new -> old) of the graph of the
    symmetric pattern (indptr (n + 1,), indices ``INDEX``), as scipy computes it: a
    breadth-first search from the first not yet ordered vertex of ``seeds`` (the vertices
    by increasing ``degree`` (n,) int32, numpy's ``argsort`` of it) for each connected
    component; the vertices a vertex adds are its unvisited neighbours in the order of its
    row, stably sorted by degree (insertion sort); the order is then reversed in place.
    ``visited`` (n,) bool, False on entry (work array). ``indptr`` int64 or int32."""
    n = degree.size
    order = perm  # the Cuthill–McKee order, reversed in place at the end
    m = 0
    for z in range(n):
        seed = seeds[z]
        if visited[seed]:
            continue
        order[m] = seed
        visited[seed] = True
        m += 1
        level_start = m - 1
        level_end = m
        while level_start < level_end:
            for ii in range(level_start, level_end):
                i = order[ii]
                m_old = m
                for k in range(indptr[i], indptr[i + 1]):
                    j = indices[k]
                    if not visited[j]:
                        visited[j] = True
                        order[m] = j
                        m += 1
                for kk in range(m_old + 1, m):  # stable insertion sort of the new ones by degree
                    v = order[kk]
                    d = degree[v]
                    ll = kk
                    while ll > m_old and d < degree[order[ll - 1]]:
                        order[ll] = order[ll - 1]
                        ll -= 1
                    order[ll] = v
            level_start = level_end
            level_end = m
        if m == n:
            break
    for k in range(n // 2):
        v = order[k]
        order[k] = order[n - 1 - k]
        order[n - 1 - k] = v


def _rcm(n_eq, indptr, indices):
    """Reverse Cuthill–McKee order (new -> old, (n_eq,) int64) of the symmetric pattern
    (indptr (n_eq + 1,) int64, indices ``INDEX``) of ``_pattern``: sorted rows, each with
    its diagonal unless empty: scipy's order
    (``reverse_cuthill_mckee(..., symmetric_mode=True)``), computed by ``_cuthill_mckee``
    from the degrees and numpy's ``argsort`` of them as scipy does, without scipy's second
    ``argsort`` (of the first one's result, an inverse permutation) and its copies."""
    # scipy's degree: the entries of a row, its diagonal counted twice; every row of
    # ``_pattern`` that has entries holds its diagonal (an element's entry (i, i)). int32 as
    # scipy's: numpy's argsort then orders equal degrees alike
    length = np.diff(indptr)
    degree = length.astype(np.int32)
    degree += length > 0
    del length
    perm = np.empty(n_eq, dtype=np.int64)
    if n_eq:
        _cuthill_mckee(indptr, indices, degree, np.argsort(degree), np.zeros(n_eq, dtype=np.bool_), perm)
    return perm


def bandwidth_reducing_order(n_eq, eq_blocks):
    """Reverse Cuthill–McKee permutation ``perm`` of the equations (new -> old)."""
    if n_eq == 0:
        return np.zeros(0, np.int64)
    indptr, indices, _, _ = _pattern(n_eq, eq_blocks)
    return _rcm(n_eq, indptr, indices)


def renumbered_pattern(n_eq: int, eq_blocks: list, overwrite: bool = False) -> tuple:
    """Reverse Cuthill–McKee renumbering of the equations and the CSR pattern in the new
    numbers, from one pass over the elements: returns ``new_of_old`` (n_eq,) int64, the
    renumbered blocks (``new_of_old[eq]``, −1 kept) and (indptr, indices, positions) as
    ``csr_pattern`` of those (the pattern of the original numbering, permuted).
    ``overwrite``: the blocks that are C-contiguous int64 arrays receive their renumbered
    equations themselves (the caller's own arrays, no longer needed in the old numbers)."""
    indptr, indices, blocks, work = _pattern(n_eq, eq_blocks)
    extended = np.empty(n_eq + 1, dtype=np.int64)  # new_of_old and, last, −1 for the constrained entries
    new_of_old = extended[:-1]
    extended[-1] = -1
    if n_eq:
        new_of_old[_rcm(n_eq, indptr, indices)] = np.arange(n_eq)
    indptr_new = np.empty(n_eq + 1, dtype=INDEX)
    indices_new = np.empty(indices.size, dtype=INDEX)
    _permute_pattern(indptr, indices, new_of_old, indptr_new, indices_new)
    del indices, indptr
    renumbered = []
    for eq, given in zip(blocks, eq_blocks):  # mode "wrap": −1 takes the last entry of ``extended``, −1
        out = eq if overwrite and eq is given else None
        renumbered.append(np.take(extended, eq, out=out, mode="wrap"))
    del blocks
    positions = _block_positions(work, renumbered, indptr_new, indices_new)
    return new_of_old, renumbered, (indptr_new, indices_new, positions)


def csr_pattern(n_eq, eq_blocks):
    """CSR pattern (indptr (n_eq + 1,), indices (nnz,)) of the coupled equations and, for
    each block, the positions (n_el, n_edof, n_edof) of each element entry in the CSR data
    (-1 when the row or column is constrained); all ``INDEX``."""
    indptr, indices, blocks, work = _pattern(n_eq, eq_blocks)
    indices = indices.copy()  # out of the work array, which receives the positions
    indptr = indptr.astype(INDEX)
    return indptr, indices, _block_positions(work, blocks, indptr, indices)


def entry_positions(eq, indptr, indices):
    """CSR positions (k, m, m) ``INDEX`` of the entries (eq[a, i], eq[a, j]) of each group a
    of m equations ``eq`` (k, m) in the pattern (indptr, indices) (writable ``INDEX``
    arrays, ``CorrelationTable.kernel_pattern``: the types ``_positions`` is compiled for):
    -1 where an equation is -1 or the pattern has no such entry."""
    eq = np.require(eq, dtype=np.int64, requirements=["C", "W"])
    pos = np.empty((eq.shape[0], eq.shape[1], eq.shape[1]), dtype=INDEX)
    _positions(eq, indptr, indices, pos)
    r = np.broadcast_to(eq[:, :, None], pos.shape)
    c = np.broadcast_to(eq[:, None, :], pos.shape)
    ok = pos >= 0
    at = np.where(ok, pos, 0)
    ok &= at < indptr[np.maximum(r, 0) + 1]
    if indices.size:
        ok &= indices[np.minimum(at, indices.size - 1)] == c
    pos[~ok] = -1
    return pos
