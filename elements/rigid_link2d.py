"""Planar rigid body in natural coordinates: the inertia of a body described by two of its
points.

Element type ``rigid_link2d`` (``cell_type="line"``, nodes a and b, DOFs (ux, uy) each;
created by ``Model.rigid_link2d``, which also adds the ``distance`` joint that keeps the
two points rigidly apart). Params: ``m`` (mass), ``J`` (inertia about the centre of mass),
``cx``, ``cy`` (centre of mass from node a in the reference configuration, along the link
a → b and across it (rotated +90°), length units).

Every point of the body is x(ξ, η) = x_a + ξ d + η E d with d = x_b − x_a, E the +90°
rotation and (ξ, η) body coordinates in units of the reference length L0: linear in the
nodal positions q = (x_a, x_b). The kinetic energy ½ ∫ρ|ẋ|² is therefore ½ q̇ᵀ M q̇ with a
*constant* M = m E[AᵀA], A = [(1−ξ)I − ηE, ξI + ηE], which needs only the mass, the
centre of mass (ξc, ηc) and second moments. On the rigid manifold (|d| = L0) only the polar
moment J matters; the element uses the isotropic second moments
E[(ξ−ξc)²] = E[(η−ηc)²] = J/(2 m L0²), which keep M positive definite off the manifold too
(during Newton iterations). Blocks (I the 2×2 identity)::

    M_aa = m (E(1−ξ)² + Eη²) I      M_ab = m ((Eξ(1−ξ) − Eη²) I + ηc E)
    M_bb = m (Eξ² + Eη²) I          M_ba = M_abᵀ

A uniform rod (ξc = ½, ηc = 0, J = m L0²/12) gives the consistent truss mass m/6 [2 1; 1 2].
Gravity as M·g is exact: the force m g at the centre of mass. The same M for every mass
kind (nothing to lump); no stiffness, no strain energy, no resultants, no damping.
Constant mass and quadratic constraint make the body exact in the energy-conserving
mid-point scheme (Betsch & Steinmann's rotationless formulation of rigid bodies).
"""
import numpy as np

from femb.core import jit

from .base import CONSISTENT, INVARIANT, LUMPED, ElementKernels, ElementSpec
from .masses import no_resultants, zero_energy, zero_force, zero_geometric_stiffness, zero_midpoint_force, zero_tangent


@jit
def link_mass(X, u, p, kind, M):
    """Constant natural-coordinate mass (n_el, 4, 4) of planar rigid bodies (see the module
    docstring); p = (m, J, cx, cy); X (n_el, 2, 2) reference positions of nodes a, b."""
    for e in range(X.shape[0]):
        for i in range(4):
            for j in range(4):
                M[e, i, j] = 0.0
        m = p[e, 0]
        if m == 0.0:
            continue
        dx = X[e, 1, 0] - X[e, 0, 0]
        dy = X[e, 1, 1] - X[e, 0, 1]
        L2 = dx * dx + dy * dy
        xc = p[e, 2] / np.sqrt(L2)
        yc = p[e, 3] / np.sqrt(L2)
        s2 = p[e, 1] / (2.0 * m * L2)
        exx = xc * xc + s2
        eyy = yc * yc + s2
        aa = m * (1.0 - 2.0 * xc + exx + eyy)
        ab = m * (xc - exx - eyy)
        bb = m * (exx + eyy)
        w = m * yc
        for k in range(2):
            M[e, k, k] = aa
            M[e, 2 + k, 2 + k] = bb
            M[e, k, 2 + k] = ab
            M[e, 2 + k, k] = ab
        # m ηc E in the (a, b) block, E = [[0, −1], [1, 0]]; its transpose in (b, a)
        M[e, 0, 3] = -w
        M[e, 1, 2] = w
        M[e, 3, 0] = -w
        M[e, 2, 1] = w


def properties(material, section):
    """Rigid links take direct values (m, J, cx, cy) via Model.rigid_link2d."""
    raise ValueError("rigid_link2d takes direct values (m, J, cx, cy) via Model.rigid_link2d / add_discrete")


KERNELS = ElementKernels(
    internal_force=zero_force,
    tangent=zero_tangent,
    resultants=no_resultants,
    geometric_stiffness=zero_geometric_stiffness,
    strain_energy=zero_energy,
    mass=link_mass,
    midpoint_force=zero_midpoint_force,
    damping=None,
)

SPECS = {
    "rigid_link2d": ElementSpec(
        name="rigid_link2d",
        cell_type="line",
        n_nodes=2,
        dim=2,
        node_dofs=("ux", "uy"),
        params=("m", "J", "cx", "cy"),
        resultant_names=(),
        properties=properties,
        kernels=KERNELS,
        constant_mass=(LUMPED, CONSISTENT, INVARIANT),
        requires_length=True,
        defaults={"cy": 0.0},
        description="planar rigid body in natural coordinates (two of its points; constant mass), used with a distance joint",
    ),
}
