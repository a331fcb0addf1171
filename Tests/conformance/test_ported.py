"""Code ported from requests and httpx, run as written on the same httpbin calls
(docs/python.md's compatibility table): response attributes, raise_for_status,
json() on a body that is not JSON, per-request auth=, cookies=, redirects,
timeouts, and streamed lines and text."""
from __future__ import annotations

import json
from typing import Any

import pytest

import netcore


@pytest.fixture
def hx() -> Any:
    """An httpx client ignoring the environment's proxies (as ours, given {})."""
    import httpx
    with httpx.Client(trust_env=False) as c:
        yield c


def test_ported_response_attributes(conf, nc, hx, hb):
    url = hb + "/redirect/2"
    ours = nc.get(url)
    ref = hx.get(url, follow_redirects=True)
    conf.compare("GET /redirect/2: status_code, is_success, is_error, http_version, len(history)",
                 (ours.status_code, ours.is_success, ours.is_error, ours.http_version, len(ours.history)),
                 (ref.status_code, ref.is_success, ref.is_error, ref.http_version, len(ref.history)))
    conf.compare("GET /redirect/2: history's status codes",
                 [h.status_code for h in ours.history], [h.status_code for h in ref.history])
    conf.compare("GET /redirect/2: raise_for_status() returns the response",
                 ours.raise_for_status() is ours, ref.raise_for_status() is ref)


def test_ported_reason_phrase(conf, nc, hx, hb):
    with pytest.raises(netcore.HTTPError) as info:
        nc.get(hb + "/status/404")
    ref = hx.get(hb + "/status/404")
    conf.by_design("GET /status/404: reason_phrase", info.value.response.reason_phrase,
                   ref.reason_phrase, "Not Found")


def test_ported_raise_for_status(conf, nc, session, hx, hb):
    import httpx
    import requests
    url = hb + "/status/418"
    with pytest.raises(netcore.HTTPError) as info:
        nc.get(url)
    resp = info.value.response
    with pytest.raises(netcore.HTTPError):
        resp.raise_for_status()
    ref = hx.get(url)
    with pytest.raises(httpx.HTTPStatusError) as ref_info:
        ref.raise_for_status()
    conf.compare("GET /status/418: e.response's status_code, headers' Content-Type, text",
                 (resp.status_code, resp.headers.get("content-type"), resp.text),
                 (ref_info.value.response.status_code, ref.headers.get("content-type"), ref.text))
    with pytest.raises(requests.HTTPError):
        session.get(url).raise_for_status()


def test_ported_json_not_json(conf, nc, session, hx, hb):
    def raised(call: Any) -> Any:
        try:
            call()
        except ValueError as exc:
            return "ValueError"
        except Exception as exc:  # noqa: BLE001 - the check shows what was raised
            return type(exc).__name__
        return None

    r = nc.get(hb + "/html")
    conf.compare("GET /html: .json() raises a ValueError (requests)", raised(r.json),
                 raised(session.get(hb + "/html").json))
    conf.compare("GET /html: .json() raises a ValueError (httpx)", raised(r.json),
                 raised(hx.get(hb + "/html").json))
    with pytest.raises(netcore.ParseError):
        r.json()


def test_ported_auth_and_cookies(conf, nc, session, hx, hb):
    url = hb + "/basic-auth/ada/pw"
    conf.compare("GET /basic-auth auth=(user, pw)", nc.get(url, auth=("ada", "pw")).json(),
                 hx.get(url, auth=("ada", "pw")).json())
    cookies = {"a": "1", "b": "two"}
    conf.compare("GET /cookies cookies={...}", nc.get(hb + "/cookies", cookies=cookies).json(),
                 session.get(hb + "/cookies", cookies=cookies).json())


def test_ported_redirect_keywords(conf, nc, session, hx, hb):
    url = hb + "/redirect-to?url=/get&status_code=302"
    ours = nc.get(url, follow_redirects=False)
    ref = hx.get(url, follow_redirects=False)
    conf.compare("GET /redirect-to follow_redirects=False: status, Location, is_redirect",
                 (ours.status_code, ours.headers.get("location"), ours.is_redirect),
                 (ref.status_code, ref.headers.get("location"), ref.is_redirect))
    ours = nc.get(url, allow_redirects=False)
    ref2 = session.get(url, allow_redirects=False)
    conf.compare("GET /redirect-to allow_redirects=False: status, Location",
                 (ours.status_code, ours.headers.get("location")),
                 (ref2.status_code, ref2.headers.get("location")))


def test_ported_timeouts(conf, nc, session, hx, hb):
    import httpx
    import requests
    url = hb + "/delay/3"

    def kind(call: Any, timeout_types: Any) -> str:
        try:
            call()
        except timeout_types:
            return "timed out"
        return "answered"

    conf.compare("GET /delay/3 timeout=(5, 0.5) (connect, read)",
                 kind(lambda: nc.get(url, timeout=(5, 0.5)), netcore.Timeout),
                 kind(lambda: session.get(url, timeout=(5, 0.5)), requests.Timeout))
    conf.compare("GET /delay/3 netcore.Timeouts(5, read=0.5) vs httpx.Timeout(5, read=0.5)",
                 kind(lambda: nc.get(url, timeout=netcore.Timeouts(5, read=0.5)), netcore.Timeout),
                 kind(lambda: hx.get(url, timeout=httpx.Timeout(5, read=0.5)), httpx.TimeoutException))


def test_ported_stream_lines_and_text(conf, nc, hx, hb):
    url = hb + "/stream/5"
    with nc.stream("GET", url) as r:
        ours = (r.is_success, [json.loads(line)["id"] for line in r.iter_lines() if line])
    with hx.stream("GET", url) as ref:
        theirs = (ref.is_success, [json.loads(line)["id"] for line in ref.iter_lines() if line])
    conf.compare("stream GET /stream/5: is_success, iter_lines' ids", ours, theirs)
    url = hb + "/encoding/utf8"
    with nc.stream("GET", url) as r:
        text = "".join(r.iter_text())
    with hx.stream("GET", url) as ref:
        ref_text = "".join(ref.iter_text())
    conf.compare("stream GET /encoding/utf8: iter_text joined", text, ref_text)
