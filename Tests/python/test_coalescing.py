"""In-flight coalescing: identical GETs in flight at once share one transfer
("coalesce", the ``coalesce=`` keyword), counted by a private mock server."""
import asyncio
import threading

import pytest

import netcore
from mockserver_client import MockServer

ENVELOPE = {"envelope": {}}


@pytest.fixture
def private():
    with MockServer() as s:
        yield s


def slow_hits(server):
    return server.stats()["paths"].get("/slow", 0)


def test_twenty_concurrent_async_gets_hit_the_server_once(private):
    async def main():
        async with netcore.AsyncClient({"base_url": private.base_url, **ENVELOPE}) as c:
            return await asyncio.gather(*(c.get("/slow", params={"ms": 500}) for _ in range(20)))

    responses = asyncio.run(main())
    assert [r.status_code for r in responses] == [200] * 20
    assert {r.data["slept_ms"] for r in responses} == {500}
    assert slow_hits(private) == 1


def test_coalesce_false_sends_every_request(private):
    async def main():
        async with netcore.AsyncClient({"base_url": private.base_url, **ENVELOPE}, coalesce=False) as c:
            return await asyncio.gather(*(c.get("/slow", params={"ms": 50}) for _ in range(20)))

    assert len(asyncio.run(main())) == 20
    assert slow_hits(private) == 20


def test_callbacks_share_and_a_cancelled_task_alone_ends_cancelled(private):
    with netcore.Client({"base_url": private.base_url, **ENVELOPE}) as c:
        done, lock, ev = [], threading.Lock(), threading.Event()

        def cb(response, error):
            with lock:
                done.append(type(error).__name__ if error else response.status_code)
                if len(done) == 5:
                    ev.set()

        tasks = [c.send("GET", "/slow", params={"ms": 800}, callback=cb) for _ in range(5)]
        for _ in range(500):
            if slow_hits(private):
                break
            threading.Event().wait(0.01)
        tasks[2].cancel()
        assert ev.wait(20)
        assert sorted(map(str, done)) == sorted(["Cancelled"] + ["200"] * 4)
        assert slow_hits(private) == 1


def test_a_wrong_coalesce_value_is_refused_naming_the_key():
    with pytest.raises(netcore.InvalidConfig, match="coalesce"):
        netcore.Client({}, coalesce="yes")
