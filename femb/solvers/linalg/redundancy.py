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

``DroppedRows`` keeps the dropped rows and the joints each depended on. ``residual``
checks every dropped equation at a solution state (every load increment of a static
solve, every step of a dynamic one): a dropped row r with |Φ_r − cᵀΦ_kept| above the
tolerance (c: G_r = cᵀG_kept at that state; with the kept rows solved this is |Φ_r|) is
an error naming the joints, and so is a dropped row that no longer depends on the kept
ones (the rank went up: the set-up configuration was singular) and no longer holds.
``regain`` re-checks the rank at a solution state and takes back the dropped rows that
have become independent while they still hold, so that a mechanism started in a singular
configuration is solved with all its equations once it has left it (the dynamic driver
calls it after every step; the first step must stay within the tolerance).
"""
import numpy as np

from femb.core.errors import ModelError

VIOLATION = 1e-8
"""A dropped equation is violated when |Φ| exceeds VIOLATION × the model's length scale."""
DEPENDENCE = 1e-8
"""A row depends on others when the least-squares remainder of its gradient is at most
DEPENDENCE × its norm."""
REGAIN = 1e-4
"""A dropped row is solved again once the remainder of its gradient exceeds REGAIN × its
norm (well clear of dependence, so the coordinate partition stays well conditioned)."""


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
            self._check(phi, self._jacobian(u, t, rotations)[1], tol, where)
        return float(np.linalg.norm(phi))

    def _jacobian(self, u, t, rotations):
        """(Φ (m,), G (m, c)): the equations and their Jacobian, dense over the free
        columns some row involves."""
        phi, G = self.joints.evaluate(u, t, rotations=rotations)
        G = G[:, self.columns].tocsc()
        return phi, G[:, np.flatnonzero(np.diff(G.indptr))].toarray()

    def regain(self, u, t, length_scale, rotations=None):
        """Take back the dropped rows that no longer depend on the kept ones at the solution
        state ``u`` and still hold there (|Φ| ≤ VIOLATION × ``length_scale``): the set-up
        configuration was a singular one the mechanism has left. They move from ``rows`` to
        ``active``; returns them (sorted, possibly empty)."""
        phi, G = self._jacobian(u, t, rotations)
        back = []
        for r in self.rows:
            if abs(phi[r]) > VIOLATION * length_scale:
                continue
            keep = np.union1d(self.active, back).astype(np.int64)
            c = np.linalg.lstsq(G[keep].T, G[r], rcond=None)[0]
            if np.linalg.norm(G[r] - G[keep].T @ c) > REGAIN * np.linalg.norm(G[r]):
                back.append(int(r))
        back = np.array(back, dtype=np.int64)
        if back.size:
            self.active = np.union1d(self.active, back).astype(np.int64)
            self.rows = np.setdiff1d(self.rows, back)
        return back

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
                    f"{_names(self.joints, self.depends[int(r)])}, but it is independent of them here: the start "
                    f"configuration is a singular one of the mechanism, left too far in one step for the equation to be "
                    f"taken back; start away from that configuration, or take a smaller first step")
        if problems:
            raise ModelError(list(dict.fromkeys(problems)))
