"""Modal analysis against closed-form beam frequencies and pre-stressed states."""
import numpy as np
import pytest

from femb.mesh import line_mesh
from femb.model import Material, Model, Section
from femb.solvers import frequencies_along_path, solve_buckling, solve_modal, solve_static

EI, RHOA, L = 2.0, 3.0, 1.0
CANTILEVER_BL = np.array([1.8751040687, 4.6940911330, 7.8547574382, 10.9955407349])
FREE_FREE_BL = np.array([4.7300407449, 7.8532046241, 10.9956078380])


def beam(n, fix=None, A=1e7):
    """Slender beam: r²/L² = I/(A L²) = 2e-7, so rotary inertia (relative effect
    ≈ (βL)² r²/(2L²) ≤ 1.2e-5 up to mode 4) and axial modes barely disturb the
    Euler–Bernoulli closed forms, while EA/EI stays moderate for the eigensolver."""
    mesh = line_mesh((0.0, 0.0), (L, 0.0), n, "beam")
    model = Model(mesh)
    model.add_part("beam", "beam2d", "beam", Material(E=1.0, rho=RHOA / A), Section(A=A, I=EI))
    if fix:
        model.fix(fix)
    return model


def closed_form(bl):
    return bl**2 * np.sqrt(EI / (RHOA * L**4))


def test_cantilever_frequencies_converge_at_fourth_order_with_consistent_mass():
    exact = closed_form(CANTILEVER_BL)
    ns = np.array([6, 12, 24])  # third mode: asymptotic range, rotary-inertia offset (6e-7) negligible
    errors = [abs(solve_modal(beam(n, "beam_start", A=1e8), n_modes=3, mass="consistent").omega[2] / exact[2] - 1) for n in ns]
    rate = -np.polyfit(np.log(ns), np.log(errors), 1)[0]
    assert 3.6 < rate < 4.4, f"rate {rate:.2f}, errors {errors}"
    omega = solve_modal(beam(16, "beam_start"), n_modes=4, mass="consistent").omega
    assert np.allclose(omega, exact, rtol=2e-4)


def test_lumped_mass_converges_at_second_order():
    exact = closed_form(CANTILEVER_BL[1])
    ns = np.array([8, 16, 32])
    errors = [abs(solve_modal(beam(n, "beam_start"), 2, mass="lumped").omega[1] / exact - 1) for n in ns]
    rate = -np.polyfit(np.log(ns), np.log(errors), 1)[0]
    assert 1.8 < rate < 2.2, f"rate {rate:.2f}"


def test_free_free_beam_has_three_rigid_modes_then_the_closed_form():
    res = solve_modal(beam(24), n_modes=6, mass="consistent")
    scale = closed_form(FREE_FREE_BL[0])
    # rigid modes sit at the round-off level of the stiff axial terms
    assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
    assert np.all(np.abs(res.omega[:3]) < 1e-4 * scale)
    assert np.allclose(res.omega[3:], closed_form(FREE_FREE_BL), rtol=2e-5)
    # mass-normalized modes
    from femb.assembly import Assembler

    M = Assembler(res.table).mass_matrix(1)
    t = res.table
    phi = res.modes[3][t.eq_var]
    assert phi @ (M @ phi) == pytest.approx(1.0, rel=1e-10)


def hanging_rod(n=8, pivot="table"):
    mesh = line_mesh((0.0, 0.0), (0.0, -L), n, "rod")
    model = Model(mesh)
    model.add_part("rod", "beam2d", "rod", Material(E=1e4, rho=RHOA / 1e4), Section(A=1e4, I=1.0))
    if pivot == "clamped":
        model.fix("rod_start")
    elif pivot == "table":
        model.fix("rod_start", ("ux", "uy"))
    else:
        top = model.node("rod_start")
        model.linear_constraint([(top, "ux", 1.0)], name="pivot x")
        model.linear_constraint([(top, "uy", 1.0)], name="pivot y")
    model.gravity((0.0, -9.81), constant=True)
    return model


@pytest.mark.parametrize("pivot", ["table", "joints"])
def test_physical_pendulum_frequency_comes_from_the_gravity_prestress(pivot):
    """A stiff rod hanging from a pivot: ω² = ρA g L²/2 / (ρA L³/3 + ρI L) appears only
    through the geometric stiffness of the gravity pre-stress; the joint-reduced model gives
    the same."""
    model = hanging_rod(pivot=pivot)
    # the pre-stress: gravity stretches the rod without bending it, so the clamped twin
    # (regular tangent at zero stress) has the same equilibrium, variable by variable
    static = solve_static(hanging_rod(pivot="clamped"), steps=1)
    omega = solve_modal(model, n_modes=2, state=static.final, mass="consistent").omega
    rhoI = RHOA / 1e4 * 1.0
    exact = np.sqrt(RHOA * 9.81 * L**2 / 2 / (RHOA * L**3 / 3 + rhoI * L))
    assert omega[0] == pytest.approx(exact, rel=1e-5)
    unstressed = solve_modal(model, n_modes=1, mass="consistent").omega
    assert abs(unstressed[0]) < 1e-2, "without pre-stress the pendulum mode is a rigid mode"


def test_lowest_frequency_vanishes_at_the_buckling_load():
    n = 16
    mesh = line_mesh((0.0, 0.0), (L, 0.0), n, "col")
    model = Model(mesh)
    model.add_part("col", "beam2d", "col", Material(E=1.0, rho=RHOA / 1e8), Section(A=1e8, I=EI))
    model.fix("col_start", ("ux", "uy"))
    model.fix("col_end", ("uy",))
    model.point_load("col_end", fx=-1.0)
    p_cr = solve_buckling(model, n_modes=1).load_factors[0]
    res = solve_static(model, load_factors=np.linspace(0.1, 0.9, 5) * p_cr)
    omega = frequencies_along_path(model, res, n_modes=1, mass="consistent")[:, 0]
    P = np.asarray(res.times)
    # ω1² falls linearly with the axial load and extrapolates to zero at P_cr
    slope, intercept = np.polyfit(P, omega**2, 1)
    assert -intercept / slope == pytest.approx(p_cr, rel=1e-3)
    assert np.all(np.asarray(omega[0]) > 0)  # a zero scale would let an all-zero output pass
    assert omega[-1] < 0.35 * omega[0]
