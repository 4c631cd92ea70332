"""The slider-crank with a superelement coupler (examples/cb_slider_crank.py and .toml): the
script writes the moving full mesh of the superelement, the model, the history and the
plot; the case file (its coupler reduced from a mesh part) gives the script's motion; the
motor's work equals kinetic plus strain energy."""
import importlib.util

import numpy as np
import pytest

from femb.case import load_case
from femb.export import read_pvd
from tests.io.conftest import EXAMPLES

T_SHORT = 0.004  # 20 steps, 5 frames


@pytest.fixture(scope="module")
def crank():
    spec = importlib.util.spec_from_file_location("example_cb_slider_crank", EXAMPLES / "cb_slider_crank.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_script_writes_its_outputs_and_balances_energy(crank, tmp_path):
    r = crank.main(T_SHORT, out=tmp_path)
    assert r["energy_residual"] <= 1e-9 and r["joint_residual"] <= 1e-14
    assert len(read_pvd(tmp_path / "coupler.pvd")) == len(read_pvd(tmp_path / "results.pvd")) == len(r["results"]) == 5
    assert (tmp_path / "history.png").stat().st_size > 10_000
    header = (tmp_path / "history.csv").read_text().splitlines()[0].split(",")
    assert set(crank.PROBES) <= set(header)


def test_case_file_gives_the_scripts_motion(crank, tmp_path):
    case = load_case(EXAMPLES / "cb_slider_crank.toml", parameters={"t_end": T_SHORT})
    data, ref = case.model.superelements["coupler"], crank.coupler_component().superelement()
    assert np.allclose(data.K, ref.K, rtol=1e-12, atol=1e-12 * np.abs(ref.K).max())
    (res,) = case.run(tmp_path, progress=False)
    twin = crank.run(T_SHORT)["results"]
    for probe in crank.PROBES:
        a, b = res.series(probe), twin.series(probe)
        assert np.abs(a - b).max() <= 1e-8 * max(np.abs(b).max(), 1e-6), probe  # A_ux starts at 1e-14 m
    W = res.series("constraint_work")
    assert W[-1] > 0 and np.abs(res.series("energy_residual")).max() <= 1e-9 * np.abs(W).max()
