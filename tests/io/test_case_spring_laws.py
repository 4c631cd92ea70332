"""Force laws of springs and dampers in case files: ``law``/``damper_law`` tables and
expressions in ``[[discrete]]`` build the Python API's model (same dynamic solution bit for
bit) and bad laws are reported with their key path and part."""
import numpy as np
import pytest

from femb.case import load_case
from femb.core.errors import InputError
from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers import solve_dynamic

CASE = """\
title = "mass on a stiffening strut"
[parameters]
c = 0.8
[mesh.line]
name = "strut"
start = [0.0, 0.0]
end = [1.0, 0.0]
elements = 1
[[fix]]
nodes = "strut_start"
[[discrete]]
name = "bob"
element = "point_mass2d_translational"
nodes = "strut_end"
parameters = { m = 0.5 }
[[discrete]]
name = "strut_spring"
element = "spring2d"
nodes = ["strut_start", "strut_end"]
parameters = { L0 = 1.0 }
LAWS
[[initial_velocity]]
nodes = "strut_end"
ux = 1.5
uy = 0.7
[[steps]]
type = "dynamic"
name = "swing"
dt = 0.03125
t_end = 2.0
"""

LAWS = """\
law = [[-0.2, -30.0], [0.0, 0.0], [0.05, 4.0], [0.1, 12.0], [0.3, 80.0]]
smooth = true
damper_law = { expression = "c*x*abs(x)", range = [-5.0, 5.0] }
"""


def api_model():
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 1, "strut"), name="model")
    model.fix("strut_start")
    model.add_discrete("bob", "point_mass2d_translational", "strut_end", m=0.5)
    model.add_discrete("strut_spring", "spring2d", ("strut_start", "strut_end"), L0=1.0, smooth=True,
                       law=[(-0.2, -30.0), (0.0, 0.0), (0.05, 4.0), (0.1, 12.0), (0.3, 80.0)],
                       damper_law=lambda v: 0.8 * v * abs(v), damper_range=(-5.0, 5.0))
    model.initial_velocity("strut_end", ux=1.5, uy=0.7)
    return model


def test_case_laws_build_the_api_model(write_case, tmp_path):
    case = load_case(write_case(CASE.replace("LAWS", LAWS)))
    values = case.model.parts["strut_spring"].values
    assert values["law"].source == "pchip" and values["damper_law"].source == "function"
    assert values["damper_law"].error <= 1e-9
    (res,) = case.run(tmp_path, progress=False)
    ref = solve_dynamic(api_model(), 0.03125, 2.0)
    assert np.array_equal(np.array(res.states), np.array(ref.states))
    E = res.series("energy_residual")
    assert np.all(np.asarray(res.series("kinetic_energy")[0]) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(E).max() <= 1e-11 * res.series("kinetic_energy")[0]
    assert res.series("dissipated_energy")[-1] > 0.05 * res.series("kinetic_energy")[0]


def test_rotational_spring_with_a_table_only_needs_no_parameters(write_case):
    text = CASE.replace("LAWS", "").replace("""[[initial_velocity]]""", """[[discrete]]
name = "hinge"
element = "rotational_spring2d_ground"
nodes = "strut_end"
law = [[-1.0, -2.0], [0.0, 0.0], [1.0, 5.0]]
[[initial_velocity]]""", 1).replace('parameters = { L0 = 1.0 }', 'parameters = { L0 = 1.0, k = 10.0 }')
    text = text.replace('element = "point_mass2d_translational"\nnodes = "strut_end"\nparameters = { m = 0.5 }',
                        'element = "point_mass2d"\nnodes = "strut_end"\nparameters = { m = 0.5, J = 0.01 }')
    model = load_case(write_case(text)).model
    row = model.parts["hinge"].values
    assert row["k"] == 0.0 and row["law"].n == 3
    assert model.problems() == []


@pytest.mark.parametrize("laws, message", [
    ("law = [[0.0, 0.0], [0.0, 1.0]]", r"discrete\[1\].*part 'strut_spring'.*increase strictly"),
    ("law = [[0.0, 0.0], [1.0]]", r"discrete\[1\]\.law\[1\]: expected a pair"),
    ("law = 3.0", r"discrete\[1\]\.law: expected a table"),
    ('law = { expression = "x + y", range = [-1.0, 1.0] }', r"discrete\[1\]\.law\.expression.*y"),
    ('law = { expression = "x" }', r"discrete\[1\]\.law\.range: required"),
    ("damper_law = [[-1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]", r"part 'strut_spring'.*damper_law.*dissipate"),
    ('damper_law = { expression = "sqrt(abs(x))", range = [-1.0, 1.0] }', r"damper_law.*more than"),
    ("smooth = 1", r"discrete\[1\]\.smooth: expected true or false"),
])
def test_bad_laws_are_reported_with_their_path(write_case, laws, message):
    with pytest.raises(InputError, match=message):
        load_case(write_case(CASE.replace("LAWS", laws)))


def test_laws_only_on_springs(write_case):
    text = CASE.replace("LAWS", "").replace("parameters = { m = 0.5 }", "parameters = { m = 0.5 }\nlaw = [[0.0, 0.0], [1.0, 1.0]]")
    with pytest.raises(InputError, match=r"discrete\[0\]\.law: only springs and dampers take force laws"):
        load_case(write_case(text))
