"""A femb source file as of another git revision, imported as a module beside the current
one, so that a benchmark can time both side by side in one process (``--baseline REV``)."""
import importlib.util
import pathlib
import subprocess
import sys
import tempfile
from types import ModuleType
from typing import Callable, Optional

ROOT = pathlib.Path(__file__).resolve().parents[1]


def module_of_revision(rev: str, path: str, name: str, edit: Optional[Callable[[str], str]] = None) -> ModuleType:
    """The file ``path`` (relative to the checkout, e.g. ``"elements/beam3d.py"``) as of git
    revision ``rev``, imported under the module name ``name`` (e.g.
    ``"femb.elements.beam3d_baseline"``: a sibling of the current module, so that its
    relative imports resolve); ``edit`` maps its source text before the import (e.g. to
    import another baseline module instead of the current one)."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{path}"], check=True, capture_output=True, text=True).stdout
    if edit is not None:
        source = edit(source)
    file = pathlib.Path(tempfile.mkdtemp()) / (name.rsplit(".", 1)[-1] + ".py")
    file.write_text(source)
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
