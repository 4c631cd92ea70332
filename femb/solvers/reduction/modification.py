"""Structural modification on a component-mode basis, forward and inverse (Hutton & Smith).

A design change is parameterised as ΔK̄ = Σ_j α_j K_j, ΔM̄ = Σ_j α_j M_j, with K_j and M_j the
sensitivity matrices of design variable j in the stacked component coordinates (for Young's
modulus of an element set: the set's stiffness; for its density: its mass; both exact for
these linear variables). With the baseline synthesis (T, Λ, Z: all its modes, Zᵀ M Z = I)
and Ẑ = T Z, the modified eigenproblem is solved in the baseline basis

    (Λ + Ẑᵀ ΔK̄ Ẑ) c = λ* (I + Ẑᵀ ΔM̄ Ẑ) c,    u* = Ẑ c,

of the size of the synthesised model, with no component re-analysed ("forward"). It equals a
re-analysis that keeps T; for a change proportional to a component's mass it equals the
complete re-analysis exactly (its free–free modes only rescale, so span T is unchanged); for
stiffness changes it is an approximation whose error the report shows.

Sensitivities ∂λ_i/∂α_j = ẑ_iᵀ (K_j − λ_i M_j) ẑ_i (ẑ_i = Ẑ c_i mass-normalised) rank the
variables. The inverse problem — the α that move chosen eigenvalues to targets — is
non-linear in α (the modes change); it is solved by Newton's method on λ_i(α) = λ_i*
(minimum-norm Gauss–Newton steps when there are more variables than targets), and the
first-order estimate α₁ = J(0)⁺(λ* − λ(0)) is reported beside it.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, Optional, Sequence

import numpy as np
import scipy.linalg as sla

from femb.core.errors import ConvergenceError, InputError
from femb.model import Model
from femb.solvers.reduction.free_interface import ComponentModeSynthesis
from femb.solvers.reduction.substructures import element_set_matrices, model_matrices


@dataclass(frozen=True)
class DesignVariable:
    """A fractional change α of a design parameter of one component.

    Attributes
    ----------
    name : str
    component : str
        The component whose matrices change.
    K, M : (n_c, n_c) float64
        ∂K_c/∂α and ∂M_c/∂α over the component's DOFs.
    parts : tuple of str
        The model's parts the variable scales (empty for variables given as matrices).
    mass_kind : str
    change : callable or None
        For a variable that enters non-linearly (a shell's thickness: membrane ∝ t,
        bending ∝ t³): ``change(alpha, dofs) -> (ΔK, ΔM)`` over the (node, dof) keys
        ``dofs``, the exact change of the matrices at α (K and M above are then its
        derivative at α = 0). None for linear variables (ΔK = α K, ΔM = α M).
    """

    name: str
    component: str
    K: np.ndarray
    M: np.ndarray
    parts: tuple = ()
    mass_kind: str = "lumped"
    change: Optional[Callable] = None

    def matrices(self, alpha: float, dofs: Sequence[tuple]):
        """(ΔK, ΔM) at α over the keys ``dofs`` (exact for linear and non-linear variables)."""
        if self.change is not None:
            return self.change(alpha, dofs)
        raise InputError("a linear variable's change is α times its matrices", self.name)


def young_modulus(model: Model, cms: ComponentModeSynthesis, component: str, parts: Sequence[str],
                  mass: str = "lumped") -> DesignVariable:
    """Design variable α: Young's modulus (and every stiffness of the elements, which is
    linear in E) of ``parts`` scaled by 1 + α; the parts must belong to ``component``."""
    c = cms.components[cms.component_index(component)]
    K, M = element_set_matrices(model, parts, c.dofs, mass)
    return DesignVariable(f"E of {'+'.join(parts)}", component, K, np.zeros_like(M), tuple(parts), mass)


def thickness(model: Model, cms: ComponentModeSynthesis, component: str, parts: Sequence[str],
              mass: str = "lumped", step: float = 1e-6) -> DesignVariable:
    """Design variable α: the section thickness of ``parts`` (shells: Section.thickness)
    scaled by 1 + α. Stiffness and mass are not linear in t (bending ∝ t³), so the
    variable carries its exact change ΔK(α), ΔM(α) by re-assembling the parts with the
    changed thickness; its sensitivity matrices are central differences at α = 0 (``step``)."""
    c = cms.components[cms.component_index(component)]
    for p in parts:
        part = model.parts.get(p)
        if part is None or part.section is None or getattr(part.section, "thickness", None) is None:
            raise InputError(f"part {p!r} has no section thickness to change", "thickness")

    def change(alpha, dofs):
        scaled = element_set_matrices(model, parts, dofs, mass,
                                      section_of=lambda part: replace(part.section, thickness=part.section.thickness * (1.0 + alpha)))
        base = element_set_matrices(model, parts, dofs, mass)
        return scaled[0] - base[0], scaled[1] - base[1]

    up, down = change(step, c.dofs), change(-step, c.dofs)
    return DesignVariable(f"thickness of {'+'.join(parts)}", component, (up[0] - down[0]) / (2 * step),
                          (up[1] - down[1]) / (2 * step), tuple(parts), mass, change)


def density(model: Model, cms: ComponentModeSynthesis, component: str, parts: Sequence[str],
            mass: str = "lumped") -> DesignVariable:
    """Design variable α: density of ``parts`` scaled by 1 + α (mass linear in ρ); ``mass``
    the element mass kind of the component's matrices (default "lumped", as everywhere)."""
    c = cms.components[cms.component_index(component)]
    K, M = element_set_matrices(model, parts, c.dofs, mass)
    return DesignVariable(f"density of {'+'.join(parts)}", component, np.zeros_like(K), M, tuple(parts), mass)


@dataclass(frozen=True)
class Modified:
    """Eigen-solution of a modified design in the baseline basis.

    eigenvalues : (m,) λ*, ascending; vectors : (m, m) c (columns, (I + ẐᵀΔM̄Ẑ)-normalised);
    alpha : (n_var,) the design changes.
    """

    eigenvalues: np.ndarray
    vectors: np.ndarray
    alpha: np.ndarray

    @property
    def frequencies(self) -> np.ndarray:
        """Circular frequencies [rad/time] of the modified model (0 for negative eigenvalues)."""
        return np.sqrt(np.maximum(self.eigenvalues, 0.0))


@dataclass(frozen=True)
class InverseResult:
    """Design changes that place target eigenvalues.

    alpha : (n_var,) the solution; first_order : (n_var,) the linear estimate from the
    baseline sensitivities; iterations : Newton iterations; modified : the design's solution;
    modes : indices of the targeted eigenvalues; targets : λ* (rad², per time unit²);
    history : residual norms per iteration.
    """

    alpha: np.ndarray
    first_order: np.ndarray
    iterations: int
    modified: Modified
    modes: np.ndarray
    targets: np.ndarray
    history: list = field(default_factory=list)


class StructuralModification:
    """Forward and inverse modification of the design variables ``variables`` on the basis
    of the synthesis ``cms`` (module docstring)."""

    def __init__(self, cms: ComponentModeSynthesis, variables: Sequence[DesignVariable]):
        self.cms = cms
        self.variables = list(variables)
        base = cms.eigen()
        self.baseline = base
        Zhat = cms.T @ base.vectors  # (n_stacked, m) physical baseline modes
        self._K, self._M, self._rows = [], [], []
        for v in self.variables:
            rows = cms.rows(v.component)
            n_c = rows.stop - rows.start
            if v.K.shape != (n_c, n_c) or v.M.shape != (n_c, n_c):
                raise InputError(f"sensitivity matrices must be {n_c} x {n_c} (component {v.component!r})", v.name)
            Z = Zhat[rows]
            self._K.append(Z.T @ v.K @ Z)
            self._M.append(Z.T @ v.M @ Z)
            self._rows.append(Z)
        self.Lambda = base.eigenvalues

    def _alpha(self, alpha) -> np.ndarray:
        if isinstance(alpha, Mapping):
            names = [v.name for v in self.variables]
            unknown = set(alpha) - set(names)
            if unknown:
                raise InputError(f"unknown design variable(s) {sorted(unknown)}; known: {names}", "alpha")
            alpha = [alpha.get(n, 0.0) for n in names]
        a = np.asarray(alpha, dtype=np.float64).ravel()
        if a.size != len(self.variables):
            raise InputError(f"{len(self.variables)} design changes expected, got {a.size}", "alpha")
        return a

    def modify(self, alpha) -> Modified:
        """Forward modification: eigenpairs of the design with changes ``alpha`` (sequence
        in the order of the variables, or mapping name -> α)."""
        a = self._alpha(alpha)
        m = self.Lambda.size
        K, M = np.diag(self.Lambda), np.eye(m)
        for j, aj in enumerate(a):
            dK, dM = self._change(j, aj)
            K, M = K + dK, M + dM
        lam, c = sla.eigh(0.5 * (K + K.T), 0.5 * (M + M.T))
        return Modified(lam, c, a)

    def _change(self, j: int, alpha: float):
        """(Ẑᵀ ΔK̄ Ẑ, Ẑᵀ ΔM̄ Ẑ) of variable j at α: α times its projected matrices for a
        linear variable, the projected exact change for a non-linear one."""
        v = self.variables[j]
        if v.change is None:
            return alpha * self._K[j], alpha * self._M[j]
        Z = self._rows[j]
        dK, dM = v.matrices(alpha, self.cms.components[self.cms.component_index(v.component)].dofs)
        return Z.T @ dK @ Z, Z.T @ dM @ Z

    def _derivative(self, j: int, alpha: float, step: float = 1e-6):
        """(Ẑᵀ ∂K̄/∂α Ẑ, Ẑᵀ ∂M̄/∂α Ẑ) of variable j at α (central differences of the exact
        change for a non-linear variable)."""
        if self.variables[j].change is None:
            return self._K[j], self._M[j]
        h = step * max(1.0, abs(alpha))
        (Kp, Mp), (Km, Mm) = self._change(j, alpha + h), self._change(j, alpha - h)
        return (Kp - Km) / (2 * h), (Mp - Mm) / (2 * h)

    def sensitivities(self, modes: Sequence[int], design: Modified = None) -> np.ndarray:
        """∂λ_i/∂α_j (len(modes), n_var) at ``design`` (default: the baseline)."""
        design = design or self.modify(np.zeros(len(self.variables)))
        out = np.empty((len(modes), len(self.variables)))
        for r, i in enumerate(modes):
            c = design.vectors[:, i]
            lam = design.eigenvalues[i]
            for j in range(len(self.variables)):
                Kj, Mj = self._derivative(j, float(design.alpha[j]))
                out[r, j] = c @ (Kj - lam * Mj) @ c
        return out

    def normalised_sensitivities(self, modes: Sequence[int]) -> np.ndarray:
        """(α-scaled) (1/λ_i)∂λ_i/∂α_j at the baseline: e.g. minus a component's share of the
        modal kinetic energy for a density variable, its share of strain energy for E."""
        lam = self.Lambda[np.asarray(modes)]
        return self.sensitivities(modes) / lam[:, None]

    def inverse(self, targets: Mapping[int, float], alpha0=None, tol: float = 1e-12, max_iter: int = 50) -> InverseResult:
        """The α placing eigenvalue i at λ_i* for every (i, λ_i*) of ``targets`` (λ = ω²).
        Newton's method (Gauss–Newton, minimum-norm steps, with more variables than
        targets); ConvergenceError with the residual history when it does not converge."""
        if not targets:
            raise InputError("give at least one target eigenvalue", "targets")
        modes = np.array(sorted(targets), dtype=np.int64)
        lam_t = np.array([float(targets[i]) for i in modes])
        if modes.min() < 0 or modes.max() >= self.Lambda.size:
            raise InputError(f"mode indices must lie in 0..{self.Lambda.size - 1}", "targets")
        if np.any(lam_t <= 0.0):
            raise InputError("target eigenvalues λ = ω² must be positive", "targets")
        a = np.zeros(len(self.variables)) if alpha0 is None else self._alpha(alpha0)
        J0 = self.sensitivities(modes)
        first = np.linalg.lstsq(J0, lam_t - self.Lambda[modes], rcond=None)[0]
        history = []
        for it in range(1, max_iter + 1):
            design = self.modify(a)
            r = design.eigenvalues[modes] - lam_t
            history.append(float(np.linalg.norm(r / lam_t)))
            if history[-1] <= tol:
                return InverseResult(a, first, it - 1, design, modes, lam_t, history)
            J = self.sensitivities(modes, design)
            a = a - np.linalg.lstsq(J, r, rcond=None)[0]
        raise ConvergenceError(f"inverse modification did not reach the targets in {max_iter} iterations "
                               f"(relative residual {history[-1]:.2e})", history)

    def full_reanalysis(self, model: Model, alpha) -> np.ndarray:
        """Eigenvalues (ascending) of the unreduced ``model`` with the changes ``alpha``: K and
        M of the whole model (the variables' mass kind) plus α_j times each linear variable's
        element-set matrices (exact for E and density) or the exact change of a non-linear
        one (re-assembled at α). The check forward and inverse results are judged by."""
        a = self._alpha(alpha)
        kinds = {v.mass_kind for v in self.variables}
        if len(kinds) != 1:
            raise InputError(f"design variables of different mass kinds {sorted(kinds)}", "full_reanalysis")
        full = model_matrices(model, kinds.pop())
        K, M = full.K.copy(), full.M.copy()
        for aj, v in zip(a, self.variables):
            if v.change is not None:
                dK, dM = v.matrices(aj, full.dofs)
                K, M = K + dK, M + dM
                continue
            if not v.parts:
                raise InputError("a variable given as matrices has no parts to re-assemble", v.name)
            Kj, Mj = element_set_matrices(model, v.parts, full.dofs, v.mass_kind)
            if np.any(v.K):  # a stiffness variable (E): the element set's K scales
                K += aj * Kj
            if np.any(v.M):  # a mass variable (density): the element set's M scales
                M += aj * Mj
        return sla.eigh(K, M, eigvals_only=True)

    def report(self, model: Model, alpha, modes: Sequence[int], targets: Mapping[int, float] = None) -> list:
        """Rows of a modification table, one per mode i of ``modes``: baseline ω, forward
        ω, full re-analysis ω (unreduced model), the forward result's relative error, and
        the target ω where ``targets`` (i -> λ*) names one. Frequencies in rad per time unit."""
        a = self._alpha(alpha)
        forward = self.modify(a).frequencies
        full = np.sqrt(np.maximum(self.full_reanalysis(model, a), 0.0))
        rows = []
        for i in modes:
            rows.append({"mode": int(i), "baseline": float(self.baseline.frequencies[i]), "modified": float(forward[i]),
                         "full": float(full[i]), "error": float(forward[i] / full[i] - 1.0) if full[i] > 0 else 0.0,
                         "target": float(np.sqrt(targets[i])) if targets and i in targets else None,
                         "alpha": {v.name: float(x) for v, x in zip(self.variables, a)}})
        return rows


def format_report(rows: Sequence[dict]) -> str:
    """A plain-text table of ``StructuralModification.report`` rows."""
    head = f"{'mode':>4}  {'baseline':>12}  {'modified':>12}  {'full':>12}  {'error':>10}  {'target':>12}"
    lines = [head, "-" * len(head)]
    for r in rows:
        target = f"{r['target']:12.6g}" if r["target"] is not None else " " * 12
        lines.append(f"{r['mode']:>4}  {r['baseline']:12.6g}  {r['modified']:12.6g}  {r['full']:12.6g}  "
                     f"{r['error']:10.2e}  {target}")
    if rows:
        lines.append("α: " + ", ".join(f"{k} = {v:.6g}" for k, v in rows[0]["alpha"].items()))
    return "\n".join(lines)
