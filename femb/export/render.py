"""PNG pictures of a frame: pyvista off-screen, with a matplotlib fallback.

pyvista (VTK) renders in a child process: a VTK build without a usable off-screen OpenGL
(no X display, no EGL, no OSMesa) may crash the process instead of raising, and the child
keeps that from killing the caller. Without a display, VTK is pointed at EGL
(``VTK_DEFAULT_OPENGL_WINDOW=vtkEGLRenderWindow``) unless the variable is already set. When
pyvista fails, the frame is drawn with matplotlib as a 2-D (or 3-D) line plot of the
reference (grey) and deformed (coloured) structure; ``render_png`` returns which backend
drew the picture. If both fail, RenderError says why.
"""
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from femb.core.errors import FembError, InputError
from femb.export.vtk import read_pvd

log = logging.getLogger(__name__)


class RenderError(FembError, RuntimeError):
    """No backend could draw the picture."""


def resolve_frame(source, frame=-1):
    """The ``.vtu`` file of frame ``frame`` (an index, negative from the end) of a result
    folder (its ``results.pvd``, or its only ``.pvd``), a ``.pvd`` collection or a ``.vtu``."""
    source = Path(source)
    if not source.exists():
        raise InputError("not found", str(source))
    if source.suffix == ".vtu":
        return source
    source = _collection(source)
    try:
        entries = read_pvd(source)
    except Exception as exc:  # ElementTree and OS errors alike
        raise InputError(f"cannot read the collection ({exc})", str(source)) from None
    if not entries:
        raise InputError("the collection lists no frames", str(source))
    if not -len(entries) <= frame < len(entries):
        raise InputError(f"frame {frame} out of range: the collection has frames 0..{len(entries) - 1}", str(source))
    return entries[frame][1]


def frame_arrays(vtu):
    """({point array name: components}, {cell array name: components}) of a ``.vtu``."""
    import meshio

    m = meshio.read(vtu)
    points = {k: (1 if np.ndim(v) == 1 else np.shape(v)[1]) for k, v in m.point_data.items()}
    cells = {k: (1 if np.ndim(v[0]) == 1 else np.shape(v[0])[1]) for k, v in m.cell_data.items()}
    return points, cells


def check_scalars(vtu, scalars):
    """InputError listing the arrays of ``vtu`` when ``scalars`` is not one of them."""
    points, cells = frame_arrays(vtu)
    if scalars in points or scalars in cells:
        return
    listed = ", ".join(sorted(points)) or "none"
    listed_cells = ", ".join(sorted(c for c in cells if c not in points)) or "none"
    raise InputError(f"--scalars {scalars!r}: no such field in the frame (point fields: {listed}; cell fields: {listed_cells})",
                     str(vtu))


SHELL_LABELS = {  # shell cell fields (femb.export.fields), in the model's force and length units
    "von_mises": "von Mises stress, larger face (z = ±t/2)",
    "von_mises_top": "von Mises stress, top face (z = +t/2)",
    "von_mises_bottom": "von Mises stress, bottom face (z = −t/2)",
    "membrane_force": "|N| membrane force per length",
    "bending_moment": "|M| moment per length",
}


def colour_label(scalars, components, length_unit=None):
    """Colour-bar title: the array name (|name| for vectors), with the length unit for
    the displacement-like arrays."""
    name = f"{scalars} magnitude" if components > 1 else scalars
    name = SHELL_LABELS.get(scalars, name)
    if length_unit and scalars in ("displacement", "deformed"):
        name += f" [{length_unit}]"
    return name


def describe_frame(vtu, frame, n_frames, scalars_label, warp):
    """Default title: which frame (of how many), its time / load factor / mode, what the
    colour shows and the scale of the drawn deformation."""
    import meshio

    field = meshio.read(vtu).field_data
    value = lambda key: float(np.ravel(field[key])[0]) if key in field else None  # noqa: E731
    if value("frequency_hz") is not None:
        when = f"mode {int(value('mode')) if value('mode') is not None else frame + 1}, f = {value('frequency_hz'):.6g} Hz"
    elif value("load_factor") is not None and value("mode") is not None:
        when = f"buckling mode {int(value('mode'))}, critical load factor {value('load_factor'):.6g}"
    elif value("load_factor") is not None:
        when = f"load factor {value('load_factor'):.6g}"
    elif value("TimeValue") is not None:
        when = f"t = {value('TimeValue'):.6g}"
    else:
        when = ""
    which = f"frame {frame} of {n_frames}" if n_frames else Path(vtu).name
    shape = "true deformed shape" if warp == 1.0 else f"deformation x{warp:g} relative to each part's rigid motion"
    return f"{which}: {when}\ncolour: {scalars_label}; {shape}".replace(": \n", "\n")


def _collection(source):
    """The ``.pvd`` of a result folder (its results.pvd, or its only .pvd), else ``source``."""
    if source.is_dir():
        pvds = [source / "results.pvd"] if (source / "results.pvd").exists() else sorted(source.glob("*.pvd"))
        if len(pvds) != 1:
            raise InputError(f"expected one .pvd collection (results.pvd) in the folder, found {len(pvds)}", str(source))
        return pvds[0]
    return source


def render_png(source, frame, png_path, scalars="displacement", warp=1.0, backend="auto", window_size=(1024, 768), title=None,
               label=None, length_unit=None):
    """Draw frame ``frame`` (index, negative from the end; ignored for a ``.vtu``) of
    ``source`` (result folder, ``.pvd`` or ``.vtu``) to ``png_path``.

    scalars: point or cell array to colour by (vectors by magnitude); an array the frame
    does not have is an InputError listing those it has. warp: scale of the deformation
    drawn; each part's rigid motion (the best-fit rotation and translation of its nodes)
    is drawn as it is, only the deformation relative to it is scaled, so a mechanism stays
    where it is (see :func:`warped_points`); 1 draws the computed shape. backend: "auto"
    (pyvista, then matplotlib), "pyvista" or "matplotlib". title: text at the top (default:
    the frame, its time / load factor / mode, what the colour shows and the warp);
    label: title of the colour bar (default the array name, with ``length_unit`` for
    displacements); length_unit: unit of the coordinates, shown on the axes ("x [m]";
    default "x", "y", "z" with "(model length units)"). Returns the name of the backend
    that drew the picture.
    """
    vtu = resolve_frame(source, frame)
    check_scalars(vtu, scalars)
    if not (np.isfinite(warp) and warp >= 0):
        raise InputError(f"--warp must be a finite number >= 0, got {warp!r}")
    points, cells = frame_arrays(vtu)
    label = label or colour_label(scalars, points.get(scalars, cells.get(scalars, 1)), length_unit)
    if title is None:
        n_frames, index = None, frame
        if Path(source).suffix != ".vtu":
            try:
                entries = read_pvd(_collection(Path(source)))
                n_frames, index = len(entries), frame % len(entries)
            except (InputError, OSError):
                pass
        title = describe_frame(vtu, index, n_frames, label, warp)
    png_path = Path(png_path)
    png_path.parent.mkdir(parents=True, exist_ok=True)
    reasons = []
    unit = length_unit or ""
    if backend in ("auto", "pyvista"):
        ok, why = _pyvista_in_child(vtu, png_path, scalars, warp, window_size, title, label, unit)
        if ok:
            return "pyvista"
        reasons.append(f"pyvista: {why}")
        log.warning("pyvista could not render off-screen (%s); falling back to matplotlib", why)
    if backend in ("auto", "matplotlib"):
        try:
            render_matplotlib(vtu, png_path, scalars, warp, window_size, title, label, unit)
            return "matplotlib"
        except Exception as exc:  # any plotting failure is reported with the others
            reasons.append(f"matplotlib: {type(exc).__name__}: {exc}")
    if backend not in ("auto", "pyvista", "matplotlib"):
        raise InputError(f"unknown render backend {backend!r} (auto, pyvista, matplotlib)")
    raise RenderError("cannot render a PNG: " + "; ".join(reasons) + " (pyvista needs an X display, EGL or OSMesa; install matplotlib for the fallback)")


def _pyvista_in_child(vtu, png_path, scalars, warp, window_size, title=None, label=None, length_unit="", timeout=180):
    env = dict(os.environ)
    if not env.get("DISPLAY"):
        env.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")
    cmd = [sys.executable, "-m", "femb.export.render", str(vtu), str(png_path), scalars, repr(float(warp)), str(window_size[0]), str(window_size[1]),
           "" if title is None else title, "" if label is None else label, length_unit or ""]
    if png_path.exists():
        png_path.unlink()
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, f"timed out after {timeout} s"
    if proc.returncode == 0 and png_path.exists() and png_path.stat().st_size > 0:
        return True, ""
    tail = " ".join((proc.stderr or proc.stdout).split()[-30:])
    return False, f"exit code {proc.returncode}" + (f": {tail}" if tail else "")


def _rigid_fit(ref, cur):
    """Rotation R and the centroids (c_ref, c_cur) of the best rigid motion
    x ≈ c_cur + R (X − c_ref) of the points ``ref`` onto ``cur`` (Kabsch; in the x-y plane
    when every point has z = 0)."""
    c_ref, c_cur = ref.mean(axis=0), cur.mean(axis=0)
    dims = 2 if np.allclose(ref[:, 2], 0.0) and np.allclose(cur[:, 2], 0.0) else 3
    H = (ref[:, :dims] - c_ref[:dims]).T @ (cur[:, :dims] - c_cur[:dims])
    U, _, Vt = np.linalg.svd(H)
    D = np.eye(dims)
    D[-1, -1] = np.sign(np.linalg.det(Vt.T @ U.T)) or 1.0
    R = np.eye(3)
    R[:dims, :dims] = Vt.T @ D @ U.T
    return R, c_ref, c_cur


def warped_points(ref, disp, warp, groups=None):
    """Points (n, 3) drawn for a frame: reference ``ref`` (n, 3) plus displacement ``disp``
    (n, k ≤ 3) with the deformation scaled by ``warp``. The deformation is taken relative
    to the rigid motion of each group of nodes (``groups``: list of node-index arrays, e.g.
    the nodes of each part; default one group of all nodes): x = r + warp·(x₁ − r) with
    x₁ = X + u the computed position and r = c + R (X − c₀) the group's best-fit rigid
    motion, so a moving mechanism is drawn where it is and only its flexing is magnified.
    A node in several groups gets the mean of its groups' points; ``warp = 1`` gives x₁."""
    ref = np.asarray(ref, dtype=float)
    cur = ref.copy()
    disp = np.asarray(disp, dtype=float).reshape(len(ref), -1)
    cur[:, : disp.shape[1]] += disp
    if warp == 1.0 or len(ref) == 0:
        return cur
    groups = [np.arange(len(ref))] if not groups else [np.asarray(g, dtype=np.int64) for g in groups]
    total, count = np.zeros_like(ref), np.zeros(len(ref))
    for g in groups:
        if g.size == 0:
            continue
        R, c_ref, c_cur = _rigid_fit(ref[g], cur[g])
        rigid = c_cur + (ref[g] - c_ref) @ R.T
        total[g] += rigid + warp * (cur[g] - rigid)
        count[g] += 1
    out = cur.copy()
    seen = count > 0
    out[seen] = total[seen] / count[seen, None]
    return out


def part_groups(mesh):
    """Node-index arrays, one per ``part_id`` of the cells of a meshio mesh (one group of
    all nodes used by cells when there is no part_id)."""
    ids = mesh.cell_data.get("part_id")
    nodes = {}
    for k, block in enumerate(mesh.cells):
        conn = np.asarray(block.data)
        pid = np.zeros(len(conn), dtype=int) if ids is None else np.asarray(ids[k]).astype(int).ravel()
        for p in np.unique(pid):
            nodes.setdefault(int(p), []).append(conn[pid == p].ravel())
    return [np.unique(np.concatenate(v)) for _, v in sorted(nodes.items())]


def _frame_arrays(vtu, warp):
    """Reference and drawn (:func:`warped_points`, per part) points, each (n, 3), of a ``.vtu``."""
    import meshio

    m = meshio.read(vtu)
    ref = np.asarray(m.points, dtype=float)
    if ref.shape[1] < 3:
        ref = np.column_stack([ref, np.zeros((len(ref), 3 - ref.shape[1]))])
    disp = m.point_data.get("displacement", np.zeros_like(ref))
    return ref, warped_points(ref, disp, warp, part_groups(m))


def axis_titles(length_unit=""):
    """("x [unit]", "y [unit]", "z [unit]"), or with "(model length units)" on x and y when
    the unit is not known."""
    if length_unit:
        return tuple(f"{a} [{length_unit}]" for a in "xyz")
    return ("x (model length units)", "y (model length units)", "z (model length units)")


def render_pyvista(vtu, png_path, scalars="displacement", warp=1.0, window_size=(1024, 768), title=None, label=None, length_unit=""):
    """Draw with pyvista off-screen in this process (used by the child process)."""
    import pyvista as pv

    pv.OFF_SCREEN = True
    grid = pv.read(str(vtu))
    ref = grid.copy()
    ref_pts, deformed = _frame_arrays(vtu, warp)
    grid.points = deformed
    values, name, preference = None, scalars, "point"
    for data, pref in ((grid.point_data, "point"), (grid.cell_data, "cell")):
        if scalars in data.keys():
            arr = np.asarray(data[scalars], dtype=float)
            values = np.linalg.norm(arr, axis=1) if arr.ndim == 2 else arr
            name = f"|{scalars}|" if arr.ndim == 2 else scalars
            preference = pref
            break
    plotter = pv.Plotter(off_screen=True, window_size=list(window_size))
    plotter.set_background("white")
    if all(c.dimension <= 1 for c in grid.cell):
        plotter.add_mesh(ref, color="lightgray", line_width=2, opacity=0.7)
    else:  # shells (and slabs): the reference as its outline, not a surface hiding the colours
        outline = ref.extract_surface().extract_feature_edges(feature_angle=30.0, boundary_edges=True, feature_edges=True,
                                                              manifold_edges=False, non_manifold_edges=False)
        plotter.add_mesh(outline, color="gray", line_width=1.5)
    if values is not None:
        (grid.point_data if preference == "point" else grid.cell_data)[name] = values
        # a vertical bar at the right edge, beside the plot area (the axes are kept left of it)
        bar = {"title": (label or name) + "\n", "color": "black", "vertical": True, "position_x": 0.84, "position_y": 0.12,
               "width": 0.05, "height": 0.7, "title_font_size": 14, "label_font_size": 12, "fmt": "%.3g"}
        plotter.add_mesh(grid, scalars=name, preference=preference, line_width=5, cmap="viridis", scalar_bar_args=bar)
    else:
        plotter.add_mesh(grid, color="steelblue", line_width=5)
    if title:
        plotter.add_text(title, font_size=11, color="black", position="upper_left")
    _axes_and_save(plotter, np.vstack([ref_pts, deformed]), png_path, font_size=12, zoom=1.1, length_unit=length_unit,
                   window_size=window_size)


def _axes_and_save(plotter, points, png_path, font_size, zoom, length_unit="", window_size=None, plot_width=0.8):
    """Labelled bounds around ``points`` (n, 3) with the axis titles of ``length_unit`` —
    a flat x-y view with parallel projection when every point lies in z = 0, placed in the
    left ``plot_width`` of the window (the colour bar has the rest) — then the off-screen
    screenshot to ``png_path``."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    extent = float(np.max(hi - lo)) or 1.0
    (x0, x1, nx), (y0, y1, ny), (z0, z1, nz) = (_nice_range(a, b, extent) for a, b in zip(lo, hi))
    xt, yt, zt = axis_titles(length_unit)
    axes = dict(bounds=[x0, x1, y0, y1, z0, z1], xtitle=xt, ytitle=yt, color="black", location="outer",
                font_size=font_size, fmt="%.3g", n_xlabels=nx, n_ylabels=ny)
    if np.allclose(points[:, 2], 0.0):
        axes["bounds"][4:] = [0.0, 0.0]
        plotter.show_bounds(show_zaxis=False, show_zlabels=False, grid=False, **axes)
        plotter.view_xy()
        plotter.enable_parallel_projection()
        width, height = window_size or plotter.window_size
        aspect = width / height
        # half-height of the view: the bounds plus room for tick labels and titles (about 25 %)
        scale = 0.5 * 1.25 * max((y1 - y0) / 0.8, (x1 - x0) / (aspect * (plot_width - (0.1 if plot_width < 1.0 else 0.0))), 1e-12) / zoom
        left = 0.1 if plot_width < 1.0 else 0.0  # room for the y tick labels and title
        # the plot's centre at (left + plot_width)/2 of the window width
        cx = 0.5 * (x0 + x1) + scale * aspect * (1.0 - (2.0 * left + plot_width))
        cy = 0.5 * (y0 + y1) + 0.04 * scale
        camera = plotter.camera
        distance = float(np.linalg.norm(np.subtract(camera.position, camera.focal_point)))
        camera.focal_point = (cx, cy, 0.0)
        camera.position = (cx, cy, distance)
        camera.parallel_scale = scale
    else:
        plotter.show_bounds(ztitle=zt, n_zlabels=nz, **axes)
        plotter.camera.zoom(0.85)
    plotter.screenshot(str(png_path))
    plotter.close()


def _nice_range(lo, hi, extent):
    """(a, b, n): a ≤ lo and b ≥ hi on a round step (1, 2 or 5 × 10^k, about a fifth of
    ``extent``), and the number n of tick labels from a to b."""
    extent = max(extent, abs(hi - lo), 1e-12)
    raw = extent / 5.0
    base = 10.0 ** np.floor(np.log10(raw))
    step = min((m * base for m in (1.0, 2.0, 5.0, 10.0) if m * base >= raw), default=10.0 * base)
    a, b = np.floor(lo / step - 1e-9) * step, np.ceil(hi / step + 1e-9) * step
    if b - a < step:
        a, b = a - step, b + step
    return float(a), float(b), int(round((b - a) / step)) + 1


def _segments(cells):
    """Line segments (k, 2) node pairs of meshio cell blocks (edges of faces)."""
    segs = []
    for block in cells:
        c = np.asarray(block.data)
        if block.type == "line":
            segs.append(c)
        elif block.type == "line3":
            segs += [c[:, [0, 2]], c[:, [2, 1]]]
        elif block.type in ("triangle", "quad"):
            n = c.shape[1]
            segs += [c[:, [i, (i + 1) % n]] for i in range(n)]
    return np.vstack(segs) if segs else np.zeros((0, 2), dtype=int)


def render_matplotlib(vtu, png_path, scalars="displacement", warp=1.0, window_size=(1024, 768), title=None, label=None,
                      length_unit=""):
    """Draw the reference (grey) and deformed (coloured by ``scalars`` at the nodes) line
    structure with matplotlib (Agg canvas, no display needed)."""
    import meshio
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    m = meshio.read(vtu)
    ref, deformed = _frame_arrays(vtu, warp)
    segs = _segments(m.cells)
    if scalars in m.point_data:
        arr = np.asarray(m.point_data[scalars], dtype=float)
        node_val = np.linalg.norm(arr, axis=1) if arr.ndim == 2 else arr
        seg_val = 0.5 * (node_val[segs[:, 0]] + node_val[segs[:, 1]])
    elif scalars in m.cell_data and all(b.type == "line" for b in m.cells):  # one segment per cell, in block order
        blocks = [np.asarray(v, dtype=float) for v in m.cell_data[scalars]]
        seg_val = np.concatenate([np.linalg.norm(v, axis=1) if v.ndim == 2 else v for v in blocks])
    else:
        seg_val = np.zeros(len(segs))
    fig = Figure(figsize=(window_size[0] / 100, window_size[1] / 100), dpi=100)
    FigureCanvasAgg(fig)
    planar = np.allclose(ref[:, 2], 0.0) and np.allclose(deformed[:, 2], 0.0)
    if planar:
        from matplotlib.collections import LineCollection

        ax = fig.add_subplot(1, 1, 1)
        ax.add_collection(LineCollection(ref[segs][:, :, :2], colors="lightgray", linewidths=2))
        lc = LineCollection(deformed[segs][:, :, :2], array=seg_val, cmap="viridis", linewidths=3)
        ax.add_collection(lc)
        both = np.vstack([ref[:, :2], deformed[:, :2]])
        lo, hi = both.min(axis=0), both.max(axis=0)
        pad = 0.05 * max(float(np.max(hi - lo)), 1e-12)
        ax.set_xlim(lo[0] - pad, hi[0] + pad)
        ax.set_ylim(lo[1] - pad, hi[1] + pad)
        ax.set_aspect("equal")
    else:
        from mpl_toolkits.mplot3d.art3d import Line3DCollection

        ax = fig.add_subplot(1, 1, 1, projection="3d")
        ax.add_collection3d(Line3DCollection(ref[segs], colors="lightgray", linewidths=2))
        lc = Line3DCollection(deformed[segs], array=seg_val, cmap="viridis", linewidths=3)
        ax.add_collection3d(lc)
        both = np.vstack([ref, deformed])
        ax.auto_scale_xyz(both[:, 0], both[:, 1], both[:, 2])
    xt, yt, zt = axis_titles(length_unit)
    ax.set_xlabel(xt)
    ax.set_ylabel(yt)
    if not planar:
        ax.set_zlabel(zt)
    fig.colorbar(lc, ax=ax, label=label or scalars, shrink=0.7, pad=0.12 if not planar else 0.04)
    if title:
        ax.set_title(title, fontsize=10)
    fig.savefig(png_path)


# ----------------------------------------------------------------------------- snapshots
def _snapshot_arrays(data):
    """Reference (n, 3), line connectivity (k, 2) and [(label, (n, 3) points)] of a
    snapshot request (see ``render_snapshots``); checks the shapes."""
    ref = np.asarray(data["reference"], dtype=float).reshape(-1, 3)
    lines = np.asarray(data["lines"], dtype=np.int64).reshape(-1, 2)
    if lines.size and (lines.min() < 0 or lines.max() >= len(ref)):
        raise InputError("snapshot lines refer to points that do not exist")
    frames = []
    for k, f in enumerate(data.get("frames", [])):
        pts = np.asarray(f["points"], dtype=float).reshape(-1, 3)
        if pts.shape != ref.shape:
            raise InputError(f"snapshot frame {k} has {len(pts)} points, the reference {len(ref)}")
        frames.append((str(f.get("label", k)), pts))
    return ref, lines, frames


def render_snapshots(requests, backend="auto", window_size=(900, 650), timeout=300):
    """Draw line-structure snapshots to PNGs; returns the backend used per request
    ("pyvista", "matplotlib") or None where both failed (never raises for a picture).

    requests : list of (data, png_path) with data = {"title": str, "reference": (n, 3)
        reference points, "lines": (k, 2) point pairs, "frames": [{"label": str,
        "points": (n, 3) deformed points}]}: the reference structure in grey and every
        frame in its own colour (early to late). All pyvista pictures are drawn in one
        child process (VTK starts once); those it cannot draw fall back to matplotlib.
    """
    import json
    import tempfile

    requests = [(data, Path(png)) for data, png in requests]
    done = [None] * len(requests)
    if not requests:
        return done
    for _, png in requests:
        png.parent.mkdir(parents=True, exist_ok=True)
        if png.exists():
            png.unlink()
    if backend in ("auto", "pyvista"):
        env = dict(os.environ)
        if not env.get("DISPLAY"):
            env.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")
        with tempfile.TemporaryDirectory(prefix="femb-snapshots-") as tmp:
            job = Path(tmp) / "snapshots.json"
            job.write_text(json.dumps({"window_size": list(window_size),
                                       "requests": [{"data": d, "png": str(p)} for d, p in requests]}), encoding="utf-8")
            try:
                proc = subprocess.run([sys.executable, "-m", "femb.export.render", "--snapshots", str(job)], env=env,
                                      capture_output=True, text=True, timeout=timeout)
                if proc.returncode != 0:
                    log.warning("pyvista snapshots: exit code %s: %s", proc.returncode, " ".join((proc.stderr or "").split()[-30:]))
            except subprocess.TimeoutExpired:
                log.warning("pyvista snapshots timed out after %s s", timeout)
        for i, (_, png) in enumerate(requests):
            if png.exists() and png.stat().st_size > 0:
                done[i] = "pyvista"
    if backend in ("auto", "matplotlib"):
        for i, (data, png) in enumerate(requests):
            if done[i] is None:
                try:
                    snapshot_matplotlib(data, png, window_size)
                    done[i] = "matplotlib"
                except Exception as exc:  # noqa: BLE001 - a picture never stops the caller
                    log.warning("could not draw snapshot %s: %s: %s", png, type(exc).__name__, exc)
    return done


def snapshot_pyvista(data, png_path, window_size=(900, 650)):
    """Draw one snapshot request with pyvista off-screen in this process."""
    import matplotlib
    import pyvista as pv

    ref, lines, frames = _snapshot_arrays(data)
    cells = np.column_stack([np.full(len(lines), 2), lines]).ravel()

    def poly(points):
        mesh = pv.PolyData(points)
        mesh.lines = cells
        return mesh

    plotter = pv.Plotter(off_screen=True, window_size=list(window_size))
    plotter.set_background("white")
    plotter.add_mesh(poly(ref), color="lightgray", line_width=3, label="reference")
    cmap = matplotlib.colormaps["viridis"]
    for k, (label, pts) in enumerate(frames):
        colour = cmap(k / max(len(frames) - 1, 1))[:3]
        plotter.add_mesh(poly(pts), color=colour, line_width=5, label=label)
        plotter.add_mesh(pv.PolyData(pts), color=colour, point_size=9, render_points_as_spheres=True)
    if data.get("title"):
        plotter.add_text(str(data["title"]), font_size=11, color="black")
    if frames:
        plotter.add_legend(bcolor="white", face="line", size=(0.14, 0.035 * (len(frames) + 1)), loc="upper right")
    _axes_and_save(plotter, np.vstack([ref] + [p for _, p in frames]), png_path, font_size=11, zoom=0.9, window_size=window_size,
                   plot_width=1.0)


def snapshot_matplotlib(data, png_path, window_size=(900, 650)):
    """Draw one snapshot request with matplotlib (Agg; 3-D axes for spatial structures)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    ref, lines, frames = _snapshot_arrays(data)
    fig = Figure(figsize=(window_size[0] / 100, window_size[1] / 100), dpi=100)
    FigureCanvasAgg(fig)
    import matplotlib

    cmap = matplotlib.colormaps["viridis"]
    planar = np.allclose(np.vstack([ref] + [p for _, p in frames])[:, 2], 0.0)
    ax = fig.add_subplot(1, 1, 1) if planar else fig.add_subplot(1, 1, 1, projection="3d")
    dims = 2 if planar else 3

    def draw(points, label, **style):
        for n, (i, j) in enumerate(lines):
            seg = points[[i, j], :dims].T
            ax.plot(*seg, label=label if n == 0 else None, **style)

    draw(ref, "reference", color="lightgray", linewidth=2)
    for k, (label, pts) in enumerate(frames):
        draw(pts, label, color=cmap(k / max(len(frames) - 1, 1)), linewidth=2.5, marker="o", markersize=3)
    if planar:
        ax.set_aspect("equal")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    if data.get("title"):
        ax.set_title(str(data["title"]), fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png_path)


def _snapshots_child(job_file):
    """Child process of ``render_snapshots``: draw every request, skipping failures."""
    import json

    job = json.loads(Path(job_file).read_text(encoding="utf-8"))
    size = tuple(job.get("window_size", (900, 650)))
    for req in job["requests"]:
        try:
            snapshot_pyvista(req["data"], req["png"], size)
        except Exception as exc:  # noqa: BLE001 - the parent falls back to matplotlib
            print(f"snapshot {req['png']}: {type(exc).__name__}: {exc}", file=sys.stderr)


if __name__ == "__main__":  # child process of render_png / render_snapshots
    if sys.argv[1] == "--snapshots":
        _snapshots_child(sys.argv[2])
        sys.exit(0)
    _vtu, _png, _scalars, _warp, _w, _h = sys.argv[1:7]
    _title, _label, _unit = (sys.argv[7:10] + ["", "", ""])[:3]
    render_pyvista(_vtu, _png, _scalars, float(_warp), (int(_w), int(_h)), _title or None, _label or None, _unit)
