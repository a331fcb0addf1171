"""The C API of libnetcore as ctypes sees it: one declarative table, applied at import.

Every function of ``include/netcore.h`` is listed in :data:`TABLE` with its
argument types, result type and ``errcheck``. Functions that return an
``nc_status`` get :func:`_check` (any non-OK status raises a
:class:`~netcore.errors.StatusError`) or :func:`_check_allow_failed`
(``NC_ERR_FAILED`` is returned: the caller reads the ``nc_error`` that explains it).

Only the string / JSON-text forms are used. The ``json_t *`` functions are
declared (so a library without them is detected) with ``c_void_p`` types and are
never called: this package does not depend on jansson.

Everything here is private; the public API is in :mod:`netcore.client` and
:mod:`netcore.aio`.
"""
from __future__ import annotations

import ctypes
import json
from ctypes import POINTER, c_char, c_char_p, c_int, c_int32, c_int64, c_size_t, c_uint32, c_void_p
from types import SimpleNamespace
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

from ._library import load_library
from .errors import Error, Status, status_error

__all__ = ["C", "COMPLETE_FN", "LIBRARY_PATH", "TABLE", "bind", "EXPECTED_MAJOR"]

#: The major version this package was written for (``NC_VERSION_MAJOR``).
EXPECTED_MAJOR = 0

NC_OK = Status.OK
NC_ERR_FAILED = Status.FAILED

# Opaque handles are plain pointers; the names only document the tables.
nc_client_p = c_void_p
nc_request_p = c_void_p
nc_response_p = c_void_p
nc_error_p = c_void_p
nc_task_p = c_void_p
json_t_p = c_void_p  # declared, never used
nc_status = c_int32
size_p = POINTER(c_size_t)
cstr_p = POINTER(c_char_p)
voidp_p = POINTER(c_void_p)
bytes_p = POINTER(c_char)

#: ``void (*nc_complete_fn)(const nc_response *, const nc_error *, void *userdata)``
COMPLETE_FN = ctypes.CFUNCTYPE(None, c_void_p, c_void_p, c_void_p)

_ErrCheck = Optional[Callable[[Any, Any, Tuple[Any, ...]], Any]]
Signature = Tuple[str, Any, Sequence[Any], str]

# errcheck kinds used in TABLE (names, so the table stays plain data)
CHECK = "check"            # non-OK status raises StatusError
CHECK_FAILED = "failed"    # like CHECK, but NC_ERR_FAILED is returned to the caller
RAW = "raw"                # result returned as is

#: (name, restype, argtypes, errcheck kind) for every function of netcore.h.
TABLE: Tuple[Signature, ...] = (
    # versions and status
    ("nc_version", c_char_p, (), RAW),
    ("nc_version_number", c_uint32, (), RAW),
    ("nc_status_str", c_char_p, (nc_status,), RAW),
    # errors
    ("nc_error_domain", c_int32, (nc_error_p,), RAW),
    ("nc_error_domain_name", c_char_p, (nc_error_p,), RAW),
    ("nc_error_code", c_int64, (nc_error_p,), RAW),
    ("nc_error_code_str", c_char_p, (nc_error_p,), RAW),
    ("nc_error_message", c_char_p, (nc_error_p,), RAW),
    ("nc_error_http_status", c_int32, (nc_error_p,), RAW),
    ("nc_error_trace_id", c_char_p, (nc_error_p,), RAW),
    ("nc_error_data", json_t_p, (nc_error_p,), RAW),
    ("nc_error_data_json", c_void_p, (nc_error_p, size_p), RAW),
    ("nc_error_body", c_void_p, (nc_error_p, size_p), RAW),
    ("nc_error_attempts", c_int32, (nc_error_p,), RAW),
    ("nc_error_is_retryable", c_int, (nc_error_p,), RAW),
    ("nc_error_is_auth_expired", c_int, (nc_error_p,), RAW),
    ("nc_error_json", c_char_p, (nc_error_p,), RAW),
    ("nc_error_copy", nc_error_p, (nc_error_p,), RAW),
    ("nc_error_free", None, (nc_error_p,), RAW),
    # client
    ("nc_client_new", nc_status, (c_char_p, voidp_p, voidp_p), RAW),
    ("nc_client_free", None, (nc_client_p,), RAW),
    ("nc_client_set_environment", nc_status, (nc_client_p, c_char_p), CHECK),
    ("nc_client_set_header", nc_status, (nc_client_p, c_char_p, c_char_p), CHECK),
    # requests
    ("nc_request_new", nc_status, (c_char_p, c_char_p, voidp_p), CHECK),
    ("nc_request_free", None, (nc_request_p,), RAW),
    ("nc_request_set_header", nc_status, (nc_request_p, c_char_p, c_char_p), CHECK),
    ("nc_request_set_query", nc_status, (nc_request_p, c_char_p, c_char_p), CHECK),
    ("nc_request_set_params_json", nc_status, (nc_request_p, c_char_p, c_size_t), CHECK),
    ("nc_request_set_params", nc_status, (nc_request_p, json_t_p), CHECK),
    ("nc_request_set_encoding", nc_status, (nc_request_p, c_int32), CHECK),
    ("nc_request_set_body", nc_status, (nc_request_p, c_char_p, c_size_t, c_char_p), CHECK),
    ("nc_request_set_timeout_ms", nc_status, (nc_request_p, c_int64), CHECK),
    ("nc_request_set_envelope", nc_status, (nc_request_p, c_int), CHECK),
    ("nc_request_set_output_file", nc_status, (nc_request_p, c_char_p), CHECK),
    # sending
    ("nc_client_send", nc_status, (nc_client_p, nc_request_p, COMPLETE_FN, c_void_p, voidp_p),
     CHECK),
    ("nc_client_send_sync", nc_status, (nc_client_p, nc_request_p, voidp_p, voidp_p),
     CHECK_FAILED),
    ("nc_task_cancel", None, (nc_task_p,), RAW),
    ("nc_task_free", None, (nc_task_p,), RAW),
    # responses
    ("nc_response_status", c_int32, (nc_response_p,), RAW),
    ("nc_response_header", c_char_p, (nc_response_p, c_char_p), RAW),
    ("nc_response_header_count", c_size_t, (nc_response_p,), RAW),
    ("nc_response_header_at", nc_status, (nc_response_p, c_size_t, cstr_p, cstr_p), CHECK),
    # bytes_p: slicing the result (``p[:n]``) makes the bytes in one step
    ("nc_response_body", bytes_p, (nc_response_p, size_p), RAW),
    ("nc_response_json", json_t_p, (nc_response_p,), RAW),
    ("nc_response_data", json_t_p, (nc_response_p,), RAW),
    ("nc_response_data_json", c_void_p, (nc_response_p, size_p), RAW),
    ("nc_response_from_cache", c_int, (nc_response_p,), RAW),
    ("nc_response_retain", nc_response_p, (nc_response_p,), RAW),
    ("nc_response_free", None, (nc_response_p,), RAW),
    # event-loop integration
    ("nc_client_fd", c_int, (nc_client_p,), RAW),
    ("nc_client_dispatch", nc_status, (nc_client_p,), CHECK),
)


def _status_name(lib: ctypes.CDLL, status: int) -> str:
    try:
        return str(lib.nc_status_str(status).decode("ascii", "replace"))
    except Exception:  # pragma: no cover - nc_status_str is bound first
        return f"status {status}"


def _make_errchecks(lib: ctypes.CDLL) -> Dict[str, _ErrCheck]:
    def check(result: int, func: Any, args: Tuple[Any, ...]) -> int:
        if result != NC_OK:
            raise status_error(result, _status_name(lib, result), func.__name__)
        return result

    def check_allow_failed(result: int, func: Any, args: Tuple[Any, ...]) -> int:
        if result != NC_OK and result != NC_ERR_FAILED:
            raise status_error(result, _status_name(lib, result), func.__name__)
        return result

    return {CHECK: check, CHECK_FAILED: check_allow_failed, RAW: None}


def _version_text(lib: ctypes.CDLL) -> str:
    try:
        fn = lib.nc_version
        fn.restype, fn.argtypes = c_char_p, []
        return str(fn().decode("ascii", "replace"))
    except AttributeError:
        return "unknown (no nc_version)"


def check_version(number: int, text: str, path: str) -> None:
    """Refuse a library whose major version differs from :data:`EXPECTED_MAJOR`."""
    major = (number >> 16) & 0xFF
    if major != EXPECTED_MAJOR:
        raise ImportError(
            f"netcore: {path} is libnetcore {text} (major {major}); this package needs "
            f"major version {EXPECTED_MAJOR}. Install a matching library or package."
        )


def bind(lib: ctypes.CDLL, path: str = "libnetcore",
         table: Sequence[Signature] = TABLE) -> SimpleNamespace:
    """Apply ``table`` to ``lib`` and return the bound functions as attributes.

    Raises:
        ImportError: a symbol is missing (the library is older than this package);
            the message names the symbol and the library's ``nc_version()``.
    """
    errchecks = _make_errchecks(lib)
    api = SimpleNamespace()
    for name, restype, argtypes, kind in table:
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise ImportError(
                f"netcore: {path} (libnetcore {_version_text(lib)}) has no symbol {name}: "
                "the library is too old for this package. Rebuild or upgrade libnetcore."
            ) from None
        fn.restype = restype
        fn.argtypes = list(argtypes)
        errcheck = errchecks[kind]
        if errcheck is not None:
            fn.errcheck = errcheck
        setattr(api, name, fn)
    return api


def _load() -> Tuple[SimpleNamespace, str]:
    lib, path = load_library()
    text = _version_text(lib)
    try:
        number_fn = lib.nc_version_number
    except AttributeError:
        raise ImportError(f"netcore: {path} (libnetcore {text}) has no symbol "
                          "nc_version_number: the library is too old for this package.") from None
    number_fn.restype, number_fn.argtypes = c_uint32, []
    check_version(int(number_fn()), text, path)
    return bind(lib, path), path


C, LIBRARY_PATH = _load()


# --------------------------------------------------------------------------
# Small helpers over the bound functions (used by the public modules)
# --------------------------------------------------------------------------

def string_at(ptr: Optional[int], size: int) -> bytes:
    """Copy ``size`` bytes at ``ptr`` (``b""`` for NULL)."""
    return ctypes.string_at(ptr, size) if ptr else b""


def error_from_handle(err: int, response: Any = None) -> Error:
    """Build the Python exception for an ``nc_error *`` (borrowed: read, not freed).

    Everything is copied into Python objects, so the result does not keep the
    handle and may outlive it (e.g. after a completion callback returns).
    """
    text = C.nc_error_json(err)
    info = json.loads(text) if text else {"message": "unknown error"}
    n = c_size_t(0)
    ptr = C.nc_error_body(err, ctypes.byref(n))
    return Error.from_info(info, string_at(ptr, n.value), response)
