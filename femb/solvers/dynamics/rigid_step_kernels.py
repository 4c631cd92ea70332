"""Compiled whole time steps of the energy-momentum mid-point scheme for jointed rigid bodies.

One call of ``rigid_midpoint_steps`` runs the steps between two recorded frames, each
with every Newton iteration of one step t_n → t_n + h of
femb.solvers.dynamics.midpoint3d for a model made only of 3-D rigid bodies and point masses
(constant translational mass M, rotary inertia J0 per oriented node), loads given at the
step's mid time, supports, and the 3-D joints of femb.assembly.joints.spatial. It is the
same algorithm as the general path (MidPoint3DSystem iterated by
femb.solvers.nonlinear.newton.projected_newton), operation for operation, on dense arrays:

- residual over the free equations: M ((2/h²) Δx − (2/h) v_n) − f_ext on translations,
  (π_{n+1} − π_n)/h − m_ext on rotations (Simo–Wong, ``cayley_step_batch``); step matrix
  (2/h²) M plus the exact derivative of the rotary-inertia residual; force scale
  max(‖inertia‖, ‖f_ext‖, |momentum|/h);
- joint equations at the end of the step, Φ and G = ∂Φ/∂z (the spin Jacobian times the
  Cayley chain T(ψ)), and the exact discrete Jacobian Ḡ (averaged directors), from the
  compiled joint kernels (femb.assembly.joints.spatial_kernels); the joints' discrete
  stiffness ∂(Ḡᵀλ)/∂z with the current multiplier estimate, at the discrete Jacobian of the
  previous iterate (as the general loop, which asks for it before the joint equations of
  the new iterate);
- the null-space elimination of femb.solvers.linalg.nullspace.NullSpace: dependent
  coordinates by QR with column pivoting of G (the greedy column choice of LAPACK's
  dgeqp3/dlaqp2), kept across iterations and steps while G_d and Ḡ_d stay well
  conditioned (``RENEW``; rigid_step_patterns ``choose_partition``, ``factor_dependent``;
  the general path chooses them at every iteration); G over the equations, G_d and the
  step matrix K are formed only at the iterates a correction (or the round-off test) needs
  them: the converged iterate's tests need Ḡ_d alone,
  X = −G_d⁻¹G_i, X̄ = −Ḡ_d⁻¹Ḡ_i, the reduced matrix N̄ᵀKN factorized by LU with partial
  pivoting (singular when its pivot ratio is below 1e-13), multipliers
  λ = −Ḡ_d⁻ᵀ(r + K δq)_d. The joint Jacobians are sparse: G and Ḡ are written over their
  fixed pattern only, G_d and Ḡ_d with their rows in the order of the first dependent
  coordinate each holds (a chain's G_d is then banded and its LU stays in the band), the
  products with K run over K's pattern, and X, X̄ come from one solve with n_eq − m
  right-hand sides;
- the tests of projected_newton: projected residual ‖N̄ᵀr‖ against the tolerance (relative
  to the force scale, or absolute), ‖Φ‖ against the constraint tolerance, acceptance of a
  correction at round-off, of a residual at the system's noise floor or at the round-off
  level ε‖|K|·|x|‖, the iteration cap; the rotation-turn limit of a correction.

The steps' energy books (external work, constraint work) are summed inside in the driver's
order; a step that does not converge ends the call, and its retry and cut-back stay with
the Python driver. Arrays are float64 / int64 /
bool with the shapes given in ``RigidStepData`` (femb.solvers.dynamics.rigid_step).
"""
import math
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from femb.assembly.joints.spatial_kernels import evaluate_into as joint_evaluate
from femb.assembly.joints.spatial_kernels import frames, midpoint_frames, midpoint_stiffness_into
from femb.core.jit import jit
from femb.core.rotations import cayley_spin_jacobian, cayley_step_batch, cayley_turn, log_batch
from femb.solvers.dynamics.rigid_step_patterns import (
    choose_partition,
    factor_dependent,
    jacobian_pattern,
    lu_factor_pattern,
    matrix_pattern,
    numpy_errors,
    partition_layout,
    split,
    triplet_places,
    triplet_rows,
)
from femb.solvers.linalg import dense_kernels
from femb.solvers.linalg.dense_kernels import euclidean_norm

# the triangular solves of the step, compiled with the step's error model (rigid_step_patterns)
lu_solve = numpy_errors(dense_kernels.lu_solve)
lu_solve_many = numpy_errors(dense_kernels.lu_solve_many)
lu_solve_t = numpy_errors(dense_kernels.lu_solve_t)

# status codes of ``rigid_midpoint_steps`` (the reasons of femb.solvers.nonlinear.newton.projected_newton)
NOT_CONVERGED, CONVERGED, ROUND_OFF, NOISE_FLOOR, NOT_FINITE, SINGULAR, DEP_SINGULAR = 0, 1, 2, 3, 4, 5, 6


class RigidStepData(NamedTuple):
    """Constant arrays of a qualifying model for the compiled step (n_var variables, n_eq
    free equations, k oriented nodes, nj joints with m rows). The entry points take it as
    a plain tuple (``tuple(data)``: numba types a plain tuple of arrays at a fraction of
    the cost of a named one) and rebuild it inside."""

    var_eq: NDArray[np.int64]  # (n_var,) equation of each variable, −1 when fixed
    eq_var: NDArray[np.int64]  # (n_eq,) variable of each equation
    rot3d: NDArray[np.bool_]  # (n_var,) rotational slots of oriented nodes
    ref: NDArray[np.float64]  # (n_var,) reference coordinates (positions; 0 on rotations)
    m_indptr: NDArray[np.int64]  # translational mass M_full (CSR, n_var × n_var)
    m_indices: NDArray[np.int64]
    m_data: NDArray[np.float64]
    M_eq: NDArray[np.float64]  # (n_eq, n_eq) the same over the equations, dense
    lay_nodes: NDArray[np.int64]  # (k,) oriented nodes
    lay_var: NDArray[np.int64]  # (k, 3) their rotational variables
    J0: NDArray[np.float64]  # (k, 3, 3) body-frame inertia
    J0_pinv: NDArray[np.float64]  # (k, 3, 3) its pseudo-inverse
    kind: NDArray[np.int64]  # joint arrays of femb.assembly.joints.spatial_kernels (nj,)
    row0: NDArray[np.int64]
    jac0: NDArray[np.int64]
    blk0: NDArray[np.int64]
    Xa: NDArray[np.float64]
    Xb: NDArray[np.float64]
    ta: NDArray[np.int64]
    tb: NDArray[np.int64]
    c: NDArray[np.float64]
    cb: NDArray[np.float64]
    has_cb: NDArray[np.bool_]
    frame: NDArray[np.float64]
    node_a: NDArray[np.int64]
    node_b: NDArray[np.int64]
    rot_a: NDArray[np.bool_]
    rot_b: NDArray[np.bool_]
    n_jac: int  # Jacobian values per evaluation
    jac_rows: NDArray[np.int64]  # the Jacobian triplets at variables (kept entries)
    jac_cols: NDArray[np.int64]
    jac_keep: NDArray[np.int64]  # their positions among the n_jac values
    st_total: int  # discrete-stiffness values per evaluation
    st_eq_rows: NDArray[np.int64]  # its triplets at variables (kept entries): their equations (−1: fixed)
    st_eq_cols: NDArray[np.int64]
    st_keep: NDArray[np.int64]  # their positions among the st_total values
    joint_eqs: NDArray[np.int64]  # their free equations (sorted)


RENEW = 0.1
"""A kept coordinate partition is chosen again (pivoted QR) when the pivot ratio of G_d or
Ḡ_d falls below RENEW times its value when the partition was chosen (Ḡ_d checked at every
iterate, G_d at the iterates a correction follows: the converged one does not need G_d)."""


@jit(internal=True)
def _residual(d, z, u0, v0, pi0, R0n, Jn, h, f_ext, fext_norm, mom_scale, psi, C, R1n, Rmn, D, pi1, dr, full, r, K):
    """The step residual over the equations r (n_eq,), the step matrix K (n_eq, n_eq) and
    the force scale at the increment z (n_var,); ``full`` (n_var,) receives the residual
    over all variables; ψ, C, R1n, Rmn, D, π1, dr: the Cayley step of the oriented nodes."""
    for k in range(d.lay_var.shape[0]):
        for a in range(3):
            psi[k, a] = z[d.lay_var[k, a]]
    cayley_step_batch(psi, R0n, Jn, pi0, h, C, R1n, Rmn, D, pi1, dr)
    scale = _residual_vector(d.lay_var, d.rot3d, d.m_indptr, d.m_indices, d.m_data, d.eq_var, z, v0, pi0, pi1, h, f_ext, fext_norm,
                             mom_scale, full, r)
    ne = d.eq_var.size
    c2 = 2.0 / (h * h)
    for a in range(ne):
        for b in range(ne):
            K[a, b] = c2 * d.M_eq[a, b]
    _add_rotary(d.lay_var, d.var_eq, dr, K)
    return scale


# The helpers of the step below take the model's arrays one by one, not the tuple ``d``:
# a tuple or array passed to a helper compiled into its caller (inline="always") is a new
# reference, counted up and down (an atomic operation per array) at every call, and a
# helper called out of line takes every array of the tuple as its arguments.


@jit(error_model="numpy")
def _residual_vector(lay_var, rot3d, m_indptr, m_indices, m_data, eq_var, z, v0, pi0, pi1, h, f_ext, fext_norm, mom_scale, full,
                     r):
    """``_residual`` without the Cayley step (its momenta π1 (k, 3) given) and the step
    matrix: r (n_eq,), ``full`` (n_var,); returns the force scale. Model arrays of
    RigidStepData: ``lay_var``, ``rot3d``, the CSR mass ``m_indptr``, ``m_indices``,
    ``m_data`` and ``eq_var``. (The callers make the Cayley step themselves: every array a
    compiled helper takes is counted up and down at each call.)"""
    nv = z.size
    c2 = 2.0 / (h * h)
    ch = 2.0 / h
    w = np.empty(nv)
    for i in range(nv):
        w[i] = 0.0 if rot3d[i] else c2 * z[i] - ch * v0[i]
    for i in range(nv):  # M_full @ w (CSR)
        s = 0.0
        for q in range(m_indptr[i], m_indptr[i + 1]):
            s += m_data[q] * w[m_indices[q]]
        full[i] = s
    for k in range(lay_var.shape[0]):
        for a in range(3):
            full[lay_var[k, a]] += (pi1[k, a] - pi0[k, a]) / h
    ne = eq_var.size
    s = 0.0
    for e in range(ne):
        x = full[eq_var[e]]
        s += x * x
    inert_norm = math.sqrt(s)
    for i in range(nv):
        full[i] = full[i] - f_ext[i]
    for e in range(ne):
        r[e] = full[eq_var[e]]
    return max(0.0, inert_norm, fext_norm, mom_scale, 1e-300)


@jit(error_model="numpy")
def _step_matrix(M_eq, lay_var, var_eq, h, dr, k_ptr, k_cols, K):
    """The step matrix of ``_residual`` written over K's pattern only (``matrix_pattern``:
    rows ``k_ptr`` (n_eq + 1,), columns ``k_cols``); K's other entries stay as they are
    (zero). Model arrays of RigidStepData: ``M_eq``, ``lay_var``, ``var_eq``."""
    c2 = 2.0 / (h * h)
    for a in range(M_eq.shape[0]):
        for q in range(k_ptr[a], k_ptr[a + 1]):
            b = k_cols[q]
            K[a, b] = c2 * M_eq[a, b]
    _add_rotary(lay_var, var_eq, dr, K)


@jit(inline="always")
def _add_rotary(lay_var, var_eq, dr, K):
    """K += the rotary-inertia derivative dr (k, 3, 3) of the oriented nodes (rotational
    variables ``lay_var`` (k, 3)), over the equations (``var_eq``)."""
    for k in range(lay_var.shape[0]):
        for a in range(3):
            ea = var_eq[lay_var[k, a]]
            if ea < 0:
                continue
            for b in range(3):
                eb = var_eq[lay_var[k, b]]
                if eb >= 0:
                    K[ea, eb] += dr[k, a, b]


@jit(error_model="numpy")
def _spin_jacobian(rows, cols, lay_var, var_eq, psi, G, tq, teq, pr, pk, Geq):
    """G over the equations (m, n_eq) ``Geq`` from G over the variables (the step's joint equations) at
    the Cayley vectors ψ (k, 3) of the iterate: written over the pattern ``tq``, ``teq``,
    ``pr``, ``pk`` (``jacobian_pattern``; the other entries stay zero). Model arrays of
    RigidStepData: the Jacobian triplets ``rows``, ``cols``, ``lay_var``, ``var_eq``."""
    for t in range(tq.size):
        q = tq[t]
        Geq[rows[q], teq[t]] = G[rows[q], cols[q]]
    T = np.empty((3, 3))
    kt = -1
    for t in range(pr.size):  # δR_{n+1} R_{n+1}ᵀ = (T(ψ) δψ)^: G's rotational columns per unit ψ
        i, k = pr[t], pk[t]
        if k != kt:
            cayley_spin_jacobian(psi[k], T)
            kt = k
        c0, c1, c2 = lay_var[k, 0], lay_var[k, 1], lay_var[k, 2]
        for b in range(3):
            e = var_eq[lay_var[k, b]]
            if e >= 0:
                Geq[i, e] = G[i, c0] * T[0, b] + G[i, c1] * T[1, b] + G[i, c2] * T[2, b]


@jit(error_model="numpy")
def _scatter_stiffness(st_eq_rows, st_eq_cols, st_keep, vals, K):
    """K += the joints' discrete stiffness ∂(Ḡᵀλ)/∂z over the equations from its values
    ``vals`` (st_total,) of ``midpoint_stiffness_into``: the model's stiffness triplets
    ``st_eq_rows``, ``st_eq_cols`` (−1: a fixed variable) and ``st_keep`` of RigidStepData.
    (The kernel calls the joints' kernel itself: every array a compiled helper takes is
    counted up and down at each call.)"""
    for q in range(st_eq_rows.size):
        ea = st_eq_rows[q]
        eb = st_eq_cols[q]
        if ea >= 0 and eb >= 0:
            K[ea, eb] += vals[st_keep[q]]


@jit(internal=True)
def _rounding(K, d, u0, z):
    """ε‖|K|·|x|‖, x the absolute end-of-step coordinates over the equations (1 on the
    slots of 3-D rotations): the round-off level of the residual."""
    ne = d.eq_var.size
    x = np.empty(ne)
    for e in range(ne):
        v = d.eq_var[e]
        x[e] = 1.0 if d.rot3d[v] else abs(d.ref[v] + u0[v] + z[v])
    s = 0.0
    for a in range(ne):
        t = 0.0
        for b in range(ne):
            t += abs(K[a, b]) * x[b]
        s += t * t
    return np.finfo(np.float64).eps * math.sqrt(s)


@jit(inline="always")
def nodal_inertia(d, R0, R0n, Jn):
    """The oriented nodes' rotations R0n (k, 3, 3) at the start of a step (R0 (n_nodes, 3,
    3)) and their spatial inertia J_n = R0n J0 R0nᵀ (k, 3, 3)."""
    _nodal_inertia(d.lay_nodes, d.J0, R0, R0n, Jn)


@jit(inline="always")
def _nodal_inertia(lay_nodes, J0, R0, R0n, Jn):
    """``nodal_inertia`` from the model arrays ``lay_nodes`` (k,) and J0 (k, 3, 3)."""
    tmp = np.empty((3, 3))
    for k in range(lay_nodes.shape[0]):
        R0n[k] = R0[lay_nodes[k]]
        for a in range(3):
            for b in range(3):
                tmp[a, b] = R0n[k, a, 0] * J0[k, 0, b] + R0n[k, a, 1] * J0[k, 1, b] + R0n[k, a, 2] * J0[k, 2, b]
        for a in range(3):
            for b in range(3):
                Jn[k, a, b] = tmp[a, 0] * R0n[k, b, 0] + tmp[a, 1] * R0n[k, b, 1] + tmp[a, 2] * R0n[k, b, 2]


@jit(inline="always")
def step_scales(d, v0, pi0, f_ext, h):
    """(‖f_ext‖, |momentum|/h) over the equations at the start of a step: the loads' norm
    and the nodes' momenta M v (translations) and π (oriented nodes) per step size
    (midpoint3d.momentum_flux_scale)."""
    return _step_scales(d.eq_var, d.rot3d, d.m_indptr, d.m_indices, d.m_data, d.lay_var, v0, pi0, f_ext, h)


@jit(inline="always")
def _step_scales(eq_var, rot3d, m_indptr, m_indices, m_data, lay_var, v0, pi0, f_ext, h):
    """``step_scales`` from the model arrays of RigidStepData."""
    nv = v0.size
    ne = eq_var.size
    s = 0.0
    for e in range(ne):
        s += f_ext[eq_var[e]] ** 2
    fext_norm = math.sqrt(s)
    w = np.empty(nv)
    for i in range(nv):
        w[i] = 0.0 if rot3d[i] else v0[i]
    pm = np.empty(nv)
    for i in range(nv):
        s = 0.0
        for q in range(m_indptr[i], m_indptr[i + 1]):
            s += m_data[q] * w[m_indices[q]]
        pm[i] = s
    for k in range(lay_var.shape[0]):
        for a in range(3):
            pm[lay_var[k, a]] += pi0[k, a]
    s = 0.0
    for e in range(ne):
        s += pm[eq_var[e]] ** 2
    return fext_norm, math.sqrt(s) / h


@jit(error_model="numpy")
def rigid_midpoint_steps(data, u0, v0, R0, pi0, lam0, has_lam, hs, f_const, timed, amps, par, max_it, part, part_ref, its, books, z,
                         hist, scales, r, out):
    """Mid-point steps of sizes ``hs`` (k,) of a jointed rigid-body model one after the
    other, each with all its Newton iterations, up to the first that does not converge.

    Inputs: ``data`` the model's RigidStepData as a plain tuple; f_const (n_var,) the
    constant loads and timed (n_a, n_var), amps (k, n_a) the loads with an amplitude: step s
    takes f_ext = f_const + f_s, f_s = Σ_j amps[s, j] timed[j] (as
    DynamicProblem.scaled_loads; moments about fixed axes on the rotational slots; the
    constant forces have a potential); par (8,) = (tolerance, absolute tolerance or 0,
    increment tolerance, constraint tolerance × length scale, noise floor, max turn or 0,
    length scale, ‖u_n‖ (set per step)); ``max_it`` the iteration cap.

    Updated in place to the state after the steps done: u0, v0 (n_var,) (rotational slots:
    log R and the spatial angular velocities), R0 (n_nodes, 3, 3) nodal rotations, π0 (k_nodes, 3)
    spatial angular momenta of the oriented nodes, λ0 (m,) the multipliers (on entry the
    guess of the first step, used when ``has_lam``; each later step's guess is its
    predecessor's multipliers); the coordinate partition, ``part`` (m,) the dependent
    equations (sorted) and ``part_ref`` (2,) the pivot ratios of G_d and Ḡ_d when it was
    chosen (0: none chosen yet; ``RENEW``); ``books`` (2,) += each step's external work
    f_s·Δx + f_ext·ψ (forces with an amplitude, all moments: they have no potential in 3-D)
    and constraint work −λ·Ḡz, in the order of the driver's energy account.

    Written: its (k,) the Newton iterations of each step done; of the last step tried:
    z (n_var,) its increment (the last Newton iterate when it failed), hist, scales
    (max_it + 1,) the projected residual norms and force scales of its convergence tests,
    r (n_eq,) its last residual over the equations, out (6,) = (iterations, ‖Φ‖, λ·Ḡz,
    history length, external work, pivoted QR partitions chosen). Returns (steps done,
    status code of the last step tried (module constants)).
    """
    d = RigidStepData(*data)
    # the model's arrays as local names, once per call (``_residual_vector``)
    var_eq, eq_var, rot3d, lay_var, lay_nodes = d.var_eq, d.eq_var, d.rot3d, d.lay_var, d.lay_nodes
    m_indptr, m_indices, m_data, M_eq, J0, J0_pinv = d.m_indptr, d.m_indices, d.m_data, d.M_eq, d.J0, d.J0_pinv
    kind, row0, jac0, blk0, Xa, Xb, ta, tb = d.kind, d.row0, d.jac0, d.blk0, d.Xa, d.Xb, d.ta, d.tb
    cj, cb, has_cb, frame, node_a, node_b, rot_a, rot_b = d.c, d.cb, d.has_cb, d.frame, d.node_a, d.node_b, d.rot_a, d.rot_b
    jac_rows, jac_cols, jac_keep = d.jac_rows, d.jac_cols, d.jac_keep
    st_eq_rows, st_eq_cols, st_keep = d.st_eq_rows, d.st_eq_cols, d.st_keep
    nv = u0.size
    ne = eq_var.size
    m = lam0.size
    nk = lay_var.shape[0]
    nj = kind.size
    n_trip = jac_rows.size  # Jacobian triplets at variables
    n_ind = ne - m
    # work arrays, every entry written before it is read in each step (Geq, Gbar_eq, Gbar, G:
    # zero outside the Jacobian pattern: the joint equations of an iterate write only its entries)
    u1, v1, f_s, f_ext = np.empty(nv), np.empty(nv), np.empty(nv), np.empty(nv)
    R1 = np.empty_like(R0)
    pi1 = np.empty_like(pi0)
    lam1, lam_cur, lam_used = np.empty(m), np.empty(m), np.empty(m)
    R0n, Jn = np.empty((nk, 3, 3)), np.empty((nk, 3, 3))
    Ra0, Rb0 = np.empty((nj, 3, 3)), np.empty((nj, 3, 3))
    psi, psi_new = np.empty((nk, 3)), np.empty((nk, 3))
    C, R1n, Rmn, D, dr = (np.empty((nk, 3, 3)), np.empty((nk, 3, 3)), np.empty((nk, 3, 3)), np.empty((nk, 3, 3)),
                          np.empty((nk, 3, 3)))
    full = np.empty(nv)
    K = np.zeros((ne, ne))  # zero outside its pattern (``_step_matrix``)
    phi, phim = np.empty(m), np.empty(m)
    Geq, Gbar_eq = np.zeros((m, ne)), np.zeros((m, ne))
    Gbar, G = np.zeros((m, nv)), np.zeros((m, nv))
    um, jvals, svals, jwork = np.empty(nv), np.empty(d.n_jac), np.empty(d.st_total), np.empty((7, 3))
    sw3, sw33 = np.empty((4, 3)), np.empty((5, 3, 3))
    # the discrete-Jacobian state (R̄_a, R̄_b, d̄, R_a1, R_b1, T_a, T_b) of the last joint
    # equations, which the joints' stiffness of the next iteration uses (as the general loop),
    # and the same of the previous iterate (p…)
    Ra1, Rb1, Ram, Rbm, Ta, Tb = (np.empty((nj, 3, 3)), np.empty((nj, 3, 3)), np.empty((nj, 3, 3)),
                                  np.empty((nj, 3, 3)), np.empty((nj, 3, 3)), np.empty((nj, 3, 3)))
    pRa1, pRb1, pRam, pRbm, pTa, pTb = (np.empty((nj, 3, 3)), np.empty((nj, 3, 3)), np.empty((nj, 3, 3)),
                                        np.empty((nj, 3, 3)), np.empty((nj, 3, 3)), np.empty((nj, 3, 3)))
    dm, pdm = np.empty((nj, 3)), np.empty((nj, 3))
    perm, perm_bar, perm_red = np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty(n_ind, dtype=np.int64)
    # the row ranges of the LU factors of G_d and Ḡ_d, two work rows, the partition's shape (``partition_layout``)
    bands = np.empty((9, m), dtype=np.int64)
    lo, hi, lo_bar, hi_bar, bot, bot_bar, shape = bands[0], bands[1], bands[2], bands[3], bands[4], bands[5], bands[6:9]
    # Gd, Gbd hold complete factors of the partition (``factor_dependent``); its layout made in this call
    held = np.zeros(3, dtype=np.bool_)
    lo_red, hi_red, bot_red = np.empty(n_ind, dtype=np.int64), np.empty(n_ind, dtype=np.int64), np.empty(n_ind, dtype=np.int64)
    col, col_bar, r_dep, res_d = np.empty(m), np.empty(m), np.empty(m), np.empty(m)
    pos = np.zeros(ne, dtype=np.int64)  # place of each equation in the partition (``split``)
    ind = np.empty(n_ind, dtype=np.int64)
    order = np.empty((2, m), dtype=np.int64)  # the rows of G_d in banded order (``split``)
    tq, teq, pr, pk, entries = jacobian_pattern(d)
    places = np.empty((4, entries[0].size), dtype=np.int64)  # where G_d, G_i take the entries (``partition_layout``)
    if part_ref[0] > 0.0:  # a partition kept from an earlier call
        split(part, pos, ind, entries, order)
    k_ptr, k_cols = matrix_pattern(d)
    g_ptr, g_cols = triplet_rows(jac_rows, jac_cols, m, nv)  # where Ḡ over the variables can be non-zero
    # the triplets' places in G, Ḡ (flat) and Ḡ over the equations (``triplet_places``)
    t_flat, t_first, t_eq, t_var = triplet_places(jac_rows, jac_cols, var_eq, m)
    G_flat, Gbar_flat, Gbar_eq_flat = G.reshape(m * nv), Gbar.reshape(m * nv), Gbar_eq.reshape(m * ne)
    Gd, Gbd = np.empty((m, m)), np.empty((m, m))
    Gi, Gbi = np.empty((m, n_ind)), np.empty((m, n_ind))  # G_i and Ḡ_i
    X, Xbar = np.empty((m, n_ind)), np.empty((m, n_ind))  # X = −G_d⁻¹G_i, X̄ = −Ḡ_d⁻¹Ḡ_i
    proj, rhs, y, Y = np.empty(n_ind), np.empty(n_ind), np.empty(n_ind), np.empty(n_ind)
    Kr = np.empty((n_ind, n_ind))
    rk, dx = np.empty(ne), np.empty(ne)
    KX = np.empty((ne, n_ind))
    jcols = d.joint_eqs
    dep = part  # the dependent equations (sorted), kept across iterations and steps
    tol, abs_tol, inc_tol, c_tol, floor, max_turn, length_scale = par[0], par[1], par[2], par[3], par[4], par[5], par[6]
    status = NOT_CONVERGED
    for step in range(hs.size):
        f_s[:] = 0.0
        for j in range(timed.shape[0]):  # as DynamicProblem.scaled_loads
            for i in range(nv):
                f_s[i] += amps[step, j] * timed[j, i]
        for i in range(nv):
            f_ext[i] = f_const[i] + f_s[i]
        par[7] = euclidean_norm(u0)
        u_norm = par[7]
        out[5] = 0.0
        h = hs[step]
        has = has_lam or step > 0
        # constant over the step
        _nodal_inertia(lay_nodes, J0, R0, R0n, Jn)
        fext_norm, mom_scale = _step_scales(eq_var, rot3d, m_indptr, m_indices, m_data, lay_var, v0, pi0, f_ext, h)
        frames(node_a, node_b, rot_a, rot_b, R0, Ra0, Rb0)
        # the predictor: z = h v on the free variables
        for i in range(nv):
            z[i] = h * v0[i] if var_eq[i] >= 0 else 0.0
        lam_cur[:] = lam0
        have = has
        round_off = False
        status = NOT_CONVERGED
        n_hist = 0
        c_norm = 0.0
        it_done = max_it
        for it in range(max_it + 1):
            for k in range(nk):  # the Cayley step of the iterate and its residual
                for a in range(3):
                    psi[k, a] = z[lay_var[k, a]]
            cayley_step_batch(psi, R0n, Jn, pi0, h, C, R1n, Rmn, D, pi1, dr)
            scale = _residual_vector(lay_var, rot3d, m_indptr, m_indices, m_data, eq_var, z, v0, pi0, pi1, h, f_ext, fext_norm,
                                     mom_scale, full, r)
            k_set = False  # K of this iterate written (``_step_matrix``: when a correction or the round-off test needs it)
            R1[:] = R0
            for k in range(nk):
                R1[lay_nodes[k]] = R1n[k]
            used = have
            if it > 0:  # keep the discrete-Jacobian state of the previous iterate for the stiffness term
                pRa1, Ra1 = Ra1, pRa1
                pRb1, Rb1 = Rb1, pRb1
                pRam, Ram = Ram, pRam
                pRbm, Rbm = Rbm, pRbm
                pTa, Ta = Ta, pTa
                pTb, Tb = Tb, pTb
                pdm, dm = dm, pdm
            # the joint equations at the iterate, its Cayley step (ψ, R1) that of the residual
            # (the general loop evaluates those of the predictor before its first residual)
            # Φ (m,), G over the variables, Ḡ over the equations and the variables, and the discrete
            # Jacobian's state (R̄_a, R̄_b, d̄, R_a1, R_b1, T_a, T_b) for the joints' stiffness: only the
            # entries of the Jacobian triplets are written (the others of G, Gbar_eq and Gbar stay zero;
            # G over the equations: ``_spin_jacobian``). Written here, not in a helper: every array a
            # compiled helper takes is counted up and down at each call.
            for i in range(nv):
                u1[i] = u0[i] + z[i]
                um[i] = 0.5 * (u0[i] + u1[i])
            frames(node_a, node_b, rot_a, rot_b, R1, Ra1, Rb1)
            joint_evaluate(kind, row0, jac0, Xa, Xb, ta, tb, cj, cb, has_cb, frame, u1, Ra1, Rb1, phi, jvals, dm, jwork)
            for q in range(n_trip):  # each entry summed over its triplets from +0, in their order
                if t_first[q]:
                    G_flat[t_flat[q]] = 0.0 + jvals[jac_keep[q]]
                else:
                    G_flat[t_flat[q]] += jvals[jac_keep[q]]
            midpoint_frames(Ra0, Rb0, Ra1, Rb1, Ram, Rbm, Ta, Tb)
            phim[:] = 0.0
            joint_evaluate(kind, row0, jac0, Xa, Xb, ta, tb, cj, cb, has_cb, frame, um, Ram, Rbm, phim, jvals, dm, jwork)
            for q in range(n_trip):
                if t_first[q]:
                    Gbar_flat[t_flat[q]] = 0.0 + jvals[jac_keep[q]]
                else:
                    Gbar_flat[t_flat[q]] += jvals[jac_keep[q]]
            for t in range(t_eq.size):
                Gbar_eq_flat[t_eq[t]] = Gbar_flat[t_var[t]]
            if it == 0:  # the predictor's discrete-Jacobian state for the stiffness term of the first correction
                pRa1[:] = Ra1
                pRb1[:] = Rb1
                pRam[:] = Ram
                pRbm[:] = Rbm
                pTa[:] = Ta
                pTb[:] = Tb
                pdm[:] = dm
            # the joints' stiffness with the multiplier estimate λ, at the discrete Jacobian of the
            # previous iterate (of the predictor at it = 0); added when a correction or the
            # round-off test needs K
            lam_used[:] = lam_cur
            stiff = used  # pending
            # null space: the dependent coordinates kept or chosen again, Ḡ_d factorized, and G_d when a
            # correction follows (when G_d makes the partition change, the tests are done again with the new one)
            g_eq = False  # G over the equations written at this iterate (``_spin_jacobian``)
            g_dep = False  # G_d factorized at this iterate
            stop = False
            while True:
                if part_ref[0] > 0.0 and not held[2]:  # a partition kept from an earlier call
                    partition_layout(entries, pos, order, Gi, Gbi, shape, places)
                    held[0] = False
                    held[1] = False
                    held[2] = True
                ok = True
                if part_ref[0] > 0.0:
                    rb = factor_dependent(Gbar_eq, places, shape, held[1], Gbd, Gbi, perm_bar, lo_bar, hi_bar,
                                          bot_bar)
                    held[1] = rb != 0.0
                    if not rb >= RENEW * part_ref[1]:
                        part_ref[0] = 0.0
                if not part_ref[0] > 0.0:  # (re)chosen by pivoted QR of G
                    if not g_eq:
                        _spin_jacobian(jac_rows, jac_cols, lay_var, var_eq, psi, G, tq, teq, pr, pk, Geq)
                        g_eq = True
                    choose_partition(Geq, jcols, part, pos, ind, entries, order)
                    out[5] += 1.0
                    partition_layout(entries, pos, order, Gi, Gbi, shape, places)
                    held[2] = True
                    ra = factor_dependent(Geq, places, shape, False, Gd, Gi, perm, lo, hi, bot)
                    rb = factor_dependent(Gbar_eq, places, shape, False, Gbd, Gbi, perm_bar, lo_bar, hi_bar,
                                          bot_bar)
                    held[0] = ra != 0.0
                    held[1] = rb != 0.0
                    part_ref[0] = ra
                    part_ref[1] = rb
                    g_dep = True
                    ok = ra != 0.0 and rb != 0.0  # (a non-finite G: the residual test reports it)
                if not ok:  # an exact zero pivot of a freshly chosen partition (the general path's LinAlgError)
                    status = DEP_SINGULAR
                    it_done = it
                    stop = True
                    break
                # projected residual N̄ᵀr = r_i + X̄ᵀr_d = r_i − Ḡ_iᵀ μ with Ḡ_dᵀ μ = r_d (λ = −μ), ‖Φ‖
                for i in range(m):
                    r_dep[i] = r[dep[i]]
                lu_solve_t(Gbd, perm_bar, lo_bar, hi_bar, r_dep, col_bar)
                for c in range(n_ind):
                    s = 0.0
                    for i in range(m):
                        s += Gbi[i, c] * col_bar[i]
                    proj[c] = r[ind[c]] - s
                norm = euclidean_norm(proj)
                c_norm = euclidean_norm(phi)
                hist[n_hist] = norm
                scales[n_hist] = scale
                n_hist += 1
                if not math.isfinite(norm + c_norm):
                    status = NOT_FINITE
                    it_done = it
                    stop = True
                    break
                for i in range(m):
                    lam1[i] = -col_bar[i]
                c_ok = c_norm <= c_tol
                threshold = abs_tol if abs_tol > 0.0 else tol * scale
                if norm <= threshold and c_ok:
                    status = CONVERGED
                    it_done = it
                    stop = True
                    break
                if c_ok and round_off and norm <= 1e-4 * scale:
                    status = ROUND_OFF
                    it_done = it
                    stop = True
                    break
                if c_ok and n_hist >= 4:
                    low = min(hist[n_hist - 4], hist[n_hist - 3], hist[n_hist - 2])
                    if not hist[n_hist - 1] < 0.25 * low:
                        at_floor = floor > 0.0 and hist[n_hist - 1] <= floor * scale
                        if not at_floor:
                            if not k_set:
                                _step_matrix(M_eq, lay_var, var_eq, h, dr, k_ptr, k_cols, K)
                                k_set = True
                            if stiff:
                                midpoint_stiffness_into(kind, row0, blk0, cj, cb, has_cb, frame, pRam, pRbm, pdm, pRa1, pRb1, pTa, pTb,
                                                        lam_used, svals, sw3, sw33)
                                _scatter_stiffness(st_eq_rows, st_eq_cols, st_keep, svals, K)
                                stiff = False
                            at_floor = hist[n_hist - 1] <= _rounding(K, d, u0, z)
                        if at_floor:
                            status = NOISE_FLOOR
                            it_done = it
                            stop = True
                            break
                if it == max_it:
                    stop = True
                    break
                if not g_dep:  # G_d for the correction; the partition is kept while G_d stays well conditioned
                    if not g_eq:
                        _spin_jacobian(jac_rows, jac_cols, lay_var, var_eq, psi, G, tq, teq, pr, pk, Geq)
                        g_eq = True
                    ra = factor_dependent(Geq, places, shape, held[0], Gd, Gi, perm, lo, hi, bot)
                    held[0] = ra != 0.0
                    g_dep = True
                    if not ra >= RENEW * part_ref[0]:
                        part_ref[0] = 0.0
                        n_hist -= 1
                        continue
                break
            if stop:
                break
            # the correction: δq_p = [−G_d⁻¹Φ; 0], N̄ᵀ K N δq_i = −N̄ᵀ(r + K δq_p), δq = N δq_i + δq_p
            if not k_set:
                _step_matrix(M_eq, lay_var, var_eq, h, dr, k_ptr, k_cols, K)
            if stiff:
                midpoint_stiffness_into(kind, row0, blk0, cj, cb, has_cb, frame, pRam, pRbm, pdm, pRa1, pRb1, pTa, pTb, lam_used, svals,
                                        sw3, sw33)
                _scatter_stiffness(st_eq_rows, st_eq_cols, st_keep, svals, K)
            lu_solve_many(Gbd, perm_bar, lo_bar, hi_bar, Gbi, Xbar)
            lu_solve_many(Gd, perm, lo, hi, Gi, X)
            for i in range(m):
                for c in range(n_ind):
                    Xbar[i, c] = -Xbar[i, c]
                    X[i, c] = -X[i, c]
            lu_solve(Gd, perm, lo, hi, phi, col)  # δq_p on the dependent coordinates: −col
            for e in range(ne):  # r + K δq_p and K_·d X (over K's pattern: the other terms are exact zeros)
                s = r[e]
                for b in range(n_ind):
                    KX[e, b] = 0.0
                for q in range(k_ptr[e], k_ptr[e + 1]):
                    i = pos[k_cols[q]]
                    if i < 0:
                        continue
                    kv = K[e, k_cols[q]]
                    s -= kv * col[i]
                    if kv != 0.0:
                        for b in range(n_ind):
                            KX[e, b] += kv * X[i, b]
                rk[e] = s
            for a in range(n_ind):  # N̄ᵀ K N = K_ii + K_id X + X̄ᵀ (K_di + K_dd X)
                s = rk[ind[a]]
                for i in range(m):
                    s += Xbar[i, a] * rk[dep[i]]
                rhs[a] = -s
                for b in range(n_ind):
                    Kr[a, b] = K[ind[a], ind[b]] + KX[ind[a], b]
            for i in range(m):  # Y: row i of K_di + K_dd X
                for b in range(n_ind):
                    Y[b] = K[dep[i], ind[b]] + KX[dep[i], b]
                for a in range(n_ind):
                    xa = Xbar[i, a]
                    if xa != 0.0:
                        for b in range(n_ind):
                            Kr[a, b] += xa * Y[b]
            if n_ind:  # N̄ᵀKN is dense: its LU told so (no scan of its entries)
                for a in range(n_ind):
                    hi_red[a] = n_ind
                    bot_red[a] = n_ind - 1
                if not lu_factor_pattern(Kr, perm_red, lo_red, hi_red, bot_red) > 1e-13:
                    status = SINGULAR
                    it_done = it
                    break
                lu_solve(Kr, perm_red, lo_red, hi_red, rhs, y)
            for c in range(n_ind):
                dx[ind[c]] = y[c]
            for i in range(m):
                s = -col[i]
                for c in range(n_ind):
                    s += X[i, c] * y[c]
                dx[dep[i]] = s
            # the rotation-turn limit of the correction
            eta = 1.0
            if max_turn > 0.0 and math.isfinite(max_turn):
                for k in range(nk):
                    for a in range(3):
                        v = lay_var[k, a]
                        e = var_eq[v]
                        psi_new[k, a] = z[v] + (dx[e] if e >= 0 else 0.0)
                turn = cayley_turn(psi, psi_new)
                if turn > max_turn:
                    eta = max_turn / turn
            # Newton's multiplier update for the next curvature term (damped with the step)
            for i in range(m):
                s = 0.0
                for q in range(k_ptr[dep[i]], k_ptr[dep[i] + 1]):
                    s += K[dep[i], k_cols[q]] * dx[k_cols[q]]
                res_d[i] = r[dep[i]] + s
            lu_solve_t(Gbd, perm_bar, lo_bar, hi_bar, res_d, col_bar)
            for i in range(m):  # λ_new = −col_bar
                if not used or eta == 1.0:
                    lam_cur[i] = -col_bar[i]
                else:
                    lam_cur[i] = lam_used[i] + eta * (-col_bar[i] - lam_used[i])
            have = True
            for e in range(ne):
                dx[e] = dx[e] * eta
                z[eq_var[e]] += dx[e]
            reference = max(euclidean_norm(z), u_norm, length_scale)
            round_off = euclidean_norm(dx) <= inc_tol * reference
        # the joint reactions' work term λ·Ḡz at the accepted state, each row's sum over the
        # columns Ḡ can fill, ascending (the others are exact zeros, and z is finite)
        s = 0.0
        for i in range(m):
            t = 0.0
            for q in range(g_ptr[i], g_ptr[i + 1]):
                t += Gbar[i, g_cols[q]] * z[g_cols[q]]
            s += lam1[i] * t
        out[0] = it_done
        out[1] = c_norm
        out[2] = s
        out[3] = n_hist
        s = 0.0
        for i in range(nv):
            s += (f_ext[i] if rot3d[i] else f_s[i]) * z[i]
        out[4] = s
        if not (status == CONVERGED or status == ROUND_OFF or status == NOISE_FLOOR):
            return step, status
        _finish_state(lay_var, lay_nodes, J0, J0_pinv, u0, v0, z, R1, pi1, h, u1, v1)  # the state at t_n + h
        its[step] = it_done
        books[0] += out[4]
        books[1] += -out[2]
        u0[:] = u1
        v0[:] = v1
        R0[:] = R1
        pi0[:] = pi1
        lam0[:] = lam1
    return hs.size, status


@jit(inline="always")
def _finish(d, u0, v0, z, R1, pi1, h, u1, v1):
    """End-of-step state: u1 = u0 + z with log R1 in the rotational slots, v1 = 2z/h − v0
    with the spatial angular velocities of the oriented nodes (``finish_rotary``)."""
    _finish_state(d.lay_var, d.lay_nodes, d.J0, d.J0_pinv, u0, v0, z, R1, pi1, h, u1, v1)


@jit(inline="always")
def _finish_state(lay_var, lay_nodes, J0, J0_pinv, u0, v0, z, R1, pi1, h, u1, v1):
    """``_finish`` from the model arrays of RigidStepData."""
    nv = u0.size
    for i in range(nv):
        u1[i] = u0[i] + z[i]
        v1[i] = (2.0 / h) * z[i] - v0[i]
    nk = lay_var.shape[0]
    Rn = np.empty((nk, 3, 3))
    for k in range(nk):
        Rn[k] = R1[lay_nodes[k]]
    finish_rotary(lay_var, J0, J0_pinv, Rn, pi1, z, v0, h, u1, v1)


@jit(internal=True)
def finish_rotary(lay_var, J0, J0_pinv, Rn, pi1, z, v0, h, u1, v1):
    """The rotational slots of the end-of-step state of the oriented nodes (rotational
    variables ``lay_var`` (k, 3), body inertia J0 and its pseudo-inverse (k, 3, 3)): log Rn
    in u1, and in v1 the spatial angular velocities J⁺π + (I − J⁺J)(2ψ/h − ω_n) at the
    end-of-step rotations Rn (k, 3, 3) and momenta π1 (k, 3) (J = Rn J0 Rnᵀ; ψ from z,
    ω_n from v0 (n_var,))."""
    nk = lay_var.shape[0]
    th = np.empty((nk, 3))
    log_batch(Rn, th)
    J = np.empty((3, 3))
    Jp = np.empty((3, 3))
    t1 = np.empty((3, 3))
    fb = np.empty(3)
    for k in range(nk):
        R = Rn[k]
        for a in range(3):
            u1[lay_var[k, a]] = th[k, a]
            fb[a] = (2.0 / h) * z[lay_var[k, a]] - v0[lay_var[k, a]]
        for which in range(2):
            S = J0[k] if which == 0 else J0_pinv[k]
            for a in range(3):
                for b in range(3):
                    t1[a, b] = R[a, 0] * S[0, b] + R[a, 1] * S[1, b] + R[a, 2] * S[2, b]
            for a in range(3):
                for b in range(3):
                    val = t1[a, 0] * R[b, 0] + t1[a, 1] * R[b, 1] + t1[a, 2] * R[b, 2]
                    if which == 0:
                        J[a, b] = val
                    else:
                        Jp[a, b] = val
        for a in range(3):
            wa = Jp[a, 0] * pi1[k, 0] + Jp[a, 1] * pi1[k, 1] + Jp[a, 2] * pi1[k, 2]
            for b in range(3):
                nab = (1.0 if a == b else 0.0) - (Jp[a, 0] * J[0, b] + Jp[a, 1] * J[1, b] + Jp[a, 2] * J[2, b])
                wa += nab * fb[b]
            v1[lay_var[k, a]] = wa
