"""Consistent bending mass of a shear-flexible (Timoshenko) beam element.

The 2-D and 3-D Timoshenko beams (beam2d_timoshenko, beam3d_timoshenko) have the exact
linear Timoshenko stiffness, K(Φ) with Φ = 12 EI/(GA_s l0²). Their consistent mass uses
the interpolation that makes that stiffness exact (the static solution of the element
under end loads: transverse displacement cubic, section rotation quadratic, tied by
θ = v′ + (Φ l0²/12) v‴; Friedman & Kosmatka, Comput. Struct. 47 (1993) 473–481), ξ = x/l0::

    (1+Φ) N_v = (2ξ³ − 3ξ² − Φξ + 1 + Φ,  l0 (ξ³ − (2 + Φ/2) ξ² + (1 + Φ/2) ξ),
                 −2ξ³ + 3ξ² + Φξ,          l0 (ξ³ − (1 − Φ/2) ξ² − (Φ/2) ξ))
    (1+Φ) N_θ = (6 (ξ² − ξ)/l0,  3ξ² − (4 + Φ) ξ + 1 + Φ,  −6 (ξ² − ξ)/l0,  3ξ² − (2 − Φ) ξ)

M = ∫ (ρA N_vᵀ N_v + ρI N_θᵀ N_θ) dx over (v1, θ1, v2, θ2), integrated exactly by 4-point
Gauss. Φ = 0 gives the Euler–Bernoulli Hermite matrix with rotary inertia ∫ρI N_v′ᵀ N_v′.
With Φ > 0 the rotary inertia belongs to the section rotation θ, not to the slope v′:
the Euler–Bernoulli matrix would attach it to the wrong field and converge to wrong
frequencies when ρI and the shear flexibility both matter.
"""
import math

from femb.core import jit

_G = (0.5 - 0.5 * math.sqrt(3.0 / 7.0 + 2.0 / 7.0 * math.sqrt(6.0 / 5.0)),
      0.5 - 0.5 * math.sqrt(3.0 / 7.0 - 2.0 / 7.0 * math.sqrt(6.0 / 5.0)),
      0.5 + 0.5 * math.sqrt(3.0 / 7.0 - 2.0 / 7.0 * math.sqrt(6.0 / 5.0)),
      0.5 + 0.5 * math.sqrt(3.0 / 7.0 + 2.0 / 7.0 * math.sqrt(6.0 / 5.0)))
_W = (0.25 - math.sqrt(30.0) / 72.0, 0.25 + math.sqrt(30.0) / 72.0,
      0.25 + math.sqrt(30.0) / 72.0, 0.25 - math.sqrt(30.0) / 72.0)


@jit(internal=True)
def bending_mass(rhoA, rhoI, L, phi, out):
    """out (4, 4): consistent bending mass over (v1, θ1, v2, θ2) of a Timoshenko element of
    length L with Φ = 12 EI/(GA_s L²) (see the module docstring)."""
    for i in range(4):
        for j in range(4):
            out[i, j] = 0.0
    d = 1.0 + phi
    nv = [0.0, 0.0, 0.0, 0.0]
    nt = [0.0, 0.0, 0.0, 0.0]
    for g in range(4):
        x = _G[g]
        x2 = x * x
        x3 = x2 * x
        nv[0] = (2.0 * x3 - 3.0 * x2 - phi * x + 1.0 + phi) / d
        nv[1] = L * (x3 - (2.0 + 0.5 * phi) * x2 + (1.0 + 0.5 * phi) * x) / d
        nv[2] = (-2.0 * x3 + 3.0 * x2 + phi * x) / d
        nv[3] = L * (x3 - (1.0 - 0.5 * phi) * x2 - 0.5 * phi * x) / d
        nt[0] = 6.0 * (x2 - x) / (L * d)
        nt[1] = (3.0 * x2 - (4.0 + phi) * x + 1.0 + phi) / d
        nt[2] = -nt[0]
        nt[3] = (3.0 * x2 - (2.0 - phi) * x) / d
        w = _W[g] * L
        for i in range(4):
            for j in range(4):
                out[i, j] += w * (rhoA * nv[i] * nv[j] + rhoI * nt[i] * nt[j])
