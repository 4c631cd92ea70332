"""Mode shapes as animated ParaView series.

Each mode φ (real, from ``solve_modal``/``solve_buckling``, or complex, from
``solve_complex_modes``/``SteadySpin.modes``) becomes one collection ``<name>_<j>.pvd`` of
``n_frames`` frames over one period,

    u_k = a · Im(φ e^{iθ_k}),   θ_k = 2πk/n_frames,  k = 0 … n_frames − 1,

i.e. a·φ·sin θ_k for a real mode, and the travelling (whirling) motion Re φ sin θ_k +
Im φ cos θ_k of a complex one. The amplitude a scales the largest nodal translation to
``amplitude`` (default 10 % of the model's bounding-box diagonal). The frame time is the
phase fraction k/n_frames; every frame carries the field data ``mode``, ``frequency_hz``
(buckling modes: ``load_factor``, the critical load factor) (and ``damping_ratio`` for
complex modes) for ParaView's annotation filters. Nodal
rotations of 3-D models are written as the scaled rotation vectors (small-angle picture).
"""
import logging
from pathlib import Path

import numpy as np

from femb.export.vtk import PVDWriter
from femb.results import Results

log = logging.getLogger(__name__)

_TRANSLATIONS = ("ux", "uy", "uz")


def _mode_data(result):
    """(modes (k, n_var) real or complex, frequency_hz (k,), damping_ratio (k,) or None)."""
    modes = np.asarray(result.modes)
    if hasattr(result, "damping_ratio"):
        return modes, np.asarray(result.frequency_hz), np.asarray(result.damping_ratio)
    if hasattr(result, "frequency_hz"):
        return modes, np.asarray(result.frequency_hz), None
    if hasattr(result, "load_factors"):  # buckling modes: the load factor in place of a frequency
        return modes, np.asarray(result.load_factors), None
    return modes, np.full(modes.shape[0], np.nan), None


def _peak_translation(table, phi):
    """Largest nodal translation magnitude sqrt(Σ|φ_i|²) of a (complex) shape."""
    cols = [table.dof_names.index(n) for n in _TRANSLATIONS if n in table.dof_names]
    var = table.node_var[:, cols]
    vals = np.where(var >= 0, np.abs(phi[np.maximum(var, 0)]), 0.0)
    return float(np.sqrt((vals**2).sum(axis=1)).max(initial=0.0))


def write_mode_animation(result, out_dir, model=None, modes=None, n_frames=24, amplitude=None, name="mode"):
    """Write the modes of ``result`` as animated ParaView collections.

    Parameters
    ----------
    result : ModalResult, ComplexModes or BucklingResult (``modes`` (k, n_var) over the
        variables of ``result.table``).
    out_dir : folder for ``<name>_<j>.pvd`` and its ``.vtu`` frames (created if missing).
    model : the Model (reference coordinates of nodes outside elements, set names);
        optional.
    modes : indices of the modes to write (default: all).
    n_frames : frames per period (≥ 2).
    amplitude : largest nodal translation in length units (default: 10 % of the model's
        bounding-box diagonal, or of the element extent without a model).

    Returns the list of .pvd paths, one per mode.
    """
    n_frames = int(n_frames)
    if n_frames < 2:
        raise ValueError(f"n_frames must be >= 2, got {n_frames}")
    table = result.table
    if table is None:
        raise ValueError("the modes have no CorrelationTable (matrices solved without a model)")
    shapes, freq, zeta = _mode_data(result)
    buckling = not hasattr(result, "frequency_hz") and hasattr(result, "load_factors")
    select = range(shapes.shape[0]) if modes is None else list(modes)
    if amplitude is None:
        if model is not None:
            lo, hi = model.mesh.bounding_box()
        else:
            pts = np.concatenate([b.X.reshape(-1, b.X.shape[-1]) for b in table.blocks])
            lo, hi = pts.min(axis=0), pts.max(axis=0)
        amplitude = 0.1 * (float(np.linalg.norm(hi - lo)) or 1.0)
    out_dir = Path(out_dir)
    paths = []
    for j in select:
        phi = np.asarray(shapes[j], dtype=np.complex128)
        peak = _peak_translation(table, phi)
        if peak == 0.0:
            peak = float(np.abs(phi).max(initial=0.0)) or 1.0
        a = amplitude / peak
        res = Results(table, "modal", model)
        for k in range(n_frames):
            theta = 2.0 * np.pi * k / n_frames
            u = a * np.imag(phi * np.exp(1j * theta))
            # buckling modes carry their critical load factor, not a frequency
            scalars = {"mode": float(j), "load_factor" if buckling else "frequency_hz": float(freq[j]), "phase": theta}
            if zeta is not None:
                scalars["damping_ratio"] = float(zeta[j])
            res.record(k / n_frames, u, **scalars)
        writer = PVDWriter(out_dir, f"{name}_{j}", time_mode="time")
        for k in range(n_frames):
            writer.add(res, k, f"mode {j}")
        paths.append(writer.path)
        log.info("mode %d (%.6g %s): %d frames to %s", j, freq[j], "load factor" if buckling else "Hz", n_frames, writer.path)
    return paths


class _ModesOfResults:
    """The modes of a case step's Results (one frame per mode: the mode shapes as states,
    the frequency or load factor in the history) in the form write_mode_animation takes."""

    def __init__(self, results):
        self.table = results.table
        self.modes = np.array(results.states)
        if "frequency_hz" in results.history:
            self.frequency_hz = results.series("frequency_hz")
        elif "load_factor" in results.history:
            self.load_factors = results.series("load_factor")


def write_step_modes(results, out_dir, name, n_frames=24):
    """Animated series (write_mode_animation) of the modes of a ``modal`` or ``buckling``
    case step's Results, one ``<name>_<j>.pvd`` per mode j = 0, 1, …, with the amplitude
    the step recorded (the largest translation of each recorded shape). Returns the paths."""
    source = _ModesOfResults(results)
    peaks = [_peak_translation(source.table, np.asarray(m, dtype=np.complex128)) for m in source.modes]
    amplitude = max(peaks, default=0.0) or None
    return write_mode_animation(source, out_dir, results.model, n_frames=n_frames, amplitude=amplitude, name=name)

