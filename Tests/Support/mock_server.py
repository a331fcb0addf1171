#!/usr/bin/env python3
"""Loopback mock HTTP API server for the libnetcore test suites and demo.

Usage: mock_server.py [--port N] [--host 127.0.0.1] [--verbose] [--exit-on-stdin-eof]

Process contract
  * Binds 127.0.0.1 (port 0 = pick a free port). The first and only stdout
    line is "PORT <n>", flushed as soon as the socket is listening.
  * HTTP/1.1 keep-alive; every response carries Content-Length (except
    204/304, the chunked route and the raw routes). Request bodies
    (Content-Length or chunked) are always consumed. Client disconnects are
    swallowed silently.
  * Exits on SIGTERM/SIGINT, and on stdin EOF with --exit-on-stdin-eof.
  * Request logging goes to stderr only with --verbose.
  * Any path may be prefixed with /api (stripped before routing). All methods
    route the same way; HEAD sends headers only.

Routes (JSON is compact, Content-Type application/json; charset=utf-8)
  /env/code/{ok,fail,string,string-ok,nodata,missing}   envelope {code,msg,data}
  /env/success/{ok,fail}                                 envelope {success,code,msg,traceId,data}
  /env/status/{ok,fail,badcode}                          envelope {status,errorCode,errorMsg,content}
  /status/<n>?body=json|envelope|text|empty&code=C&msg=M status n (204/304: never a body)
  /text /array /object /badjson /empty /nocontent        fixed bodies
  /slow?ms=N          sleep N ms (default 1000), then {"code":0,...,"data":{"slept_ms":N}}
  /drip?chunks=K&ms=N&size=S   K*S bytes of "x", flushed in K pieces, N ms apart
  /chunked?chunks=K   ok envelope sent with Transfer-Encoding: chunked in K pieces
  /reset              headers (Content-Length 100000) + 100 bytes, then TCP RST
  /close-early        headers (Content-Length 1000) + 10 bytes, then FIN
  /large?bytes=N      N bytes of "0123456789abcdef"... (default 1 MiB), streamed
  /large-envelope?bytes=N   {"code":0,"msg":"ok","data":{"blob":"xxx..."}}
  /echo, /echo-raw    request description, with / without the ok envelope
  /login /profile     token login (password "secret") / bearer-protected profile
  /redirect?to=U&status=302&name=Location (the header name as given), /redirect/chain?n=K,
  /redirect/loop
  /redirect/slow-chain?n=K&ms=N   waits N ms, then 302 to n=K-1; n=0 waits N ms
                      and answers ok {"redirected":true,"hops":K0} (K0 = first n)
  /auth/check?valid=T&ms=N&http=1   200 with "Authorization: Bearer T", else code 401001
                      (HTTP 401 with http=1), after N ms (token refresh)
  /signed, /signed/*  checks X-Signature/X-Timestamp (secret "mock-signing-secret",
                      docs/signing.md): ok {"verified":true,"string_to_sign":S}, else 401
  /gzip /etag /headers/many?n=N /cookie
  /flaky?key=K&fails=F&status=S&retry_after=R   the first F requests with key K
                      answer S (default 503; with "Retry-After: R" when given: seconds
                      or an HTTP-date), later ones ok {"attempt":n}
  /drop?key=K         reads the request (and its body), then closes the connection
                      without answering a byte (a POST the server may have acted on)
  /stall?bytes=B&ms=N  200 with Content-Length B+1, B bytes of "x", then nothing
                      for N ms (default 60000) and a close: a stalled body
  /upload/unread?ms=N  reads the headers, never the body; after N ms (default
                      30000) closes without answering: an upload the server stopped reading
  /_stats (GET counters, not counted), /_stats/reset (zero counters, not counted);
                      "connections" counts TCP connections accepted (the /_stats
                      call's own included)
  /_hits?key=K        {"key":K,"hits":n}: how many requests (any route, any method)
                      carried the query parameter key=K (not counted itself)
  anything else       404 {"error":"not found","path":P}
  mock_routes_*.py    more routes, one module a feature (see load_route_modules)
Raw routes (bytes written as scripted, then the connection is closed)
  /raw/headers-http-lines?n=N&every=E   200 with N header lines "X-Line-i: v",
                      every E-th one "HTTP/1.1 200 OK: line i" instead (a header
                      line, not a status line: it has a colon, as libcurl 7.88
                      requires of every line after the first), then an ok body
  /raw/1xx-flood?n=N&headers=H   N interim "HTTP/1.1 102 Processing" responses
                      with H lines "X-Progress-i: v" each, then a 200 with
                      "X-Final: yes" and "X-Final-Count: N" and an ok body
  /raw/truncated-headers?lines=L&status=S&interim=K   K complete "HTTP/1.1 100
                      Continue" responses, then "HTTP/1.1 S ..." and L header
                      lines, then FIN before the blank line that would end them
  /raw/garbage-status  "GARBAGE LINE, NOT HTTP" instead of a status line
  /raw/huge-header-line?bytes=N   200 with one "X-Huge:" header of N bytes
                      (default 1 MiB), then an ok body
"""
import argparse
import gzip
import hashlib
import hmac
import json
import os
import signal
import socket
import socketserver
import struct
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

JSON_TYPE = "application/json; charset=utf-8"
TEXT_TYPE = "text/plain; charset=utf-8"
OCTET_TYPE = "application/octet-stream"
PIECE = 64 * 1024
PATTERN = b"0123456789abcdef" * (PIECE // 16)
NO_BODY = (204, 304)
UNCOUNTED = ("/_stats", "/_stats/reset", "/_hits")


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def ok(data):
    return {"code": 0, "msg": "ok", "data": data}


# --- fixed JSON bodies (status 200) -------------------------------------------

FIXED_JSON = {
    "/env/code/ok": ok({"id": 7, "name": "Ada"}),
    "/env/code/fail": {"code": 1001, "msg": "wrong password", "data": {"field": "password"}},
    "/env/code/string": {"code": "E1001", "msg": "account locked", "data": None},
    "/env/code/string-ok": {"code": "0", "msg": "ok", "data": [1, 2]},
    "/env/code/nodata": {"code": 0, "msg": "ok"},
    "/env/code/missing": {"msg": "ok", "data": {}},
    "/env/success/ok": {"success": True, "code": 2001, "msg": "created",
                        "traceId": "trace-ok-1", "data": {"id": 42}},
    "/env/success/fail": {"success": False, "code": 4003, "msg": "forbidden",
                          "traceId": "trace-fail-1", "data": {"reason": "scope"}},
    "/env/status/ok": {"status": "OK", "errorCode": "0", "errorMsg": "",
                       "content": {"items": [1, 2, 3]}},
    "/env/status/fail": {"status": "FAIL", "errorCode": "E42",
                         "errorMsg": "quota exceeded", "content": None},
    "/env/status/badcode": {"status": "OK", "errorCode": "7",
                            "errorMsg": "partial", "content": None},
    "/array": [1, 2, 3],
    "/object": {"hello": "world"},
}


def fixed_json(obj):
    return lambda h: h.send_json(200, obj)


# --- route functions: each takes the request handler --------------------------

def route_text(h):
    h.send_body(200, b"hello, world", TEXT_TYPE)


def route_badjson(h):
    h.send_body(200, b'{"code":0,"msg":', JSON_TYPE)


def route_empty(h):
    h.send_body(200)


def route_nocontent(h):
    h.send_body(204)


def route_status(h):
    try:
        n = int(h.route_path[len("/status/"):])
    except ValueError:
        return route_not_found(h)
    if not 200 <= n <= 999:
        return route_not_found(h)
    kind = h.arg("body", "json")
    if kind == "envelope":
        code = h.arg("code", "5001")
        code = int(code) if code.lstrip("-").isdigit() else code
        h.send_json(n, {"code": code, "msg": h.arg("msg", "server busy"), "traceId": f"trace-{n}",
                        "data": {"retry": True}})
    elif kind == "text":
        h.send_body(n, f"status {n}".encode(), TEXT_TYPE)
    elif kind == "empty":
        h.send_body(n)
    else:
        h.send_json(n, {"error": f"status {n}"})


def route_slow(h):
    ms = h.int_arg("ms", 1000)
    deadline = time.monotonic() + ms / 1000.0
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or h.server.stopping.wait(min(0.05, left)):
            break
    h.send_json(200, ok({"slept_ms": ms}))


def route_drip(h):
    chunks, ms, size = h.int_arg("chunks", 20), h.int_arg("ms", 100), h.int_arg("size", 10)
    if not h.start(200, OCTET_TYPE, chunks * size):
        return
    piece = b"x" * size
    for i in range(chunks):
        if i and h.server.stopping.wait(ms / 1000.0):
            h.close_connection = True  # shutting down: leave the body short
            return
        h.wfile.write(piece)  # wfile is unbuffered: every write goes out now


def route_chunked(h):
    body = dumps(ok({"chunked": True, "items": list(range(20))}))
    k = max(1, h.int_arg("chunks", 4))
    if not h.start(200, JSON_TYPE, None, [("Transfer-Encoding", "chunked")]):
        return
    step = -(-len(body) // k)
    for i in range(0, len(body), step):
        part = body[i:i + step]
        h.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
    h.wfile.write(b"0\r\n\r\n")


def route_reset(h):
    h.start(200, "application/json", 100000)
    if h.command != "HEAD":
        h.wfile.write(b'{"code":0,"msg":"ok","data":"' + b"x" * 70)  # 100 bytes
    time.sleep(0.05)  # let the client read the partial body before the RST
    h.close_connection = True
    sock = h.connection
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    os.close(sock.detach())  # close now with linger 0 => RST


def route_close_early(h):
    if h.start(200, JSON_TYPE, 1000):
        h.wfile.write(b'{"code":0,')
    h.close_connection = True  # normal close (FIN) after only 10 bytes


def route_large(h):
    n = max(0, h.int_arg("bytes", 1048576))
    if not h.start(200, OCTET_TYPE, n):
        return
    full, rest = divmod(n, PIECE)
    for _ in range(full):
        h.wfile.write(PATTERN)
    if rest:
        h.wfile.write(PATTERN[:rest])


def route_large_envelope(h):
    n = max(0, h.int_arg("bytes", 1048576))
    head, tail = b'{"code":0,"msg":"ok","data":{"blob":"', b'"}}'
    if not h.start(200, JSON_TYPE, len(head) + n + len(tail)):
        return
    h.wfile.write(head)
    full, rest = divmod(n, PIECE)
    for _ in range(full):
        h.wfile.write(b"x" * PIECE)
    h.wfile.write(b"x" * rest + tail)


def echo_data(h):
    headers = {}
    for name, value in h.headers.items():
        name = name.lower()
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    ctype = h.headers.get("Content-Type")
    text = h.body.decode("utf-8", errors="replace")
    parsed = None
    if ctype and "json" in ctype.lower():
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
    form = None
    if ctype and ctype.split(";")[0].strip().lower() == "application/x-www-form-urlencoded":
        form = parse_qs(text, keep_blank_values=True)
    return {"method": h.command, "path": h.route_path, "raw_path": h.path,
            "query": h.query, "headers": headers, "body": text, "json": parsed,
            "form": form, "content_type": ctype}


def route_echo(h):
    h.send_json(200, ok(echo_data(h)))


def route_echo_raw(h):
    h.send_json(200, echo_data(h))


def route_login(h):
    try:
        creds = json.loads(h.body.decode("utf-8"))
    except ValueError:
        creds = None
    if isinstance(creds, dict) and creds.get("password") == "secret":
        h.send_json(200, ok({"token": f"tok-{creds.get('username')}", "expires_in": 3600}))
    else:
        h.send_json(200, {"code": 1001, "msg": "wrong username or password",
                          "traceId": "trace-login", "data": {"attempts_left": 2}})


def route_profile(h):
    auth = h.headers.get("Authorization", "")
    name = auth[len("Bearer tok-"):] if auth.startswith("Bearer tok-") else ""
    if name:
        h.send_json(200, ok({"name": name, "email": f"{name}@example.com", "vip": True}))
    else:
        h.send_json(200, {"code": 401001, "msg": "token expired, please log in again",
                          "traceId": "trace-auth", "data": None})


def route_auth_check(h):
    """GET /auth/check?valid=T&ms=N&http=1: after N ms, 200 with the ok envelope when
    the request carries "Authorization: Bearer T", else the business code 401001
    (HTTP 200) — or HTTP 401 with http=1 (token refresh tests)."""
    time.sleep(min(max(0, h.int_arg("ms", 0)), 60000) / 1000.0)
    if h.headers.get("Authorization", "") == "Bearer " + h.arg("valid", ""):
        h.send_json(200, ok({"authorized": True}))
    elif h.arg("http", "") == "1":
        h.send_json(401, {"code": 401001, "msg": "token expired", "traceId": "trace-refresh", "data": None})
    else:
        h.send_json(200, {"code": 401001, "msg": "token expired", "traceId": "trace-refresh", "data": None})


def route_user(h):
    """GET /users/<id>: user 7 is Ada; any other id is a business error 404001."""
    uid = h.route_path[len("/users/"):]
    if uid == "7":
        h.send_json(200, ok({"id": 7, "name": "Ada"}))
    else:
        h.send_json(200, {"code": 404001, "msg": f"no such user: {uid}", "data": None})


def route_redirect(h):
    """?status=302&to=/echo&name=Location: the header's name as given (its case kept)."""
    h.send_body(h.int_arg("status", 302), headers=[(h.arg("name", "Location"), h.arg("to", "/echo"))])


def route_redirect_chain(h):
    n = h.int_arg("n", 3)
    if n <= 0:
        h.send_json(200, ok({"redirected": True}))
    else:
        h.send_body(302, headers=[("Location", f"{h.prefix}/redirect/chain?n={n - 1}")])


def route_redirect_loop(h):
    query = urlsplit(h.path).query
    h.send_body(302, headers=[("Location", f"{h.prefix}/redirect/loop"
                                           + (f"?{query}" if query else ""))])


def route_redirect_slow_chain(h):
    n, ms = h.int_arg("n", 3), h.int_arg("ms", 300)
    if h.server.stopping.wait(ms / 1000.0):
        h.close_connection = True  # shutting down
        return
    if n <= 0:
        h.send_json(200, ok({"redirected": True, "hops": h.int_arg("hops", 0)}))
    else:
        hops = h.int_arg("hops", n)
        h.send_body(302, headers=[("Location", f"{h.prefix}/redirect/slow-chain?n={n - 1}&ms={ms}&hops={hops}")])


# --- raw routes: bytes as scripted, whatever HTTP says; then close ------------

def send_raw(h, data):
    h.headers_sent = True
    h.close_connection = True
    h.wfile.write(data)


def ok_tail(extra=b""):
    body = dumps(ok({"raw": True}))
    return (b"Content-Type: " + JSON_TYPE.encode() + b"\r\n" + extra
            + b"Content-Length: %d\r\n\r\n" % len(body) + body)


def route_raw_headers_http_lines(h):
    n, every = max(0, h.int_arg("n", 100)), max(1, h.int_arg("every", 50))
    lines = [b"HTTP/1.1 200 OK: line %d\r\n" % i if i % every == 0 else b"X-Line-%d: v\r\n" % i
             for i in range(1, n + 1)]
    send_raw(h, b"HTTP/1.1 200 OK\r\n" + b"".join(lines) + ok_tail())


def route_raw_1xx_flood(h):
    n, k = max(0, h.int_arg("n", 10)), max(0, h.int_arg("headers", 1))
    interim = b"".join(b"HTTP/1.1 102 Processing\r\n"
                       + b"".join(b"X-Progress-%d: v\r\n" % j for j in range(1, k + 1)) + b"\r\n"
                       for _ in range(n))
    send_raw(h, interim + b"HTTP/1.1 200 OK\r\nX-Final: yes\r\n"
             + ok_tail(b"X-Final-Count: %d\r\n" % n))


def route_raw_truncated_headers(h):
    lines, status = max(0, h.int_arg("lines", 2)), h.int_arg("status", 200)
    send_raw(h, b"HTTP/1.1 100 Continue\r\n\r\n" * max(0, h.int_arg("interim", 0))
             + b"HTTP/1.1 %d Whatever\r\n" % status
             + b"".join(b"X-Partial-%d: v\r\n" % i for i in range(1, lines + 1)))


# Messages that give the right advice (docs/errors.md).
def route_raw_garbage_status(h):
    send_raw(h, b"GARBAGE LINE, NOT HTTP\r\n\r\nbody")


def route_raw_huge_header_line(h):
    size = min(max(0, h.int_arg("bytes", 1 << 20)), 16 << 20)
    send_raw(h, b"HTTP/1.1 200 OK\r\nX-Huge: " + b"a" * size + b"\r\n" + ok_tail())


def route_gzip(h):
    compressed = "gzip" in h.headers.get("Accept-Encoding", "").lower()
    body = dumps(ok({"compressed": compressed, "pad": "a" * 2000}))
    headers = [("Vary", "Accept-Encoding")]
    if compressed:
        body = gzip.compress(body, mtime=0)
        headers.append(("Content-Encoding", "gzip"))
    h.send_body(200, body, JSON_TYPE, headers)


def route_etag(h):
    tags = [t.strip().removeprefix("W/") for t in h.headers.get("If-None-Match", "").split(",")]
    if '"v1"' in tags or "*" in tags:
        h.send_body(304, headers=[("ETag", '"v1"')])
    else:
        h.send_json(200, ok({"version": 1}), [("ETag", '"v1"')])


def route_flaky(h):
    key, fails, status = h.arg("key", "default"), h.int_arg("fails", 1), h.int_arg("status", 503)
    with h.server.lock:
        n = h.server.flaky[key] = h.server.flaky.get(key, 0) + 1
    if n <= fails:
        retry = h.arg("retry_after")
        h.send_json(status, {"error": "flaky"}, [("Retry-After", retry)] if retry else [])
    else:
        h.send_json(200, ok({"attempt": n}))


def route_drop(h):
    """The request (body included) was read by dispatch(): close without a byte."""
    h.headers_sent = True
    h.close_connection = True
    try:
        h.connection.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def route_stall(h):
    b, ms = max(0, h.int_arg("bytes", 10)), h.int_arg("ms", 60000)
    if not h.start(200, OCTET_TYPE, b + 1):
        return
    h.wfile.write(b"x" * b)
    h.server.stopping.wait(ms / 1000.0)
    h.close_connection = True  # the last byte never comes


def route_hits(h):
    key = h.arg("key", "")
    with h.server.lock:
        n = h.server.keyed.get(key, 0)
    h.send_json(200, {"key": key, "hits": n})


def route_headers_many(h):
    n = max(0, h.int_arg("n", 10))
    h.send_json(200, ok({"headers": n}), [(f"X-H-{i}", "v") for i in range(1, n + 1)])


def route_cookie(h):
    h.send_json(200, ok({"cookie": h.headers.get("Cookie"),
                         "authorization": h.headers.get("Authorization")}))


#: The secret /signed checks signatures with (docs/signing.md).
SIGNING_SECRET = b"mock-signing-secret"


def signing_string(method, raw_target, body, timestamp):
    """The string libnetcore signs (docs/signing.md), recomputed from what arrived."""
    split = urlsplit(raw_target)
    pairs = [p for p in split.query.split("&") if p]

    def key(piece):
        name, _, value = piece.partition("=")
        return (name.encode(), value.encode())

    sorted_query = "&".join(sorted(pairs, key=key))
    return "\n".join([method, split.path, sorted_query, hashlib.sha256(body).hexdigest(), timestamp])


def route_signed(h):
    """Verifies X-Signature / X-Timestamp with SIGNING_SECRET: ok, or 401."""
    timestamp = h.headers.get("X-Timestamp", "")
    got = h.headers.get("X-Signature", "")
    text = signing_string(h.command, h.path, h.body, timestamp)
    expected = hmac.new(SIGNING_SECRET, text.encode(), hashlib.sha256).hexdigest()
    if timestamp and hmac.compare_digest(expected, got):
        h.send_json(200, ok({"verified": True, "string_to_sign": text, "timestamp": timestamp}))
    else:
        h.send_json(401, {"error": "bad signature", "string_to_sign": text, "got": got})


def route_stats(h):
    with h.server.lock:
        snapshot = {"total": h.server.total, "paths": dict(h.server.paths),
                    "connections": h.server.connections}
    h.send_json(200, snapshot)


def route_stats_reset(h):
    with h.server.lock:
        h.server.total, h.server.paths, h.server.connections = 0, {}, 0
    h.send_json(200, {"total": 0, "paths": {}, "connections": 0})


def route_not_found(h):
    h.send_json(404, {"error": "not found", "path": h.route_path})


ROUTES = {path: fixed_json(obj) for path, obj in FIXED_JSON.items()}
ROUTES.update({
    "/text": route_text, "/badjson": route_badjson, "/empty": route_empty,
    "/nocontent": route_nocontent, "/slow": route_slow, "/drip": route_drip,
    "/chunked": route_chunked, "/reset": route_reset, "/close-early": route_close_early,
    "/large": route_large, "/large-envelope": route_large_envelope,
    "/echo": route_echo, "/echo-raw": route_echo_raw, "/login": route_login,
    "/profile": route_profile, "/redirect": route_redirect,
    "/redirect/chain": route_redirect_chain, "/redirect/loop": route_redirect_loop,
    "/redirect/slow-chain": route_redirect_slow_chain,
    "/raw/headers-http-lines": route_raw_headers_http_lines,
    "/raw/1xx-flood": route_raw_1xx_flood, "/raw/truncated-headers": route_raw_truncated_headers,
    "/raw/garbage-status": route_raw_garbage_status, "/raw/huge-header-line": route_raw_huge_header_line,
    "/gzip": route_gzip, "/etag": route_etag, "/flaky": route_flaky,
    "/headers/many": route_headers_many, "/cookie": route_cookie,
    "/_stats": route_stats, "/_stats/reset": route_stats_reset,
    "/auth/check": route_auth_check, "/signed": route_signed, "/drop": route_drop, "/stall": route_stall, "/_hits": route_hits,
})


def load_route_modules():
    """Routes of one feature may live in their own module beside this file:
    mock_routes_<feature>.py defines ROUTES = {path: handler(h)} and a docstring
    listing them. Loaded in name order; a path defined twice is an error."""
    import importlib.util
    import pathlib
    here = pathlib.Path(__file__).resolve().parent
    for file in sorted(here.glob("mock_routes_*.py")):
        spec = importlib.util.spec_from_file_location(file.stem, file)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        clash = set(module.ROUTES) & set(ROUTES)
        if clash:
            raise SystemExit(f"{file.name}: routes already defined: {sorted(clash)}")
        ROUTES.update(module.ROUTES)


load_route_modules()

# --- HTTP plumbing -----------------------------------------------------------

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "libnetcore-mock/1.0"
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):
        if self.server.verbose:
            sys.stderr.write(f"[mock] {self.address_string()} {fmt % args}\n")

    def setup(self):
        super().setup()
        with self.server.lock:
            self.server.connections += 1

    def handle(self):
        try:
            super().handle()
        except OSError:  # client went away (reset, broken pipe, ...): stay quiet
            self.close_connection = True

    def arg(self, name, default=None):
        values = self.query.get(name)
        return values[0] if values else default

    def int_arg(self, name, default):
        try:
            return int(self.arg(name, default))
        except (TypeError, ValueError):
            return default

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts = []
            while True:
                size = int(self.rfile.readline(65537).split(b";")[0].strip() or b"0", 16)
                if size <= 0:
                    break
                parts.append(self.rfile.read(size))
                self.rfile.readline(65537)  # CRLF after the chunk data
            while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                pass  # trailer fields
            return b"".join(parts)
        length = int(self.headers.get("Content-Length") or 0)
        if length < 0:
            raise ValueError("negative Content-Length")
        return self.rfile.read(length) if length else b""

    def start(self, status, ctype=None, length=0, headers=()):
        """Send status line + headers; return True if a body should follow."""
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        if length is not None and status not in NO_BODY:
            self.send_header("Content-Length", str(length))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.headers_sent = True
        return self.command != "HEAD" and status not in NO_BODY

    def send_body(self, status, body=b"", ctype=None, headers=()):
        if status in NO_BODY:
            body, ctype = b"", None
        if self.start(status, ctype, len(body), headers) and body:
            self.wfile.write(body)

    def send_json(self, status, obj, headers=()):
        self.send_body(status, dumps(obj), JSON_TYPE, headers)

    def dispatch(self):
        self.headers_sent = False
        target = urlsplit(self.path)
        path, self.prefix = target.path or "/", ""
        if path == "/api" or path.startswith("/api/"):
            self.prefix, path = "/api", path[4:] or "/"
        self.route_path = path
        self.query = parse_qs(target.query, keep_blank_values=True)
        if path not in UNCOUNTED:
            self.server.count(path, self.arg("key"))
        try:
            # /upload/unread never reads the body it is sent (an upload the server
            # stopped reading: the client's idle timeout must fire).
            self.body = b"" if path == "/upload/unread" else self.read_body()
        except ValueError:
            self.close_connection = True
            return self.send_json(400, {"error": "bad request body"}, [("Connection", "close")])
        route = ROUTES.get(path)
        if route is None:
            route = route_status if path.startswith("/status/") else route_not_found
            if path.startswith("/users/") and path.count("/") == 2:
                route = route_user
            if path.startswith("/signed/"):
                route = route_signed
        try:
            route(self)
        except OSError:
            raise
        except Exception:  # a bug in a route: report it, answer 500 if still possible
            traceback.print_exc(file=sys.stderr)
            if not self.headers_sent:
                self.send_json(500, {"error": "mock server error"})
            else:
                self.close_connection = True

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = dispatch


class MockHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 1024
    block_on_close = False

    def __init__(self, address, verbose=False):
        self.verbose = verbose
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.total, self.paths, self.flaky, self.keyed = 0, {}, {}, {}
        self.connections = 0
        super().__init__(address, Handler)

    def server_bind(self):
        # Skip HTTPServer.server_bind's getfqdn() (a reverse DNS lookup).
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def count(self, path, key=None):
        with self.lock:
            self.total += 1
            self.paths[path] = self.paths.get(path, 0) + 1
            if key is not None:
                self.keyed[key] = self.keyed.get(key, 0) + 1

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], OSError):
            return  # disconnects and resets are expected in these tests
        super().handle_error(request, client_address)


def watch_stdin(stop):
    try:
        while os.read(sys.stdin.fileno(), 4096):
            pass
    except (OSError, ValueError):
        pass
    stop.set()


def main(argv=None):
    parser = argparse.ArgumentParser(description="libnetcore loopback mock HTTP server")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--exit-on-stdin-eof", action="store_true")
    args = parser.parse_args(argv)

    server = MockHTTPServer((args.host, args.port), args.verbose)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    if args.exit_on_stdin_eof:
        threading.Thread(target=watch_stdin, args=(stop,), daemon=True).start()
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                     daemon=True).start()

    sys.stdout.write(f"PORT {server.server_address[1]}\n")
    sys.stdout.flush()
    sys.stdout = sys.stderr  # the PORT line is the only thing ever on stdout

    while not stop.wait(0.2):
        pass
    server.stopping.set()
    server.shutdown()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
