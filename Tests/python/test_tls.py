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


# -- the CA bundle of the environment (CURL_CA_BUNDLE, SSL_CERT_FILE) --------------
# The variables are process-wide and read when a client is made: each case runs in
# a process of its own, with exactly the variables it names.

CA_ENV_SCRIPT = r"""
import json, os, sys
import netcore
url, config, late = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
def outcome(client):
    try:
        return {"status": client.get(url).status}
    except netcore.Error as e:
        return {"domain": e.domain, "code": e.code, "message": e.message}
with netcore.Client(config) as c:
    before = outcome(c)
    # The environment as it is now reaches clients made from now on, not this one.
    for name, value in late.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    with netcore.Client(config) as later:
        print(json.dumps({"first": before, "again": outcome(c), "later": outcome(later)}))
"""


def with_ca_env(tls, libpath, env, config=None, late=None, profile="good"):
    """Runs CA_ENV_SCRIPT with only the CA variables of ``env`` (others removed)."""
    child = {k: v for k, v in os.environ.items() if k not in ("CURL_CA_BUNDLE", "SSL_CERT_FILE")}
    child.update(env, NETCORE_LIBRARY=libpath)
    child["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "bindings", "python"), child.get("PYTHONPATH", "")])
    p = subprocess.run([sys.executable, "-c", CA_ENV_SCRIPT, tls["url"](profile), json.dumps(config or {}),
                        json.dumps(late or {})], env=child, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.parametrize("name", ["SSL_CERT_FILE", "CURL_CA_BUNDLE"])
def test_a_ca_bundle_named_by_the_environment_is_trusted(tls, libpath, name):
    seen = with_ca_env(tls, libpath, {name: tls["files"]["ca"]})
    assert seen["first"] == seen["again"] == seen["later"] == {"status": 200}
    # It replaces the system store: another server's CA is not trusted.
    seen = with_ca_env(tls, libpath, {name: tls["files"]["ca"]}, profile="untrusted")
    assert (seen["first"]["domain"], seen["first"]["code"]) == ("NCTransportErrorDomain", 60)
    assert "CURL_CA_BUNDLE or SSL_CERT_FILE" in seen["first"]["message"]


def test_curl_ca_bundle_wins_and_an_empty_variable_is_unset(tls, libpath):
    both = with_ca_env(tls, libpath, {"CURL_CA_BUNDLE": tls["files"]["ca"], "SSL_CERT_FILE": tls["files"]["other_ca"]})
    assert both["first"] == {"status": 200}
    empty = with_ca_env(tls, libpath, {"CURL_CA_BUNDLE": "", "SSL_CERT_FILE": tls["files"]["ca"]})
    assert empty["first"] == {"status": 200}
    other = with_ca_env(tls, libpath, {"CURL_CA_BUNDLE": tls["files"]["other_ca"], "SSL_CERT_FILE": tls["files"]["ca"]})
    assert other["first"]["code"] == 60


def test_the_configured_ca_wins_over_the_environment(tls, libpath):
    env = {"SSL_CERT_FILE": tls["files"]["ca"]}
    seen = with_ca_env(tls, libpath, env, config={"tls": {"ca_file": tls["files"]["other_ca"]}})
    assert (seen["first"]["domain"], seen["first"]["code"]) == ("NCTransportErrorDomain", 60)
    seen = with_ca_env(tls, libpath, {"SSL_CERT_FILE": tls["files"]["other_ca"]},
                       config={"tls": {"ca_path": tls["files"]["ca_dir"]}})
    assert seen["first"] == {"status": 200}


def test_the_environment_is_read_when_the_client_is_made(tls, libpath):
    # Set after the first client was made: only the later client trusts the CA.
    seen = with_ca_env(tls, libpath, {}, late={"SSL_CERT_FILE": tls["files"]["ca"]})
    assert (seen["first"]["code"], seen["again"]["code"], seen["later"]) == (60, 60, {"status": 200})
    # Unset after: the first client keeps it.
    seen = with_ca_env(tls, libpath, {"SSL_CERT_FILE": tls["files"]["ca"]}, late={"SSL_CERT_FILE": None})
    assert (seen["first"], seen["again"], seen["later"]["code"]) == ({"status": 200}, {"status": 200}, 60)


def test_a_missing_bundle_fails_https_with_77_naming_the_variables(tls, libpath):
    seen = with_ca_env(tls, libpath, {"SSL_CERT_FILE": tls["files"]["missing"]})
    assert (seen["first"]["domain"], seen["first"]["code"]) == ("NCTransportErrorDomain", 77)
    assert "CURL_CA_BUNDLE or SSL_CERT_FILE" in seen["first"]["message"]


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
