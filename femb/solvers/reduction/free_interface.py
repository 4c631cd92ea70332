"""Free-interface component mode synthesis with residual flexibility.

Each component c (stiffness K_c, mass M_c over its DOFs, free–free or partly supported) is
represented by its k_c lowest free-interface modes Φ_c (rigid-body modes included, mass-
normalised, eigenvalues Λ_c) and by the residual flexibility of the modes left out,

    G_c = Σ_{elastic modes j not kept} φ_j φ_jᵀ / λ_j,

which carries the static response of the neglected modes to interface forces. With the
components stacked (block-diagonal K̄, M̄, Φ̄, Ḡ) and A the signed Boolean matrix of the
interface compatibility (A ū = 0: shared DOFs move together), a component's displacement
under interface forces f = Aᵀμ is ū = Φ̄ p + Ḡ Aᵀ μ; compatibility gives μ and

    ū = T p,    T = Φ̄ − Ḡ Aᵀ (A Ḡ Aᵀ)⁻¹ A Φ̄,

so the system coordinates p are the amplitudes of every kept component mode. K = Tᵀ K̄ T and
M = Tᵀ M̄ T define a Rayleigh–Ritz model of the assembled structure: its eigenvalues are
upper bounds of the unreduced ones (Hutton & Smith 1993, free-interface method with
residual attachment modes after MacNeal/Rubin).

Components are reduced from dense matrices (all their modes are computed once, which gives
the residual flexibility exactly); a reduction is kept per component, so replacing one
component re-analyses only that one (``replace``).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Dict, Mapping, Sequence, Union

import numpy as np
import scipy.linalg as sla

from femb.core.errors import InputError, ModelError
from femb.solvers.reduction.substructures import ComponentMatrices

RIGID_TOL = 1e-9  # eigenvalues below RIGID_TOL·(largest eigenvalue) count as rigid-body modes


@dataclass(frozen=True)
class ComponentModes:
    """The free-interface reduction of one component.

    Attributes
    ----------
    matrices : ComponentMatrices
    modes : (n, k) float64
        Kept modes Φ, Φᵀ M Φ = I, rigid-body modes first.
    eigenvalues : (k,) float64
        Their λ = ω² (rigid ones set to 0).
    residual_flexibility : (n, n) float64
        G of the elastic modes not kept.
    n_rigid : int
    """

    matrices: ComponentMatrices
    modes: np.ndarray
    eigenvalues: np.ndarray
    residual_flexibility: np.ndarray
    n_rigid: int

    @property
    def cutoff(self) -> float:
        """Highest kept circular frequency (rad per time unit)."""
        return float(np.sqrt(self.eigenvalues[-1])) if self.eigenvalues.size else 0.0


def _fingerprint(c: ComponentMatrices) -> str:
    h = hashlib.sha256(c.name.encode())
    for arr in (c.K, c.M):
        h.update(np.ascontiguousarray(arr).tobytes())
    h.update(repr(c.dofs).encode())
    return h.hexdigest()


def component_modes(c: ComponentMatrices, n_modes: int) -> ComponentModes:
    """Free-interface modes and residual flexibility of component ``c`` keeping its
    ``n_modes`` lowest modes (which must include every rigid-body mode)."""
    n = c.n_dofs
    if not 0 < n_modes < n:
        raise InputError(f"n_modes must lie in 1..{n - 1} (the component has {n} DOFs), got {n_modes}",
                         f"component {c.name!r}")
    d = np.diag(c.M)
    if np.any(d < 0) or np.linalg.eigvalsh(c.M)[0] <= 0.0:
        raise ModelError("the mass matrix is not positive definite (every DOF needs mass or rotary inertia "
                         "for free-interface modes)", f"component {c.name!r}")
    lam, phi = sla.eigh(c.K, c.M)
    rigid = lam < RIGID_TOL * max(lam[-1], 1e-300)
    n_rigid = int(np.count_nonzero(rigid))
    if n_modes < n_rigid:
        raise InputError(f"keep at least the {n_rigid} rigid-body modes (n_modes = {n_modes})", f"component {c.name!r}")
    lam = np.where(rigid, 0.0, lam)
    left = slice(n_modes, n)
    G = (phi[:, left] / lam[left]) @ phi[:, left].T
    return ComponentModes(c, phi[:, :n_modes].copy(), lam[:n_modes].copy(), 0.5 * (G + G.T), n_rigid)


@dataclass(frozen=True)
class SynthesisModes:
    """Eigen-solution of the synthesised model.

    Attributes
    ----------
    eigenvalues : (m,) float64
        λ = ω², ascending (rigid-body modes ≈ 0).
    vectors : (n_p, m) float64
        Mode vectors over the system coordinates p (Zᵀ M Z = I).
    """

    eigenvalues: np.ndarray
    vectors: np.ndarray

    @property
    def frequencies(self) -> np.ndarray:
        """Circular frequencies ω = √λ (rad per time unit; 0 for rigid-body modes)."""
        return np.sqrt(np.maximum(self.eigenvalues, 0.0))


class ComponentModeSynthesis:
    """Assembled free-interface CMS model of several components (module docstring).

    Parameters
    ----------
    components : sequence of ComponentMatrices
        Components sharing interface DOFs by their (node, dof) keys.
    n_modes : int or mapping name -> int
        Modes kept per component.
    cache : dict, optional
        Component reductions by fingerprint of their matrices, shared between syntheses
        (``replace`` passes its own on, so unchanged components are not re-analysed).
    """

    def __init__(self, components: Sequence[ComponentMatrices], n_modes: Union[int, Mapping[str, int]],
                 cache: Dict[str, ComponentModes] = None):
        names = [c.name for c in components]
        if len(set(names)) != len(names):
            raise InputError("component names must be unique", "components")
        self.components = list(components)
        self.n_modes = {c.name: (n_modes if isinstance(n_modes, int) else n_modes[c.name]) for c in components}
        self.cache = {} if cache is None else cache
        self.reductions_computed = 0
        self.reduced = [self._reduce(c) for c in self.components]
        self._assemble()

    def _reduce(self, c: ComponentMatrices) -> ComponentModes:
        key = f"{_fingerprint(c)}:{self.n_modes[c.name]}"
        if key not in self.cache:
            self.cache[key] = component_modes(c, self.n_modes[c.name])
            self.reductions_computed += 1
        return self.cache[key]

    def _assemble(self):
        """T, K = Tᵀ K̄ T and M = Tᵀ M̄ T, component block by component block (K̄, M̄, Φ̄ and
        Ḡ are block-diagonal; the compatibility touches only interface rows)."""
        offsets = np.cumsum([0] + [c.n_dofs for c in self.components])
        mode_offsets = np.cumsum([0] + [r.modes.shape[1] for r in self.reduced])
        n_p = int(mode_offsets[-1])
        self.offsets, self.mode_offsets = offsets, mode_offsets
        first = {}
        pairs = []  # (component, row) that must move with (component, row)
        for ci, c in enumerate(self.components):
            for i, key in enumerate(c.dofs):
                if key in first:
                    pairs.append((first[key], (ci, i)))
                else:
                    first[key] = (ci, i)
        if not pairs and len(self.components) > 1:
            raise ModelError("the components share no DOF: nothing joins them", "components")
        # per component: its interface rows and their compatibility signs (constraints × rows)
        touched = [dict() for _ in self.components]
        for k, ((ca, ia), (cb, ib)) in enumerate(pairs):
            touched[ca].setdefault(ia, []).append((k, 1.0))
            touched[cb].setdefault(ib, []).append((k, -1.0))
        blocks = []
        for ci, r in enumerate(self.reduced):
            rows = np.array(sorted(touched[ci]), dtype=np.int64)
            A_c = np.zeros((len(pairs), rows.size))
            for j, row in enumerate(rows):
                for k, sign in touched[ci][row]:
                    A_c[k, j] = sign
            blocks.append((rows, A_c))
        n_con = len(pairs)
        S = np.zeros((n_con, n_con))
        APhi = np.zeros((n_con, n_p))
        for ci, (r, (rows, A_c)) in enumerate(zip(self.reduced, blocks)):
            S += A_c @ r.residual_flexibility[np.ix_(rows, rows)] @ A_c.T
            APhi[:, mode_offsets[ci]:mode_offsets[ci + 1]] += A_c @ r.modes[rows]
        if n_con:
            s = np.linalg.eigvalsh(0.5 * (S + S.T))
            if s[0] <= 1e-12 * max(s[-1], 1e-300):
                raise ModelError("the interface residual flexibility A·G·Aᵀ is singular: keep fewer modes per "
                                 "component (the left-out modes must be able to flex every interface DOF)",
                                 "components")
            X = np.linalg.solve(S, APhi)  # interface forces per unit modal amplitude (sign: −μ)
        T = np.zeros((int(offsets[-1]), n_p))
        K = np.zeros((n_p, n_p))
        M = np.zeros((n_p, n_p))
        for ci, (c, r, (rows, A_c)) in enumerate(zip(self.components, self.reduced, blocks)):
            T_c = np.zeros((c.n_dofs, n_p))
            T_c[:, mode_offsets[ci]:mode_offsets[ci + 1]] = r.modes
            if n_con:
                T_c -= r.residual_flexibility[:, rows] @ (A_c.T @ X)
            T[offsets[ci]:offsets[ci + 1]] = T_c
            K += T_c.T @ c.K @ T_c
            M += T_c.T @ c.M @ T_c
        self.T = T
        self.K, self.M = 0.5 * (K + K.T), 0.5 * (M + M.T)
        self.interface_keys = sorted(self.components[ca].dofs[ia] for (ca, ia), _ in pairs)

    @property
    def n_coordinates(self) -> int:
        """Size of the synthesised model (the kept component modes)."""
        return int(self.K.shape[0])

    def component_index(self, name: str) -> int:
        """Position of the component called ``name``; KeyError naming the components when absent."""
        for i, c in enumerate(self.components):
            if c.name == name:
                return i
        raise KeyError(f"no component {name!r}; components: {', '.join(c.name for c in self.components)}")

    def rows(self, name: str) -> slice:
        """Rows of component ``name`` in the stacked coordinates ū."""
        i = self.component_index(name)
        return slice(int(self.offsets[i]), int(self.offsets[i + 1]))

    def eigen(self) -> SynthesisModes:
        """All eigenpairs of the synthesised model, mass-normalised."""
        lam, Z = sla.eigh(self.K, self.M)
        return SynthesisModes(lam, Z)

    def replace(self, component: ComponentMatrices) -> "ComponentModeSynthesis":
        """The same synthesis with one component replaced (same name and DOFs): only that
        component is re-analysed, the others come from the shared cache."""
        i = self.component_index(component.name)
        if component.dofs != self.components[i].dofs:
            raise InputError("a replacing component must have the same DOFs", f"component {component.name!r}")
        comps = list(self.components)
        comps[i] = component
        return ComponentModeSynthesis(comps, self.n_modes, cache=self.cache)

    def physical(self, vectors: np.ndarray) -> Dict[tuple, np.ndarray]:
        """Mode shapes over the (node, dof) keys: {key: (m,) values} (interface DOFs agree
        between components by construction; the first component's value is taken)."""
        u = self.T @ np.atleast_2d(vectors.T).T
        out = {}
        for ci, c in enumerate(self.components):
            for i, key in enumerate(c.dofs):
                out.setdefault(key, u[self.offsets[ci] + i])
        return out
