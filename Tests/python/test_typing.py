"""Type hints: ``mypy --strict`` passes over examples/python and the netcore package
(which ships py.typed). Tests/python/run.sh installs mypy (from PyPI) into its venv."""
import importlib.util
import os
import subprocess
import sys

import pytest

import netcore

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_the_package_is_marked_typed():
    assert os.path.exists(os.path.join(os.path.dirname(netcore.__file__), "py.typed"))


def test_mypy_strict_over_the_examples_and_the_package(tmp_path):
    if importlib.util.find_spec("mypy") is None:
        if os.environ.get("NETCORE_TEST_INSTALLED"):
            pytest.fail("mypy is missing: Tests/python/run.sh installs it")
        pytest.skip("mypy is not installed (Tests/python/run.sh installs it)")
    # The examples (as files), then the package as installed (as a package: its
    # directory given as files would make site-packages a root of the check).
    for target in ([os.path.join(ROOT, "examples", "python")], ["-p", "netcore"]):
        p = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                            "--cache-dir", str(tmp_path / "cache"), *target],
                           capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
        assert p.returncode == 0, p.stdout + p.stderr
        assert p.stdout.startswith("Success: no issues found"), p.stdout
