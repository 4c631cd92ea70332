"""Compiled whole mid-point steps of 3-D beam models (femb.solvers.dynamics.spatial_step)
against the general path (MidPoint3DSystem + step_newton.iterate): the same end states,
rotations and angular momenta to round-off, the same Newton iterations per step, the
energy books equal; the energy of a free flight conserved to round-off at a large step;
models it does not cover run the general path."""
import math

import numpy as np
import pytest

from femb.core.scatter import scatter_matrix
from femb.correlation.pattern import csr_rows
from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers import solve_dynamic
from femb.solvers.dynamics.driver import DynamicSettings
from femb.solvers.dynamics.midpoint2d_kernels import _rounding_residual, add_mass_entries
from femb.solvers.dynamics.problem import DynamicProblem, Rayleigh
from femb.solvers.dynamics.schemes import MidPoint
from femb.solvers.dynamics.spatial_step import SpatialSteps
from femb.solvers.linalg.factorization import pattern_band_widths
from femb.solvers.nonlinear.newton import NewtonSettings
from femb.validation.dynamic3d_cases import spin_up_beam_3d

BEAM3D = {"EA": 1e4, "GJ": 8.0, "EIy": 10.0, "EIz": 12.0, "rhoA": 1.0, "rhoIp": 0.02, "rhoIy": 0.01, "rhoIz": 0.012}


def free_beam(element="beam3d", n=6, length=2.0):
    """A skew straight beam (not in a coordinate plane), flying and spinning freely."""
    model = Model(line_mesh((0.0, 0.0, 0.0), (length, 0.3 * length / 2, 0.2 * length / 2), n, "b"), dim=3, name="free beam")
    values = dict(BEAM3D, **({"GAy": 3e3, "GAz": 3e3} if element == "beam3d_timoshenko" else {}))
    model.add_part("b", element, "b", values=values)
    model.initial_velocity("b_start", ux=0.3, uy=-0.2, uz=1.0, rx=2.0, ry=-1.0, rz=3.0)
    model.initial_velocity("b_end", ux=-0.5, uy=0.4, uz=0.2, rx=-1.0, ry=2.5, rz=0.5)
    return model


def cantilever(element="beam3d", driven=False):
    """A cantilever under gravity (−z) with a point mass at mid-span, a timed tip force
    and a timed tip moment about a fixed axis; ``driven``: the root turns about x by a
    prescribed angle (a torsion drive), its other DOFs clamped."""
    model = Model(line_mesh((0.0, 0.0, 0.0), (1.5, 0.0, 0.0), 6, "b"), dim=3, name="cantilever")
    values = dict(BEAM3D, **({"GAy": 3e3, "GAz": 3e3} if element == "beam3d_timoshenko" else {}))
    model.add_part("b", element, "b", values=values)
    model.add_discrete("mass", "point_mass3d", 3, m=0.4)
    if driven:
        model.fix("b_start", ("ux", "uy", "uz", "ry", "rz"))
        model.prescribe("b_start", "rx", function=lambda t: 0.8 * t * t)
    else:
        model.fix("b_start", "all")
    model.gravity((0.0, 0.0, -9.81))
    model.point_load("b_end", amplitude=lambda t: math.sin(12.0 * t), fy=0.6)
    model.point_load("b_end", amplitude=lambda t: 1.0 - math.cos(9.0 * t), mz=0.05, mx=0.03)
    return model


def run(model, dt, t_end, compiled, mass="lumped", every=1, tol=1e-10, **newton):
    settings = DynamicSettings(mass=mass, record_every=every, compiled_step=compiled,
                               newton=NewtonSettings(tolerance=tol, **{"max_iterations": 25, **newton}))
    return solve_dynamic(model, dt, t_end, settings)


def energy_scale(res):
    return max(np.abs(res.series("kinetic_energy")).max(), np.abs(res.series("strain_energy")).max())


def assert_same_run(a, b, rel=1e-12):
    """Same frames, iterations and cut-backs; states, rotations and books equal to ``rel``
    relative, velocities to 10·``rel`` (both paths agree to round-off per step)."""
    assert a.info["compiled_step"] and not b.info["compiled_step"]
    assert a.times == b.times
    for name in ("iterations", "cutbacks"):
        np.testing.assert_array_equal(a.series(name), b.series(name))
    for xa, xb in zip(a.states, b.states):
        np.testing.assert_allclose(xa, xb, rtol=0, atol=rel * max(np.abs(xb).max(), 1e-300))
    for xa, xb in zip(a.velocities, b.velocities):  # v = 2z/h − v_n: the round-off of z times 2/h
        np.testing.assert_allclose(xa, xb, rtol=0, atol=10.0 * rel * max(np.abs(xb).max(), 1e-300))
    for Ra, Rb in zip(a.arrays["rotations"], b.arrays["rotations"]):
        np.testing.assert_allclose(Ra, Rb, rtol=0, atol=rel)
    for name in ("total_energy", "kinetic_energy", "external_work", "constraint_work", "energy_residual",
                 "angular_momentum_x", "angular_momentum_y", "angular_momentum_z"):
        x, y = a.series(name), b.series(name)
        np.testing.assert_allclose(x, y, rtol=0, atol=rel * max(energy_scale(a), np.abs(y).max()))


@pytest.mark.parametrize("every", [1, 10])
def test_spin_up_with_prescribed_hub_rotation_equals_general_path(every):
    a = run(spin_up_beam_3d(10), 0.01, 1.0, True, mass="invariant", every=every, tol=1e-8)
    b = run(spin_up_beam_3d(10), 0.01, 1.0, False, mass="invariant", every=every, tol=1e-8)
    assert_same_run(a, b)
    assert a.info["newton_iterations"] == b.info["newton_iterations"] >= 100
    W_c = a.series("constraint_work")
    assert W_c[-1] > 1e-3 * energy_scale(a)  # the hub drive does work, booked as constraint work
    assert np.abs(a.series("energy_residual")).max() < 1e-9 * energy_scale(a)
    hub = a.model.node("beam_start")  # the hub follows its prescribed angle
    assert a.dof(hub, "rz", -1) == pytest.approx(a.model.prescribed[0].function(1.0), rel=0, abs=1e-14)


@pytest.mark.parametrize("element", ["beam3d", "beam3d_timoshenko"])
def test_free_flight_at_large_steps_equals_general_path_and_conserves_energy(element):
    # |ω|Δt up to 0.3 rad per step, beam tumbling and bending: T + V and the momenta
    # constant to round-off. Both paths compute the angular velocities (the next
    # predictor) to round-off only (5e-16 apart after one step); the tumbling motion
    # amplifies that to ~1e-12 over 40 steps. (The tolerance sits well above the
    # residual's round-off, so no convergence test is decided by round-off.)
    a = run(free_beam(element), 0.1, 4.0, True, every=5, tol=1e-10)
    b = run(free_beam(element), 0.1, 4.0, False, every=5, tol=1e-10)
    assert_same_run(a, b, rel=1e-11)
    E, scale = a.series("total_energy"), energy_scale(a)
    assert scale > 0.1 and np.abs(a.series("strain_energy")).max() > 0.1 * scale  # it deforms
    assert np.abs(E - E[0]).max() < 1e-11 * scale
    L = np.column_stack([a.series(f"angular_momentum_{c}") for c in "xyz"])
    p = np.column_stack([a.series(f"linear_momentum_{c}") for c in "xyz"])
    assert np.linalg.norm(L[0]) > 0.1 and np.linalg.norm(p[0]) > 0.1
    # (momenta: exact up to the Newton tolerance of the residual)
    assert np.abs(L - L[0]).max() < 1e-10 * np.linalg.norm(L[0]) and np.abs(p - p[0]).max() < 1e-10 * np.linalg.norm(p[0])


@pytest.mark.parametrize("element, mass, driven", [("beam3d", "lumped", False), ("beam3d_timoshenko", "invariant", False),
                                                   ("beam3d", "lumped", True), ("beam3d_timoshenko", "lumped", True)])
def test_loaded_cantilever_equals_general_path(element, mass, driven):
    a = run(cantilever(element, driven), 5e-3, 0.4, True, mass=mass, every=8)
    b = run(cantilever(element, driven), 5e-3, 0.4, False, mass=mass, every=8)
    assert_same_run(a, b)
    assert abs(a.series("external_work")[-1]) > 1e-4 * energy_scale(a)  # the timed force and moments do work
    if driven:
        assert abs(a.series("constraint_work")[-1]) > 1e-3 * energy_scale(a)
    # T + V + P − W − W_c constant: the books of the compiled steps close the balance
    assert np.abs(a.series("energy_residual")).max() < 1e-9 * energy_scale(a)


def test_failed_compiled_step_is_retried_by_the_general_path():
    # six Newton iterations are too few for some steps of the tumbling beam at Δt = 0.3:
    # the general path retries them with shorter corrections and cuts them back, compiled
    # steps resume at the nominal step
    a = run(free_beam(), 0.3, 3.0, True, every=2, max_iterations=6)
    b = run(free_beam(), 0.3, 3.0, False, every=2, max_iterations=6)
    assert a.info["cutbacks"] > 0
    assert_same_run(a, b, rel=1e-11)


def test_unsupported_models_take_the_general_path():
    assert run(free_beam(n=3), 0.01, 0.02, True).info["compiled_step"]
    damped = solve_dynamic(free_beam(n=3), 0.01, 0.02, DynamicSettings(damping=Rayleigh(0.1, 0.0)))
    assert not damped.info["compiled_step"]
    assert not run(free_beam(n=3), 0.01, 0.02, True, modified=True).info["compiled_step"]
    follower = cantilever()
    follower.point_load("b_end", moment_type="follower", mz=0.01)  # a rotation-dependent moment
    res = run(follower, 0.01, 0.02, True)
    assert not res.info["compiled_step"] and res.info["steps"] == 2


def test_compiled_steps_read_the_table_and_mass_arrays_in_place():
    """The compiled steps take the beam block's positions and variables, the table's CSR
    pattern and the mass data without copying them, and leave them bitwise unchanged."""
    model = cantilever()
    prob = DynamicProblem(model)
    t = prob.table
    beam = next(b for b in t.blocks if b.part == "b")
    rot = prob.rotary
    shared = {"pos": beam.pos, "var": beam.var, "X": beam.X, "props": beam.props, "indptr": t.indptr, "indices": t.indices,
              "M_eq_pos": prob.mass_entries[0], "M_eq_val": prob.mass_entries[1], "M_full": prob.M_full.data, "J0": rot.J0,
              "J0_pinv": rot.J0_pinv, "rot_pos": rot.pos,
              "nodes": rot.layout.nodes, "lay_var": rot.layout.var, "ref": prob.reference_coordinates, "f_const": prob.f_const,
              "M_full_indptr": prob.M_full.indptr, "M_full_indices": prob.M_full.indices}
    before = {k: a.copy() for k, a in shared.items()}
    steps = SpatialSteps.build(prob, MidPoint(), NewtonSettings())
    for k, mine in zip(("nodes", "lay_var", "J0", "J0_pinv", "rot_pos", "ref"), steps.model[2:8]):
        assert np.shares_memory(mine, shared[k]), k
    assert np.shares_memory(steps.f_const, prob.f_const)
    X, props, var, pos, _ = steps.elems
    for mine, theirs in ((X, beam.X), (props, beam.props), (var, beam.var), (pos, beam.pos),
                         (steps.mass[3], prob.mass_entries[0]), (steps.mass[4], prob.mass_entries[1]),
                         (steps.mass[5], t.indptr), (steps.mass[6], t.indices), (steps.mass[0], prob.M_full.indptr),
                         (steps.mass[1], prob.M_full.indices)):
        assert np.shares_memory(mine, theirs)
    res = solve_dynamic(model, 1e-3, 5e-3, DynamicSettings(record_every=5), problem=prob)
    assert res.info["compiled_step"]
    for k, a in shared.items():
        assert np.array_equal(a, before[k]), k
    # neither the CSR wrappers nor M_eq's data on the whole pattern are needed
    assert "M_eq" not in prob.__dict__ and "K" not in prob.__dict__ and "mass_data" not in prob.__dict__
    assert np.shares_memory(prob.M_eq.data, prob.mass_data)
    assert not t.indices.flags.writeable and not t.indptr.flags.writeable  # the table's own view stays read-only


def planar_chain():
    """A beam2d cantilever chain under gravity (lumped mass: one nonzero in 9 entries)."""
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 8, "b"), dim=2, name="planar chain")
    model.add_part("b", "beam2d", "b", values={"EA": 1e5, "EI": 10.0, "rhoA": 1.0, "rhoI": 1e-4})
    model.fix("b_start", ("ux", "uy", "rz"))
    model.gravity((0.0, -9.81))
    return model


@pytest.mark.parametrize("make, mass", [(cantilever, "lumped"), (cantilever, "invariant"), (planar_chain, "lumped"),
                                        (planar_chain, "invariant")])
def test_mass_entries_give_the_assembled_mass_and_newton_matrix_bit_for_bit(make, mass):
    """M_eq kept by its nonzero entries (DynamicProblem.mass_entries): the data on the whole
    pattern rebuilt from them is the assembly of the element masses bit for bit, and adding
    c·M_eq from the entries (add_mass_entries, as the compiled beam steps do) into Newton-
    matrix data assembled from +0.0 gives the data of adding it over the whole pattern, the
    signs of zeros included (element matrices with zeros of both signs)."""
    prob = DynamicProblem(make(), mass=mass)
    t = prob.table
    assembled = t.new_matrix_data()
    for b, Me in zip(t.blocks, prob.element_mass):
        scatter_matrix(b.pos, Me, assembled)
    pos, val = prob.mass_entries
    assert pos.dtype == np.int64 and np.all(np.diff(pos) > 0) and np.all(val != 0.0)
    assert pos.size == np.count_nonzero(assembled) and pos.size < assembled.size / 2
    assert "mass_data" not in prob.__dict__
    assert np.array_equal(prob.mass_data.view(np.int64), assembled.view(np.int64))
    rng = np.random.default_rng(3)
    c = 2.0 / 1e-3 ** 2
    for b in t.blocks:
        ke = rng.standard_normal(b.pos.shape)
        ke[rng.random(ke.shape) < 0.3] = 0.0
        ke[rng.random(ke.shape) < 0.3] = -0.0
        kdata = t.new_matrix_data()
        scatter_matrix(b.pos, ke, kdata)
        full = kdata + c * assembled
        add_mass_entries(kdata, pos, val, c)
        assert np.array_equal(kdata.view(np.int64), full.view(np.int64))


def test_rounding_residual_reads_the_band_storage_as_the_csr_data():
    """The round-off level ε‖|K|·|x|‖ of the Newton tests from K in the row-band storage
    (the compiled 3-D steps' matrix) equals the one from K's CSR data bit for bit."""
    prob = DynamicProblem(cantilever())
    t = prob.table
    indptr, indices = (np.asarray(a, dtype=np.int64) for a in (t.indptr, t.indices))
    kl, ku = pattern_band_widths(indptr, indices)
    w = 2 * kl + ku + 1
    rng = np.random.default_rng(5)
    data = rng.standard_normal(indices.size)
    band = np.zeros((t.n_eq, w))
    rows = csr_rows(indptr)
    band[rows, indices - rows + kl] = data
    u0, z = rng.standard_normal(t.n_var), 1e-3 * rng.standard_normal(t.n_var)
    ev = np.asarray(t.eq_var, dtype=np.int64)
    unit = np.ascontiguousarray(prob.rot3d)
    ref = prob.reference_coordinates
    csr = _rounding_residual(indptr, indices, (data, 0, 0), ref, u0, z, ev, unit)
    assert csr > 0.0
    assert _rounding_residual(indptr, indices, (band.reshape(-1), kl, w), ref, u0, z, ev, unit) == csr


def test_chain_of_several_element_and_node_blocks_equals_general_path():
    """A falling cantilever chain of 600 beam3d elements: more than two blocks of
    ELEMENT_BLOCK elements and nodes (the element evaluations and the nodes' Cayley step run
    block by block): the compiled steps equal the general path, with the same iterations."""
    from femb.solvers.dynamics.midpoint3d_kernels import ELEMENT_BLOCK

    n = 600
    assert n > 2 * ELEMENT_BLOCK
    model = Model(line_mesh((0.0, 0.0, 0.0), (0.01 * n, 0.0, 0.0), n, "b"), dim=3, name="chain")
    model.add_part("b", "beam3d", "b", values={"EA": 1e5, "GJ": 8.0, "EIy": 10.0, "EIz": 12.0, "rhoA": 1.0, "rhoIp": 2e-4,
                                               "rhoIy": 1e-4, "rhoIz": 1.2e-4})
    model.fix("b_start", ("ux", "uy", "uz", "rx", "ry", "rz"))
    model.gravity((0.0, -6.0, -7.76))
    compiled = run(model, 1e-3, 4e-3, True)
    general = run(model, 1e-3, 4e-3, False)
    assert compiled.info["compiled_step"] and not general.info["compiled_step"]
    assert_same_run(compiled, general)


def test_compiled_steps_leave_the_given_state_unchanged_and_stop_at_the_last_accepted_step():
    """``advance`` returns new arrays and leaves the State it was given bitwise as it was,
    whether its steps all converge, some do, or none; the steps before a failed one are
    those of a run that records every step (the kernel works on its start-of-step state in
    place: a failed step must not have written it)."""
    from femb.solvers.dynamics.energy import EnergyAccount

    def advance(model, dt, n, max_iterations):
        prob = DynamicProblem(model)
        prob.max_turn = 0.5
        steps = SpatialSteps.build(prob, MidPoint(), NewtonSettings(tolerance=1e-10, max_iterations=max_iterations))
        u, v = prob.initial_state(0.0, dt, None, None)
        state = MidPoint().start(prob, 0.0, u, v)
        given = (state.u, state.v, state.extra["R"], state.extra["pi"])
        before = [a.copy() for a in given]
        done, _, after = steps.advance(state, 0, n, 0.0, dt, n * dt, n, EnergyAccount())
        for a, b in zip(given, before):
            assert np.array_equal(a, b)
        if done:
            for a in given:
                assert not any(np.shares_memory(a, b) for b in (after.u, after.v, after.extra["R"], after.extra["pi"]))
        return done, after

    done, after = advance(cantilever(driven=True), 0.01, 10, 25)  # all converge
    assert done == 10 and after.t == pytest.approx(0.1)
    # too few iterations for the later steps of a faster drive: six steps done, the seventh not
    done, after = advance(cantilever(driven=True), 0.1, 30, 5)
    assert done == 6
    ref = run(cantilever(driven=True), 0.1, 3.0, True, every=1, max_iterations=5)
    assert ref.times[done] == after.t
    assert np.array_equal(ref.states[done], after.u) and np.array_equal(ref.velocities[done], after.v)
    assert np.array_equal(ref.arrays["rotations"][done], after.extra["R"])
    assert ref.series("cutbacks")[done + 1] > 0 or ref.series("iterations")[done + 1] > 5  # the general path's step
    done, after = advance(free_beam(), 0.3, 10, 6)  # the first step fails
    assert done == 0
