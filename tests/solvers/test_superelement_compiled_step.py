"""The compiled mid-point steps of superelement models (femb.solvers.dynamics.superelement_midpoint)
against the general 3-D mid-point path (MidPoint3DSystem, PointInertia, step_newton.iterate).

The compiled loop is the general one operation for operation (norms as compiled sums of
squares): every recorded state, the points' state, the Newton iteration counts and the
energy books agree to round-off; non-qualifying models take the general path."""
import numpy as np
import pytest

import femb
from femb.mesh import line_mesh, rectangle_mesh
from femb.mesh.mesh import Mesh
from femb.model import Material, Model, Section
from femb.solvers import DynamicSettings, NewtonSettings
from femb.solvers.reduction.component import reduce_component
from femb.validation.models import spin_up_angle

# a relative Newton threshold above the residual's round-off (the default 1e-12 sits at it for
# these bodies, where the convergence test of a step goes either way with the last bits)
NEWTON = NewtonSettings(tolerance=1e-10, max_iterations=25)
BEAM = dict(EA=1e4, GJ=1.0, EIy=1.0, EIz=1.0, rhoA=1.0, rhoIp=1e-2, rhoIy=5e-3, rhoIz=5e-3)


@pytest.fixture(scope="module")
def strip():
    """A shell4 steel strip 1 × 0.1 × 0.005 (4 × 2 elements) reduced at the mid node of its
    x = 0 edge with 4 fixed-interface modes."""
    comp = Model(rectangle_mesh(1.0, 0.1, 4, 2, cells="quad"), dim=3, name="strip")
    comp.add_part("plate", "shell4", "plate", Material(E=2.1e11, nu=0.3, rho=7850.0), Section(thickness=0.005))
    root = int(np.flatnonzero((np.abs(comp.mesh.points[:, 0]) < 1e-12) & (np.abs(comp.mesh.points[:, 1] - 0.05) < 1e-12))[0])
    return reduce_component(comp, [root], 4, mass="lumped"), comp.mesh.points[root]


def driven_strip(rc, X):
    """The reduced strip on its root node: clamped, spun up about y (Ω = 4 rad/s in 0.5 s)."""
    model = Model(Mesh(X[None].copy()), dim=3, name="driven strip")
    model.add_superelement("se", rc, [0])
    model.fix(0, ("ux", "uy", "uz", "rx", "rz"))
    model.prescribe(0, "ry", function=spin_up_angle(4.0, 0.5))
    return model


def beam_body(k=3, foreshortening=False):
    """A free beam3d (10 elements, unit properties) reduced on its two end nodes."""
    comp = Model(line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 10, "beam"), name="beam")
    comp.add_part("beam", "beam3d", "beam", values=BEAM)
    rc = reduce_component(comp, [comp.node("beam_start"), comp.node("beam_end")], k, mass="lumped")
    model = Model(Mesh(np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])), name="free superelement")
    model.add_superelement("se", rc.superelement(foreshortening=True) if foreshortening else rc, [0, 1])
    return rc, model


def spin_velocities(model, w, drift, modal):
    """v0 (n_var,) of a rigid spin w plus a drift of the two end nodes, and modal rates."""
    table = femb.build_table(model)
    v0 = np.zeros(table.n_var)
    for a, x in enumerate(([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])):
        vel = np.cross(w, x) + np.asarray(drift)
        for d, value in zip(("ux", "uy", "uz", "rx", "ry", "rz"), (*vel, *w)):
            v0[table.var_of(a, d)] = value
    v0[table.internal_vars("se")] = modal
    return v0


def both_paths(build, dt, t_end, record_every=1, newton=None, **kw):
    """(general, compiled) Results of the same run."""
    out = []
    for compiled in (False, True):
        settings = DynamicSettings(record_every=record_every, compiled_step=compiled,
                                   **({} if newton is None else {"newton": newton}))
        out.append(femb.solve_dynamic(build(), dt, t_end, settings, **kw))
    assert out[0].info["compiled_step"] is False
    assert out[1].info["compiled_step"] is True
    return out


def assert_same_run(a, b, h, rtol=1e-12, flips=0):
    """Every recorded state and history agrees to round-off (velocities: v = 2z/h − v_n on
    slots without inertia, so their round-off is that of z times 2/h); the same Newton
    iterations, up to ``flips`` steps whose last residual lay so close to the threshold that
    the round-off difference of the two trajectories decided it (one more or one less)."""
    assert len(a.states) == len(b.states)
    scale = max(np.abs(np.asarray(a.states)).max(), 1.0)
    assert np.abs(np.asarray(a.states) - np.asarray(b.states)).max() <= rtol * scale
    va, vb = np.asarray(a.velocities), np.asarray(b.velocities)
    assert np.abs(va - vb).max() <= rtol * (max(np.abs(va).max(), 1.0) + 2.0 * scale / h)
    ia, ib = a.series("iterations"), b.series("iterations")
    assert np.abs(ia - ib).sum() <= flips
    assert abs(a.info["newton_iterations"] - b.info["newton_iterations"]) <= flips
    E = np.abs(np.asarray(a.series("total_energy"))).max()
    for key in ("total_energy", "kinetic_energy", "strain_energy", "external_work", "constraint_work", "energy_residual"):
        assert np.abs(np.asarray(a.series(key)) - np.asarray(b.series(key))).max() <= 1e-10 * E, key


def test_driven_strip_equals_the_general_path(strip):
    """The cb_exudyn model (smaller mesh): clamped root with a prescribed spin-up, absolute
    Newton threshold; the same motion, iterations and energy books as the general path."""
    rc, X = strip
    newton = NewtonSettings(tolerance=1e-8, absolute_tolerance=1e-6, max_iterations=25)
    a, b = both_paths(lambda: driven_strip(rc, X), 1e-3, 0.3, record_every=7, newton=newton)
    assert_same_run(a, b, 1e-3)
    assert a.info["newton_iterations"] >= 300  # at least one correction per step
    w = np.abs(np.asarray(b.states)[:, -4:]).max()
    assert w > 1e-6  # the strip bends
    E = np.asarray(b.series("total_energy"))
    assert np.abs(np.asarray(b.series("energy_residual"))).max() <= 1e-8 * np.abs(E).max()


def test_free_spinning_two_node_superelement_keeps_energy_and_momenta():
    """A free-floating two-node superelement spinning with modal rates at 10× the explicit
    step limit: energy and both momenta constant to 1e-8 over 400 steps, and the run equals
    the general path (states to 1e-12; of ≈1900 Newton iterations, at most one step may take
    one more or one less: the trajectories' round-off differences grow to ≈1e-11 over the
    run, enough to decide a step whose residual ends within a few % of the threshold)."""
    rc, _ = beam_body()
    data = rc.superelement()
    lam = np.linalg.eigvals(np.linalg.solve(data.M, data.K)).real
    h = 10.0 * 2.0 / np.sqrt(lam.max())

    def build():
        return beam_body()[1]

    v0 = spin_velocities(build(), np.array([0.4, 1.0, 6.0]), [0.5, -0.2, 0.1], [0.05, -0.03, 0.02])
    a, b = both_paths(build, h, 400 * h, record_every=20, newton=NEWTON, v0=v0)
    assert_same_run(a, b, h, flips=1)
    hist = b.history
    E = np.asarray(hist["total_energy"])
    assert np.asarray(hist["strain_energy"]).max() > 1e-4 * E[0]
    assert np.abs(E - E[0]).max() <= 1e-8 * E[0]
    for axis in "xyz":
        p = np.asarray(hist[f"linear_momentum_{axis}"])
        L = np.asarray(hist[f"angular_momentum_{axis}"])
        assert np.abs(p - p[0]).max() <= 1e-8
        assert np.abs(L - L[0]).max() <= 1e-8 * max(1.0, abs(L[0]))


def test_gravity_on_the_points_equals_the_general_path():
    """A constant gravity field on the points of a free spinning body: the compiled steps
    equal the general path."""
    def build():
        model = beam_body(2)[1]
        model.gravity((0.0, -9.81, -3.0))
        return model

    v0 = spin_velocities(build(), np.array([0.5, -0.3, 2.0]), [0.0, 0.0, 0.0], [0.05, -0.03])
    a, b = both_paths(build, 0.01, 0.5, record_every=10, newton=NEWTON, v0=v0)
    assert_same_run(a, b, 0.01)
    p = np.asarray(b.series("linear_momentum_y"))
    assert abs(p[-1] - p[0] + 9.81 * 0.5) <= 1e-10 * 9.81  # Σm = 1: Δp = m g t


def test_models_outside_the_compiled_step_take_the_general_path(strip):
    """Modified Newton, compiled_step=False, gravity with an amplitude and mass points with
    second-order rows run the general path (results.info["compiled_step"] False); the
    qualifying run says it is compiled."""
    rc, X = strip
    runs = [(driven_strip, DynamicSettings(newton=NewtonSettings(modified=True)), False),
            (driven_strip, DynamicSettings(compiled_step=False), False), (driven_strip, DynamicSettings(), True)]

    def timed_gravity(rc, X):
        model = driven_strip(rc, X)
        model.gravity((0.0, 0.0, -9.81), amplitude=lambda t: 1.0)
        return model

    runs.append((timed_gravity, DynamicSettings(), False))
    runs.append((lambda rc, X: beam_body(2, foreshortening=True)[1], DynamicSettings(), False))  # second-order point rows
    for build, settings, compiled in runs:
        res = femb.solve_dynamic(build(rc, X), 1e-3, 3e-3, settings)
        assert res.info["compiled_step"] is compiled


def test_a_step_the_compiled_loop_does_not_take_is_done_by_the_general_path(strip, monkeypatch):
    """When the compiled steps stop (here: the fifth call refuses its first step), the driver
    does that step by the general path and resumes the compiled steps from the next one: the
    run equals the general one."""
    from femb.solvers.dynamics import superelement_midpoint as sm

    rc, X = strip
    kernel = sm.superelement_midpoint_steps
    seen = []

    def stop_at_the_fifth_call(*args):
        seen.append(1)
        if len(seen) == 5:
            return 0, 1
        return kernel(*args)

    monkeypatch.setattr(sm, "superelement_midpoint_steps", stop_at_the_fifth_call)
    newton = NewtonSettings(tolerance=1e-8, absolute_tolerance=1e-6, max_iterations=25)
    a, b = both_paths(lambda: driven_strip(rc, X), 1e-3, 0.1, record_every=10, newton=newton)
    assert len(seen) == 11  # one call per frame of 10 steps, one refused and done again
    assert_same_run(a, b, 1e-3)


def test_a_step_refused_inside_a_call_hands_back_the_last_accepted_state(strip, monkeypatch):
    """The third step of the fifth call is refused (its prescribed rotation made NaN): the
    call hands back the state after its first two steps — the points' positions and
    velocities, rebuilt from their moments, included — equal to a call of those two steps
    alone; the driver does the refused step by the general path and the run equals the
    general one."""
    from femb.solvers.dynamics import superelement_midpoint as sm
    from femb.solvers.dynamics.rigid_step_kernels import NOT_FINITE

    rc, X = strip
    kernel = sm.superelement_midpoint_steps
    seen = []
    state = slice(8, 14)  # u, v, R, π, points_x, points_v
    hs, amps, keep_val, theta, its, books = 14, 15, 19, 22, 27, 28

    def refuse_inside_the_fifth_call(*args):
        seen.append(1)
        if len(seen) != 5:
            return kernel(*args)
        ref = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        for i in (hs, amps, keep_val, theta, its):
            ref[i] = np.ascontiguousarray(ref[i][:2])
        assert kernel(*ref) == (2, 0)
        args[theta][2] = np.nan
        done, status = kernel(*args)
        assert (done, status) == (2, NOT_FINITE)
        for a, b in zip(args[state], ref[state]):
            assert np.array_equal(a, b)
        assert np.array_equal(args[books], ref[books])
        return done, status

    monkeypatch.setattr(sm, "superelement_midpoint_steps", refuse_inside_the_fifth_call)
    newton = NewtonSettings(tolerance=1e-8, absolute_tolerance=1e-6, max_iterations=25)
    a, b = both_paths(lambda: driven_strip(rc, X), 1e-3, 0.1, record_every=10, newton=newton)
    assert len(seen) == 11  # the fifth call stopped after two steps, its third step general, then on
    assert_same_run(a, b, 1e-3)
