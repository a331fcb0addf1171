"""The asyncio client, on the library's ``"callbacks": "queue"`` mode.

No thread per request: the client's transfer thread queues completions and makes
``nc_client_fd()`` readable; the event loop watches that descriptor
(``loop.add_reader``) and runs the completions with ``nc_client_dispatch()`` on
the loop's thread, where each resolves its request's Future.

Cancelling the asyncio task that awaits a request cancels the request
(``nc_task_cancel``); its cancelled completion arrives at a later dispatch and is
dropped (the Future is already cancelled), unless :meth:`AsyncClient.send` was
given a callback: that callback then runs with :class:`~netcore.Cancelled`.

Names. As httpx's ``AsyncClient`` mirrors its ``Client``, :class:`AsyncClient` has
the request methods of :class:`~netcore.Client` with the same names and the same
parameters (``await client.get(...)``). The earlier ``a``-prefixed names
(``aget``, ``apost``, ``aput``, ``apatch``, ``adelete``, ``ahead``, ``arequest``)
were deprecated and are gone since netcore 0.3.0: drop the ``a``.
"""
from __future__ import annotations

import asyncio
import functools
import threading
import weakref
from typing import Any, Callable, ClassVar, Dict, List, Optional, Sequence, Type, TypeVar, cast, overload

from . import _batch
from ._adapters import follow_arg, merged_headers, per_request, redirect_arg
from ._base import BaseClient, Callback
from ._capi import C, TaskHandle
from ._completion import convert, report
from ._core import ClientCore, Pending, data_key, dispatch
from ._request import (HeadersArg, Params, RequestLimits, TimeoutArg, build_request,
                       endpoint_request, plain_request)
from ._retry import RetryArg
from ._transfers import DEFAULT_BUFFER_BYTES, AsyncStream, ProgressFn, apply_progress, progress_callback
from .errors import Error, Status, error_for
from ._models import check_model
from .response import LIBRARY, Response, decoded

__all__ = ["AsyncClient"]

_get_ident = threading.get_ident

M = TypeVar("M")


class _FuturePending(Pending):
    def __init__(self, future: "asyncio.Future[Response]", description: str, key: Any,
                 callback: Optional[Callback] = None) -> None:
        self.future = future
        self.description = description
        self.key = key  # where a successful response's data is (_core.data_key)
        self.callback = callback  # AsyncClient.send(callback=...)

    def complete(self, core: ClientCore, response: Optional[int], error: Optional[int]) -> None:
        fut = self.future
        loop = fut.get_loop()
        callback = self.callback
        if callback is None and loop.is_closed():
            return  # nobody can await this any more (client freed after its loop ended)
        on_loop_thread = core.loop_thread == _get_ident()
        if callback is None and on_loop_thread and fut.done():
            # Cancelled from asyncio: its Cancelled reaches no hook (call_on_error),
            # a failure that had already arrived still does.
            if error and core.on_error is not None:  # (no Error object made for no hook)
                core.call_on_error(convert(None, error)[1], self.skip_error_handler)  # type: ignore[arg-type]
            return
        resp, err = convert(response, error)
        if err is not None:
            core.call_on_error(err, self.skip_error_handler)
        elif resp is not None:
            resp._data_key = self.key
            if not self.skip_error_handler:
                resp._owner = core  # its on_error sees a failed data_as()
        if on_loop_thread and callback is None:
            _settle(fut, resp, err)  # the common case, without a call to _finish
        elif on_loop_thread or loop.is_closed():
            self._finish(resp, err)
        else:
            # nc_client_free on another thread (e.g. a finalizer) runs the queued
            # completions there: hand the result to the loop, if it still runs.
            try:
                loop.call_soon_threadsafe(self._finish, resp, err)
            except RuntimeError:  # closed meanwhile: finish here (the callback still runs)
                self._finish(resp, err)

    def _finish(self, resp: Optional[Response], err: Optional[Error]) -> None:
        """Run the callback (exactly once), then resolve the Future (if anyone can)."""
        callback = self.callback
        if callback is not None:
            try:
                callback(resp, err)
            except Exception as exc:
                report(exc, f"completion callback {callback!r} of {self.description}")
        fut = self.future
        if not fut.get_loop().is_closed():
            _settle(fut, resp, err)


def _settle(fut: "asyncio.Future[Response]", resp: Optional[Response],
            err: Optional[Error]) -> None:
    if fut.done():
        return
    if err is not None:
        fut.set_exception(err)
    else:
        fut.set_result(resp)  # type: ignore[arg-type]


def _sent_done(task: TaskHandle, retrieved: bool, fut: "asyncio.Future[Response]") -> None:
    """Done-callback of a Future returned by :meth:`AsyncClient.send`."""
    if fut.cancelled():
        C.nc_task_cancel(task)  # returns at once (queue mode); no-op once finished
    elif retrieved:
        fut.exception()  # the callback had it: no "exception was never retrieved"


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


class AsyncClient(BaseClient):
    """An asyncio libnetcore client.

    ``AsyncClient(config)`` takes the same configuration as
    :class:`~netcore.Client` and forces ``"callbacks": "queue"``. It attaches to
    the running event loop on first use (``async with`` or the first request) and
    must then be used from that loop only. Its keyword arguments (``verify=``,
    ``cert=``, ``proxy=``, ``http2=``, ``auth=``, …) are :class:`~netcore.Client`'s.

    ::

        async with netcore.AsyncClient({"base_url": url, "envelope": {}}) as client:
            user = (await client.get("/user/7")).data

    Requests: ``await`` :meth:`request`, :meth:`get`, :meth:`post`, :meth:`put`,
    :meth:`patch`, :meth:`delete`, :meth:`head`, :meth:`options` — the names and
    parameters of :class:`netcore.Client`'s methods (see
    :meth:`netcore.Client.request` for the keyword arguments), returning the same
    :class:`~netcore.Response` and raising the same typed
    :class:`~netcore.Error`. :meth:`send` starts a request without awaiting it, as
    :meth:`netcore.Client.send` does. Cancelling the awaiting task
    (``asyncio.wait_for``, ``task.cancel()``) cancels the request.
    """

    _forced_config: ClassVar[Dict[str, Any]] = {"callbacks": "queue"}
    _fd: int

    def _own(self, core: ClientCore) -> "weakref.finalize[Any, Any]":
        self._fd = int(C.nc_client_fd(core.handle()))
        if self._fd < 0:  # pragma: no cover - the library ignored "callbacks": "queue"
            core.free()
            raise error_for(Status.INVALID_STATE, function="nc_client_fd",
                            message="nc_client_fd() returned -1 for a queue-mode client")
        return weakref.finalize(self, _finalize, core, self._fd)

    def _refresh_loop(self) -> Optional[Callable[[], Any]]:
        core = self._core

        def loop() -> Any:
            return core.loop

        return loop

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
        self._free()
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
        self._free()

    # -- requests ---------------------------------------------------------------
    #
    # The names and parameters are Client's (tests check the signatures match).
    # request() and send() each start the request themselves: a shared helper
    # costs a Python call (about 700 instructions) per awaited request.

    @overload
    async def request(self, method: str, path: str, *, params: Optional[Params] = None,
                      json: Any = None, data: Any = None, files: Any = None, headers: Optional[HeadersArg] = None,
                      timeout: Optional[TimeoutArg] = None, envelope: Optional[bool] = None,
                      output: Any = None,
                follow_redirects: Optional[bool] = None, group: Optional[str] = None, label: Optional[str] = None, retry: RetryArg = None,
                deadline: Optional[float] = None, connect_timeout: Optional[float] = None,
                idle_timeout: Optional[float] = None, cache: Optional[int] = None,
                on_cached: Optional[Callable[..., Any]] = None,
                progress: Optional[ProgressFn] = None, skip_error_handler: bool = False,
                auth: Any = None, cookies: Any = None, allow_redirects: Optional[bool] = None,
                model: None = None) -> Response: ...

    @overload
    async def request(self, method: str, path: str, *, params: Optional[Params] = None,
                      json: Any = None, data: Any = None, files: Any = None, headers: Optional[HeadersArg] = None,
                      timeout: Optional[TimeoutArg] = None, envelope: Optional[bool] = None,
                      output: Any = None,
                follow_redirects: Optional[bool] = None, group: Optional[str] = None, label: Optional[str] = None, retry: RetryArg = None,
                deadline: Optional[float] = None, connect_timeout: Optional[float] = None,
                idle_timeout: Optional[float] = None, cache: Optional[int] = None,
                on_cached: Optional[Callable[..., Any]] = None,
                progress: Optional[ProgressFn] = None, skip_error_handler: bool = False,
                auth: Any = None, cookies: Any = None, allow_redirects: Optional[bool] = None,
                model: Type[M]) -> M: ...

    @overload
    async def request(self, method: str, path: str, *, params: Optional[Params] = None,
                      json: Any = None, data: Any = None, files: Any = None, headers: Optional[HeadersArg] = None,
                      timeout: Optional[TimeoutArg] = None, envelope: Optional[bool] = None,
                      output: Any = None,
                follow_redirects: Optional[bool] = None, group: Optional[str] = None, label: Optional[str] = None, retry: RetryArg = None,
                deadline: Optional[float] = None, connect_timeout: Optional[float] = None,
                idle_timeout: Optional[float] = None, cache: Optional[int] = None,
                on_cached: Optional[Callable[..., Any]] = None,
                progress: Optional[ProgressFn] = None, skip_error_handler: bool = False,
                auth: Any = None, cookies: Any = None, allow_redirects: Optional[bool] = None,
                model: Any) -> Any: ...

    async def request(self, method: str, path: str, *, params: Optional[Params] = None,
                      json: Any = None, data: Any = None, files: Any = None, headers: Optional[HeadersArg] = None,
                      timeout: Optional[TimeoutArg] = None, envelope: Optional[bool] = None,
                      output: Any = None,
                follow_redirects: Optional[bool] = None, group: Optional[str] = None, label: Optional[str] = None, retry: RetryArg = None,
                deadline: Optional[float] = None, connect_timeout: Optional[float] = None,
                idle_timeout: Optional[float] = None, cache: Optional[int] = None,
                on_cached: Optional[Callable[..., Any]] = None,
                progress: Optional[ProgressFn] = None, skip_error_handler: bool = False,
                auth: Any = None, cookies: Any = None, allow_redirects: Optional[bool] = None,
                model: Any = None) -> Any:
        """Send a request and await its response (``nc_client_send``; the completion
        is dispatched on the event loop).

        Arguments, result and errors as in :meth:`netcore.Client.request`: a
        failed request raises the same typed :class:`~netcore.Error`, a refused
        call the same :class:`~netcore.StatusError`. Cancelling the awaiting task
        cancels the request (``nc_task_cancel``). ``group=`` puts the request in a
        cancellation group (:meth:`cancel_group`: the awaiting task then raises
        :class:`~netcore.Cancelled`). ``on_cached(response, error)`` (with
        ``cache=CachePolicy.CACHE_THEN_NETWORK``) runs on the event loop, before
        this coroutine returns the network's answer. ``skip_error_handler=True``:
        the client's ``on_error`` hook is not called if this request fails.
        """
        loop = self._attach()
        core = self._core
        follow_redirects = follow_arg(follow_redirects, allow_redirects)
        if model is not None:
            check_model(model)
        if auth is not None or cookies is not None:
            extra = per_request(core, auth, cookies)
            try:
                return await self.request(method, path, params=params, json=json, data=data, files=files,
                                          headers=merged_headers(extra, headers), timeout=timeout,
                                          envelope=envelope, output=output,
                                          follow_redirects=follow_redirects, group=group, label=label, retry=retry,
                                          deadline=deadline, connect_timeout=connect_timeout,
                                          idle_timeout=idle_timeout, cache=cache, on_cached=on_cached,
                                          progress=progress, skip_error_handler=skip_error_handler,
                                          model=model)
            finally:
                if extra is not None:
                    extra.release()
        fut: "asyncio.Future[Response]" = loop.create_future()
        pending = _FuturePending(fut, f"{method.upper()} {path}", data_key(core, envelope, output))
        if not core.corked:
            core.cork_until_next_turn(loop)
        if (params is None and json is None and data is None and files is None and headers is None
                and timeout is None and envelope is None and output is None
                and follow_redirects is None and group is None and retry is None and deadline is None
                and connect_timeout is None and idle_timeout is None and cache is None
                and on_cached is None and progress is None and not skip_error_handler
                and label is None):
            # nc_client_send copies the builder: the thread's cached one is reused.
            limits = None
            task = core.send(plain_request(method, path), pending)
        else:
            # `limits` holds the cached callback's hook until this coroutine ends.
            limits = RequestLimits.of(retry, deadline, connect_timeout, idle_timeout, cache, on_cached)
            req = build_request(method, path, params=params, json=json, data=data, files=files,
                                headers=headers, timeout=timeout, envelope=envelope,
                                output=output, max_redirects=redirect_arg(self._core, follow_redirects),
                                group=group, label=label, limits=limits, skip_error_handler=skip_error_handler)
            pending.skip_error_handler = skip_error_handler
            try:
                pending.keep = progress_callback(progress)   # alive until the completion
                apply_progress(req, pending.keep)
                task = core.send(req, pending)
            finally:
                C.nc_request_free(req)
        try:
            response = await fut
        except asyncio.CancelledError:
            # Returns at once in queue mode; the cancelled completion comes at a
            # later dispatch and finds the Future done.
            C.nc_task_cancel(task)
            raise
        finally:
            C.nc_task_free(task)
        if model is None:
            return response
        response._sent = (method.upper(), None, label)
        return decoded(response, model)

    @overload
    async def get(self, path: str, *, model: None = None, **kwargs: Any) -> Response: ...

    @overload
    async def get(self, path: str, *, model: Type[M], **kwargs: Any) -> M: ...

    @overload
    async def get(self, path: str, *, model: Any, **kwargs: Any) -> Any: ...

    async def get(self, path: str, *, model: Any = None, **kwargs: Any) -> Any:
        """GET ``path``; keyword arguments as in :meth:`request` (``model=``: the
        data decoded as that class is returned instead of the Response)."""
        return await self.request("GET", path, model=model, **kwargs)

    @overload
    async def post(self, path: str, *, model: None = None, **kwargs: Any) -> Response: ...

    @overload
    async def post(self, path: str, *, model: Type[M], **kwargs: Any) -> M: ...

    @overload
    async def post(self, path: str, *, model: Any, **kwargs: Any) -> Any: ...

    async def post(self, path: str, *, model: Any = None, **kwargs: Any) -> Any:
        """POST ``path``; keyword arguments as in :meth:`request` (``model=``: the
        data decoded as that class is returned instead of the Response)."""
        return await self.request("POST", path, model=model, **kwargs)

    @overload
    async def put(self, path: str, *, model: None = None, **kwargs: Any) -> Response: ...

    @overload
    async def put(self, path: str, *, model: Type[M], **kwargs: Any) -> M: ...

    @overload
    async def put(self, path: str, *, model: Any, **kwargs: Any) -> Any: ...

    async def put(self, path: str, *, model: Any = None, **kwargs: Any) -> Any:
        """PUT ``path``; keyword arguments as in :meth:`request` (``model=``: the
        data decoded as that class is returned instead of the Response)."""
        return await self.request("PUT", path, model=model, **kwargs)

    @overload
    async def patch(self, path: str, *, model: None = None, **kwargs: Any) -> Response: ...

    @overload
    async def patch(self, path: str, *, model: Type[M], **kwargs: Any) -> M: ...

    @overload
    async def patch(self, path: str, *, model: Any, **kwargs: Any) -> Any: ...

    async def patch(self, path: str, *, model: Any = None, **kwargs: Any) -> Any:
        """PATCH ``path``; keyword arguments as in :meth:`request` (``model=``: the
        data decoded as that class is returned instead of the Response)."""
        return await self.request("PATCH", path, model=model, **kwargs)

    @overload
    async def delete(self, path: str, *, model: None = None, **kwargs: Any) -> Response: ...

    @overload
    async def delete(self, path: str, *, model: Type[M], **kwargs: Any) -> M: ...

    @overload
    async def delete(self, path: str, *, model: Any, **kwargs: Any) -> Any: ...

    async def delete(self, path: str, *, model: Any = None, **kwargs: Any) -> Any:
        """DELETE ``path``; keyword arguments as in :meth:`request` (``model=``: the
        data decoded as that class is returned instead of the Response)."""
        return await self.request("DELETE", path, model=model, **kwargs)

    async def head(self, path: str, **kwargs: Any) -> Response:
        """HEAD ``path``; keyword arguments as in :meth:`request`."""
        return cast(Response, await self.request("HEAD", path, **kwargs))

    async def options(self, path: str, **kwargs: Any) -> Response:
        """OPTIONS ``path``; keyword arguments as in :meth:`request`."""
        return cast(Response, await self.request("OPTIONS", path, **kwargs))

    def send(self, method: str, path: str, *, callback: Optional[Callback] = None,
             params: Optional[Params] = None, json: Any = None, data: Any = None, files: Any = None,
             headers: Optional[HeadersArg] = None, timeout: Optional[TimeoutArg] = None,
             envelope: Optional[bool] = None, output: Any = None,
             follow_redirects: Optional[bool] = None,
             group: Optional[str] = None, label: Optional[str] = None, retry: RetryArg = None,
             deadline: Optional[float] = None, connect_timeout: Optional[float] = None,
             idle_timeout: Optional[float] = None, progress: Optional[ProgressFn] = None,
             skip_error_handler: bool = False, auth: Any = None, cookies: Any = None,
             allow_redirects: Optional[bool] = None) -> "asyncio.Future[Response]":
        """Start a request and return at once (``nc_client_send``), as
        :meth:`netcore.Client.send` does; call it from a coroutine or callback of the
        client's event loop.

        Returns an :class:`asyncio.Future` that resolves to the
        :class:`~netcore.Response` or the request's :class:`~netcore.Error`;
        cancelling it cancels the request. ``callback(response, error)``, if given,
        runs exactly once when the request ends, on the event loop's thread, before
        the Future resolves — also when the Future was cancelled (``error`` is then
        :class:`~netcore.Cancelled`, or the real result if it had already arrived).
        What it raises is logged (logger ``"netcore"``). With a callback the Future
        need not be awaited (its error counts as retrieved); without one, await it,
        or asyncio reports an error that was never retrieved.

        Arguments as in :meth:`request`. The client keeps the callback and the
        request's state alive until the completion.
        """
        loop = self._attach()
        core = self._core
        fut: "asyncio.Future[Response]" = loop.create_future()
        pending = _FuturePending(fut, f"{method.upper()} {path}", data_key(core, envelope, output),
                                 callback)
        follow_redirects = follow_arg(follow_redirects, allow_redirects)
        extra = per_request(core, auth, cookies)
        try:
            req = build_request(method, path, params=params, json=json, data=data, files=files,
                                headers=merged_headers(extra, headers), timeout=timeout, envelope=envelope,
                                output=output, max_redirects=redirect_arg(self._core, follow_redirects),
                                group=group, label=label, limits=RequestLimits.of(retry, deadline, connect_timeout, idle_timeout),
                                skip_error_handler=skip_error_handler)
        except BaseException:
            if extra is not None:
                extra.release()
            raise
        pending.extra = extra  # released by the completion (or by a refused send)
        pending.skip_error_handler = skip_error_handler
        try:
            pending.keep = progress_callback(progress)   # alive until the completion
            apply_progress(req, pending.keep)
            task = core.send(req, pending)
        finally:
            C.nc_request_free(req)
        # The task reference goes with the Future (even if its loop is closed by then).
        weakref.finalize(fut, C.nc_task_free, task)
        fut.add_done_callback(functools.partial(_sent_done, task, callback is not None))
        return fut

    def stream(self, method: str, path: str, *, params: Optional[Params] = None,
               json: Any = None, data: Any = None, headers: Optional[HeadersArg] = None,
               timeout: Optional[TimeoutArg] = None, group: Optional[str] = None,
               label: Optional[str] = None,
               progress: Optional[ProgressFn] = None, skip_error_handler: bool = False,
               buffer_bytes: Optional[int] = DEFAULT_BUFFER_BYTES, auth: Any = None,
               cookies: Any = None, follow_redirects: Optional[bool] = None,
               allow_redirects: Optional[bool] = None) -> AsyncStream:
        """:meth:`netcore.Client.stream` for asyncio::

            async with aclient.stream("GET", "/files/big") as r:
                async for chunk in r.aiter_bytes():
                    ...

        Chunks reach the event loop as they arrive, at most ``buffer_bytes`` waiting
        for the reader (as :meth:`netcore.Client.stream`); leaving the block early
        cancels the request. Arguments as in :meth:`request`.
        """
        self._attach()
        kwargs: Dict[str, Any] = dict(
            params=params, json=json, data=data, headers=headers, timeout=timeout, group=group,
            label=label, progress=progress, skip_error_handler=skip_error_handler,
            max_redirects=redirect_arg(self._core, follow_arg(follow_redirects, allow_redirects)))
        return AsyncStream(self._core, method, path, build_request, kwargs, buffer_bytes,
                                 (auth, cookies))

    # -- the endpoint catalog ---------------------------------------------------

    @overload
    async def call(self, endpoint: str, params: Optional[Dict[str, Any]] = None, *,
                   skip_error_handler: bool = False, label: Optional[str] = None, model: None = None,
             **kwargs: Any) -> Response: ...

    @overload
    async def call(self, endpoint: str, params: Optional[Dict[str, Any]] = None, *,
                   skip_error_handler: bool = False, label: Optional[str] = None, model: Type[M],
             **kwargs: Any) -> M: ...

    @overload
    async def call(self, endpoint: str, params: Optional[Dict[str, Any]] = None, *,
                   skip_error_handler: bool = False, label: Optional[str] = None, model: Any,
             **kwargs: Any) -> Any: ...

    async def call(self, endpoint: str, params: Optional[Dict[str, Any]] = None, *,
                   skip_error_handler: bool = False, label: Optional[str] = None, model: Any = None,
             **kwargs: Any) -> Any:
        """Call the endpoint ``endpoint`` and await its response
        (``nc_request_new_endpoint`` + params + ``nc_client_send``); arguments,
        result and errors as in :meth:`netcore.Client.call`."""
        merged = dict(params or {})
        merged.update(kwargs)
        loop = self._attach()
        if model is not None:
            check_model(model)
        fut: "asyncio.Future[Response]" = loop.create_future()
        pending = _FuturePending(fut, f"endpoint {endpoint}", LIBRARY)
        pending.skip_error_handler = skip_error_handler
        req = endpoint_request(endpoint, merged, skip_error_handler, label)
        try:
            task = self._core.send(req, pending)
        finally:
            C.nc_request_free(req)
        try:
            response = await fut
        except asyncio.CancelledError:
            C.nc_task_cancel(task)
            raise
        finally:
            C.nc_task_free(task)
        if model is None:
            return response
        response._sent = (None, endpoint, label)
        return decoded(response, model)

    async def batch(self, requests: Sequence[Any], *, fail_fast: bool = False) -> List[Any]:
        """Send several requests together and await all of them (``nc_batch_*``):
        arguments and results as in :meth:`netcore.Client.batch`. Cancelling the
        awaiting task cancels the requests still running."""
        loop = self._attach()
        fut: "asyncio.Future[List[Any]]" = loop.create_future()

        def done(results: List[Any]) -> None:
            # Inside nc_client_dispatch, on the loop's thread (queue mode).
            if not fut.done():
                fut.set_result(results)

        task = _batch.start(self._core, requests, fail_fast, done)
        try:
            return await fut
        except asyncio.CancelledError:
            C.nc_task_cancel(task)
            raise
        finally:
            C.nc_task_free(task)

    def __repr__(self) -> str:
        return f"<netcore.AsyncClient {'closed' if self.closed else 'open'}>"
