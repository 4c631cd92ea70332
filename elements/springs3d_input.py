"""Input of the 3-D rotational springs (femb.elements.springs3d): the convenience keywords
of ``Model.add_discrete`` and case files (``k``, ``c``, ``theta0``, ``axis``, ``second``),
checks of the joint frame and the constants, and the twist force laws (``law``,
``damper_law``; femb.elements.force_laws) packed after the parameters of a property row."""
import numpy as np

from femb.core.errors import InputError

from .force_laws import as_force_law, attach_laws, check_dissipative

DEFAULT_FRAME = {"ax": 1.0, "ay": 0.0, "az": 0.0, "bx": 0.0, "by": 1.0, "bz": 0.0}


def _vector(value, name, where):
    v = np.asarray(value, dtype=np.float64).ravel()
    if v.size != 3 or not np.all(np.isfinite(v)):
        raise InputError(f"{where}: {name} must be 3 finite numbers, got {value!r}")
    return v


def prepare_values(values, where):
    """Convenience keywords of ``Model.add_discrete``: ``k``/``c`` (the three stiffnesses /
    damping constants; per-axis keys given too win), ``theta0`` (3,), ``axis`` (3,) and
    ``second`` (3,) of the joint frame, and the twist laws ``law``/``law_range``,
    ``damper_law``/``damper_range``, ``smooth`` (built into ForceLaws). Checks the frame,
    the constants and the laws (InputError naming ``where``)."""
    values = dict(values)
    for short, names in (("k", ("kx", "ky", "kz")), ("c", ("cx", "cy", "cz"))):
        if short in values:
            val = float(values.pop(short))
            for nm in names:
                values.setdefault(nm, val)
    if "theta0" in values:
        th = _vector(values.pop("theta0"), "theta0", where)
        for nm, x in zip(("theta0x", "theta0y", "theta0z"), th):
            values[nm] = float(x)
    axis = values.pop("axis", None)
    second = values.pop("second", None)
    if axis is not None:
        n = _vector(axis, "axis", where)
        if not np.linalg.norm(n) > 0.0:
            raise InputError(f"{where}: the axis must be non-zero")
        values.update(ax=n[0], ay=n[1], az=n[2])
        if second is None:
            nn = n / np.linalg.norm(n)
            if abs(nn[1]) > 0.9:  # the default second vector y would be (nearly) parallel
                second = np.cross(nn, np.eye(3)[np.argmin(np.abs(nn))])  # the 3-D joints' normal rule
    if second is not None:
        b = _vector(second, "second", where)
        values.update(bx=b[0], by=b[1], bz=b[2])
    a = np.array([values.get(k, DEFAULT_FRAME[k]) for k in ("ax", "ay", "az")], dtype=float)
    b = np.array([values.get(k, DEFAULT_FRAME[k]) for k in ("bx", "by", "bz")], dtype=float)
    if not np.linalg.norm(a) > 0.0:
        raise InputError(f"{where}: the joint axis must be non-zero")
    if np.linalg.norm(np.cross(a, b)) <= 1e-9 * np.linalg.norm(a) * np.linalg.norm(b):
        raise InputError(f"{where}: the second vector {b.tolist()} of the joint frame is parallel to the axis {a.tolist()}")
    for key in ("kx", "ky", "kz", "cx", "cy", "cz"):
        if key in values and float(values[key]) < 0.0:
            raise InputError(f"{where}: {key} must be ≥ 0, got {values[key]}")
    law, damper = _laws(values, where)
    for key in ("law", "law_range", "damper_law", "damper_range", "smooth"):
        values.pop(key, None)
    return attach_laws(values, law, damper, "kx")  # the twist law carries the twist stiffness


def _laws(values, where):
    """(twist spring law, twist damper law) as ForceLaws (or None) from ``law``/``law_range``
    and ``damper_law``/``damper_range`` (and ``smooth``); the damper law must dissipate."""
    smooth = bool(values.get("smooth", False))
    law = damper = None
    if values.get("law") is not None:
        law = as_force_law(values["law"], f"{where}: law", values.get("law_range"), smooth)
    if values.get("damper_law") is not None:
        damper = as_force_law(values["damper_law"], f"{where}: damper_law", values.get("damper_range"), smooth)
        check_dissipative(damper, f"{where}: damper_law")
    return law, damper


def pack(tables):
    """Property columns after the parameters: [n_s, n_d, spring law, damper law] (nothing
    without laws)."""
    law, damper = _laws(tables, "rotational spring")
    if law is None and damper is None:
        return np.zeros(0)
    out = [np.array([0.0 if law is None else law.n, 0.0 if damper is None else damper.n])]
    out += [x.packed() for x in (law, damper) if x is not None]
    return np.concatenate(out)


# convenience keywords (Model.add_discrete, case-file parameters): key -> (case-file
# conversion, the parameters it provides)
ALIASES = {
    "k": ("number", ("kx", "ky", "kz")),
    "c": ("number", ("cx", "cy", "cz")),
    "theta0": ("vector", ("theta0x", "theta0y", "theta0z")),
    "axis": ("vector", ("ax", "ay", "az")),
    "second": ("vector", ("bx", "by", "bz")),
}
