"""``initial_state = "<step>"`` of dynamic steps: start the time integration from the state
an earlier step ended in (docs/case_files.md, "Starting from an earlier step").

Typical use: a static step finds the equilibrium under gravity and preloads, and the
dynamic step starts from it instead of releasing the undeformed structure.

- :func:`resolve_references` (at load time) checks every reference: an earlier step of a
  type whose last frame is a state (``StepType.end_state``: static, dynamic), ``"previous"``
  meaning the step just before;
- :func:`end_state` (at run time) is the (u, v) the referenced Results ended with: u the
  last recorded state (n_var,) (for models with 3-D rotations its rotational slots hold
  the rotation vectors log R, from which ``solve_dynamic`` rebuilds the nodal rotations),
  v the last velocities of a dynamic step or None (a static step: the model's initial
  velocities apply, projected onto the joints as for any dynamic step);
- :func:`check_prescribed` refuses a start state whose prescribed DOFs differ from the
  values the dynamic step prescribes at its t0 (naming the DOF).
"""
import numpy as np

from femb.core.errors import InputError

PREVIOUS = "previous"


def resolve_references(steps, tables, ctx, step_types):
    """Replace ``initial_state = "previous"`` by the name of the step before and check every
    reference of ``steps`` (list of femb.case.steps.Step, parsed from ``tables``, the
    ``[[steps]]`` Tables in order). Problems go to ``ctx`` with the key path
    ``steps[i].initial_state``."""
    import dataclasses

    names = [s.name for s in steps]
    for i, (step, table) in enumerate(zip(steps, tables)):
        ref = getattr(step.settings, "initial_state", None)
        if ref is None:
            continue
        path = f"{table.key_path('initial_state')}"
        if ref == PREVIOUS and PREVIOUS not in names:
            if i == 0:
                ctx.problems.append(f"{path}: the first step has no previous step to start from")
                continue
            ref = names[i - 1]
            step.settings = dataclasses.replace(step.settings, initial_state=ref)
        if ref not in names:
            earlier = ", ".join(repr(n) for n in names[:i]) or "none"
            ctx.problems.append(f"{path}: unknown step {ref!r} (earlier steps: {earlier})")
            continue
        j = names.index(ref)
        if j == i:
            ctx.problems.append(f"{path}: step {ref!r} cannot start from its own state; name an earlier step")
            continue
        if j > i:
            ctx.problems.append(f"{path}: step {ref!r} (steps[{j}]) runs after this one; a step can only start from the "
                                f"state of an earlier step")
            continue
        source = steps[j]
        if not step_types[source.type].end_state:
            kinds = ", ".join(sorted(k for k, t in step_types.items() if t.end_state))
            ctx.problems.append(f"{path}: step {ref!r} is a {source.type} step, its frames are not states of the model "
                                f"(start from a step of type {kinds})")


def end_state(results, name):
    """(u (n_var,), v (n_var,) or None) of the last frame of ``results`` (the Results of
    step ``name``): v only for dynamic steps. InputError when there is no state (the step
    recorded nothing, or a restart restored it without states and the checkpoint did not
    keep its end state)."""
    kept = getattr(results, "end_state", None)
    if kept is not None:
        return kept
    if not len(results.states):
        raise InputError(f"initial_state: step {name!r} has no recorded state to start from")
    u = np.array(results.states[-1], dtype=np.float64)
    v = None
    if results.kind == "dynamic" and len(results.velocities) == len(results.states) and results.velocities[-1] is not None:
        v = np.array(results.velocities[-1], dtype=np.float64)
    return u, v


def check_prescribed(problem, u0, t0, name, strict=True):
    """InputError when a prescribed DOF of the start state ``u0`` (n_var,) differs from its
    value at ``t0`` in the dynamic step (``problem``: its femb.solvers.dynamics.problem.
    DynamicProblem; tolerance 1e-9 of the model's length scale, or of 1 for rotations).
    ``strict=False`` (smoke runs, whose static steps stop short of the full load) only
    reports the largest difference; the prescribed values then replace the start state's.
    Returns the largest difference."""
    table = problem.table
    expected = problem.apply_prescribed(np.array(u0, dtype=np.float64), t0)
    if getattr(problem, "oriented", False):  # rotation vectors as the start state holds them (log R, |θ| <= π)
        lay = problem.rotary.layout
        lay.write_vectors(expected, lay.rotations_from_vectors(expected))
    worst, bad = 0.0, []
    for vars_, _ in problem.prescribed:
        for var in np.atleast_1d(vars_):
            node, dof = table.describe_var(int(var))
            scale = 1.0 if dof.startswith("r") else max(1.0, float(problem.length_scale))
            diff = abs(float(u0[var]) - float(expected[var]))
            worst = max(worst, diff / scale)
            if diff > 1e-9 * scale:
                bad.append(f"prescribed DOF {dof} of node {node} is {expected[var]:.6g} at t0 = {t0:g} in this step "
                           f"but {u0[var]:.6g} in the state step {name!r} ended in")
    if bad and strict:
        more = f" (and {len(bad) - 3} more)" if len(bad) > 3 else ""
        raise InputError(f"initial_state: {'; '.join(bad[:3])}{more}; the prescribed motion must start where "
                         f"step {name!r} left the DOF")
    return worst
