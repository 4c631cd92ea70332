"""VTU/PVD frames read back with meshio match the Results; the collection is valid after
every frame; history CSV and run.json; PNG rendering."""
import csv
import json
import xml.etree.ElementTree as ET

import meshio
import numpy as np
import pytest

from femb.core.errors import InputError
from femb.export import (
    FrameStreamer,
    PVDWriter,
    read_pvd,
    render_png,
    results_to_vtk,
    write_history_csv,
    write_run_json,
)
from femb.export.render import resolve_frame
from femb.mesh import line_mesh
from femb.model import Material, Model, Section
from femb.solvers import solve_static


@pytest.fixture(scope="module")
def cantilever():
    mesh = line_mesh((0.0, 0.0), (1.0, 0.0), 4, "beam")
    model = Model(mesh, name="cantilever")
    model.add_part("beam", "beam2d", "beam", Material(E=1.0), Section(A=1e4, I=2.0))
    model.fix("beam_start")
    model.point_load("beam_end", mz=np.pi, fy=0.1)
    return model, solve_static(model, steps=3)


@pytest.fixture(scope="module")
def frame_model():
    """Two parts with different element types (truss2d and beam2d) sharing a node."""
    a = line_mesh((0.0, 0.0), (1.0, 0.0), 2, "beam")
    b = line_mesh((1.0, 0.0), (1.0, -1.0), 1, "strut")
    mesh = a.merge(a, b, tolerance=1e-9)
    model = Model(mesh, name="mixed")
    model.add_part("beam", "beam2d", "beam", Material(E=100.0), Section(A=1.0, I=0.1))
    model.add_part("strut", "truss2d", "strut", Material(E=100.0), Section(A=1.0))
    model.fix("beam_start")
    model.fix("strut_end", "translations")
    model.point_load("beam_v1", fy=-1.0)
    return model, solve_static(model, steps=2)


def test_vtu_fields_match_results(tmp_path, cantilever):
    model, res = cantilever
    writer = results_to_vtk(res, tmp_path)
    entries = read_pvd(writer.path)
    assert [t for t, _ in entries] == pytest.approx(res.times)
    t = res.table
    for k, (_, vtu) in enumerate(entries):
        m = meshio.read(vtu)
        assert np.allclose(m.points[:, :2], model.mesh.points) and np.all(m.points[:, 2] == 0)
        u = res.states[k]
        d = m.point_data["displacement"]
        assert d.shape == (model.mesh.n_nodes, 3) and np.all(d[:, 2] == 0)
        for node in range(model.mesh.n_nodes):
            assert d[node, 0] == pytest.approx(u[t.var_of(node, "ux")])
            assert d[node, 1] == pytest.approx(u[t.var_of(node, "uy")])
            assert m.point_data["rotation"][node] == pytest.approx(u[t.var_of(node, "rz")])
        assert np.allclose(m.point_data["deformed"], m.points + d)
        assert float(m.field_data["TimeValue"][0]) == pytest.approx(res.times[k])
        # cell data: resultants and energies per element
        from femb.assembly import Assembler
        asm = Assembler(t)
        s = asm.resultants(u)["beam"]
        total, per = asm.strain_energy(u, per_element=True)
        for j, name in enumerate(("N", "V", "M1", "M2")):
            assert np.allclose(m.cell_data[name][0], s[:, j])
        assert np.allclose(m.cell_data["strain_energy_density"][0] * 0.25, per["beam"])
        assert m.cell_data["strain_energy_density"][0].sum() * 0.25 == pytest.approx(res.history["strain_energy"][k], abs=1e-12)
        X = m.points + d
        c = m.cells[0].data
        strain = (np.linalg.norm(X[c[:, 1]] - X[c[:, 0]], axis=1) - 0.25) / 0.25
        assert np.allclose(m.cell_data["axial_strain"][0], strain)
    # the clamp carries the reactions of the tip load
    m = meshio.read(entries[-1][1])
    assert m.point_data["reaction_force"][0, 1] == pytest.approx(-0.1, rel=1e-8)


def test_mixed_parts_nan_for_missing_resultants(tmp_path, frame_model):
    model, res = frame_model
    writer = results_to_vtk(res, tmp_path)
    m = meshio.read(read_pvd(writer.path)[-1][1])
    data = {k: np.concatenate(v) for k, v in m.cell_data.items()}  # meshio joins blocks of one type
    assert data["part_id"].tolist() == [0, 0, 1]
    assert np.all(np.isfinite(data["M1"][:2])) and np.isnan(data["M1"][2])
    assert np.all(np.isfinite(data["N"]))
    assert data["N"][2] == pytest.approx(res.table.blocks[1].props[0, 0] * data["axial_strain"][2])
    # the truss-only node has no rotation: written as zero
    strut_end = model.node("strut_end")
    assert m.point_data["rotation"][strut_end] == 0.0


def _pvd_files(path):
    root = ET.parse(path).getroot()  # raises unless well-formed XML
    assert root.tag == "VTKFile" and root.get("type") == "Collection"
    return [ds.get("file") for ds in root.iter("DataSet")]


def test_pvd_is_valid_after_every_frame(tmp_path, cantilever):
    _, res = cantilever
    writer = PVDWriter(tmp_path, "run")
    for k in range(len(res)):
        writer.add(res, k, "static")
        files = _pvd_files(writer.path)
        assert files == [f"run_{i:05d}.vtu" for i in range(k + 1)]
        assert all((tmp_path / f).exists() for f in files)
        assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob("*.part"))


def test_streamer_every_nth_and_last(tmp_path, cantilever):
    _, res = cantilever
    writer = PVDWriter(tmp_path)
    streamer = FrameStreamer(writer, every=2)
    streamer(res)
    assert streamer.written == [0, 2]
    streamer.finish(res)
    assert streamer.written == [0, 2, 3]
    assert len(_pvd_files(writer.path)) == 3


def test_time_mode_falls_back_to_index_for_non_monotone_times(tmp_path, cantilever):
    _, res = cantilever
    writer = PVDWriter(tmp_path)
    for k in (0, 2, 1):
        writer.add(res, k)
    assert [t for t, _ in read_pvd(writer.path)] == [0.0, 1.0, 2.0]


def test_history_csv(tmp_path, cantilever):
    _, res = cantilever
    path = write_history_csv(res, tmp_path / "h.csv")
    rows = list(csv.reader(path.open()))
    assert rows[0] == ["time", *res.history]
    assert len(rows) == len(res) + 1
    assert [float(r[0]) for r in rows[1:]] == pytest.approx(res.times)
    col = rows[0].index("strain_energy")
    assert [float(r[col]) for r in rows[1:]] == pytest.approx(res.history["strain_energy"])
    rows2 = list(csv.reader(write_history_csv([res, res], tmp_path / "h2.csv").open()))
    assert rows2[0][:2] == ["step", "time"] and len(rows2) == 2 * len(res) + 1


def test_run_json(tmp_path, cantilever):
    model, res = cantilever
    from femb.solvers import NewtonSettings
    path = write_run_json(tmp_path / "run.json", model, res, {"newton": NewtonSettings(), "limit": float("inf")})
    data = json.loads(path.read_text())
    import femb
    assert data["femb_version"] == femb.__version__
    assert data["model"]["parts"]["beam"]["count"] == 4
    assert data["settings"]["newton"]["tolerance"] == NewtonSettings().tolerance
    assert data["settings"]["limit"] == "inf"
    assert data["results"][0]["frames"] == len(res) and data["results"][0]["kind"] == "static"


def test_render_matplotlib(tmp_path, cantilever):
    _, res = cantilever
    results_to_vtk(res, tmp_path / "out")
    png = tmp_path / "f.png"
    assert render_png(tmp_path / "out", 1, png, backend="matplotlib") == "matplotlib"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_render_auto(tmp_path, cantilever):
    """pyvista off-screen in a child process, or the matplotlib fallback: a PNG either way."""
    _, res = cantilever
    results_to_vtk(res, tmp_path / "out")
    png = tmp_path / "auto.png"
    assert render_png(tmp_path / "out" / "results.pvd", -1, png, scalars="M2") in ("pyvista", "matplotlib")
    assert png.stat().st_size > 1000


def test_resolve_frame_errors(tmp_path, cantilever):
    _, res = cantilever
    results_to_vtk(res, tmp_path)
    with pytest.raises(InputError, match="out of range"):
        resolve_frame(tmp_path, 99)
    with pytest.raises(InputError, match="not found"):
        resolve_frame(tmp_path / "missing")
    assert resolve_frame(tmp_path, 0).name == "results_00000.vtu"


def test_velocities_are_written_when_present(tmp_path, cantilever):
    from femb.results import Results
    _, res = cantilever
    dyn = Results(res.table, "dynamic")
    for k, u in enumerate(res.states):
        dyn.record(0.1 * k, u, v=(k + 1.0) * np.ones_like(u), energy=float(k))
    writer = results_to_vtk(dyn, tmp_path)
    m = meshio.read(read_pvd(writer.path)[2][1])
    assert np.allclose(m.point_data["velocity"][:, :2], 3.0) and np.all(m.point_data["velocity"][:, 2] == 0)
    assert np.allclose(m.point_data["angular_velocity"], 3.0)
    assert "reaction_force" not in m.point_data
    # without a model the reference points come from the element blocks
    assert np.allclose(m.points[:, 0], np.linspace(0, 1, 5))


def test_results_to_vtk_method_mirrors_the_writer(tmp_path, cantilever):
    """``results.to_vtk``: a folder or a .pvd path writes the collection (optionally with
    section surfaces), a .vtu path one frame; the files hold the Results' displacements."""
    model, res = cantilever
    pvd = res.to_vtk(tmp_path / "a")
    assert pvd == tmp_path / "a" / "results.pvd" and len(read_pvd(pvd)) == len(res)
    pvd = res.to_vtk(tmp_path / "b" / "roll.pvd", frames=[0, 2], surfaces=True)
    assert [t for t, _ in read_pvd(pvd)] == pytest.approx([res.times[0], res.times[2]])
    assert len(read_pvd(tmp_path / "b" / "roll_surface.pvd")) == 2
    vtu = res.to_vtk(tmp_path / "c" / "last.vtu")
    m = meshio.read(vtu)
    assert np.allclose(m.point_data["displacement"][:, :2], res.nodal_displacements(-1))
    assert float(m.field_data["TimeValue"][0]) == pytest.approx(res.times[-1])
    with pytest.raises(ValueError, match="surfaces need a collection"):
        res.to_vtk(tmp_path / "d.vtu", surfaces=True)


def test_snapshots_matplotlib_backend_and_broken_requests(tmp_path):
    """Snapshot pictures (used by the validation report) without VTK: planar and spatial
    structures are drawn, a request with bad point indices gives None, nothing raises."""
    from femb.export.render import render_snapshots

    planar = {"title": "planar", "reference": [[0, 0, 0], [1, 0, 0]], "lines": [[0, 1]],
              "frames": [{"label": "t = 1", "points": [[0, 0, 0], [0.8, 0.6, 0]]}]}
    spatial = {"reference": [[0, 0, 0], [1, 0, 0]], "lines": [[0, 1]], "frames": [{"label": "a", "points": [[0, 0, 0], [0.8, 0.0, 0.6]]}]}
    broken = {"reference": [[0, 0, 0]], "lines": [[0, 3]], "frames": []}
    mismatch = {"reference": [[0, 0, 0], [1, 0, 0]], "lines": [[0, 1]], "frames": [{"points": [[0, 0, 0]]}]}
    jobs = [(planar, tmp_path / "p.png"), (spatial, tmp_path / "s.png"), (broken, tmp_path / "b.png"), (mismatch, tmp_path / "m.png")]
    assert render_snapshots(jobs, backend="matplotlib") == ["matplotlib", "matplotlib", None, None]
    assert (tmp_path / "p.png").stat().st_size > 1000 and (tmp_path / "s.png").stat().st_size > 1000
    assert not (tmp_path / "b.png").exists() and not (tmp_path / "m.png").exists()
