"""Issue 34's API layer from Python, against the mock API: endpoint parameter
declarations refused with nothing sent (the server's own counters), an endpoint's
own envelope and flags, adapters that rewrite the query and the body (the server
verifies a signed query), common params and messages changed at run time, and a
server's 304 marked not_modified."""
import json

import pytest

import netcore
from mockserver_client import MockServer

DECLARED = {
    "user.find": {"path": "/echo", "additional_params": False, "params": {
        "name": {"type": "string", "required": True, "max_length": 5, "pattern": "^[a-z]+$"},
        "age": {"type": "integer", "min": 0, "max": 130},
        "role": {"enum": ["admin", "user"]}}},
}


def fnv1a64(text):
    h = 0xcbf29ce484222325
    for b in text.encode("utf-8"):
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


@pytest.mark.parametrize("params, name, rule", [
    ({}, "'name'", "'required'"),
    ({"name": 7}, "'name'", "'type'"),
    ({"name": "abcdef"}, "'name'", "'max_length'"),
    ({"name": "AB"}, "'name'", "'pattern'"),
    ({"name": "ab", "age": -1}, "'age'", "'min'"),
    ({"name": "ab", "age": 131}, "'age'", "'max'"),
    ({"name": "ab", "role": "root"}, "'role'", "'enum'"),
    ({"name": "ab", "extra": 1}, "'extra'", "'additional_params'"),
])
def test_every_rule_is_refused_and_nothing_is_sent(params, name, rule):
    with MockServer() as own, netcore.Client({"base_url": own.base_url, "envelope": {},
                                              "endpoints": DECLARED}) as c:
        with pytest.raises(netcore.InvalidRequest) as info:
            c.call("user.find", params=params)
        assert name in info.value.message and rule in info.value.message
        assert info.value.attempts == 0
        assert own.stats()["total"] == 0
        assert c.call("user.find", name="ab", age=3, role="user").data["query"]["age"] == ["3"]
        assert own.stats()["paths"] == {"/echo": 1}


def test_define_endpoint_with_params_flags_and_envelope(base):
    with netcore.Client({"base_url": base, "envelope": {},
                         "retry": {"max_attempts": 3, "initial_ms": 1}}) as c:
        c.define_endpoint("page", path="/echo", params={"page": {"type": "integer", "min": 1}},
                          additional_params=False)
        with pytest.raises(netcore.InvalidRequest, match="rule 'min'"):
            c.call("page", page=0)
        c.define_endpoint("once", path="/flaky", flags=["no_retry"], envelope=False)
        with pytest.raises(netcore.HTTPError) as info:
            c.call("once", key="py-decl-once", fails=1)
        assert info.value.attempts == 1
        c.define_endpoint("whole", path="/object",
                          envelope={"code": None, "status": "hello", "ok_status": ["world"], "data": ""})
        assert c.call("whole").data == {"hello": "world"}
        with pytest.raises(netcore.InvalidArgument):
            c.define_endpoint("bad", path="/x", params={"a": {"pattern": "(a|b)"}})


def test_an_adapter_signs_the_query_and_the_server_verifies(base):
    seen = []

    def sign(out):
        params = dict(out.params or {})
        seen.append(out.params)
        params["ts"] = "1700000000"
        text = "&".join(f"{k}={v}" for k, v in sorted((k, str(v)) for k, v in params.items()))
        out.set_query("ts", "1700000000")
        out.set_query("sign", fnv1a64("qsecret\n" + text))

    with netcore.Client({"base_url": base, "envelope": {}, "common_params": {"app": "demo"},
                         "endpoints": {"q": {"path": "/qsigned"}}}, auth=sign) as c:
        assert c.call("q", a="x y").data["signed"] == "a=x y&app=demo&ts=1700000000"
        assert seen == [{"a": "x y", "app": "demo"}]


def test_an_adapter_replaces_a_body_field(base):
    def encrypt(out):
        body = json.loads(out.body)
        body["password"] = "enc:" + body["password"][::-1]
        out.set_body(json.dumps(body).encode(), "application/json")

    with netcore.Client({"base_url": base, "envelope": {}, "signing": {"secret": "mock-signing-secret"},
                         "endpoints": {"login": {"method": "POST", "path": "/echo", "encoding": "json"},
                                       "signed": {"method": "POST", "path": "/signed", "encoding": "json"}}},
                        auth=encrypt) as c:
        echo = c.call("login", user="ada", password="secret").data
        assert echo["json"] == {"user": "ada", "password": "enc:terces"}
        assert c.call("signed", user="ada", password="secret").data["verified"] is True


def test_common_params_change_at_run_time(base):
    with netcore.Client({"base_url": base, "envelope": {}}) as c:
        c.set_common_param("lang", "fr")
        c.set_common_param("v", 2)
        assert c.get("/echo").data["query"] == {"lang": ["fr"], "v": ["2"]}
        c.set_common_param("lang", None)
        assert c.get("/echo").data["query"] == {"v": ["2"]}
        with pytest.raises(netcore.InvalidArgument):
            c.set_common_param("x", {"a": 1})


def test_messages_for_people_and_a_locale_switch(base, closed_port):
    english = {"TRANSPORT": "Check your connection.", "API.1001": "Wrong password.",
               "HTTP.5xx": "The server had a problem."}
    with netcore.Client({"base_url": base, "envelope": {}, "messages": english}) as c:
        with pytest.raises(netcore.APIError) as info:
            c.get("/env/code/fail")
        assert info.value.user_message == "Wrong password."
        assert info.value.message == "wrong password"
        with pytest.raises(netcore.HTTPError) as info:
            c.get("/status/503", params={"body": "text"})
        assert info.value.user_message == "The server had a problem."
        with pytest.raises(netcore.TransportError) as info:
            c.get(f"http://127.0.0.1:{closed_port}/x")
        assert info.value.user_message == "Check your connection."
        with pytest.raises(netcore.ParseError) as info:
            c.get("/badjson")
        assert info.value.user_message is None
        c.set_messages({"API.1001": "Mot de passe incorrect."})
        with pytest.raises(netcore.APIError) as info:
            c.get("/env/code/fail")
        assert info.value.user_message == "Mot de passe incorrect."
        with pytest.raises(netcore.InvalidArgument):
            c.set_messages({"NETWORK": "x"})
        c.set_messages(None)
        with pytest.raises(netcore.APIError) as info:
            c.get("/env/code/fail")
        assert info.value.user_message is None


def test_a_servers_304_is_not_modified(base):
    with netcore.Client({"base_url": base}) as c:
        r = c.get("/status/304")
        assert r.status == 304 and r.not_modified and not r.from_cache
