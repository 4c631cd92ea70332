"""Compiled whole steps of the Lie-group generalized-α scheme for 3-D beam models.

``alpha3d_steps`` runs the steps t_n → t_n + h of femb.solvers.dynamics.alpha3d
(AlphaLie3DSystem iterated by femb.solvers.nonlinear.step_newton.iterate) for a model whose
internal forces come from beam3d / beam3d_timoshenko elements, step after step in one call,
operation for operation as the general loop:

- predictor z = h v_n + ½ h² v̇_n, prescribed translations from their values at t_{n+1},
  prescribed rotations θ = log(R_p(t_{n+1}) R_nᵀ), fixed variables 0;
- kinematics of the increment: R_{n+1} = exp(θ̂) R_n, the pseudo-acceleration a_{n+1},
  v_{n+1} and the true acceleration v̇_{n+1} (AlphaLie3DSystem.kinematics);
- residual over the equations: the elements' static internal force f(x_{n+1}, R_{n+1})
  (elements.beam3d ``internal_force`` / ``tangent``) + M ẍ_{n+1} on the translations +
  J ω̇ + ω × J ω on the rotations of the oriented nodes (J = R_{n+1} J0 R_{n+1}ᵀ) −
  f_ext(t_{n+1}); its force scale max(‖f‖, ‖inertia‖, ‖f_ext‖, |momentum|/h); the Newton
  matrix: element tangent, c_a M and the exact derivative B of the rotary inertia per unit
  spin (alpha3d module docstring), factorized by femb's band LU;
- the Newton loop's tests (femb.solvers.dynamics.midpoint2d_kernels ``newton_verdict``) and
  the turn limit of a correction (the norm of its nodal spins, element chord turn); the
  correction is applied on the group, θ ← log(exp(δŵ) exp(θ̂)); where convergence is likely
  (iteration ≥ max(1, the last step's iterations), or the state after a correction at
  round-off) the residual is evaluated first without the Newton matrix, which follows from a
  second evaluation only if the force test fails (the same residual bit for bit: the
  element force of ``internal_force`` is the one of ``tangent``);
- the end of the step: log R_{n+1} in the rotational slots of u, v_{n+1}, a_{n+1}, v̇_{n+1},
  the momenta J ω, the generalized reactions f + M ẍ − f_ext + J ω̇ + ω × J ω, and the
  energy books (trapezoidal work of the loads with an amplitude and of all moments, work of
  the mean reactions on the prescribed variables).

numba cannot take the element kernel as an argument of a cached function, so it is named
here. Index arrays are int64, values float64 (femb.core.jit).
"""
import math

import numpy as np

from femb.core.jit import jit
from femb.core.rotations import exp_batch, left_jacobian_inverse, log_so3, mat3, spin_update
from femb.core.scatter import gather_vector
from femb.elements.beam3d import internal_force, tangent
from femb.solvers.dynamics.midpoint2d_kernels import newton_verdict, step_end
from femb.solvers.dynamics.midpoint3d_kernels import (
    _copy_rows,
    _csr_product,
    _spatial_inertia,
    momentum_flux_scale,
    norm_over,
    residual_and_scale,
    scatter_force_and_matrix,
)
from femb.solvers.linalg.dense_kernels import euclidean_norm, residual_threshold
from femb.solvers.linalg.factorization import _band_refactor_solve
from femb.solvers.linalg.turn import chord_turn


@jit(internal=True)
def _kinematics(z, u0, v0, a0, acc0, h, coef, u1, a1, v1, acc1):
    """u_{n+1} = u_n + z, the pseudo-acceleration a_{n+1}, v_{n+1} and the true acceleration
    v̇_{n+1} (n_var,) of the increment z (AlphaLie3DSystem.kinematics, in its floating-point
    operations); ``coef`` = (α_m, α_f, β, γ)."""
    am, af, beta, gamma = coef[0], coef[1], coef[2], coef[3]
    c0 = h * h * (0.5 - beta)
    c1 = beta * h * h
    for i in range(z.size):
        u1[i] = u0[i] + z[i]
        a1[i] = (z[i] - h * v0[i] - c0 * a0[i]) / c1
        v1[i] = v0[i] + h * ((1.0 - gamma) * a0[i] + gamma * a1[i])
        acc1[i] = ((1.0 - am) * a1[i] + am * a0[i] - af * acc0[i]) / (1.0 - af)


@jit(internal=True)
def _rotary_block(J, w, wdot, pi, Jinv, ca, cv, out, T, U, W, P):
    """The rotary-inertia block of the Newton matrix of one node (alpha3d module docstring)

        B = (c_a J + c_v (ω̂ J − π̂)) J_L(θ)⁻¹ − (J ω̇)^ + J (ω̇)^ + ω̂ (J ω̂ − π̂)

    into ``out`` (3, 3), in AlphaLie3DSystem.evaluate's order of operations; T, U, W, P
    (3, 3) work."""
    for i in range(3):  # W = ω̂, P = π̂
        W[i, i] = 0.0
        P[i, i] = 0.0
    W[0, 1], W[0, 2], W[1, 2] = -w[2], w[1], -w[0]
    W[1, 0], W[2, 0], W[2, 1] = w[2], -w[1], w[0]
    P[0, 1], P[0, 2], P[1, 2] = -pi[2], pi[1], -pi[0]
    P[1, 0], P[2, 0], P[2, 1] = pi[2], -pi[1], pi[0]
    mat3(W, J, T)
    for i in range(3):
        for j in range(3):
            T[i, j] = ca * J[i, j] + cv * (T[i, j] - P[i, j])
    mat3(T, Jinv, out)
    jw0 = J[0, 0] * wdot[0] + J[0, 1] * wdot[1] + J[0, 2] * wdot[2]  # (J ω̇)^ subtracted
    jw1 = J[1, 0] * wdot[0] + J[1, 1] * wdot[1] + J[1, 2] * wdot[2]
    jw2 = J[2, 0] * wdot[0] + J[2, 1] * wdot[1] + J[2, 2] * wdot[2]
    out[0, 1] += jw2
    out[0, 2] -= jw1
    out[1, 0] -= jw2
    out[1, 2] += jw0
    out[2, 0] += jw1
    out[2, 1] -= jw0
    for i in range(3):  # + J (ω̇)^
        T[i, 0] = J[i, 1] * wdot[2] - J[i, 2] * wdot[1]
        T[i, 1] = J[i, 2] * wdot[0] - J[i, 0] * wdot[2]
        T[i, 2] = J[i, 0] * wdot[1] - J[i, 1] * wdot[0]
    for i in range(3):
        for j in range(3):
            out[i, j] += T[i, j]
    mat3(J, W, T)  # + ω̂ (J ω̂ − π̂)
    for i in range(3):
        for j in range(3):
            T[i, j] -= P[i, j]
    mat3(W, T, U)
    for i in range(3):
        for j in range(3):
            out[i, j] += U[i, j]


@jit(inline="always")  # one call site, in alpha3d_steps: no library of its own to link and re-emit
def _evaluate(z, u0, v0, a0, acc0, h, coef, ca, cv, fext, fext_norm, mom_scale, R0n, model, elems, mass, with_matrix,
              work):
    """Residual (r over the equations, R over the variables), Newton-matrix data (``with_matrix``)
    and the end-of-step state (in ``work``) at the increment z (AlphaLie3DSystem.evaluate
    without damping, offset mass points and state loads). Returns (‖r‖, force scale); the
    residual is bitwise the same with and without the matrix."""
    ev, rot3d, lay_var, J0, rot_pos = model[0], model[1], model[3], model[4], model[6]
    X, props, var, pos, crow = elems
    indptr_m, indices_m, mdata, meq_pos, meq_val = mass[0], mass[1], mass[2], mass[3], mass[4]
    (u1, a1, v1, acc1, f, macc, inert, R, r, kdata, theta, E, R1n, J, pi1, rrot, u1e, R1e, fe, ke, w, T, U, Bk, Jinv, W, P, om,
     wd) = work
    n = z.size
    k_nodes = lay_var.shape[0]
    _kinematics(z, u0, v0, a0, acc0, h, coef, u1, a1, v1, acc1)
    for k in range(k_nodes):  # R_{n+1} = exp(θ̂) R_n
        for c in range(3):
            theta[k, c] = z[lay_var[k, c]]
    exp_batch(theta, E)
    for k in range(k_nodes):
        mat3(E[k], R0n[k], R1n[k])
    # gather, element kernel, scatter
    gather_vector(var, u1, u1e)
    for e in range(var.shape[0]):
        for nd in range(2):
            _copy_rows(R1n, crow[e, nd], R1e[e], nd)
    if with_matrix:
        tangent(X, u1e, R1e, props, fe, ke)
    else:
        internal_force(X, u1e, R1e, props, fe)
    scatter_force_and_matrix(var, pos, fe, ke, meq_pos, meq_val, ca, with_matrix, f, kdata)
    # translational inertia M ẍ_{n+1}; rotary J ω̇ + ω × J ω with J = R_{n+1} J0 R_{n+1}ᵀ
    for i in range(n):
        w[i] = 0.0 if rot3d[i] else acc1[i]
    _csr_product(indptr_m, indices_m, mdata, w, macc)
    for i in range(n):
        inert[i] = macc[i]
    _spatial_inertia(R1n, J0, J)
    for k in range(k_nodes):
        for c in range(3):
            om[c] = v1[lay_var[k, c]]
            wd[c] = acc1[lay_var[k, c]]
        for c in range(3):
            pi1[k, c] = J[k, c, 0] * om[0] + J[k, c, 1] * om[1] + J[k, c, 2] * om[2]
        for c in range(3):
            rrot[k, c] = J[k, c, 0] * wd[0] + J[k, c, 1] * wd[1] + J[k, c, 2] * wd[2]
        rrot[k, 0] += om[1] * pi1[k, 2] - om[2] * pi1[k, 1]
        rrot[k, 1] += om[2] * pi1[k, 0] - om[0] * pi1[k, 2]
        rrot[k, 2] += om[0] * pi1[k, 1] - om[1] * pi1[k, 0]
        for c in range(3):
            inert[lay_var[k, c]] += rrot[k, c]
        if with_matrix:
            left_jacobian_inverse(theta[k], Jinv)
            _rotary_block(J[k], om, wd, pi1[k], Jinv, ca, cv, Bk, T, U, W, P)
            for a in range(3):
                for b in range(3):
                    p = rot_pos[k, a, b]
                    if p >= 0:
                        kdata[p] += Bk[a, b]
    return residual_and_scale(f, inert, fext, ev, fext_norm, mom_scale, R, r)


@jit(internal=True)
def _group_correction(z, dz, ev, var_eq, lay_var, eta, z_new, E, spins, theta):
    """z_new = z after the correction η·dz (dz scaled in place; n_eq,): translations added,
    the rotations of the oriented nodes turned by their spatial spins, θ ← log(exp(δŵ)
    exp(θ̂)) (AlphaLie3DSystem.apply); E (k, 3, 3), spins, theta (k, 3) work."""
    for q in range(ev.size):
        dz[q] = dz[q] * eta
    for i in range(z.size):
        z_new[i] = z[i]
    for q in range(ev.size):
        z_new[ev[q]] += dz[q]
    k_nodes = lay_var.shape[0]
    for k in range(k_nodes):
        for c in range(3):
            theta[k, c] = z[lay_var[k, c]]
            q = var_eq[lay_var[k, c]]
            spins[k, c] = dz[q] if q >= 0 else 0.0
    exp_batch(theta, E)
    spin_update(E, spins)
    for k in range(k_nodes):
        log_so3(E[k], theta[k])
        for c in range(3):
            z_new[lay_var[k, c]] = theta[k, c]


@jit
def alpha3d_steps(u, v, a, acc, R, pi, react, hs, amps, timed, f_const, pres_var, pres_val, prow, Rp, work_var, work_ptr, fixed,
                  model, elems, mass, chords, coef, param, max_iterations, its, books):
    """Lie-group generalized-α steps of a 3-D beam model from the state (u, v, the
    pseudo-acceleration a, the true acceleration v̇ = ``acc``, the generalized reactions
    ``react`` (n_var,), nodal rotations R (n_nodes, 3, 3), spatial angular momenta π (k, 3)
    of the oriented nodes), overwritten step by step with each accepted state.

    Step j has the size ``hs[j]`` (k_steps,); the timed loads at its start and end are
    Σ_i ``amps[j, i]``·``timed[i]`` and Σ_i ``amps[j, n_timed + i]``·``timed[i]``
    (timed (n_timed, n_var)), the constant ones ``f_const``; prescribed variables,
    ``model``, ``elems``, ``mass``, ``chords``, ``param`` as midpoint3d_kernels
    ``beam3d_steps`` (prescribed rotations ``Rp[j]`` (q, 3, 3) at t_{n+1}); ``coef`` =
    (α_m, α_f, β, γ). Writes each step's Newton iterations to ``its`` and adds its external
    and constraint work to ``books`` [W, W_c].

    Returns (steps done, status of the next one: 0 all done, 1 no convergence, 2 singular or
    non-finite matrix)."""
    ev, rot3d, lay_nodes, lay_var, J0, J0_pinv, rot_pos, ref, unit = model
    X, props, var, pos, crow = elems
    indptr_m, indices_m, mdata, _, _, indptr_k, indices_k, kl, ku = mass
    chord_on, col_a, col_b, X21 = chords
    am, af, beta, gamma = coef[0], coef[1], coef[2], coef[3]
    n = u.size
    neq = ev.size
    k_nodes = lay_var.shape[0]
    n_el, n_dof = var.shape
    n_timed = timed.shape[0]
    u0 = np.empty(n)
    v0 = np.empty(n)
    a0 = np.empty(n)
    acc0 = np.empty(n)
    z = np.empty(n)
    z_new = np.empty(n)
    fs0 = np.empty(n)
    fs1 = np.empty(n)
    fext = np.empty(n)
    x = np.empty(n)
    d = np.empty(n)
    dz = np.empty(neq)
    var_eq = np.full(n, -1, dtype=np.int64)
    for q in range(neq):
        var_eq[ev[q]] = q
    R0n = np.empty((k_nodes, 3, 3))
    Ew = np.empty((k_nodes, 3, 3))
    spins = np.empty((k_nodes, 3))
    th = np.empty((k_nodes, 3))
    Rrel = np.empty((3, 3))
    work = (np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n),
            np.empty(neq), np.empty(indices_k.size), np.empty((k_nodes, 3)), np.empty((k_nodes, 3, 3)),
            np.empty((k_nodes, 3, 3)), np.empty((k_nodes, 3, 3)), np.empty((k_nodes, 3)), np.empty((k_nodes, 3)),
            np.empty((n_el, n_dof)), np.empty((n_el, 2, 3, 3)), np.empty((n_el, n_dof)), np.empty((n_el, n_dof, n_dof)),
            np.empty(n), np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)),
            np.empty((3, 3)), np.empty(3), np.empty(3))
    u1, a1, v1, acc1, f, macc = work[0], work[1], work[2], work[3], work[4], work[5]
    r, kdata, R1n, pi1 = work[8], work[9], work[12], work[14]
    ab = np.zeros((neq, 2 * kl + ku + 1))
    piv = np.zeros(neq, dtype=np.int64)
    diag = np.zeros(neq)
    reach = np.zeros(neq, dtype=np.int64)
    hist = np.empty(max_iterations + 1)
    h_mass = np.nan
    ca = cv = 0.0
    guess = 1  # Newton iterations of the last step
    for step in range(hs.size):
        h = hs[step]
        for i in range(n):
            u0[i] = u[i]
            v0[i] = v[i]
            a0[i] = a[i]
            acc0[i] = acc[i]
        if h != h_mass:  # the factors c_a of M_eq and c_v of this h
            ca = (1.0 - am) / ((1.0 - af) * beta * h * h)
            cv = gamma / (beta * h)
            h_mass = h
        # loads at the start and the end of the step, the norm of f_ext(t_{n+1}) over the equations
        for i in range(n):
            fs0[i] = 0.0
            fs1[i] = 0.0
        for m in range(n_timed):
            b0 = amps[step, m]
            b1 = amps[step, n_timed + m]
            for i in range(n):
                fs0[i] += b0 * timed[m, i]
                fs1[i] += b1 * timed[m, i]
        for i in range(n):
            fext[i] = f_const[i] + fs1[i]
        fext_norm = norm_over(fext, ev)
        mom_scale = momentum_flux_scale(v0, pi, rot3d, lay_var, ev, indptr_m, indices_m, mdata, h, x, d)
        for k in range(k_nodes):
            _copy_rows(R, lay_nodes[k], R0n, k)
        # predictor h v_n + ½ h² v̇_n with the prescribed increments
        c2 = 0.5 * h * h
        for i in range(n):
            z[i] = h * v0[i] + c2 * acc0[i]
        for q in range(pres_var.size):
            z[pres_var[q]] = pres_val[step, q] - u0[pres_var[q]]
        for q in range(prow.size):
            row = prow[q]
            for i in range(3):
                for j in range(3):
                    Rrel[i, j] = Rp[step, q, i, 0] * R0n[row, j, 0] + Rp[step, q, i, 1] * R0n[row, j, 1] + Rp[step, q, i, 2] * R0n[row, j, 2]
            log_so3(Rrel, spins[0])
            for c in range(3):
                z[lay_var[row, c]] = spins[0, c]
        for q in range(fixed.size):
            z[fixed[q]] = 0.0
        # Newton (step_newton.iterate)
        u_norm = euclidean_norm(u0)
        done = False
        at_round_off = False
        iterations = 0
        for it in range(max_iterations + 1):
            lazy = at_round_off or it >= max(guess, 1)
            with_matrix = not lazy
            converged = False
            for _ in range(2):  # (one call site of _evaluate: it is compiled into this function)
                norm, scale = _evaluate(z, u0, v0, a0, acc0, h, coef, ca, cv, fext, fext_norm, mom_scale, R0n, model, elems,
                                        mass, with_matrix, work)
                if with_matrix or at_round_off:
                    break
                converged = norm <= residual_threshold(param[0], param[1], scale)  # newton_verdict's force test
                if converged:
                    break
                with_matrix = lazy  # (True: a run-time value rather than a literal)
            if at_round_off:  # the last correction was at round-off: accepted (evaluated for the state)
                done, iterations = True, it
                break
            if converged:
                hist[it] = norm
                done, iterations = True, it
                break
            verdict = newton_verdict(hist, it, norm, scale, param, max_iterations, indptr_k, indices_k, (kdata, 0, 0), ref, u0, z,
                                     ev, unit)
            if verdict:
                done, iterations = verdict > 0, it
                break
            status, ratio = _band_refactor_solve(indptr_k, indices_k, kdata, kl, ku, ab, piv, diag, reach, 1.0, r, dz)
            if status != -1 or not ratio > 1e-13:
                return step, 2
            # the correction, limited to turn no node (norm of its spin) or chord by more than max_turn
            eta = 1.0
            if param[6] < np.inf:
                for i in range(n):
                    z_new[i] = z[i]
                for q in range(neq):
                    z_new[ev[q]] += dz[q]
                turn = 0.0
                for k in range(k_nodes):
                    s = 0.0
                    for c in range(3):
                        dk = z_new[lay_var[k, c]] - z[lay_var[k, c]]
                        s += dk * dk
                    s = math.sqrt(s)
                    turn = s if s > turn else turn
                if chord_on:
                    for i in range(n):
                        x[i] = u0[i] + z[i]
                        d[i] = z_new[i] - z[i]
                    chord = chord_turn(var, col_a, col_b, X21, x, d)
                    turn = chord if chord > turn else turn
                if not turn <= param[6]:
                    eta = param[6] / turn
            _group_correction(z, dz, ev, var_eq, lay_var, eta, z_new, Ew, spins, th)
            for i in range(n):
                z[i] = z_new[i]
            # a correction at round-off: the next pass evaluates at z and accepts it (step_newton.iterate)
            at_round_off = norm <= 1e-4 * scale and euclidean_norm(dz) <= param[2] * max(euclidean_norm(z), u_norm, param[5])
        if not done:
            return step, 1
        # the accepted state (AlphaLie3DSystem.finish): reactions, energy books, new state
        rrot = work[15]
        for i in range(n):
            x[i] = f[i] + macc[i] - f_const[i] - fs1[i]
        for k in range(k_nodes):
            for c in range(3):
                x[lay_var[k, c]] += rrot[k, c]
        w_load = 0.0
        for i in range(n):
            ld = 0.5 * (fs0[i] + fs1[i])
            if rot3d[i]:
                ld += f_const[i]
            w_load += ld * z[i]
        for i in range(n):
            d[i] = 0.5 * (react[i] + x[i])
            react[i] = x[i]
        for k in range(k_nodes):  # log R_{n+1} in the rotational slots
            log_so3(R1n[k], th[k])
            for c in range(3):
                u1[lay_var[k, c]] = th[k, c]
        step_end(d, z, work_var, work_ptr, w_load, books, u1, v0, h, u, v)  # (its v is replaced below)
        for i in range(n):
            v[i] = v1[i]
            a[i] = a1[i]
            acc[i] = acc1[i]
        for k in range(k_nodes):
            _copy_rows(R1n, k, R, lay_nodes[k])
            for c in range(3):
                pi[k, c] = pi1[k, c]
        its[step] = iterations
        guess = iterations
    return hs.size, 0
