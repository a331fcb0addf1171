"""The environment's proxy variables (http_proxy, https_proxy, all_proxy, no_proxy
and their upper-case forms): read once when a client is made and applied as libcurl
applies them (Sources/NetCoreBase/Transport/ProxyEnvironment.swift). Each case runs in
a subprocess with its own environment; the loopback mock server plays the proxy (it
answers absolute-form request targets, and refuses CONNECT with 501). The origin is
a loopback port nothing listens on: reached directly, a request fails at once with
"couldn't connect" (transport 7), with no name lookup that could wait on DNS."""
import json
import os
import subprocess
import sys

import pytest

VARIABLES = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
             "no_proxy", "NO_PROXY")

SCRIPT = r'''
import json, os, sys
import netcore
url, late = sys.argv[1], sys.argv[2]
with netcore.Client({"envelope": {}, "timeout_ms": 10000}) as c:
    if late:
        os.environ["http_proxy"] = late   # after the client was made: not used
    try:
        r = c.get(url)
        out = {"raw_path": r.data["raw_path"], "host": r.data["headers"].get("host")}
    except netcore.Error as e:
        out = {"domain": e.domain, "code": e.code, "message": e.message}
print(json.dumps(out))
'''


@pytest.fixture
def origin(closed_port):
    return f"127.0.0.1:{closed_port}"


@pytest.fixture
def run(server):
    def run(url, late="", **env_vars):
        env = {k: v for k, v in os.environ.items() if k not in VARIABLES}
        env.update(env_vars)
        p = subprocess.run([sys.executable, "-c", SCRIPT, url, late], env=env,
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)
    return run


def test_http_proxy_carries_http_requests(run, server, origin):
    out = run(f"http://{origin}/api/echo?x=1", http_proxy=server.base_url)
    # The proxy got the absolute-form target and the origin's Host.
    assert out == {"raw_path": f"http://{origin}/api/echo?x=1", "host": origin}


def test_all_proxy_is_the_fallback_and_upper_case_works(run, server, origin):
    assert run(f"http://{origin}/api/echo", ALL_PROXY=server.base_url)["raw_path"] == \
        f"http://{origin}/api/echo"
    assert run(f"http://{origin}/api/echo", all_proxy=server.base_url)["raw_path"] == \
        f"http://{origin}/api/echo"


def test_upper_case_http_proxy_is_ignored_as_libcurl_does(run, server, origin):
    # HTTP_PROXY can come from a "Proxy:" request header under CGI: libcurl never
    # reads it, so the request goes direct.
    out = run(f"http://{origin}/api/echo", HTTP_PROXY=server.base_url)
    assert (out["domain"], out["code"]) == ("NCTransportErrorDomain", 7)


def test_no_proxy_sends_matching_hosts_direct(run, server, origin):
    out = run(f"http://{origin}/api/echo", http_proxy=server.base_url, no_proxy="example.com,127.0.0.1")
    assert (out["domain"], out["code"]) == ("NCTransportErrorDomain", 7)
    out = run(f"http://{origin}/api/echo", http_proxy=server.base_url, NO_PROXY="*")
    assert (out["domain"], out["code"]) == ("NCTransportErrorDomain", 7)
    # A list that does not match leaves the proxy in use.
    out = run(f"http://{origin}/api/echo", http_proxy=server.base_url, no_proxy="example.com")
    assert out["raw_path"] == f"http://{origin}/api/echo"


def test_empty_variable_counts_as_unset(run, server, origin):
    out = run(f"http://{origin}/api/echo", http_proxy="", all_proxy=server.base_url)
    assert out["raw_path"] == f"http://{origin}/api/echo"


def test_https_proxy_tunnels_https_requests(run, server, origin):
    # libcurl asks the proxy for a CONNECT tunnel; the mock server refuses it (501).
    for name in ("https_proxy", "HTTPS_PROXY"):
        out = run(f"https://{origin}/api/echo", **{name: server.base_url})
        assert (out["domain"], out["code"]) == ("NCTransportErrorDomain", 56), out
        assert "CONNECT tunnel failed, response 501" in out["message"]
    # http_proxy is for http URLs only.
    out = run(f"https://{origin}/api/echo", http_proxy=server.base_url)
    assert (out["domain"], out["code"]) == ("NCTransportErrorDomain", 7)


def test_the_environment_is_read_when_the_client_is_made(run, server, origin):
    out = run(f"http://{origin}/api/echo", late=server.base_url)
    assert (out["domain"], out["code"]) == ("NCTransportErrorDomain", 7)


# --- "proxy" in the configuration (and proxy=) wins over the environment ----------

CONFIGURED = r'''
import json, sys
import netcore
url, config = sys.argv[1], json.loads(sys.argv[2])
with netcore.Client(dict(config, envelope={}, timeout_ms=10000)) as c:
    try:
        out = {"raw_path": c.get(url).data["raw_path"]}
    except netcore.Error as e:
        out = {"domain": e.domain, "code": e.code}
print(json.dumps(out))
'''


@pytest.fixture
def run_configured(server):
    def run(url, config, **env_vars):
        env = {k: v for k, v in os.environ.items() if k not in VARIABLES}
        env.update(env_vars)
        p = subprocess.run([sys.executable, "-c", CONFIGURED, url, json.dumps(config)], env=env,
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)
    return run


def test_configured_proxy_wins_over_the_environment(run_configured, server, origin, closed_port):
    url = f"http://{origin}/api/echo"
    dead_proxy = f"http://127.0.0.1:{closed_port}"
    # The environment names a proxy that does not answer; the configured one is used.
    out = run_configured(url, {"proxy": {"url": server.base_url}}, http_proxy=dead_proxy, all_proxy=dead_proxy)
    assert out == {"raw_path": url}
    # "" turns the environment's proxy off: the request goes direct (and fails: 7).
    out = run_configured(url, {"proxy": {"url": ""}}, http_proxy=server.base_url)
    assert (out["domain"], out["code"]) == ("NCTransportErrorDomain", 7)
    # A configured no_proxy replaces the environment's, which would have sent it direct.
    out = run_configured(url, {"proxy": {"no_proxy": "example.com"}}, http_proxy=server.base_url,
                         no_proxy="127.0.0.1")
    assert out == {"raw_path": url}
    # No "proxy": the environment's, as before.
    assert run_configured(url, {}, http_proxy=server.base_url) == {"raw_path": url}
