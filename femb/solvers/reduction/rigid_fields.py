"""Rigid-body acceleration fields of a component about a point: the unit fields whose
d'Alembert loads −M a give the inertial load patterns of a body frame (origin
acceleration, angular acceleration, centrifugal products ω_iω_j). Used by the unit-load
geometric stiffness (femb.solvers.reduction.stress_stiffening) and by the inertia-correction
modes of reduce_component (femb.solvers.reduction.component)."""
import numpy as np

OMEGA_PRODUCTS_3D = ((0, 0), (1, 1), (2, 2), (0, 1), (1, 2), (2, 0))


def unit_rigid_accelerations(table, mesh, origin: np.ndarray) -> tuple:
    """Rigid acceleration fields over the variables of ``table`` (nodes of ``mesh``), each
    (n_var,), about the point ``origin`` (dim,): for unit a_o (dim of them), unit α (3, or
    1 in a planar model) and unit ω_iω_j products (6 or 1, in the order of
    OMEGA_PRODUCTS_3D), a_rigid(r) = a_o + α × r + ω × (ω × r), r = X − o (rotational
    slots: α)."""
    t = table
    dim = t.dim
    lever = np.zeros((t.n_var, 3))  # r = X − o of each variable's node, in 3-D
    lever[:, : mesh.dim] = mesh.points[t.var_node]
    lever[:, :dim] -= origin
    names = np.array(t.dof_names)[t.var_dof]
    component = {"ux": 0, "uy": 1, "uz": 2}
    trans = np.array([component.get(n, -1) for n in names])
    spin = np.array([component.get("u" + n[1], -1) if n.startswith("r") else -1 for n in names])
    rows = np.arange(t.n_var)

    def field(vectors, spin_vector=None):
        """The translational slots take their component of vectors (n_var, 3); rotational
        slots their component of spin_vector (3,)."""
        a = np.zeros(t.n_var)
        moving = trans >= 0
        a[moving] = vectors[rows[moving], trans[moving]]
        if spin_vector is not None:
            turning = spin >= 0
            a[turning] = spin_vector[spin[turning]]
        return a

    e = np.eye(3)
    linear = [field(np.broadcast_to(e[i], lever.shape)) for i in range(dim)]
    axes = range(3) if dim == 3 else (2,)
    angular = [field(np.cross(e[i], lever), e[i]) for i in axes]
    pairs = OMEGA_PRODUCTS_3D if dim == 3 else ((2, 2),)
    products = []
    for i, j in pairs:  # ∂²/∂ω_i∂ω_j of ω × (ω × r) = ω (ω·r) − |ω|² r (symmetric pairs once)
        if i == j:
            products.append(field(np.outer(lever[:, i], e[i]) - lever))
        else:
            products.append(field(np.outer(lever[:, j], e[i]) + np.outer(lever[:, i], e[j])))
    return linear, angular, products
