"""Single-flight token refresh for :class:`netcore.Client` and
:class:`netcore.AsyncClient` (``refresher=``): ``nc_client_set_token_refresher`` and
``nc_client_refresh_done``.

When requests fail because the login expired, the library asks for one refresh
however many failed; the others wait and are sent again with the new token. The
Python refresher gets the :class:`~netcore.Error` that triggered it and returns the
new token (``str``); raising (or returning ``None``) fails the waiting requests with
:class:`~netcore.AuthRefreshFailed` carrying the message.

``Client``: the refresher is a plain callable, run on a thread of its own (the
library's transfer thread must not block, and the refresher usually sends a request
itself — with the client's ``skip_auth`` flag or another client). ``AsyncClient``: an
``async def`` coroutine function, run as a task on the client's event loop.
"""
from __future__ import annotations

import asyncio
import ctypes
import logging
import threading
from typing import Any, Callable, List, Optional

from ._capi import C, REFRESH_FN
from ._completion import convert
from .errors import Status, check_call

logger = logging.getLogger("netcore")


def _done(core: Any, token: Any, message: Optional[str]) -> None:
    """nc_client_refresh_done; a closed client or a refresh already answered is not
    an error here (the requests it was for have ended)."""
    try:
        with core.use() as h:
            if isinstance(token, str) and token:
                status = C.nc_client_refresh_done(h, token.encode("utf-8"), None)
                if status == 0:
                    return
                message = message or "the refresher returned a token the library refused"
            # NC_ERR_INVALID_STATE: nothing waits for this refresh any more (answered,
            # or the refresher was replaced): nothing to report.
            status = C.nc_client_refresh_done(
                h, None, (message or "the token refresh failed").encode("utf-8", "replace"))
            if status not in (0, int(Status.INVALID_STATE)):
                logger.debug("nc_client_refresh_done: status %s", status)
    except Exception:  # the client is closing: nothing waits any more
        logger.debug("token refresh answer dropped", exc_info=True)


def install(core: Any, refresher: Optional[Callable[..., Any]], loop_getter: Optional[Callable[[], Any]] = None) -> None:
    """Install ``refresher`` (None removes it). ``loop_getter``: AsyncClient's event
    loop, for a coroutine function."""
    refs: List[Any] = getattr(core, "hook_refs", None) or []
    if refresher is None:
        with core.use() as h:
            check_call(C.nc_client_set_token_refresher, h, REFRESH_FN(), None)
        return
    is_coroutine = asyncio.iscoroutinefunction(refresher)

    def run(err: Any) -> None:
        try:
            token = refresher(err)
            _done(core, token, None if token else "the refresher returned no token")
        except Exception as exc:
            _done(core, None, str(exc) or type(exc).__name__)

    async def run_async(err: Any) -> None:
        try:
            token = await refresher(err)
            _done(core, token, None if token else "the refresher returned no token")
        except Exception as exc:
            _done(core, None, str(exc) or type(exc).__name__)

    def start(_client: Optional[int], error: Optional[int], _ud: Optional[int]) -> None:
        try:
            _, err = convert(None, error)
            if is_coroutine and loop_getter is not None:
                loop = loop_getter()
                # AsyncClient is in queue mode: this runs inside dispatch, on the loop.
                loop.create_task(run_async(err))
            else:
                threading.Thread(target=run, args=(err,), name="netcore-refresh", daemon=True).start()
        except Exception as exc:  # never into C: answer with a failure
            _done(core, None, f"the refresher could not be started: {exc}")

    cfn = REFRESH_FN(start)
    refs.append(cfn)
    core.hook_refs = refs
    with core.use() as h:
        check_call(C.nc_client_set_token_refresher, h, cfn, None)
