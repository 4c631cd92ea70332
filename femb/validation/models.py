"""Model builders shared by the validation cases (plain femb API, no solver calls)."""
import numpy as np

from femb.mesh import CellBlock, Mesh, line_mesh
from femb.model import Material, Model, Section


def cantilever(n, length=1.0, EI=1.0, EA=1.0e7, element="beam2d", name="beam"):
    """A straight cantilever along x clamped at ``name_start``; the tip is ``name_end``.

    E = 1 so the section carries the stiffnesses (A = EA, I = EI); a large EA approximates
    the inextensible elastica of the closed-form solutions.
    """
    mesh = line_mesh((0.0, 0.0), (length, 0.0), n, name)
    model = Model(mesh, name=f"cantilever-{n}")
    model.add_part(name, name, element, Material(E=1.0, G=1.0e3 * EA), Section(A=EA, I=EI, shear_factor=5.0 / 6.0))
    model.fix(f"{name}_start")
    return model


def pinned_column(n, length=1.0, EI=1.0, EA=1.0e4, element="beam2d", name="col"):
    """A pinned–pinned column along x under a unit compressive end load (for buckling)."""
    mesh = line_mesh((0.0, 0.0), (length, 0.0), n, name)
    model = Model(mesh, name=f"column-{n}")
    model.add_part(name, name, element, Material(E=1.0), Section(A=EA, I=EI))
    model.fix(f"{name}_start", ("ux", "uy"))
    model.fix(f"{name}_end", ("uy",))
    model.point_load(f"{name}_end", fx=-1.0)
    return model


def two_bar_arch(a=1.0, h=0.1, EA=1.0e4, element="truss2d"):
    """Symmetric two-bar truss arch: supports (±a, 0), apex (0, h) loaded by a unit
    downward reference force, apex guided vertically (ux fixed)."""
    points = np.array([[-a, 0.0], [0.0, h], [a, 0.0]])
    mesh = Mesh(
        points,
        {"bars": CellBlock("line", np.array([[0, 1], [1, 2]]))},
        {"supports": np.array([0, 2]), "apex": np.array([1])},
        source="two_bar_arch",
    )
    model = Model(mesh, name="two-bar arch")
    model.add_part("bars", "bars", element, Material(E=EA), Section(A=1.0))
    model.fix("supports")
    model.fix("apex", ("ux",))
    model.point_load("apex", fy=-1.0)
    return model
