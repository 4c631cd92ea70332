"""Component reduction: Craig–Bampton bases of linear components given as matrices
(craig_bampton), of femb models on an interface node set (component), and of matrices
exported by other finite-element programs (matrix_files)."""
