"""Routes of the response cache's tests (Features/Cache, docs/caching.md).

  /cache/resource?key=K&max_age=N&etag=1&lm=1&vary=H&cc=D&expires=S&date_form=F&code=C&size=N
        an envelope {"code":0,"msg":"ok","data":{"key":K,"version":v,"n":n,"vary":value}}
        where v is the key's version (/cache/bump) and n counts the key's requests.
        max_age=N: "Cache-Control: max-age=N"; cc=D adds directives (no-store,
        no-cache, must-revalidate, private: comma-separated); expires=S: an Expires
        S seconds from now (negative: past) and a Date, as IMF-fixdates or, with
        date_form=rfc850|asctime, in that obsolete form; etag=1: ETag "K-v", and a
        matching If-None-Match gets 304; lm=1: a fixed Last-Modified, and an equal
        If-Modified-Since (without If-None-Match) gets 304; vary=H: "Vary: H" and
        the request's H in data.vary; code=C: the envelope's code is C (a business
        error when C != 0); size=N: N bytes of "x" in data.pad; set_cookie=V: a
        "Set-Cookie: V" header. The request's Authorization and Cookie, when it
        has them, are in data.auth and data.cookie (which credentials got the answer).
  /cache/count?key=K    {"requests","conditional","not_modified"} of key K (not counted)
  /cache/bump?key=K     the key's version + 1 (its ETag changes) (not counted)
  /cache/break?key=K&on=1   while on, /cache/resource of key K closes the
                        connection without answering (a transport failure)
"""

import threading
import time
from email.utils import formatdate

from mock_server import JSON_TYPE, dumps

_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def _rfc850(t):
    g = time.gmtime(t)
    return (f"{_DAYS[g.tm_wday]}, {g.tm_mday:02d}-{_MONTHS[g.tm_mon - 1]}-{g.tm_year % 100:02d} "
            f"{g.tm_hour:02d}:{g.tm_min:02d}:{g.tm_sec:02d} GMT")


def _asctime(t):
    g = time.gmtime(t)
    return (f"{_DAYS[g.tm_wday][:3]} {_MONTHS[g.tm_mon - 1]} {g.tm_mday:2d} "
            f"{g.tm_hour:02d}:{g.tm_min:02d}:{g.tm_sec:02d} {g.tm_year}")


# The obsolete HTTP-date forms a recipient must also accept (RFC 9110 §5.6.7).
http_date_forms = {"rfc850": _rfc850, "asctime": _asctime}


_lock = threading.Lock()
_state = {}  # key -> {"requests", "conditional", "not_modified", "version", "broken"}
LAST_MODIFIED = "Tue, 15 Nov 1994 12:45:26 GMT"


def _entry(key):
    return _state.setdefault(key, {"requests": 0, "conditional": 0, "not_modified": 0, "version": 1,
                                   "broken": False})


def route_resource(h):
    key = h.arg("key", "default")
    inm = h.headers.get("If-None-Match")
    ims = h.headers.get("If-Modified-Since")
    with _lock:
        e = _entry(key)
        e["requests"] += 1
        if inm or ims:
            e["conditional"] += 1
        n, version, broken = e["requests"], e["version"], e["broken"]
    if broken:
        h.close_connection = True
        h.headers_sent = True  # nothing is answered: the client sees an empty reply
        return
    headers = []
    cc = []
    if h.arg("max_age") is not None:
        cc.append(f"max-age={h.int_arg('max_age', 0)}")
    if h.arg("cc"):
        cc.extend(d for d in h.arg("cc").split(",") if d)
    if cc:
        headers.append(("Cache-Control", ", ".join(cc)))
    if h.arg("expires") is not None:
        now = time.time()
        form = http_date_forms.get(h.arg("date_form"), lambda t: formatdate(t, usegmt=True))
        headers.append(("Date", form(now)))
        headers.append(("Expires", form(now + h.int_arg("expires", 0))))
    etag = f'"{key}-{version}"' if h.arg("etag") == "1" else None
    if etag:
        headers.append(("ETag", etag))
    if h.arg("lm") == "1":
        headers.append(("Last-Modified", LAST_MODIFIED))
    vary = h.arg("vary")
    if vary:
        headers.append(("Vary", vary))
    not_modified = (etag and inm and etag in [t.strip() for t in inm.split(",")]) or (
        not inm and h.arg("lm") == "1" and ims == LAST_MODIFIED)
    if not_modified:
        with _lock:
            _entry(key)["not_modified"] += 1
        return h.send_body(304, headers=headers)
    data = {"key": key, "version": version, "n": n, "vary": h.headers.get(vary) if vary else None}
    if h.headers.get("Authorization"):
        data["auth"] = h.headers.get("Authorization")
    if h.headers.get("Cookie"):
        data["cookie"] = h.headers.get("Cookie")
    if h.arg("set_cookie"):
        headers.append(("Set-Cookie", h.arg("set_cookie")))
    if h.arg("size"):
        data["pad"] = "x" * h.int_arg("size", 0)
    code = h.int_arg("code", 0)
    body = {"code": code, "msg": "ok" if code == 0 else "business error", "data": data if code == 0 else None}
    h.send_body(200, dumps(body), JSON_TYPE, headers)


def route_count(h):
    key = h.arg("key", "default")
    with _lock:
        e = dict(_entry(key))
    h.send_body(200, dumps({"requests": e["requests"], "conditional": e["conditional"],
                            "not_modified": e["not_modified"]}), JSON_TYPE)


def route_bump(h):
    with _lock:
        e = _entry(h.arg("key", "default"))
        e["version"] += 1
        v = e["version"]
    h.send_body(200, dumps({"version": v}), JSON_TYPE)


def route_break(h):
    with _lock:
        _entry(h.arg("key", "default"))["broken"] = h.arg("on", "1") == "1"
    h.send_body(200, dumps({"ok": True}), JSON_TYPE)


ROUTES = {
    "/cache/resource": route_resource,
    "/cache/count": route_count,
    "/cache/bump": route_bump,
    "/cache/break": route_break,
}
