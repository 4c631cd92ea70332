"""Geometric stiffness of reduced components by unit-load superposition
(femb.solvers.reduction.stress_stiffening).

Test body: a uniform Euler–Bernoulli beam of 20 beam3d elements along x, L = 1, EI = 1,
ρA = 1 (no section rotary inertia, as in the closed-form references), axial and torsional
stiffness high enough to keep those modes far above the bending ones.
"""
import numpy as np
import pytest
import scipy.linalg as sla

import femb
from femb.mesh import line_mesh
from femb.solvers.reduction.component import reduce_component
from femb.solvers.reduction.stress_stiffening import inertial_unit_states, modal_geometric_stiffness, state_geometric_stiffness

N_EL = 20
SECTION = dict(EA=1e6, GJ=1e2, EIy=1.0, EIz=1.0, rhoA=1.0, rhoIp=1e-4, rhoIy=0.0, rhoIz=0.0, vx=0.0, vy=1.0, vz=0.0)


def beam(n_el=N_EL):
    model = femb.Model(line_mesh((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n_el, "b"), dim=3)
    model.add_part("b", "beam3d", "b", values=SECTION)
    return model


@pytest.mark.parametrize("gamma, reference", [(1.0, 3.6817), (2.0, 4.1373), (6.0, 7.3604)])
def test_centrifugal_kernel_gives_southwell_flap_frequencies(gamma, reference):
    """A cantilever spinning at Ω about z through its root, reduced on the root node alone
    with k = 8 fixed-interface modes (four bending pairs): the flap frequencies of
    K_qq + Ω² C_zz against M_qq = I follow the rotating-cantilever values ω₁(γ) = 3.6817,
    4.1373, 7.3604 for γ = Ω√(ρAL⁴/EI) = 1, 2, 6 (Southwell stiffening; the issue asks 0.5 %
    with k ≥ 4 modes per direction), and equal the unreduced mesh under the same
    centrifugal pre-stress to within the Ritz error of the modal truncation (from above)."""
    model = beam()
    rc = reduce_component(model, 0, 8, mass="consistent")
    kg = modal_geometric_stiffness(rc, origin=[0.0, 0.0, 0.0])
    b = rc.basis
    q = slice(b.n_boundary, None)
    K = b.K[q, q] + kg.matrix(omega=[0.0, 0.0, gamma])[q, q]
    w = np.sqrt(sla.eigvalsh(K, b.M[q, q]))
    assert w[0] == pytest.approx(reference, rel=5e-3)
    assert w[1] == pytest.approx(w[0], rel=1e-8)  # flap and chord bending alike (square section, no softening term)
    # the unreduced interior under the same unit centrifugal state
    prob = rc.problem
    K_full = prob.assembler.tangent(np.zeros(prob.table.n_var), include_geometric=False)[1].toarray()
    M_full = prob.assembler.mass_matrix(1, np.zeros(prob.table.n_var)).toarray()
    T = b.transformation()
    i = b.interior
    C_full = state_geometric_stiffness(rc, inertial_unit_states(rc, kg.origin)[2][2])
    w_full = np.sqrt(sla.eigvalsh((K_full + gamma ** 2 * C_full)[np.ix_(i, i)], M_full[np.ix_(i, i)])[0])
    assert w_full <= w[0] * (1 + 1e-9) and w[0] - w_full < 2e-4 * w_full
    assert np.abs(T.T @ C_full @ T - kg.centrifugal[2]).max() < 1e-9 * np.abs(C_full).max()


def test_interface_kernel_gives_the_euler_load():
    """The beam reduced on both end nodes (k = 4): the unit state of an axial tip
    displacement δ is a uniform normal force N = EA δ / L, so the pinned–pinned reduced
    beam buckles where K_ff + δ G_ff is singular at N_cr = π² EI / L² = 9.8696 (Euler;
    the Ritz model bounds it from above, within 1e-3 with four modes)."""
    rc = reduce_component(beam(), [0, N_EL], 4, mass="consistent")
    b = rc.basis
    kg = modal_geometric_stiffness(rc)
    dofs = rc.boundary_dofs()
    tip_ux = dofs.index((N_EL, "ux"))
    held = {(0, "ux"), (0, "uy"), (0, "uz"), (0, "rx"), (N_EL, "ux"), (N_EL, "uy"), (N_EL, "uz")}
    free = [j for j, d in enumerate(dofs) if d not in held] + list(range(b.n_boundary, b.K.shape[0]))
    G = kg.reduced_states[tip_ux]
    # (K + δ G) φ = 0  ⇔  −G φ = (1/δ) K φ; compression (δ < 0) buckles at the most negative 1/δ
    mu = sla.eigvals(-G[np.ix_(free, free)], b.K[np.ix_(free, free)]).real
    delta_cr = 1.0 / mu.min()
    N_cr = -1e6 * delta_cr / 1.0  # compressive normal force EA |δ| / L
    assert N_cr == pytest.approx(np.pi ** 2, rel=1e-3)
    assert N_cr >= np.pi ** 2 * (1 - 1e-6)


def test_kernels_are_symmetric_and_rigid_states_are_stress_free():
    """Every unit matrix is symmetric; the unit states of a rigid motion of the boundary
    (a translation of both end nodes) carry no stress, so their kernel vanishes."""
    rc = reduce_component(beam(), [0, N_EL], 2, mass="consistent")
    kg = modal_geometric_stiffness(rc)
    for group in (kg.reduced_states, kg.origin_acceleration, kg.angular_acceleration, kg.centrifugal):
        for G in group:
            assert np.abs(G - G.T).max() <= 1e-12 * max(np.abs(G).max(), 1e-300)
    dofs = rc.boundary_dofs()
    translation = np.zeros(kg.reduced_states.shape[0])
    translation[[dofs.index((0, "uy")), dofs.index((N_EL, "uy"))]] = 1.0
    scale = np.abs(kg.reduced_states).max()
    assert np.abs(kg.matrix(reduced=translation)).max() <= 1e-8 * scale


def test_planar_centrifugal_kernel():
    """The same cantilever as a planar beam2d model (ω_z² the one product): the bending
    frequencies of K_qq + Ω² C against M_qq = I at γ = 2 give the stiffened ω₁ = 4.1373
    (the chord-wise softening −Ω² of the rotating frame is an inertial term, not part of
    the geometric stiffness)."""
    model = femb.Model(line_mesh((0.0, 0.0), (1.0, 0.0), N_EL, "b"))
    model.add_part("b", "beam2d", "b", values=dict(EA=1e6, EI=1.0, rhoA=1.0, rhoI=0.0))
    rc = reduce_component(model, 0, 4, mass="consistent")
    kg = modal_geometric_stiffness(rc, origin=[0.0, 0.0])
    assert kg.centrifugal.shape[0] == 1 and kg.angular_acceleration.shape[0] == 1
    b = rc.basis
    q = slice(b.n_boundary, None)
    w = np.sqrt(sla.eigvalsh(b.K[q, q] + kg.matrix(omega=2.0)[q, q], b.M[q, q]))
    assert w[0] == pytest.approx(4.1373, rel=5e-3)
