"""Slider joints on a line carried by a moving body (``Model.slider``; femb.assembly.joints.planar.Slider2D).

Φ = (x_node − x_body − R(θ_body)·o)·(R(θ_body)·ν): the node stays on the body-fixed line;
``lock_rotation`` adds θ_node − θ_body = 0 (planar prismatic joint). Checked:

* the discrete Jacobian of the mid-point scheme is an exact discrete derivative at large
  increments (also read per unit Cayley parameter τ = 2 tan(Δθ/2), the step unknown), the
  Jacobian and the curvature λ·∇²Φ match central differences;
* statics: a slider on a translated and rotated body equals the on_line slider on the
  moved fixed line and the closed form (projection of the unconstrained spring solution on
  the line); the joint forces on the body balance the load (forces and moment);
* dynamics: a bead on a freely spinning rod keeps energy and angular momentum to round-off
  and meets the polar equations of motion; on a rod driven at constant ω the radial motion
  is r0 cosh(ωt) with a second-order error (also in the α schemes); a prismatic pair of
  free rigid bodies keeps its relative rotation, energy and momenta; a bead on the tip line
  of a spinning flexible beam (the body is a beam node) keeps energy and angular momentum.
"""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from femb.assembly.joints import ConstraintSet
from femb.correlation import build_table
from femb.mesh import Mesh
from femb.model import Model
from femb.solvers import solve_dynamic, solve_static


def _rot(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])


def _cross(a, b):
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


# ---------------------------------------------------------------------------- exact discrete derivative
def _two_sliders():
    pts = np.array([[0.1, 0.2], [0.9, 0.5], [0.3, -0.4]])
    model = Model(Mesh(pts, {}, {"body": [0], "bead": [1], "block": [2]}))
    model.add_discrete("body", "rigid_body2d", "body", m=1.0, J=0.1)
    model.add_discrete("bead", "point_mass2d_translational", "bead", m=0.3)
    model.add_discrete("block", "rigid_body2d", "block", m=1.0, J=0.1)
    model.slider("body", "bead", direction=(0.8, 0.3), name="bead slider")
    model.slider("body", "block", point=(0.5, -2.4), direction=(-0.2, 1.0), lock_rotation=True, name="prismatic")
    return model


def test_discrete_jacobian_is_exact_at_large_increments_and_the_derivatives_match_differences():
    model = _two_sliders()
    table = build_table(model)
    cs = ConstraintSet(model, table)
    assert cs.row_joint == ["bead slider", "prismatic", "prismatic"]
    rot = np.array([table.var_of(n, "rz") for n in (0, 2)])
    rng = np.random.default_rng(4)
    for _ in range(6):
        u0, u1 = 0.5 * rng.standard_normal(table.n_var), 0.5 * rng.standard_normal(table.n_var)
        u1[rot] = u0[rot] + rng.uniform(-2.5, 2.5, 2)  # rotation increments up to 2.5 rad
        dphi = cs.evaluate(u1, jacobian=False) - cs.evaluate(u0, jacobian=False)
        Gbar = cs.midpoint_jacobian(u0, u1)
        assert np.abs(Gbar @ (u1 - u0) - dphi).max() <= 1e-12 * max(1.0, np.abs(dphi).max())
        # per unit Cayley parameter: columns times Δθ/τ, increments τ = 2 tan(Δθ/2)
        dq = u1 - u0
        scale = np.ones(table.n_var)
        scale[rot] = dq[rot] / (2.0 * np.tan(0.5 * dq[rot]))
        dq[rot] = 2.0 * np.tan(0.5 * dq[rot])
        assert np.abs((Gbar @ np.diag(scale)) @ dq - dphi).max() <= 1e-12 * max(1.0, np.abs(dphi).max())
    # Jacobian and curvature Σ λ ∇²Φ against central differences
    u = 0.5 * rng.standard_normal(table.n_var)
    lam = np.array([0.7, -1.3, 2.0])
    phi, G = cs.evaluate(u)
    H = cs.hessian_term(lam).toarray()
    eps = 1e-6
    for i in range(table.n_var):
        du = np.zeros(table.n_var)
        du[i] = eps
        (pp, Gp), (pm, Gm) = cs.evaluate(u + du), cs.evaluate(u - du)
        assert np.allclose(G.toarray()[:, i], (pp - pm) / (2 * eps), atol=1e-9)
        assert np.allclose(H[:, i], (Gp.T @ lam - Gm.T @ lam) / (2 * eps), atol=1e-8)
    assert np.allclose(H, H.T)


# ---------------------------------------------------------------------------- statics
XB, XN, K, F = np.array([0.2, 0.1]), np.array([1.0, 0.5]), 10.0, np.array([1.0, 2.0])
DIRECTION = np.array([1.0, 0.5])
SHIFT, ALPHA = np.array([0.3, -0.2]), 0.7  # body motion: translation and rotation (rad)


def _static_model(joint):
    """Node "n" on a linear isotropic spring (bushing2d, k) to a fixed anchor at its own
    position, loaded by F, sliding on a line: ``joint`` "slider" (on the body "b", moved by
    SHIFT and turned by ALPHA) or "on_line" (the moved line, fixed)."""
    pts = np.array([XB, XN, XN])
    model = Model(Mesh(pts, {}, {"b": [0], "n": [1], "anchor": [2]}), name=f"{joint} statics")
    model.add_discrete("spring", "bushing2d", ("anchor", "n"), k=K)
    model.fix("anchor")
    point = XN - 0.4 * DIRECTION  # another point of the line through the node
    if joint == "slider":
        model.add_discrete("body", "rigid_body2d", "b", m=1.0, J=1.0)
        model.prescribe("b", "ux", value=SHIFT[0])
        model.prescribe("b", "uy", value=SHIFT[1])
        model.prescribe("b", "rz", value=ALPHA)
        model.slider("b", "n", point=point, direction=DIRECTION, name="slider")
    else:
        moved = XB + SHIFT + _rot(ALPHA) @ (point - XB)
        model.on_line("n", moved, _rot(ALPHA) @ DIRECTION, name="slider")
    model.point_load("n", fx=F[0], fy=F[1])
    return model


def test_static_slider_on_a_moved_body_equals_the_slider_on_the_moved_fixed_line():
    res = solve_static(_static_model("slider"), steps=4)
    ref = solve_static(_static_model("on_line"), load_factors=[1.0])
    x = XN + np.array([res.dof(1, "ux", -1), res.dof(1, "uy", -1)])
    x_ref = XN + np.array([ref.dof(1, "ux", -1), ref.dof(1, "uy", -1)])
    # closed form: the spring's free solution X_n + F/k projected on the moved line
    p = XB + SHIFT + _rot(ALPHA) @ (XN - 0.4 * DIRECTION - XB)
    d = _rot(ALPHA) @ DIRECTION / np.linalg.norm(DIRECTION)
    x_exact = p + ((XN + F / K - p) @ d) * d
    assert np.abs(x - x_exact).max() <= 1e-12
    assert np.abs(x_ref - x_exact).max() <= 1e-12
    assert res.series("constraint_residual")[-1] <= 1e-12
    # the multiplier is the contact force, the same in both models
    assert res.arrays["multipliers"][-1][0] == pytest.approx(ref.arrays["multipliers"][-1][0], rel=1e-10)
    assert abs(res.arrays["multipliers"][-1][0]) > 0.1
    # the joint carries the load to the body: the reactions of the supports (body and
    # anchor) balance the load in force and in moment about the origin
    table = res.table
    cv = table.constrained_vars
    reac = res.arrays["reactions"][-1]
    u = res.states[-1]
    fsum, msum = np.zeros(2), 0.0
    for node, X in ((0, XB), (2, XN)):
        x_node = X + np.array([u[table.var_of(node, "ux")], u[table.var_of(node, "uy")]])
        f = np.array([reac[np.flatnonzero(cv == table.var_of(node, dof))[0]] for dof in ("ux", "uy")])
        fsum += f
        msum += _cross(x_node, f)
    m_body = reac[np.flatnonzero(cv == table.var_of(0, "rz"))[0]]
    assert abs(m_body) > 0.1  # the slider loads the body's rotation
    msum += m_body
    assert np.abs(fsum + F).max() <= 1e-12  # reactions = f_int − f_ext + Gᵀλ at the supports
    assert abs(msum + _cross(x, F)) <= 1e-12


# ---------------------------------------------------------------------------- dynamics: bead on a rod
R0, M_BEAD, J_ROD = 0.3, 0.2, 0.05


def _bead_on_rod(omega, radial=0.0, driven=False):
    """A rod (rigid_body2d, inertia J_ROD) pivoted at its centre, the origin, and a bead
    (point mass M_BEAD) sliding on it, starting at r = R0 on the x axis with the rod's
    rotation ω and radial velocity ``radial``; ``driven``: the rod's angle is prescribed ωt."""
    model = Model(Mesh(np.array([[0.0, 0.0], [R0, 0.0]]), {}, {"rod": [0], "bead": [1]}), name="bead on a rod")
    model.add_discrete("rod", "rigid_body2d", "rod", m=1.0, J=J_ROD)
    model.add_discrete("bead", "point_mass2d_translational", "bead", m=M_BEAD)
    model.fix("rod", ("ux", "uy"))
    if driven:
        model.prescribe("rod", "rz", function=lambda t: omega * t)
    else:
        model.initial_velocity("rod", rz=omega)
    model.initial_velocity("bead", ux=radial, uy=omega * R0)
    model.slider("rod", "bead", direction=(1.0, 0.0), name="bead slider")
    return model


def _bead_state(res):
    t = res.table
    ix, iy = t.var_of(1, "ux"), t.var_of(1, "uy")
    x = np.array([[R0 + s[ix], s[iy]] for s in res.states])
    v = np.array([[w[ix], w[iy]] for w in res.velocities])
    return x, v


def test_bead_on_a_freely_spinning_rod_keeps_energy_and_angular_momentum():
    omega, radial, h = 3.0, 0.4, 0.02
    res = solve_dynamic(_bead_on_rod(omega, radial), h, 1.6)  # ωh = 0.06 at the start; the bead slides out to r ≈ 2.6
    x, v = _bead_state(res)
    w = np.array([s[res.table.var_of(0, "rz")] for s in res.velocities])
    theta = res.dof(0, "rz")
    L = J_ROD * w + M_BEAD * _cross(x, v)
    E = 0.5 * J_ROD * w**2 + 0.5 * M_BEAD * np.einsum("ki,ki->k", v, v)
    assert np.all(np.asarray(abs(L[0])) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(L - L[0]).max() <= 1e-9 * abs(L[0])
    assert np.all(np.asarray(E[0]) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(E - E[0]).max() <= 1e-9 * E[0]
    assert np.all(np.asarray(E[0]) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(res.series("total_energy") - E[0]).max() <= 1e-9 * E[0]
    # the bead stays on the rod: Φ = x·(−sin θ, cos θ)
    phi = -x[:, 0] * np.sin(theta) + x[:, 1] * np.cos(theta)
    assert np.abs(phi).max() <= 1e-10
    assert res.series("constraint_residual").max() <= 1e-10
    r = np.linalg.norm(x, axis=1)
    assert r[-1] > 2.0 * R0, "the bead must actually slide out"
    # polar equations: r'' = r θ'², (J + m r²) θ' = L; mid-point accuracy at ωh ≤ 0.06
    L0 = (J_ROD + M_BEAD * R0**2) * omega
    sol = solve_ivp(lambda t, y: [y[1], y[0] * (L0 / (J_ROD + M_BEAD * y[0] ** 2)) ** 2, L0 / (J_ROD + M_BEAD * y[0] ** 2)],
                    (0.0, res.times[-1]), [R0, radial, 0.0], rtol=1e-12, atol=1e-12, dense_output=True)
    exact = sol.sol(np.asarray(res.times))
    assert np.all(np.asarray(exact[0].max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(r - exact[0]).max() <= 3e-4 * exact[0].max()  # measured 6e-5
    assert np.all(np.asarray(exact[2].max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(np.unwrap(theta) - exact[2]).max() <= 3e-4 * exact[2].max()


def test_bead_on_a_driven_rod_slides_out_as_cosh_with_a_second_order_error():
    """Rod turned at constant ω, bead released at rest relative to the rod: r'' = ω² r,
    r = R0 cosh(ωt) (the rod's drive does the work)."""
    omega, t_end = 2.0, 1.0
    errors = []
    for n in (25, 50, 100):
        res = solve_dynamic(_bead_on_rod(omega, driven=True), t_end / n, t_end)
        x = _bead_state(res)[0]
        t = np.asarray(res.times)
        r = np.linalg.norm(x, axis=1)
        theta = res.dof(0, "rz")
        assert np.abs(theta - omega * t).max() <= 1e-12  # the drive
        assert np.abs(np.arctan2(x[:, 1], x[:, 0]) - omega * t).max() <= 1e-10  # on the rod
        assert np.all(np.asarray(np.max(res.series("kinetic_energy"))) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(res.series("energy_residual")).max() <= 1e-10 * np.max(res.series("kinetic_energy"))
        errors.append(np.abs(r - R0 * np.cosh(omega * t)).max())
    assert errors[0] <= 1e-2 * R0 * np.cosh(omega * t_end)
    assert errors[0] / errors[1] == pytest.approx(4.0, rel=0.05)
    assert errors[1] / errors[2] == pytest.approx(4.0, rel=0.05)


# ---------------------------------------------------------------------------- planar prismatic pair
def test_prismatic_pair_of_free_bodies_keeps_relative_rotation_energy_and_momenta():
    """Two free rigid bodies: B slides along a line of A (through A's point (0, 0.2),
    direction (1, 0.3)) with the relative rotation locked, joined by a central spring
    (spring2d) to a point mass so that the slider force varies; tumbling start."""
    XA, XB_, XC = np.array([0.0, 0.0]), np.array([0.5, 0.35]), np.array([0.2, -0.6])
    model = Model(Mesh(np.array([XA, XB_, XC]), {}, {"A": [0], "B": [1], "C": [2]}), name="prismatic pair")
    masses = {"A": (2.0, 0.3), "B": (0.7, 0.05)}
    model.add_discrete("body A", "rigid_body2d", "A", m=masses["A"][0], J=masses["A"][1])
    model.add_discrete("body B", "rigid_body2d", "B", m=masses["B"][0], J=masses["B"][1])
    model.add_discrete("mass C", "point_mass2d_translational", "C", m=0.4)
    model.add_discrete("spring", "spring2d", ("B", "C"), k=40.0, L0=0.6)  # central spring, stretched at the start
    model.slider("A", "B", point=(0.0, 0.2), direction=(1.0, 0.3), lock_rotation=True, name="prismatic")
    omega, d = 2.5, np.array([1.0, 0.3]) / np.hypot(1.0, 0.3)
    rel = XB_ - XA
    model.initial_velocity("A", ux=0.1, uy=-0.2, rz=omega)
    vb = np.array([0.1, -0.2]) + omega * np.array([-rel[1], rel[0]]) + 0.8 * d  # rigid motion + sliding
    model.initial_velocity("B", ux=vb[0], uy=vb[1], rz=omega)
    model.initial_velocity("C", ux=-0.5, uy=0.3)
    res = solve_dynamic(model, 0.01, 2.0)
    t = res.table
    thA, thB = res.dof(0, "rz"), res.dof(1, "rz")
    assert np.abs(thB - thA).max() <= 1e-12
    assert np.ptp(thA) > 1.0, "the pair must actually tumble"
    # B on A's line: (x_B − x_A − R o)·R ν = 0
    xA = np.column_stack([res.dof(0, "ux"), res.dof(0, "uy")]) + XA
    xB = np.column_stack([res.dof(1, "ux"), res.dof(1, "uy")]) + XB_
    o = np.array([0.0, 0.2]) - XA
    nu = np.array([-d[1], d[0]])
    phi = [(xB[k] - xA[k] - _rot(a) @ o) @ (_rot(a) @ nu) for k, a in enumerate(thA)]
    assert np.abs(phi).max() <= 1e-10
    s = [(xB[k] - xA[k]) @ (_rot(a) @ d) for k, a in enumerate(thA)]
    assert np.ptp(s) > 0.1, "B must actually slide"
    # energy and the momenta of the free system
    E = res.series("total_energy")
    assert np.all(np.asarray(np.max(res.series("kinetic_energy"))) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(E - E[0]).max() <= 1e-9 * np.max(res.series("kinetic_energy"))
    P, Lz = [], []
    for u, v in zip(res.states, res.velocities):
        p, l = np.zeros(2), 0.0
        for node, X, m, J in ((0, XA, *masses["A"]), (1, XB_, *masses["B"]), (2, XC, 0.4, 0.0)):
            x = X + u[[t.var_of(node, "ux"), t.var_of(node, "uy")]]
            vel = v[[t.var_of(node, "ux"), t.var_of(node, "uy")]]
            p += m * vel
            l += m * _cross(x, vel) + (J * v[t.var_of(node, "rz")] if J else 0.0)
        P.append(p)
        Lz.append(l)
    P, Lz = np.array(P), np.array(Lz)
    assert np.all(np.asarray(np.abs(P[0]).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(P - P[0]).max() <= 1e-10 * np.abs(P[0]).max()
    assert np.all(np.asarray(abs(Lz[0])) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(Lz - Lz[0]).max() <= 1e-9 * abs(Lz[0])
    assert res.series("constraint_residual").max() <= 1e-10


@pytest.mark.parametrize("scheme", ["newmark", "hht", "generalized-alpha"])
def test_alpha_schemes_hold_the_slider_and_converge_at_second_order(scheme):
    """The α schemes (index 3, end-of-step Jacobian) with the slider on the driven rod:
    |Φ| at round-off, r → R0 cosh(ωt) at second order (measured errors 1.2e-3..1.3e-3 at
    Δt = 0.02 s)."""
    omega, t_end = 2.0, 1.0
    errors = []
    for n in (25, 50):
        res = solve_dynamic(_bead_on_rod(omega, driven=True), t_end / n, t_end, scheme=scheme)
        x = _bead_state(res)[0]
        t = np.asarray(res.times)
        assert np.abs(np.arctan2(x[:, 1], x[:, 0]) - omega * t).max() <= 1e-10
        errors.append(np.abs(np.linalg.norm(x, axis=1) - R0 * np.cosh(omega * t)).max())
    assert errors[1] <= 2e-3
    assert errors[0] / errors[1] == pytest.approx(4.0, rel=0.05)


def test_bead_on_the_tip_line_of_a_spinning_flexible_beam_keeps_energy_and_angular_momentum():
    """The body is a beam node: a beam2d (4 elements, pivoted at the origin) spins at 3
    rad/s; a bead slides on the line through its tip along the tip's tangent, pulled by a
    central spring from the pivot, so the beam bends and the bead oscillates along the
    line. Energy and angular momentum about the pivot are exact in the mid-point scheme
    (measured ~1e-13)."""
    from femb.mesh import CellBlock
    from femb.model import Material, Section

    x = np.linspace(0.0, 1.0, 5)
    pts = np.vstack([np.column_stack([x, 0.0 * x]), [[1.2, 0.0]]])
    mesh = Mesh(pts, {"beam": CellBlock("line", np.column_stack([np.arange(4), np.arange(1, 5)]))},
                {"root": [0], "tip": [4], "bead": [5]})
    model = Model(mesh, name="bead on a flexible beam")
    model.add_part("beam", "beam2d", "beam", Material(E=1.0e4, rho=1.0), Section(A=1e-2, I=1e-6))
    model.add_discrete("bead", "point_mass2d_translational", "bead", m=0.05)
    model.add_discrete("spring", "spring2d", ("root", "bead"), k=2.0, L0=1.0)
    model.fix("root", ("ux", "uy"))
    model.slider("tip", "bead", direction=(1.0, 0.0), name="tip slider")
    model.initial_rigid_velocity(omega=3.0)
    res = solve_dynamic(model, 0.01, 1.0)
    E, L = res.series("total_energy"), res.series("angular_momentum")
    assert np.all(np.asarray(res.series("kinetic_energy").max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(E - E[0]).max() <= 1e-9 * res.series("kinetic_energy").max()
    assert np.all(np.asarray(abs(L[0])) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(L - L[0]).max() <= 1e-9 * abs(L[0])
    assert res.series("constraint_residual").max() <= 1e-10
    # the bead stays on the tip's tangent line: (x_bead − x_tip)·R(θ_tip) e_y = 0
    th = res.dof(4, "rz")
    d = np.column_stack([1.2 + res.dof(5, "ux") - 1.0 - res.dof(4, "ux"), res.dof(5, "uy") - res.dof(4, "uy")])
    assert np.abs(-d[:, 0] * np.sin(th) + d[:, 1] * np.cos(th)).max() <= 1e-10
    assert np.ptp(d[:, 0] * np.cos(th) + d[:, 1] * np.sin(th)) > 0.05, "the bead must actually slide"
    bend = th - np.arctan2(res.dof(4, "uy"), 1.0 + res.dof(4, "ux"))  # tip rotation against the chord
    assert np.abs(bend).max() > 1e-3, "the beam must actually bend"


def test_bad_slider_declarations_are_reported_naming_the_joint():
    from femb.core.errors import ModelError

    def model(**kw):
        m = Model(Mesh(np.array([[0.0, 0.0], [R0, 0.0]]), {}, {"rod": [0], "bead": [1]}), name="bad")
        m.add_discrete("rod", "rigid_body2d", "rod", m=1.0, J=J_ROD)
        m.add_discrete("bead", "point_mass2d_translational", "bead", m=M_BEAD)
        m.slider(**{"node": "bead", "body": "rod", "direction": (1.0, 0.0), "name": "s", **kw})
        return m

    for kw, text in (({"direction": (0.0, 0.0)}, "non-zero 2-component direction"),
                     ({"direction": None}, "non-zero 2-component direction"),
                     ({"point": (1.0, 0.0, 0.0)}, "point needs 2 components"),
                     ({"node": "rod"}, "another node than the body node")):
        with pytest.raises(ModelError, match=text) as info:
            model(**kw).validate()
        assert "joint 's'" in str(info.value)
    for kw, text in (({"node": "rod", "body": "bead"}, "body node 1 must carry ux, uy and rz"),
                     ({"lock_rotation": True}, "lock_rotation needs the rotation rz at the sliding node 1")):
        m = model(**kw)
        with pytest.raises(ModelError, match=text):
            ConstraintSet(m, build_table(m))
