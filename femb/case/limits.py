"""Size limits of a case run: estimate the memory and the output a run needs before it
starts, and refuse a run beyond the limits instead of ending in a MemoryError or a full
disk.

The estimates are deliberately rough (within a factor of about two) upper bounds:

memory
    the model and its assembly (``MODEL_BYTES_PER_ELEMENT`` per element,
    ``MODEL_BYTES_PER_VARIABLE`` per variable: element blocks, sparse matrices, the
    factorization), plus the Results of every step, which keep every recorded frame in
    memory (state and velocity: 16 bytes per variable and frame) and, for static steps,
    the list of load factors (8 bytes per increment);
output
    the ``.vtu`` frames written (``VTU_BYTES_FIXED`` + ``VTU_BYTES_PER_NODE`` per node +
    ``VTU_BYTES_PER_CELL`` per cell, times ``SURFACE_FACTOR`` with section surfaces),
    history.csv, and for dynamic steps the checkpoint frame records (8 bytes per value).

Limits: ``[output] max_memory_gb`` (default 8) and ``max_output_gb`` (default 10) in the
case file, or ``femb run --max-memory-gb`` / ``--max-output-gb`` (these win). Generated
meshes are checked before they are generated (``check_generated_mesh``).
"""
import math
from dataclasses import dataclass

from femb.core.errors import InputError

GB = 1e9
DEFAULT_MEMORY_GB = 8.0
DEFAULT_OUTPUT_GB = 10.0
MODEL_BYTES_PER_ELEMENT = 2000
MODEL_BYTES_PER_VARIABLE = 1000
VTU_BYTES_FIXED = 4000
VTU_BYTES_PER_NODE = 250
VTU_BYTES_PER_CELL = 150
SURFACE_FACTOR = 4
HISTORY_BYTES_PER_VALUE = 25


@dataclass
class Limits:
    """Largest estimated memory and output of a run, in GB (1e9 bytes)."""

    memory_gb: float = DEFAULT_MEMORY_GB
    output_gb: float = DEFAULT_OUTPUT_GB


HOW_TO_RAISE = {
    "memory_gb": "raise it with [output] max_memory_gb or femb run --max-memory-gb",
    "output_gb": "raise it with [output] max_output_gb or femb run --max-output-gb",
}


def _gb(n_bytes):
    return f"{n_bytes / GB:.3g} GB"


def check_generated_mesh(n_elements, dim, path, limits):
    """Problem text (or None) for a mesh generator asked for ``n_elements`` elements, at
    key path ``path``: the model alone would need more memory than the limit."""
    need = n_elements * (MODEL_BYTES_PER_ELEMENT + 3 * dim * MODEL_BYTES_PER_VARIABLE)
    if need > limits.memory_gb * GB:
        return (f"{path}: {n_elements:,} elements need about {_gb(need)} of memory, beyond the limit of "
                f"{limits.memory_gb:g} GB ({HOW_TO_RAISE['memory_gb']})")
    return None


@dataclass
class StepSize:
    """The size of one step: recorded frames (kept in memory), frames written as
    ``.vtu``, extra bytes in memory, bytes of checkpoint records per frame, and the key
    paths that set the number of frames (named in the refusal)."""

    frames: int
    written: int
    extra_memory: float
    record_bytes: float
    keys: tuple


def step_size(index, step, every, n_var):
    """StepSize of ``steps[index]`` (a femb.case.steps.Step); ``every``: the output's
    every-n-th frame."""
    frames = step.expected_frames() or 1
    written = min(frames, math.ceil(frames / every) + 1)
    where = f"steps[{index}]"
    if step.type == "static":
        factors = step.settings["load_factors"]
        keys = (f"{where}.load_factors",) if factors is not None else (f"{where}.steps",)
        return StepSize(frames, written, 8.0 * frames, 0.0, keys)
    if step.type == "dynamic":
        keys = (f"{where}.dt", f"{where}.t_end", f"{where}.record_every")
        return StepSize(frames, written, 0.0, 8.0 * (2 * n_var + 16), keys)
    if step.type == "arclength":
        return StepSize(frames, written, 0.0, 0.0, (f"{where}.max_steps",))
    return StepSize(frames, written, 0.0, 0.0, (f"{where}.n_modes",))


def estimate(case):
    """(memory bytes, output bytes, [(key paths, memory bytes, output bytes)] per step) of
    running ``case`` (a femb.case.case.Case)."""
    model, output = case.model, case.output
    n_nodes = model.mesh.n_nodes
    n_cells = sum(block.connectivity.shape[0] for block in model.mesh.cells.values())
    n_var = n_nodes * len(model.dof_names)  # an upper bound: before the table is built
    memory = n_cells * MODEL_BYTES_PER_ELEMENT + n_var * MODEL_BYTES_PER_VARIABLE
    frame_bytes = VTU_BYTES_FIXED + VTU_BYTES_PER_NODE * n_nodes + VTU_BYTES_PER_CELL * n_cells
    if output.surfaces is not None:
        frame_bytes *= 1 + SURFACE_FACTOR
    disk, per_step = 0.0, []
    for index, step in enumerate(case.steps):
        size = step_size(index, step, output.every, n_var)
        mem = 16.0 * n_var * size.frames + size.extra_memory
        out = (frame_bytes * size.written if output.vtk else 0.0) + size.frames * size.record_bytes
        out += HISTORY_BYTES_PER_VALUE * 20 * size.frames if output.history else 0.0
        memory += mem
        disk += out
        per_step.append((size.keys, mem, out))
    return memory, disk, per_step


def check_case_size(case, limits):
    """InputError naming the steps' keys when ``case`` is estimated to need more memory or
    output than ``limits`` allow (see the module docstring)."""
    memory, disk, per_step = estimate(case)
    problems = []
    for total, kind, column in ((memory, "memory", 1), (disk, "output", 2)):
        limit = getattr(limits, f"{kind}_gb")
        if total <= limit * GB:
            continue
        worst = max(per_step, key=lambda s: s[column], default=None)
        culprit = f"set by {', '.join(worst[0])}" if worst is not None and worst[column] > 0.5 * total else "set by the mesh size"
        problems.append(f"the run needs about {_gb(total)} of {kind} ({culprit}), beyond the limit of {limit:g} GB "
                        f"({HOW_TO_RAISE[f'{kind}_gb']})")
    if problems:
        raise InputError(problems, str(case.path))
    return memory, disk


__all__ = ["Limits", "check_case_size", "check_generated_mesh", "estimate", "DEFAULT_MEMORY_GB", "DEFAULT_OUTPUT_GB"]
