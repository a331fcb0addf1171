"""Retry, deadlines and timeouts from Python: attempts and waits read from the
event stream (``on_event``) and the mock server's own count (``/_hits``)."""
import asyncio
import json
import random
import urllib.request

import pytest

import netcore


def hits(server, key):
    with urllib.request.urlopen(f"{server.base_url}/_hits?key={key}") as r:
        return json.load(r)["hits"]


def new_key():
    return f"py{random.getrandbits(60)}"


QUICK = netcore.Retry(total=3, backoff="constant", backoff_factor=0.01, jitter=False)


def test_retry_speaks_urllib3_and_becomes_the_library_policy():
    assert netcore.Retry().to_json() == {
        "max_attempts": 3, "backoff": "exponential", "initial_ms": 200, "multiplier": 2.0,
        "max_delay_ms": 5000, "jitter": True, "statuses": [408, 429, 500, 502, 503, 504],
        "methods": ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"], "respect_retry_after": True}
    r = netcore.Retry(total=0, backoff_factor=1.5, backoff_max=10, status_forcelist=[503],
                      allowed_methods=["get", "post"], respect_retry_after_header=False)
    assert r.to_json()["max_attempts"] == 1
    assert r.to_json()["initial_ms"] == 1500 and r.to_json()["max_delay_ms"] == 10000
    assert r.to_json()["methods"] == ["GET", "POST"] and r.to_json()["statuses"] == [503]
    for bad in ({"total": -1}, {"total": 100}, {"backoff_factor": -1}, {"backoff": "linear"},
                {"multiplier": 0.5}, {"backoff_max": float("inf")}):
        with pytest.raises(ValueError):
            netcore.Retry(**bad)


def test_a_flaky_get_is_retried_and_every_attempt_is_an_event(server, base):
    events = []
    key = new_key()
    with netcore.Client({"base_url": base, "envelope": {}}, retry=QUICK, on_event=events.append) as c:
        r = c.get("/flaky", params={"key": key, "fails": 2, "status": 503})
    assert r.status == 200
    assert hits(server, key) == 3
    retries = [e for e in events if e["event"] == "retry"]
    assert [e["delay_ms"] for e in retries] == [10, 10]
    assert [e["reason"] for e in retries] == ["HTTP 503", "HTTP 503"]
    assert [e["status"] for e in events if e["event"] == "attempt_end"] == [503, 503, 200]


def test_without_retry_one_attempt_and_the_error_counts_it(server, client):
    key = new_key()
    with pytest.raises(netcore.HTTPError) as info:
        client.get("/flaky", params={"key": key, "fails": 1, "status": 503})
    assert info.value.attempts == 1 and info.value.timeout is None
    assert hits(server, key) == 1


def test_post_is_not_retried_unless_it_opts_in(server, base):
    with netcore.Client({"base_url": base, "envelope": {}}, retry=QUICK) as c:
        key = new_key()
        with pytest.raises(netcore.HTTPError):
            c.post(f"/flaky?key={key}&fails=1&status=503", json={"order": 1})
        assert hits(server, key) == 1
        key = new_key()
        c.post(f"/flaky?key={key}&fails=1&status=503", json={"order": 1},
               headers={"Idempotency-Key": "order-1"})
        assert hits(server, key) == 2


def test_per_request_retry_merges_and_false_turns_it_off(server, base):
    with netcore.Client({"base_url": base, "envelope": {}}, retry=QUICK) as c:
        key = new_key()
        with pytest.raises(netcore.HTTPError) as info:
            c.get("/flaky", params={"key": key, "fails": 5}, retry=False)
        assert info.value.attempts == 1 and hits(server, key) == 1
        key = new_key()
        with pytest.raises(netcore.HTTPError) as info:
            c.get("/flaky", params={"key": key, "fails": 5}, retry={"max_attempts": 2})
        assert info.value.attempts == 2 and hits(server, key) == 2
        with pytest.raises(netcore.InvalidArgument):
            c.get("/flaky", retry={"max_attempts": 0})
        with pytest.raises(TypeError):
            c.get("/flaky", retry=3)


def test_the_retry_handler_decides_first(server, base):
    seen = []

    def handler(response, error, attempt):
        seen.append((attempt, type(error).__name__, response.status if response else None))
        return 0.005 if isinstance(error, netcore.APIError) else None

    with netcore.Client({"base_url": base, "envelope": {}}, retry_handler=handler) as c:
        key = new_key()
        with pytest.raises(netcore.APIError) as info:
            c.post(f"/env/code/fail?key={key}", json={"a": 1})
    assert info.value.attempts == 3 and hits(server, key) == 3
    assert seen == [(1, "APIError", 200), (2, "APIError", 200)]


def test_a_handler_that_raises_leaves_the_decision_to_the_policy(server, base, caplog):
    def handler(response, error, attempt):
        raise RuntimeError("boom")

    with netcore.Client({"base_url": base, "envelope": {}}, retry=QUICK, retry_handler=handler) as c:
        key = new_key()
        c.get("/flaky", params={"key": key, "fails": 1})
    assert hits(server, key) == 2
    assert any("retry_handler" in r.getMessage() for r in caplog.records)


def test_deadline_exceeded_names_the_last_error(server, base):
    slow = netcore.Retry(total=5, backoff="constant", backoff_factor=60, backoff_max=60, jitter=False)
    with netcore.Client({"base_url": base, "envelope": {}}, retry=slow) as c:
        key = new_key()
        with pytest.raises(netcore.DeadlineExceeded) as info:
            c.get("/flaky", params={"key": key, "fails": 5}, deadline=20)
    e = info.value
    assert e.timeout == "deadline" and e.attempts == 1 and e.code == netcore.ClientCode.DEADLINE_EXCEEDED
    assert "HTTP 503" in e.message
    assert hits(server, key) == 1


def test_each_timeout_says_which(base):
    with netcore.Client({"base_url": base}) as c:
        with pytest.raises(netcore.Timeout) as info:
            c.get("/slow?ms=5000", timeout=0.3)
        assert info.value.timeout == "total"
        with pytest.raises(netcore.Timeout) as info:
            c.get("/slow?ms=30000", timeout=30, idle_timeout=1)
        assert info.value.timeout == "idle"
        with pytest.raises(netcore.DeadlineExceeded) as info:
            c.get("/slow?ms=5000", timeout=30, deadline=0.3)
        assert info.value.timeout == "deadline"
        with pytest.raises(ValueError):
            c.get("/slow", deadline=-1)


def test_asyncio_retries_and_cancels_during_a_wait(server, base):
    async def main():
        events = []
        wait = netcore.Retry(total=3, backoff="constant", backoff_factor=600, backoff_max=600, jitter=False)
        async with netcore.AsyncClient({"base_url": base, "envelope": {}}, retry=QUICK,
                                       on_event=events.append) as c:
            key = new_key()
            r = await c.get("/flaky", params={"key": key, "fails": 1})
            assert r.status == 200 and hits(server, key) == 2
            key = new_key()
            task = asyncio.ensure_future(c.get("/flaky", params={"key": key, "fails": 5}, retry=wait))
            for _ in range(1000):  # until the 10-minute wait has begun
                if any(e["event"] == "retry" and e["delay_ms"] == 600000 for e in events):
                    break
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert hits(server, key) == 1

    asyncio.run(main())


def test_an_endpoint_takes_a_retry_policy(server, base):
    with netcore.Client({"base_url": base, "envelope": {}}) as c:
        c.define_endpoint("flaky", path="/flaky", retry=netcore.Retry(total=1, backoff="immediate"))
        key = new_key()
        assert c.call("flaky", key=key, fails=1).status == 200
        assert hits(server, key) == 2
