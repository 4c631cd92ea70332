"""Compiled turn measure of the Newton corrections of a time step.

``chord_turn`` is the element-chord part of the rotation limit of
femb.solvers.dynamics.step_system._StepSystem.limit: the largest angle by which a
correction turns the chord of a 2-node line element. It evaluates, element by element and
in the same floating-point order, what the numpy expression it replaces computed
(c0 = X21 + a_b − a_a, c1 = c0 + d_b − d_a, angle = atan2(|c0 × c1|, c0·c1)), without the
dozen temporary arrays per call that dominated small steps.
"""
import math

import numpy as np

from femb.core.jit import jit


@jit
def chord_turn(var, col_a, col_b, X21, a, d):
    """Largest chord turn (rad, ≥ 0; NaN if an angle is NaN) of the elements with variables
    ``var`` (n_el, n_edof) int64, whose end-node translations sit in columns ``col_a``,
    ``col_b`` (dim,) int64, reference chords X21 (n_el, dim), coordinates ``a`` (n_var,)
    before and corrections ``d`` (n_var,)."""
    n, dim = X21.shape
    c0 = np.empty(3)
    c1 = np.empty(3)
    turn = 0.0
    for e in range(n):
        for k in range(dim):
            vb = var[e, col_b[k]]
            va = var[e, col_a[k]]
            c0[k] = X21[e, k] + a[vb] - a[va]
            c1[k] = c0[k] + d[vb] - d[va]
        if dim == 2:
            cr = abs(c0[0] * c1[1] - c0[1] * c1[0])
            dot = c0[0] * c1[0] + c0[1] * c1[1]
        else:
            x = c0[1] * c1[2] - c0[2] * c1[1]
            y = c0[2] * c1[0] - c0[0] * c1[2]
            z = c0[0] * c1[1] - c0[1] * c1[0]
            cr = math.sqrt(x * x + y * y + z * z)
            dot = c0[0] * c1[0] + c0[1] * c1[1] + c0[2] * c1[2]
        ang = math.atan2(cr, dot)
        if ang != ang:
            return ang
        if ang > turn:
            turn = ang
    return turn
