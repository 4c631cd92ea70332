"""The Results container shared by every solver.

A run records *frames* (a time or load factor and the full variable vector u, optionally
velocities) and a *history* of scalars per step (energies, iterations, probes ...). Nodal
values are recovered through the CorrelationTable.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:
    from femb.correlation import CorrelationTable
    from femb.model import Model


class Results:
    """Frames and histories of one analysis.

    A frame is a time (dynamics) or load factor (statics) with the state vector u over all
    variables of the correlation table (translations in length units, rotations in
    radians: 2-D rz additive, 3-D rotation vectors log R). Read DOFs with ``dof``, history
    columns with ``series``, nodal fields with ``nodal_displacements`` and
    ``nodal_rotation_matrices``; write ParaView files with ``to_vtk``.

    Attributes
    ----------
    table : CorrelationTable
        The global numbering (``table.var_of(node, dof)``).
    kind : str
        "static", "arclength", "dynamic", "modal", ...
    model : Model or None
        The model that was solved.
    times : list of float
        The time or load factor of each frame.
    states : list of (n_var,) arrays
        u at each frame.
    velocities : list of (n_var,) arrays
        Velocities at each frame (dynamics), or empty.
    history : dict of str to list of float
        One entry per recorded frame (NaN where a frame did not record the column).
    arrays : dict of str to list of arrays
        One array per recorded frame, e.g. ``reactions`` over the constrained variables
        ``table.constrained_vars``, ``multipliers`` of the joints, ``rotations``
        (n_nodes, 3, 3), the nodal rotation matrices of 3-D models with oriented nodes.
    info : dict
        Run information (settings, counts, timings).
    """

    def __init__(self, table: CorrelationTable, kind: str, model: Optional[Model] = None) -> None:
        self.table = table
        self.kind = kind
        self.model = model
        self.times: list[float] = []
        self.states: list[NDArray[np.float64]] = []
        self.velocities: list[NDArray[np.float64]] = []
        self.history: dict[str, list[float]] = {}
        self.arrays: dict[str, list[NDArray[np.float64]]] = {}
        self.info: dict[str, Any] = {}

    def record(self, t: float, u: ArrayLike, v: Optional[ArrayLike] = None, arrays: Optional[dict[str, ArrayLike]] = None,
               **scalars: float) -> None:
        """Append a frame (copies u and v) with scalar history values and per-frame arrays
        (e.g. ``arrays={"reactions": r}``)."""
        for key, val in (arrays or {}).items():
            self.arrays.setdefault(key, []).append(np.array(val, dtype=np.float64, copy=True))
        self.times.append(float(t))
        self.states.append(np.array(u, dtype=np.float64, copy=True))
        if v is not None:
            self.velocities.append(np.array(v, dtype=np.float64, copy=True))
        n = len(self.times)
        history = self.history
        for key, val in scalars.items():
            col = history.get(key)
            if col is None:  # a new column: NaN at the earlier frames
                col = history[key] = [np.nan] * (n - 1)
            col.append(float(val))
        self._pad_history(n)

    def record_frames(self, times: ArrayLike, states: ArrayLike, arrays: Optional[dict[str, ArrayLike]] = None,
                      **columns: ArrayLike) -> None:
        """Append k frames at once: times (k,), states u (k, n_var) (rows kept as they are,
        not copied: pass arrays that nothing else writes), per-frame arrays (k, ...) and
        history columns (k,); the same frames as k calls of ``record``."""
        times = np.asarray(times, dtype=np.float64)
        k = times.size
        self.times.extend(times.tolist())
        self.states.extend(np.asarray(states, dtype=np.float64)[:k])
        for key, val in (arrays or {}).items():
            self.arrays.setdefault(key, []).extend(np.asarray(val, dtype=np.float64)[:k])
        n = len(self.times)
        for key, val in columns.items():
            col = self.history.setdefault(key, [np.nan] * (n - k))
            col.extend(np.asarray(val, dtype=np.float64)[:k].tolist())
        self._pad_history(n)

    def _pad_history(self, n: int) -> None:
        """Pad every history column with NaN to ``n`` frames (columns a frame did not record)."""
        for col in self.history.values():
            while len(col) < n:
                col.append(np.nan)

    def __len__(self) -> int:
        """The number of recorded frames."""
        return len(self.times)

    @property
    def final(self) -> NDArray[np.float64]:
        """The last state vector u (n_var,)."""
        return self.states[-1]

    def series(self, name: str) -> NDArray[np.float64]:
        """The history column ``name`` as an array (one value per frame; NaN where a frame
        did not record it). The names depend on the analysis (see its ``solve_*``
        function), e.g. ``load_factor``, ``total_energy``, or a probe's name."""
        return np.asarray(self.history[name], dtype=np.float64)

    def dof(self, node: int, dof: str, frame: Optional[int] = None) -> Union[float, NDArray[np.float64]]:
        """Value of DOF ``dof`` ("ux", "uy", "uz", "rx", "ry", "rz") at node index ``node``
        (``model.node(name)`` gives it) at one frame (a float; negative indices count from
        the end), or over all frames (array (n_frames,)) when ``frame`` is None. Units: the
        model's length for translations, radians for rotations."""
        var = self.table.var_of(node, dof)
        if frame is not None:
            return float(self.states[frame][var])
        return np.array([s[var] for s in self.states])

    def internal(self, part: str, frame: Optional[int] = -1) -> NDArray[np.float64]:
        """Element-internal variables of part ``part`` (the modal amplitudes q̂ of a
        superelement, scaled to lengths: q = ``modal_scale``·q̂ are the mass-normalised
        ones, femb.model.SuperelementData): (n_el, n_internal) at one
        frame, or (n_frames, n_el, n_internal) over all frames when ``frame`` is None.
        ModelError for an unknown part."""
        var = self.table.internal_vars(part)
        if frame is not None:
            return np.asarray(self.states[frame])[var]
        return np.array([np.asarray(s)[var] for s in self.states])

    def nodal_displacements(self, frame: int = -1) -> NDArray[np.float64]:
        """(n_nodes, dim) translations at a frame (zero for DOFs a node does not carry)."""
        t = self.table
        out = np.zeros((t.node_var.shape[0], t.dim))
        u = self.states[frame]
        for k in range(t.dim):
            col = t.node_var[:, k]
            out[col >= 0, k] = u[col[col >= 0]]
        return out

    def nodal_rotations(self, frame: int = -1) -> NDArray[np.float64]:
        """(n_nodes,) planar rotation rz (2-D models)."""
        t = self.table
        k = t.dof_names.index("rz")
        col = t.node_var[:, k]
        out = np.zeros(col.size)
        out[col >= 0] = self.states[frame][col[col >= 0]]
        return out

    def nodal_rotation_matrices(self, frame: int = -1) -> NDArray[np.float64]:
        """(n_nodes, 3, 3) rotation of every node relative to its reference orientation at
        a frame: the recorded ``rotations`` of 3-D models with oriented nodes; otherwise
        exp of the rotation vectors held in u (3-D: (rx, ry, rz); 2-D: rotation rz about
        the z axis). Identity at nodes without rotations."""
        rots = self.arrays.get("rotations")
        if rots is not None and len(rots) == len(self.states):
            return np.array(rots[frame], dtype=np.float64)
        t = self.table
        n_nodes = t.node_var.shape[0]
        theta = np.zeros((n_nodes, 3))
        u = self.states[frame]
        for k, name in enumerate(("rx", "ry", "rz")):
            if name in t.dof_names:
                col = t.node_var[:, t.dof_names.index(name)]
                theta[col >= 0, k] = u[col[col >= 0]]
        return _exp_rotation_vectors(theta)


    def to_vtk(self, path: Union[str, Path], frames: Union[None, int, list[int]] = None,
               surfaces: Union[None, bool, str, dict[str, Any]] = None, time_mode: str = "auto") -> Path:
        """Write frames to ParaView files (femb.export); returns the written path.

        Parameters
        ----------
        path : str or Path
            A folder (written as ``<folder>/results.pvd`` + ``results_<k>.vtu``), a
            ``.pvd`` file (its folder and stem name the collection) or a ``.vtu`` file
            (one frame: ``frames`` as an int, default the last).
        frames : list of int or int, optional
            Indices of the frames to write (default all), or one int for a ``.vtu``.
        surfaces : True, "auto" or dict, optional
            {part: SectionOutline}: also the extruded cross-section surfaces
            (``<name>_surface.pvd``, see femb.export.surfaces).
        time_mode : str
            See femb.export.PVDWriter.

        Notes
        -----
        femb.export sits above femb.results in the layering: the writer is imported when
        this method is called (an allowed deferred import, see tests/framework/test_layering),
        so importing Results never imports femb.export.
        """
        import femb.export.vtk as vtk
        path = Path(path)
        if path.suffix == ".vtu":
            frame = -1 if frames is None else int(frames)  # type: ignore[arg-type]  # a .vtu holds one frame: an int
            if surfaces not in (None, False):
                raise ValueError("surfaces need a collection: give a folder or a .pvd path")
            path.parent.mkdir(parents=True, exist_ok=True)
            return vtk.write_vtu_frame(path, self, frame if frame >= 0 else len(self) + frame)
        if path.suffix == ".pvd":
            folder, name = path.parent, path.stem
        else:
            folder, name = path, "results"
        writer = vtk.results_to_vtk(self, folder, name=name, frames=frames, time_mode=time_mode, surfaces=surfaces)
        return writer.path


def _exp_rotation_vectors(theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """(n, 3, 3) Rodrigues rotations of rotation vectors θ (n, 3) [rad]."""
    t = np.linalg.norm(theta, axis=1)
    safe = np.where(t > 0.0, t, 1.0)
    a = np.where(t > 1e-8, np.sin(t) / safe, 1.0 - t**2 / 6.0)
    b = np.where(t > 1e-8, (1.0 - np.cos(t)) / safe**2, 0.5 - t**2 / 24.0)
    H = np.zeros((theta.shape[0], 3, 3))
    H[:, 0, 1], H[:, 0, 2], H[:, 1, 2] = -theta[:, 2], theta[:, 1], -theta[:, 0]
    H -= H.transpose(0, 2, 1)
    return np.eye(3) + a[:, None, None] * H + b[:, None, None] * (H @ H)
