"""ParaView output of shell3/shell4 models read back from the written .vtu: membrane
forces and von Mises stress of a membrane patch under uniform tension, moments, face
stresses and rotations of a strip in pure bending, and the thickness-extruded slab."""
import meshio
import numpy as np
import pytest

from femb.core.errors import InputError
from femb.export import read_pvd, surfaces_for
from femb.export.fields import von_mises_plane
from femb.mesh import rectangle_mesh
from femb.model import Material, Model, Section
from femb.solvers import NewtonSettings, solve_static

E, T = 2.0e9, 0.01
SETTINGS = NewtonSettings(tolerance=1e-9, increment_tolerance=1e-12)
CELLS = {"shell3": "triangle", "shell4": "quad"}


def strip(element, nu, a=2.0, b=1.0, nx=4, ny=2):
    mesh = rectangle_mesh(a, b, nx, ny, cells=CELLS[element])
    model = Model(mesh)
    model.add_part("plate", element, "plate", Material(E=E, nu=nu), Section(thickness=T))
    return mesh, model


def edge_shares(mesh, total):
    """Nodal shares of a total uniformly spread over the edge x = a (half at its ends)."""
    nodes = mesh.node_sets["plate_x1"]
    w = np.full(nodes.size, total / (nodes.size - 1))
    w[[0, -1]] *= 0.5
    return nodes, w


def written(res, tmp_path, surfaces=None):
    """The last frame's .vtu (and its surface .vtu) read back with meshio."""
    pvd = res.to_vtk(tmp_path / "out", surfaces=surfaces)
    line = meshio.read(read_pvd(pvd)[-1][1])
    slab = meshio.read(read_pvd(pvd.with_name("results_surface.pvd"))[-1][1]) if surfaces else None
    return line, slab


def cell(mesh, name):
    return np.concatenate(mesh.cell_data[name])


@pytest.mark.parametrize("element", ["shell3", "shell4"])
def test_membrane_patch_uniform_tension(element, tmp_path):
    """σ = 2 MPa along x on a 2 × 1 plate: N = σ t (principal), σ_top = σ_bottom = σ,
    von Mises = σ in every cell (a constant-stress patch: exact up to the O(ε) finite-strain
    terms of the co-rotational solution, here ε = σ/E = 1e-6, measured 4e-7 relative)."""
    sigma, b = 2.0e3, 1.0
    mesh, model = strip(element, nu=0.3)
    model.fix("plate_x0", ("ux",))
    model.fix("plate_c00", ("uy",))
    model.fix("plate_nodes", ("uz", "rx", "ry", "rz"))
    for i, w in zip(*edge_shares(mesh, sigma * T * b)):
        model.point_load(int(i), fx=float(w))
    res = solve_static(model, steps=1, settings=SETTINGS)
    out, _ = written(res, tmp_path)
    N = cell(out, "membrane_force")
    assert N.shape == ({"shell3": 16, "shell4": 8}[element], 3)
    # frame-independent: trace and largest principal value
    trace = N[:, 0] + N[:, 1]
    principal = 0.5 * trace + np.hypot(0.5 * (N[:, 0] - N[:, 1]), N[:, 2])
    np.testing.assert_allclose(trace, sigma * T, rtol=1e-6)
    np.testing.assert_allclose(principal, sigma * T, rtol=1e-6)
    np.testing.assert_allclose(cell(out, "bending_moment"), 0.0, atol=1e-8 * sigma * T**2)
    for face in ("von_mises_top", "von_mises_bottom", "von_mises"):
        np.testing.assert_allclose(cell(out, face), sigma, rtol=1e-6)
    np.testing.assert_allclose(cell(out, "stress_top"), N / T, rtol=1e-12, atol=1e-12 * sigma)
    Q = cell(out, "transverse_shear")
    if element == "shell4":
        np.testing.assert_allclose(Q, 0.0, atol=1e-8 * sigma * T)
    else:
        assert np.all(np.isnan(Q))  # thin triangle: no transverse shear
    # displacement point field: ε = σ/E along x at the loaded edge
    u = out.point_data["displacement"]
    np.testing.assert_allclose(u[mesh.node_sets["plate_x1"], 0], sigma / E * 2.0, rtol=1e-6)


@pytest.mark.parametrize("element", ["shell3", "shell4"])
def test_plate_pure_bending(element, tmp_path):
    """Cantilever strip (ν = 0) under an end moment m per width about +y: M = D κ with
    κ = m/D uniform, |Mxx| = m in every cell, the top face (+z, the normal side)
    stretched by 6m/t² and the bottom compressed; the rotation point field is θ = m x/D."""
    nu, a, b = 0.0, 2.0, 1.0
    D = E * T**3 / 12.0
    m = 1e-4 * D / a  # tip rotation 1e-4 rad: the linear range
    mesh, model = strip(element, nu=nu, a=a, b=b)
    model.fix("plate_x0", ("ux", "uy", "uz", "rx", "ry", "rz"))
    for i, w in zip(*edge_shares(mesh, m * b)):
        model.point_load(int(i), my=float(w))
    res = solve_static(model, steps=1, settings=SETTINGS)
    out, _ = written(res, tmp_path)
    # resultants are in each cell's own frame (shell3: side 1→2, shell4: diagonals; here
    # along x, y or at 45°): compare frame-independent values, a uniaxial moment m
    M = cell(out, "bending_moment")
    half_diff = np.hypot(0.5 * (M[:, 0] - M[:, 1]), M[:, 2])
    np.testing.assert_allclose(M[:, 0] + M[:, 1], -m, rtol=1e-6)  # hogging: M = −m (sagging positive)
    np.testing.assert_allclose(half_diff, 0.5 * m, rtol=1e-6)  # principal values −m and 0
    sigma = 6.0 * m / T**2
    for face, sign in (("stress_top", 1.0), ("stress_bottom", -1.0)):  # top face (+z) in tension
        S = cell(out, face)
        np.testing.assert_allclose(S[:, 0] + S[:, 1], sign * sigma, rtol=1e-6)
        np.testing.assert_allclose(np.hypot(0.5 * (S[:, 0] - S[:, 1]), S[:, 2]), 0.5 * sigma, rtol=1e-6)
    np.testing.assert_allclose(cell(out, "von_mises"), sigma, rtol=1e-6)
    np.testing.assert_allclose(cell(out, "von_mises_top"), cell(out, "von_mises_bottom"), rtol=1e-9)
    # M = D κ: rotation about +y grows linearly, θ(x) = m x / D (exact for a constant moment)
    rot = out.point_data["rotation"]
    x = out.points[:, 0]
    np.testing.assert_allclose(rot[:, 1], m * x / D, rtol=1e-6, atol=1e-9 * m * a / D)


@pytest.mark.parametrize("element", ["shell3", "shell4"])
def test_thickness_slab(element, tmp_path):
    """surfaces=True draws shells as wedges/hexahedra of thickness t around the
    mid-surface; after a rotation θ about y the top-minus-bottom offset of a node is
    (R − I) t n = t (sin θ, 0, cos θ − 1) on top of the mid-surface displacement."""
    mesh, model = strip(element, nu=0.0)
    D = E * T**3 / 12.0
    m = 0.05 * D / 2.0  # tip rotation 0.05 rad (nonlinear range: a visible turn)
    model.fix("plate_x0", ("ux", "uy", "uz", "rx", "ry", "rz"))
    for i, w in zip(*edge_shares(mesh, m)):
        model.point_load(int(i), my=float(w))
    res = solve_static(model, steps=2)
    line, slab = written(res, tmp_path, surfaces=True)
    n_nodes = len(mesh.points)
    kind = "wedge" if element == "shell3" else "hexahedron"
    assert [c.type for c in slab.cells] == [kind]
    assert len(slab.cells[0].data) == len(line.cells[0].data)
    assert len(slab.points) == 2 * n_nodes
    bottom, top = slab.points[:n_nodes], slab.points[n_nodes:]
    np.testing.assert_allclose(top - bottom, [[0.0, 0.0, T]] * n_nodes, atol=1e-14)
    np.testing.assert_allclose(0.5 * (top + bottom), line.points, atol=1e-14)
    du = slab.point_data["displacement"][n_nodes:] - slab.point_data["displacement"][:n_nodes]
    tip = mesh.node_sets["plate_x1"]
    theta = line.point_data["rotation"][tip, 1]
    assert np.all(theta > 0.04)
    np.testing.assert_allclose(du[tip], T * np.column_stack([np.sin(theta), 0 * theta, np.cos(theta) - 1]), atol=1e-6 * T)
    np.testing.assert_allclose(cell(slab, "von_mises"), cell(line, "von_mises"), rtol=0)
    # mid-surface displacement carried to both faces
    np.testing.assert_allclose(0.5 * (slab.point_data["displacement"][:n_nodes] + slab.point_data["displacement"][n_nodes:]),
                               line.point_data["displacement"], atol=1e-9)


def test_slab_selection(tmp_path):
    mesh, model = strip("shell4", nu=0.3)
    model.fix("plate_nodes", ("ux", "uy", "uz", "rx", "ry", "rz"))
    res = solve_static(model, steps=1)
    assert surfaces_for(res, {"plate": True}).parts == ["plate"]
    with pytest.raises(InputError, match="thickness"):
        surfaces_for(res, {"plate": {"shape": "circle", "diameter": 1.0}})


def test_von_mises_plane_stress():
    s = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, -1.0, 0.0]])
    np.testing.assert_allclose(von_mises_plane(s), [1.0, 1.0, np.sqrt(3.0), np.sqrt(3.0)])


def test_buckling_mode_frames_carry_the_load_factor(tmp_path):
    """Buckling modes written for ParaView carry ``load_factor`` (not a frequency) and
    femb render's default title names it."""
    from femb.export.modes import write_mode_animation
    from femb.export.render import describe_frame
    from femb.solvers import solve_buckling

    mesh, model = strip("shell3", nu=0.3, a=1.0, b=1.0, nx=4, ny=4)
    model.fix("plate_boundary", ("uz",))
    model.fix("plate_x0", ("ux",))
    model.fix("plate_c00", ("uy",))
    for i, w in zip(*edge_shares(mesh, -1.0)):
        model.point_load(int(i), fx=float(w))
    res = solve_buckling(model, n_modes=1)
    (pvd,) = write_mode_animation(res, tmp_path, model=model, modes=[0], n_frames=4)
    vtu = read_pvd(pvd)[1][1]
    field = meshio.read(vtu).field_data
    assert "frequency_hz" not in field
    assert float(np.ravel(field["load_factor"])[0]) == pytest.approx(float(res.load_factors[0]), rel=1e-12)
    assert "buckling mode 0, critical load factor" in describe_frame(vtu, 1, 4, "displacement", 1.0)


def test_slab_beside_beam_surfaces(tmp_path):
    """A shell skin with a beam3d stiffener on its nodes: surfaces=True draws the skin as
    wedges and the stiffener as its extruded rectangle (quads), one file."""
    mesh = rectangle_mesh(1.0, 1.0, 2, 2)
    mid = np.flatnonzero(np.isclose(mesh.points[:, 1], 0.5))
    mid = mid[np.argsort(mesh.points[mid, 0])]
    mesh.add_cells("rib", "line", np.column_stack([mid[:-1], mid[1:]]))
    model = Model(mesh)
    model.add_part("skin", "shell3", "plate", Material(E=E, nu=0.3), Section(thickness=T))
    model.add_part("rib", "beam3d", "rib", Material(E=E, nu=0.3),
                   Section(A=2e-4, Iy=2.7e-8, Iz=4e-10, J=1e-9, orientation=(0.0, 1.0, 0.0)))
    model.fix("plate_x0")
    model.point_load("plate_c11", fz=-1.0)
    res = solve_static(model, steps=1)
    line, slab = written(res, tmp_path, surfaces=True)
    types = [c.type for c in slab.cells]
    assert types == ["wedge", "quad"]
    assert len(slab.cells[0].data) == 8 and len(slab.cells[1].data) == 2 * 4  # 2 beam elements × 4 faces
    assert len(slab.points) == 2 * 9 + 2 * 2 * 4
    vm = np.concatenate(slab.cell_data["von_mises"])
    assert np.all(np.isfinite(vm[:8])) and np.all(np.isnan(vm[8:]))  # shell field: NaN on the beam faces
