"""One Craig–Bampton reduced shell body in femb (co-rotated superelement, energy-conserving
mid-point scheme) and in Exudyn (ObjectFFRFreducedOrder, generalized-α), side by side.

Body: a steel strip L = 1, b = 0.1, t = 0.005 (E = 2.1e11, ν = 0.3, ρ = 7850) meshed with
nx × ny ``shell4`` elements in the XY plane; the first column of elements (0 ≤ x ≤ L/nx) is
1000× stiffer (the rigid root patch that both codes clamp the same way). femb reduces it
with ``femb.reduce_component(component, root, k, mass="lumped")``: interface = the root
node (mid of the x = 0 edge, 6 DOFs), k fixed-interface modes; m = 6 + k element coordinates.

Exudyn gets femb's component matrices: femb's assembled K (6 DOFs per node) condensed
statically onto the translations (K_tt − K_tr K_rr⁻¹ K_rt: Exudyn's FFRF meshes carry only
'Position' nodes) and femb's lumped translational mass (the rotary inertia dropped: 6e-6 of
the mass × L² here); ``FEMinterface.ComputeHurtyCraigBamptonModes([root patch], k, RBE2)``
with the root patch = the nodes of the stiff column (edges x = 0 and x = L/nx), whose rigid
modes are excluded (the FFRF frame) — so both bodies are the strip clamped at its stiff root
patch plus k fixed-interface modes; their frequencies are printed side by side (agree to
≈0.1 %). Then ``ObjectFFRFreducedOrderInterface(fem).AddObjectFFRFreducedOrder`` (the C++
object, Euler parameters).

Motion (gravity is not available for femb superelements in dynamics): the root is clamped
and spun up about y (the strip's in-plane transverse axis, so it bends out of its plane):
θ(t) = spin_up_angle(Ω = 4 rad/s, T = 0.5 s) (Meijaard's smooth law); femb: the root node's
ux, uy, uz, rx, rz fixed and ry prescribed; Exudyn: a GenericJoint between ground and the
FFRF frame node with the rotation offset θ(t) about y (a Python user function in both).
Δt = 1e-3, t_end = 1 s (the hub at full speed from 0.5 s).

Newton (equal thresholds, set explicitly): femb ``NewtonSettings(absolute_tolerance=τ_a)``
(‖r‖ ≤ τ_a on the free equations); Exudyn ``newton.absoluteTolerance = τ_a`` and
``relativeTolerance = τ_r`` (its default modified Newton (a) and full Newton (b)); at most
25 iterations. Default τ_a = 1e-6 (N, N·m; the step's forces are O(10)), τ_r = 1e-8.
Exudyn runs its compiled module without range checks, one thread, EigenSparse.

femb runs the model twice: by its compiled superelement step (the default,
femb.solvers.dynamics.superelement_midpoint: the steps between two recorded frames in one
compiled call) and by the general 3-D mid-point path (``compiled_step=False``); both give the
same motion and Newton iterations to round-off.

Timing (CPU time, process_time, the machine is shared): per step = (a run of t_end − a
10-step run) / (steps − 10), set-up excluded in both; a sample of a run shorter than 0.3 s
is the mean of back-to-back runs lasting 0.3 s. Repeats interleaved (femb, femb general, (a), (b), …),
median of --repeat; wall time per step printed too.

Accuracy (untimed runs recording every step): the tip (mid of x = L) deflection out of the
rotating plane, w(t) = (x_tip − x_root)·n(θ(t)), n = (sin θ, 0, cos θ), against
(1) femb's reduced body at Δt/4 (the time-integration error at the benchmark step) and
(2) femb's unreduced shell model at Δt (the reduction error; --no-full skips it): max over
the run of |w − w_ref| / max |w_ref|. Energy: femb's energy residual E − E₀ − W_c (W_c the
work of the prescribed rotation, exact in the scheme); Exudyn's E = ½Σ m_i|v_i|² (its
lumped nodal masses, exact for the nodal FFRF) + ½ qᵀK_r q, W the drive work by the
trapezoidal rule on the joint torque (O(Δt²) quadrature error included); both divided by
max E. Exudyn's generalized-α (ρ∞ = its default 0.9) is numerically dissipative; femb's
mid-point scheme conserves energy to the Newton tolerance.

Usage: python benchmarks/cb_exudyn.py [--nx 20 --ny 4 --k 6] [--dt 1e-3 --t-end 1]
       [--abs-tol 1e-6 --rel-tol 1e-8] [--repeat 3] [--no-full] [--profile] [--out benchmarks/out]
Nothing is asserted; the table goes to stdout and benchmarks/out/cb_exudyn.{md,json}.
"""
import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import flexible_pendulum as fp  # noqa: E402  (import_exudyn: the fast Exudyn module)
from exudyn_common import MAX_ITERATIONS, exudyn_dynamic_settings  # noqa: E402

from femb.elements import MASS_KINDS  # noqa: E402
from femb.mesh import rectangle_mesh  # noqa: E402
from femb.mesh.mesh import CellBlock, Mesh  # noqa: E402
from femb.model import Material, Model, Section  # noqa: E402
from femb.results.superelements import superelement_positions  # noqa: E402
from femb.solvers import DynamicSettings, NewtonSettings, solve_dynamic  # noqa: E402
from femb.solvers.configuration import split_state  # noqa: E402
from femb.solvers.reduction.component import reduce_component  # noqa: E402
from femb.validation.models import spin_up_angle  # noqa: E402

STRIP = dict(L=1.0, b=0.1, t=0.005, E=2.1e11, nu=0.3, rho=7850.0, root_factor=1e3)
DRIVE = dict(omega=4.0, T=0.5)
MIN_SAMPLE = 0.3
exu = None


def load():
    """The load averages of the machine."""
    return "load %.2f/%.2f/%.2f" % os.getloadavg()


def median(xs):
    """Median, NaN for no samples."""
    return statistics.median(xs) if xs else float("nan")


# ----------------------------------------------------------------------------- models
def strip_mesh(nx, ny):
    """The strip's quad mesh: cell sets "root" (first column) and "plate"; node sets "root"
    (mid of x = 0), "tip" (mid of x = L) and "patch" (the nodes of the first column)."""
    if ny % 2:
        raise ValueError("ny must be even (the root and tip nodes are mid-edge nodes)")
    m = rectangle_mesh(STRIP["L"], STRIP["b"], nx, ny, cells="quad")
    conn = m.cells["plate"].connectivity
    col = np.arange(conn.shape[0]) % nx
    ids = np.arange(m.points.shape[0]).reshape(ny + 1, nx + 1)
    sets = dict(m.node_sets, root=np.array([ids[ny // 2, 0]]), tip=np.array([ids[ny // 2, nx]]),
                patch=np.concatenate([ids[:, 0], ids[:, 1]]))
    return Mesh(m.points, {"root": CellBlock("quad", conn[col == 0]), "plate": CellBlock("quad", conn[col > 0])}, sets)


def component(nx, ny):
    """The free strip (no supports): the component to reduce, and the unreduced model."""
    model = Model(strip_mesh(nx, ny), dim=3, name=f"strip {nx}x{ny} shell4")
    s = STRIP
    model.add_part("plate", "shell4", "plate", Material(E=s["E"], nu=s["nu"], rho=s["rho"]), Section(thickness=s["t"]))
    model.add_part("root", "shell4", "root", Material(E=s["root_factor"] * s["E"], nu=s["nu"], rho=s["rho"]),
                   Section(thickness=s["t"]))
    return model


def theta():
    """The prescribed root angle θ(t)."""
    return spin_up_angle(DRIVE["omega"], DRIVE["T"])


def drive(model):
    """Clamp the root node and prescribe its rotation about y."""
    r = int(model.node("root"))
    model.fix(r, ("ux", "uy", "uz", "rx", "rz"))
    model.prescribe(r, "ry", function=theta())
    return model


def reduce(nx, ny, k):
    """(ReducedComponent, CPU seconds of the reduction)."""
    comp = component(nx, ny)
    c0 = time.process_time()
    rc = reduce_component(comp, "root", k, mass="lumped")
    rc.superelement()  # the element data (mass points and their moments) are part of the one-off cost
    return rc, time.process_time() - c0


def reduced_model(rc):
    """The reduced body on one model node (the root), driven."""
    comp = rc.problem.model
    X = comp.mesh.points[[int(comp.node("root"))]]
    model = Model(Mesh(X.copy(), node_sets={"root": np.array([0])}), dim=3, name="strip superelement")
    model.add_superelement("se", rc, [0])
    return drive(model)


def full_model(nx, ny):
    """The unreduced strip, driven."""
    return drive(component(nx, ny))


def femb_settings(abs_tol, rel_tol, record_every=1, modified=False, compiled_step=True):
    """femb's dynamic settings: mid-point scheme, the absolute Newton threshold
    (``compiled_step`` False: the general 3-D mid-point path)."""
    return DynamicSettings(record_every=record_every, compiled_step=compiled_step, newton=NewtonSettings(
        tolerance=rel_tol, absolute_tolerance=abs_tol, max_iterations=MAX_ITERATIONS, modified=modified))


def femb_run(build, dt, t_end, settings):
    """(CPU s, wall s, results) of one solve_dynamic of a fresh model (set-up included)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = build()
        c0, w0 = time.process_time(), time.perf_counter()
        res = solve_dynamic(model, dt, t_end, settings)
        return time.process_time() - c0, time.perf_counter() - w0, res


def femb_per_step(build, dt, t_end, settings):
    """(CPU s/step, wall s/step, results of the full run): full run minus a 10-step run."""
    cpu, wall, res = femb_run(build, dt, t_end, settings)
    cpu10, wall10, r10 = femb_run(build, dt, 10 * dt, settings)
    n = res.info["steps"] - r10.info["steps"]
    return (cpu - cpu10) / n, (wall - wall10) / n, res


def rotating_deflection(t, x_tip, x_root):
    """w(t) = (x_tip − x_root)·n(θ(t)), the deflection out of the rotating plane."""
    th = np.array([theta()(tt) for tt in t])
    n = np.stack([np.sin(th), np.zeros_like(th), np.cos(th)], axis=1)
    return np.einsum("ij,ij->i", np.asarray(x_tip) - np.asarray(x_root), n)


def femb_tip(res, reduced):
    """(t, w) of a femb run recorded every step."""
    t = np.asarray(res.times)
    model = res.model
    if reduced:
        comp = model.superelements["se"].recovery["component"].problem.model
        tip = int(comp.node("tip"))
        root = int(comp.node("root"))
        xs = [superelement_positions(model, res.table, "se", u)[1] for u in res.states]
        return t, rotating_deflection(t, [x[tip] for x in xs], [x[root] for x in xs])
    tip, root = int(model.node("tip")), int(model.node("root"))
    X = model.mesh.points
    xt = np.stack([X[tip, c] + np.asarray(res.dof(tip, d)) for c, d in enumerate(("ux", "uy", "uz"))], axis=1)
    xr = np.stack([X[root, c] + np.asarray(res.dof(root, d)) for c, d in enumerate(("ux", "uy", "uz"))], axis=1)
    return t, rotating_deflection(t, xt, xr)


def femb_energy_error(res):
    """max |E − E₀ − W| / max E of a femb run."""
    E = np.asarray(res.series("total_energy"))
    return float(np.abs(np.asarray(res.series("energy_residual"))).max() / max(np.abs(E).max(), 1e-300))


# ----------------------------------------------------------------------------- Exudyn
def component_matrices(rc):
    """femb's component K (6 DOFs/node) condensed onto the translations, and the lumped
    translational mass, in Exudyn's order (node·3 + direction); the dropped rotary mass."""
    prob = rc.problem
    t, asm = prob.table, prob.assembler
    u0, R0 = split_state(prob.initial_state(None))
    _, K = asm.tangent(u0, include_geometric=False, R=R0)
    M = asm.mass_matrix(MASS_KINDS["lumped"], u0, R=R0)
    nn = prob.model.mesh.n_nodes
    names = list(t.dof_names)
    glob = t.var_node[t.eq_var] * 6 + np.array([names.index(t.describe_var(v)[1]) for v in t.eq_var])
    P = sp.csr_matrix((np.ones(glob.size), (glob, np.arange(glob.size))), shape=(6 * nn, t.n_eq))
    Kg = (P @ sp.csr_matrix(K) @ P.T).tocsr()
    Mg = (P @ sp.csr_matrix(M) @ P.T).tocsr()
    tr = (np.arange(nn)[:, None] * 6 + np.arange(3)).ravel()
    ro = tr + 3
    Ktr = Kg[tr][:, ro]
    lu = spla.splu(Kg[ro][:, ro].tocsc())
    Kc = Kg[tr][:, tr].toarray() - Ktr @ lu.solve(Ktr.T.toarray())
    Kc = 0.5 * (Kc + Kc.T)
    return sp.csr_matrix(Kc), Mg[tr][:, tr].tocsr(), float(Mg[ro][:, ro].diagonal().sum())


def exudyn_body(rc, k):
    """(ObjectFFRFreducedOrderInterface, FEMinterface, CPU s of import + HCB + FFRF data)."""
    import exudyn.FEM as FEM
    comp = rc.problem.model
    c0 = time.process_time()
    Kc, Mt, _ = component_matrices(rc)
    fem = FEM.FEMinterface()
    Xr = comp.mesh.points[int(comp.node("root"))]
    fem.nodes = {"Position": comp.mesh.points - Xr}  # the FFRF frame at the root node
    fem.stiffnessMatrix = Kc
    fem.massMatrix = Mt
    patch = [int(i) for i in comp.mesh.node_sets["patch"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fem.ComputeHurtyCraigBamptonModes([patch], k, useSparseSolver=True,
                                          computationMode=FEM.HCBstaticModeSelection.RBE2)
        cms = FEM.ObjectFFRFreducedOrderInterface(fem)
    return cms, fem, time.process_time() - c0


def exudyn_build(cms, Xr, sensors=False, n_nodes=0, tip=0):
    """(SC, mbs, sensors) of the driven FFRF body; ``sensors``: tip position, the velocity
    of every mesh node, the modal coordinates and the joint torque."""
    from exudyn.itemInterface import (
        GenericJoint,
        MarkerBodyRigid,
        MarkerNodeRigid,
        ObjectGround,
        SensorNode,
        SensorObject,
        SensorSuperElement,
    )
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    th = theta()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = cms.AddObjectFFRFreducedOrder(mbs, positionRef=list(Xr), initialVelocity=[0.0, 0.0, 0.0],
                                            initialAngularVelocity=[0.0, 0.0, 0.0])
    ground = mbs.AddObject(ObjectGround(referencePosition=list(Xr)))
    mg = mbs.AddMarker(MarkerBodyRigid(bodyNumber=ground, localPosition=[0.0, 0.0, 0.0]))
    mf = mbs.AddMarker(MarkerNodeRigid(nodeNumber=obj["nRigidBody"]))
    joint = mbs.AddObject(GenericJoint(markerNumbers=[mg, mf], constrainedAxes=[1] * 6,
                                       offsetUserFunction=lambda mbs, t, item, offset: [0.0, 0.0, 0.0, 0.0, th(t), 0.0]))
    out = {}
    if sensors:
        ov = exu.OutputVariableType
        body = obj["oFFRFreducedOrder"]
        out["tip"] = mbs.AddSensor(SensorSuperElement(bodyNumber=body, meshNodeNumber=tip, storeInternal=True,
                                                      outputVariableType=ov.Position))
        out["vel"] = [mbs.AddSensor(SensorSuperElement(bodyNumber=body, meshNodeNumber=i, storeInternal=True,
                                                       outputVariableType=ov.Velocity)) for i in range(n_nodes)]
        out["q"] = mbs.AddSensor(SensorNode(nodeNumber=obj["nGenericODE2"], storeInternal=True, outputVariableType=ov.Coordinates))
        out["torque"] = mbs.AddSensor(SensorObject(objectNumber=joint, storeInternal=True, outputVariableType=ov.TorqueLocal))
    mbs.Assemble()
    return SC, mbs, out


def exudyn_solve(cms, Xr, dt, t_end, rel_tol, abs_tol, modified):
    """(CPU s, wall s, Newton counts) of one SolveDynamic (set-up excluded)."""
    SC, mbs, _ = exudyn_build(cms, Xr)
    s = exudyn_dynamic_settings(exu, dt, t_end, rel_tol, abs_tol, modified)
    c0, w0 = time.process_time(), time.perf_counter()
    mbs.SolveDynamic(s)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    it = mbs.sys["dynamicSolver"].it
    return cpu, wall, dict(steps=it.currentStepIndex - 1, its=it.newtonStepsCount, jac=it.newtonJacobiCount, t=it.currentTime)


def exudyn_batched(cms, Xr, dt, t_end, rel_tol, abs_tol, modified):
    """Mean CPU and wall s of back-to-back solves lasting MIN_SAMPLE."""
    cpus, walls, info = [], [], None
    while not walls or (sum(walls) < MIN_SAMPLE and len(walls) < 1000):
        cpu, wall, info = exudyn_solve(cms, Xr, dt, t_end, rel_tol, abs_tol, modified)
        cpus.append(cpu)
        walls.append(wall)
    return sum(cpus) / len(cpus), sum(walls) / len(walls), info


def exudyn_per_step(cms, Xr, dt, t_end, rel_tol, abs_tol, modified):
    """(CPU s/step, wall s/step, counts): a run of t_end minus a 10-step run."""
    cpu, wall, info = exudyn_batched(cms, Xr, dt, t_end, rel_tol, abs_tol, modified)
    cpu10, wall10, info10 = exudyn_batched(cms, Xr, dt, 10 * dt, rel_tol, abs_tol, modified)
    n = max(info["steps"] - info10["steps"], 1)
    return (cpu - cpu10) / n, (wall - wall10) / n, info


def exudyn_accuracy(cms, Xr, rc, dt, t_end, rel_tol, abs_tol, modified):
    """(t, w, energy error) of one Exudyn run with sensors (not timed)."""
    comp = rc.problem.model
    n_nodes = comp.mesh.n_nodes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        SC, mbs, out = exudyn_build(cms, Xr, sensors=True, n_nodes=n_nodes, tip=int(comp.node("tip")))
        s = exudyn_dynamic_settings(exu, dt, t_end, rel_tol, abs_tol, modified)
        s.solution.sensors.writePeriod = dt
        mbs.SolveDynamic(s)
    tip = np.asarray(mbs.GetSensorStoredData(out["tip"]))
    t = tip[:, 0]
    w = rotating_deflection(t, tip[:, 1:4], np.tile(Xr, (t.size, 1)))
    _, Mt, _ = component_matrices(rc)
    m_node = Mt.diagonal()[0::3]
    vel = np.stack([np.asarray(mbs.GetSensorStoredData(v))[:, 1:4] for v in out["vel"]], axis=1)  # (n_t, n_nodes, 3)
    T = 0.5 * np.einsum("j,tjc,tjc->t", m_node, vel, vel)
    q = np.asarray(mbs.GetSensorStoredData(out["q"]))[:, 1:]
    Kr = np.asarray(cms.stiffnessMatrixReduced)
    V = 0.5 * np.einsum("ti,ij,tj->t", q, Kr, q)
    tau = np.asarray(mbs.GetSensorStoredData(out["torque"]))[:, 1:4]
    th = np.array([theta()(tt) for tt in t])
    dW = 0.5 * (tau[1:, 1] + tau[:-1, 1]) * np.diff(th)
    W = np.concatenate([[0.0], np.cumsum(dW)])
    E = T + V
    E0 = E[0]
    # the torque sensor's sign convention (reaction on which marker) is fixed by the first
    # half of the spin-up, where the drive does positive work
    sign = 1.0 if np.abs(E - E0 - W).max() <= np.abs(E - E0 + W).max() else -1.0
    err = float(np.abs(E - E0 - sign * W).max() / max(np.abs(E).max(), 1e-300))
    return t, w, err


# ----------------------------------------------------------------------------- comparison
def history_error(t, w, t_ref, w_ref):
    """max |w − w_ref| / max |w_ref| over the common times (w_ref interpolated)."""
    wi = np.interp(t, t_ref, w_ref)
    return float(np.abs(w - wi).max() / max(np.abs(w_ref).max(), 1e-300))


def profile_femb(build, dt, t_end, settings, top=18):
    """(results, text) of a cProfile'd femb run (after a warm-up; CPU clock)."""
    femb_run(build, dt, 3 * dt, settings)
    pr = cProfile.Profile(time.process_time)  # CPU clock: the machine is shared
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = build()
        pr.enable()
        res = solve_dynamic(model, dt, t_end, settings)
        pr.disable()
    buf = io.StringIO()
    st = pstats.Stats(pr, stream=buf)
    st.sort_stats("tottime").print_stats(top)
    return res, buf.getvalue()


def main(argv=None):
    """Run the comparison (module docstring)."""
    global exu
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nx", type=int, default=20)
    ap.add_argument("--ny", type=int, default=4)
    ap.add_argument("--k", type=int, default=6, help="fixed-interface modes (both codes)")
    ap.add_argument("--dt", type=float, default=1e-3)
    ap.add_argument("--t-end", type=float, default=1.0)
    ap.add_argument("--abs-tol", type=float, default=1e-6, help="absolute Newton threshold, both codes")
    ap.add_argument("--rel-tol", type=float, default=1e-8, help="Exudyn's relativeTolerance (femb uses the absolute test)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-full", action="store_true", help="skip the unreduced femb reference")
    ap.add_argument("--profile", action="store_true", help="cProfile of femb's reduced run")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    args = ap.parse_args(argv)
    exu = fp.import_exudyn(fast=True)
    if exu is None:
        sys.exit("exudyn is not installed (pip install -e '.[bench]')")
    head = (f"femb superelement vs Exudyn {exu.__version__} ObjectFFRFreducedOrder: strip {args.nx}x{args.ny} shell4, k = {args.k}, "
            f"dt = {args.dt:g}, t_end = {args.t_end:g}, abs tol {args.abs_tol:g} (Exudyn rel tol {args.rel_tol:g}), "
            f"repeat {args.repeat}, {os.cpu_count()} CPUs, {load()}")
    print(head, flush=True)
    rc, t_reduce = reduce(args.nx, args.ny, args.k)
    cms, fem, t_exu_reduce = exudyn_body(rc, args.k)
    comp = rc.problem.model
    Xr = comp.mesh.points[int(comp.node("root"))]
    f_femb = np.asarray(rc.basis.frequencies)[: args.k]
    f_exu = np.sqrt(np.abs(np.asarray(fem.eigenValues)))[: args.k]
    _, _, rot_mass = component_matrices(rc)
    print(f"component: {comp.mesh.n_nodes} nodes, {rc.table.n_eq} DOF; femb m = {rc.basis.K.shape[0]}, Exudyn 7 + {args.k} coordinates")
    print("fixed-interface ω (rad/s) femb  :", np.array2string(f_femb, precision=2))
    print("fixed-interface ω (rad/s) Exudyn:", np.array2string(f_exu, precision=2), f"(rotary mass dropped {rot_mass:.2e})")
    print(f"one-off CPU: femb reduction {t_reduce:.2f} s; Exudyn import + condensation + HCB + FFRF data {t_exu_reduce:.2f} s")

    build = lambda: reduced_model(rc)  # noqa: E731
    st = femb_settings(args.abs_tol, args.rel_tol, record_every=50)
    st_general = femb_settings(args.abs_tol, args.rel_tol, record_every=50, compiled_step=False)
    femb_run(build, args.dt, 3 * args.dt, st)  # compile / warm-up
    femb_run(build, args.dt, 3 * args.dt, st_general)
    times = {"femb": [], "femb_wall": [], "femb_general": [], "femb_general_wall": [], "a": [], "a_wall": [], "b": [], "b_wall": []}
    info = {}
    for _ in range(args.repeat):
        for key, settings in (("femb", st), ("femb_general", st_general)):
            cpu, wall, res = femb_per_step(build, args.dt, args.t_end, settings)
            times[key].append(cpu)
            times[f"{key}_wall"].append(wall)
            info[key] = dict(its=res.info["newton_iterations"] / res.info["steps"], steps=res.info["steps"],
                             compiled_step=res.info["compiled_step"])
        for key, modified in (("a", True), ("b", False)):
            cpu, wall, inf = exudyn_per_step(cms, Xr, args.dt, args.t_end, args.rel_tol, args.abs_tol, modified)
            times[key].append(cpu)
            times[f"{key}_wall"].append(wall)
            info[key] = dict(its=inf["its"] / max(inf["steps"], 1), jac=inf["jac"] / max(inf["steps"], 1), steps=inf["steps"])
        print(f"  sample: femb {times['femb'][-1] * 1e3:.3f} (general path {times['femb_general'][-1] * 1e3:.3f}), "
              f"Exudyn (a) {times['a'][-1] * 1e3:.4f}, (b) {times['b'][-1] * 1e3:.4f} "
              f"ms/step CPU; {load()}", flush=True)
    med = {k: median(v) for k, v in times.items()}

    # accuracy (untimed)
    _, _, r_f = femb_run(build, args.dt, args.t_end, femb_settings(args.abs_tol, args.rel_tol))
    t_f, w_f = femb_tip(r_f, True)
    _, _, r_ref = femb_run(build, args.dt / 4, args.t_end, femb_settings(args.abs_tol, args.rel_tol, record_every=4))
    t_r, w_r = femb_tip(r_ref, True)
    acc = {"femb": dict(w_end=float(w_f[-1]), w_max=float(np.abs(w_f).max()), vs_dt4=history_error(t_f, w_f, t_r, w_r),
                        energy=femb_energy_error(r_f))}
    _, _, r_g = femb_run(build, args.dt, args.t_end, femb_settings(args.abs_tol, args.rel_tol, compiled_step=False))
    t_g, w_g = femb_tip(r_g, True)
    acc["femb_general"] = dict(w_end=float(w_g[-1]), w_max=float(np.abs(w_g).max()), vs_dt4=history_error(t_g, w_g, t_r, w_r),
                               vs_femb=history_error(t_g, w_g, t_f, w_f), energy=femb_energy_error(r_g))
    full = None
    if not args.no_full:
        c_full, _, r_full = femb_run(lambda: full_model(args.nx, args.ny), args.dt, args.t_end,
                                     femb_settings(args.abs_tol, args.rel_tol))
        t_u, w_u = femb_tip(r_full, False)
        full = dict(cpu_per_step=c_full / r_full.info["steps"], its=r_full.info["newton_iterations"] / r_full.info["steps"],
                    w_end=float(w_u[-1]), w_max=float(np.abs(w_u).max()), energy=femb_energy_error(r_full),
                    vs_dt4=history_error(t_u, w_u, t_r, w_r))
        acc["femb"]["vs_full"] = history_error(t_f, w_f, t_u, w_u)
    for key, modified in (("a", True), ("b", False)):
        t_e, w_e, e_err = exudyn_accuracy(cms, Xr, rc, args.dt, args.t_end, args.rel_tol, args.abs_tol, modified)
        acc[key] = dict(w_end=float(w_e[-1]), w_max=float(np.abs(w_e).max()), vs_dt4=history_error(t_e, w_e, t_r, w_r),
                        vs_femb=history_error(t_e, w_e, t_f, w_f), energy=e_err)
        if full is not None:
            acc[key]["vs_full"] = history_error(t_e, w_e, t_u, w_u)

    lines = [head, "", f"component {comp.mesh.n_nodes} nodes / {rc.table.n_eq} DOF; femb element coordinates m = {rc.basis.K.shape[0]}; "
             f"one-off CPU: femb reduction {t_reduce:.2f} s, Exudyn import+HCB {t_exu_reduce:.2f} s", "",
             "| code | Newton | ms/step CPU (median) | ms/step wall | its/step | jac/step | femb/this (CPU) | w_end | max\\|w\\| | "
             "vs femb Δt/4 | vs unreduced femb | vs femb Δt | energy error |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def fmt(x, f=".3g"):
        return "–" if x is None else format(x, f)
    rows = [("femb superelement (mid-point)", "full", "femb", None),
            ("femb superelement, general path (compiled_step=False)", "full", "femb_general", None),
            ("Exudyn FFRFreducedOrder (gen-α)", "modified (default)", "a", None),
            ("Exudyn FFRFreducedOrder (gen-α)", "full", "b", None)]
    for name, newton, key, _ in rows:
        a = acc[key]
        ratio = med["femb"] / med[key] if key not in ("femb", "femb_general") else None
        lines.append(f"| {name} | {newton} | {med[key] * 1e3:.4f} | {med[key + '_wall'] * 1e3:.4f} | {info[key]['its']:.2f} | "
                     f"{fmt(info[key].get('jac'), '.3f')} | {fmt(ratio, '.2f')} | {a['w_end']:.6g} | {a['w_max']:.6g} | "
                     f"{a['vs_dt4']:.2e} | {fmt(a.get('vs_full'), '.2e')} | {fmt(a.get('vs_femb'), '.2e')} | {a['energy']:.1e} |")
    if full is not None:
        lines.append(f"| femb unreduced shell4 (reference) | full | {full['cpu_per_step'] * 1e3:.1f} (one run) | – | {full['its']:.2f} | – | – | "
                     f"{full['w_end']:.6g} | {full['w_max']:.6g} | {full['vs_dt4']:.2e} | 0 | – | {full['energy']:.1e} |")
    lines += ["", f"femb general path / Exudyn (CPU): (a) {med['femb_general'] / med['a']:.2f}, (b) {med['femb_general'] / med['b']:.2f}; "
              f"femb compiled / general path: {med['femb'] / med['femb_general']:.3f}"]
    text = "\n".join(lines)
    print("\n" + text + f"\n\n{load()} at the end", flush=True)
    prof = None
    if args.profile:
        _, prof = profile_femb(build, args.dt, args.t_end, st)
        print(prof)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "cb_exudyn.md"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(args.out, "cb_exudyn.json"), "w") as f:
        json.dump(dict(head=head, times=times, info=info, accuracy=acc, full=full, freq_femb=f_femb.tolist(), freq_exudyn=f_exu.tolist(),
                       reduction_cpu=t_reduce, exudyn_reduction_cpu=t_exu_reduce, profile=prof), f, indent=1)


if __name__ == "__main__":
    main()
