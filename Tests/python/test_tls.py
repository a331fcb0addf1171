"""TLS and proxy keyword arguments of netcore.Client / AsyncClient (requests' and
httpx's names: verify=, cert=, proxy=, http2=) against the HTTPS servers of
Tests/Support/tls_server.py, whose CA, server and client certificates are made at
start-up with the openssl tool (never committed). Verification is always on:
verify=False is refused."""
import asyncio
import json
import os
import subprocess
import sys

import pytest

import netcore

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="module")
def tls():
    p = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests", "Support", "tls_server.py"),
                          "--exit-on-stdin-eof"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        info = json.loads(p.stdout.readline())
        info["url"] = lambda profile, path="/": f"https://127.0.0.1:{info['ports'][profile]}{path}"
        yield info
    finally:
        p.stdin.close()
        p.wait(timeout=10)


def served(response):
    return response.json()["data"]


def test_an_unknown_ca_fails_by_default(tls):
    with netcore.Client({}) as c:
        with pytest.raises(netcore.TransportError) as e:
            c.get(tls["url"]("good"))
    assert e.value.code == 60
    assert "tls.ca_file" in e.value.message


@pytest.mark.parametrize("profile", ["selfsigned", "expired", "wronghost", "untrusted"])
def test_bad_certificates_fail_with_the_test_ca_too(tls, profile):
    with netcore.Client({}, verify=tls["files"]["ca"]) as c:
        with pytest.raises(netcore.TransportError) as e:
            c.get(tls["url"](profile))
    assert e.value.code == 60


def test_verify_names_the_ca_file_or_directory(tls):
    with netcore.Client({}, verify=tls["files"]["ca"]) as c:
        assert served(c.get(tls["url"]("good", "/a")))["path"] == "/a"
    with netcore.Client({}, verify=tls["files"]["ca_dir"]) as c:  # a hashed directory
        assert c.get(tls["url"]("good")).status == 200
    # A development server's self-signed certificate, trusted by naming it.
    with netcore.Client({}, verify=tls["files"]["selfsigned"]) as c:
        assert c.get(tls["url"]("selfsigned")).status == 200


def test_verify_false_is_refused(tls):
    with pytest.raises(netcore.InvalidConfig) as e:
        netcore.Client({}, verify=False)
    assert "verify=False is not supported" in e.value.message
    assert 'verify="ca.pem"' in e.value.message
    with pytest.raises(netcore.InvalidConfig):
        netcore.AsyncClient({}, verify=False)


def test_a_missing_file_is_refused_naming_the_key(tls):
    with pytest.raises(netcore.InvalidConfig) as e:
        netcore.Client({}, verify=tls["files"]["missing"])
    assert "'tls.ca_file'" in e.value.message and "does not exist" in e.value.message
    with pytest.raises(netcore.InvalidConfig) as e:
        netcore.Client({}, cert=(tls["files"]["client_cert"], tls["files"]["missing"]))
    assert "'tls.client_key'" in e.value.message


def test_client_certificate_as_pair_or_one_file(tls):
    files = tls["files"]
    with netcore.Client({}, verify=files["ca"], cert=(files["client_cert"], files["client_key"])) as c:
        assert served(c.get(tls["url"]("clientauth")))["client_cert"] == "netcore test client"
    with netcore.Client({}, verify=files["ca"], cert=files["client_both"]) as c:
        assert served(c.get(tls["url"]("clientauth")))["client_cert"] == "netcore test client"
    with netcore.Client({}, verify=files["ca"]) as c:
        with pytest.raises(netcore.TransportError) as e:
            c.get(tls["url"]("clientauth"))
    assert e.value.code == 35 and "tls.client_cert" in e.value.message


def test_pins_through_the_configuration(tls):
    ok = {"tls": {"pinned_public_keys": [tls["pins"]["server"]]}}
    with netcore.Client(ok, verify=tls["files"]["ca"]) as c:
        assert c.get(tls["url"]("good")).status == 200
    wrong = {"tls": {"pinned_public_keys": [tls["pins"]["other"]]}}
    # verify= merges into the configuration's "tls": the pins stay.
    with netcore.Client(wrong, verify=tls["files"]["ca"]) as c:
        with pytest.raises(netcore.TransportError) as e:
            c.get(tls["url"]("good"))
    assert e.value.code == 90


def test_http2(tls):
    with netcore.Client({}, verify=tls["files"]["ca"], http2=True) as c:
        r = c.get(tls["url"]("h2"))
        assert served(r)["http"] == "2"
        assert r.http_version == "HTTP/2" and r.metrics["http_version"] == "HTTP/2"
    with netcore.Client({}, verify=tls["files"]["ca"]) as c:
        r = c.get(tls["url"]("h2"))
        assert served(r)["http"] == "1.1"
        assert r.http_version == "HTTP/1.1"


def test_async_client_takes_the_same_arguments(tls):
    async def main():
        async with netcore.AsyncClient({}, verify=tls["files"]["ca"], cert=tls["files"]["client_both"]) as c:
            return served(await c.get(tls["url"]("clientauth")))
    assert asyncio.run(main())["client_cert"] == "netcore test client"


# --- proxy= (the mock server plays the proxy; the origin is a closed port) -------

def test_proxy_argument_carries_requests(server, closed_port):
    target = f"http://127.0.0.1:{closed_port}/api/echo?via=proxy"
    with netcore.Client({"envelope": {}}, proxy=server.base_url) as c:
        assert c.get(target).data["raw_path"] == target
    with netcore.Client({"envelope": {}}, proxy=None) as c:
        with pytest.raises(netcore.TransportError) as e:
            c.get(target)
    assert e.value.code == 7


def test_no_proxy_from_the_configuration(server, closed_port):
    config = {"envelope": {}, "proxy": {"no_proxy": "127.0.0.1"}}
    with netcore.Client(config, proxy=server.base_url) as c:
        with pytest.raises(netcore.TransportError) as e:
            c.get(f"http://127.0.0.1:{closed_port}/api/echo")
    assert e.value.code == 7


def test_a_bad_proxy_url_is_refused():
    with pytest.raises(netcore.InvalidConfig) as e:
        netcore.Client({}, proxy="ftp://proxy:21")
    assert "'proxy.url'" in e.value.message


def test_what_was_negotiated_is_in_the_metrics_and_the_debug_log(tls, caplog):
    # The attempt log is kept with an event handler or a log at DEBUG: each
    # attempt says its HTTP and TLS versions; the DEBUG line says them too.
    import logging
    caplog.set_level(logging.DEBUG, logger="netcore")
    with netcore.Client({}, verify=tls["files"]["ca"], http2=True) as c:
        r = c.get(tls["url"]("h2"))
        attempt = r.metrics["attempt_log"][0]
        assert attempt["http_version"] == "HTTP/2"
        assert attempt["tls_version"] == served(r)["tls_version"] == "TLSv1.3"
    assert any("HTTP/2, TLSv1.3)" in rec.getMessage() for rec in caplog.records), caplog.text
