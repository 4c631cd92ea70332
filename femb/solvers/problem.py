"""The discrete set-up every analysis of a model starts from, and the static equations.

``ProblemSetup`` builds, once and the same way for every analysis (statics, arc-length,
buckling, modal, complex modes, linearization, steady spin, dynamics), the correlation
table, the assembler (with its element buffers), the load vectors, the joint equations with
their redundancy check, the layout of the nodal rotations, the model's length scale and its
"oriented" flag. ``StaticProblem`` (here) and ``DynamicProblem``
(femb.solvers.dynamics.problem) are problem set-ups that add their analysis: the static
equations at a load factor λ; mass, damping, rotary inertia and prescribed motions in time.

Oriented models
---------------
A model is *oriented* when it has oriented nodes: 3-D nodes that carry the rotational DOFs
rx, ry, rz (``RotationLayout``, femb.solvers.configuration). This is the one meaning of
"oriented" in the solvers:

- the state carries a rotation matrix R (3, 3) per node next to the variables u, updated
  multiplicatively (statics: ``Configuration`` (u, R); dynamics: ``State.extra["R"]``);
  the rotational slots of u hold log R for output only;
- rotational entries of forces and equations are conjugate to spatial spins;
- element types whose nodes carry 3-D rotations are oriented (``spec.oriented``, their
  kernels take R), so an oriented model is one with oriented element blocks.

Planar models (2-D) are never oriented: their rotations rz are additive angles in u.

``length_scale`` is the model's characteristic length (bounding box, coordinates and the
sizes its joints mention) that the tolerances of constraints and rotations are relative
to, the same for every analysis.
"""
import logging

import numpy as np
import scipy.sparse as sp

from femb.assembly import Assembler, LoadAssembler
from femb.assembly.joints import ConstraintSet
from femb.core.errors import InputError, ModelError
from femb.correlation import build_table
from femb.solvers.configuration import Configuration, RotationLayout, split_state
from femb.solvers.linalg.nullspace import check_redundancy
from femb.solvers.linalg.redundancy import DroppedRows
from femb.solvers.nonlinear.chord_update import ChordUpdate

log = logging.getLogger(__name__)


def full_matrix(table, matrices, columns=None):
    """CSR (n_var, n_var) from per-block element matrices (n_el, n, n) over block.var;
    ``columns`` (per block: the n element columns the matrices cover, None: all of them),
    optional."""
    rows, cols, vals = [], [], []
    for i, (block, Me) in enumerate(zip(table.blocks, matrices)):
        var = block.var if columns is None or columns[i] is None else block.var[:, columns[i]]
        r = np.broadcast_to(var[:, :, None], Me.shape)
        c = np.broadcast_to(var[:, None, :], Me.shape)
        keep = (r >= 0) & (c >= 0) & (Me != 0.0)
        rows.append(r[keep])
        cols.append(c[keep])
        vals.append(Me[keep])
    n = table.n_var
    if not rows:
        return sp.csr_matrix((n, n))
    return sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n)).tocsr()

def mass_centre_offsets(block):
    """(n_el,) bool: the elements of a block whose section mass centre is off the node line
    (a nonzero ``ym`` or ``zm`` property: beam3d, beam3d_timoshenko, beam2d), or None when
    the element type has no mass-centre offset."""
    params = block.spec.params
    cols = [params.index(k) for k in ("ym", "zm") if k in params]
    if not cols:
        return None
    return np.any(block.props[:, cols] != 0.0, axis=1)


CONSISTENT_OFFSET_TYPES = ("beam3d",)
"""Element types whose consistent mass (kind 1) carries a mass centre off the node line
(the consistent mass of the mass-centre line, elements.beam3d); in statics and modal
analysis only."""


def check_mass_centre_offsets(table, kind, dynamic=False):
    """InputError naming the parts whose section mass centre is off the node line when the
    mass kind ``kind`` does not carry it: the lumped kind (elements.base.LUMPED = 0; half
    the element's mass at each end, rigidly attached to the node) always does; the
    consistent kind (1) of ``CONSISTENT_OFFSET_TYPES`` does in statics and modal analysis
    (``dynamic`` False) but not in time integration, which carries the offset as
    node-attached mass points of the lumped mass (femb.solvers.dynamics.offset_points)."""
    if int(kind) == 0:
        return
    bad = [b.part for b in table.blocks if (m := mass_centre_offsets(b)) is not None and m.any()
           and not (int(kind) == 1 and not dynamic and b.spec.name in CONSISTENT_OFFSET_TYPES)]
    if bad:
        where = "in time integration" if dynamic and int(kind) == 1 else f"by mass kind {int(kind)}"
        raise InputError(f"part(s) {', '.join(map(repr, bad))}: a section mass centre off the node line (ym, zm) is "
                         f"not carried {where}; use mass 'lumped' (statics and modal analysis of beam3d also take "
                         "'consistent') or put the nodes on the mass-centre line", "mass")


def rotary_columns(block):
    """The element columns (r,) int64 of the rotational DOFs (rx, ry, rz) of a block."""
    names = block.spec.node_dofs
    nd = len(names)
    return np.array([a * nd + k for a in range(block.spec.n_nodes) for k, n in enumerate(names) if n in ("rx", "ry", "rz")],
                    dtype=np.int64)


def split_rotary_mass(block, Me, points=None, in_place=False):
    """(translational, rotational) parts (n_el, n, n) of element masses of a 3-D model: the
    rotational rows and columns (rx, ry, rz) go to the second; ModelError when the mass
    couples translations and rotations (a centre of mass off the node).

    ``points`` (n_el, n, n), optional: the element masses of mass points rigidly attached
    to the nodes (femb.solvers.dynamics.offset_points, a section mass centre off the node
    line), integrated as points by the caller: they are taken out of Me before the split,
    which leaves the rotary inertia about the points' mass centres on the nodes.

    ``in_place``: Me (the caller's to change) becomes the translational part, and the
    rotational part is returned compact, (n_el, r, r) over the element columns
    ``rotary_columns(block)`` (r,), instead of (n_el, n, n): no copy of Me."""
    if points is not None:
        Me = Me - points
    ri = rotary_columns(block)
    rot = np.zeros(block.spec.n_edof, dtype=bool)
    rot[ri] = True
    if not rot.any():
        return Me, (Me[:, :0, :0].copy() if in_place else np.zeros_like(Me))
    if np.any(Me[:, ri[:, None], np.flatnonzero(~rot)[None, :]] != 0.0):
        if block.spec.n_internal:
            raise ModelError(f"part {block.part!r}: a superelement's reduced mass turns with its frame and couples its "
                             "nodes' translations, rotations and modal amplitudes; 3-D linearization of superelements "
                             "is not available yet (statics, modal analysis, buckling and the mid-point time "
                             "integration are)")
        offsets = mass_centre_offsets(block)
        if offsets is not None and offsets.any():
            raise ModelError(f"part {block.part!r}: its section mass centre is off the node line (ym, zm), which couples "
                             "the translational and rotary inertia of its nodes; of the 3-D time integrators only the "
                             "energy-conserving mid-point scheme integrates it (3-D linearization and the α schemes do "
                             "not yet)")
        raise ModelError(f"part {block.part!r}: the mass couples translations and rotations; 3-D dynamics and 3-D "
                         "linearization need the rotary inertia at the nodes (mass kinds 'lumped' or 'invariant' for beams)")
    if in_place:
        Mr = Me[:, ri[:, None], ri[None, :]]
        Me[:, rot, :] = 0.0
        Me[:, :, rot] = 0.0
        return Me, Mr
    Mt, Mr = Me.copy(), np.zeros_like(Me)
    Mt[:, rot, :] = 0.0
    Mt[:, :, rot] = 0.0
    Mr[:, rot[:, None] & rot[None, :]] = Me[:, rot[:, None] & rot[None, :]]
    return Mt, Mr


def node_blocks(matrix, var):
    """(k, 3, 3) the diagonal 3 × 3 blocks matrix[var_a, var_a] of a sparse matrix over
    variables, var (k, 3) three variables per node; entries with a variable −1 are 0."""
    var = np.asarray(var, dtype=np.int64).reshape(-1, 3)
    k = var.shape[0]
    if not k:
        return np.zeros((0, 3, 3))
    rows, cols = np.repeat(var, 3, axis=1).ravel(), np.tile(var, (1, 3)).ravel()
    ok = (rows >= 0) & (cols >= 0)
    out = np.zeros(9 * k)
    if ok.any():
        out[ok] = np.asarray(matrix.tocsr()[rows[ok], cols[ok]]).ravel()
    return out.reshape(k, 3, 3)


def nodal_body_inertia(J_full, layout):
    """(J0 (k, 3, 3), owner (k,) bool): the rotary inertia block of each oriented node of
    ``layout`` from the assembled rotary part ``J_full`` (sparse (n_var, n_var)) of the
    element masses, symmetrized; only the first node of a group sharing rotational
    variables (a tie) owns the block, the others get zero."""
    k = layout.n
    V = layout.var.reshape(k, 3)
    owner = np.zeros(k, dtype=bool)
    if k:
        owner[np.unique(V, axis=0, return_index=True)[1]] = True
    J0 = node_blocks(J_full, V)
    J0[~owner] = 0.0
    return 0.5 * (J0 + J0.transpose(0, 2, 1)), owner


def ray_states(u, layout=None, relative_step=1e-7):
    """((u₊, R₊), (u₋, R₋), ε): the states ±ε u (n_var,) from the reference, the two ends of
    a central difference along u, ε = relative_step/max|u|; with a RotationLayout holding
    rotations their rotational slots become R = exp(±ε θ̂) (R None otherwise)."""
    size = float(np.max(np.abs(u))) or 1.0
    eps = relative_step / size
    if layout is None or layout.n == 0:
        return (eps * u, None), (-eps * u, None), eps
    cp, cm = Configuration.from_vector(layout, eps * u), Configuration.from_vector(layout, -eps * u)
    return (cp.u, cp.R), (cm.u, cm.R), eps


def linear_resultants(asm, u, layout=None):
    """Resultants of the linearized problem at ``u`` (n_var,): derivative of the
    co-rotational resultants along u at the reference state (central difference, exact for
    linear kernels up to round-off), as the Assembler's dict part -> (n_el, n_resultants).
    With a RotationLayout the rotations along the ray are R = exp(±ε θ̂), θ the rotational
    slots of u. Used for linear pre-stress states (buckling, stress-stiffening kernels)."""
    (up, Rp), (um, Rm), eps = ray_states(u, layout)
    plus, minus = asm.resultants(up, R=Rp), asm.resultants(um, R=Rm)
    return {k: (plus[k] - minus[k]) / (2.0 * eps) for k in plus}


def linear_internal_force(asm, u, layout):
    """K0 u over all variables (n_var,) at the reference of an oriented model (central
    difference along (ε u, exp(ε θ̂)))."""
    (up, Rp), (um, Rm), eps = ray_states(u, layout)
    return (asm.internal_force(up, R=Rp) - asm.internal_force(um, R=Rm)) / (2.0 * eps)


def reference_coordinates(model, table):
    """(n_var,) the reference coordinate of each translational variable (X of its node
    along its axis; 0 for rotations): with the displacements, the absolute positions whose
    rounding sets the round-off level of the residual."""
    points = np.asarray(model.mesh.points, dtype=np.float64)
    out = np.zeros(table.n_var)
    for k, name in enumerate(table.dof_names):
        axis = {"ux": 0, "uy": 1, "uz": 2}.get(name)
        if axis is None or axis >= points.shape[1]:
            continue
        sel = table.var_dof == k
        out[sel] = points[table.var_node[sel], axis]
    return out


def length_scale(model):
    """A characteristic length of the model: the larger of its bounding-box diagonal and
    the sizes its joints mention (1 when the model has no extent at all, e.g. one node)."""
    lo, hi = model.mesh.bounding_box()
    sizes = [float(np.linalg.norm(hi - lo)), float(np.abs(model.mesh.points).max(initial=0.0))]
    for joint in model.joints:
        if joint.length is not None:
            sizes.append(float(joint.length))
        if joint.point is not None:
            sizes.append(float(np.linalg.norm(joint.point)))
    scale = max(sizes)
    return scale if scale > 0.0 else 1.0


class ProblemSetup:
    """The discrete set-up of a model shared by every analysis (module docstring).

    Parameters
    ----------
    model : femb.model.Model
    table : CorrelationTable, optional (built when None)
    mass_kind : int, the mass kind of the gravity loads (elements.base)

    Attributes
    ----------
    model, table
    assembler : Assembler (its ElementLoop holds the element buffers of the problem)
    loads : LoadAssembler
    rotations : RotationLayout, the oriented nodes and their rotational variables
    oriented : bool, the model has oriented nodes (module docstring)
    length_scale : float, the model's characteristic length (``length_scale(model)``)
    prescribed : list of (vars (k,) int64, Prescribed record), the prescribed DOFs
    joints : ConstraintSet or None (no joints)
    active_rows : (m,) int64, the joint rows kept by the redundancy check, evaluated at the
        start of the analysis (``apply_prescribed`` of zeros at 0)

    An analysis subclass defines ``apply_prescribed(u, x)``: the prescribed values of u at
    its parameter x (the load factor in statics, the time in dynamics).
    """

    dynamic = False
    """True for the time-integration problems (femb.solvers.dynamics.problem)."""

    def __init__(self, model, table=None, mass_kind=0):
        self.model = model
        self.table = table if table is not None else build_table(model)
        self.assembler = Assembler(self.table)
        self.loads = LoadAssembler(model, self.table, self.assembler, mass_kind=mass_kind)
        self.rotations = RotationLayout(self.table)
        self.oriented = self.rotations.n > 0
        self.length_scale = length_scale(model)
        self.prescribed = list(self.table.prescribed)
        self.joints = None
        self.active_rows = np.zeros(0, dtype=np.int64)
        check_mass_centre_offsets(self.table, mass_kind, dynamic=self.dynamic)
        if model.joints:
            self.joints = ConstraintSet(model, self.table)
            u0 = self.apply_prescribed(np.zeros(self.table.n_var), 0.0)
            G0 = self.joints.evaluate(u0, 0.0)[1][:, self.table.eq_var]
            self.active_rows = check_redundancy(G0, self.joints, model.redundant_constraints)
            self.dropped_rows = DroppedRows(self.joints, G0, self.active_rows, self.table.eq_var)

    def apply_prescribed(self, u, x):
        """Set the prescribed DOFs of ``u`` (in place) at the analysis parameter x."""
        raise NotImplementedError

    @property
    def constraint_rows(self):
        """Joint name of each active constraint row (empty without joints)."""
        return [] if self.joints is None else [self.joints.row_joint[i] for i in self.active_rows]

    def all_multipliers(self, multipliers):
        """(m,) multipliers of every joint row from those of the active rows (0 on the
        redundant ones)."""
        lam = np.zeros(self.joints.m)
        lam[self.active_rows] = multipliers
        return lam


class StaticProblem(ProblemSetup):
    """The discrete static equations f_int(u, R) = λ·f_ref + f_const (+ rotation-dependent
    moments) of a model.

    A ProblemSetup with the reference and constant load vectors ``f_ref``, ``f_const``
    (n_var,); ``system(lam)`` returns the Newton system for one load factor. Reused by the
    arc-length, buckling, modal, complex-mode, linearization and steady-spin solvers.
    Prescribed DOFs take value·λ.

    States are plain variable vectors u (n_var,), or Configurations (u, R) when the model
    is oriented (module docstring); the methods taking a ``state`` accept both.
    """

    def __init__(self, model, table=None, include_geometric=True, mass_kind=0):
        super().__init__(model, table, mass_kind=mass_kind)
        self.f_ref = self.loads.scaled()
        self.f_const = self.loads.constant()
        self.include_geometric = include_geometric
        self._chords = None
        t = self.table
        # per DOF-name index, and False at index −1 (element-internal variables have var_dof −1)
        rotational = np.array([n in ("rx", "ry", "rz") for n in t.dof_names] + [False])
        self.rotational_equations = np.flatnonzero(rotational[t.var_dof[t.eq_var]])
        """(k,) int64, the equations of rotational variables (planar angles, 3-D spins)."""

    @property
    def chord_update(self):
        """The chord-rotating update of the Newton corrections
        (femb.solvers.nonlinear.chord_update.ChordUpdate), built on first use; None for
        models with joints (their corrections stay in the constraints' null space) or
        without element chords."""
        if self._chords is None:
            chords = None if self.joints is not None else ChordUpdate(self.table, self.model.mesh.points)
            self._chords = chords if chords is not None and chords.active else False
        return self._chords or None

    # ------------------------------------------------------------------ states
    def initial_state(self, u0=None):
        """The start state: u0 (default zeros) as a vector, or for oriented models a
        Configuration (R = I, or exp of the rotation vectors in ``u0``; a Configuration
        passed as ``u0`` is copied)."""
        if isinstance(u0, Configuration):
            return u0.copy()
        u = np.zeros(self.table.n_var) if u0 is None else np.array(u0, dtype=np.float64)
        if not self.oriented:
            return u
        return Configuration.from_vector(self.rotations, u)

    def state_of(self, results, frame=-1):
        """The state of a recorded frame of ``results``: its u, and for oriented models the
        Configuration with the recorded rotations (exp of the rotation vectors when the
        frame has none)."""
        u = np.array(results.states[frame], dtype=np.float64)
        if not self.oriented:
            return u
        rots = results.arrays.get("rotations")
        if rots is not None and len(rots) == len(results.states):
            return Configuration(u, np.array(rots[frame], dtype=np.float64), self.rotations)
        return Configuration.from_vector(self.rotations, u)

    def internal_force(self, state):
        """Internal force (n_var,) of a state."""
        u, R = split_state(state)
        return self.assembler.internal_force(u, R=R)

    def strain_energy(self, state):
        u, R = split_state(state)
        return self.assembler.strain_energy(u, R=R)

    def load_stiffness(self, state, lam):
        """Load stiffness (CSR over equations) of the configuration-dependent loads
        (rotation-dependent moments, follower pressures) at load factor λ, or None."""
        if not self.loads.has_state_loads:
            return None
        return self.loads.state_stiffness(*split_state(state), lam)

    def constraint_stiffness(self, multipliers):
        """Σ λ_i ∇²Φ_i over the free equations (CSR) for multipliers of the active rows."""
        eq = self.table.eq_var
        return self.joints.hessian_term(self.all_multipliers(multipliers))[eq][:, eq]

    def constraints(self, state, t):
        """(Φ, G over free equations) of the active joint rows at a state, or None (joints
        act on translations only)."""
        if self.joints is None:
            return None
        phi, G = self.joints.evaluate(split_state(state)[0], t)
        return phi[self.active_rows], G[self.active_rows][:, self.table.eq_var]

    def apply_prescribed(self, state, lam):
        """Set the prescribed DOFs of a state (in place) to their values at load factor λ;
        prescribed rotations of oriented nodes set R = exp(λ θ̂_p)."""
        u, R = split_state(state)
        for vars_, rec in self.prescribed:
            u[vars_] = rec.value * lam
        if R is not None:
            self.rotations.set_prescribed(u, R, lam)
        return state

    def external(self, lam, state=None):
        """External generalized forces (n_var,) at load factor λ; the configuration-dependent
        loads are evaluated at ``state`` (reference when None)."""
        out = lam * self.f_ref + self.f_const
        if self.loads.has_state_loads:
            out = out + self.loads.state_forces(*((None, None) if state is None else split_state(state)), lam)
        return out

    def reactions(self, state, lam, multipliers=None):
        """Reaction forces on the constrained variables (table.constrained_vars): what the
        supports must apply besides the loads and the joint forces Gᵀλ."""
        f = self.internal_force(state) - self.external(lam, state)
        if multipliers is not None and self.joints is not None:
            G = self.joints.evaluate(split_state(state)[0], lam)[1][self.active_rows]
            f = f + G.T @ multipliers
        return f[self.table.constrained_vars]

    def system(self, lam):
        return _StaticSystem(self, lam)


class _StaticSystem:
    """Newton system of StaticProblem at a fixed load factor; states are vectors u or
    Configurations (u, R)."""

    def __init__(self, problem, lam):
        self.p = problem
        self.lam = lam
        self.f_ext = problem.external(lam)
        self.state_loads = problem.loads.has_state_loads
        self.length_scale = problem.length_scale

    def constraints(self, x):
        out = self.p.constraints(x, self.lam)
        return None if out is None else (out[0], out[1], None)

    def constraint_stiffness(self, multipliers):
        return self.p.constraint_stiffness(multipliers)

    def _f_ext(self, x):
        return self.p.external(self.lam, x) if self.state_loads else self.f_ext

    @staticmethod
    def _scale(f_int, f_ext):
        return max(float(np.linalg.norm(f_ext)), float(np.linalg.norm(f_int)), 1e-300)

    def residual(self, x):
        f, f_ext = self.p.internal_force(x), self._f_ext(x)
        return self.p.table.free(f - f_ext), self._scale(f, f_ext)

    def residual_and_tangent(self, x):
        u, R = split_state(x)
        f, K = self.p.assembler.tangent(u, include_geometric=self.p.include_geometric, R=R)
        f_ext = self._f_ext(x)
        if self.state_loads:
            K = K + self.p.load_stiffness(x, self.lam)
        return self.p.table.free(f - f_ext), K, self._scale(f, f_ext)

    def apply(self, x, dx, translate=None):
        """New state after the correction dx (n_eq,) (multiplicative for rotations);
        ``translate(u, du)``, when given, replaces u + du for the variables."""
        if isinstance(x, Configuration):
            return x.apply(dx, translate)
        if translate is None:
            out = x.copy()
            out[self.p.table.eq_var] += dx
            return out
        du = np.zeros_like(x)
        du[self.p.table.eq_var] = dx
        return translate(x, du)

    def turn(self, x, dx):
        """Largest angle (rad) by which the correction dx (n_eq,) turns a nodal rotation or
        an element chord from the state x (to first order)."""
        p = self.p
        if p.oriented:  # |spin| of each oriented node (frame-independent)
            out = float(np.sqrt((p.rotations.spins(dx) ** 2).sum(axis=1)).max(initial=0.0))
        else:  # planar angles
            rot = p.rotational_equations
            out = float(np.abs(dx[rot]).max(initial=0.0)) if rot.size else 0.0
        chords = p.chord_update
        if chords is not None:
            du = np.zeros(p.table.n_var)
            du[p.table.eq_var] = dx
            out = max(out, chords.turn(split_state(x)[0], du))
        return out

    def apply_first(self, x, dx):
        """The first correction of a Newton solve: from the converged state of the previous
        load factor under the loads of this one it is the tangent predictor of the load
        step, applied with the element chords turned instead of stretched
        (femb.solvers.nonlinear.chord_update); the same as ``apply`` to first order in dx."""
        chords = self.p.chord_update
        return self.apply(x, dx, None if chords is None else chords.apply)

    @staticmethod
    def norm(x):
        """Size of a state for the relative increment test."""
        return x.norm() if isinstance(x, Configuration) else float(np.linalg.norm(x))
