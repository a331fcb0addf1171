"""Progress callbacks and streamed response bodies (``nc_request_set_progress``,
``nc_request_set_body_callback`` with ``NC_BODY_PAUSE`` / ``nc_task_resume_body``,
``nc_request_set_head_callback``; docs/transfers.md).

``progress=fn`` on the request methods calls ``fn(down, down_total, up, up_total)``
on the client's transfer thread, at most about 20 times a second, never after the
completion. ``Client.stream`` / ``AsyncClient.stream`` hand a 2xx body over as chunks
while it arrives.
"""
from __future__ import annotations

import asyncio
import codecs
import collections
import ctypes
import threading
from typing import Any, AsyncIterator, Callable, Deque, Dict, Iterator, List, Optional, Tuple

from ._adapters import merged_headers, per_request
from ._capi import BODY_FN, C, HEAD_FN, NC_BODY_PAUSE, NC_OK, PROGRESS_FN, RequestHandle, ResponseHandle
from ._completion import convert, report
from ._core import ClientCore, Pending
from .errors import Error, Status, check_call, error_for
from .response import RAW, Headers, Response

ProgressFn = Callable[[int, int, int, int], Any]

__all__ = ["ProgressFn", "Stream", "AsyncStream", "progress_callback", "apply_progress",
           "DEFAULT_BUFFER_BYTES"]

#: ``stream(buffer_bytes=)``'s default: how many body bytes may wait for the reader.
DEFAULT_BUFFER_BYTES = 4 * 1024 * 1024


def progress_callback(fn: Optional[ProgressFn]) -> Any:
    """The C callback for ``progress=fn`` (``None`` for none); keep it alive until the
    request's completion. What ``fn`` raises is logged (logger ``"netcore"``)."""
    if fn is None:
        return None
    if not callable(fn):
        raise TypeError(f"progress must be callable, not {type(fn).__name__}")

    def call(down: int, down_total: int, up: int, up_total: int, _ud: Any) -> None:
        try:
            fn(down, down_total, up, up_total)
        except Exception as exc:
            report(exc, f"progress callback {fn!r}")

    return PROGRESS_FN(call)


def apply_progress(handle: RequestHandle, callback: Any) -> None:
    """``nc_request_set_progress`` with a callback made by :func:`progress_callback`."""
    if callback is not None:
        check_call(C.nc_request_set_progress, handle, callback, None)


_DONE = object()
_HEAD = object()


class _StreamPending(Pending):
    """The completion of a streamed request: hands the result to the reader."""

    def __init__(self, put: Callable[[Any], Any], description: str, keep: Any,
                 skip_error_handler: bool = False) -> None:
        self.put = put
        self.description = description
        self.keep = keep  # the C callbacks, alive until the completion
        self.skip_error_handler = skip_error_handler

    def complete(self, core: ClientCore, response: Optional[int], error: Optional[int]) -> None:
        resp, err = convert(response, error)
        if resp is not None:
            resp._data_key = RAW
        if err is not None:
            core.call_on_error(err, self.skip_error_handler)  # not for a stream left early
        self.put((_DONE, resp, err))


class _Buffer:
    """The chunks between the transfer thread (``put``) and the reader, at most
    ``limit`` bytes and one chunk (``None``: no bound).

    Backpressure. When the chunks waiting reach the limit, the body callback
    answers ``NC_BODY_PAUSE`` instead of taking the next chunk: the library pauses
    this transfer alone (libcurl reads nothing more from its socket, the kernel's
    receive window fills and the server is slowed down), so memory stays flat
    however slow the reader, and the client's transfer thread goes on with its
    other requests. Once the reader has taken the waiting bytes down to half the
    limit, it asks ``nc_task_resume_body``: libcurl hands the refused chunk over
    again, then the rest.
    """

    def __init__(self, limit: Optional[int],
                 wake_reader: Optional[Callable[[], None]] = None) -> None:
        self.limit = limit
        self.wake_reader = wake_reader
        self.cond = threading.Condition()
        self.items: Deque[Any] = collections.deque()
        self.size = 0
        #: The most bytes that waited at once (a figure the tests read).
        self.peak = 0
        #: How often the transfer was paused (a figure the tests read).
        self.pauses = 0
        self.paused = False
        self.closed = False
        #: ``nc_task_resume_body`` of the stream's task, once it is known.
        self.resume: Optional[Callable[[], Any]] = None

    def put(self, item: Any) -> int:
        """Append a chunk or the head or the end: the body callback's answer (0 taken,
        1 the reader has left — abort —, ``NC_BODY_PAUSE`` full: not taken)."""
        chunk = isinstance(item, bytes)
        with self.cond:
            if self.closed and chunk:
                return 1
            if chunk and self.limit is not None and self.size >= self.limit:
                self.paused = True
                self.pauses += 1
                return NC_BODY_PAUSE
            self.items.append(item)
            if chunk:
                self.size += len(item)
                if self.size > self.peak:
                    self.peak = self.size
            self.cond.notify_all()
        if self.wake_reader is not None:
            self.wake_reader()
        return 0

    def close(self) -> None:
        with self.cond:
            self.closed = True
            self.items.clear()
            self.size = 0
            self.cond.notify_all()

    def peek(self) -> Any:
        """The first item, waiting for it (sync readers)."""
        with self.cond:
            while not self.items:
                self.cond.wait()
            return self.items[0]

    def take(self) -> Any:
        """Remove and return the first item, waiting for it (sync readers)."""
        with self.cond:
            while not self.items:
                self.cond.wait()
            item, resume = self._pop()
        if resume is not None:
            resume()
        return item

    def take_nowait(self) -> Any:
        """The first item, or ``_EMPTY`` (the caller holds ``cond``; a resume due is
        asked after the lock: :meth:`resume_due`)."""
        if not self.items:
            return _EMPTY
        item, self._due = self._pop()
        return item

    _due: Optional[Callable[[], Any]] = None

    def resume_due(self) -> None:
        """Ask the resume a ``take_nowait`` found due (outside ``cond``)."""
        due, self._due = self._due, None
        if due is not None:
            due()

    def _pop(self) -> Tuple[Any, Optional[Callable[[], Any]]]:
        item = self.items.popleft()
        resume = None
        if isinstance(item, bytes):
            self.size -= len(item)
            if self.paused and self.limit is not None and self.size <= self.limit // 2 \
                    and self.resume is not None:
                self.paused = False
                resume = self.resume
        return item, resume


_EMPTY = object()


class _LineSplitter:
    """Lines of a text that arrives in pieces, without their ending, empty lines
    included (they end an event of ``text/event-stream``); the line endings are
    ``str.splitlines``' (``\n``, ``\r\n``, ``\r``, …), as httpx's ``iter_lines``."""

    def __init__(self) -> None:
        self.rest = ""

    def feed(self, text: str) -> List[str]:
        text = self.rest + text
        # A trailing \r may be the first half of \r\n: keep it until more arrives.
        cut = len(text) - 1 if text.endswith("\r") else len(text)
        pieces = text[:cut].splitlines(keepends=True)
        self.rest = text[cut:]
        if pieces and pieces[-1].splitlines()[0] == pieces[-1]:  # no ending yet
            self.rest = pieces.pop() + self.rest
        return [(p.splitlines() or [""])[0] for p in pieces]

    def end(self) -> List[str]:
        rest, self.rest = self.rest, ""
        return rest.splitlines()


def _resume(task: Any) -> None:
    """``nc_task_resume_body``: the paused transfer continues. INVALID_STATE means it
    ended meanwhile (its end is on its way to the buffer): nothing to do."""
    status = C.nc_task_resume_body(task)
    if status not in (NC_OK, Status.INVALID_STATE):
        raise error_for(status, function="nc_task_resume_body")


class _StreamBase:
    def __init__(self, core: ClientCore, method: str, path: str, build: Callable[..., RequestHandle],
                 kwargs: Dict[str, Any], buffer_bytes: Optional[int] = DEFAULT_BUFFER_BYTES,
                 credentials: Tuple[Any, Any] = (None, None)) -> None:
        if buffer_bytes is not None and (isinstance(buffer_bytes, bool) or not isinstance(buffer_bytes, int)
                                         or buffer_bytes < 1):
            raise ValueError(f"buffer_bytes must be a positive int or None, got {buffer_bytes!r}")
        self._core = core
        self._method = method
        self._path = path
        self._build = build
        self._kwargs = kwargs
        self._limit = buffer_bytes
        self._credentials = credentials  # auth=, cookies= (made into headers at the start)
        self._task: Any = None
        self._finished = False
        self._buffer: Optional[_Buffer] = None
        self._error: Optional[Error] = None
        self._head: Optional[Response] = None
        #: The :class:`~netcore.Response` (empty body) once the body has been read to
        #: its end; ``None`` before.
        self.response: Optional[Response] = None

    def _start(self, wake_reader: Optional[Callable[[], None]] = None) -> None:
        progress = progress_callback(self._kwargs.pop("progress", None))
        buffer = self._buffer = _Buffer(self._limit, wake_reader)

        def chunk(data: Optional[int], size: int, _ud: Any) -> int:
            return buffer.put(ctypes.string_at(data, size) if data else b"")

        def head(response: Optional[int], _ud: Any) -> None:
            # The 2xx head, borrowed for the call: retained into a Response.
            try:
                resp = Response._from_borrowed(ResponseHandle(response)) if response else None
            except Exception as exc:  # nothing may escape into C
                report(exc, "stream head")
                return
            if resp is not None:
                resp._data_key = RAW
                buffer.put((_HEAD, resp))

        body_cb = BODY_FN(chunk)
        head_cb = HEAD_FN(head)
        extra = per_request(self._core, *self._credentials)
        try:
            req = self._build(self._method, self._path,
                              **dict(self._kwargs, headers=merged_headers(extra, self._kwargs.get("headers"))))
        except BaseException:
            if extra is not None:
                extra.release()
            raise
        try:
            check_call(C.nc_request_set_body_callback, req, body_cb, None)
            check_call(C.nc_request_set_head_callback, req, head_cb, None)
            apply_progress(req, progress)
            description = f"{self._method.upper()} {self._path}"
            pending = _StreamPending(buffer.put, description, (body_cb, head_cb, progress),
                                     bool(self._kwargs.get("skip_error_handler")))
            pending.extra = extra  # released by the completion (or by a refused send)
            task = self._task = self._core.send(req, pending)
            buffer.resume = lambda: _resume(task)
        finally:
            C.nc_request_free(req)

    def _see_head(self, first: Any) -> bool:
        """What entering knows from the first item: the 2xx head (True: the item is
        used up), or the end (a response or an error, with its status and headers)."""
        if isinstance(first, tuple) and first and first[0] is _HEAD:
            self._head = first[1]
            return True
        if isinstance(first, tuple) and first and first[0] is _DONE:
            _, resp, err = first
            self._head = resp if resp is not None else (err.response if err is not None else None)
            self._error = err
        return False

    def _item(self, item: Any) -> Optional[bytes]:
        """The chunk, b"" for the head, or None at the end (raising the request's
        error, if any)."""
        if isinstance(item, tuple) and item and item[0] is _HEAD:
            self._head = item[1]
            return b""
        if isinstance(item, tuple) and item and item[0] is _DONE:
            self._finished = True
            _, resp, err = item
            self.response = resp
            if resp is not None:
                self._head = resp
            if err is not None:
                raise err
            return None
        return item  # type: ignore[no-any-return]

    def _close(self) -> None:
        task, self._task = self._task, None
        buffer = self._buffer
        if buffer is not None and not self._finished:
            buffer.close()  # the body callback returns 1 from now on
        if task is None:
            return
        if not self._finished:
            C.nc_task_cancel(task)
        C.nc_task_free(task)

    # -- the head -------------------------------------------------------------

    @property
    def status_code(self) -> Optional[int]:
        """The status, known on entering: a 2xx's head arrives before its body
        (``nc_request_set_head_callback``); an HTTP error (then
        :meth:`raise_for_status` raises it) or a failure arrives as the end.
        ``None`` only for a request that failed without a response."""
        return self._head.status if self._head is not None else None

    @property
    def headers(self) -> Headers:
        """The response headers, known on entering (empty without a response)."""
        return self._head.headers if self._head is not None else Headers()

    @property
    def is_success(self) -> bool:
        """True when the answer is a 2xx, known on entering: the body arrives
        in chunks only for a 2xx."""
        if self._head is not None:
            return 200 <= self._head.status < 300
        return self._error is None

    def raise_for_status(self) -> "_StreamBase":
        """Raise the request's :class:`~netcore.HTTPError` on entering when the
        status is 400 or more (its body is on the error); return the stream."""
        if self._head is not None:
            self._head.raise_for_status()
        return self


class Stream(_StreamBase):
    """``with client.stream("GET", url) as r: for chunk in r.iter_bytes(): ...``

    The request starts when the block is entered, which returns once the first
    chunk or the end has arrived (:attr:`status_code`). :meth:`iter_bytes`,
    :meth:`iter_text` and :meth:`iter_lines` read the 2xx body as it arrives and
    raise the request's :class:`~netcore.Error` at the end (an HTTP error keeps its
    body on the error). Leaving the block early cancels the request. At most
    ``buffer_bytes`` wait for the reader (see ``Client.stream``).
    """

    def __enter__(self) -> "Stream":
        self._start()
        assert self._buffer is not None
        if self._see_head(self._buffer.peek()):
            self._buffer.take()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._close()

    def iter_bytes(self) -> Iterator[bytes]:
        """The body's chunks (bytes) in order; raises the request's error at the end."""
        buffer = self._buffer
        assert buffer is not None, "use the stream inside its with block"
        while not self._finished:
            chunk = self._item(buffer.take())
            if chunk is None:
                return
            if chunk:
                yield chunk

    def iter_text(self) -> Iterator[str]:
        """The body decoded as UTF-8 text, chunk by chunk (a character cut between
        chunks is joined; invalid bytes are replaced)."""
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        for chunk in self.iter_bytes():
            text = decoder.decode(chunk)
            if text:
                yield text
        tail = decoder.decode(b"", final=True)
        if tail:
            yield tail

    def iter_lines(self) -> Iterator[str]:
        """The body's lines as text, without their ending, empty lines included:
        NDJSON records, ``text/event-stream`` fields and event separators."""
        splitter = _LineSplitter()
        for text in self.iter_text():
            yield from splitter.feed(text)
        yield from splitter.end()


class AsyncStream(_StreamBase):
    """``async with aclient.stream("GET", url) as r: async for chunk in r.aiter_bytes(): ...``
    — :class:`Stream` for asyncio (the reader is woken with
    ``call_soon_threadsafe``)."""

    async def __aenter__(self) -> "AsyncStream":
        loop = asyncio.get_running_loop()
        self._event = event = asyncio.Event()

        def wake() -> None:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # the loop is closed: nobody reads any more
                pass

        self._start(wake)
        first = await self._next()
        self._first: Any = _EMPTY if self._see_head(first) else first
        return self

    async def __aexit__(self, *exc: Any) -> None:
        # nc_task_cancel waits for the completion on the transfer thread: not on the loop.
        if self._task is not None and not self._finished:
            if self._buffer is not None:
                self._buffer.close()
            await asyncio.get_running_loop().run_in_executor(None, self._close)
        else:
            self._close()

    async def _next(self) -> Any:
        buffer = self._buffer
        assert buffer is not None, "use the stream inside its async with block"
        while True:
            with buffer.cond:
                item = buffer.take_nowait()
                if item is _EMPTY:
                    self._event.clear()
            buffer.resume_due()
            if item is not _EMPTY:
                return item
            await self._event.wait()

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body's chunks (bytes) in order; raises the request's error at the end."""
        first, self._first = getattr(self, "_first", _EMPTY), _EMPTY
        while not self._finished:
            item = first if first is not _EMPTY else await self._next()
            first = _EMPTY
            chunk = self._item(item)
            if chunk is None:
                return
            if chunk:
                yield chunk

    async def aiter_text(self) -> AsyncIterator[str]:
        """:meth:`Stream.iter_text` for asyncio."""
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        async for chunk in self.aiter_bytes():
            text = decoder.decode(chunk)
            if text:
                yield text
        tail = decoder.decode(b"", final=True)
        if tail:
            yield tail

    async def aiter_lines(self) -> AsyncIterator[str]:
        """:meth:`Stream.iter_lines` for asyncio."""
        splitter = _LineSplitter()
        async for text in self.aiter_text():
            for line in splitter.feed(text):
                yield line
        for line in splitter.end():
            yield line
