"""Test helpers shared by the oriented elements (beam3d, shell3, shell4): rotation
matrices, multiplicative perturbations and central differences over (δx_a, w_a) per
node, rigid and randomly deformed states, rigid modes."""
import numpy as np
from scipy.spatial.transform import Rotation

from femb.core.rotations import spin_update


def expm(theta):
    """Rotation matrix (3, 3) exp(θ̂) of the rotation vector θ (3,) [rad]."""
    return Rotation.from_rotvec(theta).as_matrix()


def hat(v):
    """Skew matrix (3, 3) with hat(a) b = a × b."""
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def perturb(u, R, j, eps):
    """Copy of (u (n, 6k), R (n, k, 3, 3)) with DOF j of every element moved by eps:
    translations additively, rotations multiplicatively, R ← exp(eps ê) R."""
    u2, R2 = u.copy(), R.copy()
    node, comp = divmod(j, 6)
    if comp < 3:
        u2[:, 6 * node + comp] += eps
    else:
        w = np.zeros((len(u), 3))
        w[:, comp - 3] = eps
        Rn = np.ascontiguousarray(R2[:, node])
        spin_update(Rn, w)
        R2[:, node] = Rn
    return u2, R2


def central_difference(func, u, R, h):
    """d func(u, R)/dz (n, ..., 6k) with z = (δx_1, w_1, …, δx_k, w_k), all elements at
    once, by central differences of step h."""
    return np.stack([(func(*perturb(u, R, j, h)) - func(*perturb(u, R, j, -h))) / (2 * h) for j in range(u.shape[1])],
                    axis=-1)


def rigid_state(X, Q, c):
    """(u (n, 6k), R (n, k, 3, 3)) of the rigid motion x = Q X + c of every element of
    X (n, k, 3) (Q (n, 3, 3), c (n, 3))."""
    n, k = X.shape[:2]
    u, R = np.zeros((n, 6 * k)), np.zeros((n, k, 3, 3))
    for e in range(n):
        for a in range(k):
            u[e, 6 * a:6 * a + 3] = Q[e] @ X[e, a] + c[e] - X[e, a]
            R[e, a] = Q[e]
    return u, R


def randomly_deformed(rng, X, amplitude, strain):
    """(u, R) of the elements X (n, k, 3) under random large rigid rotations (about 2.5 rad)
    and translations, with the node translations perturbed by ``strain`` of the size and
    the nodal rotations by ``amplitude`` rad (draws from ``rng`` in a fixed order)."""
    n, k = X.shape[:2]
    Q = np.array([expm(rng.normal(size=3) * 2.5) for _ in range(n)])
    u, R = rigid_state(X, Q, rng.normal(size=(n, 3)))
    for e in range(n):
        for a in range(k):
            u[e, 6 * a:6 * a + 3] += strain * rng.normal(size=3)
            R[e, a] = expm(amplitude * rng.normal(size=3)) @ R[e, a]
    return u, R


def rigid_modes(x):
    """Rigid modes (6k, 6) at node positions x (k, 3): 3 translations and 3 infinitesimal
    rotations about the origin (δx = ω × x, w = ω)."""
    k = len(x)
    T = np.zeros((6 * k, 6))
    for a in range(k):
        T[6 * a:6 * a + 3, 0:3] = np.eye(3)
        T[6 * a:6 * a + 3, 3:6] = -hat(x[a])
        T[6 * a + 3:6 * a + 6, 3:6] = np.eye(3)
    return T


class KernelCalls:
    """The kernels of an oriented element spec as functions that allocate their outputs
    (zeros) for n elements: force (n, m), tangent (f, K (n, m, m)), energy (n,),
    resultants (n, n_res), geometric (n, m, m), mass (n, m, m), m = spec.n_edof."""

    def __init__(self, spec):
        self.kernels, self.m, self.n_res = spec.kernels, spec.n_edof, len(spec.resultant_names)

    def force(self, X, u, R, p):
        """Internal force f (n, m)."""
        f = np.zeros((len(X), self.m))
        self.kernels.internal_force(X, u, R, p, f)
        return f

    def tangent(self, X, u, R, p):
        """Internal force f (n, m) and tangent K (n, m, m)."""
        f, K = np.zeros((len(X), self.m)), np.zeros((len(X), self.m, self.m))
        self.kernels.tangent(X, u, R, p, f, K)
        return f, K

    def energy(self, X, u, R, p):
        """Strain energy (n,)."""
        e = np.zeros(len(X))
        self.kernels.strain_energy(X, u, R, p, e)
        return e

    def resultants(self, X, u, R, p):
        """Resultants (n, n_res)."""
        s = np.zeros((len(X), self.n_res))
        self.kernels.resultants(X, u, R, p, s)
        return s

    def geometric(self, X, u, R, p, s):
        """Geometric stiffness (n, m, m) for resultants s."""
        K = np.zeros((len(X), self.m, self.m))
        self.kernels.geometric_stiffness(X, u, R, p, s, K)
        return K

    def mass(self, X, u, R, p, kind):
        """Mass matrices (n, m, m) of mass kind ``kind``."""
        M = np.zeros((len(X), self.m, self.m))
        self.kernels.mass(X, u, R, p, kind, M)
        return M
