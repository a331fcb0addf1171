"""The conformance suite's fixtures, its comparison recorder and its table.

Servers (servers.py) start once per session on free loopback ports and stop at its
end. Each check sends the same call through libnetcore and through a reference client
(requests, httpx or the curl CLI) and records what each got with ``conf.compare(call,
ours, reference)``; a check fails if any comparison differs (all of them are recorded
first, so the table is complete). known.py says which differences are pending a fix
(expected failures, strict) or by design. At the end the table (check, call, ours,
reference, same?, result) is printed and written to build/conformance/table.md.
"""
from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
if not os.environ.get("NETCORE_TEST_INSTALLED") and importlib.util.find_spec("netcore") is None:
    sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

from known import BY_DESIGN, PENDING  # noqa: E402

TABLE_DIR = os.path.join(ROOT, "build", "conformance")
LIBRARY = os.environ.get("NETCORE_LIBRARY") or os.path.join(ROOT, "build", "lib", "libnetcore.so.0")
NCURL = os.path.join(ROOT, "build", "bin", "ncurl")


# ------------------------------------------------------------------ check names


def check_name(item: Any) -> str:
    """``test_redirect_post[307-relative]`` -> ``redirect_post[307-relative]``."""
    name = item.name
    return name[5:] if name.startswith("test_") else name


def _known(table: Dict[str, str], name: str) -> Optional[str]:
    return table.get(name) or table.get(name.split("[", 1)[0])


# ------------------------------------------------------------------ the recorder


@dataclass
class Row:
    nodeid: str
    check: str
    call: str
    ours: str
    reference: str
    same: str        # "yes", "no" or "by design"


ROWS: List[Row] = []
OUTCOMES: Dict[str, str] = {}
_STARTED = time.monotonic()


def show(value: Any, width: int = 72) -> str:
    """A value as one short table cell."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, bytes):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    text = " ".join(text.split())
    if len(text) > width:
        text = text[: width - 1] + "…"
    return text.replace("|", "\\|")


class Conformance:
    """``conf`` in a check: records each comparison; mismatches fail the check when it
    returns (see pytest_runtest_call)."""

    def __init__(self, item: Any) -> None:
        self.item = item
        self.name = check_name(item)
        self.mismatches: List[str] = []

    def compare(self, call: str, ours: Any, reference: Any) -> bool:
        same = ours == reference
        ROWS.append(Row(self.item.nodeid, self.name, show(call, 100), show(ours), show(reference),
                        "yes" if same else "no"))
        if not same:
            self.mismatches.append(f"{call}:\n    ours:      {ours!r}\n    reference: {reference!r}")
        return same

    def by_design(self, call: str, ours: Any, reference: Any, documented: Any) -> bool:
        """A difference listed in known.BY_DESIGN: the library must do what its
        documentation says (``documented``); ``reference`` is shown beside it."""
        assert _known(BY_DESIGN, self.name), f"{self.name} is not listed in known.BY_DESIGN"
        ok = ours == documented
        ROWS.append(Row(self.item.nodeid, self.name, show(call, 100), show(ours), show(reference),
                        "by design" if ok else "no"))
        if not ok:
            self.mismatches.append(f"{call} (by design):\n    ours:       {ours!r}\n"
                                   f"    documented: {documented!r}")
        return ok


@pytest.fixture
def conf(request: Any) -> Conformance:
    c = Conformance(request.node)
    request.node._conformance = c
    return c


# ------------------------------------------------------------------ hooks


#: The order of the checks (and of the table): what a request carries, redirects,
#: resilience, then nginx, the proxy and the C library through ncurl.
MODULES = ["test_requests", "test_redirects", "test_resilience", "test_nginx", "test_proxy", "test_ncurl"]


def pytest_collection_modifyitems(config: Any, items: List[Any]) -> None:
    rank = {name: i for i, name in enumerate(MODULES)}
    items.sort(key=lambda item: rank.get(item.module.__name__, len(MODULES)))
    skip = os.environ.get("CONFORMANCE_SKIP")
    for item in items:
        if skip:
            item.add_marker(pytest.mark.skip(reason=skip))
            continue
        reason = _known(PENDING, check_name(item))
        if reason:
            item.add_marker(pytest.mark.xfail(strict=True, reason=f"pending: {reason}"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: Any) -> Any:
    result = yield
    c = getattr(item, "_conformance", None)
    if c is not None and c.mismatches:
        raise AssertionError("different from the reference:\n" + "\n".join(c.mismatches))
    return result


def pytest_runtest_logreport(report: Any) -> None:
    name = report.nodeid
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        if hasattr(report, "wasxfail"):
            OUTCOMES[name] = "xfail" if report.outcome == "skipped" else "xpass"
        elif report.outcome == "failed" and "XPASS(strict)" in str(report.longrepr):
            OUTCOMES[name] = "xpass"
        else:
            OUTCOMES[name] = report.outcome


def _result(row: Row) -> str:
    outcome = OUTCOMES.get(row.nodeid, "?")
    if outcome == "passed":
        return f"by design: {_known(BY_DESIGN, row.check)}" if row.same == "by design" else "pass"
    if outcome == "xfail":
        return f"xfail, pending: {_known(PENDING, row.check)}"
    if outcome == "xpass":
        return "XPASS: fixed? remove its known.PENDING entry"
    if outcome == "skipped":
        return "skipped"
    return "FAIL"


def render_table(versions: Dict[str, str]) -> str:
    counts: Dict[str, int] = {}
    for outcome in OUTCOMES.values():
        counts[outcome] = counts.get(outcome, 0) + 1
    lines = [
        "# Conformance table",
        "",
        f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}, {time.monotonic() - _STARTED:.0f} s; checks: "
        + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())),
        "",
        "Servers and references: " + ", ".join(f"{k} {v}" for k, v in versions.items()),
        "",
        "| check | call | ours | reference | same? | result |",
        "|---|---|---|---|---|---|",
    ]
    for row in ROWS:
        lines.append(f"| {row.check} | {row.call} | {row.ours} | {row.reference} | {row.same} | "
                     f"{show(_result(row), 140)} |")
    recorded = {row.nodeid for row in ROWS}
    for nodeid, outcome in OUTCOMES.items():
        if nodeid not in recorded:
            name = nodeid.split("::")[-1]
            name = name[5:] if name.startswith("test_") else name
            lines.append(f"| {name} | | | | | {outcome} |")
    return "\n".join(lines) + "\n"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not OUTCOMES or os.environ.get("CONFORMANCE_SKIP"):
        return
    from servers import versions
    v = {"netcore": library_version()}
    v.update(versions())
    table = render_table(v)
    os.makedirs(TABLE_DIR, exist_ok=True)
    with open(os.path.join(TABLE_DIR, "table.md"), "w", encoding="utf-8") as f:
        f.write(table)
    terminalreporter.write_sep("=", "conformance table (build/conformance/table.md)")
    for line in table.splitlines():
        terminalreporter.write_line(line)


# ------------------------------------------------------------------ versions


def library_version() -> str:
    try:
        lib = ctypes.CDLL(LIBRARY)
        lib.nc_version.restype = ctypes.c_char_p
        return lib.nc_version().decode()
    except OSError:
        return "?"


def libcurl_version() -> str:
    """The version of the libcurl libnetcore runs on (``curl_version()``)."""
    lib = ctypes.CDLL("libcurl.so.4")
    lib.curl_version.restype = ctypes.c_char_p
    return lib.curl_version().decode().split()[0].split("/", 1)[1]


# ------------------------------------------------------------------ servers


class Servers:
    def __init__(self, tmp: str) -> None:
        import servers as s
        self.tmp = tmp
        self.started: List[Any] = []
        try:
            self.certs = s.Certs(os.path.join(tmp, "tls"))
            self.www = os.path.join(tmp, "www")
            self.static_sha = s.make_static(self.www)
            self.httpbin = self._start(s.start_httpbin, tmp)
            self.nginx = self._start(s.start_nginx, tmp, self.httpbin.port, self.certs, self.www)
            self.proxy = self._start(s.start_tinyproxy, tmp)
        except BaseException:
            self.stop()
            raise

    def _start(self, start: Any, *args: Any) -> Any:
        """start(*args), again on other free ports if it failed (another process may take
        a port between the moment it was found free and the server's bind)."""
        for attempt in range(3):
            try:
                server = start(*args)
                break
            except RuntimeError:
                if attempt == 2:
                    raise
        self.started.append(server)
        return server

    def stop(self) -> None:
        for server in reversed(self.started):
            server.stop()
        self.started.clear()


@pytest.fixture(scope="session")
def servers() -> Any:
    own_tmp = not os.environ.get("CONFORMANCE_TMP")
    tmp = os.environ.get("CONFORMANCE_TMP") or tempfile.mkdtemp(prefix="netcore-conformance.")
    s = Servers(tmp)
    try:
        yield s
    finally:
        s.stop()
        if own_tmp:
            import shutil
            shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def hb(servers: Any) -> str:
    """httpbin's base URL."""
    return str(servers.httpbin.url)


@pytest.fixture
def session() -> Any:
    """A requests session ignoring the environment's proxies (as ours, given {})."""
    import requests
    with requests.Session() as s:
        s.trust_env = False
        yield s


@pytest.fixture
def nc() -> Any:
    """A libnetcore client in raw mode, no proxy from the environment."""
    import netcore
    with netcore.Client({}, proxy=None) as c:
        yield c


@pytest.fixture(scope="session")
def closed_port() -> int:
    from servers import free_port
    return free_port()


@pytest.fixture
def marker(request: Any) -> str:
    """A value unique to this check, to find its lines in the servers' logs."""
    import uuid
    return f"{check_name(request.node)[:24]}-{uuid.uuid4().hex[:10]}".replace("[", "-").replace("]", "")
