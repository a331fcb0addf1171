"""Single-flight token refresh: refresher= on Client (a thread) and AsyncClient (a
coroutine), against the mock server's /auth/check (200 with the right Bearer token,
else the business code 401001)."""
import asyncio
import threading

import pytest

import netcore

ENVELOPE = {"envelope": {"auth_expired_codes": [401001]}, "coalesce": False,
            "reachability": {"mode": "online"}}


def test_one_refresh_for_many_expired_requests(base):
    calls = []

    def refresher(error):
        calls.append(error.code)
        return "fresh"

    with netcore.Client({"base_url": base, **ENVELOPE, "auth": {"token": "stale"}},
                        refresher=refresher) as c:
        done, lock, ev = [], threading.Lock(), threading.Event()

        def cb(response, error):
            with lock:
                done.append(error)
                if len(done) == 10:
                    ev.set()

        for _ in range(10):
            c.send("GET", "/auth/check", params={"valid": "fresh", "ms": 100}, callback=cb)
        assert ev.wait(20)
        assert done == [None] * 10
        assert calls == [401001]
        # The new token stays: a synchronous call goes through at once.
        assert c.get("/auth/check", params={"valid": "fresh"}).status == 200


def test_a_raising_refresher_fails_the_waiting_requests(base):
    def refresher(error):
        raise RuntimeError("refresh token revoked")

    expired = []
    with netcore.Client({"base_url": base, **ENVELOPE, "auth": {"token": "stale"}},
                        refresher=refresher, on_auth_expired=expired.append) as c:
        with pytest.raises(netcore.AuthRefreshFailed) as info:
            c.get("/auth/check", params={"valid": "fresh"})
        assert "refresh token revoked" in str(info.value)
        assert len(expired) == 1


def test_async_refresher_coroutine(base):
    async def main():
        calls = []

        async def refresher(error):
            calls.append(error.code)
            await asyncio.sleep(0.01)
            return "fresh"

        async with netcore.AsyncClient({"base_url": base, **ENVELOPE, "auth": {"token": "stale"}},
                                       refresher=refresher) as c:
            rs = await asyncio.gather(*[c.get("/auth/check", params={"valid": "fresh", "ms": 50})
                                        for _ in range(8)])
            assert [r.status for r in rs] == [200] * 8
            assert calls == [401001]
    asyncio.run(main())


def test_bad_auth_config_is_refused_without_echoing_the_token(base):
    with pytest.raises(netcore.InvalidConfig) as info:
        netcore.Client({"base_url": base, "auth": {"token": "a\nSECRET"}})
    assert "SECRET" not in str(info.value) and "auth.token" in str(info.value)
    with pytest.raises(netcore.InvalidConfig):
        netcore.Client({"base_url": base, "auth": {"max_refreshes_per_minute": -1}})
