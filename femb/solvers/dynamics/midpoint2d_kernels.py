"""Compiled glue of the planar energy-conserving mid-point step (schemes._MidPointSystem).

A Newton iteration of a small planar model (a 10-element beam: 33 unknowns) costs a few
µs of compiled element work and, before these kernels, ~50 µs of numpy glue around it:
the Cayley configuration (boolean masks, a copy), the inertia product through
scipy.sparse, the residual sum, the mass part of the Newton matrix, three fancy-indexed
norms, and the rotation/chord turn limit of the correction. Each kernel below does one of
those chains in one pass over preallocated arrays, in the floating-point order of the numpy
expressions it replaces (the norms excepted: plain sums of squares instead of BLAS dot).

Index arrays are int64, values float64 (femb.core.jit).
"""
import math

import numpy as np

from femb.core.jit import jit
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
