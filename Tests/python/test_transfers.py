"""Downloads (output= through path.part, resume), progress= and client.stream()
(docs/transfers.md) against the mock API's /dl routes."""
import random

import pytest

import netcore


def content(n, offset=0):
    return bytes((i % 251) for i in range(offset, offset + n))


def dl_stats(raw_client, key):
    return raw_client.get("/dl/stats", params={"key": key}).json()


def test_a_cut_download_leaves_only_a_part_and_the_next_call_resumes_it(raw_client, tmp_path):
    key, n = f"py{random.getrandbits(48)}", 1_000_000
    target = tmp_path / "f.bin"
    with pytest.raises(netcore.TransportError):
        raw_client.get("/dl/cut", params={"key": key, "bytes": n}, output=target)
    assert not target.exists()
    assert (tmp_path / "f.bin.part").stat().st_size == n // 2
    r = raw_client.get("/dl/cut", params={"key": key, "bytes": n}, output=target)
    assert r.status == 206
    assert target.read_bytes() == content(n)
    assert not (tmp_path / "f.bin.part").exists()
    stats = dl_stats(raw_client, key)
    assert stats["range_requests"] == 1 and stats["last_range"] == f"bytes={n // 2}-"


def test_progress_is_monotonic_bounded_and_ends_before_the_response(raw_client):
    import time
    n = 4_000_000
    calls = []
    done = []
    started = time.monotonic()
    r = raw_client.get("/dl/file", params={"key": f"py{random.getrandbits(48)}", "bytes": n},
                       progress=lambda *v: calls.append((v, bool(done))))
    done.append(True)
    seconds = time.monotonic() - started
    values = [v for v, _ in calls]
    assert r.status == 200 and len(r.body) == n
    assert 1 <= len(values) <= seconds * 25 + 5
    assert all(a[i] <= b[i] for a, b in zip(values, values[1:]) for i in range(4))
    assert values[-1] == (n, n, 0, 0)
    assert not any(after for _, after in calls)


def test_progress_on_send_and_a_raising_callback_is_only_logged(raw_client, caplog):
    calls = []

    def boom(*v):
        calls.append(v)
        raise RuntimeError("progress bug")

    task = raw_client.send("GET", "/dl/file", params={"key": "x", "bytes": 200_000}, progress=boom)
    assert task.result().status == 200
    assert calls and calls[-1][0] == 200_000
    with pytest.raises(TypeError):
        raw_client.get("/text", progress=42)


def test_stream_yields_the_body_in_chunks(raw_client):
    n = 2_000_000
    got = bytearray()
    chunks = 0
    with raw_client.stream("GET", "/dl/file", params={"key": "s", "bytes": n}) as r:
        for chunk in r.iter_bytes():
            got += chunk
            chunks += 1
    assert bytes(got) == content(n) and chunks > 1
    assert r.response is not None and r.response.status == 200 and r.response.body == b""


def test_stream_raises_the_http_error_with_its_body(raw_client):
    with raw_client.stream("GET", "/status/404", params={"body": "text"}) as r:
        with pytest.raises(netcore.HTTPError) as info:
            for _ in r.iter_bytes():
                pass
    assert info.value.body


def test_leaving_a_stream_early_cancels_it(raw_client):
    key = f"py{random.getrandbits(48)}"
    with raw_client.stream("GET", "/dl/file", params={"key": key, "bytes": 50_000_000,
                                                      "stall_after": 1_000_000}) as r:
        for chunk in r.iter_bytes():
            break
    assert r.response is None
    # The client still works and the transfer is gone.
    assert raw_client.get("/dl/file", params={"key": "y", "bytes": 10}).status == 200


def test_async_stream(base):
    import asyncio
    n = 1_500_000

    async def main():
        async with netcore.AsyncClient({"base_url": base}) as c:
            got = bytearray()
            async with c.stream("GET", "/dl/file", params={"key": "a", "bytes": n}) as r:
                async for chunk in r.aiter_bytes():
                    got += chunk
            assert bytes(got) == content(n)
            calls = []
            resp = await c.get("/dl/file", params={"key": "b", "bytes": n}, progress=lambda *v: calls.append(v))
            assert resp.status == 200 and calls[-1] == (n, n, 0, 0)
            async with c.stream("GET", "/dl/file", params={"key": "c", "bytes": 50_000_000,
                                                          "stall_after": 100_000}) as r:
                async for _ in r.aiter_bytes():
                    break

    asyncio.run(main())


def test_stream_signatures_mirror():
    import inspect
    assert list(inspect.signature(netcore.AsyncClient.stream).parameters.values()) == \
        list(inspect.signature(netcore.Client.stream).parameters.values())
