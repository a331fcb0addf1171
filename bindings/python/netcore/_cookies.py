"""The cookie jar (``"cookies"`` of the configuration, netcore.h "Cookies"):
``client.cookies``, a read-only view of the jar with ``clear()`` and ``save()``.

A client made with ``{"cookies": {"enabled": True}}`` keeps the cookies servers set
and sends each back only where its domain, path and Secure rules allow (libcurl's
cookie engine, shared by all of the client's requests). ``"file"`` persists the
jar: loaded when the client is made, written at :meth:`Client.close` and on
:meth:`Cookies.save`. Off by default: a client without it keeps none and this view
is empty. Cookie values are credentials: do not log them.
"""
from __future__ import annotations

import ctypes
import json
from typing import Any, Iterator, List, NamedTuple, Optional

from ._capi import C
from .errors import Status, check_call, error_for
from ._capi import ErrorHandle


class Cookie(NamedTuple):
    """One cookie of the jar."""

    name: str
    value: str
    #: The host, no leading dot; ``include_subdomains`` when it has a ``Domain=``.
    domain: str
    path: str
    secure: bool
    #: Unix seconds; ``0`` for a session cookie.
    expires: int
    http_only: bool = False
    include_subdomains: bool = False

    def __repr__(self) -> str:
        # The value is a credential: kept out of reprs (logs, tracebacks).
        return (f"Cookie(name={self.name!r}, value='…', domain={self.domain!r}, path={self.path!r}, "
                f"secure={self.secure}, expires={self.expires})")


class Cookies:
    """A read-only, live view of a client's jar (``client.cookies``): iterate it for
    :class:`Cookie` values, ``len()`` it, look a value up by name with ``jar["sid"]``
    or :meth:`get`, ``"sid" in jar``. Each access reads the jar as it is now."""

    def __init__(self, core: Any) -> None:
        self._core = core

    def _list(self) -> List[Cookie]:
        out = ctypes.c_void_p()
        with self._core.use() as h:
            check_call(C.nc_client_cookies_json, h, ctypes.byref(out))
        try:
            text = ctypes.string_at(out.value).decode("utf-8", "replace") if out.value else "[]"
        finally:
            C.nc_string_free(out)
        return [Cookie(c["name"], c["value"], c["domain"], c["path"], bool(c["secure"]), int(c["expires"]),
                       bool(c["http_only"]), bool(c["include_subdomains"])) for c in json.loads(text)]

    def __iter__(self) -> Iterator[Cookie]:
        return iter(self._list())

    def __len__(self) -> int:
        return len(self._list())

    def __contains__(self, name: object) -> bool:
        return any(c.name == name for c in self._list())

    def __getitem__(self, name: str) -> str:
        """The value of the cookie called ``name`` (the first, when several
        domains or paths have one); :class:`KeyError` if there is none."""
        value = self.get(name)
        if value is None:
            raise KeyError(name)
        return value

    def get(self, name: str, default: Optional[str] = None) -> Optional[str]:
        for c in self._list():
            if c.name == name:
                return c.value
        return default

    def clear(self) -> None:
        """Forget every cookie (``nc_client_cookies_clear``); the file, if any, is
        rewritten at the next :meth:`save` or when the client closes."""
        with self._core.use() as h:
            check_call(C.nc_client_cookies_clear, h)

    def save(self) -> None:
        """Write the jar to ``"cookies"."file"`` now (``nc_client_cookies_flush``):
        atomically, mode 0600. Nothing without a file.

        Raises:
            TransportError: the file could not be written (code 23; the message
                names the file). The previous file is unchanged.
        """
        err = ErrorHandle()
        with self._core.use() as h:
            status = C.nc_client_cookies_flush(h, ctypes.byref(err))
        if status != 0:
            try:
                raise error_for(status, err, function="nc_client_cookies_flush")
            finally:
                C.nc_error_free(err)

    def __repr__(self) -> str:
        return f"<Cookies {len(self)} cookie(s)>"
