"""pyproject.toml metadata that setuptools builds without deprecation banners."""
import re

from tests.io.conftest import ROOT

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib


def test_license_is_an_spdx_string_and_setuptools_reads_it():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert data["project"]["license"] == "BSD-3-Clause"  # not the deprecated {text = ...} table
    assert not any(c.startswith("License ::") for c in data["project"].get("classifiers", []))  # SPDX excludes them
    requires = " ".join(data["build-system"]["requires"])
    version = re.search(r"setuptools>=(\d+)", requires)
    assert version and int(version.group(1)) >= 77  # first setuptools reading SPDX license strings
