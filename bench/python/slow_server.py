#!/usr/bin/env python3
"""Loopback "slow route" server for workload 5 of the benchmark (bench/README.md).

nginx cannot sleep, and the repo's mock server (Tests/Support/mock_server.py) runs a
thread per connection with a listen backlog of 5, which is not built for 10,000
connections at once. This one is a single asyncio event loop:

  GET /slow?ms=N   waits N ms (default 1000), then answers 200 with the envelope
                   {"code":0,"msg":"ok","data":{"slept_ms":N}}
  anything else    404

HTTP/1.1 keep-alive, Content-Length on every response, binds 127.0.0.1 only.
Prints "PORT <n>" on stdout once listening; exits on SIGTERM/SIGINT, on stdin EOF
with --exit-on-stdin-eof, and after --max-seconds (default 3600) in any case.
"""
import argparse
import asyncio
import json
import signal
import sys
from urllib.parse import parse_qs, urlsplit


class SlowProtocol(asyncio.Protocol):
    def __init__(self, loop):
        self.loop = loop
        self.buf = b""
        self.transport = None
        self.pending = None

    def connection_made(self, transport):
        self.transport = transport

    def connection_lost(self, exc):
        if self.pending:
            self.pending.cancel()
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
        close = any(l.lower().startswith("connection:") and "close" in l.lower() for l in lines[1:])
        url = urlsplit(target)
        if url.path != "/slow":
            self.respond(404, {"error": "not found", "path": url.path}, close)
            return
        try:
            ms = int(parse_qs(url.query).get("ms", ["1000"])[0])
        except ValueError:
            ms = 1000
        ms = max(0, min(ms, 120000))
        self.pending = self.loop.call_later(
            ms / 1000.0, self.respond, 200, {"code": 0, "msg": "ok", "data": {"slept_ms": ms}}, close)

    def respond(self, status, obj, close):
        self.pending = None
        if self.transport is None:
            return
        body = json.dumps(obj, separators=(",", ":")).encode()
        reason = "OK" if status == 200 else "Not Found"
        head = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n"
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
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
    server = await loop.create_server(lambda: SlowProtocol(loop), "127.0.0.1", args.port,
                                      backlog=16384, reuse_address=True)
    port = server.sockets[0].getsockname()[1]
    print(f"PORT {port}", flush=True)
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
