"""Bad input in the multibody tables and the dynamic/modal steps: exit code 2 and a message
naming the file, the key path and the value (all problems at once)."""
import pytest

from femb.cli import main
from tests.io.test_case_dynamic import DYNAMIC_CASE, JOINT_CASE, JOINTS

DYN = DYNAMIC_CASE.replace("SCHEME", "")
JNT = JOINT_CASE.replace("JOINTS", JOINTS)


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


@pytest.mark.parametrize("text, replace, culprits", [
    # dynamic steps
    (DYN, [("dt = 0.00390625\n", "")], ["steps[0].dt: required key is missing"]),
    (DYN, [("t_end = 0.5", "t_end = -1.0")], ["steps[0].t_end", "must be > t0 = 0", "-1"]),
    (DYN, [("record_every = 4", "record_every = 4\nscheme = 'rk4'")], ["steps[0].scheme", "unknown value 'rk4'", "midpoint, newmark, hht, generalized-alpha"]),
    (DYN, [("record_every = 4", "record_every = 4\nalpha = -0.1")], ["steps[0].alpha", 'only used by scheme = "hht"', "'midpoint'"]),
    (DYN, [("record_every = 4", "record_every = 4\nscheme = 'hht'\nalpha = 0.5")], ["steps[0].alpha", "[-1/3, 0]", "0.5"]),
    (DYN, [("record_every = 4", "record_every = 4\nscheme = 'generalized-alpha'\nrho_inf = 2")], ["steps[0].rho_inf", "[0, 1]", "2"]),
    (DYN, [("record_every = 4", "record_every = 4\nmass = 'heavy'")], ["steps[0].mass", "'heavy'", "lumped, consistent, invariant"]),
    (DYN, [("record_every = 4", "record_every = 4\nmass = 'consistent'")], ["steps[0].mass", "'consistent' depends on the configuration", "'beam'",
                                                                        "use 'invariant' or 'lumped'"]),
    (DYN, [("record_every = 4", "record_every = 4\nrayleigh = [0.1]")], ["steps[0].rayleigh", "expected 2 components"]),
    (DYN, [("record_every = 4", "record_every = 4\nrayleigh = [0.1, -1.0]")], ["steps[0].rayleigh", "must be >= 0", "-1.0"]),
    (DYN, [("record_every = 4", "record_every = 0")], ["steps[0].record_every", "must be >= 1", "0"]),
    (DYN, [("record_every = 4", "record_every = 4\ncheckpoint_every = 1.5")], ["steps[0].checkpoint_every", "expected an integer", "1.5"]),
    (DYN, [("record_every = 4", "record_every = 4\nstep_size = 1e-3")], ["steps[0].step_size: unknown key", "dt, t_end"]),
    (DYN, [("record_every = 4", "record_every = 4\n[steps.newton]\ntolerance = 'tight'")], ["steps[0].newton.tolerance", "'tight'"]),
    (DYN, [('tip_uy = ["beam_end", "uy"]', 'tip_uy = ["nowhere", "uy"]')], ["steps[0].probes.tip_uy[0]", "'nowhere'"]),
    (DYN, [('tip_uy = ["beam_end", "uy"]', 'tip_uy = ["beam_nodes", "uy"]')], ["steps[0].probes.tip_uy[0]", "exactly one node", "'beam_nodes' has 5"]),
    (DYN, [('tip_uy = ["beam_end", "uy"]', 'tip_uy = ["beam_end", "uz"]')], ["steps[0].probes.tip_uy[1]", "not a DOF of a 2-D model", "'uz'"]),
    (DYN, [('tip_vy = ["beam_end", "uy", "v"]', 'tip_vy = ["beam_end", "uy", "a"]')], ["steps[0].probes.tip_vy[2]", "'a'"]),
    # modal steps
    (DYN, [('type = "dynamic"', 'type = "modal"\nn_modes = 0\n[steps.x]\ny = 1\n[[steps]]\ntype = "dynamic"')], ["steps[0].n_modes", "must be >= 1", "0"]),
    (DYN, [('type = "dynamic"', 'type = "modal"\nmass = "rigid"\n[[steps]]\ntype = "dynamic"')], ["steps[0].mass", "'rigid'"]),
    # initial velocities
    (DYN, [('nodes = "beam_end"\nuy = "v0"', 'nodes = "beam_end"\nuz = 1.0')], ["initial_velocity[0].uz", "not a DOF of a 2-D model"]),
    (DYN, [('nodes = "beam_end"\nuy = "v0"', 'nodes = "beam_end"\nvy = 1.0')], ["initial_velocity[0].vy: unknown key", "allowed: nodes, rigid, ux"]),
    (DYN, [('nodes = "beam_end"\nuy = "v0"', 'nodes = "tip"\nuy = 1.0')], ["initial_velocity[0].nodes", "'tip'"]),
    (DYN, [('nodes = "beam_end"\nuy = "v0"', 'uy = "v0"\nrigid = { omega = 1.0 }')], ["initial_velocity[0]", "give DOF values (uy) or rigid, not both"]),
    (DYN, [('nodes = "beam_end"\nuy = "v0"', 'rigid = { omega = 1.0, spin = 2.0 }')], ["initial_velocity[0].rigid.spin: unknown key", "omega, center, velocity"]),
    (DYN, [('nodes = "beam_end"\nuy = "v0"', 'rigid = { center = [0.0, 0.0, 1.0], omega = 1.0 }')], ["initial_velocity[0].rigid.center", "expected 2 components"]),
    (DYN, [('nodes = "beam_end"\nuy = "v0"', 'rigid = { omega = "w" }')], ["initial_velocity[0].rigid.omega", "unknown name 'w'"]),
    # discrete elements
    (DYN, [("parameters = { m = 0.02 }", "parameters = { m = 0.02, J = 1.0 }")], ["discrete[0].parameters.J: unknown key", "allowed: m"]),
    (DYN, [('element = "point_mass2d_translational"', 'element = "point_mass2d"')], ["discrete[0].parameters", "needs J", "m, J"]),
    (DYN, [('element = "point_mass2d_translational"', 'element = "flywheel"')], ["discrete[0].element", "'flywheel'"]),
    (DYN, [('name = "tip_mass"', 'name = "beam"')], ["discrete[0].name", "'beam' is already a cell set or part name"]),
    (DYN, [('nodes = "beam_start"\nparameters = { k', 'nodes = ["beam_start"]\nparameters = { k'), ('element = "rotational_spring2d_ground"', 'element = "rotational_spring2d"')],
     ["discrete[1].nodes", "needs nodes = [a, b]", "['beam_start']"]),
    # joints
    (JNT, [('kind = "coincide"', 'kind = "hinge"')], ["joints[0].kind", "'hinge'", "distance, on_line, coincide, linear"]),
    (JNT, [("offset = [0.0, 0.1]", "offset = [0.0, 0.1, 0.0]")], ["joints[0].offset", "expected 2 components"]),
    (JNT, [('b = "arm_start"', 'b = "arm_nodes"')], ["joints[0].b", "exactly one node", "'arm_nodes' has 3"]),
    (JNT, [('["beam_end", "rz", -1.0]', '["beam_end", "uw", -1.0]')], ["joints[1].terms[1][1]", "'uw'"]),
    (JNT, [('terms = [["arm_start", "rz", 1.0], ["beam_end", "rz", -1.0]]', "terms = 3")], ["joints[1].terms", "expected an array of [node, dof, coefficient]", "3"]),
    (JNT, [("point = [0.5, 1.0]", "point = [0.5, 1.0]\nlength = -1.0")], ["joints[2].length", "must be > 0", "-1"]),
    (JNT, [("b = 2\npoint = [0.5, 1.0]", "b = 2")], ["joints[2]", "needs either a (a node) or point"]),
    (JNT, [("direction = [1.0, -0.5]", "direction = [0.0, 0.0]")], ["joints[3].direction", "must be non-zero"]),
    (JNT, [('node = "arm_end"', 'node = "arm_end"\nlength = 1.0')], ["joints[3].length: unknown key", "kind, name, node, point, direction"]),
    (JNT, [('name = "same rotation"', 'name = "joints[0] (coincide)"')], ["joints[1].name", "defined twice"]),
    # point loads
    (JNT, [('moment_type = "semitangential"', 'moment_type = "twisting"')], ["loads[0].moment_type", "'twisting'", "dead, semitangential, follower"]),
])
def test_bad_multibody_input_exit_2(capsys, write_case, text, replace, culprits):
    path = write_case(text, replace=replace)
    code, _, err = run_cli(capsys, "run", path, "--out", path.parent / "out", "--no-progress")
    assert code == 2, err
    assert str(path) in err
    for c in culprits:
        assert c in err, (c, err)


def test_several_problems_reported_at_once(capsys, write_case):
    path = write_case(DYN, replace=[("record_every = 4", "record_every = 4\nmass = 'heavy'"), ("parameters = { m = 0.02 }", "parameters = {}"),
                                    ('nodes = "beam_end"\nuy = "v0"', 'nodes = "beam_end"\nuz = 1.0')])
    code, _, err = run_cli(capsys, "run", path, "--no-progress")
    assert code == 2 and "3 problems" in err
    assert "steps[0].mass" in err and "discrete[0].parameters" in err and "initial_velocity[0].uz" in err
