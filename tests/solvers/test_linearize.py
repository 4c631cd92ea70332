"""Linearization in independent coordinates (pendulum in non-minimal coordinates).

Reference values: Moore's sympy.physics.mechanics pendulum (m = 0.5, L = 1, g = 9.8,
gravity along +x, hanging along +x), as derived in references/linearization_eigen_rigid_trees.md
§1.3: ω = sqrt(g/L) = 3.130495 rad/s; at θ = 30°, θ̇ = 1 rad/s with y independent
A = [[0, 1], [−(49√3/15 + 5/3), −2√3/3]].
"""
import numpy as np
import pytest

from femb.core.errors import InputError
from femb.mesh import CellBlock, Mesh
from femb.model import Material, Model, Section
from femb.solvers import solve_modal, solve_static
from femb.solvers.eigen.linearize import linearize
from femb.validation.eigen_cases import pendulum_xy

M_BOB, L, G = 0.5, 1.0, 9.8
OMEGA = np.sqrt(G / L)


def pendulum(x0=L):
    """A point mass at (x0, 0) held at distance L from the origin by a joint."""
    return pendulum_xy(M_BOB, L, G, x0)


def test_hanging_pendulum_has_exactly_two_eigenvalues_plus_minus_i_omega():
    model = pendulum()
    lin = linearize(model, np.zeros(2))
    ev = lin.eigenvalues()
    assert ev.size == 2, "a non-minimal model must not add states"
    assert np.allclose(ev.real, 0.0, atol=1e-8)
    assert np.allclose(np.sort(ev.imag), [-OMEGA, OMEGA], rtol=1e-9)
    assert lin.independent == [(0, "uy")]
    assert lin.K[0, 0] == pytest.approx(M_BOB * G / L, rel=1e-8)
    assert lin.M[0, 0] == pytest.approx(M_BOB, rel=1e-14)


def test_inverted_pendulum_is_unstable_with_real_pair():
    lin = linearize(pendulum(-L), np.zeros(2))
    ev = lin.eigenvalues()
    assert np.allclose(np.sort(ev.real), [-OMEGA, OMEGA], rtol=1e-9)
    assert np.allclose(ev.imag, 0.0, atol=1e-8)


def test_trajectory_point_linearization_matches_the_chain_rule_reference():
    th, thd = np.radians(30.0), 1.0
    u = np.array([L * np.cos(th) - L, L * np.sin(th)])
    v = np.array([-L * np.sin(th) * thd, L * np.cos(th) * thd])
    lin = linearize(pendulum(), u, v)
    assert lin.independent == [(0, "uy")], "pivoting must pick y at θ = 30°"
    A_ref = np.array([[0.0, 1.0], [-(49 * np.sqrt(3) / 15 + 5 / 3), -2 * np.sqrt(3) / 3]])
    assert np.allclose(lin.A, A_ref, atol=1e-6)


def test_horizontal_force_input_gives_b_equal_one_over_m():
    lin = linearize(pendulum(), np.zeros(2), inputs=[("bob", "uy")], outputs=[("bob", "ux"), ("bob", "uy")])
    assert np.allclose(lin.B, [[0.0], [1.0 / M_BOB]], atol=1e-12)
    # outputs: δx = 0 to first order (x is a second-order quantity), δy = δz
    assert np.allclose(lin.C, [[0.0, 0.0], [1.0, 0.0]], atol=1e-12)


def test_singular_choice_of_independent_coordinates_is_reported():
    with pytest.raises(InputError, match="singular"):
        linearize(pendulum(), np.zeros(2), independent=[("bob", "ux")])


def test_modal_analysis_uses_the_joint_reaction_stiffness():
    """Σλ∇²Φ: the distance joint's tension gives the pendulum its stiffness m g/L."""
    model = pendulum()
    static = solve_static(model, steps=1)
    lam = static.arrays["multipliers"][-1]
    assert lam[0] == pytest.approx(M_BOB * G, rel=1e-12)  # Φ = (|d|² − L²)/(2L): λ is the rod tension
    omega = solve_modal(model, 1, static.final, mass="lumped", multipliers=lam).omega
    assert omega[0] == pytest.approx(OMEGA, rel=1e-10)
    without = solve_modal(model, 1, static.final, mass="lumped").omega
    assert abs(without[0]) < 1e-6 * OMEGA, "without the term the pendulum mode is a spurious zero"


def test_same_pendulum_as_a_stiff_truss_mechanism():
    mesh = Mesh(np.array([[0.0, 0.0], [L, 0.0]]), {"rod": CellBlock("line", np.array([[0, 1]]))},
                {"pivot": np.array([0]), "bob": np.array([1])})
    model = Model(mesh)
    model.add_part("rod", "truss2d", "rod", Material(E=1e9, rho=0.0), Section(A=1.0))
    model.add_discrete("bob_mass", "point_mass2d_translational", "bob", m=M_BOB)
    model.fix("pivot")
    model.gravity((G, 0.0), constant=True)
    # a slack truss has no transverse stiffness: start the static solve from a slight stretch
    u0 = np.zeros(4)
    u0[2] = 1e-9
    static = solve_static(model, steps=1, u0=u0)
    lin = linearize(model, static.final)
    ev = np.abs(lin.eigenvalues().imag)
    assert lin.A.shape == (4, 4)
    assert np.min(ev) == pytest.approx(OMEGA, rel=1e-6)  # pendulum pair; the other is axial
