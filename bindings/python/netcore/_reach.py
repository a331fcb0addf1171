"""Reachability (``"reachability"`` of the configuration, netcore.h "Reachability"):
``Client(reachability="offline")``, ``client.reachability`` and ``client.reachable``.

In ``"auto"`` mode (the default) a request to a host other than loopback fails at
once with :class:`~netcore.ClientError` code ``UNREACHABLE`` while no route leaves
the machine (no DNS lookup, no connect); ``"online"`` checks nothing; ``"offline"``
fails every request, loopback included. ``{"reachability": {"wait_for_network_ms":
N}}`` makes such a request wait up to N ms for the network (or a change of mode).
"""
from __future__ import annotations

import json
from typing import Any, Optional

from ._capi import C
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
