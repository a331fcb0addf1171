"""What every request sends by default, against the mock API's /echo (which joins a
repeated header with ", ", so a second line would show): the User-Agent
("netcore/<version> libcurl/<version>") unless the client's headers or the request
set one, in any case; Accept-Encoding listing every encoding the loaded libcurl
decodes, each of them decoded, its decoded bytes counted against the size cap."""
import ctypes
import ctypes.util

import pytest

import netcore


class _VersionInfo(ctypes.Structure):
    # curl_version_info_data's first members: int age; const char *version;
    # unsigned version_num; const char *host; int features.
    _fields_ = [("age", ctypes.c_int), ("version", ctypes.c_char_p), ("version_num", ctypes.c_uint),
                ("host", ctypes.c_char_p), ("features", ctypes.c_int)]


@pytest.fixture(scope="module")
def curl():
    """libcurl's curl_version_info, read here with ctypes (not through netcore)."""
    lib = ctypes.CDLL(ctypes.util.find_library("curl") or "libcurl.so.4")
    lib.curl_version_info.argtypes, lib.curl_version_info.restype = [ctypes.c_int], ctypes.POINTER(_VersionInfo)
    info = lib.curl_version_info(10).contents
    names = []
    if info.features & (1 << 3):  # CURL_VERSION_LIBZ
        names += ["gzip", "deflate"]
    if info.features & (1 << 23):  # CURL_VERSION_BROTLI
        names.append("br")
    if info.features & (1 << 26):  # CURL_VERSION_ZSTD
        names.append("zstd")
    return {"version": info.version.decode(), "encodings": names}


def sent(client, name, **kwargs):
    return client.get("/echo", **kwargs).data["headers"].get(name)


def test_default_user_agent_names_netcore_and_libcurl(client, curl):
    expected = f"netcore/{netcore.library_version()} libcurl/{curl['version']}"
    assert netcore.default_user_agent() == expected
    assert sent(client, "user-agent") == expected
    assert sent(client, "user-agent") == expected  # every request, once


@pytest.mark.parametrize("name", ["User-Agent", "user-agent", "USER-AGENT"])
def test_the_clients_headers_replace_it_in_any_case(base, name):
    with netcore.Client({"base_url": base, "envelope": {}, "headers": {name: "shop/2.3"}}) as c:
        assert sent(c, "user-agent") == "shop/2.3"
        assert sent(c, "user-agent", headers={"uSeR-aGeNt": "req/1"}) == "req/1"


def test_set_header_and_request_headers_replace_it(client):
    assert sent(client, "user-agent", headers={"user-agent": "req/1"}) == "req/1"
    client.set_header("USER-AGENT", f"shop/2.3 {netcore.default_user_agent()}")
    assert sent(client, "user-agent") == f"shop/2.3 {netcore.default_user_agent()}"
    client.set_header("User-Agent", None)
    assert sent(client, "user-agent") == netcore.default_user_agent()


def test_accept_encoding_lists_what_libcurl_decodes(client, base, curl):
    assert curl["encodings"][:2] == ["gzip", "deflate"]
    assert sent(client, "accept-encoding") == ", ".join(curl["encodings"])
    with netcore.Client({"base_url": base, "envelope": {}, "compression": False}) as off:
        assert sent(off, "accept-encoding") is None


def test_every_advertised_encoding_is_decoded(client, curl):
    for enc in curl["encodings"]:
        r = client.get("/encoding/body", params={"enc": enc})
        assert r.headers["content-encoding"] == enc
        assert (r.data["enc"], r.data["pad"]) == (enc, "a" * 2000)


def test_decoded_bytes_count_against_the_cap_in_every_encoding(base, curl):
    capped = {"base_url": base, "envelope": None, "limits": {"max_response_bytes": 1 << 20}}
    with netcore.Client(capped) as c:
        for enc in curl["encodings"]:
            with pytest.raises(netcore.ResponseTooLarge) as e:
                c.get("/encoding/bomb", params={"enc": enc, "mb": 16})
            assert "max_response_bytes" in e.value.message
        assert len(c.get("/encoding/bomb", params={"enc": curl["encodings"][-1], "mb": 1}).body) == 1 << 20
