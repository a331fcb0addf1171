"""Retry policies and the retry handler (the library's ``"retry"``, docs/configuration.md).

:class:`Retry` speaks urllib3's vocabulary where it fits (``total``,
``backoff_factor``, ``backoff_max``, ``status_forcelist``, ``allowed_methods``,
``respect_retry_after_header``) and becomes the library's ``"retry"`` object
(``docs/configuration.md``); the decision itself is the library's, the same for
C, Swift and Python.
"""
from __future__ import annotations

import ctypes
import logging
import math
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

from ._capi import C, RETRY_FN
from ._completion import convert
from .errors import check_call

__all__ = ["Retry", "RetryArg", "retry_json", "install_handler"]

logger = logging.getLogger("netcore")

#: What ``retry=`` accepts: a :class:`Retry`, a ``"retry"`` dict, ``False`` (one
#: attempt) or ``None`` (the client's policy / no key).
RetryArg = Union["Retry", Dict[str, Any], bool, None]

_BACKOFFS = ("immediate", "constant", "exponential")


class Retry:
    """A retry policy, as urllib3's ``Retry`` names things::

        Client(config, retry=Retry(total=3, backoff_factor=0.1, status_forcelist=[502, 503]))
        client.get("/orders", retry=Retry(total=0))      # this request: no retry

    Args:
        total: retries after the first attempt (urllib3's meaning): ``total=2`` is
            three attempts (the library's ``max_attempts`` = ``total + 1``). 0–99.
        backoff_factor: the first wait, in seconds (``initial_ms``); each later one
            is ``multiplier`` times longer. Unlike urllib3, the first retry waits
            too (urllib3 retries the first time at once).
        backoff_max: no wait is longer, a server's Retry-After included (``max_delay_ms``).
        status_forcelist: HTTP statuses retried (``statuses``).
        allowed_methods: methods retried without opting in (``methods``); a request
            with an ``Idempotency-Key`` header (or the C flag ``NC_REQUEST_IDEMPOTENT``)
            may be retried whatever its method.
        respect_retry_after_header: wait what the server's Retry-After says
            (``respect_retry_after``).
        backoff: ``"exponential"``, ``"constant"`` or ``"immediate"`` (library name).
        multiplier: exponential growth (library name).
        jitter: "full jitter", each wait drawn from 0 up to it (library name).

    The defaults are the library's: ``Retry()`` is ``{"max_attempts": 3,
    "backoff": "exponential", "initial_ms": 200, "multiplier": 2.0,
    "max_delay_ms": 5000, "jitter": true, "statuses": [408, 429, 500, 502, 503, 504],
    "methods": ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"], "respect_retry_after": true}``.
    Transport failures that say the network hiccuped (DNS, connect, timeout, reset)
    are retried too; API and parse errors never, unless ``retry_handler`` says so.
    """

    DEFAULT_STATUS_FORCELIST = (408, 429, 500, 502, 503, 504)
    DEFAULT_ALLOWED_METHODS = ("GET", "HEAD", "PUT", "DELETE", "OPTIONS")

    def __init__(self, total: int = 2, *, backoff_factor: float = 0.2, backoff_max: float = 5.0,
                 status_forcelist: Iterable[int] = DEFAULT_STATUS_FORCELIST,
                 allowed_methods: Iterable[str] = DEFAULT_ALLOWED_METHODS,
                 respect_retry_after_header: bool = True, backoff: str = "exponential",
                 multiplier: float = 2.0, jitter: bool = True) -> None:
        if isinstance(total, bool) or not isinstance(total, int) or not 0 <= total <= 99:
            raise ValueError(f"total must be an int from 0 to 99 (retries after the first attempt), got {total!r}")
        for name, value, top in (("backoff_factor", backoff_factor, 3600.0),
                                 ("backoff_max", backoff_max, 86400.0)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or not 0 <= value <= top:
                raise ValueError(f"{name} must be a number of seconds from 0 to {top:g}, got {value!r}")
        if backoff not in _BACKOFFS:
            raise ValueError(f"backoff must be one of {', '.join(_BACKOFFS)}, got {backoff!r}")
        if isinstance(multiplier, bool) or not isinstance(multiplier, (int, float)) \
                or not math.isfinite(multiplier) or not 1 <= multiplier <= 100:
            raise ValueError(f"multiplier must be a number from 1 to 100, got {multiplier!r}")
        self.total = total
        self.backoff_factor = float(backoff_factor)
        self.backoff_max = float(backoff_max)
        self.status_forcelist = tuple(int(s) for s in status_forcelist)
        self.allowed_methods = tuple(str(m).upper() for m in allowed_methods)
        self.respect_retry_after_header = bool(respect_retry_after_header)
        self.backoff = backoff
        self.multiplier = float(multiplier)
        self.jitter = bool(jitter)

    def to_json(self) -> Dict[str, Any]:
        """The library's ``"retry"`` object for this policy."""
        return {
            "max_attempts": self.total + 1,
            "backoff": self.backoff,
            "initial_ms": int(round(self.backoff_factor * 1000)),
            "multiplier": self.multiplier,
            "max_delay_ms": int(round(self.backoff_max * 1000)),
            "jitter": self.jitter,
            "statuses": list(self.status_forcelist),
            "methods": list(self.allowed_methods),
            "respect_retry_after": self.respect_retry_after_header,
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Retry) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return (f"Retry(total={self.total}, backoff_factor={self.backoff_factor}, "
                f"backoff_max={self.backoff_max}, status_forcelist={list(self.status_forcelist)})")


def retry_json(retry: RetryArg) -> Any:
    """The JSON value of ``retry=``: a dict, ``False`` or ``None`` (unchanged)."""
    if isinstance(retry, Retry):
        return retry.to_json()
    if retry is None or retry is False or isinstance(retry, dict):
        return retry
    raise TypeError(f"retry must be a netcore.Retry, a dict, False or None, not {retry!r}")


def install_handler(core: Any, fn: Optional[Callable[..., Any]]) -> None:
    """``nc_client_set_retry_handler`` with a Python callable
    ``fn(response, error, attempt)`` returning a number of seconds (retry after
    that wait), ``False`` (stop) or ``None`` (the policy decides). What it raises
    is logged and counts as ``None``."""
    if fn is None:
        with core.use() as h:
            check_call(C.nc_client_set_retry_handler, h, RETRY_FN(), None)
        return

    def handler(response: Optional[int], error: Optional[int], attempt: int, _ud: Optional[int]) -> int:
        try:
            resp, err = convert(response, error)
            answer = fn(resp, err, attempt)
            if answer is None:
                return -2
            if answer is False:
                return -1
            if isinstance(answer, bool) or not isinstance(answer, (int, float)) \
                    or not math.isfinite(answer) or answer < 0:
                raise TypeError(f"retry_handler must return seconds >= 0, False or None, not {answer!r}")
            return int(round(answer * 1000))
        except Exception:  # never into C: the policy decides
            logger.exception("retry_handler %r raised", fn)
            return -2

    cfn = RETRY_FN(handler)
    refs: List[Any] = getattr(core, "hook_refs", None) or []
    refs.append(cfn)
    core.hook_refs = refs  # the ctypes function lives as long as the core
    with core.use() as h:
        check_call(C.nc_client_set_retry_handler, h, cfn, None)
