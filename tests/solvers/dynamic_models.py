"""Small models shared by the dynamics tests (paper examples and property checks)."""
import numpy as np

from femb.mesh import CellBlock, Mesh, line_mesh
from femb.model import Model

# The Crisfield & Shi models live with their validation cases (re-exported for the tests).
from femb.validation.crisfield_cases import ESCAPE_Y0, bathe_pendulum, escape_model, four_bar_chain  # noqa: F401

TRUSSES = ["truss2d", "truss2d_green", "truss3d", "truss3d_green"]
BEAMS = ["beam2d", "beam2d_timoshenko"]
ELEMENTS = TRUSSES + BEAMS


def dim_of(element):
    return 3 if "3d" in element else 2


def values(element, EA=1e4, EI=10.0, rhoA=1.0, rhoI=0.01, GAs=1e4):
    """Direct element parameters of ``element``."""
    if element in TRUSSES:
        return {"EA": EA, "rhoA": rhoA}
    out = {"EA": EA, "EI": EI, "rhoA": rhoA, "rhoI": rhoI}
    if element == "beam2d_timoshenko":
        out["GAs"] = GAs
    return out


def chain(element, n=3, length=2.0, angle=0.3, **params):
    """A straight chain of ``n`` elements from the origin at ``angle`` (rad, in the x-y
    plane; 3-D models get a z offset so that the chain is not planar)."""
    dim = dim_of(element)
    end = np.array([np.cos(angle), np.sin(angle)]) * length
    if dim == 3:
        end = np.array([end[0], end[1], 0.4 * length])
        start = np.zeros(3)
    else:
        start = np.zeros(2)
    mesh = line_mesh(start, end, n, "c")
    model = Model(mesh, name=f"{element}-chain")
    model.add_part("c", element, "c", values=values(element, **params))
    return model


def frame(element, **params):
    """A small stiff structure: a triangle (2-D trusses), a tetrahedron (3-D trusses) or a
    straight 3-element beam (beams), first node at the origin."""
    dim = dim_of(element)
    if element in BEAMS:
        return chain(element, n=3, length=2.0, angle=0.3, **params)
    if dim == 2:
        pts = np.array([[0.0, 0.0], [2.0, 0.3], [0.9, 0.8]])
        conn = np.array([[0, 1], [1, 2], [2, 0]])
    else:
        pts = np.array([[0.0, 0.0, 0.0], [2.0, 0.3, 0.0], [0.9, 0.8, 0.1], [1.0, 0.2, 0.9]])
        conn = np.array([[0, 1], [1, 2], [2, 0], [0, 3], [1, 3], [2, 3]])
    mesh = Mesh(pts, {"c": CellBlock("line", conn)}, {"c_start": [0], "c_end": [1], "c_nodes": np.arange(len(pts))})
    model = Model(mesh, name=f"{element}-frame")
    model.add_part("c", element, "c", values=values(element, **params))
    return model


def pendulum_under_constant_loads(element, **params):
    """``frame`` pinned at its first node under gravity, a constant force at node
    ``c_end`` (and a constant end moment and a distributed load for beams), started with
    a velocity at ``c_end``: a compound pendulum with elastic vibrations."""
    model = frame(element, **params)
    dim = dim_of(element)
    model.fix("c_start", "translations")
    g = np.zeros(dim)
    g[1] = -9.81
    model.gravity(g)
    model.point_load("c_end", fx=2.0, constant=True)
    if element in BEAMS:
        model.point_load("c_end", mz=1.5)
        model.distributed_load("c", (0.0, -0.5))
    model.initial_velocity("c_end", uy=-2.0, **({"uz": 1.0} if dim == 3 else {}))
    return model


def free_flyer(element, omega=0.8, **params):
    """``frame`` flying freely: spinning about an off-centre point (3-D: about a skew
    axis), translating, with an extra deformation velocity at ``c_end`` (momenta are
    non-zero and the elements deform)."""
    model = frame(element, **params)
    dim = dim_of(element)
    w = omega if dim == 2 else (0.2, -0.3, omega)
    model.initial_rigid_velocity(velocity=(0.3, -0.2, 0.1)[:dim], omega=w, center=(0.5, -0.2, 0.1)[:dim])
    model.initial_velocity("c_end", **({"ux": 0.2, "uy": -0.1} if dim == 2 else {"ux": 0.2, "uy": -0.1, "uz": 0.1}))
    return model


def bending_rotations(res, frame):
    """Local end rotations θ̄ (n_el, 2) of the beam part at a frame (from M = K_b θ̄)."""
    from femb.assembly import Assembler

    asm = Assembler(res.table)
    block = res.table.blocks[0]
    s = asm.resultants(res.states[frame])[block.part]
    p = block.props
    l0 = np.linalg.norm(block.X[:, 1] - block.X[:, 0], axis=1)
    EI = p[:, 1]
    phi = 12.0 * EI / (p[:, 2] * l0**2) if p.shape[1] == 6 else np.zeros_like(EI)  # beam2d_timoshenko rows: 6 columns
    k = EI / (l0 * (1.0 + phi))
    k11, k12 = k * (4.0 + phi), k * (2.0 - phi)
    det = k11**2 - k12**2
    M1, M2 = s[:, 2], s[:, 3]
    return np.column_stack([(k11 * M1 - k12 * M2) / det, (k11 * M2 - k12 * M1) / det])
