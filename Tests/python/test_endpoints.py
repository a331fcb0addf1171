"""The endpoint catalog from Python: client.call / AsyncClient.call and
define_endpoint, against the mock API (/echo describes what arrived)."""
import asyncio

import pytest

import netcore

CATALOG = {
    "echo.get": {"path": "/echo"},
    "echo.route": {"path": "/{route}"},
    "echo.json": {"method": "POST", "path": "/echo", "encoding": "json"},
    "user.get": {"path": "/users/{id}"},
    "user.login": {"method": "POST", "path": "/login", "encoding": "json"},
}


@pytest.fixture
def catalog_client(base):
    with netcore.Client({"base_url": base, "envelope": {}, "endpoints": CATALOG}) as c:
        yield c


def test_call_with_keyword_params(catalog_client):
    assert catalog_client.call("user.get", id=7).data == {"id": 7, "name": "Ada"}


def test_call_fills_the_path_and_sends_the_rest(catalog_client):
    echo = catalog_client.call("echo.route", route="echo", page=2).data
    assert echo["path"] == "/echo"
    assert echo["query"] == {"page": ["2"]}


def test_params_dict_for_names_that_are_not_identifiers(catalog_client):
    echo = catalog_client.call("echo.json", params={"user-name": "ada", "a b": 1}, x=True).data
    assert echo["json"] == {"user-name": "ada", "a b": 1, "x": True}
    assert echo["content_type"] == "application/json"


def test_placeholder_values_are_escaped(catalog_client):
    with pytest.raises(netcore.APIError) as info:
        catalog_client.call("user.get", id="a/b c")
    assert info.value.code == 404001
    assert info.value.message == "no such user: a%2Fb%20c"  # one segment, escaped


def test_login_returns_a_token_and_a_business_error(catalog_client):
    assert catalog_client.call("user.login", username="ada", password="secret").data["token"] == "tok-ada"
    with pytest.raises(netcore.APIError) as info:
        catalog_client.call("user.login", username="ada", password="nope")
    assert info.value.code == 1001


def test_unknown_endpoint_and_missing_placeholder_are_invalid_requests(catalog_client):
    with pytest.raises(netcore.InvalidRequest) as info:
        catalog_client.call("no.such")
    assert "'no.such'" in info.value.message
    assert info.value.domain == "NCClientErrorDomain"
    with pytest.raises(netcore.InvalidRequest) as info:
        catalog_client.call("user.get", name="x")
    assert "'id'" in info.value.message


def test_define_endpoint_and_redefine(catalog_client):
    catalog_client.define_endpoint("ping", path="/echo")
    assert catalog_client.call("ping").data["method"] == "GET"
    catalog_client.define_endpoint("ping", method="PUT", path="/echo", encoding="json",
                                   headers={"X-E": "1"}, timeout=5, envelope=True,
                                   retry={"max_attempts": 2}, cache="network_only", group="g")
    echo = catalog_client.call("ping", a=1).data
    assert echo["method"] == "PUT"
    assert echo["json"] == {"a": 1}
    assert echo["headers"]["x-e"] == "1"


def test_define_endpoint_with_connect_read_timeouts(catalog_client):
    # (connect, read): the endpoint's connect and idle timeouts (since 0.4).
    catalog_client.define_endpoint("stall", path="/stall?bytes=10&ms=4000", envelope=False, timeout=(5, 0.3))
    with pytest.raises(netcore.Timeout) as info:
        catalog_client.call("stall")
    assert info.value.timeout == "idle" and "idle_timeout_ms (300 ms)" in info.value.message


def test_define_endpoint_without_envelope_reads_raw_data(catalog_client):
    catalog_client.define_endpoint("raw", path="/echo", envelope=False)
    assert catalog_client.call("raw").data["code"] == 0


@pytest.mark.parametrize("kwargs", [
    {"path": "/x", "encoding": "xml"},
    {"path": "/x/{id"},
    {"path": "/x", "method": "G T"},
    {"path": "/x", "retry": True},
    {"path": "/x", "timeout": -1},
])
def test_define_endpoint_refuses_bad_values(catalog_client, kwargs):
    with pytest.raises(netcore.InvalidArgument):
        catalog_client.define_endpoint("bad", **kwargs)
    with pytest.raises(netcore.InvalidRequest):
        catalog_client.call("bad")


def test_bad_names_and_params_are_refused(catalog_client):
    with pytest.raises(netcore.InvalidArgument):
        catalog_client.call("")
    with pytest.raises(netcore.InvalidArgument):
        catalog_client.call("echo.get", x=object())
    with pytest.raises(netcore.InvalidArgument):
        catalog_client.define_endpoint("", path="/x")


def test_bad_config_endpoint_names_the_key(base):
    with pytest.raises(netcore.InvalidConfig) as info:
        netcore.Client({"base_url": base, "endpoints": {"u": {"path": "/x", "colour": 1}}})
    assert "'endpoints.u.colour'" in info.value.message


def test_async_call(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base, "envelope": {}, "endpoints": CATALOG}) as c:
            user = (await c.call("user.get", id=7)).data
            c.define_endpoint("late", path="/echo")
            echo = (await c.call("late", params={"q-q": "1"})).data
            with pytest.raises(netcore.InvalidRequest):
                await c.call("user.get")
            return user, echo
    user, echo = asyncio.run(main())
    assert user == {"id": 7, "name": "Ada"}
    assert echo["query"] == {"q-q": ["1"]}
