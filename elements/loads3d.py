"""Applied moments at nodes with 3-D rotations: generalized forces and load stiffness.

Plain numpy helpers for oriented models (see elements.base): the generalized force is
conjugate to the spatial spin δw of the node (δR = δŵ R), and the *load stiffness* is the
(3, 3) matrix K_L = −∂F/∂w to be **added** to the rotational block of the node in the
tangent of the residual r = f_int − F (exact derivative, spins applied multiplicatively).

- Axial moment (fixed direction M in space): F = M, K_L = 0. Not conservative.
- Semitangential moment (Argyris; potential −M·θ with θ = log R the total rotation
  vector of the node, |θ| < π): F = J(θ)⁻ᵀ M, K_L = −∂(J⁻ᵀ M)/∂θ · J(θ)⁻¹, with J the left
  Jacobian of femb.core.rotations. At R = I: F = M and K_L = ½ M̂ (M̂ b = M × b). It is
  conservative: ½ M̂ cancels the skew part −½ m̂ of the element tangents at the loaded
  node, so the assembled tangent is symmetric at equilibrium. Used for the torsional
  buckling of a shaft under an end torque (π EI/l, Ziegler).
- Follower moment (body-fixed M0, current value R M0): F = R M0, K_L = (R M0)^.
"""
import numpy as np

from femb.core.rotations import hat, left_jacobian_inverse, left_jacobian_inverse_T_derivative, log_so3


def _theta(R):
    theta = np.zeros(3)
    if R is not None:
        log_so3(np.ascontiguousarray(R, dtype=np.float64), theta)
    return theta


def semitangential_moment(M, R=None):
    """Generalized force F (3,) of a semitangential moment M (3,) at a node with rotation
    R (3, 3) (identity when None): F = J(log R)⁻ᵀ M."""
    M = np.asarray(M, dtype=np.float64)
    Jinv = np.empty((3, 3))
    left_jacobian_inverse(_theta(R), Jinv)
    return Jinv.T @ M


def semitangential_moment_stiffness(M, R=None):
    """Load stiffness K_L (3, 3) = −∂F/∂w of a semitangential moment M (3,) at a node with
    rotation R (3, 3) (identity when None: K_L = ½ M̂). Add it to the node's rotational
    block of the tangent; scale with the load factor in linear buckling."""
    M = np.asarray(M, dtype=np.float64)
    theta = _theta(R)
    Jinv = np.empty((3, 3))
    L = np.empty((3, 3))
    left_jacobian_inverse(theta, Jinv)
    left_jacobian_inverse_T_derivative(theta, M, L)
    return -L @ Jinv


def follower_moment(M0, R):
    """Generalized force F (3,) = R M0 of a body-fixed (follower) moment M0 (3,)."""
    return np.asarray(R, dtype=np.float64) @ np.asarray(M0, dtype=np.float64)


def follower_moment_stiffness(M0, R):
    """Load stiffness K_L (3, 3) = −∂(R M0)/∂w = (R M0)^ of a follower moment."""
    out = np.empty((3, 3))
    hat(follower_moment(M0, R), out)
    return out
