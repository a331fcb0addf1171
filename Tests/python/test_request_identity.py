"""Hooks that know the request (Error.request / .endpoint / .label, label=) and
reachability an app can watch (on_reachability, reachability_changes(), retry when
reachable), through the Python binding against the loopback mock API."""
import asyncio
import dataclasses
import os
import random
import socket
import threading

import pytest

import netcore


def refusing_port():
    """A loopback port bound but not listening (keep the socket while using it)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return s, s.getsockname()[1]


def test_on_error_knows_which_call_failed():
    sock, port = refusing_port()
    seen = []
    config = {"base_url": f"http://127.0.0.1:{port}/api",
              "endpoints": {"user.get": {"method": "GET", "path": "/users/{id}"}}}
    events = []
    with sock, netcore.Client(config, on_error=seen.append, on_event=events.append) as c:
        with pytest.raises(netcore.TransportError) as info:
            c.call("user.get", id=7, token="SECRET", label="profile.load")
        e = info.value
        assert e.code == 7
        assert e.request == netcore.RequestInfo(
            "GET", f"http://127.0.0.1:{port}/api/users/7?token=REDACTED", "user.get", "profile.load",
            e.request.id)
        assert e.request.id > 0
        assert (e.endpoint, e.label) == ("user.get", "profile.load")
        assert seen == [e]
        assert "SECRET" not in str(e.info["request"])
        end = [ev for ev in events if ev["event"] == "request_end"][-1]
        assert (end["endpoint"], end["label"], end["id"]) == ("user.get", "profile.load", e.request.id)
        # A plain request: its method, URL and label; no endpoint.
        with pytest.raises(netcore.TransportError) as info:
            c.get("/x", label="home")
        assert info.value.request[:4] == ("GET", f"http://127.0.0.1:{port}/api/x", None, "home")
        assert info.value.endpoint is None


def test_label_is_validated_and_nothing_is_sent(base):
    with netcore.Client({"base_url": base}) as c:
        for bad in ("", "two\nlines", "tab\there", "del\x7f", "nul\x00"):
            with pytest.raises(netcore.InvalidArgument):
                c.get("/echo", label=bad)
        assert c.get("/echo", label="fine").status == 200


def test_an_unresolved_endpoint_names_itself(base):
    with netcore.Client({"base_url": base}) as c:
        with pytest.raises(netcore.InvalidRequest) as info:
            c.call("no.such", label="screen A")
        assert info.value.request[:4] == (None, None, "no.such", "screen A")


@dataclasses.dataclass
class Missing:
    not_there: int


def test_a_typed_decoding_failure_carries_the_request(base):
    seen = []
    with netcore.Client({"base_url": base}, on_error=seen.append) as c:
        with pytest.raises(netcore.ParseError) as info:
            c.get("/users/7", model=Missing, label="user screen")
        r = info.value.request
        assert (r.method, r.url, r.label) == ("GET", base + "/users/7", "user screen")
        assert r.id > 0
        assert seen == [info.value]


def test_on_reachability_sees_forced_changes(base):
    states = []
    with netcore.Client({"base_url": base}, reachability="online", on_reachability=states.append) as c:
        c.reachability = "offline"
        c.reachability = "offline"  # no change: not reported
        c.reachability = "online"
        assert states == [False, True]
        c.on_reachability = None
        c.reachability = "offline"
        assert states == [False, True]
        with pytest.raises(TypeError):
            c.on_reachability = 42


def test_a_backoff_is_cut_short_when_the_network_returns(base):
    key = f"py-reach-{os.getpid()}-{random.getrandbits(32)}"
    events, retried = [], threading.Event()

    def on_event(ev):
        events.append(ev)
        if ev["event"] == "retry":
            retried.set()

    config = {"base_url": base, "retry": {"max_attempts": 2, "backoff": "constant",
                                           "initial_ms": 600000, "max_delay_ms": 600000, "jitter": False}}
    with netcore.Client(config, on_event=on_event) as c:
        task = c.send("GET", f"/flaky?key={key}&fails=1")
        assert retried.wait(20)  # the ten-minute wait began
        c.reachability = "offline"
        c.reachability = "online"
        assert task.result(timeout=20).status == 200
    kinds = [ev["event"] for ev in events]
    assert kinds == ["request_start", "attempt_end", "retry", "retry", "attempt_end", "request_end"]
    assert events[2]["delay_ms"] == 600000
    assert events[3]["delay_ms"] == 0 and events[3]["reason"].startswith("network returned")


def test_reachability_changes_async_iterator(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base}, reachability="online") as c:
            it = c.reachability_changes()
            assert await it.__anext__() is True  # the state now
            c.reachability = "offline"
            assert await asyncio.wait_for(it.__anext__(), 10) is False
            c.reachability = "online"
            assert await asyncio.wait_for(it.__anext__(), 10) is True
            await it.aclose()
            c.reachability = "offline"  # nobody listens: the handler is removed
            assert c._core.reach_watch.installed is False

    asyncio.run(main())
