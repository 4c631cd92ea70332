"""MKL PARDISO behind Factorization: the choice, agreement with SuperLU, singular systems."""
import numpy as np
import pytest

from femb.assembly import Assembler
from femb.core.errors import InputError
from femb.correlation import build_table
from femb.mesh import rectangle_mesh
from femb.model import Material, Model, Section
from femb.solvers import SingularSystemError
from femb.solvers.linalg import pardiso
from femb.solvers.linalg.factorization import Factorization


def plate(side=6, fix=True):
    mesh = rectangle_mesh(1.0, 1.0, side, side, cells="quad")
    model = Model(mesh)
    model.add_part("plate", "shell4", "plate", Material(E=70e9, nu=0.3, rho=2700.0), Section(thickness=0.01))
    if fix:
        model.fix("plate_x0")
    table = build_table(model)
    u = 1e-4 * np.random.default_rng(5).standard_normal(table.n_var)
    return table, Assembler(table).tangent(u)[1]


def test_solver_choice_follows_the_environment(monkeypatch):
    monkeypatch.setenv(pardiso.SOLVER_ENV, "superlu")
    assert not pardiso.use_pardiso(10 ** 7)
    monkeypatch.setenv(pardiso.SOLVER_ENV, "  SuperLU ")
    assert pardiso.sparse_solver_choice() == "superlu"
    monkeypatch.setenv(pardiso.SOLVER_ENV, "mumps")
    with pytest.raises(InputError, match="FEMB_SPARSE_SOLVER='mumps'.*auto, superlu, pardiso"):
        pardiso.use_pardiso(10)
    monkeypatch.delenv(pardiso.SOLVER_ENV)
    assert pardiso.sparse_solver_choice() == "auto"
    assert not pardiso.use_pardiso(pardiso.PARDISO_MIN_EQUATIONS - 1)  # small systems stay with SuperLU
    assert pardiso.use_pardiso(pardiso.PARDISO_MIN_EQUATIONS) == pardiso.pardiso_available()


def test_pardiso_asked_for_but_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setenv(pardiso.SOLVER_ENV, "pardiso")
    monkeypatch.setattr(pardiso, "pardiso_available", lambda: False)
    with pytest.raises(InputError, match="pypardiso is not installed"):
        pardiso.use_pardiso(100)


def test_pardiso_and_superlu_agree_on_a_shell_tangent(monkeypatch):
    pytest.importorskip("pypardiso")
    table, K = plate(8)
    b = np.random.default_rng(1).standard_normal(K.shape[0])
    monkeypatch.setenv(pardiso.SOLVER_ENV, "superlu")
    xs = Factorization(K, table).solve(b)
    monkeypatch.setenv(pardiso.SOLVER_ENV, "pardiso")
    fac = Factorization(K, table)
    assert isinstance(fac._lu, pardiso.PardisoLU) and fac._lu.perturbed_pivots == 0
    xp = fac.solve(b)
    assert np.linalg.norm(K @ xp - b) <= 1e-10 * np.linalg.norm(b)
    assert np.linalg.norm(xp - xs) <= 1e-8 * np.linalg.norm(xs)
    B = np.stack([b, 2.0 * b], axis=1)  # several right-hand sides at once
    X = fac.solve(B)
    assert np.linalg.norm(X[:, 1] - 2.0 * xp) <= 1e-9 * np.linalg.norm(xp)


def test_singular_system_is_diagnosed_as_with_superlu(monkeypatch):
    """An unsupported plate: PARDISO perturbs the zero pivots, femb hands the matrix to
    SuperLU, and the error names the DOFs as it does without PARDISO."""
    pytest.importorskip("pypardiso")
    table, K = plate(4, fix=False)
    monkeypatch.setenv(pardiso.SOLVER_ENV, "pardiso")
    assert not pardiso.PardisoLU(K).reliable
    with pytest.raises(SingularSystemError, match="free DOFs without stiffness") as err:
        Factorization(K, table, context="tangent")
    assert err.value.dofs


def test_dynamic_step_matrices_through_pardiso_give_the_same_motion(monkeypatch):
    """A clamped shell plate struck by a pulse: its step matrix (252 equations, bandwidth
    71 + 71: too wide for the band LU) factorized by PARDISO or by SuperLU gives the same
    motion."""
    pytest.importorskip("pypardiso")
    from femb.solvers import solve_dynamic

    made = []

    class CountedPardisoLU(pardiso.PardisoLU):
        def __init__(self, K):
            super().__init__(K)
            made.append(self.reliable)

    monkeypatch.setattr(pardiso, "PardisoLU", CountedPardisoLU)  # what pardiso_factor builds

    def run(solver):
        monkeypatch.setenv(pardiso.SOLVER_ENV, solver)
        mesh = rectangle_mesh(1.0, 0.6, 6, 6, cells="quad")
        model = Model(mesh)
        model.add_part("plate", "shell4", "plate", Material(E=2e11, nu=0.3, rho=7800.0), Section(thickness=0.01))
        model.fix("plate_x0")
        model.point_load("plate_c11", amplitude=lambda t: np.sin(np.pi * t / 2e-3) ** 2 if t < 2e-3 else 0.0, fz=800.0)
        return solve_dynamic(model, t_end=4e-3, dt=5e-4)

    a = run("superlu")
    assert not made
    b = run("pardiso")
    assert made and all(made)
    ua, ub = a.nodal_displacements(), b.nodal_displacements()
    assert np.abs(ub).max() > 1e-6  # the plate moved
    assert np.linalg.norm(ua - ub) <= 1e-9 * np.linalg.norm(ua)
