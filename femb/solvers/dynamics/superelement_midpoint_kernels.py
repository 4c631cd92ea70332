"""Compiled whole time step of the energy-momentum mid-point scheme for superelement models.

One call of ``superelement_midpoint_step`` runs every Newton iteration of one step
t_n → t_n + h of femb.solvers.dynamics.midpoint3d for a model whose elements are one block
of co-rotated Craig–Bampton superelements (elements.superelement_step), with the nodes'
translational mass and rotary inertia (constant M, J0 per oriented node), supports,
prescribed DOFs, loads given at the step's mid time and a gravity field on the mass points.
It is the general path (MidPoint3DSystem iterated by femb.solvers.nonlinear.step_newton.iterate,
the elements' step forces assembled by femb.solvers.dynamics.point_inertia.PointInertia)
operation for operation, on dense arrays:

- residual over the free equations: the nodal inertia M ((2/h²) Δx − (2/h) v_n) and
  (π_{n+1} − π_n)/h of the oriented nodes (rigid_step_kernels ``_residual``), plus the
  elements' step forces (elastic discrete gradient and the inertia of the mass points:
  ``step_from_start`` with the points' velocity moments of the step; points
  with second-order rows do not qualify), minus the loads; force scale
  max(‖f‖, ‖inertia‖, ‖f_ext‖, |momentum|/h);
- step matrix: (2/h²) M, the rotary-inertia derivative and the elements' analytic
  matrices; as PointInertia.assemble, a later evaluation of the step whose element
  increments lie within ``reuse_change`` of those the matrices were computed at keeps
  them and evaluates the forces alone;
- dense LU with partial pivoting (singular below a pivot ratio of 1e-13), the rotation-turn
  limit of a correction, and the tests of ``iterate``: force test (relative or absolute),
  noise floor or round-off level ε‖|K|·|x|‖ of a stalled residual, correction at round-off,
  divergence, iteration cap;
- once converged, the end state (``rigid_step_kernels._finish``) and the work of the scaled
  loads and of the reactions on the prescribed variables.

Between the steps of one call (``superelement_midpoint_steps``) the mass points are carried
as reduced quantities (elements.superelement_point_moments): their velocity moments with
the weights m_j (the inertia force) and m_j² (the momentum scale Σ m_j²|v_j|²) advance
exactly with each step's frame and deformation (v_{j,n+1} = 2Δx_j/h − v_{j,n}), so a step
never touches the points; their positions and velocities are made once, when the call
hands its state back. The points' moments differ from per-point sums by round-off only.

The residual norms are compiled sums of squares, not BLAS dot products: results agree with
the general path to round-off. Arrays are float64 / int64 (femb.core.jit); ``data`` is the
model's RigidStepData as a plain tuple (its joint arrays empty).
"""
import math

import numpy as np

from femb.core.jit import jit
from femb.core.rotations import cayley_turn, exp_batch
from femb.elements.superelement_point_moments import (
    advance_moments,
    advance_velocity_map,
    point_velocities,
    shifted_moments,
    start_moments,
)
from femb.elements.superelement_step import _moments, moment_views, point_positions, step_from_start, step_start
from femb.solvers.dynamics.rigid_step_kernels import (
    CONVERGED,
    NOISE_FLOOR,
    NOT_CONVERGED,
    NOT_FINITE,
    ROUND_OFF,
    SINGULAR,
    RigidStepData,
    _finish,
    _residual,
    _rounding,
    nodal_inertia,
    step_scales,
)
from femb.solvers.linalg.dense_kernels import euclidean_norm, lu_bands, lu_factor, lu_solve

DIVERGED = 7  # status: the residual grew beyond divergence_factor × the first one


@jit
def _gather(u, R, var, cells, ue, Re):
    """The block's element values ue (n_el, m) = u[var] (0 where var < 0) and nodal
    rotations Re (n_el, n, 3, 3) = R[cells]."""
    for e in range(var.shape[0]):
        for i in range(var.shape[1]):
            q = var[e, i]
            ue[e, i] = u[q] if q >= 0 else 0.0
        for a in range(cells.shape[1]):
            Re[e, a] = R[cells[e, a]]


@jit(internal=True)
def _element_inputs(u0, z, psi, lay_nodes, var, cells, psi_n, u1, u1e, psie):
    """u1 = u0 + z (n_var,) and the block's gathered end values: u1e (n_el, m), ψ per
    element node psie (n_el, n, 3) (ψ_n (n_nodes, 3) the oriented nodes' Cayley vectors,
    zero elsewhere)."""
    for i in range(u0.size):
        u1[i] = u0[i] + z[i]
    for k in range(lay_nodes.size):
        for c in range(3):
            psi_n[lay_nodes[k], c] = psi[k, c]
    for e in range(var.shape[0]):
        for i in range(var.shape[1]):
            q = var[e, i]
            u1e[e, i] = u1[q] if q >= 0 else 0.0
        for a in range(cells.shape[1]):
            for c in range(3):
                psie[e, a, c] = psi_n[cells[e, a], c]


@jit(internal=True)
def _increments_close(u0e, u1e, psie, dz_ref, scales, change, store):
    """Whether every element increment (Δx, ψ, Δq̂) differs from ``dz_ref`` (n_el, m) by at
    most change × scales (PointInertia._close); with ``store`` writes it into dz_ref."""
    n = psie.shape[1]
    close = True
    for e in range(u0e.shape[0]):
        for i in range(u0e.shape[1]):
            a, c = i // 6, i % 6
            dz = psie[e, a, c - 3] if (a < n and c >= 3) else u1e[e, i] - u0e[e, i]
            if store:
                dz_ref[e, i] = dz
            elif not abs(dz - dz_ref[e, i]) <= change * scales[e, i]:
                close = False
    return close


@jit
def _evaluate(d, z, u0, v0, pi0, R0n, Jn, h, f_ext, fext_norm, mom_scale, psi, C, R1n, Rmn, D, pi1, dr, full, r, K,
              X, var, cells, props, u0e, R0e, psi_n, u1, u1e, psie, fe, Ke, Kref, dz_ref, scales, change, first, vm,
              st, dz, fsc):
    """Residual r (n_eq,), step matrix K (n_eq, n_eq) and force scale at the increment z:
    the nodal inertia (``_residual``) plus the superelements' step forces and matrices
    (the matrices of the step's earlier evaluation kept when the increments are close,
    module docstring; ``first``: the step's first evaluation), from the points' velocity
    moments vm = (P0 (n_el, 3), V (n_el, 3, 3), Vd (n_el, 3, m, 3)) and the elements'
    start-of-step quantities st = (d0 (n_el, m), Rs0 (n_el, 3, 3), o0 (n_el, 3), g0 (n_el, m),
    V0 (n_el,)) (superelement_step.step_start) of the step. ``full`` (n_var,) receives the
    residual over all variables; dz (m,) and fsc (n_var,) are work arrays."""
    scale = _residual(d, z, u0, v0, pi0, R0n, Jn, h, f_ext, fext_norm, mom_scale, psi, C, R1n, Rmn, D, pi1, dr, full, r, K)
    _element_inputs(u0, z, psi, d.lay_nodes, var, cells, psi_n, u1, u1e, psie)
    reuse = not first and _increments_close(u0e, u1e, psie, dz_ref, scales, change, False)
    P0, V, Vd = vm
    n = cells.shape[1]
    for e in range(var.shape[0]):  # from the points' velocity moments of the step, one element at a time
        for i in range(var.shape[1]):
            a, c = i // 6, i % 6
            dz[i] = psie[e, a, c - 3] if (a < n and c >= 3) else u1e[e, i] - u0e[e, i]
        step_from_start(X[e: e + 1], u0e[e: e + 1], R0e[e: e + 1], dz, h, props[e], P0[e], V[e], Vd[e],
                        (st[0][e], st[1][e], st[2][e], st[3][e], st[4][e]), fe[e], Ke[e], 0 if reuse else 1)
    if reuse:
        for e in range(Ke.shape[0]):
            Ke[e] = Kref[e]
    else:
        for e in range(Ke.shape[0]):
            Kref[e] = Ke[e]
        _increments_close(u0e, u1e, psie, dz_ref, scales, change, True)
    for i in range(z.size):  # the element forces over the variables
        fsc[i] = 0.0
    var_eq = d.var_eq
    for e in range(var.shape[0]):
        for a in range(var.shape[1]):
            q = var[e, a]
            if q < 0:
                continue
            fsc[q] += fe[e, a]
            ea = var_eq[q]
            if ea < 0:
                continue
            for b in range(var.shape[1]):
                qb = var[e, b]
                if qb >= 0 and var_eq[qb] >= 0:
                    K[ea, var_eq[qb]] += Ke[e, a, b]
    for i in range(z.size):
        full[i] += fsc[i]
    s = 0.0
    for e in range(r.size):
        q = d.eq_var[e]
        r[e] = full[q]
        s += fsc[q] * fsc[q]
    return max(math.sqrt(s), scale)


@jit(internal=True)
def step_work(nv, ne, nk, n_nodes, n_el, n, m):
    """The work arrays of ``superelement_midpoint_step`` for n_var variables, n_eq equations,
    k oriented nodes of n_nodes, n_el elements of n interface nodes and m coordinates."""
    return (np.empty((nk, 3, 3)), np.empty((nk, 3, 3)), np.zeros((n_nodes, 3)), np.empty((n_el, m)), np.empty((n_el, n, 3)),
            np.empty((n_el, m)), np.empty((n_el, m, m)), np.empty((n_el, m, m)), np.empty((n_el, m)), np.empty((nk, 3)),
            np.empty((nk, 3)), np.empty((nk, 3, 3)), np.empty((nk, 3, 3)), np.empty((nk, 3, 3)), np.empty((nk, 3, 3)),
            np.empty((nk, 3, 3)), np.empty(nv), np.empty((ne, ne)), np.empty(ne, dtype=np.int64), np.empty(ne, dtype=np.int64),
            np.empty(ne, dtype=np.int64), np.empty(ne), np.empty(nv), np.empty(m), np.empty(nv))


@jit(internal=True)
def superelement_midpoint_step(data, X, var, cells, props, scales, change, u0, v0, R0, pi0, u0e, R0e, h, vm, st, f_ext, f_s,
                               fext_norm, mom_scale, z0, pres_var, par, max_it, z, R1, pi1, u1, v1, hist, r, out, wk):
    """All Newton iterations of one mid-point step of a superelement model (module docstring).

    Inputs: ``data`` the model's RigidStepData as a plain tuple; the superelement block's
    X (n_el, n, 3), var (n_el, m), cells (n_el, n), props; ``scales`` (n_el, m) and
    ``change`` the matrix-reuse test (PointInertia._scales, reuse_change; change < 0: never
    reuse); u0, v0 (n_var,) the state at t_n; R0 (n_nodes, 3, 3); π0 (k, 3); u0e (n_el, m)
    and R0e (n_el, n, 3, 3) the block's values at t_n (``_gather``); h the step; vm the
    velocity moments of the points' start velocities shifted by h g/2 (``_evaluate``); st the
    elements' start of the step (``_evaluate``); f_ext (n_var,) the loads at t_n + h/2 and
    f_s their time-scaled part; the general step's force norm ‖f_ext‖ and momentum scale; z0
    (n_var,) the predictor (prescribed and fixed increments imposed); ``pres_var`` the
    prescribed variables; par (8,) = (tolerance, absolute tolerance or NaN, increment
    tolerance, divergence factor, noise floor, max turn or 0, length scale, ‖u0‖);
    ``max_it``; ``wk`` the work arrays of ``step_work``.

    Outputs: z (n_var,) the accepted increment; R1, π1 at z; hist (max_it + 1,) the
    residual norms; r (n_eq,) the last residual; out (3,) = (iterations, history length,
    external work f_s·Δx + f_ext·ψ of the step, work of the reactions on the prescribed
    variables); once converged u1, v1 (n_var,) at t_n + h.
    Returns the status code (rigid_step_kernels, plus DIVERGED)."""
    d = RigidStepData(*data)
    nv = u0.size
    ne = d.eq_var.size
    nk = d.lay_var.shape[0]
    tol, abs_tol, inc_tol, div, floor, max_turn, length_scale, u_norm = (par[0], par[1], par[2], par[3], par[4],
                                                                         par[5], par[6], par[7])
    (R0n, Jn, psi_n, u1e, psie, fe, Ke, Kref, dz_ref, psi, psi_new, C, R1n, Rmn, D, dr, full, K, perm, lo, hi, dz, z_new,
     dze, fsc) = wk
    nodal_inertia(d, R0, R0n, Jn)
    for i in range(nv):
        z[i] = z0[i]
    status = NOT_CONVERGED
    n_hist = 0
    it_done = max_it
    round_off = False
    for it in range(max_it + 1):
        first = it == 0 or change < 0.0
        scale = _evaluate(d, z, u0, v0, pi0, R0n, Jn, h, f_ext, fext_norm, mom_scale, psi, C, R1n, Rmn, D, pi1, dr, full, r,
                          K, X, var, cells, props, u0e, R0e, psi_n, u1, u1e, psie, fe, Ke, Kref, dz_ref, scales, change,
                          first, vm, st, dze, fsc)
        if round_off:  # the last correction was at round-off: accepted (the system left at z)
            status, it_done = ROUND_OFF, it
            break
        norm = euclidean_norm(r)
        hist[n_hist] = norm
        n_hist += 1
        if not math.isfinite(norm):
            status, it_done = NOT_FINITE, it
            break
        threshold = abs_tol if abs_tol == abs_tol else tol * scale
        if norm <= threshold:
            status, it_done = CONVERGED, it
            break
        if n_hist >= 4:  # at_noise_floor: not 4× below the smallest of the three before
            low = min(hist[n_hist - 4], min(hist[n_hist - 3], hist[n_hist - 2]))
            if not norm < 0.25 * low:
                if (floor and norm <= floor * scale) or norm <= _rounding(K, d, u0, z):
                    status, it_done = NOISE_FLOOR, it
                    break
        if it == max_it:
            break
        if n_hist > 2 and norm > div * max(hist[0], 1e-300):
            status, it_done = DIVERGED, it
            break
        if not lu_factor(K, perm) > 1e-13:
            status, it_done = SINGULAR, it
            break
        lu_bands(K, lo, hi)
        lu_solve(K, perm, lo, hi, r, dz)
        for e in range(ne):
            dz[e] = -dz[e]
        eta = 1.0
        if max_turn > 0.0 and nk:  # the rotation-turn limit (_StepSystem.limit)
            for i in range(nv):
                z_new[i] = z[i]
            for e in range(ne):
                z_new[d.eq_var[e]] += dz[e]
            for k in range(nk):
                for a in range(3):
                    psi[k, a] = z[d.lay_var[k, a]]
                    psi_new[k, a] = z_new[d.lay_var[k, a]]
            turn = cayley_turn(psi, psi_new)
            eta = 1.0 if turn <= max_turn else max_turn / turn
        for e in range(ne):
            dz[e] = dz[e] * eta
        for e in range(ne):
            z[d.eq_var[e]] += dz[e]
        if norm <= 1e-4 * scale and euclidean_norm(dz) <= inc_tol * max(euclidean_norm(z), max(u_norm, length_scale)):
            round_off = True  # (the next pass evaluates at z and accepts it, iterations it + 1)
    out[0] = it_done
    out[1] = n_hist
    s = 0.0
    for i in range(nv):
        s += (f_ext[i] if d.rot3d[i] else f_s[i]) * z[i]
    out[2] = s
    s = 0.0
    for k in range(pres_var.size):
        s += full[pres_var[k]] * z[pres_var[k]]
    out[3] = s
    if status == CONVERGED or status == ROUND_OFF or status == NOISE_FLOOR:
        for i in range(R0.shape[0]):
            R1[i] = R0[i]
        for k in range(nk):
            R1[d.lay_nodes[k]] = R1n[k]
        _finish(d, u0, v0, z, R1, pi1, h, u1, v1)
    return status


@jit(internal=True)
def _step_start(d, u0, v0, pi0, S2, h, f_ext, keep_var, keep_val, rot_var, rot_node, Rp, R0, fixed, z0, C):
    """The predictor z0 (n_var,) of a step (MidPoint3DSystem: z = h v, the prescribed
    increments — values ``keep_val`` at t_n + h on ``keep_var``, the Cayley vectors of
    R_p(t_n + h) R_nᵀ on the rotations ``rot_var`` (nr, 3) of the nodes ``rot_node`` —, zero
    on the ``fixed`` variables); returns (‖f_ext‖ over the equations, |momentum|/h: of the
    nodes over the equations and of the mass points, S2 = Σ m_j² |v_j|²); C (3, 3) work."""
    nv = u0.size
    for i in range(nv):
        z0[i] = h * v0[i]
    for q in range(keep_var.size):
        z0[keep_var[q]] = keep_val[q] - u0[keep_var[q]]
    for k in range(rot_var.shape[0]):
        R = R0[rot_node[k]]
        for a in range(3):
            for b in range(3):
                C[a, b] = Rp[k, a, 0] * R[b, 0] + Rp[k, a, 1] * R[b, 1] + Rp[k, a, 2] * R[b, 2]
        tr = 1.0 + C[0, 0] + C[1, 1] + C[2, 2]
        z0[rot_var[k, 0]] = 2.0 * (C[2, 1] - C[1, 2]) / tr
        z0[rot_var[k, 1]] = 2.0 * (C[0, 2] - C[2, 0]) / tr
        z0[rot_var[k, 2]] = 2.0 * (C[1, 0] - C[0, 1]) / tr
    for q in range(fixed.size):
        z0[fixed[q]] = 0.0
    fext_norm, scale = step_scales(d, v0, pi0, f_ext, h)
    return fext_norm, max(scale, math.sqrt(S2) / h)


@jit(internal=True)
def _advance_points(X, var, cells, props, moments2, u, R, ue, Re, st0, st1, h, P, V, Vd, S2, a, B, Cv, work):
    """After an accepted step to (u, R): the elements' start quantities of the next step st1
    (``step_start``, the end of this one) and the points' reduced state carried from st0
    (the start of this one) to st1: the velocity moments P, V, Vd with both weights and S2
    per element (superelement_point_moments.advance_moments) and the velocity map a, B, Cv
    (``advance_velocity_map``); ``moments2`` (n_el, ·) the m_j²-weighted mass moments."""
    m = var.shape[1]
    do, dR, dd, A, Bw, Cw = work
    _gather(u, R, var, cells, ue, Re)
    for e in range(var.shape[0]):
        st1[4][e] = step_start(X[e: e + 1], ue[e: e + 1], Re[e: e + 1], props[e], st1[0][e], st1[1][e], st1[2][e], st1[3][e])
        d0, Rs0, o0 = st0[0][e], st0[1][e], st0[2][e]
        d1, Rs1, o1 = st1[0][e], st1[1][e], st1[2][e]
        for i in range(3):
            do[i] = o1[i] - o0[i]
            for j in range(3):
                dR[i, j] = Rs1[i, j] - Rs0[i, j]
        for i in range(m):
            dd[i] = d1[i] - d0[i]
        advance_moments(_moments(props[e], m), do, dR, Rs0, d1, dd, h, P[e, 0], V[e, 0], Vd[e, 0], A, Bw, Cw)
        xx, xv = advance_moments(moment_views(moments2[e], 0, m), do, dR, Rs0, d1, dd, h, P[e, 1], V[e, 1], Vd[e, 1], A, Bw,
                                 Cw)
        S2[e] += (4.0 / (h * h)) * xx - (4.0 / h) * xv
        advance_velocity_map(do, dR, Rs0, d1, dd, h, a[e], B[e], Cv[e])


@jit
def superelement_midpoint_steps(data, X, var, cells, props, moments2, scales, change, u, v, R, pi, px, pv, hs, amps, timed,
                                f_const, keep_var, keep_val, rot_var, rot_node, theta, fixed, pres_var, par, max_it, its,
                                books):
    """Mid-point steps of a superelement model from the state (u, v (n_var,), R (n_nodes,
    3, 3), π (k, 3), the points' px, pv (n_el, n_p, 3)), each overwritten with the state
    after the last accepted step.

    Step j has the size ``hs[j]``; loads f_const + Σ_i ``amps[j, i]``·``timed[i]``
    (amplitudes at its mid time; timed (n_timed, n_var)); prescribed values ``keep_val[j]``
    (q,) on ``keep_var`` and rotation vectors ``theta[j]`` (nr, 3) of the prescribed
    rotations R_p = exp(θ̂) of the nodes ``rot_node`` (their variables ``rot_var``), both at
    its end; ``fixed`` variables stay. Block, ``scales``, ``change``, ``pres_var``, ``par``
    (its last entry set per step) and ``max_it`` as ``superelement_midpoint_step``;
    ``moments2`` (n_el, ·) the points' mass moments with the weights m_j² (point_moments).
    Between the steps the points are carried as reduced quantities
    (elements.superelement_point_moments): their velocity moments once from pv, their
    positions and velocities once at the end. Writes each step's Newton iterations to
    ``its`` and adds its external and constraint work to ``books`` [W, W_c].

    Returns (steps done, status of the step that stopped them: 0 all done, else the code of
    ``superelement_midpoint_step``)."""
    d = RigidStepData(*data)
    nv = u.size
    ne = d.eq_var.size
    n_timed = timed.shape[0]
    n_el, m = var.shape
    n = cells.shape[1]
    grav = np.zeros(3)
    for a in range(3):
        grav[a] = par[8 + a]
    z0 = np.empty(nv)
    z = np.empty(nv)
    u1 = np.empty(nv)
    v1 = np.empty(nv)
    R1 = np.empty_like(R)
    pi1 = np.empty_like(pi)
    f_s = np.zeros(nv)
    f_ext = np.empty(nv)
    hist = np.empty(max_it + 1)
    r = np.empty(ne)
    out = np.empty(4)
    C3 = np.empty((3, 3))
    Rp = np.empty((rot_var.shape[0], 3, 3))
    wk = step_work(nv, ne, d.lay_var.shape[0], R.shape[0], n_el, n, m)
    ue = np.empty((n_el, m))
    Re = np.empty((n_el, n, 3, 3))
    st0 = (np.empty((n_el, m)), np.empty((n_el, 3, 3)), np.empty((n_el, 3)), np.empty((n_el, m)), np.empty(n_el))
    st1 = (np.empty((n_el, m)), np.empty((n_el, 3, 3)), np.empty((n_el, 3)), np.empty((n_el, m)), np.empty(n_el))
    P = np.empty((n_el, 2, 3))
    V = np.empty((n_el, 2, 3, 3))
    Vd = np.empty((n_el, 2, 3, m, 3))
    S2 = np.empty(n_el)
    vm = (np.empty((n_el, 3)), np.empty((n_el, 3, 3)), np.empty((n_el, 3, m, 3)))
    a_map = np.zeros((n_el, 3))
    B_map = np.zeros((n_el, 3, 3))
    C_map = np.zeros((n_el, 3, 3, m))
    work = (np.empty(3), np.empty((3, 3)), np.empty(m), np.empty(3), np.empty((3, 3)), np.empty((3, m, 3)))
    sign = 1.0
    _gather(u, R, var, cells, ue, Re)
    for e in range(n_el):
        st0[4][e] = step_start(X[e: e + 1], ue[e: e + 1], Re[e: e + 1], props[e], st0[0][e], st0[1][e], st0[2][e], st0[3][e])
        S2[e] = start_moments(props[e], m, pv[e], P[e], V[e], Vd[e])
    done = hs.size
    status = 0
    for step in range(hs.size):
        h = hs[step]
        for i in range(nv):
            f_s[i] = 0.0
        for q in range(n_timed):
            a = amps[step, q]
            for i in range(nv):
                f_s[i] += a * timed[q, i]
        for i in range(nv):
            f_ext[i] = f_const[i] + f_s[i]
        if rot_var.shape[0]:
            exp_batch(theta[step], Rp)
        s = 0.0
        for e in range(n_el):
            s += S2[e]
        fext_norm, mom_scale = _step_start(d, u, v, pi, s, h, f_ext, keep_var, keep_val[step], rot_var, rot_node, Rp, R,
                                           fixed, z0, C3)
        s = 0.0
        for i in range(nv):
            s += u[i] * u[i]
        par[7] = math.sqrt(s)
        for e in range(n_el):
            shifted_moments(props[e], m, P[e, 0], V[e, 0], Vd[e, 0], 0.5 * h, grav, vm[0][e], vm[1][e], vm[2][e])
        st = st0
        status = superelement_midpoint_step(data, X, var, cells, props, scales, change, u, v, R, pi, ue, Re, h, vm, st,
                                            f_ext, f_s, fext_norm, mom_scale, z0, pres_var, par, max_it, z, R1, pi1, u1,
                                            v1, hist, r, out, wk)
        if not (status == CONVERGED or status == ROUND_OFF or status == NOISE_FLOOR):
            done = step
            break
        status = 0
        its[step] = int(out[0])
        books[0] += out[2]
        books[1] += out[3]
        u[:] = u1
        v[:] = v1
        R[:] = R1
        pi[:] = pi1
        _advance_points(X, var, cells, props, moments2, u, R, ue, Re, st0, st1, h, P, V, Vd, S2, a_map, B_map, C_map,
                        work)
        sign = -sign
        st0, st1 = st1, st0
    if done:  # the points' state at the last accepted step
        point_positions(X, ue, Re, props, px)
        for e in range(n_el):
            point_velocities(props[e], m, sign, a_map[e], B_map[e], C_map[e], pv[e])
    return done, status
