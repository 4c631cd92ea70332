"""Stress recovery of co-rotated Craig–Bampton superelements by precomputed stress modes
(femb.solvers.reduction.stress_modes, femb.results.superelement_stresses): the recovered
section resultants of the component's elements equal the unreduced model's for interface
loads, are unchanged by rigid motions of the superelement, and are written as cell data of
the moving full mesh."""
import numpy as np
import pytest

import femb
from femb.core.errors import InputError
from femb.solvers.configuration import Configuration, split_state
from femb.solvers.problem import StaticProblem, linear_resultants
from femb.validation.superelement_cases import LOAD, beam_model, one_superelement, reduced_beam, rotation

FORCE = np.array([LOAD["fx"], LOAD["fy"], LOAD["fz"]])
MOMENT = np.array([LOAD["mx"], LOAD["my"], LOAD["mz"]])
Q_PLACE = rotation([0.3, 1.0, -0.5])
T_PLACE = np.array([1.0, 2.0, 3.0])


def _linear_state(model):
    """(problem, u) of the linear statics K u = f about the reference state."""
    prob = StaticProblem(model)
    u0, R = split_state(prob.initial_state(None))
    _, K = prob.assembler.tangent(u0, R=R)
    u = np.zeros(prob.table.n_var)
    u[prob.table.eq_var] = np.linalg.solve(K.toarray(), prob.table.free(prob.f_ref))
    return prob, u


def _unreduced_linear_resultants():
    """Linear resultants (n_el, 8) of the 20-element cantilever under LOAD at its tip."""
    full = beam_model()
    full.fix("beam_start")
    full.point_load("beam_end", **LOAD)
    prob, u = _linear_state(full)
    return linear_resultants(prob.assembler, u, prob.rotations)["beam"]


def _cantilever(k, placed, scale=1.0):
    """One superelement (the beam reduced with k modes), clamped at node 0, the tip loaded
    by scale·LOAD; placed: the body moved by (Q_PLACE, T_PLACE), the load turned with it."""
    Q, t = (Q_PLACE, T_PLACE) if placed else (np.eye(3), np.zeros(3))
    model = one_superelement(reduced_beam(k), placement=(Q, t), points=(t, t + Q @ [1.0, 0.0, 0.0]))
    model.fix(0)
    F, M = scale * (Q @ FORCE), scale * (Q @ MOMENT)
    model.point_load(1, fx=F[0], fy=F[1], fz=F[2], mx=M[0], my=M[1], mz=M[2])
    return model


@pytest.mark.parametrize("k, placed", [(0, False), (4, False), (4, True)])
def test_recovered_resultants_of_interface_loads_equal_the_unreduced_model(k, placed):
    """Interface loads: the constraint modes are the exact static interior response, so the
    stress modes applied to the superelement's linear response give the unreduced model's
    linear resultants to round-off (measured 3e-11 relative to the largest; the placement
    rotation is undone exactly), and superelement_resultants at the states ±ε·u of that
    response gives them by a symmetric difference (measured ≈ 1e-7: round-off of the stiff
    axial DOF, EA/EI = 1e4, divided by ε = 1e-4)."""
    expected = _unreduced_linear_resultants()
    model = _cantilever(k, placed)
    prob, u = _linear_state(model)
    modes = femb.superelement_stress_modes(model, "se")
    block = prob.table.blocks[0]
    d = np.where(block.var[0] >= 0, u[np.maximum(block.var[0], 0)], 0.0)  # the element's linear coordinates
    linear = modes.resultants(d)
    assert set(linear) == {"beam"} and linear["beam"].shape == (20, 8)
    assert modes.names["beam"] == ("N", "Vy", "Vz", "T", "My1", "Mz1", "My2", "Mz2")
    scale = np.abs(expected).max()
    assert np.abs(linear["beam"] - expected).max() <= 1e-9 * scale
    eps = 1e-4
    plus, minus = (Configuration.from_vector(prob.rotations, s * eps * u) for s in (1.0, -1.0))
    sp = femb.superelement_resultants(model, prob.table, "se", plus.u, plus.R, modes)["beam"]
    sm = femb.superelement_resultants(model, prob.table, "se", minus.u, minus.R)["beam"]
    assert np.abs((sp - sm) / (2.0 * eps) - expected).max() <= 1e-6 * scale
    # the shear forces and the clamp moment of the cantilever (statics of the free body;
    # the element's signs: V = −F, M_y1 = −(m_y − f_z L) at the clamp)
    assert np.allclose(expected[:, [1, 2]], [-LOAD["fy"], -LOAD["fz"]], rtol=0.0, atol=1e-9)
    assert abs(expected[0, 4] + (LOAD["my"] - LOAD["fz"])) <= 1e-9


def test_stress_modes_are_computed_once_per_component():
    rc = reduced_beam(2)
    first = rc.stress_modes()
    assert rc.stress_modes() is first
    assert first["beam"].shape == (12 + 2, 20, 8)
    # a rigid translation of the interface has no stress: ux at both ends moves the beam rigidly
    ux = [i for i, dof in enumerate(rc.boundary_dofs()) if dof[1] == "ux"]
    assert np.abs(first["beam"][ux].sum(axis=0)).max() <= 1e-6 * np.abs(first["beam"]).max()
    with pytest.raises(InputError, match="'nowhere' is not a superelement"):
        femb.superelement_stress_modes(one_superelement(rc), "nowhere")


def _rigidly_moved(table, u, R, Q, t, points):
    """The state (u', R') of every node moved rigidly: x' = t + Q x, R' = Q R (modal
    amplitudes unchanged)."""
    v = u.copy()
    X = np.asarray(points, dtype=float)
    x = X + np.stack([u[table.node_var[:, table.dof_names.index(c)]] for c in ("ux", "uy", "uz")], axis=1)
    moved = t + x @ Q.T - X
    for c, name in enumerate(("ux", "uy", "uz")):
        v[table.node_var[:, table.dof_names.index(name)]] = moved[:, c]
    return v, np.einsum("ij,njk->nik", Q, R)


def test_recovered_resultants_are_objective():
    """A moderately loaded superelement cantilever (0.05·LOAD, geometrically nonlinear
    statics) and the same with its clamp turned by 90° about an oblique axis and the load
    turned with it: the recovered resultants agree to the Newton tolerance (measured
    ~1e-11 relative); any rigid motion of the solved state leaves them unchanged to
    round-off, while they differ from the linear ones by the load's nonlinearity."""
    base = _cantilever(4, placed=False, scale=0.05)
    rb = femb.solve_static(base, steps=2)
    sb = femb.superelement_resultants(base, rb.table, "se", rb.final, rb.nodal_rotation_matrices())["beam"]
    scale = np.abs(sb).max()
    lin = 0.05 * _unreduced_linear_resultants()
    assert np.abs(sb - lin).max() >= 1e-3 * scale  # the nonlinear state is not the linear one
    axis = np.array([1.0, 2.0, -2.0]) / 3.0
    Q = rotation(0.5 * np.pi * axis)
    turned = one_superelement(reduced_beam(4))
    turned.fix(0, "translations")
    for dof, value in zip(("rx", "ry", "rz"), 0.5 * np.pi * axis):
        turned.prescribe(0, dof, value)
    F, M = 0.05 * (Q @ FORCE), 0.05 * (Q @ MOMENT)
    turned.point_load(1, fx=F[0], fy=F[1], fz=F[2], mx=M[0], my=M[1], mz=M[2])
    rt = femb.solve_static(turned, steps=4)
    st = femb.superelement_resultants(turned, rt.table, "se", rt.final, rt.nodal_rotation_matrices())["beam"]
    assert np.abs(st - sb).max() <= 1e-8 * scale
    Qm, t = rotation([-2.0, 0.4, 1.1]), np.array([5.0, -3.0, 0.5])
    u2, R2 = _rigidly_moved(rb.table, rb.final, rb.nodal_rotation_matrices(), Qm, t, base.mesh.points)
    s2 = femb.superelement_resultants(base, rb.table, "se", u2, R2)["beam"]
    assert np.abs(s2 - sb).max() <= 1e-9 * scale  # the stiff axial force carries the round-off of the positions (EA = 1e4)


def test_the_moving_full_mesh_is_written_with_its_resultants(tmp_path):
    """superelement_to_vtk writes every frame of a static solve as the full component mesh:
    the cell data are the recovered resultants of that frame, the points move with the
    recovered positions."""
    import meshio

    model = _cantilever(2, placed=True, scale=0.05)
    res = femb.solve_static(model, steps=3)
    writer = femb.superelement_to_vtk(model, res, "se", tmp_path, name="link")
    frames = femb.read_pvd(writer.path)
    assert len(frames) == len(res) == 4
    for k, (_, path) in enumerate(frames):
        mesh = meshio.read(path)
        R = res.nodal_rotation_matrices(k)
        s = femb.superelement_resultants(model, res.table, "se", res.states[k], R)["beam"]
        _, x = femb.superelement_positions(model, res.table, "se", res.states[k], R)
        assert mesh.cells[0].data.shape == (20, 2)
        assert np.allclose(mesh.point_data["deformed"], x, rtol=0.0, atol=1e-14)
        for j, name in enumerate(("N", "Vy", "Vz", "T", "My1", "Mz1", "My2", "Mz2")):
            assert np.array_equal(mesh.cell_data[name][0], s[:, j]), (k, name)
        assert np.all(mesh.cell_data["part_id"][0] == 0)
    last = meshio.read(frames[-1][1])
    assert abs(last.cell_data["Vy"][0][0] - (-0.05)) <= 0.05 * 0.05  # the tip shear of 0.05·fy, up to nonlinearity
    one = femb.write_superelement_frame(tmp_path / "one.vtu", model, res, "se")
    assert np.array_equal(meshio.read(one).cell_data["My1"][0], last.cell_data["My1"][0])


def _strip():
    """A shell4 strip 1 × 0.2 (8 × 2 quads, E t = 20, E t³/12 = 6.7e-4) with its edges
    x = 0 and x = 1 as node sets strip_x0, strip_x1."""
    model = femb.Model(femb.rectangle_mesh(1.0, 0.2, 8, 2, "strip", cells="quad"), name="strip")
    model.add_part("strip", "shell4", "strip", femb.Material(E=1e3, nu=0.3, rho=1.0), femb.Section(thickness=0.02))
    return model


def _linear_resultants_4(prob, u, h=1e-3):
    """Linearized resultants of u by the fourth-order central difference along
    (a u, exp(a θ̂)), a = ±h, ±2h over max|u|: a reference free of the round-off that
    linear_resultants' small step leaves in the stiff membrane resultants of a bent shell."""
    e = h / np.abs(u).max()

    def at(a):
        c = Configuration.from_vector(prob.rotations, a * u)
        return prob.assembler.resultants(c.u, R=c.R)

    p1, m1, p2, m2 = at(e), at(-e), at(2 * e), at(-2 * e)
    return {k: (8.0 * (p1[k] - m1[k]) - (p2[k] - m2[k])) / (12.0 * e) for k in p1}


def test_a_reduced_shell_strip_recovers_membrane_and_bending_resultants(tmp_path):
    """The strip reduced on both short edges (6 interface nodes, k = 4), clamped at x = 0
    and loaded in-plane and out of plane at x = 1: the recovered shell resultants (membrane
    forces, moments, shears, nodal forces) equal the unreduced strip's linear ones
    (measured 1e-8 relative to the largest, the round-off of the stress modes' central
    difference in the membrane part), and the written frame carries the shell stress
    fields of the recovered resultants."""
    import meshio

    from femb.export.fields import shell_fields

    loads = {"fy": 0.01, "fz": -0.02}
    full = _strip()
    full.fix("strip_x0")
    for n in full.nodes("strip_x1"):
        full.point_load(int(n), **loads)
    prob_f, uf = _linear_state(full)
    expected = _linear_resultants_4(prob_f, uf)["strip"]
    comp = _strip()
    x0, x1 = comp.nodes("strip_x0"), comp.nodes("strip_x1")
    nodes = np.sort(np.concatenate([x0, x1]))
    rc = femb.reduce_component(comp, nodes, 4, mass="consistent")
    model = femb.Model(femb.Mesh(np.asarray(comp.mesh.points)[nodes]), name="shell superelement")
    model.add_superelement("se", rc, list(range(nodes.size)))
    model.fix([i for i, n in enumerate(nodes) if n in set(x0)])
    for i in [i for i, n in enumerate(nodes) if n in set(x1)]:
        model.point_load(i, **loads)
    prob, u = _linear_state(model)
    modes = femb.superelement_stress_modes(model, "se")
    block = prob.table.blocks[0]
    d = np.where(block.var[0] >= 0, u[np.maximum(block.var[0], 0)], 0.0)
    s = modes.resultants(d)["strip"]
    assert s.shape == (16, 32) and modes.names["strip"][:8] == ("Nxx", "Nyy", "Nxy", "Mxx", "Myy", "Mxy", "Qx", "Qy")
    assert np.abs(s - expected).max() <= 1e-7 * np.abs(expected).max()
    bending = slice(3, 8)  # the moments and shears alone, far from the membrane round-off (measured 1.7e-9)
    assert np.abs(s[:, bending] - expected[:, bending]).max() <= 1e-8 * np.abs(expected[:, bending]).max()
    res = femb.solve_static(model, steps=1)
    path = femb.write_superelement_frame(tmp_path / "strip.vtu", model, res, "se")
    mesh = meshio.read(path)
    rec = femb.superelement_resultants(model, res.table, "se", res.final, res.nodal_rotation_matrices())["strip"]
    fields = shell_fields(rec, modes.names["strip"], np.full(16, 0.02))
    assert mesh.cells[0].type == "quad" and mesh.cells[0].data.shape == (16, 4)
    assert np.allclose(mesh.cell_data["von_mises"][0], fields["von_mises"], rtol=1e-14, atol=0.0)
    assert np.allclose(mesh.cell_data["membrane_force"][0], rec[:, :3], rtol=1e-14, atol=0.0)
    assert np.abs(fields["von_mises"]).max() > 0.0
