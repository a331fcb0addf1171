"""The asyncio client, on the library's ``"callbacks": "queue"`` mode.

No thread per request: the client's transfer thread queues completions and makes
``nc_client_fd()`` readable; the event loop watches that descriptor
(``loop.add_reader``) and runs the completions with ``nc_client_dispatch()`` on
the loop's thread, where each resolves its request's Future.

Cancelling the asyncio task that awaits a request cancels the request
(``nc_task_cancel``); its cancelled completion arrives at a later dispatch and is
dropped (the Future is already cancelled).
"""
from __future__ import annotations

import asyncio
import threading
import weakref
from typing import Any, Callable, Optional

from ._capi import C, ErrorHandle, ResponseHandle
from ._core import ClientCore, Config, Pending, config_text, convert, data_key, dispatch
from ._request import HeadersArg, Params, build_request, plain_request
from .errors import Error, Status, error_for
from .response import Response

__all__ = ["AsyncClient"]


class _FuturePending(Pending):
    def __init__(self, future: "asyncio.Future[Response]", description: str, key: Any) -> None:
        self.future = future
        self.description = description
        self.key = key  # where a successful response's data is (_core.data_key)

    def complete(self, core: ClientCore, response: ResponseHandle, error: ErrorHandle) -> None:
        fut = self.future
        loop = fut.get_loop()
        if loop.is_closed():
            return  # nobody can await this any more (client freed after its loop ended)
        on_loop_thread = core.loop_thread == threading.get_ident()
        if on_loop_thread and fut.done():
            # Cancelled from asyncio; still tell the hook about failures.
            if error and core.on_error is not None:
                core.call_on_error(convert(None, error)[1])  # type: ignore[arg-type]
            return
        resp, err = convert(response, error)
        if err is not None:
            core.call_on_error(err)
        elif resp is not None:
            resp._data_key = self.key
        if on_loop_thread:
            _settle(fut, resp, err)
        else:
            # nc_client_free on another thread (e.g. a finalizer) runs the queued
            # completions there: hand the result to the loop, if it still runs.
            try:
                loop.call_soon_threadsafe(_settle, fut, resp, err)
            except RuntimeError:  # the loop is closed: nobody awaits this any more
                pass


def _settle(fut: "asyncio.Future[Response]", resp: Optional[Response],
            err: Optional[Error]) -> None:
    if fut.done():
        return
    if err is not None:
        fut.set_exception(err)
    else:
        fut.set_result(resp)  # type: ignore[arg-type]


def _finalize(core: ClientCore, fd: int) -> None:
    """The AsyncClient was collected without :meth:`AsyncClient.aclose`."""
    loop = core.loop
    if loop is None or loop.is_closed():
        core.free_from_finalizer()
        return

    def remove_and_free() -> None:
        try:
            loop.remove_reader(fd)
        except Exception:  # pragma: no cover - the loop is going away
            pass
        core.free_from_finalizer()

    if core.loop_thread == threading.get_ident():
        remove_and_free()
    else:
        try:
            loop.call_soon_threadsafe(remove_and_free)
        except RuntimeError:  # closed meanwhile
            core.free_from_finalizer()


class AsyncClient:
    """An asyncio libnetcore client.

    ``AsyncClient(config)`` takes the same configuration as
    :class:`~netcore.Client` and forces ``"callbacks": "queue"``. It attaches to
    the running event loop on first use (``async with`` or the first request) and
    must then be used from that loop only.

    ::

        async with netcore.AsyncClient({"base_url": url, "envelope": {}}) as client:
            user = (await client.aget("/user/7")).data

    Requests: :meth:`aget`, :meth:`apost`, :meth:`aput`, :meth:`apatch`,
    :meth:`adelete`, :meth:`ahead`, :meth:`arequest`, with the keyword arguments of
    :meth:`netcore.Client.request`. Failures raise the typed
    :class:`~netcore.Error`. Cancelling the awaiting task (``asyncio.wait_for``,
    ``task.cancel()``) cancels the request.
    """

    def __init__(self, config: Config, *, on_error: Optional[Callable[[Error], Any]] = None) -> None:
        self._core = ClientCore(config_text(config, force={"callbacks": "queue"}), on_error)
        self._fd = int(C.nc_client_fd(self._core.handle()))
        if self._fd < 0:  # pragma: no cover - the library ignored "callbacks": "queue"
            self._core.free()
            raise error_for(Status.INVALID_STATE, function="nc_client_fd",
                            message="nc_client_fd() returned -1 for a queue-mode client")
        self._finalizer = weakref.finalize(self, _finalize, self._core, self._fd)

    # -- loop binding -----------------------------------------------------------

    def _attach(self) -> asyncio.AbstractEventLoop:
        loop = asyncio.get_running_loop()
        core = self._core
        if core.loop is None:
            core.handle()  # raises once closed
            loop.add_reader(self._fd, dispatch, core)
            core.loop = loop
            core.loop_thread = threading.get_ident()
        elif core.loop is not loop:
            raise RuntimeError("this AsyncClient is attached to another event loop")
        return loop

    async def __aenter__(self) -> "AsyncClient":
        self._attach()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Stop watching the descriptor and free the client (``nc_client_free``).

        Requests in flight end with :class:`~netcore.ShutDown`; every completion
        still queued runs here, on the loop's thread, before this returns (those of
        cancelled requests are dropped). Idempotent.
        """
        core = self._core
        if core.closed:
            return
        if core.in_callback():
            raise error_for(Status.INVALID_STATE,
                            message="aclose() cannot be called from a completion callback")
        loop = core.loop
        if loop is not None and not loop.is_closed():
            if loop is not asyncio.get_running_loop():
                raise RuntimeError("this AsyncClient is attached to another event loop")
            loop.remove_reader(self._fd)
        self._finalizer.detach()
        core.free()
        await asyncio.sleep(0)  # let the awaiting tasks see their ShutDown

    def close(self) -> None:
        """Synchronous :meth:`aclose` (for when no event loop runs any more)."""
        core = self._core
        if core.closed:
            return
        loop = core.loop
        if loop is not None and not loop.is_closed():
            if core.loop_thread != threading.get_ident():
                raise RuntimeError("close() must run on the event loop's thread; use aclose()")
            loop.remove_reader(self._fd)
        self._finalizer.detach()
        core.free()

    @property
    def closed(self) -> bool:
        """True once the client was closed."""
        return self._core.closed

    # -- settings -------------------------------------------------------------

    def set_environment(self, name: str) -> None:
        """Select the base URL named ``name`` in ``environments``
        (see :meth:`netcore.Client.set_environment`)."""
        self._core.set_environment(name)

    def set_header(self, name: str, value: Optional[str]) -> None:
        """Set (``None``: remove) a default header of every later request."""
        self._core.set_header(name, value)

    # -- requests ---------------------------------------------------------------

    async def arequest(self, method: str, path: str, *, params: Optional[Params] = None,
                       json: Any = None, data: Any = None,
                       headers: Optional[HeadersArg] = None, timeout: Optional[float] = None,
                       envelope: Optional[bool] = None, output: Any = None) -> Response:
        """Send a request and await its response; arguments, result and errors as in
        :meth:`netcore.Client.request`. Cancelling the awaiting task cancels it."""
        loop = self._attach()
        core = self._core
        fut: "asyncio.Future[Response]" = loop.create_future()
        key = data_key(core, envelope, output)
        if (params is None and json is None and data is None and headers is None
                and timeout is None and envelope is None and output is None):
            # nc_client_send copies the builder: the thread's cached one is reused.
            task = core.send(plain_request(method, path), _FuturePending(fut, f"{method.upper()} {path}", key))
        else:
            req = build_request(method, path, params=params, json=json, data=data,
                                headers=headers, timeout=timeout, envelope=envelope,
                                output=output)
            try:
                task = core.send(req, _FuturePending(fut, f"{method.upper()} {path}", key))
            finally:
                C.nc_request_free(req)
        try:
            return await fut
        except asyncio.CancelledError:
            # Returns at once in queue mode; the cancelled completion comes at a
            # later dispatch and finds the Future done.
            C.nc_task_cancel(task)
            raise
        finally:
            C.nc_task_free(task)

    async def aget(self, path: str, **kwargs: Any) -> Response:
        """GET ``path`` (see :meth:`arequest`)."""
        return await self.arequest("GET", path, **kwargs)

    async def apost(self, path: str, **kwargs: Any) -> Response:
        """POST ``path`` (see :meth:`arequest`)."""
        return await self.arequest("POST", path, **kwargs)

    async def aput(self, path: str, **kwargs: Any) -> Response:
        """PUT ``path`` (see :meth:`arequest`)."""
        return await self.arequest("PUT", path, **kwargs)

    async def apatch(self, path: str, **kwargs: Any) -> Response:
        """PATCH ``path`` (see :meth:`arequest`)."""
        return await self.arequest("PATCH", path, **kwargs)

    async def adelete(self, path: str, **kwargs: Any) -> Response:
        """DELETE ``path`` (see :meth:`arequest`)."""
        return await self.arequest("DELETE", path, **kwargs)

    async def ahead(self, path: str, **kwargs: Any) -> Response:
        """HEAD ``path`` (see :meth:`arequest`)."""
        return await self.arequest("HEAD", path, **kwargs)

    def __repr__(self) -> str:
        return f"<netcore.AsyncClient {'closed' if self.closed else 'open'}>"
