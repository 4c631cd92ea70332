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


def converted_meshes():
    from femb.mesh.io import read_mesh, write_mesh

    (HERE / "portal_frame.inp").write_text(PORTAL_FRAME_INP)
    frame = read_mesh(HERE / "portal_frame.inp")
    for suffix in (".bdf", ".med", ".vtu"):
        write_mesh(frame, HERE / f"portal_frame{suffix}")


if __name__ == "__main__":
    gmsh_meshes()
    converted_meshes()
    for path in sorted(HERE.iterdir()):
        print(f"{path.name:24s} {path.stat().st_size:8d} bytes")
