"""Compiled glue of the planar energy-conserving mid-point step (schemes._MidPointSystem).

A Newton iteration of a small planar model (a 10-element beam: 33 unknowns) costs a few
µs of compiled element work and, before these kernels, ~50 µs of numpy glue around it:
the Cayley configuration (boolean masks, a copy), the inertia product through
scipy.sparse, the residual sum, the mass part of the Newton matrix, three fancy-indexed
norms, and the rotation/chord turn limit of the correction. Each kernel below does one of
those chains in one pass over preallocated arrays, in the floating-point order of the numpy
expressions it replaces (the norms excepted: plain sums of squares instead of BLAS dot).

``beam2d_steps`` runs whole steps of a beam2d model with these pieces, the band LU and the
Newton loop's tests in one call (femb.solvers.dynamics.planar_step); it names the beam2d
element kernel, so this module imports femb.elements.beam2d and the band LU's kernels.

Index arrays are int64, values float64 (femb.core.jit).
"""
import math

import numpy as np

from femb.core.jit import jit
from femb.core.scatter import gather_vector, scatter_matrix, scatter_vector
from femb.elements.beam2d import MIDPOINT_START_WIDTH
from femb.elements.beam2d import midpoint_force_from as beam2d_midpoint_force_from
from femb.elements.beam2d import midpoint_start as beam2d_midpoint_start
from femb.solvers.linalg.dense_kernels import euclidean_norm, residual_threshold
from femb.solvers.linalg.factorization import _band_refactor_solve, band_row_start
from femb.solvers.linalg.turn import chord_turn


@jit
def cayley_configuration(u0, z, rot, u1):
    """u1 = u0 + z (n_var,), the planar rotations ``rot`` (int64 variables) from their Cayley
    parameter: u1[r] = u0[r] + 2 atan(z[r]/2)."""
    for i in range(u0.size):
        u1[i] = u0[i] + z[i]
    for k in range(rot.size):
        r = rot[k]
        u1[r] = u0[r] + 2.0 * math.atan(0.5 * z[r])


@jit
def midpoint_residual(f, z, v0, c2, c1, indptr, indices, mdata, fext, ev, kdata, mass_data, R, r_eq):
    """Residual of the planar mid-point step without damping and its Newton matrix's mass part.

    R = f + M (c2 z − c1 v0) − fext over all variables (M in CSR ``indptr``, ``indices``,
    ``mdata``; c2 = 2/h², c1 = 2/h), r_eq = R[ev]; kdata += mass_data (the element
    tangent's CSR data on the table's pattern). Returns the squared norms over the
    equations of f, of the inertia force and of fext (the step's force scale) and of r_eq."""
    n = f.size
    w = np.empty(n)
    inert = np.empty(n)
    for i in range(n):
        w[i] = c2 * z[i] - c1 * v0[i]
    for i in range(n):
        s = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            s += mdata[p] * w[indices[p]]
        inert[i] = s
        R[i] = f[i] + s - fext[i]
    sf = 0.0
    si = 0.0
    se = 0.0
    sr = 0.0
    for k in range(ev.size):
        i = ev[k]
        r_eq[k] = R[i]
        sr += R[i] * R[i]
        sf += f[i] * f[i]
        si += inert[i] * inert[i]
        se += fext[i] * fext[i]
    for p in range(kdata.size):
        kdata[p] += mass_data[p]
    return sf, si, se, sr


@jit
def cayley_correction(u0, z, dz, ev, rot, z_new, a, d):
    """Apply the Newton correction dz (n_eq,) to the increment z (n_var,): z_new = z,
    z_new[ev] += dz; and the largest turn (rad) of a planar rotation ``rot`` from z to
    z_new, 2|atan(z_new/2) − atan(z/2)| (NaN if one is NaN). Fills ``a`` = u0 + z and ``d``
    = z_new − z (n_var,), the inputs of the chord turn (femb.solvers.linalg.turn)."""
    n = z.size
    for i in range(n):
        z_new[i] = z[i]
    for k in range(ev.size):
        z_new[ev[k]] += dz[k]
    for i in range(n):
        a[i] = u0[i] + z[i]
        d[i] = z_new[i] - z[i]
    turn = 0.0
    for k in range(rot.size):
        r = rot[k]
        x = abs(2.0 * (math.atan(0.5 * z_new[r]) - math.atan(0.5 * z[r])))
        if x != x:
            return x
        if x > turn:
            turn = x
    return turn


# --------------------------------------------------------------------------- one element block
# A model whose internal forces come from a single planar element block (a beam, a truss)
# needs no ElementLoop pass: configuration and gather in one call, the element kernel, then
# scatter and residual in one call (three calls per residual instead of eight).
@jit
def cayley_gather(u0, z, rot, u1, var, u0e, u1e):
    """``cayley_configuration`` and the element values u0e = u0[var], u1e = u1[var]
    (n_el, n_edof; 0 where var < 0)."""
    cayley_configuration(u0, z, rot, u1)
    n_el, n_dof = var.shape
    for e in range(n_el):
        for a in range(n_dof):
            i = var[e, a]
            if i >= 0:
                u0e[e, a] = u0[i]
                u1e[e, a] = u1[i]
            else:
                u0e[e, a] = 0.0
                u1e[e, a] = 0.0


@jit
def scatter_midpoint_residual(var, pos, fe, ke, f, kdata, z, v0, c2, c1, indptr, indices, mdata, fext, ev, mass_data, R, r_eq):
    """f = Σ fe, kdata = Σ ke (zeroed first; element vectors by ``var``, matrices by their
    CSR positions ``pos``, −1 entries skipped), then ``midpoint_residual``."""
    for i in range(f.size):
        f[i] = 0.0
    for p in range(kdata.size):
        kdata[p] = 0.0
    n_el, n_dof = var.shape
    for e in range(n_el):
        for a in range(n_dof):
            i = var[e, a]
            if i >= 0:
                f[i] += fe[e, a]
            for b in range(n_dof):
                p = pos[e, a, b]
                if p >= 0:
                    kdata[p] += ke[e, a, b]
    return midpoint_residual(f, z, v0, c2, c1, indptr, indices, mdata, fext, ev, kdata, mass_data, R, r_eq)


@jit
def cayley_correction_chords(u0, z, dz, ev, rot, z_new, a, d, var, col_a, col_b, X21):
    """``cayley_correction`` and the chord turn of the one element block with chords
    (femb.solvers.linalg.turn.chord_turn; the larger of the two, as Python's max)."""
    turn = cayley_correction(u0, z, dz, ev, rot, z_new, a, d)
    chord = chord_turn(var, col_a, col_b, X21, a, d)
    return chord if chord > turn else turn


# --------------------------------------------------------------------------- whole steps (beam2d)
# A model of one beam2d block (plus point masses, supports, prescribed DOFs, constant and
# timed loads) runs whole steps in one call: the predictor, every Newton iteration of
# femb.solvers.nonlinear.step_newton.iterate (residual, band LU, rotation/chord limit, the
# same convergence tests) and the step's energy terms, step after step until a record step
# or the first step that does not converge (that one is done again by the general path,
# which also owns the cut-backs). numba cannot take the element kernel as an argument of a
# cached function, so the element kernel is named here: beam2d (both of its types).
@jit(internal=True)
def _kappa_into(z, rot, k, dk):
    """κ(τ) = 2 atan(τ/2)/τ and κ'(τ) of the rotational entries τ = z[rot] (as
    schemes._kappa: a series for |τ| < 1e-2)."""
    for j in range(rot.size):
        tau = z[rot[j]]
        if abs(tau) < 1e-2:
            t2 = tau * tau
            k[j] = 1.0 - t2 / 12.0 + t2 * t2 / 80.0 - t2 * t2 * t2 / 448.0
            dk[j] = tau * (-1.0 / 6.0 + t2 / 20.0 - 3.0 * t2 * t2 / 224.0)
        else:
            at = 2.0 * math.atan(0.5 * tau)
            k[j] = at / tau
            dk[j] = (tau / (1.0 + 0.25 * tau * tau) - at) / (tau * tau)


ELEMENT_BLOCK = 4096  # elements evaluated and scattered together: the size of the per-evaluation element arrays


@jit(internal=True)
def _beam2d_evaluate(u0, z, v0, h, fext, rot, ev, X, start, var, pos, u0e, u1e, fe, ke, f, kdata, indptr_m, indices_m, mdata,
                     meq_pos, meq_val, rot_loaded, rot_eq, rot_eq_in_rot, diag_pos, kap, dkap, fext_k, u1, R, r, tangent):
    """Residual r (n_eq,), R (n_var,) and u1 of the increment z (schemes._MidPointSystem.evaluate
    without damping), the beam2d force from the step's start quantities ``start``
    (elements.beam2d.midpoint_start at u0e, the element values of u0); with ``tangent``
    also the element tangents and the Newton-matrix data ``kdata`` (Σ ke + (2/h²)·M_eq, M_eq
    by its nonzero entries ``meq_pos``, ``meq_val``), else the force alone (kdata untouched). The elements are evaluated
    and scattered in blocks of ELEMENT_BLOCK: u1e, fe, ke (≥ the block, n_dof[, n_dof])
    hold one block, u1e gathered from u1. Returns (‖r‖, force scale)."""
    fx = fext
    if rot_loaded:  # moments on rotations: m·Δθ/τ, and its derivative on the free rotational equations
        _kappa_into(z, rot, kap, dkap)
        for i in range(fext.size):
            fext_k[i] = fext[i]
        for j in range(rot.size):
            fext_k[rot[j]] *= kap[j]
        fx = fext_k
    cayley_configuration(u0, z, rot, u1)
    for i in range(f.size):
        f[i] = 0.0
    if tangent:
        for p in range(kdata.size):
            kdata[p] = 0.0
    n_el = var.shape[0]
    for e0 in range(0, n_el, ELEMENT_BLOCK):  # (in element order: the sums of one pass over all elements)
        e1 = min(e0 + ELEMENT_BLOCK, n_el)
        m = e1 - e0
        gather_vector(var[e0:e1], u1, u1e[:m])
        beam2d_midpoint_force_from(X[e0:e1], start[e0:e1], u0e[e0:e1], u1e[:m], fe[:m], ke[:m], tangent)
        scatter_vector(var[e0:e1], fe[:m], f)
        if tangent:
            scatter_matrix(pos[e0:e1], ke[:m], kdata)
    no_matrix = kdata[:0]
    sf, si, se, sr = midpoint_residual(f, z, v0, 2.0 / (h * h), 2.0 / h, indptr_m, indices_m, mdata, fx, ev, no_matrix, no_matrix, R, r)
    if tangent:  # the Newton matrix in the order of scatter_midpoint_residual: Σ ke + mass part, less fext·κ'(τ)
        add_mass_entries(kdata, meq_pos, meq_val, 2.0 / (h * h))
        if rot_loaded:
            for k in range(rot_eq.size):
                j = rot_eq_in_rot[k]
                kdata[diag_pos[rot_eq[k]]] -= fext[rot[j]] * dkap[j]
    scale = max(math.sqrt(sf), math.sqrt(si), math.sqrt(se), 1e-300)
    return math.sqrt(sr), scale


@jit(internal=True)
def _rounding_residual(indptr, indices, kmat, ref, u0, z, ev, unit):
    """ε‖|K|·|x|‖ with x = |X + u0 + z| over the equations, 1 at the variables flagged by
    ``unit`` (n_var,) bool (newton.rounding_residual of the step systems'
    absolute_coordinates: 1 for the slots of 3-D rotations). ``kmat`` = (data, kl, w): K's
    data on the pattern (indptr, indices) (w = 0), or K in the flat row-band storage (n_eq·w,)
    of linalg.factorization (w = 2 kl + ku + 1): the same entries in the same order."""
    kdata, kl, w = kmat
    s = 0.0
    for i in range(ev.size):
        row = 0.0
        at = band_row_start(i, kl, w)  # (band storage only)
        for p in range(indptr[i], indptr[i + 1]):
            j = ev[indices[p]]
            q = p if w == 0 else at + indices[p]
            row += abs(kdata[q]) * (1.0 if unit[j] else abs(ref[j] + u0[j] + z[j]))
        s += row * row
    return 2.220446049250313e-16 * math.sqrt(s)


@jit(internal=True)
def add_mass_entries(kdata, mpos, mval, c):
    """kdata[mpos[q]] += c·mval[q] (q < m): the mass part c·M_eq of the Newton-matrix data
    from M_eq's nonzero entries (DynamicProblem.mass_entries: positions ``mpos`` (m,) int64
    ascending in the CSR data of the table's pattern, values ``mval`` (m,)). Bitwise the sum
    over M_eq's data on the whole pattern for data that is not −0.0 (an assembly started at
    +0.0 never is): the other entries would add c·(+0.0)."""
    for q in range(mpos.size):
        kdata[mpos[q]] += c * mval[q]


@jit(internal=True)
def step_start(u, v, u0, v0, amps, timed, fs):
    """The start of a whole step: u0, v0 = u, v (n_var,); the timed loads
    fs = Σ_i amps[i]·timed[i] (n_var,)."""
    for i in range(u.size):
        u0[i] = u[i]
        v0[i] = v[i]
    for i in range(fs.size):
        fs[i] = 0.0
    for m in range(timed.shape[0]):
        am = amps[m]
        for i in range(fs.size):
            fs[i] += am * timed[m, i]


@jit(internal=True)
def step_end(R, z, var, ptr, work, books, u1, v0, h, u, v):
    """The end of an accepted whole step: the books [W, W_c] += (``work``, the work
    Σ R[var]·z[var] of the reactions R (n_var,) on the prescribed variables ``var`` (groups
    ``ptr``, summed per group)); the state u = u1, v = (2/h) z − v0 (n_var,)."""
    con = 0.0
    for g in range(ptr.size - 1):
        s = 0.0
        for k in range(ptr[g], ptr[g + 1]):
            i = var[k]
            s += R[i] * z[i]
        con += s
    books[0] += work
    books[1] += con
    c1 = 2.0 / h
    for i in range(u.size):
        u[i] = u1[i]
        v[i] = c1 * z[i] - v0[i]


@jit(internal=True)
def newton_verdict(hist, it, norm, scale, param, max_iterations, indptr, indices, kmat, ref, u0, z, ev, unit):
    """The tests of femb.solvers.nonlinear.step_newton.iterate on the residual norm ``norm``
    of iteration ``it`` (recorded in ``hist``) with the force scale ``scale``: 1 converged
    (force test; or a stalled residual at the noise floor or at its round-off level
    ``_rounding_residual`` of the Newton matrix ``kmat`` = (data, kl, w)), −1 failed (not finite, iteration
    cap, diverging), 0 go on with a correction. ``param`` as ``beam2d_steps``'."""
    hist[it] = norm
    if not math.isfinite(norm):
        return -1
    tol, atol, div, floor = param[0], param[1], param[3], param[4]
    if norm <= residual_threshold(tol, atol, scale):
        return 1
    if it >= 3:  # at_noise_floor: stalled (not 4× below the smallest of the three before)
        low = min(hist[it - 3], min(hist[it - 2], hist[it - 1]))
        if not norm < 0.25 * low:
            if (floor and norm <= floor * scale) or norm <= _rounding_residual(indptr, indices, kmat, ref, u0, z, ev, unit):
                return 1
    if it == max_iterations:
        return -1
    if it >= 2 and norm > div * max(hist[0], 1e-300):
        return -1
    return 0


@jit(internal=True)
def take_correction(z, z_new, dz, ev, turn, norm, scale, param, u_norm):
    """z ← z_new = z + dz over the equations ``ev``, the correction dz first scaled by
    max_turn/turn when it turns a rotation or a chord by ``turn`` > max_turn = param[6]
    (z_new recomputed). Returns whether the correction is at round-off (step_newton.iterate:
    ‖r‖ ≤ 1e-4·scale and ‖δz‖ ≤ increment tolerance × max(‖z‖, ‖u_n‖ = ``u_norm``, length
    scale))."""
    cap = param[6]
    if cap < np.inf and not turn <= cap:
        eta = cap / turn
        for k in range(ev.size):
            dz[k] = dz[k] * eta
        for i in range(z.size):
            z_new[i] = z[i]
        for k in range(ev.size):
            z_new[ev[k]] += dz[k]
    for i in range(z.size):
        z[i] = z_new[i]
    return norm <= 1e-4 * scale and euclidean_norm(dz) <= param[2] * max(euclidean_norm(z), u_norm, param[5])


@jit
def beam2d_steps(u, v, hs, amps, timed, f_const, pres_var, pres_rot, pres_ptr, pres_val, fixed, rot, ev,
                 X, props, var, pos, indptr_m, indices_m, mdata, meq_pos, meq_val, indptr_k, indices_k, kl, ku,
                 chords, cvar, col_a, col_b, X21, rot_loaded, rot_eq, rot_eq_in_rot, diag_pos, ref,
                 param, max_iterations, its, books):
    """Mid-point steps of a beam2d model from the state u, v (n_var,), overwritten step by
    step with each accepted state.

    Step j has the size ``hs[j]`` (k,); the timed loads are Σ_i
    ``amps[j, i]``·``timed[i]`` (amplitudes at the mid-point t + h/2; timed (n_timed,
    n_var)), the constant ones ``f_const``; the prescribed variables ``pres_var`` (m,)
    take the values ``pres_val[j]`` at t + h (groups pres_ptr (n_groups + 1,), rotations
    flagged by ``pres_rot``), the ``fixed`` ones stay. Element block: X, props, var, pos
    of the beam2d block; M_full in CSR (indptr_m, indices_m, mdata), M_eq by its nonzero
    entries (positions ``meq_pos`` in the data of the table's pattern indptr_k, indices_k,
    values ``meq_val``; band widths kl, ku); the chord-turn columns when
    ``chords``; the Cayley factor of loaded rotations when ``rot_loaded``; ``ref`` the
    reference coordinates (n_var,). ``param`` = (tolerance, absolute tolerance (NaN: none),
    increment tolerance, divergence factor, noise floor, length scale, max_turn (inf: no
    limit)). Writes each step's Newton iterations to ``its`` and adds its
    external and constraint work to ``books`` [W, W_c].

    Returns (steps done, status of the next one: 0 all done, 1 no convergence, 2 singular or
    non-finite matrix)."""
    n = u.size
    neq = ev.size
    n_steps = hs.size
    u0 = np.empty(n)
    v0 = np.empty(n)
    z = np.empty(n)
    z_new = np.empty(n)
    u1 = np.empty(n)
    R = np.empty(n)
    f = np.empty(n)
    n_timed = timed.shape[0]
    fs = np.zeros(n if n_timed else 0)  # (the timed loads; none without any)
    fext = np.empty(n if n_timed else 0)  # (the loads at the mid-point: f_const itself without timed loads)
    fext_k = np.empty(n if rot_loaded else 0)  # (the loads with the Cayley factor of loaded rotations)
    r = np.empty(neq)
    dz = np.empty(neq)
    kdata = np.empty(indices_k.size)
    kap = np.empty(rot.size)
    dkap = np.empty(rot.size)
    n_el, n_dof = var.shape
    nb = min(n_el, ELEMENT_BLOCK)  # (elements per block of the evaluations)
    u0e = np.empty((n_el, n_dof))
    u1e = np.empty((nb, n_dof))
    start = np.empty((n_el, MIDPOINT_START_WIDTH))
    fe = np.empty((nb, n_dof))
    ke = np.empty((nb, n_dof, n_dof))
    ab = np.zeros((neq, 2 * kl + ku + 1))
    piv = np.zeros(neq, dtype=np.int64)
    diag = np.zeros(neq)
    reach = np.zeros(neq, dtype=np.int64)
    hist = np.empty(max_iterations + 1)
    unit = np.zeros(n, dtype=np.bool_)  # (planar: every coordinate by its magnitude)
    last_its = -1  # Newton iterations of the step before
    for step in range(n_steps):
        h = hs[step]
        step_start(u, v, u0, v0, amps[step], timed, fs)
        # loads at the mid-point, the predictor z = h v with the prescribed increments
        fx = fext if n_timed else f_const
        for i in range(n):
            if n_timed:
                fext[i] = f_const[i] + fs[i]
            z[i] = h * v0[i]
        for k in range(pres_var.size):
            i = pres_var[k]
            dzp = pres_val[step, k] - u0[i]
            z[i] = 2.0 * math.tan(0.5 * dzp) if pres_rot[k] else dzp
        for k in range(fixed.size):
            z[fixed[k]] = 0.0
        # the element quantities of u0, once for all the step's evaluations
        gather_vector(var, u0, u0e)
        beam2d_midpoint_start(X, u0e, props, start)
        # Newton (step_newton.iterate)
        u_norm = euclidean_norm(u0)
        done = False
        at_round_off = False
        iterations = 0
        for it in range(max_iterations + 1):
            # an evaluation predicted to be the step's last (the one after a correction at
            # round-off; or iteration 1 or 2 when the step before converged there: below
            # iteration 3 newton_verdict does not read the matrix) computes the force alone,
            # the tangent and matrix follow when another correction is needed
            tangent = not (at_round_off or (0 < it <= 2 and it == last_its))
            verdict = 0
            for _ in range(2):  # (a second pass when the prediction missed: the tangent, the same residual bit for bit)
                norm, scale = _beam2d_evaluate(u0, z, v0, h, fx, rot, ev, X, start, var, pos, u0e, u1e, fe, ke, f, kdata, indptr_m,
                                               indices_m, mdata, meq_pos, meq_val, rot_loaded, rot_eq, rot_eq_in_rot, diag_pos, kap, dkap,
                                               fext_k, u1, R, r, tangent)
                if at_round_off:
                    break
                verdict = newton_verdict(hist, it, norm, scale, param, max_iterations, indptr_k, indices_k, (kdata, 0, 0), ref, u0, z,
                                         ev, unit)
                if verdict or tangent:
                    break
                tangent = True
            if at_round_off:  # the last correction was at round-off: accepted (evaluated for u1, R)
                done, iterations = True, it
                break
            if verdict:
                done, iterations = verdict > 0, it
                break
            status, ratio = _band_refactor_solve(indptr_k, indices_k, kdata, kl, ku, ab, piv, diag, reach, 1.0, r, dz)
            if status != -1 or not ratio > 1e-13:
                return step, 2
            # the correction, limited to turn no rotation or chord by more than max_turn (R and f,
            # written by each evaluation, as work for the chord turn's u0 + z and z_new − z)
            if chords:
                turn = cayley_correction_chords(u0, z, dz, ev, rot, z_new, R, f, cvar, col_a, col_b, X21)
            else:
                turn = cayley_correction(u0, z, dz, ev, rot, z_new, R, f)
            # (at round-off: the next pass evaluates at z and accepts it, iterations it + 1)
            at_round_off = take_correction(z, z_new, dz, ev, turn, norm, scale, param, u_norm)
        if not done:
            return step, 1
        # the accepted state and the step's energy terms (schemes._MidPointSystem.finish)
        work = 0.0
        if n_timed:
            for i in range(n):
                work += fs[i] * (u1[i] - u0[i])
        step_end(R, z, pres_var, pres_ptr, work, books, u1, v0, h, u, v)
        its[step] = iterations
        last_its = iterations
    return n_steps, 0
