"""Round-off level of a step residual: ε‖|K|·|x|‖ (femb.solvers.nonlinear.newton.rounding_residual).

Positions are stored as absolute coordinates X + u, each known to ε|X + u| only, so the
internal force of a stiff member far from the origin is a staircase in the unknowns whose
steps are about stiffness × ulp(position), whatever the loads. The Newton loops accept a
residual that has stopped falling below that level (they used to wait for a relative floor
the residual could not reach: iterations to the limit, cut-backs)."""
import numpy as np
import pytest

from femb.assembly import Assembler
from femb.correlation import build_table
from femb.mesh import line_mesh
from femb.model import Material, Model, Section
from femb.solvers.nonlinear.newton import at_noise_floor, rounding_residual
from femb.solvers.problem import reference_coordinates


def stiff_truss_far_away(offset):
    """truss2d chain (8 elements, EA = 1e8 N, 1 m) along x starting ``offset`` m from the
    origin, slightly stretched."""
    model = Model(line_mesh((offset, 0.0), (offset + 1.0, 0.0), 8, "bar"))
    model.add_part("bar", "truss2d", "bar", Material(E=1e10, rho=1.0), Section(A=1e-2))
    return model


def chain_rounding_level(offset, n=8, EA=1e8, length=1.0):
    """ε‖|K|·|x|‖ of the axial chain by hand: row i of |K| holds EA/l at its neighbours and
    2EA/l (end nodes EA/l) on the diagonal, so the row sum is EA/l (x_{i−1} + 2x_i + x_{i+1})
    with x_i = offset + i·l (the transverse rows, N/l ≈ 1e-3 EA/l, and the 1e-4 stretch are
    below 1e-5 of it)."""
    k, x = EA / (length / n), offset + np.linspace(0.0, length, n + 1)
    rows = np.concatenate([[x[0] + x[1]], x[:-2] + 2 * x[1:-1] + x[2:], [x[-2] + x[-1]]])
    return np.finfo(np.float64).eps * k * np.linalg.norm(rows)


@pytest.mark.parametrize("offset", [1.0, 100.0, 1e4])
def test_rounding_estimate_bounds_the_staircase_of_the_internal_force(offset):
    """The internal force changes by the highest stair ‖|K|·ulp(x)‖ (to 15 %) when each
    absolute coordinate moves by one ulp, and that stair lies between half the estimate and
    the estimate (ε|x|/2 ≤ ulp(x) ≤ ε|x|): the estimate is the residual's true noise level,
    and it grows with the distance from the origin as the ulp does. The estimate itself is
    the hand value of the chain."""
    model = stiff_truss_far_away(offset)
    table = build_table(model)
    asm = Assembler(table)
    X = reference_coordinates(model, table)
    rng = np.random.default_rng(1)
    u = 1e-4 * rng.standard_normal(table.n_var)
    f0 = asm.internal_force(u)
    K = asm.tangent(u)[1]  # over the equations (renumbered variables)
    x_eq = (X + u)[table.eq_var]
    estimate = rounding_residual(K, x_eq)
    assert estimate == pytest.approx(chain_rounding_level(offset), rel=1e-4)  # measured 4e-6
    stair = np.linalg.norm(abs(K) @ np.spacing(np.abs(x_eq)))  # the largest change one ulp per coordinate can make
    assert 0.5 * estimate <= stair <= estimate  # measured 0.69, 0.64, 0.82
    jumps = []
    for _ in range(20):
        x = X + u
        x_ulp = x + np.spacing(x) * rng.choice([-1.0, 1.0], size=x.size)  # one ulp per coordinate
        jumps.append(np.linalg.norm(asm.internal_force(x_ulp - X) - f0))
    assert 0.9 * stair <= max(jumps) <= 1.15 * stair  # measured 1.075, 1.077, 0.998 (round-off of the force itself)


def test_a_stalled_residual_is_noise_below_the_relative_floor_or_the_rounding_level():
    stalled = [10.0, 1e-3, 2e-6, 1.5e-6]  # stopped falling (not 4× below the smallest before)
    falling = [10.0, 1e-3, 2e-6, 1e-7]
    assert at_noise_floor(stalled, scale=1e4, floor=1e-9)  # 1.5e-6 <= 1e-5
    assert not at_noise_floor(stalled, scale=1e2, floor=1e-9)  # 1.5e-6 > 1e-7, no rounding level
    assert at_noise_floor(stalled, scale=1e2, floor=1e-9, rounding=lambda: 3e-6)
    assert not at_noise_floor(stalled, scale=1e2, floor=1e-9, rounding=lambda: 1e-6)
    assert not at_noise_floor(falling, scale=1e2, floor=1e-9, rounding=lambda: 1.0)  # still converging
    assert not at_noise_floor(stalled[:3], scale=1e4, floor=1e-9)  # too few iterations to tell


@pytest.mark.slow
def test_spatial_spin_up_with_stiff_tube_needs_no_iterations_beyond_its_round_off():
    """The spatial spin-up with 8 tube elements and 32 channel pairs (the linked-lines model
    of the channel, with its stiff links): positions 8–16 m from
    the shaft, a tube with EA/L ≈ 8.5e7 N/m (residual floor ~1e-6 N, above 1e-9 of the
    force scale for the first seconds) and soft, light channel rotations (their corrections
    are not at round-off while the residual is). Measured over 5 s: 7.3 iterations per
    step (up to the limit of 25) before, 3.96 after."""
    from femb.solvers.dynamics.driver import solve_dynamic
    from femb.validation.dynamic3d_cases import spatial_spin_up_linked

    res = solve_dynamic(spatial_spin_up_linked(8, 32), 0.01, 5.0, mass="lumped")
    assert res.info["newton_iterations"] / res.info["steps"] <= 4.5
    assert np.max(res.series("iterations")) <= 8
    assert np.sum(res.series("cutbacks")) == 0
    assert np.all(np.asarray(np.abs(res.series("total_energy")).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(res.series("energy_residual")).max() <= 1e-9 * np.abs(res.series("total_energy")).max()
