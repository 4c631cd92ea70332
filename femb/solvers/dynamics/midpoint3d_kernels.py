"""Compiled whole steps of the spatial energy-momentum mid-point scheme for 3-D beam models.

``beam3d_steps`` runs the steps t_n → t_n + h of femb.solvers.dynamics.midpoint3d
(MidPoint3DSystem iterated by femb.solvers.nonlinear.step_newton.iterate) for a model
whose internal forces come from beam3d / beam3d_timoshenko elements, step after step in
one call, operation for operation as the general loop:

- predictor z = h v_n, prescribed translations from their values at t_{n+1}, prescribed
  rotations ψ = cay⁻¹(R_p(t_{n+1}) R_nᵀ), fixed variables 0;
- residual over the equations: the elements' algorithmic force f̄ (elements.beam3d_midpoint
  ``midpoint_force_steps``: the element energies at the start of the step computed once per
  step) + M ((2/h²) Δx − (2/h) v_n) on translations + (π_{n+1} − π_n)/h on the rotations
  of the oriented nodes (Simo–Wong, femb.core.rotations
  ``cayley_step_batch``) − f_ext(t_{n+½}); its force scale max(‖f̄‖, ‖inertia‖, ‖f_ext‖,
  |momentum|/h); the step matrix: element tangent, (2/h²) M (from M_eq's nonzero
  entries) and the rotary-inertia derivative, assembled straight into the row-band storage
  of femb's band LU and factorized there (no CSR data of the matrix);
- the Newton loop's tests (force test, noise floor, round-off level ε‖|K|·|x|‖, correction
  at round-off, divergence, iteration cap) and the turn limit of a correction (nodal Cayley
  turn, element chord turn); where convergence is likely (iteration ≥ max(1, the last step's
  iterations), or the state after a correction at round-off) the residual is evaluated
  first without the Newton matrix, which follows from a second evaluation only if the force
  test fails (the same residual bit for bit, so the same iterates);
- the end of the step: log R_{n+1} in the rotational slots of u, the spatial angular
  velocities J⁺π + (I − J⁺J)(2ψ/h − ω_n) (femb.solvers.dynamics.rigid_step_kernels
  ``finish_rotary``), and the energy books (external work of the loads with an amplitude
  and of all moments, work of the reactions on the prescribed variables).

numba cannot take the element kernel as an argument of a cached function, so it is named
here. Index arrays are int64, values float64 (femb.core.jit).
"""
import math

import numpy as np

from femb.core.jit import jit
from femb.core.rotations import cayley_step_batch, cayley_turn, cayley_vector
from femb.core.scatter import gather_vector, scatter_matrix, scatter_vector
from femb.elements.beam3d_midpoint import midpoint_force_steps, section_forms
from femb.solvers.dynamics.midpoint2d_kernels import add_mass_entries, newton_verdict, step_end, step_start, take_correction
from femb.solvers.dynamics.rigid_step_kernels import finish_rotary
from femb.solvers.linalg.dense_kernels import euclidean_norm, residual_threshold
from femb.solvers.linalg.factorization import band_factor_solve, band_positions, band_row_start, band_scatter_matrix
from femb.solvers.linalg.turn import chord_turn

ELEMENT_BLOCK = 256  # elements evaluated and scattered together: the size of the per-evaluation element arrays


@jit(internal=True)
def _copy_rows(src, i, dst, j):
    """dst[j] = src[i] for arrays of 3 × 3 matrices (element by element: a compiled array
    assignment would add its shape check's error formatting, seconds of compile time)."""
    for a in range(3):
        for b in range(3):
            dst[j, a, b] = src[i, a, b]


@jit(internal=True)
def _spatial_inertia(R0n, J0, Jn):
    """Jn = R0n J0 R0nᵀ (k, 3, 3), the spatial inertia at the start of the step."""
    tmp = np.empty((3, 3))
    for k in range(R0n.shape[0]):
        for a in range(3):
            for b in range(3):
                tmp[a, b] = R0n[k, a, 0] * J0[k, 0, b] + R0n[k, a, 1] * J0[k, 1, b] + R0n[k, a, 2] * J0[k, 2, b]
        for a in range(3):
            for b in range(3):
                Jn[k, a, b] = tmp[a, 0] * R0n[k, b, 0] + tmp[a, 1] * R0n[k, b, 1] + tmp[a, 2] * R0n[k, b, 2]


@jit(internal=True)
def _csr_product(indptr, indices, data, x, out):
    """out = A x (A in CSR over the variables, rows summed in index order as scipy's)."""
    for i in range(out.size):
        s = 0.0
        for q in range(indptr[i], indptr[i + 1]):
            s += data[q] * x[indices[q]]
        out[i] = s


@jit(internal=True)
def norm_over(x, ev):
    """|x[ev]|: the Euclidean norm of x (n_var,) over the equations ev (n_eq,)."""
    s = 0.0
    for q in range(ev.size):
        s += x[ev[q]] * x[ev[q]]
    return math.sqrt(s)


@jit
def momentum_flux_scale(v0, pi0, rot3d, lay_var, ev, indptr_m, indices_m, mdata, h, w, p):
    """|M v_n + π_n|/h over the equations (midpoint3d.momentum_flux_scale) [N]: M in CSR
    (``indptr_m``, ``indices_m``, ``mdata``) on the translational velocities of v0 (n_var,;
    ``rot3d`` marks the rotational slots), the spatial angular momenta π_n (k, 3) added in
    the slots ``lay_var`` (k, 3); w, p (n_var,) work (p holds M v_n + π_n on return)."""
    for i in range(v0.size):
        w[i] = 0.0 if rot3d[i] else v0[i]
    _csr_product(indptr_m, indices_m, mdata, w, p)
    for k in range(lay_var.shape[0]):
        for c in range(3):
            p[lay_var[k, c]] += pi0[k, c]
    return norm_over(p, ev) / h


@jit(internal=True)
def scatter_force_and_matrix(var, pos, fe, ke, mass_pos, mass_val, c, with_matrix, f, kdata):
    """f (n_var,) ← the element forces fe (n_el, n_dof) scattered by ``var``; with_matrix:
    kdata (nnz,) ← the element matrices ke (n_el, n_dof, n_dof) scattered by ``pos`` plus
    the mass part c·M_eq of the Newton matrix (M_eq by its nonzero entries ``mass_pos``,
    ``mass_val``, midpoint2d_kernels.add_mass_entries)."""
    for i in range(f.size):
        f[i] = 0.0
    scatter_vector(var, fe, f)
    if with_matrix:
        for p in range(kdata.size):
            kdata[p] = 0.0
        scatter_matrix(pos, ke, kdata)
        add_mass_entries(kdata, mass_pos, mass_val, c)


@jit(internal=True)
def residual_and_scale(f, inert, fext, ev, fext_norm, mom_scale, R, r):
    """R = f + inert − fext over all variables (n_var,), r = R[ev] (n_eq,): the norm |r| and
    the step's force scale max(|f[ev]|, |inert[ev]|, |fext|, the momentum scale) [N]."""
    sf = 0.0
    si = 0.0
    sr = 0.0
    for i in range(f.size):
        R[i] = f[i] + inert[i] - fext[i]
    for q in range(ev.size):
        i = ev[q]
        r[q] = R[i]
        sr += R[i] * R[i]
        sf += f[i] * f[i]
        si += inert[i] * inert[i]
    scale = max(math.sqrt(sf), math.sqrt(si), fext_norm, mom_scale, 1e-300)
    return math.sqrt(sr), scale


@jit(inline="always")  # one call site, in beam3d_steps: no library of its own to link and re-emit
def _evaluate(u0, z, v0, h, fext, fext_norm, mom_scale, R0n, Jn, pi0, model, elems, mass, with_matrix, work, forms, band):
    """Residual (r over the equations, R over the variables), the Newton matrix (``with_matrix``)
    and the end-of-step rotations and momenta (in ``work``) at the increment z
    (MidPoint3DSystem.evaluate without damping, mass points and state loads); ``forms``: the
    elements' section forms kept with their start-of-step energies. The Newton matrix is
    assembled straight into the band LU's row-band storage ``work``'s ab (n_eq, w = 2 kl +
    ku + 1), the entries in the order of an assembly into the CSR data of the table's
    pattern (linalg.factorization.band_scatter_matrix); ``band`` = (var_eq (n_var,) the
    equation of each variable (−1: none), M_eq's entries as flat band indices (m,), kl). The
    Cayley step of the nodes runs in blocks of ELEMENT_BLOCK nodes (its intermediate
    rotations C, R_m and spin maps D of ``work`` hold one block; node by node, so the same
    values). The elements are evaluated and scattered in blocks of ELEMENT_BLOCK (the element
    arrays u0e, u1e, R0e, R1e, ψe, fe, ke of ``work`` hold one block, gathered from u0,
    u0 + z, R_n, R_{n+1}, ψ): in element order, as one pass over all of them. Returns (‖r‖,
    force scale); the residual is bitwise the same with and without the matrix."""
    ev, rot3d, lay_var, rot_pos = model[0], model[1], model[3], model[6]
    X, props, var, pos, crow = elems
    indptr_m, indices_m, mdata, meq_val = mass[0], mass[1], mass[2], mass[4]
    var_eq, meq_band, kl = band
    (u1, f, w, inert, R, r, ab, psi, C, R1n, Rmn, D, pi1, dr,
     u0e, u1e, R0e, R1e, psie, fe, ke, V0e) = work
    n = u0.size
    k_nodes = lay_var.shape[0]
    n_el = var.shape[0]
    for k in range(k_nodes):
        for a in range(3):
            psi[k, a] = z[lay_var[k, a]]
    for k0 in range(0, k_nodes, ELEMENT_BLOCK):
        k1 = min(k0 + ELEMENT_BLOCK, k_nodes)
        m = k1 - k0
        cayley_step_batch(psi[k0:k1], R0n[k0:k1], Jn[k0:k1], pi0[k0:k1], h, C[:m], R1n[k0:k1], Rmn[:m], D[:m], pi1[k0:k1],
                          dr[k0:k1])
    for i in range(n):
        u1[i] = u0[i] + z[i]
    # per block: gathers, element kernel (the start-of-step energies V0e and the section
    # forms of the step's first call kept), scatter of the forces and element matrices
    for i in range(n):
        f[i] = 0.0
    kflat = ab.reshape(ab.size)
    if with_matrix:
        for p in range(kflat.size):
            kflat[p] = 0.0
    for e0 in range(0, n_el, ELEMENT_BLOCK):
        e1 = min(e0 + ELEMENT_BLOCK, n_el)
        m = e1 - e0
        gather_vector(var[e0:e1], u0, u0e[:m])
        gather_vector(var[e0:e1], u1, u1e[:m])
        for e in range(m):
            for nd in range(2):
                row = crow[e0 + e, nd]
                _copy_rows(R0n, row, R0e[e], nd)
                for a in range(3):
                    psie[e, nd, a] = psi[row, a]
                    for b in range(3):
                        R1e[e, nd, a, b] = R1n[row, a, b]
        midpoint_force_steps(X[e0:e1], u0e[:m], R0e[:m], u1e[:m], R1e[:m], psie[:m], props[e0:e1], V0e[e0:e1],
                             (forms[0][e0:e1], forms[1][e0:e1], forms[2][e0:e1]), with_matrix, fe[:m], ke[:m])
        scatter_vector(var[e0:e1], fe[:m], f)
        if with_matrix:
            band_scatter_matrix(var[e0:e1], pos[e0:e1], var_eq, ke[:m], kl, ab)
    # translational inertia M ((2/h²) z − (2/h) v0), rotary inertia (π1 − π0)/h; the mass
    # part (2/h²) M_eq of the Newton matrix
    c2 = 2.0 / (h * h)
    c1 = 2.0 / h
    if with_matrix:
        add_mass_entries(kflat, meq_band, meq_val, c2)
    for i in range(n):
        w[i] = 0.0 if rot3d[i] else c2 * z[i] - c1 * v0[i]
    _csr_product(indptr_m, indices_m, mdata, w, inert)
    width = ab.shape[1]
    for k in range(k_nodes):
        for a in range(3):
            inert[lay_var[k, a]] += (pi1[k, a] - pi0[k, a]) / h
            if with_matrix:
                row = band_row_start(var_eq[lay_var[k, a]], kl, width)  # (not used when rot_pos < 0)
                for b in range(3):
                    if rot_pos[k, a, b] >= 0:
                        kflat[row + var_eq[lay_var[k, b]]] += dr[k, a, b]
    return residual_and_scale(f, inert, fext, ev, fext_norm, mom_scale, R, r)


@jit
def beam3d_steps(u, v, R, pi, hs, amps, timed, f_const, pres_var, pres_val, prow, Rp, work_var, work_ptr, fixed,
                 model, elems, mass, chords, param, max_iterations, its, books):
    """Mid-point steps of a 3-D beam model from the state (u, v (n_var,), nodal rotations R
    (n_nodes, 3, 3), spatial angular momenta π (k, 3) of the oriented nodes), overwritten
    step by step with each accepted state (and read as the start-of-step state: a step that
    fails leaves them as the last accepted step did).

    Step j has the size ``hs[j]`` (k_steps,); the timed loads are Σ_i ``amps[j, i]``·``timed[i]``
    (amplitudes at the mid-point; timed (n_timed, n_var)), the constant ones ``f_const``;
    the prescribed translational variables ``pres_var`` (m,) take the values
    ``pres_val[j]`` at t + h, the oriented nodes of the rows ``prow`` (q,) the rotations
    ``Rp[j]`` (q, 3, 3); the ``fixed`` variables stay. ``work_var`` with group pointers
    ``work_ptr``: every prescribed variable, for the work of the reactions.
    ``model`` = (ev, rot3d (n_var,) bool, lay_nodes (k,), lay_var (k, 3), J0, J0_pinv
    (k, 3, 3), rot_pos (k, 3, 3) CSR positions of the rotary blocks (−1: none), ref (n_var,)
    reference coordinates, unit (n_var,) bool: the 3-D rotational slots);
    ``elems`` = (X (n_el, 2, 3), props, var (n_el, 12), pos (n_el, 12, 12), crow (n_el, 2)
    the elements' nodes as rows of the oriented nodes); ``mass`` = (M_full in CSR: indptr,
    indices, data; M_eq by its nonzero entries: positions (m,) int64 in the data of the
    table's pattern and values (m,) (DynamicProblem.mass_entries); the table's pattern
    indptr, indices, band widths kl, ku);
    ``chords`` = (on, col_a, col_b, X21) of the chord-turn limit. ``param`` = (tolerance,
    absolute tolerance (NaN: none), increment tolerance, divergence factor, noise floor,
    length scale, max_turn (inf: no limit)). Writes each step's Newton iterations to
    ``its`` and adds its external and constraint work to ``books`` [W, W_c].

    Returns (steps done, status of the next one: 0 all done, 1 no convergence, 2 singular or
    non-finite matrix)."""
    ev, rot3d, lay_nodes, lay_var, J0, J0_pinv, rot_pos, ref, unit = model
    X, props, var, pos, crow = elems
    indptr_m, indices_m, mdata, meq_pos, meq_val, indptr_k, indices_k, kl, ku = mass
    chord_on, col_a, col_b, X21 = chords
    n = u.size
    neq = ev.size
    k_nodes = lay_var.shape[0]
    n_el, n_dof = var.shape
    # the start-of-step state is u, v, R, π themselves: they are written only when a step
    # is accepted (its end), and a step that fails leaves them as the last accepted one did
    u0 = u
    v0 = v
    z = np.empty(n)
    z_new = np.empty(n)
    n_timed = timed.shape[0]
    fs = np.zeros(n if n_timed else 0)  # (the timed loads; none without any)
    fext = np.empty(n if n_timed else 0)  # (the loads at the mid-point: f_const itself without timed loads)
    dz = np.empty(neq)
    same_rows = k_nodes == R.shape[0]  # (every node oriented, in node order: R0n is R)
    for k in range(k_nodes):
        if lay_nodes[k] != k:
            same_rows = False
    R0n = R if same_rows else np.empty((k_nodes, 3, 3))
    Jn = np.empty((k_nodes, 3, 3))
    pi0 = pi
    ps0 = np.empty((k_nodes, 3))
    ps1 = np.empty((k_nodes, 3))
    Rrel = np.empty((3, 3))
    vec = np.empty(3)
    nb = min(n_el, ELEMENT_BLOCK)  # (elements per block of the evaluations)
    width = 2 * kl + ku + 1
    ab = np.zeros((neq, width))  # the Newton matrix, assembled in the band LU's storage and factorized there
    var_eq = np.full(n, -1, dtype=np.int64)
    for q in range(neq):
        var_eq[ev[q]] = q
    meq_band = np.empty(meq_pos.size, dtype=np.int64)
    band_positions(indptr_k, indices_k, meq_pos, kl, width, meq_band)
    band = (var_eq, meq_band, kl)
    kb = min(k_nodes, ELEMENT_BLOCK)  # (nodes per block of the Cayley step)
    work = (np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(neq), ab,
            np.empty((k_nodes, 3)), np.empty((kb, 3, 3)), np.empty((k_nodes, 3, 3)),
            np.empty((kb, 3, 3)), np.empty((kb, 3, 3)), np.empty((k_nodes, 3)), np.empty((k_nodes, 3, 3)),
            np.empty((nb, n_dof)), np.empty((nb, n_dof)), np.empty((nb, 2, 3, 3)), np.empty((nb, 2, 3, 3)),
            np.empty((nb, 2, 3)), np.empty((nb, n_dof)), np.empty((nb, n_dof, n_dof)), np.empty(n_el))
    u1, w, pm, R_full, r, pi1, R1n = work[0], work[2], work[3], work[4], work[5], work[12], work[9]
    V0e = work[21]
    forms = section_forms(n_el)
    kmat = (ab.reshape(ab.size), kl, width)
    piv = np.zeros(neq, dtype=np.int64)
    diag = np.zeros(neq)
    reach = np.zeros(neq, dtype=np.int64)
    hist = np.empty(max_iterations + 1)
    guess = 1  # Newton iterations of the last step
    for step in range(hs.size):
        h = hs[step]
        step_start(u, v, u0, v0, amps[step], timed, fs)  # (u0, v0 are u, v: the timed loads)
        if not same_rows:
            for k in range(k_nodes):
                _copy_rows(R, lay_nodes[k], R0n, k)
        _spatial_inertia(R0n, J0, Jn)
        # loads at the mid-point and their norm over the equations
        fx = fext if n_timed else f_const
        if n_timed:
            for i in range(n):
                fext[i] = f_const[i] + fs[i]
        fext_norm = norm_over(fx, ev)
        mom_scale = momentum_flux_scale(v0, pi0, rot3d, lay_var, ev, indptr_m, indices_m, mdata, h, w, pm)
        V0e[:] = np.nan  # (the elements' start-of-step energies: computed at the first evaluation)
        # predictor with the prescribed increments
        for i in range(n):
            z[i] = h * v0[i]
        for q in range(pres_var.size):
            z[pres_var[q]] = pres_val[step, q] - u0[pres_var[q]]
        for q in range(prow.size):
            row = prow[q]
            for i in range(3):
                for j in range(3):
                    Rrel[i, j] = Rp[step, q, i, 0] * R0n[row, j, 0] + Rp[step, q, i, 1] * R0n[row, j, 1] + Rp[step, q, i, 2] * R0n[row, j, 2]
            cayley_vector(Rrel, vec)
            for c in range(3):
                z[lay_var[row, c]] = vec[c]
        for q in range(fixed.size):
            z[fixed[q]] = 0.0
        # Newton (step_newton.iterate)
        u_norm = euclidean_norm(u0)
        done = False
        at_round_off = False
        iterations = 0
        for it in range(max_iterations + 1):
            # residual first where convergence is likely (no earlier iteration of this step
            # than the last step needed; a state accepted at round-off): the matrix only if
            # a correction follows, then from a second, bitwise equal evaluation
            lazy = at_round_off or it >= max(guess, 1)
            with_matrix = not lazy
            converged = False
            for _ in range(2):  # (one call site of _evaluate: it is compiled into this function)
                norm, scale = _evaluate(u0, z, v0, h, fx, fext_norm, mom_scale, R0n, Jn, pi0, model, elems, mass,
                                        with_matrix, work, forms, band)
                if with_matrix or at_round_off:
                    break
                converged = norm <= residual_threshold(param[0], param[1], scale)  # newton_verdict's force test
                if converged:
                    break
                # with the matrix (lazy is True here: a run-time value rather than a literal
                # that would compile a second specialization)
                with_matrix = lazy
            if at_round_off:  # the last correction was at round-off: accepted (evaluated for the state)
                done, iterations = True, it
                break
            if converged:
                hist[it] = norm
                done, iterations = True, it
                break
            verdict = newton_verdict(hist, it, norm, scale, param, max_iterations, indptr_k, indices_k, kmat, ref, u0, z, ev, unit)
            if verdict:
                done, iterations = verdict > 0, it
                break
            status, ratio = band_factor_solve(ab, kl, ku, piv, diag, reach, 1.0, r, dz)
            if status != -1 or not ratio > 1e-13:
                return step, 2
            for i in range(n):
                z_new[i] = z[i]
            for q in range(neq):
                z_new[ev[q]] += dz[q]
            # the correction, limited to turn no rotation or chord by more than max_turn
            turn = 0.0
            if param[6] < np.inf:
                for k in range(k_nodes):
                    for c in range(3):
                        ps0[k, c] = z[lay_var[k, c]]
                        ps1[k, c] = z_new[lay_var[k, c]]
                turn = cayley_turn(ps0, ps1) if k_nodes else 0.0
                if chord_on:  # (u1 = u0 + z from the evaluation at z; w: work of the evaluations)
                    for i in range(n):
                        w[i] = z_new[i] - z[i]
                    chord = chord_turn(var, col_a, col_b, X21, u1, w)
                    turn = chord if chord > turn else turn
            # (at round-off: the next pass evaluates at z and accepts it, iterations it + 1)
            at_round_off = take_correction(z, z_new, dz, ev, turn, norm, scale, param, u_norm)
        if not done:
            return step, 1
        # the step's energy terms (MidPoint3DSystem.finish) and the accepted state
        w_plain = 0.0
        w_rot = 0.0
        for i in range(n):
            if rot3d[i]:
                w_rot += fx[i] * z[i]
            elif n_timed:
                w_plain += fs[i] * z[i]
        # (step_end overwrites v0, which is v: finish_rotary reads its rotational slots from z_new)
        for k in range(k_nodes):
            for c in range(3):
                z_new[lay_var[k, c]] = v0[lay_var[k, c]]
        step_end(R_full, z, work_var, work_ptr, w_plain + w_rot, books, u1, v0, h, u, v)
        finish_rotary(lay_var, J0, J0_pinv, R1n, pi1, z, z_new, h, u, v)
        for k in range(k_nodes):
            _copy_rows(R1n, k, R, lay_nodes[k])
            for c in range(3):
                pi[k, c] = pi1[k, c]
        its[step] = iterations
        guess = iterations
    return hs.size, 0
