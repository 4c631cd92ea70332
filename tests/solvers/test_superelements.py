"""Co-rotated Craig–Bampton superelements in analyses: reduced = unreduced linear statics
for interface loads (exact for any k), the same under a placement rotation and under a
90° rotation of the support about an oblique axis, a chain of superelements rolling up
under an end moment (second-order convergence to the circle), modal analysis of
assemblies giving the Craig–Bampton frequencies, and bad input naming its place."""
import numpy as np
import pytest
import scipy.linalg as sla

import femb
from femb.core.errors import InputError, ModelError
from femb.mesh import line_mesh
from femb.mesh.mesh import Mesh
from femb.model import Model, SuperelementData
from femb.solvers.configuration import split_state
from femb.validation.superelement_cases import BEAM, LOAD, beam_model, reduced_beam, rollup_tip_error, turned_support_response
from femb.validation.superelement_cases import one_superelement as two_node_assembly
from femb.validation.superelement_cases import rotation as rot


def linear_solution(model):
    """u (n_var,) of the linear statics K u = f about the reference state."""
    prob = femb.StaticProblem(model)
    u0, R = split_state(prob.initial_state(None))
    _, K = prob.assembler.tangent(u0, R=R)
    u = np.zeros(prob.table.n_var)
    u[prob.table.eq_var] = np.linalg.solve(K.toarray(), prob.table.free(prob.f_ref))
    return u, prob.table


def tip_response(u, table, node):
    return np.array([u[table.var_of(node, d)] for d in ("ux", "uy", "uz", "rx", "ry", "rz")])


@pytest.mark.parametrize("k", [0, 3])
def test_reduced_statics_equal_the_unreduced_model(k):
    """Interface loads: Craig–Bampton is exact (the constraint modes are the static
    response), so the clamped superelement's tip response equals the 20-element beam's to
    round-off (1e-10 relative)."""
    full = beam_model()
    full.fix("beam_start")
    full.point_load("beam_end", **LOAD)
    uf, tf = linear_solution(full)
    expected = tip_response(uf, tf, full.node("beam_end"))
    asm = two_node_assembly(reduced_beam(k))
    asm.fix(0)
    asm.point_load(1, **LOAD)
    ur, tr = linear_solution(asm)
    assert np.abs(tip_response(ur, tr, 1) - expected).max() <= 1e-10 * np.abs(expected).max()
    assert np.all(np.abs(ur[tr.internal_vars("se")]) <= 1e-12)  # K_bq = 0: boundary loads excite no mode


def test_a_placed_superelement_gives_the_rotated_answer():
    """The reduced body placed at x = t + Q X (Q a 90° rotation about an oblique axis) with
    the loads turned by Q answers Q times the unrotated response (1e-10)."""
    Q = rot(0.5 * np.pi * np.array([1.0, 2.0, -2.0]) / 3.0)
    t = np.array([0.4, -1.0, 2.0])
    base = two_node_assembly(reduced_beam(2))
    base.fix(0)
    base.point_load(1, **LOAD)
    u0, t0 = linear_solution(base)
    r0 = tip_response(u0, t0, 1)
    placed = two_node_assembly(reduced_beam(2), placement=(Q, t), points=(t, t + Q @ [1.0, 0.0, 0.0]))
    placed.fix(0)
    F, Mo = Q @ [LOAD["fx"], LOAD["fy"], LOAD["fz"]], Q @ [LOAD["mx"], LOAD["my"], LOAD["mz"]]
    placed.point_load(1, fx=F[0], fy=F[1], fz=F[2], mx=Mo[0], my=Mo[1], mz=Mo[2])
    u1, t1 = linear_solution(placed)
    r1 = tip_response(u1, t1, 1)
    expected = np.concatenate([Q @ r0[:3], Q @ r0[3:]])
    assert np.abs(r1 - expected).max() <= 1e-10 * np.abs(expected).max()


def test_a_support_rotated_by_90_degrees_carries_the_superelement_along():
    """Large rigid motion in a nonlinear static solve: the clamp turns by Q (90° about an
    oblique axis) and the tip load is Q f. The tip moves to Q(X + u_lin) and turns by
    Q exp(θ_lin), up to the geometric nonlinearity of the small load, O(|u_lin|/L) relative
    (|u_lin| ≈ 3e-7 here; asserted at 1e-5)."""
    lin, turned = turned_support_response(2)
    u_body, th = turned[:3], turned[3:]
    assert np.abs(u_body - lin[:3]).max() <= 1e-5 * np.abs(lin[:3]).max()
    assert np.abs(th - lin[3:]).max() <= 1e-5 * np.abs(lin[3:]).max()


def test_a_chain_of_superelements_rolls_up_with_second_order_convergence():
    """Geometric nonlinearity by chaining: each superelement is linear in its shadow frame,
    so a piece that bends through φ/N misrepresents the arc by O((φ/N)²); the tip error
    falls as N⁻² (fitted rate asserted ≥ 1.8) towards the classical roll-up circle
    (half a circle here, φ = π)."""
    counts = np.array([2, 4, 8])
    errors = np.array([rollup_tip_error(int(N), np.pi) for N in counts])
    rate = -np.polyfit(np.log(counts), np.log(errors), 1)[0]
    assert rate >= 1.8
    assert errors[-1] <= 0.01


def first_elastic(omega, n_rigid=6):
    return omega[n_rigid]


@pytest.mark.parametrize("k3, k2, published", [(0, 0, 26.8328), (2, 1, 22.4539), (8, 4, 22.3825)])
def test_modal_analysis_of_a_free_superelement_gives_the_craig_bampton_frequencies(k3, k2, published):
    """A free–free assembly of one superelement: its frequencies are those of the pencil
    (K_r, M_r) (1e-8), and its first elastic bending pair those of the planar cb-unit-beam
    reduction with half the modes (3-D bending modes come in pairs for EIy = EIz) (1e-8),
    whose published values have six digits (5e-6)."""
    red = reduced_beam(k3)
    res = femb.solve_modal(two_node_assembly(red), n_modes=10, mass="consistent")
    data = red.superelement()
    lam = sla.eigvalsh(data.K, data.M)
    direct = np.sqrt(np.abs(lam[6:10]))
    assert np.allclose(res.omega[6:10], direct, rtol=1e-8, atol=0.0)
    from femb.validation.reduction_cases import _first_elastic, unit_beam

    planar = unit_beam()
    basis = femb.reduce_component(planar, [planar.node("beam_start"), planar.node("beam_end")], k2,
                                  mass="consistent").basis
    w2 = _first_elastic(basis)
    assert abs(res.omega[6] / w2 - 1.0) <= 1e-8 and abs(res.omega[7] / w2 - 1.0) <= 1e-8
    assert abs(res.omega[6] / published - 1.0) <= 5e-6


def test_two_joined_superelements_converge_from_above_to_the_unreduced_beam():
    """Two halves of the unit beam (10 elements each) reduced on their ends and sharing the
    middle node: a Ritz approximation, so the first free–free elastic frequency decreases
    with k towards the unreduced 20-element beam's and never falls below it; with every
    interior mode kept (k = 54) the reduction is a change of basis and the frequency is the
    unreduced one (1e-8)."""
    full = femb.solve_modal(beam_model(), n_modes=8, mass="consistent")
    target = first_elastic(full.omega)
    omegas = []
    for k in (0, 2, 4, 8, 54):
        red = reduced_beam(k, n_el=10, length=0.5)
        model = Model(Mesh(np.array([[0.0, 0, 0], [0.5, 0, 0], [1.0, 0, 0]])), name="two halves")
        model.add_superelement("left", red, [0, 1])
        model.add_superelement("right", red, [1, 2], placement=(np.eye(3), [0.5, 0.0, 0.0]))
        omegas.append(first_elastic(femb.solve_modal(model, n_modes=8, mass="consistent").omega))
    omegas = np.array(omegas)
    assert np.all(np.diff(omegas) <= 1e-9 * target)
    assert np.all(omegas >= target * (1.0 - 1e-10))
    assert omegas[3] / target - 1.0 <= 0.1 * (omegas[0] / target - 1.0)
    assert abs(omegas[-1] / target - 1.0) <= 1e-8


# ----------------------------------------------------------------------------- bad input
def test_bad_interface_sets_are_named():
    comp = beam_model(4)
    with pytest.raises(InputError, match="interface 'nowhere'.*unknown"):
        femb.reduce_component(comp, "nowhere", 1)
    comp.mesh.add_node_set("empty", np.zeros(0, dtype=np.int64))
    with pytest.raises(InputError, match="interface 'empty'.*empty"):
        femb.reduce_component(comp, "empty", 1)


def test_interface_node_count_and_order_must_match_the_reduction():
    red = reduced_beam(1, n_el=4)
    model = Model(Mesh(np.array([[0.0, 0, 0], [1.0, 0, 0], [2.0, 0, 0]])))
    with pytest.raises(InputError, match="superelement 'se'.*3 model node.*2 interface nodes"):
        model.add_superelement("se", red, [0, 1, 2])
    with pytest.raises(InputError, match="superelement 'se'.*node 1 is at .*interface node 0"):
        model.add_superelement("se", red, [1, 0])
    with pytest.raises(InputError, match="superelement 'se'.*node 2 is at"):
        model.add_superelement("se", red, [0, 2])


def test_reductions_without_six_free_dofs_per_interface_node_are_refused():
    comp = beam_model(4)
    comp.fix("beam_start", "rx")
    red = femb.reduce_component(comp, [comp.node("beam_start"), comp.node("beam_end")], 1, mass="consistent")
    with pytest.raises(InputError, match="interface node 0 has no free rx"):
        red.superelement()
    from femb.validation.reduction_cases import unit_beam

    planar = unit_beam(4)
    red2 = femb.reduce_component(planar, [planar.node("beam_start"), planar.node("beam_end")], 1, mass="consistent")
    with pytest.raises(InputError, match="needs a 3-D component"):
        red2.superelement()


def test_matrix_sizes_that_do_not_match_are_named(tmp_path):
    red = reduced_beam(1, n_el=4)
    basis = red.basis
    dofs = red.boundary_dofs()
    m = basis.K.shape[0]  # 12 boundary DOFs + the first bending pair (k = 1 keeps the degenerate pair whole)
    assert m == 14
    with pytest.raises(InputError, match=f"matrix files.*reduced matrices are {m} x {m} but the reduction lists 11"):
        SuperelementData.from_craig_bampton(basis, dofs[:-1], [0, 4], np.zeros((2, 3)), source="matrix files")
    data = red.superelement()
    bad = SuperelementData(data.K[:-1, :-1], data.M, data.positions, data.frequencies, "my.mtx")
    model = Model(Mesh(np.array([[0.0, 0, 0], [1.0, 0, 0]])))
    with pytest.raises(InputError, match=f"(?s)superelement 'se' \\(my.mtx\\).*reduced mass is \\({m}, {m}\\)"):
        model.add_superelement("se", bad, [0, 1])
    planar = Model(Mesh(np.array([[0.0, 0], [1.0, 0]])))
    with pytest.raises(ModelError, match="3-D model"):
        planar.add_superelement("se", data, [0, 1])


def test_modal_amplitudes_are_scaled_to_lengths():
    """SuperelementData keeps q̂ = q/√m (m the body mass, here ρA·L = 3): M_q̂q̂ = m I and
    K_q̂q̂ = m Ω², with the fixed-interface frequencies unchanged."""
    comp = Model(line_mesh((0.0, 0.0, 0.0), (1.5, 0.0, 0.0), 6, "beam"))
    comp.add_part("beam", "beam3d", "beam", values={**BEAM, "rhoA": 2.0})
    red = femb.reduce_component(comp, [comp.node("beam_start"), comp.node("beam_end")], 3, mass="consistent")
    data = red.superelement()
    assert abs(data.modal_scale ** 2 - 3.0) <= 1e-12 * 3.0
    k = data.n_modes  # 3 asked for; a cut through the degenerate second bending pair keeps it whole
    assert k == 4
    assert np.allclose(data.M[12:, 12:], 3.0 * np.eye(k), rtol=0.0, atol=1e-12)
    assert np.allclose(np.diag(data.K[12:, 12:]), 3.0 * red.basis.frequencies ** 2, rtol=1e-12, atol=0.0)


def test_full_mesh_recovery_and_output(tmp_path):
    """A placed, clamped superelement under a small tip force: the recovered component
    nodes land on the model's interface nodes to round-off and their interior positions
    match the unreduced beam's (the constraint modes are the exact static interior response;
    nonlinearity of the load O(|u|/L) ≈ 3e-6 relative to the deflection), and the
    component mesh is written for ParaView."""
    import meshio

    Q = rot([0.3, 1.0, -0.5])
    t = np.array([1.0, 2.0, 3.0])
    model = two_node_assembly(reduced_beam(4), placement=(Q, t), points=(t, t + Q @ [1.0, 0.0, 0.0]))
    model.fix(0)
    F = Q @ [0.0, 1e-5, 0.0]
    model.point_load(1, fx=F[0], fy=F[1], fz=F[2])
    res = femb.solve_static(model, steps=1)
    X, x = femb.superelement_positions(model, res.table, "se", res.final, res.nodal_rotation_matrices())
    assert X.shape == (21, 3)
    nodes = np.asarray(model.mesh.points) + res.nodal_displacements()
    assert np.abs(x[[0, 20]] - nodes).max() <= 1e-14 * np.abs(nodes).max()
    full = beam_model()
    full.fix("beam_start")
    full.point_load("beam_end", fy=1e-5)
    rf = femb.solve_static(full, steps=1)
    xf = (np.asarray(full.mesh.points) + rf.nodal_displacements()) @ Q.T + t
    deflection = np.abs(rf.nodal_displacements()).max()
    assert np.abs(x - xf).max() <= 1e-5 * deflection
    path = femb.write_superelement_frame(tmp_path / "se.vtu", model, res, "se")
    mesh = meshio.read(path)
    assert np.allclose(mesh.point_data["deformed"], x, rtol=0.0, atol=1e-14)
    assert mesh.cells[0].data.shape == (20, 2)
    with pytest.raises(InputError, match="'beam' is not a superelement"):
        femb.superelement_positions(model, res.table, "beam", res.final)


CASE = """\
[model]
dim = 3
[mesh.line]
name = "axis"
start = [0.0, 0.0, 0.0]
end = [1.0, 0.0, 0.0]
elements = 1
[[superelements]]
name = "link"
nodes = [0, 1]
stiffness = "K.npz"
mass = "M.npz"
dof_map = "dofs.csv"
interface = [0, 20]
n_modes = 2
[[fix]]
nodes = "axis_start"
[[loads]]
type = "point"
nodes = "axis_end"
fy = 1e-3
[[steps]]
type = "static"
steps = 1
"""


def test_case_files_declare_superelements_from_matrix_files(tmp_path):
    """[[superelements]]: matrices exported as files (here the 20-element beam's), reduced on
    the DOF-map nodes ``interface`` and attached to ``nodes``: the tip deflection of the
    clamped link is the beam's, PL³/3EI + O(nonlinearity 1e-7) (asserted to 1e-6 rel); bad
    keys name the key path."""
    import scipy.sparse as sp

    from femb.case import load_case

    comp = femb.component_matrices(beam_model(), ["beam"], "beam", mass="consistent")
    sp.save_npz(tmp_path / "K.npz", sp.csr_matrix(comp.K))
    sp.save_npz(tmp_path / "M.npz", sp.csr_matrix(comp.M))
    (tmp_path / "dofs.csv").write_text("node,dof\n" + "".join(f"{n},{d}\n" for n, d in comp.dofs))
    path = tmp_path / "case.toml"
    path.write_text(CASE)
    (res,) = load_case(path).run(tmp_path / "out", progress=False)
    assert res.dof(1, "uy", frame=-1) == pytest.approx(1e-3 / 3.0, rel=1e-6)
    assert res.internal("link").shape == (1, 2)
    path.write_text(CASE.replace("interface = [0, 20]", "interface = [0, 20, 5]"))
    with pytest.raises(InputError, match=r"superelements\[0\].interface: 3 interface nodes for 2 model nodes"):
        load_case(path)
    path.write_text(CASE.replace('stiffness = "K.npz"', 'stiffness = "nope.npz"'))
    with pytest.raises(InputError, match="nope.npz.*file not found"):
        load_case(path)


def test_a_superelement_mixed_with_beam_elements_and_a_tie():
    """Left half of the unit beam as a superelement (10 elements reduced, k = 3), right half
    as 10 beam3d elements welded to it by a tie at a separate coincident node: the linear
    tip response equals the unreduced 20-element beam's to 1e-10."""
    full = beam_model()
    full.fix("beam_start")
    full.point_load("beam_end", **LOAD)
    uf, tf = linear_solution(full)
    expected = tip_response(uf, tf, full.node("beam_end"))
    right = line_mesh((0.5, 0.0, 0.0), (1.0, 0.0, 0.0), 10, "right")
    mesh = Mesh.merge(Mesh(np.array([[0.0, 0.0, 0.0], [0.5, 0.0, 0.0]])), right)
    model = Model(mesh, name="mixed")
    model.add_part("right", "beam3d", "right", values=BEAM)
    model.add_superelement("left", reduced_beam(3, n_el=10, length=0.5), [0, 1])
    model.weld(1, "right_start")
    model.fix(0)
    model.point_load("right_end", **LOAD)
    um, tm = linear_solution(model)
    got = tip_response(um, tm, model.node("right_end"))
    assert np.abs(got - expected).max() <= 1e-10 * np.abs(expected).max()


def test_frequencies_of_a_rigidly_turned_free_superelement_are_unchanged():
    """Modal analysis about a large rigid rotation and translation of a free superelement
    (q = 0): stiffness and mass turn with the shadow frame, so the frequencies are those of
    the reference state (1e-9)."""
    from femb.correlation import build_table
    from femb.solvers.configuration import Configuration, RotationLayout

    model = two_node_assembly(reduced_beam(4))
    ref = femb.solve_modal(model, n_modes=10, mass="consistent").omega
    table = build_table(model)
    lay = RotationLayout(table)
    Q = rot([1.1, -0.4, 2.3])
    t = np.array([0.3, 5.0, -2.0])
    u = np.zeros(table.n_var)
    R = lay.identity()
    for node, X in enumerate(np.asarray(model.mesh.points)):
        for k, d in enumerate(("ux", "uy", "uz")):
            u[table.var_of(node, d)] = (t + Q @ X - X)[k]
        R[node] = Q
    lay.write_vectors(u, R)
    turned = femb.solve_modal(model, n_modes=10, mass="consistent", state=Configuration(u, R, lay)).omega
    assert np.allclose(turned[6:], ref[6:], rtol=1e-9, atol=0.0)
    assert np.abs(turned[:6]).max() <= 1e-6 * ref[6]


def test_alpha_schemes_and_linearization_without_mass_points_refuse_superelements_by_name():
    """Superelements integrate in the energy-conserving mid-point scheme only (their mass
    points carry a step state): the α schemes refuse a model with a superelement, naming
    the part, instead of running a wrong mass. 3-D linearization works through the mass
    points (tests/solvers/test_superelement_spin.py) and refuses a superelement without
    them, whose reduced mass couples its nodes and modes."""
    from dataclasses import replace

    model = two_node_assembly(reduced_beam(2))
    model.fix(0)
    with pytest.raises(InputError, match="'se'"):
        femb.solve_dynamic(model, 1e-3, 2e-3, scheme=femb.GeneralizedAlpha())
    lm = femb.linearize(model, np.zeros(femb.build_table(model).n_var))
    assert lm.M.shape == (8, 8)
    bare = two_node_assembly(replace(reduced_beam(2).superelement(), points=None))
    bare.fix(0)
    with pytest.raises(ModelError, match="'se'.*superelement"):
        femb.linearize(bare, np.zeros(femb.build_table(bare).n_var))
