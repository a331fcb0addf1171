"""The Swift API (`try await NetClient.send`, through .build's netcore-call: one
request as JSON in and out, tools/swift-call) beside requests, httpx and the Python
binding: parameters, JSON with nulls, a form, the default headers, redirects,
decoding, a status error, the idle timeout against a live body and a stall, HTTP/2
from nginx, a proxy from the configuration."""
from __future__ import annotations

import json
import os
import ssl
import subprocess

import pytest

import netcore
from helpers import command, hits

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _binary() -> str:
    """netcore-call of this checkout's debug build (run.sh builds it), or ''."""
    try:
        bin_dir = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True,
                                 text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""
    path = os.path.join(bin_dir, "netcore-call")
    return path if os.access(path, os.X_OK) else ""


BINARY = _binary()
pytestmark = pytest.mark.skipif(not BINARY, reason="netcore-call is not built: `swift build --product netcore-call`")


def swift(spec: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    run = command([BINARY, json.dumps(spec)], env=env)
    assert run.code == 0, run.err
    return json.loads(run.out)


def body(out: dict) -> dict:
    assert "error" not in out, out
    return json.loads(out["body"])


def test_swift_params(conf, session, hb):
    params = {"a": "1", "b": ["x", "y"], "sp": "a b&c=d/é?", "none": None}
    ours = body(swift({"url": hb + "/anything", "params": params}))["args"]
    ref = session.get(hb + "/anything", params=params).json()["args"]
    conf.compare("Swift GET /anything params (list, escapes, None left out)", ours, ref)


def test_swift_json_nulls(conf, session, hb):
    data = {"a": None, "o": {"c": None, "d": 1}, "l": [1, None], "s": "é"}
    ours = body(swift({"method": "POST", "url": hb + "/anything", "json": data}))["json"]
    ref = session.post(hb + "/anything", json=data).json()["json"]
    conf.compare("Swift POST /anything json with nulls (sent as written)", ours, ref)


def test_swift_form(conf, session, hb):
    data = {"a": "1", "s": "a b&c=d+é"}
    ours = body(swift({"method": "POST", "url": hb + "/anything", "form": data}))["form"]
    ref = session.post(hb + "/anything", data=data).json()["form"]
    conf.compare("Swift POST /anything form", ours, ref)


def test_swift_default_headers(conf, hb):
    ours = body(swift({"url": hb + "/headers"}))["headers"]
    with netcore.Client({}, proxy=None) as c:
        py = c.get(hb + "/headers").json()["headers"]
    conf.compare("Swift GET /headers: User-Agent and Accept-Encoding, as the C library sends them (Python)",
                 (ours.get("User-Agent"), ours.get("Accept-Encoding")),
                 (py.get("User-Agent"), py.get("Accept-Encoding")))


def test_swift_redirects(conf, session, hb):
    out = swift({"url": hb + "/redirect/3"})
    r = session.get(hb + "/redirect/3")
    conf.compare("Swift GET /redirect/3: final status and URL path", (out["status"], body(out)["url"].split("/", 3)[-1]),
                 (r.status_code, r.json()["url"].split("/", 3)[-1]))


def test_swift_decoding(conf, session, hb):
    for path, key in (("/gzip", "gzipped"), ("/deflate", "deflated"), ("/brotli", "brotli")):
        ours = body(swift({"url": hb + path}))
        ref = session.get(hb + path).json()
        conf.compare(f"Swift GET {path}: decoded, says so", ours.get(key), ref.get(key))


def test_swift_status_error(conf, session, hb):
    out = swift({"url": hb + "/status/418"})
    conf.compare("Swift GET /status/418 (raw mode): NCHTTPErrorDomain with the status (requests: 418)",
                 (out["error"]["domain"], out["error"]["http_status"]),
                 ("NCHTTPErrorDomain", session.get(hb + "/status/418").status_code))


def test_swift_idle_timeout(conf, session, hb):
    import requests
    # A body moving for 2 s with a 1 s read (idle) limit lives; 3 s of silence does not.
    live = swift({"url": hb + "/drip?duration=2&numbytes=4&delay=0", "idle_timeout_ms": 1000})
    ref_live = session.get(hb + "/drip?duration=2&numbytes=4&delay=0", timeout=(5, 1)).status_code
    conf.compare("Swift GET /drip 2 s, idle 1 s (requests timeout=(5, 1)): completes",
                 live.get("status"), ref_live)
    stalled = swift({"url": hb + "/delay/3", "idle_timeout_ms": 500})
    try:
        session.get(hb + "/delay/3", timeout=(5, 0.5))
        ref = "answered"
    except requests.exceptions.ReadTimeout:
        ref = "read timeout"
    conf.compare("Swift GET /delay/3, idle 0.5 s (requests timeout=(5, 0.5): ReadTimeout): the idle limit",
                 "read timeout" if stalled.get("error", {}).get("timeout") == "idle" else stalled, ref)


def test_swift_http2(conf, servers):
    import httpx
    url = servers.nginx.tls_url + "/anything?x=1"
    out = swift({"url": url, "config": {"http_version": "2", "tls": {"ca_file": servers.certs.ca}}})
    with httpx.Client(http2=True, verify=ssl.create_default_context(cafile=servers.certs.ca), trust_env=False) as h:
        r = h.get(url)
    conf.compare("Swift GET https (nginx), http_version 2 (httpx http2=True): the version and args",
                 (out.get("http_version"), body(out)["args"]), (r.http_version, r.json()["args"]))


def test_swift_proxy(conf, servers, hb, marker):
    url = f"{hb}/anything?m=ours-{marker}"
    mark = servers.proxy.log.mark()
    out = swift({"url": url, "config": {"proxy": {"url": servers.proxy.url}}})
    seen = len(hits(servers.proxy, mark, f"ours-{marker}", 1, timeout=1.5))
    conf.compare("Swift GET through tinyproxy from the configuration: status, proxy log lines", (out.get("status"), seen),
                 (200, 1))
