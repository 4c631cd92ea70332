"""Dense-block constraint algebra of the Newton loops against the sparse forms it replaces.

The time-step systems take the joint Jacobians and curvatures as dense blocks over the
jointed variables (ConstraintSet.*_block, femb.solvers.linalg.nullspace.ColumnBlock/SquareBlock)
and, for small systems, the reduced matrix N̄ᵀKN dense. These must equal the sparse
matrices (CSR from the same triplets, N̄ᵀKN by sparse products) to round-off, and give the
same coordinate partition.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from femb.assembly.joints import ConstraintSet
from femb.core.rotations import exp_batch
from femb.correlation import build_table
from femb.mesh import Mesh
from femb.model import Model
from femb.solvers.linalg.nullspace import ColumnBlock, NullSpace, SquareBlock

AXIS = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])


def two_bodies_3d(kind):
    mesh = Mesh(np.array([[0.0, 0.0, 0.0], [0.4, 0.3, -0.2]]), {}, {"a": [0], "b": [1]})
    model = Model(mesh, dim=3)
    model.add_discrete("body a", "rigid_body3d", "a", m=2.0, Jxx=0.1, Jyy=0.3, Jzz=0.35)
    model.add_discrete("body b", "rigid_body3d", "b", m=1.0, Jxx=0.2, Jyy=0.1, Jzz=0.15)
    model.joint3d(kind, "a", "b", axis=AXIS, name=kind)
    return model


def planar_mechanism():
    """Rigid rod (rigid_body2d) on two body points, a slider on a line and a distance link:
    the translational kinds and the planar evaluators together."""
    pts = np.array([[0.1, 0.0], [0.25, 0.05], [0.4, 0.0], [0.7, 0.2]])
    model = Model(Mesh(pts, {}, {"pin": [0], "rod": [1], "slider": [2], "free": [3]}))
    for name in ("pin", "slider", "free"):
        model.add_discrete(f"{name} mass", "point_mass2d_translational", name, m=0.1)
    model.add_discrete("rod body", "rigid_body2d", "rod", m=0.5, J=0.01)
    model.body_point("rod", "pin", name="crank pin")
    model.body_point("rod", "slider", name="wrist pin")
    model.on_line("slider", point=(0.4, 0.0), direction=(1.0, 0.2), name="guide")
    model.distance("free", "slider", name="link")
    return model


def rotations(rng, n):
    w = rng.normal(size=(n, 3))
    R = np.empty((n, 3, 3))
    exp_batch(w, R)
    return R


def dense_of(cs, block):
    """(m, n_var) array of a dense block over cs.variables."""
    out = np.zeros((block.shape[0], cs.table.n_var))
    out[:, cs.variables] = block
    return out


@pytest.mark.parametrize("kind", ["revolute", "prismatic", "universal"])
def test_3d_joint_blocks_equal_the_sparse_jacobians_and_curvatures(kind):
    model = two_bodies_3d(kind)
    table = build_table(model)
    cs = ConstraintSet(model, table)
    rng = np.random.default_rng(5)
    for _ in range(3):
        u0, u1 = rng.normal(scale=0.3, size=table.n_var), rng.normal(scale=0.3, size=table.n_var)
        R0, R1 = rotations(rng, 2), rotations(rng, 2)
        lam = rng.normal(size=cs.m)
        phi, G = cs.evaluate(u1, 0.0, rotations=R1)
        phi_b, Gb = cs.evaluate_block(u1, 0.0, rotations=R1)
        H = cs.hessian_term(lam).toarray()
        Hb = cs.hessian_block(lam)
        Gbar = cs.midpoint_jacobian(u0, u1, rotations=(R0, R1)).toarray()
        Gbar_b = cs.midpoint_jacobian_block(u0, u1, rotations=(R0, R1))
        S = cs.midpoint_stiffness(lam).toarray()
        S_b = cs.midpoint_stiffness_block(lam)
        v = cs.variables
        assert np.array_equal(phi, phi_b)
        assert np.abs(G.toarray() - dense_of(cs, Gb)).max() <= 1e-15
        assert np.abs(Gbar - dense_of(cs, Gbar_b)).max() <= 1e-15
        assert np.abs(H[np.ix_(v, v)] - Hb).max() <= 1e-14 * max(1.0, np.abs(H).max())
        assert np.abs(S[np.ix_(v, v)] - S_b).max() <= 1e-14 * max(1.0, np.abs(S).max())
        # nothing outside the block
        mask = np.ones(table.n_var, dtype=bool)
        mask[v] = False
        assert not G.toarray()[:, mask].any() and not H[mask].any() and not S[:, mask].any()


def test_planar_joint_blocks_equal_the_sparse_jacobians_and_curvatures():
    model = planar_mechanism()
    table = build_table(model)
    cs = ConstraintSet(model, table)
    rng = np.random.default_rng(2)
    for _ in range(3):
        u0, u1 = rng.normal(scale=0.1, size=table.n_var), rng.normal(scale=0.1, size=table.n_var)
        lam = rng.normal(size=cs.m)
        phi, G = cs.evaluate(u1, 0.3)
        phi_b, Gb = cs.evaluate_block(u1, 0.3)
        H = cs.hessian_term(lam).toarray()
        Hb = cs.hessian_block(lam)
        v = cs.variables
        assert np.array_equal(phi, phi_b)
        assert np.abs(G.toarray() - dense_of(cs, Gb)).max() <= 1e-15
        assert np.abs(H[np.ix_(v, v)] - Hb).max() <= 1e-15
        Gbar = cs.midpoint_jacobian(u0, u1).toarray()
        assert np.abs(Gbar - dense_of(cs, cs.midpoint_jacobian_block(u0, u1))).max() <= 1e-15
        S = cs.midpoint_stiffness(lam).toarray()
        assert np.abs(S[np.ix_(v, v)] - cs.midpoint_stiffness_block(lam)).max() <= 1e-15


def test_block_null_space_equals_the_sparse_one():
    """Same dependent coordinates, N̄ᵀr, Nδy, N̄ᵀKN (dense and sparse K) and multipliers for
    ColumnBlock and CSR inputs; the joint curvature added on K's pattern equals K + S."""
    rng = np.random.default_rng(11)
    n, m = 60, 5
    cols = np.array([2, 3, 9, 17, 18, 19, 40, 59])
    A, Ab = rng.normal(size=(m, cols.size)), rng.normal(size=(m, cols.size))
    G, Gbar = ColumnBlock(A, cols, n), ColumnBlock(Ab, cols, n)
    K = (sp.random(n, n, density=0.08, random_state=4, format="csr") + 4.0 * sp.eye(n)).tocsr()
    K.sum_duplicates()
    r, y = rng.normal(size=n), rng.normal(size=n - m)
    block, sparse = NullSpace(G, Gbar), NullSpace(G.tocsr(), Gbar.tocsr())
    assert np.array_equal(block.dep, sparse.dep) and np.array_equal(block.ind, sparse.ind)
    Nd, Nbd = block.N.toarray(), block.Nbar.toarray()
    assert np.abs(G.toarray() @ Nd).max() <= 1e-12 and np.abs(Gbar.toarray() @ Nbd).max() <= 1e-12
    assert np.allclose(block.project(r), Nbd.T @ r, rtol=0, atol=1e-13)
    assert np.allclose(block.expand(y), Nd @ y, rtol=0, atol=1e-13)
    ref = Nbd.T @ K.toarray() @ Nd
    assert np.all(np.asarray(np.abs(ref).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(block.reduced_matrix(K.toarray()) - ref).max() <= 1e-12 * np.abs(ref).max()
    assert np.all(np.asarray(np.abs(ref).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(block.reduced_matrix(K).toarray() - ref).max() <= 1e-12 * np.abs(ref).max()
    dq = rng.normal(size=n)
    assert np.allclose(block.multipliers(K.toarray(), r, dq), sparse.multipliers(K, r, dq), rtol=1e-12, atol=1e-12)
    for c in (cols[:3], np.array([0, n - 1])):  # in and (partly) outside K's pattern
        S = SquareBlock(rng.normal(size=(c.size, c.size)), c, n)
        assert np.abs((K + S).toarray() - (K.toarray() + S.toarray())).max() == 0.0
        assert np.abs((K.toarray() + S) - (K.toarray() + S.toarray())).max() == 0.0
    lam = rng.normal(size=m)
    assert np.array_equal(Gbar.T @ lam, Gbar.toarray().T @ lam) and np.allclose(G @ r, G.toarray() @ r, rtol=0, atol=1e-14)


def test_3d_step_constraints_equal_the_sparse_chain_rule(monkeypatch):
    """MidPoint3DSystem.constraints (dense blocks, chain rule T(ψ) applied per node) equals
    the sparse form G·T over the free equations (``_spin_map``) and Ḡ of
    ``joint_discrete_jacobian``, at the predictor and at random increments."""
    import femb.solvers.nonlinear.step_newton as step_newton
    from femb.solvers import solve_dynamic

    model = two_bodies_3d("revolute")
    model.gravity((0.0, 0.0, -9.81))
    model.initial_velocity("b", ux=0.3, rx=0.5, rz=-0.4)
    systems = []
    original = step_newton.projected_newton

    def capture(evaluate, system, x, *args, **kwargs):
        systems.append((system, x))
        return original(evaluate, system, x, *args, **kwargs)

    monkeypatch.setattr(step_newton, "projected_newton", capture)
    from femb.solvers.dynamics.driver import DynamicSettings

    solve_dynamic(model, 0.05, 0.1, DynamicSettings(compiled_step=False))  # the general step system
    system, z0 = systems[-1]
    p, ev = system.p, system.eq_var
    rng = np.random.default_rng(3)
    for z in (z0, z0 + rng.normal(scale=0.2, size=z0.size)):
        phi, G, Gbar = system.constraints(z)
        psi, R1 = system.rotations(z)
        u1 = system.s.u + z
        phi_ref, G_ref = p.joint_state(u1, system.t1, rotations=R1)
        G_ref = (G_ref @ system._spin_map(psi)).toarray()[:, ev]
        Gbar_ref = p.joint_discrete_jacobian(system.s.u, u1, rotations=(system.R0, R1)).toarray()[:, ev]
        assert np.array_equal(phi, phi_ref)
        assert np.abs(G.toarray() - G_ref).max() <= 1e-15
        assert np.abs(Gbar.toarray() - Gbar_ref).max() <= 1e-15
