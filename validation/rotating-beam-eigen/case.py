"""Rotating cantilever linearized about a steady spin (spin-up B beam: L = 10 m,
EI = 1.4e4 N·m² in both planes, ρA = 1.2 kg/m, root clamped on the axis).

femb solves the relative equilibrium under the centrifugal load in the rotating frame
(nonlinear statics with the 3-D co-rotational beam, which supplies the centrifugal
stiffening), adds spin softening and the Coriolis (gyroscopic) matrix, and solves the
complex modes. At Ω = 6 rad/s the first flapwise (out-of-plane) and chordwise (in-plane)
frequencies are compared with the reference values; the chordwise one is also computed
with the planar beam, the non-rotating value with the cantilever's, and the flapwise one at
γ = Ω√(ρAL⁴/EI) = 3 with the non-dimensional table.
"""
from femb.validation.eigen_cases import rotating_beam_case


def run(quick, out_dir):
    return rotating_beam_case(quick)
