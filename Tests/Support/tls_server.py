#!/usr/bin/env python3
"""Loopback HTTPS servers for the TLS tests, with certificates made at start-up.

Usage: tls_server.py [--dir D] [--exit-on-stdin-eof]

Process contract
  * Makes a fresh set of keys and certificates with the `openssl` command-line
    tool in D (default: a new temporary directory, removed on exit). Nothing is
    ever committed: every run has its own CA.
  * Opens one listener per profile below on 127.0.0.1 (free ports), then writes
    ONE line to stdout, a JSON object:
        {"dir": D, "ports": {profile: port, ...}, "files": {name: path, ...},
         "pins": {"server": "sha256//...", "other": "sha256//..."}}
    and nothing else ever goes to stdout.
  * Exits on SIGTERM/SIGINT, and on stdin EOF with --exit-on-stdin-eof.

Files ("files" in the line)
  ca            the test CA (PEM), which signs "server", "expired", "wronghost"
  ca_dir        a directory holding ca.pem under its hash name (`openssl rehash`)
  other_ca      an unrelated CA, which signs the "untrusted" server certificate
  selfsigned    the "selfsigned" profile's certificate (trusting it as a CA file
                is how a development server's certificate is trusted)
  client_ca     the CA the "clientauth" profile trusts for client certificates
  client_cert   a client certificate signed by client_ca; client_key its key
  client_both   client_cert and client_key in one PEM file
  rogue_cert / rogue_key   a client certificate NOT signed by client_ca
  missing       a path that does not exist (for the config-time checks)

Profiles (one port each; every one answers HTTP/1.1 with keep-alive)
  good          server cert for 127.0.0.1 and localhost, signed by ca
  selfsigned    a self-signed cert for 127.0.0.1 and localhost
  expired       signed by ca, valid 2020-01-01 to 2020-01-02 only
  wronghost     signed by ca, for wrong.example.com only
  untrusted     signed by other_ca, for 127.0.0.1 and localhost
  clientauth    like good (TLS 1.2 at most), and requires a client certificate
                signed by client_ca
  tls12         like good, but TLS 1.2 at most
  h2            like good, and offers ALPN "h2": an HTTP/2 client is answered in
                HTTP/2 (a minimal responder: one response per request stream)
  h2c           no TLS: HTTP/2 with prior knowledge on a plain connection

GET /redirect?to=URL (HTTP/1.1 only) answers 302 with Location: URL (percent-decoded),
for the fault suite's https -> http credential check. Every other response is 200
with the JSON envelope
  {"code":0,"msg":"ok","data":{"profile":P,"path":PATH,"method":M,
   "tls_version":"TLSv1.3","alpn":"h2"|"http/1.1"|null,"http":"1.1"|"2",
   "client_cert":CN|null,"connection":N,"request_on_connection":K}}
where N numbers the connections the profile accepted (from 1) and K the requests
on that connection (from 1): a reused connection shows K > 1.
"""
import argparse
import base64
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import urllib.parse

PROFILES = ("good", "selfsigned", "expired", "wronghost", "untrusted", "clientauth", "tls12", "h2", "h2c")
LOCAL_SAN = "subjectAltName=DNS:localhost,IP:127.0.0.1"


# --- certificates (openssl CLI) -------------------------------------------------

def openssl(*args, cwd, stdin=None):
    p = subprocess.run(["openssl", *args], cwd=cwd, input=stdin, capture_output=True)
    if p.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)} failed: {p.stderr.decode(errors='replace')}")
    return p.stdout


def new_ca(d, name, cn):
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", f"{name}.key", "-out", f"{name}.pem", "-days", "30", "-subj", f"/CN={cn}",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)


def new_csr(d, name, cn):
    openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={cn}", cwd=d)


def sign(d, name, ca, ext_lines, days="30"):
    ext = os.path.join(d, f"{name}.ext")
    with open(ext, "w") as f:
        f.write("\n".join(ext_lines) + "\n")
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
            "-CAcreateserial", "-out", f"{name}.pem", "-days", days, "-extfile", ext, cwd=d)


def sign_expired(d, name, ca, ext_lines):
    """`openssl ca` is the CLI's way to choose a certificate's dates."""
    db = os.path.join(d, "ca-db")
    os.makedirs(db, exist_ok=True)
    open(os.path.join(db, "index.txt"), "w").close()
    with open(os.path.join(db, "serial"), "w") as f:
        f.write("1000\n")
    cnf = os.path.join(d, "expired-ca.cnf")
    with open(cnf, "w") as f:
        f.write(f"""[ca]
default_ca = test
[test]
dir = {db}
database = {db}/index.txt
serial = {db}/serial
new_certs_dir = {db}
certificate = {d}/{ca}.pem
private_key = {d}/{ca}.key
default_md = sha256
policy = anything
copy_extensions = none
x509_extensions = leaf
[anything]
commonName = supplied
[leaf]
{chr(10).join(ext_lines)}
""")
    openssl("ca", "-batch", "-config", cnf, "-in", f"{name}.csr", "-out", f"{name}.pem",
            "-startdate", "20200101000000Z", "-enddate", "20200102000000Z", "-notext", cwd=d)


def pin_of(d, cert):
    """sha256// + base64(sha256(DER SubjectPublicKeyInfo)), the openssl way."""
    pub = openssl("x509", "-in", cert, "-pubkey", "-noout", cwd=d)
    der = openssl("pkey", "-pubin", "-outform", "der", cwd=d, stdin=pub)
    digest = openssl("dgst", "-sha256", "-binary", cwd=d, stdin=der)
    return "sha256//" + base64.b64encode(digest).decode()


def make_certificates(d):
    server_ext = ["basicConstraints=CA:FALSE", "extendedKeyUsage=serverAuth", LOCAL_SAN]
    new_ca(d, "ca", "netcore test CA")
    new_ca(d, "other_ca", "netcore unrelated CA")
    new_ca(d, "client_ca", "netcore client CA")
    for name in ("server", "expired", "wronghost", "untrusted"):
        new_csr(d, name, "localhost")
    sign(d, "server", "ca", server_ext)
    sign_expired(d, "expired", "ca", server_ext)
    sign(d, "wronghost", "ca", ["basicConstraints=CA:FALSE", "extendedKeyUsage=serverAuth",
                                "subjectAltName=DNS:wrong.example.com"])
    sign(d, "untrusted", "other_ca", server_ext)
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "selfsigned.key", "-out", "selfsigned.pem", "-days", "30",
            "-subj", "/CN=localhost", "-addext", LOCAL_SAN, cwd=d)
    client_ext = ["basicConstraints=CA:FALSE", "extendedKeyUsage=clientAuth"]
    new_csr(d, "client", "netcore test client")
    sign(d, "client", "client_ca", client_ext)
    new_csr(d, "rogue", "rogue client")
    sign(d, "rogue", "other_ca", client_ext)
    with open(os.path.join(d, "client_both.pem"), "w") as out:
        for part in ("client.pem", "client.key"):
            with open(os.path.join(d, part)) as f:
                out.write(f.read())
    ca_dir = os.path.join(d, "ca_dir")
    os.makedirs(ca_dir)
    shutil.copy(os.path.join(d, "ca.pem"), ca_dir)
    openssl("rehash", ca_dir, cwd=d)
    p = lambda name: os.path.join(d, name)  # noqa: E731
    files = {"ca": p("ca.pem"), "ca_dir": ca_dir, "other_ca": p("other_ca.pem"),
             "selfsigned": p("selfsigned.pem"),
             "client_ca": p("client_ca.pem"), "client_cert": p("client.pem"),
             "client_key": p("client.key"), "client_both": p("client_both.pem"),
             "rogue_cert": p("rogue.pem"), "rogue_key": p("rogue.key"),
             "missing": p("no-such-file.pem")}
    pins = {"server": pin_of(d, "server.pem"), "other": pin_of(d, "untrusted.pem")}
    return files, pins


def context_for(profile, d):
    if profile == "h2c":
        return None
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    cert = {"good": "server", "clientauth": "server", "tls12": "server", "h2": "server"}.get(profile, profile)
    ctx.load_cert_chain(os.path.join(d, f"{cert}.pem"), os.path.join(d, f"{cert}.key"))
    if profile == "clientauth":
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(os.path.join(d, "client_ca.pem"))
    if profile in ("tls12", "clientauth"):
        # clientauth too: under TLS 1.2 a refused client certificate fails the
        # handshake itself (CURLE_SSL_CONNECT_ERROR, 35); under TLS 1.3 the refusal
        # comes after it, as a failed send or receive (55 or 56, by timing).
        ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    ctx.set_alpn_protocols(["h2", "http/1.1"] if profile == "h2" else ["http/1.1"])
    return ctx


# --- serving ---------------------------------------------------------------------

class Listener:
    def __init__(self, profile, ctx):
        self.profile, self.ctx = profile, ctx
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.lock = threading.Lock()
        self.connections = 0

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.connections += 1
                number = self.connections
            threading.Thread(target=self.handle, args=(conn, number), daemon=True).start()

    def handle(self, raw, number):
        raw.settimeout(30)
        if self.ctx is None:  # h2c
            try:
                serve_h2(raw, {"profile": self.profile, "tls_version": None, "alpn": None,
                               "client_cert": None, "connection": number})
            except (OSError, ValueError):
                pass
            finally:
                raw.close()
            return
        try:
            conn = self.ctx.wrap_socket(raw, server_side=True)
        except (OSError, ssl.SSLError):
            raw.close()  # a refused handshake: the client reports it
            return
        try:
            info = {"profile": self.profile, "tls_version": conn.version(),
                    "alpn": conn.selected_alpn_protocol(), "client_cert": client_cn(conn),
                    "connection": number}
            if info["alpn"] == "h2":
                serve_h2(conn, info)
            else:
                serve_http1(conn, info)
        except (OSError, ssl.SSLError, ValueError):
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass


def client_cn(conn):
    cert = conn.getpeercert()
    if not cert:
        return None
    for rdn in cert.get("subject", ()):
        for key, value in rdn:
            if key == "commonName":
                return value
    return None


def envelope(info, method, path, http, k):
    data = dict(info, method=method, path=path, http=http, request_on_connection=k)
    return json.dumps({"code": 0, "msg": "ok", "data": data}, separators=(",", ":")).encode()


def serve_http1(conn, info):
    f = conn.makefile("rb")
    k = 0
    while True:
        line = f.readline(65537)
        if not line:
            return
        parts = line.decode("latin-1").split()
        if len(parts) != 3:
            return
        method, target, _ = parts
        length, close = 0, False
        while True:
            h = f.readline(65537)
            if h in (b"\r\n", b"\n", b""):
                break
            name, _, value = h.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
            if name.strip().lower() == "connection" and value.strip().lower() == "close":
                close = True
        if length:
            f.read(length)
        k += 1
        if target.startswith("/redirect?to="):  # the fault suite's https -> http downgrade
            location = urllib.parse.unquote(target[len("/redirect?to="):])
            conn.sendall(f"HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n".encode())
            continue
        body = envelope(info, method, target, "1.1", k)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        if close:
            return


# A minimal HTTP/2 responder (RFC 9113): enough for libcurl to send GETs and read
# answers. Frames are read whole; HEADERS blocks are decoded only for :method and
# :path when they are literal or static-table entries (HPACK, RFC 7541), which is
# what a first request from libcurl uses; anything else is reported as "?".
H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
STATIC = {2: (":method", "GET"), 3: (":method", "POST"), 4: (":path", "/"), 5: (":path", "/index.html")}


def frame(kind, flags, stream, payload=b""):
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def read_exact(f, n):
    data = f.read(n)
    if data is None or len(data) < n:
        raise ValueError("short read")
    return data


def hpack_int(data, i, prefix):
    mask = (1 << prefix) - 1
    value = data[i] & mask
    i += 1
    if value < mask:
        return value, i
    shift = 0
    while True:
        b = data[i]
        i += 1
        value += (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, i


def hpack_string(data, i):
    huffman = data[i] & 0x80
    n, i = hpack_int(data, i, 7)
    raw = data[i:i + n]
    return (None if huffman else raw.decode("latin-1")), i + n


def decode_headers(block):
    out, i = {}, 0
    try:
        while i < len(block):
            b = block[i]
            if b & 0x80:  # indexed
                idx, i = hpack_int(block, i, 7)
                if idx in STATIC:
                    out.setdefault(*STATIC[idx])
                continue
            if b & 0xE0 == 0x20:  # dynamic table size update
                _, i = hpack_int(block, i, 5)
                continue
            prefix = 6 if b & 0x40 else 4
            idx, i = hpack_int(block, i, prefix)
            name = STATIC.get(idx, (None,))[0] if idx else None
            if not idx:
                name, i = hpack_string(block, i)
            value, i = hpack_string(block, i)
            if name and value is not None:
                out.setdefault(name, value)
    except IndexError:
        pass
    return out


def literal(name, value):
    """A header field without indexing, new name, no Huffman (RFC 7541 §6.2.2)."""
    n, v = name.encode(), value.encode()
    assert len(n) < 127 and len(v) < 127
    return b"\x00" + bytes([len(n)]) + n + bytes([len(v)]) + v


def serve_h2(conn, info):
    f = conn.makefile("rb")
    if read_exact(f, len(H2_PREFACE)) != H2_PREFACE:
        return
    conn.sendall(frame(4, 0, 0))  # our SETTINGS (all defaults)
    k = 0
    while True:
        head = read_exact(f, 9)
        length = int.from_bytes(head[:3], "big")
        kind, flags = head[3], head[4]
        stream = int.from_bytes(head[5:9], "big") & 0x7FFFFFFF
        payload = read_exact(f, length)
        if kind == 4 and not flags & 1:  # SETTINGS: acknowledge
            conn.sendall(frame(4, 1, 0))
        elif kind == 6 and not flags & 1:  # PING
            conn.sendall(frame(6, 1, 0, payload))
        elif kind == 7:  # GOAWAY
            return
        elif kind == 1:  # HEADERS (a request; no CONTINUATION from libcurl's small ones)
            block = payload
            if flags & 0x08:  # PADDED
                block = block[1:len(block) - block[0]]
            if flags & 0x20:  # PRIORITY
                block = block[5:]
            fields = decode_headers(block)
            k += 1
            body = envelope(info, fields.get(":method", "?"), fields.get(":path", "?"), "2", k)
            headers = (b"\x88"  # :status 200 (static index 8)
                       + literal("content-type", "application/json")
                       + literal("content-length", str(len(body))))
            conn.sendall(frame(1, 0x04, stream, headers) + frame(0, 0x01, stream, body))


def watch_stdin(stop):
    try:
        while os.read(sys.stdin.fileno(), 4096):
            pass
    except (OSError, ValueError):
        pass
    stop.set()


def main(argv=None):
    parser = argparse.ArgumentParser(description="libnetcore loopback HTTPS test servers")
    parser.add_argument("--dir")
    parser.add_argument("--exit-on-stdin-eof", action="store_true")
    args = parser.parse_args(argv)
    d = args.dir or tempfile.mkdtemp(prefix="netcore-tls-")
    made_dir = args.dir is None
    try:
        files, pins = make_certificates(d)
        listeners = [Listener(p, context_for(p, d)) for p in PROFILES]
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        if args.exit_on_stdin_eof:
            threading.Thread(target=watch_stdin, args=(stop,), daemon=True).start()
        for listener in listeners:
            threading.Thread(target=listener.serve, daemon=True).start()
        line = {"dir": d, "ports": {l.profile: l.port for l in listeners}, "files": files, "pins": pins}
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()
        sys.stdout = sys.stderr
        while not stop.wait(0.2):
            pass
        for listener in listeners:
            listener.sock.close()
        return 0
    finally:
        if made_dir:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
