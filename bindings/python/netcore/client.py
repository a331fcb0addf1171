"""The synchronous client: blocking calls, plus callbacks on the transfer thread."""
from __future__ import annotations

import ctypes
import threading
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence, Type, TypeVar, cast, overload

from . import _batch
from ._adapters import follow_arg, merged_headers, per_request, redirect_arg
from ._base import BaseClient, Callback
from ._capi import C, NC_OK, ErrorHandle, ResponseHandle, TaskHandle
from ._completion import convert, report
from ._core import ClientCore, Pending, data_key
from ._request import (HeadersArg, Params, RequestLimits, TimeoutArg, build_request,
                       endpoint_request, plain_request)
from ._retry import RetryArg
from ._transfers import DEFAULT_BUFFER_BYTES, ProgressFn, Stream, apply_progress, progress_callback
from .errors import Error, Status, check_call, error_for
from ._models import check_model
from .response import Response, decoded

__all__ = ["Client", "Task", "Callback"]

M = TypeVar("M")


class Task:
    """A request started with :meth:`Client.send`.

    Like a small :class:`concurrent.futures.Future`: :meth:`cancel`, :meth:`done`,
    :meth:`wait`, :meth:`result`, :meth:`exception`. Dropping the Task does not
    cancel the request; its callback still runs.
    """

    def __init__(self, description: str) -> None:
        self.description = description
        self._event = threading.Event()
        self._response: Optional[Response] = None
        self._error: Optional[Error] = None
        self._handle: Optional[TaskHandle] = None
        self._finalizer: "Optional[weakref.finalize[Any, Any]]" = None

    def _attach(self, handle: TaskHandle) -> None:
        self._handle = handle
        self._finalizer = weakref.finalize(self, C.nc_task_free, handle)

    def _settle(self, response: Optional[Response], error: Optional[Error]) -> None:
        self._response, self._error = response, error
        self._event.set()

    def cancel(self) -> None:
        """Cancel the request (``nc_task_cancel``). Idempotent; does nothing once the
        request has finished. In loop mode, from another thread, it returns after the
        completion has run: with ``Cancelled`` or, if it had already begun, the real
        result."""
        h = self._handle
        if h is not None:
            C.nc_task_cancel(h)

    def done(self) -> bool:
        """True once the completion has run (its callback has returned)."""
        return self._event.is_set()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Block until the completion has run; False if ``timeout`` expired first."""
        return self._event.wait(timeout)

    def result(self, timeout: Optional[float] = None) -> Response:
        """The response; raises the request's :class:`~netcore.Error` if it failed,
        :class:`TimeoutError` if it has not finished within ``timeout`` seconds."""
        if not self._event.wait(timeout):
            raise TimeoutError(f"{self.description} has not finished")
        if self._error is not None:
            raise self._error
        assert self._response is not None
        return self._response

    def exception(self, timeout: Optional[float] = None) -> Optional[Error]:
        """The request's error, or ``None`` if it succeeded (waits like :meth:`result`)."""
        if not self._event.wait(timeout):
            raise TimeoutError(f"{self.description} has not finished")
        return self._error

    def __repr__(self) -> str:
        state = "done" if self.done() else "pending"
        return f"<netcore.Task {self.description} {state}>"


class _CallbackPending(Pending):
    def __init__(self, task: Task, callback: Optional[Callback], skip_error_handler: bool = False) -> None:
        self.task = task
        self.callback = callback
        self.description = task.description
        self.skip_error_handler = skip_error_handler

    def complete(self, core: ClientCore, response: Optional[int], error: Optional[int]) -> None:
        resp: Optional[Response] = None
        err: Optional[Error] = None
        try:
            resp, err = convert(response, error)
            if err is not None:
                core.call_on_error(err, self.skip_error_handler)
            elif resp is not None and not self.skip_error_handler:
                resp._owner = core
            if self.callback is not None:
                try:
                    self.callback(resp, err)
                except Exception as exc:
                    report(exc, f"completion callback {self.callback!r} of {self.description}")
        finally:
            self.task._settle(resp, err)

class Client(BaseClient):
    """A libnetcore client (one ``nc_client``: a connection pool and a transfer thread).

    Args:
        config: the configuration (``docs/configuration.md``) as a dict, as JSON
            text (a str starting with ``{``), or as a path to a JSON file.
        auth: ``("user", "password")`` (basic auth), a token string (``Authorization:
            Bearer``, see :meth:`set_token`), or a callable ``auth(outgoing)`` run
            before every attempt that reads and sets headers on a
            :class:`netcore.Outgoing`; what it raises fails the request with
            :class:`~netcore.AdapterFailed` and nothing is sent.
        follow_redirects: ``False`` follows no redirect (``limits.max_redirects``
            0): a 3xx is the response. A request's own ``follow_redirects=`` wins.
        reachability: ``"auto"``, ``"online"`` or ``"offline"``: sets the
            configuration's ``"reachability"."mode"`` (see :attr:`reachability`).
        on_reachability: ``on_reachability(reachable)`` on every change of
            :attr:`reachable` (see :attr:`on_reachability`).
        retry: the client's retry policy: a :class:`netcore.Retry`, the library's
            ``"retry"`` dict, or ``False``; it replaces the configuration's
            ``"retry"``. Default: the configuration's (none: one attempt).
        retry_handler: ``retry_handler(response, error, attempt)``, asked first
            after each failed attempt: seconds to wait before retrying, ``False``
            to stop, ``None`` for the policy's decision. It may retry what the
            policy does not (an :class:`~netcore.APIError`, a POST); runs on the
            transfer thread; what it raises is logged and counts as ``None``.
        refresher: ``refresher(error) -> str``: called once when requests find the
            login expired (``auth_expired_codes`` or HTTP 401), however many; it
            gets the new token (send the refresh call with another client: this
            one's requests wait) and returns it; meanwhile every request waits,
            then the expired ones are sent again once with it. Raising (or returning
            no token) fails them with :class:`~netcore.AuthRefreshFailed`. Runs on a
            thread of its own. On :class:`AsyncClient`: an ``async def``, run as a
            task on the event loop. At most ``auth.max_refreshes_per_minute`` (3)
            refreshes a minute.
        on_error: optional hook called with the :class:`~netcore.Error` of every
            failed request (sync, callback, stream, batch or asyncio) except
            cancellations (:class:`~netcore.Cancelled`: :meth:`Task.cancel`,
            :meth:`cancel_group`, a cancelled asyncio task, a stream left early) and
            requests sent with ``skip_error_handler=True`` — the rule of the C error
            handler (``nc_client_set_error_handler``). It runs on the thread that
            completes the request, before the error is raised or passed on. What it
            raises is logged (logger ``"netcore"``), never propagated.
        on_event: optional hook called with each event of every request, as a
            dict (``"event"``: ``request_start``, ``attempt_end``, ``retry``,
            ``cache_hit``, ``request_end``; the keys of ``nc_client_set_event_handler``),
            on the transfer thread. ``event_hooks={"request": [f], "response": [f]}``
            (httpx's names) get a request at its start and a response at its end.
        event_kinds: the kinds ``on_event`` receives, e.g. ``["request_end"]``;
            default every kind. The others are neither rendered nor handed to Python
            (``nc_client_set_event_mask``): a handler that wants each request's end
            pays for one event a request, not three. ``event_hooks`` alone ask only
            for the kinds they use.
        verify: ``True`` (default): the system CA store, or the bundle named by the
            environment's ``CURL_CA_BUNDLE``, else ``SSL_CERT_FILE``, read when the
            client is made (as requests' and httpx's ``trust_env``). A path (which
            wins over those variables): the CA bundle file
            (``tls.ca_file``) or ``openssl rehash`` directory (``tls.ca_path``) to
            trust instead, e.g. a private CA or a development server's self-signed
            certificate. ``False`` is refused (:class:`~netcore.InvalidConfig`):
            certificate verification is always on (``docs/tls.md``).
        cert: the client certificate: a PEM file holding certificate and key, or a
            ``(cert, key)`` pair of files (``tls.client_cert`` / ``tls.client_key``).
        proxy: a proxy URL for every request (``proxy.url``; wins over the
            environment); ``None`` or ``""``: no proxy at all.
        http2: ``True`` asks for HTTP/2 over https (``http_version`` ``"2"``).
        coalesce: ``False`` sends every request on its own transfer
            (``"coalesce"``). By default identical GET and HEAD requests in flight at
            once (same URL, headers and options) share one transfer, and each gets
            the same response or error; ``request()`` (synchronous) never shares.

    Raises:
        InvalidConfig: the configuration is wrong; the message names the key.

    Use it as a context manager, or call :meth:`close`. All methods may be called
    from any thread. Every request method takes requests' keyword arguments, see
    :meth:`request`. :class:`~netcore.AsyncClient` has the same request methods
    with the same parameters, to be awaited (``await client.get(...)``).

    Without ``proxy=`` (or the configuration's ``"proxy"``), proxies come from the
    environment (``http_proxy``, ``https_proxy``, ``all_proxy``, ``no_proxy`` and
    their upper-case forms, as libcurl reads them), read once when the client is
    made: a later change to ``os.environ`` does not affect it
    (``docs/configuration.md``, "proxy"). Keyword arguments win over the same
    members of the configuration.
    """

    # -- lifetime -------------------------------------------------------------

    def close(self) -> None:
        """Free the client (``nc_client_free``). Requests in flight end with
        :class:`~netcore.ShutDown` and their callbacks run before this returns.
        Idempotent. Not allowed from one of this client's callbacks.

        Raises:
            InvalidState: called from inside one of this client's callbacks.
        """
        if self._core.in_callback():
            raise error_for(Status.INVALID_STATE, message="close() cannot be called from a "
                            "completion callback of the same client")
        self._free()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def batch(self, requests: Sequence[Any], *, fail_fast: bool = False) -> List[Any]:
        """Send several requests together and wait for all of them (``nc_batch_*``).

        Args:
            requests: each a path (GET), ``(method, path)`` or ``(method, path,
                kwargs)`` with keyword arguments of :meth:`request` (``params``,
                ``json``, ``data``, ``headers``, ``timeout``, ``envelope``,
                ``output``, ``follow_redirects``, ``skip_error_handler``).
            fail_fast: the first failure cancels the others (they end with
                :class:`~netcore.Cancelled` unless already finished); default: wait
                for every one.

        Returns:
            One result per request, in the order given: its
            :class:`~netcore.Response`, or the :class:`~netcore.Error` it failed with
            (returned, not raised). ``[]`` for no request.

        Raises:
            TypeError / InvalidArgument: a malformed item or argument; nothing was sent.
            InvalidState: the client is closed, or this runs in one of its callbacks.
        """
        return _batch.run_sync(self._core, requests, fail_fast)

    # -- synchronous requests ---------------------------------------------------

    @overload
    def request(self, method: str, path: str, *, params: Optional[Params] = None,
                json: Any = None, data: Any = None, files: Any = None, headers: Optional[HeadersArg] = None,
                timeout: Optional[TimeoutArg] = None, envelope: Optional[bool] = None, output: Any = None,
                follow_redirects: Optional[bool] = None, group: Optional[str] = None, label: Optional[str] = None, retry: RetryArg = None,
                deadline: Optional[float] = None, connect_timeout: Optional[float] = None,
                idle_timeout: Optional[float] = None, cache: Optional[int] = None,
                on_cached: Optional[Callable[..., Any]] = None,
                progress: Optional[ProgressFn] = None, skip_error_handler: bool = False,
                auth: Any = None, cookies: Any = None, allow_redirects: Optional[bool] = None,
                model: None = None) -> Response: ...

    @overload
    def request(self, method: str, path: str, *, params: Optional[Params] = None,
                json: Any = None, data: Any = None, files: Any = None, headers: Optional[HeadersArg] = None,
                timeout: Optional[TimeoutArg] = None, envelope: Optional[bool] = None, output: Any = None,
                follow_redirects: Optional[bool] = None, group: Optional[str] = None, label: Optional[str] = None, retry: RetryArg = None,
                deadline: Optional[float] = None, connect_timeout: Optional[float] = None,
                idle_timeout: Optional[float] = None, cache: Optional[int] = None,
                on_cached: Optional[Callable[..., Any]] = None,
                progress: Optional[ProgressFn] = None, skip_error_handler: bool = False,
                auth: Any = None, cookies: Any = None, allow_redirects: Optional[bool] = None,
                model: Type[M]) -> M: ...

    @overload
    def request(self, method: str, path: str, *, params: Optional[Params] = None,
                json: Any = None, data: Any = None, files: Any = None, headers: Optional[HeadersArg] = None,
                timeout: Optional[TimeoutArg] = None, envelope: Optional[bool] = None, output: Any = None,
                follow_redirects: Optional[bool] = None, group: Optional[str] = None, label: Optional[str] = None, retry: RetryArg = None,
                deadline: Optional[float] = None, connect_timeout: Optional[float] = None,
                idle_timeout: Optional[float] = None, cache: Optional[int] = None,
                on_cached: Optional[Callable[..., Any]] = None,
                progress: Optional[ProgressFn] = None, skip_error_handler: bool = False,
                auth: Any = None, cookies: Any = None, allow_redirects: Optional[bool] = None,
                model: Any) -> Any: ...

    def request(self, method: str, path: str, *, params: Optional[Params] = None,
                json: Any = None, data: Any = None, files: Any = None, headers: Optional[HeadersArg] = None,
                timeout: Optional[TimeoutArg] = None, envelope: Optional[bool] = None, output: Any = None,
                follow_redirects: Optional[bool] = None, group: Optional[str] = None, label: Optional[str] = None, retry: RetryArg = None,
                deadline: Optional[float] = None, connect_timeout: Optional[float] = None,
                idle_timeout: Optional[float] = None, cache: Optional[int] = None,
                on_cached: Optional[Callable[..., Any]] = None,
                progress: Optional[ProgressFn] = None, skip_error_handler: bool = False,
                auth: Any = None, cookies: Any = None, allow_redirects: Optional[bool] = None,
                model: Any = None) -> Any:
        """Send a request and wait for it (``nc_client_send_sync``; the GIL is released
        while waiting).

        Args:
            method: HTTP method (upper-cased by the library).
            path: joined to the active base URL, or an absolute http(s) URL.
            params: query parameters: a dict or a list of ``(name, value)`` pairs;
                values are str, int, float, bool (``true``/``false``) or a list of
                them (repeated name); ``None`` values are dropped.
            json: a dict is sent as a JSON body through the library's JSON encoding
                (``None`` is sent as ``null`` at every depth, as requests does);
                any other JSON value is sent as is with ``application/json``.
            data: a dict (or pairs) is sent as a form body
                (``application/x-www-form-urlencoded``; ``None`` values are left
                out, as requests does); bytes or str are sent as the
                raw body, with the Content-Type from ``headers``, else
                ``application/octet-stream`` (bytes) or ``text/plain; charset=utf-8``
                (str, encoded as UTF-8). A file object is the body: a real file
                (``open(path, "rb")``) is streamed by the library from its path, from
                its start, never read into memory (``nc_request_set_body_file``);
                another file-like is read here. With ``files=``, a dict of form fields.
            files: a multipart/form-data body, as requests takes it: a dict (or
                pairs) of field name to a file object, an ``os.PathLike`` path, bytes
                or str, or a tuple ``(filename, content[, content_type])``; real files
                and paths are streamed from their path (``nc_request_add_file_part``),
                other contents are copied (``nc_request_add_part``). A missing file
                raises :class:`~netcore.InvalidRequest` when the request is sent,
                with nothing sent.
            headers: headers of this request (they win over the client's defaults);
                a ``None`` value removes this request's header of that name.
            timeout: total time limit of an attempt in seconds (``0`` = no limit);
                default: the client's ``timeout_ms`` (0 unless configured). A
                ``(connect, read)`` tuple, as requests takes, sets this request's
                connect timeout and its read (idle) timeout instead — ``None`` in
                either place keeps the client's — and leaves the total alone.
            envelope: ``False`` reads the response in raw mode (no envelope check),
                ``True`` forces envelope mode, ``None`` keeps the client's setting.
            follow_redirects: ``False``: follow no redirect, a 3xx is the response
                (``nc_request_set_max_redirects`` 0); ``True``: the client's limit;
                ``None``: the client's setting.
            retry: this request's retry policy over the client's (a
                :class:`netcore.Retry`, a ``"retry"`` dict whose keys replace the
                client's, or ``False`` for one attempt); ``None``: the client's.
            deadline: seconds for all attempts and the waits between them
                (:class:`~netcore.DeadlineExceeded`); ``0``: none; ``None``: the
                client's ``deadline_ms``.
            connect_timeout, idle_timeout: seconds to connect, and without a byte
                sent or received (measured in milliseconds); ``0``: no limit; ``None``: the
                client's. A :class:`~netcore.Timeout` says which fired (``timeout``).
            output: a file path (str, bytes or os.PathLike): the body of a 2xx
                response is downloaded into it instead of memory (through
                ``path.part``, renamed on success only; a ``.part`` left by a cut
                download is resumed when the server allows it), and
                ``Response.body`` is empty; raw mode; other statuses keep their body
                in memory (``nc_request_set_output_file``, docs/transfers.md).
            cache: a :class:`~netcore.CachePolicy` (the client needs ``"cache"``;
                ``None``: the endpoint's, else ``NETWORK_ONLY``). ``CACHE_ONLY``
                raises :class:`~netcore.NotCached` when nothing usable is stored.
            on_cached: with ``CachePolicy.CACHE_THEN_NETWORK``,
                ``on_cached(response, error)`` receives the stored answer
                (``response.from_cache``) at most once, before this call returns
                the network's (here, on the calling thread).
            label: a name of yours for this call (``nc_request_set_label``): its
                error carries it (``Error.label``, ``Error.request``), and its events
                and log lines name it. Empty or with control characters:
                :class:`~netcore.InvalidArgument`, nothing sent.
            group: a cancellation group: the request is sent with ``nc_client_send``
                and waited for here, so that :meth:`cancel_group` from another
                thread cancels it (this call then raises
                :class:`~netcore.Cancelled`).
            progress: ``progress(down, down_total, up, up_total)`` (bytes; a total is
                0 while unknown) on the client's transfer thread while the request
                runs: at most about 20 calls a second, values that never go
                backwards, never after the completion (``nc_request_set_progress``,
                docs/transfers.md); what it raises is logged.
            skip_error_handler: ``True``: the client's ``on_error`` hook is not
                called if this request fails (the caller handles the error itself);
                the request carries ``NC_REQUEST_SKIP_ERROR_HANDLER``
                (``nc_request_set_flags``). The error is raised all the same.
            auth: this request's credentials, as requests and httpx take them:
                ``(user, password)`` (``Authorization: Basic``), a token string
                (``Bearer``), or a callable ``auth(outgoing)`` run before every
                attempt of this request (after the client's adapters). They win over
                the client's ``auth=``.
            cookies: a dict (or pairs) sent as this request's ``Cookie`` line, beside
                the jar's (never stored in it).
            allow_redirects: requests' name of ``follow_redirects``.
            model: the data as this class instead of a Response: a dataclass,
                TypedDict, NamedTuple, enum, ``list[User]``, ``Optional[...]``, a
                pydantic model… (:meth:`Response.data_as`; a mismatch raises
                :class:`~netcore.ParseError` naming the key path, after the
                ``on_error`` hook).

        Returns:
            The :class:`~netcore.Response`; with ``model=``, the decoded data.

        Raises:
            netcore.Error: the request failed (the subclass tells the domain; it has
                ``.response`` when one was received).
            InvalidArgument: a bad method, URL, header...; nothing was sent.
            InvalidState: the client is closed, or this is called from one of its
                callbacks.
        """
        core = self._core
        follow_redirects = follow_arg(follow_redirects, allow_redirects)
        if model is not None:
            check_model(model)
        if auth is not None or cookies is not None:
            extra = per_request(core, auth, cookies)
            try:
                return self.request(method, path, params=params, json=json, data=data, files=files,
                                    headers=merged_headers(extra, headers), timeout=timeout,
                                    envelope=envelope, output=output, follow_redirects=follow_redirects,
                                    group=group, label=label, retry=retry, deadline=deadline,
                                    connect_timeout=connect_timeout, idle_timeout=idle_timeout,
                                    cache=cache, on_cached=on_cached, progress=progress,
                                    skip_error_handler=skip_error_handler, model=model)
            finally:
                if extra is not None:
                    extra.release()
        if group is not None and (cache is not None or on_cached is not None):
            raise ValueError("cache= and on_cached= are not supported together with group=")
        if group is not None:
            if core.in_callback():
                raise error_for(Status.INVALID_STATE, message="a request cannot be waited for inside a "
                                "completion callback of the same client")
            task = self.send(method, path, params=params, json=json, data=data, files=files, headers=headers,
                             timeout=timeout, envelope=envelope, output=output,
                             follow_redirects=follow_redirects, group=group, label=label, retry=retry,
                             deadline=deadline, connect_timeout=connect_timeout, idle_timeout=idle_timeout,
                             progress=progress, skip_error_handler=skip_error_handler)
            result = task.result()
            if model is None:
                return result
            result._sent = (method.upper(), None, label)
            return decoded(result, model)
        resp_p, err_p = ResponseHandle(), ErrorHandle()
        if (params is None and json is None and data is None and files is None and headers is None
                and timeout is None and envelope is None and output is None
                and follow_redirects is None and retry is None and deadline is None
                and connect_timeout is None and idle_timeout is None and cache is None
                and on_cached is None and progress is None and not skip_error_handler
                and label is None):
            # The common plain call: the thread's cached builder (see plain_request),
            # and core.handle() inline.
            handle = core._handle
            if handle is None or core._closing:
                handle = core.handle()   # raises InvalidState
            status = C.nc_client_send_sync(handle, plain_request(method, path),
                                           ctypes.byref(resp_p), ctypes.byref(err_p))
        else:
            limits = RequestLimits.of(retry, deadline, connect_timeout, idle_timeout, cache, on_cached)
            req = build_request(method, path, params=params, json=json, data=data, files=files,
                                headers=headers, timeout=timeout, envelope=envelope,
                                output=output, max_redirects=redirect_arg(self._core, follow_redirects),
                                limits=limits, label=label, skip_error_handler=skip_error_handler)
            try:
                keep = progress_callback(progress)   # alive until the completion
                apply_progress(req, keep)
                status = C.nc_client_send_sync(core.handle(), req, ctypes.byref(resp_p),
                                               ctypes.byref(err_p))
            finally:
                C.nc_request_free(req)
                del limits   # the cached callback's hook lived until here
        response = _sync_response(core, status, resp_p, err_p, skip_error_handler)
        # A success: its data is where the request's mode says (parsed in Python).
        response._data_key = (core.data_key if envelope is None and output is None
                              else data_key(core, envelope, output))
        if model is None:
            return response
        response._sent = (method.upper(), None, label)
        return decoded(response, model)

    @overload
    def get(self, path: str, *, model: None = None, **kwargs: Any) -> Response: ...

    @overload
    def get(self, path: str, *, model: Type[M], **kwargs: Any) -> M: ...

    @overload
    def get(self, path: str, *, model: Any, **kwargs: Any) -> Any: ...

    def get(self, path: str, *, model: Any = None, **kwargs: Any) -> Any:
        """GET ``path``; keyword arguments as in :meth:`request` (``model=``: the
        data decoded as that class is returned instead of the Response)."""
        return self.request("GET", path, model=model, **kwargs)

    @overload
    def post(self, path: str, *, model: None = None, **kwargs: Any) -> Response: ...

    @overload
    def post(self, path: str, *, model: Type[M], **kwargs: Any) -> M: ...

    @overload
    def post(self, path: str, *, model: Any, **kwargs: Any) -> Any: ...

    def post(self, path: str, *, model: Any = None, **kwargs: Any) -> Any:
        """POST ``path``; keyword arguments as in :meth:`request` (``model=``: the
        data decoded as that class is returned instead of the Response)."""
        return self.request("POST", path, model=model, **kwargs)

    @overload
    def put(self, path: str, *, model: None = None, **kwargs: Any) -> Response: ...

    @overload
    def put(self, path: str, *, model: Type[M], **kwargs: Any) -> M: ...

    @overload
    def put(self, path: str, *, model: Any, **kwargs: Any) -> Any: ...

    def put(self, path: str, *, model: Any = None, **kwargs: Any) -> Any:
        """PUT ``path``; keyword arguments as in :meth:`request` (``model=``: the
        data decoded as that class is returned instead of the Response)."""
        return self.request("PUT", path, model=model, **kwargs)

    @overload
    def patch(self, path: str, *, model: None = None, **kwargs: Any) -> Response: ...

    @overload
    def patch(self, path: str, *, model: Type[M], **kwargs: Any) -> M: ...

    @overload
    def patch(self, path: str, *, model: Any, **kwargs: Any) -> Any: ...

    def patch(self, path: str, *, model: Any = None, **kwargs: Any) -> Any:
        """PATCH ``path``; keyword arguments as in :meth:`request` (``model=``: the
        data decoded as that class is returned instead of the Response)."""
        return self.request("PATCH", path, model=model, **kwargs)

    @overload
    def delete(self, path: str, *, model: None = None, **kwargs: Any) -> Response: ...

    @overload
    def delete(self, path: str, *, model: Type[M], **kwargs: Any) -> M: ...

    @overload
    def delete(self, path: str, *, model: Any, **kwargs: Any) -> Any: ...

    def delete(self, path: str, *, model: Any = None, **kwargs: Any) -> Any:
        """DELETE ``path``; keyword arguments as in :meth:`request` (``model=``: the
        data decoded as that class is returned instead of the Response)."""
        return self.request("DELETE", path, model=model, **kwargs)

    def head(self, path: str, **kwargs: Any) -> Response:
        """HEAD ``path``; keyword arguments as in :meth:`request`."""
        return cast(Response, self.request("HEAD", path, **kwargs))

    def options(self, path: str, **kwargs: Any) -> Response:
        """OPTIONS ``path``; keyword arguments as in :meth:`request`."""
        return cast(Response, self.request("OPTIONS", path, **kwargs))

    # -- callbacks ------------------------------------------------------------

    def send(self, method: str, path: str, *, callback: Optional[Callback] = None,
             params: Optional[Params] = None, json: Any = None, data: Any = None, files: Any = None,
             headers: Optional[HeadersArg] = None, timeout: Optional[TimeoutArg] = None,
             envelope: Optional[bool] = None, output: Any = None,
             follow_redirects: Optional[bool] = None, group: Optional[str] = None, label: Optional[str] = None, retry: RetryArg = None,
             deadline: Optional[float] = None, connect_timeout: Optional[float] = None,
             idle_timeout: Optional[float] = None, progress: Optional[ProgressFn] = None,
             skip_error_handler: bool = False, auth: Any = None, cookies: Any = None,
             allow_redirects: Optional[bool] = None) -> Task:
        """Start a request and return at once (``nc_client_send``).

        ``callback(response, error)`` runs exactly once when the request ends — on
        the client's transfer thread (``"callbacks": "loop"``, the default) or inside
        :meth:`dispatch` (``"callbacks": "queue"``). ``error`` is ``None`` on success.
        Keep callbacks short; they may call :meth:`send` and :meth:`Task.cancel`, not
        the blocking methods nor :meth:`close`. An exception raised by the callback is
        logged to the ``"netcore"`` logger and otherwise ignored.

        The callback and the request's state are kept alive by the client until the
        completion: the returned :class:`Task` may be dropped. ``group=`` puts the
        request in a cancellation group (:meth:`cancel_group`). Other arguments as
        in :meth:`request` (``skip_error_handler=True``: no ``on_error`` for it).
        """
        description = f"{method.upper()} {path}"
        task = Task(description)
        follow_redirects = follow_arg(follow_redirects, allow_redirects)
        extra = per_request(self._core, auth, cookies)
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
        try:
            pending = _CallbackPending(task, callback, skip_error_handler)
            pending.extra = extra  # released by the completion (or by a refused send)
            pending.keep = progress_callback(progress)   # alive until the completion
            apply_progress(req, pending.keep)
            handle = self._core.send(req, pending)
        finally:
            C.nc_request_free(req)
        task._attach(handle)
        return task

    def stream(self, method: str, path: str, *, params: Optional[Params] = None,
               json: Any = None, data: Any = None, headers: Optional[HeadersArg] = None,
               timeout: Optional[TimeoutArg] = None, group: Optional[str] = None,
               label: Optional[str] = None,
               progress: Optional[ProgressFn] = None, skip_error_handler: bool = False,
               buffer_bytes: Optional[int] = DEFAULT_BUFFER_BYTES, auth: Any = None,
               cookies: Any = None, follow_redirects: Optional[bool] = None,
               allow_redirects: Optional[bool] = None) -> Stream:
        """A request whose 2xx body is read as chunks while it arrives
        (``nc_request_set_body_callback``)::

            with client.stream("GET", "/files/big") as r:
                for chunk in r.iter_bytes():
                    out.write(chunk)

        The request starts when the ``with`` block is entered (``nc_client_send``),
        which returns once the head of a 2xx has arrived — before its first body
        byte (``nc_request_set_head_callback``) — or the end: ``r.status_code``,
        ``r.headers`` and ``r.is_success`` are known, and an HTTP error is raised by
        ``r.raise_for_status()``. ``iter_bytes()`` yields ``bytes``
        chunks, ``iter_text()`` text, ``iter_lines()`` lines (NDJSON,
        ``text/event-stream``), and at the end raises the request's
        :class:`~netcore.Error` if it failed (an HTTP error keeps its body on the
        error); ``r.response`` is the :class:`~netcore.Response` (empty body) after
        the last chunk, with the status and headers of a 2xx. Leaving the block
        early cancels the request. Raw mode, never coalesced, not retried once a
        chunk was delivered.

        Backpressure: at most ``buffer_bytes`` (4 MiB by default; ``None``: no
        bound) and one chunk wait for the reader; past that this transfer is
        paused (``NC_BODY_PAUSE``) until the reader has taken half of them, so a
        slow reader keeps memory flat while the client's other requests go on.
        Arguments as in :meth:`request`.
        """
        kwargs: Dict[str, Any] = dict(
            params=params, json=json, data=data, headers=headers, timeout=timeout, group=group,
            label=label, progress=progress, skip_error_handler=skip_error_handler,
            max_redirects=redirect_arg(self._core, follow_arg(follow_redirects, allow_redirects)))
        return Stream(self._core, method, path, build_request, kwargs, buffer_bytes,
                                 (auth, cookies))

    # -- the endpoint catalog ---------------------------------------------------

    @overload
    def call(self, endpoint: str, params: Optional[Dict[str, Any]] = None, *,
             skip_error_handler: bool = False, label: Optional[str] = None, model: None = None,
             **kwargs: Any) -> Response: ...

    @overload
    def call(self, endpoint: str, params: Optional[Dict[str, Any]] = None, *,
             skip_error_handler: bool = False, label: Optional[str] = None, model: Type[M],
             **kwargs: Any) -> M: ...

    @overload
    def call(self, endpoint: str, params: Optional[Dict[str, Any]] = None, *,
             skip_error_handler: bool = False, label: Optional[str] = None, model: Any,
             **kwargs: Any) -> Any: ...

    def call(self, endpoint: str, params: Optional[Dict[str, Any]] = None, *,
             skip_error_handler: bool = False, label: Optional[str] = None, model: Any = None,
             **kwargs: Any) -> Any:
        """Call the endpoint ``endpoint`` of the client's catalog and wait for it
        (``nc_request_new_endpoint`` + params + ``nc_client_send_sync``)::

            user = client.call("user.get", id=7).data

        The params are ``params`` (for names that are not identifiers) updated with
        the keyword arguments; ``{placeholders}`` of the endpoint's path take theirs,
        the rest are encoded per the endpoint (a ``None`` is ``null`` in a JSON
        body and left out of a query or form). ``skip_error_handler=True`` (not a
        param: pass a param of that name in ``params``) keeps the call from the
        client's ``on_error`` hook, as in :meth:`request`; ``label=`` names the call
        (its errors, events and log lines carry it; a param named ``label`` goes in
        ``params``). ``model=User`` (or
        ``list[User]``, …) returns the data decoded as that class, as in
        :meth:`request` (a param named ``model`` goes in ``params``)::

            user = client.call("user.get", id=7, model=User)

        Raises:
            netcore.Error: the request failed; an unknown endpoint or a missing
                placeholder is a :class:`~netcore.ClientError` with code
                ``INVALID_REQUEST`` naming it (nothing was sent).
            InvalidArgument: a bad name, params that are not JSON.
            InvalidState: the client is closed, or this is called from one of its callbacks.
        """
        merged = dict(params or {})
        merged.update(kwargs)
        core = self._core
        if model is not None:
            check_model(model)
        resp_p, err_p = ResponseHandle(), ErrorHandle()
        req = endpoint_request(endpoint, merged, skip_error_handler, label)
        try:
            status = C.nc_client_send_sync(core.handle(), req, ctypes.byref(resp_p), ctypes.byref(err_p))
        finally:
            C.nc_request_free(req)
        # data: the library's (the endpoint may set its own envelope mode)
        response = _sync_response(core, status, resp_p, err_p, skip_error_handler)
        if model is None:
            return response
        response._sent = (None, endpoint, label)
        return decoded(response, model)

    # -- event-loop integration (``"callbacks": "queue"``) ----------------------

    def fileno(self) -> int:
        """``nc_client_fd``: readable while completions wait (queue mode), else -1."""
        with self._core.use() as h:
            return int(C.nc_client_fd(h))

    def dispatch(self) -> None:
        """``nc_client_dispatch``: run the queued completions on this thread (queue mode)."""
        with self._core.use() as h:
            check_call(C.nc_client_dispatch, h)

    def __repr__(self) -> str:
        return f"<netcore.Client {'closed' if self.closed else 'open'}>"


def _sync_response(core: ClientCore, status: int, resp_p: ResponseHandle,
                   err_p: ErrorHandle, skip_error_handler: bool = False) -> Response:
    """The outcome of ``nc_client_send_sync`` as ``Client.request`` and
    ``Client.call`` return it: the Response, or the request's Error (after the
    client's ``on_error``, unless ``skip_error_handler``) or a refusal, raised; the
    error handle is freed."""
    response = Response(resp_p) if resp_p else None
    if status != NC_OK:
        # NC_ERR_FAILED with an nc_error: the request's Error; else a refusal.
        try:
            exc = error_for(status, err_p, function="nc_client_send_sync", response=response)
        finally:
            C.nc_error_free(err_p)  # NULL: no-op
        if isinstance(exc, Error):
            core.call_on_error(exc, skip_error_handler)
        raise exc
    if response is None:  # pragma: no cover - the library always gives one on NC_OK
        raise error_for(Status.FAILED, function="nc_client_send_sync",
                        message="nc_client_send_sync gave neither a response nor an error")
    if not skip_error_handler:
        response._owner = core  # its on_error sees a failed data_as()
    return response
