"""Independent check of where Cook's reference value belongs (not run by the validation
runner): a plain constant-strain triangle (plane stress, numpy/scipy, no femb code) on the
same trapezoid, E = 1, ν = 1/3, t = 1, total shear F = 1 uniform on the right edge.
Prints the vertical displacement of the loaded edge's mid-point (48, 52) and top corner
(48, 60) for n × n meshes (crossed diagonals) and their Richardson limits.

    python validation/shell-cook-membrane/cst_check.py
    16: 23.0148 / 23.7028 … 256: 23.9602 / 25.1410 → limits 23.967 (mid) and 25.18 (corner)
"""
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spl


def cook_cst(n, nu=1.0 / 3.0):
    """(v at (48, 52), v at (48, 60)) of Cook's membrane on n × n cells, two CSTs each."""
    xi, eta = np.meshgrid(np.linspace(0, 1, n + 1), np.linspace(0, 1, n + 1), indexing="xy")
    x = 48 * xi.ravel()
    y = 44 * xi.ravel() + eta.ravel() * (44 - 28 * xi.ravel())
    node = lambda i, j: j * (n + 1) + i  # noqa: E731
    tris = []
    for j in range(n):
        for i in range(n):
            a, b, c, d = node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)
            tris += [(a, b, c), (a, c, d)] if (i + j) % 2 else [(a, b, d), (b, c, d)]
    D = np.array([[1, nu, 0], [nu, 1, 0], [0, 0, (1 - nu) / 2]]) / (1 - nu**2)
    rows, cols, vals = [], [], []
    for t in tris:
        X, Y = x[list(t)], y[list(t)]
        area2 = (X[1] - X[0]) * (Y[2] - Y[0]) - (X[2] - X[0]) * (Y[1] - Y[0])
        b = np.array([Y[1] - Y[2], Y[2] - Y[0], Y[0] - Y[1]]) / area2
        c = np.array([X[2] - X[1], X[0] - X[2], X[1] - X[0]]) / area2
        B = np.zeros((3, 6))
        B[0, 0::2], B[1, 1::2], B[2, 0::2], B[2, 1::2] = b, c, c, b
        dofs = np.ravel([[2 * k, 2 * k + 1] for k in t])
        rows += list(np.repeat(dofs, 6))
        cols += list(np.tile(dofs, 6))
        vals += list((B.T @ D @ B * area2 / 2).ravel())
    N = 2 * (n + 1) ** 2
    K = sp.csr_matrix((vals, (rows, cols)), shape=(N, N))
    f = np.zeros(N)
    right = [node(n, j) for j in range(n + 1)]
    for p, q in zip(right[:-1], right[1:]):  # consistent shares of a uniform traction
        f[2 * p + 1] += 0.5 / n
        f[2 * q + 1] += 0.5 / n
    fixed = np.ravel([[2 * node(0, j), 2 * node(0, j) + 1] for j in range(n + 1)])
    free = np.setdiff1d(np.arange(N), fixed)
    u = np.zeros(N)
    u[free] = spl.spsolve(K[free][:, free].tocsc(), f[free])
    return u[2 * right[n // 2] + 1], u[2 * right[-1] + 1]


def richardson(a, b, c):
    """Limit of a series on meshes halving h (observed order)."""
    q = (c - b) / (b - a)
    return c + (c - b) * q / (1 - q)


if __name__ == "__main__":
    values = [cook_cst(n) for n in (16, 32, 64, 128, 256)]
    for n, (mid, top) in zip((16, 32, 64, 128, 256), values):
        print(f"{n:4d}: mid-point {mid:.4f}  top corner {top:.4f}")
    mids, tops = zip(*values)
    print(f"limits: mid-point {richardson(*mids[-3:]):.3f}, top corner {richardson(*tops[-3:]):.2f}")
