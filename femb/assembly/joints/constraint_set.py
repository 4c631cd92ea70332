"""The joint equations Φ(u, t) = 0 of a model and their Jacobians, over a CorrelationTable.

``ConstraintSet`` stacks the rows of the joint evaluators (femb.assembly.joints.protocol)
of a model, one evaluator per family of kinds in the order of ``EVALUATORS``: the scalar
kinds (distance, on_line, coincide, linear; femb.assembly.joints.scalar), the planar body
kinds (body_point, slider; femb.assembly.joints.planar), then the 3-D joints between
oriented nodes (femb.assembly.joints.spatial). Within an evaluator rows follow its own
order. Jacobians are returned over *variables* (m, n_var) in CSR form, or as dense blocks
over the few variables the joints involve (``variables``); the solvers take the columns of
the free equations.

``midpoint_jacobian(u0, u1)`` is the exact discrete derivative Ḡ·Δq = Φ(u1) − Φ(u0) of the
energy-conserving scheme (the Jacobian at the mid-point for the kinds at most quadratic in
the positions; the evaluators' own discrete derivative for the rotation-dependent kinds,
whose Jacobian at the mid-point alone is exact only up to O(Δθ³)). Columns of 2-D
rotations are per unit Δθ, of 3-D rotations per unit spatial spin in ``evaluate`` and per
unit Cayley vector of the increment in ``midpoint_jacobian``.
"""
import numpy as np
import scipy.sparse as sp

from femb.assembly.joints.planar import BodyPoint2D, Slider2D
from femb.assembly.joints.scalar import ScalarJoints
from femb.assembly.joints.spatial import Joints3D

EVALUATORS = (ScalarJoints, BodyPoint2D, Slider2D, Joints3D)
"""The joint evaluator classes, in row order; each handles the joint kinds in its ``kinds``."""


class ConstraintSet:
    """All joint constraints of a model on a CorrelationTable.

    Attributes
    ----------
    m : int
        Number of constraint equations.
    row_joint : list of str
        The joint name of each row.
    evaluators : list of JointEvaluator
        One per family of kinds the model uses, in row order.
    """

    def __init__(self, model, table):
        self.table = table
        self.dim = table.dim
        self.evaluators = []
        for kind in EVALUATORS:
            joints = [j for j in model.joints if j.kind in kind.kinds]
            if joints:
                self.evaluators.append(kind(model, table, joints))
        self.row_joint = [name for ev in self.evaluators for name in ev.names]
        self.m = len(self.row_joint)

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, u, t=0.0, jacobian=True, rotations=None):
        """Φ (m,) at state ``u`` (n_var,) and time ``t``; with ``jacobian`` also G
        (CSR, m × n_var). ``rotations`` (n_nodes, 3, 3): nodal rotations of a 3-D model
        for the joints between oriented nodes (default: from the rotation vectors in u)."""
        out = self._jacobian_triplets(u, t, rotations, jacobian)
        if not jacobian:
            return out
        phi, rows, cols, vals = out
        if rows.size:
            G = self._csr(rows, cols, vals, (self.m, self.table.n_var))
        else:
            G = sp.csr_matrix((self.m, self.table.n_var))
        return phi, G

    def _csr(self, rows, cols, vals, shape):
        """CSR of triplets (duplicates summed), the structure kept per cached pattern."""
        cache = self.__dict__.setdefault("_csr_structure", {})
        entry = cache.get(id(rows))
        if entry is None or entry[0] is not rows or entry[1] is not cols:
            key = rows * shape[1] + cols
            uniq, where = np.unique(key, return_inverse=True)
            indptr = np.concatenate([[0], np.cumsum(np.bincount(uniq // shape[1], minlength=shape[0]))])
            entry = (rows, cols, where.ravel(), (uniq % shape[1]).astype(np.int32), indptr.astype(np.int32))
            cache[id(rows)] = entry
        _, _, where, indices, indptr = entry
        data = np.bincount(where, weights=vals, minlength=indices.size)
        return sp.csr_matrix((data, indices.copy(), indptr.copy()), shape=shape)

    @staticmethod
    def _rotations_for(ev, rotations):
        """The ``rotations`` argument an evaluator takes (None for kinds without 3-D rotations)."""
        return rotations if ev.takes_rotations else None

    def _jacobian_triplets(self, u, t, rotations, jacobian=True):
        """Φ (m,) and the Jacobian's (rows, variable columns, values), fixed variables
        dropped (Φ alone without ``jacobian``). The rows and columns depend on the joints
        only: they are built on the first call and kept (``_patterns``)."""
        phi = np.zeros(self.m)
        patterns = self.__dict__.setdefault("_patterns", {})
        build = jacobian and "G" not in patterns
        rows, cols, vals = [], [], []
        r0 = 0
        for ev in self.evaluators:
            ph, r, c, v = ev.evaluate(u, t, rotations=self._rotations_for(ev, rotations))
            phi[r0:r0 + ev.m] = ph
            vals.append(np.asarray(v, dtype=np.float64))
            if build:
                rows.append(np.asarray(r, dtype=np.int64) + r0)
                cols.append(np.asarray(c, dtype=np.int64))
            r0 += ev.m
        if not jacobian:
            return phi
        vals = np.concatenate(vals) if vals else np.zeros(0)
        if not vals.size:
            return phi, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        if build:
            patterns["G"] = self._pattern(rows, cols)
        rows, cols, keep = patterns["G"]
        if keep.size != vals.size:  # not the pattern of the first call: build it again
            del patterns["G"]
            return self._jacobian_triplets(u, t, rotations, jacobian)
        return phi, rows, cols, vals[keep]

    @staticmethod
    def _pattern(rows, cols):
        """(rows, cols, keep) of triplet lists: the entries at free variables (cols ≥ 0)."""
        rows, cols = np.concatenate(rows).astype(np.int64), np.concatenate(cols).astype(np.int64)
        keep = cols >= 0
        return rows[keep], cols[keep], keep

    @staticmethod
    def _square_triplets(parts):
        """(rows, cols, vals) of the curvature triplets of the evaluators (variables ×
        variables), entries at fixed variables dropped."""
        rows, cols, vals = [], [], []
        for r, c, v in parts:
            r, c, v = np.asarray(r, dtype=np.int64), np.asarray(c, dtype=np.int64), np.asarray(v, dtype=np.float64)
            keep = (r >= 0) & (c >= 0)
            rows.append(r[keep])
            cols.append(c[keep])
            vals.append(v[keep])
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        return np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)

    def _per_evaluator(self, lam):
        """(evaluator, its multipliers) pairs of ``lam`` (m,), one multiplier per row."""
        lam = np.asarray(lam, dtype=np.float64)
        offsets = np.cumsum([0] + [ev.m for ev in self.evaluators])
        return [(ev, lam[a:b]) for ev, a, b in zip(self.evaluators, offsets[:-1], offsets[1:])]

    def hessian_term(self, lam):
        """Σ_i λ_i ∇²Φ_i (CSR, n_var × n_var): the stiffness of the joint forces Gᵀλ at the
        state of the evaluators' last ``evaluate`` (JointEvaluator.hessian). ``lam`` holds
        one multiplier per row (all rows, in row order)."""
        n = self.table.n_var
        rows, cols, vals = self._hessian_triplets(lam)
        return sp.csr_matrix((vals, (rows, cols)), shape=(n, n))

    def _hessian_triplets(self, lam):
        return self._square_triplets(ev.hessian(part) for ev, part in self._per_evaluator(lam))

    def midpoint_stiffness(self, lam):
        """∂(Ḡᵀλ)/∂Δu (CSR, n_var × n_var) of the discrete Jacobian of the last
        ``midpoint_jacobian`` call, multipliers ``lam`` (all rows) fixed
        (JointEvaluator.midpoint_stiffness: half the curvature for the kinds whose Ḡ is
        the mid-point Jacobian, exact per unit Cayley vector for the 3-D joints)."""
        n = self.table.n_var
        rows, cols, vals = self._midpoint_stiffness_triplets(lam)
        return sp.csr_matrix((vals, (rows, cols)), shape=(n, n))

    def _midpoint_stiffness_triplets(self, lam):
        return self._square_triplets(ev.midpoint_stiffness(part) for ev, part in self._per_evaluator(lam))

    def midpoint_jacobian(self, u0, u1, rotations=None):
        """Discrete Jacobian Ḡ (CSR, m × n_var) with Ḡ·(u1 − u0) = Φ(u1) − Φ(u0) exactly
        (JointEvaluator.midpoint; columns of 2-D rotations per unit Δθ, of 3-D rotations
        per unit Cayley vector of the increment). ``rotations``: (R0, R1) nodal rotations
        (n_nodes, 3, 3) of a 3-D model, or None."""
        rows, cols, vals = self._midpoint_triplets(u0, u1, rotations)
        if not rows.size:
            return sp.csr_matrix((self.m, self.table.n_var))
        return self._csr(rows, cols, vals, (self.m, self.table.n_var))

    def _midpoint_triplets(self, u0, u1, rotations=None):
        patterns = self.__dict__.setdefault("_patterns", {})
        build = "Gbar" not in patterns
        rows, cols, vals = [], [], []
        r0 = 0
        for ev in self.evaluators:
            r, c, v = ev.midpoint(u0, u1, rotations=self._rotations_for(ev, rotations))
            vals.append(np.asarray(v, dtype=np.float64))
            if build:
                rows.append(np.asarray(r, dtype=np.int64) + r0)
                cols.append(np.asarray(c, dtype=np.int64))
            r0 += ev.m
        vals = np.concatenate(vals) if vals else np.zeros(0)
        if not vals.size:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        if build:
            patterns["Gbar"] = self._pattern(rows, cols)
        rows, cols, keep = patterns["Gbar"]
        if keep.size != vals.size:  # not the pattern of the first call: build it again
            del patterns["Gbar"]
            return self._midpoint_triplets(u0, u1, rotations)
        return rows, cols, vals[keep]

    # ------------------------------------------------------------------ dense blocks
    # The joints touch the variables of a few nodes only (``variables``); the solvers'
    # Newton loops take the Jacobians and curvatures as dense blocks over those columns
    # (femb.solvers.linalg.nullspace.ColumnBlock), without building sparse matrices.
    @property
    def variables(self):
        """Sorted variables (k,) any joint row involves (the columns of the blocks)."""
        if getattr(self, "_vars", None) is None:
            # the pattern of G holds every variable of the curvature terms, too; the
            # evaluators keep the state of their last evaluation (for ``hessian``), so this
            # probe at u = 0 leaves them as it found them
            saved = [dict(ev.__dict__) for ev in self.evaluators]
            u = np.zeros(self.table.n_var)
            self._set_variables(self._jacobian_triplets(u, 0.0, None)[2])
            for ev, state in zip(self.evaluators, saved):
                ev.__dict__.clear()
                ev.__dict__.update(state)
        return self._vars

    def _set_variables(self, cols):
        self._vars = np.unique(np.asarray(cols, dtype=np.int64))
        self._vpos = np.full(self.table.n_var, -1, dtype=np.int64)
        self._vpos[self._vars] = np.arange(self._vars.size)

    def _block(self, n_rows, rows, cols, vals, square=False):
        """Dense (n_rows, k) array (square: (k, k), rows are variables too) of triplets."""
        cols = np.asarray(cols, dtype=np.int64)
        vars_ = self.variables
        pos = self._vpos[cols]
        rpos = self._vpos[rows] if square else rows
        if np.any(pos < 0) or np.any(rpos < 0):  # a variable outside the block: widen it
            self._set_variables(np.concatenate([vars_, cols] + ([rows] if square else [])))
            return self._block(n_rows, rows, cols, vals, square)
        k = self._vars.size
        nr = k if square else n_rows
        return np.bincount(rpos * k + pos, weights=vals, minlength=nr * k).reshape(nr, k)

    def _block_fast(self, n_rows, rows, cols, vals):
        """``_block`` for the cached Jacobian patterns (the flat indices kept per pattern)."""
        cache = self.__dict__.setdefault("_flat", {})
        entry = cache.get(id(rows))
        if entry is None or entry[0] is not rows or entry[1] is not cols or entry[3] != self.variables.size:
            A = self._block(n_rows, rows, cols, vals)
            k = self._vars.size
            cache[id(rows)] = (rows, cols, rows * k + self._vpos[cols], k)
            return A
        k = entry[3]
        return np.bincount(entry[2], weights=vals, minlength=n_rows * k).reshape(n_rows, k)

    def evaluate_block(self, u, t=0.0, rotations=None):
        """(Φ (m,), G (m, k) dense over ``variables``) at state u (as ``evaluate``). The
        block's columns are ``self.variables`` after the call."""
        phi, rows, cols, vals = self._jacobian_triplets(u, t, rotations)
        return phi, self._block_fast(self.m, rows, cols, vals)

    def midpoint_jacobian_block(self, u0, u1, rotations=None):
        """Ḡ (m, k) of ``midpoint_jacobian`` dense over ``variables``."""
        return self._block_fast(self.m, *self._midpoint_triplets(u0, u1, rotations))

    def hessian_block(self, lam):
        """Σ λ_i ∇²Φ_i (k, k) of ``hessian_term`` dense over ``variables``."""
        return self._square_block("hessian", lam)

    def midpoint_stiffness_block(self, lam):
        """∂(Ḡᵀλ)/∂Δu (k, k) of ``midpoint_stiffness`` dense over ``variables``."""
        return self._square_block("midpoint_stiffness", lam)

    def _square_block(self, method, lam):
        """Dense (k, k) block of the square triplets of the evaluators' ``method``
        (``hessian`` or ``midpoint_stiffness``). When every evaluator returns the same
        (rows, cols) arrays as on the previous call (a pattern fixed by the joints), the
        entries kept and their flat positions in the block are reused: only the values
        are summed."""
        parts = [getattr(ev, method)(part) for ev, part in self._per_evaluator(lam)]
        cache = self.__dict__.setdefault("_square_flat", {})
        entry = cache.get(method)
        k = self.variables.size
        if (entry is None or entry[3] != k or len(entry[0]) != len(parts)
                or any(a is not r or b is not c for (a, b), (r, c, _) in zip(entry[0], parts))):
            rows, cols, vals = self._square_triplets(parts)
            A = self._block(0, rows, cols, vals, square=True)
            k = self._vars.size
            keeps = [(np.asarray(r) >= 0) & (np.asarray(c) >= 0) for r, c, _ in parts]
            flat = self._vpos[rows] * k + self._vpos[cols]
            cache[method] = ([(r, c) for r, c, _ in parts], keeps, flat, k)
            return A
        _, keeps, flat, k = entry
        vals = np.concatenate([np.asarray(v, dtype=np.float64)[keep] for (_, _, v), keep in zip(parts, keeps)])
        return np.bincount(flat, weights=vals, minlength=k * k).reshape(k, k)

    def describe(self, rows):
        """Joint names of constraint rows (unique, in order)."""
        out = []
        for r in rows:
            name = self.row_joint[int(r)]
            if name not in out:
                out.append(name)
        return out
