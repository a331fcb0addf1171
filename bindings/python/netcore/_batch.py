"""Batches (netcore.h "Batches"): ``client.batch([...])`` sends several requests with
one completion and returns their results in the order given; ``fail_fast=True``
cancels the rest at the first failure (``NC_BATCH_FAIL_FAST``).

Each item is a path (GET), ``(method, path)`` or ``(method, path, kwargs)`` with these
keyword arguments of :meth:`netcore.Client.request`: ``params``, ``json``, ``data``,
``headers``, ``timeout``, ``envelope``, ``output``, ``follow_redirects``,
``skip_error_handler`` (that member's failure does not reach ``on_error``; members
cancelled by ``fail_fast`` never do). Each result is the
:class:`~netcore.Response`, or the :class:`~netcore.Error` the request failed with
(returned, not raised, as ``asyncio.gather(..., return_exceptions=True)`` does).
"""
from __future__ import annotations

import ctypes
import itertools
import threading
from typing import Any, Callable, Dict, List, Sequence, Tuple, Union

from ._adapters import redirect_arg
from ._capi import BATCH_FN, C, NC_OK, BatchHandle, RequestHandle, TaskHandle
from ._completion import convert, report
from ._core import ClientCore, data_key
from ._request import build_request
from .errors import Error, Status, error_for
from .response import Response

Result = Union[Response, Error]

_KEYWORDS = ("params", "json", "data", "headers", "timeout", "envelope", "output", "follow_redirects",
             "skip_error_handler")

#: Batches in flight: token -> the function their completion runs (with the batch).
_running: Dict[int, Callable[[int], None]] = {}
_lock = threading.Lock()
_tokens = itertools.count(1)


def _on_batch(batch: Any, userdata: Any) -> None:
    # On the transfer thread, or inside nc_client_dispatch; nothing may escape into C.
    try:
        with _lock:
            run = _running.pop(userdata or 0, None)
        if run is not None:
            run(batch)
    except BaseException as exc:  # pragma: no cover - our own bug, never the user's
        report(exc, "netcore batch completion")


_TRAMPOLINE = BATCH_FN(_on_batch)


def _item(item: Any) -> Tuple[str, str, Dict[str, Any]]:
    if isinstance(item, str):
        return "GET", item, {}
    if isinstance(item, tuple) and len(item) in (2, 3):
        kwargs = item[2] if len(item) == 3 else {}
        if isinstance(item[0], str) and isinstance(item[1], str) and isinstance(kwargs, dict):
            unknown = set(kwargs) - set(_KEYWORDS)
            if unknown:
                raise TypeError(f"batch item {item!r}: unknown keyword arguments {sorted(unknown)}")
            return item[0], item[1], kwargs
    raise TypeError(f"a batch item is a path, (method, path) or (method, path, kwargs), not {item!r}")


def start(core: ClientCore, items: Sequence[Any], fail_fast: bool,
          done: Callable[[List[Result]], None]) -> TaskHandle:
    """Builds and sends the batch; ``done(results)`` runs once, where the batch's
    completion runs. Returns the owned task. Raises before anything is sent when an
    item is malformed or the client is closed."""
    parsed = [_item(i) for i in items]  # every item checked before anything is built
    keys = [data_key(core, kw.get("envelope"), kw.get("output")) for _, _, kw in parsed]
    skips = [bool(kw.get("skip_error_handler")) for _, _, kw in parsed]
    requests: List[RequestHandle] = []
    batch = BatchHandle()
    try:
        for method, path, kw in parsed:
            kw = dict(kw)
            follow = kw.pop("follow_redirects", None)
            requests.append(build_request(method, path, max_redirects=redirect_arg(core, follow), **kw))
        with core.use() as h:
            status = C.nc_batch_new(h, 1 if fail_fast else 0, ctypes.byref(batch))
        if status != NC_OK:
            raise error_for(status, function="nc_batch_new")
        for r in requests:
            status = C.nc_batch_add(batch, r)
            if status != NC_OK:
                raise error_for(status, function="nc_batch_add")
    except BaseException:
        C.nc_batch_free(batch)  # NULL: no-op
        raise
    finally:
        for r in requests:
            C.nc_request_free(r)

    def run(pointer: int) -> None:
        b = BatchHandle(pointer)
        results: List[Result] = []
        for i in range(int(C.nc_batch_count(b))):
            resp, err = convert(C.nc_batch_response(b, i), C.nc_batch_error(b, i))
            if resp is not None:
                resp._data_key = keys[i]
            if err is not None:
                core.call_on_error(err, skips[i])  # not for members cancelled by fail_fast
                results.append(err)
            else:
                assert resp is not None
                results.append(resp)
        done(results)

    token = next(_tokens)
    with _lock:
        _running[token] = run
    task = TaskHandle()
    try:
        with core.use():
            status = C.nc_batch_send(batch, _TRAMPOLINE, token, ctypes.byref(task))
        if status != NC_OK:
            raise error_for(status, function="nc_batch_send")
    except BaseException:
        with _lock:
            _running.pop(token, None)
        raise
    finally:
        C.nc_batch_free(batch)  # the sent batch keeps itself until its completion
    return task


def run_sync(core: ClientCore, items: Sequence[Any], fail_fast: bool) -> List[Result]:
    """``Client.batch``: sends and waits (the GIL is released while waiting)."""
    if core.in_callback():
        raise error_for(Status.INVALID_STATE, message="batch() cannot wait inside a completion "
                        "callback of the same client; use send() there")
    box: List[List[Result]] = []
    finished = threading.Event()

    def done(results: List[Result]) -> None:
        box.append(results)
        finished.set()

    task = start(core, items, fail_fast, done)
    try:
        finished.wait()
    finally:
        if not finished.is_set():  # interrupted (KeyboardInterrupt): cancel the members
            C.nc_task_cancel(task)
        C.nc_task_free(task)
    return box[0]
