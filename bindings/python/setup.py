"""Bundles libnetcore into the wheel when there is one to bundle.

Everything else about the package is in pyproject.toml. A wheel carries the library
next to the modules (``netcore/libnetcore.so.0``, the second place the loader looks,
after ``$NETCORE_LIBRARY``: see netcore/_library.py) when one is found here:

1. ``$NETCORE_WHEEL_LIBRARY``: a path to the library file (``make wheel`` sets it to
   the stripped library). Set but missing is an error.
2. ``../../build/lib/libnetcore.so.0`` from this file: ``pip wheel bindings/python``
   in a repository where ``make lib`` ran.

Such a wheel is tagged ``py3-none-<platform>`` (e.g. ``linux_x86_64``): the library
is machine code linked against the system's libcurl, jansson, libcrypto and glibc,
while the Python code works on any Python 3 (ctypes, no extension module). Without
a library the wheel is pure (``py3-none-any``) and the library is found at run time.
"""
import os
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:  # setuptools >= 70.1 has bdist_wheel itself; before, the wheel package had it.
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover - depends on the build environment
    try:
        from wheel.bdist_wheel import bdist_wheel
    except ImportError:
        bdist_wheel = None

HERE = os.path.dirname(os.path.abspath(__file__))
SONAME = "libnetcore.so.0"
ENV_VAR = "NETCORE_WHEEL_LIBRARY"


def library_to_bundle():
    """The library file to put in the wheel, or None."""
    explicit = os.environ.get(ENV_VAR)
    if explicit:
        if not os.path.isfile(explicit):
            raise SystemExit(f"{ENV_VAR}={explicit!r}: no such file")
        return explicit
    repo_build = os.path.join(HERE, "..", "..", "build", "lib", SONAME)
    return repo_build if os.path.isfile(repo_build) else None


class BuildPyWithLibrary(build_py):
    """build_py, then the library into the built package (stripped when objcopy is
    there, as `make install` does: the debug info is for the build tree)."""

    def run(self):
        super().run()
        library = library_to_bundle()
        if library is None:
            return
        dest = os.path.join(self.build_lib, "netcore", SONAME)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if shutil.which("objcopy"):
            subprocess.run(["objcopy", "--strip-unneeded", library, dest], check=True)
        else:
            shutil.copyfile(library, dest)
        os.chmod(dest, 0o755)


cmdclass = {"build_py": BuildPyWithLibrary}

if bdist_wheel is not None:

    class PlatformWheel(bdist_wheel):
        """Tags the wheel for the platform, not for a Python ABI, when it bundles
        the library (pure otherwise)."""

        def get_tag(self):
            python, abi, platform = super().get_tag()
            if library_to_bundle() is None:
                return python, abi, platform
            return "py3", "none", platform

    cmdclass["bdist_wheel"] = PlatformWheel


class PlatformDistribution(Distribution):
    """Platform-specific when it bundles the library: built into (and installed
    from) the platform's lib directory, the wheel's root not purelib."""

    def has_ext_modules(self):
        return library_to_bundle() is not None


setup(cmdclass=cmdclass, distclass=PlatformDistribution)
