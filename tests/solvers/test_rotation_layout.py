"""RotationLayout's prescribed rotations (femb.solvers.configuration) against a plain
per-slot reference: nodes with several prescribed components, records that name the same
rotational variable twice (tied nodes share it), translational records that touch no
rotational slot, and the error for a node whose other rotations are free."""
import numpy as np
import pytest

from femb.core.errors import ModelError
from femb.correlation import build_table
from femb.mesh import CellBlock, Mesh
from femb.model import Material, Model, Section
from femb.solvers.configuration import RotationLayout

STEEL = Material(E=210e9, nu=0.3, rho=7850.0)
SEC = Section(A=1e-3, I=1e-7, Iy=1e-7, Iz=2e-7, J=1e-7)


def reference(layout, table):
    """(prescribed [(row, θ_p)], records [(row, [(k, record)])]) by the plain loop over
    every rotational slot."""
    row_of_var = {}
    for row, vs in enumerate(layout.var):
        for k, v in enumerate(vs):
            row_of_var.setdefault(int(v), []).append((row, k))
    theta, records = {}, {}
    for vars_, rec in table.prescribed:
        for v in vars_:
            for row, k in row_of_var.get(int(v), ()):
                theta.setdefault(row, np.zeros(3))[k] = rec.value
                records.setdefault(row, []).append((k, rec))
    return sorted(theta.items()), sorted(records.items())


def two_chains(free_ry=False):
    """Two 3-D beam chains whose first nodes sit at one point with their rotations tied
    (node 0 and node 4 share rx, ry, rz), both roots clamped in translation; rotations
    prescribed at the shared root (rz twice through both nodes, rx once) and at a tip,
    and a translation prescribed at a middle node."""
    pts = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0], [0, 0, 0], [0, 1, 0], [0, 2, 0]], dtype=float)
    mesh = Mesh(pts, {"a": CellBlock("line", np.array([[0, 1], [1, 2], [2, 3]])), "b": CellBlock("line", np.array([[4, 5], [5, 6]]))},
                {"ra": [0], "rb": [4], "tip": [3], "mid": [5]})
    model = Model(mesh, dim=3)
    model.add_part("a", "beam3d", "a", STEEL, SEC)
    model.add_part("b", "beam3d", "b", STEEL, SEC)
    model.tie("ra", "rb", ("rx", "ry", "rz"))
    model.fix("ra", ("ux", "uy", "uz") if free_ry else ("ux", "uy", "uz", "ry"))
    model.fix("rb", ("ux", "uy", "uz"))
    model.prescribe("ra", "rz", 0.5)
    model.prescribe("rb", "rx", -0.25) if not free_ry else None
    model.fix("tip", ("rx", "ry"))
    model.prescribe("tip", "rz", 2.0)
    model.prescribe("mid", "uy", 0.01)
    return model


def test_prescribed_rotations_equal_the_per_slot_reference():
    table = build_table(two_chains())
    layout = RotationLayout(table)
    theta, records = reference(layout, table)
    assert [row for row, _ in layout.prescribed] == [row for row, _ in theta] and len(theta) == 3
    for (_, a), (_, b) in zip(layout.prescribed, theta):
        assert np.array_equal(a, b)
    assert layout.prescribed_records() == records
    assert layout._record_rows.tolist() == [row for row, _ in records]


def test_a_prescribed_rotation_with_free_components_is_rejected():
    with pytest.raises(ModelError, match="global axis.*rx"):
        RotationLayout(build_table(two_chains(free_ry=True)))
