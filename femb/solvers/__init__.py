"""Solvers: nonlinear statics, arc-length, linear buckling, modal, complex modes, steady spin,
linearization, nonlinear dynamics."""
from femb.solvers.dynamics.driver import DynamicSettings, solve_dynamic
from femb.solvers.dynamics.problem import Rayleigh
from femb.solvers.dynamics.schemes import HHT, GeneralizedAlpha, MidPoint, Newmark
from femb.solvers.eigen.buckling import (
    BucklingResult,
    PathBucklingResult,
    critical_load_on_path,
    solve_buckling,
)
from femb.solvers.eigen.complex_modes import (
    ComplexModes,
    complex_eigen,
    solve_complex_modes,
)
from femb.solvers.eigen.linearize import LinearModel, linearize
from femb.solvers.eigen.modal import ModalResult, frequencies_along_path, solve_modal
from femb.solvers.eigen.steady_spin import SteadySpin, campbell, steady_spin
from femb.solvers.linalg.factorization import Factorization, SingularSystemError
from femb.solvers.nonlinear.newton import NewtonSettings
from femb.solvers.nonlinear.step_newton import DirectCorrection
from femb.solvers.problem import StaticProblem
from femb.solvers.statics.arclength import ArcLengthSettings, solve_arclength
from femb.solvers.statics.static import solve_static

__all__ = [
    "solve_static", "solve_arclength", "solve_buckling", "StaticProblem", "NewtonSettings",
    "ArcLengthSettings", "BucklingResult", "critical_load_on_path", "PathBucklingResult", "Factorization", "SingularSystemError",
    "solve_modal", "ModalResult", "frequencies_along_path", "linearize", "LinearModel",
    "solve_complex_modes", "complex_eigen", "ComplexModes", "steady_spin", "SteadySpin", "campbell",
    "solve_dynamic", "DynamicSettings", "Rayleigh", "MidPoint", "Newmark", "HHT", "GeneralizedAlpha", "DirectCorrection",
]
