#!/usr/bin/env python3
"""Loopback API server for the app-mix benchmark (workload 8, bench/README.md).

An app's API, as the app-mix workload sees it: every answer takes server time
(5 ms of a database connection) and the server has a fixed capacity — WORKERS (16)
connections, as a real API has a pool — so requests beyond it queue; and it
counts what it was asked, so the benchmark can report the work each client made it
do. The capacity is what makes avoided requests count: a client that asks the same
thing twice waits behind its own duplicates. One asyncio event loop, HTTP/1.1
keep-alive, Content-Length on every response, binds 127.0.0.1 only.

  GET /list?id=N    a list screen's data: holds a worker LIST_MS (5 ms), ~2 KB of
                    envelope JSON with "Cache-Control: no-store" (never cacheable:
                    duplicates can only be saved while in flight)
  GET /res?id=N     a cacheable resource (an avatar's metadata, a config): waits
                    a worker RES_MS (5 ms), answers ~4 KB with "Cache-Control: max-age=1" and
                    ETag "v1-N"; a request whose If-None-Match matches gets a 304
                    (no body) after the same wait
  GET /item?id=N    a unique resource: a worker ITEM_MS (5 ms), ~300 bytes, no-store
  GET /_stats       {"list":n,"res":n,"res_304":n,"item":n,"total":n} (not counted)
  GET /_reset       zeroes the counters (not counted)

Prints "PORT <n>" on stdout once listening; exits on SIGTERM/SIGINT, on stdin EOF
with --exit-on-stdin-eof, and after --max-seconds (default 3600) in any case.
"""
import argparse
import asyncio
import json
import signal
import sys
from urllib.parse import parse_qs, urlsplit

LIST_MS, RES_MS, ITEM_MS = 5, 5, 5
WORKERS = 16  # requests served at once; the others wait in arrival order
STATS = {"list": 0, "res": 0, "res_304": 0, "item": 0, "total": 0}


def envelope(data):
    return json.dumps({"code": 0, "msg": "ok", "data": data}, separators=(",", ":")).encode()


def list_body(n):
    return envelope({"list": n, "rows": [{"id": i, "title": f"row {i} of list {n}", "score": i * 7 % 101}
                                         for i in range(40)]})


def res_body(n):
    return envelope({"res": n, "blob": ("r%d-" % n) * (4000 // (len(str(n)) + 2))})


class Workers:
    """WORKERS slots; a job waits for a free one in arrival order, then holds it ms."""

    def __init__(self, loop):
        self.loop, self.busy, self.queue = loop, 0, []

    def run(self, ms, done):
        if self.busy < WORKERS:
            self.busy += 1
            self.loop.call_later(ms / 1000.0, self.finish, done)
        else:
            self.queue.append((ms, done))

    def finish(self, done):
        self.busy -= 1
        done()
        if self.queue and self.busy < WORKERS:
            ms, nxt = self.queue.pop(0)
            self.run(ms, nxt)


WORKERS_POOL = None


class AppProtocol(asyncio.Protocol):
    def __init__(self, loop):
        self.loop = loop
        self.buf = b""
        self.transport = None
        self.pending = None

    def connection_made(self, transport):
        self.transport = transport

    def connection_lost(self, exc):
        self.transport = None

    def data_received(self, data):
        self.buf += data
        if self.pending is None:
            self.next_request()

    def next_request(self):
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            if len(self.buf) > 65536:
                self.transport.close()
            return
        head, self.buf = self.buf[:end].decode("latin-1"), self.buf[end + 4:]
        lines = head.split("\r\n")
        parts = lines[0].split(" ")
        target = parts[1] if len(parts) > 1 else "/"
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        close = "close" in headers.get("connection", "").lower()
        url = urlsplit(target)
        try:
            n = int(parse_qs(url.query).get("id", ["0"])[0])
        except ValueError:
            n = 0
        path = url.path
        if path == "/_stats":
            self.respond(200, json.dumps(STATS).encode(), (), close)
        elif path == "/_reset":
            for k in STATS:
                STATS[k] = 0
            self.respond(200, b"{}", (), close)
        elif path == "/list":
            STATS["list"] += 1
            STATS["total"] += 1
            self.later(LIST_MS, 200, list_body(n), (("Cache-Control", "no-store"),), close)
        elif path == "/res":
            STATS["res"] += 1
            STATS["total"] += 1
            etag = f'"v1-{n}"'
            cache = (("Cache-Control", "max-age=1"), ("ETag", etag))
            if headers.get("if-none-match") == etag:
                STATS["res_304"] += 1
                self.later(RES_MS, 304, b"", cache, close)
            else:
                self.later(RES_MS, 200, res_body(n), cache, close)
        elif path == "/item":
            STATS["item"] += 1
            STATS["total"] += 1
            self.later(ITEM_MS, 200, envelope({"item": n, "name": f"item {n}"}),
                       (("Cache-Control", "no-store"),), close)
        else:
            self.respond(404, b'{"error":"not found"}', (), close)

    def later(self, ms, status, body, headers, close):
        self.pending = True  # answered in order: the next request waits for this one
        WORKERS_POOL.run(ms, lambda: self.respond(status, body, headers, close))

    def respond(self, status, body, headers, close):
        self.pending = None
        if self.transport is None:
            return
        reason = {200: "OK", 304: "Not Modified", 404: "Not Found"}[status]
        extra = "".join(f"{k}: {v}\r\n" for k, v in headers)
        length = "" if status == 304 else f"Content-Length: {len(body)}\r\n"
        head = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n{length}{extra}"
                f"Connection: {'close' if close else 'keep-alive'}\r\n\r\n").encode()
        self.transport.write(head + body)
        if close:
            self.transport.close()
        elif self.buf:
            self.next_request()


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--exit-on-stdin-eof", action="store_true")
    ap.add_argument("--max-seconds", type=float, default=3600)
    args = ap.parse_args()
    loop = asyncio.get_running_loop()
    global WORKERS_POOL
    WORKERS_POOL = Workers(loop)
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
    server = await loop.create_server(lambda: AppProtocol(loop), "127.0.0.1", args.port,
                                      backlog=4096, reuse_address=True)
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    if args.exit_on_stdin_eof:
        def on_stdin():
            if not sys.stdin.buffer.read1(4096):
                loop.remove_reader(sys.stdin.fileno())
                stop.done() or stop.set_result(None)
        loop.add_reader(sys.stdin.fileno(), on_stdin)
    try:
        await asyncio.wait_for(stop, timeout=args.max_seconds)
    except asyncio.TimeoutError:
        pass
    server.close()


if __name__ == "__main__":
    asyncio.run(main())
