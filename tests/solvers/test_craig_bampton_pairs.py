"""Degenerate fixed-interface mode sets in the Craig–Bampton reduction (whole_pairs).

A cantilever with a circular section (Iy = Iz) has its bending modes in degenerate pairs:
cutting the fixed-interface modes inside a pair keeps one mode whose orientation in the
pair's plane is arbitrary. By default the reduction keeps the whole pair; the reduced
body is then isotropic in bending again.
"""
import numpy as np
import scipy.linalg as sla

import femb
from femb.mesh import line_mesh
from femb.solvers.reduction.component import reduce_component

L, N = 2.0, 12


def round_cantilever():
    model = femb.Model(line_mesh((0.0, 0.0, 0.0), (L, 0.0, 0.0), N, "beam"), dim=3)
    material = femb.Material(E=2.0e5, G=8.0e4, rho=8.0e-3)
    r = 0.05
    I = np.pi * r ** 4 / 4.0
    section = femb.Section(A=np.pi * r * r, Iy=I, Iz=I, J=2.0 * I)
    model.add_part("beam", "beam3d", "beam", material, section)
    return model


def test_k_inside_a_pair_keeps_the_whole_pair():
    model = round_cantilever()
    root = [model.node("beam_start")]
    whole = reduce_component(model, root, 1, mass="lumped")
    cut = reduce_component(model, root, 1, mass="lumped", whole_pairs=False)
    b = whole.basis
    assert b.n_modes == 2 and b.n_completed == 1
    assert cut.basis.n_modes == 1 and cut.basis.n_completed == 0
    assert "1 added to keep a degenerate set" in b.summary()
    w = b.frequencies
    assert abs(w[1] - w[0]) <= 1e-6 * w[1]
    np.testing.assert_allclose(cut.basis.frequencies[0], w[0], rtol=1e-10)
    # the kept pair spans both bending planes: the two modes' tip deflections (uy, uz) are
    # orthogonal and of equal size, so the reduced body's stiffness is isotropic in bending
    T = b.transformation()
    t = whole.table
    tip = int(model.node("beam_end"))
    rows = [int(t.var_eq[t.var_of(tip, d)]) for d in ("uy", "uz")]
    S = T[rows][:, b.n_boundary:]  # (2, 2): tip uy, uz of each mode
    G = S @ S.T
    np.testing.assert_allclose(G, G[0, 0] * np.eye(2), atol=1e-9 * G[0, 0])


def test_k_at_a_pair_boundary_adds_nothing():
    model = round_cantilever()
    rc = reduce_component(model, [model.node("beam_start")], 2, mass="lumped")
    assert rc.basis.n_modes == 2 and rc.basis.n_completed == 0
    # nothing to complete: exactly the k-mode reduction (the same vectors of the pair)
    exact = reduce_component(model, [model.node("beam_start")], 2, mass="lumped", whole_pairs=False)
    np.testing.assert_array_equal(rc.basis.normal_modes, exact.basis.normal_modes)
    np.testing.assert_array_equal(rc.basis.M, exact.basis.M)
    assert "added" not in rc.basis.summary()
    # k = 3 cuts the second pair (the first torsion mode is far above the second bending pair)
    rc3 = reduce_component(model, [model.node("beam_start")], 3, mass="lumped")
    assert rc3.basis.n_modes == 4 and rc3.basis.n_completed == 1
    # the completed basis has the same frequencies as an explicit k = 4 reduction
    rc4 = reduce_component(model, [model.node("beam_start")], 4, mass="lumped")
    np.testing.assert_array_equal(rc3.basis.normal_modes, rc4.basis.normal_modes)
    lam3 = sla.eigvalsh(rc3.basis.K, rc3.basis.M)
    lam4 = sla.eigvalsh(rc4.basis.K, rc4.basis.M)
    np.testing.assert_allclose(lam3[6:10], lam4[6:10], rtol=1e-9)


def test_the_cache_keys_whole_pairs(tmp_path):
    model = round_cantilever()
    root = [model.node("beam_start")]
    a = reduce_component(model, root, 1, mass="lumped", cache_dir=tmp_path)
    b = reduce_component(model, root, 1, mass="lumped", cache_dir=tmp_path, whole_pairs=False)
    assert len(list(tmp_path.glob("cb-*.npz"))) == 2
    again = reduce_component(model, root, 1, mass="lumped", cache_dir=tmp_path)
    assert again.basis.n_modes == a.basis.n_modes == 2 and again.basis.n_completed == 1
    assert b.basis.n_modes == 1
