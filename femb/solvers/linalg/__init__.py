"""Linear algebra of the solvers: sparse/band factorizations with singularity diagnostics
(factorization), the null-space elimination of joint multipliers (nullspace) and the check
of the joint equations dropped as redundant (redundancy)."""
