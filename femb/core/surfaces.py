"""Loads on surface cells (linear triangles, bilinear quadrilaterals): consistent nodal
forces of a pressure or a traction and the exact stiffness of a follower pressure.

With the interpolation x(ξ, η) = Σ N_a x_a of a face and its (unnormalised) normal
a = x,ξ × x,η (area element × unit normal), a pressure p pushing along the normal of the
node order (right-hand rule) has the consistent nodal forces

    f_a = p ∫ N_a (x,ξ × x,η) dξ dη,

and a traction t per unit area f_a = t ∫ N_a |a| dξ dη. A *follower* pressure evaluates
f_a on the current positions; its derivative is

    ∂f_a/∂x_b = p ∫ N_a (N_b,η x̂,ξ − N_b,ξ x̂,η) dξ dη      (x̂ v = x × v).

The quadrature is exact for these polynomial integrands: the triangle's a is constant
(centroid rule, N_a linear), the quad's a is bilinear (2 × 2 Gauss, N_a a bilinear: degree
2 per direction). The potential of a follower pressure is −p V (V the volume under the
surface, cubic in the positions), so on a closed surface, or one whose boundary is held,
the load is conservative and its stiffness −∂f/∂x is symmetric once summed.
Plain numpy over all faces of a block (the element axis first).
"""
import numpy as np

_G = 1.0 / np.sqrt(3.0)
_XI_Q = np.array([-1.0, 1.0, 1.0, -1.0])
_ETA_Q = np.array([-1.0, -1.0, 1.0, 1.0])


def _rule(n_nodes):
    """[(weight, N (n,), dN/dξ (n,), dN/dη (n,))] of the exact rule of a face type."""
    if n_nodes == 3:
        return [(0.5, np.full(3, 1.0 / 3.0), np.array([-1.0, 1.0, 0.0]), np.array([-1.0, 0.0, 1.0]))]
    if n_nodes == 4:
        out = []
        for xi in (-_G, _G):
            for eta in (-_G, _G):
                out.append((1.0, 0.25 * (1 + _XI_Q * xi) * (1 + _ETA_Q * eta), 0.25 * _XI_Q * (1 + _ETA_Q * eta),
                            0.25 * _ETA_Q * (1 + _XI_Q * xi)))
        return out
    raise ValueError(f"surface loads need 3- or 4-node faces, got {n_nodes} nodes")


def pressure_forces(x, p):
    """Nodal forces (n, k, 3) of pressures ``p`` (scalar or (n,)) on the faces with node
    positions ``x`` (n, k, 3), k = 3 (triangle) or 4 (quad)."""
    x = np.asarray(x, dtype=np.float64)
    pn = np.broadcast_to(np.asarray(p, dtype=np.float64), x.shape[:1])
    out = np.zeros_like(x)
    for w, N, dxi, deta in _rule(x.shape[1]):
        a = np.cross(np.einsum("k,nkj->nj", dxi, x), np.einsum("k,nkj->nj", deta, x))
        out += w * N[None, :, None] * (pn[:, None] * a)[:, None, :]
    return out


def pressure_stiffness(x, p):
    """∂f/∂x (n, 3k, 3k) of the follower pressure forces of ``pressure_forces`` (rows: node
    a, component i; columns: node b, component j). The load stiffness to add to the
    tangent of r = f_int − f_ext is its negative."""
    x = np.asarray(x, dtype=np.float64)
    n, k = x.shape[:2]
    pn = np.broadcast_to(np.asarray(p, dtype=np.float64), (n,))
    out = np.zeros((n, k, 3, k, 3))
    for w, N, dxi, deta in _rule(k):
        hx = _hat(np.einsum("k,nkj->nj", dxi, x))
        he = _hat(np.einsum("k,nkj->nj", deta, x))
        # d(x,ξ × x,η) = N_b,ξ δ × x,η + x,ξ × N_b,η δ = (N_b,η x̂,ξ − N_b,ξ x̂,η) δ
        db = deta[None, :, None, None] * hx[:, None] - dxi[None, :, None, None] * he[:, None]  # (n, b, 3, 3)
        out += w * pn[:, None, None, None, None] * N[None, :, None, None, None] * db.transpose(0, 2, 1, 3)[:, None]
    return out.reshape(n, 3 * k, 3 * k)


def traction_forces(x, t):
    """Nodal forces (n, k, 3) of a traction ``t`` (3,) (force per unit area, fixed
    direction) on the faces with node positions ``x`` (n, k, 3)."""
    x = np.asarray(x, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)
    out = np.zeros_like(x)
    for w, N, dxi, deta in _rule(x.shape[1]):
        a = np.linalg.norm(np.cross(np.einsum("k,nkj->nj", dxi, x), np.einsum("k,nkj->nj", deta, x)), axis=1)
        out += w * (N[None, :] * a[:, None])[:, :, None] * t[None, None, :]
    return out


def face_areas(x):
    """Areas (n,) of the faces with node positions ``x`` (n, k, 3)."""
    x = np.asarray(x, dtype=np.float64)
    area = np.zeros(x.shape[0])
    for w, _, dxi, deta in _rule(x.shape[1]):
        area += w * np.linalg.norm(np.cross(np.einsum("k,nkj->nj", dxi, x), np.einsum("k,nkj->nj", deta, x)), axis=1)
    return area


def _hat(v):
    out = np.zeros(v.shape[:-1] + (3, 3))
    out[..., 0, 1], out[..., 0, 2] = -v[..., 2], v[..., 1]
    out[..., 1, 0], out[..., 1, 2] = v[..., 2], -v[..., 0]
    out[..., 2, 0], out[..., 2, 1] = -v[..., 1], v[..., 0]
    return out
