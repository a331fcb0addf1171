#!/usr/bin/env python3
"""relay.py — the delay relay of the shaping kit (Tests/netns/README.md).

This machine's kernel has no netem qdisc, so delay and jitter are added in user
space: a TCP relay between a client and a server that holds every chunk it reads
for the one-way delay before writing it on. Each direction is delayed
separately, so a request and its answer cost one round trip (--rtt-ms).

    relay.py --listen 127.0.0.1:0 --target 10.213.7.2:8443 --rtt-ms 80 --jitter-ms 10

prints "PORT <n>" on stdout once it listens (the only line it ever writes there).

  * one-way delay = rtt/2 + a uniform draw in [-jitter, +jitter] per chunk, never
    below 0 and never reordering a stream (a chunk leaves no earlier than the one
    read before it);
  * the TCP handshake costs one round trip too: the client's connect() returns at
    once (the relay's kernel accepts it), so the client's first bytes are held until
    1.5 rtt after the connect (when they would reach the server on a real link);
  * back-pressure: at most --window bytes wait in a direction; past that the relay
    stops reading that side (the sender's kernel buffers then fill, so a slow
    link slows the sender instead of piling up in the relay);
  * a close or a reset on one side reaches the other after the delay (a reset as a
    reset: SO_LINGER 0), so a black hole or a reset set up on the path behind the
    relay (Tests/netns/netns.sh) is seen by the client as it would be;
  * --stats FILE: a JSON object {"accepted", "open", "bytes_up", "bytes_down",
    "upstream_failed"} rewritten on every connection's end (the tests read it).

It runs until SIGTERM / SIGINT, or --max-seconds. Standard library only.
"""
import argparse
import asyncio
import json
import os
import random
import signal
import socket
import struct
import sys
import time

STATS = {"accepted": 0, "open": 0, "bytes_up": 0, "bytes_down": 0, "upstream_failed": 0}


def write_stats(path):
    if not path:
        return
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(STATS, f)
    os.replace(tmp, path)


def abort(writer):
    """Close with a reset (RST), not a FIN."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    writer.transport.abort()


class Direction:
    """One direction of one connection: chunks read, held, written in order."""

    def __init__(self, args, reader, writer, counter, not_before=0.0):
        self.args, self.reader, self.writer, self.counter = args, reader, writer, counter
        self.queue = asyncio.Queue()
        self.queued = 0
        self.room = asyncio.Event()
        self.room.set()
        self.last = not_before  # monotonic time the previous chunk left (or may first leave)

    def due(self):
        one_way = self.args.rtt_ms / 2000.0
        jitter = self.args.jitter_ms / 1000.0
        d = max(0.0, one_way + (random.uniform(-jitter, jitter) if jitter else 0.0))
        self.last = max(time.monotonic() + d, self.last)
        return self.last

    async def read_side(self):
        end = "eof"
        try:
            while True:
                await self.room.wait()
                data = await self.reader.read(65536)
                if not data:
                    break
                self.queued += len(data)
                if self.queued >= self.args.window:
                    self.room.clear()
                self.queue.put_nowait((self.due(), data))
        except (ConnectionResetError, BrokenPipeError):
            end = "reset"
        except OSError:
            end = "reset"
        self.queue.put_nowait((self.due(), end))

    async def write_side(self):
        """Returns "eof" or "reset": how the read side ended (or the write failed)."""
        while True:
            at, data = await self.queue.get()
            wait = at - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if isinstance(data, str):
                return data
            try:
                self.writer.write(data)
                await self.writer.drain()
            except (ConnectionError, OSError):
                return "reset"
            STATS[self.counter] += len(data)
            self.queued -= len(data)
            if self.queued < self.args.window:
                self.room.set()


async def pipe(direction):
    reader_task = asyncio.ensure_future(direction.read_side())
    how = await direction.write_side()
    reader_task.cancel()
    await asyncio.gather(reader_task, return_exceptions=True)
    if how == "reset":
        abort(direction.writer)
        return "reset"
    try:
        if direction.writer.can_write_eof():
            direction.writer.write_eof()
    except OSError:
        pass
    return "eof"


async def handle(args, c_reader, c_writer):
    try:
        await relay_one(args, c_reader, c_writer)
    except asyncio.CancelledError:
        pass  # the relay is stopping


async def relay_one(args, c_reader, c_writer):
    STATS["accepted"] += 1
    STATS["open"] += 1
    accepted = time.monotonic()
    host, port = args.target
    u_writer = None
    try:
        # The connect to the server goes out after the one-way delay (the SYN's trip).
        await asyncio.sleep(args.rtt_ms / 2000.0)
        try:
            u_reader, u_writer = await asyncio.wait_for(
                asyncio.open_connection(host, port), timeout=args.connect_timeout)
        except (OSError, asyncio.TimeoutError) as e:
            STATS["upstream_failed"] += 1
            # A refused/reset connect reaches the client as a reset, a black hole as
            # a connection that never answers and is closed when the client gives up.
            if isinstance(e, (ConnectionRefusedError, ConnectionResetError)):
                await asyncio.sleep(args.rtt_ms / 2000.0)
                abort(c_writer)
            else:
                try:
                    while await c_reader.read(65536):
                        pass
                except OSError:
                    pass
                abort(c_writer)
            return
        for w in (c_writer, u_writer):
            s = w.get_extra_info("socket")
            if s is not None:
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        up = Direction(args, c_reader, u_writer, "bytes_up",
                       not_before=accepted + 1.5 * args.rtt_ms / 1000.0 if args.connect_rtt else 0.0)
        down = Direction(args, u_reader, c_writer, "bytes_down")
        pending = {asyncio.ensure_future(pipe(up)), asyncio.ensure_future(pipe(down))}
        while pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            if any(t.result() == "reset" for t in done):
                abort(c_writer)  # a reset on one side resets the other: both ends learn
                abort(u_writer)
    finally:
        for w in (c_writer, u_writer):
            if w is not None:
                try:
                    w.close()
                except OSError:
                    pass
        STATS["open"] -= 1
        write_stats(args.stats)


def host_port(text):
    host, _, port = text.rpartition(":")
    return host.strip("[]"), int(port)


async def main_async(args):
    server = await asyncio.start_server(lambda r, w: handle(args, r, w), args.listen[0],
                                        args.listen[1], backlog=4096, reuse_address=True)
    port = server.sockets[0].getsockname()[1]
    sys.stdout.write(f"PORT {port}\n")
    sys.stdout.flush()
    write_stats(args.stats)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await asyncio.wait_for(stop.wait(), timeout=args.max_seconds)
    except asyncio.TimeoutError:
        pass
    server.close()
    write_stats(args.stats)


def main(argv=None):
    p = argparse.ArgumentParser(description="TCP relay adding a per-direction delay with jitter")
    p.add_argument("--listen", type=host_port, default=("127.0.0.1", 0))
    p.add_argument("--target", type=host_port, required=True)
    p.add_argument("--rtt-ms", type=float, default=0.0, help="round-trip time added (half each way)")
    p.add_argument("--jitter-ms", type=float, default=0.0, help="+/- this much per chunk and direction")
    p.add_argument("--no-connect-rtt", dest="connect_rtt", action="store_false",
                   help="do not charge the TCP handshake's round trip")
    p.add_argument("--window", type=int, default=1 << 20, help="bytes held per direction at most")
    p.add_argument("--connect-timeout", type=float, default=30.0)
    p.add_argument("--stats", default="")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--max-seconds", type=float, default=3600.0)
    args = p.parse_args(argv)
    if args.seed is not None:
        random.seed(args.seed)
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
