#!/usr/bin/env python3
"""Loopback "slow route" server for workload 5 of the benchmark (bench/README.md).

nginx cannot sleep, and the repo's mock server (Tests/Support/mock_server.py) runs a
thread per connection with a listen backlog of 5, which is not built for 10,000
connections at once. This one is a single asyncio event loop:

  GET /slow?ms=N   waits N ms (default 1000), then answers 200 with the envelope
                   {"code":0,"msg":"ok","data":{"slept_ms":N}}
  anything else    404

HTTP/1.1 keep-alive and the process contract of http_loop.py (default --max-seconds 3600).
"""
import json
from urllib.parse import parse_qs

from http_loop import KeepAliveProtocol, serve


class SlowProtocol(KeepAliveProtocol):
    def handle(self, url, headers, close):
        if url.path != "/slow":
            self.respond(404, json.dumps({"error": "not found", "path": url.path}).encode(), close=close)
            return
        try:
            ms = int(parse_qs(url.query).get("ms", ["1000"])[0])
        except ValueError:
            ms = 1000
        ms = max(0, min(ms, 120000))
        body = json.dumps({"code": 0, "msg": "ok", "data": {"slept_ms": ms}}, separators=(",", ":")).encode()
        self.pending = self.loop.call_later(ms / 1000.0, self.respond, 200, body, (), close)


if __name__ == "__main__":
    serve(SlowProtocol, backlog=16384)
