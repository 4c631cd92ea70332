"""The weight of beam sections whose mass centre is off the node line, as the nodes turn.

A lumped beam element whose section has its mass centre at the lever d from the node line
(``ym``/``zm``: elements.beam3d.mass_points, elements.beam2d.mass_points) carries half its
mass m at each end as a point rigidly attached to the node, at x_a + R_a d. Its weight
W = m g acts there: the force W on the node's translations and the moment r × W, r = R_a d,
on its rotation. The fixed gravity vector (M·g with the lumped mass, femb.assembly.loads)
holds the reference moment d × W; ``OffsetWeights`` gives what turns with the node:

    ΔF_w = (R_a d − d) × W                 (3-D; spatial moment, conjugate to spatial spins)
    ΔF_θ = (R(θ_a) d − d) × W              (2-D; the scalar z-moment)

and the load stiffness K_L = −∂F/∂w of the moment r × W: −Ŵ r̂ per unit spatial spin
(δr = δw × r) in 3-D, r·W per unit rotation in 2-D (dr/dθ = e_z × r). Exact for any nodal
rotation; zero at the reference. Dynamics carries these points itself
(femb.solvers.dynamics.offset_points); this is for statics, buckling and other analyses
that take the weight as a load.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from femb.core.rotations import hat_batch
from femb.elements import beam2d, beam3d

_KERNELS_3D = {"beam3d": beam3d.mass_points, "beam3d_timoshenko": beam3d.mass_points}
_KERNELS_2D = {"beam2d": beam2d.mass_points, "beam2d_timoshenko": beam2d.mass_points}


class OffsetWeights:
    """The node-attached mass points of a table's beam blocks with a mass-centre offset.

    Attributes
    ----------
    m : (n_points,) masses; d : (n_points, dim) levers from the node at the reference
    node : (n_points,) the node each point is attached to
    rvar : (n_points, 3) the node's rotational variables (3-D) or (n_points,) its rz (2-D)
    """

    def __init__(self, table) -> None:
        self.table = table
        self.dim = int(table.dim)
        kernels = _KERNELS_3D if self.dim == 3 else _KERNELS_2D
        ms, ds, nodes, rvs = [], [], [], []
        for b in table.blocks:
            kernel = kernels.get(b.spec.name)
            params = b.spec.params
            cols = [params.index(k) for k in ("ym", "zm") if k in params]
            if kernel is None or not cols or not np.any(b.props[:, cols] != 0.0):
                continue
            n_el = b.n_elements
            m, d = np.zeros((n_el, 2)), np.zeros((n_el, 2, self.dim))
            kernel(np.ascontiguousarray(b.X[:, :, : self.dim], dtype=np.float64), np.ascontiguousarray(b.props), m, d)
            nd = b.var.shape[1] // 2
            var = b.var.reshape(n_el, 2, nd)
            keep = np.abs(d).reshape(-1, self.dim).sum(axis=1) > 0.0
            ms.append(m.reshape(-1)[keep])
            ds.append(d.reshape(-1, self.dim)[keep])
            nodes.append(b.cells.reshape(-1)[keep])
            rvs.append((var[:, :, 3:6] if self.dim == 3 else var[:, :, 2]).reshape(2 * n_el, -1)[keep])
        self.m = np.concatenate(ms) if ms else np.zeros(0)
        self.d = np.concatenate(ds) if ds else np.zeros((0, self.dim))
        self.node = np.concatenate(nodes).astype(np.int64) if nodes else np.zeros(0, dtype=np.int64)
        rv = np.concatenate(rvs).astype(np.int64) if rvs else np.zeros((0, 3 if self.dim == 3 else 1), dtype=np.int64)
        self.rvar = rv if self.dim == 3 else rv[:, 0]

    def __bool__(self) -> bool:
        return bool(self.m.size)

    def _levers(self, u, R):
        """r (n_points, dim): the levers at the state (u (n_var,), R (n_nodes, 3, 3); None: reference)."""
        if self.dim == 3:
            return self.d.copy() if R is None else np.einsum("pij,pj->pi", np.asarray(R)[self.node], self.d)
        if u is None:
            return self.d.copy()
        th = np.asarray(u)[self.rvar]
        c, s = np.cos(th), np.sin(th)
        return np.stack([c * self.d[:, 0] - s * self.d[:, 1], s * self.d[:, 0] + c * self.d[:, 1]], axis=1)

    def moment_change(self, u, R, g) -> np.ndarray:
        """(n_var,) the change (r − d) × m g of the points' weight moments from the reference
        one, at the state (u, R), for the gravity field g (dim,) (force per mass)."""
        out = np.zeros(self.table.n_var)
        if not self:
            return out
        W = self.m[:, None] * np.asarray(g, dtype=np.float64)[None, : self.dim]
        dr = self._levers(u, R) - self.d
        if self.dim == 3:
            np.add.at(out, self.rvar.ravel(), np.cross(dr, W).ravel())
        else:
            np.add.at(out, self.rvar, dr[:, 0] * W[:, 1] - dr[:, 1] * W[:, 0])
        return out

    def stiffness(self, u, R, g) -> sp.csr_matrix:
        """Load stiffness K_L = −∂F/∂w (CSR over the equations) of the points' weight moments
        r × m g at the state (u, R): −Ŵ r̂ per node (3-D, per unit spatial spin), r·W (2-D)."""
        t = self.table
        if not self:
            return sp.csr_matrix((t.n_eq, t.n_eq))
        W = self.m[:, None] * np.asarray(g, dtype=np.float64)[None, : self.dim]
        r = self._levers(u, R)
        if self.dim == 3:
            K = -np.einsum("pij,pjk->pik", hat_batch(W), hat_batch(r))
            eq = t.var_eq[self.rvar]  # (n_points, 3)
            rows = np.broadcast_to(eq[:, :, None], K.shape)
            cols = np.broadcast_to(eq[:, None, :], K.shape)
        else:
            K = np.einsum("pi,pi->p", r, W)
            rows = cols = t.var_eq[self.rvar]
        keep = (rows >= 0) & (cols >= 0)
        return sp.csr_matrix((K[keep], (rows[keep], cols[keep])), shape=(t.n_eq, t.n_eq))

