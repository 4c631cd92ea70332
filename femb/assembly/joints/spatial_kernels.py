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

All kernels are compiled with ``cache=True`` (femb.core.jit); inside the joint loops
3-vectors are held as three scalars and 3×3 matrices as 9-tuples (row-major), and the only
scratch arrays are those of ``midpoint_frames`` (one 3×3, one 3-vector per call).
"""
import numpy as np

from femb.core.jit import jit
from femb.core.rotations import cayley_spin_jacobian, cayley_vector

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


@jit(internal=True)
def _pair(code, k):
    """(p0 index, q0 index) in the frame of the k-th director product of a kind."""
    if code == 2:
        return 0, 1
    if k == 0:
        return 1, 0
    if k == 1:
        return 2, 0
    return 1, 2


@jit(internal=True)
def _rot(R, j, x0, x1, x2):
    """R[j] x (3-tuple) for R (nj, 3, 3) and x = (x0, x1, x2)."""
    return (R[j, 0, 0] * x0 + R[j, 0, 1] * x1 + R[j, 0, 2] * x2,
            R[j, 1, 0] * x0 + R[j, 1, 1] * x1 + R[j, 1, 2] * x2,
            R[j, 2, 0] * x0 + R[j, 2, 1] * x1 + R[j, 2, 2] * x2)


@jit(internal=True)
def _rot_row(R, j, F, k):
    """R[j] F[j, k] (3-tuple): a frame vector (F (nj, 3, 3), rows n0, t1, t2) turned by R."""
    return _rot(R, j, F[j, k, 0], F[j, k, 1], F[j, k, 2])


@jit(internal=True)
def _cross3(a, b):
    """a × b (3-tuple) of 3-tuples, as femb.core.rotations.add_cross adds it into zeros
    (0 + a × b: the same signed zeros)."""
    return (0.0 + (a[1] * b[2] - a[2] * b[1]), 0.0 + (a[2] * b[0] - a[0] * b[2]), 0.0 + (a[0] * b[1] - a[1] * b[0]))


@jit(internal=True)
def _dot3(a, b):
    """a·b of 3-tuples."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@jit(internal=True)
def _mat(M, j):
    """M[j] (9-tuple, row-major) of M (nj, 3, 3)."""
    return (M[j, 0, 0], M[j, 0, 1], M[j, 0, 2], M[j, 1, 0], M[j, 1, 1], M[j, 1, 2], M[j, 2, 0], M[j, 2, 1], M[j, 2, 2])


@jit(internal=True)
def _hat_times(x, M):
    """[x]× M (9-tuple) for x (3-tuple) and M (9-tuple): the values of the dense product
    ``mat3(hat(x), M)`` (femb.core.rotations) with the products by the zeros of [x]× left
    out, which changes at most the sign of a zero."""
    return (x[1] * M[6] - x[2] * M[3], x[1] * M[7] - x[2] * M[4], x[1] * M[8] - x[2] * M[5],
            x[2] * M[0] - x[0] * M[6], x[2] * M[1] - x[0] * M[7], x[2] * M[2] - x[0] * M[8],
            x[0] * M[3] - x[1] * M[0], x[0] * M[4] - x[1] * M[1], x[0] * M[5] - x[1] * M[2])


@jit(internal=True)
def _hat_hat(x, y):
    """[x]× [y]× (9-tuple): the values of ``mat3(hat(x), hat(y))`` (zero products left out)."""
    return (-(x[2] * y[2]) - x[1] * y[1], x[1] * y[0], x[2] * y[0],
            x[0] * y[1], -(x[2] * y[2]) - x[0] * y[0], x[2] * y[1],
            x[0] * y[2], x[1] * y[2], -(x[1] * y[1]) - x[0] * y[0])


@jit(internal=True)
def _times(A, B):
    """A B (9-tuple) of 9-tuples, in the order of ``mat3``."""
    return (A[0] * B[0] + A[1] * B[3] + A[2] * B[6], A[0] * B[1] + A[1] * B[4] + A[2] * B[7],
            A[0] * B[2] + A[1] * B[5] + A[2] * B[8],
            A[3] * B[0] + A[4] * B[3] + A[5] * B[6], A[3] * B[1] + A[4] * B[4] + A[5] * B[7],
            A[3] * B[2] + A[4] * B[5] + A[5] * B[8],
            A[6] * B[0] + A[7] * B[3] + A[8] * B[6], A[6] * B[1] + A[7] * B[4] + A[8] * B[7],
            A[6] * B[2] + A[7] * B[5] + A[8] * B[8])


@jit(internal=True)
def _store(vals, block, H, s):
    """vals of the 3×3 block ``block`` = s H (H a 9-tuple, row-major)."""
    o = 9 * block
    vals[o], vals[o + 1], vals[o + 2] = s * H[0], s * H[1], s * H[2]
    vals[o + 3], vals[o + 4], vals[o + 5] = s * H[3], s * H[4], s * H[5]
    vals[o + 6], vals[o + 7], vals[o + 8] = s * H[6], s * H[7], s * H[8]


@jit(internal=True)
def _store_hat(vals, block, x, s):
    """vals of the block = s [x]× (its zeros written as s·0, as the dense form)."""
    o = 9 * block
    z = s * 0.0
    vals[o], vals[o + 1], vals[o + 2] = z, s * -x[2], s * x[1]
    vals[o + 3], vals[o + 4], vals[o + 5] = s * x[2], z, s * -x[0]
    vals[o + 6], vals[o + 7], vals[o + 8] = s * -x[1], s * x[0], z


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
        _midpoint_frame(Ra0, Ra1, Ra, Ta, j, C, psi)
        _midpoint_frame(Rb0, Rb1, Rb, Tb, j, C, psi)


@jit(inline="always")
def _midpoint_frame(R0, R1, Rbar, T, j, C, psi):
    """Rbar[j] = (R0[j] + R1[j])/2 and T[j] = T(ψ) of cay(ψ) = R1[j] R0[j]ᵀ (work C (3, 3),
    psi (3,))."""
    for i in range(3):
        for k in range(3):
            Rbar[j, i, k] = 0.5 * (R0[j, i, k] + R1[j, i, k])
            C[i, k] = R1[j, i, 0] * R0[j, k, 0] + R1[j, i, 1] * R0[j, k, 1] + R1[j, i, 2] * R0[j, k, 2]
    cayley_vector(C, psi)
    cayley_spin_jacobian(psi, T[j])


@jit
def evaluate(kind, row0, jac0, Xa, Xb, ta, tb, c, cb, has_cb, frame, u, Ra, Rb, phi, vals, d_out):
    """Φ into ``phi`` (m,) and the Jacobian values into ``vals`` at state ``u`` (n_var,)
    (translations) and rotations Ra, Rb (nj, 3, 3); d = x_b − x_a per joint into ``d_out``
    (nj, 3), kept for the curvature terms."""
    evaluate_into(kind, row0, jac0, Xa, Xb, ta, tb, c, cb, has_cb, frame, u, Ra, Rb, phi, vals, d_out, np.empty((7, 3)))


@jit(internal=True)
def evaluate_into(kind, row0, jac0, Xa, Xb, ta, tb, c, cb, has_cb, frame, u, Ra, Rb, phi, vals, d_out, work):
    """``evaluate`` for callers that evaluate often (``work`` (7, 3): no longer used, kept
    for the callers' signature). Each director R v0 is computed once per joint; the
    products p·q of a kind are written by ``_product_row``."""
    for j in range(kind.shape[0]):
        code = kind[j]
        ground = tb[j, 0] < 0
        ub0 = 0.0 if ground else u[tb[j, 0]]
        ub1 = 0.0 if ground else u[tb[j, 1]]
        ub2 = 0.0 if ground else u[tb[j, 2]]
        d = (Xb[j, 0] + ub0 - (Xa[j, 0] + u[ta[j, 0]]), Xb[j, 1] + ub1 - (Xa[j, 1] + u[ta[j, 1]]),
             Xb[j, 2] + ub2 - (Xa[j, 2] + u[ta[j, 2]]))
        d_out[j, 0], d_out[j, 1], d_out[j, 2] = d
        v = _rot(Ra, j, c[j, 0], c[j, 1], c[j, 2])
        cbj = has_cb[j]
        if cbj:
            vb = _rot(Rb, j, cb[j, 0], cb[j, 1], cb[j, 2])
            r = (d[0] + vb[0] - v[0], d[1] + vb[1] - v[1], d[2] + vb[2] - v[2])
        else:
            vb = (0.0, 0.0, 0.0)
            r = (d[0] - v[0], d[1] - v[1], d[2] - v[2])
        r_ = row0[j]
        o = jac0[j]
        if code <= 2:  # r = 0: rows [e_i, −e_i, row i of [v]×] at (u_b, u_a, w_a)
            phi[r_], phi[r_ + 1], phi[r_ + 2] = r
            for i in range(3):
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
            if code == 0:
                continue
        if code == 2:  # (R_a n0)·(R_b t1)
            _product_row(phi, vals, r_, o, _rot_row(Ra, j, frame, 0), _rot_row(Rb, j, frame, 1))
            continue
        p1 = _rot_row(Ra, j, frame, 1)
        p2 = _rot_row(Ra, j, frame, 2)
        if code >= 3:  # (R_a t)·r for t = t1, t2: [t, −t, t × d] at (u_b, u_a, w_a)
            o = _projection_row(phi, vals, r_, o, p1, r, d)
            if cbj:
                o = _offset_row(vals, o, p1, vb)
            o = _projection_row(phi, vals, r_ + 1, o, p2, r, d)
            if cbj:
                o = _offset_row(vals, o, p2, vb)
            r_ += 2
        q0 = _rot_row(Rb, j, frame, 0)
        o = _product_row(phi, vals, r_, o, p1, q0)
        o = _product_row(phi, vals, r_ + 1, o, p2, q0)
        if code == 4:
            _product_row(phi, vals, r_ + 2, o, p1, _rot_row(Rb, j, frame, 2))


@jit(internal=True)
def _projection_row(phi, vals, row, o, p, r, d):
    """Row ``row`` of a projection p·r (p = R_a t): Φ and [p, −p, p × d] at (u_b, u_a, w_a)
    from value ``o`` on; returns the next value."""
    phi[row] = _dot3(p, r)
    vals[o], vals[o + 1], vals[o + 2] = p
    vals[o + 3], vals[o + 4], vals[o + 5] = -p[0], -p[1], -p[2]
    vals[o + 6], vals[o + 7], vals[o + 8] = _cross3(p, d)
    return o + 9


@jit(internal=True)
def _offset_row(vals, o, p, vb):
    """The c_b terms of a projection row: [p × v_b, −p × v_b] at (w_a, w_b) from value ``o``
    on; returns the next value."""
    pv = _cross3(p, vb)
    vals[o], vals[o + 1], vals[o + 2] = pv
    vals[o + 3], vals[o + 4], vals[o + 5] = -pv[0], -pv[1], -pv[2]
    return o + 6


@jit(internal=True)
def _product_row(phi, vals, row, o, p, q):
    """Row ``row`` of a director product p·q: Φ and [p × q, −p × q] at (w_a, w_b) from value
    ``o`` on; returns the next value."""
    phi[row] = _dot3(p, q)
    pq = _cross3(p, q)
    vals[o], vals[o + 1], vals[o + 2] = pq
    vals[o + 3], vals[o + 4], vals[o + 5] = -pq[0], -pq[1], -pq[2]
    return o + 6


@jit
def hessian(kind, row0, blk0, c, cb, has_cb, frame, Ra, Rb, d_all, lam, vals):
    """Symmetric part of Σ λ ∇²Φ (3×3 blocks into ``vals``) at the rotations Ra, Rb and
    the joint vectors d (nj, 3) of an evaluation; ``lam`` (m,) one multiplier per row."""
    for j in range(kind.shape[0]):
        code = kind[j]
        b = blk0[j]
        r_ = row0[j]
        cbj = has_cb[j]
        vb = _rot(Rb, j, cb[j, 0], cb[j, 1], cb[j, 2])
        if code <= 2:  # λ·r: (λ·v) I − sym(v λᵀ) at w_a, sym(v_b λᵀ) − (λ·v_b) I at w_b
            v = _rot(Ra, j, c[j, 0], c[j, 1], c[j, 2])
            lv = (lam[r_], lam[r_ + 1], lam[r_ + 2])
            _store(vals, b, _sym(v, lv, _dot3(lv, v)), -1.0)
            b += 1
            if cbj:
                _store(vals, b, _sym(vb, lv, _dot3(lv, vb)), 1.0)
                b += 1
            r_ += 3
        else:  # the projections (R_a t)·r, t = t1, t2, and their products (R_a t)·(R_b c_b)
            p1 = _rot_row(Ra, j, frame, 1)
            p2 = _rot_row(Ra, j, frame, 2)
            d = (d_all[j, 0], d_all[j, 1], d_all[j, 2])
            b = _projection_curvature(vals, b, p1, d, lam[r_])
            b = _projection_curvature(vals, b, p2, d, lam[r_ + 1])
            if cbj:
                b = _dot_blocks(vals, b, p1, vb, lam[r_])
                b = _dot_blocks(vals, b, p2, vb, lam[r_ + 1])
            r_ += 2
        for k in range(n_pairs(code)):
            ia, ib = _pair(code, k)
            b = _dot_blocks(vals, b, _rot_row(Ra, j, frame, ia), _rot_row(Rb, j, frame, ib), lam[r_ + k])


@jit(internal=True)
def _sym(x, y, s):
    """sym(x yᵀ) − s I (9-tuple): 0.5 (x_i y_k + y_i x_k) − s δ_ik."""
    return (0.5 * (x[0] * y[0] + y[0] * x[0]) - s, 0.5 * (x[0] * y[1] + y[0] * x[1]), 0.5 * (x[0] * y[2] + y[0] * x[2]),
            0.5 * (x[1] * y[0] + y[1] * x[0]), 0.5 * (x[1] * y[1] + y[1] * x[1]) - s, 0.5 * (x[1] * y[2] + y[1] * x[2]),
            0.5 * (x[2] * y[0] + y[2] * x[0]), 0.5 * (x[2] * y[1] + y[2] * x[1]), 0.5 * (x[2] * y[2] + y[2] * x[2]) - s)


@jit(internal=True)
def _diag_minus_outer(s, x, y):
    """s I − x yᵀ (9-tuple; off the diagonal 0 − x_i y_k, as the dense form)."""
    return (s - x[0] * y[0], 0.0 - x[0] * y[1], 0.0 - x[0] * y[2],
            0.0 - x[1] * y[0], s - x[1] * y[1], 0.0 - x[1] * y[2],
            0.0 - x[2] * y[0], 0.0 - x[2] * y[1], s - x[2] * y[2])


@jit(inline="always")
def _projection_curvature(vals, b, p, d, w):
    """The five curvature blocks ((w_a, u_b), (u_b, w_a), (w_a, u_a), (u_a, w_a), (w_a, w_a))
    of a projection w p·d (p = R_a t) from block ``b`` on; returns the next block."""
    m = (-p[0], -p[1], -p[2])  # [p]×ᵀ = [−p]×
    _store_hat(vals, b, p, w)
    _store_hat(vals, b + 1, m, w)
    _store_hat(vals, b + 2, p, -w)
    _store_hat(vals, b + 3, m, -w)
    _store(vals, b + 4, _sym(p, d, _dot3(p, d)), w)
    return b + 5


@jit(inline="always")
def _dot_blocks(vals, b, p, q, w):
    """The four curvature blocks (w_a w_a, w_b w_b, w_a w_b, w_b w_a) of w p·q from block
    ``b`` on; returns the next block."""
    pq = _dot3(p, q)
    H = _sym(p, q, pq)
    _store(vals, b, H, w)
    _store(vals, b + 1, H, w)
    _store(vals, b + 2, _diag_minus_outer(pq, q, p), w)
    _store(vals, b + 3, _diag_minus_outer(pq, p, q), w)
    return b + 4


@jit
def midpoint_stiffness(kind, row0, blk0, c, cb, has_cb, frame, Ra, Rb, d_all, Ra1, Rb1, Ta, Tb, lam, vals):
    """∂(Ḡᵀλ)/∂(Δx, ψ) (3×3 blocks into ``vals``) of the discrete Jacobian Ḡ at the
    averaged rotations Ra, Rb and vectors d̄ (nj, 3), with the end rotations Ra1, Rb1 and
    the Cayley spin maps Ta, Tb (nj, 3, 3) of the increments: with p̄ = (p_0 + p_1)/2 and
    p_1 = cay(ψ) p_0, δp̄ = −½ [p_1]× T(ψ) δψ and δd̄ = ½ δΔd."""
    midpoint_stiffness_into(kind, row0, blk0, c, cb, has_cb, frame, Ra, Rb, d_all, Ra1, Rb1, Ta, Tb, lam, vals, np.empty((4, 3)),
                            np.empty((5, 3, 3)))


@jit(internal=True)
def midpoint_stiffness_into(kind, row0, blk0, c, cb, has_cb, frame, Ra, Rb, d_all, Ra1, Rb1, Ta, Tb, lam, vals, w3, w33):
    """``midpoint_stiffness`` for callers that evaluate often (``w3`` (4, 3), ``w33`` (5, 3, 3):
    no longer used, kept for the callers' signature). Each director's p̄ and [p_1]× T is
    computed once per joint; the blocks of a product p·q are written by ``_dot_stiffness``."""
    for j in range(kind.shape[0]):
        code = kind[j]
        b = blk0[j]
        r_ = row0[j]
        cbj = has_cb[j]
        TA = _mat(Ta, j)
        TB = _mat(Tb, j)
        if code <= 2:
            lv = (lam[r_], lam[r_ + 1], lam[r_ + 2])
            _store(vals, b, _times(_hat_hat(lv, _rot(Ra1, j, c[j, 0], c[j, 1], c[j, 2])), TA), -0.5)
            b += 1
            if cbj:
                _store(vals, b, _times(_hat_hat(lv, _rot(Rb1, j, cb[j, 0], cb[j, 1], cb[j, 2])), TB), 0.5)
                b += 1
            r_ += 3
        else:  # the projections (R_a t)·r, t = t1, t2, and their products (R_a t)·(R_b c_b)
            p1, S1 = _director(Ra, Ra1, TA, j, frame, 1)
            p2, S2 = _director(Ra, Ra1, TA, j, frame, 2)
            d = (d_all[j, 0], d_all[j, 1], d_all[j, 2])
            b = _projection_stiffness(vals, b, p1, S1, d, lam[r_])
            b = _projection_stiffness(vals, b, p2, S2, d, lam[r_ + 1])
            if cbj:
                q = _rot(Rb, j, cb[j, 0], cb[j, 1], cb[j, 2])
                Sq = _hat_times(_rot(Rb1, j, cb[j, 0], cb[j, 1], cb[j, 2]), TB)
                b = _dot_stiffness(vals, b, p1, q, S1, Sq, lam[r_])
                b = _dot_stiffness(vals, b, p2, q, S2, Sq, lam[r_ + 1])
            r_ += 2
        n = n_pairs(code)
        if n == 0:
            continue
        q, Sq = _director(Rb, Rb1, TB, j, frame, _pair(code, 0)[1])  # shared by the pairs up to prismatic's last
        for k in range(n):
            ia, ib = _pair(code, k)
            if k == 2:  # prismatic's (R_a t1)·(R_b t2)
                q, Sq = _director(Rb, Rb1, TB, j, frame, ib)
            p, Sp = _director(Ra, Ra1, TA, j, frame, ia)
            b = _dot_stiffness(vals, b, p, q, Sp, Sq, lam[r_ + k])


@jit(internal=True)
def _director(R, R1, T, j, frame, k):
    """(p̄, [p_1]× T) of the director of frame vector k (p̄ = R[j] v0 averaged, p_1 = R1[j] v0
    at the step end, T (9-tuple) the Cayley spin map of its node)."""
    x0, x1, x2 = frame[j, k, 0], frame[j, k, 1], frame[j, k, 2]
    return _rot(R, j, x0, x1, x2), _hat_times(_rot(R1, j, x0, x1, x2), T)


@jit(inline="always")
def _projection_stiffness(vals, b, p, S, d, w):
    """The five blocks ((u_b, ψ_a), (u_a, ψ_a), (ψ_a, ψ_a), (ψ_a, u_b), (ψ_a, u_a)) of the
    discrete stiffness of a projection w p·d (p̄ = p, S = [p_1]× T_a, d̄ = d) from block ``b``
    on; returns the next block."""
    _store(vals, b, S, -0.5 * w)
    _store(vals, b + 1, S, 0.5 * w)
    _store(vals, b + 2, _hat_times(d, S), 0.5 * w)
    _store_hat(vals, b + 3, p, 0.5 * w)
    _store_hat(vals, b + 4, p, -0.5 * w)
    return b + 5


@jit(inline="always")
def _dot_stiffness(vals, b, pbar, qbar, Sp1, Sq1, w):
    """The four blocks (ψ_a ψ_a, ψ_a ψ_b, ψ_b ψ_b, ψ_b ψ_a) of the discrete stiffness of a
    product w p·q (averaged directors p̄, q̄ (3-tuples); Sp1 = [p_1]× T_a, Sq1 = [q_1]× T_b
    (9-tuples)) from block ``b`` on; returns the next block."""
    H = _hat_times(qbar, Sp1)
    _store(vals, b, H, 0.5 * w)
    _store(vals, b + 3, H, -0.5 * w)
    H = _hat_times(pbar, Sq1)
    _store(vals, b + 1, H, -0.5 * w)
    _store(vals, b + 2, H, 0.5 * w)
    return b + 4
