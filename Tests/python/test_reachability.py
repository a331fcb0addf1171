"""Reachability: Client(reachability=...), client.reachability / client.reachable,
and wait_for_network_ms, sync and asyncio, against the loopback mock API."""
import asyncio
import random
import threading
import time

import pytest

import netcore


def key():
    return f"p{random.getrandbits(63)}"


def hits(base, k):
    """How many times the server saw /flaky with key k (the asking is not counted)."""
    with netcore.Client({"base_url": base, "reachability": {"mode": "online"}}) as c:
        return c.get(f"/flaky?key={k}&fails=0").json()["data"]["attempt"] - 1


def test_offline_fails_loopback_unsent(base):
    k = key()
    with netcore.Client({"base_url": base}, reachability="offline") as c:
        assert c.reachability == "offline"
        assert c.reachable is False
        with pytest.raises(netcore.Unreachable) as info:
            c.get(f"/flaky?key={k}&fails=0")
        assert info.value.domain == "NCClientErrorDomain"
        assert info.value.code == netcore.ClientCode.UNREACHABLE
        assert "set offline" in info.value.message
        assert info.value.attempts == 0
    assert hits(base, k) == 0


def test_online_and_auto_reach_loopback(base):
    for mode in ("online", "auto"):
        with netcore.Client({"base_url": base, "envelope": {}}, reachability=mode) as c:
            assert c.reachability == mode
            assert c.get("/echo").status == 200


def test_setter_switches_and_refuses_unknown_modes(base):
    with netcore.Client({"base_url": base, "reachability": {"mode": "offline"}}) as c:
        assert c.reachability == "offline"
        with pytest.raises(netcore.InvalidArgument):
            c.reachability = "sideways"
        assert c.reachability == "offline"
        with pytest.raises(netcore.Unreachable):
            c.get("/echo")
        c.reachability = "online"
        assert c.reachable is True
        assert c.get("/echo").status == 200


def test_the_keyword_keeps_the_other_members(base):
    config = {"base_url": base, "reachability": {"mode": "auto", "wait_for_network_ms": 50}}
    with netcore.Client(config, reachability="offline") as c:
        with pytest.raises(netcore.Unreachable) as info:
            c.get("/echo")
        assert "Waited 50 ms" in info.value.message


def test_bad_keyword_refused_before_anything(base):
    with pytest.raises(netcore.InvalidArgument):
        netcore.Client({"base_url": base}, reachability="maybe")
    with pytest.raises(netcore.InvalidConfig) as info:
        netcore.Client({"base_url": base, "reachability": {"mode": "maybe"}})
    assert "reachability.mode" in str(info.value)


def test_waiting_request_goes_when_switched_online(base):
    k = key()
    with netcore.Client({"base_url": base, "reachability": {"mode": "offline",
                                                            "wait_for_network_ms": 60000}}) as c:
        result = {}

        def send():
            result["status"] = c.get(f"/flaky?key={k}&fails=0").status

        t = threading.Thread(target=send)
        t.start()
        time.sleep(0.2)
        assert "status" not in result  # held, not failed
        assert hits(base, k) == 0
        c.reachability = "online"
        t.join(20)
        assert result["status"] == 200
    assert hits(base, k) == 2  # the request, and the probe above


def test_asyncio_wait_and_cancel(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base}, reachability="offline") as c:
            assert c.reachability == "offline"
            with pytest.raises(netcore.Unreachable):
                await c.get("/echo")
        config = {"base_url": base, "reachability": {"mode": "offline", "wait_for_network_ms": 60000}}
        async with netcore.AsyncClient(config) as c:
            task = asyncio.ensure_future(c.get("/echo"))
            await asyncio.sleep(0.1)
            assert not task.done()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            waiting = asyncio.ensure_future(c.get("/echo"))
            await asyncio.sleep(0.1)
            assert not waiting.done()
            c.reachability = "online"
            assert (await waiting).status == 200

    asyncio.run(main())
