"""Dynamic steps of case files that start from the state an earlier step ended in
(``initial_state = "<step>"`` or ``"previous"``): a structure sagged statically under
gravity and then integrated with gravity on stays at rest (the start state is the
equilibrium, in 2-D and with 3-D rotations), a jointed pendulum started from its static
rest equals the Python-API run from the same u0, a dynamic step continued by another equals
one longer run, a restart keeps the start state, and bad references are reported with
their key path."""
import numpy as np
import pytest

from femb.case import load_case
from femb.core.errors import InputError
from femb.solvers import solve_dynamic, solve_static

CANTILEVER_2D = """\
[parameters]
L = 1.0
rho = 7850.0
A = 1e-4
EI = "210e9*8.33e-10"
[mesh.line]
name = "beam"
start = [0.0, 0.0]
end = ["L", 0.0]
elements = 8
[materials.steel]
E = 210e9
rho = "rho"
[sections.bar]
A = "A"
I = "EI/210e9"
[[parts]]
name = "beam"
cells = "beam"
element = "beam2d"
material = "steel"
section = "bar"
[[fix]]
nodes = "beam_start"
[[loads]]
type = "gravity"
g = [0.0, -9.81]
[[steps]]
type = "static"
name = "sag"
steps = 2
[[steps]]
type = "dynamic"
name = "hold"
INITIAL
dt = 0.01
t_end = 0.2
"""

CANTILEVER_3D = """\
[model]
dim = 3
[mesh.line]
name = "beam"
start = [0.0, 0.0, 0.0]
end = [1.0, 0.0, 0.0]
elements = 6
[materials.al]
E = 70e9
nu = 0.33
rho = 2700.0
[sections.s]
A = 1e-4
Iy = 2e-10
Iz = 5e-10
J = 4e-10
[[parts]]
cells = "beam"
element = "beam3d"
material = "al"
section = "s"
[[discrete]]
name = "tip_mass"
element = "rigid_body3d"
nodes = "beam_end"
parameters = { m = 0.5, Jxx = 1e-3, Jyy = 2e-3, Jzz = 2e-3 }
[[fix]]
nodes = "beam_start"
[[loads]]
type = "gravity"
g = [0.0, -3.0, -9.81]
[[steps]]
type = "static"
name = "sag"
steps = 4
[[steps]]
type = "dynamic"
name = "hold"
INITIAL
dt = 0.01
t_end = 0.2
checkpoint_every = 0
"""

PENDULUM = """\
[mesh.line]
name = "arm"
start = [0.0, 0.0]
end = [1.0, 0.0]
elements = 4
[materials.steel]
E = 210e9
rho = 7850.0
[sections.bar]
A = 1e-4
I = 1e-9
[[parts]]
cells = "arm"
element = "beam2d"
material = "steel"
section = "bar"
[[discrete]]
name = "bob"
element = "point_mass2d"
nodes = "arm_end"
parameters = { m = 1.0, J = 1e-4 }
[[discrete]]
name = "pivot_spring"
element = "rotational_spring2d_ground"
nodes = "arm_start"
parameters = { k = 40.0 }
[[joints]]
kind = "body_point"
name = "pivot"
body = "arm_start"
point = [0.0, 0.0]
[[loads]]
type = "gravity"
g = [0.0, -9.81]
[[initial_velocity]]
nodes = "arm_end"
uy = 0.5
[[steps]]
type = "static"
name = "rest"
steps = 4
[[steps]]
type = "dynamic"
name = "swing"
initial_state = "rest"
dt = 0.01
t_end = 0.3
"""


def still(static, dyn):
    """(largest drift of the state from the static end state / largest |u| of it, largest
    kinetic energy / strain energy at the start)."""
    u_s = np.array(static.states[-1])
    drift = np.abs(np.array(dyn.states) - u_s).max() / np.abs(u_s).max()
    return drift, dyn.series("kinetic_energy").max() / dyn.series("strain_energy")[0]


def test_2d_cantilever_started_from_its_static_sag_stays_at_rest(write_case, tmp_path):
    case = load_case(write_case(CANTILEVER_2D.replace("INITIAL", 'initial_state = "sag"')))
    static, dyn = case.run(tmp_path / "out", progress=False)
    tip = case.model.node("beam_end")
    q, L, EI = 7850.0 * 1e-4 * 9.81, 1.0, 210e9 * 8.33e-10
    # the sag is the Euler-Bernoulli cantilever's q L^4 / (8 EI) (lumped gravity on 8 elements)
    assert -static.dof(tip, "uy", -1) == pytest.approx(q * L**4 / (8 * EI), rel=0.01)
    drift, kinetic = still(static, dyn)
    assert drift <= 1e-9 and kinetic <= 1e-12  # measured 1e-14 and 7e-25
    assert dyn.info["initial_state"] == "sag" and dyn.series("strain_energy")[0] > 0
    # released from the undeformed beam instead, the tip drops to about twice the sag
    released = load_case(write_case(CANTILEVER_2D.replace("INITIAL", ""), name="released.toml")).steps[1]
    res = released.run(case.model)
    assert np.max(np.abs([res.dof(tip, "uy", k) for k in range(len(res))])) > 1.5 * -static.dof(tip, "uy", -1)


def test_3d_cantilever_with_tip_body_started_from_its_static_sag_stays_at_rest(write_case, tmp_path):
    """Oriented nodes (beam3d, rigid_body3d): the rotations of the sag (0.2 rad at the tip)
    reach the dynamics through the rotation vectors log R of the static end state."""
    case = load_case(write_case(CANTILEVER_3D.replace("INITIAL", 'initial_state = "previous"')))
    static, dyn = case.run(tmp_path / "out", progress=False)
    tip = case.model.node("beam_end")
    assert abs(static.dof(tip, "ry", -1)) > 0.1 and abs(static.dof(tip, "uz", -1)) > 0.1  # a large sag
    drift, kinetic = still(static, dyn)
    assert drift <= 1e-9 and kinetic <= 1e-12  # measured 6e-15 and 1e-24
    R, R_s = np.array(dyn.arrays["rotations"]), np.array(static.arrays["rotations"][-1])
    assert np.abs(R - R_s).max() <= 1e-12  # measured 1e-15
    assert dyn.info["initial_state"] == "sag"


def test_pendulum_from_static_rest_equals_the_api_run(write_case, tmp_path):
    """A flexible pendulum on a pin joint and a torsion spring, sagged by gravity (the pivot
    turns by 0.32 rad), then given a tip velocity: the case file's run is solve_dynamic
    from the static end state (initial velocity projected onto the joint as usual)."""
    text = PENDULUM + ('[[steps]]\ntype = "dynamic"\nname = "more"\ninitial_state = "previous"\ndt = 0.01\nt0 = 0.3\nt_end = 0.5\n'
                       'checkpoint_every = 0\n')
    case = load_case(write_case(text))
    static, swing, more = case.run(tmp_path / "out", progress=False)
    model = case.model
    assert static.dof(model.node("arm_start"), "rz", -1) < -0.3
    twin = solve_dynamic(model, 0.01, 0.3, u0=solve_static(model, steps=4).states[-1])
    assert np.array_equal(np.array(twin.states), np.array(swing.states))
    assert np.array_equal(np.array(twin.velocities), np.array(swing.velocities))
    assert swing.series("kinetic_energy")[0] == pytest.approx(0.5 * (1.0 + 7850e-4 / 8) * 0.5**2, rel=1e-12)  # bob + lumped tip mass of the arm
    assert swing.series("constraint_residual").max() <= 1e-12
    assert np.all(np.asarray(swing.series("kinetic_energy").max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(swing.series("energy_residual")).max() <= 1e-10 * swing.series("kinetic_energy").max()
    # the third step continues the second (its end state and velocities): one run from 0 to 0.5
    longer = solve_dynamic(model, 0.01, 0.5, u0=solve_static(model, steps=4).states[-1])
    assert more.times[0] == pytest.approx(0.3) and np.array_equal(more.states[0], swing.states[-1])
    assert np.allclose(np.array(more.states), np.array(longer.states[30:]), rtol=0, atol=1e-12)
    assert np.allclose(np.array(more.velocities), np.array(longer.velocities[30:]), rtol=0, atol=1e-10)


def test_restart_keeps_the_start_state_of_finished_steps(write_case, tmp_path, monkeypatch):
    """Killed during the first dynamic step, the restart continues it from its checkpoint and
    runs a later step that starts from the static step, whose end state the checkpoint kept."""
    text = PENDULUM + '[[steps]]\ntype = "dynamic"\nname = "again"\ninitial_state = "rest"\ndt = 0.02\nt_end = 0.1\n'
    path = write_case(text)
    whole = load_case(path).run(tmp_path / "whole", progress=False)

    import femb.case.segments as segments

    real, calls = segments.solve_dynamic, []

    class Interrupt(BaseException):
        pass

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) > 5:
            raise Interrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(segments, "solve_dynamic", interrupted)
    with pytest.raises(Interrupt):
        load_case(path).run(tmp_path / "part", progress=False)
    monkeypatch.setattr(segments, "solve_dynamic", real)
    restarted = load_case(path).run(tmp_path / "part", progress=False, restart=True)
    assert not restarted[0].states and restarted[0].end_state is not None  # not rerun; its end state from the checkpoint
    for a, b in zip(restarted[1:], whole[1:]):
        assert np.array_equal(np.array(a.states), np.array(b.states)) and np.array_equal(np.array(a.velocities), np.array(b.velocities))


@pytest.mark.parametrize("text, culprits", [
    (CANTILEVER_2D.replace("INITIAL", 'initial_state = "sagg"'), ["steps[1].initial_state", "unknown step 'sagg'", "earlier steps: 'sag'"]),
    (CANTILEVER_2D.replace("INITIAL", 'initial_state = "hold"'), ["steps[1].initial_state", "its own state"]),
    (CANTILEVER_2D.replace("INITIAL", 'initial_state = "later"')
     + '[[steps]]\ntype = "static"\nname = "later"\n', ["steps[1].initial_state", "'later' (steps[2]) runs after this one"]),
    (CANTILEVER_2D.replace("INITIAL", 'initial_state = "previous"').replace('type = "static"\nname = "sag"', 'type = "modal"\nname = "sag"')
     .replace("steps = 2\n", ""), ["steps[1].initial_state", "'sag' is a modal step", "dynamic, static"]),
    (CANTILEVER_2D.replace("INITIAL", "initial_state = 3"), ["steps[1].initial_state", "expected a string"]),
])
def test_bad_references_name_the_key(write_case, text, culprits):
    with pytest.raises(InputError) as err:
        load_case(write_case(text))
    message = str(err.value)
    assert all(c in message for c in culprits), message


def test_first_step_has_no_previous(write_case):
    text = CANTILEVER_2D.replace("INITIAL", 'initial_state = "previous"').replace('type = "static"\nname = "sag"\nsteps = 2\n[[steps]]\n', "")
    with pytest.raises(InputError, match=r"steps\[0\]\.initial_state: the first step has no previous step"):
        load_case(write_case(text))


def test_prescribed_motion_must_start_where_the_static_step_left_it(write_case, tmp_path):
    """The static step holds a prescribed DOF at value·λ; the dynamic step prescribes
    function(t0). Equal (here 0): the dynamics start; different: an error naming the DOF."""
    base = CANTILEVER_2D.replace("INITIAL", 'initial_state = "sag"') + '[[prescribe]]\nnodes = "beam_end"\ndof = "ux"\nfunction = "F"\n'
    ok = load_case(write_case(base.replace('"F"', '"-1e-3*t"'), name="ok.toml")).run(tmp_path / "ok", progress=False)
    tip = ok[1].model.node("beam_end")
    assert ok[1].dof(tip, "ux", -1) == pytest.approx(-2e-4)
    case = load_case(write_case(base.replace('"F"', '"1e-3 + t"')))
    with pytest.raises(InputError) as err:
        case.run(tmp_path / "bad", progress=False)
    message = str(err.value)
    assert "steps[1] (hold)" in message and f"prescribed DOF ux of node {tip}" in message and "0.001" in message, message


def test_surface_sizes_are_expressions(write_case):
    text = CANTILEVER_2D.replace("INITIAL", "") + '[output.surfaces.beam]\nshape = "circle"\ndiameter = "L/50"\n'
    case = load_case(write_case(text))
    assert case.output.surfaces["beam"]["diameter"] == pytest.approx(0.02)
