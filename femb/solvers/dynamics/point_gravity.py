"""A gravity field on mass points: constant (its potential joins the energy) plus fields
scaled by amplitudes of time (their work is booked as external work)."""
import numpy as np


class PointGravity:
    """Mixin for the mass-point books (femb.solvers.dynamics.point_inertia,
    femb.solvers.dynamics.offset_points): ``gravity`` (3,) the constant field and
    ``gravity_timed`` [(amplitude, field (3,))], both set by the owner's constructor."""

    gravity: np.ndarray
    gravity_timed: list

    def add_gravity(self, g, amplitude=None):
        """A gravity load g (its dim components, acceleration units) on the points: constant
        (``amplitude`` None; its potential −Σ m_j g·(x_j − X_j) joins the energy) or scaled
        by ``amplitude(t)`` (its work is booked as external work)."""
        field = np.zeros(3)
        field[: len(g)] = np.asarray(g, dtype=np.float64)
        if amplitude is None:
            self.gravity = self.gravity + field
        else:
            self.gravity_timed.append((amplitude, field))

    def gravity_at(self, t):
        """The gravity field (3,) on the points at time t."""
        g = self.gravity.copy()
        for amplitude, field in self.gravity_timed:
            g += float(amplitude(t)) * field
        return g
