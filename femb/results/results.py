"""The Results container shared by every solver.

A run records *frames* (a time or load factor and the full variable vector u, optionally
velocities) and a *history* of scalars per step (energies, iterations, probes ...). Nodal
values are recovered through the CorrelationTable.
"""
import numpy as np


class Results:
    """Frames and histories of one analysis.

    Attributes
    ----------
    table : CorrelationTable
    kind : str ("static", "arclength", "dynamic", ...)
    times : list of float, the time or load factor of each frame
    states : list of (n_var,) arrays, u at each frame
    velocities : list of (n_var,) arrays (dynamics) or empty
    history : dict name -> list of float, one entry per recorded frame
    arrays : dict name -> list of arrays, one per recorded frame (e.g. reactions over the
        constrained variables ``table.constrained_vars``)
    info : dict of run information (settings, counts, timings)
    """

    def __init__(self, table, kind, model=None):
        self.table = table
        self.kind = kind
        self.model = model
        self.times = []
        self.states = []
        self.velocities = []
        self.history = {}
        self.arrays = {}
        self.info = {}

    def record(self, t, u, v=None, arrays=None, **scalars):
        """Append a frame (copies u and v) with scalar history values and per-frame arrays
        (e.g. ``arrays={"reactions": r}``)."""
        for key, val in (arrays or {}).items():
            self.arrays.setdefault(key, []).append(np.array(val, dtype=np.float64, copy=True))
        self.times.append(float(t))
        self.states.append(np.array(u, dtype=np.float64, copy=True))
        if v is not None:
            self.velocities.append(np.array(v, dtype=np.float64, copy=True))
        n = len(self.times)
        for key, val in scalars.items():
            col = self.history.setdefault(key, [np.nan] * (n - 1))
            col.append(float(val))
        for col in self.history.values():
            while len(col) < n:
                col.append(np.nan)

    def __len__(self):
        return len(self.times)

    @property
    def final(self):
        """The last state vector u (n_var,)."""
        return self.states[-1]

    def series(self, name):
        """A history column as an array."""
        return np.asarray(self.history[name], dtype=np.float64)

    def dof(self, node, dof, frame=None):
        """Value of DOF ``dof`` at ``node`` at one frame, or over all frames (array)."""
        var = self.table.var_of(node, dof)
        if frame is not None:
            return float(self.states[frame][var])
        return np.array([s[var] for s in self.states])

    def nodal_displacements(self, frame=-1):
        """(n_nodes, dim) translations at a frame (zero for DOFs a node does not carry)."""
        t = self.table
        out = np.zeros((t.node_var.shape[0], t.dim))
        u = self.states[frame]
        for k in range(t.dim):
            col = t.node_var[:, k]
            out[col >= 0, k] = u[col[col >= 0]]
        return out

    def nodal_rotations(self, frame=-1):
        """(n_nodes,) planar rotation rz (2-D models)."""
        t = self.table
        k = t.dof_names.index("rz")
        col = t.node_var[:, k]
        out = np.zeros(col.size)
        out[col >= 0] = self.states[frame][col[col >= 0]]
        return out
