"""Slow numpy reference of the truss elements (one element at a time, textbook formulas).

Written independently of the compiled kernels: the engineering variant is built from the
unit vector and the B vector ``b = [−e; e]``, the mid-point tangent from the paper's form
with β and e_m (digest eq. T-20). Every function takes the batch arrays of the kernel
contract and returns new arrays.
"""
import numpy as np

PATTERN = np.array([[1.0, -1.0], [-1.0, 1.0]])


def _geometry(X, u):
    """Per element: reference chord X21, current chord x21 (dim,)."""
    dim = X.shape[1]
    X21 = X[1] - X[0]
    x21 = X21 + u[dim:] - u[:dim]
    return X21, x21


def _axial(green, EA, l0, l):
    """Axial force: engineering N = EA (l − l0)/l0, or 2nd PK N = EA (l² − l0²)/(2 l0²)."""
    if green:
        return EA * (l**2 - l0**2) / (2.0 * l0**2)
    return EA * (l - l0) / l0


def _energy(green, EA, l0, l):
    if green:
        eps = (l**2 - l0**2) / (2.0 * l0**2)
        return 0.5 * EA * l0 * eps**2
    return EA * (l - l0) ** 2 / (2.0 * l0)


def _each(X, u, p):
    for Xe, ue, pe in zip(X, u, p):
        X21, x21 = _geometry(Xe, ue)
        yield pe[0], pe[1], np.linalg.norm(X21), x21, np.linalg.norm(x21)


def internal_force(green, X, u, p):
    out = []
    for EA, _, l0, x, l in _each(X, u, p):
        N = _axial(green, EA, l0, l)
        b = np.concatenate([-x, x]) / (l0 if green else l)
        out.append(N * b)
    return np.array(out)


def material_stiffness(green, X, u, p):
    out = []
    for EA, _, l0, x, l in _each(X, u, p):
        if green:
            k = EA / l0**3 * np.outer(x, x)
        else:
            e = x / l
            k = EA / l0 * np.outer(e, e)
        out.append(np.kron(PATTERN, k))
    return np.array(out)


def geometric_stiffness(green, X, u, p, s):
    out = []
    for (EA, _, l0, x, l), N in zip(_each(X, u, p), s[:, 0]):
        dim = x.size
        if green:
            k = N / l0 * np.eye(dim)
        else:
            e = x / l
            k = N / l * (np.eye(dim) - np.outer(e, e))
        out.append(np.kron(PATTERN, k))
    return np.array(out)


def resultants(green, X, u, p):
    return np.array([[_axial(green, EA, l0, l)] for EA, _, l0, x, l in _each(X, u, p)])


def tangent(green, X, u, p):
    s = resultants(green, X, u, p)
    return internal_force(green, X, u, p), material_stiffness(green, X, u, p) + geometric_stiffness(green, X, u, p, s)


def strain_energy(green, X, u, p):
    return np.array([_energy(green, EA, l0, l) for EA, _, l0, x, l in _each(X, u, p)])


def mass(X, p, kind):
    out = []
    dim = X.shape[2]
    for Xe, pe in zip(X, p):
        m = pe[1] * np.linalg.norm(Xe[1] - Xe[0])
        if kind == 0:
            mm = np.diag([0.5, 0.5]) * m
        else:
            mm = np.array([[2.0, 1.0], [1.0, 2.0]]) * m / 6.0
        out.append(np.kron(mm, np.eye(dim)))
    return np.array(out)


def midpoint_force(green, X, u0, u1, p):
    """Mid-point force and its u1-derivative: Crisfield–Shi (β form) or Simo–Tarnow."""
    fs, Ks = [], []
    for (EA, _, l0, xa, la), (_, _, _, xb, lb) in zip(_each(X, u0, p), _each(X, u1, p)):
        dim = xa.size
        N_av = 0.5 * (_axial(green, EA, l0, la) + _axial(green, EA, l0, lb))
        xm = 0.5 * (xa + xb)
        if green:
            f = N_av / l0 * xm
            k = N_av / (2.0 * l0) * np.eye(dim) + EA / (2.0 * l0**3) * np.outer(xm, xb)
        else:
            l_av = 0.5 * (la + lb)
            lm = np.linalg.norm(xm)
            beta = lm / l_av
            e_m, e_1 = xm / lm, xb / lb
            N_m = beta * N_av
            f = N_m * e_m
            k = N_av / (2.0 * l_av) * np.eye(dim) + 0.5 * beta * (EA / l0 - N_av / l_av) * np.outer(e_m, e_1)
        fs.append(np.concatenate([-f, f]))
        Ks.append(np.kron(PATTERN, k))
    return np.array(fs), np.array(Ks)
