"""The conformance suite's servers, each on a free 127.0.0.1 port, each in the
foreground (no daemon) with its configuration, pid file and logs in the suite's
temporary directory:

- httpbin (PyPI) under gunicorn, access log with the request line and status;
- nginx: plain HTTP and TLS + HTTP/2 with a certificate of the suite's own test CA,
  static files of a few sizes (range and resume checks), a rate-limited copy of them
  (a download that can be cut), and a reverse proxy to httpbin; its access log has
  ``$connection`` and ``$request`` (connection counts);
- tinyproxy with its own configuration (CONNECT allowed to port 443 only) and log.

``stop()`` ends each one; Tests/conformance/run.sh also kills whatever pid file is
left in the directory when it exits, so nothing outlives a crashed run.
"""
from __future__ import annotations

import base64
import hashlib
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from typing import Callable, Dict, List, Optional

HOST = "127.0.0.1"

#: The static files nginx serves (name -> size), random bytes from a fixed seed.
STATIC_FILES = {"1k.bin": 1024, "64k.bin": 64 * 1024, "1m.bin": 1024 * 1024, "3m.bin": 3 * 1024 * 1024}
#: /slow/ serves the same files at full speed for their first SLOW_AFTER bytes, then
#: at SLOW_RATE: a download there can be cut in the middle at leisure.
SLOW_AFTER = 512 * 1024
SLOW_RATE = "64k"


def free_port() -> int:
    """A loopback port nothing listens on now (bound, then released)."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _tail(path: str, n: int = 20) -> str:
    try:
        with open(path, "r", errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


class LogFile:
    """A server's log, read from a mark: ``mark = log.mark()`` before the calls, then
    ``log.lines(mark)`` or ``log.wait_lines(mark, pred, n)`` (servers write a line
    when a request ends, a moment after the client got its answer)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def mark(self) -> int:
        try:
            return os.path.getsize(self.path)
        except OSError:
            return 0

    def lines(self, mark: int = 0) -> List[str]:
        try:
            with open(self.path, "rb") as f:
                f.seek(mark)
                return f.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return []

    def wait_lines(self, mark: int, pred: Callable[[str], bool], n: int = 1,
                   timeout: float = 3.0, settle: float = 0.3) -> List[str]:
        """The lines after ``mark`` matching ``pred``, once there are at least ``n``
        (or ``timeout`` passed), after ``settle`` more seconds without a new one (so
        that a count is not read while a late line is on its way)."""
        deadline = time.monotonic() + timeout
        found: List[str] = []
        while time.monotonic() < deadline:
            found = [line for line in self.lines(mark) if pred(line)]
            if len(found) >= n:
                break
            time.sleep(0.05)
        time.sleep(settle)
        return [line for line in self.lines(mark) if pred(line)]


class Server:
    """One server process in the foreground; ``stop()`` ends it (TERM, then KILL)."""

    def __init__(self, name: str, argv: List[str], port: int, log: str, stderr_path: str,
                 env: Optional[Dict[str, str]] = None, cwd: Optional[str] = None) -> None:
        self.name = name
        self.port = port
        self.log = LogFile(log)
        self.stderr_path = stderr_path
        self.argv = argv
        with open(stderr_path, "ab") as err:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                                         env=env, cwd=cwd)

    def wait_ready(self, ports: List[int], timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        pending = list(ports)
        while pending:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}: "
                                   f"{' '.join(self.argv)}\n{_tail(self.stderr_path)}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.name} did not listen on {pending} within {timeout:.0f} s\n"
                                   f"{_tail(self.stderr_path)}")
            try:
                with socket.create_connection((HOST, pending[0]), timeout=0.5):
                    pending.pop(0)
            except OSError:
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)


def run(argv: List[str], **kw: object) -> subprocess.CompletedProcess:
    return subprocess.run(argv, check=True, capture_output=True, **kw)  # type: ignore[call-overload]


# ---------------------------------------------------------------------------- TLS


class Certs:
    """The suite's test CA and nginx's certificate (localhost, 127.0.0.1), a second
    CA that signed nothing (the wrong CA), and the server key's pin."""

    def __init__(self, d: str) -> None:
        os.makedirs(d, exist_ok=True)
        self.dir = d
        self.ca = os.path.join(d, "ca.pem")
        self.wrong_ca = os.path.join(d, "wrong-ca.pem")
        self.cert = os.path.join(d, "server.pem")
        self.key = os.path.join(d, "server.key")
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for name, pem in (("ca", self.ca), ("wrong-ca", self.wrong_ca)):
            run(["openssl", "req", "-x509", *ec, "-keyout", os.path.join(d, name + ".key"), "-out", pem,
                 "-days", "2", "-subj", f"/CN=netcore conformance {name}",
                 "-addext", "basicConstraints=critical,CA:TRUE",
                 "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        csr = os.path.join(d, "server.csr")
        run(["openssl", "req", *ec, "-keyout", self.key, "-out", csr, "-subj", "/CN=localhost"])
        ext = os.path.join(d, "server.ext")
        with open(ext, "w") as f:
            f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
                    "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
                    "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n")
        run(["openssl", "x509", "-req", "-in", csr, "-CA", self.ca, "-CAkey", os.path.join(d, "ca.key"),
             "-CAcreateserial", "-out", self.cert, "-days", "2", "-extfile", ext])
        pub = run(["openssl", "x509", "-in", self.cert, "-pubkey", "-noout"]).stdout
        der = run(["openssl", "pkey", "-pubin", "-outform", "der"], input=pub).stdout
        #: "sha256//<base64 of SHA-256 of the DER SubjectPublicKeyInfo>" (libcurl's form)
        self.pin = "sha256//" + base64.b64encode(hashlib.sha256(der).digest()).decode()
        self.wrong_pin = "sha256//" + base64.b64encode(hashlib.sha256(b"not the key").digest()).decode()


# ------------------------------------------------------------------------ servers


def make_static(www: str) -> Dict[str, str]:
    """Writes STATIC_FILES into ``www``; returns name -> sha256 hex."""
    os.makedirs(www, exist_ok=True)
    rnd = random.Random(7)
    shas = {}
    for name, size in STATIC_FILES.items():
        data = rnd.randbytes(size)
        with open(os.path.join(www, name), "wb") as f:
            f.write(data)
        shas[name] = hashlib.sha256(data).hexdigest()
    return shas


def start_httpbin(tmp: str) -> Server:
    """httpbin under gunicorn (threads: /delay and /drip calls hold one each)."""
    d = os.path.join(tmp, "httpbin")
    os.makedirs(d, exist_ok=True)
    port = free_port()
    log = os.path.join(d, "access.log")
    argv = [sys.executable, "-m", "gunicorn", "--bind", f"{HOST}:{port}", "--workers", "1",
            "--worker-class", "gthread", "--threads", "48", "--keep-alive", "30",
            "--access-logfile", log, "--access-logformat", '"%(r)s" %(s)s %(B)s "%(a)s"',
            "--error-logfile", os.path.join(d, "error.log"), "--pid", os.path.join(tmp, "gunicorn.pid"),
            "--worker-tmp-dir", d, "httpbin:app"]
    s = Server("httpbin (gunicorn)", argv, port, log, os.path.join(d, "stderr.log"), cwd=d)
    s.wait_ready([port])
    s.url = f"http://{HOST}:{port}"  # type: ignore[attr-defined]
    return s


def nginx_binary() -> str:
    return shutil.which("nginx") or "/usr/sbin/nginx"


def start_nginx(tmp: str, httpbin_port: int, certs: Certs, www: str) -> Server:
    d = os.path.join(tmp, "nginx")
    os.makedirs(d, exist_ok=True)
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    http_port, tls_port = free_port(), free_port()
    while tls_port == http_port:
        tls_port = free_port()
    log = os.path.join(d, "access.log")
    # A master running as root hands the workers to "nobody", who could not read the
    # temporary directory: the workers stay the suite's user.
    user = "user root root;" if os.geteuid() == 0 else ""
    conf = f"""
daemon off;
master_process on;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {d}/error.log warn;
{user}
events {{ worker_connections 512; }}
http {{
    log_format conformance '$connection $connection_requests $server_port "$request" $status '
                           '$body_bytes_sent "$http_range" "$http_user_agent" $ssl_session_reused';
    access_log {log} conformance;
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    types {{ application/octet-stream bin; text/plain txt; }}
    default_type application/octet-stream;
    keepalive_requests 1000;
    keepalive_timeout 60s;
    upstream httpbin {{ server {HOST}:{httpbin_port}; keepalive 16; }}
    server {{
        listen {HOST}:{http_port};
        listen {HOST}:{tls_port} ssl http2;
        ssl_certificate {certs.cert};
        ssl_certificate_key {certs.key};
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:conformance:1m;
        location /static/ {{ alias {www}/; }}
        location /slow/ {{ alias {www}/; limit_rate_after {SLOW_AFTER}; limit_rate {SLOW_RATE}; }}
        location / {{
            proxy_pass http://httpbin;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_buffering off;
        }}
    }}
}}
"""
    conf_path = os.path.join(d, "nginx.conf")
    with open(conf_path, "w") as f:
        f.write(conf)
    argv = [nginx_binary(), "-p", d + "/", "-c", conf_path, "-e", os.path.join(d, "error.log")]
    s = Server("nginx", argv, tls_port, log, os.path.join(d, "stderr.log"))
    s.wait_ready([http_port, tls_port])
    s.http_port, s.tls_port = http_port, tls_port  # type: ignore[attr-defined]
    s.http_url = f"http://{HOST}:{http_port}"  # type: ignore[attr-defined]
    s.tls_url = f"https://{HOST}:{tls_port}"  # type: ignore[attr-defined]
    return s


def tinyproxy_binary() -> str:
    return shutil.which("tinyproxy") or "/usr/bin/tinyproxy"


def start_tinyproxy(tmp: str) -> Server:
    """tinyproxy allowing CONNECT to port 443 only: a tunnel to nginx's TLS port is
    refused with 403."""
    d = os.path.join(tmp, "tinyproxy")
    os.makedirs(d, exist_ok=True)
    port = free_port()
    log = os.path.join(d, "tinyproxy.log")
    conf_path = os.path.join(d, "tinyproxy.conf")
    with open(conf_path, "w") as f:
        f.write(f"""Port {port}
Listen {HOST}
Timeout 30
LogFile "{log}"
LogLevel Info
PidFile "{tmp}/tinyproxy.pid"
MaxClients 64
Allow {HOST}
ConnectPort 443
""")
    s = Server("tinyproxy", [tinyproxy_binary(), "-d", "-c", conf_path], port, log,
               os.path.join(d, "stderr.log"))
    s.wait_ready([port])
    s.url = f"http://{HOST}:{port}"  # type: ignore[attr-defined]
    return s


def versions() -> Dict[str, str]:
    """The servers' and reference clients' versions, for the table's header."""
    out: Dict[str, str] = {}
    try:
        from importlib.metadata import version
        for pkg in ("httpbin", "gunicorn", "requests", "httpx", "h2", "urllib3", "pytest"):
            out[pkg] = version(pkg)
    except Exception:  # pragma: no cover
        pass
    for name, argv, pick in (
            ("nginx", [nginx_binary(), "-v"], lambda t: t.split("nginx/")[1].split()[0]),
            ("tinyproxy", [tinyproxy_binary(), "-v"], lambda t: t.split()[1]),
            ("curl", ["curl", "--version"], lambda t: t.split()[1]),
            ("libcurl", ["curl", "--version"], lambda t: t.split("libcurl/")[1].split()[0]),
            ("openssl", ["openssl", "version"], lambda t: t.split()[1])):
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=10)
            out[name] = pick(p.stdout + p.stderr)
        except Exception:
            out[name] = "?"
    return out

