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
  ``step_from_moments`` with the points' velocity moments computed once per step; points
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
- once converged, the end state (``rigid_step_kernels._finish``), the points' positions
  (``point_positions``) and velocities v_{j,n+1} = 2(x_{j,n+1} − x_{j,n})/h − v_{j,n}, and the work
  of the scaled loads and of the reactions on the prescribed variables.

The residual norms are compiled sums of squares, not BLAS dot products: results agree with
the general path to round-off. Arrays are float64 / int64 (femb.core.jit); ``data`` is the
model's RigidStepData as a plain tuple (its joint arrays empty).
"""
import math

import numpy as np

from femb.core.jit import jit
from femb.core.rotations import cayley_turn, exp_batch
from femb.elements.superelement_step import point_positions, step_from_start, step_start, velocity_moments
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


@jit
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


@jit
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
              st):
    """Residual r (n_eq,), step matrix K (n_eq, n_eq) and force scale at the increment z:
    the nodal inertia (``_residual``) plus the superelements' step forces and matrices
    (the matrices of the step's earlier evaluation kept when the increments are close,
    module docstring; ``first``: the step's first evaluation), from the points' velocity
    moments vm = (P0 (n_el, 3), V (n_el, 3, 3), Vd (n_el, 3, m, 3)) and the elements'
    start-of-step quantities st = (d0 (n_el, m), Rs0 (n_el, 3, 3), o0 (n_el, 3), g0 (n_el, m),
    V0 (n_el,)) (superelement_step.step_start) of the step. ``full`` (n_var,) receives the
    residual over all variables."""
    scale = _residual(d, z, u0, v0, pi0, R0n, Jn, h, f_ext, fext_norm, mom_scale, psi, C, R1n, Rmn, D, pi1, dr, full, r, K)
    _element_inputs(u0, z, psi, d.lay_nodes, var, cells, psi_n, u1, u1e, psie)
    reuse = not first and _increments_close(u0e, u1e, psie, dz_ref, scales, change, False)
    P0, V, Vd = vm
    n = cells.shape[1]
    dz = np.empty(var.shape[1])
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
    fsc = np.zeros(z.size)  # the element forces over the variables
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


@jit
def superelement_midpoint_step(data, X, var, cells, props, scales, change, u0, v0, R0, pi0, px0, pv0, h, grav, f_ext, f_s,
                               fext_norm, mom_scale, z0, pres_var, par, max_it, z, R1, pi1, u1, v1, px1, pv1, hist, r, out):
    """All Newton iterations of one mid-point step of a superelement model (module docstring).

    Inputs: ``data`` the model's RigidStepData as a plain tuple; the superelement block's
    X (n_el, n, 3), var (n_el, m), cells (n_el, n), props; ``scales`` (n_el, m) and
    ``change`` the matrix-reuse test (PointInertia._scales, reuse_change; change < 0: never
    reuse); u0, v0 (n_var,) the state at t_n; R0 (n_nodes, 3, 3); π0 (k, 3); the points'
    positions px0 and velocities pv0 (n_el, n_p, 3); h the step; grav (3,) the gravity
    field on the points at t_n + h/2; f_ext (n_var,) the loads at t_n + h/2 and f_s their
    time-scaled part; the general step's force norm ‖f_ext‖ and momentum scale; z0 (n_var,)
    the predictor (prescribed and fixed increments imposed); ``pres_var`` the prescribed
    variables; par (8,) = (tolerance, absolute tolerance or NaN, increment tolerance,
    divergence factor, noise floor, max turn or 0, length scale, ‖u0‖); ``max_it``.

    Outputs: z (n_var,) the accepted increment; R1, π1 at z; hist (max_it + 1,) the
    residual norms; r (n_eq,) the last residual; out (3,) = (iterations, history length,
    external work f_s·Δx + f_ext·ψ of the step, work of the reactions on the prescribed
    variables); once converged u1, v1 (n_var,) and the points' px1, pv1 at t_n + h.
    Returns the status code (rigid_step_kernels, plus DIVERGED)."""
    d = RigidStepData(*data)
    nv = u0.size
    ne = d.eq_var.size
    nk = d.lay_var.shape[0]
    tol, abs_tol, inc_tol, div, floor, max_turn, length_scale, u_norm = (par[0], par[1], par[2], par[3], par[4],
                                                                         par[5], par[6], par[7])
    R0n = np.empty((nk, 3, 3))
    Jn = np.empty((nk, 3, 3))
    nodal_inertia(d, R0, R0n, Jn)
    n_el, m = var.shape
    n = cells.shape[1]
    u0e = np.empty((n_el, m))
    R0e = np.empty((n_el, n, 3, 3))
    _gather(u0, R0, var, cells, u0e, R0e)
    psi_n = np.zeros((R0.shape[0], 3))
    u1e = np.empty((n_el, m))
    psie = np.empty((n_el, n, 3))
    fe = np.empty((n_el, m))
    Ke = np.empty((n_el, m, m))
    Kref = np.empty((n_el, m, m))
    dz_ref = np.empty((n_el, m))
    psi = np.empty((nk, 3))
    psi_new = np.empty((nk, 3))
    C = np.empty((nk, 3, 3))
    R1n = np.empty((nk, 3, 3))
    Rmn = np.empty((nk, 3, 3))
    D = np.empty((nk, 3, 3))
    dr = np.empty((nk, 3, 3))
    full = np.empty(nv)
    K = np.empty((ne, ne))
    perm = np.empty(ne, dtype=np.int64)
    lo = np.empty(ne, dtype=np.int64)
    hi = np.empty(ne, dtype=np.int64)
    dz = np.empty(ne)
    z_new = np.empty(nv)
    vm = (np.zeros((n_el, 3)), np.zeros((n_el, 3, 3)), np.zeros((n_el, 3, m, 3)))
    st = (np.empty((n_el, m)), np.empty((n_el, 3, 3)), np.empty((n_el, 3)), np.empty((n_el, m)), np.empty(n_el))
    for e in range(n_el):
        velocity_moments(props[e], m, pv0[e], h, grav, vm[0][e], vm[1][e], vm[2][e])
        st[4][e] = step_start(X[e: e + 1], u0e[e: e + 1], R0e[e: e + 1], props[e], st[0][e], st[1][e], st[2][e], st[3][e])
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
                          first, vm, st)
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
        R1e = np.empty((n_el, n, 3, 3))
        _gather(u1, R1, var, cells, u1e, R1e)
        point_positions(X, u1e, R1e, props, px1)
        for e in range(n_el):
            for j in range(px1.shape[1]):
                for a in range(3):
                    pv1[e, j, a] = 2.0 * (px1[e, j, a] - px0[e, j, a]) / h - pv0[e, j, a]
    return status


@jit
def _step_start(d, u0, v0, pi0, pv0, masses, h, f_ext, keep_var, keep_val, rot_var, rot_node, Rp, R0, fixed, z0):
    """The predictor z0 (n_var,) of a step (MidPoint3DSystem: z = h v, the prescribed
    increments — values ``keep_val`` at t_n + h on ``keep_var``, the Cayley vectors of
    R_p(t_n + h) R_nᵀ on the rotations ``rot_var`` (nr, 3) of the nodes ``rot_node`` —, zero
    on the ``fixed`` variables); returns (‖f_ext‖ over the equations, |momentum|/h: of the
    nodes over the equations and of the mass points (masses (n_points,), velocities pv0))."""
    nv = u0.size
    for i in range(nv):
        z0[i] = h * v0[i]
    for q in range(keep_var.size):
        z0[keep_var[q]] = keep_val[q] - u0[keep_var[q]]
    C = np.empty((3, 3))
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
    pv = pv0.reshape((-1, 3))
    s = 0.0
    for j in range(masses.size):
        for a in range(3):
            s += (masses[j] * pv[j, a]) ** 2
    return fext_norm, max(scale, math.sqrt(s) / h)


@jit
def superelement_midpoint_steps(data, X, var, cells, props, scales, masses, change, u, v, R, pi, px, pv, hs, amps, timed,
                                f_const, keep_var, keep_val, rot_var, rot_node, theta, fixed, pres_var, par, max_it, its,
                                books):
    """Mid-point steps of a superelement model from the state (u, v (n_var,), R (n_nodes,
    3, 3), π (k, 3), the points' px, pv (n_el, n_p, 3)), each overwritten with every
    accepted step's state.

    Step j has the size ``hs[j]``; loads f_const + Σ_i ``amps[j, i]``·``timed[i]``
    (amplitudes at its mid time; timed (n_timed, n_var)); prescribed values ``keep_val[j]``
    (q,) on ``keep_var`` and rotation vectors ``theta[j]`` (nr, 3) of the prescribed
    rotations R_p = exp(θ̂) of the nodes ``rot_node`` (their variables ``rot_var``), both at
    its end; ``fixed`` variables stay. Block, ``scales``, ``change``, ``pres_var``, ``par``
    (its last entry set per step) and ``max_it`` as ``superelement_midpoint_step``; masses
    (n_points,) of the mass points. Writes each step's Newton iterations to ``its`` and adds
    its external and constraint work to ``books`` [W, W_c].

    Returns (steps done, status of the step that stopped them: 0 all done, else the code of
    ``superelement_midpoint_step``)."""
    d = RigidStepData(*data)
    nv = u.size
    ne = d.eq_var.size
    n_timed = timed.shape[0]
    grav = np.zeros(3)
    for a in range(3):
        grav[a] = par[8 + a]
    z0 = np.empty(nv)
    z = np.empty(nv)
    u1 = np.empty(nv)
    v1 = np.empty(nv)
    R1 = np.empty_like(R)
    pi1 = np.empty_like(pi)
    px1 = np.empty_like(px)
    pv1 = np.empty_like(pv)
    f_s = np.zeros(nv)
    f_ext = np.empty(nv)
    hist = np.empty(max_it + 1)
    r = np.empty(ne)
    out = np.empty(4)
    Rp = np.empty((rot_var.shape[0], 3, 3))
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
        fext_norm, mom_scale = _step_start(d, u, v, pi, pv, masses, h, f_ext, keep_var, keep_val[step], rot_var, rot_node,
                                           Rp, R, fixed, z0)
        s = 0.0
        for i in range(nv):
            s += u[i] * u[i]
        par[7] = math.sqrt(s)
        status = superelement_midpoint_step(data, X, var, cells, props, scales, change, u, v, R, pi, px, pv, h, grav, f_ext,
                                            f_s, fext_norm, mom_scale, z0, pres_var, par, max_it, z, R1, pi1, u1, v1, px1,
                                            pv1, hist, r, out)
        if not (status == CONVERGED or status == ROUND_OFF or status == NOISE_FLOOR):
            return step, status
        its[step] = int(out[0])
        books[0] += out[2]
        books[1] += out[3]
        u[:] = u1
        v[:] = v1
        R[:] = R1
        pi[:] = pi1
        px[:] = px1
        pv[:] = pv1
    return hs.size, 0
