"""What the sync and asyncio clients share: the ``nc_client`` handle, the
configuration, and the one completion trampoline with its table of pending
requests.

Lifetimes. ``nc_client_send`` gets one ctypes callback per client (the
:class:`ClientCore` trampoline, alive as long as the core) and, as ``userdata``, an
integer token. The token keys :attr:`ClientCore.pending`, which holds every piece
of Python state of the request (the user's callback, the Task, the Future) until
its single completion pops it. So a caller may drop every reference to a request:
nothing it needs is collected before the completion runs.

Reporting. Python exceptions must never unwind into C. An exception raised by a
user callback or by the ``on_error`` hook is caught and logged with
``logging.getLogger("netcore").error(..., exc_info=...)`` (what
``logging.exception`` does); the request, the transfer thread and the event loop
carry on.
"""
from __future__ import annotations

import ctypes
import itertools
import json
import os
import threading
from typing import Any, Callable, Dict, List, Optional, Union, cast

from ._capi import C, COMPLETE_FN, NC_OK, ClientHandle, ErrorHandle, RequestHandle, TaskHandle
from ._completion import report
from ._request import cstr
from .errors import Cancelled, Error, InvalidState, Status, StatusError, check_call, error_for
from .response import LIBRARY, NO_DATA, RAW

__all__ = ["ClientCore", "Config", "Pending", "config_text", "data_key", "dispatch"]

#: ``Client(config)``: a dict, JSON text (a str starting with ``{``), or a path.
Config = Union[Dict[str, Any], str, bytes, "os.PathLike[str]"]


def config_text(config: Config, force: Optional[Dict[str, Any]] = None) -> bytes:
    """The JSON text for ``nc_client_new`` from a dict, JSON text or a file path.

    ``force`` sets top-level keys (the asyncio client forces ``"callbacks"``). Text
    that is not valid JSON is passed on unchanged so the library reports it.
    """
    if isinstance(config, dict):
        obj: Any = dict(config)
        text = None
    else:
        if isinstance(config, bytes):
            text = config.decode("utf-8")
        elif isinstance(config, str) and config.lstrip().startswith("{"):
            text = config
        elif isinstance(config, (str, os.PathLike)):
            with open(os.fspath(config), "r", encoding="utf-8") as f:
                text = f.read()
        else:
            raise TypeError("config must be a dict, JSON text or a path to a JSON file, "
                            f"not {type(config).__name__}")
        obj = None
        if force:
            try:
                obj = json.loads(text)
            except ValueError:
                obj = None
    if obj is not None and isinstance(obj, dict):
        obj.update(force or {})
        return json.dumps(obj).encode("utf-8")
    return (text or "").encode("utf-8")


class Pending:
    """Python state of one request in flight; :meth:`complete` runs exactly once."""

    description = ""
    #: ``skip_error_handler=True`` was given: the ``on_error`` hook is not called.
    skip_error_handler = False
    #: What must stay alive until the completion (the C callbacks of progress=).
    keep: Any = None
    #: The request's ``auth=``/``cookies=`` (``_adapters.PerRequest``): released
    #: once the completion has run.
    extra: Any = None

    def complete(self, core: "ClientCore", response: Optional[int], error: Optional[int]) -> None:
        """Run the completion; ``response`` and ``error`` are the ``nc_response *``
        and ``nc_error *`` as ints (``None`` for NULL), borrowed for the call: pass
        them to :func:`netcore._completion.convert`."""
        raise NotImplementedError


class _Use:
    """:meth:`ClientCore.use`'s context manager: one per core, holding no state of
    its own (so nested and concurrent blocks share it), cheaper per request than a
    generator-based ``contextlib.contextmanager``."""

    __slots__ = ("core",)

    def __init__(self, core: "ClientCore") -> None:
        self.core = core

    def __enter__(self) -> ClientHandle:
        core = self.core
        with core._mutex:
            h = core._handle
            if h is None or core._closing:
                raise core._refuse()
            core._users += 1
        local = core._local
        local.uses = getattr(local, "uses", 0) + 1
        return h

    def __exit__(self, *exc: Any) -> None:
        core = self.core
        core._local.uses -= 1
        with core._mutex:
            core._users -= 1
            # free() sets _closing under this lock before it waits for the users.
            if not core._users and core._closing:
                core._cond.notify_all()


class ClientCore:
    """The ``nc_client`` handle and everything its completions need.

    It never refers to the public Client object, so dropping the Client frees the
    handle at once (via :func:`weakref.finalize`), never inside a reference cycle.
    """

    def __init__(self, config: bytes, on_error: Optional[Callable[[Error], Any]] = None) -> None:
        self.on_error = on_error
        self.pending: Dict[int, Pending] = {}
        self._lock = threading.Lock()  # guards pending
        # guards the handle's users; entered through its lock on the hot paths (a C
        # context manager, where the Condition's own __enter__ is a Python call)
        self._mutex = threading.Lock()
        self._cond = threading.Condition(self._mutex)
        self._users = 0
        self._closing = False
        self._freed = threading.Event()
        self._tokens = itertools.count(1)
        self._local = threading.local()  # per thread: callback depth, use() depth
        self.trampoline = COMPLETE_FN(self._complete)
        self.adapters: List[Any] = []  # the auth= adapters' ctypes callbacks, kept alive
        self.redirect_limit = -1  # follow_redirects=False clients: their configured limit
        self.request_auth: Dict[int, Any] = {}  # per-request auth= callables (_adapters.per_request)
        self.request_auth_installed = False  # their dispatching adapter was added
        self.loop: Any = None  # the asyncio loop of an AsyncClient, once attached
        self.loop_thread: Optional[int] = None  # and the thread that runs it
        self.reach_mode = "auto"  # the reachability mode last set (_reach.py)
        self.corked = False  # an AsyncClient's sends are held until its loop's next turn
        self._use = _Use(self)
        handle, err = ClientHandle(), ErrorHandle()
        status = C.nc_client_new(config, ctypes.byref(handle), ctypes.byref(err))
        if status != NC_OK:
            try:
                raise error_for(status, err, function="nc_client_new")
            finally:
                C.nc_error_free(err)  # NULL: no-op
        self._handle: Optional[ClientHandle] = handle
        self.data_key = _configured_data_key(config)

    # -- handle ---------------------------------------------------------------
    #
    # nc_client_free consumes the handle, so no other call may be entering the C
    # library with it at that moment. Short calls (send, settings, fd, dispatch)
    # run inside use(): free() marks the client closing, waits for them to leave,
    # then frees. A blocking nc_client_send_sync is not waited for (the library
    # ends it with ShutDown); it only checks the handle before entering.

    @property
    def closed(self) -> bool:
        return self._handle is None or self._closing

    def _refuse(self) -> StatusError:
        return cast(StatusError, error_for(Status.INVALID_STATE, message="the client is closed"))

    def handle(self) -> ClientHandle:
        """The live ``nc_client *``; raises :class:`InvalidState` once closed."""
        h = self._handle
        if h is None or self._closing:
            raise self._refuse()
        return h

    def use(self) -> "_Use":
        """The live handle, guaranteed not to be freed until the block ends
        (``with core.use() as h:``)."""
        return self._use

    def in_callback(self) -> bool:
        """True on a thread that is running one of this client's completions."""
        return getattr(self._local, "depth", 0) > 0

    def free(self) -> None:
        """``nc_client_free``: ends requests in flight (ShutDown), runs every
        completion, joins the transfer thread. Idempotent."""
        with self._cond:
            if self._closing:
                freeing_elsewhere = True
            else:
                freeing_elsewhere, self._closing = False, True
                while self._users:
                    self._cond.wait()
                h = self._handle
        if freeing_elsewhere:
            self._freed.wait()  # same guarantee for every caller: all completions ran
            return
        try:
            C.nc_client_free(h)
        finally:
            self._handle = None
            self._freed.set()

    def free_from_finalizer(self) -> None:
        """Free when the public object was collected, wherever that happened.

        Inside one of this client's own callbacks ``nc_client_free`` would be
        refused (and inside use() it would wait for itself), so the free is then
        handed to a short-lived thread.
        """
        if self.in_callback() or getattr(self._local, "uses", 0) > 0:
            threading.Thread(target=self.free, name="netcore-free", daemon=True).start()
        else:
            self.free()

    # -- requests -------------------------------------------------------------

    def set_environment(self, name: str) -> None:
        """nc_client_set_environment, with the name in the error message."""
        with self.use() as h:
            check_call(C.nc_client_set_environment, h, cstr(name, "environment"),
                       detail=f"environment {name!r}")

    def set_header(self, name: str, value: Optional[str]) -> None:
        """nc_client_set_header (None removes), with the name in the error message."""
        with self.use() as h:
            check_call(C.nc_client_set_header, h, cstr(name, "header name"),
                       None if value is None else cstr(value, f"header {name!r}"),
                       detail=f"header {name!r}")

    def set_token(self, token: Optional[str]) -> None:
        """nc_client_set_token (None clears); the token never appears in a message."""
        with self.use() as h:
            check_call(C.nc_client_set_token, h, None if token is None else cstr(token, "token"),
                       detail="token")

    def cancel_group(self, group: Optional[str]) -> int:
        """nc_client_cancel_group, or nc_client_cancel_all for None: how many were cancelled."""
        n = ctypes.c_size_t()
        with self.use() as h:
            if group is None:
                check_call(C.nc_client_cancel_all, h, ctypes.byref(n))
            else:
                check_call(C.nc_client_cancel_group, h, cstr(group, "group"), ctypes.byref(n),
                           detail=f"group {group!r}")
        return int(n.value)

    def set_basic_auth(self, user: Optional[str], password: Optional[str]) -> None:
        """nc_client_set_basic_auth (None user clears); credentials never in a message."""
        with self.use() as h:
            check_call(C.nc_client_set_basic_auth, h,
                       None if user is None else cstr(user, "user"),
                       None if password is None else cstr(password, "password"),
                       detail="basic auth")

    def add_adapter(self, adapter: Any) -> None:
        """nc_client_add_adapter with an ADAPTER_FN, kept alive as long as the core."""
        with self.use() as h:
            check_call(C.nc_client_add_adapter, h, adapter, None)
        self.adapters.append(adapter)

    def register(self, pending: Pending) -> int:
        token = next(self._tokens)
        with self._lock:
            self.pending[token] = pending
        return token

    def unregister(self, token: int) -> None:
        with self._lock:
            self.pending.pop(token, None)

    def send(self, request: RequestHandle, pending: Pending) -> TaskHandle:
        """``nc_client_send`` with ``pending`` registered first (the completion may run
        before this returns); returns the owned ``nc_task *``."""
        token = next(self._tokens)
        with self._lock:
            self.pending[token] = pending
        task = TaskHandle()
        try:
            with self._use as h:
                # Checked inline, not with check_call: one Python call less per request.
                status = C.nc_client_send(h, request, self.trampoline, token, ctypes.byref(task))
                if status != NC_OK:
                    raise error_for(status, function="nc_client_send")
        except BaseException:
            self.unregister(token)  # refused: the completion will never run
            if pending.extra is not None:
                pending.extra.release()
            raise
        return task  # NC_OK always writes the task

    def cork_until_next_turn(self, loop: Any) -> None:
        """``nc_client_cork`` now and ``nc_client_uncork`` at the event loop's next
        turn (``call_soon``): the requests this turn's coroutines send reach the
        transfer thread with one wake-up instead of one each (each wake-up of the
        transfer thread preempts the loop's thread on a busy core)."""
        try:
            with self._use as h:
                status = C.nc_client_cork(h)
            if status != NC_OK:  # pragma: no cover - 2^32 corks
                return
        except InvalidState:
            return  # closed: the send refuses
        self.corked = True
        loop.call_soon(self._uncork)

    def _uncork(self) -> None:
        self.corked = False
        status = self.uncork()
        if status:  # pragma: no cover - uncorked through the C API meanwhile
            report(error_for(status, function="nc_client_uncork"), "the event loop's uncork")

    def uncork(self) -> Optional[int]:
        """``nc_client_uncork``: its status, or None once the client is closed
        (nothing waits any more)."""
        try:
            with self._use as h:
                status = C.nc_client_uncork(h)
        except InvalidState:
            return None
        return int(status)

    def _complete(self, response: Optional[int], error: Optional[int],
                  userdata: Optional[int]) -> None:
        # Runs on the transfer thread (loop mode) or inside nc_client_dispatch
        # (queue mode). Nothing may escape from here into C.
        local = self._local
        local.depth = getattr(local, "depth", 0) + 1
        try:
            with self._lock:
                pending = self.pending.pop(userdata or 0, None)
            if pending is not None:
                try:
                    pending.complete(self, response, error)
                finally:
                    if pending.extra is not None:
                        pending.extra.release()
        except BaseException as exc:  # pragma: no cover - our own bug, never the user's
            report(exc, "netcore completion handler")
        finally:
            local.depth -= 1

    def call_on_error(self, error: Error, skip: bool = False) -> None:
        """Run the ``on_error`` hook for a failed request, reporting (not raising) what
        it raises. As the C error handler (``nc_client_set_error_handler``): not for
        a cancellation (:class:`~netcore.Cancelled`), nor when ``skip`` (the request
        was sent with ``skip_error_handler=True``)."""
        hook = self.on_error
        if hook is None or skip or isinstance(error, Cancelled):
            return
        try:
            hook(error)
        except Exception as exc:
            report(exc, f"on_error hook {hook!r}")


def _configured_data_key(config: bytes) -> Any:
    """Where Response.data is for this configuration (see response.LIBRARY)."""
    try:
        envelope = json.loads(config).get("envelope")
    except (ValueError, AttributeError):
        return LIBRARY
    if envelope is None:
        return RAW
    if not isinstance(envelope, dict):
        return LIBRARY
    field = envelope.get("data", "data")
    if field is None:
        return NO_DATA
    return field if isinstance(field, str) else LIBRARY


def data_key(core: "ClientCore", envelope: Optional[bool], output: Any) -> Any:
    """Where Response.data is for one request: raw when it is sent raw."""
    if output is not None or envelope is False:
        return RAW
    return core.data_key


def dispatch(core: ClientCore) -> None:
    """``nc_client_dispatch``; an error is reported rather than raised (reader callback)."""
    try:
        with core.use() as h:
            status = C.nc_client_dispatch(h)  # once per readable fd: checked inline
        if status != NC_OK:
            raise error_for(status, function="nc_client_dispatch")
    except InvalidState:
        pass  # closed meanwhile: nothing left to dispatch
    except StatusError as exc:
        report(exc, "nc_client_dispatch")
