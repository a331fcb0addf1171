"""Shared fixtures: the loopback mock API, the library path, netcore clients.

`netcore` is imported as installed (Tests/python/run.sh installs it into a venv and
sets NETCORE_TEST_INSTALLED=1). Run directly with pytest from a checkout, the
source tree (bindings/python) is used when no installed package is found.
"""
import importlib.util
import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BINDINGS = os.path.join(ROOT, "bindings", "python")
sys.path.insert(0, os.path.join(ROOT, "Tests", "Support"))

if not os.environ.get("NETCORE_TEST_INSTALLED") and importlib.util.find_spec("netcore") is None:
    sys.path.insert(0, BINDINGS)

from mockserver_client import MockServer  # noqa: E402


@pytest.fixture(scope="session")
def server():
    with MockServer() as s:
        yield s


@pytest.fixture(scope="session")
def libpath():
    path = os.environ.get("NETCORE_LIBRARY") or os.path.join(ROOT, "build", "lib", "libnetcore.so.0")
    if not os.path.exists(path):
        pytest.fail(f"{path} is missing: run `make lib` first")
    return path


@pytest.fixture(scope="session")
def header_macros():
    """The object-like ``#define NC_*`` macros of include/netcore.h with an integer or
    string literal value, e.g. ``{"NC_VERSION_STRING": "0.3.0", "NC_OK": 0, ...}``."""
    import re

    with open(os.path.join(ROOT, "include", "netcore.h"), encoding="utf-8") as f:
        header = f.read()
    macros = {}
    for name, value in re.findall(r'^#define\s+(NC_\w+)\s+(\d+|"[^"]*")', header, re.M):
        macros[name] = value.strip('"') if value.startswith('"') else int(value)
    return macros


@pytest.fixture(scope="session")
def header_version(header_macros):
    """The header's version: (NC_VERSION_STRING, NC_VERSION_NUMBER as 0xMMmmpp)."""
    m = header_macros
    number = (m["NC_VERSION_MAJOR"] << 16) | (m["NC_VERSION_MINOR"] << 8) | m["NC_VERSION_PATCH"]
    return m["NC_VERSION_STRING"], number


@pytest.fixture(scope="session")
def base(server):
    """The mock API's base URL (with the /api prefix the server strips)."""
    return server.base_url + "/api"


@pytest.fixture
def client(base):
    """A sync client in envelope mode ({code, msg, data})."""
    import netcore

    with netcore.Client({"base_url": base, "envelope": {}}) as c:
        yield c


@pytest.fixture
def raw_client(base):
    """A sync client in raw mode (no envelope)."""
    import netcore

    with netcore.Client({"base_url": base}) as c:
        yield c


@pytest.fixture(scope="session")
def closed_port():
    """A loopback port nothing listens on (bound then released)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
