"""Through tinyproxy beside requests: a proxy from the configuration and from the
environment (counted in tinyproxy's log), no_proxy, a proxy that is down, and a
CONNECT tinyproxy refuses (ConnectPort 443 only: 403)."""
from __future__ import annotations

import pytest

import netcore
from helpers import command, hits


@pytest.fixture
def clean_env(monkeypatch):
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                 "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def _requests(**kw):
    import requests
    s = requests.Session()
    for k, v in kw.items():
        setattr(s, k, v)
    return s


def _via_proxy(servers, mark, needle):
    return len(hits(servers.proxy, mark, needle, 1, timeout=1.5))


def test_proxy_config(conf, servers, hb, marker, clean_env):
    url = hb + "/anything?m="
    mark = servers.proxy.log.mark()
    with netcore.Client({"proxy": {"url": servers.proxy.url}}) as c:
        o = c.get(f"{url}ours-{marker}")
    ours = (o.status, _via_proxy(servers, mark, f"ours-{marker}"))
    mark = servers.proxy.log.mark()
    with _requests(trust_env=False, proxies={"http": servers.proxy.url}) as s:
        r = s.get(f"{url}ref-{marker}")
    ref = (r.status_code, _via_proxy(servers, mark, f"ref-{marker}"))
    conf.compare("GET http://httpbin/anything, proxy configured (requests proxies=): status, "
                 "tinyproxy log lines", ours, ref)


def test_proxy_env(conf, servers, hb, marker, clean_env):
    clean_env.setenv("http_proxy", servers.proxy.url)
    url = hb + "/anything?m="
    mark = servers.proxy.log.mark()
    with netcore.Client({}) as c:
        o = c.get(f"{url}ours-{marker}")
    ours = (o.status, _via_proxy(servers, mark, f"ours-{marker}"))
    mark = servers.proxy.log.mark()
    with _requests() as s:
        r = s.get(f"{url}ref-{marker}")
    ref = (r.status_code, _via_proxy(servers, mark, f"ref-{marker}"))
    conf.compare("GET http://httpbin/anything, http_proxy in the environment: status, "
                 "tinyproxy log lines", ours, ref)


def test_proxy_env_no_proxy(conf, servers, hb, marker, clean_env):
    clean_env.setenv("http_proxy", servers.proxy.url)
    clean_env.setenv("no_proxy", "127.0.0.1")
    url = hb + "/anything?m="
    mark = servers.proxy.log.mark()
    with netcore.Client({}) as c:
        o = c.get(f"{url}ours-{marker}")
    with _requests() as s:
        r = s.get(f"{url}ref-{marker}")
    lines = hits(servers.proxy, mark, marker, 1, timeout=1)
    conf.compare("the same with no_proxy=127.0.0.1: status, tinyproxy log lines",
                 (o.status, sum("ours-" in l for l in lines)), (r.status_code, sum("ref-" in l for l in lines)))


def test_proxy_down(conf, hb, closed_port, clean_env):
    import requests
    proxy = f"http://127.0.0.1:{closed_port}"
    with netcore.Client({"proxy": {"url": proxy}}) as c:
        try:
            c.get(hb + "/anything")
            ours = ("ok",)
        except netcore.TransportError as e:
            msg = str(e)
            ours = ("fails", "names the proxy" if "proxy" in msg.lower() and f"{closed_port}" in msg
                    else f"does not name the proxy: {msg}")
    with _requests(trust_env=False, proxies={"http": proxy}) as s:
        try:
            s.get(hb + "/anything")
            ref = ("ok",)
        except requests.exceptions.ProxyError as e:
            ref = ("fails", "names the proxy" if "proxy" in str(e).lower() else str(e))
    conf.compare("GET via a proxy on a closed port (requests: ProxyError): the error", ours, ref)


def test_connect_refused(conf, servers, clean_env, marker):
    import requests
    url = servers.nginx.tls_url + f"/anything?m={marker}"
    mark = servers.proxy.log.mark()
    with netcore.Client({"proxy": {"url": servers.proxy.url}, "tls": {"ca_file": servers.certs.ca}}) as c:
        try:
            c.get(url)
            ours = ("ok",)
        except netcore.TransportError as e:
            msg = str(e)
            ours = ("fails", "says 403, names the proxy" if "403" in msg and "proxy" in msg.lower() else msg)
    refused_ours = len(hits(servers.proxy, mark, "Refused CONNECT", 1, timeout=1))
    mark = servers.proxy.log.mark()
    with _requests(trust_env=False, proxies={"https": servers.proxy.url}) as s:
        try:
            s.get(url, verify=servers.certs.ca)
            ref = ("ok",)
        except requests.exceptions.ProxyError as e:
            ref = ("fails", "says 403, names the proxy" if "403" in str(e) and "proxy" in str(e).lower() else str(e))
    refused_ref = len(hits(servers.proxy, mark, "Refused CONNECT", 1, timeout=1))
    conf.compare("CONNECT refused by tinyproxy (ConnectPort 443): tinyproxy's 'Refused CONNECT' lines",
                 refused_ours, refused_ref)
    conf.compare("the same: the error (requests: ProxyError 'Tunnel connection failed: 403')", ours, ref)


def test_connect_refused_retry(conf, servers, clean_env):
    """A proxy's refusal is an answer, not a broken connection: curl --retry does not
    send the CONNECT again."""
    url = servers.nginx.tls_url + "/anything"
    mark = servers.proxy.log.mark()
    with netcore.Client({"proxy": {"url": servers.proxy.url}, "tls": {"ca_file": servers.certs.ca}},
                        retry=netcore.Retry(total=2, backoff_factor=0.01)) as c:
        with pytest.raises(netcore.Error) as info:
            c.get(url)
    ours = (len(hits(servers.proxy, mark, "Refused CONNECT", 3, timeout=1)), info.value.retryable)
    mark = servers.proxy.log.mark()
    run = command(["curl", "-q", "-s", "--retry", "2", "--retry-delay", "0", "--proxy", servers.proxy.url,
                   "--cacert", servers.certs.ca, url])
    ref = (len(hits(servers.proxy, mark, "Refused CONNECT", 3, timeout=1)), False)
    conf.compare(f"the same with 2 retries (curl --retry 2, exit {run.code}): CONNECTs tinyproxy refused, "
                 "retryable", ours, ref)
