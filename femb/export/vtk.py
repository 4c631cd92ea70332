"""ParaView output: one ``.vtu`` file per frame and a ``.pvd`` collection listing them.

The points of every ``.vtu`` are the reference coordinates; apply ParaView's "Warp By
Vector" with ``displacement`` (or use the ``deformed`` point array) to see the deformed
shape. The collection is rewritten atomically (temporary file + ``os.replace``) after each
frame, so a run killed at any moment leaves a valid ``.pvd`` listing the frames written.
"""
import logging
import os
from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np

from femb.export.atomic import atomic_write_text
from femb.export.fields import recovery_for

log = logging.getLogger(__name__)


def write_vtu_frame(path, results, frame, recovery=None):
    """Write frame ``frame`` of ``results`` to the ``.vtu`` file ``path`` (fields: see
    femb.export.fields; field data: ``TimeValue``, ``frame`` and the frame's finite history
    values, e.g. ``frequency_hz`` of a mode). ``recovery`` (a FieldRecovery) may be passed
    to reuse it."""
    import meshio

    rec = recovery or recovery_for(results)
    point_data, cell_data = rec.frame(results, frame)
    mesh = meshio.Mesh(
        rec.X,
        [meshio.CellBlock(cell_type, conn) for cell_type, conn in rec.cells],
        point_data=point_data,
        cell_data=cell_data,
    )
    return _write_frame_mesh(path, mesh, results, frame)


def _write_frame_mesh(path, mesh, results, frame):
    """Write a meshio mesh as ``path`` (through a temporary file) with the frame's field
    data (``TimeValue``, ``frame``, finite history values)."""
    import meshio

    path = Path(path)
    tmp = path.with_name(path.name + ".part")
    meshio.write(tmp, mesh, file_format="vtu", binary=True, compression="zlib")
    field = {"TimeValue": ("Float64", repr(float(results.times[frame]))), "frame": ("Int64", str(int(frame)))}
    for key, column in results.history.items():  # the frame's history row (frequency_hz, energies ...)
        value = float(column[frame]) if frame < len(column) else float("nan")
        if key not in field and key.isidentifier() and np.isfinite(value):
            field[key] = ("Float64", repr(value))
    _add_field_data(tmp, field)
    os.replace(tmp, path)
    return path


def write_superelement_frame(path, model, results, part, frame=-1, modes=None):
    """Write the full mesh of the component reduced into superelement ``part`` at frame
    ``frame`` of ``results`` to the ``.vtu`` file ``path``: the component's elements (one
    cell block per part of the component) at its reference positions placed in the model
    (points), with the point fields ``displacement`` (x − X, recovered as
    x = o + R_s(X + u), femb.results.superelements) and ``deformed`` (x), and the cell
    fields of ``write_vtu_frame``'s resultants: every section resultant of the component's
    elements recovered by stress modes (femb.results.superelement_stresses; NaN in parts
    whose element lacks it), ``part_id`` and, for shell parts, the shell stress fields
    (membrane_force … von_mises, femb.export.fields). ``modes``: the part's
    ``superelement_stress_modes`` to reuse over frames. InputError when ``part`` is not a
    superelement with a component."""
    import meshio

    from femb.export.fields import resultant_cell_data
    from femb.results.superelement_stresses import superelement_resultants
    from femb.results.superelements import superelement_positions

    rots = results.arrays.get("rotations")
    R = None if rots is None or len(rots) != len(results.states) else np.asarray(rots[frame], dtype=np.float64)
    X, x = superelement_positions(model, results.table, part, results.states[frame], R)
    res = superelement_resultants(model, results.table, part, results.states[frame], R, modes)
    ctab = model.superelements[part].recovery["component"].table
    cells, cell_data = resultant_cell_data(ctab.blocks, res)
    mesh = meshio.Mesh(X, [meshio.CellBlock(t, c) for t, c in cells], point_data={"displacement": x - X, "deformed": x},
                       cell_data=cell_data)
    return _write_frame_mesh(path, mesh, results, frame)


def superelement_to_vtk(model, results, part, out_dir, name=None, frames=None, time_mode="auto"):
    """Write frames of ``results`` (all, or the indices ``frames``) as the moving full mesh
    of the superelement ``part`` (``write_superelement_frame``: displacements and the
    recovered resultants and shell stresses) to ``<name>_<k>.vtu`` plus ``<name>.pvd`` in
    ``out_dir`` (``name`` defaults to the part name); the stress modes are computed once
    for all frames. Returns the PVDWriter. InputError when ``part`` is not a superelement
    with a component."""
    from femb.results.superelement_stresses import superelement_stress_modes

    name = part if name is None else name
    modes = superelement_stress_modes(model, part)
    writer = PVDWriter(out_dir, name, time_mode)
    for k in range(len(results)) if frames is None else frames:
        file_name = f"{name}_{len(writer.entries):05d}.vtu"
        write_superelement_frame(writer.out_dir / file_name, model, results, part, k, modes)
        writer.add_file(file_name, results.times[k], results.kind)
    log.info("wrote %d frames of superelement %r to %s", len(writer.entries), part, writer.path)
    return writer


def write_surface_frame(path, results, frame, surfaces, recovery=None):
    """Write frame ``frame`` of ``results`` as extruded cross-section surfaces (quad cells)
    to the ``.vtu`` file ``path``; ``surfaces`` is a femb.export.surfaces.BeamSurfaces
    (see ``surfaces_for``). Fields: those of ``write_vtu_frame`` mapped to the surface
    (module docstring of femb.export.surfaces)."""
    import meshio

    rec = recovery or recovery_for(results)
    point_data, cell_data = rec.frame(results, frame)
    points, cells, pdata, cdata = surfaces.frame_mesh(results, frame, point_data, cell_data)
    mesh = meshio.Mesh(points, [meshio.CellBlock(t, c) for t, c in cells], point_data=pdata, cell_data=cdata)
    return _write_frame_mesh(path, mesh, results, frame)


def _add_field_data(path, values):
    """Insert ASCII FieldData arrays (name -> (VTK type, text)) into a written .vtu (meshio
    reads field data but does not write it); ParaView shows ``TimeValue`` as the time."""
    text = Path(path).read_text(encoding="utf-8")
    arrays = "".join(
        f'<DataArray type="{vtk_type}" Name="{name}" NumberOfTuples="1" format="ascii">{value}</DataArray>'
        for name, (vtk_type, value) in values.items()
    )
    marker = "<UnstructuredGrid>"
    if marker not in text:
        log.warning("%s: no <UnstructuredGrid> tag; field data not added", path)
        return
    Path(path).write_text(text.replace(marker, f"{marker}<FieldData>{arrays}</FieldData>", 1), encoding="utf-8")


class PVDWriter:
    """Writes frames as ``<name>_<k>.vtu`` in ``out_dir`` and keeps ``<name>.pvd`` current.

    Parameters
    ----------
    out_dir : str or Path (created when missing)
    name : str, base name of the collection and its frames
    time_mode : "auto", "time" or "index"
        The ``timestep`` attribute ParaView sorts by: the frame's time/load factor, the
        running frame number, or (auto) the time while the times written so far increase
        strictly and the frame number otherwise (arc-length paths, several steps).
    surfaces : None, True, "auto" or dict part -> outline, optional
        Also write the bars and beams as extruded cross-section surfaces,
        ``<name>_surface_<k>.vtu`` listed in ``<name>_surface.pvd`` (same frames and
        times); see femb.export.surfaces.surfaces_for for the selection.
    """

    def __init__(self, out_dir, name="results", time_mode="auto", surfaces=None):
        if time_mode not in ("auto", "time", "index"):
            raise ValueError(f"time_mode must be 'auto', 'time' or 'index', got {time_mode!r}")
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.time_mode = time_mode
        self.entries = []  # (time, group, file name)
        self._recovery = {}
        self.surfaces = surfaces if surfaces not in (None, False) else None
        self._surface_geometry = {}
        self.surface_collection = PVDWriter(out_dir, f"{name}_surface", time_mode) if self.surfaces is not None else None

    @property
    def path(self):
        """Path of the ``.pvd`` collection."""
        return self.out_dir / f"{self.name}.pvd"

    def add(self, results, frame, group=""):
        """Write frame ``frame`` of ``results`` and update the collection; returns the
        ``.vtu`` path. ``group`` labels the frame (e.g. the step name)."""
        key = id(results.table)
        if key not in self._recovery:
            self._recovery = {key: recovery_for(results)}
        file_name = f"{self.name}_{len(self.entries):05d}.vtu"
        write_vtu_frame(self.out_dir / file_name, results, frame, self._recovery[key])
        if self.surface_collection is not None:
            self._add_surface(results, frame, group, self._recovery[key], self._surface_name(file_name))
        self.add_file(file_name, results.times[frame], group)
        return self.out_dir / file_name

    def _surface_name(self, file_name):
        return f"{self.name}_surface_{file_name[len(self.name) + 1:]}"

    def _add_surface(self, results, frame, group, recovery, file_name):
        from femb.export.surfaces import surfaces_for

        key = id(results.table)
        if key not in self._surface_geometry:
            self._surface_geometry = {key: surfaces_for(results, self.surfaces)}
        geometry = self._surface_geometry[key]
        if geometry is None:
            return
        write_surface_frame(self.out_dir / file_name, results, frame, geometry, recovery)
        self.surface_collection.add_file(file_name, results.times[frame], group)

    def restore(self, entries):
        """Continue a collection: list ``entries`` ((time, group, file name), e.g. from a
        checkpoint) as the frames written so far and rewrite the ``.pvd`` (and the surface
        collection, listing the surface files that exist)."""
        self.entries = [(float(t), str(g), str(f)) for t, g, f in entries]
        self.write_collection()
        if self.surface_collection is not None:
            listed = [(t, g, self._surface_name(f)) for t, g, f in self.entries]
            self.surface_collection.restore([e for e in listed if (self.out_dir / e[2]).exists()])

    def add_file(self, file_name, time, group=""):
        """List an already written ``.vtu`` (relative to out_dir) and rewrite the collection."""
        self.entries.append((float(time), str(group), str(file_name)))
        self.write_collection()

    def timesteps(self):
        times = np.array([e[0] for e in self.entries])
        index = np.arange(times.size, dtype=float)
        if self.time_mode == "index":
            return index
        if self.time_mode == "time" or times.size < 2 or np.all(np.diff(times) > 0):
            return times
        return index

    def write_collection(self):
        """Rewrite the ``.pvd`` (atomically) from the frames listed so far."""
        lines = ['<?xml version="1.0"?>', '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">', "  <Collection>"]
        quoted = self.__dict__.setdefault("_quoted", {})  # (group, file) -> attribute text, built once per entry
        for ts, (_, group, file_name) in zip(self.timesteps(), self.entries):
            attrs = quoted.get((group, file_name))
            if attrs is None:
                attrs = quoted[(group, file_name)] = f'group={quoteattr(group)} part="0" file={quoteattr(file_name)}'
            lines.append(f'    <DataSet timestep="{float(ts)!r}" {attrs}/>')
        lines += ["  </Collection>", "</VTKFile>", ""]
        atomic_write_text(self.path, "\n".join(lines))


class FrameStreamer:
    """Callable that writes every frame of a growing Results not written yet.

    ``streamer(results)`` after each converged step keeps the collection on disk current;
    frames are selected by ``every`` (every n-th frame; the first is always written, the
    last when ``finish`` is called).
    """

    def __init__(self, writer, group="", every=1, on_frame=None):
        self.writer = writer
        self.group = group
        self.every = max(int(every), 1)
        self.on_frame = on_frame
        self.seen = 0
        self.written = []

    def __call__(self, results):
        while self.seen < len(results):
            k = self.seen
            self.seen += 1
            if k % self.every == 0:
                self._write(results, k)
            if self.on_frame is not None:
                self.on_frame(results, k)
        return False  # usable as an arc-length ``stop`` callback

    def resume(self, n_seen):
        """Continue after a restart: frames 0..n_seen-1 are on disk already."""
        self.seen = int(n_seen)
        self.written = [k for k in (n_seen - 1,) if k >= 0 and k % self.every == 0]

    def finish(self, results):
        """Write the remaining frames, and the last one whatever ``every`` says."""
        self(results)
        last = len(results) - 1
        if last >= 0 and (not self.written or self.written[-1] != last):
            self._write(results, last)

    def _write(self, results, k):
        self.writer.add(results, k, self.group)
        self.written.append(k)


def results_to_vtk(results, out_dir, name="results", frames=None, time_mode="auto", surfaces=None):
    """Write frames of ``results`` (all, or the indices ``frames``) as ``<name>_<k>.vtu``
    plus ``<name>.pvd`` in ``out_dir``; with ``surfaces`` (True, "auto" or a dict part ->
    outline, see PVDWriter) also the extruded section surfaces; returns the PVDWriter."""
    writer = PVDWriter(out_dir, name, time_mode, surfaces=surfaces)
    for k in range(len(results)) if frames is None else frames:
        writer.add(results, k, results.kind)
    log.info("wrote %d frames to %s", len(writer.entries), writer.path)
    return writer


def read_pvd(path):
    """List of (timestep, file path) of a ``.pvd`` collection."""
    import xml.etree.ElementTree as ET

    path = Path(path)
    root = ET.parse(path).getroot()
    return [(float(ds.get("timestep")), path.parent / ds.get("file")) for ds in root.iter("DataSet")]
