"""The rows of docs/python.md's compatibility table (requests / httpx call -> ours),
each against the mock API, and streams: the head on entering, lines of NDJSON and
text/event-stream, text, and a slow reader's flat memory."""
import asyncio
import base64
import hashlib
import datetime
import json
import os
import subprocess
import sys
import textwrap

import pytest

import netcore

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def echo(c, **kwargs):
    return c.get("/echo-raw", **kwargs).json()


# -- responses --------------------------------------------------------------------

def test_response_attributes(raw_client):
    r = raw_client.get("/redirect/chain", params={"n": 2})
    assert (r.status_code, r.reason_phrase, r.reason, r.is_success, r.ok) == (200, "OK", "OK", True, True)
    assert (r.is_redirect, r.is_error, r.is_client_error, r.is_server_error) == (False, False, False, False)
    assert isinstance(r.elapsed, datetime.timedelta) and r.elapsed > datetime.timedelta(0)
    assert [h.status_code for h in r.history] == [302, 302] and r.http_version == "HTTP/1.1"
    assert r.raise_for_status() is r
    assert r.json() == {"code": 0, "msg": "ok", "data": {"redirected": True}}


def test_json_on_a_body_that_is_not_json_is_a_parse_error(raw_client):
    r = raw_client.get("/text")
    with pytest.raises(netcore.ParseError) as info:
        r.json()
    e = info.value
    assert e.code == netcore.ParseCode.INVALID_JSON and isinstance(e, ValueError)
    assert e.message.startswith("the body is not JSON: Expecting value: line 1 column 1")
    assert e.response is r and e.body == b"hello, world"
    with pytest.raises(netcore.ParseError) as info:
        raw_client.get("/empty").json()
    assert info.value.message == "the body is empty"
    # Bytes that are not UTF-8 (byte i is i % 251: 0x80 at 128): not a UnicodeDecodeError.
    binary = raw_client.get("/dl/file", params={"key": "json-binary", "bytes": 300})
    with pytest.raises(netcore.ParseError) as info:
        binary.json()
    assert info.value.message == "the body is not JSON: not UTF-8 at byte 128"
    assert not isinstance(info.value, UnicodeDecodeError)


def test_http_error_carries_the_response(raw_client):
    with pytest.raises(netcore.HTTPError) as info:
        raw_client.get("/status/404")
    e = info.value
    assert e.response.status_code == 404 and e.response.reason_phrase == "Not Found"
    assert e.response.headers["content-type"].startswith("application/json")
    assert e.response.json() == {"error": "status 404"} and e.response.text == '{"error":"status 404"}'
    assert not e.response.is_success and e.response.is_client_error
    with pytest.raises(netcore.HTTPError) as again:
        e.response.raise_for_status()
    assert again.value.code == 404 and again.value.response is e.response
    assert again.value.message.startswith("HTTP 404 Not Found from http://")


# -- per-request keywords ------------------------------------------------------------

def test_auth_tuple_token_and_callable(raw_client):
    basic = "Basic " + base64.b64encode(b"ada:pw").decode()
    assert echo(raw_client, auth=("ada", "pw"))["headers"]["authorization"] == basic
    assert echo(raw_client, auth="tok")["headers"]["authorization"] == "Bearer tok"
    seen = []

    def sign(out):
        seen.append(out.url)
        out.set_header("X-Signed", "yes")

    got = echo(raw_client, auth=sign)
    assert got["headers"]["x-signed"] == "yes" and "x-netcore-request-auth" not in got["headers"]
    assert len(seen) == 1 and seen[0].endswith("/echo-raw")
    # A request without auth= is not touched by the last one's callable.
    assert "x-signed" not in echo(raw_client)["headers"]
    assert raw_client._core.request_auth == {}


def test_auth_and_cookies_on_send_and_stream(raw_client):
    calls = []

    def sign(out):
        calls.append(out.method)
        out.set_header("X-Signed", "send")

    got = raw_client.send("GET", "/echo-raw", auth=sign, cookies={"c": "1"}).result(timeout=10).json()
    assert got["headers"]["x-signed"] == "send" and got["headers"]["cookie"] == "c=1"
    with raw_client.stream("GET", "/echo-raw", auth=("u", "p"), cookies=[("s", "2")]) as r:
        streamed = json.loads(b"".join(r.iter_bytes()))
    assert streamed["headers"]["authorization"] == "Basic " + base64.b64encode(b"u:p").decode()
    assert streamed["headers"]["cookie"] == "s=2"
    with raw_client.stream("GET", "/redirect", params={"to": "/echo"}, allow_redirects=False) as r:
        assert r.status_code == 302 and list(r.iter_bytes()) == []
    assert calls == ["GET"] and raw_client._core.request_auth == {}  # released at the completion


def test_auth_callable_that_raises_fails_the_request_unsent(raw_client):
    def refuse(out):
        raise RuntimeError("no credentials")

    with pytest.raises(netcore.AdapterFailed) as info:
        raw_client.get("/echo-raw", auth=refuse)
    assert "no credentials" in info.value.message


def test_cookies(raw_client):
    assert echo(raw_client, cookies={"a": "1", "b": "2"})["headers"]["cookie"] == "a=1; b=2"
    with pytest.raises(ValueError):
        raw_client.get("/echo-raw", cookies={"a": "1;b=2"})


def test_follow_and_allow_redirects(raw_client):
    for kwargs in ({"follow_redirects": False}, {"allow_redirects": False}):
        r = raw_client.get("/redirect", params={"to": "/echo"}, **kwargs)
        assert r.status_code == 302 and r.is_redirect and r.headers["location"] == "/echo"
    assert raw_client.get("/redirect", params={"to": "/echo-raw"}, allow_redirects=True).status_code == 200
    with pytest.raises(TypeError):
        raw_client.get("/redirect", follow_redirects=True, allow_redirects=False)
    # A 3xx in hand does not raise (httpx's raise_for_status would).
    r = raw_client.get("/redirect", params={"to": "/echo"}, allow_redirects=False)
    assert r.raise_for_status() is r


def test_verify_false_is_refused(base):
    with pytest.raises(netcore.InvalidConfig):
        netcore.Client({"base_url": base}, verify=False)


def test_timeouts_number_pair_and_object(raw_client):
    with pytest.raises(netcore.Timeout) as info:
        raw_client.get("/slow", params={"ms": 3000}, timeout=0.2)
    assert info.value.timeout == "total"
    with pytest.raises(netcore.Timeout) as info:
        raw_client.get("/slow", params={"ms": 3000}, timeout=(5, 0.2))
    assert info.value.timeout == "idle"
    with pytest.raises(netcore.Timeout) as info:
        raw_client.get("/slow", params={"ms": 3000}, timeout=netcore.Timeouts(5, read=0.2))
    assert info.value.timeout == "idle"
    with pytest.raises(netcore.Timeout) as info:
        raw_client.get("/slow", params={"ms": 3000}, timeout=netcore.Timeouts(total=0.2))
    assert info.value.timeout == "total"
    with pytest.raises(netcore.DeadlineExceeded):
        raw_client.get("/slow", params={"ms": 3000}, timeout=netcore.Timeouts(deadline=0.2))
    t = netcore.Timeouts(10, connect=2)
    assert (t.connect, t.read, t.total, t.deadline) == (2, 10, None, None)
    assert netcore.Timeouts(write=3).read == 3
    with pytest.raises(ValueError):
        netcore.Timeouts(connect=-1)
    assert issubclass(netcore.Timeout, netcore.TransportError)  # the exception keeps its name


def test_headers_and_params_merge_as_httpx(base):
    config = {"base_url": base, "headers": {"X-A": "client", "X-B": "client"},
              "common_params": {"page": 1, "app": "shop"}}
    with netcore.Client(config) as c:
        got = echo(c, headers={"x-a": "request"}, params={"page": 2})
        assert got["headers"]["x-a"] == "request" and got["headers"]["x-b"] == "client"
        assert got["query"] == {"page": ["2"], "app": ["shop"]}


# -- the module and the two clients ------------------------------------------------

def test_library_path_and_version_are_both_functions():
    assert callable(netcore.library_path) and callable(netcore.library_version)
    assert os.path.exists(netcore.library_path()) and netcore.library_version().count(".") == 2


def test_async_client_has_everything_client_has():
    sync = {n for n in dir(netcore.Client) if not n.startswith("_")}
    asyn = {n for n in dir(netcore.AsyncClient) if not n.startswith("_")}
    assert {"define_endpoint", "cache_stats", "reachability", "stream", "call", "batch"} <= asyn
    # What only one has: the event-loop integration of the sync one, and aclose.
    assert (sync - asyn, asyn - sync) == ({"fileno", "dispatch"}, {"aclose"})


def test_async_keywords_and_model(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base}) as c:
            got = (await c.get("/echo-raw", auth=("u", "p"), cookies={"k": "v"})).json()
            sent = (await c.send("GET", "/echo-raw", auth=lambda out: out.set_header("X-S", "1"))).json()
            assert sent["headers"]["x-s"] == "1" and c._core.request_auth == {}
            r = await c.get("/redirect", params={"to": "/echo"}, allow_redirects=False)
            return got, r.status_code

    got, status = asyncio.run(main())
    assert got["headers"]["cookie"] == "k=v" and got["headers"]["authorization"].startswith("Basic ")
    assert status == 302


# -- streams ---------------------------------------------------------------------

def test_stream_head_on_entering(raw_client):
    with raw_client.stream("GET", "/status/503", params={"body": "text"}) as r:
        assert (r.status_code, r.is_success) == (503, False)
        assert r.headers["content-type"].startswith("text/plain")
        with pytest.raises(netcore.HTTPError) as info:
            r.raise_for_status()
        assert info.value.response.text == "status 503"
    with raw_client.stream("GET", "/ndjson", params={"n": 3}) as r:
        assert r.is_success and r.raise_for_status() is r
        lines = list(r.iter_lines())
    assert r.status_code == 200 and r.headers["content-type"] == "application/x-ndjson"
    assert [json.loads(line) for line in lines] == [{"i": i, "name": "Zoë"} for i in range(3)]


def test_stream_head_before_the_first_byte(raw_client):
    """The 2xx head is there on entering although no body byte has come yet (the
    server sends its headers and then nothing): nc_request_set_head_callback."""
    with raw_client.stream("GET", "/dl/file", params={"key": "head-first", "bytes": 1000,
                                                     "stall_after": 0}) as r:
        assert (r.status_code, r.is_success) == (200, True)
        assert r.headers["etag"] == '"head-first-1000-v1"'
        assert r.headers["content-length"] == "1000"
    # Left early: cancelled, and the client goes on.
    assert raw_client.get("/echo-raw").status_code == 200


def test_async_stream_head_before_the_first_byte(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base}) as c:
            async with c.stream("GET", "/dl/file", params={"key": "ahead", "bytes": 10,
                                                          "stall_after": 0}) as r:
                return r.status_code, r.headers["etag"]

    assert asyncio.run(main()) == (200, '"ahead-10-v1"')


def test_stream_lines_of_sse_and_text(raw_client):
    with raw_client.stream("GET", "/sse", params={"n": 2}) as r:
        lines = list(r.iter_lines())
    assert lines == ["id: 0", "event: tick", 'data: {"i": 0}', "",
                     "id: 1", "event: tick", 'data: {"i": 1}', ""]
    with raw_client.stream("GET", "/ndjson", params={"n": 50}) as r:
        text = "".join(r.iter_text())
    assert text.count("Zoë") == 50 and text.endswith("}\n")


def test_async_stream_lines(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base}) as c:
            async with c.stream("GET", "/sse", params={"n": 2}) as r:
                assert r.is_success
                sse = [line async for line in r.aiter_lines()]
            async with c.stream("GET", "/status/404") as r:
                code = r.status_code
            async with c.stream("GET", "/ndjson", params={"n": 4}) as r:
                records = [json.loads(line) async for line in r.aiter_lines()]
                # Another request of the same client while streaming does not wait
                # for the stream's reader.
                other = await c.get("/echo-raw")
            return sse, code, records, other.status_code

    sse, code, records, other = asyncio.run(main())
    assert sse[:4] == ["id: 0", "event: tick", 'data: {"i": 0}', ""] and len(sse) == 8
    assert code == 404 and [r["i"] for r in records] == [0, 1, 2, 3] and other == 200


def wait_full(buffer, tries=1000):
    """Until the stream's buffer has reached its bound and paused the transfer (a
    guard, not a timing; a reader that took a chunk since keeps it paused until it
    has taken half)."""
    import time
    for _ in range(tries):
        if buffer.paused:
            return
        time.sleep(0.01)
    raise AssertionError("the buffer never filled")


def test_a_full_buffer_lets_another_request_through(raw_client):
    """The reader waits for another request of the same client while the stream's
    buffer is full (the transfer is paused, NC_BODY_PAUSE; the transfer thread is
    free): no deadlock, and every byte still arrives, once, in order."""
    total = 20_000_000
    with raw_client.stream("GET", "/large", params={"bytes": total}, buffer_bytes=65536) as r:
        chunks = r.iter_bytes()
        got = len(next(chunks))
        wait_full(r._buffer)
        assert raw_client.send("GET", "/echo-raw").result(timeout=30).status_code == 200
        assert r._buffer.pauses > 0
        got += sum(len(c) for c in chunks)
        assert r._buffer.peak <= 65536 + 16384  # the bound and one chunk
    assert got == total


def test_a_paused_stream_keeps_every_byte_in_order(raw_client):
    """Paused and resumed many times (a tiny buffer): the body is the server's,
    byte for byte (libcurl hands a refused chunk over again)."""
    import time
    n = 3_000_000
    with raw_client.stream("GET", "/dl/file", params={"key": "order", "bytes": n},
                           buffer_bytes=20000) as r:
        chunks = r.iter_bytes()
        parts = []
        for _ in range(5):
            for _ in range(1000):  # until the transfer is paused (a guard, not a timing)
                if r._buffer.paused:
                    break
                time.sleep(0.01)
            assert r._buffer.paused
            while r._buffer.paused:  # the reader takes until it resumes the transfer
                parts.append(next(chunks))
        parts.extend(chunks)
        body = b"".join(parts)
        pauses = r._buffer.pauses
    assert pauses >= 5
    assert hashlib.sha256(body).hexdigest() == hashlib.sha256(bytes(i % 251 for i in range(n))).hexdigest()


def test_a_full_async_buffer_lets_another_request_through(base):
    total = 20_000_000

    async def main():
        async with netcore.AsyncClient({"base_url": base}) as c:
            async with c.stream("GET", "/large", params={"bytes": total}, buffer_bytes=65536) as r:
                for _ in range(1000):
                    if r._buffer.paused:
                        break
                    await asyncio.sleep(0.01)
                other = await asyncio.wait_for(c.get("/echo-raw"), 30)
                got = sum([len(chunk) async for chunk in r.aiter_bytes()])
            return other.status_code, got

    assert asyncio.run(main()) == (200, total)


SLOW_READER = textwrap.dedent('''
    import json, resource, sys, time
    import netcore
    base, total, limit = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    limit = None if limit == "none" else int(limit)
    with netcore.Client({"base_url": base}) as c:
        c.get("/large", params={"bytes": 1})
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        got = 0
        other = None
        with c.stream("GET", "/large", params={"bytes": total}, buffer_bytes=limit) as r:
            for i, chunk in enumerate(r.iter_bytes()):
                got += len(chunk)
                if i % 64 == 0:
                    time.sleep(0.005)   # a reader slower than loopback
                if other is None and got >= total // 4:
                    # Another request of the same client, while the stream is
                    # paused mid-way: it completes before the stream goes on.
                    other = c.send("GET", "/large", params={"bytes": 100000}).result(timeout=60)
                    other = [other.status_code, len(other.content), got < total]
            peak = r._buffer.peak
            pauses = r._buffer.pauses
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"bytes": got, "rss_growth_kib": after - before, "buffer_peak": peak,
                      "pauses": pauses, "other": other}))
''')


def slow_reader(base, total, limit):
    p = subprocess.run([sys.executable, "-c", SLOW_READER, base, str(total), str(limit)],
                       capture_output=True, text=True, timeout=300, env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_a_slow_reader_keeps_memory_flat(base):
    """200 MB read slowly: at most the buffer (1 MiB here) and one chunk wait, and
    the process grows by far less than the body."""
    total = 200 * 1024 * 1024
    out = slow_reader(base, total, 1024 * 1024)
    assert out["bytes"] == total
    assert out["buffer_peak"] <= 1024 * 1024 + 16384  # the bound and one chunk
    assert out["pauses"] > 0  # the transfer was paused, not the transfer thread held
    assert out["other"] == [200, 100000, True], out  # another request meanwhile
    assert out["rss_growth_kib"] < 48 * 1024, out
