"""netcore — Python bindings for libnetcore (ctypes; sync and asyncio).

libnetcore is an HTTP network layer with a stable C ABI: base URLs and
environments, default headers, parameter encoding, the server's JSON envelope,
and one typed error per failed request. This package wraps ``libnetcore.so``
with ctypes; it needs no compiler and does not use jansson.

Sync::

    with netcore.Client({"base_url": "http://127.0.0.1:8080/api", "envelope": {}}) as client:
        user = client.get("/env/code/ok").data

asyncio (the same method names and parameters, awaited, as in httpx)::

    async with netcore.AsyncClient(config) as client:
        user = (await client.get("/env/code/ok")).data
        responses = await asyncio.gather(*(client.get(f"/items/{i}") for i in range(10)))

The earlier asyncio names (``aget``, ``apost``, ... ``arequest``) were removed in
netcore 0.3.0: drop the ``a``.

Errors: a failed request raises a subclass of :class:`netcore.Error`
(:class:`ClientError`, :class:`TransportError`, :class:`HTTPError`,
:class:`APIError`, :class:`ParseError`) with the fields of ``nc_error``. A refused
call (bad argument, closed client) raises a :class:`StatusError`
(:class:`InvalidArgument` is also a ``ValueError``, :class:`InvalidState` a
``RuntimeError``). Exceptions raised by callbacks and hooks are logged to the
``"netcore"`` logger, and so are the library's lines at the logger's level when a
client is made (a failed request is a WARNING); the package gives that logger a
:class:`logging.NullHandler`, so nothing reaches stderr unless the app configures
logging.

The library is found through ``$NETCORE_LIBRARY``, next to this package, in a
repository's ``build/lib`` above it, or by the system loader (see
:mod:`netcore._library`).
"""
from __future__ import annotations

import logging as _logging

from ._capi import C as _C, LIBRARY_PATH as _LIBRARY_PATH, libcurl_version as _libcurl_version
from ._adapters import Outgoing
from .aio import AsyncClient
from ._retry import Retry
from ._cookies import Cookie, Cookies
from .client import Callback, Client, Task
from .errors import (
    APIError,
    Cancelled,
    ClientCode,
    ClientError,
    Domain,
    Error,
    RequestInfo,
    Failed,
    HeadersTooLarge,
    HTTPError,
    InternalError,
    AdapterFailed,
    DeadlineExceeded,
    AuthRefreshFailed,
    NotCached,
    NoStub,
    InvalidArgument,
    InvalidConfig,
    InvalidRequest,
    InvalidState,
    NoMemory,
    ParseCode,
    ParseError,
    ResponseTooLarge,
    ShutDown,
    Status,
    StatusError,
    Timeout,
    TransportError,
    Unreachable,
)
from ._request import Timeouts
from .response import Headers, Redirect, Response
from ._cache import CachePolicy
from . import testing

__version__ = "0.3.0"

# The library's log lines (a failed request is a WARNING) and the exceptions raised
# by callbacks go to the "netcore" logger. As the logging HOWTO advises libraries, a
# NullHandler keeps them off stderr (logging's "last resort") in an app that
# configures no logging; an app that does (logging.basicConfig, ...) receives them.
_logging.getLogger("netcore").addHandler(_logging.NullHandler())

def library_path() -> str:
    """The path (or loader name) libnetcore was loaded from. A function since 0.4,
    as :func:`library_version` is (it was an attribute)."""
    return _LIBRARY_PATH


def library_version() -> str:
    """The loaded library's version text (``nc_version()``), e.g. ``"0.3.0"``."""
    return str(_C.nc_version().decode("ascii"))


def library_version_number() -> int:
    """The loaded library's version as ``0xMMmmpp`` (``nc_version_number()``)."""
    return int(_C.nc_version_number())


def default_user_agent() -> str:
    """The ``User-Agent`` every request sends unless the client's headers or the
    request's set one (the name in any case): ``"netcore/<library version>
    libcurl/<libcurl version>"``, e.g. ``"netcore/0.3.0 libcurl/7.88.1"`` — the
    libcurl the library loaded, as ``curl_version_info`` reports it. As
    ``requests.utils.default_user_agent()``, for an app that names itself and keeps
    it: ``Client({"headers": {"User-Agent": f"shop/2.3 {netcore.default_user_agent()}"}})``.
    """
    return f"netcore/{library_version()} libcurl/{_libcurl_version()}"


__all__ = [
    "AsyncClient", "Client", "Task", "Callback", "Response", "Headers", "Redirect", "Outgoing", "Timeouts",
    "Error", "RequestInfo", "ClientError", "Cancelled", "Unreachable", "InvalidRequest", "InvalidConfig",
    "ResponseTooLarge", "ShutDown", "HeadersTooLarge", "InternalError", "AdapterFailed",
    "DeadlineExceeded", "AuthRefreshFailed", "NotCached", "NoStub", "CachePolicy", "Retry", "Cookie", "Cookies",
    "TransportError", "Timeout", "HTTPError", "APIError", "ParseError",
    "StatusError", "InvalidArgument", "InvalidState", "NoMemory", "Failed",
    "Domain", "ClientCode", "ParseCode", "Status",
    "testing", "library_path", "library_version", "library_version_number", "default_user_agent", "__version__",
]
