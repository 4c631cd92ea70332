"""Craig–Bampton reduction (femb.solvers.reduction).

Test model (the substructuring reference digest §3.2, CB-1 …
CB-5): a uniform planar Euler–Bernoulli beam of 20 beam2d elements, L = 1, EI = 1, ρA = 1,
EA = 1e4, no rotary inertia; boundary = both end nodes (6 DOFs). Reference numbers are
analytic where stated (clamped–clamped and free–free beam frequencies, cantilever statics)
and otherwise from the digest's independent run of the same algebra.
"""
import numpy as np
import pytest
import scipy.io
import scipy.linalg as sla
import scipy.sparse as sp

import femb
from femb.core.errors import InputError, ModelError
from femb.elements import MASS_KINDS
from femb.mesh import line_mesh
from femb.solvers.reduction.cache import cached_craig_bampton
from femb.solvers.reduction.component import reduce_component
from femb.solvers.reduction.craig_bampton import craig_bampton
from femb.solvers.reduction.matrix_files import reduce_matrix_files
from femb.solvers.reduction.rigid_fields import unit_rigid_accelerations

N_EL = 20


def unit_beam(n_el=N_EL):
    mesh = line_mesh([0.0, 0.0], [1.0, 0.0], n_el, name="beam")
    model = femb.Model(mesh)
    model.add_part("beam", "beam2d", "beam", values=dict(EA=1e4, EI=1.0, rhoA=1.0, rhoI=0.0))
    return model


ENDS = np.array([0, N_EL])


def elastic_frequencies(basis, count=4):
    """Free–free elastic circular frequencies of the reduced model (3 rigid modes dropped)."""
    lam = sla.eigvalsh(basis.K, basis.M)
    return np.sqrt(np.abs(lam[3:3 + count]))


def test_free_free_frequency_converges_from_above_as_modes_are_added():
    """CB-5: 26.8328 → 22.4539 → 22.3825 → 22.3739 → 22.3734 for k = 0, 1, 4, 8, 16;
    22.3733 = 4.7300² the free–free Euler–Bernoulli value (analytic, β₁L = 4.730041)."""
    expected = {0: 26.8328, 1: 22.4539, 4: 22.3825, 8: 22.3739, 16: 22.3734}
    model = unit_beam()
    previous = np.inf
    for k, ref in expected.items():
        w1 = elastic_frequencies(reduce_component(model, ENDS, k, mass="consistent").basis)[0]
        assert w1 == pytest.approx(ref, abs=6e-5)
        assert w1 < previous  # nested Ritz subspaces: monotone from above
        previous = w1
    assert previous == pytest.approx(4.730041 ** 2, rel=2e-5)


def test_guyan_frequencies_of_the_unit_beam():
    """k = 0: the constraint modes of an Euler–Bernoulli beam are the cubic Hermite
    functions, so Guyan reduction gives the one-element values √720, √8400 and √120000
    (closed form of the 4×4 Hermite stiffness/consistent mass pencil, free–free)."""
    w = elastic_frequencies(reduce_component(unit_beam(), ENDS, 0, mass="consistent").basis, 3)
    np.testing.assert_allclose(w, np.sqrt([720.0, 8400.0, 120000.0]), rtol=1e-9)


def test_block_structure_and_fixed_interface_frequencies():
    """CB-2: K_bq = 0, M_qq = I, diag K_qq = ω² of the clamped–clamped interior: √ = 22.3733,
    61.6738, 120.911, 199.894 (the digest's run of the same 20-element mesh), above the
    analytic clamped–clamped values (β_nL)² with β_nL = 4.730041, 7.853205, 10.995608,
    14.137165 (a consistent-mass Ritz model bounds them from above) and within 2e-4."""
    rc = reduce_component(unit_beam(), ENDS, 4, mass="consistent")
    b = rc.basis
    T = b.transformation()
    K_full, M_full = _full_matrices(rc)
    K_r, M_r = T.T @ K_full @ T, T.T @ M_full @ T
    scale = np.abs(b.K).max()
    assert np.abs(K_r - b.K).max() <= 1e-9 * scale
    assert np.abs(M_r - b.M).max() <= 1e-12 * np.abs(b.M).max()
    assert np.abs(K_r[:6, 6:]).max() <= 1e-9 * scale
    np.testing.assert_allclose(M_r[6:, 6:], np.eye(4), atol=1e-12)
    np.testing.assert_allclose(b.frequencies, [22.3733, 61.6738, 120.911, 199.894], rtol=5e-6)
    analytic = np.array([4.730041, 7.853205, 10.995608, 14.137165]) ** 2
    assert np.all(b.frequencies > analytic) and np.all(b.frequencies < analytic * (1 + 2e-4))


def _full_matrices(rc):
    from femb.elements import MASS_KINDS
    prob = rc.problem
    u = np.zeros(prob.table.n_var)
    _, K = prob.assembler.tangent(u, include_geometric=False)
    return K.toarray(), prob.assembler.mass_matrix(MASS_KINDS[rc.mass_kind], u).toarray()


def test_rigid_body_motion_is_exact():
    """CB-1: K_r R_b = 0 and R_bᵀ M_r R_b = Rᵀ M R = [[1, 0, 0], [0, 1, ½], [0, ½, ⅓]]
    (total mass, first and second moments of the unit beam about its first node)."""
    rc = reduce_component(unit_beam(), ENDS, 4, mass="consistent")
    b = rc.basis
    t = rc.table
    dofs = rc.boundary_dofs()
    x = {0: 0.0, N_EL: 1.0}
    Rb = np.zeros((b.K.shape[0], 3))
    for row, (node, dof) in enumerate(dofs):
        if dof == "ux":
            Rb[row, 0] = 1.0
        elif dof == "uy":
            Rb[row, 1] = 1.0
            Rb[row, 2] = x[node]
        elif dof == "rz":
            Rb[row, 2] = 1.0
    assert t.n_eq == 63
    assert np.abs(b.K @ Rb).max() <= 1e-8 * np.abs(b.K).max()
    np.testing.assert_allclose(Rb.T @ b.M @ Rb, [[1.0, 0.0, 0.0], [0.0, 1.0, 0.5], [0.0, 0.5, 1.0 / 3.0]], atol=1e-12)


@pytest.mark.parametrize("k", [0, 4])
def test_boundary_statics_are_exact_for_any_number_of_modes(k):
    """CB-3: cantilever clamped at x = 0: tip force P = 1 gives w = PL³/3EI = 1/3 and
    θ = PL²/2EI = 1/2 (analytic); a uniform load q = 1 (reduced by Tᵀ f) gives the tip
    deflection qL⁴/8EI = 1/8 for any k, while the mid-span deflection reaches its exact
    value 17qL⁴/384EI = 0.04427083 only as k grows (CB-4: Guyan gives 0.04166667)."""
    rc = reduce_component(unit_beam(), ENDS, k, mass="consistent")
    b = rc.basis
    dofs = rc.boundary_dofs()
    free = [i for i, (node, _) in enumerate(dofs) if node == N_EL]
    free += list(range(6, 6 + k))
    tip_w = free[[dofs[i] for i in free[:3]].index((N_EL, "uy"))]
    tip_r = free[[dofs[i] for i in free[:3]].index((N_EL, "rz"))]

    def solve(f_reduced):
        x = np.zeros(b.K.shape[0])
        x[free] = np.linalg.solve(b.K[np.ix_(free, free)], f_reduced[free])
        return x

    f = np.zeros(b.K.shape[0])
    f[tip_w] = 1.0
    x = solve(f)
    assert x[tip_w] == pytest.approx(1.0 / 3.0, rel=1e-10)
    assert x[tip_r] == pytest.approx(0.5, rel=1e-10)

    t = rc.table
    f_full = np.zeros(t.n_eq)
    h = 1.0 / N_EL
    for e in range(t.n_eq):
        node, dof = t.describe_var(t.eq_var[e])
        if dof == "uy":
            f_full[e] = h if 0 < node < N_EL else h / 2.0
        if dof == "rz" and node in (0, N_EL):
            f_full[e] = h * h / 12.0 * (1.0 if node == 0 else -1.0)
    x = solve(b.reduce_load(f_full))
    assert x[tip_w] == pytest.approx(0.125, rel=1e-10)
    mid = b.expand(x)[[e for e in range(t.n_eq) if t.describe_var(t.eq_var[e]) == (N_EL // 2, "uy")][0]]
    exact_mid = 17.0 / 384.0  # w(L/2) of a uniformly loaded cantilever: 17 qL⁴ / (384 EI)
    if k == 0:
        assert mid == pytest.approx(0.04166667, abs=1e-8)  # Guyan: the cubic tip-load shape
    else:
        assert abs(mid - exact_mid) < 1e-5 and abs(mid - exact_mid) < abs(0.04166667 - exact_mid) / 50


@pytest.mark.parametrize("k", [0, 2])
def test_static_correction_makes_interior_load_statics_exact(k):
    """A uniform load on the interior (the component's own distributed load q = 1): with
    one static-correction mode the reduced cantilever gives the exact Euler–Bernoulli
    deflection at every node for any k (mid-span 17qL⁴/384EI, tip qL⁴/8EI; cubic elements
    with consistent loads are nodally exact), which k normal modes alone approach only
    slowly (Guyan: 0.04166667 at mid-span). The correction mode keeps M_qq = I and K_qq
    diagonal, and the summary counts it."""
    model = unit_beam()
    model.distributed_load("beam", [0.0, 1.0])
    plain = reduce_component(model, ENDS, k, mass="consistent").basis
    rc = reduce_component(model, ENDS, k, mass="consistent", static_correction=True)
    b = rc.basis
    assert b.n_correction == 1 and b.n_modes == k + 1
    np.testing.assert_allclose(b.M[6:, 6:], np.eye(k + 1), atol=1e-12)
    np.testing.assert_allclose(b.frequencies[:k], plain.frequencies, rtol=1e-12)
    assert "1 static-correction" in b.summary()
    t = rc.table
    eq_of = {t.describe_var(t.eq_var[e]): e for e in range(t.n_eq)}

    def deflections(basis):
        dofs = [t.describe_var(t.eq_var[e]) for e in basis.boundary]
        free = [i for i, (node, _) in enumerate(dofs) if node == N_EL] + list(range(6, basis.K.shape[0]))
        f = basis.reduce_load(rc.table.free(rc.problem.external(1.0)))
        x = np.zeros(basis.K.shape[0])
        x[free] = np.linalg.solve(basis.K[np.ix_(free, free)], f[free])
        full = basis.expand(x)
        return full[eq_of[(N_EL // 2, "uy")]], full[eq_of[(N_EL, "uy")]]

    mid, tip = deflections(b)
    assert mid == pytest.approx(17.0 / 384.0, rel=1e-10)
    assert tip == pytest.approx(0.125, rel=1e-10)
    mid_plain, _ = deflections(plain)
    assert abs(mid_plain - 17.0 / 384.0) > 1e-7  # without the correction the interior load is not exact


def test_static_correction_needs_interior_loads():
    with pytest.raises(InputError, match="interior"):
        reduce_component(unit_beam(), ENDS, 2, static_correction=True)


def test_singular_interior_names_the_free_dofs():
    """Two spring pairs a–b and c–d with the interface at a: the pair c–d floats (an
    interior mechanism), so K_ii is singular: ModelError naming c and d."""
    with pytest.raises(ModelError, match="interior stiffness K_ii is singular") as err:
        craig_bampton(_floating_pair_stiffness(), np.eye(4), [0], 1, labels=["a ux", "b ux", "c ux", "d ux"])
    assert "c ux" in str(err.value) and "d ux" in str(err.value)


def _floating_pair_stiffness():
    """Springs a–b and c–d (no connection between the pairs): with boundary {a}, the pair
    c–d floats."""
    K = np.zeros((4, 4))
    for i, j in ((0, 1), (2, 3)):
        K[np.ix_([i, j], [i, j])] += [[1.0, -1.0], [-1.0, 1.0]]
    return K


def test_bad_input_is_named():
    K = np.array([[2.0, -1.0], [-1.0, 2.0]])
    with pytest.raises(InputError, match="not symmetric"):
        craig_bampton(K + np.array([[0, 1e-3], [0, 0]]), np.eye(2), [0], 1)
    with pytest.raises(InputError, match="indefinite"):
        craig_bampton(K, np.array([[1.0, 2.0], [2.0, 1.0]]), [0], 1)
    with pytest.raises(InputError, match="differ in size"):
        craig_bampton(K, np.eye(3), [0], 1)
    with pytest.raises(InputError, match="no DOFs"):
        craig_bampton(K, np.eye(2), [], 0)
    with pytest.raises(InputError, match="n_modes must lie in 0..1"):
        craig_bampton(K, np.eye(2), [0], 2)
    with pytest.raises(InputError, match="interface node set is empty"):
        reduce_component(unit_beam(4), np.array([], dtype=np.int64), 1, mass="consistent")


def test_exported_matrices_reduce_like_the_model_and_are_cached(tmp_path):
    """Matrices written as Matrix Market / scipy npz with a DOF map reduce to the same basis
    as the model itself; a second reduction with the same inputs reads the cache."""
    rc = reduce_component(unit_beam(), ENDS, 4, mass="consistent")
    K, M = _full_matrices(rc)
    t = rc.table
    scipy.io.mmwrite(str(tmp_path / "K.mtx"), sp.csr_matrix(K))
    sp.save_npz(tmp_path / "M.npz", sp.csr_matrix(M))
    rows = ["node,dof"] + [f"{n},{d}" for n, d in (t.describe_var(v) for v in t.eq_var)]
    (tmp_path / "dofs.csv").write_text("\n".join(rows) + "\n")
    cache = tmp_path / "cache"
    b1, _ = reduce_matrix_files(tmp_path / "K.mtx", tmp_path / "M.npz", tmp_path / "dofs.csv", ENDS, 4, cache_dir=cache)
    np.testing.assert_allclose(b1.frequencies, rc.basis.frequencies, rtol=1e-12)
    np.testing.assert_allclose(b1.K, rc.basis.K, atol=1e-9 * np.abs(rc.basis.K).max())
    files = list(cache.glob("cb-*.npz"))
    assert len(files) == 1
    stamp = files[0].stat().st_mtime_ns
    b2 = cached_craig_bampton(sp.csr_matrix(K), sp.csr_matrix(M), b1.boundary, 4, cache_dir=cache)
    assert files[0].stat().st_mtime_ns == stamp and len(list(cache.glob("cb-*.npz"))) == 1
    np.testing.assert_array_equal(b2.M, b1.M)
    (tmp_path / "short.csv").write_text("\n".join(rows[:-1]) + "\n")
    with pytest.raises(InputError, match="lists 62 DOFs"):
        reduce_matrix_files(tmp_path / "K.mtx", tmp_path / "M.npz", tmp_path / "short.csv", ENDS, 4)
    with pytest.raises(InputError, match="not in the DOF map"):
        reduce_matrix_files(tmp_path / "K.mtx", tmp_path / "M.npz", tmp_path / "dofs.csv", [0, 99], 4)


def test_model_reduction_is_cached_by_its_inputs(tmp_path):
    """reduce_component with a cache folder: the second reduction of the same model reads the
    stored basis (one file, unchanged), a different number of modes makes a new one."""
    model = unit_beam()
    first = reduce_component(model, ENDS, 4, mass="consistent", cache_dir=tmp_path)
    files = list(tmp_path.glob("cb-*.npz"))
    assert len(files) == 1
    stamp = files[0].stat().st_mtime_ns
    again = reduce_component(model, ENDS, 4, mass="consistent", cache_dir=tmp_path)
    assert files[0].stat().st_mtime_ns == stamp
    np.testing.assert_array_equal(again.basis.K, first.basis.K)
    assert again.basis.labels == first.basis.labels
    reduce_component(model, ENDS, 2, mass="consistent", cache_dir=tmp_path)
    assert len(list(tmp_path.glob("cb-*.npz"))) == 2


def test_static_correction_is_part_of_the_cache_key(tmp_path):
    """The load patterns of the static correction key the cached reduction too: the same
    model with and without the correction gives two files, and a cached read keeps the
    number of correction modes."""
    model = unit_beam()
    model.distributed_load("beam", [0.0, 1.0])
    reduce_component(model, ENDS, 2, cache_dir=tmp_path)
    first = reduce_component(model, ENDS, 2, cache_dir=tmp_path, static_correction=True)
    assert len(list(tmp_path.glob("cb-*.npz"))) == 2
    again = reduce_component(model, ENDS, 2, cache_dir=tmp_path, static_correction=True)
    assert again.basis.n_correction == first.basis.n_correction == 1
    np.testing.assert_array_equal(again.basis.normal_modes, first.basis.normal_modes)


def test_lumped_mass_without_rotary_inertia_is_reduced():
    """Lumped beams without rotary inertia leave the interior rotations massless (a
    singular M_ii): the fixed-interface modes are those of the problem with the massless
    DOFs condensed out statically, K* = K_tt − K_tr K_rr⁻¹ K_rt against the diagonal
    translational mass (an exact equivalence for massless DOFs)."""
    rc = reduce_component(unit_beam(), ENDS, 3, mass="lumped")
    b = rc.basis
    K_full, M_full = _full_matrices(rc)
    i = b.interior
    K_ii, M_ii = K_full[np.ix_(i, i)], M_full[np.ix_(i, i)]
    heavy = np.diag(M_ii) > 0
    t, r = np.flatnonzero(heavy), np.flatnonzero(~heavy)
    K_star = K_ii[np.ix_(t, t)] - K_ii[np.ix_(t, r)] @ np.linalg.solve(K_ii[np.ix_(r, r)], K_ii[np.ix_(r, t)])
    w = np.sqrt(sla.eigh(K_star, M_ii[np.ix_(t, t)], eigvals_only=True)[:3])
    np.testing.assert_allclose(b.frequencies, w, rtol=1e-9)
    np.testing.assert_allclose(b.M[6:, 6:], np.eye(3), atol=1e-10)


def test_inertia_correction_reproduces_quasi_static_inertial_deformation():
    """inertia_correction=True appends the fixed-interface static responses to the
    d'Alembert loads of unit rigid accelerations and spins about the interface centroid:
    with k = 0 the reduced body reproduces exactly (to 1e-10) the full model's deformation
    under the centrifugal load of a spin about z with the interface held, which Guyan alone
    misses; patterns the basis already holds are dropped (at most 2 + 1 + 1 in a planar model)."""
    model = unit_beam()
    rc = reduce_component(model, ENDS, 0, mass="lumped", inertia_correction=True)
    b = rc.basis
    assert 0 < b.n_correction <= 4 and b.n_modes == b.n_correction
    np.testing.assert_allclose(b.M[b.n_boundary:, b.n_boundary:], np.eye(b.n_modes), atol=1e-12)
    t, prob = rc.table, rc.problem
    _, _, products = unit_rigid_accelerations(t, model.mesh, np.array([0.5, 0.0]))
    zz = products[0]  # the planar model's one product ω_z²: ω × (ω × r)
    asm = prob.assembler
    M = asm.mass_matrix(MASS_KINDS["lumped"])
    f = -(M @ zz[t.eq_var])
    K = asm.tangent(np.zeros(t.n_var), include_geometric=False)[1]
    interior = b.interior
    u = np.zeros(t.n_eq)
    u[interior] = np.linalg.solve(K.toarray()[np.ix_(interior, interior)], f[interior])
    T = b.transformation()
    coef = np.linalg.lstsq(T, u, rcond=None)[0]
    assert np.abs(T @ coef - u).max() <= 1e-10 * np.abs(u).max()
    plain = reduce_component(model, ENDS, 0, mass="lumped").basis.transformation()
    miss = plain @ np.linalg.lstsq(plain, u, rcond=None)[0] - u
    assert np.abs(miss).max() > 1e-3 * np.abs(u).max()
