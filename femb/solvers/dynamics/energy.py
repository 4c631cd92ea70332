"""Energy and momentum bookkeeping of a dynamic run.

Energies (units of the model's force × length):

- kinetic T = ½ vᵀ M v over all variables (2-D rotational entries: ½ I ω²; 3-D: the
  translational mass, plus ½ π·J⁻¹π of every oriented node, π = R J0 Rᵀ ω its spatial
  angular momentum; configuration-dependent masses: ½ vᵀ M(u) v), plus Σ ½ m_j |v_j|² of
  the mass points inside elements (femb.solvers.dynamics.point_inertia) and of the mass
  points attached to nodes (femb.solvers.dynamics.offset_points);
- strain V (element kernels);
- potential of the constant loads P = −f_const·u (rotations additive);
- external work W of the time-varying (scaled) loads, cumulative (models with 3-D
  rotations: also of every moment, which has no potential there, and of the
  rotation-dependent moments and follower pressures, as the step applies them);
- constraint work W_c done by the reactions of prescribed DOFs, cumulative;
- dissipated energy D (viscous damping: Rayleigh and discrete dampers), cumulative; the
  mid-point steps book h v̄ᵀ C̄ v̄ ≥ 0 per step with the step's own v̄ and C̄.

The energy residual is (T + V + P)_n − (T + V + P)_0 − W − W_c + D: zero to the Newton
tolerance for the energy-conserving scheme, the algorithmic energy error for the others.

Momenta are summed element by element with each element's own nodal positions
x = X + u, so ties between nodes are counted once per element mass:
linear p = Σ M v (dim,), angular about the origin L = Σ x × (M v)_transl + Σ (M v)_rot
(2-D: the z component; 3-D: the vector, plus Σ π of the oriented nodes).
"""
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from femb.solvers.dynamics.problem import CompactBlockMass


def kinetic_energy(problem, v):
    """½ vᵀ M v over all variables (v: (n_var,)); M v by the ``_row_product`` plan of
    ``problem.M_full`` kept on the problem while that matrix object stays the same."""
    M = problem.M_full
    kept = problem.__dict__.get("_mass_terms")
    if kept is None or kept[0] is not M:
        kept = problem.__dict__["_mass_terms"] = (M, _row_terms(M))
    return 0.5 * float(v @ _row_product(kept[1], v))


def rotary_kinetic_energy(problem, R, pi):
    """½ Σ π·J⁺π over the oriented nodes of a 3-D model (R (n_nodes, 3, 3) rotations,
    π (k, 3) spatial angular momenta)."""
    Jp = problem.rotary.spatial(R, pinv=True)
    return 0.5 * float(np.einsum("ki,kij,kj->", pi, Jp, pi))


def strain_energy(problem: Any, u: NDArray[np.float64], R: Optional[NDArray[np.float64]] = None) -> float:
    """Strain energy V (force × length) of ``problem`` (a DynamicProblem) at ``u`` (n_var,)
    [and nodal rotations R (n_nodes, 3, 3)]: 0.0 without evaluating any kernel when every
    block is of a pure inertia element type (``ElementSpec.internal_forces`` False: zero
    strain energy), else the assembler's sum over all blocks."""
    table = problem.table
    kept = problem.__dict__.get("_inertia_only")  # (table, whether its blocks are all inertia-only)
    if kept is None or kept[0] is not table:
        kept = problem.__dict__["_inertia_only"] = (table, not any(getattr(b.spec, "internal_forces", True) for b in table.blocks))
    if kept[1]:
        return 0.0
    return problem.assembler.strain_energy(u, R=R)


def _columns(block, dim):
    """Node-local columns of a block's nodal DOFs: the translations (k,) (k ≤ dim) and
    the rotations {axis: column}."""
    names = block.spec.node_dofs
    trans = np.array([names.index(n) for n in ("ux", "uy", "uz")[:dim] if n in names], dtype=np.int64)
    return trans, {k: names.index(n) for k, n in enumerate(("rx", "ry", "rz")) if n in names}


def _element_momenta(block, mass, v, n_var):
    """The element vectors M_e v_e (n_el, n_edof) of one block whose masses are ``mass``
    (a CompactBlockMass: element rows, cols (k,) and values (n_el, k) of the entries kept),
    at velocities v (n_var,). Entry (e, i) is the sum, from 0.0, of the products
    M_e[i, j] v[var[e, j]] over the free columns j with a nonzero mass in the order of
    their variables, those of a column sharing its variable with another of the same row
    summed first: a sparse matrix of the nonzero free entries times v, made without one.
    Fixed columns and zero masses add ±0.0 to a sum that is never −0.0, which changes
    nothing; a block with a variable twice in one element row takes the sparse matrix."""
    var = block.var
    n_el, nd = var.shape
    pe = np.zeros((n_el, nd))
    rows, first, count = np.unique(mass.rows, return_index=True, return_counts=True)
    for i, k, m in zip(rows, first, count):
        if m == 1:  # the entry alone in its row (every entry of a lumped mass)
            col = var[:, mass.cols[k]]
            pe[:, i] += np.where(col >= 0, mass.values[:, k] * v[col], 0.0)
            continue
        ks = np.flatnonzero(mass.rows == i)
        cols = var[:, mass.cols[ks]]  # (n_el, m) the row's variables, −1 where fixed
        terms = np.where(cols >= 0, mass.values[:, ks] * v[cols], 0.0)
        if not np.all(cols[:, 1:] > cols[:, :-1]):  # add in the order of the variables
            key = np.maximum(cols, -1)  # every fixed column −1
            order = np.argsort(key, axis=1, kind="stable")
            key = np.take_along_axis(key, order, axis=1)
            if np.any((key[:, 1:] == key[:, :-1]) & (key[:, 1:] >= 0)):
                return _element_momenta_sparse(block, mass, v, n_var)
            terms = np.take_along_axis(terms, order, axis=1)
        for c in range(ks.size):
            pe[:, i] += terms[:, c]
    return pe


def _element_momenta_sparse(block, mass, v, n_var):
    """``_element_momenta`` through the block's ``_block_momentum_matrix``."""
    return (_block_momentum_matrix(block, mass, n_var) @ v).reshape(block.var.shape)


def _block_momentum_matrix(block, mass, n_var):
    """Sparse (n_el·n_edof, n_var) matrix of the block's nonzero free mass entries (rows
    e·n_edof + i, columns the variables; entries of one variable summed) from its
    CompactBlockMass ``mass``: times v, the element vectors M_e v_e stacked."""
    var = block.var
    n_el, nd = var.shape
    e, k = np.nonzero((var[:, mass.cols] >= 0) & (mass.values != 0.0))
    return sp.csr_matrix((mass.values[e, k], (e * nd + mass.rows[k], var[e, mass.cols[k]])), shape=(n_el * nd, n_var))


KEPT_PLAN_MAX_VARIABLES = 20_000
"""Models of at most this many variables with constant masses keep a momentum plan
(``_momentum_plan``: the blocks' sparse momentum matrices and the node rows of all
blocks, ≲ 4 MB there) between calls of ``momenta``: a recorded frame of a
small model then costs one sparse product and a few gathers. Larger models compute the
element vectors at each call from the compact masses and keep nothing (130–180 B/DOF less
at the run's memory peak). Both give the same sums, bit for bit."""


def _momentum_plan(table, masses):
    """The element momenta of all blocks at once, from their CompactBlockMass ``masses``:
    S (the ``_row_terms`` plan of the blocks' ``_block_momentum_matrix`` stacked, Σ n_el·n_edof
    × n_var) with ``_row_product(S, v)`` = the element vectors M_e v_e stacked; per translational width k (number of
    translations of a block's nodes): the ``_node_rows`` of every element node; per rotation
    axis the rows of S of the nodes' rotational entries (when every axis has as many: the
    axes (a,) and their rows stacked (a, n), each row summed as alone)."""
    trans: dict = {}
    rot: dict = {}
    o = 0
    for block in table.blocks:
        n_el, nd = block.var.shape
        tc, rc = _columns(block, table.dim)
        nodes = np.arange(block.spec.n_nodes)[:, None] * len(block.spec.node_dofs)  # (n_nodes, 1) node offsets
        elements = o + np.arange(n_el)[:, None, None] * nd
        k = tc.size
        if k:
            tcols = nodes + tc[None]  # (n_nodes, k) element columns of the translations
            r = (elements + tcols[None]).reshape(-1, k)
            trans.setdefault(k, []).append((r, block.var[:, tcols].reshape(-1, k), block.X[:, :, :k].reshape(-1, k)))
        for axis, c in rc.items():
            rot.setdefault(axis, []).append((elements[:, :, 0] + (nodes[:, 0] + c)[None]).ravel())
        o += n_el * nd
    S = sp.vstack([_block_momentum_matrix(block, mass, table.n_var) for block, mass in zip(table.blocks, masses)], format="csr")
    trans = {k: _node_rows(*(np.concatenate(parts) for parts in zip(*groups))) for k, groups in trans.items()}
    # rows of S without entries (rotations whose inertia the rotary terms hold) add +0.0 to
    # L, which is never −0.0 (it starts at +0.0): left out, the same sums
    stored = np.diff(S.indptr) > 0
    rot = {axis: r for axis, r in ((axis, np.concatenate(r)) for axis, r in rot.items()) if stored[r].any()}
    if len({r.size for r in rot.values()}) == 1:  # one gather and one row sum per frame
        rot = (np.array(list(rot), dtype=np.int64), np.stack(list(rot.values())))
    return _row_terms(S), trans, rot


ROW_PRODUCT_MAX_ROWS = 1024
"""Sparse matrices of at most this many rows are multiplied by ``_row_product``'s plan (a
few gathers, without scipy's dispatch of a few µs); larger ones by scipy (its compiled
loop is faster there). Both give the same bits."""


def _row_terms(A):
    """The product plan of a CSR matrix A (n, c) for ``_row_product``: n and, per position
    j within a row, (rows with a j-th entry, those entries, their columns); A itself (CSR)
    above ROW_PRODUCT_MAX_ROWS rows."""
    A = sp.csr_matrix(A)
    if A.shape[0] > ROW_PRODUCT_MAX_ROWS:
        return A
    counts = np.diff(A.indptr)
    terms = []
    for j in range(int(counts.max(initial=0))):
        rows = np.flatnonzero(counts > j)
        at = A.indptr[rows] + j
        terms.append((rows, A.data[at].astype(np.float64), A.indices[at].astype(np.int64)))
    return A.shape[0], terms


def _row_product(plan, x):
    """A x (n,) for the plan of ``_row_terms`` and x (c,): every row summed from 0.0 in
    the order of its stored entries, one rounding per product and per sum, as scipy's CSR
    product does (the same bits), without its dispatch."""
    if not isinstance(plan, tuple):  # a CSR matrix
        return plan @ x
    n, terms = plan
    out = np.zeros(n)
    for rows, data, cols in terms:
        out[rows] += data * x[cols]
    return out


def _node_rows(rows, var, X):
    """(rows, free, gather, X) of the element nodes of one translational width: rows of S
    (n_p, k), which entries are variables (var ≥ 0; None when all are), the variables to
    read (0 where fixed), reference positions (n_p, k)."""
    free = var >= 0
    return rows, None if free.all() else free, np.maximum(var, 0), X


def _add_node_momenta(p, L, k, q, x):
    """Add the linear momenta q (n_p, k) of nodes at positions x (n_p, k) to p (dim,) and
    their moments about the origin Σ x × q to L (3,) (k = 2: about z only)."""
    p[:k] += q.sum(axis=0)
    if k == 2:
        L[2] += float((x[:, 0] * q[:, 1] - x[:, 1] * q[:, 0]).sum())
    elif k == 3:  # Σ x × q
        for a in range(3):
            b, c = (a + 1) % 3, (a + 2) % 3
            L[a] += float(x[:, b] @ q[:, c] - x[:, c] @ q[:, b])


def _momenta_from_plan(problem, u, v):
    """``momenta`` of a model with constant masses through the momentum plan kept on the
    problem (``_momentum_plan``, made at the first call)."""
    t = problem.table
    dim = t.dim
    p = np.zeros(dim)
    L = np.zeros(3)
    plan = problem.__dict__.get("_momentum_plan")
    if plan is None:
        plan = problem.__dict__["_momentum_plan"] = _momentum_plan(t, problem.compact_element_mass)
    S, trans, rot = plan
    pe = _row_product(S, v)
    for k, (rows, free, gather, X) in trans.items():
        q = pe[rows]  # (n_p, k)
        x = X + (u[gather] if free is None else np.where(free, u[gather], 0.0))
        _add_node_momenta(p, L, k, q, x)
    if isinstance(rot, tuple):
        axes, rows = rot
        L[axes] += pe[rows].sum(axis=1)
    elif rot:
        for axis, rows in rot.items():
            L[axis] += float(pe[rows].sum())
    return p, (L[2:] if dim == 2 else L)


def momenta(problem: Any, u: NDArray[np.float64], v: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Linear momentum (dim,) and angular momentum about the origin (2-D: (1,), 3-D: (3,))
    of state u, v (n_var,), element by element from the element masses kept by their
    nonzero entries (``DynamicProblem.compact_element_mass``; configuration-dependent
    ones at u): models above KEPT_PLAN_MAX_VARIABLES keep nothing between calls, the work arrays are (n_el, n_edof) and
    (n_el·n_nodes, k) per block; smaller ones with constant masses use a kept momentum
    plan (``_momenta_from_plan``)."""
    t = problem.table
    variable = getattr(problem, "variable_mass", None)
    if not variable and t.n_var <= KEPT_PLAN_MAX_VARIABLES:
        return _momenta_from_plan(problem, u, v)
    dim = t.dim
    p = np.zeros(dim)
    L = np.zeros(3)
    masses = list(problem.compact_element_mass)
    if variable:  # configuration-dependent masses at u
        for i, Me in zip(variable.blocks, variable.element_masses(u)):
            masses[i] = CompactBlockMass(Me)
    trans: dict = {}
    rot: dict = {}
    for block, mass in zip(t.blocks, masses):
        # pe (n_el·n_nodes, n_dof): the nodal entries of M_e v_e, element by element, node by
        # node (element-internal variables, after the nodal ones, carry no momentum here)
        nodal = block.spec.n_nodes * len(block.spec.node_dofs)
        pe = _element_momenta(block, mass, v, t.n_var)[:, :nodal].reshape(-1, len(block.spec.node_dofs))
        tcols, rcols = _columns(block, dim)
        k = tcols.size
        if k:
            var = np.take(block.var[:, :nodal].reshape(pe.shape), tcols, axis=1)
            x = u[var]  # becomes X + (u where a variable, else 0.0)
            x[var < 0] = 0.0
            np.add(block.X[:, :, :k].reshape(-1, k), x, out=x)
            trans.setdefault(k, []).append((np.take(pe, tcols, axis=1), x))
        for axis, c in rcols.items():
            rot.setdefault(axis, []).append(pe[:, c].copy())
        del pe
    for k, parts in trans.items():
        q, x = (np.concatenate(a) if len(a) > 1 else a[0] for a in zip(*parts))  # (n_p, k) over all blocks
        _add_node_momenta(p, L, k, q, x)
    for axis, parts in rot.items():
        L[axis] += float((np.concatenate(parts) if len(parts) > 1 else parts[0]).sum())
    return p, (L[2:] if dim == 2 else L)


@dataclass
class EnergyAccount:
    """Cumulative energy terms of a run and the reference total at the start."""

    E0: float = 0.0
    external_work: float = 0.0
    constraint_work: float = 0.0
    dissipated: float = 0.0
    history: dict = field(default_factory=dict)

    def add(self, work=0.0, constraint=0.0, dissipated=0.0):
        self.external_work += work
        self.constraint_work += constraint
        self.dissipated += dissipated

    def snapshot(self, problem, u, v, state=None):
        """Dict of the energy and momentum history values of state (u, v) (3-D rotations:
        the nodal rotations and spatial angular momenta from ``state.extra``)."""
        T = kinetic_energy(problem, v)
        variable = getattr(problem, "variable_mass", None)
        if variable:
            T += variable.kinetic_energy(u, v)
        R = None
        points = getattr(problem, "point_inertia", None)
        points = points if points and state is not None and "points_v" in state.extra else None
        if getattr(problem, "oriented", False):
            R, pi = state.extra["R"], state.extra["pi"]
            T += rotary_kinetic_energy(problem, R, pi)
        if points is not None:
            T += points.kinetic_energy(state)
        offset = getattr(problem, "offset_points", None)
        offset = offset if offset and state is not None and "offset_v" in state.extra else None
        if offset is not None:
            T += offset.kinetic_energy(state)
        V = strain_energy(problem, u, R)
        P = problem.potential(u)
        if points is not None:
            P += points.potential(state)
        if offset is not None:
            P += offset.potential(state)
        E = T + V + P
        out = dict(kinetic_energy=T, strain_energy=V, potential_energy=P, total_energy=E,
                   external_work=self.external_work, constraint_work=self.constraint_work,
                   dissipated_energy=self.dissipated,
                   energy_residual=E - self.E0 - self.external_work - self.constraint_work + self.dissipated)
        lin, ang = momenta(problem, u, v)
        if R is not None:
            ang = ang + pi[problem.rotary.owner].sum(axis=0)
        if points is not None:
            p_points, l_points = points.momenta(state)
            lin = lin + p_points
            ang = ang + l_points
        if offset is not None:
            p_offset, l_offset = offset.momenta(state)
            lin = lin + p_offset
            ang = ang + l_offset
        out.update(zip(_LINEAR_KEYS[: lin.size], lin.tolist()))
        out.update(zip(_ANGULAR_KEYS if ang.size == 3 else ("angular_momentum",), ang.tolist()))
        return out


_LINEAR_KEYS = ("linear_momentum_x", "linear_momentum_y", "linear_momentum_z")
_ANGULAR_KEYS = ("angular_momentum_x", "angular_momentum_y", "angular_momentum_z")
