"""Shadow frame and deformational coordinates of the co-rotated Craig–Bampton superelement
(elements.superelement): the frame fit to the boundary nodes, the deformational vector
d = [ū_a, θ̄_a, q] and its derivatives (frame spin Ω and B̃ = ∂(ū, θ̄)/∂z̃ in the frame's
components). Shared by the static kernels (elements.superelement) and the mid-point step
with mass points (elements.superelement_step); the formulas are in elements.superelement's
module docstring.
"""
import numpy as np

from femb.core import jit
from femb.core.rotations import left_jacobian_inverse, log_so3

from .shell_eicr import deformation_jacobian


@jit(internal=True)
def _polar(B, Rs):
    """Rs (3, 3) = the rotation factor of the polar decomposition of B (3, 3); exactly I
    when B is exactly symmetric positive definite (the reference state), where the SVD
    would leave round-off."""
    if B[0, 1] == B[1, 0] and B[0, 2] == B[2, 0] and B[1, 2] == B[2, 1]:
        m2 = B[0, 0] * B[1, 1] - B[0, 1] * B[1, 0]
        if B[0, 0] > 0.0 and m2 > 0.0 and np.linalg.det(B) > 0.0:
            for i in range(3):
                for j in range(3):
                    Rs[i, j] = 1.0 if i == j else 0.0
            return
    W, _, Vt = np.linalg.svd(B)
    det = np.linalg.det(W @ Vt)
    for i in range(3):
        for j in range(3):
            Rs[i, j] = W[i, 0] * Vt[0, j] + W[i, 1] * Vt[1, j] + det * W[i, 2] * Vt[2, j]


@jit(internal=True)
def _inverse3(A, Ai):
    """Ai (3, 3) = A⁻¹ by cofactors."""
    c00 = A[1, 1] * A[2, 2] - A[1, 2] * A[2, 1]
    c01 = A[1, 2] * A[2, 0] - A[1, 0] * A[2, 2]
    c02 = A[1, 0] * A[2, 1] - A[1, 1] * A[2, 0]
    det = A[0, 0] * c00 + A[0, 1] * c01 + A[0, 2] * c02
    Ai[0, 0] = c00 / det
    Ai[1, 0] = c01 / det
    Ai[2, 0] = c02 / det
    Ai[0, 1] = (A[0, 2] * A[2, 1] - A[0, 1] * A[2, 2]) / det
    Ai[1, 1] = (A[0, 0] * A[2, 2] - A[0, 2] * A[2, 0]) / det
    Ai[2, 1] = (A[0, 1] * A[2, 0] - A[0, 0] * A[2, 1]) / det
    Ai[0, 2] = (A[0, 1] * A[1, 2] - A[0, 2] * A[1, 1]) / det
    Ai[1, 2] = (A[0, 2] * A[1, 0] - A[0, 0] * A[1, 2]) / det
    Ai[2, 2] = (A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]) / det


@jit(internal=True)
def _frame_work(n):
    """Work arrays of shadow_frame for n boundary nodes: Xt, Y (n, 3), Rb (n, 3, 3), Rs (3, 3)."""
    return np.zeros((n, 3)), np.zeros((n, 3)), np.zeros((n, 3, 3)), np.zeros((3, 3))


@jit(internal=True)
def shadow_frame(X, u, R, e, Xt, Y, Rb, Rs):
    """Shadow frame of element ``e``: writes Xt (n, 3) the reference coordinates relative
    to the reference centroid, Y (n, 3) the current ones relative to the current centroid
    in the frame, Rb (n, 3, 3) the nodal rotations relative to the frame R_sᵀR_a and Rs
    (3, 3); returns (o (3,) the current centroid, c the rotation weight)."""
    n = X.shape[1]
    o = np.zeros(3)
    uc = np.zeros(3)
    for c in range(3):
        xc = 0.0
        for a in range(n):
            xc += X[e, a, c]
            uc[c] += u[e, 6 * a + c]
        xc /= n
        uc[c] /= n
        o[c] = xc + uc[c]
        for a in range(n):
            Xt[a, c] = X[e, a, c] - xc
    w = 0.0
    for a in range(n):
        w += Xt[a, 0] ** 2 + Xt[a, 1] ** 2 + Xt[a, 2] ** 2
    w /= n
    if not w > 0.0:
        w = 1.0
    B = np.zeros((3, 3))
    for a in range(n):
        for i in range(3):
            di = Xt[a, i] + u[e, 6 * a + i] - uc[i]  # x_a − x_c without the cancellation of positions
            for j in range(3):
                B[i, j] += di * Xt[a, j] + w * R[e, a, i, j]
    if n == 1:  # B = ℓ² R_1 exactly (X̃ = 0): the frame of a single node is the node's own
        for i in range(3):
            for j in range(3):
                Rs[i, j] = R[e, 0, i, j]
    else:
        _polar(B, Rs)
    for a in range(n):
        for i in range(3):
            acc = 0.0
            for j in range(3):
                acc += Rs[j, i] * (Xt[a, j] + u[e, 6 * a + j] - uc[j])
            Y[a, i] = acc
            for j in range(3):
                Rb[a, i, j] = Rs[0, i] * R[e, a, 0, j] + Rs[1, i] * R[e, a, 1, j] + Rs[2, i] * R[e, a, 2, j]
    return o, w


@jit
def deformation(X, u, R, e, Xt, Y, Rb, Rs, th, d):
    """Deformational vector d (m,) = [ū_1, θ̄_1, …, ū_n, θ̄_n, q] of element ``e`` (module
    docstring) and the local rotations th (n, 3); returns (o, c) of ``shadow_frame``."""
    n = X.shape[1]
    m = u.shape[1]
    o, w = shadow_frame(X, u, R, e, Xt, Y, Rb, Rs)
    for a in range(n):
        for i in range(3):
            d[6 * a + i] = Y[a, i] - Xt[a, i]
        log_so3(Rb[a], th[a])
        for i in range(3):
            d[6 * a + 3 + i] = th[a, i]
    for j in range(6 * n, m):
        d[j] = u[e, j]
    return o, w


@jit(internal=True)
def _spin(Xt, Y, Rb, w, Jinv, Om, Bt, A, Ai):
    """Frame spin Om (3, 6n) = ∂ω̃/∂z̃ and Bt (6n, 6n) = ∂(ū, θ̄)/∂z̃ (module docstring);
    A (3, 3) = tr(U) I − U and Ai = A⁻¹."""
    n = Xt.shape[0]
    M = 6 * n
    U = np.zeros((3, 3))
    for a in range(n):
        for i in range(3):
            for j in range(3):
                U[i, j] += Y[a, i] * Xt[a, j] + w * Rb[a, i, j]
    tr = U[0, 0] + U[1, 1] + U[2, 2]
    for i in range(3):
        for j in range(3):
            A[i, j] = -0.5 * (U[i, j] + U[j, i])
        A[i, i] += tr
    _inverse3(A, Ai)
    C = np.zeros((3, M))
    for a in range(n):
        x0, x1, x2 = Xt[a, 0], Xt[a, 1], Xt[a, 2]
        # X̃ × δx̃
        C[0, 6 * a + 1] = -x2
        C[0, 6 * a + 2] = x1
        C[1, 6 * a + 0] = x2
        C[1, 6 * a + 2] = -x0
        C[2, 6 * a + 0] = -x1
        C[2, 6 * a + 1] = x0
        trb = Rb[a, 0, 0] + Rb[a, 1, 1] + Rb[a, 2, 2]
        for i in range(3):
            for j in range(3):
                C[i, 6 * a + 3 + j] = -w * Rb[a, i, j]
            C[i, 6 * a + 3 + i] += w * trb
    for i in range(3):
        for j in range(M):
            Om[i, j] = Ai[i, 0] * C[0, j] + Ai[i, 1] * C[1, j] + Ai[i, 2] * C[2, j]
    deformation_jacobian(Y, Jinv, Om, Bt)


@jit(internal=True)
def geometric_layout(p_row, m):
    """(offset of G, offset of K⁺, present): where the geometric tensor G (m, m, m) and the
    pseudo-inverse K⁺ (m, m) of K_r sit in a property row (elements.superelement)."""
    base = 2 * m * m
    return base + 2, base + 2 + m * m * m, p_row[base] != 0.0



@jit(internal=True)
def deformation_derivatives(X, u, R, e, Xt, Y, Rb, Rs, th, d, Jinv, Om, Bt, A, Ai):
    """``deformation`` of element ``e`` and its derivatives at that configuration: Jinv
    (n, 3, 3) = J⁻¹(θ̄_a), the frame spin Om (3, 6n) and Bt (6n, 6n) = ∂(ū, θ̄)/∂z̃
    (``_spin``); returns (o, c) of ``shadow_frame``."""
    o, w = deformation(X, u, R, e, Xt, Y, Rb, Rs, th, d)
    for a in range(X.shape[1]):
        left_jacobian_inverse(th[a], Jinv[a])
    _spin(Xt, Y, Rb, w, Jinv, Om, Bt, A, Ai)
    return o, w


@jit(internal=True)
def reduced_energy(p_row, d, grad, H, want_H):
    """Strain energy V(d) of the reduced body for the deformational vector d (m,); writes
    grad = ∇V (m,) and, when ``want_H``, H = ∇²V (m, m); returns V.

    Without a geometric tensor V = ½ dᵀK_r d. With G in the row (elements.superelement):
    the Green (quadratic) strain of the body projected on the reduction,

        V = ½ eᵀ K_r e,   e = d + ½ K_r⁺ g(d),   g_j = dᵀ G_j d,

    G_j,ab = ∫ σ(φ_j) : ε₂(φ_a, φ_b) the geometric stiffness of the stress of unit d_j, so
    K_r η_ab = G_·ab defines the reduced field η whose linear strain is the second-order
    strain of the pair (a, b). Expanded: ½dᵀK_r d + ½Σ_j d_j dᵀG_j d (the stress of each
    coordinate working through the second-order strain of the others: geometric
    stiffening, e.g. of a rod by the axial force at its interfaces) + ⅛ gᵀK_r⁺g (the
    projected quartic term, which keeps V ≥ 0 — the cubic term alone softens spuriously at
    finite amplitude). ∇V = Bᵀ K_r e with B = ∂e/∂d = I + K_r⁺ [G_j d]_j, and
    ∇²V = Bᵀ K_r B + Σ_j (K_r⁺K_r e)_j G_j."""
    m = d.shape[0]
    Kr = p_row[: m * m].reshape((m, m))
    g_at, k_at, present = geometric_layout(p_row, m)
    if not present:
        V = 0.0
        for i in range(m):
            acc = 0.0
            for j in range(m):
                acc += Kr[i, j] * d[j]
            grad[i] = acc
            V += 0.5 * d[i] * acc
        if want_H:
            for i in range(m):
                for j in range(m):
                    H[i, j] = Kr[i, j]
        return V
    G = p_row[g_at: g_at + m * m * m].reshape((m, m, m))
    Kp = p_row[k_at: k_at + m * m].reshape((m, m))
    GD = np.zeros((m, m))  # GD[j, k] = (G_j d)_k
    g = np.zeros(m)
    for j in range(m):
        for k in range(m):
            acc = 0.0
            for b in range(m):
                acc += G[j, k, b] * d[b]
            GD[j, k] = acc
            g[j] += acc * d[k]
    e = np.zeros(m)
    for i in range(m):
        acc = 0.0
        for j in range(m):
            acc += Kp[i, j] * g[j]
        e[i] = d[i] + 0.5 * acc
    Ke = np.zeros(m)
    V = 0.0
    for i in range(m):
        acc = 0.0
        for j in range(m):
            acc += Kr[i, j] * e[j]
        Ke[i] = acc
        V += 0.5 * e[i] * acc
    w = np.zeros(m)  # K⁺ K e
    for i in range(m):
        acc = 0.0
        for j in range(m):
            acc += Kp[i, j] * Ke[j]
        w[i] = acc
    for k in range(m):
        acc = Ke[k]
        for j in range(m):
            acc += w[j] * GD[j, k]
        grad[k] = acc
    if want_H:
        B = np.zeros((m, m))  # δ_ik + Σ_j K⁺_ij (G_j d)_k
        for i in range(m):
            for k in range(m):
                acc = 1.0 if i == k else 0.0
                for j in range(m):
                    acc += Kp[i, j] * GD[j, k]
                B[i, k] = acc
        KB = np.zeros((m, m))
        for i in range(m):
            for k in range(m):
                acc = 0.0
                for j in range(m):
                    acc += Kr[i, j] * B[j, k]
                KB[i, k] = acc
        for k in range(m):
            for l in range(m):
                acc = 0.0
                for i in range(m):
                    acc += B[i, k] * KB[i, l]
                for j in range(m):
                    acc += w[j] * G[j, k, l]
                H[k, l] = acc
    return V
