"""Compiled static load steps of a planar model of one beam2d block.

``beam2d_load_steps`` runs the Newton solves of several load factors in one call, each
the full Newton loop of femb.solvers.nonlinear.newton.newton without factorization reuse
(systems below ``NewtonSettings.reuse_min_equations``): the residual over the free
equations from the beam2d internal force, the force scale max(‖f_ext‖, ‖f_int‖, 1e-300),
the beam2d tangent factorized by femb's band LU, the first correction of every load step
applied with the element chords turned (femb.solvers.nonlinear.chord_update), and the same
tests in the same order: the residual threshold, the iteration cap, divergence, the
correction at round-off and the stagnated residual. The element kernels, the scatter, the
band LU and the chord turn are the compiled functions the general path calls, so the states
equal its states to round-off (the norms are plain sums of squares instead of BLAS dot).

Index arrays are int64, values float64 (femb.core.jit).
"""
import math

import numpy as np

from femb.core.jit import jit
from femb.core.scatter import gather_vector, scatter_matrix, scatter_vector
from femb.elements.beam2d import internal_force as beam2d_internal_force
from femb.elements.beam2d import strain_energy as beam2d_strain_energy
from femb.elements.beam2d import tangent as beam2d_tangent
from femb.solvers.linalg.dense_kernels import euclidean_norm, residual_threshold
from femb.solvers.linalg.factorization import _band_refactor_solve, _band_solve
from femb.solvers.nonlinear.chord_update import _planar_rest


@jit(internal=True)
def _force(X, props, var, u, ue, fe, f):
    """The beam2d internal force f (n_var,) at u (n_var,) (Assembler.internal_force)."""
    gather_vector(var, u, ue)
    beam2d_internal_force(X, ue, props, fe)
    for i in range(f.size):
        f[i] = 0.0
    scatter_vector(var, fe, f)


@jit
def beam2d_state(X, props, var, u, ue, fe, f, en):
    """The internal force f (n_var,) and the element strain energies en (n_el,) at u
    (n_var,) (Assembler.internal_force, .strain_energy per element); ue, fe (n_el, 6) work."""
    _force(X, props, var, u, ue, fe, f)
    beam2d_strain_energy(X, ue, props, en)


@jit
def _tangent(X, props, var, pos, u, ue, fe, ke, f, kdata):
    """The beam2d internal force f (n_var,) and tangent CSR data ``kdata`` on the table's
    pattern at u (Assembler.tangent)."""
    gather_vector(var, u, ue)
    beam2d_tangent(X, ue, props, fe, ke)
    for i in range(f.size):
        f[i] = 0.0
    for p in range(kdata.size):
        kdata[p] = 0.0
    scatter_vector(var, fe, f)
    scatter_matrix(pos, ke, kdata)


@jit(internal=True)
def _residual(f, fext, ev, r):
    """r = (f − fext)[ev] (n_eq,); returns (‖r‖, max(‖fext‖, ‖f‖, 1e-300)) with the norms
    of fext and f over all variables."""
    sr = 0.0
    for k in range(ev.size):
        i = ev[k]
        r[k] = f[i] - fext[i]
        sr += r[k] * r[k]
    return math.sqrt(sr), max(euclidean_norm(fext), euclidean_norm(f), 1e-300)


@jit(internal=True)
def _fit_axis(w, rest, axis, var, la, lb, ab, kl, piv, reach, rhs, plus, minus, sol, out):
    """out[var] += L⁻¹ rhs for one translation axis of the chord fit (ChordUpdate._fit):
    rhs = Σ_b w·rest[:, axis] − Σ_a w·rest[:, axis] over the chords' free ends (local
    indices la, lb (m,), −1 fixed), L the Laplacian's band LU (ab, kl, piv, reach)."""
    for j in range(var.size):
        plus[j] = 0.0
        minus[j] = 0.0
    for i in range(la.size):
        wr = w[i] * rest[i, axis]
        if lb[i] >= 0:
            plus[lb[i]] += wr
    for i in range(la.size):
        wr = w[i] * rest[i, axis]
        if la[i] >= 0:
            minus[la[i]] += wr
    for j in range(var.size):
        rhs[j] = plus[j] - minus[j]
    _band_solve(ab, kl, piv, reach, rhs, sol)
    for j in range(var.size):
        out[var[j]] += sol[j]


@jit
def beam2d_load_steps(u, lams, f_ref, f_const, pres_var, pres_value, ev, X, props, var, pos, indptr, indices, kl, ku,
                      chords, va, vb, X21, w,
                      fit_x, var_x, la_x, lb_x, ab_x, kl_x, piv_x, reach_x,
                      fit_y, var_y, la_y, lb_y, ab_y, kl_y, piv_y, reach_y,
                      param, max_iterations, states, forces, energies, its, residuals):
    """Static equilibria of a beam2d model at the load factors ``lams`` (k,), each load step
    from the state of the previous one (the first from u (n_var,), overwritten with each
    accepted state).

    External force lam·f_ref + f_const (n_var,); the prescribed variables ``pres_var``
    (m,) take ``pres_value``·lam; ``ev`` (n_eq,) the variable of each equation. Element
    block: X, props, var, pos; tangent pattern (indptr, indices) with band widths kl, ku.
    Chord predictor when ``chords``: chord ends va, vb (m_c, 2), reference chords X21
    (m_c, 2), weights w (m_c,), and per translation axis (``fit_x``, ``fit_y``: the axis has
    free variables) the fitted variables, the chords' local end indices and the band LU of
    the Laplacian. ``param`` = (tolerance, absolute tolerance (NaN: none), increment
    tolerance, divergence factor).

    Writes per accepted load step j: states[j] (n_var,), forces[j] the internal force at
    that state (n_var,), energies[j] the element strain energies (n_el,), its[j] the Newton
    iterations, residuals[j] the last residual norm of the iteration history.

    Returns (load steps done, status of the next one: 0 all done, 1 no convergence
    (diverging, not finite, iteration cap), 2 singular or non-finite tangent)."""
    n = u.size
    neq = ev.size
    tol, atol, inc_tol, div = param[0], param[1], param[2], param[3]
    x = np.empty(n)
    x_new = np.empty(n)
    du = np.zeros(n)
    f = np.empty(n)
    fext = np.empty(n)
    r = np.empty(neq)
    dx = np.empty(neq)
    kdata = np.empty(indices.size)
    n_el, n_dof = var.shape
    ue = np.empty((n_el, n_dof))
    fe = np.empty((n_el, n_dof))
    ke = np.empty((n_el, n_dof, n_dof))
    en = np.empty(n_el)
    ab = np.zeros((neq, 2 * kl + ku + 1))
    piv = np.zeros(neq, dtype=np.int64)
    diag = np.zeros(neq)
    reach = np.zeros(neq, dtype=np.int64)
    hist = np.empty(max_iterations + 1)
    rest = np.empty((va.shape[0], 2))
    nx = var_x.size
    ny = var_y.size
    work_x = np.empty((4, nx))
    work_y = np.empty((4, ny))
    for step in range(lams.size):
        lam = lams[step]
        for i in range(n):
            x[i] = u[i]
            fext[i] = lam * f_ref[i] + f_const[i]
        for k in range(pres_var.size):
            x[pres_var[k]] = pres_value[k] * lam
        done = False
        evaluated = False  # f holds the force of the state x
        iterations = 0
        for it in range(max_iterations + 1):
            if it == 0:
                _tangent(X, props, var, pos, x, ue, fe, ke, f, kdata)
                has_tangent = True
            else:
                _force(X, props, var, x, ue, fe, f)
                has_tangent = False
            evaluated = True
            norm, scale = _residual(f, fext, ev, r)
            hist[it] = norm
            if norm <= residual_threshold(tol, atol, scale):  # (False for a NaN norm)
                done, iterations = True, it
                break
            if not math.isfinite(norm) or it == max_iterations:
                break
            if it >= 2 and norm > div * max(hist[0], 1e-300):
                break
            if not has_tangent:
                _tangent(X, props, var, pos, x, ue, fe, ke, f, kdata)
            status, ratio = _band_refactor_solve(indptr, indices, kdata, kl, ku, ab, piv, diag, reach, 1.0, r, dx)
            if status != -1 or not ratio > 1e-13:
                return step, 2
            # the new state: the first correction with the chords turned, later ones added
            if it == 0 and chords:
                for k in range(neq):
                    du[ev[k]] = dx[k]
                for i in range(n):
                    x_new[i] = x[i] + du[i]
                _planar_rest(X21, x, du, va, vb, rest)
                if fit_x:
                    _fit_axis(w, rest, 0, var_x, la_x, lb_x, ab_x, kl_x, piv_x, reach_x, work_x[0], work_x[1], work_x[2], work_x[3], x_new)
                if fit_y:
                    _fit_axis(w, rest, 1, var_y, la_y, lb_y, ab_y, kl_y, piv_y, reach_y, work_y[0], work_y[1], work_y[2], work_y[3], x_new)
                for k in range(neq):
                    du[ev[k]] = 0.0
            else:
                for i in range(n):
                    x_new[i] = x[i]
                for k in range(neq):
                    x_new[ev[k]] += dx[k]
            for i in range(n):
                x[i] = x_new[i]
            evaluated = False
            if euclidean_norm(dx) <= inc_tol * max(euclidean_norm(x), 1e-300):
                if norm <= 1e-4 * scale or (it >= 1 and norm >= 0.5 * hist[it - 1]):
                    done, iterations = True, it + 1  # at round-off, or stagnated at round-off
                    break
        if not done:
            return step, 1
        if evaluated:
            gather_vector(var, x, ue)
            beam2d_strain_energy(X, ue, props, en)
        else:
            beam2d_state(X, props, var, x, ue, fe, f, en)
        for i in range(n):
            u[i] = x[i]
            states[step, i] = x[i]
            forces[step, i] = f[i]
        for e in range(n_el):
            energies[step, e] = en[e]
        its[step] = iterations
        residuals[step] = hist[it]  # the last residual of the history (of the state before a correction at round-off)
    return lams.size, 0
