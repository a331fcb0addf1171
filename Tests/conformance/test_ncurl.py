"""The C library through build/bin/ncurl (the public header only) beside requests
and curl: query items, a JSON body, a status error, a redirect, gzip."""
from __future__ import annotations

import json
import os

import pytest

from conftest import NCURL
from helpers import command, curl

pytestmark = pytest.mark.skipif(not os.access(NCURL, os.X_OK), reason=f"{NCURL} is missing: run `make examples`")


def ncurl(*args: str):
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    return command([NCURL, "--raw", *args], env=env)


def test_ncurl_query(conf, session, hb):
    run = ncurl("GET", hb + "/anything", "a=1", "sp=a b&c", "u=é")
    assert run.code == 0, run.err
    ref = session.get(hb + "/anything", params={"a": "1", "sp": "a b&c", "u": "é"}).json()
    conf.compare("ncurl --raw GET /anything a=1 'sp=a b&c' u=é", json.loads(run.out)["args"], ref["args"])


def test_ncurl_json(conf, session, hb):
    run = ncurl("--json", "POST", hb + "/anything", "s=x", "n:=3", "l:=[1,2]", 'o:={"k":true}')
    assert run.code == 0, run.err
    ref = session.post(hb + "/anything", json={"s": "x", "n": 3, "l": [1, 2], "o": {"k": True}}).json()
    conf.compare("ncurl --raw --json POST /anything s=x n:=3 l:=[1,2] o:={...}",
                 json.loads(run.out)["json"], ref["json"])


def test_ncurl_form(conf, session, hb):
    run = ncurl("POST", hb + "/anything", "a=1", "b=two words")
    assert run.code == 0, run.err
    ref = session.post(hb + "/anything", data={"a": "1", "b": "two words"}).json()
    conf.compare("ncurl --raw POST /anything a=1 'b=two words' (form)", json.loads(run.out)["form"], ref["form"])


def test_ncurl_status(conf, hb):
    run = ncurl("GET", hb + "/status/404")
    ref = curl("--fail", "-o", "/dev/null", "-w", "%{http_code}", hb + "/status/404")
    conf.compare("ncurl GET /status/404 (curl --fail): fails, with the status",
                 (run.code != 0, "404" in run.err), (ref.code != 0, ref.out == b"404"))
    conf.compare("ncurl's exit status is the HTTP domain (3)", run.code, 3)


def test_ncurl_redirect_gzip(conf, hb):
    run = ncurl("GET", hb + "/redirect-to", "url=/gzip", "status_code=302")
    ref = curl("-L", "--compressed", hb + "/redirect-to?url=/gzip&status_code=302")
    assert run.code == 0, run.err
    conf.compare("ncurl GET /redirect-to?url=/gzip (curl -L --compressed): gzipped, method",
                 {k: json.loads(run.out)[k] for k in ("gzipped", "method")},
                 {k: json.loads(ref.out)[k] for k in ("gzipped", "method")})
