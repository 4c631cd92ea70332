"""Model builders and runner of the co-rotated superelement validation case (cb-statics):
reduced = unreduced statics for interface loads, the same under a 90° rotation of the
support, a chain of superelements rolling up under an end moment, and the Craig–Bampton
frequencies of a free assembly."""
import numpy as np
import scipy.linalg as sla

from femb.core.rotations import exp_so3
from femb.mesh import line_mesh
from femb.mesh.mesh import Mesh
from femb.model import Model
from femb.solvers.configuration import split_state
from femb.solvers.eigen.modal import solve_modal
from femb.solvers.problem import StaticProblem
from femb.solvers.reduction.component import reduce_component
from femb.solvers.statics.static import solve_static

# unit beam L = 1, EI = 1, ρA = 1 in 3-D; axial and torsional modes far above the bending ones
BEAM = dict(EA=1e4, GJ=1.0, EIy=1.0, EIz=1.0, rhoA=1.0, rhoIp=1e-4, rhoIy=0.0, rhoIz=0.0)
LOAD = dict(fx=0.3, fy=1.0, fz=-0.5, mx=0.2, my=0.7, mz=-0.4)
DOFS = ("ux", "uy", "uz", "rx", "ry", "rz")


def beam_model(n_el=20, length=1.0):
    """Straight beam3d along x from 0 to ``length`` (node sets beam_start, beam_end)."""
    model = Model(line_mesh((0.0, 0.0, 0.0), (length, 0.0, 0.0), n_el, "beam"), name=f"beam ({n_el})")
    model.add_part("beam", "beam3d", "beam", values=BEAM)
    return model


def reduced_beam(k, n_el=20, length=1.0):
    """The beam reduced on its two end nodes with k fixed-interface modes (consistent mass)."""
    comp = beam_model(n_el, length)
    return reduce_component(comp, [comp.node("beam_start"), comp.node("beam_end")], k, mass="consistent")


def one_superelement(reduced, placement=None, points=((0.0, 0.0, 0.0), (1.0, 0.0, 0.0))):
    """A model of one superelement on two nodes at ``points`` (optionally placed)."""
    model = Model(Mesh(np.array(points, dtype=float)), name="one superelement")
    model.add_superelement("se", reduced, [0, 1], placement=placement)
    return model


def linear_tip(model, node):
    """The six tip DOFs of the linear statics K u = f about the reference state."""
    prob = StaticProblem(model)
    u0, R = split_state(prob.initial_state(None))
    _, K = prob.assembler.tangent(u0, R=R)
    u = np.zeros(prob.table.n_var)
    u[prob.table.eq_var] = np.linalg.solve(K.toarray(), prob.table.free(prob.f_ref))
    return np.array([u[prob.table.var_of(node, d)] for d in DOFS])


def rotation(theta):
    """exp(θ̂) (3, 3) of a rotation vector θ (rad)."""
    R = np.zeros((3, 3))
    exp_so3(np.asarray(theta, dtype=float), R)
    return R


def turned_support_response(k=2, scale=1e-6):
    """(linear, turned) six tip DOFs (translations, rotation vector) of the superelement
    cantilever under the small load scale·LOAD: the linear response about the reference
    state, and the nonlinear static response with the clamp turned by Q (90° about an
    oblique axis) and the load turned with it, seen from the turned clamp (Qᵀ(X + u) − X
    and log(QᵀR)); the two agree up to the geometric nonlinearity of the load."""
    base = one_superelement(reduced_beam(k))
    base.fix(0)
    base.point_load(1, **{key: scale * v for key, v in LOAD.items()})
    lin = linear_tip(base, 1)
    axis = np.array([1.0, 2.0, -2.0]) / 3.0
    Q = rotation(0.5 * np.pi * axis)
    model = one_superelement(reduced_beam(k))
    model.fix(0, "translations")
    for d, v in zip(("rx", "ry", "rz"), 0.5 * np.pi * axis):
        model.prescribe(0, d, v)
    F = scale * (Q @ [LOAD["fx"], LOAD["fy"], LOAD["fz"]])
    Mo = scale * (Q @ [LOAD["mx"], LOAD["my"], LOAD["mz"]])
    model.point_load(1, fx=F[0], fy=F[1], fz=F[2], mx=Mo[0], my=Mo[1], mz=Mo[2])
    res = solve_static(model, steps=4)
    X = np.array([1.0, 0.0, 0.0])
    u_body = Q.T @ (X + res.nodal_displacements()[1]) - X
    L = np.real(sla.logm(Q.T @ res.nodal_rotation_matrices()[1]))
    th = np.array([L[2, 1], L[0, 2], L[1, 0]])
    return lin, np.concatenate([u_body, th])


def turned_support_error(k=2, scale=1e-6):
    """Relative difference between the tip response seen from a clamp turned by 90° about
    an oblique axis (nonlinear statics, tip load turned with it) and the linear response."""
    lin, turned = turned_support_response(k, scale)
    return float(np.abs(turned - lin).max() / np.abs(lin).max())


def rollup_tip_error(N, phi=np.pi, n_sub=2, k=2):
    """|tip − circle|/L of a cantilever of N superelements (each n_sub beam3d elements
    reduced with k modes) under the end moment φ EI/L (tip (sin φ/φ, (1 − cos φ)/φ))."""
    ls = 1.0 / N
    red = reduced_beam(k, n_el=n_sub, length=ls)
    pts = np.zeros((N + 1, 3))
    pts[:, 0] = np.linspace(0.0, 1.0, N + 1)
    model = Model(Mesh(pts), name=f"chain of {N} superelements")
    for i in range(N):
        model.add_superelement(f"se{i}", red, [i, i + 1], placement=(np.eye(3), [i * ls, 0.0, 0.0]))
    model.fix(0)
    model.point_load(N, mz=phi)
    res = solve_static(model, steps=8)
    x = 1.0 + res.dof(N, "ux", frame=-1)
    y = res.dof(N, "uy", frame=-1)
    return float(np.hypot(x - np.sin(phi) / phi, y - (1.0 - np.cos(phi)) / phi))


def superelement_statics_case(quick):
    """Metrics of cb-statics (validation/README.md)."""
    full = beam_model()
    full.fix("beam_start")
    full.point_load("beam_end", **LOAD)
    expected = linear_tip(full, full.node("beam_end"))
    diffs = []
    for k in (0, 2, 6):
        asm = one_superelement(reduced_beam(k))
        asm.fix(0)
        asm.point_load(1, **LOAD)
        diffs.append(float(np.abs(linear_tip(asm, 1) - expected).max() / np.abs(expected).max()))
    red = reduced_beam(2)
    modal = solve_modal(one_superelement(red), n_modes=10, mass="consistent")
    data = red.superelement()
    direct = np.sqrt(np.abs(sla.eigvalsh(data.K, data.M)[6:10]))
    counts = np.array([2, 4, 8] if quick else [2, 4, 8, 16])
    errors = np.array([rollup_tip_error(int(N)) for N in counts])
    rate = -np.polyfit(np.log(counts), np.log(errors), 1)[0]
    metrics = {
        "reduced_vs_unreduced": max(diffs),
        "tip_deflection_ratio": float(expected[1] / (LOAD["fy"] / 3.0 + LOAD["mz"] / 2.0)),
        "turned_support_error": turned_support_error(),
        "modal_vs_reduction": float(np.abs(modal.omega[6:10] / direct - 1.0).max()),
        "omega1_k2": float(modal.omega[6]),
        "rollup_rate": float(rate),
        "rollup_tip_error": float(errors[-1]),
    }
    return {
        "metrics": metrics,
        "series": {
            "convergence": {"h": 1.0 / counts, "error": errors, "xlabel": "1/N (superelements in the chain)",
                            "ylabel": "|tip − circle| / L", "title": "Chain of superelements rolling up (φ = π)"},
        },
    }
