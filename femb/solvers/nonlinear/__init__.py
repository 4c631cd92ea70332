"""Newton iterations: the static and projected (jointed) Newton loops with line search and
round-off acceptance (newton), and the Newton loop of one time step (step_newton)."""
