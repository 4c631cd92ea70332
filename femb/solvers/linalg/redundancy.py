"""Joint equations left out as redundant, and the check that they still hold.

When the Jacobian G of a model's joint equations is rank-deficient at the configuration
where the solvers set up (``check_redundancy``, femb.solvers.linalg.nullspace), some
equations are dropped and the others solved. Dropping is right only when every dropped
equation keeps holding wherever the solved ones hold: a genuinely redundant joint (a
closed loop of rigid links whose equations depend on each other everywhere). It is wrong
for

- *contradictory* joints: equations that depend on each other but ask for different
  things (two distance joints between the same nodes with lengths 1.0 and 0.9): a dropped
  one is violated as soon as the others hold;
- a *singular configuration* at set-up (a parallelogram four-bar with all bars collinear):
  the equations depend on each other there but not next to it, so a dropped equation is
  violated once the mechanism moves.

``DroppedRows`` keeps the dropped rows and the joints each depended on, and ``residual``
checks every dropped equation at a solution state (every load increment of a static
solve, every step of a dynamic one): a dropped row r with |Φ_r − cᵀΦ_kept| above the
tolerance (c: G_r = cᵀG_kept at that state; with the kept rows solved this is |Φ_r|) is
an error naming the joints, and so is a dropped row that no longer depends on the kept
ones (the rank went up: the set-up configuration was singular) and no longer holds.
"""
import numpy as np

from femb.core.errors import ModelError

VIOLATION = 1e-8
"""A dropped equation is violated when |Φ| exceeds VIOLATION × the model's length scale."""
DEPENDENCE = 1e-8
"""A row depends on others when the least-squares remainder of its gradient is at most
DEPENDENCE × its norm."""


def _names(joints, rows):
    """'a', 'b' and 'c': the joints of constraint rows."""
    names = [repr(n) for n in joints.describe(rows)]
    if len(names) < 2:
        return names[0] if names else "no other joint"
    return ", ".join(names[:-1]) + " and " + names[-1]


class DroppedRows:
    """The joint rows left out of the solved equations as redundant.

    Parameters
    ----------
    joints : femb.assembly.joints.ConstraintSet
    G : (m, n_eq) Jacobian of all rows over the free equations where redundancy was
        decided (sparse or dense)
    active : (k,) int, the rows kept (solved)
    columns : (n_eq,) int, the variables of the free equations (table.eq_var)

    Attributes
    ----------
    rows : (m − k,) int, the dropped rows
    depends : dict row -> kept rows it was a combination of at the set-up configuration
    """

    def __init__(self, joints, G, active, columns):
        self.joints = joints
        self.active = np.asarray(active, dtype=np.int64)
        self.columns = columns
        self.rows = np.setdiff1d(np.arange(joints.m), self.active)
        self.depends = {}
        if self.rows.size:
            Gd = G.toarray() if hasattr(G, "toarray") else np.asarray(G)
            for r, c in zip(self.rows, self._combinations(Gd)[0].T):
                self.depends[int(r)] = self._support(c)

    def _combinations(self, G):
        """(C (k, d), dependent (d,) bool): G_dropped ≈ Cᵀ G_kept by least squares, and
        whether each dropped row is such a combination (DEPENDENCE)."""
        Gk, Gr = G[self.active], G[self.rows]
        C = np.linalg.lstsq(Gk.T, Gr.T, rcond=None)[0]
        remainder = np.linalg.norm(Gr.T - Gk.T @ C, axis=0)
        return C, remainder <= DEPENDENCE * np.maximum(np.linalg.norm(Gr, axis=1), 1e-300)

    def _support(self, c):
        """The kept rows with a non-negligible coefficient in the combination c (k,)."""
        a = np.abs(c)
        return self.active[a > 1e-8 * max(a.max(initial=0.0), 1e-300)]

    def residual(self, u, t, length_scale, where, rotations=None):
        """‖Φ‖ (float) of every joint row, the dropped ones included, at a solution state
        ``u`` (n_var,) and time or load factor ``t`` (3-D: nodal ``rotations``).

        Raises ModelError naming the joints when a dropped equation does not hold there
        (module docstring); ``where`` (e.g. "t = 0.3") says where, in the message."""
        phi = self.joints.evaluate(u, t, jacobian=False, rotations=rotations)
        tol = VIOLATION * length_scale
        if self.rows.size and np.abs(phi).max() > tol:
            G = self.joints.evaluate(u, t, rotations=rotations)[1][:, self.columns].toarray()
            self._check(phi, G, tol, where)
        return float(np.linalg.norm(phi))

    def _check(self, phi, G, tol, where):
        C, dependent = self._combinations(G)
        mismatch = phi[self.rows] - C.T @ phi[self.active]
        problems = []
        for i, r in enumerate(self.rows):
            if dependent[i] and abs(mismatch[i]) > tol:
                with_ = self._support(C[:, i])
                problems.append(
                    f"joints {_names(self.joints, [r, *with_])} contradict each other: an equation of "
                    f"{self.joints.row_joint[r]!r} was dropped as redundant (a combination of those of "
                    f"{_names(self.joints, with_)}) but does not hold where they do (|Φ| = {abs(mismatch[i]):.3e} at "
                    f"{where}); remove or correct one of them")
            elif not dependent[i] and abs(phi[r]) > tol:
                problems.append(
                    f"joint {self.joints.row_joint[r]!r} does not hold (|Φ| = {abs(phi[r]):.3e} at {where}): one of its "
                    f"equations was dropped as redundant at the start, where it depended on joint(s) "
                    f"{_names(self.joints, self.depends[int(r)])}, but it is independent of them here, so the start "
                    f"configuration is a singular one of the mechanism; start it away from that configuration")
        if problems:
            raise ModelError(list(dict.fromkeys(problems)))
