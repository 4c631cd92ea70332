"""Shared helpers of the io tests: paths and a small valid case file to vary."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MESHES = ROOT / "meshes"
EXAMPLES = ROOT / "examples"

BASE_CASE = """\
title = "small cantilever"
[parameters]
EI = 2.0
L = 1.0
[mesh.line]
name = "beam"
start = [0.0, 0.0]
end = [1.0, 0.0]
elements = 4
[materials.unit]
E = 1.0
[sections.strip]
A = 1e4
I = "EI"
[[parts]]
name = "beam"
cells = "beam"
element = "beam2d"
material = "unit"
section = "strip"
[[fix]]
nodes = "beam_start"
[[loads]]
type = "point"
nodes = "beam_end"
mz = "0.5*pi*EI/L"
[[steps]]
type = "static"
steps = 2
"""


@pytest.fixture
def write_case(tmp_path):
    """write_case(text=BASE_CASE, replace=((old, new), ...), name="case.toml") -> Path."""

    def write(text=BASE_CASE, replace=(), name="case.toml"):
        for old, new in replace:
            assert old in text, old
            text = text.replace(old, new)
        path = tmp_path / name
        path.write_text(text)
        return path

    return write
