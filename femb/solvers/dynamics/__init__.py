"""Time integration: the dynamic problem (mass, damping, rotary inertia, prescribed motion),
the step systems of the energy-conserving mid-point and the Newmark/HHT/generalized-α
schemes (planar and 3-D), energy and momentum accounting, and the solve_dynamic driver."""
