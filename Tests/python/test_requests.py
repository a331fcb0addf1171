"""Sync requests: envelope shapes, raw mode, what /echo sees, responses, settings, config."""
import json

import pytest

import netcore

# The three envelope shapes of docs/configuration.md.
SHAPE_CODE = {}
SHAPE_SUCCESS = {"success": "success", "code": "code", "message": "msg", "data": "data",
                 "trace_id": "traceId"}
SHAPE_STATUS = {"status": "status", "ok_status": ["OK"], "code": "errorCode", "ok_codes": ["0"],
                "message": "errorMsg", "data": "content"}


def echo(client, method="GET", **kwargs):
    return client.request(method, "/echo", **kwargs).data


# -- envelope shapes and raw mode ---------------------------------------------

def test_shape_code_msg_data(base):
    with netcore.Client({"base_url": base, "envelope": SHAPE_CODE}) as c:
        assert c.get("/env/code/ok").data == {"id": 7, "name": "Ada"}
        assert c.get("/env/code/string-ok").data == [1, 2]
        assert c.get("/env/code/nodata").data is None
        with pytest.raises(netcore.APIError) as info:
            c.get("/env/code/fail")
        assert info.value.code == 1001


def test_shape_success_flag(base):
    with netcore.Client({"base_url": base, "envelope": SHAPE_SUCCESS}) as c:
        assert c.get("/env/success/ok").data == {"id": 42}
        with pytest.raises(netcore.APIError) as info:
            c.get("/env/success/fail")
    e = info.value
    assert (e.code, e.code_str, e.message, e.trace_id, e.data) == (
        4003, "4003", "forbidden", "trace-fail-1", {"reason": "scope"})


def test_shape_status_and_error_code(base):
    with netcore.Client({"base_url": base, "envelope": SHAPE_STATUS}) as c:
        assert c.get("/env/status/ok").data == {"items": [1, 2, 3]}
        with pytest.raises(netcore.APIError) as info:
            c.get("/env/status/fail")
        assert (info.value.code, info.value.code_str, info.value.message) == (0, "E42", "quota exceeded")
        with pytest.raises(netcore.APIError) as info:
            c.get("/env/status/badcode")
        assert (info.value.code, info.value.code_str, info.value.message) == (7, "7", "partial")


def test_raw_mode_client(raw_client):
    r = raw_client.get("/array")
    assert (r.status, r.data, r.json(), r.body) == (200, [1, 2, 3], [1, 2, 3], b"[1,2,3]")
    r = raw_client.get("/text")
    assert (r.data, r.text) == (None, "hello, world")
    assert raw_client.get("/env/code/fail").data["code"] == 1001  # no envelope check


def test_raw_mode_per_request(client):
    assert client.get("/array", envelope=False).data == [1, 2, 3]
    assert client.get("/text", envelope=False).text == "hello, world"
    assert client.get("/echo-raw", envelope=False).data["path"] == "/echo-raw"
    with pytest.raises(netcore.HTTPError):
        client.get("/status/404", envelope=False)


def test_no_content_and_head(client):
    r = client.get("/nocontent")
    assert (r.status, r.body, r.data) == (204, b"", None)
    r = client.head("/env/code/ok")
    assert (r.status, r.body) == (200, b"")
    assert int(r.headers["content-length"]) > 0


# -- what the server sees -------------------------------------------------------

def test_params_query_string(client):
    seen = echo(client, params={"q": "a b&c", "n": 3, "f": 1.5, "t": True, "no": False,
                                "skip": None, "tag": [1, 2], "u": "é"})
    assert seen["query"] == {"q": ["a b&c"], "n": ["3"], "f": ["1.5"], "t": ["true"],
                             "no": ["false"], "tag": ["1", "2"], "u": ["é"]}
    assert "skip" not in seen["raw_path"]
    assert "%20" in seen["raw_path"]


def test_params_as_pairs_keep_order(client):
    seen = echo(client, params=[("b", 1), ("a", 2), ("b", 3)])
    assert seen["raw_path"].endswith("/echo?b=1&a=2&b=3")


def test_params_with_body_methods(client):
    seen = echo(client, "POST", params={"page": 2}, json={"x": 1})
    assert seen["query"] == {"page": ["2"]}
    assert seen["json"] == {"x": 1}


def test_json_dict_body(client):
    seen = echo(client, "POST", json={"name": "ada", "n": 1, "nested": {"kept": None, "keep": [1]},
                                      "cleared": None})
    assert seen["content_type"] == "application/json"
    # None is null, as requests sends it: a PATCH that clears a field is not a no-op.
    assert seen["json"] == {"name": "ada", "n": 1, "nested": {"kept": None, "keep": [1]}, "cleared": None}
    assert seen["body"] == '{"name":"ada","n":1,"nested":{"kept":null,"keep":[1]},"cleared":null}'
    assert seen["method"] == "POST"


NULLS = {"nickname": None, "profile": {"address": {"city": None, "zip": "75001"}, "tags": [None, "a", None]},
         "list": [None, [None], {"x": None}], "keep": 0}
NULLS_TEXT = ('{"nickname":null,"profile":{"address":{"city":null,"zip":"75001"},"tags":[null,"a",null]},'
              '"list":[null,[null],{"x":null}],"keep":0}')


@pytest.mark.parametrize("method", ["PATCH", "PUT", "POST"])
def test_json_keeps_none_at_every_depth_and_in_arrays(client, method):
    seen = echo(client, method, json=NULLS)
    assert (seen["method"], seen["content_type"]) == (method, "application/json")
    assert seen["body"] == NULLS_TEXT  # depth 1 and 3, array items, as written
    assert seen["json"] == NULLS


def test_query_and_form_leave_none_out(client):
    # params= (query): None is left out, as requests does; a list's None too.
    seen = echo(client, params={"a": None, "b": 1, "t": [None, "x"]})
    assert seen["raw_path"].endswith("/echo?b=1&t=x")
    # data= (form): None at the top is left out by the library, as requests does,
    # and nested ones too (a form cannot write a null).
    seen = echo(client, "POST", data={"a": None, "b": "1", "u": {"p": {"q": None, "r": 2}}})
    assert seen["content_type"] == "application/x-www-form-urlencoded"
    assert seen["body"] == "b=1&u%5Bp%5D%5Br%5D=2"


def test_endpoint_json_encoding_keeps_none(base):
    with netcore.Client({"base_url": base, "envelope": {},
                         "endpoints": {"user.patch": {"method": "PATCH", "path": "/echo",
                                                      "encoding": "json"},
                                       "user.find": {"method": "GET", "path": "/echo"}}}) as c:
        seen = c.call("user.patch", nickname=None, profile={"address": {"city": None}}).data
        assert seen["body"] == '{"nickname":null,"profile":{"address":{"city":null}}}'
        seen = c.call("user.find", nickname=None, page=2).data
        assert seen["raw_path"].endswith("/echo?page=2")


def test_json_non_object_body(client):
    seen = echo(client, "PUT", json=[1, None, "x"])
    assert (seen["json"], seen["content_type"], seen["method"]) == ([1, None, "x"], "application/json", "PUT")


def test_data_dict_is_form(client):
    seen = echo(client, "POST", data={"user": "ada lovelace", "n": 1, "ok": True, "tags": ["a", "b"]})
    assert seen["content_type"] == "application/x-www-form-urlencoded"
    assert seen["form"] == {"user": ["ada lovelace"], "n": ["1"], "ok": ["true"], "tags": ["a", "b"]}


def test_data_pairs_is_form(client):
    seen = echo(client, "PATCH", data=[("a", 1), ("a", 2), ("b", "x")])
    assert seen["form"] == {"a": ["1", "2"], "b": ["x"]}
    assert seen["method"] == "PATCH"


def test_data_bytes_and_str_are_raw_bodies(client):
    seen = echo(client, "POST", data=b"\x01\x02binary")
    assert (seen["body"], seen["content_type"]) == ("\x01\x02binary", "application/octet-stream")
    seen = echo(client, "POST", data="héllo")
    assert (seen["body"], seen["content_type"]) == ("héllo", "text/plain; charset=utf-8")
    seen = echo(client, "POST", data='{"a":1}', headers={"content-TYPE": "application/json"})
    assert (seen["json"], seen["content_type"]) == ({"a": 1}, "application/json")


def test_json_and_data_together_refused(client):
    with pytest.raises(ValueError):
        client.post("/echo", json={"a": 1}, data={"b": 2})


def test_headers_sent(client):
    seen = echo(client, headers={"X-Trace": "abc", "Accept-Language": "fr"})
    assert seen["headers"]["x-trace"] == "abc"
    assert seen["headers"]["accept-language"] == "fr"


def test_timeout_per_request(client):
    with pytest.raises(netcore.Timeout):  # the server would answer in 2 s
        client.get("/slow", params={"ms": 2000}, timeout=0.15)
    assert client.get("/slow", params={"ms": 50}, timeout=5).data == {"slept_ms": 50}


def test_methods(client):
    for name in ("get", "post", "put", "patch", "delete", "options"):
        assert getattr(client, name)("/echo").data["method"] == name.upper()
    assert client.request("get", "/echo").data["method"] == "GET"


def test_bad_arguments(client):
    with pytest.raises(TypeError):
        client.get("/echo", params={"a": object()})
    with pytest.raises(TypeError):
        client.get("/echo", params="a=1")
    with pytest.raises(ValueError):
        client.get("/echo", timeout=-1)
    with pytest.raises(ValueError):
        client.get("/echo", params={"x": float("nan")})
    with pytest.raises(netcore.InvalidArgument):
        client.get("ftp://example.com/")


# -- responses -------------------------------------------------------------------

def test_headers_case_insensitive_read_only(client):
    r = client.get("/env/code/ok")
    h = r.headers
    assert h["content-type"] == h["Content-Type"] == h["CONTENT-TYPE"] == "application/json; charset=utf-8"
    assert "content-length" in h and "Content-Length" in h and "x-missing" not in h
    assert h.get("X-Missing") is None and h.get("x-missing", "d") == "d"
    assert "Content-Type" in list(h)  # names as received
    assert len(h) == len(list(h))
    with pytest.raises(KeyError):
        h["x-missing"]
    with pytest.raises(TypeError):
        h["x-new"] = "1"  # read-only
    assert r.status == r.status_code == 200 and r.ok and not r.from_cache
    assert r.encoding == "utf-8"


def test_repeated_headers(client):
    r = client.get("/headers/many", params={"n": 3})
    assert r.headers["x-h-2"] == "v"
    h = netcore.Headers([("Set-Cookie", "a=1"), ("set-cookie", "b=2"), ("X", "y")])
    assert h["SET-COOKIE"] == "a=1, b=2"
    assert h.get_all("set-cookie") == ["a=1", "b=2"]
    assert list(h) == ["Set-Cookie", "X"]
    assert h.items_raw()[1] == ("set-cookie", "b=2")


def test_response_body_text_json_data(client):
    r = client.get("/env/code/ok")
    assert json.loads(r.body) == r.json() == {"code": 0, "msg": "ok", "data": {"id": 7, "name": "Ada"}}
    assert r.text == r.body.decode()
    assert r.data == {"id": 7, "name": "Ada"}
    r.close()
    assert r.data == {"id": 7, "name": "Ada"}  # values already read stay
    r2 = client.get("/env/code/ok")
    r2.close()
    assert r2.status == 200
    assert repr(r2) == "<netcore.Response [200]>"
    with pytest.raises(ValueError):
        r2.body  # never read before close


def test_large_response_body(raw_client):
    r = raw_client.get("/large", params={"bytes": 300000})
    assert len(r.body) == 300000 and r.body[:16] == b"0123456789abcdef"


# -- client settings ----------------------------------------------------------------

def test_set_environment(server, closed_port):
    config = {"environments": {"mock": server.base_url + "/api",
                               "down": f"http://127.0.0.1:{closed_port}"},
              "environment": "down", "envelope": {}}
    with netcore.Client(config) as c:
        with pytest.raises(netcore.TransportError):
            c.get("/env/code/ok")
        c.set_environment("mock")
        assert c.get("/env/code/ok").data["id"] == 7
        with pytest.raises(netcore.InvalidArgument) as info:
            c.set_environment("nope")
        assert "nope" in str(info.value)
        assert c.get("/env/code/ok").data["id"] == 7  # unchanged


def test_set_header(client):
    client.set_header("X-App", "shop/2.3")
    assert echo(client)["headers"]["x-app"] == "shop/2.3"
    assert echo(client, headers={"x-app": "mine"})["headers"]["x-app"] == "mine"  # request wins
    client.set_header("X-App", None)
    assert "x-app" not in echo(client)["headers"]
    with pytest.raises(netcore.InvalidArgument):
        client.set_header("Bad Name", "v")
    with pytest.raises(netcore.InvalidArgument):
        client.set_header("X-A", "a\nb")


def test_login_then_bearer_token(client):
    token = client.post("/login", json={"username": "ada", "password": "secret"}).data["token"]
    client.set_header("Authorization", f"Bearer {token}")
    assert client.get("/profile").data == {"name": "ada", "email": "ada@example.com", "vip": True}


# -- configuration forms and errors ---------------------------------------------------

def test_config_as_json_text_and_file(base, tmp_path):
    text = json.dumps({"base_url": base, "envelope": {}})
    with netcore.Client(text) as c:
        assert c.get("/env/code/ok").data["id"] == 7
    path = tmp_path / "netcore.json"
    path.write_text(text)
    for config in (path, str(path)):
        with netcore.Client(config) as c:
            assert c.get("/env/code/ok").data["id"] == 7


@pytest.mark.parametrize("config, key", [
    ({"timeout_ms": "soon"}, "'timeout_ms'"),
    ({"limits": {"max_redirects": -1}}, "'limits.max_redirects'"),
    ({"no_such_key": 1}, "no_such_key"),
    ({"environment": "prod"}, "environment"),
    ({"envelope": {"code": 5}}, "envelope.code"),
    ('{"base_url": 3}', "'base_url'"),
])
def test_config_errors_name_the_key(config, key):
    with pytest.raises(netcore.ClientError) as info:
        netcore.Client(config)
    e = info.value
    assert isinstance(e, netcore.InvalidConfig)
    assert (e.domain, e.code, e.attempts) == ("NCClientErrorDomain", netcore.ClientCode.INVALID_CONFIG, 0)
    assert key in e.message


def test_config_not_json():
    with pytest.raises(netcore.InvalidConfig) as info:
        netcore.Client("{not json")
    assert "JSON" in info.value.message
    with pytest.raises(FileNotFoundError):
        netcore.Client("/no/such/config.json")
    with pytest.raises(TypeError):
        netcore.Client(42)


def test_closed_client_refuses(base):
    c = netcore.Client({"base_url": base})
    c.close()
    c.close()  # idempotent
    assert c.closed
    with pytest.raises(netcore.InvalidState):
        c.get("/echo")
    with pytest.raises(netcore.InvalidState):
        c.send("GET", "/echo")
    with pytest.raises(netcore.InvalidState):
        c.set_header("X-A", "1")


def test_version(header_version):
    assert (netcore.library_version(), netcore.library_version_number()) == header_version
    assert netcore.__version__ == header_version[0]


# -- plain requests are cached per thread (netcore._request.plain_request) -------

def test_plain_requests_follow_each_client_and_thread(server):
    import threading
    # The same plain call alternates between two clients on one thread: each
    # resolves it against its own base URL (prefix /api or none).
    with netcore.Client({"base_url": server.base_url + "/api", "envelope": {}}) as a, \
            netcore.Client({"base_url": server.base_url, "envelope": {}}) as b:
        for _ in range(3):
            assert a.get("/echo").data["raw_path"] == "/api/echo"
            assert b.get("/echo").data["raw_path"] == "/echo"
        # A plain call and one with options do not share a builder.
        assert a.get("/echo", params={"k": "v"}).data["raw_path"] == "/api/echo?k=v"
        assert a.get("/echo").data["raw_path"] == "/api/echo"
        seen, errors = [], []

        def worker(i):
            try:
                for _ in range(20):
                    seen.append(a.get(f"/echo?t={i % 3}").data["raw_path"])
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert sorted(set(seen)) == ["/api/echo?t=0", "/api/echo?t=1", "/api/echo?t=2"]
        assert len(seen) == 120


# -- output= (nc_request_set_output_file) ---------------------------------------

def test_output_streams_a_2xx_body_to_a_file(client, tmp_path):
    unit = b"0123456789abcdef"
    target = tmp_path / "big.bin"
    r = client.get("/large", params={"bytes": 2_000_000}, output=target)
    assert r.status == 200 and r.body == b""
    data = target.read_bytes()
    assert len(data) == 2_000_000 and data == (unit * 125_000)
    # str paths work too, and a 404 keeps its body on the error and leaves no file.
    other = tmp_path / "missing.bin"
    with pytest.raises(netcore.HTTPError) as info:
        client.get("/status/404", params={"body": "text"}, output=str(other))
    assert info.value.body and not other.exists()
    assert not (tmp_path / "missing.bin.part").exists()
    with pytest.raises(netcore.TransportError) as info:
        client.get("/large", output=tmp_path / "no-such-dir" / "x.bin")
    assert info.value.code == 23 and info.value.attempts == 0
    with pytest.raises(netcore.InvalidArgument):
        client.get("/large", output="")


def test_output_with_asyncio(base, tmp_path):
    import asyncio
    target = tmp_path / "a.bin"

    async def main():
        async with netcore.AsyncClient({"base_url": base}) as c:
            r = await c.get("/large", params={"bytes": 100_000}, output=target)
            assert r.body == b""
    asyncio.run(main())
    assert target.stat().st_size == 100_000


# -- Response.data parsed in Python agrees with the library --------------------

@pytest.mark.parametrize("envelope,path,kwargs", [
    ({}, "/env/code/ok", {}),
    ({}, "/env/code/nodata", {}),
    ({}, "/nocontent", {}),
    ({}, "/env/code/ok", {"envelope": False}),
    (SHAPE_STATUS, "/env/status/ok", {}),
    ({"data": None}, "/env/code/ok", {}),
    (None, "/array", {}),
    (None, "/text", {}),
    (None, "/empty", {}),
    (None, "/env/code/ok", {"envelope": True}),
])
def test_data_found_by_the_binding_equals_the_librarys(base, envelope, path, kwargs):
    from netcore.response import LIBRARY, _read_data
    config = {"base_url": base} if envelope is None else {"base_url": base, "envelope": envelope}
    with netcore.Client(config) as c:
        r = c.get(path, **kwargs)
        assert r._data_key is not LIBRARY
        assert r.data == _read_data(r._handle)


@pytest.mark.parametrize("text", [
    '{"code":0,"data":{"id":7}}', '[1,2,3]', '"s"', '12', '-0.5e3', 'true', 'null',
    '  {"a":1}', '{"a":1}\n', '\t[]\r\n', '{"a":NaN}', '{"a":Infinity}',
    '{"a":1} x', '{"a":1}{"b":2}', '', '   ', '{', '{"a":}', "{'a':1}", 'nul', '[1,]',
    '{"a":"\\ud83d\\ude00"}', '{"a":1,"a":2}', '[' * 5000 + ']' * 5000,
])
def test_fast_json_path_accepts_and_refuses_exactly_as_json_loads(text):
    # Response.data goes straight to json's C scanner when it can (response._loads);
    # whatever it does must be what json.loads does, value or ValueError.
    from netcore.response import _loads

    def outcome(fn):
        try:
            return ("ok", fn(text))
        except ValueError as e:
            return ("ValueError", str(e))
        except RecursionError:
            return ("RecursionError", None)

    got, want = outcome(_loads), outcome(json.loads)
    if want[0] == "ok" and want[1] != want[1]:  # NaN is not equal to itself
        assert got[0] == "ok" and got[1] != got[1]
    else:
        assert got == want


def test_body_bytes_are_exact_for_empty_and_large_bodies(base):
    # Response.body slices the library's buffer by its length (not up to a NUL):
    # every byte of a large body, nothing invented for an empty one.
    from mock_server import PATTERN, PIECE  # the server's own byte pattern
    with netcore.Client({"base_url": base}) as c:
        assert c.get("/empty").body == b""
        n = 3 * PIECE + 17
        body = c.get("/large", params={"bytes": n}).body
        assert len(body) == n
        assert body == (PATTERN * 4)[:n]
