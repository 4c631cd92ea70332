"""External load vectors over variables (n_var,).

Every load contributes to one of two groups: *scaled* loads (multiplied by the load
factor λ in statics, or by their amplitude a(t) in dynamics) and *constant* loads
(``constant=True``: applied in full throughout).

Moments of point loads with ``moment_type`` "semitangential" or "follower" at nodes with
3-D rotations depend on the nodal rotation R: they are not part of the fixed vectors but
are evaluated by ``moments(R, lam)`` (generalized forces conjugate to the nodal spins) and
``moment_stiffness(R, lam)`` (their load stiffness K_L = −∂F/∂w, to be added to the
tangent of r = f_int − f_ext), see femb.elements.loads3d.

Follower pressures depend on the current positions of their faces in the same way:
``state_forces(u, R, lam)`` and ``state_stiffness(u, R, lam)`` evaluate every
configuration-dependent load (these moments and the follower pressures, femb.core.surfaces)
and its exact load stiffness. Dead pressures, tractions and edge loads are fixed vectors on
the reference geometry.

Gravity on bodies whose inertia is carried by mass points (Craig–Bampton superelements with
a mass distribution, elements.superelement_inertia) is configuration-dependent too: their
weight is the exact Σ_j m_j J_jᵀ g of the points x_j(q), which turns with the body, not the
constant reference vector M_r·g. The fixed gravity vector keeps M·g of every element (the
time integrators take those blocks' share out themselves and apply the weight to the
points); ``state_forces`` adds the difference (exact weight − reference share) of those
blocks and ``state_stiffness`` its load stiffness (``PointFields``). Likewise the weight of
lumped beam sections whose mass centre is off the node line acts about a lever that turns
with the node: ``state_forces`` adds the change of its moment from the fixed vector's
reference one (femb.assembly.offset_weights).
"""
import numpy as np
import scipy.sparse as sp

from femb.assembly.assembler import Assembler
from femb.assembly.offset_weights import OffsetWeights
from femb.core.errors import ModelError
from femb.core.scatter import matvec_blocks, scatter_matrix
from femb.core.surfaces import pressure_forces, pressure_stiffness, traction_forces
from femb.elements.loads3d import follower_moment, follower_moment_stiffness, semitangential_moment, semitangential_moment_stiffness
from femb.elements.superelement_inertia import field_force, field_force_derivative, point_matrices
from femb.elements.superelement_step import n_points
from femb.model.loads import DistributedLoad, EdgeLoad, Gravity, PointLoad, Pressure, Traction, evaluate_amplitude
from femb.model.model import edge_nodes

ROTATIONS = ("rx", "ry", "rz")
TRANSLATIONS = ("ux", "uy", "uz")
_MOMENT_FUNCTIONS = {
    "semitangential": (semitangential_moment, semitangential_moment_stiffness),
    "follower": (follower_moment, follower_moment_stiffness),
}


def gravity_field(table, g):
    """(n_var,) the uniform acceleration field g (its dim components) over the translational
    variables of ``table`` (zero on the others): M·field is the weight of the masses."""
    field = np.zeros(table.n_var)
    for k, value in enumerate(g):
        col = table.node_var[:, k]
        field[col[col >= 0]] = value
    return field


class PointFields:
    """Fields acting on the mass points of the blocks that carry them (superelements with a
    mass distribution; elements.superelement_inertia): forces, their derivatives and the
    points' mass and gyroscopic matrices, assembled over the table.

    Attributes
    ----------
    blocks : list of int, the indices of those blocks in ``table.blocks``
    """

    def __init__(self, table, assembler):
        self.table = table
        self.assembler = assembler
        self.blocks = [i for i, b in enumerate(table.blocks) if b.spec.kernels.midpoint_step is not None
                       and any(n_points(row, b.spec.n_edof) for row in b.props)]

    def __bool__(self):
        return bool(self.blocks)

    def parts(self):
        """Names of the parts whose inertia is carried by mass points."""
        return [self.table.blocks[i].part for i in self.blocks]

    def _each(self, u, R):
        """(block, X, ue, Re) of each point block at the state u (n_var,; None: reference)
        and nodal rotations R (None: from u)."""
        asm = self.assembler
        u = np.zeros(self.table.n_var) if u is None else np.asarray(u, dtype=np.float64)
        for block, _, args in asm.loop.each(*asm._state(u, R), only=self.blocks):
            yield block, args[0], args[1], args[2]

    def _scatter(self, matrices):
        data = self.table.new_matrix_data()
        for i, Ke in matrices:
            scatter_matrix(self.table.blocks[i].pos, Ke, data)
        return self.table.csr(data)

    def force(self, u, R, a0, A=None):
        """(f (n_var,), V): the generalized force Σ_j m_j J_jᵀ (a0 + A x_j) of the field on
        the points and its potential −Σ_j m_j (a0·x_j + ½ x_jᵀ A x_j) (a0 (3,), A (3, 3)
        symmetric, acceleration units; A None: uniform field)."""
        a0 = np.asarray(a0, dtype=np.float64)
        A = np.zeros((3, 3)) if A is None else np.asarray(A, dtype=np.float64)
        out = np.zeros(self.table.n_var)
        V = 0.0
        for block, X, ue, Re in self._each(u, R):
            f = np.zeros(ue.shape)
            e = np.zeros(X.shape[0])
            field_force(X, ue, Re, block.props, a0, A, f, e)
            mask = block.var >= 0
            np.add.at(out, block.var[mask], f[mask])
            V += float(e.sum())
        return out, V

    def derivative(self, u, R, a0, A=None):
        """∂f/∂q (CSR over the equations; spin columns per unit spatial spin) of ``force``:
        minus the load stiffness."""
        a0 = np.asarray(a0, dtype=np.float64)
        A = np.zeros((3, 3)) if A is None else np.asarray(A, dtype=np.float64)
        parts = []
        for (block, X, ue, Re), i in zip(self._each(u, R), self.blocks):
            f = np.zeros(ue.shape)
            K = np.zeros((X.shape[0], ue.shape[1], ue.shape[1]))
            field_force_derivative(X, ue, Re, block.props, a0, A, f, K)
            parts.append((i, K))
        return self._scatter(parts)

    def matrices(self, u, R, omega=(0.0, 0.0, 0.0)):
        """(M, G) CSR over the equations: the points' mass Σ m_j J_jᵀJ_j and gyroscopic
        matrix Σ m_j J_jᵀ 2ω̂ J_j in a frame turning at ``omega`` (3,) [rad/time]."""
        om = np.asarray(omega, dtype=np.float64)
        Ms, Gs = [], []
        for (block, X, ue, Re), i in zip(self._each(u, R), self.blocks):
            m = ue.shape[1]
            M = np.zeros((X.shape[0], m, m))
            G = np.zeros_like(M)
            point_matrices(X, ue, Re, block.props, om, M, G)
            Ms.append((i, M))
            Gs.append((i, G))
        return self._scatter(Ms), self._scatter(Gs)


def _is_configuration_dependent(load, dim):
    return isinstance(load, PointLoad) and dim == 3 and load.moment_type != "dead" and any(k in load.values for k in ROTATIONS)


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
        self._moments = self._moment_records()
        self._followers = [(load, *self._faces(load.cells, load.name)) for load in model.loads
                           if isinstance(load, Pressure) and load.kind == "follower"]
        self.point_fields = PointFields(table, self.assembler) if table.dim == 3 else None
        self._point_gravity = self._point_gravity_records()
        # lumped sections with their mass centre off the node line: the weight's lever turns
        # with the node (femb.assembly.offset_weights)
        gravity = [load for load in model.loads if isinstance(load, Gravity)]
        weights = OffsetWeights(table) if gravity and int(mass_kind) == 0 else None
        self._offset_weights = weights if weights else None
        self._offset_gravity = gravity if self._offset_weights is not None else []

    # ------------------------------------------------------------------ moment loads
    def _moment_records(self):
        """(load, node, var (3,), M (3,), force function, stiffness function) of every
        configuration-dependent nodal moment."""
        t = self.table
        out = []
        for load in self.model.loads:
            if not _is_configuration_dependent(load, t.dim):
                continue
            M = np.array([load.values.get(k, 0.0) for k in ROTATIONS])
            for node in self.model.nodes(load.nodes):
                cols = [t.dof_names.index(k) for k in ROTATIONS]
                var = t.node_var[int(node), cols]
                if np.any(var < 0):
                    raise ModelError(f"{load.name}: a {load.moment_type} moment needs a node with 3-D rotations; node {int(node)} has none")
                out.append((load, int(node), np.asarray(var, dtype=np.int64), M, *_MOMENT_FUNCTIONS[load.moment_type]))
        return out

    # ------------------------------------------------------------------ gravity on mass points
    def _point_gravity_records(self):
        """(load, field g (3,), share (n_var,)) of every gravity load when the model has
        blocks with mass points: the share is the part of the fixed gravity vector those
        blocks' reference mass contributes (M_r·g), which ``state_forces`` replaces by the
        exact weight of their points."""
        pf = self.point_fields
        if not pf or not any(isinstance(load, Gravity) for load in self.model.loads):
            return []
        masses = self.assembler.element_masses(self.mass_kind)
        out = []
        for load in self.model.loads:
            if isinstance(load, Gravity):
                field = gravity_field(self.table, load.g)
                share = np.zeros(self.table.n_var)
                for i in pf.blocks:
                    matvec_blocks(self.table.blocks[i].var, masses[i], field, share)
                g = np.zeros(3)
                g[: len(load.g)] = load.g
                out.append((load, g, share))
        return out

    def _point_gravity_field(self, lam, t, scaled, constant):
        """(g (3,), share (n_var,)) of the gravity loads of the selected groups at their factors."""
        g = np.zeros(3)
        share = np.zeros(self.table.n_var)
        for load, field, sh in self._point_gravity:
            if (load.constant and not constant) or (not load.constant and not scaled):
                continue
            c = self._factor(load, lam, t)
            g += c * field
            share += c * sh
        return g, share

    def point_weight(self, u, R, lam=None, t=None, scaled=True, constant=True):
        """(f (n_var,), V): the exact weight Σ_j m_j J_jᵀ g of the mass points at the state
        (u, R) (None: reference) under the selected gravity loads at their factors (as in
        ``moments``), and its potential −Σ_j m_j g·x_j."""
        if not self._point_gravity:
            return np.zeros(self.table.n_var), 0.0
        g, _ = self._point_gravity_field(lam, t, scaled, constant)
        return self.point_fields.force(u, R, g)

    def _offset_gravity_field(self, lam, t, scaled, constant):
        """g (3,): the gravity loads of the selected groups at their factors."""
        g = np.zeros(3)
        for load in self._offset_gravity:
            if (load.constant and not constant) or (not load.constant and not scaled):
                continue
            g[: len(load.g)] += self._factor(load, lam, t) * np.asarray(load.g, dtype=np.float64)
        return g

    @property
    def has_point_gravity(self):
        """True when gravity acts on blocks whose inertia is carried by mass points."""
        return bool(self._point_gravity)

    @property
    def has_moment_loads(self):
        """True when some moment depends on the nodal rotations (3-D semitangential or
        follower moments)."""
        return bool(self._moments)

    def _factor(self, load, lam, t):
        if load.constant:
            return 1.0
        return (1.0 if t is None else evaluate_amplitude(load.amplitude, t)) if lam is None else lam

    def moments(self, R, lam=None, t=None, scaled=True, constant=True):
        """Generalized nodal forces (n_var,) of the rotation-dependent moments at nodal
        rotations R (n_nodes, 3, 3) (None: reference, R = I). Scaled moments are multiplied
        by the load factor ``lam`` (statics) or, when ``lam`` is None, by their amplitude
        at time ``t`` (1 when both are None); constant ones act in full. ``scaled`` /
        ``constant`` select the groups."""
        out = np.zeros(self.table.n_var)
        for load, node, var, M, force, _ in self._moments:
            if (load.constant and not constant) or (not load.constant and not scaled):
                continue
            c = self._factor(load, lam, t)
            if c != 0.0:
                out[var] += force(c * M, np.eye(3) if R is None else R[node])
        return out

    def moment_stiffness(self, R, lam=None, t=None, scaled=True, constant=True, spin_map=None):
        """Load stiffness (CSR over the equations, n_eq × n_eq) of the rotation-dependent
        moments, K_L = −∂F/∂w (to be added to the tangent of f_int − f_ext); None when the
        model has no such moments. Arguments as in ``moments``; ``spin_map`` (n_nodes, 3, 3),
        optional: the spin of each node's R per unit of the unknowns of a step (the
        columns become K_L · spin_map[node])."""
        if not self._moments:
            return None
        tab = self.table
        rows, cols, vals = [], [], []
        for load, node, var, M, _, stiffness in self._moments:
            if (load.constant and not constant) or (not load.constant and not scaled):
                continue
            c = self._factor(load, lam, t)
            eq = tab.var_eq[var]
            if c == 0.0 or np.all(eq < 0):
                continue
            KL = stiffness(c * M, np.eye(3) if R is None else R[node])
            if spin_map is not None:
                KL = KL @ spin_map[node]
            for i in range(3):
                for j in range(3):
                    if eq[i] >= 0 and eq[j] >= 0:
                        rows.append(eq[i])
                        cols.append(eq[j])
                        vals.append(KL[i, j])
        return sp.csr_matrix((vals, (rows, cols)), shape=(tab.n_eq, tab.n_eq))

    # ------------------------------------------------------------------ follower pressures
    def _points3(self):
        x = np.asarray(self.model.mesh.points, dtype=np.float64)
        return x if x.shape[1] == 3 else np.hstack([x, np.zeros((x.shape[0], 3 - x.shape[1]))])

    def _faces(self, cells, where):
        """(reference positions (n, k, 3), translational variables (n, k, 3)) of the faces
        of a cell set."""
        t = self.table
        if t.dim != 3:
            raise ModelError(f"{where}: surface loads need a 3-D model")
        conn = np.asarray(self.model.mesh.cells[cells].connectivity, dtype=np.int64)
        var = t.node_var[:, [t.dof_names.index(k) for k in TRANSLATIONS]][conn]
        if np.any(var < 0):
            raise ModelError(f"{where}: nodes {np.unique(conn[(var < 0).any(axis=2)])[:10].tolist()} of cell set {cells!r} carry no translations")
        return self._points3()[conn], var

    @property
    def has_follower_pressures(self):
        """True when the model has follower pressures."""
        return bool(self._followers)

    @property
    def has_state_loads(self):
        """True when some load depends on the configuration (rotation-dependent moments,
        follower pressures, gravity on mass points): see ``state_forces`` and
        ``state_stiffness``."""
        return bool(self._moments or self._followers or self._point_gravity or self._offset_gravity)

    def _follower_terms(self, u, lam, t, scaled, constant):
        for load, X, var in self._followers:
            if (load.constant and not constant) or (not load.constant and not scaled):
                continue
            c = self._factor(load, lam, t)
            if c != 0.0:
                x = X if u is None else X + u[var]
                yield c * load.p, x, var

    def follower_pressure_forces(self, u, lam=None, t=None, scaled=True, constant=True):
        """Generalized forces (n_var,) of the follower pressures on the current faces
        x = X + u (u None: the reference). Factors as in ``moments``."""
        out = np.zeros(self.table.n_var)
        for p, x, var in self._follower_terms(u, lam, t, scaled, constant):
            np.add.at(out, var.ravel(), pressure_forces(x, p).ravel())
        return out

    def follower_pressure_stiffness(self, u, lam=None, t=None, scaled=True, constant=True):
        """Load stiffness (CSR over equations) K_L = −∂F/∂u of the follower pressures at u,
        the exact derivative (femb.core.surfaces): non-symmetric face by face, symmetric once
        assembled over a closed surface or one with held edges."""
        tab = self.table
        rows, cols, vals = [], [], []
        for p, x, var in self._follower_terms(u, lam, t, scaled, constant):
            ke = -pressure_stiffness(x, p)  # (n, 3k, 3k)
            eq = tab.var_eq[var.reshape(var.shape[0], -1)]  # (n, 3k)
            r = np.broadcast_to(eq[:, :, None], ke.shape)
            c = np.broadcast_to(eq[:, None, :], ke.shape)
            keep = (r >= 0) & (c >= 0)
            rows.append(r[keep])
            cols.append(c[keep])
            vals.append(ke[keep])
        if not rows:
            return sp.csr_matrix((tab.n_eq, tab.n_eq))
        return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(tab.n_eq, tab.n_eq))

    def state_forces(self, u, R, lam=None, t=None, scaled=True, constant=True):
        """Generalized forces (n_var,) of the configuration-dependent loads at the state
        (u, R) (None: the reference): the rotation-dependent moments (``moments``) plus the
        follower pressures on the current faces x = X + u. Factors as in ``moments``."""
        out = self.moments(R, lam, t, scaled, constant) if self._moments else np.zeros(self.table.n_var)
        if self._followers:
            out += self.follower_pressure_forces(u, lam, t, scaled, constant)
        if self._point_gravity:  # the exact weight of the mass points replaces their blocks' share M_r·g
            g, share = self._point_gravity_field(lam, t, scaled, constant)
            if np.any(g):
                out += self.point_fields.force(u, R, g)[0] - share
        if self._offset_gravity:  # the weight of offset mass centres about their turned levers
            out += self._offset_weights.moment_change(u, R, self._offset_gravity_field(lam, t, scaled, constant))
        return out

    def state_stiffness(self, u, R, lam=None, t=None, scaled=True, constant=True):
        """Load stiffness (CSR over equations) K_L = −∂F/∂q of the configuration-dependent
        loads at (u, R), to be added to the tangent of f_int − f_ext; None without such
        loads (``moment_stiffness`` + ``follower_pressure_stiffness`` + the load stiffness of
        gravity on mass points, ``PointFields.derivative``)."""
        if not self.has_state_loads:
            return None
        tab = self.table
        K = self.moment_stiffness(R, lam, t, scaled, constant) if self._moments else sp.csr_matrix((tab.n_eq, tab.n_eq))
        if self._followers:
            K = K + self.follower_pressure_stiffness(u, lam, t, scaled, constant)
        if self._point_gravity:
            g, _ = self._point_gravity_field(lam, t, scaled, constant)
            if np.any(g):
                K = K - self.point_fields.derivative(u, R, g)
        if self._offset_gravity:
            K = K + self._offset_weights.stiffness(u, R, self._offset_gravity_field(lam, t, scaled, constant))
        return K

    # ------------------------------------------------------------------ fixed vectors
    def _vector(self, load):
        t = self.table
        out = np.zeros(t.n_var)
        if isinstance(load, PointLoad):
            skip = ROTATIONS if _is_configuration_dependent(load, t.dim) else ()
            for node in self.model.nodes(load.nodes):
                for dof, val in load.values.items():
                    if dof not in skip:
                        out[t.var_of(int(node), dof)] += val
        elif isinstance(load, Gravity):
            out += self.assembler.mass_times(gravity_field(t, load.g), self.mass_kind)
        elif isinstance(load, DistributedLoad):
            out += self._distributed(load)
        elif isinstance(load, Pressure) and load.kind == "dead":
            X, var = self._faces(load.cells, load.name)
            np.add.at(out, var.ravel(), pressure_forces(X, load.p).ravel())
        elif isinstance(load, Traction):
            X, var = self._faces(load.cells, load.name)
            np.add.at(out, var.ravel(), traction_forces(X, load.t).ravel())
        elif isinstance(load, EdgeLoad):
            out += self._edges(load)
        return out

    def _edges(self, load):
        """qL/2 on the translations of both ends of every edge (reference lengths)."""
        t = self.table
        ends = edge_nodes(self.model, load.edges, load.name)
        x = np.asarray(self.model.mesh.points, dtype=np.float64)
        L = np.linalg.norm(x[ends[:, 1]] - x[ends[:, 0]], axis=1)
        out = np.zeros(t.n_var)
        for k, q in enumerate(load.q):
            var = t.node_var[ends, t.dof_names.index(TRANSLATIONS[k])]
            if np.any(var < 0):
                raise ModelError(f"{load.name}: nodes {np.unique(ends[var < 0])[:10].tolist()} of edge set {load.edges!r} carry no {TRANSLATIONS[k]}")
            np.add.at(out, var.ravel(), np.repeat(0.5 * q * L, 2))
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
        """Sum of the non-constant loads; with time ``t`` each times its amplitude a(t)
        (rotation-dependent moments excluded, see ``moments``)."""
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
        """True when some scaled load has a time amplitude."""
        return any(load.amplitude is not None and not load.constant for load, _ in self._vectors)
