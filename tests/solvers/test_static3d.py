"""3-D models with oriented nodes (beam3d, beam3d_timoshenko) through the framework:
statics with multiplicative rotation updates (roll-up, helix, more than a full turn,
objectivity, prescribed rotations, rotation-dependent moment loads), linear buckling
(Meijaard's lateral and torsional cantilever tables) and modal analysis."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from femb.assembly import Assembler
from femb.core.errors import ModelError
from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers import solve_buckling, solve_modal, solve_static
from femb.solvers.configuration import Configuration
from femb.solvers.problem import StaticProblem
from femb.validation.analytic import rollup_tip
from femb.validation.models import cantilever, cantilever3d

EIY, EIZ, GJ = 2.0, 3.0, 1.5
E_X = np.array([1.0, 0.0, 0.0])


def expm(theta):
    return Rotation.from_rotvec(theta).as_matrix()


def positions(model, res, frame=-1):
    """(n_nodes, 3) current nodal positions of a frame."""
    return model.mesh.points + res.nodal_displacements(frame)


def fit_rate(ns, errors):
    return -np.polyfit(np.log(ns), np.log(errors), 1)[0]


# --------------------------------------------------------------------------- roll-up
def rollup_error(n, axis, element="beam3d", turns=1.0, steps=20):
    """Worst tip error / L over the load path of a roll-up by an end moment
    2π·turns·EI/L about global Y (EIy) or Z (EIz), and the Results."""
    model = cantilever3d(n, EIy=EIY, EIz=EIZ, GJ=GJ, element=element)
    EI = EIY if axis == "my" else EIZ
    bend = np.array([0.0, 1.0, 0.0]) if axis == "my" else np.array([0.0, 0.0, 1.0])
    moment = 2.0 * np.pi * turns * EI
    model.point_load("beam_end", **{axis: moment})
    res = solve_static(model, steps=steps)
    tip = model.node("beam_end")
    kappa = np.asarray(res.times) * moment / EI
    xe, ye = rollup_tip(kappa, 1.0)
    exact = xe[:, None] * E_X + ye[:, None] * np.cross(bend, E_X)
    x = np.array([positions(model, res, f)[tip] for f in range(len(res))])
    return np.abs(np.linalg.norm(x - exact, axis=1)).max(), res, model


@pytest.mark.parametrize("axis", ["my", "mz"])
def test_end_moment_rolls_the_cantilever_into_a_circle_at_fourth_order(axis):
    """M = 2πEI/L about either bending axis: the tip follows the exact arc over the load
    path with an O(h⁴) error (measured: 3.2e-4, 1.9e-5, 1.2e-6 on 4, 8, 16 elements;
    rate 4.03), the tip triad returns to the identity and Newton converges quadratically."""
    ns = np.array([4, 8, 16])
    errors = []
    for n in ns:
        err, res, model = rollup_error(n, axis)
        errors.append(err)
    assert errors[-1] < 1e-5
    assert 3.8 < fit_rate(ns, errors) < 4.2, errors
    R_tip = res.nodal_rotation_matrices(-1)[model.node("beam_end")]
    assert np.abs(R_tip - np.eye(3)).max() < 1e-8
    assert res.series("iterations")[1:].max() <= 10
    assert set(res.arrays) >= {"rotations", "reactions"} and res.arrays["rotations"][-1].shape == (n + 1, 3, 3)


def test_timoshenko_rollup_matches_euler_bernoulli_when_shear_stiff():
    e_eb = rollup_error(8, "mz")[0]
    e_ti = rollup_error(8, "mz", element="beam3d_timoshenko")[0]
    assert e_ti == pytest.approx(e_eb, rel=1e-4)


def test_rollup_beyond_a_full_turn():
    """1.5 turns (3π EI/L about Y): every frame's nodal triads are the exact rotations
    exp(κ s ŷ) (multiplicative updates, no wrap of rotation vectors), nodes on the
    circle; u keeps log R (|θ| ≤ π) in the rotational slots."""
    err, res, model = rollup_error(16, "my", turns=1.5, steps=24)
    assert err < 3e-5  # measured 1.35e-5
    s = model.mesh.points[:, 0]
    for f in (8, 16, 24):
        kappa = res.times[f] * 3.0 * np.pi
        R = res.nodal_rotation_matrices(f)
        exact = np.array([expm([0.0, kappa * si, 0.0]) for si in s])
        assert np.abs(R - exact).max() < 1e-8, f
    tip = model.node("beam_end")
    theta_tip = res.dof(tip, "ry", 6)  # λ = 1/4: 3π/4
    assert theta_tip == pytest.approx(0.75 * np.pi, abs=1e-8)
    assert res.dof(tip, "ry", 12) == pytest.approx(-0.5 * np.pi, abs=1e-8)  # λ = 1/2: 3π/2 wrapped to −π/2
    assert np.abs(res.dof(tip, "rx") ** 2 + res.dof(tip, "rz") ** 2).max() < 1e-16


# --------------------------------------------------------------------------- helix
def helix(M, EI, GJ_, s):
    """Exact nodal positions (n, 3) and rotations (n, 3, 3) of an isotropic (EIy = EIz)
    cantilever along X under a dead end moment M (3,): the internal moment is M
    everywhere, the spatial curvature ω = M/EI + c t with c = (M·t)(1/GJ − 1/EI), so the
    tangent precesses about M at the rate |M|/EI (a helix about the direction of M) and
    R(s) = exp(s M̂/EI) exp(s c ê_X)."""
    m = np.linalg.norm(M)
    axis, phi = M / m, m / EI
    a = E_X @ axis
    perp = E_X - a * axis
    x = (a * axis * s[:, None] + (np.sin(phi * s) / phi)[:, None] * perp
         + ((1.0 - np.cos(phi * s)) / phi)[:, None] * np.cross(axis, perp))
    c = (M @ E_X) * (1.0 / GJ_ - 1.0 / EI)
    R = np.array([expm(si * M / EI) @ expm(si * c * E_X) for si in s])
    return x, R


@pytest.mark.parametrize("GJ_, rate", [(2.0, 4.0), (1.3, 2.0)])
def test_end_moment_with_a_torsional_component_gives_the_helix(GJ_, rate):
    """Dead end moment M = 2πEI/L (0.6, 0, 0.8) on an isotropic cantilever: all nodes
    and triads on the analytic helix over the load path. GJ = EI: O(h⁴) as the roll-up
    (measured 1.6e-4, 1.0e-5, 6.4e-7 on 8, 16, 32 elements); GJ ≠ EI: the element's
    second-order bending–torsion coupling converges at O(h²) (measured 1.06e-2, 2.8e-3,
    6.9e-4)."""
    EI = 2.0
    M = 2.0 * np.pi * EI * np.array([0.6, 0.0, 0.8])
    ns = np.array([8, 16, 32])
    errors, rot_errors = [], []
    for n in ns:
        model = cantilever3d(n, EIy=EI, EIz=EI, GJ=GJ_)
        model.point_load("beam_end", mx=M[0], my=M[1], mz=M[2])
        res = solve_static(model, steps=16)
        s = model.mesh.points[:, 0]
        err = rot = 0.0
        for f in range(1, len(res)):
            x, R = helix(res.times[f] * M, EI, GJ_, s)
            err = max(err, np.abs(positions(model, res, f) - x).max())
            rot = max(rot, np.abs(res.nodal_rotation_matrices(f) - R).max())
        errors.append(err)
        rot_errors.append(rot)
    assert errors[-1] < 1e-3
    assert abs(fit_rate(ns, errors) - rate) < 0.2, errors
    assert abs(fit_rate(ns, rot_errors) - rate) < 0.2, rot_errors


# --------------------------------------------------------------------------- objectivity
def loaded_cantilever(Q, c, n=8, moment_type="dead"):
    """Cantilever built along Q e_X from c, section y axis Q e_Y, loads rotated by Q."""
    model = cantilever3d(n, EIy=EIY, EIz=EIZ, GJ=GJ, start=c, direction=Q @ E_X, orientation=Q @ [0.0, 1.0, 0.0])
    F, M = Q @ np.array([0.5, -1.0, 2.0]), Q @ np.array([1.0, 2.0, -1.5])
    model.point_load("beam_end", fx=F[0], fy=F[1], fz=F[2])
    model.point_load("beam_end", mx=M[0], my=M[1], mz=M[2], moment_type=moment_type)
    return model


@pytest.mark.parametrize("moment_type", ["dead", "follower"])
def test_a_model_built_rotated_in_space_gives_rotated_displacements(moment_type):
    Q = expm([0.4, -1.1, 0.7])
    r0 = solve_static(loaded_cantilever(np.eye(3), np.zeros(3), moment_type=moment_type), steps=5)
    r1 = solve_static(loaded_cantilever(Q, np.array([0.3, -1.0, 2.0]), moment_type=moment_type), steps=5)
    d0 = r0.nodal_displacements()
    assert np.abs(d0).max() > 0.2
    # equal to what the Newton test leaves open: with EA = 1e7 the last residuals are at the
    # round-off floor (~1e-9 of the loads, not equivariant: the rotated model's coordinates
    # round differently), where one of the two runs may take one more correction; a frame
    # error would show at the size of the displacements
    assert np.allclose(r1.nodal_displacements(), d0 @ Q.T, rtol=0, atol=1e-9)
    R0, R1 = r0.nodal_rotation_matrices(), r1.nodal_rotation_matrices()
    assert np.allclose(R1, Q @ R0 @ Q.T, rtol=0, atol=1e-9)
    assert np.allclose(r1.series("strain_energy"), r0.series("strain_energy"), rtol=1e-9, atol=1e-14)


# --------------------------------------------------------------------------- supports
def test_prescribed_rotation_about_a_global_axis_turns_the_whole_solution():
    """Root rotation rz = 4 rad (> π) prescribed, a constant dead tip force F: the result
    is the clamped cantilever under Qᵀ F turned by Q = exp(4 ẑ)."""
    angle, F = 4.0, np.array([0.3, -0.5, 0.8])
    Q = expm([0.0, 0.0, angle])
    model = cantilever3d(4, EIy=EIY, EIz=EIZ, GJ=GJ)
    model.fixed.clear()
    model.fix("beam_start", ("ux", "uy", "uz", "rx", "ry"))
    model.prescribe("beam_start", "rz", angle)
    model.point_load("beam_end", fx=F[0], fy=F[1], fz=F[2], constant=True)
    res = solve_static(model, steps=8)
    ref_model = cantilever3d(4, EIy=EIY, EIz=EIZ, GJ=GJ)
    G = Q.T @ F
    ref_model.point_load("beam_end", fx=G[0], fy=G[1], fz=G[2])
    ref = solve_static(ref_model, steps=4)
    assert np.allclose(positions(model, res), positions(ref_model, ref) @ Q.T, rtol=0, atol=1e-12)
    assert np.allclose(res.nodal_rotation_matrices(), Q @ ref.nodal_rotation_matrices(), rtol=0, atol=1e-12)
    root = model.node("beam_start")
    assert np.allclose(res.nodal_rotation_matrices(4)[root], expm([0.0, 0.0, 2.0]), rtol=0, atol=1e-14)


def test_prescribed_rotation_with_free_rotation_components_is_rejected():
    model = cantilever3d(2)
    model.fixed.clear()
    model.fix("beam_start", ("ux", "uy", "uz", "rx"))
    model.prescribe("beam_start", "rz", 1.0)
    with pytest.raises(ModelError, match="global axis.*ry"):
        solve_static(model)


# --------------------------------------------------------------------------- moment loads
@pytest.mark.parametrize("moment_type", ["semitangential", "follower"])
def test_planar_rollup_is_the_same_for_every_moment_type(moment_type):
    """About a fixed bending axis semitangential and follower moments equal the dead one."""
    model = cantilever3d(8, EIy=EIY, EIz=EIZ, GJ=GJ)
    model.point_load("beam_end", my=2.0 * np.pi * EIY, moment_type=moment_type)
    res = solve_static(model, steps=20)
    dead = rollup_error(8, "my")[1]
    assert np.allclose(res.nodal_displacements(), dead.nodal_displacements(), rtol=0, atol=1e-9)
    assert res.series("iterations")[1:].max() <= 10


@pytest.mark.parametrize("moment_type", ["dead", "semitangential", "follower"])
def test_spatial_moment_loads_converge_quadratically_and_balance_the_reactions(moment_type):
    """Tip force and a general moment (0.6, 1.0, −1.2): Newton with the load stiffness
    converges quadratically (5 iterations per step; 9–12 when the load stiffness is left
    out), and the clamp reactions balance the applied force and the generalized moment
    (dead: M; follower: R M; semitangential: J(log R)⁻ᵀ M)."""
    from femb.elements.loads3d import follower_moment, semitangential_moment

    M, F = np.array([0.6, 1.0, -1.2]), np.array([0.0, 0.0, 0.5])
    model = cantilever3d(16, EIy=EIY, EIz=EIZ, GJ=GJ, EA=1e4)
    model.point_load("beam_end", fx=F[0], fy=F[1], fz=F[2])
    model.point_load("beam_end", mx=M[0], my=M[1], mz=M[2], moment_type=moment_type)
    res = solve_static(model, steps=5)
    assert res.series("iterations")[1:].max() <= 6
    tip = model.node("beam_end")
    R_tip = res.nodal_rotation_matrices()[tip]
    applied = {"dead": M, "follower": follower_moment(M, R_tip), "semitangential": semitangential_moment(M, R_tip)}[moment_type]
    x_tip = positions(model, res)[tip]
    reaction = res.arrays["reactions"][-1]  # clamp: (fx, fy, fz, mx, my, mz) at the origin
    assert np.allclose(reaction[:3], -F, rtol=0, atol=1e-9)
    assert np.allclose(reaction[3:], -(applied + np.cross(x_tip, F)), rtol=0, atol=1e-9)
    if moment_type != "dead":
        assert np.abs(applied - M).max() > 0.1  # the moment did follow the rotation


def test_rotation_dependent_moment_type_is_validated():
    model = cantilever3d(2)
    model.point_load("beam_end", mx=1.0, moment_type="axial")
    with pytest.raises(ModelError, match="moment_type"):
        model.validate()


# --------------------------------------------------------------------------- buckling
@pytest.mark.parametrize("element", ["beam3d", "beam3d_timoshenko"])
def test_lateral_buckling_of_a_cantilever_reproduces_meijaard_table_1(element):
    """Tip force in the stiff plane (Z, EIy = 1e4), weak EIz = 1, GJ = 1.3: F_cr/F_th
    with F_th = 4.0126 √(EIz GJ)/L² on 1, 2, 4 elements (measured 1.4953/1.0691/1.0154)."""
    F_th = 4.0126 * np.sqrt(1.3)
    for n, expected in ((1, 1.4951), (2, 1.0690), (4, 1.0153)):
        model = cantilever3d(n, EIy=1.0e4, EIz=1.0, GJ=1.3, element=element)
        model.point_load("beam_end", fz=1.0)
        assert solve_buckling(model, n_modes=1).load_factors[0] / F_th == pytest.approx(expected, abs=5e-4), n


@pytest.mark.parametrize("element", ["beam3d", "beam3d_timoshenko"])
def test_torsional_buckling_under_a_semitangential_torque_reproduces_meijaard_table_2(element):
    """Circular shaft EIy = EIz = 2 under a semitangential end torque: M_cr/(πEI/L) on
    1, 2, 4 elements (measured 1.1027/1.0075/1.0005); the mode is a lateral deflection."""
    EI = 2.0
    for n, expected in ((1, 1.1027), (2, 1.0075), (4, 1.0005)):
        model = cantilever3d(n, EIy=EI, EIz=EI, GJ=1.5, element=element)
        model.point_load("beam_end", mx=1.0, moment_type="semitangential")
        res = solve_buckling(model, n_modes=2)
        assert res.load_factors[0] / (np.pi * EI) == pytest.approx(expected, abs=2e-4), n
    mode = res.modes[0]
    t = res.table
    tip = t.node_var[model.node("beam_end")]
    assert np.hypot(mode[tip[1]], mode[tip[2]]) > 10 * abs(mode[tip[0]])


# --------------------------------------------------------------------------- modal
def modal_cantilever(n, L=2.0):
    """Cantilever along X with direct element values: no rotary inertia of bending, so
    the Euler–Bernoulli closed forms hold; torsional inertia rhoIp."""
    mesh = line_mesh((0.0, 0.0, 0.0), (L, 0.0, 0.0), n, "b")
    model = Model(mesh, dim=3)
    model.add_part("b", "beam3d", "b", values=dict(EA=1e4, GJ=2.0, EIy=3.0, EIz=5.0, rhoA=1.5, rhoIp=0.02, rhoIy=0.0, rhoIz=0.0))
    model.fix("b_start")
    return model


def test_cantilever_bending_about_both_axes_and_torsion_frequencies():
    """16 elements, consistent mass: ω = 1.8751² √(EI/(ρA L⁴)) about y (uz motion) and z
    (uy motion), ω_t = (π/2) √(GJ/(ρIp L²)) (linear torsion interpolation: O(h²),
    measured 4.0e-4)."""
    L, beta = 2.0, 1.8751040687**2
    res = solve_modal(modal_cantilever(16, L), n_modes=4, mass="consistent")
    w_y, w_z = beta * np.sqrt(3.0 / (1.5 * L**4)), beta * np.sqrt(5.0 / (1.5 * L**4))
    w_t = np.pi / 2 * np.sqrt(2.0 / (0.02 * L**2))
    t = res.table
    cols = [t.node_var[:, k][t.node_var[:, k] >= 0] for k in range(6)]
    content = lambda k: [np.abs(res.modes[k][c]).max() for c in cols]
    assert res.omega[0] == pytest.approx(w_y, rel=1e-5) and np.argmax(content(0)) == 2  # uz
    assert res.omega[1] == pytest.approx(w_z, rel=1e-5) and np.argmax(content(1)) == 1  # uy
    torsion = [k for k in range(4) if np.argmax(content(k)) == 3]
    assert len(torsion) == 1 and res.omega[torsion[0]] == pytest.approx(w_t, rel=6e-4)


def test_modal_analysis_at_a_rigidly_rotated_configuration():
    """A clamped cantilever turned rigidly by Q (translations and triads): stiffness and
    mass turn with the triads, the frequencies are unchanged."""
    model = modal_cantilever(6)
    prob = StaticProblem(model)
    Q = expm([0.3, -2.0, 1.1])
    X = model.mesh.points
    state = Configuration.reference(prob.rotations)
    for node in range(X.shape[0]):
        for k, name in enumerate(("ux", "uy", "uz")):
            state.u[prob.table.var_of(node, name)] = (Q @ X[node] - X[node])[k]
    state.R[:] = Q
    ref = solve_modal(model, n_modes=4, problem=prob, mass="consistent")
    turned = solve_modal(model, n_modes=4, state=state, problem=prob, mass="consistent")
    assert np.allclose(turned.omega, ref.omega, rtol=1e-10)


def test_frequency_along_the_torque_path_vanishes_at_the_linear_buckling_load():
    """Nonlinear path of the shaft under a semitangential torque (GJ stiff, so the
    pre-buckling twist is negligible as linear buckling assumes): the lowest (lateral)
    frequency, with the load stiffness of the torque at each frame, changes sign at the
    critical torque of solve_buckling."""
    from femb.solvers import frequencies_along_path

    EI = 2.0
    model = cantilever3d(8, EIy=EI, EIz=EI, GJ=1e4, EA=1e3, rho=1.0)
    model.point_load("beam_end", mx=np.pi * EI, moment_type="semitangential")
    lam = solve_buckling(model, n_modes=1).load_factors[0]
    res = solve_static(model, load_factors=[0.5, 0.99 * lam, 1.01 * lam])
    omega = frequencies_along_path(model, res, n_modes=2, mass="consistent")[:, 0]
    assert omega[0] > omega[1] > omega[2] > 0.1 * omega[0]
    assert np.all(np.asarray(omega[0]) > 0)  # a zero scale would let an all-zero output pass
    assert omega[3] < 0 and abs(omega[3]) < 0.2 * omega[0]


# --------------------------------------------------------------------------- plumbing
def test_assembler_without_R_uses_the_rotation_vectors_in_u():
    model = loaded_cantilever(np.eye(3), np.zeros(3))
    res = solve_static(model, steps=2)
    prob = StaticProblem(model)
    state = prob.state_of(res)
    asm = Assembler(res.table)
    f_R, K_R = asm.tangent(state.u, R=state.R)
    f_u, K_u = asm.tangent(res.final)  # R = exp(log R): equal up to round-off (EA = 1e7)
    assert np.all(np.asarray(abs(K_R).max()) > 0)  # a zero scale would let an all-zero output pass
    assert np.allclose(f_u, f_R, rtol=0, atol=1e-9) and abs(K_u - K_R).max() < 1e-14 * abs(K_R).max()
    assert np.allclose(Configuration.from_vector(prob.rotations, res.final).R, state.R, rtol=0, atol=1e-14)


def test_planar_results_give_rotation_matrices_about_z():
    model = cantilever(4)
    model.point_load("beam_end", mz=1.0)
    res = solve_static(model, steps=1)
    rz = res.nodal_rotations()
    assert np.allclose(res.nodal_rotation_matrices(), [expm([0.0, 0.0, a]) for a in rz], rtol=0, atol=1e-14)
