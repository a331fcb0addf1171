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
      │   └── InternalError        8  libcurl could not be set up
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

This module does not touch ctypes; errors are plain Python data built from
``nc_error_json()`` (plus ``nc_error_body()`` for the exact bytes).
"""
from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Type

if TYPE_CHECKING:  # pragma: no cover
    from .response import Response

__all__ = [
    "Domain", "ClientCode", "ParseCode", "Status",
    "Error", "ClientError", "Cancelled", "Unreachable", "InvalidRequest", "InvalidConfig",
    "ResponseTooLarge", "ShutDown", "HeadersTooLarge", "InternalError",
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


class ParseCode(enum.IntEnum):
    """Codes of :class:`ParseError` (``NC_PARSE_*``)."""

    INVALID_JSON = 1
    NOT_OBJECT = 2
    MISSING_FIELD = 3
    FIELD_TYPE = 4


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
        response: the :class:`~netcore.Response` when one was received (HTTP, API
            and parse errors of a received body), else ``None``.
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


class TransportError(Error):
    """NC_DOMAIN_TRANSPORT: the transfer failed; ``code`` is libcurl's CURLcode
    (6 cannot resolve, 7 cannot connect, 28 timeout, 35 TLS, 52 empty reply...)."""


class Timeout(TransportError):
    """The request's total or connect timeout expired (CURLcode 28)."""


class HTTPError(Error):
    """NC_DOMAIN_HTTP: status >= 400 and the body is not a business envelope;
    ``code`` is the HTTP status."""


class APIError(Error):
    """NC_DOMAIN_API: the server's envelope says the call failed; ``code`` /
    ``code_str`` are its business code, ``message`` its message."""


class ParseError(Error):
    """NC_DOMAIN_PARSE: the body is not what the envelope configuration expects;
    ``code`` is a :class:`ParseCode`."""


_CLIENT_CLASSES: Dict[int, Type[ClientError]] = {
    ClientCode.CANCELLED: Cancelled,
    ClientCode.UNREACHABLE: Unreachable,
    ClientCode.INVALID_REQUEST: InvalidRequest,
    ClientCode.INVALID_CONFIG: InvalidConfig,
    ClientCode.RESPONSE_TOO_LARGE: ResponseTooLarge,
    ClientCode.SHUTDOWN: ShutDown,
    ClientCode.HEADERS_TOO_LARGE: HeadersTooLarge,
    ClientCode.INTERNAL: InternalError,
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


def status_error(status: int, status_name: str, function: str, detail: str = "") -> StatusError:
    """The exception for a non-OK ``nc_status`` returned by ``function``."""
    klass = _STATUS_CLASSES.get(status, StatusError)
    message = f"{function}() returned {status_name}"
    if detail:
        message = f"{detail}: {message}"
    return klass(message, status=status, status_name=status_name, function=function)
