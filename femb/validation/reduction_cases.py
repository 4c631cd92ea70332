"""Model builder and runner of the Craig–Bampton validation case (cb-unit-beam)."""
import numpy as np
import scipy.linalg as sla

from femb.mesh import line_mesh
from femb.model import Model
from femb.solvers.reduction.component import reduce_component

MODE_COUNTS = (0, 1, 2, 4, 8, 16)


def unit_beam(n_el=20):
    """Uniform planar Euler–Bernoulli beam, L = 1, EI = 1, ρA = 1, EA = 1e4, no rotary
    inertia (beam2d with direct section values), nodes 0 … n_el along x; node sets
    ``beam_start`` and ``beam_end``."""
    mesh = line_mesh((0.0, 0.0), (1.0, 0.0), n_el, "beam")
    model = Model(mesh, name=f"unit beam ({n_el})")
    model.add_part("beam", "beam2d", "beam", values=dict(EA=1e4, EI=1.0, rhoA=1.0, rhoI=0.0))
    return model


def _first_elastic(basis):
    lam = sla.eigvalsh(basis.K, basis.M)
    return float(np.sqrt(abs(lam[3])))


def _cantilever_tip(component):
    """Tip deflection and rotation under a unit tip force of the reduced beam clamped at its
    first boundary node."""
    b = component.basis
    dofs = component.boundary_dofs()
    end = max(n for n, _ in dofs)
    free = [i for i, (n, _) in enumerate(dofs) if n == end] + list(range(b.n_boundary, b.K.shape[0]))
    w = dofs.index((end, "uy"))
    r = dofs.index((end, "rz"))
    f = np.zeros(b.K.shape[0])
    f[w] = 1.0
    x = np.zeros_like(f)
    x[free] = np.linalg.solve(b.K[np.ix_(free, free)], f[free])
    return x[w], x[r]


def unit_beam_case(quick):
    """Metrics of cb-unit-beam: first free–free elastic frequency against the number k of
    fixed-interface modes, boundary statics, rigid-body mass properties."""
    model = unit_beam()
    ends = np.array([model.node("beam_start"), model.node("beam_end")])
    counts = MODE_COUNTS  # cheap: the quick variant is the full case
    omega = []
    for k in counts:
        component = reduce_component(model, ends, k, mass="consistent")
        omega.append(_first_elastic(component.basis))
        if k == 0:
            tip_w, tip_r = _cantilever_tip(component)
    full = reduce_component(model, ends, len(component.basis.interior), mass="consistent").basis
    omega_full = _first_elastic(full)
    steps = np.diff(omega)
    metrics = {f"omega1_k{k}": w for k, w in zip(counts, omega)}
    metrics.update({
        "omega1_full": omega_full,
        "monotone_from_above": float(np.all(steps <= 1e-10 * omega[0]) and omega[-1] < omega[0]
                                      and omega[-1] >= omega_full * (1.0 - 1e-12)),
        "tip_deflection_guyan": tip_w,
        "tip_rotation_guyan": tip_r,
        "fixed_interface_omega1": float(component.basis.frequencies[0]),
    })
    return {
        "metrics": metrics,
        "series": {
            "convergence": {"h": np.asarray(counts, dtype=float) + 1.0, "error": np.asarray(omega) / omega_full - 1.0,
                            "xlabel": "k + 1 (fixed-interface modes kept + 1)",
                            "ylabel": "ω₁(k) / ω₁(full) − 1", "title": "Craig–Bampton unit beam: first free–free frequency"},
        },
    }
