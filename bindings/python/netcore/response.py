"""Responses and their headers."""
from __future__ import annotations

import ctypes
import datetime
import http
import json as _json
import threading
from collections.abc import Mapping
from typing import Any, Dict, Iterator, List, Optional, Tuple, Type, TypeVar, overload

from ._capi import C, ResponseHandle
from ._models import DecodeFailure, decode, model_name
from .errors import ParseCode, check_call, http_error, parse_error

__all__ = ["Headers", "Redirect", "Response", "decoded"]

M = TypeVar("M")

_UNSET: Any = object()

# How Response.data is found (set by the client that sent the request):
LIBRARY: Any = object()   # ask the library (nc_response_data_json): always right
RAW: Any = object()       # raw mode: the whole body parsed as JSON
NO_DATA: Any = object()   # envelope without a data field: always None
# ... or a str: envelope mode, the name of the data field.
# Guards the lazy reads of every response against a concurrent close(): one lock
# for all (reads are short and rarely contended) instead of one per response.
_LOCK = threading.Lock()
_status = C.nc_response_status


class Redirect:
    """One redirect a request followed (an entry of :attr:`Response.history`): the
    3xx status and the URL that answered with it (redacted as in events: no
    credentials, no secret query values). httpx keeps whole responses there; the
    library keeps what a caller reads of them."""

    __slots__ = ("status_code", "url")

    def __init__(self, status_code: int, url: str) -> None:
        self.status_code = status_code
        self.url = url

    @property
    def status(self) -> int:
        """Alias of :attr:`status_code`."""
        return self.status_code

    @property
    def is_redirect(self) -> bool:
        return True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Redirect) and (self.status_code, self.url) == (other.status_code, other.url)

    def __hash__(self) -> int:
        return hash((self.status_code, self.url))

    def __repr__(self) -> str:
        return f"<netcore.Redirect [{self.status_code}] {self.url}>"


class Headers(Mapping[str, str]):
    """Read-only, case-insensitive mapping of response header names to values.

    ``headers["content-type"]`` and ``headers["Content-Type"]`` are the same.
    A header received several times maps to its values joined with ``", "``
    (like requests); :meth:`get_all` returns them one by one. Iteration yields each
    name once, spelled as first received, in the order received.
    """

    __slots__ = ("_items", "_index")

    def __init__(self, items: "list[tuple[str, str]] | tuple[tuple[str, str], ...]" = ()) -> None:
        self._items: Tuple[Tuple[str, str], ...] = tuple(items)
        index: Dict[str, Tuple[str, List[str]]] = {}
        for name, value in self._items:
            entry = index.setdefault(name.lower(), (name, []))
            entry[1].append(value)
        self._index = index

    def __getitem__(self, name: str) -> str:
        if not isinstance(name, str):
            raise KeyError(name)
        return ", ".join(self._index[name.lower()][1])

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._index

    def __iter__(self) -> Iterator[str]:
        return (first for first, _ in self._index.values())

    def __len__(self) -> int:
        return len(self._index)

    def get_all(self, name: str) -> List[str]:
        """Every value of header ``name``, in the order received (``[]`` if absent)."""
        entry = self._index.get(name.lower())
        return list(entry[1]) if entry else []

    def items_raw(self) -> Tuple[Tuple[str, str], ...]:
        """Every header line as ``(name, value)``, duplicates included, in order."""
        return self._items

    def __repr__(self) -> str:
        return f"Headers({dict(self.items())!r})"


class Response:
    """A received HTTP response (the Python form of one ``nc_response``).

    The object owns a reference to the C response (``nc_response_retain`` or the
    one ``nc_client_send_sync`` returned) and reads it lazily: the body is copied
    only when :attr:`body` is first read. The reference is released when the object
    is garbage-collected or :meth:`close` is called. Responses are immutable and
    may be used from any thread.
    """

    __slots__ = ("_handle", "_status", "_headers", "_body", "_data", "_from_cache", "_not_modified", "_data_key",
                 "_metrics", "_url", "_owner", "_sent", "__weakref__")

    def __init__(self, handle: ResponseHandle) -> None:
        """Take ownership of ``handle``, an owned ``nc_response *`` (not borrowed)."""
        if not isinstance(handle, ResponseHandle) or not handle:
            raise ValueError("Response needs a non-NULL ResponseHandle")
        self._handle: Optional[ResponseHandle] = handle
        self._status: Any = _UNSET      # read on first use: one foreign call fewer
        self._from_cache: Any = _UNSET
        self._not_modified: Any = _UNSET
        self._headers: Any = _UNSET
        self._body: Any = _UNSET
        self._data: Any = _UNSET
        self._data_key: Any = LIBRARY
        self._metrics: Any = _UNSET
        self._url: Any = _UNSET
        #: The ClientCore whose ``on_error`` hook sees a failed :meth:`data_as`
        #: (None: no hook, e.g. ``skip_error_handler=True``).
        self._owner: Any = None
        #: ``(method, endpoint, label)`` of the call that got it, for the
        #: ``request`` of an error about it (a failed ``data_as``); None: unknown.
        self._sent: Any = None

    def __del__(self, _free: Any = C.nc_response_free) -> None:
        # Cheaper than a weakref.finalize per response; `_free` is bound at
        # definition time so it is still there during interpreter shutdown.
        handle = getattr(self, "_handle", None)
        if handle:
            self._handle = None
            _free(handle)

    @classmethod
    def _from_borrowed(cls, handle: ResponseHandle) -> "Response":
        """Wrap a response passed to a completion callback (borrowed): retain it first."""
        return cls(C.nc_response_retain(handle))

    def _read(self, attr: str, compute: Any) -> Any:
        value = getattr(self, attr)
        if value is _UNSET:
            with _LOCK:
                value = getattr(self, attr)
                if value is _UNSET:
                    if self._handle is None:
                        raise ValueError("the response was closed")
                    value = compute(self._handle)
                    setattr(self, attr, value)
        return value

    @property
    def metrics(self) -> Dict[str, Any]:
        """How the response was obtained (``nc_response_metrics_json``): ``attempts``,
        ``redirects``, ``total_us``, ``url`` (redacted) and ``attempt_log`` (one entry
        per attempt with libcurl's timings in µs; empty unless the client has an event
        hook, or the ``"netcore"`` logger was enabled for DEBUG when the client was made)."""
        return self._read("_metrics", _read_metrics)  # type: ignore[no-any-return]

    @property
    def elapsed(self) -> datetime.timedelta:
        """Time from the start of the first attempt to the completion (as httpx's
        ``Response.elapsed``)."""
        return datetime.timedelta(microseconds=int(self.metrics.get("total_us", 0)))

    @property
    def history(self) -> List["Redirect"]:
        """The redirects followed to reach this response, oldest first (httpx's
        ``Response.history``; each a :class:`Redirect` with ``status_code`` and
        ``url``); ``[]`` when none or when ``follow_redirects=False``."""
        return [Redirect(int(h.get("status", 0)), str(h.get("url", "")))
                for h in self.metrics.get("history", [])]

    @property
    def status(self) -> int:
        """HTTP status of the final response (after redirects)."""
        value = self._status
        if value is _UNSET:
            value = self._read("_status", _read_status)
        return value  # type: ignore[no-any-return]

    @property
    def status_code(self) -> int:
        """Alias of :attr:`status` (requests' name)."""
        return self.status

    @property
    def ok(self) -> bool:
        """True when :attr:`status` is below 400 (requests' name)."""
        return self.status < 400

    @property
    def reason_phrase(self) -> str:
        """The standard reason phrase of :attr:`status` (``"Not Found"``; ``""`` for
        a status without one). httpx gives the phrase the server sent; libcurl does
        not keep it, so this is the IANA registry's (``http.HTTPStatus``)."""
        try:
            return http.HTTPStatus(self.status).phrase
        except ValueError:
            return ""

    @property
    def reason(self) -> str:
        """Alias of :attr:`reason_phrase` (requests' name)."""
        return self.reason_phrase

    @property
    def is_success(self) -> bool:
        """2xx (httpx's name)."""
        return 200 <= self.status < 300

    @property
    def is_redirect(self) -> bool:
        """3xx (a redirect not followed: ``follow_redirects=False``)."""
        return 300 <= self.status < 400

    @property
    def is_error(self) -> bool:
        """4xx or 5xx (httpx's name)."""
        return self.status >= 400

    @property
    def is_client_error(self) -> bool:
        """4xx (httpx's name)."""
        return 400 <= self.status < 500

    @property
    def is_server_error(self) -> bool:
        """5xx (httpx's name)."""
        return 500 <= self.status < 600

    def raise_for_status(self) -> "Response":
        """Raise :class:`~netcore.HTTPError` (with this response as ``e.response``)
        when :attr:`status` is 400 or more; return the response otherwise (as httpx
        does, so ``client.get(url).raise_for_status().json()`` chains). A request
        already raises ``HTTPError`` for such a status, so this matters for a
        response in hand: ``e.response`` of an error, a stream's."""
        if self.status >= 400:
            raise http_error(self)
        return self

    @property
    def url(self) -> str:
        """The URL that answered: the request's, or the last of the redirects followed
        (``nc_response_url``)."""
        return str(self._read("_url", lambda h: (C.nc_response_url(h) or b"").decode("utf-8")))

    @property
    def http_version(self) -> Optional[str]:
        """The HTTP version the answer came in: ``"HTTP/1.1"``, ``"HTTP/2"`` (httpx's
        spelling); ``None`` when it came from the cache without a network exchange
        (``nc_response_http_version``)."""
        if self._handle is None:
            raise ValueError("the response was closed")
        v = C.nc_response_http_version(self._handle)
        return v.decode("ascii") if v else None

    @property
    def from_cache(self) -> bool:
        """True if the response was served from the client's cache."""
        return self._read("_from_cache", _read_from_cache)  # type: ignore[no-any-return]

    @property
    def not_modified(self) -> bool:
        """True when the server answered 304 to the cache's revalidation and the
        stored body is served (``from_cache`` is true too): nothing changed since
        the copy a screen showed (``nc_response_not_modified``)."""
        return self._read("_not_modified", _read_not_modified)  # type: ignore[no-any-return]

    @property
    def headers(self) -> Headers:
        """The response headers (case-insensitive, read-only)."""
        return self._read("_headers", _read_headers)  # type: ignore[no-any-return]

    @property
    def body(self) -> bytes:
        """The body bytes (decompressed when the server used gzip/deflate)."""
        value = self._body
        if value is _UNSET:
            value = self._read("_body", _read_body)
        return value  # type: ignore[no-any-return]

    @property
    def content(self) -> bytes:
        """Alias of :attr:`body` (requests' name)."""
        return self.body

    @property
    def encoding(self) -> str:
        """The charset of the Content-Type header, or ``"utf-8"``."""
        ctype = self.headers.get("content-type", "")
        for part in ctype.split(";")[1:]:
            key, _, value = part.strip().partition("=")
            if key.lower() == "charset" and value:
                return value.strip().strip('"')
        return "utf-8"

    @property
    def text(self) -> str:
        """The body decoded with :attr:`encoding` (undecodable bytes replaced)."""
        try:
            return self.body.decode(self.encoding, errors="replace")
        except LookupError:
            return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """The whole body parsed as JSON (UTF-8, as RFC 8259 says).

        Raises:
            ParseError: the body is not JSON (code ``INVALID_JSON``, the message
                has the line and column), or not UTF-8; a :class:`ValueError`,
                as requests' and httpx's ``JSONDecodeError`` is. It has this
                response (``e.response``). Not passed to the client's ``on_error``:
                reading a body is not a request.
        """
        body = self.body
        try:
            return _loads(body.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise parse_error(ParseCode.INVALID_JSON,
                              f"the body is not JSON: not UTF-8 at byte {exc.start}", self) from None
        except ValueError as exc:  # json.JSONDecodeError
            what = "the body is empty" if not body else f"the body is not JSON: {exc}"
            raise parse_error(ParseCode.INVALID_JSON, what, self) from None

    @overload
    def data_as(self, model: Type[M]) -> M: ...

    @overload
    def data_as(self, model: Any) -> Any: ...

    def data_as(self, model: Any) -> Any:
        """:attr:`data` as an instance of ``model``: a dataclass, ``TypedDict``,
        ``NamedTuple``, enum, ``datetime`` (from an ISO 8601 string), ``Optional`` /
        union, ``list[X]`` / ``dict[str, X]`` nested at will, or a pydantic model
        when the app uses pydantic (the module ``netcore._models`` lists them all)::

            user = client.get("/users/7").data_as(User)

        Keys the model does not name are ignored; a field with a default may be
        absent, an ``Optional`` one may be absent or null.

        Raises:
            ParseError: code ``DECODING_FAILED``; the message names the key path
                from ``data``, e.g. ``Could not decode Order: data.items[3].price:
                expected float, found string``; ``e.response`` is this response. The
                client's ``on_error`` hook sees it first (unless the request was
                sent with ``skip_error_handler=True``).
            TypeError: ``model`` is not a class or a typing form.
        """
        return decoded(self, model)

    @property
    def data(self) -> Any:
        """The business data, as Python objects: the envelope's data field in envelope
        mode (``None`` when absent/null, or for 204 and empty bodies), the whole body
        parsed as JSON in raw mode (``None`` when it is not JSON)."""
        if self._data_key is LIBRARY:
            return self._read("_data", _read_data)
        # The binding knows where the data is: parse the body once, in Python,
        # rather than have the library re-serialise what it parsed (a second parse).
        value = self._data
        if value is _UNSET:
            body = self._body
            if body is _UNSET:
                body = self.body
            value = _data_from_body(body, self._data_key)
            self._data = value
        return value

    def close(self) -> None:
        """Release the C response now (values already read stay available)."""
        with _LOCK:
            handle, self._handle = self._handle, None
            if handle and self._status is _UNSET:
                # Read before the handle goes, under the lock that .status reads under:
                # the status stays available after close(), as documented.
                self._status = _read_status(handle)
        if handle:
            C.nc_response_free(handle)

    def __repr__(self) -> str:
        return f"<netcore.Response [{self.status}]>"


def _read_metrics(handle: ResponseHandle) -> Dict[str, Any]:
    text = C.nc_response_metrics_json(handle)
    value: Dict[str, Any] = _json.loads(text) if text else {}
    return value


def _read_headers(handle: ResponseHandle) -> Headers:
    count = int(C.nc_response_header_count(handle))
    name, value = ctypes.c_char_p(), ctypes.c_char_p()
    items = []
    for i in range(count):
        check_call(C.nc_response_header_at, handle, i, ctypes.byref(name), ctypes.byref(value))
        items.append(((name.value or b"").decode("utf-8", "replace"),
                      (value.value or b"").decode("utf-8", "replace")))
    return Headers(items)


def _read_status(handle: ResponseHandle) -> int:
    return int(_status(handle))


def _read_from_cache(handle: ResponseHandle) -> bool:
    return bool(C.nc_response_from_cache(handle))


def _read_not_modified(handle: ResponseHandle) -> bool:
    return bool(C.nc_response_not_modified(handle))


def _read_body(handle: ResponseHandle) -> bytes:
    n = ctypes.c_size_t(0)
    ptr = C.nc_response_body(handle, ctypes.byref(n))
    return ptr[:n.value] if ptr else b""


def _data_from_body(body: bytes, key: Any) -> Any:
    """Response.data from the body, as the library defines it: None for an empty or
    non-JSON body, the data field of an envelope (None when absent or null)."""
    if not body or key is NO_DATA:
        return None
    try:
        # UTF-8, as jansson in the library requires (and RFC 8259 for JSON over HTTP);
        # decoding here spares json.loads its encoding detection.
        doc = _loads(body.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError and json.JSONDecodeError included
        return None
    if key is RAW:
        return doc
    return doc.get(key) if isinstance(doc, dict) else None


_scan: Any = getattr(_json.JSONDecoder(), "scan_once")


def _loads(text: str) -> Any:
    """``json.loads(text)``, minus three Python frames in the common case: a document
    that starts with its value and has nothing after it goes straight to the C
    scanner; anything else (whitespace around it, trailing data, invalid JSON) takes
    ``json.loads``, which accepts or raises exactly as it always does."""
    try:
        value, end = _scan(text, 0)
    except (StopIteration, ValueError, RecursionError):
        return _json.loads(text)
    if end != len(text):
        return _json.loads(text)
    return value


def _read_data(handle: ResponseHandle) -> Any:
    text = C.nc_response_data_json(handle, ctypes.byref(ctypes.c_size_t(0)))
    return None if text is None else _json.loads(text)


def decoded(response: Response, model: Any) -> Any:
    """``response.data`` as ``model`` (:meth:`Response.data_as`): a mismatch is a
    ParseError (DECODING_FAILED) that the owning client's ``on_error`` sees first."""
    data = response.data
    try:
        return decode(data, model)
    except DecodeFailure as failure:
        exc = parse_error(ParseCode.DECODING_FAILED,
                          f"Could not decode {model_name(model)}: {failure}", response, data)
        owner = response._owner
        if owner is not None:
            owner.call_on_error(exc)
        raise exc from None
