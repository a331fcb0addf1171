"""Finding the library (in subprocesses, each with its own environment) and the
binding table."""
import ctypes
import ctypes.util
import os
import re
import shutil
import subprocess
import sys

import pytest

import netcore
from netcore import _capi

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BINDINGS = os.path.join(ROOT, "bindings", "python")
REPO_LIB = os.path.join(ROOT, "build", "lib", "libnetcore.so.0")
PACKAGE_DIR = os.path.dirname(os.path.abspath(netcore.__file__))

PRINT = "import netcore, sys; print(netcore.__file__); print(netcore.library_path())"


def python(code, pythonpath, cwd, **env_overrides):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NETCORE_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH")}
    env.update(PYTHONPATH=pythonpath, PYTHONDONTWRITEBYTECODE="1", **env_overrides)
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=30)


def copy_package(dest):
    shutil.copytree(PACKAGE_DIR, os.path.join(dest, "netcore"),
                    ignore=shutil.ignore_patterns("__pycache__", "libnetcore.so*"))
    return os.path.join(dest, "netcore")


def test_bad_netcore_library_is_an_import_error_naming_it(tmp_path):
    bad = str(tmp_path / "nowhere" / "libnetcore.so.0")
    p = python("import netcore", os.path.dirname(PACKAGE_DIR), str(tmp_path), NETCORE_LIBRARY=bad)
    assert p.returncode != 0
    assert "ImportError" in p.stderr
    assert bad in p.stderr and "NETCORE_LIBRARY" in p.stderr


def test_netcore_library_that_is_not_a_library(tmp_path):
    fake = tmp_path / "libnetcore.so.0"
    fake.write_text("not an ELF file")
    p = python("import netcore", os.path.dirname(PACKAGE_DIR), str(tmp_path), NETCORE_LIBRARY=str(fake))
    assert p.returncode != 0 and str(fake) in p.stderr


def test_walk_up_finds_the_repo_build_output(tmp_path):
    """Imported from the source tree without NETCORE_LIBRARY: <repo>/build/lib is found."""
    p = python(PRINT, BINDINGS, str(tmp_path))
    assert p.returncode == 0, p.stderr
    file, lib = p.stdout.split()
    assert file.startswith(BINDINGS + os.sep)
    assert lib == REPO_LIB


def test_next_to_the_package_wins_over_walk_up_and_env_wins_over_both(tmp_path):
    pkg = copy_package(str(tmp_path / "site"))
    bundled = os.path.join(pkg, "libnetcore.so.0")
    os.symlink(REPO_LIB, bundled)
    p = python(PRINT, str(tmp_path / "site"), str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[1] == bundled
    p = python(PRINT, str(tmp_path / "site"), str(tmp_path), NETCORE_LIBRARY=REPO_LIB)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[1] == REPO_LIB


def test_not_found_names_every_place(tmp_path):
    if ctypes.util.find_library("netcore"):
        pytest.skip("libnetcore is installed system-wide here")
    pkg = copy_package(str(tmp_path / "bare"))
    p = python("import netcore", str(tmp_path / "bare"), str(tmp_path))
    assert p.returncode != 0
    message = p.stderr
    assert "ImportError" in message
    for place in ("$NETCORE_LIBRARY (not set)", pkg, "build/lib/libnetcore.so.0",
                  'find_library("netcore")', "libnetcore.so.0"):
        assert place in message, (place, message)


def test_missing_symbol_says_the_library_is_too_old(libpath, header_version):
    lib = ctypes.CDLL(libpath)
    table = _capi.TABLE + (("nc_from_the_future", (), None),)
    with pytest.raises(ImportError) as info:
        _capi.bind(lib, libpath, table)
    message = str(info.value)
    assert "nc_from_the_future" in message and "too old" in message
    assert header_version[0] in message and libpath in message


def test_major_version_mismatch():
    _capi.check_version(0x000105, "0.1.5", "lib")  # same major: fine
    with pytest.raises(ImportError) as info:
        _capi.check_version(0x010000, "1.0.0", "/x/libnetcore.so.1")
    assert "1.0.0" in str(info.value) and "major" in str(info.value)


def test_table_covers_every_header_function():
    with open(os.path.join(ROOT, "include", "netcore.h")) as f:
        header = f.read()
    declared = set(re.findall(r"NC_API[^;(]*?\b(nc_\w+)\s*\(", header))
    bound = {name for name, *_ in _capi.TABLE}
    assert declared and declared == bound
    for name, argtypes, restype, *errcheck in _capi.TABLE:
        if name in ("nc_error_data", "nc_response_json", "nc_response_data",
                    "nc_request_set_params"):
            # json_t functions: declared with their own handle type, never called
            assert restype is _capi.JsonRef or _capi.JsonRef in argtypes


def test_installed_package_is_the_one_under_test():
    if not os.environ.get("NETCORE_TEST_INSTALLED"):
        pytest.skip("run through Tests/python/run.sh to test the installed package")
    assert not PACKAGE_DIR.startswith(BINDINGS)
    assert "site-packages" in PACKAGE_DIR
    assert netcore.library_path() == os.environ["NETCORE_LIBRARY"]
    assert os.path.exists(os.path.join(PACKAGE_DIR, "py.typed"))
