"""Co-rotated Craig–Bampton superelement (3-D, oriented): a reduced linear body that
follows large rigid motions of its boundary nodes.

Unknowns of one superelement with n boundary nodes and k fixed-interface modes: the six
DOFs (ux, uy, uz, rx, ry, rz) of each boundary node — ordinary femb nodes, so supports,
joints and loads act on them — followed by the k modal amplitudes q, element-internal
variables numbered by the correlation table (elements.base, "Element-internal
variables"); n_edof = m = 6n + k.

Reduced data (per part, in the property row): K_r and M_r (m, m), the Craig–Bampton
reduced stiffness and mass with the boundary DOFs node by node in the order of the cell's
nodes (each node ux, uy, uz, rx, ry, rz) and then q, in the reference (global) axes of the
reduced component, whose interface nodes are at the reference positions X of the cell;
then two header entries (1 if the geometric tensor follows, else 0; the number n_p of
mass points), the geometric tensor G (m, m, m) in the same order and axes when present (see
"Resultants and geometric stiffness") and the n_p mass points (masses, reference positions
(n_p, 3), displacement rows (n_p, 3, m); femb.model.superelements.MassPoints) that carry the
body's inertia in the mid-point step, followed by their mass moments about the interface
centroid (elements.superelement_step.point_moments).

Shadow frame (o, R_s), fitted to the boundary nodes (translations and nodal rotations, so
one- and two-node parts have a frame too): o = x_c, the centroid of the current nodal
positions, and R_s the rotation closest to

    B = Σ_a (x_a − x_c) X̃_aᵀ + c Σ_a R_a,    X̃_a = X_a − X_c,  c = Σ_a |X̃_a|²/n (1 if 0),

i.e. R_s = polar(B), equivalently skew(R_sᵀ B) = 0 (a best fit of the rotated reference
cloud to the current one plus of R_s to the nodal rotations R_a). Under any rigid motion
x_a = t + Q X_a, R_a = Q one has B = Q·(SPD), so R_s = Q exactly: the fit is exactly
invariant, and objective.

Deformational DOFs (local, in the shadow frame): ū_a = R_sᵀ(x_a − x_c) − X̃_a,
θ̄_a = log(R_sᵀ R_a), and q unchanged (modal amplitudes are frame-invariant). With
d = [ū_1, θ̄_1, …, ū_n, θ̄_n, q] the strain energy is V = ½ dᵀ K_r d, the internal force its
gradient f = Tᵀ-free form f = T B̃ᵀ K_r d and the exact tangent

    K = T [B̃ᵀ K_r B̃ + K_geo − f̃ × Ω] Tᵀ,    T = blockdiag(R_s, …, R_s, I_k),

with B̃ = ∂d/∂z̃ over the local components z̃ = Tᵀ(δx_1, δw_1, …, δx_n, δw_n, δq) (δw:
spatial spins), Ω = ∂ω̃/∂z̃ the frame spin (local components), K_geo the variation of B̃ᵀ g
at fixed g = K_r d and −f̃ × Ω the turn of the local force with the frame (the EICR
structure of elements.shell_eicr, with this element's frame). The frame spin follows from
varying skew(R_sᵀB) = 0:

    A ω̃ = Σ_a X̃_a × δx̃_a + c Σ_a G_a w̃_a,   A = tr(U) I − U,  U = R_sᵀ B,  G_a = tr(R̄_a) I − R̄_a,

with R̄_a = R_sᵀ R_a; the translational deformations vary as δū_a = δx̃_a − δx̃_c + Y_a × ω̃
(Y_a = R_sᵀ(x_a − x_c)) and the rotational ones as δθ̄_a = J⁻¹(θ̄_a)(w̃_a − ω̃). The modal
rows are untouched by the frame (their rows of B̃ are identity).

At the reference state (u = 0, R = I) T = I and B̃ = P, the rigid-body projector; K_r
annihilates rigid motions, so K_r P = K_r and the linear response equals the reduced
component's, which equals the unreduced component's for boundary loads.

Mass: M = T M_r Tᵀ, the reduced mass carried into global axes with the shadow frame of the
current configuration (M_r exactly at the reference state), the same for every mass kind;
it turns with the body (no kind is constant).

Resultants and geometric stiffness (linear buckling): the resultants of a superelement are
its deformational vector d (m,) itself (``resultant_names``: d_ux1 … d_rz1, …, d_q1 …,
lengths and radians; the modal entries are the scaled amplitudes q̂, lengths). With the
optional geometric tensor G (m, m, m) of the reduced body in the property row — G_j the
projected geometric stiffness of the stress state of unit d_j (Tᵀ K_G(σ(T e_j)) T of the
reduction, femb.solvers.reduction.stress_stiffening, in this element's DOF order and
modal scaling) — the geometric stiffness for resultants s is

    K_G = T (Σ_j s_j G_j) Tᵀ,    T = blockdiag(R_s, …, R_s, I_k),

linear in s like the beams': a superelement pre-stressed by its interface loads or modal
amplitudes stiffens (or buckles) inside, not only through the frame turns of a chain of
superelements. Without G (the default) K_G = 0. G is not part of ``tangent``: the internal
force is the gradient of ½ dᵀK_r d and the tangent stays its exact derivative (adding G
without the matching third-order force would change Newton's convergence, not the
converged state).
"""
import functools
import re

import numpy as np

from femb.core import jit
from femb.core.rotations import left_jacobian_inverse_T_derivative

from .base import ElementKernels, ElementSpec
from .shell_eicr import force_turn, material_part
from .superelement_frame import _frame_work, deformation, deformation_derivatives, reduced_energy, shadow_frame
from .superelement_step import midpoint_step, midpoint_step_force, point_moments, point_state

NAME_PATTERN = re.compile(r"^superelement_(\d+)n_(\d+)q$")


@jit(internal=True)
def _local_force(Xt, Y, Rb, w, Jinv, Ai, g, ft, mu, s):
    """Local nodal force ft (6n,) = B̃ᵀ g over the nodal entries; writes μ_a = J⁻ᵀ m_a
    into mu (n, 3) and s = A⁻ᵀ τ (3,)."""
    n = Xt.shape[0]
    tau = np.zeros(3)
    N = np.zeros(3)
    for a in range(n):
        n0, n1, n2 = g[6 * a], g[6 * a + 1], g[6 * a + 2]
        N[0] += n0
        N[1] += n1
        N[2] += n2
        for i in range(3):
            mu[a, i] = Jinv[a, 0, i] * g[6 * a + 3] + Jinv[a, 1, i] * g[6 * a + 4] + Jinv[a, 2, i] * g[6 * a + 5]
        tau[0] += n1 * Y[a, 2] - n2 * Y[a, 1] - mu[a, 0]
        tau[1] += n2 * Y[a, 0] - n0 * Y[a, 2] - mu[a, 1]
        tau[2] += n0 * Y[a, 1] - n1 * Y[a, 0] - mu[a, 2]
    for i in range(3):
        s[i] = Ai[0, i] * tau[0] + Ai[1, i] * tau[1] + Ai[2, i] * tau[2]
    for a in range(n):
        x0, x1, x2 = Xt[a, 0], Xt[a, 1], Xt[a, 2]
        # translational column block of C is X̂̃ : Cᵀ s = −X̃ × s = s × X̃
        ft[6 * a + 0] = g[6 * a + 0] - N[0] / n + s[1] * x2 - s[2] * x1
        ft[6 * a + 1] = g[6 * a + 1] - N[1] / n + s[2] * x0 - s[0] * x2
        ft[6 * a + 2] = g[6 * a + 2] - N[2] / n + s[0] * x1 - s[1] * x0
        trb = Rb[a, 0, 0] + Rb[a, 1, 1] + Rb[a, 2, 2]
        for i in range(3):
            acc = trb * s[i]
            for j in range(3):
                acc -= Rb[a, j, i] * s[j]
            ft[6 * a + 3 + i] = mu[a, i] + w * acc


@jit(internal=True)
def _geometric(Xt, Y, Rb, w, th, Ai, g, ft, mu, s, Om, Bt, Kt):
    """Kt (6n, 6n) += variation of B̃ᵀ g at fixed g, minus f̃ × Ω (module docstring)."""
    n = Xt.shape[0]
    M = 6 * n
    Lm = np.zeros((n, 3, 3))
    for a in range(n):
        left_jacobian_inverse_T_derivative(th[a], g[6 * a + 3:6 * a + 6], Lm[a])
    dmu = np.zeros((n, 3))
    dtau = np.zeros(3)
    dU = np.zeros((3, 3))
    dR = np.zeros((3, 3))
    dv = np.zeros(3)
    ds = np.zeros(3)
    col = np.zeros(M)
    for j in range(M):
        for i in range(3):
            dtau[i] = 0.0
            for k in range(3):
                dU[i, k] = 0.0
        for a in range(n):
            # δμ_a = Lm_a δθ̄_a
            for i in range(3):
                acc = 0.0
                for c in range(3):
                    acc += Lm[a, i, c] * Bt[6 * a + 3 + c, j]
                dmu[a, i] = acc
            n0, n1, n2 = g[6 * a], g[6 * a + 1], g[6 * a + 2]
            dy0, dy1, dy2 = Bt[6 * a, j], Bt[6 * a + 1, j], Bt[6 * a + 2, j]
            dtau[0] += n1 * dy2 - n2 * dy1 - dmu[a, 0]
            dtau[1] += n2 * dy0 - n0 * dy2 - dmu[a, 1]
            dtau[2] += n0 * dy1 - n1 * dy0 - dmu[a, 2]
            # δU += δY_a X̃_aᵀ + c ϑ̂_a R̄_a, ϑ_a = w̃_a − ω̃
            for i in range(3):
                dv[i] = -Om[i, j]
            if 6 * a + 3 <= j < 6 * a + 6:
                dv[j - 6 * a - 3] += 1.0
            for k in range(3):
                dU[0, k] += dy0 * Xt[a, k] + w * (dv[1] * Rb[a, 2, k] - dv[2] * Rb[a, 1, k])
                dU[1, k] += dy1 * Xt[a, k] + w * (dv[2] * Rb[a, 0, k] - dv[0] * Rb[a, 2, k])
                dU[2, k] += dy2 * Xt[a, k] + w * (dv[0] * Rb[a, 1, k] - dv[1] * Rb[a, 0, k])
        # δs = A⁻ᵀ (δτ − δAᵀ s), δAᵀ s = tr(δU) s − δUᵀ s (A uses the symmetric part of U)
        trd = dU[0, 0] + dU[1, 1] + dU[2, 2]
        for i in range(3):
            acc = dtau[i] - trd * s[i]
            for k in range(3):
                acc += 0.5 * (dU[k, i] + dU[i, k]) * s[k]
            dv[i] = acc
        for i in range(3):
            ds[i] = Ai[0, i] * dv[0] + Ai[1, i] * dv[1] + Ai[2, i] * dv[2]
        for a in range(n):
            x0, x1, x2 = Xt[a, 0], Xt[a, 1], Xt[a, 2]
            col[6 * a + 0] = ds[1] * x2 - ds[2] * x1
            col[6 * a + 1] = ds[2] * x0 - ds[0] * x2
            col[6 * a + 2] = ds[0] * x1 - ds[1] * x0
            # ϑ_a again, δR̄_a = ϑ̂_a R̄_a
            for i in range(3):
                dv[i] = -Om[i, j]
            if 6 * a + 3 <= j < 6 * a + 6:
                dv[j - 6 * a - 3] += 1.0
            for k in range(3):
                dR[0, k] = dv[1] * Rb[a, 2, k] - dv[2] * Rb[a, 1, k]
                dR[1, k] = dv[2] * Rb[a, 0, k] - dv[0] * Rb[a, 2, k]
                dR[2, k] = dv[0] * Rb[a, 1, k] - dv[1] * Rb[a, 0, k]
            trb = Rb[a, 0, 0] + Rb[a, 1, 1] + Rb[a, 2, 2]
            trdr = dR[0, 0] + dR[1, 1] + dR[2, 2]
            for i in range(3):
                acc = trdr * s[i] + trb * ds[i]
                for k in range(3):
                    acc -= dR[k, i] * s[k] + Rb[a, k, i] * ds[k]
                col[6 * a + 3 + i] = dmu[a, i] + w * acc
        for i in range(M):
            Kt[i, j] += col[i]
    force_turn(ft, Om, n, Kt)


@jit(internal=True)
def _rotate_out(Rs, n, ft, Kt, f, K, want_K):
    """f = T f̃, K = T K̃ Tᵀ with T = blockdiag(R_s (2n blocks), I_k) (module docstring)."""
    m = ft.shape[0]
    nb = 2 * n
    for i in range(m):
        f[i] = ft[i]
    for b in range(nb):
        for i in range(3):
            f[3 * b + i] = Rs[i, 0] * ft[3 * b] + Rs[i, 1] * ft[3 * b + 1] + Rs[i, 2] * ft[3 * b + 2]
    if not want_K:
        return
    W = np.empty((m, m))
    for r in range(m):  # W = K̃ Tᵀ
        for j in range(m):
            W[r, j] = Kt[r, j]
        for b in range(nb):
            for i in range(3):
                W[r, 3 * b + i] = Kt[r, 3 * b] * Rs[i, 0] + Kt[r, 3 * b + 1] * Rs[i, 1] + Kt[r, 3 * b + 2] * Rs[i, 2]
    for c in range(m):  # K = T W
        for r in range(m):
            K[r, c] = W[r, c]
        for b in range(nb):
            for i in range(3):
                K[3 * b + i, c] = Rs[i, 0] * W[3 * b, c] + Rs[i, 1] * W[3 * b + 1, c] + Rs[i, 2] * W[3 * b + 2, c]


@jit
def _evaluate(X, u, R, p, f, K, want_K):
    """Internal force f (n_el, m) and, when ``want_K``, the exact tangent K (n_el, m, m)."""
    n_el, n = X.shape[0], X.shape[1]
    m = u.shape[1]
    M = 6 * n
    Xt, Y, Rb, Rs = _frame_work(n)
    th = np.zeros((n, 3))
    d = np.zeros(m)
    g = np.zeros(m)
    Jinv = np.zeros((n, 3, 3))
    Om = np.zeros((3, M))
    Bt = np.zeros((M, M))
    Bf = np.zeros((m, m))
    A = np.zeros((3, 3))
    Ai = np.zeros((3, 3))
    ft = np.zeros(m)
    mu = np.zeros((n, 3))
    s = np.zeros(3)
    Kt = np.zeros((m, m))
    colw = np.zeros(m)
    Hd = np.zeros((m, m))
    for e in range(n_el):
        _, w = deformation_derivatives(X, u, R, e, Xt, Y, Rb, Rs, th, d, Jinv, Om, Bt, A, Ai)
        reduced_energy(p[e], d, g, Hd, want_K)
        _local_force(Xt, Y, Rb, w, Jinv, Ai, g, ft, mu, s)
        for j in range(M, m):
            ft[j] = g[j]
        if want_K:
            for i in range(m):
                for j in range(m):
                    Bf[i, j] = 0.0
            for i in range(M):
                for j in range(M):
                    Bf[i, j] = Bt[i, j]
            for j in range(M, m):
                Bf[j, j] = 1.0
            material_part(Hd, Bf, Kt, colw)
            _geometric(Xt, Y, Rb, w, th, Ai, g, ft, mu, s, Om, Bt, Kt)
        _rotate_out(Rs, n, ft, Kt, f[e], K[e], want_K)


@jit
def internal_force(X, u, R, p, f):
    """Internal forces f (n_el, m) = ∂V/∂(x, w, q) (module docstring)."""
    _evaluate(X, u, R, p, f, np.zeros((1, 1, 1)), False)


@jit
def tangent(X, u, R, p, f, K):
    """Internal forces f (n_el, m) and the exact tangent K (n_el, m, m)."""
    _evaluate(X, u, R, p, f, K, True)


@jit
def strain_energy(X, u, R, p, e_out):
    """Strain energy V(d) per element (n_el,) (elements.superelement_frame.reduced_energy:
    ½ dᵀ K_r d, or the projected Green-strain energy when the row has G)."""
    n_el, n = X.shape[0], X.shape[1]
    m = u.shape[1]
    Xt, Y, Rb, Rs = _frame_work(n)
    th = np.zeros((n, 3))
    d = np.zeros(m)
    g = np.zeros(m)
    H = np.zeros((1, 1))
    for e in range(n_el):
        deformation(X, u, R, e, Xt, Y, Rb, Rs, th, d)
        e_out[e] = reduced_energy(p[e], d, g, H, False)


@jit
def mass(X, u, R, p, kind, M):
    """Mass M (n_el, m, m) = T M_r Tᵀ at the current shadow frame (any ``kind``)."""
    n_el, n = X.shape[0], X.shape[1]
    m = u.shape[1]
    Xt, Y, Rb, Rs = _frame_work(n)
    ft = np.zeros(m)
    f = np.zeros(m)
    for e in range(n_el):
        Mr = p[e, m * m: 2 * m * m].reshape((m, m))
        shadow_frame(X, u, R, e, Xt, Y, Rb, Rs)
        _rotate_out(Rs, n, ft, Mr, f, M[e], True)


@jit
def resultants(X, u, R, p, s):
    """Resultants s (n_el, m) = the deformational vector d of each element (module
    docstring; lengths and radians)."""
    n_el, n = X.shape[0], X.shape[1]
    m = u.shape[1]
    Xt, Y, Rb, Rs = _frame_work(n)
    th = np.zeros((n, 3))
    d = np.zeros(m)
    for e in range(n_el):
        deformation(X, u, R, e, Xt, Y, Rb, Rs, th, d)
        for i in range(m):
            s[e, i] = d[i]


@jit
def geometric_stiffness(X, u, R, p, s, K):
    """K (n_el, m, m) = T (Σ_j s_j G_j) Tᵀ at the shadow frame of configuration (u, R) for
    resultants s (n_el, m) (module docstring); zero for a property row without G (header
    entry 2m² zero)."""
    n_el, n = X.shape[0], X.shape[1]
    m = u.shape[1]
    base = 2 * m * m + 2
    for e in range(n_el):
        for i in range(m):
            for j in range(m):
                K[e, i, j] = 0.0
    Xt, Y, Rb, Rs = _frame_work(n)
    Kt = np.zeros((m, m))
    ft = np.zeros(m)
    f = np.zeros(m)
    for e in range(n_el):
        if p[e, base - 2] == 0.0:  # no geometric tensor in this row
            continue
        G = p[e, base: base + m * m * m].reshape((m, m, m))
        for a in range(m):
            for b in range(m):
                Kt[a, b] = 0.0
        for j in range(m):
            sj = s[e, j]
            if sj != 0.0:
                for a in range(m):
                    for b in range(m):
                        Kt[a, b] += sj * G[j, a, b]
        shadow_frame(X, u, R, e, Xt, Y, Rb, Rs)
        _rotate_out(Rs, n, ft, Kt, f, K[e], True)


KERNELS = ElementKernels(internal_force=internal_force, tangent=tangent, resultants=resultants,
                         geometric_stiffness=geometric_stiffness, strain_energy=strain_energy, mass=mass,
                         midpoint_step=midpoint_step, midpoint_step_force=midpoint_step_force, point_state=point_state)


def _properties(material, section):
    raise KeyError("a superelement takes its reduced matrices from Model.add_superelement, not from a material and a section")


def _pack(tables):
    data = tables.get("reduced")
    if data is None:
        raise KeyError("a superelement needs its reduced data ('reduced', from Model.add_superelement)")
    return superelement_row(data["K"], data["M"], data.get("G"), data.get("points"), data.get("positions"))


def superelement_row(K, M, G=None, points=None, positions=None):
    """The property row (module docstring) of a superelement with reduced stiffness and
    mass K, M (m, m), optional geometric tensor G (m, m, m) and optional mass points
    (femb.model.superelements.MassPoints) with the reference positions of the interface
    nodes ``positions`` (n, 3) (their centroid is the origin of the points' mass moments,
    elements.superelement_step.point_moments)."""
    K = np.asarray(K, dtype=np.float64)
    M = np.asarray(M, dtype=np.float64)
    n_points = 0 if points is None else points.mass.shape[0]
    parts = [K.ravel(), M.ravel(), np.array([0.0 if G is None else 1.0, float(n_points)])]
    if G is not None:  # the geometric tensor (m, m, m) and K_r⁺ (m, m); absent: no columns, K_G = 0
        parts += [np.asarray(G, dtype=np.float64).ravel(), _rigid_free_inverse(K).ravel()]
    if points is not None:
        origin = np.asarray(positions, dtype=np.float64).reshape(-1, 3).mean(axis=0)
        parts += [points.row(), point_moments(points.mass, points.positions, points.modes, origin)]
        if points.second is None:
            parts.append(np.zeros(1))
        else:  # flag, then the second-order rows (n_p, 3, k, k)
            parts += [np.ones(1), np.asarray(points.second, dtype=np.float64).ravel()]
    return np.concatenate(parts)


def _rigid_free_inverse(K):
    """K⁺ (m, m): the pseudo-inverse of the reduced stiffness on its elastic range. The six
    rigid-body modes of K_r are zero only to round-off (about 1e-12 of its largest
    eigenvalue): eigenvalues below 1e-9 of the largest are taken as the null space."""
    lam, V = np.linalg.eigh(0.5 * (K + K.T))
    keep = lam > 1e-9 * max(float(lam.max()), 1e-300)
    return (V[:, keep] / lam[keep]) @ V[:, keep].T


def resultant_names(n_nodes, n_modes):
    """Names of the resultants d of a superelement: d_ux1 … d_rz1 per boundary node (1-based,
    in the cell's node order), then d_q1 … d_qk."""
    nodal = [f"d_{dof}{a + 1}" for a in range(int(n_nodes)) for dof in ("ux", "uy", "uz", "rx", "ry", "rz")]
    return tuple(nodal + [f"d_q{j + 1}" for j in range(int(n_modes))])


def spec_name(n_nodes, n_modes):
    """Element type name of a superelement with ``n_nodes`` boundary nodes and ``n_modes``
    modal amplitudes (``superelement_<n>n_<k>q``)."""
    return f"superelement_{int(n_nodes)}n_{int(n_modes)}q"


@functools.lru_cache(maxsize=None)
def superelement_spec(n_nodes, n_modes):
    """The ElementSpec of superelements with ``n_nodes`` boundary nodes and ``n_modes``
    modal amplitudes: one spec per size (n_edof fixed per spec), all sharing the same
    compiled kernels (sizes are read from the array shapes)."""
    n_nodes, n_modes = int(n_nodes), int(n_modes)
    if n_nodes < 1 or n_modes < 0:
        raise KeyError(f"a superelement needs at least one boundary node and k >= 0 modes, got {n_nodes} and {n_modes}")
    cell = {1: "vertex", 2: "line", 3: "triangle", 4: "quad"}.get(n_nodes, "polygon")
    drawn = None if n_nodes <= 4 else ("vertex", 1)  # output draws larger ones as their first node
    return ElementSpec(name=spec_name(n_nodes, n_modes), cell_type=cell, n_nodes=n_nodes, dim=3,
                       node_dofs=("ux", "uy", "uz", "rx", "ry", "rz"), params=(),
                       resultant_names=resultant_names(n_nodes, n_modes),
                       properties=_properties, kernels=KERNELS, constant_mass=(), oriented=True,
                       requires_length=False, table_params=("reduced",), pack=_pack, n_internal=n_modes, drawn_as=drawn,
                       description=f"co-rotated Craig–Bampton superelement, {n_nodes} boundary nodes, {n_modes} modes")


def spec_from_name(name):
    """The spec of a superelement type name (``superelement_<n>n_<k>q``) or None."""
    match = NAME_PATTERN.match(name)
    if match is None:
        return None
    return superelement_spec(int(match.group(1)), int(match.group(2)))


__all__ = ["superelement_spec", "superelement_row", "spec_name", "resultant_names", "spec_from_name", "deformation", "shadow_frame", "KERNELS"]
