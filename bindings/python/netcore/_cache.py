"""The response cache from Python (docs/caching.md): the policy enum, a request's
``cache=`` / ``on_cached=`` applied to its C builder, and the client's
``cache_clear`` / ``cache_remove`` / ``cache_stats`` / ``set_cache_partition``."""

import ctypes
import enum
import json
import logging
from typing import Any, Callable, Dict, Optional

from ._capi import C, COMPLETE_FN, NC_OK, ClientHandle, RequestHandle
from ._completion import convert
from .errors import check_call

_log = logging.getLogger("netcore")

#: A buffer this size always holds the whole stats text (``NC_CACHE_STATS_FULL_MAX``).
_STATS_MAX = 1024


class CachePolicy(enum.IntEnum):
    """How a request uses the client's cache (``NC_CACHE_*``); the client needs
    ``"cache"`` in its configuration. Every cacheable GET/HEAD answer is stored
    whatever the policy."""

    #: Never read the cache; requests are sent unconditionally (the default).
    NETWORK_ONLY = 0
    #: A fresh stored answer without a request; a stale one is revalidated (304:
    #: the stored body, ``response.not_modified``); else the network.
    CACHE_ELSE_NETWORK = 1
    #: The network; a transport failure or no route: the stored answer.
    NETWORK_ELSE_CACHE = 2
    #: The stored answer to ``on_cached`` first, then the network's to the caller.
    CACHE_THEN_NETWORK = 3
    #: The stored answer, or :class:`~netcore.NotCached`; nothing is sent.
    CACHE_ONLY = 4


class CachedHook:
    """``on_cached(response, error)`` as an ``nc_complete_fn``: kept alive by the
    request's limits until the request has completed (the library calls it before
    the completion, at most once)."""

    __slots__ = ("fn", "c_fn")

    def __init__(self, fn: Callable[..., Any]) -> None:
        if not callable(fn):
            raise TypeError(f"on_cached must be callable, got {fn!r}")
        self.fn = fn
        self.c_fn = COMPLETE_FN(self._call)

    def _call(self, response: Optional[int], error: Optional[int], _ud: Optional[int]) -> None:
        try:
            resp, err = convert(response, error)
            self.fn(resp, err)
        except Exception:  # a callback's exception must not cross into C
            _log.exception("netcore: on_cached callback raised")


def policy_value(cache: Any) -> int:
    """The C number of ``cache=`` (a :class:`CachePolicy` or its int)."""
    if isinstance(cache, bool) or not isinstance(cache, int) or cache not in CachePolicy._value2member_map_:
        raise ValueError(f"cache must be a netcore.CachePolicy, got {cache!r}")
    return int(cache)


def apply(handle: RequestHandle, policy: Optional[int], hook: Optional[CachedHook]) -> None:
    if policy is not None:
        check_call(C.nc_request_set_cache_policy, handle, policy)
    if hook is not None:
        check_call(C.nc_request_set_cached_callback, handle, hook.c_fn, None)


def clear(handle: ClientHandle) -> None:
    check_call(C.nc_client_cache_clear, handle)


def remove(handle: ClientHandle, prefix: str) -> None:
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a str, got {prefix!r}")
    check_call(C.nc_client_cache_remove, handle, prefix.encode("utf-8"))


def set_partition(handle: ClientHandle, partition: Optional[str]) -> None:
    """``nc_client_set_cache_partition``: a name, or ``None`` for the credentials' hash."""
    if partition is not None and not isinstance(partition, str):
        raise TypeError(f"partition must be a str or None, got {partition!r}")
    check_call(C.nc_client_set_cache_partition, handle,
               None if partition is None else partition.encode("utf-8"))


def stats(handle: ClientHandle) -> Optional[Dict[str, Any]]:
    """The counters (``"skipped"`` a dict of reason to count), or ``None`` when the
    client has no cache."""
    buf = ctypes.create_string_buffer(_STATS_MAX)
    n = ctypes.c_size_t(0)
    status = C.nc_client_cache_stats_json(handle, buf, _STATS_MAX, ctypes.byref(n))
    if status != NC_OK:
        return None   # NC_ERR_INVALID_STATE: no cache configured
    return dict(json.loads(buf.raw[: n.value].decode("ascii")))
