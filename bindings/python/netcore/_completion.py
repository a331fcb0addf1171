"""What every completion and callback needs, below the modules that install them:
:func:`convert` (a completion's borrowed pointers as Python objects) and
:func:`report` (an exception that must not unwind into C, logged to the
``"netcore"`` logger)."""
from __future__ import annotations

import logging
from typing import Optional, Tuple, cast

from ._capi import ErrorHandle, ResponseHandle
from .errors import Error, Status, error_for
from .response import Response

__all__ = ["convert", "logger", "report"]

#: The logger that receives exceptions raised by callbacks and hooks.
logger = logging.getLogger("netcore")


def report(exc: BaseException, what: str) -> None:
    """Log an exception that cannot propagate (raised in a callback or hook)."""
    try:
        logger.error("netcore: %s raised %s: %s", what, type(exc).__name__, exc,
                     exc_info=(type(exc), exc, exc.__traceback__))
    except BaseException:  # pragma: no cover - a broken logging setup must not unwind into C
        pass


def convert(response: Optional[int],
            error: Optional[int]) -> Tuple[Optional[Response], Optional[Error]]:
    """Python objects for a completion's borrowed pointers (ints, ``None`` for NULL):
    the response is retained, the error copied into plain Python data
    (:func:`netcore.errors.error_for`)."""
    resp = Response._from_borrowed(ResponseHandle(response)) if response else None
    err = (cast(Error, error_for(Status.FAILED, ErrorHandle(error), function="nc_client_send",
                                 response=resp))
           if error else None)
    return resp, err
