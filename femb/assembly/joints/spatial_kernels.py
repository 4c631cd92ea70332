"""Compiled kernels of the 3-D joints (femb.assembly.joints.spatial), over arrays of joints.

Each kernel loops over all 3-D joints of a model at once and writes the values of one
kind of triplets into a preallocated array whose layout (row/column pattern) is fixed by
the joints alone and built once by ``Joints3D`` (femb.assembly.joints.spatial):

- ``evaluate``: Φ (m,) and the Jacobian values (spatial spins on rotational columns);
- ``hessian``: the symmetric part of Σ λ ∇²Φ as 3×3 blocks (row-major, 9 values each);
- ``midpoint_stiffness``: ∂(Ḡᵀλ)/∂(Δx, ψ) of the discrete Jacobian as 3×3 blocks.

The equations, their derivatives and the row order per kind are those of the module
docstring of femb.assembly.joints.spatial. Joint arrays (nj joints):

kind (nj,) int64
    0 spherical, 1 revolute, 2 universal, 3 cylindrical, 4 prismatic (``KIND_CODES``).
row0, jac0, blk0 (nj,) int64
    First row of the joint, first Jacobian value, first 3×3 block of the square terms.
Xa, Xb (nj, 3)
    Reference positions of node a and of node b (ground: the fixed attachment point).
ta, tb (nj, 3) int64
    Translational variables of a and b (−1: fixed slot or ground).
c, cb (nj, 3); has_cb (nj,) bool
    Attachment offsets from a (carried by R_a) and from b (carried by R_b; used when
    ``has_cb``).
frame (nj, 3, 3)
    Rows n0, t1, t2: the joint axis and its normals (reference configuration).
Ra, Rb (nj, 3, 3)
    The rotations of a and b used (identity for ground and nodes without rotations; the
    averaged R̄ = (R_0 + R_1)/2 of the two step ends for the discrete Jacobian).

All kernels are compiled with ``cache=True`` (femb.core.jit) and allocate only 3×3
scratch arrays per call.
"""
import numpy as np

from femb.core.jit import jit
from femb.core.rotations import add_cross, cayley_spin_jacobian, cayley_vector, hat, mat3

KIND_CODES = {"spherical": 0, "revolute": 1, "universal": 2, "cylindrical": 3, "prismatic": 4}
"""Integer code of each 3-D joint kind in the kernels."""

@jit
def n_pairs(code):
    """Number of director products p·q = 0 of a kind: revolute and cylindrical 2
    ((R_a t1)·(R_b n0), (R_a t2)·(R_b n0)), prismatic 3 (+ (R_a t1)·(R_b t2)), universal 1
    ((R_a n0)·(R_b t1)), spherical 0."""
    if code == 1 or code == 3:
        return 2
    if code == 4:
        return 3
    if code == 2:
        return 1
    return 0


@jit
def _pair(code, k):
    """(p0 index, q0 index) in the frame of the k-th director product of a kind."""
    if code == 2:
        return 0, 1
    if k == 0:
        return 1, 0
    if k == 1:
        return 2, 0
    return 1, 2


@jit
def _mv(R, x, out):
    for i in range(3):
        out[i] = R[i, 0] * x[0] + R[i, 1] * x[1] + R[i, 2] * x[2]


@jit
def _cross(a, b, out):
    """out (3,) = a × b."""
    out[:] = 0.0
    add_cross(a, b, 1.0, out)


@jit
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@jit
def _put(vals, block, H, s):
    """vals[9 block : 9 block + 9] = s H (row-major)."""
    o = 9 * block
    for i in range(3):
        for j in range(3):
            vals[o + 3 * i + j] = s * H[i, j]


@jit
def _put_t(vals, block, H, s):
    """vals of the block = s Hᵀ."""
    o = 9 * block
    for i in range(3):
        for j in range(3):
            vals[o + 3 * i + j] = s * H[j, i]


@jit
def frames(node_a, node_b, rot_a, rot_b, R, Ra, Rb):
    """Ra, Rb (nj, 3, 3) = the rotations R (n_nodes, 3, 3) of the joints' nodes a and b
    (``node_a``, ``node_b`` (nj,)), the identity where ``rot_a``/``rot_b`` (nj,) is False
    (ground, nodes without rotations)."""
    for j in range(node_a.shape[0]):
        for i in range(3):
            for k in range(3):
                one = 1.0 if i == k else 0.0
                Ra[j, i, k] = R[node_a[j], i, k] if rot_a[j] else one
                Rb[j, i, k] = R[node_b[j], i, k] if rot_b[j] else one


@jit
def midpoint_frames(Ra0, Rb0, Ra1, Rb1, Ra, Rb, Ta, Tb):
    """The frames of the discrete Jacobian from those of the step ends Ra0, Rb0, Ra1, Rb1
    (nj, 3, 3): the averages Ra, Rb = (R_0 + R_1)/2 and the Cayley spin maps Ta, Tb =
    T(ψ) of the increments cay(ψ) = R_1 R_0ᵀ (written into the outputs)."""
    C = np.empty((3, 3))
    psi = np.empty(3)
    for j in range(Ra0.shape[0]):
        for R0, R1, Rbar, T in ((Ra0[j], Ra1[j], Ra[j], Ta[j]), (Rb0[j], Rb1[j], Rb[j], Tb[j])):
            for i in range(3):
                for k in range(3):
                    Rbar[i, k] = 0.5 * (R0[i, k] + R1[i, k])
                    C[i, k] = R1[i, 0] * R0[k, 0] + R1[i, 1] * R0[k, 1] + R1[i, 2] * R0[k, 2]
            cayley_vector(C, psi)
            cayley_spin_jacobian(psi, T)


@jit
def evaluate(kind, row0, jac0, Xa, Xb, ta, tb, c, cb, has_cb, frame, u, Ra, Rb, phi, vals, d_out):
    """Φ into ``phi`` (m,) and the Jacobian values into ``vals`` at state ``u`` (n_var,)
    (translations) and rotations Ra, Rb (nj, 3, 3); d = x_b − x_a per joint into ``d_out``
    (nj, 3), kept for the curvature terms."""
    evaluate_into(kind, row0, jac0, Xa, Xb, ta, tb, c, cb, has_cb, frame, u, Ra, Rb, phi, vals, d_out, np.empty((7, 3)))


@jit
def evaluate_into(kind, row0, jac0, Xa, Xb, ta, tb, c, cb, has_cb, frame, u, Ra, Rb, phi, vals, d_out, work):
    """``evaluate`` with its 3-vectors in ``work`` (7, 3) (for callers that evaluate often)."""
    d, v, vb, r, p, q, pq = work[0], work[1], work[2], work[3], work[4], work[5], work[6]
    for j in range(kind.shape[0]):
        code = kind[j]
        for i in range(3):
            xa = Xa[j, i] + u[ta[j, i]]
            xb = Xb[j, i] + (u[tb[j, i]] if tb[j, 0] >= 0 else 0.0)
            d[i] = xb - xa
            d_out[j, i] = d[i]
        _mv(Ra[j], c[j], v)
        cbj = has_cb[j]
        if cbj:
            _mv(Rb[j], cb[j], vb)
            for i in range(3):
                r[i] = d[i] + vb[i] - v[i]
        else:
            for i in range(3):
                r[i] = d[i] - v[i]
        r_ = row0[j]
        o = jac0[j]
        if code <= 2:  # r = 0: rows [e_i, −e_i, row i of [v]×] at (u_b, u_a, w_a)
            for i in range(3):
                phi[r_ + i] = r[i]
                for k in range(3):
                    vals[o + 9 * i + k] = 1.0 if i == k else 0.0
                    vals[o + 9 * i + 3 + k] = -1.0 if i == k else 0.0
            vals[o + 6], vals[o + 7], vals[o + 8] = 0.0, -v[2], v[1]
            vals[o + 15], vals[o + 16], vals[o + 17] = v[2], 0.0, -v[0]
            vals[o + 24], vals[o + 25], vals[o + 26] = -v[1], v[0], 0.0
            o += 27
            if cbj:  # −[R_b c_b]× at w_b
                vals[o], vals[o + 1], vals[o + 2] = -0.0, vb[2], -vb[1]
                vals[o + 3], vals[o + 4], vals[o + 5] = -vb[2], -0.0, vb[0]
                vals[o + 6], vals[o + 7], vals[o + 8] = vb[1], -vb[0], -0.0
                o += 9
            r_ += 3
        else:  # (R_a t)·r for t = t1, t2: [t, −t, t × d] at (u_b, u_a, w_a)
            for a in (1, 2):
                _mv(Ra[j], frame[j, a], p)
                phi[r_] = _dot(p, r)
                _cross(p, d, pq)
                for k in range(3):
                    vals[o + k] = p[k]
                    vals[o + 3 + k] = -p[k]
                    vals[o + 6 + k] = pq[k]
                o += 9
                if cbj:  # (R_a t)·(R_b c_b): [t × vb, −t × vb] at (w_a, w_b)
                    _cross(p, vb, pq)
                    for k in range(3):
                        vals[o + k] = pq[k]
                        vals[o + 3 + k] = -pq[k]
                    o += 6
                r_ += 1
        for k in range(n_pairs(code)):
            ia, ib = _pair(code, k)
            _mv(Ra[j], frame[j, ia], p)
            _mv(Rb[j], frame[j, ib], q)
            phi[r_] = _dot(p, q)
            _cross(p, q, pq)
            for i in range(3):
                vals[o + i] = pq[i]
                vals[o + 3 + i] = -pq[i]
            o += 6
            r_ += 1


@jit
def hessian(kind, row0, blk0, c, cb, has_cb, frame, Ra, Rb, d_all, lam, vals):
    """Symmetric part of Σ λ ∇²Φ (3×3 blocks into ``vals``) at the rotations Ra, Rb and
    the joint vectors d (nj, 3) of an evaluation; ``lam`` (m,) one multiplier per row."""
    v = np.empty(3)
    vb = np.empty(3)
    p = np.empty(3)
    q = np.empty(3)
    lv = np.empty(3)
    H = np.empty((3, 3))
    S = np.empty((3, 3))
    for j in range(kind.shape[0]):
        code = kind[j]
        d = d_all[j]
        b = blk0[j]
        r_ = row0[j]
        cbj = has_cb[j]
        if cbj:
            _mv(Rb[j], cb[j], vb)
        if code <= 2:
            _mv(Ra[j], c[j], v)
            for i in range(3):
                lv[i] = lam[r_ + i]
            lvv = _dot(lv, v)
            for i in range(3):
                for k in range(3):
                    H[i, k] = (lvv if i == k else 0.0) - 0.5 * (v[i] * lv[k] + lv[i] * v[k])
            _put(vals, b, H, 1.0)
            b += 1
            if cbj:
                lvb = _dot(lv, vb)
                for i in range(3):
                    for k in range(3):
                        H[i, k] = 0.5 * (vb[i] * lv[k] + lv[i] * vb[k]) - (lvb if i == k else 0.0)
                _put(vals, b, H, 1.0)
                b += 1
            r_ += 3
        else:
            for a in (1, 2):
                w = lam[r_]
                _mv(Ra[j], frame[j, a], p)
                hat(p, S)
                _put(vals, b, S, w)  # (w_a, u_b)
                _put_t(vals, b + 1, S, w)  # (u_b, w_a)
                _put(vals, b + 2, S, -w)  # (w_a, u_a)
                _put_t(vals, b + 3, S, -w)  # (u_a, w_a)
                pd = _dot(p, d)
                for i in range(3):
                    for k in range(3):
                        H[i, k] = 0.5 * (p[i] * d[k] + d[i] * p[k]) - (pd if i == k else 0.0)
                _put(vals, b + 4, H, w)  # (w_a, w_a)
                b += 5
                r_ += 1
            if cbj:  # the products (R_a t)·(R_b c_b) of the two projection rows
                for a in (1, 2):
                    _mv(Ra[j], frame[j, a], p)
                    b = _dot_blocks(vals, b, p, vb, lam[row0[j] + a - 1], H)
        for k in range(n_pairs(code)):
            ia, ib = _pair(code, k)
            _mv(Ra[j], frame[j, ia], p)
            _mv(Rb[j], frame[j, ib], q)
            b = _dot_blocks(vals, b, p, q, lam[r_], H)
            r_ += 1


@jit
def _dot_blocks(vals, b, p, q, w, H):
    """The four curvature blocks (w_a w_a, w_b w_b, w_a w_b, w_b w_a) of w p·q from block
    ``b`` on; returns the next block."""
    pq = _dot(p, q)
    for i in range(3):
        for k in range(3):
            H[i, k] = 0.5 * (p[i] * q[k] + q[i] * p[k]) - (pq if i == k else 0.0)
    _put(vals, b, H, w)
    _put(vals, b + 1, H, w)
    for i in range(3):
        for k in range(3):
            H[i, k] = (pq if i == k else 0.0) - q[i] * p[k]
    _put(vals, b + 2, H, w)
    for i in range(3):
        for k in range(3):
            H[i, k] = (pq if i == k else 0.0) - p[i] * q[k]
    _put(vals, b + 3, H, w)
    return b + 4


@jit
def midpoint_stiffness(kind, row0, blk0, c, cb, has_cb, frame, Ra, Rb, d_all, Ra1, Rb1, Ta, Tb, lam, vals):
    """∂(Ḡᵀλ)/∂(Δx, ψ) (3×3 blocks into ``vals``) of the discrete Jacobian Ḡ at the
    averaged rotations Ra, Rb and vectors d̄ (nj, 3), with the end rotations Ra1, Rb1 and
    the Cayley spin maps Ta, Tb (nj, 3, 3) of the increments: with p̄ = (p_0 + p_1)/2 and
    p_1 = cay(ψ) p_0, δp̄ = −½ [p_1]× T(ψ) δψ and δd̄ = ½ δΔd."""
    midpoint_stiffness_into(kind, row0, blk0, c, cb, has_cb, frame, Ra, Rb, d_all, Ra1, Rb1, Ta, Tb, lam, vals, np.empty((4, 3)),
                            np.empty((5, 3, 3)))


@jit
def midpoint_stiffness_into(kind, row0, blk0, c, cb, has_cb, frame, Ra, Rb, d_all, Ra1, Rb1, Ta, Tb, lam, vals, w3, w33):
    """``midpoint_stiffness`` with its 3-vectors in ``w3`` (4, 3) and 3 × 3 matrices in
    ``w33`` (5, 3, 3) (for callers that evaluate often)."""
    x, p, q, lv = w3[0], w3[1], w3[2], w3[3]
    A, B, S1, S2, H = w33[0], w33[1], w33[2], w33[3], w33[4]
    for j in range(kind.shape[0]):
        code = kind[j]
        b = blk0[j]
        r_ = row0[j]
        cbj = has_cb[j]
        if code <= 2:
            for i in range(3):
                lv[i] = lam[r_ + i]
            hat(lv, A)
            _mv(Ra1[j], c[j], x)
            hat(x, B)
            mat3(A, B, S1)
            mat3(S1, Ta[j], H)
            _put(vals, b, H, -0.5)
            b += 1
            if cbj:
                _mv(Rb1[j], cb[j], x)
                hat(x, B)
                mat3(A, B, S1)
                mat3(S1, Tb[j], H)
                _put(vals, b, H, 0.5)
                b += 1
            r_ += 3
        else:
            for a in (1, 2):
                w = lam[r_]
                _mv(Ra1[j], frame[j, a], x)
                hat(x, B)
                mat3(B, Ta[j], S1)  # St1 = [R_a1 t]× T_a
                _put(vals, b, S1, -0.5 * w)  # (u_b, ψ_a)
                _put(vals, b + 1, S1, 0.5 * w)  # (u_a, ψ_a)
                hat(d_all[j], A)
                mat3(A, S1, H)
                _put(vals, b + 2, H, 0.5 * w)  # (ψ_a, ψ_a)
                _mv(Ra[j], frame[j, a], p)
                hat(p, A)
                _put(vals, b + 3, A, 0.5 * w)  # (ψ_a, u_b)
                _put(vals, b + 4, A, -0.5 * w)  # (ψ_a, u_a)
                b += 5
                r_ += 1
            if cbj:
                _mv(Rb[j], cb[j], q)
                for a in (1, 2):
                    _mv(Ra[j], frame[j, a], p)
                    _mv(Ra1[j], frame[j, a], x)
                    hat(x, B)
                    mat3(B, Ta[j], S1)
                    _mv(Rb1[j], cb[j], x)
                    hat(x, B)
                    mat3(B, Tb[j], S2)
                    b = _dot_stiffness(vals, b, p, q, S1, S2, lam[row0[j] + a - 1], A, H)
        for k in range(n_pairs(code)):
            ia, ib = _pair(code, k)
            _mv(Ra[j], frame[j, ia], p)
            _mv(Rb[j], frame[j, ib], q)
            _mv(Ra1[j], frame[j, ia], x)
            hat(x, B)
            mat3(B, Ta[j], S1)
            _mv(Rb1[j], frame[j, ib], x)
            hat(x, B)
            mat3(B, Tb[j], S2)
            b = _dot_stiffness(vals, b, p, q, S1, S2, lam[r_], A, H)
            r_ += 1


@jit
def _dot_stiffness(vals, b, pbar, qbar, Sp1, Sq1, w, A, H):
    """The four blocks (ψ_a ψ_a, ψ_a ψ_b, ψ_b ψ_b, ψ_b ψ_a) of the discrete stiffness of a
    product p·q (averaged directors p̄, q̄; Sp1 = [p_1]× T_a, Sq1 = [q_1]× T_b); returns the
    next block."""
    hat(qbar, A)
    mat3(A, Sp1, H)
    _put(vals, b, H, 0.5 * w)
    _put(vals, b + 3, H, -0.5 * w)
    hat(pbar, A)
    mat3(A, Sq1, H)
    _put(vals, b + 1, H, -0.5 * w)
    _put(vals, b + 2, H, 0.5 * w)
    return b + 4
