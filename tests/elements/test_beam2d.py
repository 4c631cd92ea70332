"""The 2-D co-rotational beam elements (beam2d, beam2d_timoshenko) against exact values,
finite differences and the numpy reference in beam2d_reference."""
import os
import subprocess
import sys

import numpy as np
import pytest

from femb.elements import get_spec
from femb.model import Material, Section
from tests.elements import beam2d_reference as ref

NAMES = ["beam2d", "beam2d_timoshenko"]
EA, EI, GAS, RHOA, RHOI = 1.0e3, 5.0, 200.0, 2.0, 0.05
# chord directions that put the chord angle at or next to ±π
NEAR_PI = [np.pi - 1e-3, -np.pi + 1e-3, np.pi]


def params(name, n, EA=EA, EI=EI, GAs=GAS, rhoA=RHOA, rhoI=RHOI):
    """(n, n_params) property rows of element type ``name``."""
    row = [EA, EI, rhoA, rhoI, 0.0] if name == "beam2d" else [EA, EI, GAs, rhoA, rhoI, 0.0]  # ym = 0
    return np.tile(np.array(row, dtype=float), (n, 1))


def kernels(name):
    return get_spec(name).kernels


def force(name, X, u, p):
    f = np.zeros(u.shape)
    kernels(name).internal_force(X, u, p, f)
    return f


def tangent(name, X, u, p):
    f, K = np.zeros(u.shape), np.zeros(u.shape + (6,))
    kernels(name).tangent(X, u, p, f, K)
    return f, K


def resultants(name, X, u, p):
    s = np.zeros((len(u), 4))
    kernels(name).resultants(X, u, p, s)
    return s


def energy(name, X, u, p):
    e = np.zeros(len(u))
    kernels(name).strain_energy(X, u, p, e)
    return e


def geometric(name, X, u, p, s):
    K = np.zeros(u.shape + (6,))
    kernels(name).geometric_stiffness(X, u, p, s, K)
    return K


def mass(name, X, u, p, kind):
    M = np.zeros(u.shape + (6,))
    kernels(name).mass(X, u, p, kind, M)
    return M


def rot2(a):
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


def element(beta0, l0=1.5, x1=(0.3, -0.2)):
    """Reference coordinates (2, 2) of an element of length l0 pointing at angle beta0."""
    x1 = np.asarray(x1, dtype=float)
    return np.array([x1, x1 + l0 * np.array([np.cos(beta0), np.sin(beta0)])])


def rigid_u(X, phi, center=(0.7, -1.1), shift=(0.25, -0.4)):
    """Element DOFs (6,) of the rigid motion: rotation by phi about center, then shift."""
    center, shift = np.asarray(center), np.asarray(shift)
    x = (X - center) @ rot2(phi).T + center + shift
    d = x - X
    return np.array([d[0, 0], d[0, 1], phi, d[1, 0], d[1, 1], phi])


def deformed_states(seed=7, n=20):
    """Seeded random deformed and rigidly rotated elements (X (n, 2, 2), u (n, 6)) with
    their imposed strain (n,) and local rotations (n, 2). Several chords sit near ±π."""
    rng = np.random.default_rng(seed)
    beta0 = rng.uniform(-np.pi, np.pi, n)
    phi = rng.uniform(-20.0, 20.0, n)  # rigid rotations of several turns
    beta0[:3] = NEAR_PI  # reference chord near ±π, rotated a little either way
    phi[:3] = [2e-3, -2e-3, 0.0]
    beta0[3:6] = [0.3, -2.0, 1.0]  # current chord near ±π
    phi[3:6] = [np.pi - 0.3 + 1e-3, np.pi + 2.0 - 1e-3, np.pi - 1.0]
    l0 = rng.uniform(0.5, 2.0, n)
    strain = rng.uniform(-0.05, 0.05, n)
    tb = rng.uniform(-0.6, 0.6, (n, 2))
    turns = rng.integers(-3, 4, (n, 2))  # nodal rotations may differ by whole turns
    X, u = np.zeros((n, 2, 2)), np.zeros((n, 6))
    for e in range(n):
        X[e] = element(beta0[e], l0[e], rng.uniform(-1, 1, 2))
        beta = beta0[e] + phi[e]
        x1 = X[e, 0] + rng.uniform(-0.5, 0.5, 2)
        x2 = x1 + l0[e] * (1 + strain[e]) * np.array([np.cos(beta), np.sin(beta)])
        u[e, 0:2], u[e, 3:5] = x1 - X[e, 0], x2 - X[e, 1]
        u[e, [2, 5]] = phi[e] + tb[e] + 2 * np.pi * turns[e]
    return X, u, strain, tb


def central_difference(func, u, h):
    """d func(u)/du (n, m, 6) by central differences, all elements at once."""
    cols = []
    for j in range(6):
        du = np.zeros_like(u)
        du[:, j] = h
        cols.append((func(u + du) - func(u - du)) / (2 * h))
    return np.stack(cols, axis=-1)


def rigid_modes(X, u):
    """Translations x, y and infinitesimal rotation about node 1 in configuration u: (6, 3)."""
    x21 = X[1] - X[0] + u[3:5] - u[0:2]
    return np.array([[1, 0, 0, 1, 0, 0], [0, 1, 0, 0, 1, 0], [0, 0, 1, -x21[1], x21[0], 1]], dtype=float).T


# --------------------------------------------------------------------------- spec and properties
@pytest.mark.parametrize("name", NAMES)
def test_spec_declares_the_contract(name):
    spec = get_spec(name)
    assert (spec.name, spec.cell_type, spec.n_nodes, spec.dim) == (name, "line", 2, 2)
    assert spec.node_dofs == ("ux", "uy", "rz") and spec.n_edof == 6
    assert spec.resultant_names == ("N", "V", "M1", "M2")
    assert spec.constant_mass == (0, 2)
    assert spec.kernels.midpoint_force is not None  # energy-conserving kernel (tests in test_beam2d_midpoint.py)


def test_properties_from_material_and_section():
    mat = Material(E=200.0, nu=0.25, rho=3.0)
    sec = Section(A=2.0, Iz=0.5, I=9.0, shear_factor=0.8)
    # the last column: the mass centre ym on the node line (a direct value only)
    assert np.array_equal(get_spec("beam2d").property_row(mat, sec), [400.0, 100.0, 6.0, 1.5, 0.0])
    assert np.array_equal(get_spec("beam2d_timoshenko").property_row(mat, sec), [400.0, 100.0, 80.0 * 0.8 * 2.0, 6.0, 1.5, 0.0])


@pytest.mark.parametrize("name, mat, sec, fragment", [
    ("beam2d", Material(E=1.0), Section(A=1.0), "Iz (or I)"),
    ("beam2d_timoshenko", Material(E=1.0), Section(A=1.0, I=1.0, shear_factor=0.8), "G (or nu)"),
    ("beam2d_timoshenko", Material(E=1.0, G=0.4), Section(A=1.0, I=1.0), "shear_factor"),
])
def test_missing_property_is_named(name, mat, sec, fragment):
    with pytest.raises((KeyError, ValueError), match=fragment.replace("(", r"\(").replace(")", r"\)")):
        get_spec(name).property_row(mat, sec)


# --------------------------------------------------------------------------- rigid motions
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("phi", [0.0, np.pi / 2, np.radians(179.0), np.radians(181.0), 10 * np.pi, -7.3 * 2 * np.pi])
def test_rigid_motion_gives_zero_force_energy_and_resultants(name, phi):
    beta0 = np.array([0.0, 0.5 * np.pi, np.radians(179.0), np.radians(-179.0), np.pi, 2.2])
    X = np.array([element(b) for b in beta0])
    u = np.array([rigid_u(x, phi) for x in X])
    p = params(name, len(X))
    assert np.abs(force(name, X, u, p)).max() < 1e-8 * EA
    assert np.abs(resultants(name, X, u, p)).max() < 1e-8 * EA
    assert np.abs(energy(name, X, u, p)).max() < 1e-20 * EA


@pytest.mark.parametrize("name", NAMES)
def test_imposed_deformation_is_recovered_through_any_rotation(name):
    """Stretch and local rotations imposed on top of rigid rotations of several turns (chords
    at and across ±π) come back as N = EA ε and (M1, M2) = K_b θ̄ — no unwrapping needed."""
    X, u, strain, tb = deformed_states()
    p = params(name, len(X))
    s = resultants(name, X, u, p)
    l0 = np.linalg.norm(X[:, 1] - X[:, 0], axis=1)
    assert np.allclose(s[:, 0], EA * strain, rtol=1e-10, atol=1e-10 * EA)
    for e in range(len(X)):
        M = ref.bending_stiffness(EI, GAS if name != "beam2d" else np.inf, l0[e]) @ tb[e]
        assert np.allclose(s[e, 2:], M, rtol=1e-10, atol=1e-10 * EI)
        assert s[e, 1] == pytest.approx((M[0] + M[1]) / (l0[e] * (1 + strain[e])), rel=1e-10, abs=1e-10 * EI)


@pytest.mark.parametrize("name", NAMES)
def test_tiny_stretch_is_resolved_without_cancellation(name):
    """N of a 1e-13 stretch is exact to 1e-8 (l − l0 by subtraction would be off by ~1e-3)."""
    l0, delta = 1.3, 1e-13
    beta0 = np.array([0.0, 0.7, 2.9])
    X = np.array([element(b, l0) for b in beta0])
    u = np.zeros((len(X), 6))
    u[:, 3:5] = delta * np.column_stack([np.cos(beta0), np.sin(beta0)])
    s = resultants(name, X, u, params(name, len(X)))
    assert np.allclose(s[:, 0], EA * delta / l0, rtol=1e-8, atol=0)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("phi", [np.pi / 2, np.radians(179.0), np.radians(181.0), 10 * np.pi + 0.2, -13.0])
def test_forces_rotate_with_a_superposed_rigid_rotation(name, phi):
    """f(Q config) = Q f(config), same energy and resultants (objectivity across ±π)."""
    X, u, _, _ = deformed_states(seed=3, n=8)
    p = params(name, len(X))
    u_rot = np.empty_like(u)
    for e in range(len(X)):
        x = X[e] + u[e].reshape(2, 3)[:, :2]
        xr = x @ rot2(phi).T + np.array([0.4, 2.0])
        u_rot[e] = np.concatenate([xr[0] - X[e, 0], [u[e, 2] + phi], xr[1] - X[e, 1], [u[e, 5] + phi]])
    f, fr = force(name, X, u, p), force(name, X, u_rot, p)
    Q = np.kron(np.eye(2), np.block([[rot2(phi), np.zeros((2, 1))], [np.zeros((1, 2)), np.ones((1, 1))]]))
    assert np.allclose(fr, f @ Q.T, rtol=0, atol=1e-10 * np.abs(f).max())
    assert np.allclose(resultants(name, X, u_rot, p), resultants(name, X, u, p), rtol=1e-9, atol=1e-12)
    assert np.allclose(energy(name, X, u_rot, p), energy(name, X, u, p), rtol=1e-9)


# --------------------------------------------------------------------------- tangent
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("phi", [0.0, np.radians(181.0), 10 * np.pi])
def test_unstressed_tangent_has_exactly_the_rigid_body_null_space(name, phi):
    X = np.array([element(b) for b in (0.0, 1.0, np.radians(179.0), -2.5)])
    u = np.array([rigid_u(x, phi) for x in X])
    p = params(name, len(X))
    _, K = tangent(name, X, u, p)
    for e in range(len(X)):
        w, V = np.linalg.eigh(K[e])
        null = np.abs(w) < 1e-10 * np.abs(w).max()
        assert null.sum() == 3, w
        assert w[~null].min() > 0  # positive definite on the deformation modes
        R = rigid_modes(X[e], u[e])
        V0 = V[:, null]
        assert np.all(np.asarray(np.linalg.norm(R)) > 0)  # a zero scale would let an all-zero output pass
        assert np.linalg.norm(R - V0 @ (V0.T @ R)) < 1e-9 * np.linalg.norm(R)
        assert np.all(np.asarray(np.abs(K[e]).max()) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(K[e] @ R).max() < 1e-10 * np.abs(K[e]).max()


@pytest.mark.parametrize("name", NAMES)
def test_stressed_tangent_annihilates_translations_and_rotates_the_force(name):
    X, u, _, _ = deformed_states(seed=11)
    p = params(name, len(X))
    f, K = tangent(name, X, u, p)
    J = np.kron(np.eye(2), np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]))
    for e in range(len(X)):
        R = rigid_modes(X[e], u[e])
        scale = np.abs(K[e]).max()
        assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(K[e] @ R[:, :2]).max() < 1e-12 * scale
        # d/dφ of f under a rigid rotation is the force rotated by +90° (moments unchanged)
        assert np.allclose(K[e] @ R[:, 2], J @ f[e], rtol=0, atol=1e-11 * scale)
        assert np.allclose(K[e], K[e].T, rtol=0, atol=1e-12 * scale)


@pytest.mark.parametrize("name", NAMES)
def test_tangent_is_the_derivative_of_the_internal_force(name):
    X, u, _, _ = deformed_states(seed=5)
    p = params(name, len(X))
    f, K = tangent(name, X, u, p)
    assert np.array_equal(f, force(name, X, u, p))
    K_fd = central_difference(lambda v: force(name, X, v, p), u, 1e-6)
    for e in range(len(X)):
        assert np.all(np.asarray(np.abs(K[e]).max()) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(K[e] - K_fd[e]).max() < 1e-6 * np.abs(K[e]).max(), e


@pytest.mark.parametrize("name", NAMES)
def test_internal_force_is_the_gradient_of_the_strain_energy(name):
    X, u, _, _ = deformed_states(seed=6)
    p = params(name, len(X))
    f = force(name, X, u, p)
    g_fd = central_difference(lambda v: energy(name, X, v, p)[:, None], u, 1e-6)[:, 0, :]
    for e in range(len(X)):
        assert np.all(np.asarray(np.abs(f[e]).max()) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(f[e] - g_fd[e]).max() < 1e-6 * np.abs(f[e]).max(), e


@pytest.mark.parametrize("name", NAMES)
def test_tangent_splits_into_material_and_geometric_parts(name):
    X, u, _, _ = deformed_states(seed=9)
    p = params(name, len(X))
    _, K = tangent(name, X, u, p)
    s = resultants(name, X, u, p)
    KG = geometric(name, X, u, p, s)
    Kmat = ref.batch(ref.material_stiffness, X, u, p)
    assert np.allclose(K - KG, Kmat, rtol=0, atol=1e-12 * np.abs(K).max())
    assert np.abs(KG).max() > 1e-3 * np.abs(K).max()  # the geometric part is not negligible here
    assert np.allclose(geometric(name, X, u, p, -2.5 * s), -2.5 * KG, rtol=1e-14, atol=0)  # linear in s


# --------------------------------------------------------------------------- reference
@pytest.mark.parametrize("name", NAMES)
def test_kernels_equal_the_numpy_reference(name):
    X, u, _, _ = deformed_states(seed=13)
    p = params(name, len(X))
    f, K = tangent(name, X, u, p)
    tol = dict(rtol=1e-11, atol=1e-11 * EA)
    assert np.allclose(f, ref.batch(ref.internal_force, X, u, p), **tol)
    assert np.allclose(K, ref.batch(ref.tangent, X, u, p), **tol)
    assert np.allclose(resultants(name, X, u, p), ref.batch(ref.resultants, X, u, p), **tol)
    assert np.allclose(energy(name, X, u, p), ref.batch(ref.strain_energy, X, u, p), rtol=1e-11, atol=1e-14)
    s = ref.batch(ref.resultants, X, u, p)
    KG_ref = np.array([ref.geometric_stiffness(X[e], u[e], s[e]) for e in range(len(X))])
    assert np.allclose(geometric(name, X, u, p, s), KG_ref, **tol)
    for kind in (0, 1, 2):
        assert np.allclose(mass(name, X, u, p, kind), ref.batch(ref.mass, X, u, p, kind), rtol=1e-12, atol=1e-14)


# --------------------------------------------------------------------------- mass
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", [0, 1, 2])
def test_mass_gives_the_exact_total_mass(name, kind):
    X, u, _, _ = deformed_states(seed=17)
    p = params(name, len(X))
    M = mass(name, X, u, p, kind)
    l0 = np.linalg.norm(X[:, 1] - X[:, 0], axis=1)
    tx, ty = np.array([1.0, 0, 0, 1, 0, 0]), np.array([0, 1.0, 0, 0, 1, 0])
    assert np.allclose(np.einsum("i,eij,j->e", tx, M, tx), RHOA * l0, rtol=1e-13)
    assert np.allclose(np.einsum("i,eij,j->e", ty, M, ty), RHOA * l0, rtol=1e-13)
    assert np.allclose(np.einsum("i,eij,j->e", tx, M, ty), 0.0, atol=1e-13 * RHOA)
    assert np.allclose(M, M.transpose(0, 2, 1), rtol=0, atol=1e-15)
    assert np.linalg.eigvalsh(M).min() > 0  # positive definite with rhoI > 0


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind, translational", [(0, 1 / 4), (1, 1 / 12), (2, 1 / 12)])
def test_rotary_inertia_about_the_centre(name, kind, translational):
    """Consistent and invariant mass give the exact ρA l³/12 + ρI l; lumped gives ρA l³/4 + ρI l."""
    l0 = 1.7
    X = np.array([element(b, l0) for b in (0.0, 1.2, np.radians(179.0), -2.0)])
    u = np.array([rigid_u(x, 2.9) for x in X])
    p = params(name, len(X))
    M = mass(name, X, u, p, kind)
    for e in range(len(X)):
        x = X[e] + u[e].reshape(2, 3)[:, :2]
        d = x - x.mean(axis=0)
        w = np.array([-d[0, 1], d[0, 0], 1.0, -d[1, 1], d[1, 0], 1.0])
        assert w @ M[e] @ w == pytest.approx(translational * RHOA * l0**3 + RHOI * l0, rel=1e-13)


def textbook_consistent_horizontal(rhoA, rhoI, L):
    """Consistent mass of a horizontal beam, DOFs (u1, v1, θ1, u2, v2, θ2), written out."""
    a = rhoA * L / 420.0
    b = rhoI / (30.0 * L)
    return np.array([
        [140 * a, 0, 0, 70 * a, 0, 0],
        [0, 156 * a + 36 * b, 22 * L * a + 3 * L * b, 0, 54 * a - 36 * b, -13 * L * a + 3 * L * b],
        [0, 22 * L * a + 3 * L * b, 4 * L**2 * a + 4 * L**2 * b, 0, 13 * L * a - 3 * L * b, -3 * L**2 * a - L**2 * b],
        [70 * a, 0, 0, 140 * a, 0, 0],
        [0, 54 * a - 36 * b, 13 * L * a - 3 * L * b, 0, 156 * a + 36 * b, -22 * L * a - 3 * L * b],
        [0, -13 * L * a + 3 * L * b, -3 * L**2 * a - L**2 * b, 0, -22 * L * a - 3 * L * b, 4 * L**2 * a + 4 * L**2 * b],
    ])


@pytest.mark.parametrize("name", NAMES)
def test_consistent_mass_is_the_textbook_matrix_in_the_current_chord_frame(name):
    """beam2d: the Hermite matrix written out; beam2d_timoshenko: the same with the bending
    block of the shear-flexible interpolation (checked against the textbook matrix and the
    rigid motions in the next test)."""
    L, beta0 = 1.3, 0.7
    Mh = textbook_consistent_horizontal(RHOA, RHOI, L)
    if name == "beam2d_timoshenko":
        Mh[np.ix_([1, 2, 4, 5], [1, 2, 4, 5])] = ref.timoshenko_bending_mass(RHOA, RHOI, L, 12.0 * EI / (GAS * L**2))
    p = params(name, 1)
    X = element(0.0, L)[None]
    assert np.allclose(mass(name, X, np.zeros((1, 6)), p, 1)[0], Mh, rtol=1e-14, atol=1e-15)
    Xb = element(beta0, L)[None]
    for phi in (0.0, 2.0, np.radians(181.0) - beta0, 10 * np.pi):
        u = rigid_u(Xb[0], phi)[None]
        T = ref.rotation_T(np.cos(beta0 + phi), np.sin(beta0 + phi))
        expected = T.T @ Mh @ T
        assert np.allclose(mass(name, Xb, u, p, 1)[0], expected, rtol=1e-12, atol=1e-14)
        u_stretched = u.copy()
        u_stretched[0, 3:5] += 0.2 * L * np.array([np.cos(beta0 + phi), np.sin(beta0 + phi)])
        u_stretched[0, [2, 5]] += [0.3, -0.1]  # local bending does not enter either
        assert np.allclose(mass(name, Xb, u_stretched, p, 1)[0], expected, rtol=1e-12, atol=1e-14)


def test_timoshenko_consistent_mass_carries_rotary_inertia_with_the_section_rotation():
    """Φ → 0 (GA_s → ∞): the Hermite matrix. Any Φ: a rigid translation v = 1 carries ρA L
    and a rigid rotation (v = x, θ = 1) the kinetic energy ρA L³/3 + ρI L exactly (both are
    states of the shear-flexible interpolation); the Hermite matrix is not in error there,
    but attaches ρI to the slope v′ instead of θ (see validation with closed-form
    Timoshenko frequencies in tests/io/test_case_part_values.py)."""
    L = 1.3
    stiff = params("beam2d_timoshenko", 1, GAs=1e13)
    M = mass("beam2d_timoshenko", element(0.0, L)[None], np.zeros((1, 6)), stiff, 1)[0]
    assert np.allclose(M, textbook_consistent_horizontal(RHOA, RHOI, L), rtol=1e-9, atol=1e-12)
    for GAs in (200.0, 5.0):
        M = mass("beam2d_timoshenko", element(0.0, L)[None], np.zeros((1, 6)), params("beam2d_timoshenko", 1, GAs=GAs), 1)[0]
        shift = np.array([0.0, 1.0, 0.0, 0.0, 1.0, 0.0])
        turn = np.array([0.0, 0.0, 1.0, 0.0, L, 1.0])
        assert shift @ M @ shift == pytest.approx(RHOA * L, rel=1e-13)
        assert turn @ M @ turn == pytest.approx(RHOA * L**3 / 3.0 + RHOI * L, rel=1e-13)
        assert np.allclose(M, M.T, rtol=0, atol=1e-15) and np.all(np.linalg.eigvalsh(M) > 0)


@pytest.mark.parametrize("name", NAMES)
def test_lumped_and_invariant_mass_are_the_stated_constant_matrices(name):
    X, u, _, _ = deformed_states(seed=19, n=8)
    p = params(name, len(X))
    for e in range(len(X)):
        l0 = np.linalg.norm(X[e, 1] - X[e, 0])
        lumped = np.diag([RHOA, RHOA, RHOI, RHOA, RHOA, RHOI]) * l0 / 2
        inv = l0 / 6 * np.array([[2, 0, 0, 1, 0, 0], [0, 2, 0, 0, 1, 0], [0, 0, 0, 0, 0, 0],
                                 [1, 0, 0, 2, 0, 0], [0, 1, 0, 0, 2, 0], [0, 0, 0, 0, 0, 0]]) * RHOA
        inv[np.ix_([2, 5], [2, 5])] = RHOI * l0 / 6 * np.array([[2, 1], [1, 2]])
        for uu in (u, np.zeros_like(u)):
            assert np.allclose(mass(name, X, uu, p, 0)[e], lumped, rtol=1e-14, atol=0)
            assert np.allclose(mass(name, X, uu, p, 2)[e], inv, rtol=1e-14, atol=0)
    no_rot = mass(name, X, u, params(name, len(X), rhoI=0.0), 0)
    assert np.all(no_rot[:, [2, 5], [2, 5]] == 0.0)  # rhoI = 0: no rotational lumped mass


def test_unknown_mass_kind_is_rejected():
    X = element(0.0)[None]
    with pytest.raises(ValueError):
        mass("beam2d", X, np.zeros((1, 6)), params("beam2d", 1), 3)


# --------------------------------------------------------------------------- linear response
def cantilever(name, load, beta0=0.0, L=2.0, **kw):
    """Tip DOFs (local axial, local transverse, rotation) of one clamped element under a
    tip load (axial, transverse, moment) given in the chord frame, solved with K(u=0)."""
    X = element(beta0, L)[None]
    _, K = tangent(name, X, np.zeros((1, 6)), params(name, 1, **kw))
    T = ref.rotation_T(np.cos(beta0), np.sin(beta0))[3:, 3:]
    d = np.linalg.solve(K[0, 3:, 3:], T.T @ np.asarray(load, dtype=float))
    return T @ d


@pytest.mark.parametrize("beta0", [0.0, 2.5, np.pi])
def test_cantilever_tip_load_euler_bernoulli(beta0):
    P, M, L = 1e-3, 2e-3, 2.0
    a, v, th = cantilever("beam2d", [0.0, P, 0.0], beta0, L)
    assert v == pytest.approx(P * L**3 / (3 * EI), rel=1e-9)
    assert th == pytest.approx(P * L**2 / (2 * EI), rel=1e-9)
    assert abs(a) < 1e-12
    a, v, th = cantilever("beam2d", [P, 0.0, M], beta0, L)
    assert a == pytest.approx(P * L / EA, rel=1e-9)
    assert v == pytest.approx(M * L**2 / (2 * EI), rel=1e-9)
    assert th == pytest.approx(M * L / EI, rel=1e-9)


@pytest.mark.parametrize("beta0", [0.0, 2.5])
def test_cantilever_tip_load_timoshenko_adds_the_shear_deflection(beta0):
    P, M, L = 1e-3, 2e-3, 2.0
    _, v, th = cantilever("beam2d_timoshenko", [0.0, P, 0.0], beta0, L)
    assert v == pytest.approx(P * L**3 / (3 * EI) + P * L / GAS, rel=1e-9)
    assert th == pytest.approx(P * L**2 / (2 * EI), rel=1e-9)
    _, v, th = cantilever("beam2d_timoshenko", [0.0, 0.0, M], beta0, L)
    assert v == pytest.approx(M * L**2 / (2 * EI), rel=1e-9)
    assert th == pytest.approx(M * L / EI, rel=1e-9)


def test_timoshenko_tends_to_euler_bernoulli_as_shear_stiffness_grows():
    P, L = 1e-3, 2.0
    v_eb = cantilever("beam2d", [0.0, P, 0.0], L=L)[1]
    errors = [cantilever("beam2d_timoshenko", [0.0, P, 0.0], L=L, GAs=g)[1] / v_eb - 1 for g in (1e2, 1e4, 1e6)]
    assert errors[0] > errors[1] > errors[2] > 0
    assert errors[2] < 1e-5
    assert errors[0] / errors[1] == pytest.approx(100.0, rel=1e-6)  # shear part ∝ 1/GAs


def test_thin_timoshenko_beam_does_not_lock():
    """One element, slenderness L/h = 1000, realistic shear stiffness from the properties."""
    L, h = 1.0, 1e-3
    props = get_spec("beam2d_timoshenko").property_row(Material(E=1.0, nu=0.3), Section(A=h, I=h**3 / 12, shear_factor=5 / 6))
    EA_, EI_, GAs_ = props[:3]
    P = 1e-12
    v = cantilever("beam2d_timoshenko", [0.0, P, 0.0], L=L, EA=EA_, EI=EI_, GAs=GAs_)[1]
    v_eb = P * L**3 / (3 * EI_)
    assert v == pytest.approx(v_eb + P * L / GAs_, rel=1e-8)
    assert v / v_eb == pytest.approx(1.0, abs=1e-5)


# --------------------------------------------------------------------------- pure Python
def test_subprocess_runs_this_file_without_jit():
    """The kernels also run as plain Python (NUMBA_DISABLE_JIT=1) and pass the same tests."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", __file__, "-k", "not subprocess"],
                          env=env, cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
