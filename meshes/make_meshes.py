"""Regenerate the small mesh files of this folder (see README.md).

The ``.msh`` files are written by gmsh itself through its Python API (``pip install gmsh``),
the Abaqus deck is plain text written below, and the Nastran, MED and VTU copies of the
portal frame are converted from it with ``femb.mesh.io.write_mesh`` (meshio; MED needs h5py).
Usage: python meshes/make_meshes.py
"""
from pathlib import Path

HERE = Path(__file__).resolve().parent

PORTAL_FRAME_INP = """\
** Portal frame: two columns (0,0)-(0,3) and (4,0)-(4,3), a beam (0,3)-(4,3), 2-D coordinates.
*HEADING
femb portal frame (hand-written Abaqus deck)
*NODE
1, 0.0, 0.0
2, 0.0, 1.0
3, 0.0, 2.0
4, 0.0, 3.0
5, 1.0, 3.0
6, 2.0, 3.0
7, 3.0, 3.0
8, 4.0, 3.0
9, 4.0, 2.0
10, 4.0, 1.0
11, 4.0, 0.0
*ELEMENT, TYPE=B21, ELSET=COLUMNS
1, 1, 2
2, 2, 3
3, 3, 4
4, 8, 9
5, 9, 10
6, 10, 11
*ELEMENT, TYPE=B21, ELSET=BEAM
7, 4, 5
8, 5, 6
9, 6, 7
10, 7, 8
*NSET, NSET=BASE
1, 11
*NSET, NSET=TOP, GENERATE
4, 8, 1
*NSET, NSET=LOAD_POINT
6
"""


def gmsh_meshes():
    import gmsh

    gmsh.initialize()
    gmsh.option.setNumber("General.Terminal", 0)
    try:
        # cantilever: unit line, 10 elements, gmsh 2.2 ASCII
        gmsh.model.add("cantilever")
        a = gmsh.model.geo.addPoint(0, 0, 0)
        b = gmsh.model.geo.addPoint(1, 0, 0)
        line = gmsh.model.geo.addLine(a, b)
        gmsh.model.geo.mesh.setTransfiniteCurve(line, 11)
        gmsh.model.geo.synchronize()
        gmsh.model.addPhysicalGroup(1, [line], name="beam")
        gmsh.model.addPhysicalGroup(0, [a], name="clamp")
        gmsh.model.addPhysicalGroup(0, [b], name="tip")
        gmsh.model.mesh.generate(1)
        gmsh.option.setNumber("Mesh.MshFileVersion", 2.2)
        gmsh.write(str(HERE / "cantilever.msh"))
        gmsh.model.remove()

        # von Mises two-bar arch: supports (±1, 0), apex (0, 0.1), one element per bar, gmsh 4.1
        gmsh.model.add("two_bar_arch")
        left = gmsh.model.geo.addPoint(-1, 0, 0)
        apex = gmsh.model.geo.addPoint(0, 0.1, 0)
        right = gmsh.model.geo.addPoint(1, 0, 0)
        bars = [gmsh.model.geo.addLine(left, apex), gmsh.model.geo.addLine(apex, right)]
        for c in bars:
            gmsh.model.geo.mesh.setTransfiniteCurve(c, 2)
        gmsh.model.geo.synchronize()
        gmsh.model.addPhysicalGroup(1, bars, name="bars")
        gmsh.model.addPhysicalGroup(0, [left, right], name="supports")
        gmsh.model.addPhysicalGroup(0, [apex], name="apex")
        gmsh.model.mesh.generate(1)
        gmsh.option.setNumber("Mesh.MshFileVersion", 4.1)
        gmsh.write(str(HERE / "two_bar_arch.msh"))
        gmsh.model.remove()

        # plate: a 2x1 rectangle, left half triangles, right half quads, gmsh 4.1 binary
        gmsh.model.add("plate")
        p = [gmsh.model.geo.addPoint(x, y, 0, 0.5) for x, y in [(0, 0), (1, 0), (2, 0), (2, 1), (1, 1), (0, 1)]]
        c = [gmsh.model.geo.addLine(p[i], p[(i + 1) % 6]) for i in range(6)]
        mid = gmsh.model.geo.addLine(p[1], p[4])
        s1 = gmsh.model.geo.addPlaneSurface([gmsh.model.geo.addCurveLoop([c[0], mid, c[4], c[5]])])
        s2 = gmsh.model.geo.addPlaneSurface([gmsh.model.geo.addCurveLoop([c[1], c[2], c[3], -mid])])
        gmsh.model.geo.mesh.setRecombine(2, s2)
        gmsh.model.geo.synchronize()
        gmsh.model.addPhysicalGroup(2, [s1], name="tri_zone")
        gmsh.model.addPhysicalGroup(2, [s2], name="quad_zone")
        gmsh.model.addPhysicalGroup(1, [c[5]], name="left_edge")
        gmsh.model.mesh.generate(2)
        gmsh.option.setNumber("Mesh.MshFileVersion", 4.1)
        gmsh.option.setNumber("Mesh.Binary", 1)
        gmsh.write(str(HERE / "plate.msh"))
        gmsh.option.setNumber("Mesh.Binary", 0)
        gmsh.model.remove()

        # quadratic beam: 4 three-node line elements (line3), gmsh 2.2 ASCII
        gmsh.model.add("beam_quadratic")
        a = gmsh.model.geo.addPoint(0, 0, 0)
        b = gmsh.model.geo.addPoint(2, 0, 0)
        line = gmsh.model.geo.addLine(a, b)
        gmsh.model.geo.mesh.setTransfiniteCurve(line, 5)
        gmsh.model.geo.synchronize()
        gmsh.model.addPhysicalGroup(1, [line], name="beam")
        gmsh.model.mesh.generate(1)
        gmsh.model.mesh.setOrder(2)
        gmsh.option.setNumber("Mesh.MshFileVersion", 2.2)
        gmsh.write(str(HERE / "beam_quadratic.msh"))
        gmsh.model.remove()
    finally:
        gmsh.finalize()


def shell_panel():
    """A 2 x 1 plate in the tilted plane z = x/2 (a 3-D mesh): 5 x 3 nodes, the half
    x < 1 in 8 triangles, the half x > 1 in 4 quads (counter-clockwise seen from +Z); edge
    x = 0 "clamped", edge x = 2 "loaded", corner node (2, 1) "corner". Returns (points
    (15, 3), triangles (8, 3), quads (4, 4), clamped edge (2, 2), loaded edge (2, 2), corner
    node), 0-based."""
    nid = lambda i, j: i + 5 * j  # noqa: E731
    points = [(0.5 * i, 0.5 * j, 0.25 * i) for j in range(3) for i in range(5)]
    tri, quad = [], []
    for j in range(2):
        for i in range(4):
            a, b, c, d = nid(i, j), nid(i + 1, j), nid(i + 1, j + 1), nid(i, j + 1)
            if i < 2:
                tri += [(a, b, c), (a, c, d)]
            else:
                quad.append((a, b, c, d))
    clamped = [(nid(0, 0), nid(0, 1)), (nid(0, 1), nid(0, 2))]
    loaded = [(nid(4, 0), nid(4, 1)), (nid(4, 1), nid(4, 2))]
    return points, tri, quad, clamped, loaded, nid(4, 2)


def _num(v):
    return f"{v:g}"


def shell_panel_files():
    """shell_panel.msh (gmsh 2.2 ASCII: physical surfaces skin_tri, skin_quad, physical
    lines clamped, loaded, physical point corner), shell_panel.inp (Abaqus S3/S4 with
    ELSETs and NSETs) and shell_panel.bdf (Nastran CTRIA3/CQUAD4, PSHELL ids 1 and 2),
    written as text so that no mesher is needed."""
    points, tri, quad, clamped, loaded, corner = shell_panel()
    nodes = [f"{k + 1} {_num(x)} {_num(y)} {_num(z)}" for k, (x, y, z) in enumerate(points)]
    elements = [(15, 5, [corner])] + [(1, 3, e) for e in clamped] + [(1, 4, e) for e in loaded]
    elements += [(2, 1, e) for e in tri] + [(3, 2, e) for e in quad]
    lines = ["$MeshFormat", "2.2 0 8", "$EndMeshFormat", "$PhysicalNames", "5", '0 5 "corner"', '1 3 "clamped"',
             '1 4 "loaded"', '2 1 "skin_tri"', '2 2 "skin_quad"', "$EndPhysicalNames", "$Nodes", str(len(nodes)), *nodes,
             "$EndNodes", "$Elements", str(len(elements))]
    lines += [f"{k + 1} {kind} 2 {tag} {tag} " + " ".join(str(n + 1) for n in e) for k, (kind, tag, e) in enumerate(elements)]
    lines.append("$EndElements")
    (HERE / "shell_panel.msh").write_text("\n".join(lines) + "\n")

    inp = ["** femb shell panel: S3 and S4 shells in the plane z = x/2", "*HEADING", "femb shell panel", "*NODE",
           *[f"{k + 1}, {_num(x)}, {_num(y)}, {_num(z)}" for k, (x, y, z) in enumerate(points)],
           "*ELEMENT, TYPE=S3, ELSET=SKIN_TRI", *[f"{k + 1}, " + ", ".join(str(n + 1) for n in e) for k, e in enumerate(tri)],
           "*ELEMENT, TYPE=S4, ELSET=SKIN_QUAD",
           *[f"{len(tri) + k + 1}, " + ", ".join(str(n + 1) for n in e) for k, e in enumerate(quad)],
           "*NSET, NSET=CLAMPED", ", ".join(str(n + 1) for n in sorted({n for e in clamped for n in e})),
           "*NSET, NSET=LOADED", ", ".join(str(n + 1) for n in sorted({n for e in loaded for n in e})),
           "*NSET, NSET=CORNER", str(corner + 1)]
    (HERE / "shell_panel.inp").write_text("\n".join(inp) + "\n")

    field = lambda *values: "".join(f"{str(v):<8s}" for v in values)  # noqa: E731  (Nastran small fields)
    bdf = ["$ femb shell panel: CTRIA3 (PSHELL 1) and CQUAD4 (PSHELL 2) in the plane z = x/2", "BEGIN BULK"]
    bdf += [field("GRID", k + 1, "", _num(x), _num(y), _num(z)) for k, (x, y, z) in enumerate(points)]
    bdf += [field("CTRIA3", k + 1, 1, *(n + 1 for n in e)) for k, e in enumerate(tri)]
    bdf += [field("CQUAD4", len(tri) + k + 1, 2, *(n + 1 for n in e)) for k, e in enumerate(quad)]
    bdf.append("ENDDATA")
    (HERE / "shell_panel.bdf").write_text("\n".join(bdf) + "\n")


def converted_meshes():
    from femb.mesh.io import read_mesh, write_mesh

    (HERE / "portal_frame.inp").write_text(PORTAL_FRAME_INP)
    frame = read_mesh(HERE / "portal_frame.inp")
    for suffix in (".bdf", ".med", ".vtu"):
        write_mesh(frame, HERE / f"portal_frame{suffix}")


if __name__ == "__main__":
    gmsh_meshes()
    converted_meshes()
    shell_panel_files()
    for path in sorted(HERE.iterdir()):
        print(f"{path.name:24s} {path.stat().st_size:8d} bytes")
