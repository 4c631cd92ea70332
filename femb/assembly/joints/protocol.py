"""The evaluator protocol every joint kind implements for ``ConstraintSet``.

A joint *evaluator* holds all joints of one family of kinds of a model (say every planar
``slider``) and evaluates their equations Φ(u, t) = 0 at once. ``ConstraintSet``
(femb.assembly.joints.constraint_set) stacks the evaluators' rows, in the order of
``EVALUATORS`` there, and turns their triplets into the Jacobians and curvatures the
solvers take.

Conventions shared by every method
----------------------------------
- ``u`` (n_var,) is a state over the table's *variables* (every DOF value, prescribed and
  fixed ones included); 2-D rotations are additive angles θ (rad); 3-D rotational slots
  hold the rotation vector log R.
- Triplets ``(rows, cols, vals)`` are three 1-D arrays of one length: ``rows`` (int64) are
  the evaluator's *local* rows 0 .. m−1 (for the Jacobians) or variables (for the square
  curvature terms); ``cols`` (int64) are variables, −1 for a fixed slot (ground, a DOF the
  table removed), which ``ConstraintSet`` drops; ``vals`` (float64). Duplicates add up.
- The rows and columns of the Jacobian triplets depend on the joints only, never on the
  state: ``ConstraintSet`` builds its sparsity pattern from the first call and afterwards
  reads only ``vals``.
- Columns of 2-D rotational variables are derivatives with respect to θ; columns of 3-D
  rotational variables are derivatives with respect to the spatial spin w (δR = ŵ R) in
  ``evaluate``/``hessian`` and per unit Cayley vector ψ of the increment R_1 R_0ᵀ in
  ``midpoint``/``midpoint_stiffness``.
- Mid-point contract: ``midpoint(u0, u1)`` is a *discrete derivative*, Ḡ with
  Ḡ·Δq = Φ(u1) − Φ(u0) exactly (Δq: Δu on translations and 2-D angles, ψ on 3-D
  rotations), so the joint reactions Ḡᵀλ of the energy-conserving scheme do no work.
- Kinds whose equations involve 3-D nodal rotations set ``takes_rotations``; they accept
  the solver's nodal rotations (n_nodes, 3, 3) as ``rotations`` (no round trip through
  log R). The others ignore ``rotations``.
"""
from abc import ABC, abstractmethod
from typing import ClassVar, Optional

import numpy as np
from numpy.typing import NDArray

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]
Triplets = tuple[IntArray, IntArray, FloatArray]
"""(rows, cols, vals), three 1-D arrays of one length (see the module docstring)."""


def gather(u: FloatArray, variables: IntArray) -> FloatArray:
    """Values of ``u`` (n_var,) at ``variables`` (any shape), 0 where a variable is −1
    (a fixed slot or ground); same shape as ``variables``."""
    return np.where(variables >= 0, u[np.maximum(variables, 0)], 0.0)


class JointEvaluator(ABC):
    """All joints of a model of the kinds in ``kinds``, evaluated together.

    Attributes
    ----------
    kinds : frozenset of str (class attribute)
        The ``Joint.kind`` values this evaluator handles (femb.model.joints).
    takes_rotations : bool (class attribute)
        True when the equations involve 3-D nodal rotations and the methods taking
        ``rotations`` use them.
    m : int
        Number of equations (rows).
    names : list of str (m,)
        The joint name of each row.

    Subclasses are built as ``Kind(model, table, joints)`` from the model, its
    CorrelationTable and the list of its joints of these kinds (ModelError naming a joint
    whose nodes lack the DOFs it needs).
    """

    kinds: ClassVar[frozenset] = frozenset()
    takes_rotations: ClassVar[bool] = False
    m: int
    names: list

    @abstractmethod
    def evaluate(self, u: FloatArray, t: float = 0.0, rotations: Optional[FloatArray] = None
                 ) -> tuple[FloatArray, IntArray, IntArray, FloatArray]:
        """(Φ (m,), rows, cols, vals): the equations at state ``u`` (n_var,) and time
        ``t``, and their Jacobian ∂Φ/∂u as triplets (local rows). Keeps what ``hessian``
        needs of this state. ``rotations`` (n_nodes, 3, 3): nodal rotations of a 3-D
        model (kinds with ``takes_rotations``; default from the rotation vectors in u)."""

    @abstractmethod
    def hessian(self, lam: FloatArray) -> Triplets:
        """Σ_i λ_i ∇²Φ_i (symmetric part) as triplets over variables × variables, at the
        state of the last ``evaluate`` (the 3-D joints: or of the last ``midpoint``, at the
        averaged state); ``lam`` (m,) holds one multiplier per row. Empty arrays for
        linear equations."""

    @abstractmethod
    def midpoint(self, u0: FloatArray, u1: FloatArray, rotations: Optional[tuple] = None) -> Triplets:
        """Discrete Jacobian Ḡ between the states ``u0`` and ``u1`` (n_var,) as triplets
        (local rows, same rows and columns as ``evaluate``'s), with Ḡ·Δq = Φ(u1) − Φ(u0)
        exactly (module docstring). ``rotations``: (R_0, R_1) nodal rotations
        (n_nodes, 3, 3) each, for kinds with ``takes_rotations``."""

    def midpoint_stiffness(self, lam: FloatArray) -> Triplets:
        """∂(Ḡᵀλ)/∂Δq over variables × variables for the Ḡ of the last ``midpoint``,
        multipliers ``lam`` (m,) fixed. Default: half the curvature ``hessian`` (exact for
        equations at most quadratic in the positions, whose Ḡ is the Jacobian at the
        mid-point; an approximation of the Newton matrix for the planar body kinds); the
        3-D joints give their exact derivative per unit Cayley vector."""
        rows, cols, vals = self.hessian(lam)
        return rows, cols, 0.5 * np.asarray(vals, dtype=np.float64)
