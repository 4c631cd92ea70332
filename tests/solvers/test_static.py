"""Nonlinear statics, arc-length and linear buckling against closed-form solutions."""
import numpy as np
import pytest

from femb.core.errors import ConvergenceError
from femb.mesh import line_mesh
from femb.model import Material, Model, Section
from femb.solvers import ArcLengthSettings, NewtonSettings, SingularSystemError, solve_arclength, solve_buckling, solve_static
from femb.validation.models import two_bar_arch

EI = 2.0
EA = 1.0e4
L = 1.0


def cantilever(n, element="beam2d"):
    mesh = line_mesh((0.0, 0.0), (L, 0.0), n, "beam")
    model = Model(mesh, name=f"cantilever-{n}")
    sec = Section(A=EA, I=EI, shear_factor=5.0 / 6.0)
    model.add_part("beam", element, "beam", Material(E=1.0, G=1e3 * EA), sec)
    model.fix("beam_start")
    return model


def rollup_error(n, turns=1.0, steps=20):
    """Max tip-position error / L over the load path of an end-moment roll-up."""
    model = cantilever(n)
    M = 2.0 * np.pi * EI / L * turns
    model.point_load("beam_end", mz=M)
    res = solve_static(model, steps=steps)
    tip = res.table.blocks[0].cells[-1, 1]
    errors = []
    for lam, u in zip(res.times, res.states):
        kappa = lam * M / EI
        exact = np.array([L, 0.0]) if kappa == 0 else np.array([np.sin(kappa * L) / kappa, (1 - np.cos(kappa * L)) / kappa])
        x = np.array([L + u[res.table.var_of(tip, "ux")], u[res.table.var_of(tip, "uy")]])
        errors.append(np.linalg.norm(x - exact) / L)
        assert u[res.table.var_of(tip, "rz")] == pytest.approx(kappa * L, rel=1e-6, abs=1e-9)
    return max(errors)


def test_rollup_converges_at_second_order_and_is_accurate_with_40_elements():
    ns = np.array([5, 10, 20, 40])
    errs = np.array([rollup_error(n) for n in ns])
    rate = -np.polyfit(np.log(ns), np.log(errs), 1)[0]
    assert 1.8 < rate < 2.2, f"rate {rate:.3f}, errors {errs}"
    assert errs[-1] < 1e-3


def test_rollup_past_two_pi_wraps_chord_angles_correctly():
    """One and a half turns: chords cross ±π several times along the load path."""
    assert rollup_error(24, turns=1.5, steps=30) < 4e-3


def test_timoshenko_rollup_matches_euler_bernoulli_when_shear_stiff():
    model = cantilever(10, "beam2d_timoshenko")
    model.point_load("beam_end", mz=np.pi * EI / L)
    res = solve_static(model, steps=5)
    ref = cantilever(10)
    ref.point_load("beam_end", mz=np.pi * EI / L)
    ref_res = solve_static(ref, steps=5)
    assert np.allclose(res.final, ref_res.final, atol=1e-5)


# Mattiasson (1981), elliptic-integral solution of an inextensible cantilever under a dead
# tip load: (P L²/EI, vertical tip deflection / L, horizontal shortening / L, tip rotation)
MATTIASSON = [(1.0, 0.30172, 0.05643, 0.46135), (5.0, 0.71379, 0.38763, 1.21537), (10.0, 0.81061, 0.55500, 1.43029)]


@pytest.mark.parametrize("k, v_ref, u_ref, th_ref", MATTIASSON)
def test_cantilever_tip_load_matches_mattiasson(k, v_ref, u_ref, th_ref):
    model = cantilever(32)
    model.parts["beam"].section = Section(A=1e8, I=EI)  # practically inextensible, as the reference
    model.point_load("beam_end", fy=-k * EI / L**2)
    res = solve_static(model, steps=10)
    tip = model.node("beam_end")
    assert -res.dof(tip, "uy", -1) / L == pytest.approx(v_ref, abs=5e-4)
    assert -res.dof(tip, "ux", -1) / L == pytest.approx(u_ref, abs=5e-4)
    assert -res.dof(tip, "rz", -1) == pytest.approx(th_ref, abs=1e-3)


def column(n, support):
    mesh = line_mesh((0.0, 0.0), (L, 0.0), n, "col")
    model = Model(mesh)
    model.add_part("col", "beam2d", "col", Material(E=1.0), Section(A=EA, I=EI))
    if support == "pinned-pinned":
        model.fix("col_start", ("ux", "uy"))
        model.fix("col_end", ("uy",))
    else:
        model.fix("col_start")
    model.point_load("col_end", fx=-1.0)
    return model


@pytest.mark.parametrize("support, k", [("pinned-pinned", 1.0), ("clamped-free", 2.0)])
def test_euler_buckling_converges_to_closed_form(support, k):
    exact = np.pi**2 * EI / (k * L) ** 2
    ns = np.array([2, 4, 8, 16])
    errs = []
    for n in ns:
        lam = solve_buckling(column(n, support), n_modes=2).load_factors
        errs.append(abs(lam[0] / exact - 1.0))
    rate = -np.polyfit(np.log(ns), np.log(errs), 1)[0]
    assert errs[-1] < 5e-3
    assert 1.7 < rate < 2.3, f"rate {rate:.2f}, errors {errs}"


def arch_closed_form(w, element, a=1.0, h=0.1):
    """Load P (downward) for an apex deflection w (downward) of the symmetric two-bar arch."""
    l0 = np.hypot(a, h)
    l = np.hypot(a, h - w)
    if element == "truss2d":
        N = EA * (l - l0) / l0
        return -2.0 * N * (h - w) / l
    N = EA * (l**2 - l0**2) / (2 * l0**2)
    return -2.0 * N * (h - w) / l0


@pytest.mark.parametrize("element", ["truss2d", "truss2d_green"])
def test_arch_snap_through_follows_closed_form_past_limit_point(element):
    model = two_bar_arch(EA=EA, element=element)
    h = 0.1
    apex = model.node("apex")
    stop = lambda r: -r.dof(apex, "uy", -1) > 2.2 * h
    res = solve_arclength(model, ArcLengthSettings(initial_load_factor=2.0, max_arc_length=h / 50, max_steps=400, stop=stop))
    w = -res.dof(apex, "uy")
    P = np.asarray(res.times)
    assert w[-1] > 2.0 * h, "did not snap through"
    assert np.any(P < 0), "the unstable (negative-load) branch was not traced"
    ref = arch_closed_form(w, element)
    assert np.all(np.asarray(np.max(np.abs(ref))) > 0)  # a zero scale would let an all-zero output pass
    assert np.max(np.abs(P - ref)) < 1e-6 * np.max(np.abs(ref))
    # the first limit load (before the apex passes the supports) agrees with the analytic maximum
    ws = np.linspace(0, h, 20001)
    assert P[w < h].max() == pytest.approx(arch_closed_form(ws, element).max(), rel=2e-3)


def test_mechanism_is_reported_with_its_free_dofs():
    model = cantilever(3)
    model.fixed.clear()
    model.fix("beam_start", ("uy",))
    model.point_load("beam_end", fy=1.0)
    with pytest.raises(SingularSystemError) as err:
        solve_static(model, steps=1)
    assert err.value.dofs, "no DOFs named"
    assert "node" in str(err.value)


def test_non_convergence_gives_diagnostics_and_keeps_results():
    model = cantilever(8)
    model.point_load("beam_end", fy=-20 * EI / L**2)
    settings = NewtonSettings(max_iterations=3, max_cutbacks=2)
    with pytest.raises(ConvergenceError) as err:
        solve_static(model, load_factors=[1e-4, 1.0], settings=settings)
    exc = err.value
    assert exc.residual_history and exc.worst_dofs
    assert len(exc.results) == 2 and exc.results.times[-1] == pytest.approx(1e-4)
    assert "largest residuals" in str(exc)


def test_load_stepping_cuts_back_and_recovers():
    """One requested increment too large for 6 iterations: the solver halves it as often as
    needed and still reaches the same equilibrium as a finely stepped run."""
    def model():
        m = cantilever(16)
        m.point_load("beam_end", fy=-10 * EI / L**2)
        return m
    res = solve_static(model(), load_factors=[1.0], settings=NewtonSettings(max_iterations=6))
    ref = solve_static(model(), steps=20)
    assert len(res) == 2, "only the requested load factor is recorded"
    assert res.info["newton_iterations"] > 6, "no cut-back happened"
    assert np.allclose(res.final, ref.final, atol=1e-7)


def test_reactions_balance_applied_loads():
    model = cantilever(6)
    model.point_load("beam_end", fy=-3.0, fx=1.0)
    res = solve_static(model, steps=4)
    t = res.table
    reac = res.arrays["reactions"][-1]
    cv = list(t.constrained_vars)
    base = model.node("beam_start")
    assert reac[cv.index(t.var_of(base, "uy"))] == pytest.approx(3.0, rel=1e-8)
    assert reac[cv.index(t.var_of(base, "ux"))] == pytest.approx(-1.0, rel=1e-8)


def test_prescribed_rotation_rolls_the_beam_into_a_circle():
    model = cantilever(20)
    model.prescribe("beam_end", "rz", 2 * np.pi)
    res = solve_static(model, steps=10)
    tip = model.node("beam_end")
    # end rotation 2π under pure end moment: the tip returns to the root (within O(h²))
    assert abs(L + res.dof(tip, "ux", -1)) < 5e-3 and abs(res.dof(tip, "uy", -1)) < 5e-3


def test_load_free_prescribed_rigid_motion_converges():
    """Only prescribed DOFs move the structure, rigidly: the force scale is round-off, and
    the solver must still accept the (exact) rigid configuration."""
    mesh = line_mesh((0.0, 0.0), (L, 0.0), 4, "beam")
    model = Model(mesh)
    model.add_part("beam", "beam2d", "beam", Material(E=1.0), Section(A=EA, I=EI))
    model.prescribe("beam_start", "ux", 0.3)
    model.prescribe("beam_start", "uy", -0.2)
    model.prescribe("beam_start", "rz", 0.0)
    res = solve_static(model, steps=2)
    tip = model.node("beam_end")
    assert res.dof(tip, "ux", -1) == pytest.approx(0.3, abs=1e-12)
    assert res.dof(tip, "uy", -1) == pytest.approx(-0.2, abs=1e-12)
