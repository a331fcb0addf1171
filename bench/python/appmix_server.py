#!/usr/bin/env python3
"""Loopback API server for the app-mix benchmark (workload 8, bench/README.md).

An app's API, as the app-mix workload sees it: every answer takes server time
(5 ms of a database connection) and the server has a fixed capacity — WORKERS (16)
connections, as a real API has a pool — so requests beyond it queue; and it
counts what it was asked, so the benchmark can report the work each client made it
do. The capacity is what makes avoided requests count: a client that asks the same
thing twice waits behind its own duplicates. HTTP/1.1 keep-alive and the process
contract of http_loop.py.

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

"""
import json
from urllib.parse import parse_qs

from http_loop import KeepAliveProtocol, serve

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


POOL = []


class AppProtocol(KeepAliveProtocol):
    def handle(self, url, headers, close):
        try:
            n = int(parse_qs(url.query).get("id", ["0"])[0])
        except ValueError:
            n = 0
        path = url.path
        if path == "/_stats":
            self.respond(200, json.dumps(STATS).encode(), close=close)
        elif path == "/_reset":
            for k in STATS:
                STATS[k] = 0
            self.respond(200, b"{}", close=close)
        elif path == "/list":
            self.count("list")
            self.later(LIST_MS, 200, list_body(n), (("Cache-Control", "no-store"),), close)
        elif path == "/res":
            self.count("res")
            etag = f'"v1-{n}"'
            cache = (("Cache-Control", "max-age=1"), ("ETag", etag))
            if headers.get("if-none-match") == etag:
                STATS["res_304"] += 1
                self.later(RES_MS, 304, b"", cache, close)
            else:
                self.later(RES_MS, 200, res_body(n), cache, close)
        elif path == "/item":
            self.count("item")
            self.later(ITEM_MS, 200, envelope({"item": n, "name": f"item {n}"}),
                       (("Cache-Control", "no-store"),), close)
        else:
            self.respond(404, b'{"error":"not found"}', close=close)

    @staticmethod
    def count(kind):
        STATS[kind] += 1
        STATS["total"] += 1

    def later(self, ms, status, body, headers, close):
        POOL[0].run(ms, lambda: self.respond(status, body, headers, close))


if __name__ == "__main__":
    serve(AppProtocol, setup=lambda loop: POOL.append(Workers(loop)))
