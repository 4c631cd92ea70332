"""Case files: Rayleigh damping (``rayleigh = [alpha, beta]``) and rotation-dependent
moment loads in the dynamic steps of models with 3-D rotations run through the case runner
with the same books as the Python API."""
import numpy as np

from femb.case import load_case
from tests.io.conftest import EXAMPLES

STEP = 'mass = "lumped"\nrecord_every = 4'
FOLLOWER = '''[[loads]]
type = "point"
nodes = "tip"
mz = 0.5
moment_type = "follower"

[[steps]]
type = "static"'''


def test_spatial_arm_with_rayleigh_damping_and_a_follower_tip_moment(tmp_path):
    """examples/spatial_arm.toml (smoke mode) with ``rayleigh = [0.5, 1e-4]`` in its dynamic
    step and a follower moment on the payload: the mid-point run books the dissipation
    (above that of the joints' spring-dampers alone: 1.071e-6 against 1.006e-6 J over the
    0.1 s smoke run) and the work of drive and moment (−2.75e-5 J) so that the energy balance
    closes to 1e-8 of the largest kinetic energy (measured 5e-11)."""
    text = (EXAMPLES / "spatial_arm.toml").read_text()
    assert STEP in text and '[[steps]]\ntype = "static"' in text
    text = text.replace('[[steps]]\ntype = "static"', FOLLOWER, 1)
    runs = {}
    for name, extra in (("damped", "\nrayleigh = [0.5, 1e-4]"), ("undamped", "")):
        case_file = tmp_path / f"arm_{name}.toml"
        case_file.write_text(text.replace(STEP, STEP + extra))
        runs[name] = load_case(case_file, smoke=True).run(tmp_path / name, progress=False)[1]
    res = runs["damped"]
    kmax = res.series("kinetic_energy").max()
    assert kmax > 0
    assert res.series("dissipated_energy")[-1] > 0.0
    assert runs["undamped"].series("dissipated_energy")[-1] < res.series("dissipated_energy")[-1]
    assert np.abs(res.series("energy_residual")).max() <= 1e-8 * kmax
    assert np.abs(res.series("tip_uz") - runs["undamped"].series("tip_uz")).max() > 0.0
