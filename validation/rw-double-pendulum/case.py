"""Russell & Willmert (1993) rigid double pendulum, first link driven at 10 rad/s.

Rigid second link (natural coordinates, constant mass, distance joint), tip mass 0.2,
energy-conserving mid-point scheme with the multipliers eliminated (null-space Newton).
Metrics: constraint drift and energy balance over 30 s; θ2 at 3 s against the solution of
the exact one-DOF equation of the driven pendulum (the paper's comparison, eq. 33), at
three step sizes.
"""
from femb.validation.mechanism_cases import rw_double_pendulum_case


def run(quick, out_dir):
    return rw_double_pendulum_case(quick)
