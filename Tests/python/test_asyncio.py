"""AsyncClient: queue-mode completions dispatched by the event loop."""
import asyncio
import gc
import logging
import re
import socket
import threading
import time
import weakref

import pytest

import netcore

ENVELOPE = {"envelope": {}}


def run(coro):
    return asyncio.run(coro)


async def until(condition, tries=1000):
    """Polls `condition` every 10 ms until it holds or `tries` polls are spent (a
    guard against a hang, not a time limit the test asserts)."""
    for _ in range(tries):
        if condition():
            return
        await asyncio.sleep(0.01)


class Proxy:
    """A TCP relay in front of the mock server that records, in order, the bytes it
    relays to the client and when the client side of a connection closes: the
    server-side view of an abandoned request."""

    def __init__(self, port):
        self.port_to = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.events = []  # ("to-client", n bytes) and ("client-closed",), in order
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.port_to))
            threading.Thread(target=self._pump, args=(conn, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, conn, False), daemon=True).start()

    def _pump(self, src, dst, client_side):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if not client_side:
                    self.events.append(("to-client", len(data)))  # before the client has it
                dst.sendall(data)
        except OSError:
            pass
        if client_side:
            self.events.append(("client-closed",))
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self):
        self.listener.close()


def test_basic_requests_and_errors(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base, **ENVELOPE}) as c:
            assert (await c.get("/env/code/ok")).data == {"id": 7, "name": "Ada"}
            seen = (await c.post("/echo", json={"a": 1}, params={"p": 1},
                                  headers={"X-A": "b"})).data
            assert (seen["method"], seen["json"], seen["query"], seen["headers"]["x-a"]) == (
                "POST", {"a": 1}, {"p": ["1"]}, "b")
            assert (await c.put("/echo", data={"f": "v"})).data["form"] == {"f": ["v"]}
            assert (await c.patch("/echo")).data["method"] == "PATCH"
            assert (await c.delete("/echo")).data["method"] == "DELETE"
            assert (await c.head("/env/code/ok")).status == 200
            assert (await c.request("OPTIONS", "/echo")).data["method"] == "OPTIONS"
            assert (await c.get("/array", envelope=False)).data == [1, 2, 3]
            with pytest.raises(netcore.APIError) as info:
                await c.post("/login", json={"username": "ada", "password": "no"})
            assert (info.value.code, info.value.trace_id, info.value.data) == (
                1001, "trace-login", {"attempts_left": 2})
            assert info.value.response.status == 200
            with pytest.raises(netcore.HTTPError):
                await c.get("/status/404")
            with pytest.raises(netcore.ParseError):
                await c.get("/text")
            with pytest.raises(netcore.Timeout):
                await c.get("/slow", params={"ms": 2000}, timeout=0.1)
            with pytest.raises(netcore.InvalidArgument):
                await c.get("/echo", headers={"X": "a\r\nb"})
            c.set_header("X-Default", "1")
            assert (await c.get("/echo")).data["headers"]["x-default"] == "1"
            assert c._core.pending == {}
        assert c.closed

    run(main())


def test_transport_error_async(closed_port):
    async def main():
        async with netcore.AsyncClient({}) as c:
            with pytest.raises(netcore.TransportError) as info:
                await c.get(f"http://127.0.0.1:{closed_port}/")
            assert (info.value.code, info.value.retryable) == (7, True)

    run(main())


def test_completions_run_on_the_loop_thread(base):
    threads = set()

    async def main():
        async with netcore.AsyncClient({"base_url": base, **ENVELOPE},
                                       on_error=lambda e: threads.add(threading.get_ident())) as c:
            with pytest.raises(netcore.HTTPError):
                await c.get("/status/404")

    run(main())
    assert threads == {threading.get_ident()}


def test_wait_for_timeout_cancels_the_request(server, base):
    proxy = Proxy(server.port)

    async def main():
        async with netcore.AsyncClient({"base_url": f"http://127.0.0.1:{proxy.port}/api",
                                        **ENVELOPE}) as c:
            assert (await c.get("/env/code/ok")).data["id"] == 7  # warm connection
            seen = len(proxy.events)
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(c.get("/slow?ms=5000"), 0.1)
            # The transfer is aborted: its connection closes before the server answers
            # (in 5 s), so the next thing the relay sees is the client closing.
            await until(lambda: len(proxy.events) > seen)
            assert proxy.events[seen] == ("client-closed",), proxy.events[seen:]
            # The cancelled completion was dispatched and dropped; the client is usable.
            await until(lambda: not c._core.pending)
            assert c._core.pending == {}
            assert (await c.get("/env/code/ok")).data["id"] == 7
            assert (await asyncio.wait_for(c.get("/slow?ms=20"), 5)).data == {"slept_ms": 20}

    try:
        run(main())
    finally:
        proxy.close()


def test_task_cancel_raises_cancelled_error(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base, **ENVELOPE}) as c:
            task = asyncio.ensure_future(c.get("/slow", params={"ms": 5000}))
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # many cancellations at once, then normal traffic
            tasks = [asyncio.ensure_future(c.get("/slow", params={"ms": 5000})) for _ in range(50)]
            await asyncio.sleep(0.05)
            for t in tasks:
                t.cancel()
            results = await asyncio.gather(*tasks, return_exceptions=True)
            assert all(isinstance(r, asyncio.CancelledError) for r in results)
            assert (await c.get("/env/code/ok")).data["id"] == 7

    run(main())


def test_500_concurrent_requests(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base, **ENVELOPE}) as c:
            threads_before = threading.active_count()
            responses = await asyncio.gather(*(c.get("/echo", params={"i": i}) for i in range(500)))
            assert threading.active_count() == threads_before  # no thread per request
            assert [r.data["query"]["i"] for r in responses] == [[str(i)] for i in range(500)]
            assert all(r.status == 200 for r in responses)
            mixed = await asyncio.gather(
                *(c.get("/env/code/fail" if i % 2 else "/env/code/ok") for i in range(100)),
                return_exceptions=True)
            assert all(isinstance(m, netcore.APIError) if i % 2 else m.data["id"] == 7
                       for i, m in enumerate(mixed))
            assert c._core.pending == {}

    run(main())


def test_aclose_with_requests_in_flight(base):
    async def main():
        c = netcore.AsyncClient({"base_url": base, **ENVELOPE})
        tasks = [asyncio.ensure_future(c.get("/slow", params={"ms": 5000})) for _ in range(5)]
        await asyncio.sleep(0.1)
        await c.aclose()  # ends the transfers: the server would answer in 5 s
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert all(isinstance(r, netcore.ShutDown) for r in results), results
        await c.aclose()  # idempotent
        with pytest.raises(netcore.InvalidState):
            await c.get("/env/code/ok")

    run(main())


def test_aclose_right_after_cancelling(base):
    """Cancelled completions still queued run inside nc_client_free (in aclose):
    they must not touch the cancelled futures."""
    async def main():
        c = netcore.AsyncClient({"base_url": base, **ENVELOPE})
        tasks = [asyncio.ensure_future(c.get("/slow", params={"ms": 5000})) for _ in range(20)]
        await asyncio.sleep(0.1)
        for t in tasks:
            t.cancel()
        await asyncio.sleep(0)  # the tasks run their except-CancelledError: nc_task_cancel
        await c.aclose()  # the cancelled completions are dispatched here
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert all(isinstance(r, asyncio.CancelledError) for r in results)

    loop = asyncio.new_event_loop()
    errors = []
    loop.set_exception_handler(lambda loop, ctx: errors.append(ctx))
    try:
        loop.run_until_complete(main())
    finally:
        loop.close()
    assert errors == []


def test_exception_in_hook_is_logged_and_loop_keeps_going(base, caplog):
    caplog.set_level(logging.ERROR, logger="netcore")

    def hook(error):
        raise RuntimeError("hook boom")

    async def main():
        async with netcore.AsyncClient({"base_url": base, **ENVELOPE}, on_error=hook) as c:
            results = await asyncio.gather(*(c.get("/status/404") for _ in range(5)),
                                           return_exceptions=True)
            assert all(isinstance(r, netcore.HTTPError) for r in results)
            assert (await c.get("/env/code/ok")).data["id"] == 7

    run(main())
    assert sum("hook boom" in r.getMessage() for r in caplog.records) == 5


def test_one_loop_only(base):
    c = netcore.AsyncClient({"base_url": base, **ENVELOPE})
    try:
        assert run(c.get("/env/code/ok")).data["id"] == 7
        with pytest.raises(RuntimeError):
            run(c.get("/env/code/ok"))  # another loop
    finally:
        c.close()  # the first loop is closed: a plain close is fine
    assert c.closed


def test_forced_queue_mode(base, tmp_path):
    import json

    path = tmp_path / "c.json"
    path.write_text(json.dumps({"base_url": base, "callbacks": "loop", **ENVELOPE}))

    async def main():
        for config in (str(path), path.read_text()):
            async with netcore.AsyncClient(config) as c:
                assert c._fd >= 0
                assert (await c.get("/env/code/ok")).data["id"] == 7

    run(main())
    with pytest.raises(netcore.InvalidConfig):
        netcore.AsyncClient({"callbacks": "sometimes", "timeout_ms": "x"})


def test_dropped_async_client_is_freed(base):
    """A request in flight keeps its client alive (the awaiting coroutine holds it);
    once idle and dropped, the finalizer removes the reader and frees the client."""
    async def main():
        loop = asyncio.get_running_loop()
        c = netcore.AsyncClient({"base_url": base, **ENVELOPE})
        core, fd = c._core, c._fd
        assert (await c.get("/env/code/ok")).data["id"] == 7
        del c
        gc.collect()
        assert core.closed
        assert loop.remove_reader(fd) is False  # already removed

    run(main())


def test_set_environment_async(server, closed_port):
    config = {"environments": {"up": server.base_url + "/api", "down": f"http://127.0.0.1:{closed_port}"},
              "environment": "down", **ENVELOPE}

    async def main():
        async with netcore.AsyncClient(config) as c:
            with pytest.raises(netcore.TransportError):
                await c.get("/env/code/ok")
            c.set_environment("up")
            assert (await c.get("/env/code/ok")).data["id"] == 7
            with pytest.raises(netcore.InvalidArgument):
                c.set_environment("missing")

    run(main())


# -- Client's names and signatures (httpx style) --------------------------------

REQUEST_METHODS = ("request", "get", "post", "put", "patch", "delete", "head", "options")


@pytest.mark.parametrize("name", REQUEST_METHODS + ("send",))
def test_async_methods_mirror_client_signatures(name):
    """Same names, same parameters: one table of keyword arguments describes both."""
    import inspect

    sync, asyn = getattr(netcore.Client, name), getattr(netcore.AsyncClient, name)
    assert list(inspect.signature(asyn).parameters.values()) == \
        list(inspect.signature(sync).parameters.values())
    assert inspect.iscoroutinefunction(asyn) == (name != "send")


def test_get_and_post_with_params_and_json(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base, **ENVELOPE}) as c:
            seen = (await c.get("/echo", params={"q": "a b", "n": 2, "t": True,
                                                 "many": [1, 2]})).data
            assert (seen["method"], seen["query"]) == (
                "GET", {"q": ["a b"], "n": ["2"], "t": ["true"], "many": ["1", "2"]})
            seen = (await c.post("/echo", params=[("p", 1)], json={"a": [1, {"b": None}]},
                                 headers={"X-Trace": "t1"}, timeout=5)).data
            assert (seen["method"], seen["query"], seen["json"], seen["headers"]["x-trace"]) == (
                "POST", {"p": ["1"]}, {"a": [1, {"b": None}]}, "t1")
            assert (await c.options("/echo")).data["method"] == "OPTIONS"
            r = await c.request("POST", "/login", json={"username": "ada", "password": "secret"})
            assert r.data == {"token": "tok-ada", "expires_in": 3600}

    run(main())


def _failure(call):
    try:
        call()
    except (netcore.Error, netcore.StatusError) as exc:
        return exc
    raise AssertionError("no exception")


def test_async_errors_are_the_sync_errors(base, closed_port):
    """Every failure raises the same class with the same fields, sync or async."""
    config = {"base_url": base, **ENVELOPE}
    cases = [
        ("POST", "/login", {"json": {"username": "ada", "password": "no"}}),   # APIError
        ("GET", "/status/404", {}),                                             # HTTPError
        ("GET", "/text", {}),                                                   # ParseError
        ("GET", "/slow", {"params": {"ms": 2000}, "timeout": 0.1}),             # Timeout
        ("GET", f"http://127.0.0.1:{closed_port}/", {}),                        # TransportError
        ("GET", "/echo", {"headers": {"X": "a\r\nb"}}),                         # InvalidArgument
        ("GET", "/echo", {"headers": {"X": "nul\x00"}}),                        # InvalidArgument
        ("BAD METHOD", "/echo", {}),                                            # InvalidArgument
    ]
    fields = ("domain", "domain_code", "code", "code_str", "message", "http_status",
              "trace_id", "data", "body", "retryable", "status", "status_name", "function")

    def summary(exc):
        # libcurl's timeout text says how long it waited: "after 100 milliseconds"
        def same(text):
            return re.sub(r"after \d+ milliseconds", "after N ms", text) if text else text
        values = [same(v) if f == "message" else v for f, v in
                  ((f, getattr(exc, f, None)) for f in fields)]
        return (type(exc), same(str(exc))) + tuple(values)

    with netcore.Client(config) as sync:
        expected = [summary(_failure(lambda: sync.request(m, p, **kw))) for m, p, kw in cases]

    async def main():
        got = []
        async with netcore.AsyncClient(config) as c:
            for m, p, kw in cases:
                try:
                    await c.request(m, p, **kw)
                except (netcore.Error, netcore.StatusError) as exc:
                    got.append(summary(exc))
        return got

    got = run(main())
    assert [g[0] for g in got] == [netcore.APIError, netcore.HTTPError, netcore.ParseError,
                                   netcore.Timeout, netcore.TransportError,
                                   netcore.InvalidArgument, netcore.InvalidArgument,
                                   netcore.InvalidArgument]
    assert got == expected


def test_cancelling_the_awaiting_task_cancels_the_request(base):
    hooked = []

    async def main():
        async with netcore.AsyncClient({"base_url": base, **ENVELOPE},
                                       on_error=hooked.append) as c:
            task = asyncio.ensure_future(c.get("/slow", params={"ms": 5000}))
            await asyncio.sleep(0.05)
            assert len(c._core.pending) == 1
            t0 = time.monotonic()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # The request itself ends with Cancelled at a later dispatch, before
            # /slow would have answered; a cancellation never reaches on_error (the
            # C error handler's rule).
            while c._core.pending and time.monotonic() - t0 < 10:
                await asyncio.sleep(0.01)
            assert c._core.pending == {}
            assert time.monotonic() - t0 < 4  # cancelled, not answered
            assert hooked == []
            # The hook is installed and works: a failure reaches it.
            with pytest.raises(netcore.HTTPError):
                await c.get("/status/500")
            assert [type(e) for e in hooked] == [netcore.HTTPError]

    run(main())


def test_async_with_closes_the_client(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base, **ENVELOPE}) as c:
            assert not c.closed
            assert (await c.get("/env/code/ok")).status == 200
        assert c.closed
        with pytest.raises(netcore.InvalidState):
            await c.get("/env/code/ok")
        # ... also when the block raises: the exception propagates, the client is closed.
        with pytest.raises(KeyError):
            async with netcore.AsyncClient({"base_url": base, **ENVELOPE}) as d:
                raise KeyError("boom")
        assert d.closed
        await d.aclose()  # idempotent

    run(main())


def test_send_returns_a_future_and_runs_the_callback_once(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base, **ENVELOPE}) as c:
            calls = []

            def callback(response, error):
                calls.append((threading.get_ident(), response, error))

            fut = c.send("GET", "/env/code/ok", callback=callback)
            assert isinstance(fut, asyncio.Future)
            r = await fut
            assert r.data["id"] == 7 and calls == [(threading.get_ident(), r, None)]

            calls.clear()
            fut = c.send("GET", "/status/404", callback=callback)
            with pytest.raises(netcore.HTTPError) as info:
                await fut
            assert calls == [(threading.get_ident(), calls[0][1], info.value)]
            assert calls[0][1].status == 404

            # No callback, not awaited at once: the Future still resolves.
            fut = c.send("POST", "/echo", json={"a": 1})
            assert (await fut).data["json"] == {"a": 1}

            # Cancelling the Future cancels the request; the callback still runs once.
            calls.clear()
            fut = c.send("GET", "/slow", params={"ms": 5000}, callback=callback)
            await asyncio.sleep(0.05)
            fut.cancel()
            t0 = time.monotonic()
            while not calls and time.monotonic() - t0 < 2:
                await asyncio.sleep(0.01)
            assert len(calls) == 1 and isinstance(calls[0][2], netcore.Cancelled)
            assert c._core.pending == {}

    run(main())


def test_send_callbacks_run_once_when_the_client_closes(base):
    async def main():
        c = netcore.AsyncClient({"base_url": base, **ENVELOPE})
        calls = []
        futs = [c.send("GET", "/slow", params={"ms": 5000},
                       callback=lambda r, e: calls.append((threading.get_ident(), e)))
                for _ in range(3)]
        await asyncio.sleep(0.05)
        await c.aclose()
        assert len(calls) == 3
        assert all(t == threading.get_ident() and isinstance(e, netcore.ShutDown) for t, e in calls)
        results = await asyncio.gather(*futs, return_exceptions=True)
        assert all(isinstance(r, netcore.ShutDown) for r in results)

    run(main())


def test_send_callback_state_is_kept_until_its_completion(base):
    """Drop the Future, the callback and its closure: the client keeps them until
    the single completion, then releases them."""
    class Payload:
        pass

    hits = []

    async def main():
        async with netcore.AsyncClient({"base_url": base, **ENVELOPE}) as c:
            def start():
                payload = Payload()

                def callback(response, error):
                    hits.append((payload, response.data))

                c.send("GET", "/slow", params={"ms": 100}, callback=callback)
                return weakref.ref(payload)

            ref = start()
            gc.collect()
            assert ref() is not None
            t0 = time.monotonic()
            while not hits and time.monotonic() - t0 < 5:
                await asyncio.sleep(0.01)
                gc.collect()
            await asyncio.sleep(0.01)
            assert len(hits) == 1 and hits[0][1] == {"slept_ms": 100}
            hits.clear()
            gc.collect()
            assert ref() is None and c._core.pending == {}

    run(main())


# -- the a-prefixed names, removed in 0.3.0 --------------------------------------

@pytest.mark.parametrize("old", ["arequest", "aget", "apost", "aput", "apatch", "adelete", "ahead"])
def test_the_a_prefixed_names_are_gone(old):
    """Deprecated before 0.3.0 and removed in it: AsyncClient has Client's names only."""
    assert not hasattr(netcore.AsyncClient, old)
    assert hasattr(netcore.AsyncClient, old[1:])
