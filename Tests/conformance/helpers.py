"""Small helpers shared by the checks."""
from __future__ import annotations

import hashlib
import re
import shlex
import subprocess
from typing import Any, Callable, List, NamedTuple, Optional, Tuple

import netcore


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def nc_response(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """A libnetcore call's response, also when it raised netcore.HTTPError (raw mode:
    a status >= 400 raises, carrying the response; known.BY_DESIGN "status_codes")."""
    try:
        return fn(*args, **kwargs)
    except netcore.HTTPError as e:
        assert e.response is not None, f"HTTPError without a response: {e}"
        return e.response


class NginxLine(NamedTuple):
    connection: int
    connection_requests: int
    port: int
    request: str
    status: int
    bytes_sent: int
    range: str
    user_agent: str
    session_reused: str   # nginx's $ssl_session_reused: "r" resumed, "." not, "" plain HTTP


_NGINX = re.compile(r'^(\d+) (\d+) (\d+) "([^"]*)" (\d+) (\d+) "([^"]*)" "([^"]*)" (\S*)$')


def nginx_lines(server: Any, mark: int, needle: str, n: int = 1, timeout: float = 3.0) -> List[NginxLine]:
    """nginx's access log lines after ``mark`` whose request contains ``needle``."""
    out = []
    for line in server.log.wait_lines(mark, lambda l: needle in l, n, timeout):
        m = _NGINX.match(line)
        if m:
            g = m.groups()
            out.append(NginxLine(int(g[0]), int(g[1]), int(g[2]), g[3], int(g[4]), int(g[5]),
                                 "" if g[6] == "-" else g[6], g[7], "" if g[8] == "-" else g[8]))
    return out


def hits(server: Any, mark: int, needle: str, n: int = 1, timeout: float = 3.0) -> List[str]:
    """The log lines of ``server`` after ``mark`` that contain ``needle``."""
    return server.log.wait_lines(mark, lambda l: needle in l, n, timeout)


class Run(NamedTuple):
    code: int
    out: bytes
    err: str


def command(argv: List[str], timeout: float = 30.0, env: Optional[dict] = None) -> Run:
    p = subprocess.run(argv, capture_output=True, timeout=timeout, env=env)
    return Run(p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"))


def curl(*args: str, timeout: float = 30.0) -> Run:
    """The curl CLI, no configuration file, no proxy from the environment."""
    return command(["curl", "-q", "-s", "-S", "--noproxy", "*", *args], timeout=timeout)


def shown(argv: List[str]) -> str:
    return " ".join(shlex.quote(a) for a in argv)


def error_kind(exc: BaseException) -> Tuple[str, int]:
    """(class name, code) of a libnetcore error."""
    return type(exc).__name__, int(getattr(exc, "code", 0) or 0)
