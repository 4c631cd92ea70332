"""Pressures, tractions, edge loads and symmetry conditions on shells (femb.core.surfaces,
femb.assembly.loads): exact load stiffness of follower pressures, conservativeness on
closed surfaces, consistency with the reference-geometry loads, symmetry = full model."""
import numpy as np
import pytest

from femb.core.errors import ModelError
from femb.core.surfaces import pressure_forces, pressure_stiffness, traction_forces
from femb.mesh import Mesh, pressure_nodal_loads, rectangle_mesh
from femb.mesh.mesh import CellBlock
from femb.model import Material, Model, Section
from femb.solvers import NewtonSettings, solve_static
from femb.solvers.configuration import Configuration
from femb.solvers.problem import StaticProblem

E, NU, T = 70e9, 0.3, 0.005
MAT, SEC = Material(E=E, nu=NU, rho=2700.0), Section(thickness=T)


@pytest.mark.parametrize("k", [3, 4])
def test_follower_pressure_stiffness_is_the_derivative_of_the_forces(k):
    rng = np.random.default_rng(3 + k)
    base = np.array([[0.0, 0.0, 0.0], [1.0, 0.1, 0.0], [1.2, 1.0, 0.0], [-0.1, 0.9, 0.0]])[:k]
    x = base[None] + 0.2 * rng.standard_normal((5, k, 3))  # warped, skewed faces
    p = rng.uniform(0.5, 2.0, 5)
    K = pressure_stiffness(x, p)
    h = 1e-6
    fd = np.zeros_like(K)
    for j in range(3 * k):
        dx = np.zeros((k, 3))
        dx.flat[j] = h
        fd[:, :, j] = ((pressure_forces(x + dx, p) - pressure_forces(x - dx, p)) / (2 * h)).reshape(5, -1)
    assert np.abs(K - fd).max() <= 1e-8 * np.abs(K).max()


def _octahedron(perturb=0.0, seed=0):
    x = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], float)
    x += perturb * np.random.default_rng(seed).standard_normal(x.shape)
    f = [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4), (2, 0, 5), (1, 2, 5), (3, 1, 5), (0, 3, 5)]  # outward
    return x, np.array(f)


def _cube_quads(perturb=0.0, seed=1):
    x = np.array([[i, j, k] for k in (0, 1) for j in (0, 1) for i in (0, 1)], float)
    x += perturb * np.random.default_rng(seed).standard_normal(x.shape)
    q = np.array([[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]])  # outward
    return x, q


def _volume(x, faces):
    """Enclosed volume by the divergence theorem on the faces' (bilinear) interpolation."""
    from femb.core.surfaces import _rule  # the same exact quadrature

    V = 0.0
    for w, N, dxi, deta in _rule(faces.shape[1]):
        P = x[faces]
        xm = np.einsum("k,nkj->nj", N, P)
        a = np.cross(np.einsum("k,nkj->nj", dxi, P), np.einsum("k,nkj->nj", deta, P))
        V += w * np.einsum("nj,nj->", xm, a) / 3.0
    return V


@pytest.mark.parametrize("surface", [_octahedron, _cube_quads])
def test_follower_pressure_on_a_closed_surface_is_conservative(surface):
    """f = p ∇V (the potential −pV), zero resultant, symmetric assembled stiffness."""
    x, faces = surface(perturb=0.15)
    p = 2.5
    f = np.zeros_like(x)
    np.add.at(f, faces, pressure_forces(x[faces], p))
    assert np.abs(f.sum(axis=0)).max() <= 1e-13 * np.abs(f).max()
    assert _volume(*surface(0.0)) == pytest.approx(4.0 / 3.0 if surface is _octahedron else 1.0, rel=1e-14)
    h = 1e-6
    grad = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros(x.size)
        d[i] = h
        d = d.reshape(x.shape)
        grad.flat[i] = (_volume(x + d, faces) - _volume(x - d, faces)) / (2 * h)
    assert np.abs(f - p * grad).max() <= 1e-8 * np.abs(f).max()
    n = x.size
    K = np.zeros((n, n))
    Ke = pressure_stiffness(x[faces], p)
    dofs = (3 * faces[:, :, None] + np.arange(3)).reshape(len(faces), -1)
    for e in range(len(faces)):
        K[np.ix_(dofs[e], dofs[e])] += Ke[e]
    assert np.abs(K - K.T).max() <= 1e-13 * np.abs(K).max()
    assert np.abs(Ke[0] - Ke[0].T).max() > 1e-3 * np.abs(Ke[0]).max()  # one face alone is not symmetric


def test_traction_forces_sum_to_traction_times_area():
    x, faces = _cube_quads(perturb=0.1)
    t = np.array([1.0, -2.0, 0.5])
    f = traction_forces(x[faces], t)
    from femb.core.surfaces import face_areas

    assert np.allclose(f.sum(axis=1), face_areas(x[faces])[:, None] * t[None], rtol=1e-14, atol=0)


def _plate(n=8, cells="quad", a=1.0):
    mesh = rectangle_mesh(a, a, n, n, cells=cells)
    model = Model(mesh)
    model.add_part("plate", "shell4" if cells == "quad" else "shell3", "plate", MAT, SEC)
    return mesh, model


def test_dead_pressure_equals_the_nodal_loads_of_the_mesh_helper():
    mesh, model = _plate(6, "triangle")
    model.fix("plate_boundary", "all")
    model.pressure("plate", 150.0)
    prob = StaticProblem(model)
    F = pressure_nodal_loads(mesh, "plate", 150.0)
    t = prob.table
    expect = np.zeros(t.n_var)
    for i in range(mesh.n_nodes):
        expect[t.var_of(i, "uz")] = F[i, 2]
    assert np.abs(prob.f_ref - expect).max() <= 1e-14 * np.abs(expect).max()
    assert prob.f_ref.sum() == pytest.approx(150.0, rel=1e-14)  # p × area


def test_follower_pressure_static_tangent_is_exact():
    """Clamped plate inflated by a follower pressure to a deflection of ~5.6 thicknesses
    (membrane range): the static tangent (element + load stiffness) equals the central
    difference of the residual (so Newton converges quadratically: 4 iterations in the
    last increments), and the follower solution differs from the dead one (the load
    tilts with the surface; measured 1.5e-4 relative at the centre)."""
    results = {}
    for kind in ("dead", "follower"):
        mesh, model = _plate(6, "quad")
        model.fix("plate_boundary", "all")
        model.pressure("plate", 4.0e5, kind=kind)
        prob = StaticProblem(model)
        res = solve_static(model, steps=4, problem=prob, settings=NewtonSettings(tolerance=1e-10))
        results[kind] = (prob, res)
    prob, res = results["follower"]
    centre = prob.model.mesh.node("plate_center")
    w_f = res.states[-1][prob.table.var_of(centre, "uz")]
    w_d = results["dead"][1].states[-1][prob.table.var_of(centre, "uz")]
    assert 5 * T < w_f < 6 * T
    assert 5e-5 * abs(w_d) < abs(w_f - w_d) < 1e-3 * abs(w_d)
    assert res.history["iterations"][-1] <= 4
    # tangent check at the converged, deformed state (off equilibrium by a perturbation)
    x = prob.state_of(res, -1)
    rng = np.random.default_rng(0)
    x = x.apply(1e-4 * rng.standard_normal(prob.table.n_eq)) if isinstance(x, Configuration) else x
    system = prob.system(1.0)
    r0, K, _ = system.residual_and_tangent(x)
    v = rng.standard_normal(prob.table.n_eq)
    h = 1e-7
    fd = (system.residual(system.apply(x, h * v))[0] - system.residual(system.apply(x, -h * v))[0]) / (2 * h)
    assert np.linalg.norm(K @ v - fd) <= 1e-6 * np.linalg.norm(fd)
    # the load stiffness alone: K_L = −∂f_ext/∂q through the assembled problem
    KL = prob.load_stiffness(x, 1.0)
    t = prob.table
    fdL = (t.free(prob.external(1.0, system.apply(x, h * v))) - t.free(prob.external(1.0, system.apply(x, -h * v)))) / (2 * h)
    assert np.linalg.norm(KL @ v + fdL) <= 1e-7 * np.linalg.norm(fdL)
    assert np.linalg.norm(fdL) > 0.0


def test_edge_load_from_line_cells_and_from_a_node_set_agree():
    mesh, model = _plate(4, "triangle", a=2.0)
    edge = mesh.node_sets["plate_x1"]
    order = edge[np.argsort(mesh.points[edge, 1])]
    mesh.add_cells("tip_edge", "line", np.column_stack([order[:-1], order[1:]]))
    model.fix("plate_x0", "all")
    model.edge_load("tip_edge", (0.0, 0.0, -30.0), name="by cells")
    f_cells = StaticProblem(model).f_ref
    model.loads.clear()
    model.edge_load("plate_x1", (0.0, 0.0, -30.0), name="by nodes")
    f_nodes = StaticProblem(model).f_ref
    assert np.array_equal(f_cells, f_nodes)
    assert f_nodes.sum() == pytest.approx(-30.0 * 2.0, rel=1e-14)
    t = StaticProblem(model).table
    shares = sorted(f_nodes[t.var_of(int(i), "uz")] for i in order)
    assert shares[0] == pytest.approx(-15.0) and shares[-1] == pytest.approx(-7.5)  # interior qL, ends qL/2


def test_symmetric_quarter_plate_equals_the_full_plate():
    """Simply supported square plate under a dead pressure (linear range): the quarter
    model with symmetry conditions on two edges gives the full model's centre deflection
    (same quads), and both are near Navier's w = 0.00406 p a⁴/D."""
    p, a = 100.0, 1.0
    mesh, full = _plate(16, "quad", a)
    full.fix("plate_boundary", ("uz",))
    full.fix("plate_c00", ("ux", "uy"))
    full.fix("plate_c10", ("uy",))
    full.pressure("plate", p)
    w_full = solve_static(full, steps=1).states[-1][StaticProblem(full).table.var_of(mesh.node("plate_center"), "uz")]
    q = rectangle_mesh(a / 2, a / 2, 8, 8, cells="quad")
    quarter = Model(q)
    quarter.add_part("plate", "shell4", "plate", MAT, SEC)
    quarter.fix("plate_x0", ("uz",))
    quarter.fix("plate_y0", ("uz",))
    quarter.symmetry("plate_x1", "x")
    quarter.symmetry("plate_y1", "y")
    quarter.pressure("plate", p)
    w_q = solve_static(quarter, steps=1).states[-1][StaticProblem(quarter).table.var_of(q.node("plate_c11"), "uz")]
    assert w_q == pytest.approx(w_full, rel=1e-6)
    D = E * T**3 / (12 * (1 - NU**2))
    assert w_full == pytest.approx(0.00406235 * p * a**4 / D, rel=0.02)


def test_face_and_edge_loads_name_their_bad_sets():
    mesh, model = _plate(2, "quad")
    mesh.add_cells("edge", "line", np.array([[0, 1]]))
    model.pressure("plate_x0", 1.0, name="on nodes")
    model.pressure("edge", 1.0, name="on lines")
    model.pressure("plate", 1.0, kind="sideways", name="bad kind")
    model.edge_load("plate", (0, 0, 1.0), name="edge on faces")
    model.edge_load("plate_c00", (0, 0, 1.0), name="edge on a corner")
    msgs = "\n".join(model.problems())
    assert "on nodes: 'plate_x0' is not a set of faces (it is a node set)" in msgs
    assert "on lines: cell set 'edge' holds 'line' cells, not faces" in msgs
    assert "bad kind: kind must be one of dead, follower" in msgs
    assert "edge on faces: cell set 'plate' holds 'quad' cells" in msgs
    assert "edge on a corner: node set 'plate_c00' contains no boundary edge" in msgs
    with pytest.raises(ModelError, match="plane must be"):
        model.symmetry("plate_x0", "xy")


def test_pressure_on_a_flat_2d_model_is_refused():
    mesh = Mesh(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), {"tri": CellBlock("triangle", np.array([[0, 1, 2]]))})
    model = Model(mesh)
    model.pressure("tri", 1.0)
    assert any("surface loads need a 3-D model" in m for m in model.problems())


@pytest.mark.parametrize("cells", ["triangle", "quad"])
def test_follower_pressure_in_dynamics_does_the_work_p_times_the_swept_volume(cells):
    """A clamped plate under a suddenly applied follower pressure, integrated by the mid-point
    scheme: the step applies the Simpson average of the pressure forces along its path, whose
    work is the exact path integral, so with the boundary held the booked work equals p times
    the swept volume ΔV = ⅓ Σ x·f(p = 1)|₀ᵗ to round-off (measured 3e-16 and 1e-16 of pΔV;
    deflections of about twice the thickness), and T + V − W closes (1e-12 of W)."""
    from femb import solve_dynamic
    from femb.correlation import build_table

    mesh, model = _plate(3, cells)
    model.fix("plate_boundary", "all")
    p = 2e4
    model.pressure("plate", p, kind="follower")
    res = solve_dynamic(model, 2e-4, 4e-3)
    t = build_table(model)
    conn = mesh.cells["plate"].connectivity

    def volume(u):
        x = np.array(mesh.points, dtype=np.float64)
        for d in range(3):
            x[:, d] += np.asarray(u)[t.node_var[:, d]]
        return float((x[conn] * pressure_forces(x[conn], 1.0)).sum()) / 3.0

    dV = np.array([volume(u) for u in res.states]) - volume(np.zeros(t.n_var))
    W = np.asarray(res.series("external_work"))
    assert dV.max() > 1e-6
    assert np.abs(W - p * dV).max() <= 1e-10 * p * dV.max()
    assert np.abs(res.series("energy_residual")).max() <= 1e-10 * W.max()


def test_pressure_on_a_face_set_no_part_meshes_is_an_error():
    mesh, model = _plate(2, "quad")
    mesh.add_cells("spare", "triangle", np.array([[0, 1, 4]]))
    model.pressure("spare", 1.0, name="loose")
    assert "loose: cell set 'spare' is not meshed by any part" in model.problems()


def _ring(kind, n=48, R=1.0):
    """Long tube (plane strain: ux, ry, rz held) of n shell4 around the circumference under
    an external pressure of 1 (the generator's normals point outward)."""
    from femb import cylinder_panel_mesh

    mesh = Mesh.merge(cylinder_panel_mesh(R, 0.1, 2 * np.pi, 1, n, name="ring", cells="quad"), tolerance=1e-9)
    model = Model(mesh)
    model.add_part("ring", "shell4", "ring", MAT, SEC)
    model.fix("ring", ("ux", "ry", "rz"))
    P = mesh.points
    on_z = np.flatnonzero(np.abs(P[:, 1]) < 1e-9)  # top and bottom lines: uy (rigid y and rotation)
    on_y = np.flatnonzero((np.abs(P[:, 2]) < 1e-9) & (P[:, 1] > 0))  # side line: uz
    model.fix(on_z, ("uy",))
    model.fix(on_y, ("uz",))
    model.pressure("ring", -1.0, kind=kind)
    return model


def test_tube_under_follower_pressure_buckles_at_3D_over_R3():
    """Linear buckling of a long tube under hydrostatic (follower) pressure: p_cr = 3 D/R³
    (Timoshenko & Gere, Theory of Elastic Stability, §7.4, the ring formula with D for the
    long tube; two equal n = 2 modes). Measured 3.028 D/R³ with 48 quads. The follower load
    stiffness matters: with the dead pressure the first load factor is 3.31 D/R³ instead."""
    from femb import solve_buckling

    D = E * T**3 / (12 * (1 - NU**2))
    lam = np.asarray(solve_buckling(_ring("follower"), n_modes=3).load_factors) / D
    assert lam[0] == pytest.approx(3.0, rel=0.015)
    assert lam[1] == pytest.approx(lam[0], rel=1e-6)
    dead = np.asarray(solve_buckling(_ring("dead"), n_modes=1).load_factors) / D
    assert dead[0] > 1.05 * lam[0]
