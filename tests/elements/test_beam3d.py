"""The 3-D co-rotational beam elements (beam3d, beam3d_timoshenko): rigid motions,
objectivity, exact derivatives under multiplicative rotation perturbations, mass, the
numpy reference, Meijaard's linear buckling tables and a roll-up to a full circle."""
import os
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.linalg as sla

from femb.core.rotations import spin_update
from femb.elements import get_spec
from femb.elements.loads3d import follower_moment, follower_moment_stiffness, semitangential_moment, semitangential_moment_stiffness
from femb.model import Material, Section
from tests.elements import beam3d_reference as ref
from tests.elements.oriented_states import central_difference, expm, rigid_modes

NAMES = ["beam3d", "beam3d_timoshenko"]
EA, GJ, EIY, EIZ, RHOA, RHOIP, RHOIY, RHOIZ, GAY, GAZ = 1.0e3, 3.0, 5.0, 8.0, 2.0, 0.1, 0.04, 0.06, 400.0, 300.0
NO_JIT = os.environ.get("NUMBA_DISABLE_JIT") == "1"


def params(name, n, v=(0.0, 0.0, 0.0), **kw):
    """(n, n_params) property rows; keyword arguments override single columns."""
    vals = dict(EA=EA, GJ=GJ, EIy=EIY, EIz=EIZ, rhoA=RHOA, rhoIp=RHOIP, rhoIy=RHOIY, rhoIz=RHOIZ,
                vx=v[0], vy=v[1], vz=v[2], GAy=GAY, GAz=GAZ, yc=0.0, zc=0.0, ys=0.0, zs=0.0, ym=0.0, zm=0.0)
    vals.update(kw)
    row = [vals[k] for k in get_spec(name).params]
    return np.tile(np.array(row, dtype=float), (n, 1))


def kernels(name):
    return get_spec(name).kernels


def force(name, X, u, R, p):
    f = np.zeros(u.shape)
    kernels(name).internal_force(X, u, R, p, f)
    return f


def tangent(name, X, u, R, p):
    f, K = np.zeros(u.shape), np.zeros(u.shape + (12,))
    kernels(name).tangent(X, u, R, p, f, K)
    return f, K


def resultants(name, X, u, R, p):
    s = np.zeros((len(u), 8))
    kernels(name).resultants(X, u, R, p, s)
    return s


def energy(name, X, u, R, p):
    e = np.zeros(len(u))
    kernels(name).strain_energy(X, u, R, p, e)
    return e


def geometric(name, X, u, R, p, s):
    K = np.zeros(u.shape + (12,))
    kernels(name).geometric_stiffness(X, u, R, p, s, K)
    return K


def mass(name, X, u, R, p, kind):
    M = np.zeros(u.shape + (12,))
    kernels(name).mass(X, u, R, p, kind, M)
    return M


def config(X, x):
    """Element DOFs u (n, 12) of current nodal positions x (n, 2, 3) (rotational slots 0)."""
    u = np.zeros((len(X), 12))
    u[:, 0:3], u[:, 6:9] = x[:, 0] - X[:, 0], x[:, 1] - X[:, 1]
    return u


def positions(X, u):
    return X + np.stack([u[:, 0:3], u[:, 6:9]], axis=1)


def random_elements(rng, n):
    """Reference coordinates (n, 2, 3) of elements with random direction and length."""
    x1 = rng.uniform(-1, 1, (n, 3))
    d = rng.normal(size=(n, 3))
    d *= rng.uniform(0.5, 2.0, (n, 1)) / np.linalg.norm(d, axis=1)[:, None]
    d[0] = [0.0, 0.0, 1.3]  # vertical: default section axis e_Y
    d[1] = [1.0, 0.0, 0.0]
    return np.stack([x1, x1 + d], axis=1)


def deformed_states(seed=7, n=12, amplitude=0.4, name="beam3d"):
    """Seeded random deformed elements under large rigid rotations: X (n, 2, 3),
    u (n, 12), R (n, 2, 3, 3), p. Deformation: stretch ±5 %, end translations of 5 %
    of l0 and local rotations of about ``amplitude`` rad; half of the elements have an
    explicit section orientation, the others the default."""
    rng = np.random.default_rng(seed)
    X = random_elements(rng, n)
    p = params(name, n)
    p[::2, 8:11] = rng.normal(size=(len(p[::2]), 3))
    u, R = np.zeros((n, 12)), np.zeros((n, 2, 3, 3))
    for e in range(n):
        Q = expm(rng.normal(size=3) * 2.5)
        l0 = np.linalg.norm(X[e, 1] - X[e, 0])
        x = (X[e] - X[e, 0]) * rng.uniform(0.95, 1.05) + 0.05 * l0 * rng.normal(size=(2, 3))
        x = x @ Q.T + rng.normal(size=3)
        u[e] = config(X[e:e + 1], x[None])[0]
        R[e] = [Q @ expm(amplitude * rng.normal(size=3)) for _ in range(2)]
    return X, u, R, p


# --------------------------------------------------------------------------- spec and properties
@pytest.mark.parametrize("name", NAMES)
def test_spec_declares_the_contract(name):
    spec = get_spec(name)
    assert (spec.name, spec.cell_type, spec.n_nodes, spec.dim, spec.oriented) == (name, "line", 2, 3, True)
    assert spec.node_dofs == ("ux", "uy", "uz", "rx", "ry", "rz") and spec.n_edof == 12
    assert spec.resultant_names == ("N", "Vy", "Vz", "T", "My1", "Mz1", "My2", "Mz2")
    assert spec.params[:11] == ("EA", "GJ", "EIy", "EIz", "rhoA", "rhoIp", "rhoIy", "rhoIz", "vx", "vy", "vz")
    assert spec.params[11:] == (("GAy", "GAz") if name == "beam3d_timoshenko" else ()) + ("yc", "zc", "ys", "zs", "ym", "zm")
    assert spec.constant_mass == ()
    assert spec.kernels.midpoint_force is not None and spec.kernels.damping is None  # energy-momentum dynamics


def test_properties_from_material_and_section():
    mat = Material(E=200.0, nu=0.25, rho=3.0)
    sec = Section(A=2.0, Iy=0.5, Iz=0.25, J=0.6, shear_factor=0.8)
    row = get_spec("beam3d").property_row(mat, sec)
    assert np.array_equal(row, [400.0, 80.0 * 0.6, 100.0, 50.0, 6.0, 2.25, 1.5, 0.75, 0.0, 0.0, 0.0] + [0.0] * 6)
    oriented = SimpleNamespace(A=2.0, second_moment_y=0.5, second_moment_z=0.25, J=0.6, Ip=0.9, shear_factor=0.8,
                               orientation=(0.0, 0.0, 2.0))
    row = get_spec("beam3d_timoshenko").property_row(mat, oriented)
    assert row[5] == pytest.approx(2.7, rel=1e-15) and row[8:13] == pytest.approx([0.0, 0.0, 2.0, 128.0, 128.0], rel=1e-15)
    direct = get_spec("beam3d").property_row(None, None, dict(zip(get_spec("beam3d").params[:8], range(1, 9))))
    assert np.array_equal(direct[8:], [0.0] * 9)  # orientation, offsets and mass centre default to zeros


@pytest.mark.parametrize("name, mat, sec, fragment", [
    ("beam3d", Material(E=1.0, G=0.4), Section(A=1.0, I=1.0), "J"),
    ("beam3d", Material(E=1.0, G=0.4), Section(A=1.0, Iz=1.0, J=1.0), "Iy"),
    ("beam3d", Material(E=1.0), Section(A=1.0, I=1.0, J=1.0), "G"),
    ("beam3d_timoshenko", Material(E=1.0, G=0.4), Section(A=1.0, I=1.0, J=1.0), "shear_factor"),
])
def test_missing_property_is_named(name, mat, sec, fragment):
    with pytest.raises((KeyError, ValueError), match=fragment):
        get_spec(name).property_row(mat, sec)


@pytest.mark.parametrize("direction, v, load, bending_EI", [
    ((1.0, 0.0, 0.0), (0, 0, 0), (0.0, 1.0, 0.0), EIZ),  # XY plane: in-plane bending about local z
    ((0.0, 1.0, 0.0), (0, 0, 0), (1.0, 0.0, 0.0), EIZ),
    ((0.6, -0.8, 0.0), (0, 0, 0), (0.8, 0.6, 0.0), EIZ),
    ((0.6, -0.8, 0.0), (0, 0, 0), (0.0, 0.0, 1.0), EIY),
    ((0.6, -0.8, 0.0), (0, 0, 3), (0.8, 0.6, 0.0), EIY),  # section y along Z
    ((0.6, -0.8, 0.0), (1.22, 0.04, 0.0), (0.8, 0.6, 0.0), EIZ),  # v made orthogonal to the axis
    ((0.0, 0.0, 1.0), (0, 0, 0), (0.0, 1.0, 0.0), EIZ),  # vertical: section y = e_Y
    ((0.0, 0.0, 1.0), (0, 0, 0), (1.0, 0.0, 0.0), EIY),
])
def test_section_orientation_selects_the_bending_stiffness(direction, v, load, bending_EI):
    """Tip load on a one-element cantilever (Euler–Bernoulli: exact): P L³/(3 EI)."""
    d, load = np.array(direction), np.array(load)
    X = np.array([[[0.2, 0.1, -0.3], [0.2, 0.1, -0.3] + 1.7 * d]])
    _, K = tangent("beam3d", X, np.zeros((1, 12)), np.array([np.eye(3)] * 2)[None], params("beam3d", 1, v=v))
    disp = np.linalg.solve(K[0, 6:, 6:], np.concatenate([load, np.zeros(3)]))
    assert disp[:3] == pytest.approx(1.7**3 / (3 * bending_EI) * load, rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("GA", [GAY, 1e-3 * GAY])
def test_timoshenko_cantilever_adds_the_exact_shear_deflection(GA):
    """One element, tip loads along local y and z: P L³/(3 EI) + P L/(GA) (no locking)."""
    L = 1.3
    X = np.array([[[0.0, 0.0, 0.0], [L, 0.0, 0.0]]])
    p = params("beam3d_timoshenko", 1, GAy=GA, GAz=0.5 * GA)
    _, K = tangent("beam3d_timoshenko", X, np.zeros((1, 12)), np.array([np.eye(3)] * 2)[None], p)
    disp = np.linalg.solve(K[0, 6:, 6:], np.eye(6)[:, 1:3])
    assert disp[1, 0] == pytest.approx(L**3 / (3 * EIZ) + L / GA, rel=1e-12)
    assert disp[2, 1] == pytest.approx(L**3 / (3 * EIY) + L / (0.5 * GA), rel=1e-12)


# --------------------------------------------------------------------------- rigid motions
RIGID = [0.0, np.pi / 2, np.radians(179.0), np.pi, np.radians(181.0), 6 * np.pi + 0.3, -6 * np.pi]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("angle", RIGID)
def test_rigid_motion_gives_zero_force_energy_and_resultants(name, angle):
    """Rigid rotations about the element axis, about random axes and of many turns."""
    rng = np.random.default_rng(1)
    X = random_elements(rng, 8)
    p = params(name, len(X))
    p[1::2, 8:11] = rng.normal(size=(4, 3))
    u, R = np.zeros((len(X), 12)), np.zeros((len(X), 2, 3, 3))
    for e in range(len(X)):
        axis = X[e, 1] - X[e, 0] if e < 4 else rng.normal(size=3)
        Q = expm(angle * axis / np.linalg.norm(axis))
        u[e] = config(X[e:e + 1], (X[e:e + 1] @ Q.T) + rng.normal(size=3))[0]
        R[e] = Q
    assert np.abs(force(name, X, u, R, p)).max() < 1e-10 * EA
    assert np.abs(resultants(name, X, u, R, p)).max() < 1e-10 * EA
    assert np.abs(energy(name, X, u, R, p)).max() < 1e-20 * EA


@pytest.mark.parametrize("name", NAMES)
def test_small_deformation_gives_the_linear_beam_through_any_rotation(name):
    """Under rigid rotations (about the axis by 3 turns, by 179°, random) a deformation of
    size 1e-7 gives the resultants of the linear beam, independent of the rotation."""
    X = np.array([[[0.0, 0.0, 0.0], [1.5, 0.0, 0.0]]] * 3)
    l0, eps = 1.5, 1e-7
    # local deformation: stretch, end rotations (about the element axes)
    d = np.array([0.3, 0.7, -0.4, 0.2, -0.5, 0.9, 0.6])
    x_loc = np.array([[0.0, 0.0, 0.0], [l0 + eps * d[0], 0.0, 0.0]])
    R_loc = np.array([expm(eps * d[1:4]), expm(eps * d[4:7])])
    Qs = [expm([6 * np.pi, 0.0, 0.0]), expm(np.radians(179) * np.array([0.0, 0.6, 0.8])), expm([2.0, -1.0, 0.5])]
    x = np.array([x_loc @ Q.T for Q in Qs])
    R = np.array([Q @ R_loc for Q in Qs])
    p = params(name, 3)
    s = resultants(name, X, config(X, x), R, p) / eps
    S = ref.section_matrix(p[0], l0)
    sig = S @ ref.strain_forms(l0)[0] @ np.concatenate([[d[0]], d[1:4], d[4:7]])
    expected = np.array([sig[0], (sig[5] - sig[4]) / l0, (sig[2] - sig[3]) / l0, sig[1], -sig[2], -sig[4], sig[3], sig[5]])
    for e in range(3):
        assert np.allclose(s[e], expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("angle", [np.pi / 2, np.radians(179.0), np.pi, 6 * np.pi + 0.2, -13.0])
def test_superposed_rigid_rotation_rotates_forces_and_tangent(name, angle):
    """Objectivity: x → Q x, R → Q R gives the same energy and resultants, f → Q f and
    K → Q K Qᵀ (block-diagonal Q)."""
    X, u, R, p = deformed_states(seed=3, n=8, name=name)
    axis = np.array([0.2, -0.9, 0.4])
    Q = expm(angle * axis / np.linalg.norm(axis))
    xr = positions(X, u) @ Q.T + np.array([0.4, 2.0, -1.0])
    ur, Rr = config(X, xr), np.einsum("ij,eajk->eaik", Q, R)
    f, K = tangent(name, X, u, R, p)
    fr, Kr = tangent(name, X, ur, Rr, p)
    T = np.kron(np.eye(4), Q)
    assert np.allclose(energy(name, X, ur, Rr, p), energy(name, X, u, R, p), rtol=1e-10, atol=0)
    assert np.allclose(resultants(name, X, ur, Rr, p), resultants(name, X, u, R, p), rtol=0, atol=1e-10 * np.abs(f).max())
    assert np.allclose(fr, f @ T.T, rtol=0, atol=1e-10 * np.abs(f).max())
    assert np.allclose(Kr, T @ K @ T.T, rtol=0, atol=1e-10 * np.abs(K).max())


# --------------------------------------------------------------------------- derivatives
@pytest.mark.parametrize("name", NAMES)
def test_internal_force_is_the_gradient_of_the_strain_energy(name):
    X, u, R, p = deformed_states(seed=6, name=name)
    f = force(name, X, u, R, p)
    g = central_difference(lambda v, Rv: energy(name, X, v, Rv, p)[:, None], u, R, 1e-6)[:, 0, :]
    assert np.all(np.asarray(np.abs(f).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(f - g).max() < 1e-6 * np.abs(f).max()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed, amplitude", [(5, 0.4), (3, 0.8)])
def test_tangent_is_the_derivative_of_the_internal_force(name, seed, amplitude):
    """Exact derivative under multiplicative rotation perturbations, for local rotations
    up to 1.1 rad (amplitude 0.4) and 1.9 rad (0.8)."""
    X, u, R, p = deformed_states(seed=seed, amplitude=amplitude, name=name)
    f, K = tangent(name, X, u, R, p)
    assert np.array_equal(f, force(name, X, u, R, p))
    K_fd = central_difference(lambda v, Rv: force(name, X, v, Rv, p), u, R, 1e-6)
    for e in range(len(X)):
        assert np.all(np.asarray(np.abs(K[e]).max()) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(K[e] - K_fd[e]).max() < 1e-6 * np.abs(K[e]).max(), e


@pytest.mark.parametrize("name", NAMES)
def test_tangent_is_a_symmetric_hessian_plus_half_the_nodal_moment_skew(name):
    """K − Kᵀ = −m̂ on the rotational block of each node (m = the moment entries of f),
    the non-commutativity of spatial spins; zero elsewhere."""
    X, u, R, p = deformed_states(seed=4, name=name)
    f, K = tangent(name, X, u, R, p)
    for e in range(len(X)):
        skew = np.zeros((12, 12))
        for a in range(2):
            skew[6 * a + 3:6 * a + 6, 6 * a + 3:6 * a + 6] = -ref.hat(f[e, 6 * a + 3:6 * a + 6])
        assert np.allclose(K[e] - K[e].T, skew, rtol=0, atol=1e-12 * np.abs(K[e]).max())


@pytest.mark.parametrize("name", NAMES)
def test_tangent_splits_into_material_and_geometric_parts(name):
    X, u, R, p = deformed_states(seed=9, name=name)
    _, K = tangent(name, X, u, R, p)
    s = resultants(name, X, u, R, p)
    KG = geometric(name, X, u, R, p, s)
    Kmat = ref.batch(ref.material_stiffness, X, u, R, p)
    assert np.allclose(K - KG, Kmat, rtol=0, atol=1e-12 * np.abs(K).max())
    assert np.abs(KG).max() > 1e-3 * np.abs(K).max()
    assert np.allclose(geometric(name, X, u, R, p, -2.5 * s), -2.5 * KG, rtol=1e-13, atol=1e-14 * np.abs(KG).max())
    s_shear = s.copy()
    s_shear[:, 1:3] = 7.0  # Vy, Vz are not used
    assert np.array_equal(geometric(name, X, u, R, p, s_shear), KG)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("angle", [0.0, np.radians(179.0), 6 * np.pi])
def test_unstressed_tangent_has_exactly_the_rigid_body_null_space(name, angle):
    rng = np.random.default_rng(2)
    X = random_elements(rng, 5)
    p = params(name, len(X))
    u, R = np.zeros((len(X), 12)), np.zeros((len(X), 2, 3, 3))
    for e in range(len(X)):
        axis = X[e, 1] - X[e, 0] if e % 2 else rng.normal(size=3)
        Q = expm(angle * axis / np.linalg.norm(axis))
        u[e], R[e] = config(X[e:e + 1], X[e:e + 1] @ Q.T)[0], Q
    _, K = tangent(name, X, u, R, p)
    for e in range(len(X)):
        assert np.allclose(K[e], K[e].T, rtol=0, atol=1e-12 * np.abs(K[e]).max())
        w, V = np.linalg.eigh(K[e])
        null = np.abs(w) < 1e-10 * np.abs(w).max()
        assert null.sum() == 6, w
        assert w[~null].min() > 0
        T = rigid_modes(positions(X, u)[e])
        assert np.all(np.asarray(np.abs(K[e]).max()) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(K[e] @ T).max() < 1e-10 * np.abs(K[e]).max()


@pytest.mark.parametrize("name", NAMES)
def test_stressed_tangent_annihilates_translations_and_rotates_the_force(name):
    """d/dε f(exp(ε ω̂)·config) = ω × f blockwise (forces turn with a rigid rotation)."""
    X, u, R, p = deformed_states(seed=11, name=name)
    f, K = tangent(name, X, u, R, p)
    for e in range(len(X)):
        T = rigid_modes(positions(X, u)[e])
        scale = np.abs(K[e]).max()
        assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(K[e] @ T[:, :3]).max() < 1e-12 * scale
        for k in range(3):
            omega = np.eye(3)[k]
            turned = np.concatenate([np.cross(omega, f[e, 3 * b:3 * b + 3]) for b in range(4)])
            assert np.allclose(K[e] @ T[:, 3 + k], turned, rtol=0, atol=1e-11 * scale)


# --------------------------------------------------------------------------- reference
@pytest.mark.parametrize("name", NAMES)
def test_kernels_equal_the_numpy_reference(name):
    X, u, R, p = deformed_states(seed=13, name=name)
    f, K = tangent(name, X, u, R, p)
    tol = dict(rtol=1e-11, atol=1e-11 * EA)
    assert np.allclose(f, ref.batch(ref.internal_force, X, u, R, p), **tol)
    assert np.allclose(K, ref.batch(lambda *a: ref.tangent(*a)[1], X, u, R, p), **tol)
    s = ref.batch(ref.resultants, X, u, R, p)
    assert np.allclose(resultants(name, X, u, R, p), s, **tol)
    assert np.allclose(energy(name, X, u, R, p), ref.batch(ref.strain_energy, X, u, R, p), rtol=1e-11, atol=1e-14)
    KG_ref = np.array([ref.geometric_stiffness(X[e], u[e], R[e], p[e], s[e]) for e in range(len(X))])
    assert np.allclose(geometric(name, X, u, R, p, s), KG_ref, **tol)
    for kind in (0, 1, 2):
        assert np.allclose(mass(name, X, u, R, p, kind), ref.batch(ref.mass, X, u, R, p, kind), rtol=1e-12, atol=1e-14)


# --------------------------------------------------------------------------- mass
@pytest.mark.parametrize("kind", [0, 1, 2])
def test_mass_gives_the_exact_total_mass_and_axial_rotary_inertia(kind):
    X, u, R, p = deformed_states(seed=17)
    M = mass("beam3d", X, u, R, p, kind)
    x = positions(X, u)
    l0 = np.linalg.norm(X[:, 1] - X[:, 0], axis=1)
    assert np.allclose(M, M.transpose(0, 2, 1), rtol=0, atol=1e-15)
    assert np.linalg.eigvalsh(M).min() > 0
    for e in range(len(X)):
        T = rigid_modes(x[e])[:, :3]
        assert np.allclose(T.T @ M[e] @ T, RHOA * l0[e] * np.eye(3), rtol=0, atol=1e-13 * RHOA * l0[e])
        # spin of both nodes about their section x axes (kinds 0, 2: lumped ρIp l0/2 each) or
        # about the chord (kind 1: linear torsion interpolation): ρIp l0
        if kind == 1:
            axes = [(x[e, 1] - x[e, 0]) / np.linalg.norm(x[e, 1] - x[e, 0])] * 2
        else:
            axes = [(R[e, a] @ ref.reference_triad(X[e], p[e]))[:, 0] for a in range(2)]
        w = np.concatenate([np.zeros(3), axes[0], np.zeros(3), axes[1]])
        assert w @ M[e] @ w == pytest.approx(RHOIP * l0[e], rel=1e-12)


@pytest.mark.parametrize("kind, translational", [(0, 1 / 4), (1, 1 / 12), (2, 1 / 12)])
def test_rotary_inertia_about_a_transverse_axis_through_the_centre(kind, translational):
    """Undeformed element rotated rigidly: ρA l³/12 + ρIz l (consistent, invariant) and
    ρA l³/4 + ρIz l (lumped) about the section z axis."""
    l0 = 1.7
    X = np.array([[[0.0, 0.0, 0.0], [l0, 0.0, 0.0]]])
    Q = expm([0.4, -2.2, 1.0])
    x = X @ Q.T + 0.3
    R = np.array([[Q, Q]])
    M = mass("beam3d", X, config(X, x), R, params("beam3d", 1), kind)[0]
    omega = Q[:, 2]  # section z axis (default orientation: global Z)
    c = x[0].mean(axis=0)
    w = np.concatenate([np.cross(omega, x[0, 0] - c), omega, np.cross(omega, x[0, 1] - c), omega])
    assert w @ M @ w == pytest.approx(translational * RHOA * l0**3 + RHOIZ * l0, rel=1e-12)


def test_lumped_rotary_inertia_turns_with_the_nodal_triad():
    X = np.array([[[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]]])
    R = np.array([[expm([0.3, 1.0, -0.2]), expm([2.5, 0.0, 1.0])]])
    M = mass("beam3d", X, np.zeros((1, 12)), R, params("beam3d", 1), 0)[0]
    for a in range(2):
        expected = R[0, a] @ np.diag([RHOIP, RHOIY, RHOIZ]) @ R[0, a].T
        assert np.allclose(M[6 * a + 3:6 * a + 6, 6 * a + 3:6 * a + 6], expected, rtol=1e-14, atol=1e-16)


def test_unknown_mass_kind_is_rejected():
    X, u, R, p = deformed_states(n=2)
    with pytest.raises(ValueError, match="kind"):
        mass("beam3d", X, u, R, p, 3)


# --------------------------------------------------------------------------- applied moments
def test_semitangential_and_follower_moment_load_stiffness():
    """K_L = −∂F/∂w by differences at a finite rotation; ½ M̂ at the identity; the
    semitangential force is the gradient of M·log R."""
    M = np.array([0.7, -1.1, 0.4])
    R = expm([0.5, -1.0, 0.8])
    h = 1e-6
    for force_fn, stiff_fn in ((semitangential_moment, semitangential_moment_stiffness),
                               (follower_moment, follower_moment_stiffness)):
        fd = np.column_stack([(force_fn(M, expm(h * e) @ R) - force_fn(M, expm(-h * e) @ R)) / (2 * h) for e in np.eye(3)])
        assert np.allclose(stiff_fn(M, R), -fd, rtol=0, atol=1e-8)
    assert np.allclose(semitangential_moment_stiffness(M), 0.5 * ref.hat(M), rtol=0, atol=1e-15)
    grad = [(M @ ref.logm(expm(h * e) @ R) - M @ ref.logm(expm(-h * e) @ R)) / (2 * h) for e in np.eye(3)]
    assert np.allclose(semitangential_moment(M, R), grad, rtol=0, atol=1e-8)


# --------------------------------------------------------------------------- buckling (Meijaard 1993)
def cantilever(n, L=1.0):
    """Reference coordinates (n, 2, 3) of a cantilever along X, node 0 at the origin."""
    xs = np.linspace(0.0, L, n + 1)
    X = np.zeros((n, 2, 3))
    X[:, 0, 0], X[:, 1, 0] = xs[:-1], xs[1:]
    return X


def gather(U, Rn, n):
    """Element arrays u (n, 12), R (n, 2, 3, 3) from nodal translations U (n+1, 3) and
    rotations Rn (n+1, 3, 3)."""
    u = np.zeros((n, 12))
    u[:, 0:3], u[:, 6:9] = U[:-1], U[1:]
    return u, np.stack([Rn[:-1], Rn[1:]], axis=1)


def assemble(Ke, n):
    K = np.zeros((6 * (n + 1), 6 * (n + 1)))
    for e in range(n):
        K[6 * e:6 * e + 12, 6 * e:6 * e + 12] += Ke[e]
    return K


def linear_buckling(name, n, p_row, load_dof, end_moment=None):
    """Smallest positive λ of (K0 + λ (K_G + K_L)) φ = 0 for a cantilever of n elements
    (clamped at node 0) under a unit tip load in DOF ``load_dof`` of the last node; K_G
    from the resultants of the linear pre-solve; K_L the semitangential load stiffness
    of ``end_moment`` (3,) when given."""
    X, p = cantilever(n), np.tile(p_row, (n, 1))
    nd = 6 * (n + 1)
    I = np.array([np.eye(3)] * (n + 1))
    u0, R0 = gather(np.zeros((n + 1, 3)), I, n)
    K0 = assemble(tangent(name, X, u0, R0, p)[1], n)
    F = np.zeros(nd)
    F[6 * n + load_dof] = 1.0
    U = np.zeros(nd)
    U[6:] = np.linalg.solve(K0[6:, 6:], F[6:])

    def res(eps):
        nodal = eps * U.reshape(-1, 6)
        return resultants(name, X, *gather(nodal[:, :3], np.array([expm(w) for w in nodal[:, 3:]]), n), p)

    eps = 1e-6 / np.abs(U).max()
    s = (res(eps) - res(-eps)) / (2 * eps)
    KG = assemble(geometric(name, X, u0, R0, p, s), n)
    if end_moment is not None:
        KG[6 * n + 3:6 * n + 6, 6 * n + 3:6 * n + 6] += semitangential_moment_stiffness(end_moment)
    assert np.allclose(KG[6:, 6:], KG[6:, 6:].T, rtol=0, atol=1e-9 * np.abs(KG).max())
    lam = sla.eigvals(K0[6:, 6:], -KG[6:, 6:])
    lam = lam[np.isfinite(lam)]
    lam = lam[(np.abs(lam.imag) <= 1e-9 * np.abs(lam)) & (lam.real > 0)].real
    return lam.min()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("EIstrong, GJ_, EA_", [(1.0e4, 1.3, 1.0e7), (1.0e3, 0.4, 1.0e5)])
def test_lateral_buckling_of_a_cantilever_reproduces_meijaard_table_1(name, EIstrong, GJ_, EA_):
    """Tip force in the stiff plane (Z, bending about local y); lateral–torsional buckling
    F_th = 4.0126 √(EIz GJ)/l² with EIz = 1; shear rigid (GA huge for Timoshenko)."""
    p = params(name, 1, EA=EA_, GJ=GJ_, EIy=EIstrong, EIz=1.0, GAy=1e14, GAz=1e14)[0]
    F_th = 4.0126 * np.sqrt(1.0 * GJ_)
    for n, expected in ((1, 1.4951), (2, 1.0690), (4, 1.0153)):
        assert linear_buckling(name, n, p, 2) / F_th == pytest.approx(expected, abs=5e-4), n


@pytest.mark.parametrize("name", NAMES)
def test_torsional_buckling_under_a_semitangential_torque_reproduces_meijaard_table_2(name):
    """Circular shaft (EIy = EIz = EI) under a semitangential end torque: M_th = π EI/l."""
    EI = 2.0
    p = params(name, 1, EA=1e7, GJ=1.5, EIy=EI, EIz=EI, GAy=1e14, GAz=1e14)[0]
    for n, expected in ((1, 1.1027), (2, 1.0075), (4, 1.0005)):
        lam = linear_buckling(name, n, p, 3, end_moment=np.array([1.0, 0.0, 0.0]))
        assert lam / (np.pi * EI) == pytest.approx(expected, abs=2e-4), n


# --------------------------------------------------------------------------- roll-up
def assemble_vector(f, n):
    out = np.zeros(6 * (n + 1))
    for e in range(n):
        out[6 * e:6 * e + 12] += f[e]
    return out


def roll_up(name, n, moment, steps, L=1.0):
    """Static Newton solution (multiplicative rotation updates R ← exp(δŵ) R) of a
    cantilever along X (clamped at node 0) under a fixed end moment ``moment`` (3,),
    applied in ``steps`` equal increments. Returns the nodal positions (n+1, 3) and
    rotations (n+1, 3, 3) and the largest Newton iteration count of a step."""
    X, p = cantilever(n, L), params(name, n)
    U, Rn = np.zeros((n + 1, 3)), np.array([np.eye(3)] * (n + 1))
    F = np.zeros(6 * (n + 1))
    most = 0
    for step in range(1, steps + 1):
        F[6 * n + 3:6 * n + 6] = moment * step / steps
        for it in range(30):
            f, K = tangent(name, X, *gather(U, Rn, n), p)
            r = assemble_vector(f, n) - F
            if np.abs(r[6:]).max() < 1e-10 * np.abs(moment).max():
                break
            dz = np.zeros(6 * (n + 1))
            dz[6:] = np.linalg.solve(assemble(K, n)[6:, 6:], -r[6:])
            dz = dz.reshape(-1, 6)
            U += dz[:, :3]
            spin_update(Rn, np.ascontiguousarray(dz[:, 3:]))
        else:
            raise AssertionError("Newton did not converge")
        most = max(most, it)
    x = np.linspace(0.0, L, n + 1)[:, None] * np.array([1.0, 0.0, 0.0]) + U
    return x, Rn, most


@pytest.mark.skipif(NO_JIT, reason="slow without compilation; the kernels are covered above")
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("axis", [1, 2])
def test_end_moment_rolls_the_cantilever_into_a_circle(name, axis):
    """M = 2π EI/L about global Y (EIy) or Z (EIz) closes the beam into a full circle:
    every node on the exact circle within 0.1 h² (observed O(h⁴): the ē1 refinement is
    the arc-length correction), the tip rotation a full turn, quadratic Newton steps."""
    EI = EIY if axis == 1 else EIZ
    bend = np.eye(3)[axis]
    normal = np.cross(bend, [1.0, 0.0, 0.0])  # direction in which the tip leaves the axis
    errors = []
    for n in (4, 8):
        x, Rn, iters = roll_up(name, n, 2 * np.pi * EI * bend, steps=2 * n)
        s = np.linspace(0.0, 1.0, n + 1)[:, None]
        rho = 1.0 / (2 * np.pi)
        exact = rho * np.sin(s / rho) * np.array([1.0, 0.0, 0.0]) + rho * (1 - np.cos(s / rho)) * normal
        errors.append(np.abs(x - exact).max())
        assert errors[-1] < 0.1 / n**2, (n, errors)
        assert np.abs(Rn[-1] - np.eye(3)).max() < 1e-9
        assert iters <= 8
    assert errors[0] / errors[1] > 4.0 - 0.5


# --------------------------------------------------------------------------- pure Python
def test_subprocess_runs_this_file_without_jit():
    """The kernels also run as plain Python (NUMBA_DISABLE_JIT=1) and pass the same tests."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", __file__, "-k", "not subprocess"],
                          env=env, cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
