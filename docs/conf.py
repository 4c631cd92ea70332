"""Sphinx configuration of femb's API reference (``make docs``).

The element and joint catalogues are generated from the registries at build time
(``femb.elements.available()``/``get_spec``; ``femb.model.joints`` and the case-file keys
of ``femb.case.multibody``) into ``docs/_generated/`` (not in git).
"""
import inspect
from pathlib import Path

HERE = Path(__file__).resolve().parent
GENERATED = HERE / "_generated"

project = "femb"
author = "the femb developers"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "README.md"]
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
html_theme = "alabaster"
html_static_path: list = []


def _row(*cells):
    return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


def element_catalogue():
    """Markdown table of every registered element type, from its ElementSpec."""
    from femb import elements
    from femb.elements.base import MASS_KINDS

    kind_names = {v: k for k, v in MASS_KINDS.items()}
    lines = ["# Element catalogue", "",
             "Generated from the registry (`femb.elements.available()`, `femb.elements.get_spec(name)`). "
             "Parameters are the columns of the element's property row, in the model's consistent units; "
             "`Model.add_part` derives them from a Material and a Section, or takes them as `values`; "
             "`Model.add_discrete` takes them as keywords. Constant mass kinds: the mass kinds whose matrix does not "
             "depend on the configuration (the energy-conserving mid-point scheme needs one; "
             "see [Mass kinds](../dynamics.md#mass-kinds)).", "",
             _row("element", "cell type", "nodes", "dim", "DOFs per node", "parameters", "defaults", "constant mass kinds"),
             _row(*["---"] * 8)]
    details = []
    for name in elements.available():
        spec = elements.get_spec(name)
        kinds = [kind_names[k] for k in spec.constant_mass] or ["none (nodal rigid-body rotary inertia)" if spec.oriented else "none"]
        defaults = ", ".join(f"{k} = {v:g}" for k, v in sorted(spec.defaults.items())) or "–"
        lines.append(_row(f"[`{name}`](#{name.replace('_', '-')})", f"`{spec.cell_type}`", spec.n_nodes, spec.dim,
                          ", ".join(spec.node_dofs), ", ".join(spec.params) or "–", defaults, ", ".join(kinds)))
        details += [f"## {name}", "", spec.description or "", "",
                    f"Section resultants: {', '.join(spec.resultant_names) or 'none'}." if hasattr(spec, "resultant_names") else "", ""]
    details += ["## Superelements", "",
                "`superelement_<n>n_<k>q`: co-rotated Craig–Bampton superelement with n boundary nodes (ux, uy, uz, rx, ry, rz "
                "each) and k modal amplitudes (element-internal variables), one type per size made on demand by "
                "`get_spec`; created by `Model.add_superelement` from a reduction, never by `add_part` "
                "(see [superelements in a model](../reduction.md#superelements-in-a-model)).", ""]
    return "\n".join(lines + [""] + details) + "\n"


def joint_catalogue():
    """Markdown table of every joint kind: the Model method that declares it, its
    parameters, the case-file keys."""
    from femb.case.multibody import JOINT_KEYS
    from femb.model import Model
    from femb.model.joints import JOINT_KINDS, JOINTS_3D

    method = {"distance": "distance", "on_line": "on_line", "coincide": "coincide", "linear": "linear_constraint",
              "body_point": "body_point", "slider": "slider", **{k: "joint3d" for k in JOINTS_3D}}
    lines = ["# Joint catalogue", "",
             "Every joint is a holonomic constraint whose multipliers the solvers eliminate; the equations of each kind "
             "are in [femb.model.joints](../api.md#joints). Declared in Python by the `Model` method below, in case files "
             "by a `[[joints]]` table with `kind` and the keys below ([case-file schema](../case_files.md#joints)). "
             "Supports, pins and welds share DOFs in the correlation table instead (`Model.fix`, `pin`, `weld`, `tie`).", "",
             _row("kind", "Model method", "parameters", "case-file keys"), _row(*["---"] * 4)]
    for kind in JOINT_KINDS:
        params = [p for p in inspect.signature(getattr(Model, method[kind])).parameters if p not in ("self", "name", "kind")]
        call = f"`Model.{method[kind]}(\"{kind}\", ...)`" if method[kind] == "joint3d" else f"`Model.{method[kind]}`"
        lines.append(_row(f"`{kind}`", call, ", ".join(f"`{p}`" for p in params),
                          ", ".join(f"`{k}`" for k in JOINT_KEYS.get(kind, ())) + ", `name`"))
    return "\n".join(lines) + "\n"


def _write_catalogues(app):
    GENERATED.mkdir(exist_ok=True)
    for name, text in (("elements.md", element_catalogue()), ("joints.md", joint_catalogue())):
        path = GENERATED / name
        if not path.exists() or path.read_text() != text:  # unchanged files keep Sphinx's cache valid
            path.write_text(text)


def setup(app):
    """Sphinx hook: write the catalogues before the sources are read."""
    app.connect("builder-inited", _write_catalogues)
    return {"parallel_read_safe": True}
