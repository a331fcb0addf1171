"""Cookie routes of the mock server (loaded by mock_server.py; libnetcore's cookie jar tests).

  /cookies/set?name=N&value=V&path=P&domain=D&secure=1&httponly=1&max_age=S&to=U
                      answers with one "Set-Cookie: N=V" carrying the attributes given
                      (Path, Domain, Secure, HttpOnly, Max-Age); with to=U it is a 302
                      to U (a cookie set on a redirect hop), else ok {"set": line}
  /cookies/many?count=N&prefix=P
                      answers with N "Set-Cookie: P<i>=<i>; Path=/" lines (i = 0..N-1,
                      at most 50: libcurl keeps no more from one response), ok {"set": N}
  /cookies/echo, /cookies/a/echo, /cookies/b/echo
                      ok {"cookie": C, "count": n}: the Cookie header lines received
                      joined with "; " (null when none) and how many there were
"""


def ok(data):
    return {"code": 0, "msg": "ok", "data": data}


def route_cookies_set(h):
    name, value = h.arg("name", "sid"), h.arg("value", "1")
    line = f"{name}={value}"
    for attr, key in (("Path", "path"), ("Domain", "domain"), ("Max-Age", "max_age")):
        if h.arg(key) is not None:
            line += f"; {attr}={h.arg(key)}"
    if h.arg("secure") == "1":
        line += "; Secure"
    if h.arg("httponly") == "1":
        line += "; HttpOnly"
    to = h.arg("to")
    if to:
        h.send_body(302, b"", None, [("Set-Cookie", line), ("Location", to)])
    else:
        h.send_json(200, ok({"set": line}), [("Set-Cookie", line)])


def route_cookies_many(h):
    count, prefix = min(int(h.arg("count", "1")), 50), h.arg("prefix", "c")
    lines = [("Set-Cookie", f"{prefix}{i}={i}; Path=/") for i in range(count)]
    h.send_json(200, ok({"set": count}), lines)


def route_cookies_echo(h):
    lines = h.headers.get_all("Cookie") or []
    h.send_json(200, ok({"cookie": "; ".join(lines) if lines else None, "count": len(lines)}))


ROUTES = {
    "/cookies/set": route_cookies_set,
    "/cookies/many": route_cookies_many,
    "/cookies/echo": route_cookies_echo,
    "/cookies/a/echo": route_cookies_echo,
    "/cookies/b/echo": route_cookies_echo,
}
