"""Second-order displacement fields of the modal amplitudes of a Craig–Bampton reduction
(modal derivatives with the interface held).

A reduced body moves its points as u = Φ q to first order. When it bends, its points also
draw in: the second-order field ½ Σ_ab q_a q_b ψ_ab (a beam's tip shortens by ½∫w′² when
it bends). For a slender body this foreshortening is what makes a spinning body stiffen —
the centrifugal field does work on it (Kane, Ryan & Banerjee's geometric stiffening) — and
a linear reduced body lacks it. ψ_ab is the static response, with the interface held, to
the second-order force of the full model along the modes,

    K_ii ψ_ab,i = −[T(φ_a, φ_b)]_i,   T(φ_a, φ_b) = (d/ds) K_t(s φ_a)|₀ φ_b,

T the derivative of the full model's tangent (co-rotational elements: exact geometric
nonlinearity), by central differences of K_t along ±ε φ_a (oriented models: nodal
rotations exp(±ε θ̂_a)), symmetrized in (a, b). For a slender body the membrane stiffness
makes ψ_ab nearly inextensional: the foreshortening. Used by
``ReducedComponent.superelement(foreshortening=True)`` as the second-order rows of the
mass points (elements.superelement_step), whose kinetic energy then holds the stiffening
while the strain energy stays ½ qᵀ K q: the model remains energy-conserving.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse.linalg as spla

from femb.solvers.configuration import split_state
from femb.solvers.problem import ray_states


def modal_derivatives(rc) -> np.ndarray:
    """Ψ (n_eq, k, k): the second-order displacement fields ψ_ab over the component's free
    equations (module docstring) of the k modal amplitudes of the reduction ``rc`` (a
    ReducedComponent; unscaled, mass-normalised amplitudes q); zero on the interface."""
    prob, b = rc.problem, rc.basis
    t, asm = prob.table, prob.assembler
    k = b.n_modes
    i = b.interior
    Phi = np.zeros((t.n_eq, k))
    Phi[i] = b.normal_modes
    u0, R0 = split_state(prob.initial_state(None))
    _, K0 = asm.tangent(u0, R=R0)
    lu = spla.splu(K0.tocsc()[i][:, i].tocsc())
    layout = prob.rotations if prob.oriented else None
    F = np.zeros((t.n_eq, k, k))
    for a in range(k):
        ua = np.zeros(t.n_var)
        ua[t.eq_var] = Phi[:, a]
        (up, Rp), (um, Rm), eps = ray_states(ua, layout, relative_step=1e-6)
        F[:, a, :] = ((asm.tangent(up, R=Rp)[1] - asm.tangent(um, R=Rm)[1]) @ Phi) / (2.0 * eps)
    F = 0.5 * (F + F.transpose(0, 2, 1))
    Psi = np.zeros((t.n_eq, k, k))
    if i.size:
        Psi[i] = -lu.solve(F[i].reshape(i.size, k * k)).reshape(i.size, k, k)
    return Psi
