"""Stress modes of a Craig–Bampton reduced component: the section resultants of every
element of the component per unit reduced coordinate.

Within the linear theory of the reduced body the resultants s of each element (the ones
its ``resultants`` kernel gives, named by ``spec.resultant_names``: beam forces and
moments, shell membrane forces, moments and shears, …) are linear in the full-mesh
displacements, and these are linear in the reduced coordinates r = [u_b; q]
(u = T r, T = [[I], [Ψ, Φ]]). So with one stress mode per reduced coordinate,

    S_j = ∂s/∂u · T e_j      (the linearized resultants of the field of unit r_j),

the resultants of any reduced state are s = Σ_j r_j S_j: full-mesh stress recovery costs
a weighted sum of precomputed arrays, with no element evaluation. The modes are computed
once per component (one linearized resultant evaluation of the full mesh per reduced
coordinate, femb.solvers.problem.linear_resultants: a central difference about the
reference state along (ε u, exp(ε θ̂)) for oriented models) and kept on the
ReducedComponent (``ReducedComponent.stress_modes``).

Constraint modes (unit interface displacements) carry the stresses of interface loads
exactly: the static interior response to interface displacements is the constraint mode
itself. An infinitesimal rigid motion of the interface has zero linearized resultants, so
the rigid part of the reduced coordinates contributes nothing. The order is the basis's
reduced order (boundary DOFs in the order of ``ReducedComponent.boundary_dofs``, then the
mass-normalised modal amplitudes q, unscaled); femb.results.superelement_stresses turns
them into the element DOF order and modal scaling of a superelement.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from femb.solvers.problem import linear_resultants


def component_stress_modes(rc: Any) -> dict[str, np.ndarray]:
    """Stress modes of the reduced component ``rc`` (a ReducedComponent): dict part ->
    (n_r, n_el, n_res) float64, S[j] the resultants of every element of the part for the
    unit reduced coordinate j (module docstring), columns named by the part's
    ``spec.resultant_names``. Parts whose elements have no resultants get (n_r, n_el, 0)."""
    prob, basis = rc.problem, rc.basis
    t, asm = prob.table, prob.assembler
    layout = prob.rotations if prob.oriented else None
    T = basis.transformation()  # (n_eq, n_r) over the free equations
    n_r = T.shape[1]
    modes = {b.part: np.zeros((n_r, b.n_elements, len(b.spec.resultant_names))) for b in t.blocks}
    u = np.zeros(t.n_var)
    for j in range(n_r):
        u[:] = 0.0
        u[t.eq_var] = T[:, j]
        if not np.any(u):
            continue
        for part, s in linear_resultants(asm, u, layout).items():
            if part in modes and s.size:
                modes[part][j] = s
    return modes
