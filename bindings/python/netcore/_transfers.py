"""Progress callbacks and streamed response bodies (``nc_request_set_progress``,
``nc_request_set_body_callback``; docs/transfers.md).

``progress=fn`` on the request methods calls ``fn(down, down_total, up, up_total)``
on the client's transfer thread, at most about 20 times a second, never after the
completion. ``Client.stream`` / ``AsyncClient.stream`` hand a 2xx body over as chunks
while it arrives.
"""
from __future__ import annotations

import asyncio
import ctypes
import queue
from typing import Any, AsyncIterator, Callable, Iterator, Optional

from ._capi import BODY_FN, C, PROGRESS_FN, RequestHandle
from ._completion import convert, report
from ._core import ClientCore, Pending
from .errors import check_call
from .response import RAW, Response

ProgressFn = Callable[[int, int, int, int], Any]

__all__ = ["ProgressFn", "Stream", "AsyncStream", "progress_callback", "apply_progress"]


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


class _StreamPending(Pending):
    """The completion of a streamed request: hands the result to the reader."""

    def __init__(self, put: Callable[[Any], None], description: str, keep: Any,
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


class _StreamBase:
    def __init__(self, core: ClientCore, method: str, path: str, build: Callable[..., RequestHandle],
                 kwargs: dict) -> None:
        self._core = core
        self._method = method
        self._path = path
        self._build = build
        self._kwargs = kwargs
        self._task: Any = None
        self._finished = False
        self._cancelled = False
        #: The :class:`~netcore.Response` (empty body) once the body has been read to
        #: its end; ``None`` before.
        self.response: Optional[Response] = None

    def _start(self, put: Callable[[Any], None]) -> None:
        progress = progress_callback(self._kwargs.pop("progress", None))

        def chunk(data: Optional[int], size: int, _ud: Any) -> int:
            if self._cancelled:
                return 1
            put(ctypes.string_at(data, size) if data else b"")
            return 0

        body_cb = BODY_FN(chunk)
        req = self._build(self._method, self._path, **self._kwargs)
        try:
            check_call(C.nc_request_set_body_callback, req, body_cb, None)
            apply_progress(req, progress)
            description = f"{self._method.upper()} {self._path}"
            pending = _StreamPending(put, description, (body_cb, progress),
                                     bool(self._kwargs.get("skip_error_handler")))
            self._task = self._core.send(req, pending)
        finally:
            C.nc_request_free(req)

    def _item(self, item: Any) -> Optional[bytes]:
        """The chunk, or None at the end (raising the request's error, if any)."""
        if isinstance(item, tuple) and item and item[0] is _DONE:
            self._finished = True
            _, resp, err = item
            self.response = resp
            if err is not None:
                raise err
            return None
        return item

    def _close(self) -> None:
        task, self._task = self._task, None
        if task is None:
            return
        if not self._finished:
            self._cancelled = True
            C.nc_task_cancel(task)
        C.nc_task_free(task)


class Stream(_StreamBase):
    """``with client.stream("GET", url) as r: for chunk in r.iter_bytes(): ...``

    The request starts when the block is entered; :meth:`iter_bytes` yields the 2xx
    body's chunks as they arrive and raises the request's :class:`~netcore.Error`
    (an HTTP error keeps its body on the error). Leaving the block early cancels the
    request. Chunks wait in an unbounded queue between the transfer thread and the
    reader.
    """

    def __enter__(self) -> "Stream":
        self._queue: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
        self._start(self._queue.put)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._close()

    def iter_bytes(self) -> Iterator[bytes]:
        """The body's chunks (bytes) in order; raises the request's error at the end."""
        while not self._finished:
            chunk = self._item(self._queue.get())
            if chunk is None:
                return
            yield chunk


class AsyncStream(_StreamBase):
    """``async with aclient.stream("GET", url) as r: async for chunk in r.aiter_bytes(): ...``
    — :class:`Stream` for asyncio (chunks reach the event loop with
    ``call_soon_threadsafe``)."""

    async def __aenter__(self) -> "AsyncStream":
        loop = asyncio.get_running_loop()
        self._queue: "asyncio.Queue[Any]" = asyncio.Queue()
        q = self._queue

        def put(item: Any) -> None:
            try:
                loop.call_soon_threadsafe(q.put_nowait, item)
            except RuntimeError:  # the loop is closed: nobody reads any more
                pass

        self._start(put)
        return self

    async def __aexit__(self, *exc: Any) -> None:
        # nc_task_cancel waits for the completion on the transfer thread: not on the loop.
        if self._task is not None and not self._finished:
            await asyncio.get_running_loop().run_in_executor(None, self._close)
        else:
            self._close()

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body's chunks (bytes) in order; raises the request's error at the end."""
        while not self._finished:
            chunk = self._item(await self._queue.get())
            if chunk is None:
                return
            yield chunk
