"""Element-internal variables in the correlation table (femb.correlation.table): numbered
after every nodal variable, one consecutive block per element, marked by var_node = var_dof
= -1 and owned through var_block/var_element; element blocks list nodal then internal
variables; a model mixing ordinary elements and superelements assembles them like any
variable, and results expose them per part."""
import dataclasses

import numpy as np
import pytest

from femb import elements
from femb.core.errors import ModelError
from femb.correlation import build_table
from femb.mesh import line_mesh
from femb.mesh.mesh import Mesh
from femb.model import Material, Model, Section, SuperelementData


def internal_bar(monkeypatch):
    """Three 2-D truss elements of a type with 2 internal variables each (registered for the
    test), fixed at the start."""
    truss = elements.get_spec("truss2d")
    future = dataclasses.replace(truss, name="future2d", n_internal=2)
    real = elements.get_spec
    monkeypatch.setattr(elements, "get_spec", lambda name: future if name == "future2d" else real(name))
    model = Model(line_mesh((0.0, 0.0), (3.0, 0.0), 3, "bar"))
    model.add_part("bar", "future2d", "bar", Material(E=1.0, nu=0.3, rho=1.0), Section(A=1.0, I=1.0))
    model.fix("bar_start")
    return model


def test_internal_variables_follow_the_nodal_ones_one_block_per_element(monkeypatch):
    t = build_table(internal_bar(monkeypatch))
    assert t.n_nodal == 8 and t.n_internal == 6 and t.n_var == 14
    assert np.array_equal(t.var_node[8:], -np.ones(6)) and np.array_equal(t.var_dof[8:], -np.ones(6))
    assert np.array_equal(t.var_block, [-1] * 8 + [0] * 6)
    assert np.array_equal(t.var_element, [-1] * 8 + [0, 0, 1, 1, 2, 2])
    block = t.blocks[0]
    assert block.var.shape == (3, 6)
    assert np.array_equal(block.var[:, 4:], [[8, 9], [10, 11], [12, 13]])
    assert np.array_equal(t.internal_vars("bar"), block.var[:, 4:])
    assert np.all(t.var_eq[8:] >= 0)  # internal variables are free unknowns
    assert np.array_equal(block.eq[:, 4:], t.var_eq[block.var[:, 4:]])
    assert t.describe_var(11) == (-1, "bar[1].q1")
    assert t.describe_var(t.node_var[1, 0]) == (1, "ux")
    assert t.is_internal(np.arange(14)).sum() == 6
    with pytest.raises(ModelError, match="unknown part 'nope'"):
        t.internal_vars("nope")


def _beam_superelement(k):
    """Two-node superelement data with the structure of a Craig–Bampton reduction (random
    boundary stiffness without rigid-body energy, diagonal modal stiffness)."""
    from tests.elements.test_superelement import reduced_body

    X, K, M, _ = reduced_body(2, k, seed=7)
    return X, SuperelementData(K, M, X, np.sqrt(np.diag(K)[12:]))


def test_a_model_mixing_beams_and_superelements_numbers_and_assembles_them():
    X, data = _beam_superelement(3)
    pts = np.vstack([X, X[1] + [[0.5, 0.0, 0.0], [1.0, 0.0, 0.0]]])
    mesh = Mesh(pts)
    mesh.add_cells("beam", "line", np.array([[1, 2], [2, 3]]))
    model = Model(mesh)
    model.add_part("beam", "beam3d", "beam", values=dict(EA=10.0, GJ=1.0, EIy=1.0, EIz=1.0, rhoA=1.0, rhoIp=0.1,
                                                           rhoIy=0.0, rhoIz=0.0))
    model.add_superelement("se", data, [0, 1])
    model.add_superelement("se2", data.placed(np.eye(3), [0.0, 0.0, 0.0]), [0, 1])
    t = build_table(model)
    assert t.n_nodal == 24 and t.n_internal == 6
    # parts in declaration order: beam (no internal), se, se2
    assert np.array_equal(t.internal_vars("se"), [[24, 25, 26]])
    assert np.array_equal(t.internal_vars("se2"), [[27, 28, 29]])
    assert t.internal_vars("beam").shape == (2, 0)
    se = next(b for b in t.blocks if b.part == "se")
    assert np.array_equal(se.var[0, :12], np.concatenate([t.node_var[0], t.node_var[1]]))
    from femb.assembly import Assembler
    from femb.solvers.configuration import RotationLayout

    asm = Assembler(t)
    lay = RotationLayout(t)
    _, K = asm.tangent(np.zeros(t.n_var), R=lay.identity())
    Kd = K.toarray()
    q = t.var_eq[t.internal_vars("se")[0]]
    assert np.allclose(Kd[np.ix_(q, q)], data.K[12:, 12:], rtol=0, atol=1e-14)
    assert lay.n == 4 and not np.isin(t.internal_vars("se").ravel(), lay.var).any()  # never rotations


def test_results_expose_internal_variables_per_part():
    import femb

    X, data = _beam_superelement(2)
    model = Model(Mesh(X))
    model.add_superelement("se", data, [0, 1])
    model.fix(0)
    model.point_load(1, fx=1e-3)
    res = femb.solve_static(model, steps=2)
    q = res.internal("se")
    assert q.shape == (1, 2)
    assert res.internal("se", frame=None).shape == (len(res), 1, 2)
    # K_bq = 0 and no modal load: the statics leave the modal amplitudes at zero
    assert np.abs(q).max() <= 1e-12
