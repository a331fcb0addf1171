"""Turning requests-style keyword arguments into an ``nc_request`` builder."""
from __future__ import annotations

import ctypes
import json as _json
import math
import os
import re
import threading
from collections.abc import Mapping
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

from ._capi import NC_OK, NC_REQUEST_SKIP_ERROR_HANDLER, C, RequestHandle
from . import _cache
from ._retry import Retry, retry_json
from .errors import Status, check_call, error_for

__all__ = ["build_request", "plain_request", "cstr", "Params", "HeadersArg",
           "endpoint_request", "endpoint_spec", "Timeouts", "TimeoutArg"]

NC_ENCODING_QUERY = 1
NC_ENCODING_FORM = 2
NC_ENCODING_JSON = 3

Scalar = Union[str, bytes, int, float, bool, None]
ParamValue = Union[Scalar, List[Scalar], Tuple[Scalar, ...]]
#: ``params=``: a mapping, or an iterable of ``(name, value)`` pairs.
Params = Union[Mapping[str, ParamValue], Iterable[Tuple[str, ParamValue]]]
#: ``headers=``: a mapping (or pairs) of name to value; ``None`` removes the header.
HeadersArg = Union[Mapping[str, Optional[str]], Iterable[Tuple[str, Optional[str]]]]


class Timeouts:
    """A request's time limits in seconds, as one object (httpx's ``Timeout``;
    ``netcore.Timeout`` is the exception a time limit raises, so the object is
    named ``Timeouts``). Pass it as ``timeout=``::

        client.get("/report", timeout=netcore.Timeouts(10, connect=2))
        client.get("/report", timeout=netcore.Timeouts(connect=2, read=5, total=60))

    Args:
        timeout: as httpx's first argument: the default of ``connect`` and
            ``read`` (each phase), not a total.
        connect: seconds to connect (``connect_timeout_ms``).
        read: seconds without a byte received or sent (``idle_timeout_ms``, which
            covers both directions: httpx's ``write`` is the same limit).
        write: accepted for httpx code: it sets ``read`` when ``read`` is not given.
        pool: accepted for httpx code and ignored: a request waiting for one of
            its host's connections (``limits.max_connections_per_host``, all
            busy) is bounded by ``total`` and ``deadline``, not by a limit of its own.
        total: seconds for one attempt with its redirects (``timeout_ms``).
        deadline: seconds for every attempt and the waits between them
            (``deadline_ms``).

    ``None`` keeps the client's limit; ``0`` is no limit.
    """

    __slots__ = ("connect", "read", "total", "deadline")

    def __init__(self, timeout: Optional[float] = None, *, connect: Optional[float] = None,
                 read: Optional[float] = None, write: Optional[float] = None,
                 pool: Optional[float] = None, total: Optional[float] = None,
                 deadline: Optional[float] = None) -> None:
        del pool
        self.connect = connect if connect is not None else timeout
        self.read = read if read is not None else (write if write is not None else timeout)
        self.total = total
        self.deadline = deadline
        for name in self.__slots__:
            _ms(getattr(self, name), f"Timeouts.{name}")  # refused now, not at send

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Timeouts) and all(
            getattr(self, n) == getattr(other, n) for n in self.__slots__)

    def __repr__(self) -> str:
        given = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__ if getattr(self, n) is not None)
        return f"netcore.Timeouts({given})"


#: ``timeout=``: total seconds of an attempt, requests' ``(connect, read)`` pair,
#: or a :class:`Timeouts`.
TimeoutArg = Union[float, Tuple[Optional[float], Optional[float]], Timeouts]


def cstr(value: Union[str, bytes], what: str) -> bytes:
    """UTF-8 bytes for a C string argument; NUL or unencodable text is refused.

    Raises:
        InvalidArgument: ``value`` contains NUL (C would silently truncate it) or
            lone surrogates.
    """
    if isinstance(value, bytes):
        data = value
    else:
        try:
            data = value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise error_for(Status.INVALID_ARGUMENT,
                            message=f"{what} is not valid UTF-8 text: {exc}") from None
    if b"\x00" in data:
        raise error_for(Status.INVALID_ARGUMENT, message=f"{what} contains a NUL character")
    return data


def _pairs(arg: Any, what: str) -> List[Tuple[Any, Any]]:
    if isinstance(arg, Mapping):
        return list(arg.items())
    if isinstance(arg, (str, bytes)):
        raise TypeError(f"{what} must be a mapping or a list of (name, value) pairs, not {type(arg).__name__}")
    pairs = []
    for item in arg:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise TypeError(f"{what} must be a mapping or a list of (name, value) pairs")
        pairs.append((item[0], item[1]))
    return pairs


def _scalar_text(value: Any, what: str) -> Optional[str]:
    """Query text of one value: bool -> true/false, numbers as JSON writes them."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{what}: {value!r} cannot be sent")
        return repr(value)
    raise TypeError(f"{what}: values must be str, bytes, int, float, bool or None, "
                    f"not {type(value).__name__}")


def _query_items(params: Params) -> List[Tuple[str, str]]:
    items: List[Tuple[str, str]] = []
    for name, value in _pairs(params, "params"):
        if not isinstance(name, str):
            raise TypeError(f"params: names must be str, not {type(name).__name__}")
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            text = _scalar_text(v, f"params[{name!r}]")
            if text is not None:
                items.append((name, text))
    return items


def _form_object(data: Any) -> Dict[str, Any]:
    """``data=`` mapping or pairs as a JSON object (repeated names become lists)."""
    if isinstance(data, Mapping):
        return dict(data)
    obj: Dict[str, Any] = {}
    for name, value in _pairs(data, "data"):
        if name in obj:
            prev = obj[name]
            obj[name] = (prev if isinstance(prev, list) else [prev]) + [value]
        else:
            obj[name] = value
    return obj


def _dumps(obj: Any) -> bytes:
    return _json.dumps(obj, ensure_ascii=False, separators=(",", ":"),
                       allow_nan=False).encode("utf-8")


def _file_path(f: Any) -> Optional[str]:
    """The path of a real file object (``open(path, "rb")``), else None."""
    name = getattr(f, "name", None)
    if isinstance(name, (str, bytes)) and not isinstance(f, (bytes, bytearray, memoryview)):
        path = os.fsdecode(name)
        if os.path.isfile(path):
            return path
    return None


def _content_bytes(value: Any, what: str) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    if hasattr(value, "read"):
        chunk = value.read()
        return chunk.encode("utf-8") if isinstance(chunk, str) else bytes(chunk)
    raise TypeError(f"{what} must be bytes, str, a file object or a path, not {type(value).__name__}")


# One multipart part: (name, bytes or None, path or None, filename, content type).
_Part = Tuple[str, Optional[bytes], Optional[str], Optional[str], Optional[str]]


def _multipart(data: Any, files: Any) -> List[_Part]:
    """``data=`` fields and ``files=`` files as parts, as requests does: a file is a
    file object, a path (os.PathLike), bytes/str, or a tuple ``(filename, content)``
    / ``(filename, content, content_type)``. Real files and paths are streamed by the
    library from their path; other contents are read here."""
    parts: List[_Part] = []
    if data is not None:
        if isinstance(data, (bytes, bytearray, memoryview, str)) or hasattr(data, "read"):
            raise TypeError("with files=, data= must be a dict or pairs of form fields")
        for name, value in _pairs(data, "data"):
            values = value if isinstance(value, list) else [value]
            for v in values:
                if v is None:
                    continue
                text = _scalar_text(v, f"data[{name!r}]")
                parts.append((str(name), (text or "").encode("utf-8"), None, None, None))
    for name, value in _pairs(files, "files"):
        filename: Optional[str] = None
        ctype: Optional[str] = None
        content = value
        if isinstance(value, tuple):
            if not 2 <= len(value) <= 3:
                raise ValueError(f"files[{name!r}]: a tuple is (filename, content[, content_type])")
            filename, content = value[0], value[1]
            ctype = value[2] if len(value) == 3 else None
        if isinstance(content, os.PathLike):
            fspath = os.fsdecode(os.fspath(content))
            parts.append((str(name), None, fspath, filename or os.path.basename(fspath), ctype))
            continue
        path: Optional[str] = _file_path(content) if hasattr(content, "read") else None
        if path is not None:
            parts.append((str(name), None, path, filename or os.path.basename(path), ctype))
            continue
        parts.append((str(name), _content_bytes(content, f"files[{name!r}]"), None,
                      filename or str(name), ctype))
    return parts


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_TOKEN_CHARS = frozenset("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _why_refused(method: str, path: str) -> str:
    """What nc_request_new() refuses in ``method`` / ``path`` (the rules of its header
    comment, as the core checks them), said so the caller can fix it: "" when it is
    none of these."""
    if not method or not set(method) <= _TOKEN_CHARS:
        return " (the method must be an HTTP token such as GET or POST)"
    if not path:
        return " (the path or URL is empty)"
    for i, ch in enumerate(path):
        if ord(ch) <= 0x20 or ord(ch) == 0x7F:
            return (f" ({ch!r} at index {i}: a URL holds no spaces or control characters;"
                    " percent-encode it (%20 for a space) or pass query values in params=)")
    if _SCHEME.match(path) and not path.lower().startswith(("http://", "https://")):
        return " (only http:// and https:// URLs are sent; a path starts with '/')"
    return ""


def build_request(method: str, path: str, *, params: Optional[Params] = None,
                  json: Any = None, data: Any = None, files: Any = None,
                  headers: Optional[HeadersArg] = None,
                  timeout: Optional[TimeoutArg] = None, envelope: Optional[bool] = None,
                  output: Any = None, max_redirects: Optional[int] = None,
                  group: Optional[str] = None,
                  limits: Optional["RequestLimits"] = None,
                  skip_error_handler: bool = False,
                  label: Optional[str] = None) -> RequestHandle:
    """Create an ``nc_request`` for the arguments; the caller frees it.

    See :meth:`netcore.Client.request` for the meaning of each argument.
    """
    if json is not None and data is not None:
        raise ValueError("pass json= or data=, not both")
    if json is not None and files is not None:
        raise ValueError("pass json= or files=, not both")
    # requests' (connect, read) pair: the connect timeout and the idle (read)
    # timeout of this request; the total stays the client's.
    connect_read: Optional[Tuple[Optional[int], Optional[int]]] = None
    deadline_ms: Optional[int] = None
    if isinstance(timeout, Timeouts):
        connect_read = (_ms(timeout.connect, "Timeouts.connect"), _ms(timeout.read, "Timeouts.read"))
        deadline_ms = _ms(timeout.deadline, "Timeouts.deadline")
        timeout = timeout.total
    elif isinstance(timeout, tuple):
        if len(timeout) != 2:
            raise ValueError(f"timeout as a tuple must be (connect, read) seconds, got {timeout!r}")
        connect_read = (_ms(timeout[0], "timeout's connect"), _ms(timeout[1], "timeout's read"))
        timeout = None
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or timeout < 0 or not math.isfinite(timeout)):
        raise ValueError(f"timeout must be a number of seconds >= 0, got {timeout!r}")
    if envelope is not None and not isinstance(envelope, bool):
        raise TypeError(f"envelope must be True, False or None, got {envelope!r}")

    header_pairs = _pairs(headers, "headers") if headers is not None else []
    content_type: Optional[str] = None
    for name, value in header_pairs:
        if isinstance(name, str) and name.lower() == "content-type" and value is not None:
            content_type = value

    # Everything that can fail in Python is checked before the C builder exists.
    query = _query_items(params) if params is not None else []
    body: Optional[bytes] = None
    body_type: Optional[str] = None
    params_json: Optional[bytes] = None
    encoding = 0
    body_file: Optional[str] = None
    parts: Optional[List[_Part]] = None
    if files is not None:
        parts = _multipart(data, files)
    elif data is not None and hasattr(data, "read"):
        # A file object: a real file is streamed by the library from its path
        # (from its start); any other file-like is read into memory here.
        body_file = _file_path(data)
        if body_file is None:
            body, body_type = _content_bytes(data, "data"), content_type or "application/octet-stream"
    elif json is not None:
        if isinstance(json, Mapping):
            params_json, encoding = _dumps(dict(json)), NC_ENCODING_JSON
        else:  # a list, string or number: sent as is
            body, body_type = _dumps(json), content_type or "application/json"
    elif data is not None:
        if isinstance(data, (bytes, bytearray, memoryview)):
            body, body_type = bytes(data), content_type or "application/octet-stream"
        elif isinstance(data, str):
            body, body_type = data.encode("utf-8"), content_type or "text/plain; charset=utf-8"
        else:
            params_json, encoding = _dumps(_form_object(data)), NC_ENCODING_FORM

    handle = RequestHandle()
    status = C.nc_request_new(cstr(method, "method"), cstr(path, "path"), ctypes.byref(handle))
    if status != NC_OK:
        raise error_for(status, function="nc_request_new",
                        detail=f"invalid request {method!r} {path!r}{_why_refused(method, path)}")
    try:
        for name, text in query:
            check_call(C.nc_request_set_query, handle, cstr(name, "query name"),
                       cstr(text, "query value"))
        if params_json is not None:
            check_call(C.nc_request_set_params_json, handle, params_json, len(params_json))
            check_call(C.nc_request_set_encoding, handle, encoding)
        if body is not None:
            check_call(C.nc_request_set_body, handle, body, len(body),
                       cstr(body_type or "", "content type"))
        if body_file is not None:
            check_call(C.nc_request_set_body_file, handle, os.fsencode(body_file),
                       cstr(content_type or "application/octet-stream", "content type"),
                       detail=f"data file {body_file!r}")
        for name, chunk, file_path, filename, ctype in parts or []:
            fname = None if filename is None else cstr(filename, "file name")
            ctext = None if ctype is None else cstr(ctype, "content type")
            if file_path is not None:
                check_call(C.nc_request_add_file_part, handle, cstr(name, "part name"),
                           os.fsencode(file_path), fname, ctext, detail=f"files[{name!r}]")
            else:
                raw = chunk or b""
                check_call(C.nc_request_add_part, handle, cstr(name, "part name"), raw, len(raw),
                           fname, ctext, detail=f"part {name!r}")
        for name, value in header_pairs:
            if not isinstance(name, str):
                raise TypeError(f"headers: names must be str, not {type(name).__name__}")
            if (body is not None or body_file is not None or parts is not None) \
                    and name.lower() == "content-type":
                continue  # given with the body above (multipart: libcurl's, with the boundary)
            if value is not None and not isinstance(value, (str, bytes)):
                raise TypeError(f"headers[{name!r}] must be str or None, not {type(value).__name__}")
            check_call(C.nc_request_set_header, handle, cstr(name, "header name"),
                       None if value is None else cstr(value, f"header {name!r}"),
                       detail=f"invalid header {name!r}")
        if timeout is not None:
            # 0 means "no limit" in C; a tiny positive timeout stays a limit (1 ms).
            ms = 0 if timeout == 0 else max(1, int(round(timeout * 1000)))
            check_call(C.nc_request_set_timeout_ms, handle, ms)
        if envelope is not None:
            check_call(C.nc_request_set_envelope, handle, 1 if envelope else 0)
        if limits is not None:
            limits.apply(handle)
        if deadline_ms is not None:
            check_call(C.nc_request_set_deadline_ms, handle, deadline_ms)
        if connect_read is not None:
            if connect_read[0] is not None:
                check_call(C.nc_request_set_connect_timeout_ms, handle, connect_read[0])
            if connect_read[1] is not None:
                check_call(C.nc_request_set_idle_timeout_ms, handle, connect_read[1])
        if max_redirects is not None:
            # 0: a 3xx is the response; -1: the client's limits.max_redirects
            # (follow_redirects=, resolved by _adapters.redirect_arg).
            check_call(C.nc_request_set_max_redirects, handle, max_redirects)
        if output is not None:
            check_call(C.nc_request_set_output_file, handle, os.fsencode(output),
                       detail=f"output {output!r}")
        if group is not None:
            check_call(C.nc_request_set_group, handle, cstr(group, "group"), detail=f"group {group!r}")
        if label is not None:
            set_label(handle, label)
        if skip_error_handler:
            set_skip_error_handler(handle)
        return handle
    except BaseException:
        C.nc_request_free(handle)
        raise


def set_label(handle: RequestHandle, label: str) -> None:
    """``nc_request_set_label``: the caller's name for the request, carried by its
    errors (``Error.request.label``), events and log lines. InvalidArgument for an
    empty label or one with control characters (the request is unchanged)."""
    check_call(C.nc_request_set_label, handle, cstr(label, "label"), detail=f"label {label!r}")


def set_skip_error_handler(handle: RequestHandle) -> None:
    """``nc_request_set_flags(NC_REQUEST_SKIP_ERROR_HANDLER)``: the C error handler
    skips the request, as the Python ``on_error`` hook does for
    ``skip_error_handler=True`` (the only flag these bindings set)."""
    check_call(C.nc_request_set_flags, handle, NC_REQUEST_SKIP_ERROR_HANDLER, detail="flags")


# --------------------------------------------------------------------------
# Plain requests (a method and a path, no other argument) are built once per
# thread and sent again: that saves building the nc_request, and lets the
# library reuse the request's resolved URL (it caches it per nc_request). Each
# thread has its own, as an nc_request is used by one thread at a time.
# --------------------------------------------------------------------------

class _PlainRequest:
    """An nc_request kept for reuse by one thread; freed with its cache."""
    __slots__ = ("handle",)

    def __init__(self, handle: RequestHandle) -> None:
        self.handle = handle

    def __del__(self, _free: Any = C.nc_request_free) -> None:
        _free(self.handle)


_PLAIN_CACHE_SIZE = 64
_plain = threading.local()


def plain_request(method: str, path: str) -> RequestHandle:
    """The calling thread's ``nc_request`` for ``method path`` without options.

    Borrowed: do not free it. Raises as :func:`build_request` does.
    """
    cache: Optional[Dict[Tuple[str, str], _PlainRequest]] = getattr(_plain, "cache", None)
    if cache is None:
        cache = _plain.cache = {}
    entry = cache.get((method, path))
    if entry is None:
        if len(cache) >= _PLAIN_CACHE_SIZE:
            cache.clear()
        entry = cache[(method, path)] = _PlainRequest(build_request(method, path))
    return entry.handle


# --------------------------------------------------------------------------
# The endpoint catalog (netcore.h "Endpoint catalog")
# --------------------------------------------------------------------------

_ENCODINGS = ("query", "form", "json")


def endpoint_request(name: str, params: Mapping[str, Any],
                     skip_error_handler: bool = False, label: Optional[str] = None) -> RequestHandle:
    """A new ``nc_request`` naming the endpoint ``name`` with ``params`` (a JSON
    object: placeholders first, the rest encoded per the endpoint). The caller
    frees it. Raises InvalidArgument for a bad name or params that are not JSON."""
    req = RequestHandle()
    check_call(C.nc_request_new_endpoint, cstr(name, "endpoint name"), ctypes.byref(req),
               detail=f"endpoint name {name!r}")
    if skip_error_handler or label is not None:
        try:
            if skip_error_handler:
                set_skip_error_handler(req)
            if label is not None:
                set_label(req, label)
        except BaseException:
            C.nc_request_free(req)
            raise
    if params:
        try:
            try:
                text = _dumps(dict(params))
            except (TypeError, ValueError) as exc:
                raise error_for(Status.INVALID_ARGUMENT, function="nc_request_set_params_json",
                                message=f"params of endpoint {name!r} are not JSON: {exc}") from None
            check_call(C.nc_request_set_params_json, req, text, len(text), detail="params")
        except BaseException:
            C.nc_request_free(req)
            raise
    return req


def endpoint_spec(*, method: str = "GET", path: str, encoding: Optional[str] = None,
                  headers: Optional[Mapping[str, str]] = None, timeout: Optional[TimeoutArg] = None,
                  envelope: Optional[bool] = None, retry: Any = None, cache: Optional[str] = None,
                  group: Optional[str] = None) -> bytes:
    """The spec JSON of ``nc_client_define_endpoint`` (``timeout`` in seconds: the
    total, or a ``(connect, read)`` pair: the endpoint's connect and idle timeouts)."""
    spec: Dict[str, Any] = {"method": method, "path": path}
    if encoding is not None:
        if encoding not in _ENCODINGS:
            raise error_for(Status.INVALID_ARGUMENT, function="define_endpoint",
                            message=f"encoding must be one of {', '.join(_ENCODINGS)}, got {encoding!r}")
        spec["encoding"] = encoding
    if headers is not None:
        spec["headers"] = dict(headers)
    if isinstance(timeout, tuple):
        if len(timeout) != 2:
            raise error_for(Status.INVALID_ARGUMENT, function="define_endpoint",
                            message=f"timeout as a tuple must be (connect, read) seconds, got {timeout!r}")
        for key, seconds in (("connect_timeout_ms", timeout[0]), ("idle_timeout_ms", timeout[1])):
            try:
                ms = _ms(seconds, f"timeout's {'connect' if key.startswith('connect') else 'read'}")
            except ValueError as e:
                raise error_for(Status.INVALID_ARGUMENT, function="define_endpoint", message=str(e)) from None
            if ms is not None:
                spec[key] = ms
    elif timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) \
                or timeout < 0:
            raise error_for(Status.INVALID_ARGUMENT, function="define_endpoint",
                            message=f"timeout must be a non-negative number of seconds, got {timeout!r}")
        spec["timeout_ms"] = int(round(timeout * 1000))
    for key, value in (("envelope", envelope), ("retry", retry), ("cache", cache), ("group", group)):
        if value is not None:
            # A Retry becomes its "retry" object; anything else is the library's to check.
            spec[key] = value.to_json() if isinstance(value, Retry) else value
    return _dumps(spec)


class RequestLimits:
    """A request's retry policy and time limits (``retry=``, ``deadline=``,
    ``connect_timeout=``, ``idle_timeout=`` of the request methods), checked before
    the C builder exists and applied to it by :func:`build_request`."""

    __slots__ = ("retry", "deadline_ms", "connect_ms", "idle_ms", "cache", "cached_hook")

    def __init__(self, retry: Any = None, deadline: Optional[float] = None,
                 connect_timeout: Optional[float] = None, idle_timeout: Optional[float] = None,
                 *, retry_given: bool = False, cache: Any = None, on_cached: Any = None) -> None:
        # False is "no retry"; None means "the client's", given explicitly or not.
        self.retry = _dumps(retry_json(retry)) if retry_given else None
        self.deadline_ms = _ms(deadline, "deadline")
        self.connect_ms = _ms(connect_timeout, "connect_timeout")
        self.idle_ms = _ms(idle_timeout, "idle_timeout")
        # The cache policy and cached callback (_cache.py); the hook object must
        # outlive the request: the caller keeps these limits until it completes.
        self.cache = _cache.policy_value(cache) if cache is not None else None
        self.cached_hook = _cache.CachedHook(on_cached) if on_cached is not None else None

    @staticmethod
    def of(retry: Any = None, deadline: Optional[float] = None, connect_timeout: Optional[float] = None,
           idle_timeout: Optional[float] = None, cache: Any = None,
           on_cached: Any = None) -> "Optional[RequestLimits]":
        """The limits of these arguments, or ``None`` when none is given."""
        if (retry is None and deadline is None and connect_timeout is None and idle_timeout is None
                and cache is None and on_cached is None):
            return None
        return RequestLimits(retry, deadline, connect_timeout, idle_timeout, retry_given=retry is not None,
                             cache=cache, on_cached=on_cached)

    def apply(self, handle: RequestHandle) -> None:
        if self.cache is not None or self.cached_hook is not None:
            _cache.apply(handle, self.cache, self.cached_hook)
        if self.retry is not None:
            check_call(C.nc_request_set_retry_json, handle, self.retry, len(self.retry),
                       detail="invalid retry policy")
        if self.deadline_ms is not None:
            check_call(C.nc_request_set_deadline_ms, handle, self.deadline_ms)
        if self.connect_ms is not None:
            check_call(C.nc_request_set_connect_timeout_ms, handle, self.connect_ms)
        if self.idle_ms is not None:
            check_call(C.nc_request_set_idle_timeout_ms, handle, self.idle_ms)


def _ms(seconds: Optional[float], what: str) -> Optional[int]:
    """Seconds as the library's milliseconds: 0 stays 0 (no limit), anything above
    is at least 1 ms; ``None`` stays ``None`` (the client's)."""
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) \
            or not 0 <= seconds <= 2147483.647:
        raise ValueError(f"{what} must be a number of seconds from 0 to 2147483.647, got {seconds!r}")
    return 0 if seconds == 0 else max(1, int(round(seconds * 1000)))
