"""Components of a femb model for component mode synthesis.

A model is split into components, each a group of its parts (element sets). A component's
stiffness and mass are those of its own elements about the reference configuration, over
the DOFs its elements carry (supports of the model at its nodes applied); DOFs shared with
another component are its interface. Components can also be given directly as matrices with
a (node, dof) key per row (``ComponentMatrices``).

The sensitivity matrices of a design change are built the same way from element sets:
``element_set_matrices`` gives K and M of some parts alone, so that scaling Young's modulus
of those parts by (1 + α) adds α·K_set and scaling their density adds α·M_set.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from femb.core.errors import InputError, ModelError
from femb.elements import MASS_KINDS
from femb.model import Model
from femb.solvers.configuration import split_state
from femb.solvers.problem import StaticProblem


@dataclass(frozen=True)
class ComponentMatrices:
    """Stiffness and mass of one component over its DOFs.

    Attributes
    ----------
    name : str
    K, M : (n, n) float64, symmetric (dense)
    dofs : tuple of (int, str)
        (node, dof name) of every row, e.g. (4, "uy").
    """

    name: str
    K: np.ndarray
    M: np.ndarray
    dofs: tuple

    @property
    def n_dofs(self) -> int:
        """Number of DOFs of the component."""
        return len(self.dofs)

    def rows_of(self, keys: Sequence[tuple]) -> np.ndarray:
        """Row index of each (node, dof) key (KeyError naming a missing one)."""
        index = {k: i for i, k in enumerate(self.dofs)}
        try:
            return np.array([index[k] for k in keys], dtype=np.int64)
        except KeyError as exc:
            raise KeyError(f"component {self.name!r} has no DOF {exc.args[0]}") from None


def _sub_model(model: Model, parts: Sequence[str], name: str, section_of=None) -> Model:
    """A model of the same mesh with only ``parts`` and the supports at their nodes;
    ``section_of(part) -> Section``, when given, replaces each part's section."""
    unknown = [p for p in parts if p not in model.parts]
    if unknown:
        raise ModelError(f"unknown part(s) {', '.join(map(repr, unknown))}; the model has "
                         f"{', '.join(map(repr, model.parts))}", f"component {name!r}")
    if model.joints or model.ties or model.prescribed:
        raise ModelError("component mode synthesis takes models without joints, ties or prescribed DOFs "
                         "(components join through their shared nodes)", f"component {name!r}")
    sub = Model(model.mesh, dim=model.dim, name=f"{model.name}: {name}")
    nodes = set()
    for p in parts:
        part = model.parts[p]
        section = part.section if section_of is None else section_of(part)
        sub.add_part(p, part.element, part.cells, part.material, section, part.values)
        nodes.update(np.unique(model.mesh.cells[part.cells].connectivity).tolist())
    for fixed in model.fixed:
        held = [int(n) for n in np.atleast_1d(model.nodes(fixed.nodes)) if int(n) in nodes]
        if held:
            sub.fix(np.array(held, dtype=np.int64), fixed.dofs, name=fixed.name)
    return sub


def _matrices(model: Model, mass: str):
    if mass not in MASS_KINDS:
        raise InputError(f"mass must be one of {', '.join(MASS_KINDS)}, got {mass!r}", "mass")
    prob = StaticProblem(model)
    u, R = split_state(prob.initial_state(None))
    _, K = prob.assembler.tangent(u, include_geometric=False, R=R)
    M = prob.assembler.mass_matrix(MASS_KINDS[mass], u, R=R)
    t = prob.table
    dofs = tuple((int(n), d) for n, d in (t.describe_var(v) for v in t.eq_var))
    K, M = K.toarray(), M.toarray()
    return 0.5 * (K + K.T), 0.5 * (M + M.T), dofs


def component_matrices(model: Model, parts: Sequence[str], name: str, mass: str = "lumped") -> ComponentMatrices:
    """K and M of the component made of ``parts`` of ``model`` (module docstring); ``mass``
    the element mass kind ("lumped", femb's one default, "consistent", "invariant")."""
    K, M, dofs = _matrices(_sub_model(model, parts, name), mass)
    return ComponentMatrices(name, K, M, dofs)


def element_set_matrices(model: Model, parts: Sequence[str], dofs: Sequence[tuple], mass: str = "lumped",
                         section_of=None):
    """(K_set, M_set) (n, n) of the elements of ``parts`` alone, over the rows ``dofs``
    ((node, dof) keys, e.g. a component's): the sensitivity matrices of Young's modulus and
    of density of those parts (K and M are linear in each). ``section_of(part) -> Section``
    assembles them with other sections (e.g. a changed thickness)."""
    K, M, keys = _matrices(_sub_model(model, parts, "+".join(parts), section_of), mass)
    index = {k: i for i, k in enumerate(dofs)}
    missing = [k for k in keys if k not in index]
    if missing:
        raise ModelError(f"the element set's DOFs {missing[:4]} are not among the component's", "+".join(parts))
    rows = np.array([index[k] for k in keys], dtype=np.int64)
    n = len(dofs)
    K_full, M_full = np.zeros((n, n)), np.zeros((n, n))
    K_full[np.ix_(rows, rows)] = K
    M_full[np.ix_(rows, rows)] = M
    return K_full, M_full


def model_matrices(model: Model, mass: str = "lumped") -> ComponentMatrices:
    """K and M of the whole model (the reference an exact re-analysis solves)."""
    K, M, dofs = _matrices(model, mass)
    return ComponentMatrices(model.name, K, M, dofs)
