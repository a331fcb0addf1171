"""Client.send(): callbacks on the transfer thread, lifetimes, reporting of exceptions."""
import gc
import logging
import select
import threading
import time
import weakref

import pytest

import netcore


class Recorder:
    """A callback that records its calls and the thread they ran on."""

    def __init__(self):
        self.calls = []
        self.event = threading.Event()
        self.lock = threading.Lock()

    def __call__(self, response, error):
        with self.lock:
            self.calls.append((response, error, threading.get_ident()))
        self.event.set()


def test_callback_runs_once_on_transfer_thread(client):
    rec = Recorder()
    task = client.send("GET", "/env/code/ok", callback=rec)
    assert rec.event.wait(5)
    assert task.wait(5) and task.done()
    (response, error, thread), = rec.calls
    assert error is None and response.data == {"id": 7, "name": "Ada"}
    assert thread != threading.get_ident()
    assert task.result() is response
    assert task.exception() is None
    assert client._core.pending == {}


def test_callback_gets_error_and_response(client):
    rec = Recorder()
    client.send("GET", "/status/404", callback=rec).wait(5)
    (response, error, _), = rec.calls
    assert isinstance(error, netcore.HTTPError) and error.response is response
    assert response.status == 404


def test_task_without_callback(client):
    task = client.send("POST", "/echo", json={"a": 1})
    assert task.result(timeout=5).data["json"] == {"a": 1}
    slow = client.send("GET", "/slow", params={"ms": 2000})
    with pytest.raises(TimeoutError):
        slow.result(timeout=0.05)
    assert not slow.wait(0.01)
    slow.cancel()
    assert isinstance(slow.exception(timeout=5), netcore.Cancelled)
    slow.cancel()  # idempotent
    assert "GET /slow" in repr(slow)


def test_cancel_returns_after_the_callback(client):
    rec = Recorder()
    task = client.send("GET", "/slow", params={"ms": 5000}, callback=rec)
    time.sleep(0.05)
    task.cancel()
    assert len(rec.calls) == 1  # loop mode: the callback has returned when cancel returns
    assert isinstance(rec.calls[0][1], netcore.Cancelled)


def test_callback_state_survives_gc(client):
    """Drop every reference to the callback, its closure and the task: the client
    keeps them until the single completion."""
    done = threading.Event()
    hits = []

    class Payload:
        pass

    def start():
        payload = Payload()

        def callback(response, error):
            hits.append((payload, response.data if response else error))
            done.set()

        client.send("GET", "/slow", params={"ms": 150}, callback=callback)
        return weakref.ref(payload)

    ref = start()
    gc.collect()
    assert ref() is not None  # still held by the client
    assert done.wait(5)
    time.sleep(0.05)
    gc.collect()
    assert len(hits) == 1 and hits[0][1] == {"slept_ms": 150}
    hits.clear()
    gc.collect()
    assert ref() is None  # released after the completion
    assert client._core.pending == {}


def test_many_dropped_callbacks_exactly_once(client):
    counts = {}
    lock = threading.Lock()
    all_done = threading.Event()
    n = 200

    def make(i):
        def callback(response, error):
            with lock:
                counts[i] = counts.get(i, 0) + 1
                if len(counts) == n:
                    all_done.set()
        return callback

    for i in range(n):
        client.send("GET", "/echo", params={"i": i}, callback=make(i))
    gc.collect()
    assert all_done.wait(10)
    time.sleep(0.05)
    assert counts == {i: 1 for i in range(n)}


def test_exception_in_callback_is_logged_and_client_keeps_working(client, caplog):
    caplog.set_level(logging.ERROR, logger="netcore")

    def bad(response, error):
        raise RuntimeError("boom from callback")

    tasks = [client.send("GET", "/env/code/ok", callback=bad) for _ in range(3)]
    for t in tasks:
        assert t.wait(5)
        assert t.result().data["id"] == 7  # the task still gets its result
    records = [r for r in caplog.records if r.name == "netcore"]
    assert len(records) == 3
    assert "boom from callback" in records[0].getMessage()
    assert records[0].exc_info[0] is RuntimeError
    # the transfer thread is alive: more callbacks and sync calls work
    rec = Recorder()
    client.send("GET", "/env/code/ok", callback=rec).wait(5)
    assert rec.calls[0][0].data["id"] == 7
    assert client.get("/env/code/ok").data["id"] == 7


def test_on_error_hook(base, caplog):
    caplog.set_level(logging.ERROR, logger="netcore")
    seen = []

    def hook(error):
        seen.append(error)
        if error.code == 404:
            raise ValueError("hook failed")

    with netcore.Client({"base_url": base, "envelope": {}}, on_error=hook) as c:
        assert c.get("/env/code/ok").data["id"] == 7  # no hook on success
        with pytest.raises(netcore.APIError):
            c.get("/env/code/fail")
        with pytest.raises(netcore.HTTPError):  # the hook raised: logged, the request's error wins
            c.get("/status/404")
        c.send("GET", "/text").wait(5)
        assert c.get("/env/code/ok").data["id"] == 7
    assert [type(e) for e in seen] == [netcore.APIError, netcore.HTTPError, netcore.ParseError]
    assert any("hook failed" in r.getMessage() for r in caplog.records)


def test_blocking_calls_refused_inside_callback(client):
    out = {}
    done = threading.Event()

    def callback(response, error):
        try:
            client.get("/env/code/ok")
        except Exception as e:
            out["sync"] = e
        try:
            client.close()
        except Exception as e:
            out["close"] = e
        # chaining from a callback is allowed
        out["chained"] = client.send("GET", "/env/code/ok", callback=lambda r, e: done.set())

    client.send("GET", "/env/code/ok", callback=callback)
    assert done.wait(5)
    assert isinstance(out["sync"], netcore.InvalidState)
    assert isinstance(out["close"], netcore.InvalidState)
    assert not client.closed
    assert client.get("/env/code/ok").data["id"] == 7


def test_dropping_a_client_frees_it(base):
    rec = Recorder()
    c = netcore.Client({"base_url": base})
    core = c._core
    c.send("GET", "/slow", params={"ms": 5000}, callback=rec)
    del c
    gc.collect()
    assert core.closed  # freed by the finalizer: the request ended with ShutDown
    assert isinstance(rec.calls[0][1], netcore.ShutDown)


def test_client_dropped_inside_its_own_callback(base):
    """The last reference goes away inside a completion: the free is deferred to
    another thread (nc_client_free is refused inside the client's callbacks)."""
    done = threading.Event()
    box = {"client": netcore.Client({"base_url": base})}
    core = box["client"]._core

    def callback(response, error):
        box.pop("client")  # last reference, dropped on the transfer thread
        done.set()

    box["client"].send("GET", "/env/code/ok", callback=callback)
    assert done.wait(5)
    deadline = time.monotonic() + 5
    while not core.closed and time.monotonic() < deadline:
        time.sleep(0.01)
    assert core.closed


def test_queue_mode_with_sync_client(base):
    with netcore.Client({"base_url": base, "envelope": {}, "callbacks": "queue"}) as c:
        rec = Recorder()
        c.send("GET", "/env/code/ok", callback=rec)
        fd = c.fileno()
        assert fd >= 0
        assert select.select([fd], [], [], 5)[0] == [fd]
        assert rec.calls == []  # nothing runs until dispatch
        # Dispatch whenever readable: a request's events and log lines (the "netcore"
        # logger's handler) are dispatched before its completion, maybe in a wakeup
        # of their own.
        for _ in range(100):
            c.dispatch()
            if rec.calls or not select.select([fd], [], [], 5)[0]:
                break
        (response, error, thread), = rec.calls
        assert response.data["id"] == 7 and thread == threading.get_ident()
    with netcore.Client({"base_url": base}) as c:
        assert c.fileno() == -1
        with pytest.raises(netcore.InvalidState):
            c.dispatch()


def test_close_while_other_threads_are_sending(base):
    """Calls that race with close() either complete, end with ShutDown, or are
    refused with InvalidState: never a use of the freed handle."""
    c = netcore.Client({"base_url": base})
    outcomes = []
    completions = []

    def hammer(sync):
        while True:
            try:
                if sync:
                    c.get("/echo")
                    outcomes.append("ok")
                else:
                    c.send("GET", "/echo", callback=lambda r, e: completions.append(e))
                    c.set_header("X-A", "1")
            except netcore.InvalidState:
                outcomes.append("refused")
                return
            except netcore.ShutDown:
                outcomes.append("shutdown")

    threads = [threading.Thread(target=hammer, args=(i % 2 == 0,)) for i in range(6)]
    for t in threads:
        t.start()
    time.sleep(0.2)
    c.close()
    for t in threads:
        t.join(5)
    assert not any(t.is_alive() for t in threads)
    assert outcomes.count("refused") == 6
    assert "ok" in outcomes and completions
    assert all(e is None or isinstance(e, netcore.ShutDown) for e in completions)
