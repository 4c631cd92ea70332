"""Load-step predictor and factorization reuse of nonlinear statics (issues 14 and 17).

Every test solves one problem twice — with the defaults (chord-turning tangent predictor,
residual-first convergence checks, factorization reuse on large systems) and with the
plain full Newton femb had before (``PLAIN``: additive update, a new tangent every
correction) — and checks that both converge to the same equilibria: the problems are
elastic and path independent, so the converged states may differ only by what the
convergence test leaves open, ‖δx‖ ≲ ‖K⁻¹‖·τ·s.
"""
import numpy as np
import pytest

from femb.core.errors import ConvergenceError
from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers import NewtonSettings, solve_arclength, solve_static
from femb.solvers.statics.arclength import ArcLengthSettings
from femb.validation.models import cantilever3d, two_bar_arch
from femb.validation.shell_models import add_pressure, navier_center, ss_plate, strip

PLAIN = dict(chord_predictor=False, reuse_ratio=0.0)


def peer_rollup(n):
    """The roll-up of benchmarks/peer_suite.py: beam2d_timoshenko, L = EI = 1, EA = GA =
    1e4, end moment 2πEI/L (a full circle at λ = 1)."""
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), n, "beam"), name="roll-up")
    model.add_part("beam", "beam2d_timoshenko", "beam", values=dict(EA=1e4, EI=1.0, GAs=1e4, rhoA=1.0, rhoI=1e-3))
    model.fix("beam_start")
    model.point_load("beam_end", mz=2.0 * np.pi)
    return model


def state_difference(a, b):
    """Largest difference of the recorded variables of two runs over all frames (3-D:
    translations only; their rotational slots hold log R, which jumps by 2π at |θ| = π:
    compare the rotation matrices instead)."""
    assert np.allclose(a.times, b.times, rtol=0, atol=1e-15)
    t = a.table
    keep = np.ones(t.n_var, dtype=bool)
    if t.dim == 3:
        keep = np.isin(t.var_dof, [t.dof_names.index(n) for n in ("ux", "uy", "uz") if n in t.dof_names])
    return max(float(np.abs(np.asarray(x)[keep] - np.asarray(y)[keep]).max()) for x, y in zip(a.states, b.states))


@pytest.mark.parametrize("n, steps", [(10, 10), (40, 10), (10, 20), (40, 20)])
def test_rollup_takes_at_most_exudyns_iterations_plus_one_per_load_step(n, steps):
    """Issue 14's bound: Exudyn's geometrically exact 2-D beam needs 2 full-Newton
    iterations per load step on this roll-up at the same residual threshold (peer_suite.py),
    femb at most 2 + 1. Why 1–2 suffice: under an end moment the exact increment of a load
    step turns every chord rigidly (constant curvature, no axial force); the tangent
    predictor gives those turns to first order, and applied as turns (not as the stretched
    tangent displacements, 0.18 l too long at 36° per step) it lands within round-off of
    the next equilibrium. The plain Newton took 5–8."""
    tol = 1e-8
    res = solve_static(peer_rollup(n), steps=steps, settings=NewtonSettings(tolerance=tol))
    its = res.series("iterations")[1:]
    assert its.max() <= 3, its
    plain = solve_static(peer_rollup(n), steps=steps, settings=NewtonSettings(tolerance=tol, **PLAIN))
    assert plain.series("iterations")[1:].min() >= 5  # what the predictor saves
    # EI/L³ = 1: a residual of τ·2π leaves the state open by ~1e-7 L
    assert state_difference(res, plain) < 1e-6
    tip = res.model.node("beam_end")
    assert np.hypot(1.0 + res.dof(tip, "ux", -1), res.dof(tip, "uy", -1)) < 1e-6  # a closed circle


def test_3d_rollup_and_its_rotations_match_the_plain_newton_path():
    """beam3d roll-up about global y (validation/rollup-3d): the predictor turns chords about
    a fixed axis, the nodal rotations are multiplied by the exponential of the predicted
    spins, and the converged frames agree with the plain path (positions and triads)."""
    def solve(**kw):
        model = cantilever3d(8, EIy=2.0, EIz=3.0, GJ=1.5, EA=1.0e7)
        model.point_load("beam_end", my=4.0 * np.pi)
        return solve_static(model, steps=20, settings=NewtonSettings(**kw))
    res, plain = solve(), solve(**PLAIN)
    assert res.series("iterations")[1:].mean() <= 3.0 < plain.series("iterations")[1:].mean()
    assert state_difference(res, plain) < 1e-7
    for f in range(len(res)):
        assert np.abs(res.nodal_rotation_matrices(f) - plain.nodal_rotation_matrices(f)).max() < 1e-7


def test_shell_strip_rollup_converges_without_cutbacks_to_the_plain_equilibria():
    """shell3 strip rolled up in 8 steps of 45° (validation/shell-rollup): the predictor
    turns every triangle edge by the mean spin of its nodes about the edge plus its
    transverse turn, so the facets are carried round rigidly; the plain Newton needed
    10–16 iterations and cut-backs."""
    E, b, t, L = 1.2e6, 1.0, 0.1, 12.0

    def solve(**kw):
        _, model = strip(12, 1, L=L, b=b, t=t, E=E)
        model.point_load("plate_x1", my=-np.pi * E * b * t**3 / 12 / L)
        return solve_static(model, steps=8, settings=NewtonSettings(tolerance=1e-8, **kw))
    res, plain = solve(), solve(**PLAIN)
    assert res.series("iterations")[1:].max() <= 6
    assert res.info["factorizations"] < 0.5 * plain.info["factorizations"]
    assert state_difference(res, plain) < 1e-6 * L


def test_plate_reuses_its_factorization_and_reaches_the_same_deflection():
    """Simply supported plate under pressure (shell4, benchmarks/shell_opensees.py): the
    first correction leaves the membrane forces of the deflection (15 % of the load); a
    second correction with the same factorization removes them (the residual falls 10⁵×),
    so one factorization serves the solve. Forced on this small mesh by
    reuse_min_equations = 0."""
    E, nu, t = 1.0e7, 0.3, 0.01
    D = E * t**3 / (12 * (1 - nu**2))

    def solve(**kw):
        mesh, model = ss_plate(8, E, nu, t, element="shell4")
        add_pressure(mesh, model, 1e-3 * t * D / navier_center())
        return solve_static(model, load_factors=[1.0], settings=NewtonSettings(tolerance=1e-7, **kw))
    res = solve(reuse_min_equations=0)
    plain = solve(**PLAIN)
    assert res.info["factorizations"] == 1 and plain.info["factorizations"] == 2
    w = np.abs(plain.states[-1]).max()
    assert state_difference(res, plain) < 1e-6 * w


def test_arclength_snap_through_meets_static_equilibria():
    """Two-bar arch traced by arc-length (each increment starts from the tangent its
    converged state was accepted with): its points before the limit load are the static
    equilibria at the same load factors."""
    arc = ArcLengthSettings(initial_load_factor=2.0, max_arc_length=0.1 / 50, max_steps=40)
    res = solve_arclength(two_bar_arch(), arc)
    lam = np.asarray(res.times)
    rising = np.flatnonzero(np.diff(lam) > 0)[:10] + 1
    static = solve_static(two_bar_arch(), load_factors=lam[rising], settings=NewtonSettings(tolerance=1e-12))
    for k, f in enumerate(rising):
        assert np.abs(np.asarray(res.states[f]) - np.asarray(static.states[k + 1])).max() < 1e-9


def test_failed_load_step_with_reuse_still_reports_diagnostics():
    """A load step that cannot converge (far past buckling in one step of at most 6 iterations) ends in a
    ConvergenceError with the residual history, the worst equations and the frames that
    did converge, reuse of factorizations and the predictor included."""
    model = peer_rollup(10)
    model.loads.clear()
    model.point_load("beam_end", fx=-200.0, fy=-20.0)
    settings = NewtonSettings(max_iterations=6, max_cutbacks=1, reuse_min_equations=0)
    with pytest.raises(ConvergenceError) as err:
        solve_static(model, load_factors=[1e-3, 1.0], settings=settings)
    exc = err.value
    assert exc.residual_history and exc.worst_dofs
    assert len(exc.results) == 2 and exc.results.times[-1] == pytest.approx(1e-3)
