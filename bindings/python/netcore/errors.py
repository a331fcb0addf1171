"""Exceptions raised by netcore.

Two families, kept apart on purpose:

* **Request results** — :class:`Error` and its subclasses. One failed request
  gives exactly one of them (the C library's ``nc_error``): the request was sent,
  or at least accepted, and ended badly. The class follows the error's domain
  (``docs/errors.md``)::

      Error
      ├── ClientError          NC_DOMAIN_CLIENT    (code: NC_CLIENT_*)
      │   ├── Cancelled            1  Task.cancel() / asyncio cancellation
      │   ├── Unreachable          2  network known to be down
      │   ├── InvalidRequest       3  e.g. a relative path and no base_url
      │   ├── InvalidConfig        4  Client(config): the message names the key
      │   ├── ResponseTooLarge     5  limits.max_response_bytes
      │   ├── ShutDown             6  the client was closed with the request in flight
      │   ├── HeadersTooLarge      7  limits.max_header_count / _bytes
      │   ├── InternalError        8  libcurl could not be set up
      │   ├── AdapterFailed        9  a request adapter refused the request
      │   ├── DeadlineExceeded    10  deadline_ms ran out across attempts and waits
      │   ├── AuthRefreshFailed   11  the token refresh it waited for failed
      │   ├── NotCached           12  CachePolicy.CACHE_ONLY found nothing stored
      │   └── NoStub              13  stubs in "only" mode: no stub answers the request
      ├── TransportError       NC_DOMAIN_TRANSPORT (code: the CURLcode)
      │   └── Timeout              28 CURLE_OPERATION_TIMEDOUT
      ├── HTTPError            NC_DOMAIN_HTTP      (code: the HTTP status)
      ├── APIError             NC_DOMAIN_API       (code: the business code)
      └── ParseError           NC_DOMAIN_PARSE     (code: NC_PARSE_*)

* **Call misuse** — :class:`StatusError` and its subclasses, raised when a C
  function returns a status other than ``NC_OK`` (a bad argument, a closed
  client...). Nothing was sent. They also derive from the matching built-in
  (:class:`InvalidArgument` is a :class:`ValueError`, :class:`InvalidState` a
  :class:`RuntimeError`, :class:`NoMemory` a :class:`MemoryError`), so
  ``except ValueError`` works as usual.

**This module is the one place where a C outcome becomes a Python exception**:
:func:`error_for` turns an ``nc_status`` (and the ``nc_error`` that explains it,
if any) into the right class, and :func:`check_call` raises it for a non-OK status.
Every other module calls these; none builds an :class:`Error` or a
:class:`StatusError` itself. Errors are plain Python data, copied from
``nc_error_json()`` (plus ``nc_error_body()`` for the exact bytes), so they
outlive the handle they came from.
"""
from __future__ import annotations

import ctypes
import enum
import json
from typing import TYPE_CHECKING, Any, Dict, Mapping, NamedTuple, Optional, Type, Union, cast

from ._capi import C, NC_OK, ErrorHandle

if TYPE_CHECKING:  # pragma: no cover
    from .response import Response

__all__ = [
    "Domain", "ClientCode", "ParseCode", "Status",
    "Error", "RequestInfo", "ClientError", "Cancelled", "Unreachable", "InvalidRequest", "InvalidConfig",
    "ResponseTooLarge", "ShutDown", "HeadersTooLarge", "InternalError", "AdapterFailed",
    "DeadlineExceeded", "AuthRefreshFailed", "NotCached", "NoStub",
    "TransportError", "Timeout", "HTTPError", "APIError", "ParseError",
    "StatusError", "InvalidArgument", "InvalidState", "NoMemory", "Failed",
]


class Domain(enum.IntEnum):
    """Error domains (``NC_DOMAIN_*``); compare with :attr:`Error.domain_code`."""

    CLIENT = 1
    TRANSPORT = 2
    HTTP = 3
    API = 4
    PARSE = 5


class ClientCode(enum.IntEnum):
    """Codes of :class:`ClientError` (``NC_CLIENT_*``)."""

    CANCELLED = 1
    UNREACHABLE = 2
    INVALID_REQUEST = 3
    INVALID_CONFIG = 4
    RESPONSE_TOO_LARGE = 5
    SHUTDOWN = 6
    HEADERS_TOO_LARGE = 7
    INTERNAL = 8
    ADAPTER_FAILED = 9
    DEADLINE_EXCEEDED = 10
    AUTH_REFRESH_FAILED = 11
    NOT_CACHED = 12
    NO_STUB = 13


class ParseCode(enum.IntEnum):
    """Codes of :class:`ParseError` (``NC_PARSE_*``)."""

    INVALID_JSON = 1
    NOT_OBJECT = 2
    MISSING_FIELD = 3
    FIELD_TYPE = 4
    DECODING_FAILED = 5
    DUPLICATE_KEY = 6


class Status(enum.IntEnum):
    """Status codes returned by the C functions themselves (``nc_status``)."""

    OK = 0
    INVALID_ARGUMENT = 1
    INVALID_STATE = 2
    NO_MEMORY = 3
    FAILED = 4


# --------------------------------------------------------------------------
# Request results
# --------------------------------------------------------------------------

class RequestInfo(NamedTuple):
    """Which request an error belongs to (``nc_error_json``'s ``"request"``, netcore.h
    ``nc_error_request_*``): what an ``on_error`` hook needs to say which call failed.

    Attributes:
        method: the HTTP method; ``None`` when the request could not be resolved
            (an unknown endpoint, a parameter its declaration refuses).
        url: the URL as resolved when sent (before redirects), redacted as events
            show it (no userinfo, secret query values ``REDACTED``); ``None`` as
            ``method``.
        endpoint: the catalog endpoint's name (:meth:`Client.call`), else ``None``.
        label: the caller's ``label=``, else ``None``.
        id: the request's task id (``nc_task_id``, the ``"id"`` of its events).
    """

    method: Optional[str]
    url: Optional[str]
    endpoint: Optional[str]
    label: Optional[str]
    id: int

    @classmethod
    def from_json(cls, obj: Any) -> Optional["RequestInfo"]:
        """From the ``"request"`` object (``None`` for null or another type)."""
        if not isinstance(obj, dict):
            return None
        return cls(obj.get("method"), obj.get("url"), obj.get("endpoint"), obj.get("label"),
                   int(obj.get("id") or 0))


class Error(Exception):
    """A failed request: the Python form of one ``nc_error``.

    Attributes:
        domain: the domain's log name, e.g. ``"NCAPIErrorDomain"``.
        domain_code: the domain number (:class:`Domain`).
        code: the numeric code (``NC_CLIENT_*``, CURLcode, HTTP status, business
            code — 0 when the server's code is not an integer — or ``NC_PARSE_*``).
        code_str: the code as text; for API errors exactly as the server sent it.
        message: human-readable, never empty; for API errors the server's message.
        http_status: status of the response that produced the error, 0 if none.
        trace_id: the envelope's trace id, or ``None``.
        data: the envelope's data of a business error, as Python objects, or ``None``.
        body: the raw response body (``b""`` when no body was received).
        attempts: how many times the request was sent or a connection to send it was
            tried (0: never sent, e.g. a URL libcurl refuses).
        retryable: sending the same request again may succeed.
        auth_expired: the business code is one of ``envelope.auth_expired_codes``.
        timeout: which time limit ended the request: ``"connect"``,
            ``"total"``, ``"idle"`` (a :class:`Timeout`) or ``"deadline"`` (a
            :class:`DeadlineExceeded`); ``None`` when none did.
        response: the :class:`~netcore.Response` when one was received (HTTP, API
            and parse errors of a received body), else ``None``.
        user_message: the text for people the client's ``"messages"`` give this
            error (``nc_error_user_message``; docs/errors.md, "Messages for
            people"), ``None`` when no key matches. ``message`` stays the
            developer's text.
        request: which request failed, a :class:`RequestInfo` (method, redacted URL,
            endpoint, ``label=``, task id); ``None`` for an error no request
            produced (a refused configuration). ``endpoint`` and ``label`` are
            shortcuts to its fields.
        info: the whole ``nc_error_json()`` object, as a dict.
    """

    domain: str
    domain_code: int
    code: int
    code_str: str
    message: str
    http_status: int
    trace_id: Optional[str]
    data: Any
    body: bytes
    attempts: int
    retryable: bool
    auth_expired: bool
    timeout: Optional[str]
    user_message: Optional[str]
    response: Optional["Response"]
    info: Dict[str, Any]

    def __init__(self, message: str = "", *, domain: str = "", domain_code: int = 0,
                 code: int = 0, code_str: Optional[str] = None, http_status: int = 0,
                 trace_id: Optional[str] = None, data: Any = None, body: bytes = b"",
                 attempts: int = 0, retryable: bool = False, auth_expired: bool = False,
                 response: Optional["Response"] = None,
                 info: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(message)
        self.message = message
        self.domain = domain
        self.domain_code = domain_code
        self.code = code
        self.code_str = str(code) if code_str is None else code_str
        self.http_status = http_status
        self.trace_id = trace_id
        self.data = data
        self.body = body
        self.attempts = attempts
        self.retryable = retryable
        self.auth_expired = auth_expired
        self.response = response
        self.info = dict(info) if info is not None else {}
        self.timeout: Optional[str] = self.info.get("timeout")
        self.user_message: Optional[str] = self.info.get("user_message")
        self.request: Optional[RequestInfo] = RequestInfo.from_json(self.info.get("request"))

    @property
    def endpoint(self) -> Optional[str]:
        """The endpoint of the failed request (``request.endpoint``), else ``None``."""
        return self.request.endpoint if self.request is not None else None

    @property
    def label(self) -> Optional[str]:
        """The ``label=`` of the failed request (``request.label``), else ``None``."""
        return self.request.label if self.request is not None else None

    @classmethod
    def from_info(cls, info: Mapping[str, Any], body: bytes = b"",
                  response: Optional["Response"] = None) -> "Error":
        """Build the right subclass from an ``nc_error_json()`` object.

        Args:
            info: the decoded ``nc_error_json()`` text.
            body: the exact body bytes (``nc_error_body()``); the JSON form of the
                body is text and may have lost bytes that are not UTF-8.
            response: the response that produced the error, if one was received.
        """
        domain_code = int(info.get("domain_code") or 0)
        code = int(info.get("code") or 0)
        klass = _class_for(domain_code, code)
        return klass(
            str(info.get("message") or ""),
            domain=str(info.get("domain") or ""),
            domain_code=domain_code,
            code=code,
            code_str=str(info.get("code_str") if info.get("code_str") is not None else code),
            http_status=int(info.get("http_status") or 0),
            trace_id=info.get("trace_id"),
            data=info.get("data"),
            body=body,
            attempts=int(info.get("attempts") or 0),
            retryable=bool(info.get("retryable")),
            auth_expired=bool(info.get("auth_expired")),
            response=response,
            info=dict(info),
        )

    def __str__(self) -> str:
        where = f"{self.domain or type(self).__name__} {self.code_str}"
        if self.http_status and self.domain_code != Domain.HTTP:
            where += f", HTTP {self.http_status}"
        if self.trace_id:
            where += f", trace {self.trace_id}"
        return f"{self.message} ({where})"

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(domain={self.domain!r}, code={self.code!r}, "
                f"code_str={self.code_str!r}, message={self.message!r}, "
                f"http_status={self.http_status!r})")

    def __reduce__(self) -> Any:
        # Picklable (e.g. across processes); the response is not carried over.
        return (_rebuild, (self.info, self.body))


def _rebuild(info: Dict[str, Any], body: bytes) -> Error:
    return Error.from_info(info, body)


class ClientError(Error):
    """NC_DOMAIN_CLIENT: the library ended the request (cancel, shutdown, limits,
    invalid request or configuration). ``code`` is a :class:`ClientCode`."""


class Cancelled(ClientError):
    """The request was cancelled (:meth:`netcore.Task.cancel`)."""


class Unreachable(ClientError):
    """The network is known to be unreachable: the request failed fast."""


class InvalidRequest(ClientError):
    """The request cannot be built (e.g. a relative path and no base_url); nothing was sent."""


class InvalidConfig(ClientError, ValueError):
    """The client configuration is wrong; the message names the key."""


class ResponseTooLarge(ClientError):
    """The body exceeded ``limits.max_response_bytes``."""


class ShutDown(ClientError):
    """The client was closed while the request was in flight."""


class HeadersTooLarge(ClientError):
    """The response headers exceeded ``limits.max_header_count`` / ``max_header_bytes``."""


class InternalError(ClientError):
    """libcurl could not be set up (out of memory)."""


class AdapterFailed(ClientError):
    """A request adapter (``auth=`` callable, C adapter) refused the request;
    nothing was sent. The message is the adapter's."""


class DeadlineExceeded(ClientError):
    """The request's deadline (``deadline_ms``, ``deadline=``) ran out across its
    attempts and the waits between them; the message names the last attempt's
    error. ``timeout`` is ``"deadline"``."""


class AuthRefreshFailed(ClientError):
    """The token refresh the request waited for failed (``refresher=`` raised or
    returned no token); the message is the refresh's."""


class NotCached(ClientError):
    """``cache=CachePolicy.CACHE_ONLY`` found no usable stored answer (or the
    client has no ``"cache"``); nothing was sent."""


class NoStub(ClientError):
    """The client's ``"stubs"`` are in ``"only"`` mode and none answers the
    request (the message names its method and URL); nothing was sent
    (:mod:`netcore.testing`)."""


class TransportError(Error):
    """NC_DOMAIN_TRANSPORT: the transfer failed; ``code`` is libcurl's CURLcode
    (6 cannot resolve, 7 cannot connect, 28 timeout, 35 TLS, 52 empty reply...)."""


class Timeout(TransportError):
    """A time limit of the attempt expired (CURLcode 28); ``timeout`` says which:
    ``"connect"`` (connect_timeout_ms), ``"total"`` (timeout_ms) or ``"idle"``
    (idle_timeout_ms)."""


class HTTPError(Error):
    """NC_DOMAIN_HTTP: status >= 400 and the body is not a business envelope;
    ``code`` is the HTTP status."""


class APIError(Error):
    """NC_DOMAIN_API: the server's envelope says the call failed; ``code`` /
    ``code_str`` are its business code, ``message`` its message."""


class ParseError(Error, ValueError):
    """NC_DOMAIN_PARSE: the body is not what the envelope configuration expects
    (raised by a request), not JSON (:meth:`Response.json`), or the data does not
    fit the model asked for (``model=``, :meth:`Response.data_as`: code
    ``DECODING_FAILED``, the message naming the key path); ``code`` is a
    :class:`ParseCode`. Also a :class:`ValueError`, as ``json.JSONDecodeError`` is."""


_CLIENT_CLASSES: Dict[int, Type[ClientError]] = {
    ClientCode.CANCELLED: Cancelled,
    ClientCode.UNREACHABLE: Unreachable,
    ClientCode.INVALID_REQUEST: InvalidRequest,
    ClientCode.INVALID_CONFIG: InvalidConfig,
    ClientCode.RESPONSE_TOO_LARGE: ResponseTooLarge,
    ClientCode.SHUTDOWN: ShutDown,
    ClientCode.HEADERS_TOO_LARGE: HeadersTooLarge,
    ClientCode.INTERNAL: InternalError,
    ClientCode.ADAPTER_FAILED: AdapterFailed,
    ClientCode.DEADLINE_EXCEEDED: DeadlineExceeded,
    ClientCode.AUTH_REFRESH_FAILED: AuthRefreshFailed,
    ClientCode.NOT_CACHED: NotCached,
    ClientCode.NO_STUB: NoStub,
}

_DOMAIN_CLASSES: Dict[int, Type[Error]] = {
    Domain.CLIENT: ClientError,
    Domain.TRANSPORT: TransportError,
    Domain.HTTP: HTTPError,
    Domain.API: APIError,
    Domain.PARSE: ParseError,
}

CURLE_OPERATION_TIMEDOUT = 28


def _class_for(domain_code: int, code: int) -> Type[Error]:
    if domain_code == Domain.CLIENT:
        return _CLIENT_CLASSES.get(code, ClientError)
    if domain_code == Domain.TRANSPORT and code == CURLE_OPERATION_TIMEDOUT:
        return Timeout
    return _DOMAIN_CLASSES.get(domain_code, Error)


# --------------------------------------------------------------------------
# Call misuse (nc_status)
# --------------------------------------------------------------------------

class StatusError(Exception):
    """A C function refused the call (status other than ``NC_OK``); nothing was sent.

    Attributes:
        status: the ``nc_status`` value (:class:`Status`).
        status_name: its name, e.g. ``"NC_ERR_INVALID_ARGUMENT"``.
        function: the C function that returned it.
    """

    def __init__(self, message: str, *, status: int, status_name: str = "",
                 function: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.status_name = status_name
        self.function = function


class InvalidArgument(StatusError, ValueError):
    """NC_ERR_INVALID_ARGUMENT: a bad value (CR/LF in a header, unknown environment...)."""


class InvalidState(StatusError, RuntimeError):
    """NC_ERR_INVALID_STATE: the client is closed or shutting down, or the call is
    not allowed from a completion callback (e.g. a sync request from a callback)."""


class NoMemory(StatusError, MemoryError):
    """NC_ERR_NO_MEMORY: an allocation failed."""


class Failed(StatusError):
    """NC_ERR_FAILED returned where no ``nc_error`` explains it (unexpected)."""


_STATUS_CLASSES: Dict[int, Type[StatusError]] = {
    Status.INVALID_ARGUMENT: InvalidArgument,
    Status.INVALID_STATE: InvalidState,
    Status.NO_MEMORY: NoMemory,
    Status.FAILED: Failed,
}


# --------------------------------------------------------------------------
# From C to Python: the one place
# --------------------------------------------------------------------------

def _status_name(status: int) -> str:
    return str(C.nc_status_str(status).decode("ascii", "replace"))


def error_for(status: int, error: Optional[ErrorHandle] = None, *, function: str = "",
              response: Optional["Response"] = None, detail: str = "",
              message: str = "") -> Union[Error, StatusError]:
    """The exception for the outcome of a C call. Every netcore exception that
    comes from the library (or stands for one of its statuses) is built here.

    Args:
        status: the ``nc_status`` the call returned (``Status.FAILED`` for a
            completion, which reports its failure with an ``nc_error`` only).
        error: an ``nc_error *`` (borrowed: read, not freed). When it is not NULL
            the result is the request's :class:`Error` (the subclass for its
            domain and code), whatever ``status`` is.
        function: the C function that returned ``status`` (``StatusError.function``).
        response: the :class:`~netcore.Response` that came with ``error``, if any.
        detail: context put before the message, e.g. ``"invalid header 'X-A'"``.
        message: the message of a refusal decided in Python before calling C
            (a closed client, a NUL in a string); default
            ``"<function>() returned <NC_ERR_...>"``.

    Returns:
        An :class:`Error` when ``error`` is given, else the :class:`StatusError`
        subclass for ``status`` (``Failed`` for ``NC_ERR_FAILED`` without an
        ``nc_error``).
    """
    if error:
        text = C.nc_error_json(error)
        info = json.loads(text) if text else {"message": "unknown error"}
        body = C.nc_error_body(error, ctypes.byref(ctypes.c_size_t(0)))
        return Error.from_info(info, body or b"", response)
    status_name = _status_name(status)
    klass = _STATUS_CLASSES.get(status, StatusError)
    text = message or f"{function}() returned {status_name}"
    if detail:
        text = f"{detail}: {text}"
    return klass(text, status=status, status_name=status_name, function=function)


def check_call(function: Any, *args: Any, detail: str = "") -> None:
    """Call the ``nc_status`` function ``function`` (a ``C.nc_...``) with ``args``;
    raise :func:`error_for`'s :class:`StatusError` unless it returns ``NC_OK``
    (as :func:`subprocess.check_call` does for an exit status)::

        check_call(C.nc_request_set_query, req, name, value)

    For functions that may also report an ``nc_error`` (``nc_client_new``,
    ``nc_client_send_sync``) call :func:`error_for` with both instead.
    """
    status = function(*args)
    if status != NC_OK:
        raise error_for(status, function=function.__name__, detail=detail)


_PARSE_DOMAIN = "NCParseErrorDomain"


def _response_info(response: "Response") -> Dict[str, Any]:
    """What an error made in Python carries of the response it is about: its
    status, and the request it answers (``nc_response_metrics_json``'s "request")."""
    info: Dict[str, Any] = {"http_status": response.status, "attempts": 1}
    try:
        metrics = response.metrics
    except Exception:  # a response not from the library (tests): no request
        return info
    # The call's method, endpoint and label as sent (the Response keeps no more of
    # its request); the URL that answered, redacted; the task id (metrics "id").
    method, endpoint, label = getattr(response, "_sent", None) or (None, None, None)
    info["request"] = {"method": method, "url": metrics.get("url"), "endpoint": endpoint,
                       "label": label, "id": metrics.get("id", 0)}
    return info


def parse_error(code: ParseCode, message: str, response: Optional["Response"] = None,
                data: Any = None) -> "ParseError":
    """A :class:`ParseError` decided in Python about a received response: the body
    is not JSON (:meth:`Response.json`, ``INVALID_JSON``) or the data does not fit a
    model (``DECODING_FAILED``). It has the response's status, body and data, and
    ``response``; ``attempts`` 1 (a response was received)."""
    info: Dict[str, Any] = {"domain": _PARSE_DOMAIN, "domain_code": int(Domain.PARSE),
                            "code": int(code), "code_str": str(int(code)), "message": message,
                            "retryable": False, "auth_expired": False, "timeout": None}
    body = b""
    if response is not None:
        info.update(_response_info(response))
        body = response.body
    info["data"] = data
    return cast(ParseError, Error.from_info(info, body, response))


def http_error(response: "Response") -> "HTTPError":
    """The :class:`HTTPError` of a response whose status is 400 or more
    (:meth:`Response.raise_for_status`): as the library's, ``code`` the status, the
    response's body, and ``response``."""
    status = response.status
    reason = response.reason_phrase
    info: Dict[str, Any] = {"domain": "NCHTTPErrorDomain", "domain_code": int(Domain.HTTP),
                            "code": status, "code_str": str(status),
                            "message": f"HTTP {status}{' ' + reason if reason else ''} from {response.url}",
                            "retryable": status in (408, 429, 500, 502, 503, 504), "auth_expired": False, "timeout": None,
                            "data": None}
    info.update(_response_info(response))
    return cast(HTTPError, Error.from_info(info, response.body, response))


def client_error(code: ClientCode, message: str) -> Error:
    """The :class:`ClientError` subclass for ``code`` with ``message``, for a refusal
    decided in Python before any C call (``verify=False``: :class:`InvalidConfig`)."""
    return Error.from_info({"domain": "NCClientErrorDomain", "domain_code": int(Domain.CLIENT),
                            "code": int(code), "message": message})
