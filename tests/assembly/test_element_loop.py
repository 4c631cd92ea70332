"""The element-evaluation loop (femb.assembly.element_loop): composite passes give the
closed-form material stiffness, oriented blocks get their nodal rotations, and the work
arrays are allocated once per problem."""
import numpy as np
import pytest

from femb.assembly import Assembler
from femb.assembly.element_loop import ElementLoop
from femb.core.rotations import exp_batch
from femb.correlation import build_table
from femb.mesh import CellBlock, Mesh, line_mesh
from femb.model import Model
from femb.solvers import solve_dynamic
from femb.solvers.dynamics.problem import DynamicProblem

EA, L0 = 250.0, 2.0


def bar():
    """One free truss2d bar from (0, 0) to (2, 0)."""
    mesh = Mesh(np.array([[0.0, 0.0], [L0, 0.0]]), {"bar": CellBlock("line", np.array([[0, 1]]))}, {})
    model = Model(mesh)
    model.add_part("bar", "truss2d", "bar", values={"EA": EA, "rhoA": 1.0})
    return model


def test_material_stiffness_of_a_stretched_turned_bar_is_the_closed_form():
    """Bar stretched to l = 2.3 and turned by 0.7 rad: the tangent without its stress part
    (one composite pass: tangent − geometric stiffness at the bar's own N) is
    (EA/l0) e eᵀ on the node blocks, while the full tangent adds (N/l)(I − e eᵀ)."""
    model = bar()
    table = build_table(model)
    asm = Assembler(table)
    l, phi = 2.3, 0.7
    e = np.array([np.cos(phi), np.sin(phi)])
    u = np.zeros(table.n_var)
    u[table.var_of(1, "ux")], u[table.var_of(1, "uy")] = l * e - np.array([L0, 0.0])
    eq = table.var_eq[table.blocks[0].var[0]]
    K_mat = asm.tangent(u, include_geometric=False)[1].toarray()[np.ix_(eq, eq)]
    K = asm.tangent(u)[1].toarray()[np.ix_(eq, eq)]
    k = EA / L0 * np.outer(e, e)
    N = EA * (l - L0) / L0
    kg = N / l * (np.eye(2) - np.outer(e, e))
    assert np.allclose(K_mat, np.block([[k, -k], [-k, k]]), rtol=1e-13, atol=1e-12 * EA)
    assert np.allclose(K, np.block([[k + kg, -k - kg], [-k - kg, k + kg]]), rtol=1e-13, atol=1e-12 * EA)


def beam3d_with_spring():
    """A free beam3d (two elements) with a spring3d from its tip to ground: oriented and
    planar blocks in one model."""
    mesh = line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 2, "b")
    mesh = Mesh(np.vstack([mesh.points, [[1.0, 0.5, 0.0]]]),
                {**mesh.cells, "spring": CellBlock("line", np.array([[2, 3]]))}, {**mesh.node_sets, "anchor": [3]})
    model = Model(mesh, dim=3)
    model.add_part("b", "beam3d", "b", values={"EA": 1e3, "GJ": 2.0, "EIy": 3.0, "EIz": 4.0, "rhoA": 1.0,
                                               "rhoIp": 0.02, "rhoIy": 0.01, "rhoIz": 0.01})
    model.add_part("spring", "spring3d", "spring", values={"k": 50.0, "L0": 0.5})
    model.fix("anchor")
    model.initial_velocity("b_end", uz=0.5, rx=1.0)
    return model


def test_rigid_rotation_of_oriented_and_planar_blocks_gives_no_force():
    """Every node turned rigidly about the anchor (beam triads with it): the loop hands each
    oriented block its nodal rotations and the internal force vanishes (spring too)."""
    model = beam3d_with_spring()
    table = build_table(model)
    loop = ElementLoop(table)
    Q = np.empty((1, 3, 3))
    exp_batch(np.array([[0.3, -0.8, 0.5]]), Q)
    X = model.mesh.points
    x = (X - X[3]) @ Q[0].T + X[3]
    u = np.zeros(table.n_var)
    for node in range(4):
        for k, name in enumerate(("ux", "uy", "uz")):
            var = table.node_var[node, table.dof_names.index(name)]
            if var >= 0:
                u[var] = x[node, k] - X[node, k]
    R = np.repeat(Q, 4, axis=0)
    f = np.zeros(table.n_var)
    loop.run("internal_force", (u,), (u, R), force=f)
    assert np.abs(f).max() <= 1e-10 * 1e3
    with pytest.raises(ValueError, match="'b'"):
        loop.run("internal_force", (u,), None, force=f)


def test_work_arrays_are_allocated_once_per_problem():
    """Two runs of the 3-D mid-point step on one DynamicProblem (oriented beam, planar
    spring): the second creates no work array and reuses every one of the first."""
    problem = DynamicProblem(beam3d_with_spring())
    solve_dynamic(problem.model, 0.01, 0.03, problem=problem)
    buffers = problem.assembler.loop.buffers
    first = [{key: id(arr) for key, arr in buf._work.items()} for buf in buffers]
    outputs = [(id(buf.f), id(buf.K)) for buf in buffers]
    assert all(first)
    solve_dynamic(problem.model, 0.01, 0.03, problem=problem)
    assert [{key: id(arr) for key, arr in buf._work.items()} for buf in buffers] == first
    assert [(id(buf.f), id(buf.K)) for buf in buffers] == outputs


def test_outputs_are_allocated_by_the_passes_that_use_them():
    """After the set-up of a DynamicProblem (buffers released) no block holds output
    arrays; a strain-energy pass makes the energies e alone (zeros before the kernel writes
    them), the internal force the forces f alone."""
    problem = DynamicProblem(beam3d_with_spring())
    buffers = problem.assembler.loop.buffers
    assert not any(name in buf.__dict__ for buf in buffers for name in "fKse")
    u = np.zeros(problem.table.n_var)
    problem.assembler.strain_energy(u)
    assert [sorted(name for name in "fKse" if name in buf.__dict__) for buf in buffers] == [["e"], ["e"]]
    problem.assembler.internal_force(u)
    assert [sorted(name for name in "fKse" if name in buf.__dict__) for buf in buffers] == [["e", "f"], ["e", "f"]]
    assert buffers[0].K.shape == (buffers[0].f.shape[0], 12, 12) and not buffers[0].K.any()


def test_strain_energy_skips_inertia_only_blocks_with_the_same_sums():
    """beam3d + spring3d with a rigid body and a point mass, deformed and turned: the
    assembler's strain energy (which evaluates no kernel of the inertia-only blocks) is
    bitwise the sum over every block's kernel, and the inertia blocks' element energies are
    zeros of their element count."""
    model = beam3d_with_spring()
    model.add_discrete("tip body", "rigid_body3d", "b_end", m=0.7, Jxx=0.05, Jyy=0.08, Jzz=0.11)
    model.add_discrete("root mass", "point_mass3d", "b_start", m=0.4)
    table = build_table(model)
    asm = Assembler(table)
    assert [b.spec.internal_forces for b in table.blocks].count(False) == 2
    rng = np.random.default_rng(3)
    u = 0.05 * rng.standard_normal(table.n_var)
    R = asm.rotations_from_vectors(0.3 * rng.standard_normal(table.n_var))
    every = [(b, buf.e.copy()) for b, buf in asm.loop.evaluate("strain_energy", *asm._state(u, R))]
    total = 0.0
    for _, e in every:
        total += float(e.sum())
    got, parts = asm.strain_energy(u, per_element=True, R=R)
    assert total > 0.0
    assert got == total and asm.strain_energy(u, R=R) == total
    assert list(parts) == [b.part for b, _ in every]
    for b, e in every:
        assert parts[b.part].shape == (b.n_elements,) and np.array_equal(parts[b.part], e)


@pytest.mark.parametrize("dim", [2, 3])
def test_strain_energy_of_a_block_in_chunks_equals_the_whole_block_pass(dim):
    """A chain of 2·CHUNK + 5 beam elements, deformed and turned at random: the strain
    energy evaluated CHUNK elements at a time (Assembler.strain_energy) equals the
    whole-block pass bit for bit, per element and in total, and keeps no gathered inputs of
    the whole block (only work arrays of one chunk)."""
    from femb.assembly.element_loop import CHUNK

    n = 2 * CHUNK + 5
    if dim == 2:
        model = Model(line_mesh((0.0, 0.0), (0.01 * n, 0.0), n, "b"), dim=2)
        model.add_part("b", "beam2d", "b", values={"EA": 1e5, "EI": 10.0, "rhoA": 1.0, "rhoI": 1e-4})
    else:
        model = Model(line_mesh((0.0, 0.0, 0.0), (0.01 * n, 0.0, 0.0), n, "b"), dim=3)
        model.add_part("b", "beam3d", "b", values={"EA": 1e5, "GJ": 8.0, "EIy": 10.0, "EIz": 12.0, "rhoA": 1.0,
                                                   "rhoIp": 2e-4, "rhoIy": 1e-4, "rhoIz": 1.2e-4})
    table = build_table(model)
    rng = np.random.default_rng(5)
    u = 1e-3 * rng.standard_normal(table.n_var)
    asm = Assembler(table)
    total, parts = asm.strain_energy(u, per_element=True)
    buf = asm.loop.buffers[0]
    assert all(shape[0] == CHUNK for (key, shape) in buf._work)
    assert buf._work and all(isinstance(key, tuple) and key[0] == "rows" for (key, shape) in buf._work)  # no whole-block gathers
    whole = Assembler(table)
    energies = [b.e.copy() for _, b in whole.loop.evaluate("strain_energy", *whole._state(u, None))]
    assert np.abs(energies[0]).max() > 0.0
    np.testing.assert_array_equal(parts["b"], energies[0])
    assert total == float(energies[0].sum())
