"""Client hooks on top of the C hooks (``nc_client_set_*_handler``).

``install(core, ...)`` installs, on one :class:`~netcore._core.ClientCore`:

* ``on_auth_expired(error)``: ``nc_client_set_auth_expired_handler`` — once per
  expiry of the credentials (envelope ``auth_expired_codes`` or HTTP 401),
  re-armed when the Authorization header changes.
* ``on_event(event: dict)``: ``nc_client_set_event_handler``, each JSON event
  parsed (``request_start``, ``attempt_end``, ``retry``, ``request_end``).
* ``event_kinds=["request_end", ...]``: the kinds ``on_event`` receives
  (``nc_client_set_event_mask``); every kind by default. A kind nobody asked for is
  not made into JSON nor handed to Python at all.
* ``event_hooks={"request": [f], "response": [f]}`` (httpx's names): "request"
  hooks get a :class:`HookRequest` at each request's start, "response" hooks a
  :class:`HookResponse` at its completion (status, url, elapsed, error). Built on
  the same events; without ``on_event`` only the kinds they need (request_start,
  request_end) cross into Python: one event a request for response hooks alone.
* logging: ``nc_client_set_log_handler`` is installed at the level matching the
  effective level of ``logging.getLogger("netcore")`` (which its parents set) at
  the time the client is made — DEBUG -> NC_LOG_DEBUG (each start and attempt),
  INFO -> NC_LOG_INFO (one line per request, retries), WARNING -> NC_LOG_WARN
  (failed requests) — and each line goes to that logger at the line's own level
  (DEBUG, INFO, WARNING). With Python's default (WARNING, from the root logger) a
  failed request is logged as a WARNING; the package adds a
  :class:`logging.NullHandler` to that logger, so an app that configures no logging
  sees nothing on stderr. At WARN the library builds an event for failed requests
  only. A logger enabled for ERROR and above only installs nothing (the library
  writes no line above WARN): a request then costs nothing extra. Change the level
  before making the client.

The ctypes function objects are kept on the core while installed (the C library
holds only their addresses). What a hook raises is logged, never propagated.
Hooks run on the client's transfer thread (or inside dispatch for the
auth-expired handler of an AsyncClient).
"""
from __future__ import annotations

import ctypes
import datetime
import json
import logging
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

from ._capi import (C, COMPLETE_FN, EVENT_FN, NC_LOG_DEBUG, NC_LOG_INFO, NC_LOG_OFF,
                    NC_LOG_WARN, ErrorHandle)
from ._completion import report
from .errors import Status, check_call, error_for

logger = logging.getLogger("netcore")

#: event kinds (the JSON "event" names) -> NC_EVENT_* bits.
EVENT_KINDS = {"request_start": 0x01, "attempt_end": 0x02, "retry": 0x04, "cache_hit": 0x08,
               "request_end": 0x10}

#: netcore log levels (NC_LOG_*) by line prefix -> logging levels.
_LINE_LEVELS = {"ERROR": logging.ERROR, "WARN": logging.WARNING, "INFO": logging.INFO,
                "DEBUG": logging.DEBUG, "TRACE": logging.DEBUG}


class HookRequest:
    """What an ``event_hooks["request"]`` hook receives: ``method``, ``url``
    (redacted: no credentials or secret query values) and ``id`` (the request's
    number, as in events)."""

    __slots__ = ("method", "url", "id")

    def __init__(self, event: Dict[str, Any]) -> None:
        self.method, self.url, self.id = event.get("method"), event.get("url"), event.get("id")

    def __repr__(self) -> str:
        return f"<HookRequest #{self.id} {self.method} {self.url}>"


class HookResponse:
    """What an ``event_hooks["response"]`` hook receives at completion:
    ``request`` (a HookRequest), ``status_code`` (0 if none), ``elapsed``
    (timedelta), ``error`` (``None``, or ``(domain, code)``), ``attempts``."""

    __slots__ = ("request", "status_code", "elapsed", "error", "attempts")

    def __init__(self, event: Dict[str, Any]) -> None:
        self.request = HookRequest(event)
        self.status_code = event.get("status") or 0
        self.elapsed = datetime.timedelta(microseconds=int(event.get("elapsed_us") or 0))
        self.error = (event["domain"], event["code"]) if event.get("domain") else None
        self.attempts = event.get("attempt") or 0

    def __repr__(self) -> str:
        return f"<HookResponse #{self.request.id} {self.status_code} {self.error or ''}>"


def _text(p: Optional[int], n: int) -> str:
    return ctypes.string_at(p, n).decode("utf-8", "replace") if p else ""


def _safe(fn: Callable[..., Any], *args: Any) -> None:
    try:
        fn(*args)
    except Exception as exc:
        report(exc, f"hook {fn!r}")


def log_level_for(log: logging.Logger) -> int:
    """The NC_LOG_* level to install for ``log`` (NC_LOG_OFF 0: none): the most
    detailed level it is enabled for, DEBUG -> NC_LOG_DEBUG 4, INFO -> NC_LOG_INFO 3,
    WARNING -> NC_LOG_WARN 2. A logger that takes ERROR and above only gets none:
    the library writes no line above WARN, so a handler would receive nothing."""
    for level, nc_level in ((logging.DEBUG, NC_LOG_DEBUG), (logging.INFO, NC_LOG_INFO),
                            (logging.WARNING, NC_LOG_WARN)):
        if log.isEnabledFor(level):
            return nc_level
    return NC_LOG_OFF


def event_mask(on_event: Any, event_kinds: Optional[Iterable[str]], request_hooks: bool,
               response_hooks: bool) -> int:
    """The NC_EVENT_* bits the event handler takes: ``event_kinds`` (every kind when
    None) for ``on_event``, and what the event hooks need."""
    if event_kinds is not None and on_event is None:
        raise ValueError("event_kinds chooses what on_event receives: give on_event too")
    if isinstance(event_kinds, str):
        raise ValueError(f"event_kinds: a collection of names, not the string {event_kinds!r}")
    mask = 0
    if on_event is not None:
        kinds = list(EVENT_KINDS) if event_kinds is None else list(event_kinds)
        unknown = sorted(set(kinds) - set(EVENT_KINDS))
        if unknown:
            raise ValueError(f"event_kinds: unknown kind(s) {unknown}; use {', '.join(EVENT_KINDS)}")
        for k in kinds:
            mask |= EVENT_KINDS[k]
    if request_hooks:
        mask |= EVENT_KINDS["request_start"]
    if response_hooks:
        mask |= EVENT_KINDS["request_end"]
    return mask


def install(core: Any, *, on_auth_expired: Optional[Callable[[Any], Any]] = None,
            on_event: Optional[Callable[[Dict[str, Any]], Any]] = None,
            event_kinds: Optional[Iterable[str]] = None,
            event_hooks: Optional[Dict[str, Sequence[Callable[[Any], Any]]]] = None) -> None:
    """Install the hooks given (and logging, per the rule above) on ``core``."""
    keep: List[Any] = []
    core.hook_refs = keep  # the ctypes callbacks live as long as the core
    hooks = event_hooks or {}
    unknown = set(hooks) - {"request", "response"}
    if unknown:
        raise ValueError(f"event_hooks: unknown event(s) {sorted(unknown)}; use 'request', 'response'")
    request_hooks = list(hooks.get("request", ()))
    response_hooks = list(hooks.get("response", ()))
    mask = event_mask(on_event, event_kinds, bool(request_hooks), bool(response_hooks))
    on_event_kinds = None if event_kinds is None else frozenset(event_kinds)

    with core.use() as h:
        if on_auth_expired is not None:
            def auth(response: Optional[int], error: Optional[int], _ud: Optional[int]) -> None:
                exc = error_for(Status.FAILED, ErrorHandle(error)) if error else None
                _safe(on_auth_expired, exc)
            fn = COMPLETE_FN(auth)
            keep.append(fn)
            check_call(C.nc_client_set_auth_expired_handler, h, fn, None)

        if on_event is not None or request_hooks or response_hooks:
            def event(p: Optional[int], n: int, _ud: Optional[int]) -> None:
                try:
                    e = json.loads(_text(p, n))
                except ValueError:  # pragma: no cover - the library writes JSON
                    return
                kind = e.get("event")
                # (the mask may let through a kind only the event hooks wanted)
                if on_event is not None and (on_event_kinds is None or kind in on_event_kinds):
                    _safe(on_event, e)
                if kind == "request_start":
                    for f in request_hooks:
                        _safe(f, HookRequest(e))
                elif kind == "request_end":
                    for f in response_hooks:
                        _safe(f, HookResponse(e))
            efn = EVENT_FN(event)
            keep.append(efn)
            check_call(C.nc_client_set_event_mask, h, mask)
            check_call(C.nc_client_set_event_handler, h, efn, None)

        level = log_level_for(logger)
        if level:
            def line(p: Optional[int], n: int, _ud: Optional[int]) -> None:
                text = _text(p, n)
                word, _, rest = text.partition(" ")
                try:
                    logger.log(_LINE_LEVELS.get(word, logging.INFO), "%s", rest)
                except Exception:  # pragma: no cover - a broken handler must not unwind into C
                    pass
            lfn = EVENT_FN(line)
            keep.append(lfn)
            check_call(C.nc_client_set_log_handler, h, level, lfn, None)
