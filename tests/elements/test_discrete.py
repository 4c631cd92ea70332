"""Discrete elements (elements/masses.py, translational_springs.py, rotational_springs2d.py):
point masses, rigid bodies, central springs, bushings and rotational springs, against closed
forms and finite differences, the exact discrete-gradient identities of their mid-point forces (Cayley step
parameters for rotations), small end-to-end mid-point integrations, and statics through a
Model."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from femb.elements import available, get_spec
from femb.mesh import Mesh
from femb.model import Material, Model, Section
from femb.solvers import solve_static

ROOT = Path(__file__).resolve().parents[2]
N_EL = 8
SPRINGS = ["spring2d", "spring3d", "bushing2d", "bushing3d", "rotational_spring2d", "rotational_spring2d_ground"]
MASSES = ["point_mass2d", "point_mass2d_translational", "point_mass3d", "rigid_body2d", "rigid_body2d_offset"]


# ---------------------------------------------------------------------------- kernel wrappers


def call(spec, name, *args, out_shape):
    out = np.zeros(out_shape)
    getattr(spec.kernels, name)(*args, out)
    return out


def force(spec, X, u, p):
    return call(spec, "internal_force", X, u, p, out_shape=u.shape)


def tangent(spec, X, u, p):
    f, K = np.zeros(u.shape), np.zeros(u.shape + (u.shape[1],))
    spec.kernels.tangent(X, u, p, f, K)
    return f, K


def energy(spec, X, u, p):
    return call(spec, "strain_energy", X, u, p, out_shape=(len(u),))


def resultants(spec, X, u, p):
    return call(spec, "resultants", X, u, p, out_shape=(len(u), len(spec.resultant_names)))


def geometric(spec, X, u, p, s):
    return call(spec, "geometric_stiffness", X, u, p, s, out_shape=u.shape + (u.shape[1],))


def mass(spec, X, u, p, kind):
    return call(spec, "mass", X, u, p, kind, out_shape=u.shape + (u.shape[1],))


def damping(spec, X, u, p):
    return call(spec, "damping", X, u, p, out_shape=u.shape + (u.shape[1],))


def midpoint(spec, X, u0, u1, p):
    f, K = np.zeros(u1.shape), np.zeros(u1.shape + (u1.shape[1],))
    spec.kernels.midpoint_force(X, u0, u1, p, f, K)
    return f, K


def rot_mask(spec):
    """(n_edof,) bool: rotational DOFs of the element vector."""
    return np.array([d.startswith("r") for d in spec.node_dofs] * spec.n_nodes)


def step_parameters(spec, u0, u1):
    """The step unknowns: translation increments and τ = 2 tan(Δθ/2) for rotations."""
    z = u1 - u0
    r = rot_mask(spec)
    z[:, r] = 2.0 * np.tan(0.5 * z[:, r])
    return z


def from_step_parameters(spec, u0, z):
    """Inverse of step_parameters: u1 from u0 and (translation increments, τ)."""
    u1 = u0 + z
    r = rot_mask(spec)
    u1[:, r] = u0[:, r] + 2.0 * np.arctan(0.5 * z[:, r])
    return u1


def cross_z(a, b):
    """z-component (2-D) or vector (3-D) cross product, batch over the first axis."""
    if a.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    return np.cross(a, b)


# ---------------------------------------------------------------------------- random batches


def batch(name, rng, n=N_EL, k3=True):
    """Geometry X (n, n_nodes, dim), properties p and a deformed state u of ``name``."""
    spec = get_spec(name)
    dim, nn = spec.dim, spec.n_nodes
    X = rng.uniform(-2.0, 2.0, (n, nn, dim))
    k = 10.0 ** rng.uniform(1.0, 3.0, n)
    c = rng.uniform(0.1, 2.0, n)
    cubic = k * rng.uniform(-0.3, 1.0, n) if k3 else np.zeros(n)
    if name.startswith("spring"):
        d = rng.normal(size=(n, dim))
        d *= rng.uniform(0.5, 2.0, (n, 1)) / np.linalg.norm(d, axis=1, keepdims=True)
        X[:, 1] = X[:, 0] + d
        L0 = np.linalg.norm(d, axis=1) * rng.uniform(0.8, 1.2, n)
        p = np.column_stack([k, L0, c, cubic])
        u = 0.3 * rng.normal(size=(n, spec.n_edof))
    elif name.startswith("bushing"):
        X[:, 1] = X[:, 0] + 0.1 * rng.normal(size=(n, dim))
        p = np.column_stack([k, c, cubic])
        u = 0.3 * rng.normal(size=(n, spec.n_edof))
    else:
        p = np.column_stack([k, rng.uniform(-1.0, 1.0, n), c, cubic])
        u = rng.uniform(-7.0, 7.0, (n, spec.n_edof))  # more than a turn
    return spec, X, p, u


def step(spec, rng, u0, small=False):
    """A random end-of-step state u1: translations moved by O(0.3), rotations by up to
    ±2.5 rad (Cayley needs |Δθ| < π); with ``small`` increments of 1e-7..1e-3 and zero."""
    n = len(u0)
    z = 0.3 * rng.normal(size=u0.shape)
    r = rot_mask(spec)
    z[:, r] = rng.uniform(-2.5, 2.5, (n, r.sum()))
    if small:
        z *= np.array([0.0, 1e-7, 1e-5, 1e-3, 5e-3, 1e-2, 2e-2, 1e-1])[:n, None] if n == 8 else 1e-4
    return u0 + z


@pytest.fixture(params=SPRINGS)
def spring(request):
    return request.param


# ---------------------------------------------------------------------------- registry and properties


def test_registered_with_expected_layout():
    layout = {
        "point_mass2d": ("vertex", 1, 2, ("ux", "uy", "rz"), ("m", "J")),
        "point_mass2d_translational": ("vertex", 1, 2, ("ux", "uy"), ("m",)),
        "point_mass3d": ("vertex", 1, 3, ("ux", "uy", "uz"), ("m",)),
        "rigid_body2d": ("vertex", 1, 2, ("ux", "uy", "rz"), ("m", "J")),
        "rigid_body2d_offset": ("vertex", 1, 2, ("ux", "uy", "rz"), ("m", "J", "cx", "cy")),
        "spring2d": ("line", 2, 2, ("ux", "uy"), ("k", "L0", "c", "k3")),
        "spring3d": ("line", 2, 3, ("ux", "uy", "uz"), ("k", "L0", "c", "k3")),
        "bushing2d": ("line", 2, 2, ("ux", "uy"), ("k", "c", "k3")),
        "bushing3d": ("line", 2, 3, ("ux", "uy", "uz"), ("k", "c", "k3")),
        "rotational_spring2d": ("line", 2, 2, ("rz",), ("k", "theta0", "c", "k3")),
        "rotational_spring2d_ground": ("vertex", 1, 2, ("rz",), ("k", "theta0", "c", "k3")),
    }
    assert set(layout) <= set(available())
    for name, (cell, nn, dim, dofs, params) in layout.items():
        spec = get_spec(name)
        assert (spec.cell_type, spec.n_nodes, spec.dim, spec.node_dofs, spec.params) == (cell, nn, dim, dofs, params), name
        assert spec.kernels.midpoint_force is not None
        assert not spec.oriented
    assert get_spec("spring2d").requires_length and not get_spec("bushing2d").requires_length
    assert not get_spec("rotational_spring2d").requires_length
    assert get_spec("rigid_body2d").constant_mass == (0, 1, 2)
    assert get_spec("rigid_body2d_offset").constant_mass == ()
    assert all(get_spec(n).kernels.damping is not None for n in SPRINGS)
    assert all(get_spec(n).kernels.damping is None for n in MASSES)


def test_property_rows_from_values_with_defaults_and_named_errors():
    spec = get_spec("spring2d")
    assert spec.property_row(None, None, {"k": 3.0, "L0": 2.0}).tolist() == [3.0, 2.0, 0.0, 0.0]
    assert spec.property_row(None, None, {"k": 3.0, "L0": 2.0, "c": 0.5, "k3": 7.0}).tolist() == [3.0, 2.0, 0.5, 7.0]
    with pytest.raises(KeyError, match="L0"):
        spec.property_row(None, None, {"k": 3.0})
    with pytest.raises(KeyError, match="stiffness"):
        spec.property_row(None, None, {"k": 3.0, "L0": 1.0, "stiffness": 1.0})
    rot = get_spec("rotational_spring2d")
    assert rot.property_row(None, None, {"k": 2.0}).tolist() == [2.0, 0.0, 0.0, 0.0]
    with pytest.raises(KeyError, match="'k'|k"):
        rot.property_row(None, None, {"c": 1.0})
    with pytest.raises(KeyError, match="J"):
        get_spec("point_mass2d").property_row(None, None, {"m": 1.0})
    with pytest.raises(KeyError, match="cx, cy"):
        get_spec("rigid_body2d_offset").property_row(None, None, {"m": 1.0, "J": 1.0})
    for name in SPRINGS + MASSES:
        with pytest.raises(ValueError, match="direct values"):
            get_spec(name).property_row(Material(E=1.0, rho=1.0), Section(A=1.0, I=1.0))


def test_model_reports_missing_discrete_parameter():
    mesh = Mesh(np.array([[0.0, 0.0], [1.0, 0.0]]))
    model = Model(mesh)
    model.add_discrete("s", "spring2d", (0, 1), k=1.0)
    model.add_discrete("m", "point_mass2d_translational", 1, m=1.0)
    problems = model.problems()
    assert any("spring2d" in p and "L0" in p for p in problems), problems


# ---------------------------------------------------------------------------- springs: statics


def test_tangent_is_derivative_of_force(spring):
    rng = np.random.default_rng(1)
    spec, X, p, u = batch(spring, rng)
    f, K = tangent(spec, X, u, p)
    assert np.allclose(f, force(spec, X, u, p), rtol=1e-14, atol=0.0)
    h = 1e-6
    for j in range(spec.n_edof):
        du = np.zeros_like(u)
        du[:, j] = h
        fd = (force(spec, X, u + du, p) - force(spec, X, u - du, p)) / (2 * h)
        scale = np.abs(K).max(axis=(1, 2))[:, None]
        assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
        assert np.all(np.abs(K[:, :, j] - fd) <= 1e-6 * scale), (spring, j)


def test_force_is_gradient_of_energy(spring):
    rng = np.random.default_rng(2)
    spec, X, p, u = batch(spring, rng)
    f = force(spec, X, u, p)
    h = 1e-6
    for j in range(spec.n_edof):
        du = np.zeros_like(u)
        du[:, j] = h
        fd = (energy(spec, X, u + du, p) - energy(spec, X, u - du, p)) / (2 * h)
        scale = np.abs(f).max(axis=1)
        assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
        assert np.all(np.abs(f[:, j] - fd) <= 1e-7 * scale), (spring, j)


def test_resultants_against_force_and_closed_form(spring):
    rng = np.random.default_rng(3)
    spec, X, p, u = batch(spring, rng)
    f, s = force(spec, X, u, p), resultants(spec, X, u, p)
    nd = len(spec.node_dofs)
    if spring.startswith("spring"):
        x21 = X[:, 1] - X[:, 0] + u[:, nd:] - u[:, :nd]
        l = np.linalg.norm(x21, axis=1)
        delta = l - p[:, 1]
        assert np.allclose(s[:, 0], p[:, 0] * delta + p[:, 3] * delta**3, rtol=1e-12)
        assert np.allclose(f[:, nd:], s[:, :1] * x21 / l[:, None], rtol=1e-12)
        assert np.allclose(energy(spec, X, u, p), 0.5 * p[:, 0] * delta**2 + 0.25 * p[:, 3] * delta**4, rtol=1e-12)
    elif spring.startswith("bushing"):
        d = u[:, nd:] - u[:, :nd]
        a = p[:, 0] + p[:, 2] * (d * d).sum(axis=1)
        assert np.allclose(s, a[:, None] * d, rtol=1e-13)
        assert np.allclose(f[:, nd:], s, rtol=1e-13)
    else:
        phi = u[:, -1] - (u[:, 0] if spec.n_nodes == 2 else 0.0) - p[:, 1]
        assert np.allclose(s[:, 0], p[:, 0] * phi + p[:, 3] * phi**3, rtol=1e-12)
        assert np.allclose(f[:, -1], s[:, 0], rtol=1e-14)
    if spec.n_nodes == 2:  # balanced: Σ f = 0 per component
        assert np.allclose(f[:, :nd] + f[:, nd:], 0.0, atol=1e-12 * np.abs(f).max())


def test_geometric_stiffness_is_the_stress_dependent_part(spring):
    rng = np.random.default_rng(4)
    spec, X, p, u = batch(spring, rng)
    _, K = tangent(spec, X, u, p)
    s = resultants(spec, X, u, p)
    Kg = geometric(spec, X, u, p, s)
    assert np.allclose(geometric(spec, X, u, p, 2.0 * s), 2.0 * Kg, rtol=1e-14, atol=0.0)
    Km = K - Kg
    assert np.allclose(Km, np.swapaxes(Km, 1, 2), atol=1e-12 * np.abs(K).max())
    if spring.startswith("spring"):
        nd = spec.dim
        x21 = X[:, 1] - X[:, 0] + u[:, nd:] - u[:, :nd]
        e = x21 / np.linalg.norm(x21, axis=1, keepdims=True)
        l = np.linalg.norm(x21, axis=1)
        delta = l - p[:, 1]
        k = (p[:, 0] + 3 * p[:, 3] * delta**2)[:, None, None] * np.einsum("ei,ej->eij", e, e)
        assert np.allclose(Km[:, :nd, :nd], k, rtol=1e-10, atol=1e-12 * np.abs(k).max())
        assert np.allclose(Km[:, :nd, nd:], -k, rtol=1e-10, atol=1e-12 * np.abs(k).max())
    else:
        assert np.all(Kg == 0.0)


def test_central_spring_is_invariant_under_rigid_motion():
    rng = np.random.default_rng(5)
    for name in ("spring2d", "spring3d"):
        spec, X, p, _ = batch(name, rng)
        dim = spec.dim
        p[:, 1] = np.linalg.norm(X[:, 1] - X[:, 0], axis=1)  # unstressed in the reference
        centre = X.mean(axis=1, keepdims=True)

        def rigid(angle):
            if dim == 2:
                c, s = np.cos(angle), np.sin(angle)
                R = np.array([[c, -s], [s, c]])
            else:
                w = np.array([0.3, -0.5, 0.8]) * angle
                W = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
                th = np.linalg.norm(w)
                R = np.eye(3) + np.sin(th) / th * W + (1 - np.cos(th)) / th**2 * W @ W
            x = centre + 0.7 + np.einsum("ij,enj->eni", R, X - centre)
            return (x - X).reshape(len(X), -1)

        u0, u1 = rigid(2.0), rigid(-1.3)
        scale = p[:, 0].max()
        assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(force(spec, X, u0, p)).max() < 1e-12 * scale
        assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(energy(spec, X, u1, p)).max() < 1e-24 * scale
        f, _ = midpoint(spec, X, u0, u1, p)
        assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(f).max() < 1e-12 * scale
        # the damper does not resist a rigid velocity field (translation plus spin)
        C = damping(spec, X, u0, p)
        x0 = (X.reshape(len(X), -1) + u0).reshape(X.shape)
        if dim == 2:
            v = np.stack([-x0[..., 1], x0[..., 0]], axis=-1) * 1.3 + 0.4
        else:
            v = np.cross(np.array([0.2, -0.7, 1.3]), x0) + 0.4
        assert np.all(np.asarray(p[:, 2].max() * np.abs(v).max()) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(np.einsum("eij,ej->ei", C, v.reshape(len(X), -1))).max() < 1e-12 * p[:, 2].max() * np.abs(v).max()


def test_bushing_ignores_translation_but_resists_rotation():
    """What holds for the bushing: a common translation gives no force; a rigid rotation
    of the pair gives F = k (R − I) X21 (it is not rotation-invariant)."""
    rng = np.random.default_rng(6)
    spec, X, p, _ = batch("bushing2d", rng, k3=False)
    t = rng.normal(size=(N_EL, 2))
    assert np.abs(force(spec, X, np.hstack([t, t]), p)).max() == 0.0
    a = 0.9
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    x = np.einsum("ij,enj->eni", R, X)
    u = (x - X).reshape(N_EL, -1)
    X21 = X[:, 1] - X[:, 0]
    assert np.allclose(resultants(spec, X, u, p), p[:, :1] * (X21 @ R.T - X21), rtol=1e-12)


def test_rotational_spring_ignores_common_rotation():
    rng = np.random.default_rng(7)
    spec, X, p, u = batch("rotational_spring2d", rng)
    common = u + rng.uniform(-10, 10, (N_EL, 1))
    assert np.allclose(force(spec, X, common, p), force(spec, X, u, p), rtol=1e-9)
    assert np.allclose(energy(spec, X, common, p), energy(spec, X, u, p), rtol=1e-9)


# ---------------------------------------------------------------------------- springs: mid-point (discrete gradient)


def test_midpoint_energy_identity(spring):
    """f·Δ = V(u1) − V(u0) to round-off, Δ = (translation increments, τ = 2 tan(Δθ/2))."""
    rng = np.random.default_rng(8)
    for small in (False, True):
        spec, X, p, u0 = batch(spring, rng)
        u1 = step(spec, rng, u0, small)
        f, _ = midpoint(spec, X, u0, u1, p)
        work = np.einsum("ei,ei->e", f, step_parameters(spec, u0, u1))
        V0, V1 = energy(spec, X, u0, p), energy(spec, X, u1, p)
        scale = np.maximum(np.abs(V0) + np.abs(V1), 1e-300)
        assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
        assert np.all(np.abs(work - (V1 - V0)) <= 1e-12 * scale), (spring, small, (work - (V1 - V0)) / scale)


def test_midpoint_tangent_is_derivative_wrt_translations_and_tau(spring):
    rng = np.random.default_rng(9)
    for small in (False, True):
        spec, X, p, u0 = batch(spring, rng)
        u1 = step(spec, rng, u0, small)
        f, K = midpoint(spec, X, u0, u1, p)
        z = step_parameters(spec, u0, u1)
        h = 1e-6
        for j in range(spec.n_edof):
            dz = np.zeros_like(z)
            dz[:, j] = h
            fp, _ = midpoint(spec, X, u0, from_step_parameters(spec, u0, z + dz), p)
            fm, _ = midpoint(spec, X, u0, from_step_parameters(spec, u0, z - dz), p)
            fd = (fp - fm) / (2 * h)
            scale = np.abs(K).max(axis=(1, 2))[:, None]
            assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
            assert np.all(np.abs(K[:, :, j] - fd) <= 2e-6 * scale), (spring, small, j)


def test_midpoint_reduces_to_static_force_and_half_tangent(spring):
    rng = np.random.default_rng(10)
    spec, X, p, u = batch(spring, rng)
    f, K = midpoint(spec, X, u, u.copy(), p)
    fs, Ks = tangent(spec, X, u, p)
    assert np.allclose(f, fs, rtol=1e-12, atol=1e-14 * np.abs(fs).max())
    assert np.allclose(K, 0.5 * Ks, rtol=1e-12, atol=1e-13 * np.abs(Ks).max())
    # and continuously so for tiny steps (series branches)
    u1 = u + 1e-9 * rng.normal(size=u.shape)
    f1, _ = midpoint(spec, X, u, u1, p)
    assert np.allclose(f1, fs, rtol=1e-6, atol=1e-8 * np.abs(fs).max())


def test_midpoint_conserves_momentum(spring):
    """Σ f = 0 for two-node types; for the central spring also zero torque about the
    origin with the mid-point positions (force along the mid-point chord)."""
    rng = np.random.default_rng(11)
    spec, X, p, u0 = batch(spring, rng)
    if spec.n_nodes == 1:
        pytest.skip("one-node spring reacts on the ground")
    u1 = step(spec, rng, u0)
    f, _ = midpoint(spec, X, u0, u1, p)
    nd = len(spec.node_dofs)
    scale = np.abs(f).max()
    assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
    assert np.abs(f[:, :nd] + f[:, nd:]).max() <= 1e-12 * scale
    if spring.startswith("spring"):
        xm = X + (0.5 * (u0 + u1)).reshape(X.shape)
        torque = cross_z(xm[:, 0], f[:, :nd]) + cross_z(xm[:, 1], f[:, nd:])
        assert np.all(np.asarray(scale * np.abs(xm).max()) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(torque).max() <= 1e-12 * scale * np.abs(xm).max()
        fs = force(spec, X, u0, p)
        x0 = X + u0.reshape(X.shape)
        assert np.all(np.asarray(np.abs(fs).max() * np.abs(x0).max()) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(cross_z(x0[:, 0], fs[:, :nd]) + cross_z(x0[:, 1], fs[:, nd:])).max() <= 1e-12 * np.abs(fs).max() * np.abs(x0).max()


def test_midpoint_of_rotational_spring_handles_common_rotation():
    """Both nodes turned by the same step: φ and V unchanged, the force pair stays balanced."""
    rng = np.random.default_rng(12)
    spec, X, p, u0 = batch("rotational_spring2d", rng)
    u1 = u0 + rng.uniform(-2.5, 2.5, (N_EL, 1))
    f, _ = midpoint(spec, X, u0, u1, p)
    M = force(spec, X, u0, p)[:, 1]
    h = 0.5 * (u1 - u0)[:, 0]
    assert np.allclose(f[:, 1], M * np.cos(h) ** 2, rtol=1e-12)
    assert np.allclose(f[:, 0], -f[:, 1], rtol=1e-14)


# ---------------------------------------------------------------------------- springs: damping, mass


def test_damping_is_symmetric_dissipative_and_as_specified(spring):
    rng = np.random.default_rng(13)
    spec, X, p, u = batch(spring, rng)
    C = damping(spec, X, u, p)
    assert np.allclose(C, np.swapaxes(C, 1, 2), atol=0.0)
    v = rng.normal(size=u.shape)
    power = np.einsum("ei,eij,ej->e", v, C, v)
    assert np.all(power >= -1e-14 * np.abs(C).max())
    assert np.all(np.linalg.eigvalsh(C) >= -1e-12 * np.abs(C).max())
    nd = len(spec.node_dofs)
    if spring.startswith("spring"):
        x21 = X[:, 1] - X[:, 0] + u[:, nd:] - u[:, :nd]
        e = x21 / np.linalg.norm(x21, axis=1, keepdims=True)
        v21 = v[:, nd:] - v[:, :nd]
        assert np.allclose(power, p[:, 2] * (e * v21).sum(axis=1) ** 2, rtol=1e-12)
    elif spring.startswith("bushing"):
        v21 = v[:, nd:] - v[:, :nd]
        assert np.allclose(power, p[:, 1] * (v21 * v21).sum(axis=1), rtol=1e-12)
    else:
        rel = v[:, -1] - (v[:, 0] if spec.n_nodes == 2 else 0.0)
        assert np.allclose(power, p[:, 2] * rel**2, rtol=1e-12)


def test_springs_are_massless(spring):
    rng = np.random.default_rng(14)
    spec, X, p, u = batch(spring, rng)
    for kind in (0, 1, 2):
        assert np.all(mass(spec, X, u, p, kind) == 0.0)
    with pytest.raises(ValueError):
        mass(spec, X, u, p, 5)


# ---------------------------------------------------------------------------- point masses and rigid bodies


@pytest.mark.parametrize("name", ["point_mass2d", "point_mass2d_translational", "point_mass3d", "rigid_body2d"])
def test_point_mass_matrix_totals_and_zero_stiffness(name):
    rng = np.random.default_rng(15)
    spec = get_spec(name)
    n = N_EL
    X = rng.normal(size=(n, 1, spec.dim))
    p = rng.uniform(0.5, 3.0, (n, len(spec.params)))
    u = rng.normal(size=(n, spec.n_edof))
    for kind in (0, 1, 2):
        M = mass(spec, X, u, p, kind)
        assert np.all(M == mass(spec, X, np.zeros_like(u), p, kind))  # constant
        for e in range(n):
            expected = [p[e, 0]] * spec.dim + ([p[e, 1]] if spec.n_edof > spec.dim else [])
            assert np.array_equal(M[e], np.diag(expected))
    with pytest.raises(ValueError):
        mass(spec, X, u, p, 3)
    assert np.all(force(spec, X, u, p) == 0.0)
    f, K = tangent(spec, X, u, p)
    assert np.all(f == 0.0) and np.all(K == 0.0)
    assert np.all(energy(spec, X, u, p) == 0.0)
    assert resultants(spec, X, u, p).shape == (n, 0)
    f, K = midpoint(spec, X, u, u + 0.1, p)
    assert np.all(f == 0.0) and np.all(K == 0.0)


def offset_batch(rng, n=N_EL):
    spec = get_spec("rigid_body2d_offset")
    X = rng.normal(size=(n, 1, 2))
    p = np.column_stack([rng.uniform(0.5, 3.0, n), rng.uniform(0.1, 1.0, n), rng.normal(size=n), rng.normal(size=n)])
    u = np.column_stack([rng.normal(size=(n, 2)), rng.uniform(-7.0, 7.0, n)])
    return spec, X, p, u


def test_offset_rigid_body_kinetic_energy():
    """½ vᵀ M(θ) v = ½ m |v_c|² + ½ J ω² with v_c = v + ω ẑ × R(θ) c, for every kind."""
    rng = np.random.default_rng(16)
    spec, X, p, u = offset_batch(rng)
    v = rng.normal(size=u.shape)
    th = u[:, 2]
    c = p[:, 2:4]
    r = np.column_stack([np.cos(th) * c[:, 0] - np.sin(th) * c[:, 1], np.sin(th) * c[:, 0] + np.cos(th) * c[:, 1]])
    vc = v[:, :2] + v[:, 2:3] * np.column_stack([-r[:, 1], r[:, 0]])
    T = 0.5 * p[:, 0] * (vc * vc).sum(axis=1) + 0.5 * p[:, 1] * v[:, 2] ** 2
    for kind in (0, 1, 2):
        M = mass(spec, X, u, p, kind)
        assert np.allclose(0.5 * np.einsum("ei,eij,ej->e", v, M, v), T, rtol=1e-13)
        assert np.allclose(M, np.swapaxes(M, 1, 2), atol=0.0)
        assert np.all(np.linalg.eigvalsh(M) > 0.0)
    # zero offset: the same matrix as rigid_body2d, independent of θ
    p0 = p.copy()
    p0[:, 2:] = 0.0
    assert np.allclose(mass(spec, X, u, p0, 0), mass(get_spec("rigid_body2d"), X, u, p0[:, :2], 0), rtol=0, atol=0)
    # gravity as M·g: the weight m g at the node plus its moment r × m g
    g = np.array([0.3, -9.81, 0.0])
    Mg = mass(spec, X, u, p, 1) @ g
    assert np.allclose(Mg[:, :2], p[:, :1] * g[:2], rtol=1e-14)
    assert np.allclose(Mg[:, 2], p[:, 0] * (r[:, 0] * g[1] - r[:, 1] * g[0]), rtol=1e-12)


def test_offset_rigid_body_velocity_force_is_lagrangian():
    """h = Ṁ q̇ − ∂T/∂q (finite differences in θ) is the centrifugal force."""
    rng = np.random.default_rng(17)
    spec, X, p, u = offset_batch(rng)
    v = rng.normal(size=u.shape)
    hk = spec.kernels.velocity_force
    h = np.zeros_like(u)
    hk(X, u, v, p, h)
    eps = 1e-6
    du = np.zeros_like(u)
    du[:, 2] = eps
    dM = (mass(spec, X, u + du, p, 0) - mass(spec, X, u - du, p, 0)) / (2 * eps)
    expected = np.einsum("eij,ej->ei", dM, v) * v[:, 2:3]
    expected[:, 2] -= 0.5 * np.einsum("ei,eij,ej->e", v, dM, v)
    assert np.allclose(h, expected, rtol=1e-7, atol=1e-8 * np.abs(expected).max())
    assert np.allclose(h[:, 2], 0.0)


# ---------------------------------------------------------------------------- end-to-end mid-point integration


def test_midpoint_integration_of_spinning_dumbbell_conserves_energy_and_momenta():
    """Two point masses on a cubic central spring, flying and spinning: the mid-point
    scheme with the spring's discrete gradient conserves energy, linear and angular
    momentum to round-off at large steps."""
    spec = get_spec("spring3d")
    X = np.array([[[0.0, 0.0, 0.0], [1.0, 0.2, 0.0]]])
    p = np.array([[50.0, 0.9, 0.0, 400.0]])
    m = np.repeat([1.0, 2.5], 3)
    x = X.reshape(-1)
    u = np.zeros(6)
    v = np.array([0.1, -1.0, 0.3, 0.2, 0.5, -0.4])
    dt = 0.4

    def totals(u, v):
        T = 0.5 * (m * v * v).sum()
        V = energy(spec, X, u[None], p)[0]
        xs, vs = (x + u).reshape(2, 3), (m * v).reshape(2, 3)
        return T + V, vs.sum(axis=0), np.cross(xs, vs).sum(axis=0)

    E0, P0, L0 = totals(u, v)
    for _ in range(25):
        u1 = u + dt * v
        for _ in range(30):
            f, K = midpoint(spec, X, u[None], u1[None], p)
            v1 = 2.0 / dt * (u1 - u) - v
            g = m * (v1 - v) / dt + f[0]
            if np.abs(g).max() < 1e-11 * np.abs(f).max() + 1e-14:
                break
            u1 = u1 - np.linalg.solve(K[0] + np.diag(2.0 * m / dt**2), g)
        u, v = u1, 2.0 / dt * (u1 - u) - v
        E, P, L = totals(u, v)
        assert np.all(np.asarray(E0) > 0)  # a zero scale would let an all-zero output pass
        assert abs(E - E0) <= 1e-11 * E0
        assert np.all(np.asarray(np.abs(P0).max()) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(P - P0).max() <= 1e-12 * np.abs(P0).max()
        assert np.all(np.asarray(np.abs(L0).max()) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(L - L0).max() <= 1e-11 * np.abs(L0).max()


def test_cayley_midpoint_integration_of_torsion_oscillators_conserves_energy():
    """Two rigid bodies (rotations only) on a cubic rotational spring and one on a ground
    spring, stepped in the Cayley unknowns τ with θ1 = θ0 + 2 atan(τ/2), ω1 = 2τ/Δt − ω0
    and inertia J(ω1 − ω0)/Δt: energy and the pair's angular momentum are exact."""
    pair, ground = get_spec("rotational_spring2d"), get_spec("rotational_spring2d_ground")
    Xp, Xg = np.zeros((1, 2, 2)), np.zeros((1, 1, 2))
    pp = np.array([[30.0, 0.2, 0.0, 80.0]])
    pg = np.array([[10.0, -0.3, 0.0, 5.0]])
    J = np.array([1.0, 0.4, 0.7])
    th = np.zeros(3)  # bodies 0, 1 on the pair spring, body 2 on the ground spring
    w = np.array([2.0, -3.0, 4.0])
    dt = 0.3

    def total(th, w):
        return 0.5 * (J * w * w).sum() + energy(pair, Xp, th[None, :2], pp)[0] + energy(ground, Xg, th[None, 2:], pg)[0]

    E0, H0 = total(th, w), J[0] * w[0] + J[1] * w[1]
    for _ in range(40):
        tau = dt * w
        for _ in range(40):
            th1 = th + 2.0 * np.arctan(0.5 * tau)
            fp, Kp = midpoint(pair, Xp, th[None, :2], th1[None, :2], pp)
            fg, Kg = midpoint(ground, Xg, th[None, 2:], th1[None, 2:], pg)
            w1 = 2.0 * tau / dt - w
            g = J * (w1 - w) / dt + np.concatenate([fp[0], fg[0]])
            if np.abs(g).max() < 1e-12 * (1.0 + np.abs(fp).max() + np.abs(fg).max()):
                break
            K = np.diag(2.0 * J / dt**2)
            K[:2, :2] += Kp[0]
            K[2:, 2:] += Kg[0]
            tau = tau - np.linalg.solve(K, g)
        th, w = th + 2.0 * np.arctan(0.5 * tau), 2.0 * tau / dt - w
        assert np.all(np.asarray(E0) > 0)  # a zero scale would let an all-zero output pass
        assert abs(total(th, w) - E0) <= 1e-11 * E0
        assert np.all(np.asarray(np.abs(J * w).max()) > 0)  # a zero scale would let an all-zero output pass
        assert abs(J[0] * w[0] + J[1] * w[1] - H0) <= 1e-12 * np.abs(J * w).max()
    assert np.abs(th).max() > 1.0  # it really moved


# ---------------------------------------------------------------------------- statics through a Model


def test_static_model_with_discrete_elements():
    """A particle hanging on a hardening spring under gravity (k δ + k3 δ³ = m g), and a
    moment on two rigid bodies in series on rotational springs (θ = M/k)."""
    pts = np.array([[0.0, 0.0], [0.0, -1.0], [2.0, 0.0], [3.0, 0.0]])
    model = Model(Mesh(pts))
    k, k3, m, g = 100.0, 2.0e3, 3.0, 9.81
    model.add_discrete("spring", "spring2d", (0, 1), k=k, L0=1.0, k3=k3, c=0.5)
    model.add_discrete("bob", "point_mass2d_translational", 1, m=m)
    model.add_discrete("bodies", "rigid_body2d", [2, 3], m=1.0, J=0.1)
    model.add_discrete("hinge", "rotational_spring2d_ground", 2, k=40.0)
    model.add_discrete("link", "rotational_spring2d", (2, 3), k=10.0)
    model.fix(0, "translations")
    model.fix(1, ("ux",))
    model.fix([2, 3], "translations")
    model.gravity((0.0, -g))
    model.point_load(3, mz=2.0)
    assert model.problems() == []
    res = solve_static(model, steps=4)
    u = res.states[-1]
    t = res.table
    delta = -u[t.var_of(1, "uy")]
    assert k * delta + k3 * delta**3 == pytest.approx(m * g, rel=1e-9)
    assert u[t.var_of(2, "rz")] == pytest.approx(2.0 / 40.0, rel=1e-9)
    assert u[t.var_of(3, "rz")] - u[t.var_of(2, "rz")] == pytest.approx(2.0 / 10.0, rel=1e-9)


# ---------------------------------------------------------------------------- pure Python run


def test_suite_without_jit_subprocess():
    """The same tests pass with NUMBA_DISABLE_JIT=1 (kernels run as plain Python)."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", __file__, "-k", "not subprocess"],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
