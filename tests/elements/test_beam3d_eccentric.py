"""Eccentric sections of the 3-D beams (centroid offset (yc, zc), shear-centre offset
(ys, zs) from the node line): the strains are those of Meijaard's two linked lines to
second order, so the element keeps every property of the plain section (objectivity,
exact tangent, f = ∂V/∂q, geometric stiffness from the resultants) and matches the linked
lines and the closed-form coupled bending–torsion of a cantilever."""
import os
import subprocess
import sys

import numpy as np
import pytest

from femb.elements import beam3d_local, get_spec
from femb.elements.beam3d_corotational import _reference_triad
from femb.model import Material, Section
from tests.elements.test_beam3d import (
    NAMES,
    central_difference,
    config,
    deformed_states,
    energy,
    expm,
    force,
    geometric,
    params,
    positions,
    resultants,
    tangent,
)

OFFSETS = dict(yc=0.05, zc=-0.03, ys=-0.02, zs=0.04)


def eccentric_states(name, seed=7, amplitude=0.4, n=12):
    """``deformed_states`` of test_beam3d with an eccentric section (offsets of 2–5 % of
    the element length, every combination of centroid and shear-centre offset)."""
    X, u, R, p = deformed_states(seed=seed, n=n, amplitude=amplitude, name=name)
    o = p.shape[1] - 6  # (yc, zc, ys, zs), then the mass centre (ym, zm) = 0
    p[:, o:o + 4] = [OFFSETS[k] for k in ("yc", "zc", "ys", "zs")]
    p[1::3, o:o + 2] = 0.0  # shear-centre offset only
    p[2::3, o + 2:o + 4] = 0.0  # centroid offset only
    return X, u, R, p


# --------------------------------------------------------------------------- the strain forms
def test_zero_offsets_reproduce_the_plain_section():
    """Zero offsets skip the offset lines: the kernels give bit for bit what rows without
    offset columns give; and the offset-line composition at d = 0 reproduces the node
    line's strain forms (the identity map) to round-off."""
    for name in NAMES:
        X, u, R, p = deformed_states(seed=2, name=name)
        short = np.ascontiguousarray(p[:, :-6])  # rows without the offset and mass-centre columns
        f, K = tangent(name, X, u, R, p)
        f0, K0 = tangent(name, X, u, R, short)
        assert np.array_equal(f, f0) and np.array_equal(K, K0)
        assert np.array_equal(energy(name, X, u, R, p), energy(name, X, u, R, short))
    Lq, Hq = np.empty((6, 7)), np.empty((6, 7, 7))
    beam3d_local._node_line_forms(1.3, Lq, Hq)
    Lo, Ho = np.empty((6, 7)), np.empty((6, 7, 7))
    work = (np.empty((7, 7)), np.empty((7, 7, 7)), np.empty((7, 7)), np.empty((7, 7)), np.empty(7), np.empty(7))
    beam3d_local._offset_line(1.3, 0.0, 0.0, Lq, Hq, 0, 6, Lo, Ho, *work)
    assert np.abs(Lo - Lq).max() <= 1e-15 and np.abs(Ho - Hq).max() <= 1e-15 * np.abs(Hq).max()


def _linked_energy(name, X, u, R, p):
    """Strain energy of Meijaard's linked lines: a beam with the axial stiffness only on
    the centroid line and one with the torsion, bending (and shear) stiffness only on the
    shear-centre line, their ends rigidly attached to the nodal triads (exact kinematics)."""
    o = p.shape[1] - 6
    out = np.zeros(len(X))
    for cols, zero in (((o, o + 1), (1, 2, 3)), ((o + 2, o + 3), (0,))):
        pl = p.copy()
        pl[:, o:] = 0.0
        pl[:, list(zero)] = 0.0
        Xd, ud = X.copy(), u.copy()
        for e in range(len(X)):
            R0 = np.empty((3, 3))
            _reference_triad(X, p, e, R0)
            d = R0 @ np.array([0.0, p[e, cols[0]], p[e, cols[1]]])
            for a in range(2):
                Xd[e, a] += d
                ud[e, 6 * a:6 * a + 3] += R[e, a] @ d - d
        out += energy(name, Xd, ud, R, pl)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_strains_agree_with_the_linked_lines_to_second_order(name):
    """Deformations of size ε under a large rigid rotation: the strain energies of the
    eccentric section and of the linked lines differ by O(ε⁴) (the strains agree to second
    order, O(ε³) apart), i.e. relatively by O(ε²): 100× less per decade of ε."""
    rng = np.random.default_rng(11)
    X = np.array([[[0.1, 0.2, -0.1], [1.1, 0.5, 0.3]]])
    p = params(name, 1, v=(0.2, 1.0, 0.3), **OFFSETS)
    d = rng.standard_normal(12)
    Q = expm([0.3, -1.2, 2.0])
    rel = []
    for eps in (1e-2, 1e-3):
        x = np.array([X[0, 0] + eps * d[0:3], X[0, 1] + eps * d[6:9]]) @ Q.T
        u = config(X, x[None])
        R = np.array([[Q @ expm(eps * d[3:6]), Q @ expm(eps * d[9:12])]])
        Ve, Vl = energy(name, X, u, R, p)[0], _linked_energy(name, X, u, R, p)[0]
        assert Vl > 0
        rel.append(abs(Ve - Vl) / Vl)
    assert rel[0] < 1e-4  # ε² with a coefficient of order 0.1 at 1 % strain
    assert 60.0 < rel[0] / rel[1] < 160.0


@pytest.mark.parametrize("name", NAMES)
def test_linear_stiffness_equals_the_linked_lines(name):
    """At the reference configuration the stiffness of the eccentric section is the linked
    lines' stiffness (Tᵀ K_line T over both lines, T the rigid offset), to round-off."""
    X = np.array([[[0.1, 0.2, -0.1], [1.1, 0.5, 0.3]]])
    p = params(name, 1, v=(0.2, 1.0, 0.3), **OFFSETS)
    R = np.array([[np.eye(3), np.eye(3)]])
    u = np.zeros((1, 12))
    _, K = tangent(name, X, u, R, p)
    R0 = np.empty((3, 3))
    _reference_triad(X, p, 0, R0)
    o = p.shape[1] - 6
    K_linked = np.zeros((12, 12))
    for cols, zero in (((o, o + 1), (1, 2, 3)), ((o + 2, o + 3), (0,))):
        pl = p.copy()
        pl[:, o:] = 0.0
        pl[:, list(zero)] = 0.0
        d = R0 @ np.array([0.0, p[0, cols[0]], p[0, cols[1]]])
        _, Kl = tangent(name, X + d, u, R, pl)
        T = np.eye(12)
        for a in range(2):  # δx_line = δx − d × w
            T[6 * a:6 * a + 3, 6 * a + 3:6 * a + 6] = -np.array([[0, -d[2], d[1]], [d[2], 0, -d[0]], [-d[1], d[0], 0]])
        K_linked += T.T @ Kl[0] @ T
    assert np.abs(K[0] - K_linked).max() <= 1e-12 * np.abs(K).max()


# --------------------------------------------------------------------------- element properties
@pytest.mark.parametrize("name", NAMES)
def test_rigid_motion_and_objectivity_with_offsets(name):
    """A rigid motion gives zero energy and force; a superposed rotation rotates f and K."""
    X, u, R, p = eccentric_states(name, seed=3, n=6)
    Q = expm([0.4, -2.1, 1.3])
    x0 = X @ Q.T + np.array([0.4, 2.0, -1.0])
    R_rigid = np.broadcast_to(Q, R.shape).copy()
    scale = np.abs(force(name, X, u, R, p)).max()
    assert scale > 0
    assert np.abs(force(name, X, config(X, x0), R_rigid, p)).max() <= 1e-10 * scale
    assert np.abs(energy(name, X, config(X, x0), R_rigid, p)).max() <= 1e-12 * np.abs(energy(name, X, u, R, p)).max()
    xr = positions(X, u) @ Q.T + np.array([0.4, 2.0, -1.0])
    ur, Rr = config(X, xr), np.einsum("ij,eajk->eaik", Q, R)
    f, K = tangent(name, X, u, R, p)
    fr, Kr = tangent(name, X, ur, Rr, p)
    T = np.kron(np.eye(4), Q)
    assert np.allclose(energy(name, X, ur, Rr, p), energy(name, X, u, R, p), rtol=1e-10, atol=0)
    assert np.allclose(fr, f @ T.T, rtol=0, atol=1e-10 * np.abs(f).max())
    assert np.allclose(Kr, T @ K @ T.T, rtol=0, atol=1e-10 * np.abs(K).max())


@pytest.mark.parametrize("name", NAMES)
def test_force_is_the_gradient_and_tangent_the_derivative_with_offsets(name):
    X, u, R, p = eccentric_states(name, seed=5)
    f, K = tangent(name, X, u, R, p)
    g = central_difference(lambda v, Rv: energy(name, X, v, Rv, p)[:, None], u, R, 1e-6)[:, 0, :]
    assert np.abs(f).max() > 0
    assert np.abs(f - g).max() < 1e-6 * np.abs(f).max()
    K_fd = central_difference(lambda v, Rv: force(name, X, v, Rv, p), u, R, 1e-6)
    for e in range(len(X)):
        assert np.abs(K[e] - K_fd[e]).max() < 1e-6 * np.abs(K[e]).max(), e


@pytest.mark.parametrize("name", NAMES)
def test_geometric_stiffness_from_the_resultants_with_offsets(name):
    """tangent − geometric_stiffness(resultants) is the material part (T Gᵀ S G Tᵀ): symmetric,
    positive semidefinite, of rank 6 (the six section strains); K_G is linear in s."""
    X, u, R, p = eccentric_states(name, seed=9)
    _, K = tangent(name, X, u, R, p)
    s = resultants(name, X, u, R, p)
    KG = geometric(name, X, u, R, p, s)
    assert np.abs(KG).max() > 1e-3 * np.abs(K).max()
    assert np.allclose(geometric(name, X, u, R, p, -2.5 * s), -2.5 * KG, rtol=1e-13, atol=1e-14 * np.abs(KG).max())
    for e in range(len(X)):
        Km = K[e] - KG[e]
        scale = np.abs(Km).max()
        assert np.abs(Km - Km.T).max() <= 1e-12 * scale
        ev = np.linalg.eigvalsh(0.5 * (Km + Km.T))
        assert ev.min() >= -1e-12 * ev.max()
        assert np.sum(ev > 1e-9 * ev.max()) == 6, ev


# --------------------------------------------------------------------------- closed forms
def cantilever_tip(name, n, p_row, load, L=2.0):
    """Tip displacements and rotations (6,) of a clamped cantilever of n elements along X
    (section y = global Y) under a small tip load (fx, fy, fz, mx, my, mz), solved by
    Newton on the assembled kernels (linear regime: the load is tiny), and the element
    resultants (n, 8)."""
    X_nodes = np.column_stack([np.linspace(0.0, L, n + 1), np.zeros(n + 1), np.zeros(n + 1)])
    X = np.stack([X_nodes[:-1], X_nodes[1:]], axis=1)
    p = np.tile(p_row, (n, 1))
    nd = 6 * (n + 1)
    U = np.zeros(nd)
    Rn = np.broadcast_to(np.eye(3), (n + 1, 3, 3)).copy()
    F = np.zeros(nd)
    F[-6:] = load
    for _ in range(20):
        u = np.zeros((n, 12))
        for e in range(n):
            u[e, :3], u[e, 6:9] = U[6 * e:6 * e + 3], U[6 * e + 6:6 * e + 9]
        R = np.stack([Rn[:-1], Rn[1:]], axis=1)
        f, K = tangent(name, X, u, R, p)
        fg, Kg = np.zeros(nd), np.zeros((nd, nd))
        for e in range(n):
            fg[6 * e:6 * e + 12] += f[e]
            Kg[6 * e:6 * e + 12, 6 * e:6 * e + 12] += K[e]
        r = (F - fg)[6:]
        if np.abs(r).max() <= 1e-14 * np.abs(F).max():
            break
        dU = np.linalg.solve(Kg[6:, 6:], r)
        for a in range(1, n + 1):
            U[6 * a:6 * a + 3] += dU[6 * a - 6:6 * a - 3]
            Rn[a] = expm(dU[6 * a - 3:6 * a]) @ Rn[a]
            U[6 * a + 3:6 * a + 6] = np.array([Rn[a][2, 1] - Rn[a][1, 2], Rn[a][0, 2] - Rn[a][2, 0],
                                               Rn[a][1, 0] - Rn[a][0, 1]]) / 2  # small rotations
    return U[-6:], resultants(name, X, u, R, p)


@pytest.mark.parametrize("name", NAMES)
def test_eccentric_cantilever_matches_closed_form_bending_torsion(name):
    """Clamped cantilever (length L, node line along X), tip loads through the node line.
    Warping-free theory with the section bending about its shear-centre line and stretching
    along its centroid line (Meijaard 1993, §5.2; e.g. Trahair, Flexural–torsional buckling
    of structures, 1993, ch. 2): a force F_y at the node line is F_y through the shear
    centre plus the torque F_y zs, so

        φ = F_y zs L/GJ,  θz = F_y L²/(2 EIz),  v = F_y L³/(3 EIz) + F_y L/GAy + zs φ,  w = −ys φ

    (the node lies −(ys, zs) from the shear centre: the twist moves it by φ (zs, −ys));
    F_z: φ = −F_z ys L/GJ, w = F_z L³/(3 EIy) + F_z L/GAz − ys φ, v = zs φ,
    θy = −F_z L²/(2 EIy);
    an axial force F_x at the node line acts −(yc, zc) from the centroid: end moments
    My = −zc F_x, Mz = yc F_x bend the beam uniformly, θy = My L/EIy, θz = Mz L/EIz, and
    the node moves u = F_x L/EA − zc θy + yc θz. Two-node elements are exact for these
    polynomial fields, so a tiny load (linear regime: the P-δ and rotation terms are of
    relative size F L²/EI ≈ 1e-8) gives
    the closed form to 1e-7."""
    EA, GJ, EIy, EIz, GAy, GAz = 1e4, 3.0, 5.0, 8.0, 400.0, 300.0
    yc, zc, ys, zs = 0.05, -0.03, -0.02, 0.04
    L = 2.0
    timo = name == "beam3d_timoshenko"
    sy, sz = (L / GAy, L / GAz) if timo else (0.0, 0.0)
    row = params(name, 1, EA=EA, GJ=GJ, EIy=EIy, EIz=EIz, GAy=GAy, GAz=GAz, ys=ys, zs=zs)[0]
    F = 1e-8
    tip, s = cantilever_tip(name, 4, row, [0, F, 0, 0, 0, 0], L)
    # resultants: the torque about the shear centre F zs, the shear force through it (beam2d
    # sign: node 2 applies −Vy r2, so Vy = −F)
    assert np.allclose(s[:, 3], F * zs, rtol=1e-7, atol=0) and np.allclose(s[:, 1], -F, rtol=1e-7, atol=0)
    phi = F * zs * L / GJ
    expected = [0.0, F * L**3 / (3 * EIz) + F * sy + zs * phi, -ys * phi, phi, 0.0, F * L**2 / (2 * EIz)]
    assert np.allclose(tip, expected, rtol=0, atol=1e-7 * np.abs(expected).max())
    tip, s = cantilever_tip(name, 4, row, [0, 0, F, 0, 0, 0], L)
    assert np.allclose(s[:, 3], -F * ys, rtol=1e-7, atol=0)
    phi = -F * ys * L / GJ
    expected = [0.0, zs * phi, F * L**3 / (3 * EIy) + F * sz - ys * phi, phi, -F * L**2 / (2 * EIy), 0.0]
    assert np.allclose(tip, expected, rtol=0, atol=1e-7 * np.abs(expected).max())
    row = params(name, 1, EA=EA, GJ=GJ, EIy=EIy, EIz=EIz, GAy=GAy, GAz=GAz, yc=yc, zc=zc)[0]
    Fx = 1e-8
    th_y, th_z = -zc * Fx * L / EIy, yc * Fx * L / EIz
    expected = [Fx * L / EA - zc * th_y + yc * th_z, th_z * L / 2, -th_y * L / 2, 0.0, th_y, th_z]
    tip, s = cantilever_tip(name, 4, row, [Fx, 0, 0, 0, 0, 0], L)
    # resultants: N along the centroid line, bending moments about the centroid axes
    # (My2 = EIy κy = −zc F_x, Mz2 = yc F_x), no torque
    assert np.allclose(s[:, 0], Fx, rtol=1e-7, atol=0)
    assert np.allclose(s[:, [6, 7]], [-zc * Fx, yc * Fx], rtol=1e-6, atol=0)
    assert np.abs(s[:, 3]).max() <= 1e-9 * Fx * abs(zc)
    assert np.allclose(tip, expected, rtol=0, atol=1e-7 * np.abs(expected).max())


# --------------------------------------------------------------------------- input
def test_section_offsets_become_element_parameters():
    mat = Material(E=200.0, nu=0.25)
    sec = Section(A=2.0, Iy=0.5, Iz=0.25, J=0.6, shear_factor=0.8, centroid=(0.01, -0.02), shear_centre=(0.0, 0.03))
    for name in NAMES:
        spec = get_spec(name)
        row = dict(zip(spec.params, spec.property_row(mat, sec)))
        assert (row["yc"], row["zc"], row["ys"], row["zs"]) == (0.01, -0.02, 0.0, 0.03)
    assert Section(A=1.0, centroid=(0.0, 1.0, 2.0)).problems()
    for rho, centre in ((1.0, (0.01, -0.02)), (0.0, (0.0, 0.0))):  # with a density the mass centre is the centroid
        row = dict(zip(get_spec("beam3d").params, get_spec("beam3d").property_row(Material(E=200.0, nu=0.25, rho=rho), sec)))
        assert (row["ym"], row["zm"]) == centre


@pytest.mark.slow
def test_subprocess_runs_this_file_and_the_midpoint_tests_without_jit():
    """The eccentric-section kernels also run as plain Python (NUMBA_DISABLE_JIT=1) and pass
    the same tests, with the mid-point kernel's (about 20 s)."""
    here = os.path.abspath(__file__)
    root = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", here,
                           os.path.join(os.path.dirname(here), "test_beam3d_midpoint.py"), "-k", "not subprocess"],
                          env=env, cwd=root, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
