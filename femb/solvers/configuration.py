"""Configurations with nodal rotations: the state of 3-D models with oriented nodes.

In a 3-D model every node that carries rotational DOFs (rx, ry, rz) has a rotation matrix
R (3, 3) relative to its reference orientation (identity in the reference state). The
solvers update it multiplicatively with the spatial spin increments δw of the rotational
equations, R ← exp(δŵ) R (femb.core.rotations.spin_update); rotation vectors are never
added. The rotational slots of the variable vector ``u`` hold the rotation vector log R
(|θ| ≤ π) for output and probes only; element kernels ignore them.

- ``RotationLayout(table)``: which nodes are oriented and where their rotations live.
- ``Configuration(u, R, layout)``: the state (u (n_var,), R (n_nodes, 3, 3)) with
  ``apply(dx)`` (dx over the equations, translations additive, rotations multiplicative),
  ``copy()``, ``norm()``.

Prescribed rotations at oriented nodes are rotations about a fixed global axis: the node's
prescribed rotational DOFs give the rotation vector θ_p per unit load factor (fixed
components count as 0) and R = exp(λ θ̂_p). Every rotational DOF of such a node must be
fixed or prescribed; anything else raises a ModelError. In dynamics the prescribed rotation
vector follows the DOFs' time functions, θ_p(t) (``RotationLayout.prescribed_at``).

The Cayley maps of the energy-conserving dynamics (femb.solvers.dynamics.midpoint3d) are in
femb.core.rotations with every other rotation helper.
"""
from dataclasses import dataclass

import numpy as np

from femb.core.errors import ModelError
from femb.core.rotations import exp_batch, log_batch, spin_update

ROTATION_NAMES = ("rx", "ry", "rz")


class RotationLayout:
    """Oriented nodes of a CorrelationTable.

    Attributes
    ----------
    n_nodes : int, nodes of the mesh
    nodes : (k,) int64, the oriented nodes (3-D models: nodes carrying rx, ry, rz)
    var : (k, 3) int64, their rotational variables
    eq : (k, 3) int64, equations of those variables (-1 when fixed or prescribed)
    prescribed : list of (row into ``nodes``, θ_p (3,)) rotations about a global axis
    """

    def __init__(self, table):
        self.table = table
        self.n_nodes = table.node_var.shape[0]
        self.prescribed = []
        self._records = []
        self._record_rows = np.zeros(0, dtype=np.int64)
        if table.dim != 3:
            self.nodes = np.zeros(0, dtype=np.int64)
            self.var = np.zeros((0, 3), dtype=np.int64)
            self.eq = np.zeros((0, 3), dtype=np.int64)
            return
        cols = [table.dof_names.index(n) for n in ROTATION_NAMES]
        rot = table.node_var[:, cols]
        has = rot >= 0
        partial = np.flatnonzero(has.any(axis=1) & ~has.all(axis=1))
        if partial.size:
            raise ModelError(f"node(s) {partial[:10].tolist()} carry some but not all of rx, ry, rz: "
                             "3-D rotations need all three")
        self.nodes = np.flatnonzero(has.all(axis=1)).astype(np.int64)
        self.var = np.ascontiguousarray(rot[self.nodes], dtype=np.int64)
        self.eq = np.ascontiguousarray(table.var_eq[self.var], dtype=np.int64)
        self._prescribed_rotations()

    @property
    def n(self):
        """Number of oriented nodes."""
        return self.nodes.size

    def _prescribed_rotations(self):
        # the rotational slots (row, k) of each prescribed variable, in the order of the
        # records, of their variables and of the slots (several slots when nodes are tied):
        # a lookup in the slots sorted by variable, with Python touching only the hits
        slots = self.var.reshape(-1)
        by_var = np.argsort(slots, kind="stable")
        sorted_vars = slots[by_var]
        theta = {}
        records = {}
        for vars_, rec in self.table.prescribed:
            lo = np.searchsorted(sorted_vars, vars_, side="left")
            hi = np.searchsorted(sorted_vars, vars_, side="right")
            for a, b in zip(lo[hi > lo].tolist(), hi[hi > lo].tolist()):
                for slot in by_var[a:b].tolist():
                    row, k = divmod(slot, 3)
                    theta.setdefault(row, np.zeros(3))[k] = rec.value
                    records.setdefault(row, []).append((k, rec))
        for row, th in sorted(theta.items()):
            if np.any(self.eq[row] >= 0):
                node = int(self.nodes[row])
                free = [ROTATION_NAMES[k] for k in range(3) if self.eq[row, k] >= 0]
                raise ModelError(f"node {node}: a prescribed rotation in 3-D must be a rotation about a global "
                                 f"axis: fix or prescribe its other rotational DOFs too (free: {', '.join(free)})")
            self.prescribed.append((row, th))
        # the table is frozen: the records of the prescribed rotational DOFs are built once
        self._records = sorted(records.items())
        self._record_rows = np.array([row for row, _ in self._records], dtype=np.int64)

    def prescribed_records(self):
        """[(row into ``nodes``, [(component k, Prescribed record), ...])] of the
        prescribed rotational DOFs (components not listed are fixed, i.e. 0)."""
        return [(row, list(items)) for row, items in self._records]

    def prescribed_at(self, value_of):
        """(rows (m,), R (m, 3, 3)) of the nodes with prescribed rotations, R = exp(θ̂) with
        θ_k = value_of(record) for each prescribed component (e.g. its time function at
        t)."""
        rows = self._record_rows.copy()
        R = np.empty((rows.size, 3, 3))
        if not rows.size:
            return rows, R
        th = np.zeros((rows.size, 3))
        for i, (_, items) in enumerate(self._records):
            for k, rec in items:
                th[i, k] = value_of(rec)
        exp_batch(th, R)
        return rows, R

    def identity(self):
        """(n_nodes, 3, 3) identity rotations."""
        return np.tile(np.eye(3), (self.n_nodes, 1, 1))

    def rotations_from_vectors(self, u):
        """(n_nodes, 3, 3) rotations R = exp(θ̂) of the rotation vectors θ held in the
        rotational slots of ``u`` (n_var,) (identity at nodes without rotations)."""
        R = self.identity()
        if self.n:
            Rn = np.empty((self.n, 3, 3))
            exp_batch(np.ascontiguousarray(u[self.var], dtype=np.float64), Rn)
            R[self.nodes] = Rn
        return R

    def write_vectors(self, u, R):
        """Set the rotational slots of ``u`` (in place) to log R of the oriented nodes."""
        if self.n:
            th = np.empty((self.n, 3))
            log_batch(np.ascontiguousarray(R[self.nodes]), th)
            u[self.var] = th
        return u

    def set_prescribed(self, u, R, lam):
        """Prescribed rotations at load factor λ: R = exp(λ θ̂_p) (in place, with u)."""
        if not self.prescribed:
            return
        rows = np.array([row for row, _ in self.prescribed])
        th = np.ascontiguousarray([lam * t for _, t in self.prescribed], dtype=np.float64)
        Rp = np.empty((rows.size, 3, 3))
        exp_batch(th, Rp)
        R[self.nodes[rows]] = Rp
        log = np.empty_like(th)
        log_batch(Rp, log)
        u[self.var[rows]] = log

    def spins(self, dx):
        """(k, 3) spatial spin increments of the oriented nodes from the equation
        increments ``dx`` (n_eq,) (zero for constrained components)."""
        w = np.zeros((self.n, 3))
        mask = self.eq >= 0
        w[mask] = dx[self.eq[mask]]
        return w


@dataclass
class Configuration:
    """State of a model with oriented nodes.

    u : (n_var,) float64, all variables (rotational slots: log R, output only)
    R : (n_nodes, 3, 3) float64, nodal rotations relative to the reference (identity at
        nodes without rotations)
    layout : RotationLayout
    """

    u: np.ndarray
    R: np.ndarray
    layout: RotationLayout

    @classmethod
    def reference(cls, layout):
        """The undeformed configuration (u = 0, R = I)."""
        return cls(np.zeros(layout.table.n_var), layout.identity(), layout)

    @classmethod
    def from_vector(cls, layout, u):
        """A configuration from a variable vector whose rotational slots hold rotation
        vectors (R = exp(θ̂); e.g. a frame of Results)."""
        u = np.array(u, dtype=np.float64, copy=True)
        R = layout.rotations_from_vectors(u)
        layout.write_vectors(u, R)
        return cls(u, R, layout)

    def copy(self):
        return Configuration(self.u.copy(), self.R.copy(), self.layout)

    def apply(self, dx, translate=None):
        """A new configuration after the increment ``dx`` (n_eq,) over the equations:
        u[translations] += dx, R ← exp(δŵ) R for the rotational increments (spatial spins),
        rotational slots of u set to log R. ``translate(u, du) -> u_new`` (du (n_var,) the
        increment over all variables), when given, replaces u + du for the variables (e.g.
        femb.solvers.nonlinear.chord_update.ChordUpdate.apply)."""
        lay = self.layout
        if translate is None:
            u = self.u.copy()
            u[lay.table.eq_var] += dx
        else:
            du = np.zeros_like(self.u)
            du[lay.table.eq_var] = dx
            u = translate(self.u, du)
        R = self.R.copy()
        if lay.n:
            Rn = np.ascontiguousarray(R[lay.nodes])
            spin_update(Rn, lay.spins(dx))
            R[lay.nodes] = Rn
            lay.write_vectors(u, R)
        return Configuration(u, R, lay)

    def norm(self):
        """Size of the state for relative increment tests: ‖u‖ (rotation vectors
        included)."""
        return float(np.linalg.norm(self.u))


def split_state(state):
    """(u, R) of a state: a Configuration or a plain variable vector (R None)."""
    if isinstance(state, Configuration):
        return state.u, state.R
    return state, None
