"""Misbehaving-server routes of the fault-injection suite (Tests/fault, docs/RELIABILITY.md).

Each route writes scripted bytes straight to the socket (no help from
http.server once the request is read), then closes the connection. Long-running
routes stop when the client goes away or the server stops, so a test that gave
up leaves no thread behind. The suite's table (Tests/fault/fault_driver.c) also
uses older raw routes of mock_server.py (/raw/*, /reset, /close-early,
/redirect*); these are the rest.

  /fault/ok                     200, ok envelope {"fault":"ok"}, keep-alive (the
                                "same client serves the next request" check)
  /fault/never-answers          reads the request, then sends nothing
  /fault/slowloris?ms=M         a status line, then one header byte every M ms
                                (default 50), for ever
  /fault/slow-body?ms=M         headers (Content-Length 1000000), then one body
                                byte every M ms
  /fault/endless-body           200 without Content-Length (ends at close), body
                                bytes for ever
  /fault/endless-chunked        200 chunked, 64 KiB chunks for ever
  /fault/endless-headers        a status line, then header lines for ever
  /fault/reset-mid-headers      a status line and 3 header lines, then a TCP RST
  /fault/conflicting-length?mode=lines|list|same|cases
                                lines: "Content-Length: 60" and "Content-Length:
                                5"; list: one "Content-Length: 60, 5"; same: the
                                right value twice (RFC 9110 §8.6 allows that);
                                cases: "content-length: 60" and "CONTENT-LENGTH:
                                5" (field names ignore case); then the 60-byte ok
                                envelope
  /fault/length-and-chunked     "Content-Length: 5" and "Transfer-Encoding:
                                chunked", then the ok envelope, chunked
  /fault/chunk?size=S           a chunked 200 whose first chunk-size line is S
                                (e.g. "zz", 20 hex digits, 7fffffffffffffff),
                                then 10 bytes and a close
  /fault/truncated-final-chunk  a chunked ok envelope without its last chunk
                                ("0\\r\\n\\r\\n"), then a close
  /fault/gzip-bomb?mb=N         N MiB (default 64) of zeros, gzip-compressed
                                (N/1000 of that on the wire), Content-Encoding: gzip
  /fault/encoding?stack=E1,E2   the ok envelope encoded with E1 then E2 (gzip,
                                deflate, identity), "Content-Encoding: E1, E2";
                                any other name is sent unencoded, as named
  /fault/folded-first-line?ws=space|tab&interim=K&version=V
                                K "HTTP/1.1 100 Continue" blocks with no header
                                line (default 0), then a 200 whose first line
                                after the status line begins with a space (or a
                                tab): " X-Folded: x", then the ok envelope
                                (libcurl 7.83.1 to 8.0.1 unfold it onto the
                                handle's previous transfer's freed header); the
                                status line says "HTTP/V" (default 1.1; libcurl
                                takes "HTTP/2 200" over HTTP/1.1 too)
  /fault/json/<kind>            200 application/json, a hostile body (JSON_BODIES)
"""
import gzip
import json
import os
import select
import socket
import struct
import threading
import time
import zlib

OK_BODY = json.dumps({"code": 0, "msg": "ok", "data": {"fault": "ok"}},
                     separators=(",", ":")).encode()
JSON_HEAD = b"Content-Type: application/json; charset=utf-8\r\n"


def raw(h):
    """Takes the socket over from http.server: nothing more will be written by it."""
    h.headers_sent = True
    h.close_connection = True
    return h.connection


def gone(h, seconds):
    """Waits up to `seconds`; True as soon as the client closed or the server stops."""
    sock = h.connection
    end = time.monotonic() + seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return False
        if h.server.stopping.is_set():
            return True
        readable, _, _ = select.select([sock], [], [], min(0.05, left))
        if readable:
            try:
                if not sock.recv(4096, socket.MSG_PEEK):
                    return True  # EOF: the client closed
                sock.recv(4096)  # a pipelined byte: drop it
            except OSError:
                return True


def send_all(h, data):
    try:
        h.connection.sendall(data)
        return True
    except OSError:
        return False


def reset(h):
    """Closes with SO_LINGER 0: the peer sees a TCP RST."""
    sock = h.connection
    time.sleep(0.05)  # let the client read what was sent before the RST
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    os.close(sock.detach())


def chunk(data):
    return b"%x\r\n%s\r\n" % (len(data), data)


def route_ok(h):
    h.send_body(200, OK_BODY, "application/json; charset=utf-8")


def route_never_answers(h):
    raw(h)
    gone(h, 120)


def route_slowloris(h):
    raw(h)
    ms = max(1, h.int_arg("ms", 50))
    if not send_all(h, b"HTTP/1.1 200 OK\r\n"):
        return
    line = b"X-Slow: " + b"s" * 40 + b"\r\n"
    for i in range(100000):
        if not send_all(h, line[i % len(line):i % len(line) + 1]) or gone(h, ms / 1000.0):
            return


def route_slow_body(h):
    raw(h)
    ms = max(1, h.int_arg("ms", 50))
    if not send_all(h, b"HTTP/1.1 200 OK\r\n" + JSON_HEAD + b"Content-Length: 1000000\r\n\r\n"):
        return
    for _ in range(1000000):
        if not send_all(h, b" ") or gone(h, ms / 1000.0):
            return


FILL = b"x" * 65536


def endless(h, head, piece, limit=1 << 34):
    raw(h)
    if not send_all(h, head):
        return
    sent = 0
    while sent < limit and not h.server.stopping.is_set():
        if not send_all(h, piece):
            return
        sent += len(piece)


def route_endless_body(h):
    endless(h, b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n", FILL)


def route_endless_chunked(h):
    endless(h, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", chunk(FILL))


def route_endless_headers(h):
    lines = b"".join(b"X-Endless-%d: %s\r\n" % (i, b"v" * 50) for i in range(1000))
    endless(h, b"HTTP/1.1 200 OK\r\n", lines)


def route_reset_mid_headers(h):
    raw(h)
    if send_all(h, b"HTTP/1.1 200 OK\r\n" + JSON_HEAD + b"X-A: 1\r\nX-B: 2\r\n"):
        reset(h)


def route_conflicting_length(h):
    raw(h)
    mode, n = h.arg("mode", "lines"), len(OK_BODY)
    lengths = {"lines": b"Content-Length: %d\r\nContent-Length: 5\r\n" % n,
               "list": b"Content-Length: %d, 5\r\n" % n,
               "same": b"Content-Length: %d\r\nContent-Length: %d\r\n" % (n, n),
               "cases": b"content-length: %d\r\nCONTENT-LENGTH: 5\r\n" % n}[mode]
    send_all(h, b"HTTP/1.1 200 OK\r\n" + JSON_HEAD + lengths + b"\r\n" + OK_BODY)


def route_length_and_chunked(h):
    raw(h)
    send_all(h, b"HTTP/1.1 200 OK\r\n" + JSON_HEAD + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
             + chunk(OK_BODY[:20]) + chunk(OK_BODY[20:]) + b"0\r\n\r\n")


def route_chunk(h):
    raw(h)
    size = h.arg("size", "zz").encode("latin-1")
    send_all(h, b"HTTP/1.1 200 OK\r\n" + JSON_HEAD + b"Transfer-Encoding: chunked\r\n\r\n"
             + size + b"\r\n" + b"x" * 10)


def route_truncated_final_chunk(h):
    raw(h)
    send_all(h, b"HTTP/1.1 200 OK\r\n" + JSON_HEAD + b"Transfer-Encoding: chunked\r\n\r\n"
             + chunk(OK_BODY[:20]) + chunk(OK_BODY[20:]))


def route_folded_first_line(h):
    raw(h)
    ws = b"\t" if h.arg("ws", "space") == "tab" else b" "
    interim = b"HTTP/1.1 100 Continue\r\n\r\n" * min(max(0, h.int_arg("interim", 0)), 10)
    version = h.arg("version", "1.1").encode("latin-1")
    send_all(h, interim + b"HTTP/" + version + b" 200 OK\r\n" + ws + b"X-Folded: x\r\n" + JSON_HEAD
             + b"Content-Length: %d\r\n\r\n" % len(OK_BODY) + OK_BODY)


_bombs = {}
_bombs_lock = threading.Lock()


def gzip_bomb(mb):
    with _bombs_lock:
        if mb not in _bombs:
            z = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: gzip framing
            block = b"\0" * (1 << 20)
            _bombs[mb] = b"".join(z.compress(block) for _ in range(mb)) + z.flush()
        return _bombs[mb]


def route_gzip_bomb(h):
    raw(h)
    body = gzip_bomb(min(max(1, h.int_arg("mb", 64)), 1024))
    send_all(h, b"HTTP/1.1 200 OK\r\n" + JSON_HEAD + b"Content-Encoding: gzip\r\n"
             + b"Content-Length: %d\r\n\r\n" % len(body) + body)


def encode(name, data):
    if name == "gzip":
        return gzip.compress(data, mtime=0)
    if name == "deflate":
        return zlib.compress(data)  # zlib framing: what "deflate" means in HTTP
    return data  # identity, or a name the client cannot know: sent as is


def route_encoding(h):
    raw(h)
    names = [n.strip() for n in h.arg("stack", "gzip,gzip").split(",") if n.strip()]
    body = OK_BODY
    for name in names:
        body = encode(name, body)
    send_all(h, b"HTTP/1.1 200 OK\r\n" + JSON_HEAD
             + b"Content-Encoding: %s\r\n" % ", ".join(names).encode("latin-1")
             + b"Content-Length: %d\r\n\r\n" % len(body) + body)


def nested(depth):
    """An envelope whose whole document nests `depth` levels (the object itself is 1)."""
    inner = depth - 1  # the envelope object is one level
    return b'{"code":0,"msg":"ok","data":' + b"[" * inner + b"]" * inner + b"}"


def many_keys(n):
    members = b",".join(b'"k%d":%d' % (i, i) for i in range(n))
    return b'{"code":0,"msg":"ok","data":{' + members + b"}}"


JSON_BODIES = {
    "truncated": lambda: b'{"code":0,"msg":"ok","data":{"a":[1,2',
    "depth-2048": lambda: nested(2048),
    "depth-2049": lambda: nested(2049),
    "depth-100000": lambda: nested(100000),
    "nan": lambda: b'{"code":0,"msg":"ok","data":NaN}',
    "huge-number": lambda: b'{"code":0,"msg":"ok","data":1e999}',
    "invalid-utf8": lambda: b'{"code":0,"msg":"ok \xff\xfe","data":1}',
    "lone-surrogate": lambda: b'{"code":0,"msg":"ok","data":"\\ud800"}',
    "surrogate-bytes": lambda: b'{"code":0,"msg":"ok","data":"\xed\xa0\x80"}',
    "duplicate-keys": lambda: b'{"code":7,"msg":"first","code":0,"msg":"ok","data":{"a":1,"a":2}}',
    "duplicate-code": lambda: b'{"code":7,"msg":"denied","code":0}',
    "duplicate-escaped": lambda: b'{"code":7,"msg":"denied","co\\u0064e":0}',
    "duplicate-nested": lambda: b'{"code":0,"msg":"ok","data":{"user":{"id":1,"id":2}}}',
    "keys-100k": lambda: many_keys(100000),
}


def route_json(h):
    make = JSON_BODIES.get(h.route_path[len("/fault/json/"):])
    if make is None:
        return h.send_json(404, {"error": "no such json case", "path": h.route_path})
    raw(h)
    body = make()
    send_all(h, b"HTTP/1.1 200 OK\r\n" + JSON_HEAD + b"Content-Length: %d\r\n\r\n" % len(body) + body)


ROUTES = {
    "/fault/ok": route_ok,
    "/fault/never-answers": route_never_answers,
    "/fault/slowloris": route_slowloris,
    "/fault/slow-body": route_slow_body,
    "/fault/endless-body": route_endless_body,
    "/fault/endless-chunked": route_endless_chunked,
    "/fault/endless-headers": route_endless_headers,
    "/fault/reset-mid-headers": route_reset_mid_headers,
    "/fault/conflicting-length": route_conflicting_length,
    "/fault/length-and-chunked": route_length_and_chunked,
    "/fault/chunk": route_chunk,
    "/fault/truncated-final-chunk": route_truncated_final_chunk,
    "/fault/folded-first-line": route_folded_first_line,
    "/fault/gzip-bomb": route_gzip_bomb,
    "/fault/encoding": route_encoding,
}
ROUTES.update({"/fault/json/" + kind: route_json for kind in JSON_BODIES})
