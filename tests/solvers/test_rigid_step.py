"""The compiled mid-point steps of jointed rigid-body models (femb.solvers.dynamics.rigid_step).

Models made of rigid_body3d / point_mass3d with 3-D joints (and supports) take one compiled
call for all Newton iterations of all steps between two recorded frames. It is the general
loop (MidPoint3DSystem + projected_newton) step for step, except that the coordinate
partition of the null-space elimination is kept while it stays well conditioned (the
general loop chooses it by pivoted QR at every iteration; any regular partition gives the
same corrections in exact arithmetic). So the motion must agree with the general path
(``DynamicSettings(compiled_step=False)``) to round-off: end positions, velocities and
rotation matrices to 1e-10 (relative), the Newton iteration counts of every step, the joint
multipliers, and the energy books (energy exact to round-off, joint residuals at 1e-12 of
the length scale).
"""
import numpy as np
import pytest

from femb.mesh import Mesh, line_mesh
from femb.model import Model
from femb.solvers import solve_dynamic
from femb.solvers.dynamics.driver import DynamicSettings
from femb.solvers.dynamics.problem import DynamicProblem
from femb.solvers.dynamics.rigid_step import rigid_step_data, unsupported_reason
from femb.solvers.nonlinear.newton import NewtonSettings

AXIS = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
KINDS = ["spherical", "revolute", "universal", "cylindrical", "prismatic"]


def mixed_chain():
    """Six bodies: a ball joint to ground, then one joint of every kind with the attachment
    point offset from node a (so the terms carried by both bodies enter), a point mass on
    one body node, gravity, a time-varying nodal force and a moment about a fixed axis."""
    pts = np.array([[0.0, 0.0, 0.0], [0.4, 0.3, -0.2], [0.9, 0.1, 0.3], [1.2, -0.4, 0.1], [1.5, 0.2, 0.6], [2.0, 0.0, 0.0]])
    model = Model(Mesh(pts, {}, {str(i): [i] for i in range(len(pts))}), dim=3, name="mixed chain")
    for i in range(len(pts)):
        model.add_discrete(f"body {i}", "rigid_body3d", str(i), m=1.0 + 0.1 * i, Jxx=0.1, Jyy=0.2, Jzz=0.25, Jxy=0.01)
    model.add_discrete("lump", "point_mass3d", "3", m=0.4)
    model.joint3d("spherical", "0", None, point=(-0.1, 0.0, 0.05), name="ground ball")
    for i, kind in enumerate(KINDS):
        model.joint3d(kind, str(i), str(i + 1), axis=AXIS, point=(0.1, -0.05, 0.02), frame="a", name=f"{kind} {i}")
    model.gravity((0.0, 0.0, -9.81))
    model.point_load("5", amplitude=lambda t: np.sin(3.0 * t), fx=0.5, fy=-0.3)
    model.point_load("2", amplitude=lambda t: 1.0 - np.cos(2.0 * t), mz=0.2, mx=-0.1)
    model.initial_velocity("0", rx=0.5, uy=0.1)
    return model


def revolute_body():
    """One body on a skew revolute joint to ground at a point away from its centre."""
    model = Model(Mesh(np.array([[0.3, -0.2, 0.1]]), {}, {"c": [0]}), dim=3, name="revolute body")
    model.add_discrete("body", "rigid_body3d", "c", m=2.0, Jxx=0.1, Jyy=0.3, Jzz=0.35, Jxy=0.02)
    model.joint3d("revolute", "c", None, axis=AXIS, point=(0.0, 0.0, 0.0), name="pivot")
    model.gravity((0.0, 0.0, -9.81))
    model.initial_velocity("c", rx=1.0)
    return model


def rod_chain(n=4):
    """n rods (rigid bodies at their centres) hanging from revolute joints at their ends,
    axes alternating between two skew directions, started sideways."""
    length = 0.5
    centres = np.array([[(k + 0.5) * length, 0.0, 0.0] for k in range(n)])
    model = Model(Mesh(centres, {}, {f"b{k}": [k] for k in range(n)}), dim=3, name="rod chain")
    for k in range(n):
        model.add_discrete(f"rod {k}", "rigid_body3d", f"b{k}", m=1.0, Jxx=1e-3, Jyy=0.02, Jzz=0.02)
    axes = [(0.0, 1.0, 0.0), (0.0, 0.8, 0.6)]
    model.joint3d("revolute", "b0", None, axis=axes[0], point=(0.0, 0.0, 0.0), name="j0")
    for k in range(1, n):
        model.joint3d("revolute", f"b{k - 1}", f"b{k}", axis=axes[k % 2], point=(k * length, 0.0, 0.0), name=f"j{k}")
    model.gravity((0.0, 0.0, -9.81))
    return model


def spatial_four_bar():
    """A spatial RSUR four-bar: crank on a revolute to ground (axis z), coupler on a ball
    joint to the crank and a universal joint to the rocker (cross axes: z in the coupler,
    whose spin it stops, and the rocker axis x in the rocker), rocker on a revolute to ground (axis x):
    18 − 17 = 1 degree of freedom, moved by gravity from a crank spin."""
    A, B, C, D = np.array([0.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]), np.array([2.0, 1.5, 0.5]), np.array([2.0, 0.0, 0.0])
    pts = np.array([(A + B) / 2, (B + C) / 2, (C + D) / 2])
    model = Model(Mesh(pts, {}, {"crank": [0], "coupler": [1], "rocker": [2]}), dim=3, name="spatial four-bar")
    model.add_discrete("crank", "rigid_body3d", "crank", m=1.0, Jxx=0.08, Jyy=0.01, Jzz=0.08)
    model.add_discrete("coupler", "rigid_body3d", "coupler", m=2.0, Jxx=0.05, Jyy=0.4, Jzz=0.4, Jxy=0.03)
    model.add_discrete("rocker", "rigid_body3d", "rocker", m=1.5, Jxx=0.02, Jyy=0.3, Jzz=0.3)
    model.joint3d("revolute", "crank", None, axis=(0.0, 0.0, 1.0), point=tuple(A), name="A")
    model.joint3d("spherical", "crank", "coupler", point=tuple(B), name="B")
    model.joint3d("universal", "coupler", "rocker", axis=(0.0, 0.0, 1.0), second_axis=(1.0, 0.0, 0.0), point=tuple(C),
                  name="C")
    model.joint3d("revolute", "rocker", None, axis=(1.0, 0.0, 0.0), point=tuple(D), name="D")
    model.gravity((0.0, -9.81, 0.0))
    model.initial_velocity("crank", rz=2.0)
    return model


def supported_hub():
    """A hub on a support that leaves only its spin about z free (ux, uy, uz, rx, ry fixed),
    carrying a body on a revolute joint (axis x, attachment point offset from both nodes)."""
    mesh = Mesh(np.array([[0.0, 0.0, 0.0], [1.0, 0.2, 0.0]]), {}, {"hub": [0], "body": [1]})
    model = Model(mesh, dim=3, name="supported hub")
    model.add_discrete("hub", "rigid_body3d", "hub", m=1.0, Jxx=0.1, Jyy=0.1, Jzz=0.2)
    model.add_discrete("body", "rigid_body3d", "body", m=2.0, Jxx=0.3, Jyy=0.1, Jzz=0.2, Jxy=0.05)
    model.joint3d("revolute", "hub", "body", axis=(1.0, 0.0, 0.0), point=(0.6, 0.1, 0.05), name="arm")
    model.fix("hub", ("ux", "uy", "uz", "rx", "ry"))
    model.gravity((0.0, 0.0, -9.81))
    model.initial_velocity("hub", rz=1.5)
    model.initial_velocity("body", rx=1.0)
    return model


MODELS = {"mixed chain": (mixed_chain, 0.02, 1.0), "revolute body": (revolute_body, 0.02, 2.0),
          "rod chain": (rod_chain, 2e-3, 0.2), "spatial four-bar": (spatial_four_bar, 0.01, 1.0),
          "supported hub": (supported_hub, 0.02, 1.0)}


def run(build, dt, t_end, compiled, **newton):
    settings = DynamicSettings(compiled_step=compiled,
                               newton=NewtonSettings(**{"tolerance": 1e-10, "max_iterations": 25, **newton}))
    return solve_dynamic(build(), dt, t_end, settings)


def energy_error(res):
    return np.abs(res.series("energy_residual")).max() / res.series("kinetic_energy").max()


@pytest.mark.parametrize("name", list(MODELS))
def test_compiled_step_equals_the_general_path(name):
    build, dt, t_end = MODELS[name]
    prob = DynamicProblem(build())
    assert unsupported_reason(prob) is None and rigid_step_data(prob) is not None  # the compiled path is taken
    fast = run(build, dt, t_end, True)
    slow = run(build, dt, t_end, False)
    assert fast.info["steps"] == slow.info["steps"] == int(round(t_end / dt))
    # the same Newton iterations step by step, no cut-back
    assert fast.series("iterations").tolist() == slow.series("iterations").tolist()
    assert fast.info["cutbacks"] == slow.info["cutbacks"] == 0
    u, v = slow.final, slow.velocities[-1]
    assert np.abs(u).max() > 0.05 and np.abs(v).max() > 0.1  # the mechanism moves
    assert np.abs(fast.final - u).max() <= 1e-10 * np.abs(u).max()
    assert np.abs(fast.velocities[-1] - v).max() <= 1e-10 * np.abs(v).max()
    assert np.abs(fast.nodal_rotation_matrices(-1) - slow.nodal_rotation_matrices(-1)).max() <= 1e-10
    lam_f, lam_s = fast.arrays["multipliers"][-1], slow.arrays["multipliers"][-1]
    assert np.abs(lam_f - lam_s).max() <= 1e-8 * np.abs(lam_s).max()
    for res in (fast, slow):  # joints hold to the Newton loop's constraint tolerance, 1e-12 of the length scale
        assert energy_error(res) <= 1e-9
        assert res.series("constraint_residual").max() <= 1e-12 * prob.length_scale
    # the energy books agree term by term (external work of the scaled loads and moments)
    for key in ("total_energy", "external_work", "constraint_work", "energy_residual"):
        assert np.allclose(fast.series(key), slow.series(key), rtol=0.0, atol=1e-10 * fast.series("kinetic_energy").max())


def test_compiled_step_energy_is_exact_at_a_large_step():
    """The single body at Δt = 0.1 s (a quarter of its swing period) over 40 steps: energy
    exact to round-off of its Newton tolerance with an absolute residual threshold, and the
    same iterations as the general path (the turn limit of corrections acts)."""
    fast = run(revolute_body, 0.1, 4.0, True, absolute_tolerance=1e-11)
    slow = run(revolute_body, 0.1, 4.0, False, absolute_tolerance=1e-11)
    assert fast.series("iterations").tolist() == slow.series("iterations").tolist()
    assert np.abs(fast.final - slow.final).max() <= 1e-10 * np.abs(slow.final).max()
    assert energy_error(fast) <= 1e-10
    assert fast.series("constraint_residual").max() <= 1e-12 * DynamicProblem(revolute_body()).length_scale


def test_unsupported_models_fall_back_to_the_general_path():
    """Damping-free rigid models with a prescribed motion, a beam, or no joints are not
    taken; the general path runs them (and the switch off forces it for a qualifying one)."""
    model = revolute_body()
    model.prescribe("c", "ux", function=lambda t: 0.0)
    assert "prescribed" in unsupported_reason(DynamicProblem(model))
    follower = revolute_body()
    follower.point_load("c", mz=0.3, moment_type="follower")  # turns with the body: the general path's load
    assert "follower" in unsupported_reason(DynamicProblem(follower))
    free = Model(Mesh(np.array([[0.0, 0.0, 0.0]]), {}, {"c": [0]}), dim=3)
    free.add_discrete("body", "rigid_body3d", "c", m=1.0, Jxx=0.1, Jyy=0.2, Jzz=0.3)
    free.initial_velocity("c", rx=1.0, ry=0.5)
    assert unsupported_reason(DynamicProblem(free)) == "no joints"
    res = solve_dynamic(free, 0.05, 0.5)  # the general path: a free body's energy and momentum
    assert energy_error(res) <= 1e-9
    beam = Model(line_mesh(np.zeros(3), np.array([1.0, 0.0, 0.0]), 2, "c"), name="beam and body")
    beam.add_part("c", "beam3d", "c", values=dict(EA=1e4, GJ=8.0, EIy=10.0, EIz=10.0, rhoA=1.0, rhoIp=0.02, rhoIy=0.01, rhoIz=0.01))
    beam.add_discrete("body", "rigid_body3d", "c_end", m=1.0, Jxx=0.1, Jyy=0.1, Jzz=0.1)
    beam.joint3d("spherical", "c_start", None, name="ball")
    beam.gravity((0.0, 0.0, -9.81))
    prob = DynamicProblem(beam)
    assert "beam3d" in unsupported_reason(prob) and rigid_step_data(prob) is None
    res = solve_dynamic(beam, 0.01, 0.05)
    assert res.info["steps"] == 5 and res.series("constraint_residual").max() <= 1e-10


@pytest.mark.parametrize("name", ["mixed chain", "rod chain", "spatial four-bar"])
def test_steps_between_frames_in_one_call_equal_the_general_path(name):
    """Recording every 7th step, the compiled run does the steps between two frames in one
    call (femb.solvers.dynamics.rigid_step.RigidSteps): the same frames, iterations per
    frame, multipliers and energy books as the general path, energy exact and joints
    closed to round-off."""
    build, dt, t_end = MODELS[name]
    settings = dict(newton=NewtonSettings(tolerance=1e-10, max_iterations=25), record_every=7)
    fast = solve_dynamic(build(), dt, t_end, DynamicSettings(compiled_step=True, **settings))
    slow = solve_dynamic(build(), dt, t_end, DynamicSettings(compiled_step=False, **settings))
    assert fast.info["compiled_step"] and not slow.info["compiled_step"]
    assert len(fast) == len(slow) == 1 + int(np.ceil(round(t_end / dt) / 7))
    assert fast.series("iterations").tolist() == slow.series("iterations").tolist()
    assert np.array_equal(fast.times, slow.times)
    scale = np.abs(slow.final).max()
    for k in range(len(slow)):
        assert np.abs(fast.states[k] - slow.states[k]).max() <= 1e-10 * scale
    assert np.abs(fast.velocities[-1] - slow.velocities[-1]).max() <= 1e-10 * np.abs(slow.velocities[-1]).max()
    lam_f, lam_s = fast.arrays["multipliers"][-1], slow.arrays["multipliers"][-1]
    assert np.abs(lam_f - lam_s).max() <= 1e-8 * np.abs(lam_s).max()
    T = fast.series("kinetic_energy").max()
    for key in ("total_energy", "external_work", "constraint_work", "energy_residual"):
        assert np.allclose(fast.series(key), slow.series(key), rtol=0.0, atol=1e-10 * T)
    assert energy_error(fast) <= 1e-9
    assert fast.series("constraint_residual").max() <= 1e-12 * DynamicProblem(build()).length_scale


def test_the_step_does_not_depend_on_the_coordinate_partition():
    """The null-space elimination keeps the dependent coordinates it chose while G_d and Ḡ_d
    stay well conditioned. A step of the rod chain solved with the partition chosen by
    pivoted QR and with another regular partition (one dependent coordinate exchanged)
    converges to the same state to the Newton tolerance, with the joints closed."""
    from femb.solvers.dynamics.rigid_step import RigidStepSystem
    from femb.solvers.dynamics.schemes import MidPoint

    dt = 2e-3
    settings = NewtonSettings(tolerance=1e-12, max_iterations=25)
    prob = DynamicProblem(rod_chain())
    prob.max_turn = 0.5
    u, v = prob.initial_state(0.0, dt, None, None)
    state = MidPoint().start(prob, 0.0, u, v)
    G = prob.joint_state(u, 0.0)[1][:, prob.table.eq_var].toarray()
    results = []
    for exchange in (False, True):
        prob.__dict__.pop("_rigid_partition", None)
        step = RigidStepSystem(prob, state, dt)
        report = step.solve_step(settings)  # with the partition chosen by pivoted QR
        part, ref = prob.__dict__["_rigid_partition"]
        if exchange:  # a regular partition other than QR's, kept whatever its conditioning
            dep = list(part)
            other = next((i, j) for i in dep for j in range(G.shape[1]) if j not in dep
                         and np.linalg.cond(G[:, sorted(set(dep) - {i} | {j})]) < 1e3 * np.linalg.cond(G[:, dep]))
            part[:] = sorted(set(dep) - {other[0]} | {other[1]})
            ref[:] = 1e-300
            step = RigidStepSystem(prob, state, dt)
            report = step.solve_step(settings)
            assert np.array_equal(prob.__dict__["_rigid_partition"][0], part)  # the partition was kept
        assert report.converged and report.constraint_residual <= 1e-12 * prob.length_scale
        results.append((part.copy(), step.finish(report.state)[0]))
    (p0, s0), (p1, s1) = results
    assert not np.array_equal(p0, p1)  # two different partitions
    assert np.abs(s0.u).max() > 0.0
    assert np.abs(s1.u - s0.u).max() <= 1e-12 * np.abs(s0.u).max()  # measured 1e-16
    assert np.abs(s1.v - s0.v).max() <= 1e-12 * np.abs(s0.v).max()


def test_a_partition_renewed_before_a_correction_gives_the_same_step():
    """G_d is factorized only at the iterates a correction follows (the converged iterate's
    tests need Ḡ_d alone); a kept partition whose G_d has lost its conditioning there is
    chosen again, and the iterate's tests are done again in the new partition. Forced on the
    first step of the rod chain by a reference pivot ratio of G_d that no factorization
    reaches: pivoted QR chooses the same partition from the same G again, so the step is
    the one with the partition chosen at the start, bit for bit (iterations, residual
    history, state), and the reference ratio is again that of the chosen G_d."""
    from femb.solvers.dynamics.rigid_step import RigidStepSystem
    from femb.solvers.dynamics.schemes import MidPoint

    dt = 2e-3
    settings = NewtonSettings(tolerance=1e-12, max_iterations=25)
    prob = DynamicProblem(rod_chain())
    u, v = prob.initial_state(0.0, dt, None, None)
    state = MidPoint().start(prob, 0.0, u, v)
    step = RigidStepSystem(prob, state, dt)
    first = step.solve_step(settings)  # the partition chosen at the predictor
    s0 = step.finish(first.state)[0]
    part, ref = prob.__dict__["_rigid_partition"]
    chosen, ratios = part.copy(), ref.copy()
    assert first.converged and first.iterations >= 2 and 0.0 < ratios[0] <= 1.0
    ref[0] = 1e300  # Ḡ_d stays acceptable, G_d does not
    step = RigidStepSystem(prob, state, dt)
    again = step.solve_step(settings)
    s1 = step.finish(again.state)[0]
    assert again.converged and again.iterations == first.iterations
    assert again.residual_history == first.residual_history  # the tests of the renewed iterate, once
    assert np.array_equal(part, chosen) and np.array_equal(ref, ratios)  # chosen again at the first correction
    assert np.array_equal(s1.u, s0.u) and np.array_equal(s1.v, s0.v)


def test_steps_that_fail_in_the_compiled_run_go_back_to_the_driver():
    """The mixed chain at 5 Δt with at most 3 Newton iterations: some steps do not converge
    in the compiled run of steps between frames (every 7th recorded); the driver does them
    again step by step with its damped retry and cut-backs. The same cut-backs, iterations
    per frame and motion as the general path, energy still exact."""
    build, dt, t_end = MODELS["mixed chain"]
    settings = dict(newton=NewtonSettings(tolerance=1e-10, max_iterations=3), record_every=7)
    fast = solve_dynamic(build(), 5 * dt, t_end, DynamicSettings(compiled_step=True, **settings))
    slow = solve_dynamic(build(), 5 * dt, t_end, DynamicSettings(compiled_step=False, **settings))
    assert fast.info["cutbacks"] == slow.info["cutbacks"] > 0
    assert fast.series("cutbacks").tolist() == slow.series("cutbacks").tolist()
    assert fast.series("iterations").tolist() == slow.series("iterations").tolist()
    assert np.abs(fast.final - slow.final).max() <= 1e-10 * np.abs(slow.final).max()
    assert energy_error(fast) <= 1e-9


@pytest.mark.parametrize("name", list(MODELS))
def test_step_data_from_the_patterns_equals_the_assembled_one(name):
    """The joint variables read off the Jacobian's fixed pattern are ConstraintSet.variables
    (its probe evaluation), and the dense mass written from ``mass_data`` is M_eq.toarray()
    bit for bit."""
    from femb.solvers.dynamics.rigid_step import _dense_mass, _joint_variables
    problem = DynamicProblem(MODELS[name][0](), None, "lumped", None)
    np.testing.assert_array_equal(_joint_variables(problem), problem.joints.variables)
    dense = _dense_mass(problem)
    assert np.array_equal(dense, problem.M_eq.toarray()) and np.count_nonzero(dense) > 0
    data = rigid_step_data(problem)
    assert np.array_equal(data.M_eq, dense)


def test_strain_energy_of_inertia_only_models_is_not_evaluated_but_equal():
    """energy.strain_energy: 0.0 for a model of rigid bodies and point masses (no kernel
    called), the assembler's sum for a model with elastic elements; both equal to the
    assembler's value bit for bit."""
    from femb.solvers.dynamics.energy import strain_energy
    rigid = DynamicProblem(mixed_chain(), None, "lumped", None)
    u = np.random.default_rng(3).normal(scale=0.1, size=rigid.table.n_var)
    assert strain_energy(rigid, u) == rigid.assembler.strain_energy(u) == 0.0
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 4, "beam"), name="beam")
    model.add_part("beam", "beam2d_timoshenko", "beam", values=dict(EA=1e4, EI=1.0, GAs=1e4, rhoA=1.0, rhoI=1e-3))
    model.fix("beam_start")
    elastic = DynamicProblem(model, None, "lumped", None)
    u = np.random.default_rng(4).normal(scale=0.05, size=elastic.table.n_var)
    V = strain_energy(elastic, u)
    assert V > 0.0 and V == elastic.assembler.strain_energy(u)


def test_the_step_kernels_raise_nothing_and_the_shared_kernels_are_unchanged():
    """The rigid steps' kernels and their copies of the triangular solves and of
    ``lu_factor_pattern`` are compiled with numba's numpy error model (no exception exits);
    the dense kernels they copy, which other steps call, keep numba's default model."""
    import numba

    from femb.solvers.dynamics import rigid_step_kernels as rk
    from femb.solvers.dynamics import rigid_step_patterns as rp
    from femb.solvers.linalg import dense_kernels as dk
    if numba.config.DISABLE_JIT:
        pytest.skip("kernels run as Python")
    own = [rk.rigid_midpoint_steps, rk._residual_vector, rk._step_matrix, rk._spin_jacobian, rk._scatter_stiffness,
           rp.split, rp.jacobian_pattern, rp.matrix_pattern, rp.triplet_rows, rp.triplet_places, rp.choose_partition,
           rp.partition_layout, rp.factor_dependent]
    copies = {rk.lu_solve: dk.lu_solve, rk.lu_solve_many: dk.lu_solve_many, rk.lu_solve_t: dk.lu_solve_t,
              rp.lu_factor_pattern: dk.lu_factor_pattern}
    for kernel in own + list(copies):
        assert kernel.targetoptions.get("error_model") == "numpy", kernel
    for copy, original in copies.items():
        assert copy.py_func.__code__ is original.py_func.__code__
        assert copy.py_func.__qualname__ == original.py_func.__qualname__ + rp.NUMPY_ERRORS
        assert original.targetoptions.get("error_model", "python") == "python"


def test_triplet_places_sum_each_entry_as_the_dense_scatter():
    """Triplets with repeated entries, −0.0 values and fixed variables: summing each entry
    from +0 at its first triplet (``triplet_places``) gives the matrix of zeroing every
    entry and adding the triplets in order, bit for bit (signs of zeros included), and the
    copy over the equations takes each free-variable entry once."""
    from femb.solvers.dynamics.rigid_step_patterns import triplet_places
    rng = np.random.default_rng(11)
    n_rows, var_eq = 4, np.array([0, -1, 1, 2, -1, 3], dtype=np.int64)
    rows = rng.integers(0, n_rows, 40).astype(np.int64)
    cols = rng.integers(0, var_eq.size, 40).astype(np.int64)
    vals = rng.normal(size=40)
    vals[::7] = -0.0
    flat, first, eq_flat, var_flat = triplet_places(rows, cols, var_eq, n_rows)
    ref = np.full((n_rows, var_eq.size), np.nan)
    ref[rows, cols] = 0.0
    for q in range(rows.size):
        ref[rows[q], cols[q]] += vals[q]
    got = np.full(ref.size, np.nan)
    for q in range(rows.size):
        got[flat[q]] = 0.0 + vals[q] if first[q] else got[flat[q]] + vals[q]
    got = got.reshape(ref.shape)
    assert np.array_equal(got, ref, equal_nan=True) and np.array_equal(np.signbit(got), np.signbit(ref))
    ne = int((var_eq >= 0).sum())
    over_eqs = np.zeros(n_rows * ne)
    over_eqs[eq_flat] = got.reshape(-1)[var_flat]
    free = var_eq >= 0
    expect = np.where(np.isnan(ref), 0.0, ref)[:, free]
    assert np.array_equal(over_eqs.reshape(n_rows, ne), expect) and len(set(eq_flat.tolist())) == eq_flat.size


def test_a_massless_loaded_body_is_a_singular_step_in_both_paths():
    """A body without mass and inertia under a nodal force on a revolute joint: the reduced
    step matrix is zero. The compiled step (numpy error model: a division by zero would give
    inf, not an exception) reports it as the general path does, SingularSystemError, with
    no state recorded past the start."""
    from femb.solvers.linalg.factorization import SingularSystemError

    def massless():
        model = Model(Mesh(np.array([[0.3, -0.2, 0.1]]), {}, {"c": [0]}), dim=3, name="massless body")
        model.add_discrete("body", "rigid_body3d", "c", m=0.0, Jxx=0.0, Jyy=0.0, Jzz=0.0)
        model.joint3d("revolute", "c", None, axis=AXIS, point=(0.0, 0.0, 0.0), name="pivot")
        model.point_load("c", uz=-1.0)
        return model

    assert rigid_step_data(DynamicProblem(massless(), None, "lumped", None)) is not None  # the compiled path takes it
    for compiled in (True, False):
        with pytest.raises(SingularSystemError, match="singular"):
            run(massless, 0.02, 0.1, compiled)


def test_a_step_size_that_is_not_positive_is_an_input_error():
    """The kernels divide by the step size without an exception exit: a step of size 0 or
    NaN (the driver never takes one) is refused before the compiled call, the state and the
    energy books untouched."""
    from femb.core.errors import InputError
    from femb.solvers.dynamics.rigid_step import _run
    from femb.solvers.dynamics.schemes import MidPoint

    prob = DynamicProblem(revolute_body(), None, "lumped", None)
    u, v = prob.initial_state(0.0, 0.02, None, None)
    state = MidPoint().start(prob, 0.0, u, v)
    arrays = [state.u.copy(), state.v.copy(), state.extra["R"].copy(), state.extra["pi"].copy(), np.zeros(prob.joints.m)]
    before = [a.copy() for a in arrays]
    books = np.array([0.25, -0.5])
    for bad in (0.0, np.nan):
        with pytest.raises(InputError, match="positive step sizes"):
            _run(prob, NewtonSettings(tolerance=1e-10), *arrays, False, np.array([0.02, bad]), np.zeros((0, prob.table.n_var)),
                 np.zeros((2, 0)), books)
    assert all(np.array_equal(a, b) for a, b in zip(arrays, before))
    assert books.tolist() == [0.25, -0.5]
    # the steps between frames: their step is checked once per run grid (then all its steps are positive)
    from femb.solvers.dynamics.energy import EnergyAccount
    from femb.solvers.dynamics.rigid_step import RigidSteps
    steps = RigidSteps.build(prob, NewtonSettings(tolerance=1e-10))
    for bad in (0.0, -0.02, np.nan):
        with pytest.raises(InputError, match="positive step"):
            steps.advance(state, 0, 10, 0.0, bad, 0.2, 5, EnergyAccount())
    assert np.array_equal(state.u, before[0]) and np.array_equal(state.v, before[1])


def test_a_run_that_fails_keeps_every_frame_recorded_before():
    """The compiled run's frames are written together at the end of the run; a step that
    fails (ConvergenceError) writes them before raising: its results hold the same frames as
    the general path's, up to the failure."""
    from femb.core.errors import ConvergenceError
    build, dt, t_end = MODELS["mixed chain"]
    settings = dict(newton=NewtonSettings(tolerance=1e-10, max_iterations=3, max_cutbacks=0), record_every=1)
    out = {}
    for compiled in (True, False):
        with pytest.raises(ConvergenceError) as err:
            solve_dynamic(build(), 5 * dt, t_end, DynamicSettings(compiled_step=compiled, **settings))
        out[compiled] = err.value.results
    fast, slow = out[True], out[False]
    assert len(fast) == len(slow) == 4  # t = 0 and the three steps before the one that fails
    assert fast.times == slow.times
    assert fast.history.keys() == slow.history.keys()
    assert fast.series("iterations").tolist() == slow.series("iterations").tolist()
    for name in ("total_energy", "kinetic_energy", "angular_momentum_x", "constraint_residual"):
        assert np.allclose(fast.series(name), slow.series(name), rtol=1e-9, atol=1e-12)
    assert np.abs(np.array(fast.states) - np.array(slow.states)).max() <= 1e-10 * np.abs(np.array(slow.states)).max()


@pytest.mark.parametrize("batch", [1, 3])
def test_frames_written_in_batches_equal_those_written_at_the_end(batch, monkeypatch):
    """The compiled run's frames are written in batches of ``PENDING_FRAMES``: batches of 3,
    and of 1 (each frame written when it is recorded), give the same frames, histories and
    arrays, bit for bit, as one batch at the end."""
    from femb.solvers.dynamics import driver
    build, dt, t_end = MODELS["mixed chain"]
    settings = DynamicSettings(record_every=2)
    whole = solve_dynamic(build(), dt, t_end, settings)
    monkeypatch.setattr(driver, "PENDING_FRAMES", batch)
    batched = solve_dynamic(build(), dt, t_end, settings)
    assert len(whole) == len(batched) > 3 * 3
    assert whole.times == batched.times and whole.history.keys() == batched.history.keys()
    for name in whole.history:
        assert np.array_equal(whole.series(name), batched.series(name)), name
    for a, b in ((whole.states, batched.states), (whole.velocities, batched.velocities),
                 (whole.arrays["rotations"], batched.arrays["rotations"]), (whole.arrays["multipliers"], batched.arrays["multipliers"])):
        assert np.array_equal(np.array(a), np.array(b))
