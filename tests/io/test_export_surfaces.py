"""Bars and beams as extruded cross-section surfaces: geometry of straight and rigidly
rotated members (2-D beams, 3-D beams, bars), fields mapped from the line output, the
PVD collection next to the line collection, and the case-file option."""
import meshio
import numpy as np
import pytest

from femb.core.errors import InputError
from femb.correlation import build_table
from femb.export import SectionOutline, read_pvd, results_to_vtk, surfaces_for
from femb.export.surfaces import outline_from_spec
from femb.mesh import line_mesh
from femb.model import Material, Model, Section
from femb.results import Results
from femb.solvers import solve_static

B, H = 0.1, 0.2  # rectangle width (local z) and height (local y)


def rot(axis, angle):
    """Rotation matrix about a unit axis."""
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def member(element, n=3, start=(0.0, 0.0), end=(2.0, 0.0)):
    dim = len(start)
    model = Model(line_mesh(start, end, n, "m"), name=element)
    section = Section(A=B * H, Iz=B * H**3 / 12, Iy=H * B**3 / 12, J=1e-3) if dim == 3 else Section(A=B * H, I=B * H**3 / 12)
    model.add_part("m", element, "m", Material(E=1e3, G=4e2, rho=1.0), section)
    return model


def rigid_results(model, R, frames=(0.0,)):
    """Results holding one frame of a rigid rotation R (3x3) of the model about the origin."""
    table = build_table(model)
    res = Results(table, "static", model)
    X = np.zeros((len(model.mesh.points), 3))
    X[:, : model.mesh.points.shape[1]] = model.mesh.points
    disp = X @ R.T - X
    u = np.zeros(table.n_var)
    for k, name in enumerate(("ux", "uy", "uz")[: table.dim]):
        col = table.node_var[:, table.dof_names.index(name)]
        u[col[col >= 0]] = disp[col >= 0, k]
    arrays = None
    if table.dim == 2 and "rz" in table.dof_names:
        col = table.node_var[:, table.dof_names.index("rz")]
        u[col[col >= 0]] = np.arctan2(R[1, 0], R[0, 0])
    if table.dim == 3 and "rx" in table.dof_names:
        arrays = {"rotations": np.repeat(R[None], len(X), axis=0)}
    res.record(0.0, u, arrays=arrays)
    return res


def written_surface(res, tmp_path, surfaces=True):
    results_to_vtk(res, tmp_path, surfaces=surfaces)
    entries = read_pvd(tmp_path / "results_surface.pvd")
    assert [t for t, _ in entries] == list(res.times)
    return meshio.read(entries[-1][1])


@pytest.mark.parametrize("element, start, end", [("beam2d", (0.0, 0.0), (2.0, 0.0)), ("truss2d", (0.0, 0.0), (2.0, 0.0)),
                                                 ("beam3d", (0.0, 0.0, 0.0), (2.0, 0.0, 0.0)),
                                                 ("truss3d", (0.0, 0.0, 0.0), (2.0, 0.0, 0.0))])
def test_undeformed_straight_member_has_the_section_bounding_box(tmp_path, element, start, end):
    """The equivalent rectangle of A = BH, Iz = BH³/12 (, Iy = HB³/12) is B × H: along x the
    member, along y (the bending plane / section y axis) ±H/2, along z ±B/2; 3 elements x
    2 rings x 4 corners; faces = 3 x 4 quads."""
    model = member(element, 3, start, end)
    res = rigid_results(model, np.eye(3))
    m = written_surface(res, tmp_path)
    assert len(m.points) == 3 * 2 * 4 and m.cells[0].type == "quad" and len(m.cells[0].data) == 12
    lo, hi = m.points.min(axis=0), m.points.max(axis=0)
    assert np.allclose(lo, [0.0, -H / 2, -B / 2]) and np.allclose(hi, [2.0, H / 2, B / 2])
    assert np.allclose(m.point_data["displacement"], 0.0)
    assert np.allclose(m.point_data["deformed"], m.points)


@pytest.mark.parametrize("element, dim", [("beam2d", 2), ("truss2d", 2), ("beam3d", 3), ("truss3d", 3)])
def test_rigidly_rotated_member_carries_its_surface_along(tmp_path, element, dim):
    """A rigid rotation R of the whole member (nodal rotations = R for beams) moves every
    surface point to R·X_surface: displacement = (R − I)·X_surface. (A bar has no spin
    about its axis: its sections follow the chord by the smallest rotation, so for 3-D bars
    R turns about an axis normal to the chord.)"""
    start, end = ((0.0, 0.0), (2.0, 1.0)) if dim == 2 else ((0.0, 0.0, 0.0), (2.0, 1.0, -0.5))
    model = member(element, 4, start, end)
    axis = np.cross(np.subtract(end, start), (0.3, -1.0, 0.4)) if element == "truss3d" else (0.3, -1.0, 0.4)
    R = rot((0, 0, 1), 0.7) if dim == 2 else rot(axis, 1.1)
    ref = written_surface(rigid_results(model, np.eye(3)), tmp_path / "ref")
    m = written_surface(rigid_results(model, R), tmp_path / "rot")
    assert np.allclose(m.points, ref.points)
    assert np.allclose(m.point_data["deformed"], ref.points @ R.T, atol=1e-12)
    assert np.allclose(m.point_data["displacement"], ref.points @ R.T - ref.points, atol=1e-12)


def test_beam2d_sections_turn_with_the_nodal_rotation_not_the_chord(tmp_path):
    """An end moment bends a cantilever into an arc (roll-up to a half circle, M = πEI/L):
    the tip section of the last element turns by the tip rotation θ = ML/EI = π, so its
    ring lies across the deformed axis there; point fields come from the owning node and
    cell fields from the owning element."""
    L, EI = 1.0, B * H**3 / 12
    model = Model(line_mesh((0.0, 0.0), (L, 0.0), 8, "b"))
    model.add_part("b", "beam2d", "b", Material(E=1.0), Section(A=B * H * 1e4, I=EI))
    model.fix("b_start")
    model.point_load("b_end", mz=np.pi * EI / L)
    res = solve_static(model, steps=4)
    m = written_surface(res, tmp_path, surfaces={"b": {"shape": "rectangle", "width": B, "height": H}})
    tip = model.node("b_end")
    theta = res.dof(tip, "rz", -1)
    assert theta == pytest.approx(np.pi, rel=1e-6)
    ring = m.point_data["deformed"][-4:]  # last element, tip ring
    centre = np.r_[model.mesh.points[tip] + res.nodal_displacements(-1)[tip], 0.0]
    normal = np.array([-np.sin(theta), np.cos(theta), 0.0])  # rotated section y axis
    offsets = ring - centre
    assert np.allclose(np.abs(offsets @ normal), H / 2) and np.allclose(np.abs(offsets[:, 2]), B / 2)
    assert np.allclose(offsets @ np.array([np.cos(theta), np.sin(theta), 0.0]), 0.0, atol=1e-12)
    line = meshio.read(read_pvd(tmp_path / "results.pvd")[-1][1])
    assert np.allclose(m.point_data["rotation"][-4:], line.point_data["rotation"][tip])
    assert np.allclose(m.cell_data["M2"][0], np.repeat(line.cell_data["M2"][0], 4))
    assert np.array_equal(m.cell_data["element"][0], np.repeat(np.arange(8), 4))


def test_circle_outline_and_bad_outlines():
    c = SectionOutline.circle(0.5, segments=12)
    assert c.points.shape == (12, 2) and np.allclose(np.linalg.norm(c.points, axis=1), 0.25)
    assert np.allclose(outline_from_spec({"shape": "rectangle", "width": 2.0, "height": 1.0}).points.max(axis=0), [0.5, 1.0])
    for bad, text in [({"shape": "hexagon"}, "shape must be one of"), ({"shape": "circle"}, "needs a diameter"),
                      ({"shape": "rectangle", "width": 1.0}, "needs height"), ({"shape": "circle", "diameter": -1.0}, "diameter > 0"),
                      ({"shape": "circle", "diameter": 1.0, "radius": 2.0}, "unknown keys")]:
        with pytest.raises(InputError, match=text):
            outline_from_spec(bad)
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 2, "m"))
    model.add_part("m", "beam2d", "m", values={"EA": 1.0, "EI": 1.0, "rhoA": 1.0, "rhoI": 0.0})
    res = rigid_results(model, np.eye(3))
    assert surfaces_for(res, True) is None  # direct values: no section, nothing drawn
    with pytest.raises(InputError, match="needs a part with a section"):
        surfaces_for(res, {"m": "auto"})
    with pytest.raises(InputError, match="unknown part 'x'"):
        surfaces_for(res, {"x": {"shape": "circle", "diameter": 1.0}})
    assert surfaces_for(res, {"m": {"shape": "circle", "diameter": 0.1, "segments": 8}}).ref_points.shape == (2 * 2 * 8, 3)


def test_case_file_surfaces_option(write_case, tmp_path):
    """``[output] surfaces``: a circle of the given diameter around the roll-up cantilever of
    the base case; the surface collection lists the same frames as the line collection."""
    from femb.case import load_case

    path = write_case(replace=[("[[steps]]", '[output.surfaces.beam]\nshape = "circle"\ndiameter = 0.05\nsegments = 8\n[[steps]]')])
    case = load_case(path)
    case.run(tmp_path / "out", progress=False)
    lines, surfaces = read_pvd(tmp_path / "out" / "results.pvd"), read_pvd(tmp_path / "out" / "results_surface.pvd")
    assert [t for t, _ in lines] == [t for t, _ in surfaces] and len(lines) == 3
    m = meshio.read(surfaces[0][1])
    assert len(m.points) == 4 * 2 * 8
    assert np.allclose(np.hypot(m.points[:, 1], m.points[:, 2]), 0.025)


def test_beam3d_sections_follow_the_nodal_triads_of_a_rollup(tmp_path):
    """3-D cantilever along X under an end moment M = πEIy/L about Y: it bends into a half
    circle in the XZ plane and the tip triad is the rotation by π about Y (closed form), so
    the tip ring lies in the plane normal to −e_X through the tip, with the section y axis
    (e_Y, unchanged) along its width H and z along B."""
    L = 1.0
    Iy, Iz = H * B**3 / 12, B * H**3 / 12
    model = Model(line_mesh((0.0, 0.0, 0.0), (L, 0.0, 0.0), 8, "b"))
    model.add_part("b", "beam3d", "b", Material(E=1.0, G=1.0), Section(A=B * H * 1e4, Iy=Iy, Iz=Iz, J=1e-3))
    model.fix("b_start")
    model.point_load("b_end", my=-np.pi * Iy / L)
    res = solve_static(model, steps=4)
    m = written_surface(res, tmp_path, surfaces={"b": {"shape": "rectangle", "width": B, "height": H}})
    tip = model.node("b_end")
    R_tip = res.nodal_rotation_matrices(-1)[tip]
    assert np.allclose(np.abs(R_tip[:, 0]), [1.0, 0.0, 0.0], atol=1e-6)  # tangent reversed: a half circle
    centre = model.mesh.points[tip] + res.nodal_displacements(-1)[tip]
    offsets = m.point_data["deformed"][-4:] - centre
    assert np.allclose(offsets[:, 0], 0.0, atol=1e-6)
    assert np.allclose(np.abs(offsets[:, 1]), H / 2, atol=1e-6) and np.allclose(np.abs(offsets[:, 2]), B / 2, atol=1e-6)
