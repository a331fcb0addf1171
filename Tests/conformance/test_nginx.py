"""Against nginx: TLS with the suite's CA, the wrong CA and pins (beside httpx and
curl), HTTP/2 (the version and a burst's connections, counted from nginx's
``$connection``), HTTP/1.1 keep-alive, static files' bytes, ranges, and a cut
download resumed (beside curl -C -)."""
from __future__ import annotations

import asyncio
import os
import ssl
import time

import pytest

import netcore
from helpers import command, file_sha256, nginx_lines, sha256
from servers import SLOW_AFTER, STATIC_FILES


def _tls_client(servers, **tls):
    cfg = {"tls": dict({"ca_file": servers.certs.ca}, **tls)}
    return netcore.Client(cfg, proxy=None)


def _outcome(fn):
    try:
        r = fn()
        return ("ok", r.status, sha256(r.body))
    except netcore.TransportError as e:
        return ("TRANSPORT", e.code, None)


def _curl_tls(*args):
    run = command(["curl", "-q", "-s", "-S", "--noproxy", "*", *args])
    return ("ok", 200, sha256(run.out)) if run.code == 0 else ("TRANSPORT", run.code, None)


# ------------------------------------------------------------------ TLS


def test_tls_right_ca(conf, servers):
    import httpx
    url = servers.nginx.tls_url + "/static/64k.bin"
    with _tls_client(servers) as c:
        ours = _outcome(lambda: c.get(url))
    with httpx.Client(verify=ssl.create_default_context(cafile=servers.certs.ca), trust_env=False) as h:
        r = h.get(url)
    conf.compare("GET https://127.0.0.1/static/64k.bin, ca_file = the suite's CA (httpx verify=ca)",
                 ours, ("ok", r.status_code, sha256(r.content)))


def test_tls_wrong_ca(conf, servers):
    import httpx
    url = servers.nginx.tls_url + "/static/1k.bin"
    with netcore.Client({"tls": {"ca_file": servers.certs.wrong_ca}}, proxy=None) as c:
        ours = _outcome(lambda: c.get(url))
    conf.compare("GET https, ca_file = another CA (curl --cacert other.pem)", ours,
                 _curl_tls("--cacert", servers.certs.wrong_ca, url))
    try:
        with httpx.Client(verify=ssl.create_default_context(cafile=servers.certs.wrong_ca), trust_env=False) as h:
            h.get(url)
        ref = "ok"
    except httpx.ConnectError as e:
        ref = "certificate verify failed" if "CERTIFICATE_VERIFY_FAILED" in str(e) else str(e)
    conf.compare("the same with httpx verify=other.pem",
                 "certificate verify failed" if ours[:2] == ("TRANSPORT", 60) else ours, ref)


def test_tls_system_ca(conf, servers, nc):
    url = servers.nginx.tls_url + "/static/1k.bin"
    conf.compare("GET https with the system CA store (the suite's CA unknown to it)",
                 _outcome(lambda: nc.get(url)), _curl_tls(url))


@pytest.mark.parametrize("which", ["right", "wrong"])
def test_tls_pin(conf, servers, which):
    url = servers.nginx.tls_url + "/static/1k.bin"
    pin = servers.certs.pin if which == "right" else servers.certs.wrong_pin
    with _tls_client(servers, pinned_public_keys=[pin]) as c:
        ours = _outcome(lambda: c.get(url))
    conf.compare(f"GET https with the {which} pin (curl --pinnedpubkey)", ours,
                 _curl_tls("--cacert", servers.certs.ca, "--pinnedpubkey", pin, url))


# ------------------------------------------------------------------ HTTP/2 and connections


def test_h2_version(conf, servers, marker):
    import httpx
    url = servers.nginx.tls_url + f"/anything?m={marker}&x=1"
    with netcore.Client({"http_version": "2", "tls": {"ca_file": servers.certs.ca}}, proxy=None) as c:
        mark = servers.nginx.log.mark()
        o = c.get(url, headers={"X-Conf": "h2"})
        ours_log = [l.request.rsplit(" ", 1)[1] for l in nginx_lines(servers.nginx, mark, marker)]
    with httpx.Client(http2=True, verify=ssl.create_default_context(cafile=servers.certs.ca), trust_env=False) as h:
        mark = servers.nginx.log.mark()
        r = h.get(url, headers={"X-Conf": "h2"})
        ref_log = [l.request.rsplit(" ", 1)[1] for l in nginx_lines(servers.nginx, mark, marker)]
    conf.compare("GET https /anything (nginx -> httpbin), http_version 2 (httpx http2=True): "
                 "version, nginx's $server_protocol",
                 (o.http_version, ours_log), (r.http_version, ref_log))
    conf.compare("the same: args and X-Conf echoed over HTTP/2",
                 (o.json()["args"], o.json()["headers"].get("X-Conf")),
                 (r.json()["args"], r.json()["headers"].get("X-Conf")))


def _connections(servers, mark, marker, n):
    lines = nginx_lines(servers.nginx, mark, marker, n, timeout=5)
    return len(lines), len({l.connection for l in lines}), sorted({l.request.rsplit(" ", 1)[1] for l in lines})


def test_h2_burst(conf, servers, marker):
    import httpx
    n = 30
    base = servers.nginx.tls_url + "/static/64k.bin?m="
    with netcore.Client({"http_version": "2", "tls": {"ca_file": servers.certs.ca}}, proxy=None) as c:
        mark = servers.nginx.log.mark()
        tasks = [c.send("GET", f"{base}ours-{marker}&i={i}") for i in range(n)]
        ok = sum(t.result(timeout=20).status == 200 for t in tasks)
        ours = (ok,) + _connections(servers, mark, f"ours-{marker}", n)

    async def burst():
        async with httpx.AsyncClient(http2=True, verify=ssl.create_default_context(cafile=servers.certs.ca), trust_env=False) as h:
            rs = await asyncio.gather(*(h.get(f"{base}ref-{marker}&i={i}") for i in range(n)))
            return sum(r.status_code == 200 for r in rs)
    mark = servers.nginx.log.mark()
    ok = asyncio.run(burst())
    ref = (ok,) + _connections(servers, mark, f"ref-{marker}", n)
    conf.compare(f"{n} GETs at once on a new HTTP/2 client (httpx AsyncClient http2=True): "
                 "ok, logged, distinct $connection, protocol", ours, ref)


@pytest.mark.parametrize("version", ["1.1", "2"])
def test_tls_session_resumed_by_a_new_client(conf, servers, marker, version):
    """A second client of the process resumes the first one's TLS session
    (docs/roundtrips.md), after the first was closed; curl resumes its second
    connection the same way (one process, one session cache)."""
    url = servers.nginx.tls_url + "/static/1k.bin?m="
    mark = servers.nginx.log.mark()
    for i in range(2):
        with netcore.Client({"http_version": version, "tls": {"ca_file": servers.certs.ca}}, proxy=None) as c:
            assert c.get(f"{url}ours-{version}-{marker}&i={i}").status == 200
    # The second client's connection (the first may resume too: another check of
    # this process may have reached nginx before).
    ours = [l.session_reused for l in nginx_lines(servers.nginx, mark, f"ours-{version}-{marker}", 2, timeout=5)
            if l.request.split("&i=")[1].startswith("1")]
    mark = servers.nginx.log.mark()
    run = command(["curl", "-q", "-s", "-S", "--noproxy", "*", "--http1.1", "--cacert", servers.certs.ca,
                   "-H", "Connection: close", "-o", "/dev/null", "-o", "/dev/null",
                   f"{url}ref-{version}-{marker}&i=0", f"{url}ref-{version}-{marker}&i=1"])
    assert run.code == 0, run.err
    ref = [l.session_reused for l in nginx_lines(servers.nginx, mark, f"ref-{version}-{marker}", 2, timeout=5)
           if l.request.split("&i=")[1].startswith("1")]
    conf.compare(f"two clients one after the other, HTTP/{version} over TLS (curl: two connections, "
                 "Connection: close): nginx's $ssl_session_reused of the second", ours, ref)


def test_keepalive(conf, servers, nc, session, marker):
    url = servers.nginx.http_url + "/static/1k.bin?m="
    mark = servers.nginx.log.mark()
    for i in range(5):
        nc.get(f"{url}ours-{marker}&i={i}")
    ours = _connections(servers, mark, f"ours-{marker}", 5)
    mark = servers.nginx.log.mark()
    for i in range(5):
        session.get(f"{url}ref-{marker}&i={i}")
    ref = _connections(servers, mark, f"ref-{marker}", 5)
    conf.compare("5 GETs one after the other, HTTP/1.1 (requests.Session): logged, "
                 "distinct $connection, protocol", ours, ref)


# ------------------------------------------------------------------ files


@pytest.mark.parametrize("name", sorted(STATIC_FILES))
def test_static_file(conf, servers, nc, session, name):
    url = servers.nginx.http_url + f"/static/{name}"
    o, r = nc.get(url), session.get(url)
    conf.compare(f"GET nginx /static/{name}: status, length, sha256, ETag",
                 (o.status, len(o.body), sha256(o.body), o.headers.get("ETag")),
                 (r.status_code, len(r.content), sha256(r.content), r.headers.get("ETag")))
    conf.compare(f"/static/{name}: sha256 of the file itself", sha256(o.body), servers.static_sha[name])


def test_static_range(conf, servers, nc, session):
    url = servers.nginx.http_url + "/static/64k.bin"
    for rng in ("bytes=1000-1999", "bytes=65000-", "bytes=-100"):
        o, r = nc.get(url, headers={"Range": rng}), session.get(url, headers={"Range": rng})
        conf.compare(f"GET nginx /static/64k.bin Range: {rng}: status, Content-Range, sha256",
                     (o.status, o.headers.get("Content-Range"), sha256(o.body)),
                     (r.status_code, r.headers.get("Content-Range"), sha256(r.content)))


def test_download_static(conf, servers, nc, tmp_path):
    url = servers.nginx.tls_url + "/static/3m.bin"
    ours_path, ref_path = tmp_path / "ours.bin", tmp_path / "ref.bin"
    with _tls_client(servers) as c:
        c.get(url, output=str(ours_path))
    run = command(["curl", "-q", "-s", "-S", "--noproxy", "*", "--cacert", servers.certs.ca, "-o",
                   str(ref_path), url])
    assert run.code == 0, run.err
    conf.compare("GET https /static/3m.bin output=path (curl -o): sha256 of the file",
                 file_sha256(str(ours_path)), file_sha256(str(ref_path)))


def test_resume(conf, servers, tmp_path, marker):
    """A download cut in the middle (cancelled once past SLOW_AFTER bytes: /slow/ is
    rate-limited from there), then sent again: Range from the .part's size, 206, and
    the file byte-identical. curl: the same first bytes (-r), then -C -."""
    name = "1m.bin"
    url = servers.nginx.http_url + f"/slow/{name}?m="
    out = tmp_path / "ours" / name
    out.parent.mkdir()
    first_mark = servers.nginx.log.mark()
    with netcore.Client({}, proxy=None) as c:
        task = c.send("GET", f"{url}ours-{marker}", output=str(out))
        part = str(out) + ".part"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and (not os.path.exists(part) or os.path.getsize(part) < SLOW_AFTER):
            time.sleep(0.02)
        task.cancel()
        assert isinstance(task.exception(timeout=10), netcore.Cancelled)
        assert os.path.exists(part + ".meta"), os.listdir(out.parent)
        cut = os.path.getsize(part)
        # nginx logs the cancelled request when it notices the close: wait for that
        # line, so that the mark below counts the resumed request alone.
        nginx_lines(servers.nginx, first_mark, f"ours-{marker}")
        mark = servers.nginx.log.mark()
        c.get(f"{url}ours-{marker}", output=str(out))
    [line] = nginx_lines(servers.nginx, mark, f"ours-{marker}")
    ours = (line.status, line.range, line.bytes_sent, file_sha256(str(out)), sorted(os.listdir(out.parent)))

    ref_out = tmp_path / "ref" / name
    ref_out.parent.mkdir()
    first = command(["curl", "-q", "-s", "-S", "--noproxy", "*", "-r", f"0-{cut - 1}", "-o", str(ref_out),
                     f"{url}ref-{marker}"])
    assert first.code == 0 and os.path.getsize(ref_out) == cut, first.err
    mark = servers.nginx.log.mark()
    second = command(["curl", "-q", "-s", "-S", "--noproxy", "*", "-C", "-", "-o", str(ref_out),
                      f"{url}ref-{marker}"])
    assert second.code == 0, second.err
    [line] = nginx_lines(servers.nginx, mark, f"ref-{marker}")
    ref = (line.status, line.range, line.bytes_sent, file_sha256(str(ref_out)), [name])
    conf.compare(f"GET /slow/{name} cut at {cut} bytes, then again (curl -C -): status, Range, "
                 "bytes sent, sha256, files left", ours, ref)
    conf.compare("the resumed file is the original", ours[3], servers.static_sha[name])
