"""Stubs in Python (netcore.testing, Client.add_stub): each field, sequences, only
vs fallback, the envelope, retry and cache through a stub, events, and a cassette
recorded against a mock server that is then stopped and replayed."""
import asyncio
import os

import pytest
from mockserver_client import MockServer

import netcore
import netcore.testing as nt
from netcore.testing import answer, stub

ENVELOPE = {"code": "code", "ok_codes": [0], "message": "msg", "data": "data"}
BASE = "http://api.test/v1"


def ok(data):
    return {"code": 0, "msg": "ok", "data": data}


def test_each_field_and_stubbed_events(tmp_path):
    events = []
    (tmp_path / "avatar.png").write_bytes(b"\x89PNG\x00\xff")
    with nt.stubbed({"base_url": BASE, "envelope": ENVELOPE}, on_event=events.append) as client:
        stub(client, "/v1/users/{id}", headers={"X-Stub": "yes"}, json=ok({"id": 7, "name": "Ada"}))
        stub(client, "/v1/avatar", body_file=str(tmp_path / "avatar.png"))
        stub(client, "/v1/bytes", body=b"\x00\x01\xff")
        stub(client, "/v1/text", body="plain text", headers={"Content-Type": "text/plain"})
        stub(client, "/v1/search", query={"q": "ada"}, json=ok(["ada"]))
        stub(client, "/v1/any-method", method=None, json=ok("any"))
        stub(client, "/v1/files/*", json=ok("file"))

        r = client.get("/users/9")
        assert r.status == 200
        assert r.data == {"id": 7, "name": "Ada"}
        assert r.headers["X-Stub"] == "yes"
        assert r.headers["Content-Type"] == "application/json"
        assert client.get("/avatar", envelope=False).content == b"\x89PNG\x00\xff"
        assert client.get("/bytes", envelope=False).content == b"\x00\x01\xff"
        assert client.get("/text", envelope=False).text == "plain text"
        assert client.get("/search", params={"q": "ada", "page": 1}).data == ["ada"]
        assert client.delete("/any-method").data == "any"
        assert client.get("/files/a/b/c.txt").data == "file"

        ends = [e for e in events if e["event"] == "request_end"]
        assert ends and all(e["stubbed"] is True for e in ends)
        with pytest.raises(netcore.NoStub) as info:
            client.get("/search", params={"q": "bob"})
        assert info.value.code == netcore.ClientCode.NO_STUB == 13
        assert info.value.attempts == 0
        assert str(info.value.message) == (
            'No stub answers GET http://api.test/v1/search?q=bob ("stubs" mode "only": nothing was sent). '
            'Add a route for it (nc_client_add_stub) or set "mode": "fallback" to send unmatched requests '
            "to the network.")


def test_sequences_times_and_retry():
    config = {"base_url": BASE, "envelope": ENVELOPE, "retry": {"max_attempts": 3, "backoff": "immediate"}}
    with nt.stubbed(config) as client:
        stub(client, "/v1/flaky", responses=[answer(503), answer(transport_error=7), answer(json=ok("third"))])
        stub(client, "/v1/once", times=1, json=ok(1))
        stub(client, "/v1/once", json=ok(2))
        stub(client, "/v1/down", transport_error=7)
        r = client.get("/flaky")
        assert r.data == "third"
        assert client.get("/flaky").data == "third"  # the last answer repeats
        assert [client.get("/once").data for _ in range(3)] == [1, 2, 2]
        with pytest.raises(netcore.TransportError) as info:
            client.get("/down")
        assert info.value.code == 7
        assert info.value.attempts == 3
        assert "answered by the stub GET /v1/down" in info.value.message


def test_timeout_from_delay():
    with nt.stubbed({"base_url": BASE}) as client:
        stub(client, "/v1/slow", delay_ms=5000, body="late")
        with pytest.raises(netcore.Timeout) as info:
            client.get("/slow", timeout=0.05)
        assert info.value.code == 28


def test_cache_and_http_error_through_a_stub():
    with nt.stubbed({"base_url": BASE, "envelope": ENVELOPE, "cache": {}}) as client:
        stub(client, "/v1/cached", times=1, headers={"Cache-Control": "max-age=60"}, json=ok("kept"))
        stub(client, "/v1/biz", json={"code": 1001, "msg": "wrong password", "data": None})
        stub(client, "/v1/missing", status=404, json={"error": "not found"})
        policy = netcore.CachePolicy.CACHE_ELSE_NETWORK
        first, second = client.get("/cached", cache=policy), client.get("/cached", cache=policy)
        assert (first.from_cache, second.from_cache, second.data) == (False, True, "kept")
        with pytest.raises(netcore.APIError) as api:
            client.get("/biz")
        assert (api.value.code, api.value.message) == (1001, "wrong password")
        with pytest.raises(netcore.HTTPError) as http:
            client.get("/missing")
        assert http.value.code == 404


def test_only_vs_fallback(server):
    base = server.base_url + "/api"
    with nt.stubbed({"base_url": base, "envelope": ENVELOPE}, mode="fallback",
                    routes=[{"path": "/api/users/9", "body": ok("stub")}]) as client:
        assert client.get("/users/9").data == "stub"
        assert client.get("/users/7").data == {"id": 7, "name": "Ada"}  # from the server
    with nt.stubbed({"base_url": base, "envelope": ENVELOPE}) as client:
        with pytest.raises(netcore.NoStub):
            client.get("/users/7")


def test_add_stub_refusals():
    with nt.stubbed({"base_url": BASE}) as client:
        with pytest.raises(netcore.InvalidArgument) as info:
            client.add_stub({"path": "/v1/x", "status": "200"})
        assert str(info.value) == "stub: 'status' must be an integer, got string."
        with pytest.raises(netcore.InvalidArgument) as info:
            client.add_stub(path="v1/x")
        assert str(info.value) == ("stub: 'path' must start with '/' and hold no space, control character or '?' "
                                   '(got "v1/x").')
    with netcore.Client({"base_url": BASE}) as plain:
        with pytest.raises(netcore.InvalidState) as state:
            stub(plain, "/v1/x")
        assert "This client has no stubs" in str(state.value)
    with pytest.raises(netcore.InvalidConfig) as config:
        netcore.Client({"stubs": {"mode": "sometimes"}})
    assert config.value.message == "Configuration key 'stubs.mode' must be \"only\" or \"fallback\"."


def test_async_client_is_stubbed_too():
    async def main():
        async with netcore.AsyncClient({"base_url": BASE, "envelope": ENVELOPE,
                                        "stubs": {"routes": [{"path": "/v1/a", "body": ok("async")}]}}) as c:
            return (await c.get("/a")).data
    assert asyncio.run(main()) == "async"


def test_record_then_replay_with_the_server_stopped(tmp_path):
    cassette = str(tmp_path / "cassette")
    with MockServer() as srv:
        base = srv.base_url + "/api"
        with nt.recording(cassette, {"base_url": base}) as client:
            client.set_header("Authorization", "Bearer TOPSECRET-1")
            user = client.get("/users/7", params={"api_key": "S3CRET-2", "lang": "en"})
            login = client.post("/login", json={"username": "ada", "password": "secret"})
            assert b"tok-ada" in login.content
            text = client.get("/text")
        port = srv.port
    files = sorted(os.listdir(cassette))
    assert len(files) == 3
    for name in files:
        content = open(os.path.join(cassette, name), encoding="utf-8").read()
        for secret in ("TOPSECRET", "S3CRET", "tok-ada"):
            assert secret not in content, (name, secret)
    # the server is gone: replaying sends nothing
    with nt.replaying(cassette, {"base_url": f"http://127.0.0.1:{port}/api"}) as client:
        again = client.get("/users/7", params={"api_key": "other", "lang": "en"})
        assert again.content == user.content
        assert again.status == user.status
        assert again.headers["Content-Type"] == user.headers["Content-Type"]
        assert client.get("/text").content == text.content
        assert b'"token":"REDACTED"' in client.post("/login").content
        with pytest.raises(netcore.NoStub):
            client.get("/users/7", params={"lang": "fr"})
