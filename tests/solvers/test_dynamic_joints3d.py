"""3-D joints (spherical, revolute, universal, cylindrical, prismatic) in the energy-momentum
mid-point dynamics of oriented models (rigid_body3d, beam3d).

The step eliminates the multipliers by the null-space projection with the exact discrete
Jacobian Ḡ of the joints (averaged directors and positions, per unit Cayley vector), so:
the reactions do no work and the energy is exact at any step size, the joints hold at
position level at the end of every step (no drift), and angular momentum about an axis the
reactions cannot load is conserved. A planar pendulum built in 3-D on a revolute joint is
the 2-D pendulum on a pin, and a prismatic joint gives the closed-form sliding motion.
"""
import numpy as np
import pytest

from femb.assembly.joints import ConstraintSet
from femb.assembly.joints import joint_frame
from femb.core.rotations import exp_batch
from femb.correlation import build_table
from femb.mesh import Mesh, line_mesh
from femb.model import Model
from femb.solvers import solve_dynamic
from femb.solvers.dynamics.driver import DynamicSettings
from femb.core.rotations import cayley_batch

AXIS = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
KINDS = ["spherical", "revolute", "universal", "cylindrical", "prismatic"]
BODY = dict(m=2.0, Jxx=0.1, Jyy=0.3, Jzz=0.35, Jxy=0.02)


def expm(w):
    out = np.empty((1, 3, 3))
    exp_batch(np.asarray(w, dtype=np.float64)[None, :], out)
    return out[0]


def energy_error(res):
    """max |E − E0 − W| relative to the largest kinetic energy (the solver's residual)."""
    return np.abs(res.series("energy_residual")).max() / res.series("kinetic_energy").max()


def two_bodies(kind):
    """Two rigid bodies at nodes a = (0, 0, 0) and b = (0.4, 0.3, −0.2), joined by ``kind``."""
    mesh = Mesh(np.array([[0.0, 0.0, 0.0], [0.4, 0.3, -0.2]]), {}, {"a": [0], "b": [1]})
    model = Model(mesh, dim=3)
    model.add_discrete("body a", "rigid_body3d", "a", **BODY)
    model.add_discrete("body b", "rigid_body3d", "b", m=1.0, Jxx=0.2, Jyy=0.1, Jzz=0.15)
    model.joint3d(kind, "a", "b", axis=AXIS, name=kind)
    return model


@pytest.mark.parametrize("kind", KINDS)
def test_discrete_jacobian_is_an_exact_derivative_at_large_increments(kind):
    """Ḡ·(Δx, ψ) = Φ(x1, R1) − Φ(x0, R0) to round-off for random states and rotation
    increments of 1.5-2.5 rad (R1 = cay(ψ) R0); the Jacobian at the mid rotation is not
    (error of order |ψ|³: the negative control)."""
    model = two_bodies(kind)
    table = build_table(model)
    cs = ConstraintSet(model, table)
    rng = np.random.default_rng(7)
    rot = [[table.var_of(n, d) for d in ("rx", "ry", "rz")] for n in (0, 1)]
    worst, control = 0.0, 0.0
    for _ in range(5):
        R0 = np.stack([expm(rng.normal(size=3)) for _ in range(2)])
        psi = rng.normal(size=(2, 3))
        psi *= (2.0 * np.tan(0.5 * rng.uniform(1.5, 2.5, size=2)) / np.linalg.norm(psi, axis=1))[:, None]
        R1 = cayley_batch(psi) @ R0
        u0, u1 = rng.normal(scale=0.5, size=table.n_var), np.zeros(table.n_var)
        u1[:] = u0 + rng.normal(scale=0.5, size=table.n_var)
        z = u1 - u0
        for n in (0, 1):
            z[rot[n]] = psi[n]
        phi0 = cs.evaluate(u0, rotations=R0, jacobian=False)
        phi1 = cs.evaluate(u1, rotations=R1, jacobian=False)
        Gbar = cs.midpoint_jacobian(u0, u1, rotations=(R0, R1))
        worst = max(worst, np.abs(Gbar @ z - (phi1 - phi0)).max() / np.abs(phi1 - phi0).max())
        # mid rotation cay(ψ/2)-like geodesic mean, spin columns: not exact
        Rm = np.stack([expm(0.5 * np.array(_log(R1[n] @ R0[n].T))) @ R0[n] for n in (0, 1)])
        Gm = cs.evaluate(0.5 * (u0 + u1), rotations=Rm)[1]
        zm = z.copy()
        for n in (0, 1):
            zm[rot[n]] = _log(R1[n] @ R0[n].T)
        control = max(control, np.abs(Gm @ zm - (phi1 - phi0)).max() / np.abs(phi1 - phi0).max())
    assert worst <= 1e-13, worst
    assert control > 1e-3, control


@pytest.mark.parametrize("kind", KINDS)
def test_newton_matrix_of_the_joint_forces_is_their_exact_derivative(kind):
    """ConstraintSet.midpoint_stiffness = ∂(Ḡᵀλ)/∂(Δx, ψ) at fixed λ (central differences,
    step 1e-6, at a random state with rotation increments of about 1 rad)."""
    model = two_bodies(kind)
    table = build_table(model)
    cs = ConstraintSet(model, table)
    rng = np.random.default_rng(3)
    rot = np.array([[table.var_of(n, d) for d in ("rx", "ry", "rz")] for n in (0, 1)])
    R0 = np.stack([expm(rng.normal(size=3)) for _ in range(2)])
    u0, z, lam = rng.normal(scale=0.3, size=table.n_var), rng.normal(scale=0.5, size=table.n_var), rng.normal(size=cs.m)

    def force(z):
        return cs.midpoint_jacobian(u0, u0 + z, rotations=(R0, cayley_batch(z[rot]) @ R0)).T @ lam

    force(z)
    K = cs.midpoint_stiffness(lam).toarray()
    e = 1e-6
    fd = np.column_stack([(force(z + e * col) - force(z - e * col)) / (2 * e) for col in np.eye(table.n_var)])
    assert np.all(np.asarray(np.abs(fd).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(K - fd).max() <= 1e-8 * np.abs(fd).max()
    assert np.abs(fd).max() > 0.1


def _log(R):
    from femb.core.rotations import log_batch
    out = np.empty((1, 3))
    log_batch(np.ascontiguousarray(R[None]), out)
    return out[0]


def pendulum(kind, axis=AXIS, gravity=(0.0, 0.0, -9.81), **velocity):
    """A rigid body (centre at (1, 0, 0.2)) on a joint of ``kind`` to ground at the origin."""
    mesh = Mesh(np.array([[1.0, 0.0, 0.2]]), {}, {"c": [0]})
    model = Model(mesh, dim=3, name=f"{kind} pendulum")
    model.add_discrete("body", "rigid_body3d", "c", **BODY)
    model.joint3d(kind, "c", None, axis=axis, point=(0.0, 0.0, 0.0), name="pivot")
    model.gravity(gravity)
    model.initial_velocity("c", **velocity)
    return model


def test_rigid_pendulum_on_a_skew_revolute_joint_has_exact_energy_and_no_drift():
    """Compound pendulum on a revolute joint with a skew axis, swinging over the top
    (200 steps of Δt = 0.1 s, up to 30° per step): energy to 1e-9, |Φ| to 1e-10, and the
    body turns only about the joint axis (R n0 = n0)."""
    n0 = joint_frame(AXIS)[0]
    res = solve_dynamic(pendulum("revolute", uz=-3.0, ux=1.0, rx=0.5), 0.1, 20.0)
    assert energy_error(res) <= 1e-9
    assert res.series("constraint_residual").max() <= 1e-10
    R = np.asarray(res.arrays["rotations"])[:, 0]
    assert np.abs(R @ n0 - n0).max() <= 1e-10
    turn = np.unwrap(np.arctan2(np.einsum("i,kij,j->k", np.cross(n0, [1.0, 0, 0]), R, [1.0, 0, 0]),
                                np.einsum("i,kij,j->k", [1.0, 0, 0], R, [1.0, 0, 0])))
    assert np.ptp(turn) > 2.0  # a large swing
    assert res.info["newton_iterations"] / res.info["steps"] <= 8


def test_spherical_pendulum_keeps_energy_and_vertical_angular_momentum():
    """Rigid body on a spherical joint under vertical gravity, thrown sideways and spinning:
    neither gravity nor the pivot reaction has a moment about the vertical through the pivot,
    so L_z (about the origin) is conserved; 150 steps of Δt = 0.08 s."""
    res = solve_dynamic(pendulum("spherical", uy=2.5, rx=1.0, rz=-0.7), 0.08, 12.0)
    Lz = res.series("angular_momentum_z")
    assert np.abs(Lz - Lz[0]).max() <= 1e-10 * max(abs(Lz[0]), 1.0)
    assert abs(Lz[0]) > 1.0
    assert energy_error(res) <= 1e-9
    assert res.series("constraint_residual").max() <= 1e-10
    # it really swings: the height of the body changes by more than 0.5 m
    z = 0.2 + res.dof(0, "uz")
    assert np.ptp(z) > 0.5


def test_body_on_a_prismatic_joint_slides_in_closed_form_and_carries_the_cross_load():
    """A body on a prismatic joint along a skew axis under gravity slides with the constant
    acceleration g·n0 (the mid-point rule is exact for it): s(t) = v0 t + ½ (g·n0) t² to
    1e-10, no rotation although spun initially (the spin is projected out), and the joint
    reaction balances the gravity component across the axis."""
    g = np.array([0.0, 0.0, -9.81])
    n0, t1, t2 = joint_frame(AXIS)
    v0 = 0.7
    vel = dict(zip(("ux", "uy", "uz"), v0 * n0 + 0.3 * t1))
    model = pendulum("prismatic", gravity=g, rx=0.4, ry=-0.2, **vel)
    res = solve_dynamic(model, 0.1, 3.0)
    t = np.asarray(res.times)
    x = np.column_stack([res.dof(0, d) for d in ("ux", "uy", "uz")])
    s_exact = v0 * t + 0.5 * (g @ n0) * t**2
    assert np.abs(x @ n0 - s_exact).max() <= 1e-10
    assert np.abs(x - np.outer(x @ n0, n0)).max() <= 1e-10
    R = np.asarray(res.arrays["rotations"])[:, 0]
    assert np.abs(R - np.eye(3)).max() <= 1e-10
    # rows: t1·r, t2·r, then three rotation rows; the force on the body is Σ t_k λ_k
    lam = np.asarray(res.arrays["multipliers"])[1:]
    force = np.outer(lam[:, 0], t1) + np.outer(lam[:, 1], t2)
    g_perp = g - (g @ n0) * n0
    assert np.all(np.asarray(BODY["m"] * 9.81) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(force + BODY["m"] * g_perp).max() <= 1e-9 * BODY["m"] * 9.81


def planar(dim):
    """A rigid body at (1, 0) swinging under gravity −y about a pin at the origin: 2-D
    (rigid_body2d + body_point) or 3-D (rigid_body3d + revolute joint about z)."""
    if dim == 2:
        model = Model(Mesh(np.array([[1.0, 0.0]]), {}, {"c": [0]}), name="2-D pendulum")
        model.add_discrete("body", "rigid_body2d", "c", m=BODY["m"], J=BODY["Jzz"])
        model.body_point("c", None, point=(0.0, 0.0), name="pin")
        model.gravity((0.0, -9.81))
        model.initial_velocity("c", uy=2.0, rz=2.0)
    else:
        model = Model(Mesh(np.array([[1.0, 0.0, 0.0]]), {}, {"c": [0]}), dim=3, name="3-D pendulum")
        model.add_discrete("body", "rigid_body3d", "c", **BODY)
        model.joint3d("revolute", "c", None, axis=(0.0, 0.0, 1.0), point=(0.0, 0.0, 0.0), name="pin")
        model.gravity((0.0, -9.81, 0.0))
        model.initial_velocity("c", uy=2.0, rz=2.0)
    return model


def test_planar_pendulum_built_in_3d_is_the_2d_pendulum_on_a_pin():
    """Same pendulum, same steps (Δt = 0.05 s, a swing of ±100°): the revolute joint's
    Cayley-vector Ḡ and the 2-D body_point's sinc-corrected Ḡ are the same discrete
    derivative, so the two runs agree to the Newton tolerance, far below the
    discretization error (measured here against Δt/4 over the first 2 s: > 1e-3)."""
    r2 = solve_dynamic(planar(2), 0.05, 4.0)
    r3 = solve_dynamic(planar(3), 0.05, 4.0)
    x2 = np.column_stack([r2.dof(0, "ux"), r2.dof(0, "uy")])
    x3 = np.column_stack([r3.dof(0, "ux"), r3.dof(0, "uy")])
    assert np.abs(r3.dof(0, "uz")).max() <= 1e-12
    assert np.ptp(r2.dof(0, "rz")) > 3.0
    assert np.abs(x3 - x2).max() <= 1e-9
    dth = r3.dof(0, "rz") - r2.dof(0, "rz")  # 3-D: log R, wrapped to (−π, π]
    assert np.abs(np.angle(np.exp(1j * dth))).max() <= 1e-9
    fine = solve_dynamic(planar(2), 0.05 / 4, 2.0, record_every=4)
    xf = np.column_stack([fine.dof(0, "ux"), fine.dof(0, "uy")])
    assert np.abs(xf - x2[: len(xf)]).max() > 1e-3  # the discretization error the agreement is far below
    assert energy_error(r3) <= 1e-10


def test_flexible_beam_hinged_to_ground_carries_a_body_on_a_cylindrical_joint():
    """A beam3d pendulum on a revolute joint to ground, with a rigid body on a cylindrical
    joint at its tip (free to slide along and spin about the tip axis) and a second body on
    a universal joint: exact energy and no drift over 150 steps of Δt = 0.02 s."""
    line = line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 4, "b")
    n = line.points.shape[0]
    mesh = Mesh(np.vstack([line.points, [[1.0, 0.0, 0.0], [1.2, 0.1, 0.0]]]), line.cells,
                {**line.node_sets, "slider": [n], "bob": [n + 1]})
    model = Model(mesh, dim=3, name="beam chain")
    model.add_part("b", "beam3d", "b", values={"EA": 1e4, "GJ": 8.0, "EIy": 10.0, "EIz": 12.0, "rhoA": 1.0,
                                                "rhoIp": 0.02, "rhoIy": 0.01, "rhoIz": 0.012})
    model.add_discrete("slider", "rigid_body3d", "slider", m=0.5, Jxx=0.01, Jyy=0.02, Jzz=0.02)
    model.add_discrete("bob", "rigid_body3d", "bob", m=0.3, Jxx=0.01, Jyy=0.01, Jzz=0.01)
    model.joint3d("revolute", "b_start", None, axis=(0.0, 1.0, 0.2), name="hinge")
    model.joint3d("cylindrical", "b_end", "slider", axis=(1.0, 0.0, 0.0), name="sleeve")
    model.joint3d("universal", "slider", "bob", axis=(0.0, 0.0, 1.0), name="cross")
    model.gravity((0.0, 0.0, -9.81))
    model.initial_velocity("slider", rx=3.0)
    res = solve_dynamic(model, 0.02, 3.0)
    assert energy_error(res) <= 1e-9
    assert res.series("constraint_residual").max() <= 1e-10
    tip = int(model.nodes("b_end")[0])
    assert np.ptp(res.dof(tip, "uz")) > 0.3


def test_joint_on_a_driven_hub_books_the_drive_work_exactly():
    """A hub whose rotation about z is prescribed carries a body on a revolute joint (its
    spin about the arm is free, its position is carried by the hub): the joint reactions
    act on the driven node, and the energy balance closes with the solver's constraint
    work, which includes them (Ḡ_pᵀλ·Δq_p)."""
    mesh = Mesh(np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]), {}, {"hub": [0], "body": [1]})
    model = Model(mesh, dim=3, name="driven hub")
    model.add_discrete("hub", "rigid_body3d", "hub", m=1.0, Jxx=0.1, Jyy=0.1, Jzz=0.1)
    model.add_discrete("body", "rigid_body3d", "body", m=2.0, Jxx=0.3, Jyy=0.1, Jzz=0.2, Jxy=0.05)
    model.joint3d("revolute", "hub", "body", axis=(1.0, 0.0, 0.0), name="arm")
    model.fix("hub", ("ux", "uy", "uz", "rx", "ry"))
    model.prescribe("hub", "rz", function=lambda t: 0.8 * t * t)
    model.gravity((0.0, 0.0, -9.81))
    model.initial_velocity("body", rx=1.0)
    res = solve_dynamic(model, 0.02, 2.0)
    W = res.series("constraint_work")
    assert W[-1] > 10.0  # the drive spins the body up: ½ m (2·0.8·t·1)² ≈ 10 J at t = 2 s
    assert np.all(np.asarray(np.abs(res.series("total_energy")).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(res.series("energy_residual")).max() <= 1e-9 * np.abs(res.series("total_energy")).max()
    assert res.series("constraint_residual").max() <= 1e-10


@pytest.mark.parametrize("inner", ["universal", "revolute", "cylindrical"])
def test_chain_on_a_spherical_pivot_keeps_its_angular_momentum_vector(inner):
    """Two tumbling bodies without gravity, the first on a spherical joint to ground at the
    origin, the second joined to it by an internal joint: no reaction has a moment about
    the pivot, and the discrete joint forces are self-equilibrated (Ḡ annihilates the
    discrete rigid rotation, since the averaged equations are rotation-invariant), so the
    whole angular momentum vector about the origin is conserved to 1e-10 with the energy,
    over 100 steps of Δt = 0.05 s."""
    mesh = Mesh(np.array([[0.5, 0.2, 0.0], [0.9, 0.5, -0.2]]), {}, {"a": [0], "b": [1]})
    model = Model(mesh, dim=3, name="spherical chain")
    model.add_discrete("body a", "rigid_body3d", "a", **BODY)
    model.add_discrete("body b", "rigid_body3d", "b", m=1.0, Jxx=0.2, Jyy=0.1, Jzz=0.15, Jxz=0.03)
    model.joint3d("spherical", "a", None, point=(0.0, 0.0, 0.0), name="pivot")
    model.joint3d(inner, "a", "b", axis=AXIS, name="inner")
    model.initial_velocity("a", uz=1.0, rx=2.0)
    model.initial_velocity("b", uy=-1.0, rz=3.0, ry=1.0)
    res = solve_dynamic(model, 0.05, 5.0)
    L = np.column_stack([res.series(f"angular_momentum_{c}") for c in "xyz"])
    assert np.linalg.norm(L[0]) > 0.5
    assert np.all(np.asarray(np.linalg.norm(L[0])) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(L - L[0]).max() <= 1e-10 * np.linalg.norm(L[0])
    assert energy_error(res) <= 1e-9
    assert res.series("constraint_residual").max() <= 1e-10


def test_dense_and_sparse_newton_paths_agree_on_a_jointed_chain(monkeypatch):
    """The step Newton loop handles small constrained systems dense (LAPACK on the reduced
    matrix) and large ones sparse (femb.solvers.nonlinear.newton.DENSE_LIMIT): both give the
    same motion to round-off on a chain of every 3-D joint kind, with offset attachment
    points (terms carried by both bodies), over 40 steps; and the energy stays exact."""
    import femb.solvers.nonlinear.newton as newton

    pts = np.array([[0.0, 0.0, 0.0], [0.4, 0.3, -0.2], [0.9, 0.1, 0.3], [1.2, -0.4, 0.1], [1.5, 0.2, 0.6], [2.0, 0.0, 0.0]])

    def build():
        model = Model(Mesh(pts, {}, {str(i): [i] for i in range(len(pts))}), dim=3, name="mixed chain")
        for i in range(len(pts)):
            model.add_discrete(f"body {i}", "rigid_body3d", str(i), m=1.0 + 0.1 * i, Jxx=0.1, Jyy=0.2, Jzz=0.25, Jxy=0.01)
        model.joint3d("spherical", "0", None, point=(-0.1, 0.0, 0.05), name="ground ball")
        for i, kind in enumerate(KINDS):
            model.joint3d(kind, str(i), str(i + 1), axis=AXIS, point=(0.1, -0.05, 0.02), frame="a", name=f"{kind} {i}")
        model.gravity((0.0, 0.0, -9.81))
        model.initial_velocity("0", rx=0.5, uy=0.1)
        return model

    general = DynamicSettings(compiled_step=False)  # the general Newton loop (not the compiled rigid step)
    dense = solve_dynamic(build(), 0.02, 0.8, general)
    monkeypatch.setattr(newton, "DENSE_LIMIT", 0)
    sparse = solve_dynamic(build(), 0.02, 0.8, general)
    assert dense.info["steps"] == sparse.info["steps"] == 40
    scale = np.abs(dense.final).max()
    assert scale > 0.05  # the chain moves
    assert np.abs(dense.final - sparse.final).max() <= 1e-9 * scale
    assert np.abs(dense.nodal_rotation_matrices(-1) - sparse.nodal_rotation_matrices(-1)).max() <= 1e-9
    for res in (dense, sparse):
        assert energy_error(res) <= 1e-9
        assert res.series("constraint_residual").max() <= 1e-10
