"""Reachability (``"reachability"`` of the configuration, netcore.h "Reachability"):
``Client(reachability="offline")``, ``client.reachability`` and ``client.reachable``.

In ``"auto"`` mode (the default) a request to a host other than loopback fails at
once with :class:`~netcore.ClientError` code ``UNREACHABLE`` while no route leaves
the machine (no DNS lookup, no connect); ``"online"`` checks nothing; ``"offline"``
fails every request, loopback included. ``{"reachability": {"wait_for_network_ms":
N}}`` makes such a request wait up to N ms for the network (or a change of mode).

Watching it (since 0.4): ``client.on_reachability = fn`` (or ``on_reachability=``)
calls ``fn(reachable)`` on every change of :attr:`~netcore.Client.reachable`
(``nc_client_set_reachability_handler``), and ``async for reachable in
client.reachability_changes()`` yields the state now, then each change. A request
waiting out a retry's delay when the network returns is sent at once, with a
``retry`` event of ``delay_ms`` 0 whose reason starts "network returned".
"""
from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, AsyncIterator, Callable, List, Optional

from ._capi import C, REACHABILITY_FN
from ._completion import report
from .errors import Status, check_call, error_for

#: The modes by name, as ``NC_REACH_AUTO``, ``NC_REACH_ONLINE``, ``NC_REACH_OFFLINE``.
MODES = {"auto": 0, "online": 1, "offline": 2}


def mode_number(mode: Any) -> int:
    """``NC_REACH_*`` of a mode name; :class:`~netcore.InvalidArgument` otherwise."""
    if not isinstance(mode, str) or mode not in MODES:
        raise error_for(Status.INVALID_ARGUMENT,
                        message=f"reachability must be one of 'auto', 'online', 'offline', not {mode!r}")
    return MODES[mode]


def with_reachability(text: bytes, mode: Optional[str]) -> bytes:
    """The configuration text with ``"reachability"."mode"`` set to ``mode`` (other
    members of ``"reachability"`` kept). Text that is not a JSON object, or whose
    ``"reachability"`` is not an object, is returned unchanged: the library reports it."""
    if mode is None:
        return text
    mode_number(mode)
    try:
        obj = json.loads(text)
    except ValueError:
        return text
    if not isinstance(obj, dict):
        return text
    section = obj.get("reachability", {})
    if not isinstance(section, dict):
        return text
    obj["reachability"] = dict(section, mode=mode)
    return json.dumps(obj).encode("utf-8")


def configured_mode(text: bytes) -> str:
    """The mode a (valid) configuration text sets: ``"auto"`` unless it says otherwise."""
    try:
        mode = json.loads(text).get("reachability", {}).get("mode", "auto")
    except (ValueError, AttributeError):
        return "auto"
    return mode if mode in MODES else "auto"


def set_mode(core: Any, mode: str) -> None:
    """``nc_client_set_reachability``; remembered on the core for the getter."""
    number = mode_number(mode)
    with core.use() as h:
        check_call(C.nc_client_set_reachability, h, number, detail=f"reachability {mode!r}")
    core.reach_mode = mode


def is_reachable(core: Any) -> bool:
    """``nc_client_reachability(c) == NC_REACH_ONLINE``."""
    with core.use() as h:
        return int(C.nc_client_reachability(h)) == MODES["online"]


class Watch:
    """The client's one C reachability handler, fanned out to the ``on_reachability``
    callback and to each :func:`changes` iterator. Kept on the core (``core.reach_watch``)
    with its ctypes function, which lives as long as the core."""

    def __init__(self, core: Any) -> None:
        self.core = core
        self.callback: Optional[Callable[[bool], Any]] = None
        self.listeners: List[Callable[[bool], None]] = []
        self.lock = threading.Lock()
        self.fn = REACHABILITY_FN(self._changed)
        self.installed = False

    def _changed(self, state: int, _ud: Optional[int]) -> None:
        reachable = int(state) == MODES["online"]
        with self.lock:
            callback, listeners = self.callback, list(self.listeners)
        if callback is not None:
            try:
                callback(reachable)
            except Exception as exc:  # never unwinds into C
                report(exc, f"on_reachability hook {callback!r}")
        for listener in listeners:
            listener(reachable)

    def update(self) -> None:
        """Installs the C handler while someone listens, removes it otherwise."""
        with self.lock:
            wanted = self.callback is not None or bool(self.listeners)
        if wanted == self.installed:
            return
        with self.core.use() as h:
            check_call(C.nc_client_set_reachability_handler, h, self.fn if wanted else REACHABILITY_FN(), None)
        self.installed = wanted


def watch(core: Any) -> Watch:
    """The core's Watch, made on first use."""
    w = getattr(core, "reach_watch", None)
    if w is None:
        w = core.reach_watch = Watch(core)
    return w


def set_callback(core: Any, callback: Optional[Callable[[bool], Any]]) -> None:
    """``on_reachability``: ``callback(reachable)`` on every change; ``None`` removes it."""
    if callback is not None and not callable(callback):
        raise TypeError(f"on_reachability must be callable or None, not {callback!r}")
    w = watch(core)
    with w.lock:
        w.callback = callback
    w.update()


async def changes(core: Any) -> AsyncIterator[bool]:
    """``reachable`` now, then after each change, on the running event loop (the
    handler may run on another thread: handed over with ``call_soon_threadsafe``)."""
    loop = asyncio.get_running_loop()
    queue: "asyncio.Queue[bool]" = asyncio.Queue()

    def listener(reachable: bool) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, reachable)
        except RuntimeError:  # the loop is closed: nobody iterates any more
            pass

    w = watch(core)
    with w.lock:
        w.listeners.append(listener)
    try:
        w.update()
        yield is_reachable(core)
        while True:
            yield await queue.get()
    finally:
        with w.lock:
            w.listeners.remove(listener)
        if not core.closed:
            w.update()
