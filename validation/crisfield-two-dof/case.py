"""Two-DOF bar-plus-spring "escape" model, Crisfield & Shi (1993) §4.2 (Lim & Crisfield):
bar OA (l0 = 100, EA = 500, pinned at O, mass 1 at A) at 135°, a horizontal spring K = 1
on A, initial kinetic energy τ = 0.8 of the barrier (τ_cr = 5/6).

Below the barrier the mass can never cross to the other side of the saddle (y = 0); the
energy-conserving scheme keeps the energy, hence never escapes, for any step. Four
initial-velocity directions × Δt ∈ {0.5, 1} (full: also 0.1), 100 s each. The linearised
periods from femb's modal analysis check the model against the closed form.
"""
from femb.validation.crisfield_cases import two_dof_case


def run(quick, out_dir):
    return two_dof_case(quick)
