"""Linear algebra of the solvers: sparse/band factorizations with singularity diagnostics
(factorization) and the null-space elimination of joint multipliers (nullspace)."""
