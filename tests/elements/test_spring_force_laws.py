"""Tabulated force laws of springs and dampers (elements/force_laws.py, spring_laws.py,
spring_input.py): exact energies and divided differences (against adaptive quadrature and
exact rational arithmetic), the cubic law reproduced by a sampled table, kernel derivatives by finite
differences, the mid-point energy identity, statics and dynamics through a Model (energy
residuals at round-off with large steps; a quadratic damper against its closed-form
decay) and named input errors."""
from fractions import Fraction

import numpy as np
import pytest
from scipy.integrate import quad

from femb.core.errors import InputError
from femb.elements import get_spec
from femb.elements.force_laws import WIDTH, ForceLaw
from femb.mesh import Mesh
from femb.model import Model
from femb.solvers import DynamicSettings, NewtonSettings, solve_dynamic, solve_static

SPRINGS = ["spring2d", "spring3d", "bushing2d", "bushing3d", "rotational_spring2d", "rotational_spring2d_ground"]
TIGHT = DynamicSettings(newton=NewtonSettings(tolerance=1e-13))

# a stiffening characteristic with a kink-free PCHIP interpolation (force per deflection)
STIFFENING = [(-0.3, -60.0), (-0.1, -12.0), (0.0, 0.0), (0.05, 4.0), (0.15, 15.0), (0.3, 70.0)]


# ---------------------------------------------------------------------------- helpers


def exact_V(law, x, force=False):
    """∫_0^x F of the packed law in exact rational arithmetic (x a float); F(x) with
    ``force``."""
    row = law.packed()
    n = law.n
    xs = [Fraction(float(v)) for v in row[0::WIDTH]]
    F = [Fraction(float(v)) for v in row[1::WIDTH]]
    mL = [Fraction(float(v)) for v in row[2::WIDTH]]
    mR = [Fraction(float(v)) for v in row[3::WIDTH]]

    def piece(j):
        """(anchor, [c0, c1, c2, c3]) of piece j in powers of (y − anchor)."""
        if j < 0:
            return xs[0], [F[0], mL[0], 0, 0]
        if j >= n - 1:
            return xs[-1], [F[-1], mR[-1], 0, 0]
        h = xs[j + 1] - xs[j]
        s = (F[j + 1] - F[j]) / h
        m0, m1 = mR[j], mL[j + 1]
        return xs[j], [F[j], m0, (3 * s - 2 * m0 - m1) / h, (m0 + m1 - 2 * s) / (h * h)]

    def integral(j, a, b):
        x0, c = piece(j)
        return sum(ci * ((b - x0) ** (i + 1) - (a - x0) ** (i + 1)) / (i + 1) for i, ci in enumerate(c))

    def region(y):
        if y < xs[0]:
            return -1
        return max(i for i in range(n) if xs[i] <= y)

    def V_from(a, b):  # ∫_a^b, a ≤ b
        total, y = Fraction(0), a
        while y < b:
            j = region(y)
            right = b if j >= n - 1 else min(b, xs[j + 1] if j >= 0 else xs[0])
            total += integral(j, y, right)
            y = right
        return total

    x = Fraction(float(x))
    if force:
        x0, c = piece(region(x))
        return sum(ci * (x - x0) ** i for i, ci in enumerate(c))
    return V_from(Fraction(0), x) if x >= 0 else -V_from(x, Fraction(0))


def kernel_batch(name, law=None, damper=None, rng=None, n=6):
    """Geometry, property rows with the laws and a deformed state of spring type ``name``."""
    spec = get_spec(name)
    rng = rng or np.random.default_rng(0)
    dim, nn = spec.dim, spec.n_nodes
    X = rng.uniform(-1.0, 1.0, (n, nn, dim))
    tables = {k: v for k, v in (("law", law), ("damper_law", damper)) if v is not None}
    if name.startswith("spring"):
        d = rng.normal(size=(n, dim))
        d *= 0.5 / np.linalg.norm(d, axis=1, keepdims=True)
        X[:, 1] = X[:, 0] + d
        rows = [spec.property_row(None, None, {"k": 0.0, "L0": 0.5, "c": 0.0, **tables}) for _ in range(n)]
        u = 0.08 * rng.normal(size=(n, spec.n_edof))
    elif name.startswith("bushing"):
        X[:, 1] = X[:, 0]
        rows = [spec.property_row(None, None, {"k": 0.0, **tables}) for _ in range(n)]
        u = 0.08 * rng.normal(size=(n, spec.n_edof))
    else:
        rows = [spec.property_row(None, None, {"k": 0.0, "theta0": 0.05, **tables}) for _ in range(n)]
        u = rng.uniform(-0.25, 0.25, (n, spec.n_edof))
    return spec, X, np.array(rows), u


def f_K(kernel, *args, n_edof):
    n = args[0].shape[0]
    f, K = np.zeros((n, n_edof)), np.zeros((n, n_edof, n_edof))
    kernel(*args, f, K)
    return f, K


def energy(spec, X, u, p):
    out = np.zeros(len(u))
    spec.kernels.strain_energy(X, u, p, out)
    return out


def rot_mask(spec):
    return np.array([d.startswith("r") for d in spec.node_dofs] * spec.n_nodes)


# ---------------------------------------------------------------------------- the law itself


def test_sampled_cubic_law_reproduces_the_cubic():
    """F = k δ + k3 δ³ sampled (exact slopes or finite differences): V, F, F' agree with the
    closed form, the achieved sampling error is at round-off resp. below the tolerance."""
    k, k3 = 120.0, 4.0e4
    F = lambda d: k * d + k3 * d**3  # noqa: E731
    exact = ForceLaw.function(F, (-0.2, 0.25), dF=lambda d: k + 3 * k3 * d * d)
    fd = ForceLaw.function(F, (-0.2, 0.25))
    assert exact.error < 1e-14 and fd.error <= 1e-9
    x = np.linspace(-0.2, 0.25, 37)
    for law, tol in ((exact, 1e-13), (fd, 1e-9)):
        V, Fx, dF = law.evaluate(x)
        assert np.allclose(Fx, F(x), rtol=0, atol=tol * np.abs(F(x)).max())
        assert np.allclose(V, 0.5 * k * x**2 + 0.25 * k3 * x**4, rtol=0, atol=tol * 0.25 * k3 * 0.25**4 * 10)
        assert np.allclose(dF, k + 3 * k3 * x**2, rtol=0, atol=1e3 * tol * (k + 3 * k3 * 0.0625))


def test_energy_is_the_exact_integral_with_zero_at_zero_deflection():
    for law in (ForceLaw.table(STIFFENING), ForceLaw.table(STIFFENING, smooth=True),
                ForceLaw.table([(0.1, 2.0), (0.2, 5.0), (0.4, 6.0)])):  # 0 outside the table: F(0) ≠ 0, a preload
        x = np.array([-0.7, -0.3, -0.12, 0.0, 0.02, 0.05, 0.11, 0.3, 0.55])
        V = law.evaluate(x)[0]
        brk = [float(b) for b in law.x]
        ref = np.array([quad(lambda y: float(law(np.array([y]))[0]), 0.0, xi, epsabs=0, epsrel=2e-14,
                             points=[b for b in brk if min(0, xi) < b < max(0, xi)] or None)[0] for xi in x])
        scale = np.abs(ref).max()
        assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(V - ref).max() <= 1e-13 * scale
        assert V[3] == 0.0
        assert np.all(np.asarray(scale) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs(V - [float(exact_V(law, xi)) for xi in x]).max() <= 4e-15 * scale


def test_divided_difference_is_exact_across_segments_and_at_tiny_separation():
    """D(a, b) and ∂D/∂b against exact rational arithmetic: no cancellation anywhere."""
    law = ForceLaw.table(STIFFENING, smooth=True)
    pairs = [(-0.35, 0.31), (-0.05, 0.2), (0.06, 0.14), (0.1, 0.1 + 1e-9), (0.1, 0.1 - 1e-13), (0.05, 0.05 + 2e-16),
             (0.05 - 1e-12, 0.05 + 1e-12), (-0.4, -0.4 + 3e-14), (0.29, 0.33), (0.2, 0.2)]
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    D, dD = law.divided(a, b)
    Fscale = 70.0
    Fpscale = np.abs(law.slope_left).max()
    for i, (ai, bi) in enumerate(pairs):
        A, B = Fraction(float(ai)), Fraction(float(bi))
        if A == B:
            Fa = float(law(np.array([ai]))[0])
            assert D[i] == Fa
            continue
        De = (exact_V(law, bi) - exact_V(law, ai)) / (B - A)
        dDe = (exact_V(law, bi, force=True) - De) / (B - A)  # ∂D/∂b = (F(b) − D)/(b − a), exactly
        assert np.all(np.asarray(Fscale) > 0)  # a zero scale would let an all-zero output pass
        assert abs(D[i] - float(De)) <= 4e-16 * Fscale, (ai, bi, D[i] - float(De))
        assert np.all(np.asarray(Fpscale) > 0)  # a zero scale would let an all-zero output pass
        assert abs(dD[i] - float(dDe)) <= 1e-15 * Fpscale, (ai, bi, dD[i] - float(dDe))
    # ∂D/∂b is the derivative of D: central differences across a breakpoint
    for ai, bi in ((-0.2, 0.049), (0.3, 0.0)):
        h = 1e-6
        Dp, _ = law.divided(np.array([ai]), np.array([bi + h]))
        Dm, _ = law.divided(np.array([ai]), np.array([bi - h]))
        assert law.divided(np.array([ai]), np.array([bi]))[1][0] == pytest.approx((Dp[0] - Dm[0]) / (2 * h), rel=1e-7)


# ---------------------------------------------------------------------------- kernels


def test_table_law_in_the_kernels_matches_the_cubic_law():
    """spring2d/bushing2d/rotational_spring2d with a table sampled from k δ + k3 δ³ (and
    k = 0) give the forces, tangents, energies and mid-point forces of the cubic law."""
    k, k3 = 80.0, 3.0e3
    law = ForceLaw.function(lambda d: k * d + k3 * d**3, (-0.6, 0.6), dF=lambda d: k + 3 * k3 * d * d)
    rng = np.random.default_rng(3)
    for name in ("spring2d", "bushing2d", "rotational_spring2d"):
        spec, X, p, u = kernel_batch(name, law=law, rng=rng)
        q = p[:, : len(spec.params)].copy()
        q[:, 0] = k
        q[:, spec.params.index("k3")] = k3
        n = spec.n_edof
        u1 = u + 0.05 * rng.normal(size=u.shape)
        for kern, args in (("tangent", (X, u)), ("midpoint_force", (X, u, u1))):
            f, K = f_K(getattr(spec.kernels, kern), *args, p, n_edof=n)
            fc, Kc = f_K(getattr(spec.kernels, kern), *args, q, n_edof=n)
            assert np.allclose(f, fc, rtol=0, atol=1e-12 * np.abs(fc).max()), (name, kern)
            assert np.allclose(K, Kc, rtol=0, atol=1e-11 * np.abs(Kc).max()), (name, kern)
        assert np.allclose(energy(spec, X, u, p), energy(spec, X, u, q), rtol=1e-12, atol=0), name


@pytest.mark.parametrize("name", SPRINGS)
def test_kernel_derivatives_and_midpoint_identity_with_table_laws(name):
    """Tangent = ∂f/∂u, f = ∂V/∂u, f̄·z = ΔV to round-off, ∂f̄/∂z by central differences
    (z: translation increments, Cayley τ for rotations), damper C = ∂f_d/∂v."""
    law = ForceLaw.table(STIFFENING if not name.startswith("bushing") else [(0.0, 0.0), (0.05, 4.0), (0.15, 15.0), (0.3, 70.0)], smooth=True)
    damper = ForceLaw.table([(-2.0, -5.0), (-0.5, -3.0), (0.0, 0.0), (0.4, 1.0), (3.0, 2.0)], smooth=True)
    rng = np.random.default_rng(5)
    spec, X, p, u = kernel_batch(name, law=law, damper=damper, rng=rng)
    n = spec.n_edof
    f, K = f_K(spec.kernels.tangent, X, u, p, n_edof=n)
    h = 1e-7
    for j in range(n):
        du = np.zeros_like(u)
        du[:, j] = h
        fp = f_K(spec.kernels.tangent, X, u + du, p, n_edof=n)[0]
        fm = f_K(spec.kernels.tangent, X, u - du, p, n_edof=n)[0]
        assert np.allclose(K[:, :, j], (fp - fm) / (2 * h), rtol=0, atol=2e-6 * np.abs(K).max()), j
        assert np.allclose(f[:, j], (energy(spec, X, u + du, p) - energy(spec, X, u - du, p)) / (2 * h), rtol=0,
                           atol=1e-7 * np.abs(f).max()), j
    r = rot_mask(spec)
    for scale in (0.1, 1e-4, 0.0):
        z = scale * rng.normal(size=u.shape)
        u1 = u + z
        u1[:, r] = u[:, r] + 2.0 * np.arctan(0.5 * z[:, r])
        fb, Kb = f_K(spec.kernels.midpoint_force, X, u, u1, p, n_edof=n)
        work = (fb * z).sum(axis=1)
        dV = energy(spec, X, u1, p) - energy(spec, X, u, p)
        assert np.all(np.abs(work - dV) <= 1e-14 * np.abs(energy(spec, X, u, p)).max() + 1e-16), (scale, work - dV)
        for j in range(n):
            dz = np.zeros_like(z)
            dz[:, j] = h
            res = []
            for sgn in (1.0, -1.0):
                zz = z + sgn * dz
                uu = u + zz
                uu[:, r] = u[:, r] + 2.0 * np.arctan(0.5 * zz[:, r])
                res.append(f_K(spec.kernels.midpoint_force, X, u, uu, p, n_edof=n)[0])
            assert np.allclose(Kb[:, :, j], (res[0] - res[1]) / (2 * h), rtol=0, atol=2e-6 * np.abs(Kb).max()), (scale, j)
    # the damper: f_d·v ≥ 0 and C = ∂f_d/∂v
    v = rng.normal(size=u.shape)
    fd, C = f_K(spec.kernels.damper_force, X, u, v, p, n_edof=n)
    assert np.all((fd * v).sum(axis=1) >= 0.0)
    for j in range(n):
        dv = np.zeros_like(v)
        dv[:, j] = h
        fp = f_K(spec.kernels.damper_force, X, u, v + dv, p, n_edof=n)[0]
        fm = f_K(spec.kernels.damper_force, X, u, v - dv, p, n_edof=n)[0]
        assert np.allclose(C[:, :, j], (fp - fm) / (2 * h), rtol=0, atol=1e-6 * np.abs(C).max()), j
    # the linear damping matrix is the linearization at v = 0
    C0 = np.zeros((len(u), n, n))
    spec.kernels.damping(X, u, p, C0)
    f0, Cv0 = f_K(spec.kernels.damper_force, X, u, np.zeros_like(v), p, n_edof=n)
    assert np.allclose(C0, Cv0, rtol=1e-12, atol=1e-14) and np.all(f0 == 0.0)


# ---------------------------------------------------------------------------- statics


def test_static_deflection_of_a_stiffening_table_spring():
    """A mass on a piecewise-linear stiffening spring under a load P: δ solves F(δ) = P,
    the inverse of the table (linear interpolation) — also beyond the table end
    (linear extrapolation)."""
    table = [(0.0, 0.0), (0.01, 10.0), (0.02, 40.0), (0.03, 100.0)]
    for P in (25.0, 70.0, 130.0):
        model = Model(Mesh(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [0.0, 3.0]])))
        model.add_discrete("spring", "spring2d", (0, 1), L0=1.0, law=table)
        model.add_discrete("torsion", "rotational_spring2d", (2, 3), law=[(-0.2, -2.0), (0.0, 0.0), (0.1, 3.0), (0.2, 9.0)])
        model.add_discrete("bodies", "rigid_body2d", [2, 3], m=1.0, J=0.1)
        model.fix([0, 2], "all")
        model.fix([1, 3], ("uy",))
        model.fix(3, ("ux",))
        model.point_load(1, fx=P)
        model.point_load(3, mz=P / 20.0)
        assert model.problems() == []
        res = solve_static(model, steps=4)
        t, u = res.table, res.states[-1]
        d = u[t.var_of(1, "ux")]
        expected = np.interp(P, [0.0, 10.0, 40.0, 100.0], [0.0, 0.01, 0.02, 0.03]) if P <= 100.0 else 0.03 + (P - 100.0) / 6000.0
        assert d == pytest.approx(expected, rel=1e-10)
        M = P / 20.0
        assert u[t.var_of(3, "rz")] == pytest.approx(np.interp(M, [0.0, 3.0, 9.0], [0.0, 0.1, 0.2]) if M <= 9.0 else 0.2 + (M - 9) / 60, rel=1e-10)


# ---------------------------------------------------------------------------- dynamics


def _residual(res):
    E = np.abs(res.series("energy_residual")).max()
    return E / max(np.abs(res.series("kinetic_energy")).max(), np.abs(res.series("strain_energy")).max())


def test_midpoint_conserves_energy_with_a_table_spring_at_large_steps():
    """A mass swinging in 2-D on a nonlinear (PCHIP-table) central spring and a body on a
    tabulated torsion spring, Δt ~ a third of the spring period: 1000 steps, energy
    residual at round-off."""
    model = Model(Mesh(np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]])))
    model.add_discrete("spring", "spring2d", (0, 1), L0=1.0, law=STIFFENING, smooth=True)
    model.add_discrete("mass", "point_mass2d_translational", 1, m=0.2)
    model.add_discrete("torsion", "rotational_spring2d_ground", 2, law=[(-1.0, -8.0), (-0.2, -1.0), (0.0, 0.0), (0.5, 1.5), (1.0, 9.0)])
    model.add_discrete("wheel", "rigid_body2d", 2, m=1.0, J=0.02)
    model.fix(0, "all")
    model.fix(2, "translations")
    model.initial_velocity(1, ux=4.0, uy=1.0)
    model.initial_velocity(2, rz=10.0)
    res = solve_dynamic(model, 0.02, 20.0, TIGHT, record_every=5)
    assert len(res) == 201
    assert _residual(res) <= 1e-12
    t = res.table
    x = np.array([[1.0 + s[t.var_of(1, "ux")], s[t.var_of(1, "uy")]] for s in res.states])
    delta = np.linalg.norm(x, axis=1) - 1.0
    assert delta.min() < -0.12 and delta.max() > 0.16  # across the breakpoints −0.1, 0, 0.05, 0.15
    theta = np.array([s[t.var_of(2, "rz")] for s in res.states])
    assert theta.min() < -0.4 and theta.max() > 0.6  # across −0.2, 0, 0.5


def test_quadratic_damper_decay_and_dissipated_energy():
    """A mass on a pure damper F = c v|v| (sampled from the callable; a rotational copy on
    a body with the same law): v(t) = v0/(1 + c v0 t/m). The mid-point result converges at
    order 2 and the dissipated energy equals the loss of kinetic energy to round-off."""
    c, m, v0, T = 3.0, 2.0, 4.0, 1.0

    def run(dt):
        model = Model(Mesh(np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]])))
        law = (lambda v: c * v * abs(v), lambda v: 2.0 * c * abs(v))
        model.add_discrete("damper", "spring2d", (0, 1), L0=1.0, damper_law=law, damper_range=(-10.0, 10.0))
        model.add_discrete("mass", "point_mass2d_translational", 1, m=m)
        model.add_discrete("rot_damper", "rotational_spring2d_ground", 2, damper_law=law, damper_range=(-10.0, 10.0))
        model.add_discrete("wheel", "rigid_body2d", 2, m=1.0, J=m)
        model.fix(0, "all")
        model.fix(1, ("uy",))
        model.fix(2, "translations")
        model.initial_velocity(1, ux=v0)
        model.initial_velocity(2, rz=v0)
        res = solve_dynamic(model, dt, T, TIGHT)
        law_built = model.parts["damper"].values["damper_law"]
        assert law_built.error < 1e-14  # v|v| is a cubic on each side of the breakpoint 0
        t = res.table
        return res, res.velocities[-1][t.var_of(1, "ux")], res.velocities[-1][t.var_of(2, "rz")]

    exact = v0 / (1.0 + c * v0 * T / m)
    errs = []
    for dt in (0.05, 0.025, 0.0125):
        res, v_lin, v_rot = run(dt)
        errs.append(abs(v_lin - exact))
        assert abs(v_rot - exact) <= 1.01 * abs(v_lin - exact)  # Cayley kinematics: the same algebra for ω
        D = res.series("dissipated_energy")
        T_kin = res.series("kinetic_energy")
        assert np.all(np.asarray(T_kin[0]) > 0)  # a zero scale would let an all-zero output pass
        assert np.abs((T_kin[0] - T_kin) - D).max() <= 1e-12 * T_kin[0]
    rates = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    assert np.all(np.abs(rates - 2.0) < 0.1), rates


@pytest.mark.parametrize("scheme", ["newmark", "hht"])
def test_quadratic_damper_in_the_alpha_schemes(scheme):
    """The nonlinear damper force and its velocity derivative serve the Newmark and HHT
    schemes too (end-point damping force): second-order decay v0/(1 + c v0 t/m)."""
    c, m, v0, T = 3.0, 2.0, 4.0, 1.0
    errs = []
    for dt in (0.05, 0.025):
        model = Model(Mesh(np.array([[0.0, 0.0], [1.0, 0.0]])))
        model.add_discrete("damper", "spring2d", (0, 1), L0=1.0, damper_law=ForceLaw.function(lambda v: c * v * abs(v), (-10.0, 10.0)))
        model.add_discrete("mass", "point_mass2d_translational", 1, m=m)
        model.fix(0, "all")
        model.fix(1, ("uy",))
        model.initial_velocity(1, ux=v0)
        res = solve_dynamic(model, dt, T, TIGHT, scheme=scheme)
        errs.append(abs(res.velocities[-1][res.table.var_of(1, "ux")] - v0 / (1.0 + c * v0 * T / m)))
    assert 3.6 < errs[0] / errs[1] < 4.4, errs


def test_bilinear_damper_on_an_oscillator_books_its_work():
    """A mass on a linear spring with a bilinear (asymmetric) damper table swinging in 2-D,
    and a mass on a bushing with a stiffening table and a saturating isotropic damper:
    energy residual at round-off, energy really dissipated."""
    model = Model(Mesh(np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0], [3.0, 0.0]])))
    model.add_discrete("strut", "spring2d", (0, 1), k=50.0, L0=1.0, damper_law=[(-5.0, -10.0), (0.0, 0.0), (0.3, 0.3), (5.0, 1.0)])
    model.add_discrete("mass", "point_mass2d_translational", [1, 3], m=0.5)
    model.add_discrete("mount", "bushing2d", (2, 3), law=[(0.0, 0.0), (0.1, 2.0), (0.3, 20.0)], smooth=True,
                       damper_law=[(-1.0, -0.5), (0.0, 0.0), (0.2, 0.4), (1.0, 0.5)])
    model.fix([0, 2], "all")
    model.initial_velocity(1, ux=2.0, uy=1.0)
    model.initial_velocity(3, ux=-1.0, uy=2.0)
    res = solve_dynamic(model, 0.05, 10.0, TIGHT, record_every=10)
    assert _residual(res) <= 1e-12
    D = res.series("dissipated_energy")
    assert np.all(np.diff(D) >= 0.0) and D[-1] > 0.2 * res.series("kinetic_energy")[0]


# ---------------------------------------------------------------------------- input errors


@pytest.mark.parametrize("kwargs, message", [
    (dict(law=[(0.0, 0.0), (0.0, 1.0)]), "increase strictly"),
    (dict(law=[(0.0, 0.0), (1.0, float("nan"))]), "non-finite"),
    (dict(law=[(0.0, 0.0, 1.0), (1.0, 1.0, 2.0)]), "shape"),
    (dict(law=[(0.0, 0.0)]), "at least 2"),
    (dict(law=lambda d: d), "range"),
    (dict(law=lambda d: d, law_range=(1.0, -1.0)), "x_min < x_max"),
    (dict(law=lambda d: np.sqrt(abs(d)), law_range=(-1.0, 1.0)), "more than"),
    (dict(law=lambda d: 1.0 / d, law_range=(-1.0, 1.0)), "raised ZeroDivisionError"),
    (dict(law=[(0.0, 0.0), (1.0, 1.0)], law_range=(0.0, 1.0)), "only used with a function"),
    (dict(damper_law=[(-1.0, 1.0), (0.0, 0.0), (1.0, 1.0)]), "dissipate"),
    (dict(damper_law=[(-1.0, -1.0), (0.0, 0.5), (1.0, 1.0)]), "F\\(0\\) = 0"),
    (dict(damper_law=[(0.5, 1.0), (1.0, 2.0)]), "cover v = 0"),
    (dict(damper_law=[(-1.0, -1.0), (0.0, 0.0), (1.0, 2.0), (2.0, 1.0)]), "end slopes"),
])
def test_bad_laws_raise_errors_naming_the_part(kwargs, message):
    model = Model(Mesh(np.array([[0.0, 0.0], [1.0, 0.0]])))
    with pytest.raises(InputError, match=f"part 'strut'.*{message}"):
        model.add_discrete("strut", "spring2d", (0, 1), L0=1.0, **kwargs)
    assert "strut" not in model.mesh.cells  # nothing half-declared


def test_bushing_law_needs_zero_force_at_zero_deflection():
    model = Model(Mesh(np.array([[0.0, 0.0], [0.0, 0.0]])))
    with pytest.raises(InputError, match="part 'joint'.*bushing.*F\\(0\\) = 0"):
        model.add_discrete("joint", "bushing2d", (0, 1), law=[(0.0, 1.0), (1.0, 2.0)])
    model.add_discrete("joint", "bushing2d", (0, 1), law=[(-1.0, -2.0), (0.0, 0.0), (1.0, 2.0)])
    assert model.problems() == []
