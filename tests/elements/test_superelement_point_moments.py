"""The superelement's mass points carried as reduced quantities over consecutive mid-point
steps (elements.superelement_point_moments) against the points themselves: velocity moments
with the weights m_j and m_j², Σ m_j²|v_j|² and the rebuilt velocities equal the
point-by-point recursion v_{j,n+1} = 2(x_{j,n+1} − x_{j,n})/h − v_{j,n} to round-off."""
import numpy as np
import pytest

import femb
from femb.core.rotations import exp_so3
from femb.elements.superelement_point_moments import (
    advance_moments,
    advance_velocity_map,
    point_velocities,
    shifted_moments,
    start_moments,
)
from femb.elements.superelement_step import _moments, _points, _velocity_moments, moment_views
from femb.mesh import line_mesh
from femb.mesh.mesh import Mesh
from femb.model import Model
from femb.solvers.dynamics.superelement_midpoint import _weighted_moments
from femb.solvers.reduction.component import reduce_component

BEAM = dict(EA=1e4, GJ=1.0, EIy=1.0, EIz=1.0, rhoA=1.0, rhoIp=1e-2, rhoIy=5e-3, rhoIz=5e-3)


@pytest.fixture(scope="module")
def row():
    """(property row, m) of a beam3d body (10 elements) reduced on its two end nodes, k = 3."""
    comp = Model(line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 10, "beam"), name="beam")
    comp.add_part("beam", "beam3d", "beam", values=BEAM)
    rc = reduce_component(comp, [comp.node("beam_start"), comp.node("beam_end")], 3, mass="lumped")
    model = Model(Mesh(np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])), name="body")
    model.add_superelement("se", rc, [0, 1])
    block = [b for b in femb.build_table(model).blocks if b.spec.kernels.midpoint_step is not None][0]
    return np.ascontiguousarray(block.props[0]), block.var.shape[1]


def _positions(mass, pos, modes, origin, o, Rs, d):
    """x_j = o + R_s (X_j − X_c + Φ_j d) (n_p, 3)."""
    return o + (pos - origin + modes @ d) @ Rs.T


def test_moments_and_points_follow_the_points_exactly(row):
    """Six steps of random large frame turns, translations and deformations: the carried
    moments equal the moments of the per-point velocities, S = Σ m_j²|v_j|² equals its sum,
    and the rebuilt velocities equal the per-point ones (1e-12 of their size)."""
    p_row, m = row
    mass, pos, modes = (np.asarray(a) for a in _points(p_row, m))
    origin = np.asarray(_moments(p_row, m)[0])
    moments2 = _weighted_moments(p_row, m)
    rng = np.random.default_rng(7)
    n_p = mass.size
    v = rng.standard_normal((n_p, 3))
    P, V, Vd = np.zeros((2, 3)), np.zeros((2, 3, 3)), np.zeros((2, 3, m, 3))
    S = start_moments(p_row, m, v.copy(), P, V, Vd)
    assert S == pytest.approx(float(((mass[:, None] * v) ** 2).sum()), rel=1e-14)

    def frame():
        Rs = np.empty((3, 3))
        exp_so3(rng.standard_normal(3), Rs)
        return rng.standard_normal(3), Rs, 0.1 * rng.standard_normal(m)

    o0, R0, d0 = frame()
    a, B, C = np.zeros(3), np.zeros((3, 3)), np.zeros((3, 3, m))
    A, Bw, Cw = np.zeros(3), np.zeros((3, 3)), np.zeros((3, m, 3))
    v_pts, v_start, sign = v.copy(), v.copy(), 1.0
    for h in (0.01, 0.02, 0.01, 0.05, 0.01, 0.03):
        o1, R1, d1 = frame()
        x0 = _positions(mass, pos, modes, origin, o0, R0, d0)
        x1 = _positions(mass, pos, modes, origin, o1, R1, d1)
        v_pts = 2.0 * (x1 - x0) / h - v_pts
        do, dR, dd = o1 - o0, R1 - R0, d1 - d0
        advance_moments(_moments(p_row, m), do, dR, R0, d1, dd, h, P[0], V[0], Vd[0], A, Bw, Cw)
        xx, xv = advance_moments(moment_views(moments2, 0, m), do, dR, R0, d1, dd, h, P[1], V[1], Vd[1], A, Bw, Cw)
        S += 4.0 / h**2 * xx - 4.0 / h * xv
        advance_velocity_map(do, dR, R0, d1, dd, h, a, B, C)
        sign = -sign
        o0, R0, d0 = o1, R1, d1
        for k, w in enumerate((mass, mass**2)):
            Pr, Vr, Vdr = np.zeros(3), np.zeros((3, 3)), np.zeros((3, m, 3))
            _velocity_moments(w, pos, modes, origin, v_pts, Pr, Vr, Vdr)
            for got, ref in ((P[k], Pr), (V[k], Vr), (Vd[k], Vdr)):
                assert np.abs(got - ref).max() <= 1e-12 * np.abs(ref).max()
        assert S == pytest.approx(float(((mass[:, None] * v_pts) ** 2).sum()), rel=1e-12)
    point_velocities(p_row, m, sign, a, B, C, v_start)
    assert np.abs(v_start - v_pts).max() <= 1e-12 * np.abs(v_pts).max()


def test_shifted_moments_are_the_moments_of_shifted_velocities(row):
    """The moments of v_j + c g from those of v_j equal the moments of the shifted points."""
    p_row, m = row
    mass, pos, modes = (np.asarray(a) for a in _points(p_row, m))
    origin = np.asarray(_moments(p_row, m)[0])
    rng = np.random.default_rng(3)
    v = rng.standard_normal((mass.size, 3))
    g = np.array([0.3, -9.81, 1.2])
    P, V, Vd = np.zeros((2, 3)), np.zeros((2, 3, 3)), np.zeros((2, 3, m, 3))
    start_moments(p_row, m, v, P, V, Vd)
    Pg, Vg, Vdg = np.zeros(3), np.zeros((3, 3)), np.zeros((3, m, 3))
    shifted_moments(p_row, m, P[0], V[0], Vd[0], 0.01, g, Pg, Vg, Vdg)
    Pr, Vr, Vdr = np.zeros(3), np.zeros((3, 3)), np.zeros((3, m, 3))
    _velocity_moments(mass, pos, modes, origin, v + 0.01 * g, Pr, Vr, Vdr)
    for got, ref in ((Pg, Pr), (Vg, Vr), (Vdg, Vdr)):
        assert np.abs(got - ref).max() <= 1e-13 * np.abs(ref).max()
