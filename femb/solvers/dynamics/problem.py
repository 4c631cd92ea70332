"""The discrete dynamic model shared by every time integrator.

``DynamicProblem`` is the problem set-up of a Model (femb.solvers.problem.ProblemSetup:
table, assembler, loads, joints, rotation layout, length scale, "oriented") with what the
schemes of femb.solvers.dynamics.schemes need besides: the constant mass in two layouts
(CSR over the equations, on the table's pattern, for the Newton matrix; CSR over all
variables for inertia forces and reactions on constrained DOFs), the rotary inertia of
oriented nodes, the time-dependent loads, the damping model, prescribed motions and the
initial state. Element assemblies of the steps run through the assembler's ElementLoop
into persistent buffers (``force``, ``K``).

Vectors over *variables* have shape (n_var,) and hold every DOF value, 2-D rotations as
additive angles θ (rad); vectors over *equations* (n_eq,) are their free part.
"""
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from femb.assembly.element_loop import material_stiffness
from femb.assembly.loads import gravity_field
from femb.core.errors import InputError, ModelError
from femb.core.rotations import hat_batch
from femb.core.scatter import matvec_blocks, scatter_matrix, scatter_vector
from femb.elements import MASS_KINDS
from femb.model.loads import Gravity
from femb.solvers.dynamics.offset_points import OffsetPoints, PlanarOffsetPoints
from femb.solvers.dynamics.point_inertia import PointInertia
from femb.solvers.dynamics.variable_mass import ConfigurationMass, VariableMass
from femb.solvers.problem import (
    ProblemSetup,
    full_matrix,
    nodal_body_inertia,
    reference_coordinates,
    rotary_columns,
    split_rotary_mass,
)

_EYE3 = np.eye(3)


@dataclass(frozen=True)
class Rayleigh:
    """Rayleigh damping C = alpha·M + beta·K_mat.

    K_mat is the *material* (stress-free) part of the element tangents evaluated at the
    configuration where the damping force acts (the step's mid-point in the
    energy-conserving scheme): co-rotational, positive semi-definite, and blind to rigid
    motion, so only strain rates are damped by ``beta``. ``alpha`` (1/time) damps every
    velocity, rigid-body motion included. beta has units of time.
    """

    alpha: float = 0.0
    beta: float = 0.0


def mass_kind_of(mass):
    """Integer mass kind (elements.base) from a name ("lumped", "consistent",
    "invariant") or an int."""
    if isinstance(mass, str):
        try:
            return MASS_KINDS[mass]
        except KeyError:
            raise ValueError(f"unknown mass kind {mass!r}; use one of {', '.join(MASS_KINDS)}") from None
    return int(mass)



def _diagonal_positions(table):
    """Position of each diagonal entry (n_eq,) in the CSR data of the table's pattern
    (-1 where the pattern has none)."""
    return table.entry_positions(np.arange(table.n_eq, dtype=np.int64).reshape(-1, 1)).reshape(-1)


class CompactBlockMass:
    """The element masses of one block kept by their entries that are nonzero in some
    element: a lumped beam mass has 6 of the 36 (beam2d) or, translational part, of the
    144 (beam3d) entries of its element matrix, so the dense (n_el, n_edof, n_edof) array
    would be 96 / 192 B/DOF of a beam chain against 16 / 8.

    Attributes
    ----------
    shape : (n_el, n_edof, n_edof) of the dense masses
    rows, cols : (k,) int64 element rows and columns of the kept entries
    values : (n_el, k) their values per element (zeros where one element has none)
    """

    def __init__(self, Me):
        self.shape = Me.shape
        rows, cols = np.nonzero(np.any(Me != 0.0, axis=0))
        self.rows, self.cols = rows.astype(np.int64), cols.astype(np.int64)
        self.values = Me[:, self.rows, self.cols]

    def dense(self):
        """The masses (n_el, n_edof, n_edof), bitwise those given to the constructor."""
        out = np.zeros(self.shape)
        out[:, self.rows, self.cols] = self.values
        return out


class NodalRotaryInertia:
    """Rotary inertia of the oriented nodes of a 3-D model, each node a rigid body.

    Parameters
    ----------
    table : CorrelationTable
    J_full : sparse (n_var, n_var), the rotary part of the assembled element masses
    layout : RotationLayout of the table (oriented nodes, their variables and equations)

    Attributes
    ----------
    layout : RotationLayout
    J0 : (k, 3, 3) body-frame inertia of each oriented node (the spatial inertia in the
        reference configuration, summed over the elements; zero for the second and later
        nodes that share rotational variables through a tie); spatial inertia R J0 Rᵀ
    J0_pinv : (k, 3, 3) pseudo-inverses (zero inertia allowed)
    pos : (k, 3, 3) positions of the (eq_i, eq_j) entries of the node's rotational block
        in the CSR data of the table's pattern (-1 where a component is constrained)
    """

    def __init__(self, table, J_full, layout):
        self.layout = lay = layout
        k = lay.n
        self.J0, self.owner = nodal_body_inertia(J_full, lay)
        self.J0_pinv = np.linalg.pinv(self.J0, hermitian=True) if k else np.zeros((0, 3, 3))
        # CSR positions of the (eq_a, eq_b) entries (-1 where the pattern has none)
        self.pos = table.entry_positions(lay.eq.reshape(k, 3))
        self.pos[~self.owner] = -1

    def spatial(self, R, pinv=False):
        """Spatial inertia R J0 Rᵀ (k, 3, 3) (or its pseudo-inverse) at the nodal
        rotations R (n_nodes, 3, 3)."""
        Rn = R[self.layout.nodes]
        J = self.J0_pinv if pinv else self.J0
        return Rn @ J @ Rn.transpose(0, 2, 1)

    def angular_velocity(self, R, pi, fallback):
        """Spatial angular velocities (k, 3) of momenta π (k, 3) at rotations R: J⁺π on the
        range of the inertia, ``fallback`` (k, 3) on its null space."""
        Rn = R[self.layout.nodes]
        Rt = Rn.transpose(0, 2, 1)
        Jp = Rn @ self.J0_pinv @ Rt
        J = Rn @ self.J0 @ Rt
        w = np.einsum("kij,kj->ki", Jp, pi)
        null = _EYE3 - Jp @ J
        return w + np.einsum("kij,kj->ki", null, fallback)


class DampingModel:
    """Viscous damping: Rayleigh (alpha M + beta K_mat(u)) plus discrete damper elements.

    ``evaluate(u, v)`` returns the damping force (n_var,) and the data (nnz,) of its
    velocity derivative C = ∂f_d/∂v at (u, v) over the equations on the table's pattern:
    f_d = C(u)·v for Rayleigh damping and linear dampers (element kernel ``damping``),
    the element's own (possibly nonlinear) force for types with a ``damper_force`` kernel
    (e.g. spring-dampers with a damper law F_d(v)). The solvers book f_d·Δu as the
    dissipated energy of a step, so it equals the work of the forces they apply.

    Models with 3-D rotations: the velocity measure of the rotational slots is the spatial
    angular velocity ω (rad/time) of each oriented node, so that v is conjugate to the
    spatial spins of the element tangents. The mass part is ``alpha`` times the
    translational mass on the translations and α J ω on the nodes, J = R J0 Rᵀ (3, 3) the
    spatial rotary inertia at the configuration where the force acts; the stiffness part is
    ``beta`` times the material tangent of the co-rotated elements (per unit spin), whose
    null space holds every infinitesimal rigid motion (w × x + c, w): a rigid motion is
    not damped by ``beta``.
    """

    def __init__(self, problem, rayleigh):
        self.p = problem
        self.alpha = float(rayleigh.alpha) if rayleigh else 0.0
        self.beta = float(rayleigh.beta) if rayleigh else 0.0
        blocks = problem.table.blocks
        self._dampers = [i for i, b in enumerate(blocks) if b.spec.kernels.damping is not None]
        self._blocks = list(range(len(blocks))) if self.beta != 0.0 else self._dampers

    @property
    def active(self):
        return self.alpha != 0.0 or self.beta != 0.0 or bool(self._dampers)

    def evaluate(self, u, v, rotations=None, column_map=None):
        """Damping force (n_var,) and matrix data (nnz,) at configuration u, velocity v
        (models with 3-D rotations: nodal ``rotations`` (n_nodes, 3, 3) for the oriented
        blocks and the rotary inertia, whose kernels take R after u; v holds spatial angular
        velocities in the rotational slots).

        ``column_map`` (n_nodes, 3, 3), optional: the derivative of the nodal angular
        velocities with respect to the unknowns of a step; the rotational columns of the
        returned matrix are multiplied by it (the force is unchanged)."""
        p, t = self.p, self.p.table
        force = np.zeros(t.n_var)
        data = t.new_matrix_data()
        if self.alpha:
            force += self.alpha * (p.M_full @ v)
            data += self.alpha * p.M_eq.data
            if rotations is not None and p.rotary is not None and p.rotary.layout.n:
                rot = p.rotary
                J = rot.spatial(rotations)
                w = v[rot.layout.var]
                m = self.alpha * np.einsum("kij,kj->ki", J, w)
                m[~rot.owner] = 0.0
                np.add.at(force, rot.layout.var.ravel(), m.ravel())
                Jc = J if column_map is None else J @ column_map[rot.layout.nodes]
                ok = rot.pos >= 0
                np.add.at(data, rot.pos[ok], self.alpha * Jc[ok])
        oriented = None if rotations is None else (u, rotations, v)
        for b, buf, args in p.assembler.loop.each((u, v), oriented, only=self._blocks):
            lead, ve = args[:-1], args[-1]  # (X, u[, R]) and the element velocities
            C = buf.work("damping", buf.K.shape)
            C[:] = 0.0
            if self.beta != 0.0:
                C += self.beta * material_stiffness(b, buf, lead)
            kernels = b.spec.kernels
            nonlinear = kernels.damper_force is not None
            Kd = buf.work("damper", buf.K.shape)
            if kernels.damping is not None and not nonlinear:
                kernels.damping(*lead, b.props, Kd)
                C += Kd
            matvec_blocks(b.var, C, v, force)  # Rayleigh part and linear dampers
            if nonlinear:  # the kernel's own force; C gets its derivative ∂f/∂v
                kernels.damper_force(*lead, ve, b.props, buf.f, Kd)
                scatter_vector(b.var, buf.f, force)
                C += Kd
            if column_map is not None and b.spec.oriented:
                _map_rotation_columns(C, b, column_map)
            scatter_matrix(b.pos, C, data)
        return force, data

    def configuration_derivative(self, u, v, rotations=None, translation_scale=1.0, column_map=None):
        """Data (nnz,) on the table's pattern of ∂f_d/∂q of the discrete damper elements at
        fixed velocities v (n_var,): translations per unit displacement, the rotations of
        oriented nodes per unit spatial spin of R (``rotations`` (n_nodes, 3, 3)). The damper
        axes and frames turn with the configuration (a spring-damper along its current
        chord, a rotational damper in the frame of its first node), so f_d = C(q) v changes
        with q at fixed v.

        Computed element by element by central differences of the damper kernels
        (translations ± ε_x, nodal rotations exp(±ε ê_k) R), all elements of a block at
        once: ε_x = 1e-6 × the model's length scale, ε = 1e-6 rad, so the truncation error is
        O(1e-12) and the rounding O(1e-10) of the entries.

        Chain rule to the unknowns of a step: the translational columns are multiplied by
        ``translation_scale`` (the mid-point step: ∂x_m/∂Δx = ½), the rotational columns
        by ``column_map`` (n_nodes, 3, 3) (the mid-point step: the spin of R_m per unit ψ)."""
        p, t = self.p, self.p.table
        data = t.new_matrix_data()
        if not self._dampers:
            return data
        eps_x = 1e-6 * max(float(getattr(p, "length_scale", 1.0) or 1.0), 1e-300)
        eps_r = 1e-6
        oriented = None if rotations is None else (u, rotations, v)
        for b, buf, args in p.assembler.loop.each((u, v), oriented, only=self._dampers):
            lead, ve = args[:-1], args[-1]
            X, ue = lead[0], lead[1].copy()
            Re = lead[2].copy() if b.spec.oriented else None
            n_el, n = ve.shape
            names = b.spec.node_dofs
            nd = len(names)
            out = np.zeros((n_el, n, n))
            for col in range(n):
                if b.var.shape[1] > col and np.all(b.var[:, col] < 0):
                    continue  # a column no element of the block moves
                a, k = divmod(col, nd)
                name = names[k] if a < b.spec.n_nodes else ""
                if name in ("ux", "uy", "uz"):
                    fp = self._damper_force(b, X, _shifted(ue, col, eps_x), Re, ve)
                    fm = self._damper_force(b, X, _shifted(ue, col, -eps_x), Re, ve)
                    out[:, :, col] = (fp - fm) * (translation_scale / (2.0 * eps_x))
                elif Re is not None and name in ("rx", "ry", "rz"):
                    axis = ("rx", "ry", "rz").index(name)
                    fp = self._damper_force(b, X, ue, _turned(Re, a, axis, eps_r), ve)
                    fm = self._damper_force(b, X, ue, _turned(Re, a, axis, -eps_r), ve)
                    out[:, :, col] = (fp - fm) / (2.0 * eps_r)
            if column_map is not None and Re is not None:
                _map_rotation_columns(out, b, column_map)
            scatter_matrix(b.pos, out, data)
        return data

    @staticmethod
    def _damper_force(block, X, ue, Re, ve):
        """Element damper forces (n_el, n_edof) of one block at (ue, Re) and velocities ve."""
        kernels = block.spec.kernels
        lead = (X, ue) if Re is None else (X, ue, Re)
        n_el, n = ve.shape
        f = np.zeros((n_el, n))
        C = np.zeros((n_el, n, n))
        if kernels.damper_force is not None:
            kernels.damper_force(*lead, ve, block.props, f, C)
            return f
        kernels.damping(*lead, block.props, C)
        return np.einsum("eij,ej->ei", C, ve)

    def rotary_spin_derivative(self, R, w):
        """(k, 3, 3) derivative of the rotary mass damping α J(R) w of each oriented node
        with respect to the spatial spin of its rotation R (w fixed): α (J ŵ − (J w)^)
        (zero blocks without ``alpha``)."""
        rot = self.p.rotary
        if not self.alpha or rot is None or not rot.layout.n:
            return np.zeros((0 if rot is None else rot.layout.n, 3, 3))
        J = rot.spatial(R)
        Jw = np.einsum("kij,kj->ki", J, w)
        out = self.alpha * (J @ hat_batch(w) - hat_batch(Jw))
        out[~rot.owner] = 0.0
        return out


def _shifted(ue, col, eps):
    """A copy of the element displacements ue (n_el, n_edof) with column ``col`` + eps."""
    out = ue.copy()
    out[:, col] += eps
    return out


def _turned(Re, a, axis, eps):
    """A copy of the element nodal rotations Re (n_el, n_nodes, 3, 3) with node a turned
    by exp(eps ê_axis) (a spatial spin)."""
    c, s = np.cos(eps), np.sin(eps)
    Q = np.eye(3)
    i, j = (axis + 1) % 3, (axis + 2) % 3
    Q[i, i], Q[i, j], Q[j, i], Q[j, j] = c, -s, s, c
    out = Re.copy()
    out[:, a] = Q @ Re[:, a]
    return out


def _rotation_columns(block):
    """(n_nodes, 3) element columns of the rotations rx, ry, rz of an oriented block
    (None for other blocks)."""
    names = block.spec.node_dofs
    if not block.spec.oriented or not all(r in names for r in ("rx", "ry", "rz")):
        return None
    nd = len(names)
    return np.array([[a * nd + names.index(r) for r in ("rx", "ry", "rz")] for a in range(block.spec.n_nodes)],
                    dtype=np.int64)


def _map_rotation_columns(C, block, column_map):
    """C[:, :, rot_a] ← C[:, :, rot_a] @ column_map[node a] for every node a of the
    elements (in place; C (n_el, n_edof, n_edof))."""
    cols = _rotation_columns(block)
    if cols is None:
        return
    for a in range(cols.shape[0]):
        Ma = column_map[block.cells[:, a]]  # (n_el, 3, 3)
        C[:, :, cols[a]] = np.einsum("eij,ejk->eik", C[:, :, cols[a]], Ma)


class DynamicProblem(ProblemSetup):
    """Discrete equations of motion of a Model (see the module docstring).

    Parameters
    ----------
    model : femb.model.Model
    table : CorrelationTable, optional (built when None)
    mass : str or int
        Mass kind ("lumped", "consistent", "invariant"); must be configuration-independent
        for every part (``spec.constant_mass``; oriented parts: or ``spec.rotary_kinds``),
        else ModelError naming the parts, unless the element type has a
        ``velocity_force`` kernel (a variable-mass block, α schemes only).
    damping : Rayleigh or None

    Attributes
    ----------
    (those of ProblemSetup: table, assembler, loads, joints, rotations, oriented,
    length_scale, prescribed, ...; prescribed DOFs follow function(t), or keep their value)
    mass_kind : int
    M_eq : CSR (n_eq, n_eq) on the table's pattern (data aligned with assembled tangents),
        made on first use
    mass_entries : (positions (m,) int64, values (m,)) the nonzero entries of M_eq's data
        (positions in the CSR data of the table's pattern, ascending)
    mass_data : (nnz,) the data of M_eq, made on first use
    M_full : CSR (n_var, n_var), constrained rows and columns included
    element_mass : list of (n_el, n_edof, n_edof) per block (for momenta; zero for the
        variable-mass blocks), new arrays at each access from the kept nonzero entries
    variable_mass : VariableMass, the blocks whose mass depends on the configuration
    offset_points : OffsetPoints or PlanarOffsetPoints, the node-attached mass points of
        sections whose mass centre is off the node line
    alpha_mass : ConfigurationMass, the configuration-dependent inertia of the planar α
        step (variable-mass blocks and planar offset points)
    rotary : NodalRotaryInertia of the oriented nodes (None unless oriented)
    rot : (n_var,) bool, the 2-D rotational variables (rz)
    """

    dynamic = True

    def __init__(self, model, table=None, mass="lumped", damping=None):
        self.mass_kind = mass_kind_of(mass)
        super().__init__(model, table, mass_kind=self.mass_kind)
        t = self.table
        bad = self.assembler.check_mass_kind(self.mass_kind)
        if self.oriented:
            bad = [name for name in bad if not (self._spec(name).oriented and self.mass_kind in self._spec(name).rotary_kinds)]
        # configuration-dependent masses with a quadratic-velocity force: the α schemes'
        # variable-mass blocks (femb.solvers.dynamics.variable_mass)
        variable = [i for i, b in enumerate(t.blocks) if b.part in bad and b.spec.kernels.velocity_force is not None
                    and not b.spec.oriented]
        bad = [name for name in bad if name not in {t.blocks[i].part for i in variable}]
        # mass points inside elements (superelements): their inertia is the elements' own
        # (femb.solvers.dynamics.point_inertia), not part of the nodal mass matrices
        self.point_inertia = PointInertia(t, self.assembler.loop)
        points = set(self.point_inertia.blocks)
        bad = [name for name in bad if name not in {t.blocks[i].part for i in points}]
        if bad:
            raise ModelError([f"part {name!r}: mass kind {mass!r} depends on the configuration; time integration needs a constant mass "
                              f"(kinds {sorted(self._spec(name).constant_mass or self._spec(name).rotary_kinds)}) or, "
                              "for the α schemes, an element type with a velocity_force kernel" for name in bad])
        self.variable_mass = VariableMass(self, variable)
        # sections with their mass centre off the node line: node-attached mass points
        # (femb.solvers.dynamics.offset_points)
        self.offset_points = OffsetPoints(t) if self.oriented else PlanarOffsetPoints(t)
        # what the planar α step re-assembles at every iteration: M(u) and h(u, u̇, t)
        self.alpha_mass = ConfigurationMass(self.variable_mass, None if self.oriented else self.offset_points)
        if damping is not None and (damping.alpha or damping.beta) and self.point_inertia:
            raise InputError("Rayleigh damping is not available for the elements with mass points of part(s) "
                             f"{', '.join(map(repr, self.point_inertia.parts()))} (superelements): alpha·M would miss their "
                             "mass points, and their material tangent is not blind to rigid rotation at deformed states; "
                             "use discrete dampers")
        if damping is not None and damping.alpha and self.offset_points:
            raise InputError("Rayleigh damping alpha·M is not available for beam sections with their mass centre off the "
                             f"node line (part(s) {', '.join(map(repr, self.offset_points.parts()))}): their offset mass "
                             "points are not in M; use beta·K or discrete dampers")
        if self.loads.has_follower_pressures and not self.oriented:
            raise InputError("follower pressures are integrated by solve_dynamic in models with 3-D rotations (shells); "
                             "this model has no oriented nodes: use a dead pressure (kind 'dead')")
        # In dynamics a load without amplitude is constant in time, hence conservative: it
        # joins the potential P = −f_const·u. Only loads with an amplitude do external work.
        self.f_const = self.loads.constant()
        self._timed = []
        masses = self.assembler.element_masses(self.mass_kind, R=self.rotations.identity())
        for load, vec in self.loads._vectors:  # (load record, vector over variables)
            if isinstance(load, Gravity) and points:
                # the weight of mass-point elements acts on their points (femb.solvers.dynamics.point_inertia),
                # not through their reference mass matrix on the nodal and modal variables
                share = self._gravity_share(load.g, masses, points)
                if load.constant:
                    self.f_const = self.f_const - share
                vec = vec - share
                self.point_inertia.add_gravity(load.g, None if load.constant else load.amplitude)
            if isinstance(load, Gravity) and self.offset_points:  # their weight acts on the offset points
                share = self.offset_points.gravity_share(load.g)
                if load.constant:
                    self.f_const = self.f_const - share
                vec = vec - share
                self.offset_points.add_gravity(load.g, None if load.constant else load.amplitude)
            if load.constant:
                continue
            if load.amplitude is None:
                self.f_const = self.f_const + vec
            else:
                self._timed.append((load.amplitude, vec))
        element_mass = []
        rotary = []
        for i, (b, Me) in enumerate(zip(t.blocks, masses)):
            if i in variable or i in points:  # re-assembled by the α step / carried by mass points
                Me = np.zeros_like(Me)
            if self.oriented:  # Me (a copy of the loop's buffer) becomes the translational part
                Me, Mr = split_rotary_mass(b, Me, self.offset_points.block_masses(i), in_place=True)
                rotary.append(Mr)
            elif self.offset_points.block_masses(i) is not None:  # carried by the offset points
                Me = Me - self.offset_points.block_masses(i)
            element_mass.append(Me)
        # oriented models: translational mass only; the rotary inertia turns with the nodes
        # (femb.solvers.dynamics.midpoint3d)
        data = t.new_matrix_data()
        for b, Me in zip(t.blocks, element_mass):
            scatter_matrix(b.pos, Me, data)
        # M_eq kept by its nonzero entries (a lumped mass has one in 9 (2-D) or 36 (3-D) of
        # the pattern's entries); the data on the whole pattern is made on first use
        nonzero = np.flatnonzero(data)
        self.mass_entries = (nonzero.astype(np.int64), data[nonzero])
        del data, nonzero
        self.rotary = None
        if self.oriented:
            J_full = full_matrix(t, rotary, [rotary_columns(b) for b in t.blocks])
            del rotary
            self.rotary = NodalRotaryInertia(t, J_full, self.rotations)
        self.M_full = full_matrix(t, element_mass)
        self._element_mass = [CompactBlockMass(Me) for Me in element_mass]
        del element_mass, masses
        self.rot = np.zeros(t.n_var, dtype=bool)
        self.rot3d = (t.var_dof >= 3) if self.oriented else np.zeros(t.n_var, dtype=bool)  # 3-D rotational variables
        self.reference_coordinates = reference_coordinates(model, t)
        if t.dim == 2:
            self.rot[t.var_dof == t.dof_names.index("rz")] = True
        self.rot_eq = np.flatnonzero(self.rot[t.eq_var])
        self.diag_pos = _diagonal_positions(t)
        # external moments on rotational variables need the Cayley factor of the mid-point scheme
        self.rot_loaded = bool(np.any(self.f_const[self.rot] != 0.0) or any(np.any(vec[self.rot] != 0.0) for _, vec in self._timed))
        self.damping = DampingModel(self, damping)
        # the set-up's mass passes (gravity loads, element masses) leave the loop's work
        # arrays filled; the compiled whole steps never use the loop, so they are released
        self.assembler.loop.release_buffers()
        # translational columns of the two end nodes of 2-node line elements (chord turn limit)
        self.chord_columns = []
        for b in t.blocks:
            names = b.spec.node_dofs
            trans = [names.index(n) for n in ("ux", "uy", "uz")[: t.dim] if n in names]
            if b.spec.n_nodes == 2 and len(trans) == t.dim and b.spec.requires_length and np.all(b.var[:, trans] >= 0) \
                    and np.all(b.var[:, [len(names) + c for c in trans]] >= 0):
                nd = len(names)
                self.chord_columns.append(((np.array(trans), np.array([nd + c for c in trans])), b.X[:, 1] - b.X[:, 0]))
            else:
                self.chord_columns.append((None, None))
        self.max_turn = 0.5  # rad: the largest rotation one Newton correction may apply (set by the driver)
        self.force = np.zeros(t.n_var)
        self.dt_hint = 1.0  # set by the driver to the nominal step (finite-difference steps of prescribed functions)

    @property
    def element_mass(self):
        """The element masses, a list of (n_el, n_edof, n_edof) per block (for momenta; zero
        for the variable-mass blocks; translational part in oriented models): new arrays at
        each access, expanded from their nonzero entries (``CompactBlockMass``)."""
        return [m.dense() for m in self._element_mass]

    @property
    def compact_element_mass(self):
        """The element masses as kept, a tuple of one CompactBlockMass per block (read them,
        do not modify them)."""
        return tuple(self._element_mass)

    @cached_property
    def mass_data(self):
        """M_eq's data on the table's pattern (nnz,), made on first use from ``mass_entries``:
        bitwise the assembled data (its other entries are sums that started at +0.0 and
        added zeros, +0.0 themselves). The compiled beam steps read ``mass_entries`` only."""
        data = self.table.new_matrix_data()
        pos, values = self.mass_entries
        data[pos] = values
        return data

    @cached_property
    def M_eq(self):
        """The translational mass (CSR (n_eq, n_eq) over ``mass_data``, on the table's
        pattern), made on first use: the compiled steps read ``mass_entries`` only, and the
        CSR wrapper needs the table's index arrays in scipy's index type."""
        return self.table.csr(self.mass_data)

    @cached_property
    def K(self):
        """Persistent Newton-matrix buffer (CSR on the table's pattern), made on first use."""
        return self.table.csr(self.table.new_matrix_data())

    def _gravity_share(self, g, masses, blocks):
        """The nodal gravity load (n_var,) of the field g that the element masses of
        ``blocks`` contribute (M·g over their variables)."""
        t = self.table
        field = gravity_field(t, g)
        out = np.zeros(t.n_var)
        for i in blocks:
            matvec_blocks(t.blocks[i].var, masses[i], field, out)
        return out

    # ------------------------------------------------------------------ joints
    def joint_state(self, u, t, rotations=None):
        """(Φ (m,), G (CSR m × n_var)) of the active joint rows at ``u`` (3-D: nodal
        ``rotations`` (n_nodes, 3, 3), default from the rotation vectors in u; columns of
        3-D rotational variables per unit spatial spin)."""
        phi, G = self.joints.evaluate(u, t, rotations=rotations)
        if self.active_rows.size == self.joints.m:  # no redundant rows dropped
            return phi, G
        return phi[self.active_rows], G[self.active_rows]

    def joint_discrete_jacobian(self, u0, u1, rotations=None):
        """Exact discrete Jacobian Ḡ (CSR, active rows × n_var) between u0 and u1,
        Ḡ·Δu = ΔΦ (ConstraintSet.midpoint_jacobian; 2-D rotational columns per unit Δθ, 3-D
        per unit Cayley vector of the increment, ``rotations`` = (R0, R1))."""
        return self.joints.midpoint_jacobian(u0, u1, rotations=rotations)[self.active_rows]

    def joint_discrete_stiffness(self, multipliers):
        """∂(Ḡᵀλ)/∂Δu over all variables (CSR) of the last ``joint_discrete_jacobian``, for
        multipliers of the active rows (ConstraintSet.midpoint_stiffness)."""
        return self.joints.midpoint_stiffness(self.all_multipliers(multipliers))

    # dense blocks over the jointed variables (ConstraintSet.variables), for the Newton loops
    def joint_blocks(self, u, t, u0=None, rotations=None, rotations0=None):
        """(Φ, G, Ḡ, cols) of the active joint rows: G (m, k) at ``u`` (as ``joint_state``),
        Ḡ (m, k) between ``u0`` and ``u`` (as ``joint_discrete_jacobian``; None without u0),
        dense over the variables ``cols`` (k,)."""
        rows = self.active_rows
        phi, G = self.joints.evaluate_block(u, t, rotations=rotations)
        Gbar = None
        if u0 is not None:
            Gbar = self.joints.midpoint_jacobian_block(u0, u, rotations=None if rotations is None else (rotations0, rotations))
            if Gbar.shape[1] != G.shape[1]:  # the block widened: evaluate G again on it
                phi, G = self.joints.evaluate_block(u, t, rotations=rotations)
            Gbar = Gbar[rows]
        return phi[rows], G[rows], Gbar, self.joints.variables

    def joint_stiffness_block(self, multipliers, discrete=False):
        """(H (k, k), cols): ``joint_discrete_stiffness`` (discrete) or ``joint_stiffness``
        dense over the jointed variables ``cols``."""
        lam = self.all_multipliers(multipliers)
        H = self.joints.midpoint_stiffness_block(lam) if discrete else self.joints.hessian_block(lam)
        return H, self.joints.variables

    def joint_equations(self, cols):
        """(pick, eqs): the positions in ``cols`` (jointed variables) of the free ones and
        their equations, in equation order."""
        cache = self.__dict__.setdefault("_joint_eq_cache", {})
        for c, hit in cache.get("recent", ()):  # the same arrays as in the last calls
            if c is cols:
                return hit
        key = cols.tobytes()
        if key not in cache:
            eq = self.table.var_eq[cols]
            sel = np.flatnonzero(eq >= 0)
            order = np.argsort(eq[sel], kind="stable")
            cache[key] = (sel[order], eq[sel][order])
        cache["recent"] = ((cols, cache[key]),) + tuple(cache.get("recent", ()))[:3]
        return cache[key]

    def joint_stiffness(self, multipliers):
        """Σ λ_i ∇²Φ_i over all variables (CSR) for multipliers of the active rows."""
        return self.joints.hessian_term(self.all_multipliers(multipliers))

    def missing_midpoint(self):
        """Parts whose element type has no energy-conserving mid-point force."""
        return [b.part for b in self.table.blocks if b.spec.kernels.midpoint_force is None
                and b.spec.kernels.midpoint_step is None]

    # ------------------------------------------------------------------ assembly into persistent buffers
    def _assemble(self, kernel, planar, oriented=None):
        """Element forces (n_var,) and matrices of ``kernel`` into ``self.force`` and
        ``self.K`` (zeroed first) through the assembler's ElementLoop."""
        f, K = self.force, self.K
        f[:] = 0.0
        K.data[:] = 0.0
        blocks = self.__dict__.setdefault("_force_blocks", {})
        only = blocks.get(kernel)
        if only is None:  # blocks with internal forces (inertia elements have none; mass-point elements
            # assemble their whole step, femb.solvers.dynamics.point_inertia)
            only = blocks[kernel] = [i for i, b in enumerate(self.table.blocks) if getattr(b.spec, "internal_forces", True)
                                     and not (kernel == "midpoint_force" and b.spec.kernels.midpoint_step is not None)]
        self.assembler.loop.run(kernel, planar, oriented, force=f, matrix=K.data, only=only)
        return f, K

    def midpoint_force(self, u0, u1, oriented=None):
        """Algorithmic force (n_var,) between u0 and u1 and its derivative with respect to
        the step increment: returns (``self.force``, ``self.K``), both overwritten by the
        next assembly. ``oriented``: the inputs of oriented kernels (u0, R0, u1, R1, um, Rm,
        ψ, D) of femb.solvers.dynamics.midpoint3d (elements.base)."""
        return self._assemble("midpoint_force", (u0, u1), oriented)

    def tangent(self, u, R=None):
        """Internal force (n_var,) and tangent at u (oriented models: nodal rotations R
        (n_nodes, 3, 3); rotational rows and columns per unit spatial spin) into the
        persistent buffers (see ``midpoint_force``)."""
        return self._assemble("tangent", (u,), None if R is None else (u, R))

    def _spec(self, part):
        return next(b.spec for b in self.table.blocks if b.part == part)

    # ------------------------------------------------------------------ loads
    def scaled_loads(self, t):
        """The time-dependent loads at time t (n_var,): Σ a_i(t)·f_i over the loads with
        an amplitude (the others are in ``f_const``)."""
        out = np.zeros(self.table.n_var)
        for amplitude, vec in self._timed:
            out += float(amplitude(t)) * vec
        return out

    def potential(self, u):
        """Potential of the constant loads, −f_const·u (2-D rotations additive). In 3-D a
        moment about a fixed axis has no potential: only the forces enter, and the work of
        the moments is booked as external work."""
        if self.oriented:
            return -float(self.f_const[~self.rot3d] @ u[~self.rot3d])
        return -float(self.f_const @ u)

    # ------------------------------------------------------------------ configuration-dependent loads
    def _pattern_data(self, K, what):
        """The entries of K (CSR over the equations) as data (nnz,) on the table's pattern;
        InputError naming ``what`` when K couples equations no element couples."""
        t = self.table
        K = K.tocoo()
        keys = self.__dict__.get("_pattern_keys")
        if keys is None:
            keys = t.entry_rows() * t.n_eq + t.indices
            order = np.argsort(keys, kind="stable")
            keys = self._pattern_keys = (keys[order], order)
        sorted_keys, order = keys
        k = K.row.astype(np.int64) * t.n_eq + K.col.astype(np.int64)
        at = np.minimum(np.searchsorted(sorted_keys, k), max(sorted_keys.size - 1, 0))
        hit = sorted_keys[at] == k if sorted_keys.size else np.zeros(k.size, dtype=bool)
        if not np.all(hit | (K.data == 0.0)):
            raise InputError(f"{what}: the load couples degrees of freedom that no element couples (apply it to the faces "
                             "or nodes of the elements it loads)")
        data = t.new_matrix_data()
        np.add.at(data, order[at[hit]], K.data[hit])
        return data

    def midpoint_state_loads(self, u0, u1, Rm, spin_map, t):
        """The configuration-dependent loads of a mid-point step and their load stiffness.

        Rotation-dependent (semitangential/follower) moments act at the mid rotations Rm
        (n_nodes, 3, 3); follower pressures as the Simpson average of their nodal forces
        along the step's straight path, F̄ = (F(u0) + 4 F(u_m) + F(u1))/6, u_m = (u0 + u1)/2:
        the pressure forces are quadratic in the positions, so F̄·Δu is exactly the work
        ∫ F·du along the path (p ΔV on a closed surface). Loads with an amplitude are
        scaled by a(t) (t = t_{n+½}). The step books F̄·z as external work.

        Returns (F̄ (n_var,), data (nnz,) of −∂F̄/∂z on the table's pattern, or None without
        such loads); ``spin_map`` (n_nodes, 3, 3) is the spin of Rm per unit Cayley vector
        of the step (rotational columns per unit ψ)."""
        L = self.loads
        if not L.has_state_loads:
            return None, None
        um = 0.5 * (u0 + u1)
        f = np.zeros(self.table.n_var)
        data = self.table.new_matrix_data()
        if L.has_moment_loads:
            f += L.moments(Rm, t=t)
            data += self._pattern_data(L.moment_stiffness(Rm, t=t, spin_map=spin_map), "rotation-dependent moment")
        if L.has_follower_pressures:
            f += (L.follower_pressure_forces(u0, t=t) + 4.0 * L.follower_pressure_forces(um, t=t)
                  + L.follower_pressure_forces(u1, t=t)) / 6.0
            K = (2.0 * L.follower_pressure_stiffness(um, t=t) + L.follower_pressure_stiffness(u1, t=t)) / 6.0
            data += self._pattern_data(K, "follower pressure")
        return f, data

    def end_state_loads(self, u, R, t):
        """The configuration-dependent loads at the state (u, R) and time t (the α schemes,
        equilibrium at the end of the step): (F (n_var,), data (nnz,) of K_L = −∂F/∂q per
        unit spatial spin on the table's pattern), or (None, None) without such loads."""
        L = self.loads
        if not L.has_state_loads:
            return None, None
        if not self.offset_points:
            return L.state_forces(u, R, t=t), self._pattern_data(L.state_stiffness(u, R, t=t), "configuration-dependent load")
        # offset mass centres: their weight acts on their mass points
        # (femb.solvers.dynamics.offset_points), not as the statics' turning-lever moments
        if not (L.has_moment_loads or L.has_follower_pressures):
            return None, None
        f = np.zeros(self.table.n_var)
        data = self.table.new_matrix_data()
        if L.has_moment_loads:
            f += L.moments(R, t=t)
            data += self._pattern_data(L.moment_stiffness(R, t=t), "rotation-dependent moment")
        if L.has_follower_pressures:
            f += L.follower_pressure_forces(u, t=t)
            data += self._pattern_data(L.follower_pressure_stiffness(u, t=t), "follower pressure")
        return f, data

    # ------------------------------------------------------------------ prescribed motion
    def prescribed_value(self, rec, t):
        return float(rec.function(t)) if rec.function is not None else float(rec.value)

    def apply_prescribed(self, u, t):
        """Set the prescribed variables of ``u`` (in place) to their values at time t
        (function(t), or the constant value)."""
        for vars_, rec in self.prescribed:
            u[vars_] = self.prescribed_value(rec, t)
        return u

    def prescribed_rate(self, rec, t, h):
        """Time derivative of a prescribed value (central difference with step h)."""
        if rec.function is None:
            return 0.0
        return (float(rec.function(t + h)) - float(rec.function(t - h))) / (2.0 * h)

    # ------------------------------------------------------------------ state
    def initial_state(self, t0, dt, u0=None, v0=None):
        """(u, v) at t0 from the model's initial velocities (or the given arrays): fixed
        DOFs get zero velocity, prescribed ones the rate of their function."""
        t = self.table
        u = np.zeros(t.n_var) if u0 is None else np.array(u0, dtype=np.float64)
        if v0 is not None:
            v = np.array(v0, dtype=np.float64)
        else:
            v = np.zeros(t.n_var)
            for nodes, values in self.model.initial_velocities:
                for node in np.atleast_1d(self.model.nodes(nodes)):
                    for dof, val in values.items():
                        k = t.dof_names.index(dof)
                        var = int(t.node_var[int(node), k])
                        if var >= 0:  # a node without this DOF (e.g. rz on a truss node) is skipped
                            v[var] = val
        v[t.fixed_vars] = 0.0
        self.apply_prescribed(u, t0)
        h = 1e-4 * dt
        for vars_, rec in self.prescribed:
            v[vars_] = self.prescribed_rate(rec, t0, h)
        if self.oriented:  # rotational slots hold log R (a continuation passes its own)
            lay = self.rotations
            lay.write_vectors(u, lay.rotations_from_vectors(u))
        return u, v
