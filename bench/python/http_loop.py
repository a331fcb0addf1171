"""The HTTP/1.1 plumbing the benchmark's asyncio servers share (slow_server.py,
appmix_server.py): one event loop, keep-alive connections answered one request at
a time, Content-Length on every response except 304, 127.0.0.1 only, and the
process contract of the test servers — "PORT <n>" on stdout once listening; exits
on SIGTERM/SIGINT, on stdin EOF with --exit-on-stdin-eof, and after --max-seconds
in any case."""
import argparse
import asyncio
import signal
import sys
from urllib.parse import urlsplit

REASONS = {200: "OK", 304: "Not Modified", 404: "Not Found"}


class KeepAliveProtocol(asyncio.Protocol):
    """Parses requests (no bodies: the benchmark sends GETs) and hands each to
    `handle(url, headers, close)`, which answers with `respond` now or later;
    the next request on the connection waits until then."""

    def __init__(self, loop):
        self.loop = loop
        self.buf = b""
        self.transport = None
        self.pending = None   # a request is being answered (a TimerHandle, or True)

    def connection_made(self, transport):
        self.transport = transport

    def connection_lost(self, exc):
        if hasattr(self.pending, "cancel"):
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
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        close = "close" in headers.get("connection", "").lower()
        self.pending = True
        self.handle(urlsplit(parts[1] if len(parts) > 1 else "/"), headers, close)

    def handle(self, url, headers, close):
        raise NotImplementedError

    def respond(self, status, body=b"", headers=(), close=False):
        self.pending = None
        if self.transport is None:
            return
        extra = "".join(f"{k}: {v}\r\n" for k, v in headers)
        length = "" if status == 304 else f"Content-Length: {len(body)}\r\n"
        head = (f"HTTP/1.1 {status} {REASONS.get(status, 'OK')}\r\nContent-Type: application/json\r\n"
                f"{length}{extra}Connection: {'close' if close else 'keep-alive'}\r\n\r\n").encode()
        self.transport.write(head + body)
        if close:
            self.transport.close()
        elif self.buf:
            self.next_request()


def serve(protocol, setup=None, backlog=4096):
    """Runs a server of `protocol(loop)` until a signal, stdin EOF or the time limit."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--exit-on-stdin-eof", action="store_true")
    ap.add_argument("--max-seconds", type=float, default=3600)
    args = ap.parse_args()

    async def main():
        loop = asyncio.get_running_loop()
        if setup:
            setup(loop)
        stop = loop.create_future()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
        server = await loop.create_server(lambda: protocol(loop), "127.0.0.1", args.port,
                                          backlog=backlog, reuse_address=True)
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

    asyncio.run(main())
