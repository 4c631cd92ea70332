"""Slow numpy reference of the 3-D co-rotational beam elements (one element at a time).

Written independently of the compiled kernels: rotation exponentials and logarithms come
from ``scipy.spatial.transform.Rotation``, the refined strains are built as explicit
quadratic forms (constant Hessian matrices), and every variation is a whole (3, 12) or
(12,) numpy array. Arguments of one element: X (2, 3), u (12,), R (2, 3, 3), p (11,) for
beam3d = (EA, GJ, EIy, EIz, rhoA, rhoIp, rhoIy, rhoIz, vx, vy, vz) and (13,) for
beam3d_timoshenko (… , GAy, GAz).
"""
import numpy as np
from scipy.spatial.transform import Rotation

from tests.elements.beam2d_reference import timoshenko_bending_mass

I3 = np.eye(3)


def hat(v):
    """Skew matrix (3, 3) with hat(a) b = a × b."""
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def expm(theta):
    return Rotation.from_rotvec(theta).as_matrix()


def logm(R):
    return Rotation.from_matrix(R).as_rotvec()


def jl_inv(theta):
    """Inverse left Jacobian: δθ = jl_inv(θ) ω for a spatial spin ω (δR = ω̂ R)."""
    t = np.linalg.norm(theta)
    T = hat(theta)
    if t < 1e-3:
        d = 1 / 12 + t**2 / 720 + t**4 / 30240
    else:
        d = (1.0 - 0.5 * t / np.tan(0.5 * t)) / t**2
    return I3 - 0.5 * T + d * T @ T


def jl_inv_T_derivative(theta, m):
    """∂(jl_inv(θ)ᵀ m)/∂θ (3, 3), by the closed form (checked in the tests by differences)."""
    t = np.linalg.norm(theta)
    if t < 1e-3:
        d = 1 / 12 + t**2 / 720
        e = 1 / 360 + t**2 / 7560
    else:
        x = 0.5 * t
        d = (1.0 - x / np.tan(x)) / t**2
        dd = 0.5 * (-1.0 / np.tan(x) + x / np.sin(x) ** 2) / t**2 - 2.0 * (1.0 - x / np.tan(x)) / t**3
        e = dd / t
    tm = theta @ m
    return (-0.5 * hat(m) + d * (tm * I3 + np.outer(theta, m) - 2.0 * np.outer(m, theta))
            + e * np.outer(theta * tm - m * (theta @ theta), theta))


def unpack(p):
    """Dict of the element properties; GAy = GAz = inf for beam3d."""
    p = np.asarray(p, dtype=float)
    keys = ["EA", "GJ", "EIy", "EIz", "rhoA", "rhoIp", "rhoIy", "rhoIz", "vx", "vy", "vz"]
    out = dict(zip(keys, p[:11]))
    out["GAy"], out["GAz"] = (p[11], p[12]) if p.size in (13, 19) else (np.inf, np.inf)  # beam3d: 17 (or 11) columns
    return out


def reference_triad(X, p):
    """R0 (3, 3): columns e1 (chord), e2 (section y), e3 of the reference configuration."""
    pr = unpack(p)
    e1 = (X[1] - X[0]) / np.linalg.norm(X[1] - X[0])
    v = np.array([pr["vx"], pr["vy"], pr["vz"]])
    vp = v - (v @ e1) * e1
    if np.linalg.norm(vp) <= 1e-8 * max(np.linalg.norm(v), 1e-300) or not np.any(v):
        ez = np.array([0.0, 0.0, 1.0])
        vp = np.cross(ez, e1)
        if np.linalg.norm(vp) <= 1e-6:
            vp = np.array([0.0, 1.0, 0.0]) - e1[1] * e1
    e2 = vp / np.linalg.norm(vp)
    return np.column_stack([e1, e2, np.cross(e1, e2)])


# --------------------------------------------------------------------------- local beam
def section_matrix(p, l0):
    """S (6, 6): Φ = ½ ρᵀ S ρ for ρ = (ē1, ρ2, …, ρ6)."""
    pr = unpack(p)
    S = np.zeros((6, 6))
    S[0, 0] = pr["EA"] / l0
    S[1, 1] = pr["GJ"] / l0
    for (i, EI, GA) in ((2, pr["EIy"], pr["GAz"]), (4, pr["EIz"], pr["GAy"])):
        phi = 12.0 * EI / (GA * l0**2)
        S[i:i + 2, i:i + 2] = EI / (l0 * (1 + phi)) * np.array([[4 + phi, -2 + phi], [-2 + phi, 4 + phi]])
    return S


def strain_forms(l0):
    """Linear parts L (6, 7) and constant Hessians H (6, 7, 7) of the refined strains
    ρ(q) = L q + ½ qᵀ H q, q = (u_l, θ̄1, θ̄2)."""
    L = np.zeros((6, 7))
    L[0, 0] = 1.0
    # linear rotation measures a2..a6 as rows over q
    a = np.zeros((5, 7))
    a[0, 4], a[0, 1] = 1.0, -1.0  # a2 = θ2x − θ1x
    a[1, 2] = -1.0  # a3 = −θ1y
    a[2, 5] = 1.0  # a4 = θ2y
    a[3, 3] = -1.0  # a5 = −θ1z
    a[4, 6] = 1.0  # a6 = θ2z
    L[1:] = a

    def sym(u, v):  # Hessian of (u·q)(v·q)
        return np.outer(u, v) + np.outer(v, u)

    def e(i):
        return np.eye(7)[i]

    a2, a3, a4, a5, a6 = a
    H = np.zeros((6, 7, 7))
    # ē1 = u_l + l0/30 (2a3² + a3a4 + 2a4² + 2a5² + a5a6 + 2a6²)
    H[0] = l0 / 30 * (2 * sym(a3, a3) + sym(a3, a4) + 2 * sym(a4, a4) + 2 * sym(a5, a5) + sym(a5, a6) + 2 * sym(a6, a6))
    # exact second-order parts of Meijaard's strains in log coordinates
    c2 = -0.5 * (sym(e(2), e(6)) - sym(e(3), e(5)))  # −½(θ1y θ2z − θ1z θ2y)
    c3 = -0.5 * sym(e(1), e(3))  # −½ θ1x θ1z
    c4 = 0.5 * sym(e(4), e(6))  # +½ θ2x θ2z
    c5 = 0.5 * sym(e(1), e(2))  # +½ θ1x θ1y
    c6 = -0.5 * sym(e(4), e(5))  # −½ θ2x θ2y
    # Meijaard's corrections (eq. 16)
    H[1] = c2 + sym(a4, a5) - sym(a3, a6)
    H[2] = c3 + sym(a2, a5 + a6) / 6
    H[3] = c4 - sym(a2, a5 + a6) / 6
    H[4] = c5 - sym(a2, a3 + a4) / 6
    H[5] = c6 + sym(a2, a3 + a4) / 6
    return L, H


def local_strains(q, l0):
    """ρ (6,), dρ/dq (6, 7), d²ρ/dq² (6, 7, 7)."""
    L, H = strain_forms(l0)
    return L @ q + 0.5 * np.einsum("kij,i,j->k", H, q, q), L + H @ q, H


def sigma_from_resultants(s):
    """Generalized stresses (6,) conjugate to ρ from the resultants (8,)."""
    N, Vy, Vz, T, My1, Mz1, My2, Mz2 = s
    return np.array([N, T, -My1, My2, -Mz1, Mz2])


# --------------------------------------------------------------------------- kinematics
def kinematics(X, u, R, p):
    """Dict of the co-rotational state of one element."""
    R0 = reference_triad(X, p)
    x21 = X[1] - X[0] + u[6:9] - u[0:3]
    l0, l = np.linalg.norm(X[1] - X[0]), np.linalg.norm(x21)
    r1 = x21 / l
    q1, q2 = R[0] @ R0[:, 1], R[1] @ R0[:, 1]
    q = 0.5 * (q1 + q2)
    h = q @ r1
    g = np.linalg.norm(q - h * r1)
    r2 = (q - h * r1) / g
    r3 = np.cross(r1, r2)
    E = np.column_stack([r1, r2, r3])
    theta = [logm(E.T @ R[a] @ R0) for a in range(2)]
    qloc = np.concatenate([[l - l0], theta[0], theta[1]])
    return dict(R0=R0, l0=l0, l=l, r1=r1, r2=r2, r3=r3, E=E, q1=q1, q2=q2, q=q, h=h, g=g, theta=theta, qloc=qloc)


def variations(k):
    """First variations as (·, 12) matrices over z = (δx1, w1, δx2, w2)."""
    Z = np.zeros((3, 12))
    Xs = np.hstack([-I3, np.zeros((3, 3)), I3, np.zeros((3, 3))])
    W = [np.hstack([Z[:, :3], I3, Z[:, :6]]), np.hstack([Z[:, :9], I3])]
    l, r1, r2, r3, h, g = k["l"], k["r1"], k["r2"], k["r3"], k["h"], k["g"]
    Dl = r1 @ Xs
    Dr1 = (I3 - np.outer(r1, r1)) @ Xs / l
    qa = [k["q1"], k["q2"]]
    twist = (0.5 * (np.cross(qa[0], r3) @ W[0] + np.cross(qa[1], r3) @ W[1]) - h * (r3 @ Xs) / l) / g
    WE = hat(r1) @ Xs / l + np.outer(r1, twist)
    Dq_a = [-hat(qa[a]) @ W[a] for a in range(2)]
    Dq = 0.5 * (Dq_a[0] + Dq_a[1])
    Dth = [jl_inv(k["theta"][a]) @ k["E"].T @ (W[a] - WE) for a in range(2)]
    return dict(Xs=Xs, W=W, Dl=Dl, Dr1=Dr1, WE=WE, Dq_a=Dq_a, Dq=Dq, Dr3=-hat(r3) @ WE,
                Dh=r1 @ Dq + k["q"] @ Dr1, Dg=r2 @ Dq - h * (r3 @ WE), Dqloc=np.vstack([Dl, Dth[0], Dth[1]]))


def transform(k, fl, Hl):
    """Global force f (12,) and its derivative K (12, 12) from the local force fl (7,) =
    (N, m̄1, m̄2) and the local Hessian Hl (7, 7) (both linear ingredients)."""
    v = variations(k)
    E, l, r1, r3, h, g = k["E"], k["l"], k["r1"], k["r3"], k["h"], k["g"]
    N, m = fl[0], [fl[1:4], fl[4:7]]
    Jit = [jl_inv(k["theta"][a]).T for a in range(2)]
    M = [E @ Jit[a] @ m[a] for a in range(2)]
    Ms = M[0] + M[1]
    tau = Ms @ r1
    c = h * tau / g
    a_vec = np.cross(Ms, r1) / l - c * r3 / l
    b = [tau * np.cross(k["q1"], r3) / (2 * g), tau * np.cross(k["q2"], r3) / (2 * g)]
    f = np.concatenate([-(N * r1 - a_vec), M[0] - b[0], N * r1 - a_vec, M[1] - b[1]])
    # derivatives
    Dfl = Hl @ v["Dqloc"]
    DN = Dfl[0]
    Dm = [Dfl[1:4], Dfl[4:7]]
    DM = []
    for a in range(2):
        Dth = v["Dqloc"][1 + 3 * a:4 + 3 * a]
        Dmu = jl_inv_T_derivative(k["theta"][a], m[a]) @ Dth + Jit[a] @ Dm[a]
        DM.append(-hat(M[a]) @ v["WE"] + E @ Dmu)
    DMs = DM[0] + DM[1]
    Dtau = r1 @ DMs + Ms @ v["Dr1"]
    Dc = (v["Dh"] * tau + h * Dtau) / g - h * tau * v["Dg"] / g**2
    Da = ((-hat(r1) @ DMs + hat(Ms) @ v["Dr1"]) / l - np.outer(np.cross(Ms, r1), v["Dl"]) / l**2
          - np.outer(r3, Dc) / l + c * np.outer(r3, v["Dl"]) / l**2 - c * v["Dr3"] / l)
    Db = []
    for a, qa in enumerate((k["q1"], k["q2"])):
        qr = np.cross(qa, r3)
        Db.append(np.outer(qr, Dtau) / (2 * g) + tau * (-hat(r3) @ v["Dq_a"][a] + hat(qa) @ v["Dr3"]) / (2 * g)
                  - tau * np.outer(qr, v["Dg"]) / (2 * g**2))
    DNr = np.outer(r1, DN) + N * v["Dr1"]
    K = np.vstack([-(DNr - Da), DM[0] - Db[0], DNr - Da, DM[1] - Db[1]])
    return f, K


# --------------------------------------------------------------------------- element functions
def strain_energy(X, u, R, p):
    k = kinematics(X, u, R, p)
    rho = local_strains(k["qloc"], k["l0"])[0]
    return 0.5 * rho @ section_matrix(p, k["l0"]) @ rho


def resultants(X, u, R, p):
    """(N, Vy, Vz, T, My1, Mz1, My2, Mz2)."""
    k = kinematics(X, u, R, p)
    rho = local_strains(k["qloc"], k["l0"])[0]
    sig = section_matrix(p, k["l0"]) @ rho
    N, T, My1, My2, Mz1, Mz2 = sig[0], sig[1], -sig[2], sig[3], -sig[4], sig[5]
    return np.array([N, (Mz1 + Mz2) / k["l"], -(My1 + My2) / k["l"], T, My1, Mz1, My2, Mz2])


def tangent(X, u, R, p):
    """(f (12,), K (12, 12))."""
    k = kinematics(X, u, R, p)
    S = section_matrix(p, k["l0"])
    rho, G, H = local_strains(k["qloc"], k["l0"])
    sig = S @ rho
    return transform(k, G.T @ sig, G.T @ S @ G + np.einsum("k,kij->ij", sig, H))


def internal_force(X, u, R, p):
    return tangent(X, u, R, p)[0]


def geometric_stiffness(X, u, R, p, s):
    k = kinematics(X, u, R, p)
    rho, G, H = local_strains(k["qloc"], k["l0"])
    sig = sigma_from_resultants(s)
    return transform(k, G.T @ sig, np.einsum("k,kij->ij", sig, H))[1]


def material_stiffness(X, u, R, p):
    k = kinematics(X, u, R, p)
    S = section_matrix(p, k["l0"])
    G = local_strains(k["qloc"], k["l0"])[1]
    return transform(k, np.zeros(7), G.T @ S @ G)[1]


# --------------------------------------------------------------------------- mass
def consistent_local(pr, L):
    """Textbook 3-D consistent mass (12, 12), local DOFs (u, v, w, θx, θy, θz) per node."""
    m = pr["rhoA"] * L
    M = np.zeros((12, 12))
    M[np.ix_([0, 6], [0, 6])] = m / 6 * np.array([[2, 1], [1, 2]])
    M[np.ix_([3, 9], [3, 9])] = pr["rhoIp"] * L / 6 * np.array([[2, 1], [1, 2]])
    T = m / 420 * np.array([[156, 22 * L, 54, -13 * L], [22 * L, 4 * L**2, 13 * L, -3 * L**2],
                            [54, 13 * L, 156, -22 * L], [-13 * L, -3 * L**2, -22 * L, 4 * L**2]])
    Rr = np.array([[36, 3 * L, -36, 3 * L], [3 * L, 4 * L**2, -3 * L, -L**2],
                   [-36, -3 * L, 36, -3 * L], [3 * L, -L**2, -3 * L, 4 * L**2]]) / (30 * L)
    M[np.ix_([1, 5, 7, 11], [1, 5, 7, 11])] = T + pr["rhoIz"] * Rr  # v, θz
    flip = np.diag([1.0, -1.0, 1.0, -1.0])  # w, θy with θy = −w′
    M[np.ix_([2, 4, 8, 10], [2, 4, 8, 10])] = flip @ (T + pr["rhoIy"] * Rr) @ flip
    if np.isfinite(pr["GAy"]):  # beam3d_timoshenko: (v, θz) with EIz, GAy; (w, −θy) with EIy, GAz
        M[np.ix_([1, 5, 7, 11], [1, 5, 7, 11])] = timoshenko_bending_mass(
            pr["rhoA"], pr["rhoIz"], L, 12.0 * pr["EIz"] / (pr["GAy"] * L**2))
        M[np.ix_([2, 4, 8, 10], [2, 4, 8, 10])] = flip @ timoshenko_bending_mass(
            pr["rhoA"], pr["rhoIy"], L, 12.0 * pr["EIy"] / (pr["GAz"] * L**2)) @ flip
    return M


def mass(X, u, R, p, kind):
    pr = unpack(p)
    k = kinematics(X, u, R, p)
    l0 = k["l0"]
    M = np.zeros((12, 12))
    J = np.diag([pr["rhoIp"], pr["rhoIy"], pr["rhoIz"]])
    if kind == 1:
        T = np.kron(np.eye(4), k["E"])
        return T @ consistent_local(pr, l0) @ T.T
    if kind == 0:
        M[:3, :3] = M[6:9, 6:9] = 0.5 * pr["rhoA"] * l0 * I3
    else:
        M[:3, :3] = M[6:9, 6:9] = pr["rhoA"] * l0 / 3 * I3
        M[:3, 6:9] = M[6:9, :3] = pr["rhoA"] * l0 / 6 * I3
    for a in range(2):
        Q = R[a] @ k["R0"]
        M[6 * a + 3:6 * a + 6, 6 * a + 3:6 * a + 6] = 0.5 * l0 * Q @ J @ Q.T
    return M


def batch(func, X, u, R, p, *args):
    """Apply a one-element function to every element of a batch."""
    return np.array([func(X[e], u[e], R[e], p[e], *args) for e in range(len(X))])
