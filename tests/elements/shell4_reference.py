"""Slow numpy reference of the shell4 kernels (one element at a time, matrix notation),
written from elements/shell4.py's docstring: strain energy, internal force, mass."""
import numpy as np
from scipy.spatial.transform import Rotation

from tests.elements.shell3_reference import andes_opt, hat, left_jacobian_inverse, plane_stress

XI = np.array([-1.0, 1.0, 1.0, -1.0])
ETA = np.array([-1.0, -1.0, 1.0, 1.0])
MEM = np.array([6 * k + c for k in range(4) for c in (0, 1, 5)])
BEN = np.array([6 * k + c for k in range(4) for c in (2, 3, 4)])
GAUSS = [(-1 / np.sqrt(3), -1 / np.sqrt(3)), (1 / np.sqrt(3), -1 / np.sqrt(3)), (1 / np.sqrt(3), 1 / np.sqrt(3)),
         (-1 / np.sqrt(3), 1 / np.sqrt(3))]


def frame(x):
    """Diagonal frame (rows) and node coordinates relative to the centroid."""
    d, s = x[2] - x[0], x[3] - x[1]
    e1 = d / np.linalg.norm(d)
    e3 = np.cross(d, s) / np.linalg.norm(np.cross(d, s))
    E = np.array([e1, np.cross(e3, e1), e3])
    return E, (x - x.mean(axis=0)) @ E.T


def shapes(xi, eta, P):
    N = 0.25 * (1 + XI * xi) * (1 + ETA * eta)
    dnat = np.array([0.25 * XI * (1 + ETA * eta), 0.25 * ETA * (1 + XI * xi)])  # (2, 4)
    J = dnat @ P[:, :2]
    return N, np.linalg.solve(J, dnat).T, J, dnat


def local_matrices(P, E, nu, t):
    """Membrane Km, constant-strain map CN; MITC4 Kb; slope integrals S (3, 12, 12); area."""
    Km, CN, total = np.zeros((12, 12)), np.zeros((3, 12)), 0.0
    for o in range(4):
        tri = [(o + 1 + a) % 4 for a in range(3)]
        K, strain, A = andes_opt(P[tri], E, nu, t)
        idx = np.array([3 * k + c for k in tri for c in range(3)])
        Km[np.ix_(idx, idx)] += 0.5 * K
        CN[:, idx] += 0.5 * A * (t * plane_stress(E, nu) @ strain)
        total += A
    A = 0.5 * total
    CN /= A
    Db = E * t**3 / (12 * (1 - nu**2)) * np.array([[1, nu, 0], [nu, 1, 0], [0, 0, (1 - nu) / 2]])
    ks = 5 / 6 * E / (2 * (1 + nu)) * t

    def covariant(xi, eta, which):
        N, dN, J, dnat = shapes(xi, eta, P)
        row = np.zeros(12)
        row[0::3] = dnat[which]
        row[1::3] = -N * J[which, 1]
        row[2::3] = N * J[which, 0]
        return row

    tie = [covariant(0, -1, 0), covariant(0, 1, 0), covariant(-1, 0, 1), covariant(1, 0, 1)]
    Kb, S = np.zeros((12, 12)), np.zeros((3, 12, 12))
    for xi, eta in GAUSS:
        N, dN, J, _ = shapes(xi, eta, P)
        Bk = np.zeros((3, 12))
        Bk[0, 2::3] = -dN[:, 0]
        Bk[1, 1::3] = dN[:, 1]
        Bk[2, 2::3] = -dN[:, 1]
        Bk[2, 1::3] = dN[:, 0]
        gnat = np.array([0.5 * (1 - eta) * tie[0] + 0.5 * (1 + eta) * tie[1],
                         0.5 * (1 - xi) * tie[2] + 0.5 * (1 + xi) * tie[3]])
        Bs = np.linalg.solve(J, gnat)
        det = np.linalg.det(J)
        Kb += det * (Bk.T @ Db @ Bk + ks * Bs.T @ Bs)
        px, py = np.zeros(12), np.zeros(12)
        px[2::3], py[1::3] = -N, N
        S += det * np.array([np.outer(px, px), np.outer(py, py), np.outer(px, py) + np.outer(py, px)])
    return Km, CN, Kb, S, A


def deformation(X, u, R):
    E0, P = frame(X)
    E, Y = frame(X + u.reshape(4, 6)[:, :3])
    d = np.zeros(24)
    for k in range(4):
        d[6 * k:6 * k + 3] = Y[k] - P[k]
        d[6 * k + 3:6 * k + 6] = Rotation.from_matrix(E @ R[k] @ E0.T).as_rotvec()
    return d, E, Y, P


def local_energy_gradient(P, p, d):
    Km, CN, Kb, S, A = local_matrices(P, p[0], p[1], p[2])
    DN = p[2] * plane_stress(p[0], p[1])
    dm, db = d[MEM], d[BEN]
    eps = np.linalg.solve(DN, CN @ dm)
    s = np.array([db @ S[k] @ db for k in range(3)])
    evk = s / (2 * A)
    V = 0.5 * dm @ Km @ dm + 0.5 * db @ Kb @ db + A * (eps + 0.5 * evk) @ DN @ evk
    N = DN @ (eps + evk)
    g = np.zeros(24)
    g[MEM] = Km @ dm + 0.5 * CN.T @ s
    g[BEN] = Kb @ db + sum(N[k] * S[k] @ db for k in range(3))
    return V, g


def energy(X, u, R, p):
    d, E, Y, P = deformation(X, u, R)
    return local_energy_gradient(P, p, d)[0]


def force(X, u, R, p):
    d, E, Y, P = deformation(X, u, R)
    g = local_energy_gradient(P, p, d)[1]
    l, a, b = Y[2, 0] - Y[0, 0], Y[3, 0] - Y[1, 0], Y[3, 1] - Y[1, 1]
    Om = np.zeros((3, 24))
    Om[0, [14, 2, 20, 8]] = [-a / (l * b), a / (l * b), 1 / b, -1 / b]
    Om[1, [14, 2]] = [-1 / l, 1 / l]
    Om[2, [13, 1]] = [1 / l, -1 / l]
    B = np.zeros((24, 24))
    for k in range(4):
        for q in range(4):
            B[6 * k:6 * k + 3, 6 * q:6 * q + 3] -= np.eye(3) / 4
        B[6 * k:6 * k + 3, 6 * k:6 * k + 3] += np.eye(3)
        B[6 * k:6 * k + 3] += hat(Y[k]) @ Om
        Ji = left_jacobian_inverse(d[6 * k + 3:6 * k + 6])
        B[6 * k + 3:6 * k + 6, 6 * k + 3:6 * k + 6] += Ji
        B[6 * k + 3:6 * k + 6] -= Ji @ Om
    return np.kron(np.eye(8), E).T @ (B.T @ g)


def mass(X, p, kind):
    E0, P = frame(X)
    rho, t = p[3], p[2]
    Mt, A = np.zeros((4, 4)), 0.0
    for xi, eta in GAUSS:
        N, dN, J, _ = shapes(xi, eta, P)
        det = np.linalg.det(J)
        A += det
        Mt += rho * t * det * np.outer(N, N)
    if kind == 0:
        Mt = np.eye(4) * rho * t * A / 4
    M = np.kron(Mt, np.diag([1, 1, 1, 0, 0, 0.0]))
    for k in range(4):
        M[6 * k + 3:6 * k + 6, 6 * k + 3:6 * k + 6] = rho * t**3 * A / 48 * np.eye(3)
    return M
