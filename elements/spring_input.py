"""Input of the discrete springs and dampers: their keywords in ``Model.add_discrete`` and
case files, the user force laws (``law``, ``damper_law``; femb.elements.force_laws) built,
checked and packed after the parameters of a property row, and the specs of the spring
types built from them.

- Every spring: ``law``/``law_range`` and ``damper_law``/``damper_range`` (and ``smooth``)
  become ForceLaws (``read_laws``); the damper law must dissipate; the linear stiffness
  defaults to 0 when a law is given (``spec.law_stiffness``). Property rows with a law end
  with [n_s, n_d, spring law, damper law] (``pack_laws``; femb.elements.spring_laws).
- Translational and planar rotational springs (``spring_spec``): a bushing's law acts on
  the deflection |d| ≥ 0 and needs F(0) = 0.
- 3-D rotational springs (femb.elements.rotational_springs3d): the convenience keywords
  ``k``, ``c``, ``theta0``, ``axis``, ``second`` (``spec.parameter_aliases``), checks of
  the joint frame and the constants (``spec.prepare_values``); their laws act on the
  twist about the axis.
"""
import numpy as np

from femb.core.errors import InputError

from .base import ALL_MASS_KINDS, ElementSpec
from .force_laws import as_force_law, attach_laws, check_dissipative

LAW_KEYWORDS = ("law", "law_range", "damper_law", "damper_range", "smooth")


# ---------------------------------------------------------------------------- force laws of every spring


def read_laws(values, where, check_law=None):
    """(spring law, damper law) as ForceLaws (or None) from ``law``/``law_range`` and
    ``damper_law``/``damper_range`` (and ``smooth``) of ``values``; ``check_law(law,
    where)`` checks the spring law further, the damper law must dissipate (InputError
    naming ``where``)."""
    smooth = bool(values.get("smooth", False))
    law = damper = None
    if values.get("law") is not None:
        law = as_force_law(values["law"], f"{where}: law", values.get("law_range"), smooth)
        if check_law is not None:
            check_law(law, f"{where}: law")
    if values.get("damper_law") is not None:
        damper = as_force_law(values["damper_law"], f"{where}: damper_law", values.get("damper_range"), smooth)
        check_dissipative(damper, f"{where}: damper_law")
    return law, damper


def pack_laws(law, damper):
    """Property columns after the parameters: [n_s, n_d, spring law, damper law] (n_s, n_d
    the points of the two laws, 0 for none; nothing without laws)."""
    if law is None and damper is None:
        return np.zeros(0)
    out = [np.array([0.0 if law is None else law.n, 0.0 if damper is None else damper.n])]
    out += [x.packed() for x in (law, damper) if x is not None]
    return np.concatenate(out)


def _without_law_keywords(values):
    """``values`` without the law keywords (in place; returned)."""
    for key in LAW_KEYWORDS:
        values.pop(key, None)
    return values


def direct_values_only(what, examples):
    """``properties(material, section)`` of element types that take direct values only."""

    def properties(material, section):
        raise ValueError(f"{what} take direct values ({examples}, ...) via Model.add_discrete, not a material and section")

    properties.__doc__ = f"{what.capitalize()} take their parameters directly (``Model.add_discrete``)."
    return properties


# ---------------------------------------------------------------------------- translational and planar rotational springs


def _check_law(name, law, where):
    """Element-type checks of a spring law: a bushing's law acts on |d| ≥ 0 and needs
    F(0) = 0 (its force direction d/|d| is undefined at d = 0)."""
    if name.startswith("bushing"):
        F0 = float(law(np.array([0.0]))[0])
        if abs(F0) > 1e-12 * law.scale():
            raise InputError(f"{where}: a bushing's law acts on the deflection |d| ≥ 0 and needs F(0) = 0, got F(0) = {F0:g}")


def _laws(name, values, where):
    """(spring law, damper law) of spring type ``name`` (``read_laws``); a range given
    without its law is an error."""
    if values.get("law") is None and values.get("law_range") is not None:
        raise InputError(f"{where}: law_range is given without a law")
    if values.get("damper_law") is None and values.get("damper_range") is not None:
        raise InputError(f"{where}: damper_range is given without a damper_law")
    return read_laws(values, where, lambda law, at: _check_law(name, law, at))


def _prepare(name):
    """``prepare_values(values, where)`` of spring type ``name`` (Model.add_discrete):
    builds the ForceLaws of ``law``/``damper_law`` (checked, errors naming ``where``),
    drops the helper keywords and lets ``k`` default to 0 when a law (of the spring or of
    the damper) is given."""

    def prepare(values, where):
        values = dict(values)
        law, damper = _laws(name, values, where)
        return attach_laws(_without_law_keywords(values), law, damper, "k")

    return prepare


def _packer(name):
    """``pack(tables)`` of spring type ``name``: [n_s, n_d, spring law, damper law]."""

    def pack(tables):
        return pack_laws(*_laws(name, tables, f"element {name!r}"))

    return pack


_properties = direct_values_only("springs and dampers", "k, c")


# ---------------------------------------------------------------------------- 3-D rotational springs


# the joint frame of a 3-D rotational spring without axis/second: axis x, second vector y
DEFAULT_FRAME = {"ax": 1.0, "ay": 0.0, "az": 0.0, "bx": 0.0, "by": 1.0, "bz": 0.0}


def _vector(value, name, where):
    v = np.asarray(value, dtype=np.float64).ravel()
    if v.size != 3 or not np.all(np.isfinite(v)):
        raise InputError(f"{where}: {name} must be 3 finite numbers, got {value!r}")
    return v


def _prepare_rotational3d(values, where):
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
    law, damper = read_laws(values, where)
    return attach_laws(_without_law_keywords(values), law, damper, "kx")  # the twist law carries the twist stiffness


def _pack_rotational3d(tables):
    """``pack(tables)`` of the 3-D rotational springs: [n_s, n_d, twist law, twist damper
    law] (nothing without laws)."""
    return pack_laws(*read_laws(tables, "rotational spring"))


_properties_rotational3d = direct_values_only("rotational springs", "k, c, axis")

# convenience keywords (Model.add_discrete, case-file parameters): key -> (case-file
# conversion, the parameters it provides)
_ROTATIONAL3D_ALIASES = {
    "k": ("number", ("kx", "ky", "kz")),
    "c": ("number", ("cx", "cy", "cz")),
    "theta0": ("vector", ("theta0x", "theta0y", "theta0z")),
    "axis": ("vector", ("ax", "ay", "az")),
    "second": ("vector", ("bx", "by", "bz")),
}


# ---------------------------------------------------------------------------- specs


def spring_spec(name, cell_type, n_nodes, dim, node_dofs, params, defaults, resultant_names, kernels, requires_length,
                description, oriented=False):
    """Spec of a spring type: massless, direct values only, optional force laws whose
    tables end the property rows. Translational and planar rotational springs (laws on
    ``k``), or, with ``oriented``, the 3-D rotational springs (convenience keywords and
    frame checks, laws on the twist stiffness ``kx``)."""
    if oriented:
        entry = dict(properties=_properties_rotational3d, prepare_values=_prepare_rotational3d,
                     parameter_aliases=_ROTATIONAL3D_ALIASES, law_stiffness="kx", pack=_pack_rotational3d)
    else:
        entry = dict(properties=_properties, prepare_values=_prepare(name), law_stiffness="k", pack=_packer(name))
    return ElementSpec(
        name=name,
        cell_type=cell_type,
        n_nodes=n_nodes,
        dim=dim,
        node_dofs=node_dofs,
        params=params,
        resultant_names=resultant_names,
        kernels=kernels,
        constant_mass=ALL_MASS_KINDS,
        oriented=oriented,
        requires_length=requires_length,
        description=description,
        defaults=defaults,
        table_params=("law", "damper_law"),
        **entry,
    )
