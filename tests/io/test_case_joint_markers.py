"""Case-file keys of 3-D joints at attachment points: ``point`` between two nodes (the
attachment point, reference coordinates), ``frame = "a"``/``"b"`` (``point`` an offset
from that node) and ``second_axis`` (universal): a case builds the same joints as its
Python-API twin (equal equations at a moved state), and a bad frame is refused naming
the key."""
import numpy as np
import pytest

from femb.assembly.joints import ConstraintSet
from femb.case import load_case
from femb.core.errors import InputError
from femb.correlation import build_table
from femb.mesh import line_mesh
from femb.model import Model

CASE = """\
[model]
dim = 3
[mesh.line]
name = "rods"
start = [0.5, 0.0, 0.0]
end = [1.5, 0.0, 0.0]
elements = 1
[[discrete]]
name = "rod1"
element = "rigid_body3d"
nodes = "rods_start"
parameters = { m = 1.0, Jxx = 1e-4, Jyy = 0.08, Jzz = 0.08 }
[[discrete]]
name = "rod2"
element = "rigid_body3d"
nodes = "rods_end"
parameters = { m = 1.0, Jxx = 1e-4, Jyy = 0.08, Jzz = 0.08 }
[[joints]]
kind = "revolute"
name = "pivot"
a = "rods_start"
point = [-0.5, 0.0, 0.0]
frame = "a"
axis = [0.0, 1.0, 0.0]
[[joints]]
kind = "universal"
name = "elbow"
a = "rods_start"
b = "rods_end"
point = [1.0, 0.0, 0.0]
axis = [0.0, 1.0, 0.0]
second_axis = [0.0, 0.0, 1.0]
[[joints]]
kind = "spherical"
name = "tip"
a = "rods_end"
point = [0.5, 0.0, 0.0]
frame = "a"
[[steps]]
type = "static"
"""


def api_twin():
    model = Model(line_mesh((0.5, 0.0, 0.0), (1.5, 0.0, 0.0), 1, "rods"), dim=3, name="model")
    for name, node in (("rod1", "rods_start"), ("rod2", "rods_end")):
        model.add_discrete(name, "rigid_body3d", node, m=1.0, Jxx=1e-4, Jyy=0.08, Jzz=0.08)
    model.joint3d("revolute", "rods_start", None, axis=(0, 1, 0), point=(0.0, 0.0, 0.0), name="pivot")
    model.joint3d("universal", "rods_start", "rods_end", axis=(0, 1, 0), point=(1.0, 0.0, 0.0), second_axis=(0, 0, 1),
                  name="elbow")
    model.joint3d("spherical", "rods_end", None, point=(2.0, 0.0, 0.0), name="tip")
    return model


def test_case_joints_at_attachment_points_equal_their_api_twin(write_case):
    case_model = load_case(write_case(CASE)).model
    twin = api_twin()
    phis = []
    for model in (case_model, twin):
        table = build_table(model)
        cs = ConstraintSet(model, table)
        u = np.linspace(-0.3, 0.4, table.n_var)  # a moved state: every equation non-zero
        phis.append(cs.evaluate(u, jacobian=False))
    assert np.abs(phis[0]).min() > 1e-3
    assert np.array_equal(phis[0], phis[1])


@pytest.mark.parametrize("replace, culprit", [
    (('name = "tip"\na = "rods_end"\npoint = [0.5, 0.0, 0.0]\nframe = "a"', 'name = "tip"\na = "rods_end"\npoint = [0.5, 0.0, 0.0]\nframe = "b"'),
     "joints[2].frame: point given in frame 'b', which does not exist"),
    (('second_axis = [0.0, 0.0, 1.0]', 'second_axis = [0.0, 1.0, 1.0]'), "joints[1].second_axis: must be non-zero and perpendicular"),
    (('frame = "a"\naxis', 'frame = "c"\naxis'), "joints[0].frame: unknown value"),
])
def test_bad_attachment_keys_are_refused_naming_the_key(write_case, replace, culprit):
    with pytest.raises(InputError, match=culprit.replace("[", r"\[").replace("(", r"\(")):
        load_case(write_case(CASE, replace=(replace,)))
