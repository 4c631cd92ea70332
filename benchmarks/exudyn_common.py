"""Exudyn settings shared by femb's side-by-side benchmarks (peer_suite.py, cb_exudyn.py):
one place for how Exudyn's dynamic solver is set up when its time and accuracy are set
beside femb's.
"""

MAX_ITERATIONS = 25  # Newton iterations per step, both codes


def exudyn_dynamic_settings(exu, dt, t_end, rel_tol, abs_tol, modified, max_iterations=MAX_ITERATIONS):
    """Exudyn's SimulationSettings for a fixed-step dynamic run: ``exu`` the exudyn module,
    step dt and end time t_end (time units), Newton's relative and absolute tolerances
    (``newton.relativeTolerance``, ``newton.absoluteTolerance``; residual units), modified
    (Exudyn's default, the Jacobian kept while convergence is fast) or full Newton, at most
    ``max_iterations``; the sparse Eigen solver with its pattern analysed once, one thread,
    no solution file, no sensor output between steps unless the caller sets its period,
    nothing printed."""
    s = exu.SimulationSettings()
    ti = s.timeIntegration
    ti.numberOfSteps = int(round(t_end / dt))
    ti.endTime = t_end
    ti.verboseMode = 0
    ti.automaticStepSize = False
    ti.newton.relativeTolerance = rel_tol
    ti.newton.absoluteTolerance = abs_tol
    ti.newton.maxIterations = max_iterations
    ti.newton.useModifiedNewton = modified
    s.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    s.linearSolver.reuseAnalyzedPattern = True
    s.parallel.numberOfThreads = 1
    s.show.computationTime = False
    s.show.statistics = False
    s.solution.file.write = False
    s.solution.sensors.writePeriod = 1e9
    return s
