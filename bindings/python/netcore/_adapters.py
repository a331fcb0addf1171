"""Request adapters, token and basic auth for :class:`netcore.Client` and
:class:`netcore.AsyncClient` (``auth=``, ``set_token``, ``follow_redirects=``).

``auth`` is one of:

* ``("user", "password")`` — ``nc_client_set_basic_auth``;
* ``"token"`` — ``nc_client_set_token`` (``Authorization: Bearer token``);
* a callable ``auth(outgoing)`` — an adapter (``nc_client_add_adapter``) run
  before every attempt on the thread that drives the request; it reads and sets
  headers, sets or removes query parameters, reads the params as JSON and replaces
  the body through :class:`Outgoing` (signing runs after it). What it raises fails the request with
  :class:`netcore.AdapterFailed` (the exception's text is the message) and
  nothing is sent.
"""
from __future__ import annotations

import ctypes
import json
from typing import Any, Callable, Optional

from ._capi import ADAPTER_FN, C, NC_OK, OutgoingHandle
from ._request import cstr
from .errors import Status, check_call

__all__ = ["Outgoing", "make_adapter", "apply_auth", "without_redirects", "configured_redirects",
           "redirect_arg"]


class Outgoing:
    """What one attempt is about to send, as an ``auth=`` callable sees it. Valid
    only during the call (the handle is borrowed)."""

    __slots__ = ("_handle",)

    def __init__(self, handle: OutgoingHandle) -> None:
        self._handle: Optional[OutgoingHandle] = handle

    def _h(self) -> OutgoingHandle:
        if self._handle is None:
            raise RuntimeError("an Outgoing is only valid inside the adapter call")
        return self._handle

    @property
    def method(self) -> str:
        return (C.nc_outgoing_method(self._h()) or b"").decode("utf-8")

    @property
    def url(self) -> str:
        """The full URL, query included, percent-encoded as sent."""
        return (C.nc_outgoing_url(self._h()) or b"").decode("utf-8")

    @property
    def body(self) -> bytes:
        """The encoded body (``b""`` when there is none)."""
        return C.nc_outgoing_body(self._h(), ctypes.byref(ctypes.c_size_t())) or b""

    @property
    def params(self) -> Optional[Any]:
        """The request's params (the common params included) as Python objects,
        before they were encoded into the query or the body; ``None`` when none."""
        text = C.nc_outgoing_params_json(self._h())
        return None if text is None else json.loads(text.decode("utf-8"))

    def set_query(self, name: str, value: Optional[str]) -> None:
        """Set the query parameter ``name`` to ``value`` (every pair of that name is
        replaced; ``None`` only removes), percent-encoded as params are.

        Raises:
            InvalidArgument: an empty name.
        """
        check_call(C.nc_outgoing_set_query, self._h(), cstr(name, "query name"),
                   None if value is None else cstr(str(value), f"query {name!r}"),
                   detail=f"query {name!r}")

    def set_body(self, body: Optional[bytes], content_type: Optional[str] = None) -> None:
        """Replace the body (``None``: no body) and, when given, its Content-Type.

        Raises:
            InvalidArgument: CR/LF in the content type.
        """
        data = b"" if body is None else bytes(body)
        check_call(C.nc_outgoing_set_body, self._h(), None if body is None else data, len(data),
                   None if content_type is None else cstr(content_type, "content type"),
                   detail="body")

    def header(self, name: str) -> Optional[str]:
        """A header's value (case-insensitive name), ``None`` if absent."""
        value = C.nc_outgoing_header(self._h(), cstr(name, "header name"))
        return None if value is None else value.decode("utf-8")

    def set_header(self, name: str, value: Optional[str]) -> None:
        """Set (``None``: remove) a header of this attempt.

        Raises:
            InvalidArgument: not an HTTP token, or CR/LF in the value.
        """
        check_call(C.nc_outgoing_set_header, self._h(), cstr(name, "header name"),
                   None if value is None else cstr(value, f"header {name!r}"),
                   detail=f"header {name!r}")


def make_adapter(fn: Callable[[Outgoing], Any]) -> Any:
    """The C adapter (an ``ADAPTER_FN``) calling ``fn``; keep it alive while installed."""

    def trampoline(out: int, _userdata: Any) -> int:
        outgoing = Outgoing(OutgoingHandle(out))
        try:
            fn(outgoing)
            return NC_OK
        except BaseException as exc:  # the request fails; nothing propagates into C
            message = (str(exc) or type(exc).__name__).replace("\0", " ")
            try:
                check_call(C.nc_outgoing_fail, outgoing._h(), message.encode("utf-8", "replace"))
            except Exception:  # pragma: no cover - only a NULL handle is refused
                pass
            return int(Status.FAILED)
        finally:
            outgoing._handle = None

    return ADAPTER_FN(trampoline)


def apply_auth(core: Any, auth: Any) -> None:
    """Install ``auth`` (see the module's doc) on a ClientCore."""
    if auth is None:
        return
    if isinstance(auth, tuple) and len(auth) == 2:
        core.set_basic_auth(auth[0], auth[1])
    elif isinstance(auth, str):
        core.set_token(auth)
    elif callable(auth):
        core.add_adapter(make_adapter(auth))
    else:
        raise TypeError("auth must be a (user, password) tuple, a token string or a callable, "
                        f"not {type(auth).__name__}")


def without_redirects(config: bytes) -> bytes:
    """The configuration text with ``limits.max_redirects`` 0 (``follow_redirects=False``).
    Text that is not a JSON object is passed on unchanged for the library to report."""
    try:
        obj = json.loads(config.decode("utf-8"))
    except ValueError:
        return config
    if not isinstance(obj, dict):
        return config
    limits = obj.get("limits")
    obj["limits"] = dict(limits, max_redirects=0) if isinstance(limits, dict) else {"max_redirects": 0}
    return json.dumps(obj).encode("utf-8")


def configured_redirects(config: bytes) -> int:
    """``limits.max_redirects`` of the configuration text (10, the default, if absent)."""
    try:
        limits = json.loads(config.decode("utf-8")).get("limits") or {}
        value = limits.get("max_redirects", 10)
        return value if isinstance(value, int) and 0 <= value <= 100 else 10
    except (ValueError, AttributeError):
        return 10


def redirect_arg(core: Any, follow_redirects: Optional[bool]) -> Optional[int]:
    """The nc_request_set_max_redirects value of a request's ``follow_redirects=``:
    None keeps the client's; False 0; True the configured limit (-1 when the client
    follows redirects, the configured limit itself when it was made with
    ``follow_redirects=False``)."""
    if follow_redirects is None:
        return None
    if not follow_redirects:
        return 0
    limit = getattr(core, "redirect_limit", -1)
    return -1 if limit < 0 else limit
