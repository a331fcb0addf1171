"""Facts of include/netcore.h that the package repeats (its version, the status,
domain and code numbers) agree with the header, which is where they are stamped."""
import importlib.metadata
import os
import re

import pytest

import netcore
from netcore import errors

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_version_is_the_headers(header_macros, header_version):
    m = header_macros
    parts = "{}.{}.{}".format(m["NC_VERSION_MAJOR"], m["NC_VERSION_MINOR"], m["NC_VERSION_PATCH"])
    assert m["NC_VERSION_STRING"] == parts
    assert netcore.__version__ == header_version[0]


def test_pyproject_takes_the_version_from_the_package():
    with open(os.path.join(ROOT, "bindings", "python", "pyproject.toml"), encoding="utf-8") as f:
        pyproject = f.read()
    assert re.search(r'^dynamic\s*=\s*\[[^\]]*"version"', pyproject, re.M)
    assert re.search(r'^version\s*=\s*\{\s*attr\s*=\s*"netcore.__version__"\s*\}', pyproject, re.M)
    assert not re.search(r'^version\s*=\s*"', pyproject, re.M)


def test_installed_metadata_has_the_package_version():
    try:
        installed = importlib.metadata.version("netcore")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("netcore is not installed (run through Tests/python/run.sh)")
    assert installed == netcore.__version__


@pytest.mark.parametrize("enum, prefix, swift_only", [
    (errors.Status, None, ()),
    (errors.Domain, "NC_DOMAIN_", ()),
    (errors.ClientCode, "NC_CLIENT_", ()),
    # NC_PARSE_DECODING_FAILED: the Swift and Python model decoders' code.
    (errors.ParseCode, "NC_PARSE_", ()),
])
def test_numbers_are_the_headers(header_macros, enum, prefix, swift_only):
    if prefix is None:  # nc_status: NC_OK, NC_ERR_*
        header = {("OK" if k == "NC_OK" else k[len("NC_ERR_"):]): v for k, v in header_macros.items()
                  if k == "NC_OK" or k.startswith("NC_ERR_")}
    else:
        header = {k[len(prefix):]: v for k, v in header_macros.items() if k.startswith(prefix)}
    for name in swift_only:
        header.pop(name, None)
    assert {e.name: int(e) for e in enum} == header
