"""What a request carries, against httpbin's echoes, beside requests: parameters, JSON,
forms, multipart, raw bodies, methods, headers, User-Agent, Accept-Encoding and
decoding, cookies, auth, status codes, bytes and ranges."""
from __future__ import annotations

import json
import os
from urllib.parse import parse_qsl, urlsplit

import pytest

import netcore
from conftest import libcurl_version, library_version
from helpers import curl, nc_response, sha256

# ------------------------------------------------------------------ parameters and bodies


def test_params(conf, nc, session, hb):
    params = {"a": "1", "b": ["x", "y"], "sp": "a b&c=d/é?", "empty": "", "none": None}
    ours = nc.get(hb + "/anything", params=params).json()
    ref = session.get(hb + "/anything", params=params).json()
    conf.compare("GET /anything params (list, escapes, '', None)", ours["args"], ref["args"])
    query = lambda url: parse_qsl(urlsplit(url).query, keep_blank_values=True)
    conf.compare("GET /anything: the query's pairs, in order", query(ours["url"]), query(ref["url"]))


def test_params_bool(conf, nc, session, hb):
    ours = nc.get(hb + "/anything", params={"t": True, "f": False}).json()["args"]
    ref = session.get(hb + "/anything", params={"t": True, "f": False}).json()["args"]
    conf.by_design("GET /anything params t=True f=False", ours, ref, {"t": "true", "f": "false"})


def test_json_body(conf, nc, session, hb):
    body = {"s": "é ü", "n": 3, "f": 1.5, "neg": -7, "l": [1, "a", True], "o": {"k": False, "e": {}},
            "big": 2 ** 53}
    ours = nc.post(hb + "/anything", json=body).json()
    ref = session.post(hb + "/anything", json=body).json()
    conf.compare("POST /anything json= (nested, unicode, numbers)", ours["json"], ref["json"])
    conf.compare("POST json=: Content-Type", ours["headers"].get("Content-Type"),
                 ref["headers"].get("Content-Type"))


def test_json_nulls(conf, nc, session, hb):
    body = {"a": None, "o": {"c": None, "d": 1}, "l": [1, None], "s": "x"}
    ours = nc.post(hb + "/anything", json=body).json()["json"]
    ref = session.post(hb + "/anything", json=body).json()["json"]
    conf.compare("POST /anything json= with nulls (top, nested, in a list)", ours, ref)


def test_json_array(conf, nc, session, hb):
    body = [1, None, "x", {"k": None}]
    ours = nc.post(hb + "/anything", json=body).json()["json"]
    ref = session.post(hb + "/anything", json=body).json()["json"]
    conf.compare("POST /anything json=[...] (an array, sent as is)", ours, ref)


def test_form(conf, nc, session, hb):
    data = {"a": "1", "b": ["x", "y"], "s": "a b&c=d+é"}
    ours = nc.post(hb + "/anything", data=data).json()
    ref = session.post(hb + "/anything", data=data).json()
    conf.compare("POST /anything data= (form)", ours["form"], ref["form"])
    conf.compare("POST data=: Content-Type", ours["headers"].get("Content-Type"),
                 ref["headers"].get("Content-Type"))


def test_multipart(conf, nc, session, hb, tmp_path):
    path = tmp_path / "upload.txt"
    path.write_bytes(b"from a file\n" * 100)
    text = ("a.txt", b"hello\n", "text/plain")
    fields = {"k": "v", "n": "2"}
    with open(path, "rb") as f1, open(path, "rb") as f2:
        ours = nc.post(hb + "/anything", data=fields, files={"t": text, "f": f1}).json()
        ref = session.post(hb + "/anything", data=fields, files={"t": text, "f": f2}).json()
    conf.compare("POST /anything files= (a tuple, a real file) + data=", ours["files"], ref["files"])
    conf.compare("POST multipart: form fields", ours["form"], ref["form"])
    conf.compare("POST multipart: Content-Type", ours["headers"]["Content-Type"].split(";")[0],
                 ref["headers"]["Content-Type"].split(";")[0])


def test_raw_put(conf, nc, session, hb):
    blob = bytes(range(256)) * 4
    h = {"Content-Type": "application/octet-stream"}
    ours = nc.put(hb + "/anything", data=blob, headers=h).json()
    ref = session.put(hb + "/anything", data=blob, headers=h).json()
    pick = lambda j: (j["method"], j["data"], j["headers"].get("Content-Type"), j["headers"].get("Content-Length"))
    conf.compare("PUT /anything data=<1 KiB of bytes>", pick(ours), pick(ref))
    h = {"Content-Type": "text/plain; charset=utf-8"}
    ours = nc.put(hb + "/anything", data="texte é", headers=h).json()
    ref = session.put(hb + "/anything", data="texte é".encode(), headers=h).json()
    conf.compare("PUT /anything data='texte é' (text/plain)", pick(ours), pick(ref))


@pytest.mark.parametrize("method", ["DELETE", "PATCH", "POST", "PUT", "OPTIONS"])
def test_methods(conf, nc, session, hb, method):
    if method == "OPTIONS":
        ours, ref = nc.options(hb + "/anything"), session.options(hb + "/anything")
        conf.compare("OPTIONS /anything: status, Allow",
                     (ours.status, sorted(ours.headers.get("Allow", "").split(", "))),
                     (ref.status_code, sorted(ref.headers.get("Allow", "").split(", "))))
        return
    kw = {"json": {"m": method}} if method != "DELETE" else {"params": {"m": method}}
    o = nc.request(method, hb + "/anything", **kw).json()
    r = session.request(method, hb + "/anything", **kw).json()
    conf.compare(f"{method} /anything", (o["method"], o["json"], o["args"]), (r["method"], r["json"], r["args"]))


def test_head(conf, nc, session, hb):
    ours, ref = nc.head(hb + "/bytes/100"), session.head(hb + "/bytes/100")
    conf.compare("HEAD /bytes/100: status, Content-Length, body",
                 (ours.status, ours.headers.get("Content-Length"), ours.body),
                 (ref.status_code, ref.headers.get("Content-Length"), ref.content))


# ------------------------------------------------------------------ headers


def test_headers(conf, nc, session, hb):
    h = {"X-Conf-A": "1", "X-Conf-B": "two  words, and; more", "Accept": "application/json",
         "X-Empty-Looking": "-"}
    ours = nc.get(hb + "/headers", headers=h).json()["headers"]
    ref = session.get(hb + "/headers", headers=h).json()["headers"]
    pick = lambda e: {k: e.get(k) for k in h}
    conf.compare("GET /headers with custom headers", pick(ours), pick(ref))


def test_header_default_accept(conf, nc, session, hb):
    ours = nc.get(hb + "/headers").json()["headers"].get("Accept")
    ref = session.get(hb + "/headers").json()["headers"].get("Accept")
    conf.compare("GET /headers: default Accept", ours, ref)


def test_user_agent_custom(conf, nc, session, hb):
    ua = {"User-Agent": "conformance/1.0 (+check)"}
    ours = nc.get(hb + "/user-agent", headers=ua).json()
    ref = session.get(hb + "/user-agent", headers=ua).json()
    conf.compare("GET /user-agent, User-Agent set", ours, ref)
    with netcore.Client({"headers": {"User-Agent": "app/2"}}, proxy=None) as c:
        conf.compare("GET /user-agent, the config's default header", c.get(hb + "/user-agent").json(),
                     {"user-agent": "app/2"})


def test_user_agent_default(conf, nc, session, hb):
    ours = nc.get(hb + "/user-agent").json().get("user-agent")
    ref = session.get(hb + "/user-agent").json().get("user-agent")
    expected = f"netcore/{library_version()} libcurl/{libcurl_version()}"
    conf.compare(f"GET /user-agent, none set (requests: {ref}, product/version)", ours, expected)


def test_accept_encoding(conf, nc, hb):
    ours = nc.get(hb + "/headers").json()["headers"].get("Accept-Encoding")
    run = curl("--compressed", hb + "/headers")
    assert run.code == 0, run.err
    ref = json.loads(run.out)["headers"].get("Accept-Encoding")
    tokens = lambda v: sorted(t.strip() for t in (v or "").split(","))
    conf.compare("GET /headers: Accept-Encoding (curl --compressed: what libcurl decodes)",
                 tokens(ours), tokens(ref))


@pytest.mark.parametrize("path,flag", [("gzip", "gzipped"), ("deflate", "deflated"), ("brotli", "brotli")])
def test_compression(conf, nc, session, hb, path, flag):
    ours, ref = nc.get(hb + "/" + path), session.get(hb + "/" + path)
    conf.compare(f"GET /{path}: status, Content-Encoding, decoded JSON's {flag!r}",
                 (ours.status, ours.headers.get("Content-Encoding"), ours.json().get(flag)),
                 (ref.status_code, ref.headers.get("Content-Encoding"), ref.json().get(flag)))


# ------------------------------------------------------------------ cookies


def test_cookies_redirect(conf, session, hb):
    with netcore.Client({"cookies": {"enabled": True}}, proxy=None) as c:
        o1 = c.get(hb + "/cookies/set", params={"k": "v", "k2": "v 2"})
        o2 = c.get(hb + "/cookies")
        o3 = c.get(hb + "/cookies/delete", params={"k": ""})
        r1 = session.get(hb + "/cookies/set", params={"k": "v", "k2": "v 2"})
        r2 = session.get(hb + "/cookies")
        r3 = session.get(hb + "/cookies/delete", params={"k": ""})
        conf.compare("GET /cookies/set?k=v&k2=v 2 (302 -> /cookies): cookies, hops",
                     (o1.json(), len(o1.history)), (r1.json(), len(r1.history)))
        conf.compare("then GET /cookies (the jar)", o2.json(), r2.json())
        conf.compare("then GET /cookies/delete?k (302 -> /cookies)", o3.json(), r3.json())
        conf.compare("the jar's names after it", sorted(ck.name for ck in c.cookies),
                     sorted(session.cookies.keys()))


def test_cookies_off(conf, nc, hb):
    o = nc.get(hb + "/cookies/set", params={"k": "v"}).json()
    conf.compare("GET /cookies/set?k=v without a jar (curl without -b/-c)", o,
                 json.loads(curl("-L", hb + "/cookies/set?k=v").out))


# ------------------------------------------------------------------ auth


def test_basic_auth(conf, session, hb):
    url = hb + "/basic-auth/ada/s3cret"
    for creds in (("ada", "s3cret"), ("ada", "wrong")):
        with netcore.Client({}, auth=creds, proxy=None) as c:
            o = nc_response(c.get, url)
        r = session.get(url, auth=creds)
        conf.compare(f"GET /basic-auth/ada/s3cret as {creds[0]}:{creds[1]}",
                     (o.status, o.json() if o.status == 200 else None),
                     (r.status_code, r.json() if r.status_code == 200 else None))


def test_bearer(conf, session, hb):
    for token in ("t0k3n", None):
        with netcore.Client({}, auth=token, proxy=None) as c:
            o = nc_response(c.get, hb + "/bearer")
        r = session.get(hb + "/bearer", headers={"Authorization": f"Bearer {token}"} if token else {})
        conf.compare(f"GET /bearer with {'token ' + token if token else 'no token'}",
                     (o.status, o.json() if o.status == 200 else None),
                     (r.status_code, r.json() if r.status_code == 200 else None))


# ------------------------------------------------------------------ status codes


@pytest.mark.parametrize("code", [200, 201, 202, 204, 304, 400, 401, 403, 404, 418, 429, 500, 503])
def test_status_codes(conf, nc, session, hb, code):
    ref = session.get(hb + f"/status/{code}")
    try:
        r = nc.get(hb + f"/status/{code}")
        ours = ("response", r.status, r.body)
    except netcore.HTTPError as e:
        ours = ("HTTPError", e.response.status, e.response.body)
    reference = ("response", ref.status_code, ref.content)
    call = f"GET /status/{code}"
    if code >= 400:
        conf.by_design(call, ours, reference, ("HTTPError",) + reference[1:])
    else:
        conf.compare(call, ours, reference)


def test_status_envelope(conf, session, hb):
    with netcore.Client({"envelope": {}}, proxy=None) as c:
        for path in ("/json", "/status/418"):
            ref = session.get(hb + path)
            try:
                c.get(hb + path)
                ours = ("success", 200)
            except netcore.Error as e:
                ours = (type(e).__name__, e.response.status if e.response is not None else None)
            documented = ("ParseError", 200) if path == "/json" else ("HTTPError", 418)
            conf.by_design(f"envelope mode: GET {path}", ours, ("response", ref.status_code), documented)


# ------------------------------------------------------------------ bytes, streams, ranges


def test_bytes(conf, nc, session, hb):
    url = hb + "/bytes/65536?seed=3"
    conf.compare("GET /bytes/65536?seed=3: sha256", sha256(nc.get(url).body), sha256(session.get(url).content))


def test_stream_bytes(conf, nc, session, hb):
    url = hb + "/stream-bytes/300000?seed=4&chunk_size=4096"
    ours, ref = nc.get(url), session.get(url)
    conf.compare("GET /stream-bytes/300000 (chunked): sha256, Transfer-Encoding",
                 (sha256(ours.body), ours.headers.get("Transfer-Encoding")),
                 (sha256(ref.content), ref.headers.get("Transfer-Encoding")))
    with nc.stream("GET", url) as s:
        chunks = b"".join(s.iter_bytes())
    with session.get(url, stream=True) as r:
        ref_chunks = b"".join(r.iter_content(8192))
    conf.compare("client.stream() iter_bytes vs requests iter_content: sha256", sha256(chunks), sha256(ref_chunks))


def test_stream_lines(conf, nc, session, hb):
    ours = [json.loads(l)["id"] for l in nc.get(hb + "/stream/5").text.splitlines()]
    ref = [json.loads(l)["id"] for l in session.get(hb + "/stream/5").text.splitlines()]
    conf.compare("GET /stream/5: the JSON lines' ids", ours, ref)


def test_drip(conf, nc, session, hb):
    url = hb + "/drip?numbytes=64&duration=0.3&delay=0&code=200"
    ours, ref = nc.get(url), session.get(url)
    conf.compare("GET /drip?numbytes=64&duration=0.3", (ours.status, ours.body), (ref.status_code, ref.content))


def test_range(conf, nc, session, hb):
    url = hb + "/range/1024"
    for rng in ("bytes=100-299", "bytes=1000-", "bytes=-24"):
        ours, ref = nc.get(url, headers={"Range": rng}), session.get(url, headers={"Range": rng})
        conf.compare(f"GET /range/1024 Range: {rng}: status, Content-Range, body",
                     (ours.status, ours.headers.get("Content-Range"), ours.body),
                     (ref.status_code, ref.headers.get("Content-Range"), ref.content))
    ours = nc_response(nc.get, url, headers={"Range": "bytes=5000-"})
    ref = session.get(url, headers={"Range": "bytes=5000-"})
    conf.compare("GET /range/1024 Range: bytes=5000- (unsatisfiable)", ours.status, ref.status_code)


def test_download_output(conf, nc, session, hb, tmp_path):
    url = hb + "/stream-bytes/500000?seed=9&chunk_size=10000"
    out = tmp_path / "dl.bin"
    r = nc.get(url, output=str(out))
    conf.compare("GET /stream-bytes/500000 output=path: status, file's sha256, leftovers",
                 (r.status, sha256(out.read_bytes()), sorted(os.listdir(tmp_path))),
                 (200, sha256(session.get(url).content), ["dl.bin"]))
