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
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

from . import _batch, _hooks, _reach
from ._capi import C, TaskHandle
from ._core import ClientCore, Config, Pending, config_text, convert, data_key, dispatch, report
from ._tls import _UNSET, Cert, Verify, connection_keys, with_connection_keys
from ._adapters import apply_auth, configured_redirects, redirect_arg, without_redirects
from . import _refresh
from ._retry import RetryArg, install_handler, retry_json
from ._transfers import AsyncStream, ProgressFn, apply_progress, progress_callback
from ._request import RequestLimits, HeadersArg, Params, TimeoutArg, build_request, endpoint_request, plain_request
from .client import Callback, Client
from .errors import Error, Status, error_for
from .response import LIBRARY, Response

__all__ = ["AsyncClient"]


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
        on_loop_thread = core.loop_thread == threading.get_ident()
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


class AsyncClient:
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

    def __init__(self, config: Config, *, on_error: Optional[Callable[[Error], Any]] = None,
                 on_auth_expired: Optional[Callable[[Error], Any]] = None,
                 on_event: Optional[Callable[[Dict[str, Any]], Any]] = None,
                 event_kinds: Optional[Iterable[str]] = None,
                 event_hooks: Optional[Dict[str, Sequence[Callable[[Any], Any]]]] = None,
                 auth: Any = None, follow_redirects: bool = True, verify: Verify = True,
                 cert: Optional[Cert] = None, proxy: Optional[str] = _UNSET,
                 http2: Optional[bool] = None,
                 reachability: Optional[str] = None, retry: RetryArg = None,
                 retry_handler: Optional[Callable[..., Any]] = None, coalesce: Optional[bool] = None,
                 refresher: Optional[Callable[..., Any]] = None) -> None:
        force: Dict[str, Any] = {"callbacks": "queue"}
        if retry is not None:
            force["retry"] = retry_json(retry)
        text = _reach.with_reachability(
            with_connection_keys(config_text(config, force=force),
                                 connection_keys(verify, cert, proxy, http2, coalesce)),
            reachability)
        self._core = ClientCore(text if follow_redirects else without_redirects(text), on_error)
        self._core.reach_mode = _reach.configured_mode(text)
        self._core.redirect_limit = -1 if follow_redirects else configured_redirects(text)
        apply_auth(self._core, auth)
        _hooks.install(self._core, on_auth_expired=on_auth_expired, on_event=on_event,
                       event_kinds=event_kinds, event_hooks=event_hooks)
        if retry_handler is not None:
            install_handler(self._core, retry_handler)
        if refresher is not None:
            _refresh.install(self._core, refresher, (lambda core=self._core: core.loop))
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

    def cancel_group(self, group: str) -> int:
        """Cancel every request of ``group`` not yet completed (``group=`` of
        :meth:`request` / :meth:`send`, or an endpoint's ``"group"``): each awaiting
        task raises :class:`~netcore.Cancelled`. Returns how many were cancelled
        (``nc_client_cancel_group``). Raises :class:`~netcore.InvalidArgument`,
        nothing cancelled, for a name ``group=`` refuses (empty, control characters)."""
        return self._core.cancel_group(group)

    def cancel_all(self) -> int:
        """Cancel every request of the client not yet completed; returns how many."""
        return self._core.cancel_group(None)

    def set_token(self, token: Optional[str]) -> None:
        """As :meth:`netcore.Client.set_token`."""
        self._core.set_token(token)

    # -- requests ---------------------------------------------------------------
    #
    # The names and parameters are Client's (tests check the signatures match).
    # request() and send() each start the request themselves: a shared helper
    # costs a Python call (about 700 instructions) per awaited request.

    async def request(self, method: str, path: str, *, params: Optional[Params] = None,
                      json: Any = None, data: Any = None, files: Any = None, headers: Optional[HeadersArg] = None,
                      timeout: Optional[TimeoutArg] = None, envelope: Optional[bool] = None,
                      output: Any = None,
                follow_redirects: Optional[bool] = None, group: Optional[str] = None, retry: RetryArg = None,
                deadline: Optional[float] = None, connect_timeout: Optional[float] = None,
                idle_timeout: Optional[float] = None, cache: Optional[int] = None,
                on_cached: Optional[Callable[..., Any]] = None,
                progress: Optional[ProgressFn] = None, skip_error_handler: bool = False) -> Response:
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
        fut: "asyncio.Future[Response]" = loop.create_future()
        pending = _FuturePending(fut, f"{method.upper()} {path}", data_key(core, envelope, output))
        if (params is None and json is None and data is None and files is None and headers is None
                and timeout is None and envelope is None and output is None
                and follow_redirects is None and group is None and retry is None and deadline is None
                and connect_timeout is None and idle_timeout is None and cache is None
                and on_cached is None and progress is None and not skip_error_handler):
            # nc_client_send copies the builder: the thread's cached one is reused.
            limits = None
            task = core.send(plain_request(method, path), pending)
        else:
            # `limits` holds the cached callback's hook until this coroutine ends.
            limits = RequestLimits.of(retry, deadline, connect_timeout, idle_timeout, cache, on_cached)
            req = build_request(method, path, params=params, json=json, data=data, files=files,
                                headers=headers, timeout=timeout, envelope=envelope,
                                output=output, max_redirects=redirect_arg(self._core, follow_redirects),
                                group=group, limits=limits, skip_error_handler=skip_error_handler)
            pending.skip_error_handler = skip_error_handler
            try:
                pending.keep = progress_callback(progress)   # alive until the completion
                apply_progress(req, pending.keep)
                task = core.send(req, pending)
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

    async def get(self, path: str, **kwargs: Any) -> Response:
        """GET ``path``; keyword arguments as in :meth:`request`."""
        return await self.request("GET", path, **kwargs)

    async def post(self, path: str, **kwargs: Any) -> Response:
        """POST ``path``; keyword arguments as in :meth:`request`."""
        return await self.request("POST", path, **kwargs)

    async def put(self, path: str, **kwargs: Any) -> Response:
        """PUT ``path``; keyword arguments as in :meth:`request`."""
        return await self.request("PUT", path, **kwargs)

    async def patch(self, path: str, **kwargs: Any) -> Response:
        """PATCH ``path``; keyword arguments as in :meth:`request`."""
        return await self.request("PATCH", path, **kwargs)

    async def delete(self, path: str, **kwargs: Any) -> Response:
        """DELETE ``path``; keyword arguments as in :meth:`request`."""
        return await self.request("DELETE", path, **kwargs)

    async def head(self, path: str, **kwargs: Any) -> Response:
        """HEAD ``path``; keyword arguments as in :meth:`request`."""
        return await self.request("HEAD", path, **kwargs)

    async def options(self, path: str, **kwargs: Any) -> Response:
        """OPTIONS ``path``; keyword arguments as in :meth:`request`."""
        return await self.request("OPTIONS", path, **kwargs)

    def send(self, method: str, path: str, *, callback: Optional[Callback] = None,
             params: Optional[Params] = None, json: Any = None, data: Any = None, files: Any = None,
             headers: Optional[HeadersArg] = None, timeout: Optional[TimeoutArg] = None,
             envelope: Optional[bool] = None, output: Any = None,
             follow_redirects: Optional[bool] = None,
             group: Optional[str] = None, retry: RetryArg = None,
             deadline: Optional[float] = None, connect_timeout: Optional[float] = None,
             idle_timeout: Optional[float] = None,
             progress: Optional[ProgressFn] = None,
             skip_error_handler: bool = False) -> "asyncio.Future[Response]":
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
        req = build_request(method, path, params=params, json=json, data=data, files=files, headers=headers,
                            timeout=timeout, envelope=envelope, output=output,
                            max_redirects=redirect_arg(self._core, follow_redirects), group=group,
                            limits=RequestLimits.of(retry, deadline, connect_timeout, idle_timeout),
                            skip_error_handler=skip_error_handler)
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
               progress: Optional[ProgressFn] = None, skip_error_handler: bool = False) -> AsyncStream:
        """:meth:`netcore.Client.stream` for asyncio::

            async with aclient.stream("GET", "/files/big") as r:
                async for chunk in r.aiter_bytes():
                    ...

        Chunks reach the event loop as they arrive (an unbounded queue); leaving the
        block early cancels the request. Arguments as in :meth:`request`.
        """
        self._attach()
        kwargs = dict(params=params, json=json, data=data, headers=headers, timeout=timeout,
                      group=group, progress=progress, skip_error_handler=skip_error_handler)
        return AsyncStream(self._core, method, path, build_request, kwargs)

    # -- the endpoint catalog ---------------------------------------------------

    async def call(self, endpoint: str, params: Optional[Dict[str, Any]] = None, *,
                   skip_error_handler: bool = False, **kwargs: Any) -> Response:
        """Call the endpoint ``endpoint`` and await its response
        (``nc_request_new_endpoint`` + params + ``nc_client_send``); arguments,
        result and errors as in :meth:`netcore.Client.call`."""
        merged = dict(params or {})
        merged.update(kwargs)
        loop = self._attach()
        fut: "asyncio.Future[Response]" = loop.create_future()
        pending = _FuturePending(fut, f"endpoint {endpoint}", LIBRARY)
        pending.skip_error_handler = skip_error_handler
        req = endpoint_request(endpoint, merged, skip_error_handler)
        try:
            task = self._core.send(req, pending)
        finally:
            C.nc_request_free(req)
        try:
            return await fut
        except asyncio.CancelledError:
            C.nc_task_cancel(task)
            raise
        finally:
            C.nc_task_free(task)

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

    # The same as Client's (it only touches the core, which both kinds share).
    define_endpoint = Client.define_endpoint
    cache_clear = Client.cache_clear
    cache_remove = Client.cache_remove
    cache_stats = Client.cache_stats
    reachability = Client.reachability
    reachable = Client.reachable
    cookies = Client.cookies

    def __repr__(self) -> str:
        return f"<netcore.AsyncClient {'closed' if self.closed else 'open'}>"
