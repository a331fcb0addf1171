"""What :class:`~netcore.Client` and :class:`~netcore.AsyncClient` share, as
httpx's ``BaseClient``: the constructor (its keyword arguments and the
configuration they make), the lifetime bookkeeping, and every method that neither
blocks nor awaits (settings, cancellation, reachability, cookies, the cache, the
endpoint catalog). The two subclasses add the requests: blocking ones
(``client.py``) or awaited ones (``aio.py``)."""
from __future__ import annotations

import contextlib
import ctypes
import json
import weakref
from typing import Any, AsyncIterator, Callable, ClassVar, Dict, Iterable, Iterator, Mapping, Optional, Sequence

from . import _cache, _cookies, _hooks, _reach, _refresh
from ._adapters import apply_auth, configured_redirects, without_redirects
from ._capi import C, ErrorHandle
from ._core import ClientCore, Config, config_text
from ._request import TimeoutArg, cstr, endpoint_spec
from ._retry import RetryArg, install_handler, retry_json
from ._tls import _UNSET, Cert, Verify, connection_keys, with_connection_keys
from .errors import Error, Status, check_call, error_for
from .response import Response

__all__ = ["BaseClient", "Callback"]

#: ``callback(response, error)``: exactly one of them is meaningful — ``error`` is
#: ``None`` on success; on HTTP/API/parse errors ``response`` is passed too.
Callback = Callable[[Optional[Response], Optional[Error]], Any]


class BaseClient:
    """The part of a libnetcore client that does not depend on how requests are
    waited for. Not used directly: see :class:`~netcore.Client` (whose docstring
    describes the keyword arguments) and :class:`~netcore.AsyncClient`."""

    _core: ClientCore
    _finalizer: "weakref.finalize[Any, Any]"
    #: Top-level configuration keys the subclass forces (AsyncClient: queue mode).
    _forced_config: ClassVar[Dict[str, Any]] = {}

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
                 refresher: Optional[Callable[..., Any]] = None,
                 on_reachability: Optional[Callable[[bool], Any]] = None) -> None:
        force = dict(self._forced_config)
        if retry is not None:
            force["retry"] = retry_json(retry)
        text = _reach.with_reachability(
            with_connection_keys(config_text(config, force or None),
                                 connection_keys(verify, cert, proxy, http2, coalesce)),
            reachability)
        self._core = core = ClientCore(text if follow_redirects else without_redirects(text), on_error)
        core.reach_mode = _reach.configured_mode(text)
        core.redirect_limit = -1 if follow_redirects else configured_redirects(text)
        self._finalizer = self._own(core)
        apply_auth(core, auth)
        _hooks.install(core, on_auth_expired=on_auth_expired, on_event=on_event,
                       event_kinds=event_kinds, event_hooks=event_hooks)
        if retry_handler is not None:
            install_handler(core, retry_handler)
        if refresher is not None:
            _refresh.install(core, refresher, self._refresh_loop())
        if on_reachability is not None:
            _reach.set_callback(core, on_reachability)

    # -- lifetime (the subclass's part) ------------------------------------------

    def _own(self, core: ClientCore) -> "weakref.finalize[Any, Any]":
        """Take the new core (a subclass may refuse it, freeing it): the finalizer
        that frees it if this object is collected unclosed."""
        return weakref.finalize(self, core.free_from_finalizer)

    def _refresh_loop(self) -> Optional[Callable[[], Any]]:
        """``refresher=``'s event loop getter (None: the refresher runs on a thread)."""
        return None

    def _free(self) -> None:
        """The end of close(): no finalizer any more, and ``nc_client_free``."""
        self._finalizer.detach()
        self._core.free()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._core.closed

    # -- settings -------------------------------------------------------------

    def set_environment(self, name: str) -> None:
        """Select the base URL named ``name`` in the configuration's ``environments``.

        Raises:
            InvalidArgument: unknown name (the environment is unchanged).
        """
        self._core.set_environment(name)

    def set_header(self, name: str, value: Optional[str]) -> None:
        """Set a default header of every later request; ``None`` removes it.

        Raises:
            InvalidArgument: the name is not an HTTP token or the value has CR/LF.
        """
        self._core.set_header(name, value)

    def set_common_param(self, name: str, value: Any) -> None:
        """Set one of the ``"common_params"`` of every later request (a string,
        number or boolean; ``None`` removes it): ``nc_client_set_common_param``.

        Raises:
            InvalidArgument: an empty name or a value of another type (nothing changed).
        """
        if value is not None and (not isinstance(value, (str, int, float, bool))):
            raise error_for(Status.INVALID_ARGUMENT, function="set_common_param",
                            message=f"common param {name!r} must be a string, number or boolean, "
                                    f"not {type(value).__name__}")
        text = None if value is None else json.dumps(value).encode("utf-8")
        with self._core.use() as h:
            check_call(C.nc_client_set_common_param, h, cstr(name, "common param"), text,
                       detail=f"common param {name!r}")

    def set_messages(self, messages: Optional[Mapping[str, str]]) -> None:
        """Replace the ``"messages"`` (texts for people by error key, e.g.
        ``{"TRANSPORT": ..., "API.1001": ...}``) for errors completing from now on —
        a locale switch; ``None`` removes them. ``e.user_message`` reads them.

        Raises:
            InvalidArgument: a key that is not DOMAIN, DOMAIN.code or HTTP.Nxx, or
                an empty text (nothing changed).
        """
        text = None if messages is None else json.dumps(dict(messages)).encode("utf-8")
        with self._core.use() as h:
            check_call(C.nc_client_set_messages_json, h, text, detail="messages")

    def set_token(self, token: Optional[str]) -> None:
        """Send ``Authorization: Bearer <token>`` with every later attempt (a request's
        own Authorization header wins); ``None`` clears. Read at each attempt.

        Raises:
            InvalidArgument: an empty token or one with CR/LF (the token is unchanged).
        """
        self._core.set_token(token)

    def preconnect(self, url: str) -> None:
        """Warm a connection to ``url``'s host (DNS, TCP, TLS, HTTP/2) on the
        transfer thread and return at once, so that the first request to that host
        reuses it (``nc_client_preconnect``: a bare HEAD request; any answer of the
        server means the connection is made). ``url`` is an absolute http(s) URL or
        a path joined to the base URL. A host that cannot be reached shows in
        ``on_event`` (a ``request_end`` of method HEAD with the TRANSPORT error) and
        in the log, not here. Not awaited in :class:`~netcore.AsyncClient` either:
        it never blocks.

        Raises:
            InvalidRequest: not an http(s) URL or path, a path with no base URL, a
                URL libcurl refuses (nothing sent).
        """
        err = ErrorHandle()
        with self._core.use() as h:
            status = C.nc_client_preconnect(h, cstr(url, "url"), ctypes.byref(err))
        if status != 0:
            try:
                raise error_for(status, err, function="nc_client_preconnect")
            finally:
                C.nc_error_free(err)

    @contextlib.contextmanager
    def corked(self) -> Iterator[None]:
        """Hold the requests sent inside the block and hand them to the transfer
        thread together when it ends (``nc_client_cork`` / ``nc_client_uncork``)::

            with client.corked():
                for path in screen:
                    client.send("GET", path, callback=show)

        One wake-up of the transfer thread for them all instead of one each (on a
        busy core each wake-up may preempt the caller). Blocks nest; a request may
        still start before the block ends, never later. Sends from other threads
        meanwhile are held too. :class:`~netcore.AsyncClient` already holds the
        requests of one event-loop turn this way by itself.
        """
        core = self._core
        with core.use() as h:
            check_call(C.nc_client_cork, h)
        try:
            yield
        finally:
            status = core.uncork()
        if status:  # not corked any more: someone uncorked it through the C API
            raise error_for(status, function="nc_client_uncork")

    # -- cancellation groups ----------------------------------------------------

    def cancel_group(self, group: str) -> int:
        """Cancel every request of ``group`` sent with :meth:`send` (or an endpoint
        whose ``"group"`` it is) and not yet completed — waiting, in flight, or between
        attempts (``nc_client_cancel_group``). Each completes once with
        :class:`~netcore.Cancelled` (an :class:`~netcore.AsyncClient`'s awaiting task
        raises it). Returns how many were cancelled. Synchronous requests are not
        affected (they belong to their thread). Raises :class:`~netcore.InvalidArgument`,
        nothing cancelled, for a name ``group=`` refuses (empty, or with control
        characters)."""
        return self._core.cancel_group(group)

    def cancel_all(self) -> int:
        """Cancel every request sent with :meth:`send` and not yet completed
        (``nc_client_cancel_all``); returns how many."""
        return self._core.cancel_group(None)

    @property
    def reachability(self) -> str:
        """The reachability mode: ``"auto"`` (the default: while no route leaves the
        machine, a request to a host other than loopback fails at once with
        :class:`~netcore.ClientError` ``UNREACHABLE``, no DNS lookup), ``"online"``
        (nothing checked) or ``"offline"`` (every request fails, loopback included).
        Setting it applies to attempts begun from then on and lets requests that
        wait for the network (``"wait_for_network_ms"``) ask again at once
        (``nc_client_set_reachability``).

        Raises:
            InvalidArgument: (setting) not one of the three names; nothing changes.
        """
        return str(self._core.reach_mode)

    @reachability.setter
    def reachability(self, mode: str) -> None:
        _reach.set_mode(self._core, mode)

    @property
    def cookies(self) -> "_cookies.Cookies":
        """The cookie jar (``{"cookies": {"enabled": True}}``): a live, read-only view
        of :class:`netcore.Cookie` values, with ``clear()`` and ``save()``. Empty on a
        client without a jar. Bounded as browsers bound theirs: at most 180 cookies a
        domain and 3,000 in all, the oldest evicted. See ``docs/cookies.md``."""
        return _cookies.Cookies(self._core)

    @property
    def reachable(self) -> bool:
        """Whether a request to a host other than loopback would be sent now
        (``nc_client_reachability``): forced online, or auto with a route off the
        machine."""
        return _reach.is_reachable(self._core)

    @property
    def on_reachability(self) -> Optional[Callable[[bool], Any]]:
        """``fn(reachable)`` called on every change of :attr:`reachable`
        (``nc_client_set_reachability_handler``): a :attr:`reachability` change that
        changes it, or in ``"auto"`` the routing table gaining or losing its last
        route off the machine. Not called for the state when set. On an
        :class:`~netcore.AsyncClient` it runs on the event loop (queue mode); on a
        :class:`~netcore.Client`, on the thread that saw the change (the one setting
        :attr:`reachability`, or the library's route watcher). What it raises is
        logged. ``None`` removes it."""
        w = getattr(self._core, "reach_watch", None)
        return w.callback if w is not None else None

    @on_reachability.setter
    def on_reachability(self, fn: Optional[Callable[[bool], Any]]) -> None:
        _reach.set_callback(self._core, fn)

    def reachability_changes(self) -> AsyncIterator[bool]:
        """An async iterator of :attr:`reachable`: the state now, then after each
        change, on the running event loop::

            async for online in client.reachability_changes():
                banner.visible = not online

        A request waiting out a retry's delay when the network returns is sent at
        once (its ``retry`` event: ``delay_ms`` 0, reason "network returned ...").
        """
        return _reach.changes(self._core)

    # -- the response cache -------------------------------------------------------

    def cache_clear(self) -> None:
        """Remove every stored answer, in memory and on disk (``nc_client_cache_clear``);
        nothing to do without ``"cache"``."""
        with self._core.use() as h:
            _cache.clear(h)

    def cache_remove(self, prefix: str) -> None:
        """Remove the stored answers whose URL starts with ``prefix`` (absolute, as
        stored: query pairs sorted) (``nc_client_cache_remove``).

        Raises:
            InvalidArgument: an empty prefix; nothing removed.
        """
        with self._core.use() as h:
            _cache.remove(h, prefix)

    def cache_stats(self) -> Optional[Dict[str, Any]]:
        """The cache's counters (``nc_client_cache_stats_json``): ``hits``,
        ``misses``, ``stores``, ``evictions``, ``revalidations``, ``not_modified``,
        ``bytes``, ``entries``, ``disk_bytes``, ``memory_limit``, ``disk_limit``, and
        ``skipped``: a dict of why answers were not stored (``status``,
        ``no_store``, ``vary_star``, ``shared_private``, ``shared_credentialed``,
        ``credentials_changed``, ``streamed``, ``too_large``, ``disk_error``) to how
        many; ``None`` without ``"cache"``."""
        with self._core.use() as h:
            return _cache.stats(h)

    def set_cache_partition(self, partition: Optional[str]) -> None:
        """Store and look up every answer in the partition named ``partition`` from
        now on (``nc_client_set_cache_partition``; as ``"cache": {"partition"}``):
        a name that stays the same across a token refresh keeps the entries — give
        each user their own. ``None`` goes back to the default, the partition of the
        credentials each request carries (docs/caching.md, "Partitions").

        Raises:
            InvalidArgument: an empty name (nothing changed).
            InvalidState: no ``"cache"`` configured, or ``"shared": true``.
        """
        with self._core.use() as h:
            _cache.set_partition(h, partition)

    # -- stubs (netcore.testing) -------------------------------------------------

    def add_stub(self, route: Optional[Mapping[str, Any]] = None, **fields: Any) -> None:
        """Add a stubbed route (``nc_client_add_stub``) after the client's others,
        for requests sent from now on: a dict of the route's members (``"method"``,
        ``"path"``, ``"query"``, ``"status"``, ``"headers"``, ``"body"``,
        ``"body_base64"``, ``"body_file"``, ``"delay_ms"``, ``"error"``,
        ``"times"``, ``"responses"``; docs/configuration.md, "Stubs"), or the same
        as keyword arguments. :func:`netcore.testing.stub` is the friendlier form.

        Raises:
            InvalidArgument: a wrong member (the message names it; nothing changes).
            InvalidState: the client was made without ``"stubs"`` (``"stubs": {}``
                is enough to add routes later).
        """
        spec = dict(route or {}, **fields)
        text = json.dumps(spec).encode("utf-8")
        err = ErrorHandle()
        with self._core.use() as h:
            status = C.nc_client_add_stub(h, text, ctypes.byref(err))
        if status != 0:
            try:
                message = C.nc_error_message(err).decode("utf-8", "replace") if err else ""
                raise error_for(status, function="nc_client_add_stub", message=message)
            finally:
                C.nc_error_free(err)

    # -- the endpoint catalog ---------------------------------------------------

    def define_endpoint(self, name: str, *, method: str = "GET", path: str,
                        encoding: Optional[str] = None, headers: Optional[Dict[str, str]] = None,
                        timeout: Optional[TimeoutArg] = None, envelope: Optional[bool] = None,
                        retry: Any = None, cache: Optional[str] = None,
                        group: Optional[str] = None, params: Optional[Mapping[str, Any]] = None,
                        additional_params: Optional[bool] = None,
                        flags: Optional[Sequence[str]] = None) -> None:
        """Define (or replace) the endpoint ``name`` (``nc_client_define_endpoint``):
        ``path`` may hold ``{placeholders}`` filled from the call's params;
        ``encoding`` is ``"query"``, ``"form"`` or ``"json"`` (default: query for
        GET/HEAD/DELETE/OPTIONS, form otherwise); ``timeout`` in seconds;
        ``retry`` (a :class:`netcore.Retry`, a dict or ``False``) is merged over the
        client's policy for calls of this endpoint; ``cache`` names the endpoint's cache
        policy and ``group`` the cancellation group of its calls
        (:meth:`cancel_group`). ``envelope`` may also be a dict (the endpoint's own
        envelope rules). ``params`` declares the parameters
        (``{"page": {"type": "integer", "min": 1}}``, checked before anything is
        sent: :class:`netcore.InvalidRequest` naming the parameter and the rule),
        ``additional_params=False`` refuses undeclared ones, and ``flags`` lists
        request flags (``["no_retry"]``) every call carries
        (docs/configuration.md, "endpoints"). Safe from any thread and from callbacks.

        Raises:
            InvalidArgument: a bad name or value (nothing changes).
        """
        spec = endpoint_spec(method=method, path=path, encoding=encoding, headers=headers,
                             timeout=timeout, envelope=envelope if not isinstance(envelope, dict) else None,
                             retry=retry, cache=cache, group=group)
        extra = {key: value for key, value in (("params", params), ("additional_params", additional_params),
                                                ("flags", None if flags is None else list(flags)),
                                                ("envelope", envelope if isinstance(envelope, dict) else None))
                 if value is not None}
        if extra:
            spec = json.dumps(dict(json.loads(spec.decode("utf-8")), **extra)).encode("utf-8")
        with self._core.use() as h:
            check_call(C.nc_client_define_endpoint, h, cstr(name, "endpoint name"), spec,
                       detail=f"endpoint {name!r}")
