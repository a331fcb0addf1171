import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Support"))

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
