"""The C API of libnetcore as ctypes sees it: typed handles and one declarative table.

This module is a leaf: it imports only :mod:`ctypes` and :mod:`netcore._library`,
and it knows nothing about the package's exceptions. Every other module reaches
the library through :data:`C` (``from ._capi import C``), never through a
``ctypes.CDLL`` of its own.

Handles. Each C handle type has its own ``c_void_p`` subclass
(:class:`ClientHandle`, :class:`RequestHandle`, :class:`ResponseHandle`,
:class:`ErrorHandle`, :class:`TaskHandle`; :class:`JsonRef` for ``json_t *``).
A function declared with one of them refuses an instance of another: passing a
RequestHandle where a ClientHandle is declared raises :class:`ctypes.ArgumentError`
(``TypeError: wrong type``) before C is entered (bare ints are still accepted, see
:class:`_Handle`). Functions that return a handle return an instance of its class.
A NULL handle is false.

The table. :data:`TABLE` lists every function of ``include/netcore.h`` once, in
the style of libclang's Python bindings: ``(name, argtypes, restype[, errcheck])``.
:func:`bind` applies it at import; a missing symbol is an :class:`ImportError`.

Statuses. Functions returning ``nc_status`` (marked :class:`nc_status` in the
table, listed in :data:`STATUS_FUNCTIONS`) have no errcheck: they return the status
as an ``int`` (:data:`NC_OK` is 0) and the caller checks it, with
:func:`netcore.errors.check_call` or, where an ``nc_error`` may explain it (and on
the per-request paths), by handing a non-OK status to
:func:`netcore.errors.error_for`, the one place a status or an ``nc_error`` becomes a
Python exception. The only errcheck here, :func:`sized_bytes`, copies a
``(pointer, size_t *len_out)`` result into bytes.

Only the string / JSON-text forms are used. The ``json_t *`` functions are
declared (so a library without them is detected) and are never called: this
package does not depend on jansson.

Everything here is private; the public API is in :mod:`netcore.client` and
:mod:`netcore.aio`.
"""
from __future__ import annotations

import ctypes
from ctypes import POINTER, c_char, c_char_p, c_int, c_int32, c_int64, c_size_t, c_uint32, c_void_p
from types import SimpleNamespace
from typing import Any, Callable, Optional, Sequence, Tuple

from ._library import load_library

__all__ = [
    "C", "libcurl_version", "COMPLETE_FN", "EVENT_FN", "ADAPTER_FN", "RETRY_FN", "OutgoingHandle", "LIBRARY_PATH", "TABLE", "EXPECTED_MAJOR", "NC_OK",
    "NC_REQUEST_SKIP_ERROR_HANDLER", "NC_LOG_OFF", "NC_LOG_ERROR", "NC_LOG_WARN", "NC_LOG_INFO", "NC_LOG_DEBUG",
    "ClientHandle", "RequestHandle", "ResponseHandle", "ErrorHandle", "TaskHandle", "JsonRef",
    "bind", "check_version", "sized_bytes",
]

#: The major version this package was written for (``NC_VERSION_MAJOR``).
EXPECTED_MAJOR = 0

#: ``nc_status`` of success; any other value is a refusal or a failure.
NC_OK = 0

#: A flag of ``nc_request_set_flags``: the client's error handler is not called for
#: the request (the Python ``on_error`` hook neither: ``skip_error_handler=True``).
NC_REQUEST_SKIP_ERROR_HANDLER = 1

#: Levels of ``nc_client_set_log_handler`` (``NC_LOG_TRACE`` 5 is not used).
NC_LOG_OFF, NC_LOG_ERROR, NC_LOG_WARN, NC_LOG_INFO, NC_LOG_DEBUG = 0, 1, 2, 3, 4


# --------------------------------------------------------------------------
# Typed handles
# --------------------------------------------------------------------------

class _Handle(c_void_p):
    """An opaque C handle. ``c_void_p``'s own (C) ``from_param`` accepts an instance of
    the declared class and refuses another handle class with ``TypeError: wrong
    type``. A Python ``from_param`` that also refused bare ints would cost about
    5,000 instructions per synchronous request (measured with callgrind), so ints
    and ``None`` are still accepted, as for any ``c_void_p``: the package never
    passes them."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value:#x})" if self.value else f"{type(self).__name__}(NULL)"


class ClientHandle(_Handle):
    """``nc_client *``"""


class RequestHandle(_Handle):
    """``nc_request *``"""


class ResponseHandle(_Handle):
    """``nc_response *``"""


class ErrorHandle(_Handle):
    """``nc_error *``"""


class TaskHandle(_Handle):
    """``nc_task *``"""


class BatchHandle(_Handle):
    """``nc_batch *``"""


class OutgoingHandle(_Handle):
    """``nc_outgoing *`` (borrowed for one adapter call)."""


class JsonRef(_Handle):
    """``json_t *`` (declared, never used: this package does not call jansson)."""


class nc_status:
    """Marks ``nc_status`` in :data:`TABLE` (declared to ctypes as ``c_int32``, so the
    call returns a plain int); :data:`STATUS_FUNCTIONS` is read from it."""

    ctype = c_int32


def _ctype(t: Any) -> Any:
    return nc_status.ctype if t is nc_status else t


size_p = POINTER(c_size_t)
cstr_p = POINTER(c_char_p)
bytes_p = POINTER(c_char)

#: ``void (*nc_complete_fn)(const nc_response *, const nc_error *, void *userdata)``.
#: The callback receives the three pointers as ints (``None`` for NULL), borrowed for
#: the call; the receiver wraps the non-NULL ones in :class:`ResponseHandle` /
#: :class:`ErrorHandle` (``_core.convert``). Typed callback arguments would make
#: ctypes build two handle objects per completion even when unused (about 1,300
#: instructions per asyncio request, measured).
COMPLETE_FN = ctypes.CFUNCTYPE(None, c_void_p, c_void_p, c_void_p)

#: ``void (*nc_event_fn)(const char *event_json, size_t len, void *userdata)``: the
#: event handler's and the log handler's function (the text is borrowed for the call).
EVENT_FN = ctypes.CFUNCTYPE(None, c_void_p, c_size_t, c_void_p)
#: ``nc_status (*nc_adapter_fn)(nc_outgoing *, void *userdata)``; the handle
#: arrives as an int, borrowed for the call.
ADAPTER_FN = ctypes.CFUNCTYPE(c_int32, c_void_p, c_void_p)
#: ``void (*nc_batch_fn)(const nc_batch *batch, void *userdata)``; the batch arrives
#: as an int, borrowed for the call.
BATCH_FN = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)
#: ``int64_t (*nc_retry_fn)(const nc_response *, const nc_error *, int32_t attempt,
#: void *userdata)``: a wait in ms, -1 stop, -2 the policy's decision.
RETRY_FN = ctypes.CFUNCTYPE(c_int64, c_void_p, c_void_p, c_int32, c_void_p)
#: ``void (*nc_refresh_fn)(nc_client *, const nc_error *, void *userdata)``.
REFRESH_FN = ctypes.CFUNCTYPE(None, c_void_p, c_void_p, c_void_p)
#: ``void (*nc_progress_fn)(int64_t down_now, int64_t down_total, int64_t up_now,
#: int64_t up_total, void *userdata)``.
PROGRESS_FN = ctypes.CFUNCTYPE(None, c_int64, c_int64, c_int64, c_int64, c_void_p)
#: ``int (*nc_body_fn)(const void *chunk, size_t len, void *userdata)``: the chunk
#: arrives as an int, borrowed for the call; non-zero aborts.
BODY_FN = ctypes.CFUNCTYPE(ctypes.c_int, c_void_p, c_size_t, c_void_p)
#: ``nc_body_fn``'s answer that pauses the transfer until ``nc_task_resume_body``
#: (netcore.h ``NC_BODY_PAUSE``, since 0.4); libcurl hands the chunk over again.
NC_BODY_PAUSE = 0x10000001
#: ``void (*nc_head_fn)(const nc_response *head, void *userdata)`` (since 0.4): the
#: head is borrowed for the call (``nc_response_retain`` to keep it).
HEAD_FN = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)
#: ``void (*nc_reachability_fn)(int32_t state, void *userdata)`` (since 0.4): the
#: new state, ``NC_REACH_ONLINE`` (1) or ``NC_REACH_OFFLINE`` (2).
REACHABILITY_FN = ctypes.CFUNCTYPE(None, c_int32, c_void_p)


# --------------------------------------------------------------------------
# errchecks (neutral: they convert results, they never raise)
# --------------------------------------------------------------------------

def sized_bytes(result: Any, func: Any, args: Tuple[Any, ...]) -> Optional[bytes]:
    """errcheck of ``const void *f(handle, size_t *len_out)``: the bytes, copied,
    or ``None`` when the function returned NULL. ``args[1]`` is the caller's
    ``byref(c_size_t())``."""
    if not result:
        return None
    return ctypes.string_at(result, args[1]._obj.value)


ErrCheck = Callable[[Any, Any, Tuple[Any, ...]], Any]
#: ``(name, argtypes, restype)`` or ``(name, argtypes, restype, errcheck)``
Signature = Tuple[Any, ...]

#: Every function of netcore.h, once: ``(name, argtypes, restype[, errcheck])``.
TABLE: Tuple[Signature, ...] = (
    # versions and status
    ("nc_version", (), c_char_p),
    ("nc_version_number", (), c_uint32),
    ("nc_status_str", (nc_status,), c_char_p),
    # errors
    ("nc_error_domain", (ErrorHandle,), c_int32),
    ("nc_error_domain_name", (ErrorHandle,), c_char_p),
    ("nc_error_code", (ErrorHandle,), c_int64),
    ("nc_error_code_str", (ErrorHandle,), c_char_p),
    ("nc_error_message", (ErrorHandle,), c_char_p),
    ("nc_error_user_message", (ErrorHandle,), c_char_p),
    ("nc_error_http_status", (ErrorHandle,), c_int32),
    ("nc_error_trace_id", (ErrorHandle,), c_char_p),
    ("nc_error_data", (ErrorHandle,), JsonRef),
    ("nc_error_data_json", (ErrorHandle, size_p), c_void_p, sized_bytes),
    ("nc_error_body", (ErrorHandle, size_p), c_void_p, sized_bytes),
    ("nc_error_attempts", (ErrorHandle,), c_int32),
    ("nc_error_is_retryable", (ErrorHandle,), c_int),
    ("nc_error_is_auth_expired", (ErrorHandle,), c_int),
    ("nc_error_json", (ErrorHandle,), c_char_p),
    ("nc_error_copy", (ErrorHandle,), ErrorHandle),
    ("nc_error_free", (ErrorHandle,), None),
    # client
    ("nc_client_new", (c_char_p, POINTER(ClientHandle), POINTER(ErrorHandle)), nc_status),
    ("nc_client_free", (ClientHandle,), None),
    ("nc_client_set_environment", (ClientHandle, c_char_p), nc_status),
    ("nc_client_set_header", (ClientHandle, c_char_p, c_char_p), nc_status),
    ("nc_client_set_common_param", (ClientHandle, c_char_p, c_char_p), nc_status),
    ("nc_client_set_messages_json", (ClientHandle, c_char_p), nc_status),
    ("nc_client_preconnect", (ClientHandle, c_char_p, POINTER(ErrorHandle)), nc_status),
    # stubs (netcore.testing; since 0.4)
    ("nc_client_add_stub", (ClientHandle, c_char_p, POINTER(ErrorHandle)), nc_status),
    # requests
    ("nc_request_new", (c_char_p, c_char_p, POINTER(RequestHandle)), nc_status),
    ("nc_request_free", (RequestHandle,), None),
    ("nc_request_set_header", (RequestHandle, c_char_p, c_char_p), nc_status),
    ("nc_request_set_query", (RequestHandle, c_char_p, c_char_p), nc_status),
    ("nc_request_set_params_json", (RequestHandle, c_char_p, c_size_t), nc_status),
    ("nc_request_set_params", (RequestHandle, JsonRef), nc_status),
    ("nc_request_set_encoding", (RequestHandle, c_int32), nc_status),
    ("nc_request_set_body", (RequestHandle, c_char_p, c_size_t, c_char_p), nc_status),
    ("nc_request_set_timeout_ms", (RequestHandle, c_int64), nc_status),
    ("nc_request_set_envelope", (RequestHandle, c_int), nc_status),
    ("nc_request_set_output_file", (RequestHandle, c_char_p), nc_status),
    ("nc_request_set_body_file", (RequestHandle, c_char_p, c_char_p), nc_status),
    ("nc_request_add_part", (RequestHandle, c_char_p, c_char_p, c_size_t, c_char_p, c_char_p), nc_status),
    ("nc_request_add_file_part", (RequestHandle, c_char_p, c_char_p, c_char_p, c_char_p), nc_status),
    ("nc_request_set_progress", (RequestHandle, PROGRESS_FN, c_void_p), nc_status),
    ("nc_request_set_body_callback", (RequestHandle, BODY_FN, c_void_p), nc_status),
    ("nc_request_set_head_callback", (RequestHandle, HEAD_FN, c_void_p), nc_status),
    # sending
    ("nc_client_send", (ClientHandle, RequestHandle, COMPLETE_FN, c_void_p, POINTER(TaskHandle)),
     nc_status),
    ("nc_client_send_sync",
     (ClientHandle, RequestHandle, POINTER(ResponseHandle), POINTER(ErrorHandle)), nc_status),
    ("nc_task_cancel", (TaskHandle,), None),
    ("nc_task_free", (TaskHandle,), None),
    ("nc_task_resume_body", (TaskHandle,), nc_status),
    ("nc_task_current", (POINTER(TaskHandle),), nc_status),
    # responses
    ("nc_response_status", (ResponseHandle,), c_int32),
    ("nc_response_header", (ResponseHandle, c_char_p), c_char_p),
    ("nc_response_header_count", (ResponseHandle,), c_size_t),
    ("nc_response_header_at", (ResponseHandle, c_size_t, cstr_p, cstr_p), nc_status),
    # bytes_p: slicing the result (``p[:n]``) makes the bytes in one step
    ("nc_response_body", (ResponseHandle, size_p), bytes_p),
    ("nc_response_json", (ResponseHandle,), JsonRef),
    ("nc_response_data", (ResponseHandle,), JsonRef),
    ("nc_response_data_json", (ResponseHandle, size_p), c_void_p, sized_bytes),
    # variadic (jansson unpack targets after fmt); declared so a library without them
    # is detected, never called (the package reads data as JSON text)
    ("nc_response_data_unpack", (ResponseHandle, POINTER(ErrorHandle), c_char_p), nc_status),
    ("nc_response_data_vunpack", (ResponseHandle, POINTER(ErrorHandle), c_char_p, c_void_p), nc_status),
    ("nc_response_from_cache", (ResponseHandle,), c_int),
    ("nc_response_not_modified", (ResponseHandle,), c_int),
    ("nc_request_set_cache_policy", (RequestHandle, c_int32), nc_status),
    ("nc_request_set_cached_callback", (RequestHandle, COMPLETE_FN, c_void_p), nc_status),
    ("nc_client_cache_clear", (ClientHandle,), nc_status),
    ("nc_client_cache_remove", (ClientHandle, c_char_p), nc_status),
    ("nc_client_cache_stats_json", (ClientHandle, c_char_p, c_size_t, POINTER(c_size_t)), nc_status),
    ("nc_client_set_cache_partition", (ClientHandle, c_char_p), nc_status),
    ("nc_response_retain", (ResponseHandle,), ResponseHandle),
    ("nc_response_free", (ResponseHandle,), None),
    # event-loop integration
    ("nc_client_fd", (ClientHandle,), c_int),
    ("nc_client_dispatch", (ClientHandle,), nc_status),
    # hooks (since 0.3)
    ("nc_request_set_flags", (RequestHandle, c_uint32), nc_status),
    ("nc_client_set_error_handler", (ClientHandle, COMPLETE_FN, c_void_p), nc_status),
    ("nc_client_set_auth_expired_handler", (ClientHandle, COMPLETE_FN, c_void_p), nc_status),
    ("nc_client_set_event_handler", (ClientHandle, EVENT_FN, c_void_p), nc_status),
    ("nc_client_set_event_mask", (ClientHandle, c_uint32), nc_status),
    ("nc_client_set_log_handler", (ClientHandle, c_int32, EVENT_FN, c_void_p), nc_status),
    ("nc_task_id", (TaskHandle,), ctypes.c_uint64),
    # retry and time limits (0.3)
    ("nc_request_set_retry_json", (RequestHandle, c_char_p, c_size_t), nc_status),
    ("nc_request_set_deadline_ms", (RequestHandle, c_int64), nc_status),
    ("nc_request_set_connect_timeout_ms", (RequestHandle, c_int64), nc_status),
    ("nc_request_set_idle_timeout_ms", (RequestHandle, c_int64), nc_status),
    ("nc_client_set_retry_handler", (ClientHandle, RETRY_FN, c_void_p), nc_status),
    # token refresh
    ("nc_client_set_token_refresher", (ClientHandle, REFRESH_FN, c_void_p), nc_status),
    ("nc_client_refresh_done", (ClientHandle, c_char_p, c_char_p), nc_status),
    ("nc_response_metrics_json", (ResponseHandle,), c_char_p),
    # endpoint catalog
    ("nc_client_define_endpoint", (ClientHandle, c_char_p, c_char_p), nc_status),
    ("nc_request_new_endpoint", (c_char_p, POINTER(RequestHandle)), nc_status),
    ("nc_client_call",
     (ClientHandle, c_char_p, c_char_p, c_size_t, COMPLETE_FN, c_void_p, POINTER(TaskHandle)), nc_status),
    ("nc_client_call_sync",
     (ClientHandle, c_char_p, c_char_p, c_size_t, POINTER(ResponseHandle), POINTER(ErrorHandle)),
     nc_status),
    # adapters, token, signing (0.3)
    ("nc_client_add_adapter", (ClientHandle, ADAPTER_FN, c_void_p), nc_status),
    ("nc_outgoing_method", (OutgoingHandle,), c_char_p),
    ("nc_outgoing_url", (OutgoingHandle,), c_char_p),
    ("nc_outgoing_header", (OutgoingHandle, c_char_p), c_char_p),
    ("nc_outgoing_body", (OutgoingHandle, size_p), c_void_p, sized_bytes),
    ("nc_outgoing_set_header", (OutgoingHandle, c_char_p, c_char_p), nc_status),
    ("nc_outgoing_fail", (OutgoingHandle, c_char_p), nc_status),
    ("nc_outgoing_set_query", (OutgoingHandle, c_char_p, c_char_p), nc_status),
    ("nc_outgoing_set_body", (OutgoingHandle, c_char_p, c_size_t, c_char_p), nc_status),
    ("nc_outgoing_params_json", (OutgoingHandle,), c_char_p),
    ("nc_client_set_token", (ClientHandle, c_char_p), nc_status),
    ("nc_client_set_basic_auth", (ClientHandle, c_char_p, c_char_p), nc_status),
    ("nc_request_set_max_redirects", (RequestHandle, c_int32), nc_status),
    ("nc_response_url", (ResponseHandle,), c_char_p),
    ("nc_response_http_version", (ResponseHandle,), c_char_p),
    # cancellation groups
    ("nc_request_set_group", (RequestHandle, c_char_p), nc_status),
    ("nc_client_cancel_group", (ClientHandle, c_char_p, size_p), nc_status),
    ("nc_client_cancel_all", (ClientHandle, size_p), nc_status),
    # reachability
    ("nc_client_set_reachability", (ClientHandle, c_int32), nc_status),
    ("nc_client_reachability", (ClientHandle,), c_int32),
    # cookies
    ("nc_client_cookies_json", (ClientHandle, POINTER(c_void_p)), nc_status),
    ("nc_client_cookies_clear", (ClientHandle,), nc_status),
    ("nc_client_cookies_flush", (ClientHandle, POINTER(ErrorHandle)), nc_status),
    ("nc_string_free", (c_void_p,), None),
    # batches
    ("nc_batch_new", (ClientHandle, c_int32, POINTER(BatchHandle)), nc_status),
    ("nc_batch_add", (BatchHandle, RequestHandle), nc_status),
    ("nc_batch_send", (BatchHandle, BATCH_FN, c_void_p, POINTER(TaskHandle)), nc_status),
    ("nc_batch_count", (BatchHandle,), c_size_t),
    ("nc_batch_response", (BatchHandle, c_size_t), c_void_p),
    ("nc_batch_error", (BatchHandle, c_size_t), c_void_p),
    ("nc_batch_free", (BatchHandle,), None),
    # sends held together (since 0.4)
    ("nc_client_cork", (ClientHandle,), nc_status),
    ("nc_client_uncork", (ClientHandle,), nc_status),
    # which request an error belongs to; reachability watched (since 0.4)
    ("nc_request_set_label", (RequestHandle, c_char_p), nc_status),
    ("nc_error_request_method", (ErrorHandle,), c_char_p),
    ("nc_error_request_url", (ErrorHandle,), c_char_p),
    ("nc_error_endpoint", (ErrorHandle,), c_char_p),
    ("nc_error_label", (ErrorHandle,), c_char_p),
    ("nc_error_task_id", (ErrorHandle,), ctypes.c_uint64),
    ("nc_client_set_reachability_handler", (ClientHandle, REACHABILITY_FN, c_void_p), nc_status),
)

#: The names of the functions that return an ``nc_status`` (checked by the caller).
STATUS_FUNCTIONS = frozenset(entry[0] for entry in TABLE if entry[2] is nc_status)


# --------------------------------------------------------------------------
# Binding
# --------------------------------------------------------------------------

def _declare(lib: ctypes.CDLL, entry: Signature) -> Any:
    """Apply one table entry to ``lib``'s symbol (AttributeError if it is missing)."""
    name, argtypes, restype = entry[0], entry[1], entry[2]
    fn = getattr(lib, name)
    fn.argtypes = [_ctype(t) for t in argtypes]
    fn.restype = _ctype(restype)
    if len(entry) > 3 and entry[3] is not None:
        fn.errcheck = entry[3]
    return fn


def _entry(name: str) -> Signature:
    return next(entry for entry in TABLE if entry[0] == name)


def _version_text(lib: ctypes.CDLL) -> str:
    try:
        return str(_declare(lib, _entry("nc_version"))().decode("ascii", "replace"))
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
    api = SimpleNamespace()
    for entry in table:
        try:
            fn = _declare(lib, entry)
        except AttributeError:
            raise ImportError(
                f"netcore: {path} (libnetcore {_version_text(lib)}) has no symbol {entry[0]}: "
                "the library is too old for this package. Rebuild or upgrade libnetcore."
            ) from None
        setattr(api, entry[0], fn)
    return api


def _load() -> Tuple[SimpleNamespace, str]:
    lib, path = load_library()
    text = _version_text(lib)
    try:
        number_fn = _declare(lib, _entry("nc_version_number"))
    except AttributeError:
        raise ImportError(f"netcore: {path} (libnetcore {text}) has no symbol "
                          "nc_version_number: the library is too old for this package.") from None
    check_version(int(number_fn()), text, path)
    return bind(lib, path), path


C, LIBRARY_PATH = _load()


class _CurlVersionInfo(ctypes.Structure):
    # The first members of libcurl's curl_version_info_data, fixed since its first version.
    _fields_ = [("age", ctypes.c_int), ("version", ctypes.c_char_p)]


def libcurl_version() -> str:
    """The version text of the libcurl the library loaded (``curl_version_info``),
    e.g. ``"7.88.1"``: the symbol is looked up through the library's own handle,
    which searches the libraries it depends on. ``"unknown"`` if it cannot be read."""
    fn = ctypes.CDLL(LIBRARY_PATH).curl_version_info
    fn.argtypes, fn.restype = [ctypes.c_int], ctypes.POINTER(_CurlVersionInfo)
    info = fn(10)  # CURLVERSION_ELEVENTH (libcurl 7.88's CURLVERSION_NOW); any age answers
    version = info.contents.version if info else None
    return version.decode("ascii", "replace") if version else "unknown"

