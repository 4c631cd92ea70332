"""Truss elements (elements/truss.py): all four specs against closed forms, finite
differences and the numpy reference in truss_reference.py."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from femb.elements import get_spec
from femb.elements.truss import SPECS
from femb.model.materials import Material, Section
from tests.elements import truss_reference as ref

NAMES = ["truss2d", "truss3d", "truss2d_green", "truss3d_green"]
N_EL = 20
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=NAMES)
def spec(request):
    return SPECS[request.param]


def is_green(spec):
    return spec.name.endswith("_green")


# ---------------------------------------------------------------------------- geometry helpers


def skew(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def rotation(dim, angle, axis=None):
    """Rotation matrix: planar, or about ``axis`` (Rodrigues) in 3-D."""
    c, s = np.cos(angle), np.sin(angle)
    if dim == 2:
        return np.array([[c, -s], [s, c]])
    W = skew(np.asarray(axis, float) / np.linalg.norm(axis))
    return np.eye(3) + s * W + (1.0 - c) * W @ W


def random_batch(rng, dim, n=N_EL):
    """Random straight elements (n, 2, dim) of length 0.5..2 anywhere in a box, and
    properties (n, 2) with EA in 1e2..1e5 and rhoA in 0.5..2."""
    centre = rng.uniform(-3.0, 3.0, (n, dim))
    d = rng.normal(size=(n, dim))
    d *= rng.uniform(0.5, 2.0, (n, 1)) / np.linalg.norm(d, axis=1, keepdims=True)
    X = np.stack([centre - 0.5 * d, centre + 0.5 * d], axis=1)
    p = np.column_stack([10.0 ** rng.uniform(2.0, 5.0, n), rng.uniform(0.5, 2.0, n)])
    return X, p


def moved(X, rotations, stretch=None, shift=None):
    """u (n, 2·dim) taking each element to centre + shift + stretch·R (X − centre)."""
    n, _, dim = X.shape
    centre = X.mean(axis=1, keepdims=True)
    stretch = np.ones(n) if stretch is None else stretch
    shift = np.zeros((n, dim)) if shift is None else shift
    x = centre + shift[:, None, :] + stretch[:, None, None] * np.einsum("eij,enj->eni", rotations, X - centre)
    return (x - X).reshape(n, 2 * dim)


def random_rotations(rng, dim, n=N_EL, max_angle=np.pi):
    return np.array([rotation(dim, rng.uniform(-max_angle, max_angle), rng.normal(size=3)) for _ in range(n)])


def random_state(rng, X, min_strain=0.01, max_strain=0.1, max_angle=np.pi, noise=0.0):
    """A stretched (|strain| in [min, max]) and rigidly moved state, plus optional noise."""
    n, _, dim = X.shape
    strain = rng.uniform(min_strain, max_strain, n) * rng.choice([-1.0, 1.0], n)
    u = moved(X, random_rotations(rng, dim, n, max_angle), 1.0 + strain, rng.uniform(-1.0, 1.0, (n, dim)))
    return u + noise * rng.normal(size=u.shape)


# ---------------------------------------------------------------------------- kernel wrappers


def force(spec, X, u, p):
    f = np.zeros_like(u)
    spec.kernels.internal_force(X, u, p, f)
    return f


def tangent(spec, X, u, p):
    n = u.shape[1]
    f, K = np.zeros_like(u), np.zeros((u.shape[0], n, n))
    spec.kernels.tangent(X, u, p, f, K)
    return f, K


def resultants(spec, X, u, p):
    s = np.zeros((u.shape[0], 1))
    spec.kernels.resultants(X, u, p, s)
    return s


def geometric(spec, X, u, p, s):
    n = u.shape[1]
    K = np.full((u.shape[0], n, n), np.nan)
    spec.kernels.geometric_stiffness(X, u, p, s, K)
    return K


def energy(spec, X, u, p):
    e = np.zeros(u.shape[0])
    spec.kernels.strain_energy(X, u, p, e)
    return e


def mass(spec, X, u, p, kind):
    n = u.shape[1]
    M = np.full((u.shape[0], n, n), np.nan)
    spec.kernels.mass(X, u, p, kind, M)
    return M


def midpoint(spec, X, u0, u1, p):
    n = u0.shape[1]
    f, K = np.zeros_like(u0), np.zeros((u0.shape[0], n, n))
    spec.kernels.midpoint_force(X, u0, u1, p, f, K)
    return f, K


def fd_jacobian(fun, u, h=1e-6):
    """Central-difference Jacobian (n_el, n, n) of a batch function u -> (n_el, n)."""
    J = np.zeros(u.shape + (u.shape[1],))
    for j in range(u.shape[1]):
        du = np.zeros_like(u)
        du[:, j] = h
        J[:, :, j] = (fun(u + du) - fun(u - du)) / (2.0 * h)
    return J


def max_rel(a, b):
    """Per-element max |a − b| / max |b|, worst element."""
    axes = tuple(range(1, a.ndim))
    return float(np.max(np.abs(a - b).max(axis=axes) / np.abs(b).max(axis=axes)))


# ---------------------------------------------------------------------------- spec and properties


def test_spec_declarations(spec):
    dim = 3 if "3d" in spec.name else 2
    assert get_spec(spec.name) is spec
    assert (spec.cell_type, spec.n_nodes, spec.dim) == ("line", 2, dim)
    assert spec.node_dofs == ("ux", "uy", "uz")[:dim]
    assert spec.params == ("EA", "rhoA") and spec.resultant_names == ("N",)
    assert spec.n_edof == 2 * dim
    assert set(spec.constant_mass) == {0, 1, 2}
    assert spec.kernels.midpoint_force is not None


def test_properties_mapping(spec):
    mat, sec = Material(E=2.0e11, nu=0.3, rho=7850.0), Section(A=3.0e-4)
    assert spec.properties(mat, sec) == pytest.approx({"EA": 6.0e7, "rhoA": 2.355}, rel=1e-15)
    np.testing.assert_allclose(spec.property_row(mat, sec), [6.0e7, 2.355], rtol=1e-15)
    assert spec.property_row(Material(E=1.0), sec)[1] == 0.0  # massless by default
    with pytest.raises(ValueError, match="area"):
        spec.properties(mat, Section(A=None))


# ---------------------------------------------------------------------------- rigid motion and null space


@pytest.mark.parametrize("angle", [0.0, 0.5 * np.pi, np.deg2rad(179.0), 6.0 * np.pi, -6.0 * np.pi + 0.7])
def test_rigid_motion_gives_no_force(spec, angle):
    rng = np.random.default_rng(1)
    X, p = random_batch(rng, spec.dim)
    R = np.array([rotation(spec.dim, angle, rng.normal(size=3)) for _ in range(N_EL)])
    u = moved(X, R, shift=rng.uniform(-5.0, 5.0, (N_EL, spec.dim)))
    EA = p[:, :1]
    assert np.all(np.abs(force(spec, X, u, p)) < 1e-12 * EA)
    f, _ = tangent(spec, X, u, p)
    assert np.all(np.abs(f) < 1e-12 * EA)
    assert np.all(np.abs(resultants(spec, X, u, p)) < 1e-12 * EA)
    assert np.all(np.abs(energy(spec, X, u, p)) < 1e-24 * EA[:, 0])


def rigid_modes(x):
    """Rigid velocity fields (n_modes, 2·dim) of a bar with nodal positions x (2, dim):
    translations, then rotations about the origin (1 in 2-D, 3 in 3-D)."""
    dim = x.shape[1]
    modes = [np.tile(np.eye(dim)[k], 2) for k in range(dim)]
    if dim == 2:
        modes.append(np.concatenate([[-xi[1], xi[0]] for xi in x]))
        return np.array(modes), [np.array([[0.0, -1.0], [1.0, 0.0]])]
    spins = [skew(np.eye(3)[k]) for k in range(3)]
    modes += [np.concatenate([W @ xi for xi in x]) for W in spins]
    return np.array(modes), spins


def rank(K, rel=1e-8):
    sv = np.linalg.svd(K, compute_uv=False)
    return int(np.sum(sv > rel * sv[0]))


def test_tangent_null_space_stress_free(spec):
    """Unstressed (any rigid placement): one axial stiffness; the null space is exactly the
    rigid-body space (3 modes in 2-D, 5 in 3-D: spin about the bar axis moves no node)."""
    rng = np.random.default_rng(2)
    X, p = random_batch(rng, spec.dim)
    u = moved(X, random_rotations(rng, spec.dim), shift=rng.normal(size=(N_EL, spec.dim)))
    _, K = tangent(spec, X, u, p)
    for Ke, Xe, ue in zip(K, X, u):
        assert rank(Ke) == 1
        modes, _ = rigid_modes(Xe + ue.reshape(2, -1))
        assert np.all(np.asarray(np.abs(Ke).max()) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(Ke @ modes.T).max() < 1e-10 * np.abs(Ke).max()
        assert np.allclose(Ke, Ke.T, rtol=0.0, atol=1e-14 * np.abs(Ke).max())


def test_tangent_null_space_stressed(spec):
    """Stressed: rank dim, only translations are null; an infinitesimal rigid rotation W
    about the origin maps to the rotated force, K·(W x) = W f (force rotates with the bar)."""
    rng = np.random.default_rng(3)
    X, p = random_batch(rng, spec.dim)
    u = random_state(rng, X)
    f, K = tangent(spec, X, u, p)
    for Ke, fe, Xe, ue in zip(K, f, X, u):
        scale = np.abs(Ke).max()
        assert rank(Ke) == spec.dim
        modes, spins = rigid_modes(Xe + ue.reshape(2, -1))
        assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(Ke @ modes[: spec.dim].T).max() < 1e-10 * scale
        for w, W in zip(modes[spec.dim :], spins):
            expected = np.concatenate([W @ fi for fi in fe.reshape(2, -1)])
            assert np.all(np.asarray(scale * np.abs(w).max()) > 0)  # a zero scale would let an all-zero output pass
            assert np.abs(Ke @ w - expected).max() < 1e-10 * scale * np.abs(w).max()
            assert np.abs(expected).max() > 1e-6 * scale  # the check is not vacuous


# ---------------------------------------------------------------------------- consistency


def test_tangent_is_derivative_of_force(spec):
    rng = np.random.default_rng(4)
    X, p = random_batch(rng, spec.dim)
    u = random_state(rng, X, noise=0.05)
    f, K = tangent(spec, X, u, p)
    np.testing.assert_array_equal(f, force(spec, X, u, p))
    K_fd = fd_jacobian(lambda v: force(spec, X, v, p), u)
    assert max_rel(K, K_fd) < 1e-6
    assert np.allclose(K, K.transpose(0, 2, 1), rtol=0.0, atol=1e-13 * np.abs(K).max())


def test_force_is_gradient_of_energy(spec):
    rng = np.random.default_rng(5)
    X, p = random_batch(rng, spec.dim)
    u = random_state(rng, X, noise=0.05)
    f_fd = fd_jacobian(lambda v: energy(spec, X, v, p)[:, None], u)[:, 0, :]
    assert max_rel(force(spec, X, u, p), f_fd) < 1e-6


def test_geometric_stiffness(spec):
    """Tangent minus the stress stiffness at the current resultants is the material
    stiffness; the stress stiffness is linear in the resultants."""
    rng = np.random.default_rng(6)
    X, p = random_batch(rng, spec.dim)
    u = random_state(rng, X, noise=0.05)
    _, K = tangent(spec, X, u, p)
    s = resultants(spec, X, u, p)
    KG = geometric(spec, X, u, p, s)
    KM = ref.material_stiffness(is_green(spec), X, u, p)
    assert max_rel(K - KG, KM) < 1e-12
    assert max_rel(geometric(spec, X, u, p, -2.5 * s), -2.5 * KG) < 1e-14
    assert np.all(geometric(spec, X, u, p, np.zeros_like(s)) == 0.0)


def test_mass(spec):
    rng = np.random.default_rng(7)
    X, p = random_batch(rng, spec.dim)
    u0, u1 = np.zeros((N_EL, spec.n_edof)), random_state(rng, X, noise=0.1)
    m = p[:, 1] * np.linalg.norm(X[:, 1] - X[:, 0], axis=1)
    l0 = np.linalg.norm(X[:, 1] - X[:, 0], axis=1)
    for kind, inertia in [(0, 0.25), (1, 1.0 / 12.0), (2, 1.0 / 12.0)]:
        M = mass(spec, X, u0, p, kind)
        np.testing.assert_array_equal(M, mass(spec, X, u1, p, kind))  # constant
        np.testing.assert_array_equal(M, M.transpose(0, 2, 1))
        if kind == 0:
            np.testing.assert_array_equal(M, np.einsum("ei,ij->eij", np.einsum("eii->ei", M), np.eye(spec.n_edof)))
        # rigid translation: exact total mass
        v = rng.normal(size=(N_EL, spec.dim))
        vv = np.tile(v, 2)
        np.testing.assert_allclose(np.einsum("ei,eij,ej->e", vv, M, vv), m * np.sum(v * v, axis=1), rtol=1e-13)
        # spin about the centre, perpendicular to the bar: rotary inertia rhoA l0³ · inertia
        d = (X[:, 1] - X[:, 0]) / l0[:, None]
        if spec.dim == 2:
            w = np.column_stack([-d[:, 1], d[:, 0]])
        else:
            w = np.cross(d, rng.normal(size=(N_EL, 3)))
            w /= np.linalg.norm(w, axis=1, keepdims=True)
        vr = np.concatenate([-0.5 * l0[:, None] * w, 0.5 * l0[:, None] * w], axis=1)
        np.testing.assert_allclose(np.einsum("ei,eij,ej->e", vr, M, vr), inertia * p[:, 1] * l0**3, rtol=1e-13)
    with pytest.raises(ValueError):
        mass(spec, X, u0, p, 3)


def test_kernels_equal_reference(spec):
    rng = np.random.default_rng(8)
    green = is_green(spec)
    X, p = random_batch(rng, spec.dim)
    u, u1 = random_state(rng, X, noise=0.1), random_state(rng, X, noise=0.1)
    assert max_rel(force(spec, X, u, p), ref.internal_force(green, X, u, p)) < 1e-12
    f, K = tangent(spec, X, u, p)
    f_ref, K_ref = ref.tangent(green, X, u, p)
    assert max_rel(f, f_ref) < 1e-12 and max_rel(K, K_ref) < 1e-12
    assert max_rel(resultants(spec, X, u, p), ref.resultants(green, X, u, p)) < 1e-12
    s = rng.normal(size=(N_EL, 1)) * p[:, :1]
    assert max_rel(geometric(spec, X, u, p, s), ref.geometric_stiffness(green, X, u, p, s)) < 1e-12
    assert max_rel(energy(spec, X, u, p)[:, None], ref.strain_energy(green, X, u, p)[:, None]) < 1e-12
    for kind in (0, 1, 2):
        assert max_rel(mass(spec, X, u, p, kind), ref.mass(X, p, kind)) < 1e-14
    f, K = midpoint(spec, X, u, u1, p)
    f_ref, K_ref = ref.midpoint_force(green, X, u, u1, p)
    assert max_rel(f, f_ref) < 1e-12 and max_rel(K, K_ref) < 1e-12


# ---------------------------------------------------------------------------- mid-point force


def test_midpoint_energy_identity(spec):
    rng = np.random.default_rng(9)
    X, p = random_batch(rng, spec.dim)
    u0, u1 = random_state(rng, X, noise=0.05), random_state(rng, X, noise=0.05)
    f, _ = midpoint(spec, X, u0, u1, p)
    V0, V1 = energy(spec, X, u0, p), energy(spec, X, u1, p)
    work = np.sum(f * (u1 - u0), axis=1)
    assert np.all(np.abs(work - (V1 - V0)) < 1e-12 * (V0 + V1))
    assert np.all(np.abs(V1 - V0) > 1e-6 * (V0 + V1))  # not a vacuous identity


def test_midpoint_tangent_is_derivative(spec):
    rng = np.random.default_rng(10)
    X, p = random_batch(rng, spec.dim)
    u0, u1 = random_state(rng, X, noise=0.05), random_state(rng, X, max_angle=1.0, noise=0.05)
    _, K = midpoint(spec, X, u0, u1, p)
    K_fd = fd_jacobian(lambda v: midpoint(spec, X, u0, v, p)[0], u1)
    assert max_rel(K, K_fd) < 1e-6
    asym = np.abs(K - K.transpose(0, 2, 1)).max(axis=(1, 2)) / np.abs(K).max(axis=(1, 2))
    assert np.all(asym > 1e-4)  # the chord rotates within the step: non-symmetric


def test_midpoint_reduces_to_static_force(spec):
    """u0 == u1: the internal force, and half the static tangent (trapezoidal Newton)."""
    rng = np.random.default_rng(11)
    X, p = random_batch(rng, spec.dim)
    u = random_state(rng, X, noise=0.05)
    f_mid, K_mid = midpoint(spec, X, u, u.copy(), p)
    f, K = tangent(spec, X, u, p)
    assert np.all(np.isfinite(f_mid)) and np.all(np.isfinite(K_mid))
    assert max_rel(f_mid, f) < 1e-13
    assert max_rel(2.0 * K_mid, K) < 1e-13


@pytest.mark.parametrize(
    "angles", [(0.0, 0.0), (0.3, 0.3 + 0.5 * np.pi), (-1.0, -1.0 + np.deg2rad(179.0)), (0.2, 0.2 + np.pi), (0.0, 6.0 * np.pi + 0.4)]
)
def test_midpoint_rigid_rotation_gives_no_force(spec, angles):
    rng = np.random.default_rng(12)
    X, p = random_batch(rng, spec.dim)
    axes = rng.normal(size=(N_EL, 3))
    u0, u1 = (moved(X, np.array([rotation(spec.dim, a, ax) for ax in axes]), shift=rng.normal(size=(N_EL, spec.dim))) for a in angles)
    f, K = midpoint(spec, X, u0, u1, p)
    assert np.all(np.abs(f) < 1e-12 * p[:, :1])
    assert np.all(np.isfinite(K))


def test_midpoint_conserves_momenta(spec):
    """Self-equilibrated (Σ f = 0) and torque-free about any point at the mid-point
    configuration (Σ x_m × f = 0): exact linear and angular momentum."""
    rng = np.random.default_rng(13)
    X, p = random_batch(rng, spec.dim)
    u0, u1 = random_state(rng, X, noise=0.05), random_state(rng, X, noise=0.05)
    f, _ = midpoint(spec, X, u0, u1, p)
    fn = f.reshape(N_EL, 2, spec.dim)
    xm = X + 0.5 * (u0 + u1).reshape(N_EL, 2, spec.dim)
    scale = np.abs(f).max(axis=1)
    assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
    assert np.all(np.abs(fn.sum(axis=1)).max(axis=1) < 1e-14 * scale)
    if spec.dim == 2:
        torque = np.abs(np.sum(xm[..., 0] * fn[..., 1] - xm[..., 1] * fn[..., 0], axis=1))
    else:
        torque = np.abs(np.cross(xm, fn).sum(axis=1)).max(axis=1)
    assert np.all(np.asarray(scale * np.abs(xm).max(axis=(1, 2))) > 0)  # a zero scale would let an all-zero output pass
    assert np.all(torque < 1e-13 * scale * np.abs(xm).max(axis=(1, 2)))


# ---------------------------------------------------------------------------- pure Python run


def test_suite_without_jit_subprocess():
    """The same tests pass with NUMBA_DISABLE_JIT=1 (kernels run as plain Python)."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", __file__, "-k", "not subprocess"],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
