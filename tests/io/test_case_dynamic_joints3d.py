"""A dynamic step of a case file with a 3-D joint: a rigid body on a skew revolute joint to
ground runs like solve_dynamic on its Python-API twin, with the exact energy balance and
the joint held at position level (femb.solvers.dynamics.midpoint3d with eliminated multipliers)."""
import numpy as np

from femb.case import load_case
from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers import solve_dynamic

CASE = """\
[model]
dim = 3
[mesh.line]
name = "arm"
start = [0.0, 0.0, 0.0]
end = [1.0, 0.0, 0.2]
elements = 1
[[discrete]]
name = "body"
element = "rigid_body3d"
nodes = "arm_end"
parameters = { m = 2.0, Jxx = 0.1, Jyy = 0.3, Jzz = 0.35, Jxy = 0.02 }
[[joints]]
kind = "revolute"
name = "pivot"
a = "arm_end"
point = [0.0, 0.0, 0.0]
axis = [0.3, -0.5, 0.8]
[[loads]]
type = "gravity"
g = [0.0, 0.0, -9.81]
[[initial_velocity]]
nodes = "arm_end"
ux = 1.0
uz = -3.0
[[steps]]
type = "dynamic"
dt = 0.1
t_end = 2.0
"""


def api_twin():
    model = Model(line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.2), 1, "arm"), dim=3, name="model")
    model.add_discrete("body", "rigid_body3d", "arm_end", m=2.0, Jxx=0.1, Jyy=0.3, Jzz=0.35, Jxy=0.02)
    model.joint3d("revolute", "arm_end", None, axis=(0.3, -0.5, 0.8), point=(0.0, 0.0, 0.0), name="pivot")
    model.gravity((0.0, 0.0, -9.81))
    model.initial_velocity("arm_end", ux=1.0, uz=-3.0)
    return model


def test_dynamic_step_with_a_3d_revolute_joint(write_case, tmp_path):
    case = load_case(write_case(CASE))
    (res,) = case.run(tmp_path / "out", progress=False)
    ref = solve_dynamic(api_twin(), 0.1, 2.0)
    assert np.allclose(np.array(res.states), np.array(ref.states), rtol=1e-10, atol=1e-14)
    assert np.all(np.asarray(res.series("kinetic_energy").max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(res.series("energy_residual")).max() <= 1e-9 * res.series("kinetic_energy").max()
    assert res.series("constraint_residual").max() <= 1e-10
    assert np.ptp(res.dof(1, "uz")) > 0.3  # it swings
