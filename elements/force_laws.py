"""Tabulated force laws of discrete springs and dampers: piecewise-cubic Hermite curves.

A force law is a scalar characteristic F(x) — a spring force (or moment) against its
deflection δ (or twist φ), or a damper force against its elongation rate v — given on
breakpoints x_0 < x_1 < … < x_{n−1} (n ≥ 2) by the values F_i and the slopes on both
sides of each breakpoint, m⁻_i and m⁺_i. On [x_i, x_{i+1}] F is the cubic Hermite
interpolant of (F_i, m⁺_i) and (F_{i+1}, m⁻_{i+1}); equal one-sided slopes make F C¹, a
piecewise-linear table has m⁺_i = m⁻_{i+1} = the secant. Beyond the table ends F is
extrapolated linearly with the end slopes (m⁻_0 to the left, m⁺_{n−1} to the right).

The energy is V(x) = ∫_0^x F(y) dy (a piecewise quartic, **zero at x = 0** whether or not
0 lies in the table; a spring with F(0) ≠ 0 is preloaded at zero deflection), exact:
every integral below is a sum of 2-point Gauss–Legendre rules on the pieces of [a, b]
cut at the breakpoints, exact for cubics. The divided difference used by the mid-point
(discrete-gradient) forces,

    D(a, b) = [V(b) − V(a)]/(b − a) = mean of F over [a, b],
    ∂D/∂b  = [F(b) − D]/(b − a) = (1/(b − a)²) ∫_a^b F'(y) (y − a) dy,

is evaluated in its integral form, so neither needs a difference of nearly equal numbers:
both are accurate to round-off for any separation, D → F(a) and ∂D/∂b → F'(a)/2 as
b → a (returned exactly at b = a).

Packed layout (the spring kernels keep it in the element property rows): a law of n
points is 5n float64 numbers, per point (x_i, F_i, m⁻_i, m⁺_i, V_i) with V_i = V(x_i)
(precomputed, so that V(x) costs one piece). The compiled helpers take the property array
``p`` (n_el, n_cols), the element ``e``, the offset ``o`` of the law in the row and its
number of points ``n``.

``ForceLaw`` builds laws from user input: ``ForceLaw.table(points, smooth=False)`` —
(x, F) pairs, piecewise linear, or with ``smooth=True`` the monotone-preserving cubic
(PCHIP, Fritsch–Carlson slopes) through them; ``ForceLaw.function(F, (x_min, x_max),
dF=None, rtol=1e-9)`` — a Python callable sampled on an adaptively bisected grid until the
Hermite interpolant matches it at every segment midpoint to ``rtol`` × max|F| (slopes from
``dF`` or from second-order finite differences); the achieved sampling error is kept in
``ForceLaw.error`` and an InputError names the law when it is not reached within
``max_points``.
"""
import logging
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from femb.core import jit
from femb.core.errors import InputError

WIDTH = 5  # numbers per breakpoint in the packed layout: x, F, m⁻, m⁺, V
_G = 0.5773502691896257645  # 1/√3, the 2-point Gauss–Legendre abscissa on [−1, 1]
log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------- compiled helpers


@jit(internal=True)
def law_region(p, e, o, n, x):
    """Piece of the law holding ``x``: −1 left of x_0, i for x_i ≤ x < x_{i+1}, n − 1 at or
    right of x_{n−1}."""
    if x < p[e, o]:
        return -1
    if x >= p[e, o + WIDTH * (n - 1)]:
        return n - 1
    lo = 0
    hi = n - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if x >= p[e, o + WIDTH * mid]:
            lo = mid
        else:
            hi = mid
    return lo


@jit(internal=True)
def law_piece(p, e, o, n, j, x):
    """``(F, dF/dx)`` at ``x`` of piece ``j`` (see ``law_region``), evaluated with that
    piece's polynomial wherever ``x`` is."""
    if j < 0:
        b = o
        return p[e, b + 1] + p[e, b + 2] * (x - p[e, b]), p[e, b + 2]
    if j >= n - 1:
        b = o + WIDTH * (n - 1)
        return p[e, b + 1] + p[e, b + 3] * (x - p[e, b]), p[e, b + 3]
    b0 = o + WIDTH * j
    b1 = b0 + WIDTH
    h = p[e, b1] - p[e, b0]
    F0 = p[e, b0 + 1]
    m0 = p[e, b0 + 3]
    m1 = p[e, b1 + 2]
    s = (p[e, b1 + 1] - F0) / h
    c2 = (3.0 * s - 2.0 * m0 - m1) / h
    c3 = (m0 + m1 - 2.0 * s) / (h * h)
    t = x - p[e, b0]
    return F0 + t * (m0 + t * (c2 + t * c3)), m0 + t * (2.0 * c2 + 3.0 * t * c3)


@jit(internal=True)
def law_walk(p, e, o, n, lo, hi):
    """Exact integrals over [lo, hi] (lo < hi) of F, F'(y − lo), F'(hi − y) and F', by
    2-point Gauss–Legendre on every piece of [lo, hi] between breakpoints."""
    ja = law_region(p, e, o, n, lo)
    jb = law_region(p, e, o, n, hi)
    sF = 0.0
    sA = 0.0
    sB = 0.0
    sD = 0.0
    for j in range(ja, jb + 1):
        left = lo if j == ja else p[e, o + WIDTH * j]
        right = hi if j == jb else p[e, o + WIDTH * (j + 1)]
        half = 0.5 * (right - left)
        if half <= 0.0:
            continue
        dl = (left - lo) + half  # mid − lo
        dr = (hi - right) + half  # hi − mid
        mid = left + half
        for r in (-_G, _G):
            F, dF = law_piece(p, e, o, n, j, mid + r * half)
            sF += half * F
            sA += half * dF * (dl + r * half)
            sB += half * dF * (dr - r * half)
            sD += half * dF
    return sF, sA, sB, sD


@jit(internal=True)
def law_divided(p, e, o, n, a, b):
    """``(D, ∂D/∂b)`` with D = [V(b) − V(a)]/(b − a), the mean of F over [a, b]
    (``(F(a), F'(a)/2)`` at b = a)."""
    if a == b:
        F, dF = law_piece(p, e, o, n, law_region(p, e, o, n, a), a)
        return F, 0.5 * dF
    if a < b:
        sF, sA, _, _ = law_walk(p, e, o, n, a, b)
        h = b - a
        return sF / h, sA / (h * h)
    sF, _, sB, _ = law_walk(p, e, o, n, b, a)
    h = a - b
    return sF / h, sB / (h * h)


@jit(internal=True)
def law_secant(p, e, o, n, a, b):
    """[F(b) − F(a)]/(b − a) as the mean of F' over [a, b] (F'(a) at b = a, right slope
    at a breakpoint)."""
    if a == b:
        return law_piece(p, e, o, n, law_region(p, e, o, n, a), a)[1]
    lo = min(a, b)
    hi = max(a, b)
    return law_walk(p, e, o, n, lo, hi)[3] / (hi - lo)


@jit(internal=True)
def law_value(p, e, o, n, x):
    """``(V, F, dF/dx)`` at ``x``: V = V_k + (x − x_k)·D(x_k, x) from the nearest
    breakpoint x_k on the left (x_0 left of the table)."""
    j = law_region(p, e, o, n, x)
    k = j if j >= 0 else 0
    b = o + WIDTH * k
    F, dF = law_piece(p, e, o, n, j, x)
    xk = p[e, b]
    if x == xk:
        return p[e, b + 4], F, dF
    D, _ = law_divided(p, e, o, n, xk, x)
    return p[e, b + 4] + (x - xk) * D, F, dF


@jit
def law_fill_energies(p, e, o, n):
    """Writes V_i = x_i·D(0, x_i) = ∫_0^{x_i} F into the packed law (in place)."""
    for i in range(n):
        x = p[e, o + WIDTH * i]
        if x == 0.0:
            p[e, o + WIDTH * i + 4] = 0.0
        else:
            D, _ = law_divided(p, e, o, n, 0.0, x)
            p[e, o + WIDTH * i + 4] = x * D


@jit
def law_batch(p, o, n, x, out):
    """Evaluate the law stored in row 0 of ``p`` at the points ``x`` (m,): out (m, 3) =
    (V, F, dF/dx)."""
    for i in range(x.shape[0]):
        V, F, dF = law_value(p, 0, o, n, x[i])
        out[i, 0] = V
        out[i, 1] = F
        out[i, 2] = dF


@jit
def law_batch_divided(p, o, n, a, b, out):
    """D(a_i, b_i) and ∂D/∂b_i of the law in row 0 of ``p``: out (m, 2)."""
    for i in range(a.shape[0]):
        D, dD = law_divided(p, 0, o, n, a[i], b[i])
        out[i, 0] = D
        out[i, 1] = dD


# ---------------------------------------------------------------------------- user input


def _finite_pairs(points, where):
    try:
        arr = np.array(points, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{where}: expected a table of (x, F) pairs, got {points!r}") from None
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InputError(f"{where}: expected a table of (x, F) pairs (shape (n, 2)), got shape {arr.shape}")
    if arr.shape[0] < 2:
        raise InputError(f"{where}: a table needs at least 2 points, got {arr.shape[0]}")
    if not np.all(np.isfinite(arr)):
        bad = np.flatnonzero(~np.all(np.isfinite(arr), axis=1))
        raise InputError(f"{where}: non-finite value in row(s) {bad.tolist()}")
    if np.any(np.diff(arr[:, 0]) <= 0.0):
        i = int(np.flatnonzero(np.diff(arr[:, 0]) <= 0.0)[0])
        raise InputError(f"{where}: the abscissae must increase strictly, got {arr[i, 0]:g} then {arr[i + 1, 0]:g} (rows {i}, {i + 1})")
    return arr[:, 0].copy(), arr[:, 1].copy()


def _call(func, x, where, what="F"):
    try:
        y = float(func(float(x)))
    except Exception as exc:  # the user's function failed: say where
        raise InputError(f"{where}: {what}({x:g}) raised {type(exc).__name__}: {exc}") from None
    if not np.isfinite(y):
        raise InputError(f"{where}: {what}({x:g}) = {y} is not finite")
    return y


@dataclass(frozen=True)
class ForceLaw:
    """A force law F(x) on breakpoints (see the module docstring).

    Attributes
    ----------
    x, F : (n,) float64, breakpoints (strictly increasing) and values
    slope_left, slope_right : (n,) float64, one-sided slopes m⁻, m⁺ (units of F per x)
    error : float, achieved relative sampling error of a law sampled from a function
        (max over the segment midpoints of |F_h − F|/max|F|; 0 for tables)
    source : str, ``"table"``, ``"pchip"`` or ``"function"``
    """

    x: np.ndarray
    F: np.ndarray
    slope_left: np.ndarray
    slope_right: np.ndarray
    error: float = 0.0
    source: str = "table"

    @property
    def n(self):
        return int(self.x.size)

    def packed(self):
        """The law as 5n numbers (x_i, F_i, m⁻_i, m⁺_i, V_i) per point, V_i = ∫_0^{x_i} F
        (computed once; a read-only array)."""
        return self._packed

    @cached_property
    def _packed(self):
        row = np.zeros((1, WIDTH * self.n))
        row[0, 0::WIDTH] = self.x
        row[0, 1::WIDTH] = self.F
        row[0, 2::WIDTH] = self.slope_left
        row[0, 3::WIDTH] = self.slope_right
        law_fill_energies(row, 0, 0, self.n)
        out = row[0]
        out.flags.writeable = False
        return out

    def evaluate(self, x):
        """(V, F, dF/dx) at the points ``x`` (any shape): three arrays of that shape."""
        x = np.asarray(x, dtype=np.float64)
        out = np.zeros((x.size, 3))
        law_batch(self.packed()[None, :].copy(), 0, self.n, x.ravel(), out)
        return out[:, 0].reshape(x.shape), out[:, 1].reshape(x.shape), out[:, 2].reshape(x.shape)

    def __call__(self, x):
        """F at ``x``."""
        return self.evaluate(x)[1]

    def divided(self, a, b):
        """(D, ∂D/∂b) elementwise for arrays ``a``, ``b`` of one shape."""
        a, b = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
        out = np.zeros((a.size, 2))
        law_batch_divided(self.packed()[None, :].copy(), 0, self.n, a.ravel().copy(), b.ravel().copy(), out)
        return out[:, 0].reshape(a.shape), out[:, 1].reshape(a.shape)

    def scale(self):
        """max |F_i| (1 for an all-zero law)."""
        s = float(np.abs(self.F).max())
        return s if s > 0.0 else 1.0

    # ------------------------------------------------------------------ constructors
    @classmethod
    def table(cls, points, smooth=False, where="force law"):
        """From (x, F) pairs: piecewise linear (linear extrapolation with the end
        secants), or with ``smooth=True`` the PCHIP cubic (Fritsch–Carlson slopes, no
        overshoot between points; extrapolation with its end slopes)."""
        x, F = _finite_pairs(points, where)
        if smooth:
            from scipy.interpolate import PchipInterpolator

            m = PchipInterpolator(x, F).derivative()(x)
            return cls(x, F, m.copy(), m.copy(), 0.0, "pchip")
        s = np.diff(F) / np.diff(x)
        left = np.concatenate([[s[0]], s])
        right = np.concatenate([s, [s[-1]]])
        return cls(x, F, left, right, 0.0, "table")

    @classmethod
    def function(cls, func, bounds, dF=None, rtol=1e-9, max_points=4000, where="force law"):
        """Sample the callable ``func`` (float -> float) on [x_min, x_max] = ``bounds``.

        Starts from 17 equal segments (plus x = 0 when inside) and bisects every segment
        whose Hermite interpolant misses ``func`` at its midpoint by more than ``rtol`` ×
        max|F| until none does. Slopes come from ``dF`` (a callable) or from central
        differences of step (ε)^(1/3)·max(|x|, span) (one-sided second-order ones at the
        ends, so ``func`` is never called outside the range). Raises InputError naming
        ``where`` when the tolerance needs more than ``max_points`` points.
        """
        if not callable(func):
            raise InputError(f"{where}: expected a callable F(x), got {func!r}")
        try:
            a, b = (float(v) for v in bounds)
        except (TypeError, ValueError):
            raise InputError(f"{where}: a function law needs a range (x_min, x_max), got {bounds!r}") from None
        if not (np.isfinite(a) and np.isfinite(b) and a < b):
            raise InputError(f"{where}: the range (x_min, x_max) must be finite with x_min < x_max, got ({a:g}, {b:g})")
        if dF is not None and not callable(dF):
            raise InputError(f"{where}: the derivative must be a callable dF(x), got {dF!r}")
        span = b - a
        step = np.finfo(float).eps ** (1.0 / 3.0)

        def slope(x):
            if dF is not None:
                return _call(dF, x, where, "dF")
            h = step * max(abs(x), span)
            h = min(h, 0.25 * span)
            if x - h < a:
                return (-3.0 * _call(func, x, where) + 4.0 * _call(func, x + h, where) - _call(func, x + 2.0 * h, where)) / (2.0 * h)
            if x + h > b:
                return (3.0 * _call(func, x, where) - 4.0 * _call(func, x - h, where) + _call(func, x - 2.0 * h, where)) / (2.0 * h)
            return (_call(func, x + h, where) - _call(func, x - h, where)) / (2.0 * h)

        xs = list(np.linspace(a, b, 18))
        if a < 0.0 < b:
            xs.append(0.0)
        xs = sorted(set(xs))
        pts = {x: (_call(func, x, where), slope(x)) for x in xs}
        pending = list(zip(xs[:-1], xs[1:]))
        checked = {}  # segment -> midpoint error (absolute)
        while pending:
            mids = []
            for x0, x1 in pending:
                xm = 0.5 * (x0 + x1)
                Fm = _call(func, xm, where)
                mids.append((x0, x1, xm, Fm))
            scale = max(max(abs(v[0]) for v in pts.values()), max(abs(m[3]) for m in mids), 1e-300)
            pending = []
            failing = 0.0
            for x0, x1, xm, Fm in mids:
                (F0, m0), (F1, m1) = pts[x0], pts[x1]
                h = x1 - x0
                # Hermite interpolant at the midpoint: (F0 + F1)/2 + h (m0 − m1)/8
                err = abs(0.5 * (F0 + F1) + 0.125 * h * (m0 - m1) - Fm)
                if err > rtol * scale and xm > x0 and xm < x1:
                    failing = max(failing, err)
                    pts[xm] = (Fm, slope(xm))
                    pending += [(x0, xm), (xm, x1)]
                else:
                    checked[(x0, x1)] = err
            if len(pts) > max_points:
                worst = failing / scale
                raise InputError(f"{where}: sampling the function to a relative error {rtol:g} needs more than {max_points} points "
                                 f"on ({a:g}, {b:g}) (a kink or a singularity?); reached {worst:.2g} so far")
        xs = np.array(sorted(pts))
        F = np.array([pts[x][0] for x in xs])
        m = np.array([pts[x][1] for x in xs])
        scale = max(float(np.abs(F).max()), max(abs(v) for v in checked.values()), 1e-300)
        error = max(checked.values()) / scale
        log.info("%s: sampled on %d points over (%g, %g), relative error %.2g", where, xs.size, a, b, error)
        return cls(xs, F, m.copy(), m.copy(), float(error), "function")


def as_force_law(value, where, bounds=None, smooth=False, rtol=1e-9):
    """A ForceLaw from user input: a ForceLaw (returned as is), a table of (x, F) pairs, or
    a callable F(x) with ``bounds`` = (x_min, x_max), or a pair (F, dF) of callables with
    ``bounds``. Raises InputError naming ``where``."""
    if isinstance(value, ForceLaw):
        return value
    if callable(value) or (isinstance(value, tuple) and len(value) == 2 and all(callable(v) for v in value)):
        func, dF = value if isinstance(value, tuple) else (value, None)
        if bounds is None:
            raise InputError(f"{where}: a function law needs its range (x_min, x_max)")
        return ForceLaw.function(func, bounds, dF=dF, rtol=rtol, where=where)
    if bounds is not None:
        raise InputError(f"{where}: a range is only used with a function law, not with a table")
    return ForceLaw.table(value, smooth=smooth, where=where)


def check_dissipative(law, where, samples=32):
    """Raise InputError unless the damper law F(v) dissipates: the table covers v = 0,
    F(0) = 0 (to 1e-12 × max|F|), F(v)·v ≥ 0 at the breakpoints and at ``samples`` points
    inside every segment (exact for piecewise-linear tables), and the end slopes are
    ≥ 0 (so the linear extrapolation dissipates too; all to round-off)."""
    x = law.x
    tol = 1e-12 * law.scale()
    if not (x[0] <= 0.0 <= x[-1]):
        raise InputError(f"{where}: a damper law must cover v = 0 (its range is [{x[0]:g}, {x[-1]:g}])")
    F0 = float(law(np.array([0.0]))[0])
    if abs(F0) > tol:
        raise InputError(f"{where}: a damper law must give F(0) = 0, got F(0) = {F0:g}")
    t = (np.arange(1, samples + 1) / (samples + 1.0))
    v = np.concatenate([x, (x[:-1, None] + t[None, :] * np.diff(x)[:, None]).ravel()])
    power = law(v) * v
    bad = power < -tol * np.abs(v)
    if np.any(bad):
        i = int(np.argmin(np.where(bad, power, np.inf)))
        raise InputError(f"{where}: a damper law must dissipate (F(v)·v ≥ 0), but F({v[i]:g}) = {law(np.array([v[i]]))[0]:g}")
    slope_tol = tol / (x[-1] - x[0])
    if law.slope_left[0] < -slope_tol or law.slope_right[-1] < -slope_tol:
        raise InputError(f"{where}: a damper law's end slopes must be ≥ 0 (its linear extrapolation must dissipate), got "
                         f"{law.slope_left[0]:g} at v = {x[0]:g} and {law.slope_right[-1]:g} at v = {x[-1]:g}")


def attach_laws(values, law, damper, stiffness):
    """Put the ForceLaws ``law`` (spring) and ``damper`` (None when absent) into the
    parameter dict ``values`` of a spring (in place) and let its linear stiffness
    ``stiffness`` (e.g. "k") default to 0 when either is given: the law carries the
    force. Returns ``values``."""
    if law is not None:
        values["law"] = law
    if damper is not None:
        values["damper_law"] = damper
    if law is not None or damper is not None:
        values.setdefault(stiffness, 0.0)
    return values
