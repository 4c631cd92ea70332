"""External load vectors over variables (n_var,).

Every load contributes to one of two groups: *scaled* loads (multiplied by the load
factor λ in statics, or by their amplitude a(t) in dynamics) and *constant* loads
(``constant=True``: applied in full throughout).
"""
import numpy as np

from femb.assembly.assembler import Assembler
from femb.model.loads import DistributedLoad, Gravity, PointLoad, evaluate_amplitude


class LoadAssembler:
    """Nodal load vectors of a Model on a CorrelationTable.

    Distributed loads are dead loads per unit reference length, lumped consistently on
    the reference geometry (translations: qL/2 per node; for elements with rotations also
    the end moments ±qL²/12 of the Hermite interpolation). Gravity uses the element mass
    matrices of ``mass_kind`` times the uniform acceleration field, so it is consistent with
    the inertia the integrators use.
    """

    def __init__(self, model, table, assembler=None, mass_kind=0):
        self.model = model
        self.table = table
        self.assembler = assembler or Assembler(table)
        self.mass_kind = mass_kind
        self._vectors = [(load, self._vector(load)) for load in model.loads]

    def _vector(self, load):
        t = self.table
        out = np.zeros(t.n_var)
        if isinstance(load, PointLoad):
            for node in self.model.nodes(load.nodes):
                for dof, val in load.values.items():
                    out[t.var_of(int(node), dof)] += val
        elif isinstance(load, Gravity):
            field = np.zeros(t.n_var)
            for k, g in enumerate(load.g):
                col = t.node_var[:, k]
                field[col[col >= 0]] = g
            out += self.assembler.mass_times(field, self.mass_kind)
        elif isinstance(load, DistributedLoad):
            out += self._distributed(load)
        return out

    def _distributed(self, load):
        t = self.table
        out = np.zeros(t.n_var)
        q = np.asarray(load.q, dtype=np.float64)
        names = t.dof_names
        for block in t.blocks:
            if self.model.parts[block.part].cells != load.cells:
                continue
            X = block.X
            d = X[:, -1, :] - X[:, 0, :]
            L = np.linalg.norm(d, axis=1)
            fe = np.zeros((block.n_elements, block.spec.n_edof))
            nd = len(block.spec.node_dofs)
            trans = [block.spec.node_dofs.index(n) for n in names[: t.dim] if n in block.spec.node_dofs]
            for a in range(block.spec.n_nodes):
                for k, col in enumerate(trans):
                    fe[:, a * nd + col] = q[k] * L / block.spec.n_nodes
            rot = [n for n in block.spec.node_dofs if n.startswith("r")]
            if t.dim == 2 and "rz" in rot and block.spec.n_nodes == 2:
                e = d / L[:, None]
                q_perp = e[:, 0] * q[1] - e[:, 1] * q[0]  # component normal to the element
                col = block.spec.node_dofs.index("rz")
                fe[:, col] += q_perp * L**2 / 12.0
                fe[:, nd + col] -= q_perp * L**2 / 12.0
            elif t.dim == 3 and rot and block.spec.n_nodes == 2:
                e = d / L[:, None]
                m = np.cross(e, q) * (L**2 / 12.0)[:, None]  # moment vector of the Hermite load
                for k, name in enumerate(("rx", "ry", "rz")):
                    if name in block.spec.node_dofs:
                        col = block.spec.node_dofs.index(name)
                        fe[:, col] += m[:, k]
                        fe[:, nd + col] -= m[:, k]
            np.add.at(out, block.var[block.var >= 0], fe[block.var >= 0])
        return out

    def scaled(self, t=None):
        """Sum of the non-constant loads; with time ``t`` each times its amplitude a(t)."""
        out = np.zeros(self.table.n_var)
        for load, vec in self._vectors:
            if not load.constant:
                out += vec if t is None else evaluate_amplitude(load.amplitude, t) * vec
        return out

    def constant(self):
        """Sum of the loads declared constant."""
        out = np.zeros(self.table.n_var)
        for load, vec in self._vectors:
            if load.constant:
                out += vec
        return out

    def total(self, t):
        """All loads at time ``t`` (dynamics): constant + Σ a_i(t)·f_i."""
        return self.constant() + self.scaled(t)

    def has_time_dependence(self):
        return any(load.amplitude is not None and not load.constant for load, _ in self._vectors)
