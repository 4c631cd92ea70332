"""The element contract of femb.elements.base: every registered element type fills the
typed fields consistently, superelement types (made per size on demand) fill it with
element-internal variables, and several stress points per element (declared for shells)
are refused until the framework supports them."""
import dataclasses

import numpy as np
import pytest

from femb import elements
from femb.core.errors import ModelError
from femb.correlation import build_table
from femb.elements import CONSISTENT, INVARIANT, LUMPED, ElementKernels, ElementSpec, get_spec
from femb.mesh import line_mesh
from femb.model import Material, Model, Section

KINDS = {LUMPED, CONSISTENT, INVARIANT}
REQUIRED = ("internal_force", "tangent", "resultants", "geometric_stiffness", "strain_energy", "mass")


def test_the_spec_has_typed_fields_and_no_untyped_side_channel():
    names = {f.name for f in dataclasses.fields(ElementSpec)}
    assert "extra" not in names
    assert {"rotary_kinds", "prepare_values", "law_stiffness", "parameter_aliases", "drawn_as", "stress_points",
            "n_internal"} <= names
    assert all(f.type is not None for f in dataclasses.fields(ElementSpec))
    assert set(ElementKernels.__annotations__) == set(ElementKernels._fields)
    assert {"velocity_force", "area_load"} <= set(ElementKernels._fields)


@pytest.mark.parametrize("name", elements.available())
def test_every_registered_element_fills_the_contract(name):
    spec = get_spec(name)
    assert spec.name == name
    assert all(callable(getattr(spec.kernels, k)) for k in REQUIRED)
    assert spec.n_edof == spec.n_nodes * len(spec.node_dofs)  # no internal variables yet
    assert spec.n_stress_points == 1 and spec.n_internal == 0 and spec.kernels.area_load is None
    assert set(spec.constant_mass) <= KINDS and set(spec.rotary_kinds) <= KINDS
    # the rotary-inertia split exists for oriented elements only, for kinds that are not constant
    assert not spec.rotary_kinds or (spec.oriented and not set(spec.rotary_kinds) & set(spec.constant_mass))
    assert set(spec.defaults) <= set(spec.params)
    # force laws come with the stiffness they replace, which is a parameter of the element
    assert (spec.law_stiffness is not None) == ("law" in spec.table_params)
    assert spec.law_stiffness is None or spec.law_stiffness in spec.params
    for key, (kind, provides) in spec.parameter_aliases.items():
        assert kind in ("number", "vector") and set(provides) <= set(spec.params), key


@pytest.mark.parametrize("n_nodes, n_modes", [(1, 0), (2, 3), (5, 1)])
def test_superelement_types_are_made_per_size_with_internal_variables(n_nodes, n_modes):
    spec = get_spec(f"superelement_{n_nodes}n_{n_modes}q")
    assert spec is get_spec(f"superelement_{n_nodes}n_{n_modes}q")  # one spec per size
    assert spec.n_internal == n_modes and spec.n_edof == 6 * n_nodes + n_modes and spec.oriented
    assert spec.kernels is get_spec("superelement_2n_0q").kernels  # one set of compiled kernels for all sizes
    assert all(callable(getattr(spec.kernels, k)) for k in REQUIRED)
    assert spec.constant_mass == () and spec.rotary_kinds == ()  # the reduced mass turns with the body


def test_rotary_inertia_split_of_oriented_elements():
    """The kinds in rotary_kinds give no translation–rotation coupling at R = I."""
    for name in ("beam3d", "rigid_body3d"):
        spec = get_spec(name)
        n_el = 1
        X = np.array([[[0.0, 0.0, 0.0], [1.0, 0.2, 0.1]]])[:, : spec.n_nodes]
        values = {"m": 2.0, "Jxx": 0.1, "Jyy": 0.2, "Jzz": 0.3, "Jxy": 0.01} if name == "rigid_body3d" else None
        p = spec.property_row(Material(E=1e3, nu=0.3, rho=2.0), Section(A=0.1, Iy=1e-3, Iz=2e-3, J=3e-3), values)[None]
        u = np.zeros((n_el, spec.n_edof))
        R = np.tile(np.eye(3), (n_el, spec.n_nodes, 1, 1))
        rot = np.array([d in ("rx", "ry", "rz") for d in spec.node_dofs] * spec.n_nodes)
        for kind in spec.rotary_kinds:
            M = np.zeros((n_el, spec.n_edof, spec.n_edof))
            spec.kernels.mass(X, u, R, p, kind, M)
            assert np.all(M[0][np.ix_(rot, ~rot)] == 0.0)
            assert np.abs(M[0][np.ix_(rot, rot)]).max() > 0.0


@pytest.mark.parametrize("declared", [dict(stress_points=((0.5, 0.0), (0.0, 0.5)))])
def test_element_types_with_several_stress_points_are_refused(monkeypatch, declared):
    truss = get_spec("truss2d")
    future = dataclasses.replace(truss, name="future2d", **declared)
    assert future.n_edof == 4 + declared.get("n_internal", 0)
    monkeypatch.setattr(elements, "get_spec", lambda name: future if name == "future2d" else truss)
    model = Model(line_mesh((0.0, 0.0), (1.0, 0.0), 2, "bar"))
    model.add_part("bar", "future2d", "bar", Material(E=1.0, nu=0.3, rho=1.0), Section(A=1.0, I=1.0))
    model.fix("bar_start")
    with pytest.raises(ModelError, match="part 'bar'.*'future2d'.*several stress points.*does not support yet"):
        build_table(model)


@pytest.mark.parametrize("name", [n for n in elements.available() if not get_spec(n).internal_forces])
def test_elements_without_internal_forces_have_zero_force_kernels(name):
    """``internal_forces`` False lets the dynamic assembly skip an element's blocks: its
    internal force, tangent and mid-point force must vanish at any state."""
    spec = get_spec(name)
    rng = np.random.default_rng(5)
    n_el, n = 2, spec.n_edof
    X = rng.normal(size=(n_el, spec.n_nodes, spec.dim))
    p = rng.uniform(0.5, 2.0, size=(n_el, len(spec.params)))
    u0, u1 = rng.normal(size=(n_el, n)), rng.normal(size=(n_el, n))
    f, K = np.full((n_el, n), np.nan), np.full((n_el, n, n), np.nan)
    k = spec.kernels
    if spec.oriented:
        R = np.tile(np.eye(3), (n_el, spec.n_nodes, 1, 1))
        k.internal_force(X, u0, R, p, f)
        assert not f.any()
        k.tangent(X, u0, R, p, f, K)
        assert not f.any() and not K.any()
        psi, D = np.zeros((n_el, spec.n_nodes, 3)), np.zeros((n_el, spec.n_nodes, 3, 3))
        f[:], K[:] = np.nan, np.nan
        k.midpoint_force(X, u0, R, u1, R, 0.5 * (u0 + u1), R, psi, D, p, f, K)
    else:
        k.internal_force(X, u0, p, f)
        assert not f.any()
        k.tangent(X, u0, p, f, K)
        assert not f.any() and not K.any()
        f[:], K[:] = np.nan, np.nan
        k.midpoint_force(X, u0, u1, p, f, K)
    assert not f.any() and not K.any()
