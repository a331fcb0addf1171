"""The on_error hook follows the C error handler's rule (nc_client_set_error_handler):
every failed request except cancellations and requests sent with
skip_error_handler=True (NC_REQUEST_SKIP_ERROR_HANDLER) — sync, callback, stream,
batch, endpoint and asyncio paths."""
import asyncio
import threading
import time

import pytest

import netcore
from netcore import _capi

ENVELOPE = {"envelope": {}}
SLOW = {"ms": 5000}  # /slow answers after 5 s: a request still in flight when cancelled


class Hooked:
    """An on_error hook that records the type of each error it is given (any thread)."""

    def __init__(self):
        self.types = []
        self._lock = threading.Lock()

    def __call__(self, error):
        with self._lock:
            self.types.append(type(error))


def wait_pending(client, n=1, tries=500):
    """Until `n` requests of the client are in flight (a guard, not a timing)."""
    for _ in range(tries):
        if len(client._core.pending) >= n:
            return
        time.sleep(0.01)
    raise AssertionError("the request never started")


# -- cancellations ---------------------------------------------------------------

def test_sync_request_cancelled_by_its_group_does_not_reach_on_error(base):
    hooked = Hooked()
    out = {}
    with netcore.Client({"base_url": base, **ENVELOPE}, on_error=hooked) as c:
        def call():
            try:
                c.get("/slow", params=SLOW, group="screen")
            except netcore.Error as exc:
                out["error"] = exc

        t = threading.Thread(target=call)
        t.start()
        wait_pending(c)
        t0 = time.monotonic()
        assert c.cancel_group("screen") == 1
        t.join(10)
        assert not t.is_alive() and time.monotonic() - t0 < 4
        assert isinstance(out["error"], netcore.Cancelled)
        assert hooked.types == []
        # The same client's hook sees a real failure.
        with pytest.raises(netcore.HTTPError):
            c.get("/status/500", group="screen")
    assert hooked.types == [netcore.HTTPError]


def test_send_cancelled_with_task_cancel_does_not_reach_on_error(base):
    hooked = Hooked()
    seen = []
    with netcore.Client({"base_url": base, **ENVELOPE}, on_error=hooked) as c:
        task = c.send("GET", "/slow", params=SLOW, callback=lambda r, e: seen.append(type(e)))
        wait_pending(c)
        task.cancel()
        assert isinstance(task.exception(timeout=10), netcore.Cancelled)
        assert seen == [netcore.Cancelled]  # the callback still gets the cancellation
        assert hooked.types == []
        assert isinstance(c.send("GET", "/status/500").exception(timeout=10), netcore.HTTPError)
    assert hooked.types == [netcore.HTTPError]


def test_cancel_all_and_stream_left_early_do_not_reach_on_error(base):
    hooked = Hooked()
    with netcore.Client({"base_url": base, **ENVELOPE}, on_error=hooked) as c:
        tasks = [c.send("GET", "/slow", params=SLOW) for _ in range(3)]
        wait_pending(c, 3)
        assert c.cancel_all() == 3
        assert all(isinstance(t.exception(timeout=10), netcore.Cancelled) for t in tasks)
        # (Entering returns at the first chunk: a body that stalls after one.)
        with c.stream("GET", "/dl/file", params={"key": "on-error-stream", "bytes": 50_000_000,
                                                 "stall_after": 100_000}):
            wait_pending(c)
        # Leaving the block cancelled the stream (its completion has run by now).
        assert c._core.pending == {}
        assert hooked.types == []


def test_batch_members_cancelled_by_fail_fast_do_not_reach_on_error(base):
    hooked = Hooked()
    with netcore.Client({"base_url": base, **ENVELOPE}, on_error=hooked) as c:
        results = c.batch(["/status/500", ("GET", "/slow", {"params": SLOW})], fail_fast=True)
    assert [type(r) for r in results] == [netcore.HTTPError, netcore.Cancelled]
    assert hooked.types == [netcore.HTTPError]


def test_async_cancellations_do_not_reach_on_error(base):
    hooked = Hooked()
    seen = []

    async def main():
        async with netcore.AsyncClient({"base_url": base, **ENVELOPE}, on_error=hooked) as c:
            # The awaiting task cancelled (wait_for's timeout).
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(c.get("/slow", params=SLOW), 0.1)
            # send(): the Future cancelled; its callback runs with Cancelled.
            fut = c.send("GET", "/slow", params=SLOW, callback=lambda r, e: seen.append(type(e)))
            await asyncio.sleep(0.05)
            fut.cancel()
            # A group cancelled: the awaiting task raises Cancelled.
            task = asyncio.ensure_future(c.get("/slow", params=SLOW, group="g"))
            await asyncio.sleep(0.05)
            assert c.cancel_group("g") == 1
            with pytest.raises(netcore.Cancelled):
                await task
            for _ in range(1000):  # every cancelled completion dispatched
                if not c._core.pending:
                    break
                await asyncio.sleep(0.01)
            assert c._core.pending == {}
            assert seen == [netcore.Cancelled]
            assert hooked.types == []
            with pytest.raises(netcore.HTTPError):
                await c.get("/status/500")

    asyncio.run(main())
    assert hooked.types == [netcore.HTTPError]


# -- skip_error_handler=True -------------------------------------------------------

def test_sync_skip_error_handler(base):
    hooked = Hooked()
    with netcore.Client({"base_url": base, **ENVELOPE}, on_error=hooked) as c:
        for kwargs in ({}, {"params": {"a": 1}}, {"group": "g"}, {"timeout": 5}):
            with pytest.raises(netcore.HTTPError) as info:
                c.get("/status/500", skip_error_handler=True, **kwargs)
            assert info.value.http_status == 500  # the caller still gets the error
        with pytest.raises(netcore.APIError):
            c.post("/env/code/fail", skip_error_handler=True)
        assert hooked.types == []
        with pytest.raises(netcore.HTTPError):
            c.get("/status/500")           # the same request without the flag
        with pytest.raises(netcore.HTTPError):
            c.get("/status/500", params={"a": 1})
        assert hooked.types == [netcore.HTTPError, netcore.HTTPError]
        assert c.get("/env/code/ok", skip_error_handler=True).data["id"] == 7


def test_callback_skip_error_handler(base):
    hooked = Hooked()
    seen = []
    with netcore.Client({"base_url": base, **ENVELOPE}, on_error=hooked) as c:
        task = c.send("GET", "/status/500", callback=lambda r, e: seen.append(type(e)),
                      skip_error_handler=True)
        assert isinstance(task.exception(timeout=10), netcore.HTTPError)
        assert seen == [netcore.HTTPError] and hooked.types == []
        assert isinstance(c.send("GET", "/status/500").exception(timeout=10), netcore.HTTPError)
    assert hooked.types == [netcore.HTTPError]


def test_stream_batch_and_endpoint_skip_error_handler(base):
    hooked = Hooked()
    with netcore.Client({"base_url": base, **ENVELOPE}, on_error=hooked) as c:
        with c.stream("GET", "/status/500", skip_error_handler=True) as r:
            with pytest.raises(netcore.HTTPError):
                list(r.iter_bytes())
        results = c.batch([("GET", "/status/500", {"skip_error_handler": True}), "/status/404"])
        assert [type(x) for x in results] == [netcore.HTTPError, netcore.HTTPError]
        c.define_endpoint("broken", path="/status/{code}")
        with pytest.raises(netcore.HTTPError):
            c.call("broken", code=503, skip_error_handler=True)
        assert hooked.types == [netcore.HTTPError]  # the batch's 404 only
        with c.stream("GET", "/status/500") as r:
            with pytest.raises(netcore.HTTPError):
                list(r.iter_bytes())
        with pytest.raises(netcore.HTTPError):
            c.call("broken", code=503)
    assert hooked.types == [netcore.HTTPError] * 3


def test_async_skip_error_handler(base):
    hooked = Hooked()
    seen = []

    async def main():
        async with netcore.AsyncClient({"base_url": base, **ENVELOPE}, on_error=hooked) as c:
            with pytest.raises(netcore.HTTPError):
                await c.get("/status/500", skip_error_handler=True)
            with pytest.raises(netcore.HTTPError):
                await c.get("/status/500", params={"a": 1}, skip_error_handler=True)
            fut = c.send("GET", "/status/500", callback=lambda r, e: seen.append(type(e)),
                         skip_error_handler=True)
            with pytest.raises(netcore.HTTPError):
                await fut
            c.define_endpoint("broken", path="/status/500")
            with pytest.raises(netcore.HTTPError):
                await c.call("broken", skip_error_handler=True)
            async with c.stream("GET", "/status/500", skip_error_handler=True) as r:
                with pytest.raises(netcore.HTTPError):
                    async for _ in r.aiter_bytes():
                        pass
            results = await c.batch([("GET", "/status/500", {"skip_error_handler": True})])
            assert isinstance(results[0], netcore.HTTPError)
            assert seen == [netcore.HTTPError] and hooked.types == []
            # Without the flag, each path reaches the hook.
            with pytest.raises(netcore.HTTPError):
                await c.get("/status/500")
            with pytest.raises(netcore.HTTPError):
                await c.send("GET", "/status/500")
            with pytest.raises(netcore.HTTPError):
                await c.call("broken")

    asyncio.run(main())
    assert hooked.types == [netcore.HTTPError] * 3


def test_skip_error_handler_sets_the_c_flag(base):
    """A C error handler installed on the same client (nc_client_set_error_handler)
    skips the flagged requests too: Python and C agree."""
    c_calls = []
    fn = _capi.COMPLETE_FN(lambda response, error, ud: c_calls.append(bool(error)))
    with netcore.Client({"base_url": base, **ENVELOPE}) as c:
        with c._core.use() as h:
            assert _capi.C.nc_client_set_error_handler(h, fn, None) == _capi.NC_OK
        with pytest.raises(netcore.HTTPError):
            c.get("/status/500", skip_error_handler=True)
        c.send("GET", "/status/500", skip_error_handler=True).wait(10)
        c.define_endpoint("broken", path="/status/500")
        with pytest.raises(netcore.HTTPError):
            c.call("broken", skip_error_handler=True)
        assert c_calls == []
        with pytest.raises(netcore.HTTPError):
            c.get("/status/500")
        assert c_calls == [True]
        with c._core.use() as h:
            _capi.C.nc_client_set_error_handler(h, _capi.COMPLETE_FN(), None)  # removed


def test_flag_value_is_the_headers(header_macros):
    assert _capi.NC_REQUEST_SKIP_ERROR_HANDLER == header_macros["NC_REQUEST_SKIP_ERROR_HANDLER"]
