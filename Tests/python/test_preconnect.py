"""client.preconnect(url) (nc_client_preconnect) against the mock API: the
connection is made off the caller's thread and the first request sent through the
transfer thread reuses it (the server's own connection count); a bad URL raises
InvalidRequest with nothing sent; a host nothing listens on shows in on_event."""
import asyncio
import socket
import threading

import pytest

import netcore
from mockserver_client import MockServer


class Events:
    def __init__(self):
        self.seen = []
        self.cond = threading.Condition()

    def __call__(self, event):
        with self.cond:
            self.seen.append(event)
            self.cond.notify_all()

    def ends(self, n, timeout=10.0):
        with self.cond:
            self.cond.wait_for(lambda: sum(e["event"] == "request_end" for e in self.seen) >= n, timeout)
            return [e for e in self.seen if e["event"] == "request_end"]


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_first_request_reuses_the_preconnected_connection():
    events = Events()
    with MockServer() as own, netcore.Client({"base_url": own.base_url}, on_event=events) as c:
        before = own.stats()["connections"]   # counts this /_stats call's own connection
        c.preconnect("/echo?warm=1")
        [end] = events.ends(1)
        assert end["method"] == "HEAD" and end["domain"] is None
        after_preconnect = own.stats()["connections"]
        assert after_preconnect == before + 2   # the preconnect's and this call's
        assert c.send("GET", "/echo?first=1").result(timeout=10).status == 200
        assert own.stats()["connections"] == after_preconnect + 1   # this call's only
        assert own.stats()["paths"]["/echo"] == 2   # the HEAD and the GET


def test_async_client_preconnect_returns_at_once_and_is_reused():
    seen = []

    async def main(own):
        async with netcore.AsyncClient({"base_url": own.base_url}, on_event=seen.append) as c:
            assert c.preconnect("/echo") is None   # not awaited: it never blocks
            for _ in range(500):                   # its request_end, dispatched on this loop
                if any(e["event"] == "request_end" for e in seen):
                    break
                await asyncio.sleep(0.01)
            assert [e["domain"] for e in seen if e["event"] == "request_end"] == [None]
            before = own.stats()["connections"]   # counts this call's own connection
            assert (await c.get("/echo")).status == 200
            assert own.stats()["connections"] == before + 1   # this call's only
    with MockServer() as own:
        asyncio.run(main(own))


@pytest.mark.parametrize("url, why", [
    ("ftp://127.0.0.1/x", "http"),
    ("http://127.0.0.1:99999/x", "parse"),
    ("", "non-empty"),
])
def test_a_bad_url_raises_and_sends_nothing(url, why):
    events = Events()
    with MockServer() as own, netcore.Client({"base_url": own.base_url}, on_event=events) as c:
        with pytest.raises(netcore.InvalidRequest) as info:
            c.preconnect(url)
        assert why in str(info.value)
        c.preconnect("/echo")   # a good one after: its events are the first
        ends = events.ends(1)
        assert [e["method"] for e in events.seen] == ["HEAD"] * 3
        assert ends[0]["domain"] is None
        assert own.stats()["paths"] == {"/echo": 1}


def test_a_relative_path_without_base_url_raises():
    with netcore.Client({}) as c:
        with pytest.raises(netcore.InvalidRequest, match="base_url"):
            c.preconnect("/echo")


def test_a_dead_host_shows_in_the_events_not_in_the_call():
    events = Events()
    with netcore.Client({}, on_event=events) as c:
        assert c.preconnect(f"http://127.0.0.1:{closed_port()}/") is None
        [end] = events.ends(1)
        assert end["method"] == "HEAD"
        assert (end["domain"], end["code"]) == ("NCTransportErrorDomain", 7)
