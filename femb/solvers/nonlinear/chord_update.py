"""Chord-rotating update of the Newton corrections of co-rotational statics.

A Newton correction δu is linear in the rotations it describes: a member whose chord turns
by θ = 36° under the correction also gets its chord lengthened by l(√(1 + θ²) − 1) ≈
0.18 l, because the linear correction moves its end along the tangent of the arc. For members
with a stiff axial response (EA·l²/EI of 10⁴…10⁷) that spurious stretch is an axial force
thousands of times the applied loads, and the Newton iterations after the first one spend
themselves undoing it (the static roll-up: 5–8 iterations per load step).

``ChordUpdate.apply(u, du)`` applies the same correction with every element chord
(the segment between the end nodes of a 2-node beam or truss, each edge of a shell cell)
turned and stretched instead of translated: with the current chord c = X_b − X_a +
u_b − u_a (length l, direction e) and its linear increment d = δu_b − δu_a,

    stretch δl = e·d,  rotation vector ω = e × d / l (+ (w̄·e) e),  c_new = (l + δl) exp(ω̂) e,

where w̄ is the mean spin increment of the two end nodes when both carry 3-D rotations:
the turn about the chord itself, which leaves the chord alone to first order but not for
finite angles (a shell edge at 45° to the axis of a 36° roll turns by 36° about that axis,
not by its part perpendicular to the edge); and the translations of the nodes are fitted
to the new chords in the least-squares sense (weights 1/l0², a fixed Laplacian over the
free translational variables, factorized once per problem; fixed and prescribed
translations stay). The fit is made on the difference
c_new − (c + d), which is of second order in d: the update equals the linear one to first
order (Newton's quadratic convergence is kept, the converged equilibrium and the
convergence test are untouched), and for compatible chord rotations (a chain, a beam
under its end moment) it places the nodes on the turned chords exactly.

Rotational variables are not touched here (additive planar angles; multiplicative 3-D
rotations are updated by femb.solvers.configuration.Configuration.apply).
"""
import math

import numpy as np

from femb.core.jit import jit
from femb.core.rotations import exp_batch
from femb.solvers.linalg.factorization import factorize_csr

TRANSLATIONS = ("ux", "uy", "uz")
ROTATIONS = ("rx", "ry", "rz")


def chord_edges(table):
    """(a, b) (m,) int64 node pairs of the element chords of ``table``: the end nodes of
    2-node line elements with a length (beams, trusses) and the edges of 3- and 4-node
    shell cells, each pair once, for elements whose nodes all carry every translation."""
    dim = table.dim
    pairs = []
    for block in table.blocks:
        spec = block.spec
        names = spec.node_dofs
        if not all(n in names for n in TRANSLATIONS[:dim]):
            continue
        cells = block.cells
        if spec.n_nodes == 2 and spec.requires_length:
            pairs.append(cells[:, [0, 1]])
        elif spec.cell_type in ("triangle", "quad") and spec.n_nodes in (3, 4) and dim == 3:
            k = spec.n_nodes
            for i in range(k):
                pairs.append(cells[:, [i, (i + 1) % k]])
    if not pairs:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    ab = np.concatenate(pairs) if len(pairs) > 1 else pairs[0]
    a, b = np.minimum(ab[:, 0], ab[:, 1]).astype(np.int64), np.maximum(ab[:, 0], ab[:, 1]).astype(np.int64)
    if not np.all(a != b):
        a, b = a[a != b], b[a != b]
    n = np.int64(table.node_var.shape[0])
    key = a * n + b
    if np.all(key[1:] > key[:-1]):  # already sorted and unique (a chain numbered along its length)
        return a, b
    key = np.unique(key)
    return key // n, key % n


class ChordUpdate:
    """The chord-rotating update of a table's corrections (module docstring).

    Parameters
    ----------
    table : CorrelationTable
    points : (n_nodes, dim) reference node coordinates

    ``active`` is False when the table has no chords; ``apply`` then adds du as is.
    """

    def __init__(self, table, points):
        self.table = table
        dim = table.dim
        a, b = chord_edges(table)
        cols = [table.dof_names.index(n) for n in TRANSLATIONS[:dim]]
        self.va = table.node_var[a][:, cols] if a.size else np.zeros((0, dim), dtype=np.int64)
        self.vb = table.node_var[b][:, cols] if b.size else np.zeros((0, dim), dtype=np.int64)
        pts = np.asarray(points, dtype=np.float64)[:, :dim]
        self.X21 = pts[b] - pts[a]
        l0 = np.sqrt((self.X21 * self.X21).sum(axis=1))
        keep = l0 > 0.0
        if not keep.all():
            a, b = a[keep], b[keep]
            self.va, self.vb, self.X21, l0 = self.va[keep], self.vb[keep], self.X21[keep], l0[keep]
        # rotational variables (spatial spins) of both ends, where both carry 3-D rotations
        self.ra = self.rb = None
        if dim == 3 and all(n in table.dof_names for n in ROTATIONS):
            rcols = [table.dof_names.index(n) for n in ROTATIONS]
            ra, rb = table.node_var[a][:, rcols], table.node_var[b][:, rcols]
            both = np.all(ra >= 0, axis=1) & np.all(rb >= 0, axis=1)
            if both.any():
                self.spun = np.flatnonzero(both)
                self.ra, self.rb = ra[both], rb[both]
        self.active = self.va.shape[0] > 0
        if not self.active:
            return
        self.w = 1.0 / l0**2
        # one Laplacian per translation component over its free variables (components with
        # the same free nodes share it)
        self.fits = []
        shared = {}
        for k in range(dim):
            ea, eb = table.var_eq[self.va[:, k]], table.var_eq[self.vb[:, k]]
            # the free variables of the chord ends, in equation order, and their local numbers
            hit = np.zeros(table.n_eq + 1, dtype=bool)  # (the last slot collects the −1 of fixed ends)
            hit[ea] = True
            hit[eb] = True
            hit[-1] = False
            local = np.cumsum(hit) - 1
            free = np.nonzero(hit)[0]
            if free.size == 0:
                self.fits.append(None)
                continue
            la = np.where(ea >= 0, local[ea], -1)
            lb = np.where(eb >= 0, local[eb], -1)
            key = la.tobytes() + lb.tobytes()
            if key not in shared:  # (a part without a fixed end is pinned at one node: its fit's mean position)
                indptr, indices, data = _laplacian_csr(la, lb, self.w, free.size)
                shared[key] = factorize_csr(free.size, indptr, indices, data, context="chord fit Laplacian")
            self.fits.append((table.eq_var[free], la, lb, shared[key]))

    def turn(self, u, du_var):
        """Largest angle (rad) by which the increment du_var (n_var,) turns an element chord
        from u (n_var,) (to first order: |e × d|/l)."""
        if not self.active:
            return 0.0
        c = self.X21 + u[self.vb] - u[self.va]
        d = du_var[self.vb] - du_var[self.va]
        if c.shape[1] == 2:
            cross = np.abs(c[:, 0] * d[:, 1] - c[:, 1] * d[:, 0])
        else:
            cross = np.linalg.norm(np.cross(c, d), axis=1)
        sq = np.einsum("ij,ij->i", c, c)
        ok = sq > 0.0
        return float((cross[ok] / sq[ok]).max(initial=0.0))

    def apply(self, u, du_var):
        """u (n_var,) + du_var (n_var,) with the chords turned (module docstring); a new
        array."""
        out = u + du_var
        if not self.active:
            return out
        a, b = self.va, self.vb
        if a.shape[1] == 2:  # planar chords: one compiled pass
            rest = np.empty((a.shape[0], 2))
            _planar_rest(self.X21, np.asarray(u, dtype=np.float64), np.asarray(du_var, dtype=np.float64), a, b, rest)
            return self._fit(out, rest)
        c = self.X21 + u[b] - u[a]
        d = du_var[b] - du_var[a]
        length = np.sqrt(np.einsum("ij,ij->i", c, c))
        ok = length > 0.0
        e = np.zeros_like(c)
        e[ok] = c[ok] / length[ok, None]
        stretch = np.einsum("ij,ij->i", e, d)
        inv = np.where(ok, 1.0 / np.where(ok, length, 1.0), 0.0)
        omega = np.cross(e, d) * inv[:, None]
        if self.ra is not None:  # the turn about the chord itself: the mean spin of its ends
            i = self.spun
            spin = 0.5 * (du_var[self.ra] + du_var[self.rb])
            omega[i] += np.einsum("ij,ij->i", spin, e[i])[:, None] * e[i]
        omega = np.ascontiguousarray(omega)
        Rw = np.empty((omega.shape[0], 3, 3))
        exp_batch(omega, Rw)
        turned = np.einsum("eij,ej->ei", Rw, e)
        rest = (length + stretch)[:, None] * turned - (c + d)
        rest[~ok] = 0.0
        return self._fit(out, rest)

    def _fit(self, out, rest):
        """out (n_var,) plus the least-squares fit of the nodal corrections to the chords'
        ``rest`` (n_chords, dim), per axis; ``out`` itself."""
        for k, fit in enumerate(self.fits):
            if fit is None:
                continue
            var, la, lb, lu = fit
            wr = self.w * rest[:, k]
            rhs = np.bincount(lb[lb >= 0], wr[lb >= 0], minlength=var.size)
            rhs -= np.bincount(la[la >= 0], wr[la >= 0], minlength=var.size)
            out[var] += lu.solve(rhs)
        return out


@jit
def _planar_rest(X21, u, du, va, vb, rest):
    """rest (m, 2) of planar chords (``ChordUpdate.apply``): each chord c = X21 + u_b − u_a
    turned by the angle (e × d)/|c| of the increment's end difference d and stretched by
    e·d, minus c + d (zero for a chord of zero length). X21 (m, 2) reference chords, u,
    du (n_var,), va, vb (m, 2) int64 variables of the chord ends."""
    for i in range(va.shape[0]):
        c0 = X21[i, 0] + u[vb[i, 0]] - u[va[i, 0]]
        c1 = X21[i, 1] + u[vb[i, 1]] - u[va[i, 1]]
        d0 = du[vb[i, 0]] - du[va[i, 0]]
        d1 = du[vb[i, 1]] - du[va[i, 1]]
        length = math.sqrt(c0 * c0 + c1 * c1)
        if not length > 0.0:
            rest[i, 0] = 0.0
            rest[i, 1] = 0.0
            continue
        e0 = c0 / length
        e1 = c1 / length
        stretch = e0 * d0 + e1 * d1
        ang = (e0 * d1 - e1 * d0) * (1.0 / length)
        cs = math.cos(ang)
        sn = math.sin(ang)
        s = length + stretch
        rest[i, 0] = s * (cs * e0 - sn * e1) - (c0 + d0)
        rest[i, 1] = s * (sn * e0 + cs * e1) - (c1 + d1)


@jit(internal=True)
def _root(parent, i):
    """The root of node i in the union-find forest ``parent`` (paths halved on the way)."""
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@jit
def _laplacian_csr(la, lb, w, n):
    """CSR arrays (indptr (n + 1,), indices, data; columns sorted in each row, parallel
    chords summed) of the Laplacian Σ w_i (e_b − e_a)(e_b − e_a)ᵀ (n, n) of the chords i
    whose ends have the local indices la[i], lb[i] (−1: a fixed end, which adds to the
    other end's diagonal only). Each connected part without a fixed end gets the largest
    diagonal entry added at its lowest-numbered node (a pin: the Laplacian of a free part
    is singular)."""
    m = la.size
    parent = np.arange(n)
    grounded = np.zeros(n, dtype=np.bool_)
    count = np.ones(n, dtype=np.int64)  # entries per row before merging: the diagonal + one per chord end
    for i in range(m):
        a, b = la[i], lb[i]
        if a >= 0 and b >= 0:
            count[a] += 1
            count[b] += 1
            ra, rb = _root(parent, a), _root(parent, b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
        elif a >= 0:
            grounded[a] = True
        elif b >= 0:
            grounded[b] = True
    start = np.zeros(n + 1, dtype=np.int64)
    for j in range(n):
        start[j + 1] = start[j] + count[j]
    cols = np.empty(start[n], dtype=np.int64)
    vals = np.empty(start[n])
    fill = start[:n].copy()
    diag = np.zeros(n)
    for i in range(m):
        a, b = la[i], lb[i]
        if a >= 0:
            diag[a] += w[i]
        if b >= 0:
            diag[b] += w[i]
        if a >= 0 and b >= 0:
            cols[fill[a]] = b
            vals[fill[a]] = -w[i]
            fill[a] += 1
            cols[fill[b]] = a
            vals[fill[b]] = -w[i]
            fill[b] += 1
    big = 0.0
    for j in range(n):
        big = max(big, diag[j])
    held = np.zeros(n, dtype=np.bool_)
    for j in range(n):
        if grounded[j]:
            held[_root(parent, j)] = True
    for j in range(n):  # the lowest-numbered node of a part is its root
        if _root(parent, j) == j and not held[j]:
            diag[j] += big
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(start[n], dtype=np.int64)
    data = np.empty(start[n])
    k = 0
    for j in range(n):
        cols[fill[j]] = j
        vals[fill[j]] = diag[j]
        lo, hi = start[j], fill[j] + 1
        for q in range(lo + 1, hi):  # insertion sort by column (a row holds a node's few chords; stable)
            c, v = cols[q], vals[q]
            p = q
            while p > lo and cols[p - 1] > c:
                cols[p] = cols[p - 1]
                vals[p] = vals[p - 1]
                p -= 1
            cols[p] = c
            vals[p] = v
        last = -1
        for q in range(lo, hi):
            if cols[q] == last:
                data[k - 1] += vals[q]
            else:
                indices[k] = cols[q]
                data[k] = vals[q]
                k += 1
                last = cols[q]
        indptr[j + 1] = k
    return indptr, indices[:k].copy(), data[:k].copy()
