"""The ``dynamic`` step type of case files (docs/case_files.md): nonlinear time integration
with ``solve_dynamic``, run in segments that write frames and checkpoints as they go
(femb.case.segments)."""
import dataclasses

from femb.case.segments import DynamicStepSettings, run_dynamic_step
from femb.case.steps import read_newton, register_step_type
from femb.solvers.dynamics.driver import DynamicSettings
from femb.solvers.dynamics.problem import Rayleigh

SCHEMES = ("midpoint", "newmark", "hht", "generalized-alpha")
SCHEME_KEYS = {"newmark": ("beta", "gamma"), "hht": ("alpha",), "generalized-alpha": ("rho_inf",), "midpoint": ()}
MASS_KINDS = ("lumped", "consistent", "invariant")
KEYS = ["dt", "t_end", "t0", "scheme", "alpha", "rho_inf", "beta", "gamma", "mass", "rayleigh", "record_every", "max_turn",
        "newton", "probes", "checkpoint_every", "initial_state"]
SMOKE_FRAMES = 5


def parse_dynamic(table, ctx):
    """DynamicStepSettings from a ``[[steps]]`` table of type "dynamic"."""
    table.allowed += KEYS
    t0 = table.take("t0", "number", default=0.0)
    dt = table.take("dt", "number", required=True, positive=True)
    t_end = table.take("t_end", "number", required=True)
    if not t_end > t0:
        ctx.fail(table.key_path("t_end"), f"must be > t0 = {t0:g}, got {t_end:g}")
    kind = table.take("scheme", "string", default="midpoint", choices=SCHEMES)
    scheme = {"name": kind}
    for key in ("alpha", "rho_inf", "beta", "gamma"):
        if key in table and key not in SCHEME_KEYS[kind]:
            owner = next(k for k, v in SCHEME_KEYS.items() if key in v)
            ctx.fail(table.key_path(key), f"only used by scheme = \"{owner}\" (this step uses {kind!r})")
    if kind == "hht":
        alpha = table.take("alpha", "number", default=-0.05)
        if not -1.0 / 3.0 <= alpha <= 0.0:
            ctx.fail(table.key_path("alpha"), f"must lie in [-1/3, 0], got {alpha:g}")
        scheme["alpha"] = alpha
    elif kind == "generalized-alpha":
        rho = table.take("rho_inf", "number", default=0.8)
        if not 0.0 <= rho <= 1.0:
            ctx.fail(table.key_path("rho_inf"), f"must lie in [0, 1], got {rho:g}")
        scheme["rho_inf"] = rho
    elif kind == "newmark":
        scheme["beta"] = table.take("beta", "number", default=0.25, positive=True)
        scheme["gamma"] = table.take("gamma", "number", default=0.5, positive=True)
    mass = table.take("mass", "string", default="lumped", choices=MASS_KINDS)
    damping = None
    if "rayleigh" in table:
        ab = table.take("rayleigh", "vector", size=2)
        if min(ab) < 0:
            ctx.fail(table.key_path("rayleigh"), f"[alpha, beta] must be >= 0, got {list(ab)}")
        damping = Rayleigh(*ab)
    record_every = table.take("record_every", "integer", default=1, minimum=1)
    base = DynamicSettings()
    max_turn = table.take("max_turn", "number", default=base.max_turn, positive=True)
    newton = read_newton(table, ctx, defaults=base.newton)
    probes = _read_probes(table, ctx)
    checkpoint_every = table.take("checkpoint_every", "integer", default=1, minimum=0)
    initial_state = table.take("initial_state", "string")  # checked against the other steps by read_steps
    settings = dataclasses.replace(base, mass=mass, damping=damping, newton=newton, max_turn=max_turn, record_every=record_every)
    return DynamicStepSettings(dt=dt, t_end=t_end, t0=t0, settings=settings, scheme=scheme, probes=probes, checkpoint_every=checkpoint_every,
                               initial_state=initial_state)


def _read_probes(table, ctx):
    """``[steps.probes]``: NAME = [node, "dof"] or [node, "dof", "v"] (a velocity)."""
    sub = table.sub("probes")
    if sub is None:
        return {}
    probes = {}
    for name in sub.data:
        path = sub.key_path(name)
        with ctx.guard():
            value = sub.take(name)
            if not name.isidentifier():
                ctx.fail(path, f"probe names must be identifiers, got {name!r}")
            if not isinstance(value, list) or len(value) not in (2, 3):
                ctx.fail(path, f"expected [node, dof] or [node, dof, \"v\"], got {value!r}")
            node = ctx.selector(value[0], f"{path}[0]")
            dof = ctx.string(value[1], f"{path}[1]", choices=("ux", "uy", "uz", "rx", "ry", "rz"))
            which = ctx.string(value[2], f"{path}[2]", choices=("u", "v")) if len(value) == 3 else "u"
            probes[name] = (node, dof, which)
    sub.done()
    return probes


def check_dynamic(model, step):
    """Probe nodes must name one node and DOFs the model has; the mass kind must be
    configuration-independent for every part (time integration needs a constant mass),
    except the rotary inertia of 3-D oriented elements (``spec.rotary_kinds``) and, for the
    α schemes, planar element types with a quadratic-velocity force (``velocity_force``:
    a configuration-dependent mass, femb.solvers.dynamics.variable_mass)."""
    from femb.core.errors import InputError
    from femb.elements import MASS_KINDS as KIND_NUMBERS

    alpha = step.scheme.get("name", "midpoint") not in ("midpoint", "energy")

    def integrable(spec, number):
        """Constant mass, or (3-D oriented elements: beam3d, rigid_body3d) a mass whose
        rotary part every scheme integrates as nodal rigid bodies, or (α schemes) a
        configuration-dependent mass with its velocity force, or (mid-point) inertia carried
        by the element's own mass points (superelements, femb.solvers.dynamics.point_inertia)."""
        return (number in spec.constant_mass or (model.dim == 3 and spec.oriented and number in spec.rotary_kinds)
                or (alpha and not spec.oriented and spec.kernels.velocity_force is not None)
                or (not alpha and spec.kernels.midpoint_step is not None))

    kind = step.settings.mass
    if isinstance(kind, str) and kind in KIND_NUMBERS:
        bad = [name for name in model.parts if not integrable(model.spec(name), KIND_NUMBERS[kind])]
        if bad:
            ok = sorted({k for k, n in KIND_NUMBERS.items() if all(integrable(model.spec(p), n) for p in model.parts)})
            yield "mass", (f"mass kind {kind!r} depends on the configuration for part(s) {', '.join(map(repr, bad))}; "
                           f"time integration needs a constant mass (use {' or '.join(map(repr, ok)) or 'another element'})")

    for name, (node, dof, _) in step.probes.items():
        try:
            count = model.nodes(node).size
        except InputError as exc:
            yield f"probes.{name}[0]", exc.problems[0]
            continue
        if count != 1:
            yield f"probes.{name}[0]", f"must name exactly one node, {node!r} has {count}"
        if dof not in model.dof_names:
            yield f"probes.{name}[1]", f"not a DOF of a {model.dim}-D model (DOFs: {', '.join(model.dof_names)}), got {dof!r}"


def expected_frames(step):
    return len(step.schedule()[1])


def smoke_dynamic(step):
    """The first ``SMOKE_FRAMES`` recorded frames of the same time grid."""
    n, frames = step.schedule()
    k = frames[min(SMOKE_FRAMES, len(frames) - 1)]
    return dataclasses.replace(step, t_end=step.time_at(k, n))


def run_dynamic(model, step, on_frame, checkpoint=None, start=None):
    return run_dynamic_step(model, step, on_frame, checkpoint, start=start)


register_step_type("dynamic", parse_dynamic, run_dynamic, expected_frames,
                   "nonlinear dynamics (energy-conserving mid-point, Newmark, HHT, generalized-alpha)",
                   smoke=smoke_dynamic, restartable=True, check=check_dynamic, end_state=True)
