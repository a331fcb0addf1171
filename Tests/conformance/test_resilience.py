"""Retries (counted in httpbin's access log), time limits against /delay and /drip,
the response cache against /etag and /cache, and coalescing."""
from __future__ import annotations

import socket
import threading
import time

import pytest

import netcore
from helpers import curl, hits


def _requests_retry_session(total: int):
    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.util.retry import Retry
    s = requests.Session()
    s.trust_env = False
    retry = Retry(total=total, backoff_factor=0.05, status_forcelist=[500, 502, 503, 504],
                  raise_on_status=False)
    s.mount("http://", HTTPAdapter(max_retries=retry))
    return s


# ------------------------------------------------------------------ retries


@pytest.mark.parametrize("method", ["GET", "POST", "PUT"])
def test_retry_5xx(conf, servers, hb, marker, method):
    log = servers.httpbin.log
    ref_session = _requests_retry_session(2)
    with netcore.Client({}, retry=netcore.Retry(total=2, backoff_factor=0.05), proxy=None) as c:
        mark = log.mark()
        try:
            c.request(method, hb + f"/status/503?m=ours-{marker}")
            ours_status = 200
        except netcore.HTTPError as e:
            ours_status = e.response.status
        ours = (ours_status, len(hits(servers.httpbin, mark, f"m=ours-{marker}", 3, timeout=2)))
    mark = log.mark()
    ref = ref_session.request(method, hb + f"/status/503?m=ref-{marker}")
    reference = (ref.status_code, len(hits(servers.httpbin, mark, f"m=ref-{marker}", 3, timeout=2)))
    ref_session.close()
    conf.compare(f"{method} /status/503, retry total=2 (urllib3 Retry): final status, requests "
                 "the server saw", ours, reference)


def test_retry_none_by_default(conf, servers, nc, session, hb, marker):
    mark = servers.httpbin.log.mark()
    try:
        nc.get(hb + f"/status/503?m=ours-{marker}")
    except netcore.HTTPError:
        pass
    session.get(hb + f"/status/503?m=ref-{marker}")
    lines = hits(servers.httpbin, mark, marker, 2)
    conf.compare("GET /status/503, no retry configured: requests the server saw",
                 sum("m=ours-" in l for l in lines), sum("m=ref-" in l for l in lines))


# ------------------------------------------------------------------ time limits


def _timed(fn):
    t = time.monotonic()
    try:
        fn()
        outcome = "ok"
    except netcore.Timeout as e:
        outcome = f"timeout ({e.timeout})"
    except netcore.Error as e:
        outcome = f"{type(e).__name__} {e.code}"
    except Exception as e:  # requests' exceptions
        outcome = type(e).__name__
    return outcome, time.monotonic() - t


def _about(seconds: float, lo: float, hi: float) -> str:
    return f"within {lo:g}-{hi:g} s" if lo <= seconds <= hi else f"{seconds:.2f} s"


def test_timeout_total_delay(conf, hb):
    with netcore.Client({"timeout_ms": 1000}, proxy=None) as c:
        outcome, took = _timed(lambda: c.get(hb + "/delay/3"))
    t = time.monotonic()
    run = curl("--max-time", "1", hb + "/delay/3")
    ref_took = time.monotonic() - t
    conf.compare("GET /delay/3, total timeout 1 s (curl --max-time 1)",
                 (outcome.startswith("timeout"), _about(took, 0.9, 1.8)),
                 (run.code == 28, _about(ref_took, 0.9, 1.8)))
    conf.compare("which limit the error names", outcome, "timeout (total)")


def test_timeout_total_drip(conf, hb):
    url = hb + "/drip?numbytes=5&duration=2&delay=0"
    with netcore.Client({"timeout_ms": 1000}, proxy=None) as c:
        outcome, took = _timed(lambda: c.get(url))
    run = curl("--max-time", "1", url)
    conf.compare("GET /drip (a byte every 0.4 s for 2 s), total timeout 1 s (curl --max-time 1)",
                 outcome.startswith("timeout"), run.code == 28)


def test_timeout_read_delay(conf, nc, session, hb):
    outcome, took = _timed(lambda: nc.get(hb + "/delay/3", timeout=(5, 1)))
    ref, ref_took = _timed(lambda: session.get(hb + "/delay/3", timeout=(5, 1)))
    conf.compare("GET /delay/3, timeout=(5, 1): connect 5 s, read (idle) 1 s",
                 (outcome, _about(took, 0.9, 1.8)), ("timeout (idle)" if ref == "ReadTimeout" else ref,
                                                    _about(ref_took, 0.9, 1.8)))


def test_timeout_read_drip(conf, nc, session, hb):
    url = hb + "/drip?numbytes=5&duration=2&delay=0"
    ours, _ = _timed(lambda: nc.get(url, timeout=(5, 1)))
    ref, _ = _timed(lambda: session.get(url, timeout=(5, 1)))
    conf.compare("GET /drip (a byte every 0.4 s for 2 s), timeout=(5, 1): idle is inactivity, not a total",
                 ours, ref)


def test_timeout_idle_ms(conf, nc, session, hb):
    outcome, took = _timed(lambda: nc.get(hb + "/delay/1", idle_timeout=0.3))
    ref, ref_took = _timed(lambda: session.get(hb + "/delay/1", timeout=(5, 0.3)))
    conf.compare("GET /delay/1, idle 300 ms (requests timeout=(5, 0.3)): fails, in ms not s",
                 (outcome, _about(took, 0.25, 0.8)),
                 ("timeout (idle)" if ref == "ReadTimeout" else ref, _about(ref_took, 0.25, 0.8)))


@pytest.fixture
def full_backlog():
    """A loopback port whose accept queue is full: the kernel drops a new connection's
    SYN, so a connect waits until its timeout (nothing leaves the machine)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(0)
    addr = srv.getsockname()
    fill = []
    for _ in range(3):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(addr)
        fill.append(s)
    time.sleep(0.1)
    yield addr[1]
    for s in fill + [srv]:
        s.close()


def test_timeout_connect(conf, nc, session, full_backlog):
    url = f"http://127.0.0.1:{full_backlog}/"
    outcome, took = _timed(lambda: nc.get(url, connect_timeout=0.5))
    ref, ref_took = _timed(lambda: session.get(url, timeout=(0.5, 5)))
    conf.compare("GET to a port that never accepts, connect timeout 0.5 s (requests timeout=(0.5, 5))",
                 (outcome, _about(took, 0.4, 1.2)),
                 ("timeout (connect)" if ref == "ConnectTimeout" else ref, _about(ref_took, 0.4, 1.2)))


def test_timeout_default(conf, nc, session, hb):
    ours, _ = _timed(lambda: nc.get(hb + "/drip?numbytes=3&duration=1.5&delay=0.5"))
    ref, _ = _timed(lambda: session.get(hb + "/drip?numbytes=3&duration=1.5&delay=0.5"))
    conf.compare("GET /drip (2 s), the default limits", ours, ref)


# ------------------------------------------------------------------ cache


def test_etag_conditional(conf, nc, session, hb):
    for value in ('"abc"', '"other"', '*'):
        ours = nc.get(hb + "/etag/abc", headers={"If-None-Match": value})
        r = session.get(hb + "/etag/abc", headers={"If-None-Match": value})
        conf.compare(f"GET /etag/abc If-None-Match: {value}: status, ETag",
                     (ours.status, ours.headers.get("ETag")), (r.status_code, r.headers.get("ETag")))


def test_etag_conditional_412(conf, nc, session, hb):
    try:
        o = nc.get(hb + "/etag/abc", headers={"If-Match": '"other"'}).status
    except netcore.HTTPError as e:
        o = e.response.status
    conf.compare("GET /etag/abc If-Match: \"other\"", o,
                 session.get(hb + "/etag/abc", headers={"If-Match": '"other"'}).status_code)


def test_cache_revalidate(conf, servers, session, hb, marker):
    url = hb + f"/etag/{marker}"
    log = servers.httpbin.log
    policy = netcore.CachePolicy.CACHE_ELSE_NETWORK
    with netcore.Client({"cache": {}}, proxy=None) as c:
        mark = log.mark()
        first = c.get(url, cache=policy)
        second = c.get(url, cache=policy)
        statuses = [l.split('" ')[1].split()[0] for l in hits(servers.httpbin, mark, marker, 2)]
    ref1 = session.get(url)
    ref2 = session.get(url, headers={"If-None-Match": ref1.headers["ETag"]})
    conf.compare("GET /etag/<m> twice, cache_else_network: the server's answers",
                 [int(s) for s in statuses], [ref1.status_code, ref2.status_code])
    conf.compare("the second call: status, from_cache, not_modified, same body",
                 (second.status, second.from_cache, second.not_modified, second.body == first.body),
                 (200, True, True, True))


def test_cache_fresh(conf, servers, hb, marker):
    url = hb + f"/cache/60?m={marker}"
    with netcore.Client({"cache": {}}, proxy=None) as c:
        mark = servers.httpbin.log.mark()
        for _ in range(3):
            last = c.get(url, cache=netcore.CachePolicy.CACHE_ELSE_NETWORK)
        n = len(hits(servers.httpbin, mark, marker, 1))
    conf.compare("GET /cache/60 (public, max-age=60) x3: requests sent, last from_cache "
                 "(RFC 9111: fresh for 60 s)", (n, last.from_cache), (1, True))


def test_cache_credentialed(conf, servers, hb, marker):
    url = hb + f"/cache/60?m={marker}"
    with netcore.Client({"cache": {}}, auth="t0k3n", proxy=None) as c:
        mark = servers.httpbin.log.mark()
        for _ in range(3):
            last = c.get(url, cache=netcore.CachePolicy.CACHE_ELSE_NETWORK)
        n = len(hits(servers.httpbin, mark, marker, 1))
    conf.compare("GET /cache/60 x3 with a bearer token: requests sent, last from_cache "
                 "(RFC 9111 §3.5: public may be stored)", (n, last.from_cache), (1, True))


# ------------------------------------------------------------------ coalescing


def test_coalescing(conf, servers, session, hb, marker):
    url = hb + f"/delay/1?m=ours-{marker}"
    with netcore.Client({}, proxy=None) as c:
        mark = servers.httpbin.log.mark()
        tasks = [c.send("GET", url) for _ in range(5)]
        statuses = [t.result(timeout=10).status for t in tasks]
        ours = (statuses, len(hits(servers.httpbin, mark, f"m=ours-{marker}", 1)))
    mark = servers.httpbin.log.mark()
    ref_url = hb + f"/delay/1?m=ref-{marker}"
    results = []

    def one():
        import requests
        with requests.Session() as s:
            s.trust_env = False
            results.append(s.get(ref_url).status_code)
    threads = [threading.Thread(target=one) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    ref = (results, len(hits(servers.httpbin, mark, f"m=ref-{marker}", 5)))
    conf.by_design("5 identical GET /delay/1 at once: statuses, requests the server saw",
                   ours, ref, ([200] * 5, 1))
