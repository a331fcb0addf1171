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

import base64
import ctypes
import itertools
import json
import threading
from collections.abc import Mapping
from typing import Any, Callable, Dict, List, Optional, Tuple

from ._capi import ADAPTER_FN, C, NC_OK, OutgoingHandle
from ._request import cstr
from .errors import Status, check_call

__all__ = ["Outgoing", "make_adapter", "apply_auth", "without_redirects", "configured_redirects",
           "redirect_arg", "PerRequest", "per_request", "follow_arg"]


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


# --------------------------------------------------------------------------
# Per-request auth= and cookies= (requests' and httpx's keywords)
# --------------------------------------------------------------------------

#: The header that tells the client's dispatching adapter which request's ``auth=``
#: callable to run; the adapter removes it before anything is sent.
_MARK = "X-Netcore-Request-Auth"
_ids = itertools.count(1)
_lock = threading.Lock()


class PerRequest:
    """The headers of a request's ``auth=`` and ``cookies=``, and the callable it
    registered (released with :meth:`release` when the request has completed)."""

    __slots__ = ("headers", "core", "key")

    def __init__(self, headers: List[Tuple[str, Optional[str]]], core: Any = None, key: int = 0) -> None:
        self.headers = headers
        self.core = core
        self.key = key

    def release(self) -> None:
        if self.key:
            self.core.request_auth.pop(self.key, None)
            self.key = 0


def _dispatch(core: Any) -> Callable[[Outgoing], None]:
    """The client's adapter that runs a request's ``auth=`` callable, before every
    attempt as the client's own adapters are (installed at the first such request)."""
    table: Dict[int, Callable[[Outgoing], Any]] = core.request_auth

    def run(out: Outgoing) -> None:
        mark = out.header(_MARK)
        if mark is None:
            return
        out.set_header(_MARK, None)
        fn = table.get(int(mark)) if mark.isdigit() else None
        if fn is None:  # pragma: no cover - released only after the completion
            raise RuntimeError("the request's auth= callable is gone")
        fn(out)

    return run


def _cookie_header(cookies: Any) -> str:
    pairs = list(cookies.items()) if isinstance(cookies, Mapping) else list(cookies)
    parts = []
    for item in pairs:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise TypeError("cookies must be a mapping or (name, value) pairs")
        name, value = item
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError("cookies: names and values must be str")
        bad = set(";,\r\n\0") & set(name + value) or ("=" in name) or not name.strip()
        if bad:
            raise ValueError(f"cookies: {name!r}={value!r} cannot be sent in a Cookie header")
        parts.append(f"{name}={value}")
    return "; ".join(parts)


def per_request(core: Any, auth: Any, cookies: Any) -> Optional[PerRequest]:
    """The header lines of ``auth=`` / ``cookies=`` of one request (None: neither).

    ``auth``: ``(user, password)`` — ``Authorization: Basic``; a token string —
    ``Authorization: Bearer``; a callable ``auth(outgoing)`` — run before every
    attempt of this request, as the client's ``auth=`` callable is (after it).
    ``cookies``: a mapping or pairs, sent as one ``Cookie`` line with this request
    (beside the jar's cookies; never stored). Both are dropped on a redirect to
    another origin, as every credential header is."""
    if auth is None and cookies is None:
        return None
    headers: List[Tuple[str, Optional[str]]] = []
    key = 0
    if cookies is not None:
        text = _cookie_header(cookies)
        if text:
            headers.append(("Cookie", text))
    if auth is None:
        pass
    elif isinstance(auth, tuple) and len(auth) == 2:
        user, password = (a.decode("utf-8") if isinstance(a, bytes) else a for a in auth)
        if not isinstance(user, str) or not isinstance(password, str):
            raise TypeError("auth as a tuple must be (user, password) strings")
        token = base64.b64encode(f"{user}:{password}".encode("utf-8")).decode("ascii")
        headers.append(("Authorization", f"Basic {token}"))
    elif isinstance(auth, str):
        headers.append(("Authorization", f"Bearer {auth}"))
    elif callable(auth):
        with _lock:
            if not getattr(core, "request_auth_installed", False):
                core.add_adapter(make_adapter(_dispatch(core)))
                core.request_auth_installed = True
            key = next(_ids)
            core.request_auth[key] = auth
        headers.append((_MARK, str(key)))
    else:
        raise TypeError("auth must be a (user, password) tuple, a token string or a callable, "
                        f"not {type(auth).__name__}")
    return PerRequest(headers, core, key)


def merged_headers(extra: Optional[PerRequest], headers: Any) -> Any:
    """The request's ``headers=`` after ``auth=``/``cookies=``'s lines (its own win)."""
    if extra is None:
        return headers
    if headers is None:
        return list(extra.headers)
    own = list(headers.items()) if isinstance(headers, Mapping) else list(headers)
    return list(extra.headers) + own


def follow_arg(follow_redirects: Optional[bool], allow_redirects: Optional[bool]) -> Optional[bool]:
    """httpx's ``follow_redirects=`` or requests' ``allow_redirects=`` (the same)."""
    if allow_redirects is None:
        return follow_redirects
    if follow_redirects is not None and bool(follow_redirects) != bool(allow_redirects):
        raise TypeError("follow_redirects= and allow_redirects= disagree: pass one of them")
    return bool(allow_redirects)
