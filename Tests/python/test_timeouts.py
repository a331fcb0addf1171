"""The timeout model (0.4): idle_timeout_ms is inactivity measured by the library in
milliseconds, the total is off by default — through Python's get, stream() and
asyncio, against the mock server's scripted routes. The tests read what the error
says, never the clock."""
import asyncio

import pytest

import netcore


def test_a_trickling_body_lives_past_the_idle_limit(base):
    # 25 bytes, one every 200 ms (5 s), with a 1 s idle limit.
    with netcore.Client({"base_url": base, "idle_timeout_ms": 1000}) as c:
        r = c.get("/drip?chunks=25&ms=200&size=1")
        assert r.status == 200 and r.content == b"x" * 25


def test_a_stall_after_100_bytes_is_idle_and_says_how_far_it_got(base):
    with netcore.Client({"base_url": base}) as c:
        with pytest.raises(netcore.Timeout) as info:
            c.get("/stall?bytes=100&ms=6000", idle_timeout=0.5)
    e = info.value
    assert e.timeout == "idle" and e.domain == "NCTransportErrorDomain" and e.code == 28
    assert "no byte sent or received for idle_timeout_ms (500 ms) after 100 of 101 bytes of the body" in e.message


def test_requests_connect_read_tuple_sets_the_idle_limit(base):
    with netcore.Client({"base_url": base}) as c:
        with pytest.raises(netcore.Timeout) as info:
            c.get("/slow?ms=8000", timeout=(5, 0.5))
        assert info.value.timeout == "idle"
        assert "idle_timeout_ms (500 ms)" in info.value.message
        # None keeps the client's: the pair sets no total, so a slow answer lives.
        r = c.get("/slow?ms=300", timeout=(None, 5))
        assert r.status == 200
        with pytest.raises(ValueError):
            c.get("/slow", timeout=(1, 2, 3))
        with pytest.raises(ValueError):
            c.get("/slow", timeout=(1, -2))


def test_a_stream_with_the_defaults_outlives_the_old_total_limit(base):
    # The old default (a 15 s total) is not tested for its length here; a stream
    # that trickles for 3 s with a 1 s total would have died: the total is now off.
    with netcore.Client({"base_url": base, "idle_timeout_ms": 2000}) as c:
        with c.stream("GET", "/drip?chunks=6&ms=500&size=10") as r:
            got = b"".join(r.iter_bytes())
        assert got == b"x" * 60


def test_asyncio_stall_is_idle(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base, "idle_timeout_ms": 400}) as c:
            with pytest.raises(netcore.Timeout) as info:
                await c.get("/stall?bytes=10&ms=5000")
            return info.value
    e = asyncio.run(main())
    assert e.timeout == "idle" and "after 10 of 11 bytes" in e.message


def test_asyncio_a_request_waiting_for_a_busy_host_ends_at_its_total_and_deadline(base):
    # One connection a host, held 6 s by the first request: the two behind it end at
    # their own limits (libcurl 7.88 alone let them wait for the connection).
    async def main():
        cfg = {"base_url": base, "coalesce": False, "limits": {"max_connections_per_host": 1}}
        async with netcore.AsyncClient(cfg) as c:
            holder = asyncio.ensure_future(c.get("/slow?ms=6000"))
            await asyncio.sleep(0.3)
            with pytest.raises(netcore.Timeout) as total:
                await c.get("/echo?waits=total", timeout=netcore.Timeouts(total=0.4))
            with pytest.raises(netcore.DeadlineExceeded) as deadline:
                await c.get("/echo?waits=deadline", deadline=0.4)
            held = holder.done()
            assert (await holder).status == 200
            return total.value, deadline.value, held
    total, deadline, held = asyncio.run(main())
    assert not held
    assert total.timeout == "total" and total.code == 28
    assert "the total timeout_ms (400 ms) ran out while it waited for a connection" in total.message
    assert deadline.timeout == "deadline"
