"""Reuse of the superelement's step matrix within a time step
(femb.solvers.dynamics.point_inertia, ``reuse_step_matrix``): the same steps (to the
Newton tolerance), Newton iteration counts within a few per cent, fewer central-difference
matrices, the energy balance kept."""
import numpy as np
import pytest

import femb
from femb.assembly.element_loop import ElementLoop
from femb.mesh.mesh import Mesh
from femb.model import Model
from femb.solvers import DynamicSettings, NewtonSettings
from femb.solvers.dynamics.point_inertia import PointInertia

from .test_superelement_dynamics import reduced


def spinning_body(rc):
    """The two-node beam superelement pinned at its first node (translations fixed),
    spinning about z with modal rates."""
    model = Model(Mesh(np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])), name="pinned superelement")
    model.add_superelement("se", rc, [0, 1])
    model.fix(0, ("ux", "uy", "uz"))
    table = femb.build_table(model)
    v0 = np.zeros(table.n_var)
    w = np.array([0.2, 0.5, 4.0])
    for a, x in enumerate(([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])):
        vel = np.cross(w, x)
        for d, value in zip(("ux", "uy", "uz", "rx", "ry", "rz"), (*vel, *w)):
            var = table.var_of(a, d)
            if var >= 0:
                v0[var] = value
    v0[table.internal_vars("se")] = [0.05, -0.03]
    return model, v0


@pytest.fixture
def count_kernel_calls(monkeypatch):
    """Calls of the superelement kernel (force and central-difference matrix)."""
    calls = []
    run = ElementLoop.run

    def counted(self, kernel, *args, **kw):
        if kernel == "midpoint_step":
            calls.append(1)
        return run(self, kernel, *args, **kw)
    monkeypatch.setattr(ElementLoop, "run", counted)
    return calls


@pytest.mark.parametrize("h", [1e-3, 2e-2])
def test_reusing_the_step_matrix_gives_the_same_steps_with_fewer_matrices(h, count_kernel_calls, monkeypatch):
    rc = reduced(2)
    out = {}
    for reuse in (False, True):
        monkeypatch.setattr(PointInertia, "reuse_step_matrix", reuse)
        count_kernel_calls.clear()
        model, v0 = spinning_body(rc)
        # the general path, whose element-loop calls are counted (the compiled superelement
        # step makes the same reuse decisions inside one call)
        settings = DynamicSettings(record_every=10, newton=NewtonSettings(tolerance=1e-10), compiled_step=False)
        res = femb.solve_dynamic(model, h, 100 * h, settings, v0=v0)
        out[reuse] = (res, len(count_kernel_calls))
    (r0, k0), (r1, k1) = out[False], out[True]
    assert r1.info["newton_iterations"] <= 1.05 * r0.info["newton_iterations"] + 2  # measured +0 % and +1 %
    assert np.abs(r1.final - r0.final).max() <= 1e-8 * max(1.0, np.abs(r0.final).max())
    E = np.asarray(r1.history["total_energy"])
    assert np.abs(np.asarray(r1.history["energy_residual"])).max() <= 1e-9 * np.abs(E).max()
    assert k0 >= r0.info["newton_iterations"] + r0.info["steps"]  # a matrix at every evaluation
    assert k1 < k0  # ... and fewer with reuse
