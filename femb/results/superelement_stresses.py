"""Stress recovery of co-rotated Craig–Bampton superelements by precomputed stress modes.

The reduced component is linear in the shadow frame (o, R_s) of its element
(elements.superelement), and so are the section resultants of its elements (beam forces
and moments, shell membrane forces, moments and shears, … — those of the elements'
``resultants`` kernels, named by ``spec.resultant_names``, in each element's own local
axes). With the element's deformational vector d = [ū_1, θ̄_1, …, ū_n, θ̄_n, q̂] (m,) the
resultants of every element of the component are

    s = Σ_j d_j S_j,

S_j the stress mode of element coordinate j: the linearized resultants of the full-mesh
displacement field of unit d_j. The stress modes of the reduction (one per reduced
coordinate, its own order, axes and unscaled modal amplitudes) are computed once and kept
on the ReducedComponent (``ReducedComponent.stress_modes``,
femb.solvers.reduction.stress_modes); here they are turned into the superelement's
element coordinates exactly as ``superelement_positions`` turns d back into the
reduction:

    S^el_(6a+3β+i) = Σ_k (Q_p)_(ik) S_order(6a+3β+k)    (boundary 3-blocks, model axes),
    S^el_(6n+j) = modal_scale · S_order(6n+j)           (q = √m q̂),

with ``order`` = ``data.recovery["order"]`` and Q_p the placement rotation. The resultants
are in element-local axes, so the placement and the shadow frame do not turn them: only
the deformation d enters, and the recovered stresses are objective (unchanged by any
rigid motion of the superelement). For interface loads they equal the unreduced model's
linear resultants (the constraint modes are the exact static interior response); the
modal part adds the interior dynamics the kept modes carry. Like the body, they are
linear in its frame: nonlinear effects inside one superelement are not recovered.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
from numpy.typing import NDArray

from femb.core.errors import InputError
from femb.results.superelements import element_deformation


@dataclass(frozen=True)
class SuperelementStressModes:
    """Stress modes of one superelement in its element coordinates (module docstring).

    Attributes
    ----------
    modes : dict part -> (m, n_el, n_res) float64
        For each part of the reduced component, S[j] the resultants of its n_el elements
        per unit element coordinate d_j (lengths, radians, scaled modal amplitudes q̂;
        m = 6·n_nodes + n_modes).
    names : dict part -> tuple of str
        The resultant names of each part (columns of its modes, ``spec.resultant_names``).
    """

    modes: dict[str, NDArray[np.float64]]
    names: dict[str, tuple[str, ...]]

    def resultants(self, d: NDArray[np.float64]) -> dict[str, NDArray[np.float64]]:
        """Resultants {part: (n_el, n_res)} = Σ_j d_j S_j for the deformational vector d (m,)."""
        d = np.asarray(d, dtype=np.float64)
        return {part: np.tensordot(d, S, axes=1) for part, S in self.modes.items()}


def superelement_stress_modes(model: Any, part: str) -> SuperelementStressModes:
    """Stress modes of the superelement ``part`` of ``model`` in its element coordinates
    (module docstring), from the reduced component's cached modes (computed on the first
    call for that component: one linearized resultant evaluation of the full mesh per
    reduced coordinate). InputError when the part is not a superelement or its data carry
    no reduced component (a reduction of matrix files has no mesh to recover)."""
    data = model.superelements.get(part)
    if data is None:
        raise InputError(f"{part!r} is not a superelement (superelements: {sorted(model.superelements)})", "recovery")
    comp = data.recovery.get("component")
    if comp is None:
        raise InputError("the superelement's data carry no reduced component to recover (matrix files)", f"superelement {part!r}")
    m = data.K.shape[0]
    n = data.n_nodes
    Qp, _ = data.recovery.get("placement", (np.eye(3), np.zeros(3)))
    # L: reduced (component order, axes, unscaled q) = L d; the element modes are Lᵀ S
    L = np.zeros((m, m))
    order = np.asarray(data.recovery["order"], dtype=np.int64)
    for b in range(2 * n):
        L[order[3 * b:3 * b + 3], 3 * b:3 * b + 3] = Qp.T
    L[order[6 * n:], np.arange(6 * n, m)] = data.modal_scale
    names = {b.part: tuple(b.spec.resultant_names) for b in comp.table.blocks}
    modes = {p: np.tensordot(L.T, S, axes=1) for p, S in comp.stress_modes().items()}
    return SuperelementStressModes(modes, names)


def superelement_resultants(model: Any, table: Any, part: str, u: NDArray[np.float64],
                            R: Optional[NDArray[np.float64]] = None,
                            modes: Optional[SuperelementStressModes] = None) -> dict[str, NDArray[np.float64]]:
    """Section resultants of every element of the component reduced into the superelement
    ``part`` at a state of the model.

    Parameters
    ----------
    model : the Model holding the superelement (``model.superelements[part]``)
    table : its CorrelationTable
    part : the superelement's part name
    u : (n_var,) variables of a state (e.g. ``results.states[frame]``)
    R : (n_nodes, 3, 3) nodal rotations (default: exp of the rotation vectors in ``u``)
    modes : the part's ``superelement_stress_modes(model, part)``, to reuse over many
        frames (computed when None)

    Returns
    -------
    dict component part name -> (n_el, n_res) resultants (element-local axes, the units and
    names of the component's element kernels, ``spec.resultant_names``), Σ_j d_j S_j with d
    the superelement's deformational vector (module docstring).

    InputError when the part is not a superelement or its data carry no component.
    """
    modes = superelement_stress_modes(model, part) if modes is None else modes
    d = element_deformation(model, table, part, u, R)[-1]
    return modes.resultants(d)
