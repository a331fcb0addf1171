#!/usr/bin/env python3
"""h2_server.py — a scriptable HTTP/2 server that misbehaves on request, for the
HTTP/2 fault suite (Tests/fault/h2.sh, docs/RELIABILITY.md).

HTTP/2 over TLS with ALPN "h2" only, on free 127.0.0.1 ports, written on the `h2`
package (PyPI; the suite installs it into a venv under build/). The certificate
is a throwaway self-signed one (CN localhost, SAN IP 127.0.0.1) made with openssl
in a temporary directory at start-up, removed at exit; clients trust it as their
CA file. The first line on stdout is JSON:

  {"ports": {"main": P, "mcs1": Q}, "ca": "/tmp/.../cert.pem"}

  main   SETTINGS_MAX_CONCURRENT_STREAMS 1000
  mcs1   SETTINGS_MAX_CONCURRENT_STREAMS 1; a stream opened while another is
         unanswered is reset with REFUSED_STREAM (not processed), and every
         answer is held `hold` ms (default 5) so that queueing shows

Every answer is the envelope {"code":0,"msg":"ok","data":{...}} whose data holds
"id" (the request's `id` query parameter), "conn" (the connection's number, from
1, in order of acceptance), "stream" and "method". The server *processes* a
request when it answers it, and counts that per id: what the driver reads back
to prove that nothing was lost or doubled.

Routes (the path; parameters in the query):

  /ok?id=I                  answered
  /counts?prefix=P          data: {id: times processed} for every id starting with P,
                            and "stats": {"max_open": most streams open at once on
                            an mcs1 connection, "refused": streams mcs1 refused,
                            "refused_after_ack": of those, the ones opened after the
                            client acknowledged the SETTINGS that said 1}
  /goaway?tag=T&n=N&answer=A&id=I
                            held until the connection has N of tag T's streams; then
                            the A lowest are answered, GOAWAY(NO_ERROR, last-stream-id
                            = the highest answered) is sent and the connection closed:
                            the others were not processed. Once per tag: later ones
                            (on a new connection) are answered at once
  /rst?code=C&id=I          the first stream of id I is reset with RST_STREAM(C), not
                            processed; later ones are answered
  /stall?tag=T&id=I         a request with a body: its stream's flow-control window
                            is never reopened (the connection's is), and it is never
                            answered; the server notes when the window is used up
  /wait-stall?tag=T&id=I    held until tag T's stalled stream has used its window up;
                            data also has "stall_conn", "stall_open" (not yet reset
                            by the client), "stall_received"
  /flood?n=N&id=I           N SETTINGS frames (each MAX_CONCURRENT_STREAMS 1000,
                            sent in one write) before the answer
  /headers?n=N&size=S&frame=F&id=I
                            an answer with N extra header fields (x-h-K: S bytes),
                            its header block cut into a HEADERS and CONTINUATION frames
                            of F bytes (default and most: the client's 16 KiB)
  /push?id=I                a PUSH_PROMISE for /pushed on the request's stream (the
                            client said SETTINGS_ENABLE_PUSH 0), then the answer
  /die?tag=T&n=N&mode=M&process=0|1&id=I
                            held until the server has N of tag T's streams (over all
                            connections), then each connection holding one is reset
                            (mode rst, SO_LINGER 0) or
                            closed without TLS close_notify (mode fin): none was
                            processed, or (process=1) every one was, unanswered.
                            Once per tag, as /goaway

Flags: --exit-on-stdin-eof (Tests/fault/servers.sh).
"""
import argparse
import json
import os
import select
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import parse_qs, urlsplit

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings
from hyperframe.frame import ContinuationFrame, DataFrame, HeadersFrame, PushPromiseFrame, SettingsFrame

LOCK = threading.Lock()
COUNTS = {}  # id -> times processed
FIRED = set()  # tags whose /goaway or /die already ran
HELD = {}  # tag -> /die streams held, over every connection
RST_DONE = set()  # ids /rst already reset once
STALLS = {}  # tag -> {"conn", "open", "received"}
STATS = {"max_open": 0, "refused": 0, "refused_after_ack": 0}
NEXT_CONN = [0]
STREAM_WINDOW = 65535  # the client's initial stream window for what it sends (RFC 9113 default)


def processed(rid):
    with LOCK:
        COUNTS[rid] = COUNTS.get(rid, 0) + 1


class Stream:
    def __init__(self, sid, headers):
        self.sid = sid
        h = dict(headers)
        self.method = h.get(":method", "?")
        url = urlsplit(h.get(":path", "/"))
        self.path = url.path
        self.query = {k: v[0] for k, v in parse_qs(url.query).items()}
        self.id = self.query.get("id", "")
        self.body = bytearray()
        self.ended = False
        self.answered = False
        self.due = None  # monotonic time an mcs1 answer is due

    def arg(self, name, default):
        return self.query.get(name, default)


class Connection:
    def __init__(self, sock, profile):
        with LOCK:
            NEXT_CONN[0] += 1
            self.no = NEXT_CONN[0]
        self.sock = sock
        self.profile = profile
        cfg = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        self.h2 = h2.connection.H2Connection(config=cfg)
        self.h2.local_settings = h2.settings.Settings(
            client=False,
            initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1000,
                            h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE: 1 << 20})
        self.streams = {}
        self.held = {}  # tag -> [Stream] (goaway, die)
        self.closed = False
        self.acked = False  # the client acknowledged our first SETTINGS

    # -- output ---------------------------------------------------------------------

    def flush(self, extra=b""):
        data = self.h2.data_to_send() + extra
        if data:
            self.sock.sendall(data)

    def answer(self, s, data=None, extra_headers=()):
        if s.answered:
            return
        s.answered = True
        body = dict(id=s.id, conn=self.no, stream=s.sid, method=s.method)
        body.update(data or {})
        payload = json.dumps({"code": 0, "msg": "ok", "data": body}).encode()
        headers = [(":status", "200"), ("content-type", "application/json"),
                   ("content-length", str(len(payload)))] + list(extra_headers)
        self.h2.send_headers(s.sid, headers)
        self.h2.send_data(s.sid, payload, end_stream=True)
        if not s.path.startswith("/counts"):
            processed(s.id)

    # -- the routes -----------------------------------------------------------------

    def on_request(self, s):
        """A request whose stream ended (its body is whole), or /stall's headers."""
        p = s.path
        if self.profile == "mcs1":
            open_now = sum(1 for x in self.streams.values() if not x.answered and x is not s)
            if open_now >= 1:
                with LOCK:
                    STATS["refused"] += 1
                    if self.acked:
                        STATS["refused_after_ack"] += 1
                s.answered = True
                self.h2.reset_stream(s.sid, h2.errors.ErrorCodes.REFUSED_STREAM)
                return
            with LOCK:
                STATS["max_open"] = max(STATS["max_open"], open_now + 1)
            s.due = time.monotonic() + int(s.arg("hold", "5")) / 1000
            return  # poll() routes it when due
        self.route(s)

    def route(self, s):
        p = s.path
        if p == "/ok":
            self.answer(s)
        elif p == "/counts":
            prefix = s.arg("prefix", "")
            with LOCK:
                counts = {k: v for k, v in COUNTS.items() if k.startswith(prefix)}
                stats = dict(STATS)
            self.answer(s, {"counts": counts, "stats": stats})
        elif p in ("/goaway", "/die"):
            tag = s.arg("tag", "")
            with LOCK:
                fired = tag in FIRED
            if fired:
                self.answer(s)
                return
            held = self.held.setdefault(tag, [])
            held.append(s)
            if p == "/goaway":
                if len(held) >= int(s.arg("n", "1")):
                    with LOCK:
                        FIRED.add(tag)
                    self.goaway(sorted(held, key=lambda x: x.sid), int(s.arg("answer", "0")))
                return
            # /die counts the tag's streams over every connection (a request the
            # client keeps off shared connections comes on one of its own); when
            # they are N, every connection holding one dies (poll()).
            with LOCK:
                HELD[tag] = HELD.get(tag, 0) + 1
                if HELD[tag] >= int(s.arg("n", "1")):
                    FIRED.add(tag)
        elif p == "/rst":
            with LOCK:
                first = s.id not in RST_DONE
                RST_DONE.add(s.id)
            if first:
                s.answered = True
                self.h2.reset_stream(s.sid, int(s.arg("code", "7")))
            else:
                self.answer(s)
        elif p == "/stall":
            with LOCK:
                STALLS[s.arg("tag", "")] = {"conn": self.no, "open": True, "received": 0, "sid": s.sid}
        elif p == "/wait-stall":
            pass  # answered by poll() when the stall's window is used up
        elif p == "/flood":
            n = int(s.arg("n", "1000"))
            one = SettingsFrame(0, settings={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1000}).serialize()
            self.flush(one * n)  # the client's ACKs are harmless to h2 (nothing pending)
            self.answer(s)
        elif p == "/headers":
            self.big_headers(s, int(s.arg("n", "1000")), int(s.arg("size", "100")), int(s.arg("frame", "16384")))
        elif p == "/push":
            block = self.h2.encoder.encode([(":method", "GET"), (":scheme", "https"),
                                            (":authority", "127.0.0.1"), (":path", "/pushed")])
            promise = PushPromiseFrame(s.sid, promised_stream_id=2, data=block, flags=["END_HEADERS"])
            self.flush(promise.serialize())
            self.answer(s)
        else:
            s.answered = True
            self.h2.send_headers(s.sid, [(":status", "404"), ("content-length", "0")], end_stream=True)

    def big_headers(self, s, n, size, frame):
        """The answer with n extra fields, its header block cut into frames of `frame`
        bytes (HEADERS, then CONTINUATION frames), written raw: h2 itself would cut
        at the client's SETTINGS_MAX_FRAME_SIZE only."""
        s.answered = True
        payload = json.dumps({"code": 0, "msg": "ok", "data": {"id": s.id, "conn": self.no}}).encode()
        fields = [(":status", "200"), ("content-type", "application/json"),
                  ("content-length", str(len(payload)))] + [(f"x-h-{k}", "v" * size) for k in range(n)]
        block = self.h2.encoder.encode(fields)
        pieces = [block[i:i + frame] for i in range(0, len(block), frame)]
        out = b""
        for k, piece in enumerate(pieces):
            flags = ["END_HEADERS"] if k == len(pieces) - 1 else []
            f = HeadersFrame(s.sid, data=piece, flags=flags) if k == 0 else ContinuationFrame(s.sid, data=piece, flags=flags)
            out += f.serialize()
        out += DataFrame(s.sid, data=payload, flags=["END_STREAM"]).serialize()
        self.flush(out)
        processed(s.id)

    def goaway(self, held, answer):
        for s in held[:answer]:
            self.answer(s)
        last = held[answer - 1].sid if answer else 0
        self.h2.close_connection(error_code=h2.errors.ErrorCodes.NO_ERROR, last_stream_id=last)
        self.flush()
        time.sleep(0.05)  # let the client read the GOAWAY before the close (1 s: the same outcomes)
        self.close()

    def die(self, mode):
        self.flush()
        if mode == "rst":
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close()

    def close(self):
        self.closed = True
        try:
            self.sock.close()
        except OSError:
            pass

    def poll(self):
        """Held answers that are due: mcs1's, /wait-stall's; /die's end."""
        for tag, held in self.held.items():
            with LOCK:
                fired = tag in FIRED
            if fired and held and held[0].path == "/die":
                if held[0].arg("process", "0") == "1":
                    for x in held:  # acted on, never answered
                        processed(x.id)
                self.die(held[0].arg("mode", "rst"))
                return
        now = time.monotonic()
        for s in list(self.streams.values()):
            if s.answered or not s.ended:
                continue
            if s.due is not None and now >= s.due:
                s.due = None
                self.route(s)
            elif s.path == "/wait-stall":
                with LOCK:
                    st = dict(STALLS.get(s.arg("tag", ""), {}))
                if st.get("received", 0) >= STREAM_WINDOW:
                    self.answer(s, {"stall_conn": st["conn"], "stall_open": st["open"],
                                    "stall_received": st["received"]})

    # -- the loop -------------------------------------------------------------------

    def on_events(self, events):
        for ev in events:
            if isinstance(ev, h2.events.RequestReceived):
                s = Stream(ev.stream_id, ev.headers)
                self.streams[ev.stream_id] = s
                if s.path == "/stall":
                    self.on_request(s)
            elif isinstance(ev, h2.events.DataReceived):
                s = self.streams.get(ev.stream_id)
                if s and s.path == "/stall":
                    with LOCK:
                        STALLS[s.arg("tag", "")]["received"] += ev.flow_controlled_length
                    # The connection's window reopens, the stream's never does.
                    self.h2.increment_flow_control_window(ev.flow_controlled_length)
                    continue
                if s:
                    s.body += ev.data
                try:
                    self.h2.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                except h2.exceptions.StreamClosedError:
                    pass
            elif isinstance(ev, h2.events.StreamEnded):
                s = self.streams.get(ev.stream_id)
                if s and not s.ended:
                    s.ended = True
                    self.on_request(s)
            elif isinstance(ev, h2.events.StreamReset):
                s = self.streams.get(ev.stream_id)
                if s:
                    s.answered = True
                    if s.path == "/stall":
                        with LOCK:
                            STALLS[s.arg("tag", "")]["open"] = False
            elif isinstance(ev, h2.events.SettingsAcknowledged):
                self.acked = True
            elif isinstance(ev, h2.events.ConnectionTerminated):
                self.closed = True
            if self.closed:
                return

    def run(self):
        try:
            if self.profile == "mcs1":
                # The first SETTINGS frame says 1; h2 itself then enforces 1000 (an
                # excess stream would be its GOAWAY), and on_request refuses them.
                # The client's ACK of the frame finds nothing pending: harmless.
                mine = self.h2.local_settings
                self.h2.local_settings = h2.settings.Settings(
                    client=False, initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1})
                self.h2.initiate_connection()
                self.h2.local_settings = mine
            else:
                self.h2.initiate_connection()
            self.flush()
            while not self.closed:
                ready = self.sock.pending() or select.select([self.sock], [], [], 0.005)[0]
                if ready:
                    data = self.sock.recv(65536)
                    if not data:
                        break
                    try:
                        self.on_events(self.h2.receive_data(data))
                    except h2.exceptions.ProtocolError as e:
                        print(f"conn {self.no}: protocol error: {e!r}", file=sys.stderr)
                        self.flush()
                        break
                if self.closed:
                    break
                self.poll()
                self.flush()
        except (OSError, ssl.SSLError) as e:
            if not self.closed:
                print(f"conn {self.no}: {e!r}", file=sys.stderr)
        finally:
            self.close()


class Listener:
    def __init__(self, profile, ctx):
        self.profile = profile
        self.ctx = ctx
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]

    def serve(self):
        while True:
            try:
                raw, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.handshake, args=(raw,), daemon=True).start()

    def handshake(self, raw):
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            conn = self.ctx.wrap_socket(raw, server_side=True)
        except (OSError, ssl.SSLError):
            raw.close()
            return
        if conn.selected_alpn_protocol() != "h2":
            conn.close()
            return
        Connection(conn, self.profile).run()


def make_certificate(d):
    key, cert = os.path.join(d, "key.pem"), os.path.join(d, "cert.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    ctx.set_alpn_protocols(["h2"])
    return ctx, cert


def watch_stdin(stop):
    try:
        while os.read(sys.stdin.fileno(), 4096):
            pass
    except (OSError, ValueError):
        pass
    stop.set()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--exit-on-stdin-eof", action="store_true")
    args = parser.parse_args()
    d = tempfile.mkdtemp(prefix="netcore-h2-")
    try:
        ctx, cert = make_certificate(d)
        listeners = [Listener(p, ctx) for p in ("main", "mcs1")]
        for l in listeners:
            threading.Thread(target=l.serve, daemon=True).start()
        stop = threading.Event()
        if args.exit_on_stdin_eof:
            threading.Thread(target=watch_stdin, args=(stop,), daemon=True).start()
        print(json.dumps({"ports": {l.profile: l.port for l in listeners}, "ca": cert}), flush=True)
        sys.stdout = sys.stderr
        try:
            while not stop.wait(0.2):
                pass
        except KeyboardInterrupt:
            pass
        return 0
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
