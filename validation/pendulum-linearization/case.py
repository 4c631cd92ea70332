"""Pendulum in non-minimal coordinates (x, y) with a length constraint, linearized in
independent coordinates (Moore's sympy.physics.mechanics example: m = 0.5, L = 1, g = 9.8).

About the hanging equilibrium femb must give exactly two eigenvalues ±i·sqrt(g/L) (the
naive Jacobian of the non-minimal model has the spurious pair {0, 0}); at the trajectory
point θ = 30°, θ̇ = 1 rad/s the state matrix is A = [[0, 1], [−(49√3/15 + 5/3), −2√3/3]];
a horizontal force input gives B = [0, 1/m]; the same pendulum built as a stiff truss
mechanism has the same pendulum frequency.
"""
from femb.validation.eigen_cases import pendulum_linearization_case


def run(quick, out_dir):
    return pendulum_linearization_case(quick)
