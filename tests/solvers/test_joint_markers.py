"""3-D joints at body-fixed attachment points (markers): a joint between two oriented nodes
sits at a point P fixed in both bodies (x_a + R_a c_a = x_b + R_b c_b, c = P − X), not at
a node. Checked here: the equations' Jacobian and curvature against finite differences at
rotated states, the exact discrete Jacobian of the mid-point scheme at 1.5–2.5 rad rotation
increments and its exact Newton matrix; a double pendulum of two rigid rods jointed at their
ends against the planar double pendulum's equations integrated by scipy's solve_ivp
(second-order convergence with the step); energy and angular momentum about the vertical of
a spatial double pendulum; a spatial four-bar and an over-constrained loop keeping every
joint; statics and modal analysis of a rod hung at its end (closed forms).
"""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from femb.assembly.joints import ConstraintSet
from femb.core.rotations import cayley_batch
from femb.correlation import build_table
from femb.mesh import CellBlock, Mesh
from femb.model import Material, Model, Section
from femb.solvers import solve_dynamic, solve_modal, solve_static
from tests.solvers.test_joints3d import expm

KINDS = ["spherical", "revolute", "universal", "cylindrical", "prismatic"]
AXIS = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
G = 9.81


# ---------------------------------------------------------------- equations and their derivatives
def two_bodies(kind, ground=False):
    """Two rigid bodies at a = (0, 0, 0) and b = (0.4, 0.3, −0.2) joined by ``kind`` at the
    point P = (0.1, 0.5, 0.3), away from both nodes (``ground``: body a alone, jointed to
    ground at P given as an offset in a's frame)."""
    mesh = Mesh(np.array([[0.0, 0.0, 0.0], [0.4, 0.3, -0.2]]), {}, {"a": [0], "b": [1]})
    model = Model(mesh, dim=3)
    model.add_discrete("body a", "rigid_body3d", "a", m=2.0, Jxx=0.1, Jyy=0.3, Jzz=0.35, Jxy=0.02)
    model.add_discrete("body b", "rigid_body3d", "b", m=1.0, Jxx=0.2, Jyy=0.1, Jzz=0.15)
    axis = None if kind == "spherical" else AXIS
    second = np.cross(AXIS, [0.0, 0.0, 1.0]) if kind == "universal" else None
    if ground:
        model.joint3d(kind, "a", None, axis=axis, point=(0.1, 0.5, 0.3), frame="a", name=kind)
    else:
        model.joint3d(kind, "a", "b", axis=axis, point=(0.1, 0.5, 0.3), name=kind, second_axis=second)
    return model


def variables(table, nodes):
    """(translation variables, rotation variables) (n, 3) of ``nodes``."""
    return (np.array([[table.var_of(n, d) for d in ("ux", "uy", "uz")] for n in nodes]),
            np.array([[table.var_of(n, d) for d in ("rx", "ry", "rz")] for n in nodes]))


def perturbed(u, R, tvar, rvar, z):
    """State u + z on translations, rotations exp(ẑ_w) R on each node."""
    u = u.copy()
    for k in range(len(R)):
        u[tvar[k]] += z[tvar[k]]
    R = np.stack([expm(z[rvar[k]]) @ R[k] for k in range(len(R))])
    return u, R


@pytest.mark.parametrize("ground", [False, True])
@pytest.mark.parametrize("kind", KINDS)
def test_jacobian_and_curvature_are_the_derivatives_at_rotated_states(kind, ground):
    """At random states with large rotations: ∂Φ/∂(u, w) equals central differences
    (step 1e-6, perturbations R ← exp(ŵ) R) to 1e-8, and the curvature Σ λ ∇²Φ equals
    second central differences of λ·Φ (step 1e-4) to 1e-6 of its size."""
    model = two_bodies(kind, ground)
    table = build_table(model)
    cs = ConstraintSet(model, table)
    nodes = (0,) if ground else (0, 1)
    tvar, rvar = variables(table, nodes)
    rng = np.random.default_rng(11)
    for _ in range(3):
        R = np.stack([expm(rng.normal(scale=1.2, size=3)) for _ in nodes])
        u = rng.normal(scale=0.3, size=table.n_var)
        phi, Gm = cs.evaluate(u, rotations=R)
        lam = rng.normal(size=cs.m)
        H = cs.hessian_term(lam).toarray()
        z = rng.normal(size=table.n_var)
        e = 1e-6
        fd = (phi_at(cs, u, R, tvar, rvar, e * z) - phi_at(cs, u, R, tvar, rvar, -e * z)) / (2 * e)
        assert np.abs(Gm @ z - fd).max() <= 1e-8 * max(1.0, np.abs(fd).max())

        def g(dz):
            return lam @ phi_at(cs, u, R, tvar, rvar, dz)

        h = 1e-4
        used = np.concatenate([tvar.ravel(), rvar.ravel()])
        Hfd = np.zeros((table.n_var, table.n_var))
        eye = np.eye(table.n_var)
        for i in used:
            for j in used:
                Hfd[i, j] = (g(h * (eye[i] + eye[j])) - g(h * (eye[i] - eye[j])) - g(h * (eye[j] - eye[i]))
                             + g(-h * (eye[i] + eye[j]))) / (4 * h * h)
        assert np.abs(Hfd).max() > 0.1
        assert np.abs(H - Hfd).max() <= 1e-6 * np.abs(Hfd).max()


def phi_at(cs, u, R, tvar, rvar, dz):
    """Φ at the state ``u``, ``R`` moved by ``dz`` (translations added, rotations exp(ŵ) R)."""
    up, Rp = perturbed(u, R, tvar, rvar, dz)
    return cs.evaluate(up, rotations=Rp, jacobian=False)


@pytest.mark.parametrize("ground", [False, True])
@pytest.mark.parametrize("kind", KINDS)
def test_discrete_jacobian_is_exact_at_large_rotation_increments(kind, ground):
    """Ḡ·(Δx, ψ) = Φ(x1, R1) − Φ(x0, R0) to round-off (1e-13 relative) for random states and
    Cayley rotation increments of 1.5–2.5 rad per body; and its Newton matrix
    ∂(Ḡᵀλ)/∂(Δx, ψ) equals central differences (step 1e-6) to 1e-8."""
    model = two_bodies(kind, ground)
    table = build_table(model)
    cs = ConstraintSet(model, table)
    nodes = (0,) if ground else (0, 1)
    _, rvar = variables(table, nodes)
    rng = np.random.default_rng(5)
    worst = 0.0
    for _ in range(5):
        R0 = np.stack([expm(rng.normal(size=3)) for _ in nodes])
        psi = rng.normal(size=(len(nodes), 3))
        psi *= (2.0 * np.tan(0.5 * rng.uniform(1.5, 2.5, size=len(nodes))) / np.linalg.norm(psi, axis=1))[:, None]
        R1 = cayley_batch(psi) @ R0
        u0 = rng.normal(scale=0.5, size=table.n_var)
        u1 = u0 + rng.normal(scale=0.5, size=table.n_var)
        z = u1 - u0
        for k in range(len(nodes)):
            z[rvar[k]] = psi[k]
        d = cs.evaluate(u1, rotations=R1, jacobian=False) - cs.evaluate(u0, rotations=R0, jacobian=False)
        Gbar = cs.midpoint_jacobian(u0, u1, rotations=(R0, R1))
        worst = max(worst, np.abs(Gbar @ z - d).max() / np.abs(d).max())
    assert worst <= 1e-13, worst

    lam = rng.normal(size=cs.m)

    def force(z):
        return cs.midpoint_jacobian(u0, u0 + z, rotations=(R0, cayley_batch(z[rvar]) @ R0)).T @ lam

    force(z)
    K = cs.midpoint_stiffness(lam).toarray()
    e = 1e-6
    fd = np.column_stack([(force(z + e * col) - force(z - e * col)) / (2 * e) for col in np.eye(table.n_var)])
    assert np.abs(fd).max() > 0.01
    assert np.abs(K - fd).max() <= 1e-8 * np.abs(fd).max()


# ---------------------------------------------------------------- double pendulum of two rods
L1, L2, M1, M2 = 1.0, 0.7, 1.5, 1.0
TILT = expm([0.3, -0.2, 0.5])  # the whole mechanism turned: skew joint axes and gravity
TH0, DTH0 = (1.1, -0.4), (0.5, 2.0)


def rod_inertia(m, L, e, r=0.02):
    """Inertia tensor about the centre of a uniform rod of length L along unit e (radius r)."""
    return m * L**2 / 12.0 * (np.eye(3) - np.outer(e, e)) + 0.5 * m * r**2 * np.outer(e, e)


def rod_body(model, name, node, m, L, e):
    J = rod_inertia(m, L, e)
    model.add_discrete(name, "rigid_body3d", node, m=m, Jxx=J[0, 0], Jyy=J[1, 1], Jzz=J[2, 2], Jxy=J[0, 1], Jxz=J[0, 2],
                       Jyz=J[1, 2])


def direction(theta):
    """Unit vector of a rod at angle θ from the (tilted) downward vertical, in the (tilted) x–z plane."""
    return TILT @ np.array([np.sin(theta), 0.0, -np.cos(theta)])


def double_pendulum(pivot="revolute", elbow="revolute", theta=TH0, rates=DTH0, out_of_plane=0.0):
    """Two uniform rigid rods (rigid_body3d nodes at their centres): rod 1 hangs from ground
    at the origin by ``pivot``, rod 2 hangs from rod 1's lower end by ``elbow``, both joints
    at the rod ends (attachment points), axes normal to the plane of motion; gravity and
    axes turned by TILT. ``out_of_plane``: initial velocity of rod 2's centre normal to the
    plane (a spatial motion with spherical joints)."""
    e1, e2 = direction(theta[0]), direction(theta[1])
    axis = TILT @ np.array([0.0, 1.0, 0.0])
    c1, p1 = 0.5 * L1 * e1, L1 * e1
    c2 = p1 + 0.5 * L2 * e2
    model = Model(Mesh(np.array([c1, c2]), {}, {"rod 1": [0], "rod 2": [1]}), dim=3, name="double pendulum")
    rod_body(model, "rod 1", "rod 1", M1, L1, e1)
    rod_body(model, "rod 2", "rod 2", M2, L2, e2)
    model.joint3d(pivot, "rod 1", None, axis=None if pivot == "spherical" else axis, point=(0.0, 0.0, 0.0), name="pivot")
    model.joint3d(elbow, "rod 1", "rod 2", axis=None if elbow == "spherical" else axis, point=p1, name="elbow")
    model.gravity(TILT @ np.array([0.0, 0.0, -G]))
    w1, w2 = -rates[0] * axis, -rates[1] * axis  # θ grows from the vertical towards x: ω = −θ̇ ŷ
    w2 = w2 + out_of_plane / (0.5 * L2) * np.cross(e2, axis)  # rod 2's centre moves out of the plane
    v1 = np.cross(w1, c1)
    v2 = np.cross(w1, p1) + np.cross(w2, c2 - p1)
    for node, v, w in (("rod 1", v1, w1), ("rod 2", v2, w2)):
        model.initial_velocity(node, ux=v[0], uy=v[1], uz=v[2], rx=w[0], ry=w[1], rz=w[2])
    return model


def reference_angles(times):
    """θ1, θ2 of the planar double pendulum of two uniform rods (Lagrange's equations with
    M = [[(M1/3 + M2) L1², M2 L1 L2/2 cos(θ1 − θ2)], [·, M2 L2²/3]]), integrated by
    scipy's DOP853 to rtol = atol = 1e-12."""
    def rhs(_, y):
        t1, t2, w1, w2 = y
        s, c = np.sin(t1 - t2), np.cos(t1 - t2)
        M = np.array([[(M1 / 3 + M2) * L1**2, 0.5 * M2 * L1 * L2 * c], [0.5 * M2 * L1 * L2 * c, M2 * L2**2 / 3]])
        f = -np.array([0.5 * M2 * L1 * L2 * s * w2**2 + (0.5 * M1 + M2) * G * L1 * np.sin(t1),
                       -0.5 * M2 * L1 * L2 * s * w1**2 + 0.5 * M2 * G * L2 * np.sin(t2)])
        return np.concatenate([[w1, w2], np.linalg.solve(M, f)])

    sol = solve_ivp(rhs, (0.0, times[-1]), [*TH0, *DTH0], method="DOP853", rtol=1e-12, atol=1e-12, t_eval=times)
    return sol.y[:2].T


def femb_angles(res):
    """θ1, θ2 of the rods from their centres' positions (rod 1 from the pivot, rod 2 from rod 1's end)."""
    X = np.array([direction(TH0[0]) * 0.5 * L1, direction(TH0[0]) * L1 + 0.5 * L2 * direction(TH0[1])])
    x = [np.column_stack([X[n, k] + res.dof(n, d) for k, d in enumerate(("ux", "uy", "uz"))]) for n in (0, 1)]
    e1 = x[0] / (0.5 * L1)
    e2 = (x[1] - 2.0 * x[0]) / (0.5 * L2)
    local = [e @ TILT for e in (e1, e2)]  # components in the untilted frame
    return np.column_stack([np.arctan2(v[:, 0], -v[:, 2]) for v in local])


def energy_error(res):
    return np.abs(res.series("energy_residual")).max() / res.series("kinetic_energy").max()


@pytest.mark.parametrize("pivot, elbow", [("revolute", "revolute"), ("spherical", "spherical")])
def test_double_pendulum_of_rods_jointed_at_their_ends_converges_to_the_planar_solution(pivot, elbow):
    """Revolute (or spherical) joints at the rod ends, mechanism tilted in space: the angles
    over 2 s match solve_ivp's planar solution with an error falling at second order with
    the step (fitted rate 1.9–2.1 over Δt = 0.02, 0.01, 0.005); at each step energy to
    1e-10 of the largest kinetic energy and |Φ| ≤ 1e-10."""
    steps, errors = (0.02, 0.01, 0.005), []
    for dt in steps:
        res = solve_dynamic(double_pendulum(pivot, elbow), dt, 2.0)
        times = np.asarray(res.times)
        ref = reference_angles(times)
        errors.append(np.abs(np.unwrap(femb_angles(res), axis=0) - np.unwrap(ref, axis=0)).max())
        assert energy_error(res) <= 1e-10
        assert res.series("constraint_residual").max() <= 1e-10
    rate = np.polyfit(np.log(steps), np.log(errors), 1)[0]
    assert 1.9 <= rate <= 2.1, (errors, rate)
    assert errors[-1] <= 0.02


def test_spatial_double_pendulum_keeps_energy_and_angular_momentum_about_the_vertical():
    """Spherical joints at the rod ends and rod 2 thrown out of the plane (a spatial
    motion): neither gravity nor the pivot reaction has a moment about the vertical through
    the pivot, so that component of the angular momentum is conserved to 1e-10 with the
    energy, over 300 steps of Δt = 0.01 s; the rods leave the plane by more than 0.3 m."""
    model = double_pendulum("spherical", "spherical", out_of_plane=1.5)
    res = solve_dynamic(model, 0.01, 3.0)
    vertical = TILT @ np.array([0.0, 0.0, 1.0])
    L = np.column_stack([res.series(f"angular_momentum_{c}") for c in "xyz"])
    Lv = L @ vertical
    assert np.linalg.norm(L[0]) > 0.5
    assert np.abs(Lv - Lv[0]).max() <= 1e-10 * np.linalg.norm(L[0])
    assert energy_error(res) <= 1e-10
    assert res.series("constraint_residual").max() <= 1e-10
    normal = TILT @ np.array([0.0, 1.0, 0.0])
    X2 = model.mesh.points[1]
    off_plane = np.column_stack([X2[k] + res.dof(1, d) for k, d in enumerate(("ux", "uy", "uz"))]) @ normal
    assert np.ptp(off_plane) > 0.3


def all_joints_hold(model, res, tol=1e-10):
    """max |Φ| of every joint equation (dropped redundant ones included) over all frames."""
    cs = ConstraintSet(model, res.table)
    return max(np.abs(cs.evaluate(np.asarray(u), rotations=res.nodal_rotation_matrices(k), jacobian=False)).max()
               for k, u in enumerate(res.states))


def test_spatial_four_bar_with_a_flexible_rocker_keeps_every_joint():
    """An RSSR spatial four-bar falling under gravity: a rigid crank (revolute about z at
    its end A0, attachment point away from its centre node), a rigid coupler (spherical
    joints at both ends) and a flexible beam3d rocker (revolute about x to ground at B0,
    spherical to the coupler's end at its tip node: a body's point joined to a beam node).
    Over 150 steps of Δt = 0.01 s every joint holds to 1e-10, the energy to 1e-10 of the
    largest kinetic energy, and the crank turns by more than 0.3 rad."""
    A0, A, B0, B = (np.array(p, dtype=np.float64) for p in ([0, 0, 0], [0.3, 0, 0], [1.0, 0.8, 0.0], [1.0, 0.8, 0.5]))
    pts = np.vstack([0.5 * (A0 + A), 0.5 * (A + B), B0, 0.5 * (B0 + B), B])
    mesh = Mesh(pts, {"rocker": CellBlock("line", np.array([[2, 3], [3, 4]]))}, {"crank": [0], "coupler": [1]})
    model = Model(mesh, dim=3, name="RSSR four-bar")
    rod_body(model, "crank", "crank", 1.0, 0.3, (A - A0) / 0.3)
    rod_body(model, "coupler", "coupler", 0.8, np.linalg.norm(B - A), (B - A) / np.linalg.norm(B - A))
    model.add_part("rocker", "beam3d", "rocker", Material(E=2.0e3, G=1.0e3, rho=100.0),
                   Section(A=1e-2, Iy=1e-3, Iz=1e-3, J=2e-3))
    model.joint3d("revolute", "crank", None, axis=(0.0, 0.0, 1.0), point=A0, name="A0 crank pivot")
    model.joint3d("spherical", "crank", "coupler", point=A, name="A crank-coupler")
    model.joint3d("spherical", 4, "coupler", point=B, name="B rocker-coupler")
    model.joint3d("revolute", 2, None, axis=(1.0, 0.0, 0.0), name="B0 rocker pivot")
    model.gravity((0.0, 0.0, -G))
    model.initial_velocity("crank", rz=3.0, uy=0.45)  # crank turning at 3 rad/s: v = ω × (0.15, 0, 0)
    res = solve_dynamic(model, 0.01, 1.5)
    assert all_joints_hold(model, res) <= 1e-10
    assert res.series("constraint_residual").max() <= 1e-10
    assert energy_error(res) <= 1e-10
    R = res.nodal_rotation_matrices(-1)[0]
    assert abs(np.arctan2(R[1, 0], R[0, 0])) > 0.3


def test_over_constrained_four_bar_of_rigid_rods_keeps_every_joint():
    """A planar four-bar of three rigid rods in 3-D, revolute joints about z at the rod ends
    (attachment points): 18 DOFs, 20 equations, 1 mechanism freedom, so 3 equations are
    redundant; they are dropped with a warning, and over 200 steps of Δt = 0.01 s falling in
    gravity all 20 hold to 1e-10 (the dropped ones included), the energy to 1e-10."""
    A, B, C, D = (np.array(p, dtype=np.float64) for p in ([0, 0, 0], [0, 1, 0], [2.5, 2, 0], [3, 0, 0]))
    pts = np.vstack([0.5 * (A + B), 0.5 * (B + C), 0.5 * (C + D)])
    model = Model(Mesh(pts, {}, {"crank": [0], "coupler": [1], "rocker": [2]}), dim=3, name="redundant four-bar")
    for name, p, q in (("crank", A, B), ("coupler", B, C), ("rocker", C, D)):
        rod_body(model, name, name, 1.0, np.linalg.norm(q - p), (q - p) / np.linalg.norm(q - p))
    z = (0.0, 0.0, 1.0)
    model.joint3d("revolute", "crank", None, axis=z, point=A, name="A")
    model.joint3d("revolute", "crank", "coupler", axis=z, point=B, name="B")
    model.joint3d("revolute", "coupler", "rocker", axis=z, point=C, name="C")
    model.joint3d("revolute", "rocker", None, axis=z, point=D, name="D")
    model.gravity((0.0, -G, 0.0))
    res = solve_dynamic(model, 0.01, 2.0)
    assert len(res.info["constraint_rows"]) == 17
    assert all_joints_hold(model, res) <= 1e-10
    assert energy_error(res) <= 1e-10
    assert np.ptp(res.dof(0, "uy")) > 0.1  # it moves


def hung_rod(L=0.8, m=1.5, k=2.0):
    """A uniform rigid rod (rigid_body3d at its centre (0, 0, −L/2)) hung from ground by a
    revolute joint about y at its upper end, the origin (an attachment point), in gravity
    −z, with a rotational spring k to ground (the static Newton starts with zero joint
    multipliers, so a bare pendulum has no stiffness at its first iteration)."""
    model = Model(Mesh(np.array([[0.0, 0.0, -0.5 * L]]), {}, {"rod": [0]}), dim=3, name="hung rod")
    rod_body(model, "rod", "rod", m, L, np.array([0.0, 0.0, -1.0]))
    model.add_discrete("spring", "rotational_spring3d_ground", "rod", k=k)
    model.joint3d("revolute", "rod", None, axis=(0.0, 1.0, 0.0), point=(0.0, 0.0, 0.0), name="hinge")
    model.gravity((0.0, 0.0, -G))
    return model


def test_rod_hung_at_its_end_statics_and_small_oscillations_match_closed_forms():
    """Statics: a horizontal force F = 0.7 m g at the centre turns the rod by θ with
    (L/2)(F cos θ − m g sin θ) = k θ (moments about the hinge; θ by brentq), the centre at
    (L/2)(sin θ, 0, 1 − cos θ) from its reference, to 1e-9; the hinge reaction balances the
    loads. Modal: the hanging rod's one mode, ω² = (k + m g L/2) / (m L²/3) (compound
    pendulum with a spring), to 1e-9 (joint stiffness λ·∇²Φ from the static multipliers)."""
    from scipy.optimize import brentq

    L, m, k = 0.8, 1.5, 2.0
    model = hung_rod(L, m, k)
    F = 0.7 * m * G
    model.point_load("rod", fx=F)
    res = solve_static(model, steps=4)
    theta = brentq(lambda a: 0.5 * L * (F * np.cos(a) - m * G * np.sin(a)) - k * a, 0.0, 1.5, xtol=1e-15)
    assert res.dof(0, "ux", -1) == pytest.approx(0.5 * L * np.sin(theta), abs=1e-9)
    assert res.dof(0, "uz", -1) == pytest.approx(0.5 * L * (1.0 - np.cos(theta)), abs=1e-9)
    assert res.dof(0, "ry", -1) == pytest.approx(-theta, abs=1e-9)  # turning +x about −y
    reaction = res.arrays["multipliers"][-1][:3]
    assert np.abs(np.abs(reaction) - np.array([F, 0.0, m * G])).max() <= 1e-9 * m * G

    model = hung_rod(L, m, k)
    static = solve_static(model, steps=1)
    modal = solve_modal(model, n_modes=1, state=static.final, multipliers=static.arrays["multipliers"][-1])
    omega2 = modal.eigenvalues[0]
    assert omega2 == pytest.approx((k + 0.5 * m * G * L) / (m * L**2 / 3), rel=1e-9)


def rod_chain(dim, n=10, length=0.5, m=1.0):
    """A chain of ``n`` uniform rigid rods, horizontal along x from a pin at the origin,
    falling under gravity −y (the rigid chain of the peer benchmarks). 3-D: rigid_body3d
    nodes at the rod centres, revolute joints about z at the rod ends (attachment points).
    2-D: rigid_body2d nodes at the centres, each joint a mass-less pin node held by two
    ``body_point`` joints."""
    centres = np.array([[(i + 0.5) * length, 0.0] for i in range(n)])
    J = m * length**2 / 12.0
    if dim == 3:
        model = Model(Mesh(np.column_stack([centres, np.zeros(n)]), {}, {}), dim=3, name="rod chain 3-D")
        for i in range(n):
            model.add_discrete(f"rod {i}", "rigid_body3d", i, m=m, Jxx=1e-3 * J, Jyy=J, Jzz=J)
            model.joint3d("revolute", i, i - 1 if i else None, axis=(0.0, 0.0, 1.0), point=(i * length, 0.0, 0.0),
                          name=f"joint {i}")
        model.gravity((0.0, -G, 0.0))
        return model
    pins = np.array([[i * length, 0.0] for i in range(1, n)])
    model = Model(Mesh(np.vstack([centres, pins]), {}, {}), name="rod chain 2-D")
    model.body_point(0, None, point=(0.0, 0.0), name="joint 0")
    for i in range(n):
        model.add_discrete(f"rod {i}", "rigid_body2d", i, m=m, J=J)
    for i in range(1, n):
        model.add_discrete(f"pin {i}", "point_mass2d_translational", n + i - 1, m=0.0)
        model.body_point(i - 1, n + i - 1, name=f"joint {i} a")
        model.body_point(i, n + i - 1, name=f"joint {i} b")
    model.gravity((0.0, -G))
    return model


def test_chain_of_ten_rods_jointed_at_their_ends_is_the_planar_chain_on_pins():
    """Ten rods jointed at their ends by revolute joints at attachment points (3-D) and the
    same chain in 2-D (rigid bodies on mass-less pin nodes, body_point joints): the 3-D
    joint's discrete derivative and the 2-D body points' are the same, so over 100 steps of
    Δt = 0.01 s the centres agree to 1e-9 (the chain falls by more than 1 m); energy to
    1e-10 and every joint to 1e-10 in 3-D."""
    r3 = solve_dynamic(rod_chain(3), 0.01, 1.0)
    r2 = solve_dynamic(rod_chain(2), 0.01, 1.0)
    x3 = np.stack([np.column_stack([r3.dof(i, "ux"), r3.dof(i, "uy")]) for i in range(10)])
    x2 = np.stack([np.column_stack([r2.dof(i, "ux"), r2.dof(i, "uy")]) for i in range(10)])
    assert np.abs(x2[:, :, 1]).max() > 1.0
    assert np.abs(x3 - x2).max() <= 1e-9
    assert np.abs(np.stack([r3.dof(i, "uz") for i in range(10)])).max() <= 1e-12
    assert energy_error(r3) <= 1e-10
    assert r3.series("constraint_residual").max() <= 1e-10


@pytest.mark.parametrize("hinge", ["flap", "lag"])
def test_rotor_blade_on_a_hinge_at_its_root_has_the_textbook_frequencies(hinge):
    """A rigid uniform blade (rigid_body3d at its centre, length L = 2) hinged at its root
    at radius e = 0.3 from the spin axis z (a revolute joint to the spinning hub at the
    attachment point (e, 0, 0), away from the body's node), linearized about the steady
    spin Ω = 3 rad/s (relative equilibrium: the blade radial): flapping (hinge about y)
    ν² = Ω² (1 + e S/I − J_a/I), lead-lag (hinge about z) ν² = Ω² e S/I, with S = mL/2,
    I = mL²/3 about the hinge and J_a the blade's inertia about its own axis (the thin-blade
    results of rotor dynamics, e.g. Johnson, Helicopter Theory §9, have J_a = 0; a rigid
    body's centrifugal flap stiffness is Ω² (I − J_a + e S)), to 1e-9."""
    from femb.solvers.eigen.steady_spin import steady_spin

    e, L, m, spin = 0.3, 2.0, 4.0, 3.0
    model = Model(Mesh(np.array([[e + 0.5 * L, 0.0, 0.0]]), {}, {"blade": [0]}), dim=3, name="hinged blade")
    rod_body(model, "blade", "blade", m, L, np.array([1.0, 0.0, 0.0]))
    axis = (0.0, 1.0, 0.0) if hinge == "flap" else (0.0, 0.0, 1.0)
    model.joint3d("revolute", "blade", None, axis=axis, point=(e, 0.0, 0.0), name="root hinge")
    lin = steady_spin(model, spin)
    nu = lin.modes(1).damped_frequency
    S, I, Ja = 0.5 * m * L, m * L**2 / 3.0, rod_inertia(m, L, np.array([1.0, 0.0, 0.0]))[0, 0]
    expected = spin**2 * ((1.0 - Ja / I + e * S / I) if hinge == "flap" else e * S / I)
    assert np.abs(nu).max() ** 2 == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("kind", KINDS)
def test_tumbling_pair_jointed_away_from_both_nodes_keeps_its_angular_momentum_vector(kind):
    """Two tumbling bodies without gravity: body a on a spherical pivot at an offset from
    its node (frame "a"), body b joined to it by ``kind`` at a point away from both nodes.
    No reaction has a moment about the pivot and the discrete joint forces are
    self-equilibrated (the averaged equations are invariant under a common rotation), so
    the whole angular momentum vector about the pivot is conserved to 1e-10 with the energy
    (1e-10 of the largest kinetic energy) and |Φ| ≤ 1e-10, over 100 steps of Δt = 0.05 s."""
    model = two_bodies(kind)
    model.joint3d("spherical", "a", None, point=(-0.2, 0.1, 0.1), frame="a", name="pivot")
    model.initial_velocity("a", uz=1.0, rx=2.0)
    model.initial_velocity("b", uy=-1.0, rz=3.0, ry=1.0)
    res = solve_dynamic(model, 0.05, 5.0)
    L = np.column_stack([res.series(f"angular_momentum_{c}") for c in "xyz"])
    p = np.column_stack([res.series(f"linear_momentum_{c}") for c in "xyz"])
    L_pivot = L - np.cross(np.array([-0.2, 0.1, 0.1]), p)  # about the pivot, not the origin
    assert np.linalg.norm(L_pivot[0]) > 0.2
    assert np.abs(L_pivot - L_pivot[0]).max() <= 1e-10 * np.linalg.norm(L_pivot[0])
    assert energy_error(res) <= 1e-10
    assert all_joints_hold(model, res) <= 1e-10
