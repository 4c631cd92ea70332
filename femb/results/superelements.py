"""Full-mesh recovery of co-rotated Craig–Bampton superelements.

The reduced component moves as a linear body in the shadow frame (o, R_s) of its element
(elements.superelement): from the element's deformational DOFs d = [ū_a, θ̄_a, q̂] the
component's displacements in its own axes are u = T [ū_b; √m q̂] (T = [[I], [Ψ, Φ]], the
Craig–Bampton basis; boundary values turned back by the placement rotation Q_p), and the
current position of every component node is

    x = o + R_s (Q_p (X + u) + t_p − X_c),

X its reference position in the component, (Q_p, t_p) the placement of the reduced body in
the model and X_c the reference centroid of the interface nodes. The interface nodes land
exactly on the model nodes the superelement is attached to. The section resultants of the
component's elements are recovered by precomputed stress modes
(femb.results.superelement_stresses).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np
from numpy.typing import NDArray

from femb.core.errors import InputError
from femb.core.rotations import exp_batch
from femb.elements.superelement import deformation


def superelement_positions(model: Any, table: Any, part: str, u: NDArray[np.float64],
                           R: Optional[NDArray[np.float64]] = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Reference and current positions of every node of the component reduced into the
    superelement ``part``.

    Parameters
    ----------
    model : the Model holding the superelement (``model.superelements[part]``)
    table : its CorrelationTable
    part : the superelement's part name
    u : (n_var,) variables of a state (e.g. ``results.states[frame]``)
    R : (n_nodes, 3, 3) nodal rotations (default: exp of the rotation vectors in ``u``)

    Returns
    -------
    X, x : (n_p, 3) reference positions (the placed component, model axes) and current
        positions (length unit) of the component's nodes.

    InputError when the part is not a superelement or its data carry no component (a
    reduction of matrix files: no mesh to recover).
    """
    data, comp, block, o, Rs, d = element_deformation(model, table, part, u, R)
    Qp, tp = data.recovery.get("placement", (np.eye(3), np.zeros(3)))
    n = data.n_nodes
    local = d.copy()
    for b in range(2 * n):  # boundary values back into the component's axes
        local[3 * b:3 * b + 3] = Qp.T @ d[3 * b:3 * b + 3]
    local[6 * n:] *= data.modal_scale
    reduced = np.zeros(d.size)
    reduced[data.recovery["order"]] = local
    ucomp = comp.full_displacement(reduced)
    ctab = comp.table
    points = np.asarray(data.recovery["points"], dtype=np.float64)
    disp = np.zeros_like(points)
    for k, name in enumerate(("ux", "uy", "uz")):
        col = ctab.node_var[:, ctab.dof_names.index(name)]
        disp[col >= 0, k] = ucomp[col[col >= 0]]
    Xc = block.X[0].mean(axis=0)
    X = points @ Qp.T + tp
    x = o + (X + disp @ Qp.T - Xc) @ Rs.T
    return X, x


def element_deformation(model: Any, table: Any, part: str, u: NDArray[np.float64],
                        R: Optional[NDArray[np.float64]] = None) -> tuple[Any, Any, Any, NDArray[np.float64],
                                                                           NDArray[np.float64], NDArray[np.float64]]:
    """The superelement ``part`` at state (u, R) (arguments of ``superelement_positions``):
    (data, component, block, o, R_s, d) with data its SuperelementData, component the
    reduced component (``data.recovery["component"]``), block its element block of
    ``table``, (o, R_s) its shadow frame and d (m,) its deformational vector
    [ū_1, θ̄_1, …, ū_n, θ̄_n, q̂] (elements.superelement: boundary values in the model's
    axes, scaled modal amplitudes). InputError when the part is not a superelement or its
    data carry no component (a reduction of matrix files: no mesh to recover)."""
    data = model.superelements.get(part)
    if data is None:
        raise InputError(f"{part!r} is not a superelement (superelements: {sorted(model.superelements)})", "recovery")
    comp = data.recovery.get("component")
    if comp is None:
        raise InputError("the superelement's data carry no reduced component to recover (matrix files)", f"superelement {part!r}")
    block = next(b for b in table.blocks if b.part == part)
    n = block.cells.shape[1]
    if R is None:  # exp of the rotation vectors the state holds at the superelement's nodes
        cols = [table.dof_names.index(k) for k in ("rx", "ry", "rz")]
        theta = np.ascontiguousarray(np.asarray(u, dtype=np.float64)[table.node_var[block.cells[0]][:, cols]])
        Re = np.empty((1, n, 3, 3))
        exp_batch(theta, Re[0])
    else:
        Re = np.ascontiguousarray(np.asarray(R, dtype=np.float64)[block.cells])
    m = block.var.shape[1]
    ue = np.where(block.var >= 0, np.asarray(u, dtype=np.float64)[np.maximum(block.var, 0)], 0.0)
    Xt, Y, Rb, Rs, th, d = np.zeros((n, 3)), np.zeros((n, 3)), np.zeros((n, 3, 3)), np.zeros((3, 3)), np.zeros((n, 3)), np.zeros(m)
    o, _ = deformation(block.X, ue, Re, 0, Xt, Y, Rb, Rs, th, d)
    return data, comp, block, o, Rs, d
