"""Every error class with its exact fields, as the C library reports them."""
import pickle
import threading

import pytest

import netcore
from netcore import errors


def fields(e):
    return {k: getattr(e, k) for k in ("domain", "domain_code", "code", "code_str", "http_status",
                                       "trace_id", "data", "attempts", "retryable", "auth_expired")}


def test_api_error_login_wrong_password(client):
    with pytest.raises(netcore.APIError) as info:
        client.post("/login", json={"username": "ada", "password": "nope"})
    e = info.value
    assert fields(e) == {
        "domain": "NCAPIErrorDomain", "domain_code": 4, "code": 1001, "code_str": "1001",
        "http_status": 200, "trace_id": "trace-login", "data": {"attempts_left": 2},
        "attempts": 1, "retryable": False, "auth_expired": False,
    }
    assert e.message == "wrong username or password"
    assert e.body == b'{"code":1001,"msg":"wrong username or password","traceId":"trace-login","data":{"attempts_left":2}}'
    assert e.response is not None and e.response.status == 200
    assert e.response.json()["code"] == 1001
    assert isinstance(e, netcore.Error) and not isinstance(e, netcore.ClientError)
    assert e.info["domain"] == "NCAPIErrorDomain"
    assert str(e) == "wrong username or password (NCAPIErrorDomain 1001, HTTP 200, trace trace-login)"


def test_api_error_env_code_fail(client):
    with pytest.raises(netcore.APIError) as info:
        client.get("/env/code/fail")
    e = info.value
    assert (e.code, e.code_str, e.message, e.data, e.trace_id) == (
        1001, "1001", "wrong password", {"field": "password"}, None)
    assert e.body == b'{"code":1001,"msg":"wrong password","data":{"field":"password"}}'
    assert e.response.data == {"field": "password"}  # the envelope's data field


def test_api_error_string_code(client):
    with pytest.raises(netcore.APIError) as info:
        client.get("/env/code/string")
    assert (info.value.code, info.value.code_str, info.value.message) == (0, "E1001", "account locked")


def test_api_error_auth_expired(base):
    config = {"base_url": base, "envelope": {"auth_expired_codes": [401001, 401002]}}
    with netcore.Client(config) as c:
        with pytest.raises(netcore.APIError) as info:
            c.get("/profile")
    assert info.value.auth_expired is True
    assert (info.value.code, info.value.trace_id) == (401001, "trace-auth")


def test_http_error_404(client):
    with pytest.raises(netcore.HTTPError) as info:
        client.get("/status/404")
    e = info.value
    assert fields(e) == {
        "domain": "NCHTTPErrorDomain", "domain_code": 3, "code": 404, "code_str": "404",
        "http_status": 404, "trace_id": None, "data": None, "attempts": 1,
        "retryable": False, "auth_expired": False,
    }
    assert e.body == b'{"error":"status 404"}'
    assert "404" in e.message
    assert e.response.status == 404 and e.response.json() == {"error": "status 404"}


def test_http_error_500_is_retryable(raw_client):
    with pytest.raises(netcore.HTTPError) as info:
        raw_client.get("/status/500", params={"body": "text"})
    assert (info.value.code, info.value.retryable, info.value.body) == (500, True, b"status 500")


def test_envelope_wins_over_http_status(client):
    with pytest.raises(netcore.APIError) as info:
        client.get("/status/500", params={"body": "envelope", "code": 5001})
    e = info.value
    assert (e.code, e.http_status, e.trace_id, e.data) == (5001, 500, "trace-500", {"retry": True})


def test_transport_error_closed_port(closed_port):
    with netcore.Client({"envelope": {}}) as c:
        with pytest.raises(netcore.TransportError) as info:
            c.get(f"http://127.0.0.1:{closed_port}/x")
    e = info.value
    assert fields(e) == {
        "domain": "NCTransportErrorDomain", "domain_code": 2, "code": 7, "code_str": "7",
        "http_status": 0, "trace_id": None, "data": None, "attempts": 1,
        "retryable": True, "auth_expired": False,
    }
    assert e.body == b"" and e.response is None
    assert str(closed_port) in e.message


def test_transport_error_url_libcurl_refuses_sent_nothing():
    # The port is out of range: libcurl refuses the URL before connecting, so the
    # error says no attempt was made (a closed port above made one).
    with netcore.Client({"envelope": {}}) as c:
        with pytest.raises(netcore.TransportError) as info:
            c.get("http://127.0.0.1:99999/x")
    e = info.value
    assert (e.domain_code, e.code, e.attempts, e.http_status, e.retryable) == (2, 3, 0, 0, False)
    assert e.message == ("GET http://127.0.0.1:99999/x failed: URL using bad/illegal format or missing URL. "
                         "See libcurl error 3.")


def test_transport_timeout(client):
    with pytest.raises(netcore.Timeout) as info:
        client.get("/slow", params={"ms": 3000}, timeout=0.2)
    e = info.value
    assert isinstance(e, netcore.TransportError)
    assert (e.code, e.retryable, e.http_status, e.response) == (28, True, 0, None)


def test_parse_error_text(client):
    with pytest.raises(netcore.ParseError) as info:
        client.get("/text")
    e = info.value
    assert fields(e) == {
        "domain": "NCParseErrorDomain", "domain_code": 5, "code": 1, "code_str": "1",
        "http_status": 200, "trace_id": None, "data": None, "attempts": 1,
        "retryable": False, "auth_expired": False,
    }
    assert e.code == netcore.ParseCode.INVALID_JSON
    assert e.body == b"hello, world"
    assert "line 1" in e.message
    assert e.response.text == "hello, world"


def test_parse_error_array(client):
    with pytest.raises(netcore.ParseError) as info:
        client.get("/array")
    e = info.value
    assert (e.code, e.code_str, e.http_status, e.body) == (netcore.ParseCode.NOT_OBJECT, "2", 200, b"[1,2,3]")
    assert e.response.json() == [1, 2, 3]


def test_parse_error_missing_field(client):
    with pytest.raises(netcore.ParseError) as info:
        client.get("/env/code/missing")
    assert info.value.code == netcore.ParseCode.MISSING_FIELD
    assert "code" in info.value.message


def test_parse_error_duplicate_key(client):
    # {"code":7,"msg":"denied","code":0}: a proxy reading the first "code" sees a
    # failure; the envelope refuses the body rather than take the last one.
    with pytest.raises(netcore.ParseError) as info:
        client.get("/fault/json/duplicate-code")
    e = info.value
    assert (e.code, e.code_str, e.http_status) == (netcore.ParseCode.DUPLICATE_KEY, "6", 200)
    assert 'the key "code" twice' in e.message
    assert not e.retryable


def test_client_error_invalid_request():
    with netcore.Client({}) as c:
        with pytest.raises(netcore.InvalidRequest) as info:
            c.get("/relative")
    e = info.value
    assert (e.domain, e.domain_code, e.code, e.attempts, e.http_status) == (
        "NCClientErrorDomain", 1, netcore.ClientCode.INVALID_REQUEST, 0, 0)
    assert isinstance(e, netcore.ClientError)


@pytest.mark.parametrize("method, path, why", [
    ("GET", "/search?q=a b", "' ' at index 11: a URL holds no spaces or control characters"),
    ("GET", "/a\tb", "'\\t' at index 2"),
    ("GE T", "/echo", "the method must be an HTTP token"),
    ("GET", "ftp://127.0.0.1/x", "only http:// and https:// URLs are sent"),
    ("GET", "localhost:8080/api", "only http:// and https:// URLs are sent; a path starts with '/'"),
    ("GET", "", "the path or URL is empty"),
])
def test_a_refused_url_says_why(client, method, path, why):
    """nc_request_new() returns only NC_ERR_INVALID_ARGUMENT: the binding says which rule."""
    with pytest.raises(netcore.InvalidArgument) as info:
        client.request(method, path)
    assert why in str(info.value) and repr(path) in str(info.value)


def test_cancelled_via_task_cancel(client):
    task = client.send("GET", "/slow", params={"ms": 5000})
    task.cancel()
    e = task.exception(timeout=5)
    assert isinstance(e, netcore.Cancelled) and isinstance(e, netcore.ClientError)
    assert (e.domain, e.code, e.code_str, e.http_status, e.retryable, e.response) == (
        "NCClientErrorDomain", 1, "1", 0, False, None)
    assert e.message
    with pytest.raises(netcore.Cancelled):
        task.result()


def test_shutdown_via_close_with_requests_in_flight(base):
    c = netcore.Client({"base_url": base, "envelope": {}})
    got, lock = [], threading.Lock()

    def callback(response, error):
        with lock:
            got.append((response, error))

    tasks = [c.send("GET", "/slow", params={"ms": 5000}, callback=callback) for _ in range(3)]
    c.close()  # returns after every callback ran
    assert len(got) == 3
    for response, error in got:
        assert response is None
        assert isinstance(error, netcore.ShutDown)
        assert (error.domain, error.code, error.code_str) == ("NCClientErrorDomain", 6, "6")
    assert all(t.done() for t in tasks)
    tasks[0].cancel()  # a task outlives its client: cancel is then a no-op


def test_sync_request_in_flight_ends_with_shutdown(base):
    c = netcore.Client({"base_url": base, "envelope": {}})
    out = []

    def worker():
        try:
            c.get("/slow", params={"ms": 5000})
        except netcore.Error as e:
            out.append(e)

    t = threading.Thread(target=worker)
    t.start()
    import time
    time.sleep(0.2)
    c.close()
    t.join(5)
    assert not t.is_alive()
    assert len(out) == 1 and isinstance(out[0], netcore.ShutDown)


def test_error_class_table():
    for code, klass in [(1, netcore.Cancelled), (2, netcore.Unreachable), (3, netcore.InvalidRequest),
                        (4, netcore.InvalidConfig), (5, netcore.ResponseTooLarge),
                        (6, netcore.ShutDown), (7, netcore.HeadersTooLarge),
                        (8, netcore.InternalError), (99, netcore.ClientError)]:
        e = netcore.Error.from_info({"domain_code": 1, "code": code, "message": "m"})
        assert type(e) is klass and e.code == code
    for domain, klass in [(2, netcore.TransportError), (3, netcore.HTTPError),
                          (4, netcore.APIError), (5, netcore.ParseError), (42, netcore.Error)]:
        assert type(netcore.Error.from_info({"domain_code": domain, "code": 1})) is klass
    assert type(netcore.Error.from_info({"domain_code": 2, "code": 28})) is netcore.Timeout
    assert issubclass(netcore.InvalidConfig, ValueError)


def test_errors_pickle(client):
    with pytest.raises(netcore.APIError) as info:
        client.get("/env/code/fail")
    copy = pickle.loads(pickle.dumps(info.value))
    assert type(copy) is netcore.APIError
    assert (copy.code, copy.message, copy.data, copy.body) == (
        1001, "wrong password", {"field": "password"}, info.value.body)


def test_status_errors_are_builtin_subclasses(client):
    with pytest.raises(netcore.InvalidArgument) as info:
        client.get("/echo", headers={"X-A": "v\r\nX-Injected: 1"})
    assert isinstance(info.value, ValueError) and isinstance(info.value, netcore.StatusError)
    assert info.value.status == netcore.Status.INVALID_ARGUMENT
    assert info.value.status_name == "NC_ERR_INVALID_ARGUMENT"
    assert info.value.function == "nc_request_set_header"
    assert "X-A" in str(info.value)
    with pytest.raises(ValueError):
        client.get("/echo", headers={"X-A": "nul\x00"})
    with pytest.raises(netcore.InvalidArgument):
        client.request("BAD METHOD", "/echo")
    assert issubclass(netcore.InvalidState, RuntimeError)
    assert issubclass(netcore.NoMemory, MemoryError)
    refused = errors.error_for(2, function="f")
    assert refused.__class__ is netcore.InvalidState
    assert (refused.status_name, refused.function, str(refused)) == (
        "NC_ERR_INVALID_STATE", "f", "f() returned NC_ERR_INVALID_STATE")


def test_errors_md_lists_every_status_domain_and_code(header_macros):
    """docs/errors.md gives every NC_ERR_*, NC_DOMAIN_*, NC_CLIENT_* and NC_PARSE_*
    of the header (with its typical cause and fix)."""
    import os
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    with open(os.path.join(root, "docs", "errors.md"), encoding="utf-8") as f:
        text = f.read()
    names = [n for n in header_macros
             if n.startswith(("NC_ERR_", "NC_DOMAIN_", "NC_CLIENT_", "NC_PARSE_")) or n == "NC_OK"]
    assert len(names) > 20
    missing = [n for n in names if f"`{n}`" not in text]
    assert missing == []
