"""Redirects of every kind beside requests: 301/302/303/307/308 to a relative and an
absolute Location (what becomes of a POST and its body), chains, the limit, not
following."""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest

import netcore
from helpers import error_kind


def _summary(method, form, status, history, url):
    return {"method": method, "form": form, "status": status, "hops": history, "path": urlsplit(url).path}


@pytest.mark.parametrize("kind", ["relative", "absolute"])
@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_redirect_post(conf, nc, session, hb, code, kind):
    target = "/anything/landed" if kind == "relative" else hb + "/anything/landed"
    params = {"url": target, "status_code": code}
    o = nc.post(hb + "/redirect-to", params=params, data={"x": "1"})
    r = session.post(hb + "/redirect-to", params=params, data={"x": "1"})
    oj, rj = o.json(), r.json()
    conf.compare(f"POST form x=1 -> {code} to a {kind} Location",
                 _summary(oj["method"], oj["form"], o.status, [h.status_code for h in o.history], o.url),
                 _summary(rj["method"], rj["form"], r.status_code, [h.status_code for h in r.history], r.url))


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_redirect_put(conf, nc, session, hb, code):
    params = {"url": "/anything/landed", "status_code": code}
    o = nc.put(hb + "/redirect-to", params=params, json={"k": 1}).json()
    r = session.put(hb + "/redirect-to", params=params, json={"k": 1}).json()
    call = f"PUT json -> {code}: method and body at the end"
    if code in (301, 302):
        conf.by_design(call, (o["method"], o["json"]), (r["method"], r["json"]), ("PUT", {"k": 1}))
    else:
        conf.compare(call, (o["method"], o["json"]), (r["method"], r["json"]))


@pytest.mark.parametrize("path", ["redirect", "relative-redirect", "absolute-redirect"])
def test_redirect_chain(conf, nc, session, hb, path):
    o, r = nc.get(hb + f"/{path}/4"), session.get(hb + f"/{path}/4")
    conf.compare(f"GET /{path}/4: status, hops, final URL",
                 (o.status, [h.status_code for h in o.history], o.url),
                 (r.status_code, [h.status_code for h in r.history], r.url))


def test_redirect_limit(conf, session, hb):
    session.max_redirects = 2
    with netcore.Client({"limits": {"max_redirects": 2}}, proxy=None) as c:
        for n in (2, 3):
            try:
                ours = ("ok", c.get(hb + f"/redirect/{n}").status)
            except netcore.TransportError as e:
                ours = ("too many redirects", error_kind(e)[1]) if e.code == 47 else ("error", e.code)
            try:
                ref = ("ok", session.get(hb + f"/redirect/{n}").status_code)
            except Exception as e:  # requests.TooManyRedirects
                ref = ("too many redirects", 47) if type(e).__name__ == "TooManyRedirects" else ("error", str(e))
            conf.compare(f"GET /redirect/{n} with at most 2 redirects (ours TRANSPORT 47)", ours, ref)


def test_redirect_off(conf, session, hb):
    url = hb + "/redirect-to?url=/anything&status_code=302"
    with netcore.Client({}, follow_redirects=False, proxy=None) as c:
        o = c.get(url)
    r = session.get(url, allow_redirects=False)
    conf.compare("GET /redirect-to (302), not following: status, Location, history",
                 (o.status, o.headers.get("Location"), len(o.history)),
                 (r.status_code, r.headers.get("Location"), len(r.history)))
