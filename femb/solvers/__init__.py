"""Solvers: nonlinear statics, arc-length, linear buckling , modal, nonlinear dynamics."""
from femb.solvers.arclength import ArcLengthSettings, solve_arclength
from femb.solvers.buckling import BucklingResult, solve_buckling
from femb.solvers.dynamic import DynamicSettings, solve_dynamic
from femb.solvers.dynamic_problem import Rayleigh
from femb.solvers.eigen import ComplexModes, complex_eigen, solve_complex_modes
from femb.solvers.integrators import HHT, GeneralizedAlpha, MidPoint, Newmark
from femb.solvers.step_newton import DirectCorrection
from femb.solvers.linear import Factorization, SingularSystemError
from femb.solvers.modal import ModalResult, frequencies_along_path, solve_modal
from femb.solvers.newton import NewtonSettings
from femb.solvers.static import StaticProblem, solve_static
from femb.solvers.steady_spin import SteadySpin, campbell, steady_spin

__all__ = [
    "solve_static", "solve_arclength", "solve_buckling", "StaticProblem", "NewtonSettings",
    "ArcLengthSettings", "BucklingResult", "Factorization", "SingularSystemError",
    "solve_modal", "ModalResult", "frequencies_along_path",
    "solve_complex_modes", "complex_eigen", "ComplexModes", "steady_spin", "SteadySpin", "campbell",
    "solve_dynamic", "DynamicSettings", "Rayleigh", "MidPoint", "Newmark", "HHT", "GeneralizedAlpha", "DirectCorrection",
]
