"""Slow numpy reference of the 2-D co-rotational beam elements (one element at a time).

Written independently of the compiled kernels: the chord angles come from ``arctan2`` and
the local rotations from an explicit wrap to (−π, π]; B, D and the mass matrices are built
as whole matrices. ``p`` rows are (EA, EI, rhoA, rhoI) for beam2d and (EA, EI, GAs, rhoA,
rhoI) for beam2d_timoshenko.
"""
import numpy as np


def wrap(a):
    """Angle(s) ``a`` mapped to (−π, π]."""
    return np.pi - np.mod(np.pi - a, 2.0 * np.pi)


def unpack(p):
    """(EA, EI, GAs, rhoA, rhoI) of one property row; GAs = inf for beam2d."""
    p = np.asarray(p, dtype=float)
    if p.size == 6:  # beam2d_timoshenko: (EA, EI, GAs, rhoA, rhoI, ym)
        return tuple(p[:5])
    EA, EI, rhoA, rhoI = p[:4]  # beam2d: (EA, EI, rhoA, rhoI[, ym])
    return EA, EI, np.inf, rhoA, rhoI


def bending_stiffness(EI, GAs, l0):
    """Local bending stiffness K_b (2, 2) relating (M1, M2) to (θ̄1, θ̄2)."""
    phi = 12.0 * EI / (GAs * l0**2)
    return EI / (l0 * (1.0 + phi)) * np.array([[4.0 + phi, 2.0 - phi], [2.0 - phi, 4.0 + phi]])


def kinematics(X, u):
    """Dict of l0, l, c, s, theta_bar (2,) for one element X (2, 2), u (6,)."""
    X21 = X[1] - X[0]
    x21 = X21 + u[3:5] - u[0:2]
    l0, l = np.linalg.norm(X21), np.linalg.norm(x21)
    alpha = np.arctan2(x21[1], x21[0]) - np.arctan2(X21[1], X21[0])
    tb = wrap(np.array([u[2], u[5]]) - alpha)
    return dict(l0=l0, l=l, c=x21[0] / l, s=x21[1] / l, theta_bar=tb)


def rz_vectors(c, s):
    r = np.array([-c, -s, 0.0, c, s, 0.0])
    z = np.array([s, -c, 0.0, -s, c, 0.0])
    return r, z


def B_matrix(X, u):
    """B (3, 6): rows δl, δθ̄1, δθ̄2."""
    k = kinematics(X, u)
    r, z = rz_vectors(k["c"], k["s"])
    e3, e6 = np.eye(6)[2], np.eye(6)[5]
    return np.array([r, e3 - z / k["l"], e6 - z / k["l"]])


def D_matrix(X, u, p):
    """D (3, 3) = diag(EA/l0, K_b)."""
    EA, EI, GAs, _, _ = unpack(p)
    l0 = kinematics(X, u)["l0"]
    D = np.zeros((3, 3))
    D[0, 0] = EA / l0
    D[1:, 1:] = bending_stiffness(EI, GAs, l0)
    return D


def resultants(X, u, p):
    """(N, V, M1, M2)."""
    EA, EI, GAs, _, _ = unpack(p)
    k = kinematics(X, u)
    N = EA * (k["l"] - k["l0"]) / k["l0"]
    M = bending_stiffness(EI, GAs, k["l0"]) @ k["theta_bar"]
    return np.array([N, (M[0] + M[1]) / k["l"], M[0], M[1]])


def internal_force(X, u, p):
    s = resultants(X, u, p)
    return B_matrix(X, u).T @ np.array([s[0], s[2], s[3]])


def material_stiffness(X, u, p):
    """Bᵀ D B."""
    B = B_matrix(X, u)
    return B.T @ D_matrix(X, u, p) @ B


def geometric_stiffness(X, u, s):
    """N z zᵀ/l + (M1 + M2)/l² (r zᵀ + z rᵀ) for resultants s = (N, V, M1, M2)."""
    k = kinematics(X, u)
    r, z = rz_vectors(k["c"], k["s"])
    l = k["l"]
    return s[0] * np.outer(z, z) / l + (s[2] + s[3]) / l**2 * (np.outer(r, z) + np.outer(z, r))


def tangent(X, u, p):
    return material_stiffness(X, u, p) + geometric_stiffness(X, u, resultants(X, u, p))


def strain_energy(X, u, p):
    EA, EI, GAs, _, _ = unpack(p)
    k = kinematics(X, u)
    tb = k["theta_bar"]
    return 0.5 * EA * (k["l"] - k["l0"]) ** 2 / k["l0"] + 0.5 * tb @ bending_stiffness(EI, GAs, k["l0"]) @ tb


def timoshenko_bending_mass(rhoA, rhoI, L, phi):
    """Consistent bending mass (4, 4) over (v1, θ1, v2, θ2) of the shear-flexible element,
    Φ = 12 EI/(GA_s L²): v = a0 + a1 x + a2 x² + a3 x³ and the section rotation
    θ = v′ + (EI/GA_s) v‴ (the static Timoshenko solution), coefficients solved from the
    nodal values, ∫(ρA v² + ρI θ²) integrated exactly as polynomials."""
    c = phi * L**2 / 12.0
    P = np.polynomial.polynomial
    v_rows = [P.polyvander(x, 3)[0] for x in (0.0, L)]
    t_rows = [np.array([0.0, 1.0, 2.0 * x, 3.0 * x**2 + 6.0 * c]) for x in (0.0, L)]
    C = np.linalg.inv(np.array([v_rows[0], t_rows[0], v_rows[1], t_rows[1]]))  # columns: shapes
    M = np.zeros((4, 4))
    for i in range(4):
        for j in range(4):
            vi, vj = C[:, i], C[:, j]
            ti, tj = P.polyadd(P.polyder(vi), [6.0 * c * vi[3]]), P.polyadd(P.polyder(vj), [6.0 * c * vj[3]])
            for coef, a, b in ((rhoA, vi, vj), (rhoI, ti, tj)):
                integral = P.polyint(P.polymul(a, b))
                M[i, j] += coef * P.polyval(L, integral)
    return M


def consistent_local(rhoA, rhoI, L, GAs=np.inf, EI=0.0):
    """Textbook consistent mass (6, 6) in local DOFs (u1, v1, θ1, u2, v2, θ2);
    shear-flexible (finite GAs): the bending block of ``timoshenko_bending_mass``."""
    axial = rhoA * L / 6.0 * np.array([[2.0, 1.0], [1.0, 2.0]])
    trans = rhoA * L / 420.0 * np.array([[156, 22 * L, 54, -13 * L], [22 * L, 4 * L**2, 13 * L, -3 * L**2],
                                          [54, 13 * L, 156, -22 * L], [-13 * L, -3 * L**2, -22 * L, 4 * L**2]])
    rot = rhoI / (30.0 * L) * np.array([[36, 3 * L, -36, 3 * L], [3 * L, 4 * L**2, -3 * L, -L**2],
                                        [-36, -3 * L, 36, -3 * L], [3 * L, -L**2, -3 * L, 4 * L**2]])
    M = np.zeros((6, 6))
    M[np.ix_([0, 3], [0, 3])] = axial
    M[np.ix_([1, 2, 4, 5], [1, 2, 4, 5])] = trans + rot
    if np.isfinite(GAs):
        M[np.ix_([1, 2, 4, 5], [1, 2, 4, 5])] = timoshenko_bending_mass(rhoA, rhoI, L, 12.0 * EI / (GAs * L**2))
    return M


def rotation_T(c, s):
    """T (6, 6) = diag(R, R), R = [[c, s, 0], [−s, c, 0], [0, 0, 1]] (global -> local)."""
    R = np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]])
    return np.kron(np.eye(2), R)


def mass(X, u, p, kind):
    """Mass matrix (6, 6) of kind 0 lumped, 1 consistent, 2 invariant."""
    _, EI, GAs, rhoA, rhoI = unpack(p)
    k = kinematics(X, u)
    l0 = k["l0"]
    if kind == 0:
        return np.diag(np.array([rhoA, rhoA, rhoI, rhoA, rhoA, rhoI]) * l0 / 2.0)
    if kind == 2:
        lin = l0 / 6.0 * np.array([[2.0, 1.0], [1.0, 2.0]])
        return np.kron(lin, np.diag([rhoA, rhoA, rhoI]))
    T = rotation_T(k["c"], k["s"])
    return T.T @ consistent_local(rhoA, rhoI, l0, GAs, EI) @ T


def batch(func, X, u, p, *args):
    """Stack ``func(X[e], u[e], p[e], *args)`` over the element axis."""
    return np.array([func(X[e], u[e], p[e], *args) for e in range(len(X))])
