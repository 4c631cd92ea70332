"""Momenta of the energy books (femb.solvers.dynamics.energy.momenta) from the element
masses kept by their nonzero entries: equal, bit for bit, to the sparse matrix of the
nonzero free entries of the dense element masses times v, and to the closed forms of a
rigid motion."""
import numpy as np
import pytest
import scipy.sparse as sp

from femb.mesh import CellBlock, Mesh, line_mesh
from femb.model import Model
from femb.solvers.dynamics import energy
from femb.solvers.dynamics.energy import _element_momenta, momenta
from femb.solvers.dynamics.problem import DynamicProblem


def truss_grid(dim, tie=False):
    """A triangulated 6 × 4 truss grid with some elements drawn from their higher node to
    their lower one (element rows whose variables are not in increasing order); ``tie``:
    the first two nodes share ux, so one element has a variable in two of its columns."""
    nx, ny = 6, 4
    pts = np.array([[i * 0.3, j * 0.25] + ([0.05 * i * j] if dim == 3 else []) for j in range(ny) for i in range(nx)])
    conn = []
    for j in range(ny):
        for i in range(nx):
            a = j * nx + i
            if i + 1 < nx:
                conn.append([a + 1, a])
            if j + 1 < ny:
                conn.append([a, a + nx])
            if i + 1 < nx and j + 1 < ny:
                conn.append([a + nx + 1, a])
    mesh = Mesh(pts, {"c": CellBlock("line", np.array(conn))}, {"n0": [0], "n1": [1], "n5": [5]})
    model = Model(mesh, dim=dim)
    model.add_part("c", f"truss{dim}d", "c", values={"EA": 1e4, "rhoA": 1.3})
    model.fix("n5", ("ux", "uy"))
    if tie:
        model.tie("n0", "n1", ("ux",))
    return model


def beam_chain(dim, n=7):
    start, end = np.zeros(dim), np.array([1.0, 0.4, 0.3][:dim])
    model = Model(line_mesh(start, end, n, "b"), dim=dim)
    if dim == 2:
        model.add_part("b", "beam2d", "b", values={"EA": 1e5, "EI": 10.0, "rhoA": 1.0, "rhoI": 1e-3})
        model.fix("b_start", ("ux", "uy", "rz"))
    else:
        model.add_part("b", "beam3d", "b", values={"EA": 1e5, "GJ": 8.0, "EIy": 10.0, "EIz": 12.0, "rhoA": 1.0,
                                                   "rhoIp": 2e-4, "rhoIy": 1e-4, "rhoIz": 1.2e-4})
        model.fix("b_start", ("ux", "uy", "uz", "rx", "ry", "rz"))
    return model


def rigid_bodies():
    """Three rigid bodies and a point mass, not joined (momenta need no joints; the rows of
    the rotations hold no mass: the rotary terms carry it)."""
    pts = np.array([[0.2, 0.0, 0.1], [0.7, 0.3, -0.2], [1.1, -0.4, 0.5], [0.4, 0.9, 0.0]])
    model = Model(Mesh(pts, {}, {f"b{k}": [k] for k in range(4)}), dim=3)
    for k in range(3):
        model.add_discrete(f"body {k}", "rigid_body3d", f"b{k}", m=1.0 + k, Jxx=0.1, Jyy=0.2 + 0.1 * k, Jzz=0.3)
    model.add_discrete("point", "point_mass3d", "b3", m=0.7)
    model.fix("b1", ("uz",))
    return model


CASES = {"rigid bodies lumped": (rigid_bodies, "lumped"),
         "truss2d consistent": (lambda: truss_grid(2), "consistent"),
         "truss3d consistent": (lambda: truss_grid(3), "consistent"),
         "truss2d consistent, tied": (lambda: truss_grid(2, tie=True), "consistent"),
         "truss2d lumped": (lambda: truss_grid(2), "lumped"),
         "beam2d lumped": (lambda: beam_chain(2), "lumped"),
         "beam2d invariant": (lambda: beam_chain(2), "invariant"),
         "beam3d lumped": (lambda: beam_chain(3), "lumped")}


@pytest.mark.parametrize("name", list(CASES))
def test_element_momenta_are_the_sparse_product_bit_for_bit(name):
    """M_e v_e of every element equals, bit for bit, the product of the sparse matrix of the
    nonzero free entries of the dense element masses (one row per element DOF, entries of
    one variable summed) with v: the same sums in the same order."""
    build, mass = CASES[name]
    prob = DynamicProblem(build(), mass=mass)
    t = prob.table
    v = np.random.default_rng(3).standard_normal(t.n_var)
    for block, Me, kept in zip(t.blocks, prob.element_mass, prob.compact_element_mass):
        n_el, nd = block.var.shape
        e, i, j = np.nonzero((block.var >= 0)[:, None, :] & (Me != 0.0))
        S = sp.csr_matrix((Me[e, i, j], (e * nd + i, block.var[e, j])), shape=(n_el * nd, t.n_var))
        expected = (S @ v).reshape(n_el, nd)
        got = _element_momenta(block, kept, v, t.n_var)
        assert got.tobytes() == expected.tobytes()
    if "tied" in name:  # the tie puts one variable in two columns of an element row
        var = t.blocks[0].var
        assert any(len(set(r[r >= 0])) < np.count_nonzero(r >= 0) for r in var)


@pytest.mark.parametrize("dim", [2, 3])
def test_momenta_of_a_rigid_motion_are_the_closed_forms(dim):
    """A free lumped truss grid at a deformed state u moving rigidly, v = V + ω × x about the
    origin: p = m V + ω × (m x_c) and L = Σ m_a x_a × v_a with the lumped nodal masses
    (the grid's total mass 1.3 × its length, shared half and half by the two nodes)."""
    model = truss_grid(dim)
    free = Model(model.mesh, dim=dim)
    free.add_part("c", f"truss{dim}d", "c", values={"EA": 1e4, "rhoA": 1.3})
    prob = DynamicProblem(free)
    t = prob.table
    rng = np.random.default_rng(5)
    u = 0.05 * rng.standard_normal(t.n_var)
    b = t.blocks[0]
    n_nodes = len(model.mesh.points)
    lengths = np.linalg.norm(b.X[:, 1] - b.X[:, 0], axis=1)
    m_node = np.zeros(n_nodes)
    np.add.at(m_node, b.cells, 0.5 * 1.3 * lengths[:, None])
    x = model.mesh.points[:, :dim] + u[t.node_var[:, :dim]]
    V = np.array([0.3, -0.2, 0.1][:dim])
    w = np.array([0.2, -0.3, 0.8])
    x3 = np.pad(x, ((0, 0), (0, 3 - dim)))
    vel = V + np.cross(w if dim == 3 else np.array([0.0, 0.0, w[2]]), x3)[:, :dim]
    v = np.zeros(t.n_var)
    v[t.node_var[:, :dim]] = vel
    p, L = momenta(prob, u, v)
    mass = m_node.sum()
    assert mass == pytest.approx(1.3 * lengths.sum(), rel=1e-14)
    assert np.allclose(p, mass * V + np.cross(w if dim == 3 else [0.0, 0.0, w[2]], (m_node[:, None] * x3).sum(axis=0))[:dim],
                       rtol=1e-13, atol=1e-13)
    L_ref = (m_node[:, None] * np.cross(x3, np.pad(vel, ((0, 0), (0, 3 - dim))))).sum(axis=0)
    assert np.allclose(L, L_ref[2:] if dim == 2 else L_ref, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("name", list(CASES))
def test_kept_plan_and_element_by_element_momenta_agree_bit_for_bit(name, monkeypatch):
    """Small models keep a momentum plan, large ones sum element by element
    (``KEPT_PLAN_MAX_VARIABLES``): both give the same p and L, bit for bit."""
    build, mass = CASES[name]
    prob = DynamicProblem(build(), mass=mass)
    n = prob.table.n_var
    rng = np.random.default_rng(11)
    u, v = 0.05 * rng.standard_normal(n), rng.standard_normal(n)
    assert n <= energy.KEPT_PLAN_MAX_VARIABLES
    p_plan, L_plan = momenta(prob, u, v)
    assert "_momentum_plan" in prob.__dict__
    monkeypatch.setattr(energy, "KEPT_PLAN_MAX_VARIABLES", 0)
    p_elem, L_elem = momenta(prob, u, v)
    assert p_plan.tobytes() == p_elem.tobytes() and L_plan.tobytes() == L_elem.tobytes()
    assert np.any(p_plan != 0.0) and np.any(L_plan != 0.0)


@pytest.mark.parametrize("rows", [7, energy.ROW_PRODUCT_MAX_ROWS + 1])
def test_row_product_is_scipys_csr_product_bit_for_bit(rows):
    """``_row_product`` of a ``_row_terms`` plan (or of the matrix itself above
    ROW_PRODUCT_MAX_ROWS rows) equals scipy's CSR product bit for bit: rows of 0 to 5
    entries in an unsorted stored order, and products −0.0 (the sums start from +0.0)."""
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 6, rows)
    r = np.repeat(np.arange(rows), counts)
    c = rng.integers(0, 9, r.size)
    d = rng.standard_normal(r.size) * 10.0 ** rng.integers(-8, 8, r.size)
    d[::7] = -0.0
    A = sp.csr_matrix((d, (r, c)), shape=(rows, 9))
    A.indices = A.indices.copy()
    order = np.arange(A.nnz)
    for i in range(rows):  # reverse each row's stored order (scipy sums in stored order)
        order[A.indptr[i]:A.indptr[i + 1]] = order[A.indptr[i]:A.indptr[i + 1]][::-1]
    A = sp.csr_matrix((A.data[order], A.indices[order], A.indptr), shape=A.shape)
    x = rng.standard_normal(9)
    x[2] = 0.0
    expected = A @ x
    got = energy._row_product(energy._row_terms(A), x)
    assert got.tobytes() == expected.tobytes()
    assert np.any(np.signbit(d)) and np.all(~np.signbit(expected[counts == 0]))


def test_kinetic_energy_follows_a_replaced_mass_matrix():
    """The product plan kept for ½ vᵀ M v belongs to the mass matrix object it was made
    from: a problem given another M_full gives that matrix's energy."""
    build, mass = CASES["truss2d lumped"]
    prob = DynamicProblem(build(), mass=mass)
    v = np.random.default_rng(2).standard_normal(prob.table.n_var)
    T = energy.kinetic_energy(prob, v)
    assert T == 0.5 * float(v @ (prob.M_full @ v))
    prob.M_full = 2.0 * prob.M_full
    assert energy.kinetic_energy(prob, v) == 2.0 * T
