"""Configuration-dependent mass in the α schemes (femb.solvers.dynamics.variable_mass):
M(u) ü + h(u, u̇) + f_int = f_ext for element types with a ``velocity_force`` kernel, shown
with ``rigid_body2d_offset`` (a planar rigid body whose node is not its centre of mass).

A torsion spring to ground on the node's rotation applies a pure moment −kθ to the body:
its centre of mass moves uniformly and θ(t) = (ω0/Ω) sin Ωt with Ω² = k/J (J about the
centre of mass), while the node's coordinates (x = x_c − R(θ) c) and the mass matrix
M(θ) are nonlinear. Closed form against Newmark, HHT and generalized-α."""
import numpy as np
import pytest

from femb.core.errors import InputError
from femb.mesh import Mesh
from femb.model import Model
from femb.solvers import HHT, GeneralizedAlpha, Newmark, solve_dynamic
from femb.solvers.dynamics.driver import _default_newton
from femb.solvers.dynamics.problem import DynamicProblem
from femb.solvers.nonlinear.step_newton import DirectCorrection, iterate

M_, J_, C_, W0, V0, K_ = 2.0, 0.3, np.array([0.4, -0.1]), 3.0, np.array([0.5, 0.2]), 12.0
OMEGA = np.sqrt(K_ / J_)


def offset_body():
    mesh = Mesh(np.array([[0.0, 0.0]]), {}, {"p": [0]})
    model = Model(mesh, name="offset body on a torsion spring")
    model.add_discrete("body", "rigid_body2d_offset", "p", m=M_, J=J_, cx=C_[0], cy=C_[1])
    model.add_discrete("spring", "rotational_spring2d_ground", "p", k=K_)
    model.initial_velocity("p", ux=V0[0], uy=V0[1], rz=W0)
    return model


def exact(t):
    """(ux, uy, θ) of the node at time t (module docstring)."""
    vc = V0 + W0 * np.array([-C_[1], C_[0]])
    th = W0 / OMEGA * np.sin(OMEGA * t)
    r = np.array([np.cos(th) * C_[0] - np.sin(th) * C_[1], np.sin(th) * C_[0] + np.cos(th) * C_[1]])
    x = C_ + vc * t - r
    return np.array([x[0], x[1], th])


@pytest.mark.parametrize("scheme", [Newmark(), GeneralizedAlpha(rho_inf=0.8), HHT(alpha=-0.2)], ids=["newmark", "genalpha", "hht"])
def test_offset_body_converges_at_second_order_to_the_closed_form(scheme):
    """Error of the node state at t = 1 s (1.7 oscillation periods) falls by 4 ± 0.3 per
    halving of Δt (second order: the inertia is weighted as [(1 − α_f) M(u_{n+1}) +
    α_f M(u_n)] ((1 − α_m) a_{n+1} + α_m a_n), the time of the weighted forces; weighting
    M(u) a with α_m instead would be first order when α_m ≠ α_f)."""
    errs = [np.abs(solve_dynamic(offset_body(), dt, 1.0, scheme=scheme, record_every=10**9).final - exact(1.0)).max()
            for dt in (0.04, 0.02, 0.01)]
    r = np.array(errs[:-1]) / np.array(errs[1:])
    assert np.all(np.abs(r - 4.0) <= 0.3), (errs, r)


def test_newton_converges_quadratically_with_the_variable_mass_derivatives():
    """Δt = 0.1 s (ΩΔt = 0.63): at most 4 iterations per step, each of the last two
    corrections squaring the residual (r_{k+1} ≤ 10 r_k² / r_0 relative)."""
    prob = DynamicProblem(offset_body())
    prob.dt_hint, prob.max_turn = 0.1, None
    scheme = GeneralizedAlpha(rho_inf=0.8)
    state = scheme.start(prob, 0.0, *prob.initial_state(0.0, 0.1))
    for _ in range(3):
        system = scheme.system(prob, state, 0.1)
        report = iterate(system, _default_newton(), DirectCorrection(prob.table))
        assert report.converged and report.iterations <= 4
        r = np.array(report.residual_history) / report.residual_history[0]
        assert r[-1] <= 1e-10
        assert r[-2] <= 10.0 * r[-3] ** 2
        state, _ = system.finish(report.state)


def test_energy_and_momentum_include_the_configuration_dependent_mass():
    """Kinetic energy ½ q̇ᵀ M(θ) q̇ = ½ m |v_c|² + ½ J ω² at the start; linear momentum
    m v_c (the spring applies no force); with Newmark the total energy stays within the
    O(h²) error (2e-3 relative at Δt = 0.01 s) and the momentum within 1e-3."""
    res = solve_dynamic(offset_body(), 0.01, 1.0, scheme=Newmark())
    vc = V0 + W0 * np.array([-C_[1], C_[0]])
    E = res.series("total_energy")
    assert E[0] == pytest.approx(0.5 * M_ * vc @ vc + 0.5 * J_ * W0 ** 2, rel=1e-14)
    assert np.abs(E - E[0]).max() <= 2e-3 * E[0]
    p = np.column_stack([res.series("linear_momentum_x"), res.series("linear_momentum_y")])
    assert np.allclose(p[0], M_ * vc, rtol=1e-14)
    assert np.abs(p - p[0]).max() <= 1e-3 * np.linalg.norm(p[0])


def test_mid_point_scheme_refuses_a_configuration_dependent_mass():
    with pytest.raises(InputError, match=r"constant mass.*'body'"):
        solve_dynamic(offset_body(), 0.01, 0.02)
