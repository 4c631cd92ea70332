"""Static analyses: Newton with load stepping (static) and arc-length continuation
(arclength), both on femb.solvers.problem.StaticProblem."""
