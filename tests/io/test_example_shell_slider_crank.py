"""The slider-crank with a shell4 coupler as a case file (examples/shell_slider_crank.toml,
its mesh examples/shell_slider_crank.msh) and its Python twin: the mesh file is the
script's mesh, the case file gives the script's trajectory to round-off, the energy
balance against the motor's work and the joints hold, and both write their ParaView
collections and histories."""
import importlib.util

import numpy as np
import pytest

from femb.case import load_case
from femb.export import read_pvd
from femb.mesh.io import read_mesh
from femb.solvers import solve_dynamic
from tests.io.conftest import EXAMPLES

T_SHORT = 0.02  # start-up to 2/3 of full speed: 100 steps, 21 frames


@pytest.fixture(scope="module")
def crank():
    spec = importlib.util.spec_from_file_location("example_shell_slider_crank", EXAMPLES / "shell_slider_crank.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def case_run(tmp_path_factory):
    """The case file shortened to T_SHORT through its t_end parameter."""
    out = tmp_path_factory.mktemp("shell_slider_crank")
    case = load_case(EXAMPLES / "shell_slider_crank.toml", parameters={"t_end": T_SHORT})
    (res,) = case.run(out, progress=False)
    return case, res, out


def deflection_from_probes(res, crank):
    """Mid-span deflection from the chord A–B in the plane of motion (m), from the probes
    of history.csv as a ParaView or spreadsheet user would compute it."""
    xa = np.column_stack([crank.R + res.series("A_ux"), res.series("A_uy")])
    xb = np.column_stack([crank.R + crank.L + res.series("B_ux"), np.zeros(len(res))])
    xm = np.column_stack([crank.R + crank.L / 2 + res.series("mid_ux"), res.series("mid_uy")])
    d, r = xb - xa, xm - xa
    return (d[:, 0] * r[:, 1] - d[:, 1] * r[:, 0]) / np.linalg.norm(d, axis=1)


def test_mesh_file_is_the_scripts_mesh(crank):
    """The committed mesh file is what ``write_coupler_mesh()`` writes: same points (bit
    for bit: gmsh 2.2 text with 17 digits), quads and node sets."""
    mesh, ref = read_mesh(EXAMPLES / "shell_slider_crank.msh"), crank.coupler_mesh("shell4")
    assert np.array_equal(mesh.points, ref.points)
    assert list(mesh.cells) == ["coupler"] and mesh.cells["coupler"].cell_type == "quad"
    assert np.array_equal(mesh.cells["coupler"].connectivity, ref.cells["coupler"].connectivity)
    assert {k: v.tolist() for k, v in mesh.node_sets.items()} == {k: v.tolist() for k, v in ref.node_sets.items()}


def test_case_file_gives_the_scripts_trajectory(case_run, crank):
    case, res, out = case_run
    step = case.steps[0].settings
    assert (step.dt, step.settings.record_every, step.scheme["name"], step.settings.mass) == (crank.DT, crank.VTK_EVERY, "midpoint", "lumped")
    assert load_case(EXAMPLES / "shell_slider_crank.toml").steps[0].settings.t_end == crank.T_END
    twin = crank.run("shell4", T_SHORT, record_every=crank.VTK_EVERY)
    tres = twin["results"]
    # the case file's model is the script's build("shell4"): one solve_dynamic call on it
    # gives the script's run bit for bit
    one = solve_dynamic(case.model, step.dt, T_SHORT, scheme="midpoint", mass="lumped", record_every=crank.VTK_EVERY,
                        probes=crank.PROBES)
    assert np.array_equal(np.array(one.states), np.array(tres.states))
    assert np.array_equal(np.array(one.velocities), np.array(tres.velocities))
    # the case run goes in segments (a solve_dynamic call per recorded frame, for its
    # checkpoints), whose step times differ in the last bits (t_seg + n dt instead of
    # t0 + k dt): the same trajectory to the Newton tolerance (measured: displacements
    # 1e-12, velocities 1.4e-9 of their largest value)
    assert len(res) == len(tres) == 21
    u, ut = np.array(res.states), np.array(tres.states)
    assert np.abs(u - ut).max() <= 1e-11 * np.abs(ut).max()
    v, vt = np.array(res.velocities), np.array(tres.velocities)
    assert np.abs(v - vt).max() <= 1e-8 * np.abs(vt).max()
    w = deflection_from_probes(res, crank)
    assert np.abs(w).max() > 2e-4  # the strip bends
    assert np.abs(w - twin["deflection"]).max() <= 1e-8 * np.abs(w).max()
    assert np.allclose(res.series("constraint_work"), tres.series("constraint_work"), rtol=1e-10, atol=1e-14)


def test_case_file_energy_balance_joints_and_outputs(case_run, crank):
    case, res, out = case_run
    W = res.series("constraint_work")
    assert W[-1] > 0.5  # the motor has spun the mechanism up (0.82 J at 0.02 s)
    assert np.abs(res.series("energy_residual")).max() <= 1e-9 * np.abs(W).max()
    assert res.series("constraint_residual").max() <= 1e-14
    assert np.abs(res.series("mid_uz")).max() <= 1e-9  # the motion stays in its plane
    # the prescribed crank angle is the script's motor law
    assert np.allclose(res.series("crank_angle"), [crank.theta(t) for t in res.times], rtol=0, atol=1e-14)
    # ParaView: the quads (and the shell slabs) at every recorded frame; probes in the history
    assert len(read_pvd(out / "results.pvd")) == len(read_pvd(out / "results_surface.pvd")) == 21
    header = (out / "history.csv").read_text().splitlines()[0].split(",")
    assert set(crank.PROBES) | {"energy_residual", "constraint_work", "constraint_residual"} <= set(header)


def test_twin_script_writes_its_outputs(crank, tmp_path):
    r = crank.main(0.004, out=tmp_path)
    for kind in ("shell4", "beam3d"):
        assert len(read_pvd(tmp_path / f"{kind}.pvd")) == len(read_pvd(tmp_path / f"{kind}_surface.pvd")) == 5
        table = np.loadtxt(tmp_path / f"{kind}_history.csv", delimiter=",", skiprows=1)
        assert table.shape[0] == len(r[kind]["results"]) == 21
    assert (tmp_path / "history.png").stat().st_size > 10_000


@pytest.mark.slow
def test_full_case_run_gives_the_documented_numbers(tmp_path, crank):
    """The whole 0.15 s of the case file (750 steps, ~25 s): the numbers of its header."""
    case = load_case(EXAMPLES / "shell_slider_crank.toml")
    (res,) = case.run(tmp_path, progress=False)
    W = res.series("constraint_work")
    assert W[-1] == pytest.approx(13.105, abs=1e-3)
    assert np.abs(res.series("energy_residual")).max() <= 1e-9 * np.abs(W).max()  # measured 1e-10
    assert res.series("constraint_residual").max() <= 1e-15
    w = deflection_from_probes(res, crank)
    k = int(np.argmax(np.abs(w)))
    assert w[k] == pytest.approx(-1.746e-3, rel=2e-3) and res.times[k] == pytest.approx(0.115)
    assert np.abs(res.series("mid_uz")).max() <= 1e-11
