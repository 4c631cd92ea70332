"""Eigen-analyses and linearizations about an operating point: linear buckling, modal
analysis, complex modes of non-symmetric systems, linearization of constrained models and
steady-spin (Campbell) analysis."""
