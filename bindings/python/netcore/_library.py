"""Finding and loading libnetcore.

The shared library is looked for in this order; the first place that has it wins:

1. ``$NETCORE_LIBRARY`` — a path to the library file. When set it is the only
   place tried: a wrong path is an error, never a silent fallback.
2. Next to the package: ``netcore/libnetcore.so*`` (a wheel that bundles it).
3. The repository's build output: ``<dir>/build/lib/libnetcore.so.0`` for every
   ``<dir>`` above this file (works when importing from a source checkout).
4. The system loader: ``ctypes.util.find_library("netcore")``, then
   ``libnetcore.so.0`` (``LD_LIBRARY_PATH``, ``ldconfig`` cache, rpath ...).

When none works, :class:`ImportError` names every place that was tried.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import sys
from pathlib import Path
from typing import List, Optional, Tuple

__all__ = ["ENV_VAR", "SONAME", "load_library"]

ENV_VAR = "NETCORE_LIBRARY"
SONAME = "libnetcore.so.0" if not sys.platform == "darwin" else "libnetcore.0.dylib"
_PACKAGE_DIR = Path(__file__).resolve().parent


def _try_load(path: str, tried: List[str]) -> Optional[ctypes.CDLL]:
    try:
        # CDLL (not PyDLL): the GIL is released during every call, so the
        # library's threads can run Python completion callbacks meanwhile.
        return ctypes.CDLL(path)
    except OSError as exc:
        tried.append(f"{path} ({exc})")
        return None


def _bundled_candidates() -> List[str]:
    names = sorted(glob.glob(str(_PACKAGE_DIR / "libnetcore.so*")))
    names += sorted(glob.glob(str(_PACKAGE_DIR / "libnetcore*.dylib")))
    return names


def _build_tree_candidates() -> List[str]:
    return [str(parent / "build" / "lib" / SONAME) for parent in _PACKAGE_DIR.parents]


def load_library() -> Tuple[ctypes.CDLL, str]:
    """Load libnetcore and return ``(library, path_or_name_it_was_loaded_from)``.

    Raises:
        ImportError: the library was not found or could not be loaded; the message
            lists every place that was tried, in order.
    """
    tried: List[str] = []

    explicit = os.environ.get(ENV_VAR)
    if explicit:
        lib = _try_load(explicit, tried)
        if lib is not None:
            return lib, explicit
        raise ImportError(
            f"netcore: cannot load libnetcore from ${ENV_VAR}={explicit!r}: {tried[0]}. "
            f"Fix or unset {ENV_VAR}."
        )
    tried.append(f"${ENV_VAR} (not set)")

    bundled = _bundled_candidates()
    if not bundled:
        tried.append(f"{_PACKAGE_DIR}/libnetcore.so* (none)")
    for path in bundled:
        lib = _try_load(path, tried)
        if lib is not None:
            return lib, path

    for path in _build_tree_candidates():
        if os.path.exists(path):
            lib = _try_load(path, tried)
            if lib is not None:
                return lib, path
    tried.append(f"<each parent of {_PACKAGE_DIR}>/build/lib/{SONAME} (none)")

    found = ctypes.util.find_library("netcore")
    system_names = ([found] if found else []) + [SONAME]
    if not found:
        tried.append('ctypes.util.find_library("netcore") (nothing)')
    for name in system_names:
        lib = _try_load(name, tried)
        if lib is not None:
            return lib, name

    raise ImportError(
        "netcore: libnetcore was not found. Build it (`make lib` in the libnetcore "
        f"repository) and set {ENV_VAR} to its path, or install it where the system "
        "loader finds it. Looked in, in order:\n  " + "\n  ".join(tried)
    )
