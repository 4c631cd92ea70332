"""Slow numpy reference of the shell3 kernels (one element at a time, matrix notation,
scipy's rotation logarithm), written from the formulas of elements/shell3.py's docstring:
strain energy, internal force, resultants and mass."""
import numpy as np
from scipy.spatial.transform import Rotation

BETA = np.array([1.0, 2.0, 1.0, 0.0, 1.0, -1.0, -1.0, -1.0, -2.0])
MEM = np.array([0, 1, 5, 6, 7, 11, 12, 13, 17])
BEN = np.array([2, 3, 4, 8, 9, 10, 14, 15, 16])


def hat(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def frame(x):
    """Rows e1, e2, e3 and node coordinates relative to the centroid in that frame."""
    e1 = (x[1] - x[0]) / np.linalg.norm(x[1] - x[0])
    n = np.cross(x[1] - x[0], x[2] - x[0])
    e3 = n / np.linalg.norm(n)
    E = np.array([e1, np.cross(e3, e1), e3])
    return E, (x - x.mean(axis=0)) @ E.T


def plane_stress(E, nu):
    return E / (1 - nu**2) * np.array([[1, nu, 0], [nu, 1, 0], [0, 0, (1 - nu) / 2]])


def andes_opt(P, E, nu, t):
    """Membrane: K (9, 9) = K_basic + K_higher, constant-strain operator Lᵀ/(2A) (3, 9)."""
    x, y = P[:, 0], P[:, 1]
    xd = lambda i, j: x[i] - x[j]  # noqa: E731
    yd = lambda i, j: y[i] - y[j]  # noqa: E731
    A = 0.5 * (xd(1, 0) * yd(2, 0) - xd(2, 0) * yd(1, 0))
    D = plane_stress(E, nu)
    a = 1.5
    rows = []
    for (i, j, k) in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
        # node i, opposite side j-k
        rows.append([yd(j, k), 0.0, xd(k, j)])
        rows.append([0.0, xd(k, j), yd(j, k)])
        rows.append([a / 6 * yd(j, k) * (yd(i, k) - yd(j, i)), a / 6 * xd(k, j) * (xd(k, i) - xd(i, j)),
                     a / 3 * (xd(k, i) * yd(i, k) - xd(i, j) * yd(j, i))])
    L = np.array(rows)
    Kb = t * L @ D @ L.T / (4 * A)
    strain = L.T / (2 * A)
    l21, l32, l13 = xd(1, 0)**2 + yd(1, 0)**2, xd(2, 1)**2 + yd(2, 1)**2, xd(0, 2)**2 + yd(0, 2)**2
    Te = np.array([[yd(1, 2) * yd(0, 2) * l21, yd(2, 0) * yd(1, 0) * l32, yd(0, 1) * yd(2, 1) * l13],
                   [xd(1, 2) * xd(0, 2) * l21, xd(2, 0) * xd(1, 0) * l32, xd(0, 1) * xd(2, 1) * l13],
                   [(yd(1, 2) * xd(2, 0) + xd(2, 1) * yd(0, 2)) * l21, (yd(2, 0) * xd(0, 1) + xd(0, 2) * yd(1, 0)) * l32,
                    (yd(0, 1) * xd(1, 2) + xd(1, 0) * yd(2, 1)) * l13]]) / (4 * A * A)
    b = BETA
    inv = 2 * A / 3 * np.diag([1 / l21, 1 / l32, 1 / l13])
    Q1 = inv @ b.reshape(3, 3)
    Q2 = inv @ b[[8, 6, 7, 2, 0, 1, 5, 3, 4]].reshape(3, 3)
    Q3 = inv @ b[[4, 5, 3, 7, 8, 6, 1, 2, 0]].reshape(3, 3)
    En = Te.T @ D @ Te
    Kth = A * t * sum(Q.T @ En @ Q for Q in ((Q1 + Q2) / 2, (Q2 + Q3) / 2, (Q3 + Q1) / 2))
    Ttu = np.zeros((3, 9))
    Ttu[:, [0, 1, 3, 4, 6, 7]] = np.array([xd(2, 1), yd(2, 1), xd(0, 2), yd(0, 2), xd(1, 0), yd(1, 0)]) / (4 * A)
    Ttu[[0, 1, 2], [2, 5, 8]] = 1.0
    beta0 = max(0.5 * (1 - 4 * nu**2), 0.01)
    return Kb + 0.75 * beta0 * Ttu.T @ Kth @ Ttu, strain, A


def dkt(P, E, nu, t):
    """DKT: stiffness (9, 9), slope integrals (3, 9, 9), centroid curvature operator (3, 9)."""
    T = np.zeros((12, 9))
    for a in range(3):
        T[2 * a, 3 * a + 2] = -1.0
        T[2 * a + 1, 3 * a + 1] = 1.0
    for k in range(3):
        i, j = (k + 1) % 3, (k + 2) % 3
        s = P[j, :2] - P[i, :2]
        l = np.linalg.norm(s)
        tt = s / l
        nn = np.array([-tt[1], tt[0]])
        # corner slope map ψ_c = C (θx, θy)
        C = np.array([[0.0, -1.0], [1.0, 0.0]])
        Mproj = 0.5 * np.outer(nn, nn) - 0.25 * np.outer(tt, tt)
        r = 6 + 2 * k
        for node, sgn in ((i, -1.0), (j, 1.0)):
            T[r:r + 2, 3 * node] += 1.5 * sgn * tt / l
            T[r:r + 2, 3 * node + 1:3 * node + 3] += Mproj @ C
    A2 = (P[1, 0] - P[0, 0]) * (P[2, 1] - P[0, 1]) - (P[2, 0] - P[0, 0]) * (P[1, 1] - P[0, 1])
    dL = np.array([[P[(a + 1) % 3, 1] - P[(a + 2) % 3, 1], P[(a + 2) % 3, 0] - P[(a + 1) % 3, 0]] for a in range(3)]) / A2
    A = A2 / 2

    def shapes(L):
        N = np.concatenate([L * (2 * L - 1), [4 * L[1] * L[2], 4 * L[2] * L[0], 4 * L[0] * L[1]]])
        dN = np.zeros((6, 2))
        for a in range(3):
            dN[a] = (4 * L[a] - 1) * dL[a]
        for k in range(3):
            i, j = (k + 1) % 3, (k + 2) % 3
            dN[3 + k] = 4 * (L[i] * dL[j] + L[j] * dL[i])
        return N, dN

    def curvature(dN):
        return np.array([dN[:, 0] @ T[0::2], dN[:, 1] @ T[1::2], dN[:, 1] @ T[0::2] + dN[:, 0] @ T[1::2]])

    Db = E * t**3 / (12 * (1 - nu**2)) * np.array([[1, nu, 0], [nu, 1, 0], [0, 0, (1 - nu) / 2]])
    K = np.zeros((9, 9))
    for q in range(3):
        L = np.full(3, 0.5)
        L[q] = 0.0
        B = curvature(shapes(L)[1])
        K += A / 3 * B.T @ Db @ B
    Bc = curvature(shapes(np.full(3, 1 / 3))[1])
    S = np.zeros((3, 9, 9))
    for a, w in ((0.445948490915965, 0.223381589678011), (0.091576213509771, 0.109951743655322)):
        for r in range(3):
            L = np.full(3, a)
            L[r] = 1 - 2 * a
            N = shapes(L)[0]
            px, py = N @ T[0::2], N @ T[1::2]
            S += A * w * np.array([np.outer(px, px), np.outer(py, py), np.outer(px, py) + np.outer(py, px)])
    return K, S, Bc, Db


def local_element(X, p):
    E0, P = frame(X)
    Km, strain, A = andes_opt(P, p[0], p[1], p[2])
    Kb, S, Bc, Db = dkt(P, p[0], p[1], p[2])
    DN = p[2] * plane_stress(p[0], p[1])
    return E0, P, Km, strain, A, Kb, S, Bc, Db, DN


def deformation(X, u, R):
    """d (18,), current frame E and local coordinates Y."""
    E0, P = frame(X)
    x = X + u.reshape(3, 6)[:, :3]
    E, Y = frame(x)
    d = np.zeros(18)
    for a in range(3):
        d[6 * a:6 * a + 3] = Y[a] - P[a]
        d[6 * a + 3:6 * a + 6] = Rotation.from_matrix(E @ R[a] @ E0.T).as_rotvec()
    return d, E, Y


def local_energy(X, p, d):
    """V_l(d) = membrane with averaged von Kármán strain + DKT bending (docstring form)."""
    E0, P, Km, strain, A, Kb, S, Bc, Db, DN = local_element(X, p)
    dm, db = d[MEM], d[BEN]
    eps = strain @ dm
    evk = np.array([db @ S[k] @ db for k in range(3)]) / (2 * A)
    Kbasic = A * strain.T @ DN @ strain
    higher = Km - Kbasic
    return 0.5 * A * (eps + evk) @ DN @ (eps + evk) + 0.5 * dm @ higher @ dm + 0.5 * db @ Kb @ db


def local_gradient(X, p, d):
    E0, P, Km, strain, A, Kb, S, Bc, Db, DN = local_element(X, p)
    dm, db = d[MEM], d[BEN]
    s = np.array([db @ S[k] @ db for k in range(3)])
    N = DN @ strain @ dm + DN @ s / (2 * A)
    g = np.zeros(18)
    g[MEM] = Km @ dm + 0.5 * (DN @ strain).T @ s
    g[BEN] = Kb @ db + sum(N[k] * S[k] @ db for k in range(3))
    return g, N


def left_jacobian_inverse(th):
    t = np.linalg.norm(th)
    H = hat(th)
    if t < 1e-8:
        return np.eye(3) - 0.5 * H + H @ H / 12
    return np.eye(3) - 0.5 * H + (1 - t / 2 / np.tan(t / 2)) / t**2 * H @ H


def variation(Y, d):
    """Ω (3, 18) and B̃ = ∂d/∂z̃ (18, 18) in element-frame components."""
    l, a, b = Y[1, 0] - Y[0, 0], Y[2, 0] - Y[0, 0], Y[2, 1] - Y[0, 1]
    Om = np.zeros((3, 18))
    Om[0, [2, 8, 14]] = [(a - l) / (l * b), -a / (l * b), 1 / b]
    Om[1, [2, 8]] = [1 / l, -1 / l]
    Om[2, [1, 7]] = [-1 / l, 1 / l]
    B = np.zeros((18, 18))
    for n in range(3):
        for m in range(3):
            B[6 * n:6 * n + 3, 6 * m:6 * m + 3] -= np.eye(3) / 3
        B[6 * n:6 * n + 3, 6 * n:6 * n + 3] += np.eye(3)
        B[6 * n:6 * n + 3] += hat(Y[n]) @ Om
        Ji = left_jacobian_inverse(d[6 * n + 3:6 * n + 6])
        B[6 * n + 3:6 * n + 6, 6 * n + 3:6 * n + 6] += Ji
        B[6 * n + 3:6 * n + 6] -= Ji @ Om
    return Om, B


def energy(X, u, R, p):
    d, E, Y = deformation(X, u, R)
    return local_energy(X, p, d)


def force(X, u, R, p):
    d, E, Y = deformation(X, u, R)
    g, N = local_gradient(X, p, d)
    Om, B = variation(Y, d)
    T = np.kron(np.eye(6), E)
    return T.T @ (B.T @ g)


def resultants(X, u, R, p):
    d, E, Y = deformation(X, u, R)
    g, N = local_gradient(X, p, d)
    E0, P, Km, strain, A, Kb, S, Bc, Db, DN = local_element(X, p)
    return np.concatenate([N, Db @ Bc @ d[BEN], g])


def mass(X, p, kind):
    A = 0.5 * np.linalg.norm(np.cross(X[1] - X[0], X[2] - X[0]))
    m, Ir = p[3] * p[2] * A, p[3] * p[2]**3 * A / 36
    M = np.zeros((18, 18))
    Mt = np.eye(3) * m / 3 if kind == 0 else (np.ones((3, 3)) + np.eye(3)) * m / 12
    for a in range(3):
        M[6 * a + 3:6 * a + 6, 6 * a + 3:6 * a + 6] = Ir * np.eye(3)
        for c in range(3):
            M[6 * a:6 * a + 3, 6 * c:6 * c + 3] = Mt[a, c] * np.eye(3)
    return M
